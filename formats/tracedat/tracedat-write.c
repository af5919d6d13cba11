/*
 * tracedat-write.c: the trace.dat writer, versions 6 and 7, laid out as trace-cmd
 * 3.x writes them (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)).
 *
 * v6: initial format, headers, ftrace and event formats, kallsyms, printk
 * formats, cmdlines, CPU count, "options  " (DONE is a bare id), then
 * "latency  " and text or "flyrecord" with (offset, size) per CPU, the
 * "[clock]" and the page-aligned CPU data; each instance adds a BUFFER
 * option naming its own "flyrecord" block, written after the top one.
 *
 * v7: initial format, compression name and version, the offset of the
 * first options section, then sections: the six metadata sections (each
 * named by an option, compressed as one block when the file is), an
 * options section, and per buffer a flyrecord section (CPU data
 * page-aligned; compressed in chunks of PAGES_IN_CHUNK pages) followed by
 * an options section holding its BUFFER option.  Every options section
 * ends with a DONE option carrying the offset of the next one; the
 * strings section naming the sections comes last.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "tdat-int.h"
#include "tdat-opts.h"
#include "tdat-tracedat.h"
#include "tdat-thread.h"

/* trace-cmd's chunks are of 10 pages; its readers (3.1 to 3.4) take any
 * whole number of pages (each chunk names its size; read_zpage() and the
 * copy to a temporary file allocate each chunk's own), and zstd's faster
 * levels make fewer bytes of chunks of 40 than of 20 (a function trace:
 * level -1 3% fewer, 2% fewer than trace-cmd's level 3).  But a reader
 * holds about a chunk of each CPU, with one read ahead: tdat-dump
 * --records of 32 busy CPUs took 21.1 MiB in chunks of 20 pages, 29.2 in
 * chunks of 40, 46.8 in chunks of 80.  So the chunks of all the CPUs
 * with data come to READ_PAGES pages at most (32 CPUs of 20 pages, where
 * chunks of 20 for any number of CPUs took up to 26 MiB at 64 CPUs), and
 * each to PAGES_IN_CHUNK at most and trace-cmd's TC_PAGES at least
 * (chunk_pages()).  A mapped window stays about 1 MiB. */
#define PAGES_IN_CHUNK	40
#define READ_PAGES	640
#define TC_PAGES	10	/* in trace-cmd's chunks */
/* A CPU's stream of pages of n bytes: its chunks, and trace-cmd's. */
#define PAGE_CHUNK(w, n)	((size_t)(w)->chunk_pages * (n))
#define TC_CHUNK(n)	((size_t)TC_PAGES * (n))
/* Latency text is compressed in chunks of BUFSIZ: trace-cmd report prints
 * each chunk, as each BUFSIZ piece of uncompressed text, up to a NUL. */
#define LATENCY_CHUNK	8192
#define WINDOW		(1u << 20)	/* bytes of page data read at once */
/* Mapped input windows compressed in place: chunks of a window each, and
 * mappings held (their chunks in the pipeline) at most. */
#define MAP_CHUNKS	6
#define HELD		8

struct bytes {
	unsigned char *p;
	size_t len, cap;
	int oom;
};

/* One CPU's data as written: its place in the output. */
struct wcpu {
	uint32_t id;
	uint64_t off, size;
};

struct w {
	struct tdat_file *f;
	const struct tdat_write_opts *o;
	struct tdat_err *e;
	int fd;
	int big;
	struct tdat_codec *codec;	/* output compression, or NULL */
	uint64_t pos;			/* end of what is written */
	struct bytes strings;		/* v7 section names */
	uint64_t next_opt;		/* where the next options offset goes */
	uint64_t meta[6];		/* v7 HEADER_INFO..CMDLINES sections */
	uint64_t btf, modules;		/* v7 BTF and modules sections, or 0 */
	unsigned char *win;		/* input window */
	size_t wincap;
	/*
	 * Chunks are compressed by a pipeline (lib/common/codec.c) on threads of
	 * its own while this one reads, checks and writes: trace-cmd
	 * compresses one at a time, and compression is most of a
	 * conversion's time.  The compressed chunks gather in stage (bytes
	 * from pos on) and go out in large writes.
	 */
	struct tdat_zpipe *zp;		/* made by the first chunked stream */
	uint64_t nput, nback;		/* chunks into it, handed back */
	/* Mapped input windows whose chunks the pipeline compresses in
	 * place, oldest first: unmapped once chunk `until` is back. */
	struct held {
		void *p;
		size_t len;
		uint64_t until;
	} held[HELD];
	int nheld;
	unsigned char *cur;		/* the chunk being filled, or NULL */
	struct sink *k;			/* the stream being compressed */
	struct bytes stage;
	int holding;			/* stage is held, not written */
	struct pre *pre;		/* the first CPU's copy, begun early */
	struct tdat_err *se;		/* the copy's errors: e, or pre's */
	struct tdat_pages_worker *pwk;	/* decompresses input ahead */
	uint64_t done, total;		/* progress */
	struct tdat_ring_gate *check;	/* a copy's page checker, or NULL */
	struct tdat_cpu_ix **cix;	/* each buffer's CPUs by id */
	struct kahead *ka;		/* kallsyms compressed ahead, or NULL */
	/* the input's kallsyms still loading (tdat_kallsyms_wait()): 1, 2
	 * once past the refusal of damaged texts; 0 when read */
	int klater;
	uint32_t kcopied;	/* their compressed bytes written meanwhile */
	uint32_t chunk_pages;		/* pages in a chunk (chunk_pages()) */
};

/* The CPU ids a file may be written with: below the readers' count
 * bound (formats/tracedat/tracedat.c MAX_COUNT).  A v6 file holds CPUs by place,
 * every one below the largest id, and both versions' writers walk ids up
 * to the largest: an id of 4e9 was hours of work, or a 64 GB v6 table. */
#define CPU_IDS		(1u << 20)

/* The output side of a stream: raw bytes or chunks. */
struct sink {
	uint64_t bytes;		/* uncompressed bytes put */
	int compress;
	size_t chunk_size, fill;
	uint64_t start;
	uint32_t nchunks;
};

/* ------------------------------------------------------------------ */
/* Byte buffers and numbers in the file's order. */

static void
b_add(struct bytes *b, const void *p, size_t n)
{
	unsigned char *q;
	size_t cap;

	if (b->oom || n == 0)
		return;
	if (b->len + n > b->cap) {
		cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		if ((q = realloc(b->p, cap)) == NULL) {
			b->oom = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void
b_num(struct bytes *b, uint64_t v, int n, int big)
{
	unsigned char d[8];

	tdat_put(d, v, n, big);
	b_add(b, d, (size_t)n);
}

static void
b_str(struct bytes *b, const char *s)
{
	b_add(b, s, strlen(s) + 1);
}

static void
b_free(struct bytes *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ------------------------------------------------------------------ */
/* Output. */

static int
w_oom(struct w *w)
{
	return tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory");
}

static int
w_pwrite(struct w *w, const void *p, size_t n, uint64_t off)
{
	const unsigned char *c = p;
	ssize_t r;

	while (n > 0) {
		r = pwrite(w->fd, c, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return tdat_fail_nooff(w->e, TDAT_EIO, "write: %s",
			    r < 0 ? strerror(errno) : "no progress");
		c += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

static int
w_append(struct w *w, const void *p, size_t n)
{
	int rc;

	if ((rc = w_pwrite(w, p, n, w->pos)) < 0)
		return rc;
	w->pos += n;
	return 0;
}

static int
w_bytes(struct w *w, struct bytes *b)
{
	if (b->oom)
		return w_oom(w);
	return w_append(w, b->p, b->len);
}

static int
w_patch(struct w *w, uint64_t off, uint64_t v, int n)
{
	unsigned char d[8];

	tdat_put(d, v, n, w->big);
	return w_pwrite(w, d, (size_t)n, off);
}

static void
w_align(struct w *w, uint32_t page)
{
	if (page && w->pos % page)
		w->pos += page - w->pos % page;
}

static void
progress(struct w *w, uint64_t n)
{
	w->done += n;
	if (w->o->progress)
		w->o->progress(w->o->progress_arg, w->done, w->total);
}

/* ------------------------------------------------------------------ */
/* Input windows. */

static int
need_win(struct w *w, size_t n)
{
	unsigned char *p;

	if (n <= w->wincap)
		return 0;
	if ((p = realloc(w->win, n)) == NULL)
		return w_oom(w);
	w->win = p;
	w->wincap = n;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Output streams: raw, or chunks of (csize, usize, data) after a count. */

#define STAGE	(256u << 10)	/* compressed bytes written at once */

static int
stage_flush(struct w *w)
{
	int rc;

	if (w->stage.oom)
		return w_oom(w);
	rc = w_append(w, w->stage.p, w->stage.len);
	w->stage.len = 0;
	return rc;
}

/* Unmap the held windows whose chunks are all back (all: every one, the
 * pipeline stopped). */
static void
release(struct w *w, int all)
{
	int i, n = 0;

	while (n < w->nheld && (all || w->held[n].until <= w->nback)) {
		munmap(w->held[n].p, w->held[n].len);
		n++;
	}
	for (i = n; i < w->nheld; i++)
		w->held[i - n] = w->held[i];
	w->nheld -= n;
}

/* A chunk back from the pipeline, in order: (csize, usize, data). */
static int
chunk_out(void *arg, const unsigned char *c, size_t clen, size_t len)
{
	struct w *w = arg;
	int rc;

	if (!w->holding && w->stage.len + 8 + clen > STAGE &&
	    w->stage.len > 0 && (rc = stage_flush(w)) < 0)
		return rc;
	b_num(&w->stage, clen, 4, w->big);
	b_num(&w->stage, len, 4, w->big);
	b_add(&w->stage, c, clen);
	w->k->nchunks++;
	w->nback++;
	release(w, 0);
	return w->stage.oom ? tdat_fail_nooff(w->se, TDAT_ENOMEM,
	    "out of memory") : 0;
}

/* Threads compressing besides this one: one less than the CPUs the
 * process may run on (tdat_cpus()), 3 at most. */
static int
zpipe_workers(void)
{
	int n = tdat_cpus();

	return n < 2 ? 0 : n > 4 ? 3 : (int)n - 1;
}

/* A stream, not placed in the file yet: sink_place() does; its chunks
 * weighed against trace-cmd's of piece bytes (0: of a chunk). */
static int
sink_open(struct w *w, struct sink *k, int compress, size_t chunk_size,
    size_t piece)
{
	int rc;

	memset(k, 0, sizeof(*k));
	k->compress = compress && w->codec != NULL;
	k->chunk_size = chunk_size;
	if (!k->compress)
		return 0;
	if (w->zp == NULL && (rc = tdat_zpipe_new(tdat_codec_name(w->codec),
	    zpipe_workers(), chunk_out, w, &w->zp, w->se)) < 0)
		return rc;
	tdat_zpipe_piece(w->zp, piece);
	w->k = k;
	w->cur = NULL;
	return 0;
}

/* The stream starts here: chunked ones with their count (patched by
 * sink_end()). */
static int
sink_place(struct w *w, struct sink *k)
{
	k->start = w->pos;
	if (!k->compress)
		return 0;
	if (w_patch(w, w->pos, 0, 4) < 0)
		return w->e->code;
	w->pos += 4;
	return 0;
}

static int
sink_begin(struct w *w, struct sink *k, int compress, size_t chunk_size,
    size_t piece)
{
	int rc;

	if ((rc = sink_open(w, k, compress, chunk_size, piece)) < 0)
		return rc;
	return sink_place(w, k);
}

/* The chunk being filled is complete: into the pipeline. */
static int
sink_flush(struct w *w, struct sink *k)
{
	int rc;

	if (k->fill == 0)
		return 0;
	rc = tdat_zpipe_put(w->zp, k->fill);
	w->nput++;
	k->fill = 0;
	w->cur = NULL;
	return rc;
}

static int
sink_put(struct w *w, struct sink *k, const unsigned char *p, size_t n)
{
	size_t m;
	int rc;

	k->bytes += n;
	if (!k->compress)
		return w_append(w, p, n);
	while (n > 0) {
		if (w->cur == NULL && (w->cur = tdat_zpipe_buf(w->zp,
		    k->chunk_size, &rc)) == NULL)
			return rc;
		m = k->chunk_size - k->fill;
		if (m > n)
			m = n;
		memcpy(w->cur + k->fill, p, m);
		k->fill += m;
		p += m;
		n -= m;
		if (k->fill == k->chunk_size && (rc = sink_flush(w, k)) < 0)
			return rc;
	}
	return 0;
}

/* Finish the stream; *size is what it occupies in the file. */
static int
sink_end(struct w *w, struct sink *k, uint64_t *size)
{
	int rc;

	if (k->compress) {
		if ((rc = sink_flush(w, k)) < 0 ||
		    (rc = tdat_zpipe_flush(w->zp)) < 0 ||
		    (rc = stage_flush(w)) < 0 ||
		    (rc = w_patch(w, k->start, k->nchunks, 4)) < 0)
			return rc;
	}
	*size = w->pos - k->start;
	return 0;
}

/*
 * Check the pages of a window that begin in [from, to) as tdat-verify
 * does, so that a copy never writes a damaged page (tdat-cat --salvage
 * drops them instead).
 */
static int
check_window(struct w *w, const struct tdat_window *win, uint32_t page_size,
    size_t from, size_t to, int *first)
{
	struct tdat_page pg;
	size_t at;
	int rc;

	for (at = from; page_size && at < to && win->len - at >= page_size;
	    at += page_size) {
		memset(&pg, 0, sizeof(pg));
		pg.p = win->p + at;
		pg.page_size = page_size;
		pg.off = win->chunk ? win->off : win->off + at;
		pg.chunk_pos = win->chunk ? (int64_t)at : -1;
		if (*first)
			tdat_ring_gate_cpu(w->check);
		if ((rc = tdat_ring_gate_page(w->check, &pg, NULL,
		    w->se)) < 0)
			return rc;
		*first = 0;
	}
	return 0;
}

/*
 * The pages (or latency text) of one CPU being copied into an output
 * stream, window by window, checking pages of page_size bytes (0: the
 * latency text, not checked; *last its last byte, '\n' if none).
 * Progress counts the bytes as stored: size, spread over the windows.
 */
struct copy {
	struct tdat_pages *pg;
	struct sink *k;
	uint64_t size;			/* as stored, for progress */
	uint64_t total, got, told;	/* bytes of pages; progress told */
	uint32_t page_size;
	int first;			/* the next page is the CPU's first */
	int end;			/* every window is copied */
	int *last;			/* the last byte copied, or NULL */
};

/* Check the pages of window bytes [from, to) for cp. */
static int
check_part(struct w *w, struct copy *cp, const struct tdat_window *win,
    size_t from, size_t to)
{
	return check_window(w, win, cp->page_size, from, to, &cp->first);
}

/*
 * The chunks of a mapped window go into the pipeline where they lie, not
 * copied (the stream's last, short one excepted); the mapping is held
 * until they are back.  Windows are whole chunks, so each starts one.
 * Each chunk is checked just before it goes in, so that the pipeline's
 * threads compress the first while this one checks the next: a damaged
 * page still stops the copy before its chunk goes in.
 */
static int
put_mapped(struct w *w, struct copy *cp, const struct tdat_window *win,
    void *base, size_t mlen)
{
	struct sink *k = cp->k;
	size_t at = 0, cs = k->chunk_size;
	uint64_t until = w->nput;
	int rc = 0;

	if (w->nheld == HELD && (rc = tdat_zpipe_flush(w->zp)) < 0) {
		munmap(base, mlen);
		return rc;
	}
	while (k->fill == 0 && win->len - at >= cs) {
		if ((rc = check_part(w, cp, win, at, at + cs)) < 0)
			break;
		k->bytes += cs;
		rc = tdat_zpipe_put_at(w->zp, win->p + at, cs);
		until = ++w->nput;
		at += cs;
		if (rc < 0)
			break;
	}
	if (rc == 0 && at < win->len &&
	    (rc = check_part(w, cp, win, at, win->len)) == 0)	/* copied */
		rc = sink_put(w, k, win->p + at, win->len - at);
	if (at == 0)
		munmap(base, mlen);
	else {
		w->held[w->nheld].p = base;
		w->held[w->nheld].len = mlen;
		w->held[w->nheld].until = until;
		w->nheld++;
	}
	return rc;
}

/*
 * A window read into memory: checked and copied a chunk's worth at a
 * time when the stream is compressed (so that chunks go into the
 * pipeline as early as they can), else at once.
 */
static int
put_window(struct w *w, struct copy *cp, const struct tdat_window *win)
{
	size_t at, n, step;
	int rc;

	step = cp->k->compress ? cp->k->chunk_size : win->len;
	for (at = 0; at < win->len; at += n) {
		n = win->len - at < step ? win->len - at : step;
		if ((rc = check_part(w, cp, win, at, at + n)) < 0 ||
		    (rc = sink_put(w, cp->k, win->p + at, n)) < 0)
			return rc;
	}
	return 0;
}

/* Copy the next window: 1, 0 at the end, < 0 on error (in w->se). */
static int
copy_window(struct w *w, struct copy *cp)
{
	struct tdat_window win;
	void *base;
	size_t mlen;
	int rc;

	if ((rc = tdat_pages_window(cp->pg, &win, w->se)) <= 0) {
		cp->end = rc == 0;
		return rc;
	}
	if (cp->k->compress && tdat_pages_take_map(cp->pg, &base, &mlen))
		rc = put_mapped(w, cp, &win, base, mlen);
	else
		rc = put_window(w, cp, &win);
	if (rc < 0)
		return rc;
	if (cp->last != NULL && win.len)
		*cp->last = win.p[win.len - 1];
	cp->got += win.len;
	return 1;
}

static void
copy_progress(struct w *w, struct copy *cp)
{
	uint64_t now;

	now = cp->total && cp->got < cp->total ? (uint64_t)((unsigned
	    __int128)cp->size * cp->got / cp->total) : cp->size;
	progress(w, now - cp->told);
	cp->told = now;
}

/* Copy the windows not copied yet. */
static int
copy_rest(struct w *w, struct copy *cp)
{
	int rc = 0;

	if (cp->got > 0)
		copy_progress(w, cp);
	while (!cp->end && (rc = copy_window(w, cp)) > 0)
		copy_progress(w, cp);
	if (rc < 0)
		return rc;
	if (cp->told < cp->size)
		progress(w, cp->size - cp->told);
	return 0;
}

static int
copy_pages(struct w *w, struct tdat_pages *ps, struct sink *k, uint64_t size,
    uint32_t page_size, int *last)
{
	struct copy cp;

	memset(&cp, 0, sizeof(cp));
	cp.pg = ps;
	cp.k = k;
	cp.size = size;
	cp.total = tdat_pages_total(ps);
	cp.page_size = page_size;
	cp.first = 1;
	cp.last = last;
	if (last != NULL)
		*last = '\n';
	return copy_rest(w, &cp);
}

/*
 * Map the raw pages of pg rather than read them, when the caller handles
 * SIGBUS: into the pipeline in windows of whole chunks, kept until the
 * chunks are back (compress), or written out window by window.
 */
static void
map_pages(struct w *w, struct tdat_pages *pg, int compress,
    uint32_t page_size)
{
	if (!w->o->map)
		return;
	if (compress && w->codec != NULL)
		tdat_pages_map_keep(pg, MAP_CHUNKS * PAGE_CHUNK(w, page_size));
	else
		tdat_pages_map(pg);
}

/* ------------------------------------------------------------------ */
/* Where page data comes from: the input file, or a caller's source. */

/*
 * Index every buffer's CPUs by id (w->cix), once, before any CPU is
 * written; a CPU id of CPU_IDS or more is refused, at its table entry.
 */
static int
index_cpus(struct w *w)
{
	const struct tdat_file *f = w->f;
	const struct tdat_buffer *b;
	size_t bi;
	uint32_t i;

	if ((w->cix = calloc(f->nbuf + 1, sizeof(*w->cix))) == NULL)
		return tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory");
	for (bi = 0; bi < f->nbuf; bi++) {
		b = &f->buf[bi];
		for (i = 0; i < b->ncpu; i++)
			if (b->cpu[i].id >= CPU_IDS)
				return tdat_fail(w->e, TDAT_ECORRUPT,
				    b->cpu[i].off, "buffer \"%s\": CPU %u: "
				    "a CPU id past %u cannot be written",
				    b->name, b->cpu[i].id, CPU_IDS - 1);
		if ((w->cix[bi] = tdat_cpu_index(b)) == NULL)
			return tdat_fail_nooff(w->e, TDAT_ENOMEM,
			    "out of memory");
	}
	return 0;
}

/* CPU id of buffer bi (the first, should the table name it twice). */
static const struct tdat_cpu *
find_cpu(const struct w *w, int bi, uint32_t id)
{
	const struct tdat_buffer *b = &w->f->buf[bi];
	const struct tdat_cpu_ix *x = w->cix[bi];
	uint32_t lo = 0, hi = b->ncpu, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (x[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->ncpu && x[lo].id == id ? &b->cpu[x[lo].i] : NULL;
}

/* ------------------------------------------------------------------ */
/*
 * The first CPU's copy, begun early.  While this thread writes the
 * metadata (compressing the kallsyms takes long), another reads, checks
 * and compresses the pages of the first CPU the file holds, keeping the
 * compressed chunks (HOLD bytes or so) until the stream's place in the
 * file is known; write_cpu() then takes the copy over.  Chunks are the
 * same whichever thread compresses them, and the checks run in the same
 * order, so the file and any error are the same.
 */
#define HOLD	(2u << 20)

static uint32_t cpu_span(const struct tdat_file *, const struct tdat_buffer *);
static void buffer_order(const struct tdat_file *, int *, size_t *);

struct pre {
	pthread_t t;
	int bi;
	uint32_t id, ci;
	struct sink k;
	struct copy cp;
	atomic_int stop;	/* write_cpu() takes over */
	int joined;
	int rc;
	struct tdat_err e;
};

static void *
pre_main(void *arg)
{
	struct w *w = arg;
	struct pre *p = w->pre;
	int rc;

	if ((w->check == NULL && (rc = tdat_ring_gate_open(w->f, &w->check,
	    &p->e)) < 0) || (rc = tdat_pages_open(w->f, p->bi, p->ci,
	    &p->cp.pg, &p->e)) < 0)
		goto out;
	if ((p->cp.total = tdat_pages_total(p->cp.pg)) == 0)
		goto out;
	map_pages(w, p->cp.pg, 1, w->f->buf[p->bi].page_size);
	if ((rc = sink_open(w, &p->k, 1,
	    PAGE_CHUNK(w, w->f->buf[p->bi].page_size),
	    TC_CHUNK(w->f->buf[p->bi].page_size))) < 0)
		goto out;
	/* The writer's thread compresses the metadata meanwhile: this one
	 * leaves the chunks to the pipeline's workers, so that the
	 * metadata has a core of its own rather than a share of one. */
	tdat_zpipe_help(w->zp, 0);
	while (!atomic_load(&p->stop) && w->stage.len < HOLD &&
	    (rc = copy_window(w, &p->cp)) > 0)
		;
out:
	p->rc = rc < 0 ? rc : 0;
	return NULL;
}

/* The CPU write_cpu() copies first from the input file, if any. */
static int
first_cpu(const struct w *w, int *bi, uint32_t *id, uint32_t *ci)
{
	const struct tdat_file *f = w->f;
	const struct tdat_buffer *b;
	const struct tdat_cpu *c;
	uint32_t i, n;
	size_t j, nb;
	int *order;

	if ((order = calloc(f->nbuf + 1, sizeof(*order))) == NULL)
		return -1;
	buffer_order(f, order, &nb);
	for (j = 0; j < nb && f->buf[order[j]].latency; j++)
		;
	*bi = j < nb ? order[j] : -1;
	free(order);
	if (*bi < 0)
		return -1;
	b = &f->buf[*bi];
	n = cpu_span(f, b);
	for (i = 0; i < n; i++)
		if ((c = find_cpu(w, *bi, i)) != NULL && c->size != 0) {
			*id = i;
			*ci = (uint32_t)(c - b->cpu);
			return 0;
		}
	return -1;
}

/* Begin the first CPU's copy on a thread of its own, when it helps. */
static void
pre_start(struct w *w)
{
	struct pre *p;

	if (w->codec == NULL || w->o->pages || !w->f->page_ops->parallel ||
	    (p = calloc(1, sizeof(*p))) == NULL)
		return;
	if (first_cpu(w, &p->bi, &p->id, &p->ci) < 0) {
		free(p);
		return;
	}
	atomic_init(&p->stop, 0);
	p->cp.k = &p->k;
	p->cp.size = w->f->buf[p->bi].cpu[p->ci].size;
	p->cp.page_size = w->f->buf[p->bi].page_size;
	p->cp.first = 1;
	w->pre = p;
	w->se = &p->e;
	w->holding = 1;
	if (tdat_thread_start(&p->t, pre_main, w) != 0) {
		w->pre = NULL;
		w->se = w->e;
		w->holding = 0;
		free(p);
	}
}

/* Stop the early copy and take it over on this thread. */
static void
pre_join(struct w *w)
{
	struct pre *p = w->pre;

	atomic_store(&p->stop, 1);
	pthread_join(p->t, NULL);
	p->joined = 1;
	w->se = w->e;
	if (w->zp) {
		tdat_zpipe_err(w->zp, w->e);
		tdat_zpipe_help(w->zp, 1);
	}
}

/* End the early copy: whatever it holds is dropped. */
static void
pre_end(struct w *w)
{
	struct pre *p = w->pre;

	if (p == NULL)
		return;
	if (!p->joined)
		pre_join(w);
	if (w->holding && w->zp)	/* its chunks, into the held stage */
		tdat_zpipe_flush(w->zp);
	if (w->holding)
		w->stage.len = 0;
	w->holding = 0;
	tdat_pages_close(p->cp.pg);
	free(p);
	w->pre = NULL;
}

/* Write the early copy's CPU at the end of the file. */
static int
pre_write(struct w *w, uint64_t *off, uint64_t *size)
{
	struct pre *p = w->pre;
	int rc;

	pre_join(w);
	if ((rc = p->rc) < 0) {
		*w->e = p->e;
		goto out;
	}
	if (p->cp.total == 0)
		goto out;
	w_align(w, w->f->buf[p->bi].page_size);
	*off = w->pos;
	w->holding = 0;
	if ((rc = sink_place(w, &p->k)) < 0 ||
	    (rc = copy_rest(w, &p->cp)) < 0)
		goto out;
	rc = sink_end(w, &p->k, size);
out:
	pre_end(w);
	return rc;
}

/*
 * Compressed input copied uncompressed: the next chunk is decompressed on
 * a page worker (lib/read/pages.c) while this thread checks and writes the
 * current one.  (Compressed output keeps both CPUs busy already.)
 */
static void
read_ahead(struct w *w, struct tdat_pages *pg)
{
	const struct tdat_tracedat *td = tdat_tracedat_of(w->f);

	if (w->codec != NULL || td->codec == NULL)
		return;
	if (w->pwk == NULL)
		tdat_pages_worker_new(&w->pwk);
	tdat_pages_async(pg, w->pwk);
}

/*
 * Write the pages of CPU id of buffer bi, page-aligned, as a raw or
 * chunked stream; *off and *size describe it (size 0: nothing written).
 */
static int
write_cpu(struct w *w, int bi, uint32_t id, int compress, uint64_t *off,
    uint64_t *size)
{
	const struct tdat_buffer *b = &w->f->buf[bi];
	const struct tdat_page_src *ps = w->o->pages;
	const struct tdat_cpu *c;
	struct tdat_pages *pg;
	struct sink k;
	uint64_t total;
	size_t got;
	int rc;

	*off = w->pos;
	*size = 0;
	if (ps) {
		if ((rc = ps->begin(ps->arg, bi, id, &total, w->e)) < 0)
			return rc;
		if (total == 0)
			return 0;
		w_align(w, b->page_size);
		*off = w->pos;
		if ((rc = need_win(w, WINDOW)) < 0 ||
		    (rc = sink_begin(w, &k, compress, PAGE_CHUNK(w, b->page_size),
		    TC_CHUNK(b->page_size))) < 0)
			return rc;
		for (;;) {
			if ((rc = ps->read(ps->arg, w->win, WINDOW, &got,
			    w->e)) < 0)
				return rc;
			if (got == 0)
				break;
			progress(w, got);
			if ((rc = sink_put(w, &k, w->win, got)) < 0)
				return rc;
		}
		if (k.bytes == 0) {	/* every record was dropped */
			w->pos = *off;
			return 0;
		}
		return sink_end(w, &k, size);
	}
	if ((c = find_cpu(w, bi, id)) == NULL || c->size == 0)
		return 0;
	if (w->pre && w->pre->bi == bi && w->pre->id == id)
		return pre_write(w, off, size);
	pre_end(w);
	if (w->check == NULL && (rc = tdat_ring_gate_open(w->f, &w->check,
	    w->e)) < 0)
		return rc;
	if ((rc = tdat_pages_open(w->f, bi, (uint32_t)(c - b->cpu), &pg,
	    w->e)) < 0)
		return rc;
	if (tdat_pages_total(pg) == 0)
		goto out;
	read_ahead(w, pg);
	map_pages(w, pg, compress, b->page_size);
	w_align(w, b->page_size);
	*off = w->pos;
	if ((rc = sink_begin(w, &k, compress, PAGE_CHUNK(w, b->page_size),
	    TC_CHUNK(b->page_size))) < 0 ||
	    (rc = copy_pages(w, pg, &k, c->size, b->page_size,
	    NULL)) < 0)
		goto out;
	rc = sink_end(w, &k, size);
out:
	tdat_pages_close(pg);
	return rc;
}

/* The CPU ids a buffer's data is written for, ascending. */
static uint32_t
cpu_span(const struct tdat_file *f, const struct tdat_buffer *b)
{
	uint32_t i, n = f->ncpus;

	for (i = 0; i < b->ncpu; i++)
		if (b->cpu[i].id >= n)
			n = b->cpu[i].id + 1;
	return n;
}

uint64_t
tdat_write_streams(const struct tdat_file *f)
{
	uint64_t n = 0;
	size_t bi;
	uint32_t i;

	for (bi = 0; bi < f->nbuf; bi++)
		for (i = 0; !f->buf[bi].latency && i < f->buf[bi].ncpu; i++)
			n += f->buf[bi].cpu[i].size != 0;
	return n;
}

/*
 * Pages in a chunk of this file: READ_PAGES over the CPUs with data
 * (the caller's count, or f's), within [TC_PAGES, PAGES_IN_CHUNK].  The
 * same for a copy, a selection and a salvage of one input.
 */
static uint32_t
chunk_pages(const struct w *w)
{
	uint64_t n = w->o->streams ? w->o->streams :
	    tdat_write_streams(w->f);

	if (n <= READ_PAGES / PAGES_IN_CHUNK)
		return PAGES_IN_CHUNK;
	if (n >= READ_PAGES / TC_PAGES)
		return TC_PAGES;
	return (uint32_t)(READ_PAGES / n);
}

uint64_t
tdat_write_total(const struct tdat_file *f)
{
	uint64_t t = 0;
	size_t i;
	uint32_t j;

	for (i = 0; i < f->nbuf; i++)
		for (j = 0; j < f->buf[i].ncpu; j++)
			t += f->buf[i].cpu[j].size;
	return t;
}

/* ------------------------------------------------------------------ */
/* Metadata, in the encoding v6 files hold inline and v7 in sections. */

static void
enc_blob(struct bytes *b, const struct tdat_blob *x, int n, int big)
{
	b_num(b, x->len, n, big);
	b_add(b, x->p, (size_t)x->len);
}

static void
enc_headers(struct w *w, struct bytes *b)
{
	b_add(b, "header_page", 12);
	enc_blob(b, &w->f->hpage, 8, w->big);
	b_add(b, "header_event", 13);
	enc_blob(b, &w->f->hevent, 8, w->big);
}

static void
enc_ftrace(struct w *w, struct bytes *b)
{
	uint32_t i;

	b_num(b, w->f->nftrace, 4, w->big);
	for (i = 0; i < w->f->nftrace; i++)
		enc_blob(b, &w->f->ftrace[i], 8, w->big);
}

static void
enc_events(struct w *w, struct bytes *b)
{
	const struct tdat_system *s;
	uint32_t i, j;

	b_num(b, w->f->nsys, 4, w->big);
	for (i = 0; i < w->f->nsys; i++) {
		s = &w->f->sys[i];
		b_str(b, s->name);
		b_num(b, s->nev, 4, w->big);
		for (j = 0; j < s->nev; j++)
			enc_blob(b, &s->ev[j], 8, w->big);
	}
}

/* Metadata piece id (TDAT_OPT_HEADER_INFO..CMDLINES) into b. */
static void
enc_meta(struct w *w, int id, struct bytes *b)
{
	switch (id) {
	case TDAT_OPT_HEADER_INFO:
		enc_headers(w, b);
		break;
	case TDAT_OPT_FTRACE_EVENTS:
		enc_ftrace(w, b);
		break;
	case TDAT_OPT_EVENT_FORMATS:
		enc_events(w, b);
		break;
	case TDAT_OPT_KALLSYMS:
		enc_blob(b, &w->f->kallsyms, 4, w->big);
		break;
	case TDAT_OPT_PRINTK:
		enc_blob(b, &w->f->printk, 4, w->big);
		break;
	case TDAT_OPT_CMDLINES:
		enc_blob(b, &w->f->cmdlines, 8, w->big);
		break;
	}
}

/*
 * The header's page size: the top buffer's, at which trace-cmd reads the
 * top buffer's pages whatever its BUFFER option says (an input whose
 * header disagrees is mended), else the input header's.
 */
static uint32_t
head_page_size(const struct tdat_file *f)
{
	size_t i;

	for (i = 0; i < f->nbuf; i++)
		if (!f->buf[i].latency && f->buf[i].page_size &&
		    (f->buf[i].name == NULL || f->buf[i].name[0] == '\0'))
			return f->buf[i].page_size;
	return f->page_size;
}

static void
enc_initial(struct w *w, struct bytes *b, int version)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r',
	    'a', 'c', 'i', 'n', 'g' };

	b_add(b, magic, sizeof(magic));
	b_str(b, version == 6 ? "6" : "7");
	b_num(b, w->big ? 1 : 0, 1, 0);
	b_num(b, (uint64_t)w->f->lsize, 1, 0);
	b_num(b, head_page_size(w->f), 4, w->big);
}

static void
enc_option(struct w *w, struct bytes *b, uint16_t id, const void *d,
    uint32_t size)
{
	b_num(b, id, 2, w->big);
	b_num(b, size, 4, w->big);
	b_add(b, d, size);
}

/*
 * A copied option.  TSC2NSEC is written as readers take it (trace-cmd's,
 * and the decoder's, formats/tracedat/tracedat-opts.c): its first 16 bytes; one
 * the decoder finds no whole value in, or whose shift is over 63 (which
 * lib/read/records.c ignores), converts no timestamp and is left out.  The
 * copy's events keep their times, and tdat-verify finds no fault there.
 */
static void
copy_option(struct w *w, struct bytes *b, const struct tdat_option *o)
{
	struct tdat_optval v;

	if (o->id != TDAT_OPT_TSC2NSEC) {
		enc_option(w, b, o->id, o->data, o->size);
		return;
	}
	tdat_opt_decode(o->id, o->data, o->size, w->big, w->f->version, &v);
	if (v.u.tsc.valid && v.u.tsc.shift <= 63)
		enc_option(w, b, o->id, o->data, 16);
}

/* Options that the writer makes itself rather than copies. */
static int
regenerated(uint16_t id)
{
	switch (id) {
	case TDAT_OPT_DONE: case TDAT_OPT_BUFFER: case TDAT_OPT_BUFFER_TEXT:
	case TDAT_OPT_CPUCOUNT: case TDAT_OPT_STRINGS:
	case TDAT_OPT_HEADER_INFO: case TDAT_OPT_FTRACE_EVENTS:
	case TDAT_OPT_EVENT_FORMATS: case TDAT_OPT_KALLSYMS:
	case TDAT_OPT_PRINTK: case TDAT_OPT_CMDLINES:
	/* trace-cmd 3.4's sections: written anew in v7 (v7_extra()); a v6
	 * file has no sections to name (trace-cmd 3.4's convert copies
	 * the options with offsets that name nothing) */
	case TDAT_OPT_BTF_FILE: case TDAT_OPT_MODULES_FILE:
		return 1;
	}
	return 0;
}

/* The buffer a BUFFER option describes, or -1. */
static int
option_buffer(const struct tdat_file *f, size_t opt)
{
	size_t i;

	for (i = 0; i < f->nbuf; i++)
		if (f->buf[i].opt_index == (int)opt)
			return (int)i;
	return -1;
}

/* The order buffers are written in: the input's BUFFER options, the top
 * buffer first when it has none (v6); then, from a salvage open, the
 * buffers whose BUFFER option was lost (read from their data alone). */
static void
buffer_order(const struct tdat_file *f, int *order, size_t *n)
{
	size_t i;
	int bi;

	*n = 0;
	if (f->nbuf > 0 && f->buf[0].opt_index < 0 &&
	    (f->version < 7 || f->buf[0].ncpu > 0))
		order[(*n)++] = 0;
	for (i = 0; i < f->nopt; i++) {
		if (f->opt[i].id != TDAT_OPT_BUFFER &&
		    f->opt[i].id != TDAT_OPT_BUFFER_TEXT)
			continue;
		if ((bi = option_buffer(f, i)) >= 0)
			order[(*n)++] = bi;
	}
	for (i = 1; f->salvage && i < f->nbuf; i++)
		if (f->buf[i].opt_index < 0 && !f->buf[i].latency)
			order[(*n)++] = (int)i;
}

/* ------------------------------------------------------------------ */
/* Version 6. */

static void
v6_clock(struct w *w, struct bytes *b, const struct tdat_buffer *buf)
{
	char tmp[256];
	const char *clk;

	if (buf == &w->f->buf[0] && w->f->clock_data)
		clk = w->f->clock_data;
	else {
		snprintf(tmp, sizeof(tmp), "[%s]", buf->clock ? buf->clock :
		    "local");
		clk = tmp;
	}
	b_num(b, strlen(clk), 8, w->big);
	b_add(b, clk, strlen(clk));
}

/* The CPU count of a v6 file: every buffer's CPUs must fit in it. */
static uint32_t
v6_cpus(const struct tdat_file *f)
{
	uint32_t n = f->ncpus, m;
	size_t i;

	for (i = 0; i < f->nbuf; i++)
		if ((m = cpu_span(f, &f->buf[i])) > n)
			n = m;
	return n;
}

/* One "flyrecord" block and its CPU data; returns where it starts. */
static int
v6_flyrecord(struct w *w, int bi, uint64_t *at)
{
	const struct tdat_buffer *b = bi >= 0 ? &w->f->buf[bi] : NULL;
	struct tdat_buffer empty;
	struct bytes h = { 0 };
	uint32_t i, n = v6_cpus(w->f);
	uint64_t off, size;
	int rc;

	if (b == NULL) {
		memset(&empty, 0, sizeof(empty));
		empty.clock = w->f->buf[0].clock;
		b = &empty;
	}
	if (b->page_size && b->page_size != head_page_size(w->f))
		return tdat_fail_nooff(w->e, TDAT_EUNSUP, "buffer \"%s\" has "
		    "page size %u: a v6 file holds one page size (%u)",
		    b->name, b->page_size, head_page_size(w->f));
	*at = w->pos;
	b_add(&h, "flyrecord", 10);
	for (i = 0; i < n; i++) {
		b_num(&h, 0, 8, w->big);
		b_num(&h, 0, 8, w->big);
	}
	v6_clock(w, &h, b);
	rc = w_bytes(w, &h);
	b_free(&h);
	for (i = 0; rc == 0 && i < n && bi >= 0; i++) {
		if ((rc = write_cpu(w, bi, i, 0, &off, &size)) < 0)
			break;
		if (size == 0)
			continue;
		if ((rc = w_patch(w, *at + 10 + 16 * (uint64_t)i, off, 8)) < 0)
			break;
		rc = w_patch(w, *at + 18 + 16 * (uint64_t)i, size, 8);
	}
	return rc;
}

/*
 * Stream the latency text of buffer bi (or of a v6 file) through k.  In
 * a v6 file (v6 set) the text runs to the end of the file, so one that
 * ends inside a line is a file cut short (tdat-verify): refused.
 */
static int
latency_text(struct w *w, int bi, struct sink *k, int v6)
{
	struct tdat_pages *pg;
	int rc, last;

	if ((rc = tdat_pages_open(w->f, bi, 0, &pg, w->e)) < 0)
		return rc;
	rc = copy_pages(w, pg, k, tdat_pages_total(pg), 0, &last);
	tdat_pages_close(pg);
	if (rc == 0 && v6 && last != '\n')
		return tdat_fail_nooff(w->e, TDAT_ECORRUPT, "latency text ends "
		    "inside a line: the input is cut short");
	return rc;
}

static int
latency_buffer(const struct tdat_file *f)
{
	size_t i;

	for (i = 0; i < f->nbuf; i++)
		if (f->buf[i].latency)
			return (int)i;
	return -1;
}

/* The v6 options: copied ones in order, BUFFER options for instances
 * (their offsets patched later: bufpos[bi] is where, relative to b). */
static void
v6_options(struct w *w, struct bytes *b, uint64_t *bufpos)
{
	const struct tdat_file *f = w->f;
	const struct tdat_buffer *buf;
	size_t i;
	int bi;

	b_add(b, "options  ", 10);
	for (i = 0; i < f->nopt; i++) {
		const struct tdat_option *o = &f->opt[i];

		if (o->id == TDAT_OPT_BUFFER) {
			if ((bi = option_buffer(f, i)) <= 0)
				continue;
			buf = &f->buf[bi];
			if (buf->latency)
				continue;
			bufpos[bi] = b->len + 6;
			b_num(b, o->id, 2, w->big);
			b_num(b, 8 + strlen(buf->name) + 1, 4, w->big);
			b_num(b, 0, 8, w->big);
			b_str(b, buf->name);
			continue;
		}
		if (!regenerated(o->id))
			copy_option(w, b, o);
	}
	b_num(b, 0, 2, w->big);
}

static int
write_v6(struct w *w)
{
	struct tdat_file *f = w->f;
	struct bytes b = { 0 };
	uint64_t *bufpos, base, at;
	int *order, rc, id, lat;
	size_t i, n;
	struct sink k;

	if ((bufpos = calloc(f->nbuf + 1, sizeof(*bufpos))) == NULL ||
	    (order = calloc(f->nbuf + 1, sizeof(*order))) == NULL) {
		free(bufpos);
		return w_oom(w);
	}
	enc_initial(w, &b, 6);
	for (id = TDAT_OPT_HEADER_INFO; id < TDAT_OPT_KALLSYMS; id++)
		enc_meta(w, id, &b);
	/* The kallsyms from the input's text, without a copy in b. */
	b_num(&b, f->kallsyms.len, 4, w->big);
	if ((rc = w_bytes(w, &b)) < 0 || (rc = w_append(w, f->kallsyms.p ?
	    f->kallsyms.p : (const unsigned char *)"",
	    (size_t)f->kallsyms.len)) < 0)
		goto out;
	b.len = 0;
	for (id = TDAT_OPT_KALLSYMS + 1; id <= TDAT_OPT_CMDLINES; id++)
		enc_meta(w, id, &b);
	b_num(&b, v6_cpus(f), 4, w->big);
	base = w->pos;		/* bufpos[] is relative to the start of b */
	v6_options(w, &b, bufpos);
	lat = latency_buffer(f);
	if (lat >= 0)
		b_add(&b, "latency  ", 10);
	if ((rc = w_bytes(w, &b)) < 0)
		goto out;
	if (lat >= 0) {
		if ((rc = sink_begin(w, &k, 0, 0, 0)) == 0)
			rc = latency_text(w, lat, &k, 1);
		goto out;
	}
	/* The top buffer comes first (an empty one if the input has none);
	 * then the instances, each found through its BUFFER option. */
	if ((rc = v6_flyrecord(w, f->buf[0].latency ? -1 : 0, &at)) < 0)
		goto out;
	buffer_order(f, order, &n);
	for (i = 0; i < n; i++) {
		if (order[i] == 0 || f->buf[order[i]].latency)
			continue;
		if ((rc = v6_flyrecord(w, order[i], &at)) < 0)
			goto out;
		if (bufpos[order[i]] && (rc = w_patch(w,
		    base + bufpos[order[i]], at, 8)) < 0)
			goto out;
	}
out:
	b_free(&b);
	free(bufpos);
	free(order);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Version 7. */

static uint32_t
add_string(struct w *w, const char *s)
{
	uint32_t id = (uint32_t)w->strings.len;

	b_str(&w->strings, s);
	return id;
}

/* Write a section header (size patched by sect_end); *at is its offset. */
static int
sect_header(struct w *w, uint16_t id, uint16_t flags, uint32_t name,
    uint64_t *at)
{
	unsigned char h[16];

	*at = w->pos;
	tdat_put(h, id, 2, w->big);
	tdat_put(h + 2, flags, 2, w->big);
	tdat_put(h + 4, name, 4, w->big);
	tdat_put(h + 8, 0, 8, w->big);
	return w_append(w, h, 16);
}

static int
sect_begin(struct w *w, uint16_t id, uint16_t flags, const char *name,
    uint64_t *at)
{
	return sect_header(w, id, flags, add_string(w, name), at);
}

static int
sect_end(struct w *w, uint64_t at)
{
	return w_patch(w, at + 8, w->pos - at - 16, 8);
}

/*
 * The input's v7 section id, compressed with the output's codec, when it
 * decompresses to the n bytes at p: its compressed bytes into *out (*on
 * of them), to be written rather than p compressed again (a time cut
 * spent a tenth of its time compressing the event formats once more).
 * 1 if so, 0 if not (p is compressed then), -1 out of memory.
 */
static int
sect_same(struct w *w, uint16_t id, const unsigned char *p, size_t n,
    unsigned char **out, size_t *on)
{
	struct tdat_file *f = w->f;
	const struct tdat_tracedat *td = tdat_tracedat_of(f);
	const struct tdat_section *s = NULL;
	struct tdat_err e;
	unsigned char *c, *u;
	size_t i;
	int same;

	for (i = 0; i < td->nsect; i++)
		if (td->sect[i].id == id) {
			if (s != NULL)
				return 0;	/* which one is it? */
			s = &td->sect[i];
		}
	if (s == NULL || !(s->flags & TDAT_SEC_COMPRESSED) || n == 0 ||
	    s->usize != n || td->codec == NULL || f->comp == NULL ||
	    f->big != w->big || strcmp(f->comp, tdat_codec_name(w->codec)) ||
	    (uint64_t)s->csize + 8 > s->size || s->csize == 0)
		return 0;
	if ((c = malloc(s->csize)) == NULL || (u = malloc(n)) == NULL) {
		free(c);
		return -1;
	}
	same = tdat_pread(f, c, s->off + 16 + 8, s->csize, &e) == 0 &&
	    tdat_codec_decompress(td->codec, c, s->csize, u, n) == 0 &&
	    memcmp(u, p, n) == 0;
	free(u);
	if (!same) {
		free(c);
		return 0;
	}
	*out = c;
	*on = s->csize;
	return 1;
}

/* A section holding b, compressed as one block when the file is. */
static int
sect_blob(struct w *w, uint16_t id, uint32_t name, struct bytes *b,
    uint64_t *at)
{
	unsigned char h[8], *c;
	size_t cap, n;
	int rc;

	if (b->oom)
		return w_oom(w);
	if ((rc = sect_header(w, id, w->codec ? TDAT_SEC_COMPRESSED : 0, name,
	    at)) < 0)
		return rc;
	if (w->codec == NULL) {
		if ((rc = w_append(w, b->p, b->len)) < 0)
			return rc;
		return sect_end(w, *at);
	}
	if (b->len > 0xffffffffu)
		return tdat_fail_nooff(w->e, TDAT_EUNSUP,
		    "section of %zu bytes too large to compress", b->len);
	if ((rc = sect_same(w, id, b->p, b->len, &c, &n)) < 0)
		return w_oom(w);
	if (rc == 0) {
		cap = tdat_codec_bound(w->codec, b->len);
		if ((c = malloc(cap ? cap : 1)) == NULL)
			return w_oom(w);
		n = tdat_codec_compress(w->codec, b->p ? b->p :
		    (unsigned char *)"", b->len, c, cap);
	}
	rc = 0;
	if (n == 0)
		rc = tdat_fail_nooff(w->e, TDAT_EIO, "%s compression failed",
		    tdat_codec_name(w->codec));
	tdat_put(h, n, 4, w->big);
	tdat_put(h + 4, b->len, 4, w->big);
	if (rc == 0 && (rc = w_append(w, h, 8)) == 0 &&
	    (rc = w_append(w, c, n)) == 0)
		rc = sect_end(w, *at);
	free(c);
	return rc;
}

struct wput {
	struct w *w;
	int rc;			/* what the failed write returned */
};

static int
put_append(void *arg, const void *p, size_t n)
{
	struct wput *o = arg;

	return o->rc = w_append(o->w, p, n);
}

/* Bytes of a section copied as they are at once. */
#define COPY_WIN	(256u * 1024)

/*
 * The input's kallsyms section compressed with the output's codec: its
 * compressed bytes as they are (they decompressed to the text when the
 * input was opened), rather than compressed again: that took most of a
 * time cut of a large v7 zstd trace (4 MB of symbols).  They go through
 * a window of COPY_WIN bytes, however large the section.
 */
static int ksec_copy(struct w *, uint64_t, uint64_t, uint32_t, uint32_t);

static int
kallsyms_copy(struct w *w, uint64_t at)
{
	const struct tdat_tracedat *td = tdat_tracedat_of(w->f);

	return ksec_copy(w, at, td->ksec_data, td->ksec_csize,
	    td->ksec_usize);
}

/* The section's sizes, then its csize compressed bytes at data. */
static int
ksec_copy(struct w *w, uint64_t at, uint64_t data, uint32_t csize,
    uint32_t usize)
{
	unsigned char h[8], *p;
	uint64_t done, n;
	int rc;

	tdat_put(h, csize, 4, w->big);
	tdat_put(h + 4, usize, 4, w->big);
	if ((rc = w_append(w, h, 8)) < 0)
		return rc;
	if ((p = malloc(COPY_WIN)) == NULL)
		return w_oom(w);
	for (done = 0; done < csize; done += n) {
		n = csize - done;
		if (n > COPY_WIN)
			n = COPY_WIN;
		if ((rc = tdat_pread(w->f, p, data + done, n,
		    w->e)) < 0 || (rc = w_append(w, p, (size_t)n)) < 0) {
			free(p);
			return rc;
		}
	}
	free(p);
	return sect_end(w, at);
}

/*
 * The kallsyms section of a v7 output compressed ahead, on a thread of
 * its own begun as tdat_write() starts (kahead_start()), while this one
 * checks the texts and compresses the sections before it: 4 MB of
 * kallsyms compressed in one run were most of a time cut's start from a
 * v6 input (16.5 of its 27 ms of CPU with --until 0), all of it before
 * any page.  The run (the size, then the text) is compressed by
 * tdat_codec_compress(), to the bytes sect_blob() makes (a one-frame
 * level 3 as trace-cmd's: split in frames compressed side by side, the
 * section came out a few KB larger, and tdat-cat's output larger than
 * trace-cmd convert's on small traces).  A text of KAHEAD_MAX bytes or
 * more is left to sect_kallsyms() as before, and one not mapped with
 * the 4 bytes before it (then copied) of KAHEAD_COPY bytes or more: the
 * compressed bytes are held here until written (the tdat-cat test "a
 * large kallsyms is written from the input, not copied" allows 4 MiB
 * more than the text; a corpus file's peak grew by 6.3 MB at most).
 */
#define KAHEAD_MIN	(64u * 1024)
#define KAHEAD_MAX	(8u << 20)
#define KAHEAD_COPY	(4u << 20)

struct kahead {
	pthread_t th;
	struct tdat_codec *codec;	/* the thread's own */
	unsigned char *run;		/* the size, then the text */
	size_t n;			/* bytes of the run */
	unsigned char *copy;		/* run, when not in the mapping */
	unsigned char keep[4];		/* the mapping's 4 bytes at run */
	unsigned char *out;		/* the run compressed */
	size_t cap, olen;		/* olen 0: it failed */
	int started;
};

/* The thread: its own memory, and the run it reads. */
static void *
kahead_main(void *arg)
{
	struct kahead *ka = arg;

	ka->olen = tdat_codec_compress_text(ka->codec, ka->run, ka->n,
	    ka->out, ka->cap);
	return NULL;
}

/* The kallsyms copied as they are (kallsyms_copy()), for sect_kallsyms(). */
static int
kallsyms_as_they_are(const struct w *w, const char *codec)
{
	const struct tdat_tracedat *td = tdat_tracedat_of(w->f);
	const struct tdat_blob *k = &w->f->kallsyms;

	return td->ksec_csize && w->f->comp && k->p &&
	    strcmp(w->f->comp, codec) == 0 &&
	    w->f->big == w->big && td->ksec_usize == k->len + 4;
}

/* Wait for the thread and put the mapping's bytes back; ka stays. */
static void
kahead_join(struct kahead *ka)
{
	if (ka->started)
		pthread_join(ka->th, NULL);
	ka->started = 0;
	if (ka->run != NULL && ka->copy == NULL)
		memcpy(ka->run, ka->keep, 4);
	free(ka->copy);
	ka->copy = NULL;
	ka->run = NULL;
}

static void
kahead_free(struct kahead *ka)
{
	kahead_join(ka);
	tdat_codec_free(ka->codec);
	free(ka->out);
	free(ka);
}

static void
kahead_end(struct w *w)
{
	if (w->ka != NULL)
		kahead_free(w->ka);
	w->ka = NULL;
}

/*
 * Begin the kallsyms' compression when a v7 output compresses them and
 * they are worth a thread; otherwise (or out of memory, or no thread)
 * sect_kallsyms() compresses them in its turn.  A mapped text has the 4
 * bytes before it mapped too (formats/tracedat/tracedat.c rd_map): the size
 * goes there for the run, and kahead_join() puts them back; nothing else
 * reads them meanwhile.  The thread takes no signal but SIGBUS, as
 * pre_start()'s.
 */
static void
kahead_start(struct w *w)
{
	const char *name = w->o->compression;
	struct tdat_blob *k = &w->f->kallsyms;
	struct kahead *ka;
	size_t n = (size_t)k->len;

	if (w->o->version != 7 || name == NULL || k->p == NULL ||
	    k->len < KAHEAD_MIN || k->len >= KAHEAD_MAX ||
	    (ka = calloc(1, sizeof(*ka))) == NULL)
		return;
	if ((ka->codec = tdat_codec_new(name)) == NULL ||
	    kallsyms_as_they_are(w, name)) {
		kahead_free(ka);
		return;
	}
	ka->n = n + 4;
	ka->cap = tdat_codec_bound(ka->codec, ka->n);
	if ((ka->out = malloc(ka->cap)) == NULL) {
		kahead_free(ka);
		return;
	}
	if (k->map && k->p - 4 >= (unsigned char *)k->map) {
		ka->run = k->p - 4;
		memcpy(ka->keep, ka->run, 4);
	} else if (n >= KAHEAD_COPY ||
	    (ka->run = ka->copy = malloc(ka->n)) == NULL) {
		kahead_free(ka);
		return;
	} else
		memcpy(ka->run + 4, k->p, n);
	tdat_put(ka->run, k->len, 4, w->big);
	if (tdat_thread_start(&ka->th, kahead_main, ka) != 0) {
		kahead_free(ka);
		return;
	}
	ka->started = 1;
	w->ka = ka;
}

/* The section's sizes and the bytes compressed ahead. */
static int
kahead_write(struct w *w, uint64_t at)
{
	struct kahead *ka = w->ka;
	unsigned char h[8];
	int rc;

	kahead_join(ka);
	if (ka->olen == 0)
		return tdat_fail_nooff(w->e, TDAT_EIO, "%s compression failed",
		    tdat_codec_name(w->codec));
	if (ka->olen > 0xffffffffu)
		return tdat_fail_nooff(w->e, TDAT_EUNSUP,
		    "section of %zu bytes too large to compress", ka->olen);
	tdat_put(h, ka->olen, 4, w->big);
	tdat_put(h + 4, ka->n, 4, w->big);
	if ((rc = w_append(w, h, 8)) < 0 ||
	    (rc = w_append(w, ka->out, ka->olen)) < 0)
		return rc;
	kahead_end(w);
	return sect_end(w, at);
}

/*
 * The input's kallsyms left loading as it was opened (kallsyms_later,
 * tdat-cat): read now, and their lines refused if damaged once past the
 * point where the other texts were (klater 2), with the messages of an
 * open and a writer that waited for them; 0, or what failed.
 */
static int
klater_wait(struct w *w, struct tdat_err *e)
{
	const struct tdat_tracedat *td = tdat_tracedat_of(w->f);
	int lines = w->klater == 2, rc;

	w->klater = 0;
	if ((rc = tdat_kallsyms_wait(w->f, e)) < 0 || (lines &&
	    (rc = tdat_text_refuse_known(w->f, td->kchecked ? &td->kcheck :
	    NULL, e)) < 0))
		return rc;
	/* (what klater_copy() saw of them, their open saw) */
	if (w->kcopied && td->ksec_csize != w->kcopied)
		return tdat_fail_nooff(e, TDAT_EIO, "kallsyms: the section "
		    "copied is not the one read");
	return 0;
}

/*
 * The size the input's zstd kallsyms section s begins with, read through
 * the first block of its frame, for klater_copy(): -1 if it does not tell
 * (their thread's reading then says why, if anything is wrong).
 */
#define KPREFIX_IN	(256u * 1024)

static int64_t
kprefix(struct w *w, const struct tdat_section *s)
{
	struct tdat_err e = { 0 };
	unsigned char out[4], *c;
	size_t n = s->csize < KPREFIX_IN ? s->csize : KPREFIX_IN;
	int rc;

	if ((c = malloc(n)) == NULL)
		return -1;
	rc = tdat_pread(w->f, c, s->off + 16 + 8, n, &e) == 0 ?
	    tdat_codec_head(w->codec, c, n, out, sizeof(out)) : -1;
	free(c);
	return rc == 0 ? (int64_t)tdat_get32(out, w->big) : -1;
}

/*
 * The input's zstd kallsyms, still loading, copied as they are (as
 * kallsyms_copy() does once read) when the section holds their size and
 * text alone: what the writer would wait for is their thread's reading,
 * decompression and check of 4 MB, 5 to 10 ms of a time cut's start.
 * Their verdict comes at the end (klater_wait(); any failure before it
 * is theirs first, klater_first()).  1 if copied, 0 if not (then wait),
 * or a write error.
 */
static int
klater_copy(struct w *w, uint64_t at)
{
	const struct tdat_tracedat *td = tdat_tracedat_of(w->f);
	const struct tdat_section *s = NULL;
	size_t i;
	int64_t n;
	int rc;

	for (i = 0; i < td->nsect && s == NULL; i++)
		if (td->sect[i].off == td->ksect)
			s = &td->sect[i];
	if (s == NULL || s->id != TDAT_OPT_KALLSYMS || w->big != w->f->big ||
	    strcmp(w->f->comp, "zstd") != 0 || w->codec == NULL ||
	    strcmp(tdat_codec_name(w->codec), "zstd") != 0 ||
	    !(s->flags & TDAT_SEC_COMPRESSED) || s->usize < 4 ||
	    (uint64_t)s->csize + 8 > s->size ||
	    (n = kprefix(w, s)) != (int64_t)s->usize - 4)
		return 0;
	if ((rc = ksec_copy(w, at, s->off + 16 + 8, s->csize, s->usize)) < 0)
		return rc;
	w->kcopied = s->csize;
	return 1;
}

/* A failure rc while they load: theirs first, if they have one. */
static int
klater_first(struct w *w, int rc)
{
	struct tdat_err ke = { 0 };
	int r;

	if (!w->klater || (r = klater_wait(w, &ke)) == 0)
		return rc;
	*w->e = ke;
	return r;
}

/* Whether the input's kallsyms may load on while the writer starts: a
 * v7 output of the input's compression, which copies them as they are
 * (any other waits for them first). */
static int
klater_fits(const struct tdat_file *f, const struct tdat_write_opts *o)
{
	return o->version == 7 && o->compression && f->comp &&
	    strcmp(o->compression, f->comp) == 0;
}

/*
 * The kallsyms section, written from the input's text without a copy (it
 * may be tens of MB), compressed in windows when the file is, to the
 * bytes sect_blob() would write.
 */
static int
sect_kallsyms(struct w *w, uint32_t name, uint64_t *at)
{
	struct tdat_blob *k = &w->f->kallsyms;
	struct wput wp = { w, 0 };
	struct tdat_stream_out o = { put_append, &wp, 0 };
	unsigned char len[4], h[8], *p;
	size_t n = (size_t)k->len;
	uint64_t hat;
	int rc, r;

	if ((rc = sect_header(w, TDAT_OPT_KALLSYMS, w->codec ?
	    TDAT_SEC_COMPRESSED : 0, name, at)) < 0)
		return rc;
	if (w->klater && w->codec && (rc = klater_copy(w, *at)) != 0)
		return rc < 0 ? rc : 0;
	if (w->klater && (rc = klater_wait(w, w->e)) < 0)
		return rc;
	tdat_put(len, k->len, 4, w->big);
	if (w->codec == NULL) {
		if ((rc = w_append(w, len, 4)) < 0 || (k->p &&
		    (rc = w_append(w, k->p, n)) < 0))
			return rc;
		return sect_end(w, *at);
	}
	if (k->len > 0xffffffffu - 4)
		return tdat_fail_nooff(w->e, TDAT_EUNSUP,
		    "section of %llu bytes too large to compress",
		    (unsigned long long)k->len + 4);
	if (kallsyms_as_they_are(w, tdat_codec_name(w->codec)))
		return kallsyms_copy(w, *at);
	if (w->ka != NULL)
		return kahead_write(w, *at);
	hat = w->pos;
	memset(h, 0, sizeof(h));
	if ((rc = w_append(w, h, 8)) < 0)
		return rc;
	/*
	 * The size and the text go through the compressor as one run, as
	 * sect_blob() gives them: a text in its own block moves up 4 bytes
	 * (a large block grows in place) and back afterwards; a mapped one
	 * stays.  Two inputs of one stream would not do: past its window,
	 * zstd's buffered streaming makes other bytes than one run's.
	 */
	if (k->p == NULL)
		r = tdat_codec_compress_to(w->codec, len, 4, &o);
	else if (k->map && k->p - 4 >= (unsigned char *)k->map) {
		/*
		 * A mapped text (private, writable) has the 4 bytes before
		 * it mapped too (formats/tracedat/tracedat.c rd_map): the size goes
		 * there for the run, and they are put back.
		 */
		unsigned char keep[4];

		p = k->p - 4;
		memcpy(keep, p, 4);
		memcpy(p, len, 4);
		r = tdat_codec_compress_to(w->codec, p, n + 4, &o);
		memcpy(p, keep, 4);
	} else if (k->map) {
		/* Mapped from a page's first bytes: the run is copied. */
		if ((p = malloc(n + 4)) == NULL)
			return w_oom(w);
		memcpy(p, len, 4);
		memcpy(p + 4, k->p, n);
		r = tdat_codec_compress_to(w->codec, p, n + 4, &o);
		free(p);
	} else {
		if ((p = realloc(k->p, n + 5)) == NULL)
			return w_oom(w);
		k->p = p;
		memmove(p + 4, p, n);
		memcpy(p, len, 4);
		r = tdat_codec_compress_to(w->codec, p, n + 4, &o);
		memmove(p, p + 4, n);
		p[n] = '\0';
	}
	if (r < 0)
		return wp.rc < 0 ? wp.rc : tdat_fail_nooff(w->e, TDAT_EIO,
		    "%s compression failed", tdat_codec_name(w->codec));
	if (o.len > 0xffffffffu)
		return tdat_fail_nooff(w->e, TDAT_EUNSUP,
		    "section of %zu bytes too large to compress", o.len);
	tdat_put(h, o.len, 4, w->big);
	tdat_put(h + 4, k->len + 4, 4, w->big);
	if ((rc = w_pwrite(w, h, 8, hat)) < 0)
		return rc;
	return sect_end(w, *at);
}

/* An options section holding ob, then DONE; chains it to the last one. */
static int
options_section(struct w *w, struct bytes *ob)
{
	uint64_t at;
	int rc;

	b_num(ob, TDAT_OPT_DONE, 2, w->big);
	b_num(ob, 8, 4, w->big);
	b_num(ob, 0, 8, w->big);
	if (ob->oom)
		return w_oom(w);
	if ((rc = sect_begin(w, TDAT_OPT_DONE, 0, "options", &at)) < 0 ||
	    (rc = w_append(w, ob->p, ob->len)) < 0 ||
	    (rc = sect_end(w, at)) < 0 ||
	    (rc = w_patch(w, w->next_opt, at, 8)) < 0)
		return rc;
	w->next_opt = w->pos - 8;
	return 0;
}

static const char *const meta_name[] = {
	"headers", "ftrace events", "events format", "kallsyms", "printk",
	"command lines",
};

/*
 * trace-cmd 3.4's modules and BTF sections, copied (after the printk
 * formats, as trace-cmd writes them).
 */
static int
v7_extra(struct w *w)
{
	struct tdat_file *f = w->f;
	struct bytes b = { 0 };
	int rc;

	if (f->modules.p != NULL) {
		b.p = f->modules.p;
		b.len = (size_t)f->modules.len;
		if ((rc = sect_blob(w, TDAT_OPT_MODULES_FILE, add_string(w,
		    "modules"), &b, &w->modules)) < 0)
			return rc;
	}
	if ((rc = tdat_btf(f, w->e)) <= 0)
		return rc;
	b.p = f->btf.p;
	b.len = (size_t)f->btf.len;
	rc = sect_blob(w, TDAT_OPT_BTF_FILE, add_string(w, "BTF"), &b,
	    &w->btf);
	/* Read for the copy alone: its 5 MiB go now. */
	tdat_blob_free(&f->btf);
	return rc;
}

static int
v7_meta_sections(struct w *w)
{
	struct bytes b = { 0 };
	int id, rc = 0;

	for (id = TDAT_OPT_HEADER_INFO; id <= TDAT_OPT_CMDLINES && rc == 0;
	    id++) {
		if (id == TDAT_OPT_CMDLINES && (rc = v7_extra(w)) < 0)
			break;
		if (id == TDAT_OPT_KALLSYMS) {
			rc = sect_kallsyms(w, add_string(w,
			    meta_name[id - TDAT_OPT_HEADER_INFO]),
			    &w->meta[id - TDAT_OPT_HEADER_INFO]);
			continue;
		}
		b.len = 0;
		enc_meta(w, id, &b);
		rc = sect_blob(w, (uint16_t)id, add_string(w,
		    meta_name[id - TDAT_OPT_HEADER_INFO]), &b,
		    &w->meta[id - TDAT_OPT_HEADER_INFO]);
	}
	b_free(&b);
	return rc;
}

/* The option naming metadata section id, unless *done says it is
 * written already: an input may name a section twice, or not at all. */
static void
meta_option(struct w *w, struct bytes *ob, int id, unsigned *done)
{
	unsigned char d[8];
	unsigned bit = 1u << (id - TDAT_OPT_HEADER_INFO);

	if (*done & bit)
		return;
	*done |= bit;
	tdat_put(d, w->meta[id - TDAT_OPT_HEADER_INFO], 8, w->big);
	enc_option(w, ob, (uint16_t)id, d, 8);
}

/* The option naming the BTF or modules section, once, if written. */
static void
extra_option(struct w *w, struct bytes *ob, uint16_t id)
{
	uint64_t *at = id == TDAT_OPT_BTF_FILE ? &w->btf : &w->modules;
	unsigned char d[8];

	if (*at == 0)
		return;
	tdat_put(d, *at, 8, w->big);
	enc_option(w, ob, id, d, 8);
	*at = 0;
}

/* The first options section: everything but buffers, in input order,
 * each metadata section named once (a v6 input: the first five before
 * the other options, the command lines after them, as trace-cmd writes
 * them). */
static int
v7_options(struct w *w)
{
	const struct tdat_file *f = w->f;
	struct bytes ob = { 0 };
	unsigned char d[4];
	unsigned done = 0;
	int id, seen = 0, rc;
	size_t i;

	for (i = 0; i < f->nopt; i++)
		if (f->opt[i].id == TDAT_OPT_HEADER_INFO)
			seen = 1;
	if (!seen)
		for (id = TDAT_OPT_HEADER_INFO; id < TDAT_OPT_CMDLINES; id++)
			meta_option(w, &ob, id, &done);
	for (i = 0; i < f->nopt; i++) {
		const struct tdat_option *o = &f->opt[i];

		if (o->id >= TDAT_OPT_HEADER_INFO && o->id <= TDAT_OPT_CMDLINES)
			meta_option(w, &ob, o->id, &done);
		else if (!regenerated(o->id))
			copy_option(w, &ob, o);
		else if (o->id == TDAT_OPT_BTF_FILE ||
		    o->id == TDAT_OPT_MODULES_FILE)
			extra_option(w, &ob, o->id);
	}
	extra_option(w, &ob, TDAT_OPT_MODULES_FILE);
	extra_option(w, &ob, TDAT_OPT_BTF_FILE);
	for (id = TDAT_OPT_HEADER_INFO; id <= TDAT_OPT_CMDLINES; id++)
		meta_option(w, &ob, id, &done);
	tdat_put(d, f->ncpus, 4, w->big);
	enc_option(w, &ob, TDAT_OPT_CPUCOUNT, d, 4);
	rc = options_section(w, &ob);
	b_free(&ob);
	return rc;
}

static int
v7_flyrecord(struct w *w, int bi)
{
	const struct tdat_buffer *b = &w->f->buf[bi];
	struct bytes ob = { 0 }, cpus = { 0 };
	char name[300];
	uint32_t i, n = cpu_span(w->f, b), count = 0;
	uint64_t at, off, size;
	int rc;

	snprintf(name, sizeof(name), "buffer flyrecord %s", b->name);
	if ((rc = sect_begin(w, TDAT_OPT_BUFFER, w->codec ?
	    TDAT_SEC_COMPRESSED : 0, name, &at)) < 0)
		return rc;
	for (i = 0; i < n; i++) {
		if ((rc = write_cpu(w, bi, i, 1, &off, &size)) < 0)
			goto out;
		if (size == 0)
			continue;
		b_num(&cpus, i, 4, w->big);
		b_num(&cpus, off, 8, w->big);
		b_num(&cpus, size, 8, w->big);
		count++;
	}
	if ((rc = sect_end(w, at)) < 0)
		goto out;
	b_num(&ob, TDAT_OPT_BUFFER, 2, w->big);
	b_num(&ob, 8 + strlen(b->name) + 1 + strlen(b->clock) + 1 + 8 +
	    cpus.len, 4, w->big);
	b_num(&ob, at, 8, w->big);
	b_str(&ob, b->name);
	b_str(&ob, b->clock);
	b_num(&ob, b->page_size ? b->page_size : head_page_size(w->f), 4,
	    w->big);
	b_num(&ob, count, 4, w->big);
	b_add(&ob, cpus.p, cpus.len);
	if (cpus.oom)
		ob.oom = 1;
	rc = options_section(w, &ob);
out:
	b_free(&ob);
	b_free(&cpus);
	return rc;
}

/*
 * A latency buffer: its BUFFER_TEXT option now, its text last in the file
 * (v7_latency_text()), as trace-cmd report reads uncompressed text on to
 * the end of the file.  *patch is where the option's offset goes.
 */
static int
v7_latency(struct w *w, int bi, uint64_t *patch)
{
	const struct tdat_buffer *b = &w->f->buf[bi];
	const char *clock = b->clock ? b->clock : "local";
	struct bytes ob = { 0 };
	int rc;

	b_num(&ob, TDAT_OPT_BUFFER_TEXT, 2, w->big);
	b_num(&ob, 8 + strlen(b->name) + 1 + strlen(clock) + 1, 4, w->big);
	b_num(&ob, 0, 8, w->big);
	b_str(&ob, b->name);
	b_str(&ob, clock);
	*patch = w->pos + 16 + 6;	/* past the section header, id, size */
	rc = options_section(w, &ob);
	b_free(&ob);
	return rc;
}

static int
v7_latency_text(struct w *w, int bi, uint32_t name, uint64_t patch)
{
	struct sink k;
	uint64_t at, size;
	int rc;

	if ((rc = sect_header(w, TDAT_OPT_BUFFER_TEXT, w->codec ?
	    TDAT_SEC_COMPRESSED : 0, name, &at)) < 0 ||
	    (rc = sink_begin(w, &k, 1, LATENCY_CHUNK, 0)) < 0 ||
	    (rc = latency_text(w, bi, &k, 0)) < 0 ||
	    (rc = sink_end(w, &k, &size)) < 0 ||
	    (rc = sect_end(w, at)) < 0)
		return rc;
	return w_patch(w, patch, at, 8);
}

static const char *
codec_version(const char *name)
{
	if (strcmp(name, "zstd") == 0)
		return ZSTD_versionString();
	if (strcmp(name, "zlib") == 0)
		return zlibVersion();
	return "";
}

static int
write_v7(struct w *w)
{
	struct tdat_file *f = w->f;
	const struct tdat_tracedat *td = tdat_tracedat_of(f);
	const char *cname = w->codec ? tdat_codec_name(w->codec) : "none";
	struct bytes b = { 0 };
	int *order, rc, lat = -1;
	uint32_t name, lname = 0;
	uint64_t at, patch = 0;
	size_t i, n;

	enc_initial(w, &b, 7);
	b_str(&b, cname);
	b_str(&b, f->comp && strcmp(f->comp, cname) == 0 && td->comp_ver ?
	    td->comp_ver : codec_version(cname));
	w->next_opt = b.len;
	b_num(&b, 0, 8, w->big);
	rc = w_bytes(w, &b);
	b_free(&b);
	if (rc < 0 || (rc = v7_meta_sections(w)) < 0 ||
	    (rc = v7_options(w)) < 0)
		return rc;
	if ((order = calloc(f->nbuf + 1, sizeof(*order))) == NULL)
		return w_oom(w);
	buffer_order(f, order, &n);
	for (i = 0; i < n && rc == 0; i++) {
		if (!f->buf[order[i]].latency)
			rc = v7_flyrecord(w, order[i]);
		else if (lat < 0) {
			lat = order[i];
			lname = add_string(w, "buffer latency");
			rc = v7_latency(w, lat, &patch);
		} else
			rc = tdat_fail_nooff(w->e, TDAT_EUNSUP,
			    "more than one latency buffer");
	}
	free(order);
	if (rc < 0)
		return rc;
	/* The strings section names itself: its name goes in first. */
	name = add_string(w, "strings");
	if (w->strings.oom)
		return w_oom(w);
	if ((rc = sect_blob(w, TDAT_OPT_STRINGS, name, &w->strings, &at)) < 0)
		return rc;
	return lat < 0 ? 0 : v7_latency_text(w, lat, lname, patch);
}

/* ------------------------------------------------------------------ */

int
tdat_write(struct tdat_file *f, int fd, const struct tdat_write_opts *o,
    struct tdat_err *e)
{
	const struct tdat_tracedat *td = tdat_tracedat_of(f);
	struct tdat_page_layout pl;
	struct w w;
	size_t i;
	int rc;

	memset(&w, 0, sizeof(w));
	w.f = f;
	w.o = o;
	w.e = e;
	w.fd = fd;
	w.big = f->big;
	w.se = e;
	w.total = tdat_write_total(f);
	if (!klater_fits(f, o) && (rc = tdat_kallsyms_wait(f, e)) < 0)
		return rc;
	w.klater = td->klater != NULL;
	if (o->version != 6 && o->version != 7) {
		rc = tdat_fail_nooff(e, TDAT_EUSAGE,
		    "file version %d: only 6 and 7 can be written", o->version);
		goto out;
	}
	kahead_start(&w);
	/* A header_page no reader can walk pages with is refused, pages or
	 * none, as tdat-verify refuses it. */
	if ((rc = tdat_page_layout(f, &pl, e)) < 0)
		goto out;
	if (w.klater)
		w.klater = 2;
	if ((rc = tdat_text_refuse_known(f, td->kchecked ? &td->kcheck : NULL,
	    e)) < 0)
		goto out;
	if (o->compression && strcmp(o->compression, "none") != 0) {
		if (o->version < 7) {
			rc = tdat_fail_nooff(e, TDAT_EUSAGE,
			    "version 6 files cannot be compressed");
			goto out;
		}
		if ((w.codec = tdat_codec_new(o->compression)) == NULL) {
			rc = tdat_fail_nooff(e, TDAT_EUSAGE,
			    "unknown compression \"%s\"", o->compression);
			goto out;
		}
	}
	w.chunk_pages = chunk_pages(&w);
	if ((rc = index_cpus(&w)) < 0)
		;
	else if (o->version == 6)
		rc = write_v6(&w);
	else {
		pre_start(&w);
		rc = write_v7(&w);
		pre_end(&w);
	}
	if (rc == 0 && ftruncate(fd, (off_t)w.pos) < 0)
		rc = tdat_fail_nooff(e, TDAT_EIO, "truncate: %s",
		    strerror(errno));
	for (i = 0; w.cix != NULL && i < f->nbuf; i++)
		free(w.cix[i]);
	free(w.cix);
	tdat_ring_gate_close(w.check);
out:
	if (rc < 0)
		rc = klater_first(&w, rc);
	else if (w.klater)	/* none written: the writer of no kallsyms */
		rc = klater_wait(&w, e);
	kahead_end(&w);
	tdat_pages_worker_free(w.pwk);
	tdat_zpipe_free(w.zp);
	release(&w, 1);
	tdat_codec_free(w.codec);
	b_free(&w.strings);
	b_free(&w.stage);
	free(w.win);
	return rc;
}
