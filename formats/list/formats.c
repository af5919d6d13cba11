/*
 * formats.c: the input formats, in the order they bid on a path
 * (lib/read/source.c): a new format is one line here.  The one that takes
 * anything comes last.
 */
#include "tdat-int.h"
#include "tdat-ltt.h"
#include "tdat-ctf.h"
#include "tdat-tracedat.h"

static const struct tdat_format *const all[] = {
	&tdat_ltt_format,
	&tdat_ctf_format,
	&tdat_tracedat_format,
	NULL
};

void
tdat_formats_all(void)
{
	tdat_formats_set(all);
}
