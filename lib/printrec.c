/*
 * printrec.c: tdat_print_records(), the glue between tdat-dump --records
 * and the report printer.
 */
#include "tdat.h"

int
tdat_print_records(struct tdat_file *f, FILE *out,
    const struct tdat_records_opts *o, struct tdat_err *e)
{
	(void)f;
	(void)out;
	(void)o;
	return tdat_fail_nooff(e, TDAT_EUNSUP, "--records is not built yet");
}
