/*
 * fuzz-ltt: libFuzzer harness for LTT trace directories (formats/ltt*.c):
 * the input is a directory tree packed as fuzz-tree.h says
 * ("#@info/system.xml\n<?xml ...>\n#@cpu/0\n<blocks>...\n"), written
 * under a fresh directory in /dev/shm, opened with tdat_open(), its
 * records read and its checks run (tdat_ltt_verify).  The files and
 * directories made are removed after each input (a fifth of each input
 * went to system calls when the tree was walked).
 */
#include "tdat-int.h"
#include "tdat-ltt.h"
#include "fuzz.h"
#include "fuzz-tree.h"

static void
found(void *arg, const char *file, long long block, long long off,
    const char *msg)
{
	(void)arg;
	(void)file;
	(void)block;
	(void)off;
	(void)msg;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tdat_err e;
	const char *top = fz_tree("fuzz-ltt", data, size);

	fz_tree_read(top);
	tdat_ltt_verify(top, found, NULL, &e);
	fz_tree_empty();
	return 0;
}
