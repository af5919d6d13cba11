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

static unsigned long long nrec, nbad, nfast;

/* How much room run_ops_fast() finds after a prefix in c: all it needs,
 * too little from the start, too little after a symbol (a call). */
static const size_t lefts[] = { 0, 8, 24, 40, 56, 80, 120, 200 };

/*
 * rec printed with its avail (tdat_event_print(): the steps read 8 bytes
 * at once where the record's page holds them) into a buffer of 4096
 * bytes after a prefix that leaves it lefts[i] bytes (0: none), against
 * the same into a buffer with no room (the steps one by one); 0 when
 * they agree.
 */
static int
compare_room(const struct tdat_event *t, const struct tdat_record *rec,
    struct tdat_sbuf *c)
{
	static const char pad[4095];
	struct tdat_sbuf w, *want = &w;
	size_t i, pre;
	int rc = 0;

	tdat_sb_init(&w);	/* no room: run_ops_fast() declines */
	tdat_event_print(t, rec, TDAT_PRINT_FMT, &w);

	for (i = 0; i < sizeof(lefts) / sizeof(lefts[0]); i++) {
		/* a buffer of 4096 bytes each time (a print may grow it) */
		tdat_sb_free(c);
		tdat_sb_init(c);
		tdat_sb_add(c, pad, sizeof(pad));
		tdat_sb_reset(c);
		pre = lefts[i] ? c->cap - lefts[i] : 0;
		memset(c->p, 'x', pre);
		c->len = pre;
		c->p[pre] = '\0';
		tdat_event_print(t, rec, TDAT_PRINT_FMT, c);
		if (c->len - pre != want->len ||
		    memcmp(c->p + pre, want->p, want->len) != 0 ||
		    c->p[c->len] != '\0') {
			printf("# room %zu: \"%.*s\" != \"%.*s\"\n", lefts[i],
			    (int)(c->len - pre), c->p + pre, (int)want->len,
			    want->p);
			rc = 1;
			break;
		}
		nfast++;
	}
	tdat_sb_free(&w);
	return rc;
}

/* Every record of one file printed both ways; 0 when they all agree. */
static int
compare_file(const char *path, int plugins)
{
	struct tdat_file *f = NULL;
	struct tdat_events *ev = NULL;
	struct tdat_reader *rd = NULL;
	const struct tdat_event *t;
	struct tdat_record rec;
	struct tdat_sbuf a, b, c;
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
	tdat_sb_init(&c);
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
		} else if (!plugins && !t->plugin && rec.avail > rec.size &&
		    compare_room(t, &rec, &c) != 0) {
			bad++;
			nbad++;
		}
	}
	tdat_sb_free(&a);
	tdat_sb_free(&b);
	tdat_sb_free(&c);
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
	ok(nfast > 100000, "%llu prints with the record's page and a buffer's "
	    "room (run_ops_fast)", nfast);
	return tap_done();
}
