/*
 * test_options.c: option payloads decoded into typed values
 * (formats/tracedat-opts.c): hand-built TIME_SHIFT, GUEST, TSC2NSEC,
 * OFFSET, BUFFER and number payloads in both byte orders, cut short, and
 * with counts far larger than the payload.
 */
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
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

int
main(void)
{
	test_time_shift(0);
	test_time_shift(1);
	test_guest(0);
	test_guest(1);
	test_small(0);
	test_small(1);
	test_text();
	test_file();
	return tap_done();
}
