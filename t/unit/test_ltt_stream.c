/*
 * test_ltt_stream.c: an LTT directory read through its page operations
 * (tdat_ltt_open_stream): for directories tdat-to-ltt makes from the
 * fixtures, in the default dialect and LTTV's 2005 one, every stream of
 * every buffer and CPU, all open at once and read in turn, delivers the
 * pages tdat_ltt_pages() delivers and the in-memory trace.dat of
 * tdat_ltt_open_tdat() holds, byte for byte; the tools' other readers
 * refuse such a file cleanly; a latency buffer streams its text; damage
 * in one block costs that block only.
 * TAP output; run from the top of the source tree.
 */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdat-int.h"
#include "tdat-json.h"
#include "tdat-ltt.h"
#include "tdat-verify.h"
#include "tdat-tracedat.h"
#include "tap.h"

static char tmp[] = "/tmp/tdat-test-ltt-stream-XXXXXX";

/* A byte string that grows. */
struct bytes {
	unsigned char *p;
	size_t len;
};

static int
add(struct bytes *b, const void *p, size_t n)
{
	unsigned char *q = realloc(b->p, b->len + n + 1);

	if (q == NULL)
		return -1;
	b->p = q;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

/* Convert the trace.dat in into dir with tdat-to-ltt. */
static int
run_to_ltt(const char *in, const char *dir, const char *args)
{
	const char *bin = getenv("TDAT_BIN");
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "%s/tdat-to-ltt %s %s %s",
	    bin ? bin : "build/bin", args, in, dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* The same for t/data/NAME.dat. */
static int
to_ltt(const char *name, const char *dir, const char *args)
{
	char in[512];

	snprintf(in, sizeof(in), "t/data/%s.dat", name);
	return run_to_ltt(in, dir, args);
}

/* The reference: the pages of buffer bi, CPU id through tdat_ltt_pages(). */
static int
ref_pages(struct tdat_ltt *l, int bi, uint32_t id, struct bytes *out)
{
	const struct tdat_page_src *ps = tdat_ltt_pages(l);
	static unsigned char buf[1 << 16];
	struct tdat_err e = { 0 };
	uint64_t total;
	size_t got;

	if (ps->begin(ps->arg, bi, id, &total, &e) < 0)
		return -1;
	do {
		if (ps->read(ps->arg, buf, sizeof(buf), &got, &e) < 0 ||
		    add(out, buf, got) < 0)
			return -1;
	} while (got > 0);
	return out->len == total ? 0 : -1;
}

/* The flyrecord bytes of buffer bi, CPU id in the in-memory trace.dat;
 * once tdat_ltt_open_tdat() streams too (LTT_OPEN_STREAM), a copy of ref. */
static int
memfd_pages(struct tdat_file *m, int bi, uint32_t id, const struct bytes *ref,
    struct bytes *out)
{
	struct tdat_err e = { 0 };
	uint32_t i;

	if (m->page_ops)
		return add(out, ref->p ? ref->p : (const unsigned char *)"",
		    ref->len);
	if ((size_t)bi >= m->nbuf)
		return -1;
	for (i = 0; i < m->buf[bi].ncpu; i++)
		if (m->buf[bi].cpu[i].id == id)
			break;
	if (i == m->buf[bi].ncpu || m->buf[bi].cpu[i].size == 0)
		return 0;
	if ((out->p = malloc(m->buf[bi].cpu[i].size)) == NULL ||
	    tdat_pread(m, out->p, m->buf[bi].cpu[i].off,
	    m->buf[bi].cpu[i].size, &e) < 0)
		return -1;
	out->len = m->buf[bi].cpu[i].size;
	return 0;
}

struct stream {
	void *st;
	int bi;
	uint32_t ci;
	int open, done;
	uint32_t next_index;
	uint64_t next_off;
	struct bytes got;
};

/* Every stream of f open at once, read one window each in turn. */
static int
read_all(struct tdat_file *f, struct stream **out, size_t *n, int *shape)
{
	const struct tdat_page_ops *o = f->page_ops;
	struct tdat_window w;
	struct tdat_err e = { 0 };
	struct stream *s = NULL;
	size_t k = 0, i, live;
	uint64_t total;
	int bi, rc;
	uint32_t ci;

	*shape = 1;
	for (bi = 0; (size_t)bi < f->nbuf; bi++)
		for (ci = 0; ci < f->buf[bi].ncpu; ci++) {
			struct stream *t = realloc(s, (k + 1) * sizeof(*s));

			if (t == NULL)
				goto fail;
			s = t;
			memset(&s[k], 0, sizeof(s[k]));
			s[k].bi = bi;
			s[k].ci = ci;
			if (o->open(f, bi, ci, &s[k].st, &total, &e) < 0) {
				printf("# open %d/%u: %s\n", bi, ci, e.msg);
				k++;
				goto fail;
			}
			s[k].open = 1;
			s[k].next_off = f->buf[bi].cpu[ci].off;
			k++;
		}
	do {
		live = 0;
		for (i = 0; i < k; i++) {
			if (s[i].done)
				continue;
			rc = o->next(s[i].st, &w, &e);
			if (rc < 0) {
				printf("# next %d/%u: %s\n", s[i].bi, s[i].ci,
				    e.msg);
				goto fail;
			}
			if (rc == 0) {
				s[i].done = 1;
				continue;
			}
			live++;
			if (w.len == 0 || w.len % f->page_size || w.tail ||
			    w.chunk || w.index != s[i].next_index ||
			    w.off != s[i].next_off)
				*shape = 0;
			s[i].next_index++;
			s[i].next_off += w.len;
			if (add(&s[i].got, w.p, w.len) < 0)
				goto fail;
		}
	} while (live);
	*out = s;
	*n = k;
	return 0;
fail:
	for (i = 0; i < k; i++) {
		if (s[i].open)
			o->close(s[i].st);
		free(s[i].got.p);
	}
	free(s);
	return -1;
}

static void
close_all(struct tdat_file *f, struct stream *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		f->page_ops->close(s[i].st);
		free(s[i].got.p);
	}
	free(s);
}

/* The streams of one directory against both references. */
static void
same_pages(const char *name, const char *dir, const char *how)
{
	struct tdat_file *f = NULL, *m = NULL;
	struct tdat_ltt *l = NULL;
	struct tdat_err e = { 0 };
	struct stream *s = NULL;
	size_t n = 0, i, pages = 0;
	int shape = 0, same = 1, rc;

	if (tdat_ltt_open_stream(dir, &f, &e) < 0 ||
	    tdat_ltt_open(dir, &l, &e) < 0 ||
	    tdat_ltt_open_tdat(dir, &m, &e) < 0) {
		ok(0, "%s %s: open: %s", name, how, e.msg);
		goto out;
	}
	ok(f->page_ops != NULL && f->page_arg != NULL && f->fd < 0,
	    "%s %s: a stream file, no copy of the trace", name, how);
	if (read_all(f, &s, &n, &shape) < 0) {
		ok(0, "%s %s: read every stream", name, how);
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct tdat_buffer *b = &f->buf[s[i].bi];
		struct bytes r = { 0 }, mf = { 0 };

		rc = ref_pages(l, s[i].bi, b->cpu[s[i].ci].id, &r);
		if (rc < 0 || memfd_pages(m, s[i].bi, b->cpu[s[i].ci].id,
		    &r, &mf) < 0 || r.len != s[i].got.len ||
		    mf.len != s[i].got.len || (r.len && (memcmp(r.p,
		    s[i].got.p, r.len) || memcmp(mf.p, s[i].got.p, r.len)))) {
			printf("# %s %s: buffer %d cpu %u: %zu bytes streamed, "
			    "%zu from the page source, %zu in the memfd\n",
			    name, how, s[i].bi, b->cpu[s[i].ci].id,
			    s[i].got.len, r.len, mf.len);
			same = 0;
		}
		pages += s[i].got.len / f->page_size;
		free(r.p);
		free(mf.p);
	}
	ok(same, "%s %s: %zu streams, %zu pages, byte-identical", name, how,
	    n, pages);
	ok(shape, "%s %s: windows of whole pages, numbered, at running "
	    "offsets", name, how);
out:
	if (s)
		close_all(f, s, n);
	tdat_close(f);
	tdat_ltt_close(l);
	tdat_close(m);
}

/* A stream file has no trace.dat bytes: what reads them says so. */
static void
other_readers(const char *dir)
{
	struct tdat_verify_opts vo;
	struct tdat_verify_stats vs;
	struct tdat_json_opts jo;
	struct tdat_file *f = NULL;
	struct tdat_err e = { 0 };
	unsigned char c;
	FILE *null = fopen("/dev/null", "w");
	int rc;

	if (null == NULL || tdat_ltt_open_stream(dir, &f, &e) < 0) {
		ok(0, "other readers: open: %s", e.msg);
		if (null)
			fclose(null);
		return;
	}
	rc = tdat_pread(f, &c, 0, 1, &e);
	ok(rc == TDAT_EUNSUP && strstr(e.msg, "not a trace.dat file"),
	    "tdat_pread refuses: %s", e.msg);
	ok(tdat_dump(f, null, TDAT_DUMP_ALL, &e) == 0 &&
	    tdat_dump_summary(f, null, &e) == 0 &&
	    tdat_dump_flyrecord(f, null, &e) == 0,
	    "tdat_dump's structure views print the metadata");
	memset(&jo, 0, sizeof(jo));
	ok(tdat_json_meta(f, null, &jo, &e) == 0, "tdat_json_meta works");
	memset(&vo, 0, sizeof(vo));
	memset(&vs, 0, sizeof(vs));
	rc = tdat_verify_file(f, &vo, &vs, &e);
	ok(rc == 0 || rc == TDAT_EUNSUP, "tdat_verify_file ends cleanly "
	    "(%d%s%s)", rc, rc ? ": " : "", rc ? e.msg : "");
	tdat_close(f);
	fclose(null);
}

/* Damage in one block of a tracefile: its stream reports it once and
 * goes on with the next block. */
static void
damaged(const char *dir)
{
	struct tdat_file *f = NULL;
	struct tdat_window w;
	struct tdat_err e = { 0 };
	char path[600];
	void *st = NULL;
	uint64_t total;
	unsigned char junk[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff };
	int fd, rc, errors = 0, windows = 0, after = 0, calls = 0;

	snprintf(path, sizeof(path), "%s/cpu/0", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0 || pwrite(fd, junk, sizeof(junk), 4096 + 2) !=
	    (ssize_t)sizeof(junk)) {
		ok(0, "damage %s", path);
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	if (tdat_ltt_open_stream(dir, &f, &e) < 0 ||
	    f->page_ops->open(f, 0, 0, &st, &total, &e) < 0) {
		ok(0, "damaged: open: %s", e.msg);
		tdat_close(f);
		return;
	}
	while (calls++ < 100000 && (rc = f->page_ops->next(st, &w, &e)) != 0)
		if (rc < 0) {
			printf("# %s\n", e.msg);
			errors++;
		} else if (errors)
			after++;
		else
			windows++;
	ok(calls < 100000 && errors == 1 && after > 0,
	    "damage in block 1: one error, then %d windows more", after);
	f->page_ops->close(st);
	tdat_close(f);
}

/* A v6 latency file (a fixture's metadata, then its text) through an
 * LTT directory: the latency buffer's stream gives the text back. */
static void
latency(void)
{
	struct tdat_file *f = NULL;
	struct tdat_window w;
	struct tdat_err e = { 0 };
	struct bytes text = { 0 }, got = { 0 };
	char path[600], dir[600], line[64];
	unsigned char *d;
	size_t n, at;
	uint64_t total;
	void *st = NULL;
	FILE *fp;
	int i, rc;

	d = (unsigned char *)slurp("t/data/labsisop-qemu-trace.dat", &n);
	for (at = 0; d && at + 10 <= n; at++)
		if (memcmp(d + at, "flyrecord", 10) == 0)
			break;
	for (i = 0; i < 30000; i++) {
		snprintf(line, sizeof(line), "# latency line %d: irqsoff\n",
		    i);
		add(&text, line, strlen(line));
	}
	snprintf(path, sizeof(path), "%s/latency.dat", tmp);
	snprintf(dir, sizeof(dir), "%s/latency", tmp);
	if (d == NULL || at + 10 > n || (fp = fopen(path, "wb")) == NULL) {
		ok(0, "make a latency file");
		free(d);
		free(text.p);
		return;
	}
	fwrite(d, 1, at, fp);
	fwrite("latency  ", 1, 10, fp);
	fwrite(text.p, 1, text.len, fp);
	fclose(fp);
	free(d);
	rc = run_to_ltt(path, dir, "");
	if (rc != 0 || tdat_ltt_open_stream(dir, &f, &e) < 0 ||
	    f->nbuf != 1 || !f->buf[0].latency ||
	    f->page_ops->open(f, 0, 0, &st, &total, &e) < 0) {
		ok(0, "latency: open: %s", e.msg);
		tdat_close(f);
		free(text.p);
		return;
	}
	while ((rc = f->page_ops->next(st, &w, &e)) > 0)
		add(&got, w.p, w.len);
	ok(rc == 0 && total == text.len && got.len == text.len &&
	    memcmp(got.p, text.p, text.len) == 0,
	    "latency buffer: its %zu bytes of text stream back", got.len);
	f->page_ops->close(st);
	tdat_close(f);
	free(text.p);
	free(got.p);
}

int
main(void)
{
	static const char *names[] = { "labsisop-qemu-trace",
	    "hebel23-driver-trace", "x86_64-v7-none-instances",
	    "s390x-v7-zstd-sched", "hip24-host-trace", "nish97-trace" };
	static const char *dialects[] = { "", "--lttv=2005" };
	char dir[512];
	size_t i, k;

	tdat_formats_all();
	if (mkdtemp(tmp) == NULL) {
		printf("1..0 # SKIP cannot make a temporary directory\n");
		return 0;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (k = 0; k < 2; k++) {
			snprintf(dir, sizeof(dir), "%s/%s-%zu", tmp, names[i],
			    k);
			if (to_ltt(names[i], dir, dialects[k]) < 0) {
				ok(0, "tdat-to-ltt %s %s", dialects[k],
				    names[i]);
				continue;
			}
			same_pages(names[i], dir, k ? dialects[k] : "default");
		}
	snprintf(dir, sizeof(dir), "%s/%s-0", tmp, names[2]);
	other_readers(dir);
	latency();
	snprintf(dir, sizeof(dir), "%s/small", tmp);
	if (to_ltt("s390x-v7-zstd-sched", dir, "--block-size 4096") == 0)
		damaged(dir);
	else
		ok(0, "tdat-to-ltt --block-size 4096");
	rm_tree(tmp);
	return tap_done();
}
