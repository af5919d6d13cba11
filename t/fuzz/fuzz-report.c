/*
 * fuzz-report: libFuzzer harness for the printers: tdat_open() on the
 * input (through a memfd), then the report as trace-cmd report prints
 * it, print formats and plugins.
 */
#include <stdint.h>

#include "tdat-int.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct tdat_report_opts ro = { .mode = TDAT_PRINT_PLUGINS };
	struct tdat_file *f;
	struct tdat_err e;
	char path[64];

	tdat_formats_all();
	if (fz_file(&fd, data, size, path, sizeof(path)) < 0 ||
	    fz_null() == NULL || tdat_open(path, &f, &e) < 0)
		return 0;
	tdat_report(f, fz_null(), &ro, &e);
	tdat_close(f);
	return 0;
}
