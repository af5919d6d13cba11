/*
 * output.c: where every tool's output goes (tdat-output.h).
 *
 * A file output is written to a temporary ".NAME.XXXXXX" created with
 * O_EXCL beside the target, so that the rename stays on one file system,
 * and renamed over the target only once complete: nobody sees a partial
 * file under the final name.  Its mode is 0666 less the umask.  No path,
 * or "-", is standard output: a binary output (written with seeks) goes
 * through an unlinked spool copied out at the end and is refused on a
 * terminal; a text output is streamed.  A text output is written through
 * a FILE view that keeps the first write error with its errno, so that a
 * tool can name the output, not the input, in its one message.  An output
 * that is one of the inputs is refused.  A directory output is a
 * temporary directory beside the target, renamed onto it on commit and
 * removed with everything in it on abort.
 *
 * Interruption.  Every live temporary is in a small registry.  The first
 * one installs a handler for SIGINT, SIGTERM, SIGHUP and SIGPIPE (each
 * one the process does not ignore: a SIGHUP ignored under nohup stays
 * ignored) that removes every registered temporary, restores the default
 * action and raises the signal again, so that the process ends as killed
 * by it (status 128 + N in the shell).  The handler makes only system
 * calls: unlink for a file; for a directory openat, getdents64, unlinkat
 * and close, depth first, within a fixed depth and stack buffers.  POSIX
 * lists all of them as async-signal-safe except getdents64, which is a
 * bare system call with no library state, lock or allocation behind it;
 * that is what the list guards against.  A flag polled by the writers was
 * the other choice, rejected: a writer blocked in write() (a full pipe,
 * a stalled terminal or NFS server) never polls it, and the LTT writer
 * has many loops besides its record loop.  The registry changes only
 * with those signals blocked, so the handler never sees half an entry;
 * it changes only outside tdat_write(), whose helper thread (which could
 * also take a signal) lives inside that call.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdat-int.h"

#define MAX_LIVE	8	/* temporaries alive at once */
#define MAX_DEPTH	16	/* directory levels the handler removes */
#define VIEW_BUF	65536

struct tdat_out {
	char *path;		/* the target; NULL for standard output */
	char *tmp;		/* the temporary, or NULL */
	int slot;		/* its registry entry, or -1 */
	int fd;			/* -1 for a directory */
	int dest;		/* where a spool is copied: 1, a device, -1 */
	int binary, dir;
	FILE *fp;		/* the text view */
	char *buf;		/* its buffer */
	int werr;		/* the first write error through fp (errno) */
};

static struct {
	char *volatile path;
	volatile sig_atomic_t dir;
} live[MAX_LIVE];

static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

/* The text view opened last, for tdat_fwrite_big(); a tool has one. */
static struct tdat_out *big_view;

/* ------------------------------------------------------------------ */
/* The registry and the signal handler. */

/* Remove the directory entry name in dfd and everything under it; only
 * system calls, for the signal handler. */
static int
rm_at(int dfd, const char *name, int depth)
{
	union {
		struct dirent64 d;
		char b[2048];
	} u;
	struct dirent64 *d;
	ssize_t n, k;
	int fd, again;

	if (unlinkat(dfd, name, 0) == 0)
		return 0;
	if ((errno != EISDIR && errno != EPERM) || depth >= MAX_DEPTH)
		return -1;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* Read again from the start while a pass removes something. */
	do {
		again = 0;
		if (lseek(fd, 0, SEEK_SET) < 0)
			break;
		while ((n = getdents64(fd, u.b, sizeof(u.b))) > 0)
			for (k = 0; k < n; k += d->d_reclen) {
				d = (struct dirent64 *)(void *)(u.b + k);
				if (strcmp(d->d_name, ".") != 0 &&
				    strcmp(d->d_name, "..") != 0 &&
				    rm_at(fd, d->d_name, depth + 1) == 0)
					again = 1;
			}
	} while (again);
	close(fd);
	return unlinkat(dfd, name, AT_REMOVEDIR);
}

static void
remove_tmp(const char *path, int dir)
{
	if (dir)
		rm_at(AT_FDCWD, path, 0);
	else
		unlink(path);
}

void
tdat_out_remove_live(void)
{
	size_t i;

	for (i = 0; i < MAX_LIVE; i++)
		if (live[i].path) {
			remove_tmp(live[i].path, live[i].dir);
			live[i].path = NULL;
		}
}

static void
on_signal(int sig)
{
	struct sigaction sa;
	sigset_t set;

	tdat_out_remove_live();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	raise(sig);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	_exit(128 + sig);
}

static void
block_sigs(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&set, sigs[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

static void
restore_sigs(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Once: the handler for every signal of sigs[] not ignored. */
static void
set_handlers(void)
{
	static int done;
	struct sigaction sa, cur;
	size_t i;

	if (done)
		return;
	done = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], NULL, &cur) == 0 &&
		    cur.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
}

/* Register o->tmp (signals blocked by the caller); -1 if full. */
static int
live_add(struct tdat_out *o)
{
	int i;

	set_handlers();
	for (i = 0; i < MAX_LIVE; i++)
		if (live[i].path == NULL) {
			live[i].dir = o->dir;
			live[i].path = o->tmp;
			o->slot = i;
			return 0;
		}
	return -1;
}

/* Forget o->tmp (signals blocked by the caller). */
static void
live_drop(struct tdat_out *o)
{
	if (o->slot >= 0)
		live[o->slot].path = NULL;
	o->slot = -1;
}

/* ------------------------------------------------------------------ */
/* Opening. */

static mode_t
get_umask(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return mask;
}

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

static struct tdat_out *
out_new(const char *path, struct tdat_err *e)
{
	struct tdat_out *o;

	if ((o = calloc(1, sizeof(*o))) == NULL ||
	    (path && (o->path = strdup(path)) == NULL)) {
		free(o);
		tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		return NULL;
	}
	o->fd = -1;
	o->dest = -1;
	o->slot = -1;
	return o;
}

/* o->tmp: ".NAME.XXXXXX" in the directory of o->path. */
static int
tmp_name(struct tdat_out *o, struct tdat_err *e)
{
	const char *p = o->path, *slash = strrchr(p, '/');
	size_t dlen = slash ? (size_t)(slash - p + 1) : 0;

	if ((o->tmp = malloc(strlen(p) + 10)) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	sprintf(o->tmp, "%.*s.%s.XXXXXX", (int)dlen, p, p + dlen);
	return 0;
}

/* The temporary beside the target, created and registered with the
 * signals blocked, so that no signal can leave it behind. */
static int
open_beside(struct tdat_out *o, struct tdat_err *e)
{
	sigset_t old;
	int rc = 0, err = 0;

	if ((rc = tmp_name(o, e)) < 0)
		return rc;
	block_sigs(&old);
	if (o->dir ? mkdtemp(o->tmp) == NULL :
	    (o->fd = mkostemp(o->tmp, O_CLOEXEC)) < 0)
		err = errno;
	else if (live_add(o) < 0) {
		remove_tmp(o->tmp, o->dir);
		err = EMFILE;
	}
	restore_sigs(&old);
	if (err) {
		free(o->tmp);
		o->tmp = NULL;
		return tdat_fail_nooff(e, TDAT_EIO, "cannot create a %s beside "
		    "it: %s", o->dir ? "directory" : "file", strerror(err));
	}
	if (o->dir)
		(void)chmod(o->tmp, 0777 & ~get_umask());
	else
		(void)fchmod(o->fd, 0666 & ~get_umask());
	return 0;
}

/* An unlinked spool in $TMPDIR for a binary output to o->dest (standard
 * output, a device or a FIFO), copied there at the end. */
static int
open_spool(struct tdat_out *o, struct tdat_err *e)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];

	if (isatty(o->dest))
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

/* The FILE view's writer: all of p, or 0 with the error kept. */
static ssize_t
view_write(void *arg, const char *p, size_t n)
{
	struct tdat_out *o = arg;
	size_t done = 0;
	ssize_t k;

	while (done < n && o->werr == 0) {
		k = write(o->fd, p + done, n - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			o->werr = k < 0 ? errno : EIO;
		else
			done += (size_t)k;
	}
	return o->werr ? 0 : (ssize_t)n;
}

/* A target that exists and is not a regular file (/dev/full, a FIFO, a
 * terminal) is written in place: renaming a temporary onto it would
 * replace the device.  0 when path is not such a target, 1 when o->dest
 * is open on it, or a negative code. */
static int
open_special(struct tdat_out *o, struct tdat_err *e)
{
	struct stat st;

	if (stat(o->path, &st) < 0 || S_ISREG(st.st_mode) ||
	    S_ISDIR(st.st_mode))
		return 0;
	if ((o->dest = open(o->path, O_WRONLY | O_CLOEXEC)) < 0)
		return tdat_fail_nooff(e, TDAT_EIO, "cannot open: %s",
		    strerror(errno));
	return 1;
}

/* A target that is a symbolic link (-o /dev/stdout, a link to a file) is
 * replaced at the file it names: renaming onto the link itself would
 * replace the link.  A link naming nothing yet is replaced like a file. */
static int
follow_link(struct tdat_out *o, struct tdat_err *e)
{
	struct stat st;
	char *real;

	if (lstat(o->path, &st) < 0 || !S_ISLNK(st.st_mode))
		return 0;
	if ((real = realpath(o->path, NULL)) == NULL)
		return errno == ENOMEM ? tdat_fail_nooff(e, TDAT_ENOMEM,
		    "out of memory") : 0;
	free(o->path);
	o->path = real;
	return 0;
}

static int
open_view(struct tdat_out *o, struct tdat_err *e)
{
	static const cookie_io_functions_t io = { NULL, view_write, NULL,
	    NULL };

	if ((o->buf = malloc(VIEW_BUF)) == NULL ||
	    (o->fp = fopencookie(o, "w", io)) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	setvbuf(o->fp, o->buf, _IOFBF, VIEW_BUF);
	big_view = o;
	return 0;
}

/* stdio copies the head and the tail of a large fwrite() into the view's
 * buffer; a large block goes to write(2) whole instead, after what the
 * buffer holds so the order stays.  A failure goes through fwrite() too,
 * which then fails in view_write() and sets the stream's error flag. */
size_t
tdat_fwrite_big(const void *p, size_t n, FILE *fp)
{
	struct tdat_out *o = big_view;

	if (o == NULL || o->fp != fp || n < VIEW_BUF || fflush(fp) != 0 ||
	    view_write(o, p, n) != (ssize_t)n)
		return fwrite(p, 1, n, fp);
	return n;
}

int
tdat_out_open(const char *path, int flags, struct tdat_file *const *in,
    size_t n, struct tdat_out **out, struct tdat_err *e)
{
	struct tdat_out *o;
	int rc;

	*out = NULL;
	if (path && strcmp(path, "-") == 0)
		path = NULL;
	if (path && same_as_input(path, in, n))
		return tdat_fail_nooff(e, TDAT_EUSAGE, "the output is one of "
		    "the inputs");
	if ((o = out_new(path, e)) == NULL)
		return TDAT_ENOMEM;
	o->binary = (flags & TDAT_OUT_BINARY) != 0;
	rc = 0;
	if (path == NULL)
		o->dest = 1;
	else if ((rc = open_special(o, e)) == 0 &&
	    (rc = follow_link(o, e)) == 0)
		rc = open_beside(o, e);
	if (rc >= 0 && o->dest >= 0) {
		if (o->binary)
			rc = open_spool(o, e);
		else {		/* text goes straight to it */
			o->fd = o->dest;
			o->dest = -1;
			rc = 0;
		}
	}
	if (rc == 0 && !o->binary)
		rc = open_view(o, e);
	if (rc < 0) {
		tdat_out_abort(o);
		return rc;
	}
	*out = o;
	return 0;
}

int
tdat_out_open_dir(const char *path, struct tdat_out **out,
    struct tdat_err *e)
{
	struct tdat_out *o;
	struct stat st;
	size_t n;
	int rc;

	*out = NULL;
	if ((o = out_new(path, e)) == NULL)
		return TDAT_ENOMEM;
	o->dir = 1;
	n = strlen(o->path);
	while (n > 1 && o->path[n - 1] == '/')
		o->path[--n] = '\0';
	if (n == 0 || lstat(o->path, &st) == 0)
		rc = tdat_fail_nooff(e, TDAT_EUSAGE, "already exists");
	else
		rc = open_beside(o, e);
	if (rc < 0) {
		tdat_out_abort(o);
		return rc;
	}
	*out = o;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Using. */

int
tdat_out_fd(const struct tdat_out *o)
{
	return o->fd;
}

FILE *
tdat_out_fp(struct tdat_out *o)
{
	return o->fp;
}

const char *
tdat_out_path(const struct tdat_out *o)
{
	return o->tmp;
}

const char *
tdat_out_name(const char *path)
{
	return path && strcmp(path, "-") != 0 ? path : "stdout";
}

int
tdat_out_failed(const struct tdat_out *o)
{
	return o->werr != 0;
}

/* ------------------------------------------------------------------ */
/* Ending. */

static int
copy_spool(struct tdat_out *o, struct tdat_err *e)
{
	char buf[65536];
	off_t off = 0;
	ssize_t n, w, k;

	for (;;) {
		n = pread(o->fd, buf, sizeof(buf), off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return tdat_fail_nooff(e, TDAT_EIO, "read spool: %s",
			    strerror(errno));
		if (n == 0)
			return 0;
		for (k = 0; k < n; k += w) {
			w = write(o->dest, buf + k, (size_t)(n - k));
			if (w < 0 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w <= 0)
				return tdat_fail_nooff(e, TDAT_EIO,
				    "write error: %s", w < 0 ?
				    strerror(errno) : "nothing written");
		}
		off += n;
	}
}

/* Close the view and the file; the first error as errno, or 0. */
static int
close_files(struct tdat_out *o)
{
	int err = 0;

	if (o->fp) {
		if (big_view == o)
			big_view = NULL;
		if (fclose(o->fp) != 0 && o->werr == 0)
			o->werr = errno ? errno : EIO;
		o->fp = NULL;
		err = o->werr;
	}
	if (o->fd > 1 && close(o->fd) < 0 && err == 0)
		err = errno;
	o->fd = -1;
	if (o->dest > 1 && close(o->dest) < 0 && err == 0)
		err = errno;
	o->dest = -1;
	return err;
}

int
tdat_out_commit(struct tdat_out *o, struct tdat_err *e)
{
	sigset_t old;
	int rc = 0, err;

	if (o->binary && o->dest >= 0)
		rc = copy_spool(o, e);
	if ((err = close_files(o)) != 0 && rc == 0)
		rc = tdat_fail_nooff(e, TDAT_EIO, "write error: %s",
		    strerror(err));
	if (rc == 0 && o->tmp) {
		block_sigs(&old);
		if (rename(o->tmp, o->path) < 0)
			rc = tdat_fail_nooff(e, TDAT_EIO, "cannot rename the "
			    "temporary %s onto it: %s", o->tmp,
			    strerror(errno));
		else {
			live_drop(o);
			free(o->tmp);
			o->tmp = NULL;
		}
		restore_sigs(&old);
	}
	tdat_out_abort(o);
	return rc;
}

void
tdat_out_abort(struct tdat_out *o)
{
	sigset_t old;

	if (o == NULL)
		return;
	close_files(o);
	if (o->tmp) {
		block_sigs(&old);
		if (o->slot >= 0)
			remove_tmp(o->tmp, o->dir);
		live_drop(o);
		restore_sigs(&old);
	}
	free(o->tmp);
	free(o->buf);
	free(o->path);
	free(o);
}
