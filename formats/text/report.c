/*
 * report.c: the lines trace-cmd report [-N|-R] [-t] prints for a trace.
 *
 *	cpus=N
 *	[BUF: ]           comm-pid   [cpu]  secs.nsecs: name:     text
 *
 * Instance buffers prefix every line with their name (the top buffer with
 * blanks of the same width); lost events print "CPU:N [K EVENTS DROPPED]"
 * before the record that follows them.  A latency-tracer file has no
 * records: its text follows the cpus line.
 */
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "tdat-opts.h"
#include "tdat-output.h"
#include "tdat-tracedat.h"
#include "event-int.h"
#include "tdat-sink.h"

/* What a plugin that peeks sees: the next record of the same input. */
struct look {
	struct tdat_run *run;
	size_t k;		/* the input of the record being printed */
	unsigned char *cur;	/* a copy of the record being printed */
	size_t curcap;
};

#define NAMES	64	/* events whose name and id are kept */
#define LINE_FLUSH	(4 * 65536)	/* lines held before they are written */

/* One input. */
struct rin {
	struct tdat_file *f;
	struct tdat_events *ev;
	const char *name;	/* several inputs: its base name */
	int usecs;		/* the clock counts time (not cycles) */
	/* the common fields of its first event (by id), as libtraceevent
	 * finds them for the latency column; NULL: none */
	const struct tdat_field *flags, *pc, *ld, *md;
	/* its records' first 8 bytes read at once (hdr_read()): the id
	 * (common[0]) at 0 in 2 bytes, flags at 2, preempt count at 3,
	 * in the host's byte order */
	int hdr8;
};

struct report {
	struct tdat_file *f;	/* the input of the record being printed */
	FILE *out;		/* NULL: a worker's, into its block's text */
	struct report *top;	/* a worker's: the report it works for */
	int par_ok;		/* its records may be printed on threads */
	const struct tdat_report_opts *o;
	struct tdat_events *ev;	/* its events */
	struct rin *in;
	size_t nin;
	struct tdat_sbuf line;
	int instances;		/* lines start with the buffer's name */
	int multi;		/* lines start with the file's name */
	int prefix;		/* the width of that column */
	int usecs;		/* the clock counts time (not cycles) */
	struct rin *cur;	/* the input of the record being printed */
	/* libtraceevent looks for common_lock_depth and
	 * common_migrate_disable once in the process, in the first record
	 * it prints: 1 found, -1 not, 0 not looked yet */
	int ld_seen, md_seen;	/* a worker reads top's (report_note) */
	unsigned char *ext;	/* a short record and zeros after it */
	size_t extcap;
	struct look look;
	struct vcpu {
		int pid;	/* the host task running it */
		size_t in;	/* the guest's input */
	} *vcpu;		/* sorted by pid */
	size_t nvcpu;
	struct evname {
		const struct tdat_event *ev;
		char text[64];	/* " name: " padded to 20, then blanks */
		size_t len;
	} names[NAMES];		/* by the event's address */
	struct evid {
		const struct tdat_events *set;
		int id;
		const struct tdat_event *ev;
		uint32_t span;	/* its fields' bytes */
		int dyn;	/* 0, or the __data_loc (1) or __rel_loc
				 * (2) fields' reach (note_span()) */
		int str;	/* a field is a string or array */
		int nul_free;	/* tdat_event_nul_free() said 1: its
				 * print makes no NUL from then on */
		int pid4;	/* its pid is bytes 4-7 */
		int own;	/* tdat_event_own(): print_info() goes
				 * straight to tdat_event_print_own() */
		int quick;	/* report_quick() prints its records:
				 * own, pid4, nul_free, name kept */
		size_t nlen;
		char name[SB_SHORT];	/* put_event_name()'s text */
	} ids[NAMES];		/* by id */
	struct task {
		const char *comm;	/* as tdat_events_comm() gave it */
		int pid, cpu;
		char text[2 * SB_SHORT];	/* put_task()'s */
		size_t len;
	} tasks[NAMES];		/* by pid and CPU */
	/* time_text()'s " %5llu." of the last whole seconds it printed:
	 * records come in bursts within one second */
	uint64_t secs;
	uint64_t secs_ns;	/* secs in nanoseconds */
	size_t secs_len;	/* 0: none yet */
	char secs_text[32];
	/* time_text()'s " %5llu.%05u" of the last nanosecond time it
	 * printed, down to 10 microseconds: the time of that text (tbase)
	 * and its length; 0: none yet.  A record within 10 us of it needs
	 * only its last four digits. */
	uint64_t tbase;
	size_t tpre_len;
	char tpre[32];
	/* put_latency()'s first three columns for each value of the five
	 * flag bits it reads; latf_ok: made */
	char latf[32][4];
	int latf_ok;
	/* put_head_fast() may print the columns: not -l, -R's flags or
	 * a latency column left out */
	int fast_head;
	/* report_quick() may print lines: put_head_fast() may, one input,
	 * no instances, no lock depth or migrate-disable column; 0 not
	 * known yet, -1 never */
	int quick;
};

/*
 * What trace-cmd prints for a latency-tracer file: its text in pieces,
 * each printed up to its first NUL.  The pieces are BUFSIZ (8192) bytes
 * of the file from the start of the text to the end of the file (v6, and
 * v7 uncompressed: there it reads on past the section), or the chunks of
 * compressed text, one at a time.
 */
#define LAT_PIECE	8192

struct latpiece {
	FILE *out;
	size_t pos;		/* bytes of the current piece seen */
	int cut;		/* a NUL ended what it prints */
};

static void
lat_put(struct latpiece *lp, const unsigned char *p, size_t n, size_t piece)
{
	const unsigned char *z;
	size_t k;

	while (n > 0) {
		k = piece - lp->pos;
		if (k > n)
			k = n;
		if (!lp->cut) {
			z = memchr(p, '\0', k);
			fwrite(p, 1, z ? (size_t)(z - p) : k, lp->out);
			lp->cut = z != NULL;
		}
		lp->pos += k;
		p += k;
		n -= k;
		if (lp->pos == piece) {
			lp->pos = 0;
			lp->cut = 0;
		}
	}
}

/* The file bytes after an uncompressed v7 text section, which trace-cmd
 * reads as more text. */
static int
lat_after(struct report *r, const struct tdat_buffer *b,
    struct latpiece *lp, struct tdat_err *e)
{
	unsigned char buf[LAT_PIECE];
	uint64_t off = b->data_end, n;
	int rc;

	if (r->f->version < 7 || b->compressed || !tdat_is_tracedat(r->f))
		return 0;
	while (off < r->f->fsize) {
		n = r->f->fsize - off;
		if (n > sizeof(buf))
			n = sizeof(buf);
		if ((rc = tdat_pread(r->f, buf, off, n, e)) < 0)
			return rc;
		lat_put(lp, buf, (size_t)n, LAT_PIECE);
		off += n;
	}
	return 0;
}

static int
report_latency(struct report *r, int bi, struct tdat_err *e)
{
	struct latpiece lp = { r->out, 0, 0 };
	struct tdat_pages *pg;
	struct tdat_window w;
	int rc;

	if ((rc = tdat_pages_open(r->f, bi, 0, &pg, e)) < 0)
		return rc;
	while ((rc = tdat_pages_window(pg, &w, e)) > 0) {
		if (w.chunk) {
			lp.pos = 0;
			lp.cut = 0;
			lat_put(&lp, w.p, w.len, w.len);
		} else
			lat_put(&lp, w.p, w.len, LAT_PIECE);
	}
	tdat_pages_close(pg);
	if (rc == 0)
		rc = lat_after(r, &r->f->buf[bi], &lp, e);
	fputc('\n', r->out);
	return rc;
}

#define MAX_EXT	(1u << 20)	/* bytes of zeros a short record gets */

/* The record and what follows it in its window, then zeros up to need
 * (trace-cmd reads what follows the record in its page buffer). */
static const unsigned char *
record_tail(struct report *r, const struct tdat_record *rec, uint32_t need)
{
	uint32_t have = rec->avail > rec->size ? rec->avail : rec->size;
	unsigned char *p;

	if (need > MAX_EXT)
		return NULL;
	if (need > r->extcap) {
		if ((p = realloc(r->ext, need)) == NULL)
			return NULL;
		r->ext = p;
		r->extcap = need;
	}
	memcpy(r->ext, rec->data, have);
	memset(r->ext + have, 0, need - have);
	return r->ext;
}

static const struct tdat_record *
look_peek(void *arg)
{
	struct look *k = arg;

	return tdat_run_peek(k->run, k->k);
}

static void
look_consume(void *arg)
{
	struct look *k = arg;

	tdat_run_consume(k->run, k->k);
}

/* A plugin that peeks moves the reader on: keep the record's bytes. */
static void
print_peeking(struct report *r, const struct tdat_event *ev,
    const struct tdat_record *rec)
{
	struct tdat_plugin_ctx ctx = { look_peek, look_consume, &r->look };
	struct look *k = &r->look;
	struct tdat_record x = *rec;
	unsigned char *p;

	if (rec->size > k->curcap) {
		if ((p = realloc(k->cur, rec->size)) == NULL) {
			tdat_event_print(ev, rec, r->o->mode, &r->line);
			return;
		}
		k->cur = p;
		k->curcap = rec->size;
	}
	memcpy(k->cur, rec->data, rec->size);
	x.data = k->cur;
	tdat_event_print_ctx(ev, &x, x.size, r->o->mode, &ctx, &r->line);
}

static void
print_info(struct report *r, const struct tdat_event *ev,
    const struct tdat_record *rec)
{
	struct tdat_record x;
	uint32_t need = tdat_event_span(ev);

	if (r->o->mode == TDAT_PRINT_PLUGINS && ev->plugin) {
		if (ev->plugin->peek)
			print_peeking(r, ev, rec);
		else
			tdat_event_print(ev, rec, r->o->mode, &r->line);
		return;
	}
	if (need <= rec->size) {
		tdat_event_print(ev, rec, r->o->mode, &r->line);
		return;
	}
	if (need <= rec->avail) {
		tdat_event_print_avail(ev, rec, need, r->o->mode, &r->line);
		return;
	}
	x = *rec;
	if ((x.data = record_tail(r, rec, need)) == NULL) {
		tdat_event_print(ev, rec, r->o->mode, &r->line);
		return;
	}
	tdat_event_print_avail(ev, &x, need, r->o->mode, &r->line);
}

/* v in decimal, at least width characters with fill before it, written
 * backwards to end at p: the start. */
static char *
fmt_digits(char *p, unsigned long long v, int width, char fill)
{
	char *end = p;

	p = tdat_udec_digits(p, v);
	while (end - p < width)
		*--p = fill;
	return p;
}

static void
put_digits(struct tdat_sbuf *l, unsigned long long v, int width, char fill)
{
	char buf[24], *p = fmt_digits(buf + sizeof(buf), v, width, fill);

	sb_add(l, p, (size_t)(buf + sizeof(buf) - p));
}

/* "%09u" of v < 10^9, written backwards to end at p: the start. */
static char *
nine_digits(char *p, uint32_t v)
{
	uint32_t lo = v % 10000, hi = v / 10000 % 10000;

	memcpy(p - 2, tdat_dec2 + 2 * (lo % 100), 2);
	memcpy(p - 4, tdat_dec2 + 2 * (lo / 100), 2);
	memcpy(p - 6, tdat_dec2 + 2 * (hi % 100), 2);
	memcpy(p - 8, tdat_dec2 + 2 * (hi / 100), 2);
	p[-9] = (char)('0' + v / 100000000);
	return p - 9;
}

/* v in decimal right-justified in width with fill, written at p;
 * returns the end. */
static char *
rj_digits(char *p, unsigned long long v, int width, char fill)
{
	int n = tdat_udec_len(v);

	for (; width > n; width--)
		*p++ = fill;
	tdat_udec_digits(p + n, v);
	return p + n;
}

/* " %5llu." of secs at p, made once for each second; returns the end. */
static char *
secs_text(struct report *r, char *p, uint64_t secs)
{
	char *q;

	if (r->secs_len == 0 || r->secs != secs) {
		q = r->secs_text;
		*q++ = ' ';
		q = rj_digits(q, secs, 5, ' ');
		*q++ = '.';
		r->secs = secs;
		r->secs_ns = secs * 1000000000;
		r->secs_len = (size_t)(q - r->secs_text);
	}
	memcpy(p, r->secs_text, sizeof(r->secs_text));
	return p + r->secs_len;
}

/* " %5llu.%09llu:" (nanoseconds) or " %5llu.%06llu:" (microseconds),
 * or "%12llu:" for a clock that counts cycles, written at p (48 bytes of
 * room); returns the end. */
static char *
time_text(struct report *r, char *p, uint64_t ts)
{
	uint64_t ns = ts - r->secs_ns;
	uint32_t us;

	if (!r->usecs) {
		p = rj_digits(p, ts, 12, ' ');
	} else if (r->o->ns) {
		/* within the second printed last: no division */
		if (r->secs_len == 0 || ns >= 1000000000) {
			secs_text(r, p, ts / 1000000000);
			ns = ts - r->secs_ns;
		}
		memcpy(p, r->secs_text, sizeof(r->secs_text));
		nine_digits(p + r->secs_len + 9, (uint32_t)ns);
		r->tpre_len = r->secs_len + 5;
		r->tbase = ts - (uint32_t)ns % 10000;
		memcpy(r->tpre, p, sizeof(r->tpre));
		p += r->secs_len + 9;
	} else {
		ts = (ts + 500) / 1000;
		p = secs_text(r, p, ts / 1000000);
		us = (uint32_t)(ts % 1000000);
		memcpy(p, tdat_dec2 + 2 * (us / 10000), 2);
		memcpy(p + 2, tdat_dec2 + 2 * (us / 100 % 100), 2);
		memcpy(p + 4, tdat_dec2 + 2 * (us % 100), 2);
		p += 6;
	}
	*p++ = ':';
	return p;
}

/* time_text() of a nanosecond time within 10 us of the one it printed
 * last: that text, four digits new.  NULL: not one. */
static inline char *
time_near(const struct report *r, char *p, uint64_t ts)
{
	uint32_t lo = (uint32_t)(ts - r->tbase);

	if (ts - r->tbase >= 10000 || !r->usecs || !r->tpre_len)
		return NULL;
	memcpy(p, r->tpre, sizeof(r->tpre));
	p += r->tpre_len;
	memcpy(p, tdat_dec2 + 2 * (lo / 100), 2);
	memcpy(p + 2, tdat_dec2 + 2 * (lo % 100), 2);
	p[4] = ':';
	return p + 5;
}

/* time_text() in place when the line has room. */
static void
put_time(struct report *r, uint64_t ts)
{
	struct tdat_sbuf *l = &r->line;
	char buf[48], *end;

	if (l->cap - l->len > sizeof(buf)) {
		if ((end = time_near(r, l->p + l->len, ts)) == NULL)
			end = time_text(r, l->p + l->len, ts);
		l->len = (size_t)(end - l->p);
		l->p[l->len] = '\0';
		return;
	}
	end = time_text(r, buf, ts);
	sb_add(l, buf, (size_t)(end - buf));
}

static void
put_name(struct report *r, const char *name)
{
	static const char spaces[] = "                    ";
	size_t n = strlen(name);

	sb_putc(&r->line, ' ');
	sb_add(&r->line, name, n);
	sb_add(&r->line, ": ", 2);
	if (n < 20)
		sb_add(&r->line, spaces, 20 - n);
}

/* put_name() of an event, made once for each of the last few events. */
static void
put_event_name(struct report *r, const struct tdat_event *ev)
{
	struct evname *c = &r->names[((uintptr_t)ev >> 4) % NAMES];
	size_t n;

	if (c->ev != ev) {
		n = strlen(ev->name);
		if (n + 3 > sizeof(c->text) - SB_SHORT) {
			put_name(r, ev->name);
			return;
		}
		memset(c->text, ' ', sizeof(c->text));
		memcpy(c->text + 1, ev->name, n);
		memcpy(c->text + 1 + n, ": ", 2);
		c->len = n < 20 ? 23 : n + 3;
		c->ev = ev;
	}
	sb_add_short(&r->line, c->text, c->len);
}

/* Whether the text the event of entry c (find_evid() of the record
 * just printed) printed can hold no NUL: once it can't, it never can
 * (the print steps stay; a failure that changes them is a bprint's,
 * never free). */
static int
nul_free(struct report *r, struct evid *c)
{
	if (!c->nul_free)
		c->nul_free = tdat_event_nul_free(c->ev, r->o->mode);
	return c->nul_free;
}

/* find_event() of an id not among the last few: its entry c made. */
static void
find_event_new(struct report *r, struct evid *c, int id)
{
	unsigned all = 0;	/* every field's flags */
	int i;

	c->ev = tdat_events_find(r->ev, id);
	c->set = r->ev;
	c->id = id;
	c->nul_free = 0;
	c->quick = 0;
	c->span = c->ev ? tdat_event_span(c->ev) : 0;
	c->pid4 = c->ev && c->ev->pid && c->ev->pid->offset == 4 &&
	    c->ev->pid->size == 4;
	c->own = c->ev && tdat_event_own(c->ev, r->o->mode);
	for (i = 0; c->ev && i < c->ev->nfields; i++)
		all |= (unsigned)c->ev->fields[i].flags;
	c->dyn = (all & TDAT_FLD_RELATIVE) ? 2 :
	    (all & TDAT_FLD_DYNAMIC) ? 1 : 0;
	c->str = (all & (TDAT_FLD_STRING | TDAT_FLD_ARRAY |
	    TDAT_FLD_DYNAMIC | TDAT_FLD_RELATIVE)) != 0;
}

/* tdat_events_find() for the last few ids: the id's entry. */
static inline struct evid *
find_evid(struct report *r, int id)
{
	struct evid *c = &r->ids[(unsigned)id % NAMES];

	if (c->set != r->ev || c->id != id)
		find_event_new(r, c, id);
	return c;
}

static inline const struct tdat_event *
find_event(struct report *r, int id)
{
	return find_evid(r, id)->ev;
}

/* A field of the common header: at off in size bytes. */
static int
at(const struct tdat_field *f, int off, int size)
{
	return f != NULL && f->offset == off && f->size == size;
}

/* Whether an input's records start with the usual common header, read
 * by hdr_read(). */
static int
hdr8_ok(const struct rin *in)
{
	const struct tdat_events *set = in->ev;

	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ || set->big ||
	    set->nev == 0 || set->ev[0]->ncommon == 0)
		return 0;
	return at(&set->ev[0]->common[0], 0, 2) && at(in->flags, 2, 1) &&
	    at(in->pc, 3, 1);
}

/* A record's first 8 bytes, in h, when its input has the usual common
 * header (hdr8) and the record holds them: 1; else 0. */
static inline int
hdr_read(const struct rin *in, const struct tdat_record *rec, uint64_t *h)
{
	if (!in->hdr8 || rec->size < 8)
		return 0;
	memcpy(h, rec->data, 8);
	return 1;
}

/* The record's event id. */
static inline int
rec_id(const struct report *r, const struct tdat_record *rec, int fast,
    uint64_t h)
{
	if (fast)
		return (int)(h & 0xffff);
	if (r->ev->nev && rec->size >= 2)
		return (int)tdat_read_num_at(r->ev, rec->data,
		    r->ev->ev[0]->ncommon ? r->ev->ev[0]->common[0].size : 2);
	return 0;
}

/* "%16s-%-5d [%03d]" */
static void
put_task(struct report *r, const char *comm, int pid, int cpu)
{
	struct tdat_sbuf *l = &r->line;
	char buf[64], num[16], *p, *q;
	size_t n = strlen(comm), k;

	if (n <= 16 && pid >= 0 && cpu >= 0 && cpu < 1000) {
		/* the common case in one piece */
		memset(buf, ' ', 16);
		memcpy(buf + 16 - n, comm, n);
		buf[16] = '-';
		p = fmt_digits(num + sizeof(num), (unsigned)pid, 0, ' ');
		k = (size_t)(num + sizeof(num) - p);
		memcpy(buf + 17, p, k);
		q = buf + 17 + k;
		while (k++ < 5)
			*q++ = ' ';
		*q++ = ' ';
		*q++ = '[';
		q[0] = (char)('0' + cpu / 100);
		q[1] = (char)('0' + cpu / 10 % 10);
		q[2] = (char)('0' + cpu % 10);
		q[3] = ']';
		sb_add(l, buf, (size_t)(q + 4 - buf));
		return;
	}
	tdat_put_pad(l, comm, n, 16, 0);
	sb_putc(l, '-');
	if (pid >= 0) {
		p = fmt_digits(num + sizeof(num), (unsigned)pid, 0, ' ');
		tdat_put_pad(l, p, (size_t)(num + sizeof(num) - p), 5, 1);
	} else {
		k = (size_t)snprintf(num, sizeof(num), "%d", pid);
		tdat_put_pad(l, num, k, 5, 1);
	}
	sb_add(l, " [", 2);
	if (cpu >= 0)
		put_digits(l, (unsigned)cpu, 3, '0');
	else
		tdat_sb_printf(l, "%03d", cpu);
	sb_putc(l, ']');
}

/* -l: "%8.8s-%-5d %3d" */
static void
put_task_lat(struct report *r, const char *comm, int pid, int cpu)
{
	tdat_sb_printf(&r->line, "%8.8s-%-5d %3d", comm, pid, cpu);
}

/* put_task() for the last few tasks and CPUs: their comm strings stay
 * where they are while the set lives. */
static void
put_task_kept(struct report *r, const char *comm, int pid, int cpu)
{
	struct task *c = &r->tasks[((unsigned)pid * 4 + (unsigned)cpu) %
	    NAMES];
	size_t start = r->line.len, n;

	if (c->comm == comm && c->pid == pid && c->cpu == cpu) {
		sb_add_short(&r->line, c->text, c->len);
		return;
	}
	put_task(r, comm, pid, cpu);
	n = r->line.len - start;
	c->comm = NULL;
	if (r->line.oom || n > SB_SHORT)
		return;
	memcpy(c->text, r->line.p + start, n);
	c->len = n;
	c->comm = comm;
	c->pid = pid;
	c->cpu = cpu;
}

/* A common field of the first event of a set, as libtraceevent's
 * get_common_info() finds it. */
static const struct tdat_field *
first_common(const struct tdat_events *set, const char *name)
{
	const struct tdat_event *ev;
	int i;

	if (set->nev == 0)
		return NULL;
	ev = set->ev[0];
	for (i = 0; i < ev->ncommon; i++)
		if (strcmp(ev->common[i].name, name) == 0)
			return &ev->common[i];
	return NULL;
}

/* tep_read_number() of a common field: -1 when the event lacks it. */
static long long
common_num(const struct tdat_events *set, const struct tdat_field *f,
    const struct tdat_record *rec)
{
	unsigned long long v = 0;

	if (f == NULL)
		return -1;
	if ((uint32_t)f->offset + (uint32_t)f->size <= rec->size)
		v = tdat_read_num_at(set, rec->data + f->offset, f->size);
	return (int)v;
}

/* "%x" of v, at p; returns the end. */
static char *
put_hex_digits(char *p, unsigned v)
{
	char tmp[8], *q = tmp + sizeof(tmp);

	do
		*--q = "0123456789abcdef"[v & 0xf];
	while ((v >>= 4) != 0);
	memcpy(p, q, (size_t)(tmp + sizeof(tmp) - q));
	return p + (tmp + sizeof(tmp) - q);
}

/* "%d" of v, at p; returns the end. */
static char *
put_int(char *p, long long v)
{
	char tmp[24], *q = tmp + sizeof(tmp);
	unsigned long long u = v < 0 ? 0 - (unsigned long long)v :
	    (unsigned long long)v;

	q = tdat_udec_digits(q, u);
	if (v < 0)
		*--q = '-';
	memcpy(p, q, (size_t)(tmp + sizeof(tmp) - q));
	return p + (tmp + sizeof(tmp) - q);
}

/* put_latency()'s irqs-off, need-resched and hardirq/softirq columns for
 * each value of the flag bits 0x01-0x10. */
static void
lat_flags_make(struct report *r)
{
	int flags, hard, soft;
	char *p;

	for (flags = 0; flags < 32; flags++) {
		p = r->latf[flags];
		hard = (flags & 0x08) != 0;
		soft = (flags & 0x10) != 0;
		if (r->o->tc == TDAT_TC_34) {	/* 0x02: lazy, no more
						 * "no irqs" */
			*p++ = (flags & 0x01) ? 'd' : '.';
			*p++ = (flags & 0x04) ? 'N' : (flags & 0x02) ? 'L' :
			    '.';
		} else {
			*p++ = (flags & 0x01) ? 'd' : (flags & 0x02) ? 'X' :
			    '.';
			*p++ = (flags & 0x04) ? 'N' : '.';
		}
		*p++ = hard && soft ? 'H' : hard ? 'h' : soft ? 's' : '.';
		*p = '\0';
	}
	r->latf_ok = 1;
}

/*
 * libtraceevent's latency column (trace-cmd 3.3 and 3.4 print it after
 * the CPU): irqs-off ('d', 'X' where the kernel cannot tell), need-resched
 * ('N'), hardirq/softirq ('h', 's', 'H' both), the preempt depth and the
 * migrate-disable depth in hex or '.', then common_migrate_disable and
 * common_lock_depth where the kernel has them.  libtraceevent 1.9 adds
 * the lazy need-resched ('L').  lead: a blank before it.
 */
static void
put_latency(struct report *r, const struct tdat_record *rec, int lead,
    int fast, uint64_t h)
{
	const struct tdat_events *set = r->ev;
	struct rin *in = r->cur;
	struct report *g = r->top ? r->top : r;
	char buf[SB_SHORT > 80 ? SB_SHORT : 80], *p = buf;
	struct tdat_sbuf *l = &r->line;
	int inplace = l->cap - l->len > sizeof(buf);	/* room: write there */
	long long flags, pc, ld = 0, md = 0;

	if (fast) {
		flags = (long long)(h >> 16 & 0xff);
		pc = (long long)(h >> 24 & 0xff);
	} else {
		flags = common_num(set, in->flags, rec);
		pc = common_num(set, in->pc, rec);
	}
	if (g->ld_seen > 0)
		ld = common_num(set, in->ld, rec);
	else if (g->ld_seen == 0) {
		ld = common_num(set, in->ld, rec);
		g->ld_seen = ld < 0 ? -1 : 1;
	}
	if (g->md_seen > 0)
		md = common_num(set, in->md, rec);
	else if (g->md_seen == 0) {
		md = common_num(set, in->md, rec);
		g->md_seen = md < 0 ? -1 : 1;
	}
	if (inplace)
		p = l->p + l->len;
	if (lead)
		*p++ = ' ';
	if (!r->latf_ok)
		lat_flags_make(r);
	memcpy(p, r->latf[flags & 0x1f], 4);
	p += 3;
	if (pc >= 0 && pc <= 0xff) {	/* the common case: one digit each */
		p[0] = ".123456789abcdef"[pc & 0xf];
		p[1] = ".123456789abcdef"[pc >> 4];
		p += 2;
	} else {
		if (pc & 0xf)
			p = put_hex_digits(p, (unsigned)(pc & 0xf));
		else
			*p++ = '.';
		if (pc & 0xf0)
			p = put_hex_digits(p, (unsigned)pc >> 4);
		else
			*p++ = '.';
	}
	if (g->md_seen > 0) {
		if (md < 0)
			*p++ = '.';
		else
			p = put_int(p, (int)md);
	}
	if (g->ld_seen > 0) {
		if (ld < 0)
			*p++ = '.';
		else
			p = put_int(p, (int)ld);
	}
	if (!inplace) {
		sb_add(l, buf, (size_t)(p - buf));
		return;
	}
	l->len = (size_t)(p - l->p);
	l->p[l->len] = '\0';
}

/* -R's flags after the CPU: "-0x%x". */
static void
put_raw_flags(struct report *r, const struct tdat_record *rec)
{
	char buf[SB_SHORT], *p = buf;

	*p++ = '-';
	*p++ = '0';
	*p++ = 'x';
	p = put_hex_digits(p, (unsigned)common_num(r->ev, r->cur->flags, rec));
	sb_add_short(&r->line, buf, (size_t)(p - buf));
}

/* The bytes put_head_fast() writes at most: the task and the name in
 * SB_SHORT bytes each (what is kept of them is no longer), the latency
 * column, time_text()'s 48. */
#define HEAD_ROOM	(2 * SB_SHORT + 8 + 48)

/*
 * report_record()'s columns before the event's text, written at once
 * when each piece is kept from a record before: the task (put_task_kept()),
 * the latency column of the header's flags and preempt count alone
 * (put_latency(): no lock depth or migrate-disable column), the time and
 * the event's name (put_event_name()).  0: not taken, nothing written.
 * The kept texts are copied SB_SHORT bytes at a time, as sb_add_short()
 * does: copying their whole arrays (64 bytes) took ~50% more CPU time
 * here with fewer instructions.
 */
static int
put_head_fast(struct report *r, const struct tdat_record *rec, uint64_t h,
    const struct tdat_event *ev, int pid)
{
	static const char hex[] = ".123456789abcdef";
	struct tdat_sbuf *l = &r->line;
	const char *comm = tdat_events_comm_in(r->ev, pid);
	const struct task *t = &r->tasks[((unsigned)pid * 4 +
	    (unsigned)rec->cpu) % NAMES];
	const struct evname *c = &r->names[((uintptr_t)ev >> 4) % NAMES];
	const struct report *g = r->top ? r->top : r;
	unsigned pc = (unsigned)(h >> 24 & 0xff);
	char *p, *t2;

	if (l->cap - l->len <= HEAD_ROOM || t->comm != comm ||
	    t->pid != pid || t->cpu != rec->cpu || c->ev != ev ||
	    g->ld_seen >= 0 || g->md_seen >= 0 || !r->latf_ok)
		return 0;
	p = l->p + l->len;
	memcpy(p, t->text, SB_SHORT);
	p += t->len;
	*p++ = ' ';
	memcpy(p, r->latf[h >> 16 & 0x1f], 4);
	p[3] = hex[pc & 0xf];
	p[4] = hex[pc >> 4];
	if ((t2 = time_near(r, p + 5, rec->ts)) == NULL)
		t2 = time_text(r, p + 5, rec->ts);
	p = t2;
	memcpy(p, c->text, SB_SHORT);
	p += c->len;
	*p = '\0';
	l->len = (size_t)(p - l->p);
	return 1;
}

/* Whether report_quick() may print this report's lines from now on.
 * The look for the lock depth and migrate-disable columns is made in the
 * first record (put_latency()): until then, not known. */
static int
quick_ok(struct report *r)
{
	const struct report *g = r->top ? r->top : r;

	if (!r->fast_head || r->instances || r->multi || r->nin != 1 ||
	    !r->in[0].hdr8 || g->ld_seen > 0 || g->md_seen > 0)
		r->quick = -1;
	else if (g->ld_seen < 0 && g->md_seen < 0 && r->latf_ok)
		r->quick = 1;
	return r->quick > 0;
}

/* A record of event c printed by report_record() its slow way: whether
 * the next ones may take report_quick() (its checks made once here). */
static void
quick_note(struct report *r, struct evid *c)
{
	const struct evname *n = &r->names[((uintptr_t)c->ev >> 4) % NAMES];

	if (!c->pid4 || !c->own || !c->nul_free || n->ev != c->ev ||
	    n->len > SB_SHORT)
		return;
	memcpy(c->name, n->text, SB_SHORT);
	c->nlen = n->len;
	c->quick = 1;
}

/*
 * report_record() of the common record in one pass, when quick_ok() and
 * its event's quick_note() said so: the usual common header, the task
 * kept (put_task_kept()), the event's own print, no NUL to look for.
 * 0: not taken, nothing written.  The checks report_record() makes for
 * each record are made once per event and report there.
 */
static int
report_quick(struct report *r, const struct tdat_record *rec)
{
	static const char hex[] = ".123456789abcdef";
	struct tdat_sbuf *l = &r->line;
	size_t start = l->len;
	const struct evid *c;
	const struct task *t;
	const char *comm;
	unsigned pc;
	uint64_t h;
	char *p, *e;
	int pid;

	if (rec->size < 8 || rec->missed || l->cap - l->len <= HEAD_ROOM)
		return 0;
	memcpy(&h, rec->data, 8);
	c = find_evid(r, (int)(h & 0xffff));
	pid = (int)(uint32_t)(h >> 32);
	comm = tdat_events_comm_in(r->ev, pid);
	t = &r->tasks[((unsigned)pid * 4 + (unsigned)rec->cpu) % NAMES];
	if (!c->quick || c->span > rec->size || t->comm != comm ||
	    t->pid != pid || t->cpu != rec->cpu)
		return 0;
	tdat_sb_limit(l, start + TDAT_TEXT_MAX + 1);
	p = l->p + l->len;
	memcpy(p, t->text, SB_SHORT);
	p += t->len;
	*p++ = ' ';
	memcpy(p, r->latf[h >> 16 & 0x1f], 4);
	pc = (unsigned)(h >> 24 & 0xff);
	p[3] = hex[pc & 0xf];
	p[4] = hex[pc >> 4];
	if ((e = time_near(r, p + 5, rec->ts)) == NULL)
		e = time_text(r, p + 5, rec->ts);
	p = e;
	memcpy(p, c->name, SB_SHORT);
	p += c->nlen;
	*p = '\0';
	l->len = (size_t)(p - l->p);
	tdat_event_print_own(c->ev, rec, l);
	if (l->len - start >= TDAT_TEXT_MAX)
		l->full = 1;	/* refused, whatever the buffer held before */
	if (l->p[l->len - 1] == '\n')
		l->len--;
	sb_putc(l, '\n');
	return 1;
}

static int
report_record(struct report *r, const struct tdat_record *rec)
{
	const struct tdat_event *ev;
	struct evid *c;
	struct tdat_sbuf *l = &r->line;
	size_t start = l->len;
	size_t info = start;	/* from there a NUL may come ("%c") */
	const char *nul;
	uint64_t h = 0;
	int fast, id, pid = 0;

	if ((r->quick > 0 || (r->quick == 0 && quick_ok(r))) &&
	    report_quick(r, rec))
		goto written;
	fast = hdr_read(r->cur, rec, &h);
	/* Each record's text has TDAT_TEXT_MAX, wherever it starts. */
	tdat_sb_limit(l, start + TDAT_TEXT_MAX + 1);
	if (r->instances || r->multi) {
		const char *bn = r->f->buf[rec->buffer].name;

		if (r->multi && rec->buffer == 0)
			bn = r->in[r->look.k].name;
		if (bn[0])
			tdat_sb_printf(l, "%*s: ", r->prefix, bn);
		else
			tdat_sb_printf(l, "%*s  ", r->prefix, "");
	}
	if (rec->missed) {
		if (rec->missed_count > 0)
			tdat_sb_printf(l, "CPU:%d [%lld EVENTS DROPPED]\n",
			    rec->cpu, rec->missed_count);
		else if (rec->missed_count < 0)
			tdat_sb_printf(l, "CPU:%d [EVENTS DROPPED]\n",
			    rec->cpu);
	}
	id = rec_id(r, rec, fast, h);
	c = find_evid(r, id);
	if ((ev = c->ev) == NULL) {
		/* trace-cmd: no task, no time, "(NULL)" for the name;
		 * -R's flags are there */
		tdat_sb_puts(l, "[UNKNOWN EVENT]");
		if (r->o->mode == TDAT_PRINT_RAW && (r->o->tc || r->o->lat))
			put_raw_flags(r, rec);
		else if (r->o->tc || r->o->lat)
			tdat_sb_puts(l, "[UNKNOWN EVENT]");
		tdat_sb_puts(l, "[UNKNOWN EVENT]");
		put_name(r, "(NULL)");
		tdat_sb_puts(l, "[UNKNOWN EVENT]");
		goto done;
	}
	if (fast && c->pid4)
		pid = (int)(uint32_t)(h >> 32);
	else
		pid = (int)tdat_field_read_at(ev, ev->pid, rec->data,
		    rec->size);
	if (fast && r->fast_head && put_head_fast(r, rec, h, ev, pid))
		goto info;
	if (r->o->lat)
		put_task_lat(r, tdat_events_comm(r->ev, pid), pid, rec->cpu);
	else
		put_task_kept(r, tdat_events_comm_in(r->ev, pid), pid,
		    rec->cpu);
	if (r->o->mode == TDAT_PRINT_RAW && (r->o->tc || r->o->lat))
		put_raw_flags(r, rec);
	else if (r->o->tc || r->o->lat)
		put_latency(r, rec, !r->o->lat, fast, h);
	put_time(r, rec->ts);
	put_event_name(r, ev);
info:
	info = l->len;
	if (c->own && c->span <= rec->size)
		tdat_event_print_own(ev, rec, l);
	else
		print_info(r, ev, rec);
done:
	if (l->len - start >= TDAT_TEXT_MAX)
		l->full = 1;	/* refused, whatever the buffer held before */
	if (l->len > start && l->p[l->len - 1] == '\n')
		l->len--;
	/* trace-cmd prints the line with "%.*s": a NUL (from "%c") ends it */
	if (info > l->len)
		info = start;
	else if (ev != NULL && nul_free(r, c)) {
		info = l->len;	/* nothing to look for */
		if (!c->quick && fast)
			quick_note(r, c);
	}
	if (l->len > info && (nul = memchr(l->p + info, '\0', l->len -
	    info)) != NULL)
		l->len = (size_t)(nul - l->p);
	sb_putc(l, '\n');
written:
	if (l->full) {		/* the lines before this one, then the error */
		l->len = start;
		if (r->out != NULL) {
			fwrite(l->p, 1, start, r->out);
			tdat_sb_reset(l);
		}
		return -2;
	}
	if (l->oom)
		return -1;
	/* Written in pieces of four times stdio's buffer, each with one
	 * write(2) and no copy into stdio's (tdat_fwrite_big()). */
	if (l->len >= LINE_FLUSH && r->out != NULL) {
		tdat_fwrite_big(l->p, l->len, r->out);
		tdat_sb_reset(l);
	}
	return 0;
}

static int
clock_counts_time(const struct tdat_file *f)
{
	static const char *tclocks[] = { "local", "global", "uptime", "perf",
	    "mono", "mono_raw", "boot", NULL };
	const char *c = f->trace_clock;
	size_t k;
	int i;

	for (k = 0; k < f->nopt; k++)
		if (f->opt[k].id == TDAT_OPT_TSC2NSEC)
			return 1;
	if (c == NULL || *c == '\0')
		return 1;
	for (i = 0; tclocks[i]; i++)
		if (strcmp(c, tclocks[i]) == 0)
			return 1;
	return 0;
}

/* The widest name: the base names of the inputs and the names of the
 * instances of the first upto inputs (trace-cmd report adds those as it
 * prints each input's cpus line). */
static int
name_width(const struct report *r, size_t upto)
{
	size_t k, b;
	int w = 0, n;

	for (k = 0; k < r->nin; k++) {
		n = r->multi ? (int)strlen(r->in[k].name) : 0;
		if (n > w)
			w = n;
		for (b = 1; k < upto && b < r->in[k].f->nbuf; b++)
			if ((n = (int)strlen(r->in[k].f->buf[b].name)) > w)
				w = n;
	}
	return w;
}

static const char *
base_name(const char *path)
{
	const char *p = strrchr(path, '/');

	return p ? p + 1 : path;
}

/* ------------------------------------------------------------------ */
/* Host and guests: the kvm plugin names a guest address with the guest's
 * symbols, from the vCPU whose host task saw it.  The first input is the
 * host; its GUEST options map each guest's trace id to the host tasks
 * of its vCPUs (the last option of a trace id holds). */

static int
vcpu_cmp(const void *a, const void *b)
{
	const struct vcpu *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->in < y->in ? -1 : x->in > y->in;
}

static const char *
guest_sym(void *arg, int pid, unsigned long long addr,
    unsigned long long *start)
{
	struct report *r = arg;
	size_t lo = 0, hi = r->nvcpu, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (r->vcpu[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->nvcpu || r->vcpu[lo].pid != pid)
		return NULL;
	return tdat_events_sym(r->in[r->vcpu[lo].in].ev, addr, start);
}

/* The GUEST option of the host naming trace id id, or NULL. */
static const struct tdat_guest *
find_guest(const struct tdat_file *host, const struct tdat_optval *ov,
    uint64_t id)
{
	const struct tdat_guest *g;
	size_t i;
	uint32_t c;

	for (i = host->nopt; i-- > 0;) {
		if (ov[i].id != TDAT_OPT_GUEST)
			continue;
		g = &ov[i].u.guest;
		if (!g->has_id || !g->has_ncpu || g->nread != g->ncpu)
			continue;	/* trace-cmd drops it */
		for (c = 0; c < g->nread; c++)
			if (g->cpu[c].cpu < 0 || (uint32_t)g->cpu[c].cpu >=
			    g->ncpu)
				break;
		if (c < g->nread)
			continue;
		if (g->trace_id == id)
			return g;
	}
	return NULL;
}

static uint64_t
trace_id(struct tdat_file *f)
{
	const struct tdat_optval *ov;
	struct tdat_err e;
	size_t i;

	if (tdat_options(f, &ov, &e) < 0)
		return 0;
	for (i = 0; i < f->nopt; i++)
		if (ov[i].id == TDAT_OPT_TRACEID && ov[i].u.num.width == 8)
			return ov[i].u.num.value;
	return 0;
}

static int
map_vcpus(struct report *r, struct tdat_err *e)
{
	const struct tdat_optval *ov;
	const struct tdat_guest *g;
	struct vcpu *v;
	size_t k;
	uint32_t c;
	int rc;

	if ((rc = tdat_options(r->in[0].f, &ov, e)) < 0)
		return rc;
	for (k = 1; k < r->nin; k++) {
		if ((g = find_guest(r->in[0].f, ov, trace_id(r->in[k].f))) ==
		    NULL || g->ncpu == 0)
			continue;
		if ((v = realloc(r->vcpu, (r->nvcpu + g->ncpu) *
		    sizeof(*v))) == NULL)
			return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		r->vcpu = v;
		v += r->nvcpu;
		for (c = 0; c < g->ncpu; c++) {
			v[c].pid = 0;	/* a vCPU the option skips */
			v[c].in = k;
		}
		for (c = 0; c < g->nread; c++)
			v[g->cpu[c].cpu].pid = g->cpu[c].host_pid;
		r->nvcpu += g->ncpu;
	}
	if (r->nvcpu == 0)
		return 0;
	qsort(r->vcpu, r->nvcpu, sizeof(*r->vcpu), vcpu_cmp);
	r->in[0].ev->guest_sym = guest_sym;
	r->in[0].ev->guest_arg = r;
	return 0;
}

/* An input's events, as this report prints them. */
static int
load_input(struct report *r, struct rin *in, struct tdat_err *e)
{
	int rc, plugins = r->o->mode == TDAT_PRINT_PLUGINS;

	if ((rc = tdat_events_load_mode(in->f, plugins, &in->ev, e)) < 0)
		return rc;
	in->ev->tc = r->o->tc;
	in->ev->tc_chosen = 1;
	in->ev->fgraph = r->o->fgraph;
	tdat_events_finish(in->ev, plugins);
	in->flags = first_common(in->ev, "common_flags");
	in->pc = first_common(in->ev, "common_preempt_count");
	in->ld = first_common(in->ev, "common_lock_depth");
	/* libtraceevent keeps its place where it keeps the lock depth's:
	 * found first, that one serves both */
	in->md = in->ld ? in->ld :
	    first_common(in->ev, "common_migrate_disable");
	in->hdr8 = hdr8_ok(in);
	in->ev->repeat_ts = !in->usecs ? TDAT_RTS_CYCLES : r->o->ns ?
	    TDAT_RTS_NSEC : TDAT_RTS_USEC;
	return 0;
}

static int
report_begin(void *arg, struct tdat_file *const *files, size_t n,
    struct tdat_run *run, struct tdat_err *e)
{
	struct report *r = arg;
	struct rin *in;
	size_t k;
	int bi, rc, plugins = r->o->mode == TDAT_PRINT_PLUGINS;

	r->look.run = run;
	r->fast_head = !r->o->lat && r->o->tc && r->o->mode != TDAT_PRINT_RAW;
	r->nin = n;
	r->multi = n > 1;
	if ((r->in = calloc(n ? n : 1, sizeof(*r->in))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	for (k = 0; k < n; k++) {
		r->in[k].f = files[k];
		r->in[k].name = base_name(tdat_file_path(files[k]));
		r->in[k].usecs = clock_counts_time(files[k]);
	}
	for (k = 0; k < n; k++) {
		in = &r->in[k];
		r->f = in->f;
		if (r->multi)
			fprintf(r->out, "%*s: ", name_width(r, k), in->name);
		fprintf(r->out, "cpus=%u\n", in->f->ncpus);
		if ((bi = tdat_latency_top(in->f)) >= 0) {
			if (r->multi)
				return tdat_fail_nooff(e, TDAT_EUSAGE, "%s: "
				    "latency traces do not work with several "
				    "inputs", tdat_file_path(in->f));
			if ((rc = report_latency(r, bi, e)) < 0)
				return rc;
			return TDAT_RUN_NO_RECORDS;
		}
		if ((rc = load_input(r, in, e)) < 0) {
			if (r->multi)
				tdat_err_name(e, tdat_file_path(in->f));
			return rc;
		}
	}
	r->prefix = name_width(r, n);
	r->instances = n == 1 && files[0]->nbuf > 1;
	if (r->multi && plugins && (rc = map_vcpus(r, e)) < 0)
		return rc;
	r->par_ok = r->nvcpu == 0;
	for (k = 0; k < n && plugins; k++)
		if (tdat_events_stateful(r->in[k].ev))
			r->par_ok = 0;
	return TDAT_RUN_RECORDS;
}

static int
report_rec(void *arg, size_t k, const struct tdat_record *rec,
    struct tdat_err *e)
{
	struct report *r = arg;
	int rc;

	r->look.k = k;
	r->f = r->in[k].f;
	r->cur = &r->in[k];
	r->ev = r->in[k].ev;
	r->usecs = r->in[k].usecs;
	if ((rc = report_record(r, rec)) == -2)
		return tdat_fail(e, TDAT_ECORRUPT, rec->off, "CPU %d: the "
		    "event's text runs past %zu MiB: its record or print "
		    "format is damaged", rec->cpu, TDAT_TEXT_MAX >> 20);
	if (rc < 0)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	return 0;
}

static int
report_end(void *arg, int complete, struct tdat_err *e)
{
	struct report *r = arg;

	(void)complete;
	fwrite(r->line.p ? r->line.p : "", 1, r->line.len, r->out);
	tdat_sb_reset(&r->line);
	if (ferror(r->out))
		return tdat_fail_nooff(e, TDAT_EIO, "write error");
	return 0;
}

static void
report_free(void *arg)
{
	struct report *r = arg;
	size_t k;

	for (k = 0; k < r->nin; k++)
		tdat_events_free(r->in[k].ev);
	free(r->in);
	free(r->vcpu);
	free(r->look.cur);
	free(r->ext);
	tdat_sb_free(&r->line);
}

/* ------------------------------------------------------------------ */
/*
 * Printing on threads (lib/merge/par.c): each worker prints with a report
 * of its own, over event sets of its own (their caches, formats parsed
 * at first use and symbols are not shared), into its block's text.
 * libtraceevent's look for common_lock_depth and common_migrate_disable
 * in the first record printed is made in the driver's thread
 * (report_note).  A record whose print changes how later ones print
 * (libtraceevent's sticky states: a char array printed as bytes, a
 * trace_printk format that fails) is printed again in the driver's
 * thread, and every record after it (TDAT_PAR_REDO).  Printed in the
 * driver's thread, record by record from the start:
 * plugins that keep state across records (ftrace's function, whose
 * indent follows the callers seen per CPU, and function_graph, which
 * folds a leaf's return into its entry by looking ahead), a host with
 * guests (the kvm plugin names guest symbols from the guests' sets), and
 * latency-tracer files (text, no records).
 */

static void
report_fmt_free(void *arg)
{
	struct report *w = arg;
	size_t k;

	for (k = 0; w->in != NULL && k < w->nin; k++)
		tdat_events_free(w->in[k].ev);
	free(w->in);
	free(w->ext);
	free(w);
}

static int report_sticky(const struct report *);

static void *
report_fmt_new(void *arg, struct tdat_err *e)
{
	struct report *r = arg, *w;
	size_t k;

	/* sticky: the records printed in turn before (the threads started
	 * after them, lib/merge/run.c) changed how later ones print */
	if (!r->par_ok || report_sticky(r))
		return NULL;
	if ((w = calloc(1, sizeof(*w))) == NULL ||
	    (w->in = calloc(r->nin, sizeof(*w->in))) == NULL) {
		free(w);
		tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		return NULL;
	}
	w->top = r;
	w->o = r->o;
	w->fast_head = r->fast_head;
	w->nin = r->nin;
	w->multi = r->multi;
	w->prefix = r->prefix;
	w->instances = r->instances;
	for (k = 0; k < r->nin; k++) {
		w->in[k].f = r->in[k].f;
		w->in[k].name = r->in[k].name;
		w->in[k].usecs = r->in[k].usecs;
		if (load_input(w, &w->in[k], e) < 0) {
			report_fmt_free(w);
			return NULL;
		}
		tdat_events_share_syms(w->in[k].ev, r->in[k].ev);
	}
	return w;
}

/* A print of this worker changed how later records print (a sticky
 * state of libtraceevent's, event-int.h): what it prints from then on
 * may not be what one thread prints. */
static int
report_sticky(const struct report *w)
{
	size_t k;

	for (k = 0; k < w->nin; k++)
		if (w->in[k].ev->sticky)
			return 1;
	return 0;
}

static int
report_fmt(void *arg, size_t k, const struct tdat_record *rec,
    struct tdat_sbuf *out, struct tdat_err *e)
{
	struct report *w = arg;
	size_t start = out->len;
	int rc;

	if (report_sticky(w))
		return TDAT_PAR_REDO;
	w->line = *out;
	rc = report_rec(w, k, rec, e);
	tdat_sb_limit(&w->line, 0);
	if (rc == 0 && report_sticky(w)) {
		w->line.len = start;	/* printed in order by record() */
		rc = TDAT_PAR_REDO;
	}
	*out = w->line;
	return rc;
}

/*
 * The bytes of a record its print may read (c: its event's entry): its
 * fields (the span), and where a __data_loc field points (within the
 * record, or past it by as much for a __rel_loc) and 16 bytes more
 * (scsi's cdb); strings that run past that to their NUL are par.c's.
 */
static uint32_t
note_span(const struct evid *c, const struct tdat_record *rec)
{
	uint32_t n;

	if (c->str == 0 && c->span <= rec->size)
		return c->span | TDAT_PAR_EXACT;	/* no string runs on */
	if (c->dyn == 0)
		return c->span;
	n = rec->size * (uint32_t)c->dyn + 16;
	return n > c->span ? n : c->span;
}

/* The driver's thread, every record in turn: the first record's look
 * at the lock depth; how many bytes of the record print_info() reads. */
static uint32_t
report_note(void *arg, size_t k, const struct tdat_record *rec)
{
	struct report *r = arg;
	const struct tdat_event *ev;
	uint64_t h = 0;
	int fast, id;

	r->ev = r->in[k].ev;
	r->cur = &r->in[k];
	fast = hdr_read(r->cur, rec, &h);
	id = rec_id(r, rec, fast, h);
	if ((ev = find_event(r, id)) == NULL)
		return 0;
	if ((r->o->tc || r->o->lat) && r->o->mode != TDAT_PRINT_RAW) {
		if (r->ld_seen == 0)
			r->ld_seen = common_num(r->ev, r->cur->ld, rec) < 0 ?
			    -1 : 1;
		if (r->md_seen == 0)
			r->md_seen = common_num(r->ev, r->cur->md, rec) < 0 ?
			    -1 : 1;
	}
	return note_span(&r->ids[(unsigned)id % NAMES], rec);
}

static int
report_write(void *arg, const char *p, size_t n, struct tdat_err *e)
{
	struct report *r = arg;

	(void)e;
	if (r->line.len) {	/* the lines record() printed before */
		tdat_fwrite_big(r->line.p, r->line.len, r->out);
		tdat_sb_reset(&r->line);
	}
	tdat_fwrite_big(p, n, r->out);	/* a write error: report_end() */
	return 0;
}

static const struct tdat_sink_par report_par = {
	report_fmt_new, report_fmt, NULL, report_fmt_free, report_note,
	report_write
};

static const struct tdat_sink_ops report_ops = {
	TDAT_SINK_CPUS_TOP, report_begin, report_rec, report_end, report_free,
	&report_par
};

int
tdat_report_n(struct tdat_file *const *files, size_t n, FILE *out,
    const struct tdat_report_opts *o, struct tdat_err *e)
{
	struct report r;
	struct tdat_sink sink = { &report_ops, &r };

	memset(&r, 0, sizeof(r));
	r.out = out;
	r.o = o;
	tdat_sb_init(&r.line);
	return tdat_run(files, n, o->sel, &sink, NULL, NULL, e);
}

int
tdat_report(struct tdat_file *f, FILE *out, const struct tdat_report_opts *o,
    struct tdat_err *e)
{
	return tdat_report_n(&f, 1, out, o, e);
}
