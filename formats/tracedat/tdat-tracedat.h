/*
 * tdat-tracedat.h: the trace.dat format (formats/tracedat/tracedat.c), for
 * the formats that read its structure (formats/text/dump.c and report.c,
 * formats/json/json-meta.c, the writer); the engine sees a trace.dat only
 * through its format descriptor and page operations (lib/tdat-int.h).
 */
#ifndef TDAT_TRACEDAT_H
#define TDAT_TRACEDAT_H

#include "tdat-int.h"

#define TDAT_SEC_COMPRESSED 0x1

/* A v7 section. */
struct tdat_section {
	uint16_t id, flags;
	uint32_t name_id;
	uint64_t off;		/* offset of the 16-byte section header */
	uint64_t size;		/* size of what follows the header */
	uint32_t csize, usize;	/* compressed metadata sections */
};

struct kload;

/*
 * What only a trace.dat's container holds, behind its tdat_file's
 * page_arg (tdat_tracedat_of()); freed by its release operation.
 */
struct tdat_tracedat {
	char *comp_ver;		/* v7 compression version */
	uint64_t first_opt;	/* v7 offset of the first options section */
	/* v7: where the compressed bytes of the kallsyms section lie, and
	 * their sizes, when it holds just the size and the text (a writer
	 * of the same codec copies them); csize 0 if not */
	uint64_t ksec_data;
	uint32_t ksec_csize, ksec_usize;
	/* v7: the kallsyms' lines checked on the thread that read them
	 * (tracedat.c kload_main()), for the writer's refusal of damaged
	 * lines; kchecked 0 when not (nor after a salvage dropped lines) */
	struct tdat_text_check kcheck;
	uint64_t kcheck_len;	/* bytes of text it read */
	int kchecked;
	/* v7, opened with kallsyms_later (tdat-cat): the kallsyms option's
	 * large compressed section still loading on its thread, read into
	 * the file by tdat_kallsyms_wait(); klater NULL when none is */
	int klater_ok;
	struct kload *klater;
	uint64_t ksect;			/* the section the option names */
	uint64_t kopt;			/* the option's offset */
	/* kallsyms_table: the kallsyms thread goes on to build the table
	 * of the text the file keeps, in kbuild, until f->ksyms_late takes
	 * it or the file closes */
	int ktable_ok;
	struct kload *kbuild;
	uint64_t btf_sect;	/* offset of the BTF section, 0: none */
	size_t nsect;
	struct tdat_section *sect;	/* v7 sections, in file order */
	unsigned char *strings;	/* v7 strings sections, joined */
	size_t strings_len;
	uint64_t clock_off;	/* v6: offset of the trace clock data */
	struct tdat_codec *codec;	/* v7 compression, or NULL */
};

/* Open a trace.dat file or standard input ("-"), whatever the path;
 * tdat_open() chooses the format first. */
int tdat_tracedat_open(const char *path, const struct tdat_open_opts *o,
    struct tdat_file **out, struct tdat_err *e);

/* The trace.dat format (lib/read/source.c, listed last in
 * formats/list/formats.c: it takes any path, "-" included). */
extern const struct tdat_format tdat_tracedat_format;

/* The trace.dat page operations: f->page_ops of an open trace.dat. */
extern const struct tdat_page_ops tdat_tracedat_pages;

/*
 * Where byte at of one of f's texts lies in the file: *exact 1 when it is
 * that byte's offset, 0 when the text is compressed (then the offset of
 * its section's compressed data).  b is &f->kallsyms, &f->printk or
 * &f->cmdlines (the format's text_where).
 */
uint64_t tdat_text_where(const struct tdat_file *f, const struct tdat_blob *b,
    uint64_t at, int *exact);
/* OFFSET (added up), TSC2NSEC (the last whole one) and TIME_SHIFT (the
 * first whole one) of f's options (the format's clock). */
int tdat_tracedat_clock(struct tdat_file *f, struct tdat_clock *c,
    struct tdat_err *e);

/* 1 when f is a trace.dat file (not another format's input). */
static inline int
tdat_is_tracedat(const struct tdat_file *f)
{
	return f->page_ops == &tdat_tracedat_pages;
}

/* f's container: all zero (no sections, strings, codec) for another
 * format's input. */
static inline const struct tdat_tracedat *
tdat_tracedat_of(const struct tdat_file *f)
{
	static const struct tdat_tracedat none;

	return tdat_is_tracedat(f) && f->page_arg ? f->page_arg : &none;
}

/* Bounded access to a trace.dat's bytes: read len bytes at off, or fail
 * with a located error (another format's input has none to read). */
int tdat_pread(struct tdat_file *, void *dst, uint64_t off, uint64_t len,
    struct tdat_err *e);

/* One compressed flyrecord chunk of a CPU. */
struct tdat_chunk {
	uint64_t off;		/* offset of the compressed bytes */
	uint32_t csize, usize;
};
/* Read the chunk table of a compressed CPU stream (count, then chunks). */
int tdat_cpu_chunks(struct tdat_file *, const struct tdat_buffer *,
    const struct tdat_cpu *, struct tdat_chunk **out, uint32_t *n,
    struct tdat_err *e);

/* A v7 string by its id; NULL if none. */
const char *tdat_string(const struct tdat_file *, uint32_t id);

#endif
