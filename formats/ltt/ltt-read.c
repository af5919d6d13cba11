/*
 * ltt-read.c: an LTT trace directory read back (ltt(5)): system.xml,
 * eventdefs in either dialect, facility bases from control/facilities,
 * tracefiles block by block with times interpolated as LTTV does, and the
 * events turned back into ring-buffer pages of a trace.dat through the
 * ftrace originals kept in info/.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ltt-xml.h"

#include "ltt-int.h"

#define X(s)	((const xmlChar *)(s))
#define NS	1000000000ull
#define MAX_META	(256u << 20)
/* An XML file (system.xml, eventdefs, tracedat.xml): its tree takes some
 * 13 times its size; tdat's largest eventdefs from ../shared/corpus is
 * 1.2 MB. */
#define MAX_XML		(16u << 20)

/* ------------------------------------------------------------------ */
/* Small helpers. */

int
tdat_ltt_slurp(const char *path, unsigned char **out, uint64_t *len,
    struct tdat_err *e)
{
	struct stat st;
	unsigned char *p;
	ssize_t k;
	size_t got = 0;
	int fd;

	*out = NULL;
	*len = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return tdat_fail_nooff(e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > MAX_META) {
		close(fd);
		return tdat_fail_nooff(e, TDAT_ECORRUPT, "%s: not a regular "
		    "file of at most %u bytes", path, MAX_META);
	}
	if ((p = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	while (got < (size_t)st.st_size) {
		k = read(fd, p + got, (size_t)st.st_size - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	p[got] = '\0';
	*out = p;
	*len = got;
	return 0;
}

/* libxml2's own messages (I/O, encoding) would be a second line. */
static void
quiet(void *ctx, const char *fmt, ...)
{
	(void)ctx;
	(void)fmt;
}

/* why->msg: libxml2's last error, the reason the bytes are not XML. */
static void
not_xml(struct tdat_err *why)
{
	xmlErrorPtr err = xmlGetLastError();
	size_t n;

	if (err == NULL || err->message == NULL) {
		snprintf(why->msg, sizeof(why->msg), "not well-formed XML");
		return;
	}
	snprintf(why->msg, sizeof(why->msg), "not well-formed XML: line %d: "
	    "%s", err->line, err->message);
	n = strlen(why->msg);
	while (n > 0 && (why->msg[n - 1] == '\n' || why->msg[n - 1] == ' '))
		why->msg[--n] = '\0';
}

/* 1 if p begins with an XML declaration (after a UTF-8 byte order mark). */
static int
xml_decl(const unsigned char *p, uint64_t n)
{
	if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) {
		p += 3;
		n -= 3;
	}
	return n >= 5 && memcmp(p, "<?xml", 5) == 0;
}

/*
 * The document in path, read as XML with xml_opts or, if that fails and
 * html_opts is not -1, as HTML with html_opts (*html set to 1): LTTV's
 * dialect, whose unquoted attributes are not XML.  A file that declares
 * itself XML (<?xml ...?>, which LTTV's reader refuses) is not LTTV's: if
 * it does not parse, it is damaged, and is not read as HTML, which would
 * make definitions of whatever its damage left.  The file
 * is read once and parsed from memory: libxml2's file input (its probe
 * for compressed data, an inflate stream) cost more than parsing a small
 * file, and it inflated compressed data whatever its size (a 200 KB gzip
 * file took 6.5 GB), which is refused.
 * NULL with *why filled (the fault, without the path) if the file is not
 * a regular file of at most MAX_XML bytes that can be read, or gzip or
 * xz data.  When the bytes are not XML, why->code stays 0 and why->msg
 * says why ("not well-formed XML: line 3: ..."), whether or not they are
 * then read as HTML; NULL if they are not read at all.
 * libxml2 prints nothing: callers make the message.
 */
xmlDocPtr
tdat_ltt_read_doc(const char *path, int xml_opts, int html_opts, int *html,
    struct tdat_err *why)
{
	struct tdat_err e = { 0 };
	struct stat st;
	unsigned char *p = NULL;
	uint64_t n = 0;
	xmlDocPtr doc;

	*html = 0;
	memset(why, 0, sizeof(*why));
	xmlSetGenericErrorFunc(NULL, quiet);
	xmlResetLastError();
	if (stat(path, &st) < 0)
		tdat_fail_nooff(why, TDAT_EIO, "%s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		tdat_fail_nooff(why, TDAT_ECORRUPT, "not a regular file");
	else if ((uint64_t)st.st_size > MAX_XML)
		tdat_fail_nooff(why, TDAT_ECORRUPT, "%llu bytes: an XML file "
		    "is at most %u", (unsigned long long)st.st_size, MAX_XML);
	else if (tdat_ltt_slurp(path, &p, &n, &e) < 0 || n > MAX_XML)
		tdat_fail_nooff(why, e.code ? e.code : TDAT_ECORRUPT, "cannot "
		    "be read whole");
	else if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		tdat_fail_nooff(why, TDAT_ECORRUPT, "gzip data, not XML");
	else if (n >= 6 && memcmp(p, "\xfd" "7zXZ", 6) == 0)
		tdat_fail_nooff(why, TDAT_ECORRUPT, "xz data, not XML");
	if (why->code) {
		free(p);
		return NULL;
	}
	doc = xmlReadMemory((const char *)p, (int)n, path, NULL, xml_opts);
	if (doc == NULL)
		not_xml(why);
	if (doc == NULL && html_opts != -1 && !xml_decl(p, n)) {
		htmlParserCtxtPtr c = htmlNewParserCtxt();

		if (c != NULL && (doc = htmlCtxtReadMemory(c, (const char *)p,
		    (int)n, path, NULL, html_opts)) != NULL)
			*html = 1;
		else
			snprintf(why->msg, sizeof(why->msg), "neither XML nor "
			    "LTTV eventdefs");
		htmlFreeParserCtxt(c);
	}
	free(p);
	return doc;
}

char *
tdat_ltt_xattr(xmlNodePtr n, const char *name)
{
	xmlChar *v = xmlGetProp(n, X(name));
	char *s;

	if (v == NULL)
		return NULL;
	s = strdup((const char *)v);
	xmlFree(v);
	return s;
}

long long
tdat_ltt_xattr_num(xmlNodePtr n, const char *name, long long def)
{
	char *s = tdat_ltt_xattr(n, name), *end;
	long long v;

	if (s == NULL)
		return def;
	v = strtoll(s, &end, 10);
	if (end == s || *end)
		v = def;
	if (strcmp(s, "true") == 0)
		v = 1;
	free(s);
	return v;
}

/* The names in a directory, sorted; hidden names skipped. */
int
tdat_ltt_list(const char *path, char ***out, size_t *n)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **v = NULL, **nv;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if ((nv = realloc(v, (k + 1) * sizeof(*v))) == NULL)
			break;
		v = nv;
		if ((v[k] = strdup(de->d_name)) == NULL)
			break;
		k++;
	}
	closedir(d);
	if (k)
		qsort(v, k, sizeof(*v), tdat_ltt_cmp_str);
	*out = v;
	*n = k;
	return 0;
}

void
tdat_ltt_list_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* ------------------------------------------------------------------ */
/* A trace.dat's originals kept as files (info/ of tdat-to-ltt's
 * directories, tdat/ of tdat-to-ctf's): read back by this reader and
 * the CTF one. */

int
tdat_ltt_blob(const char *base, const char *label, const char *rel,
    struct tdat_blob *b, struct tdat_err *e)
{
	char path[PATH_MAX];
	unsigned char *p;
	uint64_t n;
	int rc;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", base, rel) >=
	    sizeof(path))
		return tdat_fail_nooff(e, TDAT_EUSAGE, "%s/%s: path too long",
		    label, rel);
	if ((rc = tdat_ltt_slurp(path, &p, &n, e)) < 0)
		return rc;
	b->p = p;
	b->len = n;
	b->off = 0;
	return 0;
}

int
tdat_ltt_dir_blobs(const char *base, const char *label, const char *rel,
    int missing_ok, struct tdat_blob **out, uint32_t *n, struct tdat_err *e)
{
	char path[PATH_MAX], **names;
	size_t k, i;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	*out = NULL;
	*n = 0;
	if (tdat_ltt_list(path, &names, &k) < 0)
		return missing_ok && errno == ENOENT ? 0 : tdat_fail_nooff(e,
		    TDAT_ECORRUPT, "%s/%s: %s", label, rel, strerror(errno));
	if (k && (*out = calloc(k, sizeof(**out))) == NULL)
		rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	for (i = 0; i < k && rc == 0; i++) {
		snprintf(path, sizeof(path), "%s/%s", rel, names[i]);
		if ((rc = tdat_ltt_blob(base, label, path, &(*out)[i], e)) ==
		    0)
			(*n)++;
	}
	tdat_ltt_list_free(names, k);
	return rc;
}

int
tdat_ltt_options(struct tdat_file *f, struct tdat_blob b, const char *name,
    int **remap, size_t *nold, struct tdat_err *e)
{
	uint64_t at = 0;
	size_t n = 0;

	*remap = NULL;
	*nold = 0;
	if ((f->opt_blobs = malloc(sizeof(*f->opt_blobs))) == NULL) {
		free(b.p);
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	f->opt_blobs[0] = b.p;
	f->nopt_blobs = 1;
	while (b.len - at >= 6) {
		uint16_t id = tdat_get16(b.p + at, f->big);
		uint32_t size = tdat_get32(b.p + at + 2, f->big);
		struct tdat_option *o;
		int *r;

		if (size > b.len - at - 6)
			return tdat_fail(e, TDAT_ECORRUPT, at, "%s: option %u "
			    "runs past the end", name, id);
		if ((r = realloc(*remap, (n + 1) * sizeof(int))) == NULL)
			return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		*remap = r;
		r[n++] = -1;
		if (id == TDAT_OPT_TSC2NSEC && size >= 16) {
			/* Keep the option, which makes trace-cmd print
			 * nanoseconds, as the identity: multiplier 1, shift 0,
			 * offset 0. */
			memset(b.p + at + 6, 0, size);
			tdat_put(b.p + at + 6, 1, 4, f->big);
		}
		if (id != TDAT_OPT_OFFSET && id != TDAT_OPT_TIME_SHIFT) {
			if ((o = realloc(f->opt, (f->nopt + 1) *
			    sizeof(*o))) == NULL)
				return tdat_fail_nooff(e, TDAT_ENOMEM,
				    "out of memory");
			f->opt = o;
			o += f->nopt;
			o->id = id;
			o->size = size;
			o->off = 0;
			o->data = b.p + at + 6;
			o->sect = -1;
			r[n - 1] = (int)f->nopt++;
		}
		at += 6 + (uint64_t)size;
	}
	*nold = n;
	return 0;
}

int
tdat_ltt_add_cpu(struct tdat_buffer *b, uint32_t id, uint64_t size)
{
	struct tdat_cpu *c = realloc(b->cpu, (b->ncpu + 1) * sizeof(*c));

	if (c == NULL)
		return -1;
	b->cpu = c;
	memset(&c[b->ncpu], 0, sizeof(*c));
	c[b->ncpu].id = id;
	c[b->ncpu].size = size;
	b->ncpu++;
	return 0;
}

void
tdat_pager_defer(struct tdat_pager *p, int rc, const struct tdat_err *e)
{
	p->err_rc = rc;
	p->err = *e;
}

int
tdat_pager_fill(struct tdat_pager *p, const struct tdat_page_layout *pl,
    uint32_t ps, unsigned char *pg, int (*next)(void *), void *arg,
    struct tdat_err *e)
{
	struct tdat_ring_enc enc;
	int rc;

	if (p->err_rc) {
		rc = p->err_rc;
		p->err_rc = 0;
		*e = p->err;
		return rc;
	}
	if (!p->pending) {
		if ((rc = next(arg)) <= 0)
			return rc;
		p->pending = 1;
	}
	tdat_ring_enc_init(&enc, pl, pg, ps);
	if (!tdat_ring_enc_fits(&enc, (uint32_t)p->rec.len))
		return TDAT_PAGER_BIG;
	tdat_ring_enc_start(&enc, p->ts, p->missed, p->count);
	for (;;) {
		/* (a time going back, a gap no time extend holds, lost
		 * events: the next page, its 64-bit time stamp) */
		if (!tdat_ring_enc_fits(&enc, (uint32_t)p->rec.len) ||
		    tdat_ring_enc_full(&enc, (uint32_t)p->rec.len, p->ts,
		    enc.used > 0 && p->missed))
			break;
		tdat_ring_enc_add(&enc, p->rec.p, (uint32_t)p->rec.len, p->ts);
		p->pending = 0;
		if ((rc = next(arg)) < 0) {
			tdat_pager_defer(p, rc, e);
			break;
		}
		if (rc == 0)
			break;
		p->pending = 1;
	}
	tdat_ring_enc_finish(&enc, pg);
	return 1;
}

/* ------------------------------------------------------------------ */
/* The directory: system.xml, eventdefs, facility bases. */

static int
read_system(struct ltt_dir *d, struct tdat_err *e)
{
	char path[PATH_MAX];
	xmlDocPtr doc;
	struct tdat_err why;
	int html;
	xmlNodePtr root;
	char *endian;
	long long bs;

	snprintf(path, sizeof(path), "%s/info/system.xml", d->dir);
	doc = tdat_ltt_read_doc(path, XML_PARSE_NONET | XML_PARSE_NOERROR |
	    XML_PARSE_NOWARNING, -1, &html, &why);
	if (doc == NULL)
		return tdat_fail_nooff(e, why.code ? why.code : TDAT_ECORRUPT,
		    "%s: %s", path, why.msg);
	root = xmlDocGetRootElement(doc);
	if (root == NULL || xmlStrcmp(root->name, X("system")) != 0) {
		xmlFreeDoc(doc);
		return tdat_fail_nooff(e, TDAT_ECORRUPT, "%s: no <system> "
		    "element", path);
	}
	endian = tdat_ltt_xattr(root, "endian");
	{
		char *as = tdat_ltt_xattr(root, "arch_size");

		d->lsize = as && (strcmp(as, "LP64") == 0 ||
		    strcmp(as, "ILP64") == 0) ? 8 : 4;
		free(as);
	}
	bs = tdat_ltt_xattr_num(root, "ltt_block_size", -1);
	d->ncpu = (uint32_t)tdat_ltt_xattr_num(root, "cpu", 0);
	xmlFreeDoc(doc);
	if (endian == NULL || (strcmp(endian, "little") && strcmp(endian,
	    "big") && strcmp(endian, "LITTLE_ENDIAN") && strcmp(endian,
	    "BIG_ENDIAN"))) {
		free(endian);
		return tdat_fail_nooff(e, TDAT_ECORRUPT, "%s: endian is "
		    "missing or unknown", path);
	}
	d->big = strcmp(endian, "big") == 0 || strcmp(endian, "BIG_ENDIAN")
	    == 0;
	d->lttv_endian = endian[0] != 'l' && endian[0] != 'b';
	free(endian);
	if (bs < LTT_MIN_BLOCK || bs > (long long)LTT_MAX_READ_BLOCK)
		return tdat_fail_nooff(e, TDAT_ECORRUPT, "%s: ltt_block_size "
		    "%lld is missing or out of range", path, bs);
	d->bs = (uint32_t)bs;
	return 0;
}

/* A slot in d->docs for eventdefs/name (at path) if its bytes fit in what
 * is kept, else NULL (tdat_ltt_verify parses it again). */
static struct ltt_defdoc *
keep_slot(struct ltt_dir *d, const char *name, const char *path)
{
	struct ltt_defdoc *v, *k;
	struct stat st;

	if (stat(path, &st) < 0 || (uint64_t)st.st_size > MAX_XML - d->kept ||
	    (v = realloc(d->docs, (size_t)(d->ndocs + 1) * sizeof(*v))) ==
	    NULL)
		return NULL;
	d->docs = v;
	k = &v[d->ndocs];
	memset(k, 0, sizeof(*k));
	if ((k->name = strdup(name)) == NULL)
		return NULL;
	d->ndocs++;
	d->kept += (uint64_t)st.st_size;
	return k;
}

static int
read_defs(struct ltt_dir *d, int keep, struct tdat_err *e)
{
	char path[PATH_MAX], **names;
	size_t n, i;
	int rc = 0, lttv;

	snprintf(path, sizeof(path), "%s/eventdefs", d->dir);
	if (tdat_ltt_list(path, &names, &n) < 0)
		return tdat_fail_nooff(e, TDAT_ECORRUPT, "%s: %s", path,
		    strerror(errno));
	/* The builtin facility first, then the others in listing order. */
	for (i = 0; i < n && rc == 0; i++) {
		size_t l = strlen(names[i]);

		if (l < 5 || strcmp(names[i] + l - 4, ".xml") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/eventdefs/%s", d->dir,
		    names[i]);
		rc = tdat_ltt_read_eventdefs(path, &d->defs, &lttv, keep ?
		    keep_slot(d, names[i], path) : NULL, e);
		d->nfiles++;
		if (lttv)
			d->lttv_defs = 1;
		else if (rc == 0)
			d->xml_defs = 1;
	}
	tdat_ltt_list_free(names, n);
	if (rc < 0)
		return rc;
	for (i = 0; i < (size_t)d->defs.nfac; i++)
		if (strcmp(d->defs.fac[i].name, "builtin") == 0 && i > 0) {
			struct lt_facility t = d->defs.fac[i];

			memmove(d->defs.fac + 1, d->defs.fac, i *
			    sizeof(t));
			d->defs.fac[0] = t;
		}
	if (d->defs.nfac == 0)
		return tdat_fail_nooff(e, TDAT_ECORRUPT, "%s/eventdefs: no "
		    "facility", d->dir);
	return 0;
}

int
tdat_ltt_dir_map(struct ltt_dir *d)
{
	uint32_t n = 0, id;
	int32_t *t;
	int i, k;

	/* The tables hold the ids up to the largest one mapped, not all
	 * 65536: a fresh 512 KiB for each directory opened cost more than
	 * reading a small one. */
	for (i = 0; i < d->defs.nfac; i++)
		for (k = 0; k < d->defs.fac[i].nev; k++) {
			id = d->defs.fac[i].base + (uint32_t)k;
			if (id < 65536 && id >= n)
				n = id + 1;
		}
	d->nid = 0;
	if ((t = realloc(d->id_fac, (n ? n : 1) * sizeof(*t))) == NULL)
		return -1;
	d->id_fac = t;
	if ((t = realloc(d->id_ev, (n ? n : 1) * sizeof(*t))) == NULL)
		return -1;
	d->id_ev = t;
	/* Every byte 0xff: every id -1. */
	memset(d->id_fac, 0xff, n * sizeof(*d->id_fac));
	d->nid = n;
	for (i = 0; i < d->defs.nfac; i++) {
		const struct lt_facility *f = &d->defs.fac[i];

		for (k = 0; k < f->nev; k++) {
			id = f->base + (uint32_t)k;
			if (id < n && d->id_fac[id] < 0) {
				d->id_fac[id] = i;
				d->id_ev[id] = k;
			}
		}
	}
	return 0;
}

/* facility_load: name, checksum, base code; or the encoding LTTV's reader
 * decodes one byte off. */
static int
facility_load(struct ltt_dir *d, const unsigned char *p, uint32_t n)
{
	size_t l = strnlen((const char *)p, n);
	uint32_t ck, base, ck2, base2;
	struct lt_facility *f;
	int i;

	if (l + 9 > n)
		return -1;
	ck = tdat_get32(p + l + 1, d->big);
	base = tdat_get32(p + l + 5, d->big);
	ck2 = tdat_get32(p + l, d->big);	/* as LTTV reads it */
	base2 = tdat_get32(p + l + 4, d->big);
	for (i = 0; i < d->defs.nfac; i++) {
		f = &d->defs.fac[i];
		if (strlen(f->name) != l || memcmp(f->name, p, l) != 0)
			continue;
		if (f->cksum == ck || f->cksum == ck2 || !f->loaded) {
			f->base = f->cksum == ck2 && f->cksum != ck ? base2 :
			    base;
			f->loaded = 1;
			return 0;
		}
	}
	return -1;
}

int
tdat_ltt_dir_open(const char *dir, struct ltt_dir *d, int keep_docs,
    struct tdat_err *e)
{
	char path[PATH_MAX];
	struct ltt_tf t;
	struct ltt_ev ev;
	int rc;

	memset(d, 0, sizeof(*d));
	if ((d->dir = strdup(dir)) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	if ((rc = read_system(d, e)) < 0 ||
	    (rc = read_defs(d, keep_docs, e)) < 0)
		return rc;
	if (tdat_ltt_dir_map(d) < 0)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	snprintf(path, sizeof(path), "%s/control/facilities", dir);
	if (access(path, F_OK) != 0)
		return 0;
	if ((rc = tdat_ltt_tf_open(d, &t, "control/facilities", e)) < 0)
		return rc;
	while ((rc = tdat_ltt_tf_next(d, &t, &ev, e)) > 0)
		if (ev.id == LTT_ID_FACILITY_LOAD &&
		    facility_load(d, ev.p, ev.n) < 0) {
			rc = tdat_fail(e, TDAT_ECORRUPT, ev.off, "%s/control/"
			    "facilities: facility_load of a facility the "
			    "eventdefs do not define", dir);
			break;
		}
	tdat_ltt_tf_close(&t);
	if (tdat_ltt_dir_map(d) < 0 && rc >= 0)
		rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	return rc;
}

void
tdat_ltt_dir_close(struct ltt_dir *d)
{
	int i;

	for (i = 0; i < d->ndocs; i++) {
		free(d->docs[i].name);
		xmlFreeDoc(d->docs[i].doc);
	}
	free(d->docs);
	tdat_ltt_defs_free(&d->defs);
	free(d->id_fac);
	free(d->id_ev);
	free(d->dir);
	memset(d, 0, sizeof(*d));
}

/* ------------------------------------------------------------------ */
/* Tracefiles, block by block. */

int
tdat_ltt_tf_open(struct ltt_dir *d, struct ltt_tf *t, const char *rel,
    struct tdat_err *e)
{
	char path[PATH_MAX];
	struct stat st;

	memset(t, 0, sizeof(*t));
	snprintf(t->rel, sizeof(t->rel), "%s", rel);
	snprintf(path, sizeof(path), "%s/%s", d->dir, rel);
	if ((t->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return tdat_fail_nooff(e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
	if (fstat(t->fd, &st) < 0) {
		close(t->fd);
		t->fd = -1;
		return tdat_fail_nooff(e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
	}
	t->size = (uint64_t)st.st_size;
	t->nblocks = t->size / d->bs;
	if ((t->blk = malloc(d->bs)) == NULL) {
		close(t->fd);
		t->fd = -1;
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	t->bi = 0;
	t->loaded = 0;
	return 0;
}

void
tdat_ltt_tf_close(struct ltt_tf *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	free(t->blk);
	t->blk = NULL;
}

void
tdat_ltt_tf_rewind(struct ltt_tf *t)
{
	t->bi = 0;
	t->loaded = 0;
	t->have_last = 0;
}

static int
tf_fail(struct ltt_tf *t, struct tdat_err *e, uint32_t at, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));

static int
tf_fail(struct ltt_tf *t, struct tdat_err *e, uint32_t at, const char *fmt,
    ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	t->fail_block = (long long)t->bi;
	snprintf(t->why, sizeof(t->why), "%s", msg);
	return tdat_fail(e, TDAT_ECORRUPT, t->bi * t->bs + at,
	    "%s: block %llu: %s", t->rel, (unsigned long long)t->bi, msg);
}

static void
bound(struct ltt_dir *d, const unsigned char *p, uint64_t *time,
    uint64_t *cycles, uint32_t *id)
{
	*time = (uint64_t)tdat_get32(p + 6, d->big) * NS +
	    tdat_get32(p + 10, d->big);
	*cycles = tdat_get64(p + 14, d->big);
	*id = tdat_get32(p + 22, d->big);
}

/* Where trailer tr puts block_end: t->end_at and t->trailer, or -1. */
static int
find_end(struct ltt_dir *d, struct ltt_tf *t, uint32_t tr)
{
	uint32_t a05, a03;

	a05 = d->bs - 4 - LTT_BLOCK_EV >= tr ? d->bs - 4 - LTT_BLOCK_EV - tr :
	    0;
	a03 = d->bs - tr <= d->bs ? d->bs - tr : 0;
	if (a05 >= LTT_BLOCK_EV && a05 + LTT_BLOCK_EV + 4 <= d->bs &&
	    tdat_get16(t->blk + a05, d->big) == LTT_ID_BLOCK_END) {
		t->end_at = a05;
		t->trailer = 2005;
	} else if (tr <= d->bs && a03 >= LTT_BLOCK_EV &&
	    a03 + LTT_BLOCK_EV + 4 <= d->bs &&
	    tdat_get16(t->blk + a03, d->big) == LTT_ID_BLOCK_END) {
		t->end_at = a03;
		t->trailer = 2003;
	} else
		return -1;
	return 0;
}

/* Read block t->bi and check its frame. */
static int
load_block(struct ltt_dir *d, struct ltt_tf *t, struct tdat_err *e)
{
	uint64_t off = t->bi * d->bs;
	uint32_t tr, tr_le, id0, id1;
	ssize_t k;
	size_t got = 0;

	t->bs = d->bs;
	while (got < d->bs) {
		k = pread(t->fd, t->blk + got, d->bs - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return tdat_fail_nooff(e, TDAT_EIO, "%s/%s: %s",
			    d->dir, t->rel, strerror(errno));
		if (k == 0)
			return tf_fail(t, e, (uint32_t)got, "short block");
		got += (size_t)k;
	}
	t->loaded = 1;
	t->pos = LTT_BLOCK_EV;
	if (tdat_get16(t->blk, d->big) != LTT_ID_BLOCK_START)
		return tf_fail(t, e, 0, "does not start with block_start "
		    "(id %u)", tdat_get16(t->blk, d->big));
	/* The trailer in the trace's byte order, or as LTTV's reader takes
	 * it, a word of its host: little-endian in a big-endian trace. */
	tr = tdat_get32(t->blk + d->bs - 4, d->big);
	tr_le = tdat_get32(t->blk + d->bs - 4, 0);
	t->end_at = 0;
	t->trailer_big = tr != tr_le;	/* 0 reads the same both ways */
	if (find_end(d, t, tr) < 0) {
		t->trailer_big = 0;
		if (!d->big || find_end(d, t, tr_le) < 0)
			return tf_fail(t, e, d->bs - 4, "trailer %u names no "
			    "block_end", tr);
	}
	bound(d, t->blk, &t->t0, &t->c0, &id0);
	bound(d, t->blk + t->end_at, &t->t1, &t->c1, &id1);
	t->block_id = id0;
	if (id0 != id1)
		return tf_fail(t, e, t->end_at, "block_end's block_id %u is "
		    "not block_start's %u", id1, id0);
	if (t->t1 < t->t0)
		return tf_fail(t, e, t->end_at, "block ends before it starts");
	t->prev = (uint32_t)t->c0;
	t->wraps = 0;
	return 0;
}

static uint64_t
ev_time(struct ltt_tf *t, uint32_t u)
{
	unsigned __int128 x;
	uint64_t c;

	if (u < t->prev)
		t->wraps++;
	t->prev = u;
	c = (uint64_t)u - (uint32_t)t->c0 + (t->wraps << 32);
	if (t->c1 <= t->c0)
		return t->t0;
	x = (unsigned __int128)c * (t->t1 - t->t0) / (t->c1 - t->c0);
	return t->t0 + (uint64_t)x;
}

int
tdat_ltt_tf_next(struct ltt_dir *d, struct ltt_tf *t, struct ltt_ev *ev,
    struct tdat_err *e)
{
	const struct lt_facility *fa;
	uint32_t id, u, at;
	long n;
	int rc;

	for (;;) {
		if (!t->loaded) {
			if (t->bi >= t->nblocks)
				return 0;
			if ((rc = load_block(d, t, e)) < 0)
				return rc;
			ev->block_start = 1;
		}
		at = t->pos;
		if (at >= t->end_at) {
			if (at != t->end_at)
				return tf_fail(t, e, at, "events run past "
				    "block_end at %u", t->end_at);
			t->loaded = 0;
			t->bi++;
			continue;
		}
		if (t->end_at - at < LTT_HDR)
			return tf_fail(t, e, at, "event header runs past "
			    "block_end");
		id = tdat_get16(t->blk + at, d->big);
		u = tdat_get32(t->blk + at + 2, d->big);
		if (id == LTT_ID_BLOCK_END || id == LTT_ID_BLOCK_START)
			return tf_fail(t, e, at, "%s inside the block",
			    id == LTT_ID_BLOCK_END ? "block_end" :
			    "block_start");
		if (id >= d->nid || d->id_fac[id] < 0)
			return tf_fail(t, e, at, "event id %u is not defined",
			    id);
		fa = &d->defs.fac[d->id_fac[id]];
		n = tdat_ltt_payload_size(fa, fa->ev[d->id_ev[id]].t,
		    t->blk + at +
		    LTT_HDR, t->end_at - at - LTT_HDR, d->big);
		if (n < 0)
			return tf_fail(t, e, at, "event %u (%s) payload runs "
			    "past block_end", id, fa->ev[d->id_ev[id]].name);
		ev->id = (uint16_t)id;
		ev->fac = d->id_fac[id];
		ev->ev = d->id_ev[id];
		ev->time = ev_time(t, u);
		ev->p = t->blk + at + LTT_HDR;
		ev->n = (uint32_t)n;
		ev->off = t->bi * d->bs + at;
		ev->block = t->bi;
		t->pos = at + LTT_HDR + (uint32_t)n;
		return 1;
	}
}

/* ------------------------------------------------------------------ */
/* Made-up trace.dat parts, for traces that have no originals (an LTT
 * directory's eventdefs, an LTTng trace's event classes). */

/* The header_event text of every ring buffer trace-cmd 3.x reads. */
const char tdat_synth_hevent[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

/* A format file's type for an integer of size bytes: u8...s64. */
const char *
tdat_synth_ctype(int sign, int size)
{
	static const char *u[] = { "u8", "u16", "u32", "u64" },
	    *s[] = { "s8", "s16", "s32", "s64" };
	int i = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;

	return sign ? s[i] : u[i];
}
