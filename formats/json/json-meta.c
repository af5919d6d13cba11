/*
 * json-meta.c: the metadata of a trace.dat as one JSON document
 * (tdat-to-json --meta, schemas/meta.schema.json): what tdat-dump --all
 * shows, structured.  Keys come in a fixed order; file offsets and sizes
 * are integers (decimal strings beyond 2^53: jq 1.6 keeps only 53 bits of
 * a number), kernel addresses "0x..." strings, strings of the file that
 * are not UTF-8 {"hex":...} (formats/json/json.c's writer does both).  The
 * document is streamed, so a large kallsyms costs no memory.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "tdat-json.h"
#include "tdat-opts.h"
#include "tdat-tracedat.h"

struct meta {
	struct tdat_file *f;
	struct tdat_jw *w;
	const struct tdat_optval *ov;	/* the decoded options */
};

static void
kstr(struct tdat_jw *w, const char *key, const char *s)
{
	tdat_jw_key(w, key);
	if (s)
		tdat_jw_cstr(w, s);
	else
		tdat_jw_null(w);
}

static void
ku64(struct tdat_jw *w, const char *key, uint64_t v)
{
	tdat_jw_key(w, key);
	tdat_jw_u64(w, v);
}

static void
ki64(struct tdat_jw *w, const char *key, int64_t v)
{
	tdat_jw_key(w, key);
	tdat_jw_i64(w, v);
}

static void
kbool(struct tdat_jw *w, const char *key, int v)
{
	tdat_jw_key(w, key);
	tdat_jw_bool(w, v);
}

static void
kaddr(struct tdat_jw *w, const char *key, uint64_t v)
{
	tdat_jw_key(w, key);
	tdat_jw_hex(w, v);
}

/* Text that may lack its NUL or hold several: up to the first NUL. */
static size_t
textlen(const unsigned char *p, uint64_t n)
{
	const unsigned char *nul = p ? memchr(p, 0, n) : NULL;

	return p == NULL ? 0 : nul ? (size_t)(nul - p) : (size_t)n;
}

static void
ktext(struct tdat_jw *w, const char *key, const unsigned char *p, uint64_t n)
{
	tdat_jw_key(w, key);
	tdat_jw_str(w, p ? (const char *)p : "", textlen(p, n));
}

/* Next line of [*p, end): sets *line and *len, advances; 0 at the end. */
static int
next_line(const char **p, const char *end, const char **line, size_t *len)
{
	const char *nl;

	if (*p >= end)
		return 0;
	*line = *p;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	*len = (size_t)((nl ? nl : end) - *p);
	*p = nl ? nl + 1 : end;
	return 1;
}

/* Value of "key:" up to ';' inside a field line; -1 if absent. */
static long long
fnum(const char *line, size_t len, const char *key, int *found)
{
	size_t kl = strlen(key), i;

	*found = 0;
	for (i = 0; i + kl <= len; i++)
		if (memcmp(line + i, key, kl) == 0) {
			*found = 1;
			return strtoll(line + i + kl, NULL, 10);
		}
	return -1;
}

/*
 * A format file's field line: "\tfield:TYPE NAME;\toffset:N;\tsize:N;
 * \tsigned:N;".  The name is the last identifier of the declaration
 * before any "[".
 */
static void
field_line(struct tdat_jw *w, const char *line, size_t len)
{
	const char *decl = line + 6, *semi, *ne, *ns;
	long long v;
	int found;

	while (decl < line + len && *decl == ' ')
		decl++;
	semi = memchr(decl, ';', (size_t)(line + len - decl));
	if (semi == NULL)
		semi = line + len;
	ne = memchr(decl, '[', (size_t)(semi - decl));
	if (ne == NULL)
		ne = semi;
	while (ne > decl && ne[-1] == ' ')
		ne--;
	ns = ne;
	while (ns > decl && (ns[-1] == '_' || (ns[-1] >= '0' && ns[-1] <= '9') ||
	    (ns[-1] >= 'a' && ns[-1] <= 'z') || (ns[-1] >= 'A' && ns[-1] <= 'Z')))
		ns--;
	tdat_jw_obj(w);
	tdat_jw_key(w, "name");
	tdat_jw_str(w, ns, (size_t)(ne - ns));
	tdat_jw_key(w, "declaration");
	tdat_jw_str(w, decl, (size_t)(semi - decl));
	v = fnum(line, len, "offset:", &found);
	if (found)
		ki64(w, "offset", v);
	v = fnum(line, len, "size:", &found);
	if (found)
		ki64(w, "size", v);
	v = fnum(line, len, "signed:", &found);
	if (found)
		kbool(w, "signed", v != 0);
	tdat_jw_end(w, '}');
}

/* An event format file: name, id, fields, print fmt and the text. */
static void
format(struct tdat_jw *w, const struct tdat_blob *b, int header)
{
	const char *p = (const char *)b->p, *end, *line, *pf = NULL;
	const char *name = NULL;
	size_t len, namelen = 0, pflen = 0;
	long long id = -1;

	end = p + textlen(b->p, b->len);
	tdat_jw_obj(w);
	while (!header && next_line(&p, end, &line, &len)) {
		if (len > 6 && memcmp(line, "name: ", 6) == 0) {
			name = line + 6;
			namelen = len - 6;
		} else if (len > 4 && memcmp(line, "ID: ", 4) == 0) {
			id = strtoll(line + 4, NULL, 10);
		} else if (len > 11 && memcmp(line, "print fmt: ", 11) == 0) {
			pf = line + 11;
			pflen = len - 11;
		}
	}
	if (!header) {
		tdat_jw_key(w, "name");
		if (name)
			tdat_jw_str(w, name, namelen);
		else
			tdat_jw_null(w);
		tdat_jw_key(w, "id");
		if (id >= 0)
			tdat_jw_i64(w, id);
		else
			tdat_jw_null(w);
	}
	tdat_jw_key(w, "fields");
	tdat_jw_arr(w);
	p = (const char *)b->p;
	while (next_line(&p, end, &line, &len)) {
		while (len > 0 && (*line == '\t' || *line == ' ')) {
			line++;
			len--;
		}
		if (len > 6 && memcmp(line, "field:", 6) == 0)
			field_line(w, line, len);
	}
	tdat_jw_end(w, ']');
	if (!header) {
		tdat_jw_key(w, "print_fmt");
		if (pf)
			tdat_jw_str(w, pf, pflen);
		else
			tdat_jw_null(w);
	}
	ktext(w, "format", b->p, b->len);
	tdat_jw_end(w, '}');
}

static void
systems(struct meta *m)
{
	struct tdat_file *f = m->f;
	struct tdat_jw *w = m->w;
	uint32_t i, j;

	tdat_jw_key(w, "ftrace_events");
	tdat_jw_arr(w);
	for (i = 0; i < f->nftrace; i++)
		format(w, &f->ftrace[i], 0);
	tdat_jw_end(w, ']');
	tdat_jw_key(w, "systems");
	tdat_jw_arr(w);
	for (i = 0; i < f->nsys; i++) {
		tdat_jw_obj(w);
		kstr(w, "name", f->sys[i].name);
		tdat_jw_key(w, "events");
		tdat_jw_arr(w);
		for (j = 0; j < f->sys[i].nev; j++)
			format(w, &f->sys[i].ev[j], 0);
		tdat_jw_end(w, ']');
		tdat_jw_end(w, '}');
	}
	tdat_jw_end(w, ']');
}

/* kallsyms: "ADDR TYPE NAME[\t[MODULE]]" per line. */
static void
kallsyms(struct meta *m)
{
	const struct tdat_blob *b = &m->f->kallsyms;
	struct tdat_jw *w = m->w;
	const char *p = (const char *)b->p, *end, *line, *s, *le, *t;
	size_t len;

	end = p + textlen(b->p, b->len);
	tdat_jw_key(w, "kallsyms");
	tdat_jw_arr(w);
	while (next_line(&p, end, &line, &len)) {
		le = line + len;
		s = memchr(line, ' ', len);
		if (s == NULL || le - s < 4 || s[2] != ' ')
			continue;
		tdat_jw_obj(w);
		kaddr(w, "address", strtoull(line, NULL, 16));
		tdat_jw_key(w, "type");
		tdat_jw_str(w, s + 1, 1);
		s += 3;
		t = memchr(s, '\t', (size_t)(le - s));
		tdat_jw_key(w, "name");
		tdat_jw_str(w, s, (size_t)((t ? t : le) - s));
		if (t && le - t > 2 && t[1] == '[' && le[-1] == ']') {
			tdat_jw_key(w, "module");
			tdat_jw_str(w, t + 2, (size_t)(le - t - 3));
		}
		tdat_jw_end(w, '}');
	}
	tdat_jw_end(w, ']');
}

/* printk: 'ADDR : "FORMAT"' per line. */
static void
printk(struct meta *m)
{
	const struct tdat_blob *b = &m->f->printk;
	struct tdat_jw *w = m->w;
	const char *p = (const char *)b->p, *end, *line, *s, *le;
	size_t len;

	end = p + textlen(b->p, b->len);
	tdat_jw_key(w, "printk");
	tdat_jw_arr(w);
	while (next_line(&p, end, &line, &len)) {
		le = line + len;
		s = memchr(line, ':', len);
		if (s == NULL)
			continue;
		s++;
		while (s < le && *s == ' ')
			s++;
		if (s < le && *s == '"' && le - s >= 2 && le[-1] == '"') {
			s++;
			le--;
		}
		tdat_jw_obj(w);
		kaddr(w, "address", strtoull(line, NULL, 16));
		tdat_jw_key(w, "format");
		tdat_jw_str(w, s, (size_t)(le - s));
		tdat_jw_end(w, '}');
	}
	tdat_jw_end(w, ']');
}

/* cmdlines: "PID COMM" per line. */
static void
cmdlines(struct meta *m)
{
	const struct tdat_blob *b = &m->f->cmdlines;
	struct tdat_jw *w = m->w;
	const char *p = (const char *)b->p, *end, *line, *s;
	size_t len;

	end = p + textlen(b->p, b->len);
	tdat_jw_key(w, "cmdlines");
	tdat_jw_arr(w);
	while (next_line(&p, end, &line, &len)) {
		s = memchr(line, ' ', len);
		if (s == NULL)
			continue;
		tdat_jw_obj(w);
		ki64(w, "pid", strtoll(line, NULL, 10));
		tdat_jw_key(w, "comm");
		tdat_jw_str(w, s + 1, (size_t)(line + len - s - 1));
		tdat_jw_end(w, '}');
	}
	tdat_jw_end(w, ']');
}

/* ------------------------------------------------------------------ */
/* Options, decoded by type. */

static void
opt_buffer(struct meta *m, const struct tdat_option *o,
    const struct tdat_opt_buffer *b)
{
	struct tdat_jw *w = m->w;
	uint32_t i;

	tdat_jw_obj(w);
	if (!b->has_off)
		goto out;
	ku64(w, "offset", b->off);
	if (b->name == NULL)
		goto out;
	tdat_jw_key(w, "name");
	tdat_jw_str(w, b->name, b->name_len);
	if (b->clock == NULL)
		goto out;
	tdat_jw_key(w, "clock");
	tdat_jw_str(w, b->clock, b->clock_len);
	if (o->id != TDAT_OPT_BUFFER || !b->has_cpus)
		goto out;
	ku64(w, "page_size", b->page_size);
	tdat_jw_key(w, "cpus");
	tdat_jw_arr(w);
	for (i = 0; i < b->nread; i++) {
		tdat_jw_obj(w);
		ku64(w, "id", b->cpu[i].id);
		ku64(w, "offset", b->cpu[i].off);
		ku64(w, "size", b->cpu[i].size);
		tdat_jw_end(w, '}');
	}
	tdat_jw_end(w, ']');
out:
	tdat_jw_end(w, '}');
}

static void
opt_time_shift(struct meta *m, const struct tdat_time_shift *t)
{
	struct tdat_jw *w = m->w;
	uint64_t k = 0;
	uint32_t i, j;

	tdat_jw_obj(w);
	if (t->head < 16)
		goto out;
	kaddr(w, "peer_trace_id", t->peer_id);
	ku64(w, "flags", t->flags);
	if (t->broken) {
		kbool(w, "broken", 1);
		goto out;
	}
	tdat_jw_key(w, "cpus");
	tdat_jw_arr(w);
	for (j = 0; j < t->ncount; j++) {
		tdat_jw_arr(w);
		for (i = 0; i < t->cpu[j].n; i++, k++) {
			const struct tdat_ts_sample *s = &t->cpu[j].s[i];

			tdat_jw_obj(w);
			ki64(w, "time", s->time);
			ki64(w, "offset", s->offset);
			ki64(w, "scaling", s->scaling);
			if (k < t->nfrac)
				ku64(w, "fraction", s->frac);
			tdat_jw_end(w, '}');
		}
		tdat_jw_end(w, ']');
	}
	tdat_jw_end(w, ']');
out:
	tdat_jw_end(w, '}');
}

static void
opt_guest(struct meta *m, const struct tdat_guest *g)
{
	struct tdat_jw *w = m->w;
	uint32_t i;

	tdat_jw_obj(w);
	if (g->name == NULL)
		goto out;
	tdat_jw_key(w, "name");
	tdat_jw_str(w, g->name, g->name_len);
	if (!g->has_ncpu)
		goto out;
	kaddr(w, "trace_id", g->trace_id);
	tdat_jw_key(w, "cpus");
	tdat_jw_arr(w);
	for (i = 0; i < g->nread; i++) {
		tdat_jw_obj(w);
		ki64(w, "cpu", g->cpu[i].cpu);
		ki64(w, "host_pid", g->cpu[i].host_pid);
		tdat_jw_end(w, '}');
	}
	tdat_jw_end(w, ']');
out:
	tdat_jw_end(w, '}');
}

static void
opt_value(struct meta *m, const struct tdat_option *o,
    const struct tdat_optval *v)
{
	struct tdat_jw *w = m->w;
	char *hex;
	uint32_t i;

	tdat_jw_key(w, "value");
	switch (o->id) {
	case TDAT_OPT_DATE: case TDAT_OPT_CPUSTAT: case TDAT_OPT_UNAME:
	case TDAT_OPT_HOOK: case TDAT_OPT_OFFSET: case TDAT_OPT_VERSION:
	case TDAT_OPT_PROCMAPS: case TDAT_OPT_TRACECLOCK:
	case TDAT_OPT_LAST_BOOT_INFO:
		tdat_jw_str(w, v->u.text.s, v->u.text.len);
		break;
	case TDAT_OPT_BUFFER: case TDAT_OPT_BUFFER_TEXT:
		opt_buffer(m, o, &v->u.buf);
		break;
	case TDAT_OPT_CPUCOUNT:
		if (v->u.num.width)
			tdat_jw_u64(w, v->u.num.value);
		else
			tdat_jw_null(w);
		break;
	case TDAT_OPT_TRACEID:
		if (v->u.num.width) {
			char s[24];

			tdat_jw_str(w, s, (size_t)snprintf(s, sizeof(s),
			    "0x%" PRIx64, v->u.num.value));
		} else {
			tdat_jw_null(w);
		}
		break;
	case TDAT_OPT_TIME_SHIFT:
		opt_time_shift(m, &v->u.ts);
		break;
	case TDAT_OPT_GUEST:
		opt_guest(m, &v->u.guest);
		break;
	case TDAT_OPT_TSC2NSEC:
		if (!v->u.tsc.valid) {
			tdat_jw_null(w);
			break;
		}
		tdat_jw_obj(w);
		ki64(w, "multiplier", (int32_t)v->u.tsc.mult);
		ki64(w, "shift", (int32_t)v->u.tsc.shift);
		ku64(w, "offset", v->u.tsc.offset);
		tdat_jw_end(w, '}');
		break;
	case TDAT_OPT_DONE:
	case TDAT_OPT_HEADER_INFO: case TDAT_OPT_FTRACE_EVENTS:
	case TDAT_OPT_EVENT_FORMATS: case TDAT_OPT_KALLSYMS:
	case TDAT_OPT_PRINTK: case TDAT_OPT_CMDLINES:
	case TDAT_OPT_BTF_FILE: case TDAT_OPT_MODULES_FILE:
		/* The offset of a section (DONE: of the next options). */
		if (v->u.ref.valid)
			tdat_jw_u64(w, v->u.ref.off);
		else
			tdat_jw_null(w);
		break;
	default:
		/* Unknown: the bytes in hex. */
		if ((hex = malloc(2 * (size_t)o->size + 1)) == NULL) {
			w->err = TDAT_ENOMEM;
			break;
		}
		for (i = 0; i < o->size; i++)
			snprintf(hex + 2 * i, 3, "%02x", o->data[i]);
		tdat_jw_str(w, hex, 2 * (size_t)o->size);
		free(hex);
		break;
	}
}

static void
options(struct meta *m)
{
	struct tdat_file *f = m->f;
	struct tdat_jw *w = m->w;
	const char *name;
	size_t i;

	tdat_jw_key(w, "options");
	tdat_jw_arr(w);
	for (i = 0; i < f->nopt; i++) {
		const struct tdat_option *o = &f->opt[i];

		tdat_jw_obj(w);
		ku64(w, "id", o->id);
		name = tdat_option_name(o->id);
		kstr(w, "name", name);
		ku64(w, "offset", o->off);
		ku64(w, "size", o->size);
		if (f->version >= 7) {
			tdat_jw_key(w, "section");
			if (o->sect >= 0)
				tdat_jw_i64(w, o->sect);
			else
				tdat_jw_null(w);
		}
		opt_value(m, o, &m->ov[i]);
		tdat_jw_end(w, '}');
	}
	tdat_jw_end(w, ']');
}

static void
sections(struct meta *m)
{
	struct tdat_file *f = m->f;
	const struct tdat_tracedat *td = tdat_tracedat_of(f);
	struct tdat_jw *w = m->w;
	size_t i;

	tdat_jw_key(w, "sections");
	tdat_jw_arr(w);
	for (i = 0; i < td->nsect; i++) {
		const struct tdat_section *s = &td->sect[i];
		int comp = (s->flags & TDAT_SEC_COMPRESSED) != 0;

		tdat_jw_obj(w);
		ku64(w, "id", s->id);
		kstr(w, "name", tdat_string(f, s->name_id));
		ku64(w, "offset", s->off);
		ku64(w, "flags", s->flags);
		kbool(w, "compressed", comp);
		ku64(w, "size", s->size);
		if (comp && s->id != TDAT_OPT_BUFFER &&
		    s->id != TDAT_OPT_BUFFER_TEXT) {
			ku64(w, "compressed_size", s->csize);
			ku64(w, "uncompressed_size", s->usize);
		}
		tdat_jw_end(w, '}');
	}
	tdat_jw_end(w, ']');
}

/* The v7 strings, each with its offset in the strings sections. */
static void
strings(struct meta *m)
{
	struct tdat_file *f = m->f;
	const struct tdat_tracedat *td = tdat_tracedat_of(f);
	struct tdat_jw *w = m->w;
	size_t p = 0, len;

	tdat_jw_key(w, "strings");
	tdat_jw_arr(w);
	while (td->strings && p < td->strings_len) {
		const char *s = (const char *)td->strings + p;
		const char *nul = memchr(s, 0, td->strings_len - p);

		len = nul ? (size_t)(nul - s) : td->strings_len - p;
		tdat_jw_obj(w);
		ku64(w, "offset", p);
		tdat_jw_key(w, "string");
		tdat_jw_str(w, s, len);
		tdat_jw_end(w, '}');
		p += len + 1;
	}
	tdat_jw_end(w, ']');
}

static void
buffers(struct meta *m)
{
	struct tdat_file *f = m->f;
	struct tdat_jw *w = m->w;
	size_t i;
	uint32_t c;

	tdat_jw_key(w, "buffers");
	tdat_jw_arr(w);
	for (i = 0; i < f->nbuf; i++) {
		const struct tdat_buffer *b = &f->buf[i];

		tdat_jw_obj(w);
		kstr(w, "name", b->name);
		kstr(w, "clock", b->clock);
		ku64(w, "page_size", b->page_size);
		kbool(w, "latency", b->latency);
		kbool(w, "compressed", b->compressed);
		tdat_jw_key(w, "cpus");
		tdat_jw_arr(w);
		for (c = 0; c < b->ncpu; c++) {
			tdat_jw_obj(w);
			ku64(w, "id", b->cpu[c].id);
			ku64(w, "offset", b->cpu[c].off);
			ku64(w, "size", b->cpu[c].size);
			tdat_jw_end(w, '}');
		}
		tdat_jw_end(w, ']');
		tdat_jw_end(w, '}');
	}
	tdat_jw_end(w, ']');
}

/* "[local] global counter": the clocks, the selected one in brackets. */
static void
clock(struct meta *m)
{
	struct tdat_file *f = m->f;
	struct tdat_jw *w = m->w;
	const char *text = NULL, *p, *e, *sel = NULL;
	size_t len = 0, i, sellen = 0;

	if (f->clock_data) {
		text = f->clock_data;
		len = strlen(text);
	} else {
		for (i = 0; i < f->nopt; i++)
			if (f->opt[i].id == TDAT_OPT_TRACECLOCK) {
				text = m->ov[i].u.text.s;
				len = m->ov[i].u.text.len;
			}
	}
	tdat_jw_key(w, "trace_clock");
	tdat_jw_obj(w);
	tdat_jw_key(w, "available");
	tdat_jw_arr(w);
	for (p = text, e = text + len; p && p < e;) {
		const char *s, *t;

		while (p < e && (*p == ' ' || *p == '\n'))
			p++;
		if (p >= e)
			break;
		s = p;
		while (p < e && *p != ' ' && *p != '\n')
			p++;
		t = p;
		if (*s == '[' && t - s >= 2 && t[-1] == ']') {
			s++;
			t--;
			sel = s;
			sellen = (size_t)(t - s);
		}
		tdat_jw_str(w, s, (size_t)(t - s));
	}
	tdat_jw_end(w, ']');
	tdat_jw_key(w, "selected");
	if (sel)
		tdat_jw_str(w, sel, sellen);
	else if (f->trace_clock)
		tdat_jw_cstr(w, f->trace_clock);
	else
		tdat_jw_null(w);
	tdat_jw_end(w, '}');
}

/* Where a latency tracer's text starts: v6 after its "latency" tag (to
 * the end of the file), v7 in its BUFFER_TEXT section (chunks when
 * compressed); null without one, or for an LTT directory's v7 text. */
static void
latency(struct meta *m)
{
	struct tdat_jw *w = m->w;
	const struct tdat_file *f = m->f;
	int bi = tdat_latency_buffer(f);
	uint64_t off;

	tdat_jw_key(w, "latency");
	if (f->latency)
		off = f->latency_off;
	else if (bi >= 0 && tdat_is_tracedat(f))
		off = f->buf[bi].opt_off + 16;
	else {
		tdat_jw_null(w);
		return;
	}
	tdat_jw_obj(w);
	ku64(w, "offset", off);
	tdat_jw_end(w, '}');
}

/* A number of the n bytes at s in base (10 or 16, no "0x"), all of them. */
static int
word_num(const char *s, size_t n, int base, uint64_t *v)
{
	size_t i;
	int d;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (base == 16 && s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else
			return -1;
		if (*v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -1;
		*v = *v * (uint64_t)base + (uint64_t)d;
	}
	return n > 0 ? 0 : -1;
}

/* The words of a line (split at spaces), at most max of them. */
static size_t
words(const char *s, size_t n, const char **w, size_t *wl, size_t max)
{
	size_t k = 0, i = 0, j;

	while (i < n && k < max) {
		while (i < n && s[i] == ' ')
			i++;
		for (j = i; j < n && s[j] != ' '; j++)
			;
		if (j > i) {
			w[k] = s + i;
			wl[k++] = j - i;
		}
		i = j;
	}
	return k;
}

/*
 * trace-cmd 3.4's modules section: the recording machine's /proc/modules,
 * "NAME SIZE REFCOUNT USED_BY STATE ADDRESS [TAINTS]" a line; a line not
 * of that shape is given whole.
 */
static void
modules(struct meta *m)
{
	const struct tdat_blob *b = &m->f->modules;
	struct tdat_jw *w = m->w;
	const char *p, *end, *line, *wd[8];
	size_t len, wl[8], n, i;
	uint64_t size, refs, addr;

	tdat_jw_key(w, "modules");
	if (b->p == NULL) {
		tdat_jw_null(w);
		return;
	}
	tdat_jw_obj(w);
	ku64(w, "offset", b->off);
	tdat_jw_key(w, "modules");
	tdat_jw_arr(w);
	p = (const char *)b->p;
	end = p + textlen(b->p, b->len);
	while (next_line(&p, end, &line, &len)) {
		if (len == 0)
			continue;
		tdat_jw_obj(w);
		n = words(line, len, wd, wl, 8);
		if (n < 6 || n > 7 || word_num(wd[1], wl[1], 10, &size) < 0 ||
		    word_num(wd[2], wl[2], 10, &refs) < 0 || wl[5] < 3 ||
		    memcmp(wd[5], "0x", 2) != 0 ||
		    word_num(wd[5] + 2, wl[5] - 2, 16, &addr) < 0) {
			tdat_jw_key(w, "line");
			tdat_jw_str(w, line, len);
			tdat_jw_end(w, '}');
			continue;
		}
		tdat_jw_key(w, "name");
		tdat_jw_str(w, wd[0], wl[0]);
		ku64(w, "size", size);
		ku64(w, "refcount", refs);
		tdat_jw_key(w, "used_by");
		tdat_jw_arr(w);
		for (i = 0; i < wl[3] && !(wl[3] == 1 && wd[3][0] == '-');) {
			size_t j = i;

			while (j < wl[3] && wd[3][j] != ',')
				j++;
			if (j > i)
				tdat_jw_str(w, wd[3] + i, j - i);
			i = j + 1;
		}
		tdat_jw_end(w, ']');
		tdat_jw_key(w, "state");
		tdat_jw_str(w, wd[4], wl[4]);
		kaddr(w, "address", addr);
		tdat_jw_key(w, "taints");
		if (n == 7)
			tdat_jw_str(w, wd[6], wl[6]);
		else
			tdat_jw_null(w);
		tdat_jw_end(w, '}');
	}
	tdat_jw_end(w, ']');
	tdat_jw_end(w, '}');
}

/*
 * trace-cmd 3.4's LAST_BOOT_INFO option: where the kernel and each module
 * lay in the boot a persistent buffer was recorded in, for its addresses:
 * "BUFFER:ADDR\t[kernel]", then "ADDR\tMODULE" a line.  null without it.
 */
static void
last_boot(struct meta *m)
{
	struct tdat_jw *w = m->w;
	const struct tdat_opt_text *t = NULL;
	const char *p, *end, *line, *c, *tab;
	size_t i, len;
	uint64_t addr;
	int first = 1;

	for (i = 0; i < m->f->nopt && t == NULL; i++)
		if (m->ov[i].id == TDAT_OPT_LAST_BOOT_INFO && m->ov[i].u.text.s)
			t = &m->ov[i].u.text;
	tdat_jw_key(w, "last_boot");
	if (t == NULL) {
		tdat_jw_null(w);
		return;
	}
	tdat_jw_obj(w);
	p = t->s;
	end = p + t->len;
	while (next_line(&p, end, &line, &len)) {
		if (first) {
			first = 0;
			c = memchr(line, ':', len);
			tdat_jw_key(w, "buffer");
			tdat_jw_str(w, line, c ? (size_t)(c - line) : len);
			tdat_jw_key(w, "kernel");
			tab = c ? memchr(c, '\t', len - (size_t)(c - line)) : NULL;
			if (tab && word_num(c + 1, (size_t)(tab - c - 1), 16,
			    &addr) == 0)
				tdat_jw_hex(w, addr);
			else
				tdat_jw_null(w);
			tdat_jw_key(w, "modules");
			tdat_jw_arr(w);
			continue;
		}
		tab = memchr(line, '\t', len);
		if (tab == NULL || word_num(line, (size_t)(tab - line), 16,
		    &addr) < 0)
			continue;
		tdat_jw_obj(w);
		tdat_jw_key(w, "name");
		tdat_jw_str(w, tab + 1, len - (size_t)(tab + 1 - line));
		kaddr(w, "address", addr);
		tdat_jw_end(w, '}');
	}
	if (first) {
		kstr(w, "buffer", NULL);
		kstr(w, "kernel", NULL);
		tdat_jw_key(w, "modules");
		tdat_jw_arr(w);
	}
	tdat_jw_end(w, ']');
	tdat_jw_end(w, '}');
}

/* trace-cmd 3.4's BTF section: where it is and its size; null without. */
static void
btf(struct meta *m)
{
	struct tdat_file *f = m->f;
	const struct tdat_tracedat *td = tdat_tracedat_of(f);
	struct tdat_jw *w = m->w;
	size_t i;

	tdat_jw_key(w, "btf");
	for (i = 0; i < td->nsect; i++)
		if (td->btf_sect != 0 && td->sect[i].off == td->btf_sect)
			break;
	if (td->btf_sect == 0 || i == td->nsect) {
		tdat_jw_null(w);
		return;
	}
	tdat_jw_obj(w);
	ku64(w, "offset", td->sect[i].off);
	ku64(w, "size", td->sect[i].flags & TDAT_SEC_COMPRESSED ?
	    td->sect[i].usize : td->sect[i].size);
	tdat_jw_end(w, '}');
}

int
tdat_json_meta(struct tdat_file *f, FILE *out, const struct tdat_json_opts *o,
    struct tdat_err *e)
{
	const struct tdat_tracedat *td = tdat_tracedat_of(f);
	struct tdat_jw jw, *w = &jw;
	struct meta m = { f, w, NULL };
	int rc;

	(void)o;
	if ((rc = tdat_options(f, &m.ov, e)) < 0)
		return rc;
	if (tdat_jw_init(w, out) < 0)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	tdat_jw_obj(w);
	kstr(w, "file", f->path);
	ki64(w, "version", f->version);
	kstr(w, "endianness", f->big ? "big" : "little");
	ki64(w, "long_size", f->lsize);
	ku64(w, "page_size", f->page_size);
	tdat_jw_key(w, "compression");
	if (f->version >= 7 && f->comp) {
		tdat_jw_obj(w);
		kstr(w, "name", f->comp);
		kstr(w, "version", td->comp_ver ? td->comp_ver : "");
		tdat_jw_end(w, '}');
	} else {
		tdat_jw_null(w);
	}
	ku64(w, "cpus", f->ncpus);
	tdat_jw_key(w, "header_page");
	format(w, &f->hpage, 1);
	tdat_jw_key(w, "header_event");
	format(w, &f->hevent, 1);
	systems(&m);
	options(&m);
	sections(&m);
	strings(&m);
	buffers(&m);
	clock(&m);
	latency(&m);
	cmdlines(&m);
	printk(&m);
	modules(&m);
	last_boot(&m);
	btf(&m);
	kallsyms(&m);
	tdat_jw_end(w, '}');
	tdat_jw_nl(w);
	rc = tdat_jw_flush(w);
	tdat_jw_free(w);
	if (rc == TDAT_ENOMEM)
		return tdat_fail_nooff(e, rc, "out of memory");
	if (rc < 0)
		return tdat_fail_nooff(e, rc, "write error");
	return 0;
}
