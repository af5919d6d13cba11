/*
 * ltt-tdat.c: an LTT trace directory given back as a trace.dat: the
 * container's metadata from the ftrace originals kept in info/ (or event
 * formats synthesized from the eventdefs), and each tracefile's events
 * re-encoded as ring-buffer pages (header_page, header_event) for
 * tdat_write()'s page source, or streamed through page operations
 * (tdat_ltt_open_stream), any number of tracefiles open at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ltt-xml.h"

#include "ltt-int.h"
#include "tdat-opts.h"

#define X(s)	((const xmlChar *)(s))

struct ltf {
	int buf;
	uint32_t cpu;
	char rel[128];
};

/* One tracefile read as ring-buffer pages: the state of one stream. */
struct lstream {
	struct tdat_ltt *l;
	struct ltt_tf cur;
	int cur_open;
	struct tdat_err *e;
	struct tdat_pager pg;		/* the next record, and pages */
	int missed;		/* a lost_events event came before */
	long long missed_count;
	int done;
	/* page operations: the window */
	unsigned char *win;
	size_t wcap;
	uint32_t index;
	uint64_t off;
	int lat_fd;		/* a latency buffer: info/latency, else -1 */
	uint32_t ps;		/* the page size of the buffer it reads */
};

struct tdat_ltt {
	struct ltt_dir d;
	struct tdat_file *f;
	struct tdat_page_src ps;
	struct tdat_page_layout pl;
	struct fmt_event *fmt;
	int nfmt;
	int32_t *ltt2fmt;	/* LTT id -> fmt index */
	unsigned char *endpad;	/* LTT id -> its struct ends with LTTV_END */
	struct tdat_sbuf swap;	/* a payload turned to the records' order */
	struct synth_ev **syn;	/* no originals: LTT id -> made format */
	int lost_id;		/* -1 if none */
	struct ltf *tfs;
	size_t ntfs;
	int dialect;
	struct lstream src;	/* the page source's one tracefile */
	unsigned char *page;
};

/* ------------------------------------------------------------------ */

int
tdat_ltt_probe(const char *path)
{
	char p[PATH_MAX];
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	snprintf(p, sizeof(p), "%s/info/system.xml", path);
	return access(p, R_OK) == 0;
}

static int
read_blob(struct tdat_ltt *l, const char *rel, struct tdat_blob *b,
    struct tdat_err *e)
{
	return tdat_ltt_blob(l->d.dir, l->d.dir, rel, b, e);
}

/* The BTF read back from info/btf (tdat_file.btf_load). */
static int
btf_kept(struct tdat_file *f, struct tdat_err *e)
{
	(void)e;
	return f->btf.p != NULL;
}

/* trace-cmd 3.4's sections, kept by tdat-to-ltt in info/modules and
 * info/btf when the trace had them. */
static int
read_extra(struct tdat_ltt *l, struct tdat_err *e)
{
	char path[PATH_MAX];
	int rc;

	snprintf(path, sizeof(path), "%s/info/modules", l->d.dir);
	if (access(path, R_OK) == 0 &&
	    (rc = read_blob(l, "info/modules", &l->f->modules, e)) < 0)
		return rc;
	snprintf(path, sizeof(path), "%s/info/btf", l->d.dir);
	if (access(path, R_OK) == 0) {
		if ((rc = read_blob(l, "info/btf", &l->f->btf, e)) < 0)
			return rc;
		l->f->btf_load = btf_kept;
	}
	return 0;
}

static int
read_dir_blobs(struct tdat_ltt *l, const char *rel, struct tdat_blob **out,
    uint32_t *n, struct tdat_err *e)
{
	return tdat_ltt_dir_blobs(l->d.dir, l->d.dir, rel, 0, out, n, e);
}

static int
read_systems(struct tdat_ltt *l, struct tdat_err *e)
{
	struct tdat_file *f = l->f;
	char path[PATH_MAX], **names;
	size_t k, i;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/info/formats/systems", l->d.dir);
	if (tdat_ltt_list(path, &names, &k) < 0)
		return tdat_fail_nooff(e, TDAT_ECORRUPT, "%s: %s", path,
		    strerror(errno));
	if (k && (f->sys = calloc(k, sizeof(*f->sys))) == NULL)
		rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	for (i = 0; i < k && rc == 0; i++) {
		const char *dash = strchr(names[i], '-');
		struct tdat_system *s = &f->sys[f->nsys];

		if ((s->name = strdup(dash ? dash + 1 : names[i])) == NULL) {
			rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
			break;
		}
		f->nsys++;
		snprintf(path, sizeof(path), "info/formats/systems/%s",
		    names[i]);
		rc = read_dir_blobs(l, path, &s->ev, &s->nev, e);
	}
	tdat_ltt_list_free(names, k);
	return rc;
}

/* Options as tdat-to-ltt stored them, less those that shift time: the
 * events hold times already shifted. */
static int
read_options(struct tdat_ltt *l, int **remap, size_t *nold,
    struct tdat_err *e)
{
	struct tdat_blob b;
	char name[PATH_MAX];
	int rc;

	*remap = NULL;
	*nold = 0;
	if ((rc = read_blob(l, "info/options", &b, e)) < 0)
		return rc;
	snprintf(name, sizeof(name), "%s/info/options", l->d.dir);
	return tdat_ltt_options(l->f, b, name, remap, nold, e);
}

static int
add_tf(struct tdat_ltt *l, int buf, uint32_t cpu, const char *rel)
{
	struct ltf *t = realloc(l->tfs, (l->ntfs + 1) * sizeof(*t));

	if (t == NULL)
		return -1;
	l->tfs = t;
	t += l->ntfs++;
	t->buf = buf;
	t->cpu = cpu;
	snprintf(t->rel, sizeof(t->rel), "%s", rel);
	return 0;
}

/* The tracefiles of buffer bi: cpu/N, or info/buffers/BI/N. */
static int
scan_tracefiles(struct tdat_ltt *l, int bi, struct tdat_err *e)
{
	char path[PATH_MAX], rel[40], **names, *end;
	size_t k, i;
	unsigned long cpu;

	if (bi == 0)
		snprintf(rel, sizeof(rel), "cpu");
	else
		snprintf(rel, sizeof(rel), "info/buffers/%d", bi);
	snprintf(path, sizeof(path), "%s/%s", l->d.dir, rel);
	if (tdat_ltt_list(path, &names, &k) < 0)
		return 0;
	for (i = 0; i < k; i++) {
		char r[128];

		cpu = strtoul(names[i], &end, 10);
		if (end == names[i] || *end || cpu > 65535)
			continue;
		snprintf(r, sizeof(r), "%s/%lu", rel, cpu);
		if (add_tf(l, bi, (uint32_t)cpu, r) < 0) {
			tdat_ltt_list_free(names, k);
			return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		}
	}
	tdat_ltt_list_free(names, k);
	return 0;
}

/* LTTV's dialect keeps an instance's CPUs in cpu/ too: <cpu
 * tracefile="cpu/N"> names the file; it comes before the scanned ones. */
static int
cpu_tracefile(struct tdat_ltt *l, int bi, uint32_t id, xmlNodePtr c,
    struct tdat_err *e)
{
	char *s = tdat_ltt_xattr(c, "tracefile"), *end = NULL, rel[32];
	struct ltf t;
	unsigned long n = 0;

	if (s == NULL)
		return 0;
	if (strncmp(s, "cpu/", 4) == 0 && s[4] >= '0' && s[4] <= '9')
		n = strtoul(s + 4, &end, 10);
	if (end == NULL || *end || n > 65535) {
		tdat_fail_nooff(e, TDAT_ECORRUPT, "%s/info/tracedat.xml: "
		    "tracefile \"%.64s\" is not cpu/N", l->d.dir, s);
		free(s);
		return e->code;
	}
	free(s);
	snprintf(rel, sizeof(rel), "cpu/%lu", n);
	if (add_tf(l, bi, id, rel) < 0)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	t = l->tfs[l->ntfs - 1];
	memmove(l->tfs + 1, l->tfs, (l->ntfs - 1) * sizeof(t));
	l->tfs[0] = t;
	return 0;
}

static uint64_t
tf_size(struct tdat_ltt *l, int buf, uint32_t cpu)
{
	char path[PATH_MAX];
	struct stat st;
	size_t i;

	for (i = 0; i < l->ntfs; i++)
		if (l->tfs[i].buf == buf && l->tfs[i].cpu == cpu) {
			snprintf(path, sizeof(path), "%s/%s", l->d.dir,
			    l->tfs[i].rel);
			return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
		}
	return 0;
}

static int
latency_text(struct tdat_ltt *l, struct tdat_err *e)
{
	struct tdat_blob b;
	int fd, rc;

	if ((rc = read_blob(l, "info/latency", &b, e)) < 0)
		return rc;
	if ((fd = memfd_create("tdat-ltt-latency", MFD_CLOEXEC)) < 0 ||
	    write(fd, b.p, (size_t)b.len) != (ssize_t)b.len) {
		if (fd >= 0)
			close(fd);
		free(b.p);
		return tdat_fail_nooff(e, TDAT_EIO, "latency text: %s",
		    strerror(errno));
	}
	free(b.p);
	l->f->fd = fd;
	l->f->latency_off = 0;
	l->f->fsize = b.len;
	return 0;
}

/* The container as info/tracedat.xml describes it. */
static int
read_tracedat(struct tdat_ltt *l, struct tdat_err *e)
{
	struct tdat_file *f = l->f;
	char path[PATH_MAX], *s;
	xmlDocPtr doc;
	struct tdat_err why;
	int html;
	xmlNodePtr root, b, c;
	int *remap = NULL, rc = 0;
	size_t nold, i;

	snprintf(path, sizeof(path), "%s/info/tracedat.xml", l->d.dir);
	doc = tdat_ltt_read_doc(path, XML_PARSE_NONET | XML_PARSE_NOERROR |
	    XML_PARSE_NOWARNING | XML_PARSE_NOBLANKS, -1, &html, &why);
	if (doc == NULL && why.code)
		return tdat_fail_nooff(e, why.code, "%s: %s", path, why.msg);
	if (doc == NULL || (root = xmlDocGetRootElement(doc)) == NULL ||
	    xmlStrcmp(root->name, X("tracedat")) != 0) {
		xmlFreeDoc(doc);
		return tdat_fail_nooff(e, TDAT_ECORRUPT, "%s: not a tracedat "
		    "description", path);
	}
	f->version = (int)tdat_ltt_xattr_num(root, "version", 7);
	s = tdat_ltt_xattr(root, "endian");
	f->big = s && strcmp(s, "big") == 0;
	free(s);
	f->lsize = (int)tdat_ltt_xattr_num(root, "long_size", 8);
	f->page_size = (uint32_t)tdat_ltt_xattr_num(root, "page_size", 4096);
	f->ncpus = (uint32_t)tdat_ltt_xattr_num(root, "cpus", l->d.ncpu);
	f->comp = tdat_ltt_xattr(root, "compression");
	f->clock_data = tdat_ltt_xattr(root, "clock_data");
	f->trace_clock = tdat_ltt_xattr(root, "trace_clock");
	f->has_clock_data = (int)tdat_ltt_xattr_num(root, "has_clock_data", 0);
	f->v6_options = (int)tdat_ltt_xattr_num(root, "v6_options", 0);
	f->latency = (int)tdat_ltt_xattr_num(root, "latency", 0);
	if (f->version != 6 && f->version != 7)
		f->version = 7;
	if (f->lsize != 4 && f->lsize != 8)
		f->lsize = 8;
	if (f->page_size < 1024 || f->page_size > (1u << 20))
		rc = tdat_fail_nooff(e, TDAT_ECORRUPT, "%s: page size %u",
		    path, f->page_size);
	if (rc == 0)
		rc = read_options(l, &remap, &nold, e);
	for (b = root->children; b && rc == 0; b = b->next) {
		struct tdat_buffer *tb;
		long long oi;
		int bi;

		if (b->type != XML_ELEMENT_NODE ||
		    xmlStrcmp(b->name, X("buffer")) != 0)
			continue;
		tb = realloc(f->buf, (f->nbuf + 1) * sizeof(*tb));
		if (tb == NULL) {
			rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
			break;
		}
		f->buf = tb;
		bi = (int)f->nbuf++;
		tb += bi;
		memset(tb, 0, sizeof(*tb));
		tb->name = tdat_ltt_xattr(b, "name");
		if (tb->name == NULL)
			tb->name = strdup("");
		tb->clock = tdat_ltt_xattr(b, "clock");
		tb->page_size = (uint32_t)tdat_ltt_xattr_num(b, "page_size",
		    f->page_size);
		if (tb->page_size < 1024 || tb->page_size > (1u << 20)) {
			rc = tdat_fail_nooff(e, TDAT_ECORRUPT, "%s: buffer "
			    "\"%s\": page size %u", path, tb->name,
			    tb->page_size);
			break;
		}
		oi = tdat_ltt_xattr_num(b, "option", -1);
		tb->opt_index = oi >= 0 && (size_t)oi < nold ? remap[oi] : -1;
		tb->latency = (int)tdat_ltt_xattr_num(b, "latency", 0);
		tb->data_end = 0;
		if ((rc = scan_tracefiles(l, bi, e)) < 0)
			break;
		for (c = b->children; c; c = c->next) {
			uint32_t id;

			if (c->type != XML_ELEMENT_NODE ||
			    xmlStrcmp(c->name, X("cpu")) != 0)
				continue;
			id = (uint32_t)tdat_ltt_xattr_num(c, "id", 0);
			if ((rc = cpu_tracefile(l, bi, id, c, e)) < 0)
				break;
			if (tdat_ltt_add_cpu(tb, id, tf_size(l, bi, id)) < 0) {
				rc = tdat_fail_nooff(e, TDAT_ENOMEM,
				    "out of memory");
				break;
			}
		}
	}
	free(remap);
	xmlFreeDoc(doc);
	/* A latency buffer streams info/latency (lo_open()); a v6 file's
	 * text is also where f->latency_off says, for what reads it there. */
	for (i = 0; rc == 0 && i < f->nbuf; i++)
		if (f->buf[i].latency && f->latency)
			rc = latency_text(l, e);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Event formats: the originals, mapped to LTT ids. */

static int
parse_formats(struct tdat_ltt *l, struct tdat_err *e)
{
	struct tdat_file *f = l->f;
	uint32_t i, k, n = f->nftrace;

	for (i = 0; i < f->nsys; i++)
		n += f->sys[i].nev;
	if ((l->fmt = calloc((size_t)n + 1, sizeof(*l->fmt))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	for (i = 0; i < f->nftrace; i++)
		if (tdat_ltt_fmt_parse((const char *)f->ftrace[i].p,
		    (size_t)f->ftrace[i].len, "ftrace", f->lsize, f->big,
		    &l->fmt[l->nfmt]) == 0)
			l->nfmt++;
		else
			tdat_ltt_fmt_free(&l->fmt[l->nfmt]);
	for (i = 0; i < f->nsys; i++)
		for (k = 0; k < f->sys[i].nev; k++)
			if (tdat_ltt_fmt_parse((const char *)f->sys[i].ev[k].p,
			    (size_t)f->sys[i].ev[k].len, f->sys[i].name,
			    f->lsize, f->big, &l->fmt[l->nfmt]) == 0)
				l->nfmt++;
			else
				tdat_ltt_fmt_free(&l->fmt[l->nfmt]);
	return 0;
}

static int
find_fmt(struct tdat_ltt *l, const char *sys, size_t sl, const char *name)
{
	int i;

	for (i = 0; i < l->nfmt; i++)
		if (strlen(l->fmt[i].sys) == sl &&
		    memcmp(l->fmt[i].sys, sys, sl) == 0 &&
		    strcmp(l->fmt[i].name, name) == 0)
			return i;
	return -1;
}

/* Whether t ends with the empty string LTTV's dialect adds, which the
 * record does not have. */
static int
lttv_end(const struct lt_type *t)
{
	const struct lt_field *f;

	if (t == NULL || t->kind != LT_STRUCT || t->nfield == 0)
		return 0;
	f = &t->field[t->nfield - 1];
	return strcmp(f->name, LTTV_END) == 0 && f->t &&
	    f->t->kind == LT_STRING;
}

static int
map_ids(struct tdat_ltt *l, struct tdat_err *e)
{
	uint32_t id, n = l->d.nid ? l->d.nid : 1;

	/* The ids below nid: the reader passes on no other. */
	if ((l->ltt2fmt = malloc(n * sizeof(*l->ltt2fmt))) == NULL ||
	    (l->endpad = calloc(n, 1)) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	l->lost_id = -1;
	/* -1 for every id, then the mapped ones. */
	memset(l->ltt2fmt, 0xff, n * sizeof(*l->ltt2fmt));
	for (id = 0; id < l->d.nid; id++) {
		const struct lt_facility *fa;
		const char *en, *colon;

		if (l->d.id_fac[id] < 0)
			continue;
		fa = &l->d.defs.fac[l->d.id_fac[id]];
		en = fa->ev[l->d.id_ev[id]].name;
		l->endpad[id] = lttv_end(fa->ev[l->d.id_ev[id]].t);
		if (strcmp(en, "lost_events") == 0 &&
		    (strcmp(fa->name, "tdat_state") == 0 ||
		    strcmp(fa->name, "tdat") == 0)) {
			l->lost_id = (int)id;
			continue;
		}
		if ((colon = strchr(en, ':')) != NULL)
			l->ltt2fmt[id] = find_fmt(l, en, (size_t)(colon - en),
			    colon + 1);
		else
			l->ltt2fmt[id] = find_fmt(l, fa->name,
			    strlen(fa->name), en);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* No originals: a trace.dat made from the eventdefs. */

static int
text_blob(struct tdat_blob *b, const char *s)
{
	b->len = strlen(s);
	b->off = 0;
	return (b->p = (unsigned char *)strdup(s)) == NULL ? -1 : 0;
}

static int
synthesize(struct tdat_ltt *l, struct tdat_err *e)
{
	struct tdat_file *f = l->f;
	struct tdat_buffer *b;
	char hp[512];
	int i, k, ls = l->d.lsize;
	size_t t;

	f->version = 6;
	f->big = l->d.big;
	f->lsize = ls;
	f->page_size = 4096;
	snprintf(hp, sizeof(hp), "\tfield: u64 timestamp;\toffset:0;\tsize:8;"
	    "\tsigned:0;\n\tfield: local_t commit;\toffset:8;\tsize:%d;\t"
	    "signed:1;\n\tfield: int overwrite;\toffset:8;\tsize:1;\t"
	    "signed:1;\n\tfield: char data;\toffset:%d;\tsize:%d;\t"
	    "signed:1;\n", ls, 8 + ls, 4096 - 8 - ls);
	if (text_blob(&f->hpage, hp) < 0 ||
	    text_blob(&f->hevent, tdat_synth_hevent) < 0 ||
	    (l->syn = calloc(l->d.nid ? l->d.nid : 1, sizeof(*l->syn)))
	    == NULL ||
	    (f->sys = calloc((size_t)l->d.defs.nfac, sizeof(*f->sys))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	for (i = 0; i < l->d.defs.nfac; i++) {
		const struct lt_facility *fa = &l->d.defs.fac[i];
		struct tdat_system *sy = &f->sys[f->nsys];

		if (strcmp(fa->name, "builtin") == 0 ||
		    strcmp(fa->name, "tdat_state") == 0)
			continue;
		if ((sy->name = strdup(fa->name)) == NULL ||
		    (sy->ev = calloc((size_t)fa->nev + 1, sizeof(*sy->ev)))
		    == NULL)
			return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		for (k = 0; sy->name[k]; k++)
			if (sy->name[k] == ':' || sy->name[k] == ' ')
				sy->name[k] = '_';
		f->nsys++;
		for (k = 0; k < fa->nev; k++) {
			uint32_t id = fa->base + (uint32_t)k;

			/* Ids the builtin facility or an earlier one covers
			 * are not this facility's. */
			if (id < LTT_NBUILTIN || id >= l->d.nid ||
			    l->d.id_fac[id] != i || l->d.id_ev[id] != k)
				continue;
			if (strcmp(fa->name, "tdat") == 0 &&
			    strchr(fa->ev[k].name, ':') == NULL)
				continue;	/* tdat's own state events */
			l->syn[id] = tdat_ltt_synth_new(fa, &fa->ev[k],
			    (uint16_t)id, &sy->ev[sy->nev]);
			if (l->syn[id] == NULL)
				return tdat_fail_nooff(e, TDAT_EUNSUP, "%s: "
				    "event %s of facility %s has a type tdat "
				    "cannot express", l->d.dir, fa->ev[k].name,
				    fa->name);
			sy->nev++;
		}
	}
	if ((f->buf = calloc(1, sizeof(*f->buf))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	f->nbuf = 1;
	b = f->buf;
	b->name = strdup("");
	b->clock = strdup("local");
	b->page_size = f->page_size;
	b->opt_index = -1;
	if (b->name == NULL || b->clock == NULL ||
	    scan_tracefiles(l, 0, e) < 0)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	f->ncpus = l->d.ncpu;
	for (t = 0; t < l->ntfs; t++) {
		if (tdat_ltt_add_cpu(b, l->tfs[t].cpu, tf_size(l, 0, l->tfs[t].cpu)) < 0)
			return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		if (l->tfs[t].cpu >= f->ncpus)
			f->ncpus = l->tfs[t].cpu + 1;
	}
	l->lost_id = -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Pages. */

/* The payload of ev in the byte order of the records: the tracefiles of
 * --lttv=2003 are little-endian whatever the trace.dat was.  The swapped
 * copy is used at once, so the streams share one buffer. */
static const unsigned char *
payload(struct lstream *s, const struct ltt_ev *ev)
{
	struct tdat_ltt *l = s->l;
	const struct lt_facility *fa = &l->d.defs.fac[ev->fac];

	if (l->d.big == l->f->big)
		return ev->p;
	tdat_sb_reset(&l->swap);
	tdat_sb_add(&l->swap, (const char *)ev->p, ev->n);
	if (l->swap.oom) {
		tdat_fail_nooff(s->e, TDAT_ENOMEM, "out of memory");
		return NULL;
	}
	if (tdat_ltt_payload_swap(fa, fa->ev[ev->ev].t,
	    (unsigned char *)l->swap.p,
	    ev->n, l->d.big) != (long)ev->n) {
		tdat_fail(s->e, TDAT_ECORRUPT, ev->off, "%s/%s: event %u cannot "
		    "change byte order", l->d.dir, s->cur.rel, ev->id);
		return NULL;
	}
	return (const unsigned char *)l->swap.p;
}

/* The next record of the stream's tracefile into s->pg.rec; 1, 0 at the end,
 * < 0 on damage. */
static int
next_record(struct lstream *s)
{
	struct tdat_ltt *l = s->l;
	struct ltt_ev ev;
	const unsigned char *p;
	long used;
	int rc, fi;

	while ((rc = tdat_ltt_tf_next(&l->d, &s->cur, &ev, s->e)) > 0) {
		if ((int)ev.id == l->lost_id && ev.n >= 8) {
			s->missed = 1;
			s->missed_count = (long long)tdat_get64(ev.p, l->d.big);
			continue;
		}
		if (l->syn) {
			if (l->syn[ev.id] == NULL)
				continue;
			used = tdat_ltt_synth_decode(l->syn[ev.id], ev.p, ev.n,
			    l->d.big, &s->pg.rec);
			if (used != (long)ev.n)
				return tdat_fail(s->e, TDAT_ECORRUPT, ev.off,
				    "%s/%s: event %u cannot become a record",
				    l->d.dir, s->cur.rel, ev.id);
		} else {
			if ((fi = l->ltt2fmt[ev.id]) < 0)
				continue;	/* builtin and state events */
			if ((p = payload(s, &ev)) == NULL)
				return s->e->code;
			used = tdat_ltt_fmt_decode(&l->fmt[fi], p, ev.n,
			    l->f->big,
			    &s->pg.rec);
			/* LTTV's dialect: an empty string after the record's
			 * fields. */
			if (l->endpad[ev.id] && used >= 0 &&
			    (uint32_t)used + 1 == ev.n && p[used] == 0)
				used++;
			if (used != (long)ev.n)
				return tdat_fail(s->e, TDAT_ECORRUPT, ev.off,
				    "%s/%s: event %u does not match the format "
				    "of %s:%s", l->d.dir, s->cur.rel, ev.id,
				    l->fmt[fi].sys, l->fmt[fi].name);
		}
		s->pg.ts = ev.time;
		s->pg.missed = s->missed;
		s->pg.count = s->missed_count;
		s->missed = 0;
		return 1;
	}
	return rc;
}

/* Damage found after a page was begun: the page is finished with the
 * records before it, and the next fill_page() reports it. */
static void
defer(struct lstream *s, int rc)
{
	tdat_pager_defer(&s->pg, rc, s->e);
}

/* Fill one page (pg) with records (lib/ring's encoder); 1 if a page was
 * made, 0 when the tracefile has no more, < 0 on damage. */
static int
next_cb(void *s)
{
	return next_record(s);
}

static int
fill_page(struct lstream *s, unsigned char *pg)
{
	struct tdat_ltt *l = s->l;
	int rc = tdat_pager_fill(&s->pg, &l->pl, s->ps, pg, next_cb, s, s->e);

	if (rc == TDAT_PAGER_BIG)
		return tdat_fail_nooff(s->e, TDAT_EUNSUP, "%s/%s: a record of "
		    "%u bytes does not fit a page of %u", l->d.dir, s->cur.rel,
		    (uint32_t)s->pg.rec.len, s->ps);
	return rc;
}

static void
cur_close(struct lstream *s)
{
	if (s->cur_open)
		tdat_ltt_tf_close(&s->cur);
	s->cur_open = 0;
	s->pg.pending = 0;
	s->missed = 0;
	s->pg.err_rc = 0;
}

/* The tracefile of buffer buf and CPU id cpu, or NULL. */
static const struct ltf *
find_tf(const struct tdat_ltt *l, int buf, uint32_t cpu)
{
	size_t i;

	for (i = 0; i < l->ntfs; i++)
		if (l->tfs[i].buf == buf && l->tfs[i].cpu == cpu)
			return &l->tfs[i];
	return NULL;
}

static int
ps_begin(void *arg, int buf, uint32_t cpu, uint64_t *total,
    struct tdat_err *e)
{
	struct tdat_ltt *l = arg;
	struct lstream *s = &l->src;
	const struct ltf *t;
	uint64_t pages = 0;
	int rc;

	cur_close(s);
	*total = 0;
	s->e = e;
	s->done = 1;
	if (buf < 0 || (size_t)buf >= l->f->nbuf)
		return 0;
	s->ps = l->f->buf[buf].page_size;
	if ((t = find_tf(l, buf, cpu)) == NULL)
		return 0;
	if ((rc = tdat_ltt_tf_open(&l->d, &s->cur, t->rel, e)) < 0)
		return rc;
	s->cur_open = 1;
	while ((rc = fill_page(s, l->page)) > 0)
		pages++;
	if (rc < 0)
		return rc;
	tdat_ltt_tf_rewind(&s->cur);
	s->pg.pending = 0;
	s->missed = 0;
	s->done = pages == 0;
	*total = pages * s->ps;
	return 0;
}

static int
ps_read(void *arg, unsigned char *dst, size_t cap, size_t *got,
    struct tdat_err *e)
{
	struct tdat_ltt *l = arg;
	struct lstream *s = &l->src;
	uint32_t ps = s->ps;
	int rc;

	*got = 0;
	s->e = e;
	while (!s->done && cap - *got >= ps) {
		if ((rc = fill_page(s, dst + *got)) < 0)
			return rc;
		if (rc == 0) {
			s->done = 1;
			break;
		}
		*got += ps;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Page operations: one stream per tracefile, any number open at once. */

#define LTT_WINDOW	(256u << 10)	/* bytes of pages a window holds */

static void lo_close(void *st);

/* A latency buffer: the text of info/latency, in windows of any length,
 * as trace.dat's page operations give a latency file's text. */
static int
lat_open(struct lstream *s, uint64_t *total, struct tdat_err *e)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/info/latency", s->l->d.dir);
	if ((s->lat_fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
	    fstat(s->lat_fd, &st) < 0)
		return tdat_fail_nooff(e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
	s->wcap = LTT_WINDOW;
	if ((s->win = malloc(s->wcap)) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	*total = (uint64_t)st.st_size;
	s->done = 0;
	return 0;
}

static int
lat_next(struct lstream *s, struct tdat_window *w, struct tdat_err *e)
{
	ssize_t n;

	if (s->done)
		return 0;
	do
		n = pread(s->lat_fd, s->win, s->wcap, (off_t)s->off);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		s->done = 1;
		return tdat_fail_nooff(e, TDAT_EIO, "%s/info/latency: %s",
		    s->l->d.dir, strerror(errno));
	}
	if (n == 0) {
		s->done = 1;
		return 0;
	}
	memset(w, 0, sizeof(*w));
	w->p = s->win;
	w->len = (size_t)n;
	w->off = s->off;
	w->index = s->index++;
	s->off += (uint64_t)n;
	return 1;
}

static int
lo_open(struct tdat_file *f, int buf, uint32_t ci, void **st,
    uint64_t *total, struct tdat_err *e)
{
	struct tdat_ltt *l = f->page_arg;
	const struct tdat_cpu *c;
	const struct ltf *t;
	struct lstream *s;
	int rc;

	*st = NULL;
	*total = 0;
	if (buf < 0 || (size_t)buf >= f->nbuf || (f->buf[buf].latency ?
	    ci != 0 : ci >= f->buf[buf].ncpu))
		return tdat_fail_nooff(e, TDAT_EUSAGE, "%s: no buffer %d CPU "
		    "index %u", f->path, buf, ci);
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	s->l = l;
	s->e = e;
	s->lat_fd = -1;
	tdat_sb_init(&s->pg.rec);
	s->done = 1;
	*st = s;
	if (f->buf[buf].latency) {
		if ((rc = lat_open(s, total, e)) < 0)
			goto fail;
		return 0;
	}
	c = &f->buf[buf].cpu[ci];
	if ((t = find_tf(l, buf, c->id)) == NULL)
		return 0;	/* no tracefile: no pages */
	s->ps = f->buf[buf].page_size;
	s->wcap = LTT_WINDOW / s->ps * s->ps;
	if (s->wcap == 0)
		s->wcap = s->ps;
	if ((s->win = malloc(s->wcap)) == NULL) {
		rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		goto fail;
	}
	if ((rc = tdat_ltt_tf_open(&l->d, &s->cur, t->rel, e)) < 0)
		goto fail;
	s->cur_open = 1;
	s->done = 0;
	s->off = c->off;
	*total = c->size;	/* the tracefile's bytes: an estimate */
	return 0;
fail:
	lo_close(s);
	*st = NULL;
	return rc;
}

/* After damage in a block, go on at the next block (blocks stand alone,
 * as chunks do); after an I/O error, stop. */
static void
lo_skip(struct lstream *s, int rc)
{
	if (rc != TDAT_ECORRUPT || s->cur.bi >= s->cur.nblocks) {
		s->done = 1;
		return;
	}
	s->cur.bi++;
	s->cur.loaded = 0;
	s->pg.pending = 0;
	s->missed = 0;
}

static int
lo_next(void *st, struct tdat_window *w, struct tdat_err *e)
{
	struct lstream *s = st;
	uint32_t ps = s->ps;
	size_t n = 0;
	int rc;

	s->e = e;
	if (s->lat_fd >= 0)
		return lat_next(s, w, e);
	while (!s->done && s->wcap - n >= ps) {
		if ((rc = fill_page(s, s->win + n)) < 0) {
			if (n > 0) {	/* the pages made come first */
				defer(s, rc);
				break;
			}
			lo_skip(s, rc);
			return rc;
		}
		if (rc == 0) {
			s->done = 1;
			break;
		}
		n += ps;
	}
	if (n == 0)
		return 0;
	memset(w, 0, sizeof(*w));
	w->p = s->win;
	w->len = n;
	w->tail = 0;
	w->off = s->off;
	w->chunk = 0;
	w->index = s->index++;
	s->off += n;
	return 1;
}

static void
lo_close(void *st)
{
	struct lstream *s = st;

	if (s == NULL)
		return;
	cur_close(s);
	if (s->lat_fd >= 0)
		close(s->lat_fd);
	tdat_sb_free(&s->pg.rec);
	free(s->win);
	free(s);
}

static void
lo_release(struct tdat_file *f)
{
	struct tdat_ltt *l = f->page_arg;

	tdat_options_free(f);	/* the decoder's, if used */
	f->page_ops = NULL;
	f->page_arg = NULL;
	if (l == NULL)
		return;
	l->f = NULL;		/* the caller frees f */
	tdat_ltt_close(l);
}

static const struct tdat_page_ops ltt_page_ops = {
	.open = lo_open,
	.next = lo_next,
	.close = lo_close,
	.release = lo_release,
};
/* ------------------------------------------------------------------ */

int
tdat_ltt_open(const char *dir, struct tdat_ltt **out, struct tdat_err *e)
{
	struct tdat_ltt *l;
	char path[PATH_MAX];
	uint32_t mps;
	size_t i;
	int rc;

	*out = NULL;
	if ((rc = tdat_xml_load(e)) < 0)
		return rc;
	if ((l = calloc(1, sizeof(*l))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	l->src.l = l;
	l->src.lat_fd = -1;
	tdat_sb_init(&l->src.pg.rec);
	tdat_sb_init(&l->swap);
	l->ps.arg = l;
	l->ps.begin = ps_begin;
	l->ps.read = ps_read;
	if ((rc = tdat_ltt_dir_open(dir, &l->d, 0, e)) < 0)
		goto fail;
	if ((l->f = calloc(1, sizeof(*l->f))) == NULL) {
		rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		goto fail;
	}
	l->f->fd = -1;
	l->f->path = strdup(dir);
	l->dialect = TDAT_LTT_XML;
	if (l->d.lttv_defs || l->d.lttv_endian)
		l->dialect = TDAT_LTT_LTTV2005;
	snprintf(path, sizeof(path), "%s/info/tracedat.xml", dir);
	if (access(path, R_OK) != 0) {
		/* A directory tdat did not write: formats from eventdefs. */
		if ((rc = synthesize(l, e)) < 0 ||
		    (rc = tdat_page_layout(l->f, &l->pl, e)) < 0)
			goto fail;
	} else if ((rc = read_tracedat(l, e)) < 0 ||
	    (rc = read_blob(l, "info/header_page", &l->f->hpage, e)) < 0 ||
	    (rc = read_blob(l, "info/header_event", &l->f->hevent, e)) < 0 ||
	    (rc = read_blob(l, "info/kallsyms", &l->f->kallsyms, e)) < 0 ||
	    (rc = read_blob(l, "info/printk", &l->f->printk, e)) < 0 ||
	    (rc = read_blob(l, "info/cmdlines", &l->f->cmdlines, e)) < 0 ||
	    (rc = read_extra(l, e)) < 0 ||
	    (rc = read_dir_blobs(l, "info/formats/ftrace", &l->f->ftrace,
	    &l->f->nftrace, e)) < 0 ||
	    (rc = read_systems(l, e)) < 0 ||
	    (rc = parse_formats(l, e)) < 0 ||
	    (rc = map_ids(l, e)) < 0 ||
	    (rc = tdat_page_layout(l->f, &l->pl, e)) < 0)
		goto fail;
	for (i = 0, mps = l->f->page_size; i < l->f->nbuf; i++)
		if (l->f->buf[i].page_size > mps)
			mps = l->f->buf[i].page_size;
	if ((l->page = malloc(mps)) == NULL) {
		rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		goto fail;
	}
	*out = l;
	return 0;
fail:
	tdat_ltt_close(l);
	return rc;
}

struct tdat_file *
tdat_ltt_file(struct tdat_ltt *l)
{
	return l->f;
}

const struct tdat_page_src *
tdat_ltt_pages(struct tdat_ltt *l)
{
	return &l->ps;
}

int
tdat_ltt_dialect(const struct tdat_ltt *l)
{
	return l->dialect;
}

void
tdat_ltt_close(struct tdat_ltt *l)
{
	int i;

	if (l == NULL)
		return;
	cur_close(&l->src);
	if (l->f)
		tdat_options_free(l->f);	/* the decoder's, if used */
	tdat_close(l->f);
	for (i = 0; i < l->nfmt; i++)
		tdat_ltt_fmt_free(&l->fmt[i]);
	free(l->fmt);
	free(l->ltt2fmt);
	free(l->endpad);
	tdat_sb_free(&l->swap);
	if (l->syn) {
		for (i = 0; i < (int)l->d.nid; i++)
			tdat_ltt_synth_free(l->syn[i]);
		free(l->syn);
	}
	free(l->tfs);
	free(l->page);
	tdat_sb_free(&l->src.pg.rec);
	tdat_ltt_dir_close(&l->d);
	free(l);
}

/* The directory as a trace.dat whose pages stream from its tracefiles
 * (memory: one LTT block and one window per open CPU). */
int
tdat_ltt_open_tdat(const char *dir, struct tdat_file **out,
    struct tdat_err *e)
{
	return tdat_ltt_open_stream(dir, out, e);
}

int
tdat_ltt_open_stream(const char *dir, struct tdat_file **out,
    struct tdat_err *e)
{
	struct tdat_ltt *l;
	int rc;

	*out = NULL;
	if ((rc = tdat_ltt_open(dir, &l, e)) < 0)
		return rc;
	l->f->format = &tdat_ltt_format;
	l->f->page_ops = &ltt_page_ops;
	l->f->page_arg = l;
	*out = l->f;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The LTT format as the engine sees it (lib/read/source.c). */

static int
ltt_bid(const char *path)
{
	return strcmp(path, "-") != 0 && tdat_ltt_probe(path);
}

static int
ltt_open(const char *path, const struct tdat_open_opts *o,
    struct tdat_file **out, struct tdat_err *e)
{
	*out = NULL;
	if (o && o->salvage)
		return tdat_fail_nooff(e, TDAT_EUNSUP, "an LTT directory "
		    "cannot be salvaged: check it with tdat-verify");
	return tdat_ltt_open_tdat(path, out, e);
}

const struct tdat_format tdat_ltt_format = {
	.name = "ltt",
	.bid = ltt_bid,
	.open = ltt_open,
	.verify = tdat_ltt_verify_input,
	/* no clock: tdat-to-ltt stored the times moved already */
};
