/*
 * ltt-model.c: the LTT type model of eventdefs (ltt(5), "eventdefs"):
 * facilities, events and types, their checksum, payload sizes, and
 * eventdefs files written and read with libxml2, in the XML form tdat
 * writes by default and in the dialect LTTV's tokenizer reads (unquoted
 * sizes, no declaration, no entities).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "ltt-xml.h"

#include "ltt-int.h"

#define MAX_DEPTH	16

/* The builtin facility; formats/ltt/ltt-builtin.xml holds the same text. */
const char tdat_ltt_builtin_xml[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<facility name=\"builtin\">\n"
	"  <description>The events every LTT trace has: facility loads, block boundaries and time heartbeats.  Their ids are absolute: facility_load 0, block_start 17, block_end 18, time_heartbeat 19.</description>\n"
	"  <event name=\"facility_load\">\n"
	"    <description>A facility is loaded: its name, checksum and the id of its first event.</description>\n"
	"    <struct>\n"
	"      <field name=\"name\"><description>the facility name</description><string/></field>\n"
	"      <field name=\"checksum\"><description>the facility checksum</description><uint size=\"4\"/></field>\n"
	"      <field name=\"base_code\"><description>the id of the facility's first event</description><uint size=\"4\"/></field>\n"
	"    </struct>\n"
	"  </event>\n"
	"  <event name=\"unused_1\"><description>reserved</description></event>\n"
	"  <event name=\"unused_2\"><description>reserved</description></event>\n"
	"  <event name=\"unused_3\"><description>reserved</description></event>\n"
	"  <event name=\"unused_4\"><description>reserved</description></event>\n"
	"  <event name=\"unused_5\"><description>reserved</description></event>\n"
	"  <event name=\"unused_6\"><description>reserved</description></event>\n"
	"  <event name=\"unused_7\"><description>reserved</description></event>\n"
	"  <event name=\"unused_8\"><description>reserved</description></event>\n"
	"  <event name=\"unused_9\"><description>reserved</description></event>\n"
	"  <event name=\"unused_10\"><description>reserved</description></event>\n"
	"  <event name=\"unused_11\"><description>reserved</description></event>\n"
	"  <event name=\"unused_12\"><description>reserved</description></event>\n"
	"  <event name=\"unused_13\"><description>reserved</description></event>\n"
	"  <event name=\"unused_14\"><description>reserved</description></event>\n"
	"  <event name=\"unused_15\"><description>reserved</description></event>\n"
	"  <event name=\"unused_16\"><description>reserved</description></event>\n"
	"  <event name=\"block_start\">\n"
	"    <description>The first event of every block: the block's start time and cycle count.</description>\n"
	"    <struct>\n"
	"      <field name=\"seconds\"><description>start time, seconds</description><uint size=\"4\"/></field>\n"
	"      <field name=\"nanoseconds\"><description>start time, nanoseconds</description><uint size=\"4\"/></field>\n"
	"      <field name=\"cycle_count\"><description>cycle counter at the start</description><uint size=\"8\"/></field>\n"
	"      <field name=\"block_id\"><description>block number in the tracefile</description><uint size=\"4\"/></field>\n"
	"    </struct>\n"
	"  </event>\n"
	"  <event name=\"block_end\">\n"
	"    <description>The last event of every block: the block's end time and cycle count.</description>\n"
	"    <struct>\n"
	"      <field name=\"seconds\"><description>end time, seconds</description><uint size=\"4\"/></field>\n"
	"      <field name=\"nanoseconds\"><description>end time, nanoseconds</description><uint size=\"4\"/></field>\n"
	"      <field name=\"cycle_count\"><description>cycle counter at the end</description><uint size=\"8\"/></field>\n"
	"      <field name=\"block_id\"><description>block number in the tracefile</description><uint size=\"4\"/></field>\n"
	"    </struct>\n"
	"  </event>\n"
	"  <event name=\"time_heartbeat\">\n"
	"    <description>A time reference between block boundaries (tdat never writes it).</description>\n"
	"    <struct>\n"
	"      <field name=\"seconds\"><description>time, seconds</description><uint size=\"4\"/></field>\n"
	"      <field name=\"nanoseconds\"><description>time, nanoseconds</description><uint size=\"4\"/></field>\n"
	"      <field name=\"cycle_count\"><description>cycle counter</description><uint size=\"8\"/></field>\n"
	"    </struct>\n"
	"  </event>\n"
	"</facility>\n";

struct lt_type *
tdat_ltt_new(int kind, int size)
{
	struct lt_type *t = calloc(1, sizeof(*t));

	if (t) {
		t->kind = kind;
		t->size = size;
	}
	return t;
}

void
tdat_ltt_type_free(struct lt_type *t)
{
	int i;

	if (t == NULL)
		return;
	free(t->format);
	free(t->ref);
	tdat_ltt_type_free(t->elem);
	for (i = 0; i < t->nfield; i++) {
		free(t->field[i].name);
		free(t->field[i].desc);
		tdat_ltt_type_free(t->field[i].t);
	}
	free(t->field);
	for (i = 0; i < t->nlabel; i++)
		free(t->label[i]);
	free(t->label);
	free(t->value);
	free(t);
}

void
tdat_ltt_fac_free(struct lt_facility *f)
{
	int i;

	free(f->name);
	free(f->desc);
	for (i = 0; i < f->nev; i++) {
		free(f->ev[i].name);
		free(f->ev[i].desc);
		tdat_ltt_type_free(f->ev[i].t);
	}
	free(f->ev);
	for (i = 0; i < f->ntype; i++) {
		free(f->tname[i]);
		tdat_ltt_type_free(f->tdef[i]);
	}
	free(f->tname);
	free(f->tdef);
}

void
tdat_ltt_defs_free(struct lt_defs *d)
{
	int i;

	for (i = 0; i < d->nfac; i++)
		tdat_ltt_fac_free(&d->fac[i]);
	free(d->fac);
	d->fac = NULL;
	d->nfac = 0;
}

struct lt_facility *
tdat_ltt_defs_add(struct lt_defs *d, const char *name)
{
	struct lt_facility *f = realloc(d->fac, (size_t)(d->nfac + 1) *
	    sizeof(*f));

	if (f == NULL)
		return NULL;
	d->fac = f;
	f += d->nfac;
	memset(f, 0, sizeof(*f));
	if ((f->name = strdup(name)) == NULL)
		return NULL;
	d->nfac++;
	return f;
}

struct lt_facility *
tdat_ltt_defs_find(const struct lt_defs *d, const char *name)
{
	int i;

	for (i = 0; i < d->nfac; i++)
		if (strcmp(d->fac[i].name, name) == 0)
			return &d->fac[i];
	return NULL;
}

/* qsort's comparison of two string pointers. */
int
tdat_ltt_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The name of an event f holds twice (LTT names an event by facility and
 * name), or NULL; "" if out of memory. */
const char *
tdat_ltt_fac_dup(const struct lt_facility *f)
{
	const char **v, *dup = NULL;
	int i;

	if (f->nev < 2)
		return NULL;
	if ((v = malloc((size_t)f->nev * sizeof(*v))) == NULL)
		return "";
	for (i = 0; i < f->nev; i++)
		v[i] = f->ev[i].name ? f->ev[i].name : "";
	qsort(v, (size_t)f->nev, sizeof(*v), tdat_ltt_cmp_str);
	for (i = 1; i < f->nev && dup == NULL; i++)
		if (strcmp(v[i - 1], v[i]) == 0)
			dup = v[i];
	free(v);
	return dup;
}

struct lt_event *
tdat_ltt_fac_add(struct lt_facility *f, const char *name, const char *desc,
    struct lt_type *t)
{
	struct lt_event *e = realloc(f->ev, (size_t)(f->nev + 1) * sizeof(*e));

	if (e == NULL)
		return NULL;
	f->ev = e;
	e += f->nev++;
	e->name = strdup(name);
	e->desc = desc ? strdup(desc) : NULL;
	e->t = t;
	return e;
}

void
tdat_ltt_struct_add(struct lt_type *st, const char *name, const char *desc,
    struct lt_type *t)
{
	struct lt_field *f = realloc(st->field, (size_t)(st->nfield + 1) *
	    sizeof(*f));

	if (f == NULL) {
		tdat_ltt_type_free(t);
		return;
	}
	st->field = f;
	f += st->nfield++;
	f->name = strdup(name);
	f->desc = desc ? strdup(desc) : NULL;
	f->t = t;
}

/* ------------------------------------------------------------------ */
/* The checksum LTTV compares: zlib's CRC-32 of the name, continued with
 * the bare table step over the event names and type strings. */

static uint32_t crc_tab[256];

static void
crc_init(void)
{
	uint32_t c, n, k;

	if (crc_tab[1])
		return;
	for (n = 0; n < 256; n++) {
		c = n;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_tab[n] = c;
	}
}

static uint32_t
crc_str(uint32_t c, const char *s)
{
	for (; *s; s++)
		c = crc_tab[(c ^ (unsigned char)*s) & 0xff] ^ (c >> 8);
	return c;
}

static const char *
int_name(int kind, int size)
{
	static const char *u[] = { "uint8_t", "uint16_t", "uint32_t",
	    "uint64_t" }, *s[] = { "int8_t", "int16_t", "int32_t", "int64_t" };
	int i = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;

	return kind == LT_INT ? s[i] : u[i];
}

static uint32_t
crc_type(uint32_t c, const struct lt_type *t, int depth)
{
	char num[32];
	int i;

	if (t == NULL || depth > MAX_DEPTH)
		return c;
	switch (t->kind) {
	case LT_INT:
	case LT_UINT:
		c = crc_str(c, int_name(t->kind, t->size));
		break;
	case LT_FLOAT:
		c = crc_str(c, t->size == 4 ? "float" : "double");
		break;
	case LT_STRING:
		c = crc_str(c, "string");
		break;
	case LT_ENUM:
		c = crc_str(c, "enum");
		c = crc_str(c, int_name(LT_UINT, t->size));
		for (i = 0; i < t->nlabel; i++) {
			c = crc_str(c, t->label[i]);
			if (t->value && t->value[i] != i) {
				snprintf(num, sizeof(num), "=%ld", t->value[i]);
				c = crc_str(c, num);
			}
		}
		break;
	case LT_ARRAY:
		snprintf(num, sizeof(num), "%d", t->size);
		c = crc_str(crc_str(c, "array"), num);
		c = crc_type(c, t->elem, depth + 1);
		break;
	case LT_SEQUENCE:
		c = crc_str(c, "sequence");
		c = crc_str(c, int_name(LT_UINT, t->size));
		c = crc_type(c, t->elem, depth + 1);
		break;
	case LT_STRUCT:
	case LT_UNION:
		c = crc_str(c, t->kind == LT_STRUCT ? "struct" : "union");
		for (i = 0; i < t->nfield; i++) {
			c = crc_str(c, t->field[i].name);
			c = crc_type(c, t->field[i].t, depth + 1);
		}
		break;
	case LT_TYPEREF:
		c = crc_str(c, t->ref ? t->ref : "");
		break;
	}
	if (t->format)
		c = crc_str(c, t->format);
	return c;
}

uint32_t
tdat_ltt_checksum(const struct lt_facility *f)
{
	uint32_t c;
	int i;

	crc_init();
	c = (uint32_t)crc32(0, (const Bytef *)f->name, (uInt)strlen(f->name));
	for (i = 0; i < f->nev; i++) {
		c = crc_str(c, f->ev[i].name);
		c = crc_type(c, f->ev[i].t, 0);
	}
	return c;
}

/* ------------------------------------------------------------------ */
/* Payload sizes. */

static const struct lt_type *
resolve(const struct lt_facility *fac, const struct lt_type *t)
{
	int i;

	if (t == NULL || t->kind != LT_TYPEREF || fac == NULL)
		return t;
	for (i = 0; i < fac->ntype; i++)
		if (t->ref && strcmp(fac->tname[i], t->ref) == 0)
			return fac->tdef[i];
	return NULL;
}

static void
reverse(unsigned char *w, int n)
{
	unsigned char c;
	int i;

	for (i = 0; i < n / 2; i++) {
		c = w[i];
		w[i] = w[n - 1 - i];
		w[n - 1 - i] = c;
	}
}

/* The bytes of a payload of type t at p; with w (p itself, writable) its
 * numbers are also turned to the other byte order as they are met. */
static long
size_of(const struct lt_facility *fac, const struct lt_type *t,
    const unsigned char *p, unsigned char *w, size_t len, int big,
    int depth)
{
	size_t n = 0, cnt, k;
	long s, m;
	int i;

	if (depth > MAX_DEPTH || (t = resolve(fac, t)) == NULL)
		return -1;
	switch (t->kind) {
	case LT_INT:
	case LT_UINT:
	case LT_FLOAT:
	case LT_ENUM:
		if ((size_t)t->size > len)
			return -1;
		if (w)
			reverse(w, t->size);
		return t->size;
	case LT_STRING:
		n = strnlen((const char *)p, len);
		return n < len ? (long)n + 1 : -1;
	case LT_ARRAY:
	case LT_SEQUENCE:
		cnt = (size_t)t->size;
		if (t->kind == LT_SEQUENCE) {
			if ((size_t)t->size > len || t->size < 1 ||
			    t->size > 8)
				return -1;
			cnt = (size_t)tdat_get(p, t->size, big);
			n = (size_t)t->size;
			if (w)
				reverse(w, t->size);
		}
		for (k = 0; k < cnt; k++) {
			if ((s = size_of(fac, t->elem, p + n, w ? w + n : NULL,
			    len - n, big, depth + 1)) < 0)
				return -1;
			n += (size_t)s;
			if (s == 0)
				break;
		}
		return (long)n;
	case LT_STRUCT:
		for (i = 0; i < t->nfield; i++) {
			if ((s = size_of(fac, t->field[i].t, p + n, w ? w + n :
			    NULL, len - n, big, depth + 1)) < 0)
				return -1;
			n += (size_t)s;
		}
		return (long)n;
	case LT_UNION:
		/* Which member holds the bytes is unknown: no swapping. */
		if ((size_t)t->size > len || w)
			return -1;
		m = 0;
		for (i = 0; i < t->nfield; i++) {
			s = size_of(fac, t->field[i].t, p + t->size, NULL,
			    len - (size_t)t->size, big, depth + 1);
			if (s > m)
				m = s;
		}
		return t->size + m;
	}
	return -1;
}

long
tdat_ltt_payload_size(const struct lt_facility *fac, const struct lt_type *t,
    const unsigned char *p, size_t len, int big)
{
	if (t == NULL)
		return 0;
	return size_of(fac, t, p, NULL, len, big, 0);
}

long
tdat_ltt_payload_swap(const struct lt_facility *fac, const struct lt_type *t,
    unsigned char *p, size_t len, int big)
{
	if (t == NULL)
		return 0;
	return size_of(fac, t, p, p, len, big, 0);
}

/* ------------------------------------------------------------------ */
/* Writing eventdefs. */

static const char *type_names[] = { "int", "uint", "float", "string",
    "enum", "array", "sequence", "struct", "union", "typeref" };

/* LTTV's tokenizer knows no entities or markup in text: keep it plain. */
static void
plain(FILE *fp, const char *s)
{
	const char *start = s;

	/* LTTV reads a description into a fixed buffer: keep it short. */
	for (; s && *s && s - start < 900; s++) {
		if (*s == '<')
			fputc('[', fp);
		else if (*s == '>')
			fputc(']', fp);
		else if (*s == '&')
			fputc('+', fp);
		else if ((unsigned char)*s < 0x20)
			fputc(' ', fp);
		else if (*s == '/' && (s[1] == '/' || s[1] == '*'))
			fputc('|', fp);
		else
			fputc(*s, fp);
	}
}

static void
quoted(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', fp);
		fputc((unsigned char)*s < 0x20 ? ' ' : *s, fp);
	}
	fputc('"', fp);
}

static void
lttv_type(FILE *fp, const struct lt_type *t, int ind)
{
	int i;

	fprintf(fp, "%*s<%s", ind, "", type_names[t->kind]);
	switch (t->kind) {
	case LT_INT:
	case LT_UINT:
	case LT_FLOAT:
	case LT_STRING:
		if (t->kind != LT_STRING)
			fprintf(fp, " size=%d", t->size);
		if (t->format) {
			fputs(" format=", fp);
			quoted(fp, t->format);
		}
		fputs("/>\n", fp);
		return;
	case LT_TYPEREF:
		fputs(" name=", fp);
		quoted(fp, t->ref);
		fputs("/>\n", fp);
		return;
	case LT_ENUM:
		fprintf(fp, " size=%d>\n", t->size);
		for (i = 0; i < t->nlabel; i++) {
			fprintf(fp, "%*s<label name=", ind + 2, "");
			quoted(fp, t->label[i]);
			fprintf(fp, " value=%d/>\n", i);
		}
		break;
	case LT_ARRAY:
		fprintf(fp, " size=%d>\n", t->size);
		lttv_type(fp, t->elem, ind + 2);
		break;
	case LT_SEQUENCE:
		fprintf(fp, " lengthsize=%d>\n", t->size);
		lttv_type(fp, t->elem, ind + 2);
		break;
	default:
		if (t->kind == LT_UNION)
			fprintf(fp, " typecodesize=%d", t->size);
		fputs(">\n", fp);
		for (i = 0; i < t->nfield; i++) {
			fprintf(fp, "%*s<field name=", ind + 2, "");
			quoted(fp, t->field[i].name);
			fputs(">", fp);
			if (t->field[i].desc) {
				fputs("<description>", fp);
				plain(fp, t->field[i].desc);
				fputs("</description>", fp);
			}
			fputs("\n", fp);
			lttv_type(fp, t->field[i].t, ind + 4);
			fprintf(fp, "%*s</field>\n", ind + 2, "");
		}
		break;
	}
	fprintf(fp, "%*s</%s>\n", ind, "", type_names[t->kind]);
}

static int
write_lttv(const char *path, const struct lt_facility *fac, int nfac,
    struct tdat_err *e)
{
	FILE *fp = fopen(path, "w");
	int i, k;

	if (fp == NULL)
		return tdat_fail_nooff(e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
	fputs("/* LTT event definitions written by tdat-to-ltt (LTTV "
	    "dialect). */\n", fp);
	for (i = 0; i < nfac; i++) {
		const struct lt_facility *f = &fac[i];

		fputs("<facility name=", fp);
		quoted(fp, f->name);
		fputs(">\n  <description>", fp);
		plain(fp, f->desc ? f->desc : f->name);
		fputs("</description>\n", fp);
		for (k = 0; k < f->nev; k++) {
			fputs("  <event name=", fp);
			quoted(fp, f->ev[k].name);
			fputs(">\n    <description>", fp);
			plain(fp, f->ev[k].desc ? f->ev[k].desc :
			    f->ev[k].name);
			fputs("</description>\n", fp);
			if (f->ev[k].t)
				lttv_type(fp, f->ev[k].t, 4);
			fputs("  </event>\n", fp);
		}
		fputs("</facility>\n", fp);
	}
	if (ferror(fp) | (fclose(fp) != 0))
		return tdat_fail_nooff(e, TDAT_EIO, "%s: write error", path);
	return 0;
}

#define X(s)	((const xmlChar *)(s))

static int
xml_type(xmlTextWriterPtr w, const struct lt_type *t)
{
	int i, rc = 0;

	rc |= xmlTextWriterStartElement(w, X(type_names[t->kind])) < 0;
	switch (t->kind) {
	case LT_INT:
	case LT_UINT:
	case LT_FLOAT:
	case LT_ENUM:
	case LT_ARRAY:
		rc |= xmlTextWriterWriteFormatAttribute(w, X("size"), "%d",
		    t->size) < 0;
		break;
	case LT_SEQUENCE:
		rc |= xmlTextWriterWriteFormatAttribute(w, X("lengthsize"),
		    "%d", t->size) < 0;
		break;
	case LT_UNION:
		rc |= xmlTextWriterWriteFormatAttribute(w, X("typecodesize"),
		    "%d", t->size) < 0;
		break;
	case LT_TYPEREF:
		rc |= xmlTextWriterWriteAttribute(w, X("name"), X(t->ref)) < 0;
		break;
	}
	if (t->format)
		rc |= xmlTextWriterWriteAttribute(w, X("format"),
		    X(t->format)) < 0;
	for (i = 0; i < t->nlabel; i++) {
		rc |= xmlTextWriterStartElement(w, X("label")) < 0;
		rc |= xmlTextWriterWriteAttribute(w, X("name"),
		    X(t->label[i])) < 0;
		rc |= xmlTextWriterWriteFormatAttribute(w, X("value"), "%d",
		    i) < 0;
		rc |= xmlTextWriterEndElement(w) < 0;
	}
	if (t->elem)
		rc |= xml_type(w, t->elem);
	for (i = 0; i < t->nfield; i++) {
		rc |= xmlTextWriterStartElement(w, X("field")) < 0;
		rc |= xmlTextWriterWriteAttribute(w, X("name"),
		    X(t->field[i].name)) < 0;
		if (t->field[i].desc)
			rc |= xmlTextWriterWriteElement(w, X("description"),
			    X(t->field[i].desc)) < 0;
		rc |= xml_type(w, t->field[i].t);
		rc |= xmlTextWriterEndElement(w) < 0;
	}
	rc |= xmlTextWriterEndElement(w) < 0;
	return rc;
}

/* Text for XML: control characters other than tab and newline are not
 * allowed there, and bytes above 0x7f may not be UTF-8: both become '?'. */
char *
tdat_ltt_xml_text(const char *s)
{
	char *c = strdup(s ? s : ""), *p;

	for (p = c; p && *p; p++)
		if (((unsigned char)*p < 0x20 && *p != '\t' && *p != '\n') ||
		    (unsigned char)*p >= 0x80)
			*p = '?';
	return c;
}

static int
write_xml(const char *path, const struct lt_facility *f,
    struct tdat_err *e)
{
	xmlTextWriterPtr w = xmlNewTextWriterFilename(path, 0);
	int k, rc = 0;
	char *t;

	if (w == NULL)
		return tdat_fail_nooff(e, TDAT_EIO, "%s: cannot create", path);
	xmlTextWriterSetIndent(w, 1);
	xmlTextWriterSetIndentString(w, X("  "));
	rc |= xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL) < 0;
	rc |= xmlTextWriterStartElement(w, X("facility")) < 0;
	rc |= xmlTextWriterWriteAttribute(w, X("name"), X(f->name)) < 0;
	t = tdat_ltt_xml_text(f->desc ? f->desc : f->name);
	rc |= xmlTextWriterWriteElement(w, X("description"), X(t)) < 0;
	free(t);
	for (k = 0; k < f->nev; k++) {
		rc |= xmlTextWriterStartElement(w, X("event")) < 0;
		rc |= xmlTextWriterWriteAttribute(w, X("name"),
		    X(f->ev[k].name)) < 0;
		t = tdat_ltt_xml_text(f->ev[k].desc ? f->ev[k].desc :
		    f->ev[k].name);
		rc |= xmlTextWriterWriteElement(w, X("description"), X(t)) < 0;
		free(t);
		if (f->ev[k].t)
			rc |= xml_type(w, f->ev[k].t);
		rc |= xmlTextWriterEndElement(w) < 0;
	}
	rc |= xmlTextWriterEndElement(w) < 0;
	rc |= xmlTextWriterEndDocument(w) < 0;
	xmlFreeTextWriter(w);
	if (rc)
		return tdat_fail_nooff(e, TDAT_EIO, "%s: cannot write", path);
	return 0;
}

int
tdat_ltt_write_eventdefs(const char *path, const struct lt_facility *fac,
    int nfac, int lttv, struct tdat_err *e)
{
	if (lttv)
		return write_lttv(path, fac, nfac, e);
	if (nfac != 1)
		return tdat_fail_nooff(e, TDAT_EUSAGE, "one facility per "
		    "XML eventdefs file");
	return write_xml(path, fac, e);
}

/* ------------------------------------------------------------------ */
/* Reading eventdefs. */

static int
attr_num(xmlNodePtr n, const char *name, int *out)
{
	char *s = tdat_ltt_xattr(n, name), *end;
	long v;

	if (s == NULL)
		return -1;
	v = strtol(s, &end, 10);
	if (end == s || *end || v < 0 || v > 1 << 20) {
		free(s);
		return -1;
	}
	free(s);
	*out = (int)v;
	return 0;
}

static char *
desc_of(xmlNodePtr n)
{
	xmlNodePtr c;
	xmlChar *t;
	char *s;

	for (c = n->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE &&
		    xmlStrcmp(c->name, X("description")) == 0) {
			t = xmlNodeGetContent(c);
			s = t ? strdup((const char *)t) : NULL;
			xmlFree(t);
			return s;
		}
	return NULL;
}

static int
is_el(xmlNodePtr c, const char *name)
{
	return c->type == XML_ELEMENT_NODE && xmlStrcmp(c->name, X(name)) == 0;
}

static struct lt_type *read_type(xmlNodePtr n, int depth);

/* The first child that is a type. */
static struct lt_type *
child_type(xmlNodePtr n, int depth)
{
	xmlNodePtr c;

	for (c = n->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && !is_el(c, "description") &&
		    !is_el(c, "label") && !is_el(c, "field"))
			return read_type(c, depth + 1);
	return NULL;
}

static struct lt_type *
read_type(xmlNodePtr n, int depth)
{
	struct lt_type *t;
	xmlNodePtr c;
	int k, sz = 0;

	if (depth > MAX_DEPTH)
		return NULL;
	for (k = 0; k < 10; k++)
		if (xmlStrcmp(n->name, X(type_names[k])) == 0)
			break;
	if (k == 10)
		return NULL;
	if (k == LT_SEQUENCE) {
		if (attr_num(n, "lengthsize", &sz) < 0)
			return NULL;
	} else if (k == LT_UNION) {
		if (attr_num(n, "typecodesize", &sz) < 0)
			return NULL;
	} else if (k != LT_STRING && k != LT_STRUCT && k != LT_TYPEREF &&
	    attr_num(n, "size", &sz) < 0)
		return NULL;
	if ((k <= LT_FLOAT || k == LT_ENUM || k == LT_SEQUENCE ||
	    k == LT_UNION) && sz != 1 && sz != 2 && sz != 4 && sz != 8)
		return NULL;
	if ((t = tdat_ltt_new(k, sz)) == NULL)
		return NULL;
	t->format = tdat_ltt_xattr(n, "format");
	if (k == LT_TYPEREF && (t->ref = tdat_ltt_xattr(n, "name")) == NULL)
		goto bad;
	if (k == LT_ARRAY || k == LT_SEQUENCE) {
		if ((t->elem = child_type(n, depth)) == NULL)
			goto bad;
	}
	for (c = n->children; c; c = c->next) {
		if (k == LT_ENUM && is_el(c, "label")) {
			char **l = realloc(t->label, (size_t)(t->nlabel + 1) *
			    sizeof(char *));
			long *v;
			int val = t->nlabel;

			if (l == NULL)
				goto bad;
			t->label = l;
			v = realloc(t->value, (size_t)(t->nlabel + 1) *
			    sizeof(long));
			if (v == NULL)
				goto bad;
			t->value = v;
			attr_num(c, "value", &val);
			if ((l[t->nlabel] = tdat_ltt_xattr(c, "name")) == NULL)
				goto bad;
			v[t->nlabel++] = val;
		} else if ((k == LT_STRUCT || k == LT_UNION) &&
		    is_el(c, "field")) {
			struct lt_type *ft = child_type(c, depth);
			char *nm = tdat_ltt_xattr(c, "name"), *d = desc_of(c);

			if (ft == NULL || nm == NULL) {
				free(nm);
				free(d);
				tdat_ltt_type_free(ft);
				goto bad;
			}
			tdat_ltt_struct_add(t, nm, d, ft);
			free(nm);
			free(d);
		}
	}
	return t;
bad:
	tdat_ltt_type_free(t);
	return NULL;
}

static int
add_named_type(struct lt_facility *f, char *tn, struct lt_type *t)
{
	char **nn;
	struct lt_type **tt;

	nn = realloc(f->tname, (size_t)(f->ntype + 1) * sizeof(*nn));
	if (nn == NULL)
		return -1;
	f->tname = nn;
	tt = realloc(f->tdef, (size_t)(f->ntype + 1) * sizeof(*tt));
	if (tt == NULL)
		return -1;
	f->tdef = tt;
	f->tname[f->ntype] = tn;
	f->tdef[f->ntype++] = t;
	return 0;
}

static int
read_event(struct lt_facility *f, xmlNodePtr c, const char *path,
    struct tdat_err *e)
{
	char *en = tdat_ltt_xattr(c, "name"), *ed = desc_of(c);
	struct lt_type *t = NULL;
	xmlNodePtr k;
	int rc = 0;

	for (k = c->children; k; k = k->next)
		if (k->type == XML_ELEMENT_NODE && !is_el(k, "description")) {
			if ((t = read_type(k, 0)) == NULL)
				rc = tdat_fail_nooff(e, TDAT_ECORRUPT, "%s: line %ld: "
				    "bad type <%s>", path, xmlGetLineNo(k),
				    (const char *)k->name);
			break;
		}
	if (rc == 0 && en == NULL)
		rc = tdat_fail_nooff(e, TDAT_ECORRUPT,
		    "%s: line %ld: event without a name", path,
		    xmlGetLineNo(c));
	if (rc == 0 && tdat_ltt_fac_add(f, en, ed, t) == NULL)
		rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	if (rc < 0)
		tdat_ltt_type_free(t);
	free(en);
	free(ed);
	return rc;
}

static int
read_facility(xmlNodePtr n, struct lt_defs *d, const char *path,
    struct tdat_err *e)
{
	struct lt_facility *f;
	xmlNodePtr c;
	char *name = tdat_ltt_xattr(n, "name");
	int rc;

	if (name == NULL)
		return tdat_fail_nooff(e, TDAT_ECORRUPT,
		    "%s: line %ld: facility without a name", path,
		    xmlGetLineNo(n));
	f = tdat_ltt_defs_add(d, name);
	free(name);
	if (f == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	f->desc = desc_of(n);
	for (c = n->children; c; c = c->next) {
		if (is_el(c, "event")) {
			if ((rc = read_event(f, c, path, e)) < 0)
				return rc;
		} else if (is_el(c, "type")) {
			char *tn = tdat_ltt_xattr(c, "name");
			struct lt_type *t = child_type(c, 0);

			if (tn == NULL || t == NULL ||
			    add_named_type(f, tn, t) < 0) {
				free(tn);
				tdat_ltt_type_free(t);
				return tdat_fail_nooff(e, TDAT_ECORRUPT,
				    "%s: line %ld: bad named type", path,
				    xmlGetLineNo(c));
			}
		}
	}
	f->cksum = tdat_ltt_checksum(f);
	return 0;
}

/* The HTML parser reads LTTV's unquoted "size=4/>" as the value "4/" of
 * an element left open: strip the slash and give the element's children
 * back to its parent. */
static void
fix_html(xmlNodePtr n)
{
	xmlNodePtr c, next;
	xmlAttrPtr a;

	for (c = n->children; c; c = next) {
		int closed = 0;

		next = c->next;
		if (c->type != XML_ELEMENT_NODE)
			continue;
		for (a = c->properties; a; a = a->next) {
			xmlChar *v = xmlNodeGetContent((xmlNodePtr)a);
			size_t l = v ? strlen((const char *)v) : 0;

			if (l > 0 && v[l - 1] == '/') {
				v[l - 1] = '\0';
				xmlSetProp(c, a->name, v);
				closed = 1;
			}
			xmlFree(v);
		}
		if (closed) {
			xmlNodePtr k, kn, at = c;

			for (k = c->children; k; k = kn) {
				kn = k->next;
				xmlUnlinkNode(k);
				xmlAddNextSibling(at, k);
				at = k;
			}
			next = c->next;
		}
		fix_html(c);
	}
}

static void
collect(xmlNodePtr n, struct lt_defs *d, const char *path,
    struct tdat_err *e, int *rc)
{
	xmlNodePtr c;

	for (c = n; c && *rc == 0; c = c->next) {
		if (is_el(c, "facility"))
			*rc = read_facility(c, d, path, e);
		else if (c->type == XML_ELEMENT_NODE)
			collect(c->children, d, path, e, rc);
	}
}

int
tdat_ltt_read_eventdefs(const char *path, struct lt_defs *d, int *lttv,
    struct ltt_defdoc *keep, struct tdat_err *e)
{
	struct tdat_err why;
	xmlDocPtr doc;
	int rc = 0;

	doc = tdat_ltt_read_doc(path, XML_PARSE_NONET | XML_PARSE_NOERROR |
	    XML_PARSE_NOWARNING | XML_PARSE_NOBLANKS, HTML_PARSE_RECOVER |
	    HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET |
	    HTML_PARSE_NOBLANKS, lttv, &why);
	if (keep != NULL && (doc == NULL || *lttv))
		snprintf(keep->why, sizeof(keep->why), "%s", why.msg);
	if (doc == NULL)
		return tdat_fail_nooff(e, why.code ? why.code : TDAT_ECORRUPT,
		    "%s: %s", path, why.msg);
	if (*lttv)
		fix_html((xmlNodePtr)doc);
	collect(xmlDocGetRootElement(doc), d, path, e, &rc);
	if (keep != NULL && !*lttv)
		keep->doc = doc;
	else
		xmlFreeDoc(doc);
	return rc;
}

int
tdat_ltt_builtin(struct lt_defs *d, struct tdat_err *e)
{
	xmlDocPtr doc = xmlReadMemory(tdat_ltt_builtin_xml,
	    (int)sizeof(tdat_ltt_builtin_xml) - 1, "builtin.xml", NULL,
	    XML_PARSE_NONET | XML_PARSE_NOBLANKS);
	int rc = 0;

	if (doc == NULL)
		return tdat_fail_nooff(e, TDAT_ECORRUPT, "builtin facility "
		    "does not parse");
	collect(xmlDocGetRootElement(doc), d, "builtin.xml", e, &rc);
	xmlFreeDoc(doc);
	return rc;
}
