/*
 * test_options.c: option payloads decoded into typed values
 * (formats/tracedat/tracedat-opts.c): hand-built TIME_SHIFT, GUEST, TSC2NSEC,
 * OFFSET, BUFFER and number payloads in both byte orders, cut short, and
 * with counts far larger than the payload.  A TSC2NSEC option too long,
 * too short or of a shift over 63 is copied by tdat_write() as readers
 * take it, to a file tdat-verify accepts, its records' times unchanged;
 * an input naming a metadata section twice gets a v7 copy that names
 * each once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdat-int.h"
#include "tdat-opts.h"
#include "tap.h"

/* A payload under construction. */
struct pl {
	unsigned char b[1024];
	uint32_t n;
	int big;
};

static void
put(struct pl *p, uint64_t v, int n)
{
	tdat_put(p->b + p->n, v, n, p->big);
	p->n += (uint32_t)n;
}

static void
puts_nul(struct pl *p, const char *s)
{
	memcpy(p->b + p->n, s, strlen(s) + 1);
	p->n += (uint32_t)strlen(s) + 1;
}

static int
decode(uint16_t id, const struct pl *p, uint32_t size, int version,
    struct tdat_optval *v)
{
	return tdat_opt_decode(id, p->b, size, p->big, version, v);
}

/* Two CPUs: 2 samples and 1 sample; then fractions for nfrac of them. */
static void
time_shift_payload(struct pl *p, int big, int nfrac)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->big = big;
	put(p, 0x1122334455667788ull, 8);
	put(p, 1, 4);
	put(p, 2, 4);
	put(p, 2, 4);
	put(p, 100, 8);			/* times */
	put(p, 200, 8);
	put(p, (uint64_t)-5, 8);	/* offsets */
	put(p, 7, 8);
	put(p, 1, 8);			/* scalings */
	put(p, 3, 8);
	put(p, 1, 4);
	put(p, 150, 8);
	put(p, 9, 8);
	put(p, 2, 8);
	for (i = 0; i < nfrac; i++)
		put(p, 60 + (uint64_t)i, 8);
}

static void
test_time_shift(int big)
{
	const char *bo = big ? "big" : "little";
	struct tdat_optval v;
	struct tdat_time_shift *t = &v.u.ts;
	struct pl p;

	time_shift_payload(&p, big, 3);
	ok(decode(TDAT_OPT_TIME_SHIFT, &p, p.n, 7, &v) == 0 && !t->broken &&
	    t->head == 16 && t->peer_id == 0x1122334455667788ull &&
	    t->flags == 1 && t->ncpu == 2 && t->ncount == 2 &&
	    t->nsamples == 3 && t->nfrac == 3, "%s: TIME_SHIFT head", bo);
	ok(t->cpu[0].n == 2 && t->cpu[1].n == 1 &&
	    t->cpu[0].s[0].time == 100 && t->cpu[0].s[1].time == 200 &&
	    t->cpu[0].s[0].offset == -5 && t->cpu[0].s[1].offset == 7 &&
	    t->cpu[0].s[0].scaling == 1 && t->cpu[0].s[1].scaling == 3 &&
	    t->cpu[1].s[0].time == 150 && t->cpu[1].s[0].offset == 9 &&
	    t->cpu[1].s[0].scaling == 2, "%s: TIME_SHIFT samples", bo);
	ok(t->cpu[0].s[0].frac == 60 && t->cpu[0].s[1].frac == 61 &&
	    t->cpu[1].s[0].frac == 62, "%s: TIME_SHIFT fractions", bo);
	tdat_optval_free(&v);

	/* Fractions that stop short: the first ones count, the rest are 0. */
	time_shift_payload(&p, big, 3);
	ok(decode(TDAT_OPT_TIME_SHIFT, &p, p.n - 12, 7, &v) == 0 &&
	    !t->broken && t->nfrac == 1 && t->cpu[0].s[0].frac == 60 &&
	    t->cpu[0].s[1].frac == 0 && t->cpu[1].s[0].frac == 0,
	    "%s: TIME_SHIFT with part of the fractions", bo);
	tdat_optval_free(&v);
	time_shift_payload(&p, big, 0);
	ok(decode(TDAT_OPT_TIME_SHIFT, &p, p.n, 7, &v) == 0 && !t->broken &&
	    t->nfrac == 0, "%s: TIME_SHIFT without fractions", bo);
	tdat_optval_free(&v);

	/* Cut short: the head, then inside the samples. */
	ok(decode(TDAT_OPT_TIME_SHIFT, &p, 10, 7, &v) == 0 && t->head == 10 &&
	    t->peer_id == 0x1122334455667788ull && t->ncpu == 0 &&
	    t->cpu == NULL, "%s: TIME_SHIFT of 10 bytes", bo);
	tdat_optval_free(&v);
	ok(decode(TDAT_OPT_TIME_SHIFT, &p, 4, 7, &v) == 0 && t->head == 4 &&
	    t->peer_id == 0, "%s: TIME_SHIFT of 4 bytes", bo);
	tdat_optval_free(&v);
	ok(decode(TDAT_OPT_TIME_SHIFT, &p, 16, 7, &v) == 0 && t->broken &&
	    t->ncount == 0 && t->ncpu == 2, "%s: TIME_SHIFT without counts", bo);
	tdat_optval_free(&v);
	ok(decode(TDAT_OPT_TIME_SHIFT, &p, 20 + 47, 7, &v) == 0 && t->broken &&
	    t->ncount == 1 && t->cpu[0].n == 2 && t->cpu[0].s == NULL &&
	    t->all == NULL, "%s: TIME_SHIFT with its first samples cut", bo);
	tdat_optval_free(&v);
	ok(decode(TDAT_OPT_TIME_SHIFT, &p, 20 + 48 + 3, 7, &v) == 0 &&
	    t->broken && t->ncount == 1,
	    "%s: TIME_SHIFT with the second count cut", bo);
	tdat_optval_free(&v);

	/* Counts far beyond the payload are refused, nothing allocated. */
	time_shift_payload(&p, big, 0);
	tdat_put(p.b + 12, 0xffffffffu, 4, big);
	ok(decode(TDAT_OPT_TIME_SHIFT, &p, p.n, 7, &v) == 0 && t->broken &&
	    t->ncpu == 0xffffffffu && t->ncount == 2 && t->all == NULL,
	    "%s: TIME_SHIFT with 2^32-1 CPUs", bo);
	tdat_optval_free(&v);
	time_shift_payload(&p, big, 0);
	tdat_put(p.b + 16, 0xffffffffu, 4, big);
	ok(decode(TDAT_OPT_TIME_SHIFT, &p, p.n, 7, &v) == 0 && t->broken &&
	    t->ncount == 1 && t->cpu[0].n == 0xffffffffu && t->all == NULL,
	    "%s: TIME_SHIFT with 2^32-1 samples", bo);
	tdat_optval_free(&v);
	time_shift_payload(&p, big, 0);
	tdat_put(p.b + 16, 0x0aaaaaabu, 4, big);	/* * 24 wraps 32 bits */
	ok(decode(TDAT_OPT_TIME_SHIFT, &p, p.n, 7, &v) == 0 && t->broken,
	    "%s: TIME_SHIFT whose sample bytes wrap 32 bits", bo);
	tdat_optval_free(&v);
}

static void
test_guest(int big)
{
	const char *bo = big ? "big" : "little";
	struct tdat_optval v;
	struct tdat_guest *g = &v.u.guest;
	struct pl p;

	memset(&p, 0, sizeof(p));
	p.big = big;
	puts_nul(&p, "vm1");
	put(&p, 0xabcdef0123456789ull, 8);
	put(&p, 2, 4);
	put(&p, 0, 4);
	put(&p, 4242, 4);
	put(&p, 1, 4);
	put(&p, (uint64_t)(uint32_t)-1, 4);
	ok(decode(TDAT_OPT_GUEST, &p, p.n, 7, &v) == 0 && g->name &&
	    strcmp(g->name, "vm1") == 0 && g->name_len == 3 && g->has_id &&
	    g->trace_id == 0xabcdef0123456789ull && g->has_ncpu &&
	    g->ncpu == 2 && g->nread == 2 && g->cpu[0].cpu == 0 &&
	    g->cpu[0].host_pid == 4242 && g->cpu[1].cpu == 1 &&
	    g->cpu[1].host_pid == -1, "%s: GUEST", bo);
	tdat_optval_free(&v);
	ok(decode(TDAT_OPT_GUEST, &p, 3, 7, &v) == 0 && g->name == NULL &&
	    !g->has_id, "%s: GUEST name without its NUL", bo);
	tdat_optval_free(&v);
	ok(decode(TDAT_OPT_GUEST, &p, 4 + 10, 7, &v) == 0 && g->name &&
	    g->has_id && !g->has_ncpu, "%s: GUEST without its CPU count", bo);
	tdat_optval_free(&v);
	ok(decode(TDAT_OPT_GUEST, &p, p.n - 1, 7, &v) == 0 && g->has_ncpu &&
	    g->ncpu == 2 && g->nread == 1, "%s: GUEST with a vCPU cut", bo);
	tdat_optval_free(&v);
	tdat_put(p.b + 12, 0xffffffffu, 4, big);
	ok(decode(TDAT_OPT_GUEST, &p, p.n, 7, &v) == 0 &&
	    g->ncpu == 0xffffffffu && g->nread == 2,
	    "%s: GUEST with 2^32-1 vCPUs", bo);
	tdat_optval_free(&v);
}

static void
test_small(int big)
{
	const char *bo = big ? "big" : "little";
	struct tdat_optval v;
	struct pl p;

	memset(&p, 0, sizeof(p));
	p.big = big;
	put(&p, 1000, 4);
	put(&p, 10, 4);
	put(&p, 0x123456789ull, 8);
	ok(decode(TDAT_OPT_TSC2NSEC, &p, 16, 7, &v) == 0 && v.u.tsc.valid &&
	    v.u.tsc.mult == 1000 && v.u.tsc.shift == 10 &&
	    v.u.tsc.offset == 0x123456789ull, "%s: TSC2NSEC", bo);
	ok(decode(TDAT_OPT_TSC2NSEC, &p, 15, 7, &v) == 0 && !v.u.tsc.valid,
	    "%s: TSC2NSEC of 15 bytes", bo);
	ok(decode(TDAT_OPT_CPUCOUNT, &p, 4, 7, &v) == 0 &&
	    v.u.num.width == 4 && v.u.num.value == 1000, "%s: CPUCOUNT", bo);
	ok(decode(TDAT_OPT_CPUCOUNT, &p, 3, 7, &v) == 0 &&
	    v.u.num.width == 0 && v.u.num.value == 0,
	    "%s: CPUCOUNT of 3 bytes", bo);
	ok(decode(TDAT_OPT_TRACEID, &p, 8, 7, &v) == 0 && v.u.num.width == 8 &&
	    v.u.num.value == (big ? 0x000003e80000000aull :
	    0x0000000a000003e8ull), "%s: TRACEID", bo);
	ok(decode(TDAT_OPT_DONE, &p, 8, 7, &v) == 0 && v.u.ref.valid &&
	    decode(TDAT_OPT_DONE, &p, 7, 7, &v) == 0 && !v.u.ref.valid,
	    "%s: DONE", bo);

	/* BUFFER, v7: offset, name, clock, page size, CPUs. */
	memset(&p, 0, sizeof(p));
	p.big = big;
	put(&p, 4096, 8);
	puts_nul(&p, "inst");
	puts_nul(&p, "mono");
	put(&p, 4096, 4);
	put(&p, 2, 4);
	put(&p, 0, 4);
	put(&p, 8192, 8);
	put(&p, 4096, 8);
	put(&p, 1, 4);
	put(&p, 12288, 8);
	put(&p, 0, 8);
	ok(decode(TDAT_OPT_BUFFER, &p, p.n, 7, &v) == 0 && v.u.buf.has_off &&
	    v.u.buf.off == 4096 && strcmp(v.u.buf.name, "inst") == 0 &&
	    strcmp(v.u.buf.clock, "mono") == 0 && v.u.buf.has_cpus &&
	    v.u.buf.page_size == 4096 && v.u.buf.ncpu == 2 &&
	    v.u.buf.nread == 2 && v.u.buf.cpu[1].id == 1 &&
	    v.u.buf.cpu[0].off == 8192 && v.u.buf.cpu[0].size == 4096,
	    "%s: BUFFER", bo);
	tdat_optval_free(&v);
	ok(decode(TDAT_OPT_BUFFER, &p, p.n - 1, 7, &v) == 0 &&
	    v.u.buf.nread == 1, "%s: BUFFER with a CPU cut", bo);
	tdat_optval_free(&v);
	ok(decode(TDAT_OPT_BUFFER, &p, p.n, 6, &v) == 0 &&
	    strcmp(v.u.buf.name, "inst") == 0 && v.u.buf.clock == NULL &&
	    !v.u.buf.has_cpus, "%s: BUFFER in a v6 file", bo);
	tdat_optval_free(&v);
	ok(decode(TDAT_OPT_BUFFER_TEXT, &p, p.n, 7, &v) == 0 &&
	    v.u.buf.clock != NULL && !v.u.buf.has_cpus,
	    "%s: BUFFER_TEXT", bo);
	tdat_optval_free(&v);
	ok(decode(TDAT_OPT_BUFFER, &p, 10, 7, &v) == 0 && v.u.buf.has_off &&
	    v.u.buf.name == NULL, "%s: BUFFER with its name cut", bo);
	tdat_optval_free(&v);
	tdat_put(p.b + 22, 0xffffffffu, 4, big);
	ok(decode(TDAT_OPT_BUFFER, &p, p.n, 7, &v) == 0 &&
	    v.u.buf.ncpu == 0xffffffffu && v.u.buf.nread == 2,
	    "%s: BUFFER with 2^32-1 CPUs", bo);
	tdat_optval_free(&v);
}

static void
test_text(void)
{
	struct tdat_optval v;
	struct pl p;

	memset(&p, 0, sizeof(p));
	puts_nul(&p, "-1234");
	ok(decode(TDAT_OPT_OFFSET, &p, p.n, 6, &v) == 0 && v.u.text.has_num &&
	    v.u.text.num == -1234 && v.u.text.len == 5, "OFFSET");
	memset(&p, 0, sizeof(p));
	memcpy(p.b, "0x10", 4);
	ok(decode(TDAT_OPT_OFFSET, &p, 4, 6, &v) == 0 && v.u.text.num == 16 &&
	    v.u.text.len == 4, "OFFSET in hex without a NUL");
	memset(p.b, ' ', 100);
	memcpy(p.b + 70, "55", 3);
	ok(decode(TDAT_OPT_OFFSET, &p, 73, 6, &v) == 0 && v.u.text.num == 0,
	    "OFFSET read from its first 63 bytes only");
	ok(decode(TDAT_OPT_OFFSET, &p, 0, 6, &v) == 0 && v.u.text.num == 0 &&
	    v.u.text.len == 0, "empty OFFSET");
	memset(&p, 0, sizeof(p));
	puts_nul(&p, "Linux host 6.1");
	ok(decode(TDAT_OPT_UNAME, &p, p.n + 5, 6, &v) == 0 &&
	    !v.u.text.has_num && v.u.text.len == 14 &&
	    memcmp(v.u.text.s, "Linux host 6.1", 14) == 0, "UNAME");
	ok(tdat_opt_decode(TDAT_OPT_UNAME, NULL, 0, 0, 6, &v) == 0 &&
	    v.u.text.len == 0, "empty UNAME");
	ok(v.u.text.clock == NULL, "no clock but in TRACECLOCK");
	memset(&p, 0, sizeof(p));
	puts_nul(&p, "local [global] counter uptime perf\n");
	ok(decode(TDAT_OPT_TRACECLOCK, &p, p.n, 6, &v) == 0 &&
	    v.u.text.clock && v.u.text.clock_len == 6 &&
	    memcmp(v.u.text.clock, "global", 6) == 0, "TRACECLOCK: [global]");
	memset(&p, 0, sizeof(p));
	puts_nul(&p, "local global [counter");
	ok(decode(TDAT_OPT_TRACECLOCK, &p, p.n, 6, &v) == 0 &&
	    v.u.text.clock == NULL, "TRACECLOCK: no closing bracket, no clock");
	memset(&p, 0, sizeof(p));
	puts_nul(&p, "-7");
	ok(decode(TDAT_OPT_OFFSET, &p, p.n, 6, &v) == 0 && v.u.text.num_ok,
	    "OFFSET: a number");
	memset(&p, 0, sizeof(p));
	puts_nul(&p, "x7");
	ok(decode(TDAT_OPT_OFFSET, &p, p.n, 6, &v) == 0 && !v.u.text.num_ok,
	    "OFFSET: not a number");
}

/* A real file: decoded once, on the first call, and kept. */
static void
test_file(void)
{
	const char *dir = getenv("TDAT_DATA");
	char path[4096];
	struct tdat_file *f;
	struct tdat_err e = { 0 };
	const struct tdat_optval *ov, *again;
	size_t i;
	int found = 0;

	snprintf(path, sizeof(path), "%s/hip24-host-trace.dat",
	    dir ? dir : "t/data");
	if (tdat_open(path, &f, &e) < 0) {
		ok(0, "open %s: %s", path, e.msg);
		return;
	}
	ok(tdat_options(f, &ov, &e) == 0 && tdat_options(f, &again, &e) == 0 &&
	    ov == again, "options decoded once per file");
	for (i = 0; i < f->nopt; i++)
		if (ov[i].id == TDAT_OPT_GUEST)
			found = ov[i].u.guest.has_ncpu &&
			    ov[i].u.guest.ncpu == 1 && ov[i].u.guest.nread == 1 &&
			    ov[i].u.guest.cpu[0].host_pid == 483882 &&
			    ov[i].u.guest.trace_id == 0x5D2B93F358166218ull;
	ok(found, "the GUEST option of hip24-host-trace.dat");
	tdat_close(f);
}

static int
count_errors(void *arg, const struct tdat_finding *fd)
{
	if (fd->severity == TDAT_FIND_ERROR)
		++*(int *)arg;
	return 0;
}

/* A hash of path's first 2000 records' CPU and time, or 0. */
static uint64_t
times(const char *path)
{
	struct tdat_reader *r;
	struct tdat_record rec;
	struct tdat_file *f;
	struct tdat_err e;
	uint64_t h = 0xcbf29ce484222325ULL;
	int n = 0;

	if (tdat_open(path, &f, &e) < 0)
		return 0;
	if (tdat_reader_open(f, NULL, &r, &e) == 0) {
		while (n++ < 2000 && tdat_reader_next(r, &rec, &e) > 0)
			h = (h ^ (rec.ts + (uint64_t)rec.cpu)) *
			    0x100000001b3ULL;
		tdat_reader_close(r);
	}
	tdat_close(f);
	return h;
}

/*
 * hip24-host-trace.dat (TSC2NSEC: mult 735842807, shift 31, offset 0)
 * written with its TSC2NSEC option of size bytes, shift shift, as
 * version ver: what the copy holds.
 */
static void
tsc_copy(const char *path, uint32_t size, uint32_t shift, int ver)
{
	struct tdat_write_opts wo = { .version = ver, .compression = ver == 7 ?
	    "zstd" : "none" };
	struct tdat_verify_opts vo = { .keep_going = 1, .found = count_errors };
	struct tdat_verify_stats st;
	const struct tdat_optval *ov;
	unsigned char d[32];
	char tmp[] = "/tmp/test_options.XXXXXX";
	struct tdat_file *f;
	struct tdat_err e = { 0 };
	uint64_t want = times(path);
	size_t i, k;
	int fd, errors = 0, n = 0, same = 0;

	if ((fd = mkstemp(tmp)) < 0 || tdat_open(path, &f, &e) < 0) {
		ok(0, "open %s: %s", path, e.msg);
		return;
	}
	for (k = 0; k < f->nopt && f->opt[k].id != TDAT_OPT_TSC2NSEC; k++)
		;
	if (k == f->nopt) {
		ok(0, "%s has a TSC2NSEC option", path);
		tdat_close(f);
		return;
	}
	memset(d, 0x5a, sizeof(d));
	memcpy(d, f->opt[k].data, 16);
	tdat_put(d + 4, shift, 4, f->big);
	f->opt[k].data = d;
	f->opt[k].size = size;
	if (tdat_write(f, fd, &wo, &e) < 0)
		ok(0, "write: %s", e.msg);
	tdat_close(f);
	close(fd);
	vo.arg = &errors;
	tdat_verify(tmp, &vo, &st, &e);
	if (tdat_open(tmp, &f, &e) == 0) {
		if (tdat_options(f, &ov, &e) == 0)
			for (i = 0; i < f->nopt; i++) {
				if (ov[i].id != TDAT_OPT_TSC2NSEC)
					continue;
				n++;
				same = f->opt[i].size == 16 &&
				    ov[i].u.tsc.mult == 735842807 &&
				    ov[i].u.tsc.shift == 31 &&
				    ov[i].u.tsc.offset == 0;
			}
		tdat_close(f);
	}
	if (size >= 16 && shift <= 63)
		ok(errors == 0 && n == 1 && same && times(tmp) == want,
		    "v%d: a TSC2NSEC option of %u bytes is copied as its first "
		    "16, the times kept; %d errors", ver, size, errors);
	else
		ok(errors == 0 && n == 0,
		    "v%d: a TSC2NSEC option of %u bytes, shift %u, is left out; "
		    "%d errors", ver, size, shift, errors);
	unlink(tmp);
}

/*
 * File name in dir with its first option of id from made one of id to (a
 * metadata section's), written as v7: the copy names each of the six
 * metadata sections once, and tdat-verify finds no error.
 */
static void
meta_twice(const char *dir, const char *name, uint16_t from, uint16_t to)
{
	struct tdat_write_opts wo = { .version = 7, .compression = "none" };
	struct tdat_verify_opts vo = { .keep_going = 1, .found = count_errors };
	struct tdat_verify_stats st;
	char path[4096], tmp[] = "/tmp/test_options.XXXXXX";
	struct tdat_file *f;
	struct tdat_err e = { 0 };
	int fd, errors = 0, seen[TDAT_OPT_MAX] = { 0 }, once = 1, id;
	size_t k;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = mkstemp(tmp)) < 0 || tdat_open(path, &f, &e) < 0) {
		ok(0, "open %s: %s", path, e.msg);
		return;
	}
	for (k = 0; k < f->nopt && f->opt[k].id != from; k++)
		;
	if (k < f->nopt)
		f->opt[k].id = to;
	if (k == f->nopt || tdat_write(f, fd, &wo, &e) < 0)
		ok(0, "%s: option %u, or write: %s", name, from, e.msg);
	tdat_close(f);
	close(fd);
	vo.arg = &errors;
	tdat_verify(tmp, &vo, &st, &e);
	if (tdat_open(tmp, &f, &e) == 0) {
		for (k = 0; k < f->nopt; k++)
			if (f->opt[k].id < TDAT_OPT_MAX)
				seen[f->opt[k].id]++;
		tdat_close(f);
	}
	for (id = TDAT_OPT_HEADER_INFO; id <= TDAT_OPT_CMDLINES; id++)
		once &= seen[id] == 1;
	ok(errors == 0 && once, "%s with option %u made %s: the v7 copy names "
	    "each metadata section once; %d errors", name, from,
	    tdat_option_name(to), errors);
	unlink(tmp);
}

int
main(void)
{
	const char *dir = getenv("TDAT_DATA");
	char path[4096];

	tdat_formats_all();
	test_time_shift(0);
	test_time_shift(1);
	test_guest(0);
	test_guest(1);
	test_small(0);
	test_small(1);
	test_text();
	test_file();
	snprintf(path, sizeof(path), "%s/hip24-host-trace.dat",
	    dir ? dir : "t/data");
	tsc_copy(path, 16, 31, 6);
	tsc_copy(path, 24, 31, 6);
	tsc_copy(path, 24, 31, 7);
	tsc_copy(path, 12, 31, 7);
	tsc_copy(path, 16, 64, 6);
	tsc_copy(path, 16, 64, 7);
	meta_twice(dir ? dir : "t/data", "labsisop-qemu-trace.dat",
	    TDAT_OPT_CPUSTAT, TDAT_OPT_PRINTK);
	meta_twice(dir ? dir : "t/data", "labsisop-qemu-trace.dat",
	    TDAT_OPT_CPUSTAT, TDAT_OPT_CMDLINES);
	meta_twice(dir ? dir : "t/data", "x86_64-v7-none-instances.dat",
	    TDAT_OPT_UNAME, TDAT_OPT_FTRACE_EVENTS);
	return tap_done();
}
