/*
 * tracedat-verify.c: tdat-verify's checks of a trace.dat
 * (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)): what tdat_open() checks,
 * then the container's layout (sections, options, string references,
 * compressed data, where the CPU data lies, the BTF section, the end of a
 * v6 latency file's text), and after an error, what tdat-cat --salvage
 * would keep (tracedat-salvage.c), when asked.  The rest is lib/check's,
 * as for any source (tdat-check.h): the findings, the metadata texts, the
 * event formats and every ring-buffer page of every CPU of every buffer,
 * read through the page iterator (lib/read/pages.c) and lib/ring's page
 * checker.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "tdat-opts.h"
#include "tdat-verify.h"
#include "tdat-tracedat.h"
#include "tdat-check.h"

#define MAX_CHUNK	(16u << 20)	/* uncompressed bytes of one chunk */

/* A region of the file that nothing else may share. */
struct region {
	uint64_t off, end;
	char what[64];
};

struct vctx {
	struct tdat_check ck;	/* what lib/check checks */
	/* regions */
	struct region *reg;
	size_t nreg;
	/* buffers */
	unsigned char *win, *cbuf;
	size_t wcap, ccap;
};

#define ERR(v, kind, off, ...) \
	TDAT_CHECK_ERR(&(v)->ck, kind, off, __VA_ARGS__)
#define WARN(v, kind, off, ...) \
	TDAT_CHECK_WARN(&(v)->ck, kind, off, __VA_ARGS__)

static int
nomem(struct vctx *v)
{
	return tdat_check_nomem(&v->ck);
}

/* ------------------------------------------------------------------ */
/* Decompression, with the codec's own words for what went wrong. */

/* Decompress src into dst (room for dlen + 1 bytes); 0, or 1 with why. */
static int
inflate_exact(struct vctx *v, const unsigned char *src, size_t slen,
    unsigned char *dst, size_t dlen, char *why, size_t wn)
{
	const struct tdat_tracedat *td = tdat_tracedat_of(v->ck.f);
	int rc;

	rc = tdat_codec_decompress_why(td->codec, src, slen, dst, dlen, why,
	    wn);
	if (rc == TDAT_ENOMEM)
		return nomem(v), 1;
	return rc < 0;
}

/* Room for n + 1 bytes in *p. */
static int
room(struct vctx *v, unsigned char **p, size_t *cap, size_t n)
{
	unsigned char *q;

	if (n + 1 <= *cap)
		return 0;
	if ((q = realloc(*p, n + 1)) == NULL)
		return nomem(v);
	*p = q;
	*cap = n + 1;
	return 0;
}

/* Read len bytes at off into *p; nonzero on failure (reported). */
static int
readat(struct vctx *v, unsigned char **p, size_t *cap, uint64_t off,
    size_t len, const char *kind)
{
	struct tdat_err e = { 0 };

	if (room(v, p, cap, len))
		return 1;
	if (tdat_pread(v->ck.f, *p, off, len, &e) < 0) {
		if (e.code != TDAT_ECORRUPT) {
			*v->ck.e = e;
			v->ck.fatal = 1;
			return 1;
		}
		ERR(v, kind, off, "%s", e.msg);
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The container. */

static void
add_region(struct vctx *v, uint64_t off, uint64_t end, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
add_region(struct vctx *v, uint64_t off, uint64_t end, const char *fmt, ...)
{
	struct region *r;
	va_list ap;

	if (end <= off)
		return;
	if ((r = realloc(v->reg, (v->nreg + 1) * sizeof(*r))) == NULL) {
		nomem(v);
		return;
	}
	v->reg = r;
	r = &v->reg[v->nreg++];
	r->off = off;
	r->end = end;
	va_start(ap, fmt);
	vsnprintf(r->what, sizeof(r->what), fmt, ap);
	va_end(ap);
	tdat_vis(r->what, sizeof(r->what), r->what);
}

/* "the top buffer" or "buffer NAME", printable. */
static const char *
bufname(const struct tdat_buffer *b, char *out, size_t n)
{
	char nm[48];

	if (b->name == NULL || b->name[0] == '\0')
		return "the top buffer";
	tdat_vis(nm, sizeof(nm), b->name);
	snprintf(out, n, "buffer %s", nm);
	return out;
}

static int
region_cmp(const void *a, const void *b)
{
	const struct region *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static void
check_regions(struct vctx *v)
{
	size_t i, last = 0;

	qsort(v->reg, v->nreg, sizeof(*v->reg), region_cmp);
	for (i = 1; i < v->nreg; i++) {
		if (v->reg[i].off < v->reg[last].end) {
			if (ERR(v, "overlap", v->reg[i].off, "%s overlaps %s "
			    "(0x%llx-0x%llx)", v->reg[i].what, v->reg[last].what,
			    (unsigned long long)v->reg[last].off,
			    (unsigned long long)v->reg[last].end))
				return;
		}
		if (v->reg[i].end > v->reg[last].end)
			last = i;
	}
}

/* The options, each decoded once (formats/tracedat/tracedat-opts.c). */
static const struct tdat_optval *
optvals(struct vctx *v)
{
	const struct tdat_optval *ov;

	if (tdat_options(v->ck.f, &ov, v->ck.e) < 0) {
		v->ck.fatal = 1;
		return NULL;
	}
	return ov;
}

static void
check_options(struct vctx *v)
{
	struct tdat_file *f = v->ck.f;
	unsigned seen[TDAT_OPT_MAX] = { 0 };
	const struct tdat_optval *ov;
	size_t i;

	if ((ov = optvals(v)) == NULL)
		return;
	for (i = 0; i < f->nopt && !v->ck.sec_stop; i++) {
		const struct tdat_option *o = &f->opt[i];
		const struct tdat_optval *ovi = &ov[i];
		const char *name = tdat_option_name(o->id);
		uint64_t at = o->off >= 6 ? o->off - 6 : o->off;

		if (name == NULL) {
			WARN(v, "option-unknown", at, "unknown option id %u "
			    "(%u bytes)", o->id, o->size);
			continue;
		}
		seen[o->id]++;
		switch (o->id) {
		case TDAT_OPT_CPUCOUNT:
			if (o->size != 4)
				ERR(v, "option-size", at, "option CPUCOUNT has %u "
				    "bytes, not 4", o->size);
			break;
		case TDAT_OPT_TSC2NSEC:
			if (o->size != 16)
				ERR(v, "option-size", at, "option TSC2NSEC has %u "
				    "bytes, not 16", o->size);
			else if (ovi->u.tsc.shift > 63)
				ERR(v, "option-value", at, "option TSC2NSEC: "
				    "shift %u is not sane", ovi->u.tsc.shift);
			break;
		case TDAT_OPT_OFFSET:
			if (!ovi->u.text.num_ok)
				WARN(v, "option-value", at, "option OFFSET is "
				    "not a number");
			break;
		case TDAT_OPT_DATE: case TDAT_OPT_UNAME: case TDAT_OPT_VERSION:
		case TDAT_OPT_TRACECLOCK: case TDAT_OPT_CPUSTAT:
		case TDAT_OPT_LAST_BOOT_INFO:
			/* text: a NUL ends it within the payload */
			if (o->size > 0 && ovi->u.text.len == o->size)
				WARN(v, "option-text", at, "option %s is not "
				    "NUL-terminated text", name);
			break;
		case TDAT_OPT_HEADER_INFO: case TDAT_OPT_FTRACE_EVENTS:
		case TDAT_OPT_EVENT_FORMATS: case TDAT_OPT_KALLSYMS:
		case TDAT_OPT_PRINTK: case TDAT_OPT_CMDLINES:
		case TDAT_OPT_BTF_FILE: case TDAT_OPT_MODULES_FILE:
			if (f->version >= 7 && o->size != 8)
				WARN(v, "option-size", at, "option %s has %u bytes, "
				    "not 8", name, o->size);
			if (f->version >= 7 && seen[o->id] == 2)
				ERR(v, "option-twice", at, "option %s appears "
				    "twice", name);
			break;
		case TDAT_OPT_DONE:
			if (f->version >= 7 && o->size != 8)
				WARN(v, "option-size", at, "option DONE has %u "
				    "bytes, not 8", o->size);
			break;
		}
	}
	if (seen[TDAT_OPT_CPUCOUNT] > 1)
		WARN(v, "option-twice", 0, "option CPUCOUNT appears %u times",
		    seen[TDAT_OPT_CPUCOUNT]);
}

/* Does a v7 metadata option (HEADER_INFO...CMDLINES, and trace-cmd 3.4's
 * BTF_FILE and MODULES_FILE) point at section s? */
static int
names_section(const struct tdat_optval *o, const struct tdat_section *s)
{
	return o->id == s->id && ((o->id >= TDAT_OPT_HEADER_INFO &&
	    o->id <= TDAT_OPT_CMDLINES) || o->id == TDAT_OPT_BTF_FILE ||
	    o->id == TDAT_OPT_MODULES_FILE) && o->u.ref.valid &&
	    o->u.ref.off == s->off;
}

/*
 * The BTF section (trace-cmd 3.4 copies /sys/kernel/btf/vmlinux): its
 * header (magic 0xeb9f in the kernel's byte order, version 1) and the
 * type and string parts it names inside it; why is set when it is wrong.
 */
static void
btf_check(const unsigned char *p, uint64_t n, char *why, size_t len)
{
	uint32_t hl, toff, tlen, soff, slen;
	int big;

	why[0] = '\0';
	if (n < 24) {
		snprintf(why, len, "%llu bytes hold no BTF header",
		    (unsigned long long)n);
		return;
	}
	if (p[0] == 0x9f && p[1] == 0xeb)
		big = 0;
	else if (p[0] == 0xeb && p[1] == 0x9f)
		big = 1;
	else {
		snprintf(why, len, "no BTF magic (0x%02x%02x)", p[0], p[1]);
		return;
	}
	hl = tdat_get32(p + 4, big);
	toff = tdat_get32(p + 8, big);
	tlen = tdat_get32(p + 12, big);
	soff = tdat_get32(p + 16, big);
	slen = tdat_get32(p + 20, big);
	if (p[2] != 1)
		snprintf(why, len, "BTF version %u, not 1", p[2]);
	else if (hl < 24 || hl > n)
		snprintf(why, len, "BTF header length %u is not sane", hl);
	else if ((uint64_t)toff + tlen > n - hl ||
	    (uint64_t)soff + slen > n - hl)
		snprintf(why, len, "BTF types (%u bytes at %u) or strings (%u "
		    "bytes at %u) lie outside its %llu bytes", tlen, toff, slen,
		    soff, (unsigned long long)(n - hl));
}

/* v7: sections, their names, what names them, compressed payloads. */
static void
check_sections(struct vctx *v)
{
	struct tdat_file *f = v->ck.f;
	const struct tdat_tracedat *td = tdat_tracedat_of(f);
	const struct tdat_optval *ov;
	size_t i, j;
	char why[160];

	if ((ov = optvals(v)) == NULL)
		return;

	if (td->nsect > 0) {
		const struct tdat_section *z = &td->sect[td->nsect - 1];
		uint64_t end = z->off + 16 + z->size;

		add_region(v, 0, td->sect[0].off, "the file header");
		if (end < f->fsize && ERR(v, "trailing", end, "%llu bytes after "
		    "the last section do not form a section",
		    (unsigned long long)(f->fsize - end)))
			return;
	}
	for (i = 0; i < td->nsect && !v->ck.sec_stop && !v->ck.fatal; i++) {
		const struct tdat_section *s = &td->sect[i];
		const char *nm = tdat_string(f, s->name_id);
		unsigned refs = 0;

		if (nm == NULL || strnlen(nm, td->strings_len - s->name_id) ==
		    td->strings_len - s->name_id) {
			if (ERR(v, "string-ref", s->off, "section name id %u is "
			    "outside the string table (%zu bytes)", s->name_id,
			    td->strings_len))
				return;
		}
		if (s->flags & ~TDAT_SEC_COMPRESSED)
			WARN(v, "section-flags", s->off, "section flags 0x%x "
			    "are unknown", s->flags);
		if (tdat_option_name(s->id) == NULL)
			WARN(v, "section-id", s->off, "unknown section id %u",
			    s->id);
		if (s->id == TDAT_OPT_DONE) {
			for (j = 0; j < f->nopt; j++)
				if (f->opt[j].sect == (int)i)
					refs = 1;
			if (!refs)
				WARN(v, "section-orphan", s->off, "options section "
				    "is not on the chain of options");
		} else if (s->id == TDAT_OPT_BUFFER ||
		    s->id == TDAT_OPT_BUFFER_TEXT) {
			for (j = 0; j < f->nbuf; j++)
				if (f->buf[j].opt_index >= 0 && f->buf[j].opt_off ==
				    s->off)
					refs++;
			if (refs == 0)
				WARN(v, "section-orphan", s->off, "no BUFFER option "
				    "names this section");
			else if (refs > 1)
				ERR(v, "section-twice", s->off, "%u buffers name "
				    "this section", refs);
		} else {
			for (j = 0; j < f->nopt; j++)
				if (names_section(&ov[j], s))
					refs++;
			if (refs == 0 && s->id != TDAT_OPT_STRINGS)
				WARN(v, "section-orphan", s->off, "no option names "
				    "this section");
		}
		if (s->id != TDAT_OPT_BUFFER && s->id != TDAT_OPT_BUFFER_TEXT)
			add_region(v, s->off, s->off + 16 + s->size,
			    "section %s", tdat_option_name(s->id) ?
			    tdat_option_name(s->id) : "?");
		else
			add_region(v, s->off, s->off + 16, "section header");
		if (s->id == TDAT_OPT_BTF_FILE &&
		    !(s->flags & TDAT_SEC_COMPRESSED) && s->size <= MAX_CHUNK * 4 &&
		    !readat(v, &v->win, &v->wcap, s->off + 16, s->size, "BTF")) {
			btf_check(v->win, s->size, why, sizeof(why));
			if (why[0] != '\0')
				ERR(v, "btf", s->off + 16, "section BTF: %s", why);
		}
		if (!(s->flags & TDAT_SEC_COMPRESSED) ||
		    s->id == TDAT_OPT_BUFFER || s->id == TDAT_OPT_BUFFER_TEXT)
			continue;
		if (td->codec == NULL) {
			ERR(v, "compressed", s->off, "section is compressed but "
			    "the file names no compression");
			continue;
		}
		if ((uint64_t)s->csize + 8 > s->size) {
			ERR(v, "compressed-size", s->off, "compressed size %u "
			    "exceeds section size %llu", s->csize,
			    (unsigned long long)s->size);
			continue;
		}
		if (s->usize > MAX_CHUNK * 4) {
			ERR(v, "compressed-size", s->off, "uncompressed size %u "
			    "is not sane", s->usize);
			continue;
		}
		if (readat(v, &v->cbuf, &v->ccap, s->off + 24, s->csize,
		    "compressed") || room(v, &v->win, &v->wcap, s->usize))
			continue;
		if (inflate_exact(v, v->cbuf, s->csize, v->win, s->usize, why,
		    sizeof(why))) {
			if (!v->ck.fatal)
				ERR(v, "decompress", s->off + 24, "section %s: %s",
				    tdat_option_name(s->id) ?
				    tdat_option_name(s->id) : "?", why);
			continue;
		}
		if (s->id == TDAT_OPT_BTF_FILE) {
			btf_check(v->win, s->usize, why, sizeof(why));
			if (why[0] != '\0')
				ERR(v, "btf", s->off + 24, "section BTF: %s",
				    why);
		}
	}
}

/* v6: where the metadata ends and the CPU tables are. */
static void
v6_regions(struct vctx *v)
{
	struct tdat_file *f = v->ck.f;
	const struct tdat_tracedat *td = tdat_tracedat_of(f);
	uint64_t end = f->cmdlines.off + 8 + f->cmdlines.len + 4, top;
	unsigned char tag[10];
	struct tdat_err e = { 0 };
	char bn[64];
	size_t i;

	for (i = 0; i < f->nopt; i++) {
		uint64_t oe = f->opt[i].off + f->opt[i].size;

		if (oe + 2 > end)
			end = oe + 2;	/* the DONE id after the last option */
	}
	top = end;
	if (!f->latency && tdat_pread(f, tag, top, 10, &e) == 0 &&
	    memcmp(tag, "flyrecord", 10) == 0)
		end = top + 10 + 16 * (uint64_t)f->ncpus;
	add_region(v, 0, end, "the file's metadata");
	if (f->has_clock_data && f->clock_data)
		add_region(v, td->clock_off, td->clock_off + 8 +
		    strlen(f->clock_data), "the trace clock");
	for (i = 1; i < f->nbuf; i++)
		add_region(v, f->buf[i].opt_off, f->buf[i].opt_off + 10 +
		    16 * (uint64_t)f->buf[i].ncpu, "the CPU table of %s",
		    bufname(&f->buf[i], bn, sizeof(bn)));
}

/* Which CPUs of b repeat an earlier one's id: a table of b->ncpu flags
 * (free()), or NULL when out of memory. */
static unsigned char *
cpu_twice(const struct tdat_buffer *b)
{
	struct tdat_cpu_ix *x;
	unsigned char *twice;
	uint32_t i;

	if ((twice = calloc((size_t)b->ncpu + 1, 1)) == NULL ||
	    (x = tdat_cpu_index(b)) == NULL) {
		free(twice);
		return NULL;
	}
	for (i = 1; i < b->ncpu; i++)
		if (x[i].id == x[i - 1].id)
			twice[x[i].i] = 1;
	free(x);
	return twice;
}

static void
check_buffers(struct vctx *v)
{
	struct tdat_file *f = v->ck.f;
	unsigned char *twice;
	size_t bi;
	uint32_t ci;
	char bnb[64];

	for (bi = 0; bi < f->nbuf && !v->ck.sec_stop && !v->ck.fatal; bi++) {
		const struct tdat_buffer *b = &f->buf[bi];
		const char *bn = bufname(b, bnb, sizeof(bnb));

		if (b->latency)
			continue;
		if (b->ncpu && v->ck.have_pl &&
		    b->page_size < (uint32_t)v->ck.pl.data_off + 4) {
			ERR(v, "page-size", b->opt_off, "%s: page size %u holds "
			    "no records", bn, b->page_size);
			continue;
		}
		/* trace-cmd maps the top buffer's pages at the header's. */
		if (b->ncpu && f->version >= 7 && (b->name == NULL ||
		    b->name[0] == '\0') && b->page_size != f->page_size)
			WARN(v, "page-size", b->opt_off, "%s: page size %u is "
			    "not the header's %u, at which trace-cmd reads it",
			    bn, b->page_size, f->page_size);
		if ((twice = cpu_twice(b)) == NULL) {
			nomem(v);
			return;
		}
		for (ci = 0; ci < b->ncpu && !v->ck.sec_stop; ci++) {
			const struct tdat_cpu *c = &b->cpu[ci];

			if (twice[ci] && ERR(v, "cpu-twice", c->off, "%s: CPU %u "
			    "appears twice", bn, c->id))
				break;
			if (f->version >= 7 && f->ncpus && c->id >= f->ncpus)
				WARN(v, "cpu-id", c->off, "%s: CPU %u is not "
				    "below CPUCOUNT %u", bn, c->id,
				    f->ncpus);
			if (c->size == 0)
				continue;
			add_region(v, c->off, c->off + c->size, "CPU %u data of "
			    "%s", c->id, bn);
			if (b->compressed)
				continue;
			if (c->off % b->page_size)
				ERR(v, "cpu-align", c->off, "%s CPU %u: data is "
				    "not page-aligned (page size %u)", bn,
				    c->id, b->page_size);
			else if (c->size % b->page_size)
				ERR(v, "cpu-size", c->off, "%s CPU %u: data size "
				    "%llu is not a multiple of the page size %u", bn, c->id, (unsigned long long)c->size,
				    b->page_size);
		}
		free(twice);
	}
}

static void
check_container(struct vctx *v)
{
	struct tdat_err e = { 0 };

	tdat_check_section(&v->ck);
	if (tdat_page_layout(v->ck.f, &v->ck.pl, &e) < 0)
		ERR(v, "header-page", e.off, "%s", e.msg);
	else
		v->ck.have_pl = 1;
	if (!v->ck.sec_stop)
		check_options(v);
	if (!v->ck.sec_stop && v->ck.f->version >= 7) {
		check_sections(v);
		/* A decompressed kallsyms need not stay for the pages. */
		free(v->win);
		free(v->cbuf);
		v->win = v->cbuf = NULL;
		v->wcap = v->ccap = 0;
	} else if (!v->ck.sec_stop)
		v6_regions(v);
	if (!v->ck.sec_stop && !v->ck.fatal)
		check_buffers(v);
	if (!v->ck.sec_stop && !v->ck.fatal)
		check_regions(v);
}

/*
 * A v6 latency file's text runs to the end of the file: a file cut short
 * ends inside a line.  The finding names where that line starts.
 */
static void
check_latency_end(struct vctx *v)
{
	struct tdat_file *f = v->ck.f;
	struct tdat_err e = { 0 };
	unsigned char buf[4096];
	uint64_t n, at;
	size_t i;

	if (f->fsize <= f->latency_off)
		return;
	n = f->fsize - f->latency_off;
	if (n > sizeof(buf))
		n = sizeof(buf);
	at = f->fsize - n;
	if (tdat_pread(f, buf, at, n, &e) < 0 || buf[n - 1] == '\n')
		return;
	for (i = (size_t)n; i > 0 && buf[i - 1] != '\n'; i--)
		;
	ERR(v, "latency-cut", at + i, "latency text ends inside a line: the "
	    "file is cut short");
}

/* The latency text's end or pieces, then every CPU's pages (lib/check). */
static void
check_pages(struct vctx *v)
{
	struct tdat_file *f = v->ck.f;

	if (f->version < 7 && f->latency)
		check_latency_end(v);
	else if (tdat_latency_buffer(f) >= 0)
		tdat_check_latency_text(&v->ck, tdat_latency_buffer(f));
	tdat_check_pages(&v->ck);
}

/* ------------------------------------------------------------------ */

/* A kallsyms in memory of its own this large is read and freed before
 * the container's checks (verify_file()). */
#define KALLSYMS_HELD	(1u << 20)

static void
drop_texts(struct tdat_file *f)
{
	tdat_blob_free(&f->kallsyms);
	f->kallsyms.len = 0;
}

/*
 * tdat_verify_file(); with drop_kallsyms, f's kallsyms is freed once its
 * lines are checked (the other checks read no symbols), for a caller that
 * closes f next.
 */
static int
verify_file(struct tdat_file *f, const struct tdat_verify_opts *o,
    struct tdat_verify_stats *st, struct tdat_err *e, int drop_kallsyms)
{
	struct vctx v;
	struct tdat_check *c = &v.ck;
	size_t i;
	int late;

	memset(&v, 0, sizeof(v));
	c->f = f;
	c->o = o;
	c->st = st;
	c->e = e;
	c->file_codec = tdat_tracedat_of(f)->codec;
	st->version = f->version;
	snprintf(st->comp, sizeof(st->comp), "%s", f->comp ? f->comp : "none");
	st->buffers = 0;
	for (i = 0; i < f->nbuf; i++) {
		/* the empty top buffer a v7 file without one is given, not a
		 * top buffer a BUFFER option names (extract -B boot_mapped) */
		if (f->buf[i].ncpu == 0 && !f->buf[i].latency && i == 0 &&
		    f->nbuf > 1 && f->buf[i].opt_index < 0)
			continue;
		st->buffers++;
		st->cpus += f->buf[i].ncpu;
	}
	/*
	 * The texts' lines are read while the format files are, on the
	 * second thread (lib/check/rules.c), unless a large kallsyms in
	 * memory of its own is to go first: it need not stay while the
	 * sections are decompressed again (hip24-host: 36 MiB peak).  A
	 * mapped one is the file's pages.
	 */
	late = !drop_kallsyms || f->kallsyms.map != NULL ||
	    f->kallsyms.len < KALLSYMS_HELD;
	if (!late) {
		tdat_check_scan_texts(c);
		drop_texts(f);
	}
	check_container(&v);
	/* One second thread for the formats and then the pages
	 * (lib/check/worker.c), started where the formats' own was. */
	if (!c->fatal && !c->stop)
		c->worker = tdat_check_worker_new(o, f->fsize);
	if (late && !c->fatal && !c->stop)
		tdat_check_texts_formats(c);
	if (late && drop_kallsyms)
		drop_texts(f);
	if (!late && !c->fatal && !c->stop)
		tdat_check_texts(c);
	if (!late && !c->fatal && !c->stop)
		tdat_check_formats(c);
	if (!c->fatal && !c->stop &&
	    (c->seen = calloc(c->events.nev + 1, 1)) == NULL)
		tdat_check_nomem(c);
	if (!c->fatal && !c->stop && !o->no_pages)
		check_pages(&v);
	if (!c->fatal && !c->stop)
		tdat_check_print_formats(c, o->no_pages);
	tdat_check_worker_free(c->worker);
	tdat_check_free(c);
	free(v.reg);
	free(v.win);
	free(v.cbuf);
	return c->fatal ? e->code : 0;
}

int
tdat_verify_file(struct tdat_file *f, const struct tdat_verify_opts *o,
    struct tdat_verify_stats *st, struct tdat_err *e)
{
	return verify_file(f, o, st, e, 0);
}

/* After an error, when asked: what tdat-cat --salvage would keep, by the
 * same walk (tracedat-salvage.c); standard input cannot be read again. */
static void
salvage_count(const char *path, const struct tdat_verify_opts *o,
    struct tdat_verify_stats *st)
{
	if (o->salvage && st->errors && strcmp(path, "-") != 0)
		tdat_salvage_count(path, st);
}

/* tdat_verify() of a trace.dat (lib/read/source.c); *st is zeroed. */
int
tdat_tracedat_verify(const char *path, const struct tdat_verify_opts *o,
    struct tdat_verify_stats *st, struct tdat_err *e)
{
	struct tdat_file *f;
	struct tdat_err oe = { 0 };
	struct tdat_finding fd;
	int rc;

	if ((rc = tdat_open(path, &f, &oe)) < 0) {
		if (oe.code != TDAT_ECORRUPT && oe.code != TDAT_EUNSUP) {
			*e = oe;
			return rc;
		}
		st->errors++;
		memset(&fd, 0, sizeof(fd));
		fd.severity = TDAT_FIND_ERROR;
		fd.kind = oe.code == TDAT_EUNSUP ? "unsupported" : "container";
		fd.has_off = oe.has_off;
		fd.off = oe.off;
		fd.cpu = -1;
		fd.page = -1;
		fd.msg = oe.msg;
		if (o->found)
			o->found(o->arg, &fd);
		salvage_count(path, o, st);
		return 0;
	}
	rc = verify_file(f, o, st, e, 1);
	tdat_close(f);
	if (rc == 0)
		salvage_count(path, o, st);
	return rc;
}
