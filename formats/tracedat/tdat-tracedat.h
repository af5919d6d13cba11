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

/* 1 when f is a trace.dat file (not another format's input). */
static inline int
tdat_is_tracedat(const struct tdat_file *f)
{
	return f->page_ops == &tdat_tracedat_pages;
}

#endif
