/*
 * event-int.h: private structures shared by lib/event/event.c, lib/print*.c,
 * lib/event/texts.c, lib/event/plugins.c and formats/text/report.c.  Not for bin/.
 */
#ifndef TDAT_EVENT_INT_H
#define TDAT_EVENT_INT_H

#include <string.h>

#include "tdat-int.h"

/* Kinds of print-format argument nodes. */
enum {
	PA_NULL, PA_ATOM, PA_FIELD, PA_FLAGS, PA_SYMBOL, PA_HEX, PA_HEX_STR,
	PA_INT_ARRAY, PA_TYPE, PA_STRING, PA_BSTRING, PA_BITMASK, PA_CPUMASK,
	PA_DYNARRAY, PA_DYNARRAY_LEN, PA_OP, PA_FUNC
};

struct flagsym {
	struct flagsym *next;
	char *value, *str;
	long long fval;		/* value as the flag evaluator sees it */
};

/* Free a list of __print_symbolic / __print_flags entries (lib/event/print.c). */
void tdat_flagsyms_free(struct flagsym *);

/* A print-format argument: an expression tree. */
struct parg {
	int type;
	struct parg *next;	/* next argument of the list */
	char *str;		/* atom text, field name, op, cast type,
				 * __get_str/bitmask field name, bstring */
	unsigned long long num;	/* atom value, computed once */
	int num_done;
	struct tdat_field *field;
	struct parg *left, *right, *third;	/* op sides; flags/hex/array
						 * field, size, count, elsize */
	int prio;
	char *delim;		/* __print_flags delimiter */
	struct flagsym *syms;
	int func;		/* helper function index */
	int cast_done;		/* PA_TYPE: cast_mask is known */
	unsigned long long cast_mask;	/* what the cast keeps */
};

/* Items of a compiled print format. */
enum { PP_STRING, PP_DIGIT, PP_POINTER, PP_STR };

struct pitem {
	int type;
	char *format;		/* literal text, or the conversion "%-5llu" */
	size_t flen;		/* strlen(format) */
	struct parg *arg, *len_arg;
	int ls;			/* length modifier: -2 hh .. 2 ll */
	int fast;		/* plain %d %u %x: 'd', 'u' or 'x'; else 0 */
	size_t pext;		/* PP_POINTER: the extension after the 'p' */
	int star_prec;		/* the len_arg is the precision, not the width */
};

/*
 * The widest a conversion pads (its width, or a number's precision, from
 * the print format or a '*' argument): one of 2^31 took trace-cmd minutes
 * a record and would take gigabytes here.  Real ones are a few columns.
 */
#define TDAT_WIDTH_MAX	4096

struct pop;			/* a step of a compiled print format */

struct tdat_print {
	int n, cap;
	struct pitem *it;
	struct parg *args;	/* the argument list (owned) */
	struct pop *ops;	/* the items as steps, made on first use by
				 * lib/event/print-eval.c; NULL: not yet */
	int nops;		/* -1: the items are walked instead */
	int nul_free;		/* 1: no step can write a NUL (print_ops) */
	/* run_ops_fast(): the record bytes its steps' fields span (need)
	 * and reach with the 8-byte loads (reach) */
	uint32_t need, reach;
};

/* 12 bytes a kernel symbol: names are appended to one arena in the order
 * symbols are registered, so their offsets order them as registered. */
struct symbol {
	unsigned long long addr;
	uint32_t name;		/* offset of its name in arenas[0] */
} __attribute__((packed));

struct printkfmt {
	unsigned long long addr;
	char *fmt;
	size_t seq;
};

struct comm {
	int pid;
	char *comm;
	size_t seq;
};

struct tdat_events {
	int lsize, big;
	int plugins;		/* plugin helper functions are known */
	size_t nev, capev;
	struct tdat_event **ev;	/* sorted by id after finish */
	size_t nsym, capsym;
	struct symbol *sym;	/* sorted by address, then a 0 sentinel */
	char **arenas;		/* the symbol names: one arena, or none */
	size_t narenas;
	size_t arena_len;	/* bytes of names in arenas[0] */
	int sym_sorted;
	int syms_shared;	/* sym and arenas are another set's */
	/* not NULL: at the first lookup, use this set's symbols
	 * (tdat_events_share_syms()) */
	const struct tdat_events *share_from;
	const char *ktext;	/* a kallsyms text not read yet (in the file) */
	size_t klen;
	int syms_loaded;	/* ktext was read */
	/* the file's format builds the table of ktext on a thread: taken
	 * at the first lookup (struct tdat_file ksyms_late) */
	int ksyms_late;
	size_t nparsed;		/* formats parsed in full */
	int fields_only;	/* formats read without their print format:
				 * a selection's, which prints nothing */
	size_t nprintk, capprintk;
	struct printkfmt *printk;
	int printk_sorted;
	size_t ncomm, capcomm;
	struct comm *comm;
	int comm_sorted;
	const struct tdat_event *last;
	struct fstack *fstack;	/* function plugin: callers per CPU */
	const struct tdat_event *fgraph_exit;	/* function_graph plugin */
	int fgraph_looked;
	struct symcache {
		unsigned long long addr, start;
		const char *name;
		size_t len;	/* strlen(name) */
	} *symcache;		/* recent symbol lookups, by tdat_symcache_at() */
	int nfstack;
	/* kvm plugin, several inputs: the function of a guest address seen
	 * by host task pid (a vCPU), its start in *start; NULL if none. */
	const char *(*guest_sym)(void *arg, int pid, unsigned long long addr,
	    unsigned long long *start);
	void *guest_arg;
	int repeat_ts;		/* func_repeats' last time: TDAT_RTS_* */
	/* prints that changed how later records print, libtraceevent's
	 * sticky states: a char array printed as bytes is no longer a
	 * string, a trace_printk format that failed fails from then on */
	unsigned long sticky;
	int tc;			/* print as trace-cmd TDAT_TC_* with its
				 * libtraceevent: 0 3.1.6, 33 3.3.1, 34 3.4 */
	struct tdat_file *file;	/* what it was loaded from, or NULL */
	/* trace-cmd 3.4: a persistent buffer's addresses are the previous
	 * boot's (LAST_BOOT_INFO): moved to this boot's for symbols */
	int lb_state;		/* 0 not looked, 1 none, 2 in use */
	unsigned long long lb_kernel, lb_kend, lb_delta;
	struct lbmod {
		unsigned long long old, cur;	/* cur 0: not loaded now */
	} *lbmod;		/* by old address */
	size_t nlbmod;
	struct tdat_btf *btf;	/* file's BTF, read at the first need */
	int btf_looked;
	int tc_chosen;		/* tc was chosen (a report), not left at 0:
				 * what only libtraceevent 1.9 parses fails
				 * before 3.4 */
	unsigned fgraph;	/* -O fgraph:...: TDAT_FGRAPH_* */
	struct commcache {
		int pid;
		const char *comm;	/* NULL: empty */
	} commcache[256];	/* recent comm lookups, by pid */
};

/* tdat_events_comm() made in the caller when the pid is in the set's
 * cache of recent lookups (the text outputs ask for every record). */
static inline const char *
tdat_events_comm_in(const struct tdat_events *s, int pid)
{
	const struct commcache *c = &s->commcache[(unsigned)pid %
	    (sizeof(s->commcache) / sizeof(s->commcache[0]))];

	if (pid != 0 && c->comm != NULL && c->pid == pid)
		return c->comm;
	return tdat_events_comm(s, pid);
}

#define TDAT_SYMCACHE_BITS	12
#define TDAT_SYMCACHE	(1u << TDAT_SYMCACHE_BITS)	/* entries of a set's
						 * symcache (128 KiB) */

/* Where addr is cached: the top bits of a Fibonacci hash, which spreads
 * functions' aligned addresses over every entry. */
static inline struct symcache *
tdat_symcache_at(struct symcache *c, unsigned long long addr)
{
	return &c[(uint64_t)(addr * 0x9e3779b97f4a7c15ULL) >>
	    (64 - TDAT_SYMCACHE_BITS)];
}

/* tdat_events_sym_len() when its cache has addr already and the set has
 * no kallsyms to read nor addresses to move; NULL and *hit 0 otherwise. */
static inline const char *
tdat_events_sym_hit(const struct tdat_events *s, unsigned long long addr,
    unsigned long long *start, size_t *len, int *hit)
{
	const struct symcache *c;

	*hit = 0;
	if (s->ktext != NULL || s->lb_state != 1 || s->symcache == NULL)
		return NULL;
	c = tdat_symcache_at(s->symcache, addr);
	if (c->name == NULL || c->addr != addr)
		return NULL;
	*hit = 1;
	*len = c->len;
	if (!c->name[0])
		return NULL;
	*start = c->start;
	return c->name;
}

/* How the function plugin prints the time of func_repeats, as trace-cmd
 * sets it for its timestamps: nanoseconds (report -t), microseconds, or
 * a clock that counts cycles. */
enum { TDAT_RTS_NSEC, TDAT_RTS_USEC, TDAT_RTS_CYCLES };

/* Tokens of format files and print formats (lib/event/event.c). */
enum { T_ERROR, T_NONE, T_SPACE, T_NEWLINE, T_OP, T_DELIM, T_ITEM, T_DQUOTE,
	T_SQUOTE };

struct ptok {
	const char *buf;
	size_t len, pos;
	int tabs;		/* a tab goes on a quoted string (libtraceevent
				 * 1.9); else it ends it (1.8 and before) */
};
int tdat_tok_raw(struct ptok *, char **tok);
int tdat_tok_read(struct ptok *, char **tok);	/* skips spaces */
int tdat_tok_item(struct ptok *, char **tok);	/* skips spaces, newlines */
int tdat_tok_expect(struct ptok *, int nl_ok, int type, const char *str);

/* Helper functions a print format may call: none without plugins
 * (trace-cmd -N); trace-cmd's plugins register these. */
enum {
	FN_NONE, FN_JIFFIES_TO_MSECS, FN_JBD2_DEV_TO_NAME, FN_SCSI_CDB,
	FN_LE16_TO_CPUP, FN_XEN_HYPERCALL
};

/* lib/event/plugins-print.c: what those helpers print */
void tdat_scsi_cdb(struct tdat_sbuf *, const unsigned char *cdb);
const char *tdat_xen_hypercall(unsigned long long op);

/* lib/event/print.c: parsing */
struct parg *tdat_parg_new(void);
void tdat_parg_free_list(struct parg *);
struct tdat_field *tdat_own_field(const struct tdat_event *,
    const char *name);
void tdat_print_items(struct tdat_print *, int *failed, const char *fmt,
    struct parg *args);
int tdat_print_compile(struct tdat_event *, struct ptok *);
void tdat_print_free(struct tdat_print *);

/* lib/event/print-eval.c: printing */
void tdat_print_fields(const struct tdat_event *, const unsigned char *data,
    uint32_t size, int use_fmt, struct tdat_sbuf *out);
void tdat_print_pretty(const struct tdat_event *, const unsigned char *data,
    uint32_t size, struct tdat_sbuf *out);
/* The same walking the print format's items, never its compiled steps
 * (t/unit/test_print_ops.c compares the two). */
void tdat_print_walk(const struct tdat_event *, const unsigned char *data,
    uint32_t size, struct tdat_sbuf *out);
unsigned long long tdat_read_num(const struct tdat_events *, const void *p,
    int n);

/* A fast path's 8-byte load of field f (tdat-to-json's line_fast(),
 * tdat-to-table's row_fast()): widens *need to the field's end and *reach
 * to 8 bytes past its start, and returns the mask of its bytes; 0, with
 * *loads cleared, when f cannot be loaded so (a negative or huge offset,
 * a size other than 1, 2, 4 or 8). */
static inline uint64_t
tdat_field_reach(const struct tdat_field *f, int *loads, uint32_t *need,
    uint32_t *reach)
{
	uint32_t off = (uint32_t)f->offset;

	if (f->offset < 0 || off > UINT32_MAX - 8 || (f->size != 1 &&
	    f->size != 2 && f->size != 4 && f->size != 8)) {
		*loads = 0;
		return 0;
	}
	if (off + (uint32_t)f->size > *need)
		*need = off + (uint32_t)f->size;
	if (off + 8 > *reach)
		*reach = off + 8;
	return f->size == 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * f->size)) - 1;
}

/* tdat_read_num() inline: n bytes (1, 2, 4 or 8; else 0) at p in the
 * byte order of set s (NULL: little endian). */
static inline unsigned long long
tdat_read_num_at(const struct tdat_events *s, const void *p, int n)
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

/* tdat_field_read() inline. */
static inline unsigned long long
tdat_field_read_at(const struct tdat_event *ev, const struct tdat_field *f,
    const unsigned char *data, uint32_t size)
{
	if (f == NULL || (uint32_t)f->offset + f->size > size)
		return 0;
	return tdat_read_num_at(ev->set, data + f->offset, f->size);
}

/* lib/event/event-simple.c */
int tdat_simple_compile(struct tdat_event *, const char *text, size_t len);
void tdat_simple_free(struct tdat_simple *);
void tdat_simple_print(const struct tdat_event *, const unsigned char *data,
    uint32_t size, struct tdat_sbuf *out);

/* Appending without a call when the buffer has room. */
static inline void
sb_add(struct tdat_sbuf *b, const char *s, size_t n)
{
	if (b->cap - b->len > n) {
		memcpy(b->p + b->len, s, n);
		b->len += n;
		b->p[b->len] = '\0';
	} else
		tdat_sb_add(b, s, n);
}

static inline void
sb_putc(struct tdat_sbuf *b, int c)
{
	if (b->cap - b->len > 1) {
		b->p[b->len++] = (char)c;
		b->p[b->len] = '\0';
	} else
		tdat_sb_putc(b, c);
}

/* Appending n <= SB_SHORT bytes from s, which has SB_SHORT readable
 * bytes: one fixed-size copy when the buffer has room. */
#define SB_SHORT	32

static inline void
sb_add_short(struct tdat_sbuf *b, const char *s, size_t n)
{
	if (b->cap - b->len > SB_SHORT) {
		memcpy(b->p + b->len, s, SB_SHORT);
		b->len += n;
		b->p[b->len] = '\0';
	} else
		tdat_sb_add(b, s, n);
}

/* v in decimal (sb_udec) or lowercase hex (sb_hex), written in place
 * when the buffer has room. */
static inline void
sb_udec(struct tdat_sbuf *b, unsigned long long v)
{
	int n = tdat_udec_len(v);

	if (b->cap - b->len > 24) {
		tdat_udec_digits(b->p + b->len + n, v);
		b->len += (size_t)n;
		b->p[b->len] = '\0';
	} else {
		char buf[24], *end = buf + sizeof(buf);

		tdat_sb_add(b, tdat_udec_digits(end, v), (size_t)n);
	}
}

static inline void
sb_hex(struct tdat_sbuf *b, unsigned long long v)
{
	int n = tdat_hex_len(v);

	if (b->cap - b->len > 24) {
		tdat_hex_digits(b->p + b->len + n, v);
		b->len += (size_t)n;
		b->p[b->len] = '\0';
	} else {
		char buf[24], *end = buf + sizeof(buf);

		tdat_sb_add(b, tdat_hex_digits(end, v), (size_t)n);
	}
}

/* 1 when what tdat_event_print() writes for ev in mode can hold no NUL
 * byte: its own print format, made into steps (by a first print) that
 * write only the format's text, numbers and symbol names; else 0. */
int tdat_event_nul_free(const struct tdat_event *ev, int mode);

/* Fast number formatting (lib/event/print-eval.c). */
void tdat_put_udec(struct tdat_sbuf *, unsigned long long);
void tdat_put_dec(struct tdat_sbuf *, long long);
void tdat_put_pad(struct tdat_sbuf *, const char *s, size_t n, int width,
    int left);

/* lib/event/plugins.c */
void tdat_plugins_free(struct tdat_events *);

/* lib/event/texts.c */
void tdat_syms_sort(struct tdat_events *);
/* Read the kallsyms text the set defers, if any: before reading sym. */
void tdat_syms_need(const struct tdat_events *);
int tdat_syms_take(struct tdat_events *, struct tdat_events *);

/* The kernel's BTF, for function arguments (lib/event/btf.c): NULL when
 * it does not hold together.  p stays the caller's while it is used. */
struct tdat_btf;
struct tdat_btf *tdat_btf_new(const unsigned char *p, uint64_t n);
void tdat_btf_free(struct tdat_btf *);
/* The nmem arguments at args (size 4 or 8 bytes each, in byte order big)
 * of function func, as libtraceevent 1.9 prints them: "name=value, ..."
 * from its BTF prototype, or the raw values in hex when b has none. */
void tdat_btf_print_args(const struct tdat_btf *b, struct tdat_sbuf *out,
    const unsigned char *args, int nmem, int size, int big, const char *func);
/* The set's BTF (its file's, read the first time), or NULL. */
const struct tdat_btf *tdat_events_btf(struct tdat_events *);

#endif
