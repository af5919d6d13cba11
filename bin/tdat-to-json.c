/*
 * tdat-to-json: a trace.dat as JSON: one JSON object per event (JSON
 * Lines), the metadata (--meta), or the Chrome trace event format that
 * Perfetto and chrome://tracing open (--chrome).  See tdat-to-json(1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdat.h"

enum { O_META = 256, O_CHROME };

static const struct tdat_cli_opt opts[] = {
	{ O_META, "meta", 0, NULL, "the metadata as one JSON document" },
	{ O_CHROME, "chrome", 0, NULL,
	    "the Chrome trace event format (Perfetto, chrome://tracing)" },
	{ 'o', "output", 1, "FILE", "write to FILE (replaced when complete)" },
	{ 'B', NULL, 1, "NAME", "the same as --buffer NAME" },
	TDAT_SELECT_CLI_OPTS,
	TDAT_CLI_PROGRESS_OPTS,
	{ 0, NULL, 0, NULL, NULL },
};

static const struct tdat_cli cli = {
	"[--meta | --chrome] [selection] [-o FILE] [--[no-]progress] [FILE]\n"
	"[selection] [-o FILE] [--[no-]progress] FILE...",
	"write a trace.dat file as JSON: events as JSON Lines (default FILE: "
	"standard input if a pipe or a file, else trace.dat; - for stdin; "
	"several FILEs: one stream merged by time, each event naming its "
	"file; selection: tdat-select(7))",
	opts,
};

struct job {
	struct tdat_json_opts jo;
	struct tdat_select_args sa;
	const char *output;	/* -o FILE, or NULL */
};

static int
convert(char *const *paths, size_t n, struct job *j)
{
	/* a v7 input's symbol table built as its kallsyms load */
	struct tdat_open_opts oo = { .kallsyms_table = 1 };
	struct tdat_cli_inputs in;
	struct tdat_err e = { 0 };
	struct tdat_out *out;
	int rc;

	if ((rc = tdat_cli_inputs_open_ex(paths, n, &j->sa, &oo, &in)) != 0)
		return rc;
	j->jo.sel = in.sel;
	j->jo.progress = tdat_cli_progress(in.size);
	if ((rc = tdat_out_open(j->output, TDAT_OUT_TEXT, in.files, n, &out,
	    &e)) < 0)
		rc = tdat_report_err(tdat_out_name(j->output), &e);
	else if ((rc = tdat_json_write_n(in.files, n, tdat_out_fp(out),
	    &j->jo, &e)) < 0 && !tdat_out_failed(out)) {
		tdat_out_abort(out);
		/* With several inputs the message names the file. */
		rc = tdat_report_err(n > 1 ? NULL : paths[0], &e);
	} else if ((rc = tdat_out_commit(out, &e)) < 0)
		rc = tdat_report_err(tdat_out_name(j->output), &e);
	tdat_cli_progress_end();
	tdat_cli_inputs_close(&in);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct job j;
	int c, st;

	memset(&j, 0, sizeof(j));
	j.jo.mode = TDAT_JSON_LINES;
	tdat_formats_all();
	tdat_cli_init("tdat-to-json");
	while ((c = tdat_getopt(argc, argv, &cli)) != -1) {
		if (tdat_select_arg(&j.sa, c == 'B' ? TDAT_SEL_BUFFER : c,
		    optarg))
			continue;
		switch (c) {
		case O_META:
		case O_CHROME:
			if (j.jo.mode != TDAT_JSON_LINES)
				tdat_usage_error("--meta and --chrome exclude "
				    "each other");
			j.jo.mode = c == O_META ? TDAT_JSON_META :
			    TDAT_JSON_CHROME;
			break;
		case 'o':
			j.output = optarg;
			break;
		}
	}
	if (argc - optind > 1 && j.jo.mode != TDAT_JSON_LINES)
		tdat_usage_error("--meta and --chrome take one FILE");
	if (j.jo.mode == TDAT_JSON_META && j.sa.given)
		tdat_usage_error("--meta takes no selection options");
	if (optind < argc)
		st = convert(argv + optind, (size_t)(argc - optind), &j);
	else {
		char *def[1];

		def[0] = (char *)tdat_cli_input("trace.dat");
		st = convert(def, 1, &j);
	}
	tdat_select_args_free(&j.sa);
	return tdat_close_stdout(st);
}
