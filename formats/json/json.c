/*
 * json.c: the pieces every JSON output shares: a buffered streaming
 * writer whose values reach a reader of doubles exactly (see tdat-json.h;
 * the UTF-8 repair and the number rule are lib/common/jsonc.c's) and whose
 * string escaping is json-c's.  The entry
 * point, tdat_json_write(), is json-write.c's: the shapes (json-events.c,
 * json-meta.c) call this file, and none is called back.
 *
 * The writer streams because an event tree built with json-c per event
 * costs an allocation per value; here the only allocations are the output
 * buffer and one reused json-c string object, so memory does not grow
 * with the trace.
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "tdat-int.h"
#include "tdat-json.h"

/* A writer's buffer: to a stream, stdio copies up to its own buffer (64
 * KiB for tdat_out's) of each write, so the more at once the less copied;
 * a worker's block of text (tdat_jw.mem) stays small. */
#define JW_CHUNK	(1024 * 1024)
#define JW_MEM_CHUNK	(256 * 1024)
#define JC_FLAGS	(JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* ------------------------------------------------------------------ */
/* The streaming writer. */

int
tdat_jw_init(struct tdat_jw *w, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->cap = out ? JW_CHUNK : JW_MEM_CHUNK;
	w->buf = malloc(w->cap);
	w->js = json_object_new_string("");
	w->tmp = malloc(sizeof(*w->tmp));
	if (w->buf == NULL || w->js == NULL || w->tmp == NULL) {
		tdat_jw_free(w);
		return TDAT_ENOMEM;
	}
	tdat_sb_init(w->tmp);
	w->first[0] = 1;
	return 0;
}

void
tdat_jw_free(struct tdat_jw *w)
{
	free(w->buf);
	if (w->js)
		json_object_put(w->js);
	if (w->tmp) {
		tdat_sb_free(w->tmp);
		free(w->tmp);
	}
	w->buf = NULL;
	w->js = NULL;
	w->tmp = NULL;
}

/* n bytes to the output: out, or mem (a worker's block of text). */
static void
jw_write(struct tdat_jw *w, const char *s, size_t n)
{
	if (w->err)
		return;
	if (w->mem != NULL) {
		tdat_sb_add(w->mem, s, n);
		if (w->mem->oom)
			w->err = TDAT_ENOMEM;
	} else if (fwrite(s, 1, n, w->out) != n)
		w->err = TDAT_EIO;
}

int
tdat_jw_flush(struct tdat_jw *w)
{
	if (w->len)
		jw_write(w, w->buf, w->len);
	w->len = 0;
	return w->err;
}

static void
put_slow(struct tdat_jw *w, const char *s, size_t n)
{
	tdat_jw_flush(w);
	if (n > w->cap) {
		jw_write(w, s, n);
		return;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static inline void
put(struct tdat_jw *w, const char *s, size_t n)
{
	if (w->cap - w->len < n) {
		put_slow(w, s, n);
		return;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static inline void
putch(struct tdat_jw *w, char c)
{
	if (w->len == w->cap)
		tdat_jw_flush(w);
	w->buf[w->len++] = c;
}

/* Before a value or a key: the comma that separates it from the last. */
static inline void
sep(struct tdat_jw *w)
{
	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	if (!w->first[w->depth]) {
		putch(w, ',');
		if (w->lines_depth && w->depth == w->lines_depth)
			putch(w, '\n');
	}
	w->first[w->depth] = 0;
}

static void
open_(struct tdat_jw *w, char c)
{
	sep(w);
	putch(w, c);
	if (w->depth + 1 < TDAT_JW_DEPTH)
		w->depth++;
	w->first[w->depth] = 1;
}

void
tdat_jw_obj(struct tdat_jw *w)
{
	open_(w, '{');
}

void
tdat_jw_arr(struct tdat_jw *w)
{
	open_(w, '[');
}

void
tdat_jw_end(struct tdat_jw *w, int c)
{
	putch(w, (char)c);
	if (w->depth > 0)
		w->depth--;
}

void
tdat_jw_nl(struct tdat_jw *w)
{
	putch(w, '\n');
	if (w->depth == 0)
		w->first[0] = 1;
}

/* Bytes that are not UTF-8, without loss: {"hex":"..."}. */
static void
hex_object(struct tdat_jw *w, const unsigned char *s, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	char b[64];
	size_t i, k = 0;

	put(w, "{\"hex\":\"", 8);
	for (i = 0; i < n; i++) {
		b[k++] = hx[s[i] >> 4];
		b[k++] = hx[s[i] & 15];
		if (k == sizeof(b)) {
			put(w, b, k);
			k = 0;
		}
	}
	put(w, b, k);
	put(w, "\"}", 2);
}

/* Bytes a string may not hold as they are: 1 for '"', '\\', control
 * characters and 0x7f (left to json-c), 2 for bytes above 0x7f. */
static const unsigned char cls[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['"'] = 1, ['\\'] = 1, [0x7f] = 1,
	[0x80] = 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};

int
tdat_json_plain(const void *s, size_t n)
{
	const unsigned char *p = s;
	unsigned m = 0;
	size_t i;

	for (i = 0; i < n; i++)
		m |= cls[p[i]];
	return m == 0;
}

/* Write a JSON string: plain ASCII directly, anything else through json-c's
 * escaping.  Bytes that are not UTF-8 are either repaired (each bad byte
 * becomes U+FFFD: keys and display names) or, when exact, written as
 * {"hex":"..."}. */
static void
string(struct tdat_jw *w, const unsigned char *s, size_t n, int exact)
{
	const char *esc;
	size_t i, len;
	unsigned m = 0;
	int high;

	for (i = 0; i < n; i++)
		m |= cls[s[i]];
	high = (m & 2) != 0;
	if (m == 0) {
		putch(w, '"');
		put(w, (const char *)s, n);
		putch(w, '"');
		return;
	}
	if (high && exact && !tdat_utf8_ok(s, n)) {
		hex_object(w, s, n);
		return;
	}
	if (high && !exact) {
		tdat_sb_reset(w->tmp);
		tdat_json_utf8(w->tmp, s, n);
		if (w->tmp->oom) {
			w->err = TDAT_ENOMEM;
			return;
		}
		s = (const unsigned char *)(w->tmp->p ? w->tmp->p : "");
		n = w->tmp->len;
	}
	if (n > 0x7fffffff || json_object_set_string_len(w->js,
	    (const char *)s, (int)n) == 0) {
		w->err = TDAT_ENOMEM;
		return;
	}
	esc = json_object_to_json_string_length(w->js, JC_FLAGS, &len);
	if (esc == NULL) {
		w->err = TDAT_ENOMEM;
		return;
	}
	put(w, esc, len);
}

void
tdat_jw_key(struct tdat_jw *w, const char *key)
{
	sep(w);
	string(w, (const unsigned char *)key, strlen(key), 0);
	putch(w, ':');
	w->after_key = 1;
}

void
tdat_jw_qkey(struct tdat_jw *w, const char *q, size_t n)
{
	sep(w);
	put(w, q, n);
	w->after_key = 1;
}

int
tdat_json_quote(struct tdat_sbuf *b, const void *s, size_t n)
{
	struct json_object *o = tdat_json_string(s, n);
	const char *q;
	size_t len;

	if (o == NULL)
		return TDAT_ENOMEM;
	q = json_object_to_json_string_length(o, JC_FLAGS, &len);
	if (q)
		tdat_sb_add(b, q, len);
	json_object_put(o);
	return q == NULL || b->oom ? TDAT_ENOMEM : 0;
}

int
tdat_json_text(struct tdat_sbuf *b, const void *s, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	const unsigned char *p = s;
	size_t i;

	if (tdat_utf8_ok(p, n))
		return tdat_json_quote(b, s, n);
	tdat_sb_puts(b, "{\"hex\":\"");
	for (i = 0; i < n; i++) {
		tdat_sb_putc(b, hx[p[i] >> 4]);
		tdat_sb_putc(b, hx[p[i] & 15]);
	}
	tdat_sb_puts(b, "\"}");
	return b->oom ? TDAT_ENOMEM : 0;
}

void
tdat_jw_str(struct tdat_jw *w, const void *s, size_t n)
{
	sep(w);
	string(w, s, n, 1);
}

void
tdat_jw_name(struct tdat_jw *w, const void *s, size_t n)
{
	sep(w);
	string(w, s, n, 0);
}

void
tdat_jw_cstr(struct tdat_jw *w, const char *s)
{
	tdat_jw_str(w, s, strlen(s));
}


/* Put the n bytes at p, which lie in a buffer with at least PUTMAX
 * readable bytes from p: one fixed-size copy when the output has room. */
#define PUTMAX	24

static inline void
put_short(struct tdat_jw *w, const char *p, size_t n)
{
	if (w->cap - w->len >= PUTMAX) {
		memcpy(w->buf + w->len, p, PUTMAX);
		w->len += n;
	} else {
		put(w, p, n);
	}
}

/* Digits of a magnitude m (negative: with a minus), quoted when m is
 * beyond what a double holds exactly. */
static void
integer(struct tdat_jw *w, uint64_t m, int neg)
{
	char d[24 + PUTMAX], *p, *end = d + 23;
	int q = m > TDAT_JSON_SAFE;

	sep(w);
	if (m < 10 && !neg) {
		putch(w, (char)('0' + m));
		return;
	}
	*end = '"';
	p = tdat_udec_digits(end, m);
	if (neg)
		*--p = '-';
	if (q)
		*--p = '"';
	put_short(w, p, (size_t)(end + q - p));
}

void
tdat_jw_u64(struct tdat_jw *w, uint64_t v)
{
	integer(w, v, 0);
}

void
tdat_jw_i64(struct tdat_jw *w, int64_t v)
{
	integer(w, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
}

void
tdat_jw_hex(struct tdat_jw *w, uint64_t v)
{
	char d[24 + PUTMAX], *p = d + 24;

	sep(w);
	*--p = '"';
	p = tdat_hex_digits(p, v);	/* two digits a step */
	*--p = 'x';
	*--p = '0';
	*--p = '"';
	put_short(w, p, (size_t)(d + 24 - p));
}

void
tdat_jw_raw(struct tdat_jw *w, const char *s, size_t n)
{
	sep(w);
	put(w, s, n);
}

void
tdat_jw_null(struct tdat_jw *w)
{
	tdat_jw_raw(w, "null", 4);
}

void
tdat_jw_bool(struct tdat_jw *w, int v)
{
	if (v)
		tdat_jw_raw(w, "true", 4);
	else
		tdat_jw_raw(w, "false", 5);
}
