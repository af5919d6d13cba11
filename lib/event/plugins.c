/*
 * plugins.c: per-event print overrides, as the plugins trace-cmd report
 * loads by default (libtraceevent's sched_switch, function, hrtimer, kmem,
 * kvm, tlb, futex, mac80211, and trace-cmd's own function_graph).  The
 * helpers other plugins give print formats are in lib/plugins-print.c.  Each is one
 * entry of a table; an entry returns 0 when it printed the event, or 1 to
 * let the print format follow what it wrote.
 */
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "event-int.h"

/* Callers seen per CPU, to indent nested function calls. */
struct fstack {
	int size;
	char **stack;
};

/* A field of the event (not a common one), libtraceevent's way:
 * "<CANT FIND FIELD x>" when missing, " x=INVALID" for odd sizes. */
static int
field_val(const struct tdat_event *ev, const struct tdat_record *rec,
    const char *name, unsigned long long *v, int err, struct tdat_sbuf *out)
{
	const struct tdat_field *f = NULL;
	int i;

	for (i = 0; i < ev->nfields; i++)
		if (strcmp(ev->fields[i].name, name) == 0)
			f = &ev->fields[i];
	if (f == NULL) {
		if (err)
			tdat_sb_printf(out, "<CANT FIND FIELD %s>", name);
		return -1;
	}
	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) {
		if (err)
			tdat_sb_printf(out, " %s=INVALID", name);
		return -1;
	}
	*v = tdat_field_read(ev, f, rec->data, rec->size);
	return 0;
}

static int
num_field(const struct tdat_event *ev, const struct tdat_record *rec,
    const char *fmt, const char *name, int err, struct tdat_sbuf *out)
{
	unsigned long long v;
	int i;

	for (i = 0; i < ev->nfields; i++)
		if (strcmp(ev->fields[i].name, name) == 0)
			break;
	if (i == ev->nfields || field_val(ev, rec, name, &v, 0, out) < 0) {
		if (err)
			tdat_sb_printf(out, "CAN'T FIND FIELD \"%s\"", name);
		return -1;
	}
	tdat_sb_printf(out, fmt, v);
	return 0;
}

static int
func_field(const struct tdat_event *ev, const struct tdat_record *rec,
    const char *fmt, const char *name, int err, struct tdat_sbuf *out)
{
	unsigned long long v, start = 0;
	const char *fn;
	char tmp[128];

	if (field_val(ev, rec, name, &v, 0, out) < 0) {
		if (err)
			tdat_sb_printf(out, "CAN'T FIND FIELD \"%s\"", name);
		return -1;
	}
	if ((fn = tdat_events_sym(ev->set, v, &start)) != NULL)
		snprintf(tmp, sizeof(tmp), "%s/0x%llx", fn, start - v);
	else
		snprintf(tmp, sizeof(tmp), "0x%08llx", v);
	tdat_sb_printf(out, fmt, tmp);
	return 0;
}

static const struct tdat_field *
any_field(const struct tdat_event *ev, const char *name)
{
	return tdat_event_field(ev, name);
}

/* ---- sched ---- */

/*
 * libtraceevent 1.8 and on (trace-cmd 3.3, 3.4) take the state letters
 * from the kernel's print format: the first __print_flags() found in the
 * operations of its arguments whose value is the prev_state field (or a
 * plain field, at the top), each flag's letter at its lowest bit; the
 * letters end at the first bit without one.  No such flags:
 * "SDTtXZPI".
 */
#define STATE_BITS	32

static const struct tdat_field *
state_arg_field(const struct tdat_field *ps, const struct parg *a)
{
	const struct tdat_field *f;

	if (a == NULL)
		return NULL;
	if (a->type == PA_FIELD)
		return a->field;
	if (a->type == PA_OP) {
		if ((f = state_arg_field(ps, a->left)) != NULL && f == ps)
			return f;
		if ((f = state_arg_field(ps, a->right)) != NULL && f == ps)
			return f;
	}
	return NULL;
}

static const struct flagsym *
state_flags(const struct tdat_field *ps, const struct parg *a)
{
	const struct flagsym *sym;

	if (a == NULL)
		return NULL;
	if (a->type == PA_OP) {
		if ((sym = state_flags(ps, a->left)) != NULL)
			return sym;
		return state_flags(ps, a->right);
	}
	if (a->type == PA_FLAGS && state_arg_field(ps, a->left) != NULL)
		return a->syms;
	return NULL;
}

static void
state_letters(const struct tdat_event *ev, const struct tdat_field *ps,
    char states[STATE_BITS + 1])
{
	const struct flagsym *sym = NULL;
	const struct parg *a;
	unsigned long bits;
	int i;

	memset(states, 0, STATE_BITS + 1);
	for (a = ev->print ? ev->print->args : NULL; a && !sym; a = a->next)
		sym = state_flags(ps, a);
	if (sym == NULL) {
		strcpy(states, "SDTtXZPI");
		return;
	}
	for (; sym; sym = sym->next) {
		bits = strtoul(sym->value, NULL, 0);
		if (bits == 0)
			continue;	/* libtraceevent loops forever */
		for (i = 0; !(bits & 1); i++)
			bits >>= 1;
		if (i < STATE_BITS)
			states[i] = sym->str[0];
	}
}

static void
write_state(const struct tdat_event *ev, const struct tdat_field *ps,
    struct tdat_sbuf *out, int v)
{
	static const char old[] = "SDTtZXxW";
	/* as libtraceevent keeps them: for the last field seen */
	static _Thread_local const struct tdat_field *last;
	static _Thread_local char buf[STATE_BITS + 1];
	const char *states = old;
	int i, found = 0, n = (int)sizeof(old) - 1;

	if (ev->set && ev->set->tc != 0) {
		if (ps != last || ps == NULL) {
			state_letters(ev, ps, buf);
			last = ps;
		}
		states = buf;
		n = (int)strlen(buf);
	}
	for (i = 0; i < n; i++) {
		if (!(v & (1 << i)))
			continue;
		if (found)
			tdat_sb_putc(out, '|');
		found = 1;
		tdat_sb_putc(out, states[i]);
	}
	if (!found)
		tdat_sb_putc(out, 'R');
}

static void
write_comm(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_field *f, int pid, struct tdat_sbuf *out)
{
	size_t start = out->len;
	int n = f->size;

	if ((uint32_t)f->offset > rec->size)
		n = 0;
	else if ((uint32_t)(f->offset + n) > rec->size)
		n = (int)(rec->size - f->offset);
	n = (int)strnlen((const char *)rec->data + f->offset, (size_t)n);
	tdat_sb_add(out, (const char *)rec->data + f->offset, (size_t)n);
	if (!out->oom)
		tdat_events_set_comm(ev->set, pid, out->p + start);
}

static int
sched_switch(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	const struct tdat_field *f;
	unsigned long long v;

	if (field_val(ev, rec, "prev_pid", &v, 1, out) < 0) {
		tdat_sb_putc(out, '!');
		return 0;
	}
	if ((f = any_field(ev, "prev_comm")) != NULL) {
		write_comm(ev, rec, f, (int)v, out);
		tdat_sb_putc(out, ':');
	}
	tdat_sb_printf(out, "%lld ", (long long)v);
	if (field_val(ev, rec, "prev_prio", &v, 1, out) == 0)
		tdat_sb_printf(out, "[%d] ", (int)v);
	if (field_val(ev, rec, "prev_state", &v, 1, out) == 0)
		write_state(ev, any_field(ev, "prev_state"), out, (int)v);
	tdat_sb_puts(out, " ==> ");
	if (field_val(ev, rec, "next_pid", &v, 1, out) < 0) {
		tdat_sb_putc(out, '!');
		return 0;
	}
	if ((f = any_field(ev, "next_comm")) != NULL) {
		write_comm(ev, rec, f, (int)v, out);
		tdat_sb_putc(out, ':');
	}
	tdat_sb_printf(out, "%lld", (long long)v);
	if (field_val(ev, rec, "next_prio", &v, 1, out) == 0)
		tdat_sb_printf(out, " [%d]", (int)v);
	return 0;
}

static int
sched_wakeup(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	const struct tdat_field *f;
	unsigned long long v;

	if (field_val(ev, rec, "pid", &v, 1, out) < 0) {
		tdat_sb_putc(out, '!');
		return 0;
	}
	if ((f = any_field(ev, "comm")) != NULL) {
		write_comm(ev, rec, f, (int)v, out);
		tdat_sb_putc(out, ':');
	}
	tdat_sb_printf(out, "%lld", (long long)v);
	if (field_val(ev, rec, "prio", &v, 1, out) == 0)
		tdat_sb_printf(out, " [%lld]", (long long)v);
	if (field_val(ev, rec, "success", &v, 0, out) == 0)
		tdat_sb_printf(out, " success=%lld", (long long)v);
	if (field_val(ev, rec, "target_cpu", &v, 1, out) == 0)
		tdat_sb_printf(out, " CPU:%03llu", v);
	return 0;
}

/* ---- ftrace ---- */

static void
add_child(struct fstack *st, const char *child, int pos)
{
	char **p;
	int i;

	if (child == NULL)
		return;
	if (pos < st->size)
		free(st->stack[pos]);
	else {
		if ((p = realloc(st->stack, sizeof(char *) * (st->size + 10)))
		    == NULL)
			return;
		st->stack = p;
		for (i = st->size; i < st->size + 10; i++)
			st->stack[i] = NULL;
		st->size += 10;
	}
	st->stack[pos] = strdup(child);
}

static int
stack_index(struct tdat_events *s, const char *parent, const char *child,
    int cpu)
{
	struct fstack *st, *p;
	int i;

	if (cpu < 0)
		return 0;
	if (cpu >= s->nfstack) {
		if ((p = realloc(s->fstack, sizeof(*p) * (cpu + 1))) == NULL)
			return 0;
		s->fstack = p;
		for (i = s->nfstack; i <= cpu; i++)
			memset(&s->fstack[i], 0, sizeof(s->fstack[i]));
		s->nfstack = cpu + 1;
	}
	st = &s->fstack[cpu];
	for (i = 0; i < st->size && st->stack[i]; i++)
		if (strcmp(parent, st->stack[i]) == 0) {
			add_child(st, child, i + 1);
			return i;
		}
	add_child(st, parent, 0);
	add_child(st, child, 1);
	return 0;
}

void
tdat_plugins_free(struct tdat_events *s)
{
	int i, j;

	for (i = 0; i < s->nfstack; i++) {
		for (j = 0; j < s->fstack[i].size; j++)
			free(s->fstack[i].stack[j]);
		free(s->fstack[i].stack);
	}
	free(s->fstack);
	s->fstack = NULL;
	s->nfstack = 0;
}

/*
 * Kernel 7.x's function and funcgraph_entry events end in args[]: with
 * func-args or funcgraph-args, the function's register arguments.
 * trace-cmd 3.4 (libtraceevent 1.9) prints them after the name, in
 * parentheses, from the file's BTF: "(path=0x..., file=0x...)"; when
 * the record holds none, nothing.  0 when it printed none.
 */
static int
func_args(const struct tdat_event *ev, const struct tdat_record *rec,
    const char *fn, unsigned long long ip, struct tdat_sbuf *out)
{
	const struct tdat_field *f;
	struct tdat_events *set = ev->set;
	char hex[24];
	int n;

	if (set == NULL || set->tc != TDAT_TC_34 ||
	    (f = tdat_event_field(ev, "args")) == NULL ||
	    !(f->flags & TDAT_FLD_ARRAY) || f->size != 0 ||
	    (uint32_t)f->offset >= rec->size ||
	    (n = (int)((rec->size - (uint32_t)f->offset) / (uint32_t)set->lsize))
	    == 0)
		return 0;
	if (fn == NULL) {
		snprintf(hex, sizeof(hex), "0x%llx", ip);
		fn = hex;
	}
	tdat_sb_putc(out, '(');
	tdat_btf_print_args(tdat_events_btf(set), out, rec->data + f->offset, n,
	    set->lsize, set->big, fn);
	tdat_sb_putc(out, ')');
	return 1;
}

static int
function(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	unsigned long long ip, pip;
	const char *fn, *parent;
	int index = 0;

	if (field_val(ev, rec, "ip", &ip, 1, out) < 0) {
		tdat_sb_putc(out, '!');
		return 0;
	}
	fn = tdat_events_sym(ev->set, ip, NULL);
	if (field_val(ev, rec, "parent_ip", &pip, 1, out) < 0) {
		tdat_sb_putc(out, '!');
		return 0;
	}
	parent = tdat_events_sym(ev->set, pip, NULL);
	if (parent)
		index = stack_index(ev->set, parent, fn, rec->cpu);
	tdat_sb_printf(out, "%*s", index * 3, "");
	if (fn)
		tdat_sb_puts(out, fn);
	else
		tdat_sb_printf(out, "0x%llx", ip);
	func_args(ev, rec, fn, ip, out);
	return 0;
}

/* A repeated call: the function, the count and when it was last called,
 * in the layout trace-cmd gives the plugin: seconds with nanoseconds or
 * (rounded) microseconds, or for a cycle clock the count. */
static int
func_repeats(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	unsigned long long count, top, bottom, t;

	function(ev, rec, ctx, out);
	if (field_val(ev, rec, "count", &count, 1, out) < 0 ||
	    field_val(ev, rec, "top_delta_ts", &top, 1, out) < 0 ||
	    field_val(ev, rec, "bottom_delta_ts", &bottom, 1, out) < 0) {
		tdat_sb_putc(out, '!');
		return 0;
	}
	tdat_sb_printf(out, " (count: %lld  last_ts: ", (long long)count);
	t = rec->ts - (top << 32 | bottom);
	switch (ev->set->repeat_ts) {
	case TDAT_RTS_USEC:
		t = (t + 500) / 1000;
		tdat_sb_printf(out, "%5llu.%06llu", t / 1000000, t % 1000000);
		break;
	case TDAT_RTS_CYCLES:
		/* "%12d": libtraceevent's power of ten overflows an int, so
		 * the count prints whole. */
		tdat_sb_printf(out, "%12llu", t);
		break;
	default:
		tdat_sb_printf(out, "%5llu.%09llu", t / 1000000000,
		    t % 1000000000);
		break;
	}
	tdat_sb_putc(out, ')');
	return 0;
}

static int
kernel_stack(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	const struct tdat_field *f = any_field(ev, "caller");
	int ls = ev->set->lsize;
	unsigned long long a;
	uint32_t off;
	const char *fn;

	if (f == NULL) {
		tdat_sb_puts(out, "<CANT FIND FIELD caller>");
		return 0;
	}
	tdat_sb_puts(out, "<stack trace >\n");
	for (off = (uint32_t)f->offset; off + ls <= rec->size; off += ls) {
		a = tdat_read_num(ev->set, rec->data + off, ls);
		if ((ls == 8 && a == ~0ULL) || (int)a == -1)
			break;
		if ((fn = tdat_events_sym(ev->set, a, NULL)) != NULL)
			tdat_sb_printf(out, "=> %s (%llx)\n", fn, a);
		else
			tdat_sb_printf(out, "=> %llx\n", a);
	}
	return 0;
}

static int
raw_data(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	const struct tdat_field *f;
	unsigned long long id;
	uint32_t off, i, n;
	int ls = ev->set->lsize;

	if (field_val(ev, rec, "id", &id, 1, out) < 0) {
		tdat_sb_putc(out, '!');
		return 0;
	}
	tdat_sb_printf(out, "# %llx", id);
	if ((f = any_field(ev, "buf")) == NULL) {
		tdat_sb_puts(out, "<CANT FIND FIELD buf>");
		return 0;
	}
	for (off = (uint32_t)f->offset; off < rec->size; off += ls) {
		n = rec->size - off < 8 ? rec->size - off : 8;
		for (i = 0; i < n; i++)
			tdat_sb_printf(out, " %02x", rec->data[off + i]);
	}
	return 0;
}

/* ---- timer ---- */

static int
hrtimer_expire(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	tdat_sb_puts(out, "hrtimer=");
	if (num_field(ev, rec, "0x%llx", "timer", 0, out) < 0)
		num_field(ev, rec, "0x%llx", "hrtimer", 1, out);
	tdat_sb_puts(out, " now=");
	num_field(ev, rec, "%llu", "now", 1, out);
	func_field(ev, rec, " function=%s", "function", 0, out);
	return 0;
}

static int
hrtimer_start(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	tdat_sb_puts(out, "hrtimer=");
	if (num_field(ev, rec, "0x%llx", "timer", 0, out) < 0)
		num_field(ev, rec, "0x%llx", "hrtimer", 1, out);
	func_field(ev, rec, " function=%s", "function", 0, out);
	tdat_sb_puts(out, " expires=");
	num_field(ev, rec, "%llu", "expires", 1, out);
	tdat_sb_puts(out, " softexpires=");
	num_field(ev, rec, "%llu", "softexpires", 1, out);
	return 0;
}

/* ---- kmem: the call site, then the print format ---- */

static int
call_site(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	unsigned long long v, start = 0;
	const char *fn;

	if (field_val(ev, rec, "call_site", &v, 0, out) < 0)
		return 1;
	if ((fn = tdat_events_sym(ev->set, v, &start)) == NULL)
		return 1;
	tdat_sb_printf(out, "(%s+0x%x) ", fn, (int)(v - start));
	return 1;
}

/* ---- kvm ---- */

struct reason {
	int val;
	const char *str;
};

static const struct reason vmx_reasons[] = {
	{ 0, "EXCEPTION_NMI" }, { 1, "EXTERNAL_INTERRUPT" },
	{ 2, "TRIPLE_FAULT" }, { 7, "PENDING_INTERRUPT" },
	{ 8, "NMI_WINDOW" }, { 9, "TASK_SWITCH" }, { 10, "CPUID" },
	{ 12, "HLT" }, { 13, "INVD" }, { 14, "INVLPG" }, { 15, "RDPMC" },
	{ 16, "RDTSC" }, { 18, "VMCALL" }, { 19, "VMCLEAR" },
	{ 20, "VMLAUNCH" }, { 21, "VMPTRLD" }, { 22, "VMPTRST" },
	{ 23, "VMREAD" }, { 24, "VMRESUME" }, { 25, "VMWRITE" },
	{ 26, "VMOFF" }, { 27, "VMON" }, { 28, "CR_ACCESS" },
	{ 29, "DR_ACCESS" }, { 30, "IO_INSTRUCTION" }, { 31, "MSR_READ" },
	{ 32, "MSR_WRITE" }, { 36, "MWAIT_INSTRUCTION" },
	{ 39, "MONITOR_INSTRUCTION" }, { 40, "PAUSE_INSTRUCTION" },
	{ 41, "MCE_DURING_VMENTRY" }, { 43, "TPR_BELOW_THRESHOLD" },
	{ 44, "APIC_ACCESS" }, { 45, "EOI_INDUCED" }, { 48, "EPT_VIOLATION" },
	{ 49, "EPT_MISCONFIG" }, { 50, "INVEPT" }, { 52, "PREEMPTION_TIMER" },
	{ 54, "WBINVD" }, { 55, "XSETBV" }, { 56, "APIC_WRITE" },
	{ 58, "INVPCID" }, { 62, "PML_FULL" }, { 63, "XSAVES" },
	{ 64, "XRSTORS" }, { 0, NULL }
};

static const struct reason svm_reasons[] = {
	{ 0x000, "EXIT_READ_CR0" }, { 0x003, "EXIT_READ_CR3" },
	{ 0x004, "EXIT_READ_CR4" }, { 0x008, "EXIT_READ_CR8" },
	{ 0x010, "EXIT_WRITE_CR0" }, { 0x013, "EXIT_WRITE_CR3" },
	{ 0x014, "EXIT_WRITE_CR4" }, { 0x018, "EXIT_WRITE_CR8" },
	{ 0x020, "EXIT_READ_DR0" }, { 0x021, "EXIT_READ_DR1" },
	{ 0x022, "EXIT_READ_DR2" }, { 0x023, "EXIT_READ_DR3" },
	{ 0x024, "EXIT_READ_DR4" }, { 0x025, "EXIT_READ_DR5" },
	{ 0x026, "EXIT_READ_DR6" }, { 0x027, "EXIT_READ_DR7" },
	{ 0x030, "EXIT_WRITE_DR0" }, { 0x031, "EXIT_WRITE_DR1" },
	{ 0x032, "EXIT_WRITE_DR2" }, { 0x033, "EXIT_WRITE_DR3" },
	{ 0x034, "EXIT_WRITE_DR4" }, { 0x035, "EXIT_WRITE_DR5" },
	{ 0x036, "EXIT_WRITE_DR6" }, { 0x037, "EXIT_WRITE_DR7" },
	{ 0x040, "EXIT_EXCP_DE" }, { 0x041, "EXIT_EXCP_DB" },
	{ 0x043, "EXIT_EXCP_BP" }, { 0x044, "EXIT_EXCP_OF" },
	{ 0x045, "EXIT_EXCP_BR" }, { 0x046, "EXIT_EXCP_UD" },
	{ 0x047, "EXIT_EXCP_NM" }, { 0x048, "EXIT_EXCP_DF" },
	{ 0x04a, "EXIT_EXCP_TS" }, { 0x04b, "EXIT_EXCP_NP" },
	{ 0x04c, "EXIT_EXCP_SS" }, { 0x04d, "EXIT_EXCP_GP" },
	{ 0x04e, "EXIT_EXCP_PF" }, { 0x050, "EXIT_EXCP_MF" },
	{ 0x051, "EXIT_EXCP_AC" }, { 0x052, "EXIT_EXCP_MC" },
	{ 0x053, "EXIT_EXCP_XF" }, { 0x060, "EXIT_INTR" },
	{ 0x061, "EXIT_NMI" }, { 0x062, "EXIT_SMI" }, { 0x063, "EXIT_INIT" },
	{ 0x064, "EXIT_VINTR" }, { 0x065, "EXIT_CR0_SEL_WRITE" },
	{ 0x066, "EXIT_IDTR_READ" }, { 0x067, "EXIT_GDTR_READ" },
	{ 0x068, "EXIT_LDTR_READ" }, { 0x069, "EXIT_TR_READ" },
	{ 0x06a, "EXIT_IDTR_WRITE" }, { 0x06b, "EXIT_GDTR_WRITE" },
	{ 0x06c, "EXIT_LDTR_WRITE" }, { 0x06d, "EXIT_TR_WRITE" },
	{ 0x06e, "EXIT_RDTSC" }, { 0x06f, "EXIT_RDPMC" },
	{ 0x070, "EXIT_PUSHF" }, { 0x071, "EXIT_POPF" },
	{ 0x072, "EXIT_CPUID" }, { 0x073, "EXIT_RSM" }, { 0x074, "EXIT_IRET" },
	{ 0x075, "EXIT_SWINT" }, { 0x076, "EXIT_INVD" },
	{ 0x077, "EXIT_PAUSE" }, { 0x078, "EXIT_HLT" },
	{ 0x079, "EXIT_INVLPG" }, { 0x07a, "EXIT_INVLPGA" },
	{ 0x07b, "EXIT_IOIO" }, { 0x07c, "EXIT_MSR" },
	{ 0x07d, "EXIT_TASK_SWITCH" }, { 0x07e, "EXIT_FERR_FREEZE" },
	{ 0x07f, "EXIT_SHUTDOWN" }, { 0x080, "EXIT_VMRUN" },
	{ 0x081, "EXIT_VMMCALL" }, { 0x082, "EXIT_VMLOAD" },
	{ 0x083, "EXIT_VMSAVE" }, { 0x084, "EXIT_STGI" },
	{ 0x085, "EXIT_CLGI" }, { 0x086, "EXIT_SKINIT" },
	{ 0x087, "EXIT_RDTSCP" }, { 0x088, "EXIT_ICEBP" },
	{ 0x089, "EXIT_WBINVD" }, { 0x08a, "EXIT_MONITOR" },
	{ 0x08b, "EXIT_MWAIT" }, { 0x08c, "EXIT_MWAIT_COND" },
	{ 0x08d, "EXIT_XSETBV" }, { 0x400, "EXIT_NPF" },
	{ 0x401, "EXIT_AVIC_INCOMPLETE_IPI" },
	{ 0x402, "EXIT_AVIC_UNACCELERATED_ACCESS" }, { -1, "EXIT_ERR" },
	{ 0, NULL }
};

static int
exit_reason(const struct tdat_event *ev, const struct tdat_record *rec,
    const char *name, struct tdat_sbuf *out)
{
	const struct reason *t;
	unsigned long long v, isa;

	if (field_val(ev, rec, name, &v, 1, out) < 0)
		return -1;
	if (field_val(ev, rec, "isa", &isa, 0, out) < 0)
		isa = 1;
	if (isa != 1 && isa != 2) {
		tdat_sb_puts(out, "reason UNKNOWN-ISA");
		return 0;
	}
	for (t = isa == 1 ? vmx_reasons : svm_reasons; t->str; t++)
		if (t->val == (int)v)
			break;
	if (t->str)
		tdat_sb_printf(out, "reason %s", t->str);
	else
		tdat_sb_printf(out, "reason UNKNOWN (%llu)", v);
	return 0;
}

/* Several inputs: the guest's function at a guest address seen by the
 * host task that runs the vCPU (tdat_events.guest_sym). */
static void
guest_func(const struct tdat_event *ev, const struct tdat_record *rec,
    unsigned long long rip, struct tdat_sbuf *out)
{
	const struct tdat_events *s = ev->set;
	unsigned long long start = rip;
	const char *name;
	int pid;

	if (s == NULL || s->guest_sym == NULL)
		return;
	pid = (int)tdat_field_read(ev, ev->pid, rec->data, rec->size);
	if ((name = s->guest_sym(s->guest_arg, pid, rip, &start)) == NULL)
		return;
	tdat_sb_printf(out, " %s", name);
	if (start != rip)
		tdat_sb_printf(out, "+0x%llx", rip - start);
}

static int
kvm_exit(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	unsigned long long rip, i1 = 0, i2 = 0;

	if (exit_reason(ev, rec, "exit_reason", out) < 0)
		return 1;
	if (field_val(ev, rec, "guest_rip", &rip, 1, out) < 0)
		return 1;
	tdat_sb_printf(out, " rip 0x%llx", rip);
	guest_func(ev, rec, rip, out);
	if (field_val(ev, rec, "info1", &i1, 0, out) >= 0 &&
	    field_val(ev, rec, "info2", &i2, 0, out) >= 0)
		tdat_sb_printf(out, " info %llx %llx", i1, i2);
	return 0;
}

static int
kvm_entry(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	unsigned long long rip, v;

	if (field_val(ev, rec, "vcpu_id", &v, 0, out) == 0)
		tdat_sb_printf(out, " vcpu %u", (unsigned)v);
	else
		tdat_sb_puts(out, "CAN'T FIND FIELD \"vcpu_id\"");
	if (field_val(ev, rec, "rip", &rip, 1, out) < 0)
		return 1;
	tdat_sb_printf(out, " rip 0x%llx", rip);
	guest_func(ev, rec, rip, out);
	return 0;
}

/* The rest of the kvm plugin: nested exits, emulated instructions (shown
 * as bytes: trace-cmd's plugin is built without a disassembler) and the
 * shadow-page role of kvmmmu events. */
static int
kvm_nested_vmexit_inject(const struct tdat_event *ev,
    const struct tdat_record *rec, const struct tdat_plugin_ctx *ctx,
    struct tdat_sbuf *out)
{
	if (exit_reason(ev, rec, "exit_code", out) < 0)
		return 1;
	num_field(ev, rec, " info1 %llx", "exit_info1", 1, out);
	num_field(ev, rec, " info2 %llx", "exit_info2", 1, out);
	num_field(ev, rec, " int_info %llx", "exit_int_info", 1, out);
	num_field(ev, rec, " int_info_err %llx", "exit_int_info_err", 1, out);
	return 0;
}

static int
kvm_nested_vmexit(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	unsigned long long rip;

	if (field_val(ev, rec, "rip", &rip, 1, out) < 0)
		return 1;
	tdat_sb_printf(out, " rip %llx", rip);
	guest_func(ev, rec, rip, out);
	return kvm_nested_vmexit_inject(ev, rec, ctx, out);
}

static int
kvm_emulate_insn(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	unsigned long long rip, csbase, len, flags, failed, i;
	const struct tdat_field *f;

	if (field_val(ev, rec, "rip", &rip, 1, out) < 0 ||
	    field_val(ev, rec, "csbase", &csbase, 1, out) < 0 ||
	    field_val(ev, rec, "len", &len, 1, out) < 0 ||
	    field_val(ev, rec, "flags", &flags, 1, out) < 0 ||
	    field_val(ev, rec, "failed", &failed, 1, out) < 0)
		return 1;
	for (f = ev->fields; f < ev->fields + ev->nfields; f++)
		if (strcmp(f->name, "insn") == 0)
			break;
	if (f == ev->fields + ev->nfields) {
		tdat_sb_puts(out, "<CANT FIND FIELD insn>");
		return 1;
	}
	tdat_sb_printf(out, "%llx:%llx: ", csbase, rip);
	for (i = 0; i < len && i < 15; i++) {
		uint32_t at = (uint32_t)f->offset + (uint32_t)i;

		tdat_sb_printf(out, i ? " %02x" : "%02x",
		    at < rec->size ? rec->data[at] : 0);
	}
	if (failed)
		tdat_sb_puts(out, " FAIL");
	return 0;
}

static int
kvm_mmu_role(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	static const char *access[] = { "---", "--x", "w--", "w-x", "-u-",
	    "-ux", "wu-", "wux" };
	unsigned long long v;
	unsigned w;

	if (field_val(ev, rec, "role", &v, 1, out) < 0)
		return 1;
	w = (unsigned)v;
	if (!ev->set->big)
		tdat_sb_printf(out, "%u q%u%s %s%s %spae %snxe %swp%s%s%s",
		    w & 0xf, w >> 5 & 3, w >> 7 & 1 ? " direct" : "",
		    access[w >> 8 & 7], w >> 11 & 1 ? " invalid" : "",
		    w >> 4 & 1 ? "" : "!", w >> 12 & 1 ? "" : "!",
		    w >> 13 & 1 ? "" : "!", w >> 14 & 1 ? " smep" : "",
		    w >> 15 & 1 ? " smap" : "", w >> 24 ? " smm" : "");
	else
		tdat_sb_printf(out, "WORD: %08x", w);
	num_field(ev, rec, " root %u ", "root_count", 1, out);
	if (field_val(ev, rec, "unsync", &v, 1, out) < 0)
		return 1;
	/* It ends with a NUL, as the plugin does (the report stops there). */
	tdat_sb_puts(out, v ? "unsync" : "sync");
	tdat_sb_add(out, "", 1);
	return 0;
}

static int
kvm_mmu_get_page(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	unsigned long long v;

	if (field_val(ev, rec, "created", &v, 1, out) < 0)
		return 1;
	tdat_sb_printf(out, "%s ", v ? "new" : "existing");
	if (field_val(ev, rec, "gfn", &v, 1, out) < 0)
		return 1;
	tdat_sb_printf(out, "sp gfn %llx ", v);
	return kvm_mmu_role(ev, rec, ctx, out);
}

/* ---- futex: the arguments of sys_enter_futex by operation ---- */

struct futex_op {
	const char *name, *val, *utime, *uaddr2, *val3;
};

static const struct futex_op futex_ops[] = {
	{ "FUTEX_WAIT", " val=0x%08llx", " utime=0x%08llx", NULL, NULL },
	{ "FUTEX_WAKE", " val=%llu", NULL, NULL, NULL },
	{ "FUTEX_FD", " val=%llu", NULL, NULL, NULL },
	{ "FUTEX_REQUEUE", " val=%llu", " val2=%llu", " uaddr2=0x%08llx",
	    NULL },
	{ "FUTEX_CMP_REQUEUE", " val=%llu", " val2=%llu", " uaddr2=0x%08llx",
	    " val3=0x%08llx" },
	{ "FUTEX_WAKE_OP", " val=%llu", " val2=%llu", " uaddr2=0x%08llx",
	    " val3=0x%08llx" },
	{ "FUTEX_LOCK_PI", NULL, " utime=0x%08llx", NULL, NULL },
	{ "FUTEX_UNLOCK_PI", NULL, NULL, NULL, NULL },
	{ "FUTEX_TRYLOCK_PI", NULL, NULL, NULL, NULL },
	{ "FUTEX_WAIT_BITSET", " val=0x%08llx", " utime=0x%08llx", NULL,
	    " val3=0x%08llx" },
	{ "FUTEX_WAKE_BITSET", " val=%llu", NULL, NULL, " val3=0x%08llx" },
	{ "FUTEX_WAIT_REQUEUE_PI", " val=0x%08llx", " utime=0x%08llx",
	    " uaddr2=0x%08llx", " val3=0x%08llx" },
	{ "FUTEX_CMP_REQUEUE_PI", " val=%llu", " val2=%llu",
	    " uaddr2=0x%08llx", " val3=0x%08llx" },
};

static int
futex(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	unsigned long long uaddr, op, val, utime, uaddr2, val3, cmd;
	const struct futex_op *f;

	if (field_val(ev, rec, "uaddr", &uaddr, 1, out) < 0 ||
	    field_val(ev, rec, "op", &op, 1, out) < 0 ||
	    field_val(ev, rec, "val", &val, 1, out) < 0 ||
	    field_val(ev, rec, "utime", &utime, 1, out) < 0 ||
	    field_val(ev, rec, "uaddr2", &uaddr2, 1, out) < 0 ||
	    field_val(ev, rec, "val3", &val3, 1, out) < 0)
		return 1;
	cmd = op & ~(128ULL | 256ULL);
	if (cmd >= sizeof(futex_ops) / sizeof(futex_ops[0]))
		return 1;
	f = &futex_ops[cmd];
	tdat_sb_printf(out, "op=%s", f->name);
	if (op & 128)
		tdat_sb_puts(out, "|FUTEX_PRIVATE_FLAG");
	if (op & 256)
		tdat_sb_puts(out, "|FUTEX_CLOCK_REALTIME");
	tdat_sb_printf(out, " uaddr=0x%08llx", uaddr);
	if (f->val)
		tdat_sb_printf(out, f->val, val);
	if (f->utime)
		tdat_sb_printf(out, f->utime, utime);
	if (f->uaddr2)
		tdat_sb_printf(out, f->uaddr2, uaddr2);
	if (f->val3)
		tdat_sb_printf(out, f->val3, val3);
	return 0;
}

/* ---- tlb ---- */

static int
tlb_flush(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	static const char *why[] = { "flush on task switch",
	    "remote shootdown", "local shootdown", "local mm shootdown" };
	unsigned long long v;

	tdat_sb_puts(out, "pages=");
	num_field(ev, rec, "%ld", "pages", 1, out);
	if (field_val(ev, rec, "reason", &v, 1, out) < 0)
		return 1;
	tdat_sb_puts(out, " reason=");
	if (v < 4)
		tdat_sb_puts(out, why[v]);
	tdat_sb_printf(out, " (%lld)", (long long)v);
	return 0;
}

/* ---- mac80211 ---- */

/* A string field, fixed or __data_loc, up to its length or NUL. */
static void
mac_string(const struct tdat_event *ev, const struct tdat_record *rec,
    const char *name, struct tdat_sbuf *out)
{
	const struct tdat_field *f = any_field(ev, name);
	unsigned long long v;
	uint32_t off, len, have;

	if (f == NULL) {
		tdat_sb_printf(out, "NOTFOUND:%s", name);
		return;
	}
	off = (uint32_t)f->offset;
	len = (uint32_t)f->size;
	if (strncmp(f->type, "__data_loc", 10) == 0) {
		if (field_val(ev, rec, name, &v, 0, out) < 0) {
			tdat_sb_puts(out, "invalid_data_loc");
			return;
		}
		off = (uint32_t)(v & 0xffff);
		len = (uint32_t)(v >> 16);
	}
	have = rec->avail > rec->size ? rec->avail : rec->size;
	if (off >= have)
		return;
	if (len > have - off)
		len = have - off;
	tdat_sb_add(out, (const char *)rec->data + off,
	    strnlen((const char *)rec->data + off, len));
}

/* "name:value", decimal or hexadecimal; nothing for a missing field. */
static void
mac_num(const struct tdat_event *ev, const struct tdat_record *rec,
    const char *name, int hex, struct tdat_sbuf *out)
{
	unsigned long long v;

	if (field_val(ev, rec, name, &v, 0, out) < 0)
		return;
	if (hex)
		tdat_sb_printf(out, "%s:%#x", name, (unsigned)v);
	else
		tdat_sb_printf(out, "%s:%d", name, (int)v);
}

#define MAC_INDENT	65

static int
drv_bss_info_changed(const struct tdat_event *ev,
    const struct tdat_record *rec, const struct tdat_plugin_ctx *ctx,
    struct tdat_sbuf *out)
{
	static const struct {
		const char *name;
		int hex;
		const char *after;
	} f[] = {
		{ "assoc", 0, " " }, { "aid", 0, " " }, { "cts", 0, " " },
		{ "shortpre", 0, " " }, { "shortslot", 0, " " },
		{ "dtimper", 0, " " }, { NULL, 0, NULL },
		{ "bcnint", 0, " " }, { "assoc_cap", 1, " " },
		{ "basic_rates", 1, " " }, { "enable_beacon", 0, "" },
		{ NULL, 0, NULL }, { "ht_operation_mode", 0, "" },
	};
	unsigned long long v;
	size_t i;

	mac_string(ev, rec, "wiphy_name", out);
	tdat_sb_puts(out, " vif:");
	mac_string(ev, rec, "vif_name", out);
	if (field_val(ev, rec, "vif_type", &v, 0, out) == 0)
		tdat_sb_printf(out, "(%d)", (int)v);
	else
		tdat_sb_puts(out, "CAN'T FIND FIELD \"vif_type\"");
	tdat_sb_printf(out, "\n%*s", MAC_INDENT, "");
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (f[i].name == NULL) {
			tdat_sb_printf(out, "\n%*s", MAC_INDENT, "");
			continue;
		}
		mac_num(ev, rec, f[i].name, f[i].hex, out);
		tdat_sb_puts(out, f[i].after);
	}
	return 0;
}

/* ---- function_graph (trace-cmd's own handlers) ---- */

#define GRAPH_INDENT	2

static void
graph_overhead(struct tdat_sbuf *out, unsigned long long d)
{
	if (d > 1000000000ULL)
		tdat_sb_puts(out, "$ ");
	else if (d > 1000000ULL)
		tdat_sb_puts(out, "# ");
	else if (d > 100000ULL)
		tdat_sb_puts(out, "! ");
	else if (d > 10000ULL)
		tdat_sb_puts(out, "+ ");
	else
		tdat_sb_puts(out, "  ");
}

/* "usecs.nsecs us " padded to the column, then "|  ". */
static void
graph_duration(struct tdat_sbuf *out, unsigned long long d)
{
	size_t start = out->len;
	int len;

	tdat_put_udec(out, d / 1000);
	len = (int)(out->len - start);
	if (len < 7) {
		char ns[4] = { '.', (char)('0' + d % 1000 / 100),
		    (char)('0' + d % 100 / 10), (char)('0' + d % 10) };

		sb_add(out, ns, 4);
		len += 4;
	}
	sb_add(out, " us ", 4);
	for (; len < 7; len++)
		tdat_sb_putc(out, ' ');
	tdat_sb_puts(out, "|  ");
}

static void
graph_indent(struct tdat_sbuf *out, unsigned long long depth)
{
	int n = (int)(depth * GRAPH_INDENT);

	if (n > TDAT_WIDTH_MAX)	/* a damaged depth */
		n = TDAT_WIDTH_MAX;
	if (n > 0)
		tdat_put_pad(out, "", 0, n, 0);
}

/* "%s", or the address in hex; then end.  trace-cmd 3.4 drops the
 * address of a nested call (") {") that no symbol names and whose
 * caller it does not know either. */
static void
graph_func(const struct tdat_event *ev, const struct tdat_record *rec,
    unsigned long long v, const char *end, struct tdat_sbuf *out)
{
	const char *fn = tdat_events_sym(ev->set, v, NULL);

	if (fn)
		sb_add(out, fn, strlen(fn));
	else if (ev->set->tc != TDAT_TC_34 || strcmp(end, "() {") != 0)
		tdat_sb_printf(out, "%llx", v);
	else
		end = ") {";
	if (rec != NULL && end[0] == '(' && func_args(ev, rec, fn, v, out))
		end += 2;	/* "()..." without its "()" */
	sb_add(out, end, strlen(end));
}

static unsigned long long
common_val(const struct tdat_event *ev, const struct tdat_record *rec,
    const char *name)
{
	return tdat_field_read(ev, tdat_event_field(ev, name), rec->data,
	    rec->size);
}

/* The return of a leaf function: the next record, if it is the
 * funcgraph_exit of the same task and function (and, since trace-cmd
 * 3.3, on the same CPU). */
static const struct tdat_record *
graph_leaf(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, unsigned long long func,
    const struct tdat_event **retev)
{
	const struct tdat_record *n;
	const struct tdat_event *x;
	const struct tdat_field *f;

	if (ctx == NULL || ctx->peek == NULL || (n = ctx->peek(ctx->arg)) ==
	    NULL || n->buffer != rec->buffer)
		return NULL;
	if (ev->set->tc != TDAT_TC_31 && n->cpu != rec->cpu)
		return NULL;
	if (!ev->set->fgraph_looked) {
		ev->set->fgraph_exit = tdat_events_find_name(ev->set, "ftrace",
		    "funcgraph_exit");
		ev->set->fgraph_looked = 1;
	}
	if ((x = ev->set->fgraph_exit) == NULL || n->size < 2)
		return NULL;
	if ((int)tdat_read_num(ev->set, n->data, x->common[0].size) != x->id)
		return NULL;
	if (common_val(x, n, "common_pid") != common_val(ev, rec, "common_pid"))
		return NULL;
	for (f = x->fields; f < x->fields + x->nfields; f++)
		if (strcmp(f->name, "func") == 0)
			break;
	if (f == x->fields + x->nfields ||
	    tdat_field_read(x, f, n->data, n->size) != func)
		return NULL;
	*retev = x;
	return n;
}

static int
graph_times(const struct tdat_event *ev, const struct tdat_record *rec,
    struct tdat_sbuf *out)
{
	unsigned long long rt, ct;

	if (field_val(ev, rec, "rettime", &rt, 1, out) < 0 ||
	    field_val(ev, rec, "calltime", &ct, 1, out) < 0) {
		tdat_sb_putc(out, '!');
		return -1;
	}
	graph_overhead(out, rt - ct);
	graph_duration(out, rt - ct);
	return 0;
}

/* A function's return value (trace-cmd 3.3 and on, a funcgraph_exit with
 * a retval field): " (ret=...)", error codes in decimal, others in hex,
 * or as -O fgraph:retval-dec, retval-hex or retval-skip ask.  1 when
 * there is none; -1 when it cannot be read. */
static int
graph_retval(const struct tdat_event *ev, const struct tdat_record *rec,
    unsigned long long *v, struct tdat_sbuf *out)
{
	if (ev->set->tc == TDAT_TC_31 || tdat_event_field(ev, "retval") ==
	    NULL)
		return 1;
	return field_val(ev, rec, "retval", v, 1, out) < 0 ? -1 : 0;
}

static void
put_retval(const struct tdat_event *ev, unsigned long long v,
    struct tdat_sbuf *out)
{
	unsigned o = ev->set->fgraph;

	if (o & TDAT_FGRAPH_RETVAL_SKIP)
		return;
	if (o & TDAT_FGRAPH_RETVAL_DEC)
		tdat_sb_printf(out, " (ret=%lld)", (long long)v);
	else if ((o & TDAT_FGRAPH_RETVAL_HEX) || v < (unsigned long long)-4095)
		tdat_sb_printf(out, " (ret=0x%llx)", v);
	else
		tdat_sb_printf(out, " (ret=%lld)", (long long)v);
}

/* fgraph_retaddr_entry (trace-cmd 3.4): the caller, if a symbol names
 * it. */
static const char *
graph_caller(const struct tdat_event *ev, const struct tdat_record *rec)
{
	const struct tdat_field *f = tdat_event_field(ev, "retaddr");

	if (ev->set->tc != TDAT_TC_34 || f == NULL)
		return NULL;
	return tdat_events_sym(ev->set, tdat_field_read(ev, f, rec->data,
	    rec->size), NULL);
}

static int
funcgraph_entry(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	const struct tdat_event *retev = NULL;
	const struct tdat_record *ret;
	unsigned long long func, depth, rv = 0;
	const char *caller;
	int has_rv = 1;

	if (ev->set->tc != TDAT_TC_34 && strcmp(ev->name,
	    "fgraph_retaddr_entry") == 0)
		return 1;	/* before 3.4: its print format */
	if (field_val(ev, rec, "func", &func, 1, out) < 0) {
		tdat_sb_putc(out, '!');
		return 0;
	}
	if ((ret = graph_leaf(ev, rec, ctx, func, &retev)) != NULL) {
		int bad = (has_rv = graph_retval(retev, ret, &rv, out)) < 0;

		if (!bad)
			bad = graph_times(retev, ret, out);
		else
			tdat_sb_putc(out, '!');
		ctx->consume(ctx->arg);
		if (bad)
			return 0;
	} else
		tdat_sb_puts(out, "  " "           |  ");
	caller = graph_caller(ev, rec);
	if (field_val(ev, rec, "depth", &depth, 1, out) < 0) {
		tdat_sb_putc(out, '!');
		return 0;
	}
	graph_indent(out, depth);
	if (caller && !ret) {
		graph_func(ev, rec, func, "()", out);
		tdat_sb_printf(out, " /* <-%s */ {", caller);
	} else
		graph_func(ev, rec, func, ret ? "();" : "() {", out);
	if (ev->set->fgraph & TDAT_FGRAPH_DEPTH)
		tdat_sb_printf(out, " (%lld)", (long long)depth);
	if (ret && caller)
		tdat_sb_printf(out, " /* <-%s */", caller);
	if (ret && has_rv == 0)
		put_retval(retev, rv, out);
	return 0;
}

static int
funcgraph_exit(const struct tdat_event *ev, const struct tdat_record *rec,
    const struct tdat_plugin_ctx *ctx, struct tdat_sbuf *out)
{
	unsigned long long depth, func, rv = 0;
	const char *fn;
	int has_rv;

	if ((has_rv = graph_retval(ev, rec, &rv, out)) < 0) {
		tdat_sb_putc(out, '!');
		return 0;
	}
	if (graph_times(ev, rec, out) < 0)
		return 0;
	if (field_val(ev, rec, "depth", &depth, 1, out) < 0) {
		tdat_sb_putc(out, '!');
		return 0;
	}
	graph_indent(out, depth);
	tdat_sb_putc(out, '}');
	if (ev->set->fgraph & TDAT_FGRAPH_TAIL) {
		if (field_val(ev, rec, "func", &func, 0, out) < 0 ||
		    (fn = tdat_events_sym(ev->set, func, NULL)) == NULL)
			return 0;
		tdat_sb_printf(out, " /* %s */", fn);
	}
	if (ev->set->fgraph & TDAT_FGRAPH_DEPTH)
		tdat_sb_printf(out, " (%lld)", (long long)depth);
	if (has_rv == 0)
		put_retval(ev, rv, out);
	return 0;
}

static const struct tdat_plugin plugins[] = {
	{ "sched", "sched_switch", sched_switch, 0 },
	{ "sched", "sched_wakeup", sched_wakeup, 0 },
	{ "sched", "sched_wakeup_new", sched_wakeup, 0 },
	{ "ftrace", "function", function, 0 },
	{ "ftrace", "kernel_stack", kernel_stack, 0 },
	{ "ftrace", "raw_data", raw_data, 0 },
	{ "ftrace", "func_repeats", func_repeats, 0 },
	{ "timer", "hrtimer_expire_entry", hrtimer_expire, 0 },
	{ "timer", "hrtimer_start", hrtimer_start, 0 },
	{ "kmem", "kfree", call_site, 0 },
	{ "kmem", "kmalloc", call_site, 0 },
	{ "kmem", "kmalloc_node", call_site, 0 },
	{ "kmem", "kmem_cache_alloc", call_site, 0 },
	{ "kmem", "kmem_cache_alloc_node", call_site, 0 },
	{ "kmem", "kmem_cache_free", call_site, 0 },
	{ "kvm", "kvm_exit", kvm_exit, 0 },
	{ "kvm", "kvm_entry", kvm_entry, 0 },
	{ "kvm", "kvm_emulate_insn", kvm_emulate_insn, 0 },
	{ "kvm", "kvm_nested_vmexit", kvm_nested_vmexit, 0 },
	{ "kvm", "kvm_nested_vmexit_inject", kvm_nested_vmexit_inject, 0 },
	{ "kvmmmu", "kvm_mmu_get_page", kvm_mmu_get_page, 0 },
	{ "kvmmmu", "kvm_mmu_sync_page", kvm_mmu_role, 0 },
	{ "kvmmmu", "kvm_mmu_unsync_page", kvm_mmu_role, 0 },
	{ "kvmmmu", "kvm_mmu_zap_page", kvm_mmu_role, 0 },
	{ "kvmmmu", "kvm_mmu_prepare_zap_page", kvm_mmu_role, 0 },
	{ "tlb", "tlb_flush", tlb_flush, 0 },
	{ "mac80211", "drv_bss_info_changed", drv_bss_info_changed, 0 },
	{ "syscalls", "sys_enter_futex", futex, 0 },
	{ "ftrace", "funcgraph_entry", funcgraph_entry, 1 },
	{ "ftrace", "fgraph_retaddr_entry", funcgraph_entry, 1 },
	{ "ftrace", "funcgraph_exit", funcgraph_exit, 0 },
	{ NULL, NULL, NULL, 0 }
};

/*
 * Does a plugin of the set keep state from one record to the next (the
 * function plugin's callers per CPU) or look ahead (function_graph)?
 * Such a set prints its records in order, on one thread.
 */
int
tdat_events_stateful(const struct tdat_events *s)
{
	const struct tdat_plugin *p;
	size_t i;

	for (i = 0; i < s->nev; i++)
		if ((p = s->ev[i]->plugin) != NULL &&
		    (p->peek || p->print == function))
			return 1;
	return 0;
}

const struct tdat_plugin *
tdat_plugin_find(const char *system, const char *name)
{
	const struct tdat_plugin *p;

	for (p = plugins; p->name; p++)
		if (strcmp(p->name, name) == 0 &&
		    (p->system == NULL || strcmp(p->system, system) == 0))
			return p;
	return NULL;
}
