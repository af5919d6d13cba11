/*
 * tdat-read.h: an open input whatever its format (struct tdat_file), the
 * source interface each format implements (struct tdat_format, struct
 * tdat_page_ops), the page iterator (lib/read/pages.c) and the record
 * stream (lib/read/records.c).
 */
#ifndef TDAT_READ_H
#define TDAT_READ_H

#include "tdat.h"
#include "tdat-common.h"
#include "tdat-codec.h"
#include "tdat-ring.h"

struct tdat_events;

/* ---------------------------------------------------------------------
 * An open input, whatever its format: its metadata in trace.dat's terms
 * (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5): the event formats, texts,
 * options and buffers every format gives), its format (struct
 * tdat_format) and its pages (struct tdat_page_ops).  What only one
 * format's container holds (trace.dat's sections, strings, codec) is
 * that format's, behind page_arg (formats/tracedat/tdat-tracedat.h).
 */

/* Option and section ids (the same numbers in v7). */
enum {
	TDAT_OPT_DONE = 0, TDAT_OPT_DATE, TDAT_OPT_CPUSTAT, TDAT_OPT_BUFFER,
	TDAT_OPT_TRACECLOCK, TDAT_OPT_UNAME, TDAT_OPT_HOOK, TDAT_OPT_OFFSET,
	TDAT_OPT_CPUCOUNT, TDAT_OPT_VERSION, TDAT_OPT_PROCMAPS, TDAT_OPT_TRACEID,
	TDAT_OPT_TIME_SHIFT, TDAT_OPT_GUEST, TDAT_OPT_TSC2NSEC, TDAT_OPT_STRINGS,
	TDAT_OPT_HEADER_INFO, TDAT_OPT_FTRACE_EVENTS, TDAT_OPT_EVENT_FORMATS,
	TDAT_OPT_KALLSYMS, TDAT_OPT_PRINTK, TDAT_OPT_CMDLINES,
	TDAT_OPT_BUFFER_TEXT, TDAT_OPT_BTF_FILE, TDAT_OPT_LAST_BOOT_INFO,
	TDAT_OPT_MODULES_FILE, TDAT_OPT_MAX
};
const char *tdat_option_name(unsigned id);	/* "DATE", ...; NULL if unknown */

/* A piece of metadata, held decompressed in memory. */
struct tdat_blob {
	unsigned char *p;
	uint64_t len;
	uint64_t off;	/* file offset of its size field (v6) or section */
	void *map;	/* p lies in this private mapping of the file, of */
	size_t mlen;	/* mlen bytes, not in malloc()ed memory */
	int arena;	/* p lies in its file's arena (format files, below):
			 * freed with the file, not with the blob */
};

/* Free a blob's bytes, malloc()ed or mapped (not in an arena); p becomes
 * NULL. */
void tdat_blob_free(struct tdat_blob *);

struct tdat_system {
	char *name;
	uint32_t nev;
	struct tdat_blob *ev;	/* one format file each */
};

struct tdat_option {
	uint16_t id;
	uint32_t size;
	uint64_t off;		/* file offset of the option's data */
	const unsigned char *data;	/* size bytes */
	int sect;		/* trace.dat v7: the index of its options
				 * section (struct tdat_tracedat), or -1 */
};

struct tdat_cpu {
	uint32_t id;
	uint64_t off, size;	/* as stored; compressed bytes for compressed v7 */
	uint64_t cut;		/* salvage: bytes of it past the end of the file */
};

/* A buffer's CPUs by id (tdat_cpu_index): an id and its place in the
 * buffer's table, ascending by id, then place. */
struct tdat_cpu_ix {
	uint32_t id, i;
};

/* Salvage (tdat_open_ex): a piece the tolerant open dropped. */
struct tdat_damage {
	int has_off;
	uint64_t off;
	char msg[256];
};

struct tdat_buffer {
	char *name;		/* "" for the top buffer */
	char *clock;
	uint32_t page_size;
	uint32_t ncpu;
	struct tdat_cpu *cpu;
	uint64_t opt_off;	/* the offset the BUFFER option names */
	int latency;		/* BUFFER_TEXT: latency text, no pages */
	int compressed;		/* flyrecord data in compressed chunks */
	int opt_index;		/* index of its BUFFER option, -1 for v6 top */
	uint64_t data_end;	/* v7: end of its flyrecord section */
};

struct tdat_format;
struct tdat_clock;

struct tdat_file {
	char *path;		/* as given; "-" for stdin */
	int fd;
	uint64_t fsize;
	int version;		/* 6 or 7 */
	int big;		/* file is big-endian */
	int lsize;		/* bytes in a long: 4 or 8 */
	uint32_t page_size;
	char *comp;		/* compression name ("none", "zstd"; v7) */

	struct tdat_blob hpage, hevent, kallsyms, printk, cmdlines;
	/* v7, trace-cmd 3.4: the modules section (/proc/modules of the
	 * recording machine, text); the BTF section (the kernel's
	 * /sys/kernel/btf/vmlinux), read only when asked (tdat_btf()) */
	struct tdat_blob modules;
	struct tdat_blob btf;
	/* reads the BTF section into btf (tdat_btf()), for the engine,
	 * which does not call into the formats: NULL when none can */
	int (*btf_load)(struct tdat_file *, struct tdat_err *);
	/* reads the kallsyms an open left loading (tdat_kallsyms_wait()),
	 * once: NULL when none are */
	int (*kallsyms_wait)(struct tdat_file *, struct tdat_err *);
	/* the symbol table of kallsyms, being built as they loaded
	 * (tdat_open_opts kallsyms_table; lib/event tdat_syms_build()):
	 * waited for and handed over, to the first event set to look a
	 * symbol up (NULL if it failed), once; NULL when none is */
	struct tdat_events *(*ksyms_late)(struct tdat_file *);
	uint32_t nftrace;
	struct tdat_blob *ftrace;
	uint32_t nsys;
	struct tdat_system *sys;
	/* chunks of memory the format files' blobs may share (arena set),
	 * freed by tdat_close(); the last has arena_used of arena_cap bytes
	 * taken */
	size_t narena, arena_used, arena_cap;
	unsigned char **arena_mem;

	uint32_t ncpus;		/* v6 CPU count, v7 CPUCOUNT */
	size_t nopt;
	struct tdat_option *opt;
	size_t noptv;
	struct tdat_optval *optv;	/* decoded options (tdat_options()) */
	size_t nopt_blobs;
	unsigned char **opt_blobs;	/* decompressed v7 options sections */

	size_t nbuf;
	struct tdat_buffer *buf;	/* buf[0] is the top buffer */
	int v6_options;		/* v6: the file has an options part */
	int latency;		/* v6 latency file: text after "latency  " */
	uint64_t latency_off;
	int has_clock_data;	/* v6: trace clock stored after flyrecord */
	char *clock_data;
	char *trace_clock;	/* the selected clock of TRACECLOCK, if any */

	/* Its format (struct tdat_format): NULL for one made by hand */
	const struct tdat_format *format;
	/* Where its pages come from (see "Page streams" below): the input
	 * format's page operations, never NULL for an open file. */
	const struct tdat_page_ops *page_ops;
	void *page_arg;		/* the format's state (trace.dat: its
				 * struct tdat_tracedat) */

	int salvage;		/* opened by tdat_open_ex() with salvage set */
	size_t ndamage;
	struct tdat_damage *damage;	/* what salvage dropped, in file order */
	uint64_t text_dropped;	/* salvage: damaged text lines dropped */
};

/* The BTF section's bytes in f->btf, read the first time: 1 when the file
 * has one, 0 when not, < 0 with *e filled when it does not read. */
int tdat_btf(struct tdat_file *f, struct tdat_err *e);

/* ---------------------------------------------------------------------
 * Page streams: where the ring-buffer pages of one CPU of one buffer come
 * from.  Each input format provides its page operations: trace.dat reads
 * flyrecord data, raw in windows or v7 chunks through lib/common/codec.c
 * (formats/tracedat/tracedat.c); an LTT directory builds pages from its tracefiles
 * (formats/ltt/ltt-tdat.c).  lib/read/pages.c walks any of them page by page, and
 * no other code reads flyrecord bytes.
 */
struct tdat_window {
	const unsigned char *p;	/* len bytes of whole pages ... */
	size_t len;
	size_t tail;		/* ... then tail more readable bytes (what
				 * follows in the file or chunk), which a
				 * record's fixed fields may run into */
	uint64_t off;		/* file offset of p[0]; a v7 chunk: of its
				 * header (then pages are named by off and
				 * their position in the chunk) */
	int chunk;		/* p is a decompressed chunk */
	uint32_t index;		/* chunk or window number, from 0 */
	/* When next() returns < 0: a short stable tag for the damage, or
	 * NULL (lib/read/pages.c zeroes *w before each call).  trace.dat gives
	 * "chunk" (a chunk runs past its CPU's data: reported once, then
	 * delivered by the next call; larger than 16 MiB; or unreadable)
	 * and "decompress" (its bytes do not decompress). */
	const char *fault;
};

struct tdat_page_ops {
	/* Open the stream of f->buf[buf].cpu[ci]; *total gets the bytes of
	 * pages it will deliver (uncompressed; an estimate for progress).
	 * trace.dat also opens ci 0 of a latency buffer (tdat_buffer.latency):
	 * its text, in windows of any length (not pages), tail 0. */
	int	(*open)(struct tdat_file *f, int buf, uint32_t ci, void **st,
		    uint64_t *total, struct tdat_err *e);
	/* The next window: 1 and *w (valid until the next call), 0 at the
	 * end, < 0 when a piece is damaged: the next call goes on after it
	 * (the next chunk) where it can, else returns 0. */
	int	(*next)(void *st, struct tdat_window *w, struct tdat_err *e);
	void	(*close)(void *st);
	/* Free f->page_arg (tdat_close()); NULL if nothing to free. */
	void	(*release)(struct tdat_file *f);
	/* Optional (NULL: the stream is only read in order).  The units a
	 * stream can be positioned at: its pages (raw data) or its chunks
	 * (compressed data); 0 when it cannot seek (latency text). */
	uint64_t (*units)(void *st);
	/* Make the next window start at unit u (< units()); with one set,
	 * that window holds unit u alone, as few bytes as the format can
	 * read (a probe), and the windows after it are as usual. */
	int	(*seek)(void *st, uint64_t u, int one, struct tdat_err *e);
	/*
	 * Optional (NULL: not offered), for a format whose windows lie in
	 * buffers or mappings of its own (lib/read/pages.c's tdat_pages_*
	 * of the same names say what each is for).  swap: exchange the
	 * buffer the stream's last window lies in (from its start) for *buf
	 * of *cap bytes, which the stream then owns and may free or grow:
	 * windows kept that way, uncopied.  codec: decompress the stream's
	 * chunks with c, not the file's codec.  map: map raw windows
	 * instead of reading them.  room: raw windows of room bytes (whole
	 * pages).  take: the mapping the last window lies in (1 and *base,
	 * *len), now the caller's to munmap(); 0 if it was read.
	 */
	void	(*swap)(void *st, unsigned char **buf, size_t *cap);
	void	(*codec)(void *st, struct tdat_codec *c);
	void	(*map)(void *st);
	void	(*room)(void *st, size_t room);
	int	(*take)(void *st, void **base, size_t *len);
	/* 1 when the streams of one file share no state: each may be read
	 * on a thread of its own (lib/read/pages.c's worker, tdat-verify's
	 * second thread). */
	int	parallel;
	/* 1 when each stream's records come in time order, as the ring
	 * buffer writes them: a selection's time range may skip pages
	 * before it and stop after it (an LTT directory's tracefiles are
	 * not known to be). */
	int	ordered;
	/* 1 when an uncompressed buffer's pages are read as they lie in the
	 * file, with no work to make them: a second CPU is left free to
	 * format (lib/merge/run.c's auto_threads()).  An LTT or CTF
	 * directory's pages are built from its events. */
	int	cheap;
};

/* b's CPUs sorted by id (lib/common/common.c): b->ncpu entries, to free(); NULL
 * when out of memory.  Sorted, not compared pair by pair: a hostile
 * table holds up to 2^20 CPUs. */
struct tdat_cpu_ix *tdat_cpu_index(const struct tdat_buffer *b);

/* The first buffer that holds a latency tracer's text, or -1 (lib/read/latency.c);
 * tdat_latency_top(): that buffer when it is the top one (v6's, or v7's
 * named ""), whose text trace-cmd report prints instead of records. */
int tdat_latency_buffer(const struct tdat_file *);
int tdat_latency_top(const struct tdat_file *);
/*
 * The text of buffer bi (a latency tracer's) line by line: fn gets each
 * line without its newline (newline 1), or a piece of max bytes of a
 * longer one, or the last line when no newline ends the text (newline 0).
 * A nonzero return of fn ends the walk when the window being read is
 * done (an output that failed).  0, or a negative code (*e filled).
 */
typedef int (*tdat_latency_line_fn)(void *arg, const char *p, size_t n,
    int newline);
int tdat_latency_lines(struct tdat_file *f, int bi, size_t max,
    tdat_latency_line_fn fn, void *arg, struct tdat_err *e);

/*
 * An input format, as the engine sees it (lib/read/source.c): each format
 * defines one (formats/tracedat/tracedat.c, formats/ltt/ltt-tdat.c) and
 * formats/list/formats.c hands the list of them to the engine.
 */
struct tdat_format {
	const char *name;
	/* 1 when the input at path is of this format (cheap: a look at a
	 * name or a few bytes); NULL: it takes anything (last in the list) */
	int	(*bid)(const char *path);
	/* tdat_open_ex() of an input of this format */
	int	(*open)(const char *path, const struct tdat_open_opts *o,
		    struct tdat_file **out, struct tdat_err *e);
	/* tdat_verify() of an input of this format; *st is zeroed */
	int	(*verify)(const char *path, const struct tdat_verify_opts *o,
		    struct tdat_verify_stats *st, struct tdat_err *e);
	/* Optional (NULL: none): how the times of f's records are moved
	 * onto its clock (trace.dat's OFFSET, TSC2NSEC, TIME_SHIFT), into
	 * *c, which the caller zeroed.  0, or < 0 with *e filled. */
	int	(*clock)(struct tdat_file *f, struct tdat_clock *c,
		    struct tdat_err *e);
	/* Optional (NULL: not known): where byte at of one of f's texts (b
	 * is &f->kallsyms, &f->printk or &f->cmdlines) lies in the file,
	 * *exact 1 when it is that byte's offset, 0 when the text is
	 * compressed (then the offset of its compressed data). */
	uint64_t (*text_where)(const struct tdat_file *f,
		    const struct tdat_blob *b, uint64_t at, int *exact);
};

/*
 * The adjustments of an input's record times (struct tdat_format's
 * clock): ns = ((raw, moved by shift) - tsc_offset) * tsc_mult >>
 * tsc_shift (when tsc_mult), + offset.
 */
/* A guest's clock (trace.dat's TIME_SHIFT option, decoded by its format):
 * per guest CPU, samples of the host clock's offset. */
struct tdat_ts_sample {
	int64_t time, offset, scaling;
	uint64_t frac;		/* fraction bits of scaling; 0 when absent */
};

struct tdat_ts_cpu {
	uint32_t n;		/* samples as stored */
	struct tdat_ts_sample *s;	/* n of them; NULL when broken */
};

struct tdat_time_shift {
	uint32_t head;		/* bytes of the 16-byte head present */
	uint64_t peer_id;	/* the peer's trace id (head >= 8) */
	uint32_t flags;		/* protocol flags (head == 16); bit 0:
				 * interpolate between samples */
	uint32_t ncpu;		/* CPU count as stored (head == 16) */
	int broken;		/* the counts and samples do not fit */
	uint32_t ncount;	/* CPUs whose count was read: ncpu unless
				 * broken, then up to the one that broke */
	struct tdat_ts_cpu *cpu;	/* ncount of them */
	uint64_t nsamples;	/* every CPU's samples, CPU after CPU (the */
	struct tdat_ts_sample *all;	/* cpu[].s point into it); 0 when broken */
	uint64_t nfrac;		/* fractions stored after the samples: the
				 * first nfrac samples (all CPUs in order)
				 * have theirs */
};

struct tdat_clock {
	int64_t offset;		/* added to every time */
	uint32_t tsc_mult;	/* cycles to nanoseconds; 0: none */
	uint32_t tsc_shift;
	uint64_t tsc_offset;
	/* a guest's offsets to its host's clock by time, per CPU (valid
	 * while f is open; tdat-opts.h); NULL: none */
	const struct tdat_time_shift *shift;
};
/* The formats tdat_open() and tdat_verify() choose from, in bidding order:
 * a NULL-terminated list that stays valid (tdat_formats_all() gives
 * formats/'s). */
void tdat_formats_set(const struct tdat_format *const *list);

/* Pages of one CPU of one buffer, from whatever format (lib/read/pages.c). */
struct tdat_pages;
struct tdat_page;
struct tdat_page_layout;
int tdat_pages_open(struct tdat_file *, int buf, uint32_t ci,
    struct tdat_pages **out, struct tdat_err *e);
/* The next page: 1 with pg->p, page_size, off and chunk_pos set (call
 * tdat_page_init() on it) and *avail bytes readable from pg->p (at least
 * page_size); 0 at the end; < 0 on a damaged piece (call again to go on
 * after it). */
int tdat_pages_next(struct tdat_pages *, struct tdat_page *pg,
    size_t *avail, struct tdat_err *e);
/* Whole windows instead of pages (what the writer copies); do not mix
 * with tdat_pages_next() on one stream. */
int tdat_pages_window(struct tdat_pages *, struct tdat_window *w,
    struct tdat_err *e);
uint64_t tdat_pages_total(const struct tdat_pages *);
/* After a < 0 return: the window's fault tag, or NULL. */
const char *tdat_pages_fault(const struct tdat_pages *);
/* Decompress the stream's chunks with c (a codec of the file's kind that
 * this thread alone uses: tdat-verify's second thread), not the file's
 * own, whose decompression state one thread at a time may use. */
void tdat_pages_codec(struct tdat_pages *, struct tdat_codec *c);
/* The bytes of raw pages a stream reads at once unless told otherwise. */
#define TDAT_PAGES_WINDOW	(256 * 1024)
/* Read the stream's raw pages in windows of room bytes (whole pages;
 * before the first window), mapped or not: a reader of many streams
 * keeps their windows' memory bounded this way. */
void tdat_pages_room(struct tdat_pages *, size_t room);
/* Map the stream's raw windows from the file rather than read them into
 * a buffer, where the format can (a trace.dat of uncompressed pages, a
 * regular file): no copy of a file in the page cache.  A window stays
 * mapped until the next one, as a read one stays in its buffer; at most
 * one window of the file is mapped at a time. */
void tdat_pages_map(struct tdat_pages *);
/*
 * Map them in windows of room bytes (whole pages; before the first
 * window) that the caller may keep: after tdat_pages_window(),
 * tdat_pages_take_map() hands it the mapping the window lies in (1, and
 * munmap(*base, *len) is then the caller's, whenever it likes), or says
 * the window was read instead (0: it lasts until the next call, as
 * usual).  Several windows can then be mapped at once.
 */
void tdat_pages_map_keep(struct tdat_pages *, size_t room);
int tdat_pages_take_map(struct tdat_pages *, void **base, size_t *len);
/*
 * Skip the pages whose records all come before ts: bisect the stream's
 * units (pages, or chunks: O(log n) reads or decompressions) by the time
 * stamps of their page headers, taken through conv(arg, raw) to the
 * records' clock, and make tdat_pages_next() start at the last page with
 * records whose stamp is below ts (the first page when none is).  This
 * holds as long as the stream's records are in time order, as the ring
 * buffer writes them.  A format without seek, damage met while probing,
 * or a stream already read: nothing is skipped.  0, or < 0 on no memory.
 */
int tdat_pages_seek_ts(struct tdat_pages *, const struct tdat_page_layout *pl,
    uint64_t (*conv)(void *arg, uint64_t raw), void *arg, uint64_t ts,
    struct tdat_err *e);
/* Hand out the n pages from page u0 alone (before the first window): a
 * stream of raw pages, whose units are its pages (tdat-verify's pieces
 * of a CPU).  0, or < 0 (TDAT_EUSAGE) when the stream cannot seek or has
 * no such pages. */
int tdat_pages_range(struct tdat_pages *, uint64_t u0, uint64_t n,
    struct tdat_err *e);
/* Windows fetched from the format so far (reads of raw pages, chunk
 * decompressions), probes included, and pages handed out. */
uint64_t tdat_pages_loads(const struct tdat_pages *);
uint64_t tdat_pages_handed(const struct tdat_pages *);
void tdat_pages_close(struct tdat_pages *);
/* A thread that reads (and decompresses) the next window of the streams
 * attached to it while their caller works on the current one; free it
 * after closing them.  tdat_pages_worker_new() returns 0 or TDAT_ENOMEM. */
struct tdat_pages_worker;
int tdat_pages_worker_new(struct tdat_pages_worker **out);
void tdat_pages_worker_free(struct tdat_pages_worker *);
/* Attach a stream not read yet: 1, or 0 when its format's streams share
 * state (it is then read on the caller's thread as before). */
int tdat_pages_async(struct tdat_pages *, struct tdat_pages_worker *);
/* Windows read ahead and not handed out yet (0 unless attached), and how
 * many times the callers woke the worker (it runs ahead by several
 * windows and is woken when a stream has used half of them). */
uint64_t tdat_pages_ahead(struct tdat_pages *);
uint64_t tdat_pages_worker_wakes(struct tdat_pages_worker *);


/* ---------------------------------------------------------------------
 * Records: ring-buffer pages decoded and merged into one time-ordered
 * stream over every CPU of every selected buffer (lib/read/records.c).
 */
struct tdat_record {
	uint64_t ts;		/* timestamp in ns after OFFSET/TSC2NSEC/TIME_SHIFT */
	uint64_t raw_ts;	/* timestamp as the ring buffer holds it */
	int cpu;		/* CPU id */
	int buffer;		/* index in tdat_file.buf */
	const unsigned char *data;	/* the event: starts with common_type */
	uint32_t size;		/* bytes of data */
	uint64_t off;		/* file offset of the record header (compressed
				 * data: offset of its chunk) */
	int missed;		/* set on the first record after lost events */
	long long missed_count;	/* how many were lost, when stored; -1 unknown */
	uint32_t avail;		/* bytes readable from data (>= size): the rest
				 * of its window and the window's tail; 0 when
				 * unknown (then size) */
};

/* The page layout of a file (lib/ring: tdat_ring_layout()). */
int tdat_page_layout(const struct tdat_file *, struct tdat_page_layout *,
    struct tdat_err *e);

/*
 * What a reader keeps, asked of whoever selects (lib/select gives it:
 * tdat_select_filter()); keep NULL: every record.  input is the reader's
 * file's index among the selection's inputs.
 */
struct tdat_reader_filter {
	void *arg;
	size_t input;
	/* 1 if record r is kept; asked once per record, in each CPU's time
	 * order */
	int (*keep)(void *arg, size_t input, const struct tdat_record *r);
	/* 0 if no record of buffer index buf, CPU cpu can be kept */
	int (*stream)(const void *arg, size_t input, int buf, uint32_t cpu);
	/* the time range kept: 1 when the reader may skip the pages before
	 * *since and end at the first record after *until */
	int (*range)(const void *arg, uint64_t *since, uint64_t *until);
};

struct tdat_reader_opts {
	const unsigned char *cpus;	/* cpus[i] != 0 selects CPU i; NULL all */
	int ncpus;
	int buffer;		/* buffer index, or -1 for every buffer */
	int no_offsets;		/* ignore OFFSET/TSC2NSEC/TIME_SHIFT */
	struct tdat_reader_filter filter;	/* only the records it keeps */
	int strict_time;	/* a record whose time goes back on its CPU
				 * (a damaged page) is an error: writers */
};

struct tdat_reader;
int tdat_reader_open(struct tdat_file *, const struct tdat_reader_opts *,
    struct tdat_reader **out, struct tdat_err *e);
/* 1 and *rec filled (valid until the next call), 0 at the end, < 0 error. */
int tdat_reader_next(struct tdat_reader *, struct tdat_record *rec,
    struct tdat_err *e);
/* The same, ignoring the selection (the driver, lib/merge/run.c, asks
 * tdat_reader_keeps() itself, so that a sink may peek ahead). */
int tdat_reader_next_all(struct tdat_reader *, struct tdat_record *rec,
    struct tdat_err *e);
/* How many times the next record was looked for over all the streams
 * (tdat_reader_next_all() skips that while the stream it handed out
 * last stays strictly first). */
uint64_t tdat_reader_scans(const struct tdat_reader *);
/* How many records were decoded by the general walk of a page (the
 * first of each page, and those after a padding or a time stamp, on a
 * big-endian page, or on a clock that scales); the others came by its
 * fast path. */
uint64_t tdat_reader_slow(const struct tdat_reader *);
/* What its streams read so far: windows fetched (tdat_pages_loads())
 * and pages decoded (tdat_pages_handed()), added up. */
void tdat_reader_counts(const struct tdat_reader *, uint64_t *loads,
    uint64_t *pages);
/* 1 if the reader's selection keeps rec (always without one). */
int tdat_reader_keeps(struct tdat_reader *, const struct tdat_record *);
/* 1 if rec is past the selection's --until: the streams are merged in
 * time order, so no record after it is kept either. */
int tdat_reader_past(const struct tdat_reader *, const struct tdat_record *);
void tdat_reader_close(struct tdat_reader *);

/* Progress through f's page data as records come (lib/common/progress.c): fn is
 * called every few thousand records with the bytes read so far over all
 * of them, and by _end(p, 1) with done == total.  fn NULL: nothing. */
struct tdat_read_progress {
	void (*fn)(void *arg, uint64_t done, uint64_t total);
	void *arg;
	uint64_t *read;		/* per buffer and CPU: bytes read */
	size_t *first;		/* per buffer: its first CPU in read */
	uint64_t done, total, count;
};
int tdat_read_progress_init(struct tdat_read_progress *,
    const struct tdat_file *f, void (*fn)(void *, uint64_t, uint64_t),
    void *arg);
void tdat_read_progress_note(struct tdat_read_progress *,
    const struct tdat_file *f, const struct tdat_record *r);
void tdat_read_progress_end(struct tdat_read_progress *, int complete);

#endif
