/*
 * tdat-cli.h: command-line helpers for the tools in bin/ (lib/cli/cli.c).
 *
 * One message shape for every tool:
 *	PROG: FILE: offset 0x1f40: what is wrong
 * lowercase, no full stop.  Exit statuses: 0 ok, 1 damaged data or a
 * finding, 2 usage or I/O error (tdat_exit_status()).
 *
 * Options come from one table per tool that drives getopt_long, --help
 * and --version:
 *
 *	enum { OPT_HEAD_PAGE = 256 };
 *	static const struct tdat_cli_opt opts[] = {
 *		{ 't', "ts", 0, NULL, "print raw timestamps" },
 *		{ OPT_HEAD_PAGE, "head-page", 0, NULL, "print header_page" },
 *		{ 0, "cpu", 1, "LIST", "only these CPUs (0,2-3)" },
 *		{ 0 }
 *	};
 *	static const struct tdat_cli cli = { "[options] [FILE]",
 *	    "print the structure of a trace.dat file", opts };
 *
 *	tdat_cli_init("tdat-dump");
 *	while ((c = tdat_getopt(argc, argv, &cli)) != -1)
 *		switch (c) { ... }
 *
 * An entry whose short_name is a character is also a short option; one
 * with short_name >= 256 is long only and tdat_getopt() returns that
 * value.  An entry with short_name 0 is long only and returns
 * TDAT_CLI_LONG + its index in the table.  --help and --version are
 * added to every table and handled inside (exit 0).
 */
#ifndef TDAT_CLI_H
#define TDAT_CLI_H

#include <stdint.h>
#include <stdio.h>

struct tdat_err;
struct tdat_open_opts;

struct tdat_cli_opt {
	int short_name;		/* 'x', a value >= 256, or 0 */
	const char *long_name;	/* NULL: short only */
	int has_arg;		/* 0 none, 1 required, 2 optional (--x=ARG) */
	const char *arg_name;	/* "LIST", shown in --help */
	const char *help;
};

struct tdat_cli {
	const char *synopsis;	/* after PROG; '\n' separates lines */
	const char *purpose;	/* one line, shown by --help */
	const struct tdat_cli_opt *opt;	/* ends with an all-zero entry */
};

#define TDAT_CLI_LONG	0x10000

/*
 * Progress on stderr ("\rPROG:  42%", a newline at the end).  A table that
 * lists TDAT_CLI_PROGRESS_OPTS gets --progress and --no-progress, which
 * tdat_getopt() handles itself.  Without either, progress shows when
 * stderr is a terminal and the job is at least TDAT_CLI_AUTO_PROGRESS
 * bytes.
 */
#define TDAT_CLI_PROGRESS	(TDAT_CLI_LONG - 3)
#define TDAT_CLI_NO_PROGRESS	(TDAT_CLI_LONG - 4)
#define TDAT_CLI_PROGRESS_OPTS \
	{ TDAT_CLI_PROGRESS, "progress", 0, NULL, "show progress on stderr" }, \
	{ TDAT_CLI_NO_PROGRESS, "no-progress", 0, NULL, "never show progress" }
#define TDAT_CLI_AUTO_PROGRESS	(64u << 20)

typedef void (*tdat_progress_fn)(void *arg, uint64_t done, uint64_t total);
/* The printer to pass as a writer's progress callback for a job of total
 * bytes, or NULL when no progress is to be shown. */
tdat_progress_fn tdat_cli_progress(uint64_t total);
/* End the progress line if one was shown (messages do it themselves). */
void tdat_cli_progress_end(void);

/* The FILE to read when none is given: "-" when standard input is a pipe,
 * a socket or a regular file (cmd | tool, tool < x.dat), else dflt (a
 * terminal, or /dev/null as under cron or CI). */
const char *tdat_cli_input(const char *dflt);

/* Open the n inputs of a tool into *out (an array tdat_cli_close_all()
 * frees).  0, or the exit status after reporting the input that failed
 * (nothing is left open then). */
int tdat_cli_open_all(char *const *paths, size_t n, struct tdat_file ***out);
/* The same with the open's options (kallsyms_later: an input whose open
 * fails reports the damaged kallsyms of one before it first). */
int tdat_cli_open_all_ex(char *const *paths, size_t n,
    const struct tdat_open_opts *oo, struct tdat_file ***out);
void tdat_cli_close_all(struct tdat_file **f, size_t n);

/* Name the program for every message ("tdat-dump"). */
void tdat_cli_init(const char *prog);
const char *tdat_prog(void);

/* Like getopt_long over cli->opt; -1 at the end, optarg/optind as usual.
 * Misuse prints "PROG: why" and the usage lines and exits 2. */
int tdat_getopt(int argc, char *argv[], const struct tdat_cli *cli);
void tdat_help(const struct tdat_cli *, FILE *);
/* "PROG: why", the usage lines, exit 2. */
void tdat_usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

/* The output directory a converter writes by default: FILE's base name
 * with EXT (".ctf") for .dat, in the current directory ("trace" EXT for
 * "-"); a usage error when FILE has no name to make it from. */
const char *tdat_default_dir(const char *file, const char *ext);

/* "PROG: message" on stderr. */
void tdat_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "PROG: message", then exit(status). */
void tdat_die(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
/* "PROG: FILE: offset 0x..: msg" ("stdin" for "-"); returns the exit
 * status of e->code (0, 1 or 2). */
int tdat_report_err(const char *file, const struct tdat_err *e);

/* Parse a number for an option, strtonum style: exit 2 unless the whole
 * string is a decimal (or 0x hex) number within [min, max]. */
long long tdat_cli_num(const char *opt, const char *s, long long min,
    long long max);
/* Parse a CPU list such as "0,2-3" into a calloc'ed map of *n bytes
 * (map[i] != 0 selects CPU i); exit 2 on a bad list. */
unsigned char *tdat_cli_cpus(const char *opt, const char *s, int *n);

/* Exit 2 with a message if writing to stdout has failed (EPIPE: silent). */
void tdat_check_stdout(void);
/* SIGBUS (a mapped input cut short) ends the tool with one line naming
 * PATH ("-": stdin), temporaries removed, exit 2. */
void tdat_cli_catch_sigbus(const char *path);
/* Flush and close stdout; a write error prints a message and gives 2,
 * EPIPE stays silent; otherwise returns status.  Use as
 * "return tdat_close_stdout(st);" at the end of main. */
int tdat_close_stdout(int status);

/* tdat-verify (lib/cli/cli-verify.c): check each of the n paths (none: "-"),
 * print each finding and a summary per file (lines, or JSON Lines with
 * json; nothing with quiet) and, after damage, what tdat-cat --salvage
 * would keep; returns the exit status: 0 clean, 1 damaged (strict:
 * warnings too), 2 when a file could not be read. */
struct tdat_cli_verify {
	int quiet, json, strict;
	int keep_going, no_pages;	/* as in struct tdat_verify_opts */
};
int tdat_cli_verify(char **paths, size_t n, const struct tdat_cli_verify *);

#endif
