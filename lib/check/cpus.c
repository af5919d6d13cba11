/*
 * cpus.c: every CPU's pages (lib/check/tdat-check.h), read through the
 * source's page operations (the page iterator, lib/read/pages.c) and
 * walked with lib/ring's page checker; a latency buffer's text.  With a
 * second CPU and a source whose streams share no state, a second thread
 * checks pieces of the CPUs' pages, its findings kept and handed on in
 * order (below).  Memory stays bounded: one window of pages (mapped when
 * a CPU is checked whole on one thread) or one chunk at a time on each
 * thread, and at most KEEP_BYTES of kept findings for each of AHEAD + 1
 * tasks.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "tdat-check.h"
#include "tdat-thread.h"

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
	int dead;		/* its check ended (its pages do not open) */
};

/*
 * A part of the pages' check: a CPU's pages u0 to u0 + n - 1 (a piece of
 * its raw pages), or all of them (n 0).  From done on, the fields are
 * those of a check ahead of the order (below).
 */
struct task {
	int bi;
	uint32_t ci;
	uint64_t u0, n;
	int first;		/* the CPU's first task */
	size_t room;		/* bytes of pages read at once (0: the usual) */
	int done;		/* checked ahead */
	int dirty;		/* to be checked again, in order */
	uint64_t pages, records;	/* what it met */
	int clocked;		/* it took stamp as the clock before it */
	uint64_t stamp;
	uint64_t last_ts;	/* its clock at its end, when it met records */
	unsigned char *seen;	/* the events it met (a slot of the pool's) */
	struct kept *k;		/* its findings, kept */
	size_t nk, ck, bytes;
	const struct tdat_verify_stats *now;	/* its counts meanwhile */
};

/* A finding of a check ahead, and the task's counts when it was made. */
struct kept {
	struct tdat_finding fd;	/* buffer and msg point into text */
	uint64_t pages, records;
	char *text;
};

/* The checker's counts into the stats. */
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

/* A walk of CPU ci of buffer bi, its clock and section to start. */
static void
walk_init(struct cpuwalk *w, struct tdat_check *v, int bi, uint32_t ci)
{
	memset(w, 0, sizeof(*w));
	w->v = v;
	w->b = &v->f->buf[bi];
	w->c = &w->b->cpu[ci];
	w->page = -1;
	w->ck.pl = &v->pl;
	w->ck.events = &v->events;
	w->ck.issue = page_issue;
	w->ck.arg = w;
	w->ck.seen = v->seen;
	tdat_check_section(v);
	if (w->b->compressed && v->file_codec == NULL) {
		PERR(v, w, "compressed", w->c->off, "data is compressed but the "
		    "file names no compression");
		w->dead = 1;
	}
}

/* Ahead of the order, before the first page whose stamp the checker
 * compares with the clock (one that holds something): take that stamp
 * as the clock before it.  A page whose header is damaged is a finding
 * anyway. */
static void
take_clock(struct cpuwalk *w, struct task *t, const struct tdat_page *pg)
{
	struct tdat_page hd = *pg;
	struct tdat_err e = { 0 };

	if (tdat_page_init(&w->v->pl, &hd, &e) < 0 || hd.commit == 0)
		return;
	t->clocked = 1;
	t->stamp = hd.stamp;
	w->ck.last_ts = hd.stamp;
	w->ck.have_ts = 1;
}

/*
 * Task t's pages through the page iterator, on walk w; ahead of the
 * order (w's clock unknown), taking the clock from its first page that
 * holds something.  A damaged piece (a chunk that lies wrong or does not
 * decompress) is a finding; the walk goes on after it with keep_going.
 */
static void
walk_pages(struct cpuwalk *w, struct task *t, int ahead)
{
	struct tdat_check *v = w->v;
	const struct tdat_buffer *b = w->b;
	struct tdat_pages *ps = NULL;
	struct tdat_page pg;
	struct tdat_err e = { 0 };
	const char *kind;
	size_t avail;
	int rc;

	if ((rc = tdat_pages_open(v->f, t->bi, t->ci, &ps, &e)) == 0 &&
	    t->n) {
		if (t->room)
			tdat_pages_room(ps, t->room);
		rc = tdat_pages_range(ps, t->u0, t->n, &e);
	}
	if (rc < 0) {
		tdat_pages_close(ps);
		if (e.code != TDAT_ECORRUPT) {
			*v->e = e;
			v->fatal = 1;
			return;
		}
		PERR(v, w, b->compressed ? "chunk" : "cpu-data", e.off, "%s",
		    e.msg);
		w->dead = 1;
		return;
	}
	if (v->codec)
		tdat_pages_codec(ps, v->codec);
	/* A piece is read, not mapped: two threads mapping windows wait
	 * for each other in the kernel (the mm's lock); reading, they do
	 * not (../shared/bench's v6 twin: its pages in 9.4-9.9 ms, not
	 * 11.8-17.0). */
	if (!t->n)
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
			PERR(v, w, kind, e.off, "%s", e.msg);
			continue;
		}
		w->page++;
		if (ahead && !t->clocked)
			take_clock(w, t, &pg);
		rc = tdat_ring_check_page(&w->ck, &pg);
		counts(w);
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
 * The pages on two threads.  The work is cut into tasks: each CPU whose
 * pages are raw into pieces of whole pages, each other CPU whole.  Tasks
 * are taken in order, at most AHEAD past the first one not handed on
 * yet.  The main thread checks that one itself, in order, if nobody has
 * taken it; any other (the helper's, and those the main thread takes
 * rather than wait) is checked ahead: with a section of its own and no
 * clock known, its findings kept, every warning with them.  Its first
 * page that holds something gives it a clock: that page's stamp, taken
 * as the CPU's clock before it.  Handing the task on, in order, needs the
 * CPU's clock not to be later than that stamp: checked from that clock,
 * its pages would have found the same (the later the clock, the more a
 * check finds), and its clock at its end is its last record's.  Its
 * findings then go out as if found now, a warning of a kind the CPU's
 * section reported already counted only, stopping where the callback or
 * an error says, with the counts as they were then.  A task whose clock
 * does not hold, whose findings outgrow KEEP_BYTES or whose check failed
 * is checked again by the main thread, in order.  So the findings, their
 * order and the counts are a check on one thread's.
 */
#define AHEAD		8
#define NSEEN		(AHEAD + 1)	/* tasks i to i + AHEAD at most */
#define KEEP_BYTES	(256u << 10)	/* a task's findings kept at most */
/* A piece: this many bytes of pages at least, as one mapped window. */
#define PIECE_BYTES	(1u << 20)
/* Pieces grow past it (a task's few words each). */
#define MAX_TASKS	4096

struct pool {
	pthread_mutex_t mu;
	struct tdat_cv cv;
	struct task *t;
	size_t n;
	size_t next;		/* the first task nobody has taken */
	size_t at;		/* the main thread's task */
	int quit;
	struct tdat_check hv;		/* the helper's context */
	unsigned char *seen;		/* NSEEN slots of nev + 1 */
};

/* A check ahead: keep the finding and the counts with it; past
 * KEEP_BYTES of them, mark the task to be checked again, and stop. */
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
	k->pages = t->now->pages;
	k->records = t->now->records;
	t->nk++;
	t->bytes += sizeof(*k) + bl + ml;
	return 0;
redo:
	t->dirty = 1;
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
	t->nk = t->ck = t->bytes = 0;
}

/* Check task t ahead (on either thread): as tv says, with this thread's
 * codec, its findings kept, every warning with them. */
static void
run_ahead(const struct tdat_check *tv, struct task *t,
    struct tdat_codec *codec)
{
	struct tdat_verify_opts o = *tv->o;
	struct tdat_verify_stats st;
	struct tdat_err e = { 0 };
	struct tdat_check v = *tv;
	struct cpuwalk w;

	memset(&st, 0, sizeof(st));
	memset(t->seen, 0, tv->events.nev + 1);
	o.found = keep;
	o.arg = t;
	v.o = &o;
	v.st = &st;
	v.e = &e;
	v.seen = t->seen;
	v.codec = codec;
	v.stop = v.fatal = 0;
	v.ahead = 1;
	t->now = &st;
	walk_init(&w, &v, t->bi, t->ci);
	w.page = (long long)t->u0 - 1;
	if (!w.dead)
		walk_pages(&w, t, 1);
	if (v.fatal || w.dead)
		t->dirty = 1;
	t->pages = w.ck.pages;
	t->records = w.ck.records;
	t->last_ts = w.ck.last_ts;
	t->now = NULL;
}

/* Task t's counts (or those at one of its findings) on walk w, from
 * pages and records before it. */
static void
add_counts(struct cpuwalk *w, uint64_t pages, uint64_t records)
{
	w->ck.pages = pages;
	w->ck.records = records;
	counts(w);
}

/*
 * Hand on task t, checked ahead, to the CPU's walk w (in order): its
 * findings as if found now, stopping where the callback or an error says
 * with the counts as they were then.  Checked again instead when its
 * clock does not hold.
 */
static void
hand_on(struct cpuwalk *w, struct task *t)
{
	struct tdat_check *v = w->v;
	uint64_t pages = w->ck.pages, records = w->ck.records;
	size_t i;

	if (t->dirty || (t->clocked && w->ck.have_ts &&
	    w->ck.last_ts > t->stamp)) {
		walk_pages(w, t, 0);
		return;
	}
	for (i = 0; i <= v->events.nev; i++)
		v->seen[i] |= t->seen[i];
	for (i = 0; i < t->nk; i++) {
		add_counts(w, pages + t->k[i].pages, records + t->k[i].records);
		if (tdat_check_report(v, &t->k[i].fd))
			return;
	}
	add_counts(w, pages + t->pages, records + t->records);
	w->page += (long long)t->pages;
	if (t->records) {
		w->ck.last_ts = t->last_ts;
		w->ck.have_ts = 1;
	}
}

/* Task t in order on the main thread: checked here (mine), or handed on;
 * nothing once the CPU's check has ended. */
static void
in_order(struct tdat_check *v, struct cpuwalk *w, struct task *t, int mine)
{
	if (t->first)
		walk_init(w, v, t->bi, t->ci);
	if (w->dead || v->sec_stop || v->stop || v->fatal)
		return;
	if (mine)
		walk_pages(w, t, 0);
	else
		hand_on(w, t);
}

static void *
helper(void *arg)
{
	struct pool *p = arg;
	struct task *t;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->quit && p->next < p->n && p->next > p->at + AHEAD)
			tdat_cv_wait(&p->cv, &p->mu);
		if (p->quit || p->next >= p->n)
			break;
		t = &p->t[p->next++];
		pthread_mutex_unlock(&p->mu);
		run_ahead(&p->hv, t, p->hv.codec);
		pthread_mutex_lock(&p->mu);
		t->done = 1;
		tdat_cv_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* The tasks in order on this thread and the helper; 0, or nonzero when
 * the helper could not be set up (nothing was checked). */
static int
run_tasks(struct tdat_check *v, struct task *t, size_t n)
{
	struct pool p;
	struct tdat_check_thread th;
	struct cpuwalk w;
	size_t i, j, ns = v->events.nev + 1;
	int mine;

	memset(&p, 0, sizeof(p));
	p.t = t;
	p.n = n;
	p.hv = *v;
	p.hv.fatal = p.hv.stop = 0;
	if (v->file_codec && (p.hv.codec = tdat_codec_new(tdat_codec_name(
	    v->file_codec))) == NULL)
		return 1;
	if ((p.seen = malloc(NSEEN * ns)) == NULL) {
		tdat_codec_free(p.hv.codec);
		return 1;
	}
	for (i = 0; i < n; i++)
		t[i].seen = p.seen + i % NSEEN * ns;
	pthread_mutex_init(&p.mu, NULL);
	tdat_cv_init(&p.cv, TDAT_POLL_NS);
	if (tdat_check_spawn(v, &th, helper, &p) != 0) {
		tdat_cv_destroy(&p.cv);
		pthread_mutex_destroy(&p.mu);
		free(p.seen);
		tdat_codec_free(p.hv.codec);
		return 1;
	}
	/*
	 * i is the first task not handed on: check it here if nobody has
	 * taken it, hand it on if it is done, else take a later one (ahead)
	 * rather than wait.
	 */
	pthread_mutex_lock(&p.mu);
	i = 0;
	while (i < n && !v->stop && !v->fatal) {
		p.at = i;
		tdat_cv_broadcast(&p.cv);
		if (t[i].done || p.next == i) {
			if ((mine = p.next == i))
				p.next++;
			pthread_mutex_unlock(&p.mu);
			in_order(v, &w, &t[i], mine);
			task_free(&t[i]);
			pthread_mutex_lock(&p.mu);
			i++;
		} else if (p.next < n && p.next <= i + AHEAD) {
			j = p.next++;
			pthread_mutex_unlock(&p.mu);
			run_ahead(v, &t[j], v->codec);
			pthread_mutex_lock(&p.mu);
			t[j].done = 1;
		} else
			tdat_cv_wait(&p.cv, &p.mu);
	}
	p.quit = 1;
	tdat_cv_broadcast(&p.cv);
	pthread_mutex_unlock(&p.mu);
	tdat_check_join(&th);
	for (i = 0; i < n; i++)
		task_free(&t[i]);
	tdat_cv_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	free(p.seen);
	tdat_codec_free(p.hv.codec);
	return 0;
}

/* The pages a piece of raw pages of buffer b holds: o->piece, or enough
 * for PIECE_BYTES and at most about MAX_TASKS pieces in all pages; in
 * *room the bytes read at once when a piece is less than the usual. */
static uint64_t
piece_pages(const struct tdat_check *v, const struct tdat_buffer *b,
    uint64_t all, size_t *room)
{
	uint64_t base = PIECE_BYTES / b->page_size, k;

	if (base == 0)
		base = 1;
	if (v->o->piece)
		base = v->o->piece;
	else if ((k = (all / base + MAX_TASKS - 1) / MAX_TASKS) > 1)
		base *= k;
	*room = base * b->page_size < TDAT_PAGES_WINDOW ?
	    (size_t)base * b->page_size : 0;
	return base;
}

/* The tasks of the CPUs of f, into t (NULL: counted only): pieces of raw
 * pages when split; their number. */
static size_t
make_tasks(const struct tdat_check *v, struct task *t, int split)
{
	const struct tdat_file *f = v->f;
	uint64_t all = 0, per = 0, np, u;
	size_t bi, n = 0, room = 0;
	uint32_t ci;

	for (bi = 0; bi < f->nbuf; bi++)
		for (ci = 0; ci < f->buf[bi].ncpu; ci++)
			if (f->buf[bi].page_size)
				all += f->buf[bi].cpu[ci].size /
				    f->buf[bi].page_size;
	for (bi = 0; bi < f->nbuf; bi++) {
		const struct tdat_buffer *b = &f->buf[bi];

		if (b->latency || b->page_size < (uint32_t)v->pl.data_off + 4)
			continue;
		if (split && !b->compressed)
			per = piece_pages(v, b, all, &room);
		for (ci = 0; ci < b->ncpu; ci++) {
			if (b->cpu[ci].size == 0)
				continue;
			np = split && !b->compressed ? b->cpu[ci].size /
			    b->page_size : 0;
			u = 0;
			do {
				if (t) {
					memset(&t[n], 0, sizeof(t[n]));
					t[n].bi = (int)bi;
					t[n].ci = ci;
					t[n].first = u == 0;
					t[n].u0 = u;
					t[n].n = np - u < per ? np - u : per;
					t[n].room = room;
				}
				n++;
				u += per;
			} while (u < np);
		}
	}
	return n;
}

void
tdat_check_pages(struct tdat_check *v)
{
	struct tdat_file *f = v->f;
	struct task *t = NULL;
	struct cpuwalk w;
	uint64_t bytes = 0;
	size_t bi, n, i;
	uint32_t ci;
	int two;

	if (!v->have_pl || v->stop || v->fatal)
		return;
	for (bi = 0; bi < f->nbuf; bi++)
		for (ci = 0; ci < f->buf[bi].ncpu; ci++)
			bytes += f->buf[bi].cpu[ci].size;
	/* Another format's streams may share state: one thread. */
	two = f->page_ops->parallel &&
	    tdat_check_two_threads(v, bytes, MIN_PAGES_2);
	n = make_tasks(v, NULL, two && f->page_ops->seek);
	if ((t = calloc(n + 1, sizeof(*t))) == NULL) {
		tdat_check_nomem(v);
		return;
	}
	make_tasks(v, t, two && f->page_ops->seek);
	if (n < 2 || !two || run_tasks(v, t, n))
		for (i = 0; i < n && !v->stop && !v->fatal; i++)
			in_order(v, &w, &t[i], 1);
	free(t);
}
