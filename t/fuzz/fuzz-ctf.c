/*
 * fuzz-ctf: libFuzzer harness for the CTF writer, as tdat-to-ctf drives
 * it: the input after its first byte is a trace.dat (the write seeds),
 * converted by tdat_ctf_write() into a fresh directory (bit 0 of the
 * first byte: --lttng), which is then removed.  The writer must refuse
 * the input or write a directory with its metadata (that babeltrace2
 * reads it, t/fuzz/sweep checks over a corpus).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdat-int.h"
#include "fuzz.h"

/* Remove the directory dir and what it holds (two levels: tdat/x/y). */
static void
rm_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[4096];
	struct stat st;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			rm_tree(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct tdat_ctf_write_opts o;
	struct tdat_file *f;
	struct tdat_err e;
	char path[64], dir[64], meta[96];
	struct stat st;
	int rc;

	tdat_formats_all();
	if (size < 1 || fz_file(&fd, data + 1, size - 1, path,
	    sizeof(path)) < 0 || tdat_open(path, &f, &e) < 0)
		return 0;
	snprintf(dir, sizeof(dir), "/tmp/fuzz-ctf.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		tdat_close(f);
		return 0;
	}
	memset(&o, 0, sizeof(o));
	o.lttng = data[0] & 1;
	rc = tdat_ctf_write(f, dir, &o, &e);
	snprintf(meta, sizeof(meta), "%s/metadata", dir);
	if (rc == 0 && stat(meta, &st) < 0) {
		fprintf(stderr, "fuzz-ctf: written without its metadata\n");
		abort();
	}
	if (rc < 0 && e.msg[0] == '\0') {
		fprintf(stderr, "fuzz-ctf: refused without a message\n");
		abort();
	}
	rm_tree(dir);
	tdat_close(f);
	return 0;
}
