/*
 * cli-salvage.c: tdat-cat --salvage, the command-line part (like cli.c,
 * it prints): open a damaged trace.dat tolerantly, write its intact
 * pages through the salvage page source (lib/check/salvage.c), and say per
 * buffer and CPU what was kept and what was dropped.
 */
#include <stdio.h>
#include <string.h>

#include "tdat-int.h"

/* One line per piece the tolerant open dropped. */
static void
report_open(const struct tdat_file *f)
{
	struct tdat_err e;
	size_t i;

	for (i = 0; i < f->ndamage; i++) {
		memset(&e, 0, sizeof(e));
		e.code = TDAT_ECORRUPT;
		e.has_off = f->damage[i].has_off;
		e.off = f->damage[i].off;
		snprintf(e.msg, sizeof(e.msg), "dropped: %.200s", f->damage[i].msg);
		tdat_report_err(f->path, &e);
	}
}

/* One line per buffer and CPU: kept, dropped, where the damage starts. */
static void
report_cpus(const struct tdat_file *f, const struct tdat_salvage *s)
{
	const struct tdat_salvage_cpu *c;
	struct tdat_err e;
	size_t i;
	int n;

	for (i = 0; (c = tdat_salvage_cpu(s, i)) != NULL; i++) {
		memset(&e, 0, sizeof(e));
		e.code = TDAT_ECORRUPT;
		e.has_off = c->damaged && c->has_off;
		e.off = c->off;
		n = snprintf(e.msg, sizeof(e.msg), "buffer \"%s\" CPU %u: kept "
		    "%llu pages (%llu records), dropped %llu pages",
		    f->buf[c->buffer].name, c->cpu,
		    (unsigned long long)c->pages,
		    (unsigned long long)c->records,
		    (unsigned long long)c->lost_pages);
		if (c->lost_records && n > 0 && (size_t)n < sizeof(e.msg))
			n += snprintf(e.msg + n, sizeof(e.msg) - (size_t)n,
			    " (%llu records in them before the damage)",
			    (unsigned long long)c->lost_records);
		if (c->lost_pieces && n > 0 && (size_t)n < sizeof(e.msg))
			n += snprintf(e.msg + n, sizeof(e.msg) - (size_t)n,
			    " and %llu unreadable chunks or windows",
			    (unsigned long long)c->lost_pieces);
		if (c->damaged && n > 0 && (size_t)n < sizeof(e.msg))
			snprintf(e.msg + n, sizeof(e.msg) - (size_t)n,
			    ": %.120s", c->why);
		tdat_report_err(f->path, &e);
	}
}

static int
salvage_write(struct tdat_file *f, struct tdat_salvage *s, const char *output,
    int version, const char *compression)
{
	struct tdat_write_opts wo = { 0 };
	struct tdat_err e = { 0 };
	struct tdat_out *out;
	const char *name = tdat_out_name(output);

	wo.version = version;
	wo.compression = compression ? compression :
	    version >= 7 ? "zstd" : "none";
	wo.pages = tdat_salvage_pages(s);
	if (tdat_out_open(output, TDAT_OUT_BINARY, &f, 1, &out, &e) < 0)
		return tdat_report_err(name, &e);
	if (tdat_write(f, tdat_out_fd(out), &wo, &e) < 0) {
		tdat_out_abort(out);
		return tdat_report_err(e.has_off ? f->path : name, &e);
	}
	if (tdat_out_commit(out, &e) < 0)
		return tdat_report_err(name, &e);
	return 0;
}

int
tdat_cli_salvage(char **paths, size_t n, const char *output, int version,
    const char *compression)
{
	struct tdat_open_opts oo = { .salvage = 1 };
	struct tdat_salvage *s = NULL;
	struct tdat_file *f = NULL;
	struct tdat_err e = { 0 };
	const char *path = n ? paths[0] : "-";
	int rc;

	if (n > 1)
		tdat_usage_error("--salvage takes one input");
	if (tdat_open_ex(path, &oo, &f, &e) < 0)
		return tdat_report_err(path, &e);
	if ((rc = tdat_salvage_open(f, &s, &e)) < 0)
		rc = tdat_report_err(path, &e);
	else if ((rc = salvage_write(f, s, output, version, compression)) == 0 &&
	    tdat_salvage_damaged(s)) {
		report_open(f);
		report_cpus(f, s);
		rc = 1;
	}
	tdat_salvage_close(s);
	tdat_close(f);
	return rc;
}
