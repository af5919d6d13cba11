/*
 * ctf-lttng.c: a real LTTng kernel trace (lttng-modules' CTF) given as a
 * trace.dat: event formats synthesized from its event classes (ctf(5),
 * tdat-cat(1)).
 *
 * The events tdat-to-ctf --lttng renames (sched_switch with prev_tid...,
 * irq_softirq_entry, power_cpu_idle) are mapped back to the kernel's
 * ftrace events, whose format files (Linux 6.1's, as trace-cmd recorded
 * them) are kept here: their fields are filled from the LTTng fields of
 * the same name, a pid from its tid, a priority plus MAX_RT_PRIO (lttng
 * gives the kernel's prio less it; sched_wakeup, sched_waking and
 * sched_wakeup_new before lttng-modules 2.7.1 give it as is).  syscall
 * entries and exits become syscalls:sys_enter_NAME and sys_exit_NAME,
 * the others pass through in the system "lttng" under their own name,
 * each with a format made from its payload: integers and enumerations
 * with their size and signedness (base 16 printed 0x...), strings as
 * __data_loc char[], arrays and sequences of integers as arrays and
 * __data_loc arrays; a field of another type (floating point, structure,
 * variant) is left out.
 *
 * common_pid is the task running on the CPU: a tid context field when
 * the stream has one, else the last sched_switch's next_tid (before the
 * first, its prev_tid), as Trace Compass follows it.  Task names for the
 * saved cmdlines come from every pair of a tid and a comm field of the
 * same prefix (sched_switch's prev_ and next_, sched_process_fork's
 * parent_ and child_, sched_wakeup's) and from
 * lttng_statedump_process_state's tid and name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf-bt2.h"

#include "tdat-int.h"
#include "ctf-int.h"
#include "ltt-int.h"

#define MAX_RT_PRIO	100
#define MAX_CLASS_ID	(1u << 20)	/* event class ids kept in a table */
#define MAX_TASKS	(1u << 18)	/* task names kept */
#define FIRST_ID	1000		/* the first ftrace id given */

/* The kernel's format files of the events mapped back: fields after the
 * common ones, and the print fmt. */
/* One kernel template each: sched_wakeup, _waking, _wakeup_new; */
#define K_WAKEUP \
	"\n" \
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n" \
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n" \
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n" \
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n" \
	"\n" \
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, REC->target_cpu\n"

/* sched_process_free, _exit, _wait, sched_wait_task; */
#define K_PROCESS \
	"\n" \
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n" \
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n" \
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n" \
	"\n" \
	"print fmt: \"comm=%s pid=%d prio=%d\", REC->comm, REC->pid, REC->prio\n"

/* sched_stat_wait, _sleep, _iowait, _blocked; */
#define K_STAT \
	"\n" \
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n" \
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n" \
	"\tfield:u64 delay;\toffset:32;\tsize:8;\tsigned:0;\n" \
	"\n" \
	"print fmt: \"comm=%s pid=%d delay=%Lu [ns]\", REC->comm, REC->pid, (unsigned long long)REC->delay\n"

/* softirq_entry, _exit, _raise; */
#define K_SOFTIRQ \
	"\n" \
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n" \
	"\n" \
	"print fmt: \"vec=%u [action=%s]\", REC->vec, __print_symbolic(REC->vec, { 0, \"HI\" }, { 1, \"TIMER\" }, { 2, \"NET_TX\" }, { 3, \"NET_RX\" }, { 4, \"BLOCK\" }, { 5, \"IRQ_POLL\" }, { 6, \"TASKLET\" }, { 7, \"SCHED\" }, { 8, \"HRTIMER\" }, { 9, \"RCU\" })\n"

/* power's cpu_idle and cpu_frequency. */
#define K_CPU_IDLE \
	"\n" \
	"\tfield:u32 state;\toffset:8;\tsize:4;\tsigned:0;\n" \
	"\tfield:u32 cpu_id;\toffset:12;\tsize:4;\tsigned:0;\n" \
	"\n" \
	"print fmt: \"state=%lu cpu_id=%lu\", (unsigned long)REC->state, (unsigned long)REC->cpu_id\n"

static const struct kfmt {
	const char *sys, *name, *body;
} kfmts[] = {
	{ "sched", "sched_switch",
	    "\n"
	    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	    "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	    "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	    "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:1;\n"
	    "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	    "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	    "\n"
	    "print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio\n" },
	{ "sched", "sched_wakeup", K_WAKEUP },
	{ "sched", "sched_waking", K_WAKEUP },
	{ "sched", "sched_wakeup_new", K_WAKEUP },
	{ "sched", "sched_migrate_task",
	    "\n"
	    "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	    "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	    "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	    "\tfield:int orig_cpu;\toffset:32;\tsize:4;\tsigned:1;\n"
	    "\tfield:int dest_cpu;\toffset:36;\tsize:4;\tsigned:1;\n"
	    "\n"
	    "print fmt: \"comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d\", REC->comm, REC->pid, REC->prio, REC->orig_cpu, REC->dest_cpu\n" },
	{ "sched", "sched_process_free", K_PROCESS },
	{ "sched", "sched_process_exit", K_PROCESS },
	{ "sched", "sched_process_wait", K_PROCESS },
	{ "sched", "sched_wait_task", K_PROCESS },
	{ "sched", "sched_process_fork",
	    "\n"
	    "\tfield:char parent_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	    "\tfield:pid_t parent_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	    "\tfield:char child_comm[16];\toffset:28;\tsize:16;\tsigned:1;\n"
	    "\tfield:pid_t child_pid;\toffset:44;\tsize:4;\tsigned:1;\n"
	    "\n"
	    "print fmt: \"comm=%s pid=%d child_comm=%s child_pid=%d\", REC->parent_comm, REC->parent_pid, REC->child_comm, REC->child_pid\n" },
	{ "sched", "sched_process_exec",
	    "\n"
	    "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:1;\n"
	    "\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	    "\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n"
	    "\n"
	    "print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, REC->old_pid\n" },
	{ "sched", "sched_stat_runtime",
	    "\n"
	    "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	    "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	    "\tfield:u64 runtime;\toffset:32;\tsize:8;\tsigned:0;\n"
	    "\tfield:u64 vruntime;\toffset:40;\tsize:8;\tsigned:0;\n"
	    "\n"
	    "print fmt: \"comm=%s pid=%d runtime=%Lu [ns] vruntime=%Lu [ns]\", REC->comm, REC->pid, (unsigned long long)REC->runtime, (unsigned long long)REC->vruntime\n" },
	{ "sched", "sched_stat_wait", K_STAT },
	{ "sched", "sched_stat_sleep", K_STAT },
	{ "sched", "sched_stat_iowait", K_STAT },
	{ "sched", "sched_stat_blocked", K_STAT },
	{ "sched", "sched_pi_setprio",
	    "\n"
	    "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	    "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	    "\tfield:int oldprio;\toffset:28;\tsize:4;\tsigned:1;\n"
	    "\tfield:int newprio;\toffset:32;\tsize:4;\tsigned:1;\n"
	    "\n"
	    "print fmt: \"comm=%s pid=%d oldprio=%d newprio=%d\", REC->comm, REC->pid, REC->oldprio, REC->newprio\n" },
	{ "sched", "sched_kthread_stop",
	    "\n"
	    "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	    "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	    "\n"
	    "print fmt: \"comm=%s pid=%d\", REC->comm, REC->pid\n" },
	{ "sched", "sched_kthread_stop_ret",
	    "\n"
	    "\tfield:int ret;\toffset:8;\tsize:4;\tsigned:1;\n"
	    "\n"
	    "print fmt: \"ret=%d\", REC->ret\n" },
	{ "irq", "irq_handler_entry",
	    "\n"
	    "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	    "\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:1;\n"
	    "\n"
	    "print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n" },
	{ "irq", "irq_handler_exit",
	    "\n"
	    "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	    "\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n"
	    "\n"
	    "print fmt: \"irq=%d ret=%s\", REC->irq, REC->ret ? \"handled\" : \"unhandled\"\n" },
	{ "irq", "softirq_entry", K_SOFTIRQ },
	{ "irq", "softirq_exit", K_SOFTIRQ },
	{ "irq", "softirq_raise", K_SOFTIRQ },
	{ "power", "cpu_idle", K_CPU_IDLE },
	{ "power", "cpu_frequency", K_CPU_IDLE },
};

/* LTTng's names of the kernel events above, when not the same. */
static const struct alias {
	const char *lname, *name;
} aliases[] = {
	{ "irq_softirq_entry", "softirq_entry" },
	{ "irq_softirq_exit", "softirq_exit" },
	{ "irq_softirq_raise", "softirq_raise" },
	{ "power_cpu_idle", "cpu_idle" },
	{ "power_cpu_frequency", "cpu_frequency" },
};

static const char common_fields[] =
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\t"
	"signed:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n";

static const char synth_hpage[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

/* One event class. */
struct lev {
	int seen;		/* an event of it is in the trace */
	int id;			/* its ftrace id; 0: no format */
	const bt_event_class *ec;
	int mapped;		/* a kernel event (kfmts) */
	int wakeup;		/* ... of sched_wakeup's template */
	const struct tdat_event *te;	/* its format, parsed */
	int *src;		/* per format field: payload member, or -1 */
	unsigned char *prio;	/* ... a priority to add MAX_RT_PRIO to */
	int sw_prev, sw_next;	/* sched_switch: prev_tid, next_tid */
	int npair;		/* (tid, comm) member pairs */
	int pair[6][2];
};

struct task {
	int32_t tid;		/* 0: free */
	char comm[16];
	int64_t ts;		/* the time it was named so */
};

struct ctf_lttng {
	int big;
	int old_prio;		/* wakeup prios as the kernel's */
	int ctx_tid;		/* common context's tid member, or -1 */
	const bt_stream_class *sc;
	struct lev *ev;		/* by event class id */
	uint64_t nev;
	struct task *task;	/* open addressing by tid */
	uint32_t tcap, ntask;
	struct tdat_sbuf tmp;
};

/* ------------------------------------------------------------------ */
/* The environment. */

static const char *
env_str(const bt_trace *tr, const char *name)
{
	const bt_value *v =
	    bt_trace_borrow_environment_entry_value_by_name_const(tr, name);

	return v && bt_value_get_type(v) == BT_VALUE_TYPE_STRING ?
	    bt_value_string_get(v) : NULL;
}

static long long
env_int(const bt_trace *tr, const char *name)
{
	const bt_value *v =
	    bt_trace_borrow_environment_entry_value_by_name_const(tr, name);

	if (v && bt_value_get_type(v) == BT_VALUE_TYPE_SIGNED_INTEGER)
		return (long long)bt_value_integer_signed_get(v);
	if (v && bt_value_get_type(v) == BT_VALUE_TYPE_UNSIGNED_INTEGER)
		return (long long)bt_value_integer_unsigned_get(v);
	return -1;
}

/* The UNAME option, as trace-cmd writes it: sysname, hostname, release,
 * version (the machine is not in LTTng's environment). */
static int
uname_option(struct tdat_file *f, const bt_trace *tr)
{
	const char *k[] = { "sysname", "hostname", "kernel_release",
	    "kernel_version" };
	struct tdat_sbuf sb;
	size_t i;
	unsigned char **ob;

	tdat_sb_init(&sb);
	for (i = 0; i < 4; i++)
		if (env_str(tr, k[i]))
			tdat_sb_printf(&sb, "%s%s", sb.len ? " " : "",
			    env_str(tr, k[i]));
	if (sb.len == 0)
		return 0;
	tdat_sb_putc(&sb, 0);
	if (sb.oom || (ob = calloc(1, sizeof(*ob))) == NULL) {
		tdat_sb_free(&sb);
		return -1;
	}
	if ((f->opt = calloc(1, sizeof(*f->opt))) == NULL) {
		free(ob);
		tdat_sb_free(&sb);
		return -1;
	}
	ob[0] = (unsigned char *)sb.p;
	f->opt_blobs = ob;
	f->nopt_blobs = 1;
	f->opt[0].id = TDAT_OPT_UNAME;
	f->opt[0].size = (uint32_t)sb.len;
	f->opt[0].data = ob[0];
	f->opt[0].sect = -1;
	f->nopt = 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Formats. */

static const struct kfmt *
kfmt_of(const char *lname)
{
	size_t i;

	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(aliases[i].lname, lname) == 0) {
			lname = aliases[i].name;
			break;
		}
	for (i = 0; i < sizeof(kfmts) / sizeof(kfmts[0]); i++)
		if (strcmp(kfmts[i].name, lname) == 0)
			return &kfmts[i];
	return NULL;
}

/* The system and name an LTTng event is given. */
static void
sys_name(const char *ln, const struct kfmt *k, char *sys, size_t ssz,
    char *name, size_t nsz)
{
	if (k) {
		snprintf(sys, ssz, "%s", k->sys);
		snprintf(name, nsz, "%s", k->name);
	} else if (strcmp(ln, "syscall_entry_unknown") == 0 ||
	    strcmp(ln, "syscall_exit_unknown") == 0 ||
	    strcmp(ln, "exit_syscall") == 0) {
		snprintf(sys, ssz, "raw_syscalls");
		snprintf(name, nsz, ln[8] == 'e' && ln[9] == 'n' ?
		    "sys_enter" : "sys_exit");
	} else if (strncmp(ln, "syscall_entry_", 14) == 0) {
		snprintf(sys, ssz, "syscalls");
		snprintf(name, nsz, "sys_enter_%s", ln + 14);
	} else if (strncmp(ln, "syscall_exit_", 13) == 0) {
		snprintf(sys, ssz, "syscalls");
		snprintf(name, nsz, "sys_exit_%s", ln + 13);
	} else if (strncmp(ln, "sys_", 4) == 0 && ln[4]) {
		snprintf(sys, ssz, "syscalls");
		snprintf(name, nsz, "sys_enter_%s", ln + 4);
	} else {
		snprintf(sys, ssz, "lttng");
		snprintf(name, nsz, "%s", ln);
	}
}

static int
ident_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

static int
ident(const char *s)
{
	if (s == NULL || *s == 0)
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		    (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

static int
int_bytes(const bt_field_class *fc)
{
	uint64_t bits = bt_field_class_integer_get_field_value_range(fc);

	return bits <= 8 ? 1 : bits <= 16 ? 2 : bits <= 32 ? 4 : 8;
}

static int
is_int_class(const bt_field_class *fc)
{
	return bt_field_class_type_is(bt_field_class_get_type(fc),
	    BT_FIELD_CLASS_TYPE_INTEGER);
}

static int
is_signed_class(const bt_field_class *fc)
{
	return bt_field_class_type_is(bt_field_class_get_type(fc),
	    BT_FIELD_CLASS_TYPE_SIGNED_INTEGER);
}

/* The conversion of an integer member in the print fmt. */
static void
int_conv(struct tdat_sbuf *sb, const bt_field_class *fc)
{
	int size = int_bytes(fc), sgn = is_signed_class(fc);

	if (bt_field_class_integer_get_preferred_display_base(fc) ==
	    BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL)
		tdat_sb_puts(sb, size == 8 ? "0x%llx" : "0x%x");
	else if (size == 8)
		tdat_sb_puts(sb, sgn ? "%lld" : "%llu");
	else
		tdat_sb_puts(sb, sgn ? "%d" : "%u");
}

/* Whether member name of pay is the length of a sequence: "_NAME_length"
 * of a dynamic array NAME (lttng-modules' ctf_sequence), which the
 * __data_loc field of NAME holds already. */
static int
seq_length(const bt_field_class *pay, const char *name)
{
	uint64_t i, n = bt_field_class_structure_get_member_count(pay);
	size_t k = strlen(name);

	if (k < 9 || name[0] != '_' || strcmp(name + k - 7, "_length") != 0)
		return 0;
	for (i = 0; i < n; i++) {
		const bt_field_class_structure_member *m =
		    bt_field_class_structure_borrow_member_by_index_const(pay,
		    i);
		const char *mn = bt_field_class_structure_member_get_name(m);

		if (strlen(mn) == k - 8 && strncmp(mn, name + 1, k - 8) == 0 &&
		    bt_field_class_type_is(bt_field_class_get_type(
		    bt_field_class_structure_member_borrow_field_class_const(
		    m)), BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY))
			return 1;
	}
	return 0;
}

/* A pass-through event's fields and print fmt from its payload: fixed
 * fields from offset 8, naturally aligned; a sequence's length member
 * left out. */
static void
synth_fields(const bt_field_class *pay, struct tdat_sbuf *fl,
    struct tdat_sbuf *pf, struct tdat_sbuf *args)
{
	uint64_t i, n = pay ? bt_field_class_structure_get_member_count(pay) :
	    0;
	int off = 8, k = 0;

	for (i = 0; i < n; i++) {
		const bt_field_class_structure_member *m =
		    bt_field_class_structure_borrow_member_by_index_const(pay,
		    i);
		const char *name = bt_field_class_structure_member_get_name(m);
		const bt_field_class *fc =
		    bt_field_class_structure_member_borrow_field_class_const(m);
		bt_field_class_type t = bt_field_class_get_type(fc);
		const bt_field_class *el = NULL;
		int size, al, cnt = 0;

		if (!ident(name) || seq_length(pay, name))
			continue;
		if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY)) {
			el = bt_field_class_array_borrow_element_field_class_const(
			    fc);
			if (!is_int_class(el))
				continue;
		}
		if (is_int_class(fc)) {
			size = int_bytes(fc);
			off = (off + size - 1) / size * size;
			tdat_sb_printf(fl, "\tfield:%s %s;\toffset:%d;\tsize:%d;"
			    "\tsigned:%d;\n", tdat_synth_ctype(is_signed_class(fc), size),
			    name, off, size, is_signed_class(fc));
			tdat_sb_printf(pf, "%s%s=", k++ ? " " : "", name);
			int_conv(pf, fc);
			tdat_sb_printf(args, ", REC->%s", name);
			off += size;
		} else if (t == BT_FIELD_CLASS_TYPE_STRING || (el && t !=
		    BT_FIELD_CLASS_TYPE_STATIC_ARRAY)) {
			off = (off + 3) / 4 * 4;
			if (el)
				tdat_sb_printf(fl, "\tfield:__data_loc %s[] %s;"
				    "\toffset:%d;\tsize:4;\tsigned:%d;\n",
				    tdat_synth_ctype(is_signed_class(el), int_bytes(el)),
				    name, off, is_signed_class(el));
			else
				tdat_sb_printf(fl, "\tfield:__data_loc char[] "
				    "%s;\toffset:%d;\tsize:4;\tsigned:1;\n",
				    name, off);
			tdat_sb_printf(pf, "%s%s=%%s", k++ ? " " : "", name);
			if (el)
				tdat_sb_printf(args, ", __print_array("
				    "__get_dynamic_array(%s), "
				    "__get_dynamic_array_len(%s) / %d, %d)",
				    name, name, int_bytes(el), int_bytes(el));
			else
				tdat_sb_printf(args, ", __get_str(%s)", name);
			off += 4;
		} else if (el) {
			size = int_bytes(el);
			cnt = (int)bt_field_class_array_static_get_length(fc);
			if (cnt <= 0 || cnt > 1024)
				continue;
			al = size;
			off = (off + al - 1) / al * al;
			tdat_sb_printf(fl, "\tfield:%s %s[%d];\toffset:%d;\t"
			    "size:%d;\tsigned:%d;\n", tdat_synth_ctype(is_signed_class(el),
			    size), name, cnt, off, cnt * size,
			    is_signed_class(el));
			tdat_sb_printf(pf, "%s%s=%%s", k++ ? " " : "", name);
			tdat_sb_printf(args, ", __print_array(REC->%s, %d, %d)",
			    name, cnt, size);
			off += cnt * size;
		}
	}
}

/* The format file of event class ec as event id, into sb. */
static void
format_text(const bt_event_class *ec, const struct kfmt *k,
    const char *name, int id, struct tdat_sbuf *sb)
{
	struct tdat_sbuf fl, pf, args;

	tdat_sb_printf(sb, "name: %s\nID: %d\nformat:\n%s", name, id,
	    common_fields);
	if (k) {
		tdat_sb_puts(sb, k->body);
		return;
	}
	tdat_sb_init(&fl);
	tdat_sb_init(&pf);
	tdat_sb_init(&args);
	synth_fields(bt_event_class_borrow_payload_field_class_const(ec), &fl,
	    &pf, &args);
	tdat_sb_printf(sb, "\n%s\nprint fmt: \"%s\"%s\n", fl.p ? fl.p : "",
	    pf.p ? pf.p : "", args.p ? args.p : "");
	if (fl.oom || pf.oom || args.oom)
		sb->oom = 1;
	tdat_sb_free(&fl);
	tdat_sb_free(&pf);
	tdat_sb_free(&args);
}

/* The system of that name in f, added when new; NULL out of memory. */
static struct tdat_system *
system_of(struct tdat_file *f, const char *name, size_t *cap)
{
	struct tdat_system *s;
	uint32_t i;

	for (i = 0; i < f->nsys; i++)
		if (strcmp(f->sys[i].name, name) == 0)
			return &f->sys[i];
	if (f->nsys == *cap) {
		size_t nc = *cap ? *cap * 2 : 4;

		if ((s = realloc(f->sys, nc * sizeof(*s))) == NULL)
			return NULL;
		f->sys = s;
		*cap = nc;
	}
	s = &f->sys[f->nsys];
	memset(s, 0, sizeof(*s));
	if ((s->name = strdup(name)) == NULL)
		return NULL;
	f->nsys++;
	return s;
}

/* Whether system sy has an event of that name already. */
static int
taken(const struct tdat_system *sy, const char *name)
{
	uint32_t i;
	size_t n = strlen(name);

	for (i = 0; i < sy->nev; i++)
		if (sy->ev[i].len > 6 + n && memcmp(sy->ev[i].p, "name: ", 6) ==
		    0 && memcmp(sy->ev[i].p + 6, name, n) == 0 &&
		    sy->ev[i].p[6 + n] == '\n')
			return 1;
	return 0;
}

static int
add_format(struct tdat_file *f, const char *sys, struct tdat_sbuf *sb,
    size_t *cap)
{
	struct tdat_system *sy = system_of(f, sys, cap);
	struct tdat_blob *b;

	if (sy == NULL || sb->oom ||
	    (b = realloc(sy->ev, (sy->nev + 1) * sizeof(*b))) == NULL)
		return -1;
	sy->ev = b;
	memset(&b[sy->nev], 0, sizeof(*b));
	b[sy->nev].p = (unsigned char *)sb->p;
	b[sy->nev].len = sb->len;
	sy->nev++;
	tdat_sb_init(sb);
	return 0;
}

/* A member's index in struct class st, or -1. */
static int
member(const bt_field_class *st, const char *name)
{
	uint64_t i, n;

	if (st == NULL)
		return -1;
	n = bt_field_class_structure_get_member_count(st);
	for (i = 0; i < n; i++)
		if (strcmp(bt_field_class_structure_member_get_name(
		    bt_field_class_structure_borrow_member_by_index_const(st,
		    i)), name) == 0)
			return (int)i;
	return -1;
}

static int
member_is(const bt_field_class *st, int i, int str)
{
	const bt_field_class *fc;

	if (i < 0)
		return 0;
	fc = bt_field_class_structure_member_borrow_field_class_const(
	    bt_field_class_structure_borrow_member_by_index_const(st,
	    (uint64_t)i));
	return str ? bt_field_class_get_type(fc) == BT_FIELD_CLASS_TYPE_STRING
	    : is_int_class(fc);
}

/* The (tid, comm) pairs of an event class that name tasks. */
static void
find_pairs(struct lev *v, const bt_event_class *ec)
{
	const bt_field_class *pay =
	    bt_event_class_borrow_payload_field_class_const(ec);
	static const char *px[] = { "", "prev_", "next_", "parent_",
	    "child_" };
	char t[32], c[32];
	size_t i;
	int a, b;

	if (strcmp(bt_event_class_get_name(ec),
	    "lttng_statedump_process_state") == 0) {
		a = member(pay, "tid");
		b = member(pay, "name");
		if (member_is(pay, a, 0) && member_is(pay, b, 1)) {
			v->pair[v->npair][0] = a;
			v->pair[v->npair++][1] = b;
		}
		return;
	}
	for (i = 0; i < sizeof(px) / sizeof(px[0]); i++) {
		snprintf(t, sizeof(t), "%stid", px[i]);
		snprintf(c, sizeof(c), "%scomm", px[i]);
		a = member(pay, t);
		b = member(pay, c);
		if (member_is(pay, a, 0) && member_is(pay, b, 1)) {
			v->pair[v->npair][0] = a;
			v->pair[v->npair++][1] = b;
		}
	}
}

/* The table of event classes by id. */
static int
class_table(struct ctf_lttng *l, struct tdat_err *e)
{
	uint64_t i, n = bt_stream_class_get_event_class_count(l->sc), max = 0;

	for (i = 0; i < n; i++) {
		uint64_t ci = bt_event_class_get_id(
		    bt_stream_class_borrow_event_class_by_index_const(l->sc, i));

		if (ci >= MAX_CLASS_ID)
			return tdat_fail_nooff(e, TDAT_EUNSUP, "event class id "
			    "%llu: not supported", (unsigned long long)ci);
		if (ci + 1 > max)
			max = ci + 1;
	}
	if (n + FIRST_ID > 65535)
		return tdat_fail_nooff(e, TDAT_EUNSUP, "%llu event classes: "
		    "more than a trace.dat holds", (unsigned long long)n);
	if ((l->ev = calloc(max ? max : 1, sizeof(*l->ev))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	l->nev = max;
	return 0;
}

/* The formats of the event classes of sc that the trace has events of
 * (LTTng's metadata declares every event the tracer knows: 1181 for
 * lttng-modules 2.8), into f. */
static int
make_formats(struct ctf_lttng *l, struct tdat_file *f, struct tdat_err *e)
{
	uint64_t i, n = bt_stream_class_get_event_class_count(l->sc);
	struct tdat_sbuf sb;
	size_t cap = 0;
	char sys[64], name[256];
	int id = FIRST_ID;

	tdat_sb_init(&sb);
	for (i = 0; i < n; i++) {
		const bt_event_class *ec =
		    bt_stream_class_borrow_event_class_by_index_const(l->sc, i);
		const char *ln = bt_event_class_get_name(ec);
		struct lev *v = &l->ev[bt_event_class_get_id(ec)];
		const struct kfmt *k;
		struct tdat_system *sy;
		char clean[200];
		size_t j;

		if (!v->seen)
			continue;
		/* a name ftrace's formats cannot hold: its odd characters
		 * as '_' (a kprobe's, say) */
		if (ln == NULL || *ln == 0)
			snprintf(clean, sizeof(clean), "event_%llu",
			    (unsigned long long)bt_event_class_get_id(ec));
		else
			snprintf(clean, sizeof(clean), "%s", ln);
		for (j = 0; clean[j]; j++)
			if (!ident_char(clean[j]))
				clean[j] = '_';
		ln = clean;
		k = kfmt_of(ln);
		sys_name(ln, k, sys, sizeof(sys), name, sizeof(name));
		if ((sy = system_of(f, sys, &cap)) == NULL)
			goto oom;
		if (taken(sy, name)) {
			k = NULL;
			snprintf(sys, sizeof(sys), "lttng");
			snprintf(name, sizeof(name), "%s", ln);
			if ((sy = system_of(f, sys, &cap)) == NULL)
				goto oom;
			if (taken(sy, name))
				continue;
		}
		v->id = id++;
		v->mapped = k != NULL;
		v->wakeup = k && (strcmp(k->name, "sched_wakeup") == 0 ||
		    strcmp(k->name, "sched_waking") == 0 ||
		    strcmp(k->name, "sched_wakeup_new") == 0);
		format_text(ec, k, name, v->id, &sb);
		if (add_format(f, sys, &sb, &cap) < 0)
			goto oom;
	}
	tdat_sb_free(&sb);
	return 0;
oom:
	tdat_sb_free(&sb);
	return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
}

/* The trace clock: LTTng's "monotonic" is CLOCK_MONOTONIC, which ftrace
 * calls "mono" (trace-cmd then prints its times as seconds); another
 * keeps its name. */
static const char *
clock_name(const bt_clock_class *cc)
{
	const char *n = bt_clock_class_get_name(cc);

	if (n == NULL || *n == 0)
		return "local";
	return strcmp(n, "monotonic") == 0 ? "mono" : n;
}

/* ------------------------------------------------------------------ */

int
tdat_ctf_lttng_new(const bt_stream *st, struct tdat_file *f,
    struct ctf_lttng **out, struct tdat_err *e)
{
	const bt_trace *tr = bt_stream_borrow_trace_const(st);
	const bt_stream_class *sc = bt_stream_borrow_class_const(st);
	const bt_clock_class *cc =
	    bt_stream_class_borrow_default_clock_class_const(sc);
	const char *dom = env_str(tr, "domain"), *tn = env_str(tr,
	    "tracer_name");
	const bt_field_class *ctx;
	struct ctf_lttng *l;
	long long ma, mi, pa;
	int rc;

	*out = NULL;
	if (dom && strcmp(dom, "ust") == 0)
		return tdat_fail_nooff(e, TDAT_EUNSUP, "an LTTng user space "
		    "trace (domain \"ust\"): not supported, only kernel "
		    "traces are");
	if (dom == NULL || strcmp(dom, "kernel") != 0 || tn == NULL ||
	    strncmp(tn, "lttng-modules", 13) != 0)
		return tdat_fail_nooff(e, TDAT_EUNSUP, "a CTF trace neither "
		    "written by tdat-to-ctf (no tdat/container) nor an LTTng "
		    "kernel trace (domain \"kernel\", tracer_name "
		    "\"lttng-modules\"): not supported");
	if (cc == NULL)
		return tdat_fail_nooff(e, TDAT_EUNSUP, "an LTTng trace whose "
		    "events have no clock: not supported");
	if ((l = calloc(1, sizeof(*l))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	tdat_sb_init(&l->tmp);
	l->sc = sc;
	ma = env_int(tr, "tracer_major");
	mi = env_int(tr, "tracer_minor");
	pa = env_int(tr, "tracer_patchlevel");
	l->old_prio = ma < 2 || (ma == 2 && (mi < 7 || (mi == 7 && pa < 1)));
	ctx = bt_stream_class_borrow_event_common_context_field_class_const(
	    sc);
	l->ctx_tid = member(ctx, "tid");
	if (!member_is(ctx, l->ctx_tid, 0))
		l->ctx_tid = -1;
	f->version = 6;
	f->big = 0;
	f->lsize = 8;
	f->page_size = 4096;
	if ((f->hpage.p = (unsigned char *)strdup(synth_hpage)) == NULL ||
	    (f->hevent.p = (unsigned char *)strdup(tdat_synth_hevent)) == NULL ||
	    (f->trace_clock = strdup(clock_name(cc))) == NULL ||
	    uname_option(f, tr) < 0) {
		tdat_ctf_lttng_free(l);
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	f->hpage.len = strlen(synth_hpage);
	f->hevent.len = strlen(tdat_synth_hevent);
	if ((rc = class_table(l, e)) < 0) {
		tdat_ctf_lttng_free(l);
		return rc;
	}
	*out = l;
	return 0;
}

void
tdat_ctf_lttng_free(struct ctf_lttng *l)
{
	uint64_t i;

	if (l == NULL)
		return;
	for (i = 0; i < l->nev; i++) {
		free(l->ev[i].src);
		free(l->ev[i].prio);
	}
	free(l->ev);
	free(l->task);
	tdat_sb_free(&l->tmp);
	free(l);
}

int
tdat_ctf_lttng_used(const struct ctf_lttng *l, uint64_t id)
{
	return id < l->nev && l->ev[id].seen;
}

const bt_stream_class *
tdat_ctf_lttng_class(const struct ctf_lttng *l)
{
	return l->sc;
}

/* ------------------------------------------------------------------ */
/* Tasks. */

static uint32_t
hash(int32_t tid, uint32_t cap)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

static void
task_put(struct ctf_lttng *l, int64_t tid, const char *comm, int64_t ts)
{
	uint32_t i;

	if (tid <= 0 || tid > INT32_MAX)
		return;
	if (l->ntask * 2 >= l->tcap) {
		uint32_t nc = l->tcap ? l->tcap * 2 : 1024, k;
		struct task *t;

		if (l->ntask >= MAX_TASKS || (t = calloc(nc, sizeof(*t))) ==
		    NULL)
			goto update;	/* full: names of known tasks only */
		for (k = 0; k < l->tcap; k++)
			if (l->task[k].tid) {
				for (i = hash(l->task[k].tid, nc); t[i].tid;
				    i = (i + 1) & (nc - 1))
					;
				t[i] = l->task[k];
			}
		free(l->task);
		l->task = t;
		l->tcap = nc;
	}
update:
	if (l->tcap == 0)
		return;
	for (i = hash((int32_t)tid, l->tcap); l->task[i].tid &&
	    l->task[i].tid != tid; i = (i + 1) & (l->tcap - 1))
		;
	if (l->task[i].tid == 0) {
		if (l->ntask * 2 >= l->tcap)
			return;
		l->task[i].tid = (int32_t)tid;
		l->ntask++;
	} else if (l->task[i].ts > ts)
		return;		/* the latest name is the task's */
	l->task[i].ts = ts;
	snprintf(l->task[i].comm, sizeof(l->task[i].comm), "%s", comm);
}

static const bt_field *
pay_member(const bt_event *ev, int i)
{
	return bt_field_structure_borrow_member_field_by_index_const(
	    bt_event_borrow_payload_field_const(ev), (uint64_t)i);
}

static int64_t
int_of(const bt_field *f)
{
	if (bt_field_class_type_is(bt_field_get_class_type(f),
	    BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return bt_field_integer_signed_get_value(f);
	return (int64_t)bt_field_integer_unsigned_get_value(f);
}

static const struct lev *
lev_of(const struct ctf_lttng *l, const bt_event *ev)
{
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	uint64_t id = bt_event_class_get_id(ec);

	/* (by id: the second graph's classes are the first's again) */
	if (id >= l->nev || l->ev[id].id == 0)
		return NULL;
	return &l->ev[id];
}

/* An event class met: what its events tell of tasks. */
static void
class_seen(struct lev *v, const bt_event_class *ec)
{
	const bt_field_class *pay =
	    bt_event_class_borrow_payload_field_class_const(ec);
	const char *ln = bt_event_class_get_name(ec);

	v->seen = 1;
	v->ec = ec;
	v->sw_prev = v->sw_next = -1;
	if (ln && strcmp(ln, "sched_switch") == 0) {
		v->sw_prev = member(pay, "prev_tid");
		v->sw_next = member(pay, "next_tid");
		if (!member_is(pay, v->sw_prev, 0) ||
		    !member_is(pay, v->sw_next, 0))
			v->sw_prev = v->sw_next = -1;
	}
	if (ln)
		find_pairs(v, ec);
}

void
tdat_ctf_lttng_scan(struct ctf_lttng *l, const bt_event *ev, int64_t ts,
    int32_t *first_pid, int *have_pid)
{
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	uint64_t id = bt_event_class_get_id(ec);
	struct lev *v;
	int i;

	if (id >= l->nev)
		return;
	v = &l->ev[id];
	if (!v->seen)
		class_seen(v, ec);
	for (i = 0; i < v->npair; i++)
		task_put(l, int_of(pay_member(ev, v->pair[i][0])),
		    bt_field_string_get_value(pay_member(ev, v->pair[i][1])),
		    ts);
	if (!*have_pid && v->sw_prev >= 0) {
		*first_pid = (int32_t)int_of(pay_member(ev, v->sw_prev));
		*have_pid = 1;
	}
}

static int
task_cmp(const void *a, const void *b)
{
	const struct task *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

int
tdat_ctf_lttng_formats(struct ctf_lttng *l, struct tdat_file *f,
    struct tdat_err *e)
{
	return make_formats(l, f, e);
}

/* The saved cmdlines, and the fields of each format mapped to members. */
int
tdat_ctf_lttng_finish(struct ctf_lttng *l, struct tdat_file *f,
    const struct tdat_events *evs, struct tdat_err *e)
{
	struct tdat_sbuf sb;
	uint32_t i, k = 0;
	uint64_t j;

	tdat_sb_init(&sb);
	for (i = 0; i < l->tcap; i++)
		if (l->task[i].tid)
			l->task[k++] = l->task[i];
	if (k)
		qsort(l->task, k, sizeof(*l->task), task_cmp);
	for (i = 0; i < k; i++)
		tdat_sb_printf(&sb, "%d %s\n", l->task[i].tid,
		    l->task[i].comm);
	free(l->task);
	l->task = NULL;
	l->tcap = l->ntask = 0;
	if (sb.oom)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	f->cmdlines.p = (unsigned char *)(sb.p ? sb.p : strdup(""));
	f->cmdlines.len = sb.len;
	if (f->cmdlines.p == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	for (j = 0; j < l->nev; j++) {
		struct lev *v = &l->ev[j];
		const bt_field_class *pay;
		int n, fi;

		if (v->id == 0)
			continue;
		if ((v->te = tdat_events_find(evs, v->id)) == NULL)
			return tdat_fail_nooff(e, TDAT_ECORRUPT, "LTTng event "
			    "%s: its synthesized format does not parse",
			    bt_event_class_get_name(v->ec));
		n = v->te->nfields;
		if ((v->src = calloc((size_t)n + 1, sizeof(*v->src))) == NULL ||
		    (v->prio = calloc((size_t)n + 1, 1)) == NULL)
			return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		pay = bt_event_class_borrow_payload_field_class_const(v->ec);
		for (fi = 0; fi < n; fi++) {
			const char *fn = v->te->fields[fi].name;
			size_t fl = strlen(fn);
			char tid[128];
			int m = -1;

			/* the kernel's pid is LTTng's tid */
			if (v->mapped && fl >= 3 && fl < sizeof(tid) &&
			    strcmp(fn + fl - 3, "pid") == 0) {
				snprintf(tid, sizeof(tid), "%.*stid",
				    (int)(fl - 3), fn);
				m = member(pay, tid);
			}
			if (m < 0)
				m = member(pay, fn);
			v->src[fi] = m;
			v->prio[fi] = v->mapped && m >= 0 && fl >= 4 &&
			    strcmp(fn + fl - 4, "prio") == 0 &&
			    !(v->wakeup && l->old_prio) &&
			    member_is(pay, m, 0);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Records. */

int
tdat_ctf_lttng_record(struct ctf_lttng *l, const bt_event *ev, int big,
    int32_t *pid, struct tdat_sbuf *rec, struct tdat_err *e)
{
	const struct lev *v = lev_of(l, ev);
	const struct tdat_event *te;
	int32_t p = *pid;
	uint32_t fixed = 8;
	int i;

	if (v == NULL || v->te == NULL)
		return tdat_fail_nooff(e, TDAT_ECORRUPT, "LTTng event %s: no "
		    "format", bt_event_class_get_name(
		    bt_event_borrow_class_const(ev)) ?
		    bt_event_class_get_name(bt_event_borrow_class_const(ev)) :
		    "?");
	te = v->te;
	if (l->ctx_tid >= 0)
		p = (int32_t)int_of(
		    bt_field_structure_borrow_member_field_by_index_const(
		    bt_event_borrow_common_context_field_const(ev),
		    (uint64_t)l->ctx_tid));
	else if (v->sw_prev >= 0) {
		p = (int32_t)int_of(pay_member(ev, v->sw_prev));
		*pid = (int32_t)int_of(pay_member(ev, v->sw_next));
	}
	for (i = 0; i < te->nfields; i++) {
		uint32_t end = (uint32_t)te->fields[i].offset +
		    (uint32_t)te->fields[i].size;

		if (end > fixed)
			fixed = end;
	}
	tdat_sb_reset(rec);
	while (rec->len < fixed && !rec->oom)
		tdat_sb_putc(rec, 0);
	if (rec->oom)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	tdat_put(rec->p, (uint64_t)v->id, 2, big);
	tdat_put(rec->p + 4, (uint64_t)(uint32_t)p, 4, big);
	for (i = 0; i < te->nfields; i++) {
		const struct tdat_field *tf = &te->fields[i];
		const bt_field *f;

		if (v->src[i] < 0)
			continue;
		f = pay_member(ev, v->src[i]);
		if (v->prio[i]) {
			tdat_put(rec->p + tf->offset, (uint64_t)(int_of(f) +
			    MAX_RT_PRIO), tf->size, big);
			continue;
		}
		if (tdat_ctf_put_field(big, tf, f, rec, &l->tmp) < 0)
			return rec->oom ? tdat_fail_nooff(e, TDAT_ENOMEM,
			    "out of memory") : tdat_fail_nooff(e,
			    TDAT_ECORRUPT, "LTTng event %s: field %s does not "
			    "fit its format", bt_event_class_get_name(
			    bt_event_borrow_class_const(ev)), tf->name);
		/* a __data_loc u8[] prints as a string when it is printable
		 * (libtraceevent), to its first NUL: one after its bytes */
		if ((tf->flags & TDAT_FLD_DYNAMIC) && tf->elemsize == 1 &&
		    bt_field_class_type_is(bt_field_get_class_type(f),
		    BT_FIELD_CLASS_TYPE_ARRAY))
			tdat_sb_putc(rec, 0);
	}
	if (rec->oom)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	return 0;
}
