/*
 * tdat-ring.h: the kernel's ring-buffer page format, once (lib/ring/):
 * its constants, the page decoder the reader and the checks share, the
 * one page encoder (the repacker's and an LTT directory's pages), the
 * event table by id with what each event's records must hold, and the
 * one page checker (tdat-verify, --salvage, the writers' copies).
 *
 * A page is struct buffer_data_page { u64 time_stamp; local_t commit;
 * unsigned char data[]; }, data holding struct ring_buffer_event { u32
 * type_len:5, time_delta:27; u32 array[]; } items, whose bit fields sit
 * at opposite ends of the word on big-endian machines.  It knows no
 * file format: what it needs comes as a struct tdat_page_layout.
 */
#ifndef TDAT_RING_H
#define TDAT_RING_H

#include <stdint.h>
#include <string.h>

#include "tdat-common.h"

#define TDAT_RB_TS_SHIFT	27
#define TDAT_RB_TS_MASK		((1u << TDAT_RB_TS_SHIFT) - 1)
#define TDAT_RB_TS_MSB		(0xf8ULL << 56)	/* kept by a time stamp */
#define TDAT_RB_MAX_DELTA	((1ULL << 59) - 1)	/* a time extend's 27 + 32 bits */
#define TDAT_RB_COMMIT_MASK	((1u << 27) - 1)
#define TDAT_RB_MISSING_EVENTS	(1ULL << 31)	/* events lost before the page */
#define TDAT_RB_MISSING_STORED	(1ULL << 30)	/* their count after the commit */
#define TDAT_RB_KNOWN_FLAGS	(TDAT_RB_COMMIT_MASK | TDAT_RB_MISSING_STORED | \
	TDAT_RB_MISSING_EVENTS)
#define TDAT_RB_MAX_SMALL	(28 * 4)	/* data a type_len can give */
/* The item types: the kernel's constants, which header_event only
 * describes; libtraceevent's kbuffer fixes them too.  (Read from a
 * damaged header_event, they could name padding and a time extend
 * alike, and a writer's time extend be read as padding.) */
#define TDAT_RB_PADDING		29
#define TDAT_RB_EXTEND		30
#define TDAT_RB_STAMP		31

/* What the header_page and header_event of a trace describe. */
struct tdat_page_layout {
	int commit_size;	/* bytes of the commit field: long size */
	int data_off;		/* where records start in a page */
	int big;
	int padding_type, extend_type, stamp_type;	/* 29, 30, 31 */
};

/*
 * The layout of pages of a trace of byte order big and long size lsize
 * whose header_page text (NUL-terminated, or NULL) says the commit's
 * size and the data's offset; hp_off names that text in an error.
 */
int tdat_ring_layout(int big, int lsize, const char *header_page,
    uint64_t hp_off, struct tdat_page_layout *pl, struct tdat_err *e);

/* ---------------------------------------------------------------------
 * The decoder (page.c).  Fill p, page_size (at least the layout's
 * data_off + 4), off and chunk_pos, call tdat_page_init(), then
 * tdat_page_next() until it returns 0.  The reader and the checks decode
 * alike: what one refuses, the other reports at the same offset.
 */
struct tdat_page {
	const unsigned char *p;	/* the page */
	uint32_t page_size;
	uint64_t off;		/* file offset of the page; compressed: of
				 * its chunk's header */
	int64_t chunk_pos;	/* -1; compressed: the page's offset in the
				 * chunk's uncompressed data */
	/* set by tdat_page_init() */
	uint64_t stamp;		/* the page's time stamp */
	uint64_t flags;		/* the commit word as stored */
	uint32_t commit;	/* bytes of items after the page header */
	long long lost;		/* 0; events lost before the page (-1: unknown) */
	/* advanced by tdat_page_next() */
	uint64_t ts;		/* the clock after the last item */
	uint32_t pos;		/* next item, from the start of the items */
};

enum {
	TDAT_ITEM_DATA,		/* an event */
	TDAT_ITEM_PADDING,	/* a discarded event, or the rest of the page */
	TDAT_ITEM_EXTEND,	/* a time extend: adds ext to the clock */
	TDAT_ITEM_STAMP,	/* an absolute time stamp */
};

struct tdat_page_item {
	int kind;		/* TDAT_ITEM_* */
	uint32_t at;		/* its header, from the start of the items */
	uint32_t type_len, delta;	/* the header's bit fields */
	uint64_t ext;		/* EXTEND, STAMP: the stored value */
	const unsigned char *data;	/* DATA: the event (common_type first) */
	uint32_t size;		/* DATA: bytes of data; PADDING: its stated
				 * length (0 if none fits) */
	int rest;		/* PADDING: it ends the page (delta 0, or a
				 * length past the commit) */
};

/* The file offset to name for position pos of a page's items. */
static inline uint64_t
tdat_page_where(const struct tdat_page_layout *pl, const struct tdat_page *pg,
    uint32_t pos)
{
	if (pg->chunk_pos >= 0)
		return pg->off;
	return pg->off + (uint64_t)pl->data_off + pos;
}

/* A damaged item at position at: TDAT_ECORRUPT, *e naming it. */
int tdat_page_fail(const struct tdat_page_layout *, const struct tdat_page *,
    uint32_t at, struct tdat_err *e, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Read the page header; a commit past the page is an error (the error's
 * offset: the page, or the chunk for compressed data). */
static inline int
tdat_page_init(const struct tdat_page_layout *pl, struct tdat_page *pg,
    struct tdat_err *e)
{
	pg->stamp = pg->ts = tdat_get64(pg->p, pl->big);
	pg->flags = tdat_get(pg->p + 8, pl->commit_size, pl->big);
	pg->commit = (uint32_t)pg->flags & TDAT_RB_COMMIT_MASK;
	pg->pos = 0;
	pg->lost = 0;
	if (pg->commit > pg->page_size - (uint32_t)pl->data_off)
		return tdat_fail(e, TDAT_ECORRUPT, pg->off,
		    "page commit %u exceeds the page%s", pg->commit,
		    pg->chunk_pos < 0 ? "" : " (in a compressed chunk)");
	if (pg->flags & TDAT_RB_MISSING_EVENTS) {
		pg->lost = -1;
		if ((pg->flags & TDAT_RB_MISSING_STORED) && pg->commit +
		    (uint32_t)pl->data_off + pl->commit_size <= pg->page_size)
			pg->lost = (long long)tdat_get(pg->p + pl->data_off +
			    pg->commit, pl->commit_size, pl->big);
	}
	return 0;
}

/* The next item: 1 and *it filled, 0 at the commit, < 0 on a damaged
 * item (the error's offset: the item's header, or the chunk). */
static inline int
tdat_page_next(const struct tdat_page_layout *pl, struct tdat_page *pg,
    struct tdat_page_item *it, struct tdat_err *e)
{
	const unsigned char *d = pg->p + pl->data_off;
	uint32_t w, type, delta, len, at = pg->pos, size = pg->commit;

	if (at >= size)
		return 0;
	if (size - at < 4)
		return tdat_page_fail(pl, pg, at, e,
		    "record header runs past the page commit");
	w = tdat_rd32(d + at, pl->big);
	if (pl->big) {
		type = w >> 27;
		delta = w & TDAT_RB_TS_MASK;
	} else {
		type = w & 0x1f;
		delta = w >> 5;
	}
	it->at = at;
	it->type_len = type;
	it->delta = delta;
	at += 4;
	if ((int)type == pl->padding_type) {
		len = size - at >= 4 ? tdat_rd32(d + at, pl->big) : 0;
		it->kind = TDAT_ITEM_PADDING;
		it->size = len;
		pg->ts += delta;
		it->rest = delta == 0 || len > size - at;
		pg->pos = it->rest ? size : at + len;
		return 1;
	}
	if ((int)type == pl->extend_type || (int)type == pl->stamp_type) {
		if (size - at < 4)
			return tdat_page_fail(pl, pg, it->at, e,
			    "time extend runs past the page commit");
		it->ext = (uint64_t)tdat_rd32(d + at, pl->big) <<
		    TDAT_RB_TS_SHIFT;
		it->ext += delta;
		pg->pos = at + 4;
		if ((int)type == pl->stamp_type) {
			it->kind = TDAT_ITEM_STAMP;
			pg->ts = it->ext | (pg->ts & TDAT_RB_TS_MSB);
		} else {
			it->kind = TDAT_ITEM_EXTEND;
			pg->ts += it->ext;
		}
		return 1;
	}
	if (type == 0) {
		if (size - at < 4)
			return tdat_page_fail(pl, pg, it->at, e,
			    "record length runs past the page commit");
		len = tdat_rd32(d + at, pl->big);
		if (len < 4)
			return tdat_page_fail(pl, pg, it->at, e,
			    "record length %u is too small", len);
		len = ((len - 4) + 3) & ~3u;
		at += 4;
	} else if (type > 28) {
		return tdat_page_fail(pl, pg, it->at, e,
		    "unknown record type %u", type);
	} else
		len = type * 4;
	if (len > size - at)
		return tdat_page_fail(pl, pg, it->at, e,
		    "record of %u bytes runs past the page commit", len);
	pg->ts += delta;
	it->kind = TDAT_ITEM_DATA;
	it->data = d + at;
	it->size = len;
	pg->pos = at + len;
	return 1;
}

/*
 * The item at d in the fast walk of a little-endian page (the checker's;
 * at least 8 bytes readable): 1 a record of *len bytes after a *hdr-byte
 * header, *delta its time delta; 2 a time extend or stamp (when ext_ok),
 * *ts moved and 8 bytes long; 0 anything else, for the general walk.
 */
static inline int
tdat_fast_item(const unsigned char *d, int ext_ok, uint32_t *len,
    uint32_t *hdr, uint32_t *delta, uint64_t *ts)
{
	uint32_t word = tdat_rd32(d, 0), type = word & 0x1f;
	uint64_t x;

	*delta = word >> 5;
	if (type - 1 < 28) {
		*len = type * 4;
		*hdr = 4;
		return 1;
	}
	if (type == 0) {
		if ((*len = tdat_rd32(d + 4, 0)) < 4)
			return 0;
		*len = ((*len - 4) + 3) & ~3u;
		*hdr = 8;
		return 1;
	}
	if ((type != TDAT_RB_EXTEND && type != TDAT_RB_STAMP) || !ext_ok)
		return 0;
	x = ((uint64_t)tdat_rd32(d + 4, 0) << TDAT_RB_TS_SHIFT) + *delta;
	if (type == TDAT_RB_STAMP)
		*ts = x | (*ts & TDAT_RB_TS_MSB);
	else if (*ts + x < *ts)
		return 0;
	else
		*ts += x;
	return 2;
}

/* ---------------------------------------------------------------------
 * The encoder (encode.c): pages built record by record as the kernel
 * lays them out, a time extend where a delta overflows 27 bits, a gap no
 * time extend holds starting a page, the count of lost events after the
 * commit when there is room for it.
 */
struct tdat_ring_enc {
	struct tdat_page_layout pl;
	unsigned char *page;	/* page_size bytes, the caller's */
	uint32_t page_size, used;
	uint64_t page_ts, last_ts, flags;
	long long lost;
	int open;		/* a page is started */
};

void tdat_ring_enc_init(struct tdat_ring_enc *, const struct tdat_page_layout *,
    unsigned char *page, uint32_t page_size);
/* Whether a record of size bytes fits an empty page. */
int tdat_ring_enc_fits(const struct tdat_ring_enc *, uint32_t size);
/* Whether the open page must be finished before a record of size bytes
 * at ts (missed: lost events came before it). */
int tdat_ring_enc_full(const struct tdat_ring_enc *, uint32_t size,
    uint64_t ts, int missed);
/* Start a page at ts; lost >= 0 the events lost before it, -1 unknown. */
void tdat_ring_enc_start(struct tdat_ring_enc *, uint64_t ts, int missed,
    long long lost);
/* Add a record to the open page (tdat_ring_enc_full() said it fits);
 * returns where its data now lies, size rounded up to 4 bytes. */
unsigned char *tdat_ring_enc_add(struct tdat_ring_enc *, const void *data,
    uint32_t size, uint64_t ts);
/* Close the open page into dst (page_size bytes; may be the page). */
void tdat_ring_enc_finish(struct tdat_ring_enc *, unsigned char *dst);

/* ---------------------------------------------------------------------
 * What a record of an event must hold (shape.c), from its format as
 * tdat-verify reads it: at least min_size bytes, and each __data_loc or
 * __rel_loc field inside the record (a char[] one NUL-terminated in it).
 * tdat_shape_of(): 0, or -1 out of memory; free sh->loc.
 */
struct tdat_loc {
	uint32_t off;		/* of the 4-byte locator */
	int rel;		/* __rel_loc: relative to the locator's end */
	int str;		/* char[]: a NUL-terminated string */
	char name[32];
};

struct tdat_shape {
	uint32_t min_size;	/* end of the last fixed field */
	uint32_t nloc;
	struct tdat_loc *loc;
};

struct tdat_event;
int tdat_shape_of(const struct tdat_event *, struct tdat_shape *);

/* What tdat_shape_test() finds in a record. */
enum {
	TDAT_SHAPE_OK,
	TDAT_SHAPE_SHORT,	/* shorter than min_size */
	TDAT_SHAPE_OUTSIDE,	/* a __data_loc field outside the record */
	TDAT_SHAPE_UNTERMINATED,	/* a string not terminated in it */
	TDAT_SHAPE_LONG_STRING,	/* (a warning) a string ending after its
				 * stated length: some modules store
				 * strlen(), the NUL after it */
};

/*
 * The first thing wrong in a record of size bytes at d, from its
 * dynamic field *i on (start at 0); on a field, *i is its index, and
 * *off, *len what its locator says.  Call again from *i + 1 after a
 * TDAT_SHAPE_LONG_STRING.
 */
int tdat_shape_test(const struct tdat_shape *sh, const unsigned char *d,
    uint32_t size, int big, uint32_t *i, uint32_t *off, uint32_t *len);
/* NULL when a record holds its shape (warnings aside), else what is wrong. */
const char *tdat_shape_check(const struct tdat_shape *, const unsigned char *d,
    uint32_t size, int big);

/* ---------------------------------------------------------------------
 * The event table (events.c): events by id, each with its name and the
 * shape of its records.  The first event of an id holds it.
 */
struct tdat_ring_ev {
	char name[64];		/* "system:event", made visible */
	struct tdat_shape sh;
};

struct tdat_ring_events {
	uint32_t *idx;		/* idx[id]: 1 + the index in ev, or 0 */
	uint32_t nidx;		/* ids below it */
	struct tdat_ring_ev *ev;
	size_t nev;
	/* fast[id], for the page checker's walk of sound records (check.c):
	 * TDAT_RING_FAST_NONE no event; else the event's index in ev in bits
	 * 32-62 and, in bits 0-31, its min_size, or for an event with
	 * dynamic fields TDAT_RING_FAST_LOC | TDAT_RING_FAST_NONE: a record
	 * is shorter than bits 0-31 say unless it needs no more reading */
	uint64_t *fast;
};

#define TDAT_RING_FAST_NONE	0xffffffffull	/* no record is that long */

#define TDAT_RING_FAST_LOC	(1ull << 63)

/*
 * Add an event of this id and name, taking sh (freed on any return but
 * 0): 0 added, *ix its index; 1 the id is another event's, *ix that
 * one's; 2 no record can name the id (16 bits); -1 out of memory.
 */
int tdat_ring_events_add(struct tdat_ring_events *, uint32_t id,
    const char *name, struct tdat_shape *sh, size_t *ix);
void tdat_ring_events_free(struct tdat_ring_events *);

/* The event a record's id names, or NULL. */
static inline const struct tdat_ring_ev *
tdat_ring_event(const struct tdat_ring_events *t, uint32_t id)
{
	if (id >= t->nidx || t->idx[id] == 0)
		return NULL;
	return &t->ev[t->idx[id] - 1];
}

/* ---------------------------------------------------------------------
 * The page checker (check.c): the pages of one CPU, in order, against
 * the decoder, the clock and the event table; each thing wrong is an
 * issue handed to a callback, whose words are the caller's.
 */
enum {
	/* errors: each ends the page */
	TDAT_RI_PAGE_COMMIT,	/* msg: the decoder's */
	TDAT_RI_PAGE_BACK,	/* the page's stamp (ts) before last */
	TDAT_RI_ITEM,		/* msg: the decoder's */
	TDAT_RI_TIME_WRAP,	/* a record's delta wraps the clock */
	TDAT_RI_TIME_BACK,	/* a record's ts before last */
	TDAT_RI_PADDING_PAST,	/* a padding of size runs past the commit */
	TDAT_RI_PADDING_LEN,	/* a padding length (size) is malformed */
	TDAT_RI_EXTEND_WRAP,	/* a time extend (ext) wraps the clock */
	TDAT_RI_NO_ID,		/* a record of size < 2 bytes */
	TDAT_RI_NO_FORMAT,	/* id has no event */
	TDAT_RI_SHORT,		/* a record of size bytes, shorter than ev's */
	TDAT_RI_OUTSIDE,	/* ev's field loc: len at off, outside */
	TDAT_RI_UNTERMINATED,	/* ev's string field loc not terminated */
	/* warnings */
	TDAT_RI_WARNINGS,
	TDAT_RI_PAGE_FLAGS = TDAT_RI_WARNINGS,	/* unknown flags */
	TDAT_RI_MISSED,		/* lost events (lost; -1 unknown) */
	TDAT_RI_EXTEND_TWICE,	/* two time extends in a row */
	TDAT_RI_EXTEND_END,	/* a time extend ends the records */
	TDAT_RI_LONG_STRING,	/* ev's string field loc ends after len */
};

struct tdat_ring_issue {
	int what;		/* TDAT_RI_* */
	uint64_t off;		/* where: the page, an item, or a chunk */
	int in_record;		/* about a record (counted in records) */
	const char *msg;	/* PAGE_COMMIT, ITEM */
	const struct tdat_err *err;	/* the same as an error */
	uint64_t ts, last, ext, flags;
	long long lost;
	uint32_t size, commit, id, off_in, len;
	const struct tdat_ring_ev *ev;
	const struct tdat_loc *loc;
};

struct tdat_ring_check {
	const struct tdat_page_layout *pl;
	const struct tdat_ring_events *events;
	/* an issue: nonzero stops the page and the CPU's check; an error
	 * in the page's header, an item or the clock ends the page anyway,
	 * the walk goes on after one in a record or a padding on 0 */
	int (*issue)(void *arg, const struct tdat_ring_issue *);
	void *arg;
	unsigned char *seen;	/* seen[ix] = 1 for an event met, or NULL */
	/* an id not in events: the event, added to it now, or NULL (if set;
	 * the gate reads a format file when a record first names its id) */
	const struct tdat_ring_ev *(*miss)(void *arg, uint32_t id);
	/* the CPU's clock: its last record (tdat_ring_check_cpu() resets) */
	uint64_t last_ts;
	int have_ts;
	/* counts */
	uint64_t pages;
	uint64_t records;	/* records met (the damaged one too) */
};

/* A new CPU: its clock starts again. */
static inline void
tdat_ring_check_cpu(struct tdat_ring_check *c)
{
	c->last_ts = 0;
	c->have_ts = 0;
}

/* Check a page (pg->p, page_size, off, chunk_pos set): 0, or the
 * callback's nonzero answer. */
int tdat_ring_check_page(struct tdat_ring_check *, struct tdat_page *pg);

/* ---------------------------------------------------------------------
 * The checker as a gate (gate.c), for what copies pages or records and
 * must write nothing tdat-verify flags: tdat-cat --salvage drops what it
 * stops, the writers and the repacker refuse their input.
 */
struct tdat_file;
struct tdat_ring_gate;

/* A gate for f's pages and records (f's layout and event table). */
int tdat_ring_gate_open(const struct tdat_file *f,
    struct tdat_ring_gate **out, struct tdat_err *e);
/* A new CPU: its clock starts again. */
void tdat_ring_gate_cpu(struct tdat_ring_gate *);
/* A page: 0 when it passes, else < 0 with *e naming its first error (the
 * clock then stays as before it); *nrec (if not NULL) its records before
 * that error. */
int tdat_ring_gate_page(struct tdat_ring_gate *, struct tdat_page *pg,
    uint64_t *nrec, struct tdat_err *e);
/* A record (size bytes at d, as a page holds it): NULL when it passes,
 * else what is wrong. */
const char *tdat_ring_gate_record(struct tdat_ring_gate *,
    const unsigned char *d, uint32_t size);
void tdat_ring_gate_close(struct tdat_ring_gate *);

/* ---------------------------------------------------------------------
 * Inputs merged by time, the one rule of the driver (lib/merge/run.c)
 * and the repacker (lib/merge/repack.c): whether a record at ts of rank
 * comes before the best so far.  Ties go to the lower rank (the driver
 * ranks each input's top buffer by input, its other buffers after every
 * top buffer), then to the candidate met first.
 */
static inline int
tdat_merge_before(uint64_t ts, size_t rank, uint64_t best_ts, size_t best_rank)
{
	return ts < best_ts || (ts == best_ts && rank < best_rank);
}

#endif
