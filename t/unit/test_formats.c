/*
 * test_formats.c: the engine opens and checks inputs only through the
 * formats it is handed (lib/read/source.c): none known is one clear
 * error, the first format that bids takes the path, one with no bid
 * takes anything, and tdat_formats_all() gives formats/'s list back.
 */
#include <string.h>

#include "tdat-int.h"
#include "tdat-tracedat.h"
#include "tap.h"

static int opened, verified;

static int
bid_x(const char *path)
{
	return strcmp(path, "x") == 0;
}

static int
open_x(const char *path, const struct tdat_open_opts *o,
    struct tdat_file **out, struct tdat_err *e)
{
	opened++;
	return tdat_fail_nooff(e, TDAT_EUNSUP, "format x");
}

static int
open_any(const char *path, const struct tdat_open_opts *o,
    struct tdat_file **out, struct tdat_err *e)
{
	opened += 10;
	return tdat_fail_nooff(e, TDAT_EUNSUP, "format any");
}

static int
verify_x(const char *path, const struct tdat_verify_opts *o,
    struct tdat_verify_stats *st, struct tdat_err *e)
{
	verified++;
	return 0;
}

static const struct tdat_format fx = {
	.name = "x", .bid = bid_x, .open = open_x, .verify = verify_x
};
static const struct tdat_format fany = {
	.name = "any", .bid = NULL, .open = open_any, .verify = verify_x
};

int
main(void)
{
	static const struct tdat_format *const none[] = { NULL };
	static const struct tdat_format *const two[] = { &fx, &fany, NULL };
	static const struct tdat_format *const one[] = { &fx, NULL };
	struct tdat_verify_stats st;
	struct tdat_file *f = (struct tdat_file *)&st;
	struct tdat_err e;

	ok(tdat_open("t/data/x86_64-default-sched.dat", &f, &e) ==
	    TDAT_EUNSUP && f == NULL && strstr(e.msg, "no input format") &&
	    tdat_verify("x", NULL, &st, &e) == TDAT_EUNSUP,
	    "no format known: one error (%s)", e.msg);
	tdat_formats_set(none);
	ok(tdat_open("x", &f, &e) == TDAT_EUNSUP &&
	    strcmp(e.msg, "no input format reads it") == 0,
	    "an empty list: nothing reads it");
	tdat_formats_set(two);
	ok(tdat_open("x", &f, &e) < 0 && opened == 1 &&
	    strcmp(e.msg, "format x") == 0, "the format that bids opens it");
	ok(tdat_open("y", &f, &e) < 0 && opened == 11 &&
	    strcmp(e.msg, "format any") == 0, "the one without a bid takes "
	    "the rest");
	ok(tdat_verify("x", NULL, &st, &e) == 0 && verified == 1,
	    "tdat_verify() asks the same format");
	tdat_formats_set(one);
	ok(tdat_open("y", &f, &e) == TDAT_EUNSUP && opened == 11,
	    "no format bids: none is asked");
	tdat_formats_all();
	ok(tdat_open("t/data/x86_64-default-sched.dat", &f, &e) == 0 &&
	    f->page_ops && f->page_ops->parallel,
	    "formats/'s list: a trace.dat opens, with its page operations");
	tdat_close(f);

	/* What only a trace.dat holds is its format's, behind page_arg. */
	if (tdat_open("t/data/s390x-v7-zstd-sched.dat", &f, &e) == 0) {
		const struct tdat_tracedat *td = tdat_tracedat_of(f);

		ok(tdat_is_tracedat(f) && td->nsect > 0 && td->codec &&
		    td->strings_len > 0 && tdat_string(f, td->sect[0].name_id),
		    "a v7 trace.dat: its sections, strings and codec in its "
		    "container");
		tdat_close(f);
	} else
		ok(0, "a v7 trace.dat opens: %s", e.msg);
	/* A v7 trace.dat's large compressed kallsyms are read, and their
	 * lines checked, on a thread of their own (tracedat.c kload_*()):
	 * the writer takes that check (tdat_text_refuse_known()); not after
	 * a salvage, which may drop lines. */
	if (tdat_open("t/data/x86_64-default-sched.dat", &f, &e) == 0) {
		const struct tdat_tracedat *td = tdat_tracedat_of(f);
		struct tdat_text_check r;

		tdat_text_check(TDAT_TEXT_KALLSYMS, (const char *)f->kallsyms.p,
		    (size_t)f->kallsyms.len, &r);
		ok(td->kchecked && td->kcheck_len == f->kallsyms.len &&
		    td->kcheck.lines == r.lines && td->kcheck.bad == 0 &&
		    r.bad == 0 && r.lines > 40000,
		    "a v7 trace.dat's kallsyms: checked as read (%llu lines)",
		    (unsigned long long)td->kcheck.lines);
		tdat_close(f);
	} else
		ok(0, "a v7 trace.dat opens: %s", e.msg);
	{
		struct tdat_open_opts oo = { .salvage = 1 };

		f = NULL;
		ok(tdat_open_ex("t/data/x86_64-default-sched.dat", &oo, &f,
		    &e) == 0 && !tdat_tracedat_of(f)->kchecked,
		    "a salvage's kallsyms: checked again by the writer");
		tdat_close(f);
	}
	{
		struct tdat_file made;

		memset(&made, 0, sizeof(made));
		ok(!tdat_is_tracedat(&made) &&
		    tdat_tracedat_of(&made)->nsect == 0 &&
		    tdat_tracedat_of(&made)->codec == NULL &&
		    tdat_string(&made, 0) == NULL,
		    "another input: an empty container");
	}
	return tap_done();
}
