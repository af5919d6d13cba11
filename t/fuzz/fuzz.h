/*
 * fuzz.h: what the harnesses in t/fuzz share: the input as a file (a
 * memfd, named through /proc/self/fd), and a sink for printed text.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Replace the contents of *fd (a memfd made on first use) with data, and
 * its name into path; 0, or -1 if that failed. */
static inline int
fz_file(int *fd, const uint8_t *data, size_t size, char *path, size_t cap)
{
	if (*fd < 0 && (*fd = memfd_create("fuzz", 0)) < 0)
		return -1;
	if (ftruncate(*fd, 0) < 0 || (size && pwrite(*fd, data, size, 0) !=
	    (ssize_t)size) || lseek(*fd, 0, SEEK_SET) < 0)
		return -1;
	snprintf(path, cap, "/proc/self/fd/%d", *fd);
	return 0;
}

/* /dev/null as a stream, opened once. */
static inline FILE *
fz_null(void)
{
	static FILE *null;

	if (null == NULL)
		null = fopen("/dev/null", "w");
	return null;
}

#endif
