/*
 * par.c: a sink's records formatted on worker threads (struct
 * tdat_sink_par in tdat-sink.h), for the record driver (run.c).
 *
 * The driver's thread copies each kept record (its bytes, as many as the
 * sink's note() asks, and SLACK more where the record has them, for the
 * print's 8-byte loads) into the block being filled; a full block is
 * queued; each worker takes the oldest queued block and formats it into
 * the block's own buffer with a formatter of its own; the driver's
 * thread writes the done blocks in block order.  When no block is free
 * it formats the oldest queued block itself, with a formatter of its
 * own, and waits only when none is queued: TDAT_THREADS=N is the
 * driver's thread and N - 1 workers.  So the bytes are those record()
 * writes, in the same order, and only the driver's thread writes (a
 * SIGPIPE is its own: workers start with tdat_thread_start(), as the
 * codec's do).
 * What the workers write (a block's state, its pass, its text) lies on
 * cache lines of its own, apart from what the driver's thread reads for
 * every record.  TDAT_THREADS_STATS prints each thread's CPU seconds
 * and passes.
 *
 * Memory: NBLK(n) blocks of at most BLK_RECS records and BLK_BYTES of
 * their bytes (a longer record gets a block to itself), and a text of
 * BLK_OUT and one record's more: a pass over a block stops there, the
 * block is written and queued again from the record it stopped at.
 *
 * A formatter that says TDAT_PAR_REDO (a record changed how later ones
 * print) ends it: the driver's thread writes what was done before that
 * record in order, stops the workers and hands that record and every
 * one after it to the sink's record(), as with one thread.
 *
 * TDAT_THREADS_BLOCK=N (tests) makes blocks of N records and passes of
 * 64 N bytes of text, to see small traces cut in many blocks.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tdat-int.h"
#include "tdat-sink.h"
#include "tdat-par.h"
#include "tdat-thread.h"

#define BLK_RECS	1024
#define BLK_BYTES	((size_t)128 << 10)
#define BLK_OUT		((size_t)128 << 10)
#define SLACK		8	/* bytes copied past what a record needs */
#define NBLK(n)		(2 * (n) + 1)
#define NBLK_MAX	NBLK(TDAT_THREADS_MAX)

enum { B_FREE, B_FILL, B_QUEUED, B_BUSY, B_DONE };

struct item {
	size_t k;		/* the input */
	size_t off;		/* its bytes in the block's arena */
	struct tdat_record rec;	/* its data: the copy at off */
};

/* Apart from what other threads write (no false sharing). */
#define LINE	128

struct blk {
	_Alignas(LINE) int state;		/* B_*: B_QUEUED and B_BUSY blocks are the
				 * workers', the others the driver's */
	uint64_t seq;
	struct item *it;
	size_t n;		/* records */
	size_t next;		/* the first not formatted yet */
	unsigned char *arena;
	size_t used, cap;
	struct tdat_sbuf out;
	int rc;			/* the formatter's error at record next,
				 * or TDAT_PAR_REDO */
	struct tdat_err e;
};

struct worker {
	_Alignas(LINE) struct tdat_par *p;
	pthread_t t;
	void *fmt;
	int started;
	uint64_t nblk;		/* passes made, for TDAT_THREADS_STATS */
	double cpu;		/* its CPU seconds, when it ended */
};

struct tdat_par {
	/* the driver's thread's (the workers read the first four) */
	const struct tdat_sink *sink;
	const struct tdat_sink_par *ops;
	size_t nblk;
	size_t recs, outmax;	/* a block's records, a pass's text */
	struct blk *cur;	/* being filled, or NULL */
	uint64_t fill_seq;	/* the next block to fill */
	uint64_t write_seq;	/* the next block to write */
	size_t nw;		/* worker threads */
	double cpu0;		/* the driver's CPU seconds at open */
	uint64_t nrec;		/* records through, for TDAT_THREADS_STATS */
	uint64_t from;		/* records record() had before */
	int inorder;		/* after a TDAT_PAR_REDO: record() */
	uint64_t redo;		/* the block it started in */
	/* shared */
	_Alignas(LINE) pthread_mutex_t mu;
	pthread_cond_t work, done;
	int quit;
	struct blk blk[NBLK_MAX];
	struct worker w[TDAT_THREADS_MAX];
	struct worker drv;	/* the driver's own formatter: it formats
				 * a queued block rather than wait */
};

int
tdat_threads(struct tdat_err *e)
{
	const char *s = getenv("TDAT_THREADS");
	char *end;
	long n;

	if (s != NULL && *s != '\0') {
		n = strtol(s, &end, 10);
		if (*end != '\0' || n < 1) {
			tdat_fail_nooff(e, TDAT_EUSAGE, "TDAT_THREADS=%s: not "
			    "a number of threads (1 or more)", s);
			return 0;
		}
	} else
		return TDAT_THREADS_AUTO;
	return n > TDAT_THREADS_MAX ? TDAT_THREADS_MAX : (int)n;
}

/* The oldest queued block, or NULL; under mu. */
static struct blk *
oldest_queued(struct tdat_par *p)
{
	struct blk *b = NULL;
	size_t i;

	for (i = 0; i < p->nblk; i++)
		if (p->blk[i].state == B_QUEUED &&
		    (b == NULL || p->blk[i].seq < b->seq))
			b = &p->blk[i];
	return b;
}

static double
thread_cpu(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One pass of a worker over block b, from its record next. */
static void
format_block(struct tdat_par *p, struct worker *w, struct blk *b)
{
	const struct tdat_sink_par *ops = p->ops;
	struct tdat_record rec;
	struct tdat_sbuf out = b->out;
	struct item *it;
	size_t i, n = b->n;
	int rc = 0;

	w->nblk++;
	for (i = b->next; i < n && out.len < p->outmax; i++) {
		it = &b->it[i];
		rec = it->rec;
		rec.data = b->arena + it->off;
		if ((rc = ops->fmt(w->fmt, it->k, &rec, &out, &b->e)) != 0)
			break;
	}
	if (rc == 0 && ops->fmt_flush && (rc = ops->fmt_flush(w->fmt, &out,
	    &b->e)) > 0)
		rc = 0;
	if (rc != 0)
		b->rc = rc;
	b->next = i;
	b->out = out;
}

static void
stop_workers(struct tdat_par *p)
{
	size_t i;

	pthread_mutex_lock(&p->mu);
	p->quit = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < p->nw; i++)
		if (p->w[i].started) {
			pthread_join(p->w[i].t, NULL);
			p->w[i].started = 0;
		}
}

/*
 * A record changed how later ones print: stop the workers, then give
 * record() every record not written yet, from record next of the oldest
 * block on, in order.  The blocks are free after.
 */
static int
go_in_order(struct tdat_par *p, struct tdat_err *e)
{
	struct tdat_record rec;
	struct blk *b;
	struct item *it;
	size_t i;
	int rc = 0;

	stop_workers(p);
	p->inorder = 1;
	p->redo = p->write_seq;
	for (; p->write_seq < p->fill_seq; p->write_seq++) {
		b = &p->blk[p->write_seq % p->nblk];
		/* the first was written up to next, the others not at all */
		i = p->write_seq == p->redo ? b->next : 0;
		for (; i < b->n && rc >= 0; i++) {
			it = &b->it[i];
			rec = it->rec;
			rec.data = b->arena + it->off;
			rc = p->sink->ops->record(p->sink->arg, it->k, &rec, e);
		}
		b->state = B_FREE;
		tdat_sb_reset(&b->out);
	}
	p->cur = NULL;
	return rc;
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct tdat_par *p = w->p;
	struct blk *b = NULL;	/* gcc -O1 sees no assignment before use */

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->quit && (b = oldest_queued(p)) == NULL)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->quit)
			break;
		b->state = B_BUSY;
		pthread_mutex_unlock(&p->mu);
		format_block(p, w, b);
		pthread_mutex_lock(&p->mu);
		b->state = B_DONE;
		pthread_cond_signal(&p->done);	/* only the driver waits */
	}
	w->cpu = thread_cpu();
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/*
 * The driver's thread formats the oldest queued block itself, rather
 * than wait for a worker to: 1 when it did, 0 when none was queued.
 */
static int
help(struct tdat_par *p)
{
	struct blk *b;

	pthread_mutex_lock(&p->mu);
	if ((b = oldest_queued(p)) != NULL)
		b->state = B_BUSY;
	pthread_mutex_unlock(&p->mu);
	if (b == NULL)
		return 0;
	format_block(p, &p->drv, b);
	pthread_mutex_lock(&p->mu);
	b->state = B_DONE;
	pthread_mutex_unlock(&p->mu);
	return 1;
}

static void
set_state(struct tdat_par *p, struct blk *b, int state)
{
	pthread_mutex_lock(&p->mu);
	b->state = state;
	if (state == B_QUEUED)
		pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->mu);
}

static int
state_of(struct tdat_par *p, const struct blk *b)
{
	int state;

	pthread_mutex_lock(&p->mu);
	state = b->state;
	pthread_mutex_unlock(&p->mu);
	return state;
}

/*
 * Write the oldest block not written, when it is done (wait: waiting
 * for it).  1 when it was written (or queued again for the rest of its
 * records), 0 when there is none to write yet, or a negative code.
 */
static int
write_one(struct tdat_par *p, int wait, struct tdat_err *e)
{
	struct blk *b = &p->blk[p->write_seq % p->nblk];
	int rc;

	pthread_mutex_lock(&p->mu);
	if (b->seq != p->write_seq || b->state == B_FREE ||
	    b->state == B_FILL) {
		pthread_mutex_unlock(&p->mu);
		return 0;
	}
	while (b->state != B_DONE && wait)
		pthread_cond_wait(&p->done, &p->mu);
	rc = b->state == B_DONE;
	pthread_mutex_unlock(&p->mu);
	if (!rc)
		return 0;
	if (b->out.len && (rc = p->ops->write(p->sink->arg, b->out.p,
	    b->out.len, e)) < 0)
		return rc;
	if (b->out.cap > 4 * BLK_OUT)
		tdat_sb_free(&b->out);	/* a long text: give it back */
	tdat_sb_reset(&b->out);
	if (b->rc == TDAT_PAR_REDO)
		return (rc = go_in_order(p, e)) < 0 ? rc : 1;
	if (b->rc < 0) {
		*e = b->e;
		return b->rc;
	}
	if (b->next < b->n) {
		set_state(p, b, B_QUEUED);
		return 1;
	}
	set_state(p, b, B_FREE);
	p->write_seq++;
	return 1;
}

/*
 * Write the oldest block not written when it is done, else format a
 * queued block, else wait for the oldest.  As write_one().
 */
static int
advance(struct tdat_par *p, struct tdat_err *e)
{
	int rc;

	if ((rc = write_one(p, 0, e)) != 0 || help(p))
		return rc < 0 ? rc : 1;
	return write_one(p, 1, e);
}

/* Queue the block being filled, then write what is done. */
static int
submit(struct tdat_par *p, struct tdat_err *e)
{
	int rc;

	set_state(p, p->cur, B_QUEUED);
	p->cur = NULL;
	while ((rc = write_one(p, 0, e)) > 0)
		continue;
	return rc;
}

/* The next block to fill, once written if it is still in use. */
static int
take_block(struct tdat_par *p, struct tdat_err *e)
{
	struct blk *b = &p->blk[p->fill_seq % p->nblk];
	int rc;

	while (state_of(p, b) != B_FREE)
		if ((rc = advance(p, e)) < 0)
			return rc;
	if (p->inorder)
		return 0;
	if (b->cap > BLK_BYTES) {	/* a long record had it alone */
		free(b->arena);
		if ((b->arena = malloc(BLK_BYTES)) == NULL) {
			b->cap = 0;
			return tdat_fail_nooff(e, TDAT_ENOMEM,
			    "out of memory");
		}
		b->cap = BLK_BYTES;
	}
	b->seq = p->fill_seq++;
	b->n = b->next = b->used = 0;
	b->rc = 0;
	set_state(p, b, B_FILL);	/* no worker takes it till queued */
	p->cur = b;
	return 0;
}

/* The bytes of rec a formatter reads: what the sink's note() says (a
 * string that runs on: to its NUL, as it is printed), and SLACK bytes
 * after, where the record has them: a print's fast steps load 8 bytes
 * at a field (print-eval.c's reach), and take the slow ones when the
 * record is cut shorter. */
static size_t
copy_len(const struct tdat_par *p, size_t k, const struct tdat_record *rec)
{
	size_t len = rec->size, have;
	const unsigned char *z;
	uint32_t need;

	have = rec->avail > rec->size ? rec->avail : rec->size;
	if (p->ops->note != NULL) {
		need = p->ops->note(p->sink->arg, k, rec);
		if (need & TDAT_PAR_EXACT) {
			need &= ~TDAT_PAR_EXACT;
			if (need > len)
				len = need < have ? need : have;
		} else {
			if (need > len)
				len = need < have ? need : have;
			if (len < have) {
				z = memchr(rec->data + len, '\0', have - len);
				len = z ? (size_t)(z - rec->data) + 1 : have;
			}
		}
	}
	return len + SLACK < have ? len + SLACK : have > len ? have : len;
}

/* Room for len bytes at the block being filled: the block queued when
 * it is full and the next taken (which may end the threads: inorder).
 * 0 or a negative code. */
static int
make_room(struct tdat_par *p, size_t len, struct tdat_err *e)
{
	struct blk *b;
	size_t at;
	unsigned char *q;
	int rc;

	if ((b = p->cur) != NULL && (b->n == p->recs || (b->n &&
	    ((b->used + 7) & ~(size_t)7) + len > b->cap)) &&
	    (rc = submit(p, e)) < 0)
		return rc;
	if (p->cur == NULL && !p->inorder && (rc = take_block(p, e)) < 0)
		return rc;
	if (p->inorder)
		return 0;
	b = p->cur;
	at = (b->used + 7) & ~(size_t)7;
	if (at + len > b->cap) {	/* the block's first record */
		if ((q = realloc(b->arena, at + len)) == NULL)
			return tdat_fail_nooff(e, TDAT_ENOMEM,
			    "out of memory");
		b->arena = q;
		b->cap = at + len;
	}
	return 0;
}

int
tdat_par_add(struct tdat_par *p, size_t k, const struct tdat_record *rec,
    struct tdat_err *e)
{
	struct blk *b = p->cur;
	struct item *it;
	size_t len, at;
	int rc;

	if (p->inorder)
		return p->sink->ops->record(p->sink->arg, k, rec, e);
	len = copy_len(p, k, rec);
	if (b == NULL || b->n == p->recs ||
	    ((b->used + 7) & ~(size_t)7) + len > b->cap) {
		if ((rc = make_room(p, len, e)) < 0)
			return rc;
		if (p->inorder)
			return p->sink->ops->record(p->sink->arg, k, rec, e);
		b = p->cur;
	}
	at = (b->used + 7) & ~(size_t)7;
	memcpy(b->arena + at, rec->data, len);
	b->used = at + len;
	it = &b->it[b->n++];
	it->k = k;
	it->off = at;
	it->rec = *rec;
	it->rec.avail = (uint32_t)len;
	p->nrec++;
	return 0;
}

static int
start_worker(struct tdat_par *p, struct worker *w)
{
	w->p = p;
	w->started = tdat_thread_start(&w->t, worker_main, w) == 0;
	return w->started ? 0 : -1;
}

static void
par_free(struct tdat_par *p)
{
	size_t i;

	stop_workers(p);
	for (i = 0; i < p->nw; i++) {
		if (p->w[i].fmt)
			p->ops->fmt_free(p->w[i].fmt);
	}
	if (p->drv.fmt)
		p->ops->fmt_free(p->drv.fmt);
	for (i = 0; i < p->nblk; i++) {
		free(p->blk[i].it);
		free(p->blk[i].arena);
		tdat_sb_free(&p->blk[i].out);
	}
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	free(p);
}

/* The formatters, one a worker: 1 made, 0 the sink stays sequential. */
static int
make_fmts(struct tdat_par *p, struct tdat_err *e)
{
	struct worker *w;
	struct tdat_err le;
	size_t i;

	for (i = 0; i <= p->nw; i++) {
		memset(&le, 0, sizeof(le));
		w = i < p->nw ? &p->w[i] : &p->drv;
		if ((w->fmt = p->ops->fmt_new(p->sink->arg, &le)) != NULL)
			continue;
		if (le.code == 0 && i == 0)
			return 0;
		if (le.code == 0)
			tdat_fail_nooff(&le, TDAT_ENOMEM, "out of memory");
		*e = le;
		return le.code;
	}
	return 1;
}

static int
make_blocks(struct tdat_par *p)
{
	struct blk *b;
	size_t i;

	p->nblk = NBLK(p->nw + 1);
	for (i = 0; i < p->nblk; i++) {
		b = &p->blk[i];
		tdat_sb_init(&b->out);
		b->seq = UINT64_MAX;
		b->it = malloc(BLK_RECS * sizeof(*b->it));
		b->arena = malloc(BLK_BYTES);
		b->cap = BLK_BYTES;
		if (b->it == NULL || b->arena == NULL)
			return -1;
	}
	return 0;
}

int
tdat_par_open(const struct tdat_sink *sink, int n, uint64_t from,
    struct tdat_par **pp, struct tdat_err *e)
{
	struct tdat_par *p;
	const char *s;
	size_t i;
	int rc;

	*pp = NULL;
	if (sink->ops->par == NULL || n <= 1)
		return 0;
	if (n > TDAT_THREADS_MAX)
		n = TDAT_THREADS_MAX;
	if ((p = aligned_alloc(LINE, sizeof(*p))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	memset(p, 0, sizeof(*p));
	p->sink = sink;
	p->ops = sink->ops->par;
	p->nw = (size_t)n - 1;	/* and the driver's thread */
	p->from = from;
	p->cpu0 = thread_cpu();
	p->recs = BLK_RECS;
	p->outmax = BLK_OUT;
	if ((s = getenv("TDAT_THREADS_BLOCK")) != NULL && atoi(s) > 0 &&
	    atoi(s) < BLK_RECS) {
		p->recs = (size_t)atoi(s);
		p->outmax = 64 * p->recs;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	if ((rc = make_fmts(p, e)) <= 0) {
		par_free(p);
		return rc;
	}
	if (make_blocks(p) < 0) {
		par_free(p);
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	for (i = 0; i < p->nw; i++)
		if (start_worker(p, &p->w[i]) < 0) {
			par_free(p);
			return tdat_fail_nooff(e, TDAT_ENOMEM, "cannot start "
			    "a thread");
		}
	*pp = p;
	return 0;
}

/* TDAT_THREADS_STATS: the blocks, and each thread's CPU seconds. */
static void
print_stats(struct tdat_par *p)
{
	size_t i;

	if (p->inorder)
		fprintf(stderr, "tdat: %zu format threads, in order from "
		    "block %llu\n", p->nw + 1, (unsigned long long)p->redo);
	else if (p->from)
		fprintf(stderr, "tdat: %zu format threads from record %llu, "
		    "%llu blocks, %llu records\n", p->nw + 1,
		    (unsigned long long)p->from + 1,
		    (unsigned long long)p->fill_seq,
		    (unsigned long long)p->nrec);
	else
		fprintf(stderr, "tdat: %zu format threads, %llu blocks, "
		    "%llu records\n", p->nw + 1,
		    (unsigned long long)p->fill_seq,
		    (unsigned long long)p->nrec);
	fprintf(stderr, "tdat: driver %.3f s CPU, %llu passes",
	    thread_cpu() - p->cpu0, (unsigned long long)p->drv.nblk);
	for (i = 0; i < p->nw; i++)
		fprintf(stderr, "; worker %zu %.3f s, %llu passes", i + 1,
		    p->w[i].cpu, (unsigned long long)p->w[i].nblk);
	fputc('\n', stderr);
}

int
tdat_par_close(struct tdat_par *p, int drain, struct tdat_err *e)
{
	const char *stats = getenv("TDAT_THREADS_STATS");
	int rc = 0;

	if (p == NULL)
		return 0;
	if (drain && p->cur && p->cur->n)
		rc = submit(p, e);
	while (drain && rc >= 0 && p->write_seq < p->fill_seq &&
	    (rc = advance(p, e)) > 0)
		continue;
	if (rc > 0)
		rc = 0;
	stop_workers(p);
	if (stats != NULL && *stats != '\0')
		print_stats(p);
	par_free(p);
	return rc;
}
