/*
 * fuzz-tree.h: a directory tree packed in one input, for the harnesses
 * of directory formats (fuzz-ltt, fuzz-ctfread): each file introduced by
 * a line "#@PATH" (at the start, or after a newline that is not part of
 * the file before it; the input's last newline is not part of the last
 * file):
 *
 *	#@info/system.xml\n<?xml ...>\n#@cpu/0\n<blocks>...\n
 *
 * fz_tree() writes it under a fresh directory in /dev/shm (tmpfs; TMPDIR
 * if absent) and returns that directory; fz_tree_empty() removes what it
 * made.  Paths keep [A-Za-z0-9._-/] and no "..".
 *
 * What each input made is remembered, to remove just that (no walk of
 * the tree, no mkdir of a directory made already); should a removal
 * fail, the tree is walked as a fallback.
 */
#ifndef FUZZ_TREE_H
#define FUZZ_TREE_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAXFILES	64
#define MAXDIRS		256

/* What this input made under dir, in the order made. */
static char made_file[MAXFILES][512], made_dir[MAXDIRS][512];
static int nfile, ndir, dirty, nodir = 1;

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

/* 1 if this input made directory path already. */
static int
made(const char *path)
{
	int i;

	for (i = 0; i < ndir; i++)
		if (strcmp(made_dir[i], path) == 0)
			return 1;
	return 0;
}

/* Make dir/rel's parent directories; 0 or -1. */
static int
parents(char *path, size_t skip)
{
	char *s;

	for (s = path + skip; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (made(path))
			;
		else if (mkdir(path, 0700) == 0) {
			if (ndir < MAXDIRS)
				snprintf(made_dir[ndir++], sizeof(made_dir[0]),
				    "%s", path);
			else
				dirty = 1;
		} else if (errno != EEXIST) {
			*s = '/';
			return -1;
		}
		*s = '/';
	}
	return 0;
}

/* Write one file of the tree: name[0..nlen) holds its path. */
static void
put(const char *dir, const uint8_t *name, size_t nlen, const uint8_t *d,
    size_t n)
{
	char path[512];
	size_t i, at;
	int fd;

	at = (size_t)snprintf(path, sizeof(path), "%s/", dir);
	if (nlen == 0 || nlen > 200 || name[0] == '/')
		return;
	for (i = 0; i < nlen; i++) {
		char c = (char)name[i];

		if (!(c == '/' || c == '.' || c == '_' || c == '-' ||
		    (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		    (c >= 'A' && c <= 'Z')))
			c = '_';
		path[at + i] = c;
	}
	path[at + nlen] = '\0';
	if (strstr(path + at, "..") != NULL || path[at + nlen - 1] == '/' ||
	    parents(path, at) < 0)
		return;
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0)
		return;
	snprintf(made_file[nfile++], sizeof(made_file[0]), "%s", path);
	if (n && write(fd, d, n) != (ssize_t)n)
		(void)0;
	close(fd);
}

/* Split the input at "#@PATH\n" headers and write the files. */
static void
unpack(const char *dir, const uint8_t *d, size_t size)
{
	const uint8_t *end = d + size, *p, *nl, *body, *next;
	int nfiles = 0;

	if (size < 2 || d[0] != '#' || d[1] != '@')
		return;
	for (p = d; p != NULL && nfiles < MAXFILES; p = next, nfiles++) {
		p += 2;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			return;
		body = nl + 1;
		next = memmem(body, (size_t)(end - body), "\n#@", 3);
		/* The last file ends before the input's final newline. */
		put(dir, p, (size_t)(nl - p), body, (size_t)((next ? next :
		    end > body && end[-1] == '\n' ? end - 1 : end) - body));
		if (next != NULL)
			next++;
	}
}

static char base[256], dir[300];

/* Remove what this input made, dir itself kept; the tree walked (dir
 * removed too) if anything else is left. */
static void
fz_tree_empty(void)
{
	int i;

	for (i = nfile; i-- > 0; )
		if (unlink(made_file[i]) < 0 && errno != ENOENT)
			dirty = 1;
	for (i = ndir; i-- > 0; )
		if (rmdir(made_dir[i]) < 0)
			dirty = 1;
	nfile = ndir = 0;
	if (dirty) {
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		dirty = 0;
		nodir = 1;
	}
}

static void
cleanup(void)
{
	fz_tree_empty();
	rmdir(dir);
	rmdir(base);
}

/* The input's tree under a fresh directory (its name; the same for
 * every input of a run, named after the harness). */
static const char *
fz_tree(const char *name, const uint8_t *data, size_t size)
{
	const char *tmp;

	if (base[0] == '\0') {
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" :
		    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
		snprintf(base, sizeof(base), "%s/%s.XXXXXX", tmp, name);
		if (mkdtemp(base) == NULL)
			abort();
		snprintf(dir, sizeof(dir), "%s/t", base);
		atexit(cleanup);
	}
	if (nodir) {
		if (mkdir(dir, 0700) < 0)
			abort();
		nodir = 0;
	}
	unpack(dir, data, size);
	return dir;
}

/* Open the tree as tdat_open() takes a path and read its records (at
 * most 100000), as tdat-dump --records and tdat-cat read a directory;
 * the caller includes tdat-int.h. */
static void
fz_tree_read(const char *top)
{
	struct tdat_reader *r;
	struct tdat_record rec;
	struct tdat_file *f;
	struct tdat_err e;
	int n = 0;

	tdat_formats_all();
	if (tdat_open(top, &f, &e) == 0) {
		if (tdat_reader_open(f, NULL, &r, &e) == 0) {
			while (n++ < 100000 && tdat_reader_next(r, &rec,
			    &e) > 0)
				;
			tdat_reader_close(r);
		}
		tdat_close(f);
	}
}

#endif
