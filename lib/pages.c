/*
 * pages.c: the pages of one CPU of one buffer, from whatever format
 * provides them (tdat_file.page_ops; NULL is trace.dat, formats/tracedat.c).
 *
 * The format hands out windows: whole pages, then a tail of readable
 * bytes.  tdat_pages_next() splits them into pages and tells how many
 * bytes are readable from each page to the end of the window and its
 * tail; tdat_pages_window() passes windows on whole (the writer copies
 * them).  A damaged piece is an error the caller may go on after.
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
	if ((rc = ps->ops->next(ps->st, &ps->w, e)) < 0) {
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
