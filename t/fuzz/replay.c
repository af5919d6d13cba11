/*
 * replay.c: a main() for a libFuzzer harness outside libFuzzer: each
 * FILE argument is read and handed to LLVMFuzzerTestOneInput() once, so
 * the normal build (and make check-asan) replays the regression inputs
 * in t/fuzz/regress (t/fuzz.bats).
 *
 *	fuzz-NAME FILE...
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
replay(const char *path)
{
	unsigned char *d = NULL, *nd;
	size_t n = 0, cap = 0, got;
	FILE *fp;

	if ((fp = fopen(path, "rb")) == NULL) {
		perror(path);
		return 2;
	}
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			if ((nd = realloc(d, cap)) == NULL) {
				fprintf(stderr, "%s: out of memory\n", path);
				free(d);
				fclose(fp);
				return 2;
			}
			d = nd;
		}
		got = fread(d + n, 1, cap - n, fp);
		n += got;
	} while (got > 0);
	fclose(fp);
	/* Exactly n bytes, so ASan sees a harness reading past them. */
	if ((nd = realloc(d, n ? n : 1)) != NULL)
		d = nd;
	LLVMFuzzerTestOneInput(d, n);
	free(d);
	return 0;
}

int
main(int argc, char *argv[])
{
	int i, st = 0;

	for (i = 1; i < argc; i++)
		if (replay(argv[i]) != 0)
			st = 2;
	return st;
}
