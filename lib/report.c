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
#include "event-int.h"

/* One record read ahead, for plugins that peek. */
struct look {
	struct tdat_reader *rd;
	struct tdat_err *e;
	int have, rc;
	struct tdat_record rec;
	unsigned char *cur;	/* a copy of the record being printed */
	size_t curcap;
};

struct report {
	struct tdat_file *f;
	FILE *out;
	const struct tdat_report_opts *o;
	struct tdat_events *ev;
	struct tdat_sbuf line;
	int instances;		/* lines start with the buffer's name */
	int prefix;		/* the width of that column */
	int usecs;		/* the clock counts time (not cycles) */
	unsigned char *ext;	/* a short record and zeros after it */
	size_t extcap;
	struct look look;
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

	if (r->f->version < 7 || b->compressed || (r->f->page_ops != NULL &&
	    r->f->page_ops != &tdat_tracedat_pages))
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

	if (!k->have) {
		if (k->rc <= 0)
			return NULL;
		if ((k->rc = tdat_reader_next_all(k->rd, &k->rec, k->e)) <= 0)
			return NULL;
		k->have = 1;
	}
	return &k->rec;
}

static void
look_consume(void *arg)
{
	struct look *k = arg;

	k->have = 0;
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

static const char dig2[] =
    "00010203040506070809101112131415161718192021222324"
    "25262728293031323334353637383940414243444546474849"
    "50515253545556575859606162636465666768697071727374"
    "75767778798081828384858687888990919293949596979899";

/* v in decimal, at least width characters with fill before it, written
 * backwards to end at p: the start. */
static char *
fmt_digits(char *p, unsigned long long v, int width, char fill)
{
	char *end = p;

	while (v >= 100) {
		p -= 2;
		memcpy(p, dig2 + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, dig2 + 2 * v, 2);
	} else
		*--p = (char)('0' + v);
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

/* " %5llu.%09llu:" (nanoseconds) or " %5llu.%06llu:" (microseconds),
 * or "%12llu:" for a clock that counts cycles. */
static void
put_time(struct report *r, uint64_t ts)
{
	char buf[64], *end = buf + sizeof(buf), *p = end;

	*--p = ':';
	if (!r->usecs) {
		p = fmt_digits(p, ts, 12, ' ');
	} else {
		if (r->o->ns) {
			p = fmt_digits(p, ts % 1000000000, 9, '0');
			*--p = '.';
			p = fmt_digits(p, ts / 1000000000, 5, ' ');
		} else {
			ts = (ts + 500) / 1000;
			p = fmt_digits(p, ts % 1000000, 6, '0');
			*--p = '.';
			p = fmt_digits(p, ts / 1000000, 5, ' ');
		}
		*--p = ' ';
	}
	sb_add(&r->line, p, (size_t)(end - p));
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

static int
report_record(struct report *r, const struct tdat_record *rec)
{
	const struct tdat_event *ev;
	struct tdat_sbuf *l = &r->line;
	size_t start = l->len;
	const char *nul;
	int id = 0, pid = 0;

	if (r->instances) {
		const char *bn = r->f->buf[rec->buffer].name;

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
	if (r->ev->nev && rec->size >= 2)
		id = (int)tdat_read_num(r->ev, rec->data,
		    r->ev->ev[0]->ncommon ? r->ev->ev[0]->common[0].size : 2);
	ev = tdat_events_find(r->ev, id);
	if (ev == NULL) {
		/* trace-cmd: no task, no time, "(NULL)" for the name. */
		tdat_sb_puts(l, "[UNKNOWN EVENT][UNKNOWN EVENT]");
		put_name(r, "(NULL)");
		tdat_sb_puts(l, "[UNKNOWN EVENT]");
		goto done;
	}
	pid = (int)tdat_field_read(ev, ev->pid, rec->data, rec->size);
	put_task(r, tdat_events_comm(r->ev, pid), pid, rec->cpu);
	put_time(r, rec->ts);
	put_name(r, ev->name);
	print_info(r, ev, rec);
done:
	if (l->len > start && l->p[l->len - 1] == '\n')
		l->len--;
	/* trace-cmd prints the line with "%.*s": a NUL (from "%c") ends it */
	if (l->len > start && (nul = memchr(l->p + start, '\0', l->len -
	    start)) != NULL)
		l->len = (size_t)(nul - l->p);
	sb_putc(l, '\n');
	if (l->oom)
		return -1;
	/* Written in pieces of four times stdio's buffer (lib/output.c), of
	 * which stdio copies only the first and the tail. */
	if (l->len >= 4 * 65536) {
		fwrite(l->p, 1, l->len, r->out);
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

static int
report_records(struct report *r, struct tdat_err *e)
{
	struct tdat_reader_opts ro;
	struct tdat_reader *rd;
	struct tdat_record rec;
	size_t i;
	int rc, w;

	for (i = 1; i < r->f->nbuf; i++) {
		w = (int)strlen(r->f->buf[i].name);
		if (w > r->prefix)
			r->prefix = w;
	}
	r->instances = r->f->nbuf > 1;
	memset(&ro, 0, sizeof(ro));
	ro.sel = r->o->sel;
	/* With a CPU list trace-cmd reads only the top buffer's CPUs (its
	 * instances keep their column, but print nothing). */
	ro.buffer = ro.sel && tdat_select_options(ro.sel)->cpus &&
	    tdat_select_options(ro.sel)->buffer == NULL ? 0 : -1;
	if ((rc = tdat_reader_open(r->f, &ro, &rd, e)) < 0)
		return rc;
	r->look.rd = rd;
	r->look.e = e;
	r->look.rc = 1;
	for (;;) {
		if (r->look.have) {
			rec = r->look.rec;
			r->look.have = 0;
			rc = 1;
			if (!tdat_reader_keeps(rd, &rec))
				continue;
		} else if (r->look.rc <= 0)
			rc = r->look.rc;
		else
			rc = tdat_reader_next(rd, &rec, e);
		if (rc <= 0)
			break;
		if (report_record(r, &rec) < 0) {
			rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
			break;
		}
	}
	free(r->look.cur);
	fwrite(r->line.p ? r->line.p : "", 1, r->line.len, r->out);
	tdat_sb_reset(&r->line);
	tdat_reader_close(rd);
	return rc < 0 ? rc : 0;
}

int
tdat_report(struct tdat_file *f, FILE *out, const struct tdat_report_opts *o,
    struct tdat_err *e)
{
	struct report r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.f = f;
	r.out = out;
	r.o = o;
	r.usecs = clock_counts_time(f);
	tdat_sb_init(&r.line);
	fprintf(out, "cpus=%u\n", f->ncpus);
	if ((rc = tdat_latency_top(f)) >= 0) {
		rc = report_latency(&r, rc, e);
		goto done;
	}
	if ((rc = tdat_events_load_mode(f, o->mode == TDAT_PRINT_PLUGINS, &r.ev,
	    e)) < 0)
		goto done;
	tdat_events_finish(r.ev, o->mode == TDAT_PRINT_PLUGINS);
	r.ev->repeat_ts = !r.usecs ? TDAT_RTS_CYCLES : o->ns ? TDAT_RTS_NSEC :
	    TDAT_RTS_USEC;
	rc = report_records(&r, e);
done:
	tdat_events_free(r.ev);
	free(r.ext);
	tdat_sb_free(&r.line);
	if (rc == 0 && ferror(out))
		rc = tdat_fail_nooff(e, TDAT_EIO, "write error");
	return rc;
}
