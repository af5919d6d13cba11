/*
 * tdat-write.h: writing trace.dat v6 and v7 (formats/tracedat/tracedat-write.c),
 * laid out as trace-cmd 3.x writes them (trace-cmd.dat.v6(5),
 * trace-cmd.dat.v7(5)).
 *
 * tdat_write() copies every piece of metadata, every option and every
 * buffer instance of an open trace into a new file, converting between
 * versions and compressions.  Ring-buffer pages are streamed CPU by CPU
 * in bounded windows: memory stays a few MiB whatever the trace size.
 *
 * A caller that rebuilds the pages itself (filters, merges) passes a
 * page source: the writer asks it for each CPU's pages in turn.
 *
 * Output files go through struct tdat_out (tdat-output.h): tdat_write()
 * takes tdat_out_fd() of a binary output.
 */
#ifndef TDAT_WRITE_H
#define TDAT_WRITE_H

#include <stddef.h>
#include <stdint.h>

struct tdat_file;
struct tdat_err;
struct tdat_page;


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
