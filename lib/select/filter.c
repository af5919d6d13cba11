/*
 * filter.c: the kernel's event-filter language (Documentation/trace/
 * events.rst, "Event filtering"), as tdat-cat -F takes it:
 *
 *	EVENTS: EXPRESSION
 *	expr  := and ( "||" and )*
 *	and   := unary ( "&&" unary )*
 *	unary := "!" unary | "(" expr ")" | FIELD OP VALUE
 *	OP    := == != < <= > >= & (numbers)  == != ~ (strings; ~ globs)
 *
 * Field names are resolved through the caller's lookup, so the parser
 * knows nothing of event formats.  A syntax or field error carries the
 * byte position of the fault (e->off) and the kernel's reason, for a
 * caret under the expression.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"

#define MAX_DEPTH	64
#define MAX_TERMS	4096

enum { N_AND, N_OR, N_NOT, N_PRED };
enum { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_BAND, OP_GLOB };

struct node {
	int type;
	struct node *l, *r;
	int field, kind, op;
	uint64_t num;
	char *str;
};

struct tdat_filter {
	struct node *root;
};

struct parser {
	const char *s;
	size_t pos;
	int depth, terms;
	tdat_field_lookup lookup;
	void *arg;
	struct tdat_err *e;
};

static struct node *parse_or(struct parser *);

static int
perr(struct parser *p, size_t at, const char *why)
{
	return tdat_fail(p->e, TDAT_EUSAGE, at, "%s", why);
}

static void
free_node(struct node *n)
{
	if (n == NULL)
		return;
	free_node(n->l);
	free_node(n->r);
	free(n->str);
	free(n);
}

static void
skip_space(struct parser *p)
{
	while (isspace((unsigned char)p->s[p->pos]))
		p->pos++;
}

static int
is_ident(int c)
{
	return isalnum(c) || c == '_' || c == '.';
}

/* Does the input continue with tok (after spaces)?  Consumes it if so. */
static int
accept(struct parser *p, const char *tok)
{
	size_t n = strlen(tok);

	skip_space(p);
	if (strncmp(p->s + p->pos, tok, n) != 0)
		return 0;
	p->pos += n;
	return 1;
}

static struct node *
new_node(struct parser *p, int type)
{
	struct node *n;

	if ((n = calloc(1, sizeof(*n))) == NULL) {
		tdat_fail_nooff(p->e, TDAT_ENOMEM, "out of memory");
		return NULL;
	}
	n->type = type;
	n->field = -1;
	return n;
}

/* The operator at p->pos: its code, and its length in *len; -1 if none. */
static int
operator(const char *s, size_t *len)
{
	static const struct { const char *t; int op; } ops[] = {
		{ "==", OP_EQ }, { "!=", OP_NE }, { "<=", OP_LE },
		{ ">=", OP_GE }, { "<", OP_LT }, { ">", OP_GT },
		{ "~", OP_GLOB },
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strncmp(s, ops[i].t, strlen(ops[i].t)) == 0) {
			*len = strlen(ops[i].t);
			return ops[i].op;
		}
	if (s[0] == '&' && s[1] != '&') {
		*len = 1;
		return OP_BAND;
	}
	return -1;
}

/* A value: a quoted string, or a word up to a space, ')' , '&' or '|'. */
static int
parse_value(struct parser *p, char **out, size_t *at)
{
	const char *s = p->s;
	size_t start, n;
	char q;

	skip_space(p);
	*at = p->pos;
	if (s[p->pos] == '"' || s[p->pos] == '\'') {
		q = s[p->pos++];
		start = p->pos;
		while (s[p->pos] && s[p->pos] != q)
			p->pos++;
		if (s[p->pos] != q)
			return perr(p, *at, "Unterminated string");
		n = p->pos++ - start;
	} else {
		start = p->pos;
		while (s[p->pos] && !isspace((unsigned char)s[p->pos]) &&
		    !strchr(")&|", s[p->pos]))
			p->pos++;
		n = p->pos - start;
		if (n == 0)
			return perr(p, *at, "Missing field name and/or value");
	}
	if ((*out = strndup(s + start, n)) == NULL)
		return tdat_fail_nooff(p->e, TDAT_ENOMEM, "out of memory");
	return 0;
}

static int
parse_number(struct parser *p, struct node *n, const char *v, size_t at)
{
	char *end;

	errno = 0;
	if (v[0] == '-') {
		long long x = strtoll(v, &end, 0);

		n->num = (uint64_t)x;
	} else
		n->num = strtoull(v, &end, 0);
	if (errno || *end != '\0' || end == v)
		return perr(p, at, "Illegal integer value");
	return 0;
}

/* FIELD OP VALUE */
static struct node *
parse_pred(struct parser *p)
{
	struct node *n;
	size_t fstart, oplen, vat;
	char name[256], *v = NULL;
	int op, kind;

	skip_space(p);
	fstart = p->pos;
	while (is_ident((unsigned char)p->s[p->pos]))
		p->pos++;
	if (p->pos == fstart) {
		perr(p, fstart, p->s[fstart] ? "Syntax error" :
		    "Missing field name and/or value");
		return NULL;
	}
	if (p->pos - fstart >= sizeof(name)) {
		perr(p, fstart, "Operand too long");
		return NULL;
	}
	memcpy(name, p->s + fstart, p->pos - fstart);
	name[p->pos - fstart] = '\0';
	skip_space(p);
	if ((op = operator(p->s + p->pos, &oplen)) < 0) {
		perr(p, p->pos, p->s[p->pos] ? "Invalid operator" :
		    "Missing field name and/or value");
		return NULL;
	}
	vat = p->pos;
	p->pos += oplen;
	if (++p->terms > MAX_TERMS) {
		perr(p, fstart, "Too many terms in predicate expression");
		return NULL;
	}
	if ((n = new_node(p, N_PRED)) == NULL)
		return NULL;
	n->op = op;
	if ((n->field = p->lookup(p->arg, name, &kind)) < 0) {
		perr(p, fstart, "Field not found");
		goto fail;
	}
	n->kind = kind;
	if (kind == TDAT_FIELD_STR ? !(op == OP_EQ || op == OP_NE ||
	    op == OP_GLOB) : op == OP_GLOB) {
		perr(p, vat, "Illegal operation for field type");
		goto fail;
	}
	if (parse_value(p, &v, &vat) < 0)
		goto fail;
	if (kind == TDAT_FIELD_STR) {
		n->str = v;
		return n;
	}
	if (parse_number(p, n, v, vat) < 0)
		goto fail;
	free(v);
	return n;
fail:
	free(v);
	free_node(n);
	return NULL;
}

static struct node *
parse_unary(struct parser *p)
{
	struct node *n, *c;
	size_t at;

	if (++p->depth > MAX_DEPTH) {
		perr(p, p->pos, "Expression nested too deeply");
		return NULL;
	}
	skip_space(p);
	at = p->pos;
	if (p->s[p->pos] == '!' && p->s[p->pos + 1] != '=') {
		p->pos++;
		if ((c = parse_unary(p)) == NULL)
			return NULL;
		if ((n = new_node(p, N_NOT)) == NULL) {
			free_node(c);
			return NULL;
		}
		n->l = c;
	} else if (accept(p, "(")) {
		if ((n = parse_or(p)) == NULL)
			return NULL;
		if (!accept(p, ")")) {
			free_node(n);
			perr(p, at, "Unbalanced parens");
			return NULL;
		}
	} else
		n = parse_pred(p);
	p->depth--;
	return n;
}

static struct node *
binary(struct parser *p, int type, struct node *l, struct node *r)
{
	struct node *n;

	if (r == NULL || (n = new_node(p, type)) == NULL) {
		free_node(l);
		free_node(r);
		return NULL;
	}
	n->l = l;
	n->r = r;
	return n;
}

static struct node *
parse_and(struct parser *p)
{
	struct node *n;

	if ((n = parse_unary(p)) == NULL)
		return NULL;
	while (n && accept(p, "&&"))
		n = binary(p, N_AND, n, parse_unary(p));
	return n;
}

static struct node *
parse_or(struct parser *p)
{
	struct node *n;

	if ((n = parse_and(p)) == NULL)
		return NULL;
	while (n && accept(p, "||"))
		n = binary(p, N_OR, n, parse_and(p));
	return n;
}

int
tdat_filter_parse(const char *expr, tdat_field_lookup lookup, void *arg,
    struct tdat_filter **out, struct tdat_err *e)
{
	struct parser p = { .s = expr, .lookup = lookup, .arg = arg, .e = e };
	struct node *n;

	*out = NULL;
	skip_space(&p);
	if (expr[p.pos] == '\0')
		return tdat_fail(e, TDAT_EUSAGE, p.pos,
		    "Meaningless filter expression");
	if ((n = parse_or(&p)) == NULL)
		return e->code;
	skip_space(&p);
	if (expr[p.pos] != '\0') {
		free_node(n);
		return tdat_fail(e, TDAT_EUSAGE, p.pos, expr[p.pos] == ')' ?
		    "Unbalanced parens" : "Syntax error");
	}
	if ((*out = calloc(1, sizeof(**out))) == NULL) {
		free_node(n);
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	(*out)->root = n;
	return 0;
}

void
tdat_filter_free(struct tdat_filter *f)
{
	if (f == NULL)
		return;
	free_node(f->root);
	free(f);
}

static int
match_num(const struct node *n, const struct tdat_fval *v)
{
	uint64_t a = v->num, b = n->num;
	int lt, gt;

	if (n->kind == TDAT_FIELD_SIGNED) {
		lt = (int64_t)a < (int64_t)b;
		gt = (int64_t)a > (int64_t)b;
	} else {
		lt = a < b;
		gt = a > b;
	}
	switch (n->op) {
	case OP_EQ: return a == b;
	case OP_NE: return a != b;
	case OP_LT: return lt;
	case OP_LE: return !gt;
	case OP_GT: return gt;
	case OP_GE: return !lt;
	case OP_BAND: return (a & b) != 0;
	}
	return 0;
}

static int
match_str(const struct node *n, const struct tdat_fval *v)
{
	char buf[512];
	size_t len = v->len;

	/* Strings in records are NUL-padded: compare up to the first NUL. */
	if (v->str && memchr(v->str, '\0', len))
		len = strlen(v->str);
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, v->str ? v->str : "", len);
	buf[len] = '\0';
	switch (n->op) {
	case OP_EQ: return strcmp(buf, n->str) == 0;
	case OP_NE: return strcmp(buf, n->str) != 0;
	case OP_GLOB: return fnmatch(n->str, buf, 0) == 0;
	}
	return 0;
}

static int
eval(const struct node *n, tdat_field_get get, void *arg)
{
	struct tdat_fval v;

	switch (n->type) {
	case N_AND:
		return eval(n->l, get, arg) && eval(n->r, get, arg);
	case N_OR:
		return eval(n->l, get, arg) || eval(n->r, get, arg);
	case N_NOT:
		return !eval(n->l, get, arg);
	}
	memset(&v, 0, sizeof(v));
	if (get(arg, n->field, &v) < 0)
		return 0;
	return n->kind == TDAT_FIELD_STR ? match_str(n, &v) : match_num(n, &v);
}

int
tdat_filter_match(const struct tdat_filter *f, tdat_field_get get, void *arg)
{
	return eval(f->root, get, arg);
}

size_t
tdat_filter_split(const char *arg, char **events)
{
	size_t i, colon = 0;
	int found = 0;

	*events = NULL;
	for (i = 0; arg[i] && !strchr("=!<>&~()|\"' \t", arg[i]); i++)
		if (arg[i] == ':') {
			colon = i;
			found = 1;
		}
	if (!found)
		return 0;
	*events = strndup(arg, colon);
	return colon + 1;
}

void
tdat_filter_caret(struct tdat_sbuf *sb, const char *text, size_t pos,
    const char *indent)
{
	size_t i;

	tdat_sb_printf(sb, "%s%s\n%s", indent, text, indent);
	for (i = 0; i < pos && text[i]; i++)
		tdat_sb_putc(sb, text[i] == '\t' ? '\t' : ' ');
	tdat_sb_puts(sb, "^\n");
}
