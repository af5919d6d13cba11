/*
 * encode.c: the one page encoder.  Records go into pages as the kernel
 * lays them out: a 4-byte header with the size in type_len when the
 * data is small, else a length word; a time extend before a record whose
 * delta overflows 27 bits; a gap no time extend holds (a damaged input's
 * 18 years) or lost events start the next page, whose 64-bit stamp
 * holds the time; the count of lost events after the commit, when there
 * is room for it (the kernel's rb_commit does the same).
 */
#include <string.h>

#include "tdat-ring.h"

void
tdat_ring_enc_init(struct tdat_ring_enc *c, const struct tdat_page_layout *pl,
    unsigned char *page, uint32_t page_size)
{
	memset(c, 0, sizeof(*c));
	c->pl = *pl;
	c->page = page;
	c->page_size = page_size;
}

static void
put_header(const struct tdat_ring_enc *c, unsigned char *d, uint32_t type,
    uint32_t delta)
{
	uint32_t w = c->pl.big ? type << 27 | delta : delta << 5 | type;

	tdat_put(d, w, 4, c->pl.big);
}

/* Bytes a record of size bytes takes, its header included. */
static uint32_t
need(uint32_t size)
{
	size = (size + 3) & ~3u;
	return 4 + size + (size > TDAT_RB_MAX_SMALL || size == 0 ? 4 : 0);
}

int
tdat_ring_enc_fits(const struct tdat_ring_enc *c, uint32_t size)
{
	uint32_t cap = c->page_size - (uint32_t)c->pl.data_off;

	/* (room for a time extend too) */
	return size <= cap && need(size) + 8 <= cap;
}

int
tdat_ring_enc_full(const struct tdat_ring_enc *c, uint32_t size, uint64_t ts,
    int missed)
{
	uint32_t cap = c->page_size - (uint32_t)c->pl.data_off;
	uint64_t delta;

	if (!c->open)
		return 0;
	if (missed || ts < c->last_ts)
		return 1;
	delta = ts - c->last_ts;
	return delta > TDAT_RB_MAX_DELTA || c->used + need(size) +
	    (delta > TDAT_RB_TS_MASK ? 8 : 0) > cap;
}

void
tdat_ring_enc_start(struct tdat_ring_enc *c, uint64_t ts, int missed,
    long long lost)
{
	memset(c->page, 0, c->page_size);
	c->used = 0;
	c->page_ts = ts;
	c->last_ts = ts;
	c->flags = missed ? TDAT_RB_MISSING_EVENTS : 0;
	c->lost = missed ? lost : -1;
	c->open = 1;
}

unsigned char *
tdat_ring_enc_add(struct tdat_ring_enc *c, const void *data, uint32_t size,
    uint64_t ts)
{
	unsigned char *d = c->page + c->pl.data_off + c->used;
	uint64_t delta = ts - c->last_ts;
	uint32_t len = (size + 3) & ~3u;

	if (delta > TDAT_RB_TS_MASK) {
		put_header(c, d, (uint32_t)c->pl.extend_type,
		    (uint32_t)(delta & TDAT_RB_TS_MASK));
		tdat_put(d + 4, delta >> TDAT_RB_TS_SHIFT, 4, c->pl.big);
		d += 8;
		c->used += 8;
		delta = 0;
	}
	if (len > TDAT_RB_MAX_SMALL || len == 0) {
		put_header(c, d, 0, (uint32_t)delta);
		tdat_put(d + 4, len + 4, 4, c->pl.big);
		d += 8;
	} else {
		put_header(c, d, len / 4, (uint32_t)delta);
		d += 4;
	}
	if (size)
		memcpy(d, data, size);
	c->used += need(size);
	c->last_ts = ts;
	return d;
}

void
tdat_ring_enc_finish(struct tdat_ring_enc *c, unsigned char *dst)
{
	const struct tdat_page_layout *pl = &c->pl;
	uint64_t commit = c->used | c->flags;

	if (c->lost >= 0 && (c->flags & TDAT_RB_MISSING_EVENTS) &&
	    c->used + (uint32_t)pl->data_off + (uint32_t)pl->commit_size <=
	    c->page_size) {
		tdat_put(c->page + pl->data_off + c->used, (uint64_t)c->lost,
		    pl->commit_size, pl->big);
		commit |= TDAT_RB_MISSING_STORED;
	}
	tdat_put(c->page, c->page_ts, 8, pl->big);
	tdat_put(c->page + 8, commit, pl->commit_size, pl->big);
	if (dst != c->page)
		memcpy(dst, c->page, c->page_size);
	c->open = 0;
}
