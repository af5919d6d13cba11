/*
 * test_zpipe.c: the compression pipeline (lib/common/codec.c) hands back the
 * chunks in the order they went in, each one that decompresses to its
 * input, the same bytes with no worker and with several (zlib: what one
 * codec on one thread makes of it; zstd, whose level is chosen by
 * measure: what the pipeline without a worker makes, each chunk as one of
 * levels 3, 1 and -1 makes it alone, fewer bytes than level 3 alone where
 * a faster level makes fewer, level -1 on a function trace's pages, level
 * 3's own bytes where it makes the fewest), zstd and zlib, over many
 * chunks of many sizes, in its buffers or in the caller's; a failing
 * put() stops it with its error, which sticks; a caller that does not
 * help leaves every chunk to the workers until it flushes; chunks of 80
 * pages weighed against trace-cmd's of 10, which lets level -1 in; a
 * pipeline freed with chunks in it frees them (check-asan's
 * LeakSanitizer sees the rest); tdat_codec_head() gives the first bytes
 * alone; levels 1 and -1 hash with a table of 2^16 entries.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "tdat-int.h"
#include "tap.h"

#define NCHUNK	300
#define MAXLEN	(40 << 10)

/* What put() was given, chunk by chunk, or where it should fail. */
struct got {
	uint64_t h;		/* FNV-1a over (len, clen, bytes) of each */
	int n;			/* chunks handed back */
	int fail_at;		/* fail on this chunk (-1: never) */
	int calls_after;	/* put() calls after failing */
	int bad;		/* chunks that did not decompress to theirs */
	size_t bytes;		/* compressed bytes handed back */
	struct tdat_codec *dc;	/* decompresses them, when set */
	int levels;		/* count lv[]: zstd chunks by level */
	int lv[3];		/* the chunks levels 3, 1, -1 make alone */
	struct tdat_err *e;
};

static size_t chunk(int i, unsigned char *p);

/* Which of zstd's levels 3, 1 and -1 makes chunk g->n's bytes c, alone
 * on a fresh codec: counted in g->lv[] (none: not counted). */
static void
level_of(struct got *g, const unsigned char *c, size_t clen)
{
	static const int level[3] = { 3, 1, -1 };
	static unsigned char in[MAXLEN], out[MAXLEN * 2];
	struct tdat_codec *z;
	size_t len = chunk(g->n, in);
	int k;

	for (k = 0; k < 3; k++) {
		z = tdat_codec_new("zstd");
		tdat_codec_level(z, level[k]);
		if (tdat_codec_compress(z, in, len, out, sizeof(out)) == clen &&
		    memcmp(out, c, clen) == 0) {
			g->lv[k]++;
			tdat_codec_free(z);
			return;
		}
		tdat_codec_free(z);
	}
}

static uint64_t
hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n-- > 0)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

static int
put(void *arg, const unsigned char *c, size_t clen, size_t len)
{
	struct got *g = arg;

	if (g->fail_at >= 0 && g->n >= g->fail_at) {
		if (g->n > g->fail_at)
			g->calls_after++;
		g->n++;
		return tdat_fail_nooff(g->e, TDAT_EIO, "write: test failure");
	}
	g->h = hash(g->h, &len, sizeof(len));
	g->h = hash(g->h, &clen, sizeof(clen));
	g->h = hash(g->h, c, clen);
	g->bytes += clen;
	if (g->dc != NULL) {
		static unsigned char want[MAXLEN], back[MAXLEN];

		if (chunk(g->n, want) != len || tdat_codec_decompress(g->dc, c,
		    clen, back, len) < 0 || memcmp(want, back, len) != 0)
			g->bad++;
	}
	if (g->levels)
		level_of(g, c, clen);
	g->n++;
	return 0;
}

/* Which chunks: 0 runs and noise (level 1 makes fewer bytes than level
 * 3, level -1 more), 1 records of a few kinds (level 3 makes the fewest),
 * 2 a function trace's pages, ten a chunk (level -1 makes fewer than
 * level 3). */
static int kind;

#define FUNCTION	"t/data/zstd/function-cpu0.dat"
#define NFUNC		100	/* its chunks used: 1,000 of its pages */

static unsigned char *func;	/* those pages */

/* Read FUNCTION's first NFUNC * 10 pages into func; 0 or -1. */
static int
load_function(void)
{
	struct tdat_pages *ps;
	struct tdat_page pg;
	struct tdat_file *f;
	struct tdat_err e;
	size_t avail, n = 0;

	if ((func = malloc((size_t)NFUNC * MAXLEN)) == NULL ||
	    tdat_open(FUNCTION, &f, &e) < 0)
		return -1;
	if (tdat_pages_open(f, 0, 0, &ps, &e) == 0) {
		while (n < NFUNC * 10 && tdat_pages_next(ps, &pg, &avail, &e) >
		    0 && pg.page_size == 4096)
			memcpy(func + 4096 * n++, pg.p, 4096);
		tdat_pages_close(ps);
	}
	tdat_close(f);
	return n == NFUNC * 10 ? 0 : -1;
}

/* Chunk i of kind 1: 28-byte records, a header word with a small delta,
 * a type, flags and pid, and two of 64 addresses. */
static size_t
records(int i, unsigned char *p)
{
	uint32_t x = 2463534242u + (uint32_t)i * 77u, k, word;
	uint64_t a;
	size_t n;

	for (n = 0; n + 28 <= MAXLEN; n += 28) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		word = (x % 300) << 5 | 7;
		memcpy(p + n, &word, 4);
		p[n + 4] = 1;
		p[n + 5] = 0;
		p[n + 6] = 1;
		p[n + 7] = (unsigned char)(x % 3);
		word = 1000 + (uint32_t)(i & 3);
		memcpy(p + n + 8, &word, 4);
		k = (x >> 8) % 64;
		a = 0xffffffff81000000ULL + k * 0x1234 + k * k * 97;
		memcpy(p + n + 12, &a, 8);
		k = (k * 7 + 1) % 64;
		a = 0xffffffff81000000ULL + k * 0x1234 + k * k * 97 +
		    (x >> 20) % 16;
		memcpy(p + n + 20, &a, 8);
	}
	return n;
}

/* Chunk i: its length and bytes, something a trace page might hold
 * (runs, small numbers, some noise), different for every i. */
static size_t
chunk(int i, unsigned char *p)
{
	size_t len = (size_t)(i * 7919) % MAXLEN + 1, j;
	uint32_t x = 2463534242u + (uint32_t)i;

	if (kind == 1)
		return records(i, p);
	if (kind == 2) {
		memcpy(p, func + (size_t)i * MAXLEN, MAXLEN);
		return MAXLEN;
	}
	if (i % 5 == 0)
		len = MAXLEN;
	for (j = 0; j < len; j++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[j] = (j % 16 < 8) ? (unsigned char)(j / 64 + i) :
		    (unsigned char)(x % 7);
	}
	return len;
}

/* The chunks compressed one by one on this thread, with a fresh codec
 * (zstd: at level 3); *bytes their size. */
static uint64_t
reference(const char *name, int n, size_t *bytes)
{
	struct tdat_codec *c = tdat_codec_new(name);
	unsigned char *in = malloc(MAXLEN), *out;
	size_t cap = tdat_codec_bound(c, MAXLEN), len, clen;
	uint64_t h = 0xcbf29ce484222325ULL;
	int i;

	out = malloc(cap);
	for (i = 0; i < n; i++) {
		len = chunk(i, in);
		clen = tdat_codec_compress(c, in, len, out, cap);
		h = hash(h, &len, sizeof(len));
		h = hash(h, &clen, sizeof(clen));
		h = hash(h, out, clen);
		*bytes += clen;
	}
	free(in);
	free(out);
	tdat_codec_free(c);
	return h;
}

/* Put n chunks through a pipeline of w workers; flush when flush is set;
 * with at set, every other chunk from the caller's memory (put_at), kept
 * until flushed.  Returns the first error, or 0. */
static int
run_at(const char *name, int w, int n, int flush, int at, struct got *g,
    int *nw)
{
	struct tdat_zpipe *p;
	struct tdat_err e = { 0 };
	unsigned char *b, *mine = NULL;
	int i, rc = 0;

	g->h = 0xcbf29ce484222325ULL;
	g->n = 0;
	g->calls_after = 0;
	g->bad = 0;
	g->bytes = 0;
	g->e = &e;
	if ((rc = tdat_zpipe_new(name, w, put, g, &p, &e)) < 0)
		return rc;
	*nw = tdat_zpipe_workers(p);
	if (at && (mine = malloc((size_t)n * MAXLEN + 1)) == NULL)
		rc = TDAT_ENOMEM;
	for (i = 0; i < n && rc == 0; i++) {
		if (at && i % 2) {
			b = mine + (size_t)i * MAXLEN;
			rc = tdat_zpipe_put_at(p, b, chunk(i, b));
			continue;
		}
		if ((b = tdat_zpipe_buf(p, MAXLEN, &rc)) == NULL)
			break;
		rc = tdat_zpipe_put(p, chunk(i, b));
	}
	if (rc == 0 && flush)
		rc = tdat_zpipe_flush(p);
	if (rc < 0) {
		/* the error sticks */
		ok(tdat_zpipe_flush(p) == rc && tdat_zpipe_buf(p, 16, &i) ==
		    NULL && i == rc && tdat_zpipe_put(p, 1) == rc &&
		    strcmp(e.msg, "write: test failure") == 0,
		    "%s, %d workers: the error sticks (%s)", name, w, e.msg);
	}
	tdat_zpipe_free(p);
	free(mine);
	return rc;
}

static int
run(const char *name, int w, int n, int flush, struct got *g, int *nw)
{
	return run_at(name, w, n, flush, 0, g, nw);
}

/* n zstd chunks without a worker, each counted by the level that makes
 * it (g->lv). */
static int
run_levels(int n, struct got *g, int *nw)
{
	int rc;

	g->fail_at = -1;
	g->levels = 1;
	memset(g->lv, 0, sizeof(g->lv));
	rc = run("zstd", 0, n, 1, g, nw);
	g->levels = 0;
	return rc;
}

/*
 * The function trace's chunks at the codec's level 1 against zstd's own
 * level 1 (minimum match 5 at these sizes): the codec's takes matches of
 * 7 bytes or more, fewer bytes on function pages.
 */
static void
level1_matches(void)
{
	static unsigned char in[MAXLEN], a[MAXLEN * 2], b[MAXLEN * 2];
	struct tdat_codec *z = tdat_codec_new("zstd");
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t ours = 0, plain = 0, len, n, m;
	int i, differ = 0;

	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 1);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
	tdat_codec_level(z, 1);
	for (i = 0; i < NFUNC; i++) {
		len = chunk(i, in);
		n = tdat_codec_compress(z, in, len, a, sizeof(a));
		m = ZSTD_compress2(cc, b, sizeof(b), in, len);
		ours += n;
		plain += ZSTD_isError(m) ? 0 : m;
		differ += n != m || memcmp(a, b, n) != 0;
	}
	ok(differ > 0 && ours < plain, "zstd level 1 on a function trace: "
	    "%zu bytes, zstd's own level 1 %zu (%d of %d chunks differ)",
	    ours, plain, differ, NFUNC);
	ZSTD_freeCCtx(cc);
	tdat_codec_free(z);
}

/* trace-cmd's bytes of len bytes at p: level 3 over pieces of 10 pages,
 * each but the first with its 8-byte head. */
static size_t
theirs(const unsigned char *p, size_t len)
{
	static unsigned char out[MAXLEN * 2];
	struct tdat_codec *z = tdat_codec_new("zstd");
	size_t at, n, sum = 0;

	for (at = 0; at < len; at += n) {
		n = len - at < MAXLEN ? len - at : MAXLEN;
		sum += tdat_codec_compress(z, p + at, n, out, sizeof(out)) +
		    (at ? 8 : 0);
	}
	tdat_codec_free(z);
	return sum;
}

/* What put() of the big chunks was given: their bytes, and how many
 * level -1 makes alone (fast), and level 3 (slow). */
struct big {
	const unsigned char *src[16];	/* each chunk */
	int n, fast, slow;
	size_t bytes;			/* of the big ones */
};

/* Whether level makes len bytes at p into c, clen bytes, alone. */
static int
makes(int level, const unsigned char *p, size_t len, const unsigned char *c,
    size_t clen)
{
	struct tdat_codec *z = tdat_codec_new("zstd");
	unsigned char *out = malloc(tdat_codec_bound(z, len));
	size_t n;
	int same;

	tdat_codec_level(z, level);
	n = tdat_codec_compress(z, p, len, out, tdat_codec_bound(z, len));
	same = n == clen && memcmp(out, c, n) == 0;
	free(out);
	tdat_codec_free(z);
	return same;
}

static int
put_big(void *arg, const unsigned char *c, size_t clen, size_t len)
{
	struct big *b = arg;

	b->fast += makes(-1, b->src[b->n], len, c, clen);
	b->slow += makes(3, b->src[b->n], len, c, clen);
	if (len > MAXLEN)		/* the big ones */
		b->bytes += clen;
	b->n++;
	return 0;
}

/*
 * Chunks of 80 pages weighed against trace-cmd's chunks of 10
 * (tdat_zpipe_piece): records of a few kinds, each chunk's 10 pages over
 * again eight times.  Level 3 makes the fewest bytes of a chunk, but
 * level -1 makes fewer than trace-cmd's level 3 over the pieces, which
 * finds no piece's copy in the one before; so every chunk after the
 * first trial counts (ZP_SLOTS, eight) is level -1's, and all of them come
 * to fewer bytes than trace-cmd's.  Weighed against level 3's own bytes,
 * none would be.  Then chunks of one piece, not trials: trace-cmd's
 * chunks, made at its level 3 (level -1 makes more of them).
 */
static void
big_chunks(void)
{
	struct tdat_zpipe *p;
	struct tdat_err e = { 0 };
	struct big b;
	unsigned char *all;
	size_t ref = 0, at, len = (size_t)MAXLEN * 8;
	int i, rc, nb = 12;

	memset(&b, 0, sizeof(b));
	if ((all = calloc(nb + 4, len)) == NULL)
		return;
	for (i = 0; i < nb + 4; i++) {
		b.src[i] = all + (size_t)i * len;
		records(i, all + (size_t)i * len);
		for (at = MAXLEN; i < nb && at < len; at += MAXLEN)
			memcpy(all + (size_t)i * len + at, all +
			    (size_t)i * len, MAXLEN);
		if (i < nb)
			ref += theirs(all + (size_t)i * len, len);
	}
	if ((rc = tdat_zpipe_new("zstd", 1, put_big, &b, &p, &e)) == 0) {
		tdat_zpipe_piece(p, MAXLEN);
		for (i = 0; i < nb + 4 && rc == 0; i++)
			rc = tdat_zpipe_put_at(p, b.src[i], i < nb ? len :
			    MAXLEN);
		if (rc == 0)
			rc = tdat_zpipe_flush(p);
		tdat_zpipe_free(p);
	}
	ok(rc == 0 && b.n == nb + 4 && b.bytes <= ref && b.fast == nb - 8,
	    "zstd, chunks of 80 pages weighed against trace-cmd's of 10: "
	    "%zu bytes, trace-cmd's %zu; level -1 made %d of %d chunks",
	    b.bytes, ref, b.fast, nb);
	/* level 3's: chunks 1 to 7 (before the first trial counts; chunk 0
	 * is that trial's fewest bytes) and the short ones */
	ok(rc == 0 && b.slow == 7 + 4, "zstd, chunks of one piece after "
	    "them: trace-cmd's level 3 made %d of 4", b.slow - 7);
	free(all);
}

/* tdat_codec_head(): the first bytes of what src decompresses to, for
 * either codec, without the rest; -1 when src is cut short or is not
 * the codec's. */
static void
test_head(const char *name)
{
	struct tdat_codec *c = tdat_codec_new(name);
	size_t n = 16 * MAXLEN, len = 0, cap, clen;
	unsigned char *in = malloc(n), *out, head[MAXLEN];
	int i;

	for (i = 0; len + MAXLEN <= n; i++)
		len += chunk(i, in + len);
	cap = tdat_codec_bound(c, len);
	out = malloc(cap);
	clen = tdat_codec_compress(c, in, len, out, cap);
	ok(clen > 0 && tdat_codec_head(c, out, clen, head, 4) == 0 &&
	    memcmp(head, in, 4) == 0, "%s head: the first 4 bytes", name);
	ok(tdat_codec_head(c, out, clen, head, sizeof(head)) == 0 &&
	    memcmp(head, in, sizeof(head)) == 0, "%s head: the first %zu "
	    "bytes of %zu", name, sizeof(head), len);
	ok(tdat_codec_head(c, out, 12, head, sizeof(head)) < 0,
	    "%s head: 12 bytes of %zu do not give %zu", name, clen,
	    sizeof(head));
	memset(out, 0x5a, 64);
	ok(tdat_codec_head(c, out, 64, head, 4) < 0,
	    "%s head: bytes not of the codec give none", name);
	/* the codec decompresses whole data as before after it */
	clen = tdat_codec_compress(c, in, MAXLEN, out, cap);
	ok(tdat_codec_decompress(c, out, clen, head, MAXLEN) == 0 &&
	    memcmp(head, in, MAXLEN) == 0, "%s: whole data after a head",
	    name);
	free(in);
	free(out);
	tdat_codec_free(c);
}

/*
 * Levels 1 and -1 hash with a table of 2^16 entries: the function trace's
 * chunks as libzstd makes them at that level with matches of 7 bytes and
 * that table, fewer bytes than with zstd's own table at chunk sizes.
 */
static void
test_hash16(void)
{
	static unsigned char out[MAXLEN * 2], ref[MAXLEN * 2];
	static const int level[2] = { 1, -1 };
	struct tdat_codec *z = tdat_codec_new("zstd");
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t ours = 0, own = 0, n, m, o;
	int i, k, same = 1;

	for (k = 0; k < 2; k++) {
		tdat_codec_level(z, level[k]);
		for (i = 0; i < NFUNC; i++) {
			n = tdat_codec_compress(z, func + (size_t)i * MAXLEN,
			    MAXLEN, out, sizeof(out));
			ZSTD_CCtx_reset(cc, ZSTD_reset_parameters);
			ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel,
			    level[k]);
			ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
			ZSTD_CCtx_setParameter(cc, ZSTD_c_minMatch, 7);
			o = ZSTD_compress2(cc, ref, sizeof(ref), func +
			    (size_t)i * MAXLEN, MAXLEN);
			ZSTD_CCtx_setParameter(cc, ZSTD_c_hashLog, 16);
			m = ZSTD_compress2(cc, ref, sizeof(ref), func +
			    (size_t)i * MAXLEN, MAXLEN);
			same &= n == m && memcmp(out, ref, n) == 0;
			ours += n;
			own += o;
		}
		ok(same && ours < own, "zstd level %d, a hash table of 2^16: "
		    "libzstd's bytes; %zu bytes, zstd's own table %zu",
		    level[k], ours, own);
		ours = own = 0;
	}
	ZSTD_freeCCtx(cc);
	tdat_codec_free(z);
}

int
main(void)
{
	static const char *const names[] = { "zstd", "zlib" };
	struct tdat_zpipe *p;
	struct tdat_err e = { 0 };
	struct got g;
	uint64_t want;
	int i, w, nw, rc;

	tdat_formats_all();
	test_head("zstd");
	test_head("zlib");
	memset(&g, 0, sizeof(g));
	for (i = 0; i < 2; i++) {
		size_t ref = 0;

		want = reference(names[i], NCHUNK, &ref);
		g.dc = tdat_codec_new(names[i]);
		for (w = 0; w <= 3; w++) {
			g.fail_at = -1;
			g.levels = i == 0 && w == 0;
			memset(g.lv, 0, sizeof(g.lv));
			rc = run(names[i], w, NCHUNK, 1, &g, &nw);
			g.levels = 0;
			if (i == 0 && w == 0) {
				/* zstd on chunks levels 1 and -1 make smaller */
				ok(rc == 0 && g.bytes < ref * 97 / 100,
				    "zstd, no worker: %zu bytes, level 3 alone "
				    "%zu", g.bytes, ref);
				ok(g.lv[0] + g.lv[1] + g.lv[2] == NCHUNK &&
				    g.lv[1] > NCHUNK / 2, "zstd, no worker: "
				    "each chunk as one level makes it alone; "
				    "level 3: %d, level 1: %d, level -1: %d",
				    g.lv[0], g.lv[1], g.lv[2]);
				want = g.h;
			}
			ok(rc == 0 && g.n == NCHUNK && g.h == want && nw == w &&
			    g.bad == 0, "%s, %d workers (%d started): %d "
			    "chunks as %s, each decompressing to its own",
			    names[i], w, nw, g.n, i == 0 ? "without a worker" :
			    "one thread compresses them");
		}
		if (i == 0) {
			/* records, where level 3 makes fewer bytes */
			size_t ref3 = 0;
			uint64_t want3;

			kind = 1;
			reference("zstd", NCHUNK, &ref3);
			rc = run_levels(NCHUNK, &g, &nw);
			want3 = g.h;
			ok(rc == 0 && g.bad == 0 && g.bytes <= ref3 &&
			    g.lv[0] == NCHUNK,
			    "zstd on records level 3 makes smaller: %zu "
			    "bytes, level 3 alone %zu; %d of %d chunks as "
			    "level 3 makes them", g.bytes, ref3, g.lv[0],
			    NCHUNK);
			rc = run("zstd", 2, NCHUNK, 1, &g, &nw);
			ok(rc == 0 && g.bad == 0 && g.h == want3,
			    "zstd on records, 2 workers: as without");

			/* a function trace: level -1 makes fewer bytes
			 * than level 3, and is the fastest */
			kind = 2;
			ok(load_function() == 0, "read %d pages of %s",
			    NFUNC * 10, FUNCTION);
			ref3 = 0;
			reference("zstd", NFUNC, &ref3);
			rc = run_levels(NFUNC, &g, &nw);
			want3 = g.h;
			ok(rc == 0 && g.bad == 0 && g.bytes <= ref3 &&
			    g.lv[2] > 0 && g.lv[0] + g.lv[1] + g.lv[2] ==
			    NFUNC, "zstd on a function trace: %zu bytes, "
			    "level 3 alone %zu; level -1 made %d of %d chunks "
			    "(level 1: %d, level 3: %d)", g.bytes, ref3,
			    g.lv[2], NFUNC, g.lv[1], g.lv[0]);
			rc = run("zstd", 2, NFUNC, 1, &g, &nw);
			ok(rc == 0 && g.bad == 0 && g.h == want3,
			    "zstd on a function trace, 2 workers: as without");
			test_hash16();
			level1_matches();
			big_chunks();
			free(func);
			kind = 0;
		}
		tdat_codec_free(g.dc);
		g.dc = NULL;
	}
	/* zstd's chunks with no worker: the reference of what follows */
	g.fail_at = -1;
	run("zstd", 0, NCHUNK, 1, &g, &nw);

	/* chunks in the caller's memory (tdat_zpipe_put_at) among the
	 * pipeline's own: the same bytes */
	want = g.h;
	for (w = 0; w <= 2; w++) {
		g.fail_at = -1;
		rc = run_at("zstd", w, NCHUNK, 1, 1, &g, &nw);
		ok(rc == 0 && g.n == NCHUNK && g.h == want,
		    "zstd, %d workers, every other chunk put in place: %d "
		    "chunks as without a worker", w, g.n);
	}

	/* put() fails on chunk 20: every call after says so, put() is
	 * not called again, and freeing takes the chunks still inside */
	for (w = 0; w <= 2; w++) {
		g.fail_at = 20;
		rc = run("zstd", w, NCHUNK, 1, &g, &nw);
		ok(rc == TDAT_EIO && g.n == 21 && g.calls_after == 0,
		    "zstd, %d workers: put() failing on chunk 20 stops the "
		    "pipeline after %d calls", w, g.n);
	}

	/* a caller that does not help (tdat_zpipe_help) compresses nothing
	 * while it puts, however many chunks wait; its flush does (want:
	 * still the chunks without a worker) */
	for (w = 1; w <= 2; w++) {
		unsigned char *b;
		uint64_t own = 1;

		g.fail_at = -1;
		g.h = 0xcbf29ce484222325ULL;
		g.n = 0;
		g.e = &e;
		rc = tdat_zpipe_new("zstd", w, put, &g, &p, &e);
		if (rc == 0)
			tdat_zpipe_help(p, 0);
		for (i = 0; i < NCHUNK && rc == 0; i++)
			if ((b = tdat_zpipe_buf(p, MAXLEN, &rc)) != NULL)
				rc = tdat_zpipe_put(p, chunk(i, b));
		if (rc == 0) {
			own = tdat_zpipe_own(p);
			rc = tdat_zpipe_flush(p);
		}
		tdat_zpipe_free(p);
		ok(rc == 0 && own == 0 && g.n == NCHUNK && g.h == want,
		    "zstd, %d workers, the caller not helping: it compressed "
		    "%llu of %d chunks before its flush, the same bytes", w,
		    (unsigned long long)own, NCHUNK);
	}

	/* freed without a flush: chunks in flight are dropped */
	g.fail_at = -1;
	rc = run("zstd", 2, 13, 0, &g, &nw);
	ok(rc == 0 && g.n <= 13, "freed unflushed: %d of 13 chunks handed "
	    "back, the rest dropped", g.n);
	/* an empty pipeline */
	rc = run("zlib", 1, 0, 1, &g, &nw);
	ok(rc == 0 && g.n == 0, "an empty pipeline hands back nothing");

	ok(tdat_zpipe_new("lz4", 1, put, &g, &p, &e) == TDAT_EUSAGE &&
	    p == NULL && strstr(e.msg, "lz4") != NULL,
	    "an unknown codec: %s", e.msg);
	return tap_done();
}
