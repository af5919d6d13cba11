/*
 * tdat-ltt.h: LTT trace directories (formats/ltt*.c; the layout is in
 * ltt(5), the tool in tdat-to-ltt(1)).
 *
 * Writing: tdat_ltt_write() converts an open trace.dat into an LTT
 * directory (eventdefs/, info/, control/, cpu/), written into the
 * temporary directory that tdat_out_open_dir() makes beside the target
 * and tdat_out_commit() renames onto it.
 *
 * Reading: tdat_ltt_open() reads an LTT directory in either dialect and
 * gives its metadata as a struct tdat_file (the ftrace originals kept in
 * info/, or event formats synthesized from the eventdefs) and its events
 * as ring-buffer pages through a struct tdat_page_src.  tdat-cat turns a
 * directory back into a trace.dat with:
 *
 *	struct tdat_ltt *l;
 *	struct tdat_write_opts wo = { .version = 7, .compression = "zstd" };
 *
 *	if (tdat_ltt_probe(path)) {
 *		if (tdat_ltt_open(path, &l, &e) < 0)
 *			return tdat_report_err(path, &e);
 *		wo.pages = tdat_ltt_pages(l);
 *		rc = tdat_write(tdat_ltt_file(l), fd, &wo, &e);
 *		tdat_ltt_close(l);
 *	}
 *
 * The struct tdat_file belongs to the handle: do not tdat_close() it.
 * A tool that selects or merges records takes the directory as a whole
 * trace.dat instead (built in memory, so for traces of moderate size):
 *
 *	if (tdat_ltt_probe(path))
 *		rc = tdat_ltt_open_tdat(path, &f, &e);
 *	else
 *		rc = tdat_open(path, &f, &e);
 *
 * Checking: tdat_ltt_verify() walks a directory and reports every
 * finding through a callback; it stops only on I/O errors.
 */
#ifndef TDAT_LTT_H
#define TDAT_LTT_H

#include <stddef.h>
#include <stdint.h>

struct tdat_file;
struct tdat_err;
struct tdat_page_src;
struct tdat_record;
struct tdat_select;

/* Dialects: the XML of the document, or what LTTV's readers accept. */
enum {
	TDAT_LTT_XML = 0,
	TDAT_LTT_LTTV2003 = 2003,	/* trailer: block_size - block_end offset */
	TDAT_LTT_LTTV2005 = 2005,	/* trailer: unused bytes before it */
};

#define TDAT_LTT_BLOCK_SIZE	65536u

struct tdat_ltt_bookmark {
	const char *name;
	uint64_t start, end;	/* ns; end == start for a point */
};

struct tdat_ltt_write_opts {
	int dialect;			/* TDAT_LTT_* */
	uint32_t block_size;		/* 0: TDAT_LTT_BLOCK_SIZE */
	const struct tdat_ltt_bookmark *bookmark;
	size_t nbookmark;
	struct tdat_select *sel;	/* the events to convert; NULL all */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
	/* Filled on return: what was written. */
	uint64_t events, blocks, skipped;
};

/* Convert f into the LTT directory dir, an empty directory (the
 * temporary of tdat_out_open_dir(), which renames it when complete and
 * removes it on failure).  Messages name files from dir ("cpu/cpu_0"). */
int tdat_ltt_write(struct tdat_file *f, const char *dir,
    struct tdat_ltt_write_opts *o, struct tdat_err *e);

/* 1 if path is a directory holding info/system.xml, else 0. */
int tdat_ltt_probe(const char *path);

struct tdat_ltt;
int tdat_ltt_open(const char *dir, struct tdat_ltt **out, struct tdat_err *e);
/* The directory's metadata, laid out as a trace.dat's. */
struct tdat_file *tdat_ltt_file(struct tdat_ltt *);
/* The events of each buffer and CPU as ring-buffer pages (tdat_write()). */
const struct tdat_page_src *tdat_ltt_pages(struct tdat_ltt *);
/* The whole directory as an open trace.dat: what tools that filter,
 * merge or check records use.  Close it with tdat_close().  Built in
 * memory (version 7, uncompressed) until LTT_OPEN_STREAM in
 * formats/ltt-tdat.c is 1; then tdat_ltt_open_stream(). */
int tdat_ltt_open_tdat(const char *dir, struct tdat_file **out,
    struct tdat_err *e);
/* The directory as an open struct tdat_file whose pages come from its
 * tracefiles through page operations (f->page_ops): no copy of the trace
 * is made, and each open CPU stream holds one LTT block and one window of
 * pages.  Close it with tdat_close(). */
int tdat_ltt_open_stream(const char *dir, struct tdat_file **out,
    struct tdat_err *e);
/* The dialect read: TDAT_LTT_XML, or TDAT_LTT_LTTV2003/2005. */
int tdat_ltt_dialect(const struct tdat_ltt *);
void tdat_ltt_close(struct tdat_ltt *);

/* A finding of tdat_ltt_verify(): file relative to the directory, block
 * number (-1 if none) and byte offset in the file (-1 if none). */
typedef void (*tdat_ltt_finding_fn)(void *arg, const char *file,
    long long block, long long off, const char *msg);

/* Check dir: XML well-formed and valid (or LTTV's dialect), tracefiles
 * a whole number of blocks, block_start, block_end and trailers
 * consistent, event ids defined, payloads inside their block, time
 * non-decreasing.  Returns the number of findings (0: sound) or a
 * negative code on an I/O error. */
int tdat_ltt_verify(const char *dir, tdat_ltt_finding_fn fn, void *arg,
    struct tdat_err *e);

#endif
