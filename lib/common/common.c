/*
 * common.c: errors as values, string buffers and byte-order helpers.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tdat-int.h"

const char tdat_dec2[201] =
    "00010203040506070809101112131415161718192021222324"
    "25262728293031323334353637383940414243444546474849"
    "50515253545556575859606162636465666768697071727374"
    "75767778798081828384858687888990919293949596979899";

const char tdat_hex2[513] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
    "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
    "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/* Printable copy of a name from a file, cut to n - 1 bytes: control
 * bytes become '?' (dst may be src). */
void
tdat_vis(char *dst, size_t n, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < n && src[i]; i++)
		dst[i] = (unsigned char)src[i] < 0x20 || src[i] == 0x7f ? '?' :
		    src[i];
	dst[i] = '\0';
}

int
tdat_fail(struct tdat_err *e, int code, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return code;
	e->code = code;
	e->has_off = 1;
	e->off = off;
	e->named = 0;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

int
tdat_fail_nooff(struct tdat_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return code;
	e->code = code;
	e->has_off = 0;
	e->off = 0;
	e->named = 0;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

void *
tdat_handle_new(size_t size, struct tdat_file *const *files, size_t n,
    size_t insize, void **in, struct tdat_err *e)
{
	void *h;
	size_t i;

	*in = NULL;
	if ((h = calloc(1, size)) == NULL ||
	    (*in = calloc(n ? n : 1, insize)) == NULL) {
		free(h);
		tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		return NULL;
	}
	for (i = 0; i < n; i++)
		memcpy((char *)*in + i * insize, &files[i], sizeof(files[i]));
	return h;
}

int
tdat_exit_status(int code)
{
	if (code == 0)
		return 0;
	if (code == TDAT_ECORRUPT || code == TDAT_EUNSUP)
		return 1;
	return 2;
}

void
tdat_sb_init(struct tdat_sbuf *b)
{
	memset(b, 0, sizeof(*b));
}

void
tdat_sb_free(struct tdat_sbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void
tdat_sb_reset(struct tdat_sbuf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
	if (b->full)
		b->full = b->oom = 0;
}

static int
sb_grow(struct tdat_sbuf *b, size_t need)
{
	size_t cap;
	char *p;

	if (b->oom)
		return -1;
	if (b->len + need + 1 <= b->cap)
		return 0;
	if (b->max && (need > b->max || b->len + need + 1 > b->max)) {
		b->full = b->oom = 1;
		return -1;
	}
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + need + 1)
		cap *= 2;
	if (b->max && cap > b->max)
		cap = b->max;
	if ((p = realloc(b->p, cap)) == NULL) {
		b->oom = 1;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

void
tdat_sb_add(struct tdat_sbuf *b, const char *s, size_t n)
{
	if (sb_grow(b, n) < 0)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
tdat_sb_putc(struct tdat_sbuf *b, int c)
{
	if (sb_grow(b, 1) < 0)
		return;
	b->p[b->len++] = (char)c;
	b->p[b->len] = '\0';
}

void
tdat_sb_puts(struct tdat_sbuf *b, const char *s)
{
	tdat_sb_add(b, s, strlen(s));
}

void
tdat_sb_printf(struct tdat_sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb_grow(b, 64) < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		if (sb_grow(b, (size_t)n) < 0)
			return;
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

const char *
tdat_sb_str(struct tdat_sbuf *b)
{
	return b->p ? b->p : "";
}

const char *
tdat_cstr(const unsigned char **p, const unsigned char *end, size_t *len)
{
	const unsigned char *nul;
	const char *s = (const char *)*p;

	if (*p >= end || (nul = memchr(*p, 0, (size_t)(end - *p))) == NULL)
		return NULL;
	if (len)
		*len = (size_t)(nul - *p);
	*p = nul + 1;
	return s;
}

uint64_t
tdat_get(const void *p, int n, int big)
{
	const unsigned char *c = p;
	uint64_t v = 0;
	int i;

	if (big)
		for (i = 0; i < n; i++)
			v = v << 8 | c[i];
	else
		for (i = n - 1; i >= 0; i--)
			v = v << 8 | c[i];
	return v;
}

void
tdat_put(void *p, uint64_t v, int n, int big)
{
	unsigned char *c = p;
	int i;

	for (i = 0; i < n; i++)
		c[big ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

uint16_t
tdat_get16(const void *p, int big)
{
	return (uint16_t)tdat_get(p, 2, big);
}

uint32_t
tdat_get32(const void *p, int big)
{
	return (uint32_t)tdat_get(p, 4, big);
}

uint64_t
tdat_get64(const void *p, int big)
{
	return tdat_get(p, 8, big);
}

static int
cpu_ix_cmp(const void *a, const void *b)
{
	const struct tdat_cpu_ix *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

struct tdat_cpu_ix *
tdat_cpu_index(const struct tdat_buffer *b)
{
	struct tdat_cpu_ix *x;
	uint32_t i;

	if ((x = calloc((size_t)b->ncpu + 1, sizeof(*x))) == NULL)
		return NULL;
	for (i = 0; i < b->ncpu; i++) {
		x[i].id = b->cpu[i].id;
		x[i].i = i;
	}
	qsort(x, b->ncpu, sizeof(*x), cpu_ix_cmp);
	return x;
}

void
tdat_err_name(struct tdat_err *e, const char *path)
{
	char msg[2 * sizeof(e->msg) + 64];

	if (e->has_off)
		snprintf(msg, sizeof(msg), "%s: offset 0x%llx: %s", path,
		    (unsigned long long)e->off, e->msg);
	else
		snprintf(msg, sizeof(msg), "%s: %s", path, e->msg);
	memcpy(e->msg, msg, sizeof(e->msg) - 1);
	e->msg[sizeof(e->msg) - 1] = '\0';
	e->has_off = 0;
	e->named = 1;
}

size_t
tdat_utf8_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

int
tdat_utf8_ok(const unsigned char *s, size_t n)
{
	size_t i = 0, l;

	while (i < n) {
		if (s[i] < 0x80)
			i++;
		else if ((l = tdat_utf8_len(s + i, n - i)) != 0)
			i += l;
		else
			return 0;
	}
	return 1;
}

/* Large: filling 4 MB of fresh memory took 1024 page faults of about 3
 * us each on the 2-vCPU VM measured, 2 on 2 MB pages (0.5 ms). */
#define BIG_PAGE	((size_t)2 << 20)

void *
tdat_malloc_big(size_t n)
{
	void *p;
	size_t r;

	if (n < BIG_PAGE / 4)
		return malloc(n);
	r = (n + BIG_PAGE - 1) & ~(BIG_PAGE - 1);
	if (r < n || posix_memalign(&p, BIG_PAGE, r) != 0)
		return malloc(n);
#ifdef MADV_HUGEPAGE
	(void)madvise(p, r, MADV_HUGEPAGE);
#endif
	return p;
}
