/*
 * source.c: opening an input of any format.  The engine names no format:
 * the formats (formats/list/formats.c lists them) are handed to it once,
 * at start, by tdat_formats_set(); each bids on a path, cheapest test
 * first, as libarchive's readers do, and the first that bids opens it (a
 * format with no bid, last in the list, takes anything).  The tools call
 * tdat_open() and never probe formats themselves; what they get is a
 * struct tdat_file whose pages come through its format's page
 * operations.  tdat_verify() checks an input the same way: each format
 * has its checker.
 */
#include <string.h>

#include "tdat-int.h"

static const struct tdat_format *const *formats;

void
tdat_formats_set(const struct tdat_format *const *list)
{
	formats = list;
}

/* The format of the input at path: the first that bids, or NULL. */
static const struct tdat_format *
probe(const char *path, struct tdat_err *e)
{
	size_t i;

	for (i = 0; formats && formats[i]; i++)
		if (formats[i]->bid == NULL || formats[i]->bid(path))
			return formats[i];
	tdat_fail_nooff(e, TDAT_EUNSUP, formats ? "no input format reads "
	    "it" : "no input format is known (tdat_formats_set())");
	return NULL;
}

int
tdat_open_ex(const char *path, const struct tdat_open_opts *o,
    struct tdat_file **out, struct tdat_err *e)
{
	const struct tdat_format *fm;

	*out = NULL;
	if ((fm = probe(path, e)) == NULL)
		return TDAT_EUNSUP;
	return fm->open(path, o, out, e);
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
	const struct tdat_format *fm;

	memset(st, 0, sizeof(*st));
	if ((fm = probe(path, e)) == NULL)
		return TDAT_EUNSUP;
	return fm->verify(path, o, st, e);
}
