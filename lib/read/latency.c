/*
 * latency.c: which buffer of a trace holds a latency tracer's text, and
 * that text line by line.
 *
 * A latency tracer (trace-cmd record -p wakeup, irqsoff, ...) leaves text,
 * not ring-buffer pages: a v6 file holds it after its "latency  " tag, to
 * the end of the file; a v7 file in a BUFFER_TEXT section, compressed in
 * chunks or not; an LTT directory in info/latency.  Every format streams
 * it through its page operations (ci 0 of the buffer), in windows.
 */
#include <string.h>

#include "tdat-int.h"

int
tdat_latency_buffer(const struct tdat_file *f)
{
	size_t i;

	for (i = 0; i < f->nbuf; i++)
		if (f->buf[i].latency)
			return (int)i;
	return -1;
}

int
tdat_latency_top(const struct tdat_file *f)
{
	int i = tdat_latency_buffer(f);

	if (i < 0 || (!f->latency && f->buf[i].name[0] != '\0'))
		return -1;
	return i;
}

/* ------------------------------------------------------------------ */
/* The text line by line, for the outputs that give one line a value
 * (formats/json's JSON Lines, formats/table's latency.csv). */

int
tdat_latency_lines(struct tdat_file *f, int bi, size_t max,
    tdat_latency_line_fn fn, void *arg, struct tdat_err *e)
{
	struct tdat_sbuf l;
	struct tdat_pages *pg;
	struct tdat_window win;
	const unsigned char *p, *end, *nl;
	size_t k;
	int rc, stop = 0;

	if ((rc = tdat_pages_open(f, bi, 0, &pg, e)) < 0)
		return rc;
	tdat_sb_init(&l);
	while ((rc = tdat_pages_window(pg, &win, e)) > 0 && !stop) {
		for (p = win.p, end = p + win.len; p < end; p = nl + 1) {
			nl = memchr(p, '\n', (size_t)(end - p));
			k = (size_t)((nl ? nl : end) - p);
			if (k > max - l.len)
				k = max - l.len;
			tdat_sb_add(&l, (const char *)p, k);
			if (l.len == max) {
				stop = fn(arg, l.p ? l.p : "", l.len, 0);
				tdat_sb_reset(&l);
				nl = p + k - 1;	/* go on after the piece */
				continue;
			}
			if (nl == NULL)
				break;	/* the line goes on in the next window */
			stop = fn(arg, l.p ? l.p : "", l.len, 1);
			tdat_sb_reset(&l);
		}
	}
	if (rc > 0)
		rc = 0;		/* fn stopped the walk */
	else if (rc == 0) {
		if (l.len > 0)
			fn(arg, l.p ? l.p : "", l.len, 0);
		if (l.oom)
			rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	tdat_sb_free(&l);
	tdat_pages_close(pg);
	return rc;
}
