/*
 * test_table.c: unit tests of formats/table/table.c: however few tables
 * it may write at once (max_open), each flushed and closed for another
 * and opened again to append, the tables are byte for byte those written
 * with every table open, and the files it holds open stay within the
 * bound.  TAP.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdat-int.h"
#include "tap.h"

static int maxfds;

/* Open descriptors now. */
static int
nfds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;		/* the directory's own */
}

static void
progress(void *arg, uint64_t done, uint64_t total)
{
	int n = nfds();

	(void)arg;
	(void)done;
	(void)total;
	if (n > maxfds)
		maxfds = n;
}

/* Write path's tables into dir with at most max_open at once; 0 or -1. */
static int
tables(const char *path, const char *dir, int max_open, uint64_t *ntables)
{
	struct tdat_table_opts o;
	struct tdat_file *f;
	struct tdat_err e;
	int rc;

	memset(&o, 0, sizeof(o));
	o.max_open = max_open;
	o.progress = progress;
	if (tdat_open(path, &f, &e) < 0)
		return -1;
	if (mkdir(dir, 0777) < 0) {
		tdat_close(f);
		return -1;
	}
	rc = tdat_table_write(&f, 1, dir, &o, &e);
	if (rc < 0)
		fprintf(stderr, "%s\n", e.msg);
	*ntables = o.tables;
	tdat_close(f);
	return rc;
}

/* Whether every file of a is in b with the same bytes (and as many). */
static int
same_dirs(const char *a, const char *b)
{
	char pa[8600], pb[8600];
	DIR *d = opendir(a);
	struct dirent *de;
	size_t na, nb;
	char *x, *y;
	int same = d != NULL, n = 0;

	while (same && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(pa, sizeof(pa), "%s/%s", a, de->d_name);
		snprintf(pb, sizeof(pb), "%s/%s", b, de->d_name);
		x = slurp(pa, &na);
		y = slurp(pb, &nb);
		same = x && y && na == nb && memcmp(x, y, na) == 0;
		if (!same)
			printf("# %s differs\n", de->d_name);
		free(x);
		free(y);
		n++;
	}
	if (d)
		closedir(d);
	if ((d = opendir(b)) != NULL) {
		while ((de = readdir(d)) != NULL)
			n -= de->d_name[0] != '.';
		closedir(d);
	}
	return same && n == 0;
}

int
main(void)
{
	char tmp[] = "/tmp/test_table.XXXXXX", a[4200], b[4200];
	const char *in = "t/data/x86_64-default-sched.dat";
	uint64_t na = 0, nb = 0;
	int base, k, rc;

	tdat_formats_all();
	if (mkdtemp(tmp) == NULL)
		return 2;
	snprintf(a, sizeof(a), "%s/all", tmp);
	base = nfds();
	maxfds = 0;
	rc = tables(in, a, 0, &na);
	ok(rc == 0 && na > 20, "every table open: %llu tables",
	    (unsigned long long)na);
	for (k = 1; k <= 3; k++) {
		snprintf(b, sizeof(b), "%s/%d", tmp, k);
		maxfds = 0;
		rc = tables(in, b, k, &nb);
		ok(rc == 0 && nb == na,
		    "at most %d open: %llu tables", k, (unsigned long long)nb);
		ok(same_dirs(a, b), "at most %d open: the same bytes", k);
		/* the input, its events' set, and k tables */
		ok(maxfds > 0 && maxfds <= base + 2 + k,
		    "at most %d open: %d descriptors (%d before)", k, maxfds,
		    base);
	}
	rm_tree(tmp);
	return tap_done();
}
