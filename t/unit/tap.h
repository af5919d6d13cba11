/*
 * tap.h: the Test Anything Protocol for tdat's C unit tests.  ok() prints
 * "ok N - what" or "not ok N - what"; tap_done() prints the plan and gives
 * main's exit status.  t/run-tests counts the lines.
 */
#ifndef TDAT_TAP_H
#define TDAT_TAP_H

#include <stdarg.h>
#include <stdio.h>

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

#endif
