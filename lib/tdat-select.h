/*
 * tdat-select.h: which records a tool keeps (lib/select.c), the pages
 * that hold exactly those (lib/repack.c), and the selection options
 * every tool that reads events shares (lib/cli-select.c, tdat-select(7)).
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

struct tdat_select_opts {
	const char *const *events;	/* -e [SYSTEM:]EVENT globs */
	size_t nevents;
	const char *const *filters;	/* -F "EVENTS: EXPRESSION" */
	size_t nfilters;
	const int *pids;		/* common_pid in this list */
	size_t npids;
	const char *const *comms;	/* comm (from cmdlines) globs */
	size_t ncomms;
	int invert;			/* keep what the above do not choose */
	const unsigned char *cpus;	/* cpus[i] != 0 keeps CPU i; NULL all */
	int ncpus;
	int has_since, since_rel;	/* ts >= since (+ first event's ts) */
	int has_until, until_rel;	/* ts <= until (+ first event's ts) */
	uint64_t since, until;
	const char *buffer;		/* only this buffer; NULL every one */
};

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
void tdat_select_close(struct tdat_select *);
const struct tdat_select_opts *tdat_select_options(const struct tdat_select *);
/* 1 if record r of input k (index in files) is kept, else 0.  Ask once
 * per record, in each CPU's time order: whether a stack trace is kept
 * depends on what was kept before it on its CPU. */
int tdat_select_keep(struct tdat_select *, size_t k,
    const struct tdat_record *r);
/* 0 if no record of buffer index buf, CPU cpu of input k can be kept. */
int tdat_select_stream(const struct tdat_select *, size_t k, int buf,
    uint32_t cpu);

/* Parse a time: seconds ("2", "1.5") or with a unit (s, ms, us, ns:
 * "1500ms"); "+" makes it relative.  0, or -1 if malformed. */
int tdat_parse_time(const char *s, uint64_t *ns, int *rel);

/* ---------------------------------------------------------------------
 * Repacking (lib/repack.c): the kept records of one or more inputs,
 * merged in time order, packed into new ring-buffer pages.
 */
struct tdat_repack;
int tdat_repack_open(struct tdat_file *const *files, size_t n,
    struct tdat_select *sel, struct tdat_repack **out,
    struct tdat_err *e);
/* The page source to pass to tdat_write() with files[0]. */
const struct tdat_page_src *tdat_repack_pages(struct tdat_repack *);
void tdat_repack_close(struct tdat_repack *);

/* ---------------------------------------------------------------------
 * The selection options of bin/ (lib/cli-select.c).  A tool puts
 * TDAT_SELECT_CLI_OPTS in its option table and hands every option to
 * tdat_select_arg() first:
 *
 *	static const struct tdat_cli_opt opts[] = {
 *		{ 'o', "output", 1, "FILE", "write to FILE" },
 *		TDAT_SELECT_CLI_OPTS,
 *		{ 0 }
 *	};
 *	...
 *	while ((c = tdat_getopt(argc, argv, &cli)) != -1) {
 *		if (tdat_select_arg(&sa, c, optarg))
 *			continue;
 *		switch (c) { ... }
 *	}
 */
enum {
	TDAT_SEL_PID = 0x1000, TDAT_SEL_COMM, TDAT_SEL_CPU, TDAT_SEL_SINCE,
	TDAT_SEL_UNTIL, TDAT_SEL_BUFFER
};

#define TDAT_SELECT_CLI_OPTS \
	{ 'e', "event", 1, "[SYS:]EVENT", "keep these events (globs)" }, \
	{ 'F', "filter", 1, "'EVENTS: EXPR'", \
	    "keep events matching a kernel filter" }, \
	{ TDAT_SEL_PID, "pid", 1, "LIST", "keep events of these pids (1,2)" }, \
	{ TDAT_SEL_COMM, "comm", 1, "GLOB", "keep events of these commands" }, \
	{ 'v', "invert", 0, NULL, "drop what -e -F --pid --comm keep" }, \
	{ TDAT_SEL_CPU, "cpu", 1, "LIST", "only these CPUs (0,2-3)" }, \
	{ TDAT_SEL_SINCE, "since", 1, "TIME", "only events at or after TIME" }, \
	{ TDAT_SEL_UNTIL, "until", 1, "TIME", "only events at or before TIME" }, \
	{ TDAT_SEL_BUFFER, "buffer", 1, "NAME", \
	    "only this buffer (\"\" the top one)" }

/* What the selection options gave; zero it before use. */
struct tdat_select_args {
	struct tdat_select_opts o;
	int given;		/* some selection option was given */
	const char **events, **filters, **comms;
	int *pids;
	unsigned char *cpus;
};
/* 1 if c is a selection option (now recorded), else 0; exits 2 on a bad
 * argument. */
int tdat_select_arg(struct tdat_select_args *, int c, const char *arg);
/* Open the selection of the n inputs; on failure print the message (a
 * bad -F with a caret under the fault) and return the exit status. */
int tdat_select_cli_open(const struct tdat_select_args *,
    struct tdat_file *const *files, size_t n, struct tdat_select **out);
void tdat_select_args_free(struct tdat_select_args *);

#endif
