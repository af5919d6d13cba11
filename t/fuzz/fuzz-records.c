/*
 * fuzz-records: libFuzzer harness for the record stream: tdat_open() on
 * the input (through a memfd), every record through the reader, then
 * the records printed raw (trace-cmd report -R), which decodes every
 * field without the print formats.
 */
#include <stdint.h>

#include "tdat-int.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct tdat_records_opts ro = { .mode = TDAT_RECORDS_RAW };
	struct tdat_reader *r;
	struct tdat_record rec;
	struct tdat_file *f;
	struct tdat_err e;
	char path[64];
	int n = 0;

	tdat_formats_all();
	if (fz_file(&fd, data, size, path, sizeof(path)) < 0 ||
	    fz_null() == NULL || tdat_open(path, &f, &e) < 0)
		return 0;
	if (tdat_reader_open(f, NULL, &r, &e) == 0) {
		while (n++ < 100000 && tdat_reader_next(r, &rec, &e) > 0)
			;
		tdat_reader_close(r);
	}
	tdat_print_records(f, fz_null(), &ro, &e);
	tdat_close(f);
	return 0;
}
