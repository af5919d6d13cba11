/*
 * fixture.h: fixture copies for tdat's C unit tests (after tdat-int.h).
 */
#ifndef TDAT_FIXTURE_H
#define TDAT_FIXTURE_H

#include <unistd.h>

/* src rewritten by tdat_write as v6 with raw pages into fd, which is
 * closed; 0 or -1. */
static int write_v6(const char *src, int fd) __attribute__((unused));

static int
write_v6(const char *src, int fd)
{
	struct tdat_write_opts o = { .version = 6, .compression = "none" };
	struct tdat_file *f;
	struct tdat_err e;
	int rc;

	if (tdat_open(src, &f, &e) < 0) {
		close(fd);
		return -1;
	}
	rc = tdat_write(f, fd, &o, &e);
	tdat_close(f);
	close(fd);
	return rc;
}

#endif
