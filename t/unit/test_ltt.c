/*
 * test_ltt.c: unit tests of the LTT module (formats/ltt*.c): the built-in
 * texts agree with formats/ltt/ltt-builtin.xml and schemas/, a fixture goes
 * to an LTT directory and back to a trace.dat with the same records,
 * and tdat_ltt_verify() finds each kind of damage with its location.
 * TAP output; run from the top of the source tree.
 */
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdat-int.h"
#include "tdat-ltt.h"
#include "../../formats/ltt/ltt-int.h"
#include "tap.h"

/* Internal texts of formats/ltt*.c, compared with their source files. */
extern const char tdat_ltt_builtin_xml[], tdat_ltt_xsd_eventdefs[],
    tdat_ltt_xsd_system[],
    tdat_ltt_xsd_bookmarks[], tdat_ltt_xsd_tracedat[];

#define FIXTURE	"t/data/labsisop-qemu-trace.dat"

static char tmp[] = "/tmp/tdat-test-ltt-XXXXXX";


static void
same_text(const char *builtin, const char *path)
{
	size_t n;
	char *f = slurp(path, &n);

	ok(f && strcmp(f, builtin) == 0, "built-in text equals %s", path);
	free(f);
}

struct found {
	int n;
	char file[64], msg[256];
	long long block, off;
};

static void
finding(void *arg, const char *file, long long block, long long off,
    const char *msg)
{
	struct found *f = arg;

	if (f->n++ == 0) {
		snprintf(f->file, sizeof(f->file), "%s", file);
		snprintf(f->msg, sizeof(f->msg), "%s", msg);
		f->block = block;
		f->off = off;
	}
	printf("# finding: %s: block %lld: offset %lld: %s\n", file, block,
	    off, msg);
}

static int
convert_file(const char *in, const char *dir, int dialect)
{
	struct tdat_ltt_write_opts o;
	struct tdat_file *f;
	struct tdat_err e = { 0 };
	int rc;

	memset(&o, 0, sizeof(o));
	o.dialect = dialect;
	o.block_size = 4096;
	if (tdat_open(in, &f, &e) < 0)
		return -1;
	rc = mkdir(dir, 0755) < 0 ? -1 : tdat_ltt_write(f, dir, &o, &e);
	tdat_close(f);
	if (rc < 0)
		printf("# %s\n", e.msg);
	return rc;
}

static int
convert(const char *dir, int dialect)
{
	return convert_file(FIXTURE, dir, dialect);
}

static void
verify(const char *dir, struct found *fd)
{
	struct tdat_err e = { 0 };
	int n;

	memset(fd, 0, sizeof(*fd));
	n = tdat_ltt_verify(dir, finding, fd, &e);
	if (n < 0)
		printf("# verify: %s\n", e.msg);
}

static void
patch(const char *path, long off, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || pwrite(fd, p, n, off) != (ssize_t)n)
		printf("# cannot patch %s\n", path);
	if (fd >= 0)
		close(fd);
}

/* A fresh copy of the good directory, damaged by the caller. */
static void
fresh(char *dir, size_t n, const char *name, int dialect)
{
	snprintf(dir, n, "%s/%s", tmp, name);
	if (convert(dir, dialect) < 0)
		printf("# cannot convert into %s\n", dir);
}

static void
test_damage(void)
{
	char d[512], p[600];
	struct found fd;
	unsigned char b[4];

	fresh(d, sizeof(d), "good", TDAT_LTT_XML);
	verify(d, &fd);
	ok(fd.n == 0, "a fresh directory has no findings (%d)", fd.n);
	fresh(d, sizeof(d), "good2003", TDAT_LTT_LTTV2003);
	verify(d, &fd);
	ok(fd.n == 0, "a fresh --lttv=2003 directory has no findings (%d)",
	    fd.n);
	fresh(d, sizeof(d), "good2005", TDAT_LTT_LTTV2005);
	verify(d, &fd);
	ok(fd.n == 0, "a fresh --lttv=2005 directory has no findings (%d)",
	    fd.n);

	fresh(d, sizeof(d), "short", TDAT_LTT_XML);
	snprintf(p, sizeof(p), "%s/cpu/0", d);
	ok(truncate(p, 4096 + 100) == 0, "truncate cpu/0");
	verify(d, &fd);
	ok(fd.n >= 1 && strcmp(fd.file, "cpu/0") == 0 && fd.block == 1 &&
	    strstr(fd.msg, "whole number") != NULL,
	    "a partial block is found in cpu/0 block 1");

	fresh(d, sizeof(d), "badid", TDAT_LTT_XML);
	snprintf(p, sizeof(p), "%s/cpu/0", d);
	b[0] = b[1] = 0xee;
	patch(p, 26, b, 2);
	verify(d, &fd);
	ok(fd.n == 1 && strcmp(fd.file, "cpu/0") == 0 && fd.block == 0 &&
	    fd.off == 26 && strstr(fd.msg, "not defined") != NULL,
	    "an undefined event id is found at cpu/0 block 0 offset 26");

	fresh(d, sizeof(d), "trailer", TDAT_LTT_XML);
	snprintf(p, sizeof(p), "%s/cpu/0", d);
	memset(b, 0x11, 4);
	patch(p, 4096 - 4, b, 4);
	verify(d, &fd);
	ok(fd.n == 1 && fd.block == 0 && fd.off == 4092 &&
	    strstr(fd.msg, "trailer") != NULL,
	    "a bad trailer is found at cpu/0 block 0 offset 4092");

	fresh(d, sizeof(d), "start", TDAT_LTT_XML);
	snprintf(p, sizeof(p), "%s/cpu/0", d);
	b[0] = 5;
	b[1] = 0;
	patch(p, 4096, b, 2);
	verify(d, &fd);
	ok(fd.n == 1 && fd.block == 1 && fd.off == 4096 &&
	    strstr(fd.msg, "block_start") != NULL,
	    "a block without block_start is found at block 1");

	fresh(d, sizeof(d), "time", TDAT_LTT_XML);
	snprintf(p, sizeof(p), "%s/cpu/0", d);
	memset(b, 0xff, 4);
	patch(p, 26 + 2, b, 4);		/* the first event's time: the
					 * next one counts a wrap, and
					 * block 1 starts before it */
	verify(d, &fd);
	ok(fd.n >= 1 && strcmp(fd.file, "cpu/0") == 0 &&
	    strstr(fd.msg, "time goes back") != NULL,
	    "time going back is found in cpu/0 (%s)", fd.msg);

	fresh(d, sizeof(d), "xml", TDAT_LTT_XML);
	snprintf(p, sizeof(p), "%s/info/system.xml", d);
	patch(p, 40, "<", 1);
	verify(d, &fd);
	ok(fd.n >= 1 && strcmp(fd.file, "info/system.xml") == 0,
	    "broken XML is found in info/system.xml (%s)", fd.msg);

	fresh(d, sizeof(d), "schema", TDAT_LTT_XML);
	snprintf(p, sizeof(p), "%s/eventdefs/sched.xml", d);
	{
		size_t n;
		char *t = slurp(p, &n), *s = t ? strstr(t, "size=\"4\"") : NULL;

		if (s)
			patch(p, s - t, "size=\"3\"", 8);
		free(t);
	}
	verify(d, &fd);
	ok(fd.n >= 1 && strcmp(fd.file, "eventdefs/sched.xml") == 0 &&
	    strstr(fd.msg, "line") != NULL,
	    "an invalid size is found in eventdefs/sched.xml (%s)", fd.msg);
}

/* Records of a trace, or -1. */
static long
count_records(struct tdat_file *f)
{
	struct tdat_reader *r;
	struct tdat_record rec;
	struct tdat_err e = { 0 };
	long n = 0;
	int rc;

	if (tdat_reader_open(f, NULL, &r, &e) < 0)
		return -1;
	while ((rc = tdat_reader_next(r, &rec, &e)) > 0)
		n++;
	tdat_reader_close(r);
	return rc < 0 ? -1 : n;
}

/* What LTTV's readers need and tdat-verify checks in their dialect: a
 * little-endian trailer, strings beside sequences, tracefiles in cpu/. */
/* tdat_verify() of a directory: the first finding, named by its file. */
static int
first_found(void *arg, const struct tdat_finding *fd)
{
	char *out = arg;

	if (out[0] == '\0')
		snprintf(out, 256, "%s %s %s", fd->kind, fd->file ? fd->file :
		    "-", fd->msg);
	return 0;
}

static void
test_verify_input(void)
{
	struct tdat_verify_opts vo = { 0 };
	struct tdat_verify_stats st;
	struct tdat_err e = { 0 };
	char d[512], p[600], got[256] = "";

	fresh(d, sizeof(d), "vin", TDAT_LTT_XML);
	snprintf(p, sizeof(p), "%s/cpu/0", d);
	if (truncate(p, 5000) < 0)
		printf("# cannot truncate %s\n", p);
	vo.found = first_found;
	vo.arg = got;
	ok(tdat_verify(d, &vo, &st, &e) == 0 && st.errors >= 1 &&
	    strcmp(st.comp, "ltt") == 0, "tdat_verify checks an LTT directory");
	ok(strncmp(got, "ltt cpu/0 ", 10) == 0, "its finding names the file "
	    "(%s)", got);
	got[0] = '\0';
	ok(tdat_verify(FIXTURE, &vo, &st, &e) == 0 && st.errors == 0 &&
	    st.version > 0 && got[0] == '\0', "and a trace.dat the same way");
}

/* tdat_ltt_dir_open keeps each eventdefs tree for tdat_ltt_verify's schema
 * check when asked, so that the file is parsed once; an LTTV file is kept
 * as not XML, with why. */
static void
test_keep_docs(void)
{
	struct tdat_err e = { 0 };
	struct ltt_dir ld;
	char d[512];
	int i, rc, trees;

	fresh(d, sizeof(d), "keep", TDAT_LTT_XML);
	ok(tdat_ltt_dir_open(d, &ld, 0, &e) == 0 && ld.ndocs == 0 &&
	    ld.nfiles > 1, "eventdefs trees are not kept unasked");
	tdat_ltt_dir_close(&ld);
	rc = tdat_ltt_dir_open(d, &ld, 1, &e);
	ok(rc == 0 && ld.ndocs == ld.nfiles, "a tree is kept for each of the "
	    "%d eventdefs files", ld.nfiles);
	for (i = trees = 0; i < ld.ndocs; i++)
		trees += ld.docs[i].doc != NULL;
	ok(trees == ld.ndocs, "each is XML (%d)", trees);
	tdat_ltt_dir_close(&ld);
	fresh(d, sizeof(d), "keep2005", TDAT_LTT_LTTV2005);
	rc = tdat_ltt_dir_open(d, &ld, 1, &e);
	ok(rc == 0 && ld.ndocs == 1 && ld.docs[0].doc == NULL && strncmp(ld.docs[0].why,
	    "not well-formed XML: line 1: ", 29) == 0,
	    "LTTV's eventdefs are kept as not XML (%s)",
	    ld.ndocs ? ld.docs[0].why : "");
	tdat_ltt_dir_close(&ld);
}

static void
test_lttv_rules(void)
{
	static const char be[] = "t/data/s390x-v7-zstd-sched.dat";
	struct tdat_file *f = NULL, *g = NULL;
	struct tdat_err e = { 0 };
	struct found fd;
	char d[512], p[600], cmd[2048];
	unsigned char b[4];
	size_t n;
	char *t, *s, *end;
	long want, got;

	snprintf(d, sizeof(d), "%s/lttv-be", tmp);
	if (convert_file(be, d, TDAT_LTT_LTTV2005) < 0) {
		ok(0, "convert %s", be);
		return;
	}
	verify(d, &fd);
	ok(fd.n == 0, "big-endian --lttv=2005: no findings (%d)", fd.n);
	/* Block 0 of cpu/0 ends its events at 4050 (t/ltt.bats): its
	 * trailer, 16, written big-endian as tdat once did. */
	snprintf(p, sizeof(p), "%s/cpu/0", d);
	b[0] = b[1] = b[2] = 0;
	b[3] = 16;
	patch(p, 4096 - 4, b, 4);
	verify(d, &fd);
	ok(fd.n == 1 && strcmp(fd.file, "cpu/0") == 0 && fd.block == 0 &&
	    fd.off == 4092 && strstr(fd.msg, "big-endian trailer") != NULL,
	    "a big-endian trailer is found at cpu/0 block 0 offset 4092");
	want = tdat_open(be, &f, &e) == 0 ? count_records(f) : -2;
	got = tdat_ltt_open_tdat(d, &g, &e) == 0 ? count_records(g) : -3;
	ok(want > 0 && got == want, "and tdat still reads it: %ld of %ld "
	    "records", got, want);
	tdat_close(f);
	tdat_close(g);

	/* The empty string taken out of an event: LTTV sizes it wrong. */
	fresh(d, sizeof(d), "lttv-seq", TDAT_LTT_LTTV2005);
	snprintf(p, sizeof(p), "%s/eventdefs/tdat.xml", d);
	t = slurp(p, &n);
	s = t ? strstr(t, "<field name=\"__lttv_end\">") : NULL;
	end = s ? strstr(s, "</field>") : NULL;
	if (end) {
		memset(s, ' ', (size_t)(end + 8 - s));
		patch(p, s - t, s, (size_t)(end + 8 - s));
	}
	free(t);
	verify(d, &fd);
	ok(end && fd.n >= 1 && strcmp(fd.file, "eventdefs") == 0 &&
	    strstr(fd.msg, "a sequence and no string") != NULL,
	    "a sequence without a string is found (%s)", fd.msg);

	/* A tracefile where the old layout kept instances. */
	fresh(d, sizeof(d), "lttv-buffers", TDAT_LTT_LTTV2005);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/info/buffers/1 && cp "
	    "%s/cpu/0 %s/info/buffers/1/0", d, d, d);
	ok(system(cmd) == 0, "a tracefile in info/buffers/1");
	verify(d, &fd);
	ok(fd.n == 1 && strcmp(fd.file, "info/buffers/1/0") == 0 &&
	    strstr(fd.msg, "invisible") != NULL,
	    "a tracefile LTTV does not open is found (%s)", fd.msg);
}

/* The fixture, to LTT and back: the same records, times and CPUs. */
static void
test_back(void)
{
	struct tdat_write_opts wo;
	struct tdat_reader *ra = NULL, *rb = NULL;
	struct tdat_record a, b;
	struct tdat_file *fa = NULL, *fb = NULL;
	struct tdat_ltt *l;
	struct tdat_err e = { 0 };
	char d[512], out[600];
	int fd, ra_rc, rb_rc, n = 0, bad = 0;

	snprintf(d, sizeof(d), "%s/back", tmp);
	snprintf(out, sizeof(out), "%s/back.dat", tmp);
	ok(convert(d, TDAT_LTT_XML) == 0, "convert %s", FIXTURE);
	ok(tdat_ltt_probe(d) == 1 && tdat_ltt_probe(FIXTURE) == 0,
	    "tdat_ltt_probe tells a directory from a file");
	if (tdat_ltt_open(d, &l, &e) < 0) {
		ok(0, "tdat_ltt_open: %s", e.msg);
		return;
	}
	memset(&wo, 0, sizeof(wo));
	wo.version = 7;
	wo.compression = "zstd";
	wo.pages = tdat_ltt_pages(l);
	fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ok(fd >= 0 && tdat_write(tdat_ltt_file(l), fd, &wo, &e) == 0,
	    "tdat_write from the LTT directory");
	close(fd);
	tdat_ltt_close(l);
	if (tdat_open(FIXTURE, &fa, &e) < 0 || tdat_open(out, &fb, &e) < 0 ||
	    tdat_reader_open(fa, NULL, &ra, &e) < 0 ||
	    tdat_reader_open(fb, NULL, &rb, &e) < 0) {
		ok(0, "reopen: %s", e.msg);
		goto out;
	}
	for (;;) {
		ra_rc = tdat_reader_next(ra, &a, &e);
		rb_rc = tdat_reader_next(rb, &b, &e);
		if (ra_rc <= 0 || rb_rc <= 0)
			break;
		n++;
		if (a.ts != b.ts || a.cpu != b.cpu || a.size > b.size ||
		    memcmp(a.data, b.data, 8) != 0)
			bad++;
	}
	ok(ra_rc == 0 && rb_rc == 0 && n > 0 && bad == 0,
	    "%d records agree in time, CPU and header (%d differ)", n, bad);
out:
	tdat_reader_close(ra);
	tdat_reader_close(rb);
	tdat_close(fa);
	tdat_close(fb);
}

/* A directory without the originals: formats made from the eventdefs
 * give a trace.dat with the same number of records at the same times. */
static void
test_synth(void)
{
	struct tdat_write_opts wo;
	struct tdat_reader *ra = NULL, *rb = NULL;
	struct tdat_record a, b;
	struct tdat_file *fa = NULL, *fb = NULL;
	struct tdat_ltt *l;
	struct tdat_err e = { 0 };
	char d[512], p[600], out[600];
	int fd, ra_rc, rb_rc, n = 0, bad = 0;

	snprintf(d, sizeof(d), "%s/synth", tmp);
	snprintf(out, sizeof(out), "%s/synth.dat", tmp);
	if (convert(d, TDAT_LTT_LTTV2005) < 0) {
		ok(0, "convert for the synthesized formats");
		return;
	}
	snprintf(p, sizeof(p), "%s/info/tracedat.xml", d);
	unlink(p);
	if (tdat_ltt_open(d, &l, &e) < 0) {
		ok(0, "tdat_ltt_open without originals: %s", e.msg);
		return;
	}
	ok(tdat_ltt_file(l)->nsys > 0, "formats are made from the eventdefs");
	memset(&wo, 0, sizeof(wo));
	wo.version = 6;
	wo.pages = tdat_ltt_pages(l);
	fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ok(fd >= 0 && tdat_write(tdat_ltt_file(l), fd, &wo, &e) == 0,
	    "tdat_write with made formats (%s)", e.msg);
	close(fd);
	tdat_ltt_close(l);
	if (tdat_open(FIXTURE, &fa, &e) < 0 || tdat_open(out, &fb, &e) < 0 ||
	    tdat_reader_open(fa, NULL, &ra, &e) < 0 ||
	    tdat_reader_open(fb, NULL, &rb, &e) < 0) {
		ok(0, "reopen: %s", e.msg);
		goto out;
	}
	for (;;) {
		ra_rc = tdat_reader_next(ra, &a, &e);
		rb_rc = tdat_reader_next(rb, &b, &e);
		if (ra_rc <= 0 || rb_rc <= 0)
			break;
		n++;
		if (a.ts != b.ts || a.cpu != b.cpu ||
		    memcmp(a.data + 2, b.data + 2, 6) != 0)
			bad++;
	}
	ok(ra_rc == 0 && rb_rc == 0 && n > 0 && bad == 0,
	    "%d records agree in time, CPU and common fields (%d differ)", n,
	    bad);
out:
	tdat_reader_close(ra);
	tdat_reader_close(rb);
	tdat_close(fa);
	tdat_close(fb);
}

/* The directory as a whole trace.dat: the fixture's records. */
static void
test_open_tdat(void)
{
	struct tdat_reader *ra = NULL, *rb = NULL;
	struct tdat_record a, b;
	struct tdat_file *fa = NULL, *fb = NULL;
	struct tdat_err e = { 0 };
	char d[512];
	int ra_rc, rb_rc, n = 0, bad = 0;

	snprintf(d, sizeof(d), "%s/back", tmp);
	if (tdat_ltt_open_tdat(d, &fb, &e) < 0 || tdat_open(FIXTURE, &fa, &e)
	    < 0 || tdat_reader_open(fa, NULL, &ra, &e) < 0 ||
	    tdat_reader_open(fb, NULL, &rb, &e) < 0) {
		ok(0, "tdat_ltt_open_tdat: %s", e.msg);
		goto out;
	}
	ok(strcmp(fb->path, d) == 0, "the trace is named by its directory");
	for (;;) {
		ra_rc = tdat_reader_next(ra, &a, &e);
		rb_rc = tdat_reader_next(rb, &b, &e);
		if (ra_rc <= 0 || rb_rc <= 0)
			break;
		n++;
		if (a.ts != b.ts || a.cpu != b.cpu || memcmp(a.data, b.data, 8))
			bad++;
	}
	ok(ra_rc == 0 && rb_rc == 0 && n > 0 && bad == 0,
	    "tdat_ltt_open_tdat: %d records agree (%d differ)", n, bad);
out:
	tdat_reader_close(ra);
	tdat_reader_close(rb);
	tdat_close(fa);
	tdat_close(fb);
}

/*
 * Whether trace-cmd report -N -t prints for the trace.dat out what it
 * prints for the fixture name (t/data/expected): 1 yes, 0 no, -1 when it
 * cannot tell.  It leaves d.want, d.got, d.err and d.st (the exit status)
 * for tc_differs().  trace-cmd 3.1.6 reads past the end of an empty
 * TRACECLOCK option (hebel23-driver-trace, labsisop-qemu-trace): in about
 * one run in 250 the bytes after it name a clock, and it prints raw
 * timestamps ("[000]1464179963720:") for the same file.  Such a run is
 * repeated, up to 5 times, as t/cat.bats and t/ltt.bats do.
 */
static int
tc_same(const char *name, const char *out, const char *d)
{
	char cmd[8192];

	if ((size_t)snprintf(cmd, sizeof(cmd), "{ cat t/data/expected/"
	    "%s.report-N.txt 2>/dev/null || zstd -dcq "
	    "t/data/expected/%s.report-N.txt.zst; } >%s.want 2>/dev/null; "
	    "for i in 1 2 3 4 5; do trace-cmd report -N -t %s >%s.got "
	    "2>%s.err; echo $? >%s.st; grep -q -E '\\[[0-9]{3,}\\] *[0-9]+: ' "
	    "%s.got || break; done; cmp -s %s.want %s.got", name, name, d,
	    out, d, d, d, d, d, d) >= sizeof(cmd)) {
		printf("# %s: the command is too long\n", name);
		return -1;
	}
	return system(cmd) == 0;
}

/* Say how a round trip in directory d differs from the fixture: trace-cmd's
 * exit status and first lines of stderr, and the first lines of the diff,
 * as TAP diagnostics. */
static void
tc_differs(const char *name, int dialect, const char *d)
{
	char cmd[4096];

	printf("# %s dialect %d (%s): trace-cmd reports it differently\n",
	    name, dialect, d);
	fflush(stdout);
	snprintf(cmd, sizeof(cmd), "{ printf 'trace-cmd exit status %%s\\n' "
	    "\"$(cat %s.st)\"; head -n 5 %s.err; cmp %s.want %s.got; "
	    "diff %s.want %s.got | head -n 12; } 2>&1 | sed 's/^/#   /'",
	    d, d, d, d, d, d);
	if (system(cmd) != 0)
		printf("# cannot compare %s.want and %s.got\n", d, d);
	/* TDAT_TEST_KEEP=DIR keeps the round trip's files for a look */
	if (getenv("TDAT_TEST_KEEP") != NULL) {
		snprintf(cmd, sizeof(cmd), "cp -r %s %s.dat %s.want %s.got "
		    "%s.err \"$TDAT_TEST_KEEP\"/", d, d, d, d, d);
		if (system(cmd) != 0)
			printf("# cannot keep %s in $TDAT_TEST_KEEP\n", d);
	}
	fflush(stdout);
}

/* Write n into the count file of the fake trace-cmd in directory bin. */
static int
fake_runs(const char *bin, int n)
{
	char p[600];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/trace-cmd.n", bin);
	if ((fp = fopen(p, "w")) == NULL)
		return -1;
	fprintf(fp, "%d\n", n);
	return fclose(fp);
}

/* tc_same() runs trace-cmd again while it prints raw timestamps, up to 5
 * times: a fake trace-cmd first on PATH prints them in its first N runs
 * (N in its count file), then runs the real one. */
static void
test_tc_retry(void)
{
	static const char script[] = "#!/bin/sh\n"
	    "n=$(cat \"$0.n\")\n"
	    "echo $((n - 1)) >\"$0.n\"\n"
	    "PATH=${PATH#*:}\n"
	    "if [ \"$n\" -gt 0 ]; then\n"
	    "\ttrace-cmd \"$@\" | sed -E 's/\\] +([0-9]+)\\.([0-9]+):/]\\1\\2:/'\n"
	    "else\n"
	    "\texec trace-cmd \"$@\"\n"
	    "fi\n";
	char bin[512], p[600], d[600], *path = NULL;
	const char *old = getenv("PATH");
	FILE *fp;

	if (system("command -v trace-cmd >/dev/null && "
	    "command -v zstd >/dev/null") != 0) {
		printf("ok %d # SKIP trace-cmd or zstd is not installed\n",
		    ++ntest);
		printf("ok %d # SKIP trace-cmd or zstd is not installed\n",
		    ++ntest);
		return;
	}
	snprintf(bin, sizeof(bin), "%s/fake", tmp);
	snprintf(p, sizeof(p), "%s/trace-cmd", bin);
	snprintf(d, sizeof(d), "%s/retry", tmp);
	if (mkdir(bin, 0755) < 0 || (fp = fopen(p, "w")) == NULL ||
	    fputs(script, fp) == EOF || fclose(fp) != 0 || chmod(p, 0755) < 0 ||
	    (path = malloc(strlen(bin) + strlen(old ? old : "") + 2)) == NULL)
		printf("# cannot make a fake trace-cmd in %s\n", bin);
	else {
		sprintf(path, "%s:%s", bin, old ? old : "");
		setenv("PATH", path, 1);
	}
	ok(path && fake_runs(bin, 1) == 0 && tc_same("labsisop-qemu-trace",
	    FIXTURE, d) == 1, "a trace-cmd run printing raw timestamps is "
	    "run again");
	ok(path && fake_runs(bin, 5) == 0 && tc_same("labsisop-qemu-trace",
	    FIXTURE, d) == 0, "five such runs in a row are a difference");
	if (old)
		setenv("PATH", old, 1);
	free(path);
}

/* Every fixture, to LTT (each dialect) and back through the library, is
 * reported by trace-cmd exactly as the fixture (report -N -t): the test
 * of tdat-to-ltt + tdat-cat in t/ltt.bats, without tdat-cat. */
static void
test_trace_cmd(void)
{
	static const char *names[] = { "hebel23-driver-trace",
	    "hip24-host-trace", "kinmax-listen-trace.192.168.1.10_53616",
	    "labsisop-qemu-trace", "nish97-trace", "s390x-v7-zstd-sched",
	    "x86_64-default-sched", "x86_64-v7-none-instances" };
	static const int dialects[] = { TDAT_LTT_XML, TDAT_LTT_LTTV2005,
	    TDAT_LTT_LTTV2003 };
	struct tdat_ltt_write_opts o;
	struct tdat_write_opts wo;
	struct tdat_file *f;
	struct tdat_ltt *l;
	struct tdat_err e = { 0 };
	char in[256], d[512], out[600];
	size_t i, k;
	int same = 0, n = 0, fd, rc;

	if (system("command -v trace-cmd >/dev/null && "
	    "command -v zstd >/dev/null") != 0) {
		printf("ok %d # SKIP trace-cmd or zstd is not installed\n",
		    ++ntest);
		return;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (k = 0; k < 3; k++) {
			n++;
			snprintf(in, sizeof(in), "t/data/%s.dat", names[i]);
			snprintf(d, sizeof(d), "%s/tc-%zu-%zu", tmp, i, k);
			snprintf(out, sizeof(out), "%s.dat", d);
			memset(&o, 0, sizeof(o));
			o.dialect = dialects[k];
			o.block_size = 8192;
			if (tdat_open(in, &f, &e) < 0) {
				printf("# %s: %s\n", names[i], e.msg);
				continue;
			}
			rc = mkdir(d, 0755) < 0 ? -1 :
			    tdat_ltt_write(f, d, &o, &e);
			tdat_close(f);
			if (rc < 0 || tdat_ltt_open(d, &l, &e) < 0) {
				printf("# %s: %s\n", names[i], e.msg);
				continue;
			}
			memset(&wo, 0, sizeof(wo));
			wo.version = 7;
			wo.compression = "zstd";
			wo.pages = tdat_ltt_pages(l);
			fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0644);
			rc = fd >= 0 ? tdat_write(tdat_ltt_file(l), fd, &wo,
			    &e) : -1;
			if (fd >= 0)
				close(fd);
			tdat_ltt_close(l);
			if (rc < 0) {
				printf("# %s: %s\n", names[i], e.msg);
				continue;
			}
			if (tc_same(names[i], out, d) == 1)
				same++;
			else
				tc_differs(names[i], dialects[k], d);
		}
	ok(n > 0 && same == n, "%d of %d round trips report as the fixture "
	    "in trace-cmd", same, n);
}

int
main(void)
{
	tdat_formats_all();
	if (mkdtemp(tmp) == NULL) {
		printf("1..0 # SKIP cannot make a temporary directory\n");
		return 0;
	}
	same_text(tdat_ltt_builtin_xml, "formats/ltt/ltt-builtin.xml");
	same_text(tdat_ltt_xsd_eventdefs, "schemas/ltt-eventdefs.xsd");
	same_text(tdat_ltt_xsd_system, "schemas/ltt-system.xsd");
	same_text(tdat_ltt_xsd_bookmarks, "schemas/ltt-bookmarks.xsd");
	same_text(tdat_ltt_xsd_tracedat, "schemas/ltt-tracedat.xsd");
	test_damage();
	test_verify_input();
	test_keep_docs();
	test_lttv_rules();
	test_back();
	test_open_tdat();
	test_synth();
	test_tc_retry();
	test_trace_cmd();
	rm_tree(tmp);
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
