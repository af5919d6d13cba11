/*
 * ctf-write.c: a trace.dat converted into a CTF 1.8 trace directory
 * (ctf(5), tdat-to-ctf(1)): a "metadata" file in TSDL and one data
 * stream file per buffer and CPU, which babeltrace2 and Trace Compass
 * read.
 *
 * Every event format becomes an event class of each buffer's stream
 * class (id: the ftrace id), its common fields (but common_type, the
 * id) the event's context and its own fields the payload, typed from
 * the format file: integers with their size, signedness and the trace's
 * byte order (base 16 for pointers and fields the print format prints
 * with %x or %p), __print_symbolic and __print_flags fields enumerations
 * labelled from the print format, char arrays and __data_loc char[]
 * strings, other arrays arrays, __data_loc and __rel_loc arrays
 * sequences.  Every integer is byte-aligned: the payload is the record's
 * fields one after the other.
 *
 * Time: one clock class named after the trace clock, 1 GHz, offset 0,
 * and every event's full 64-bit time stamp as the record stream gives it
 * (OFFSET, TSC2NSEC and TIME_SHIFT applied): the trace.dat's time to the
 * nanosecond.  A cycle clock (x86-tsc or counter without TSC2NSEC)
 * stays in cycles, which its description says.
 *
 * Lost events end a packet: the next one's events_discarded snapshot
 * counts them (one when the ring buffer did not say how many).  The
 * originals (header_page, header_event, the format files, kallsyms,
 * printk formats, cmdlines, options) go to tdat/, a folder babeltrace2
 * passes over.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event-int.h"
#include "tdat-sink.h"
#include "tdat-ctf.h"
#include "tdat-opts.h"

#define CTF_MAGIC	0xc1fc1fc1u
#define PKT_HDR		68	/* packet header (16) and context (52) */
#define EV_HDR		12	/* id (4) and timestamp (8) */

/* How a field is written. */
enum {
	FK_INT,			/* an integer of 1, 2, 4 or 8 bytes */
	FK_BYTES,		/* a scalar of another size: uint8 array */
	FK_CHARS,		/* a fixed char array: encoded uint8 array */
	FK_ARRAY,		/* a fixed array of integers */
	FK_STRING,		/* __data_loc char[] (or a flexible one) */
	FK_SEQ,			/* __data_loc array (or a flexible one) */
	FK_PRIO,		/* --lttng: a priority less MAX_RT_PRIO, int */
};

/* lttng-modules' MAX_RT_PRIO: its priorities are the kernel's less it. */
#define MAX_RT_PRIO	100

struct label {
	char *name;
	long long v;
};

struct fplan {
	const struct tdat_field *f;
	int kind;
	int es;			/* element size of arrays and sequences */
	int count;		/* elements of a fixed array */
	int hex;		/* base 16 */
	int sgn;
	struct label *lab;	/* enumeration labels */
	int nlab;
	const char *oname;	/* --lttng: the name it is written under */
};

struct cls {
	const struct tdat_event *ev;
	int id;
	int nctx, npay;
	struct fplan *ctx, *pay;
	char *lname;		/* --lttng: the event's name */
	int used;		/* an event of it was written */
};

/* --lttng: the statedump events, ids past any ftrace id. */
#define ID_STATEDUMP_START	0x10000
#define ID_STATEDUMP_PROCESS	0x10001
#define ID_STATEDUMP_END	0x10002
/* A record of an event type the trace has no format for. */
#define ID_UNKNOWN		TDAT_CTF_ID_UNKNOWN

struct st {
	int buf;
	uint32_t cpu;
	int fd;
	char *rel;		/* the file being written */
	char *base;		/* its first file's name: cpuN, NAME-cpuN */
	uint32_t inst, part;	/* its stream instance, and file in it */
	uint64_t fsize;		/* bytes of the file being written */
	uint64_t pbeg;		/* the instance's last packet's begin */
	int ipkts;		/* ... packets of the instance so far */
	int tied;		/* ... two of them begin at the same time */
	unsigned char *p;
	size_t len, cap;
	int open;
	uint64_t seq, disc, tbeg, tend, nev, last;
	int have_last;
};

struct cw {
	struct tdat_file *f;
	struct tdat_ctf_write_opts *o;
	struct tdat_err *e;
	const char *dir;
	int big;
	int type_size;
	struct tdat_events *evs;
	struct cls *cls;
	size_t ncls;
	struct st *st;
	size_t nst;
	size_t target;		/* packet size to aim at */
	uint64_t part_max;	/* bytes of a stream file (see file_turn) */
	struct tdat_ring_gate *check;
	char clock[64];
	int lttng;		/* --lttng */
	int lost_fd;		/* tdat/lost, or -1 */
	int statedump_done;
};

/* ------------------------------------------------------------------ */
/* Files. */

static int
write_all(struct cw *w, int fd, const void *p, size_t n, const char *rel)
{
	const char *c = p;
	ssize_t k;

	while (n > 0) {
		if ((k = write(fd, c, n)) < 0) {
			if (errno == EINTR)
				continue;
			return tdat_fail_nooff(w->e, TDAT_EIO, "%s/%s: %s",
			    w->dir, rel, strerror(errno));
		}
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

static int
wr_file(struct cw *w, const char *rel, const void *p, size_t n)
{
	char path[PATH_MAX];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/%s", w->dir, rel);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644))
	    < 0)
		return tdat_fail_nooff(w->e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
	rc = write_all(w, fd, p, n, rel);
	if (close(fd) < 0 && rc == 0)
		rc = tdat_fail_nooff(w->e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
	return rc;
}

static int
wr_mkdir(struct cw *w, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", w->dir, rel);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return tdat_fail_nooff(w->e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Names. */

static const char *const keywords[] = {
	"align", "callsite", "const", "char", "clock", "double", "enum",
	"env", "event", "floating_point", "float", "integer", "int", "long",
	"short", "signed", "stream", "string", "struct", "trace",
	"typealias", "typedef", "unsigned", "variant", "void", "_Bool",
	"_Complex", "_Imaginary", "sequence", "array", "typealias",
};

/* The name babeltrace2 shows for a field: its own, made an identifier. */
static void
vis_name(char *dst, size_t n, const char *name)
{
	size_t i;

	snprintf(dst, n, "%s", *name ? name : "field");
	for (i = 0; dst[i]; i++)
		if (!((dst[i] >= 'a' && dst[i] <= 'z') ||
		    (dst[i] >= 'A' && dst[i] <= 'Z') || dst[i] == '_' ||
		    (i > 0 && dst[i] >= '0' && dst[i] <= '9')))
			dst[i] = '_';
}

/* Its TSDL spelling: babeltrace2 takes one leading underscore off a
 * field's name (the escape of keywords), so a name that begins with one
 * or is a keyword gets one more. */
static void
tsdl_name(struct tdat_sbuf *sb, const char *vis)
{
	size_t i;
	int esc = vis[0] == '_';

	for (i = 0; !esc && i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (strcmp(vis, keywords[i]) == 0)
			esc = 1;
	if (esc)
		tdat_sb_putc(sb, '_');
	tdat_sb_puts(sb, vis);
}

/* A TSDL string literal. */
static void
quote(struct tdat_sbuf *sb, const char *s, size_t n)
{
	size_t i;

	tdat_sb_putc(sb, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			tdat_sb_putc(sb, '\\');
			tdat_sb_putc(sb, c);
		} else if (c < 0x20 || c >= 0x7f)
			tdat_sb_printf(sb, "\\x%02x", c);
		else
			tdat_sb_putc(sb, c);
	}
	tdat_sb_putc(sb, '"');
}

static void
quotes(struct tdat_sbuf *sb, const char *s)
{
	quote(sb, s, strlen(s));
}

/* ------------------------------------------------------------------ */
/* Field plans. */

static int
pow2(int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

static void
plan_field(struct cw *w, struct fplan *p, const struct tdat_field *f)
{
	int str = (f->flags & TDAT_FLD_STRING) != 0 && tdat_field_is_text(f->type);

	memset(p, 0, sizeof(*p));
	p->f = f;
	p->sgn = (f->flags & TDAT_FLD_SIGNED) != 0;
	p->hex = (f->flags & TDAT_FLD_POINTER) != 0;
	if ((f->flags & TDAT_FLD_ARRAY) || f->size == 0) {
		p->es = f->elemsize;
		if (f->size == 0 && !(f->flags & TDAT_FLD_DYNAMIC)) {
			p->es = tdat_field_elem_size(f->type, w->f->lsize);
			str = p->es == 1 && tdat_field_is_text(f->type);
		}
		if (!pow2(p->es))
			p->es = (f->flags & TDAT_FLD_LONG) ? w->f->lsize : 1;
		if ((f->flags & TDAT_FLD_DYNAMIC) || f->size == 0)
			p->kind = str ? FK_STRING : FK_SEQ;
		else if (str)
			p->kind = FK_CHARS;
		else {
			p->kind = FK_ARRAY;
			p->count = f->size / p->es;
		}
		return;
	}
	if (f->size > 0 && pow2(f->size))
		p->kind = FK_INT;
	else
		p->kind = FK_BYTES;
}

/* The field a print-format argument reads, under casts and a mask
 * (REC->x & MASK); NULL for anything else. */
static const struct tdat_field *
arg_field(const struct parg *a)
{
	while (a && (a->type == PA_TYPE || (a->type == PA_OP && a->str &&
	    strcmp(a->str, "&") == 0)))
		a = a->left;
	return a && a->type == PA_FIELD ? a->field : NULL;
}

static struct fplan *
plan_of(struct cls *c, const struct tdat_field *f)
{
	int i;

	for (i = 0; i < c->npay; i++)
		if (c->pay[i].f == f)
			return &c->pay[i];
	return NULL;
}

/* A label value from the print format's text: a number, or NULL. */
static int
label_value(const char *s, long long *v)
{
	char *end;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	if (*s == '-')
		*v = strtoll(s, &end, 0);
	else
		*v = (long long)strtoull(s, &end, 0);
	return *end || errno ? -1 : 0;
}

/* The labels of __print_symbolic and __print_flags: each such node of
 * the print format's argument trees labels the field it reads. */
static void
walk_syms(struct cls *c, const struct parg *a)
{
	const struct tdat_field *f;
	const struct flagsym *s;
	struct fplan *p;
	long long v;
	int n;

	for (; a; a = a->next) {
		if ((a->type == PA_SYMBOL || a->type == PA_FLAGS) &&
		    (f = arg_field(a->left)) != NULL &&
		    (p = plan_of(c, f)) != NULL && p->kind == FK_INT &&
		    p->lab == NULL) {
			for (n = 0, s = a->syms; s; s = s->next)
				n++;
			if (n && (p->lab = calloc((size_t)n,
			    sizeof(*p->lab))) != NULL)
				for (s = a->syms; s; s = s->next) {
					size_t k;

					if (label_value(s->value, &v) < 0 ||
					    s->str == NULL || *s->str == '\0')
						continue;
					if (p->f->size < 8 && (p->sgn ?
					    (v < -(1LL << (p->f->size * 8 - 1))
					    || v >= (1LL << (p->f->size * 8 -
					    1))) : (v < 0 || v >= (1LL <<
					    (p->f->size * 8)))))
						continue;
					if (!p->sgn && p->f->size == 8 &&
					    s->value[0] == '-')
						continue;
					for (k = 0; k < (size_t)p->nlab; k++)
						if (p->lab[k].v == v ||
						    strcmp(p->lab[k].name,
						    s->str) == 0)
							break;
					if (k < (size_t)p->nlab)
						continue;
					if ((p->lab[p->nlab].name =
					    strdup(s->str)) == NULL)
						continue;
					p->lab[p->nlab++].v = v;
				}
		}
		walk_syms(c, a->left);
		walk_syms(c, a->right);
		walk_syms(c, a->third);
	}
}

/* A __data_loc char[] the print format prints as bytes
 * (__print_dynamic_array, __print_hex over __get_dynamic_array: trace-cmd
 * 3.4's syscall buffers) may hold NULs: a sequence of uint8 (base 16),
 * which keeps every byte, rather than a string cut at its first NUL. */
static void
walk_bytes(struct cls *c, const struct parg *a)
{
	struct fplan *p;

	for (; a; a = a->next) {
		if ((a->type == PA_INT_ARRAY || a->type == PA_HEX ||
		    a->type == PA_HEX_STR) && a->left &&
		    a->left->type == PA_DYNARRAY && a->left->field &&
		    (p = plan_of(c, a->left->field)) != NULL &&
		    p->kind == FK_STRING) {
			p->kind = FK_SEQ;
			p->es = 1;
			p->hex = 1;
		}
		walk_bytes(c, a->left);
		walk_bytes(c, a->right);
		walk_bytes(c, a->third);
	}
}

/* Base 16 for the fields the print format prints with %x or %p. */
static void
hex_fields(struct cls *c)
{
	const struct tdat_event *ev = c->ev;
	const struct tdat_print *p = ev->failed ? NULL : ev->print;
	const struct tdat_field *f;
	struct fplan *fp;
	const char *fmt;
	size_t n;
	int k;

	for (k = 0; p && k < p->n; k++) {
		fmt = p->it[k].format;
		if ((f = arg_field(p->it[k].arg)) == NULL ||
		    (fp = plan_of(c, f)) == NULL || fmt == NULL ||
		    (n = strlen(fmt)) == 0)
			continue;
		if (p->it[k].type == PP_POINTER) {
			if (fp->kind == FK_INT)
				fp->hex = 1;
		} else if (p->it[k].type == PP_DIGIT &&
		    (fmt[n - 1] == 'x' || fmt[n - 1] == 'X'))
			fp->hex = 1;
	}
}

static int lttng_event(struct cw *, struct cls *);

/* ftrace's own events whose last field holds other than its type says:
 * kernel_stack records its "size" callers, fewer or more than the 8 of
 * its format (struct_size()), and raw_data's char buf[] is bytes, not
 * text.  Each is a sequence to the record's end, as a flexible array. */
static void
ftrace_plan(struct cls *c)
{
	struct fplan *p = c->npay ? &c->pay[c->npay - 1] : NULL;

	if (!(c->ev->flags & TDAT_EV_FTRACE) || p == NULL)
		return;
	if (p->kind == FK_ARRAY && strcmp(c->ev->name, "kernel_stack") == 0 &&
	    tdat_event_field(c->ev, "size") != NULL)
		p->kind = FK_SEQ;
	if (p->kind == FK_STRING && strcmp(c->ev->name, "raw_data") == 0 &&
	    !(p->f->flags & TDAT_FLD_DYNAMIC)) {
		p->kind = FK_SEQ;
		p->es = 1;
		p->hex = 1;
	}
}

static int
cls_init(struct cw *w, struct cls *c, const struct tdat_event *ev)
{
	int i;

	c->ev = ev;
	c->id = ev->id;
	c->ctx = calloc((size_t)ev->ncommon + 1, sizeof(*c->ctx));
	c->pay = calloc((size_t)ev->nfields + 1, sizeof(*c->pay));
	if (c->ctx == NULL || c->pay == NULL)
		return tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory");
	for (i = 0; i < ev->ncommon; i++) {
		if (strcmp(ev->common[i].name, "common_type") == 0)
			continue;
		plan_field(w, &c->ctx[c->nctx++], &ev->common[i]);
	}
	for (i = 0; i < ev->nfields; i++)
		plan_field(w, &c->pay[c->npay++], &ev->fields[i]);
	ftrace_plan(c);
	if (!ev->failed && ev->print) {
		walk_syms(c, ev->print->args);
		walk_bytes(c, ev->print->args);
		hex_fields(c);
	}
	return w->lttng ? lttng_event(w, c) : 0;
}


/* ------------------------------------------------------------------ */
/* --lttng: events and fields as lttng-modules 2.13 writes them
 * (include/instrumentation/events/{sched,irq,power}.h). */

/* Each field "OUT=SRC", "OUT=SRC~" (a priority less MAX_RT_PRIO, as
 * lttng's p->prio - MAX_RT_PRIO), or "NAME" (the same). */
static const struct lmap {
	const char *sys, *ev, *lname;
	const char *fld[10];
} lmaps[] = {
	{ "sched", "sched_switch", "sched_switch", { "prev_comm",
	    "prev_tid=prev_pid", "prev_prio=prev_prio~", "prev_state",
	    "next_comm", "next_tid=next_pid", "next_prio=next_prio~" } },
	{ "sched", "sched_wakeup", "sched_wakeup", { "comm", "tid=pid",
	    "prio=prio~", "target_cpu" } },
	{ "sched", "sched_waking", "sched_waking", { "comm", "tid=pid",
	    "prio=prio~", "target_cpu" } },
	{ "sched", "sched_wakeup_new", "sched_wakeup_new", { "comm",
	    "tid=pid", "prio=prio~", "target_cpu" } },
	{ "sched", "sched_migrate_task", "sched_migrate_task", { "comm",
	    "tid=pid", "prio=prio~", "orig_cpu", "dest_cpu" } },
	{ "sched", "sched_process_free", "sched_process_free", { "comm",
	    "tid=pid", "prio=prio~" } },
	{ "sched", "sched_process_exit", "sched_process_exit", { "comm",
	    "tid=pid", "prio=prio~" } },
	{ "sched", "sched_wait_task", "sched_wait_task", { "comm",
	    "tid=pid", "prio=prio~" } },
	{ "sched", "sched_process_wait", "sched_process_wait", { "comm",
	    "tid=pid", "prio=prio~" } },
	{ "sched", "sched_process_fork", "sched_process_fork", {
	    "parent_comm", "parent_tid=parent_pid", "parent_pid",
	    "child_comm", "child_tid=child_pid", "child_pid" } },
	{ "sched", "sched_process_exec", "sched_process_exec", { "filename",
	    "tid=pid", "old_tid=old_pid" } },
	{ "sched", "sched_stat_runtime", "sched_stat_runtime", { "comm",
	    "tid=pid", "runtime", "vruntime" } },
	{ "sched", "sched_stat_wait", "sched_stat_wait", { "comm", "tid=pid",
	    "delay" } },
	{ "sched", "sched_stat_sleep", "sched_stat_sleep", { "comm",
	    "tid=pid", "delay" } },
	{ "sched", "sched_stat_iowait", "sched_stat_iowait", { "comm",
	    "tid=pid", "delay" } },
	{ "sched", "sched_stat_blocked", "sched_stat_blocked", { "comm",
	    "tid=pid", "delay" } },
	{ "sched", "sched_pi_setprio", "sched_pi_setprio", { "comm",
	    "tid=pid", "oldprio=oldprio~", "newprio=newprio~" } },
	{ "sched", "sched_kthread_stop", "sched_kthread_stop", { "comm",
	    "tid=pid" } },
	{ "sched", "sched_kthread_stop_ret", "sched_kthread_stop_ret", {
	    "ret" } },
	{ "irq", "irq_handler_entry", "irq_handler_entry", { "irq",
	    "name" } },
	{ "irq", "irq_handler_exit", "irq_handler_exit", { "irq", "ret" } },
	{ "irq", "softirq_entry", "irq_softirq_entry", { "vec" } },
	{ "irq", "softirq_exit", "irq_softirq_exit", { "vec" } },
	{ "irq", "softirq_raise", "irq_softirq_raise", { "vec" } },
	{ "power", "cpu_idle", "power_cpu_idle", { "state", "cpu_id" } },
	{ "power", "cpu_frequency", "power_cpu_frequency", { "state",
	    "cpu_id" } },
};

/* The event's own field of that name, or NULL. */
static struct fplan *
plan_named(struct cls *c, const char *name, size_t n)
{
	int i;

	for (i = 0; i < c->npay; i++)
		if (strlen(c->pay[i].f->name) == n &&
		    strncmp(c->pay[i].f->name, name, n) == 0)
			return &c->pay[i];
	return NULL;
}

/* The event's fields as the map says, in place of its own; 0, or 1 when
 * a field is missing (then it passes through). */
static int
lttng_fields(struct cw *w, struct cls *c, const struct lmap *m)
{
	struct fplan *np, *src;
	int n, i, k;

	for (n = 0; n < 10 && m->fld[n]; n++)
		;
	if ((np = calloc((size_t)n + 1, sizeof(*np))) == NULL)
		return tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		const char *f = m->fld[i], *eq = strchr(f, '=');
		const char *sn = eq ? eq + 1 : f;
		size_t sl = strlen(sn);
		int prio = sl && sn[sl - 1] == '~';

		if ((src = plan_named(c, sn, sl - (size_t)prio)) == NULL ||
		    (prio && (src->kind != FK_INT || src->f->size > 8))) {
			for (k = 0; k < i; k++)
				free((char *)np[k].oname);
			free(np);
			return 1;
		}
		np[i] = *src;
		np[i].lab = NULL;	/* lttng: plain integers */
		np[i].nlab = 0;
		if (prio) {
			np[i].kind = FK_PRIO;
			np[i].sgn = 1;
			np[i].hex = 0;
		}
		np[i].oname = strndup(f, eq ? (size_t)(eq - f) : strlen(f));
		if (np[i].oname == NULL) {
			for (k = 0; k < i; k++)
				free((char *)np[k].oname);
			free(np);
			return tdat_fail_nooff(w->e, TDAT_ENOMEM,
			    "out of memory");
		}
	}
	/* the labels stay with the old plans, freed with them */
	for (i = 0; i < c->npay; i++) {
		for (k = 0; k < c->pay[i].nlab; k++)
			free(c->pay[i].lab[k].name);
		free(c->pay[i].lab);
	}
	free(c->pay);
	c->pay = np;
	c->npay = n;
	return 0;
}

/* The name and fields of an event in LTTng's kernel traces: those
 * lttng-modules 2.13 defines (lmaps), syscalls:sys_enter_X and
 * sys_exit_X as syscall_entry_X and syscall_exit_X (without
 * __syscall_nr), any other SYSTEM_EVENT (EVENT alone when it begins
 * with SYSTEM_) with its own fields. */
static int
lttng_event(struct cw *w, struct cls *c)
{
	const struct tdat_event *ev = c->ev;
	size_t i, n = strlen(ev->system);
	int rc, k;

	for (i = 0; i < sizeof(lmaps) / sizeof(lmaps[0]); i++)
		if (strcmp(lmaps[i].ev, ev->name) == 0 &&
		    strcmp(lmaps[i].sys, ev->system) == 0) {
			if ((rc = lttng_fields(w, c, &lmaps[i])) < 0)
				return rc;
			if (rc == 0) {
				c->lname = strdup(lmaps[i].lname);
				goto done;
			}
			break;
		}
	if (strcmp(ev->system, "syscalls") == 0 &&
	    (strncmp(ev->name, "sys_enter_", 10) == 0 ||
	    strncmp(ev->name, "sys_exit_", 9) == 0)) {
		int enter = ev->name[4] == 'e' && ev->name[5] == 'n';

		if (asprintf(&c->lname, "syscall_%s_%s", enter ? "entry" :
		    "exit", ev->name + (enter ? 10 : 9)) < 0)
			c->lname = NULL;
		for (k = 0; k < c->npay; k++)
			if (strcmp(c->pay[k].f->name, "__syscall_nr") == 0) {
				memmove(&c->pay[k], &c->pay[k + 1],
				    (size_t)(c->npay - k - 1) *
				    sizeof(*c->pay));
				c->npay--;
				break;
			}
		goto done;
	}
	if (strncmp(ev->name, ev->system, n) == 0 && ev->name[n] == '_')
		c->lname = strdup(ev->name);
	else if (asprintf(&c->lname, "%s_%s", ev->system, ev->name) < 0)
		c->lname = NULL;
done:
	return c->lname ? 0 : tdat_fail_nooff(w->e, TDAT_ENOMEM,
	    "out of memory");
}

static void
cls_free(struct cls *c)
{
	int i;

	for (i = 0; i < c->npay; i++) {
		int k;

		for (k = 0; k < c->pay[i].nlab; k++)
			free(c->pay[i].lab[k].name);
		free(c->pay[i].lab);
		free((char *)c->pay[i].oname);
	}
	free(c->ctx);
	free(c->pay);
	free(c->lname);
}

static int
cls_cmp(const void *a, const void *b)
{
	const struct cls *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static struct cls *
cls_find(const struct cw *w, int id)
{
	size_t lo = 0, hi = w->ncls;

	while (lo < hi) {
		size_t m = (lo + hi) / 2;

		if (w->cls[m].id == id)
			return &w->cls[m];
		if (w->cls[m].id < id)
			lo = m + 1;
		else
			hi = m;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Metadata. */

static void
int_decl(struct cw *w, struct tdat_sbuf *sb, int size, int sgn, int hex,
    int enc)
{
	(void)w;
	tdat_sb_printf(sb, "integer { size = %d; align = 8; signed = %d; "
	    "base = %d;%s }", size * 8, sgn, hex ? 16 : 10,
	    enc ? " encoding = UTF8;" : "");
}

/* Whether name is among the n names, or the name of one of the n
 * fields (babeltrace2 aborts on a struct with a member twice). */
static int
name_taken(const char *name, const struct fplan *fp, int n,
    char (*names)[80], int used)
{
	char vis[80];
	int k;

	for (k = 0; k < used; k++)
		if (strcmp(names[k], name) == 0)
			return 1;
	for (k = 0; k < n; k++) {
		vis_name(vis, 64, fp[k].oname ? fp[k].oname : fp[k].f->name);
		if (strcmp(vis, name) == 0)
			return 1;
	}
	return 0;
}

/* The length member of sequence vis: "_VIS_length", or "_VIS_length_N"
 * when a field or member already has that name. */
static void
seq_len_name(char len[80], const char *vis, const struct fplan *fp, int n,
    char (*names)[80], int used)
{
	int sfx = 1;

	snprintf(len, 80, "_%.64s_length", vis);
	while (name_taken(len, fp, n, names, used))
		snprintf(len, 80, "_%.60s_length_%d", vis, ++sfx);
}

/* Declarations of one struct's fields; names keeps the names used. */
static void
field_decls(struct cw *w, struct tdat_sbuf *sb, const struct fplan *fp,
    int n, const char *ind)
{
	char (*names)[80] = calloc((size_t)n * 2 + 1, sizeof(*names));
	int i, k, used = 0;

	if (names == NULL) {
		sb->oom = 1;
		return;
	}
	for (i = 0; i < n; i++) {
		const struct fplan *p = &fp[i];
		char vis[80], len[80];
		int dup, sfx = 1;

		vis_name(vis, 64, p->oname ? p->oname : p->f->name);
		for (;;) {
			for (dup = 0, k = 0; k < used && !dup; k++)
				dup = strcmp(names[k], vis) == 0;
			if (!dup)
				break;
			vis_name(vis, 64, p->oname ? p->oname : p->f->name);
			snprintf(vis + strlen(vis), 16, "_%d", ++sfx);
		}
		snprintf(names[used++], sizeof(names[0]), "%s", vis);
		tdat_sb_puts(sb, ind);
		switch (p->kind) {
		case FK_INT:
			if (p->nlab) {
				tdat_sb_puts(sb, "enum : ");
				int_decl(w, sb, p->f->size, p->sgn, p->hex, 0);
				tdat_sb_puts(sb, " {");
				for (k = 0; k < p->nlab; k++) {
					tdat_sb_puts(sb, k ? ", " : " ");
					quotes(sb, p->lab[k].name);
					if (p->sgn)
						tdat_sb_printf(sb, " = %lld",
						    p->lab[k].v);
					else
						tdat_sb_printf(sb, " = %llu",
						    (unsigned long long)
						    p->lab[k].v);
				}
				tdat_sb_puts(sb, " } ");
			} else {
				int_decl(w, sb, p->f->size, p->sgn, p->hex, 0);
				tdat_sb_putc(sb, ' ');
			}
			tsdl_name(sb, vis);
			break;
		case FK_PRIO:
			int_decl(w, sb, 4, 1, 0, 0);
			tdat_sb_putc(sb, ' ');
			tsdl_name(sb, vis);
			break;
		case FK_BYTES:
			int_decl(w, sb, 1, 0, 1, 0);
			tdat_sb_putc(sb, ' ');
			tsdl_name(sb, vis);
			tdat_sb_printf(sb, "[%d]", p->f->size);
			break;
		case FK_CHARS:
			int_decl(w, sb, 1, 0, 0, 1);
			tdat_sb_putc(sb, ' ');
			tsdl_name(sb, vis);
			tdat_sb_printf(sb, "[%d]", p->f->size);
			break;
		case FK_ARRAY:
			int_decl(w, sb, p->es, p->sgn, p->hex, 0);
			tdat_sb_putc(sb, ' ');
			tsdl_name(sb, vis);
			tdat_sb_printf(sb, "[%d]", p->count);
			break;
		case FK_STRING:
			tdat_sb_puts(sb, "string ");
			tsdl_name(sb, vis);
			break;
		case FK_SEQ:
			seq_len_name(len, vis, fp, n, names, used);
			snprintf(names[used++], sizeof(names[0]), "%s", len);
			tdat_sb_puts(sb, "integer { size = 32; align = 8; "
			    "signed = 0; base = 10; } ");
			tsdl_name(sb, len);
			tdat_sb_printf(sb, ";\n%s", ind);
			int_decl(w, sb, p->es, p->sgn, p->hex, 0);
			tdat_sb_putc(sb, ' ');
			tsdl_name(sb, vis);
			tdat_sb_putc(sb, '[');
			tsdl_name(sb, len);
			tdat_sb_putc(sb, ']');
			break;
		}
		tdat_sb_puts(sb, ";\n");
	}
	free(names);
}

/* UNAME: "sysname hostname release machine". */
static void
env_uname(struct cw *w, struct tdat_sbuf *sb, const char *s, size_t n)
{
	static const char *const key[] = { "sysname", "hostname",
	    "kernel_release", "machine" };
	const char *p = s, *end = s + n, *q;
	int i;

	for (i = 0; i < 4 && p < end; i++) {
		while (p < end && *p == ' ')
			p++;
		q = p;
		while (q < end && *q != ' ')
			q++;
		if (q == p)
			break;
		/* the machine is the last word (the release has none) */
		if (i == 3)
			for (q = end; q > p && q[-1] == ' '; q--)
				;
		tdat_sb_printf(sb, "\t%s = ", key[i]);
		quote(sb, p, (size_t)(q - p));
		tdat_sb_puts(sb, ";\n");
		p = q;
	}
	(void)w;
}

static int
tsc2nsec(struct cw *w, struct tdat_tsc2nsec *t)
{
	const struct tdat_optval *ov;
	struct tdat_err e;
	size_t i;

	memset(t, 0, sizeof(*t));
	if (tdat_options(w->f, &ov, &e) < 0)
		return 0;
	for (i = 0; i < w->f->nopt; i++)
		if (ov[i].id == TDAT_OPT_TSC2NSEC && ov[i].u.tsc.valid) {
			*t = ov[i].u.tsc;
			return 1;
		}
	return 0;
}

static void
env_block(struct cw *w, struct tdat_sbuf *sb, const char *clock)
{
	const struct tdat_optval *ov;
	struct tdat_err e;
	struct tdat_tsc2nsec t;
	size_t i;

	if (w->lttng)
		tdat_sb_puts(sb, "env {\n\tdomain = \"kernel\";\n"
		    "\ttracer_name = \"lttng-modules\";\n"
		    "\ttracer_major = 2;\n\ttracer_minor = 13;\n"
		    "\ttracer_patchlevel = 0;\n\twriter = \"tdat\";\n"
		    "\tformat = \"trace.dat\";\n");
	else
		tdat_sb_puts(sb, "env {\n\ttracer_name = \"tdat\";\n"
		    "\tformat = \"trace.dat\";\n");
	tdat_sb_printf(sb, "\ttracedat_version = %d;\n", w->f->version);
	tdat_sb_printf(sb, "\tlong_size = %d;\n", w->f->lsize);
	tdat_sb_printf(sb, "\tpage_size = %u;\n", w->f->page_size);
	tdat_sb_printf(sb, "\tcpus = %u;\n", w->f->ncpus);
	tdat_sb_puts(sb, "\ttrace_clock = ");
	quotes(sb, clock);
	tdat_sb_puts(sb, ";\n");
	if (w->f->comp) {
		tdat_sb_puts(sb, "\tcompression = ");
		quotes(sb, w->f->comp);
		tdat_sb_puts(sb, ";\n");
	}
	if (tdat_options(w->f, &ov, &e) == 0)
		for (i = 0; i < w->f->nopt; i++) {
			const struct tdat_opt_text *x = &ov[i].u.text;

			switch (ov[i].id) {
			case TDAT_OPT_UNAME:
				if (x->s)
					env_uname(w, sb, x->s, x->len);
				break;
			case TDAT_OPT_DATE:
			case TDAT_OPT_OFFSET:
				if (x->has_num && x->num_ok)
					tdat_sb_printf(sb, "\t%s = %lld;\n",
					    ov[i].id == TDAT_OPT_DATE ?
					    "date" : "offset",
					    (long long)x->num);
				break;
			case TDAT_OPT_VERSION:
				if (x->s) {
					tdat_sb_puts(sb, "\ttracer_version = ");
					quote(sb, x->s, x->len);
					tdat_sb_puts(sb, ";\n");
				}
				break;
			case TDAT_OPT_TIME_SHIFT:
				tdat_sb_printf(sb, "\ttime_shift_peer = "
				    "\"0x%llx\";\n", (unsigned long long)
				    ov[i].u.ts.peer_id);
				break;
			}
		}
	if (tsc2nsec(w, &t))
		tdat_sb_printf(sb, "\ttsc2nsec_mult = %u;\n\ttsc2nsec_shift = "
		    "%u;\n\ttsc2nsec_offset = %llu;\n", t.mult, t.shift,
		    (unsigned long long)t.offset);
	tdat_sb_puts(sb, "\tbuffers = ");
	{
		struct tdat_sbuf names;

		tdat_sb_init(&names);
		for (i = 0; i < w->f->nbuf; i++) {
			if (i)
				tdat_sb_putc(&names, ',');
			tdat_sb_puts(&names, w->f->buf[i].name);
		}
		quote(sb, names.p ? names.p : "", names.len);
		tdat_sb_free(&names);
	}
	tdat_sb_puts(sb, ";\n};\n\n");
}

static const char *
trace_clock(const struct tdat_file *f)
{
	return f->trace_clock && *f->trace_clock ? f->trace_clock : "local";
}

/* --lttng: LTTng's statedump events (lttng-statedump.h), which give
 * Trace Compass the names of the tasks: one process_state per line of
 * the saved command lines, between start and end. */
static void
statedump_classes(struct tdat_sbuf *sb, size_t b)
{
	static const char *const i32 = "integer { size = 32; align = 8; "
	    "signed = 1; base = 10; }";

	tdat_sb_printf(sb, "event {\n\tname = \"lttng_statedump_start\";\n"
	    "\tid = %d;\n\tstream_id = %zu;\n\tfields := struct {\n"
	    "\t};\n};\n\n", ID_STATEDUMP_START, b);
	tdat_sb_printf(sb, "event {\n\tname = \"lttng_statedump_end\";\n"
	    "\tid = %d;\n\tstream_id = %zu;\n\tfields := struct {\n"
	    "\t};\n};\n\n", ID_STATEDUMP_END, b);
	tdat_sb_printf(sb, "event {\n\tname = "
	    "\"lttng_statedump_process_state\";\n\tid = %d;\n"
	    "\tstream_id = %zu;\n\tfields := struct {\n"
	    "\t\t%s tid;\n\t\t%s pid;\n\t\t%s ppid;\n"
	    "\t\tinteger { size = 8; align = 8; signed = 0; base = 10; "
	    "encoding = UTF8; } name[16];\n"
	    "\t\t%s type;\n\t\t%s mode;\n\t\t%s submode;\n"
	    "\t\t%s status;\n"
	    "\t\tinteger { size = 32; align = 8; signed = 0; base = 10; } "
	    "cpu;\n"
	    "\t\tinteger { size = 64; align = 8; signed = 0; base = 16; } "
	    "file_table_address;\n\t};\n};\n\n", ID_STATEDUMP_PROCESS,
	    b, i32, i32, i32, i32, i32, i32, i32);
}

static int
write_metadata(struct cw *w)
{
	struct tdat_sbuf sb;
	struct tdat_tsc2nsec t;
	const char *clock = trace_clock(w->f);
	int conv = tsc2nsec(w, &t), cycles, rc;
	size_t b, i;

	cycles = !conv && (strcmp(clock, "x86-tsc") == 0 ||
	    strcmp(clock, "counter") == 0);
	tdat_sb_init(&sb);
	tdat_sb_puts(&sb, "/* CTF 1.8 */\n\n"
	    "/* Written by tdat-to-ctf from a trace.dat (ctf(5)). */\n\n");
	tdat_sb_printf(&sb, "trace {\n\tmajor = 1;\n\tminor = 8;\n"
	    "\tbyte_order = %s;\n\tpacket.header := struct {\n"
	    "\t\tinteger { size = 32; align = 8; signed = 0; base = 16; } "
	    "magic;\n\t\tinteger { size = 32; align = 8; signed = 0; } "
	    "stream_id;\n\t\tinteger { size = 64; align = 8; signed = 0; } "
	    "stream_instance_id;\n\t};\n};\n\n", w->big ? "be" : "le");
	env_block(w, &sb, clock);
	tdat_sb_printf(&sb, "clock {\n\tname = \"%s\";\n", w->clock);
	tdat_sb_puts(&sb, "\tdescription = ");
	{
		char d[256];

		if (conv)
			snprintf(d, sizeof(d), "ftrace clock %s in ns: "
			    "TSC2NSEC (mult %u, shift %u, offset %llu) "
			    "applied", clock, t.mult, t.shift,
			    (unsigned long long)t.offset);
		else if (cycles)
			snprintf(d, sizeof(d), "ftrace clock %s: counts "
			    "cycles, not ns (its frequency is unknown)",
			    clock);
		else
			snprintf(d, sizeof(d), "ftrace clock %s in ns", clock);
		quotes(&sb, d);
	}
	tdat_sb_puts(&sb, ";\n\tfreq = 1000000000;\n\tprecision = 0;\n"
	    "\toffset_s = 0;\n\toffset = 0;\n\tabsolute = false;\n};\n\n");
	tdat_sb_printf(&sb, "typealias integer { size = 64; align = 8; "
	    "signed = 0; map = clock.%s.value; } := tdat_clock_t;\n\n",
	    w->clock);
	for (b = 0; b < w->f->nbuf; b++) {
		tdat_sb_printf(&sb, "/* buffer %s */\nstream {\n\tid = %zu;\n",
		    *w->f->buf[b].name ? w->f->buf[b].name : "(top)", b);
		tdat_sb_puts(&sb, "\tpacket.context := struct {\n"
		    "\t\ttdat_clock_t timestamp_begin;\n"
		    "\t\ttdat_clock_t timestamp_end;\n"
		    "\t\tinteger { size = 64; align = 8; signed = 0; } "
		    "content_size;\n"
		    "\t\tinteger { size = 64; align = 8; signed = 0; } "
		    "packet_size;\n"
		    "\t\tinteger { size = 64; align = 8; signed = 0; } "
		    "packet_seq_num;\n"
		    "\t\tinteger { size = 64; align = 8; signed = 0; } "
		    "events_discarded;\n"
		    "\t\tinteger { size = 32; align = 8; signed = 0; } "
		    "cpu_id;\n\t};\n"
		    "\tevent.header := struct {\n"
		    "\t\tinteger { size = 32; align = 8; signed = 0; } id;\n"
		    "\t\ttdat_clock_t timestamp;\n\t};\n};\n\n");
		for (i = 0; i < w->ncls; i++) {
			const struct cls *c = &w->cls[i];
			char name[512];

			/* only the formats that have events: babeltrace2
			 * holds every class it reads in memory (a trace of
			 * every event, 1358 formats, took it 57 MB) */
			if (!c->used)
				continue;
			if (c->lname)
				snprintf(name, sizeof(name), "%s", c->lname);
			else
				snprintf(name, sizeof(name), "%s:%s",
				    c->ev->system, c->ev->name);
			tdat_sb_puts(&sb, "event {\n\tname = ");
			quotes(&sb, name);
			tdat_sb_printf(&sb, ";\n\tid = %d;\n\tstream_id = "
			    "%zu;\n", c->id, b);
			if (c->nctx) {
				tdat_sb_puts(&sb, "\tcontext := struct {\n");
				field_decls(w, &sb, c->ctx, c->nctx, "\t\t");
				tdat_sb_puts(&sb, "\t};\n");
			}
			tdat_sb_puts(&sb, "\tfields := struct {\n");
			field_decls(w, &sb, c->pay, c->npay, "\t\t");
			tdat_sb_puts(&sb, "\t};\n};\n\n");
		}
		tdat_sb_printf(&sb, "event {\n\tname = \"tdat:unknown\";\n"
		    "\tid = %d;\n\tstream_id = %zu;\n\tfields := struct {\n"
		    "\t\tinteger { size = 32; align = 8; signed = 0; "
		    "base = 10; } type;\n"
		    "\t\tinteger { size = 32; align = 8; signed = 0; "
		    "base = 10; } __data_length;\n"
		    "\t\tinteger { size = 8; align = 8; signed = 0; "
		    "base = 16; } data[__data_length];\n\t};\n};\n\n",
		    ID_UNKNOWN, b);
		if (w->lttng)
			statedump_classes(&sb, b);
		if (sb.oom)
			break;
	}
	rc = sb.oom ? tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory") :
	    wr_file(w, "metadata", sb.p, sb.len);
	tdat_sb_free(&sb);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Streams and packets. */

static int
room(struct cw *w, struct st *s, size_t n)
{
	size_t cap;
	unsigned char *p;

	if (s->cap - s->len >= n)
		return 0;
	cap = s->cap ? s->cap : 4096;
	while (cap - s->len < n)
		cap *= 2;
	if ((p = realloc(s->p, cap)) == NULL)
		return tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory");
	s->p = p;
	s->cap = cap;
	return 0;
}

static void
put(struct cw *w, struct st *s, uint64_t v, int n)
{
	tdat_put(s->p + s->len, v, n, w->big);
	s->len += (size_t)n;
}

/* A packet begun at ts, in the file being written. */
static int
pkt_begin(struct cw *w, struct st *s, uint64_t ts)
{
	int rc;

	if ((rc = room(w, s, PKT_HDR)) < 0)
		return rc;
	s->len = PKT_HDR;
	s->tbeg = s->tend = ts;
	s->nev = 0;
	s->open = 1;
	return 0;
}

static int
pkt_close(struct cw *w, struct st *s)
{
	size_t len = s->len;

	if (!s->open)
		return 0;
	s->len = 0;
	put(w, s, CTF_MAGIC, 4);
	put(w, s, (uint64_t)s->buf, 4);
	put(w, s, (uint64_t)s->inst << 32 | s->cpu, 8);
	put(w, s, s->tbeg, 8);
	put(w, s, s->tend, 8);
	put(w, s, (uint64_t)len * 8, 8);
	put(w, s, (uint64_t)len * 8, 8);
	put(w, s, s->seq, 8);
	put(w, s, s->disc, 8);
	put(w, s, s->cpu, 4);
	s->len = len;
	s->open = 0;
	s->seq++;
	if (s->ipkts > 0 && s->tbeg <= s->pbeg)
		s->tied = 1;
	s->pbeg = s->tbeg;
	s->ipkts++;
	s->fsize += len;
	w->o->packets++;
	return write_all(w, s->fd, s->p, len, s->rel);
}

/* Create the file s->rel in the directory. */
static int
file_create(struct cw *w, struct st *s)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", w->dir, s->rel);
	if ((s->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0644)) < 0)
		return tdat_fail_nooff(w->e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
	s->fsize = 0;
	return 0;
}

static int
file_close(struct cw *w, struct st *s)
{
	int rc = 0;

	if (s->fd >= 0 && close(s->fd) < 0)
		rc = tdat_fail_nooff(w->e, TDAT_EIO, "%s/%s: %s", w->dir,
		    s->rel, strerror(errno));
	s->fd = -1;
	return rc;
}

/* The next file of the stream: part P of instance K is BASE.K.P (the
 * first one of instance 0 BASE); a new instance begins its packet
 * sequence and discarded-events count again. */
static int
file_next(struct cw *w, struct st *s, int new_inst)
{
	char rel[300], *r;
	int rc;

	if ((rc = file_close(w, s)) < 0)
		return rc;
	if (new_inst) {
		s->inst++;
		s->part = 0;
		s->seq = s->disc = 0;
		s->ipkts = s->tied = 0;
	} else
		s->part++;
	snprintf(rel, sizeof(rel), "%s.%u.%u", s->base, s->inst, s->part);
	if ((r = strdup(rel)) == NULL)
		return tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory");
	free(s->rel);
	s->rel = r;
	return file_create(w, s);
}

/*
 * Stream files of bounded size (ctf(5) "Stream files"): babeltrace2
 * maps the file it reads of each stream in windows of up to 8 MiB (page
 * size * 2048, src.ctf.fs), so a reader of N streams held N such windows
 * of read pages; a file of at most part_max bytes (and one packet) holds
 * that down.  The files of one stream instance (stream_instance_id) are
 * one stream to babeltrace2, which takes them in directory order and
 * orders their packets by timestamp_begin, a tie put first: so the
 * packets of an instance of several files begin each strictly after the
 * one before.  A packet that would begin with the one before it in a
 * file after the first, or a file after a first one with such a tie,
 * begins a new stream instance instead.  A packet that counts discarded
 * events does not begin an instance (its count would have no packet
 * before it): an empty packet comes first.
 */
static int
file_turn(struct cw *w, struct st *s, uint64_t ts, int loss)
{
	int tie = s->ipkts > 0 && ts <= s->pbeg, inst, rc;

	if (s->part > 0 && tie)
		inst = 1;
	else if (s->fsize >= w->part_max)
		inst = tie || s->tied;
	else
		return 0;
	if ((rc = file_next(w, s, inst)) < 0)
		return rc;
	if (inst && loss && ((rc = pkt_begin(w, s, ts)) < 0 ||
	    (rc = pkt_close(w, s)) < 0))
		return rc;
	return 0;
}

/* A packet begun at ts; loss: it will count discarded events. */
static int
pkt_open(struct cw *w, struct st *s, uint64_t ts, int loss)
{
	int rc;

	if ((rc = file_turn(w, s, ts, loss)) < 0)
		return rc;
	return pkt_begin(w, s, ts);
}

static void
file_part(char *dst, size_t n, const char *name)
{
	size_t i;

	snprintf(dst, n, "%s", name);
	for (i = 0; dst[i]; i++)
		if (!((dst[i] >= 'a' && dst[i] <= 'z') ||
		    (dst[i] >= 'A' && dst[i] <= 'Z') || dst[i] == '_' ||
		    dst[i] == '-' || (dst[i] >= '0' && dst[i] <= '9') ||
		    (i > 0 && dst[i] == '.')))
			dst[i] = '_';
}

static struct st *
st_get(struct cw *w, int buf, uint32_t cpu)
{
	char rel[256], part[160], path[PATH_MAX];
	struct st *s;
	size_t i;

	for (i = 0; i < w->nst; i++)
		if (w->st[i].buf == buf && w->st[i].cpu == cpu)
			return &w->st[i];
	if ((s = realloc(w->st, (w->nst + 1) * sizeof(*s))) == NULL) {
		tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory");
		return NULL;
	}
	w->st = s;
	s += w->nst;
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->buf = buf;
	s->cpu = cpu;
	/* "cpu0"; an instance's "NAME-cpu0", its name made a file name
	 * (another, or one taken: "buffer2-cpu0") */
	if (buf == 0)
		snprintf(rel, sizeof(rel), "cpu%u", cpu);
	else {
		file_part(part, sizeof(part), w->f->buf[buf].name);
		snprintf(rel, sizeof(rel), "%s-cpu%u", *part ? part :
		    "buffer", cpu);
	}
	snprintf(path, sizeof(path), "%s/%s", w->dir, rel);
	if ((s->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0644)) < 0 && errno == EEXIST) {
		snprintf(rel, sizeof(rel), "buffer%d-cpu%u", buf, cpu);
		snprintf(path, sizeof(path), "%s/%s", w->dir, rel);
		s->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0644);
	}
	if (s->fd < 0) {
		tdat_fail_nooff(w->e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
		return NULL;
	}
	if ((s->rel = strdup(rel)) == NULL || (s->base = strdup(rel)) ==
	    NULL) {
		close(s->fd);
		free(s->rel);
		tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory");
		return NULL;
	}
	w->nst++;
	w->o->streams++;
	return s;
}

static int
st_close(struct cw *w, struct st *s)
{
	int rc = 0;

	if (s->fd >= 0) {
		rc = pkt_close(w, s);
		if (file_close(w, s) < 0 && rc == 0)
			rc = w->e->code;
	}
	return rc;
}

/* ------------------------------------------------------------------ */
/* Records. */

/* Where a dynamic (or flexible) field's data lies, bounded by the
 * record (as tdat-to-json reads it). */
static void
dyn_span(const struct cw *w, const struct tdat_field *f,
    const struct tdat_record *r, uint32_t *off, uint32_t *len)
{
	*off = *len = 0;
	if (!(f->flags & TDAT_FLD_DYNAMIC)) {
		/* a flexible array member: up to the record's end */
		if ((uint32_t)f->offset <= r->size) {
			*off = (uint32_t)f->offset;
			*len = r->size - *off;
		}
		return;
	}
	tdat_field_dyn_span(f, r->data, r->size, w->big, off, len);
}

static int
encode(struct cw *w, struct st *s, const struct fplan *fp, int n,
    const struct tdat_record *r)
{
	const unsigned char *d = r->data;
	uint32_t off, len, avail;
	int i, rc;

	for (i = 0; i < n; i++) {
		const struct fplan *p = &fp[i];
		const struct tdat_field *f = p->f;
		size_t need;

		switch (p->kind) {
		case FK_INT:
		case FK_BYTES:
		case FK_CHARS:
		case FK_ARRAY:
			need = p->kind == FK_ARRAY ? (size_t)p->count *
			    (size_t)p->es : (size_t)f->size;
			if ((rc = room(w, s, need)) < 0)
				return rc;
			/* A fixed array may run past the record's end (ftrace's
			 * kernel_stack with fewer than 8 callers): the bytes
			 * that follow it in the page, as trace-cmd report
			 * prints them; zeros past those. */
			avail = r->avail > r->size ? r->avail : r->size;
			if ((uint32_t)f->offset >= avail)
				memset(s->p + s->len, 0, need);
			else if ((uint32_t)f->offset + need <= avail)
				memcpy(s->p + s->len, d + f->offset, need);
			else {
				size_t k = avail - (uint32_t)f->offset;

				memcpy(s->p + s->len, d + f->offset, k);
				memset(s->p + s->len + k, 0, need - k);
			}
			s->len += need;
			break;
		case FK_STRING: {
			const unsigned char *nul;

			dyn_span(w, f, r, &off, &len);
			nul = memchr(d + off, 0, len);
			if (nul)
				len = (uint32_t)(nul - (d + off));
			if ((rc = room(w, s, (size_t)len + 1)) < 0)
				return rc;
			memcpy(s->p + s->len, d + off, len);
			s->len += len;
			s->p[s->len++] = 0;
			break;
		}
		case FK_PRIO: {
			uint64_t v = 0;

			if ((uint32_t)f->offset + (uint32_t)f->size <= r->size)
				v = tdat_get(d + f->offset, f->size, w->big);
			if (f->size < 8 && (v >> (f->size * 8 - 1)) & 1)
				v |= ~0ULL << (f->size * 8);
			if ((rc = room(w, s, 4)) < 0)
				return rc;
			put(w, s, (uint64_t)((int64_t)v - MAX_RT_PRIO), 4);
			break;
		}
		case FK_SEQ:
			dyn_span(w, f, r, &off, &len);
			len = len / (uint32_t)p->es;
			if ((rc = room(w, s, 4 + (size_t)len * p->es)) < 0)
				return rc;
			put(w, s, len, 4);
			memcpy(s->p + s->len, d + off, (size_t)len * p->es);
			s->len += (size_t)len * p->es;
			break;
		}
	}
	return 0;
}

/*
 * A record its event's format does not fit (shorter than its fields, a
 * __data_loc outside it) is damage that the encoding would hide behind
 * zeros and cut strings: refused, as a trace.dat copy refuses it.
 */
static int
check_record(struct cw *w, const struct tdat_record *rec)
{
	const char *why;
	int rc;

	if (w->check == NULL && (rc = tdat_ring_gate_open(w->f, &w->check,
	    w->e)) < 0)
		return rc;
	if ((why = tdat_ring_gate_record(w->check, rec->data,
	    rec->size)) != NULL)
		return tdat_fail(w->e, TDAT_ECORRUPT, rec->off, "CPU %d: %s: "
		    "the input is damaged (tdat-cat --salvage drops such "
		    "pages)", rec->cpu, why);
	return 0;
}

/* An event of no context in s at ts: its header. */
static int
bare_event(struct cw *w, struct st *s, uint32_t id, uint64_t ts,
    size_t size)
{
	int rc;

	if (s->open && s->nev && s->len + EV_HDR + size > w->target)
		if ((rc = pkt_close(w, s)) < 0)
			return rc;
	if (!s->open && (rc = pkt_open(w, s, ts, 0)) < 0)
		return rc;
	if ((rc = room(w, s, EV_HDR + size)) < 0)
		return rc;
	put(w, s, id, 4);
	put(w, s, ts, 8);
	s->tend = ts;
	s->nev++;
	return 0;
}

/* --lttng: the statedump, in the first stream at its first event's time:
 * a process_state for each "PID COMM" line of the saved command lines
 * (pid and tid the pid, parent, type, mode, submode and CPU unknown: 0;
 * status 5, LTTNG_WAIT). */
static int
statedump(struct cw *w, struct st *s, uint64_t ts)
{
	const char *c = (const char *)w->f->cmdlines.p;
	const char *end = c ? c + w->f->cmdlines.len : NULL;
	int rc;

	w->statedump_done = 1;
	if ((rc = bare_event(w, s, ID_STATEDUMP_START, ts, 0)) < 0)
		return rc;
	while (c && c < end) {
		const char *nl = memchr(c, '\n', (size_t)(end - c));
		char line[64], *sp, name[16];
		long pid;

		if (nl == NULL)
			nl = end;
		snprintf(line, sizeof(line), "%.*s", (int)(nl - c), c);
		c = nl + 1;
		pid = strtol(line, &sp, 10);
		if (sp == line || *sp != ' ')
			continue;
		memset(name, 0, sizeof(name));
		strncpy(name, sp + 1, sizeof(name) - 1);
		if ((rc = bare_event(w, s, ID_STATEDUMP_PROCESS, ts, 60)) < 0)
			return rc;
		put(w, s, (uint64_t)pid, 4);
		put(w, s, (uint64_t)pid, 4);
		put(w, s, 0, 4);
		memcpy(s->p + s->len, name, 16);
		s->len += 16;
		put(w, s, 0, 4);	/* type: LTTNG_USER_THREAD */
		put(w, s, 0, 4);	/* mode: LTTNG_USER_MODE */
		put(w, s, 0, 4);	/* submode: LTTNG_NONE */
		put(w, s, 5, 4);	/* status: LTTNG_WAIT */
		put(w, s, 0, 4);
		put(w, s, 0, 8);
	}
	return bare_event(w, s, ID_STATEDUMP_END, ts, 0);
}

/* tdat/lost: a line "BUFFER CPU TIME" for each loss whose count the
 * ring buffer did not store (its packet counts 1), TIME the next
 * record's: the reader gives it back uncounted. */
static int
lost_unknown(struct cw *w, struct st *s, uint64_t ts)
{
	char line[64], path[PATH_MAX];
	int n;

	if (w->lost_fd < 0) {
		snprintf(path, sizeof(path), "%s/tdat/lost", w->dir);
		if ((n = wr_mkdir(w, "tdat")) < 0)
			return n;
		if ((w->lost_fd = open(path, O_WRONLY | O_CREAT | O_EXCL |
		    O_CLOEXEC, 0644)) < 0)
			return tdat_fail_nooff(w->e, TDAT_EIO, "%s: %s", path,
			    strerror(errno));
	}
	n = snprintf(line, sizeof(line), "%d %u %llu\n", s->buf, s->cpu,
	    (unsigned long long)ts);
	return write_all(w, w->lost_fd, line, (size_t)n, "tdat/lost");
}

static int
ctf_begin(void *arg, struct tdat_file *const *files, size_t n,
    struct tdat_run *run, struct tdat_err *e)
{
	struct tdat_file *f = files[0];

	(void)arg;
	(void)n;
	(void)run;
	(void)e;
	if (f->nbuf == 0 || (f->nbuf == 1 && f->buf[0].latency))
		return TDAT_RUN_NO_RECORDS;
	return TDAT_RUN_RECORDS;
}

static int
ctf_record(void *arg, size_t k, const struct tdat_record *rec,
    struct tdat_err *e)
{
	struct cw *w = arg;
	struct cls *c;
	struct st *s;
	size_t need;
	int rc, id;

	(void)k;
	(void)e;
	id = rec->size >= (uint32_t)w->type_size ?
	    (int)tdat_get(rec->data, w->type_size, w->big) : -1;
	c = id >= 0 ? cls_find(w, id) : NULL;
	if ((s = st_get(w, rec->buffer, (uint32_t)rec->cpu)) == NULL)
		return w->e->code;
	if (s->have_last && rec->ts < s->last)
		return tdat_fail(w->e, TDAT_ECORRUPT, rec->off, "CPU %d: time "
		    "goes back from %llu to %llu ns with the trace's clock "
		    "options", rec->cpu, (unsigned long long)s->last,
		    (unsigned long long)rec->ts);
	if (rec->missed) {
		/* The packet ends, and an empty one from the last event to
		 * this one holds the count in its snapshot: babeltrace2
		 * says they were discarded between those times. */
		uint64_t n = rec->missed_count > 0 ?
		    (uint64_t)rec->missed_count : 1;

		if ((rc = pkt_close(w, s)) < 0 ||
		    (rc = pkt_open(w, s, s->have_last ? s->last : rec->ts,
		    1)) < 0)
			return rc;
		s->tend = rec->ts;
		s->disc += n;
		if (rec->missed_count < 0 && (rc = lost_unknown(w, s,
		    rec->ts)) < 0)
			return rc;
		w->o->discarded += n;
		if ((rc = pkt_close(w, s)) < 0)
			return rc;
	}
	s->last = rec->ts;
	s->have_last = 1;
	if (w->lttng && !w->statedump_done && (rc = statedump(w, s,
	    rec->ts)) < 0)
		return rc;
	if (c == NULL) {
		/* an event type the trace has no format for: its bytes */
		w->o->unknown++;
		if ((rc = bare_event(w, s, ID_UNKNOWN, rec->ts, 8 +
		    (size_t)rec->size)) < 0)
			return rc;
		put(w, s, id >= 0 ? (uint64_t)id : 0xffffffffu, 4);
		put(w, s, rec->size, 4);
		memcpy(s->p + s->len, rec->data, rec->size);
		s->len += rec->size;
		w->o->events++;
		return 0;
	}
	if ((rc = check_record(w, rec)) < 0)
		return rc;
	c->used = 1;
	need = EV_HDR + rec->size * 2 + 64;
	if (s->open && s->nev && s->len + need > w->target)
		if ((rc = pkt_close(w, s)) < 0)
			return rc;
	if (!s->open && (rc = pkt_open(w, s, rec->ts, 0)) < 0)
		return rc;
	if ((rc = room(w, s, EV_HDR)) < 0)
		return rc;
	put(w, s, (uint64_t)id, 4);
	put(w, s, rec->ts, 8);
	if ((rc = encode(w, s, c->ctx, c->nctx, rec)) < 0 ||
	    (rc = encode(w, s, c->pay, c->npay, rec)) < 0)
		return rc;
	s->tend = rec->ts;
	s->nev++;
	w->o->events++;
	return 0;
}

static int
ctf_end(void *arg, int complete, struct tdat_err *e)
{
	(void)arg;
	(void)complete;
	(void)e;
	return 0;	/* tdat_ctf_write() closes the streams */
}

static void
ctf_free(void *arg)
{
	(void)arg;
}

static const struct tdat_sink_ops ctf_ops = {
	TDAT_SINK_STRICT_TIME, ctf_begin, ctf_record, ctf_end, ctf_free, NULL
};

/* ------------------------------------------------------------------ */
/* Setting up. */

/* The size of common_type, from the first event that has it. */
static int
type_size(const struct cw *w)
{
	size_t i;

	for (i = 0; i < w->ncls; i++) {
		const struct tdat_event *ev = w->cls[i].ev;

		if (ev->ncommon > 0 && strcmp(ev->common[0].name,
		    "common_type") == 0 && ev->common[0].size > 0 &&
		    ev->common[0].size <= 4)
			return ev->common[0].size;
	}
	return 2;
}

static int
prepare(struct cw *w)
{
	struct tdat_events *s;
	size_t i, nbuf;
	uint64_t nst = 0;
	const char *env;
	int rc;

	if ((rc = tdat_events_load(w->f, &w->evs, w->e)) < 0)
		return rc;
	tdat_events_resolve(w->evs);
	tdat_events_finish(w->evs, 0);
	s = w->evs;
	if ((w->cls = calloc(s->nev + 1, sizeof(*w->cls))) == NULL)
		return tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory");
	for (i = 0; i < s->nev; i++) {
		/* one class an id: the first format of a damaged trace
		 * that gives two */
		if (w->ncls && w->cls[w->ncls - 1].id == s->ev[i]->id)
			continue;
		if (s->ev[i]->id < 0)
			continue;
		if ((rc = cls_init(w, &w->cls[w->ncls++], s->ev[i])) < 0)
			return rc;
	}
	qsort(w->cls, w->ncls, sizeof(*w->cls), cls_cmp);
	w->type_size = type_size(w);
	/* packets of up to 256 KiB, smaller when there are many streams:
	 * 16 MiB of packets at most */
	for (nbuf = 0; nbuf < w->f->nbuf; nbuf++)
		nst += w->f->buf[nbuf].ncpu;
	w->target = 256 * 1024;
	while (nst && w->target > 8192 && nst * w->target > (16u << 20))
		w->target /= 2;
	if ((env = getenv("TDAT_CTF_PACKET_BYTES")) != NULL && *env)
		w->target = strtoull(env, NULL, 10);
	/* stream files of 4 MiB among all streams, a packet at least
	 * (for tests, TDAT_CTF_PACKET_BYTES and TDAT_CTF_FILE_BYTES:
	 * packets and files of that many bytes, or one event) */
	w->part_max = nst ? (4u << 20) / nst : (4u << 20);
	if (w->part_max < w->target)
		w->part_max = w->target;
	if ((env = getenv("TDAT_CTF_FILE_BYTES")) != NULL && *env)
		w->part_max = strtoull(env, NULL, 10);
	vis_name(w->clock, sizeof(w->clock), trace_clock(w->f));
	return 0;
}

/* ------------------------------------------------------------------ */
/* The originals, for the way back. */

static int
write_blob(struct cw *w, const char *rel, const struct tdat_blob *b)
{
	return wr_file(w, rel, b->p ? (const void *)b->p : "", (size_t)b->len);
}

static int write_container(struct cw *);
static int write_extra(struct cw *);

static int
write_originals(struct cw *w)
{
	struct tdat_file *f = w->f;
	struct tdat_sbuf sb;
	char rel[256], part[160];
	uint32_t i, k;
	int rc;

	if ((rc = wr_mkdir(w, "tdat")) < 0 ||
	    (rc = wr_mkdir(w, "tdat/ftrace")) < 0 ||
	    (rc = wr_mkdir(w, "tdat/events")) < 0 ||
	    (rc = write_blob(w, "tdat/header_page", &f->hpage)) < 0 ||
	    (rc = write_blob(w, "tdat/header_event", &f->hevent)) < 0 ||
	    (rc = write_blob(w, "tdat/kallsyms", &f->kallsyms)) < 0 ||
	    (rc = write_blob(w, "tdat/printk", &f->printk)) < 0 ||
	    (rc = write_blob(w, "tdat/cmdlines", &f->cmdlines)) < 0)
		return rc;
	for (i = 0; i < f->nftrace; i++) {
		snprintf(rel, sizeof(rel), "tdat/ftrace/%04u", i);
		if ((rc = write_blob(w, rel, &f->ftrace[i])) < 0)
			return rc;
	}
	for (i = 0; i < f->nsys; i++) {
		file_part(part, sizeof(part), f->sys[i].name);
		snprintf(rel, sizeof(rel), "tdat/events/%04u-%s", i, part);
		if ((rc = wr_mkdir(w, rel)) < 0)
			return rc;
		for (k = 0; k < f->sys[i].nev; k++) {
			snprintf(rel, sizeof(rel), "tdat/events/%04u-%s/%04u",
			    i, part, k);
			if ((rc = write_blob(w, rel, &f->sys[i].ev[k])) < 0)
				return rc;
		}
	}
	/* the systems' names as the trace has them, one a line */
	tdat_sb_init(&sb);
	for (i = 0; i < f->nsys; i++) {
		tdat_sb_puts(&sb, f->sys[i].name);
		tdat_sb_putc(&sb, '\n');
	}
	rc = sb.oom ? tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory") :
	    wr_file(w, "tdat/systems", sb.p ? sb.p : "", sb.len);
	tdat_sb_reset(&sb);
	/* options as stored: u16 id, u32 size, data, in the trace's order */
	for (i = 0; rc == 0 && i < f->nopt; i++) {
		unsigned char h[6];

		tdat_put(h, f->opt[i].id, 2, w->big);
		tdat_put(h + 2, f->opt[i].size, 4, w->big);
		tdat_sb_add(&sb, (const char *)h, 6);
		tdat_sb_add(&sb, (const char *)f->opt[i].data, f->opt[i].size);
	}
	if (rc == 0)
		rc = sb.oom ? tdat_fail_nooff(w->e, TDAT_ENOMEM,
		    "out of memory") : wr_file(w, "tdat/options",
		    sb.p ? sb.p : "", sb.len);
	tdat_sb_free(&sb);
	if (rc == 0)
		rc = write_container(w);
	if (rc == 0)
		rc = write_extra(w);
	return rc;
}

static void
hex_line(struct tdat_sbuf *sb, const char *key, const char *s)
{
	tdat_sb_puts(sb, key);
	tdat_sb_putc(sb, ' ');
	for (; *s; s++)
		tdat_sb_printf(sb, "%02x", (unsigned char)*s);
	tdat_sb_putc(sb, '\n');
}

/* tdat/container: what the trace.dat's container says beyond its
 * options and metadata (ctf(5)), one "KEY VALUE" a line, text in hex;
 * a buffer's line is followed by its CPUs' (id, bytes of data). */
static int
write_container(struct cw *w)
{
	const struct tdat_file *f = w->f;
	struct tdat_sbuf sb;
	size_t i;
	uint32_t k;
	int rc;

	tdat_sb_init(&sb);
	tdat_sb_printf(&sb, "version %d\nbig %d\nlong_size %d\npage_size %u\n"
	    "cpus %u\nhas_clock_data %d\nv6_options %d\nlatency %d\n"
	    "lttng %d\n", f->version, f->big, f->lsize, f->page_size, f->ncpus,
	    f->has_clock_data, f->v6_options, f->latency, w->lttng);
	if (f->comp)
		hex_line(&sb, "compression", f->comp);
	if (f->clock_data)
		hex_line(&sb, "clock_data", f->clock_data);
	if (f->trace_clock)
		hex_line(&sb, "trace_clock", f->trace_clock);
	for (i = 0; i < f->nbuf; i++) {
		const struct tdat_buffer *b = &f->buf[i];

		tdat_sb_printf(&sb, "buffer %u %d %d\n", b->page_size,
		    b->opt_index, b->latency);
		hex_line(&sb, "buffer_name", b->name ? b->name : "");
		if (b->clock)
			hex_line(&sb, "buffer_clock", b->clock);
		for (k = 0; k < b->ncpu; k++)
			tdat_sb_printf(&sb, "cpu %u %llu\n", b->cpu[k].id,
			    (unsigned long long)b->cpu[k].size);
	}
	rc = sb.oom ? tdat_fail_nooff(w->e, TDAT_ENOMEM, "out of memory") :
	    wr_file(w, "tdat/container", sb.p, sb.len);
	tdat_sb_free(&sb);
	return rc;
}

/* tdat/latency: a latency tracer's text, streamed as it is; tdat/modules
 * and tdat/btf: trace-cmd 3.4's sections, when the trace has them. */
static int
write_extra(struct cw *w)
{
	char path[PATH_MAX];
	struct tdat_pages *pg;
	struct tdat_window win;
	int bi = tdat_latency_buffer(w->f), fd, rc = 0;

	if (w->f->modules.p && (rc = write_blob(w, "tdat/modules",
	    &w->f->modules)) < 0)
		return rc;
	if ((rc = tdat_btf(w->f, w->e)) < 0)
		return rc;
	if (rc > 0 && (rc = write_blob(w, "tdat/btf", &w->f->btf)) < 0)
		return rc;
	if (bi < 0)
		return 0;
	snprintf(path, sizeof(path), "%s/tdat/latency", w->dir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644))
	    < 0)
		return tdat_fail_nooff(w->e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
	if ((rc = tdat_pages_open(w->f, bi, 0, &pg, w->e)) == 0) {
		while ((rc = tdat_pages_window(pg, &win, w->e)) > 0)
			if ((rc = write_all(w, fd, win.p, win.len,
			    "tdat/latency")) < 0)
				break;
		tdat_pages_close(pg);
	}
	if (close(fd) < 0 && rc >= 0)
		rc = tdat_fail_nooff(w->e, TDAT_EIO, "%s: %s", path,
		    strerror(errno));
	return rc < 0 ? rc : 0;
}

/* Messages name files inside the directory from its top: the caller
 * names the directory. */
static void
relative_msg(struct tdat_err *e, const char *dir)
{
	size_t n = strlen(dir);

	if (strncmp(e->msg, dir, n) == 0 && e->msg[n] == '/')
		memmove(e->msg, e->msg + n + 1, strlen(e->msg + n + 1) + 1);
}

int
tdat_ctf_write(struct tdat_file *f, const char *dir,
    struct tdat_ctf_write_opts *o, struct tdat_err *e)
{
	struct tdat_sink sink;
	struct cw w;
	size_t i;
	int rc;

	memset(&w, 0, sizeof(w));
	w.f = f;
	w.o = o;
	w.e = e;
	w.dir = dir;
	w.big = f->big;
	w.lttng = o->lttng;
	w.lost_fd = -1;
	o->events = o->packets = o->streams = o->discarded = o->unknown = 0;
	sink.ops = &ctf_ops;
	sink.arg = &w;
	if ((rc = tdat_text_refuse(f, e)) < 0)
		return rc;
	if ((rc = prepare(&w)) < 0 ||
	    (rc = tdat_run(&w.f, 1, o->sel, &sink, o->progress,
	    o->progress_arg, e)) < 0)
		goto out;
	for (i = 0; i < w.nst; i++)
		if ((rc = st_close(&w, &w.st[i])) < 0)
			goto out;
	if ((rc = write_metadata(&w)) < 0 ||
	    (rc = write_originals(&w)) < 0)
		goto out;
out:
	for (i = 0; i < w.nst; i++) {
		if (w.st[i].fd >= 0)
			close(w.st[i].fd);
		free(w.st[i].rel);
		free(w.st[i].base);
		free(w.st[i].p);
	}
	free(w.st);
	if (w.lost_fd >= 0 && close(w.lost_fd) < 0 && rc == 0)
		rc = tdat_fail_nooff(e, TDAT_EIO, "%s/tdat/lost: %s", dir,
		    strerror(errno));
	for (i = 0; i < w.ncls; i++)
		cls_free(&w.cls[i]);
	free(w.cls);
	tdat_events_free(w.evs);
	tdat_ring_gate_close(w.check);
	if (rc < 0)
		relative_msg(e, dir);
	return rc;
}
