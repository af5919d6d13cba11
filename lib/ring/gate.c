/*
 * gate.c: the page checker as a gate, for what copies pages or records
 * and must write nothing tdat-verify flags (tdat-cat --salvage drops
 * what it stops, the writers refuse the input): the event table of a
 * trace's format files, read as tdat-verify reads them, and the first
 * error of a page or a record in words of one line.  A format file is
 * read when a record first names its id, its head alone at the open:
 * reading all 1,357 of ../shared/bench's function_graph trace was a
 * third of tdat-cat's time cut (40 M of 113 M instructions).  A gate is
 * one thread's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"

/* A format file not read yet, the first of its id. */
struct pend {
	const struct tdat_blob *b;
	const char *sys;
};

struct tdat_ring_gate {
	struct tdat_page_layout pl;
	struct tdat_ring_events events;
	struct tdat_ring_check ck;	/* the CPU's pages (its clock) */
	struct tdat_err *ce;		/* the page's first error ... */
	int bad, bad_in_record;		/* ... if any, and whether in a record */
	const struct tdat_file *f;
	struct pend *pend;		/* by id: the format file holding it, */
	uint32_t npend;			/* not read yet; ids below npend */
	int oom;			/* reading one ran out of memory */
};

/* What the page checker finds, in a gate's words: the first error stops
 * the page. */
static int
issue(void *arg, const struct tdat_ring_issue *is)
{
	struct tdat_ring_gate *g = arg;
	const char *why = NULL;

	if (is->what >= TDAT_RI_WARNINGS)
		return 0;
	g->bad = 1;
	g->bad_in_record = is->in_record;
	switch (is->what) {
	case TDAT_RI_PAGE_COMMIT:
	case TDAT_RI_ITEM:
		*g->ce = *is->err;
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
	tdat_fail(g->ce, TDAT_ECORRUPT, is->off, "%s", why ? why : "damaged");
	return 1;
}

static void
no_note(void *arg, const struct tdat_fmt_issue *is)
{
	(void)arg;
	(void)is;
}

/* One format file, read as tdat-verify reads it (scan_format there):
 * leniently, a file that does not give an id passed over; the first of
 * an id holds it. */
static int
add_format(struct tdat_ring_events *t, const struct tdat_file *f,
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
		rc = tdat_ring_events_add(t, (uint32_t)te->id, name, &sh, &ix);
	tdat_event_free(te);
	if (rc < 0)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	return 0;
}

/* Note format file b under the id its head gives (tdat_event_scan()
 * would give it that id, or fail it, as add_format() passes it over),
 * unless an earlier file has the id.  -1 without memory. */
static int
pend_add(struct tdat_ring_gate *g, const struct tdat_blob *b, const char *sys)
{
	struct pend *p;
	uint32_t n;
	int id;

	if (b->p == NULL || (id = tdat_event_scan_id((const char *)b->p,
	    strnlen((const char *)b->p, b->len))) < 0)
		return 0;
	if ((uint32_t)id >= g->npend) {
		n = g->npend * 2 > (uint32_t)id + 1 ? g->npend * 2 :
		    (uint32_t)id + 1;
		if (n > 65536)		/* ids have 16 bits (event_id()) */
			n = 65536;
		if ((p = realloc(g->pend, n * sizeof(*p))) == NULL)
			return -1;
		memset(p + g->npend, 0, (n - g->npend) * sizeof(*p));
		g->pend = p;
		g->npend = n;
	}
	if (g->pend[id].b == NULL) {
		g->pend[id].b = b;
		g->pend[id].sys = sys;
	}
	return 0;
}

/* Every format file's id, in file order (ftrace's, then each system's):
 * the first of an id holds it, as in tdat-verify. */
static int
pend_load(struct tdat_ring_gate *g, const struct tdat_file *f,
    struct tdat_err *e)
{
	size_t i;
	uint32_t si, ei;
	int rc = 0;

	for (i = 0; rc == 0 && i < f->nftrace; i++)
		rc = pend_add(g, &f->ftrace[i], "ftrace");
	for (si = 0; rc == 0 && si < f->nsys; si++)
		for (ei = 0; rc == 0 && ei < f->sys[si].nev; ei++)
			rc = pend_add(g, &f->sys[si].ev[ei],
			    f->sys[si].name ? f->sys[si].name : "?");
	return rc < 0 ? tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory") : 0;
}

/* The event of an id no record named before: its format file read now
 * (the checker's miss), or NULL. */
static const struct tdat_ring_ev *
miss(void *arg, uint32_t id)
{
	struct tdat_ring_gate *g = arg;
	struct tdat_err e = { 0 };
	struct pend p;

	if (id >= g->npend || g->pend[id].b == NULL)
		return NULL;
	p = g->pend[id];
	g->pend[id].b = NULL;
	if (add_format(&g->events, g->f, p.b, p.sys, &e) < 0)
		g->oom = 1;
	return tdat_ring_event(&g->events, id);
}

int
tdat_ring_gate_open(const struct tdat_file *f, struct tdat_ring_gate **out,
    struct tdat_err *e)
{
	struct tdat_ring_gate *g;
	int rc;

	*out = NULL;
	if ((g = calloc(1, sizeof(*g))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	g->ck.pl = &g->pl;
	g->ck.events = &g->events;
	g->ck.issue = issue;
	g->ck.miss = miss;
	g->ck.arg = g;
	g->f = f;
	if ((rc = tdat_ring_layout(f->big, f->lsize, (const char *)f->hpage.p,
	    f->hpage.off, &g->pl, e)) < 0 ||
	    (rc = pend_load(g, f, e)) < 0) {
		tdat_ring_gate_close(g);
		return rc;
	}
	*out = g;
	return 0;
}

void
tdat_ring_gate_cpu(struct tdat_ring_gate *g)
{
	tdat_ring_check_cpu(&g->ck);
}

int
tdat_ring_gate_page(struct tdat_ring_gate *g, struct tdat_page *pg,
    uint64_t *nrec, struct tdat_err *e)
{
	uint64_t last = g->ck.last_ts, r0 = g->ck.records;
	int have = g->ck.have_ts;

	g->bad = 0;
	g->ce = e;
	tdat_ring_check_page(&g->ck, pg);
	if (g->oom)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	if (nrec)
		*nrec = g->ck.records - r0 -
		    (uint64_t)(g->bad && g->bad_in_record);
	if (!g->bad)
		return 0;
	g->ck.last_ts = last;	/* a page stopped does not move the clock */
	g->ck.have_ts = have;
	return e->code < 0 ? e->code : TDAT_ECORRUPT;
}

const char *
tdat_ring_gate_record(struct tdat_ring_gate *g, const unsigned char *d,
    uint32_t size)
{
	const struct tdat_ring_ev *ev;
	uint32_t id;

	if (size < 2)
		return "event id has no format";
	id = tdat_rd16(d, g->pl.big);
	if ((ev = tdat_ring_event(&g->events, id)) == NULL &&
	    (ev = miss(g, id)) == NULL)
		return g->oom ? "out of memory reading its event format" :
		    "event id has no format";
	return tdat_shape_check(&ev->sh, d, size, g->pl.big);
}

void
tdat_ring_gate_close(struct tdat_ring_gate *g)
{
	if (g == NULL)
		return;
	tdat_ring_events_free(&g->events);
	free(g->pend);
	free(g);
}
