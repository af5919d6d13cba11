/*
 * test_common.c: unit tests of the helpers the writers share: decimal
 * digits written in place (tdat_udec_len(), tdat_udec_digits()), integers
 * in either byte order (tdat_getn(), tdat_sext()), tdat_utf8_ok(), and
 * where a dynamic or array field lies in a record (tdat_field_dyn_span(),
 * tdat_field_span()).  TAP.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tdat-int.h"
#include "tap.h"

/* v's digits through tdat_udec_len() and tdat_udec_digits() against
 * printf's. */
static int
digits_ok(uint64_t v)
{
	char want[32], got[32];
	int n = tdat_udec_len(v);

	snprintf(want, sizeof(want), "%" PRIu64, v);
	memset(got, 'x', sizeof(got));
	if (n < 1 || n > 20)
		return 0;
	if (tdat_udec_digits(got + n, v) != got)
		return 0;
	got[n] = '\0';
	return strcmp(got, want) == 0;
}

static void
test_digits(void)
{
	uint64_t p = 1;
	int i, bad = 0;

	bad += !digits_ok(0) + !digits_ok(UINT64_MAX);
	for (i = 0; i < 20; i++) {
		bad += !digits_ok(p) + !digits_ok(p - 1) + !digits_ok(p + 1);
		if (i < 19)
			p *= 10;
	}
	for (i = 0; i < 64; i++)
		bad += !digits_ok((uint64_t)1 << i) +
		    !digits_ok(((uint64_t)1 << i) - 1);
	ok(bad == 0, "tdat_udec_len/tdat_udec_digits: every power of ten "
	    "and of two, either side, 0 and UINT64_MAX (%d wrong)", bad);
	ok(tdat_udec_len(0) == 1 && tdat_udec_len(9) == 1 &&
	    tdat_udec_len(10) == 2 && tdat_udec_len(UINT64_MAX) == 20,
	    "tdat_udec_len: 0 has one digit, UINT64_MAX twenty");
}

static void
test_ints(void)
{
	static const unsigned char b[8] = {
		0x81, 0x02, 0x83, 0x04, 0x85, 0x06, 0x87, 0x08
	};
	int n, big, bad = 0;

	for (big = 0; big < 2; big++)
		for (n = 1; n <= 8; n++)
			bad += tdat_getn(b, n, big) != tdat_get(b, n, big);
	ok(bad == 0, "tdat_getn equals tdat_get for 1 to 8 bytes, both "
	    "byte orders");
	ok(tdat_getn(b, 4, 0) == 0x04830281 && tdat_getn(b, 4, 1) == 0x81028304,
	    "tdat_getn: 4 bytes little- and big-endian");
	ok(tdat_sext(0x80, 1) == -128 && tdat_sext(0x7f, 1) == 127 &&
	    tdat_sext(0xffff, 2) == -1 && tdat_sext(0x80000000, 4) ==
	    INT32_MIN && tdat_sext(UINT64_MAX, 8) == -1 &&
	    tdat_sext(0xff, 0) == 0xff,
	    "tdat_sext: 1, 2, 4 and 8 bytes, size 0 unchanged");
}

static void
test_utf8(void)
{
	ok(tdat_utf8_ok((const unsigned char *)"", 0) &&
	    tdat_utf8_ok((const unsigned char *)"abc", 3) &&
	    tdat_utf8_ok((const unsigned char *)"\xc3\xa9t\xc3\xa9", 6) &&
	    tdat_utf8_ok((const unsigned char *)"\xf0\x9f\x98\x80", 4),
	    "tdat_utf8_ok: ASCII, two- and four-byte sequences");
	ok(!tdat_utf8_ok((const unsigned char *)"\xc3", 1) &&
	    !tdat_utf8_ok((const unsigned char *)"a\xff", 2) &&
	    !tdat_utf8_ok((const unsigned char *)"\xc0\xaf", 2) &&
	    !tdat_utf8_ok((const unsigned char *)"\xed\xa0\x80", 3),
	    "tdat_utf8_ok: cut, invalid byte, overlong, surrogate refused");
}

static void
test_spans(void)
{
	/* a record of 16 bytes: a __data_loc at 0 (offset 8, length 4),
	 * a __rel_loc at 4 (2 bytes past its end at 8, length 3) */
	unsigned char d[16] = {
		8, 0, 4, 0, 0, 0, 3, 0, 'a', 'b', 'c', 0, 'x', 'y', 'z', 0
	};
	unsigned char be[16];
	struct tdat_field loc = { "__data_loc char[]", "s", 0, 4, 0, 1,
	    TDAT_FLD_DYNAMIC | TDAT_FLD_ARRAY };
	struct tdat_field rel = { "__rel_loc char[]", "r", 4, 4, 0, 1,
	    TDAT_FLD_DYNAMIC | TDAT_FLD_RELATIVE | TDAT_FLD_ARRAY };
	struct tdat_field fix = { "char[6]", "c", 10, 6, 6, 1,
	    TDAT_FLD_ARRAY };
	struct tdat_field flex = { "char", "f", 12, 0, 0, 1, 0 };
	uint32_t off, len;

	tdat_field_dyn_span(&loc, d, 16, 0, &off, &len);
	ok(off == 8 && len == 4, "__data_loc: offset and length (%u %u)",
	    off, len);
	tdat_field_dyn_span(&rel, d, 16, 0, &off, &len);
	ok(off == 8 && len == 3, "__rel_loc: from its own end (%u %u)",
	    off, len);
	tdat_field_dyn_span(&loc, d, 10, 0, &off, &len);
	ok(off == 8 && len == 2, "__data_loc: length cut at the record's "
	    "end (%u %u)", off, len);
	tdat_field_dyn_span(&loc, d, 6, 0, &off, &len);
	ok(off == 0 && len == 0, "__data_loc: past the record: nothing");
	tdat_field_dyn_span(&loc, d, 3, 0, &off, &len);
	ok(off == 0 && len == 0, "__data_loc: the field itself cut: nothing");
	memcpy(be, d, sizeof(be));
	be[0] = 0; be[1] = 4; be[2] = 0; be[3] = 8;	/* len 4, off 8 */
	tdat_field_dyn_span(&loc, be, 16, 1, &off, &len);
	ok(off == 8 && len == 4, "__data_loc: big-endian (%u %u)", off, len);
	tdat_field_span(&fix, d, 16, 0, &off, &len);
	ok(off == 10 && len == 6, "fixed array: at its offset (%u %u)", off,
	    len);
	tdat_field_span(&fix, d, 13, 0, &off, &len);
	ok(off == 10 && len == 3, "fixed array: cut at the record's end "
	    "(%u %u)", off, len);
	tdat_field_span(&flex, d, 16, 0, &off, &len);
	ok(off == 12 && len == 4, "flexible array member: to the record's "
	    "end (%u %u)", off, len);
	tdat_field_span(&flex, d, 11, 0, &off, &len);
	ok(off == 0 && len == 0, "flexible array member past the record: "
	    "nothing");
	tdat_field_span(&loc, d, 16, 0, &off, &len);
	ok(off == 8 && len == 4, "tdat_field_span of a dynamic field: its "
	    "location");
}

int
main(void)
{
	test_digits();
	test_ints();
	test_utf8();
	test_spans();
	return tap_done();
}
