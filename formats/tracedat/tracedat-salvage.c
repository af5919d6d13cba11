/*
 * tracedat-salvage.c: the intact pages of a damaged trace.dat, as a page
 * source for the writer (tdat-cat --salvage, bin/tdat-cat.c) with the
 * lines that say what was dropped, or counted alone (tdat-verify,
 * tracedat-verify.c).
 *
 * Each CPU's pages come from the page iterator (lib/read/pages.c) of a file
 * opened with tdat_open_ex() in salvage mode.  A page is kept when its
 * header and every item in it decode, its events have formats and its
 * time never goes back; any other page is dropped alone.  A piece the
 * iterator cannot read (a window, a compressed chunk) is dropped and
 * the walk goes on after it.  Kept pages are copied unchanged, in their
 * order, so the output holds only events of the input's intact pages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "tdat-verify.h"
#include "tdat-tracedat.h"

struct tdat_salvage {
	struct tdat_file *f;
	struct tdat_ring_gate *gate;	/* the page checker (lib/ring) */
	struct tdat_page_src src;
	struct tdat_pages *ps;		/* the CPU being read, or NULL */
	struct tdat_salvage_cpu *cur;	/* its counts */
	struct tdat_chunk *ch;		/* its chunk table, when compressed */
	uint32_t nch;
	size_t n;
	struct tdat_salvage_cpu *cpu;
};

/* Note the first damage of a CPU: where it is and why. */
static void
note(struct tdat_salvage_cpu *c, const struct tdat_err *e)
{
	if (c->damaged++)
		return;
	c->has_off = e->has_off;
	c->off = e->off;
	snprintf(c->why, sizeof(c->why), "%s", e->msg);
}

/* Check a whole page; *nrec gets its events (those before any damage). */
static int
check_page(struct tdat_salvage *s, struct tdat_page *pg, uint64_t *nrec,
    struct tdat_err *e)
{
	return tdat_ring_gate_page(s->gate, pg, nrec, e);
}

static struct tdat_salvage_cpu *
new_cpu(struct tdat_salvage *s, int buf, uint32_t id)
{
	struct tdat_salvage_cpu *c;

	if ((c = realloc(s->cpu, (s->n + 1) * sizeof(*c))) == NULL)
		return NULL;
	s->cpu = c;
	c += s->n++;
	memset(c, 0, sizeof(*c));
	c->buffer = buf;
	c->cpu = id;
	return c;
}

static int
src_begin(void *arg, int buf, uint32_t id, uint64_t *total,
    struct tdat_err *e)
{
	struct tdat_salvage *s = arg;
	const struct tdat_buffer *b = &s->f->buf[buf];
	const struct tdat_cpu *cp = NULL;
	const struct tdat_damage *d;
	struct tdat_err pe = { 0 };
	size_t nd;
	uint32_t i;
	int rc;

	*total = 0;
	tdat_pages_close(s->ps);
	s->ps = NULL;
	free(s->ch);
	s->ch = NULL;
	s->nch = 0;
	s->cur = NULL;
	tdat_ring_gate_cpu(s->gate);
	for (i = 0; i < b->ncpu; i++)
		if (b->cpu[i].id == id)
			cp = &b->cpu[i];
	if (cp == NULL || (cp->size == 0 && cp->cut == 0))
		return 0;
	if ((s->cur = new_cpu(s, buf, id)) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	if (cp->cut) {
		s->cur->cut = cp->cut;
		if (!b->compressed)
			s->cur->lost_pages = (cp->cut + b->page_size - 1) /
			    b->page_size;
		tdat_fail(&pe, TDAT_ECORRUPT, cp->off + cp->size, "data cut "
		    "short: %llu bytes past the end of the file",
		    (unsigned long long)cp->cut);
		note(s->cur, &pe);
	}
	if (cp->size == 0)
		return 0;
	nd = s->f->ndamage;
	rc = tdat_pages_open(s->f, buf, (uint32_t)(cp - b->cpu), &s->ps, &pe);
	if (rc == 0 && s->f->ndamage > nd) {
		/* The open kept the chunks before a damaged one. */
		d = &s->f->damage[s->f->ndamage - 1];
		pe.has_off = d->has_off;
		pe.off = d->off;
		snprintf(pe.msg, sizeof(pe.msg), "%s", d->msg);
		s->cur->lost_pieces++;
		note(s->cur, &pe);
	}
	if (rc < 0) {
		if (pe.code != TDAT_ECORRUPT) {
			*e = pe;
			return pe.code;
		}
		s->cur->lost_pieces++;
		note(s->cur, &pe);
		return 0;
	}
	*total = tdat_pages_total(s->ps);
	if (b->compressed) {
		/* To count the pages of a chunk that does not decompress. */
		nd = s->f->ndamage;
		if (tdat_cpu_chunks(s->f, b, cp, &s->ch, &s->nch, &pe) < 0)
			s->nch = 0;
		s->f->ndamage = nd;	/* the open above noted it already */
	}
	return 0;
}

/* A piece the iterator could not read: note it and go on after it. */
static int
lost_piece(struct tdat_salvage *s, struct tdat_err *pe, struct tdat_err *e)
{
	const char *fault = tdat_pages_fault(s->ps);
	uint32_t i;

	if (pe->code != TDAT_ECORRUPT) {
		*e = *pe;
		return pe->code;
	}
	note(s->cur, pe);
	/* A chunk running past its CPU's data is still delivered next. */
	if (fault != NULL && strcmp(fault, "chunk") == 0 &&
	    strstr(pe->msg, "runs past the CPU's data") != NULL)
		return 0;
	s->cur->lost_pieces++;
	for (i = 0; pe->has_off && i < s->nch; i++)
		if (s->ch[i].off - 8 == pe->off)
			s->cur->lost_pages += s->ch[i].usize /
			    s->f->buf[s->cur->buffer].page_size;
	return 0;
}

static int
src_read(void *arg, unsigned char *dst, size_t cap, size_t *got,
    struct tdat_err *e)
{
	struct tdat_salvage *s = arg;
	struct tdat_err pe;
	struct tdat_page pg;
	uint64_t nrec;
	size_t avail;
	int rc;

	*got = 0;
	while (s->ps != NULL) {
		memset(&pg, 0, sizeof(pg));
		memset(&pe, 0, sizeof(pe));
		if ((rc = tdat_pages_next(s->ps, &pg, &avail, &pe)) == 0)
			break;
		if (rc < 0) {
			if ((rc = lost_piece(s, &pe, e)) < 0)
				return rc;
			continue;
		}
		if (check_page(s, &pg, &nrec, &pe) < 0) {
			note(s->cur, &pe);
			s->cur->lost_pages++;
			s->cur->lost_records += nrec;
		} else {
			if (dst)
				memcpy(dst + *got, pg.p, pg.page_size);
			*got += pg.page_size;
			s->cur->pages++;
			s->cur->records += nrec;
		}
		if (cap - *got < pg.page_size)
			break;
	}
	return 0;
}

int
tdat_salvage_open(struct tdat_file *f, struct tdat_salvage **out,
    struct tdat_err *e)
{
	struct tdat_salvage *s;
	int rc;

	*out = NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	s->f = f;
	if ((rc = tdat_ring_gate_open(f, &s->gate, e)) < 0) {
		tdat_salvage_close(s);
		return rc;
	}
	s->src.arg = s;
	s->src.begin = src_begin;
	s->src.read = src_read;
	*out = s;
	return 0;
}

const struct tdat_page_src *
tdat_salvage_pages(struct tdat_salvage *s)
{
	return &s->src;
}

int
tdat_salvage_scan(struct tdat_salvage *s, struct tdat_err *e)
{
	const struct tdat_file *f = s->f;
	uint64_t total;
	size_t got, bi;
	uint32_t i;
	int rc;

	for (bi = 0; bi < f->nbuf; bi++) {
		if (f->buf[bi].latency)
			continue;
		for (i = 0; i < f->buf[bi].ncpu; i++) {
			if ((rc = src_begin(s, (int)bi, f->buf[bi].cpu[i].id,
			    &total, e)) < 0)
				return rc;
			do {
				if ((rc = src_read(s, NULL, (size_t)-1 / 2,
				    &got, e)) < 0)
					return rc;
			} while (got > 0);
		}
	}
	return 0;
}

size_t
tdat_salvage_ncpu(const struct tdat_salvage *s)
{
	return s->n;
}

const struct tdat_salvage_cpu *
tdat_salvage_cpu(const struct tdat_salvage *s, size_t i)
{
	return i < s->n ? &s->cpu[i] : NULL;
}

int
tdat_salvage_damaged(const struct tdat_salvage *s)
{
	size_t i;

	if (s->f->ndamage > 0)
		return 1;
	for (i = 0; i < s->n; i++)
		if (s->cpu[i].damaged)
			return 1;
	return 0;
}

/* Line i of tdat_salvage_line() about a piece the open dropped. */
static void
open_line(const struct tdat_damage *d, struct tdat_err *e)
{
	e->code = TDAT_ECORRUPT;
	e->has_off = d->has_off;
	e->off = d->off;
	snprintf(e->msg, sizeof(e->msg), "dropped: %.200s", d->msg);
}

/* Line i of tdat_salvage_line() about a buffer and CPU. */
static void
cpu_line(const struct tdat_salvage *s, const struct tdat_salvage_cpu *c,
    struct tdat_err *e)
{
	int n;

	e->code = TDAT_ECORRUPT;
	e->has_off = c->damaged && c->has_off;
	e->off = c->off;
	n = snprintf(e->msg, sizeof(e->msg), "buffer \"%s\" CPU %u: kept "
	    "%llu pages (%llu records), dropped %llu pages",
	    s->f->buf[c->buffer].name, c->cpu,
	    (unsigned long long)c->pages,
	    (unsigned long long)c->records,
	    (unsigned long long)c->lost_pages);
	if (c->lost_records && n > 0 && (size_t)n < sizeof(e->msg))
		n += snprintf(e->msg + n, sizeof(e->msg) - (size_t)n,
		    " (%llu records in them before the damage)",
		    (unsigned long long)c->lost_records);
	if (c->lost_pieces && n > 0 && (size_t)n < sizeof(e->msg))
		n += snprintf(e->msg + n, sizeof(e->msg) - (size_t)n,
		    " and %llu unreadable chunks or windows",
		    (unsigned long long)c->lost_pieces);
	if (c->damaged && n > 0 && (size_t)n < sizeof(e->msg))
		snprintf(e->msg + n, sizeof(e->msg) - (size_t)n,
		    ": %.120s", c->why);
}

int
tdat_salvage_line(const struct tdat_salvage *s, size_t i, struct tdat_err *e)
{
	memset(e, 0, sizeof(*e));
	if (i < s->f->ndamage)
		open_line(&s->f->damage[i], e);
	else if ((i -= s->f->ndamage) < s->n)
		cpu_line(s, &s->cpu[i], e);
	else
		return 0;
	return 1;
}

void
tdat_salvage_count(const char *path, struct tdat_verify_stats *st)
{
	struct tdat_open_opts oo = { .salvage = 1 };
	struct tdat_salvage *s = NULL;
	struct tdat_file *f = NULL;
	struct tdat_err e = { 0 };
	size_t i;
	int ok;

	ok = tdat_open_ex(path, &oo, &f, &e) == 0 &&
	    tdat_salvage_open(f, &s, &e) == 0 && tdat_salvage_scan(s, &e) == 0;
	for (i = 0; ok && i < s->n; i++) {
		st->kept_pages += s->cpu[i].pages;
		st->salvage_pages += s->cpu[i].pages + s->cpu[i].lost_pages;
		st->kept_records += s->cpu[i].records;
		st->lost_chunks += s->cpu[i].lost_pieces;
	}
	if (ok)
		st->dropped_lines = f->text_dropped;
	st->salvage = ok ? 1 : -1;
	if (!ok)
		snprintf(st->salvage_why, sizeof(st->salvage_why), "%s", e.msg);
	tdat_salvage_close(s);
	tdat_close(f);
}

void
tdat_salvage_close(struct tdat_salvage *s)
{

	if (s == NULL)
		return;
	tdat_pages_close(s->ps);
	free(s->ch);
	tdat_ring_gate_close(s->gate);
	free(s->cpu);
	free(s);
}
