/*
 * test_event_report.c: tdat_report() (lib/report.c) on fixtures of
 * t/data, compared line for line with what trace-cmd report -t, -N -t and
 * -R -t print for them.  TAP output.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "tap.h"



/* The first differing line, for the diagnostics. */
static void
first_diff(const char *a, const char *b)
{
	int line = 1;

	while (*a && *a == *b) {
		if (*a == '\n')
			line++;
		a++;
		b++;
	}
	printf("# first difference at line %d\n", line);
}

static void
check(const char *dir, const char *name, const char *suffix, int mode)
{
	struct tdat_report_opts o = { mode, 1, NULL };
	struct tdat_file *f = NULL;
	struct tdat_err e;
	char path[512], *want, *got = NULL;
	size_t wn = 0, gn = 0;
	FILE *out;
	int rc;

	memset(&e, 0, sizeof(e));
	snprintf(path, sizeof(path), "%s/expected/%s.%s.txt", dir, name,
	    suffix);
	if ((want = slurp(path, &wn)) == NULL) {
		ok(0, "%s %s: read %s", name, suffix, path);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s.dat", dir, name);
	if ((out = open_memstream(&got, &gn)) == NULL ||
	    tdat_open(path, &f, &e) < 0) {
		ok(0, "%s %s: open: %s", name, suffix, e.msg);
		free(want);
		return;
	}
	rc = tdat_report(f, out, &o, &e);
	fclose(out);
	tdat_close(f);
	ok(rc == 0 && gn == wn && memcmp(got, want, wn) == 0,
	    "%s: same lines as trace-cmd %s", name, suffix);
	if (rc != 0)
		printf("# %s\n", e.msg);
	else if (gn != wn || memcmp(got, want, wn) != 0)
		first_diff(want, got);
	free(want);
	free(got);
}

int
main(void)
{
	static const char *files[] = { "labsisop-qemu-trace",
	    "kinmax-listen-trace.192.168.1.10_53616", NULL };
	const char *dir = getenv("TDAT_DATA");
	int i;

	if (dir == NULL)
		dir = "t/data";
	for (i = 0; files[i]; i++) {
		check(dir, files[i], "report-N", TDAT_PRINT_FMT);
		check(dir, files[i], "report-R", TDAT_PRINT_RAW);
		check(dir, files[i], "report", TDAT_PRINT_PLUGINS);
	}
	printf("1..%d\n", ntest);
	return nfail != 0;
}
