/*
 * codec.c: the compression algorithms trace.dat v7 names in its header
 * ("zlib", "zstd"), through zlib and libzstd.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "tdat.h"

struct tdat_codec {
	int kind;		/* 1 zlib, 2 zstd */
	ZSTD_DCtx *dctx;
	ZSTD_CCtx *cctx;
	int level;
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
	free(c);
}

const char *
tdat_codec_name(const struct tdat_codec *c)
{
	return c->kind == 1 ? "zlib" : "zstd";
}

int
tdat_codec_decompress(struct tdat_codec *c, const void *src, size_t slen,
    void *dst, size_t dlen)
{
	size_t r;

	if (c->kind == 1) {
		uLongf out = dlen;

		if (uncompress(dst, &out, src, slen) != Z_OK || out != dlen)
			return TDAT_ECORRUPT;
		return 0;
	}
	if (c->dctx == NULL && (c->dctx = ZSTD_createDCtx()) == NULL)
		return TDAT_ENOMEM;
	r = ZSTD_decompressDCtx(c->dctx, dst, dlen, src, slen);
	if (ZSTD_isError(r) || r != dlen)
		return TDAT_ECORRUPT;
	return 0;
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
