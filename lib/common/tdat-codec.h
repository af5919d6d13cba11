/*
 * tdat-codec.h: compression codecs (zlib, zstd) and the compression
 * pipeline that compresses chunks on threads (lib/common/codec.c).
 */
#ifndef TDAT_CODEC_H
#define TDAT_CODEC_H

#include <stddef.h>
#include <stdint.h>

struct tdat_err;

/* Compression codecs (zlib, zstd). */
struct tdat_codec;
struct tdat_codec *tdat_codec_new(const char *name);	/* NULL if unknown */
void tdat_codec_free(struct tdat_codec *);
const char *tdat_codec_name(const struct tdat_codec *);
/* Decompress exactly dlen bytes; 0 or negative code. */
int tdat_codec_decompress(struct tdat_codec *, const void *src, size_t slen,
    void *dst, size_t dlen);
/* The same into dst with room for dlen + 1 bytes; on failure why (wn
 * bytes) says what went wrong in the codec's words. */
int tdat_codec_decompress_why(struct tdat_codec *, const void *src,
    size_t slen, void *dst, size_t dlen, char *why, size_t wn);
/* The first n bytes src decompresses to (the rest is not decompressed),
 * into dst: 0, or -1 if src does not begin with that many. */
int tdat_codec_head(struct tdat_codec *, const void *src, size_t slen,
    void *dst, size_t n);
/* Compress; returns bytes written, or 0 on error. */
size_t tdat_codec_compress(struct tdat_codec *, const void *src, size_t slen,
    void *dst, size_t dcap);
size_t tdat_codec_bound(struct tdat_codec *, size_t slen);
/* One large text (kallsyms) compressed in one frame, zstd's with tables
 * of its own sizes (codec.c); returns bytes written, or 0 on error. */
size_t tdat_codec_compress_text(struct tdat_codec *, const void *src,
    size_t slen, void *dst, size_t dcap);
void tdat_codec_level(struct tdat_codec *, int level);	/* zstd only */
/*
 * The bytes tdat_codec_compress() makes of src, handed to o->put in
 * windows as they come, so that no buffer of the output's size is held;
 * o->len counts them.  0, or -1 when compression or o->put fails.
 */
struct tdat_stream_out {
	int (*put)(void *arg, const void *p, size_t n);
	void *arg;
	size_t len;
};
int tdat_codec_compress_to(struct tdat_codec *, const void *src,
    size_t slen, struct tdat_stream_out *o);

/*
 * A compression pipeline: chunks compressed on up to `workers` threads
 * of its own (and on the caller's when several wait), handed back to
 * put() on the caller's thread in the order they went in, each as the
 * codec compresses it alone: the bytes are those of one thread.  At most
 * eight chunks are held.  Fill the buffer tdat_zpipe_buf() gives (room
 * for cap bytes), then tdat_zpipe_put() its first len bytes; or give
 * tdat_zpipe_put_at() len bytes of the caller's, which must stay as they
 * are until the chunk is handed back.  put() may run in any of these
 * calls and in tdat_zpipe_flush(), which hands back every chunk.  Errors
 * fill e (given to tdat_zpipe_new(); put() fills it itself) and stick:
 * every later call returns the first.  tdat_zpipe_free() drops chunks
 * not handed back.
 */
struct tdat_zpipe;
typedef int (*tdat_zpipe_out)(void *arg, const unsigned char *c, size_t clen,
    size_t len);
int tdat_zpipe_new(const char *codec, int workers, tdat_zpipe_out put,
    void *arg, struct tdat_zpipe **out, struct tdat_err *e);
unsigned char *tdat_zpipe_buf(struct tdat_zpipe *, size_t cap, int *rc);
int tdat_zpipe_put(struct tdat_zpipe *, size_t len);
int tdat_zpipe_put_at(struct tdat_zpipe *, const void *src, size_t len);
int tdat_zpipe_flush(struct tdat_zpipe *);
int tdat_zpipe_workers(const struct tdat_zpipe *);	/* threads started */
/* zstd: the bytes of trace-cmd's chunks (10 pages), which a chunk's
 * level is weighed against (0, the default: a chunk is one). */
void tdat_zpipe_piece(struct tdat_zpipe *, size_t n);
/* Whether the caller's thread compresses chunks too when enough wait (on,
 * the default) or leaves them to the workers while it has one (0: it has
 * other work for its core, or another thread has). */
void tdat_zpipe_help(struct tdat_zpipe *, int on);
/* Chunks the callers' threads compressed so far (the workers did the
 * rest). */
uint64_t tdat_zpipe_own(struct tdat_zpipe *);
/* Where later errors go (the thread putting chunks changes hands). */
void tdat_zpipe_err(struct tdat_zpipe *, struct tdat_err *e);
void tdat_zpipe_free(struct tdat_zpipe *);

#endif
