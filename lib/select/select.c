/*
 * select.c: which records of one or more traces a tool keeps.
 *
 * Events are chosen by name globs (-e), kernel filter expressions (-F),
 * pid and comm; -v inverts that choice.  CPUs, a time range and a buffer
 * restrict it further.  Several inputs (merged by lib/merge/repack.c) must
 * share their event formats.  The record stream asks tdat_select_keep()
 * about every record, so sinks only see the kept ones.
 *
 * Event formats, fields and comms come from the event engine
 * (tdat-event.h).
 */
#include <ctype.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "event-int.h"

#define NIDS		65536
#define F_CPU		(-2)	/* pseudo fields */
#define F_COMM		(-3)
#define F_MISSING	0x40000000	/* a field this event lacks */
#define FILTER_OPS	"=!<>&~()|\"' \t"	/* what ends an event list */

struct event {
	const struct tdat_event *te;
	int sel_e;		/* chosen by -e */
	int stack;		/* ftrace's kernel_stack or user_stack */
	struct tdat_filter **flt;	/* per -F; NULL when it does not apply */
	unsigned char *all;	/* per -F: it names the event, no expression */
};

/* A -e or -F pattern compiled as a regular expression, kept for the
 * other events it is matched against. */
struct rxent {
	char *pat;
	regex_t rx;
	int ok;			/* it compiled */
};

struct input {
	struct tdat_file *f;
	struct tdat_events *set;
	struct event *ev;
	size_t nev;
	struct event **byid;	/* by event id, ids below nbyid */
	uint32_t nbyid;
	/* Per buffer and CPU: an event passed the -F filters there.  A
	 * stack trace that no -F keeps is kept then, as trace-cmd does. */
	unsigned char *shown;
	uint32_t ncpu;		/* CPUs per buffer in shown */
	struct rxent *rx;	/* the patterns compiled so far */
	size_t nrx;
};

struct tdat_select {
	struct input *in;
	size_t nin;
	const struct tdat_select_opts *o;
	uint64_t since, until;
	/* Separate inputs (tdat_select_opts.separate): one selection each,
	 * NULL for an input where no event is named (it keeps what -v
	 * keeps: nothing, or everything inverted). */
	struct tdat_select **sub;
};

/* The record being matched, for the filters' field getter. */
struct match {
	const struct input *in;
	const struct event *ev;
	const struct tdat_record *r;
};

/* ------------------------------------------------------------------ */
/* Event formats, from the event engine. */

/* The per buffer and CPU flags; CPU ids past MAX_SHOWN keep none. */
#define MAX_SHOWN	4096
static int
alloc_shown(struct input *in, struct tdat_err *e)
{
	const struct tdat_file *f = in->f;
	size_t b;
	uint32_t j;

	for (b = 0; b < f->nbuf; b++)
		for (j = 0; j < f->buf[b].ncpu; j++)
			if (f->buf[b].cpu[j].id < MAX_SHOWN &&
			    f->buf[b].cpu[j].id >= in->ncpu)
				in->ncpu = f->buf[b].cpu[j].id + 1;
	if (f->nbuf && in->ncpu && (in->shown = calloc(f->nbuf,
	    in->ncpu)) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	return 0;
}

/* The flag of the record's buffer and CPU, or NULL. */
static unsigned char *
shown(struct input *in, const struct tdat_record *r)
{
	if (in->shown == NULL || r->buffer < 0 ||
	    (size_t)r->buffer >= in->f->nbuf || r->cpu < 0 ||
	    (uint32_t)r->cpu >= in->ncpu)
		return NULL;
	return &in->shown[(size_t)r->buffer * in->ncpu + (uint32_t)r->cpu];
}

static int
load_events(struct input *in, struct tdat_err *e)
{
	const struct tdat_event *te;
	size_t i;
	int id, rc;

	if ((rc = tdat_events_load(in->f, &in->set, e)) < 0)
		return rc;
	/* Names and fields only: whether a print format compiles does not
	 * decide whether its event exists, and compiling them was most of
	 * the work of opening a selection. */
	in->set->fields_only = 1;
	tdat_events_finish(in->set, 0);
	/* Selections name events: every format is read. */
	tdat_events_resolve(in->set);
	/* By id up to the largest id of the set, not every possible one:
	 * a table of 65536 made and zeroed costs more than a small file. */
	for (i = 0; i < in->set->nev; i++)
		if ((id = in->set->ev[i]->id) >= 0 && id < NIDS &&
		    (uint32_t)id >= in->nbyid)
			in->nbyid = (uint32_t)id + 1;
	if ((in->byid = calloc(in->nbyid ? in->nbyid : 1,
	    sizeof(*in->byid))) == NULL ||
	    (in->ev = calloc(in->set->nev ? in->set->nev : 1,
	    sizeof(*in->ev))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	/* The set's events in id order (not every id: most are unused). */
	for (i = 0; i < in->set->nev; i++)
		if ((id = in->set->ev[i]->id) >= 0 && id < NIDS &&
		    in->byid[id] == NULL &&
		    (te = tdat_events_find(in->set, id)) != NULL) {
			in->ev[in->nev].te = te;
			in->ev[in->nev].stack = strcmp(te->system, "ftrace") ==
			    0 && (strcmp(te->name, "kernel_stack") == 0 ||
			    strcmp(te->name, "user_stack") == 0);
			in->byid[id] = &in->ev[in->nev++];
		}
	return alloc_shown(in, e);
}

/* ------------------------------------------------------------------ */
/* Fields of the record being matched. */

/* A field's id: its index in common, then in fields. */
static const struct tdat_field *
field_by_id(const struct tdat_event *te, int id)
{
	if (id < te->ncommon)
		return &te->common[id];
	return &te->fields[id - te->ncommon];
}

static int
lookup(void *arg, const char *name, int *kind)
{
	const struct tdat_event *te = ((const struct event *)arg)->te;
	const struct tdat_field *fl;
	int n = te->ncommon + te->nfields;

	if ((fl = tdat_event_field(te, name)) != NULL) {
		if (fl->flags & TDAT_FLD_STRING)
			*kind = TDAT_FIELD_STR;
		else if (fl->flags & TDAT_FLD_SIGNED)
			*kind = TDAT_FIELD_SIGNED;
		else
			*kind = TDAT_FIELD_NUM;
		if (fl >= te->common && fl < te->common + te->ncommon)
			return (int)(fl - te->common);
		return te->ncommon + (int)(fl - te->fields);
	}
	if (strcmp(name, "CPU") == 0) {
		*kind = TDAT_FIELD_NUM;
		return n - F_CPU;
	}
	if (strcmp(name, "COMM") == 0) {
		*kind = TDAT_FIELD_STR;
		return n - F_COMM;
	}
	return -1;
}

static int
pid_of(const struct tdat_event *te, const struct tdat_record *r, int *pid)
{
	if (te->pid == NULL || (uint32_t)te->pid->offset +
	    (uint32_t)te->pid->size > r->size)
		return -1;
	*pid = (int)(int32_t)tdat_field_read(te, te->pid, r->data, r->size);
	return 0;
}

/* A string field: fixed array, __data_loc or __rel_loc. */
static int
get_str(const struct tdat_event *te, const struct tdat_field *fl,
    const struct tdat_record *r, struct tdat_fval *v)
{
	uint32_t off = (uint32_t)fl->offset, len = (uint32_t)fl->size;
	unsigned long long x;

	if (off > r->size || len > r->size - off)
		return -1;
	if (fl->flags & (TDAT_FLD_DYNAMIC | TDAT_FLD_RELATIVE)) {
		x = tdat_field_read(te, fl, r->data, r->size);
		off = (uint32_t)x & 0xffff;
		len = (uint32_t)(x >> 16) & 0xffff;
		if (fl->flags & TDAT_FLD_RELATIVE)
			off += (uint32_t)fl->offset + (uint32_t)fl->size;
		if (off > r->size || len > r->size - off)
			return -1;
	}
	v->str = (const char *)r->data + off;
	v->len = len;
	return 0;
}

static int
get(void *arg, int id, struct tdat_fval *v)
{
	const struct match *m = arg;
	const struct tdat_event *te = m->ev->te;
	const struct tdat_record *r = m->r;
	const struct tdat_field *fl;
	int n = te->ncommon + te->nfields, pid;
	unsigned long long x;

	if (id == F_MISSING)
		return -1;
	if (id >= n) {
		if (id - n == -F_CPU) {
			v->num = (uint64_t)r->cpu;
			return 0;
		}
		if (pid_of(te, r, &pid) < 0)
			return -1;
		v->str = tdat_events_comm(m->in->set, pid);
		v->len = strlen(v->str);
		return 0;
	}
	fl = field_by_id(te, id);
	if (fl->flags & TDAT_FLD_STRING)
		return get_str(te, fl, r, v);
	if ((uint32_t)fl->offset > r->size || (uint32_t)fl->size >
	    r->size - (uint32_t)fl->offset || fl->size <= 0)
		return -1;
	x = tdat_field_read(te, fl, r->data, r->size);
	if ((fl->flags & TDAT_FLD_SIGNED) && fl->size < 8 &&
	    (x >> (fl->size * 8 - 1)) & 1)
		x |= ~0ULL << (fl->size * 8);
	v->num = x;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Which events: -e globs and -F filters, resolved per event. */

/* pat compiled as "^pat$", case-blind, from in's list (compiled once:
 * the same pattern is matched against every event); NULL if it does not
 * compile or memory ran out. */
static const regex_t *
name_rx(struct input *in, const char *pat)
{
	struct rxent *x;
	char re[300];
	size_t i;

	for (i = 0; i < in->nrx; i++)
		if (strcmp(in->rx[i].pat, pat) == 0)
			return in->rx[i].ok ? &in->rx[i].rx : NULL;
	if ((size_t)snprintf(re, sizeof(re), "^%s$", pat) >= sizeof(re) ||
	    (x = realloc(in->rx, (in->nrx + 1) * sizeof(*x))) == NULL)
		return NULL;
	in->rx = x;
	x = &in->rx[in->nrx];
	if ((x->pat = strdup(pat)) == NULL)
		return NULL;
	x->ok = regcomp(&x->rx, re, REG_ICASE | REG_NOSUB) == 0;
	in->nrx++;
	return x->ok ? &x->rx : NULL;
}

/* Does pat match the whole of name, as a glob or (as trace-cmd takes
 * it) as a case-blind basic regular expression? */
static int
name_match(struct input *in, const char *pat, const char *name)
{
	const regex_t *rx;

	if (fnmatch(pat, name, 0) == 0)
		return 1;
	return (rx = name_rx(in, pat)) != NULL &&
	    regexec(rx, name, 0, NULL, 0) == 0;
}

/* Does "[SYSTEM:]EVENT" (globs or regular expressions) name ev?  Without
 * a system, a pattern matching the system's name takes the whole
 * system. */
static int
names_event(struct input *in, const char *pat, const struct event *ev)
{
	const char *c = strchr(pat, ':');
	char sys[256];

	if (c == NULL)
		c = strchr(pat, '/');
	if (c == NULL)
		return name_match(in, pat, ev->te->name) ||
		    name_match(in, pat, ev->te->system);
	if ((size_t)(c - pat) >= sizeof(sys))
		return 0;
	memcpy(sys, pat, (size_t)(c - pat));
	sys[c - pat] = '\0';
	return name_match(in, sys, ev->te->system) &&
	    name_match(in, c + 1, ev->te->name);
}

/* Does a comma-separated list of patterns name ev? */
static int
list_names(struct input *in, const char *list, const struct event *ev)
{
	char buf[512], *tok, *save;

	if (list == NULL)
		return 1;
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",",
	    &save)) {
		while (isspace((unsigned char)*tok))
			tok++;
		if (*tok && names_event(in, tok, ev))
			return 1;
	}
	return 0;
}

/* Where in a list the first pattern that names no event is; -1 if every
 * one names some (trace-cmd refuses a filter with such a name). */
static long
first_unnamed(struct input *in, const char *list)
{
	const char *p = list, *q;
	char tok[256];
	size_t i, n;

	for (;; p += n + 1) {
		n = strcspn(p, ",");
		for (q = p; q < p + n && isspace((unsigned char)*q); q++)
			;
		if ((size_t)(p + n - q) >= sizeof(tok))
			return q - list;
		memcpy(tok, q, (size_t)(p + n - q));
		tok[p + n - q] = '\0';
		for (i = 0; i < in->nev; i++)
			if (names_event(in, tok, &in->ev[i]))
				break;
		if (i == in->nev)
			return q - list;
		if (p[n] == '\0')
			return -1;
	}
}

/* Resolving a -F field over the events it names: a field some of them
 * lack makes its predicates false for those (as trace-cmd does); a field
 * none of them has is an error. */
struct resolve {
	struct input *in;
	const char *events;	/* the -F's event list, NULL every event */
	struct event *ev;	/* the event being compiled */
};

static int
lookup_any(void *arg, const char *name, int *kind)
{
	struct resolve *r = arg;
	size_t i;

	for (i = 0; i < r->in->nev; i++)
		if (list_names(r->in, r->events, &r->in->ev[i]) &&
		    lookup(&r->in->ev[i], name, kind) >= 0)
			return 0;
	return -1;
}

static int
lookup_event(void *arg, const char *name, int *kind)
{
	struct resolve *r = arg;
	int id;

	if ((id = lookup(r->ev, name, kind)) >= 0)
		return id;
	return lookup_any(arg, name, kind) < 0 ? -1 : F_MISSING;
}

/* Compile -F number k for every event it names. */
static int
compile_filter(struct tdat_select *s, size_t k, int *bad, struct tdat_err *e)
{
	struct resolve r = { .in = &s->in[0] };
	const char *arg = s->o->filters[k];
	struct tdat_filter *check;
	size_t at, i;
	int named = 0, rc;
	long un;
	char *events;

	at = tdat_filter_split(arg, &events);
	/* Only event names ("sched_switch,irq"): all of those events, as
	 * trace-cmd takes it. */
	if (events == NULL && *arg && arg[strcspn(arg, FILTER_OPS)] == '\0' &&
	    (events = strdup(arg)) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	r.events = events;
	for (i = 0; i < r.in->nev; i++)
		named += list_names(r.in, events, &r.in->ev[i]);
	if (named == 0 || (events && (un = first_unnamed(r.in, events)) >= 0)) {
		free(events);
		*bad = (int)k;
		return tdat_fail(e, TDAT_EUSAGE, named ? (uint64_t)un : 0,
		    "No event matches");
	}
	if (at == 0 && events != NULL) {
		for (i = 0; i < r.in->nev; i++)
			r.in->ev[i].all[k] = (unsigned char)list_names(r.in,
			    events, &r.in->ev[i]);
		free(events);
		return 0;
	}
	if ((rc = tdat_filter_parse(arg + at, lookup_any, &r, &check, e)) < 0)
		goto fail;
	tdat_filter_free(check);
	for (i = 0; i < r.in->nev; i++) {
		r.ev = &r.in->ev[i];
		if (!list_names(r.in, events, r.ev))
			continue;
		if ((rc = tdat_filter_parse(arg + at, lookup_event, &r,
		    &r.ev->flt[k], e)) < 0)
			goto fail;
	}
	free(events);
	return 0;
fail:
	free(events);
	if (e->has_off && rc == TDAT_EUSAGE)
		e->off += at;
	*bad = (int)k;
	return rc;
}

static int
choose_events(struct tdat_select *s, int *bad, struct tdat_err *e)
{
	const struct tdat_select_opts *o = s->o;
	struct input *in = &s->in[0];
	size_t i, k;
	int rc;

	for (i = 0; i < in->nev; i++) {
		struct event *ev = &in->ev[i];

		for (k = 0; k < o->nevents && !ev->sel_e; k++)
			ev->sel_e = names_event(in, o->events[k], ev);
		if (o->nfilters && ((ev->flt = calloc(o->nfilters,
		    sizeof(*ev->flt))) == NULL || (ev->all = calloc(o->nfilters,
		    1)) == NULL))
			return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	for (k = 0; k < o->nevents; k++) {
		for (i = 0; i < in->nev; i++)
			if (names_event(in, o->events[k], &in->ev[i]))
				break;
		if (i == in->nev)
			return tdat_fail_nooff(e, TDAT_EUSAGE,
			    "no event matches '%s'", o->events[k]);
	}
	for (k = 0; k < o->nfilters; k++)
		if ((rc = compile_filter(s, k, bad, e)) < 0)
			return rc;
	return 0;
}

static int
in_list(const int *v, size_t n, int x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

/* Is the record chosen by the event criteria (before -v)? */
static int
chosen(struct tdat_select *s, struct input *in,
    const struct tdat_record *r)
{
	unsigned char *sh;
	const struct tdat_select_opts *o = s->o;
	const struct event *ev = NULL;
	struct match m;
	size_t k;
	int any, pid = 0;
	uint32_t id;

	if (r->size >= 2 && s->in[0].byid && (id = tdat_get16(r->data,
	    in->f->big)) < s->in[0].nbyid)
		ev = s->in[0].byid[id];
	if (ev == NULL)
		return o->nevents == 0 && o->nfilters == 0 && o->npids == 0 &&
		    o->ncomms == 0;
	if (o->nevents && !ev->sel_e)
		return 0;
	m.in = in;
	m.ev = ev;
	m.r = r;
	if (o->nfilters) {
		for (any = 0, k = 0; k < o->nfilters && !any; k++)
			any = ev->all[k] || (ev->flt[k] &&
			    tdat_filter_match(ev->flt[k], get, &m));
		sh = shown(in, r);
		if (!any && !(ev->stack && sh && *sh && !o->invert))
			return 0;
		if (sh)
			*sh = 1;
	}
	if ((o->npids || o->ncomms) && pid_of(ev->te, r, &pid) < 0)
		return 0;
	if (o->npids && !in_list(o->pids, o->npids, pid))
		return 0;
	if (o->ncomms) {
		const char *c = tdat_events_comm(in->set, pid);

		for (any = 0, k = 0; k < o->ncomms && !any; k++)
			any = fnmatch(o->comms[k], c, 0) == 0;
		if (!any)
			return 0;
	}
	return 1;
}

static int
cpu_selected(const struct tdat_select_opts *o, uint32_t cpu)
{
	return o->cpus == NULL || (cpu < (uint32_t)o->ncpus && o->cpus[cpu]);
}

int
tdat_select_keep(struct tdat_select *s, size_t k,
    const struct tdat_record *r)
{
	if (s->sub && k < s->nin) {
		if (r->ts < s->since || r->ts > s->until ||
		    !cpu_selected(s->o, (uint32_t)r->cpu))
			return 0;
		return s->sub[k] ? tdat_select_keep(s->sub[k], 0, r) :
		    s->o->invert;
	}
	if (k >= s->nin || r->ts < s->since || r->ts > s->until ||
	    !cpu_selected(s->o, (uint32_t)r->cpu))
		return 0;
	return chosen(s, &s->in[k], r) != s->o->invert;
}

int
tdat_select_stream(const struct tdat_select *s, size_t k, int buf,
    uint32_t cpu)
{
	const struct tdat_file *f;

	if (k >= s->nin)
		return 0;
	f = s->in[k].f;
	if (buf < 0 || (size_t)buf >= f->nbuf)
		return 0;
	return cpu_selected(s->o, cpu) && (s->o->buffer == NULL ||
	    strcmp(s->o->buffer, f->buf[buf].name) == 0);
}

static int
filter_keep(void *arg, size_t k, const struct tdat_record *r)
{
	return tdat_select_keep(arg, k, r);
}

static int
filter_stream(const void *arg, size_t k, int buf, uint32_t cpu)
{
	return tdat_select_stream(arg, k, buf, cpu);
}

static int
filter_range(const void *arg, uint64_t *since, uint64_t *until)
{
	return tdat_select_range(arg, since, until);
}

void
tdat_select_filter(struct tdat_select *s, size_t k,
    struct tdat_reader_filter *out)
{
	memset(out, 0, sizeof(*out));
	if (s == NULL)
		return;
	out->arg = s;
	out->input = k;
	out->keep = filter_keep;
	out->stream = filter_stream;
	out->range = filter_range;
}

int
tdat_select_range(const struct tdat_select *s, uint64_t *since,
    uint64_t *until)
{
	*since = s->since;
	*until = s->until;
	return !s->o->full_decode && (s->since > 0 || s->until < UINT64_MAX);
}

const struct tdat_select_opts *
tdat_select_options(const struct tdat_select *s)
{
	return s->o;
}

/* ------------------------------------------------------------------ */
/* Merging inputs: the same formats are required. */

static int
same_blob(const struct tdat_blob *a, const struct tdat_blob *b)
{
	return a->len == b->len && (a->len == 0 ||
	    memcmp(a->p, b->p, (size_t)a->len) == 0);
}

static int
same_fields(const struct tdat_field *a, const struct tdat_field *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(a[i].name, b[i].name) || strcmp(a[i].type, b[i].type) ||
		    a[i].offset != b[i].offset || a[i].size != b[i].size ||
		    a[i].flags != b[i].flags)
			return 0;
	return 1;
}

/* Do two events have the same name, fields and print format? */
static int
same_event(const struct tdat_event *x, const struct tdat_event *y)
{
	return strcmp(x->system, y->system) == 0 &&
	    strcmp(x->name, y->name) == 0 && x->ncommon == y->ncommon &&
	    x->nfields == y->nfields &&
	    same_fields(x->common, y->common, x->ncommon) &&
	    same_fields(x->fields, y->fields, x->nfields) &&
	    (x->fmt == y->fmt || (x->fmt && y->fmt &&
	    strcmp(x->fmt, y->fmt) == 0));
}

static int
check_merge(struct tdat_select *s, size_t k, struct tdat_err *e)
{
	struct input *a = &s->in[0], *b = &s->in[k];
	const char *name = b->f->path;
	size_t i, j;

	if (a->f->big != b->f->big || a->f->lsize != b->f->lsize ||
	    a->f->page_size != b->f->page_size ||
	    !same_blob(&a->f->hpage, &b->f->hpage) ||
	    !same_blob(&a->f->hevent, &b->f->hevent))
		return tdat_fail_nooff(e, TDAT_EUSAGE, "%s: its byte order, "
		    "long size, page size or page header differs from %s",
		    name, a->f->path);
	for (i = 0; i < b->nev; i++) {
		const struct tdat_event *y = b->ev[i].te;
		const struct event *x = y->id >= 0 && (uint32_t)y->id <
		    a->nbyid ? a->byid[y->id] : NULL;

		if (x == NULL)
			return tdat_fail_nooff(e, TDAT_EUSAGE, "%s: event %s:%s "
			    "(id %d) is not in %s", name, y->system, y->name,
			    y->id, a->f->path);
		if (!same_event(x->te, y))
			return tdat_fail_nooff(e, TDAT_EUSAGE, "%s: the format "
			    "of event %s:%s (id %d) differs from %s", name,
			    y->system, y->name, y->id, a->f->path);
	}
	for (i = 1; i < b->f->nbuf; i++) {
		for (j = 0; j < a->f->nbuf; j++)
			if (strcmp(a->f->buf[j].name, b->f->buf[i].name) == 0)
				break;
		if (j == a->f->nbuf)
			return tdat_fail_nooff(e, TDAT_EUSAGE, "%s: buffer "
			    "\"%s\" is not in %s", name, b->f->buf[i].name,
			    a->f->path);
	}
	return 0;
}

/* --buffer names a buffer of some input. */
static int
check_buffer(struct tdat_select *s, struct tdat_err *e)
{
	const struct tdat_file *f;
	size_t i, j;

	if (s->o->buffer == NULL)
		return 0;
	for (i = 0; i < s->nin; i++)
		for (f = s->in[i].f, j = 0; j < f->nbuf; j++)
			if (!f->buf[j].latency &&
			    strcmp(f->buf[j].name, s->o->buffer) == 0)
				return 0;
	return tdat_fail_nooff(e, TDAT_EUSAGE, "no buffer \"%s\"",
	    s->o->buffer);
}

/* The time of the first event of all inputs (for +relative times). */
static int
first_ts(struct tdat_select *s, uint64_t *ts, struct tdat_err *e)
{
	struct tdat_reader_opts ro = { .buffer = -1 };
	struct tdat_reader *rd;
	struct tdat_record r;
	size_t i;
	int rc;

	*ts = UINT64_MAX;
	for (i = 0; i < s->nin; i++) {
		if ((rc = tdat_reader_open(s->in[i].f, &ro, &rd, e)) < 0)
			return rc;
		rc = tdat_reader_next(rd, &r, e);
		if (rc > 0 && r.ts < *ts)
			*ts = r.ts;
		tdat_reader_close(rd);
		if (rc < 0)
			return rc;
	}
	if (*ts == UINT64_MAX)
		*ts = 0;
	return 0;
}

static int
time_range(struct tdat_select *s, struct tdat_err *e)
{
	const struct tdat_select_opts *o = s->o;
	uint64_t first = 0;
	int rc;

	s->since = 0;
	s->until = UINT64_MAX;
	if ((o->since_rel || o->until_rel) && (rc = first_ts(s, &first, e)) < 0)
		return rc;
	if (o->has_since)
		s->since = o->since + (o->since_rel ? first : 0);
	if (o->has_until)
		s->until = o->until + (o->until_rel ? first : 0);
	return 0;
}

/* ------------------------------------------------------------------ */

/* "1.5" or "2" (seconds), or with a unit: "1500ms", "1500000000ns"; a
 * leading '+' makes it relative to the first event. */
int
tdat_parse_time(const char *str, uint64_t *ns, int *rel)
{
	static const struct { const char *u; uint64_t mul; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 }, { "", 1000000000 },
	};
	const char *p = str;
	uint64_t whole = 0, frac = 0, fmul = 1, mul;
	size_t i, nd = 0;
	int digits = 0;

	*rel = *p == '+';
	p += *rel;
	for (; isdigit((unsigned char)*p); p++, digits++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return -1;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++, nd++, digits++)
			if (nd < 9) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				fmul *= 10;
			}
	if (digits == 0)
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(p, units[i].u) == 0)
			break;
	if (i == sizeof(units) / sizeof(units[0]))
		return -1;
	mul = units[i].mul;
	if (whole > UINT64_MAX / mul)
		return -1;
	*ns = whole * mul + frac * mul / fmul;
	return 0;
}

static struct tdat_select_opts *
one_input_opts(const struct tdat_select_opts *o)
{
	struct tdat_select_opts *c = malloc(sizeof(*c));

	if (c == NULL)
		return NULL;
	*c = *o;
	c->separate = 0;
	c->has_since = c->has_until = 0;	/* the whole range decides */
	c->since_rel = c->until_rel = 0;
	c->cpus = NULL;
	c->buffer = NULL;
	return c;
}

/* Inputs read side by side: a selection per input, over its own event
 * formats; events a pattern names in no input are an error, those it
 * names in some only are chosen there. */
static int
open_separate(struct tdat_select *s, struct tdat_file *const *files,
    size_t n, int *bad, struct tdat_err *e)
{
	struct tdat_select_opts *one;
	struct tdat_err first = { 0 };
	size_t i, named = 0;
	int rc, b, firstbad = -1;

	if ((s->sub = calloc(n, sizeof(*s->sub))) == NULL ||
	    (one = one_input_opts(s->o)) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	rc = check_buffer(s, e);
	for (i = 0; i < n && rc == 0; i++) {
		rc = tdat_select_open(&files[i], 1, one, &s->sub[i], &b, e);
		if (rc == TDAT_EUSAGE) {
			/* Names no event here: maybe in another input. */
			if (first.msg[0] == '\0') {
				first = *e;
				firstbad = b;
			}
			rc = 0;
			continue;
		}
		named++;
		if (rc == 0)
			s->sub[i]->o = s->o;
	}
	if (rc == 0 && named == 0) {
		*e = first;
		*bad = firstbad;
		rc = TDAT_EUSAGE;
	}
	if (rc == 0)
		rc = time_range(s, e);
	free(one);
	return rc;
}

int
tdat_select_open(struct tdat_file *const *files, size_t n,
    const struct tdat_select_opts *o, struct tdat_select **out, int *bad,
    struct tdat_err *e)
{
	struct tdat_select *s;
	void *in;
	size_t i;
	int rc;

	*out = NULL;
	*bad = -1;
	if ((s = tdat_handle_new(sizeof(*s), files, n, sizeof(*s->in), &in,
	    e)) == NULL)
		return e->code;
	s->in = in;
	s->nin = n;
	s->o = o;
	if (o->separate && n > 1) {
		rc = open_separate(s, files, n, bad, e);
		goto done;
	}
	/* One input chosen by CPU, time or buffer alone: no event formats
	 * are needed (a cut out of a big trace costs little more than the
	 * pages it reads). */
	for (i = 0; i < n; i++) {
		if (n == 1 && o->nevents == 0 && o->nfilters == 0 &&
		    o->npids == 0 && o->ncomms == 0)
			continue;
		if ((rc = load_events(&s->in[i], e)) < 0)
			goto fail;
	}
	for (i = 1; i < n; i++)
		if ((rc = check_merge(s, i, e)) < 0)
			goto fail;
	if ((rc = check_buffer(s, e)) < 0 ||
	    (rc = choose_events(s, bad, e)) < 0 ||
	    (rc = time_range(s, e)) < 0)
		goto fail;
done:
	if (rc < 0)
		goto fail;
	*out = s;
	return 0;
fail:
	tdat_select_close(s);
	return rc;
}

static void
free_input(struct input *in, size_t nfilters)
{
	size_t i, k;

	for (i = 0; i < in->nev; i++) {
		for (k = 0; in->ev[i].flt && k < nfilters; k++)
			tdat_filter_free(in->ev[i].flt[k]);
		free(in->ev[i].flt);
		free(in->ev[i].all);
	}
	for (i = 0; i < in->nrx; i++) {
		if (in->rx[i].ok)
			regfree(&in->rx[i].rx);
		free(in->rx[i].pat);
	}
	free(in->rx);
	free(in->ev);
	free(in->byid);
	free(in->shown);
	tdat_events_free(in->set);
}

void
tdat_select_close(struct tdat_select *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; s->sub && i < s->nin; i++)
		tdat_select_close(s->sub[i]);
	free(s->sub);
	for (i = 0; i < s->nin; i++)
		free_input(&s->in[i], s->o ? s->o->nfilters : 0);
	free(s->in);
	free(s);
}
