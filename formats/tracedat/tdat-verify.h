/*
 * tdat-verify.h: trace.dat's checker behind tdat-verify
 * (formats/tracedat/tracedat-verify.c: the container; the rest lib/check's,
 * tdat-check.h, its page and record rules lib/ring's, tdat-ring.h) and
 * what it asks of the salvage walk (tracedat-salvage.c).
 */
#ifndef TDAT_VERIFY_H
#define TDAT_VERIFY_H

#include <stdint.h>

struct tdat_err;
struct tdat_file;

/* tdat_verify() of a trace.dat file or "-" (trace.dat's format
 * descriptor, formats/tracedat/tracedat.c). */
int tdat_tracedat_verify(const char *path, const struct tdat_verify_opts *,
    struct tdat_verify_stats *st, struct tdat_err *e);
/* The same on a file already open (the fuzzers use it). */
int tdat_verify_file(struct tdat_file *, const struct tdat_verify_opts *,
    struct tdat_verify_stats *st, struct tdat_err *e);

/* What tdat-cat --salvage would keep of the file at path: the salvage
 * part of *st (tdat_verify_stats.salvage and what follows it). */
void tdat_salvage_count(const char *path, struct tdat_verify_stats *st);

#endif
