/*
 * tdat-to-ctf: convert a trace.dat into a CTF 1.8 trace directory, for
 * babeltrace2 and Trace Compass (tdat-to-ctf(1), ctf(5)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdat.h"

enum { O_LTTNG = 256 };

static const struct tdat_cli_opt opts[] = {
	{ O_LTTNG, "lttng", 0, NULL,
	    "event and field names of an LTTng kernel trace (lttng-modules "
	    "2.13), for Trace Compass" },
	TDAT_CLI_PROGRESS_OPTS,
	TDAT_SELECT_CLI_OPTS,
	{ 0, NULL, 0, NULL, NULL },
};

static const struct tdat_cli cli = {
	"[--lttng] [--[no-]progress] [selection] [FILE [DIR]]",
	"convert a trace.dat into a CTF 1.8 trace directory (default DIR: "
	"FILE's name with .ctf for .dat, here; FILE - or none with a pipe or "
	"a file as standard input: stdin; selection: tdat-select(7))",
	opts,
};

/* Convert the trace at in into the CTF directory dir; the exit status. */
static int lttng;

static int
convert(const char *in, const char *dir, const struct tdat_select_args *sa)
{
	struct tdat_ctf_write_opts o;
	struct tdat_select *sel = NULL;
	struct tdat_file *f;
	struct tdat_out *out;
	struct tdat_err e = { 0 };
	int rc;

	memset(&o, 0, sizeof(o));
	o.lttng = lttng;
	if ((rc = tdat_open(in, &f, &e)) < 0)
		return tdat_report_err(in, &e);
	if (sa->given && (rc = tdat_select_cli_open(sa, &f, 1, &sel)) != 0) {
		tdat_close(f);
		return rc;
	}
	o.sel = sel;
	o.progress = tdat_cli_progress(tdat_file_size(f));
	if ((rc = tdat_out_open_dir(dir, &out, &e)) < 0)
		rc = tdat_report_err(dir, &e);
	else if ((rc = tdat_ctf_write(f, tdat_out_path(out), &o, &e)) < 0) {
		tdat_out_abort(out);
		rc = tdat_report_err(e.has_off ? in : dir, &e);
	} else if ((rc = tdat_out_commit(out, &e)) < 0)
		rc = tdat_report_err(dir, &e);
	tdat_cli_progress_end();
	tdat_select_close(sel);
	tdat_close(f);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct tdat_select_args sa = { 0 };
	const char *in, *dir;
	int c, rc;

	tdat_formats_all();
	tdat_cli_init("tdat-to-ctf");
	while ((c = tdat_getopt(argc, argv, &cli)) != -1) {
		if (tdat_select_arg(&sa, c, optarg))
			continue;
		if (c == O_LTTNG)
			lttng = 1;
	}
	in = optind < argc ? argv[optind] : tdat_cli_input(NULL);
	if (in == NULL || argc - optind > 2)
		tdat_usage_error("expected FILE and DIR");
	dir = argc - optind == 2 ? argv[optind + 1] :
	    tdat_default_dir(in, ".ctf");
	rc = convert(in, dir, &sa);
	tdat_select_args_free(&sa);
	return tdat_close_stdout(rc);
}
