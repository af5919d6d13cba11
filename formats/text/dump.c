/*
 * dump.c: the structure of a trace.dat as text.  tdat_dump() prints in the
 * layout of `trace-cmd dump`, item for item, so that every value it shows
 * can be compared; tdat_dump_summary() and tdat_dump_flyrecord() are
 * tdat's own, shorter and richer views.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "tdat-opts.h"
#include "tdat-tracedat.h"

struct dumper {
	struct tdat_file *f;
	FILE *out;
	unsigned what;
	int has_clock;
	const struct tdat_optval *ov;	/* the decoded options */
	int nmeta;
	const struct tdat_optval *meta[TDAT_OPT_MAX * 4];
};

#define SHOW(d, m)	((d)->what & (m))

static void
pr(struct dumper *d, unsigned mask, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
pr(struct dumper *d, unsigned mask, const char *fmt, ...)
{
	va_list ap;

	if (mask && !SHOW(d, mask))
		return;
	va_start(ap, fmt);
	vfprintf(d->out, fmt, ap);
	va_end(ap);
}

/*
 * Text as trace-cmd dump shows it: read in pieces of 1023 bytes (the
 * whole text when shorter than 1024), each printed up to its first NUL,
 * then a newline.
 */
static void
text(struct dumper *d, unsigned mask, const unsigned char *p, uint64_t n)
{
	uint64_t piece;
	const unsigned char *nul;

	if (!SHOW(d, mask))
		return;
	while (n > 0) {
		piece = n < 1024 ? n : 1023;
		nul = memchr(p, 0, piece);
		fwrite(p, 1, nul ? (size_t)(nul - p) : piece, d->out);
		p += piece;
		n -= piece;
	}
	fputc('\n', d->out);
}

static const char *
secname(struct tdat_file *f, uint32_t id)
{
	const char *s = tdat_string(f, id);

	return s ? s : "Unknown";
}

static void
initial(struct dumper *d)
{
	struct tdat_file *f = d->f;
	const struct tdat_tracedat *td = tdat_tracedat_of(f);

	pr(d, TDAT_DUMP_SUMMARY, "\n Tracing meta data in file %s:\n", f->path);
	pr(d, TDAT_DUMP_SUMMARY, "\t[Initial format]\n");
	pr(d, TDAT_DUMP_SUMMARY, "\t\t%d\t[Version]\n", f->version);
	pr(d, TDAT_DUMP_SUMMARY, "\t\t%d\t[%s endian]\n", f->big,
	    f->big ? "Big" : "Little");
	pr(d, TDAT_DUMP_SUMMARY, "\t\t%d\t[Bytes in a long]\n", f->lsize);
	pr(d, TDAT_DUMP_SUMMARY, "\t\t%u\t[Page size, bytes]\n", f->page_size);
	if (f->version >= 7) {
		pr(d, TDAT_DUMP_SUMMARY, "\t\t%s\t[Compression algorithm]\n",
		    f->comp ? f->comp : "none");
		pr(d, TDAT_DUMP_SUMMARY, "\t\t%s\t[Compression version]\n",
		    td->comp_ver ? td->comp_ver : "");
	}
}

static void
headers(struct dumper *d)
{
	struct tdat_file *f = d->f;

	pr(d, TDAT_DUMP_SUMMARY | TDAT_DUMP_HEAD_PAGE,
	    "\t[Header page, %" PRIu64 " bytes]\n", f->hpage.len);
	text(d, TDAT_DUMP_HEAD_PAGE, f->hpage.p, f->hpage.len);
	pr(d, TDAT_DUMP_SUMMARY | TDAT_DUMP_HEAD_EVENT,
	    "\t[Header event, %" PRIu64 " bytes]\n", f->hevent.len);
	text(d, TDAT_DUMP_HEAD_EVENT, f->hevent.p, f->hevent.len);
}

static void
ftrace_events(struct dumper *d)
{
	struct tdat_file *f = d->f;
	uint32_t i;

	pr(d, TDAT_DUMP_SUMMARY | TDAT_DUMP_FTRACE,
	    "\t[Ftrace format, %u events]\n", f->nftrace);
	for (i = 0; i < f->nftrace; i++)
		text(d, TDAT_DUMP_FTRACE, f->ftrace[i].p, f->ftrace[i].len);
}

static void
systems(struct dumper *d)
{
	struct tdat_file *f = d->f;
	uint32_t i, j;

	pr(d, TDAT_DUMP_SUMMARY | TDAT_DUMP_EVENTS | TDAT_DUMP_SYSTEMS,
	    "\t[Events format, %u systems]\n", f->nsys);
	for (i = 0; i < f->nsys; i++) {
		pr(d, TDAT_DUMP_SYSTEMS, "\t\t%s %u [system, events]\n",
		    f->sys[i].name, f->sys[i].nev);
		for (j = 0; j < f->sys[i].nev; j++)
			text(d, TDAT_DUMP_EVENTS, f->sys[i].ev[j].p,
			    f->sys[i].ev[j].len);
	}
}

static void
blob(struct dumper *d, unsigned mask, const char *title,
    const struct tdat_blob *b)
{
	pr(d, TDAT_DUMP_SUMMARY | mask, "\t[%s, %" PRIu64 " bytes]\n", title,
	    b->len);
	text(d, mask, b->p, b->len);
}

static void
section_header(struct dumper *d, unsigned mask, const struct tdat_section *s)
{
	pr(d, mask, "\t[Section %u @ %" PRIu64 ": \"%s\", flags 0x%X, %"
	    PRIu64 " bytes]\n", s->id, s->off, secname(d->f, s->name_id),
	    s->flags, s->size);
}

static const struct tdat_section *
section_at(struct tdat_file *f, uint64_t off)
{
	const struct tdat_tracedat *td = tdat_tracedat_of(f);
	size_t i;

	for (i = 0; i < td->nsect; i++)
		if (td->sect[i].off == off)
			return &td->sect[i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Options. */

static void
opt_text(struct dumper *d, const char *name, const struct tdat_option *o)
{
	pr(d, TDAT_DUMP_OPTIONS, "\t\t[Option %s, %u bytes]\n", name, o->size);
	if (o->size)
		text(d, TDAT_DUMP_OPTIONS, o->data, o->size);
}

static void
opt_buffer(struct dumper *d, const struct tdat_option *o,
    const struct tdat_opt_buffer *b)
{
	struct tdat_file *f = d->f;
	const struct tdat_section *s;
	uint64_t total = 0;
	uint32_t i;
	const unsigned mask = TDAT_DUMP_OPTIONS | TDAT_DUMP_FLYRECORD;

	if (b->name == NULL)
		return;
	if (f->version < 7) {
		pr(d, mask, "\t\t[Option BUFFER, %u bytes]\n", o->size);
		pr(d, mask, "%" PRIu64 " [offset]\n", b->off);
		pr(d, mask, "\"%s\" [name]\n", b->name);
		return;
	}
	if ((s = section_at(f, b->off)) != NULL)
		section_header(d, TDAT_DUMP_FLYRECORD, s);
	pr(d, mask, "\t\t[Option BUFFER, %u bytes]\n", o->size);
	pr(d, mask, "%" PRIu64 " [offset]\n", b->off);
	pr(d, mask, "\"%s\" [name]\n", b->name);
	if (b->clock == NULL)
		return;
	pr(d, mask, "\"%s\" [clock]\n", b->clock);
	if (o->id != TDAT_OPT_BUFFER) {
		pr(d, TDAT_DUMP_SUMMARY, "\t[buffer \"%s\", \"%s\" clock, "
		    "latency data]\n", b->name, b->clock);
		return;
	}
	if (!b->has_cpus)
		return;
	pr(d, mask, "%u [Page size, bytes]\n", b->page_size);
	pr(d, mask, "%u [CPUs]:\n", b->ncpu);
	for (i = 0; i < b->nread; i++) {
		total += b->cpu[i].size;
		pr(d, mask, "   %u %" PRIu64 "\t%" PRIu64
		    "\t[id, data offset and size]\n", b->cpu[i].id,
		    b->cpu[i].off, b->cpu[i].size);
	}
	pr(d, TDAT_DUMP_SUMMARY, "\t[buffer \"%s\", \"%s\" clock, %u page size, "
	    "%u cpus, %" PRIu64 " bytes flyrecord data]\n", b->name, b->clock,
	    b->page_size, b->ncpu, total);
}

/* trace-cmd dump shows nothing of a head shorter than 12 bytes, and every
 * sample count it read before the samples broke. */
static void
opt_time_shift(struct dumper *d, const struct tdat_option *o,
    const struct tdat_time_shift *t)
{
	uint32_t i, j;

	if (t->head < 12)
		return;
	pr(d, TDAT_DUMP_OPTIONS, "\t\t[Option TimeShift, %u bytes]\n", o->size);
	pr(d, TDAT_DUMP_OPTIONS, "0x%" PRIX64 " [peer's trace id]\n",
	    t->peer_id);
	pr(d, TDAT_DUMP_OPTIONS, "0x%X [peer's protocol flags]\n",
	    t->head >= 16 ? t->flags : 0);
	if (t->head < 16)
		return;
	pr(d, TDAT_DUMP_OPTIONS, "0x%X [peer's CPU count]\n", t->ncpu);
	for (j = 0; j < t->ncount; j++)
		pr(d, TDAT_DUMP_OPTIONS, "%u [samples count for CPU %u]\n",
		    t->cpu[j].n, j);
	if (t->broken) {
		pr(d, TDAT_DUMP_OPTIONS, "Broken time shift option\n");
		return;
	}
	for (j = 0; j < t->ncount; j++)
		for (i = 0; i < t->cpu[j].n; i++) {
			const struct tdat_ts_sample *s = &t->cpu[j].s[i];

			pr(d, TDAT_DUMP_OPTIONS, "\t%" PRId64 " %" PRId64
			    " %" PRIu64 " %" PRIu64
			    "[offset * scaling >> fraction @ time]\n",
			    s->offset, s->scaling, s->frac, (uint64_t)s->time);
		}
}

static void
opt_guest(struct dumper *d, const struct tdat_option *o,
    const struct tdat_guest *g)
{
	uint32_t i;

	pr(d, TDAT_DUMP_OPTIONS, "\t\t[Option GUEST, %u bytes]\n", o->size);
	if (g->name == NULL)
		return;
	pr(d, TDAT_DUMP_OPTIONS, "%s [Guest name]\n", g->name);
	if (!g->has_id)
		return;
	pr(d, TDAT_DUMP_OPTIONS, "0x%" PRIX64 " [trace id]\n", g->trace_id);
	if (!g->has_ncpu)
		return;
	pr(d, TDAT_DUMP_OPTIONS, "%d [Guest CPUs]\n", (int)g->ncpu);
	for (i = 0; i < g->nread; i++)
		pr(d, TDAT_DUMP_OPTIONS, "  %d %d [guest cpu, host pid]\n",
		    (int)g->cpu[i].cpu, (int)g->cpu[i].host_pid);
}

static void
opt_meta(struct dumper *d, const struct tdat_option *o,
    const struct tdat_optval *v, const char *name)
{
	pr(d, TDAT_DUMP_OPTIONS, "\t\t[Option %s, %u bytes] @ %" PRIu64 "\n",
	    name, o->size, v->u.ref.valid ? v->u.ref.off : 0);
	if ((size_t)d->nmeta < sizeof(d->meta) / sizeof(d->meta[0]))
		d->meta[d->nmeta++] = v;
}

static void
opt_number(struct dumper *d, const struct tdat_option *o,
    const struct tdat_opt_number *v, const char *name)
{
	pr(d, TDAT_DUMP_OPTIONS, "\t\t[Option %s, %u bytes]\n", name, o->size);
	if (strcmp(name, "TRACEID") == 0)
		pr(d, TDAT_DUMP_OPTIONS, "0x%" PRIX64 "\n", v->value);
	else
		pr(d, TDAT_DUMP_OPTIONS, "%d\n", (int)v->value);
}

static void
option(struct dumper *d, const struct tdat_option *o,
    const struct tdat_optval *v)
{
	static const char *const plain[] = {
		[TDAT_OPT_DATE] = "DATE", [TDAT_OPT_CPUSTAT] = "CPUSTAT",
		[TDAT_OPT_UNAME] = "UNAME", [TDAT_OPT_HOOK] = "HOOK",
		[TDAT_OPT_OFFSET] = "OFFSET", [TDAT_OPT_VERSION] = "VERSION",
		[TDAT_OPT_PROCMAPS] = "PROCMAPS",
		[TDAT_OPT_LAST_BOOT_INFO] = "LAST_BOOT_INFO",
	};
	static const char *const meta[] = {
		[TDAT_OPT_HEADER_INFO] = "HEADERS",
		[TDAT_OPT_FTRACE_EVENTS] = "FTRACE EVENTS",
		[TDAT_OPT_EVENT_FORMATS] = "EVENT FORMATS",
		[TDAT_OPT_KALLSYMS] = "KALLSYMS", [TDAT_OPT_PRINTK] = "PRINTK",
		[TDAT_OPT_CMDLINES] = "CMDLINES",
		[TDAT_OPT_MODULES_FILE] = "MODULES_FILE",
	};

	if (o->id < sizeof(plain) / sizeof(plain[0]) && plain[o->id]) {
		opt_text(d, plain[o->id], o);
		return;
	}
	if (o->id < sizeof(meta) / sizeof(meta[0]) && meta[o->id]) {
		opt_meta(d, o, v, meta[o->id]);
		return;
	}
	switch (o->id) {
	case TDAT_OPT_BUFFER:
	case TDAT_OPT_BUFFER_TEXT:
		opt_buffer(d, o, &v->u.buf);
		break;
	case TDAT_OPT_TRACECLOCK:
		pr(d, TDAT_DUMP_OPTIONS, "\t\t[Option TRACECLOCK, %u bytes]\n",
		    o->size);
		text(d, TDAT_DUMP_OPTIONS | TDAT_DUMP_CLOCK, o->data, o->size);
		d->has_clock = 1;
		break;
	case TDAT_OPT_CPUCOUNT:
		opt_number(d, o, &v->u.num, "CPUCOUNT");
		break;
	case TDAT_OPT_TRACEID:
		opt_number(d, o, &v->u.num, "TRACEID");
		break;
	case TDAT_OPT_TIME_SHIFT:
		opt_time_shift(d, o, &v->u.ts);
		break;
	case TDAT_OPT_GUEST:
		opt_guest(d, o, &v->u.guest);
		break;
	case TDAT_OPT_TSC2NSEC:
		pr(d, TDAT_DUMP_OPTIONS, "\n\t\t[Option TSC2NSEC, %u bytes]\n",
		    o->size);
		if (v->u.tsc.valid)
			pr(d, TDAT_DUMP_OPTIONS, "%d %d %" PRIu64
			    " [multiplier, shift, offset]\n", (int)v->u.tsc.mult,
			    (int)v->u.tsc.shift, v->u.tsc.offset);
		break;
	default:
		pr(d, TDAT_DUMP_OPTIONS,
		    " %u %u\t[Unknown option, size - skipping]\n", o->id, o->size);
	}
}

/* v6: the options list; v7: the chain of options sections. */
static void
options(struct dumper *d)
{
	struct tdat_file *f = d->f;
	const struct tdat_tracedat *td = tdat_tracedat_of(f);
	size_t i;
	int count = 0, sect = -2;

	for (i = 0; i < f->nopt; i++) {
		const struct tdat_option *o = &f->opt[i];

		if (f->version >= 7 && o->sect != sect) {
			sect = o->sect;
			if (sect >= 0 && (size_t)sect < td->nsect)
				section_header(d, TDAT_DUMP_OPTIONS,
				    &td->sect[sect]);
		}
		count++;
		if (o->id != TDAT_OPT_DONE) {
			option(d, o, &d->ov[i]);
			continue;
		}
		pr(d, TDAT_DUMP_OPTIONS, "\t\t[Option DONE, %u bytes]\n", o->size);
		if (d->ov[i].u.ref.valid) {
			uint64_t next = d->ov[i].u.ref.off;

			pr(d, TDAT_DUMP_OPTIONS, "%" PRIu64 "\n", next);
			if (next)
				pr(d, TDAT_DUMP_OPTIONS, "\n\n");
		}
	}
	pr(d, TDAT_DUMP_SUMMARY | TDAT_DUMP_OPTIONS, "\t[%d options]\n", count);
}

static void
flyrecord_v6(struct dumper *d)
{
	struct tdat_file *f = d->f;
	const struct tdat_buffer *b = &f->buf[0];
	uint32_t i;

	pr(d, TDAT_DUMP_SUMMARY | TDAT_DUMP_FLYRECORD,
	    "\t[Flyrecord tracing data]\n");
	for (i = 0; i < b->ncpu; i++)
		pr(d, TDAT_DUMP_FLYRECORD,
		    "\t %10.lld %10.lld\t[offset, size of cpu %u]\n",
		    (long long)b->cpu[i].off, (long long)b->cpu[i].size, i);
	pr(d, TDAT_DUMP_SUMMARY | TDAT_DUMP_CLOCK, "\t[Tracing clock]\n");
	if (!d->has_clock)
		pr(d, TDAT_DUMP_SUMMARY | TDAT_DUMP_CLOCK,
		    "\t\t No tracing clock saved in the file\n");
	else
		pr(d, TDAT_DUMP_SUMMARY | TDAT_DUMP_CLOCK, "\t\t%s\n",
		    f->clock_data ? f->clock_data : "");
}

static void
dump_v6(struct dumper *d)
{
	struct tdat_file *f = d->f;

	headers(d);
	ftrace_events(d);
	systems(d);
	blob(d, TDAT_DUMP_KALLSYMS, "Kallsyms", &f->kallsyms);
	blob(d, TDAT_DUMP_PRINTK, "Trace printk", &f->printk);
	blob(d, TDAT_DUMP_CMDLINES, "Saved command lines", &f->cmdlines);
	pr(d, TDAT_DUMP_SUMMARY, "\t%u [CPUs with tracing data]\n", f->ncpus);
	if (f->v6_options)
		options(d);
	if (f->latency)
		pr(d, TDAT_DUMP_SUMMARY, "\t[Latency tracing data]\n");
	else
		flyrecord_v6(d);
}

static void
strings(struct dumper *d)
{
	struct tdat_file *f = d->f;
	const struct tdat_tracedat *td = tdat_tracedat_of(f);
	size_t i, base = 0;

	for (i = 0; i < td->nsect; i++) {
		const struct tdat_section *s = &td->sect[i];
		uint64_t len = s->flags & TDAT_SEC_COMPRESSED ? s->usize : s->size;
		uint64_t p = 0;

		if (s->id != TDAT_OPT_STRINGS)
			continue;
		pr(d, TDAT_DUMP_STRINGS, "\t[String @ offset]\n");
		while (p < len && base + p < td->strings_len) {
			const char *str = (const char *)td->strings + base + p;

			pr(d, TDAT_DUMP_STRINGS, "\t\t\"%s\" @ %" PRIu64 "\n", str,
			    (uint64_t)(base + p));
			p += strlen(str) + 1;
		}
		base += len;
	}
}

static void
section_list(struct dumper *d)
{
	struct tdat_file *f = d->f;
	const struct tdat_tracedat *td = tdat_tracedat_of(f);
	size_t i;

	for (i = 0; i < td->nsect; i++) {
		const struct tdat_section *s = &td->sect[i];
		const char *name = secname(f, s->name_id);

		if (s->id >= TDAT_OPT_MAX)
			pr(d, TDAT_DUMP_SECTIONS, "Unknown section id %u: %s",
			    s->id, name);
		if (!(s->flags & TDAT_SEC_COMPRESSED))
			pr(d, TDAT_DUMP_SECTIONS, "\t[Section %2u @ %-16" PRIu64
			    "\t\"%s\", flags 0x%X, %" PRIu64 " bytes]\n", s->id,
			    s->off, name, s->flags, s->size);
		else if (s->id == TDAT_OPT_BUFFER || s->id == TDAT_OPT_BUFFER_TEXT)
			pr(d, TDAT_DUMP_SECTIONS, "\t[Section %2u @ %-16" PRIu64
			    "\t\"%s\", flags 0x%X, %" PRIu64
			    " compressed bytes]\n", s->id, s->off, name, s->flags,
			    s->size);
		else
			pr(d, TDAT_DUMP_SECTIONS, "\t[Section %2u @ %-16" PRIu64
			    "\t\"%s\", flags 0x%X, %u compressed, %u "
			    "uncompressed]\n", s->id, s->off, name, s->flags,
			    s->csize, s->usize);
	}
}

/*
 * The modules section (trace-cmd 3.4): its text in pieces of 1024 bytes,
 * each printed as trace-cmd's "%*s" prints it: right-aligned in as many
 * columns as the piece has bytes, up to its first NUL.  (trace-cmd reads
 * on past a piece with no NUL, into whatever its buffer holds after it:
 * that is not printed here.)
 */
static void
modules(struct dumper *d)
{
	const struct tdat_blob *b = &d->f->modules;
	uint64_t at = 0, n, k;

	pr(d, TDAT_DUMP_SUMMARY | TDAT_DUMP_MODULES, "\t[Saved modules]\n");
	while (b->p != NULL && at < b->len) {
		n = b->len - at < 1024 ? b->len - at : 1024;
		k = strnlen((const char *)b->p + at, n);
		pr(d, TDAT_DUMP_SUMMARY | TDAT_DUMP_MODULES, "%*s",
		    (int)(n - k), "");
		if (SHOW(d, TDAT_DUMP_SUMMARY | TDAT_DUMP_MODULES))
			fwrite(b->p + at, 1, (size_t)k, d->out);
		at += n;
	}
	pr(d, TDAT_DUMP_SUMMARY | TDAT_DUMP_MODULES, "\n[%d bytes]\n",
	    (int)b->len);
}

/* The metadata sections, in the reverse order of their options. */
static void
meta_sections(struct dumper *d)
{
	struct tdat_file *f = d->f;
	const struct tdat_tracedat *td = tdat_tracedat_of(f);
	static const unsigned masks[TDAT_OPT_MAX] = {
		[TDAT_OPT_HEADER_INFO] = TDAT_DUMP_HEAD_PAGE | TDAT_DUMP_HEAD_EVENT,
		[TDAT_OPT_FTRACE_EVENTS] = TDAT_DUMP_FTRACE,
		[TDAT_OPT_EVENT_FORMATS] = TDAT_DUMP_SYSTEMS | TDAT_DUMP_EVENTS,
		[TDAT_OPT_KALLSYMS] = TDAT_DUMP_KALLSYMS,
		[TDAT_OPT_PRINTK] = TDAT_DUMP_PRINTK,
		[TDAT_OPT_CMDLINES] = TDAT_DUMP_CMDLINES,
		[TDAT_OPT_MODULES_FILE] = TDAT_DUMP_MODULES,
	};
	int i;

	for (i = d->nmeta - 1; i >= 0; i--) {
		const struct tdat_optval *o = d->meta[i];
		const struct tdat_section *s;

		if (!o->u.ref.valid || (s = section_at(f, o->u.ref.off)) == NULL)
			continue;
		section_header(d, masks[o->id], s);
		switch (o->id) {
		case TDAT_OPT_HEADER_INFO:
			headers(d);
			break;
		case TDAT_OPT_FTRACE_EVENTS:
			ftrace_events(d);
			break;
		case TDAT_OPT_EVENT_FORMATS:
			systems(d);
			break;
		case TDAT_OPT_KALLSYMS:
			blob(d, TDAT_DUMP_KALLSYMS, "Kallsyms", &f->kallsyms);
			break;
		case TDAT_OPT_PRINTK:
			blob(d, TDAT_DUMP_PRINTK, "Trace printk", &f->printk);
			break;
		case TDAT_OPT_CMDLINES:
			blob(d, TDAT_DUMP_CMDLINES, "Saved command lines",
			    &f->cmdlines);
			break;
		case TDAT_OPT_MODULES_FILE:
			modules(d);
			break;
		}
	}
	pr(d, TDAT_DUMP_SUMMARY | TDAT_DUMP_SECTIONS, "\t[%zu sections]\n",
	    td->nsect);
}

int
tdat_dump(struct tdat_file *f, FILE *out, unsigned what, struct tdat_err *e)
{
	struct dumper d;
	int rc;

	memset(&d, 0, sizeof(d));
	if ((rc = tdat_options(f, &d.ov, e)) < 0)
		return rc;
	d.f = f;
	d.out = out;
	d.what = what;
	initial(&d);
	if (f->version < 7) {
		dump_v6(&d);
	} else {
		strings(&d);
		section_list(&d);
		options(&d);
		meta_sections(&d);
	}
	if (ferror(out))
		return tdat_fail_nooff(e, TDAT_EIO, "write error");
	return 0;
}

/* ------------------------------------------------------------------ */
/* tdat's own views. */

int
tdat_dump_summary(struct tdat_file *f, FILE *out, struct tdat_err *e)
{
	const struct tdat_tracedat *td = tdat_tracedat_of(f);
	size_t i;

	fprintf(out, "file:         %s\n", f->path);
	fprintf(out, "version:      %d\n", f->version);
	fprintf(out, "endianness:   %s\n", f->big ? "big" : "little");
	fprintf(out, "long size:    %d\n", f->lsize);
	fprintf(out, "page size:    %u\n", f->page_size);
	if (f->version >= 7)
		fprintf(out, "compression:  %s %s\n", f->comp ? f->comp : "none",
		    td->comp_ver && *td->comp_ver ? td->comp_ver : "");
	fprintf(out, "CPUs:         %u\n", f->ncpus);
	fprintf(out, "options:      %zu\n", f->nopt);
	fprintf(out, "systems:      %u (%u ftrace events)\n", f->nsys, f->nftrace);
	for (i = 0; i < f->nbuf; i++) {
		const struct tdat_buffer *b = &f->buf[i];
		uint64_t total = 0;
		uint32_t c;

		for (c = 0; c < b->ncpu; c++)
			total += b->cpu[c].size;
		if (b->latency)
			fprintf(out, "buffer \"%s\": clock %s, latency text\n",
			    b->name, b->clock);
		else
			fprintf(out, "buffer \"%s\": clock %s, page size %u, "
			    "%u CPUs, %" PRIu64 " bytes of data%s\n", b->name,
			    b->clock, b->page_size, b->ncpu, total,
			    b->compressed ? " (compressed)" : "");
	}
	if (f->latency)
		fprintf(out, "latency text at offset %" PRIu64 "\n",
		    f->latency_off);
	for (i = 0; i < td->nsect; i++) {
		const struct tdat_section *s = &td->sect[i];
		const char *name = tdat_string(f, s->name_id);

		fprintf(out, "section %2u @ %-10" PRIu64 " %-22s %" PRIu64
		    " bytes%s\n", s->id, s->off, name ? name : "?", s->size,
		    s->flags & TDAT_SEC_COMPRESSED ? ", compressed" : "");
	}
	if (ferror(out))
		return tdat_fail_nooff(e, TDAT_EIO, "write error");
	return 0;
}

int
tdat_dump_flyrecord(struct tdat_file *f, FILE *out, struct tdat_err *e)
{
	size_t i;
	uint32_t c;
	int rc;

	for (i = 0; i < f->nbuf; i++) {
		const struct tdat_buffer *b = &f->buf[i];

		fprintf(out, "buffer \"%s\"%s\n", b->name,
		    b->latency ? " (latency text)" : "");
		for (c = 0; c < b->ncpu; c++) {
			const struct tdat_cpu *cp = &b->cpu[c];
			struct tdat_chunk *ch;
			uint32_t n, k;
			uint64_t usize = 0;

			if (!b->compressed) {
				fprintf(out, "  cpu %u: offset %" PRIu64 ", size %"
				    PRIu64 ", %" PRIu64 " pages\n", cp->id,
				    cp->off, cp->size, cp->size / b->page_size);
				continue;
			}
			if ((rc = tdat_cpu_chunks(f, b, cp, &ch, &n, e)) < 0)
				return rc;
			for (k = 0; k < n; k++)
				usize += ch[k].usize;
			free(ch);
			fprintf(out, "  cpu %u: offset %" PRIu64 ", compressed size %"
			    PRIu64 ", %u chunks, size %" PRIu64 ", %" PRIu64
			    " pages\n", cp->id, cp->off, cp->size, n, usize,
			    usize / b->page_size);
		}
	}
	if (ferror(out))
		return tdat_fail_nooff(e, TDAT_EIO, "write error");
	return 0;
}
