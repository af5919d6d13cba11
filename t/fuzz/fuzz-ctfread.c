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
	struct tdat_reader *r;
	struct tdat_record rec;
	struct tdat_file *f;
	struct tdat_err e;
	const char *top = fz_tree("fuzz-ctfread", data, size);
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
	fz_tree_empty();
	return 0;
}
