/*
 * fuzz-ctfread: libFuzzer harness for the CTF reader (formats/ctf/
 * ctf-read.c): the input is a directory tree packed as fuzz-tree.h says
 * ("#@metadata\n<TSDL>\n#@cpu0\n<packets>\n#@tdat/container\n..."),
 * the seeds tdat-to-ctf's directories of the small trace.dat
 * seeds (t/fuzz/mkseeds), written under a fresh directory in /dev/shm,
 * opened with tdat_open() (babeltrace2's src.ctf.fs reads the metadata
 * and the data streams) and its records read, as tdat-dump --records
 * and tdat-cat DIR read them.
 */
#include "tdat-int.h"
#include "fuzz.h"
#include "fuzz-tree.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_tree_read(fz_tree("fuzz-ctfread", data, size));
	fz_tree_empty();
	return 0;
}
