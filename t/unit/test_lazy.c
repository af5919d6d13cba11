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

#include "tdat-int.h"
#include "event-int.h"
#include "tap.h"

#define FIXTURE	"t/data/x86_64-default-sched.dat"

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
	bad = 0;
	for (i = 0; i < all->nsym; i += 97) {
		a1 = a2 = 0;
		n1 = tdat_events_sym(s, all->sym[i].addr + 1, &a1);
		n2 = tdat_events_sym(all, all->sym[i].addr + 1, &a2);
		if ((n1 == NULL) != (n2 == NULL) || (n1 && (strcmp(n1, n2) ||
		    a1 != a2)))
			bad++;
	}
	ok(all->nsym > 90000 && bad == 0, "symbols read on first use are "
	    "the same (%zu differ)", bad);
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
	ok(s->nev == n && all->nev == 4, "formats whose fields do not parse "
	    "are kept until looked up");
	tdat_events_finish(s, 0);
	tdat_events_finish(all, 0);
	ok(s->nev > 0 && s->ev[0]->lazy == NULL && s->ev[0]->id == 2,
	    "the first event is parsed at finish, past damaged ones");
	for (id = 0; id <= 8; id++)
		bad += !same_event(tdat_events_find(s, id),
		    tdat_events_find(all, id));
	ok(bad == 0, "ids found as in the eager set (%zu differ)", bad);
	ok(tdat_events_find_name(s, "t", "h") == NULL &&
	    tdat_events_find_name(s, NULL, "g") == tdat_events_find(s, 6),
	    "by name too");
	ok(s->nev == all->nev, "damaged formats leave the set (%zu, %zu)",
	    s->nev, all->nev);
	tdat_events_free(s);
	tdat_events_free(all);
}

int
main(void)
{
	test_trace();
	test_damaged();
	return tap_done();
}
