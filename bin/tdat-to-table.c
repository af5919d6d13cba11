/*
 * tdat-to-table: the events of a trace.dat as tables for dataframes: one
 * CSV file per event type and a meta.json that pandas and DuckDB read
 * them by (tdat-to-table(1)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdat.h"

enum { O_HEX = 256 };

static const struct tdat_cli_opt opts[] = {
	{ O_HEX, "hex", 0, NULL,
	    "addresses as \"0x...\" strings (default: decimal integers)" },
	TDAT_SELECT_CLI_OPTS,
	TDAT_CLI_PROGRESS_OPTS,
	{ 0, NULL, 0, NULL, NULL },
};

static const struct tdat_cli cli = {
	"[--hex] [selection] [--[no-]progress] FILE... DIR\n"
	"[--hex] [selection] [--[no-]progress] DIR < FILE",
	"write the events of trace.dat files as tables: DIR/SYSTEM.EVENT.csv "
	"per event type and DIR/meta.json (DIR must not exist; several FILEs "
	"are merged by time, each row naming its file; with DIR alone, "
	"standard input if a pipe or a file; selection: tdat-select(7))",
	opts,
};

static int
convert(char *const *paths, size_t n, const char *dir,
    struct tdat_table_opts *o, struct tdat_select_args *sa)
{
	/* a v7 input's symbol table built as its kallsyms load */
	struct tdat_open_opts oo = { .kallsyms_table = 1 };
	struct tdat_cli_inputs in;
	struct tdat_err e = { 0 };
	struct tdat_out *out;
	int rc;

	if ((rc = tdat_cli_inputs_open_ex(paths, n, sa, &oo, &in)) != 0)
		return rc;
	o->sel = in.sel;
	o->progress = tdat_cli_progress(in.size);
	if ((rc = tdat_out_open_dir(dir, &out, &e)) < 0)
		rc = tdat_report_err(dir, &e);
	else if ((rc = tdat_table_write(in.files, n, tdat_out_path(out), o,
	    &e)) < 0) {
		tdat_out_abort(out);
		/* An output file's fault names DIR; an input's names it
		 * (several: the message does). */
		rc = tdat_report_err(o->out_failed ? dir : n > 1 ? NULL :
		    paths[0], &e);
	} else if ((rc = tdat_out_commit(out, &e)) < 0)
		rc = tdat_report_err(dir, &e);
	tdat_cli_progress_end();
	tdat_cli_inputs_close(&in);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct tdat_table_opts o;
	struct tdat_select_args sa;
	int c, st, nop;

	memset(&o, 0, sizeof(o));
	memset(&sa, 0, sizeof(sa));
	tdat_formats_all();
	tdat_cli_init("tdat-to-table");
	while ((c = tdat_getopt(argc, argv, &cli)) != -1) {
		if (tdat_select_arg(&sa, c, optarg))
			continue;
		switch (c) {
		case O_HEX:
			o.hex = 1;
			break;
		}
	}
	nop = argc - optind;
	if (nop == 0)
		tdat_usage_error("expected FILE... DIR");
	if (nop == 1) {
		char *def[1];

		def[0] = (char *)tdat_cli_input(NULL);
		if (def[0] == NULL)
			tdat_usage_error("expected FILE... DIR");
		st = convert(def, 1, argv[optind], &o, &sa);
	} else {
		st = convert(argv + optind, (size_t)(nop - 1), argv[argc - 1],
		    &o, &sa);
	}
	tdat_select_args_free(&sa);
	return tdat_close_stdout(st);
}
