/*
 * source.c: opening an input of any format.  Each input format bids on a
 * path, cheapest test first, as libarchive's readers do: an LTT trace
 * directory (info/system.xml inside), a CTF trace directory (metadata
 * inside), else a trace.dat file or standard input.  The tools call tdat_open() and never probe formats themselves;
 * what they get is a struct tdat_file whose pages come through its
 * format's page operations.  tdat_verify() checks an input the same way:
 * each format has its checker.
 */
#include <string.h>

#include "tdat-int.h"

static int
ltt_bid(const char *path)
{
	return strcmp(path, "-") != 0 && tdat_ltt_probe(path);
}

static int
ltt_open(const char *path, const struct tdat_open_opts *o,
    struct tdat_file **out, struct tdat_err *e)
{
	*out = NULL;
	if (o && o->salvage)
		return tdat_fail_nooff(e, TDAT_EUNSUP, "an LTT directory "
		    "cannot be salvaged: check it with tdat-verify");
	return tdat_ltt_open_tdat(path, out, e);
}

static int
ctf_bid(const char *path)
{
	return strcmp(path, "-") != 0 && tdat_ctf_probe(path);
}

static int
ctf_open(const char *path, const struct tdat_open_opts *o,
    struct tdat_file **out, struct tdat_err *e)
{
	*out = NULL;
	if (o && o->salvage)
		return tdat_fail_nooff(e, TDAT_EUNSUP, "a CTF directory "
		    "cannot be salvaged");
	return tdat_ctf_open_tdat(path, out, e);
}

static const struct source_format {
	const char *name;
	int	(*bid)(const char *path);	/* NULL: takes anything */
	int	(*open)(const char *path, const struct tdat_open_opts *,
		    struct tdat_file **, struct tdat_err *);
	int	(*verify)(const char *path, const struct tdat_verify_opts *,
		    struct tdat_verify_stats *, struct tdat_err *);
} formats[] = {
	{ "ltt", ltt_bid, ltt_open, tdat_ltt_verify_input },
	{ "ctf", ctf_bid, ctf_open, tdat_ctf_verify_input },
	{ "trace.dat", NULL, tdat_tracedat_open, tdat_tracedat_verify },
};

#define NFORMATS	(sizeof(formats) / sizeof(formats[0]))

/* The format of the input at path: the first that bids, else the last. */
static const struct source_format *
probe(const char *path)
{
	size_t i;

	for (i = 0; i < NFORMATS - 1; i++)
		if (formats[i].bid(path))
			break;
	return &formats[i];
}

int
tdat_open_ex(const char *path, const struct tdat_open_opts *o,
    struct tdat_file **out, struct tdat_err *e)
{
	return probe(path)->open(path, o, out, e);
}

int
tdat_open(const char *path, struct tdat_file **out, struct tdat_err *e)
{
	return tdat_open_ex(path, NULL, out, e);
}

int
tdat_verify(const char *path, const struct tdat_verify_opts *o,
    struct tdat_verify_stats *st, struct tdat_err *e)
{
	memset(st, 0, sizeof(*st));
	return probe(path)->verify(path, o, st, e);
}
