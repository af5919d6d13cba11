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

#include "tdat-int.h"
#include "event-int.h"

struct pctx {
	struct tdat_event *ev;
	struct ptok *t;
	int failed;
	int depth;		/* process_arg_token() and process_op() */
};

/* How deep an argument's operators and parentheses may nest: each level
 * is a few stack frames here, and as many in every walk of the tree
 * (folding, evaluation, freeing).  No format of ../shared/corpus nests
 * more than 16 levels deep. */
#define PRINT_DEPTH_MAX	256

static int process_arg(struct pctx *, struct parg *, char **tok);
static int process_arg_token(struct pctx *, struct parg *, char **tok,
    int type);
static int process_op(struct pctx *, struct parg *, char **tok);


struct parg *
tdat_parg_new(void)
{
	return calloc(1, sizeof(struct parg));
}

static void free_arg(struct parg *);

void
tdat_flagsyms_free(struct flagsym *f)
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
	tdat_flagsyms_free(a->syms);
	if (a->type == PA_FUNC)
		tdat_parg_free_list(a->left);	/* the arguments, by next */
	else
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

void
tdat_parg_free_list(struct parg *a)
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

struct tdat_field *
tdat_own_field(const struct tdat_event *ev, const char *name)
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
		v = op[1] == '>' ? l >> (r & 63) :
		    op[1] == '=' ? l >= r : l > r;
		break;
	case '<':
		v = op[1] == '<' ? l << (r & 63) :
		    op[1] == '=' ? l <= r : l < r;
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
	free(a->str);		/* "(type *REC)->f" comes back here with an op */
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

	a = tdat_parg_new();
	l = tdat_parg_new();
	r = tdat_parg_new();
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

	if ((a = tdat_parg_new()) == NULL) {
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

	if ((l = tdat_parg_new()) == NULL)
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
op_step(struct pctx *c, struct parg *a, char **tok)
{
	struct parg *l, *right = NULL, *saved_next;
	char *token = *tok;
	int type, prio;

	if (a->type == PA_OP && a->left == NULL) {
		/* A unary operator. */
		if (!strchr("~!+-", token[0]) || token[1]) {
			c->failed = 1;
			a->str = NULL;
			return fail_tok(tok, token);
		}
		if ((l = tdat_parg_new()) == NULL)
			return fail_tok(tok, NULL);
		l->type = PA_NULL;
		a->left = l;
		if ((right = tdat_parg_new()) == NULL)
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
		if ((right = tdat_parg_new()) == NULL)
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

	if ((f = tdat_parg_new()) == NULL)
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

/* A binary operator on two signed constants (flag values). */
static int
num_binop(const char *op, long long l, long long r, long long *v)
{
	unsigned long long ul = (unsigned long long)l;

	switch (op[0]) {
	case '|':
		*v = op[1] ? l || r : l | r;
		return 1;
	case '&':
		*v = op[1] ? l && r : l & r;
		return 1;
	case '<':
		if (op[1] == '<')
			*v = (long long)(ul << (r & 63));
		else if (op[1] == '=' || !op[1])
			*v = op[1] ? l <= r : l < r;
		else
			return 0;
		return 1;
	case '>':
		if (op[1] == '>')
			*v = l >> (r & 63);
		else if (op[1] == '=' || !op[1])
			*v = op[1] ? l >= r : l > r;
		else
			return 0;
		return 1;
	case '=':
	case '!':
		if (op[1] != '=')
			return 0;
		*v = op[0] == '=' ? l == r : l != r;
		return 1;
	case '-':
		*v = (long long)(ul - (unsigned long long)r);
		return 1;
	case '+':
		*v = (long long)(ul + (unsigned long long)r);
		return 1;
	default:
		return 0;
	}
}

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
		return num_eval(a->left, v);	/* the cast is not applied */
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
		return num_binop(op, l, r, v);
	default:
		return 0;
	}
}

static char *
arg_eval_str(struct parg *a)
{
	static _Thread_local char buf[24];	/* formats parse on workers */
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
		if ((a = tdat_parg_new()) == NULL)
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
		if ((a = tdat_parg_new()) == NULL)
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
	tdat_flagsyms_free(f);
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
	if ((f = tdat_parg_new()) == NULL)
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

/*
 * __print_dynamic_array(field, el_size) (kernel 6.x/7.x syscall events'
 * buffers, libtraceevent 1.9): __print_array over the whole of a dynamic
 * array, its count its length over el_size; an array with no right.
 */
static int
process_print_dynamic_array(struct pctx *c, struct parg *a, char **tok)
{
	struct parg *d;
	char *token;
	int type;

	a->type = PA_INT_ARRAY;
	*tok = NULL;
	if ((d = tdat_parg_new()) == NULL)
		return T_ERROR;
	a->left = d;
	d->type = PA_DYNARRAY;
	type = read_tok(c, &token);
	if (type != T_ITEM)
		return fail_tok(tok, token);
	if ((d->field = tdat_own_field(c->ev, token)) == NULL)
		return fail_tok(tok, token);
	d->str = token;
	if (tdat_tok_expect(c->t, 1, T_DELIM, ",") < 0 ||
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
	if ((a->field = tdat_own_field(c->ev, token)) == NULL)
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
	if ((a->field = tdat_own_field(c->ev, token)) == NULL)
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

/* Helpers the plugins trace-cmd loads register. */
static const struct helper {
	const char *name;
	int id, nargs;
} helpers[] = {
	{ "jiffies_to_msecs", FN_JIFFIES_TO_MSECS, 1 },
	{ "jbd2_dev_to_name", FN_JBD2_DEV_TO_NAME, 1 },
	{ "scsi_trace_parse_cdb", FN_SCSI_CDB, 3 },
	{ "__le16_to_cpup", FN_LE16_TO_CPUP, 1 },
	{ "xen_hypercall_name", FN_XEN_HYPERCALL, 1 },
	{ NULL, 0, 0 }
};

static const struct helper *
plugin_func(struct pctx *c, const char *name)
{
	const struct helper *h;

	if (c->ev->set == NULL || !c->ev->set->plugins)
		return NULL;
	for (h = helpers; h->name; h++)
		if (strcmp(h->name, name) == 0)
			return h;
	return NULL;
}

/* name(arg, ...): each argument a single term, as libtraceevent reads. */
static int
process_func(struct pctx *c, struct parg *a, const struct helper *h,
    char **tok)
{
	struct parg **next = &a->left, *f;
	char *token;
	int i, type;

	a->type = PA_FUNC;
	a->func = h->id;
	*tok = NULL;
	for (i = 0; i < h->nargs; i++) {
		if ((f = tdat_parg_new()) == NULL)
			return T_ERROR;
		type = process_arg(c, f, &token);
		*next = f;
		next = &f->next;
		if (type != T_DELIM || strcmp(token, i < h->nargs - 1 ? "," :
		    ")") != 0)
			return fail_tok(tok, token);
		free(token);
	}
	return read_tok(c, tok);
}

static int
process_function(struct pctx *c, struct parg *a, char *name, char **tok)
{
	const struct helper *fn;
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
	else if (!strcmp(name, "__print_dynamic_array") && (c->ev->set ==
	    NULL || !c->ev->set->tc_chosen || c->ev->set->tc == TDAT_TC_34))
		r = process_print_dynamic_array(c, a, tok);
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
	else if ((fn = plugin_func(c, name)) != NULL)
		r = process_func(c, a, fn, tok);
	else
		r = T_ERROR;	/* not known to libtraceevent */
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
		if ((item = tdat_parg_new()) == NULL)
			return fail_tok(tok, token);
		a->type = PA_TYPE;
		a->left = item;
		type = process_arg_token(c, item, &token, type);
	}
	*tok = token;
	return type;
}

static int
arg_token(struct pctx *c, struct parg *a, char **tok, int type)
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
		break;
	default:
		return fail_tok(tok, token);
	}
	*tok = token;
	return type;
}

/* arg_token() and op_step(), one level deeper: refused past
 * PRINT_DEPTH_MAX, before the stack runs out. */
static int
process_arg_token(struct pctx *c, struct parg *a, char **tok, int type)
{
	int r;

	if (c->depth >= PRINT_DEPTH_MAX) {
		c->failed = 1;
		return fail_tok(tok, *tok);
	}
	c->depth++;
	r = arg_token(c, a, tok, type);
	c->depth--;
	return r;
}

static int
process_op(struct pctx *c, struct parg *a, char **tok)
{
	int r;

	if (c->depth >= PRINT_DEPTH_MAX) {
		c->failed = 1;
		if (a->str == *tok)	/* a unary operator's own token */
			a->str = NULL;
		return fail_tok(tok, *tok);
	}
	c->depth++;
	r = op_step(c, a, tok);
	c->depth--;
	return r;
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
		if ((a = tdat_parg_new()) == NULL)
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
	if (*f == '\0' || f[1] != '\0')
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

#define DIGITS(n)	#n
#define WIDTH_DIGITS	DIGITS_OF(TDAT_WIDTH_MAX)
#define DIGITS_OF(n)	DIGITS(n)

/*
 * The conversion f of type as printed: a width over TDAT_WIDTH_MAX made
 * that, and so a precision but a string's (which only shortens it).  The
 * digits of a larger number are never fewer than its, so f shrinks in
 * place.  Returns 1 when a '*' is the precision.
 */
static int
clamp_conv(char *f, int type)
{
	static const char max[] = WIDTH_DIGITS;
	char *d, *z;
	int prec = 0, star_prec = 0;
	size_t n;

	for (d = f + 1; *d != '\0' && strchr("#.-+ *0123456789", *d); ) {
		if (*d == '.' || *d == '*') {
			star_prec |= *d == '*' && prec;
			prec |= *d++ == '.';
			continue;
		}
		if (!isdigit((unsigned char)*d)) {
			d++;
			continue;
		}
		for (z = d; *z == '0'; z++)	/* a flag, or no value */
			;
		for (n = 0; isdigit((unsigned char)z[n]); n++)
			;
		d = z + n;
		if ((prec && type == PP_STR) || n < sizeof(max) - 1 ||
		    (n == sizeof(max) - 1 && strncmp(z, max, n) <= 0))
			continue;
		memcpy(z, max, sizeof(max) - 1);
		memmove(z + sizeof(max) - 1, d, strlen(d) + 1);
		d = z + sizeof(max) - 1;
	}
	return star_prec;
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
	v->star_prec = type != PP_STRING ? clamp_conv(v->format, type) : 0;
	v->flen = strlen(v->format);
	v->type = type;
	v->arg = arg;
	v->len_arg = len_arg;
	v->ls = ls;
	v->fast = type == PP_DIGIT && !len_arg ? fast_kind(v->format) : 0;
	if (type == PP_POINTER) {
		const char *q = strchr(v->format, 'p');

		v->pext = q ? (size_t)(q + 1 - v->format) : v->flen;
	} else
		v->pext = 0;
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

void
tdat_print_items(struct tdat_print *p, int *failed, const char *f,
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
	free(p->ops);
	tdat_parg_free_list(p->args);
	free(p);
}

int
tdat_print_compile(struct tdat_event *ev, struct ptok *t)
{
	struct pctx c = { ev, t, 0, 0 };
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
			struct parg *a = tdat_parg_new();

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
		tdat_print_items(p, &c.failed, fmt, p->args);
		if (c.failed)
			return -1;
	}
	return 0;
}

