/*
 * tdat-opts.h: trace.dat options decoded into typed values
 * (formats/tracedat/tracedat-opts.c).  Each option's payload is decoded once, the
 * first time a caller asks, and kept with the struct tdat_file; the
 * structure dump, the JSON metadata and the record decoder all read these
 * values and none of them parses a payload itself.
 *
 * Decoding never fails on a malformed payload: it keeps what could be read
 * and says what could not, so that each caller can show a damaged option
 * the way it always has (the structure dump as trace-cmd dump does).
 * Pointers into the payload (names, text) stay valid while the file is
 * open.  Counts read from a payload are bounded by the payload's size
 * before anything is allocated for them.
 */
#ifndef TDAT_OPTS_H
#define TDAT_OPTS_H

#include <stddef.h>
#include <stdint.h>

struct tdat_file;
struct tdat_err;

/* DATE, CPUSTAT, UNAME, HOOK, OFFSET, VERSION, PROCMAPS, TRACECLOCK,
 * LAST_BOOT_INFO. */
struct tdat_opt_text {
	const char *s;		/* the payload (NULL when it is empty) */
	size_t len;		/* bytes up to its first NUL */
	int has_num;		/* OFFSET, DATE: num is what strtoll(s, 0)
				 * reads from the first 63 bytes */
	int num_ok;		/* and it read a number */
	int64_t num;
	const char *clock;	/* TRACECLOCK: the selected clock, the word
				 * in brackets ("[local] global"); else NULL */
	size_t clock_len;
};

/* CPUCOUNT, TRACEID: a number as wide as the payload. */
struct tdat_opt_number {
	int width;		/* 1, 2, 4 or 8; 0 for any other size */
	uint64_t value;		/* 0 when width is 0 */
};

/* DONE and the v7 metadata options (BTF_FILE and MODULES_FILE too): the
 * offset of a section. */
struct tdat_opt_ref {
	int valid;		/* the payload has 8 bytes or more */
	uint64_t off;
};

/* TSC2NSEC: TSC counts to nanoseconds, ns = (tsc - offset) * mult >> shift. */
struct tdat_tsc2nsec {
	int valid;		/* the payload has 16 bytes or more */
	uint32_t mult, shift;
	uint64_t offset;
};

struct tdat_buffer_cpu {
	uint32_t id;
	uint64_t off, size;
};

/* BUFFER, BUFFER_TEXT: offset, name, (v7) clock, (v7 BUFFER) CPUs. */
struct tdat_opt_buffer {
	int has_off;		/* 8 bytes or more */
	uint64_t off;
	const char *name;	/* NULL when no NUL ends it */
	size_t name_len;
	const char *clock;	/* v7 only; NULL when absent */
	size_t clock_len;
	int has_cpus;		/* v7 BUFFER: page size and CPU count read */
	uint32_t page_size;
	uint32_t ncpu;		/* as stored */
	uint32_t nread;		/* entries of cpu: the whole ones stored */
	struct tdat_buffer_cpu *cpu;
};

struct tdat_guest_cpu {
	int32_t cpu, host_pid;
};

/* GUEST: a guest's name, trace id and which host task runs each vCPU. */
struct tdat_guest {
	const char *name;	/* NULL when no NUL ends it */
	size_t name_len;
	int has_id;		/* 8 bytes follow the name */
	uint64_t trace_id;
	int has_ncpu;		/* 12 bytes follow the name */
	uint32_t ncpu;		/* as stored */
	uint32_t nread;		/* entries of cpu: the whole ones stored */
	struct tdat_guest_cpu *cpu;
};

/* One option, decoded by its id; id values without a type keep only id. */
struct tdat_optval {
	uint16_t id;
	union {
		struct tdat_opt_text text;
		struct tdat_opt_number num;
		struct tdat_opt_ref ref;
		struct tdat_tsc2nsec tsc;
		struct tdat_opt_buffer buf;
		struct tdat_time_shift ts;
		struct tdat_guest guest;
	} u;
};

/* The selected clock of a clock list (TRACECLOCK, the v6 clock text):
 * the word in brackets among the first n bytes, its length in *len; NULL
 * when there is none. */
const char *tdat_clock_selected(const char *s, size_t n, size_t *len);

/* Decode one payload (size bytes at data) of option id from a file of the
 * given byte order and version.  0, or TDAT_ENOMEM. */
int tdat_opt_decode(uint16_t id, const unsigned char *data, uint32_t size,
    int big, int version, struct tdat_optval *v);
void tdat_optval_free(struct tdat_optval *v);

/* The decoded options of f, one per f->opt[i] in the same order, decoded
 * on the first call and kept until tdat_close().  0, or a negative code
 * with *e filled. */
int tdat_options(struct tdat_file *f, const struct tdat_optval **out,
    struct tdat_err *e);
/* Free what tdat_options() kept (tdat_close() calls it). */
void tdat_options_free(struct tdat_file *f);

#endif
