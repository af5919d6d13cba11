/*
 * ltt-write.c: a trace.dat converted into an LTT trace directory, laid
 * out as ltt(5) describes ("The new LTT trace format", 2003, read the way
 * LTTV reads it where the document is silent).
 *
 * Every record becomes an event of the facility of its event system; the
 * blocks of each tracefile use the profile LTTV decodes to the
 * nanosecond: cycle counts are nanoseconds since the block start, and a
 * block is closed before 2^32 ns pass.  Time never goes back in a
 * tracefile (tdat-verify holds a directory to that): an input whose does
 * is damaged, and refused.  The ftrace originals go to info/ so that the
 * directory converts back.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ltt-xml.h"

#include "ltt-int.h"
#include "tdat-sink.h"
#include "tdat-opts.h"

#define X(s)	((const xmlChar *)(s))
#define NS	1000000000ull

/* One tracefile being written. */
struct tf {
	int buf;
	uint32_t cpu;
	char *rel;		/* path inside the directory */
	int fd;
	unsigned char *blk;
	uint32_t pos;
	int open;
	uint64_t start, last;
	uint32_t block_id;
};

struct irq {
	int irq;
	char *name;
};

struct wr {
	struct tdat_file *f;
	struct tdat_ltt_write_opts *o;
	struct tdat_err *e;
	const char *tmp;	/* the directory being filled */
	int big, lttv, trailer2003;
	int obig;		/* byte order of the tracefiles' numbers */
	uint32_t bs;
	uint32_t ncpu;		/* system.xml's cpu */
	struct fmt_event *fmt;
	int nfmt;
	int32_t *byid;		/* ftrace id -> fmt index */
	uint16_t *ltt_id;	/* fmt index -> LTT id */
	unsigned char *endpad;	/* fmt index -> ends with LTTV_END */
	uint16_t id_process, id_interrupt, id_lost;
	struct lt_defs defs;
	struct tf *tf;
	size_t ntf;
	struct irq *irq;
	size_t nirq;
	uint64_t first_ts;
	int have_ts;
	struct tdat_sbuf sb;
	struct tdat_ring_gate *check;	/* the records' shapes, once one comes */
};

/* ------------------------------------------------------------------ */
/* Files. */

static int
wr_file(struct wr *w, const char *rel, const void *p, size_t n)
{
	char path[PATH_MAX];
	int fd;
	ssize_t k;
	const char *c = p;

	snprintf(path, sizeof(path), "%s/%s", w->tmp, rel);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644))
	    < 0)
		return tdat_fail_nooff(w->e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
	while (n > 0) {
		if ((k = write(fd, c, n)) < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return tdat_fail_nooff(w->e, TDAT_EIO, "%s: %s", path,
			    strerror(errno));
		}
		c += k;
		n -= (size_t)k;
	}
	if (close(fd) < 0)
		return tdat_fail_nooff(w->e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
	return 0;
}

static int
wr_mkdir(struct wr *w, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", w->tmp, rel);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return tdat_fail_nooff(w->e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
	return 0;
}

static int
write_all(struct wr *w, int fd, const void *p, size_t n, const char *rel)
{
	const char *c = p;
	ssize_t k;

	while (n > 0) {
		if ((k = write(fd, c, n)) < 0) {
			if (errno == EINTR)
				continue;
			return tdat_fail_nooff(w->e, TDAT_EIO, "%s/%s: %s",
			    w->tmp, rel, strerror(errno));
		}
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Blocks. */

/* id, time, and the 20-byte block_start/block_end payload. */
static void
block_event(struct wr *w, unsigned char *p, uint16_t id, uint32_t t,
    uint64_t time, uint64_t cycles, uint32_t block_id)
{
	tdat_put(p, id, 2, w->obig);
	tdat_put(p + 2, t, 4, w->obig);
	tdat_put(p + 6, time / NS, 4, w->obig);
	tdat_put(p + 10, time % NS, 4, w->obig);
	tdat_put(p + 14, cycles, 8, w->obig);
	tdat_put(p + 22, block_id, 4, w->obig);
}

static void
blk_begin(struct wr *w, struct tf *t, uint64_t ts)
{
	memset(t->blk, 0, w->bs);
	block_event(w, t->blk, LTT_ID_BLOCK_START, 0, ts, 0, t->block_id);
	t->pos = LTT_BLOCK_EV;
	t->start = t->last = ts;
	t->open = 1;
}

static int
blk_end(struct wr *w, struct tf *t)
{
	uint64_t d = t->last - t->start;
	uint32_t at = t->pos, trailer;

	if (!t->open)
		return 0;
	if (d == 0)
		d = 1;
	block_event(w, t->blk + at, LTT_ID_BLOCK_END, (uint32_t)d,
	    t->start + d, d, t->block_id);
	if (w->trailer2003)
		trailer = w->bs - at;
	else
		trailer = w->bs - 4 - (at + LTT_BLOCK_EV);
	/* LTTV's readers take the trailer as a word of the host (x86):
	 * little-endian in their dialects, whatever the trace's order. */
	tdat_put(t->blk + w->bs - 4, trailer, 4, w->lttv ? 0 : w->obig);
	t->open = 0;
	t->block_id++;
	w->o->blocks++;
	return write_all(w, t->fd, t->blk, w->bs, t->rel);
}

static int
tf_event(struct wr *w, struct tf *t, uint64_t ts, uint16_t id,
    const void *payload, size_t n)
{
	size_t need = LTT_HDR + n;
	int rc;

	if (LTT_BLOCK_EV * 2 + 4 + need > w->bs)
		return tdat_fail_nooff(w->e, TDAT_EUNSUP, "%s: an event of "
		    "%zu bytes does not fit in a block of %u bytes", t->rel,
		    need, w->bs);
	if (t->open && (ts - t->start >= UINT32_MAX ||
	    t->pos + need + LTT_BLOCK_EV + 4 > w->bs))
		if ((rc = blk_end(w, t)) < 0)
			return rc;
	if (!t->open)
		blk_begin(w, t, ts);
	tdat_put(t->blk + t->pos, id, 2, w->obig);
	tdat_put(t->blk + t->pos + 2, ts - t->start, 4, w->obig);
	if (n)
		memcpy(t->blk + t->pos + LTT_HDR, payload, n);
	t->pos += (uint32_t)need;
	t->last = ts;
	return 0;
}

static int
tf_open(struct wr *w, struct tf *t, const char *rel)
{
	char path[PATH_MAX];

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if ((t->rel = strdup(rel)) == NULL || (t->blk = malloc(w->bs)) == NULL)
		return tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory");
	snprintf(path, sizeof(path), "%s/%s", w->tmp, rel);
	if ((t->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0644)) < 0)
		return tdat_fail_nooff(w->e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
	return 0;
}

static int
tf_close(struct wr *w, struct tf *t)
{
	int rc = 0;

	if (t->fd >= 0) {
		rc = blk_end(w, t);
		if (close(t->fd) < 0 && rc == 0)
			rc = tdat_fail_nooff(w->e, TDAT_EIO, "%s/%s: %s",
			    w->tmp, t->rel, strerror(errno));
		t->fd = -1;
	}
	free(t->rel);
	free(t->blk);
	t->rel = NULL;
	t->blk = NULL;
	return rc;
}

static struct tf *
tf_get(struct wr *w, int buf, uint32_t cpu)
{
	struct tf *t;
	char rel[64];
	size_t i;

	for (i = 0; i < w->ntf; i++)
		if (w->tf[i].buf == buf && w->tf[i].cpu == cpu)
			return &w->tf[i];
	t = realloc(w->tf, (w->ntf + 1) * sizeof(*t));
	if (t == NULL) {
		tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory");
		return NULL;
	}
	w->tf = t;
	t += w->ntf;
	if (buf == 0)
		snprintf(rel, sizeof(rel), "cpu/%u", cpu);
	else if (w->lttv) {
		/* LTTV opens only cpu/: an instance's CPUs are numbered
		 * past the CPUs of the machine (ltt(5)). */
		if (cpu >= w->ncpu) {
			tdat_fail_nooff(w->e, TDAT_EUNSUP, "CPU %u of buffer "
			    "%d is not below the CPU count %u", cpu, buf,
			    w->ncpu);
			return NULL;
		}
		snprintf(rel, sizeof(rel), "cpu/%llu", (unsigned long long)buf *
		    w->ncpu + cpu);
	} else {
		snprintf(rel, sizeof(rel), "info/buffers/%d", buf);
		if (wr_mkdir(w, rel) < 0)
			return NULL;
		snprintf(rel, sizeof(rel), "info/buffers/%d/%u", buf, cpu);
	}
	if (tf_open(w, t, rel) < 0) {
		free(t->rel);
		free(t->blk);
		return NULL;
	}
	t->buf = buf;
	t->cpu = cpu;
	w->ntf++;
	return t;
}

/* ------------------------------------------------------------------ */
/* Event formats and facilities. */

static int
add_format(struct wr *w, const struct tdat_blob *b, const char *sys)
{
	struct fmt_event *ev;

	ev = realloc(w->fmt, (size_t)(w->nfmt + 1) * sizeof(*ev));
	if (ev == NULL)
		return tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory");
	w->fmt = ev;
	if (tdat_ltt_fmt_parse((const char *)b->p, (size_t)b->len, sys,
	    w->f->lsize, w->big, &ev[w->nfmt]) < 0) {
		tdat_ltt_fmt_free(&ev[w->nfmt]);
		return 0;	/* a format we cannot read: its records are skipped */
	}
	if (ev[w->nfmt].id > 65535) {
		tdat_ltt_fmt_free(&ev[w->nfmt]);
		return 0;
	}
	w->nfmt++;
	return 0;
}

static struct lt_type *
int_type(int sign, int size, const char *format)
{
	struct lt_type *t = tdat_ltt_new(sign ? LT_INT : LT_UINT, size);

	if (t && format)
		t->format = strdup(format);
	return t;
}

static struct lt_type *
bytes_type(int n)
{
	struct lt_type *t = tdat_ltt_new(LT_ARRAY, n);

	if (t)
		t->elem = tdat_ltt_new(LT_UINT, 1);
	return t;
}

static int
pow2(int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

static struct lt_type *
slot_type(const struct fmt_event *ev, const struct fmt_slot *s)
{
	const struct fmt_field *f = s->field >= 0 ? &ev->f[s->field] : NULL;
	struct lt_type *t;
	int i;

	switch (s->kind) {
	case FS_PAD:
		return bytes_type(s->size);
	case FS_DLOC_STR:
	case FS_TAIL_STR:
		return tdat_ltt_new(LT_STRING, 0);
	case FS_DLOC_SEQ:
	case FS_TAIL_SEQ:
		t = tdat_ltt_new(LT_SEQUENCE, s->kind == FS_DLOC_SEQ ? 2 : 4);
		if (t)
			t->elem = int_type(f->sign, s->elem, NULL);
		return t;
	}
	if (f->count > 0 && !f->dloc) {
		if (!pow2(f->elem) || f->elem * f->count != f->size)
			return bytes_type(f->size);
		t = tdat_ltt_new(LT_ARRAY, f->count);
		if (t)
			t->elem = int_type(f->is_char || f->sign, f->elem,
			    f->is_char ? "%c" : NULL);
		return t;
	}
	if (f->dloc || !pow2(f->size) || f->count == 0)
		return bytes_type(f->size);
	if (f->nlabel) {
		t = tdat_ltt_new(LT_ENUM, f->size);
		if (t == NULL || (t->label = calloc((size_t)f->nlabel,
		    sizeof(char *))) == NULL)
			return t;
		for (i = 0; i < f->nlabel; i++)
			t->label[i] = strdup(f->label[i]);
		t->nlabel = f->nlabel;
		return t;
	}
	return int_type(f->sign, f->size, f->format);
}

static struct lt_type *
event_type(const struct fmt_event *ev)
{
	struct lt_type *st = tdat_ltt_new(LT_STRUCT, 0);
	char name[64], desc[512];
	int i;

	if (st == NULL)
		return NULL;
	for (i = 0; i < ev->ns; i++) {
		const struct fmt_slot *s = &ev->s[i];
		const struct fmt_field *f = s->field >= 0 ? &ev->f[s->field] :
		    NULL;

		if (f == NULL) {
			snprintf(name, sizeof(name), "__pad%d", s->off);
			snprintf(desc, sizeof(desc), "padding; offset:%d; "
			    "size:%d", s->off, s->size);
		} else {
			const char *b = f->dloc ? NULL : strchr(f->type, '[');

			snprintf(name, sizeof(name), "%s", f->name);
			/* The declaration as the format file gives it: the
			 * event engine keeps brackets with the type. */
			snprintf(desc, sizeof(desc), "%.*s %s%s; offset:%d; "
			    "size:%d; signed:%d", b ? (int)(b - f->type) :
			    (int)strlen(f->type), f->type, f->name, b ? b : "",
			    f->off, f->size, f->sign);
		}
		tdat_ltt_struct_add(st, name, desc, slot_type(ev, s));
	}
	return st;
}

static char *
event_desc(const struct fmt_event *ev)
{
	struct tdat_sbuf sb;

	tdat_sb_init(&sb);
	tdat_sb_printf(&sb, "%s:%s (ftrace id %d)", ev->sys, ev->name, ev->id);
	if (ev->print)
		tdat_sb_printf(&sb, "; print fmt: %s", ev->print);
	return sb.oom ? NULL : sb.p;
}

static int
state_events(struct lt_facility *fa)
{
	struct lt_type *t;

	if ((t = tdat_ltt_new(LT_STRUCT, 0)) == NULL)
		return -1;
	tdat_ltt_struct_add(t, "pid", "process id", int_type(1, 4, "%d"));
	tdat_ltt_struct_add(t, "name", "command name", tdat_ltt_new(LT_STRING,
	    0));
	if (tdat_ltt_fac_add(fa, "process", "A process of the saved command "
	    "lines: its pid and name.", t) == NULL)
		return -1;
	if ((t = tdat_ltt_new(LT_STRUCT, 0)) == NULL)
		return -1;
	tdat_ltt_struct_add(t, "irq", "interrupt number", int_type(1, 4, "%d"));
	tdat_ltt_struct_add(t, "name", "handler name", tdat_ltt_new(LT_STRING,
	    0));
	if (tdat_ltt_fac_add(fa, "interrupt", "An interrupt seen in "
	    "irq_handler_entry events: its number and handler name.", t)
	    == NULL)
		return -1;
	if ((t = tdat_ltt_new(LT_STRUCT, 0)) == NULL)
		return -1;
	tdat_ltt_struct_add(t, "count", "events lost, -1 if unknown",
	    int_type(1, 8, "%lld"));
	if (tdat_ltt_fac_add(fa, "lost_events", "The ring buffer lost events "
	    "on this CPU before the next event.", t) == NULL)
		return -1;
	return 0;
}

/* LTTV's readers size a struct with no string field as fixed, a
 * sequence in it as one element: give such a struct an empty string
 * at its end (ltt(5)).  1 if it got one. */
static int
lttv_end(struct lt_type *st)
{
	int i, seq = 0;

	for (i = 0; i < st->nfield; i++) {
		if (st->field[i].t == NULL)
			continue;
		if (st->field[i].t->kind == LT_STRING)
			return 0;
		if (st->field[i].t->kind == LT_SEQUENCE)
			seq = 1;
	}
	if (!seq)
		return 0;
	tdat_ltt_struct_add(st, LTTV_END, "always empty: with a string field "
	    "LTTV's reader sizes the sequences of this event by their "
	    "length", tdat_ltt_new(LT_STRING, 0));
	return 1;
}

/* Copy event k of facility src into dst (LTTV: one facility). */
static int
copy_event(struct lt_facility *dst, const struct lt_event *ev)
{
	struct lt_type *t = NULL;

	if (ev->t) {
		/* Builtin and state events are plain structs of scalars and
		 * strings: rebuild them field by field. */
		int i;

		t = tdat_ltt_new(LT_STRUCT, 0);
		for (i = 0; t && i < ev->t->nfield; i++) {
			const struct lt_type *ft = ev->t->field[i].t;
			struct lt_type *c = tdat_ltt_new(ft->kind, ft->size);

			if (c && ft->format)
				c->format = strdup(ft->format);
			tdat_ltt_struct_add(t, ev->t->field[i].name,
			    ev->t->field[i].desc, c);
		}
	}
	return tdat_ltt_fac_add(dst, ev->name, ev->desc, t) ? 0 : -1;
}

/*
 * 0 if an event system's name can name a file of the directory
 * (eventdefs/NAME.xml, info/formats/systems/NNNN-NAME), else a failure:
 * a name from the trace could climb out of the directory ("../../x"
 * wrote /x.xml), break the message's line, or not be UTF-8, which the
 * XML files must be (the event parser takes ASCII names only; the
 * system's is the trace's as it is).
 */
static int
file_name_ok(struct wr *w, const char *name)
{
	const char *p;
	char v[64], *q;

	for (p = name; *p; p++)
		if (*p == '/' || (unsigned char)*p < 0x20 ||
		    (unsigned char)*p >= 0x7f)
			break;
	if (*p == '\0' && p > name && p - name <= 200)
		return 0;
	snprintf(v, sizeof(v), "%s", name);
	for (q = v; *q; q++)
		if ((unsigned char)*q < 0x20 || (unsigned char)*q >= 0x7f)
			*q = '?';
	return tdat_fail_nooff(w->e, TDAT_EUNSUP, "event system name \"%s%s\" "
	    "cannot be a file name", v, strlen(name) >= sizeof(v) ? "..." :
	    "");
}

/* A facility naming an event twice is not valid eventdefs: a damaged
 * trace's formats can do it. */
static int
names_once(struct wr *w)
{
	const char *dup;
	int i;

	for (i = 0; i < w->defs.nfac; i++)
		if ((dup = tdat_ltt_fac_dup(&w->defs.fac[i])) != NULL)
			return *dup == '\0' ? tdat_fail_nooff(w->e, TDAT_ENOMEM,
			    "out of memory") : tdat_fail_nooff(w->e,
			    TDAT_EUNSUP, "facility \"%s\" would name two "
			    "events \"%s\"", w->defs.fac[i].name, dup);
	return 0;
}

static int
build_defs(struct wr *w)
{
	struct lt_defs *d = &w->defs;
	struct lt_facility *fa, *b;
	uint32_t next;
	int i, k, rc;
	char name[512];

	if ((rc = tdat_ltt_builtin(d, w->e)) < 0)
		return rc;
	if (w->lttv) {
		if ((fa = tdat_ltt_defs_add(d, "tdat")) == NULL)
			goto oom;
		b = &d->fac[0];
		fa->desc = strdup("Every event of the trace: LTT's builtin "
		    "events at ids 0 and 17-19, tdat's state events from 20, "
		    "then the ftrace events converted by tdat-to-ltt.");
		for (k = 0; k < b->nev; k++)
			if (copy_event(fa, &b->ev[k]) < 0)
				goto oom;
		if (state_events(fa) < 0)
			goto oom;
		w->id_process = LTT_NBUILTIN;
		w->id_interrupt = LTT_NBUILTIN + 1;
		w->id_lost = LTT_NBUILTIN + 2;
		if ((w->endpad = calloc((size_t)w->nfmt + 1, 1)) == NULL)
			goto oom;
		for (i = 0; i < w->nfmt; i++) {
			char *desc = event_desc(&w->fmt[i]);
			struct lt_type *et = event_type(&w->fmt[i]);

			snprintf(name, sizeof(name), "%s:%s", w->fmt[i].sys,
			    w->fmt[i].name);
			if (fa->nev >= LTT_MAX_EVENTS) {
				free(desc);
				tdat_ltt_type_free(et);
				return tdat_fail_nooff(w->e, TDAT_EUNSUP,
				    "more than %d event types", LTT_MAX_EVENTS);
			}
			w->ltt_id[i] = (uint16_t)fa->nev;
			if (et)
				w->endpad[i] = (unsigned char)lttv_end(et);
			if (tdat_ltt_fac_add(fa, name, desc, et) == NULL) {
				free(desc);
				goto oom;
			}
			free(desc);
		}
		tdat_ltt_fac_free(&d->fac[0]);
		memmove(d->fac, d->fac + 1, sizeof(*d->fac));
		d->nfac = 1;
		d->fac[0].base = 0;
		d->fac[0].cksum = tdat_ltt_checksum(&d->fac[0]);
		return names_once(w);
	}
	d->fac[0].base = 0;
	if ((fa = tdat_ltt_defs_add(d, "tdat_state")) == NULL)
		goto oom;
	fa->desc = strdup("The state of the traced system as tdat-to-ltt "
	    "saw it: processes, interrupts and lost events.");
	if (state_events(fa) < 0)
		goto oom;
	fa->base = LTT_NBUILTIN;
	w->id_process = LTT_NBUILTIN;
	w->id_interrupt = LTT_NBUILTIN + 1;
	w->id_lost = LTT_NBUILTIN + 2;
	next = LTT_NBUILTIN + (uint32_t)fa->nev;
	for (i = 0; i < w->nfmt; i++) {
		const struct fmt_event *ev = &w->fmt[i];
		char *desc;

		if ((fa = tdat_ltt_defs_find(d, ev->sys)) == NULL) {
			if ((rc = file_name_ok(w, ev->sys)) < 0)
				return rc;
			if (strcmp(ev->sys, "builtin") == 0 ||
			    strcmp(ev->sys, "tdat_state") == 0)
				return tdat_fail_nooff(w->e, TDAT_EUNSUP,
				    "event system \"%s\" has the name of an "
				    "LTT facility", ev->sys);
			if ((fa = tdat_ltt_defs_add(d, ev->sys)) == NULL)
				goto oom;
			snprintf(name, sizeof(name), "The events of the "
			    "ftrace event system %s.", ev->sys);
			fa->desc = strdup(name);
			fa->base = next;
		}
		if (fa != &d->fac[d->nfac - 1])
			return tdat_fail_nooff(w->e, TDAT_EUNSUP, "the events "
			    "of system \"%s\" are not together", ev->sys);
		if (next >= LTT_MAX_EVENTS)
			return tdat_fail_nooff(w->e, TDAT_EUNSUP,
			    "more than %d event types", LTT_MAX_EVENTS);
		w->ltt_id[i] = (uint16_t)next++;
		desc = event_desc(ev);
		if (tdat_ltt_fac_add(fa, ev->name, desc,
		    event_type(ev)) == NULL) {
			free(desc);
			goto oom;
		}
		free(desc);
	}
	for (i = 0; i < d->nfac; i++)
		d->fac[i].cksum = tdat_ltt_checksum(&d->fac[i]);
	return names_once(w);
oom:
	return tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory");
}

static int
write_eventdefs(struct wr *w)
{
	char path[PATH_MAX];
	int i, rc;

	if (w->lttv) {
		snprintf(path, sizeof(path), "%s/eventdefs/tdat.xml", w->tmp);
		return tdat_ltt_write_eventdefs(path, w->defs.fac, 1, 1, w->e);
	}
	for (i = 0; i < w->defs.nfac; i++) {
		snprintf(path, sizeof(path), "%s/eventdefs/%s.xml", w->tmp,
		    w->defs.fac[i].name);
		if ((rc = tdat_ltt_write_eventdefs(path, &w->defs.fac[i], 1, 0,
		    w->e)) < 0)
			return rc;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* info/: system.xml, bookmarks.xml, tracedat.xml and the originals. */

/* The first option id of f, decoded (formats/tracedat/tdat-opts.h); NULL if none. */
static const struct tdat_optval *
find_opt(struct tdat_file *f, unsigned id, struct tdat_err *e)
{
	const struct tdat_optval *ov;
	size_t i;

	if (tdat_options(f, &ov, e) < 0)
		return NULL;
	for (i = 0; i < f->nopt; i++)
		if (ov[i].id == id)
			return &ov[i];
	return NULL;
}

static xmlTextWriterPtr
xml_open(struct wr *w, const char *rel)
{
	char path[PATH_MAX];
	xmlTextWriterPtr x;

	snprintf(path, sizeof(path), "%s/%s", w->tmp, rel);
	if ((x = xmlNewTextWriterFilename(path, 0)) == NULL) {
		tdat_fail_nooff(w->e, TDAT_EIO, "%s: cannot create", path);
		return NULL;
	}
	xmlTextWriterSetIndent(x, 1);
	xmlTextWriterSetIndentString(x, X("  "));
	if (!w->lttv)
		xmlTextWriterStartDocument(x, "1.0", "UTF-8", NULL);
	return x;
}

static int
xml_close(struct wr *w, xmlTextWriterPtr x, const char *rel, int rc)
{
	if (xmlTextWriterEndDocument(x) < 0)
		rc = 1;
	xmlFreeTextWriter(x);
	if (rc)
		return tdat_fail_nooff(w->e, TDAT_EIO, "%s/%s: cannot write",
		    w->tmp, rel);
	return 0;
}

static int
xattr(xmlTextWriterPtr x, const char *name, const char *v)
{
	char *t = tdat_ltt_xml_text(v);
	int rc = xmlTextWriterWriteAttribute(x, X(name), X(t)) < 0;

	free(t);
	return rc;
}

static int
write_system(struct wr *w, uint32_t ncpu)
{
	const struct tdat_optval *u = find_opt(w->f, TDAT_OPT_UNAME, w->e);
	char uname[1024] = "", *tok[64], *save, *p, version[1024] = "";
	char num[32];
	int n = 0, i, rc = 0;
	xmlTextWriterPtr x;

	if (u && u->u.text.s) {
		snprintf(uname, sizeof(uname), "%.*s", (int)u->u.text.len,
		    u->u.text.s);
		for (p = strtok_r(uname, " \n", &save); p && n < 64;
		    p = strtok_r(NULL, " \n", &save))
			tok[n++] = p;
	}
	for (i = 3; i < n - 1; i++) {
		if (i > 3)
			strncat(version, " ", sizeof(version) -
			    strlen(version) - 1);
		strncat(version, tok[i], sizeof(version) - strlen(version) - 1);
	}
	if ((x = xml_open(w, "info/system.xml")) == NULL)
		return w->e->code;
	rc |= xmlTextWriterStartElement(x, X("system")) < 0;
	rc |= xattr(x, "node_name", n > 1 ? tok[1] : "unknown");
	rc |= xattr(x, "domainname", "unknown");
	snprintf(num, sizeof(num), "%u", ncpu);
	rc |= xattr(x, "cpu", num);
	rc |= xattr(x, "arch_size", w->f->lsize == 8 ? "LP64" :
	    w->f->lsize == 4 ? "ILP32" : "UNKNOWN");
	if (w->lttv)
		rc |= xattr(x, "endian", w->obig ? "BIG_ENDIAN" :
		    "LITTLE_ENDIAN");
	else
		rc |= xattr(x, "endian", w->big ? "big" : "little");
	rc |= xattr(x, "kernel_name", n > 0 ? tok[0] : "unknown");
	rc |= xattr(x, "kernel_release", n > 2 ? tok[2] : "unknown");
	rc |= xattr(x, "kernel_version", version[0] ? version : "unknown");
	rc |= xattr(x, "machine", n > 3 ? tok[n - 1] : "unknown");
	rc |= xattr(x, "processor", "unknown");
	rc |= xattr(x, "hardware_platform", "unknown");
	rc |= xattr(x, "operating_system", n > 0 && strcmp(tok[0], "Linux")
	    == 0 ? "GNU/Linux" : "unknown");
	rc |= xattr(x, "ltt_major_version", "2");
	rc |= xattr(x, "ltt_minor_version", "0");
	snprintf(num, sizeof(num), "%u", w->bs);
	rc |= xattr(x, "ltt_block_size", num);
	rc |= xmlTextWriterWriteString(x, X("Converted from a trace.dat by "
	    "tdat-to-ltt.")) < 0;
	rc |= xmlTextWriterEndElement(x) < 0;
	return xml_close(w, x, "info/system.xml", rc);
}

static void
fmt_time(char *s, size_t n, uint64_t t)
{
	snprintf(s, n, "%llu.%09llu", (unsigned long long)(t / NS),
	    (unsigned long long)(t % NS));
}

static int
write_bookmarks(struct wr *w)
{
	xmlTextWriterPtr x;
	char t[64];
	size_t i;
	int rc = 0;

	if ((x = xml_open(w, "info/bookmarks.xml")) == NULL)
		return w->e->code;
	rc |= xmlTextWriterStartElement(x, X("bookmarks")) < 0;
	for (i = 0; i < w->o->nbookmark; i++) {
		const struct tdat_ltt_bookmark *b = &w->o->bookmark[i];

		rc |= xmlTextWriterStartElement(x, X("location")) < 0;
		rc |= xattr(x, "name", b->name);
		if (b->end == b->start) {
			fmt_time(t, sizeof(t), b->start);
			rc |= xattr(x, "time", t);
		} else {
			fmt_time(t, sizeof(t), b->start);
			rc |= xattr(x, "start_time", t);
			fmt_time(t, sizeof(t), b->end);
			rc |= xattr(x, "end_time", t);
		}
		rc |= xmlTextWriterWriteString(x, X(b->name)) < 0;
		rc |= xmlTextWriterEndElement(x) < 0;
	}
	rc |= xmlTextWriterFullEndElement(x) < 0;
	return xml_close(w, x, "info/bookmarks.xml", rc);
}

static int
xattr_num(xmlTextWriterPtr x, const char *name, long long v)
{
	return xmlTextWriterWriteFormatAttribute(x, X(name), "%lld", v) < 0;
}

/* What info/ needs to give the trace.dat container back. */
static int
write_tracedat(struct wr *w)
{
	const struct tdat_file *f = w->f;
	xmlTextWriterPtr x;
	size_t i;
	uint32_t k;
	int rc = 0;

	if ((x = xml_open(w, "info/tracedat.xml")) == NULL)
		return w->e->code;
	rc |= xmlTextWriterStartElement(x, X("tracedat")) < 0;
	rc |= xattr_num(x, "version", f->version);
	rc |= xattr(x, "endian", f->big ? "big" : "little");
	rc |= xattr_num(x, "long_size", f->lsize);
	rc |= xattr_num(x, "page_size", f->page_size);
	rc |= xattr_num(x, "cpus", f->ncpus);
	if (f->comp)
		rc |= xattr(x, "compression", f->comp);
	if (f->clock_data)
		rc |= xattr(x, "clock_data", f->clock_data);
	if (f->trace_clock)
		rc |= xattr(x, "trace_clock", f->trace_clock);
	rc |= xattr_num(x, "has_clock_data", f->has_clock_data);
	rc |= xattr_num(x, "v6_options", f->v6_options);
	rc |= xattr_num(x, "latency", f->latency);
	for (i = 0; i < f->nbuf; i++) {
		const struct tdat_buffer *b = &f->buf[i];

		rc |= xmlTextWriterStartElement(x, X("buffer")) < 0;
		rc |= xattr(x, "name", b->name ? b->name : "");
		if (b->clock)
			rc |= xattr(x, "clock", b->clock);
		rc |= xattr_num(x, "page_size", b->page_size);
		rc |= xattr_num(x, "option", b->opt_index);
		rc |= xattr_num(x, "latency", b->latency);
		for (k = 0; k < b->ncpu; k++) {
			rc |= xmlTextWriterStartElement(x, X("cpu")) < 0;
			rc |= xattr_num(x, "id", b->cpu[k].id);
			rc |= xattr_num(x, "size", (long long)b->cpu[k].size);
			if (w->lttv && i > 0) {
				char tf[32];

				snprintf(tf, sizeof(tf), "cpu/%llu",
				    (unsigned long long)i * w->ncpu +
				    b->cpu[k].id);
				rc |= xattr(x, "tracefile", tf);
			}
			rc |= xmlTextWriterEndElement(x) < 0;
		}
		rc |= xmlTextWriterFullEndElement(x) < 0;
	}
	rc |= xmlTextWriterFullEndElement(x) < 0;
	return xml_close(w, x, "info/tracedat.xml", rc);
}

static int
write_blob(struct wr *w, const char *rel, const struct tdat_blob *b)
{
	return wr_file(w, rel, b->p ? (const void *)b->p : "", (size_t)b->len);
}

/* A latency tracer's text (v6 or v7, compressed or not), streamed into
 * info/latency as it is. */
static int
write_latency(struct wr *w)
{
	char path[PATH_MAX];
	struct tdat_pages *pg;
	struct tdat_window win;
	int bi = tdat_latency_buffer(w->f), fd, rc;

	if (bi < 0)
		return 0;
	snprintf(path, sizeof(path), "%s/info/latency", w->tmp);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644))
	    < 0)
		return tdat_fail_nooff(w->e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
	if ((rc = tdat_pages_open(w->f, bi, 0, &pg, w->e)) == 0) {
		while ((rc = tdat_pages_window(pg, &win, w->e)) > 0)
			if ((rc = write_all(w, fd, win.p, win.len,
			    "info/latency")) < 0)
				break;
		tdat_pages_close(pg);
	}
	if (close(fd) < 0 && rc >= 0)
		rc = tdat_fail_nooff(w->e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
	return rc < 0 ? rc : 0;
}

static int
write_originals(struct wr *w)
{
	struct tdat_file *f = w->f;
	struct tdat_sbuf sb;
	char rel[PATH_MAX];
	uint32_t i, k;
	int rc;

	if ((rc = wr_mkdir(w, "info/formats")) < 0 ||
	    (rc = wr_mkdir(w, "info/formats/ftrace")) < 0 ||
	    (rc = wr_mkdir(w, "info/formats/systems")) < 0 ||
	    (rc = write_blob(w, "info/header_page", &f->hpage)) < 0 ||
	    (rc = write_blob(w, "info/header_event", &f->hevent)) < 0 ||
	    (rc = write_blob(w, "info/kallsyms", &f->kallsyms)) < 0 ||
	    (rc = write_blob(w, "info/printk", &f->printk)) < 0 ||
	    (rc = write_blob(w, "info/cmdlines", &f->cmdlines)) < 0)
		return rc;
	for (i = 0; i < f->nftrace; i++) {
		snprintf(rel, sizeof(rel), "info/formats/ftrace/%04u", i);
		if ((rc = write_blob(w, rel, &f->ftrace[i])) < 0)
			return rc;
	}
	for (i = 0; i < f->nsys; i++) {
		if ((rc = file_name_ok(w, f->sys[i].name)) < 0)
			return rc;
		snprintf(rel, sizeof(rel), "info/formats/systems/%04u-%s", i,
		    f->sys[i].name);
		if ((rc = wr_mkdir(w, rel)) < 0)
			return rc;
		for (k = 0; k < f->sys[i].nev; k++) {
			snprintf(rel, sizeof(rel), "info/formats/systems/"
			    "%04u-%s/%04u", i, f->sys[i].name, k);
			if ((rc = write_blob(w, rel, &f->sys[i].ev[k])) < 0)
				return rc;
		}
	}
	/* trace-cmd 3.4's sections: the modules text and the BTF, whole
	 * (LTTV reads neither; tdat reads them back: the arguments of
	 * func-args and funcgraph-args print from the BTF). */
	if (f->modules.p != NULL &&
	    (rc = write_blob(w, "info/modules", &f->modules)) < 0)
		return rc;
	if (f->btf_load != NULL && f->btf_load(f, w->e) > 0 &&
	    (rc = write_blob(w, "info/btf", &f->btf)) < 0)
		return rc;
	/* Options as stored: u16 id, u32 size, data, in the trace's order;
	 * not BTF_FILE and MODULES_FILE, offsets in the trace.dat. */
	tdat_sb_init(&sb);
	for (i = 0; i < f->nopt; i++) {
		unsigned char h[6];

		if (f->opt[i].id == TDAT_OPT_BTF_FILE ||
		    f->opt[i].id == TDAT_OPT_MODULES_FILE)
			continue;
		tdat_put(h, f->opt[i].id, 2, w->big);
		tdat_put(h + 2, f->opt[i].size, 4, w->big);
		tdat_sb_add(&sb, (const char *)h, 6);
		tdat_sb_add(&sb, (const char *)f->opt[i].data, f->opt[i].size);
	}
	rc = sb.oom ? tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory") :
	    wr_file(w, "info/options", sb.p ? sb.p : "", sb.len);
	tdat_sb_free(&sb);
	if (rc < 0)
		return rc;
	if ((rc = write_latency(w)) < 0)
		return rc;
	return write_tracedat(w);
}

/* ------------------------------------------------------------------ */
/* control/. */

static int
control_file(struct wr *w, const char *rel, struct tdat_sbuf *ev,
    size_t nev)
{
	struct tf t;
	size_t i, at = 0;
	int rc;

	if (nev == 0 && w->lttv)
		return 0;	/* an empty control file breaks LTTV */
	if ((rc = tf_open(w, &t, rel)) < 0) {
		tf_close(w, &t);
		return rc;
	}
	blk_begin(w, &t, w->first_ts);
	for (i = 0; i < nev && rc == 0; i++) {
		uint16_t id = (uint16_t)tdat_get16(ev->p + at, w->big);
		uint32_t n = tdat_get32(ev->p + at + 2, w->big);

		rc = tf_event(w, &t, w->first_ts, id, ev->p + at + 6, n);
		at += 6 + n;
	}
	if (rc < 0) {
		tf_close(w, &t);
		return rc;
	}
	return tf_close(w, &t);
}

/* Queue an event (id, payload) for a control file. */
static void
queue(struct wr *w, struct tdat_sbuf *q, uint16_t id, const void *p,
    size_t n)
{
	unsigned char h[6];

	tdat_put(h, id, 2, w->big);
	tdat_put(h + 2, n, 4, w->big);
	tdat_sb_add(q, (const char *)h, 6);
	tdat_sb_add(q, p, n);
}

static int
write_control(struct wr *w)
{
	struct tdat_sbuf q, p;
	size_t n, i;
	const char *c, *end;
	unsigned char b[4];
	int rc = 0, k;

	tdat_sb_init(&q);
	tdat_sb_init(&p);
	if (!w->lttv) {
		for (k = 0; k < w->defs.nfac; k++) {
			const struct lt_facility *fa = &w->defs.fac[k];

			tdat_sb_reset(&p);
			tdat_sb_add(&p, fa->name, strlen(fa->name) + 1);
			tdat_put(b, fa->cksum, 4, w->obig);
			tdat_sb_add(&p, (const char *)b, 4);
			tdat_put(b, fa->base, 4, w->obig);
			tdat_sb_add(&p, (const char *)b, 4);
			queue(w, &q, LTT_ID_FACILITY_LOAD, p.p, p.len);
		}
		rc = control_file(w, "control/facilities", &q,
		    (size_t)w->defs.nfac);
	}
	/* processes: "pid comm" lines of the saved command lines */
	tdat_sb_reset(&q);
	c = (const char *)w->f->cmdlines.p;
	end = c ? c + w->f->cmdlines.len : NULL;
	for (n = 0; rc == 0 && c && c < end; ) {
		const char *nl = memchr(c, '\n', (size_t)(end - c));
		char line[512], *sp;
		long pid;

		if (nl == NULL)
			nl = end;
		snprintf(line, sizeof(line), "%.*s", (int)(nl - c), c);
		c = nl + 1;
		pid = strtol(line, &sp, 10);
		if (sp == line || *sp != ' ')
			continue;
		tdat_sb_reset(&p);
		tdat_put(b, (uint32_t)pid, 4, w->obig);
		tdat_sb_add(&p, (const char *)b, 4);
		tdat_sb_add(&p, sp + 1, strlen(sp + 1) + 1);
		queue(w, &q, w->id_process, p.p, p.len);
		n++;
	}
	if (rc == 0)
		rc = control_file(w, "control/processes", &q, n);
	tdat_sb_reset(&q);
	for (i = 0; i < w->nirq; i++) {
		tdat_sb_reset(&p);
		tdat_put(b, (uint32_t)w->irq[i].irq, 4, w->obig);
		tdat_sb_add(&p, (const char *)b, 4);
		tdat_sb_add(&p, w->irq[i].name, strlen(w->irq[i].name) + 1);
		queue(w, &q, w->id_interrupt, p.p, p.len);
	}
	if (rc == 0 && (q.oom || p.oom))
		rc = tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory");
	if (rc == 0)
		rc = control_file(w, "control/interrupts", &q, w->nirq);
	tdat_sb_free(&q);
	tdat_sb_free(&p);
	return rc;
}

/* irq_handler_entry: remember each (irq, name) pair. */
static void
note_irq(struct wr *w, const struct fmt_event *ev,
    const unsigned char *d, uint32_t size)
{
	int i, irq = -1;
	char name[128] = "";
	struct irq *q;
	size_t k;

	for (i = 0; i < ev->nf; i++) {
		const struct fmt_field *f = &ev->f[i];

		if (strcmp(f->name, "irq") == 0 && f->size == 4 &&
		    (uint32_t)f->off + 4 <= size)
			irq = (int)tdat_get32(d + f->off, w->big);
		else if (strcmp(f->name, "name") == 0 && f->dloc == 1 &&
		    (uint32_t)f->off + 4 <= size) {
			uint32_t v = tdat_get32(d + f->off, w->big);
			uint32_t o = v & 0xffff, l = v >> 16;

			if (o < size && l <= size - o)
				snprintf(name, sizeof(name), "%.*s", (int)l,
				    (const char *)d + o);
		}
	}
	if (irq < 0)
		return;
	for (k = 0; k < w->nirq; k++)
		if (w->irq[k].irq == irq && strcmp(w->irq[k].name, name) == 0)
			return;
	if ((q = realloc(w->irq, (w->nirq + 1) * sizeof(*q))) == NULL)
		return;
	w->irq = q;
	q[w->nirq].irq = irq;
	if ((q[w->nirq].name = strdup(name)) != NULL)
		w->nirq++;
}

/* ------------------------------------------------------------------ */

/* The payload of format fi in w->sb as LTTV's dialects have it: the
 * empty string that sizes its sequences, and for --lttv=2003 every
 * number little-endian. */
static int
lttv_payload(struct wr *w, int32_t fi)
{
	const struct lt_facility *fa = &w->defs.fac[0];

	if (!w->lttv)
		return 0;
	if (w->endpad[fi])
		tdat_sb_putc(&w->sb, 0);
	if (w->obig == w->big || w->sb.oom)
		return 0;
	if (tdat_ltt_payload_swap(fa, fa->ev[w->ltt_id[fi]].t,
	    (unsigned char *)w->sb.p, w->sb.len, w->big) != (long)w->sb.len)
		return tdat_fail_nooff(w->e, TDAT_EUNSUP, "an event %s:%s "
		    "cannot be turned little-endian", w->fmt[fi].sys,
		    w->fmt[fi].name);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The record sink: each record of the driver (tdat_run) becomes an
 * event of its tracefile. */

static int
ltt_begin(void *arg, struct tdat_file *const *files, size_t n,
    struct tdat_run *run, struct tdat_err *e)
{
	struct tdat_file *f = files[0];

	(void)arg;
	(void)n;
	(void)run;
	(void)e;
	if (f->nbuf == 0 || (f->nbuf == 1 && f->buf[0].latency))
		return TDAT_RUN_NO_RECORDS;
	return TDAT_RUN_RECORDS;
}

/*
 * A record its event's format does not fit (shorter than its fields, a
 * __data_loc outside it) is damage the encoding would hide behind zeros
 * and cut strings: refused, as a trace.dat copy refuses it.
 */
static int
check_record(struct wr *w, const struct tdat_record *rec)
{
	const char *why;
	int rc;

	if (w->check == NULL && (rc = tdat_ring_gate_open(w->f, &w->check,
	    w->e)) < 0)
		return rc;
	if ((why = tdat_ring_gate_record(w->check, rec->data,
	    rec->size)) != NULL)
		return tdat_fail(w->e, TDAT_ECORRUPT, rec->off, "CPU %d: %s: "
		    "the input is damaged (tdat-cat --salvage drops such "
		    "pages)", rec->cpu, why);
	return 0;
}

static int
ltt_record(void *arg, size_t k, const struct tdat_record *rec,
    struct tdat_err *e)
{
	struct wr *w = arg;
	const struct fmt_event *ev;
	struct tf *t;
	uint32_t type;
	int32_t fi;
	int rc;

	(void)k;
	(void)e;
	if (!w->have_ts) {
		w->first_ts = rec->ts;
		w->have_ts = 1;
	}
	if (rec->ts / NS > UINT32_MAX)
		return tdat_fail(w->e, TDAT_EUNSUP, rec->off, "time stamp "
		    "%llu does not fit LTT's 32-bit seconds",
		    (unsigned long long)rec->ts);
	type = rec->size >= 2 ? tdat_get16(rec->data, w->big) : 0xffffffff;
	fi = type <= 65535 ? w->byid[type] : -1;
	ev = fi >= 0 ? &w->fmt[fi] : NULL;
	if (ev && (ev->type_size != 2 || ev->type_off != 0))
		ev = NULL;
	if (ev == NULL)
		w->o->skipped++;
	/* A tracefile is made for an event: one of skipped records only
	 * would have no block (LTTV needs one). */
	if (ev == NULL && !rec->missed)
		return 0;
	if ((t = tf_get(w, rec->buffer, (uint32_t)rec->cpu)) == NULL)
		return w->e->code;
	/* The reader refuses a CPU whose records go back in time (a
	 * damaged page: TDAT_SINK_STRICT_TIME); a clock option (TIME_SHIFT)
	 * could still take the times it gives back. */
	if (rec->ts < t->last)
		return tdat_fail(w->e, TDAT_ECORRUPT, rec->off, "CPU %d: time "
		    "goes back from %llu to %llu ns with the trace's clock "
		    "options", rec->cpu, (unsigned long long)t->last,
		    (unsigned long long)rec->ts);
	if (rec->missed) {
		unsigned char b[8];

		tdat_put(b, (uint64_t)rec->missed_count, 8, w->obig);
		if ((rc = tf_event(w, t, rec->ts, w->id_lost, b, 8)) < 0)
			return rc;
	}
	if (ev == NULL)
		return 0;
	if ((rc = check_record(w, rec)) < 0)
		return rc;
	tdat_sb_reset(&w->sb);
	tdat_ltt_fmt_encode(ev, rec->data, rec->size, w->big, &w->sb);
	if ((rc = lttv_payload(w, fi)) < 0)
		return rc;
	if (w->sb.oom)
		return tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory");
	if ((rc = tf_event(w, t, rec->ts, w->ltt_id[fi], w->sb.p,
	    w->sb.len)) < 0)
		return rc;
	w->o->events++;
	if (strcmp(ev->name, "irq_handler_entry") == 0)
		note_irq(w, ev, rec->data, rec->size);
	return 0;
}

static int
ltt_end(void *arg, int complete, struct tdat_err *e)
{
	(void)arg;
	(void)complete;
	(void)e;
	return 0;	/* tdat_ltt_write() closes the tracefiles */
}

static void
ltt_free(void *arg)
{
	(void)arg;
}

static const struct tdat_sink_ops ltt_ops = {
	TDAT_SINK_STRICT_TIME, ltt_begin, ltt_record, ltt_end, ltt_free, NULL
};

static int
convert_records(struct wr *w)
{
	struct tdat_sink sink = { &ltt_ops, w };

	return tdat_run(&w->f, 1, w->o->sel, &sink, w->o->progress,
	    w->o->progress_arg, w->e);
}

static int
prepare(struct wr *w)
{
	struct tdat_file *f = w->f;
	uint32_t i, k;
	int rc;

	for (i = 0; i < f->nftrace; i++)
		if ((rc = add_format(w, &f->ftrace[i], "ftrace")) < 0)
			return rc;
	for (i = 0; i < f->nsys; i++)
		for (k = 0; k < f->sys[i].nev; k++)
			if ((rc = add_format(w, &f->sys[i].ev[k],
			    f->sys[i].name)) < 0)
				return rc;
	w->byid = malloc(65536 * sizeof(*w->byid));
	w->ltt_id = calloc((size_t)w->nfmt + 1, sizeof(*w->ltt_id));
	if (w->byid == NULL || w->ltt_id == NULL)
		return tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory");
	for (i = 0; i < 65536; i++)
		w->byid[i] = -1;
	for (i = 0; i < (uint32_t)w->nfmt; i++)
		if (w->byid[w->fmt[i].id] < 0)
			w->byid[w->fmt[i].id] = (int32_t)i;
	return build_defs(w);
}

/* Messages name files inside the directory from its top ("cpu/cpu_0"):
 * the caller names the directory. */
static void
relative_msg(struct tdat_err *e, const char *dir)
{
	size_t n = strlen(dir);

	if (strncmp(e->msg, dir, n) == 0 && e->msg[n] == '/')
		memmove(e->msg, e->msg + n + 1, strlen(e->msg + n + 1) + 1);
}

static uint32_t
cpu_count(const struct tdat_file *f)
{
	uint32_t n = f->ncpus, k;
	size_t i;

	for (i = 0; i < f->nbuf; i++)
		for (k = 0; k < f->buf[i].ncpu; k++)
			if (f->buf[i].cpu[k].id >= n)
				n = f->buf[i].cpu[k].id + 1;
	return n;
}

/* libxml2's own lines ("I/O error : No space left on device") would
 * come beside the tool's one. */
static void
no_message(void *ctx, const char *fmt, ...)
{
}

int
tdat_ltt_write(struct tdat_file *f, const char *dir,
    struct tdat_ltt_write_opts *o, struct tdat_err *e)
{
	struct wr w;
	size_t i;
	int rc, k;

	if ((rc = tdat_xml_load(e)) < 0)
		return rc;
	memset(&w, 0, sizeof(w));
	w.f = f;
	w.o = o;
	w.e = e;
	w.big = f->big;
	/* LTTV's 2003 reader swaps nothing: little-endian for it. */
	w.obig = o->dialect == TDAT_LTT_LTTV2003 ? 0 : f->big;
	w.ncpu = cpu_count(f);
	w.lttv = o->dialect != TDAT_LTT_XML;
	w.trailer2003 = o->dialect == TDAT_LTT_LTTV2003;
	w.bs = o->block_size ? o->block_size : TDAT_LTT_BLOCK_SIZE;
	o->events = o->blocks = o->skipped = 0;
	tdat_sb_init(&w.sb);
	if (w.bs < LTT_MIN_BLOCK || w.bs > LTT_MAX_BLOCK || w.bs % 4)
		return tdat_fail_nooff(e, TDAT_EUSAGE, "block size %u is not a "
		    "multiple of 4 between %u and %u", w.bs, LTT_MIN_BLOCK,
		    LTT_MAX_BLOCK);
	if (o->dialect != TDAT_LTT_XML && o->dialect != TDAT_LTT_LTTV2003 &&
	    o->dialect != TDAT_LTT_LTTV2005)
		return tdat_fail_nooff(e, TDAT_EUSAGE, "unknown dialect %d",
		    o->dialect);
	/* texts tdat-verify would find damaged in the directory */
	if ((rc = tdat_text_refuse(f, e)) < 0)
		return rc;
	w.tmp = dir;
	xmlSetGenericErrorFunc(NULL, no_message);
	if ((rc = wr_mkdir(&w, "eventdefs")) < 0 ||
	    (rc = wr_mkdir(&w, "info")) < 0 ||
	    (rc = wr_mkdir(&w, "info/buffers")) < 0 ||
	    (rc = wr_mkdir(&w, "control")) < 0 ||
	    (rc = wr_mkdir(&w, "cpu")) < 0 ||
	    (rc = prepare(&w)) < 0 ||
	    (rc = write_eventdefs(&w)) < 0 ||
	    (rc = convert_records(&w)) < 0)
		goto out;
	for (i = 0; i < w.ntf; i++)
		if ((rc = tf_close(&w, &w.tf[i])) < 0)
			goto out;
	if ((rc = write_control(&w)) < 0 ||
	    (rc = write_system(&w, w.ncpu)) < 0 ||
	    (rc = write_bookmarks(&w)) < 0 ||
	    (rc = write_originals(&w)) < 0)
		goto out;
out:
	for (i = 0; i < w.ntf; i++)
		tf_close(&w, &w.tf[i]);
	free(w.tf);
	if (rc < 0)
		relative_msg(e, dir);
	for (k = 0; k < w.nfmt; k++)
		tdat_ltt_fmt_free(&w.fmt[k]);
	free(w.fmt);
	free(w.byid);
	free(w.ltt_id);
	free(w.endpad);
	for (i = 0; i < w.nirq; i++)
		free(w.irq[i].name);
	free(w.irq);
	tdat_ltt_defs_free(&w.defs);
	tdat_sb_free(&w.sb);
	tdat_ring_gate_close(w.check);
	return rc;
}
