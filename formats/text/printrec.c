/*
 * printrec.c: tdat_print_records(), the glue between tdat-dump --records
 * and the report printer (formats/text/report.c).
 */
#include "tdat-int.h"

int
tdat_print_records_n(struct tdat_file *const *files, size_t n, FILE *out,
    const struct tdat_records_opts *o, struct tdat_err *e)
{
	struct tdat_report_opts r = { 0 };

	switch (o->mode) {
	case TDAT_RECORDS_PRINT:
		r.mode = TDAT_PRINT_FMT;
		break;
	case TDAT_RECORDS_RAW:
		r.mode = TDAT_PRINT_RAW;
		break;
	default:
		r.mode = TDAT_PRINT_PLUGINS;
	}
	r.ns = o->full_ts;
	r.sel = o->sel;
	r.tc = o->tc;
	r.lat = o->lat;
	r.fgraph = o->fgraph;
	return tdat_report_n(files, n, out, &r, e);
}

int
tdat_print_records(struct tdat_file *f, FILE *out,
    const struct tdat_records_opts *o, struct tdat_err *e)
{
	return tdat_print_records_n(&f, 1, out, o, e);
}
