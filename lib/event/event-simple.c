/*
 * event-simple.c: the simple print language.  A format file may end in
 *
 *	format: irq=<int:irq> name=<string:name>
 *
 * instead of "print fmt: ...".  Text is copied; "\<" is a literal '<',
 * "\\" a backslash, "\n" and "\t" a newline and a tab.  A directive
 * <KIND:FIELD[:ARGS]> prints a field:
 *
 *	int		decimal, signed if the field is
 *	hex		0x and lowercase hex
 *	ptr		the kernel symbol and offset (sym+0x1f), else 0x hex
 *	string		a __data_loc/__rel_loc string or a char array
 *	strarray	a fixed char array, up to its size or a NUL
 *	sym:V=S,...	the name of the value (V decimal or 0x hex), else 0x hex
 *	mask:D:V=S,...	the names of the set bits joined by D, then any
 *			bits left in 0x hex
 *	if:YES:NO	YES if the field is non-zero, else NO
 *
 * The directives compile once per event into a list of items.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "event-int.h"

enum { S_TEXT, S_INT, S_HEX, S_PTR, S_STRING, S_STRARRAY, S_SYM, S_MASK,
	S_IF };

struct sitem {
	int kind;
	char *text;		/* S_TEXT; S_IF: yes */
	char *no;		/* S_IF */
	char *delim;		/* S_MASK */
	const struct tdat_field *field;
	struct flagsym *syms;
};

struct tdat_simple {
	int n;
	struct sitem *it;
};

static const char *kinds[] = { "", "int", "hex", "ptr", "string",
	"strarray", "sym", "mask", "if", NULL };


void
tdat_simple_free(struct tdat_simple *s)
{
	int i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++) {
		free(s->it[i].text);
		free(s->it[i].no);
		free(s->it[i].delim);
		tdat_flagsyms_free(s->it[i].syms);
	}
	free(s->it);
	free(s);
}

static struct sitem *
new_item(struct tdat_simple *s, int kind)
{
	struct sitem *v;

	if ((v = realloc(s->it, (s->n + 1) * sizeof(*v))) == NULL)
		return NULL;
	s->it = v;
	v = &s->it[s->n++];
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	return v;
}

/* Split "a:b:c" in place at the first n-1 colons. */
static int
split(char *s, char **part, int n)
{
	int k = 0;

	part[k++] = s;
	while (k < n && (s = strchr(s, ':')) != NULL) {
		*s++ = '\0';
		part[k++] = s;
	}
	return k;
}

/* "V=S,V=S" into a list; values in C notation. */
static int
parse_syms(char *s, struct flagsym **list)
{
	struct flagsym *f;
	char *item, *eq, *end;

	for (item = strtok_r(s, ",", &end); item;
	    item = strtok_r(NULL, ",", &end)) {
		if ((eq = strchr(item, '=')) == NULL || eq == item)
			return -1;
		*eq = '\0';
		if ((f = calloc(1, sizeof(*f))) == NULL)
			return -1;
		*list = f;
		list = &f->next;
		f->value = strdup(item);
		f->str = strdup(eq + 1);
		if (f->value == NULL || f->str == NULL)
			return -1;
		f->fval = (long long)strtoull(item, NULL, 0);
	}
	return 0;
}

static int
directive(struct tdat_event *ev, struct tdat_simple *s, char *d)
{
	char *part[4];
	struct sitem *it;
	int kind, n;

	n = split(d, part, 4);
	for (kind = 1; kinds[kind]; kind++)
		if (strcmp(part[0], kinds[kind]) == 0)
			break;
	if (kinds[kind] == NULL || n < 2)
		return -1;
	if ((it = new_item(s, kind)) == NULL)
		return -1;
	if ((it->field = tdat_event_field(ev, part[1])) == NULL)
		return -1;
	switch (kind) {
	case S_SYM:
		if (n < 3)
			return -1;
		if (n == 4)
			part[3][-1] = ':';	/* names may hold ':' */
		return parse_syms(part[2], &it->syms);
	case S_MASK:
		if (n < 4 || (it->delim = strdup(part[2])) == NULL)
			return -1;
		return parse_syms(part[3], &it->syms);
	case S_IF:
		if (n < 4)
			return -1;
		it->text = strdup(part[2]);
		it->no = strdup(part[3]);
		return it->text && it->no ? 0 : -1;
	default:
		return n == 2 ? 0 : -1;
	}
}

static int
flush_text(struct tdat_simple *s, struct tdat_sbuf *b)
{
	struct sitem *it;

	if (b->len == 0)
		return 0;
	if ((it = new_item(s, S_TEXT)) == NULL ||
	    (it->text = strdup(b->p)) == NULL)
		return -1;
	tdat_sb_reset(b);
	return 0;
}

static int
compile(struct tdat_event *ev, struct tdat_simple *s, const char *p,
    const char *end)
{
	struct tdat_sbuf b;
	const char *q;
	char *d;
	int r = 0;

	tdat_sb_init(&b);
	while (p < end && r == 0) {
		if (*p == '\\' && p + 1 < end) {
			p++;
			tdat_sb_putc(&b, *p == 'n' ? '\n' : *p == 't' ? '\t' :
			    *p);
			p++;
		} else if (*p == '<') {
			if ((q = memchr(p, '>', (size_t)(end - p))) == NULL ||
			    (d = strndup(p + 1, (size_t)(q - p - 1))) == NULL) {
				r = -1;
				break;
			}
			if ((r = flush_text(s, &b)) == 0)
				r = directive(ev, s, d);
			free(d);
			p = q + 1;
		} else
			tdat_sb_putc(&b, *p++);
	}
	if (r == 0)
		r = b.oom ? -1 : flush_text(s, &b);
	tdat_sb_free(&b);
	return r;
}

int
tdat_simple_compile(struct tdat_event *ev, const char *text, size_t len)
{
	struct tdat_simple *s;
	const char *end = text + len;

	/* One line; trailing blanks and the newline are not part of it. */
	while (len > 0 && isspace((unsigned char)text[0]) && text[0] != '\n') {
		text++;
		len--;
	}
	if ((end = memchr(text, '\n', len)) == NULL)
		end = text + len;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return -1;
	ev->simple = s;
	if ((ev->fmt = strndup(text, (size_t)(end - text))) == NULL)
		return -1;
	return compile(ev, s, text, end);
}

static const char *
field_string(const struct tdat_field *f, const unsigned char *data,
    uint32_t size, const struct tdat_event *ev, size_t *n)
{
	unsigned long long v;
	uint32_t off, len;

	if (f->flags & TDAT_FLD_DYNAMIC) {
		if ((uint32_t)f->offset + f->size > size)
			return NULL;
		v = tdat_read_num(ev->set, data + f->offset, f->size);
		off = (uint32_t)(v & 0xffff);
		len = f->size == 2 ? size - off : (uint32_t)(v >> 16 & 0xffff);
		if (f->flags & TDAT_FLD_RELATIVE)
			off += f->offset + f->size;
	} else {
		off = (uint32_t)f->offset;
		len = (uint32_t)f->size;
	}
	if (off > size)
		return NULL;
	if (len > size - off)
		len = size - off;
	*n = strnlen((const char *)data + off, len);
	return (const char *)data + off;
}

static void
print_mask(const struct sitem *it, unsigned long long v,
    struct tdat_sbuf *out)
{
	const struct flagsym *f;
	int any = 0;

	for (f = it->syms; f; f = f->next) {
		unsigned long long m = (unsigned long long)f->fval;

		if (m && (v & m) == m) {
			if (any)
				tdat_sb_puts(out, it->delim);
			tdat_sb_puts(out, f->str);
			any = 1;
			v &= ~m;
		}
	}
	if (v) {
		if (any)
			tdat_sb_puts(out, it->delim);
		tdat_sb_printf(out, "0x%llx", v);
	}
}

static void
print_int(const struct tdat_field *f, unsigned long long v,
    struct tdat_sbuf *out)
{
	int bits = f->size * 8;

	if (!(f->flags & TDAT_FLD_SIGNED)) {
		tdat_put_udec(out, v);
		return;
	}
	if (bits > 0 && bits < 64 && (v >> (bits - 1) & 1))
		v |= ~0ULL << bits;
	tdat_put_dec(out, (long long)v);
}

static void
print_sitem(const struct tdat_event *ev, const struct sitem *it,
    const unsigned char *data, uint32_t size, struct tdat_sbuf *out)
{
	const struct flagsym *f;
	unsigned long long v = 0, start = 0;
	const char *s;
	size_t n = 0;

	if (it->kind == S_TEXT) {
		tdat_sb_puts(out, it->text);
		return;
	}
	if (it->kind != S_STRING && it->kind != S_STRARRAY)
		v = tdat_field_read(ev, it->field, data, size);
	switch (it->kind) {
	case S_INT:
		print_int(it->field, v, out);
		break;
	case S_HEX:
		tdat_sb_printf(out, "0x%llx", v);
		break;
	case S_PTR:
		if ((s = tdat_events_sym(ev->set, v, &start)) != NULL)
			tdat_sb_printf(out, "%s+0x%llx", s, v - start);
		else
			tdat_sb_printf(out, "0x%llx", v);
		break;
	case S_STRING:
	case S_STRARRAY:
		if ((s = field_string(it->field, data, size, ev, &n)) != NULL)
			tdat_sb_add(out, s, n);
		break;
	case S_SYM:
		for (f = it->syms; f; f = f->next)
			if ((unsigned long long)f->fval == v) {
				tdat_sb_puts(out, f->str);
				return;
			}
		tdat_sb_printf(out, "0x%llx", v);
		break;
	case S_MASK:
		print_mask(it, v, out);
		break;
	case S_IF:
		tdat_sb_puts(out, v ? it->text : it->no);
		break;
	}
}

void
tdat_simple_print(const struct tdat_event *ev, const unsigned char *data,
    uint32_t size, struct tdat_sbuf *out)
{
	int i;

	for (i = 0; ev->simple && i < ev->simple->n; i++)
		print_sitem(ev, &ev->simple->it[i], data, size, out);
}
