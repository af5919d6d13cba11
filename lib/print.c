/*
 * print.c: print formats ("print fmt:" of an event format file).
 *
 * A print format is parsed once into an argument list of expression trees
 * and a list of items (literal text, or one conversion with its argument).
 * The grammar, the operator handling and every fallback follow what
 * libtraceevent does, because trace-cmd report is the reference output:
 * an expression it parses oddly is parsed the same odd way here, and a
 * format it rejects makes the event print "[FAILED TO PARSE]" and raw fields.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tdat.h"
#include "event-int.h"

struct pctx {
	struct tdat_event *ev;
	struct ptok *t;
	int failed;
};

static int process_arg(struct pctx *, struct parg *, char **tok);
static int process_arg_token(struct pctx *, struct parg *, char **tok,
    int type);
static int process_op(struct pctx *, struct parg *, char **tok);

/* Helper functions known to the print formats: none without plugins
 * (trace-cmd -N); the plugins register these. */
enum { FN_NONE, FN_JIFFIES_TO_MSECS };

static struct parg *
new_arg(void)
{
	return calloc(1, sizeof(struct parg));
}

static void free_arg(struct parg *);

static void
free_syms(struct flagsym *f)
{
	struct flagsym *n;

	for (; f; f = n) {
		n = f->next;
		free(f->value);
		free(f->str);
		free(f);
	}
}

static void
free_arg_inner(struct parg *a)
{
	free(a->str);
	free(a->delim);
	free_syms(a->syms);
	free_arg(a->left);
	free_arg(a->right);
	free_arg(a->third);
}

static void
free_arg(struct parg *a)
{
	if (a == NULL)
		return;
	free_arg_inner(a);
	free(a);
}

static void
free_list(struct parg *a)
{
	struct parg *n;

	for (; a; a = n) {
		n = a->next;
		free_arg(a);
	}
}

static struct tdat_field *
find_any(struct tdat_event *ev, const char *name)
{
	return tdat_event_field(ev, name);
}

static struct tdat_field *
find_own(struct tdat_event *ev, const char *name)
{
	int i;

	for (i = 0; i < ev->nfields; i++)
		if (strcmp(ev->fields[i].name, name) == 0)
			return &ev->fields[i];
	return NULL;
}

static int
is_item_type(int type)
{
	return type == T_ITEM || type == T_DQUOTE || type == T_SQUOTE;
}

static int
op_prio(const char *op)
{
	if (op[0] && !op[1]) {
		switch (op[0]) {
		case '~': case '!':
			return 4;
		case '*': case '/': case '%':
			return 6;
		case '+': case '-':
			return 7;
		case '<': case '>':
			return 9;
		case '&':
			return 11;
		case '^':
			return 12;
		case '|':
			return 13;
		case '?':
			return 16;
		default:
			return -1;
		}
	}
	if (!strcmp(op, "++") || !strcmp(op, "--"))
		return 3;
	if (!strcmp(op, ">>") || !strcmp(op, "<<"))
		return 8;
	if (!strcmp(op, ">=") || !strcmp(op, "<="))
		return 9;
	if (!strcmp(op, "==") || !strcmp(op, "!="))
		return 10;
	if (!strcmp(op, "&&"))
		return 14;
	if (!strcmp(op, "||"))
		return 15;
	return -1;
}

static int
set_op_prio(struct parg *a)
{
	if (a->left == NULL || a->left->type == PA_NULL)
		a->prio = 0;
	else
		a->prio = op_prio(a->str);
	return a->prio;
}

/* Fold operations on two constants, as libtraceevent does. */
static int
consolidate(int type, struct parg *a)
{
	unsigned long long l, r, v;
	const char *op;

	if (type == T_ERROR)
		return -1;
	if (a->type != PA_OP)
		return 0;
	if (a->left && consolidate(type, a->left) < 0)
		return -1;
	if (a->right && consolidate(type, a->right) < 0)
		return -1;
	if (!a->left || !a->right || a->left->type != PA_ATOM ||
	    a->right->type != PA_ATOM)
		return 0;
	l = strtoull(a->left->str, NULL, 0);
	r = strtoull(a->right->str, NULL, 0);
	op = a->str;
	switch (op[0]) {
	case '>':
		v = op[1] == '>' ? l >> r : op[1] == '=' ? l >= r : l > r;
		break;
	case '<':
		v = op[1] == '<' ? l << r : op[1] == '=' ? l <= r : l < r;
		break;
	case '&':
		v = op[1] == '&' ? l && r : (l & r);
		break;
	case '|':
		v = op[1] == '|' ? l || r : (l | r);
		break;
	case '-': v = l - r; break;
	case '+': v = l + r; break;
	case '*': v = l * r; break;
	case '^': v = l ^ r; break;
	case '/': v = r ? l / r : 0; break;
	case '%': v = r ? l % r : 0; break;
	case '=': v = l == r; break;
	case '!': v = l != r; break;
	default:
		return 0;
	}
	free_arg(a->left);
	free_arg(a->right);
	a->left = a->right = NULL;
	free(a->str);
	a->type = PA_ATOM;
	if (asprintf(&a->str, "%lld", (long long)v) < 0) {
		a->str = NULL;
		return -1;
	}
	return 0;
}

static int
read_item(struct pctx *c, char **tok)
{
	return tdat_tok_item(c->t, tok);
}

static int
read_tok(struct pctx *c, char **tok)
{
	return tdat_tok_read(c->t, tok);
}

static int
fail_tok(char **tok, char *token)
{
	free(token);
	*tok = NULL;
	return T_ERROR;
}

/* REC->field (REC already read). */
static int
process_entry(struct pctx *c, struct parg *a, char **tok)
{
	char *token;
	int type;

	type = read_item(c, &token);
	if (type == T_DELIM && strcmp(token, ")") == 0) {
		*tok = token;
		return T_ITEM;
	}
	if (type != T_OP || strcmp(token, "->") != 0)
		return fail_tok(tok, token);
	free(token);
	type = read_tok(c, &token);
	if (type != T_ITEM)
		return fail_tok(tok, token);
	a->type = PA_FIELD;
	a->str = token;
	a->field = find_any(c->ev, token);
	type = read_tok(c, &token);
	*tok = token;
	return type;
}

static int
process_cond(struct pctx *c, struct parg *top, char **tok)
{
	struct parg *a, *l, *r;
	char *token = NULL;
	int type;

	a = new_arg();
	l = new_arg();
	r = new_arg();
	if (!a || !l || !r) {
		free(a);
		free(l);
		free(r);
		top->right = NULL;
		*tok = NULL;
		return T_ERROR;
	}
	a->type = PA_OP;
	a->left = l;
	a->right = r;
	*tok = NULL;
	type = process_arg(c, l, &token);
	for (;;) {
		if (type == T_ERROR)
			goto fail;
		if (type == T_OP && strcmp(token, ":") != 0) {
			type = process_op(c, l, &token);
			continue;
		}
		break;
	}
	if (type != T_OP || strcmp(token, ":") != 0)
		goto fail;
	a->str = token;
	type = process_arg(c, r, &token);
	top->right = a;
	*tok = token;
	return type;
fail:
	top->right = NULL;
	free(token);
	free_arg(a);
	return T_ERROR;
}

static int
process_array(struct pctx *c, struct parg *top, char **tok)
{
	struct parg *a;
	char *token = NULL;
	int type;

	if ((a = new_arg()) == NULL) {
		*tok = NULL;
		return T_ERROR;
	}
	*tok = NULL;
	type = process_arg(c, a, &token);
	if (type != T_OP || strcmp(token, "]") != 0) {
		free(token);
		free_arg(a);
		return T_ERROR;
	}
	top->right = a;
	free(token);
	type = read_item(c, &token);
	*tok = token;
	return type;
}

static int
is_binop(const char *t)
{
	static const char *ops[] = { ">>", "<<", "&", "|", "&&", "||", "-",
	    "+", "*", "^", "/", "%", "<", ">", "<=", ">=", "==", "!=" };
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(t, ops[i]) == 0)
			return 1;
	return 0;
}

/* Make *a an operator node whose left side is a copy of the old *a. */
static struct parg *
push_left(struct parg *a, char *op)
{
	struct parg *l;

	if ((l = new_arg()) == NULL)
		return NULL;
	*l = *a;
	l->next = NULL;
	memset(a, 0, sizeof(*a));
	a->next = l->next;
	a->type = PA_OP;
	a->str = op;
	a->left = l;
	return l;
}

static int
process_op(struct pctx *c, struct parg *a, char **tok)
{
	struct parg *l, *right = NULL, *saved_next;
	char *token = *tok;
	int type, prio;

	if (a->type == PA_OP && a->left == NULL) {
		/* A unary operator. */
		if (!strchr("~!+-", token[0]) || token[1]) {
			c->failed = 1;
			return fail_tok(tok, NULL);
		}
		if ((l = new_arg()) == NULL)
			return fail_tok(tok, NULL);
		l->type = PA_NULL;
		a->left = l;
		if ((right = new_arg()) == NULL)
			return fail_tok(tok, NULL);
		a->right = right;
		*tok = NULL;
		type = process_arg(c, right, tok);
	} else if (strcmp(token, "?") == 0) {
		saved_next = a->next;
		if (push_left(a, token) == NULL)
			return fail_tok(tok, token);
		a->next = saved_next;
		a->prio = 0;
		type = process_cond(c, a, tok);
	} else if (is_binop(token)) {
		saved_next = a->next;
		if ((l = push_left(a, token)) == NULL)
			return fail_tok(tok, token);
		a->next = saved_next;
		if (set_op_prio(a) == -1) {
			c->failed = 1;
			a->str = NULL;
			return fail_tok(tok, token);
		}
		type = read_item(c, &token);
		*tok = token;
		if (strcmp(a->str, "*") == 0 && type == T_DELIM &&
		    strcmp(token, ")") == 0) {
			char *s;

			/* "(type *)": a pointer cast */
			if (l->type != PA_ATOM)
				return fail_tok(tok, token);
			if (asprintf(&s, "%s *", l->str) < 0)
				return fail_tok(tok, token);
			free(l->str);
			l->str = s;
			free(a->str);
			*a = *l;
			a->next = saved_next;
			free(l);
			return type;
		}
		if ((right = new_arg()) == NULL)
			return fail_tok(tok, token);
		type = process_arg_token(c, right, tok, type);
		if (type == T_ERROR) {
			free_arg(right);
			return T_ERROR;
		}
		if (right->type == PA_OP && op_prio(a->str) <
		    op_prio(right->str)) {
			struct parg tmp;

			/* Rotate by priority, the way libtraceevent does. */
			a->right = right->left;
			tmp = *a;
			*a = *right;
			*right = tmp;
			a->next = right->next;
			right->next = NULL;
			a->left = right;
		} else
			a->right = right;
	} else if (strcmp(token, "[") == 0) {
		saved_next = a->next;
		if (push_left(a, token) == NULL)
			return fail_tok(tok, token);
		a->next = saved_next;
		a->prio = 0;
		type = process_array(c, a, tok);
	} else {
		c->failed = 1;
		return fail_tok(tok, token);
	}
	if (type == T_OP && strcmp(*tok, ":") != 0) {
		prio = op_prio(*tok);
		if (prio < 0)
			return fail_tok(tok, *tok);
		if (prio > a->prio)
			return process_op(c, a, tok);
		if (right == NULL)
			return fail_tok(tok, *tok);
		return process_op(c, right, tok);
	}
	return type;
}

/* A function's arguments up to ',' or ')' with operators allowed. */
static int
arg_delim(struct pctx *c, const char *next, struct parg **out)
{
	struct parg *f;
	char *token;
	int type;

	if ((f = new_arg()) == NULL)
		return -1;
	type = process_arg(c, f, &token);
	if (type == T_OP) {
		type = process_op(c, f, &token);
		if (consolidate(type, f) < 0)
			type = T_ERROR;
		if (type == T_ERROR)
			goto fail;
	}
	if (type != T_DELIM || strcmp(token, next) != 0)
		goto fail;
	*out = f;
	free(token);
	return 0;
fail:
	free(token);
	free_arg(f);
	return -1;
}

static char *arg_eval_str(struct parg *);

static int
num_eval(struct parg *a, long long *v)
{
	long long l = 0, r = 0;
	const char *op;

	switch (a->type) {
	case PA_ATOM:
		*v = strtoll(a->str, NULL, 0);
		return 1;
	case PA_TYPE:
		if (!num_eval(a->left, v))
			return 0;
		return 1;	/* casts are kept as they are here */
	case PA_OP:
		op = a->str;
		if (op[0] == '~') {
			if (!num_eval(a->right, &r))
				return 0;
			*v = ~r;
			return 1;
		}
		if ((op[0] == '-' || op[0] == '+') && a->left->type == PA_NULL)
			l = 0;
		else if (!num_eval(a->left, &l))
			return 0;
		if (!num_eval(a->right, &r))
			return 0;
		switch (op[0]) {
		case '|': *v = op[1] ? l || r : (l | r); return 1;
		case '&': *v = op[1] ? l && r : (l & r); return 1;
		case '<':
			if (!op[1]) *v = l < r;
			else if (op[1] == '<') *v = l << r;
			else if (op[1] == '=') *v = l <= r;
			else return 0;
			return 1;
		case '>':
			if (!op[1]) *v = l > r;
			else if (op[1] == '>') *v = l >> r;
			else if (op[1] == '=') *v = l >= r;
			else return 0;
			return 1;
		case '=':
			if (op[1] != '=')
				return 0;
			*v = l == r;
			return 1;
		case '!':
			if (op[1] != '=')
				return 0;
			*v = l != r;
			return 1;
		case '-': *v = l - r; return 1;
		case '+': *v = l + r; return 1;
		default:
			return 0;
		}
	default:
		return 0;
	}
}

static char *
arg_eval_str(struct parg *a)
{
	static char buf[24];
	long long v;

	switch (a->type) {
	case PA_ATOM:
		return a->str;
	case PA_TYPE:
		return arg_eval_str(a->left);
	case PA_OP:
		if (!num_eval(a, &v))
			return NULL;
		snprintf(buf, sizeof(buf), "%lld", v);
		return buf;
	default:
		return NULL;
	}
}

static long long
eval_flag(const char *s)
{
	static const struct { const char *n; long long v; } tab[] = {
		{ "HI_SOFTIRQ", 0 }, { "TIMER_SOFTIRQ", 1 },
		{ "NET_TX_SOFTIRQ", 2 }, { "NET_RX_SOFTIRQ", 3 },
		{ "BLOCK_SOFTIRQ", 4 }, { "IRQ_POLL_SOFTIRQ", 5 },
		{ "TASKLET_SOFTIRQ", 6 }, { "SCHED_SOFTIRQ", 7 },
		{ "HRTIMER_SOFTIRQ", 8 }, { "RCU_SOFTIRQ", 9 },
		{ "HRTIMER_NORESTART", 0 }, { "HRTIMER_RESTART", 1 },
	};
	size_t i;

	if (isdigit((unsigned char)s[0]))
		return (long long)strtoull(s, NULL, 0);
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strcmp(tab[i].n, s) == 0)
			return tab[i].v;
	return -1;
}

/* "{ value, "str" }, ..." of __print_flags and __print_symbolic. */
static int
process_fields(struct pctx *c, struct flagsym **list, char **tok)
{
	struct parg *a = NULL;
	struct flagsym *f = NULL;
	char *token = *tok, *v;
	int type;

	do {
		free(token);
		type = read_item(c, &token);
		if (type != T_OP || strcmp(token, "{") != 0)
			break;
		if ((a = new_arg()) == NULL)
			goto fail;
		free(token);
		type = process_arg(c, a, &token);
		if (type == T_OP)
			type = process_op(c, a, &token);
		if (type == T_ERROR)
			goto fail;
		if (type != T_DELIM || strcmp(token, ",") != 0)
			goto fail;
		if ((f = calloc(1, sizeof(*f))) == NULL)
			goto fail;
		if ((v = arg_eval_str(a)) == NULL || !(f->value = strdup(v)))
			goto fail;
		free_arg(a);
		if ((a = new_arg()) == NULL)
			goto fail;
		free(token);
		type = process_arg(c, a, &token);
		if (type != T_OP || strcmp(token, "}") != 0)
			goto fail;
		if ((v = arg_eval_str(a)) == NULL || !(f->str = strdup(v)))
			goto fail;
		free_arg(a);
		a = NULL;
		f->fval = eval_flag(f->value);
		*list = f;
		list = &f->next;
		f = NULL;
		free(token);
		type = read_item(c, &token);
	} while (type == T_DELIM && strcmp(token, ",") == 0);
	*tok = token;
	return type;
fail:
	free_syms(f);
	free_arg(a);
	return fail_tok(tok, token);
}

static int
process_field_arg(struct pctx *c, struct parg *a, char **tok)
{
	int type = process_arg(c, a, tok);

	while (type == T_OP)
		type = process_op(c, a, tok);
	return type;
}

static int
process_flags(struct pctx *c, struct parg *a, char **tok, int sym)
{
	struct parg *f;
	char *token = NULL;
	int type;

	a->type = sym ? PA_SYMBOL : PA_FLAGS;
	if ((f = new_arg()) == NULL)
		return fail_tok(tok, NULL);
	type = process_field_arg(c, f, &token);
	if (!sym)
		while (type == T_OP)
			type = process_op(c, f, &token);
	if (type != T_DELIM || strcmp(token, ",") != 0) {
		free_arg(f);
		return fail_tok(tok, token);
	}
	a->left = f;
	if (!sym) {
		free(token);
		type = read_item(c, &token);
		if (is_item_type(type)) {
			a->delim = token;
			type = read_item(c, &token);
		}
		if (type != T_DELIM || strcmp(token, ",") != 0)
			return fail_tok(tok, token);
	}
	type = process_fields(c, &a->syms, &token);
	if (type != T_DELIM || strcmp(token, ")") != 0)
		return fail_tok(tok, token);
	free(token);
	return read_item(c, tok);
}

static int
process_hex(struct pctx *c, struct parg *a, char **tok, int kind)
{
	a->type = kind;
	*tok = NULL;
	if (arg_delim(c, ",", &a->left) < 0)
		return T_ERROR;
	if (arg_delim(c, ")", &a->right) < 0)
		return T_ERROR;
	return read_item(c, tok);
}

static int
process_int_array(struct pctx *c, struct parg *a, char **tok)
{
	a->type = PA_INT_ARRAY;
	*tok = NULL;
	if (arg_delim(c, ",", &a->left) < 0 ||
	    arg_delim(c, ",", &a->right) < 0 ||
	    arg_delim(c, ")", &a->third) < 0)
		return T_ERROR;
	return read_item(c, tok);
}

static int
process_dynamic_array(struct pctx *c, struct parg *a, char **tok)
{
	char *token;
	int type;

	a->type = PA_DYNARRAY;
	type = read_tok(c, &token);
	if (type != T_ITEM)
		return fail_tok(tok, token);
	if ((a->field = find_own(c->ev, token)) == NULL)
		return fail_tok(tok, token);
	a->str = token;
	if (tdat_tok_expect(c->t, 1, T_DELIM, ")") < 0) {
		*tok = NULL;
		return T_ERROR;
	}
	type = read_item(c, &token);
	*tok = token;
	if (type != T_OP || strcmp(token, "[") != 0)
		return type;
	/* libtraceevent rejects "__get_dynamic_array(x)[i]". */
	free(token);
	*tok = NULL;
	return T_ERROR;
}

static int
process_dynamic_array_len(struct pctx *c, struct parg *a, char **tok)
{
	char *token;
	int type;

	type = read_tok(c, &token);
	if (type != T_ITEM)
		return fail_tok(tok, token);
	a->type = PA_DYNARRAY_LEN;
	if ((a->field = find_own(c->ev, token)) == NULL)
		return fail_tok(tok, token);
	a->str = token;
	if (tdat_tok_expect(c->t, 1, T_DELIM, ")") < 0) {
		*tok = NULL;
		return T_ERROR;
	}
	type = read_tok(c, &token);
	*tok = token;
	return type;
}

/* __get_str(x), __get_bitmask(x), __get_cpumask(x) */
static int
process_named(struct pctx *c, struct parg *a, char **tok, int kind)
{
	char *token;
	int type;

	type = read_tok(c, &token);
	if (type != T_ITEM)
		return fail_tok(tok, token);
	a->type = kind;
	a->str = token;
	if (tdat_tok_expect(c->t, 1, T_DELIM, ")") < 0) {
		*tok = NULL;
		return T_ERROR;
	}
	type = read_tok(c, &token);
	*tok = token;
	return type;
}

static int
process_builtin_expect(struct pctx *c, struct parg *a, char **tok)
{
	char *token = NULL;
	int type;

	type = process_arg(c, a, &token);
	if (type != T_DELIM || token[0] != ',')
		return fail_tok(tok, token);
	free(token);
	if (tdat_tok_expect(c->t, 1, T_ITEM, NULL) < 0 ||
	    tdat_tok_expect(c->t, 1, T_DELIM, ")") < 0) {
		*tok = NULL;
		return T_ERROR;
	}
	return read_item(c, tok);
}

static int
process_sizeof(struct pctx *c, struct parg *a, char **tok)
{
	struct tdat_field *f;
	char *token = NULL;
	const char *val = NULL;
	char num[16];
	int type, paren = 0;

	type = read_item(c, &token);
	a->type = PA_ATOM;
	if (token && strcmp(token, "unsigned") == 0) {
		free(token);
		type = read_item(c, &token);
		if (type == T_ERROR)
			return fail_tok(tok, token);
		if (type != T_ITEM)
			paren = 1;
	}
	if (token == NULL)
		return fail_tok(tok, token);
	if (paren || strcmp(token, "int") == 0)
		val = "4";
	else if (strcmp(token, "long") == 0) {
		free(token);
		type = read_item(c, &token);
		if (token && strcmp(token, "long") == 0)
			val = "8";
		else {
			val = c->ev->set && c->ev->set->lsize == 4 ? "4" : "8";
			paren = 1;
		}
	} else if (!strcmp(token, "__u64") || !strcmp(token, "u64") ||
	    !strcmp(token, "__s64") || !strcmp(token, "s64"))
		val = "8";
	else if (!strcmp(token, "__u32") || !strcmp(token, "u32") ||
	    !strcmp(token, "__s32") || !strcmp(token, "s32"))
		val = "4";
	else if (!strcmp(token, "__u16") || !strcmp(token, "u16") ||
	    !strcmp(token, "__s16") || !strcmp(token, "s16"))
		val = "2";
	else if (!strcmp(token, "__u8") || !strcmp(token, "u8") ||
	    !strcmp(token, "__8") || !strcmp(token, "s8"))
		val = "1";
	else if (strcmp(token, "REC") == 0) {
		free(token);
		type = read_item(c, &token);
		if (type != T_OP || strcmp(token, "->") != 0)
			return fail_tok(tok, token);
		free(token);
		if (read_tok(c, &token) != T_ITEM)
			return fail_tok(tok, token);
		f = find_any(c->ev, token);
		if (!f || (f->flags & TDAT_FLD_ARRAY))
			return fail_tok(tok, token);
		snprintf(num, sizeof(num), "%d", f->size);
		val = num;
	} else
		return fail_tok(tok, token);
	if ((a->str = strdup(val)) == NULL)
		return fail_tok(tok, token);
	if (!paren) {
		free(token);
		type = read_item(c, &token);
	}
	if (type != T_DELIM || strcmp(token, ")") != 0)
		return fail_tok(tok, token);
	free(token);
	return read_item(c, tok);
}

static int
process_function(struct pctx *c, struct parg *a, char *name, char **tok)
{
	int r;

	*tok = NULL;
	if (!strcmp(name, "__print_flags"))
		r = process_flags(c, a, tok, 0);
	else if (!strcmp(name, "__print_symbolic"))
		r = process_flags(c, a, tok, 1);
	else if (!strcmp(name, "__print_hex"))
		r = process_hex(c, a, tok, PA_HEX);
	else if (!strcmp(name, "__print_hex_str"))
		r = process_hex(c, a, tok, PA_HEX_STR);
	else if (!strcmp(name, "__print_array"))
		r = process_int_array(c, a, tok);
	else if (!strcmp(name, "__get_str") || !strcmp(name, "__get_rel_str"))
		r = process_named(c, a, tok, PA_STRING);
	else if (!strcmp(name, "__get_bitmask") ||
	    !strcmp(name, "__get_rel_bitmask"))
		r = process_named(c, a, tok, PA_BITMASK);
	else if (!strcmp(name, "__get_cpumask") ||
	    !strcmp(name, "__get_rel_cpumask"))
		r = process_named(c, a, tok, PA_CPUMASK);
	else if (!strcmp(name, "__get_dynamic_array") ||
	    !strcmp(name, "__get_rel_dynamic_array") ||
	    !strcmp(name, "__get_sockaddr") ||
	    !strcmp(name, "__get_sockaddr_rel"))
		r = process_dynamic_array(c, a, tok);
	else if (!strcmp(name, "__get_dynamic_array_len") ||
	    !strcmp(name, "__get_rel_dynamic_array_len"))
		r = process_dynamic_array_len(c, a, tok);
	else if (!strcmp(name, "__builtin_expect"))
		r = process_builtin_expect(c, a, tok);
	else if (!strcmp(name, "sizeof"))
		r = process_sizeof(c, a, tok);
	else {
		/* Not known to libtraceevent without plugins. */
		r = T_ERROR;
	}
	free(name);
	return r;
}

/* "(...)": a parenthesized expression or a cast. */
static int
process_paren(struct pctx *c, struct parg *a, char **tok)
{
	struct parg *item;
	char *token;
	int type;

	type = process_arg(c, a, &token);
	if (type == T_ERROR)
		return fail_tok(tok, token);
	if (type == T_OP)
		type = process_op(c, a, &token);
	if (type == T_ERROR)
		return fail_tok(tok, token);
	if (type == T_ITEM && token && strcmp(token, ")") == 0) {
		free(token);
		return process_entry(c, a, tok);
	}
	if (type != T_DELIM || strcmp(token, ")") != 0)
		return fail_tok(tok, token);
	free(token);
	type = read_item(c, &token);
	if (is_item_type(type) || (type == T_DELIM && strcmp(token, "(") ==
	    0)) {
		if (a->type != PA_ATOM)
			return fail_tok(tok, token);
		if ((item = new_arg()) == NULL)
			return fail_tok(tok, token);
		a->type = PA_TYPE;
		a->left = item;
		type = process_arg_token(c, item, &token, type);
	}
	*tok = token;
	return type;
}

static int
process_arg_token(struct pctx *c, struct parg *a, char **tok, int type)
{
	char *token = *tok, *atom, *s;

	switch (type) {
	case T_ITEM:
		if (strcmp(token, "REC") == 0) {
			free(token);
			type = process_entry(c, a, &token);
			break;
		}
		atom = token;
		type = read_item(c, &token);
		if (type == T_DELIM && strcmp(token, "(") == 0) {
			free(token);
			type = process_function(c, a, atom, &token);
			break;
		}
		while (type == T_ITEM) {
			if (asprintf(&s, "%s %s", atom, token) < 0) {
				free(atom);
				return fail_tok(tok, token);
			}
			free(atom);
			atom = s;
			free(token);
			type = read_item(c, &token);
		}
		a->type = PA_ATOM;
		a->str = atom;
		break;
	case T_SQUOTE:
		a->type = PA_ATOM;
		if (asprintf(&a->str, "%d", token[0]) < 0) {
			a->str = NULL;
			return fail_tok(tok, token);
		}
		free(token);
		type = read_item(c, &token);
		break;
	case T_DQUOTE:
		a->type = PA_ATOM;
		a->str = token;
		type = read_item(c, &token);
		break;
	case T_DELIM:
		if (strcmp(token, "(") == 0) {
			free(token);
			type = process_paren(c, a, &token);
			break;
		}
		/* fall through */
	case T_OP:
		a->type = PA_OP;
		a->str = token;
		a->left = NULL;
		type = process_op(c, a, &token);
		if (type == T_ERROR)
			a->str = NULL;
		break;
	default:
		return fail_tok(tok, token);
	}
	*tok = token;
	return type;
}

static int
process_arg(struct pctx *c, struct parg *a, char **tok)
{
	char *token;
	int type;

	type = read_tok(c, &token);
	*tok = token;
	return process_arg_token(c, a, tok, type);
}

static int
read_print_args(struct pctx *c, struct parg **list)
{
	struct parg *a;
	char *token = NULL;
	int type = T_ERROR, n = 0;

	do {
		if (type == T_NEWLINE) {
			type = read_item(c, &token);
			free(token);
			token = NULL;
			continue;
		}
		if ((a = new_arg()) == NULL)
			return -1;
		type = process_arg(c, a, &token);
		if (type == T_ERROR) {
			free(token);
			free_arg(a);
			return -1;
		}
		*list = a;
		n++;
		if (type == T_OP) {
			type = process_op(c, a, &token);
			free(token);
			token = NULL;
			if (consolidate(type, a) < 0)
				type = T_ERROR;
			if (type == T_ERROR) {
				*list = NULL;
				free_arg(a);
				return -1;
			}
			list = &a->next;
			continue;
		}
		if (type == T_DELIM && strcmp(token, ",") == 0) {
			free(token);
			token = NULL;
			list = &a->next;
			continue;
		}
		break;
	} while (type != T_NONE);
	free(token);
	return n;
}

/* ------------------------------------------------------------------ */
/* The item list of a print format. */

/* A conversion printf need not do: '%', length letters, then d i u x. */
static int
fast_kind(const char *f)
{
	f++;
	while (*f == 'h' || *f == 'l' || *f == 'L' || *f == 'z' || *f == 'Z')
		f++;
	if (f[1] != '\0')
		return 0;
	switch (*f) {
	case 'd': case 'i':
		return 'd';
	case 'u':
		return 'u';
	case 'x':
		return 'x';
	}
	return 0;
}

static int
add_item(struct tdat_print *p, int type, const char *fmt, size_t n,
    struct parg *arg, struct parg *len_arg, int ls)
{
	struct pitem *v;

	if (p->n == p->cap) {
		int cap = p->cap ? p->cap * 2 : 8;

		if ((v = realloc(p->it, cap * sizeof(*v))) == NULL)
			return -1;
		p->it = v;
		p->cap = cap;
	}
	v = &p->it[p->n];
	if ((v->format = strndup(fmt, n)) == NULL)
		return -1;
	v->type = type;
	v->arg = arg;
	v->len_arg = len_arg;
	v->ls = ls;
	v->fast = type == PP_DIGIT && !len_arg ? fast_kind(v->format) : 0;
	p->n++;
	return 0;
}

/* Characters of a %p extension that belong to the conversion. */
static int
pointer_ext(const char *f)
{
	int ret = 0, idx, loop;

	switch (*f) {
	case 'F': case 'S': case 'f': case 's':
		return 1;
	case 'M': case 'm':
		return (f[1] == 'R' || f[1] == 'F') ? 2 : 1;
	case 'I': case 'i':
		idx = 2;
		loop = 1;
		switch (f[1]) {
		case 'S':
			while (loop) {
				switch (f[idx]) {
				case 'p': case 'f': case 's':
					ret++;
					idx++;
					break;
				default:
					loop = 0;
				}
			}
			/* fall through */
		case '4':
			switch (f[idx]) {
			case 'h': case 'n': case 'l': case 'b':
				ret++;
				idx++;
				break;
			}
			if (f[1] == '4') {
				ret++;
				break;
			}
			/* fall through */
		case '6':
			if (f[idx] == 'c')
				ret++;
			ret++;
			break;
		}
		return ret + 1;
	case 'U':
		switch (f[1]) {
		case 'L': case 'l': case 'B': case 'b':
			ret++;
		}
		return ret + 1;
	case 'h':
		switch (f[1]) {
		case 'C': case 'D': case 'N':
			ret++;
		}
		return ret + 1;
	default:
		return 0;
	}
}

/* One conversion at f (f[0] == '%'); returns the characters used. */
static int
parse_conv(struct tdat_print *p, int *failed, const char *f,
    struct parg **arg)
{
	struct parg *len_arg = NULL;
	const char *start = f;
	int ret = 1, ls = 0, res, type;
	size_t len;
	char tmp[8];

	for (f++; *f; f++, ret++) {
		switch (*f) {
		case '#': case '.': case '-': case '+':
		case '0': case '1': case '2': case '3': case '4':
		case '5': case '6': case '7': case '8': case '9':
			continue;
		case 'h': ls--; continue;
		case 'l': ls++; continue;
		case 'L': ls = 2; continue;
		case 'z': case 'Z': ls = 1; continue;
		case '*':
			if (*arg == NULL || len_arg) {
				*failed = 1;
				return ret;
			}
			len_arg = *arg;
			*arg = (*arg)->next;
			continue;
		case 'p':
			if (*arg == NULL) {
				*failed = 1;
				return ret;
			}
			res = pointer_ext(f + 1);
			f += res;
			ret += res;
			type = PP_POINTER;
			break;
		case 'c': case 'd': case 'u': case 'i': case 'x': case 'X':
		case 'o':
			if (*arg == NULL) {
				*failed = 1;
				return ret;
			}
			if (ls < -2 || ls > 2)
				*failed = 1;
			type = PP_DIGIT;
			break;
		case 's':
			if (*arg == NULL) {
				*failed = 1;
				return ret;
			}
			type = PP_STR;
			ls = 0;
			break;
		default:
			snprintf(tmp, sizeof(tmp), ">%c<", *f);
			add_item(p, PP_STRING, tmp, strlen(tmp), NULL, NULL, 0);
			return ret + 1;
		}
		len = (size_t)(f + 1 - start);
		if (len > 31) {
			*failed = 1;
			len = 31;
		}
		add_item(p, type, start, len, *arg, len_arg, ls);
		*arg = (*arg)->next;
		return ret + 1;
	}
	return ret;
}

/* Literal text up to the next conversion, with C escapes resolved. */
static int
parse_literal(struct tdat_print *p, const char *f)
{
	struct tdat_sbuf b;
	int ret = 0;

	tdat_sb_init(&b);
	for (; *f; f++, ret++) {
		if (*f == '\\') {
			f++;
			ret++;
			switch (*f) {
			case 'n': tdat_sb_putc(&b, '\n'); break;
			case 't': tdat_sb_putc(&b, '\t'); break;
			case 'r': tdat_sb_putc(&b, '\r'); break;
			case '\\': tdat_sb_putc(&b, '\\'); break;
			case '\0': f--; ret--; break;
			default: tdat_sb_putc(&b, *f); break;
			}
		} else if (*f == '%') {
			if (f[1] != '%')
				break;
			tdat_sb_putc(&b, '%');
			f++;
			ret++;
		} else
			tdat_sb_putc(&b, *f);
	}
	add_item(p, PP_STRING, b.p ? b.p : "", b.len, NULL, NULL, 0);
	tdat_sb_free(&b);
	return ret;
}

static void
parse_items(struct tdat_print *p, int *failed, const char *f,
    struct parg *args)
{
	int len = (int)strlen(f), ret;

	while (*f) {
		if (*f == '%' && f[1] != '%')
			ret = parse_conv(p, failed, f, &args);
		else
			ret = parse_literal(p, f);
		len -= ret;
		if (len > 0)
			f += ret;
		else
			break;
	}
}

void
tdat_print_free(struct tdat_print *p)
{
	int i;

	if (p == NULL)
		return;
	for (i = 0; i < p->n; i++)
		free(p->it[i].format);
	free(p->it);
	free_list(p->args);
	free(p);
}

int
tdat_print_compile(struct tdat_event *ev, struct ptok *t)
{
	struct pctx c = { ev, t, 0 };
	struct tdat_print *p;
	char *fmt, *token, *cat;
	int type, n, i;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return -1;
	ev->print = p;
	if (tdat_tok_expect(t, 0, T_ITEM, "print") < 0 ||
	    tdat_tok_expect(t, 1, T_ITEM, "fmt") < 0 ||
	    tdat_tok_expect(t, 1, T_OP, ":") < 0)
		return -1;
	if (tdat_tok_read(t, &fmt) != T_DQUOTE) {
		free(fmt);
		return -1;
	}
	for (;;) {
		type = tdat_tok_item(t, &token);
		if (type != T_DQUOTE)
			break;
		if (asprintf(&cat, "%s%s", fmt, token) < 0) {
			free(token);
			free(fmt);
			return -1;
		}
		free(fmt);
		free(token);
		fmt = cat;
	}
	ev->fmt = fmt;
	n = 0;
	if (type != T_NONE) {
		if (type != T_DELIM || strcmp(token, ",") != 0) {
			free(token);
			return -1;
		}
		free(token);
		if ((n = read_print_args(&c, &p->args)) < 0)
			return -1;
	}
	if (c.failed)
		return -1;
	if (n == 0 && (ev->flags & TDAT_EV_FTRACE)) {
		struct parg **l = &p->args;

		/* Old ftrace formats had no arguments: use every field. */
		for (i = 0; i < ev->nfields; i++) {
			struct parg *a = new_arg();

			if (a == NULL ||
			    (a->str = strdup(ev->fields[i].name)) == NULL) {
				free(a);
				return -1;
			}
			a->type = PA_FIELD;
			a->field = &ev->fields[i];
			*l = a;
			l = &a->next;
		}
	}
	if (!(ev->flags & TDAT_EV_BPRINT)) {
		parse_items(p, &c.failed, fmt, p->args);
		if (c.failed)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Evaluation. */

struct rec {
	const struct tdat_event *ev;
	const struct tdat_events *set;
	const unsigned char *data;
	uint32_t size;
};

unsigned long long
tdat_read_num(const struct tdat_events *s, const void *p, int n)
{
	int swap = (s && s->big) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	uint16_t b;
	uint32_t c;
	uint64_t d;

	switch (n) {
	case 1:
		return *(const unsigned char *)p;
	case 2:
		memcpy(&b, p, 2);
		return swap ? __builtin_bswap16(b) : b;
	case 4:
		memcpy(&c, p, 4);
		return swap ? __builtin_bswap32(c) : c;
	case 8:
		memcpy(&d, p, 8);
		return swap ? __builtin_bswap64(d) : d;
	default:
		return 0;
	}
}

/* A value read in host order, as libtraceevent reads some. */
static unsigned long long
host_read(const void *p, int n)
{
	uint8_t a;
	uint16_t b;
	uint32_t c;
	uint64_t d;

	switch (n) {
	case 1: memcpy(&a, p, 1); return a;
	case 2: memcpy(&b, p, 2); return b;
	case 4: memcpy(&c, p, 4); return c;
	case 8: memcpy(&d, p, 8); return d;
	}
	return 0;
}

static void
dyn_offset(const struct rec *r, const struct tdat_field *f, unsigned *off,
    unsigned *len)
{
	unsigned long long v;
	unsigned o, l;

	if (f == NULL || (uint32_t)f->offset + f->size > r->size) {
		*off = 0;
		*len = 0;
		return;
	}
	v = tdat_read_num(r->set, r->data + f->offset, f->size);
	o = (unsigned)(v & 0xffff);
	if (f->size == 2)
		l = r->size - o;
	else
		l = (unsigned)((v >> 16) & 0xffff);
	*off = o > r->size ? 0 : o;
	*len = o + l > r->size ? 0 : l;
	if (f->flags & TDAT_FLD_RELATIVE)
		*off += f->offset + f->size;
}

static unsigned long long
eval_type_str(unsigned long long v, const char *type, int pointer)
{
	size_t len = strlen(type);
	char ref[128];

	if (len < 2)
		return v;
	if (pointer) {
		if (type[len - 1] != '*' || len - 1 > sizeof(ref))
			return v;
		memcpy(ref, type, len - 2);
		ref[len - 2] = '\0';
		return eval_type_str(v, ref, 0);
	}
	if (type[len - 1] == '*' || strncmp(type, "struct", 6) == 0)
		return v;
	if (!strcmp(type, "u8"))
		return v & 0xff;
	if (!strcmp(type, "u16"))
		return v & 0xffff;
	if (!strcmp(type, "u32"))
		return v & 0xffffffff;
	if (!strcmp(type, "u64") || !strcmp(type, "s64"))
		return v;
	if (!strcmp(type, "s8"))
		return (unsigned long long)(signed char)v & 0xff;
	if (!strcmp(type, "s16"))
		return (unsigned long long)(short)v & 0xffff;
	if (!strcmp(type, "s32"))
		return (unsigned long long)(int)v & 0xffffffff;
	if (!strncmp(type, "unsigned ", 9))
		type += 9;
	if (!strcmp(type, "char"))
		return v & 0xff;
	if (!strcmp(type, "short"))
		return v & 0xffff;
	if (!strcmp(type, "int"))
		return v & 0xffffffff;
	return v;
}

static unsigned long long
atom_value(const struct rec *r, struct parg *a)
{
	unsigned long long v;
	size_t i;

	if (a->num_done)
		return a->num;
	v = strtoull(a->str, NULL, 0);
	if (v == 0 && !isdigit((unsigned char)a->str[0]) && r->set) {
		/* A symbol name used as a number. */
		for (i = 0; i < r->set->nsym; i++)
			if (strcmp(r->set->sym[i].name, a->str) == 0) {
				v = r->set->sym[i].addr;
				break;
			}
	}
	a->num = v;
	a->num_done = 1;
	return v;
}

static unsigned long long eval_num(const struct rec *, struct parg *);
static unsigned long long call_func(const struct rec *, struct parg *,
    struct tdat_sbuf *);

static unsigned long long
eval_index(const struct rec *r, struct parg *a)
{
	struct parg *l = a->left, *typearg = NULL;
	unsigned long long right, v;
	unsigned off, len;
	int fsize;

	right = eval_num(r, a->right);
	while (l->type == PA_TYPE) {
		if (!typearg)
			typearg = l;
		l = l->left;
	}
	fsize = r->set ? r->set->lsize : 8;
	if (l->type == PA_DYNARRAY) {
		dyn_offset(r, l->field, &off, &len);
		off += (unsigned)right;
		if (l->field->elemsize)
			fsize = l->field->elemsize;
	} else if (l->type == PA_FIELD && l->field) {
		fsize = l->field->elemsize;
		off = (unsigned)(l->field->offset + right * l->field->elemsize);
	} else
		return 0;
	if ((uint64_t)off + fsize > r->size)
		return 0;
	v = tdat_read_num(r->set, r->data + off, fsize);
	if (typearg)
		v = eval_type_str(v, typearg->str, 1);
	return v;
}

static unsigned long long
eval_op(const struct rec *r, struct parg *a)
{
	unsigned long long l, rt;
	const char *op = a->str;

	if (op[0] == '[' && !op[1])
		return eval_index(r, a);
	if (op[0] == '?' && !op[1]) {
		l = eval_num(r, a->left);
		if (a->right == NULL)
			return 0;
		return eval_num(r, l ? a->right->left : a->right->right);
	}
	l = eval_num(r, a->left);
	rt = eval_num(r, a->right);
	switch (op[0]) {
	case '!':
		if (!op[1])
			return !rt;
		return op[1] == '=' ? l != rt : 0;
	case '~':
		return ~rt;
	case '|':
		return op[1] ? l || rt : (l | rt);
	case '&':
		return op[1] ? l && rt : (l & rt);
	case '<':
		if (!op[1])
			return l < rt;
		if (op[1] == '<')
			return l << rt;
		return op[1] == '=' ? l <= rt : 0;
	case '>':
		if (!op[1])
			return l > rt;
		if (op[1] == '>')
			return l >> rt;
		return op[1] == '=' ? l >= rt : 0;
	case '=':
		return op[1] == '=' ? l == rt : 0;
	case '-':
		return l - rt;
	case '+':
		return l + rt;
	case '/':
		return rt ? l / rt : 0;
	case '%':
		return rt ? l % rt : 0;
	case '*':
		return l * rt;
	default:
		return 0;
	}
}

static unsigned long long
eval_num(const struct rec *r, struct parg *a)
{
	unsigned off, len;

	if (a == NULL)
		return 0;
	switch (a->type) {
	case PA_ATOM:
		return atom_value(r, a);
	case PA_FIELD:
		if (!a->field || (uint32_t)a->field->offset + a->field->size >
		    r->size)
			return 0;
		return tdat_read_num(r->set, r->data + a->field->offset,
		    a->field->size);
	case PA_TYPE:
		return eval_type_str(eval_num(r, a->left), a->str, 0);
	case PA_FUNC:
		return call_func(r, a, NULL);
	case PA_OP:
		return eval_op(r, a);
	case PA_DYNARRAY_LEN:
		dyn_offset(r, a->field, &off, &len);
		return len;
	case PA_DYNARRAY:
		/* libtraceevent yields a host pointer here; nothing stable. */
		dyn_offset(r, a->field, &off, &len);
		return off;
	default:
		return 0;
	}
}

static unsigned long long
call_func(const struct rec *r, struct parg *a, struct tdat_sbuf *out)
{
	unsigned long long v = eval_num(r, a->left);

	switch (a->func) {
	case FN_JIFFIES_TO_MSECS:
		if (out)
			tdat_sb_printf(out, "%llu", v);
		return v;
	}
	return 0;
}

/* printf of one conversion with an optional '*' length. */
static void
put_str(struct tdat_sbuf *out, const char *fmt, int len_arg, const char *s)
{
	if (fmt[0] == '%' && fmt[1] == 's' && !fmt[2]) {
		sb_add(out, s, strlen(s));
		return;
	}
	if (len_arg >= 0)
		tdat_sb_printf(out, fmt, len_arg, s);
	else
		tdat_sb_printf(out, fmt, s);
}

static void
put_bitmask(const struct rec *r, struct tdat_sbuf *out, const char *fmt,
    int len_arg, const unsigned char *data, int size)
{
	int nbits = size * 8, n = (nbits + 3) / 4, len = 0, i, idx;
	char *str;

	n += (nbits - 1) / 32;
	if (n < 0)
		n = 0;
	if ((str = malloc(n + 1)) == NULL)
		return;
	str[n] = '\0';
	for (i = n - 2; i >= 0; i -= 2) {
		char b[3];

		idx = r->set && r->set->big ? size - (len + 1) : len;
		snprintf(b, sizeof(b), "%02x", data[idx]);
		memcpy(str + i, b, 2);
		len++;
		if (!(len & 3) && i > 0) {
			i--;
			str[i] = ',';
		}
	}
	put_str(out, fmt, len_arg, str);
	free(str);
}

static int
mask_bit(const struct rec *r, const unsigned char *data, int size, int bit)
{
	int i = bit / 8;
	int index = r->set && r->set->big ? size - (i + 1) : i;

	return data[index] >> (bit % 8) & 1;
}

static void
put_cpumask(const struct rec *r, struct tdat_sbuf *out, const char *fmt,
    int len_arg, const unsigned char *data, int size)
{
	struct tdat_sbuf b;
	int first = 1, lo, hi, bit = 0, nbits = size * 8;

	tdat_sb_init(&b);
	while (bit < nbits) {
		if (!mask_bit(r, data, size, bit)) {
			bit++;
			continue;
		}
		lo = bit;
		for (hi = bit; hi < nbits && mask_bit(r, data, size, hi); hi++)
			;
		if (!first)
			tdat_sb_putc(&b, ',');
		first = 0;
		if (hi - 1 > lo)
			tdat_sb_printf(&b, "%d-%d", lo, hi - 1);
		else
			tdat_sb_printf(&b, "%d", lo);
		bit = hi;
	}
	put_str(out, fmt, len_arg, b.p ? b.p : "");
	tdat_sb_free(&b);
}

static void print_str_arg(const struct rec *, struct tdat_sbuf *,
    const char *fmt, int len_arg, struct parg *);

static const unsigned char *
array_base(const struct rec *r, struct parg *f, unsigned *avail)
{
	unsigned off, len;

	if (f->type == PA_DYNARRAY) {
		dyn_offset(r, f->field, &off, &len);
	} else if (f->type == PA_FIELD && f->field) {
		off = f->field->offset;
	} else
		return NULL;
	if (off > r->size)
		return NULL;
	*avail = r->size - off;
	return r->data + off;
}

static void
print_flags(const struct rec *r, struct tdat_sbuf *out, const char *fmt,
    int len_arg, struct parg *a)
{
	long long v = (long long)eval_num(r, a->left);
	struct flagsym *f;
	int printed = 0;

	for (f = a->syms; f; f = f->next) {
		if (!v && f->fval < 0) {
			put_str(out, fmt, len_arg, f->str);
			break;
		}
		if (f->fval > 0 && (v & f->fval) == f->fval) {
			if (printed && a->delim)
				tdat_sb_puts(out, a->delim);
			put_str(out, fmt, len_arg, f->str);
			printed = 1;
			v &= ~f->fval;
		}
	}
	if (v) {
		if (printed && a->delim)
			tdat_sb_puts(out, a->delim);
		tdat_sb_printf(out, "0x%llx", (unsigned long long)v);
	}
}

static void
print_symbol(const struct rec *r, struct tdat_sbuf *out, const char *fmt,
    int len_arg, struct parg *a)
{
	long long v = (long long)eval_num(r, a->left);
	struct flagsym *f;

	for (f = a->syms; f; f = f->next)
		if (v == f->fval) {
			put_str(out, fmt, len_arg, f->str);
			return;
		}
	tdat_sb_printf(out, "0x%llx", (unsigned long long)v);
}

static void
print_hex(const struct rec *r, struct tdat_sbuf *out, struct parg *a)
{
	const unsigned char *p;
	unsigned avail = 0, i, n;

	if ((p = array_base(r, a->left, &avail)) == NULL)
		return;
	n = (unsigned)eval_num(r, a->right);
	for (i = 0; i < n && i < avail; i++) {
		if (i && a->type == PA_HEX)
			tdat_sb_putc(out, ' ');
		tdat_sb_printf(out, "%02x", p[i]);
	}
}

static void
print_int_array(const struct rec *r, struct tdat_sbuf *out, struct parg *a)
{
	const unsigned char *p;
	unsigned avail = 0, i, n, el;

	if ((p = array_base(r, a->left, &avail)) == NULL)
		return;
	n = (unsigned)eval_num(r, a->right);
	el = (unsigned)eval_num(r, a->third);
	tdat_sb_putc(out, '{');
	for (i = 0; i < n; i++) {
		unsigned sz = el == 1 || el == 2 || el == 4 || el == 8 ? el : 1;

		if (i)
			tdat_sb_putc(out, ',');
		if (sz > avail)
			break;
		if (el == 1 || el == 2 || el == 4 || el == 8)
			tdat_sb_printf(out, "0x%llx", host_read(p, el));
		else
			tdat_sb_printf(out, "BAD SIZE:%d 0x%x", (int)el, p[0]);
		p += sz;
		avail -= sz;
	}
	tdat_sb_putc(out, '}');
}

static void
print_field_str(const struct rec *r, struct tdat_sbuf *out, const char *fmt,
    int len_arg, const struct tdat_field *f)
{
	unsigned long long addr;
	const char *pk;
	int len;
	char *s;

	len = f->size ? f->size : (int)r->size - f->offset;
	if (!(f->flags & TDAT_FLD_ARRAY) && r->set &&
	    f->size == r->set->lsize) {
		if ((uint32_t)f->offset + f->size > r->size)
			addr = 0;
		else
			addr = host_read(r->data + f->offset, f->size);
		if ((pk = tdat_events_printk(r->set, addr)) != NULL)
			tdat_sb_puts(out, pk);
		else
			tdat_sb_printf(out, "%llx", addr);
		return;
	}
	if (len < 0 || (uint32_t)f->offset > r->size)
		len = 0;
	if ((uint32_t)f->offset + len > r->size)
		len = (int)(r->size - f->offset);
	if ((s = malloc((size_t)len + 1)) == NULL)
		return;
	memcpy(s, r->data + f->offset, (size_t)len);
	s[len] = '\0';
	put_str(out, fmt, len_arg, s);
	free(s);
}

/* A NUL-terminated string inside the record at off. */
static void
put_data_str(const struct rec *r, struct tdat_sbuf *out, const char *fmt,
    int len_arg, unsigned off)
{
	size_t n = strnlen((const char *)r->data + off, r->size - off);
	char *s;

	if (off + n < r->size) {
		put_str(out, fmt, len_arg, (const char *)r->data + off);
		return;
	}
	if ((s = strndup((const char *)r->data + off, n)) == NULL)
		return;
	put_str(out, fmt, len_arg, s);
	free(s);
}

static void
print_str_arg(const struct rec *r, struct tdat_sbuf *out, const char *fmt,
    int len_arg, struct parg *a)
{
	unsigned off, len;
	struct tdat_field *f;

	switch (a->type) {
	case PA_ATOM:
		put_str(out, fmt, len_arg, a->str);
		break;
	case PA_FIELD:
		if (a->field)
			print_field_str(r, out, fmt, len_arg, a->field);
		break;
	case PA_FLAGS:
		print_flags(r, out, fmt, len_arg, a);
		break;
	case PA_SYMBOL:
		print_symbol(r, out, fmt, len_arg, a);
		break;
	case PA_HEX:
	case PA_HEX_STR:
		print_hex(r, out, a);
		break;
	case PA_INT_ARRAY:
		print_int_array(r, out, a);
		break;
	case PA_STRING:
		if ((f = a->field) == NULL)
			f = a->field = tdat_event_field(r->ev, a->str);
		if (f == NULL)
			break;
		dyn_offset(r, f, &off, &len);
		if (!len || off >= r->size)
			break;
		put_data_str(r, out, fmt, len_arg, off);
		break;
	case PA_BSTRING:
		put_str(out, fmt, len_arg, a->str);
		break;
	case PA_BITMASK:
	case PA_CPUMASK:
		if ((f = a->field) == NULL)
			f = a->field = tdat_event_field(r->ev, a->str);
		if (f == NULL)
			break;
		dyn_offset(r, f, &off, &len);
		if (off + len > r->size)
			break;
		if (a->type == PA_BITMASK)
			put_bitmask(r, out, fmt, len_arg, r->data + off,
			    (int)len);
		else
			put_cpumask(r, out, fmt, len_arg, r->data + off,
			    (int)len);
		break;
	case PA_OP:
		if (a->str[0] != '?' || a->right == NULL)
			break;
		if (eval_num(r, a->left))
			print_str_arg(r, out, fmt, len_arg, a->right->left);
		else
			print_str_arg(r, out, fmt, len_arg, a->right->right);
		break;
	case PA_FUNC:
		call_func(r, a, out);
		break;
	default:
		break;
	}
}

static void
print_function(const struct rec *r, struct tdat_sbuf *out, char conv,
    struct parg *a)
{
	unsigned long long v = eval_num(r, a), start = 0;
	const char *name = r->set ? tdat_events_sym(r->set, v, &start) : NULL;

	if (name) {
		sb_add(out, name, strlen(name));
		if (conv == 'F' || conv == 'S')
			tdat_sb_printf(out, "+0x%llx", v - start);
		return;
	}
	if (r->set && r->set->lsize == 4)
		tdat_sb_printf(out, "0x%lx", (long)v);
	else
		tdat_sb_printf(out, "0x%llx", v);
}

/* libtraceevent's numbers for argument kinds, shown in its messages. */
static int
tep_kind(int type)
{
	static const int map[] = {
		[PA_NULL] = 0, [PA_ATOM] = 1, [PA_FIELD] = 2, [PA_FLAGS] = 3,
		[PA_SYMBOL] = 4, [PA_HEX] = 5, [PA_INT_ARRAY] = 6,
		[PA_TYPE] = 7, [PA_STRING] = 8, [PA_BSTRING] = 9,
		[PA_DYNARRAY] = 10, [PA_OP] = 11, [PA_FUNC] = 12,
		[PA_BITMASK] = 13, [PA_DYNARRAY_LEN] = 14, [PA_HEX_STR] = 15,
		[PA_CPUMASK] = 16,
	};

	return type >= 0 && type <= PA_FUNC ? map[type] : type;
}

static struct parg *
strip_casts(struct parg *a)
{
	while (a && a->type == PA_TYPE)
		a = a->left;
	return a;
}

static const unsigned char *
field_bytes(const struct rec *r, struct parg *a, int want)
{
	if (a->type != PA_FIELD || !a->field)
		return NULL;
	if (a->field->size != want ||
	    (uint32_t)a->field->offset + want > r->size)
		return NULL;
	return r->data + a->field->offset;
}

static void
print_mac(const struct rec *r, struct tdat_sbuf *out, const char *f,
    struct parg *a)
{
	const char *fmt = "%.2x:%.2x:%.2x:%.2x:%.2x:%.2x";
	const unsigned char *b;

	a = strip_casts(a);
	if (a->type != PA_FIELD) {
		tdat_sb_printf(out, "ARG TYPE NOT FIELD BUT %d",
		    tep_kind(a->type));
		return;
	}
	if (f[0] == 'm')
		fmt = "%.2x%.2x%.2x%.2x%.2x%.2x";
	else if (f[0] == 'M' && f[1] == 'F')
		fmt = "%.2x-%.2x-%.2x-%.2x-%.2x-%.2x";
	if ((b = field_bytes(r, a, 6)) == NULL) {
		tdat_sb_puts(out, "INVALIDMAC");
		return;
	}
	if (f[1] == 'R')
		tdat_sb_printf(out, fmt, b[5], b[4], b[3], b[2], b[1], b[0]);
	else
		tdat_sb_printf(out, fmt, b[0], b[1], b[2], b[3], b[4], b[5]);
}

static void
put_ip4(struct tdat_sbuf *out, char i, int rev, const unsigned char *b)
{
	const char *fmt = i == 'i' ? "%03d.%03d.%03d.%03d" : "%d.%d.%d.%d";

	if (rev)
		tdat_sb_printf(out, fmt, b[3], b[2], b[1], b[0]);
	else
		tdat_sb_printf(out, fmt, b[0], b[1], b[2], b[3]);
}

static void
put_ip6c(struct tdat_sbuf *out, const unsigned char *a)
{
	unsigned char zl[8];
	int i, j, range, longest = 1, colonpos = -1, need = 0, v4;
	uint16_t w[8];

	for (i = 0; i < 8; i++)
		w[i] = (uint16_t)(a[2 * i] << 8 | a[2 * i + 1]);
	v4 = (w[0] | w[1] | w[2] | w[3] | w[4]) == 0 && w[5] == 0xffff;
	v4 = v4 || ((w[4] | 0x0200) == 0x0200 && w[5] == 0x5efe);
	range = v4 ? 6 : 8;
	memset(zl, 0, sizeof(zl));
	for (i = 0; i < range; i++)
		for (j = i; j < range && w[j] == 0; j++)
			zl[i]++;
	for (i = 0; i < range; i++)
		if (zl[i] > longest) {
			longest = zl[i];
			colonpos = i;
		}
	if (longest == 1)
		colonpos = -1;
	for (i = 0; i < range; i++) {
		if (i == colonpos) {
			if (need || i == 0)
				tdat_sb_putc(out, ':');
			tdat_sb_putc(out, ':');
			need = 0;
			i += longest - 1;
			continue;
		}
		if (need)
			tdat_sb_putc(out, ':');
		if (w[i] >> 8)
			tdat_sb_printf(out, "%x%02x", w[i] >> 8, w[i] & 0xff);
		else
			tdat_sb_printf(out, "%x", w[i] & 0xff);
		need = 1;
	}
	if (v4) {
		if (need)
			tdat_sb_putc(out, ':');
		put_ip4(out, 'I', 0, a + 12);
	}
}

static void
put_ip6(struct tdat_sbuf *out, char i, const unsigned char *b)
{
	int j;

	for (j = 0; j < 16; j += 2) {
		tdat_sb_printf(out, "%02x%02x", b[j], b[j + 1]);
		if (i == 'I' && j < 14)
			tdat_sb_putc(out, ':');
	}
}

static int
ip4_rev(const struct rec *r, char c)
{
	if (c == 'h')
		return !(r->set && r->set->big);
	return c == 'l';
}

static void
print_ip(const struct rec *r, struct tdat_sbuf *out, const char *f,
    struct parg *a)
{
	char i = f[0], v = f[1];
	const unsigned char *b;
	unsigned off, len;
	int have_c = 0, have_p = 0, rev;

	a = strip_casts(a);
	if (v == '4' || v == '6') {
		if (a->type != PA_FIELD) {
			tdat_sb_printf(out, "ARG TYPE NOT FIELD BUT %d",
			    tep_kind(a->type));
			return;
		}
		if (v == '4') {
			if ((b = field_bytes(r, a, 4)) == NULL)
				tdat_sb_puts(out, "INVALIDIPv4");
			else
				put_ip4(out, i, ip4_rev(r, f[2]), b);
			return;
		}
		if ((b = field_bytes(r, a, 16)) == NULL)
			tdat_sb_puts(out, "INVALIDIPv6");
		else if (i == 'I' && f[2] == 'c')
			put_ip6c(out, b);
		else
			put_ip6(out, i, b);
		return;
	}
	if (v != 'S')
		return;
	f += 2;
	if (i == 'I') {
		if (*f == 'p') {
			have_p = 1;
			f++;
		}
		if (*f == 'c') {
			have_c = 1;
			f++;
		}
	}
	rev = ip4_rev(r, *f);
	if (a->type == PA_FIELD && a->field) {
		off = a->field->offset;
		len = a->field->size;
	} else if (a->type == PA_DYNARRAY) {
		dyn_offset(r, a->field, &off, &len);
	} else {
		tdat_sb_printf(out,
		    "ARG NOT FIELD NOR DYNAMIC ARRAY BUT TYPE %d",
		    tep_kind(a->type));
		return;
	}
	if (off + 2 > r->size)
		return;
	b = r->data + off;
	if (host_read(b, 2) == 2) {		/* AF_INET */
		if (len < 16 || off + 16 > r->size) {
			tdat_sb_puts(out, "INVALIDIPv4");
			return;
		}
		put_ip4(out, i, rev, b + 4);
		if (have_p)
			tdat_sb_printf(out, ":%d", b[2] << 8 | b[3]);
	} else if (host_read(b, 2) == 10) {	/* AF_INET6 */
		if (len < 28 || off + 28 > r->size) {
			tdat_sb_puts(out, "INVALIDIPv6");
			return;
		}
		if (have_p)
			tdat_sb_putc(out, '[');
		if (have_c)
			put_ip6c(out, b + 8);
		else
			put_ip6(out, i, b + 8);
		if (have_p)
			tdat_sb_printf(out, "]:%d", b[2] << 8 | b[3]);
	}
}

static void
print_uuid(const struct rec *r, struct tdat_sbuf *out, const char *f,
    struct parg *a)
{
	static const int guid[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11,
	    12, 13, 14, 15 };
	const char *fmt = "%02x";
	const unsigned char *b;
	int i, g = 0;

	switch (f[1]) {
	case 'L': fmt = "%02X"; /* fall through */
	case 'l': g = 1; break;
	case 'B': fmt = "%02X"; break;
	}
	a = strip_casts(a);
	if (a->type != PA_FIELD) {
		tdat_sb_printf(out, "ARG TYPE NOT FIELD BUT %d",
		    tep_kind(a->type));
		return;
	}
	if ((b = field_bytes(r, a, 16)) == NULL) {
		tdat_sb_puts(out, "INVALIDUUID");
		return;
	}
	for (i = 0; i < 16; i++) {
		tdat_sb_printf(out, fmt, b[g ? guid[i] : i]);
		if (i == 3 || i == 5 || i == 7 || i == 9)
			tdat_sb_putc(out, '-');
	}
}

static void
print_raw_buf(const struct rec *r, struct tdat_sbuf *out, const char *f,
    struct parg *a, int plen)
{
	const char *delim = " ";
	unsigned off, len;
	int i;

	switch (f[1]) {
	case 'C': delim = ":"; break;
	case 'D': delim = "-"; break;
	case 'N': delim = ""; break;
	}
	if (a->type != PA_DYNARRAY) {
		tdat_sb_printf(out, "ARG TYPE NOT FIELD BUT %d",
		    tep_kind(a->type));
		return;
	}
	dyn_offset(r, a->field, &off, &len);
	if ((int)len < plen)
		plen = (int)len;
	if (plen < 1 || off + plen > r->size)
		return;
	tdat_sb_printf(out, "%02x", r->data[off]);
	for (i = 1; i < plen; i++)
		tdat_sb_printf(out, "%s%02x", delim, r->data[off + i]);
}

static void
print_pointer(const struct rec *r, struct tdat_sbuf *out, const char *fmt,
    int plen, struct parg *a)
{
	const char *p;
	unsigned long long v;

	if (a->type == PA_BSTRING) {
		tdat_sb_puts(out, a->str);
		return;
	}
	p = strchr(fmt, 'p');
	p = p ? p + 1 : fmt + strlen(fmt);
	switch (*p) {
	case 'F': case 'f': case 'S': case 's':
		print_function(r, out, *p, a);
		break;
	case 'M': case 'm':
		print_mac(r, out, p, a);
		break;
	case 'I': case 'i':
		print_ip(r, out, p, a);
		break;
	case 'U':
		print_uuid(r, out, p, a);
		break;
	case 'h':
		print_raw_buf(r, out, p, a, plen);
		break;
	default:
		v = eval_num(r, a);
		if (v == 0)
			tdat_sb_puts(out, "(nil)");
		else
			tdat_sb_printf(out, "0x%llx", v);
		break;
	}
}

void
tdat_put_udec(struct tdat_sbuf *out, unsigned long long v)
{
	char buf[24], *p = buf + sizeof(buf);

	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	sb_add(out, p, (size_t)(buf + sizeof(buf) - p));
}

void
tdat_put_dec(struct tdat_sbuf *out, long long v)
{
	if (v < 0) {
		tdat_sb_putc(out, '-');
		tdat_put_udec(out, 0ULL - (unsigned long long)v);
	} else
		tdat_put_udec(out, (unsigned long long)v);
}

static void
put_hex(struct tdat_sbuf *out, unsigned long long v)
{
	static const char dig[] = "0123456789abcdef";
	char buf[24], *p = buf + sizeof(buf);

	do
		*--p = dig[v & 15];
	while ((v >>= 4) != 0);
	sb_add(out, p, (size_t)(buf + sizeof(buf) - p));
}

/* s (n bytes) right- or left-justified in width columns. */
void
tdat_put_pad(struct tdat_sbuf *out, const char *s, size_t n, int width,
    int left)
{
	static const char sp[] = "                                ";
	size_t pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;

	if (left)
		tdat_sb_add(out, s, n);
	while (pad > 0) {
		size_t k = pad < sizeof(sp) - 1 ? pad : sizeof(sp) - 1;

		tdat_sb_add(out, sp, k);
		pad -= k;
	}
	if (!left)
		tdat_sb_add(out, s, n);
}

/* A plain conversion: the value cast as its length letters say. */
static void
print_fast(struct tdat_sbuf *out, int kind, int ls, unsigned long long v)
{
	int bits = ls <= -2 ? 8 : ls == -1 ? 16 : ls == 0 ? 32 : 64;

	if (bits < 64) {
		unsigned long long m = (1ULL << bits) - 1;

		v &= m;
		if (kind == 'd' && (v >> (bits - 1)))
			v |= ~m;
	}
	if (kind == 'd')
		tdat_put_dec(out, (long long)v);
	else if (kind == 'u')
		tdat_put_udec(out, v);
	else
		put_hex(out, v);
}

static void
print_number(const struct rec *r, struct tdat_sbuf *out, const char *fmt,
    int plen, int ls, struct parg *a)
{
	unsigned long long v = eval_num(r, a);

	switch (ls) {
	case -2:
		if (plen >= 0)
			tdat_sb_printf(out, fmt, plen, (char)v);
		else
			tdat_sb_printf(out, fmt, (char)v);
		break;
	case -1:
		if (plen >= 0)
			tdat_sb_printf(out, fmt, plen, (short)v);
		else
			tdat_sb_printf(out, fmt, (short)v);
		break;
	case 0:
		if (plen >= 0)
			tdat_sb_printf(out, fmt, plen, (int)v);
		else
			tdat_sb_printf(out, fmt, (int)v);
		break;
	case 1:
		if (plen >= 0)
			tdat_sb_printf(out, fmt, plen, (long)v);
		else
			tdat_sb_printf(out, fmt, (long)v);
		break;
	case 2:
		if (plen >= 0)
			tdat_sb_printf(out, fmt, plen, (long long)v);
		else
			tdat_sb_printf(out, fmt, (long long)v);
		break;
	}
}

static int
print_item(const struct rec *r, struct tdat_sbuf *out, const struct pitem *it)
{
	int len_arg = -1;

	if (it->len_arg)
		len_arg = (int)eval_num(r, it->len_arg);
	switch (it->type) {
	case PP_DIGIT:
		if (it->fast)
			print_fast(out, it->fast, it->ls, eval_num(r, it->arg));
		else
			print_number(r, out, it->format,
			    it->len_arg ? len_arg : -1, it->ls, it->arg);
		return 0;
	case PP_POINTER:
		print_pointer(r, out, it->format, it->len_arg ? len_arg : 1,
		    it->arg);
		return 0;
	case PP_STR:
		print_str_arg(r, out, it->format, it->len_arg ? len_arg : -1,
		    it->arg);
		return 0;
	default:
		sb_add(out, it->format, strlen(it->format));
		return 1;
	}
}

static void
print_items(const struct rec *r, const struct tdat_print *p,
    struct tdat_sbuf *out)
{
	int i;

	for (i = 0; i < p->n; i++)
		print_item(r, out, &p->it[i]);
}

/* ------------------------------------------------------------------ */
/* Raw fields: " name=value" for each field (report -R, and failures). */

static int
printable(const unsigned char *p, unsigned len)
{
	unsigned i;

	for (i = 0; i < len && p[i]; i++)
		if (p[i] >= 0x80 || (!isprint(p[i]) && !isspace(p[i])))
			return 0;
	return 1;
}

static void
field_raw(const struct rec *r, struct tdat_sbuf *out, struct tdat_field *f)
{
	unsigned long long v;
	unsigned off, len, i;

	if (f->flags & TDAT_FLD_ARRAY) {
		if (f->flags & TDAT_FLD_DYNAMIC)
			dyn_offset(r, f, &off, &len);
		else {
			off = f->offset;
			len = f->size;
		}
		if (off > r->size)
			off = len = 0;
		if (off + len > r->size)
			len = r->size - off;
		if ((f->flags & TDAT_FLD_STRING) &&
		    printable(r->data + off, len)) {
			put_data_str(r, out, "%s", -1, off);
			return;
		}
		tdat_sb_puts(out, "ARRAY[");
		for (i = 0; i < len; i++)
			tdat_sb_printf(out, i ? ", %02x" : "%02x",
			    r->data[off + i]);
		tdat_sb_putc(out, ']');
		/* libtraceevent stops treating it as a string from now on */
		f->flags &= ~TDAT_FLD_STRING;
		return;
	}
	if ((uint32_t)f->offset + f->size > r->size)
		v = 0;
	else
		v = tdat_read_num(r->set, r->data + f->offset, f->size);
	if (f->flags & TDAT_FLD_POINTER)
		tdat_sb_printf(out, "0x%llx", v);
	else if (f->flags & TDAT_FLD_SIGNED) {
		switch (f->size) {
		case 4:
			if (f->flags & TDAT_FLD_LONG)
				tdat_sb_printf(out, "0x%x", (int)v);
			else
				tdat_sb_printf(out, "%d", (int)v);
			break;
		case 2:
			tdat_sb_printf(out, "%2d", (short)v);
			break;
		case 1:
			tdat_sb_printf(out, "%1d", (signed char)v);
			break;
		default:
			tdat_sb_printf(out, "%lld", (long long)v);
		}
	} else if (f->flags & TDAT_FLD_LONG)
		tdat_sb_printf(out, "0x%llx", v);
	else
		tdat_sb_printf(out, "%llu", v);
}

/* A field printed with the conversion its print format uses for it. */
static void
field_value(const struct rec *r, struct tdat_sbuf *out, struct tdat_field *f,
    int *cursor)
{
	const struct tdat_print *p = r->ev->print;
	const struct pitem *it;
	struct parg *a;
	int i, start, has0x = 0;
	size_t n;

	if (cursor == NULL || *cursor < 0 || p == NULL || r->ev->failed ||
	    (r->ev->flags & TDAT_EV_BPRINT) || p->n == 0 ||
	    (f->flags & (TDAT_FLD_ARRAY | TDAT_FLD_STRING))) {
		field_raw(r, out, f);
		return;
	}
	i = start = *cursor;
	do {
		it = &p->it[i];
		if (it->type == PP_STRING) {
			n = strlen(it->format);
			has0x = n > 1 && strcmp(it->format + n - 2, "0x") == 0;
		} else if ((a = strip_casts(it->arg)) == NULL ||
		    a->type != PA_FIELD || a->field != f) {
			has0x = 0;
		} else {
			if (has0x)
				tdat_sb_puts(out, "0x");
			print_item(r, out, it);
			*cursor = i + 1 < p->n ? i + 1 : -1;
			return;
		}
		i = i + 1 < p->n ? i + 1 : 0;
	} while (i != start);
	field_raw(r, out, f);
}

void
tdat_print_fields(const struct tdat_event *ev, const unsigned char *data,
    uint32_t size, int use_fmt, struct tdat_sbuf *out)
{
	struct rec r = { ev, ev->set, data, size };
	int i, cursor = 0;

	for (i = 0; i < ev->nfields; i++) {
		tdat_sb_printf(out, " %s=", ev->fields[i].name);
		field_value(&r, out, &ev->fields[i], use_fmt ? &cursor : NULL);
	}
}

/* ------------------------------------------------------------------ */
/* bprint: trace_printk() with the format's address and binary args. */

static struct parg *
atom_num(unsigned long long v)
{
	struct parg *a = new_arg();

	if (a == NULL)
		return NULL;
	a->type = PA_ATOM;
	if (asprintf(&a->str, "%lld", (long long)v) < 0) {
		free(a);
		return NULL;
	}
	a->num = v;
	a->num_done = 1;
	return a;
}

static struct parg *
vbin_args(const struct rec *r, const char *fmt, unsigned long long ip)
{
	const struct tdat_field *buf = find_own((struct tdat_event *)r->ev,
	    "buf");
	struct parg *head, **next, *a;
	const char *p;
	unsigned off;
	int ls, vsize = 0, lsize = r->set ? r->set->lsize : 8;

	if (buf == NULL || (head = atom_num(ip)) == NULL)
		return NULL;
	next = &head->next;
	off = (unsigned)buf->offset;
	for (p = fmt + 5; off < r->size && *p; p++) {
		if (*p != '%')
			continue;
		ls = 0;
again:
		p++;
		switch (*p) {
		case 'l': ls++; goto again;
		case 'L': ls = 2; goto again;
		case '0': case '1': case '2': case '3': case '4': case '5':
		case '6': case '7': case '8': case '9': case '.': case '#':
		case '+':
			goto again;
		case 'z': case 'Z': ls = 1; goto again;
		case 'p':
			ls = 1;
			if (isalnum((unsigned char)p[1])) {
				p++;
				switch (*p) {
				case 's': case 'S': case 'x':
					break;
				case 'f': case 'F':
					if (p[1] != 'w')
						break;
					/* fall through */
				default:
					if (isprint(r->data[off]))
						goto string;
				}
			}
			/* fall through */
		case 'd': case 'u': case 'i': case 'x': case 'X': case 'o':
			vsize = ls == 0 ? 4 : ls == 1 ? lsize :
			    ls == 2 ? 8 : ls;
			/* fall through */
		case '*':
			if (*p == '*')
				vsize = 4;
			off = (off + 3) & ~3u;
			if (off + vsize > r->size)
				return head;
			a = atom_num(tdat_read_num(r->set, r->data + off,
			    vsize));
			off += vsize;
			if (a == NULL)
				return head;
			*next = a;
			next = &a->next;
			if (*p == '*')
				goto again;
			break;
		case 's':
string:
			if ((a = new_arg()) == NULL)
				return head;
			a->type = PA_BSTRING;
			a->str = strndup((const char *)r->data + off,
			    r->size - off);
			if (a->str == NULL) {
				free(a);
				return head;
			}
			off += (unsigned)strlen(a->str) + 1;
			*next = a;
			next = &a->next;
			break;
		default:
			break;
		}
		if (*p == '\0')
			break;
	}
	return head;
}

static void
print_bprint(const struct rec *r, struct tdat_sbuf *out)
{
	struct tdat_event *ev = (struct tdat_event *)r->ev;
	const struct tdat_field *ff = find_own(ev, "fmt");
	const struct tdat_field *ipf = find_own(ev, "ip");
	struct tdat_print p;
	unsigned long long addr, ip;
	const char *pk;
	char *fmt;
	struct parg *args;
	int failed = 0, i;

	if (ff == NULL || ipf == NULL)
		return;
	addr = tdat_field_read(ev, ff, r->data, r->size);
	ip = tdat_field_read(ev, ipf, r->data, r->size);
	pk = tdat_events_printk(r->set, addr);
	if (pk == NULL) {
		if (asprintf(&fmt, "%%ps: (NO FORMAT FOUND at %llx)\n",
		    addr) < 0)
			return;
	} else if (asprintf(&fmt, "%%ps: %s", pk) < 0)
		return;
	args = vbin_args(r, fmt, ip);
	memset(&p, 0, sizeof(p));
	parse_items(&p, &failed, fmt, args);
	if (failed)
		ev->failed = 1;	/* sticky, as in libtraceevent */
	print_items(r, &p, out);
	for (i = 0; i < p.n; i++)
		free(p.it[i].format);
	free(p.it);
	free_list(args);
	free(fmt);
}

void
tdat_print_pretty(const struct tdat_event *ev, const unsigned char *data,
    uint32_t size, struct tdat_sbuf *out)
{
	struct rec r = { ev, ev->set, data, size };

	if (ev->failed) {
		tdat_sb_puts(out, "[FAILED TO PARSE]");
		tdat_print_fields(ev, data, size, 0, out);
		return;
	}
	if (ev->flags & TDAT_EV_BPRINT) {
		print_bprint(&r, out);
		return;
	}
	if (ev->flags & TDAT_EV_SIMPLE) {
		tdat_simple_print(ev, data, size, out);
		return;
	}
	if (ev->print)
		print_items(&r, ev->print, out);
}

void
tdat_event_print(const struct tdat_event *ev, const struct tdat_record *rec,
    int mode, struct tdat_sbuf *out)
{
	if (mode == TDAT_PRINT_RAW) {
		tdat_print_fields(ev, rec->data, rec->size, 1, out);
		return;
	}
	if (mode == TDAT_PRINT_PLUGINS && ev->plugin &&
	    ev->plugin->print(ev, rec, out) == 0)
		return;
	tdat_print_pretty(ev, rec->data, rec->size, out);
}
