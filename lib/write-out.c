/*
 * write-out.c: where a written trace goes.  A named output is written to
 * a temporary created with O_EXCL beside it and renamed over it only once
 * complete; standard output gets an unlinked spool (the writer seeks
 * back to patch offsets) copied out at the end.  An output that is one of
 * the inputs, or a terminal, is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdat.h"

struct tdat_out {
	char *path;		/* the target; NULL for standard output */
	char *tmp;		/* the temporary beside it */
	int fd;
};

static int
same_as_input(const char *path, struct tdat_file *const *in, size_t n)
{
	struct stat a, b;
	size_t i;

	if (stat(path, &a) < 0)
		return 0;
	for (i = 0; i < n; i++)
		if (in[i] && fstat(in[i]->fd, &b) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return 1;
	return 0;
}

/* A temporary named ".NAME.XXXXXX" in the directory of path. */
static int
open_beside(struct tdat_out *o, const char *path, struct tdat_err *e)
{
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path + 1) : 0;
	mode_t mask;

	if ((o->tmp = malloc(strlen(path) + 10)) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	sprintf(o->tmp, "%.*s.%s.XXXXXX", (int)dlen, path, path + dlen);
	if ((o->fd = mkostemp(o->tmp, O_CLOEXEC)) < 0) {
		free(o->tmp);
		o->tmp = NULL;
		return tdat_fail_nooff(e, TDAT_EIO, "cannot create a file "
		    "beside the output: %s", strerror(errno));
	}
	mask = umask(0);
	umask(mask);
	(void)fchmod(o->fd, 0666 & ~mask);
	return 0;
}

/* An unlinked spool in $TMPDIR for standard output. */
static int
open_spool(struct tdat_out *o, struct tdat_err *e)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];

	if (isatty(1))
		return tdat_fail_nooff(e, TDAT_EUSAGE, "refusing to write a "
		    "trace to a terminal (use -o FILE or a redirection)");
	snprintf(path, sizeof(path), "%s/tdat-out.XXXXXX",
	    dir && *dir ? dir : "/tmp");
	if ((o->fd = mkostemp(path, O_CLOEXEC)) < 0)
		return tdat_fail_nooff(e, TDAT_EIO, "cannot create a spool "
		    "file: %s", strerror(errno));
	unlink(path);
	return 0;
}

int
tdat_out_open(const char *path, struct tdat_file *const *in, size_t n,
    struct tdat_out **out, struct tdat_err *e)
{
	struct tdat_out *o;
	int rc;

	*out = NULL;
	if ((o = calloc(1, sizeof(*o))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	o->fd = -1;
	if (path && strcmp(path, "-") != 0) {
		if (same_as_input(path, in, n)) {
			free(o);
			return tdat_fail_nooff(e, TDAT_EUSAGE,
			    "output %s is one of the inputs", path);
		}
		if ((o->path = strdup(path)) == NULL)
			rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		else
			rc = open_beside(o, path, e);
	} else
		rc = open_spool(o, e);
	if (rc < 0) {
		free(o->path);
		free(o);
		return rc;
	}
	*out = o;
	return 0;
}

int
tdat_out_fd(const struct tdat_out *o)
{
	return o->fd;
}

static int
copy_to_stdout(int fd, struct tdat_err *e)
{
	char buf[65536];
	off_t off = 0;
	ssize_t n, w, k;

	for (;;) {
		n = pread(fd, buf, sizeof(buf), off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return tdat_fail_nooff(e, TDAT_EIO, "read spool: %s",
			    strerror(errno));
		if (n == 0)
			return 0;
		for (k = 0; k < n; k += w) {
			w = write(1, buf + k, (size_t)(n - k));
			if (w < 0 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w < 0)
				return tdat_fail_nooff(e, TDAT_EIO,
				    "write to standard output: %s",
				    strerror(errno));
		}
		off += n;
	}
}

int
tdat_out_commit(struct tdat_out *o, struct tdat_err *e)
{
	int rc = 0;

	if (o->path == NULL)
		rc = copy_to_stdout(o->fd, e);
	else if (close(o->fd) < 0) {
		o->fd = -1;
		rc = tdat_fail_nooff(e, TDAT_EIO, "close: %s", strerror(errno));
	} else {
		o->fd = -1;
		if (rename(o->tmp, o->path) < 0)
			rc = tdat_fail_nooff(e, TDAT_EIO, "cannot rename onto "
			    "%s: %s", o->path, strerror(errno));
		else {
			free(o->tmp);
			o->tmp = NULL;
		}
	}
	tdat_out_abort(o);
	return rc;
}

void
tdat_out_abort(struct tdat_out *o)
{
	if (o == NULL)
		return;
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	free(o);
}
