/*
 * test_verify.c: tdat-verify's checks (formats/tracedat/tracedat-verify.c)
 * on one thread and on two give the same findings in the same order, and
 * the same counts (two threads checking raw pages in pieces of their
 * own size, of 1 page and of 3): damaged pages in two CPUs and damaged format files
 * (read by both threads) of an uncompressed copy of a 4-CPU trace, an
 * event without its id (more findings than the helper keeps),
 * damaged chunks in two CPUs of the zstd original, with and without
 * keep_going, a callback that stops the check at each finding in
 * turn, intact raw pages, and two pages swapped (the clock runs back
 * from one piece to the next).  Asked, the check counts what tdat-cat --salvage would keep as
 * the salvage walk itself does, and tdat_salvage_line() says what it
 * dropped.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdat-int.h"
#include "tdat-check.h"
#include "tap.h"
#include "fixture.h"

#define ZSTD	"t/data/s390x-v7-zstd-sched.dat"	/* v7, zstd, 4 CPUs */

/* What a check reported: every finding as a line, and the counts. */
struct seen {
	char *text;
	size_t len, cap;
	size_t n;		/* findings */
	size_t stop_at;		/* stop at this finding (1-based); 0 never */
	unsigned cpus;		/* bit i: a finding about CPU i */
};

static void
add(struct seen *s, const char *line)
{
	size_t n = strlen(line);
	char *p;

	if (s->len + n + 1 > s->cap) {
		s->cap = 2 * (s->len + n + 1);
		if ((p = realloc(s->text, s->cap)) == NULL)
			abort();
		s->text = p;
	}
	memcpy(s->text + s->len, line, n + 1);
	s->len += n;
}

static int
found(void *arg, const struct tdat_finding *fd)
{
	struct seen *s = arg;
	char line[1024];

	snprintf(line, sizeof(line), "%d %s %d %llx %s %d %lld %s\n",
	    fd->severity, fd->kind, fd->has_off, (unsigned long long)fd->off,
	    fd->buffer ? fd->buffer : "-", fd->cpu, fd->page, fd->msg);
	add(s, line);
	if (fd->cpu >= 0 && fd->cpu < 32)
		s->cpus |= 1u << fd->cpu;
	return ++s->n == s->stop_at;
}

/* Two threads check raw pages in pieces of this many (0: their own). */
static uint32_t piece;

/* Check path with the given threads; the findings and counts in *s. */
static int
check(const char *path, int threads, int keep_going, size_t stop_at,
    struct seen *s)
{
	struct tdat_verify_opts o = { 0 };
	struct tdat_verify_stats st;
	struct tdat_err e = { 0 };
	char line[256];
	int rc;

	memset(s, 0, sizeof(*s));
	memset(&st, 0, sizeof(st));
	s->stop_at = stop_at;
	o.keep_going = keep_going;
	o.found = found;
	o.arg = s;
	o.threads = threads;
	o.piece = threads > 1 ? piece : 0;
	rc = tdat_verify(path, &o, &st, &e);
	snprintf(line, sizeof(line), "rc %d pages %llu records %llu errors "
	    "%llu warnings %llu unreported %llu\n", rc,
	    (unsigned long long)st.pages, (unsigned long long)st.records,
	    (unsigned long long)st.errors, (unsigned long long)st.warnings,
	    (unsigned long long)st.unreported);
	add(s, line);
	return rc;
}

/* One thread and two alike, whole and stopped at every finding: two
 * with their own pieces, and with pieces of 1 and 3 pages. */
static void
same(const char *path, const char *what, int damaged, size_t step)
{
	static const uint32_t pieces[] = { 0, 1, 3 };
	struct seen one, two;
	size_t i, n, k;
	int kg, alike;

	for (k = 0; k < sizeof(pieces) / sizeof(pieces[0]); k++)
	for (kg = 0; kg < 2; kg++) {
		piece = pieces[k];
		check(path, 1, kg, 0, &one);
		check(path, 2, kg, 0, &two);
		ok(!damaged || (one.n > 1 && (one.cpus & (one.cpus - 1)) != 0),
		    "%s%s, pieces %u: findings in two CPUs or more (%zu, CPUs "
		    "0x%x)", what, kg ? ", keep going" : "", piece, one.n,
		    one.cpus);
		ok(strcmp(one.text, two.text) == 0, "%s%s, pieces %u: two "
		    "threads find the same as one", what, kg ? ", keep going" :
		    "", piece);
		n = one.n;
		free(one.text);
		free(two.text);
		alike = 1;
		for (i = 1; i <= n && alike; i += step) {
			check(path, 1, kg, i, &one);
			check(path, 2, kg, i, &two);
			alike = strcmp(one.text, two.text) == 0 && one.n == i;
			if (!alike)
				printf("# stopped at %zu:\n# one: %s# two: %s", i,
				    one.text, two.text);
			free(one.text);
			free(two.text);
		}
		ok(alike, "%s%s, pieces %u: stopped at every %zu of %zu "
		    "findings, the same", what, kg ? ", keep going" : "",
		    piece, step, n);
	}
	piece = 0;
}

/* Copy src to a temporary path (v6 uncompressed when raw). */
static int
copy(const char *src, char *path, int raw)
{
	size_t n;
	char *p;
	int fd, rc;

	if ((fd = mkstemp(path)) < 0)
		return -1;
	if (raw)
		return write_v6(src, fd);
	p = slurp(src, &n);
	rc = p && write(fd, p, n) == (ssize_t)n ? 0 : -1;
	free(p);
	close(fd);
	return rc;
}

/* Overwrite n bytes at off with a pattern. */
static int
smash(const char *path, uint64_t off, size_t n)
{
	unsigned char buf[256];
	FILE *fp;
	int rc;

	memset(buf, 0xa5, sizeof(buf));
	if (n > sizeof(buf) || (fp = fopen(path, "r+b")) == NULL)
		return -1;
	rc = fseek(fp, (long)off, SEEK_SET) == 0 && fwrite(buf, 1, n, fp) == n;
	return fclose(fp) == 0 && rc ? 0 : -1;
}

/* Damage CPUs 1 and 3 of path: in two places each, at the given
 * fractions of their data. */
static int
damage(const char *path)
{
	struct tdat_file *f;
	struct tdat_err e;
	uint64_t at[4];
	int i;

	if (tdat_open(path, &f, &e) < 0 || f->nbuf < 1 || f->buf[0].ncpu < 4)
		return -1;
	at[0] = f->buf[0].cpu[1].off + f->buf[0].cpu[1].size / 3;
	at[1] = f->buf[0].cpu[1].off + f->buf[0].cpu[1].size * 2 / 3;
	at[2] = f->buf[0].cpu[3].off + f->buf[0].cpu[3].size / 4;
	at[3] = f->buf[0].cpu[3].off + f->buf[0].cpu[3].size * 3 / 4;
	tdat_close(f);
	for (i = 0; i < 4; i++)
		if (smash(path, at[i] - at[i] % 64 + 24, 40) < 0)
			return -1;
	return 0;
}

/* Swap pages 1 and 2 of CPU 0 of path (raw): page 2's stamp then comes
 * after the records of page 1, moved before it. */
static int
swap_pages(const char *path)
{
	struct tdat_file *f;
	struct tdat_err e;
	uint64_t at = 0;
	uint32_t ps = 0;
	char *p, *tmp;
	size_t n;
	FILE *fp;
	int rc;

	if (tdat_open(path, &f, &e) < 0)
		return -1;
	if (f->nbuf > 0 && f->buf[0].ncpu > 0 && !f->buf[0].compressed &&
	    f->buf[0].cpu[0].size >= 3 * (uint64_t)f->buf[0].page_size) {
		ps = f->buf[0].page_size;
		at = f->buf[0].cpu[0].off + ps;
	}
	tdat_close(f);
	if (ps == 0 || (p = slurp(path, &n)) == NULL)
		return -1;
	if ((tmp = malloc(ps)) == NULL || at + 2 * ps > n) {
		free(tmp);
		free(p);
		return -1;
	}
	memcpy(tmp, p + at, ps);
	memcpy(p + at, p + at + ps, ps);
	memcpy(p + at + ps, tmp, ps);
	rc = (fp = fopen(path, "wb")) != NULL && fwrite(p, 1, n, fp) == n;
	if (fp && fclose(fp) != 0)
		rc = 0;
	free(tmp);
	free(p);
	return rc ? 0 : -1;
}

/* Take the ID line of event NAME's format away (path uncompressed). */
static int
no_id(const char *path, const char *name)
{
	char pat[128], *p, *q;
	size_t n;
	FILE *fp;
	int rc;

	snprintf(pat, sizeof(pat), "name: %s\nID: ", name);
	if ((p = slurp(path, &n)) == NULL)
		return -1;
	if ((q = memmem(p, n, pat, strlen(pat))) == NULL) {
		free(p);
		return -1;
	}
	q[strlen(pat) - 3] = 'X';
	rc = (fp = fopen(path, "wb")) != NULL && fwrite(p, 1, n, fp) == n;
	if (fp && fclose(fp) != 0)
		rc = 0;
	free(p);
	return rc ? 0 : -1;
}

/* Damage format files of path (uncompressed): the ID line of the first
 * and of the last, a field line of one in the middle. */
static int
bad_formats(const char *path)
{
	static const char *const from[] = { "\nID: ", "\tfield:", "\nID: " };
	static const char *const to[] = { "\nIX: ", "\tfie!d:", "\nIX: " };
	char *p, *q, *hit[3];
	size_t n, i;
	FILE *fp;
	int rc;

	if ((p = slurp(path, &n)) == NULL)
		return -1;
	hit[0] = memmem(p, n, from[0], strlen(from[0]));
	hit[1] = hit[2] = NULL;
	for (q = p; (q = memmem(q, n - (size_t)(q - p), from[2],
	    strlen(from[2]))) != NULL; q++)
		hit[2] = q;
	if (hit[0] && hit[2])
		hit[1] = memmem(hit[0] + (hit[2] - hit[0]) / 2,
		    (size_t)(hit[2] - hit[0]) / 2, from[1], strlen(from[1]));
	for (i = 0; i < 3; i++)
		if (hit[i] == NULL || hit[0] == hit[2]) {
			free(p);
			return -1;
		}
	for (i = 0; i < 3; i++)
		memcpy(hit[i], to[i], strlen(to[i]));
	rc = (fp = fopen(path, "wb")) != NULL && fwrite(p, 1, n, fp) == n;
	if (fp && fclose(fp) != 0)
		rc = 0;
	free(p);
	return rc ? 0 : -1;
}

/* Damage a line of kallsyms a third of the way in, and the first line
 * of the saved cmdlines, of path (v6, uncompressed). */
static int
bad_texts(const char *path)
{
	struct tdat_file *f;
	struct tdat_err e;
	uint64_t k = 0, kl = 0, c = 0;
	char *p, *q;
	size_t n;
	FILE *fp;
	int rc;

	if (tdat_open(path, &f, &e) < 0)
		return -1;
	if (f->version < 7 && f->kallsyms.len > 1000 && f->cmdlines.len > 0) {
		k = f->kallsyms.off + 4;
		kl = f->kallsyms.len;
		c = f->cmdlines.off + 8;
	}
	tdat_close(f);
	if (k == 0 || (p = slurp(path, &n)) == NULL)
		return -1;
	/* the line after the one a third in: no address */
	if ((q = memchr(p + k + kl / 3, '\n', kl / 3)) == NULL) {
		free(p);
		return -1;
	}
	q[1] = 'G';
	p[c] = 'x';			/* no pid */
	rc = (fp = fopen(path, "wb")) != NULL && fwrite(p, 1, n, fp) == n;
	if (fp && fclose(fp) != 0)
		rc = 0;
	free(p);
	return rc ? 0 : -1;
}

/* lib/check's texts and formats of path, read as tdat_verify() reads
 * them (together: tdat_check_texts_formats()) or one after the other,
 * on threads: the findings in *s, and the events' table's size. */
static size_t
rules(const char *path, int together, int threads, struct seen *s)
{
	struct tdat_verify_opts o = { 0 };
	struct tdat_verify_stats st;
	struct tdat_check c;
	struct tdat_err e = { 0 };
	struct tdat_file *f;
	size_t nev;

	memset(s, 0, sizeof(*s));
	memset(&st, 0, sizeof(st));
	o.found = found;
	o.arg = s;
	o.threads = threads;
	if (tdat_open(path, &f, &e) < 0)
		return 0;
	memset(&c, 0, sizeof(c));
	c.f = f;
	c.o = &o;
	c.st = &st;
	c.e = &e;
	if (together)
		tdat_check_texts_formats(&c);
	else {
		tdat_check_scan_texts(&c);
		tdat_check_texts(&c);
		tdat_check_formats(&c);
	}
	add(s, "end\n");
	nev = c.events.nev;
	tdat_check_free(&c);
	tdat_close(f);
	return nev;
}

/* The texts read while the formats are, on one thread and on two: what
 * the texts' check and the formats' check find one after the other. */
static void
rules_alike(const char *path, const char *what)
{
	struct seen a, b;
	size_t na, nb;
	int threads;

	na = rules(path, 0, 1, &a);
	for (threads = 1; threads <= 2; threads++) {
		nb = rules(path, 1, threads, &b);
		ok(a.n > 1 && na > 0 && na == nb && strcmp(a.text, b.text) == 0,
		    "%s: texts and formats read together on %d thread%s: the "
		    "same %zu findings and %zu events", what, threads,
		    threads > 1 ? "s" : "", b.n, nb);
		free(b.text);
	}
	free(a.text);
}

/* The salvage part of tdat_verify_stats: as the salvage walk counts. */
static void
salvage_counts(const char *path, const char *what, int damaged)
{
	struct tdat_open_opts oo = { .salvage = 1 };
	struct tdat_verify_opts o = { 0 };
	struct tdat_verify_stats st, no;
	struct tdat_salvage *s = NULL;
	const struct tdat_salvage_cpu *c;
	struct tdat_file *f = NULL;
	struct tdat_err e = { 0 };
	uint64_t kept = 0, pages = 0, recs = 0, chunks = 0;
	size_t i, lines = 0, bad = 0;
	int walked;

	ok(tdat_verify(path, &o, &no, &e) == 0 && no.salvage == 0,
	    "%s: nothing counted unless asked", what);
	o.salvage = 1;
	ok(tdat_verify(path, &o, &st, &e) == 0, "%s: checked", what);
	if (!damaged) {
		ok(st.errors == 0 && st.salvage == 0, "%s: intact, nothing "
		    "counted", what);
		return;
	}
	walked = tdat_open_ex(path, &oo, &f, &e) == 0 &&
	    tdat_salvage_open(f, &s, &e) == 0 && tdat_salvage_scan(s, &e) == 0;
	for (i = 0; walked && (c = tdat_salvage_cpu(s, i)) != NULL; i++) {
		kept += c->pages;
		pages += c->pages + c->lost_pages;
		recs += c->records;
		chunks += c->lost_pieces;
	}
	for (i = 0; walked && tdat_salvage_line(s, i, &e); i++) {
		lines++;
		bad += e.code != TDAT_ECORRUPT ||
		    (strncmp(e.msg, "buffer \"", 8) != 0 &&
		    strncmp(e.msg, "dropped: ", 9) != 0);
	}
	ok(walked && st.salvage == 1 && st.kept_pages == kept &&
	    st.salvage_pages == pages && st.kept_records == recs &&
	    st.lost_chunks == chunks && kept > 0 && kept < pages,
	    "%s: would keep %llu of %llu pages (%llu records), as the walk",
	    what, (unsigned long long)st.kept_pages,
	    (unsigned long long)st.salvage_pages,
	    (unsigned long long)st.kept_records);
	ok(lines == f->ndamage + tdat_salvage_ncpu(s) && bad == 0 &&
	    !tdat_salvage_line(s, lines, &e), "%s: %zu lines say what was "
	    "dropped", what, lines);
	tdat_salvage_close(s);
	tdat_close(f);
}

int
main(void)
{
	char raw[] = "/tmp/test_verify.XXXXXX";
	char zst[] = "/tmp/test_verify.XXXXXX";

	tdat_formats_all();
	same(ZSTD, "intact zstd", 0, 1);
	salvage_counts(ZSTD, "intact zstd", 0);
	if (copy(ZSTD, raw, 1) == 0 && damage(raw) == 0 &&
	    bad_formats(raw) == 0) {
		same(raw, "damaged raw pages and formats", 1, 1);
		salvage_counts(raw, "damaged raw pages and formats", 1);
	} else
		ok(0, "a damaged v6 copy of %s", ZSTD);
	if (copy(ZSTD, zst, 0) == 0 && damage(zst) == 0) {
		same(zst, "damaged zstd chunks", 1, 1);
		salvage_counts(zst, "damaged zstd chunks", 1);
	} else
		ok(0, "a damaged copy of %s", ZSTD);
	unlink(raw);
	unlink(zst);
	/* Damaged texts too: their lines are read while the formats are. */
	strcpy(raw, "/tmp/test_verify.XXXXXX");
	if (copy(ZSTD, raw, 1) == 0 && damage(raw) == 0 &&
	    bad_formats(raw) == 0 && bad_texts(raw) == 0) {
		rules_alike(raw, "damaged texts and formats");
		same(raw, "damaged texts, formats and pages", 1, 1);
	} else
		ok(0, "a v6 copy of %s with damaged texts", ZSTD);
	unlink(raw);
	/* Raw pages intact: each piece checked ahead is handed on, its
	 * counts and clock taken as they are. */
	strcpy(raw, "/tmp/test_verify.XXXXXX");
	if (copy(ZSTD, raw, 1) == 0)
		same(raw, "intact raw pages", 0, 1);
	else
		ok(0, "a v6 copy of %s", ZSTD);
	unlink(raw);
	/* A page whose stamp is before the last record of the page before
	 * it, each in a piece of its own: nothing wrong in either alone, the
	 * CPU's clock runs back between them. */
	strcpy(raw, "/tmp/test_verify.XXXXXX");
	if (copy(ZSTD, raw, 1) == 0 && swap_pages(raw) == 0) {
		struct seen s1;

		check(raw, 1, 0, 0, &s1);
		ok(s1.n == 1 && strstr(s1.text, "time-backwards 1") &&
		    strstr(s1.text, " 0 2 page time stamp"), "swapped pages: "
		    "the clock runs back at CPU 0's page 2 (%s)", s1.text);
		free(s1.text);
		same(raw, "swapped pages", 0, 1);
	} else
		ok(0, "a v6 copy of %s with two pages swapped", ZSTD);
	unlink(raw);
	/* Every sched_stat_runtime record a finding: more than the helper
	 * keeps for a CPU, which the main thread then checks itself. */
	strcpy(raw, "/tmp/test_verify.XXXXXX");
	if (copy(ZSTD, raw, 1) == 0 && no_id(raw, "sched_stat_runtime") == 0)
		same(raw, "a finding in every seventh record", 1, 97);
	else
		ok(0, "a v6 copy of %s without an event id", ZSTD);
	unlink(raw);
	return tap_done();
}
