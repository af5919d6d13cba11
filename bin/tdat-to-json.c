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

enum { O_META = 256, O_CHROME, O_CPU };

static const struct tdat_cli_opt opts[] = {
	{ O_META, "meta", 0, NULL, "the metadata as one JSON document" },
	{ O_CHROME, "chrome", 0, NULL,
	    "the Chrome trace event format (Perfetto, chrome://tracing)" },
	{ 'o', "output", 1, "FILE", "write to FILE (replaced when complete)" },
	{ 'B', "buffer", 1, "NAME", "only the buffer NAME (\"\" for the top one)" },
	{ O_CPU, "cpu", 1, "LIST", "only these CPUs (0,2-3)" },
	{ 0, NULL, 0, NULL, NULL },
};

static const struct tdat_cli cli = {
	"[--meta | --chrome] [-B NAME] [--cpu LIST] [-o FILE] [FILE]",
	"write a trace.dat file as JSON: events as JSON Lines (default FILE: "
	"trace.dat, - for stdin)",
	opts,
};

struct job {
	struct tdat_json_opts jo;
	const char *buffer;	/* -B NAME, or NULL */
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
	struct tdat_file *f;
	struct tdat_err e = { 0 };
	struct outfile of = { NULL, NULL };
	FILE *out = stdout;
	size_t i;
	int rc, st;

	if (j->output && strcmp(path, "-") != 0 && same_file(path, j->output))
		tdat_die(2, "%s: the output is the input", j->output);
	if ((rc = tdat_open(path, &f, &e)) < 0)
		return tdat_report_err(path, &e);
	j->jo.buffer = -1;
	if (j->buffer) {
		for (i = 0; i < f->nbuf; i++)
			if (strcmp(f->buf[i].name, j->buffer) == 0)
				break;
		if (i == f->nbuf) {
			tdat_warn("%s: no buffer \"%s\"", path, j->buffer);
			tdat_close(f);
			return 2;
		}
		j->jo.buffer = (int)i;
	}
	if (j->output) {
		if ((st = out_open(&of, j->output)) != 0) {
			tdat_close(f);
			return st;
		}
		out = of.fp;
	}
	rc = tdat_json_write(f, out, &j->jo, &e);
	st = rc < 0 ? tdat_report_err(path, &e) : 0;
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
		case 'B':
			j.buffer = optarg;
			break;
		case O_CPU:
			free((void *)j.jo.cpus);
			j.jo.cpus = tdat_cli_cpus("--cpu", optarg, &j.jo.ncpus);
			break;
		}
	}
	if (argc - optind > 1)
		tdat_usage_error("more than one FILE");
	if (j.jo.mode == TDAT_JSON_META && (j.buffer || j.jo.cpus))
		tdat_usage_error("--meta takes no -B or --cpu");
	st = convert(optind < argc ? argv[optind] : "trace.dat", &j);
	free((void *)j.jo.cpus);
	return tdat_close_stdout(st);
}
