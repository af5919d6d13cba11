/*
 * tap.h: the Test Anything Protocol for tdat's C unit tests.  ok() prints
 * "ok N - what" or "not ok N - what"; tap_done() prints the plan and gives
 * main's exit status.  t/run-tests counts the lines.
 */
#ifndef TDAT_TAP_H
#define TDAT_TAP_H

#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static int ntest, nfail;

static void ok(int cond, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), unused));

static void
ok(int cond, const char *fmt, ...)
{
	va_list ap;

	ntest++;
	if (!cond)
		nfail++;
	printf("%sok %d - ", cond ? "" : "not ", ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int tap_done(void) __attribute__((unused));

static int
tap_done(void)
{
	printf("1..%d\n", ntest);
	return nfail != 0;
}

/* A whole file, NUL-terminated, its length in *n; NULL on any error. */
static char *slurp(const char *path, size_t *n) __attribute__((unused));

static char *
slurp(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	char *p = NULL;
	long len;

	*n = 0;
	if (fp == NULL)
		return NULL;
	if (fseek(fp, 0, SEEK_END) == 0 && (len = ftell(fp)) >= 0 &&
	    fseek(fp, 0, SEEK_SET) == 0 && (p = malloc((size_t)len + 1)) &&
	    fread(p, 1, (size_t)len, fp) == (size_t)len) {
		p[len] = '\0';
		*n = (size_t)len;
	} else {
		free(p);
		p = NULL;
	}
	fclose(fp);
	return p;
}

/* Remove a test's temporary directory tree. */
static int rm_one(const char *p, const struct stat *st, int flag,
    struct FTW *ftw) __attribute__((unused));

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void rm_tree(const char *dir) __attribute__((unused));

static void
rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
