/*
 * tdat-tracedat.h: the trace.dat format (formats/tracedat/tracedat.c), for
 * the formats that read its structure (formats/text/dump.c and report.c,
 * formats/json/json-meta.c, the writer); the engine sees a trace.dat only
 * through its format descriptor and page operations (lib/tdat-int.h).
 */
#ifndef TDAT_TRACEDAT_H
#define TDAT_TRACEDAT_H

#include "tdat-int.h"

/* Open a trace.dat file or standard input ("-"), whatever the path;
 * tdat_open() chooses the format first. */
int tdat_tracedat_open(const char *path, const struct tdat_open_opts *o,
    struct tdat_file **out, struct tdat_err *e);

/* The trace.dat format (lib/read/source.c, listed last in
 * formats/list/formats.c: it takes any path, "-" included). */
extern const struct tdat_format tdat_tracedat_format;

/* The trace.dat page operations: f->page_ops of an open trace.dat. */
extern const struct tdat_page_ops tdat_tracedat_pages;

/*
 * Where byte at of one of f's texts lies in the file: *exact 1 when it is
 * that byte's offset, 0 when the text is compressed (then the offset of
 * its section's compressed data).  b is &f->kallsyms, &f->printk or
 * &f->cmdlines (the format's text_where).
 */
uint64_t tdat_text_where(const struct tdat_file *f, const struct tdat_blob *b,
    uint64_t at, int *exact);
/* OFFSET (added up), TSC2NSEC (the last whole one) and TIME_SHIFT (the
 * first whole one) of f's options (the format's clock). */
int tdat_tracedat_clock(struct tdat_file *f, struct tdat_clock *c,
    struct tdat_err *e);

/* 1 when f is a trace.dat file (not another format's input). */
static inline int
tdat_is_tracedat(const struct tdat_file *f)
{
	return f->page_ops == &tdat_tracedat_pages;
}

#endif
