/*
 * test_event_report.c: tdat_report() (formats/text/report.c) on fixtures of
 * t/data, compared line for line with what trace-cmd report -t, -N -t and
 * -R -t print for them.  TAP output.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	struct tdat_report_opts o = { mode, 1, NULL, 0, 0, 0 };
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

static int
note(void *arg, const struct tdat_finding *fd)
{
	if (strcmp(fd->kind, "print-format") == 0 && strstr(fd->msg,
	    "more than 4 MiB of text"))
		*(int *)arg = 1;
	return 0;
}

/* sched_switch's format in f with a print fmt of n conversions, each
 * padded TDAT_WIDTH_MAX columns; 0 or -1. */
static int
wide_switch(struct tdat_file *f, int n)
{
	struct tdat_blob *b = NULL;
	struct tdat_sbuf t;
	const char *pf;
	uint32_t si, ei;
	int i;

	for (si = 0; si < f->nsys && b == NULL; si++)
		for (ei = 0; ei < f->sys[si].nev; ei++)
			if (strstr((const char *)f->sys[si].ev[ei].p,
			    "name: sched_switch\n") != NULL) {
				b = &f->sys[si].ev[ei];
				break;
			}
	if (b == NULL || (pf = strstr((const char *)b->p, "print fmt:")) ==
	    NULL)
		return -1;
	tdat_sb_init(&t);
	tdat_sb_add(&t, (const char *)b->p, (size_t)(pf - (const char *)b->p));
	tdat_sb_puts(&t, "print fmt: \"");
	for (i = 0; i < n; i++)
		tdat_sb_puts(&t, "%*d");
	tdat_sb_puts(&t, "\"");
	for (i = 0; i < n; i++)
		tdat_sb_puts(&t, ", 5000, REC->next_pid");
	tdat_sb_puts(&t, "\n");
	if (t.oom)
		return -1;
	tdat_blob_free(b);
	b->p = (unsigned char *)t.p;
	b->len = t.len;
	return 0;
}

/*
 * A record whose text would pass TDAT_TEXT_MAX stops the report with a
 * finding at its offset (exit 1), the lines before it written; a print
 * format of 1100 conversions of 4096 columns makes 4.5 MB.  Ten print.
 */
static void
check_text_max(const char *dir)
{
	struct tdat_write_opts wo = { .version = 6, .compression = "none" };
	struct tdat_report_opts o = { TDAT_PRINT_FMT, 1, NULL, 0, 0, 0 };
	struct tdat_verify_opts vo = { .keep_going = 1, .found = note };
	struct tdat_verify_stats st;
	struct tdat_err e2;
	int warned;
	char path[512], tmp[] = "/tmp/test_event_report.XXXXXX";
	struct tdat_file *f = NULL;
	struct tdat_err e;
	int fd, rc, n, k;
	char *got = NULL;
	size_t gn = 0;
	FILE *out;

	for (k = 0; k < 2; k++) {
		n = k ? 1100 : 10;
		memset(&e, 0, sizeof(e));
		snprintf(path, sizeof(path), "%s/labsisop-qemu-trace.dat", dir);
		if ((fd = mkstemp(tmp)) < 0 || tdat_open(path, &f, &e) < 0 ||
		    wide_switch(f, n) < 0 || tdat_write(f, fd, &wo, &e) < 0) {
			ok(0, "a copy with a wide sched_switch: %s", e.msg);
			return;
		}
		tdat_close(f);
		close(fd);
		got = NULL;
		if ((out = open_memstream(&got, &gn)) == NULL ||
		    tdat_open(tmp, &f, &e) < 0) {
			ok(0, "open the copy: %s", e.msg);
			return;
		}
		rc = tdat_report(f, out, &o, &e);
		fclose(out);
		tdat_close(f);
		vo.arg = &warned;
		warned = 0;
		memset(&st, 0, sizeof(st));
		tdat_verify(tmp, &vo, &st, &e2);
		ok(warned == k, "tdat-verify: %s", k ? "a warning" : "nothing");
		unlink(tmp);
		strcpy(tmp + strlen(tmp) - 6, "XXXXXX");
		if (k == 0)
			ok(rc == 0 && gn > 100 * 10 * 4096, "%d conversions of "
			    "4096 columns print (%zu bytes)", n, gn);
		else
			ok(rc < 0 && e.code == TDAT_ECORRUPT && e.has_off &&
			    strstr(e.msg, "runs past 4 MiB") && gn < 4096,
			    "%d of them: the text is refused past 4 MiB, with "
			    "the record's offset: %s", n, e.msg);
		free(got);
	}
}

int
main(void)
{
	static const char *files[] = { "labsisop-qemu-trace",
	    "kinmax-listen-trace.192.168.1.10_53616", NULL };
	const char *dir = getenv("TDAT_DATA");
	int i;

	tdat_formats_all();
	if (dir == NULL)
		dir = "t/data";
	for (i = 0; files[i]; i++) {
		check(dir, files[i], "report-N", TDAT_PRINT_FMT);
		check(dir, files[i], "report-R", TDAT_PRINT_RAW);
		check(dir, files[i], "report", TDAT_PRINT_PLUGINS);
	}
	check_text_max(dir);
	printf("1..%d\n", ntest);
	return nfail != 0;
}
