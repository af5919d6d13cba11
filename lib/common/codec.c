/*
 * codec.c: the compression algorithms trace.dat v7 names in its header
 * ("zlib", "zstd"), through zlib and libzstd.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "tdat-int.h"
#include "tdat-thread.h"

struct tdat_codec {
	int kind;		/* 1 zlib, 2 zstd */
	ZSTD_DCtx *dctx;
	ZSTD_CCtx *cctx;
	int level;
	int set;		/* the level cctx has: 0 none yet */
	z_stream zs;		/* zlib decompression, kept between calls */
	int zinit;
	/* the decompression state: a page worker (lib/read/pages.c) may use it
	 * while the caller's thread does too */
	pthread_mutex_t dmu;
};

struct tdat_codec *
tdat_codec_new(const char *name)
{
	struct tdat_codec *c;
	int kind;

	if (strcmp(name, "zlib") == 0)
		kind = 1;
	else if (strcmp(name, "zstd") == 0)
		kind = 2;
	else
		return NULL;
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->kind = kind;
	pthread_mutex_init(&c->dmu, NULL);
	c->level = kind == 2 ? 3 : Z_BEST_COMPRESSION;
	return c;
}

void
tdat_codec_free(struct tdat_codec *c)
{
	if (c == NULL)
		return;
	ZSTD_freeDCtx(c->dctx);
	ZSTD_freeCCtx(c->cctx);
	if (c->zinit)
		inflateEnd(&c->zs);
	pthread_mutex_destroy(&c->dmu);
	free(c);
}

const char *
tdat_codec_name(const struct tdat_codec *c)
{
	return c->kind == 1 ? "zlib" : "zstd";
}

static void
why_set(char *why, size_t wn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
why_set(char *why, size_t wn, const char *fmt, ...)
{
	va_list ap;

	if (why == NULL || wn == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(why, wn, fmt, ap);
	va_end(ap);
}

static int
zstd_exact(struct tdat_codec *c, const void *src, size_t slen,
    void *dst, size_t dlen, size_t dcap, char *why, size_t wn)
{
	unsigned long long fcs;
	size_t r;

	if (c->dctx == NULL && (c->dctx = ZSTD_createDCtx()) == NULL) {
		why_set(why, wn, "out of memory");
		return TDAT_ENOMEM;
	}
	fcs = ZSTD_getFrameContentSize(src, slen);
	if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != ZSTD_CONTENTSIZE_ERROR &&
	    fcs != dlen) {
		why_set(why, wn, "zstd frame holds %llu bytes, not %zu", fcs,
		    dlen);
		return TDAT_ECORRUPT;
	}
	r = ZSTD_decompressDCtx(c->dctx, dst, dcap, src, slen);
	if (ZSTD_isError(r)) {
		why_set(why, wn, "zstd: %s", ZSTD_getErrorName(r));
		return TDAT_ECORRUPT;
	}
	if (r != dlen) {
		why_set(why, wn, "zstd data decompresses to %zu bytes, not %zu",
		    r, dlen);
		return TDAT_ECORRUPT;
	}
	return 0;
}

static int
zlib_exact(struct tdat_codec *c, const void *src, size_t slen,
    void *dst, size_t dlen, size_t dcap, char *why, size_t wn)
{
	z_stream *zs = &c->zs;
	int zr;

	if (!c->zinit) {
		memset(zs, 0, sizeof(*zs));
		if (inflateInit(zs) != Z_OK) {
			why_set(why, wn, "out of memory");
			return TDAT_ENOMEM;
		}
		c->zinit = 1;
	} else
		inflateReset(zs);
	zs->next_in = (unsigned char *)(uintptr_t)src;
	zs->avail_in = (uInt)slen;
	zs->next_out = dst;
	zs->avail_out = (uInt)dcap;
	zr = inflate(zs, Z_FINISH);
	if (zr == Z_STREAM_END && zs->total_out == dlen)
		return 0;
	if (zr == Z_STREAM_END)
		why_set(why, wn, "zlib data decompresses to %lu bytes, not %zu",
		    (unsigned long)zs->total_out, dlen);
	else if (zs->total_out > dlen)
		why_set(why, wn, "zlib data decompresses to more than %zu bytes",
		    dlen);
	else if (zr == Z_BUF_ERROR || (zr == Z_OK && zs->avail_in == 0))
		why_set(why, wn, "zlib: data ends early, after %lu of %zu bytes",
		    (unsigned long)zs->total_out, dlen);
	else
		why_set(why, wn, "zlib: %s", zs->msg ? zs->msg : zError(zr));
	return TDAT_ECORRUPT;
}

static int
decompress(struct tdat_codec *c, const void *src, size_t slen, void *dst,
    size_t dlen, size_t dcap, char *why, size_t wn)
{
	int rc;

	if (slen > UINT32_MAX || dcap > UINT32_MAX) {
		why_set(why, wn, "%s data of %zu bytes is too large",
		    tdat_codec_name(c), slen);
		return TDAT_ECORRUPT;
	}
	pthread_mutex_lock(&c->dmu);
	if (c->kind == 1)
		rc = zlib_exact(c, src, slen, dst, dlen, dcap, why, wn);
	else
		rc = zstd_exact(c, src, slen, dst, dlen, dcap, why, wn);
	pthread_mutex_unlock(&c->dmu);
	return rc;
}

/* zstd: the first n bytes of src's frame, through the codec's context
 * reset for a new frame (the mutex held). */
static int
zstd_head(struct tdat_codec *c, const void *src, size_t slen, void *dst,
    size_t n)
{
	ZSTD_inBuffer in = { src, slen, 0 };
	ZSTD_outBuffer o = { dst, n, 0 };
	size_t r = 1;

	if ((c->dctx == NULL && (c->dctx = ZSTD_createDCtx()) == NULL) ||
	    ZSTD_isError(ZSTD_DCtx_reset(c->dctx, ZSTD_reset_session_only)))
		return -1;
	while (o.pos < n && in.pos < slen && r != 0 &&
	    !ZSTD_isError(r = ZSTD_decompressStream(c->dctx, &o, &in)))
		;
	ZSTD_DCtx_reset(c->dctx, ZSTD_reset_session_only);
	return o.pos == n ? 0 : -1;
}

/* zlib: the same, through a stream of its own. */
static int
zlib_head(const void *src, size_t slen, void *dst, size_t n)
{
	z_stream zs;
	int zr;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return -1;
	zs.next_in = (unsigned char *)(uintptr_t)src;
	zs.avail_in = (uInt)slen;
	zs.next_out = dst;
	zs.avail_out = (uInt)n;
	do
		zr = inflate(&zs, Z_SYNC_FLUSH);
	while (zr == Z_OK && zs.avail_out > 0 && zs.avail_in > 0);
	inflateEnd(&zs);
	return zs.avail_out == 0 ? 0 : -1;
}

int
tdat_codec_head(struct tdat_codec *c, const void *src, size_t slen,
    void *dst, size_t n)
{
	int rc;

	if (slen > UINT32_MAX || n > UINT32_MAX)
		return -1;
	if (c->kind == 1)
		return zlib_head(src, slen, dst, n);
	pthread_mutex_lock(&c->dmu);
	rc = zstd_head(c, src, slen, dst, n);
	pthread_mutex_unlock(&c->dmu);
	return rc;
}

int
tdat_codec_decompress(struct tdat_codec *c, const void *src, size_t slen,
    void *dst, size_t dlen)
{
	return decompress(c, src, slen, dst, dlen, dlen, NULL, 0);
}

int
tdat_codec_decompress_why(struct tdat_codec *c, const void *src, size_t slen,
    void *dst, size_t dlen, char *why, size_t wn)
{
	return decompress(c, src, slen, dst, dlen, dlen + 1, why, wn);
}

/* zstd's level from now on (the default: 3, as trace-cmd's); zlib's
 * stays. */
void
tdat_codec_level(struct tdat_codec *c, int level)
{
	if (c->kind == 2)
		c->level = level;
}

size_t
tdat_codec_bound(struct tdat_codec *c, size_t slen)
{
	return c->kind == 1 ? compressBound(slen) : ZSTD_compressBound(slen);
}

size_t
tdat_codec_compress(struct tdat_codec *c, const void *src, size_t slen,
    void *dst, size_t dcap)
{
	size_t r;

	if (c->kind == 1) {
		uLongf out = dcap;

		if (compress2(dst, &out, src, slen, c->level) != Z_OK)
			return 0;
		return out;
	}
	if (c->cctx == NULL) {
		if ((c->cctx = ZSTD_createCCtx()) == NULL)
			return 0;
		/* Frames without the content size, as trace-cmd writes them:
		 * the chunk header stores it already. */
		if (ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx,
		    ZSTD_c_contentSizeFlag, 0)))
			return 0;
	}
	if (c->set != c->level) {
		/* Levels 1 and -1 with matches of 7 bytes or more (zstd's:
		 * 5 or 6 at chunk sizes): on function traces fewer bytes in
		 * less time (the v6 twin of ../shared/bench in chunks of 40
		 * pages: level -1 0.6% fewer, in less time), and a hash
		 * table of 2^16 entries (zstd's: 2^13 or 2^14 at chunk
		 * sizes): level -1 1.0% fewer bytes again, in 1.8% fewer
		 * instructions (813.6 M against 828.2 M over those pages);
		 * both back to zstd's own at level 3. */
		if (ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx,
		    ZSTD_c_compressionLevel, c->level)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx,
		    ZSTD_c_minMatch, c->level < 3 ? 7 : 0)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx,
		    ZSTD_c_hashLog, c->level < 3 ? 16 : 0)))
			return 0;
		c->set = c->level;
	}
	r = ZSTD_compress2(c->cctx, dst, dcap, src, slen);
	return ZSTD_isError(r) ? 0 : r;
}

/*
 * One large text compressed in one frame (the kallsyms compressed ahead,
 * formats/tracedat/tracedat-write.c): zstd's level 3 with a table of 2^18
 * entries for its long matches and one of 2^12 for its short ones (level
 * 3's: 2^17 and 2^16).  On the corpus' kallsyms of 0.8 to 7.1 MB the
 * frame came out 1.4 to 14 KB smaller than level 3's (4 MB: 903 -> 895
 * KB), in 1.2% fewer instructions and 18% fewer first-level data cache
 * misses (cachegrind): 4 MB of kallsyms compressed were most of a time
 * cut's start from a v6 input.  zlib's is tdat_codec_compress()'s.  A
 * context of its own, freed after.
 */
size_t
tdat_codec_compress_text(struct tdat_codec *c, const void *src, size_t slen,
    void *dst, size_t dcap)
{
	ZSTD_CCtx *z;
	size_t r;

	if (c->kind == 1)
		return tdat_codec_compress(c, src, slen, dst, dcap);
	if ((z = ZSTD_createCCtx()) == NULL)
		return 0;
	r = ZSTD_CCtx_setParameter(z, ZSTD_c_contentSizeFlag, 0);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, 3);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(z, ZSTD_c_hashLog, 18);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(z, ZSTD_c_chainLog, 12);
	if (!ZSTD_isError(r))
		r = ZSTD_compress2(z, dst, dcap, src, slen);
	ZSTD_freeCCtx(z);
	return ZSTD_isError(r) ? 0 : r;
}

/* Output of a streamed compression, in windows of this size. */
#define STREAM_WIN	(128 * 1024)

/* ZSTD_c_stableInBuffer (zstd.h has it with ZSTD_STATIC_LINKING_ONLY):
 * the input stays in place, so the compressor works on it as on a
 * single call's and makes the same bytes. */
#define ZSTD_C_STABLE_IN	ZSTD_c_experimentalParam9

static int
zstd_stream(struct tdat_codec *c, const void *src, size_t slen,
    unsigned char *win, struct tdat_stream_out *o)
{
	ZSTD_CCtx *cc;
	ZSTD_inBuffer ib = { src, slen, 0 };
	ZSTD_outBuffer ob;
	size_t r;
	int rc = -1;

	if ((cc = ZSTD_createCCtx()) == NULL)
		return -1;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel,
	    c->level)) || ZSTD_isError(ZSTD_CCtx_setParameter(cc,
	    ZSTD_c_contentSizeFlag, 0)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_C_STABLE_IN, 1)))
		goto out;
	do {
		ob.dst = win;
		ob.size = STREAM_WIN;
		ob.pos = 0;
		r = ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_end);
		if (ZSTD_isError(r) ||
		    (ob.pos && o->put(o->arg, win, ob.pos) < 0))
			goto out;
		o->len += ob.pos;
	} while (r != 0);
	rc = 0;
out:
	ZSTD_freeCCtx(cc);
	return rc;
}

static int
zlib_stream(struct tdat_codec *c, const void *src, size_t slen,
    unsigned char *win, struct tdat_stream_out *o)
{
	z_stream zs;
	size_t n;
	int zr;

	if (slen > UINT32_MAX)
		return -1;
	memset(&zs, 0, sizeof(zs));
	if (deflateInit(&zs, c->level) != Z_OK)
		return -1;
	zs.next_in = (unsigned char *)(uintptr_t)src;
	zs.avail_in = (uInt)slen;
	do {
		zs.next_out = win;
		zs.avail_out = STREAM_WIN;
		zr = deflate(&zs, Z_FINISH);
		n = STREAM_WIN - zs.avail_out;
		if (zr == Z_STREAM_ERROR || (n && o->put(o->arg, win, n) < 0))
			break;
		o->len += n;
	} while (zr != Z_STREAM_END);
	deflateEnd(&zs);
	return zr == Z_STREAM_END ? 0 : -1;
}

int
tdat_codec_compress_to(struct tdat_codec *c, const void *src, size_t slen,
    struct tdat_stream_out *o)
{
	unsigned char *win;
	int rc;

	o->len = 0;
	if ((win = malloc(STREAM_WIN)) == NULL)
		return -1;
	if (c->kind == 1)
		rc = zlib_stream(c, src, slen, win, o);
	else
		rc = zstd_stream(c, src, slen, win, o);
	free(win);
	return rc;
}

/* ------------------------------------------------------------------ */
/*
 * The compression pipeline.  Chunks go round a ring of ZP_SLOTS slots in
 * the order they are put; three counters walk it: out (the oldest chunk
 * not handed back yet), cq (the next chunk to compress) and in (the next
 * slot to fill), out <= cq <= in <= out + ZP_SLOTS.  Chunks [out, cq)
 * are being compressed or done, [cq, in) wait.  Workers take the chunk at
 * cq.  The caller takes one too when ZP_HELP of them wait, so that a
 * worker still finds one when it is done with its own: the caller reads
 * and checks the chunks besides, and a worker left without work while
 * the caller compresses is a core idle; a caller with other work for its
 * core turns that off (tdat_zpipe_help).  Every chunk is compressed alone,
 * and which thread compresses it changes no byte.
 *
 * zstd's level is chosen by measure: the fastest of levels -1, 1 and 3
 * whose output is no larger than trace-cmd's of the same bytes, level 3
 * over pieces of tdat_zpipe_piece() bytes (its chunks of 10 pages), each
 * piece's 8-byte head counted.  On function traces level -1 makes about
 * 2% fewer bytes than that (chunks of 40 pages), in nine tenths of level 1's time and two
 * thirds of level 3's (level 1 makes fewer still); on scheduler events
 * and repeated records only level 3 makes as few.  Every ZP_TRIAL-th
 * chunk is a trial: compressed at the level in use and weighed against
 * trace-cmd's bytes; if it makes no more, at the next faster level too
 * (and so on while each makes no more), else at the slower ones until one
 * does or level 3 (no weighing: trace-cmd's own level).  The fastest
 * level that made no more is the level of the chunks after it, and the
 * trial's bytes are the fewest it made.  Weighing costs a compression at
 * level 3 (a chunk of one piece: level 3's own bytes weigh, kept).  Once
 * two trials in a row keep the level, trials come every
 * ZP_TRIAL_SURE-th chunk until one changes it; one that changes it is
 * followed by another at once.  A trial counts from the chunk ZP_SLOTS
 * after it (its slot's next chunk, put when the trial is surely handed
 * back), so the choice depends on the bytes alone, never on which thread
 * was quicker.  Before the first trial counts (chunks 1 to ZP_SLOTS - 1;
 * chunk 0 is a trial: one chunk says little of a small file's others)
 * and where level 3 is kept, chunks are compressed at trace-cmd's level,
 * and so is a chunk no longer than a piece (a CPU's last, or a small
 * CPU's only) when it is no trial: it is trace-cmd's chunk, and a level
 * weighed on other chunks may make more of it.  zlib has no levels to
 * choose from: its chunks are never trials, and tdat_codec_level() leaves
 * its level alone.
 */
#define ZP_SLOTS	8
#define ZP_WORKERS	4
#define ZP_HELP		3
#define ZP_TRIAL	32	/* a trial every 32nd chunk (5 MiB of pages) */
#define ZP_TRIAL_SURE	128	/* when 2 trials in a row kept the level */
#define ZP_NLEVEL	3
#define ZP_HEAD		8	/* bytes before each chunk in a file */

/* zstd's levels, slowest first: trace-cmd's, then the faster ones. */
static const int zp_levels[ZP_NLEVEL] = { 3, 1, -1 };

struct zslot {
	unsigned char *in, *out;
	unsigned char *out2;		/* a trial's other output */
	const unsigned char *src;	/* the bytes: in, or the caller's */
	size_t incap, outcap, out2cap;
	size_t len;		/* bytes at src */
	size_t clen;		/* bytes in out; 0: compression failed */
	int done;
	int level;		/* zstd's: index in zp_levels (zlib: ignored) */
	int trial;		/* weighed against trace-cmd's bytes */
	size_t piece;		/* a trial's: trace-cmd's chunk, or 0 */
	int got;		/* a trial's: the level it found */
};

struct tdat_zpipe {
	char name[8];
	struct tdat_codec *codec;	/* the caller's */
	tdat_zpipe_out put;
	void *arg;
	struct tdat_err *e;
	struct zslot slot[ZP_SLOTS];
	uint64_t out, cq, in;
	int err;			/* sticky: the first failure */
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	int quit;
	int nw;
	int help;			/* the caller compresses too */
	int adapt;			/* zstd: levels by measure */
	int cur;			/* the level in use (index) */
	size_t piece;			/* tdat_zpipe_piece() */
	int agree;			/* trials in a row that kept it */
	uint64_t next_trial;		/* the next trial chunk */
	uint64_t own;			/* chunks it compressed */
	pthread_t t[ZP_WORKERS];
	struct tdat_codec *wc[ZP_WORKERS];
};

static size_t
zp_level(struct tdat_codec *c, const struct zslot *z, int k,
    unsigned char *out, size_t cap)
{
	tdat_codec_level(c, zp_levels[k]);
	return tdat_codec_compress(c, z->src, z->len, out, cap);
}

/* What trace-cmd's compression makes of the chunk: level 3 over pieces
 * of z->piece bytes, each with its head; 0 if it fails.  (out2 is
 * scratch.) */
static size_t
zp_theirs(struct tdat_codec *c, const struct zslot *z)
{
	size_t at, n, m, sum = 0;

	tdat_codec_level(c, zp_levels[0]);
	for (at = 0; at < z->len; at += n) {
		n = z->len - at < z->piece ? z->len - at : z->piece;
		if ((m = tdat_codec_compress(c, z->src + at, n, z->out2,
		    z->out2cap)) == 0)
			return 0;
		sum += at ? m + ZP_HEAD : m;
	}
	return sum;
}

/* Level k's bytes into out2; kept in out (swapped) if fewer than *best.
 * Their count, 0 on failure. */
static size_t
zp_try(struct tdat_codec *c, struct zslot *z, int k, size_t *best)
{
	unsigned char *b;
	size_t n, cap;

	n = zp_level(c, z, k, z->out2, z->out2cap);
	if (n == 0 || (*best && *best <= n))
		return n;
	b = z->out;
	z->out = z->out2;
	z->out2 = b;
	cap = z->outcap;
	z->outcap = z->out2cap;
	z->out2cap = cap;
	*best = n;
	return n;
}

/*
 * A trial: the chunk at its level, weighed against trace-cmd's bytes,
 * then at the faster levels while they make no more, or at the slower
 * ones until one does; the fewest bytes in z->out, the level found in
 * z->got.  A chunk of one piece is weighed against level 3's bytes
 * (trace-cmd's); level 3 is never weighed.
 */
static size_t
zp_trial(struct tdat_codec *c, struct zslot *z)
{
	size_t ref, best = 0, n, m;
	int k = z->level, low = 0;	/* low: level 3's bytes are in */

	if (z->piece == 0 || z->piece >= z->len) {
		ref = zp_try(c, z, 0, &best);
		low = 1;
	} else
		ref = zp_theirs(c, z);
	if (ref == 0)
		return 0;
	n = k == 0 ? ref : zp_try(c, z, k, &best);
	if (n != 0 && n <= ref) {
		while (k + 1 < ZP_NLEVEL && (m = zp_try(c, z, k + 1, &best)) &&
		    m <= ref)
			k++;
	} else {
		while (k > 1 && ((n = zp_try(c, z, --k, &best)) == 0 ||
		    n > ref))
			;
		if (n == 0 || n > ref)
			k = 0;
	}
	if (k == 0 && !low)
		zp_try(c, z, 0, &best);
	z->got = k;
	return best;
}

/* Compress chunk s (taken under the lock) with codec c, unlocked. */
static void
zp_compress(struct tdat_zpipe *p, struct tdat_codec *c, uint64_t s)
{
	struct zslot *z = &p->slot[s % ZP_SLOTS];
	size_t clen;

	if (c == p->codec)
		p->own++;
	pthread_mutex_unlock(&p->mu);
	clen = z->trial ? zp_trial(c, z) : zp_level(c, z, z->level, z->out,
	    z->outcap);
	pthread_mutex_lock(&p->mu);
	z->clen = clen;
	z->done = 1;
	pthread_cond_broadcast(&p->done);
}

struct zworker {
	struct tdat_zpipe *p;
	int i;
};

static void *
zp_worker(void *arg)
{
	struct tdat_zpipe *p = ((struct zworker *)arg)->p;
	struct tdat_codec *c = p->wc[((struct zworker *)arg)->i];

	free(arg);
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->quit && p->cq == p->in)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->quit)
			break;
		zp_compress(p, c, p->cq++);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Start worker i; -1 if it cannot (the pipeline goes on without it). */
static int
zp_start(struct tdat_zpipe *p, int i)
{
	struct zworker *zw;

	if ((p->wc[i] = tdat_codec_new(p->name)) == NULL ||
	    (zw = malloc(sizeof(*zw))) == NULL) {
		tdat_codec_free(p->wc[i]);
		p->wc[i] = NULL;
		return -1;
	}
	zw->p = p;
	zw->i = i;
	if (tdat_thread_start(&p->t[i], zp_worker, zw) != 0) {
		free(zw);
		tdat_codec_free(p->wc[i]);
		p->wc[i] = NULL;
		return -1;
	}
	return 0;
}

int
tdat_zpipe_new(const char *codec, int workers, tdat_zpipe_out put, void *arg,
    struct tdat_zpipe **out, struct tdat_err *e)
{
	struct tdat_zpipe *p;

	*out = NULL;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	if (strlen(codec) >= sizeof(p->name) ||
	    (p->codec = tdat_codec_new(codec)) == NULL) {
		free(p);
		return tdat_fail_nooff(e, TDAT_EUSAGE,
		    "unknown compression \"%s\"", codec);
	}
	strcpy(p->name, codec);
	p->help = 1;
	p->adapt = strcmp(codec, "zstd") == 0;
	p->put = put;
	p->arg = arg;
	p->e = e;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	if (workers > ZP_WORKERS)
		workers = ZP_WORKERS;
	while (p->nw < workers && zp_start(p, p->nw) == 0)
		p->nw++;
	*out = p;
	return 0;
}

void
tdat_zpipe_free(struct tdat_zpipe *p)
{
	int i;

	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < p->nw; i++) {
		pthread_join(p->t[i], NULL);
		tdat_codec_free(p->wc[i]);
	}
	for (i = 0; i < ZP_SLOTS; i++) {
		free(p->slot[i].in);
		free(p->slot[i].out);
		free(p->slot[i].out2);
	}
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	tdat_codec_free(p->codec);
	free(p);
}

/*
 * Hand back the done chunks at the head of the ring, in order (called
 * locked; put() runs unlocked: the head's slot is no thread's but ours).
 */
static int
zp_drain(struct tdat_zpipe *p)
{
	struct zslot *z;
	int rc;

	while (p->err == 0 && p->out < p->cq &&
	    (z = &p->slot[p->out % ZP_SLOTS])->done) {
		if (z->clen == 0) {
			p->err = tdat_fail_nooff(p->e, TDAT_EIO,
			    "%s compression failed", p->name);
			break;
		}
		pthread_mutex_unlock(&p->mu);
		rc = p->put(p->arg, z->out, z->clen, z->len);
		pthread_mutex_lock(&p->mu);
		if (rc < 0)
			p->err = rc;
		else
			p->out++;
	}
	return p->err;
}

/*
 * Make room for one more chunk (room 1) or hand every chunk back (0).
 * A full ring waits for a worker rather than take its last waiting chunk
 * from it; a flush compresses what waits.
 */
static int
zp_wait(struct tdat_zpipe *p, int room)
{
	int rc;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		if ((rc = zp_drain(p)) < 0)
			break;
		if (room ? p->in < p->out + ZP_SLOTS : p->out == p->in)
			break;
		if (p->cq < p->in && (!room || p->nw == 0 ||
		    (p->help && p->in - p->cq > 1)))
			zp_compress(p, p->codec, p->cq++);
		else
			pthread_cond_wait(&p->done, &p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return rc;
}

/* A buffer of at least n bytes, kept; 0 or TDAT_ENOMEM. */
static int
zp_grow(unsigned char **p, size_t *cap, size_t n)
{
	unsigned char *q;

	if (n <= *cap)
		return 0;
	if ((q = realloc(*p, n)) == NULL)
		return TDAT_ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* The slot of the next chunk, with room for a compressed chunk of cap
 * bytes (and for cap bytes in its buffer: in set), or NULL and *rc. */
static struct zslot *
zp_slot(struct tdat_zpipe *p, size_t cap, int in, int *rc)
{
	struct zslot *z;

	if ((*rc = zp_wait(p, 1)) < 0)
		return NULL;
	z = &p->slot[p->in % ZP_SLOTS];
	if ((in && zp_grow(&z->in, &z->incap, cap) < 0) ||
	    zp_grow(&z->out, &z->outcap, tdat_codec_bound(p->codec, cap)) < 0 ||
	    (p->adapt && zp_grow(&z->out2, &z->out2cap,
	    tdat_codec_bound(p->codec, cap)) < 0)) {
		*rc = p->err = tdat_fail_nooff(p->e, TDAT_ENOMEM,
		    "out of memory");
		return NULL;
	}
	return z;
}

unsigned char *
tdat_zpipe_buf(struct tdat_zpipe *p, size_t cap, int *rc)
{
	struct zslot *z;

	if ((z = zp_slot(p, cap, 1, rc)) == NULL)
		return NULL;
	return z->in;
}

/* A trial's level from now on.  One that changes it is tried again at
 * once (its chunk may be one of a few unlike the rest); one that keeps it
 * counts towards rarer trials. */
static void
zp_learn(struct tdat_zpipe *p, int got)
{
	if (got == p->cur) {
		p->agree++;
		return;
	}
	p->agree = 0;
	p->cur = got;
	p->next_trial = p->in;
}

/* Queue the next chunk, of len bytes at src (NULL: in its slot's
 * buffer); compress one here when enough wait (every one, with no
 * worker). */
static int
zp_queue(struct tdat_zpipe *p, const unsigned char *src, size_t len)
{
	struct zslot *z;
	int rc;

	pthread_mutex_lock(&p->mu);
	if ((rc = p->err) == 0) {
		z = &p->slot[p->in % ZP_SLOTS];
		/* the slot's last chunk, ZP_SLOTS ago, is handed back */
		if (z->trial)
			zp_learn(p, z->got);
		z->trial = p->adapt && p->in == p->next_trial;
		if (z->trial)
			p->next_trial += p->agree >= 2 ? ZP_TRIAL_SURE :
			    ZP_TRIAL;
		/* a chunk no longer than trace-cmd's: its bytes */
		z->level = p->piece && len <= p->piece ? 0 : p->cur;
		z->piece = p->piece;
		z->src = src ? src : z->in;
		z->len = len;
		z->done = 0;
		p->in++;
		if (p->nw > 0)
			pthread_cond_signal(&p->work);
		if (p->nw == 0 || (p->help && p->in - p->cq >= ZP_HELP))
			zp_compress(p, p->codec, p->cq++);
		rc = zp_drain(p);
	}
	pthread_mutex_unlock(&p->mu);
	return rc;
}

int
tdat_zpipe_put(struct tdat_zpipe *p, size_t len)
{
	return zp_queue(p, NULL, len);
}

int
tdat_zpipe_put_at(struct tdat_zpipe *p, const void *src, size_t len)
{
	int rc;

	if (zp_slot(p, len, 0, &rc) == NULL)
		return rc;
	return zp_queue(p, src, len);
}

int
tdat_zpipe_flush(struct tdat_zpipe *p)
{
	return zp_wait(p, 0);
}

int
tdat_zpipe_workers(const struct tdat_zpipe *p)
{
	return p->nw;
}

void
tdat_zpipe_piece(struct tdat_zpipe *p, size_t n)
{
	pthread_mutex_lock(&p->mu);
	p->piece = n;
	pthread_mutex_unlock(&p->mu);
}

void
tdat_zpipe_help(struct tdat_zpipe *p, int on)
{
	pthread_mutex_lock(&p->mu);
	p->help = on;
	pthread_mutex_unlock(&p->mu);
}

uint64_t
tdat_zpipe_own(struct tdat_zpipe *p)
{
	uint64_t n;

	pthread_mutex_lock(&p->mu);
	n = p->own;
	pthread_mutex_unlock(&p->mu);
	return n;
}

void
tdat_zpipe_err(struct tdat_zpipe *p, struct tdat_err *e)
{
	p->e = e;
}
