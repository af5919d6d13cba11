/*
 * latency.c: which buffer of a trace holds a latency tracer's text.
 *
 * A latency tracer (trace-cmd record -p wakeup, irqsoff, ...) leaves text,
 * not ring-buffer pages: a v6 file holds it after its "latency  " tag, to
 * the end of the file; a v7 file in a BUFFER_TEXT section, compressed in
 * chunks or not; an LTT directory in info/latency.  Every format streams
 * it through its page operations (ci 0 of the buffer), in windows.
 */
#include <string.h>

#include "tdat-int.h"
#include "tdat-json.h"

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
/* The text as JSON Lines: {"latency":"LINE"} for each line. */

#define JSON_LINE_MAX	(1u << 20)	/* longer lines go in pieces */

static void
json_line(struct tdat_jw *w, const char *bname, const struct tdat_sbuf *l,
    int newline)
{
	tdat_jw_obj(w);
	if (bname[0]) {
		tdat_jw_key(w, "buffer");
		tdat_jw_cstr(w, bname);
	}
	tdat_jw_key(w, "latency");
	tdat_jw_str(w, l->p ? l->p : "", l->len);
	if (!newline) {
		tdat_jw_key(w, "newline");
		tdat_jw_bool(w, 0);
	}
	tdat_jw_end(w, '}');
	tdat_jw_nl(w);
}

int
tdat_json_latency(struct tdat_jw *w, struct tdat_file *f, int bi,
    struct tdat_err *e)
{
	const char *bname = f->buf[bi].name;
	struct tdat_sbuf l;
	struct tdat_pages *pg;
	struct tdat_window win;
	const unsigned char *p, *end, *nl;
	size_t k;
	int rc;

	if ((rc = tdat_pages_open(f, bi, 0, &pg, e)) < 0)
		return rc;
	tdat_sb_init(&l);
	while ((rc = tdat_pages_window(pg, &win, e)) > 0 && !w->err) {
		for (p = win.p, end = p + win.len; p < end; p = nl + 1) {
			nl = memchr(p, '\n', (size_t)(end - p));
			k = (size_t)((nl ? nl : end) - p);
			if (k > JSON_LINE_MAX - l.len)
				k = JSON_LINE_MAX - l.len;
			tdat_sb_add(&l, (const char *)p, k);
			if (l.len == JSON_LINE_MAX) {
				json_line(w, bname, &l, 0);
				tdat_sb_reset(&l);
				nl = p + k - 1;	/* go on after the piece */
				continue;
			}
			if (nl == NULL)
				break;	/* the line goes on in the next window */
			json_line(w, bname, &l, 1);
			tdat_sb_reset(&l);
		}
	}
	if (rc == 0 && l.len > 0)
		json_line(w, bname, &l, 0);
	if (rc == 0 && l.oom)
		rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	tdat_sb_free(&l);
	tdat_pages_close(pg);
	return rc;
}
