/*
 * test_check.c: lib/check's format-neutral rules (tdat-check.h).  The
 * findings: without keep_going a section stops at its first error and a
 * warning of one kind is reported once, with keep_going every one is.
 * The rules on a source that is not a trace.dat: an LTT directory written
 * from a trace.dat, its texts, event formats, print formats and every
 * CPU's pages checked through its own page operations, on one thread and
 * on two, find nothing and count the records the trace.dat's check
 * counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdat-int.h"
#include "tdat-verify.h"
#include "tdat-check.h"
#include "tap.h"

#define SRC	"t/data/x86_64-default-sched.dat"

static int nfound;

static int
count(void *arg, const struct tdat_finding *fd)
{
	nfound++;
	return 0;
}

/* Two errors and two warnings of one kind in one section. */
static void
findings(int keep_going, struct tdat_verify_stats *st)
{
	struct tdat_verify_opts o = { .keep_going = keep_going,
	    .found = count };
	struct tdat_check c;
	struct tdat_err e = { 0 };

	memset(&c, 0, sizeof(c));
	memset(st, 0, sizeof(*st));
	c.o = &o;
	c.st = st;
	c.e = &e;
	nfound = 0;
	tdat_check_section(&c);
	TDAT_CHECK_WARN(&c, "w", 1, "warning %d", 1);
	TDAT_CHECK_WARN(&c, "w", 2, "warning %d", 2);
	TDAT_CHECK_ERR(&c, "e", 3, "error %d", 1);
	if (!c.sec_stop)
		TDAT_CHECK_ERR(&c, "e", 4, "error %d", 2);
}

/* lib/check's rules alone on the input at path; 0 or an error code. */
static int
check_rules(const char *path, int threads, struct tdat_verify_stats *st)
{
	struct tdat_verify_opts o = { .found = count, .threads = threads };
	struct tdat_check c;
	struct tdat_err e = { 0 };
	struct tdat_file *f;
	int rc;

	memset(st, 0, sizeof(*st));
	if ((rc = tdat_open(path, &f, &e)) < 0)
		return rc;
	memset(&c, 0, sizeof(c));
	c.f = f;
	c.o = &o;
	c.st = st;
	c.e = &e;
	c.have_pl = tdat_page_layout(f, &c.pl, &e) == 0;
	tdat_check_scan_texts(&c);
	tdat_check_texts(&c);
	tdat_check_formats(&c);
	if ((c.seen = calloc(c.events.nev + 1, 1)) == NULL)
		tdat_check_nomem(&c);
	tdat_check_pages(&c);
	tdat_check_print_formats(&c, 0);
	rc = c.fatal ? e.code : c.have_pl ? 0 : -1;
	tdat_check_free(&c);
	tdat_close(f);
	return rc;
}

int
main(void)
{
	struct tdat_ltt_write_opts lo;
	struct tdat_verify_stats st, ref, st2;
	struct tdat_verify_opts o = { .found = count };
	struct tdat_file *f;
	struct tdat_err e;
	char dir[] = "/tmp/test_check.XXXXXX";
	int rc;

	findings(0, &st);
	ok(nfound == 2 && st.errors == 1 && st.warnings == 2 &&
	    st.unreported == 1, "without keep_going: a warning kind once, "
	    "the section stops at its first error (%d found)", nfound);
	findings(1, &st);
	ok(nfound == 4 && st.errors == 2 && st.warnings == 2 &&
	    st.unreported == 0, "with keep_going: every finding (%d found)",
	    nfound);

	tdat_formats_all();
	memset(&ref, 0, sizeof(ref));
	nfound = 0;
	if (tdat_open(SRC, &f, &e) < 0 || tdat_verify_file(f, &o, &ref,
	    &e) < 0) {
		ok(0, "%s: %s", SRC, e.msg);
		return tap_done();
	}
	ok(nfound == 0 && ref.records > 0, "the trace.dat checks clean "
	    "(%llu records)", (unsigned long long)ref.records);
	memset(&lo, 0, sizeof(lo));
	if (mkdtemp(dir) == NULL || tdat_ltt_write(f, dir, &lo, &e) < 0) {
		ok(0, "LTT of %s: %s", SRC, e.msg);
		tdat_close(f);
		return tap_done();
	}
	tdat_close(f);

	nfound = 0;
	rc = check_rules(dir, 1, &st);
	ok(rc == 0 && nfound == 0 && st.errors == 0 &&
	    st.records == ref.records && st.pages > 0, "an LTT directory, one "
	    "thread: no finding, %llu records in %llu pages (rc %d)",
	    (unsigned long long)st.records, (unsigned long long)st.pages, rc);
	nfound = 0;
	rc = check_rules(dir, 2, &st2);
	ok(rc == 0 && nfound == 0 && st2.records == st.records &&
	    st2.pages == st.pages, "and two: the same counts");

	rm_tree(dir);
	return tap_done();
}
