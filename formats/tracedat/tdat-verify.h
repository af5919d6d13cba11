/*
 * tdat-verify.h: trace.dat's checker behind tdat-verify
 * (formats/tracedat/tracedat-verify.c: the container; the rest lib/check's,
 * tdat-check.h, its page and record rules lib/ring's, tdat-ring.h).
 */
#ifndef TDAT_VERIFY_H
#define TDAT_VERIFY_H

#include <stdint.h>

struct tdat_err;
struct tdat_file;

/* tdat_verify() of a trace.dat file or "-" (lib/read/source.c calls it). */
int tdat_tracedat_verify(const char *path, const struct tdat_verify_opts *,
    struct tdat_verify_stats *st, struct tdat_err *e);
/* The same on a file already open (the fuzzers use it). */
int tdat_verify_file(struct tdat_file *, const struct tdat_verify_opts *,
    struct tdat_verify_stats *st, struct tdat_err *e);

#endif
