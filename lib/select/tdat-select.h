/*
 * tdat-select.h: which records a tool keeps (lib/select/select.c), the pages
 * that hold exactly those (lib/merge/repack.c), and the selection options
 * every tool that reads events shares (lib/cli/cli-select.c, tdat-select(7)).
 *
 * A selection is a predicate on the records of one or more inputs:
 * event name globs (-e), kernel filter expressions (-F), pids and comms,
 * -v inverting those; then CPUs, a time range and a buffer.  The record
 * stream applies it (struct tdat_reader_opts.sel), so a sink only sees
 * the records it keeps.
 */
#ifndef TDAT_SELECT_H
#define TDAT_SELECT_H

#include <stddef.h>
#include <stdint.h>

struct tdat_file;
struct tdat_err;
struct tdat_record;
struct tdat_cli_opt;


struct tdat_select;
/*
 * Resolve the events of the n inputs and compile the filters.  Several
 * inputs must share their event formats (the first conflicting event is
 * named).  A bad -F sets *bad_filter to its index, e->off to the byte of
 * the fault in it and e->msg to the reason; otherwise *bad_filter is -1.
 * Relative times are resolved from the first event of all inputs.
 */
int tdat_select_open(struct tdat_file *const *files, size_t n,
    const struct tdat_select_opts *o, struct tdat_select **out,
    int *bad_filter, struct tdat_err *e);
const struct tdat_select_opts *tdat_select_options(const struct tdat_select *);
/* 1 if record r of input k (index in files) is kept, else 0.  Ask once
 * per record, in each CPU's time order: whether a stack trace is kept
 * depends on what was kept before it on its CPU. */
int tdat_select_keep(struct tdat_select *, size_t k,
    const struct tdat_record *r);
/* 0 if no record of buffer index buf, CPU cpu of input k can be kept. */
int tdat_select_stream(const struct tdat_select *, size_t k, int buf,
    uint32_t cpu);
/* The time range kept (--since, --until; 0 and UINT64_MAX without them):
 * 1 when a reader may skip the pages before *since and end at the first
 * record after *until, 0 when it must decode every record. */
int tdat_select_range(const struct tdat_select *, uint64_t *since,
    uint64_t *until);
/* The selection as a reader's filter for input k (NULL: keep all). */
void tdat_select_filter(struct tdat_select *, size_t k,
    struct tdat_reader_filter *out);


/* ---------------------------------------------------------------------
 * Repacking (lib/merge/repack.c): the kept records of one or more inputs,
 * merged in time order, packed into new ring-buffer pages.
 */


#endif
