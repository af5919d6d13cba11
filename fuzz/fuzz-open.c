/*
 * fuzz-open: libFuzzer harness for the container reader and everything
 * that reads a whole file: tdat_open() on the input (through a memfd),
 * then tdat-verify's checks, the record reader, the structure dump and
 * the report printer.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tdat-int.h"

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
	static FILE *null;
	struct tdat_verify_opts vo = { .keep_going = 1, .found = none };
	struct tdat_verify_stats st;
	struct tdat_reader *r;
	struct tdat_record rec;
	struct tdat_report_opts ro = { .mode = TDAT_PRINT_PLUGINS };
	struct tdat_file *f;
	struct tdat_err e;
	char path[64];
	int n = 0;

	if (fd < 0 && (fd = memfd_create("fuzz-open", 0)) < 0)
		return 0;
	if (null == NULL && (null = fopen("/dev/null", "w")) == NULL)
		return 0;
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (tdat_open(path, &f, &e) < 0)
		return 0;
	tdat_verify_file(f, &vo, &st, &e);
	if (tdat_reader_open(f, NULL, &r, &e) == 0) {
		while (n++ < 100000 && tdat_reader_next(r, &rec, &e) > 0)
			;
		tdat_reader_close(r);
	}
	tdat_dump(f, null, TDAT_DUMP_ALL, &e);
	tdat_dump_flyrecord(f, null, &e);
	tdat_report(f, null, &ro, &e);
	tdat_close(f);
	return 0;
}
