/*
 * event.c: event format files (tracefs events/SYS/NAME/format) parsed into
 * struct tdat_event, and the set of all events of a trace.
 *
 * The tokenizer follows the rules libtraceevent applies to these files, so
 * that a format it cannot read is also one we cannot read: trace-cmd then
 * prints raw fields, and so do we.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "event-int.h"

/* The classes of <ctype.h> in the C locale, which the tools run in,
 * without a call per character. */
static inline int
ctype_of(int ch)
{
	if (ch == '\n')
		return T_NEWLINE;
	if (ch == ' ' || (ch >= '\t' && ch <= '\r'))
		return T_SPACE;
	if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	    (ch >= '0' && ch <= '9') || ch == '_')
		return T_ITEM;
	if (ch == '\'')
		return T_SQUOTE;
	if (ch == '"')
		return T_DQUOTE;
	if (ch < 0x20 || ch > 0x7e)
		return T_NONE;
	if (ch == '(' || ch == ')' || ch == ',')
		return T_DELIM;
	return T_OP;
}

static int
getch(struct ptok *t)
{
	if (t->pos >= t->len)
		return -1;
	return (signed char)t->buf[t->pos++];
}

static int
peekch(struct ptok *t)
{
	if (t->pos >= t->len)
		return -1;
	return (signed char)t->buf[t->pos];
}

static int
tok_done(struct tdat_sbuf *b, char **tok, int type)
{
	if (b->oom) {
		tdat_sb_free(b);
		*tok = NULL;
		return T_ERROR;
	}
	*tok = b->p ? b->p : strdup("");
	return type;
}

static int
tok_forced(const char *s, char **tok)
{
	struct ptok t = { s, strlen(s), 0, 0 };

	return tdat_tok_raw(&t, tok);
}

/* Operators: "->", doubled "++ -- || && >> <<", and a trailing '=': t
 * steps past the bytes after ch that belong to its token. */
static void
tok_op(struct ptok *t, int ch)
{
	if (ch == '-' && peekch(t) == '>') {
		t->pos++;
		return;
	}
	switch (ch) {
	case '-': case '+': case '|': case '&': case '>': case '<':
		if (peekch(t) == ch) {
			t->pos++;
			if (ch != '>' && ch != '<')
				return;
		}
		break;
	case '!': case '=':
		break;
	default:
		return;
	}
	if (peekch(t) == '=')
		t->pos++;
}

/* A quoted string; adjacent double-quoted strings are joined. */
static int
tok_quote(struct ptok *t, int quote, struct tdat_sbuf *b)
{
	int ch = quote, last, type = quote == '"' ? T_DQUOTE : T_SQUOTE;
	size_t save;

again:
	last = 0;
	do {
		last = ch;
		ch = getch(t);
		if (ch == '\\' && last == '\\')
			last = 0;
		if (ch <= 0)
			break;
		tdat_sb_putc(b, ch);
	} while ((ch != quote && (isprint(ch) || (ch == '\t' && t->tabs))) ||
	    last == '\\' || ch == '\n');
	if (ch <= 0)
		return T_NONE;
	b->len--;		/* the closing quote or stray character */
	b->p[b->len] = '\0';
	if (type == T_DQUOTE) {
		save = t->pos;
		do
			ch = getch(t);
		while (ch >= 0 && isspace(ch));
		if (ch == '"')
			goto again;
		t->pos = save;
	}
	return type;
}

int
tdat_tok_raw(struct ptok *t, char **tok)
{
	struct tdat_sbuf b;
	size_t start;
	int ch, type;

	*tok = NULL;
	tdat_sb_init(&b);
	ch = getch(t);
	if (ch < 0)
		return T_NONE;
	type = ctype_of(ch);
	if (type == T_NONE)
		return type;
	/* Most tokens are short, and names and types are kept: start small
	 * (the buffer doubles from here), not at 256 bytes. */
	if ((b.p = malloc(32)) != NULL) {
		b.cap = 32;
		b.p[0] = '\0';
	}
	switch (type) {
	case T_NEWLINE:
	case T_DELIM:
		tdat_sb_putc(&b, ch);
		return tok_done(&b, tok, type);
	case T_OP:
		start = t->pos - 1;
		tok_op(t, ch);
		tdat_sb_add(&b, t->buf + start, t->pos - start);
		return tok_done(&b, tok, type);
	case T_DQUOTE:
	case T_SQUOTE:
		type = tok_quote(t, ch, &b);
		if (type == T_NONE) {
			tdat_sb_free(&b);
			return T_NONE;
		}
		return tok_done(&b, tok, type);
	default:
		break;
	}
	/* A run of one class, copied at once. */
	start = t->pos - 1;
	while (ctype_of(peekch(t)) == type)
		t->pos++;
	tdat_sb_add(&b, t->buf + start, t->pos - start);
	if (tok_done(&b, tok, type) == T_ERROR)
		return T_ERROR;
	if (type == T_ITEM && ((*tok)[0] == 'L' || (*tok)[0] == 'S' ||
	    (*tok)[0] == 'V')) {
		/* Old kernels' broken mac80211 symbols, as libtraceevent. */
		const char *rep = NULL;

		if (strcmp(*tok, "LOCAL_PR_FMT") == 0)
			rep = "\"%s\" ";
		else if (strcmp(*tok, "STA_PR_FMT") == 0)
			rep = "\" sta:%pM\" ";
		else if (strcmp(*tok, "VIF_PR_FMT") == 0)
			rep = "\" vif:%p(%d)\" ";
		if (rep) {
			free(*tok);
			return tok_forced(rep, tok);
		}
	}
	return type;
}

/*
 * The next token as tdat_tok_raw() reads it, without copying it: its
 * type, and its bytes at t->buf + *at, *n of them.  Quoted strings and
 * the mac80211 names tdat_tok_raw() replaces are not read here: -1 with
 * t->pos untouched, for tdat_tok_raw() to read.  (Reading a format file
 * is mostly small tokens compared and dropped: no malloc for them.)
 */
static int
tok_span(struct ptok *t, size_t *at, size_t *n)
{
	size_t start = t->pos;
	const char *s;
	int ch, type;

	*at = start;
	*n = 0;
	if ((ch = getch(t)) < 0)
		return T_NONE;
	switch ((type = ctype_of(ch))) {
	case T_NONE:
		return T_NONE;
	case T_NEWLINE:
	case T_DELIM:
		break;
	case T_OP:
		tok_op(t, ch);
		break;
	case T_DQUOTE:
	case T_SQUOTE:
		t->pos = start;
		return -1;
	default:
		while (ctype_of(peekch(t)) == type)
			t->pos++;
		break;
	}
	*n = t->pos - start;
	s = t->buf + start;
	if (type == T_ITEM && (s[0] == 'L' || s[0] == 'S' || s[0] == 'V') &&
	    ((*n == 12 && memcmp(s, "LOCAL_PR_FMT", 12) == 0) || (*n == 10 &&
	    (memcmp(s, "STA_PR_FMT", 10) == 0 ||
	    memcmp(s, "VIF_PR_FMT", 10) == 0)))) {
		t->pos = start;
		return -1;
	}
	return type;
}

/* tok_span() after blanks (and newlines, unless nl_ok), as
 * tdat_tok_read() (tdat_tok_item()) reads. */
static int
tok_span_skip(struct ptok *t, int nl_ok, size_t *at, size_t *n)
{
	int type;

	do
		type = tok_span(t, at, n);
	while (type == T_SPACE || (!nl_ok && type == T_NEWLINE));
	return type;
}

/*
 * The next token after blanks, as tdat_tok_read() reads it: its type,
 * and for those tok_span() reads its bytes (at, n).  The others (quoted
 * strings, and what a mac80211 name becomes) are read and dropped: they
 * are never T_ITEM.
 */
static int
tok_next(struct ptok *t, size_t *at, size_t *n)
{
	char *tk;
	int ty;

	if ((ty = tok_span_skip(t, 1, at, n)) >= 0)
		return ty;
	ty = tdat_tok_read(t, &tk);
	free(tk);
	*at = t->pos;
	*n = 0;
	return ty;
}

/* Is the token at..n of t the text str (NULL: any)? */
static int
span_is(const struct ptok *t, size_t at, size_t n, const char *str)
{
	return str == NULL || (strlen(str) == n &&
	    memcmp(t->buf + at, str, n) == 0);
}

int
tdat_tok_read(struct ptok *t, char **tok)
{
	int type;

	for (;;) {
		type = tdat_tok_raw(t, tok);
		if (type != T_SPACE)
			return type;
		free(*tok);
	}
}

int
tdat_tok_item(struct ptok *t, char **tok)
{
	int type;

	for (;;) {
		type = tdat_tok_raw(t, tok);
		if (type != T_SPACE && type != T_NEWLINE)
			return type;
		free(*tok);
	}
}

/* Read a token of the given type (and text, unless str is NULL). */
int
tdat_tok_expect(struct ptok *t, int nl_ok, int type, const char *str)
{
	char *tok;
	size_t at, n;
	int ty, r;

	if ((ty = tok_span_skip(t, nl_ok, &at, &n)) >= 0)
		return ty == type && (ty != T_NONE || str == NULL) &&
		    span_is(t, at, n, str) ? 0 : -1;
	ty = nl_ok ? tdat_tok_read(t, &tok) : tdat_tok_item(t, &tok);
	r = ty == type && (str == NULL || (tok && strcmp(tok, str) == 0));
	free(tok);
	return r ? 0 : -1;
}

static int
tok_expect_get(struct ptok *t, int nl_ok, int type, char **out)
{
	size_t at, n;
	int ty;

	if ((ty = tok_span_skip(t, nl_ok, &at, &n)) >= 0) {
		*out = ty == type && ty != T_NONE ? strndup(t->buf + at, n) :
		    NULL;
		return *out ? 0 : -1;
	}
	ty = nl_ok ? tdat_tok_read(t, out) : tdat_tok_item(t, out);
	if (ty != type) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

static int
append(char **buf, const char *delim, const char *s)
{
	size_t a = strlen(*buf), b = strlen(delim), c = strlen(s);
	char *p;

	if ((p = realloc(*buf, a + b + c + 1)) == NULL)
		return -1;
	memcpy(p + a, delim, b);
	memcpy(p + a + b, s, c + 1);
	*buf = p;
	return 0;
}

static int
type_size(const char *name)
{
	static const struct { const char *t; int n; } tab[] = {
		{ "u8", 1 }, { "u16", 2 }, { "u32", 4 }, { "u64", 8 },
		{ "s8", 1 }, { "s16", 2 }, { "s32", 4 }, { "s64", 8 },
		{ "char", 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strcmp(tab[i].t, name) == 0)
			return tab[i].n;
	return 0;
}

static void
field_clear(struct tdat_field *f)
{
	free(f->type);
	free(f->name);
	memset(f, 0, sizeof(*f));
}

/*
 * The strings of an event tdat_event_scan() reads (ev->strs): in blocks
 * that go with it, as a format's fields would otherwise cost two mallocs
 * and two frees each, a fifth of what tdat-verify's reading of a trace's
 * formats costs (callgrind).  A string the tokenizer made (a field line
 * read the long way, the event's name) stays one of malloc's:
 * tdat_event_free() frees a string no block holds.
 */
struct tdat_strs {
	struct tdat_strs *next;
	size_t used, cap;
	char b[];
};

#define STRS_BLOCK	4096

/* Room for n bytes in *sp (a block more when full); NULL without memory. */
static char *
strs_take(struct tdat_strs **sp, size_t n)
{
	struct tdat_strs *a = *sp;
	char *p;

	if (a == NULL || a->cap - a->used < n) {
		if ((a = malloc(sizeof(*a) + (n > STRS_BLOCK ? n :
		    STRS_BLOCK))) == NULL)
			return NULL;
		a->next = *sp;
		a->used = 0;
		a->cap = n > STRS_BLOCK ? n : STRS_BLOCK;
		*sp = a;
	}
	p = a->b + a->used;
	a->used += n;
	return p;
}

/* strndup(s, n) into *sp, or with malloc when sp is NULL. */
static char *
strs_dup(struct tdat_strs **sp, const char *s, size_t n)
{
	char *p;

	if (sp == NULL)
		return strndup(s, n);
	n = strnlen(s, n);
	if ((p = strs_take(sp, n + 1)) != NULL) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

/* free(s) unless a block of a holds it. */
static void
strs_free(const struct tdat_strs *a, char *s)
{
	for (; a; a = a->next)
		if ((uintptr_t)s >= (uintptr_t)a->b &&
		    (uintptr_t)s < (uintptr_t)a->b + a->cap)
			return;
	free(s);
}

/* field_clear() for a field of an event with blocks a. */
static void
field_drop(const struct tdat_strs *a, struct tdat_field *f)
{
	strs_free(a, f->type);
	strs_free(a, f->name);
	memset(f, 0, sizeof(*f));
}

/* "[N]" after a field name; sets the array length. */
static int
field_brackets(struct ptok *t, struct tdat_field *f, char **tok, int *sized)
{
	char *brackets = strdup("["), *tk;
	int type, last = T_OP;

	if (brackets == NULL)
		return -1;
	f->flags |= TDAT_FLD_ARRAY;
	type = tdat_tok_read(t, &tk);
	f->arraylen = type == T_ITEM ? (int)strtoul(tk, NULL, 0) : 0;
	while (tk && strcmp(tk, "]") != 0) {
		const char *d = last == T_ITEM && type == T_ITEM ? " " : "";

		last = type;
		if (append(&brackets, d, tk) < 0)
			goto fail;
		f->arraylen = (int)strtoul(tk, NULL, 0);
		free(tk);
		type = tdat_tok_read(t, &tk);
		if (type == T_NONE)
			goto fail;
	}
	free(tk);
	if (append(&brackets, "", "]") < 0)
		goto fail;
	type = tdat_tok_read(t, &tk);
	if (type == T_ITEM) {
		/* "type [] name;" */
		if (append(&f->type, " ", f->name) < 0 ||
		    append(&f->type, "", brackets) < 0) {
			free(tk);
			goto fail;
		}
		*sized = type_size(f->name);
		free(f->name);
		f->name = tk;
		type = tdat_tok_read(t, &tk);
	} else if (append(&f->type, "", brackets) < 0) {
		free(tk);
		goto fail;
	}
	free(brackets);
	*tok = tk;
	return type;
fail:
	free(brackets);
	return -1;
}

static int
expect_num(struct ptok *t, const char *key, int *val)
{
	char *tk;

	if (tdat_tok_expect(t, 1, T_ITEM, key) < 0 ||
	    tdat_tok_expect(t, 1, T_OP, ":") < 0 ||
	    tok_expect_get(t, 1, T_ITEM, &tk) < 0)
		return -1;
	*val = (int)strtoul(tk, NULL, 0);
	free(tk);
	return tdat_tok_expect(t, 1, T_OP, ";");
}

/* The type and name of "field:TYPE NAME;" */
static int
field_decl(struct ptok *t, int ftrace, struct tdat_field *f, int *sized)
{
	char *tk, *last;
	const char *delim = " ";
	int type;

	if (tok_expect_get(t, 1, T_ITEM, &last) < 0)
		return -1;
	for (;;) {
		type = tdat_tok_read(t, &tk);
		if (type == T_ITEM || (type == T_OP && strcmp(tk, "*") == 0) ||
		    (ftrace && type == T_OP && strcmp(tk, ".") == 0)) {
			if (strcmp(tk, "*") == 0)
				f->flags |= TDAT_FLD_POINTER;
			if (f->type) {
				if (append(&f->type, delim, last) < 0)
					goto fail;
				free(last);
			} else
				f->type = last;
			last = tk;
			delim = " ";
			continue;
		}
		if (type == T_DELIM && f->type && strcmp(last, "__attribute__")
		    == 0 && tk[0] == '(') {
			int depth = 1;

			if (append(&f->type, " ", last) < 0 ||
			    append(&f->type, "", "(") < 0)
				goto fail;
			free(tk);
			while ((type = tdat_tok_read(t, &tk)) != T_NONE) {
				int r;

				if (type == T_DELIM) {
					if (tk[0] == '(')
						depth++;
					else if (tk[0] == ')')
						depth--;
					if (!depth)
						break;
					r = append(&f->type, "", tk);
					delim = "";
				} else {
					r = append(&f->type, delim, tk);
					delim = " ";
				}
				if (r < 0)
					goto fail;
				free(last);
				last = tk;
			}
			free(tk);
			continue;
		}
		break;
	}
	if (f->type == NULL) {
		free(tk);
		free(last);
		return -1;
	}
	f->name = last;
	if (type != T_OP) {
		free(tk);
		return -1;
	}
	if (strcmp(tk, "[") == 0) {
		free(tk);
		type = field_brackets(t, f, &tk, sized);
		if (type < 0)
			return -1;
	}
	if (type != T_OP || strcmp(tk, ";") != 0) {
		free(tk);
		return -1;
	}
	free(tk);
	return 0;
fail:
	free(tk);
	free(last);
	return -1;
}

static void
field_flags(struct tdat_field *f)
{
	if ((f->flags & TDAT_FLD_ARRAY) && (strstr(f->type, "char") ||
	    strstr(f->type, "u8") || strstr(f->type, "s8")))
		f->flags |= TDAT_FLD_STRING;
	if (strncmp(f->type, "__data_loc", 10) == 0)
		f->flags |= TDAT_FLD_DYNAMIC;
	if (strncmp(f->type, "__rel_loc", 9) == 0)
		f->flags |= TDAT_FLD_DYNAMIC | TDAT_FLD_RELATIVE;
	if (strstr(f->type, "long"))
		f->flags |= TDAT_FLD_LONG;
}

static void
field_elemsize(struct tdat_field *f, int lsize, int sized)
{
	if (f->flags & (TDAT_FLD_ARRAY | TDAT_FLD_DYNAMIC)) {
		if (f->arraylen)
			f->elemsize = f->size / f->arraylen;
		else if (f->flags & TDAT_FLD_DYNAMIC)
			f->elemsize = sized;
		else if (f->flags & TDAT_FLD_STRING)
			f->elemsize = 1;
		else if (f->flags & TDAT_FLD_LONG)
			f->elemsize = lsize;
	} else
		f->elemsize = f->size;
}

/*
 * The common form of a field line after its "field" word, read without
 * the tokenizer (a format's field lines are most of what reading it
 * costs): ":TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;\n", the type items
 * and '*', the name maybe with "[N]" or "[]" (or "TYPE [] NAME"), blanks
 * and tabs between tokens, plain decimal numbers.  1 with *f and t->pos
 * as field_line() leaves them; 0 with both untouched for any other text,
 * which field_line() then reads.
 */
#define FAST_TOKS	16

struct span {
	size_t at, n;
};

static inline size_t
fast_blank(const struct ptok *t, size_t p)
{
	while (p < t->len && (t->buf[p] == ' ' || t->buf[p] == '\t'))
		p++;
	return p;
}

/* The bytes of an item token: letters, digits and '_'. */
#define I_ 1
static const unsigned char item_byte[256] = {
	['0'] = I_, ['1'] = I_, ['2'] = I_, ['3'] = I_, ['4'] = I_, ['5'] = I_,
	['6'] = I_, ['7'] = I_, ['8'] = I_, ['9'] = I_, ['_'] = I_,
	['a'] = I_, ['b'] = I_, ['c'] = I_, ['d'] = I_, ['e'] = I_, ['f'] = I_,
	['g'] = I_, ['h'] = I_, ['i'] = I_, ['j'] = I_, ['k'] = I_, ['l'] = I_,
	['m'] = I_, ['n'] = I_, ['o'] = I_, ['p'] = I_, ['q'] = I_, ['r'] = I_,
	['s'] = I_, ['t'] = I_, ['u'] = I_, ['v'] = I_, ['w'] = I_, ['x'] = I_,
	['y'] = I_, ['z'] = I_,
	['A'] = I_, ['B'] = I_, ['C'] = I_, ['D'] = I_, ['E'] = I_, ['F'] = I_,
	['G'] = I_, ['H'] = I_, ['I'] = I_, ['J'] = I_, ['K'] = I_, ['L'] = I_,
	['M'] = I_, ['N'] = I_, ['O'] = I_, ['P'] = I_, ['Q'] = I_, ['R'] = I_,
	['S'] = I_, ['T'] = I_, ['U'] = I_, ['V'] = I_, ['W'] = I_, ['X'] = I_,
	['Y'] = I_, ['Z'] = I_,
};
#undef I_

/* The item token at p, not one of the mac80211 names the tokenizer
 * replaces; its length, 0 when there is none. */
static inline size_t
fast_item(const struct ptok *t, size_t p)
{
	const char *s = t->buf + p;
	size_t n = 0;

	while (p + n < t->len && item_byte[(unsigned char)s[n]])
		n++;
	if ((n == 12 && memcmp(s, "LOCAL_PR_FMT", 12) == 0) ||
	    (n == 10 && (memcmp(s, "STA_PR_FMT", 10) == 0 ||
	    memcmp(s, "VIF_PR_FMT", 10) == 0)))
		return 0;
	return n;
}

/* A decimal number strtoul(s, NULL, 0) reads whole, in an int. */
static inline int
fast_num(const char *s, size_t n, int *v)
{
	size_t i;

	if (n == 0 || n > 9 || (n > 1 && s[0] == '0'))
		return 0;
	for (*v = 0, i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		*v = *v * 10 + (s[i] - '0');
	}
	return 1;
}

/* The character c at *p (after blanks); *p steps past it. */
static inline int
fast_char(const struct ptok *t, size_t *p, char c)
{
	*p = fast_blank(t, *p);
	if (*p >= t->len || t->buf[*p] != c)
		return 0;
	(*p)++;
	return 1;
}

/* "KEY:N;" at *p (blanks between); k: KEY's length. */
static inline int
fast_key(const struct ptok *t, size_t *p, const char *key, size_t k, int *v)
{
	size_t n;

	/* the item at *p is KEY: its bytes, then none of an item's */
	*p = fast_blank(t, *p);
	if (t->len - *p < k || memcmp(t->buf + *p, key, k) != 0 ||
	    (*p + k < t->len && item_byte[(unsigned char)t->buf[*p + k]]))
		return 0;
	*p += k;
	if (!fast_char(t, p, ':'))
		return 0;
	*p = fast_blank(t, *p);
	n = fast_item(t, *p);
	if (!fast_num(t->buf + *p, n, v))
		return 0;
	*p += n;
	return fast_char(t, p, ';');
}

/* The spans joined by blanks, then "[" N "]" when br (N: span num); in
 * *sp, or with malloc when sp is NULL. */
static char *
fast_join(const struct ptok *t, const struct span *s, int n, int br,
    struct span num, struct tdat_strs **sp)
{
	size_t len = br ? num.n + 2 : 0;
	char *out, *q;
	int i;

	for (i = 0; i < n; i++)
		len += s[i].n + 1;
	if ((out = q = sp ? strs_take(sp, len + 1) : malloc(len + 1)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		if (i > 0)
			*q++ = ' ';
		memcpy(q, t->buf + s[i].at, s[i].n);
		q += s[i].n;
	}
	if (br) {
		*q++ = '[';
		memcpy(q, t->buf + num.at, num.n);
		q += num.n;
		*q++ = ']';
	}
	*q = '\0';
	return out;
}

static int
field_fast(struct ptok *t, int lsize, struct tdat_field *f,
    struct tdat_strs **sp)
{
	struct span tok[FAST_TOKS], name, num = { 0, 0 };
	struct tdat_field nf;
	size_t p = t->pos, n;
	int nt = 0, br = 0, sized = 0, sgn;
	char word[8];

	memset(&nf, 0, sizeof(nf));
	if (!fast_char(t, &p, ':'))
		return 0;
	/* TYPE NAME: an item, then items or '*' */
	for (;;) {
		p = fast_blank(t, p);
		if (nt == FAST_TOKS || p >= t->len)
			return 0;
		if ((n = fast_item(t, p)) == 0 && (nt == 0 || t->buf[p] != '*'))
			break;
		if (n == 0) {
			n = 1;
			nf.flags |= TDAT_FLD_POINTER;
		}
		tok[nt].at = p;
		tok[nt++].n = n;
		p += n;
	}
	if (nt < 2)
		return 0;
	name = tok[--nt];
	if (t->buf[p] == '[') {
		/* "[N]" or "[]", then maybe the NAME of "TYPE [] NAME" */
		br = 1;
		nf.flags |= TDAT_FLD_ARRAY;
		p = fast_blank(t, p + 1);
		num.at = p;
		if ((num.n = fast_item(t, p)) > 0 &&
		    !fast_num(t->buf + p, num.n, &nf.arraylen))
			return 0;
		p += num.n;
		if (!fast_char(t, &p, ']'))
			return 0;
		p = fast_blank(t, p);
		if ((n = fast_item(t, p)) > 0) {
			tok[nt++] = name;
			if (name.n < sizeof(word)) {
				memcpy(word, t->buf + name.at, name.n);
				word[name.n] = '\0';
				sized = type_size(word);
			}
			name.at = p;
			name.n = n;
			p += n;
		}
	}
	if (!fast_char(t, &p, ';') ||
	    !fast_key(t, &p, "offset", 6, &nf.offset) ||
	    !fast_key(t, &p, "size", 4, &nf.size))
		return 0;
	p = fast_blank(t, p);
	if (p < t->len && t->buf[p] != '\n') {
		if (!fast_key(t, &p, "signed", 6, &sgn))
			return 0;
		if (sgn)
			nf.flags |= TDAT_FLD_SIGNED;
		p = fast_blank(t, p);
	}
	if (p >= t->len || t->buf[p] != '\n')
		return 0;
	if ((nf.type = fast_join(t, tok, nt, br, num, sp)) == NULL ||
	    (nf.name = strs_dup(sp, t->buf + name.at, name.n)) == NULL) {
		if (sp == NULL)
			free(nf.type);
		return 0;
	}
	field_flags(&nf);
	if ((nf.flags & TDAT_FLD_DYNAMIC) && nf.size == 2)
		nf.flags |= TDAT_FLD_STRING | TDAT_FLD_ARRAY;
	field_elemsize(&nf, lsize, sized);
	*f = nf;
	t->pos = p + 1;
	return 1;
}

/* One "field:...;offset:N;size:N;[signed:N;]" line (the strings of its
 * usual form in *sp when sp is not NULL). */
static int
field_line(struct ptok *t, int ftrace, int lsize, struct tdat_field *f,
    struct tdat_strs **sp)
{
	char *tk;
	int type, sized = 0, sgn;

	if (field_fast(t, lsize, f, sp))
		return 0;
	type = tdat_tok_read(t, &tk);
	if (ftrace && type == T_ITEM && strcmp(tk, "special") == 0) {
		free(tk);
		type = tdat_tok_read(t, &tk);
	}
	if (type != T_OP || strcmp(tk, ":") != 0) {
		free(tk);
		return -1;
	}
	free(tk);
	if (field_decl(t, ftrace, f, &sized) < 0)
		return -1;
	field_flags(f);
	if (expect_num(t, "offset", &f->offset) < 0 ||
	    expect_num(t, "size", &f->size) < 0)
		return -1;
	if ((f->flags & TDAT_FLD_DYNAMIC) && f->size == 2)
		f->flags |= TDAT_FLD_STRING | TDAT_FLD_ARRAY;
	type = tdat_tok_read(t, &tk);
	if (type != T_NEWLINE) {
		if (type != T_ITEM || strcmp(tk, "signed") != 0) {
			free(tk);
			return -1;
		}
		free(tk);
		if (tdat_tok_expect(t, 1, T_OP, ":") < 0 ||
		    tok_expect_get(t, 1, T_ITEM, &tk) < 0)
			return -1;
		sgn = strtoul(tk, NULL, 0) != 0;
		free(tk);
		if (sgn)
			f->flags |= TDAT_FLD_SIGNED;
		if (tdat_tok_expect(t, 1, T_OP, ";") < 0 ||
		    tok_expect_get(t, 1, T_NEWLINE, &tk) < 0)
			return -1;
	}
	free(tk);
	field_elemsize(f, lsize, sized);
	return 0;
}

/* A field line is sane when its offset and size fit a record. */
static int
field_sane(const struct tdat_field *f)
{
	return f->offset >= 0 && f->size >= 0 && f->offset <= 0xffff &&
	    f->size <= 0xffff;
}

/* Fields up to a blank line; returns the count or -1. */
static int
read_fields(struct ptok *t, int ftrace, int lsize, struct tdat_field **out)
{
	struct tdat_field *v = NULL, *nv;
	int n = 0, cap = 0, type;
	char *tk;

	for (;;) {
		type = tdat_tok_read(t, &tk);
		if (type == T_NEWLINE) {
			free(tk);
			break;
		}
		if (type != T_ITEM || strcmp(tk, "field") != 0) {
			free(tk);
			goto fail;
		}
		free(tk);
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			if ((nv = realloc(v, cap * sizeof(*v))) == NULL)
				goto fail;
			v = nv;
		}
		memset(&v[n], 0, sizeof(v[n]));
		/* (an offset or size past any record: no format, as no
		 * record could be read with it) */
		if (field_line(t, ftrace, lsize, &v[n], NULL) < 0 ||
		    !field_sane(&v[n])) {
			field_clear(&v[n]);
			goto fail;
		}
		n++;
	}
	*out = v;
	return n;
fail:
	while (n > 0)
		field_clear(&v[--n]);
	free(v);
	return -1;
}

void
tdat_event_free(struct tdat_event *ev)
{
	struct tdat_strs *a, *na;
	int i;

	if (ev == NULL)
		return;
	a = ev->strs;
	for (i = 0; i < ev->ncommon; i++)
		field_drop(a, &ev->common[i]);
	for (i = 0; i < ev->nfields; i++)
		field_drop(a, &ev->fields[i]);
	free(ev->common);
	free(ev->fields);
	strs_free(a, ev->system);
	strs_free(a, ev->name);
	strs_free(a, ev->fmt);
	tdat_print_free(ev->print);
	tdat_simple_free(ev->simple);
	for (; a; a = na) {
		na = a->next;
		free(a);
	}
	free(ev);
}

static uint32_t span_of(const struct tdat_event *);
static int event_parse(const char *, size_t, const char *, int,
    struct tdat_events *, struct tdat_event **, struct tdat_err *);

/*
 * An "ID:" value as every reader here takes it: a number (strtoul's,
 * base 0) below 65536, as ids are 16 bits in records; -1 for any other
 * text.  tdat-verify's scan and the event reader must agree on it, or a
 * copy could keep records whose format tdat-verify cannot find.
 */
static int
event_id(const char *tk)
{
	unsigned long id;
	char *q;

	id = strtoul(tk, &q, 0);
	return q == tk || id >= 65536 ? -1 : (int)id;
}

static int
read_header(struct ptok *t, struct tdat_event *ev)
{
	char *tk;

	if (tdat_tok_expect(t, 1, T_ITEM, "name") < 0 ||
	    tdat_tok_expect(t, 1, T_OP, ":") < 0 ||
	    tok_expect_get(t, 1, T_ITEM, &ev->name) < 0)
		return -1;
	if (tdat_tok_expect(t, 0, T_ITEM, "ID") < 0 ||
	    tdat_tok_expect(t, 1, T_OP, ":") < 0 ||
	    tok_expect_get(t, 1, T_ITEM, &tk) < 0)
		return -1;
	ev->id = event_id(tk);
	free(tk);
	if (ev->id < 0)
		return -1;
	if (tdat_tok_expect(t, 0, T_ITEM, "format") < 0 ||
	    tdat_tok_expect(t, 1, T_OP, ":") < 0 ||
	    tdat_tok_expect(t, 1, T_NEWLINE, NULL) < 0)
		return -1;
	return 0;
}

/* Is the rest (after blank lines) the simple "format:" language? */
static int
simple_start(const struct ptok *t, size_t *at)
{
	size_t p = t->pos;

	while (p < t->len && isspace((unsigned char)t->buf[p]))
		p++;
	if (t->len - p >= 7 && memcmp(t->buf + p, "format:", 7) == 0) {
		*at = p + 7;
		return 1;
	}
	return 0;
}

int
tdat_event_parse(const char *text, size_t len, const char *system,
    int lsize, int big, struct tdat_event **out, struct tdat_err *e)
{
	(void)big;
	return event_parse(text, len, system, lsize, NULL, out, e);
}

/* Is the text at *p, before end, the literal lit?  Then step past it. */
static int
lit(const char **p, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(end - *p) < n || memcmp(*p, lit, n) != 0)
		return 0;
	*p += n;
	return 1;
}

/* Characters of an item token (ctype_of's T_ITEM). */
static int
item_span(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && (isalnum((unsigned char)*q) || *q == '_'))
		q++;
	return (int)(q - p);
}

/*
 * The head as the kernel writes it, "name: NAME\nID: N\nformat:\n", read
 * without the tokenizer (a format's head is most of what loading it
 * costs): 1 with ev's name and id set and *pos past it, 0 for any other
 * text, which read_header() then reads.
 */
static int
head_fast(const char *text, size_t len, struct tdat_event *ev, size_t *pos)
{
	const char *p = text, *end = text + len, *name;
	char num[24];
	int n, n2, k;

	if (!lit(&p, end, "name: ") || (n = item_span(p, end)) == 0)
		return 0;
	name = p;
	p += n;
	if (!lit(&p, end, "\nID: ") || (k = item_span(p, end)) == 0 ||
	    k >= (int)sizeof(num))
		return 0;
	for (n2 = 0; n2 < k; n2++)
		if (p[n2] < '0' || p[n2] > '9')
			return 0;
	memcpy(num, p, (size_t)k);
	num[k] = '\0';
	p += k;
	if (!lit(&p, end, "\nformat:\n"))
		return 0;
	/* the tokenizer's stand-ins for old mac80211 names are no items */
	if ((n == 12 && memcmp(name, "LOCAL_PR_FMT", 12) == 0) ||
	    (n == 10 && (memcmp(name, "STA_PR_FMT", 10) == 0 ||
	    memcmp(name, "VIF_PR_FMT", 10) == 0)))
		return 0;
	if ((ev->id = event_id(num)) < 0 ||
	    (ev->name = strndup(name, (size_t)n)) == NULL)
		return 0;
	*pos = (size_t)(p - text);
	return 1;
}

/*
 * The head of a format ("name:", "ID:", "format:"): a new event with its
 * system, name, id and flags; *body is where its fields begin.
 */
static int
event_head(const char *text, size_t len, const char *system,
    struct tdat_events *set, struct tdat_event **out, size_t *body,
    struct tdat_err *e)
{
	struct ptok t = { text, len, 0, 0 };
	struct tdat_event *ev;

	*out = NULL;
	if ((ev = calloc(1, sizeof(*ev))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	ev->set = set;
	if ((ev->system = strdup(system)) == NULL) {
		tdat_event_free(ev);
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	if ((!head_fast(text, len, ev, &t.pos) && read_header(&t, ev) < 0) ||
	    ev->id < 0) {
		tdat_event_free(ev);
		return tdat_fail_nooff(e, TDAT_ECORRUPT,
		    "%s: bad event format", system);
	}
	if (strcmp(system, "ftrace") == 0) {
		ev->flags |= TDAT_EV_FTRACE;
		if (strcmp(ev->name, "bprint") == 0)
			ev->flags |= TDAT_EV_BPRINT;
	}
	*body = t.pos;
	*out = ev;
	return 0;
}

/* The fields and the print format of ev, from body on; -1 when the
 * fields do not parse (a print format that does not is no error). */
static int
event_body(struct tdat_event *ev, const char *text, size_t len, size_t body,
    int lsize, int fields_only)
{
	struct ptok t = { text, len, body, ev->set != NULL &&
	    ev->set->tc == TDAT_TC_34 };
	int n, ftrace = (ev->flags & TDAT_EV_FTRACE) != 0;
	size_t at;

	if ((n = read_fields(&t, ftrace, lsize, &ev->common)) < 0)
		return -1;
	ev->ncommon = n;
	if ((n = read_fields(&t, ftrace, lsize, &ev->fields)) < 0)
		return -1;
	ev->nfields = n;
	ev->pid = tdat_event_field(ev, "common_pid");
	ev->span = span_of(ev);
	if (fields_only)
		return 0;
	if (simple_start(&t, &at)) {
		ev->flags |= TDAT_EV_SIMPLE;
		if (tdat_simple_compile(ev, text + at, len - at) < 0)
			ev->failed = 1;
	} else if (tdat_print_compile(ev, &t) < 0)
		ev->failed = 1;
	return 0;
}

/* Parse a format; set (if any) gives symbols and plugin helpers. */
static int
event_parse(const char *text, size_t len, const char *system, int lsize,
    struct tdat_events *set, struct tdat_event **out, struct tdat_err *e)
{
	struct tdat_event *ev;
	size_t body;
	int r;

	*out = NULL;
	if ((r = event_head(text, len, system, set, &ev, &body, e)) < 0)
		return r;
	if (event_body(ev, text, len, body, lsize, set ? set->fields_only :
	    0) < 0) {
		tdat_event_free(ev);
		return tdat_fail_nooff(e, TDAT_ECORRUPT,
		    "%s: bad event format", system);
	}
	if (set)
		set->nparsed++;
	*out = ev;
	return 0;
}

struct tdat_field *
tdat_event_field(const struct tdat_event *ev, const char *name)
{
	int i;

	for (i = 0; i < ev->ncommon; i++)
		if (strcmp(ev->common[i].name, name) == 0)
			return &ev->common[i];
	for (i = 0; i < ev->nfields; i++)
		if (strcmp(ev->fields[i].name, name) == 0)
			return &ev->fields[i];
	return NULL;
}

unsigned long long
tdat_field_read(const struct tdat_event *ev, const struct tdat_field *f,
    const unsigned char *data, uint32_t size)
{
	if (f == NULL || (uint32_t)f->offset + f->size > size)
		return 0;
	return tdat_read_num(ev->set, data + f->offset, f->size);
}

void
tdat_field_dyn_span(const struct tdat_field *f, const unsigned char *data,
    uint32_t size, int big, uint32_t *off, uint32_t *len)
{
	uint64_t v;
	uint32_t o, l;

	*off = *len = 0;
	if ((uint32_t)f->offset + f->size > size ||
	    (f->size != 2 && f->size != 4))
		return;
	v = tdat_get(data + f->offset, f->size, big);
	o = (uint32_t)(v & 0xffff);
	l = f->size == 2 ? (o < size ? size - o : 0) : (uint32_t)(v >> 16);
	if (f->flags & TDAT_FLD_RELATIVE)
		o += (uint32_t)(f->offset + f->size);
	if (o > size)
		return;
	if (l > size - o)
		l = size - o;
	*off = o;
	*len = l;
}

void
tdat_field_span(const struct tdat_field *f, const unsigned char *data,
    uint32_t size, int big, uint32_t *off, uint32_t *len)
{
	if (f->flags & TDAT_FLD_DYNAMIC) {
		tdat_field_dyn_span(f, data, size, big, off, len);
		return;
	}
	*off = (uint32_t)f->offset;
	*len = f->size ? (uint32_t)f->size : UINT32_MAX;
	if (*off > size)
		*off = *len = 0;
	else if (*len > size - *off)
		*len = size - *off;
}

/* ------------------------------------------------------------------ */

struct tdat_events *
tdat_events_new(int lsize, int big)
{
	struct tdat_events *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->lsize = lsize;
	s->big = big;
	return s;
}

void
tdat_events_free(struct tdat_events *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nev; i++)
		tdat_event_free(s->ev[i]);
	free(s->ev);
	for (i = 0; i < s->narenas && !s->syms_shared; i++)
		free(s->arenas[i]);
	if (!s->syms_shared) {
		free(s->arenas);
		free(s->sym);
	}
	for (i = 0; i < s->nprintk; i++)
		free(s->printk[i].fmt);
	free(s->printk);
	for (i = 0; i < s->ncomm; i++)
		free(s->comm[i].comm);
	free(s->comm);
	tdat_plugins_free(s);
	tdat_btf_free(s->btf);
	free(s->lbmod);
	free(s->symcache);
	free(s);
}

/* Room for one more event in s. */
static int
ev_room(struct tdat_events *s, struct tdat_err *e)
{
	struct tdat_event **nv;

	if (s->nev == s->capev) {
		size_t cap = s->capev ? s->capev * 2 : 64;

		if ((nv = realloc(s->ev, cap * sizeof(*nv))) == NULL)
			return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		s->ev = nv;
		s->capev = cap;
	}
	return 0;
}

int
tdat_events_add(struct tdat_events *s, const char *text, size_t len,
    const char *system, struct tdat_event **out, struct tdat_err *e)
{
	struct tdat_event *ev;
	int r;

	if (out)
		*out = NULL;
	if ((r = ev_room(s, e)) < 0)
		return r;
	/* The print format is compiled against the set (symbols). */
	if ((r = event_parse(text, len, system, s->lsize, s, &ev, e)) < 0)
		return r;
	s->ev[s->nev++] = ev;
	if (out)
		*out = ev;
	return 0;
}

int
tdat_events_add_lazy(struct tdat_events *s, const char *text, size_t len,
    const char *system, struct tdat_err *e)
{
	struct tdat_event *ev;
	size_t body;
	int r;

	if ((r = ev_room(s, e)) < 0 ||
	    (r = event_head(text, len, system, s, &ev, &body, e)) < 0)
		return r;
	ev->lazy = text;
	ev->lazy_len = len;
	ev->lazy_pos = body;
	s->ev[s->nev++] = ev;
	return 0;
}

/*
 * Parse the rest of the format of s->ev[i] if it is still pending: 0, or
 * -1 when its fields do not parse and it is dropped from the set, as
 * tdat_events_add() drops it (the order of the others is kept).
 */
static int
ev_resolve(struct tdat_events *s, size_t i)
{
	struct tdat_event *ev = s->ev[i];

	if (ev->lazy == NULL)
		return 0;
	if (event_body(ev, ev->lazy, ev->lazy_len, ev->lazy_pos,
	    s->lsize, s->fields_only) == 0) {
		ev->lazy = NULL;
		s->nparsed++;
		return 0;
	}
	if (s->last == ev)
		s->last = NULL;
	tdat_event_free(ev);
	memmove(&s->ev[i], &s->ev[i + 1], (s->nev - i - 1) * sizeof(*s->ev));
	s->nev--;
	return -1;
}

void
tdat_events_resolve(struct tdat_events *s)
{
	size_t i = 0;

	while (i < s->nev)
		if (ev_resolve(s, i) == 0)
			i++;
}

size_t
tdat_events_parsed(const struct tdat_events *s)
{
	return s->nparsed;
}

static int
ev_cmp(const void *a, const void *b)
{
	const struct tdat_event *x = *(struct tdat_event * const *)a;
	const struct tdat_event *y = *(struct tdat_event * const *)b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return 0;
}

struct evpos {
	int id;
	size_t at;		/* the order of addition, for equal ids */
	struct tdat_event *ev;
};

static int
evpos_cmp(const void *a, const void *b)
{
	const struct evpos *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* Sort the events by id, stably (thousands of them: no insertion sort);
 * -1 without memory. */
static int
ev_sort(struct tdat_events *s)
{
	struct evpos *v;
	size_t i;

	if (s->nev < 2)
		return 0;
	if ((v = malloc(s->nev * sizeof(*v))) == NULL)
		return -1;
	for (i = 0; i < s->nev; i++) {
		v[i].id = s->ev[i]->id;
		v[i].at = i;
		v[i].ev = s->ev[i];
	}
	qsort(v, s->nev, sizeof(*v), evpos_cmp);
	for (i = 0; i < s->nev; i++)
		s->ev[i] = v[i].ev;
	free(v);
	return 0;
}

void
tdat_events_finish(struct tdat_events *s, int plugins)
{
	size_t i, j;
	int dup = 0;

	/* Stable insertion order for equal ids, as libtraceevent. */
	if (ev_sort(s) < 0)
		for (i = 1; i < s->nev; i++) {
			struct tdat_event *v = s->ev[i];

			for (j = i; j > 0 && ev_cmp(&s->ev[j - 1], &v) > 0;
			    j--)
				s->ev[j] = s->ev[j - 1];
			s->ev[j] = v;
		}
	for (i = 1; i < s->nev && !dup; i++)
		dup = s->ev[i]->id == s->ev[i - 1]->id;
	/*
	 * A pending format that does not parse leaves the set when it is
	 * first looked up.  Where ids repeat, which one the search finds
	 * depends on the whole array, so all are parsed now; the first
	 * event is (its common_type gives the size of record ids).
	 */
	if (dup)
		tdat_events_resolve(s);
	while (s->nev > 0 && ev_resolve(s, 0) < 0)
		;
	for (i = 0; i < s->nev; i++)
		s->ev[i]->plugin = plugins ?
		    tdat_plugin_find(s->ev[i]->system, s->ev[i]->name) : NULL;
	tdat_syms_sort(s);
}

const struct tdat_event *
tdat_events_find(const struct tdat_events *s, int id)
{
	struct tdat_events *w = (struct tdat_events *)s;
	size_t lo, hi, mid;

	if (s->last && s->last->id == id)
		return s->last;
again:
	lo = 0;
	hi = s->nev;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (s->ev[mid]->id == id) {
			/* ids of pending events are unique (finish) */
			if (ev_resolve(w, mid) < 0)
				goto again;
			w->last = s->ev[mid];
			return s->ev[mid];
		}
		if (s->ev[mid]->id > id)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const struct tdat_event *
tdat_events_find_name(const struct tdat_events *s, const char *system,
    const char *name)
{
	struct tdat_events *w = (struct tdat_events *)s;
	size_t i = 0;

	while (i < s->nev)
		if (strcmp(s->ev[i]->name, name) == 0 &&
		    (system == NULL || strcmp(s->ev[i]->system, system) == 0)) {
			if (ev_resolve(w, i) == 0)
				return s->ev[i];
		} else
			i++;
	return NULL;
}

static int
add_blob(struct tdat_events *s, const struct tdat_blob *b, const char *sys,
    struct tdat_err *e)
{
	int r;

	r = tdat_events_add_lazy(s, (const char *)b->p, b->len, sys, e);
	/* A damaged format drops that event only, as trace-cmd does. */
	if (r == TDAT_ECORRUPT)
		return 0;
	return r;
}

int
tdat_events_load(struct tdat_file *f, struct tdat_events **out,
    struct tdat_err *e)
{
	return tdat_events_load_mode(f, 0, out, e);
}

/*
 * The formats are parsed as their events are first looked up, and the
 * kallsyms when a first symbol is: a time cut of a large trace meets few
 * events, and most traces print no symbol.  Both stay in f meanwhile.
 */
int
tdat_events_load_mode(struct tdat_file *f, int plugins,
    struct tdat_events **out, struct tdat_err *e)
{
	struct tdat_events *s;
	uint32_t i, j;
	int r;

	*out = NULL;
	if ((s = tdat_events_new(f->lsize, f->big)) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	s->plugins = plugins;
	s->file = f;
	s->ktext = (const char *)f->kallsyms.p;
	s->klen = f->kallsyms.p ? f->kallsyms.len : 0;
	s->ksyms_late = s->ktext != NULL && f->ksyms_late != NULL;
	if (f->printk.p && tdat_events_add_printk(s,
	    (const char *)f->printk.p, f->printk.len) < 0)
		goto nomem;
	if (f->cmdlines.p && tdat_events_add_cmdlines(s,
	    (const char *)f->cmdlines.p, f->cmdlines.len) < 0)
		goto nomem;
	tdat_syms_sort(s);
	for (i = 0; i < f->nftrace; i++)
		if ((r = add_blob(s, &f->ftrace[i], "ftrace", e)) < 0)
			goto fail;
	for (i = 0; i < f->nsys; i++)
		for (j = 0; j < f->sys[i].nev; j++)
			if ((r = add_blob(s, &f->sys[i].ev[j], f->sys[i].name,
			    e)) < 0)
				goto fail;
	*out = s;
	return 0;
nomem:
	r = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
fail:
	tdat_events_free(s);
	return r;
}

const struct tdat_btf *
tdat_events_btf(struct tdat_events *s)
{
	struct tdat_file *f = s->file;
	struct tdat_err e = { 0 };

	if (!s->btf_looked) {
		s->btf_looked = 1;
		if (f != NULL && f->btf_load != NULL && f->btf_load(f, &e) > 0)
			s->btf = tdat_btf_new(f->btf.p, f->btf.len);
	}
	return s->btf;
}

uint32_t
tdat_event_span(const struct tdat_event *ev)
{
	return ev->span;
}

static uint32_t
span_of(const struct tdat_event *ev)
{
	uint32_t end = 0, e;
	int i;

	for (i = 0; i < ev->nfields; i++) {
		if (ev->fields[i].flags & TDAT_FLD_DYNAMIC)
			continue;
		e = (uint32_t)ev->fields[i].offset +
		    (uint32_t)ev->fields[i].size;
		if (e > end)
			end = e;
	}
	return end;
}

/* ------------------------------------------------------------------ */
/*
 * A lenient reading of a format file, for tdat-verify: the tokenizer and
 * field parser above, but a line that does not parse is noted and passed
 * over where tdat_event_parse() would give up on the whole event.
 */

struct scan {
	void (*note)(void *, const struct tdat_fmt_issue *);
	void *arg;
	struct tdat_event *ev;
};

static void
scan_note(const struct scan *sc, int what, const char *text,
    const struct tdat_field *f)
{
	struct tdat_fmt_issue is;

	is.what = what;
	is.name = sc->ev->name;
	is.text = text;
	is.field = f;
	sc->note(sc->arg, &is);
}

/* Where the line holding from ends: just past its newline. */
static size_t
line_end(const struct ptok *t, size_t from)
{
	const char *nl = NULL;

	if (from < t->len)
		nl = memchr(t->buf + from, '\n', t->len - from);
	return nl ? (size_t)(nl - t->buf) + 1 : t->len;
}

/* Does the line at t begin with the words of key ("print fmt:")? */
static int
line_starts(struct ptok *t, const char *const *key)
{
	size_t save = t->pos;
	int ok = 1;

	for (; *key && ok; key++)
		ok = tdat_tok_expect(t, 1, (*key)[0] == ':' ? T_OP : T_ITEM,
		    *key) == 0;
	t->pos = save;
	return ok;
}

/* The "ID:" value (event_id's): 1 once read, 0 without a ":", -1 for
 * a value that is no event id. */
static int
scan_id(struct ptok *t, const struct scan *sc, int *have)
{
	char *tk;
	size_t at, n;
	int ty, id;

	if (tdat_tok_expect(t, 1, T_OP, ":") < 0)
		return 0;
	if ((ty = tok_span_skip(t, 1, &at, &n)) < 0)
		ty = tdat_tok_read(t, &tk);
	else if ((tk = ty == T_NONE ? NULL : strndup(t->buf + at, n)) == NULL)
		ty = T_ERROR;
	if (ty != T_ITEM || (id = event_id(tk)) < 0) {
		scan_note(sc, TDAT_FMT_BAD_ID, ty == T_ITEM ? tk : "", NULL);
		free(tk);
		return -1;
	}
	free(tk);
	sc->ev->id = id;
	*have = 1;
	return 1;
}

/*
 * The "name:", "ID:" and "format:" lines, in any order; other lines are
 * passed over.  After a name or an ID the line goes on as the event
 * reader's tokens do (a vertical tab is a space, not a line's end), so
 * "name: a\vID: 3" has the id 3 for both.  Leaves t after "format:" and
 * returns 1, or returns 0 when there is none; -1 for an ID that is no
 * event id.
 */
static int
scan_header(struct ptok *t, const struct scan *sc, int *have_id)
{
	char *tk;
	size_t start, at, n;
	int ty, fmt, got;

	while ((start = t->pos) < t->len) {
		ty = tok_next(t, &at, &n);
		got = 0;
		if (ty == T_ITEM && span_is(t, at, n, "format")) {
			fmt = tdat_tok_expect(t, 1, T_OP, ":") == 0 &&
			    tdat_tok_expect(t, 1, T_NEWLINE, NULL) == 0;
			if (fmt)
				return 1;
		} else if (ty == T_ITEM && span_is(t, at, n, "ID") &&
		    !*have_id) {
			if ((got = scan_id(t, sc, have_id)) < 0)
				return -1;
		} else if (ty == T_ITEM && span_is(t, at, n, "name") &&
		    sc->ev->name == NULL) {
			if (tdat_tok_expect(t, 1, T_OP, ":") == 0 &&
			    tok_expect_get(t, 1, T_ITEM, &tk) == 0) {
				sc->ev->name = tk;
				got = 1;
			}
		}
		if (!got)
			t->pos = line_end(t, start);
	}
	return 0;
}

/* Does the line at t begin with the word "field"?  Then t steps past it,
 * as the tokenizer would (and the line is no "print fmt:"). */
static int
field_word(struct ptok *t)
{
	size_t p = t->pos;

	while (p < t->len && ctype_of((unsigned char)t->buf[p]) == T_SPACE)
		p++;
	if (t->len - p < 5 || memcmp(t->buf + p, "field", 5) != 0 ||
	    (p + 5 < t->len && ctype_of((unsigned char)t->buf[p + 5]) ==
	    T_ITEM))
		return 0;
	t->pos = p + 5;
	return 1;
}

/*
 * The field lines tdat_event_scan() read the usual way (field_fast()) of
 * late, by their place in a section: a trace's format files repeat them
 * (the common fields in each), and such a line's field is made of its
 * bytes and the long size alone, so a line the same as the one kept is
 * not read again.  One set a thread, the strings in the entries.
 */
#define KEEP_LINES	8
#define KEEP_LINE_MAX	120
#define KEEP_STR_MAX	64

struct kept_line {
	size_t n;		/* the line's bytes after "field"; 0: none */
	int lsize;
	char line[KEEP_LINE_MAX];
	struct tdat_field f;	/* with no strings: those are next */
	char type[KEEP_STR_MAX], name[KEEP_STR_MAX];
};

static _Thread_local struct kept_line kept_lines[2][KEEP_LINES];

/* The field of the line from t->pos to end, as field_line() reads it,
 * its strings in *sp; through kl (or NULL) when kept there. */
static int
scan_line(struct ptok *t, size_t end, int ftrace, int lsize,
    struct kept_line *kl, struct tdat_field *f, struct tdat_strs **sp)
{
	size_t n = end - t->pos, tn, nn;

	if (kl && kl->n == n && kl->lsize == lsize &&
	    memcmp(kl->line, t->buf + t->pos, n) == 0) {
		*f = kl->f;
		if ((f->type = strs_dup(sp, kl->type, sizeof(kl->type))) !=
		    NULL && (f->name = strs_dup(sp, kl->name,
		    sizeof(kl->name))) != NULL) {
			t->pos = end;
			return 0;
		}
		memset(f, 0, sizeof(*f));
	}
	if (!field_fast(t, lsize, f, sp))
		return field_line(t, ftrace, lsize, f, NULL);
	if (kl && n <= sizeof(kl->line) &&
	    (tn = strlen(f->type)) < sizeof(kl->type) &&
	    (nn = strlen(f->name)) < sizeof(kl->name)) {
		kl->n = n;
		kl->lsize = lsize;
		memcpy(kl->line, t->buf + end - n, n);
		kl->f = *f;
		kl->f.type = kl->f.name = NULL;
		memcpy(kl->type, f->type, tn + 1);
		memcpy(kl->name, f->name, nn + 1);
	}
	return 0;
}

/*
 * Field lines up to a blank line (or "print fmt:"), appended to *v (*n
 * of them); a line that does not parse is noted and passed over.  -1
 * without memory.  sect: 0 the common fields, 1 the event's.
 */
static int
scan_fields(struct ptok *t, const struct scan *sc, int ftrace, int lsize,
    struct tdat_field **v, int *n, int sect)
{
	static const char *const print[] = { "print", "fmt", ":", NULL };
	struct tdat_field *nv;
	size_t start, end, at, len;
	int ty, bad, cap = *n;

	while ((start = t->pos) < t->len) {
		end = line_end(t, start);
		if (!field_word(t)) {
			if (line_starts(t, print))
				break;
			ty = tok_next(t, &at, &len);
			bad = ty != T_ITEM || !span_is(t, at, len, "field");
			if (ty == T_NEWLINE)
				break;
		} else
			bad = 0;
		if (*n == cap) {
			cap = cap < 8 ? 8 : cap * 2;
			if ((nv = realloc(*v, cap * sizeof(*nv))) == NULL)
				return -1;
			*v = nv;
		}
		nv = *v + *n;
		memset(nv, 0, sizeof(*nv));
		if (bad || scan_line(t, end, ftrace, lsize, *n < KEEP_LINES ?
		    &kept_lines[sect][*n] : NULL, nv, &sc->ev->strs) < 0 ||
		    t->pos != end) {
			field_drop(sc->ev->strs, nv);
			scan_note(sc, TDAT_FMT_BAD_FIELD, NULL, NULL);
		} else if (!field_sane(nv)) {
			scan_note(sc, TDAT_FMT_FIELD_RANGE, NULL, nv);
			field_drop(sc->ev->strs, nv);
		} else
			(*n)++;
		t->pos = end;
	}
	return 0;
}

/* Is there a "print fmt:" line (or the simple language) from t on? */
static int
scan_print(struct ptok *t)
{
	static const char *const print[] = { "print", "fmt", ":", NULL };
	size_t at;

	if (simple_start(t, &at))
		return 1;
	while (t->pos < t->len) {
		if (line_starts(t, print))
			return 1;
		t->pos = line_end(t, t->pos);
	}
	return 0;
}

static void
scan_quiet(void *arg, const struct tdat_fmt_issue *is)
{
	(void)arg;
	(void)is;
}

/*
 * The head every kernel writes, "name: WORD\nID: DIGITS\n", read without
 * the tokenizer: scan_header() reads the name (one item, the line ends
 * after it) and then this "ID:", whose value is final.  -2 for any other
 * head, which scan_header() reads.
 */
static int
usual_id(const char *s, size_t len)
{
	char num[8];
	size_t i = 6, d;

	if (len < 6 || memcmp(s, "name: ", 6) != 0)
		return -2;
	while (i < len && ctype_of((unsigned char)s[i]) == T_ITEM)
		i++;
	if (i == 6 || len - i < 5 || memcmp(s + i, "\nID: ", 5) != 0)
		return -2;
	for (d = i += 5; i < len && i - d < sizeof(num) - 1 &&
	    s[i] >= '0' && s[i] <= '9'; i++)
		;
	if (i == d || i >= len || s[i] != '\n')
		return -2;
	memcpy(num, s + d, i - d);
	num[i - d] = '\0';
	return event_id(num);
}

int
tdat_event_scan_id(const char *text, size_t len)
{
	struct ptok t = { text, len, 0, 0 };
	struct tdat_event ev;
	struct scan sc = { scan_quiet, NULL, &ev };
	int r, have_id = 0;

	if ((r = usual_id(text, len)) != -2)
		return r;
	memset(&ev, 0, sizeof(ev));
	r = scan_header(&t, &sc, &have_id);
	free(ev.name);
	return r < 0 || !have_id ? -1 : ev.id;
}

/*
 * The head every kernel writes, "name: WORD\nID: DIGITS\nformat:\n", as
 * scan_header() reads it (a WORD the tokenizer replaces is left to it,
 * as is an ID that is no event id): 1 with the name (in *sp), the id and
 * t->pos after it, 0 for any other head, -1 without memory.
 */
static int
usual_head(struct ptok *t, struct tdat_event *ev, struct tdat_strs **sp)
{
	const char *s = t->buf;
	size_t len = t->len, i = 6, w;
	int id;

	if ((id = usual_id(s, len)) < 0)
		return 0;
	while (ctype_of((unsigned char)s[i]) == T_ITEM)
		i++;
	w = i - 6;
	if ((w == 12 && memcmp(s + 6, "LOCAL_PR_FMT", 12) == 0) ||
	    (w == 10 && (memcmp(s + 6, "STA_PR_FMT", 10) == 0 ||
	    memcmp(s + 6, "VIF_PR_FMT", 10) == 0)))
		return 0;
	/* usual_id() found the name and the digits each end a line */
	for (i += 5; s[i] >= '0' && s[i] <= '9'; i++)
		;
	if (len - i < 9 || memcmp(s + i, "\nformat:\n", 9) != 0)
		return 0;
	if ((ev->name = strs_dup(sp, s + 6, w)) == NULL)
		return -1;
	ev->id = id;
	t->pos = i + 9;
	return 1;
}

int
tdat_event_scan(const char *text, size_t len, const char *system, int lsize,
    void (*note)(void *, const struct tdat_fmt_issue *), void *arg,
    struct tdat_event **out, struct tdat_err *e)
{
	struct ptok t = { text, len, 0, 0 };
	struct scan sc = { note, arg, NULL };
	int r, have_id = 0, ftrace = strcmp(system, "ftrace") == 0;

	*out = NULL;
	if ((sc.ev = calloc(1, sizeof(*sc.ev))) == NULL ||
	    (sc.ev->system = strs_dup(&sc.ev->strs, system,
	    strlen(system))) == NULL)
		goto nomem;
	if ((r = usual_head(&t, sc.ev, &sc.ev->strs)) < 0)
		goto nomem;
	if (r > 0)
		have_id = 1;
	else
		r = scan_header(&t, &sc, &have_id);
	if (r < 0 || !have_id) {
		if (r >= 0)
			scan_note(&sc, TDAT_FMT_NO_ID, NULL, NULL);
		tdat_event_free(sc.ev);
		return tdat_fail_nooff(e, TDAT_ECORRUPT, "%s: bad event format",
		    system);
	}
	if (r == 0) {
		scan_note(&sc, TDAT_FMT_NO_FORMAT, NULL, NULL);
		t.pos = 0;
	} else if (scan_fields(&t, &sc, ftrace, lsize, &sc.ev->common,
	    &sc.ev->ncommon, 0) < 0 || scan_fields(&t, &sc, ftrace, lsize,
	    &sc.ev->fields, &sc.ev->nfields, 1) < 0)
		goto nomem;
	if (!scan_print(&t))
		scan_note(&sc, TDAT_FMT_NO_PRINT, NULL, NULL);
	else if ((sc.ev->fmt = strs_dup(&sc.ev->strs, text + t.pos,
	    len - t.pos)) == NULL)
		goto nomem;
	*out = sc.ev;
	return 0;
nomem:
	tdat_event_free(sc.ev);
	return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
}
