/*
 * tdat-common.h: what every layer uses (lib/common/): errors as values,
 * growable string buffers, numbers read and written in a file's byte
 * order, numbers as text.
 */
#ifndef TDAT_COMMON_H
#define TDAT_COMMON_H

#include "tdat.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void tdat_vis(char *dst, size_t n, const char *src);
int tdat_fail(struct tdat_err *e, int code, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int tdat_fail_nooff(struct tdat_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Several inputs: put the input's path (and the offset) in front of a
 * message, so that it names its file. */
void tdat_err_name(struct tdat_err *e, const char *path);
/*
 * How the calls that work over several open files begin (lib/select/select.c,
 * lib/merge/repack.c): a zeroed handle of size bytes and, in *in, its array of
 * n (at least one) zeroed entries of insize bytes, each of which begins
 * with a struct tdat_file *, set to files[i].  NULL, *e filled, without
 * memory.
 */
void *tdat_handle_new(size_t size, struct tdat_file *const *files,
    size_t n, size_t insize, void **in, struct tdat_err *e);

/*
 * n bytes for a large buffer that is filled through (a decompressed
 * kallsyms, the symbol table), on 2 MB pages where the kernel gives them
 * (MADV_HUGEPAGE): one page fault a 2 MB instead of 512.  free() and
 * realloc() take it as malloc()'s; NULL without memory.
 */
void *tdat_malloc_big(size_t n);

/* A growable string buffer. */
struct tdat_sbuf {
	char *p;
	size_t len, cap;
	int oom;
	int full;		/* it would have passed max: refused, as oom */
	size_t max;		/* 0: no bound (tdat_sb_limit) */
};
/* An event's text stops there: a record or print format that makes more
 * is damaged (real ones make kilobytes), and memory stays bounded. */
#define TDAT_TEXT_MAX	((size_t)4 << 20)
void tdat_sb_init(struct tdat_sbuf *);
/* Text past max bytes (with its NUL) is refused: the buffer is full, and
 * oom until tdat_sb_reset(), which takes back a full one (not one that
 * malloc failed).  Inline: the text outputs set it for every record. */
static inline void
tdat_sb_limit(struct tdat_sbuf *b, size_t max)
{
	b->max = max;
}
void tdat_sb_free(struct tdat_sbuf *);
void tdat_sb_reset(struct tdat_sbuf *);
void tdat_sb_putc(struct tdat_sbuf *, int c);
void tdat_sb_add(struct tdat_sbuf *, const char *s, size_t n);
void tdat_sb_puts(struct tdat_sbuf *, const char *s);
void tdat_sb_printf(struct tdat_sbuf *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
const char *tdat_sb_str(struct tdat_sbuf *);

/* The NUL-terminated string at *p inside [*p, end), moving *p past it;
 * NULL (and *p unchanged) when no NUL ends it.  *len gets its length. */
const char *tdat_cstr(const unsigned char **p, const unsigned char *end,
    size_t *len);

/* Byte order helpers: read an n-byte unsigned number in the file's order. */
uint64_t tdat_get(const void *p, int n, int big);

/* An n-byte integer in byte order big (n 1, 2, 4 or 8 taken whole, other
 * sizes byte by byte): tdat_get() for the hot paths. */
static inline uint64_t
tdat_getn(const void *vp, int n, int big)
{
	const unsigned char *p = vp;
	uint64_t v = 0;
	int i;

	if (big) {
		for (i = 0; i < n; i++)
			v = v << 8 | p[i];
		return v;
	}
	switch (n) {
	case 1:
		return p[0];
	case 2:
		return (uint64_t)p[0] | (uint64_t)p[1] << 8;
	case 4:
		return (uint64_t)p[0] | (uint64_t)p[1] << 8 |
		    (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
	case 8:
		memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		v = __builtin_bswap64(v);
#endif
		return v;
	}
	for (i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* v, an integer of size bytes, sign-extended to 64 bits. */
static inline int64_t
tdat_sext(uint64_t v, int size)
{
	if (size <= 0 || size >= 8)
		return (int64_t)v;
	if (v & (1ULL << (size * 8 - 1)))
		v |= ~0ULL << (size * 8);
	return (int64_t)v;
}
uint16_t tdat_get16(const void *p, int big);
uint32_t tdat_get32(const void *p, int big);
uint64_t tdat_get64(const void *p, int big);
/* Store v as an n-byte number in the file's order (the inverse of tdat_get). */
void tdat_put(void *p, uint64_t v, int n, int big);
/* The same reads without a call, for loops that run for every record. */
static inline uint16_t
tdat_rd16(const unsigned char *p, int big)
{
	uint16_t v;

	memcpy(&v, p, 2);
	if (big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		v = __builtin_bswap16(v);
	return v;
}

static inline uint32_t
tdat_rd32(const unsigned char *p, int big)
{
	uint32_t v;

	memcpy(&v, p, 4);
	if (big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		v = __builtin_bswap32(v);
	return v;
}


/* Numbers as text, two digits at a time: "00".."99" and "00".."ff"
 * (lib/common/common.c), for the printers' hot paths. */
extern const char tdat_dec2[201], tdat_hex2[513];

/* The decimal digits of v ending at end (20 bytes of room before it);
 * returns their start. */
static inline char *
tdat_udec_digits(char *end, uint64_t v)
{
	char *p = end;
	uint32_t w;

	while (v >= 100000000) {
		/* eight digits at a time in 32 bits */
		w = (uint32_t)(v % 100000000);
		v /= 100000000;
		memcpy(p - 2, tdat_dec2 + 2 * (w % 100), 2);
		w /= 100;
		memcpy(p - 4, tdat_dec2 + 2 * (w % 100), 2);
		w /= 100;
		memcpy(p - 6, tdat_dec2 + 2 * (w % 100), 2);
		memcpy(p - 8, tdat_dec2 + 2 * (w / 100), 2);
		p -= 8;
	}
	w = (uint32_t)v;
	while (w >= 100) {
		p -= 2;
		memcpy(p, tdat_dec2 + 2 * (w % 100), 2);
		w /= 100;
	}
	if (w >= 10) {
		p -= 2;
		memcpy(p, tdat_dec2 + 2 * w, 2);
	} else
		*--p = (char)('0' + w);
	return p;
}

/* The number of decimal digits of v (1 for 0): with tdat_udec_digits()
 * at p + tdat_udec_len(v), the digits go straight where they belong,
 * with no copy of a scratch buffer (whose narrow stores a wide load then
 * waits on). */
static inline int
tdat_udec_len(uint64_t v)
{
	static const uint64_t p10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL,
		1000000ULL, 10000000ULL, 100000000ULL, 1000000000ULL,
		10000000000ULL, 100000000000ULL, 1000000000000ULL,
		10000000000000ULL, 100000000000000ULL, 1000000000000000ULL,
		10000000000000000ULL, 100000000000000000ULL,
		1000000000000000000ULL, 10000000000000000000ULL,
	};
	/* floor(log10(2) * bits) digits, or one more */
	int n = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12;

	return n + (v >= p10[n]) + (v == 0);
}

/* The lowercase hex digits of v (no prefix) ending at end (16 bytes of
 * room before it); returns their start. */
static inline char *
tdat_hex_digits(char *end, uint64_t v)
{
	char *p = end;

	while (v >= 16) {
		p -= 2;
		memcpy(p, tdat_hex2 + 2 * (v & 255), 2);
		v >>= 8;
	}
	if (v || p == end)
		*--p = tdat_hex2[2 * v + 1];
	return p;
}

/* How many hex digits v has (1 for 0). */
static inline int
tdat_hex_len(uint64_t v)
{
	return (64 - __builtin_clzll(v | 1) + 3) >> 2;
}

/* The 8 lowercase hex digits of x as 8 bytes in memory order, the highest
 * digit first: each nibble spread to its own byte in three steps, then
 * '0' or 'a' - 10 added to all eight at once (no loop, no table). */
static inline uint64_t
tdat_hex8(uint32_t x)
{
	uint64_t v = x, ge10;

	v = (v | v << 16) & 0x0000ffff0000ffffULL;
	v = (v | v << 8) & 0x00ff00ff00ff00ffULL;
	v = (v | v << 4) & 0x0f0f0f0f0f0f0f0fULL;	/* nibble i in byte i */
	ge10 = (v + 0x0606060606060606ULL) >> 4 & 0x0101010101010101ULL;
	v += 0x3030303030303030ULL + ge10 * ('a' - '0' - 10);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap64(v);	/* byte 0 (first) the highest */
#else
	return v;
#endif
}

/* The last n (1..8) digits of tdat_hex8()'s word to w, the 8 - n bytes
 * after them left undefined: the word moved by whole bytes. */
static inline void
tdat_hex8_put(char *w, uint64_t word, int n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	word >>= 8 * (8 - n);
#else
	word <<= 8 * (8 - n);
#endif
	memcpy(w, &word, 8);
}

/* The tdat_hex_len(v) lowercase hex digits of v at w; returns their end.
 * Stores 16 bytes at most from w (the bytes past the end undefined), so
 * no loop over the digits: one or two 8-digit words. */
static inline __attribute__((always_inline)) char *
tdat_hex_at(char *w, uint64_t v)
{
	int n = tdat_hex_len(v);
	uint64_t lo;

	if (n <= 8) {
		tdat_hex8_put(w, tdat_hex8((uint32_t)v), n);
		return w + n;
	}
	if (n <= 10)	/* the high 1 or 2 digits from the table (the byte
			 * after one digit is the first of the low 8) */
		memcpy(w, tdat_hex2 + 2 * (v >> 32) + (10 - n), 2);
	else
		tdat_hex8_put(w, tdat_hex8((uint32_t)(v >> 32)), n - 8);
	lo = tdat_hex8((uint32_t)v);
	memcpy(w + n - 8, &lo, 8);
	return w + n;
}

/* Length of the well-formed UTF-8 sequence at p (n bytes left, n > 0),
 * or 0 (lib/common/common.c). */
size_t tdat_utf8_len(const unsigned char *p, size_t n);
/* Whether s[0..n) is well-formed UTF-8. */
int tdat_utf8_ok(const unsigned char *s, size_t n);

/*
 * The JSON rules of every JSON output (lib/common/jsonc.c; the json-c
 * objects themselves, tdat_json_string() and tdat_json_u64(), are
 * declared in tdat.h).  TDAT_JSON_SAFE: the largest integer a double
 * holds exactly along with its neighbours; an integer past it in
 * magnitude is written as a string of its decimal digits.
 */
#define TDAT_JSON_SAFE	((1ULL << 53) - 1)
/* Append s[0..n) to b as valid UTF-8 (bad bytes become U+FFFD); returns
 * the number of bytes replaced. */
size_t tdat_json_utf8(struct tdat_sbuf *b, const void *s, size_t n);

#endif
