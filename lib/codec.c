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

struct tdat_codec {
	int kind;		/* 1 zlib, 2 zstd */
	ZSTD_DCtx *dctx;
	ZSTD_CCtx *cctx;
	int level;
	z_stream zs;		/* zlib decompression, kept between calls */
	int zinit;
	/* the decompression state: a page worker (lib/pages.c) may use it
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
		    ZSTD_c_compressionLevel, c->level)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx,
		    ZSTD_c_contentSizeFlag, 0)))
			return 0;
	}
	r = ZSTD_compress2(c->cctx, dst, dcap, src, slen);
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
