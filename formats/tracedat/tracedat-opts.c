/*
 * tracedat-opts.c: the payloads of trace.dat options decoded into typed
 * values (formats/tracedat/tdat-opts.h), once per file.  The layouts are those of
 * trace-cmd.dat.v6(5) and trace-cmd.dat.v7(5).  A payload too short for
 * what it declares is decoded as far as it goes and marked; nothing here
 * fails but an allocation, and every count is checked against the bytes
 * left before it is used.
 */
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "tdat-opts.h"
#include "tdat-tracedat.h"

const char *
tdat_clock_selected(const char *s, size_t n, size_t *len)
{
	const char *a, *b;

	if (s == NULL || (a = memchr(s, '[', n)) == NULL ||
	    (b = memchr(a, ']', n - (size_t)(a - s))) == NULL)
		return NULL;
	*len = (size_t)(b - a - 1);
	return a + 1;
}

/*
 * OFFSET and DATE hold a number as text (base 0, as strtoll reads it);
 * TRACECLOCK lists the clocks, the one in use in brackets.
 */
static void
dec_text(struct tdat_opt_text *t, uint16_t id, const unsigned char *d,
    uint32_t size)
{
	const unsigned char *nul;
	char buf[64], *end;
	size_t n;

	t->s = (const char *)d;
	nul = d ? memchr(d, 0, size) : NULL;
	t->len = d == NULL ? 0 : nul ? (size_t)(nul - d) : size;
	if (id == TDAT_OPT_TRACECLOCK)
		t->clock = tdat_clock_selected(t->s, size, &t->clock_len);
	if (id != TDAT_OPT_OFFSET && id != TDAT_OPT_DATE)
		return;
	n = size < sizeof(buf) - 1 ? size : sizeof(buf) - 1;
	if (n)
		memcpy(buf, d, n);
	buf[n] = '\0';
	t->has_num = 1;
	t->num = strtoll(buf, &end, 0);
	t->num_ok = end != buf;
}

static void
dec_number(struct tdat_opt_number *v, const unsigned char *d, uint32_t size,
    int big)
{
	if (size == 1 || size == 2 || size == 4 || size == 8) {
		v->width = (int)size;
		v->value = tdat_get(d, v->width, big);
	}
}

static int
dec_buffer(struct tdat_opt_buffer *b, uint16_t id, const unsigned char *d,
    uint32_t size, int big, int version)
{
	const unsigned char *p = d, *end = d + size;
	uint32_t i;

	if (size < 8)
		return 0;
	b->has_off = 1;
	b->off = tdat_get64(p, big);
	p += 8;
	if ((b->name = tdat_cstr(&p, end, &b->name_len)) == NULL ||
	    version < 7 ||
	    (b->clock = tdat_cstr(&p, end, &b->clock_len)) == NULL ||
	    id != TDAT_OPT_BUFFER || end - p < 8)
		return 0;
	b->has_cpus = 1;
	b->page_size = tdat_get32(p, big);
	b->ncpu = tdat_get32(p + 4, big);
	p += 8;
	b->nread = (uint64_t)(end - p) / 20 < b->ncpu ?
	    (uint32_t)((end - p) / 20) : b->ncpu;
	if (b->nread == 0)
		return 0;
	if ((b->cpu = calloc(b->nread, sizeof(*b->cpu))) == NULL)
		return TDAT_ENOMEM;
	for (i = 0; i < b->nread; i++, p += 20) {
		b->cpu[i].id = tdat_get32(p, big);
		b->cpu[i].off = tdat_get64(p + 4, big);
		b->cpu[i].size = tdat_get64(p + 12, big);
	}
	return 0;
}

/*
 * TIME_SHIFT: peer trace id (8), flags (4), CPU count (4); per CPU a
 * sample count, then that many times, offsets and scalings (8 each);
 * then, optionally, one fraction (8) per sample, CPU after CPU.  A count
 * that runs past the end breaks the option; the fractions may stop short.
 */
static int
dec_time_shift(struct tdat_time_shift *t, const unsigned char *d,
    uint32_t size, int big)
{
	const unsigned char *p;
	uint64_t rem, k = 0, nsamp = 0;
	uint32_t j, i, n;

	t->head = size < 16 ? size : 16;
	if (size >= 8)
		t->peer_id = tdat_get64(d, big);
	if (size < 16)
		return 0;
	t->flags = tdat_get32(d + 8, big);
	t->ncpu = tdat_get32(d + 12, big);
	/* First the counts alone: how many there are, and whether they fit. */
	for (p = d + 16, rem = size - 16, j = 0; j < t->ncpu; j++) {
		if (rem < 4) {
			t->broken = 1;
			break;
		}
		n = tdat_get32(p, big);
		t->ncount = j + 1;
		if ((uint64_t)n * 24 > rem - 4) {
			t->broken = 1;
			break;
		}
		p += 4 + 24 * (uint64_t)n;
		rem -= 4 + 24 * (uint64_t)n;
		nsamp += n;
	}
	if (t->ncount && (t->cpu = calloc(t->ncount, sizeof(*t->cpu))) == NULL)
		return TDAT_ENOMEM;
	for (p = d + 16, j = 0; j < t->ncount; j++) {
		t->cpu[j].n = tdat_get32(p, big);
		p += 4 + 24 * (uint64_t)t->cpu[j].n;
	}
	if (t->broken || nsamp == 0)
		return 0;
	if ((t->all = calloc(nsamp, sizeof(*t->all))) == NULL)
		return TDAT_ENOMEM;
	t->nsamples = nsamp;
	t->nfrac = rem / 8 < nsamp ? rem / 8 : nsamp;
	for (p = d + 16, j = 0; j < t->ncount; j++) {
		struct tdat_ts_cpu *c = &t->cpu[j];

		c->s = t->all + k;
		p += 4;
		for (i = 0; i < c->n; i++, k++) {
			c->s[i].time = (int64_t)tdat_get64(p + 8 * i, big);
			c->s[i].offset = (int64_t)tdat_get64(p + 8 *
			    ((uint64_t)c->n + i), big);
			c->s[i].scaling = (int64_t)tdat_get64(p + 8 *
			    (2 * (uint64_t)c->n + i), big);
			if (k < t->nfrac)
				c->s[i].frac = tdat_get64(d + size - rem + 8 * k,
				    big);
		}
		p += 24 * (uint64_t)c->n;
	}
	return 0;
}

/* GUEST: name, trace id (8), vCPU count (4), per vCPU: CPU, host pid. */
static int
dec_guest(struct tdat_guest *g, const unsigned char *d, uint32_t size,
    int big)
{
	const unsigned char *p = d, *end = d + size;
	uint32_t i;

	if ((g->name = tdat_cstr(&p, end, &g->name_len)) == NULL ||
	    end - p < 8)
		return 0;
	g->has_id = 1;
	g->trace_id = tdat_get64(p, big);
	p += 8;
	if (end - p < 4)
		return 0;
	g->has_ncpu = 1;
	g->ncpu = tdat_get32(p, big);
	p += 4;
	g->nread = (uint64_t)(end - p) / 8 < g->ncpu ?
	    (uint32_t)((end - p) / 8) : g->ncpu;
	if (g->nread == 0)
		return 0;
	if ((g->cpu = calloc(g->nread, sizeof(*g->cpu))) == NULL)
		return TDAT_ENOMEM;
	for (i = 0; i < g->nread; i++, p += 8) {
		g->cpu[i].cpu = (int32_t)tdat_get32(p, big);
		g->cpu[i].host_pid = (int32_t)tdat_get32(p + 4, big);
	}
	return 0;
}

int
tdat_opt_decode(uint16_t id, const unsigned char *d, uint32_t size, int big,
    int version, struct tdat_optval *v)
{
	int rc = 0;

	memset(v, 0, sizeof(*v));
	v->id = id;
	switch (id) {
	case TDAT_OPT_DATE: case TDAT_OPT_CPUSTAT: case TDAT_OPT_UNAME:
	case TDAT_OPT_HOOK: case TDAT_OPT_OFFSET: case TDAT_OPT_VERSION:
	case TDAT_OPT_PROCMAPS: case TDAT_OPT_TRACECLOCK:
	case TDAT_OPT_LAST_BOOT_INFO:
		dec_text(&v->u.text, id, d, size);
		break;
	case TDAT_OPT_CPUCOUNT: case TDAT_OPT_TRACEID:
		dec_number(&v->u.num, d, size, big);
		break;
	case TDAT_OPT_DONE:
	case TDAT_OPT_HEADER_INFO: case TDAT_OPT_FTRACE_EVENTS:
	case TDAT_OPT_EVENT_FORMATS: case TDAT_OPT_KALLSYMS:
	case TDAT_OPT_PRINTK: case TDAT_OPT_CMDLINES:
	case TDAT_OPT_BTF_FILE: case TDAT_OPT_MODULES_FILE:
		if (size >= 8) {
			v->u.ref.valid = 1;
			v->u.ref.off = tdat_get64(d, big);
		}
		break;
	case TDAT_OPT_TSC2NSEC:
		if (size >= 16) {
			v->u.tsc.valid = 1;
			v->u.tsc.mult = tdat_get32(d, big);
			v->u.tsc.shift = tdat_get32(d + 4, big);
			v->u.tsc.offset = tdat_get64(d + 8, big);
		}
		break;
	case TDAT_OPT_BUFFER: case TDAT_OPT_BUFFER_TEXT:
		rc = dec_buffer(&v->u.buf, id, d, size, big, version);
		break;
	case TDAT_OPT_TIME_SHIFT:
		rc = dec_time_shift(&v->u.ts, d, size, big);
		break;
	case TDAT_OPT_GUEST:
		rc = dec_guest(&v->u.guest, d, size, big);
		break;
	}
	if (rc < 0)
		tdat_optval_free(v);
	return rc;
}

void
tdat_optval_free(struct tdat_optval *v)
{
	switch (v->id) {
	case TDAT_OPT_BUFFER: case TDAT_OPT_BUFFER_TEXT:
		free(v->u.buf.cpu);
		break;
	case TDAT_OPT_TIME_SHIFT:
		free(v->u.ts.cpu);
		free(v->u.ts.all);
		break;
	case TDAT_OPT_GUEST:
		free(v->u.guest.cpu);
		break;
	}
	memset(&v->u, 0, sizeof(v->u));
}

int
tdat_options(struct tdat_file *f, const struct tdat_optval **out,
    struct tdat_err *e)
{
	struct tdat_optval *v;
	size_t i;

	if (f->optv == NULL) {
		if ((v = calloc(f->nopt ? f->nopt : 1, sizeof(*v))) == NULL)
			return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		for (i = 0; i < f->nopt; i++) {
			const struct tdat_option *o = &f->opt[i];

			if (tdat_opt_decode(o->id, o->data, o->size, f->big,
			    f->version, &v[i]) < 0) {
				while (i-- > 0)
					tdat_optval_free(&v[i]);
				free(v);
				return tdat_fail_nooff(e, TDAT_ENOMEM,
				    "out of memory");
			}
		}
		f->optv = v;
		f->noptv = f->nopt;
	}
	*out = f->optv;
	return 0;
}

void
tdat_options_free(struct tdat_file *f)
{
	size_t i;

	for (i = 0; i < f->noptv; i++)
		tdat_optval_free(&f->optv[i]);
	free(f->optv);
	f->optv = NULL;
	f->noptv = 0;
}

int
tdat_tracedat_clock(struct tdat_file *f, struct tdat_clock *c,
    struct tdat_err *e)
{
	const struct tdat_optval *ov;
	size_t i;
	int rc;

	if ((rc = tdat_options(f, &ov, e)) < 0)
		return rc;
	for (i = 0; i < f->nopt; i++) {
		const struct tdat_optval *v = &ov[i];

		switch (v->id) {
		case TDAT_OPT_OFFSET:
			c->offset += v->u.text.num;
			break;
		case TDAT_OPT_TIME_SHIFT:
			if (c->shift == NULL && v->u.ts.head >= 16 &&
			    !v->u.ts.broken)
				c->shift = &v->u.ts;
			break;
		case TDAT_OPT_TSC2NSEC:
			if (!v->u.tsc.valid)
				break;
			c->tsc_mult = v->u.tsc.mult;
			c->tsc_shift = v->u.tsc.shift;
			c->tsc_offset = v->u.tsc.offset;
			break;
		}
	}
	return 0;
}
