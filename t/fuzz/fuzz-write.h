/*
 * fuzz-write.h: what fuzz-write and fuzz-salvage share: the writer's
 * options from the input's first byte, and the check that what the
 * writer made is a file tdat-verify accepts (else abort, a finding).
 *
 * The first byte: bit 0 file version 7 (else 6), bits 1-2 the
 * compression (none, zlib, zstd, none; version 6: none), bit 3 repack
 * (fuzz-write: rebuild the pages through a selection keeping all).
 */
#ifndef FUZZ_WRITE_H
#define FUZZ_WRITE_H

#include <stdlib.h>

#include "tdat-int.h"
#include "fuzz.h"

static inline void
fz_write_opts(uint8_t mode, struct tdat_write_opts *wo)
{
	static const char *comp[] = { "none", "zlib", "zstd", "none" };

	memset(wo, 0, sizeof(*wo));
	wo->version = mode & 1 ? 7 : 6;
	wo->compression = wo->version == 7 ? comp[(mode >> 1) & 3] : "none";
}

struct fz_found {
	char first[300];
	uint64_t errors;
};

static inline int
fz_found(void *arg, const struct tdat_finding *fd)
{
	struct fz_found *ff = arg;

	if (fd->severity == TDAT_FIND_ERROR && ff->errors++ == 0)
		snprintf(ff->first, sizeof(ff->first), "%s: %s%s%llx",
		    fd->kind, fd->msg, fd->has_off ? " at 0x" : "",
		    (unsigned long long)(fd->has_off ? fd->off : 0));
	return 0;
}

/* Write f with wo into *ofd (a memfd); if the writer accepts it, the
 * output must verify clean. */
static inline void
fz_write_check(const char *who, struct tdat_file *f, int *ofd,
    const struct tdat_write_opts *wo)
{
	struct fz_found ff = { "", 0 };
	struct tdat_verify_opts vo = { .keep_going = 1, .found = fz_found,
	    .arg = &ff };
	struct tdat_verify_stats st;
	struct tdat_err e;
	char path[64];

	memset(&e, 0, sizeof(e));
	if (fz_file(ofd, NULL, 0, path, sizeof(path)) < 0 ||
	    tdat_write(f, *ofd, wo, &e) < 0)
		return;
	memset(&e, 0, sizeof(e));
	if (tdat_verify(path, &vo, &st, &e) < 0) {
		fprintf(stderr, "%s: v%d %s: the output does not verify: %s\n",
		    who, wo->version, wo->compression, e.msg);
		abort();
	}
	if (ff.errors) {
		fprintf(stderr, "%s: v%d %s: the output has %llu errors, the "
		    "first: %s\n", who, wo->version, wo->compression,
		    (unsigned long long)ff.errors, ff.first);
		abort();
	}
}

#endif
