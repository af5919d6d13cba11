/*
 * tdat.h: the public interface of libtdat, what the tools in bin/ use.
 * Handles are opaque; the engine behind them (input formats, the page
 * iterator, the record stream, selection, sinks) is declared in
 * tdat-int.h.  Library functions return 0 or a negative TDAT_E* code
 * with a struct tdat_err filled; they never print or exit (lib/cli/cli.c,
 * for bin/, does).
 */
#ifndef TDAT_H
#define TDAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Error codes: library functions return 0 or one of these (negative). */
enum {
	TDAT_OK = 0,
	TDAT_ECORRUPT = -1,	/* the data is damaged: exit 1 */
	TDAT_EIO = -2,		/* a system or I/O error: exit 2 */
	TDAT_ENOMEM = -3,	/* out of memory: exit 2 */
	TDAT_EUSAGE = -4,	/* bad argument: exit 2 */
	TDAT_EUNSUP = -5,	/* valid but not supported: exit 1 */
};

/* Where and why something failed; filled by the library, printed by bin/. */
struct tdat_err {
	int code;
	int has_off;
	uint64_t off;
	int named;	/* msg begins with the input it is about: one of
			 * several (tdat_err_name()); tdat_report_err()
			 * names no other file then */
	char msg[256];
};

int tdat_exit_status(int code);

/* ---------------------------------------------------------------------
 * Inputs: a trace.dat v6/v7 file, standard input ("-"), or an LTT trace
 * directory (tdat_ltt_open_tdat()).
 */
struct tdat_file;
/* Make every input format of formats/ known to tdat_open() and
 * tdat_verify() (formats/list/formats.c): the first call of a program,
 * before any input is opened. */
void tdat_formats_all(void);
/* Open an input of whatever format it is (lib/read/source.c): an LTT trace
 * directory, a trace.dat file, or standard input ("-", spooled to a
 * temporary file).  On failure returns a negative code with *e filled;
 * *out is NULL. */
int tdat_open(const char *path, struct tdat_file **out, struct tdat_err *e);
void tdat_close(struct tdat_file *);
/*
 * Open with options.  salvage: a tolerant open for damaged or truncated
 * files: CPU data running past the end of the file is clamped to the
 * whole pages in it, damaged optional pieces (kallsyms, printk formats,
 * cmdlines, options sections, buffers whose data is gone, chunk tables
 * cut short) are dropped and listed for the salvage report; the headers
 * and event formats must still be intact.
 */
struct tdat_open_opts {
	int salvage;
	/* a trace.dat v7's large compressed kallsyms are left loading on
	 * a thread of their own: the file holds none until
	 * tdat_kallsyms_wait() (tdat-cat, whose writer copies them as they
	 * are); an error of the open after them is theirs if they have
	 * one, as when they are read in their turn */
	int kallsyms_later;
	/* the same kallsyms' symbol table built on their thread too, once
	 * their text is handed over (tdat-dump --records, tdat-to-json,
	 * tdat-to-table: a function trace looks a symbol up in its first
	 * record, and the table took the opening thread 5 ms); the first
	 * event set to look a symbol up takes it, waiting for it then, and
	 * a close before that stops its build */
	int kallsyms_table;
};
int tdat_open_ex(const char *path, const struct tdat_open_opts *o,
    struct tdat_file **out, struct tdat_err *e);
/* The kallsyms left loading (kallsyms_later) read into the file, with
 * the open's checks and messages: 0, or the error the open would have
 * ended with.  0 at once when none are left, or after the first call. */
int tdat_kallsyms_wait(struct tdat_file *f, struct tdat_err *e);
/* The path as given ("-" for stdin), and the input's size in bytes. */
const char *tdat_file_path(const struct tdat_file *);
uint64_t tdat_file_size(const struct tdat_file *);

/* ---------------------------------------------------------------------
 * The structure of a trace.dat (tdat-dump, formats/text/dump.c): what to show.
 */
enum {
	TDAT_DUMP_SUMMARY = 1 << 0, TDAT_DUMP_HEAD_PAGE = 1 << 1,
	TDAT_DUMP_HEAD_EVENT = 1 << 2, TDAT_DUMP_FTRACE = 1 << 3,
	TDAT_DUMP_SYSTEMS = 1 << 4, TDAT_DUMP_EVENTS = 1 << 5,
	TDAT_DUMP_KALLSYMS = 1 << 6, TDAT_DUMP_PRINTK = 1 << 7,
	TDAT_DUMP_CMDLINES = 1 << 8, TDAT_DUMP_OPTIONS = 1 << 9,
	TDAT_DUMP_FLYRECORD = 1 << 10, TDAT_DUMP_CLOCK = 1 << 11,
	TDAT_DUMP_SECTIONS = 1 << 12, TDAT_DUMP_STRINGS = 1 << 13,
	TDAT_DUMP_MODULES = 1 << 14,
	TDAT_DUMP_ALL = 0x7fff,
};
/* Print the structure in trace-cmd dump's layout. */
int tdat_dump(struct tdat_file *, FILE *out, unsigned what, struct tdat_err *e);
/* Print a short summary (tdat-dump's default). */
int tdat_dump_summary(struct tdat_file *, FILE *out, struct tdat_err *e);
/* Print per buffer and CPU: offset, size, chunks and pages. */
int tdat_dump_flyrecord(struct tdat_file *, FILE *out, struct tdat_err *e);

/* ---------------------------------------------------------------------
 * Selection (lib/select/select.c, lib/cli/cli-select.c; tdat-select(7)): which
 * records every tool that reads events keeps.
 */
struct tdat_select;
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
	int full_decode;		/* decode every event outside the time
					 * range too (no seek, no early end) */
	int separate;			/* the inputs are read side by side,
					 * not merged into one trace: their
					 * event formats may differ */
};

void tdat_select_close(struct tdat_select *);

/* Parse a time: seconds ("2", "1.5") or with a unit (s, ms, us, ns:
 * "1500ms"); "+" makes it relative.  0, or -1 if malformed. */
int tdat_parse_time(const char *s, uint64_t *ns, int *rel);

/* ---------------------------------------------------------------------
 * The selection options of bin/ (lib/cli/cli-select.c).  A tool puts
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
/* The inputs of a tool that reads several side by side, as trace-cmd
 * report -i A -i B does (tdat-dump --records, tdat-to-json,
 * tdat-to-table): their formats may differ. */
struct tdat_cli_inputs {
	struct tdat_file **files;
	size_t n;
	struct tdat_select *sel;	/* NULL: no selection given */
	uint64_t size;			/* the inputs' bytes, for progress */
};
/* Open the n paths and the selection sa gives over them; 0, or the exit
 * status after the message (nothing is left open then). */
int tdat_cli_inputs_open(char *const *paths, size_t n,
    struct tdat_select_args *sa, struct tdat_cli_inputs *in);
/* The same with the open's options (oo NULL: none).  Inputs opened with
 * kallsyms_later keep them loading until tdat_run() (lib/merge/run.c)
 * has opened the readers, or a failure before then reports them first. */
int tdat_cli_inputs_open_ex(char *const *paths, size_t n,
    struct tdat_select_args *sa, const struct tdat_open_opts *oo,
    struct tdat_cli_inputs *in);
void tdat_cli_inputs_close(struct tdat_cli_inputs *in);

/* ---------------------------------------------------------------------
 * Sinks.  Text, as trace-cmd report prints it (formats/text/report.c).
 */
/* Printing records as trace-cmd report does (tdat-dump --records). */
enum { TDAT_RECORDS_PLUGINS, TDAT_RECORDS_PRINT, TDAT_RECORDS_RAW };
struct tdat_records_opts {
	int mode;		/* TDAT_RECORDS_*: report, report -N, report -R */
	int full_ts;		/* -t: full nanosecond timestamps */
	struct tdat_select *sel;	/* the records to print; NULL all */
	int tc;			/* as trace-cmd TDAT_TC_31 (0), _33 or _34
				 * with its libtraceevent prints it */
	int lat;		/* -l: the latency layout (3.3 and 3.4) */
	unsigned fgraph;	/* -O fgraph:OPTION: TDAT_FGRAPH_* */
};
/* The trace-cmd versions whose report output tdat can print. */
enum { TDAT_TC_31 = 0, TDAT_TC_33 = 33, TDAT_TC_34 = 34 };
/* trace-cmd report -O fgraph:OPTION (the retval ones since 3.3). */
enum {
	TDAT_FGRAPH_TAIL = 1 << 0,	/* tailprint: the function after "}" */
	TDAT_FGRAPH_DEPTH = 1 << 1,	/* depth: " (depth)" */
	TDAT_FGRAPH_RETVAL_SKIP = 1 << 2,	/* no return values */
	TDAT_FGRAPH_RETVAL_DEC = 1 << 3,	/* in decimal */
	TDAT_FGRAPH_RETVAL_HEX = 1 << 4,	/* in hex */
};
int tdat_print_records(struct tdat_file *, FILE *out,
    const struct tdat_records_opts *, struct tdat_err *e);
/* Several inputs merged by time, as trace-cmd report -i A -i B prints
 * them (each line prefixed with its file's base name; a guest's times on
 * its host's clock).  With a selection, it is opened over the same
 * inputs with separate set (tdat_select_opts). */
int tdat_print_records_n(struct tdat_file *const *files, size_t n,
    FILE *out, const struct tdat_records_opts *, struct tdat_err *e);

/* JSON (lib/json*.c; tdat-to-json(1), schemas/). */
struct json_object;
enum { TDAT_JSON_LINES, TDAT_JSON_META, TDAT_JSON_CHROME };

struct tdat_json_opts {
	int mode;		/* TDAT_JSON_* */
	struct tdat_select *sel;	/* the events to write; NULL all */
	int pretty;		/* indent the --meta document */
	/* Events: called as records are written (tdat_read_progress). */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
};

/* Write f to out in the chosen shape; 0 or a negative TDAT_E* code. */
int tdat_json_write(struct tdat_file *f, FILE *out,
    const struct tdat_json_opts *o, struct tdat_err *e);
/* The events of n inputs as one JSON Lines stream merged by time (each
 * event with the "file" it comes from; a guest's times on its host's
 * clock); --meta and --chrome take one input.  A selection is opened
 * over the same inputs with separate set (tdat_select_opts). */
int tdat_json_write_n(struct tdat_file *const *files, size_t n, FILE *out,
    const struct tdat_json_opts *o, struct tdat_err *e);

/* The JSON rules of every JSON output as json-c objects (lib/common/jsonc.c):
 * a json-c string holding s[0..n) made valid UTF-8 (NULL: no memory). */
struct json_object *tdat_json_string(const void *s, size_t n);
/* A json-c integer as every JSON output writes one: a number when its
 * magnitude is at most 2^53 - 1, else a string of its decimal digits
 * (NULL: no memory). */
struct json_object *tdat_json_u64(uint64_t v);

/* trace.dat v6/v7 (formats/tracedat/tracedat-write.c); a selection or a merge of several
 * inputs rebuilds the pages (lib/merge/repack.c). */
struct tdat_err;
/*
 * A page source: for buffer index buf (in tdat_file.buf) and CPU id cpu,
 * fill dst (cap bytes, a whole number of pages) with the next pages and
 * set *got (0 at the end of that CPU).  Returns 0 or a negative code.
 * total() gives the uncompressed bytes a CPU will deliver, or 0 if none.
 */
struct tdat_page_src {
	void *arg;
	int (*begin)(void *arg, int buf, uint32_t cpu, uint64_t *total,
	    struct tdat_err *e);
	int (*read)(void *arg, unsigned char *dst, size_t cap, size_t *got,
	    struct tdat_err *e);
};

struct tdat_write_opts {
	int version;			/* 6 or 7 */
	const char *compression;	/* "none" (or NULL), "zlib", "zstd" */
	const struct tdat_page_src *pages;	/* NULL: copy the input's */
	/* Called as page data is written; total may grow. */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
	/* Map the input's raw pages rather than read them (no copy): the
	 * caller handles SIGBUS, which an input cut short under the writer
	 * raises; on any thread, so none may block it. */
	int map;
	/* The CPUs with data the output will have (a merge's, of all its
	 * inputs: tdat_write_streams() of each, summed); 0: f's.  The
	 * pages in a chunk follow from it. */
	uint64_t streams;
};

/* Write f as a new trace.dat on fd, which must be seekable and empty. */
int tdat_write(struct tdat_file *f, int fd, const struct tdat_write_opts *o,
    struct tdat_err *e);

/* Bytes of page data (as stored) that tdat_write() will copy from f. */
uint64_t tdat_write_total(const struct tdat_file *f);
/* f's CPUs with data, of every buffer but a latency tracer's text. */
uint64_t tdat_write_streams(const struct tdat_file *f);

struct tdat_repack;
int tdat_repack_open(struct tdat_file *const *files, size_t n,
    struct tdat_select *sel, struct tdat_repack **out,
    struct tdat_err *e);
/* The page source to pass to tdat_write() with files[0]. */
const struct tdat_page_src *tdat_repack_pages(struct tdat_repack *);
void tdat_repack_close(struct tdat_repack *);

/* LTT trace directories (formats/ltt*.c; ltt(5), tdat-to-ltt(1)). */
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

/* Tables for dataframes (formats/table/table.c; tdat-to-table(1),
 * schemas/table-meta.schema.json): one CSV file per event type and
 * meta.json. */
struct tdat_table_opts {
	int hex;			/* addresses as "0x..." strings */
	int max_open;			/* tables written at once (each with
					 * a buffer and a file open): 0 for
					 * 128; the tests make it small */
	struct tdat_select *sel;	/* the events to write; NULL all */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
	/* Filled on return: what was written; out_failed when the
	 * error was the output's (a write error: name DIR). */
	uint64_t rows, tables;
	int out_failed;
};

/* Write the events of the n inputs (merged by time) as tables into dir,
 * an empty directory (the temporary of tdat_out_open_dir()).  Messages
 * name files from dir ("sched.sched_switch.csv").  A selection is
 * opened over the same inputs with separate set (tdat_select_opts). */
int tdat_table_write(struct tdat_file *const *files, size_t n,
    const char *dir, struct tdat_table_opts *o, struct tdat_err *e);
/* CTF 1.8 trace directories (formats/ctf/; ctf(5), tdat-to-ctf(1)). */
struct tdat_ctf_write_opts {
	struct tdat_select *sel;	/* the events to convert; NULL all */
	int lttng;			/* names, fields and environment of an
					 * LTTng kernel trace (lttng-modules 2.13) */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
	/* Filled on return: what was written. */
	uint64_t events, packets, streams, discarded;
	uint64_t unknown;	/* records of types without a format: tdat:unknown */
};

/* Convert f into the CTF directory dir, an empty directory (the
 * temporary of tdat_out_open_dir()).  Messages name files from dir. */
int tdat_ctf_write(struct tdat_file *f, const char *dir,
    struct tdat_ctf_write_opts *o, struct tdat_err *e);

/* ---------------------------------------------------------------------
 * Checking (tdat-verify(1)): each format's checker (trace.dat's in
 * formats/tracedat/tracedat-verify.c, calling lib/check's format-neutral
 * rules, its page and record rules lib/ring's; an LTT directory's
 * formats/ltt/ltt-verify.c), findings reported one by one through a
 * callback.
 */
enum { TDAT_FIND_ERROR = 1, TDAT_FIND_WARNING = 2 };

struct tdat_finding {
	int severity;		/* TDAT_FIND_ERROR or TDAT_FIND_WARNING */
	const char *kind;	/* a stable tag: "page-commit", "event-id"... */
	int has_off;
	uint64_t off;		/* file offset; compressed pages: the chunk */
	const char *buffer;	/* the buffer of a page finding, else NULL */
	int cpu;		/* its CPU, or -1 */
	long long page;		/* index of the page in the CPU's data, or -1 */
	const char *msg;	/* what is wrong: lowercase, no full stop */
	const char *file;	/* in an LTT directory: the file ("cpu/0"),
				 * relative to it; else NULL */
};

struct tdat_verify_opts {
	int keep_going;		/* every finding, not the first error of each
				 * section (container, formats, each CPU) */
	int no_pages;		/* container and event formats only */
	/* called for each finding; nonzero stops the check */
	int (*found)(void *arg, const struct tdat_finding *);
	void *arg;
	/* 0: a second thread for large inputs when there is a second CPU;
	 * 1: one thread; 2: two even for small ones (the tests).  The
	 * findings, their order and the counts are the same. */
	int threads;
	/* with two threads, the pages a piece of a CPU's raw pages holds
	 * (whole CPUs are checked in such pieces); 0: 1 MiB of them, more
	 * on a large trace (the tests set a few) */
	uint32_t piece;
	/* after an error, count what tdat-cat --salvage would keep (the
	 * salvage part of struct tdat_verify_stats) */
	int salvage;
};

struct tdat_verify_stats {
	int version;		/* 6 or 7; 0 if the file did not open */
	char comp[16];		/* "none", "zstd", "zlib" */
	uint32_t buffers, cpus;
	uint64_t pages, records;
	uint64_t errors, warnings;
	uint64_t unreported;	/* findings counted, not reported: without
				 * keep_going, a warning of a kind shown
				 * already, an LTT finding after the first */
	/* With opts->salvage, when the check found an error in a trace.dat
	 * file (not stdin): 1 and what tdat-cat --salvage would keep (the
	 * same walk, nothing written), or -1 when it cannot recover the
	 * file (salvage_why says why); 0 when not counted. */
	int salvage;
	uint64_t kept_pages, salvage_pages;	/* kept of salvage_pages */
	uint64_t kept_records;
	uint64_t lost_chunks;	/* chunks or windows that did not read */
	uint64_t dropped_lines;	/* damaged lines of kallsyms, printk
				 * formats or cmdlines */
	char salvage_why[256];
};

/*
 * Check the input at path, whatever it is (lib/read/source.c tells): a
 * trace.dat's container, event formats and every page of every CPU of
 * every buffer; an LTT directory's files (formats/ltt/ltt-verify.c, comp
 * "ltt" in *st).  Returns 0 when the check ran (the findings went to
 * opts->found and are counted in *st), or a negative code for an I/O
 * error or lack of memory (*e filled).
 */
int tdat_verify(const char *path, const struct tdat_verify_opts *,
    struct tdat_verify_stats *st, struct tdat_err *e);

/* Output files and directories, removed when interrupted (lib/common/output.c). */
#include "tdat-output.h"
/* Command-line helpers for bin/ (lib/cli/cli.c). */
#include "tdat-cli.h"

/* ---------------------------------------------------------------------
 * Salvage (formats/tracedat/tracedat-salvage.c; tdat-cat --salvage): the
 * intact pages of a trace.dat opened with tdat_open_ex() in salvage mode,
 * as a page source for tdat_write().
 * A page whose header or items are damaged is dropped alone; a piece
 * the page iterator cannot read (a chunk) is dropped and the walk goes
 * on after it.  Counts are kept per buffer and CPU.
 */
struct tdat_salvage_cpu {
	int buffer;		/* index of its buffer in the file */
	uint32_t cpu;		/* CPU id */
	uint64_t pages, records;	/* kept */
	uint64_t lost_pages;	/* damaged pages, and whole pages cut off */
	uint64_t lost_records;	/* events read in damaged pages before the
				 * damage (a lower bound of those lost) */
	uint64_t lost_pieces;	/* windows or chunks that could not be read */
	uint64_t cut;		/* bytes of its data past the end of the file */
	int damaged;		/* how many faults were found */
	int has_off;
	uint64_t off;		/* where the first fault is */
	char why[256];		/* what it is */
};

struct tdat_salvage;
struct tdat_page_src;
int tdat_salvage_open(struct tdat_file *, struct tdat_salvage **out,
    struct tdat_err *e);
/* The page source to pass to tdat_write() with the same file. */
const struct tdat_page_src *tdat_salvage_pages(struct tdat_salvage *);
/* Walk every CPU without writing, to count what a salvage keeps. */
int tdat_salvage_scan(struct tdat_salvage *, struct tdat_err *e);
size_t tdat_salvage_ncpu(const struct tdat_salvage *);
const struct tdat_salvage_cpu *tdat_salvage_cpu(const struct tdat_salvage *,
    size_t i);
/* 1 if the open or the pages walked so far dropped anything. */
int tdat_salvage_damaged(const struct tdat_salvage *);
/* What was dropped, as messages for tdat_report_err() on the input's
 * path: line i (from 0) in *e, first each piece the open dropped, then
 * one per buffer and CPU (kept, dropped, where the damage starts);
 * returns 1, or 0 past the last line. */
int tdat_salvage_line(const struct tdat_salvage *, size_t i,
    struct tdat_err *e);
void tdat_salvage_close(struct tdat_salvage *);

#endif
