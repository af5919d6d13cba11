/*
 * json-events.c: the events of a trace.dat as JSON: one object per event
 * (JSON Lines, schemas/event.schema.json) or the Chrome trace event
 * format (schemas/chrome.schema.json).
 *
 * Field values are the record's bytes read as the event's format says:
 * integers exact (sign-extended when the format says signed; beyond 2^53
 * decimal strings, see tdat-json.h), addresses "0x..." strings, char
 * arrays and __data_loc char[] strings up to their first NUL ({"hex":..}
 * when not UTF-8), other arrays (u8 ones too) arrays of integers.  They
 * are the values trace-cmd report -R prints, without its formatting (hex
 * for longs, ARRAY[..] for strings that are not printable).
 *
 * An address is a field of pointer type, or one the event's print format
 * prints with %p; where trace-cmd prints it as a kernel symbol (%pS, %ps,
 * %pF, %pf, and the fields its plugins resolve: ftrace function ip and
 * parent_ip, kernel_stack caller, funcgraph func, hrtimer function, kmem
 * call_site), the symbol's name is written too, in "symbols".
 *
 * In the Chrome format, sched_switch becomes per-CPU "X" slices named
 * after the task that ran (idle time is left empty), each ending, as
 * viewers add ts + dur in doubles, no later than the next one starts
 * (fit_dur()), its exact times in args; every other event
 * is an instant event ("i", thread scope) on the track of its pid with
 * its fields as args; "M" events name every process and thread seen,
 * from the saved cmdlines, from sched_switch, or "<...>".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "event-int.h"
#include "tdat-sink.h"
#include "tdat-json.h"
#include "tdat-num.h"

/* The CPU tracks of --chrome live in a process no Linux pid can be
 * (pid_max is at most 2^22). */
#define CPU_PID		4194304
#define CPU_TID(cpu)	(CPU_PID + 1 + (cpu))

struct slice {
	int active;		/* a task is running since start */
	int pid;
	uint64_t start;
	int written;		/* a slice of this CPU was written, */
	uint64_t first;		/* starting at first */
	char comm[32];
	long long prio;
};

/* How a field's value is written. */
enum {
	K_INT = TDAT_KIND_INT,	/* integers (and strings) */
	K_ADDR = TDAT_KIND_ADDR, /* addresses: "0x..." */
	K_SYM = TDAT_KIND_SYM,	/* addresses trace-cmd prints as symbols */
};

#define FAST_SYMS	8	/* symbol fields line_fast() takes */
#define FAST_KEY	32	/* keys up to this long: one fixed-size copy */
#define FAST_FIELDS	32	/* fields line_fast() takes */
#define FAST_CHUNK	32	/* fast_copy()'s pieces */
#define FAST_PRE	256	/* room for a line's head (put_pre()) */
#define FAST_PREN	8	/* put_pre()'s heads kept, by cpu */

/* line_fast()'s step for a field: where it is, how it is written, and
 * its key with the comma before it (none for the first), padded. */
struct fstep {
	uint64_t mask;		/* its bytes of the 8 loaded (fast_load()) */
	uint32_t off;
	uint8_t size;
	uint8_t op;		/* OP_* */
	uint8_t klen;		/* bytes of key */
	uint8_t kskip;		/* 1: key starts with a comma */
	uint8_t sym;		/* 1: kind K_SYM */
	char key[FAST_KEY + 8];	/* (+1: read from key + kskip) */
};

enum { OP_U, OP_S, OP_X };	/* unsigned, signed, "0x..." */

/* What an event type writes the same way every time, made once: its
 * quoted keys and the system and event members. */
struct evc {
	const struct tdat_event *ev;
	struct tdat_sbuf text;	/* every quoted piece, one after another */
	size_t head, headlen;	/* "system":"..","event":".." */
	size_t *koff, *klen;	/* "name": of each field, then each other
				 * common field */
	const struct tdat_field *pid, *flags, *preempt;
	const struct tdat_field **other;
	int nother;
	unsigned char *kind;	/* K_* of each field */
	int nsym;		/* fields of kind K_SYM */
	size_t fastlen;		/* line_fast(): the most a line takes but
				 * its comm and symbol names; 0: not fast */
	/* line_fast()'s loads of 8 bytes at once (fast_load()): 1 when
	 * the host is little endian and pid, flags, preempt count are
	 * there; a record takes them with need bytes, avail >= reach */
	int loads;
	uint32_t need, reach;
	uint64_t *mask;		/* each field's bytes of the 8 loaded */
	uint64_t pid_mask, flags_mask, preempt_mask;
	struct fstep *step;	/* line_fast()'s, one a field */
	int sfield[FAST_SYMS];	/* fields of kind K_SYM, in order */
	/* --chrome: "name":"..","cat":"..","ph":"i","s":"t","ts": (made
	 * once; NULL when a name needs escaping) */
	char *chead;
	size_t cheadlen;
	int chead_done;
	/* line_fast(): ",\"cpu\":C,".."\"fields\":{" of the last pid,
	 * comm, flags and preempt count it wrote on a cpu, by cpu */
	struct pre {
		int cpu, pid;
		const char *comm;
		uint64_t flags, preempt;
		uint64_t key;		/* hkey: the record's first 8 bytes
					 * & hmask */
		int hk;			/* 1: key set */
		size_t commlen;
		size_t len;		/* 0: none */
		char text[FAST_PRE];
	} pre[FAST_PREN];
	/* 1 when loads and pid, flags, preempt count are all in a record's
	 * first 8 bytes (hmask: theirs): those bytes and the cpu find a
	 * head of pre[] without reading the comm */
	int hkey;
	uint64_t hmask;
};

/* One input. */
struct jin {
	struct tdat_file *f;
	struct tdat_events *ev;
	int type_size;		/* bytes of common_type */
};

#define NAMEC	4096	/* as many as the symbol cache (texts.c) */
#define SYMC_TEXT	40	/* names up to this long: one fixed-size copy */
#define FAST_NUM	24	/* room for a number: 20 digits and a sign or
				 * quotes, and a fixed-size copy */

struct jev {
	struct tdat_file *f;	/* the input of the record being written */
	const struct tdat_json_opts *o;
	struct tdat_events *ev;	/* its events */
	struct tdat_jw w;
	int type_size;		/* its bytes of common_type */
	struct jin *in;
	size_t nin;
	size_t cur;		/* its index */
	FILE *out;
	struct evc **cache;	/* open addressing on the event pointer */
	size_t ncache, capcache;
	int chrome;
	int comm_pid;		/* JSON Lines: the last pid's comm */
	size_t comm_in;		/* (of that input) */
	const char *comm;
	/* --chrome: "pid":N,"tid":N,"args": of the pid it wrote last
	 * (cpid_len 0: none) */
	int cpid;
	size_t cpid_len;
	char cpid_text[80];
	struct namec {
		const char *s;
		size_t len;
		int plain;	/* tdat_json_plain() */
	} names[NAMEC];		/* line_fast(): names seen, by address */
	struct evid {
		const struct tdat_events *set;
		int id;
		const struct tdat_event *ev;
	} ids[NAMEC];		/* tdat_events_find() of the last ids */
	struct symc {
		const struct tdat_events *set;
		uint64_t addr;
		const char *s;	/* sym() of addr in set, or NULL */
		uint32_t len;
		int plain;	/* tdat_json_plain() */
		char text[SYMC_TEXT];	/* s, padded, when it fits */
		uint32_t hexlen;
		char hex[FAST_NUM];	/* fast_hex() of addr */
	} syms[NAMEC];		/* line_fast(): symbols seen, by address */
	struct jn_hi hi;	/* fast_int()'s high digits */
	struct evc *evcq[16];	/* evc_get() of the last events, by address */
	/* --chrome */
	const struct tdat_event *sw;	/* sched:sched_switch */
	const struct tdat_field *sw_prev_pid, *sw_next_pid, *sw_next_comm,
	    *sw_prev_state, *sw_next_prio, *sw_prev_comm, *sw_prev_prio;
	int sw_buffer;		/* the buffer whose switches make slices */
	struct slice *cpu;
	int ncpu;
	int *pids;		/* open-addressing set of pids seen */
	size_t npids, cappids;
	uint64_t last_ts;
};

/* ------------------------------------------------------------------ */
/* Field values. */

/* An n-byte integer in the file's byte order. */
static inline uint64_t
getn(const struct jev *j, const unsigned char *p, int n)
{
	return tdat_getn(p, n, j->f->big);
}

static void
number(struct jev *j, uint64_t v, int size, int sgn, int kind)
{
	if (kind != K_INT)
		tdat_jw_hex(&j->w, v);
	else if (sgn)
		tdat_jw_i64(&j->w, tdat_sext(v, size));
	else
		tdat_jw_u64(&j->w, v);
}

/* Where an array's elements are, and their size. */
static void
array_span(const struct jev *j, const struct tdat_field *f,
    const struct tdat_record *r, uint32_t *off, uint32_t *len, int *es)
{
	/* a flexible array member: size 0, old ftrace formats drop its
	 * "[]" */
	tdat_field_span(f, r->data, r->size, j->f->big, off, len);
	*es = f->elemsize;
	if (f->size == 0 && !(f->flags & TDAT_FLD_DYNAMIC))
		*es = tdat_field_elem_size(f->type, j->f->lsize);
	if (*es != 1 && *es != 2 && *es != 4 && *es != 8)
		*es = (f->flags & TDAT_FLD_LONG) ? j->f->lsize : 1;
}

static void
value(struct jev *j, const struct tdat_field *f, const struct tdat_record *r,
    int kind)
{
	struct tdat_jw *w = &j->w;
	const unsigned char *p;
	uint32_t off, len, i, n;
	int es, str = (f->flags & TDAT_FLD_STRING) != 0 && tdat_field_is_text(f->type);

	if ((f->flags & TDAT_FLD_ARRAY) || f->size == 0) {
		array_span(j, f, r, &off, &len, &es);
		if (f->size == 0 && !(f->flags & TDAT_FLD_DYNAMIC))
			str = es == 1 && tdat_field_is_text(f->type);
		p = r->data + off;
		if (str) {
			const unsigned char *nul = memchr(p, 0, len);

			tdat_jw_str(w, p, nul ? (size_t)(nul - p) : len);
			return;
		}
		n = len / (uint32_t)es;
		tdat_jw_arr(w);
		for (i = 0; i < n; i++)
			number(j, getn(j, p + (size_t)i * es, es), es,
			    (f->flags & TDAT_FLD_SIGNED) != 0, kind);
		tdat_jw_end(w, ']');
		return;
	}
	if ((uint32_t)f->offset + f->size > r->size || f->size < 0) {
		number(j, 0, 8, 0, kind);
		return;
	}
	if (f->size <= 8 && (f->size & (f->size - 1)) == 0) {
		number(j, getn(j, r->data + f->offset, f->size), f->size,
		    (f->flags & TDAT_FLD_SIGNED) != 0, kind);
		return;
	}
	/* An odd size: its bytes. */
	tdat_jw_arr(w);
	for (i = 0; i < (uint32_t)f->size; i++)
		tdat_jw_u64(w, r->data[f->offset + i]);
	tdat_jw_end(w, ']');
}

static uint64_t
field_u64(const struct tdat_event *ev, const struct tdat_field *f,
    const struct tdat_record *r)
{
	return f ? tdat_field_read(ev, f, r->data, r->size) : 0;
}

static int
is_main_common(const char *name)
{
	return strcmp(name, "common_type") == 0 ||
	    strcmp(name, "common_pid") == 0 ||
	    strcmp(name, "common_flags") == 0 ||
	    strcmp(name, "common_preempt_count") == 0;
}

static void
evc_free(struct evc *c)
{
	if (c == NULL)
		return;
	tdat_sb_free(&c->text);
	free(c->chead);
	free(c->koff);
	free(c->klen);
	free(c->other);
	free(c->kind);
	free(c->mask);
	free(c->step);
	free(c);
}

/* Append the quoted key "name": and note where it is. */
static int
qkey(struct evc *c, const char *name, size_t i)
{
	size_t at = c->text.len;

	if (tdat_json_quote(&c->text, name, strlen(name)) < 0)
		return -1;
	tdat_sb_putc(&c->text, ':');
	c->koff[i] = at;
	c->klen[i] = c->text.len - at;
	return c->text.oom ? -1 : 0;
}

/* The kind of every field: addresses from the types and the print
 * format, symbols from its %pS-like conversions and the plugins. */
static void
evc_kinds(struct evc *c, const struct tdat_event *ev)
{
	int i;

	tdat_field_kinds(ev, c->kind);
	for (i = 0; i < ev->nfields; i++)
		c->nsym += c->kind[i] == K_SYM;
}

/* A field line_fast() writes: one integer of 1, 2, 4 or 8 bytes. */
static int
fast_field(const struct tdat_field *f)
{
	return f == NULL || (!(f->flags & (TDAT_FLD_ARRAY |
	    TDAT_FLD_DYNAMIC)) && (f->size == 1 || f->size == 2 ||
	    f->size == 4 || f->size == 8));
}

/* The most bytes line_fast() writes for an event type, without its comm
 * and symbol names; 0 when it cannot write the type's lines. */
static size_t
fast_len(const struct evc *c)
{
	const struct tdat_event *ev = c->ev;
	size_t n = 256 + FAST_CHUNK + c->headlen;
	int i;

	if (c->nother || c->nsym > FAST_SYMS || !fast_field(c->pid) ||
	    !fast_field(c->flags) || !fast_field(c->preempt) ||
	    ev->nfields > FAST_FIELDS)
		return 0;
	for (i = 0; i < ev->nfields; i++) {
		if (ev->fields[i].name == NULL || !fast_field(&ev->fields[i]) ||
		    c->klen[i] + 1 > FAST_KEY)
			return 0;
		n += 2 * c->klen[i] + FAST_KEY + FAST_NUM + SYMC_TEXT + 4;
	}
	return n;
}

/* need and reach of one field (fast_loads()); returns the mask of its
 * bytes. */
static uint64_t
fast_reach(struct evc *c, const struct tdat_field *f)
{
	return tdat_field_reach(f, &c->loads, &c->need, &c->reach);
}

/* hkey and hmask of c (fast_loads()). */
static void
fast_hkey(struct evc *c)
{
	const struct tdat_field *f[3] = { c->pid, c->flags, c->preempt };
	int i;

	c->hkey = c->loads;
	c->hmask = 0;
	for (i = 0; i < 3 && c->hkey; i++) {
		if (f[i]->offset < 0 || f[i]->offset + f[i]->size > 8)
			c->hkey = 0;
		else
			c->hmask |= (f[i]->size >= 8 ? ~UINT64_C(0) :
			    (UINT64_C(1) << (8 * f[i]->size)) - 1) <<
			    (8 * f[i]->offset);
	}
}

/* Whether line_fast() may read c's fields with fast_load(). */
static void
fast_loads(struct evc *c)
{
	const struct tdat_event *ev = c->ev;
	int i;

	c->need = c->reach = 0;
	c->loads = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
	    c->fastlen != 0 && c->pid && c->flags && c->preempt &&
	    (c->mask = calloc((size_t)ev->nfields + 1, sizeof(*c->mask))) !=
	    NULL;
	if (!c->loads)
		return;
	c->pid_mask = fast_reach(c, c->pid);
	c->flags_mask = fast_reach(c, c->flags);
	c->preempt_mask = fast_reach(c, c->preempt);
	for (i = 0; i < ev->nfields; i++)
		c->mask[i] = fast_reach(c, &ev->fields[i]);
	fast_hkey(c);
}

/* line_fast()'s steps of an event type it writes; -1: no memory. */
static int
fast_steps(struct evc *c)
{
	const struct tdat_event *ev = c->ev;
	const struct tdat_field *f;
	struct fstep *s;
	int i, k = 0;

	if (c->fastlen == 0)
		return 0;
	if ((c->step = calloc((size_t)ev->nfields + 1, sizeof(*s))) == NULL)
		return -1;
	for (i = 0; i < ev->nfields; i++) {
		f = &ev->fields[i];
		s = &c->step[i];
		s->mask = c->loads ? c->mask[i] : 0;
		s->off = (uint32_t)f->offset;
		s->size = (uint8_t)f->size;
		s->op = c->kind[i] != K_INT ? OP_X :
		    f->flags & TDAT_FLD_SIGNED ? OP_S : OP_U;
		s->kskip = i > 0;
		if (i > 0)
			s->key[0] = ',';
		memcpy(s->key + s->kskip, c->text.p + c->koff[i], c->klen[i]);
		s->klen = (uint8_t)(c->klen[i] + s->kskip);
		s->sym = c->kind[i] == K_SYM;
		if (s->sym)
			c->sfield[k++] = i;
	}
	return 0;
}

static struct evc *
evc_new(const struct tdat_event *ev)
{
	struct evc *c = calloc(1, sizeof(*c));
	size_t n = (size_t)ev->nfields + (size_t)ev->ncommon + 1, k;
	const char *name;
	int i;

	if (c == NULL)
		return NULL;
	c->ev = ev;
	tdat_sb_init(&c->text);
	c->koff = calloc(n, sizeof(*c->koff));
	c->klen = calloc(n, sizeof(*c->klen));
	c->other = calloc(n, sizeof(*c->other));
	c->kind = calloc(n, sizeof(*c->kind));
	if (c->koff == NULL || c->klen == NULL || c->other == NULL ||
	    c->kind == NULL)
		goto fail;
	evc_kinds(c, ev);
	tdat_sb_puts(&c->text, "\"system\":");
	if (tdat_json_text(&c->text, ev->system, strlen(ev->system)) < 0)
		goto fail;
	tdat_sb_puts(&c->text, ",\"event\":");
	if (tdat_json_text(&c->text, ev->name, strlen(ev->name)) < 0)
		goto fail;
	c->headlen = c->text.len;
	for (i = 0; i < ev->nfields; i++)
		if (qkey(c, ev->fields[i].name, (size_t)i) < 0)
			goto fail;
	for (i = 0; i < ev->ncommon; i++) {
		if (is_main_common(ev->common[i].name))
			continue;
		name = ev->common[i].name;
		if (strncmp(name, "common_", 7) == 0)
			name += 7;
		k = (size_t)ev->nfields + (size_t)c->nother;
		if (qkey(c, name, k) < 0)
			goto fail;
		c->other[c->nother++] = &ev->common[i];
	}
	/* line_fast() copies a key of up to FAST_KEY bytes in one piece */
	tdat_sb_add(&c->text, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
	    "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", FAST_KEY);
	if (c->text.oom)
		goto fail;
	c->pid = tdat_event_field(ev, "common_pid");
	c->flags = tdat_event_field(ev, "common_flags");
	c->preempt = tdat_event_field(ev, "common_preempt_count");
	c->fastlen = fast_len(c);
	fast_loads(c);
	if (fast_steps(c) < 0)
		goto fail;
	return c;
fail:
	evc_free(c);
	return NULL;
}

static size_t
evc_slot(const struct evc *const *t, size_t cap, const struct tdat_event *ev)
{
	size_t k = ((uintptr_t)ev >> 4) * 2654435761u & (cap - 1);

	while (t[k] && t[k]->ev != ev)
		k = (k + 1) & (cap - 1);
	return k;
}

/* evc_get() past its quick look. */
static struct evc *
evc_find(struct jev *j, const struct tdat_event *ev, struct evc **q)
{
	struct evc **t;
	size_t i, k, cap;

	if (j->cache) {
		k = evc_slot((const struct evc *const *)j->cache, j->capcache,
		    ev);
		if (j->cache[k])
			return *q = j->cache[k];
	}
	if ((j->ncache + 1) * 2 > j->capcache) {
		cap = j->capcache ? j->capcache * 2 : 64;
		if ((t = calloc(cap, sizeof(*t))) == NULL)
			return NULL;
		for (i = 0; i < j->capcache; i++)
			if (j->cache[i])
				t[evc_slot((const struct evc *const *)t, cap,
				    j->cache[i]->ev)] = j->cache[i];
		free(j->cache);
		j->cache = t;
		j->capcache = cap;
	}
	k = evc_slot((const struct evc *const *)j->cache, j->capcache, ev);
	if ((j->cache[k] = evc_new(ev)) == NULL)
		return NULL;
	j->ncache++;
	return *q = j->cache[k];
}

/* The cache of an event type, made on first use; NULL: no memory. */
static inline struct evc *
evc_get(struct jev *j, const struct tdat_event *ev)
{
	struct evc **q = &j->evcq[((uintptr_t)ev >> 4) % 16];

	if (*q != NULL && (*q)->ev == ev)
		return *q;
	return evc_find(j, ev, q);
}

static void
ckey(struct jev *j, const struct evc *c, size_t i)
{
	tdat_jw_qkey(&j->w, c->text.p + c->koff[i], c->klen[i]);
}

/* The fields of a record as the members of the open object. */
static void
fields(struct jev *j, const struct evc *c, const struct tdat_record *r)
{
	const struct tdat_event *ev = c->ev;
	int i;

	for (i = 0; i < ev->nfields; i++) {
		ckey(j, c, (size_t)i);
		value(j, &ev->fields[i], r, c->kind[i]);
	}
}

/* The kernel symbol of an address, or NULL. */
static const char *
sym(struct jev *j, uint64_t v)
{
	unsigned long long start;
	const char *name;
	size_t len;
	int hit;

	if (v == 0)
		return NULL;
	name = tdat_events_sym_hit(j->ev, v, &start, &len, &hit);
	return hit ? name : tdat_events_sym(j->ev, v, NULL);
}

/* The symbol names of the fields that have one, as the member qkey (a
 * quoted key and its colon) of the open object: {"ip":"vfs_open",...}; an
 * array gives an array of names (null where an element has none).
 * Nothing when no name is found. */
static void
symbols(struct jev *j, const struct evc *c, const struct tdat_record *r,
    const char *qkey)
{
	const struct tdat_event *ev = c->ev;
	const struct tdat_field *f;
	struct tdat_jw *w = &j->w;
	const char *name = NULL;
	uint32_t off = 0, len = 0, e;
	int i, es = 1, open = 0;

	for (i = 0; i < ev->nfields; i++) {
		if (c->kind[i] != K_SYM)
			continue;
		f = &ev->fields[i];
		if (f->flags & (TDAT_FLD_ARRAY | TDAT_FLD_DYNAMIC)) {
			array_span(j, f, r, &off, &len, &es);
			for (e = 0; e + (uint32_t)es <= len; e += (uint32_t)es)
				if (sym(j, getn(j, r->data + off + e, es)))
					break;
			if (e + (uint32_t)es > len)
				continue;
		} else if (f->size != 1 && f->size != 2 && f->size != 4 &&
		    f->size != 8) {
			continue;
		} else if ((name = sym(j, field_u64(ev, f, r))) == NULL) {
			continue;
		}
		if (!open) {
			tdat_jw_qkey(w, qkey, strlen(qkey));
			tdat_jw_obj(w);
			open = 1;
		}
		ckey(j, c, (size_t)i);
		if (!(f->flags & (TDAT_FLD_ARRAY | TDAT_FLD_DYNAMIC))) {
			tdat_jw_str(w, name, strlen(name));
			continue;
		}
		tdat_jw_arr(w);
		for (e = 0; e + (uint32_t)es <= len; e += (uint32_t)es) {
			if ((name = sym(j, getn(j, r->data + off + e, es))))
				tdat_jw_str(w, name, strlen(name));
			else
				tdat_jw_null(w);
		}
		tdat_jw_end(w, ']');
	}
	if (open)
		tdat_jw_end(w, '}');
}

/* ------------------------------------------------------------------ */
/* JSON Lines. */

/* The digits of a magnitude m (negative: with a minus), quoted beyond
 * TDAT_JSON_SAFE, as tdat_jw_u64() and tdat_jw_i64() write them, at p
 * (FAST_NUM bytes of room); returns the end. */
static inline __attribute__((always_inline)) char *
fast_int(char *p, uint64_t m, int neg, struct jn_hi *h)
{
	int quote = m > TDAT_JSON_SAFE;

	if (m < 10 && !neg) {
		*p = (char)('0' + m);
		return p + 1;
	}
	if (quote)
		*p++ = '"';
	if (neg)
		*p++ = '-';
	p = jn_u64_hi_in(p, m, h);
	if (quote)
		*p++ = '"';
	return p;
}

static inline __attribute__((always_inline)) char *
fast_i64(char *p, int64_t v, struct jn_hi *h)
{
	return fast_int(p, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0, h);
}

/* An address as tdat_jw_hex() writes it. */
static inline char *
fast_hex(char *p, uint64_t v)
{
	memcpy(p, "\"0x", 3);
	p = jn_hex(p + 3, v);
	*p = '"';
	return p + 1;
}

static inline char *
fast_put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* A name's length and whether it needs escaping, kept by its address
 * (symbol names stay where they are while the set lives). */
static const struct namec *
name_info(struct jev *j, const char *s)
{
	struct namec *n = &j->names[((uintptr_t)s >> 3) % NAMEC];

	if (n->s != s) {
		n->s = s;
		n->len = strlen(s);
		n->plain = tdat_json_plain(s, n->len);
	}
	return n;
}

/* sym() of v and its name_info(), kept by address: the same symbol
 * every time while the set lives. */
static const struct symc *
sym_info(struct jev *j, uint64_t v)
{
	struct symc *c = &j->syms[(v >> 4 ^ v >> 16) % NAMEC];
	const struct namec *n;

	if (c->addr != v || c->set != j->ev) {
		c->set = j->ev;
		c->addr = v;
		c->s = sym(j, v);
		c->len = 0;
		c->plain = 1;
		c->hexlen = (uint32_t)(fast_hex(c->hex, v) - c->hex);
		if (c->s != NULL) {
			n = name_info(j, c->s);
			c->len = (uint32_t)n->len;
			c->plain = n->plain && n->len <= UINT32_MAX;
			memset(c->text, 0, sizeof(c->text));
			if (n->len <= sizeof(c->text))
				memcpy(c->text, c->s, n->len);
		}
	}
	return c;
}

#define FAST_LIT(p, s)	fast_put((p), (s), sizeof(s) - 1)

/* A scalar field (fast_field()), as value() writes it. */
static inline uint64_t
fast_get(const struct jev *j, const struct tdat_field *f,
    const struct tdat_record *r)
{
	if (f == NULL || (uint32_t)f->offset + f->size > r->size)
		return 0;
	return getn(j, r->data + f->offset, f->size);
}

/* fast_get() of a little-endian record that holds the field's 8 bytes:
 * one load, its bytes kept (mask). */
static inline uint64_t
fast_load(const struct tdat_field *f, const struct tdat_record *r,
    uint64_t mask)
{
	uint64_t v;

	memcpy(&v, r->data + f->offset, 8);
	return v & mask;
}

/* fast_get(), or fast_load() when line_fast() found it may. */
static inline uint64_t
fast_read(const struct jev *j, const struct tdat_field *f,
    const struct tdat_record *r, int loads, uint64_t mask)
{
	return loads ? fast_load(f, r, mask) : fast_get(j, f, r);
}

/* fast_get() of a step's field. */
static inline uint64_t
step_get(const struct jev *j, const struct fstep *s,
    const struct tdat_record *r)
{
	if (s->off + s->size > r->size)
		return 0;
	return getn(j, r->data + s->off, s->size);
}

/* The comm of a pid, the last one kept. */
static const char *
comm_of(struct jev *j, int pid)
{
	if (j->comm == NULL || j->comm_pid != pid || j->comm_in != j->cur) {
		/* No comm is added while writing JSON Lines: it stays. */
		j->comm = tdat_events_comm(j->ev, pid);
		j->comm_pid = pid;
		j->comm_in = j->cur;
	}
	return j->comm;
}

/* n bytes of s at p in pieces of FAST_CHUNK (up to FAST_CHUNK - 1 more
 * read and written past them); returns the end. */
static inline char *
fast_copy(char *p, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i += FAST_CHUNK)
		memcpy(p + i, s + i, FAST_CHUNK);
	return p + n;
}

/* ",\"cpu\":C,\"system\":..,\"pid\":N,\"comm\":\"X\",\"flags\":F,
 * \"preempt_count\":P,\"fields\":{" at p, made once for each run of
 * records of one cpu, task, flags and preempt count; returns the end. */
static char *
put_pre(struct jev *j, struct evc *c, char *p, struct pre *e, int cpu,
    int pid, const struct namec *comm, uint64_t flags, uint64_t preempt)
{
	char *start = p;

	if (e->len != 0 && e->cpu == cpu && e->pid == pid &&
	    e->comm == comm->s && e->flags == flags && e->preempt == preempt)
		return fast_copy(p, e->text, e->len);
	p = FAST_LIT(p, ",\"cpu\":");
	p = fast_i64(p, cpu, &j->hi);
	*p++ = ',';
	p = fast_put(p, c->text.p + c->head, c->headlen);
	p = FAST_LIT(p, ",\"pid\":");
	p = fast_i64(p, pid, &j->hi);
	p = FAST_LIT(p, ",\"comm\":\"");
	p = fast_put(p, comm->s, comm->len);
	p = FAST_LIT(p, "\",\"flags\":");
	p = fast_int(p, flags, 0, &j->hi);
	p = FAST_LIT(p, ",\"preempt_count\":");
	p = fast_int(p, preempt, 0, &j->hi);
	p = FAST_LIT(p, ",\"fields\":{");
	e->len = 0;
	if ((size_t)(p - start) <= FAST_PRE - FAST_CHUNK) {
		memcpy(e->text, start, (size_t)(p - start));
		e->len = (size_t)(p - start);
		e->cpu = cpu;
		e->pid = pid;
		e->comm = comm->s;
		e->commlen = comm->len;
		e->flags = flags;
		e->preempt = preempt;
		e->hk = 0;
	}
	return p;
}

/*
 * The line of a record laid out straight in the writer's buffer, the
 * bytes line() writes, for the common case: one input, the top buffer, no
 * events lost, an event type of integer fields only (fast_len()), and a
 * comm and symbol names that need no escaping.  Returns 1, having written
 * nothing, for any other case.
 */
static int
line_fast(struct jev *j, struct evc *c, const struct tdat_record *r)
{
	const struct fstep *s;
	struct tdat_jw *w = &j->w;
	struct namec comm;
	const struct symc *name[FAST_SYMS], *sc;
	uint64_t val[FAST_FIELDS], v, key = 0;
	size_t need;
	struct pre *e;
	int i, k, n, open, pid = 0, loads, hit;
	char *p;

	if (c->fastlen == 0 || j->nin > 1 || r->buffer > 0 || r->missed ||
	    w->depth != 0 || !w->first[0] || w->after_key || w->err ||
	    (j->ev->big != 0) != (j->f->big != 0))
		return 1;
	loads = c->loads && !j->f->big && r->size >= c->need &&
	    r->avail >= c->reach;
	n = c->ev->nfields;
	if (loads) {
		for (i = 0; i < n; i++) {
			memcpy(&v, r->data + c->step[i].off, 8);
			val[i] = v & c->step[i].mask;
		}
	} else {
		for (i = 0; i < n; i++)
			val[i] = step_get(j, &c->step[i], r);
	}
	e = &c->pre[(unsigned)r->cpu % FAST_PREN];
	hit = 0;
	if (loads && c->hkey) {
		memcpy(&key, r->data, 8);
		key &= c->hmask;
		hit = e->len != 0 && e->hk && e->key == key &&
		    e->cpu == r->cpu;
	}
	if (hit) {
		need = c->fastlen + e->commlen;
	} else {
		pid = (int)fast_read(j, c->pid, r, loads, c->pid_mask);
		comm = *name_info(j, comm_of(j, pid));
		if (!comm.plain)
			return 1;
		need = c->fastlen + comm.len;
	}
	for (k = 0; k < c->nsym; k++) {
		sc = name[k] = sym_info(j, val[c->sfield[k]]);
		if (!sc->plain)
			return 1;
		need += sc->len;
	}
	/* (two of them in one slot: the first is gone) */
	for (k = 1; k < c->nsym; k++)
		if (name[k - 1]->addr != val[c->sfield[k - 1]])
			return 1;
	if (w->cap - w->len < need && (tdat_jw_flush(w) != 0 ||
	    w->cap - w->len < need))
		return 1;
	p = w->buf + w->len;
	p = FAST_LIT(p, "{\"ts\":");
	p = fast_int(p, r->ts, 0, &j->hi);
	if (hit) {
		p = fast_copy(p, e->text, e->len);
	} else {
		p = put_pre(j, c, p, e, r->cpu, pid, &comm,
		    fast_read(j, c->flags, r, loads, c->flags_mask),
		    fast_read(j, c->preempt, r, loads, c->preempt_mask));
		if (loads && c->hkey && e->len != 0) {
			e->key = key;
			e->hk = 1;
		}
	}
	for (i = k = 0; i < n; i++) {
		s = &c->step[i];
		memcpy(p, s->key, FAST_KEY);
		p += s->klen;
		if (s->op == OP_X && s->sym) {
			memcpy(p, name[k]->hex, FAST_NUM);
			p += name[k++]->hexlen;
		} else if (s->op == OP_X)
			p = fast_hex(p, val[i]);
		else if (s->op == OP_S)
			p = fast_i64(p, tdat_sext(val[i], s->size), &j->hi);
		else
			p = fast_int(p, val[i], 0, &j->hi);
	}
	*p++ = '}';
	for (k = open = 0; k < c->nsym; k++) {
		if (name[k]->s == NULL)
			continue;
		p = open++ ? FAST_LIT(p, ",") : FAST_LIT(p, ",\"symbols\":{");
		s = &c->step[c->sfield[k]];
		memcpy(p, s->key + s->kskip, FAST_KEY);
		p += s->klen - s->kskip;
		*p++ = '"';
		if (name[k]->len <= SYMC_TEXT)
			memcpy(p, name[k]->text, SYMC_TEXT);
		else
			memcpy(p, name[k]->s, name[k]->len);
		p += name[k]->len;
		*p++ = '"';
	}
	if (open)
		*p++ = '}';
	*p++ = '}';
	*p++ = '\n';
	w->len = (size_t)(p - w->buf);
	return 0;
}

static int
line(struct jev *j, const struct tdat_event *ev, const struct tdat_record *r,
    int id)
{
	struct tdat_jw *w = &j->w;
	struct evc *c = NULL;
	int i, pid;

	if (ev && (c = evc_get(j, ev)) == NULL)
		return -1;
	if (c && line_fast(j, c, r) == 0)
		return 0;
	tdat_jw_obj(w);
	tdat_jw_qkey(w, "\"ts\":", 5);
	tdat_jw_u64(w, r->ts);
	tdat_jw_qkey(w, "\"cpu\":", 6);
	tdat_jw_i64(w, r->cpu);
	if (j->nin > 1) {
		tdat_jw_key(w, "file");
		tdat_jw_cstr(w, tdat_file_path(j->f));
	}
	if (r->buffer > 0) {
		tdat_jw_key(w, "buffer");
		tdat_jw_cstr(w, j->f->buf[r->buffer].name);
	}
	if (c == NULL) {
		tdat_jw_key(w, "system");
		tdat_jw_null(w);
		tdat_jw_key(w, "event");
		tdat_jw_null(w);
		tdat_jw_key(w, "id");
		tdat_jw_i64(w, id);
		goto lost;
	}
	tdat_jw_raw(w, c->text.p + c->head, c->headlen);
	pid = (int)field_u64(ev, c->pid, r);
	tdat_jw_qkey(w, "\"pid\":", 6);
	tdat_jw_i64(w, pid);
	tdat_jw_qkey(w, "\"comm\":", 7);
	tdat_jw_cstr(w, comm_of(j, pid));
	tdat_jw_qkey(w, "\"flags\":", 8);
	tdat_jw_u64(w, field_u64(ev, c->flags, r));
	tdat_jw_qkey(w, "\"preempt_count\":", 16);
	tdat_jw_u64(w, field_u64(ev, c->preempt, r));
	if (c->nother) {
		tdat_jw_key(w, "common");
		tdat_jw_obj(w);
		for (i = 0; i < c->nother; i++) {
			ckey(j, c, (size_t)ev->nfields + (size_t)i);
			value(j, c->other[i], r, K_INT);
		}
		tdat_jw_end(w, '}');
	}
lost:
	if (r->missed) {
		tdat_jw_key(w, "lost");
		if (r->missed_count >= 0)
			tdat_jw_i64(w, r->missed_count);
		else
			tdat_jw_null(w);
	}
	tdat_jw_qkey(w, "\"fields\":", 9);
	tdat_jw_obj(w);
	if (c)
		fields(j, c, r);
	tdat_jw_end(w, '}');
	if (c && c->nsym)
		symbols(j, c, r, "\"symbols\":");
	tdat_jw_end(w, '}');
	tdat_jw_nl(w);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Chrome trace event format. */

/* A double rounded to its type: no excess precision (x87) in the sums
 * below, which must be the ones a viewer makes. */
static double
dbl(double x)
{
	volatile double v = x;

	return v;
}

/* The double a reader makes of usecs(ns): the text's value correctly
 * rounded (JavaScript's Number, JSON.parse, strtod, Perfetto's reader).
 * Below 2^53, ns is exact as a double and one correctly rounded division
 * gives that value; beyond, strtod reads the text (in the C locale: the
 * tools never call setlocale). */
static double
usecs_double(uint64_t ns)
{
	char s[32];

	if (ns < (uint64_t)1 << 53)
		return dbl((double)ns / 1000);
	snprintf(s, sizeof(s), "%llu.%03u", (unsigned long long)(ns / 1000),
	    (unsigned)(ns % 1000));
	return strtod(s, NULL);
}

/* Whether a slice from start lasting dur nanoseconds, written in
 * microseconds, ends no later than end as readers compute it: ts + dur
 * in doubles (a script, a viewer that adds them), and speedscope's
 * (ts - first) + dur against (end - first), first the earliest ts of the
 * track, which it subtracts from every ts of a track before it adds the
 * durations; and Perfetto's, which rounds ts and dur to integer
 * nanoseconds (1000 * the double, llround): below 2^53 ns it sees the
 * exact times, or a nanosecond less of duration, beyond (a clock counted
 * from 1970, an LTTng trace's) the doubles' rounding, checked here. */
static int
ends_by(uint64_t first, uint64_t start, uint64_t dur, uint64_t end)
{
	double f = usecs_double(first), t = usecs_double(start);
	double d = usecs_double(dur), e = usecs_double(end);

	return dbl(t + d) <= e &&
	    dbl(dbl(t - f) + d) <= dbl(e - f) &&
	    (start < (uint64_t)1 << 53 ||
	    llround(t * 1000) + llround(d * 1000) <= llround(e * 1000));
}

/* The duration to write for a slice of a track whose first slice starts
 * at first: the exact one when its end as a viewer computes it is not
 * past end, else the longest one shorter by whole nanoseconds whose end
 * is not (one nanosecond shorter below 2^40 microseconds, 12 days; more
 * beyond).
 * Then no slice ends after the next one on its track starts, and the
 * slices do not nest; args.common_dur keeps the exact duration. */
static uint64_t
fit_dur(uint64_t first, uint64_t start, uint64_t end)
{
	uint64_t dur = end - start, lo = 0, hi = dur, mid;

	if (ends_by(first, start, dur, end))
		return dur;
	/* Shorter never ends later, and 0 ends by end: the shortest cut
	 * that fits is in (lo, hi]. */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (ends_by(first, start, dur - mid, end))
			hi = mid;
		else
			lo = mid;
	}
	return dur - hi;
}

/* Microseconds with three decimals: exact nanoseconds. */
static void
usecs(struct jev *j, uint64_t ns)
{
	struct tdat_jw *w = &j->w;
	char s[2 * FAST_NUM + 4], *p = s;
	unsigned ms = (unsigned)(ns % 1000);

	/* "%llu.%03u", the digits in place (tdat-num.h's wide stores, read
	 * back at once by the copy below, would stall it) */
	p += tdat_udec_len(ns / 1000);
	tdat_udec_digits(p, ns / 1000);
	*p++ = '.';
	*p++ = (char)('0' + ms / 100);
	*p++ = (char)('0' + ms / 10 % 10);
	*p++ = (char)('0' + ms % 10);
	tdat_jw_raw(w, s, (size_t)(p - s));
}

static int
pid_add(struct jev *j, int pid)
{
	size_t i, k;
	int *np;

	if (j->npids * 2 >= j->cappids) {
		size_t cap = j->cappids ? j->cappids * 2 : 1024;

		if ((np = malloc(cap * sizeof(*np))) == NULL)
			return -1;
		for (i = 0; i < cap; i++)
			np[i] = -1;
		for (i = 0; i < j->cappids; i++) {
			if (j->pids[i] < 0)
				continue;
			k = ((unsigned)j->pids[i] * 2654435761u) & (cap - 1);
			while (np[k] >= 0)
				k = (k + 1) & (cap - 1);
			np[k] = j->pids[i];
		}
		free(j->pids);
		j->pids = np;
		j->cappids = cap;
	}
	if (pid < 0)
		return 0;
	k = ((unsigned)pid * 2654435761u) & (j->cappids - 1);
	while (j->pids[k] >= 0) {
		if (j->pids[k] == pid)
			return 0;
		k = (k + 1) & (j->cappids - 1);
	}
	j->pids[k] = pid;
	j->npids++;
	return 0;
}

static int
pid_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static void
meta_event(struct jev *j, const char *what, int pid, int tid, const char *name)
{
	struct tdat_jw *w = &j->w;

	tdat_jw_obj(w);
	tdat_jw_key(w, "name");
	tdat_jw_cstr(w, what);
	tdat_jw_key(w, "ph");
	tdat_jw_cstr(w, "M");
	tdat_jw_key(w, "pid");
	tdat_jw_i64(w, pid);
	tdat_jw_key(w, "tid");
	tdat_jw_i64(w, tid);
	tdat_jw_key(w, "args");
	tdat_jw_obj(w);
	tdat_jw_key(w, "name");
	tdat_jw_name(w, name, strlen(name));
	tdat_jw_end(w, '}');
	tdat_jw_end(w, '}');
}

static void
sort_index(struct jev *j, int pid, int tid, int idx)
{
	struct tdat_jw *w = &j->w;

	tdat_jw_obj(w);
	tdat_jw_key(w, "name");
	tdat_jw_cstr(w, "thread_sort_index");
	tdat_jw_key(w, "ph");
	tdat_jw_cstr(w, "M");
	tdat_jw_key(w, "pid");
	tdat_jw_i64(w, pid);
	tdat_jw_key(w, "tid");
	tdat_jw_i64(w, tid);
	tdat_jw_key(w, "args");
	tdat_jw_obj(w);
	tdat_jw_key(w, "sort_index");
	tdat_jw_i64(w, idx);
	tdat_jw_end(w, '}');
	tdat_jw_end(w, '}');
}

/* End the slice running on a CPU at ts. */
static void
slice_end(struct jev *j, int cpu, uint64_t ts, const long long *state)
{
	struct slice *s = &j->cpu[cpu];
	struct tdat_jw *w = &j->w;

	if (!s->active)
		return;
	s->active = 0;
	if (s->pid == 0)
		return;		/* idle */
	if (ts <= s->start)
		return;		/* no time: it would nest in the next slice */
	if (!s->written) {
		s->written = 1;
		s->first = s->start;
	}
	tdat_jw_obj(w);
	tdat_jw_key(w, "name");
	tdat_jw_name(w, s->comm, strlen(s->comm));
	tdat_jw_key(w, "cat");
	tdat_jw_cstr(w, "sched");
	tdat_jw_key(w, "ph");
	tdat_jw_cstr(w, "X");
	tdat_jw_key(w, "ts");
	usecs(j, s->start);
	tdat_jw_key(w, "dur");
	usecs(j, fit_dur(s->first, s->start, ts));
	tdat_jw_key(w, "pid");
	tdat_jw_i64(w, CPU_PID);
	tdat_jw_key(w, "tid");
	tdat_jw_i64(w, CPU_TID(cpu));
	tdat_jw_key(w, "args");
	tdat_jw_obj(w);
	tdat_jw_key(w, "pid");
	tdat_jw_i64(w, s->pid);
	tdat_jw_key(w, "prio");
	tdat_jw_i64(w, s->prio);
	if (state) {
		tdat_jw_key(w, "end_state");
		tdat_jw_i64(w, *state);
	}
	tdat_jw_key(w, "common_ts");
	tdat_jw_u64(w, s->start);
	tdat_jw_key(w, "common_dur");
	tdat_jw_u64(w, ts - s->start);
	tdat_jw_end(w, '}');
	tdat_jw_end(w, '}');
}

static int
cpu_slot(struct jev *j, int cpu)
{
	struct slice *n;

	if (cpu < 0 || cpu > 65535)
		return -1;
	if (cpu >= j->ncpu) {
		if ((n = realloc(j->cpu, (size_t)(cpu + 1) * sizeof(*n))) == NULL)
			return -1;
		memset(n + j->ncpu, 0, (size_t)(cpu + 1 - j->ncpu) * sizeof(*n));
		j->cpu = n;
		j->ncpu = cpu + 1;
	}
	return 0;
}

/* A string field's bytes, up to its first NUL, into buf. */
static void
str_field(const struct tdat_field *f, const struct tdat_record *r, char *buf,
    size_t cap)
{
	size_t n = 0;

	if (f && !(f->flags & TDAT_FLD_DYNAMIC) &&
	    (uint32_t)f->offset + f->size <= r->size) {
		const unsigned char *p = r->data + f->offset;

		while (n < (size_t)f->size && n + 1 < cap && p[n]) {
			buf[n] = (char)p[n];
			n++;
		}
	}
	buf[n] = '\0';
}

static int
sched_switch(struct jev *j, const struct tdat_record *r)
{
	const struct tdat_event *ev = j->sw;
	struct slice *s;
	long long state;
	int prev, next;
	char comm[32];

	if (cpu_slot(j, r->cpu) < 0)
		return -1;
	s = &j->cpu[r->cpu];
	prev = (int)field_u64(ev, j->sw_prev_pid, r);
	next = (int)field_u64(ev, j->sw_next_pid, r);
	state = j->sw_prev_state ? tdat_sext(field_u64(ev, j->sw_prev_state, r),
	    j->sw_prev_state->size) : 0;
	if (!s->active && prev != 0) {
		/* The first switch on this CPU: prev ran since the CPU's
		 * first event, or at least since this one. */
		s->active = 1;
		s->pid = prev;
		str_field(j->sw_prev_comm, r, s->comm, sizeof(s->comm));
		if (s->start == 0)
			s->start = r->ts;
		s->prio = j->sw_prev_prio ? tdat_sext(field_u64(ev, j->sw_prev_prio,
		    r), j->sw_prev_prio->size) : 0;
	}
	slice_end(j, r->cpu, r->ts, j->sw_prev_state ? &state : NULL);
	s->active = 1;
	s->pid = next;
	s->start = r->ts;
	str_field(j->sw_next_comm, r, comm, sizeof(comm));
	memcpy(s->comm, comm, sizeof(comm));
	s->prio = j->sw_next_prio ? tdat_sext(field_u64(ev, j->sw_next_prio, r),
	    j->sw_next_prio->size) : 0;
	if (next > 0 && comm[0])
		tdat_events_set_comm(j->ev, next, comm);
	str_field(j->sw_prev_comm, r, comm, sizeof(comm));
	if (prev > 0 && comm[0])
		tdat_events_set_comm(j->ev, prev, comm);
	if (pid_add(j, next) < 0 || pid_add(j, prev) < 0)
		return -1;
	return 0;
}

/* An instant's "name" to "ts" keys as tdat_jw_*() write them for event
 * type c, made on first use; NULL when its name or system needs
 * escaping (or no memory). */
static const char *
chrome_head(struct evc *c)
{
	const struct tdat_event *ev = c->ev;
	size_t nn = strlen(ev->name), ns = strlen(ev->system);
	char *p;

	if (c->chead_done)
		return c->chead;
	c->chead_done = 1;
	if (!tdat_json_plain(ev->name, nn) || !tdat_json_plain(ev->system,
	    ns) || (c->chead = malloc(nn + ns + 64)) == NULL)
		return NULL;
	p = c->chead;
	p = FAST_LIT(p, "\"name\":\"");
	p = fast_put(p, ev->name, nn);
	p = FAST_LIT(p, "\",\"cat\":\"");
	p = fast_put(p, ev->system, ns);
	p = FAST_LIT(p, "\",\"ph\":\"i\",\"s\":\"t\",\"ts\":");
	c->cheadlen = (size_t)(p - c->chead);
	return c->chead;
}

/* "pid":N,"tid":N,"args": of pid as tdat_jw_*() write them (its length
 * in j->cpid_len), kept for the next record of the same pid. */
static const char *
chrome_pid(struct jev *j, int pid)
{
	char *p = j->cpid_text;

	if (j->cpid_len != 0 && j->cpid == pid)
		return j->cpid_text;
	p = FAST_LIT(p, "\"pid\":");
	p = fast_i64(p, pid, &j->hi);
	p = FAST_LIT(p, ",\"tid\":");
	p = fast_i64(p, pid, &j->hi);
	p = FAST_LIT(p, ",\"args\":");
	j->cpid_len = (size_t)(p - j->cpid_text);
	j->cpid = pid;
	return j->cpid_text;
}

static int
instant(struct jev *j, const struct tdat_event *ev, const struct tdat_record *r,
    int id)
{
	struct tdat_jw *w = &j->w;
	struct evc *c = NULL;
	const char *q;
	int pid;

	if (ev && (c = evc_get(j, ev)) == NULL)
		return -1;
	pid = c ? (int)field_u64(ev, c->pid, r) : 0;
	if (pid_add(j, pid) < 0)
		return -1;
	tdat_jw_obj(w);
	/* the members up to "args" as one key where no newline may come
	 * between them (tdat_jw_qkey(): a comma before, none after) */
	if (c && w->depth != w->lines_depth && chrome_head(c) != NULL)
		tdat_jw_qkey(w, c->chead, c->cheadlen);
	else {
		tdat_jw_qkey(w, "\"name\":", 7);
		if (ev)
			tdat_jw_name(w, ev->name, strlen(ev->name));
		else
			tdat_jw_cstr(w, "[UNKNOWN EVENT]");
		tdat_jw_qkey(w, "\"cat\":", 6);
		tdat_jw_name(w, ev ? ev->system : "", ev ? strlen(ev->system) :
		    0);
		tdat_jw_qkey(w, "\"ph\":", 5);
		tdat_jw_raw(w, "\"i\"", 3);
		tdat_jw_qkey(w, "\"s\":", 4);
		tdat_jw_raw(w, "\"t\"", 3);
		tdat_jw_qkey(w, "\"ts\":", 5);
	}
	usecs(j, r->ts);
	if (w->depth != w->lines_depth) {
		q = chrome_pid(j, pid);
		tdat_jw_qkey(w, q, j->cpid_len);
	} else {
		tdat_jw_qkey(w, "\"pid\":", 6);
		tdat_jw_i64(w, pid);
		tdat_jw_qkey(w, "\"tid\":", 6);
		tdat_jw_i64(w, pid);
		tdat_jw_qkey(w, "\"args\":", 7);
	}
	tdat_jw_obj(w);
	/* common_ never starts an event's own field name.  ts in
	 * microseconds is a double that holds nanoseconds exactly only up to
	 * 2^41 us: common_ts is exact. */
	tdat_jw_qkey(w, "\"common_ts\":", 12);
	tdat_jw_u64(w, r->ts);
	tdat_jw_qkey(w, "\"common_cpu\":", 13);
	tdat_jw_i64(w, r->cpu);
	if (r->buffer > 0) {
		tdat_jw_qkey(w, "\"common_buffer\":", 16);
		tdat_jw_cstr(w, j->f->buf[r->buffer].name);
	}
	if (c) {
		fields(j, c, r);
		if (c->nsym)
			symbols(j, c, r, "\"common_symbols\":");
	} else {
		tdat_jw_qkey(w, "\"common_type\":", 14);
		tdat_jw_i64(w, id);
	}
	tdat_jw_end(w, '}');
	tdat_jw_end(w, '}');
	return 0;
}

static void
chrome_begin(struct jev *j)
{
	const struct tdat_event *sw;

	tdat_jw_obj(&j->w);
	tdat_jw_key(&j->w, "displayTimeUnit");
	tdat_jw_cstr(&j->w, "ns");
	tdat_jw_key(&j->w, "traceEvents");
	tdat_jw_arr(&j->w);
	tdat_jw_raw(&j->w, "\n", 1);	/* not a value: no comma follows */
	j->w.first[j->w.depth] = 1;
	j->w.lines_depth = j->w.depth;
	j->sw_buffer = -1;
	sw = tdat_events_find_name(j->ev, "sched", "sched_switch");
	if (sw == NULL)
		return;
	j->sw_prev_pid = tdat_event_field(sw, "prev_pid");
	j->sw_next_pid = tdat_event_field(sw, "next_pid");
	j->sw_next_comm = tdat_event_field(sw, "next_comm");
	j->sw_prev_comm = tdat_event_field(sw, "prev_comm");
	j->sw_prev_state = tdat_event_field(sw, "prev_state");
	j->sw_next_prio = tdat_event_field(sw, "next_prio");
	j->sw_prev_prio = tdat_event_field(sw, "prev_prio");
	if (j->sw_prev_pid && j->sw_next_pid)
		j->sw = sw;
}

static int
chrome_end(struct jev *j)
{
	size_t i, n = 0;
	int *list, c;
	char name[32];

	for (c = 0; c < j->ncpu; c++)
		slice_end(j, c, j->last_ts, NULL);
	if (j->ncpu > 0)
		meta_event(j, "process_name", CPU_PID, CPU_PID, "CPUs");
	for (c = 0; c < j->ncpu; c++) {
		snprintf(name, sizeof(name), "CPU %d", c);
		meta_event(j, "thread_name", CPU_PID, CPU_TID(c), name);
		sort_index(j, CPU_PID, CPU_TID(c), c);
	}
	if ((list = malloc((j->npids ? j->npids : 1) * sizeof(*list))) == NULL)
		return -1;
	for (i = 0; i < j->cappids; i++)
		if (j->pids[i] >= 0)
			list[n++] = j->pids[i];
	qsort(list, n, sizeof(*list), pid_cmp);
	for (i = 0; i < n; i++) {
		const char *comm = tdat_events_comm(j->ev, list[i]);

		meta_event(j, "process_name", list[i], list[i], comm);
		meta_event(j, "thread_name", list[i], list[i], comm);
	}
	free(list);
	j->w.first[j->w.depth] = 1;	/* a newline, not a value */
	tdat_jw_raw(&j->w, "\n", 1);
	tdat_jw_end(&j->w, ']');
	tdat_jw_end(&j->w, '}');
	tdat_jw_nl(&j->w);
	return 0;
}

/* ------------------------------------------------------------------ */
/*
 * A latency tracer's text as JSON Lines, one object a line:
 * {"latency":"LINE"}, and "newline":false where no newline follows (the
 * end of a text without one, or a piece of a line over 1 MiB); a named
 * buffer's lines begin with "buffer".
 */

#define LATENCY_MAX	(1u << 20)	/* longer lines go in pieces */

struct latency_out {
	struct tdat_jw *w;
	const char *bname;
};

static int
latency_line(void *arg, const char *p, size_t n, int newline)
{
	struct latency_out *lo = arg;
	struct tdat_jw *w = lo->w;

	tdat_jw_obj(w);
	if (lo->bname[0]) {
		tdat_jw_key(w, "buffer");
		tdat_jw_cstr(w, lo->bname);
	}
	tdat_jw_key(w, "latency");
	tdat_jw_str(w, p, n);
	if (!newline) {
		tdat_jw_key(w, "newline");
		tdat_jw_bool(w, 0);
	}
	tdat_jw_end(w, '}');
	tdat_jw_nl(w);
	return w->err;
}

static int
latency(struct jev *j, struct tdat_file *f, int bi, struct tdat_err *e)
{
	struct latency_out lo = { &j->w, f->buf[bi].name };

	return tdat_latency_lines(f, bi, LATENCY_MAX, latency_line, &lo, e);
}

/* ------------------------------------------------------------------ */

static int
jev_begin(void *arg, struct tdat_file *const *files, size_t n,
    struct tdat_run *run, struct tdat_err *e)
{
	struct jev *j = arg;
	size_t k;
	int rc;

	(void)run;
	if (tdat_jw_init(&j->w, j->out) < 0)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	if ((j->in = calloc(n ? n : 1, sizeof(*j->in))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	j->nin = n;
	for (k = 0; k < n; k++) {
		j->in[k].f = files[k];
		if ((rc = tdat_sink_events(files, n, k, &j->in[k].ev, e)) < 0)
			return rc;
		j->in[k].type_size = tdat_type_size(files[k]);
	}
	j->f = j->in[0].f;
	j->ev = j->in[0].ev;
	j->type_size = j->in[0].type_size;
	if (j->chrome) {
		chrome_begin(j);
		if (pid_add(j, -1) < 0)	/* makes the empty set */
			return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	/* A latency tracer's text: its lines first (one input only, as
	 * trace-cmd report refuses it among several). */
	if ((rc = tdat_sink_latency_alone(files, n, e)) < 0)
		return rc;
	for (k = 0; k < n; k++)
		if (tdat_latency_buffer(files[k]) >= 0 && !j->chrome &&
		    (rc = latency(j, files[k], tdat_latency_buffer(files[k]),
		    e)) < 0)
			return rc;
	/* A latency-tracer file holds text, no events. */
	return n == 1 && files[0]->latency ? TDAT_RUN_NO_RECORDS :
	    TDAT_RUN_RECORDS;
}

/* tdat_events_find() for the last few ids. */
static const struct tdat_event *
find_event(struct jev *j, int id)
{
	struct evid *c = &j->ids[(unsigned)id % NAMEC];

	if (c->set != j->ev || c->id != id) {
		c->ev = tdat_events_find(j->ev, id);
		c->set = j->ev;
		c->id = id;
	}
	return c->ev;
}

static int
jev_record(void *arg, size_t k, const struct tdat_record *rec,
    struct tdat_err *e)
{
	struct jev *j = arg;
	const struct tdat_event *ev;
	int rc, id;

	if (k != j->cur) {
		j->cur = k;
		j->f = j->in[k].f;
		j->ev = j->in[k].ev;
		j->type_size = j->in[k].type_size;
	}
	id = rec->size >= (uint32_t)j->type_size ?
	    (int)getn(j, rec->data, j->type_size) : -1;
	ev = find_event(j, id);
	if (!j->chrome) {
		rc = line(j, ev, rec, id);
	} else {
		if (cpu_slot(j, rec->cpu) == 0 && j->cpu[rec->cpu].start == 0)
			j->cpu[rec->cpu].start = rec->ts;
		j->last_ts = rec->ts;
		if (ev && ev == j->sw && (j->sw_buffer < 0 ||
		    j->sw_buffer == rec->buffer)) {
			j->sw_buffer = rec->buffer;
			rc = sched_switch(j, rec);
		} else {
			rc = instant(j, ev, rec, id);
		}
	}
	if (rc < 0)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	if (j->w.err)
		return j->w.err == TDAT_ENOMEM ?
		    tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory") :
		    tdat_fail_nooff(e, TDAT_EIO, "write error");
	return 0;
}

static int
jev_end(void *arg, int complete, struct tdat_err *e)
{
	struct jev *j = arg;

	if (j->w.buf == NULL)
		return 0;	/* begin failed */
	if (complete && j->chrome && chrome_end(j) < 0)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	if (tdat_jw_flush(&j->w) < 0)
		return j->w.err == TDAT_ENOMEM ?
		    tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory") :
		    tdat_fail_nooff(e, TDAT_EIO, "write error");
	return 0;
}

static void
jev_free(void *arg)
{
	struct jev *j = arg;
	size_t k;

	tdat_jw_free(&j->w);
	for (k = 0; k < j->nin; k++)
		tdat_events_free(j->in[k].ev);
	free(j->in);
	free(j->cpu);
	free(j->pids);
	for (k = 0; k < j->capcache; k++)
		evc_free(j->cache[k]);
	free(j->cache);
}

/* ------------------------------------------------------------------ */
/*
 * JSON Lines on threads (lib/merge/par.c): each worker writes with a jev
 * of its own, over event sets of its own, into its block's text.  The
 * Chrome format stays in the driver's thread: it pairs each CPU's
 * switches into slices and names every task seen at the end.
 */

static void
jev_fmt_free(void *arg)
{
	struct jev *j = arg;

	j->w.mem = NULL;
	jev_free(j);
	free(j);
}

static void *
jev_fmt_new(void *arg, struct tdat_err *e)
{
	struct jev *top = arg, *j;
	size_t k;

	if (top->chrome)
		return NULL;
	if ((j = calloc(1, sizeof(*j))) == NULL)
		goto nomem;
	j->o = top->o;
	if (tdat_jw_init(&j->w, NULL) < 0 ||
	    (j->in = calloc(top->nin, sizeof(*j->in))) == NULL) {
		jev_fmt_free(j);
		goto nomem;
	}
	j->nin = top->nin;
	for (k = 0; k < j->nin; k++) {
		j->in[k].f = top->in[k].f;
		j->in[k].type_size = top->in[k].type_size;
		if (tdat_events_load(j->in[k].f, &j->in[k].ev, e) < 0) {
			jev_fmt_free(j);
			return NULL;
		}
		tdat_events_finish(j->in[k].ev, 0);
		tdat_events_share_syms(j->in[k].ev, top->in[k].ev);
	}
	j->f = j->in[0].f;
	j->ev = j->in[0].ev;
	j->type_size = j->in[0].type_size;
	return j;
nomem:
	tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	return NULL;
}

static int
jev_fmt(void *arg, size_t k, const struct tdat_record *rec,
    struct tdat_sbuf *out, struct tdat_err *e)
{
	struct jev *j = arg;

	j->w.mem = out;
	return jev_record(j, k, rec, e);
}

static int
jev_fmt_flush(void *arg, struct tdat_sbuf *out, struct tdat_err *e)
{
	struct jev *j = arg;

	j->w.mem = out;
	if (tdat_jw_flush(&j->w) < 0)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	return 0;
}

/* The driver's thread: the workers' text, after what begin() wrote. */
static int
jev_write(void *arg, const char *p, size_t n, struct tdat_err *e)
{
	struct jev *j = arg;

	if (tdat_jw_flush(&j->w) == 0 && fwrite(p, 1, n, j->out) != n)
		j->w.err = TDAT_EIO;
	if (j->w.err)
		return j->w.err == TDAT_ENOMEM ?
		    tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory") :
		    tdat_fail_nooff(e, TDAT_EIO, "write error");
	return 0;
}

static const struct tdat_sink_par jev_par = {
	jev_fmt_new, jev_fmt, jev_fmt_flush, jev_fmt_free, NULL, jev_write
};

static const struct tdat_sink_ops jev_ops = {
	0, jev_begin, jev_record, jev_end, jev_free, &jev_par
};

int
tdat_json_events(struct tdat_file *const *files, size_t n, FILE *out,
    const struct tdat_json_opts *o, struct tdat_err *e)
{
	struct jev *j = calloc(1, sizeof(*j));	/* caches: 416 KiB */
	struct tdat_sink sink = { &jev_ops, j };
	int rc;

	if (j == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	j->o = o;
	j->out = out;
	j->chrome = o->mode == TDAT_JSON_CHROME;
	rc = tdat_run(files, n, o->sel, &sink, o->progress, o->progress_arg,
	    e);
	free(j);
	return rc;
}
