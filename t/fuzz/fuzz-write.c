/*
 * fuzz-write: libFuzzer harness for the writer, as tdat-cat drives it:
 * the input (after its first byte, see fuzz-write.h) is a trace.dat,
 * copied by tdat_write() or rebuilt through a selection keeping every
 * record (lib/merge/repack.c).  The writer must refuse it or write a file that
 * tdat-verify accepts.
 */
#include <stdint.h>

#include "fuzz-write.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1, ofd = -1;
	struct tdat_select_opts so;
	struct tdat_write_opts wo;
	struct tdat_select *sel = NULL;
	struct tdat_repack *rp = NULL;
	struct tdat_file *f;
	struct tdat_err e;
	char path[64];
	int bad;

	tdat_formats_all();
	if (size < 1 || fz_file(&fd, data + 1, size - 1, path,
	    sizeof(path)) < 0 || tdat_open(path, &f, &e) < 0)
		return 0;
	fz_write_opts(data[0], &wo);
	memset(&so, 0, sizeof(so));
	if (data[0] & 8) {
		if (tdat_select_open(&f, 1, &so, &sel, &bad, &e) < 0 ||
		    tdat_repack_open(&f, 1, sel, &rp, &e) < 0)
			goto out;
		wo.pages = tdat_repack_pages(rp);
	}
	fz_write_check("fuzz-write", f, &ofd, &wo);
out:
	tdat_repack_close(rp);
	tdat_select_close(sel);
	tdat_close(f);
	return 0;
}
