/*
 * print-eval.c: a compiled print format applied to one record, raw field
 * lists (report -R), and bprint records (trace_printk: a printk format's
 * address and binary arguments).
 *
 * Values are read unsigned and computed in unsigned long long, each
 * conversion printed as libtraceevent prints it: the same casts, the same
 * fallbacks ("ARG TYPE NOT FIELD BUT 11"), the same odd cases.
 */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "event-int.h"
#include "tdat-num.h"

/* ------------------------------------------------------------------ */
/* Evaluation. */

struct rec {
	const struct tdat_event *ev;
	const struct tdat_events *set;
	const unsigned char *data;
	uint32_t size;
	uint32_t avail;		/* readable bytes at data, >= size */
	int raw;		/* report -R of libtraceevent 1.8.4 and on:
				 * a function's address follows its name */
	int host;		/* 1: the set and the host are little
				 * endian (op_value() may read 8 bytes at
				 * once) */
};

static inline unsigned long long
read_num(const struct tdat_events *s, const void *p, int n)
{
	return tdat_read_num_at(s, p, n);
}

unsigned long long
tdat_read_num(const struct tdat_events *s, const void *p, int n)
{
	return read_num(s, p, n);
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
		tdat_syms_need(r->set);
		for (i = 0; i < r->set->nsym; i++)
			if (strcmp(r->set->arenas[0] + r->set->sym[i].name,
			    a->str) == 0) {
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
			return l << (rt & 63);
		return op[1] == '=' ? l <= rt : 0;
	case '>':
		if (!op[1])
			return l > rt;
		if (op[1] == '>')
			return l >> (rt & 63);
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
		return read_num(r->set, r->data + a->field->offset,
		    a->field->size);
	case PA_TYPE:
		if (!a->cast_done) {
			/* the cast keeps low bits or all: find which once */
			a->cast_mask = eval_type_str(~0ULL, a->str, 0);
			a->cast_done = 1;
		}
		return eval_num(r, a->left) & a->cast_mask;
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

/* Where a pointer argument of a helper points in the record: a dynamic
 * array or a field, under any casts; -1 for anything else. */
static int
arg_offset(const struct rec *r, const struct parg *a, unsigned *off)
{
	unsigned len;

	while (a != NULL && a->type == PA_TYPE)
		a = a->left;
	if (a == NULL)
		return -1;
	if (a->type == PA_DYNARRAY) {
		dyn_offset(r, a->field, off, &len);
		return 0;
	}
	if (a->type == PA_FIELD && a->field != NULL) {
		*off = (unsigned)a->field->offset;
		return 0;
	}
	return -1;
}

/* The command descriptor block of scsi_trace_parse_cdb(p, cdb, len):
 * the plugin reads up to 32 bytes whatever the length, the page's bytes
 * past the record included. */
static void
scsi_cdb(const struct rec *r, struct parg *a, struct tdat_sbuf *out)
{
	unsigned char cdb[32] = { 0 };
	unsigned off, i;

	if (a == NULL || arg_offset(r, a->next, &off) < 0)
		return;
	for (i = 0; i < sizeof(cdb) && off + i < r->avail; i++)
		cdb[i] = r->data[off + i];
	tdat_scsi_cdb(out, cdb);
}

/* __le16_to_cpup(p): the little-endian 16-bit value at p. */
static unsigned long long
le16_at(const struct rec *r, struct parg *a)
{
	unsigned off;

	if (arg_offset(r, a, &off) < 0 || off >= r->avail ||
	    r->avail - off < 2)
		return 0;
	return (unsigned long long)(r->data[off] | r->data[off + 1] << 8);
}

/* Helpers: jbd2 prints a device as major:minor; jiffies_to_msecs gives
 * its argument back (the jbd2 plugin's view of it); scsi decodes a CDB,
 * xen names a hypercall, cfg80211 reads a little-endian u16. */
static unsigned long long
call_func(const struct rec *r, struct parg *a, struct tdat_sbuf *out)
{
	unsigned long long v;

	switch (a->func) {
	case FN_SCSI_CDB:
		if (out)
			scsi_cdb(r, a->left, out);
		return 0;
	case FN_LE16_TO_CPUP:
		v = le16_at(r, a->left);
		if (out)
			tdat_sb_printf(out, "%d", (int)v);
		return v;
	default:
		break;
	}
	v = eval_num(r, a->left);
	switch (a->func) {
	case FN_JIFFIES_TO_MSECS:
		if (out)
			tdat_sb_printf(out, "%lld", (long long)v);
		return v;
	case FN_JBD2_DEV_TO_NAME:
		if (out)
			tdat_sb_printf(out, "%d:%d", (int)(v >> 20),
			    (int)(v & ((1U << 20) - 1)));
		return 0;
	case FN_XEN_HYPERCALL:
		if (out)
			tdat_sb_puts(out, tdat_xen_hypercall(v));
		return 0;
	}
	return 0;
}

/*
 * A conversion's '*' argument, or NO_LEN when it has none: every value a
 * record gives is an argument, a negative one too (a width of -5 pads on
 * the left, as printf's), and star_arg() never makes NO_LEN of one.
 */
#define NO_LEN	INT_MIN

/* printf of one conversion with an optional '*' length. */
static void
put_str(struct tdat_sbuf *out, const char *fmt, int len_arg, const char *s)
{
	if (fmt[0] == '%' && fmt[1] == 's' && !fmt[2]) {
		sb_add(out, s, strlen(s));
		return;
	}
	if (len_arg != NO_LEN)
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
static void print_fields_avail(const struct tdat_event *,
    const unsigned char *, uint32_t, uint32_t, int, struct tdat_sbuf *);

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

/*
 * __print_array: {0x1,0x2} as the kernel prints it, libtraceevent 1.8.4
 * and on (trace-cmd 3.3, 3.4); before (trace-cmd 3.1.6 with 1.7.1) the
 * elements as unsigned decimals, a space between them, no braces.
 */
static void
print_int_array(const struct rec *r, struct tdat_sbuf *out, struct parg *a)
{
	const unsigned char *p;
	unsigned avail = 0, i, n, el;
	int old = r->set && r->set->tc == TDAT_TC_31;

	if ((p = array_base(r, a->left, &avail)) == NULL)
		return;
	el = (unsigned)eval_num(r, a->third);
	if (a->right != NULL) {
		n = (unsigned)eval_num(r, a->right);
	} else {			/* __print_dynamic_array */
		dyn_offset(r, a->left->field, &i, &n);
		n /= el == 1 || el == 2 || el == 4 || el == 8 ? el : 1;
	}
	if (!old)
		tdat_sb_putc(out, '{');
	for (i = 0; i < n; i++) {
		unsigned sz = el == 1 || el == 2 || el == 4 || el == 8 ? el : 1;

		if (i)
			tdat_sb_putc(out, old ? ' ' : ',');
		if (sz > avail)
			break;
		if ((el == 1 || el == 2 || el == 4 || el == 8) && old)
			tdat_sb_printf(out, "%llu", host_read(p, el));
		else if (el == 1 || el == 2 || el == 4 || el == 8)
			tdat_sb_printf(out, "0x%llx", host_read(p, el));
		else
			tdat_sb_printf(out, "BAD SIZE:%d 0x%x", (int)el, p[0]);
		p += sz;
		avail -= sz;
	}
	if (!old)
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
	if (len < 0 || (uint32_t)f->offset >= r->avail)
		len = 0;
	else if ((uint32_t)len > r->avail - (uint32_t)f->offset)
		len = (int)(r->avail - (uint32_t)f->offset);
	if ((s = malloc((size_t)len + 1)) == NULL)
		return;
	if (len > 0)
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
	size_t n = strnlen((const char *)r->data + off, r->avail - off);
	char *s;

	if (off + n < r->avail) {
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
function_at(const struct rec *r, struct tdat_sbuf *out, char conv,
    unsigned long long v)
{
	unsigned long long start = 0;
	size_t len = 0;
	const char *name = NULL;
	int hit = 0;

	if (r->set != NULL) {
		name = tdat_events_sym_hit(r->set, v, &start, &len, &hit);
		if (!hit)
			name = tdat_events_sym_len(r->set, v, &start, &len);
	}

	if (name) {
		sb_add(out, name, len);
		if (conv == 'F' || conv == 'S')
			tdat_sb_printf(out, "+0x%llx", v - start);
		if (!r->raw)
			return;
	}
	if (r->raw)
		sb_add(out, " (", 2);
	if (r->set && r->set->lsize == 4)
		tdat_sb_printf(out, "0x%lx", (long)v);
	else
		tdat_sb_printf(out, "0x%llx", v);
	if (r->raw)
		sb_putc(out, ')');
}

static void
print_function(const struct rec *r, struct tdat_sbuf *out, char conv,
    struct parg *a)
{
	function_at(r, out, conv, eval_num(r, a));
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
print_pointer(const struct rec *r, struct tdat_sbuf *out, const char *p,
    int plen, struct parg *a)
{
	unsigned long long v;

	if (a->type == PA_BSTRING) {
		tdat_sb_puts(out, a->str);
		return;
	}
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
	if (v < 10) {
		sb_putc(out, (int)('0' + v));
		return;
	}
	sb_udec(out, v);
}

void
tdat_put_dec(struct tdat_sbuf *out, long long v)
{
	if (v < 0) {
		sb_putc(out, '-');
		tdat_put_udec(out, 0ULL - (unsigned long long)v);
	} else
		tdat_put_udec(out, (unsigned long long)v);
}

static void
put_hex(struct tdat_sbuf *out, unsigned long long v)
{
	sb_hex(out, v);
}

/* s (n bytes) right- or left-justified in width columns. */
void
tdat_put_pad(struct tdat_sbuf *out, const char *s, size_t n, int width,
    int left)
{
	static const char sp[] = "                                ";
	size_t pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;

	if (left)
		sb_add(out, s, n);
	while (pad > 0) {
		size_t k = pad < sizeof(sp) - 1 ? pad : sizeof(sp) - 1;

		sb_add(out, sp, k);
		pad -= k;
	}
	if (!left)
		sb_add(out, s, n);
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
		if (plen != NO_LEN)
			tdat_sb_printf(out, fmt, plen, (char)v);
		else
			tdat_sb_printf(out, fmt, (char)v);
		break;
	case -1:
		if (plen != NO_LEN)
			tdat_sb_printf(out, fmt, plen, (short)v);
		else
			tdat_sb_printf(out, fmt, (short)v);
		break;
	case 0:
		if (plen != NO_LEN)
			tdat_sb_printf(out, fmt, plen, (int)v);
		else
			tdat_sb_printf(out, fmt, (int)v);
		break;
	case 1:
		if (plen != NO_LEN)
			tdat_sb_printf(out, fmt, plen, (long)v);
		else
			tdat_sb_printf(out, fmt, (long)v);
		break;
	case 2:
		if (plen != NO_LEN)
			tdat_sb_printf(out, fmt, plen, (long long)v);
		else
			tdat_sb_printf(out, fmt, (long long)v);
		break;
	}
}

/*
 * A '*' argument as it pads at most: TDAT_WIDTH_MAX columns, or (a
 * negative width) left-justified in as many; a negative precision is as
 * none (-1); a string's precision and a pointer's count are kept (they
 * print no more than the record holds).
 */
static int
star_arg(const struct pitem *it, int v)
{
	if (it->type == PP_POINTER)
		return v;
	if (it->star_prec && v < 0)
		return -1;
	if (it->star_prec && it->type == PP_STR)
		return v;
	if (v > TDAT_WIDTH_MAX)
		return TDAT_WIDTH_MAX;
	if (v < -TDAT_WIDTH_MAX)
		return -TDAT_WIDTH_MAX;
	return v;
}

static int
print_item(const struct rec *r, struct tdat_sbuf *out, const struct pitem *it)
{
	int len_arg = NO_LEN;

	if (it->len_arg)
		len_arg = star_arg(it, (int)eval_num(r, it->len_arg));
	switch (it->type) {
	case PP_DIGIT:
		if (it->fast)
			print_fast(out, it->fast, it->ls, eval_num(r, it->arg));
		else
			print_number(r, out, it->format,
			    len_arg, it->ls, it->arg);
		return 0;
	case PP_POINTER:
		print_pointer(r, out, it->format + it->pext,
		    it->len_arg ? len_arg : 1,
		    it->arg);
		return 0;
	case PP_STR:
		print_str_arg(r, out, it->format, len_arg,
		    it->arg);
		return 0;
	default:
		sb_add(out, it->format, it->flen);
		return 1;
	}
}

static void
print_items(const struct rec *r, const struct tdat_print *p,
    struct tdat_sbuf *out)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (p->it[i].type == PP_STRING)
			sb_add(out, p->it[i].format, p->it[i].flen);
		else
			print_item(r, out, &p->it[i]);
}

/* ------------------------------------------------------------------ */
/*
 * A print format as steps, made once per event type on its first record:
 * literal text, a plain number or a kernel symbol read straight from a
 * field (under any casts), or an item walked as above.  What each step
 * prints is what print_item() prints for its item.
 */

enum { OP_TEXT, OP_SHORT, OP_NUM, OP_SYM, OP_ITEM };

struct pop {
	unsigned char op;	/* OP_* */
	unsigned char size;	/* OP_NUM, OP_SYM: the field's bytes */
	char conv;		/* OP_NUM: 'd', 'u' or 'x'; OP_SYM: F f S s */
	signed char ls;		/* OP_NUM: length modifier */
	uint32_t off;		/* the field's offset */
	unsigned long long mask;	/* what the casts keep; OP_NUM: and
					 * its length modifier */
	unsigned long long sign;	/* OP_NUM 'd': the sign bit of that
					 * width (0: 64 bits) */
	unsigned long long wmask;	/* mask and the field's width */
	const struct pitem *it;
	uint32_t room;		/* run_ops_fast(): the bytes this step and
				 * those after it write at most */
	unsigned char fop;	/* run_ops_fast()'s step: F_* */
	char text[SB_SHORT];	/* OP_SHORT: the text, padded */
};

/* run_ops_fast()'s steps: OP_NUM by its conversion, OP_SYM of a name
 * alone ('f', 's': the symbol cache's name copied in place); calls: the
 * rest.  F_PRE_*: an OP_SHORT and the step after it, of that kind, taken
 * in one turn of the loop. */
enum { F_SHORT, F_TEXT, F_UDEC, F_SDEC, F_HEX, F_SYM, F_CALL,
	F_PRE_UDEC, F_PRE_SDEC, F_PRE_HEX, F_PRE_SYM };

/* The field an argument reads under its casts, and what they keep;
 * NULL for anything else. */
static const struct tdat_field *
field_under_casts(struct parg *a, unsigned long long *mask)
{
	*mask = ~0ULL;
	while (a != NULL && a->type == PA_TYPE) {
		if (!a->cast_done) {
			a->cast_mask = eval_type_str(~0ULL, a->str, 0);
			a->cast_done = 1;
		}
		*mask &= a->cast_mask;
		a = a->left;
	}
	if (a == NULL || a->type != PA_FIELD || a->field == NULL ||
	    a->field->offset < 0 || (a->field->size != 1 &&
	    a->field->size != 2 && a->field->size != 4 &&
	    a->field->size != 8))
		return NULL;
	return a->field;
}

/* print_fast()'s cast of an OP_NUM folded into its mask and sign bit. */
static void
num_width(struct pop *o)
{
	int bits = o->ls <= -2 ? 8 : o->ls == -1 ? 16 : o->ls == 0 ? 32 : 64;

	o->sign = 0;
	if (bits == 64)
		return;
	o->mask &= (1ULL << bits) - 1;
	if (o->conv == 'd')
		o->sign = 1ULL << (bits - 1);
}

static void
compile_item(struct pop *o, const struct pitem *it)
{
	const struct tdat_field *f = NULL;
	const char *ext;

	o->op = OP_ITEM;
	o->it = it;
	if (it->type == PP_STRING) {
		o->op = OP_TEXT;
		if (it->flen <= SB_SHORT) {
			o->op = OP_SHORT;
			memcpy(o->text, it->format, it->flen);
		}
		return;
	}
	if (it->len_arg)
		return;
	if (it->type == PP_DIGIT && it->fast) {
		if ((f = field_under_casts(it->arg, &o->mask)) == NULL)
			return;
		o->op = OP_NUM;
		o->conv = (char)it->fast;
		o->ls = (signed char)it->ls;
		num_width(o);
	} else if (it->type == PP_POINTER && it->arg != NULL &&
	    it->arg->type != PA_BSTRING) {
		ext = it->format + it->pext;
		if (strchr("FfSs", *ext) == NULL || *ext == '\0' ||
		    (f = field_under_casts(it->arg, &o->mask)) == NULL)
			return;
		o->op = OP_SYM;
		o->conv = *ext;
	} else
		return;
	o->size = (unsigned char)f->size;
	o->off = (uint32_t)f->offset;
	o->wmask = o->mask;
	if (f->size < 8)
		o->wmask &= (1ULL << (8 * f->size)) - 1;
}

/* The most bytes step o writes past where it starts (run_ops_fast()). */
static uint32_t
step_room(const struct pop *o)
{
	switch (o->fop) {
	case F_SHORT:
		return SB_SHORT;
	case F_TEXT:
		return (uint32_t)o->it->flen;
	case F_CALL:
	case F_SYM:
		return 0;
	default:
		return 24;	/* 20 digits and a sign */
	}
}

/* The step an OP_SHORT followed by a step of kind next makes. */
static unsigned char
pre_step(unsigned char next)
{
	switch (next) {
	case F_UDEC:
		return F_PRE_UDEC;
	case F_SDEC:
		return F_PRE_SDEC;
	case F_HEX:
		return F_PRE_HEX;
	case F_SYM:
		return F_PRE_SYM;
	default:
		return F_SHORT;
	}
}

/* run_ops_fast()'s view of p's steps: their kinds, the room each needs
 * from there on, the record bytes their fields take. */
static void
fast_steps(struct tdat_print *p)
{
	struct pop *o;
	uint32_t room = 1;	/* the NUL */
	int i;

	p->need = p->reach = 0;
	for (i = p->n - 1; i >= 0; i--) {
		o = &p->ops[i];
		o->fop = o->op == OP_SHORT ? F_SHORT : o->op == OP_TEXT ?
		    F_TEXT : o->op == OP_SYM && (o->conv == 'f' ||
		    o->conv == 's') ? F_SYM : o->op != OP_NUM ? F_CALL :
		    o->conv == 'u' ? F_UDEC : o->conv == 'd' ? F_SDEC : F_HEX;
		room += step_room(o);
		o->room = room;
		if (o->fop == F_SHORT && i + 1 < p->n)
			o->fop = pre_step(o[1].fop);
		if ((o->op == OP_NUM || o->op == OP_SYM) &&
		    o->off > UINT32_MAX - 8) {
			p->need = p->reach = UINT32_MAX;	/* never */
		} else if (o->op == OP_NUM || o->op == OP_SYM) {
			if (o->off + o->size > p->need)
				p->need = o->off + o->size;
			if (o->off + 8 > p->reach)
				p->reach = o->off + 8;
		}
	}
}

/* The steps of p; NULL when there is no memory for them. */
static const struct pop *
print_ops(struct tdat_print *p)
{
	int i;

	if (p->ops != NULL || p->nops < 0)
		return p->ops;
	if (p->n == 0 || (p->ops = calloc((size_t)p->n, sizeof(*p->ops))) ==
	    NULL) {
		p->nops = -1;
		return NULL;
	}
	p->nul_free = 1;
	for (i = 0; i < p->n; i++) {
		compile_item(&p->ops[i], &p->it[i]);
		if (p->ops[i].op == OP_ITEM)	/* texts: flen is strlen */
			p->nul_free = 0;
	}
	fast_steps(p);
	p->nops = p->n;
	return p->ops;
}

static inline unsigned long long
op_value(const struct rec *r, const struct pop *o)
{
	uint64_t d;

	if (o->off + o->size > r->size)
		return 0;
	if (r->host && o->off + 8 <= r->avail) {
		/* the field's bytes and what follows, which wmask drops */
		memcpy(&d, r->data + o->off, 8);
		return d & o->wmask;
	}
	return read_num(r->set, r->data + o->off, o->size) & o->mask;
}

/* print_fast() of an OP_NUM's value, its mask applied (op_value()). */
static inline void
put_num(struct tdat_sbuf *out, const struct pop *o, unsigned long long v)
{
	if (o->conv == 'u' || (o->conv == 'd' && (o->sign ? !(v & o->sign) :
	    (long long)v >= 0))) {
		if (v < 10)
			sb_putc(out, (int)('0' + v));
		else
			sb_udec(out, v);
	} else if (o->conv != 'd')
		put_hex(out, v);
	else if (v & o->sign)	/* negative in its width */
		tdat_put_dec(out, (long long)(v | ~((o->sign << 1) - 1)));
	else
		tdat_put_dec(out, (long long)v);
}

static void run_ops(const struct rec *, const struct pop *, int,
    struct tdat_sbuf *);

/* op_value() of a step when its record holds every step's 8 bytes. */
static inline unsigned long long
op_load(const struct rec *r, const struct pop *o)
{
	uint64_t d;

	memcpy(&d, r->data + o->off, 8);
	return d & o->wmask;
}

/* put_num()'s "%lld" of an OP_NUM 'd' value, at w; returns the end. */
static inline __attribute__((always_inline)) char *
sdec_at(char *w, const struct pop *o, unsigned long long v)
{
	long long s = (long long)v;

	if (o->sign ? (v & o->sign) != 0 : s < 0) {
		if (o->sign)
			s = (long long)(v | ~((o->sign << 1) - 1));
		*w++ = '-';
		v = 0ULL - (unsigned long long)s;
	}
	/* jn_u64() stores 8 bytes at most past w: within the step's 24 */
	if (v < 10) {	/* the common case: one digit */
		*w = (char)('0' + v);
		return w + 1;
	}
	if (v < 100) {	/* depths, counts: two digits from the table */
		memcpy(w, tdat_dec2 + 2 * v, 2);
		return w + 2;
	}
	return jn_u64(w, v);
}

/* The n bytes at s to w, without a call for the names of 8 to 32 bytes
 * most symbols have: two overlapping fixed-size copies, each within the
 * n bytes of s and of w. */
static inline void
copy_name(char *w, const char *s, size_t n)
{
	if (n >= 16 && n <= 32) {
		memcpy(w, s, 16);
		memcpy(w + n - 16, s + n - 16, 16);
	} else if (n >= 8 && n < 16) {
		memcpy(w, s, 8);
		memcpy(w + n - 8, s + n - 8, 8);
	} else
		memcpy(w, s, n);
}

/*
 * run_ops() with no check of the record or the buffer at each step: the
 * record in the host's byte order holds every step's field and the 8
 * bytes op_load() reads there, and out has room for every step up to the
 * next call (o->room).  A call (a symbol, an item) writes through out;
 * when the room left after it is too small the rest goes to run_ops().
 * 0: not taken (nothing written).
 */
static inline __attribute__((always_inline)) int
run_ops_fast(const struct rec *r, const struct tdat_print *p,
    struct tdat_sbuf *out)
{
	const struct pop *o = p->ops, *end = o + p->nops;
	unsigned long long start;
	const char *name;
	size_t len;
	char *w;
	int hit;

	if (!r->host || p->need > r->size || p->reach > r->avail ||
	    out->cap - out->len <= o->room)
		return 0;
	w = out->p + out->len;
	for (; o < end; o++) {
		switch (o->fop) {
		case F_SHORT:
			memcpy(w, o->text, SB_SHORT);
			w += o->it->flen;
			break;
		case F_TEXT:
			memcpy(w, o->it->format, o->it->flen);
			w += o->it->flen;
			break;
		case F_PRE_UDEC:
			memcpy(w, o->text, SB_SHORT);
			w += o->it->flen;
			o++;
			/* FALLTHROUGH */
		case F_UDEC:	/* jn_u64(): stores within the step's room */
			w = jn_u64(w, op_load(r, o));
			break;
		case F_PRE_HEX:
			memcpy(w, o->text, SB_SHORT);
			w += o->it->flen;
			o++;
			/* FALLTHROUGH */
		case F_HEX:
			/* tdat_hex_at() stores 16 bytes: within the step's 24 */
			w = tdat_hex_at(w, op_load(r, o));
			break;
		case F_PRE_SDEC:
			memcpy(w, o->text, SB_SHORT);
			w += o->it->flen;
			o++;
			/* FALLTHROUGH */
		case F_SDEC:
			w = sdec_at(w, o, op_load(r, o));
			break;
		case F_PRE_SYM:
			memcpy(w, o->text, SB_SHORT);
			w += o->it->flen;
			o++;
			/* FALLTHROUGH */
		case F_SYM:	/* function_at()'s name from the cache */
			if (!r->raw && r->set != NULL && (name =
			    tdat_events_sym_hit(r->set, op_load(r, o), &start,
			    &len, &hit)) != NULL && (size_t)(out->p + out->cap -
			    w) > len + (o + 1 < end ? o[1].room : 1)) {
				copy_name(w, name, len);
				w += len;
				break;
			}
			/* FALLTHROUGH */
		default:
			*w = '\0';
			out->len = (size_t)(w - out->p);
			if (o->op == OP_SYM)
				function_at(r, out, o->conv, op_load(r, o));
			else
				print_item(r, out, o->it);
			if (o + 1 < end && out->cap - out->len <= o[1].room) {
				run_ops(r, o + 1, (int)(end - o - 1), out);
				return 1;
			}
			w = out->p + out->len;
		}
	}
	*w = '\0';
	out->len = (size_t)(w - out->p);
	return 1;
}

static void
run_ops(const struct rec *r, const struct pop *o, int n,
    struct tdat_sbuf *out)
{
	const struct pop *end = o + n;

	for (; o < end; o++) {
		switch (o->op) {
		case OP_SHORT:
			sb_add_short(out, o->text, o->it->flen);
			break;
		case OP_TEXT:
			sb_add(out, o->it->format, o->it->flen);
			break;
		case OP_NUM:
			put_num(out, o, op_value(r, o));
			break;
		case OP_SYM:
			function_at(r, out, o->conv, op_value(r, o));
			break;
		default:
			print_item(r, out, o->it);
			break;
		}
	}
}

/* The items of an event's own print format: as steps once made. */
static void
print_event_items(const struct rec *r, struct tdat_print *p,
    struct tdat_sbuf *out)
{
	const struct pop *o = print_ops(p);

	if (o == NULL)
		print_items(r, p, out);
	else if (!run_ops_fast(r, p, out))
		run_ops(r, o, p->nops, out);
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
		if (off > r->avail)
			off = len = 0;
		if (len > r->avail - off)	/* no overflow: off <= avail */
			len = r->avail - off;
		if ((f->flags & TDAT_FLD_STRING) &&
		    printable(r->data + off, len)) {
			put_data_str(r, out, "%s", NO_LEN, off);
			return;
		}
		tdat_sb_puts(out, "ARRAY[");
		for (i = 0; i < len; i++)
			tdat_sb_printf(out, i ? ", %02x" : "%02x",
			    r->data[off + i]);
		tdat_sb_putc(out, ']');
		/* libtraceevent stops treating it as a string from now on */
		if ((f->flags & TDAT_FLD_STRING) && r->ev->set != NULL)
			r->ev->set->sticky++;
		f->flags &= ~TDAT_FLD_STRING;
		return;
	}
	/* No sum: offset + size wraps for a huge offset (fuzz-format). */
	if (f->offset < 0 || f->size < 0 || (uint32_t)f->offset > r->size ||
	    (uint32_t)f->size > r->size - (uint32_t)f->offset)
		v = 0;
	else
		v = tdat_read_num(r->set, r->data + f->offset, f->size);
	if (f->flags & TDAT_FLD_POINTER) {
		sb_add(out, "0x", 2);
		put_hex(out, v);
	} else if (f->flags & TDAT_FLD_SIGNED) {
		switch (f->size) {
		case 4:
			if (f->flags & TDAT_FLD_LONG)
				tdat_sb_printf(out, "0x%x", (int)v);
			else
				tdat_put_dec(out, (int)v);
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
	} else if (f->flags & TDAT_FLD_LONG) {
		sb_add(out, "0x", 2);
		put_hex(out, v);
	} else
		tdat_put_udec(out, v);
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
	print_fields_avail(ev, data, size, size, use_fmt, out);
}

static void
print_fields_avail(const struct tdat_event *ev, const unsigned char *data,
    uint32_t size, uint32_t avail, int use_fmt, struct tdat_sbuf *out)
{
	struct rec r = { ev, ev->set, data, size, avail,
	    use_fmt && ev->set && ev->set->tc != 0, 0 };
	int i, cursor = 0;

	for (i = 0; i < ev->nfields; i++) {
		sb_putc(out, ' ');
		sb_add(out, ev->fields[i].name, strlen(ev->fields[i].name));
		sb_putc(out, '=');
		field_value(&r, out, &ev->fields[i], use_fmt ? &cursor : NULL);
	}
}

/* ------------------------------------------------------------------ */
/* bprint: trace_printk() with the format's address and binary args. */

static struct parg *
atom_num(unsigned long long v)
{
	struct parg *a = tdat_parg_new();

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
	const struct tdat_field *buf = tdat_own_field(r->ev,
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
			if ((a = tdat_parg_new()) == NULL)
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
	const struct tdat_field *ff = tdat_own_field(ev, "fmt");
	const struct tdat_field *ipf = tdat_own_field(ev, "ip");
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
	tdat_print_items(&p, &failed, fmt, args);
	if (failed) {
		ev->failed = 1;	/* sticky, as in libtraceevent */
		if (ev->set != NULL)
			ev->set->sticky++;
	}
	print_items(r, &p, out);
	for (i = 0; i < p.n; i++)
		free(p.it[i].format);
	free(p.it);
	tdat_parg_free_list(args);
	free(fmt);
}

static void
print_pretty_how(const struct tdat_event *ev, const unsigned char *data,
    uint32_t size, uint32_t avail, int walk, struct tdat_sbuf *out)
{
	struct rec r = { ev, ev->set, data, size, avail, 0,
	    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && ev->set != NULL &&
	    !ev->set->big };

	if (ev->failed) {
		tdat_sb_puts(out, "[FAILED TO PARSE]");
		print_fields_avail(ev, data, size, avail, 0, out);
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
	if (ev->print && walk)
		print_items(&r, ev->print, out);
	else if (ev->print)
		print_event_items(&r, ev->print, out);
}

int
tdat_event_nul_free(const struct tdat_event *ev, int mode)
{
	const struct tdat_print *p = ev->print;

	if (mode == TDAT_PRINT_RAW || (mode == TDAT_PRINT_PLUGINS &&
	    ev->plugin) || ev->failed ||
	    (ev->flags & (TDAT_EV_BPRINT | TDAT_EV_SIMPLE)) || p == NULL)
		return 0;
	return p->ops != NULL && p->nops > 0 && p->nul_free;
}

static void
print_pretty(const struct tdat_event *ev, const unsigned char *data,
    uint32_t size, uint32_t avail, struct tdat_sbuf *out)
{
	print_pretty_how(ev, data, size, avail, 0, out);
}

void
tdat_print_walk(const struct tdat_event *ev, const unsigned char *data,
    uint32_t size, struct tdat_sbuf *out)
{
	print_pretty_how(ev, data, size, size, 1, out);
}

void
tdat_print_pretty(const struct tdat_event *ev, const unsigned char *data,
    uint32_t size, struct tdat_sbuf *out)
{
	print_pretty(ev, data, size, size, out);
}

void
tdat_event_print_ctx(const struct tdat_event *ev,
    const struct tdat_record *rec, uint32_t avail, int mode,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	if (avail < rec->size)
		avail = rec->size;
	if (mode == TDAT_PRINT_RAW) {
		print_fields_avail(ev, rec->data, rec->size, avail, 1, out);
		return;
	}
	if (mode == TDAT_PRINT_PLUGINS && ev->plugin &&
	    ev->plugin->print(ev, rec, ctx, out) == 0)
		return;
	print_pretty(ev, rec->data, rec->size, avail, out);
}

void
tdat_event_print_avail(const struct tdat_event *ev,
    const struct tdat_record *rec, uint32_t avail, int mode,
    struct tdat_sbuf *out)
{
	tdat_event_print_ctx(ev, rec, avail, mode, NULL, out);
}

int
tdat_event_own(const struct tdat_event *ev, int mode)
{
	return mode != TDAT_PRINT_RAW && !(mode == TDAT_PRINT_PLUGINS &&
	    ev->plugin) && !ev->failed && !(ev->flags & (TDAT_EV_BPRINT |
	    TDAT_EV_SIMPLE)) && ev->print != NULL;
}

/* print_pretty_how()'s last branch, its checks made once by the caller
 * (tdat_event_own()). */
void
tdat_event_print_own(const struct tdat_event *ev,
    const struct tdat_record *rec, struct tdat_sbuf *out)
{
	struct rec r = { ev, ev->set, rec->data, rec->size,
	    rec->avail < rec->size ? rec->size : rec->avail, 0,
	    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && ev->set != NULL &&
	    !ev->set->big };
	const struct pop *o = ev->print->ops;

	/* print_event_items() in place when the steps are made: a call
	 * less for each record */
	if (o == NULL)
		print_event_items(&r, ev->print, out);
	else if (!run_ops_fast(&r, ev->print, out))
		run_ops(&r, o, ev->print->nops, out);
}

/* A string runs to its NUL, past the record's end too: libtraceevent
 * prints it with "%s" from the page (an empty one in raw mode as well). */
void
tdat_event_print(const struct tdat_event *ev, const struct tdat_record *rec,
    int mode, struct tdat_sbuf *out)
{
	tdat_event_print_avail(ev, rec, rec->avail, mode, out);
}
