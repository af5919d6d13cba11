/*
 * pages.c: the pages of one CPU of one buffer, from whatever format
 * provides them (tdat_file.page_ops; NULL is trace.dat, formats/tracedat.c).
 *
 * The format hands out windows: whole pages, then a tail of readable
 * bytes.  tdat_pages_next() splits them into pages and tells how many
 * bytes are readable from each page to the end of the window and its
 * tail; tdat_pages_window() passes windows on whole (the writer copies
 * them).  A damaged piece is an error the caller may go on after.
 *
 * tdat_pages_seek_ts() skips the pages before a time without reading
 * them: it bisects the format's units (raw pages, or chunks) by the time
 * stamps of their page headers.
 */
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"

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
	ps->ops = f->page_ops ? f->page_ops : &tdat_tracedat_pages;
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
 * (a page whose header is damaged ends the walk).
 */
static int
last_below(const struct seek *k, size_t pos, size_t *at)
{
	const struct tdat_window *w = &k->ps->w;
	struct tdat_page pg;
	struct tdat_err scratch;
	int found = 0;

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
		if (k->conv(k->arg, pg.stamp) >= k->ts)
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
 * records at or after it, the pages before it none.
 */
static int
probe(const struct seek *k, uint64_t u)
{
	struct tdat_pages *ps = k->ps;
	struct tdat_err scratch;
	size_t at;

	ps->done = 0;
	if (ps->ops->seek(ps->st, u, 1, &scratch) < 0 ||
	    fetch(ps, &scratch) <= 0)
		return -1;
	return last_below(k, 0, &at);
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
	uint64_t n, lo, hi, mid;
	size_t at;
	int rc, found = 0;

	if (ps->ops->units == NULL || ps->ops->seek == NULL ||
	    ps->loads > 0 || (n = ps->ops->units(ps->st)) == 0)
		return 0;
	/* The last unit whose first page with records is below ts, bisected
	 * in [lo, hi): found tells whether lo is such a unit. */
	lo = 0;
	hi = n;
	while (hi - lo > (found ? 1 : 0)) {
		mid = found ? lo + (hi - lo) / 2 : lo + (hi - lo - 1) / 2;
		if ((rc = probe(&k, mid)) < 0)
			return rewind_pages(ps, e);
		if (rc) {
			lo = mid;
			found = 1;
		} else
			hi = mid;
	}
	if (!found)
		return rewind_pages(ps, e);
	ps->done = 0;
	if ((rc = ps->ops->seek(ps->st, lo, 0, e)) < 0)
		return rc;
	if (fetch(ps, &scratch) <= 0 || !last_below(&k, 0, &at))
		return rewind_pages(ps, e);
	ps->pos = at;
	return 0;
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
tdat_pages_close(struct tdat_pages *ps)
{
	if (ps == NULL)
		return;
	ps->ops->close(ps->st);
	free(ps);
}
