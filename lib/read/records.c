/*
 * records.c: ring-buffer pages decoded into records, and the records of
 * every CPU of every buffer merged into one time-ordered stream, in the
 * order trace-cmd report prints them.
 *
 * Each CPU stream reads its pages through lib/read/pages.c, which holds one
 * window of them (trace.dat: a read of some pages, or one decompressed
 * chunk), so memory stays bounded whatever the trace size.  Pages are
 * decoded by lib/ring's decoder (tdat-ring.h), with the layout the file's
 * header_page describes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"

#define MAX_AVAIL	(16u << 20)	/* bytes readable a record tells */

struct stream {
	struct tdat_reader *r;
	int buffer;
	struct tdat_cpu cpu;
	/* the data source */
	struct tdat_pages *ps;
	/* the current page, and the bytes readable from its start */
	struct tdat_page pg;
	size_t avail;
	int in_page;
	int first;
	/* the decoded record, if any */
	int have;
	struct tdat_record rec;
	int done;
	uint64_t last_raw;	/* the time of the last record decoded */
	int have_last;
};

struct tsc {
	uint32_t mult, shift;
	uint64_t offset;
};

/* TIME_SHIFT: per guest CPU, samples of the host offset, by time. */
struct ts_cpu {
	uint32_t n;
	struct tdat_ts_sample *s;
};

struct tdat_reader {
	struct tdat_file *f;
	struct tdat_page_layout pl;
	struct stream *s;
	size_t ns;
	struct stream *pending;	/* returned last; advance on the next call */
	uint64_t others_ts;	/* the earliest record of the streams but
				 * pending's, at the last scan (~0: none) */
	uint64_t scans;		/* passes over all the streams */
	uint64_t slow;		/* records decoded by decode() */
	int64_t ts_offset;
	struct tsc tsc;
	int raw;
	uint32_t sync_flags;
	uint32_t sync_ncpu;
	struct ts_cpu *sync;
	struct tdat_reader_filter filter;	/* what to keep */
	struct tdat_pages_worker *wk;	/* reads the streams ahead */
	int cut;		/* the selection's time range may be sought */
	uint64_t since, until;
	size_t room;		/* each stream's raw windows (0: the default) */
	int strict_time;	/* time going back is an error */
	int fast;		/* decode_fast() may read the pages: they are
				 * little-endian, and the clock only adds */
	uint64_t fast_add;	/* what the clock adds then */
};

/*
 * The raw windows of all the streams of a reader together: each stream
 * holds three (the one decoded, two read ahead by the worker), so a
 * trace of many CPUs reads smaller windows rather than taking more
 * memory (64 CPUs: 64 MiB at the most with 256 KiB windows).
 */
#define WINDOWS_BYTES	(8u << 20)

/* ------------------------------------------------------------------ */

int
tdat_page_layout(const struct tdat_file *f, struct tdat_page_layout *pl,
    struct tdat_err *e)
{
	return tdat_ring_layout(f->big, f->lsize, (const char *)f->hpage.p,
	    f->hpage.off, pl, e);
}

/* Name the CPU in a decoder error. */
static int
cpu_fail(struct stream *s, struct tdat_err *e, int rc)
{
	char pre[32];
	size_t n;

	n = (size_t)snprintf(pre, sizeof(pre), "CPU %u: ", s->cpu.id);
	memmove(e->msg + n, e->msg, sizeof(e->msg) - n - 1);
	memcpy(e->msg, pre, n);
	e->msg[sizeof(e->msg) - 1] = '\0';
	return rc;
}

/* Load the next page with records; 1 loaded, 0 none left. */
static int
next_page(struct tdat_reader *r, struct stream *s, struct tdat_err *e)
{
	int rc;

	for (;;) {
		if ((rc = tdat_pages_next(s->ps, &s->pg, &s->avail, e)) <= 0)
			return rc < 0 ? cpu_fail(s, e, rc) : 0;
		if ((rc = tdat_page_init(&r->pl, &s->pg, e)) < 0)
			return cpu_fail(s, e, rc);
		s->first = 1;
		if (s->pg.commit > 0)
			return 1;
	}
}

static uint64_t
correct(uint64_t ts, uint32_t flags, const struct tdat_ts_sample *a,
    const struct tdat_ts_sample *b)
{
	int64_t cor = a->offset;

	if ((flags & 1) && b->time != a->time) {
		int64_t delta = b->time - a->time;
		int64_t off = ((int64_t)ts - a->time) * (b->offset - a->offset);

		cor = a->offset + (off + delta / 2) / delta;
	}
	if (a->scaling > 0 && a->frac < 64)
		ts = (uint64_t)(((unsigned __int128)ts * (uint64_t)a->scaling) >>
		    a->frac);
	return cor < 0 ? ts - (uint64_t)(-cor) : ts + (uint64_t)cor;
}

/* Guest timestamps mapped to the host's clock (TIME_SHIFT). */
static uint64_t
host_sync(struct tdat_reader *r, uint64_t ts, int cpu)
{
	const struct ts_cpu *c;
	uint32_t lo, hi, mid;

	if (cpu < 0 || (uint32_t)cpu >= r->sync_ncpu)
		return ts;
	c = &r->sync[cpu];
	if (c->n == 0)
		return ts;
	if (c->n == 1)
		return ts + (uint64_t)c->s[0].offset;
	if ((int64_t)ts <= c->s[0].time)
		return correct(ts, r->sync_flags, &c->s[0], &c->s[1]);
	if ((int64_t)ts >= c->s[c->n - 1].time)
		return correct(ts, r->sync_flags, &c->s[c->n - 2],
		    &c->s[c->n - 1]);
	lo = 0;
	hi = c->n - 1;
	while (hi - lo > 1) {
		mid = (lo + hi) / 2;
		if ((int64_t)ts < c->s[mid].time)
			hi = mid;
		else
			lo = mid;
	}
	return correct(ts, r->sync_flags, &c->s[lo], &c->s[lo + 1]);
}

static uint64_t
adjust(struct tdat_reader *r, uint64_t ts, int cpu)
{
	if (r->raw)
		return ts;
	if (r->sync)
		ts = host_sync(r, ts, cpu);
	if (r->tsc.mult) {
		ts -= r->tsc.offset;
		ts = (uint64_t)(((unsigned __int128)ts * r->tsc.mult) >> r->tsc.shift);
	}
	return ts + (uint64_t)r->ts_offset;
}

/*
 * A writer's reader: a record before the last one of its CPU (a damaged
 * page) is refused, as tdat-verify and a page copy refuse it, rather
 * than written into an output whose time goes back.
 */
static int
time_back(struct stream *s, uint64_t off, struct tdat_err *e)
{
	return tdat_fail(e, TDAT_ECORRUPT, off, "CPU %u: record time %llu is "
	    "before the CPU's last record (%llu): the input is damaged "
	    "(tdat-cat --salvage drops such pages)", s->cpu.id,
	    (unsigned long long)s->pg.ts, (unsigned long long)s->last_raw);
}

/* Decode the stream's next data record into s->rec; 1, 0 at end, < 0. */
static int
decode(struct tdat_reader *r, struct stream *s, struct tdat_err *e)
{
	struct tdat_page_item it = { 0 };
	size_t avail;
	uint64_t off;
	int rc;

	for (;;) {
		if (!s->in_page) {
			if ((rc = next_page(r, s, e)) <= 0)
				return rc;
			s->in_page = 1;
		}
		if ((rc = tdat_page_next(&r->pl, &s->pg, &it, e)) < 0)
			return cpu_fail(s, e, rc);
		if (rc == 0) {
			s->in_page = 0;
			continue;
		}
		if (it.kind != TDAT_ITEM_DATA)
			continue;
		off = s->pg.chunk_pos >= 0 ? s->pg.off :
		    s->pg.off + (uint64_t)r->pl.data_off + it.at;
		if (r->strict_time && s->have_last && s->pg.ts < s->last_raw)
			return time_back(s, off, e);
		s->last_raw = s->pg.ts;
		s->have_last = 1;
		/* every member set: no memset */
		s->rec.raw_ts = s->pg.ts;
		s->rec.ts = adjust(r, s->pg.ts, (int)s->cpu.id);
		s->rec.cpu = (int)s->cpu.id;
		s->rec.buffer = s->buffer;
		s->rec.data = it.data;
		s->rec.size = it.size;
		avail = s->avail - (size_t)(it.data - s->pg.p);
		s->rec.avail = avail > MAX_AVAIL ? MAX_AVAIL : (uint32_t)avail;
		s->rec.off = off;
		s->rec.missed = 0;
		s->rec.missed_count = 0;
		if (s->first && s->pg.lost) {
			s->rec.missed = 1;
			s->rec.missed_count = s->pg.lost;
		}
		s->first = 0;
		r->slow++;
		return 1;
	}
}

/*
 * decode()'s common case (r->fast), for a stream whose record was just
 * returned (so within a page, past its first record): the page's next
 * data record, after any time extends, into s->rec (its cpu and buffer
 * stay as they are).  1 decoded; 0 for anything else (the end of the
 * page, a padding, a time stamp, anything damaged or going back), which
 * decode() then reads from where this stopped: it consumed only whole
 * time extends, as decode() would have.
 */
static inline int
decode_fast(struct tdat_reader *r, struct stream *s, struct tdat_record *out)
{
	struct tdat_record *o;
	const unsigned char *d = s->pg.p + r->pl.data_off;
	uint32_t at = s->pg.pos, size = s->pg.commit, w, type, len, hdr;
	uint64_t ts = s->pg.ts;
	size_t avail;

	for (;;) {
		/* the smallest record and a time extend are 8 bytes */
		if (at > size || size - at < 8)
			return 0;
		w = tdat_rd32(d + at, 0);
		type = w & 0x1f;
		if (type - 1 < TDAT_RB_MAX_SMALL / 4) {
			len = type * 4;
			hdr = 4;
		} else if (type == 0) {
			if ((len = tdat_rd32(d + at + 4, 0)) < 4)
				return 0;
			len = ((len - 4) + 3) & ~3u;
			hdr = 8;
		} else if (type == TDAT_RB_EXTEND) {
			ts += ((uint64_t)tdat_rd32(d + at + 4, 0) <<
			    TDAT_RB_TS_SHIFT) + (w >> 5);
			at += 8;
			s->pg.ts = ts;
			s->pg.pos = at;
			continue;
		} else
			return 0;
		if (len > size - at - hdr)
			return 0;
		ts += w >> 5;
		if (r->strict_time && ts < s->last_raw)
			return 0;
		break;
	}
	s->pg.ts = ts;
	s->pg.pos = at + hdr + len;
	s->last_raw = ts;
	/* still strictly first: straight into the caller's record */
	o = ts + r->fast_add < r->others_ts ? out : &s->rec;
	o->raw_ts = ts;
	o->ts = ts + r->fast_add;
	o->cpu = (int)s->cpu.id;
	o->buffer = s->buffer;
	o->data = d + at + hdr;
	o->size = len;
	avail = s->avail - (size_t)(o->data - s->pg.p);
	o->avail = avail > MAX_AVAIL ? MAX_AVAIL : (uint32_t)avail;
	o->off = s->pg.chunk_pos >= 0 ? s->pg.off :
	    s->pg.off + (uint64_t)r->pl.data_off + at;
	o->missed = 0;
	o->missed_count = 0;
	return o == out ? 2 : 1;
}

static int
advance(struct tdat_reader *r, struct stream *s, struct tdat_err *e)
{
	int rc;

	s->have = 0;
	if (s->done)
		return 0;
	if ((rc = decode(r, s, e)) < 0)
		return rc;
	if (rc == 0)
		s->done = 1;
	else
		s->have = 1;
	return 0;
}

/* ------------------------------------------------------------------ */

static int
sample_cmp(const void *a, const void *b)
{
	const struct tdat_ts_sample *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/* TIME_SHIFT: the first option whose samples are whole is used; its
 * samples, sorted by time, each with its scaling fraction when the
 * fractions stored reach the end of its CPU's samples. */
static int
load_time_shift(struct tdat_reader *r, const struct tdat_time_shift *t)
{
	uint64_t k = 0;
	uint32_t i, j;

	if (t->head < 16 || t->broken || r->sync)
		return 0;
	if ((r->sync = calloc(t->ncpu ? t->ncpu : 1, sizeof(*r->sync))) == NULL)
		return TDAT_ENOMEM;
	r->sync_flags = t->flags;
	r->sync_ncpu = t->ncpu;
	for (i = 0; i < t->ncpu; i++) {
		struct ts_cpu *c = &r->sync[i];
		const struct tdat_ts_cpu *tc = &t->cpu[i];
		int frac = k + tc->n <= t->nfrac;

		if ((c->s = calloc(tc->n ? tc->n : 1, sizeof(*c->s))) == NULL)
			return TDAT_ENOMEM;
		c->n = tc->n;
		for (j = 0; j < tc->n; j++) {
			c->s[j] = tc->s[j];
			if (!frac)
				c->s[j].frac = 0;
		}
		k += tc->n;
		qsort(c->s, c->n, sizeof(*c->s), sample_cmp);
	}
	return 0;
}

/* How the input's format moves its times (struct tdat_format's clock:
 * trace.dat's OFFSET, TSC2NSEC and TIME_SHIFT); a format without one
 * keeps them. */
static int
read_clock(struct tdat_reader *r, struct tdat_err *e)
{
	const struct tdat_format *fm = r->f->format;
	struct tdat_clock c;
	int rc;

	memset(&c, 0, sizeof(c));
	if (fm == NULL || fm->clock == NULL)
		return 0;
	if ((rc = fm->clock(r->f, &c, e)) < 0)
		return rc;
	r->ts_offset = c.offset;
	if (c.shift && load_time_shift(r, c.shift) < 0)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	r->tsc.mult = c.tsc_mult;
	r->tsc.shift = c.tsc_shift;
	r->tsc.offset = c.tsc_offset;
	if (r->tsc.shift > 63)
		r->tsc.mult = 0;
	return 0;
}

/* A page stamp of stream arg on the records' clock. */
static uint64_t
stream_ts(void *arg, uint64_t raw)
{
	struct stream *s = arg;

	return adjust(s->r, raw, (int)s->cpu.id);
}

static int
add_stream(struct tdat_reader *r, int bi, uint32_t ci, struct tdat_err *e)
{
	struct stream *s = &r->s[r->ns++];
	int rc;

	memset(s, 0, sizeof(*s));
	s->r = r;
	s->buffer = bi;
	s->cpu = r->f->buf[bi].cpu[ci];
	if ((rc = tdat_pages_open(r->f, bi, ci, &s->ps, e)) < 0)
		return rc;
	if (r->room)
		tdat_pages_room(s->ps, r->room);
	if (r->cut && r->since > 0 && (rc = tdat_pages_seek_ts(s->ps, &r->pl,
	    stream_ts, s, r->since, e)) < 0)
		return rc;
	if (r->wk == NULL && r->f->page_ops->parallel &&
	    tdat_pages_worker_new(&r->wk) < 0)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	tdat_pages_async(s->ps, r->wk);
	return advance(r, s, e);
}

int
tdat_reader_open(struct tdat_file *f, const struct tdat_reader_opts *o,
    struct tdat_reader **out, struct tdat_err *e)
{
	struct tdat_reader *r;
	size_t bi, total = 0, busy = 0;
	uint32_t ci;
	int rc;

	*out = NULL;
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	r->f = f;
	r->raw = o && o->no_offsets;
	r->strict_time = o && o->strict_time;
	if (o)
		r->filter = o->filter;
	/* A format whose streams are not known to be in time order (an
	 * LTT directory's tracefiles) is read whole. */
	if (r->filter.range && f->page_ops->ordered)
		r->cut = r->filter.range(r->filter.arg, &r->since, &r->until);
	if ((rc = tdat_page_layout(f, &r->pl, e)) < 0)
		goto fail;
	if (!r->raw && (rc = read_clock(r, e)) < 0)
		goto fail;
	r->fast = !r->pl.big && r->pl.padding_type == TDAT_RB_PADDING &&
	    r->pl.extend_type == TDAT_RB_EXTEND &&
	    r->pl.stamp_type == TDAT_RB_STAMP &&
	    (r->raw || (r->sync == NULL && r->tsc.mult == 0));
	r->fast_add = r->raw ? 0 : (uint64_t)r->ts_offset;
	for (bi = 0; bi < f->nbuf; bi++) {
		total += f->buf[bi].ncpu;
		for (ci = 0; ci < f->buf[bi].ncpu; ci++)
			busy += f->buf[bi].cpu[ci].size > 0;
	}
	if (busy > 0 && WINDOWS_BYTES / 3 / busy < TDAT_PAGES_WINDOW)
		r->room = WINDOWS_BYTES / 3 / busy;
	if ((r->s = calloc(total ? total : 1, sizeof(*r->s))) == NULL) {
		rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		goto fail;
	}
	for (bi = 0; bi < f->nbuf; bi++) {
		const struct tdat_buffer *b = &f->buf[bi];

		if (b->latency || (o && o->buffer >= 0 && (size_t)o->buffer != bi))
			continue;
		for (ci = 0; ci < b->ncpu; ci++) {
			const struct tdat_cpu *c = &b->cpu[ci];

			if (c->size == 0)
				continue;
			if (o && o->cpus && ((int)c->id >= o->ncpus ||
			    !o->cpus[c->id]))
				continue;
			if (r->filter.stream && !r->filter.stream(r->filter.arg,
			    r->filter.input, (int)bi, c->id))
				continue;
			if (b->page_size < (uint32_t)r->pl.data_off + 4) {
				rc = tdat_fail(e, TDAT_ECORRUPT, 0,
				    "page size %u too small", b->page_size);
				goto fail;
			}
			if ((rc = add_stream(r, (int)bi, ci, e)) < 0)
				goto fail;
		}
	}
	*out = r;
	return 0;
fail:
	tdat_reader_close(r);
	return rc;
}

int
tdat_reader_keeps(struct tdat_reader *r, const struct tdat_record *rec)
{
	return r->filter.keep == NULL || r->filter.keep(r->filter.arg,
	    r->filter.input, rec);
}

int
tdat_reader_past(const struct tdat_reader *r, const struct tdat_record *rec)
{
	return r->cut && rec->ts > r->until;
}

/*
 * The next record the selection keeps.  The streams are merged in time
 * order: once the earliest record left is past the selection's end, no
 * later one is kept.
 */
int
tdat_reader_next(struct tdat_reader *r, struct tdat_record *rec,
    struct tdat_err *e)
{
	int rc;

	while ((rc = tdat_reader_next_all(r, rec, e)) > 0 &&
	    !tdat_reader_keeps(r, rec))
		if (tdat_reader_past(r, rec))
			return 0;
	return rc;
}

void
tdat_reader_counts(const struct tdat_reader *r, uint64_t *loads,
    uint64_t *pages)
{
	size_t i;

	*loads = *pages = 0;
	for (i = 0; i < r->ns; i++) {
		*loads += tdat_pages_loads(r->s[i].ps);
		*pages += tdat_pages_handed(r->s[i].ps);
	}
}

uint64_t
tdat_reader_scans(const struct tdat_reader *r)
{
	return r->scans;
}

uint64_t
tdat_reader_slow(const struct tdat_reader *r)
{
	return r->slow;
}

/*
 * The stream whose record comes first (the first of equals), NULL when
 * none has one; r->others_ts: the earliest of the other streams' records.
 */
static struct stream *
scan(struct tdat_reader *r)
{
	struct stream *best = NULL;
	uint64_t others = ~0ULL;
	size_t i;

	r->scans++;
	for (i = 0; i < r->ns; i++) {
		struct stream *s = &r->s[i];

		if (!s->have)
			continue;
		if (best == NULL || s->rec.ts < best->rec.ts) {
			if (best != NULL)
				others = best->rec.ts;
			best = s;
		} else if (s->rec.ts < others)
			others = s->rec.ts;
	}
	r->others_ts = others;
	return best;
}

int
tdat_reader_next_all(struct tdat_reader *r, struct tdat_record *rec,
    struct tdat_err *e)
{
	struct stream *best = r->pending;
	int rc;

	if (best != NULL) {
		/* best holds the record returned last: a page begun */
		rc = r->fast ? decode_fast(r, best, rec) : 0;
		if (rc == 2)
			return 1;	/* *rec filled, best stays pending */
		rc = rc ? 0 : advance(r, best, e);
		r->pending = NULL;
		if (rc < 0)
			return rc;
		/* Only this stream moved: it stays first while its record
		 * comes strictly before all the others'. */
		if (!best->have || best->rec.ts >= r->others_ts)
			best = scan(r);
	} else
		best = scan(r);
	if (best == NULL)
		return 0;
	*rec = best->rec;
	r->pending = best;
	return 1;
}

void
tdat_reader_close(struct tdat_reader *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->ns; i++)
		tdat_pages_close(r->s[i].ps);
	tdat_pages_worker_free(r->wk);
	free(r->s);
	for (i = 0; i < r->sync_ncpu; i++)
		free(r->sync[i].s);
	free(r->sync);
	free(r);
}
