/*
 * cpus.c: every CPU's pages (lib/check/tdat-check.h), read through the
 * source's page operations (the page iterator, lib/read/pages.c) and
 * walked with lib/ring's page checker; a latency buffer's text.  With a
 * second CPU and a source whose streams share no state, a second thread
 * checks some CPUs' pages, its findings kept and handed on in order
 * (below).  Memory stays bounded: one window of pages (mapped when it is
 * not compressed) or one chunk at a time on each thread, and at most
 * KEEP_BYTES of kept findings for each of AHEAD + 1 CPUs.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "tdat-check.h"

/* Work worth a second thread: bytes of CPU data. */
#define MIN_PAGES_2	(1u << 20)

/* ------------------------------------------------------------------ */
/* Pages. */

struct cpuwalk {
	struct tdat_check *v;
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
	tdat_check_find(v, TDAT_FIND_ERROR, kind, 1, off, (w)->b, \
	    (int)(w)->c->id, (w)->page, __VA_ARGS__)
#define PWARN(v, w, kind, off, ...) \
	tdat_check_find(v, TDAT_FIND_WARNING, kind, 1, off, (w)->b, \
	    (int)(w)->c->id, (w)->page, __VA_ARGS__)

/* What the page checker (lib/ring/check.c) finds, as findings. */
static int
page_issue(void *arg, const struct tdat_ring_issue *is)
{
	struct cpuwalk *w = arg;
	struct tdat_check *v = w->v;
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
check_cpu(struct tdat_check *v, int bi, uint32_t ci)
{
	const struct tdat_buffer *b = &v->f->buf[bi];
	struct cpuwalk w = { v, b, &b->cpu[ci], -1, { 0 }, 0, 0 };
	struct tdat_pages *ps;
	struct tdat_page pg;
	struct tdat_err e = { 0 };
	const char *kind;
	size_t avail;
	int rc;

	tdat_check_section(v);
	w.ck.pl = &v->pl;
	w.ck.events = &v->events;
	w.ck.issue = page_issue;
	w.ck.arg = &w;
	w.ck.seen = v->seen;
	if (b->compressed && v->file_codec == NULL) {
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
 * The text of a v7 latency buffer: a compressed one's chunk table and
 * every chunk must decompress (its section bounds it already).
 */
void
tdat_check_latency_text(struct tdat_check *v, int bi)
{
	struct tdat_err e = { 0 };
	struct tdat_pages *ps;
	struct tdat_window w;
	const char *kind;
	int rc;

	tdat_check_section(v);
	if ((rc = tdat_pages_open(v->f, bi, 0, &ps, &e)) == 0) {
		while (!v->sec_stop && !v->stop && !v->fatal &&
		    (rc = tdat_pages_window(ps, &w, &e)) != 0) {
			if (rc > 0)
				continue;
			if (e.code != TDAT_ECORRUPT)
				break;
			kind = tdat_pages_fault(ps);
			TDAT_CHECK_ERR(v, kind ? kind : "chunk", e.off,
			    "latency text: %s", e.msg);
		}
		tdat_pages_close(ps);
	} else if (e.code == TDAT_ECORRUPT)
		TDAT_CHECK_ERR(v, "chunk", e.off, "%s", e.msg);
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
	struct tdat_check hv;		/* the helper's context */
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
run_kept(const struct tdat_check *tv, struct task *t, unsigned char *seen,
    struct tdat_codec *codec)
{
	struct tdat_verify_opts o = *tv->o;
	struct tdat_check v = *tv;

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
replay(struct tdat_check *v, const struct task *t)
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
run_tasks(struct tdat_check *v, struct task *t, size_t n)
{
	struct pool p;
	struct tdat_check_thread th;
	size_t i, j;
	int mine;

	memset(&p, 0, sizeof(p));
	p.t = t;
	p.n = n;
	p.hv = *v;
	p.hv.fatal = p.hv.stop = 0;
	if (v->file_codec && (p.hv.codec = tdat_codec_new(tdat_codec_name(
	    v->file_codec))) == NULL)
		return 1;
	if ((p.hv.seen = calloc(v->events.nev + 1, 1)) == NULL) {
		tdat_codec_free(p.hv.codec);
		return 1;
	}
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	if (tdat_check_spawn(v, &th, helper, &p) != 0) {
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
	tdat_check_join(&th);
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

void
tdat_check_pages(struct tdat_check *v)
{
	struct tdat_file *f = v->f;
	struct task *t = NULL;
	uint64_t bytes = 0;
	size_t bi, n = 0, i;
	uint32_t ci;

	if (!v->have_pl || v->stop || v->fatal)
		return;
	for (bi = 0; bi < f->nbuf; bi++)
		n += f->buf[bi].ncpu;
	if ((t = calloc(n + 1, sizeof(*t))) == NULL) {
		tdat_check_nomem(v);
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
	    !tdat_check_two_threads(v, bytes, MIN_PAGES_2) ||
	    run_tasks(v, t, n))
		for (i = 0; i < n && !v->stop && !v->fatal; i++)
			check_cpu(v, t[i].bi, t[i].ci);
	free(t);
}
