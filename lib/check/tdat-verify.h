/*
 * tdat-verify.h: ring-buffer pages walked item by item (lib/read/records.c),
 * the decoder the record reader and tdat-verify share, and the checker
 * behind tdat-verify (lib/check/verify.c).
 */
#ifndef TDAT_VERIFY_H
#define TDAT_VERIFY_H

#include <stdint.h>

struct tdat_page_layout;
struct tdat_err;
struct tdat_file;

/*
 * One ring-buffer page: its header, then struct ring_buffer_event items
 * up to the commit.  Fill p, page_size (at least the layout's data_off
 * + 4), off and chunk_pos, call tdat_page_init(), then tdat_page_next()
 * until it returns 0.  The reader and tdat-verify decode alike: what one
 * refuses, the other reports at the same offset.
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

/* Read the page header; a commit past the page is an error (the error's
 * offset: the page, or the chunk for compressed data). */
int tdat_page_init(const struct tdat_page_layout *, struct tdat_page *,
    struct tdat_err *e);
/* The next item: 1 and *it filled, 0 at the commit, < 0 on a damaged
 * item (the error's offset: the item's header, or the chunk). */
int tdat_page_next(const struct tdat_page_layout *, struct tdat_page *,
    struct tdat_page_item *it, struct tdat_err *e);
/* The file offset to name for position pos of a page's items. */
uint64_t tdat_page_where(const struct tdat_page_layout *,
    const struct tdat_page *, uint32_t pos);


/* tdat_verify() of a trace.dat file or "-" (lib/read/source.c calls it). */
int tdat_tracedat_verify(const char *path, const struct tdat_verify_opts *,
    struct tdat_verify_stats *st, struct tdat_err *e);
/* The same on a file already open (the fuzzers use it). */
int tdat_verify_file(struct tdat_file *, const struct tdat_verify_opts *,
    struct tdat_verify_stats *st, struct tdat_err *e);

#endif
