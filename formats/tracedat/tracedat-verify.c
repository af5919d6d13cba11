/*
 * tracedat-verify.c: tdat-verify's checks of a trace.dat
 * (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)): what tdat_open() checks,
 * then the container's layout (sections, options, string references,
 * compressed data, where the CPU data lies), the event formats, and every
 * ring-buffer page of every CPU of every buffer, read through the page
 * iterator (lib/read/pages.c) and walked with the decoder of
 * lib/records.c; after an error, what tdat-cat --salvage would keep
 * (tracedat-salvage.c), when asked.
 *
 * Findings go to a callback in the order a check on one thread finds
 * them.  Each section (the container, the formats, each CPU's pages)
 * stops at its first error unless keep_going is set; a warning of one
 * kind is reported once per section unless keep_going is set.  With a
 * second CPU, a second thread reads half the format files and checks
 * some CPUs' pages, its findings kept and handed on in order (below).
 * Memory stays bounded: one window of pages (mapped from the file when
 * it is not compressed) or one chunk at a time on each thread, and at
 * most KEEP_BYTES of kept findings for each of AHEAD + 1 CPUs.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdat-int.h"
#include "tdat-tracedat.h"

#define MAX_CHUNK	(16u << 20)	/* uncompressed bytes of one chunk */
#define MAX_WARN_KINDS	32
/* Work worth a second thread: bytes of format text, of CPU data. */
#define MIN_FORMATS_2	(64u << 10)
#define MIN_PAGES_2	(1u << 20)

/* An event of the table (v->events.ev[i]): where its format is. */
struct vevent {
	const struct tdat_blob *bl;	/* its format file */
	const char *sys;
};

/* A region of the file that nothing else may share. */
struct region {
	uint64_t off, end;
	char what[64];
};

struct vctx {
	struct tdat_file *f;
	const struct tdat_verify_opts *o;
	struct tdat_verify_stats *st;
	struct tdat_err *e;	/* I/O errors and lack of memory */
	int fatal;		/* an I/O error or lack of memory */
	int stop;		/* the callback asked to stop */
	/* the current section */
	int sec_stop;		/* its first error is in */
	const char *warned[MAX_WARN_KINDS];
	int nwarned;
	/* pages */
	struct tdat_page_layout pl;
	int have_pl;
	/* event formats: the table by id (lib/ring), and ev[i] the format
	 * file of events.ev[i] */
	struct tdat_ring_events events;
	struct vevent *ev;
	unsigned char *seen;	/* seen[i]: a record of ev[i] is in the pages */
	struct tdat_codec *codec;	/* for the pages; NULL: the file's */
	/* regions */
	struct region *reg;
	size_t nreg;
	/* buffers */
	unsigned char *win, *cbuf;
	size_t wcap, ccap;
	/* kallsyms, printk formats, cmdlines: their lines (check_texts) */
	struct tdat_text_check text[3];
	uint64_t text_at[3];
	int text_exact[3];
};

static void	section(struct vctx *);
static int	find(struct vctx *, int, const char *, int, uint64_t,
    const struct tdat_buffer *, int, long long, const char *, ...)
    __attribute__((format(printf, 9, 10)));

/* ------------------------------------------------------------------ */
/* Findings. */

static void
section(struct vctx *v)
{
	v->sec_stop = 0;
	v->nwarned = 0;
}

static int
nomem(struct vctx *v)
{
	tdat_fail_nooff(v->e, TDAT_ENOMEM, "out of memory");
	v->fatal = 1;
	return 1;
}

/*
 * Whether to use a second thread for work of this size: o->threads 1
 * never, 2 always (the tests), 0 when the machine has a second CPU and
 * the work is worth a thread.
 */
static int
two_threads(const struct vctx *v, uint64_t work, uint64_t min)
{
	if (v->o->threads == 1)
		return 0;
	if (v->o->threads >= 2)
		return 1;
	return work >= min && sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

/*
 * Report a finding.  Returns nonzero when the current section should
 * stop: after its first error (unless keep_going), or when the callback
 * asks.
 */
static int
find(struct vctx *v, int sev, const char *kind, int has_off, uint64_t off,
    const struct tdat_buffer *b, int cpu, long long page, const char *fmt, ...)
{
	struct tdat_finding fd;
	char msg[320], bname[64];
	va_list ap;
	int i;

	if (sev == TDAT_FIND_ERROR)
		v->st->errors++;
	else
		v->st->warnings++;
	if (v->stop)
		return 1;
	if (sev == TDAT_FIND_WARNING && !v->o->keep_going) {
		for (i = 0; i < v->nwarned; i++)
			if (v->warned[i] == kind) {
				v->st->unreported++;
				return 0;
			}
		if (v->nwarned < MAX_WARN_KINDS)
			v->warned[v->nwarned++] = kind;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	memset(&fd, 0, sizeof(fd));
	fd.severity = sev;
	fd.kind = kind;
	fd.has_off = has_off;
	fd.off = off;
	if (b) {
		tdat_vis(bname, sizeof(bname), b->name ? b->name : "");
		fd.buffer = bname;
	}
	fd.cpu = cpu;
	fd.page = page;
	fd.msg = msg;
	if (v->o->found && v->o->found(v->o->arg, &fd))
		v->stop = 1;
	if (sev == TDAT_FIND_ERROR && !v->o->keep_going)
		v->sec_stop = 1;
	return v->stop || v->sec_stop;
}

#define ERR(v, kind, off, ...) \
	find(v, TDAT_FIND_ERROR, kind, 1, off, NULL, -1, -1, __VA_ARGS__)
#define WARN(v, kind, off, ...) \
	find(v, TDAT_FIND_WARNING, kind, 1, off, NULL, -1, -1, __VA_ARGS__)

/* ------------------------------------------------------------------ */
/* Decompression, with the codec's own words for what went wrong. */

/* Decompress src into dst (room for dlen + 1 bytes); 0, or 1 with why. */
static int
inflate_exact(struct vctx *v, const unsigned char *src, size_t slen,
    unsigned char *dst, size_t dlen, char *why, size_t wn)
{
	const struct tdat_tracedat *td = tdat_tracedat_of(v->f);
	int rc;

	rc = tdat_codec_decompress_why(td->codec, src, slen, dst, dlen, why,
	    wn);
	if (rc == TDAT_ENOMEM)
		return nomem(v), 1;
	return rc < 0;
}

/* Room for n + 1 bytes in *p. */
static int
room(struct vctx *v, unsigned char **p, size_t *cap, size_t n)
{
	unsigned char *q;

	if (n + 1 <= *cap)
		return 0;
	if ((q = realloc(*p, n + 1)) == NULL)
		return nomem(v);
	*p = q;
	*cap = n + 1;
	return 0;
}

/* Read len bytes at off into *p; nonzero on failure (reported). */
static int
readat(struct vctx *v, unsigned char **p, size_t *cap, uint64_t off,
    size_t len, const char *kind)
{
	struct tdat_err e = { 0 };

	if (room(v, p, cap, len))
		return 1;
	if (tdat_pread(v->f, *p, off, len, &e) < 0) {
		if (e.code != TDAT_ECORRUPT) {
			*v->e = e;
			v->fatal = 1;
			return 1;
		}
		ERR(v, kind, off, "%s", e.msg);
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Event formats: ids, and the dynamic fields the pages are checked by. */

/*
 * A format file is read by tdat_event_scan() on either thread (below):
 * its findings are kept as text, and the event's size and dynamic fields
 * in a vevent, until the main thread takes them in file order.
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
		snprintf(j->name, sizeof(j->name), "%s:%s", j->sys,
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
take_format(struct vctx *v, struct fmtjob *j)
{
	struct vevent *ev;
	size_t i, ix;
	int rc;

	for (i = 0; i < j->nnote; i++)
		WARN(v, "event-format", j->bl->off, "%s", j->note[i]);
	if (j->rc < 0)
		return nomem(v);
	if (j->rc > 0)
		return 0;
	rc = tdat_ring_events_add(&v->events, j->id, j->name, &j->sh, &ix);
	j->sh.loc = NULL;
	if (rc < 0)
		return nomem(v);
	if (rc == 1)
		WARN(v, "event-id-twice", j->bl->off, "event id %u belongs to "
		    "both %s and %s", j->id, v->events.ev[ix].name, j->name);
	if (rc != 0)
		return 0;
	if ((ev = realloc(v->ev, v->events.nev * sizeof(*ev))) == NULL)
		return nomem(v);
	v->ev = ev;
	ev[ix].bl = j->bl;
	ev[ix].sys = j->sys;
	return 0;
}

/*
 * Through the event engine: format files parse, and print formats render
 * a record of zeros without failing.  Warnings only: a file with an odd
 * print format still holds good data.  all: every event; else the events
 * that have records (parsing every format costs more than the pages).
 */
static void
check_print_formats(struct vctx *v, int all)
{
	static const unsigned char zeros[4096];
	struct tdat_events *set;
	struct tdat_event **evs;
	struct tdat_record rec;
	struct tdat_sbuf sb;
	struct tdat_err e;
	size_t i;

	section(v);
	if ((set = tdat_events_new(v->f->lsize, v->f->big)) == NULL ||
	    (evs = calloc(v->events.nev + 1, sizeof(*evs))) == NULL) {
		if (set)
			tdat_events_free(set);
		nomem(v);
		return;
	}
	for (i = 0; i < v->events.nev && !v->fatal; i++) {
		const struct vevent *ve = &v->ev[i];
		const char *name = v->events.ev[i].name;

		if (!all && !(v->seen && v->seen[i]))
			continue;
		memset(&e, 0, sizeof(e));
		if (tdat_events_add(set, (const char *)ve->bl->p,
		    (size_t)ve->bl->len, ve->sys, &evs[i], &e) < 0) {
			if (e.code == TDAT_ENOMEM)
				nomem(v);
			else
				WARN(v, "event-parse", ve->bl->off, "event %s: its "
				    "format does not parse: %s", name, e.msg);
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
			WARN(v, "print-format", v->ev[i].bl->off, "event %s: its "
			    "print format does not parse", v->events.ev[i].name);
			continue;
		}
		tdat_sb_reset(&sb);
		tdat_event_print(evs[i], &rec, TDAT_PRINT_FMT, &sb);
		if (evs[i]->failed)
			WARN(v, "print-format", v->ev[i].bl->off, "event %s: its "
			    "print format does not render", v->events.ev[i].name);
		else if (sb.full)
			WARN(v, "print-format", v->ev[i].bl->off, "event %s: its "
			    "print format makes more than %zu MiB of text",
			    v->events.ev[i].name, TDAT_TEXT_MAX >> 20);
	}
	tdat_sb_free(&sb);
	free(evs);
	tdat_events_free(set);
}

/* Scan the format files [from, to) of a list (on either thread). */
struct fmtrun {
	struct fmtjob *j;
	size_t from, to;
	int lsize;
};

static void *
scan_formats(void *arg)
{
	const struct fmtrun *r = arg;
	size_t i;

	for (i = r->from; i < r->to; i++)
		scan_format(&r->j[i], r->lsize);
	return NULL;
}

/*
 * Every format file, in file order: the ftrace events, then each
 * system's.  Reading them costs as much as the pages of a large trace:
 * with two threads, the second reads the later half of the text while
 * the first reads the earlier; the findings are taken in file order.
 */
static void
check_formats(struct vctx *v)
{
	struct tdat_file *f = v->f;
	struct fmtjob *jobs;
	struct fmtrun a, b;
	pthread_t t;
	uint64_t all = 0, half = 0;
	size_t n, i, k;
	uint32_t si, ei;
	int two;

	section(v);
	n = f->nftrace;
	for (si = 0; si < f->nsys; si++)
		n += f->sys[si].nev;
	if ((jobs = calloc(n + 1, sizeof(*jobs))) == NULL) {
		nomem(v);
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
	for (k = 0; k < n && half < all / 2; k++)
		half += jobs[k].bl->len;
	a = (struct fmtrun){ jobs, 0, k, f->lsize };
	b = (struct fmtrun){ jobs, k, n, f->lsize };
	two = k < n && two_threads(v, all, MIN_FORMATS_2) &&
	    pthread_create(&t, NULL, scan_formats, &b) == 0;
	scan_formats(&a);
	if (two)
		pthread_join(t, NULL);
	else
		scan_formats(&b);
	for (i = 0; i < n && !v->fatal; i++)
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

/* ------------------------------------------------------------------ */
/* The container. */

static void
add_region(struct vctx *v, uint64_t off, uint64_t end, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
add_region(struct vctx *v, uint64_t off, uint64_t end, const char *fmt, ...)
{
	struct region *r;
	va_list ap;

	if (end <= off)
		return;
	if ((r = realloc(v->reg, (v->nreg + 1) * sizeof(*r))) == NULL) {
		nomem(v);
		return;
	}
	v->reg = r;
	r = &v->reg[v->nreg++];
	r->off = off;
	r->end = end;
	va_start(ap, fmt);
	vsnprintf(r->what, sizeof(r->what), fmt, ap);
	va_end(ap);
	tdat_vis(r->what, sizeof(r->what), r->what);
}

/* "the top buffer" or "buffer NAME", printable. */
static const char *
bufname(const struct tdat_buffer *b, char *out, size_t n)
{
	char nm[48];

	if (b->name == NULL || b->name[0] == '\0')
		return "the top buffer";
	tdat_vis(nm, sizeof(nm), b->name);
	snprintf(out, n, "buffer %s", nm);
	return out;
}

static int
region_cmp(const void *a, const void *b)
{
	const struct region *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static void
check_regions(struct vctx *v)
{
	size_t i, last = 0;

	qsort(v->reg, v->nreg, sizeof(*v->reg), region_cmp);
	for (i = 1; i < v->nreg; i++) {
		if (v->reg[i].off < v->reg[last].end) {
			if (ERR(v, "overlap", v->reg[i].off, "%s overlaps %s "
			    "(0x%llx-0x%llx)", v->reg[i].what, v->reg[last].what,
			    (unsigned long long)v->reg[last].off,
			    (unsigned long long)v->reg[last].end))
				return;
		}
		if (v->reg[i].end > v->reg[last].end)
			last = i;
	}
}

/* The options, each decoded once (formats/tracedat/tracedat-opts.c). */
static const struct tdat_optval *
optvals(struct vctx *v)
{
	const struct tdat_optval *ov;

	if (tdat_options(v->f, &ov, v->e) < 0) {
		v->fatal = 1;
		return NULL;
	}
	return ov;
}

static void
check_options(struct vctx *v)
{
	struct tdat_file *f = v->f;
	unsigned seen[TDAT_OPT_MAX] = { 0 };
	const struct tdat_optval *ov;
	size_t i;

	if ((ov = optvals(v)) == NULL)
		return;
	for (i = 0; i < f->nopt && !v->sec_stop; i++) {
		const struct tdat_option *o = &f->opt[i];
		const struct tdat_optval *ovi = &ov[i];
		const char *name = tdat_option_name(o->id);
		uint64_t at = o->off >= 6 ? o->off - 6 : o->off;

		if (name == NULL) {
			WARN(v, "option-unknown", at, "unknown option id %u "
			    "(%u bytes)", o->id, o->size);
			continue;
		}
		seen[o->id]++;
		switch (o->id) {
		case TDAT_OPT_CPUCOUNT:
			if (o->size != 4)
				ERR(v, "option-size", at, "option CPUCOUNT has %u "
				    "bytes, not 4", o->size);
			break;
		case TDAT_OPT_TSC2NSEC:
			if (o->size != 16)
				ERR(v, "option-size", at, "option TSC2NSEC has %u "
				    "bytes, not 16", o->size);
			else if (ovi->u.tsc.shift > 63)
				ERR(v, "option-value", at, "option TSC2NSEC: "
				    "shift %u is not sane", ovi->u.tsc.shift);
			break;
		case TDAT_OPT_OFFSET:
			if (!ovi->u.text.num_ok)
				WARN(v, "option-value", at, "option OFFSET is "
				    "not a number");
			break;
		case TDAT_OPT_DATE: case TDAT_OPT_UNAME: case TDAT_OPT_VERSION:
		case TDAT_OPT_TRACECLOCK: case TDAT_OPT_CPUSTAT:
		case TDAT_OPT_LAST_BOOT_INFO:
			/* text: a NUL ends it within the payload */
			if (o->size > 0 && ovi->u.text.len == o->size)
				WARN(v, "option-text", at, "option %s is not "
				    "NUL-terminated text", name);
			break;
		case TDAT_OPT_HEADER_INFO: case TDAT_OPT_FTRACE_EVENTS:
		case TDAT_OPT_EVENT_FORMATS: case TDAT_OPT_KALLSYMS:
		case TDAT_OPT_PRINTK: case TDAT_OPT_CMDLINES:
		case TDAT_OPT_BTF_FILE: case TDAT_OPT_MODULES_FILE:
			if (f->version >= 7 && o->size != 8)
				WARN(v, "option-size", at, "option %s has %u bytes, "
				    "not 8", name, o->size);
			if (f->version >= 7 && seen[o->id] == 2)
				ERR(v, "option-twice", at, "option %s appears "
				    "twice", name);
			break;
		case TDAT_OPT_DONE:
			if (f->version >= 7 && o->size != 8)
				WARN(v, "option-size", at, "option DONE has %u "
				    "bytes, not 8", o->size);
			break;
		}
	}
	if (seen[TDAT_OPT_CPUCOUNT] > 1)
		WARN(v, "option-twice", 0, "option CPUCOUNT appears %u times",
		    seen[TDAT_OPT_CPUCOUNT]);
}

/* Does a v7 metadata option (HEADER_INFO...CMDLINES, and trace-cmd 3.4's
 * BTF_FILE and MODULES_FILE) point at section s? */
static int
names_section(const struct tdat_optval *o, const struct tdat_section *s)
{
	return o->id == s->id && ((o->id >= TDAT_OPT_HEADER_INFO &&
	    o->id <= TDAT_OPT_CMDLINES) || o->id == TDAT_OPT_BTF_FILE ||
	    o->id == TDAT_OPT_MODULES_FILE) && o->u.ref.valid &&
	    o->u.ref.off == s->off;
}

/*
 * The BTF section (trace-cmd 3.4 copies /sys/kernel/btf/vmlinux): its
 * header (magic 0xeb9f in the kernel's byte order, version 1) and the
 * type and string parts it names inside it; why is set when it is wrong.
 */
static void
btf_check(const unsigned char *p, uint64_t n, char *why, size_t len)
{
	uint32_t hl, toff, tlen, soff, slen;
	int big;

	why[0] = '\0';
	if (n < 24) {
		snprintf(why, len, "%llu bytes hold no BTF header",
		    (unsigned long long)n);
		return;
	}
	if (p[0] == 0x9f && p[1] == 0xeb)
		big = 0;
	else if (p[0] == 0xeb && p[1] == 0x9f)
		big = 1;
	else {
		snprintf(why, len, "no BTF magic (0x%02x%02x)", p[0], p[1]);
		return;
	}
	hl = tdat_get32(p + 4, big);
	toff = tdat_get32(p + 8, big);
	tlen = tdat_get32(p + 12, big);
	soff = tdat_get32(p + 16, big);
	slen = tdat_get32(p + 20, big);
	if (p[2] != 1)
		snprintf(why, len, "BTF version %u, not 1", p[2]);
	else if (hl < 24 || hl > n)
		snprintf(why, len, "BTF header length %u is not sane", hl);
	else if ((uint64_t)toff + tlen > n - hl ||
	    (uint64_t)soff + slen > n - hl)
		snprintf(why, len, "BTF types (%u bytes at %u) or strings (%u "
		    "bytes at %u) lie outside its %llu bytes", tlen, toff, slen,
		    soff, (unsigned long long)(n - hl));
}

/* v7: sections, their names, what names them, compressed payloads. */
static void
check_sections(struct vctx *v)
{
	struct tdat_file *f = v->f;
	const struct tdat_tracedat *td = tdat_tracedat_of(f);
	const struct tdat_optval *ov;
	size_t i, j;
	char why[160];

	if ((ov = optvals(v)) == NULL)
		return;

	if (td->nsect > 0) {
		const struct tdat_section *z = &td->sect[td->nsect - 1];
		uint64_t end = z->off + 16 + z->size;

		add_region(v, 0, td->sect[0].off, "the file header");
		if (end < f->fsize && ERR(v, "trailing", end, "%llu bytes after "
		    "the last section do not form a section",
		    (unsigned long long)(f->fsize - end)))
			return;
	}
	for (i = 0; i < td->nsect && !v->sec_stop && !v->fatal; i++) {
		const struct tdat_section *s = &td->sect[i];
		const char *nm = tdat_string(f, s->name_id);
		unsigned refs = 0;

		if (nm == NULL || strnlen(nm, td->strings_len - s->name_id) ==
		    td->strings_len - s->name_id) {
			if (ERR(v, "string-ref", s->off, "section name id %u is "
			    "outside the string table (%zu bytes)", s->name_id,
			    td->strings_len))
				return;
		}
		if (s->flags & ~TDAT_SEC_COMPRESSED)
			WARN(v, "section-flags", s->off, "section flags 0x%x "
			    "are unknown", s->flags);
		if (tdat_option_name(s->id) == NULL)
			WARN(v, "section-id", s->off, "unknown section id %u",
			    s->id);
		if (s->id == TDAT_OPT_DONE) {
			for (j = 0; j < f->nopt; j++)
				if (f->opt[j].sect == (int)i)
					refs = 1;
			if (!refs)
				WARN(v, "section-orphan", s->off, "options section "
				    "is not on the chain of options");
		} else if (s->id == TDAT_OPT_BUFFER ||
		    s->id == TDAT_OPT_BUFFER_TEXT) {
			for (j = 0; j < f->nbuf; j++)
				if (f->buf[j].opt_index >= 0 && f->buf[j].opt_off ==
				    s->off)
					refs++;
			if (refs == 0)
				WARN(v, "section-orphan", s->off, "no BUFFER option "
				    "names this section");
			else if (refs > 1)
				ERR(v, "section-twice", s->off, "%u buffers name "
				    "this section", refs);
		} else {
			for (j = 0; j < f->nopt; j++)
				if (names_section(&ov[j], s))
					refs++;
			if (refs == 0 && s->id != TDAT_OPT_STRINGS)
				WARN(v, "section-orphan", s->off, "no option names "
				    "this section");
		}
		if (s->id != TDAT_OPT_BUFFER && s->id != TDAT_OPT_BUFFER_TEXT)
			add_region(v, s->off, s->off + 16 + s->size,
			    "section %s", tdat_option_name(s->id) ?
			    tdat_option_name(s->id) : "?");
		else
			add_region(v, s->off, s->off + 16, "section header");
		if (s->id == TDAT_OPT_BTF_FILE &&
		    !(s->flags & TDAT_SEC_COMPRESSED) && s->size <= MAX_CHUNK * 4 &&
		    !readat(v, &v->win, &v->wcap, s->off + 16, s->size, "BTF")) {
			btf_check(v->win, s->size, why, sizeof(why));
			if (why[0] != '\0')
				ERR(v, "btf", s->off + 16, "section BTF: %s", why);
		}
		if (!(s->flags & TDAT_SEC_COMPRESSED) ||
		    s->id == TDAT_OPT_BUFFER || s->id == TDAT_OPT_BUFFER_TEXT)
			continue;
		if (td->codec == NULL) {
			ERR(v, "compressed", s->off, "section is compressed but "
			    "the file names no compression");
			continue;
		}
		if ((uint64_t)s->csize + 8 > s->size) {
			ERR(v, "compressed-size", s->off, "compressed size %u "
			    "exceeds section size %llu", s->csize,
			    (unsigned long long)s->size);
			continue;
		}
		if (s->usize > MAX_CHUNK * 4) {
			ERR(v, "compressed-size", s->off, "uncompressed size %u "
			    "is not sane", s->usize);
			continue;
		}
		if (readat(v, &v->cbuf, &v->ccap, s->off + 24, s->csize,
		    "compressed") || room(v, &v->win, &v->wcap, s->usize))
			continue;
		if (inflate_exact(v, v->cbuf, s->csize, v->win, s->usize, why,
		    sizeof(why))) {
			if (!v->fatal)
				ERR(v, "decompress", s->off + 24, "section %s: %s",
				    tdat_option_name(s->id) ?
				    tdat_option_name(s->id) : "?", why);
			continue;
		}
		if (s->id == TDAT_OPT_BTF_FILE) {
			btf_check(v->win, s->usize, why, sizeof(why));
			if (why[0] != '\0')
				ERR(v, "btf", s->off + 24, "section BTF: %s",
				    why);
		}
	}
}

/* v6: where the metadata ends and the CPU tables are. */
static void
v6_regions(struct vctx *v)
{
	struct tdat_file *f = v->f;
	const struct tdat_tracedat *td = tdat_tracedat_of(f);
	uint64_t end = f->cmdlines.off + 8 + f->cmdlines.len + 4, top;
	unsigned char tag[10];
	struct tdat_err e = { 0 };
	char bn[64];
	size_t i;

	for (i = 0; i < f->nopt; i++) {
		uint64_t oe = f->opt[i].off + f->opt[i].size;

		if (oe + 2 > end)
			end = oe + 2;	/* the DONE id after the last option */
	}
	top = end;
	if (!f->latency && tdat_pread(f, tag, top, 10, &e) == 0 &&
	    memcmp(tag, "flyrecord", 10) == 0)
		end = top + 10 + 16 * (uint64_t)f->ncpus;
	add_region(v, 0, end, "the file's metadata");
	if (f->has_clock_data && f->clock_data)
		add_region(v, td->clock_off, td->clock_off + 8 +
		    strlen(f->clock_data), "the trace clock");
	for (i = 1; i < f->nbuf; i++)
		add_region(v, f->buf[i].opt_off, f->buf[i].opt_off + 10 +
		    16 * (uint64_t)f->buf[i].ncpu, "the CPU table of %s",
		    bufname(&f->buf[i], bn, sizeof(bn)));
}

/* Which CPUs of b repeat an earlier one's id: a table of b->ncpu flags
 * (free()), or NULL when out of memory. */
static unsigned char *
cpu_twice(const struct tdat_buffer *b)
{
	struct tdat_cpu_ix *x;
	unsigned char *twice;
	uint32_t i;

	if ((twice = calloc((size_t)b->ncpu + 1, 1)) == NULL ||
	    (x = tdat_cpu_index(b)) == NULL) {
		free(twice);
		return NULL;
	}
	for (i = 1; i < b->ncpu; i++)
		if (x[i].id == x[i - 1].id)
			twice[x[i].i] = 1;
	free(x);
	return twice;
}

static void
check_buffers(struct vctx *v)
{
	struct tdat_file *f = v->f;
	unsigned char *twice;
	size_t bi;
	uint32_t ci;
	char bnb[64];

	for (bi = 0; bi < f->nbuf && !v->sec_stop && !v->fatal; bi++) {
		const struct tdat_buffer *b = &f->buf[bi];
		const char *bn = bufname(b, bnb, sizeof(bnb));

		if (b->latency)
			continue;
		if (b->ncpu && v->have_pl &&
		    b->page_size < (uint32_t)v->pl.data_off + 4) {
			ERR(v, "page-size", b->opt_off, "%s: page size %u holds "
			    "no records", bn, b->page_size);
			continue;
		}
		/* trace-cmd maps the top buffer's pages at the header's. */
		if (b->ncpu && f->version >= 7 && (b->name == NULL ||
		    b->name[0] == '\0') && b->page_size != f->page_size)
			WARN(v, "page-size", b->opt_off, "%s: page size %u is "
			    "not the header's %u, at which trace-cmd reads it",
			    bn, b->page_size, f->page_size);
		if ((twice = cpu_twice(b)) == NULL) {
			nomem(v);
			return;
		}
		for (ci = 0; ci < b->ncpu && !v->sec_stop; ci++) {
			const struct tdat_cpu *c = &b->cpu[ci];

			if (twice[ci] && ERR(v, "cpu-twice", c->off, "%s: CPU %u "
			    "appears twice", bn, c->id))
				break;
			if (f->version >= 7 && f->ncpus && c->id >= f->ncpus)
				WARN(v, "cpu-id", c->off, "%s: CPU %u is not "
				    "below CPUCOUNT %u", bn, c->id,
				    f->ncpus);
			if (c->size == 0)
				continue;
			add_region(v, c->off, c->off + c->size, "CPU %u data of "
			    "%s", c->id, bn);
			if (b->compressed)
				continue;
			if (c->off % b->page_size)
				ERR(v, "cpu-align", c->off, "%s CPU %u: data is "
				    "not page-aligned (page size %u)", bn,
				    c->id, b->page_size);
			else if (c->size % b->page_size)
				ERR(v, "cpu-size", c->off, "%s CPU %u: data size "
				    "%llu is not a multiple of the page size %u", bn, c->id, (unsigned long long)c->size,
				    b->page_size);
		}
		free(twice);
	}
}

static void
check_container(struct vctx *v)
{
	struct tdat_err e = { 0 };

	section(v);
	if (tdat_page_layout(v->f, &v->pl, &e) < 0)
		ERR(v, "header-page", e.off, "%s", e.msg);
	else
		v->have_pl = 1;
	if (!v->sec_stop)
		check_options(v);
	if (!v->sec_stop && v->f->version >= 7) {
		check_sections(v);
		/* A decompressed kallsyms need not stay for the pages. */
		free(v->win);
		free(v->cbuf);
		v->win = v->cbuf = NULL;
		v->wcap = v->ccap = 0;
	} else if (!v->sec_stop)
		v6_regions(v);
	if (!v->sec_stop && !v->fatal)
		check_buffers(v);
	if (!v->sec_stop && !v->fatal)
		check_regions(v);
}

/* ------------------------------------------------------------------ */
/* The texts: kallsyms, printk formats, saved cmdlines. */

/* Each text's lines against the shape the kernel gives them (taken
 * before the container's checks: a large kallsyms need not stay). */
static void
scan_texts(struct vctx *v)
{
	const struct tdat_blob *b[] = { &v->f->kallsyms, &v->f->printk,
	    &v->f->cmdlines };
	int i;

	for (i = 0; i < 3; i++) {
		if (b[i]->p == NULL || b[i]->len > SIZE_MAX)
			continue;
		tdat_text_check((enum tdat_text)i, (const char *)b[i]->p,
		    (size_t)b[i]->len, &v->text[i]);
		if (v->text[i].bad)
			v->text_at[i] = tdat_text_where(v->f, b[i],
			    v->text[i].first_at, &v->text_exact[i]);
	}
}

/* One error per damaged text: its first bad line, and how many. */
static void
check_texts(struct vctx *v)
{
	char msg[TDAT_TEXT_SAY];
	int i;

	for (i = 0; i < 3 && !v->stop; i++) {
		if (v->text[i].bad == 0)
			continue;
		section(v);
		ERR(v, "text-line", v->text_at[i], "%s", tdat_text_say(msg,
		    sizeof(msg), (enum tdat_text)i, 1, &v->text[i],
		    v->text_exact[i]));
	}
}

/* ------------------------------------------------------------------ */
/* Pages. */

struct cpuwalk {
	struct vctx *v;
	const struct tdat_buffer *b;
	const struct tdat_cpu *c;
	long long page;		/* index of the current page */
	struct tdat_ring_check ck;	/* the checker, the CPU's clock */
	uint64_t pages, records;	/* of its counts, those in v->st */
};

/* The checker's counts into the stats (a finding kept by the second
 * thread notes them as they are). */
static void
counts(struct cpuwalk *w)
{
	w->v->st->pages += w->ck.pages - w->pages;
	w->v->st->records += w->ck.records - w->records;
	w->pages = w->ck.pages;
	w->records = w->ck.records;
}

#define PERR(v, w, kind, off, ...) \
	find(v, TDAT_FIND_ERROR, kind, 1, off, (w)->b, (int)(w)->c->id, \
	    (w)->page, __VA_ARGS__)
#define PWARN(v, w, kind, off, ...) \
	find(v, TDAT_FIND_WARNING, kind, 1, off, (w)->b, (int)(w)->c->id, \
	    (w)->page, __VA_ARGS__)

/* What the page checker (lib/ring/check.c) finds, as findings. */
static int
page_issue(void *arg, const struct tdat_ring_issue *is)
{
	struct cpuwalk *w = arg;
	struct vctx *v = w->v;
	const char *ev = is->ev ? is->ev->name : "?";
	const char *fld = is->loc ? is->loc->name : "?";
	unsigned long long ts = is->ts, last = is->last;

	counts(w);
	switch (is->what) {
	case TDAT_RI_PAGE_COMMIT:
		return PERR(v, w, "page-commit", is->off, "%s", is->msg);
	case TDAT_RI_PAGE_FLAGS:
		return PWARN(v, w, "page-flags", is->off, "unknown page flags "
		    "0x%llx", (unsigned long long)is->flags);
	case TDAT_RI_MISSED:
		if (is->lost > 0)
			return PWARN(v, w, "missed-events", is->off, "%lld "
			    "events were lost before this page", is->lost);
		return PWARN(v, w, "missed-events", is->off, "events were lost "
		    "before this page");
	case TDAT_RI_PAGE_BACK:
		return PERR(v, w, "time-backwards", is->off, "page time stamp "
		    "%llu is before the CPU's last record (%llu)", ts, last);
	case TDAT_RI_ITEM:
		return PERR(v, w, "record", is->off, "%s", is->msg);
	case TDAT_RI_TIME_WRAP:
		return PERR(v, w, "time-wrap", is->off, "time delta wraps the "
		    "clock");
	case TDAT_RI_TIME_BACK:
		return PERR(v, w, "time-backwards", is->off, "timestamp %llu is "
		    "before the last (%llu)", ts, last);
	case TDAT_RI_PADDING_PAST:
		return PERR(v, w, "padding", is->off, "padding of %u bytes runs "
		    "past the page commit (%u)", is->size, is->commit);
	case TDAT_RI_PADDING_LEN:
		return PERR(v, w, "padding", is->off, "padding length %u is "
		    "malformed", is->size);
	case TDAT_RI_EXTEND_WRAP:
		return PERR(v, w, "time-wrap", is->off, "time extend %llu wraps "
		    "the clock", (unsigned long long)is->ext);
	case TDAT_RI_EXTEND_TWICE:
		return PWARN(v, w, "time-extend", is->off, "two time extends in "
		    "a row");
	case TDAT_RI_EXTEND_END:
		return PWARN(v, w, "time-extend", is->off, "time extend at the "
		    "end of the page's records");
	case TDAT_RI_NO_ID:
		return PERR(v, w, "record-size", is->off, "record of %u bytes "
		    "holds no event id", is->size);
	case TDAT_RI_NO_FORMAT:
		return PERR(v, w, "event-id", is->off, "event id %u has no "
		    "format", is->id);
	case TDAT_RI_SHORT:
		return PERR(v, w, "record-size", is->off, "record of %u bytes is "
		    "shorter than event %s (%u)", is->size, ev,
		    is->ev ? is->ev->sh.min_size : 0);
	case TDAT_RI_OUTSIDE:
		return PERR(v, w, "data-loc", is->off, "event %s: field %s (%u "
		    "bytes at %u) lies outside its record of %u bytes", ev, fld,
		    is->len, is->off_in, is->size);
	case TDAT_RI_UNTERMINATED:
		return PERR(v, w, "string", is->off, "event %s: string field %s "
		    "is not terminated in its record", ev, fld);
	case TDAT_RI_LONG_STRING:
		return PWARN(v, w, "string-length", is->off, "event %s: string "
		    "field %s ends after its stated length %u", ev, fld,
		    is->len);
	}
	return 0;
}

/*
 * Every page of one CPU, through the page iterator.  A damaged piece (a
 * chunk that lies wrong or does not decompress) is a finding; the walk
 * goes on after it with keep_going.
 */
static void
check_cpu(struct vctx *v, int bi, uint32_t ci)
{
	const struct tdat_tracedat *td = tdat_tracedat_of(v->f);
	const struct tdat_buffer *b = &v->f->buf[bi];
	struct cpuwalk w = { v, b, &b->cpu[ci], -1, { 0 }, 0, 0 };
	struct tdat_pages *ps;
	struct tdat_page pg;
	struct tdat_err e = { 0 };
	const char *kind;
	size_t avail;
	int rc;

	section(v);
	w.ck.pl = &v->pl;
	w.ck.events = &v->events;
	w.ck.issue = page_issue;
	w.ck.arg = &w;
	w.ck.seen = v->seen;
	if (b->compressed && td->codec == NULL) {
		PERR(v, &w, "compressed", w.c->off, "data is compressed but the "
		    "file names no compression");
		return;
	}
	if ((rc = tdat_pages_open(v->f, bi, ci, &ps, &e)) < 0) {
		if (e.code != TDAT_ECORRUPT) {
			*v->e = e;
			v->fatal = 1;
			return;
		}
		PERR(v, &w, b->compressed ? "chunk" : "cpu-data", e.off, "%s",
		    e.msg);
		return;
	}
	if (v->codec)
		tdat_pages_codec(ps, v->codec);
	tdat_pages_map(ps);
	/* No page worker here: handing each window over cost more than it
	 * saved (make bench, v7 zstd: 0.11 s with it, 0.07 s without). */
	while (!v->sec_stop && !v->stop && !v->fatal) {
		if ((rc = tdat_pages_next(ps, &pg, &avail, &e)) == 0)
			break;
		if (rc < 0) {
			if (e.code != TDAT_ECORRUPT) {
				*v->e = e;
				v->fatal = 1;
				break;
			}
			kind = tdat_pages_fault(ps);
			if (kind == NULL)
				kind = b->compressed ? "chunk" : "cpu-data";
			PERR(v, &w, kind, e.off, "%s", e.msg);
			continue;
		}
		w.page++;
		rc = tdat_ring_check_page(&w.ck, &pg);
		counts(&w);
		if (rc)
			break;
	}
	tdat_pages_close(ps);
}

/*
 * A v6 latency file's text runs to the end of the file: a file cut short
 * ends inside a line.  The finding names where that line starts.
 */
static void
check_latency_end(struct vctx *v)
{
	struct tdat_file *f = v->f;
	struct tdat_err e = { 0 };
	unsigned char buf[4096];
	uint64_t n, at;
	size_t i;

	if (f->fsize <= f->latency_off)
		return;
	n = f->fsize - f->latency_off;
	if (n > sizeof(buf))
		n = sizeof(buf);
	at = f->fsize - n;
	if (tdat_pread(f, buf, at, n, &e) < 0 || buf[n - 1] == '\n')
		return;
	for (i = (size_t)n; i > 0 && buf[i - 1] != '\n'; i--)
		;
	ERR(v, "latency-cut", at + i, "latency text ends inside a line: the "
	    "file is cut short");
}

/*
 * The text of a v7 latency buffer: a compressed one's chunk table and
 * every chunk must decompress (its section bounds it already).
 */
static void
check_latency_text(struct vctx *v, int bi)
{
	struct tdat_err e = { 0 };
	struct tdat_pages *ps;
	struct tdat_window w;
	const char *kind;
	int rc;

	section(v);
	if ((rc = tdat_pages_open(v->f, bi, 0, &ps, &e)) == 0) {
		while (!v->sec_stop && !v->stop && !v->fatal &&
		    (rc = tdat_pages_window(ps, &w, &e)) != 0) {
			if (rc > 0)
				continue;
			if (e.code != TDAT_ECORRUPT)
				break;
			kind = tdat_pages_fault(ps);
			ERR(v, kind ? kind : "chunk", e.off, "latency text: %s",
			    e.msg);
		}
		tdat_pages_close(ps);
	} else if (e.code == TDAT_ECORRUPT)
		ERR(v, "chunk", e.off, "%s", e.msg);
	if (rc < 0 && e.code != TDAT_ECORRUPT) {
		*v->e = e;
		v->fatal = 1;
	}
}

/* ------------------------------------------------------------------ */
/*
 * The CPUs on two threads.  Each CPU's check is a section of its own
 * that reads nothing another writes, so the CPUs are tasks taken in
 * order, at most AHEAD past the first one not handed on yet.  The main
 * thread checks that one itself if nobody has taken it, with its
 * findings going out as they are found; other tasks, the helper's and
 * those the main thread takes rather than wait, keep their findings,
 * each with the counts at that moment.  The main thread hands those on
 * in order when it comes to the task, stopping where the callback asks
 * to with the counts a check on one thread would have had.  A task whose
 * findings outgrow KEEP_BYTES is checked again by the main thread.
 */
#define AHEAD		2
#define KEEP_BYTES	(256u << 10)

struct kept {
	struct tdat_finding fd;	/* buffer and msg point into text */
	uint64_t pages, records, errors, warnings, unreported;
	char *text;
};

struct task {
	int bi;
	uint32_t ci;
	int done;		/* the helper has checked it */
	int redo;		/* its findings outgrew KEEP_BYTES */
	int fatal;
	struct tdat_err e;
	struct tdat_verify_stats st;
	struct kept *k;
	size_t nk, ck, bytes;
};

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct task *t;
	size_t n;
	size_t next;		/* the first task nobody has taken */
	size_t at;		/* the main thread's task */
	int quit;
	struct vctx hv;		/* the helper's context */
};

/* The helper's callback: keep the finding and the counts with it. */
static int
keep(void *arg, const struct tdat_finding *fd)
{
	struct task *t = arg;
	size_t bl = fd->buffer ? strlen(fd->buffer) + 1 : 0;
	size_t ml = strlen(fd->msg) + 1;
	struct kept *k;

	if (t->bytes + sizeof(*k) + bl + ml > KEEP_BYTES)
		goto redo;
	if (t->nk == t->ck) {
		k = realloc(t->k, (t->ck ? 2 * t->ck : 16) * sizeof(*k));
		if (k == NULL)
			goto redo;
		t->k = k;
		t->ck = t->ck ? 2 * t->ck : 16;
	}
	k = &t->k[t->nk];
	if ((k->text = malloc(bl + ml)) == NULL)
		goto redo;
	k->fd = *fd;
	memcpy(k->text, fd->msg, ml);
	k->fd.msg = k->text;
	if (fd->buffer) {
		memcpy(k->text + ml, fd->buffer, bl);
		k->fd.buffer = k->text + ml;
	}
	k->pages = t->st.pages;
	k->records = t->st.records;
	k->errors = t->st.errors;
	k->warnings = t->st.warnings;
	k->unreported = t->st.unreported;
	t->nk++;
	t->bytes += sizeof(*k) + bl + ml;
	return 0;
redo:
	t->redo = 1;
	return 1;
}

static void
task_free(struct task *t)
{
	size_t i;

	for (i = 0; i < t->nk; i++)
		free(t->k[i].text);
	free(t->k);
	t->k = NULL;
	t->nk = t->ck = 0;
}

/* Check a task with its findings kept (on either thread): as the
 * template tv says, with this thread's seen[] and codec. */
static void
run_kept(const struct vctx *tv, struct task *t, unsigned char *seen,
    struct tdat_codec *codec)
{
	struct tdat_verify_opts o = *tv->o;
	struct vctx v = *tv;

	o.found = keep;
	o.arg = t;
	v.o = &o;
	v.st = &t->st;
	v.e = &t->e;
	v.seen = seen;
	v.codec = codec;
	check_cpu(&v, t->bi, t->ci);
	t->fatal = v.fatal;
}

static void *
helper(void *arg)
{
	struct pool *p = arg;
	struct task *t;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->quit && p->next < p->n && p->next > p->at + AHEAD)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->quit || p->next >= p->n)
			break;
		t = &p->t[p->next++];
		pthread_mutex_unlock(&p->mu);
		run_kept(&p->hv, t, p->hv.seen, p->hv.codec);
		pthread_mutex_lock(&p->mu);
		t->done = 1;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void
add_counts(struct tdat_verify_stats *st, uint64_t pages, uint64_t records,
    uint64_t errors, uint64_t warnings, uint64_t unreported)
{
	st->pages += pages;
	st->records += records;
	st->errors += errors;
	st->warnings += warnings;
	st->unreported += unreported;
}

/* Hand on what the helper found in a task, as if found now. */
static void
replay(struct vctx *v, const struct task *t)
{
	const struct kept *k;
	size_t i;

	for (i = 0; i < t->nk; i++) {
		k = &t->k[i];
		if (v->o->found && v->o->found(v->o->arg, &k->fd)) {
			add_counts(v->st, k->pages, k->records, k->errors,
			    k->warnings, k->unreported);
			v->stop = 1;
			return;
		}
	}
	add_counts(v->st, t->st.pages, t->st.records, t->st.errors,
	    t->st.warnings, t->st.unreported);
	if (t->fatal) {
		*v->e = t->e;
		v->fatal = 1;
	}
}

/* The tasks in order on this thread and the helper; 0, or nonzero when
 * the helper could not be set up (nothing was checked). */
static int
run_tasks(struct vctx *v, struct task *t, size_t n)
{
	const struct tdat_tracedat *td = tdat_tracedat_of(v->f);
	struct pool p;
	pthread_t th;
	size_t i, j;
	int mine;

	memset(&p, 0, sizeof(p));
	p.t = t;
	p.n = n;
	p.hv = *v;
	p.hv.fatal = p.hv.stop = 0;
	if (td->codec && (p.hv.codec = tdat_codec_new(tdat_codec_name(
	    td->codec))) == NULL)
		return 1;
	if ((p.hv.seen = calloc(v->events.nev + 1, 1)) == NULL) {
		tdat_codec_free(p.hv.codec);
		return 1;
	}
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	if (pthread_create(&th, NULL, helper, &p) != 0) {
		pthread_cond_destroy(&p.cv);
		pthread_mutex_destroy(&p.mu);
		free(p.hv.seen);
		tdat_codec_free(p.hv.codec);
		return 1;
	}
	/*
	 * i is the first task not handed on: check it here if nobody has
	 * taken it, hand on what the helper found if it is done, else take
	 * a later one (its findings kept) rather than wait.
	 */
	pthread_mutex_lock(&p.mu);
	i = 0;
	while (i < n && !v->stop && !v->fatal) {
		p.at = i;
		pthread_cond_broadcast(&p.cv);
		if (t[i].done || p.next == i) {
			if ((mine = p.next == i))
				p.next++;
			pthread_mutex_unlock(&p.mu);
			if (mine || t[i].redo)
				check_cpu(v, t[i].bi, t[i].ci);
			else
				replay(v, &t[i]);
			task_free(&t[i]);
			pthread_mutex_lock(&p.mu);
			i++;
		} else if (p.next < n && p.next <= i + AHEAD) {
			j = p.next++;
			pthread_mutex_unlock(&p.mu);
			run_kept(&p.hv, &t[j], v->seen, v->codec);
			pthread_mutex_lock(&p.mu);
			t[j].done = 1;
		} else
			pthread_cond_wait(&p.cv, &p.mu);
	}
	p.quit = 1;
	pthread_cond_broadcast(&p.cv);
	pthread_mutex_unlock(&p.mu);
	pthread_join(th, NULL);
	for (i = 0; i < v->events.nev; i++)
		v->seen[i] |= p.hv.seen[i];
	for (i = 0; i < n; i++)
		task_free(&t[i]);
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	free(p.hv.seen);
	tdat_codec_free(p.hv.codec);
	return 0;
}

static void
check_pages(struct vctx *v)
{
	struct tdat_file *f = v->f;
	struct task *t = NULL;
	uint64_t bytes = 0;
	size_t bi, n = 0, i;
	uint32_t ci;

	if (f->version < 7 && f->latency)
		check_latency_end(v);
	else if (tdat_latency_buffer(f) >= 0)
		check_latency_text(v, tdat_latency_buffer(f));
	if (!v->have_pl || v->stop || v->fatal)
		return;
	for (bi = 0; bi < f->nbuf; bi++)
		n += f->buf[bi].ncpu;
	if ((t = calloc(n + 1, sizeof(*t))) == NULL) {
		nomem(v);
		return;
	}
	n = 0;
	for (bi = 0; bi < f->nbuf; bi++) {
		const struct tdat_buffer *b = &f->buf[bi];

		if (b->latency || b->page_size < (uint32_t)v->pl.data_off + 4)
			continue;
		for (ci = 0; ci < b->ncpu; ci++)
			if (b->cpu[ci].size > 0) {
				t[n].bi = (int)bi;
				t[n++].ci = ci;
				bytes += b->cpu[ci].size;
			}
	}
	/* Another format's streams may share state: one thread. */
	if (n < 2 || !f->page_ops->parallel ||
	    !two_threads(v, bytes, MIN_PAGES_2) ||
	    run_tasks(v, t, n))
		for (i = 0; i < n && !v->stop && !v->fatal; i++)
			check_cpu(v, t[i].bi, t[i].ci);
	free(t);
}

/* ------------------------------------------------------------------ */

/*
 * tdat_verify_file(); with drop_kallsyms, f's kallsyms is freed once its
 * lines are checked (the other checks read no symbols), for a caller that
 * closes f next.
 */
static int
verify_file(struct tdat_file *f, const struct tdat_verify_opts *o,
    struct tdat_verify_stats *st, struct tdat_err *e, int drop_kallsyms)
{
	struct vctx v;
	size_t i;

	memset(&v, 0, sizeof(v));
	v.f = f;
	v.o = o;
	v.st = st;
	v.e = e;
	st->version = f->version;
	snprintf(st->comp, sizeof(st->comp), "%s", f->comp ? f->comp : "none");
	st->buffers = 0;
	for (i = 0; i < f->nbuf; i++) {
		/* the empty top buffer a v7 file without one is given, not a
		 * top buffer a BUFFER option names (extract -B boot_mapped) */
		if (f->buf[i].ncpu == 0 && !f->buf[i].latency && i == 0 &&
		    f->nbuf > 1 && f->buf[i].opt_index < 0)
			continue;
		st->buffers++;
		st->cpus += f->buf[i].ncpu;
	}
	scan_texts(&v);
	/* A large kallsyms need not stay while the sections are decompressed
	 * again (hip24-host: 36 MiB peak). */
	if (drop_kallsyms) {
		tdat_blob_free(&f->kallsyms);
		f->kallsyms.len = 0;
	}
	check_container(&v);
	if (!v.fatal && !v.stop)
		check_texts(&v);
	if (!v.fatal && !v.stop)
		check_formats(&v);
	if (!v.fatal && !v.stop && (v.seen = calloc(v.events.nev + 1, 1)) == NULL)
		nomem(&v);
	if (!v.fatal && !v.stop && !o->no_pages)
		check_pages(&v);
	if (!v.fatal && !v.stop)
		check_print_formats(&v, o->no_pages);
	tdat_ring_events_free(&v.events);
	free(v.ev);
	free(v.seen);
	free(v.reg);
	free(v.win);
	free(v.cbuf);
	return v.fatal ? e->code : 0;
}

int
tdat_verify_file(struct tdat_file *f, const struct tdat_verify_opts *o,
    struct tdat_verify_stats *st, struct tdat_err *e)
{
	return verify_file(f, o, st, e, 0);
}

/* After an error, when asked: what tdat-cat --salvage would keep, by the
 * same walk (tracedat-salvage.c); standard input cannot be read again. */
static void
salvage_count(const char *path, const struct tdat_verify_opts *o,
    struct tdat_verify_stats *st)
{
	if (o->salvage && st->errors && strcmp(path, "-") != 0)
		tdat_salvage_count(path, st);
}

/* tdat_verify() of a trace.dat (lib/read/source.c); *st is zeroed. */
int
tdat_tracedat_verify(const char *path, const struct tdat_verify_opts *o,
    struct tdat_verify_stats *st, struct tdat_err *e)
{
	struct tdat_file *f;
	struct tdat_err oe = { 0 };
	struct tdat_finding fd;
	int rc;

	if ((rc = tdat_open(path, &f, &oe)) < 0) {
		if (oe.code != TDAT_ECORRUPT && oe.code != TDAT_EUNSUP) {
			*e = oe;
			return rc;
		}
		st->errors++;
		memset(&fd, 0, sizeof(fd));
		fd.severity = TDAT_FIND_ERROR;
		fd.kind = oe.code == TDAT_EUNSUP ? "unsupported" : "container";
		fd.has_off = oe.has_off;
		fd.off = oe.off;
		fd.cpu = -1;
		fd.page = -1;
		fd.msg = oe.msg;
		if (o->found)
			o->found(o->arg, &fd);
		salvage_count(path, o, st);
		return 0;
	}
	rc = verify_file(f, o, st, e, 1);
	tdat_close(f);
	if (rc == 0)
		salvage_count(path, o, st);
	return rc;
}
