/*
 * tracedat.c: the trace.dat container reader, versions 6 and 7, as
 * trace-cmd 3.x writes them (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)).
 *
 * tdat_open() reads all metadata into a struct tdat_file: the headers,
 * event formats, kallsyms, printk formats, cmdlines, every option, every
 * v7 section and the per-CPU flyrecord locations of every buffer.  Ring
 * buffer pages are read by the page operations at the end of this file
 * (tdat_tracedat_pages, walked by lib/read/pages.c), and nowhere else: raw in
 * windows, or v7 chunks decompressed one at a time.  Every size and
 * offset read from the file is checked against the file before it is used.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdat-int.h"
#include "tdat-opts.h"
#include "tdat-verify.h"
#include "tdat-tracedat.h"
#include "tdat-thread.h"

/* f's container (a trace.dat being read or open) */
#define TD(f)	((struct tdat_tracedat *)tdat_tracedat_of(f))

#define MAX_STRING	4096		/* names, versions, clocks */
#define MAX_COUNT	(1u << 20)	/* events, systems, options, CPUs */
#define MAX_CHUNK	(16u << 20)	/* uncompressed bytes of one chunk */

static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a',
    'c', 'i', 'n', 'g' };

/*
 * A reader over either the file (pread, bounded by its size) or a
 * decompressed section in memory.  Errors name the file offset: the
 * position itself for the file, the section's offset for memory.
 */
struct rd {
	struct tdat_file *f;
	const unsigned char *mem;
	uint64_t len;		/* bytes readable: file size or section size */
	uint64_t pos;
	uint64_t base;		/* file offset of a memory section */
	const char *what;	/* the section, for messages */
	struct tdat_err *e;
	/* reading the file: the bytes after the last short read, so that
	 * the headers' many small fields cost one system call a block */
	unsigned char ra[8192];
	uint64_t ra_off;
	size_t ra_len;
};

static uint64_t
rd_where(const struct rd *r)
{
	return r->mem ? r->base : r->pos;
}

static int
rd_short(struct rd *r, const char *what)
{
	if (r->mem)
		return tdat_fail(r->e, TDAT_ECORRUPT, r->base,
		    "%s: %s runs past the end of the section", r->what, what);
	return tdat_fail(r->e, TDAT_ECORRUPT, r->pos,
	    "%s runs past the end of the file", what);
}

static int
rd_read(struct rd *r, void *dst, uint64_t n, const char *what)
{
	if (n > r->len || r->pos > r->len - n)
		return rd_short(r, what);
	if (r->mem)
		memcpy(dst, r->mem + r->pos, n);
	else if (n <= sizeof(r->ra)) {
		if (r->pos < r->ra_off || r->pos - r->ra_off > r->ra_len ||
		    n > r->ra_len - (r->pos - r->ra_off)) {
			uint64_t want = r->len - r->pos;

			if (want > sizeof(r->ra))
				want = sizeof(r->ra);
			r->ra_len = 0;
			if (tdat_pread(r->f, r->ra, r->pos, want, r->e) < 0)
				return r->e->code;
			r->ra_off = r->pos;
			r->ra_len = (size_t)want;
		}
		memcpy(dst, r->ra + (r->pos - r->ra_off), n);
	} else if (tdat_pread(r->f, dst, r->pos, n, r->e) < 0)
		return r->e->code;
	r->pos += n;
	return 0;
}

static int
rd_num(struct rd *r, int n, uint64_t *v, const char *what)
{
	unsigned char b[8];
	int rc;

	if ((rc = rd_read(r, b, (uint64_t)n, what)) < 0)
		return rc;
	*v = tdat_get(b, n, r->f->big);
	return 0;
}

static int
rd_u32(struct rd *r, uint32_t *v, const char *what)
{
	uint64_t x;
	int rc;

	if ((rc = rd_num(r, 4, &x, what)) < 0)
		return rc;
	*v = (uint32_t)x;
	return 0;
}

/* Read a NUL-terminated string of at most MAX_STRING bytes. */
static int
rd_str(struct rd *r, char **out, const char *what)
{
	char buf[MAX_STRING];
	uint64_t start = r->pos;
	size_t i;

	for (i = 0; i < sizeof(buf); i++) {
		if (rd_read(r, buf + i, 1, what) < 0)
			return r->e->code;
		if (buf[i] == '\0') {
			if ((*out = strdup(buf)) == NULL)
				return tdat_fail_nooff(r->e, TDAT_ENOMEM,
				    "out of memory");
			return 0;
		}
	}
	r->pos = start;
	return tdat_fail(r->e, TDAT_ECORRUPT, rd_where(r),
	    "%s is not terminated", what);
}

/*
 * A blob of this size or more in the file (a v6 kallsyms: megabytes) is
 * mapped, not read: no copy, no fresh memory to clear, and its pages
 * are read only if it is (a cut that prints no symbol reads none).
 */
#define BLOB_MAP	(1024 * 1024)

/*
 * Map the bytes of f from off to end (off < end) with prot and flags,
 * from the page boundary at or before off, when f is a regular file that
 * still holds them: one that shrank since it was opened would raise
 * SIGBUS where it no longer does.  Returns the byte at off, the mapping
 * in *map and *mlen; NULL when they cannot be mapped (the caller reads
 * them instead).
 */
static unsigned char *
map_range(struct tdat_file *f, uint64_t off, uint64_t end, int prot,
    int flags, void **map, size_t *mlen)
{
	uint64_t base = off - off % (uint64_t)sysconf(_SC_PAGESIZE);
	struct stat st;
	void *p;

	if (end <= off || (uint64_t)(size_t)(end - base) != end - base ||
	    fstat(f->fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < end || (p = mmap(NULL, (size_t)(end - base),
	    prot, flags, f->fd, (off_t)base)) == MAP_FAILED)
		return NULL;
	*map = p;
	*mlen = (size_t)(end - base);
	return (unsigned char *)p + (off - base);
}

/* Map the n bytes at r->pos into b, privately, the byte after them
 * made a NUL, and the 4 before them mapped too (the writer puts a size
 * there); 0 when they cannot be (the caller reads them). */
static int
rd_map(struct rd *r, uint64_t n, struct tdat_blob *b)
{
	uint64_t end = r->pos + n + 1;
	unsigned char *p;

	if (r->mem || n < BLOB_MAP || end > r->f->fsize || r->pos < 4 ||
	    (p = map_range(r->f, r->pos - 4, end, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE, &b->map, &b->mlen)) == NULL)
		return 0;
	b->p = p + 4;
	b->len = n;
	b->p[n] = '\0';
	r->pos += n;
	return 1;
}

/*
 * The format files are many small blobs (1,500 in 894 KB on
 * ../shared/bench's v6 twin): each in malloc()ed memory of its own, the
 * pages they fill took 227 page faults of about 2.4 us each, on the
 * thread that opens the file before any other starts.  So they share an
 * arena (f->arena_mem): a first chunk of ARENA_FIRST bytes, as a small
 * file's formats take, then chunks on 2 MB pages (tdat_malloc_big()), a
 * fault each.
 */
#define ARENA_FIRST	((size_t)64 << 10)
#define ARENA_NEXT	((size_t)2 << 20)

/* n bytes of f's arena, or NULL when out of memory. */
static unsigned char *
arena_take(struct tdat_file *f, size_t n)
{
	unsigned char **v, *p;
	size_t cap;

	if (f->narena == 0 || f->arena_cap - f->arena_used < n) {
		cap = f->narena == 0 ? ARENA_FIRST : ARENA_NEXT;
		if (cap < n)
			cap = n;
		if ((v = realloc(f->arena_mem, (f->narena + 1) *
		    sizeof(*v))) == NULL)
			return NULL;
		f->arena_mem = v;
		if ((p = tdat_malloc_big(cap)) == NULL)
			return NULL;
		f->arena_mem[f->narena++] = p;
		f->arena_used = 0;
		f->arena_cap = cap;
	}
	p = f->arena_mem[f->narena - 1] + f->arena_used;
	f->arena_used += n;
	return p;
}

/* Read n bytes into a new blob (NUL-terminated for convenience), in f's
 * arena when arena is set (a format file). */
static int
rd_blob(struct rd *r, uint64_t n, struct tdat_blob *b, const char *what,
    int arena)
{
	b->off = rd_where(r);
	if (n > r->len || r->pos > r->len - n)
		return rd_short(r, what);
	if (rd_map(r, n, b))
		return 0;
	b->p = arena ? arena_take(r->f, (size_t)n + 1) : malloc(n + 1);
	if (b->p == NULL)
		return tdat_fail_nooff(r->e, TDAT_ENOMEM, "out of memory");
	b->arena = arena;
	b->len = n;
	b->p[n] = '\0';
	if (rd_read(r, b->p, n, what) < 0) {
		tdat_blob_free(b);
		b->len = 0;
		return r->e->code;
	}
	return 0;
}

/* A blob preceded by its size in sz bytes (arena: as rd_blob()). */
static int
rd_sized_blob(struct rd *r, int sz, struct tdat_blob *b, const char *what,
    int arena)
{
	uint64_t n, at = rd_where(r);
	int rc;

	if ((rc = rd_num(r, sz, &n, what)) < 0)
		return rc;
	if ((rc = rd_blob(r, n, b, what, arena)) < 0)
		return rc;
	b->off = at;
	return 0;
}

static int
rd_tag(struct rd *r, const char *tag, size_t n)
{
	char buf[16];
	uint64_t at = rd_where(r);
	int rc;

	if ((rc = rd_read(r, buf, n, tag)) < 0)
		return rc;
	if (memcmp(buf, tag, n) != 0)
		return tdat_fail(r->e, TDAT_ECORRUPT, at, "expected \"%s\"",
		    tag);
	return 0;
}

int
tdat_pread(struct tdat_file *f, void *dst, uint64_t off, uint64_t len,
    struct tdat_err *e)
{
	unsigned char *p = dst;
	ssize_t n;

	if (f->fd < 0)
		return tdat_fail_nooff(e, TDAT_EUNSUP, "%s: not a trace.dat "
		    "file: no container bytes to read", f->path);
	if (len > f->fsize || off > f->fsize - len)
		return tdat_fail(e, TDAT_ECORRUPT, off,
		    "%llu bytes at this offset run past the end of the file",
		    (unsigned long long)len);
	while (len > 0) {
		n = pread(f->fd, p, len > (1u << 30) ? (1u << 30) : len,
		    (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return tdat_fail(e, TDAT_EIO, off, "read: %s",
			    strerror(errno));
		if (n == 0)
			return tdat_fail(e, TDAT_ECORRUPT, off,
			    "unexpected end of file");
		p += n;
		off += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return 0;
}

/*
 * A salvage open goes on after a damaged piece: note what e says was
 * dropped and return 0.  Otherwise (or for an error that is not damage)
 * return rc.
 */
static int
salvaged(struct tdat_file *f, struct tdat_err *e, int rc)
{
	struct tdat_damage *d;

	if (!f->salvage || rc != TDAT_ECORRUPT)
		return rc;
	if ((d = realloc(f->damage, (f->ndamage + 1) * sizeof(*d))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	f->damage = d;
	d += f->ndamage++;
	d->has_off = e->has_off;
	d->off = e->off;
	snprintf(d->msg, sizeof(d->msg), "%s", e->msg);
	return 0;
}

/*
 * Salvage: keep the first keep bytes of c's data (whole pages when raw);
 * c->cut tells the rest, which the salvage page source reports.
 */
static void
cut_cpu(const struct tdat_buffer *b, struct tdat_cpu *c, uint64_t keep)
{
	if (!b->compressed && b->page_size)
		keep -= keep % b->page_size;
	c->cut = c->size - keep;
	c->size = keep;
}

/* Salvage: forget the buffer just added (its data is gone). */
static int
drop_buffer(struct tdat_file *f, struct tdat_err *e, int rc)
{
	struct tdat_buffer *b = &f->buf[f->nbuf - 1];
	char msg[sizeof(e->msg)];

	if (!f->salvage || rc != TDAT_ECORRUPT)
		return rc;
	snprintf(msg, sizeof(msg), "%s", e->msg);
	snprintf(e->msg, sizeof(e->msg), "buffer \"%.40s\": %.200s",
	    b->name ? b->name : "?", msg);
	free(b->name);
	free(b->clock);
	free(b->cpu);
	f->nbuf--;
	return salvaged(f, e, rc);
}

/* Copy standard input to an unlinked temporary file. */
static int
spool_stdin(struct tdat_err *e)
{
	char path[4096], buf[65536];
	const char *dir = getenv("TMPDIR");
	ssize_t n, w, off;
	int fd;

	snprintf(path, sizeof(path), "%s/tdat.XXXXXX", dir && *dir ? dir : "/tmp");
	if ((fd = mkstemp(path)) < 0)
		return tdat_fail_nooff(e, TDAT_EIO, "cannot spool stdin: %s",
		    strerror(errno));
	unlink(path);
	for (;;) {
		n = read(0, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		for (off = 0; off < n; off += w)
			if ((w = write(fd, buf + off, (size_t)(n - off))) < 0)
				goto fail;
	}
	return fd;
fail:
	tdat_fail_nooff(e, TDAT_EIO, "cannot spool stdin: %s", strerror(errno));
	close(fd);
	return -1;
}

const char *
tdat_string(const struct tdat_file *f, uint32_t id)
{
	const struct tdat_tracedat *td = tdat_tracedat_of(f);

	if (td->strings == NULL || id >= td->strings_len)
		return NULL;
	return (const char *)td->strings + id;
}

const char *
tdat_option_name(unsigned id)
{
	static const char *const names[TDAT_OPT_MAX] = {
		"DONE", "DATE", "CPUSTAT", "BUFFER", "TRACECLOCK", "UNAME",
		"HOOK", "OFFSET", "CPUCOUNT", "VERSION", "PROCMAPS", "TRACEID",
		"TIME_SHIFT", "GUEST", "TSC2NSEC", "STRINGS", "HEADER_INFO",
		"FTRACE_EVENTS", "EVENT_FORMATS", "KALLSYMS", "PRINTK",
		"CMDLINES", "BUFFER_TEXT", "BTF_FILE", "LAST_BOOT_INFO",
		"MODULES_FILE",
	};

	return id < TDAT_OPT_MAX ? names[id] : NULL;
}

/* ------------------------------------------------------------------ */
/* Metadata sections shared by v6 (in the file) and v7 (in sections). */

static int
read_headers(struct rd *r, struct tdat_file *f)
{
	int rc;

	if ((rc = rd_tag(r, "header_page", 12)) < 0 ||
	    (rc = rd_sized_blob(r, 8, &f->hpage, "header_page", 0)) < 0 ||
	    (rc = rd_tag(r, "header_event", 13)) < 0 ||
	    (rc = rd_sized_blob(r, 8, &f->hevent, "header_event", 0)) < 0)
		return rc;
	return 0;
}

static int
read_ftrace(struct rd *r, struct tdat_file *f)
{
	uint32_t i, n;
	int rc;

	if ((rc = rd_u32(r, &n, "ftrace event count")) < 0)
		return rc;
	if (n > MAX_COUNT || (uint64_t)n * 8 > r->len - r->pos)
		return tdat_fail(r->e, TDAT_ECORRUPT, rd_where(r),
		    "ftrace event count %u exceeds the data", n);
	if ((f->ftrace = calloc(n ? n : 1, sizeof(*f->ftrace))) == NULL)
		return tdat_fail_nooff(r->e, TDAT_ENOMEM, "out of memory");
	for (i = 0; i < n; i++, f->nftrace++)
		if ((rc = rd_sized_blob(r, 8, &f->ftrace[i],
		    "ftrace event format", 1)) < 0)
			return rc;
	return 0;
}

static int
read_systems(struct rd *r, struct tdat_file *f)
{
	struct tdat_system *s;
	uint32_t i, j, n, nev;
	int rc;

	if ((rc = rd_u32(r, &n, "event system count")) < 0)
		return rc;
	if (n > MAX_COUNT || (uint64_t)n * 5 > r->len - r->pos)
		return tdat_fail(r->e, TDAT_ECORRUPT, rd_where(r),
		    "event system count %u exceeds the data", n);
	if ((f->sys = calloc(n ? n : 1, sizeof(*f->sys))) == NULL)
		return tdat_fail_nooff(r->e, TDAT_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		s = &f->sys[i];
		f->nsys++;
		if ((rc = rd_str(r, &s->name, "event system name")) < 0 ||
		    (rc = rd_u32(r, &nev, "event count")) < 0)
			return rc;
		if (nev > MAX_COUNT || (uint64_t)nev * 8 > r->len - r->pos)
			return tdat_fail(r->e, TDAT_ECORRUPT, rd_where(r),
			    "event count %u of system %s exceeds the data",
			    nev, s->name);
		if ((s->ev = calloc(nev ? nev : 1, sizeof(*s->ev))) == NULL)
			return tdat_fail_nooff(r->e, TDAT_ENOMEM, "out of memory");
		for (j = 0; j < nev; j++, s->nev++)
			if ((rc = rd_sized_blob(r, 8, &s->ev[j],
			    "event format", 1)) < 0) {
				tdat_blob_free(&s->ev[j]);
				return rc;
			}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Buffers and options. */

static struct tdat_buffer *
add_buffer(struct tdat_file *f)
{
	struct tdat_buffer *b;

	if ((b = realloc(f->buf, (f->nbuf + 1) * sizeof(*b))) == NULL)
		return NULL;
	f->buf = b;
	b = &f->buf[f->nbuf++];
	memset(b, 0, sizeof(*b));
	b->opt_index = -1;
	return b;
}

static int
add_option(struct tdat_file *f, uint16_t id, uint32_t size, uint64_t off,
    const unsigned char *data, int sect, struct tdat_err *e)
{
	struct tdat_option *o;

	if (f->nopt >= MAX_COUNT)
		return tdat_fail(e, TDAT_ECORRUPT, off, "too many options");
	if ((o = realloc(f->opt, (f->nopt + 1) * sizeof(*o))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	f->opt = o;
	o = &f->opt[f->nopt++];
	o->id = id;
	o->size = size;
	o->off = off;
	o->data = data;
	o->sect = sect;
	return 0;
}

/* Check that n CPU records of per bytes fit in the data left. */
static int
check_cpus(struct rd *r, uint32_t n, unsigned per)
{
	if (n > MAX_COUNT || (uint64_t)n * per > r->len - r->pos)
		return tdat_fail(r->e, TDAT_ECORRUPT, rd_where(r),
		    "CPU count %u exceeds the data", n);
	return 0;
}

/* v6: ncpu (offset, size) pairs at r's position. */
static int
read_cpu_pairs(struct rd *r, struct tdat_buffer *b, uint32_t ncpu)
{
	uint32_t i;
	int rc;

	if ((rc = check_cpus(r, ncpu, 16)) < 0)
		return rc;
	if ((b->cpu = calloc(ncpu ? ncpu : 1, sizeof(*b->cpu))) == NULL)
		return tdat_fail_nooff(r->e, TDAT_ENOMEM, "out of memory");
	for (i = 0; i < ncpu; i++) {
		b->cpu[i].id = i;
		if ((rc = rd_num(r, 8, &b->cpu[i].off, "CPU data offset")) < 0 ||
		    (rc = rd_num(r, 8, &b->cpu[i].size, "CPU data size")) < 0)
			return rc;
		b->ncpu++;
	}
	return 0;
}

/* Check that each CPU's data lies inside the file (empty CPUs excepted). */
static int
check_cpu_data(struct tdat_file *f, struct tdat_buffer *b, struct tdat_err *e)
{
	uint32_t i;

	for (i = 0; i < b->ncpu; i++) {
		struct tdat_cpu *c = &b->cpu[i];

		if (c->size == 0)
			continue;
		if ((c->off > f->fsize || c->size > f->fsize - c->off) &&
		    f->salvage) {
			cut_cpu(b, c, c->off > f->fsize ? 0 : f->fsize - c->off);
			continue;
		}
		if (c->off > f->fsize || c->size > f->fsize - c->off)
			return tdat_fail(e, TDAT_ECORRUPT, c->off,
			    "buffer \"%s\" CPU %u: data size %llu exceeds file",
			    b->name, c->id, (unsigned long long)c->size);
	}
	return 0;
}

/* v6 BUFFER option: offset of the instance's CPU table, then its name. */
static int
v6_buffer(struct tdat_file *f, const struct tdat_option *o,
    const struct tdat_opt_buffer *ob, int index, struct tdat_err *e)
{
	struct tdat_buffer *b;
	struct rd r = { .f = f, .len = f->fsize, .e = e };
	int rc;

	/* Added first: a salvage open drops the last buffer added when
	 * this fails (drop_buffer), which must be this one. */
	if ((b = add_buffer(f)) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	if (ob->name == NULL)
		return tdat_fail(e, TDAT_ECORRUPT, o->off,
		    "malformed BUFFER option");
	if ((b->name = strdup(ob->name)) == NULL ||
	    (b->clock = strdup(f->buf[0].clock ? f->buf[0].clock : "local")) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	b->opt_off = ob->off;
	b->opt_index = index;
	b->page_size = f->page_size;
	r.pos = b->opt_off;
	if ((rc = rd_tag(&r, "flyrecord", 10)) < 0 ||
	    (rc = read_cpu_pairs(&r, b, f->ncpus)) < 0)
		return rc;
	return check_cpu_data(f, b, e);
}

/* A name in a v7 BUFFER option: NUL-terminated, shorter than MAX_STRING
 * bytes, of avail bytes left in the option; copied into *out. */
static int
v7_buffer_str(const struct tdat_option *o, const char *s, size_t len,
    uint64_t avail, char **out, const char *what, struct tdat_err *e)
{
	if (s == NULL && avail < MAX_STRING)
		return tdat_fail(e, TDAT_ECORRUPT, o->off, "BUFFER option: %s "
		    "runs past the end of the section", what);
	if (s == NULL || len >= MAX_STRING)
		return tdat_fail(e, TDAT_ECORRUPT, o->off, "%s is not terminated",
		    what);
	if ((*out = strdup(s)) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	return 0;
}

/* v7 BUFFER / BUFFER_TEXT option. */
static int
v7_buffer(struct tdat_file *f, const struct tdat_option *o,
    const struct tdat_opt_buffer *ob, int index, struct tdat_err *e)
{
	struct tdat_tracedat *td = TD(f);
	struct tdat_buffer *b;
	int text = o->id == TDAT_OPT_BUFFER_TEXT;
	uint64_t pos = 8;
	size_t i;
	uint32_t n;
	int rc;

	if ((b = add_buffer(f)) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	b->opt_index = index;
	b->latency = text;
	b->page_size = f->page_size;
	if (!ob->has_off)
		return tdat_fail(e, TDAT_ECORRUPT, o->off, "BUFFER option: "
		    "buffer offset runs past the end of the section");
	b->opt_off = ob->off;
	if ((rc = v7_buffer_str(o, ob->name, ob->name_len, o->size - pos,
	    &b->name, "buffer name", e)) < 0)
		return rc;
	pos += ob->name_len + 1;
	if ((rc = v7_buffer_str(o, ob->clock, ob->clock_len, o->size - pos,
	    &b->clock, "buffer clock", e)) < 0)
		return rc;
	pos += ob->clock_len + 1;
	for (i = 0; i < td->nsect; i++)
		if (td->sect[i].off == b->opt_off)
			break;
	if (i == td->nsect || td->sect[i].id != (text ? TDAT_OPT_BUFFER_TEXT :
	    TDAT_OPT_BUFFER))
		return tdat_fail(e, TDAT_ECORRUPT, o->off,
		    "buffer \"%s\" names offset %llu, which is not its section",
		    b->name, (unsigned long long)b->opt_off);
	b->compressed = (td->sect[i].flags & TDAT_SEC_COMPRESSED) != 0;
	if (b->compressed && td->codec == NULL)
		return tdat_fail(e, TDAT_ECORRUPT, td->sect[i].off,
		    "buffer \"%s\" is compressed but the file names no "
		    "compression", b->name);
	b->data_end = td->sect[i].off + 16 + td->sect[i].size;
	if (text)
		return 0;
	if (!ob->has_cpus)
		return tdat_fail(e, TDAT_ECORRUPT, o->off, "BUFFER option: %s "
		    "runs past the end of the section", o->size - pos < 4 ?
		    "buffer page size" : "buffer CPU count");
	b->page_size = ob->page_size;
	n = ob->ncpu;
	if (n > MAX_COUNT || ob->nread < n)
		return tdat_fail(e, TDAT_ECORRUPT, o->off,
		    "CPU count %u exceeds the data", n);
	if ((b->cpu = calloc(n ? n : 1, sizeof(*b->cpu))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	for (; b->ncpu < n; b->ncpu++) {
		struct tdat_cpu *c = &b->cpu[b->ncpu];

		c->id = ob->cpu[b->ncpu].id;
		c->off = ob->cpu[b->ncpu].off;
		c->size = ob->cpu[b->ncpu].size;
		if (f->salvage && c->size && c->off >= td->sect[i].off + 16 &&
		    (c->off > b->data_end || c->size > b->data_end - c->off))
			cut_cpu(b, c, c->off > b->data_end ? 0 :
			    b->data_end - c->off);
		if (c->size && (c->off < td->sect[i].off + 16 ||
		    c->off - td->sect[i].off - 16 > td->sect[i].size ||
		    c->size > td->sect[i].size -
		    (c->off - td->sect[i].off - 16)))
			return tdat_fail(e, TDAT_ECORRUPT, c->off,
			    "buffer \"%s\" CPU %u: data lies outside its section",
			    b->name, c->id);
	}
	if (b->page_size < 64 || b->page_size > (1u << 24))
		return tdat_fail(e, TDAT_ECORRUPT, o->off,
		    "buffer \"%s\": page size %u is not sane", b->name,
		    b->page_size);
	return check_cpu_data(f, b, e);
}

/* The trace clock: the selected one of a clock list (formats/tracedat/tdat-opts.h). */
static int
set_clock(struct tdat_file *f, const char *c, size_t len, struct tdat_err *e)
{
	char *clk;

	if (c == NULL)
		return 0;
	if ((clk = strndup(c, len)) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	free(f->trace_clock);
	f->trace_clock = clk;
	return 0;
}

/* What the file takes from an option: the trace clock, (v7) CPU count. */
static int
note_option(struct tdat_file *f, const struct tdat_optval *v,
    struct tdat_err *e)
{
	if (v->id == TDAT_OPT_TRACECLOCK) {
		f->has_clock_data = 1;
		return set_clock(f, v->u.text.clock, v->u.text.clock_len, e);
	}
	if (v->id == TDAT_OPT_CPUCOUNT && v->u.num.width == 4 &&
	    f->version >= 7) {
		if (v->u.num.value > MAX_COUNT)
			return tdat_fail_nooff(e, TDAT_ECORRUPT, "CPU count %llu "
			    "is not sane", (unsigned long long)v->u.num.value);
		f->ncpus = (uint32_t)v->u.num.value;
	}
	return 0;
}

/* v6: note_option() over every option, once all are read. */
static int
note_options(struct tdat_file *f, struct tdat_err *e)
{
	const struct tdat_optval *ov;
	size_t i;
	int rc;

	if ((rc = tdat_options(f, &ov, e)) < 0)
		return rc;
	for (i = 0; i < f->nopt; i++)
		if ((rc = note_option(f, &ov[i], e)) < 0)
			return rc;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Version 6. */

static int
v6_options(struct rd *r, struct tdat_file *f)
{
	uint64_t id, size, start = r->pos;
	unsigned char *blob;
	size_t n;
	int rc;

	/* First pass: find the end of the list to read it in one piece. */
	for (n = 0;; n++) {
		if ((rc = rd_num(r, 2, &id, "option id")) < 0)
			return rc;
		if (id == 0)
			break;
		if ((rc = rd_num(r, 4, &size, "option size")) < 0)
			return rc;
		if (size > r->len - r->pos)
			return tdat_fail(r->e, TDAT_ECORRUPT, r->pos - 6,
			    "option %u size %llu exceeds file", (unsigned)id,
			    (unsigned long long)size);
		r->pos += size;
		if (n >= MAX_COUNT)
			return tdat_fail(r->e, TDAT_ECORRUPT, start,
			    "too many options");
	}
	if ((blob = malloc(r->pos - start)) == NULL)
		return tdat_fail_nooff(r->e, TDAT_ENOMEM, "out of memory");
	f->opt_blobs = realloc(f->opt_blobs, (f->nopt_blobs + 1) * sizeof(*f->opt_blobs));
	if (f->opt_blobs == NULL) {
		free(blob);
		return tdat_fail_nooff(r->e, TDAT_ENOMEM, "out of memory");
	}
	f->opt_blobs[f->nopt_blobs++] = blob;
	if ((rc = tdat_pread(f, blob, start, r->pos - start, r->e)) < 0)
		return rc;
	/* Second pass over memory. */
	{
		uint64_t p = 0, end = r->pos - start;

		while (p + 2 <= end) {
			uint16_t oid = tdat_get16(blob + p, f->big);
			uint32_t osz;

			if (oid == 0)
				break;
			osz = tdat_get32(blob + p + 2, f->big);
			if ((rc = add_option(f, oid, osz, start + p + 6,
			    blob + p + 6, -1, r->e)) < 0)
				return rc;
			/* The clock text follows the CPU data (read_v6). */
			if (oid == TDAT_OPT_TRACECLOCK)
				f->has_clock_data = 1;
			p += 6 + (uint64_t)osz;
		}
	}
	return 0;
}

static int
v6_buffers(struct tdat_file *f, struct tdat_err *e)
{
	const struct tdat_optval *ov;
	size_t i, n = f->nopt;
	int rc;

	if ((rc = tdat_options(f, &ov, e)) < 0)
		return rc;
	for (i = 0; i < n; i++)
		if (f->opt[i].id == TDAT_OPT_BUFFER &&
		    (rc = v6_buffer(f, &f->opt[i], &ov[i].u.buf, (int)i, e)) < 0 &&
		    (rc = drop_buffer(f, e, rc)) < 0)
			return rc;
	return 0;
}

static void v6_ktable(struct tdat_file *);

static int
read_v6(struct rd *r, struct tdat_file *f)
{
	struct tdat_tracedat *td = TD(f);
	struct tdat_buffer *top;
	char tag[10];
	uint64_t at;
	int rc;

	if ((rc = read_headers(r, f)) < 0 || (rc = read_ftrace(r, f)) < 0 ||
	    (rc = read_systems(r, f)) < 0 ||
	    (rc = rd_sized_blob(r, 4, &f->kallsyms, "kallsyms", 0)) < 0)
		return rc;
	v6_ktable(f);
	if ((rc = rd_sized_blob(r, 4, &f->printk, "printk formats", 0)) < 0 ||
	    (rc = rd_sized_blob(r, 8, &f->cmdlines, "saved cmdlines", 0)) < 0 ||
	    (rc = rd_u32(r, &f->ncpus, "CPU count")) < 0)
		return rc;
	if (f->ncpus > MAX_COUNT)
		return tdat_fail(r->e, TDAT_ECORRUPT, r->pos - 4,
		    "CPU count %u is not sane", f->ncpus);
	if ((top = add_buffer(f)) == NULL || (top->name = strdup("")) == NULL ||
	    (top->clock = strdup("local")) == NULL)
		return tdat_fail_nooff(r->e, TDAT_ENOMEM, "out of memory");
	top->page_size = f->page_size;
	for (;;) {
		at = r->pos;
		if (r->len - r->pos < 10)
			break;
		if ((rc = rd_read(r, tag, 10, "section tag")) < 0)
			return rc;
		if (memcmp(tag, "options  \0", 10) == 0) {
			f->v6_options = 1;
			if ((rc = v6_options(r, f)) < 0)
				return rc;
		} else if (memcmp(tag, "latency  \0", 10) == 0) {
			f->latency = 1;
			f->latency_off = r->pos;
			f->buf[0].latency = 1;
			break;
		} else if (memcmp(tag, "flyrecord\0", 10) == 0) {
			if ((rc = read_cpu_pairs(r, &f->buf[0], f->ncpus)) < 0)
				return rc;
			if (f->has_clock_data) {
				struct tdat_blob clk;

				td->clock_off = r->pos;
				if ((rc = rd_sized_blob(r, 8, &clk,
				    "trace clock", 0)) < 0)
					return rc;
				f->clock_data = (char *)clk.p;
			}
			break;
		} else {
			r->pos = at;
			return tdat_fail(r->e, TDAT_ECORRUPT, at,
			    "expected options, latency or flyrecord");
		}
	}
	if (!f->latency && f->buf[0].cpu == NULL && f->ncpus > 0)
		return tdat_fail(r->e, TDAT_ECORRUPT, r->pos,
		    "no flyrecord or latency data");
	if ((rc = note_options(f, r->e)) < 0)
		return rc;
	if (f->clock_data) {
		const char *c;
		size_t len;

		c = tdat_clock_selected(f->clock_data, strlen(f->clock_data),
		    &len);
		if ((rc = set_clock(f, c, len, r->e)) < 0)
			return rc;
	}
	if (f->trace_clock) {
		free(f->buf[0].clock);
		if ((f->buf[0].clock = strdup(f->trace_clock)) == NULL)
			return tdat_fail_nooff(r->e, TDAT_ENOMEM, "out of memory");
	}
	if ((rc = check_cpu_data(f, &f->buf[0], r->e)) < 0)
		return rc;
	return v6_buffers(f, r->e);
}

/* ------------------------------------------------------------------ */
/* Version 7. */

/* Load a section's payload into memory, decompressing it if flagged. */
static int
load_section(struct tdat_file *f, const struct tdat_section *s,
    unsigned char **out, uint64_t *len, struct tdat_err *e)
{
	struct tdat_tracedat *td = TD(f);
	uint64_t data = s->off + 16;
	unsigned char *c, *u;
	int rc;

	*out = NULL;
	if (!(s->flags & TDAT_SEC_COMPRESSED)) {
		if ((u = malloc(s->size + 1)) == NULL)
			return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		if ((rc = tdat_pread(f, u, data, s->size, e)) < 0) {
			free(u);
			return rc;
		}
		u[s->size] = '\0';
		*out = u;
		*len = s->size;
		return 0;
	}
	if (td->codec == NULL)
		return tdat_fail(e, TDAT_ECORRUPT, s->off,
		    "section is compressed but the file names no compression");
	if ((uint64_t)s->csize + 8 > s->size)
		return tdat_fail(e, TDAT_ECORRUPT, s->off,
		    "compressed size %u exceeds section size %llu", s->csize,
		    (unsigned long long)s->size);
	if (s->usize > (1u << 30) || s->usize > 1024 * (uint64_t)s->csize + 4096)
		return tdat_fail(e, TDAT_ECORRUPT, s->off,
		    "uncompressed size %u is not sane", s->usize);
	/* (filled through: a large one on 2 MB pages, tdat_malloc_big()) */
	if ((c = malloc(s->csize ? s->csize : 1)) == NULL ||
	    (u = tdat_malloc_big((size_t)s->usize + 1)) == NULL) {
		free(c);
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	if ((rc = tdat_pread(f, c, data + 8, s->csize, e)) < 0)
		goto fail;
	if (tdat_codec_decompress(td->codec, c, s->csize, u, s->usize) < 0) {
		rc = tdat_fail(e, TDAT_ECORRUPT, data + 8,
		    "%s data does not decompress to %u bytes",
		    tdat_codec_name(td->codec), s->usize);
		goto fail;
	}
	free(c);
	u[s->usize] = '\0';
	*out = u;
	*len = s->usize;
	return 0;
fail:
	free(c);
	free(u);
	return rc;
}

/* Walk every section header from off to the end of the file. */
static int
v7_walk(struct tdat_file *f, uint64_t off, struct tdat_err *e)
{
	struct tdat_tracedat *td = TD(f);
	unsigned char h[16];
	struct tdat_section *s;
	int rc;

	while (f->fsize - off >= 16) {
		if ((rc = tdat_pread(f, h, off, 16, e)) < 0)
			return rc;
		if (td->nsect >= MAX_COUNT)
			return tdat_fail(e, TDAT_ECORRUPT, off, "too many sections");
		if ((s = realloc(td->sect, (td->nsect + 1) * sizeof(*s))) ==
		    NULL)
			return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		td->sect = s;
		s = &td->sect[td->nsect++];
		memset(s, 0, sizeof(*s));
		s->id = tdat_get16(h, f->big);
		s->flags = tdat_get16(h + 2, f->big);
		s->name_id = tdat_get32(h + 4, f->big);
		s->size = tdat_get64(h + 8, f->big);
		s->off = off;
		if (s->size > f->fsize - off - 16) {
			rc = tdat_fail(e, TDAT_ECORRUPT, off,
			    "section size %llu exceeds file",
			    (unsigned long long)s->size);
			if (!f->salvage)
				return rc;
			/* Salvage: the file was cut inside this section. */
			s->size = f->fsize - off - 16;
			if ((rc = salvaged(f, e, rc)) < 0)
				return rc;
			if ((s->flags & TDAT_SEC_COMPRESSED) &&
			    s->id != TDAT_OPT_BUFFER &&
			    s->id != TDAT_OPT_BUFFER_TEXT)
				td->nsect--;
			break;
		}
		if ((s->flags & TDAT_SEC_COMPRESSED) && s->id != TDAT_OPT_BUFFER &&
		    s->id != TDAT_OPT_BUFFER_TEXT) {
			if (s->size < 8)
				return tdat_fail(e, TDAT_ECORRUPT, off,
				    "compressed section too small");
			if ((rc = tdat_pread(f, h, off + 16, 8, e)) < 0)
				return rc;
			s->csize = tdat_get32(h, f->big);
			s->usize = tdat_get32(h + 4, f->big);
		}
		off += 16 + s->size;
	}
	if (f->salvage && off < f->fsize && f->fsize - off < 16) {
		rc = tdat_fail(e, TDAT_ECORRUPT, off, "%llu bytes at the end "
		    "are not a section", (unsigned long long)(f->fsize - off));
		return salvaged(f, e, rc);
	}
	return 0;
}

static int
v7_strings(struct tdat_file *f, struct tdat_err *e)
{
	struct tdat_tracedat *td = TD(f);
	unsigned char *p, *s;
	uint64_t len;
	size_t i;
	int rc;

	for (i = 0; i < td->nsect; i++) {
		if (td->sect[i].id != TDAT_OPT_STRINGS)
			continue;
		if ((rc = load_section(f, &td->sect[i], &p, &len, e)) < 0)
			return rc;
		s = realloc(td->strings, td->strings_len + len + 1);
		if (s == NULL) {
			free(p);
			return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		}
		memcpy(s + td->strings_len, p, len);
		td->strings = s;
		td->strings_len += len;
		s[td->strings_len] = '\0';
		free(p);
	}
	return 0;
}

/* Every section names itself with an offset into the strings. */
static int
v7_names(struct tdat_file *f, struct tdat_err *e)
{
	struct tdat_tracedat *td = TD(f);
	size_t i;

	for (i = 0; i < td->nsect; i++)
		if (tdat_string(f, td->sect[i].name_id) == NULL)
			return tdat_fail(e, TDAT_ECORRUPT, td->sect[i].off,
			    "section name %u is not in the strings table%s",
			    td->sect[i].name_id, td->strings ? "" :
			    " (the file has no strings section)");
	return 0;
}

static const struct tdat_section *
find_section(const struct tdat_file *f, uint64_t off)
{
	struct tdat_tracedat *td = TD(f);
	size_t i;

	for (i = 0; i < td->nsect; i++)
		if (td->sect[i].off == off)
			return &td->sect[i];
	return NULL;
}

/* A sized blob that is all that is left of a section's payload p (of
 * len bytes and a NUL): moved to the start of p, which b takes over, so
 * that a large kallsyms is not held twice. */
static int
take_sized_blob(struct rd *r, int sz, struct tdat_blob *b, const char *what,
    unsigned char **p)
{
	uint64_t n, at = rd_where(r);
	int rc;

	if ((rc = rd_num(r, sz, &n, what)) < 0)
		return rc;
	if (n > r->len || r->pos > r->len - n)
		return rd_short(r, what);
	memmove(*p, *p + r->pos, n);
	(*p)[n] = '\0';
	b->p = *p;
	b->len = n;
	b->off = at;
	*p = NULL;
	return 0;
}

/* take_sized_blob() of a section whose text the kallsyms thread took
 * already (tlen bytes at *p, then a NUL). */
static int
take_text(struct rd *r, uint64_t tlen, struct tdat_blob *b,
    unsigned char **p)
{
	b->p = *p;
	b->len = tlen;
	b->off = rd_where(r);
	*p = NULL;
	return 0;
}

/*
 * The sections trace-cmd 3.4 adds: BTF_FILE and MODULES_FILE name them.
 * The modules text is read now (it is small); the BTF is only located.
 */
static int
v7_extra(struct tdat_file *f, uint16_t id, const struct tdat_opt_ref *ref,
    uint64_t off, struct tdat_err *e)
{
	struct tdat_tracedat *td = TD(f);
	const struct tdat_section *s;
	unsigned char *p;
	uint64_t len;
	int rc;

	if (!ref->valid)
		return tdat_fail(e, TDAT_ECORRUPT, off, "option %s too small",
		    tdat_option_name(id));
	if ((s = find_section(f, ref->off)) == NULL || s->id != id)
		return tdat_fail(e, TDAT_ECORRUPT, off,
		    "option %s names offset %llu, which is not its section",
		    tdat_option_name(id), (unsigned long long)ref->off);
	if (id == TDAT_OPT_BTF_FILE) {
		td->btf_sect = s->off;
		f->btf_load = tdat_btf;
		return 0;
	}
	if ((rc = load_section(f, s, &p, &len, e)) < 0)
		return rc;
	f->modules.p = p;
	f->modules.len = len;
	f->modules.off = s->off;
	return 0;
}

int
tdat_btf(struct tdat_file *f, struct tdat_err *e)
{
	struct tdat_tracedat *td = TD(f);
	const struct tdat_section *s;
	unsigned char *p;
	uint64_t len;
	int rc;

	if (f->btf.p != NULL)
		return 1;
	if (td->btf_sect == 0 || (s = find_section(f, td->btf_sect)) == NULL)
		return 0;
	if ((rc = load_section(f, s, &p, &len, e)) < 0)
		return rc;
	f->btf.p = p;
	f->btf.len = len;
	f->btf.off = s->off;
	return 1;
}

/*
 * A large compressed kallsyms section read and decompressed on a thread
 * of its own (kload_start(), from v7_apply()) while this one loads the
 * headers and the event formats before it: 4 MB of kallsyms were most
 * of the start of a time cut from a v7 zstd input (tdat-cat, tdat-dump).
 * v7_meta() takes its text when it comes to the section; a thread that
 * failed (or none) leaves the section to load_section(), whose errors
 * are the same as ever.  The thread reads the file (pread) and its own
 * memory only, and decompresses with a codec of its own.  When the text
 * is done with (ready), it is the thread's no more but for reading: the
 * table of kallsyms_table is built from it after that.
 */
#define KLOAD_MIN	(256u * 1024)

struct kload {
	pthread_t th;
	struct tdat_file *f;
	struct tdat_codec *codec;
	uint64_t off;			/* the section's */
	uint64_t data;			/* its compressed bytes */
	uint32_t csize, usize;
	int big;
	unsigned char *c;		/* its compressed bytes, read */
	/* the section, NULL if it failed; or when tlen > 0 the text its
	 * first 4 bytes size, moved to the start (tlen bytes, then a NUL),
	 * as take_sized_blob() would */
	unsigned char *u;
	uint64_t tlen;
	const char *v6text;		/* v6: the table's text (f's) */
	/* the lines of that text, checked: the writer's refusal
	 * (tdat_text_refuse_known()) needs not read them again on the
	 * opening thread */
	struct tdat_text_check check;
	uint64_t checked;		/* bytes of text checked, or 0 */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int ready;			/* all of the above set (under mu) */
	/* kallsyms_table: the symbol table of that text instead of the
	 * check, or NULL (only a writer reads the check; tdat-dump
	 * --records, tdat-to-json and tdat-to-table the table); built
	 * after ready, given up at stop */
	int table;
	atomic_int stop;
	struct tdat_events *syms;
};

/*
 * kallsyms_table: the symbol table is built on the thread for texts up
 * to this size only.  A trace that prints no symbol never needs one, and
 * a table holds ~60% of its text: hip24-host-trace's 15 MB would cost 12
 * MB for nothing (t/dump.bats).  A kernel's own kallsyms are 4-6 MB.
 */
#define KTABLE_MAX	(8u << 20)

static void *
kload_main(void *arg)
{
	struct kload *kl = arg;
	struct tdat_err e = { 0 };
	const char *text = NULL;
	uint32_t n = 0;

	if (tdat_pread(kl->f, kl->c, kl->data, kl->csize, &e) < 0 ||
	    tdat_codec_decompress(kl->codec, kl->c, kl->csize, kl->u,
	    kl->usize) < 0) {
		free(kl->u);
		kl->u = NULL;
	}
	free(kl->c);
	kl->c = NULL;
	if (kl->u != NULL && (n = tdat_get32(kl->u, kl->big)) != 0 &&
	    n <= kl->usize - 4) {
		memmove(kl->u, kl->u + 4, n);
		kl->u[n] = '\0';
		kl->tlen = n;
		text = (const char *)kl->u;
		if (!kl->table) {
			tdat_text_check(TDAT_TEXT_KALLSYMS, text, n,
			    &kl->check);
			kl->checked = n;
		}
	}
	pthread_mutex_lock(&kl->mu);
	kl->ready = 1;
	pthread_cond_signal(&kl->cv);
	pthread_mutex_unlock(&kl->mu);
	if (text != NULL && kl->table && n <= KTABLE_MAX)
		kl->syms = tdat_syms_build(text, n, &kl->stop);
	return NULL;
}

/* A kload of f, its thread not begun; NULL when out of memory. */
static struct kload *
kload_new(struct tdat_file *f)
{
	struct kload *kl;

	if ((kl = calloc(1, sizeof(*kl))) == NULL)
		return NULL;
	kl->f = f;
	atomic_init(&kl->stop, 0);
	pthread_mutex_init(&kl->mu, NULL);
	pthread_cond_init(&kl->cv, NULL);
	return kl;
}

/* kl and what it holds freed (its thread ended, or never begun). */
static void
kload_free(struct kload *kl)
{
	tdat_codec_free(kl->codec);
	free(kl->u);
	free(kl->c);
	pthread_cond_destroy(&kl->cv);
	pthread_mutex_destroy(&kl->mu);
	free(kl);
}

/* The section of the first KALLSYMS option, begun when large and sound
 * as load_section() checks it; NULL otherwise. */
static struct kload *
kload_start(struct tdat_file *f, const struct tdat_optval *ov)
{
	struct tdat_tracedat *td = TD(f);
	const struct tdat_section *s = NULL;
	struct kload *kl;
	size_t i;

	for (i = 0; i < f->nopt; i++)
		if (f->opt[i].id == TDAT_OPT_KALLSYMS) {
			if (ov[i].u.ref.valid)
				s = find_section(f, ov[i].u.ref.off);
			break;
		}
	if (s == NULL || s->id != TDAT_OPT_KALLSYMS || td->codec == NULL ||
	    !(s->flags & TDAT_SEC_COMPRESSED) || s->csize == 0 ||
	    (uint64_t)s->csize + 8 > s->size || s->usize < KLOAD_MIN ||
	    s->usize > (1u << 30) || s->usize > 1024 * (uint64_t)s->csize +
	    4096 || (kl = kload_new(f)) == NULL)
		return NULL;
	kl->off = s->off;
	kl->data = s->off + 16 + 8;
	kl->csize = s->csize;
	kl->usize = s->usize;
	kl->big = f->big;
	kl->table = td->ktable_ok && !f->salvage;
	/* the buffers from this thread's malloc arena: taken from the
	 * thread's own, their 4 MB stayed there as well as here once freed
	 * (tdat-verify of 200 files peaked at 37 MiB, not 20) */
	if ((kl->c = tdat_malloc_big(kl->csize)) == NULL ||
	    (kl->u = tdat_malloc_big((size_t)kl->usize + 1)) == NULL ||
	    (kl->codec = tdat_codec_new(tdat_codec_name(td->codec))) == NULL ||
	    tdat_thread_start(&kl->th, kload_main, kl) != 0) {
		kload_free(kl);
		return NULL;
	}
	return kl;
}

/* The thread ended (its table given up first unless want) and freed:
 * its table if want, else NULL. */
static struct tdat_events *
kload_end(struct kload *kl, int want)
{
	struct tdat_events *t;

	if (kl == NULL)
		return NULL;
	if (!want)
		atomic_store(&kl->stop, 1);
	pthread_join(kl->th, NULL);
	t = kl->syms;
	if (!want) {
		tdat_events_free(t);
		t = NULL;
	}
	kload_free(kl);
	return t;
}

/* f->ksyms_late: the table of the kallsyms f keeps (lib/event takes it
 * at a set's first symbol lookup). */
static struct tdat_events *
ksyms_late(struct tdat_file *f)
{
	struct tdat_tracedat *td = TD(f);
	struct kload *kl = td->kbuild;

	f->ksyms_late = NULL;
	td->kbuild = NULL;
	return kload_end(kl, 1);
}

/*
 * v6, kallsyms_table: the table of the kallsyms just read (f's text, read
 * only until kload_end()) built on a thread while the open reads on and
 * the readers seek.  A 10 ms cut of a 415.7 MB v6 trace built it at its
 * first symbol: a quarter of its CPU.  As for v7, only texts of
 * KLOAD_MIN to KTABLE_MAX bytes.
 */
static void *
ktable_main(void *arg)
{
	struct kload *kl = arg;

	kl->syms = tdat_syms_build(kl->v6text, kl->tlen, &kl->stop);
	return NULL;
}

static void
v6_ktable(struct tdat_file *f)
{
	struct tdat_tracedat *td = TD(f);
	struct kload *kl;

	if (!td->ktable_ok || f->salvage || f->kallsyms.len < KLOAD_MIN ||
	    f->kallsyms.len > KTABLE_MAX || (kl = kload_new(f)) == NULL)
		return;
	kl->table = 1;
	kl->ready = 1;
	kl->v6text = (const char *)f->kallsyms.p;
	kl->tlen = f->kallsyms.len;
	if (tdat_thread_start(&kl->th, ktable_main, kl) != 0) {
		kload_free(kl);
		return;
	}
	td->kbuild = kl;
	f->ksyms_late = ksyms_late;
}

/*
 * The thread's text for section s, or NULL: load_section() then.  Its
 * lines' check goes to TD(f)->kcheck when it was of the text f keeps.
 * *tlen > 0: the text is what take_sized_blob() makes of the section,
 * and the thread, when it builds their table, goes on in TD(f)->kbuild.
 */
static unsigned char *
kload_take(struct tdat_file *f, struct kload **klp,
    const struct tdat_section *s, uint64_t *tlen)
{
	struct tdat_tracedat *td = TD(f);
	struct kload *kl = *klp;
	unsigned char *u;

	*tlen = 0;
	if (kl == NULL || kl->off != s->off || f->kallsyms.p != NULL)
		return NULL;
	pthread_mutex_lock(&kl->mu);
	while (!kl->ready)
		pthread_cond_wait(&kl->cv, &kl->mu);
	pthread_mutex_unlock(&kl->mu);
	if (kl->u != NULL && kl->checked && !f->salvage) {
		td->kcheck = kl->check;
		td->kchecked = 1;
		td->kcheck_len = kl->checked;
	}
	u = kl->u;
	kl->u = NULL;
	*klp = NULL;
	if (u != NULL && (*tlen = kl->tlen) == 0)
		u[s->usize] = '\0';
	if (*tlen > 0 && kl->table) {
		kload_end(td->kbuild, 0);
		td->kbuild = kl;
	} else
		kload_end(kl, 0);
	return u;
}

/* A metadata section named by an option: parse it into f. */
static int
v7_meta(struct tdat_file *f, uint16_t id, const struct tdat_opt_ref *ref,
    uint64_t off, struct kload **kl, struct tdat_err *e)
{
	struct tdat_tracedat *td = TD(f);
	const struct tdat_section *s;
	struct rd r = { .f = f, .e = e };
	unsigned char *p;
	uint64_t where, len, tlen = 0;
	int rc;

	if (!ref->valid)
		return tdat_fail(e, TDAT_ECORRUPT, off, "option %s too small",
		    tdat_option_name(id));
	where = ref->off;
	if ((s = find_section(f, where)) == NULL || s->id != id)
		return tdat_fail(e, TDAT_ECORRUPT, off,
		    "option %s names offset %llu, which is not its section",
		    tdat_option_name(id), (unsigned long long)where);
	if (id == TDAT_OPT_KALLSYMS && (p = kload_take(f, kl, s, &tlen)) !=
	    NULL)
		len = s->usize;
	else if ((rc = load_section(f, s, &p, &len, e)) < 0)
		return rc;
	r.mem = p;
	r.len = len;
	r.base = s->off;
	r.what = tdat_option_name(id);
	switch (id) {
	case TDAT_OPT_HEADER_INFO:
		rc = read_headers(&r, f);
		break;
	case TDAT_OPT_FTRACE_EVENTS:
		rc = read_ftrace(&r, f);
		break;
	case TDAT_OPT_EVENT_FORMATS:
		rc = read_systems(&r, f);
		break;
	case TDAT_OPT_KALLSYMS:
		td->ksec_csize = 0;
		if (f->kallsyms.p == NULL) {
			rc = tlen ? take_text(&r, tlen, &f->kallsyms, &p) :
			    take_sized_blob(&r, 4, &f->kallsyms, "kallsyms",
			    &p);
			if (rc < 0 || f->kallsyms.len != td->kcheck_len)
				td->kchecked = 0;
			/* the table of the text f keeps, being built */
			if (rc == 0 && tlen && td->kbuild != NULL)
				f->ksyms_late = ksyms_late;
			else {
				kload_end(td->kbuild, 0);
				td->kbuild = NULL;
			}
			if (rc == 0 && (s->flags & TDAT_SEC_COMPRESSED) &&
			    len == f->kallsyms.len + 4) {
				td->ksec_data = s->off + 16 + 8;
				td->ksec_csize = s->csize;
				td->ksec_usize = s->usize;
			}
		} else {
			td->kchecked = 0;
			rc = rd_sized_blob(&r, 4, &f->kallsyms, "kallsyms", 0);
		}
		break;
	case TDAT_OPT_PRINTK:
		rc = rd_sized_blob(&r, 4, &f->printk, "printk formats", 0);
		break;
	case TDAT_OPT_CMDLINES:
		rc = rd_sized_blob(&r, 8, &f->cmdlines, "saved cmdlines", 0);
		break;
	}
	free(p);
	return rc;
}

uint64_t
tdat_text_where(const struct tdat_file *f, const struct tdat_blob *b,
    uint64_t at, int *exact)
{
	uint64_t sz = b == &f->cmdlines ? 8 : 4;
	const struct tdat_section *s;

	*exact = 1;
	if (f->version < 7)
		return b->off + sz + at;
	if ((s = find_section(f, b->off)) == NULL) {
		*exact = 0;
		return b->off;
	}
	if (s->flags & TDAT_SEC_COMPRESSED) {
		*exact = 0;
		return s->off + 16 + 8;
	}
	return s->off + 16 + sz + at;
}

/*
 * Salvage: the lines of kallsyms, printk formats and cmdlines that are
 * not of the kernel's shape (lib/event/texts.c) are dropped, and noted.
 */
static int
salvage_texts(struct tdat_file *f, struct tdat_err *e)
{
	struct tdat_blob *b[] = { &f->kallsyms, &f->printk, &f->cmdlines };
	struct tdat_text_check r;
	char msg[TDAT_TEXT_SAY];
	uint64_t at;
	int i, exact, rc;

	for (i = 0; i < 3; i++) {
		if (b[i]->p == NULL || b[i]->len == 0 || b[i]->len > SIZE_MAX)
			continue;
		b[i]->len = tdat_text_drop_bad((enum tdat_text)i,
		    (char *)b[i]->p, (size_t)b[i]->len, &r);
		if (r.bad == 0)
			continue;
		b[i]->p[b[i]->len] = '\0';	/* inside the old text */
		f->text_dropped += r.bad;
		at = tdat_text_where(f, b[i], r.first_at, &exact);
		tdat_fail(e, TDAT_ECORRUPT, at, "%s", tdat_text_say(msg,
		    sizeof(msg), (enum tdat_text)i, 1, &r, exact));
		if ((rc = salvaged(f, e, TDAT_ECORRUPT)) < 0)
			return rc;
	}
	return 0;
}

/* Salvage: whether the options of section si were read already. */
static int
visited(const struct tdat_file *f, int si)
{
	size_t i;

	for (i = 0; i < f->nopt; i++)
		if (f->opt[i].sect == si)
			return 1;
	return 0;
}

static int
v7_options(struct tdat_file *f, struct tdat_err *e)
{
	struct tdat_tracedat *td = TD(f);
	const struct tdat_section *s;
	uint64_t off = td->first_opt, len, p;
	unsigned char *blob, **nb;
	size_t hops = 0;
	int rc, si;

	while (off != 0) {
		if ((s = find_section(f, off)) == NULL || s->id != 0)
			return tdat_fail(e, TDAT_ECORRUPT, off,
			    "no options section at this offset");
		if (++hops > td->nsect)
			return tdat_fail(e, TDAT_ECORRUPT, off,
			    "options sections form a loop");
		si = (int)(s - td->sect);
		if (f->salvage && visited(f, si))
			return tdat_fail(e, TDAT_ECORRUPT, off,
			    "options sections form a loop");
		if ((rc = load_section(f, s, &blob, &len, e)) < 0)
			return rc;
		if ((nb = realloc(f->opt_blobs, (f->nopt_blobs + 1) *
		    sizeof(*nb))) == NULL) {
			free(blob);
			return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		}
		f->opt_blobs = nb;
		f->opt_blobs[f->nopt_blobs++] = blob;
		off = 0;
		for (p = 0;;) {
			uint16_t id;
			uint32_t size;
			uint64_t at = (s->flags & TDAT_SEC_COMPRESSED) ?
			    s->off : s->off + 16 + p + 6;

			if (len - p < 6)
				return tdat_fail(e, TDAT_ECORRUPT, s->off,
				    "options section ends without DONE");
			id = tdat_get16(blob + p, f->big);
			size = tdat_get32(blob + p + 2, f->big);
			p += 6;
			if (size > len - p)
				return tdat_fail(e, TDAT_ECORRUPT, at - 6,
				    "option %u size %u exceeds its section",
				    id, size);
			if ((rc = add_option(f, id, size, at, blob + p, si,
			    e)) < 0)
				return rc;
			if (id == TDAT_OPT_DONE) {
				if (size >= 8)
					off = tdat_get64(blob + p, f->big);
				break;
			}
			p += size;
		}
	}
	return 0;
}

/* Salvage: name the option whose section is damaged in e's message. */
static int
named(struct tdat_err *e, uint16_t id, int rc)
{
	char msg[sizeof(e->msg)];

	snprintf(msg, sizeof(msg), "%s", e->msg);
	snprintf(e->msg, sizeof(e->msg), "%s: %.200s", tdat_option_name(id),
	    msg);
	return rc;
}

/*
 * kallsyms_later: the kallsyms option's section, when its thread loads
 * it, left to tdat_kallsyms_wait() rather than waited for here: a time
 * cut of a large v7 zstd trace waited 5 to 10 ms for its 4 MB of
 * kallsyms to decompress and be checked before it could go on (tdat-cat
 * copies them compressed as they are, and takes their verdict at the
 * end, formats/tracedat/tracedat-write.c klater_copy()).  1 if so.
 */
static int kallsyms_wait(struct tdat_file *, struct tdat_err *);

static int
kallsyms_defer(struct tdat_file *f, struct kload **kl,
    const struct tdat_opt_ref *ref, uint64_t off)
{
	struct tdat_tracedat *td = TD(f);

	if (!td->klater_ok || *kl == NULL || f->salvage || !ref->valid)
		return 0;
	td->klater = *kl;
	*kl = NULL;
	td->ksect = ref->off;
	td->kopt = off;
	f->kallsyms_wait = kallsyms_wait;
	return 1;
}

/* f->kallsyms_wait, for tdat_kallsyms_wait() (lib/read/file.c). */
static int
kallsyms_wait(struct tdat_file *f, struct tdat_err *e)
{
	struct tdat_tracedat *td = TD(f);
	struct tdat_opt_ref ref = { 1, 0 };
	struct kload *kl;
	int rc;

	if (td->klater == NULL)
		return 0;
	kl = td->klater;
	td->klater = NULL;
	ref.off = td->ksect;
	rc = v7_meta(f, TDAT_OPT_KALLSYMS, &ref, td->kopt, &kl, e);
	kload_end(kl, 0);
	return rc;
}

/* An open that failed past the kallsyms left loading fails as it would
 * have on them first, if they are damaged. */
static int
kallsyms_first(struct tdat_file *f, int rc, struct tdat_err *e)
{
	struct tdat_err ke = { 0 };
	int r;

	if ((r = tdat_kallsyms_wait(f, &ke)) < 0) {
		*e = ke;
		return r;
	}
	return rc;
}

/* Second pass over the options: metadata sections and buffers.  An
 * option naming a metadata section again is passed over: the first one
 * counts (tdat-verify: option-twice). */
static int
v7_apply(struct tdat_file *f, struct tdat_err *e)
{
	struct tdat_tracedat *td = TD(f);
	const struct tdat_optval *ov;
	struct kload *kl;
	size_t i, n = f->nopt;
	unsigned meta = 0, bit;
	int rc;

	if ((rc = tdat_options(f, &ov, e)) < 0)
		return rc;
	kl = kload_start(f, ov);
	for (i = 0; i < n && rc == 0; i++) {
		struct tdat_option *o = &f->opt[i];

		switch (o->id) {
		case TDAT_OPT_HEADER_INFO: case TDAT_OPT_FTRACE_EVENTS:
		case TDAT_OPT_EVENT_FORMATS: case TDAT_OPT_KALLSYMS:
		case TDAT_OPT_PRINTK: case TDAT_OPT_CMDLINES:
			bit = 1u << (o->id - TDAT_OPT_HEADER_INFO);
			if (meta & bit)
				break;
			meta |= bit;
			if (o->id == TDAT_OPT_KALLSYMS &&
			    kallsyms_defer(f, &kl, &ov[i].u.ref, o->off))
				break;
			rc = v7_meta(f, o->id, &ov[i].u.ref, o->off, &kl, e);
			if (rc < 0 && f->salvage && (o->id == TDAT_OPT_KALLSYMS ||
			    o->id == TDAT_OPT_PRINTK || o->id == TDAT_OPT_CMDLINES))
				rc = salvaged(f, e, named(e, o->id, rc));
			break;
		case TDAT_OPT_BTF_FILE: case TDAT_OPT_MODULES_FILE:
			bit = 1u << (o->id - TDAT_OPT_HEADER_INFO);
			if (meta & bit)
				break;
			meta |= bit;
			rc = v7_extra(f, o->id, &ov[i].u.ref, o->off, e);
			if (rc < 0 && f->salvage)
				rc = salvaged(f, e, named(e, o->id, rc));
			break;
		case TDAT_OPT_BUFFER: case TDAT_OPT_BUFFER_TEXT:
			rc = v7_buffer(f, o, &ov[i].u.buf, (int)i, e);
			if (rc < 0)
				rc = drop_buffer(f, e, rc);
			break;
		default:
			rc = note_option(f, &ov[i], e);
		}
	}
	kload_end(kl, 0);
	if (rc == 0 && f->hpage.p == NULL)
		rc = tdat_fail(e, TDAT_ECORRUPT, td->first_opt,
		    "no HEADER_INFO option: the file has no headers section");
	return rc;
}

/*
 * Salvage: the end of the compressed CPU stream at off (a chunk count,
 * then chunks), as far as it is sound and inside [off, end); off itself
 * if not even its first chunk is.
 */
static uint64_t
orphan_stream(struct tdat_file *f, uint64_t off, uint64_t end)
{
	unsigned char h[8];
	uint64_t at = off + 4;
	uint32_t count, i, cs, us;

	if (end - off < 12 || tdat_pread(f, h, off, 4, &(struct tdat_err){ 0 })
	    < 0)
		return off;
	count = tdat_get32(h, f->big);
	for (i = 0; i < count && end - at >= 8; i++) {
		if (tdat_pread(f, h, at, 8, &(struct tdat_err){ 0 }) < 0)
			break;
		cs = tdat_get32(h, f->big);
		us = tdat_get32(h + 4, f->big);
		if (cs == 0 || us == 0 || us % f->page_size || us > MAX_CHUNK ||
		    cs > end - at - 8)
			break;
		at += 8 + cs;
	}
	return i == 0 ? off : at;
}

/*
 * Salvage: what the CPUSTAT options (written before the data) say of a
 * buffer's CPUs.  trace-cmd writes one block per buffer, the top one
 * first and each instance's after a "Buffer: NAME" line, with a
 * "CPU: N" option for every CPU; a CPU's events in the file are its
 * "entries" plus its "read events", and a CPU with none of either has
 * no data, so the streams of a buffer whose BUFFER option is lost
 * belong, in order, to the CPUs that have events.
 */
struct stat_cpu {
	uint32_t id;
	uint64_t events;
};

struct stat_blk {
	char name[256];
	uint32_t n;			/* CPUs with events, ascending */
	struct stat_cpu *c;
	int known;			/* some CPU has events */
	uint32_t nall;			/* every CPU named, with or without */
	uint32_t *all;
};

/* The number after "key: " on a line of the n bytes at s, or 0. */
static uint64_t
stat_num(const char *s, size_t n, const char *key, int *found)
{
	size_t klen = strlen(key), i = 0;
	uint64_t v = 0;

	while (i < n) {
		if ((i == 0 || s[i - 1] == '\n') && n - i > klen &&
		    memcmp(s + i, key, klen) == 0 && s[i + klen] == ':') {
			for (i += klen + 1; i < n && s[i] == ' '; i++)
				;
			for (*found = 0; i < n && s[i] >= '0' && s[i] <= '9' &&
			    v < UINT64_MAX / 16; i++, *found = 1)
				v = v * 10 + (uint64_t)(s[i] - '0');
			return v;
		}
		i++;
	}
	*found = 0;
	return 0;
}

static void
stat_free(struct stat_blk *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(b[i].c);
		free(b[i].all);
	}
	free(b);
}

/* Add cpu to the CPUs b names; 0 or TDAT_ENOMEM. */
static int
stat_name_cpu(struct stat_blk *b, uint32_t cpu)
{
	uint32_t *a;

	if (b->nall >= MAX_COUNT ||
	    (a = realloc(b->all, (b->nall + 1) * sizeof(*a))) == NULL)
		return TDAT_ENOMEM;
	b->all = a;
	a[b->nall++] = cpu;
	return 0;
}

/* Whether the n ids at a rise strictly. */
static int
ascending(const uint32_t *a, uint32_t n)
{
	uint32_t i;

	for (i = 1; i < n; i++)
		if (a[i] <= a[i - 1])
			return 0;
	return 1;
}

/*
 * Whether the buffer called name holds the last boot's events (trace-cmd
 * 3.4's persistent ring buffer): a LAST_BOOT_INFO option starts with its
 * name and a colon.  Its CPUSTAT counts this boot's events, none.
 */
static int
last_boot_buffer(const struct tdat_file *f, const char *name)
{
	size_t i, l = strlen(name);

	for (i = 0; i < f->nopt; i++) {
		const struct tdat_option *o = &f->opt[i];

		if (o->id == TDAT_OPT_LAST_BOOT_INFO && o->data != NULL &&
		    l > 0 && o->size > l && memcmp(o->data, name, l) == 0 &&
		    ((const char *)o->data)[l] == ':')
			return 1;
	}
	return 0;
}

/* The CPUSTAT blocks of f, in file order; 0 or TDAT_ENOMEM. */
static int
stat_blocks(const struct tdat_file *f, struct stat_blk **out, size_t *nout)
{
	struct stat_blk *b = NULL, *nb;
	size_t n = 0, i, len;
	const char *s, *name;
	uint64_t cpu, ev;
	int has_cpu, has_e, has_r;

	for (i = 0; i < f->nopt; i++) {
		const struct tdat_option *o = &f->opt[i];
		struct stat_cpu *c;

		if (o->id != TDAT_OPT_CPUSTAT || o->data == NULL)
			continue;
		s = (const char *)o->data;
		len = strnlen(s, o->size);
		while (len && (*s == '\n' || *s == ' '))
			s++, len--;
		name = NULL;
		if (len >= 7 && memcmp(s, "Buffer:", 7) == 0) {
			name = s + 7;
			while (name < s + len && *name == ' ')
				name++;
		}
		if (name != NULL || n == 0) {
			if ((nb = realloc(b, (n + 1) * sizeof(*b))) == NULL)
				goto nomem;
			b = nb;
			memset(&b[n], 0, sizeof(*b));
			if (name != NULL) {
				size_t l = strcspn(name, "\n");

				if (l > (size_t)(s + len - name))
					l = (size_t)(s + len - name);
				if (l >= sizeof(b[n].name))
					l = sizeof(b[n].name) - 1;
				memcpy(b[n].name, name, l);
			}
			n++;
			if (name != NULL)
				continue;
		}
		cpu = stat_num(s, len, "CPU", &has_cpu);
		ev = stat_num(s, len, "entries", &has_e);
		ev += stat_num(s, len, "read events", &has_r);
		if (!has_cpu || cpu > UINT32_MAX)
			continue;
		if (stat_name_cpu(&b[n - 1], (uint32_t)cpu) < 0)
			goto nomem;
		if (ev == 0)
			continue;
		if (b[n - 1].n >= MAX_COUNT || (c = realloc(b[n - 1].c,
		    (b[n - 1].n + 1) * sizeof(*c))) == NULL)
			goto nomem;
		b[n - 1].c = c;
		c[b[n - 1].n].id = (uint32_t)cpu;
		c[b[n - 1].n++].events = ev;
		b[n - 1].known = 1;
	}
	*out = b;
	*nout = n;
	return 0;
nomem:
	stat_free(b, n);
	return TDAT_ENOMEM;
}

/* The items of events in an uncompressed page of pl's layout, or -1
 * when it does not decode. */
static long
page_events(const unsigned char *pg, uint32_t psize,
    const struct tdat_page_layout *pl)
{
	uint64_t commit = tdat_get(pg + 8, pl->commit_size, pl->big);
	uint32_t at = (uint32_t)pl->data_off, end, word, type, len;
	long n = 0;

	commit &= (1u << 27) - 1;
	if (commit > psize - (uint32_t)pl->data_off)
		return -1;
	end = at + (uint32_t)commit;
	while (end - at >= 4) {
		word = tdat_get32(pg + at, pl->big);
		type = pl->big ? word >> 27 : word & 0x1f;
		if (type >= 30) {
			len = 8;
		} else if (type == 0 || type == 29) {
			if (end - at < 8)
				return -1;
			if (type == 29 && (pl->big ? word & ((1u << 27) - 1) :
			    word >> 5) == 0)
				break;		/* padding to the end */
			len = tdat_get32(pg + at + 4, pl->big);
			if (len < 4 || len > end - at - 4)
				return -1;
			len = 4 + ((len + 3) & ~3u);
			n += type == 0;
		} else {
			len = 4 + type * 4;
			n++;
		}
		if (len > end - at)
			return -1;
		at += len;
	}
	return n;
}

/* A CPU stream found in a flyrecord section no BUFFER option names. */
struct orphan_cpu {
	uint64_t off, size, cut;
};

/* The streams of a compressed section: each starts on a page boundary. */
static int
orphan_streams(struct tdat_file *f, const struct tdat_section *s,
    struct orphan_cpu **out, uint32_t *nout)
{
	struct orphan_cpu *c = NULL, *nc;
	uint64_t pos = s->off + 16, end = s->off + 16 + s->size, stop;
	uint32_t n = 0;

	for (;;) {
		pos += (f->page_size - pos % f->page_size) % f->page_size;
		if (pos >= end || (stop = orphan_stream(f, pos, end)) == pos)
			break;
		if (n >= MAX_COUNT || (nc = realloc(c, (n + 1) *
		    sizeof(*c))) == NULL) {
			free(c);
			return TDAT_ENOMEM;
		}
		c = nc;
		c[n].off = pos;
		c[n].size = stop - pos;
		c[n++].cut = 0;
		pos = stop;
	}
	*out = c;
	*nout = n;
	return 0;
}

/*
 * The streams of an uncompressed section: its pages, one CPU after the
 * other, each CPU's as many as hold its events (sb's counts).  A page
 * that does not decode or holds more than its CPU has left ends the walk:
 * what follows has no known CPU.  *why says why the walk stopped early.
 */
static int
orphan_pages(struct tdat_file *f, const struct tdat_section *s,
    const struct stat_blk *sb, struct orphan_cpu *c, uint32_t *nout,
    char *why, size_t whylen)
{
	struct tdat_page_layout pl;
	uint64_t pos = s->off + 16, end = s->off + 16 + s->size, limit, start;
	uint64_t got;
	uint32_t j, ps = f->page_size, n = 0;
	unsigned char *pg;
	long k = 0;

	*nout = 0;
	if (tdat_page_layout(f, &pl, &(struct tdat_err){ 0 }) < 0 ||
	    ps < (uint32_t)pl.data_off + 4) {
		snprintf(why, whylen, "the page header is not known");
		return 0;
	}
	if ((pg = malloc(ps)) == NULL)
		return TDAT_ENOMEM;
	pos += (ps - pos % ps) % ps;
	limit = end < f->fsize ? end : f->fsize;
	for (j = 0; j < sb->n && pos < limit; j++) {
		start = pos;
		got = 0;
		while (got < sb->c[j].events && limit - pos >= ps) {
			if (tdat_pread(f, pg, pos, ps, &(struct tdat_err){ 0 }) <
			    0 || (k = page_events(pg, ps, &pl)) < 0 ||
			    (uint64_t)k > sb->c[j].events - got) {
				snprintf(why, whylen, "the page at offset %llu "
				    "does not %s CPU %u's %llu events",
				    (unsigned long long)pos, k < 0 ? "decode, "
				    "after" : "fit", sb->c[j].id,
				    (unsigned long long)sb->c[j].events);
				k = -1;
				break;
			}
			got += (uint64_t)k;
			pos += ps;
		}
		c[n].off = start;
		c[n].size = pos - start;
		c[n].cut = k >= 0 && got < sb->c[j].events && end > pos ?
		    end - pos : 0;
		if (c[n].size || c[n].cut)
			n++;
		if (got < sb->c[j].events)
			break;		/* cut short, or a page that does not fit */
	}
	free(pg);
	*nout = n;
	return 0;
}

/*
 * Salvage: a flyrecord section no BUFFER option names (trace-cmd writes
 * the option after the data, so a cut file loses it).  sb, when known, is
 * its buffer's CPUSTAT block: its name, and which CPUs the streams are
 * (in order, those with events).  Without it the streams are CPUs 0, 1...
 * only when there is one for every CPU of the file; otherwise they are
 * dropped: no event is given a CPU it did not have.  The one exception is
 * trace-cmd 3.4's buffer of the last boot (named in LAST_BOOT_INFO): its
 * CPUSTAT counts this boot's events, none by nature, so its streams are
 * taken, in order, as the CPUs its CPUSTAT names; right when every CPU
 * before the cut has events, as a persistent buffer's usually do.
 */
static int
v7_orphan(struct tdat_file *f, const struct tdat_section *s, int top,
    const struct stat_blk *sb, struct tdat_err *e)
{
	struct tdat_tracedat *td = TD(f);
	struct tdat_buffer *b;
	struct tdat_cpu *c;
	struct orphan_cpu *oc = NULL;
	uint32_t n = 0, i;
	uint64_t end = s->off + 16 + s->size;
	char name[sizeof(sb->name) + 32], why[160];
	int comp = (s->flags & TDAT_SEC_COMPRESSED) && td->codec != NULL;
	int known = sb != NULL && sb->known, rc;
	/* a last boot's buffer: CPUSTAT names its CPUs, counts nothing */
	int boot = sb != NULL && !known && sb->nall > 0 &&
	    last_boot_buffer(f, sb->name);

	why[0] = '\0';
	if (sb != NULL)
		snprintf(name, sizeof(name), "%s", sb->name);
	else if (top)
		name[0] = '\0';
	else
		snprintf(name, sizeof(name), "salvage-%llu",
		    (unsigned long long)s->off);
	if (comp) {
		if ((rc = orphan_streams(f, s, &oc, &n)) < 0)
			return tdat_fail_nooff(e, rc, "out of memory");
		if (known && n > sb->n)
			snprintf(why, sizeof(why), "%u CPU streams, but CPUSTAT "
			    "gives %u CPUs events", n, sb->n);
		else if (boot && n > sb->nall)
			snprintf(why, sizeof(why), "%u CPU streams, but CPUSTAT "
			    "names %u CPUs", n, sb->nall);
		else if (boot && !ascending(sb->all, n))
			snprintf(why, sizeof(why), "the last boot's CPUSTAT "
			    "names its CPUs out of order");
		else if (!known && !boot && n != f->ncpus)
			snprintf(why, sizeof(why), "%u CPU streams of %u CPUs, "
			    "and no CPUSTAT says which", n, f->ncpus);
	} else if (!known) {
		snprintf(why, sizeof(why), "no CPUSTAT gives its CPUs' events");
	} else {
		if ((oc = calloc(sb->n ? sb->n : 1, sizeof(*oc))) == NULL)
			return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		if ((rc = orphan_pages(f, s, sb, oc, &n, why, sizeof(why))) < 0) {
			free(oc);
			return tdat_fail_nooff(e, rc, "out of memory");
		}
	}
	if (why[0] != '\0' && (comp || n == 0)) {
		free(oc);
		tdat_fail(e, TDAT_ECORRUPT, s->off, "buffer data without its "
		    "BUFFER option: %s; dropped", why);
		return salvaged(f, e, TDAT_ECORRUPT);
	}
	if ((b = add_buffer(f)) == NULL || (b->name = strdup(name)) == NULL ||
	    (b->clock = strdup(f->trace_clock ? f->trace_clock : "local")) ==
	    NULL || (b->cpu = calloc(n ? n : 1, sizeof(*c))) == NULL) {
		free(oc);
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	b->page_size = f->page_size;
	b->compressed = comp;
	b->opt_off = s->off;
	b->data_end = end;
	for (i = 0; i < n; i++) {
		c = &b->cpu[b->ncpu++];
		c->id = known ? sb->c[i].id : boot ? sb->all[i] : i;
		c->off = oc[i].off;
		c->size = oc[i].size;
		c->cut = oc[i].cut;
	}
	free(oc);
	tdat_fail(e, TDAT_ECORRUPT, s->off, "buffer data without its BUFFER "
	    "option: read as buffer \"%s\" with %u CPUs (%s)%s%s", b->name,
	    b->ncpu, known ? "CPUs from CPUSTAT" : boot ? "the last boot's: "
	    "CPUs in CPUSTAT's order, as when each has events" :
	    "one for every CPU",
	    why[0] ? "; the rest dropped: " : "", why);
	return salvaged(f, e, TDAT_ECORRUPT);
}

/*
 * Salvage: read every flyrecord section no BUFFER option names.  The
 * CPUSTAT blocks are in the order of the sections: a named section moves
 * past the block of its name (a buffer with no CPUs may have none), an
 * orphan with data takes the next block.
 */
static int
v7_orphans(struct tdat_file *f, struct tdat_err *e)
{
	struct tdat_tracedat *td = TD(f);
	struct stat_blk *sb = NULL;
	size_t i, j, k, nsb = 0, next = 0;
	int rc = 0, top = 1;

	for (j = 0; j < f->nbuf; j++)
		if (f->buf[j].name[0] == '\0' && !f->buf[j].latency)
			top = 0;
	if (stat_blocks(f, &sb, &nsb) < 0)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	for (i = 0; i < td->nsect && rc >= 0; i++) {
		const struct tdat_section *s = &td->sect[i];
		const struct stat_blk *blk = NULL;

		if (s->id != TDAT_OPT_BUFFER)
			continue;
		for (j = 0; j < f->nbuf; j++)
			if (f->buf[j].opt_off == s->off)
				break;
		if (j < f->nbuf) {
			for (k = next; k < nsb; k++)
				if (strcmp(sb[k].name, f->buf[j].name) == 0) {
					next = k + 1;
					break;
				}
			continue;
		}
		if (s->size == 0)
			continue;
		if (next < nsb)
			blk = &sb[next++];
		if ((rc = v7_orphan(f, s, top, blk, e)) < 0)
			break;
		if (blk == NULL || blk->name[0] == '\0')
			top = 0;
	}
	stat_free(sb, nsb);
	return rc < 0 ? rc : 0;
}

/* Put the top buffer (named "") first; a file without one gets an empty one. */
static int
v7_top_first(struct tdat_file *f, struct tdat_err *e)
{
	struct tdat_buffer tmp, *b;
	size_t i;

	for (i = 0; i < f->nbuf; i++)
		if (f->buf[i].name[0] == '\0' && !f->buf[i].latency)
			break;
	if (i == f->nbuf) {
		if ((b = add_buffer(f)) == NULL || (b->name = strdup("")) == NULL ||
		    (b->clock = strdup(f->trace_clock ? f->trace_clock :
		    "local")) == NULL)
			return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		b->page_size = f->page_size;
	}
	tmp = f->buf[i];
	memmove(f->buf + 1, f->buf, i * sizeof(*f->buf));
	f->buf[0] = tmp;
	return 0;
}

static int
read_v7(struct rd *r, struct tdat_file *f)
{
	struct tdat_tracedat *td = TD(f);
	int rc;

	if ((rc = rd_str(r, &f->comp, "compression name")) < 0 ||
	    (rc = rd_str(r, &td->comp_ver, "compression version")) < 0 ||
	    (rc = rd_num(r, 8, &td->first_opt, "first options offset")) < 0)
		return rc;
	if (strcmp(f->comp, "none") != 0 &&
	    (td->codec = tdat_codec_new(f->comp)) == NULL)
		return tdat_fail(r->e, TDAT_EUNSUP, 0,
		    "unknown compression \"%s\"", f->comp);
	if ((rc = v7_walk(f, r->pos, r->e)) < 0)
		return rc;
	/* Salvage: section names are not needed to read the events. */
	if ((rc = v7_strings(f, r->e)) < 0 &&
	    (rc = salvaged(f, r->e, rc)) < 0)
		return rc;
	if (!f->salvage && (rc = v7_names(f, r->e)) < 0)
		return rc;
	if (f->salvage && td->strings == NULL && (rc = salvaged(f, r->e,
	    tdat_fail(r->e, TDAT_ECORRUPT, f->fsize, "no strings section: "
	    "section names are lost"))) < 0)
		return rc;
	if ((rc = v7_options(f, r->e)) < 0 &&
	    (rc = salvaged(f, r->e, rc)) < 0)
		return rc;
	if ((rc = v7_apply(f, r->e)) < 0)
		return rc;
	if (f->salvage && (rc = v7_orphans(f, r->e)) < 0)
		return rc;
	return v7_top_first(f, r->e);
}

static int
read_initial(struct rd *r, struct tdat_file *f)
{
	unsigned char b[10];
	char *ver;
	int rc;

	if (f->fsize < 10)
		return tdat_fail(r->e, TDAT_ECORRUPT, 0,
		    "file too short for a trace.dat header");
	if ((rc = rd_read(r, b, 10, "magic")) < 0)
		return rc;
	if (memcmp(b, magic, 10) != 0)
		return tdat_fail(r->e, TDAT_ECORRUPT, 0,
		    "not a trace.dat file (bad magic)");
	if ((rc = rd_str(r, &ver, "version string")) < 0)
		return rc;
	f->version = atoi(ver);
	if (f->version != 6 && f->version != 7) {
		rc = tdat_fail(r->e, TDAT_EUNSUP, 10,
		    "unsupported file version \"%s\"", ver);
		free(ver);
		return rc;
	}
	free(ver);
	if ((rc = rd_read(r, b, 2, "endianness and long size")) < 0)
		return rc;
	f->big = b[0] != 0;
	f->lsize = b[1];
	if (b[0] > 1)
		return tdat_fail(r->e, TDAT_ECORRUPT, r->pos - 2,
		    "endianness byte %u is neither 0 nor 1", b[0]);
	if (f->lsize != 4 && f->lsize != 8)
		return tdat_fail(r->e, TDAT_ECORRUPT, r->pos - 1,
		    "long size %d is neither 4 nor 8", f->lsize);
	if ((rc = rd_u32(r, &f->page_size, "page size")) < 0)
		return rc;
	if (f->page_size < 64 || f->page_size > (1u << 24))
		return tdat_fail(r->e, TDAT_ECORRUPT, r->pos - 4,
		    "page size %u is not sane", f->page_size);
	return 0;
}

int
tdat_tracedat_open(const char *path, const struct tdat_open_opts *o,
    struct tdat_file **out, struct tdat_err *e)
{
	struct tdat_file *f;
	struct stat st;
	struct rd r;
	int rc;

	*out = NULL;
	if ((f = calloc(1, sizeof(*f))) == NULL ||
	    (f->path = strdup(path)) == NULL) {
		free(f);
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	f->format = &tdat_tracedat_format;
	f->page_ops = &tdat_tracedat_pages;
	if ((f->page_arg = calloc(1, sizeof(struct tdat_tracedat))) == NULL) {
		tdat_close(f);
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	if (strcmp(path, "-") == 0)
		f->fd = spool_stdin(e);
	else if ((f->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		tdat_fail_nooff(e, TDAT_EIO, "%s", strerror(errno));
	if (f->fd < 0) {
		rc = e->code;
		goto fail;
	}
	if (fstat(f->fd, &st) < 0) {
		rc = tdat_fail_nooff(e, TDAT_EIO, "%s", strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = tdat_fail_nooff(e, TDAT_EIO, "is a directory");
		goto fail;
	}
	f->fsize = (uint64_t)st.st_size;
	f->salvage = o && o->salvage;
	memset(&r, 0, sizeof(r));
	r.f = f;
	r.len = f->fsize;
	r.e = e;
	if ((rc = read_initial(&r, f)) < 0)
		goto fail;
	TD(f)->klater_ok = o && o->kallsyms_later;
	TD(f)->ktable_ok = o && o->kallsyms_table;
	rc = f->version >= 7 ? read_v7(&r, f) : read_v6(&r, f);
	if (rc == 0 && f->salvage)
		rc = salvage_texts(f, e);
	if (rc < 0) {
		rc = kallsyms_first(f, rc, e);
		goto fail;
	}
	*out = f;
	return 0;
fail:
	tdat_close(f);
	return rc;
}

/* What only a trace.dat holds, freed by tdat_close() (lib/read/file.c)
 * before the rest. */
static void
tracedat_release(struct tdat_file *f)
{
	struct tdat_tracedat *td = f->page_arg;

	tdat_options_free(f);
	free(f->damage);
	f->damage = NULL;
	f->ndamage = 0;
	if (td == NULL)
		return;
	kload_end(td->klater, 0);
	kload_end(td->kbuild, 0);
	free(td->comp_ver);
	free(td->sect);
	free(td->strings);
	tdat_codec_free(td->codec);
	free(td);
	f->page_arg = NULL;
}

/*
 * The chunk table at off (a count, then per chunk csize, usize and the
 * compressed bytes), bounded by end.  pre names the stream in messages;
 * page_size > 0 requires whole pages in each chunk.
 */
/* The chunk headers are read through a window of this many bytes: one
 * read covers the headers of the dozens of chunks in it. */
#define HEAD_WINDOW	(64 * 1024)
#define HEAD_MAP	(4 * 1024 * 1024)	/* mapped for the walk at once */
/* Each time the walk has passed this many bytes of a mapping, their
 * pages are given back: mapped pages count as the process's memory as
 * much as allocated ones (cut7.dat: 4 MiB for each thread walking). */
#define HEAD_DROP	(256 * 1024)

struct head_win {
	unsigned char *p;
	uint64_t off;		/* the file offset of p[0] */
	size_t len;
	void *map;		/* p is a mapping of the file, of mlen bytes */
	size_t mlen;
	uint64_t drop;		/* the mapping's pages before it are given back */
};

/*
 * Map the file from off toward end (HEAD_MAP bytes at most) for the walk,
 * when it is a regular file that still holds them: the headers are then
 * read in place, without copying the compressed bytes between them (all
 * of them, as chunks are smaller than a window).  0 if not mapped: the
 * window reads them.
 */
static int
head_map(struct tdat_file *f, struct head_win *w, uint64_t off, uint64_t end)
{
	unsigned char *p;

	if (end > f->fsize)
		end = f->fsize;
	if (end > off && end - off > HEAD_MAP)
		end = off + HEAD_MAP;	/* memory stays bounded */
	if (end <= off || end - off < HEAD_WINDOW || (p = map_range(f, off,
	    end, PROT_READ, MAP_SHARED, &w->map, &w->mlen)) == NULL)
		return 0;
	w->p = w->map;
	w->off = off - (uint64_t)(p - w->p);
	w->len = w->mlen;
	w->drop = w->off;
	return 1;
}

/* Give back the pages of the mapping that lie wholly before off (they
 * are read again from the file if they are needed after all). */
static void
head_drop(struct head_win *w, uint64_t off)
{
	uint64_t to = off - (off - w->off) % (uint64_t)sysconf(_SC_PAGESIZE);

	if (to > w->drop)
		madvise(w->p + (w->drop - w->off), (size_t)(to - w->drop),
		    MADV_DONTNEED);
	w->drop = to;
}

/* The 8 bytes at off (off + 8 <= end), through w. */
static const unsigned char *
chunk_head(struct tdat_file *f, struct head_win *w, uint64_t off,
    uint64_t end, struct tdat_err *e)
{
	uint64_t want = end - off;

	if (off >= w->off && off - w->off + 8 <= w->len) {
		if (w->map && off >= w->drop + HEAD_DROP)
			head_drop(w, off);
		return w->p + (off - w->off);
	}
	if (w->map) {
		/* Past the mapping: the next one, or a window from here on. */
		munmap(w->map, w->mlen);
		w->map = NULL;
		w->len = 0;
		if (head_map(f, w, off, end) && off - w->off + 8 <= w->len)
			return w->p + (off - w->off);
		if (w->map) {
			munmap(w->map, w->mlen);
			w->map = NULL;
			w->len = 0;
		}
		if ((w->p = malloc(HEAD_WINDOW)) == NULL) {
			tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
			return NULL;
		}
	}
	if (want > HEAD_WINDOW)
		want = HEAD_WINDOW;
	if (off < f->fsize && want > f->fsize - off)
		want = f->fsize - off;
	if (want < 8)
		want = 8;	/* past the end: the read says so */
	if (tdat_pread(f, w->p, off, (size_t)want, e) < 0)
		return NULL;
	w->off = off;
	w->len = (size_t)want;
	return w->p;
}

static void
head_free(struct head_win *w)
{
	if (w->map)
		munmap(w->map, w->mlen);
	else
		free(w->p);
}

static int
read_chunks(struct tdat_file *f, uint64_t off, uint64_t end, const char *pre,
    uint32_t page_size, struct tdat_chunk **out, uint32_t *n,
    struct tdat_err *e)
{
	unsigned char h[8];
	const unsigned char *hp;
	struct head_win w = { NULL, 0, 0, NULL, 0, 0 };
	struct tdat_chunk *ch;
	uint64_t start = off;
	uint32_t i, count;
	int rc;

	if (off > end || end - off < 4)
		return tdat_fail(e, TDAT_ECORRUPT, off,
		    "%s: compressed data lies outside its section", pre);
	if ((rc = tdat_pread(f, h, off, 4, e)) < 0)
		return rc;
	count = tdat_get32(h, f->big);
	off += 4;
	if ((uint64_t)count * 8 > end - off) {
		rc = tdat_fail(e, TDAT_ECORRUPT, start,
		    "%s: chunk count %u exceeds the data", pre, count);
		if (!f->salvage || (rc = salvaged(f, e, rc)) < 0)
			return rc;
		count = (uint32_t)((end - off) / 8);	/* the loop stops */
	}
	if ((ch = calloc(count ? count : 1, sizeof(*ch))) == NULL ||
	    (!head_map(f, &w, off, end) && (w.p = malloc(HEAD_WINDOW)) ==
	    NULL)) {
		free(ch);
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	for (i = 0; i < count; i++) {
		if (end - off < 8) {
			rc = tdat_fail(e, TDAT_ECORRUPT, off,
			    "%s: chunk %u header runs past the data", pre, i);
			goto fail;
		}
		if ((hp = chunk_head(f, &w, off, end, e)) == NULL) {
			rc = e->code;
			goto fail;
		}
		ch[i].csize = tdat_get32(hp, f->big);
		ch[i].usize = tdat_get32(hp + 4, f->big);
		ch[i].off = off + 8;
		if (ch[i].csize > end - off - 8) {
			rc = tdat_fail(e, TDAT_ECORRUPT, off,
			    "%s: chunk %u size %u exceeds the data", pre, i,
			    ch[i].csize);
			goto fail;
		}
		if (ch[i].usize > (1u << 28) ||
		    (page_size && ch[i].usize % page_size)) {
			rc = tdat_fail(e, TDAT_ECORRUPT, off,
			    "%s: chunk %u uncompressed size %u is not a "
			    "whole number of pages", pre, i, ch[i].usize);
			goto fail;
		}
		off += 8 + ch[i].csize;
	}
	head_free(&w);
	*out = ch;
	*n = count;
	return 0;
fail:
	head_free(&w);
	if (f->salvage && rc == TDAT_ECORRUPT) {
		/* Salvage: keep the chunks before the damage. */
		*out = ch;
		*n = i;
		return salvaged(f, e, rc);
	}
	free(ch);
	return rc;
}

int
tdat_cpu_chunks(struct tdat_file *f, const struct tdat_buffer *b,
    const struct tdat_cpu *c, struct tdat_chunk **out, uint32_t *n,
    struct tdat_err *e)
{
	char pre[32];

	*out = NULL;
	*n = 0;
	if (!b->compressed || c->size == 0)
		return 0;
	/*
	 * trace-cmd 3.1 stores the size of the chunks without the 4-byte
	 * chunk count, 3.2 with it: the chunks are bounded by their section.
	 */
	snprintf(pre, sizeof(pre), "CPU %u", c->id);
	return read_chunks(f, c->off, b->data_end ? b->data_end : f->fsize,
	    pre, b->page_size, out, n, e);
}

/* ------------------------------------------------------------------ */
/*
 * Page streams of a trace.dat: one CPU's flyrecord data, raw in windows
 * of whole pages followed by a tail of the file bytes after them, or v7
 * chunks decompressed one at a time into a buffer the stream owns.
 */

#define PAGES_WINDOW	TDAT_PAGES_WINDOW	/* bytes of raw pages read at once */
#define PAGES_TAIL	4096		/* file bytes after a raw window */
#define MAP_WINDOW	(1024 * 1024)	/* bytes of raw pages mapped at once */

struct tdpages {
	struct tdat_file *f;
	uint32_t cpu_id;
	int text;		/* latency text, not pages */
	uint32_t unit;		/* raw windows are a multiple of it */
	uint64_t off, end;	/* raw: the next byte, the end of the data */
	uint64_t start;		/* raw: the first page */
	int one;		/* raw: the next window is one page (a probe) */
	uint64_t past;		/* chunks end here (the CPU's data + count) */
	struct tdat_chunk *ch;	/* compressed: the chunk table */
	uint32_t nch, next;
	int warned;		/* chunk next ran past: deliver it now */
	uint32_t index;		/* raw: windows delivered */
	unsigned char *buf, *cbuf;	/* the window; compressed bytes */
	size_t cap, ccap;
	struct tdat_codec *codec;	/* NULL: the file's */
	int map;		/* raw windows mapped, not read (tdp_map_op) */
	unsigned char *mp;	/* the mapped window, mlen bytes */
	size_t mlen;
	size_t room;		/* raw window bytes (0: PAGES_WINDOW) */
};

static void
tdp_close(void *arg)
{
	struct tdpages *s = arg;

	if (s == NULL)
		return;
	free(s->ch);
	free(s->buf);
	free(s->cbuf);
	if (s->mp)
		munmap(s->mp, s->mlen);
	free(s);
}

static int
tdp_room(unsigned char **p, size_t *cap, size_t n, struct tdat_err *e)
{
	unsigned char *q;

	if (n <= *cap)
		return 0;
	free(*p);
	if ((q = malloc(n)) == NULL) {
		*p = NULL;
		*cap = 0;
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	*p = q;
	*cap = n;
	return 0;
}

/* The latency text of buffer b: where it lies, whether in chunks. */
static int
tdp_text(struct tdat_file *f, const struct tdat_buffer *b, struct tdpages *s,
    int *compressed, struct tdat_err *e)
{
	struct tdat_tracedat *td = TD(f);
	size_t i;

	s->text = 1;
	s->unit = 1;
	*compressed = 0;
	if (f->version < 7) {
		s->off = f->latency_off;
		s->end = f->fsize;
		return 0;
	}
	for (i = 0; i < td->nsect; i++)
		if (td->sect[i].off == b->opt_off)
			break;
	if (i == td->nsect)
		return tdat_fail_nooff(e, TDAT_ECORRUPT,
		    "latency buffer has no section");
	s->off = td->sect[i].off + 16;
	s->end = s->off + td->sect[i].size;
	*compressed = b->compressed;
	return 0;
}

static int
tdp_open(struct tdat_file *f, int buf, uint32_t ci, void **st,
    uint64_t *total, struct tdat_err *e)
{
	struct tdat_tracedat *td = TD(f);
	const struct tdat_buffer *b;
	const struct tdat_cpu *c = NULL;
	struct tdpages *s;
	uint32_t i;
	int rc, compressed;

	*st = NULL;
	*total = 0;
	if (buf < 0 || (size_t)buf >= f->nbuf)
		return tdat_fail_nooff(e, TDAT_EUSAGE, "no buffer %d", buf);
	b = &f->buf[buf];
	if (b->latency ? ci != 0 : ci >= b->ncpu)
		return tdat_fail_nooff(e, TDAT_EUSAGE, "buffer \"%s\" has no "
		    "CPU index %u", b->name, ci);
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	s->f = f;
	if (b->latency) {
		if ((rc = tdp_text(f, b, s, &compressed, e)) < 0)
			goto fail;
		s->past = s->end;
	} else {
		c = &b->cpu[ci];
		s->cpu_id = c->id;
		s->unit = b->page_size;
		s->off = c->off;
		if (c->off > f->fsize || c->size > f->fsize - c->off) {
			rc = tdat_fail(e, TDAT_ECORRUPT, c->off, "CPU %u: data "
			    "size %llu exceeds file", c->id,
			    (unsigned long long)c->size);
			goto fail;
		}
		s->end = c->off + c->size;
		s->past = s->end + 4;
		compressed = b->compressed;
	}
	if (s->off > s->end || s->end > f->fsize || s->unit == 0) {
		rc = tdat_fail(e, TDAT_ECORRUPT, s->off, "data runs past the "
		    "end of the file");
		goto fail;
	}
	if (s->end == s->off)
		compressed = 0;
	if (compressed) {
		char pre[32];

		if (td->codec == NULL) {
			rc = tdat_fail(e, TDAT_ECORRUPT, s->off, "CPU %u: data is "
			    "compressed but the file names no compression",
			    s->cpu_id);
			goto fail;
		}
		if (s->text)
			snprintf(pre, sizeof(pre), "latency text");
		else
			snprintf(pre, sizeof(pre), "CPU %u", s->cpu_id);
		if ((rc = read_chunks(f, s->off, s->text ? s->end :
		    b->data_end ? b->data_end : f->fsize, pre,
		    s->text ? 0 : b->page_size, &s->ch, &s->nch, e)) < 0)
			goto fail;
		for (i = 0; i < s->nch; i++)
			*total += s->ch[i].usize;
		s->off = s->end;	/* nothing raw */
	} else if (s->text)
		*total = s->end - s->off;
	else
		*total = (s->end - s->off) - (s->end - s->off) % s->unit;
	s->start = s->off;
	*st = s;
	return 0;
fail:
	tdp_close(s);
	return rc;
}

/*
 * Map len bytes of the file at off in place of the last mapped window;
 * NULL when it cannot be (not a regular file, shorter than it was, no
 * address space): the caller reads them instead, and so from then on.
 */
static const unsigned char *
tdp_map(struct tdpages *s, uint64_t off, size_t len)
{
	const unsigned char *p;
	void *map;

	if (s->mp) {
		munmap(s->mp, s->mlen);
		s->mp = NULL;
	}
	if ((p = map_range(s->f, off, off + len, PROT_READ, MAP_SHARED |
	    MAP_POPULATE, &map, &s->mlen)) == NULL) {
		s->map = 0;
		return NULL;
	}
	s->mp = map;
	return p;
}

/* The next raw window: whole units, then PAGES_TAIL bytes of the file
 * after them (zero where the file ends). */
static int
tdp_raw(struct tdpages *s, struct tdat_window *w, struct tdat_err *e)
{
	struct tdat_file *f = s->f;
	uint64_t want, at = s->off, tail = 0;
	size_t room, most;
	int rc;

	if (s->off >= s->end)
		return 0;
	room = s->room ? s->room : PAGES_WINDOW;
	room = room < s->unit ? s->unit : room - room % s->unit;
	/* Mapped windows are larger unless the caller chose a size: each
	 * mmap and munmap costs more than the copy of a read would (cut6:
	 * CPU time 110 -> 98 ms). */
	most = !s->map || s->room ? room : MAP_WINDOW < s->unit ? s->unit :
	    MAP_WINDOW - MAP_WINDOW % s->unit;
	want = s->end - s->off;
	if (want > most)
		want = most;
	if (s->one)
		want = s->unit;
	want -= want % s->unit;
	if (want == 0) {
		s->off = s->end;	/* a partial page at the end is ignored */
		return 0;
	}
	if (!s->text && !s->one) {
		tail = f->fsize - (at + want);
		if (tail > PAGES_TAIL)
			tail = PAGES_TAIL;
	}
	s->one = 0;
	w->off = at;
	w->chunk = 0;
	if (s->map && tail == PAGES_TAIL &&
	    (w->p = tdp_map(s, at, (size_t)(want + tail))) != NULL) {
		s->off += want;
		w->len = (size_t)want;
		w->tail = PAGES_TAIL;
		w->index = s->index++;
		return 1;
	}
	if (s->mp) {		/* the last window's: no longer needed */
		munmap(s->mp, s->mlen);
		s->mp = NULL;
	}
	if (want > room) {
		/* not mapped after all: read a window (mapped, not text) */
		want = room;
		tail = f->fsize - (at + want);
		if (tail > PAGES_TAIL)
			tail = PAGES_TAIL;
	}
	/* As much as this window reads, not a whole window: a small
	 * file's CPU needs a few pages. */
	if ((rc = tdp_room(&s->buf, &s->cap, (size_t)want + (s->text ? 0 :
	    PAGES_TAIL), e)) < 0)
		return rc;
	s->off += want;		/* a damaged window is skipped */
	if ((rc = tdat_pread(f, s->buf, at, want + tail, e)) < 0)
		return rc;
	w->p = s->buf;
	w->len = (size_t)want;
	w->tail = s->text ? 0 : PAGES_TAIL;
	if (!s->text)
		memset(s->buf + want + tail, 0, PAGES_TAIL - tail);
	w->off = at;
	w->chunk = 0;
	w->index = s->index++;
	return 1;
}

/* The next chunk, decompressed; a damaged one is skipped after its error. */
static int
tdp_chunk(struct tdpages *s, struct tdat_window *w, struct tdat_err *e)
{
	struct tdat_file *f = s->f;
	struct tdat_tracedat *td = TD(f);
	const struct tdat_chunk *ch;
	uint32_t i = s->next;
	char why[160];
	int rc;

	if (i >= s->nch)
		return 0;
	ch = &s->ch[i];
	w->off = ch->off - 8;
	w->chunk = 1;
	w->index = i;
	if (!s->text && !s->warned && ch->off + ch->csize > s->past) {
		/* Its bytes are still in the section: read it next time. */
		s->warned = 1;
		w->fault = "chunk";
		return tdat_fail(e, TDAT_ECORRUPT, w->off, "chunk %u runs past "
		    "the CPU's data", i);
	}
	s->warned = 0;
	s->next++;
	if (ch->usize > MAX_CHUNK) {
		w->fault = "chunk";
		return tdat_fail(e, TDAT_ECORRUPT, w->off, "chunk %u: "
		    "uncompressed size %u is past the limit of %u", i,
		    ch->usize, MAX_CHUNK);
	}
	if ((rc = tdp_room(&s->cbuf, &s->ccap, ch->csize ? ch->csize : 1,
	    e)) < 0 || (rc = tdp_room(&s->buf, &s->cap, (size_t)ch->usize + 1,
	    e)) < 0)
		return rc;
	if ((rc = tdat_pread(f, s->cbuf, ch->off, ch->csize, e)) < 0) {
		w->fault = "chunk";
		return rc;
	}
	if ((rc = tdat_codec_decompress_why(s->codec ? s->codec : td->codec,
	    s->cbuf, ch->csize, s->buf, ch->usize, why, sizeof(why))) < 0) {
		w->fault = "decompress";
		if (rc != TDAT_ECORRUPT)
			return tdat_fail_nooff(e, rc, "%s", why);
		return tdat_fail(e, TDAT_ECORRUPT, w->off, "chunk %u: %s", i,
		    why);
	}
	w->p = s->buf;
	w->len = ch->usize;
	w->tail = 0;
	return 1;
}

static int
tdp_next(void *arg, struct tdat_window *w, struct tdat_err *e)
{
	struct tdpages *s = arg;

	return s->ch ? tdp_chunk(s, w, e) : tdp_raw(s, w, e);
}

/* Both kinds of window lie at the start of s->buf. */
static void
tdp_swap(void *arg, unsigned char **buf, size_t *cap)
{
	struct tdpages *s = arg;
	unsigned char *p = s->buf;
	size_t c = s->cap;

	s->buf = *buf;
	s->cap = *cap;
	*buf = p;
	*cap = c;
}

static void
tdp_codec(void *arg, struct tdat_codec *c)
{
	struct tdpages *s = arg;

	s->codec = c;
}

static void
tdp_map_op(void *arg)
{
	struct tdpages *s = arg;

	s->map = !s->text;
}

static void
tdp_room_op(void *arg, size_t room)
{
	struct tdpages *s = arg;

	s->room = room;
}

static int
tdp_take(void *arg, void **base, size_t *len)
{
	struct tdpages *s = arg;

	if (s->mp == NULL)
		return 0;
	*base = s->mp;
	*len = s->mlen;
	s->mp = NULL;
	return 1;
}

/* Pages of raw data, chunks of compressed data; the text cannot seek. */
static uint64_t
tdp_units(void *arg)
{
	struct tdpages *s = arg;

	if (s->text)
		return 0;
	if (s->ch)
		return s->nch;
	return (s->end - s->start) / s->unit;
}

static int
tdp_seek(void *arg, uint64_t u, int one, struct tdat_err *e)
{
	struct tdpages *s = arg;

	if (u >= tdp_units(s) && u > 0)
		return tdat_fail_nooff(e, TDAT_EUSAGE, "no page or chunk %llu",
		    (unsigned long long)u);
	if (s->ch) {
		s->next = (uint32_t)u;
		s->warned = 0;
	} else if (!s->text) {
		s->off = s->start + u * s->unit;
		s->one = one;
	}
	return 0;
}

const struct tdat_page_ops tdat_tracedat_pages = {
	.open = tdp_open,
	.next = tdp_next,
	.close = tdp_close,
	.release = tracedat_release,
	.units = tdp_units,
	.seek = tdp_seek,
	.swap = tdp_swap,
	.codec = tdp_codec,
	.map = tdp_map_op,
	.room = tdp_room_op,
	.take = tdp_take,
	.parallel = 1,
	.ordered = 1,
	.cheap = 1,
};

/* The trace.dat format as the engine sees it: it takes any path. */
const struct tdat_format tdat_tracedat_format = {
	.name = "trace.dat",
	.bid = NULL,
	.open = tdat_tracedat_open,
	.verify = tdat_tracedat_verify,
	.clock = tdat_tracedat_clock,
	.text_where = tdat_text_where,
};
