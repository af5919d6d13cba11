/*
 * page.c: the page layout a trace's header_page describes, and the
 * decoder's errors (the decoder itself is inline, in tdat-ring.h: the
 * reader calls it for every item).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-ring.h"

/* The value after "KEY:" in a header_page field line naming name. */
static int
hp_field(const char *text, const char *name, const char *key, int *out)
{
	const char *p = text, *line, *end;
	char pat[64];

	snprintf(pat, sizeof(pat), " %s;", name);
	while ((line = strstr(p, pat)) != NULL) {
		end = strchr(line, '\n');
		if (end == NULL)
			end = line + strlen(line);
		p = strstr(line, key);
		if (p != NULL && p < end) {
			*out = atoi(p + strlen(key));
			return 0;
		}
		p = end;
	}
	return -1;
}

int
tdat_ring_layout(int big, int lsize, const char *hp, uint64_t hp_off,
    struct tdat_page_layout *pl, struct tdat_err *e)
{
	if (hp == NULL)
		hp = "";
	memset(pl, 0, sizeof(*pl));
	pl->big = big;
	pl->commit_size = lsize;
	pl->data_off = 8 + lsize;
	hp_field(hp, "commit", "size:", &pl->commit_size);
	hp_field(hp, "data", "offset:", &pl->data_off);
	if (pl->commit_size != 4 && pl->commit_size != 8)
		return tdat_fail(e, TDAT_ECORRUPT, hp_off,
		    "header_page: commit size %d is neither 4 nor 8",
		    pl->commit_size);
	if (pl->data_off < 8 + pl->commit_size || pl->data_off > 64)
		return tdat_fail(e, TDAT_ECORRUPT, hp_off,
		    "header_page: data offset %d is not sane", pl->data_off);
	pl->padding_type = TDAT_RB_PADDING;
	pl->extend_type = TDAT_RB_EXTEND;
	pl->stamp_type = TDAT_RB_STAMP;
	return 0;
}

int
tdat_page_fail(const struct tdat_page_layout *pl, const struct tdat_page *pg,
    uint32_t at, struct tdat_err *e, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (pg->chunk_pos < 0)
		return tdat_fail(e, TDAT_ECORRUPT, tdat_page_where(pl, pg, at),
		    "%s", msg);
	return tdat_fail(e, TDAT_ECORRUPT, pg->off, "%s (chunk data +0x%llx)",
	    msg, (unsigned long long)pg->chunk_pos + (uint64_t)pl->data_off + at);
}
