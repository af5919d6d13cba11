/*
 * fuzz-open: libFuzzer harness for the container reader: tdat_open() on
 * the input (through a memfd), then tdat-verify's checks and the
 * structure dump.  Reading records and printing them are fuzz-records
 * and fuzz-report, so each input here stays cheap.
 */
#include <stdint.h>

#include "tdat-int.h"
#include "tdat-verify.h"
#include "fuzz.h"

static int
none(void *arg, const struct tdat_finding *fd)
{
	(void)arg;
	(void)fd;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct tdat_verify_opts vo = { .keep_going = 1, .found = none };
	struct tdat_verify_stats st;
	struct tdat_file *f;
	struct tdat_err e;
	char path[64];

	tdat_formats_all();
	if (fz_file(&fd, data, size, path, sizeof(path)) < 0 ||
	    fz_null() == NULL || tdat_open(path, &f, &e) < 0)
		return 0;
	tdat_verify_file(f, &vo, &st, &e);
	tdat_dump(f, fz_null(), TDAT_DUMP_ALL, &e);
	tdat_dump_flyrecord(f, fz_null(), &e);
	tdat_close(f);
	return 0;
}
