/*
 * tdat-cat: copy a trace.dat, converting between file versions 6 and 7
 * and between compressions (none, zlib, zstd); merge several traces in
 * time order; keep only some events (dropped ones are removed and the
 * pages rebuilt).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdat.h"

#define MAX_ARGS	256		/* -e, -F, --comm, --pid entries */

enum {
	OPT_VERSION6 = 256, OPT_COMPRESSION,
	OPT_CPU, OPT_PID, OPT_COMM, OPT_SINCE, OPT_UNTIL, OPT_BUFFER
};

static const struct tdat_cli_opt opts[] = {
	{ OPT_VERSION6, "file-version", 1, "6|7",
	    "write this file version (default 7)" },
	{ OPT_COMPRESSION, "compression", 1, "NAME",
	    "none, zlib or zstd (default zstd; v6: none)" },
	{ 'o', "output", 1, "FILE", "write to FILE (default stdout)" },
	{ 'e', "event", 1, "[SYS:]EVENT", "keep these events (globs)" },
	{ 'F', "filter", 1, "'EVENTS: EXPR'",
	    "keep events matching a kernel filter" },
	{ OPT_PID, "pid", 1, "LIST", "keep events of these pids (1,2)" },
	{ OPT_COMM, "comm", 1, "GLOB", "keep events of these commands" },
	{ 'v', "invert", 0, NULL, "drop what -e -F --pid --comm keep" },
	{ OPT_CPU, "cpu", 1, "LIST", "only these CPUs (0,2-3)" },
	{ OPT_SINCE, "since", 1, "TIME", "only events at or after TIME" },
	{ OPT_UNTIL, "until", 1, "TIME", "only events at or before TIME" },
	{ OPT_BUFFER, "buffer", 1, "NAME", "only this buffer (\"\" the top)" },
	TDAT_CLI_PROGRESS_OPTS,
	{ 0 }
};

static const struct tdat_cli cli = {
	"[--file-version 6|7] [--compression none|zlib|zstd] [-o FILE] [FILE]\n"
	"[options] [-e EVENT]... [-F FILTER]... [-v] [--pid LIST] "
	"[--comm GLOB] [--cpu LIST] [--since TIME] [--until TIME] "
	"[--buffer NAME] [FILE...]",
	"copy, convert, merge and filter trace.dat files", opts
};

static struct {
	int version;
	const char *compression;
	const char *output;
	int select;		/* an option chooses events */
	struct tdat_select_opts sel;
} opt = { 7, NULL, NULL, 0, { 0 } };

static const char *events[MAX_ARGS], *filters[MAX_ARGS], *comms[MAX_ARGS];
static int pids[MAX_ARGS];

/* Print a bad -F with a caret under the fault; the exit status is 2. */
static int
bad_filter(const char *arg, const struct tdat_err *e)
{
	struct tdat_sbuf sb;

	tdat_sb_init(&sb);
	tdat_filter_caret(&sb, arg, (size_t)e->off, "  ");
	tdat_warn("bad filter: %s", e->msg);
	fputs(tdat_sb_str(&sb), stderr);
	tdat_sb_free(&sb);
	return 2;
}

static void
add_arg(const char **v, size_t *n, const char *what, const char *a)
{
	if (*n >= MAX_ARGS)
		tdat_usage_error("too many %s options", what);
	v[(*n)++] = a;
}

static void
add_pids(const char *list)
{
	char tok[32];
	const char *p = list;
	size_t n;

	for (;;) {
		n = strcspn(p, ",");
		if (n >= sizeof(tok))
			tdat_usage_error("--pid: bad pid '%.*s'", (int)n, p);
		memcpy(tok, p, n);
		tok[n] = '\0';
		if (opt.sel.npids >= MAX_ARGS)
			tdat_usage_error("too many pids");
		pids[opt.sel.npids++] = (int)tdat_cli_num("--pid", tok, 0,
		    2147483647);
		if (p[n] == '\0')
			break;
		p += n + 1;
	}
}

static void
set_time(const char *what, const char *a, uint64_t *v, int *rel, int *has)
{
	if (tdat_parse_time(a, v, rel) < 0)
		tdat_usage_error("%s: bad time '%s' (seconds, or a number with "
		    "s, ms, us or ns; + for relative)", what, a);
	*has = 1;
}

/* The largest CPU count of the inputs, so that every CPU gets written. */
static void
widen_cpus(struct tdat_file **f, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (f[i]->ncpus > f[0]->ncpus)
			f[0]->ncpus = f[i]->ncpus;
}

static int
write_out(struct tdat_file **f, size_t n, const struct tdat_page_src *ps)
{
	struct tdat_write_opts wo = { 0 };
	struct tdat_err e = { 0 };
	struct tdat_out *out;
	uint64_t total = 0;
	size_t i;
	int rc;

	wo.version = opt.version;
	wo.compression = opt.compression ? opt.compression :
	    opt.version >= 7 ? "zstd" : "none";
	wo.pages = ps;
	for (i = 0; i < n; i++)
		total += tdat_write_total(f[i]);
	wo.progress = tdat_cli_progress(total);
	if ((rc = tdat_out_open(opt.output, TDAT_OUT_BINARY, f, n, &out,
	    &e)) < 0)
		return tdat_report_err(tdat_out_name(opt.output), &e);
	if ((rc = tdat_write(f[0], tdat_out_fd(out), &wo, &e)) < 0) {
		tdat_out_abort(out);
		rc = tdat_report_err(e.has_off ? f[0]->path :
		    tdat_out_name(opt.output), &e);
	} else if ((rc = tdat_out_commit(out, &e)) < 0)
		rc = tdat_report_err(tdat_out_name(opt.output), &e);
	tdat_cli_progress_end();
	return rc;
}

/* A trace.dat file, stdin, or an LTT trace directory. */
static int
open_input(const char *path, struct tdat_file **f, struct tdat_err *e)
{
	if (strcmp(path, "-") != 0 && tdat_ltt_probe(path))
		return tdat_ltt_open_tdat(path, f, e);
	return tdat_open(path, f, e);
}

static int
cat(char **paths, size_t n)
{
	struct tdat_select *sel = NULL;
	struct tdat_file **f;
	struct tdat_err e = { 0 };
	size_t i, nopen = 0;
	int rc = 0, bad;

	if ((f = calloc(n, sizeof(*f))) == NULL)
		tdat_die(2, "out of memory");
	for (; nopen < n; nopen++)
		if (open_input(paths[nopen], &f[nopen], &e) < 0) {
			rc = tdat_report_err(paths[nopen], &e);
			goto out;
		}
	if (opt.select || n > 1) {
		widen_cpus(f, n);
		if (tdat_select_open(f, n, &opt.sel, &sel, &bad, &e) < 0) {
			if (bad >= 0)
				rc = bad_filter(filters[bad], &e);
			else {
				tdat_warn("%s", e.msg);
				rc = tdat_exit_status(e.code);
			}
			goto out;
		}
	}
	rc = write_out(f, n, sel ? tdat_select_pages(sel) : NULL);
out:
	tdat_select_close(sel);
	for (i = 0; i < nopen; i++)
		tdat_close(f[i]);
	free(f);
	return rc;
}

int
main(int argc, char *argv[])
{
	static char *stdin_only[] = { "-" };
	int c;

	tdat_cli_init(argv[0]);
	opt.sel.events = events;
	opt.sel.filters = filters;
	opt.sel.comms = comms;
	opt.sel.pids = pids;
	while ((c = tdat_getopt(argc, argv, &cli)) != -1) {
		switch (c) {
		case OPT_VERSION6:
			opt.version = (int)tdat_cli_num("--file-version",
			    optarg, 6, 7);
			break;
		case OPT_COMPRESSION:
			if (strcmp(optarg, "none") && strcmp(optarg, "zlib") &&
			    strcmp(optarg, "zstd"))
				tdat_usage_error("unknown compression '%s'",
				    optarg);
			opt.compression = optarg;
			break;
		case 'o':
			opt.output = optarg;
			break;
		case 'e':
			add_arg(events, &opt.sel.nevents, "-e", optarg);
			break;
		case 'F':
			add_arg(filters, &opt.sel.nfilters, "-F", optarg);
			break;
		case OPT_PID:
			add_pids(optarg);
			break;
		case OPT_COMM:
			add_arg(comms, &opt.sel.ncomms, "--comm", optarg);
			break;
		case 'v':
			opt.sel.invert = 1;
			break;
		case OPT_CPU:
			opt.sel.cpus = tdat_cli_cpus("--cpu", optarg,
			    &opt.sel.ncpus);
			break;
		case OPT_SINCE:
			set_time("--since", optarg, &opt.sel.since,
			    &opt.sel.since_rel, &opt.sel.has_since);
			break;
		case OPT_UNTIL:
			set_time("--until", optarg, &opt.sel.until,
			    &opt.sel.until_rel, &opt.sel.has_until);
			break;
		case OPT_BUFFER:
			opt.sel.buffer = optarg;
			break;
		default:
			continue;
		}
		if (c != OPT_VERSION6 && c != OPT_COMPRESSION && c != 'o')
			opt.select = 1;
	}
	if (opt.version < 7 && opt.compression &&
	    strcmp(opt.compression, "none") != 0)
		tdat_usage_error("version 6 files cannot be compressed");
	if (optind >= argc)
		return tdat_close_stdout(cat(stdin_only, 1));
	return tdat_close_stdout(cat(argv + optind, (size_t)(argc - optind)));
}
