/*
 * test_text.c: the shapes of kallsyms, printk formats and saved cmdlines
 * lines (lib/event/texts.c): every shape a kernel writes passes (64- and
 * 32-bit addresses, modules, odd symbol types such as the "3" a kernel
 * gave long Rust names), damage is named, and dropping the bad lines
 * leaves the good ones in order; a whole text's walk says what each
 * line's check does.
 */
#include <stdio.h>
#include <string.h>

#include "tdat-int.h"
#include "tap.h"

struct shape {
	enum tdat_text kind;
	const char *line;
	const char *why;	/* NULL: a good line */
};

static const struct shape shapes[] = {
	{ TDAT_TEXT_KALLSYMS, "ffffffff81000000 T _stext", NULL },
	{ TDAT_TEXT_KALLSYMS, "0000000000000000 A fixed_percpu_data", NULL },
	{ TDAT_TEXT_KALLSYMS, "c0008000 t __init_begin", NULL },
	{ TDAT_TEXT_KALLSYMS, "ffffffffc046a024 r _note_10\t[9p]", NULL },
	{ TDAT_TEXT_KALLSYMS, "ffffffffa4db40f0 3 _RNvXs_NtNtNtCs9WMcp1Hn5Bv_"
	    "4core4iter8adapters6filterINtB4_6FilterINtNtNtBa_5slice4iter5Split"
	    "hNtNtBa_3str17IsAsciiWhitespaceE", NULL },
	{ TDAT_TEXT_KALLSYMS, "", "an empty line" },
	{ TDAT_TEXT_KALLSYMS, "\xe6" "fffffff81000000 T _stext",
	    "no address" },
	{ TDAT_TEXT_KALLSYMS, "ffffffff810000000 T x",
	    "an address of more than 16 digits" },
	{ TDAT_TEXT_KALLSYMS, "ffffffff81000000 T",
	    "no symbol type between spaces after the address" },
	{ TDAT_TEXT_KALLSYMS, "ffffffff81000000  _stext",
	    "no symbol type between spaces after the address" },
	{ TDAT_TEXT_KALLSYMS, "ffffffff81000000 T _st\xe5xt_and_a_long_name",
	    "a byte that is not printable ASCII" },
	{ TDAT_TEXT_KALLSYMS, "ffffffff81000000 T _stext ffffffff",
	    "a space after the symbol name" },
	{ TDAT_TEXT_KALLSYMS, "ffffffffc046a024 r _note_10\t[9p",
	    "a damaged module name" },
	/* names read 16 bytes a step: a bad byte in either half of one */
	{ TDAT_TEXT_KALLSYMS, "ffffffff81000000 T abcdefghij\x7f"
	    "klmnopqrstuvwxyz0123456789", "a byte that is not printable ASCII" },
	{ TDAT_TEXT_KALLSYMS, "ffffffff81000000 T abcdefghijklmnopqrstu\x01"
	    "vwxyz0123456789abcdef", "a byte that is not printable ASCII" },
	{ TDAT_TEXT_KALLSYMS, "ffffffff81000000 T abcdefghijklmnopqrstuvwxyz01 "
	    "3456789abcdef", "a space after the symbol name" },
	{ TDAT_TEXT_KALLSYMS, "ffffffffc046a024 t a_rather_long_module_symbol_"
	    "name_x\t[some_module]", NULL },
	{ TDAT_TEXT_PRINTK, "0xffffffff93f4aef8 : \"CPU_ON\"", NULL },
	{ TDAT_TEXT_PRINTK, "0xc0a01234 : \"%s: \\\"%d\\\"\\n\"", NULL },
	{ TDAT_TEXT_PRINTK, "0xffffffff93f4aef8 : \"\"", NULL },
	{ TDAT_TEXT_PRINTK, "0xffffffff93f4aef8 : \"CPU_ON", "no closing quote" },
	{ TDAT_TEXT_PRINTK, "\xb0xffffffff93f4aef8 : \"CPU_ON\"",
	    "no 0x address" },
	{ TDAT_TEXT_PRINTK, "0xffffffff93f4ae\xf8 : \"CPU_ON\"",
	    "no ' : \"' after the address" },
	{ TDAT_TEXT_CMDLINES, "148 trace-cmd", NULL },
	{ TDAT_TEXT_CMDLINES, "1 ", NULL },
	{ TDAT_TEXT_CMDLINES, "4194304 kworker/u8:1 with spaces", NULL },
	{ TDAT_TEXT_CMDLINES, "\xb1" "48 trace-cmd", "no pid" },
	{ TDAT_TEXT_CMDLINES, "148trace-cmd", "no space after the pid" },
};

/*
 * A text of kallsyms lines, each of shapes[] (and those cut and grown
 * around 8-byte steps), walked whole: tdat_text_check() and
 * tdat_text_drop_bad() (which read the usual lines without looking for
 * their end first) count and drop what tdat_text_line_bad() line by
 * line says, the last line with and without its newline.
 */
static int
walk_alike(void)
{
	static char text[16384], keep[16384], buf[16384];
	struct tdat_text_check r, d;
	const char *line, *why, *first_why = NULL;
	size_t i, cut, n, len = 0, klen = 0, lines = 0, bad = 0, first = 0;
	size_t first_at = 0, at, dn;
	int nl, fails = 0;

	for (nl = 0; nl < 2; nl++) {
		len = klen = lines = bad = first = 0;
		for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
			if (shapes[i].kind != TDAT_TEXT_KALLSYMS)
				continue;
			line = shapes[i].line;
			for (cut = 0; cut <= 24 && cut <= strlen(line); cut++) {
				n = strlen(line) - cut;
				at = len;
				memcpy(text + len, line, n);
				len += n;
				text[len++] = '\n';
				lines++;
				why = tdat_text_line_bad(TDAT_TEXT_KALLSYMS,
				    text + at, n);
				if (why && bad++ == 0) {
					first = lines;
					first_at = at;
					first_why = why;
				}
				if (!why) {
					memcpy(keep + klen, text + at, n + 1);
					klen += n + 1;
				}
			}
		}
		if (!nl) {		/* the last line without its newline */
			len--;
			if (klen && keep[klen - 1] == '\n' &&
			    tdat_text_line_bad(TDAT_TEXT_KALLSYMS, text + at,
			    len - at) == NULL)
				klen--;
		}
		tdat_text_check(TDAT_TEXT_KALLSYMS, text, len, &r);
		memcpy(buf, text, len);
		dn = tdat_text_drop_bad(TDAT_TEXT_KALLSYMS, buf, len, &d);
		if (r.lines != lines || r.bad != bad || r.first_line != first ||
		    r.first_at != first_at || strcmp(r.why, first_why) != 0 ||
		    d.lines != lines || d.bad != bad || dn != klen ||
		    memcmp(buf, keep, klen) != 0)
			fails++;
	}
	return fails == 0 && bad > 0 && klen > 0;
}

static int
same_check(const struct tdat_text_check *a, const struct tdat_text_check *b)
{
	return a->lines == b->lines && a->bad == b->bad &&
	    a->first_line == b->first_line && a->first_at == b->first_at &&
	    a->why == b->why && strcmp(a->first, b->first) == 0;
}

/* A text checked in two or three pieces cut at line starts i < j, each
 * added to the check of the ones before (tdat_text_check_add()), as
 * tdat-verify's two threads do: the whole's check, every cut. */
static int
pieces_add_up(const char *text, size_t len)
{
	struct tdat_text_check whole, sum, r;
	size_t i, j, k, cut[8], n = 0;
	int bad = 0;

	tdat_text_check(TDAT_TEXT_KALLSYMS, text, len, &whole);
	for (i = 1; i < len && n < 8; i++)
		if (text[i - 1] == '\n')
			cut[n++] = i;
	for (i = 0; i < n; i++)
		for (j = i; j < n; j++) {
			size_t at[3] = { 0, cut[i], cut[j] };
			size_t end[3] = { cut[i], cut[j], len };

			memset(&sum, 0, sizeof(sum));
			for (k = 0; k < 3; k++) {
				tdat_text_check(TDAT_TEXT_KALLSYMS,
				    text + at[k], end[k] - at[k], &r);
				tdat_text_check_add(&sum, &r, at[k]);
			}
			bad += !same_check(&sum, &whole);
		}
	return n >= 4 && whole.bad == 2 && bad == 0;
}

int
main(void)
{
	static const char text[] =
	    "ffffffff81000000 T _stext\n"
	    "ffffffff8100\xe6\x30\x30\x30 T broken\n"
	    "ffffffff81000010 t keep_me\t[mod]\n"
	    "\n"
	    "ffffffff81000020 T last";
	struct tdat_text_check r;
	char buf[sizeof(text)];
	const char *why;
	size_t i, n;

	tdat_formats_all();
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct shape *s = &shapes[i];

		n = strlen(s->line);
		why = tdat_text_line_bad(s->kind, s->line, n);
		ok(s->why ? why && strcmp(why, s->why) == 0 : why == NULL,
		    "shape %zu: %s", i, s->why ? s->why : "a good line");
	}
	/* NUL bytes (a zeroed block) */
	why = tdat_text_line_bad(TDAT_TEXT_KALLSYMS,
	    "ffffffff81000000 T _stext\0\0\0", 28);
	ok(why && strcmp(why, "a byte that is not printable ASCII") == 0,
	    "a kallsyms line with NUL bytes");
	why = tdat_text_line_bad(TDAT_TEXT_CMDLINES, "148 trace\0cmd", 13);
	ok(why && strcmp(why, "a NUL byte") == 0, "a cmdline with a NUL byte");
	why = tdat_text_line_bad(TDAT_TEXT_PRINTK, "0xffff : \"a\0b\"", 14);
	ok(why && strcmp(why, "a NUL byte") == 0, "a printk format with a NUL");

	tdat_text_check(TDAT_TEXT_KALLSYMS, text, sizeof(text) - 1, &r);
	ok(r.lines == 5 && r.bad == 2, "a text of 5 lines, 2 bad (%llu, %llu)",
	    (unsigned long long)r.lines, (unsigned long long)r.bad);
	ok(r.first_line == 2 && r.first_at == 26 &&
	    strcmp(r.first, "ffffffff8100\\xe6000 T broken") == 0,
	    "the first bad line, its byte and its bytes shown: %s", r.first);
	memcpy(buf, text, sizeof(text));
	n = tdat_text_drop_bad(TDAT_TEXT_KALLSYMS, buf, sizeof(text) - 1, &r);
	ok(n == 26 + 33 + 23 && memcmp(buf, "ffffffff81000000 T _stext\n"
	    "ffffffff81000010 t keep_me\t[mod]\nffffffff81000020 T last",
	    n) == 0, "dropped: the good lines stay, in order");
	tdat_text_check(TDAT_TEXT_KALLSYMS, buf, n, &r);
	ok(r.lines == 3 && r.bad == 0, "and they check clean");
	ok(walk_alike(), "a text of every kallsyms shape, cut byte by byte: "
	    "walked whole, what each line's check says");
	ok(pieces_add_up(text, sizeof(text) - 1), "checked in pieces cut at "
	    "every line, the pieces' checks add up to the whole's");
	return tap_done();
}
