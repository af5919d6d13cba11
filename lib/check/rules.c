/*
 * rules.c: the format-neutral rules of the metadata (lib/check/tdat-check.h):
 * the event format files (ids, fields, the dynamic fields the pages are
 * checked by), their print formats, and the lines of kallsyms, printk
 * formats and saved cmdlines (lib/event/texts.c).  With a second CPU, a
 * second thread reads half the format files, its findings kept and taken
 * in file order.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "tdat-check.h"

/* Work worth a second thread: bytes of format text. */
#define MIN_FORMATS_2	(64u << 10)

/* ------------------------------------------------------------------ */
/* Event formats: ids, and the dynamic fields the pages are checked by. */

/*
 * A format file is read by tdat_event_scan() on either thread (below):
 * its findings are kept as text, and the event's size and dynamic fields
 * in the job, until the main thread takes them in file order.
 */
struct fmtjob {
	const struct tdat_blob *bl;
	const char *sys;
	int rc;			/* 0 an event; 1 none; -1 out of memory */
	uint32_t id;
	char name[64];
	struct tdat_shape sh;	/* what its records must hold */
	char **note;		/* "event-format" warnings, in order */
	size_t nnote;
	int oom;
};

static void
note_text(const char *sys, const struct tdat_fmt_issue *is, char *msg,
    size_t n)
{
	char vs[64], ev[64], id[24];

	tdat_vis(vs, sizeof(vs), sys);
	snprintf(ev, sizeof(ev), "%s:%s", sys, is->name ? is->name : "?");
	tdat_vis(ev, sizeof(ev), ev);
	msg[0] = '\0';
	switch (is->what) {
	case TDAT_FMT_NO_ID:
		snprintf(msg, n, "event format in system %s has no ID line", vs);
		break;
	case TDAT_FMT_BAD_ID:
		tdat_vis(id, sizeof(id), is->text);
		snprintf(msg, n, "event format in system %s: ID %s is not an "
		    "event id", vs, id);
		break;
	case TDAT_FMT_NO_FORMAT:
		snprintf(msg, n, "event %s has no format: line", ev);
		break;
	case TDAT_FMT_BAD_FIELD:
		snprintf(msg, n, "event %s: malformed field line", ev);
		break;
	case TDAT_FMT_FIELD_RANGE:
		snprintf(msg, n, "event %s: field offset %d or size %d is not "
		    "sane", ev, is->field->offset, is->field->size);
		break;
	case TDAT_FMT_NO_PRINT:
		snprintf(msg, n, "event %s has no print fmt line", ev);
		break;
	}
}

/* What tdat_event_scan() found in one format file, kept. */
static void
format_note(void *arg, const struct tdat_fmt_issue *is)
{
	struct fmtjob *j = arg;
	char msg[320], **nn;

	note_text(j->sys, is, msg, sizeof(msg));
	if (msg[0] == '\0' || j->oom)
		return;
	if ((nn = realloc(j->note, (j->nnote + 1) * sizeof(*nn))) == NULL ||
	    (nn[j->nnote] = strdup(msg)) == NULL) {
		if (nn)
			j->note = nn;
		j->oom = 1;
		return;
	}
	j->note = nn;
	j->nnote++;
}

/* snprintf(dst, n, "%s:%s", a, b) (n > 0), without its cost: it is
 * made for each of a trace's format files. */
static void
sys_name(char *dst, size_t n, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), k;

	k = la < n - 1 ? la : n - 1;
	memcpy(dst, a, k);
	if (k < n - 1)
		dst[k++] = ':';
	lb = lb < n - 1 - k ? lb : n - 1 - k;
	memcpy(dst + k, b, lb);
	dst[k + lb] = '\0';
}

/* One format file, read leniently by lib/event/event.c: what it says is wrong
 * becomes a warning, and the event keeps the fields that parse.  Touches
 * nothing but *j: either thread runs it. */
static void
scan_format(struct fmtjob *j, int lsize)
{
	const struct tdat_blob *bl = j->bl;
	struct tdat_event *te;
	struct tdat_err e = { 0 };

	j->rc = 1;
	if (bl->p == NULL)
		return;
	if (tdat_event_scan((const char *)bl->p, strnlen((const char *)bl->p,
	    bl->len), j->sys, lsize, format_note, j, &te, &e) < 0) {
		if (e.code == TDAT_ENOMEM)
			j->rc = -1;
	} else {
		sys_name(j->name, sizeof(j->name), j->sys,
		    te->name ? te->name : "?");
		tdat_vis(j->name, sizeof(j->name), j->name);
		j->id = (uint32_t)te->id;
		j->rc = tdat_shape_of(te, &j->sh) < 0 ? -1 : 0;
		tdat_event_free(te);
	}
	if (j->oom)
		j->rc = -1;
}

/* A scanned format file's findings, then its event by its id; nonzero
 * when out of memory (the formats' check stops). */
static int
take_format(struct tdat_check *v, struct fmtjob *j)
{
	struct tdat_check_ev *ev;
	size_t i, ix;
	int rc;

	for (i = 0; i < j->nnote; i++)
		TDAT_CHECK_WARN(v, "event-format", j->bl->off, "%s",
		    j->note[i]);
	if (j->rc < 0)
		return tdat_check_nomem(v);
	if (j->rc > 0)
		return 0;
	rc = tdat_ring_events_add(&v->events, j->id, j->name, &j->sh, &ix);
	j->sh.loc = NULL;
	if (rc < 0)
		return tdat_check_nomem(v);
	if (rc == 1)
		TDAT_CHECK_WARN(v, "event-id-twice", j->bl->off, "event id %u "
		    "belongs to both %s and %s", j->id, v->events.ev[ix].name,
		    j->name);
	if (rc != 0)
		return 0;
	/* v->ev holds ix events: 8, then twice as many when full */
	if (ix == 0 || (ix >= 8 && (ix & (ix - 1)) == 0)) {
		if ((ev = realloc(v->ev, (ix ? ix * 2 : 8) * sizeof(*ev))) ==
		    NULL)
			return tdat_check_nomem(v);
		v->ev = ev;
	}
	v->ev[ix].bl = j->bl;
	v->ev[ix].sys = j->sys;
	return 0;
}

/*
 * Through the event engine: format files parse, and print formats render
 * a record of zeros without failing.  Warnings only: a file with an odd
 * print format still holds good data.  all: every event; else the events
 * that have records (parsing every format costs more than the pages).
 */
void
tdat_check_print_formats(struct tdat_check *v, int all)
{
	static const unsigned char zeros[4096];
	struct tdat_events *set;
	struct tdat_event **evs;
	struct tdat_record rec;
	struct tdat_sbuf sb;
	struct tdat_err e;
	size_t i;

	tdat_check_section(v);
	if ((set = tdat_events_new(v->f->lsize, v->f->big)) == NULL ||
	    (evs = calloc(v->events.nev + 1, sizeof(*evs))) == NULL) {
		if (set)
			tdat_events_free(set);
		tdat_check_nomem(v);
		return;
	}
	for (i = 0; i < v->events.nev && !v->fatal; i++) {
		const struct tdat_check_ev *ve = &v->ev[i];
		const char *name = v->events.ev[i].name;

		if (!all && !(v->seen && v->seen[i]))
			continue;
		memset(&e, 0, sizeof(e));
		if (tdat_events_add(set, (const char *)ve->bl->p,
		    (size_t)ve->bl->len, ve->sys, &evs[i], &e) < 0) {
			if (e.code == TDAT_ENOMEM)
				tdat_check_nomem(v);
			else
				TDAT_CHECK_WARN(v, "event-parse", ve->bl->off,
				    "event %s: its format does not parse: %s",
				    name, e.msg);
			evs[i] = NULL;
		}
	}
	tdat_events_finish(set, 0);
	tdat_sb_init(&sb);
	tdat_sb_limit(&sb, TDAT_TEXT_MAX);
	memset(&rec, 0, sizeof(rec));
	rec.data = zeros;
	rec.size = sizeof(zeros);
	for (i = 0; i < v->events.nev && !v->fatal; i++) {
		if (evs[i] == NULL)
			continue;
		if (evs[i]->failed) {
			TDAT_CHECK_WARN(v, "print-format", v->ev[i].bl->off,
			    "event %s: its print format does not parse",
			    v->events.ev[i].name);
			continue;
		}
		tdat_sb_reset(&sb);
		tdat_event_print(evs[i], &rec, TDAT_PRINT_FMT, &sb);
		if (evs[i]->failed)
			TDAT_CHECK_WARN(v, "print-format", v->ev[i].bl->off,
			    "event %s: its print format does not render",
			    v->events.ev[i].name);
		else if (sb.full)
			TDAT_CHECK_WARN(v, "print-format", v->ev[i].bl->off,
			    "event %s: its print format makes more than %zu "
			    "MiB of text", v->events.ev[i].name,
			    TDAT_TEXT_MAX >> 20);
	}
	tdat_sb_free(&sb);
	free(evs);
	tdat_events_free(set);
}

/*
 * The reading of the format files (and, when asked, of the texts' lines,
 * as tdat_check_scan_texts() does) in pieces that either thread takes in
 * turn: the texts first, in pieces of about TEXT_PIECE bytes of whole
 * lines (a kernel's 4 MB kallsyms read as one piece kept one thread busy
 * while the other read every format file, and waited for: 1.8 to 5 ms),
 * then format file i.  Each piece writes only its own results (a text
 * piece's check, a format's job), which the main thread reads after the
 * join: the pieces' checks add up to the text's (tdat_text_check_add()).
 */
#define TEXT_PIECE	((size_t)512 << 10)

struct textpiece {
	int kind;		/* enum tdat_text: which text */
	size_t at, len;		/* its bytes in that text */
	struct tdat_text_check r;
};

struct fmtrun {
	const struct tdat_blob *tb[3];	/* the texts, by kind */
	struct textpiece *tp;	/* the texts' pieces, in order */
	size_t ntp;
	struct fmtjob *j;
	size_t n;
	int lsize;
	atomic_size_t next;	/* the next piece nobody has taken */
};

static void *
scan_run(void *arg)
{
	struct fmtrun *r = arg;
	struct textpiece *t;
	size_t i;

	while ((i = atomic_fetch_add(&r->next, 1)) < r->ntp + r->n) {
		if (i >= r->ntp) {
			scan_format(&r->j[i - r->ntp], r->lsize);
			continue;
		}
		t = &r->tp[i];
		tdat_text_check((enum tdat_text)t->kind,
		    (const char *)r->tb[t->kind]->p + t->at, t->len, &t->r);
	}
	return NULL;
}

/* A text there to read: loaded, and of a size memory can hold. */
static int
text_there(const struct tdat_blob *b)
{
	return b->p != NULL && b->len <= SIZE_MAX;
}

/* The texts cut in pieces of whole lines into *out (those
 * tdat_check_scan_texts() reads): their count, or 0 (none, or no memory:
 * *out NULL). */
static size_t
text_pieces(const struct tdat_blob *const *tb, struct textpiece **out)
{
	struct textpiece *tp;
	const char *p, *nl;
	size_t n = 0, i, at, end, len;
	int k;

	*out = NULL;
	for (k = 0; k < 3; k++)
		if (text_there(tb[k]))
			n += (size_t)tb[k]->len / TEXT_PIECE + 1;
	if (n == 0 || (tp = calloc(n, sizeof(*tp))) == NULL)
		return 0;
	for (k = 0, i = 0; k < 3; k++) {
		if (!text_there(tb[k]))
			continue;
		p = (const char *)tb[k]->p;
		len = (size_t)tb[k]->len;
		at = 0;
		do {
			end = len - at > TEXT_PIECE ? at + TEXT_PIECE : len;
			if (end < len && (nl = memchr(p + end, '\n',
			    len - end)) != NULL)
				end = (size_t)(nl - p) + 1;
			else
				end = len;
			tp[i].kind = k;
			tp[i].at = at;
			tp[i++].len = end - at;
			at = end;
		} while (at < len);
	}
	*out = tp;
	return i;
}

/* The texts' checks, of their pieces: as tdat_check_scan_texts()'s. */
static void
texts_of_pieces(struct tdat_check *v, const struct textpiece *tp, size_t n)
{
	size_t i;
	int k = -1;

	for (i = 0; i < n; i++) {
		if (tp[i].kind != k) {
			k = tp[i].kind;
			memset(&v->text[k], 0, sizeof(v->text[k]));
		}
		tdat_text_check_add(&v->text[k], &tp[i].r, tp[i].at);
	}
	tdat_check_texts_where(v);
}

/* Texts' bytes worth a format file's one: reading a kallsyms line costs
 * about a tenth of what reading a format's line does (callgrind). */
#define TEXT_WEIGHT	8

/*
 * Every format file, in file order: the ftrace events, then each
 * system's; with texts, the texts' lines too (tdat_check_scan_texts())
 * and their findings first (tdat_check_texts()).  Reading them costs as
 * much as the pages of a large trace: with two threads, both take the
 * pieces (the texts, then the format files one by one) as they come, so
 * that neither waits while the other has some left; the findings are
 * taken afterwards, in file order, as one thread would have made them.
 */
static void
formats(struct tdat_check *v, int texts)
{
	struct tdat_file *f = v->f;
	const struct tdat_blob *tb[] = { &f->kallsyms, &f->printk,
	    &f->cmdlines };
	struct fmtjob *jobs;
	struct fmtrun r;
	struct tdat_check_thread t;
	uint64_t all = 0;
	size_t n, i, k;
	uint32_t si, ei;
	int two;

	n = f->nftrace;
	for (si = 0; si < f->nsys; si++)
		n += f->sys[si].nev;
	if ((jobs = calloc(n + 1, sizeof(*jobs))) == NULL) {
		if (texts) {
			tdat_check_scan_texts(v);
			tdat_check_texts(v);
		}
		tdat_check_nomem(v);
		return;
	}
	n = 0;
	for (i = 0; i < f->nftrace; i++) {
		jobs[n].bl = &f->ftrace[i];
		jobs[n++].sys = "ftrace";
	}
	for (si = 0; si < f->nsys; si++)
		for (ei = 0; ei < f->sys[si].nev; ei++) {
			jobs[n].bl = &f->sys[si].ev[ei];
			jobs[n++].sys = f->sys[si].name ? f->sys[si].name : "?";
		}
	for (i = 0; i < n; i++)
		all += jobs[i].bl->len;
	for (i = 0; texts && i < 3; i++)
		all += tb[i]->len / TEXT_WEIGHT;
	memset(&r, 0, sizeof(r));
	for (i = 0; i < 3; i++)
		r.tb[i] = tb[i];
	/* no texts, or no memory for their pieces: read here */
	if (texts && (r.ntp = text_pieces(tb, &r.tp)) == 0)
		tdat_check_scan_texts(v);
	r.j = jobs;
	r.n = n;
	r.lsize = f->lsize;
	atomic_init(&r.next, 0);
	two = n + r.ntp > 1 &&
	    tdat_check_two_threads(v, all, MIN_FORMATS_2) &&
	    tdat_check_spawn(v, &t, scan_run, &r) == 0;
	scan_run(&r);
	if (two)
		tdat_check_join(&t);
	if (r.ntp)
		texts_of_pieces(v, r.tp, r.ntp);
	free(r.tp);
	if (texts)
		tdat_check_texts(v);
	tdat_check_section(v);
	for (i = 0; i < n && !v->fatal && !(texts && v->stop); i++)
		if (take_format(v, &jobs[i]))
			break;
	for (i = 0; i < n; i++) {
		for (k = 0; k < jobs[i].nnote; k++)
			free(jobs[i].note[k]);
		free(jobs[i].note);
		free(jobs[i].sh.loc);
	}
	free(jobs);
}

void
tdat_check_formats(struct tdat_check *v)
{
	formats(v, 0);
}

void
tdat_check_texts_formats(struct tdat_check *v)
{
	formats(v, 1);
}

/* ------------------------------------------------------------------ */
/* The texts: kallsyms, printk formats, saved cmdlines. */

/* Each text's lines against the shape the kernel gives them (taken
 * before the container's checks: a large kallsyms need not stay). */
void
tdat_check_scan_texts(struct tdat_check *v)
{
	const struct tdat_blob *b[] = { &v->f->kallsyms, &v->f->printk,
	    &v->f->cmdlines };
	int i;

	for (i = 0; i < 3; i++)
		if (text_there(b[i]))
			tdat_text_check((enum tdat_text)i,
			    (const char *)b[i]->p, (size_t)b[i]->len,
			    &v->text[i]);
	tdat_check_texts_where(v);
}

/* Where each damaged text's first bad line lies in the file. */
void
tdat_check_texts_where(struct tdat_check *v)
{
	const struct tdat_blob *b[] = { &v->f->kallsyms, &v->f->printk,
	    &v->f->cmdlines };
	int i;

	for (i = 0; i < 3; i++) {
		if (!text_there(b[i]) || v->text[i].bad == 0)
			continue;
		v->text_exact[i] = 1;
		v->text_at[i] = b[i]->off;
		if (v->f->format && v->f->format->text_where)
			v->text_at[i] = v->f->format->text_where(v->f, b[i],
			    v->text[i].first_at, &v->text_exact[i]);
	}
}

/* One error per damaged text: its first bad line, and how many. */
void
tdat_check_texts(struct tdat_check *v)
{
	char msg[TDAT_TEXT_SAY];
	int i;

	for (i = 0; i < 3 && !v->stop; i++) {
		if (v->text[i].bad == 0)
			continue;
		tdat_check_section(v);
		TDAT_CHECK_ERR(v, "text-line", v->text_at[i], "%s",
		    tdat_text_say(msg, sizeof(msg), (enum tdat_text)i, 1,
		    &v->text[i], v->text_exact[i]));
	}
}
