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
 * info/, or event formats synthesized from the eventdefs); its page
 * operations (struct tdat_page_ops) build ring-buffer pages from each
 * CPU's tracefile as the page iterator asks for them, one LTT block and
 * one window of pages per open CPU.  Tools open a directory with
 * tdat_ltt_open_tdat() (tdat.h) and read it like any trace.dat.
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
struct tdat_verify_opts;
struct tdat_verify_stats;
struct tdat_format;

/* The LTT format (lib/read/source.c, listed in formats/list/formats.c):
 * it bids on a directory holding info/system.xml, not on "-". */
extern const struct tdat_format tdat_ltt_format;

/* 1 if path is a directory holding info/system.xml, else 0. */
int tdat_ltt_probe(const char *path);

/* The directory as an open trace.dat whose pages stream from its
 * tracefiles (no copy of the trace is made).  Close it with tdat_close(). */
int tdat_ltt_open_tdat(const char *dir, struct tdat_file **out,
    struct tdat_err *e);

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

/* tdat_verify() of an LTT directory: tdat_ltt_verify()'s findings as
 * struct tdat_finding (kind "ltt", the file named), every one with
 * keep_going, else the first. */
int tdat_ltt_verify_input(const char *dir, const struct tdat_verify_opts *,
    struct tdat_verify_stats *st, struct tdat_err *e);

struct tdat_ltt;
int tdat_ltt_open(const char *dir, struct tdat_ltt **out, struct tdat_err *e);
/* The directory's metadata, laid out as a trace.dat's. */
struct tdat_file *tdat_ltt_file(struct tdat_ltt *);
/* The events of one buffer and CPU at a time as ring-buffer pages, for
 * tdat_write() (the unit tests' reference for the page operations). */
const struct tdat_page_src *tdat_ltt_pages(struct tdat_ltt *);
/* The directory as an open struct tdat_file whose pages come from its
 * tracefiles through page operations (f->page_ops): no copy of the trace
 * is made, and each open CPU stream holds one LTT block and one window of
 * pages.  Close it with tdat_close(). */
int tdat_ltt_open_stream(const char *dir, struct tdat_file **out,
    struct tdat_err *e);
/* The dialect read: TDAT_LTT_XML, or TDAT_LTT_LTTV2003/2005. */
int tdat_ltt_dialect(const struct tdat_ltt *);
void tdat_ltt_close(struct tdat_ltt *);


#endif
