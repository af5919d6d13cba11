/*
 * records.c: ring-buffer pages decoded into records, and the records of
 * every CPU of every buffer merged into one time-ordered stream, in the
 * order trace-cmd report prints them.
 *
 * Each CPU stream reads its pages through lib/read/pages.c, which holds one
 * window of them (trace.dat: a read of some pages, or one decompressed
 * chunk), so memory stays bounded whatever the trace size.  The page
 * layout comes from the file's header_page and header_event; the record
 * header is the kernel's struct
 * ring_buffer_event { u32 type_len:5, time_delta:27; u32 array[]; } whose
 * bit fields sit at opposite ends of the word on big-endian machines.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"

#define MAX_AVAIL	(16u << 20)	/* bytes readable a record tells */
#define TS_SHIFT	27
#define TS_MSB		(0xf8ULL << 56)
#define COMMIT_MASK	((1u << 27) - 1)
#define MISSING_EVENTS	(1ULL << 31)
#define MISSING_STORED	(1ULL << 30)

struct stream {
	struct tdat_reader *r;
	int buffer;
	struct tdat_cpu cpu;
	/* the data source */
	struct tdat_pages *ps;
	/* the current page, and the bytes readable from its start */
	struct tdat_page pg;
	size_t avail;
	int in_page;
	int first;
	/* the decoded record, if any */
	int have;
	struct tdat_record rec;
	int done;
	uint64_t last_raw;	/* the time of the last record decoded */
	int have_last;
};

struct tsc {
	uint32_t mult, shift;
	uint64_t offset;
};

/* TIME_SHIFT: per guest CPU, samples of the host offset, by time. */
struct ts_cpu {
	uint32_t n;
	struct tdat_ts_sample *s;
};

struct tdat_reader {
	struct tdat_file *f;
	struct tdat_page_layout pl;
	struct stream *s;
	size_t ns;
	struct stream *pending;	/* returned last; advance on the next call */
	int64_t ts_offset;
	struct tsc tsc;
	int raw;
	uint32_t sync_flags;
	uint32_t sync_ncpu;
	struct ts_cpu *sync;
	struct tdat_select *sel;
	size_t sel_input;
	struct tdat_pages_worker *wk;	/* reads the streams ahead */
	int cut;		/* the selection's time range may be sought */
	uint64_t since, until;
	size_t room;		/* each stream's raw windows (0: the default) */
	int strict_time;	/* time going back is an error */
};

/*
 * The raw windows of all the streams of a reader together: each stream
 * holds three (the one decoded, two read ahead by the worker), so a
 * trace of many CPUs reads smaller windows rather than taking more
 * memory (64 CPUs: 64 MiB at the most with 256 KiB windows).
 */
#define WINDOWS_BYTES	(8u << 20)

/* ------------------------------------------------------------------ */

/* The value after "KEY:" in a header_page field line naming name. */
static int
hp_field(const char *text, const char *name, const char *key, int *out)
{
	const char *p = text, *line, *end;
	char pat[64];

	snprintf(pat, sizeof(pat), " %s;", name);
	while ((line = strstr(p, pat)) != NULL) {
		end = strchr(line, '\n');
		if (end == NULL)
			end = line + strlen(line);
		p = strstr(line, key);
		if (p != NULL && p < end) {
			*out = atoi(p + strlen(key));
			return 0;
		}
		p = end;
	}
	return -1;
}

int
tdat_page_layout(const struct tdat_file *f, struct tdat_page_layout *pl,
    struct tdat_err *e)
{
	const char *hp = f->hpage.p ? (const char *)f->hpage.p : "";

	memset(pl, 0, sizeof(*pl));
	pl->big = f->big;
	pl->commit_size = f->lsize;
	pl->data_off = 8 + f->lsize;
	hp_field(hp, "commit", "size:", &pl->commit_size);
	hp_field(hp, "data", "offset:", &pl->data_off);
	if (pl->commit_size != 4 && pl->commit_size != 8)
		return tdat_fail(e, TDAT_ECORRUPT, f->hpage.off,
		    "header_page: commit size %d is neither 4 nor 8",
		    pl->commit_size);
	if (pl->data_off < 8 + pl->commit_size || pl->data_off > 64)
		return tdat_fail(e, TDAT_ECORRUPT, f->hpage.off,
		    "header_page: data offset %d is not sane", pl->data_off);
	/* The item types are the kernel's constants, which header_event
	 * only describes; libtraceevent's kbuffer fixes them too.  (Read
	 * from a damaged header_event, they could name padding and a time
	 * extend alike, and a writer's time extend be read as padding.) */
	pl->padding_type = 29;
	pl->extend_type = 30;
	pl->stamp_type = 31;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Pages, item by item: the decoder the reader and tdat-verify share. */

static inline int
page_init(const struct tdat_page_layout *pl, struct tdat_page *pg,
    struct tdat_err *e)
{
	pg->stamp = pg->ts = tdat_get64(pg->p, pl->big);
	pg->flags = tdat_get(pg->p + 8, pl->commit_size, pl->big);
	pg->commit = (uint32_t)pg->flags & COMMIT_MASK;
	pg->pos = 0;
	pg->lost = 0;
	if (pg->commit > pg->page_size - (uint32_t)pl->data_off)
		return tdat_fail(e, TDAT_ECORRUPT, pg->off,
		    "page commit %u exceeds the page%s", pg->commit,
		    pg->chunk_pos < 0 ? "" : " (in a compressed chunk)");
	if (pg->flags & MISSING_EVENTS) {
		pg->lost = -1;
		if ((pg->flags & MISSING_STORED) && pg->commit +
		    (uint32_t)pl->data_off + pl->commit_size <= pg->page_size)
			pg->lost = (long long)tdat_get(pg->p + pl->data_off +
			    pg->commit, pl->commit_size, pl->big);
	}
	return 0;
}

uint64_t
tdat_page_where(const struct tdat_page_layout *pl, const struct tdat_page *pg,
    uint32_t pos)
{
	if (pg->chunk_pos >= 0)
		return pg->off;
	return pg->off + (uint64_t)pl->data_off + pos;
}

static int item_fail(const struct tdat_page_layout *, const struct tdat_page *,
    uint32_t, struct tdat_err *, const char *, ...)
    __attribute__((format(printf, 5, 6)));

static int
item_fail(const struct tdat_page_layout *pl, const struct tdat_page *pg,
    uint32_t at, struct tdat_err *e, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (pg->chunk_pos < 0)
		return tdat_fail(e, TDAT_ECORRUPT, tdat_page_where(pl, pg, at),
		    "%s", msg);
	return tdat_fail(e, TDAT_ECORRUPT, pg->off, "%s (chunk data +0x%llx)",
	    msg, (unsigned long long)pg->chunk_pos + (uint64_t)pl->data_off + at);
}

/* The next item of a page; 1, 0 at the commit, < 0 on damage. */
static inline int
page_next(const struct tdat_page_layout *pl, struct tdat_page *pg,
    struct tdat_page_item *it, struct tdat_err *e)
{
	const unsigned char *d = pg->p + pl->data_off;
	uint32_t w, type, delta, len, at = pg->pos, size = pg->commit;

	if (at >= size)
		return 0;
	if (size - at < 4)
		return item_fail(pl, pg, at, e,
		    "record header runs past the page commit");
	w = tdat_rd32(d + at, pl->big);
	if (pl->big) {
		type = w >> 27;
		delta = w & ((1u << 27) - 1);
	} else {
		type = w & 0x1f;
		delta = w >> 5;
	}
	it->at = at;
	it->type_len = type;
	it->delta = delta;
	at += 4;
	if ((int)type == pl->padding_type) {
		len = size - at >= 4 ? tdat_rd32(d + at, pl->big) : 0;
		it->kind = TDAT_ITEM_PADDING;
		it->size = len;
		pg->ts += delta;
		it->rest = delta == 0 || len > size - at;
		pg->pos = it->rest ? size : at + len;
		return 1;
	}
	if ((int)type == pl->extend_type || (int)type == pl->stamp_type) {
		if (size - at < 4)
			return item_fail(pl, pg, it->at, e,
			    "time extend runs past the page commit");
		it->ext = (uint64_t)tdat_rd32(d + at, pl->big) << TS_SHIFT;
		it->ext += delta;
		pg->pos = at + 4;
		if ((int)type == pl->stamp_type) {
			it->kind = TDAT_ITEM_STAMP;
			pg->ts = it->ext | (pg->ts & TS_MSB);
		} else {
			it->kind = TDAT_ITEM_EXTEND;
			pg->ts += it->ext;
		}
		return 1;
	}
	if (type == 0) {
		if (size - at < 4)
			return item_fail(pl, pg, it->at, e,
			    "record length runs past the page commit");
		len = tdat_rd32(d + at, pl->big);
		if (len < 4)
			return item_fail(pl, pg, it->at, e,
			    "record length %u is too small", len);
		len = ((len - 4) + 3) & ~3u;
		at += 4;
	} else if (type > 28) {
		return item_fail(pl, pg, it->at, e, "unknown record type %u",
		    type);
	} else
		len = type * 4;
	if (len > size - at)
		return item_fail(pl, pg, it->at, e,
		    "record of %u bytes runs past the page commit", len);
	pg->ts += delta;
	it->kind = TDAT_ITEM_DATA;
	it->data = d + at;
	it->size = len;
	pg->pos = at + len;
	return 1;
}

int
tdat_page_init(const struct tdat_page_layout *pl, struct tdat_page *pg,
    struct tdat_err *e)
{
	return page_init(pl, pg, e);
}

int
tdat_page_next(const struct tdat_page_layout *pl, struct tdat_page *pg,
    struct tdat_page_item *it, struct tdat_err *e)
{
	return page_next(pl, pg, it, e);
}

/* Name the CPU in a decoder error. */
static int
cpu_fail(struct stream *s, struct tdat_err *e, int rc)
{
	char pre[32];
	size_t n;

	n = (size_t)snprintf(pre, sizeof(pre), "CPU %u: ", s->cpu.id);
	memmove(e->msg + n, e->msg, sizeof(e->msg) - n - 1);
	memcpy(e->msg, pre, n);
	e->msg[sizeof(e->msg) - 1] = '\0';
	return rc;
}

/* Load the next page with records; 1 loaded, 0 none left. */
static int
next_page(struct tdat_reader *r, struct stream *s, struct tdat_err *e)
{
	int rc;

	for (;;) {
		if ((rc = tdat_pages_next(s->ps, &s->pg, &s->avail, e)) <= 0)
			return rc < 0 ? cpu_fail(s, e, rc) : 0;
		if ((rc = page_init(&r->pl, &s->pg, e)) < 0)
			return cpu_fail(s, e, rc);
		s->first = 1;
		if (s->pg.commit > 0)
			return 1;
	}
}

static uint64_t
correct(uint64_t ts, uint32_t flags, const struct tdat_ts_sample *a,
    const struct tdat_ts_sample *b)
{
	int64_t cor = a->offset;

	if ((flags & 1) && b->time != a->time) {
		int64_t delta = b->time - a->time;
		int64_t off = ((int64_t)ts - a->time) * (b->offset - a->offset);

		cor = a->offset + (off + delta / 2) / delta;
	}
	if (a->scaling > 0 && a->frac < 64)
		ts = (uint64_t)(((unsigned __int128)ts * (uint64_t)a->scaling) >>
		    a->frac);
	return cor < 0 ? ts - (uint64_t)(-cor) : ts + (uint64_t)cor;
}

/* Guest timestamps mapped to the host's clock (TIME_SHIFT). */
static uint64_t
host_sync(struct tdat_reader *r, uint64_t ts, int cpu)
{
	const struct ts_cpu *c;
	uint32_t lo, hi, mid;

	if (cpu < 0 || (uint32_t)cpu >= r->sync_ncpu)
		return ts;
	c = &r->sync[cpu];
	if (c->n == 0)
		return ts;
	if (c->n == 1)
		return ts + (uint64_t)c->s[0].offset;
	if ((int64_t)ts <= c->s[0].time)
		return correct(ts, r->sync_flags, &c->s[0], &c->s[1]);
	if ((int64_t)ts >= c->s[c->n - 1].time)
		return correct(ts, r->sync_flags, &c->s[c->n - 2],
		    &c->s[c->n - 1]);
	lo = 0;
	hi = c->n - 1;
	while (hi - lo > 1) {
		mid = (lo + hi) / 2;
		if ((int64_t)ts < c->s[mid].time)
			hi = mid;
		else
			lo = mid;
	}
	return correct(ts, r->sync_flags, &c->s[lo], &c->s[lo + 1]);
}

static uint64_t
adjust(struct tdat_reader *r, uint64_t ts, int cpu)
{
	if (r->raw)
		return ts;
	if (r->sync)
		ts = host_sync(r, ts, cpu);
	if (r->tsc.mult) {
		ts -= r->tsc.offset;
		ts = (uint64_t)(((unsigned __int128)ts * r->tsc.mult) >> r->tsc.shift);
	}
	return ts + (uint64_t)r->ts_offset;
}

/*
 * A writer's reader: a record before the last one of its CPU (a damaged
 * page) is refused, as tdat-verify and a page copy refuse it, rather
 * than written into an output whose time goes back.
 */
static int
time_back(struct stream *s, uint64_t off, struct tdat_err *e)
{
	return tdat_fail(e, TDAT_ECORRUPT, off, "CPU %u: record time %llu is "
	    "before the CPU's last record (%llu): the input is damaged "
	    "(tdat-cat --salvage drops such pages)", s->cpu.id,
	    (unsigned long long)s->pg.ts, (unsigned long long)s->last_raw);
}

/* Decode the stream's next data record into s->rec; 1, 0 at end, < 0. */
static int
decode(struct tdat_reader *r, struct stream *s, struct tdat_err *e)
{
	struct tdat_page_item it = { 0 };
	size_t avail;
	uint64_t off;
	int rc;

	for (;;) {
		if (!s->in_page) {
			if ((rc = next_page(r, s, e)) <= 0)
				return rc;
			s->in_page = 1;
		}
		if ((rc = page_next(&r->pl, &s->pg, &it, e)) < 0)
			return cpu_fail(s, e, rc);
		if (rc == 0) {
			s->in_page = 0;
			continue;
		}
		if (it.kind != TDAT_ITEM_DATA)
			continue;
		off = s->pg.chunk_pos >= 0 ? s->pg.off :
		    s->pg.off + (uint64_t)r->pl.data_off + it.at;
		if (r->strict_time && s->have_last && s->pg.ts < s->last_raw)
			return time_back(s, off, e);
		s->last_raw = s->pg.ts;
		s->have_last = 1;
		memset(&s->rec, 0, sizeof(s->rec));
		s->rec.raw_ts = s->pg.ts;
		s->rec.ts = adjust(r, s->pg.ts, (int)s->cpu.id);
		s->rec.cpu = (int)s->cpu.id;
		s->rec.buffer = s->buffer;
		s->rec.data = it.data;
		s->rec.size = it.size;
		avail = s->avail - (size_t)(it.data - s->pg.p);
		s->rec.avail = avail > MAX_AVAIL ? MAX_AVAIL : (uint32_t)avail;
		s->rec.off = off;
		if (s->first && s->pg.lost) {
			s->rec.missed = 1;
			s->rec.missed_count = s->pg.lost;
		}
		s->first = 0;
		return 1;
	}
}

static int
advance(struct tdat_reader *r, struct stream *s, struct tdat_err *e)
{
	int rc;

	s->have = 0;
	if (s->done)
		return 0;
	if ((rc = decode(r, s, e)) < 0)
		return rc;
	if (rc == 0)
		s->done = 1;
	else
		s->have = 1;
	return 0;
}

/* ------------------------------------------------------------------ */

static int
sample_cmp(const void *a, const void *b)
{
	const struct tdat_ts_sample *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/* TIME_SHIFT: the first option whose samples are whole is used; its
 * samples, sorted by time, each with its scaling fraction when the
 * fractions stored reach the end of its CPU's samples. */
static int
load_time_shift(struct tdat_reader *r, const struct tdat_time_shift *t)
{
	uint64_t k = 0;
	uint32_t i, j;

	if (t->head < 16 || t->broken || r->sync)
		return 0;
	if ((r->sync = calloc(t->ncpu ? t->ncpu : 1, sizeof(*r->sync))) == NULL)
		return TDAT_ENOMEM;
	r->sync_flags = t->flags;
	r->sync_ncpu = t->ncpu;
	for (i = 0; i < t->ncpu; i++) {
		struct ts_cpu *c = &r->sync[i];
		const struct tdat_ts_cpu *tc = &t->cpu[i];
		int frac = k + tc->n <= t->nfrac;

		if ((c->s = calloc(tc->n ? tc->n : 1, sizeof(*c->s))) == NULL)
			return TDAT_ENOMEM;
		c->n = tc->n;
		for (j = 0; j < tc->n; j++) {
			c->s[j] = tc->s[j];
			if (!frac)
				c->s[j].frac = 0;
		}
		k += tc->n;
		qsort(c->s, c->n, sizeof(*c->s), sample_cmp);
	}
	return 0;
}

/* OFFSET (added up), TSC2NSEC (the last whole one) and TIME_SHIFT. */
static int
read_time_options(struct tdat_reader *r, struct tdat_err *e)
{
	struct tdat_file *f = r->f;
	const struct tdat_optval *ov;
	size_t i;
	int rc;

	if ((rc = tdat_options(f, &ov, e)) < 0)
		return rc;
	for (i = 0; i < f->nopt; i++) {
		const struct tdat_optval *v = &ov[i];

		switch (v->id) {
		case TDAT_OPT_OFFSET:
			r->ts_offset += v->u.text.num;
			break;
		case TDAT_OPT_TIME_SHIFT:
			if (load_time_shift(r, &v->u.ts) < 0)
				return tdat_fail_nooff(e, TDAT_ENOMEM,
				    "out of memory");
			break;
		case TDAT_OPT_TSC2NSEC:
			if (!v->u.tsc.valid)
				break;
			r->tsc.mult = v->u.tsc.mult;
			r->tsc.shift = v->u.tsc.shift;
			r->tsc.offset = v->u.tsc.offset;
			break;
		}
	}
	if (r->tsc.shift > 63)
		r->tsc.mult = 0;
	return 0;
}

/* A page stamp of stream arg on the records' clock. */
static uint64_t
stream_ts(void *arg, uint64_t raw)
{
	struct stream *s = arg;

	return adjust(s->r, raw, (int)s->cpu.id);
}

static int
add_stream(struct tdat_reader *r, int bi, uint32_t ci, struct tdat_err *e)
{
	struct stream *s = &r->s[r->ns++];
	int rc;

	memset(s, 0, sizeof(*s));
	s->r = r;
	s->buffer = bi;
	s->cpu = r->f->buf[bi].cpu[ci];
	if ((rc = tdat_pages_open(r->f, bi, ci, &s->ps, e)) < 0)
		return rc;
	if (r->room)
		tdat_pages_room(s->ps, r->room);
	if (r->cut && r->since > 0 && (rc = tdat_pages_seek_ts(s->ps, &r->pl,
	    stream_ts, s, r->since, e)) < 0)
		return rc;
	if (r->wk == NULL && r->f->page_ops == NULL &&
	    tdat_pages_worker_new(&r->wk) < 0)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	tdat_pages_async(s->ps, r->wk);
	return advance(r, s, e);
}

int
tdat_reader_open(struct tdat_file *f, const struct tdat_reader_opts *o,
    struct tdat_reader **out, struct tdat_err *e)
{
	struct tdat_reader *r;
	size_t bi, total = 0, busy = 0;
	uint32_t ci;
	int rc;

	*out = NULL;
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	r->f = f;
	r->raw = o && o->no_offsets;
	r->strict_time = o && o->strict_time;
	r->sel = o ? o->sel : NULL;
	r->sel_input = o ? o->sel_input : 0;
	/* An LTT directory is read whole: its tracefiles' events are not
	 * known to be in time order. */
	if (r->sel && f->page_ops == NULL)
		r->cut = tdat_select_range(r->sel, &r->since, &r->until);
	if ((rc = tdat_page_layout(f, &r->pl, e)) < 0)
		goto fail;
	if (!r->raw && (rc = read_time_options(r, e)) < 0)
		goto fail;
	for (bi = 0; bi < f->nbuf; bi++) {
		total += f->buf[bi].ncpu;
		for (ci = 0; ci < f->buf[bi].ncpu; ci++)
			busy += f->buf[bi].cpu[ci].size > 0;
	}
	if (busy > 0 && WINDOWS_BYTES / 3 / busy < TDAT_PAGES_WINDOW)
		r->room = WINDOWS_BYTES / 3 / busy;
	if ((r->s = calloc(total ? total : 1, sizeof(*r->s))) == NULL) {
		rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		goto fail;
	}
	for (bi = 0; bi < f->nbuf; bi++) {
		const struct tdat_buffer *b = &f->buf[bi];

		if (b->latency || (o && o->buffer >= 0 && (size_t)o->buffer != bi))
			continue;
		for (ci = 0; ci < b->ncpu; ci++) {
			const struct tdat_cpu *c = &b->cpu[ci];

			if (c->size == 0)
				continue;
			if (o && o->cpus && ((int)c->id >= o->ncpus ||
			    !o->cpus[c->id]))
				continue;
			if (r->sel && !tdat_select_stream(r->sel, r->sel_input,
			    (int)bi, c->id))
				continue;
			if (b->page_size < (uint32_t)r->pl.data_off + 4) {
				rc = tdat_fail(e, TDAT_ECORRUPT, 0,
				    "page size %u too small", b->page_size);
				goto fail;
			}
			if ((rc = add_stream(r, (int)bi, ci, e)) < 0)
				goto fail;
		}
	}
	*out = r;
	return 0;
fail:
	tdat_reader_close(r);
	return rc;
}

int
tdat_reader_keeps(struct tdat_reader *r, const struct tdat_record *rec)
{
	return r->sel == NULL || tdat_select_keep(r->sel, r->sel_input, rec);
}

int
tdat_reader_past(const struct tdat_reader *r, const struct tdat_record *rec)
{
	return r->cut && rec->ts > r->until;
}

/*
 * The next record the selection keeps.  The streams are merged in time
 * order: once the earliest record left is past the selection's end, no
 * later one is kept.
 */
int
tdat_reader_next(struct tdat_reader *r, struct tdat_record *rec,
    struct tdat_err *e)
{
	int rc;

	while ((rc = tdat_reader_next_all(r, rec, e)) > 0 &&
	    !tdat_reader_keeps(r, rec))
		if (tdat_reader_past(r, rec))
			return 0;
	return rc;
}

void
tdat_reader_counts(const struct tdat_reader *r, uint64_t *loads,
    uint64_t *pages)
{
	size_t i;

	*loads = *pages = 0;
	for (i = 0; i < r->ns; i++) {
		*loads += tdat_pages_loads(r->s[i].ps);
		*pages += tdat_pages_handed(r->s[i].ps);
	}
}

int
tdat_reader_next_all(struct tdat_reader *r, struct tdat_record *rec,
    struct tdat_err *e)
{
	struct stream *best = NULL;
	size_t i;
	int rc;

	if (r->pending) {
		rc = advance(r, r->pending, e);
		r->pending = NULL;
		if (rc < 0)
			return rc;
	}
	for (i = 0; i < r->ns; i++) {
		struct stream *s = &r->s[i];

		if (s->have && (best == NULL || s->rec.ts < best->rec.ts))
			best = s;
	}
	if (best == NULL)
		return 0;
	*rec = best->rec;
	r->pending = best;
	return 1;
}

void
tdat_reader_close(struct tdat_reader *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->ns; i++)
		tdat_pages_close(r->s[i].ps);
	tdat_pages_worker_free(r->wk);
	free(r->s);
	for (i = 0; i < r->sync_ncpu; i++)
		free(r->sync[i].s);
	free(r->sync);
	free(r);
}
