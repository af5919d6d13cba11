/*
 * test_pages.c: the page iterator (lib/read/pages.c) over the trace.dat page
 * operations (formats/tracedat/tracedat.c) and over a page_ops backend of the
 * test's own: raw windows split into pages with the bytes readable after
 * each, compressed chunks, a damaged chunk followed by a good one, the
 * same through a page worker and with windows mapped, a fake format
 * whose three pages the record reader decodes, and the memory a walk of
 * a long chunk table and a reader of 64 CPUs hold.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdat-int.h"
#include "tdat-tracedat.h"
#include "tap.h"
#include "fixture.h"

#define ZSTD	"t/data/s390x-v7-zstd-sched.dat"	/* v7, zstd chunks */

/* ZSTD rewritten as v6 (raw pages, CPUs of several windows) into path. */
static int
make_raw(char *path)
{
	int fd;

	if ((fd = mkstemp(path)) < 0)
		return -1;
	return write_v6(ZSTD, fd);
}

/* FNV-1a of n bytes, on from h. */
static uint64_t
hash(uint64_t h, const unsigned char *p, size_t n)
{
	while (n-- > 0)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

/* Whether the file at path is mapped into this process. */
static int
mapped(const char *path)
{
	char line[4096], *nl;
	FILE *fp;
	int found = 0;

	if ((fp = fopen("/proc/self/maps", "r")) == NULL)
		return 0;
	while (!found && fgets(line, sizeof(line), fp) != NULL) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		found = strlen(line) >= strlen(path) && strcmp(line +
		    strlen(line) - strlen(path), path) == 0;
	}
	fclose(fp);
	return found;
}

/* Everything the iterator tells over every CPU of buffer 0 (pages and
 * their bytes, avail, errors, faults), with the streams read on the
 * caller's thread (async 0), through a page worker (1), or with their
 * windows mapped (2: *attached counts the streams mapped).  Not exact:
 * of the bytes readable, only the page's and whether they are there
 * (mapped windows are larger than read ones). */
static uint64_t
walk(const char *path, int async, int exact, int *attached)
{
	struct tdat_pages_worker *wk = NULL;
	struct tdat_file *f;
	struct tdat_pages *ps;
	struct tdat_page pg;
	struct tdat_err e;
	uint64_t h = 0xcbf29ce484222325ULL, x[4];
	size_t avail;
	uint32_t ci;
	int rc;

	*attached = 0;
	if (tdat_open(path, &f, &e) < 0)
		return 0;
	if (async == 1 && tdat_pages_worker_new(&wk) < 0) {
		tdat_close(f);
		return 0;
	}
	for (ci = 0; ci < f->buf[0].ncpu; ci++) {
		if (tdat_pages_open(f, 0, ci, &ps, &e) < 0)
			continue;
		if (async == 1)
			*attached += tdat_pages_async(ps, wk);
		else if (async == 2)
			tdat_pages_map(ps);
		while ((rc = tdat_pages_next(ps, &pg, &avail, &e)) != 0) {
			if (async == 2 && pg.off == f->buf[0].cpu[ci].off)
				*attached += mapped(path);
			if (rc < 0) {
				x[0] = (uint64_t)e.code;
				x[1] = e.off;
				h = hash(h, (unsigned char *)x, 2 * sizeof(x[0]));
				h = hash(h, (const unsigned char *)e.msg,
				    strlen(e.msg));
				if (tdat_pages_fault(ps))
					h = hash(h, (const unsigned char *)
					    tdat_pages_fault(ps),
					    strlen(tdat_pages_fault(ps)));
				continue;
			}
			x[0] = pg.off;
			x[1] = (uint64_t)pg.chunk_pos;
			x[2] = exact ? avail : avail >= pg.page_size;
			x[3] = pg.page_size;
			h = hash(h, (unsigned char *)x, sizeof(x));
			h = hash(h, pg.p, exact ? avail : pg.page_size);
		}
		tdat_pages_close(ps);
	}
	tdat_pages_worker_free(wk);
	tdat_close(f);
	return h;
}

/* A page worker changes nothing the iterator tells. */
static void
same_async(const char *path, const char *what)
{
	uint64_t a, b;
	int n, m;

	a = walk(path, 0, 1, &n);
	b = walk(path, 1, 1, &m);
	ok(a != 0 && a == b && m > 0, "%s: the same pages, bytes and errors "
	    "through a page worker (%d streams)", what, m);
}

/* Mapped windows change nothing the iterator tells either; raw data is
 * mapped (all but the last CPU's last window: its tail would run past
 * the end of the file), chunks are not. */
static void
same_map(const char *path, const char *what, int raw)
{
	uint64_t a, b;
	int n, m;

	a = walk(path, 0, 0, &n);
	b = walk(path, 2, 0, &m);
	ok(a != 0 && a == b && (raw ? m > 0 : m == 0), "%s: the same pages, "
	    "bytes and errors with windows mapped (%d streams mapped)", what, m);
}

/* Raw data: windows of whole pages, pages at their file offsets, and
 * avail reaching to the end of the window and its tail. */
static void
test_raw(void)
{
	char path[] = "/tmp/test_pages_raw.XXXXXX";
	struct tdat_file *f;
	struct tdat_pages *ps;
	struct tdat_page pg;
	struct tdat_window w;
	struct tdat_err e;
	const struct tdat_cpu *c;
	uint64_t npages = 0, sum = 0, expect_off;
	size_t avail, first_avail = 0;
	int rc, offs_ok = 1, avail_ok = 1, windows_ok = 1, nwin = 0;
	uint32_t ps_size, ci, big = 0;

	if (make_raw(path) < 0 || tdat_open(path, &f, &e) < 0) {
		ok(0, "a v6 copy of %s", ZSTD);
		unlink(path);
		return;
	}
	ok(f->version == 6 && !f->buf[0].compressed && f->buf[0].ncpu > 0,
	    "a v6 copy has raw CPU data");
	for (ci = 1; ci < f->buf[0].ncpu; ci++)
		if (f->buf[0].cpu[ci].size > f->buf[0].cpu[big].size)
			big = ci;
	c = &f->buf[0].cpu[big];
	ps_size = f->buf[0].page_size;
	ok(c->size > 256 * 1024, "CPU %u holds more than a window (%llu "
	    "bytes)", c->id, (unsigned long long)c->size);
	ok(tdat_pages_open(f, 0, big, &ps, &e) == 0, "open its pages");
	ok(tdat_pages_total(ps) == c->size - c->size % ps_size,
	    "total is the CPU's whole pages (%llu)",
	    (unsigned long long)tdat_pages_total(ps));
	expect_off = c->off;
	while ((rc = tdat_pages_next(ps, &pg, &avail, &e)) == 1) {
		if (npages == 0)
			first_avail = avail;
		if (pg.off != expect_off || pg.chunk_pos != -1 ||
		    pg.page_size != ps_size)
			offs_ok = 0;
		if (avail < ps_size + 4096 || (avail - 4096) % ps_size)
			avail_ok = 0;
		expect_off += ps_size;
		npages++;
	}
	ok(rc == 0, "pages end without error");
	ok(npages == c->size / ps_size, "%llu pages, one per page size",
	    (unsigned long long)npages);
	ok(offs_ok, "pages follow each other at their file offsets");
	ok(avail_ok, "avail is the rest of the window plus a 4096-byte tail");
	ok(first_avail == (c->size > 256 * 1024 ? 256 * 1024 :
	    c->size - c->size % ps_size) + 4096,
	    "the first page reaches the end of the first window (%zu)",
	    first_avail);
	tdat_pages_close(ps);

	ok(tdat_pages_open(f, 0, big, &ps, &e) == 0, "open again for windows");
	while ((rc = tdat_pages_window(ps, &w, &e)) == 1) {
		unsigned char *tail = malloc(w.tail);

		if (w.chunk || w.len % ps_size || w.off != c->off + sum ||
		    w.index != (uint32_t)nwin || w.tail != 4096)
			windows_ok = 0;
		/* The tail is the file's next bytes, zeros past its end. */
		if (tail) {
			size_t n = w.tail;

			memset(tail, 0, w.tail);
			if (w.off + w.len + n > f->fsize)
				n = f->fsize - (w.off + w.len);
			if (tdat_pread(f, tail, w.off + w.len, n, &e) < 0 ||
			    memcmp(tail, w.p + w.len, w.tail) != 0)
				windows_ok = 0;
			free(tail);
		}
		sum += w.len;
		nwin++;
	}
	ok(rc == 0 && windows_ok && sum == tdat_pages_total(ps) && nwin > 1,
	    "%d windows of whole pages and their tails, %llu bytes", nwin,
	    (unsigned long long)sum);
	tdat_pages_close(ps);
	tdat_close(f);
	unlink(path);
}

/* A CPU of a compressed file with at least two chunks, or -1. */
static int
two_chunks(struct tdat_file *f, struct tdat_chunk **ch, uint32_t *n)
{
	struct tdat_err e;
	uint32_t i;

	for (i = 0; i < f->buf[0].ncpu; i++) {
		if (tdat_cpu_chunks(f, &f->buf[0], &f->buf[0].cpu[i], ch, n,
		    &e) == 0 && *n >= 2)
			return (int)i;
		free(*ch);
		*ch = NULL;
	}
	return -1;
}

/* Compressed data: one window per chunk, pages named by their chunk. */
static void
test_chunks(void)
{
	struct tdat_file *f;
	struct tdat_pages *ps;
	struct tdat_page pg;
	struct tdat_chunk *ch = NULL;
	struct tdat_err e;
	uint64_t usize = 0, npages = 0;
	uint32_t n, k = 0, ps_size;
	size_t avail;
	int ci, rc, good = 1;

	if (tdat_open(ZSTD, &f, &e) < 0) {
		ok(0, "open %s: %s", ZSTD, e.msg);
		return;
	}
	ci = two_chunks(f, &ch, &n);
	ok(ci >= 0 && f->buf[0].compressed, "a CPU with %u chunks", n);
	if (ci < 0) {
		tdat_close(f);
		return;
	}
	ps_size = f->buf[0].page_size;
	for (k = 0; k < n; k++)
		usize += ch[k].usize;
	ok(tdat_pages_open(f, 0, (uint32_t)ci, &ps, &e) == 0,
	    "open compressed CPU %d", ci);
	ok(tdat_pages_total(ps) == usize, "total is the chunks' usize");
	k = 0;
	while ((rc = tdat_pages_next(ps, &pg, &avail, &e)) == 1) {
		while (k < n && pg.off != ch[k].off - 8)
			k++;
		if (k == n || pg.chunk_pos < 0 ||
		    (uint64_t)pg.chunk_pos + ps_size > ch[k].usize ||
		    avail != ch[k].usize - (uint64_t)pg.chunk_pos)
			good = 0;
		npages++;
	}
	ok(rc == 0, "chunks end without error");
	ok(good, "pages lie in their chunks; avail reaches the chunk's end");
	ok(npages == usize / ps_size, "%llu pages", (unsigned long long)npages);
	tdat_pages_close(ps);
	free(ch);
	tdat_close(f);
}

/* A copy of ZSTD with the first chunk of a CPU damaged: an error at the
 * chunk, then the pages of the next chunk. */
static void
test_damaged(void)
{
	char path[] = "/tmp/test_pages.XXXXXX";
	struct tdat_file *f;
	struct tdat_pages *ps;
	struct tdat_page pg;
	struct tdat_chunk *ch = NULL;
	struct tdat_err e;
	unsigned char *d;
	size_t len, avail;
	uint32_t n, ps_size;
	uint64_t after = 0, usize1 = 0, k;
	int ci, fd, rc, first, errors = 0, where_ok = 1;

	if ((d = (unsigned char *)slurp(ZSTD, &len)) == NULL ||
	    tdat_open(ZSTD, &f, &e) < 0) {
		ok(0, "read %s", ZSTD);
		free(d);
		return;
	}
	ci = two_chunks(f, &ch, &n);
	ps_size = f->buf[0].page_size;
	tdat_close(f);
	if (ci < 0) {
		ok(0, "no CPU with two chunks");
		free(d);
		return;
	}
	for (k = 1; k < n; k++)
		usize1 += ch[k].usize;
	/* Spoil the zstd frame's magic number. */
	memset(d + ch[0].off, 0, ch[0].csize < 4 ? ch[0].csize : 4);
	if ((fd = mkstemp(path)) < 0 || write(fd, d, len) != (ssize_t)len) {
		ok(0, "write a damaged copy");
		free(d);
		free(ch);
		return;
	}
	close(fd);
	free(d);
	ok(tdat_open(path, &f, &e) == 0, "the damaged copy opens");
	ok(tdat_pages_open(f, 0, (uint32_t)ci, &ps, &e) == 0,
	    "its pages open");
	rc = tdat_pages_next(ps, &pg, &avail, &e);
	ok(rc < 0 && e.code == TDAT_ECORRUPT && e.has_off &&
	    e.off == ch[0].off - 8, "chunk 0: an error at its header (%s)",
	    e.msg);
	ok(tdat_pages_fault(ps) && strcmp(tdat_pages_fault(ps),
	    "decompress") == 0, "its fault is \"decompress\"");
	ok(strncmp(e.msg, "chunk 0: zstd", 13) == 0, "the message names the "
	    "chunk and the codec's words");
	first = 1;
	while ((rc = tdat_pages_next(ps, &pg, &avail, &e)) != 0) {
		if (rc < 0) {
			errors++;
			continue;
		}
		if (first && pg.off != ch[1].off - 8)
			where_ok = 0;
		first = 0;
		after += ps_size;
	}
	ok(errors == 0 && where_ok && after == usize1,
	    "the iterator goes on with chunk 1: %llu bytes of pages after it",
	    (unsigned long long)after);
	tdat_pages_close(ps);
	tdat_close(f);
	same_async(path, "a damaged chunk");
	unlink(path);
	free(ch);
}

/* ------------------------------------------------------------------ */
/* A format of the test's own: three pages of 64 bytes, each holding one
 * 8-byte record, delivered as a window of two pages and one of one. */

#define FPAGE	64

struct fake {
	unsigned char pages[3 * FPAGE];
	int next, closed;
	/* the optional operations (test_fake_ops) */
	int swaps, codecs, maps, rooms, takes;
	size_t room;
	unsigned char *buf;
	size_t cap;
};

static int fake_released;

static void
fake_page(unsigned char *p, uint64_t ts, uint16_t type)
{
	memset(p, 0, FPAGE);
	tdat_put(p, ts, 8, 0);			/* time stamp */
	tdat_put(p + 8, 12, 8, 0);		/* commit: one 12-byte item */
	tdat_put(p + 16, 2 | (1u << 5), 4, 0);	/* type_len 2, delta 1 */
	tdat_put(p + 20, type, 2, 0);		/* common_type */
	tdat_put(p + 22, 0x4242, 2, 0);
}

static int
fake_open(struct tdat_file *f, int buf, uint32_t ci, void **st,
    uint64_t *total, struct tdat_err *e)
{
	struct fake *s = f->page_arg;

	if (buf != 0 || ci != 0)
		return tdat_fail_nooff(e, TDAT_EUSAGE, "no such CPU");
	s->next = 0;
	fake_page(s->pages, 100, 7);
	fake_page(s->pages + FPAGE, 200, 8);
	fake_page(s->pages + 2 * FPAGE, 300, 9);
	*st = s;
	*total = sizeof(s->pages);
	return 0;
}

static int
fake_next(void *st, struct tdat_window *w, struct tdat_err *e)
{
	struct fake *s = st;

	switch (s->next++) {
	case 0:
		w->p = s->pages;
		w->len = 2 * FPAGE;
		break;
	case 1:
		w->p = s->pages + 2 * FPAGE;
		w->len = FPAGE;
		w->tail = 16;	/* pretend 16 more bytes follow */
		break;
	default:
		return 0;
	}
	w->off = 1000 * (uint64_t)s->next;
	w->index = (uint32_t)s->next - 1;
	return 1;
}

static void
fake_close(void *st)
{
	struct fake *s = st;

	s->closed++;
}

static void
fake_release(struct tdat_file *f)
{
	fake_released++;
	free(f->page_arg);
	f->page_arg = NULL;
}

static int
fake_clock(struct tdat_file *f, struct tdat_clock *c, struct tdat_err *e)
{
	c->offset = 5000;
	return 0;
}

static const struct tdat_format fake_format = {
	.name = "fake",
	.clock = fake_clock,
};

static const struct tdat_page_ops fake_ops = {
	.open = fake_open,
	.next = fake_next,
	.close = fake_close,
	.release = fake_release,
};

static void
test_fake(void)
{
	struct tdat_file *f;
	struct tdat_pages *ps;
	struct tdat_page pg;
	struct tdat_reader *rd;
	struct tdat_record rec;
	struct tdat_err e;
	struct fake *s;
	size_t avail[4];
	uint64_t off[4];
	int n = 0, rc, good = 1;

	if ((f = calloc(1, sizeof(*f))) == NULL ||
	    (f->buf = calloc(1, sizeof(*f->buf))) == NULL ||
	    (f->buf[0].cpu = calloc(1, sizeof(*f->buf[0].cpu))) == NULL ||
	    (f->buf[0].name = strdup("")) == NULL ||
	    (s = calloc(1, sizeof(*s))) == NULL) {
		ok(0, "out of memory");
		return;
	}
	f->fd = -1;
	f->version = 6;
	f->lsize = 8;
	f->page_size = FPAGE;
	f->nbuf = 1;
	f->buf[0].page_size = FPAGE;
	f->buf[0].ncpu = 1;
	f->buf[0].cpu[0].size = sizeof(s->pages);
	f->page_ops = &fake_ops;
	f->page_arg = s;

	ok(tdat_pages_open(f, 0, 0, &ps, &e) == 0, "fake format: open");
	ok(tdat_pages_total(ps) == 3 * FPAGE, "fake format: its total");
	while ((rc = tdat_pages_next(ps, &pg, &avail[n], &e)) == 1 && n < 3)
		off[n++] = pg.off;
	ok(rc == 0 && n == 3, "fake format: 3 pages from 2 windows");
	ok(off[0] == 1000 && off[1] == 1000 + FPAGE && off[2] == 2000,
	    "fake format: page offsets from the windows");
	ok(avail[0] == 2 * FPAGE && avail[1] == FPAGE &&
	    avail[2] == FPAGE + 16, "fake format: avail to the window's end "
	    "and tail (%zu %zu %zu)", avail[0], avail[1], avail[2]);
	tdat_pages_close(ps);
	ok(s->closed == 1, "fake format: close called once");

	/* The record reader decodes the fake pages like any others. */
	ok(tdat_reader_open(f, NULL, &rd, &e) == 0, "reader over the fake "
	    "format opens");
	n = 0;
	while ((rc = tdat_reader_next(rd, &rec, &e)) == 1) {
		if (rec.size != 8 || rec.raw_ts != (uint64_t)(n + 1) * 100 + 1 ||
		    tdat_get16(rec.data, 0) != 7 + n ||
		    rec.avail != (n == 0 ? 2 * FPAGE - 20 : n == 1 ? FPAGE - 20 :
		    FPAGE + 16 - 20))
			good = 0;
		n++;
	}
	ok(rc == 0 && n == 3 && good, "reader: 3 records, their times, ids "
	    "and avail");
	tdat_reader_close(rd);

	/* The format's clock moves the records' times. */
	f->format = &fake_format;
	n = 0;
	good = tdat_reader_open(f, NULL, &rd, &e) == 0;
	while (good && (rc = tdat_reader_next(rd, &rec, &e)) == 1)
		if (rec.ts != rec.raw_ts + 5000 || n++ > 3)
			good = 0;
	ok(good && rc == 0 && n == 3, "reader: the format's clock adds its "
	    "offset to each time");
	tdat_reader_close(rd);
	tdat_close(f);
	ok(fake_released == 1, "tdat_close() releases the format's state");
}

static void
fake_swap(void *st, unsigned char **buf, size_t *cap)
{
	struct fake *s = st;
	unsigned char *p = s->buf;
	size_t c = s->cap;

	s->swaps++;
	s->buf = *buf;
	s->cap = *cap;
	*buf = p;
	*cap = c;
}

static void
fake_codec(void *st, struct tdat_codec *c)
{
	((struct fake *)st)->codecs++;
}

static void
fake_map(void *st)
{
	((struct fake *)st)->maps++;
}

static void
fake_room(void *st, size_t room)
{
	((struct fake *)st)->rooms++;
	((struct fake *)st)->room = room;
}

static int
fake_take(void *st, void **base, size_t *len)
{
	((struct fake *)st)->takes++;
	return 0;
}

/* The fake format again, offering every optional operation and streams
 * that may be read on a thread of their own. */
static const struct tdat_page_ops fake_full_ops = {
	.open = fake_open,
	.next = fake_next,
	.close = fake_close,
	.release = fake_release,
	.swap = fake_swap,
	.codec = fake_codec,
	.map = fake_map,
	.room = fake_room,
	.take = fake_take,
	.parallel = 1,
	.ordered = 1,
};

/*
 * The page iterator asks a format only through its operations: what it
 * offers is called (room, map, codec, take, swap on the worker's thread),
 * a format without them is left alone, and only parallel streams go to a
 * worker.
 */
static void
test_fake_ops(void)
{
	struct tdat_file f;
	struct tdat_buffer b;
	struct tdat_cpu c;
	struct tdat_pages *ps;
	struct tdat_pages_worker *wk = NULL;
	struct tdat_page pg;
	struct tdat_err e;
	struct fake s;
	size_t avail;
	void *base;
	size_t len;
	int n = 0, rc;

	memset(&f, 0, sizeof(f));
	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	memset(&s, 0, sizeof(s));
	f.fd = -1;
	f.nbuf = 1;
	f.buf = &b;
	b.name = "";
	b.page_size = FPAGE;
	b.ncpu = 1;
	b.cpu = &c;
	c.size = sizeof(s.pages);
	f.page_arg = &s;

	f.page_ops = &fake_ops;
	if (tdat_pages_open(&f, 0, 0, &ps, &e) < 0) {
		ok(0, "fake format: open");
		return;
	}
	tdat_pages_room(ps, 2 * FPAGE);
	tdat_pages_map(ps);
	tdat_pages_codec(ps, NULL);
	ok(tdat_pages_take_map(ps, &base, &len) == 0 &&
	    tdat_pages_worker_new(&wk) == 0 && tdat_pages_async(ps, wk) == 0,
	    "a format without the operations: nothing taken, not parallel");
	tdat_pages_close(ps);
	tdat_pages_worker_free(wk);

	f.page_ops = &fake_full_ops;
	if (tdat_pages_open(&f, 0, 0, &ps, &e) < 0) {
		ok(0, "fake format with operations: open");
		return;
	}
	tdat_pages_room(ps, 2 * FPAGE);
	tdat_pages_map(ps);
	tdat_pages_codec(ps, NULL);
	tdat_pages_take_map(ps, &base, &len);
	ok(s.rooms == 1 && s.room == 2 * FPAGE && s.maps == 1 &&
	    s.codecs == 1 && s.takes == 1, "its room, map, codec and take "
	    "operations are called");
	tdat_pages_close(ps);

	if (tdat_pages_open(&f, 0, 0, &ps, &e) < 0 ||
	    tdat_pages_worker_new(&wk) < 0) {
		ok(0, "fake format with operations: open again");
		return;
	}
	ok(tdat_pages_async(ps, wk) == 1, "a parallel format's stream goes "
	    "to a worker");
	while ((rc = tdat_pages_next(ps, &pg, &avail, &e)) == 1)
		n++;
	ok(rc == 0 && n == 3 && s.swaps >= 2, "the worker reads its 3 pages, "
	    "offered its buffer (swap called %d times)", s.swaps);
	tdat_pages_close(ps);
	tdat_pages_worker_free(wk);
	free(s.buf);
}

/* MANY_WINDOWS windows of one page each, for the read-ahead. */
#define MANY_WINDOWS	40

static int
fake_many_next(void *st, struct tdat_window *w, struct tdat_err *e)
{
	struct fake *s = st;

	if (s->next >= MANY_WINDOWS)
		return 0;
	w->p = s->pages;
	w->len = FPAGE;
	w->off = 1000 * (uint64_t)s->next;
	w->index = (uint32_t)s->next++;
	return 1;
}

static const struct tdat_page_ops fake_many_ops = {
	.open = fake_open,
	.next = fake_many_next,
	.close = fake_close,
	.release = fake_release,
	.parallel = 1,
	.ordered = 1,
};

/*
 * The worker reads several windows ahead of the caller, not one: while
 * the caller holds its first page, the windows ready grow past 1 (within
 * 5 s), and it is woken fewer times than there are windows.
 */
static void
test_read_ahead(void)
{
	struct tdat_file f;
	struct tdat_buffer b;
	struct tdat_cpu c;
	struct tdat_pages *ps;
	struct tdat_pages_worker *wk = NULL;
	struct tdat_page pg;
	struct tdat_err e;
	struct fake s;
	size_t avail;
	uint64_t ahead = 0, off = 0;
	int n = 0, rc, i, good = 1;

	memset(&f, 0, sizeof(f));
	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	memset(&s, 0, sizeof(s));
	f.fd = -1;
	f.nbuf = 1;
	f.buf = &b;
	b.name = "";
	b.page_size = FPAGE;
	b.ncpu = 1;
	b.cpu = &c;
	c.size = MANY_WINDOWS * FPAGE;
	f.page_arg = &s;
	f.page_ops = &fake_many_ops;
	if (tdat_pages_open(&f, 0, 0, &ps, &e) < 0 ||
	    tdat_pages_worker_new(&wk) < 0 || tdat_pages_async(ps, wk) != 1) {
		ok(0, "read-ahead: a stream on a worker");
		return;
	}
	rc = tdat_pages_next(ps, &pg, &avail, &e);
	for (i = 0; i < 500 && (ahead = tdat_pages_ahead(ps)) < 4; i++)
		usleep(10000);
	ok(rc == 1 && ahead >= 4, "read-ahead: %llu windows ready while the "
	    "caller holds its first", (unsigned long long)ahead);
	for (n = 1; (rc = tdat_pages_next(ps, &pg, &avail, &e)) == 1; n++)
		if (pg.off != (off += 1000))
			good = 0;
	ok(rc == 0 && n == MANY_WINDOWS && good, "read-ahead: all %d pages, "
	    "in order", n);
	ok(tdat_pages_worker_wakes(wk) < MANY_WINDOWS / 2, "read-ahead: the "
	    "worker woken %llu times for %d windows", (unsigned long long)
	    tdat_pages_worker_wakes(wk), MANY_WINDOWS);
	tdat_pages_close(ps);
	tdat_pages_worker_free(wk);
}

/* The kB of /proc/self/status line name (VmRSS, VmHWM), or -1. */
static long
vm_kb(const char *name)
{
	char line[256];
	size_t n = strlen(name);
	long kb = -1;
	FILE *fp;

	if ((fp = fopen("/proc/self/status", "r")) == NULL)
		return -1;
	while (kb < 0 && fgets(line, sizeof(line), fp) != NULL)
		if (strncmp(line, name, n) == 0 && line[n] == ':')
			kb = strtol(line + n + 1, NULL, 10);
	fclose(fp);
	return kb;
}

/* A sanitizer's allocator keeps what is freed for a while (ASan's
 * quarantine, TSan's) and adds its own: its peak resident size is not the
 * program's (the bats peak tests skip under make check-asan too). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* Set the peak resident size to the present one; 0 if done. */
static int
reset_peak(void)
{
	FILE *fp;
	int rc;

	if ((fp = fopen("/proc/self/clear_refs", "w")) == NULL)
		return -1;
	rc = fputs("5", fp) < 0;
	return fclose(fp) != 0 || rc ? -1 : 0;
}

/* v as 4 little-endian bytes at p. */
static void
put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

#define WALK_CHUNKS	2500
#define WALK_CSIZE	2000

/*
 * The chunk-header walk of a CPU with 5 MB of small chunks gives back
 * the pages of the file it has passed: the peak resident size grows by
 * far less than the mapped bytes it walked (a whole 4 MiB mapping
 * before).  The chunks' bytes are never decompressed here.
 */
static void
test_walk_memory(void)
{
	char path[] = "/tmp/test_pages_walk.XXXXXX";
	unsigned char buf[8 + WALK_CSIZE];
	struct tdat_file f;
	struct tdat_buffer b;
	struct tdat_cpu c;
	struct tdat_chunk *ch = NULL;
	struct tdat_err e;
	uint32_t i, n = 0;
	long rss, hwm;
	int fd, good;

	if ((fd = mkstemp(path)) < 0) {
		ok(0, "a temporary file");
		return;
	}
	memset(buf, 0xa5, sizeof(buf));
	put_le32(buf, WALK_CHUNKS);
	good = write(fd, buf, 4) == 4;
	put_le32(buf, WALK_CSIZE);
	put_le32(buf + 4, 4096);
	for (i = 0; good && i < WALK_CHUNKS; i++)
		good = write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf);
	memset(&f, 0, sizeof(f));
	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	f.fd = fd;
	f.path = path;
	f.fsize = 4 + (uint64_t)WALK_CHUNKS * sizeof(buf);
	b.compressed = 1;
	b.page_size = 4096;
	c.size = f.fsize;
	if (!good || reset_peak() < 0 || (rss = vm_kb("VmRSS")) < 0)
		ok(1, "# SKIP no peak resident size to reset");
	else {
		good = tdat_cpu_chunks(&f, &b, &c, &ch, &n, &e) == 0 &&
		    n == WALK_CHUNKS && ch[n - 1].csize == WALK_CSIZE;
		hwm = vm_kb("VmHWM");
		ok(good && hwm - rss < 1024, "the walk of %u chunks (%llu "
		    "bytes) grew the peak resident size by %ld kB", n,
		    (unsigned long long)f.fsize, hwm - rss);
	}
	free(ch);
	close(fd);
	unlink(path);
}

/* v as n bytes at p, in the file's byte order. */
static void
put_n(unsigned char *p, uint64_t v, int n, int big)
{
	int i;

	for (i = 0; i < n; i++)
		p[big ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/* The records of every CPU of the file at path, read by one reader; the
 * growth of the peak resident size meanwhile in *kb (-1 unknown). */
static long
count_records(const char *path, long *kb)
{
	struct tdat_file *f;
	struct tdat_reader *rd;
	struct tdat_record rec;
	struct tdat_err e;
	long n = 0, rss;
	int rc;

	*kb = -1;
	if (tdat_open(path, &f, &e) < 0)
		return -1;
	rss = reset_peak() == 0 ? vm_kb("VmRSS") : -1;
	if (tdat_reader_open(f, NULL, &rd, &e) < 0) {
		tdat_close(f);
		return -1;
	}
	while ((rc = tdat_reader_next(rd, &rec, &e)) == 1)
		n++;
	if (rss >= 0 && rc == 0)
		*kb = vm_kb("VmHWM") - rss;
	tdat_reader_close(rd);
	tdat_close(f);
	return rc == 0 ? n : -1;
}

#define MANY_CPUS	64

/*
 * A v6 copy of ZSTD (four CPUs of 300 to 450 kB) whose flyrecord table
 * names each of them 16 times over, as 64 CPUs: one reader holds every
 * stream's windows at once, and they are smaller the more streams there
 * are (64 MiB at the most with 256 KiB windows, 8 MiB now).
 */
static void
test_many_cpus(void)
{
	char path[] = "/tmp/test_pages_many.XXXXXX";
	unsigned char *p = NULL, *opt, *fly;
	struct tdat_file *f = NULL;
	struct tdat_err e;
	size_t n = 0;
	long four, many, kb;
	uint32_t i, ncpu = 0;
	int fd, good = 0;

	if (make_raw(path) == 0 && tdat_open(path, &f, &e) == 0 &&
	    (p = (unsigned char *)slurp(path, &n)) != NULL && (ncpu = f->buf[0].ncpu) == 4 &&
	    (opt = memmem(p, n, "options  ", 10)) != NULL && opt - p >= 4 &&
	    (fly = memmem(opt, n - (size_t)(opt - p), "flyrecord", 10)) !=
	    NULL && (size_t)(fly - p) + 10 + 16 * MANY_CPUS <=
	    f->buf[0].cpu[0].off) {
		put_n(opt - 4, MANY_CPUS, 4, f->big);
		for (i = 0; i < MANY_CPUS; i++) {
			put_n(fly + 10 + 16 * i, f->buf[0].cpu[i % 4].off, 8,
			    f->big);
			put_n(fly + 18 + 16 * i, f->buf[0].cpu[i % 4].size, 8,
			    f->big);
		}
		good = 1;
	}
	four = good ? count_records(path, &kb) : -1;
	if (f)
		tdat_close(f);
	if (good && (fd = open(path, O_WRONLY | O_TRUNC)) >= 0) {
		good = write(fd, p, n) == (ssize_t)n;
		close(fd);
	} else
		good = 0;
	free(p);
	ok(good && four > 0, "a copy of %s with %d CPUs", ZSTD, MANY_CPUS);
	many = good ? count_records(path, &kb) : -1;
	ok(many == four * (MANY_CPUS / 4), "%d CPUs: %ld records (4: %ld)",
	    MANY_CPUS, many, four);
	if (SANITIZED)
		ok(1, "# SKIP a sanitizer build: its allocator's peak size");
	else if (kb < 0)
		ok(1, "# SKIP no peak resident size to reset");
	else
		ok(kb < 16 * 1024, "%d CPUs read at once grew the peak resident "
		    "size by %ld kB", MANY_CPUS, kb);
	unlink(path);
}

/* One CPU's records of f, alone (cpu < 0: every CPU's, merged). */
static struct tdat_reader *
cpu_reader(struct tdat_file *f, int cpu, unsigned char *mask, int n)
{
	struct tdat_reader_opts o;
	struct tdat_reader *rd;
	struct tdat_err e;

	memset(&o, 0, sizeof(o));
	o.buffer = 0;
	if (cpu >= 0) {
		memset(mask, 0, (size_t)n);
		mask[cpu] = 1;
		o.cpus = mask;
		o.ncpus = n;
	}
	return tdat_reader_open(f, &o, &rd, &e) < 0 ? NULL : rd;
}

#define MERGE_CPUS	8

/*
 * tdat_reader_next_all() against a merge of one reader per CPU (the
 * earliest record, the lowest CPU of equals): the same records in the
 * same order, found with fewer passes over the streams than records
 * (the stream handed out last is handed out again while its next
 * record is strictly first).
 */
static void
test_merge_scans(const char *path)
{
	struct tdat_reader *all, *one[MERGE_CPUS];
	struct tdat_record rec, want[MERGE_CPUS];
	unsigned char mask[MERGE_CPUS];
	int have[MERGE_CPUS], ncpu, i, best, rc = 0, same = 1;
	struct tdat_file *f;
	struct tdat_err e;
	long n = 0;

	if (tdat_open(path, &f, &e) < 0) {
		ok(0, "%s opens: %s", path, e.msg);
		return;
	}
	ncpu = (int)f->buf[0].ncpu;
	if (ncpu > MERGE_CPUS)
		ncpu = MERGE_CPUS;
	all = cpu_reader(f, -1, mask, MERGE_CPUS);
	for (i = 0; i < ncpu; i++) {
		one[i] = cpu_reader(f, (int)f->buf[0].cpu[i].id, mask,
		    MERGE_CPUS);
		have[i] = one[i] != NULL &&
		    tdat_reader_next_all(one[i], &want[i], &e) == 1;
	}
	while (all != NULL && (rc = tdat_reader_next_all(all, &rec, &e)) == 1) {
		for (best = -1, i = 0; i < ncpu; i++)
			if (have[i] && (best < 0 || want[i].ts < want[best].ts))
				best = i;
		if (best < 0 || want[best].ts != rec.ts ||
		    want[best].cpu != rec.cpu || want[best].off != rec.off ||
		    want[best].size != rec.size || memcmp(want[best].data,
		    rec.data, rec.size) != 0) {
			same = 0;
			break;
		}
		have[best] = tdat_reader_next_all(one[best], &want[best],
		    &e) == 1;
		n++;
	}
	for (best = -1, i = 0; i < ncpu; i++)
		if (have[i])
			best = i;
	ok(all != NULL && rc == 0 && same && best < 0 && n > 1000,
	    "%s: %ld records merged as one reader a CPU gives them", path, n);
	ok(all != NULL && tdat_reader_scans(all) * 2 < (uint64_t)n,
	    "%s: %llu passes over the streams for %ld records", path,
	    all ? (unsigned long long)tdat_reader_scans(all) : 0ULL, n);
	/* a little-endian page's records after its first: the fast path */
	if (!f->big)
		ok(all != NULL && tdat_reader_slow(all) * 4 < (uint64_t)n,
		    "%s: %llu of %ld records decoded by the general walk",
		    path, all ? (unsigned long long)tdat_reader_slow(all) :
		    0ULL, n);
	tdat_reader_close(all);
	for (i = 0; i < ncpu; i++)
		tdat_reader_close(one[i]);
	tdat_close(f);
}

int
main(void)
{
	char path[] = "/tmp/test_pages.XXXXXX";

	tdat_formats_all();
	same_async(ZSTD, "zstd chunks");
	same_map(ZSTD, "zstd chunks", 0);
	if (make_raw(path) == 0) {
		same_async(path, "raw windows");
		same_map(path, "raw windows", 1);
	} else
		ok(0, "a v6 copy of %s", ZSTD);
	unlink(path);
	test_raw();
	test_chunks();
	test_damaged();
	test_fake();
	test_fake_ops();
	test_read_ahead();
	test_walk_memory();
	test_many_cpus();
	test_merge_scans(ZSTD);
	test_merge_scans("t/data/x86_64-default-sched.dat");
	return tap_done();
}
