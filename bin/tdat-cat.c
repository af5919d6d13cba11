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

enum {
	OPT_VERSION6 = 256, OPT_COMPRESSION, OPT_SALVAGE
};

static const struct tdat_cli_opt opts[] = {
	{ OPT_VERSION6, "file-version", 1, "6|7",
	    "write this file version (default 7)" },
	{ OPT_COMPRESSION, "compression", 1, "NAME",
	    "none, zlib or zstd (default zstd; v6: none)" },
	{ 'o', "output", 1, "FILE", "write to FILE (default stdout)" },
	TDAT_SELECT_CLI_OPTS,
	TDAT_CLI_PROGRESS_OPTS,
	{ OPT_SALVAGE, "salvage", 0, NULL,
	    "copy the intact pages of a damaged FILE; report what was lost" },
	{ 0 }
};

static const struct tdat_cli cli = {
	"[--file-version 6|7] [--compression none|zlib|zstd] [-o FILE] [FILE]\n"
	"[options] [-e EVENT]... [-F FILTER]... [-v] [--pid LIST] "
	"[--comm GLOB] [--cpu LIST] [--since TIME] [--until TIME] "
	"[--buffer NAME] [FILE...]",
	"copy, convert, merge and filter trace.dat files (selection: "
	"tdat-select(7))", opts
};

static struct {
	int version;
	const char *compression;
	const char *output;
	int salvage;		/* --salvage */
	struct tdat_select_args sel;
} opt = { .version = 7 };

/*
 * One input chosen by time, CPU or buffer (or not at all) is opened with
 * its kallsyms left loading (kallsyms_later): the writer copies them
 * compressed as they are from a v7 zstd input to a zstd output and
 * takes their verdict (read, decompressed, lines checked) at its end;
 * any other output waits for them first.  Anything that fails before
 * then fails as the open would have on them first, when they are damaged
 * (later_first(), tdat_select_cli_open(), tdat_write()).
 */
static int
open_inputs(char **paths, size_t n, struct tdat_file ***out)
{
	struct tdat_open_opts oo = { .kallsyms_later = 1 };
	const struct tdat_select_opts *so = &opt.sel.o;
	struct tdat_err e = { 0 };
	struct tdat_file **f;

	if (n != 1 || so->nevents || so->nfilters || so->npids || so->ncomms)
		return tdat_cli_open_all(paths, n, out);
	*out = NULL;
	if ((f = calloc(1, sizeof(*f))) == NULL)
		tdat_die(2, "out of memory");
	if (tdat_open_ex(paths[0], &oo, &f[0], &e) < 0) {
		free(f);
		return tdat_report_err(paths[0], &e);
	}
	*out = f;
	return 0;
}

/* The error in e, or the kallsyms' of f if they were left loading and
 * are damaged: that of the open. */
static int
later_first(struct tdat_file *f, const char *path, const char *name,
    struct tdat_err *e)
{
	struct tdat_err ke = { 0 };

	if (tdat_kallsyms_wait(f, &ke) < 0)
		return tdat_report_err(path, &ke);
	return tdat_report_err(name, e);
}

static int
write_out(struct tdat_file **f, size_t n, const struct tdat_page_src *ps,
    const char *path)
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
	if (ps == NULL) {	/* the input's pages copied: mapped */
		tdat_cli_catch_sigbus(path);
		wo.map = 1;
	}
	for (i = 0; i < n; i++)
		total += tdat_write_total(f[i]);
	/* a merge's chunks are sized for the CPUs of all its inputs */
	for (i = 0; n > 1 && i < n; i++)
		wo.streams += tdat_write_streams(f[i]);
	/* a salvage shows none: its pages are checked as they are read */
	wo.progress = opt.salvage ? NULL : tdat_cli_progress(total);
	if ((rc = tdat_out_open(opt.output, TDAT_OUT_BINARY, f, n, &out,
	    &e)) < 0)
		return later_first(f[0], path, tdat_out_name(opt.output), &e);
	if ((rc = tdat_write(f[0], tdat_out_fd(out), &wo, &e)) < 0) {
		tdat_out_abort(out);
		rc = tdat_report_err(e.has_off ? tdat_file_path(f[0]) :
		    tdat_out_name(opt.output), &e);
	} else if ((rc = tdat_out_commit(out, &e)) < 0)
		rc = tdat_report_err(tdat_out_name(opt.output), &e);
	tdat_cli_progress_end();
	return rc;
}

static int
cat(char **paths, size_t n)
{
	struct tdat_select *sel = NULL;
	struct tdat_repack *rp = NULL;
	struct tdat_file **f;
	struct tdat_err e = { 0 };
	int rc = 0;

	if ((rc = open_inputs(paths, n, &f)) != 0)
		return rc;
	if (opt.sel.given || n > 1) {
		if ((rc = tdat_select_cli_open(&opt.sel, f, n, &sel)) != 0)
			goto out;
		if (tdat_repack_open(f, n, sel, &rp, &e) < 0) {
			rc = later_first(f[0], paths[0], paths[0], &e);
			goto out;
		}
	}
	rc = write_out(f, n, rp ? tdat_repack_pages(rp) : NULL, paths[0]);
out:
	tdat_repack_close(rp);
	tdat_select_close(sel);
	tdat_cli_close_all(f, n);
	return rc;
}

/*
 * --salvage: the intact pages of the one damaged trace.dat input
 * (tdat_salvage_*(), formats/tracedat/tracedat-salvage.c), written as
 * any copy, then a line for each piece dropped and each buffer and CPU;
 * 0 when the input was intact, 1 when anything was dropped, 2 on usage
 * or I/O errors.
 */
static int
salvage(char **paths, size_t n)
{
	struct tdat_open_opts oo = { .salvage = 1 };
	struct tdat_salvage *s = NULL;
	struct tdat_file *f = NULL;
	struct tdat_err e = { 0 };
	const char *path = n ? paths[0] : "-";
	size_t i;
	int rc;

	if (n > 1)
		tdat_usage_error("--salvage takes one input");
	if (tdat_open_ex(path, &oo, &f, &e) < 0)
		return tdat_report_err(path, &e);
	if ((rc = tdat_salvage_open(f, &s, &e)) < 0)
		rc = tdat_report_err(path, &e);
	else if ((rc = write_out(&f, 1, tdat_salvage_pages(s), path)) == 0 &&
	    tdat_salvage_damaged(s)) {
		for (i = 0; tdat_salvage_line(s, i, &e); i++)
			tdat_report_err(tdat_file_path(f), &e);
		rc = 1;
	}
	tdat_salvage_close(s);
	tdat_close(f);
	return rc;
}

int
main(int argc, char *argv[])
{
	static char *stdin_only[] = { "-" };
	int c;

	tdat_formats_all();
	tdat_cli_init(argv[0]);
	while ((c = tdat_getopt(argc, argv, &cli)) != -1) {
		if (tdat_select_arg(&opt.sel, c, optarg))
			continue;
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
		case OPT_SALVAGE:
			opt.salvage = 1;
			break;
		}
	}
	if (opt.version < 7 && opt.compression &&
	    strcmp(opt.compression, "none") != 0)
		tdat_usage_error("version 6 files cannot be compressed");
	if (opt.salvage)
		return tdat_close_stdout(opt.sel.given ? (tdat_usage_error(
		    "--salvage copies whole pages: no event selection"), 2) :
		    salvage(argv + optind, (size_t)(argc - optind)));
	if (optind >= argc)
		c = cat(stdin_only, 1);
	else
		c = cat(argv + optind, (size_t)(argc - optind));
	tdat_select_args_free(&opt.sel);
	return tdat_close_stdout(c);
}
