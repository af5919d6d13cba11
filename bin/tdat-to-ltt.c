/*
 * tdat-to-ltt: convert a trace.dat into an LTT trace directory, in the
 * XML of "The new LTT trace format" or in the dialect LTTV reads
 * (tdat-to-ltt(1), ltt(5)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdat.h"

enum { O_BLOCK_SIZE = 256, O_LTTV, O_BOOKMARK };

static const struct tdat_cli_opt opts[] = {
	{ O_BLOCK_SIZE, "block-size", 1, "BYTES",
	    "block size of every tracefile (default 65536)" },
	{ O_LTTV, "lttv", 2, "2005|2003",
	    "write the dialect LTTV reads (default 2005)" },
	{ O_BOOKMARK, "bookmark", 1, "NAME@START[-END]",
	    "add a bookmark to info/bookmarks.xml (seconds, e.g. 60.5)" },
	TDAT_CLI_PROGRESS_OPTS,
	TDAT_SELECT_CLI_OPTS,
	{ 0, NULL, 0, NULL, NULL },
};

static const struct tdat_cli cli = {
	"[--block-size BYTES] [--lttv[=2005|2003]] [--bookmark NAME@START[-END]]"
	" [--[no-]progress] [selection] [FILE [DIR]]",
	"convert a trace.dat into an LTT trace directory (default DIR: FILE's "
	"name with .ltt for .dat, here; FILE - or none with a pipe or a file "
	"as standard input: stdin; selection: tdat-select(7))",
	opts,
};

/* "12.5" seconds (or "12500ms") into nanoseconds; exit 2 on a bad time. */
static uint64_t
parse_time(const char *s, const char *all)
{
	uint64_t ns;
	int rel;

	if (tdat_parse_time(s, &ns, &rel) < 0 || rel)
		tdat_usage_error("--bookmark %s: bad time", all);
	return ns;
}

static void
add_bookmark(struct tdat_ltt_bookmark **bm, size_t *n, char *arg)
{
	char *at = strrchr(arg, '@'), *dash, *all = strdup(arg);
	struct tdat_ltt_bookmark *b;

	if (at == NULL || at == arg || all == NULL)
		tdat_usage_error("--bookmark %s: expected NAME@START[-END]",
		    arg);
	*at++ = '\0';
	if ((b = realloc(*bm, (*n + 1) * sizeof(*b))) == NULL)
		tdat_die(2, "out of memory");
	*bm = b;
	b += (*n)++;
	b->name = arg;
	if ((dash = strchr(at, '-')) != NULL)
		*dash++ = '\0';
	b->start = parse_time(at, all);
	b->end = dash ? parse_time(dash, all) : b->start;
	if (b->end < b->start)
		tdat_usage_error("--bookmark %s: END before START", all);
	free(all);
}

/* Convert the trace at in into the LTT directory dir; the exit status. */
static int
convert(const char *in, const char *dir, struct tdat_ltt_write_opts *o,
    const struct tdat_select_args *sa)
{
	struct tdat_select *sel = NULL;
	struct tdat_file *f;
	struct tdat_out *out;
	struct tdat_err e = { 0 };
	int rc;

	if ((rc = tdat_open(in, &f, &e)) < 0)
		return tdat_report_err(in, &e);
	if (sa->given && (rc = tdat_select_cli_open(sa, &f, 1, &sel)) != 0) {
		tdat_close(f);
		return rc;
	}
	o->sel = sel;
	o->progress = tdat_cli_progress(tdat_file_size(f));
	if ((rc = tdat_out_open_dir(dir, &out, &e)) < 0)
		rc = tdat_report_err(dir, &e);
	else if ((rc = tdat_ltt_write(f, tdat_out_path(out), o, &e)) < 0) {
		tdat_out_abort(out);
		rc = tdat_report_err(e.has_off ? in : dir, &e);
	} else if ((rc = tdat_out_commit(out, &e)) < 0)
		rc = tdat_report_err(dir, &e);
	tdat_cli_progress_end();
	tdat_select_close(sel);
	tdat_close(f);
	if (rc == 0 && o->skipped)
		tdat_warn("%s: %llu records of unknown event types skipped",
		    in, (unsigned long long)o->skipped);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct tdat_ltt_write_opts o;
	struct tdat_ltt_bookmark *bm = NULL;
	struct tdat_select_args sa = { 0 };
	const char *in, *dir;
	int c, rc;

	memset(&o, 0, sizeof(o));
	tdat_formats_all();
	tdat_cli_init("tdat-to-ltt");
	while ((c = tdat_getopt(argc, argv, &cli)) != -1) {
		if (tdat_select_arg(&sa, c, optarg))
			continue;
		switch (c) {
		case O_BLOCK_SIZE:
			o.block_size = (uint32_t)tdat_cli_num("--block-size",
			    optarg, 1024, 1 << 20);
			if (o.block_size % 4)
				tdat_usage_error("--block-size %s: not a "
				    "multiple of 4", optarg);
			break;
		case O_LTTV:
			if (optarg == NULL || strcmp(optarg, "2005") == 0)
				o.dialect = TDAT_LTT_LTTV2005;
			else if (strcmp(optarg, "2003") == 0)
				o.dialect = TDAT_LTT_LTTV2003;
			else
				tdat_usage_error("--lttv=%s: expected 2005 or "
				    "2003", optarg);
			break;
		case O_BOOKMARK:
			add_bookmark(&bm, &o.nbookmark, optarg);
			break;
		}
	}
	in = optind < argc ? argv[optind] : tdat_cli_input(NULL);
	if (in == NULL || argc - optind > 2)
		tdat_usage_error("expected FILE and DIR");
	dir = argc - optind == 2 ? argv[optind + 1] :
	    tdat_default_dir(in, ".ltt");
	o.bookmark = bm;
	rc = convert(in, dir, &o, &sa);
	tdat_select_args_free(&sa);
	free(bm);
	return tdat_close_stdout(rc);
}
