/*
 * test_btf.c: lib/event/btf.c on hand-built BTF: a function's arguments
 * as libtraceevent 1.9 prints them, and BTF that does not hold together
 * (every length cut short, every byte of it flipped) read without a
 * fault, printing the raw values.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tdat-int.h"
#include "event-int.h"
#include "tap.h"

static unsigned char btf[512];
static size_t blen;

static void
put32(size_t at, uint32_t v)
{
	memcpy(btf + at, &v, 4);
}

/*
 * Types: 1 int (signed, 32 bits), 2 unsigned long (64 bits), 3 struct
 * file, 4 pointer to 3, 5 typedef loff_t = 1, 6 const 4, 7 enum mode,
 * 8 struct pair (16 bytes), 9 proto (file: 6, count: 2, pos: 5,
 * mode: 7, p: 8), 10 func "vfs_x" of 9, 11 proto (), 12 func "noargs".
 */
static void
build(void)
{
	static const char str[] = "\0int\0long unsigned int\0file\0loff_t\0"
	    "mode\0pair\0vfs_x\0count\0pos\0p\0noargs";
	size_t t = 24, s0;
	uint32_t so[16];
	const char *p;
	int i = 0;

	for (p = str; p < str + sizeof(str); p += strlen(p) + 1)
		so[i++] = (uint32_t)(p - str);
	memset(btf, 0, sizeof(btf));
	/* 1 INT "int": 32 bits, signed */
	put32(t, so[1]); put32(t + 4, 1u << 24); put32(t + 8, 4);
	put32(t + 12, (1u << 24) | 32); t += 16;
	/* 2 INT "long unsigned int": 64 bits */
	put32(t, so[2]); put32(t + 4, 1u << 24); put32(t + 8, 8);
	put32(t + 12, 64); t += 16;
	/* 3 STRUCT "file", no members, 200 bytes */
	put32(t, so[3]); put32(t + 4, 4u << 24); put32(t + 8, 200); t += 12;
	/* 4 PTR to 3 */
	put32(t, 0); put32(t + 4, 2u << 24); put32(t + 8, 3); t += 12;
	/* 5 TYPEDEF "loff_t" to 1 */
	put32(t, so[4]); put32(t + 4, 8u << 24); put32(t + 8, 1); t += 12;
	/* 6 CONST 4 */
	put32(t, 0); put32(t + 4, 10u << 24); put32(t + 8, 4); t += 12;
	/* 7 ENUM "mode", no values */
	put32(t, so[5]); put32(t + 4, 6u << 24); put32(t + 8, 4); t += 12;
	/* 8 STRUCT "pair", 16 bytes */
	put32(t, so[6]); put32(t + 4, 4u << 24); put32(t + 8, 16); t += 12;
	/* 9 FUNC_PROTO: 5 parameters */
	put32(t, 0); put32(t + 4, (13u << 24) | 5); put32(t + 8, 1); t += 12;
	put32(t, so[3]); put32(t + 4, 6); t += 8;	/* file */
	put32(t, so[8]); put32(t + 4, 2); t += 8;	/* count */
	put32(t, so[9]); put32(t + 4, 5); t += 8;	/* pos */
	put32(t, so[5]); put32(t + 4, 7); t += 8;	/* mode */
	put32(t, so[10]); put32(t + 4, 8); t += 8;	/* p */
	/* 10 FUNC "vfs_x" of 9 */
	put32(t, so[7]); put32(t + 4, 12u << 24); put32(t + 8, 9); t += 12;
	/* 11 FUNC_PROTO () */
	put32(t, 0); put32(t + 4, 13u << 24); put32(t + 8, 0); t += 12;
	/* 12 FUNC "noargs" of 11 */
	put32(t, so[11]); put32(t + 4, 12u << 24); put32(t + 8, 11); t += 12;
	s0 = t;
	memcpy(btf + s0, str, sizeof(str));
	blen = s0 + sizeof(str);
	btf[0] = 0x9f; btf[1] = 0xeb; btf[2] = 1;
	put32(4, 24);
	put32(8, 0);
	put32(12, (uint32_t)(s0 - 24));
	put32(16, (uint32_t)(s0 - 24));
	put32(20, sizeof(str));
}

static const char *
print(const struct tdat_btf *b, const uint64_t *args, int n, const char *fn)
{
	static char buf[512];
	struct tdat_sbuf sb = { 0 };
	unsigned char a[8 * 8];

	memcpy(a, args, 8 * (size_t)n);
	tdat_btf_print_args(b, &sb, a, n, 8, 0, fn);
	snprintf(buf, sizeof(buf), "%s", sb.p ? sb.p : "");
	free(sb.p);
	return buf;
}

int
main(void)
{
	const uint64_t args[6] = { 0xffff888012345678ull, 0x80,
	    (uint64_t)-100, 10, 0x1111, 0x2222 };
	struct tdat_btf *b;
	const char *s;
	size_t i, n;
	int bit;

	tdat_formats_all();
	build();
	b = tdat_btf_new(btf, blen);
	ok(b != NULL, "hand-built BTF reads");
	s = print(b, args, 6, "vfs_x");
	ok(strcmp(s, "file=0xffff888012345678, count=0x80, pos=4294967196, "
	    "mode=10, p=(STRUCT)[0x1111:0x2222]") == 0,
	    "pointer, unsigned, signed (masked, not extended), enum, struct: %s",
	    s);
	s = print(b, args, 2, "vfs_x.isra.0");
	ok(strcmp(s, "file=0xffff888012345678, count=0x80, ...") == 0,
	    "a suffix after '.' is dropped; fewer values than parameters: %s",
	    s);
	s = print(b, args, 5, "vfs_x");
	ok(strcmp(s, "file=0xffff888012345678, count=0x80, pos=4294967196, "
	    "mode=10, p=(STRUCT)[0x1111:...]") == 0,
	    "a struct cut short by the values: %s", s);
	s = print(b, args, 3, "noargs");
	ok(strcmp(s, "") == 0, "no parameters: nothing: %s", s);
	s = print(b, args, 3, "nosuch");
	ok(strcmp(s, "ffff888012345678, 80, ffffffffffffff9c") == 0,
	    "a function BTF lacks: the raw values: %s", s);
	s = print(NULL, args, 2, "vfs_x");
	ok(strcmp(s, "ffff888012345678, 80") == 0, "no BTF: the raw values: %s",
	    s);
	tdat_btf_free(b);

	/* Cut short anywhere, or any bit flipped: no fault (ASan), and
	 * what does not hold together is not taken. */
	for (n = 0; n < blen; n++) {
		b = tdat_btf_new(btf, n);
		if (b != NULL) {
			print(b, args, 6, "vfs_x");
			print(b, args, 6, "noargs");
			tdat_btf_free(b);
		}
	}
	ok(1, "every length short of the whole: no fault");
	for (i = 0; i < blen; i++)
		for (bit = 0; bit < 8; bit++) {
			btf[i] ^= (unsigned char)(1 << bit);
			if ((b = tdat_btf_new(btf, blen)) != NULL) {
				print(b, args, 6, "vfs_x");
				print(b, args, 6, "noargs");
				tdat_btf_free(b);
			}
			btf[i] ^= (unsigned char)(1 << bit);
		}
	ok(1, "every bit of it flipped: no fault");
	/* A typedef loop: 5 names itself. */
	put32(24 + 16 + 16 + 12 + 12 + 8, 5);
	b = tdat_btf_new(btf, blen);
	s = print(b, args, 6, "vfs_x");
	ok(strstr(s, "pos=?0xffffffffffffff9c") != NULL,
	    "a typedef that names itself: an unknown type: %s", s);
	tdat_btf_free(b);
	return tap_done();
}
