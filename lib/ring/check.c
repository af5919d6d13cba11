/*
 * check.c: the one page checker, which tdat-verify, tdat-cat --salvage
 * and the writers' copies share: a page's header, each item as the
 * decoder reads it, the CPU's clock, and each record against its event
 * in the table (its id, its size, its dynamic fields).  What it finds it
 * hands to the caller's callback as an issue; the words are the caller's.
 */
#include <stdint.h>
#include <string.h>

#include "tdat-ring.h"

/*
 * Report an issue: the callback's answer, nonzero to stop.  An error in
 * the page's header, an item or the clock ends the page whatever the
 * answer; after one in a record or a padding the walk goes on when the
 * answer is 0 (tdat-verify --keep-going).
 */
static int
issue(struct tdat_ring_check *c, struct tdat_ring_issue *is)
{
	return c->issue(c->arg, is);
}

#define ISSUE(c, is, w, o) ((is)->what = (w), (is)->off = (o), issue(c, is))

/* A record against its event: the callback's answer to an error (the
 * walk goes on after it if that is 0), or to a warning that stops. */
static int
check_record(struct tdat_ring_check *c, const struct tdat_page *pg,
    const struct tdat_page_item *it)
{
	const struct tdat_page_layout *pl = c->pl;
	struct tdat_ring_issue is = { 0 };
	const struct tdat_ring_ev *ev;
	uint32_t i = 0, off, len;
	uint64_t where = tdat_page_where(pl, pg, it->at);
	int k;

	is.in_record = 1;
	is.size = it->size;
	if (it->size < 2)
		return ISSUE(c, &is, TDAT_RI_NO_ID, where);
	is.id = tdat_rd16(it->data, pl->big);
	if ((ev = tdat_ring_event(c->events, is.id)) == NULL &&
	    (c->miss == NULL || (ev = c->miss(c->arg, is.id)) == NULL))
		return ISSUE(c, &is, TDAT_RI_NO_FORMAT, where);
	if (c->seen)
		c->seen[ev - c->events->ev] = 1;
	is.ev = ev;
	for (;; i++) {
		k = tdat_shape_test(&ev->sh, it->data, it->size, pl->big, &i,
		    &off, &len);
		if (k == TDAT_SHAPE_OK)
			return 0;
		if (k != TDAT_SHAPE_SHORT) {
			is.loc = &ev->sh.loc[i];
			is.off_in = off;
			is.len = len;
		}
		switch (k) {
		case TDAT_SHAPE_SHORT:
			return ISSUE(c, &is, TDAT_RI_SHORT, where);
		case TDAT_SHAPE_OUTSIDE:
			return ISSUE(c, &is, TDAT_RI_OUTSIDE, where);
		case TDAT_SHAPE_UNTERMINATED:
			return ISSUE(c, &is, TDAT_RI_UNTERMINATED, where);
		}
		if (ISSUE(c, &is, TDAT_RI_LONG_STRING, where))
			return 1;
	}
}

/* The dynamic fields of a record of size bytes at d hold what
 * check_record() asks of them (record_ok()). */
static int
locs_ok(const struct tdat_shape *q, const unsigned char *d, uint32_t size)
{
	const struct tdat_loc *l;
	uint32_t i, loc, off, len;

	for (i = 0; i < q->nloc; i++) {
		l = &q->loc[i];
		loc = tdat_rd32(d + l->off, 0);
		off = loc & 0xffff;
		len = loc >> 16;
		if (l->rel)
			off += l->off + 4;
		if (off > size || len > size - off || (l->str && len != 0 &&
		    memchr(d + off, '\0', len) == NULL))
			return 0;
	}
	return 1;
}

/*
 * What check_record() finds nothing in, told without an issue: a record
 * of a little-endian page (walk_fast()), by its id's entry in the
 * table's fast[] (fast and nidx the table's, passed as they are so that
 * the store into seen[] does not make them read again).  A record of no
 * event fails the size test: TDAT_RING_FAST_NONE is longer than any.
 */
static inline int
record_ok(const struct tdat_ring_events *t, const uint64_t *fast,
    uint32_t nidx, unsigned char *seen, const unsigned char *d, uint32_t size)
{
	const struct tdat_shape *q;
	uint64_t f;
	uint32_t id, ix;

	if (size < 2 || (id = tdat_rd16(d, 0)) >= nidx)
		return 0;
	f = fast[id];
	ix = (uint32_t)(f >> 32) & 0x7fffffffu;
	if (f & TDAT_RING_FAST_LOC) {
		q = &t->ev[ix].sh;
		if (size < q->min_size || !locs_ok(q, d, size))
			return 0;
	} else if (size < (uint32_t)f)
		return 0;
	if (seen)
		seen[ix] = 1;
	return 1;
}

/*
 * The walk reads a page's bytes in order, each record's length telling
 * where the next begins, so that a load that misses the caches stops it;
 * the processor's own prefetching does not cross into the next page,
 * which lies anywhere in memory.  So each item asks for the bytes
 * AHEAD_BYTES on, in the pages after this one (where those are mapped
 * or read: a prefetch never faults).  callgrind counts no more than one
 * instruction an item; the pages of ../shared/bench's v6 twin on one
 * thread: 9.0 ms of CPU without, 5.3-5.7 ms with 4 or 8 KiB ahead,
 * 6.4 ms with 1 KiB.
 */
#define AHEAD_BYTES	8192

static inline void
prefetch_ahead(const unsigned char *d, uint32_t pos)
{
	__builtin_prefetch((const void *)((uintptr_t)d + pos + AHEAD_BYTES));
}

/*
 * The run of the usual records from *pos on: each 4 to 112 bytes long
 * (the length in its type), of an event with no dynamic fields, and
 * sound as check_record() and the clock see it.  *ts is at least the
 * CPU's last record's time, so that the next record's is too; it is far
 * enough from wrapping that no run of a page's records can (a record
 * takes 8 bytes or more and adds less than 2^27), else nothing is read.
 * The loop walk_fast() spends its time in, kept apart so that its few
 * values stay in registers; a record of an event with dynamic fields or
 * of none fails its size test (fast[]).  Returns the records read, *pos
 * and *ts after the last of them.
 */
static __attribute__((noinline)) uint64_t
walk_run(const unsigned char *d, uint32_t *pos_, uint32_t end, uint64_t *ts_,
    const uint64_t *fast, uint32_t nidx, unsigned char *seen)
{
	size_t pos = *pos_, len, last;
	uint32_t word, id;
	uint64_t ts = *ts_, f, n = 0;

	if (ts > UINT64_MAX - ((uint64_t)(end - pos) / 8 << 27) || end < 8)
		return 0;
	/* a record's header lies at or before last; pos and len are size_t
	 * so that no index is widened in the loop: 25 instructions a record
	 * (gcc 12 -O2), 28 with the bounds as end - pos */
	for (last = end - 8; pos <= last; pos += 4 + len) {
		prefetch_ahead(d, pos);
		word = tdat_rd32(d + pos, 0);
		if ((word & 0x1f) - 1 >= 28)
			break;
		len = (size_t)(word & 0x1f) * 4;
		if (pos + len > last + 4 ||
		    (id = tdat_rd16(d + pos + 4, 0)) >= nidx ||
		    (uint32_t)len < (uint32_t)(f = fast[id]))
			break;
		seen[f >> 32] = 1;
		ts += word >> 5;
		n++;
	}
	*pos_ = (uint32_t)pos;
	*ts_ = ts;
	return n;
}

/*
 * The items of a page from pg->pos on, for as long as they are what most
 * items are and sound: records check_record() finds nothing in, time
 * extends and stamps, of a little-endian page with the usual item types.
 * It stops at any other item (a padding, damage, an issue to report)
 * with pg->pos, pg->ts, *extend and the CPU's clock as the general walk
 * would have them there, and the general walk reads that item; so the
 * issues are its.  Runs of the usual records go to walk_run() (with
 * seen[] to mark), the rest is read here, the next item after a run
 * that read nothing too.
 */
static void
walk_fast(struct tdat_ring_check *c, struct tdat_page *pg, int *extend)
{
	const struct tdat_ring_events *t = c->events;
	const uint64_t *fast = t->fast;
	unsigned char *seen = c->seen;
	const unsigned char *d = pg->p + c->pl->data_off;
	uint32_t pos = pg->pos, end = pg->commit, len, hdr, delta;
	uint32_t nidx = t->nidx;
	uint64_t ts = pg->ts, nts, last = c->have_ts ? c->last_ts : 0;
	uint64_t nrec = 0, n;
	int ext = *extend, k, run = seen != NULL;

	/* pos stays at or below end; with no record yet, last is 0 */
	for (;;) {
		if (run && ts >= last) {
			if ((n = walk_run(d, &pos, end, &ts, fast, nidx,
			    seen)) > 0) {
				last = ts;
				ext = 0;
				nrec += n;
			}
			run = n > 0;
		} else
			run = seen != NULL;
		if (end - pos < 8)
			break;
		prefetch_ahead(d, pos);
		if ((k = tdat_fast_item(d + pos, !ext, &len, &hdr, &delta,
		    &ts)) == 0)
			break;
		if (k == 2) {
			ext = 1;
			pos += 8;
			continue;
		}
		nts = ts + delta;
		if (len > end - pos - hdr || nts < ts || nts < last ||
		    !record_ok(t, fast, nidx, seen, d + pos + hdr, len))
			break;
		ts = last = nts;
		ext = 0;
		nrec++;
		pos += hdr + len;
	}
	pg->pos = pos;
	pg->ts = ts;
	*extend = ext;
	if (nrec > 0) {
		c->last_ts = last;
		c->have_ts = 1;
		c->records += nrec;
	}
}

int
tdat_ring_check_page(struct tdat_ring_check *c, struct tdat_page *pg)
{
	const struct tdat_page_layout *pl = c->pl;
	struct tdat_ring_issue is = { 0 };
	struct tdat_page_item it = { 0 };
	struct tdat_err e = { 0 };
	uint64_t before, high;
	int rc, extend = 0, fast;

	c->pages++;
	is.err = &e;
	if (tdat_page_init(pl, pg, &e) < 0) {
		is.msg = e.msg;
		return ISSUE(c, &is, TDAT_RI_PAGE_COMMIT, e.off);
	}
	/* A 64-bit commit word holds bit 31 sign-extended. */
	high = pg->flags >> 32;
	is.flags = pg->flags & ~(uint64_t)TDAT_RB_COMMIT_MASK;
	if (((pg->flags & 0xffffffffu & ~TDAT_RB_KNOWN_FLAGS) || (high &&
	    (high != 0xffffffffu || !(pg->flags & TDAT_RB_MISSING_EVENTS)))) &&
	    ISSUE(c, &is, TDAT_RI_PAGE_FLAGS, pg->off))
		return 1;
	if (pg->commit == 0)
		return 0;
	is.lost = pg->lost;
	if (pg->lost && ISSUE(c, &is, TDAT_RI_MISSED, pg->off))
		return 1;
	if (c->have_ts && pg->stamp < c->last_ts) {
		is.ts = pg->stamp;
		is.last = c->last_ts;
		return ISSUE(c, &is, TDAT_RI_PAGE_BACK, pg->off);
	}
	fast = !pl->big && pl->padding_type == TDAT_RB_PADDING &&
	    pl->extend_type == TDAT_RB_EXTEND && pl->stamp_type == TDAT_RB_STAMP;
	for (;;) {
		if (fast)
			walk_fast(c, pg, &extend);
		before = pg->ts;
		if ((rc = tdat_page_next(pl, pg, &it, &e)) < 0) {
			is.msg = e.msg;
			return ISSUE(c, &is, TDAT_RI_ITEM, e.off);
		}
		if (rc == 0)
			break;
		switch (it.kind) {
		case TDAT_ITEM_DATA:
			extend = 0;
			c->records++;
			is.in_record = 1;
			is.ts = pg->ts;
			is.last = c->last_ts;
			if (pg->ts < before)
				return ISSUE(c, &is, TDAT_RI_TIME_WRAP,
				    tdat_page_where(pl, pg, it.at));
			if (c->have_ts && pg->ts < c->last_ts)
				return ISSUE(c, &is, TDAT_RI_TIME_BACK,
				    tdat_page_where(pl, pg, it.at));
			is.in_record = 0;
			c->last_ts = pg->ts;
			c->have_ts = 1;
			if (check_record(c, pg, &it))
				return 1;
			break;
		case TDAT_ITEM_PADDING:
			is.size = it.size;
			is.commit = pg->commit;
			if (it.rest && it.delta != 0 && ISSUE(c, &is,
			    TDAT_RI_PADDING_PAST, tdat_page_where(pl, pg, it.at)))
				return 1;
			if (!it.rest && (it.size < 4 || it.size % 4) &&
			    ISSUE(c, &is, TDAT_RI_PADDING_LEN,
			    tdat_page_where(pl, pg, it.at)))
				return 1;
			break;
		case TDAT_ITEM_EXTEND:
			is.ext = it.ext;
			if (pg->ts < before)
				return ISSUE(c, &is, TDAT_RI_EXTEND_WRAP,
				    tdat_page_where(pl, pg, it.at));
			/* FALLTHROUGH */
		case TDAT_ITEM_STAMP:
			if (extend && ISSUE(c, &is, TDAT_RI_EXTEND_TWICE,
			    tdat_page_where(pl, pg, it.at)))
				return 1;
			extend = 1;
			break;
		}
	}
	if (extend && ISSUE(c, &is, TDAT_RI_EXTEND_END, pg->off))
		return 1;
	return 0;
}
