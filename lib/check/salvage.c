/*
 * salvage.c: the intact pages of a damaged trace.dat, as a page source
 * for the writer (tdat-cat --salvage) or counted alone (tdat-verify).
 *
 * Each CPU's pages come from the page iterator (lib/read/pages.c) of a file
 * opened with tdat_open_ex() in salvage mode.  A page is kept when its
 * header and every item in it decode, its events have formats and its
 * time never goes back; any other page is dropped alone.  A piece the
 * iterator cannot read (a window, a compressed chunk) is dropped and
 * the walk goes on after it.  Kept pages are copied unchanged, in their
 * order, so the output holds only events of the input's intact pages.
 */
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"

struct tdat_salvage {
	struct tdat_file *f;
	struct tdat_page_layout pl;
	struct tdat_ring_events events;	/* the formats by id, as tdat-verify
					 * reads them (load_formats) */
	struct tdat_ring_check ck;	/* the CPU's pages (its clock) */
	struct tdat_err *ce;		/* the page's first error ... */
	int bad, bad_in_record;		/* ... if any, and whether in a record */
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

/* What the page checker finds (lib/ring/check.c), in --salvage's words:
 * the first error drops the page. */
static int
issue(void *arg, const struct tdat_ring_issue *is)
{
	struct tdat_salvage *s = arg;
	const char *why = NULL;

	if (is->what >= TDAT_RI_WARNINGS)
		return 0;
	s->bad = 1;
	s->bad_in_record = is->in_record;
	switch (is->what) {
	case TDAT_RI_PAGE_COMMIT:
	case TDAT_RI_ITEM:
		*s->ce = *is->err;
		return 1;
	case TDAT_RI_PAGE_BACK:
		why = "page time stamp is before the CPU's last record";
		break;
	case TDAT_RI_TIME_WRAP:
	case TDAT_RI_TIME_BACK:
		why = "time goes backwards";
		break;
	case TDAT_RI_PADDING_PAST:
	case TDAT_RI_PADDING_LEN:
		why = "malformed padding";
		break;
	case TDAT_RI_EXTEND_WRAP:
		why = "time extend wraps the clock";
		break;
	case TDAT_RI_NO_ID:
	case TDAT_RI_NO_FORMAT:
		why = "event id has no format";
		break;
	case TDAT_RI_SHORT:
		why = "record is shorter than its event";
		break;
	case TDAT_RI_OUTSIDE:
		why = "a __data_loc field lies outside its record";
		break;
	case TDAT_RI_UNTERMINATED:
		why = "a string field is not terminated in its record";
		break;
	}
	tdat_fail(s->ce, TDAT_ECORRUPT, is->off, "%s", why ? why : "damaged");
	return 1;
}

/* Check a whole page; *nrec gets its events (those before any damage). */
static int
check_page(struct tdat_salvage *s, struct tdat_page *pg, uint64_t *nrec,
    struct tdat_err *e)
{
	uint64_t last = s->ck.last_ts, r0 = s->ck.records;
	int have = s->ck.have_ts;

	s->bad = 0;
	s->ce = e;
	tdat_ring_check_page(&s->ck, pg);
	*nrec = s->ck.records - r0 - (uint64_t)(s->bad && s->bad_in_record);
	if (!s->bad)
		return 0;
	s->ck.last_ts = last;	/* a dropped page does not move the clock */
	s->ck.have_ts = have;
	return e->code < 0 ? e->code : TDAT_ECORRUPT;
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
	tdat_ring_check_cpu(&s->ck);
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

static void
no_note(void *arg, const struct tdat_fmt_issue *is)
{
	(void)arg;
	(void)is;
}

/* One format file, read as tdat-verify reads it (lib/check/verify.c
 * scan_format): leniently, a file that does not give an id passed over;
 * the first of an id holds it. */
static int
add_format(struct tdat_salvage *s, const struct tdat_file *f,
    const struct tdat_blob *b, const char *sys, struct tdat_err *e)
{
	struct tdat_event *te;
	struct tdat_err se = { 0 };
	struct tdat_shape sh;
	char name[64];
	size_t ix;
	int rc;

	if (b->p == NULL)
		return 0;
	if (tdat_event_scan((const char *)b->p, strnlen((const char *)b->p,
	    b->len), sys, f->lsize, no_note, NULL, &te, &se) < 0)
		return se.code == TDAT_ENOMEM ? tdat_fail_nooff(e, TDAT_ENOMEM,
		    "out of memory") : 0;
	snprintf(name, sizeof(name), "%s:%s", sys, te->name ? te->name : "?");
	tdat_vis(name, sizeof(name), name);
	rc = tdat_shape_of(te, &sh);
	if (rc == 0)
		rc = tdat_ring_events_add(&s->events, (uint32_t)te->id, name,
		    &sh, &ix);
	tdat_event_free(te);
	if (rc < 0)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	return 0;
}

/*
 * The event formats alone: checking needs no kallsyms, printk formats
 * or comms.  Read as tdat-verify reads them, so that the records kept
 * are ones it accepts: leniently, in file order, the first of an id
 * holding its records (where ids repeat).
 */
static int
load_formats(struct tdat_salvage *s, const struct tdat_file *f,
    struct tdat_err *e)
{
	size_t i;
	uint32_t si, ei;
	int rc = 0;

	for (i = 0; rc == 0 && i < f->nftrace; i++)
		rc = add_format(s, f, &f->ftrace[i], "ftrace", e);
	for (si = 0; rc == 0 && si < f->nsys; si++)
		for (ei = 0; rc == 0 && ei < f->sys[si].nev; ei++)
			rc = add_format(s, f, &f->sys[si].ev[ei],
			    f->sys[si].name ? f->sys[si].name : "?", e);
	return rc;
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
	s->ck.pl = &s->pl;
	s->ck.events = &s->events;
	s->ck.issue = issue;
	s->ck.arg = s;
	if ((rc = tdat_page_layout(f, &s->pl, e)) < 0 ||
	    (rc = load_formats(s, f, e)) < 0) {
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

int
tdat_salvage_check_page(struct tdat_salvage *s, struct tdat_page *pg,
    int first, struct tdat_err *e)
{
	uint64_t nrec;

	if (first)
		tdat_ring_check_cpu(&s->ck);
	return check_page(s, pg, &nrec, e);
}

const char *
tdat_salvage_check_record(struct tdat_salvage *s, const unsigned char *d,
    uint32_t size)
{
	const struct tdat_ring_ev *ev;

	if (size < 2 || (ev = tdat_ring_event(&s->events, tdat_rd16(d,
	    s->pl.big))) == NULL)
		return "event id has no format";
	return tdat_shape_check(&ev->sh, d, size, s->pl.big);
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

void
tdat_salvage_close(struct tdat_salvage *s)
{

	if (s == NULL)
		return;
	tdat_pages_close(s->ps);
	free(s->ch);
	tdat_ring_events_free(&s->events);
	free(s->cpu);
	free(s);
}
