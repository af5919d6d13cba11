/*
 * test_lazy.c: tdat_events_load() defers the work of a trace's fixed
 * start: a format is parsed when its event is first looked up, the
 * kallsyms when a first symbol is.  Loading a real trace parses no more
 * than its first format and reads no kallsyms; what the deferred set
 * finds is what a set parsed at once finds (events, symbols), including
 * formats that do not parse and ids given twice.  TAP output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tdat-int.h"
#include "event-int.h"
#include "tap.h"

#define FIXTURE	"t/data/x86_64-default-sched.dat"
#define V6_FIXTURE	"t/data/hebel23-driver-trace.dat"

/* Every format of f parsed at once, and its kallsyms read. */
static struct tdat_events *
eager(struct tdat_file *f)
{
	struct tdat_events *s = tdat_events_new(f->lsize, f->big);
	struct tdat_err e;
	uint32_t i, j;

	if (s == NULL)
		return NULL;
	tdat_events_add_kallsyms(s, (const char *)f->kallsyms.p,
	    f->kallsyms.len);
	for (i = 0; i < f->nftrace; i++)
		tdat_events_add(s, (const char *)f->ftrace[i].p,
		    f->ftrace[i].len, "ftrace", NULL, &e);
	for (i = 0; i < f->nsys; i++)
		for (j = 0; j < f->sys[i].nev; j++)
			tdat_events_add(s, (const char *)f->sys[i].ev[j].p,
			    f->sys[i].ev[j].len, f->sys[i].name, NULL, &e);
	tdat_events_finish(s, 0);
	return s;
}

static int
same_event(const struct tdat_event *x, const struct tdat_event *y)
{
	int i;

	if (x == NULL || y == NULL)
		return x == y;
	if (x->id != y->id || strcmp(x->name, y->name) != 0 ||
	    strcmp(x->system, y->system) != 0 || x->ncommon != y->ncommon ||
	    x->nfields != y->nfields || x->failed != y->failed ||
	    x->flags != y->flags || x->span != y->span || x->lazy != NULL)
		return 0;
	for (i = 0; i < x->nfields; i++)
		if (strcmp(x->fields[i].name, y->fields[i].name) != 0 ||
		    x->fields[i].offset != y->fields[i].offset)
			return 0;
	return 1;
}

/* How many of every 97th of all's symbols s finds otherwise (its name,
 * its start, an address inside it). */
static size_t
syms_differ(const struct tdat_events *s, const struct tdat_events *all)
{
	unsigned long long a1, a2;
	const char *n1, *n2;
	size_t i, bad = 0;

	for (i = 0; i < all->nsym; i += 97) {
		a1 = a2 = 0;
		n1 = tdat_events_sym(s, all->sym[i].addr + 1, &a1);
		n2 = tdat_events_sym(all, all->sym[i].addr + 1, &a2);
		if ((n1 == NULL) != (n2 == NULL) || (n1 && (strcmp(n1, n2) ||
		    a1 != a2)))
			bad++;
	}
	return bad;
}

static void
test_trace(void)
{
	struct tdat_file *f;
	struct tdat_events *s, *all;
	const struct tdat_event *ev;
	struct tdat_err e;
	unsigned long long a1, a2;
	const char *n1, *n2;
	size_t i, bad = 0;
	int id;

	if (tdat_open(FIXTURE, &f, &e) < 0) {
		ok(0, "open %s: %s", FIXTURE, e.msg);
		return;
	}
	if (tdat_events_load(f, &s, &e) < 0) {
		ok(0, "load: %s", e.msg);
		tdat_close(f);
		return;
	}
	tdat_events_finish(s, 0);
	ok(s->nev > 50, "the trace has %zu formats", s->nev);
	ok(tdat_events_parsed(s) == 1, "loading parses one format (the "
	    "first, for the size of ids), not all (%zu)",
	    tdat_events_parsed(s));
	ok(!tdat_events_syms_loaded(s), "loading reads no kallsyms");
	ev = tdat_events_find_name(s, "sched", "sched_switch");
	ok(ev != NULL && ev->lazy == NULL && ev->nfields == 7,
	    "a format is parsed when its event is looked up");
	id = ev ? ev->id : -1;
	ok(tdat_events_find(s, id) == ev && tdat_events_find(s, 65535) ==
	    NULL && tdat_events_parsed(s) == 2,
	    "looking it up again, or an unknown id, parses nothing more");
	ok(!tdat_events_syms_loaded(s), "events need no kallsyms");

	all = eager(f);
	if (all == NULL) {
		ok(0, "the formats parsed at once");
		goto done;
	}
	for (i = 0; i < all->nev; i++)
		bad += !same_event(tdat_events_find(s, all->ev[i]->id),
		    all->ev[i]);
	ok(bad == 0, "every event found is the one parsed at once (%zu "
	    "differ)", bad);
	tdat_events_resolve(s);
	ok(s->nev == all->nev, "as many events once all are parsed");
	bad = syms_differ(s, all);
	ok(all->nsym > 90000 && bad == 0, "symbols read on first use are "
	    "the same (%zu differ)", bad);
	bad = 0;
	for (i = 0; i < all->nsym; i += 89) {
		size_t len = 12345, k;

		/* twice: the second from the cache */
		for (k = 0; k < 2; k++) {
			a1 = 0;
			n1 = tdat_events_sym_len(s, all->sym[i].addr + k, &a1,
			    &len);
			n2 = tdat_events_sym(s, all->sym[i].addr + k, &a2);
			if (n1 != n2 || (n1 && (len != strlen(n1) ||
			    a1 != a2)) || (!n1 && len != 0))
				bad++;
		}
	}
	ok(bad == 0, "tdat_events_sym_len: the name and its length (%zu "
	    "differ)", bad);
	ok(tdat_events_syms_loaded(s), "a symbol lookup reads the kallsyms");
	tdat_events_free(all);
done:
	tdat_events_free(s);
	tdat_close(f);
}

#define COMMON \
	"format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
#define EVENT(name, id, field) \
	"name: " name "\nID: " id "\n" COMMON field "\n" \
	"print fmt: \"x=%d\", REC->x\n"
#define GOOD	"\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n"
#define BAD	"\tfield:int x;\toffset:8;\tsize 4;\tsigned:1;\n"

/* Formats whose fields do not parse, first, in the middle, twice an id:
 * the deferred set drops them as the eager one does. */
static void
test_damaged(void)
{
	static const char *const fmt[] = {
		EVENT("a", "1", BAD), EVENT("b", "2", GOOD),
		EVENT("c", "3", BAD), EVENT("d", "4", GOOD),
		EVENT("e", "5", BAD), EVENT("f", "5", GOOD),
		EVENT("g", "6", GOOD), EVENT("h", "7", BAD),
		EVENT("i", "6", GOOD), EVENT("j", "1", GOOD),
	};
	struct tdat_events *s, *all;
	struct tdat_err e;
	size_t i, n = sizeof(fmt) / sizeof(fmt[0]), bad = 0;
	int id;

	s = tdat_events_new(8, 0);
	all = tdat_events_new(8, 0);
	if (s == NULL || all == NULL) {
		ok(0, "new sets");
		return;
	}
	for (i = 0; i < n; i++) {
		tdat_events_add_lazy(s, fmt[i], strlen(fmt[i]), "t", &e);
		tdat_events_add(all, fmt[i], strlen(fmt[i]), "t", NULL, &e);
	}
	ok(s->nev == n && all->nev == 6, "formats whose fields do not parse "
	    "are kept until looked up");
	tdat_events_finish(s, 0);
	tdat_events_finish(all, 0);
	ok(s->nev > 0 && s->ev[0]->lazy == NULL && s->ev[0]->id == 1 &&
	    strcmp(s->ev[0]->name, "j") == 0,
	    "the first event is parsed at finish, past damaged ones");
	for (i = 1; i < all->nev; i++)
		bad += all->ev[i]->id < all->ev[i - 1]->id ||
		    (all->ev[i]->id == all->ev[i - 1]->id &&
		    strcmp(all->ev[i]->name, all->ev[i - 1]->name) < 0);
	ok(bad == 0, "sorted by id, equal ids in the order added");
	bad = 0;
	for (id = 0; id <= 8; id++)
		bad += !same_event(tdat_events_find(s, id),
		    tdat_events_find(all, id));
	ok(bad == 0, "ids found as in the eager set (%zu differ)", bad);
	ok(tdat_events_find_name(s, "t", "h") == NULL &&
	    tdat_events_find_name(s, NULL, "d") == tdat_events_find(s, 4),
	    "by name too");
	ok(s->nev == all->nev, "damaged formats leave the set (%zu, %zu)",
	    s->nev, all->nev);
	tdat_events_free(s);
	tdat_events_free(all);
}

/* A kallsyms with out-of-order symbols, few or many (every step-th
 * one), and repeated addresses: sorted by address, the later name
 * first among equal ones, every symbol kept. */
static void
test_sort(int step)
{
	struct tdat_events *s = tdat_events_new(8, 0);
	struct tdat_sbuf b;
	unsigned long long a, sum = 0, got = 0;
	size_t i, n = 20000, bad = 0;

	tdat_sb_init(&b);
	for (i = 0; i < n; i++) {
		a = 0xffffffff81000000ull + i * 16;
		if (i % (size_t)step == 0)
			a = 0xffffffff81000000ull + (i * 7919 % n) * 16;
		if (i % 101 == 0)
			a -= 16;
		sum += a;
		tdat_sb_printf(&b, "%016llx T sym%zu\n", a, i);
	}
	if (s == NULL || tdat_events_add_kallsyms(s, b.p, b.len) < 0) {
		ok(0, "kallsyms added");
		return;
	}
	tdat_events_finish(s, 0);
	for (i = 0; i < s->nsym; i++) {
		got += s->sym[i].addr;
		if (i > 0 && (s->sym[i].addr < s->sym[i - 1].addr ||
		    (s->sym[i].addr == s->sym[i - 1].addr &&
		    s->sym[i].name > s->sym[i - 1].name)))
			bad++;
	}
	ok(s->nsym == n && got == sum && bad == 0, "kallsyms with one in %d "
	    "out of order sorted (%zu out of place)", step, bad);
	tdat_sb_free(&b);
	tdat_events_free(s);
}

/* Addresses in either case, and ones cut short by a character next to
 * the digits in ASCII: the digits up to it make the address, it is the
 * type, and the "T" after it the name. */
static void
test_hex(void)
{
	static const char *const addr[] = {
		"0123456789abcdef", "1123456789ABCDEF", "2fFfFfFf8a0B0c0D",
		"3fffffff81000000", "00000000000000ff", "5fffffff8100001/",
		"6fffffff8100002:", "7fffffff810@0000", "8ffffff`81000000",
		"9fffffg081000000", "afffffffG1000000", "9999999999999999",
		"bfffffff8100003\x7f", "caaaaaaa\x80" "aaaaaaa",
		"dAaAaAaA\xc1" "aaaaaaa",
	};
	struct tdat_events *s = tdat_events_new(8, 0);
	struct tdat_sbuf b;
	unsigned long long want[sizeof(addr) / sizeof(addr[0])], start;
	const char *name, *q;
	size_t i, n = sizeof(addr) / sizeof(addr[0]), bad = 0;
	int k;

	tdat_sb_init(&b);
	for (i = 0; i < n; i++) {
		want[i] = 0;
		for (q = addr[i], k = 0; k < 16 && *q &&
		    strchr("0123456789abcdefABCDEF", *q); q++, k++)
			want[i] = want[i] << 4 | (unsigned)(*q <= '9' ?
			    *q - '0' : (*q | 0x20) - 'a' + 10);
		/* a short address has the next character for its type */
		if (k < 16)
			tdat_sb_printf(&b, "%.*s T\n", k + 1, addr[i]);
		else
			tdat_sb_printf(&b, "%s T s%zu\n", addr[i], i);
	}
	if (s == NULL || tdat_events_add_kallsyms(s, b.p, b.len) < 0) {
		ok(0, "kallsyms added");
		return;
	}
	tdat_events_finish(s, 0);
	for (i = 0; i < n; i++) {
		char nm[16];

		snprintf(nm, sizeof(nm), "s%zu", i);
		name = tdat_events_sym(s, want[i], &start);
		if (strspn(addr[i], "0123456789abcdefABCDEF") < 16)
			snprintf(nm, sizeof(nm), "T");
		if (name == NULL || start != want[i] || strcmp(name, nm)) {
			bad++;
			printf("# %s: %s at %llx\n", addr[i], name ? name :
			    "(none)", start);
		}
	}
	ok(bad == 0, "hex addresses read as digit by digit (%zu differ)", bad);
	tdat_sb_free(&b);
	tdat_events_free(s);
}

/* text with its first space doubled: the same format, which the
 * shortcut for the usual head leaves to the tokenizer. */
static char *
respaced(const char *text, size_t len)
{
	char *t = malloc(len + 2);
	const char *sp = memchr(text, ' ', len);
	size_t at = sp ? (size_t)(sp - text) : 0;

	if (t == NULL)
		return NULL;
	memcpy(t, text, at);
	t[at] = ' ';
	memcpy(t + at + 1, text + at, len - at);
	t[len + 1] = '\0';
	return t;
}

/* A format's head read by the shortcut and by the tokenizer. */
static int
same_head(const char *text, size_t len, const char *sys)
{
	struct tdat_event *x = NULL, *y = NULL;
	struct tdat_err e;
	char *t = respaced(text, len);
	int rx, ry, same;

	rx = tdat_event_parse(text, len, sys, 8, 0, &x, &e);
	ry = t ? tdat_event_parse(t, len + 1, sys, 8, 0, &y, &e) : -1;
	same = rx == ry && (rx < 0 || (same_event(x, y) &&
	    x->nfields == y->nfields));
	tdat_event_free(x);
	tdat_event_free(y);
	free(t);
	return same;
}

static void
test_heads(void)
{
	static const char *const odd[] = {
		"name: a\nID: 0316\nformat:\n" GOOD "\n",
		"name: a\nID: 0x13c\nformat:\n" GOOD "\n",
		"name: a\nID: 12a\nformat:\n" GOOD "\n",
		"name: a\nID: 4294967295\nformat:\n" GOOD "\n",
		"name: a\nID: 99999999999999999999999\nformat:\n" GOOD "\n",
		"name: LOCAL_PR_FMT\nID: 5\nformat:\n" GOOD "\n",
		"name: b-c\nID: 5\nformat:\n" GOOD "\n",
		"name: a\nID: 5\nformat:\n",
		"name: a\nID: 5\nformat: x\n",
		"name: a\nID: 5\n",
		"name: ",
	};
	struct tdat_file *f;
	struct tdat_err e;
	size_t i, n = 0, bad = 0;
	uint32_t j, k;

	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		bad += !same_head(odd[i], strlen(odd[i]), "t");
	ok(bad == 0, "odd heads read as the tokenizer reads them (%zu "
	    "differ)", bad);
	if (tdat_open(FIXTURE, &f, &e) < 0) {
		ok(0, "open %s: %s", FIXTURE, e.msg);
		return;
	}
	bad = 0;
	for (j = 0; j < f->nftrace; j++, n++)
		bad += !same_head((const char *)f->ftrace[j].p,
		    f->ftrace[j].len, "ftrace");
	for (j = 0; j < f->nsys; j++)
		for (k = 0; k < f->sys[j].nev; k++, n++)
			bad += !same_head((const char *)f->sys[j].ev[k].p,
			    f->sys[j].ev[k].len, f->sys[j].name);
	ok(n > 40 && bad == 0, "the heads of %zu formats read as the "
	    "tokenizer reads them (%zu differ)", n, bad);
	tdat_close(f);
}

/*
 * kallsyms_table: the table is built on the kallsyms' thread as they
 * load, after their text is handed over; the first set to look a symbol
 * up takes it, the same symbols; a set loaded before that lookup reads
 * its own.  A file closed before any lookup stops the build (check-asan:
 * nothing leaks).  A v7 file's table is built on the thread that loads
 * the section; a v6 file's on one of its own from the text read.
 */
static void
test_table(const char *path, size_t minsym)
{
	struct tdat_open_opts oo = { .kallsyms_later = 1,
	    .kallsyms_table = 1 };
	struct tdat_file *f, *g;
	struct tdat_events *s, *s2, *all, *t;
	struct tdat_err e;
	size_t bad;
	int i;

	if (tdat_open(path, &g, &e) < 0 || (all = eager(g)) == NULL) {
		ok(0, "open %s: %s", path, e.msg);
		return;
	}
	if (tdat_open_ex(path, &oo, &f, &e) < 0) {
		ok(0, "open %s again: %s", path, e.msg);
		goto done;
	}
	ok(tdat_kallsyms_wait(f, &e) == 0 && f->ksyms_late != NULL &&
	    f->kallsyms.p != NULL, "the text is handed over, the table "
	    "still to come");
	t = f->ksyms_late ? f->ksyms_late(f) : NULL;
	bad = t ? syms_differ(t, all) : 1;
	ok(t != NULL && f->ksyms_late == NULL && all->nsym > minsym &&
	    bad == 0, "the table is that of the text (%zu differ)", bad);
	tdat_events_free(t);
	tdat_close(f);
	if (tdat_open_ex(path, &oo, &f, &e) < 0 ||
	    tdat_kallsyms_wait(f, &e) < 0 || tdat_events_load(f, &s, &e) < 0 ||
	    tdat_events_load(f, &s2, &e) < 0) {
		ok(0, "open %s and load: %s", path, e.msg);
		goto done;
	}
	ok(!tdat_events_syms_loaded(s) && f->ksyms_late != NULL,
	    "a set loaded does not wait for the table");
	i = tdat_events_sym(s, all->sym[0].addr, NULL) != NULL;
	ok(i && f->ksyms_late == NULL && s->nsym == all->nsym,
	    "the first lookup takes it (%zu symbols)", s->nsym);
	bad = syms_differ(s, all);
	ok(bad == 0, "its symbols are those read on first use (%zu differ)",
	    bad);
	ok(!tdat_events_syms_loaded(s2) && tdat_events_sym(s2,
	    all->sym[0].addr, NULL) != NULL && syms_differ(s2, all) == 0,
	    "a second set reads its own on first use");
	tdat_events_free(s2);
	tdat_events_free(s);
	tdat_close(f);
	/* closed at once, and with the table built but not taken */
	for (i = 0, bad = 0; i < 2; i++) {
		if (tdat_open_ex(path, &oo, &f, &e) < 0 ||
		    tdat_kallsyms_wait(f, &e) < 0) {
			bad++;
			continue;
		}
		if (i == 1) {
			struct timespec ts = { 0, 200 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
		tdat_close(f);
	}
	ok(bad == 0, "a file closed before the table is taken");
done:
	tdat_events_free(all);
	tdat_close(g);
}

int
main(void)
{
	tdat_formats_all();
	test_trace();
	test_table(FIXTURE, 90000);
	test_table(V6_FIXTURE, 50000);
	test_damaged();
	test_sort(3);
	test_sort(50);
	test_sort(1000);
	test_hex();
	test_heads();
	return tap_done();
}
