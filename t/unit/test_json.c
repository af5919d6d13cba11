/*
 * test_json.c: unit tests of formats/json/json.c: UTF-8 repair (one U+FFFD per
 * bad byte), the streaming writer's commas, escaping, integers exact in a
 * double reader (decimal strings beyond 2^53 - 1), addresses, and strings
 * that are not UTF-8 kept as {"hex":...}.  TAP.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "tdat-json.h"
#include "tdat-num.h"
#include "tap.h"


/* Repair in and compare with want; nbad: replacements expected. */
static void
utf8n(const char *what, const char *in, size_t n, const char *want, size_t wn,
    size_t nbad)
{
	struct tdat_sbuf b;
	size_t bad;

	tdat_sb_init(&b);
	bad = tdat_json_utf8(&b, in, n);
	ok(bad == nbad && b.len == wn &&
	    memcmp(b.p ? b.p : "", want, b.len) == 0, "utf8: %s", what);
	tdat_sb_free(&b);
}

static void
utf8(const char *what, const char *in, size_t n, const char *want, size_t nbad)
{
	utf8n(what, in, n, want, strlen(want), nbad);
}

/* The text a writer run produces. */
struct mem {
	char *p;
	size_t n;
	FILE *fp;
	struct tdat_jw w;
};

static void
mem_open(struct mem *m)
{
	m->p = NULL;
	m->n = 0;
	m->fp = open_memstream(&m->p, &m->n);
	if (m->fp == NULL || tdat_jw_init(&m->w, m->fp) < 0)
		exit(99);
}

static const char *
mem_close(struct mem *m)
{
	tdat_jw_flush(&m->w);
	tdat_jw_free(&m->w);
	fclose(m->fp);
	return m->p;
}

/* tdat-num.h against printf: every number below 10^7 (their digits and
 * hex), the edges of each eight-digit group, and a run of pseudo-random
 * magnitudes of every bit length; jn_u64_hi() and jn_u64_hi_in() each
 * through one struct jn_hi as the numbers go. */
static void
numbers(void)
{
	static const uint64_t edge[] = { 0, 9, 10, 99, 100, 9999, 10000,
		99999999, 100000000, 100000001, 9999999999999999ULL,
		10000000000000000ULL, 10000000000000001ULL, 0xffffffffULL,
		0x100000000ULL, 0xfffffffffULL, 0x7fffffffffffffffULL,
		18446744073709551615ULL };
	struct jn_hi h = { 0, 0, 0 }, hin = { 0, 0, 0 };
	uint64_t v, x = 88172645463325252ULL;
	char b[48], r[48], *e;
	int bad = 0, badhex = 0, badhi = 0, badin = 0;
	size_t i, n = 10000000 + 200000 + sizeof(edge) / sizeof(edge[0]);

	for (i = 0; i < n; i++) {
		if (i < 10000000) {
			v = i;
		} else if (i < 10000000 + 200000) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			v = x >> (x & 63);
		} else {
			v = edge[i - 10000000 - 200000];
		}
		snprintf(r, sizeof(r), "%llu", (unsigned long long)v);
		e = jn_u64(b, v);
		bad += (size_t)(e - b) != strlen(r) || memcmp(b, r, strlen(r));
		e = jn_u64_hi(b, v, &h);
		badhi += (size_t)(e - b) != strlen(r) || memcmp(b, r, strlen(r));
		e = jn_u64_hi_in(b, v, &hin);
		badin += (size_t)(e - b) != strlen(r) || memcmp(b, r, strlen(r));
		snprintf(r, sizeof(r), "%llx", (unsigned long long)v);
		e = jn_hex(b, v);
		badhex += (size_t)(e - b) != strlen(r) || memcmp(b, r, strlen(r));
	}
	ok(bad == 0, "jn_u64() as %%llu (%d differ)", bad);
	ok(badhi == 0, "jn_u64_hi() as %%llu (%d differ)", badhi);
	ok(badin == 0, "jn_u64_hi_in() as %%llu (%d differ)", badin);
	ok(badhex == 0, "jn_hex() as %%llx (%d differ)", badhex);
}

int
main(void)
{
	struct mem m;
	const char *s;
	char big[70000];

	tdat_formats_all();
	numbers();
	utf8("ASCII unchanged", "abc", 3, "abc", 0);
	utf8("valid 2, 3 and 4-byte sequences kept", "\xc3\xa9\xe2\x82\xac"
	    "\xf0\x9f\x98\x80", 9, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 0);
	utf8("a lone 0xff", "a\xff" "b", 3, "a\xef\xbf\xbd" "b", 1);
	utf8("a cut sequence: one U+FFFD per byte", "\xe2\x82", 2,
	    "\xef\xbf\xbd\xef\xbf\xbd", 2);
	utf8("overlong 0xc0 0xaf", "\xc0\xaf", 2,
	    "\xef\xbf\xbd\xef\xbf\xbd", 2);
	utf8("a surrogate (0xed 0xa0 0x80)", "\xed\xa0\x80", 3,
	    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 3);
	utf8("above U+10FFFF (0xf4 0x90 ...)", "\xf4\x90\x80\x80", 4,
	    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 4);
	utf8n("a NUL is kept (the writer escapes it)", "a\0b", 3, "a\0b", 3, 0);

	mem_open(&m);
	tdat_jw_obj(&m.w);
	tdat_jw_key(&m.w, "a");
	tdat_jw_u64(&m.w, 18446744073709551615ULL);
	tdat_jw_key(&m.w, "b");
	tdat_jw_i64(&m.w, INT64_MIN);
	tdat_jw_key(&m.w, "c");
	tdat_jw_arr(&m.w);
	tdat_jw_i64(&m.w, -1);
	tdat_jw_u64(&m.w, 0);
	tdat_jw_u64(&m.w, 99);
	tdat_jw_u64(&m.w, 100);
	tdat_jw_end(&m.w, ']');
	tdat_jw_key(&m.w, "d");
	tdat_jw_obj(&m.w);
	tdat_jw_end(&m.w, '}');
	tdat_jw_key(&m.w, "e");
	tdat_jw_null(&m.w);
	tdat_jw_end(&m.w, '}');
	tdat_jw_nl(&m.w);
	tdat_jw_obj(&m.w);
	tdat_jw_end(&m.w, '}');
	tdat_jw_nl(&m.w);
	s = mem_close(&m);
	ok(strcmp(s, "{\"a\":\"18446744073709551615\",\"b\":\"-9223372036854775808\","
	    "\"c\":[-1,0,99,100],\"d\":{},\"e\":null}\n{}\n") == 0,
	    "writer: commas, 64-bit integers, lines: %s", s);
	free(m.p);

	mem_open(&m);
	tdat_jw_arr(&m.w);
	tdat_jw_u64(&m.w, TDAT_JSON_SAFE);
	tdat_jw_u64(&m.w, TDAT_JSON_SAFE + 1);
	tdat_jw_i64(&m.w, -(int64_t)TDAT_JSON_SAFE);
	tdat_jw_i64(&m.w, -(int64_t)TDAT_JSON_SAFE - 1);
	tdat_jw_i64(&m.w, INT64_MAX);
	tdat_jw_hex(&m.w, 0);
	tdat_jw_hex(&m.w, 0xffffffff81234560ULL);
	tdat_jw_end(&m.w, ']');
	s = mem_close(&m);
	ok(strcmp(s, "[9007199254740991,\"9007199254740992\","
	    "-9007199254740991,\"-9007199254740992\",\"9223372036854775807\","
	    "\"0x0\",\"0xffffffff81234560\"]") == 0,
	    "writer: numbers up to 2^53 - 1, decimal strings beyond, "
	    "addresses in hex: %s", s);
	free(m.p);

	mem_open(&m);
	tdat_jw_str(&m.w, "q\"b\\s/t\tn\n\x01\x7f", 12);
	tdat_jw_str(&m.w, "\xff\xc3\xa9", 3);
	tdat_jw_str(&m.w, "a\0b", 3);
	s = mem_close(&m);
	ok(strcmp(s, "\"q\\\"b\\\\s/t\\tn\\n\\u0001\x7f\"" ",{\"hex\":\"ffc3a9\"}"
	    ",\"a\\u0000b\"") == 0, "writer: escaping by json-c, "
	    "no slash escape, bytes that are not UTF-8 as hex: %s", s);
	free(m.p);

	mem_open(&m);
	tdat_jw_str(&m.w, "\xc3\xa9t\xc3\xa9", 5);
	tdat_jw_name(&m.w, "\xff\xc3\xa9", 3);
	tdat_jw_str(&m.w, "\xc0\xa8\x01\x01\xe2\x82", 6);
	tdat_jw_obj(&m.w);
	tdat_jw_key(&m.w, "k\xff");
	tdat_jw_str(&m.w, "", 0);
	tdat_jw_end(&m.w, '}');
	s = mem_close(&m);
	ok(strcmp(s, "\"\xc3\xa9t\xc3\xa9\",\"\xef\xbf\xbd\xc3\xa9\","
	    "{\"hex\":\"c0a80101e282\"},{\"k\xef\xbf\xbd\":\"\"}") == 0,
	    "writer: UTF-8 kept; names and keys repaired; other bytes as hex: %s",
	    s);
	free(m.p);

	{
		struct tdat_sbuf b;
		int rc;

		tdat_sb_init(&b);
		rc = tdat_json_text(&b, "a\"\xc3\xa9", 4);
		rc |= tdat_json_text(&b, "\x80z", 2);
		ok(rc == 0 && strcmp(b.p, "\"a\\\"\xc3\xa9\"{\"hex\":\"807a\"}") == 0,
		    "tdat_json_text: a string, or hex: %s", b.p);
		tdat_sb_free(&b);
	}

	/* A string longer than the writer's buffer goes through whole. */
	memset(big, 'x', sizeof(big));
	mem_open(&m);
	tdat_jw_arr(&m.w);
	tdat_jw_str(&m.w, big, sizeof(big));
	tdat_jw_str(&m.w, big, sizeof(big));
	tdat_jw_end(&m.w, ']');
	s = mem_close(&m);
	ok(m.n == 2 * (sizeof(big) + 2) + 3 && s[0] == '[' &&
	    s[sizeof(big) + 3] == ',' && s[m.n - 1] == ']',
	    "writer: strings above the buffer size");
	free(m.p);

	/* Integers near powers of ten and 2^32 against printf. */
	{
		static const unsigned long long v[] = { 99999999ULL,
		    100000000ULL, 100000001ULL, 4294967295ULL, 4294967296ULL,
		    4294967297ULL, 9999999999ULL, 10000000000ULL,
		    999999999999ULL, 1000000000000ULL, 121464058217ULL,
		    1000000000000000ULL, 9007199254740991ULL };
		char want[1024], *p = want;
		size_t i;

		mem_open(&m);
		tdat_jw_arr(&m.w);
		for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			tdat_jw_u64(&m.w, v[i]);
			tdat_jw_i64(&m.w, -(long long)v[i]);
			p += sprintf(p, "%s%llu,-%llu", i ? "," : "[", v[i],
			    v[i]);
		}
		tdat_jw_end(&m.w, ']');
		strcpy(p, "]");
		s = mem_close(&m);
		ok(strcmp(s, want) == 0, "writer: integers near 10^8k and "
		    "2^32 as printf's");
		free(m.p);
	}

	printf("1..%d\n", ntest);
	return nfail != 0;
}
