/*
 * btf.c: the kernel's BTF, which trace-cmd 3.4 saves (a BTF_FILE section)
 * when it records function arguments, read for what the function and
 * function_graph plugins of libtraceevent 1.9 print of them:
 * vfs_open(path=0x..., file=0x...).  Only the types and the functions'
 * prototypes are read (see the kernel's include/uapi/linux/btf.h and
 * Documentation/bpf/btf.rst).  Every offset, id and count is checked
 * against the data: BTF that does not hold together is not used, and a
 * function prints its arguments as raw numbers, as it does with no BTF.
 */
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "event-int.h"

enum {
	K_UNKN, K_INT, K_PTR, K_ARRAY, K_STRUCT, K_UNION, K_ENUM, K_FWD,
	K_TYPEDEF, K_VOLATILE, K_CONST, K_RESTRICT, K_FUNC, K_FUNC_PROTO,
	K_VAR, K_DATASEC, K_FLOAT, K_DECL_TAG, K_TYPE_TAG, K_ENUM64, K_NKINDS
};

static const char *const kind_name[K_NKINDS] = {
	"UNKNOWN", "INT", "PTR", "ARRAY", "STRUCT", "UNION", "ENUM", "FWD",
	"TYPEDEF", "VOLATILE", "CONST", "RESTRICT", "FUNC", "FUNC_PROTO",
	"VAR", "DATASEC", "FLOAT", "DECL_TAG", "TYPE_TAG", "ENUM64",
};

#define TYPE_HDR	12	/* name_off, info, size or type */

struct fname {
	const char *name;
	uint32_t id;
};

struct tdat_btf {
	const unsigned char *types;	/* the type part */
	uint32_t tlen;
	const char *str;		/* the string part */
	uint32_t slen;
	uint32_t *off;			/* offset in types of type id i + 1 */
	uint32_t ntype;
	struct fname *func;		/* the FUNC types, by name, then id */
	uint32_t nfunc;
};

/* BTF is in the byte order of the machine that made it; like
 * libtraceevent, only the reader's own is taken. */
static uint32_t
rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint32_t
rd16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static uint32_t
kind_of(uint32_t info)
{
	return (info >> 24) & 0x1f;
}

static uint32_t
vlen_of(uint32_t info)
{
	return info & 0xffff;
}

/* Bytes of the type whose info is given, its header included; 0 for a
 * kind this reader does not know (libtraceevent then takes no BTF). */
static uint64_t
type_size(uint32_t info)
{
	uint64_t v = vlen_of(info);

	switch (kind_of(info)) {
	case K_INT: case K_VAR: case K_DECL_TAG:
		return TYPE_HDR + 4;
	case K_ARRAY:
		return TYPE_HDR + 12;
	case K_ENUM:
		return TYPE_HDR + 8 * v;
	case K_ENUM64: case K_STRUCT: case K_UNION: case K_DATASEC:
		return TYPE_HDR + 12 * v;
	case K_FUNC_PROTO:
		return TYPE_HDR + 8 * v;
	case K_PTR: case K_FWD: case K_TYPEDEF: case K_VOLATILE: case K_CONST:
	case K_RESTRICT: case K_TYPE_TAG: case K_FUNC: case K_FLOAT:
		return TYPE_HDR;
	}
	return 0;
}

/* The string at off, or "" when it lies outside the strings or runs
 * past them. */
static const char *
name_at(const struct tdat_btf *b, uint32_t off)
{
	if (off >= b->slen || memchr(b->str + off, '\0', b->slen - off) ==
	    NULL)
		return "";
	return b->str + off;
}

static int
fname_cmp(const void *a, const void *b)
{
	const struct fname *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->id < y->id ? -1 : x->id > y->id;
}

static int
fname_key(const void *k, const void *b)
{
	return strcmp(k, ((const struct fname *)b)->name);
}

void
tdat_btf_free(struct tdat_btf *b)
{
	if (b == NULL)
		return;
	free(b->off);
	free(b->func);
	free(b);
}

struct tdat_btf *
tdat_btf_new(const unsigned char *p, uint64_t n)
{
	struct tdat_btf *b;
	uint32_t hl, toff, tlen, soff, slen, at, info, max;
	uint64_t sz;

	if (p == NULL || n < 24 || n > UINT32_MAX || rd16(p) != 0xeb9f ||
	    p[2] != 1)
		return NULL;
	hl = rd32(p + 4);
	toff = rd32(p + 8);
	tlen = rd32(p + 12);
	soff = rd32(p + 16);
	slen = rd32(p + 20);
	if (hl < 24 || hl > n || (uint64_t)toff + tlen > n - hl ||
	    (uint64_t)soff + slen > n - hl)
		return NULL;
	if ((b = calloc(1, sizeof(*b))) == NULL)
		return NULL;
	b->types = p + hl + toff;
	b->tlen = tlen;
	b->str = (const char *)p + hl + soff;
	b->slen = slen;
	max = tlen / TYPE_HDR;
	if ((b->off = malloc((max ? max : 1) * sizeof(*b->off))) == NULL ||
	    (b->func = malloc((max ? max : 1) * sizeof(*b->func))) == NULL)
		goto fail;
	for (at = 0; at < tlen; at += (uint32_t)sz) {
		if (tlen - at < TYPE_HDR)
			goto fail;
		info = rd32(b->types + at + 4);
		if ((sz = type_size(info)) == 0 || sz > tlen - at ||
		    b->ntype >= max)
			goto fail;
		b->off[b->ntype++] = at;
		if (kind_of(info) == K_FUNC) {
			b->func[b->nfunc].name = name_at(b, rd32(b->types + at));
			b->func[b->nfunc++].id = b->ntype;
		}
	}
	qsort(b->func, b->nfunc, sizeof(*b->func), fname_cmp);
	return b;
fail:
	tdat_btf_free(b);
	return NULL;
}

/* The type of id (1...), its header; NULL for 0 or an id past the last. */
static const unsigned char *
type_at(const struct tdat_btf *b, uint32_t id)
{
	if (id == 0 || id > b->ntype)
		return NULL;
	return b->types + b->off[id - 1];
}

/* Past typedefs and qualifiers (a chain no longer than the types). */
static const unsigned char *
skip_mods(const struct tdat_btf *b, uint32_t id)
{
	const unsigned char *t = type_at(b, id);
	uint32_t n;

	for (n = 0; t != NULL && n <= b->ntype; n++) {
		switch (kind_of(rd32(t + 4))) {
		case K_TYPEDEF: case K_VOLATILE: case K_CONST: case K_RESTRICT:
		case K_TYPE_TAG:
			t = type_at(b, rd32(t + 8));
			continue;
		}
		return t;
	}
	return NULL;
}

static const unsigned char *
find_func(const struct tdat_btf *b, const char *name)
{
	const struct fname *f;

	if (b == NULL || b->nfunc == 0)
		return NULL;
	f = bsearch(name, b->func, b->nfunc, sizeof(*b->func), fname_key);
	return f ? type_at(b, f->id) : NULL;
}

static unsigned long long
arg_at(const unsigned char *args, int size, int i, int big)
{
	return size == 4 ? tdat_get32(args + 4 * i, big) :
	    tdat_get64(args + 8 * i, big);
}

void
tdat_btf_print_args(const struct tdat_btf *b, struct tdat_sbuf *out,
    const unsigned char *args, int nmem, int size, int big, const char *func)
{
	const unsigned char *fn = find_func(b, func), *proto, *t, *par;
	unsigned long long v;
	uint32_t enc, bits, nr, p, x, tsize;
	const char *dot;
	char *base;
	int a, i;

	if (size != 4 && size != 8)
		return;
	if (fn == NULL && (dot = strchr(func, '.')) != NULL &&
	    (base = strndup(func, (size_t)(dot - func))) != NULL) {
		/* vfs_open.isra.0: as vfs_open */
		fn = find_func(b, base);
		free(base);
	}
	if (fn == NULL) {
		for (i = 0; i < nmem; i++)
			tdat_sb_printf(out, "%s%llx", i ? ", " : "",
			    arg_at(args, size, i, big));
		return;
	}
	if ((proto = type_at(b, rd32(fn + 8))) == NULL ||
	    kind_of(rd32(proto + 4)) != K_FUNC_PROTO)
		return;
	nr = vlen_of(rd32(proto + 4));
	par = proto + TYPE_HDR;
	for (a = 0, p = 0; p < nr; a++, p++) {
		if (p)
			tdat_sb_puts(out, ", ");
		if (a >= nmem) {
			tdat_sb_puts(out, "...");
			break;
		}
		v = arg_at(args, size, a, big);
		tdat_sb_printf(out, "%s=", name_at(b, rd32(par + 8 * p)));
		if (rd32(par + 8 * p + 4) == 0)
			continue;
		t = skip_mods(b, rd32(par + 8 * p + 4));
		switch (t ? kind_of(rd32(t + 4)) : K_UNKN) {
		case K_UNKN:
			tdat_sb_putc(out, '?');
			/* FALLTHROUGH */
		case K_PTR:
			tdat_sb_printf(out, "0x%llx", v);
			break;
		case K_INT:
			enc = rd32(t + TYPE_HDR);
			bits = enc & 0xff;
			v >>= (enc >> 16) & 0xff & 63;
			if (bits < 64)
				v &= (1ULL << bits) - 1;
			if ((enc >> 24) & 1)	/* signed, but not extended */
				tdat_sb_printf(out, "%lld", (long long)v);
			else
				tdat_sb_printf(out, "0x%llx", v);
			break;
		case K_ENUM:
			tdat_sb_printf(out, "%lld", (long long)v);
			break;
		default:
			/* a struct or union passed by value: its words */
			tdat_sb_printf(out, "(%s)[0x%llx",
			    kind_name[kind_of(rd32(t + 4))], v);
			tsize = rd32(t + 8);
			for (x = 8; x < tsize; x += 8) {
				tdat_sb_putc(out, ':');
				if (++a >= nmem) {
					tdat_sb_puts(out, "...]");
					return;
				}
				tdat_sb_printf(out, "0x%llx",
				    arg_at(args, size, a, big));
			}
			tdat_sb_putc(out, ']');
			break;
		}
	}
}
