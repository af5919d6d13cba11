/*
 * ltt-verify.c: tdat_ltt_verify(), the checker of LTT trace directories
 * (ltt(5)): the XML against the built-in schemas (or the rules of LTTV's
 * dialect), and every tracefile block by block: whole blocks, block_start
 * and block_end and the trailer agreeing, event ids defined, payloads
 * inside their block, time never going back; the texts kept in info/
 * (kallsyms, printk formats, cmdlines) line by line.  Each finding names the
 * file, the block and the byte offset; the walk goes on after one.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ltt-xml.h"

#include "ltt-int.h"

#define X(s)	((const xmlChar *)(s))

struct vf {
	const char *dir;
	tdat_ltt_finding_fn fn;
	void *arg;
	int n;
	const char *file;	/* the file being validated */
	int lttv;		/* LTTV's dialect: check its reader's rules */
	uint64_t blocks, events;	/* of the tracefiles walked */
	char first_file[256];	/* the first finding's file ... */
	char first_msg[300];	/* ... and message */
};

/* dir/rel into buf; -1 if it does not fit. */
static int
mkpath(char *buf, size_t n, const char *dir, const char *rel)
{
	return (size_t)snprintf(buf, n, "%s/%s", dir, rel) >= n ? -1 : 0;
}

static void find(struct vf *, const char *, long long, long long,
    const char *, ...) __attribute__((format(printf, 5, 6)));

static void
find(struct vf *v, const char *file, long long block, long long off,
    const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (v->n++ == 0) {
		snprintf(v->first_file, sizeof(v->first_file), "%s", file);
		memcpy(v->first_msg, msg, sizeof(msg));
	}
	if (v->fn)
		v->fn(v->arg, file, block, off, msg);
}

static void
xml_error(void *arg, xmlErrorPtr err)
{
	struct vf *v = arg;
	char msg[256];
	size_t n;

	snprintf(msg, sizeof(msg), "%s", err && err->message ? err->message :
	    "invalid");
	n = strlen(msg);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	find(v, v->file, -1, -1, "line %d: %s", err ? err->line : 0, msg);
}

/*
 * The built-in schema xsd, parsed on first use and kept: parsing it cost
 * more than validating a file with it, and a directory has a file for
 * each event system.  NULL if it does not load.
 */
static xmlSchemaPtr
schema(const char *xsd)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct {
		const char *xsd;
		xmlSchemaPtr s;
	} kept[8];
	xmlSchemaParserCtxtPtr pc;
	xmlSchemaPtr s = NULL;
	size_t i, n = sizeof(kept) / sizeof(kept[0]);

	pthread_mutex_lock(&lock);
	for (i = 0; i < n && kept[i].xsd != NULL; i++) {
		if (kept[i].xsd == xsd) {
			s = kept[i].s;
			goto out;
		}
	}
	pc = xmlSchemaNewMemParserCtxt(xsd, (int)strlen(xsd));
	s = pc ? xmlSchemaParse(pc) : NULL;
	xmlSchemaFreeParserCtxt(pc);
	if (s != NULL && i < n) {
		kept[i].xsd = xsd;
		kept[i].s = s;
	} else if (s != NULL) {
		/* More schemas than slots: not one of the built-in four. */
		xmlSchemaFree(s);
		s = NULL;
	}
out:
	pthread_mutex_unlock(&lock);
	return s;
}

/* Validate rel's tree against xsd; a finding for each error. */
static void
validate(struct vf *v, const char *rel, xmlDocPtr doc, const char *xsd)
{
	xmlSchemaValidCtxtPtr vc;
	xmlSchemaPtr s = schema(xsd);

	v->file = rel;
	vc = s ? xmlSchemaNewValidCtxt(s) : NULL;
	if (vc) {
		xmlSchemaSetValidStructuredErrors(vc, xml_error, v);
		xmlSchemaValidateDoc(vc, doc);
		xmlSchemaFreeValidCtxt(vc);
	} else
		find(v, rel, -1, -1, "the built-in schema does not load");
}

/* Parse rel and validate it against xsd. */
static void
check_xml(struct vf *v, const char *rel, const char *xsd)
{
	char path[PATH_MAX];
	xmlDocPtr doc;
	struct tdat_err why;
	int html;

	if (mkpath(path, sizeof(path), v->dir, rel) < 0)
		return;
	doc = tdat_ltt_read_doc(path, XML_PARSE_NONET | XML_PARSE_NOERROR |
	    XML_PARSE_NOWARNING, -1, &html, &why);
	if (doc == NULL) {
		find(v, rel, -1, -1, "%s", why.msg);
		return;
	}
	validate(v, rel, doc, xsd);
	xmlFreeDoc(doc);
}

/* Check eventdefs/name, from the tree tdat_ltt_dir_open kept if it did. */
static void
check_defs(struct vf *v, const struct ltt_dir *d, const char *name,
    const char *rel)
{
	int i;

	for (i = 0; i < d->ndocs; i++)
		if (strcmp(d->docs[i].name, name) == 0)
			break;
	if (i == d->ndocs)
		check_xml(v, rel, tdat_ltt_xsd_eventdefs);
	else if (d->docs[i].doc == NULL)
		find(v, rel, -1, -1, "%s", d->docs[i].why);
	else
		validate(v, rel, d->docs[i].doc, tdat_ltt_xsd_eventdefs);
}

/* LTTV: system.xml's closed attribute set and LTTV's endian names. */
static void
check_lttv_system(struct vf *v)
{
	static const char *known[] = { "node_name", "domainname", "cpu",
	    "arch_size", "endian", "kernel_name", "kernel_release",
	    "kernel_version", "machine", "processor", "hardware_platform",
	    "operating_system", "ltt_major_version", "ltt_minor_version",
	    "ltt_block_size", NULL };
	char path[PATH_MAX];
	xmlDocPtr doc;
	struct tdat_err why;
	int html;
	xmlNodePtr r;
	xmlAttrPtr a;
	char *en;
	int i;

	snprintf(path, sizeof(path), "%s/info/system.xml", v->dir);
	doc = tdat_ltt_read_doc(path, XML_PARSE_NONET | XML_PARSE_NOERROR |
	    XML_PARSE_NOWARNING, -1, &html, &why);
	if (doc == NULL || (r = xmlDocGetRootElement(doc)) == NULL) {
		find(v, "info/system.xml", -1, -1, "%s", why.msg);
		xmlFreeDoc(doc);
		return;
	}
	for (a = r->properties; a; a = a->next) {
		for (i = 0; known[i]; i++)
			if (xmlStrcmp(a->name, X(known[i])) == 0)
				break;
		if (known[i] == NULL)
			find(v, "info/system.xml", -1, -1, "attribute %s is "
			    "not one LTTV knows", (const char *)a->name);
	}
	en = tdat_ltt_xattr(r, "endian");
	if (en == NULL || (strcmp(en, "LITTLE_ENDIAN") &&
	    strcmp(en, "BIG_ENDIAN")))
		find(v, "info/system.xml", -1, -1, "endian \"%s\" is not "
		    "LITTLE_ENDIAN or BIG_ENDIAN", en ? en : "");
	free(en);
	for (r = r->children; r; r = r->next)
		if (r->type == XML_ELEMENT_NODE)
			find(v, "info/system.xml", -1, -1, "<system> has a "
			    "child element <%s>", (const char *)r->name);
	xmlFreeDoc(doc);
}

/* LTTV: what its eventdefs tokenizer rejects. */
static void
check_lttv_defs(struct vf *v, const char *rel)
{
	char path[PATH_MAX];
	unsigned char *p;
	uint64_t n;
	struct tdat_err e;
	const char *s;

	if (mkpath(path, sizeof(path), v->dir, rel) < 0)
		return;
	if (tdat_ltt_slurp(path, &p, &n, &e) < 0) {
		find(v, rel, -1, -1, "%s", e.msg);
		return;
	}
	if ((s = strstr((char *)p, "<?xml")) != NULL)
		find(v, rel, -1, s - (char *)p, "an <?xml?> declaration");
	if ((s = strstr((char *)p, "<!--")) != NULL)
		find(v, rel, -1, s - (char *)p, "an XML comment");
	if ((s = strchr((char *)p, '&')) != NULL)
		find(v, rel, -1, s - (char *)p, "an entity");
	if ((s = strstr((char *)p, "size=\"")) != NULL)
		find(v, rel, -1, s - (char *)p, "a quoted size");
	free(p);
}

/* A struct with a sequence and no string field, which LTTV's readers
 * size as fixed. */
static int
seq_unsized(const struct lt_type *t)
{
	int i, seq = 0;

	if (t == NULL || t->kind != LT_STRUCT)
		return 0;
	for (i = 0; i < t->nfield; i++) {
		if (t->field[i].t == NULL)
			continue;
		if (t->field[i].t->kind == LT_STRING)
			return 0;
		seq |= t->field[i].t->kind == LT_SEQUENCE;
	}
	return seq;
}

static void
check_lttv_facilities(struct vf *v, const struct ltt_dir *d)
{
	static const struct { int id; const char *name; } b[] = {
		{ LTT_ID_FACILITY_LOAD, "facility_load" },
		{ LTT_ID_BLOCK_START, "block_start" },
		{ LTT_ID_BLOCK_END, "block_end" },
		{ LTT_ID_HEARTBEAT, "time_heartbeat" },
	};
	const struct lt_facility *f = &d->defs.fac[0];
	int i, k;

	for (i = 0; i < 4; i++)
		if ((uint32_t)b[i].id >= d->nid || d->id_fac[b[i].id] < 0 ||
		    strcmp(d->defs.fac[
		    d->id_fac[b[i].id]].ev[d->id_ev[b[i].id]].name,
		    b[i].name) != 0)
			find(v, "eventdefs", -1, -1, "id %d is not %s",
			    b[i].id, b[i].name);
	for (i = 0; i < d->defs.nfac; i++) {
		const char *dup;

		f = &d->defs.fac[i];
		if (f->desc == NULL)
			find(v, "eventdefs", -1, -1, "facility %s has no "
			    "description", f->name);
		if ((dup = tdat_ltt_fac_dup(f)) != NULL && *dup)
			find(v, "eventdefs", -1, -1, "facility %s names two "
			    "events %s", f->name, dup);
		for (k = 0; k < f->nev; k++) {
			if (f->ev[k].desc == NULL && f->ev[k].t == NULL)
				find(v, "eventdefs", -1, -1, "event %s.%s has "
				    "neither payload nor description", f->name,
				    f->ev[k].name);
			if (seq_unsized(f->ev[k].t))
				find(v, "eventdefs", -1, -1, "event %s.%s has "
				    "a sequence and no string: LTTV's reader "
				    "sizes it as one element", f->name,
				    f->ev[k].name);
		}
	}
	if (d->nfiles > 1)
		find(v, "eventdefs", -1, -1, "%d files: LTTV reads them in "
		    "directory order", d->nfiles);
}

/* LTTV's readers take the trailer as a little-endian word (their x86
 * host's), and the 2003 one swaps nothing at all.  1 if found wrong. */
static int
lttv_order(struct vf *v, const struct ltt_dir *d, const struct ltt_tf *t,
    const char *rel, const struct ltt_ev *ev)
{
	long long off = (long long)((ev->block + 1) * d->bs - 4);

	if (t->trailer == 2003 && d->big) {
		find(v, rel, (long long)ev->block, (long long)(ev->block *
		    d->bs), "big-endian with the 2003 trailer: LTTV's 2003 "
		    "reader swaps nothing");
		return 1;
	}
	if (t->trailer_big) {
		find(v, rel, (long long)ev->block, off, "big-endian trailer: "
		    "LTTV's reader takes it as a little-endian word");
		return 1;
	}
	return 0;
}

/* Walk one tracefile. */
static int
check_tf(struct vf *v, struct ltt_dir *d, const char *rel, int *trailer,
    struct tdat_err *e)
{
	struct ltt_tf t;
	struct ltt_ev ev;
	uint64_t last = 0;
	int have = 0, rc, order = 0;

	if ((rc = tdat_ltt_tf_open(d, &t, rel, e)) < 0)
		return rc;
	v->blocks += t.nblocks;
	if (v->lttv && strncmp(rel, "info/", 5) == 0)
		find(v, rel, -1, -1, "LTTV's reader opens the tracefiles of "
		    "cpu/ only: these events are invisible to it");
	if (t.size == 0)
		find(v, rel, -1, 0, "empty tracefile (LTTV needs one block)");
	else if (t.size % d->bs)
		find(v, rel, (long long)t.nblocks, (long long)(t.nblocks *
		    d->bs), "%llu bytes are not a whole number of %u-byte "
		    "blocks", (unsigned long long)t.size, d->bs);
	for (;;) {
		rc = tdat_ltt_tf_next(d, &t, &ev, e);
		if (rc == 0)
			break;
		if (rc < 0) {
			if (e->code != TDAT_ECORRUPT)
				break;
			find(v, rel, t.fail_block, e->has_off ?
			    (long long)e->off : -1, "%s", t.why);
			t.loaded = 0;
			t.bi = (uint64_t)t.fail_block + 1;
			rc = 0;
			continue;
		}
		v->events++;
		if (ev.block_start && v->lttv && !order &&
		    lttv_order(v, d, &t, rel, &ev))
			order = 1;	/* once a tracefile */
		if (ev.block_start) {
			ev.block_start = 0;
			if (*trailer == 0)
				*trailer = t.trailer;
			else if (*trailer != t.trailer)
				find(v, rel, (long long)ev.block,
				    (long long)((ev.block + 1) * d->bs - 4),
				    "trailer follows the %d convention, "
				    "earlier blocks the %d one", t.trailer,
				    *trailer);
		}
		if (have && ev.time < last)
			find(v, rel, (long long)ev.block, (long long)ev.off,
			    "time goes back from %llu to %llu ns",
			    (unsigned long long)last,
			    (unsigned long long)ev.time);
		last = ev.time;
		have = 1;
	}
	tdat_ltt_tf_close(&t);
	return rc;
}

static int
check_dir_files(struct vf *v, struct ltt_dir *d, const char *rel,
    int *trailer, struct tdat_err *e)
{
	char path[PATH_MAX], r[PATH_MAX], **names;
	size_t n, i;
	struct stat st;
	int rc = 0;

	if (mkpath(path, sizeof(path), v->dir, rel) < 0 ||
	    tdat_ltt_list(path, &names, &n) < 0)
		return 0;
	for (i = 0; i < n && rc >= 0; i++) {
		if ((size_t)snprintf(r, sizeof(r), "%s/%s", rel, names[i]) >=
		    sizeof(r))
			continue;
		if (mkpath(path, sizeof(path), v->dir, r) < 0 ||
		    stat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			rc = check_dir_files(v, d, r, trailer, e);
		else if (S_ISREG(st.st_mode))
			rc = check_tf(v, d, r, trailer, e);
	}
	tdat_ltt_list_free(names, n);
	return rc;
}

/* info/kallsyms, info/printk and info/cmdlines (the trace.dat's texts,
 * as tdat-to-ltt keeps them): each line of the kernel's shape. */
static void
check_texts(struct vf *v)
{
	static const char *const rel[] = { "info/kallsyms", "info/printk",
	    "info/cmdlines" };
	struct tdat_text_check r;
	struct tdat_err e = { 0 };
	char path[PATH_MAX], msg[TDAT_TEXT_SAY];
	unsigned char *p;
	uint64_t n;
	int i;

	for (i = 0; i < 3; i++) {
		if (mkpath(path, sizeof(path), v->dir, rel[i]) < 0 ||
		    access(path, F_OK) != 0)
			continue;
		if (tdat_ltt_slurp(path, &p, &n, &e) < 0) {
			size_t pl = strlen(path);

			find(v, rel[i], -1, -1, "%s", strncmp(e.msg, path, pl) ||
			    strncmp(e.msg + pl, ": ", 2) ? e.msg : e.msg + pl + 2);
			continue;
		}
		tdat_text_check((enum tdat_text)i, (const char *)p, (size_t)n,
		    &r);
		free(p);
		if (r.bad == 0)
			continue;
		find(v, rel[i], -1, (long long)r.first_at, "%s",
		    tdat_text_say(msg, sizeof(msg), (enum tdat_text)i, 0, &r,
		    1));
	}
}

/* tdat_ltt_verify() with v set up; v->blocks and v->events counted. */
static int
verify_dir(struct vf *vp, struct tdat_err *e)
{
	static const char *control[] = { "control/facilities",
	    "control/interrupts", "control/processes" };
	struct vf v = *vp;
	const char *dir = v.dir;
	struct ltt_dir d;
	char path[PATH_MAX], **names;
	size_t n, i;
	int rc, trailer = 0, lttv;

	snprintf(path, sizeof(path), "%s/info/system.xml", dir);
	if (access(path, F_OK) != 0)
		return tdat_fail_nooff(e, TDAT_EUSAGE, "%s: not an LTT trace "
		    "directory (no info/system.xml)", dir);
	rc = tdat_ltt_dir_open(dir, &d, 1, e);
	/*
	 * LTTV's dialect by its endian names, or by eventdefs none of which
	 * is XML: one that is not, among XML ones, is a damaged file.
	 */
	lttv = rc == 0 && (d.lttv_endian || (d.lttv_defs && !d.xml_defs));
	if (rc < 0 && e->code != TDAT_ECORRUPT) {
		tdat_ltt_dir_close(&d);
		return rc;
	}
	v.lttv = lttv;
	if (lttv) {
		check_lttv_system(&v);
		check_lttv_facilities(&v, &d);
	} else {
		check_xml(&v, "info/system.xml", tdat_ltt_xsd_system);
		snprintf(path, sizeof(path), "%s/info/bookmarks.xml", dir);
		if (access(path, F_OK) == 0)
			check_xml(&v, "info/bookmarks.xml",
			    tdat_ltt_xsd_bookmarks);
		snprintf(path, sizeof(path), "%s/info/tracedat.xml", dir);
		if (access(path, F_OK) == 0)
			check_xml(&v, "info/tracedat.xml",
			    tdat_ltt_xsd_tracedat);
	}
	snprintf(path, sizeof(path), "%s/eventdefs", dir);
	if (tdat_ltt_list(path, &names, &n) == 0) {
		for (i = 0; i < n; i++) {
			char rel[PATH_MAX];

			if ((size_t)snprintf(rel, sizeof(rel), "eventdefs/%s",
			    names[i]) >= sizeof(rel))
				continue;
			if (lttv)
				check_lttv_defs(&v, rel);
			else
				check_defs(&v, &d, names[i], rel);
		}
		tdat_ltt_list_free(names, n);
	} else
		find(&v, "eventdefs", -1, -1, "missing");
	if (rc < 0) {
		/* The directory cannot be read past its metadata: name the
		 * file the message begins with. */
		size_t dl = strlen(dir);
		char file[256] = ".";
		const char *m = e->msg, *c;

		if (strncmp(m, dir, dl) == 0 && m[dl] == '/' &&
		    (c = strstr(m + dl + 1, ": ")) != NULL) {
			snprintf(file, sizeof(file), "%.*s",
			    (int)(c - m - dl - 1), m + dl + 1);
			m = c + 2;
		}
		/* not twice: an XML file that cannot be read is found above */
		if (v.n == 0 || strcmp(file, v.first_file) != 0 ||
		    strcmp(m, v.first_msg) != 0)
			find(&v, file, -1, e->has_off ? (long long)e->off :
			    -1, "%s", m);
		tdat_ltt_dir_close(&d);
		return v.n;
	}
	if (!lttv)
		check_texts(&v);
	rc = 0;
	for (i = 0; i < 3 && rc >= 0; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, control[i]);
		if (access(path, F_OK) == 0)
			rc = check_tf(&v, &d, control[i], &trailer, e);
	}
	if (rc >= 0)
		rc = check_dir_files(&v, &d, "cpu", &trailer, e);
	if (rc >= 0)
		rc = check_dir_files(&v, &d, "info/buffers", &trailer, e);
	tdat_ltt_dir_close(&d);
	vp->blocks = v.blocks;
	vp->events = v.events;
	return rc < 0 ? rc : v.n;
}

int
tdat_ltt_verify(const char *dir, tdat_ltt_finding_fn fn, void *arg,
    struct tdat_err *e)
{
	struct vf v = { dir, fn, arg, 0, NULL, 0, 0, 0, "", "" };

	return verify_dir(&v, e);
}

/* tdat_verify() of a directory: its findings as struct tdat_finding. */
struct vinput {
	const struct tdat_verify_opts *o;
	struct tdat_verify_stats *st;
	int stop;		/* the callback asked to stop */
};

static void
input_found(void *arg, const char *file, long long block, long long off,
    const char *msg)
{
	struct vinput *vi = arg;
	struct tdat_finding fd;
	char what[1024];

	memset(&fd, 0, sizeof(fd));
	fd.severity = TDAT_FIND_ERROR;
	fd.kind = "ltt";
	fd.has_off = off >= 0;
	fd.off = off >= 0 ? (uint64_t)off : 0;
	fd.cpu = -1;
	fd.page = -1;
	fd.msg = msg;
	fd.file = file ? file : "";
	if (block >= 0) {
		snprintf(what, sizeof(what), "block %lld: %s", block, msg);
		fd.msg = what;
	}
	if (vi->st->errors++ > 0 && !vi->o->keep_going) {
		vi->st->unreported++;
		return;
	}
	if (!vi->stop && vi->o->found && vi->o->found(vi->o->arg, &fd))
		vi->stop = 1;
}

int
tdat_ltt_verify_input(const char *dir, const struct tdat_verify_opts *o,
    struct tdat_verify_stats *st, struct tdat_err *e)
{
	struct vinput vi = { o, st, 0 };
	struct vf v = { dir, input_found, &vi, 0, NULL, 0, 0, 0, "", "" };
	int rc;

	if ((rc = tdat_xml_load(e)) < 0)
		return rc;
	if ((rc = verify_dir(&v, e)) < 0)
		return rc;
	snprintf(st->comp, sizeof(st->comp), "ltt");
	st->pages = v.blocks;
	st->records = v.events;
	return 0;
}
