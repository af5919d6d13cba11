/*
 * pages.c: the pages of one CPU of one buffer, from whatever format
 * provides them (tdat_file.page_ops: trace.dat's in
 * formats/tracedat/tracedat.c, an LTT directory's in formats/ltt/ltt-tdat.c).
 *
 * The format hands out windows: whole pages, then a tail of readable
 * bytes.  tdat_pages_next() splits them into pages and tells how many
 * bytes are readable from each page to the end of the window and its
 * tail; tdat_pages_window() passes windows on whole (the writer copies
 * them).  A damaged piece is an error the caller may go on after.
 *
 * A stream attached to a worker (tdat_pages_async()) has its next windows
 * read and decompressed on the worker's thread while the caller decodes
 * the current one: a ring of slots (below), the one handed out and those
 * filled ahead, each holding a window: the format's own buffer, taken
 * over (its swap operation), or else a copy (its next call reuses it).
 * The windows, errors and their order are the same.
 *
 * tdat_pages_seek_ts() skips the pages before a time without reading
 * them: it bisects the format's units (raw pages, or chunks) by the time
 * stamps of their page headers.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "tdat-thread.h"

/*
 * Read-ahead: a stream attached to a worker holds a ring of NSLOTS slots:
 * the one handed out (cur), then those the worker filled, in order, from
 * ti on.  The worker fills a stream's next slot while it has none ready,
 * or while the bytes ready and one more window stay within its share of
 * AHEAD_TOTAL (at most AHEAD_MAX); it fills the stream with the fewest
 * bytes ready first and sleeps when none may be filled.  The caller wakes
 * it only when it sleeps and a stream it takes from has fallen to half
 * its share: one wake-up for several windows, not one each.  A slot's
 * buffer is kept for its next window unless it is larger than AHEAD_MAX
 * or the stream's buffers hold more than its share and two windows.
 */
#define NSLOTS		16
#define AHEAD_MAX	(512u * 1024)	/* bytes ready ahead, one stream */
#define AHEAD_TOTAL	(2u << 20)	/* bytes ready ahead, all streams */

struct slot {
	int rc;			/* of the format's next() */
	struct tdat_window w;	/* w.p points into buf */
	struct tdat_err e;
	unsigned char *buf;
	size_t cap;
};

struct tdat_pages {
	const struct tdat_page_ops *ops;
	void *st;
	uint64_t total;
	uint32_t page_size;
	struct tdat_window w;
	int have;		/* w holds pages not handed out yet */
	size_t pos;		/* the next page in w */
	const char *fault;	/* of the last error */
	int done;
	uint64_t loads;		/* windows fetched, probes included */
	uint64_t handed;	/* pages handed out */
	uint64_t limit;		/* at most this many (tdat_pages_range()); 0: all */
	/* attached to a worker: the rest under its mutex */
	struct tdat_pages_worker *wk;
	struct slot *sl;	/* NSLOTS */
	int cur;		/* the slot w comes from, -1 if none */
	unsigned ti, fi;	/* the next slot to take, to fill */
	unsigned nready;	/* filled, from ti on */
	size_t rbytes;		/* of their windows */
	size_t last;		/* bytes of the last window filled */
	size_t caps;		/* of the slots' buffers */
	int filling, eof;
	struct tdat_pages *anext;	/* the worker's streams */
};

struct tdat_pages_worker {
	pthread_t t;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct tdat_pages *streams;
	size_t nstreams;
	int sleeping;		/* in its wait for work */
	int waiters;		/* callers waiting for a fill */
	int quit;
	uint64_t wakes;		/* the callers' signals */
};

int
tdat_pages_open(struct tdat_file *f, int buf, uint32_t ci,
    struct tdat_pages **out, struct tdat_err *e)
{
	struct tdat_pages *ps;
	int rc;

	*out = NULL;
	if (buf < 0 || (size_t)buf >= f->nbuf)
		return tdat_fail_nooff(e, TDAT_EUSAGE, "no buffer %d", buf);
	if ((ps = calloc(1, sizeof(*ps))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	ps->ops = f->page_ops;
	ps->page_size = f->buf[buf].page_size;
	if (ps->page_size == 0) {
		free(ps);
		return tdat_fail_nooff(e, TDAT_ECORRUPT, "buffer \"%s\": page "
		    "size 0", f->buf[buf].name);
	}
	if ((rc = ps->ops->open(f, buf, ci, &ps->st, &ps->total, e)) < 0) {
		free(ps);
		return rc;
	}
	*out = ps;
	return 0;
}

/* Fill slot sl of ps (on the worker's thread, which owns it meanwhile). */
static void
fill(struct tdat_pages *ps, struct slot *sl)
{
	size_t n;
	unsigned char *p;

	memset(&sl->w, 0, sizeof(sl->w));
	memset(&sl->e, 0, sizeof(sl->e));
	sl->rc = ps->ops->next(ps->st, &sl->w, &sl->e);
	if (sl->rc <= 0)
		return;
	n = sl->w.len + sl->w.tail;
	if (ps->ops->swap) {
		/* take the format's buffer, give it the slot's */
		ps->ops->swap(ps->st, &sl->buf, &sl->cap);
		if (sl->w.p == sl->buf && n <= sl->cap)
			return;
		ps->ops->swap(ps->st, &sl->buf, &sl->cap);
	}
	if (n > sl->cap) {
		if ((p = malloc(n)) == NULL) {
			sl->rc = tdat_fail_nooff(&sl->e, TDAT_ENOMEM,
			    "out of memory");
			return;
		}
		free(sl->buf);
		sl->buf = p;
		sl->cap = n;
	}
	memcpy(sl->buf, sl->w.p, n);
	sl->w.p = sl->buf;
}

/* The bytes of a filled slot's window. */
static size_t
slot_bytes(const struct slot *sl)
{
	return sl->rc > 0 ? sl->w.len + sl->w.tail : 0;
}

/* Each stream's share of the bytes ready ahead (the mutex held). */
static size_t
ahead(const struct tdat_pages_worker *wk)
{
	size_t n = wk->nstreams ? AHEAD_TOTAL / wk->nstreams : AHEAD_TOTAL;

	return n < AHEAD_MAX ? n : AHEAD_MAX;
}

/* May the worker fill ps's next slot (the mutex held)? */
static int
fillable(const struct tdat_pages *ps, size_t share)
{
	unsigned used = ps->nready + (ps->cur >= 0);

	if (ps->eof || ps->filling || used >= NSLOTS)
		return 0;
	return ps->nready == 0 || ps->rbytes + ps->last <= share;
}

/* The stream to fill next: the fewest bytes ready; NULL if none. */
static struct tdat_pages *
pick(struct tdat_pages_worker *wk)
{
	struct tdat_pages *ps, *best = NULL;
	size_t share = ahead(wk);

	for (ps = wk->streams; ps; ps = ps->anext)
		if (fillable(ps, share) &&
		    (best == NULL || ps->rbytes < best->rbytes))
			best = ps;
	return best;
}

/* Fill ps's next slot: the mutex held before and after, not meanwhile. */
static void
fill_next(struct tdat_pages_worker *wk, struct tdat_pages *ps)
{
	struct slot *sl = &ps->sl[ps->fi];
	size_t cap = sl->cap;

	ps->filling = 1;
	pthread_mutex_unlock(&wk->mu);
	fill(ps, sl);
	pthread_mutex_lock(&wk->mu);
	ps->filling = 0;
	ps->caps = ps->caps - cap + sl->cap;
	ps->fi = (ps->fi + 1) % NSLOTS;
	ps->nready++;
	ps->rbytes += slot_bytes(sl);
	if (sl->rc > 0)
		ps->last = slot_bytes(sl);
	if (sl->rc == 0)
		ps->eof = 1;
	if (wk->waiters)
		pthread_cond_broadcast(&wk->done);
}

static void *
worker_main(void *arg)
{
	struct tdat_pages_worker *wk = arg;
	struct tdat_pages *ps;

	pthread_mutex_lock(&wk->mu);
	while (!wk->quit) {
		if ((ps = pick(wk)) != NULL) {
			fill_next(wk, ps);
			continue;
		}
		wk->sleeping = 1;
		pthread_cond_wait(&wk->work, &wk->mu);
		wk->sleeping = 0;
	}
	pthread_mutex_unlock(&wk->mu);
	return NULL;
}

int
tdat_pages_worker_new(struct tdat_pages_worker **out)
{
	struct tdat_pages_worker *wk;

	*out = NULL;
	if ((wk = calloc(1, sizeof(*wk))) == NULL)
		return TDAT_ENOMEM;
	pthread_mutex_init(&wk->mu, NULL);
	pthread_cond_init(&wk->work, NULL);
	pthread_cond_init(&wk->done, NULL);
	if (tdat_thread_start(&wk->t, worker_main, wk) != 0) {
		pthread_mutex_destroy(&wk->mu);
		pthread_cond_destroy(&wk->work);
		pthread_cond_destroy(&wk->done);
		free(wk);
		return TDAT_ENOMEM;
	}
	*out = wk;
	return 0;
}

/* Stop the worker: its streams must be closed first. */
void
tdat_pages_worker_free(struct tdat_pages_worker *wk)
{
	if (wk == NULL)
		return;
	pthread_mutex_lock(&wk->mu);
	wk->quit = 1;
	pthread_cond_signal(&wk->work);
	pthread_mutex_unlock(&wk->mu);
	pthread_join(wk->t, NULL);
	pthread_mutex_destroy(&wk->mu);
	pthread_cond_destroy(&wk->work);
	pthread_cond_destroy(&wk->done);
	free(wk);
}

/* Wake the worker if it sleeps (the mutex held). */
static void
wake(struct tdat_pages_worker *wk)
{
	if (wk->sleeping) {
		wk->sleeping = 0;	/* woken once */
		wk->wakes++;
		pthread_cond_signal(&wk->work);
	}
}

uint64_t
tdat_pages_worker_wakes(struct tdat_pages_worker *wk)
{
	uint64_t n;

	pthread_mutex_lock(&wk->mu);
	n = wk->wakes;
	pthread_mutex_unlock(&wk->mu);
	return n;
}

int
tdat_pages_async(struct tdat_pages *ps, struct tdat_pages_worker *wk)
{
	/* Only a format whose streams are independent of each other
	 * (parallel).  A stream holding a window (after tdat_pages_seek_ts())
	 * stays on the caller's thread: the worker would read its next one
	 * into the same buffer. */
	if (wk == NULL || ps->wk || !ps->ops->parallel || ps->have)
		return 0;
	if ((ps->sl = calloc(NSLOTS, sizeof(*ps->sl))) == NULL)
		return 0;
	ps->wk = wk;
	ps->cur = -1;
	pthread_mutex_lock(&wk->mu);
	ps->anext = wk->streams;
	wk->streams = ps;
	wk->nstreams++;
	wake(wk);
	pthread_mutex_unlock(&wk->mu);
	return 1;
}

uint64_t
tdat_pages_ahead(struct tdat_pages *ps)
{
	uint64_t n;

	if (ps->wk == NULL)
		return 0;
	pthread_mutex_lock(&ps->wk->mu);
	n = ps->nready;
	pthread_mutex_unlock(&ps->wk->mu);
	return n;
}

/* Give the slot handed out back to the worker (the mutex held); a buffer
 * not kept is returned, to free() after the mutex. */
static unsigned char *
give_back(struct tdat_pages *ps)
{
	struct slot *sl;
	unsigned char *p = NULL;

	if (ps->cur < 0)
		return NULL;
	sl = &ps->sl[ps->cur];
	if (sl->cap > AHEAD_MAX || ps->caps > ahead(ps->wk) + 2 * sl->cap) {
		p = sl->buf;
		ps->caps -= sl->cap;
		sl->buf = NULL;
		sl->cap = 0;
	}
	ps->cur = -1;
	return p;
}

/* The worker's next window: give the slot handed out back, take the next
 * one filled (waiting for it if need be). */
static int
fetch_async(struct tdat_pages *ps, struct tdat_err *e)
{
	struct tdat_pages_worker *wk = ps->wk;
	unsigned char *drop;
	struct slot *sl;
	int rc;

	pthread_mutex_lock(&wk->mu);
	drop = give_back(ps);
	while (ps->nready == 0) {
		wake(wk);
		wk->waiters++;
		pthread_cond_wait(&wk->done, &wk->mu);
		wk->waiters--;
	}
	ps->cur = (int)ps->ti;
	sl = &ps->sl[ps->ti];
	ps->ti = (ps->ti + 1) % NSLOTS;
	ps->nready--;
	ps->rbytes -= slot_bytes(sl);
	if (!ps->eof && ps->nready <= NSLOTS / 2 &&
	    2 * ps->rbytes <= ahead(wk))
		wake(wk);
	pthread_mutex_unlock(&wk->mu);
	free(drop);
	rc = sl->rc;
	if (rc != 0)
		ps->loads++;
	if (rc < 0) {
		*e = sl->e;
		ps->fault = sl->w.fault;
		return rc;
	}
	if (rc == 0) {
		ps->done = 1;
		return 0;
	}
	ps->w = sl->w;
	ps->have = 1;
	return 1;
}

/* The format's next window into ps->w. */
static int
fetch(struct tdat_pages *ps, struct tdat_err *e)
{
	int rc;

	ps->have = 0;
	ps->pos = 0;
	ps->fault = NULL;
	if (ps->done)
		return 0;
	if (ps->wk)
		return fetch_async(ps, e);
	memset(&ps->w, 0, sizeof(ps->w));
	rc = ps->ops->next(ps->st, &ps->w, e);
	if (rc != 0)
		ps->loads++;
	if (rc < 0) {
		ps->fault = ps->w.fault;
		return rc;
	}
	if (rc == 0) {
		ps->done = 1;
		return 0;
	}
	ps->have = 1;
	return 1;
}

int
tdat_pages_next(struct tdat_pages *ps, struct tdat_page *pg, size_t *avail,
    struct tdat_err *e)
{
	const struct tdat_window *w = &ps->w;
	int rc;

	if (ps->limit && ps->handed >= ps->limit)
		return 0;
	while (!ps->have || ps->pos > ps->w.len ||
	    ps->w.len - ps->pos < ps->page_size)
		if ((rc = fetch(ps, e)) <= 0)
			return rc;
	pg->p = w->p + ps->pos;
	pg->page_size = ps->page_size;
	if (w->chunk) {
		pg->off = w->off;
		pg->chunk_pos = (int64_t)ps->pos;
	} else {
		pg->off = w->off + ps->pos;
		pg->chunk_pos = -1;
	}
	*avail = w->len - ps->pos + w->tail;
	ps->pos += ps->page_size;
	ps->handed++;
	return 1;
}

int
tdat_pages_window(struct tdat_pages *ps, struct tdat_window *w,
    struct tdat_err *e)
{
	int rc;

	if ((rc = fetch(ps, e)) <= 0)
		return rc;
	*w = ps->w;
	ps->have = 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* Seeking by time. */

struct seek {
	struct tdat_pages *ps;
	const struct tdat_page_layout *pl;
	uint64_t (*conv)(void *, uint64_t);
	void *arg;
	uint64_t ts;
};

/*
 * The window's pages from pos on, up to the first one with records whose
 * stamp is at or after the time: 1 with *at the position of the last
 * page with records below it, 0 if no page with records is below it
 * (a page whose header is damaged ends the walk).  The time of the first
 * page with records goes to *first when first is not NULL (*first_ok 1;
 * 0 when the walk met none).
 */
static int
last_below(const struct seek *k, size_t pos, size_t *at, uint64_t *first,
    int *first_ok)
{
	const struct tdat_window *w = &k->ps->w;
	struct tdat_page pg;
	struct tdat_err scratch;
	uint64_t t;
	int found = 0;

	if (first != NULL)
		*first_ok = 0;

	for (; pos <= w->len && w->len - pos >= k->ps->page_size;
	    pos += k->ps->page_size) {
		memset(&pg, 0, sizeof(pg));
		pg.p = w->p + pos;
		pg.page_size = k->ps->page_size;
		pg.chunk_pos = (int64_t)pos;
		if (tdat_page_init(k->pl, &pg, &scratch) < 0)
			break;
		if (pg.commit == 0)
			continue;
		t = k->conv(k->arg, pg.stamp);
		if (first != NULL && !*first_ok) {
			*first = t;
			*first_ok = 1;
		}
		if (t >= k->ts)
			break;
		*at = pos;
		found = 1;
	}
	return found;
}

/*
 * Is the first page with records of unit u below the time?  1 yes, 0 no
 * (or it has none), -1 when the unit cannot be read.  The stamp of a page
 * is the time of its first record or before: one below the time may hold
 * records at or after it, the pages before it none.  That page's time
 * goes to *t (*t_ok 0 when the unit has none).
 */
static int
probe(const struct seek *k, uint64_t u, uint64_t *t, int *t_ok)
{
	struct tdat_pages *ps = k->ps;
	struct tdat_err scratch;
	size_t at;

	ps->done = 0;
	if (ps->ops->seek(ps->st, u, 1, &scratch) < 0 ||
	    fetch(ps, &scratch) <= 0)
		return -1;
	return last_below(k, 0, &at, t, t_ok);
}

/*
 * The unit to probe in (lo, hi): where the time would lie if the units'
 * times grew evenly from tlo (unit lo's, below it) to thi (unit hi's, at
 * or after it).
 */
static uint64_t
guess(uint64_t lo, uint64_t hi, uint64_t tlo, uint64_t thi, uint64_t ts)
{
	double f = (double)(ts - tlo) / (double)(thi - tlo);
	uint64_t g = lo + (uint64_t)(f * (double)(hi - lo));

	return g <= lo ? lo + 1 : g >= hi ? hi - 1 : g;
}

/* Back to the first page. */
static int
rewind_pages(struct tdat_pages *ps, struct tdat_err *e)
{
	ps->have = 0;
	ps->pos = 0;
	ps->done = 0;
	ps->fault = NULL;
	return ps->ops->seek(ps->st, 0, 0, e);
}

int
tdat_pages_seek_ts(struct tdat_pages *ps, const struct tdat_page_layout *pl,
    uint64_t (*conv)(void *, uint64_t), void *arg, uint64_t ts,
    struct tdat_err *e)
{
	struct seek k = { ps, pl, conv, arg, ts };
	struct tdat_err scratch;
	uint64_t n, lo, hi, mid, width, t, tlo = 0, thi = 0;
	size_t at;
	int rc, t_ok, found = 0, thi_ok = 0, interp = 0, bisect = 0, side = 0;

	if (ps->ops->units == NULL || ps->ops->seek == NULL || ps->wk ||
	    ps->loads > 0 || (n = ps->ops->units(ps->st)) == 0)
		return 0;
	/*
	 * The last unit whose first page with records is below ts, searched
	 * in [lo, hi): found tells whether lo is such a unit.  Once the
	 * times of lo and hi are known, the next unit probed is where ts
	 * lies between them (guess()), as a regula falsi: a chunk probed
	 * costs a decompression, and a trace's times grow roughly evenly.
	 * The 10 ms cuts of a 415.7 MB v7 trace (7 of them, 5% to 95% of
	 * its span) took 226 chunk probes where bisecting takes 280.  A
	 * guess that does not halve [lo, hi) is followed by a bisection:
	 * never more than twice the probes of bisecting.
	 */
	lo = 0;
	hi = n;
	while (hi - lo > (found ? 1 : 0)) {
		width = hi - lo;
		interp = found && thi_ok && thi > tlo && !bisect && width > 2;
		if (interp)
			mid = guess(lo, hi, tlo, thi, ts);
		else
			mid = found ? lo + width / 2 : lo + (width - 1) / 2;
		if ((rc = probe(&k, mid, &t, &t_ok)) < 0)
			return rewind_pages(ps, e);
		if (rc) {
			lo = mid;
			tlo = t;
			found = 1;
			/* hi kept twice: its time counts half as far
			 * (regula falsi's Illinois step) */
			if (side == 1 && thi_ok)
				thi = ts + (thi - ts) / 2;
			side = 1;
		} else {
			hi = mid;
			thi = t;
			thi_ok = t_ok && t > tlo;
			if (side == -1 && found)
				tlo = ts - (ts - tlo) / 2;
			side = -1;
		}
		bisect = interp && hi - lo > width / 2;
	}
	if (!found)
		return rewind_pages(ps, e);
	ps->done = 0;
	if ((rc = ps->ops->seek(ps->st, lo, 0, e)) < 0)
		return rc;
	if (fetch(ps, &scratch) <= 0 || !last_below(&k, 0, &at, NULL, NULL))
		return rewind_pages(ps, e);
	ps->pos = at;
	return 0;
}

int
tdat_pages_range(struct tdat_pages *ps, uint64_t u0, uint64_t n,
    struct tdat_err *e)
{
	if (ps->ops->seek == NULL || ps->ops->units == NULL || ps->wk ||
	    ps->loads || n == 0 || u0 >= ps->ops->units(ps->st) ||
	    n > ps->ops->units(ps->st) - u0)
		return tdat_fail_nooff(e, TDAT_EUSAGE, "no pages %llu to %llu",
		    (unsigned long long)u0, (unsigned long long)(u0 + n));
	ps->limit = n;
	return ps->ops->seek(ps->st, u0, 0, e);
}

uint64_t
tdat_pages_loads(const struct tdat_pages *ps)
{
	return ps->loads;
}

uint64_t
tdat_pages_handed(const struct tdat_pages *ps)
{
	return ps->handed;
}

uint64_t
tdat_pages_total(const struct tdat_pages *ps)
{
	return ps->total;
}

const char *
tdat_pages_fault(const struct tdat_pages *ps)
{
	return ps->fault;
}

void
tdat_pages_codec(struct tdat_pages *ps, struct tdat_codec *c)
{
	if (ps->ops->codec)
		ps->ops->codec(ps->st, c);
}

void
tdat_pages_map(struct tdat_pages *ps)
{
	if (ps->ops->map && ps->wk == NULL)
		ps->ops->map(ps->st);
}

void
tdat_pages_room(struct tdat_pages *ps, size_t room)
{
	if (ps->ops->room && ps->wk == NULL && ps->loads == 0)
		ps->ops->room(ps->st, room);
}

void
tdat_pages_map_keep(struct tdat_pages *ps, size_t room)
{
	if (ps->ops->map && ps->ops->room && ps->wk == NULL &&
	    ps->loads == 0) {
		ps->ops->map(ps->st);
		ps->ops->room(ps->st, room);
	}
}

int
tdat_pages_take_map(struct tdat_pages *ps, void **base, size_t *len)
{
	if (ps->ops->take == NULL || ps->wk != NULL)
		return 0;
	return ps->ops->take(ps->st, base, len);
}

/* Take ps off its worker's streams, after the slot it fills. */
static void
detach(struct tdat_pages *ps)
{
	struct tdat_pages_worker *wk = ps->wk;
	struct tdat_pages **pp;
	unsigned i;

	pthread_mutex_lock(&wk->mu);
	for (pp = &wk->streams; *pp; pp = &(*pp)->anext)
		if (*pp == ps) {
			*pp = ps->anext;
			wk->nstreams--;
			break;
		}
	while (ps->filling) {
		wk->waiters++;
		pthread_cond_wait(&wk->done, &wk->mu);
		wk->waiters--;
	}
	pthread_mutex_unlock(&wk->mu);
	for (i = 0; i < NSLOTS; i++)
		free(ps->sl[i].buf);
	free(ps->sl);
}

void
tdat_pages_close(struct tdat_pages *ps)
{
	if (ps == NULL)
		return;
	if (ps->wk)
		detach(ps);
	ps->ops->close(ps->st);
	free(ps);
}
