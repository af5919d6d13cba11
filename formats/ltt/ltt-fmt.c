/*
 * ltt-fmt.c: ftrace event format files reduced to LTT fields, and records
 * converted to and from LTT payloads (ltt(5), "Payloads").
 *
 * A record's fields become, in offset order, fixed fields copied as
 * stored, __data_loc strings as NUL-terminated strings, other __data_loc
 * arrays and a trailing "[]" field as sequences, and the holes between
 * fields as padding arrays, so that every byte the format describes
 * survives the trip.  Format files are parsed by the event engine
 * (lib/event/tdat-event.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ltt-int.h"

#define MAX_FIELDS	1024

static char *
dupn(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

static const char *
trim(const char *s, const char *e, size_t *n)
{
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	*n = (size_t)(e - s);
	return s;
}

/* Element size of a base C type, 0 if unknown. */
static int
base_size(const char *t)
{
	static const struct { const char *n; int s; } tab[] = {
		{ "char", 1 }, { "unsigned char", 1 }, { "signed char", 1 },
		{ "u8", 1 }, { "s8", 1 }, { "__u8", 1 }, { "bool", 1 },
		{ "short", 2 }, { "unsigned short", 2 }, { "u16", 2 },
		{ "s16", 2 }, { "__u16", 2 }, { "__be16", 2 },
		{ "int", 4 }, { "unsigned int", 4 }, { "unsigned", 4 },
		{ "u32", 4 }, { "s32", 4 }, { "__u32", 4 }, { "__be32", 4 },
		{ "u64", 8 }, { "s64", 8 }, { "__u64", 8 },
		{ "long long", 8 }, { "unsigned long long", 8 },
	};
	size_t i;

	while (strncmp(t, "const ", 6) == 0)
		t += 6;
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strcmp(t, tab[i].n) == 0)
			return tab[i].s;
	return 0;
}

/* Split the print fmt's arguments at top-level commas. */
static int
split_args(const char *s, const char **a, size_t *al, int max)
{
	int n = 0, depth = 0, q = 0;
	const char *start = s;

	for (; *s && *s != '\n'; s++) {
		if (q) {
			if (*s == '\\' && s[1])
				s++;
			else if (*s == q)
				q = 0;
			continue;
		}
		if (*s == '"' || *s == '\'')
			q = *s;
		else if (*s == '(' || *s == '{' || *s == '[')
			depth++;
		else if (*s == ')' || *s == '}' || *s == ']')
			depth--;
		else if (*s == ',' && depth == 0) {
			if (n < max) {
				a[n] = trim(start, s, &al[n]);
				n++;
			}
			start = s + 1;
		}
	}
	if (n < max && s > start) {
		a[n] = trim(start, s, &al[n]);
		n++;
	}
	return n;
}

static struct fmt_field *
rec_field(struct fmt_event *ev, const char *a, size_t n)
{
	int i;

	if (n < 6 || memcmp(a, "REC->", 5) != 0)
		return NULL;
	a += 5;
	n -= 5;
	for (i = 0; i < ev->nf; i++)
		if (strlen(ev->f[i].name) == n && memcmp(ev->f[i].name, a, n)
		    == 0)
			return &ev->f[i];
	return NULL;
}

/* __print_symbolic(REC->x, { 0, "A" }, { 1, "B" }): labels when the values
 * are exactly 0..n-1. */
static void
symbolic(struct fmt_event *ev, const char *a, size_t n)
{
	const char *args[257];
	size_t al[257];
	char *lab[256] = { 0 };
	struct fmt_field *f;
	int na, i, k, ok = 1;
	char *buf;

	if (n < 18 || memcmp(a, "__print_symbolic(", 17) != 0 ||
	    a[n - 1] != ')')
		return;
	if ((buf = dupn(a + 17, n - 18)) == NULL)
		return;
	na = split_args(buf, args, al, 257);
	if (na < 2 || na > 257 || (f = rec_field(ev, args[0], al[0])) == NULL ||
	    f->nlabel || f->count >= 0 || f->dloc || (f->size != 1 &&
	    f->size != 2 && f->size != 4 && f->size != 8)) {
		free(buf);
		return;
	}
	for (i = 1; i < na && ok; i++) {
		const char *p = args[i], *e = args[i] + al[i], *s, *q;
		char *end;
		long v;

		if (al[i] < 2 || *p != '{' || e[-1] != '}') {
			ok = 0;
			break;
		}
		v = strtol(p + 1, &end, 0);
		while (end < e && isspace((unsigned char)*end))
			end++;
		if (end == p + 1 || *end != ',' || v < 0 || v >= na - 1 ||
		    lab[v]) {
			ok = 0;
			break;
		}
		s = memchr(end, '"', (size_t)(e - end));
		q = s ? memchr(s + 1, '"', (size_t)(e - s - 1)) : NULL;
		if (q == NULL) {
			ok = 0;
			break;
		}
		for (k = 1; s + k < q; k++)
			if (!isalnum((unsigned char)s[k]) && s[k] != '_')
				ok = 0;
		if (q == s + 1)
			ok = 0;
		lab[v] = dupn(s + 1, (size_t)(q - s - 1));
	}
	if (ok) {
		f->label = calloc((size_t)(na - 1), sizeof(char *));
		if (f->label) {
			memcpy(f->label, lab, (size_t)(na - 1) * sizeof(char *));
			f->nlabel = na - 1;
			free(buf);
			return;
		}
	}
	for (i = 0; i < 256; i++)
		free(lab[i]);
	free(buf);
}

/* Give fields the printf conversions that print them directly. */
static void
print_formats(struct fmt_event *ev)
{
	const char *p = ev->print, *fs, *fe, *args[512];
	size_t al[512];
	int na, ai = 0, i;

	if (p == NULL || *p != '"')
		return;
	fs = ++p;
	for (; *p && *p != '"'; p++)
		if (*p == '\\' && p[1])
			p++;
	if (*p != '"')
		return;
	fe = p++;
	while (*p == ' ')
		p++;
	if (*p != ',')
		return;
	na = split_args(p + 1, args, al, 512);
	for (i = 0; i < na; i++)
		symbolic(ev, args[i], al[i]);
	for (p = fs; p < fe; p++) {
		const char *c;
		struct fmt_field *f;

		if (*p != '%')
			continue;
		if (p[1] == '%') {
			p++;
			continue;
		}
		for (c = p + 1; c < fe && strchr("-+ #0123456789.*hlzjtL", *c);
		    c++)
			if (*c == '*')
				ai++;
		if (c >= fe)
			break;
		if (ai < na && strchr("diouxXcsp", *c) &&
		    (f = rec_field(ev, args[ai], al[ai])) != NULL &&
		    f->format == NULL && !(*c == 'p' && c + 1 < fe &&
		    isalnum((unsigned char)c[1])) && !f->dloc && f->count < 0)
			f->format = dupn(p, (size_t)(c - p + 1));
		ai++;
		p = c;
	}
}

static int
add_slot(struct fmt_event *ev, int kind, int field, int off, int size,
    int elem)
{
	struct fmt_slot *s = realloc(ev->s, (size_t)(ev->ns + 1) * sizeof(*s));

	if (s == NULL)
		return -1;
	ev->s = s;
	s += ev->ns++;
	s->kind = kind;
	s->field = field;
	s->off = off;
	s->size = size;
	s->elem = elem;
	return 0;
}

static int
make_slots(struct fmt_event *ev)
{
	int i, cur = 0;

	for (i = 0; i < ev->nf; i++) {
		struct fmt_field *f = &ev->f[i];
		int kind, size = f->size;

		if (f->off < cur)
			continue;	/* overlaps the previous field */
		if (f->off > cur && add_slot(ev, FS_PAD, -1, cur, f->off - cur,
		    1) < 0)
			return -1;
		cur = f->off;
		if (f->dloc) {
			if (size != 4)
				kind = FS_FIXED;
			else
				kind = f->is_char ? FS_DLOC_STR : FS_DLOC_SEQ;
		} else if (size == 0)
			kind = f->is_char ? FS_TAIL_STR : FS_TAIL_SEQ;
		else
			kind = FS_FIXED;
		if (add_slot(ev, kind, i, f->off, size, f->elem) < 0)
			return -1;
		if (kind == FS_TAIL_STR || kind == FS_TAIL_SEQ)
			break;
		cur += size;
	}
	ev->fixed_end = cur;
	return 0;
}

static int
cmp_off(const void *a, const void *b)
{
	const struct fmt_field *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

/* Whether a field's element is a C char: its type without __data_loc,
 * const and brackets is "char". */
static int
char_type(const char *type)
{
	const char *p = type, *b;
	size_t n;

	if (strncmp(p, "__data_loc ", 11) == 0)
		p += 11;
	else if (strncmp(p, "__rel_loc ", 10) == 0)
		p += 10;
	if (strncmp(p, "const ", 6) == 0)
		p += 6;
	b = strchr(p, '[');
	n = b ? (size_t)(b - p) : strlen(p);
	while (n > 0 && p[n - 1] == ' ')
		n--;
	return n == 4 && memcmp(p, "char", 4) == 0;
}

/* The element type of a field, for base_size(): no __data_loc, no
 * brackets. */
static int
elem_size(const char *type)
{
	char buf[64];
	const char *p = type, *b;
	size_t n;

	if (strncmp(p, "__data_loc ", 11) == 0)
		p += 11;
	else if (strncmp(p, "__rel_loc ", 10) == 0)
		p += 10;
	b = strchr(p, '[');
	n = b ? (size_t)(b - p) : strlen(p);
	while (n > 0 && p[n - 1] == ' ')
		n--;
	if (n >= sizeof(buf))
		return 0;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return base_size(buf);
}

static int
take_field(struct fmt_event *ev, const struct tdat_field *tf)
{
	struct fmt_field *f = &ev->f[ev->nf];

	memset(f, 0, sizeof(*f));
	if ((f->type = strdup(tf->type)) == NULL ||
	    (f->name = strdup(tf->name)) == NULL)
		return -1;
	ev->nf++;
	if (tf->offset < 0 || tf->size < 0 || tf->offset > 65535 ||
	    tf->size > 65535)
		return -1;
	f->off = tf->offset;
	f->size = tf->size;
	f->sign = (tf->flags & TDAT_FLD_SIGNED) != 0;
	f->dloc = tf->flags & TDAT_FLD_RELATIVE ? 2 :
	    tf->flags & TDAT_FLD_DYNAMIC ? 1 : 0;
	f->count = -1;
	if ((tf->flags & TDAT_FLD_ARRAY) && !f->dloc)
		f->count = tf->arraylen;
	f->is_char = char_type(tf->type);
	f->elem = tf->elemsize > 0 ? tf->elemsize : elem_size(tf->type);
	if (f->count > 0)
		f->elem = f->size / f->count;
	if (f->elem <= 0)
		f->elem = 1;
	return 0;
}

/* The event engine (lib/event/tdat-event.h) parses the format file; the
 * print format's arguments, which its public interface keeps compiled,
 * are read from the "print fmt:" line for the eventdefs' format= and
 * enum labels. */
int
tdat_ltt_fmt_parse(const char *text, size_t len, const char *sys, int lsize,
    int big, struct fmt_event *ev)
{
	struct tdat_event *te;
	struct tdat_err e = { 0 };
	const char *p, *end = text + len;
	size_t n;
	int i;

	memset(ev, 0, sizeof(*ev));
	ev->id = -1;
	ev->type_size = 2;
	if ((ev->sys = strdup(sys)) == NULL)
		return -1;
	if (tdat_event_parse(text, len, sys, lsize, big, &te, &e) < 0)
		return -1;
	if (te->ncommon + te->nfields > MAX_FIELDS ||
	    (ev->name = strdup(te->name)) == NULL ||
	    (ev->f = calloc((size_t)(te->ncommon + te->nfields) + 1,
	    sizeof(*ev->f))) == NULL) {
		tdat_event_free(te);
		return -1;
	}
	ev->id = te->id;
	for (i = 0; i < te->ncommon + te->nfields; i++)
		if (take_field(ev, i < te->ncommon ? &te->common[i] :
		    &te->fields[i - te->ncommon]) < 0) {
			tdat_event_free(te);
			return -1;
		}
	tdat_event_free(te);
	for (p = text; p < end; p++)
		if ((p == text || p[-1] == '\n') && (size_t)(end - p) > 10 &&
		    memcmp(p, "print fmt:", 10) == 0) {
			p = trim(p + 10, end, &n);
			while (n > 0 && p[n - 1] == '\0')
				n--;
			ev->print = dupn(p, n);
			break;
		}
	if (ev->id < 0)
		return -1;
	if (ev->nf > 0)
		qsort(ev->f, (size_t)ev->nf, sizeof(*ev->f), cmp_off);
	for (i = 0; i < ev->nf; i++)
		if (strcmp(ev->f[i].name, "common_type") == 0) {
			ev->type_off = ev->f[i].off;
			ev->type_size = ev->f[i].size;
		}
	print_formats(ev);
	return make_slots(ev);
}

void
tdat_ltt_fmt_free(struct fmt_event *ev)
{
	int i, k;

	for (i = 0; i < ev->nf; i++) {
		free(ev->f[i].name);
		free(ev->f[i].type);
		free(ev->f[i].format);
		for (k = 0; k < ev->f[i].nlabel; k++)
			free(ev->f[i].label[k]);
		free(ev->f[i].label);
	}
	free(ev->f);
	free(ev->s);
	free(ev->sys);
	free(ev->name);
	free(ev->print);
	memset(ev, 0, sizeof(*ev));
}

static void
put(struct tdat_sbuf *sb, uint64_t v, int n, int big)
{
	unsigned char b[8];

	tdat_put(b, v, n, big);
	tdat_sb_add(sb, (const char *)b, (size_t)n);
}

/* Bytes [off, off+n) of the record, zero past its end. */
static void
copy_range(struct tdat_sbuf *sb, const unsigned char *d, uint32_t size,
    uint32_t off, uint32_t n)
{
	static const char zero[64];
	uint32_t have = off < size ? size - off : 0;

	if (have > n)
		have = n;
	tdat_sb_add(sb, (const char *)d + off, have);
	for (n -= have; n > 0; n -= have) {
		have = n > sizeof(zero) ? sizeof(zero) : n;
		tdat_sb_add(sb, zero, have);
	}
}

void
tdat_ltt_fmt_encode(const struct fmt_event *ev, const unsigned char *d,
    uint32_t size, int big, struct tdat_sbuf *sb)
{
	int i;

	for (i = 0; i < ev->ns; i++) {
		const struct fmt_slot *s = &ev->s[i];
		uint32_t o = 0, l = 0, v;

		switch (s->kind) {
		case FS_PAD:
		case FS_FIXED:
			copy_range(sb, d, size, (uint32_t)s->off,
			    (uint32_t)s->size);
			break;
		case FS_DLOC_STR:
		case FS_DLOC_SEQ:
			if ((uint32_t)s->off + 4 <= size) {
				v = tdat_get32(d + s->off, big);
				o = v & 0xffff;
				l = v >> 16;
				if (ev->f[s->field].dloc == 2)
					o += (uint32_t)s->off + 4;
			}
			if (o > size)
				o = size;
			if (l > size - o)
				l = size - o;
			goto dyn;
		case FS_TAIL_STR:
		case FS_TAIL_SEQ:
			o = (uint32_t)s->off < size ? (uint32_t)s->off : size;
			l = size - o;
		dyn:
			if (s->kind == FS_DLOC_STR || s->kind == FS_TAIL_STR) {
				l = (uint32_t)strnlen((const char *)d + o, l);
				tdat_sb_add(sb, (const char *)d + o, l);
				tdat_sb_putc(sb, 0);
			} else {
				l /= (uint32_t)s->elem;
				put(sb, l, s->kind == FS_DLOC_SEQ ? 2 : 4, big);
				tdat_sb_add(sb, (const char *)d + o,
				    l * (uint32_t)s->elem);
			}
			break;
		}
	}
}

long
tdat_ltt_fmt_decode(const struct fmt_event *ev, const unsigned char *p,
    size_t len, int big, struct tdat_sbuf *out)
{
	struct { int slot; size_t at, n; } dyn[64];
	int i, nd = 0;
	size_t pos = 0, k;

	tdat_sb_reset(out);
	for (k = 0; k < (size_t)ev->fixed_end; k++)
		tdat_sb_putc(out, 0);
	if (out->oom)
		return -1;
	for (i = 0; i < ev->ns; i++) {
		const struct fmt_slot *s = &ev->s[i];
		size_t n, cnt;

		switch (s->kind) {
		case FS_PAD:
		case FS_FIXED:
			if ((size_t)s->size > len - pos)
				return -1;
			if (s->size)
				memcpy(out->p + s->off, p + pos,
				    (size_t)s->size);
			pos += (size_t)s->size;
			continue;
		case FS_DLOC_STR:
		case FS_TAIL_STR:
			n = strnlen((const char *)p + pos, len - pos);
			if (n == len - pos)
				return -1;
			n++;
			break;
		default:
			k = s->kind == FS_DLOC_SEQ ? 2 : 4;
			if (k > len - pos)
				return -1;
			cnt = (size_t)tdat_get(p + pos, (int)k, big);
			pos += k;
			if (cnt > (len - pos) / (size_t)s->elem)
				return -1;
			n = cnt * (size_t)s->elem;
			break;
		}
		if (nd == 64)
			return -1;
		dyn[nd].slot = i;
		dyn[nd].at = pos;
		dyn[nd].n = n;
		nd++;
		pos += n;
	}
	for (i = 0; i < nd; i++) {
		const struct fmt_slot *s = &ev->s[dyn[i].slot];
		size_t at = out->len;
		uint32_t v;

		tdat_sb_add(out, (const char *)p + dyn[i].at, dyn[i].n);
		if (out->oom)
			return -1;
		if (s->kind == FS_DLOC_STR || s->kind == FS_DLOC_SEQ) {
			if (ev->f[s->field].dloc == 2)
				at -= (size_t)s->off + 4;
			v = (uint32_t)(dyn[i].n << 16) | (uint32_t)(at & 0xffff);
			for (k = 0; k < 4; k++)
				out->p[s->off + (int)k] = (char)(v >> (8 *
				    (big ? 3 - k : k)));
		}
	}
	while (out->len % 4)
		tdat_sb_putc(out, 0);
	return out->oom ? -1 : (long)pos;
}
