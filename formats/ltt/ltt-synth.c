/*
 * ltt-synth.c: event formats synthesized from eventdefs, for LTT
 * directories that hold no ftrace originals (ltt(5), "Going back").
 *
 * An LTT event becomes an ftrace event of system FACILITY and id equal to
 * its LTT id: the common fields (common_type carries the id, the others
 * are zero), then its payload's leaves in order, structs flattened with
 * '_' between names.  Scalars and arrays of scalars are fixed fields;
 * strings, sequences and anything of variable size are __data_loc fields
 * whose data follows the fixed part.  The same walk writes the format
 * file and turns each payload into a record, so both agree.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ltt-int.h"

#define COMMON_SIZE	8
#define MAX_LEAVES	256

enum { LF_FIXED, LF_STR, LF_SEQ, LF_RAW };

struct leaf {
	const struct lt_type *t;	/* the leaf's type */
	char name[128];
	int kind;
	int off, size;			/* in the record's fixed part */
	int elem;			/* element size: arrays, sequences */
	int sign;
	const char *format;
	const struct lt_type *en;	/* enum labels */
	int is_char;
};

struct synth_ev {
	const struct lt_facility *fac;
	const struct lt_type *t;
	uint16_t id;
	int nleaf;
	struct leaf *leaf;
	int fixed_end;
	int common;		/* the payload starts with the common fields */
};

static const struct lt_type *
resolve(const struct lt_facility *fac, const struct lt_type *t)
{
	int i;

	if (t == NULL || t->kind != LT_TYPEREF)
		return t;
	for (i = 0; i < fac->ntype; i++)
		if (t->ref && strcmp(fac->tname[i], t->ref) == 0)
			return fac->tdef[i];
	return NULL;
}

static int
scalar(const struct lt_type *t)
{
	return t && (t->kind == LT_INT || t->kind == LT_UINT ||
	    t->kind == LT_FLOAT || t->kind == LT_ENUM);
}

static void
clean(char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			*s = '_';
}

static int
add_leaf(struct synth_ev *s, const struct lt_type *t, const char *name,
    int kind, int *cur)
{
	struct leaf *l;

	if (s->nleaf >= MAX_LEAVES)
		return -1;
	l = realloc(s->leaf, (size_t)(s->nleaf + 1) * sizeof(*l));
	if (l == NULL)
		return -1;
	s->leaf = l;
	l += s->nleaf++;
	memset(l, 0, sizeof(*l));
	l->t = t;
	snprintf(l->name, sizeof(l->name), "%s", name[0] ? name : "value");
	clean(l->name);
	l->kind = kind;
	l->off = *cur;
	l->sign = t->kind == LT_INT;
	l->format = t->format;
	if (kind == LF_FIXED) {
		if (t->kind == LT_ARRAY) {
			l->elem = t->elem->size;
			l->size = t->size * t->elem->size;
			l->sign = t->elem->kind == LT_INT;
			l->format = t->elem->format;
			l->is_char = l->elem == 1 && t->elem->format &&
			    strcmp(t->elem->format, "%c") == 0;
		} else {
			l->size = t->size;
			l->elem = t->size;
			if (t->kind == LT_ENUM)
				l->en = t;
		}
	} else {
		l->size = 4;
		if (kind == LF_SEQ) {
			l->elem = t->elem->size;
			l->sign = t->elem->kind == LT_INT;
		} else
			l->elem = 1;
	}
	*cur += l->size;
	return 0;
}

static int
walk(struct synth_ev *s, const struct lt_type *t, const char *prefix,
    int *cur, int depth)
{
	char name[128];
	int i;

	if (depth > 16 || (t = resolve(s->fac, t)) == NULL)
		return -1;
	switch (t->kind) {
	case LT_STRUCT:
		for (i = 0; i < t->nfield; i++) {
			snprintf(name, sizeof(name), "%s%s%s", prefix,
			    prefix[0] ? "_" : "", t->field[i].name);
			if (walk(s, t->field[i].t, name, cur, depth + 1) < 0)
				return -1;
		}
		return 0;
	case LT_STRING:
		return add_leaf(s, t, prefix, LF_STR, cur);
	case LT_ARRAY:
		if (scalar(resolve(s->fac, t->elem)) && t->elem->kind !=
		    LT_TYPEREF && t->size > 0 && t->size <= 4096)
			return add_leaf(s, t, prefix, LF_FIXED, cur);
		return add_leaf(s, t, prefix, LF_RAW, cur);
	case LT_SEQUENCE:
		if (scalar(t->elem))
			return add_leaf(s, t, prefix, LF_SEQ, cur);
		return add_leaf(s, t, prefix, LF_RAW, cur);
	case LT_UNION:
		return add_leaf(s, t, prefix, LF_RAW, cur);
	default:
		return add_leaf(s, t, prefix, LF_FIXED, cur);
	}
}

/* A conversion for a scalar: the eventdefs' own when it is a plain one. */
static void
conv(struct tdat_sbuf *sb, const struct leaf *l)
{
	const char *f = l->format;

	if (f && f[0] == '%' && strlen(f) < 12 && strchr("diouxXc",
	    f[strlen(f) - 1]) && !strchr(f + 1, '%') && !strchr(f, '*')) {
		size_t i, n = strlen(f);

		/* Flags and width as given, the length from the size. */
		for (i = 0; i + 1 < n; i++)
			if (!strchr("hlzjtLq", f[i]))
				tdat_sb_putc(sb, f[i]);
		if (l->elem == 8)
			tdat_sb_puts(sb, "ll");
		tdat_sb_putc(sb, f[n - 1]);
		return;
	}
	if (l->elem == 8)
		tdat_sb_puts(sb, l->sign ? "%lld" : "%llu");
	else
		tdat_sb_puts(sb, l->sign ? "%d" : "%u");
}

static void
format_text(const struct synth_ev *s, const char *name, struct tdat_sbuf *sb)
{
	struct tdat_sbuf args;
	int i, k;

	tdat_sb_init(&args);
	tdat_sb_printf(sb, "name: %s\nID: %u\nformat:\n", name, s->id);
	tdat_sb_puts(sb, "\tfield:unsigned short common_type;\toffset:0;\t"
	    "size:2;\tsigned:0;\n\tfield:unsigned char common_flags;\t"
	    "offset:2;\tsize:1;\tsigned:0;\n\tfield:unsigned char "
	    "common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n");
	tdat_sb_puts(sb, "print fmt: \"");
	for (i = 0; i < s->nleaf; i++) {
		const struct leaf *l = &s->leaf[i];

		tdat_sb_printf(sb, "%s%s=", i ? " " : "", l->name);
		switch (l->kind) {
		case LF_FIXED:
			if (l->en) {
				tdat_sb_puts(sb, "%s");
				tdat_sb_printf(&args, ", __print_symbolic("
				    "REC->%s", l->name);
				for (k = 0; k < l->en->nlabel; k++)
					tdat_sb_printf(&args, ", { %ld, \"%s\" "
					    "}", l->en->value ? l->en->value[k] :
					    k, l->en->label[k]);
				tdat_sb_puts(&args, ")");
			} else if (l->t->kind == LT_ARRAY && l->is_char) {
				tdat_sb_puts(sb, "%s");
				tdat_sb_printf(&args, ", REC->%s", l->name);
			} else if (l->t->kind == LT_ARRAY) {
				tdat_sb_puts(sb, "%s");
				tdat_sb_printf(&args, ", __print_array(REC->%s,"
				    " %d, %d)", l->name, l->size / l->elem,
				    l->elem);
			} else if (l->t->kind == LT_FLOAT) {
				tdat_sb_puts(sb, l->elem == 8 ? "0x%llx" :
				    "0x%x");
				tdat_sb_printf(&args, ", REC->%s", l->name);
			} else {
				conv(sb, l);
				tdat_sb_printf(&args, ", REC->%s", l->name);
			}
			break;
		case LF_STR:
			tdat_sb_puts(sb, "%s");
			tdat_sb_printf(&args, ", __get_str(%s)", l->name);
			break;
		case LF_SEQ:
			tdat_sb_puts(sb, "%s");
			tdat_sb_printf(&args, ", __print_array(__get_dynamic_"
			    "array(%s), __get_dynamic_array_len(%s) / %d, %d)",
			    l->name, l->name, l->elem, l->elem);
			break;
		default:
			tdat_sb_puts(sb, "%s");
			tdat_sb_printf(&args, ", __print_hex(__get_dynamic_"
			    "array(%s), __get_dynamic_array_len(%s))", l->name,
			    l->name);
			break;
		}
	}
	tdat_sb_printf(sb, "\"%s\n", args.p ? args.p : "");
	tdat_sb_free(&args);
	/* The fields go between "format:" and "print fmt:". */
	{
		struct tdat_sbuf f;
		char *at = strstr(sb->p, "\n\nprint fmt:");
		size_t pos;

		if (at == NULL)
			return;
		pos = (size_t)(at - sb->p) + 1;
		tdat_sb_init(&f);
		tdat_sb_add(&f, sb->p, pos);
		tdat_sb_putc(&f, '\n');	/* common fields, blank, fields */
		for (i = 0; i < s->nleaf; i++) {
			const struct leaf *l = &s->leaf[i];

			if (l->kind == LF_FIXED && l->t->kind == LT_ARRAY)
				tdat_sb_printf(&f, "\tfield:%s %s[%d];\t"
				    "offset:%d;\tsize:%d;\tsigned:%d;\n",
				    l->is_char ? "char" : tdat_synth_ctype(l->sign,
				    l->elem), l->name, l->size / l->elem,
				    l->off, l->size, l->sign);
			else if (l->kind == LF_FIXED)
				tdat_sb_printf(&f, "\tfield:%s %s;\toffset:%d;"
				    "\tsize:%d;\tsigned:%d;\n", tdat_synth_ctype(l->sign,
				    l->size), l->name, l->off, l->size,
				    l->sign);
			else
				tdat_sb_printf(&f, "\tfield:__data_loc %s[] %s;"
				    "\toffset:%d;\tsize:4;\tsigned:%d;\n",
				    l->kind == LF_STR ? "char" :
				    tdat_synth_ctype(l->sign, l->elem), l->name, l->off,
				    l->kind == LF_STR);
		}
		tdat_sb_add(&f, sb->p + pos, sb->len - pos);
		tdat_sb_free(sb);
		*sb = f;
	}
}

struct synth_ev *
tdat_ltt_synth_new(const struct lt_facility *fac, const struct lt_event *ev,
    uint16_t id, struct tdat_blob *fmt)
{
	struct synth_ev *s = calloc(1, sizeof(*s));
	struct tdat_sbuf sb;
	char name[160];
	const char *colon;
	int cur = COMMON_SIZE;

	if (s == NULL)
		return NULL;
	s->fac = fac;
	s->t = ev->t;
	s->id = id;
	if (ev->t && walk(s, ev->t, "", &cur, 0) < 0) {
		tdat_ltt_synth_free(s);
		return NULL;
	}
	s->fixed_end = cur;
	/* A payload that starts with ftrace's common fields (tdat wrote it)
	 * gives them back in place of the made-up ones. */
	if (s->nleaf >= 4 && strcmp(s->leaf[0].name, "common_type") == 0 &&
	    s->leaf[0].size == 2 && s->leaf[1].size == 1 &&
	    s->leaf[2].size == 1 && s->leaf[3].size == 4 &&
	    s->leaf[0].kind == LF_FIXED && s->leaf[1].kind == LF_FIXED &&
	    s->leaf[2].kind == LF_FIXED && s->leaf[3].kind == LF_FIXED &&
	    strcmp(s->leaf[3].name, "common_pid") == 0) {
		int i;

		s->common = 1;
		s->nleaf -= 4;
		memmove(s->leaf, s->leaf + 4, (size_t)s->nleaf *
		    sizeof(*s->leaf));
		for (i = 0; i < s->nleaf; i++)
			s->leaf[i].off -= COMMON_SIZE;
		s->fixed_end -= COMMON_SIZE;
	}
	colon = strchr(ev->name, ':');
	snprintf(name, sizeof(name), "%s", colon ? colon + 1 : ev->name);
	clean(name);
	tdat_sb_init(&sb);
	format_text(s, name, &sb);
	if (sb.oom) {
		tdat_sb_free(&sb);
		tdat_ltt_synth_free(s);
		return NULL;
	}
	fmt->p = (unsigned char *)sb.p;
	fmt->len = sb.len;
	fmt->off = 0;
	return s;
}

void
tdat_ltt_synth_free(struct synth_ev *s)
{
	if (s == NULL)
		return;
	free(s->leaf);
	free(s);
}

long
tdat_ltt_synth_decode(const struct synth_ev *s, const unsigned char *p,
    size_t len, int big, struct tdat_sbuf *out)
{
	struct { int leaf; size_t at, n; } dyn[MAX_LEAVES];
	size_t pos = 0, k;
	int i, nd = 0;
	long n;

	tdat_sb_reset(out);
	for (k = 0; k < (size_t)s->fixed_end; k++)
		tdat_sb_putc(out, 0);
	if (out->oom)
		return -1;
	if (s->common) {
		if (len < COMMON_SIZE)
			return -1;
		memcpy(out->p, p, COMMON_SIZE);
		pos = COMMON_SIZE;
	}
	tdat_put((unsigned char *)out->p, s->id, 2, big);
	for (i = 0; i < s->nleaf; i++) {
		const struct leaf *l = &s->leaf[i];

		switch (l->kind) {
		case LF_FIXED:
			if ((size_t)l->size > len - pos)
				return -1;
			memcpy(out->p + l->off, p + pos, (size_t)l->size);
			pos += (size_t)l->size;
			break;
		case LF_SEQ:
			if ((size_t)l->t->size > len - pos)
				return -1;
			k = (size_t)tdat_get(p + pos, l->t->size, big);
			pos += (size_t)l->t->size;
			if (k > (len - pos) / (size_t)l->elem)
				return -1;
			dyn[nd].leaf = i;
			dyn[nd].at = pos;
			dyn[nd++].n = k * (size_t)l->elem;
			pos += k * (size_t)l->elem;
			break;
		default:
			n = tdat_ltt_payload_size(s->fac, l->t, p + pos,
			    len - pos,
			    big);
			if (n < 0)
				return -1;
			dyn[nd].leaf = i;
			dyn[nd].at = pos;
			dyn[nd++].n = (size_t)n;
			pos += (size_t)n;
			break;
		}
	}
	for (i = 0; i < nd; i++) {
		size_t at = out->len;

		if (dyn[i].n > 0xffff || at > 0xffff)
			return -1;
		tdat_sb_add(out, (const char *)p + dyn[i].at, dyn[i].n);
		if (out->oom)
			return -1;
		tdat_put((unsigned char *)out->p + s->leaf[dyn[i].leaf].off,
		    (uint32_t)(dyn[i].n << 16) | (uint32_t)at, 4, big);
	}
	while (out->len % 4)
		tdat_sb_putc(out, 0);
	return out->oom ? -1 : (long)pos;
}
