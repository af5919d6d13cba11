/*
 * tdat-num.h: numbers as text for the outputs' hot paths (tdat-to-json's
 * fast line first), eight digits at a time in one 64-bit register (no
 * division chain, no table):
 * the digits are made in place, most significant in the lowest byte, and
 * stored with one 8-byte store.  Each writer may store up to 8 bytes past
 * the end it returns (its caller leaves that room; what lies there is
 * written over next).  The bytes are those of tdat_udec_digits() and
 * tdat_hex_digits() (t/unit/test_json.c checks).
 */
#ifndef TDAT_NUM_H
#define TDAT_NUM_H

#include <stdint.h>
#include <string.h>

#define JN_ZEROS	UINT64_C(0x3030303030303030)	/* "00000000" */

/* The 8 bytes of t at p, its lowest byte first. */
static inline void
jn_store(char *p, uint64_t t)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	t = __builtin_bswap64(t);
#endif
	memcpy(p, &t, 8);
}

/* The eight decimal digits of v < 10^8 (leading zeros kept), as byte
 * values 0..9, the first digit in the lowest byte: v split in halves of
 * four digits, each half in pairs, each pair in digits, every lane at
 * once (x * 10486 >> 20 is x / 100 below 10^4, x * 103 >> 10 is x / 10
 * below 100). */
static inline uint64_t
jn_dec8(uint32_t v)
{
	uint64_t y = (v / 10000) | (uint64_t)(v % 10000) << 32, z;

	z = (y * 10486 >> 20) & UINT64_C(0x0000007f0000007f);
	y = (y - z * 100) << 16 | z;
	z = (y * 103 >> 10) & UINT64_C(0x000f000f000f000f);
	return (y - z * 10) << 8 | z;
}

/* The digits of 0 < v < 10^8 without leading zeros at p; returns the
 * end. */
static inline char *
jn_dec_short(char *p, uint32_t v)
{
	uint64_t y = jn_dec8(v);
	int z = __builtin_ctzll(y) & 56;	/* bits of the leading zeros */

	y = y >> z | JN_ZEROS >> z;
	jn_store(p, y);
	return p + 8 - z / 8;
}

/* Exactly eight digits of v < 10^8 at p. */
static inline char *
jn_dec_full(char *p, uint32_t v)
{
	uint64_t y = jn_dec8(v) | JN_ZEROS;

	jn_store(p, y);
	return p + 8;
}

/* The decimal digits of v at p (20 bytes of room and 8 more); returns
 * the end. */
static inline char *
jn_u64(char *p, uint64_t v)
{
	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	if (v < 100000000)
		return jn_dec_short(p, (uint32_t)v);
	if (v < UINT64_C(10000000000000000)) {
		p = jn_dec_short(p, (uint32_t)(v / 100000000));
		return jn_dec_full(p, (uint32_t)(v % 100000000));
	}
	p = jn_dec_short(p, (uint32_t)(v / UINT64_C(10000000000000000)));
	v %= UINT64_C(10000000000000000);
	p = jn_dec_full(p, (uint32_t)(v / 100000000));
	return jn_dec_full(p, (uint32_t)(v % 100000000));
}

/* The digits of v's part above its last eight kept from the last number
 * jn_u64_hi() wrote (0 < hi < 10^8): numbers written one after another,
 * timestamps, share it. */
struct jn_hi {
	uint32_t hi;		/* 0: none */
	int n;			/* its digits */
	uint64_t text;		/* them, as jn_store() takes them */
};

/* jn_u64_hi()'s digits of hi (0 < hi < 10^8) into h; kept out of line:
 * hi changes seldom. */
static __attribute__((noinline, unused)) void
jn_hi_set(struct jn_hi *h, uint32_t hi)
{
	uint64_t y = jn_dec8(hi);
	int z = __builtin_ctzll(y) & 56;

	h->text = y >> z | JN_ZEROS >> z;
	h->n = 8 - z / 8;
	h->hi = hi;
}

/* jn_u64() through h, made in its caller (no call): for the hottest
 * paths. */
static inline __attribute__((always_inline)) char *
jn_u64_hi_in(char *p, uint64_t v, struct jn_hi *h)
{
	uint32_t hi;

	if (v < 100000000 || v >= UINT64_C(10000000000000000))
		return jn_u64(p, v);
	hi = (uint32_t)(v / 100000000);
	if (hi != h->hi)
		jn_hi_set(h, hi);
	jn_store(p, h->text);
	return jn_dec_full(p + h->n, (uint32_t)(v - (uint64_t)hi * 100000000));
}

/* jn_u64() through h, inlined where the compiler sees fit. */
static inline char *
jn_u64_hi(char *p, uint64_t v, struct jn_hi *h)
{
	return jn_u64_hi_in(p, v, h);
}

/* The eight hex digits of v, lowercase ASCII, the first in the lowest
 * byte: nibbles spread one a byte, then 'a'..'f' where a nibble is 10 or
 * more. */
static inline uint64_t
jn_hex8(uint32_t v)
{
	uint64_t t = (uint64_t)(v >> 16) | (uint64_t)(v & 0xffff) << 32;

	t = (t & UINT64_C(0x0000ff000000ff00)) >> 8 |
	    (t & UINT64_C(0x000000ff000000ff)) << 16;
	t = (t & UINT64_C(0x00f000f000f000f0)) >> 4 |
	    (t & UINT64_C(0x000f000f000f000f)) << 8;
	return t + JN_ZEROS + ((t + UINT64_C(0x0606060606060606)) >> 4 &
	    UINT64_C(0x0101010101010101)) * ('a' - '0' - 10);
}

/* The lowercase hex digits of v (no prefix, "0" for 0) at p (16 bytes of
 * room and 8 more); returns the end. */
static inline char *
jn_hex(char *p, uint64_t v)
{
	int n = (64 - __builtin_clzll(v | 1) + 3) >> 2;	/* digits */
	uint64_t t;

	if (n <= 8) {
		t = jn_hex8((uint32_t)v) >> (8 * (8 - n));
		jn_store(p, t);
		return p + n;
	}
	t = jn_hex8((uint32_t)(v >> 32)) >> (8 * (16 - n));
	jn_store(p, t);
	p += n - 8;
	t = jn_hex8((uint32_t)v);
	jn_store(p, t);
	return p + 8;
}

#endif
