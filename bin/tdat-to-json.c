/*
 * tdat-to-json: a trace.dat as JSON: one JSON object per event (JSON
 * Lines), the metadata (--meta), or the Chrome trace event format that
 * Perfetto and chrome://tracing open (--chrome).  See tdat-to-json(1).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	{ 0, NULL, 0, NULL, NULL },
};

static const struct tdat_cli cli = {
	"[--meta | --chrome] [selection] [-o FILE] [FILE]",
	"write a trace.dat file as JSON: events as JSON Lines (default FILE: "
	"trace.dat, - for stdin; selection: tdat-select(7))",
	opts,
};

struct job {
	struct tdat_json_opts jo;
	struct tdat_select_args sa;
	const char *output;	/* -o FILE, or NULL */
};

/* An output file opened under a temporary name beside it. */
struct outfile {
	char *tmp;
	FILE *fp;
};

static int
same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	    sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int
out_open(struct outfile *o, const char *path)
{
	int fd;

	if (asprintf(&o->tmp, "%s.XXXXXX", path) < 0) {
		o->tmp = NULL;
		tdat_warn("out of memory");
		return 2;
	}
	if ((fd = mkostemp(o->tmp, O_CLOEXEC)) < 0) {
		tdat_warn("%s: %s", path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return 2;
	}
	fchmod(fd, 0644 & ~umask(umask(0)));
	if ((o->fp = fdopen(fd, "w")) == NULL) {
		tdat_warn("%s: %s", path, strerror(errno));
		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return 2;
	}
	return 0;
}

/* Keep the output if st is 0, else remove it; returns the status. */
static int
out_close(struct outfile *o, const char *path, int st)
{
	if (fclose(o->fp) != 0 && st == 0) {
		tdat_warn("%s: %s", path, strerror(errno));
		st = 2;
	}
	if (st == 0 && rename(o->tmp, path) != 0) {
		tdat_warn("%s: %s", path, strerror(errno));
		st = 2;
	}
	if (st != 0)
		unlink(o->tmp);
	free(o->tmp);
	return st;
}

static int
convert(const char *path, struct job *j)
{
	struct tdat_select *sel = NULL;
	struct tdat_file *f;
	struct tdat_err e = { 0 };
	struct outfile of = { NULL, NULL };
	FILE *out = stdout;
	int rc, st;

	if (j->output && strcmp(path, "-") != 0 && same_file(path, j->output))
		tdat_die(2, "%s: the output is the input", j->output);
	if ((rc = tdat_open(path, &f, &e)) < 0)
		return tdat_report_err(path, &e);
	if (j->sa.given && (st = tdat_select_cli_open(&j->sa, &f, 1,
	    &sel)) != 0) {
		tdat_close(f);
		return st;
	}
	j->jo.sel = sel;
	if (j->output) {
		if ((st = out_open(&of, j->output)) != 0) {
			tdat_select_close(sel);
			tdat_close(f);
			return st;
		}
		out = of.fp;
	}
	rc = tdat_json_write(f, out, &j->jo, &e);
	st = rc < 0 ? tdat_report_err(path, &e) : 0;
	tdat_select_close(sel);
	tdat_close(f);
	if (j->output)
		st = out_close(&of, j->output, st);
	return st;
}

int
main(int argc, char *argv[])
{
	struct job j;
	int c, st;

	memset(&j, 0, sizeof(j));
	j.jo.mode = TDAT_JSON_LINES;
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
	if (argc - optind > 1)
		tdat_usage_error("more than one FILE");
	if (j.jo.mode == TDAT_JSON_META && j.sa.given)
		tdat_usage_error("--meta takes no selection options");
	st = convert(optind < argc ? argv[optind] : "trace.dat", &j);
	tdat_select_args_free(&j.sa);
	return tdat_close_stdout(st);
}
