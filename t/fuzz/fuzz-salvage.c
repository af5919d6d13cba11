/*
 * fuzz-salvage: libFuzzer harness for tdat-cat --salvage: the input
 * (after its first byte, see fuzz-write.h) is a damaged trace.dat,
 * opened in salvage mode and its intact pages written; the output must
 * be a file that tdat-verify accepts.
 */
#include <stdint.h>

#include "fuzz-write.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1, ofd = -1;
	struct tdat_open_opts oo = { .salvage = 1 };
	struct tdat_write_opts wo;
	struct tdat_salvage *s;
	struct tdat_file *f;
	struct tdat_err e;
	char path[64];

	tdat_formats_all();
	if (size < 1 || fz_file(&fd, data + 1, size - 1, path,
	    sizeof(path)) < 0 || tdat_open_ex(path, &oo, &f, &e) < 0)
		return 0;
	if (tdat_salvage_open(f, &s, &e) == 0) {
		fz_write_opts(data[0], &wo);
		wo.pages = tdat_salvage_pages(s);
		fz_write_check("fuzz-salvage", f, &ofd, &wo);
		tdat_salvage_close(s);
	}
	tdat_close(f);
	return 0;
}
