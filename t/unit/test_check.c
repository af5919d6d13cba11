/*
 * test_check.c: lib/check's format-neutral rules (tdat-check.h).  The
 * findings: without keep_going a section stops at its first error and a
 * warning of one kind is reported once, with keep_going every one is.
 * The rules on a source that is not a trace.dat: an LTT directory written
 * from a trace.dat, its texts, event formats, print formats and every
 * CPU's pages checked through its own page operations, on one thread and
 * on two, find nothing and count the records the trace.dat's check
 * counts.  The event table's fast[] entries (lib/ring/events.c), which
 * the page checker's walk reads records by, and that walk on a page of
 * records of an event without dynamic fields, of one with them, of no
 * event, too short for theirs, and of a delta that wraps the clock.
 */
#include <stdint.h>
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

/* fast[] as tdat_ring_events_add() keeps it. */
static void
fast_table(void)
{
	struct tdat_ring_events t;
	struct tdat_shape a = { 12, 0, NULL }, b = { 16, 1, NULL };
	struct tdat_shape c = { 8, 0, NULL }, d = { 40, 0, NULL };
	size_t ia = 9, ib = 9, ic = 9, id = 9;
	int ra, rb, rc, rd;

	memset(&t, 0, sizeof(t));
	b.loc = calloc(1, sizeof(*b.loc));
	ra = tdat_ring_events_add(&t, 5, "s:a", &a, &ia);
	rb = tdat_ring_events_add(&t, 9, "s:b", &b, &ib);
	ok(ra == 0 && rb == 0 && t.nidx > 9 && t.fast[5] == ((uint64_t)ia <<
	    32 | 12) && t.fast[9] == ((uint64_t)ib << 32 |
	    TDAT_RING_FAST_LOC | TDAT_RING_FAST_NONE) &&
	    t.fast[0] == TDAT_RING_FAST_NONE && t.fast[7] == TDAT_RING_FAST_NONE,
	    "fast[]: an event's min_size and index, dynamic fields marked "
	    "(no size), no event NONE");
	rc = tdat_ring_events_add(&t, 300, "s:c", &c, &ic);
	rd = tdat_ring_events_add(&t, 5, "s:d", &d, &id);
	ok(rc == 0 && rd == 1 && id == ia && t.nidx > 300 &&
	    t.fast[300] == ((uint64_t)ic << 32 | 8) &&
	    t.fast[299] == TDAT_RING_FAST_NONE &&
	    t.fast[5] == ((uint64_t)ia << 32 | 12), "fast[] grows with the "
	    "ids; an id's first event keeps it");
	tdat_ring_events_free(&t);
}

struct seen_issue {
	int n, what;
	uint64_t off;
};

static int
note_issue(void *arg, const struct tdat_ring_issue *is)
{
	struct seen_issue *si = arg;

	if (si->n++ == 0) {
		si->what = is->what;
		si->off = is->off;
	}
	return 0;
}

/* Put a record of event id with len bytes (a multiple of 4, up to 112)
 * at d + *at, delta after the last; its bytes from 2 on are zeros. */
static void
put_record(unsigned char *d, uint32_t *at, uint16_t id, uint32_t len,
    uint32_t delta)
{
	uint32_t w = len / 4 | delta << 5;

	memcpy(d + *at, &w, 4);
	memset(d + *at + 4, 0, len);
	memcpy(d + *at + 4, &id, 2);
	*at += 4 + len;
}

/* A page of records on the checker (little-endian, 8-byte commit). */
static void
walk_page(void)
{
	static unsigned char pg_bytes[4096];
	struct tdat_page_layout pl;
	struct tdat_ring_events t;
	struct tdat_ring_check ck;
	struct tdat_page pg;
	struct tdat_shape a = { 12, 0, NULL }, b = { 16, 1, NULL };
	struct seen_issue si;
	struct tdat_err e = { 0 };
	unsigned char seen[3] = { 0 };
	unsigned char *d = pg_bytes + 16;
	uint64_t stamp = 1000, commit;
	uint32_t at = 0, loc = 4u << 16 | 12, third;
	size_t ix;

	if (tdat_ring_layout(0, 8, NULL, 0, &pl, &e) < 0) {
		ok(0, "a page layout: %s", e.msg);
		return;
	}
	memset(&t, 0, sizeof(t));
	b.loc = calloc(1, sizeof(*b.loc));
	b.loc->off = 8;
	b.loc->str = 1;
	tdat_ring_events_add(&t, 5, "s:a", &a, &ix);
	tdat_ring_events_add(&t, 9, "s:b", &b, &ix);
	put_record(d, &at, 5, 12, 10);
	put_record(d, &at, 9, 16, 1);
	memcpy(d + at - 16 + 8, &loc, 4);	/* "abc" at 12 of record 2 */
	memcpy(d + at - 16 + 12, "abc", 4);
	put_record(d, &at, 5, 12, 1);
	third = at;
	put_record(d, &at, 7, 12, 1);	/* no event */
	put_record(d, &at, 5, 12, 1);
	commit = at;
	memcpy(pg_bytes, &stamp, 8);
	memcpy(pg_bytes + 8, &commit, 8);

	memset(&ck, 0, sizeof(ck));
	memset(&si, 0, sizeof(si));
	ck.pl = &pl;
	ck.events = &t;
	ck.issue = note_issue;
	ck.arg = &si;
	ck.seen = seen;
	memset(&pg, 0, sizeof(pg));
	pg.p = pg_bytes;
	pg.page_size = 4096;
	pg.off = 4096;
	pg.chunk_pos = -1;
	tdat_ring_check_page(&ck, &pg);
	ok(si.n == 1 && si.what == TDAT_RI_NO_FORMAT && si.off == 4096 + 16 +
	    third && ck.records == 5 && seen[0] && seen[1] && ck.have_ts &&
	    ck.last_ts == 1014, "a page: the record of no event found where "
	    "it is, the others read (%d issues, %llu records)", si.n,
	    (unsigned long long)ck.records);

	at = 0;
	put_record(d, &at, 9, 16, 1);	/* its string: zeros, so "" */
	put_record(d, &at, 5, 8, 1);	/* shorter than 12 */
	commit = at;
	memcpy(pg_bytes + 8, &commit, 8);
	stamp = 2000;
	memcpy(pg_bytes, &stamp, 8);
	memset(&si, 0, sizeof(si));
	memset(&pg, 0, sizeof(pg));
	pg.p = pg_bytes;
	pg.page_size = 4096;
	pg.off = 8192;
	pg.chunk_pos = -1;
	tdat_ring_check_page(&ck, &pg);
	ok(si.n == 1 && si.what == TDAT_RI_SHORT && si.off == 8192 + 16 + 20,
	    "a record shorter than its event's found where it is (%d issues)",
	    si.n);

	/* a clock about to wrap: the second record's delta wraps it */
	at = 0;
	put_record(d, &at, 5, 12, 10);
	third = at;
	put_record(d, &at, 5, 12, 10);
	commit = at;
	memcpy(pg_bytes + 8, &commit, 8);
	stamp = UINT64_MAX - 15;
	memcpy(pg_bytes, &stamp, 8);
	memset(&si, 0, sizeof(si));
	tdat_ring_check_cpu(&ck);
	memset(&pg, 0, sizeof(pg));
	pg.p = pg_bytes;
	pg.page_size = 4096;
	pg.off = 12288;
	pg.chunk_pos = -1;
	tdat_ring_check_page(&ck, &pg);
	ok(si.n == 1 && si.what == TDAT_RI_TIME_WRAP && si.off == 12288 + 16 +
	    third, "a delta that wraps the clock found where it is (%d "
	    "issues)", si.n);
	tdat_ring_events_free(&t);
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

	fast_table();
	walk_page();
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
