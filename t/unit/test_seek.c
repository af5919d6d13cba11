/*
 * test_seek.c: time cuts by bisection (tdat_pages_seek_ts(), and the
 * reader's use of it for --since and --until).  A big trace is made by
 * merging copies of a fixture, raw (v6) and in zstd chunks (v7); a cut
 * in its middle must keep exactly the records a full decode keeps, while
 * fetching O(log n) windows (page reads, chunk decompressions) where the
 * full decode fetches every one up to the window.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdat-int.h"
#include "tdat-tracedat.h"
#include "tdat-sink.h"
#include "tap.h"

#define FIXTURE	"t/data/s390x-v7-zstd-sched.dat"	/* big-endian */
#define COPIES	16

/* COPIES copies of FIXTURE merged into one trace at path. */
static int
make_big(char *path, int version, const char *comp)
{
	struct tdat_write_opts o = { .version = version, .compression = comp };
	struct tdat_file *f[COPIES];
	struct tdat_repack *rp = NULL;
	struct tdat_err e;
	size_t i, n = 0;
	int fd, rc = -1;

	if ((fd = mkstemp(path)) < 0)
		return -1;
	for (n = 0; n < COPIES; n++)
		if (tdat_open(FIXTURE, &f[n], &e) < 0)
			goto done;
	if (tdat_repack_open(f, n, NULL, &rp, &e) < 0)
		goto done;
	o.pages = tdat_repack_pages(rp);
	rc = tdat_write(f[0], fd, &o, &e);
done:
	tdat_repack_close(rp);
	for (i = 0; i < n; i++)
		tdat_close(f[i]);
	close(fd);
	return rc;
}

struct cut {
	uint64_t kept, sum;	/* records kept, a checksum of them */
	uint64_t loads;		/* windows the reader's streams fetched */
	uint64_t pages;		/* pages they decoded */
	uint64_t units;		/* the most units (pages, chunks) of a CPU */
	size_t streams;
};

/* Run the selection since..until over f, full decode or not. */
static int
cut(struct tdat_file *f, uint64_t since, uint64_t until, int full,
    struct cut *c)
{
	struct tdat_select_opts so = { .has_since = 1, .has_until = 1,
	    .since = since, .until = until, .full_decode = full };
	struct tdat_reader_opts ro = { .buffer = -1 };
	struct tdat_select *sel;
	struct tdat_reader *rd;
	struct tdat_record r;
	struct tdat_err e;
	uint32_t i;
	int bad, rc;

	memset(c, 0, sizeof(*c));
	if (tdat_select_open(&f, 1, &so, &sel, &bad, &e) < 0)
		return -1;
	tdat_select_filter(sel, 0, &ro.filter);
	if (tdat_reader_open(f, &ro, &rd, &e) < 0) {
		tdat_select_close(sel);
		return -1;
	}
	while ((rc = tdat_reader_next(rd, &r, &e)) > 0) {
		c->kept++;
		c->sum = c->sum * 31 + r.ts * 7 + (uint64_t)r.cpu + r.size;
		for (i = 0; i < r.size; i++)
			c->sum = c->sum * 3 + r.data[i];
	}
	tdat_reader_counts(rd, &c->loads, &c->pages);
	tdat_reader_close(rd);
	tdat_select_close(sel);
	for (i = 0; i < f->buf[0].ncpu; i++) {
		const struct tdat_cpu *cp = &f->buf[0].cpu[i];
		struct tdat_chunk *ch;
		uint32_t n;
		uint64_t u;

		if (cp->size == 0)
			continue;
		c->streams++;
		if (f->buf[0].compressed) {
			if (tdat_cpu_chunks(f, &f->buf[0], cp, &ch, &n, &e) < 0)
				return -1;
			free(ch);
			u = n;
		} else
			u = cp->size / f->buf[0].page_size;
		if (u > c->units)
			c->units = u;
	}
	return rc;
}

/* A sink that counts what it gets and, at its end, what the driver's
 * streams fetched. */
struct counting {
	struct tdat_run *run;
	uint64_t kept, loads, pages;
};

static int
count_begin(void *arg, struct tdat_file *const *files, size_t n,
    struct tdat_run *run, struct tdat_err *e)
{
	(void)files;
	(void)n;
	(void)e;
	((struct counting *)arg)->run = run;
	return TDAT_RUN_RECORDS;
}

static int
count_record(void *arg, size_t k, const struct tdat_record *rec,
    struct tdat_err *e)
{
	(void)k;
	(void)rec;
	(void)e;
	((struct counting *)arg)->kept++;
	return 0;
}

static int
count_end(void *arg, int complete, struct tdat_err *e)
{
	struct counting *c = arg;

	(void)complete;
	(void)e;
	tdat_run_counts(c->run, &c->loads, &c->pages);
	return 0;
}

static void
count_free(void *arg)
{
	(void)arg;
}

static const struct tdat_sink_ops count_ops = {
	0, count_begin, count_record, count_end, count_free, NULL
};

/* The driver (tdat_run(), what the tools use) over f up to until. */
static int
run_until(struct tdat_file *f, int has_until, uint64_t until,
    struct counting *c)
{
	struct tdat_select_opts so = { .has_until = has_until,
	    .until = until };
	struct tdat_sink sink = { &count_ops, c };
	struct tdat_select *sel;
	struct tdat_err e;
	int bad, rc;

	memset(c, 0, sizeof(*c));
	if (tdat_select_open(&f, 1, &so, &sel, &bad, &e) < 0)
		return -1;
	rc = tdat_run(&f, 1, sel, &sink, NULL, NULL, &e);
	tdat_select_close(sel);
	return rc;
}

/* The first and last record times of f. */
static int
span(struct tdat_file *f, uint64_t *first, uint64_t *last)
{
	struct tdat_reader_opts ro = { .buffer = -1 };
	struct tdat_reader *rd;
	struct tdat_record r;
	struct tdat_err e;
	int rc, n = 0;

	if (tdat_reader_open(f, &ro, &rd, &e) < 0)
		return -1;
	while ((rc = tdat_reader_next(rd, &r, &e)) > 0) {
		if (n++ == 0)
			*first = r.ts;
		*last = r.ts;
	}
	tdat_reader_close(rd);
	return rc < 0 || n == 0 ? -1 : 0;
}

/* --until stops the driver's streams too: a tool reading up to a time
 * early in the trace fetches a few windows per CPU, not all of them. */
static void
test_run_until(struct tdat_file *f, const char *what, uint64_t first,
    uint64_t last)
{
	struct counting early, all;
	int rc;

	rc = run_until(f, 1, first + (last - first) / 1000, &early);
	if (run_until(f, 0, 0, &all) < 0)
		rc = -1;
	ok(rc == 0 && early.kept > 0 && early.kept < all.kept &&
	    all.loads > 8 * early.loads,
	    "%s: tdat_run stops at --until: %llu windows for %llu records, "
	    "%llu for all %llu", what, (unsigned long long)early.loads,
	    (unsigned long long)early.kept, (unsigned long long)all.loads,
	    (unsigned long long)all.kept);
}

static void
test_cuts(int version, const char *comp)
{
	char path[] = "/tmp/test_seek.XXXXXX";
	struct tdat_file *f;
	struct tdat_err e;
	struct cut fast, full;
	uint64_t first = 0, last = 0, mid, w, bound;
	const char *what = version == 7 ? "v7 zstd" : "v6";
	int logn, rc;

	if (make_big(path, version, comp) < 0 || tdat_open(path, &f, &e) < 0 ||
	    span(f, &first, &last) < 0) {
		ok(0, "%s: %d merged copies of %s", what, COPIES, FIXTURE);
		unlink(path);
		return;
	}
	ok(f->version == version && f->buf[0].compressed == (version == 7),
	    "%s: %d merged copies of %s", what, COPIES, FIXTURE);
	/* A window of a thousandth of the trace, in its middle. */
	w = (last - first) / 1000;
	mid = first + (last - first) / 2;
	rc = cut(f, mid, mid + w, 0, &fast);
	if (cut(f, mid, mid + w, 1, &full) < 0)
		rc = -1;
	ok(rc == 0, "%s: cut both ways", what);
	ok(fast.kept > 0 && fast.kept == full.kept && fast.sum == full.sum,
	    "%s: the cut keeps what a full decode keeps (%llu records)",
	    what, (unsigned long long)fast.kept);
	logn = (int)ceil(log2((double)fast.units + 1));
	/* per CPU: the probes, the window found, and the ones the kept
	 * records and the record after them lie in */
	bound = fast.streams * (uint64_t)(logn + 4);
	ok(fast.loads <= bound, "%s: %llu windows fetched for the cut, at most "
	    "%llu (%zu CPUs, log2 of %llu units)", what,
	    (unsigned long long)fast.loads, (unsigned long long)bound,
	    fast.streams, (unsigned long long)fast.units);
	/* the units' times guide the probes (guess()): bisecting alone
	 * fetched 46 windows here in v6, 27 in v7 */
	bound = fast.streams * (uint64_t)(3 * logn / 4 + 2);
	ok(fast.loads <= bound, "%s: fewer probes than bisecting: %llu "
	    "windows, at most %llu", what, (unsigned long long)fast.loads,
	    (unsigned long long)bound);
	ok(full.loads > 4 * fast.loads || full.pages > 20 * fast.pages,
	    "%s: a full decode fetches %llu windows and decodes %llu pages, "
	    "the cut %llu pages", what, (unsigned long long)full.loads,
	    (unsigned long long)full.pages, (unsigned long long)fast.pages);
	/* Windows at the edges: before the first record, after the last,
	 * empty, the whole trace. */
	rc = cut(f, 0, first - 1, 0, &fast);
	ok(rc == 0 && fast.kept == 0 && fast.loads <= fast.streams * 2,
	    "%s: before the first record: nothing, %llu windows", what,
	    (unsigned long long)fast.loads);
	rc = cut(f, last + 1, UINT64_MAX, 0, &fast);
	ok(rc == 0 && fast.kept == 0 &&
	    fast.loads <= fast.streams * (uint64_t)(logn + 3),
	    "%s: after the last record: nothing, %llu windows", what,
	    (unsigned long long)fast.loads);
	rc = cut(f, mid + 1, mid, 0, &fast);
	ok(rc == 0 && fast.kept == 0, "%s: an empty window", what);
	rc = cut(f, first, last, 0, &fast);
	if (cut(f, first, last, 1, &full) < 0)
		rc = -1;
	ok(rc == 0 && fast.kept == full.kept && fast.sum == full.sum,
	    "%s: the whole trace (%llu records)", what,
	    (unsigned long long)fast.kept);
	test_run_until(f, what, first, last);
	rc = cut(f, first + 1, last - 1, 0, &fast);
	if (cut(f, first + 1, last - 1, 1, &full) < 0)
		rc = -1;
	ok(rc == 0 && fast.kept == full.kept && fast.sum == full.sum,
	    "%s: all but the first and last nanosecond (%llu records)", what,
	    (unsigned long long)fast.kept);
	tdat_close(f);
	unlink(path);
}

/* tdat_pages_seek_ts() starts at the last page whose stamp is below the
 * time: every page before it is below, the one after it is not. */
static uint64_t
ident(void *arg, uint64_t raw)
{
	(void)arg;
	return raw;
}

static void
test_pages_seek(void)
{
	char path[] = "/tmp/test_seek_pages.XXXXXX";
	struct tdat_page_layout pl;
	struct tdat_file *f;
	struct tdat_pages *ps;
	struct tdat_page pg;
	struct tdat_err e;
	uint64_t *stamp = NULL, n = 0, i, j, k, ts;
	size_t avail, cap = 0;
	int good = 1, rc;

	if (make_big(path, 6, "none") < 0 || tdat_open(path, &f, &e) < 0 ||
	    tdat_page_layout(f, &pl, &e) < 0 ||
	    tdat_pages_open(f, 0, 0, &ps, &e) < 0) {
		ok(0, "the pages of CPU 0 of a v6 copy");
		unlink(path);
		return;
	}
	while ((rc = tdat_pages_next(ps, &pg, &avail, &e)) > 0) {
		if (n == cap && (stamp = realloc(stamp, (cap = cap * 2 + 64) *
		    sizeof(*stamp))) == NULL)
			break;
		tdat_page_init(&pl, &pg, &e);
		stamp[n++] = pg.stamp;
	}
	tdat_pages_close(ps);
	ok(n > 1000, "CPU 0 has %llu pages", (unsigned long long)n);
	for (k = 0; k < n && good; k += n / 37 + 1) {
		for (i = 0; i < 3 && good; i++) {
			ts = stamp[k] + i - 1;
			if (tdat_pages_open(f, 0, 0, &ps, &e) < 0 ||
			    tdat_pages_seek_ts(ps, &pl, ident, NULL, ts, &e) < 0 ||
			    tdat_pages_next(ps, &pg, &avail, &e) != 1) {
				good = 0;
				break;
			}
			tdat_page_init(&pl, &pg, &e);
			/* the page found: the last one below ts, or the
			 * first when none is */
			j = (pg.off - f->buf[0].cpu[0].off) / f->buf[0].page_size;
			if (j >= n || (stamp[j] >= ts && j > 0) ||
			    (j + 1 < n && stamp[j + 1] < ts))
				good = 0;
			if (tdat_pages_loads(ps) > 2 * (uint64_t)log2((double)n) + 4)
				good = 0;
			tdat_pages_close(ps);
		}
	}
	ok(good, "seeking to page stamps, one below and one above, finds the "
	    "last page below, in O(log n) reads");
	free(stamp);
	tdat_close(f);
	unlink(path);
}

int
main(void)
{
	tdat_formats_all();
	test_cuts(6, "none");
	test_cuts(7, "zstd");
	test_pages_seek();
	return tap_done();
}
