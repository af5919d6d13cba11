/*
 * test_print_ops.c: the compiled steps of print formats (lib/event/print-eval.c)
 * against the walk of their items, on every record of every fixture in
 * t/data, with and without plugin helpers; and the fast number formatting
 * against printf on edge values.  TAP output.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "event-int.h"
#include "tap.h"

static unsigned long long nrec, nbad;

/* Every record of one file printed both ways; 0 when they all agree. */
static int
compare_file(const char *path, int plugins)
{
	struct tdat_file *f = NULL;
	struct tdat_events *ev = NULL;
	struct tdat_reader *rd = NULL;
	const struct tdat_event *t;
	struct tdat_record rec;
	struct tdat_sbuf a, b;
	struct tdat_err e;
	int rc, bad = 0, id;

	memset(&e, 0, sizeof(e));
	if (tdat_open(path, &f, &e) < 0)
		return 0;	/* damaged fixtures: nothing to print */
	if (tdat_events_load_mode(f, plugins, &ev, &e) < 0 ||
	    tdat_reader_open(f, NULL, &rd, &e) < 0) {
		tdat_events_free(ev);
		tdat_close(f);
		return 0;
	}
	tdat_events_finish(ev, plugins);
	tdat_sb_init(&a);
	tdat_sb_init(&b);
	while ((rc = tdat_reader_next(rd, &rec, &e)) > 0) {
		if (ev->nev == 0 || rec.size < 2)
			continue;
		id = (int)tdat_read_num(ev, rec.data, ev->ev[0]->ncommon ?
		    ev->ev[0]->common[0].size : 2);
		if ((t = tdat_events_find(ev, id)) == NULL)
			continue;
		tdat_sb_reset(&a);
		tdat_sb_reset(&b);
		/* twice: the steps are made on the first record */
		tdat_print_pretty(t, rec.data, rec.size, &a);
		tdat_print_walk(t, rec.data, rec.size, &b);
		nrec++;
		if (a.len != b.len || memcmp(a.p, b.p, a.len) != 0) {
			if (bad++ == 0)
				printf("# %s: \"%.*s\" != \"%.*s\"\n", path,
				    (int)a.len, a.p, (int)b.len, b.p);
			nbad++;
		}
	}
	tdat_sb_free(&a);
	tdat_sb_free(&b);
	tdat_reader_close(rd);
	tdat_events_free(ev);
	tdat_close(f);
	return bad;
}

static void
compare_dir(const char *dir)
{
	char path[1024];
	struct dirent *d;
	DIR *dp;
	size_t n;

	if ((dp = opendir(dir)) == NULL) {
		ok(0, "open %s", dir);
		return;
	}
	while ((d = readdir(dp)) != NULL) {
		n = strlen(d->d_name);
		if (n < 5 || strcmp(d->d_name + n - 4, ".dat") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		ok(compare_file(path, 0) == 0 && compare_file(path, 1) == 0,
		    "%s: compiled print formats print as their items", path);
	}
	closedir(dp);
}

static void
numbers(void)
{
	static const unsigned long long u[] = { 0, 1, 9, 10, 11, 99, 100,
	    101, 999, 1000, 9999999, 10000000, 99999999, 100000000,
	    100000001, 999999999, 4294967295ULL, 4294967296ULL,
	    9999999999999999ULL, 10000000000000000ULL,
	    9007199254740991ULL, 9007199254740992ULL,
	    1234567890123456789ULL, 18446744073709551615ULL };
	static const long long d[] = { 0, -1, -9, -10, -99, -100,
	    -100000000, -4294967296LL, 9223372036854775807LL,
	    -9223372036854775807LL - 1 };
	struct tdat_sbuf b;
	char want[64];
	size_t i;
	int bad = 0;

	tdat_sb_init(&b);
	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		tdat_sb_reset(&b);
		tdat_put_udec(&b, u[i]);
		snprintf(want, sizeof(want), "%llu", u[i]);
		if (b.len != strlen(want) || strcmp(b.p, want) != 0) {
			printf("# %s != %s\n", b.p, want);
			bad++;
		}
	}
	for (i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		tdat_sb_reset(&b);
		tdat_put_dec(&b, d[i]);
		snprintf(want, sizeof(want), "%lld", d[i]);
		if (b.len != strlen(want) || strcmp(b.p, want) != 0) {
			printf("# %s != %s\n", b.p, want);
			bad++;
		}
	}
	/* near the end of a full buffer: the fixed-size copies grow it */
	tdat_sb_reset(&b);
	for (i = 0; i < 10000; i++)
		tdat_put_udec(&b, 18446744073709551615ULL - i);
	snprintf(want, sizeof(want), "%llu", 18446744073709551615ULL - 9999);
	if (b.len != 10000 * 20 || strcmp(b.p + b.len - 20, want) != 0)
		bad++;
	tdat_sb_free(&b);
	ok(bad == 0, "numbers: tdat_put_udec and tdat_put_dec as printf");
}

/* tdat_udec_len, tdat_hex_len, sb_udec and sb_hex (digits written in
 * place) against printf at every power of 2 and of 10, and either side. */
static void
lengths(void)
{
	unsigned long long v, p10 = 1;
	struct tdat_sbuf b;
	char want[64];
	int s, d, bad = 0, k;

	tdat_sb_init(&b);
	for (k = 0; k < 2 * 64 * 7 + 20 * 5; k++) {
		if (k < 2 * 64 * 7) {
			s = k / 7 % 64;
			d = k % 7 - 3;
			v = (k < 64 * 7 ? 1ULL << s : ~0ULL >> s) + (unsigned)d;
		} else {
			d = (k - 2 * 64 * 7) % 5 - 2;
			v = p10 + (unsigned long long)d;
			if (d == 2 && p10 <= ~0ULL / 10)
				p10 *= 10;
		}
		tdat_sb_reset(&b);
		sb_udec(&b, v);
		sb_putc(&b, ' ');
		sb_hex(&b, v);
		snprintf(want, sizeof(want), "%llu %llx", v, v);
		if (strcmp(b.p, want) != 0 || b.len != strlen(want) ||
		    tdat_udec_len(v) != (int)strcspn(want, " ") ||
		    tdat_hex_len(v) != (int)strlen(strchr(want, ' ') + 1)) {
			printf("# %s != %s\n", b.p, want);
			bad++;
		}
	}
	tdat_sb_free(&b);
	ok(bad == 0, "numbers: digit counts and in-place digits as printf");
}

int
main(void)
{
	static const char *dirs[] = { "t/data", "t/data/plugins",
	    "t/data/json", "t/data/multi", "t/data/probe", "t/data/select",
	    "t/data/latency", "t/data/crash" };
	size_t i;

	tdat_formats_all();
	numbers();
	lengths();
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		compare_dir(dirs[i]);
	ok(nrec > 100000 && nbad == 0, "%llu records printed both ways, %llu "
	    "differ", nrec, nbad);
	return tap_done();
}
