/*
 * json-write.c: the entry point of the JSON outputs, tdat_json_write():
 * one shape of tdat-json.h, then the stream flushed and checked.  It
 * calls the shapes (json-events.c, json-meta.c), which call json.c's
 * writer: the calls between the files run one way.
 */
#include <stdio.h>

#include "tdat-int.h"
#include "tdat-json.h"

int
tdat_json_write(struct tdat_file *f, FILE *out,
    const struct tdat_json_opts *o, struct tdat_err *e)
{
	return tdat_json_write_n(&f, 1, out, o, e);
}

int
tdat_json_write_n(struct tdat_file *const *files, size_t n, FILE *out,
    const struct tdat_json_opts *o, struct tdat_err *e)
{
	int rc;

	if (n != 1 && o->mode != TDAT_JSON_LINES)
		return tdat_fail_nooff(e, TDAT_EUSAGE, "--meta and --chrome "
		    "take one input");
	switch (o->mode) {
	case TDAT_JSON_META:
		rc = tdat_json_meta(files[0], out, o, e);
		break;
	case TDAT_JSON_CHROME:
	case TDAT_JSON_LINES:
		rc = tdat_json_events(files, n, out, o, e);
		break;
	default:
		return tdat_fail_nooff(e, TDAT_EUSAGE, "unknown JSON shape %d",
		    o->mode);
	}
	if (rc == 0 && (fflush(out) != 0 || ferror(out)))
		return tdat_fail_nooff(e, TDAT_EIO, "write error");
	return rc;
}
