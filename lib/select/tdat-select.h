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


/* ---------------------------------------------------------------------
 * Event filters (lib/select/filter.c): the kernel's event-filter language,
 *	[SYSTEM:]EVENT[,...]: FIELD OP VALUE [&& || ! ( ) ...]
 * with == != < <= > >= & on numbers and == != ~ (glob) on strings.
 * Field names are resolved by the caller, values fetched by the caller.
 */
enum { TDAT_FIELD_NUM, TDAT_FIELD_SIGNED, TDAT_FIELD_STR };

struct tdat_fval {
	uint64_t num;		/* numbers (signed ones sign-extended) */
	const char *str;	/* strings: len bytes, NUL-padded or not */
	size_t len;
};

/* Resolve a field name: an id >= 0 with its TDAT_FIELD_* kind, or -1. */
typedef int (*tdat_field_lookup)(void *arg, const char *name, int *kind);
/* The value of field id in the current record: 0, or -1 if it has none. */
typedef int (*tdat_field_get)(void *arg, int id, struct tdat_fval *v);

struct tdat_filter;
struct tdat_sbuf;
/* Parse an expression.  On error e->off is the byte position of the
 * fault in expr and e->msg the reason ("Field not found"). */
int tdat_filter_parse(const char *expr, tdat_field_lookup lookup, void *arg,
    struct tdat_filter **out, struct tdat_err *e);
/* 1 if the current record matches, else 0. */
int tdat_filter_match(const struct tdat_filter *, tdat_field_get get,
    void *arg);
void tdat_filter_free(struct tdat_filter *);
/* Split "EVENTS: EXPRESSION": *events gets a copy of EVENTS (NULL when
 * there is none: every event); returns where the expression starts. */
size_t tdat_filter_split(const char *arg, char **events);
/* Append two lines to sb: indent + text, and indent + a caret under
 * byte pos of text. */
void tdat_filter_caret(struct tdat_sbuf *sb, const char *text, size_t pos,
    const char *indent);

#endif
