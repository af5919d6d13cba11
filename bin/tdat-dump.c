/*
 * tdat-dump: the structure of a trace.dat (like trace-cmd dump) and, with
 * --records, its events as trace-cmd report prints them.
 */
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <strings.h>

#include "tdat.h"

enum {
	O_HEAD_PAGE = 256, O_HEAD_EVENT, O_FTRACE, O_SYSTEMS, O_EVENTS,
	O_KALLSYMS, O_PRINTK, O_CMDLINES, O_OPTIONS, O_FLYRECORD, O_SECTIONS,
	O_STRINGS, O_CLOCK, O_MODULES, O_ALL, O_RECORDS, O_TRACE_CMD,
};

static const struct tdat_cli_opt opts[] = {
	{ O_ALL, "all", 0, NULL, "everything, in the layout of trace-cmd dump --all" },
	{ O_OPTIONS, "options", 0, NULL, "the options" },
	{ O_HEAD_PAGE, "head-page", 0, NULL, "the header_page format" },
	{ O_HEAD_EVENT, "head-event", 0, NULL, "the header_event format" },
	{ O_FTRACE, "ftrace-events", 0, NULL, "the formats of ftrace's own events" },
	{ O_SYSTEMS, "systems", 0, NULL, "the event systems" },
	{ O_EVENTS, "events", 0, NULL, "the event format files" },
	{ O_KALLSYMS, "kallsyms", 0, NULL, "the kernel symbols" },
	{ O_PRINTK, "printk", 0, NULL, "the trace_printk formats" },
	{ O_CMDLINES, "cmd-lines", 0, NULL, "the saved command lines" },
	{ O_FLYRECORD, "flyrecord", 0, NULL,
	    "per buffer and CPU: offset, size, chunks, pages" },
	{ O_SECTIONS, "sections", 0, NULL, "the v7 sections" },
	{ O_STRINGS, "strings", 0, NULL, "the v7 strings" },
	{ O_CLOCK, "clock", 0, NULL, "the trace clock" },
	{ O_MODULES, "modules", 0, NULL, "the saved modules (trace-cmd 3.4)" },
	{ O_RECORDS, "records", 0, NULL, "the events, as trace-cmd report prints them" },
	{ 't', NULL, 0, NULL, "with --records: full nanosecond timestamps" },
	{ 'N', "no-plugins", 0, NULL, "with --records: print formats only (report -N)" },
	{ 'R', "raw", 0, NULL, "with --records: raw field values (report -R)" },
	{ 'l', NULL, 0, NULL, "with --records: the latency layout (report -l)" },
	{ O_TRACE_CMD, "trace-cmd", 1, "VERSION", "with --records: print what "
	    "trace-cmd VERSION prints: 3.4 (the default), 3.3 or 3.1" },
	{ 'O', NULL, 1, "[fgraph:]OPTION[=0|1]", "with --records: a function_graph "
	    "option of trace-cmd report -O: tailprint, depth, retval-skip, "
	    "retval-dec, retval-hex" },
	TDAT_SELECT_CLI_OPTS,
	{ 0, NULL, 0, NULL, NULL },
};

static const struct tdat_cli cli = {
	"[--all | --options | --events | ... | --flyrecord] [FILE]\n"
	"--records [-t] [-N | -R] [-l] [-O OPTION]... [--trace-cmd=VERSION] "
	"[selection] [FILE...]",
	"print the structure or the events of a trace.dat file (default "
	"FILE: standard input if a pipe or a file, else trace.dat; - for "
	"stdin; several FILEs: one listing merged by time, as trace-cmd "
	"report -i A -i B; selection: tdat-select(7))",
	opts,
};

struct job {
	unsigned what;
	int flyrecord;
	int records;
	struct tdat_records_opts ro;
	struct tdat_select_args sa;
};

/* --trace-cmd=VERSION: 3.1, 3.3 or 3.4, or a release of one of them. */
static int
trace_cmd_version(const char *v)
{
	static const struct {
		const char *name;
		int tc;
	} known[] = {
		{ "3.1", TDAT_TC_31 }, { "3.3", TDAT_TC_33 },
		{ "3.4", TDAT_TC_34 },
	};
	size_t k, n;

	for (k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		n = strlen(known[k].name);
		if (strncmp(v, known[k].name, n) != 0)
			continue;
		if (v[n] == '\0')
			return known[k].tc;
		if (v[n] == '.' && v[n + 1] != '\0' &&
		    strspn(v + n + 1, "0123456789") == strlen(v + n + 1))
			return known[k].tc;
	}
	tdat_usage_error("--trace-cmd: '%s' is not 3.1, 3.3 or 3.4", v);
	return -1;
}

/*
 * -O [fgraph:]NAME[=VALUE], as trace-cmd report -O sets a plugin option:
 * no value or 1/true sets it, 0/false clears it.
 */
static void
plugin_option(const char *arg, unsigned *bits)
{
	static const struct {
		const char *name;
		unsigned bit;
	} known[] = {
		{ "tailprint", TDAT_FGRAPH_TAIL },
		{ "depth", TDAT_FGRAPH_DEPTH },
		{ "retval-skip", TDAT_FGRAPH_RETVAL_SKIP },
		{ "retval-dec", TDAT_FGRAPH_RETVAL_DEC },
		{ "retval-hex", TDAT_FGRAPH_RETVAL_HEX },
	};
	const char *name = arg, *val;
	size_t k, n;

	if (strncmp(name, "fgraph:", 7) == 0)
		name += 7;
	val = strchr(name, '=');
	n = val ? (size_t)(val - name) : strlen(name);
	for (k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		if (strlen(known[k].name) != n ||
		    strncmp(name, known[k].name, n) != 0)
			continue;
		if (val == NULL)
			*bits |= known[k].bit;
		else if (strcasecmp(val + 1, "1") == 0 ||
		    strcasecmp(val + 1, "true") == 0)
			*bits |= known[k].bit;
		else if (strcasecmp(val + 1, "0") == 0 ||
		    strcasecmp(val + 1, "false") == 0)
			*bits &= ~known[k].bit;
		else
			tdat_usage_error("-O %s: the value is not 0, 1, true "
			    "or false", arg);
		return;
	}
	tdat_usage_error("-O %s: not an option of the function_graph plugin "
	    "(tailprint, depth, retval-skip, retval-dec, retval-hex)", arg);
}

/* The error of an input's kallsyms left loading if they are damaged (the
 * open's, first), else name's e. */
static int
kallsyms_first(struct tdat_cli_inputs *in, const char *name,
    const struct tdat_err *e)
{
	struct tdat_err ke = { 0 };
	size_t k;

	for (k = 0; k < in->n; k++)
		if (tdat_kallsyms_wait(in->files[k], &ke) < 0)
			return tdat_report_err(tdat_file_path(in->files[k]),
			    &ke);
	return tdat_report_err(name, e);
}

static int
dump_files(char *const *paths, size_t n, struct job *j)
{
	struct tdat_records_opts ro = j->ro;
	struct tdat_open_opts oo = { .kallsyms_later = 1,
	    .kallsyms_table = 1 };
	struct tdat_cli_inputs in;
	struct tdat_file *f;
	struct tdat_err e = { 0 };
	struct tdat_out *o;
	const char *path = paths[0];
	FILE *out;
	int rc;

	/* --records: a v7 input's large compressed kallsyms load while the
	 * records' readers open (a time cut's seek), lib/merge/run.c */
	if ((rc = tdat_cli_inputs_open_ex(paths, n, &j->sa, j->records ?
	    &oo : NULL, &in)) != 0)
		return rc;
	f = in.files[0];
	ro.sel = in.sel;
	if (tdat_out_open(NULL, TDAT_OUT_TEXT, NULL, 0, &o, &e) < 0) {
		rc = kallsyms_first(&in, "stdout", &e);
		tdat_cli_inputs_close(&in);
		return rc;
	}
	out = tdat_out_fp(o);
	if (j->records)
		rc = tdat_print_records_n(in.files, n, out, &ro, &e);
	else if (j->what)
		rc = tdat_dump(f, out, j->what, &e);
	else if (j->flyrecord)
		rc = tdat_dump_flyrecord(f, out, &e);
	else
		rc = tdat_dump_summary(f, out, &e);
	if (rc == 0 && j->what && j->flyrecord)
		rc = tdat_dump_flyrecord(f, out, &e);
	if (rc < 0 && n > 1 && e.msg[0] != '\0')
		path = NULL;	/* the message names the file when it can */
	tdat_cli_inputs_close(&in);
	if (rc < 0 && !tdat_out_failed(o)) {
		tdat_out_abort(o);
		return tdat_report_err(path, &e);
	}
	return tdat_out_commit(o, &e) < 0 ? tdat_report_err("stdout", &e) : 0;
}

int
main(int argc, char *argv[])
{
	static const unsigned bits[] = {
		[O_HEAD_PAGE - 256] = TDAT_DUMP_HEAD_PAGE,
		[O_HEAD_EVENT - 256] = TDAT_DUMP_HEAD_EVENT,
		[O_FTRACE - 256] = TDAT_DUMP_FTRACE,
		[O_SYSTEMS - 256] = TDAT_DUMP_SYSTEMS,
		[O_EVENTS - 256] = TDAT_DUMP_EVENTS,
		[O_KALLSYMS - 256] = TDAT_DUMP_KALLSYMS,
		[O_PRINTK - 256] = TDAT_DUMP_PRINTK,
		[O_CMDLINES - 256] = TDAT_DUMP_CMDLINES,
		[O_OPTIONS - 256] = TDAT_DUMP_OPTIONS,
		[O_SECTIONS - 256] = TDAT_DUMP_SECTIONS,
		[O_STRINGS - 256] = TDAT_DUMP_STRINGS,
		[O_CLOCK - 256] = TDAT_DUMP_CLOCK,
		[O_MODULES - 256] = TDAT_DUMP_MODULES,
		[O_ALL - 256] = TDAT_DUMP_ALL,
	};
	struct job j;
	int c, st, lat = 0, tc_given = 0, popt = 0;

	memset(&j, 0, sizeof(j));
	j.ro.mode = TDAT_RECORDS_PLUGINS;
	j.ro.tc = TDAT_TC_34;
	tdat_formats_all();
	tdat_cli_init("tdat-dump");
	while ((c = tdat_getopt(argc, argv, &cli)) != -1) {
		if (tdat_select_arg(&j.sa, c, optarg))
			continue;
		switch (c) {
		case O_FLYRECORD:
			j.flyrecord = 1;
			break;
		case O_RECORDS:
			j.records = 1;
			break;
		case 't':
			j.ro.full_ts = 1;
			break;
		case 'N':	/* -R wins, in any order, as in trace-cmd */
			if (j.ro.mode != TDAT_RECORDS_RAW)
				j.ro.mode = TDAT_RECORDS_PRINT;
			break;
		case 'R':
			j.ro.mode = TDAT_RECORDS_RAW;
			break;
		case 'l':
			j.ro.lat = 1;
			lat = 1;
			break;
		case 'O':
			plugin_option(optarg, &j.ro.fgraph);
			popt = 1;
			break;
		case O_TRACE_CMD:
			j.ro.tc = trace_cmd_version(optarg);
			tc_given = 1;
			break;
		default:
			if (c >= 256 && c <= O_ALL)
				j.what |= bits[c - 256];
			break;
		}
	}
	if (argc - optind > 1 && !j.records)
		tdat_usage_error("more than one FILE (several need --records)");
	if (j.records && (j.what || j.flyrecord))
		tdat_usage_error("--records cannot be combined with structure "
		    "options");
	if (j.sa.given && !j.records)
		tdat_usage_error("selection options need --records");
	if ((lat || tc_given || popt) && !j.records)
		tdat_usage_error("%s needs --records", lat ? "-l" : popt ?
		    "-O" : "--trace-cmd");
	if (optind < argc)
		st = dump_files(argv + optind, (size_t)(argc - optind), &j);
	else {
		char *def[1];

		def[0] = (char *)tdat_cli_input("trace.dat");
		st = dump_files(def, 1, &j);
	}
	tdat_select_args_free(&j.sa);
	return tdat_close_stdout(st);
}
