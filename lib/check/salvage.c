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

/* What the records of an event id must hold (cached: the writer checks
 * every record it copies). */
struct ev_check {
	const struct tdat_shape *sh;	/* NULL: empty */
	unsigned id;
};
#define NCHECK	256

/* An event id and what its records must hold. */
struct sev {
	uint32_t id;
	size_t order;			/* of its format in the file */
	struct tdat_shape sh;
};

struct tdat_salvage {
	struct tdat_file *f;
	struct ev_check check[NCHECK];
	struct tdat_page_layout pl;
	struct sev *sev;		/* the formats by id, as tdat-verify */
	size_t nsev;			/* reads them (load_formats) */
	struct tdat_page_src src;
	struct tdat_pages *ps;		/* the CPU being read, or NULL */
	struct tdat_salvage_cpu *cur;	/* its counts */
	uint64_t last_ts;		/* its last kept record */
	int have_ts;
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

static int
bad(struct tdat_err *e, const struct tdat_page_layout *pl,
    const struct tdat_page *pg, uint32_t at, const char *msg)
{
	return tdat_fail(e, TDAT_ECORRUPT, tdat_page_where(pl, pg, at), "%s",
	    msg);
}

/* What the records of event id must hold, or NULL: the cache missed. */
static const struct ev_check *
lookup_slow(struct tdat_salvage *s, struct ev_check *c, unsigned id)
{
	size_t lo = 0, hi = s->nsev, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->sev[mid].id == id) {
			c->sh = &s->sev[mid].sh;
			c->id = id;
			return c;
		}
		if (s->sev[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* What the records of event id must hold, or NULL. */
static inline const struct ev_check *
lookup(struct tdat_salvage *s, unsigned id)
{
	struct ev_check *c = &s->check[id % NCHECK];

	if (c->sh != NULL && c->id == id)
		return c;
	return lookup_slow(s, c, id);
}

/* A record against its format: NULL if sound, else what is not. */
static inline const char *
check_fields(const struct ev_check *c, const unsigned char *d, uint32_t size,
    int big)
{
	return tdat_shape_check(c->sh, d, size, big);
}

/* One item of a page: 0 if sound, < 0 if it shows damage. */
static inline int
check_item(struct tdat_salvage *s, struct tdat_page *pg,
    const struct tdat_page_item *it, uint64_t before, uint64_t *nrec,
    struct tdat_err *e)
{
	const struct tdat_page_layout *pl = &s->pl;
	const struct ev_check *c;
	const char *why;

	switch (it->kind) {
	case TDAT_ITEM_DATA:
		if (pg->ts < before || (s->have_ts && pg->ts < s->last_ts))
			return bad(e, pl, pg, it->at, "time goes backwards");
		if (it->size < 2 || (c = lookup(s, tdat_rd16(it->data,
		    pl->big))) == NULL)
			return bad(e, pl, pg, it->at, "event id has no format");
		if ((why = check_fields(c, it->data, it->size, pl->big)))
			return bad(e, pl, pg, it->at, why);
		(*nrec)++;
		s->last_ts = pg->ts;
		s->have_ts = 1;
		break;
	case TDAT_ITEM_PADDING:
		if ((it->rest && it->delta != 0) ||
		    (!it->rest && (it->size < 4 || it->size % 4)))
			return bad(e, pl, pg, it->at, "malformed padding");
		break;
	case TDAT_ITEM_EXTEND:
		if (pg->ts < before)
			return bad(e, pl, pg, it->at, "time extend wraps the "
			    "clock");
		break;
	}
	return 0;
}

/*
 * The items of a page from pg->pos on, for as long as they are what most
 * items are and sound: records check_item() finds nothing in, time
 * extends and stamps, of a little-endian page with the usual item types,
 * without a call each.  It stops at any other item (a padding, damage)
 * with pg->pos and pg->ts at it, for check_page() to read as before.
 */
static void
walk_fast(struct tdat_salvage *s, struct tdat_page *pg, uint64_t *nrec)
{
	const unsigned char *d = pg->p + s->pl.data_off;
	const struct ev_check *c;
	uint32_t pos = pg->pos, end = pg->commit, len, hdr, delta;
	uint64_t ts = pg->ts, nts, last = s->have_ts ? s->last_ts : 0;
	uint64_t n = 0;
	int k;

	/* pos stays at or below end; with no record yet, last is 0 */
	while (end - pos >= 8) {
		if ((k = tdat_fast_item(d + pos, 1, &len, &hdr, &delta,
		    &ts)) == 0)
			break;
		if (k == 2) {
			pos += 8;
			continue;
		}
		nts = ts + delta;
		if (len > end - pos - hdr || nts < ts || nts < last || len < 2 ||
		    (c = lookup(s, tdat_rd16(d + pos + hdr, 0))) == NULL ||
		    check_fields(c, d + pos + hdr, len, 0) != NULL)
			break;
		ts = last = nts;
		n++;
		pos += hdr + len;
	}
	pg->pos = pos;
	pg->ts = ts;
	if (n > 0) {
		s->last_ts = last;
		s->have_ts = 1;
		*nrec += n;
	}
}

/* Check a whole page; *nrec gets its events (those before any damage). */
static int
check_page(struct tdat_salvage *s, struct tdat_page *pg, uint64_t *nrec,
    struct tdat_err *e)
{
	struct tdat_page_item it;
	uint64_t before, last = s->last_ts;
	int rc, have = s->have_ts, fast;

	*nrec = 0;
	if ((rc = tdat_page_init(&s->pl, pg, e)) < 0)
		return rc;
	if (pg->commit == 0)
		return 0;
	if (s->have_ts && pg->stamp < s->last_ts)
		return tdat_fail(e, TDAT_ECORRUPT, pg->off, "page time stamp "
		    "is before the CPU's last record");
	fast = !s->pl.big && s->pl.padding_type == 29 &&
	    s->pl.extend_type == 30 && s->pl.stamp_type == 31;
	for (;;) {
		if (fast)
			walk_fast(s, pg, nrec);
		before = pg->ts;
		if ((rc = tdat_page_next(&s->pl, pg, &it, e)) == 0)
			return 0;
		if (rc < 0 || (rc = check_item(s, pg, &it, before, nrec, e)) < 0)
			break;
	}
	s->last_ts = last;	/* a dropped page does not move the clock */
	s->have_ts = have;
	return rc;
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
	s->have_ts = 0;
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
 * scan_format): leniently, a file that does not give an id passed over. */
static int
add_format(struct tdat_salvage *s, const struct tdat_file *f,
    const struct tdat_blob *b, const char *sys, struct tdat_err *e)
{
	struct tdat_event *te;
	struct tdat_err se = { 0 };
	struct sev *v;
	int rc;

	if (b->p == NULL)
		return 0;
	if (tdat_event_scan((const char *)b->p, strnlen((const char *)b->p,
	    b->len), sys, f->lsize, no_note, NULL, &te, &se) < 0)
		return se.code == TDAT_ENOMEM ? tdat_fail_nooff(e, TDAT_ENOMEM,
		    "out of memory") : 0;
	if ((v = realloc(s->sev, (s->nsev + 1) * sizeof(*v))) == NULL) {
		tdat_event_free(te);
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	s->sev = v;
	v += s->nsev;
	v->id = (uint32_t)te->id;
	v->order = s->nsev;
	rc = tdat_shape_of(te, &v->sh);
	tdat_event_free(te);
	if (rc < 0)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	s->nsev++;
	return 0;
}

static int
sev_cmp(const void *a, const void *b)
{
	const struct sev *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
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
	size_t i, j;
	uint32_t si, ei;
	int rc = 0;

	for (i = 0; rc == 0 && i < f->nftrace; i++)
		rc = add_format(s, f, &f->ftrace[i], "ftrace", e);
	for (si = 0; rc == 0 && si < f->nsys; si++)
		for (ei = 0; rc == 0 && ei < f->sys[si].nev; ei++)
			rc = add_format(s, f, &f->sys[si].ev[ei],
			    f->sys[si].name ? f->sys[si].name : "?", e);
	if (rc < 0)
		return rc;
	if (s->nsev > 1)
		qsort(s->sev, s->nsev, sizeof(*s->sev), sev_cmp);
	for (i = j = 0; i < s->nsev; i++) {
		if (j > 0 && s->sev[j - 1].id == s->sev[i].id) {
			free(s->sev[i].sh.loc);
			continue;
		}
		s->sev[j++] = s->sev[i];
	}
	s->nsev = j;
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
		s->have_ts = 0;
	return check_page(s, pg, &nrec, e);
}

const char *
tdat_salvage_check_record(struct tdat_salvage *s, const unsigned char *d,
    uint32_t size)
{
	const struct ev_check *c;

	if (size < 2 || (c = lookup(s, tdat_rd16(d, s->pl.big))) == NULL)
		return "event id has no format";
	return check_fields(c, d, size, s->pl.big);
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
	size_t i;

	if (s == NULL)
		return;
	tdat_pages_close(s->ps);
	free(s->ch);
	for (i = 0; i < s->nsev; i++)
		free(s->sev[i].sh.loc);
	free(s->sev);
	free(s->cpu);
	free(s);
}
