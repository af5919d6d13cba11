/*
 * test_event.c: unit tests of lib/event/event.c, lib/event/print.c, lib/event/texts.c and
 * lib/event/plugins.c: format files, print formats evaluated on hand-made
 * records, raw fields, symbols, printk formats and comms.  TAP output.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "event-int.h"
#include "tap.h"


static void
is(const char *got, const char *want, const char *what)
{
	ok(strcmp(got, want) == 0, "%s", what);
	if (strcmp(got, want) != 0)
		printf("# got:  '%s'\n# want: '%s'\n", got, want);
}

#define COMMON \
	"format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;" \
	"\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char sched_switch[] =
	"name: sched_switch\nID: 316\n" COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:1;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s"
	" ==> next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, "
	"REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | "
	"0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "
	"0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags("
	"REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | "
	"0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) "
	"+ 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, "
	"{ 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, "
	"{ 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) "
	": \"R\", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | "
	"0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) "
	"<< 1) ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio\n";

static const char softirq[] =
	"name: softirq_entry\nID: 20\n" COMMON
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vec=%u [action=%s]\", REC->vec, __print_symbolic("
	"REC->vec, { 0, \"HI\" }, { 1, \"TIMER\" }, { 2, \"NET_TX\" }, "
	"{ 3, \"NET_RX\" }, { 7, \"SCHED\" }, { 9, \"RCU\" })\n";

static const char irq[] =
	"name: irq_handler_entry\nID: 21\n" COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n";

static const char misc[] =
	"name: misc\nID: 22\n" COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 v;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:int w;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned char b[4];\toffset:28;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%pS|%ps|%llx|%5d|%-4d|%03x|%hhx|%*d|%c|%%|%s|%d|%lu"
	"|%s|%d\\t=>\", (void *)REC->ip, (void *)REC->ip, REC->v, REC->w, "
	"REC->w, REC->w, REC->w, 4, REC->w, 'A', REC->w > 0 ? \"pos\" : "
	"\"neg\", (REC->w + 3) * 2 - 1, sizeof(u64) + 1, "
	"__print_hex(REC->b, 4), REC->b[2]\n";

/* Narrow conversions of the compiled steps: the length letters cut the
 * value and the sign extends from the width they leave. */
static const char narrow[] =
	"name: narrow\nID: 25\n" COMMON
	"\tfield:int w;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"%hhd %hd %d %hhu %hu %u %hx %x %d\", REC->w, REC->w, "
	"REC->w, REC->w, REC->w, REC->w, REC->w, REC->w, (u8)REC->w\n";

static const char bad[] =
	"name: bad\nID: 23\n" COMMON
	"\tfield:u64 secs;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"delay %Ld\", div_s64(REC->secs, 1000)\n";

static const char bprint[] =
	"name: bprint\nID: 6\n" COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * fmt;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 buf[];\toffset:24;\tsize:0;\tsigned:0;\n\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->fmt\n";

static const char net[] =
	"name: net\nID: 24\n" COMMON
	"\tfield:u8 mac[6];\toffset:8;\tsize:6;\tsigned:0;\n"
	"\tfield:u8 saddr[4];\toffset:14;\tsize:4;\tsigned:0;\n"
	"\tfield:u8 v6[16];\toffset:18;\tsize:16;\tsigned:0;\n"
	"\tfield:u8 uuid[16];\toffset:34;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] mask;\toffset:52;\tsize:4;"
	"\tsigned:0;\n"
	"\tfield:__data_loc u8[] buf;\toffset:56;\tsize:4;\tsigned:0;\n"
	"\tfield:int vals[3];\toffset:60;\tsize:12;\tsigned:1;\n\n"
	"print fmt: \"%pM %pI4 %pI6c %pU %s %s %s %s\", REC->mac, "
	"REC->saddr, REC->v6, REC->uuid, __get_bitmask(mask), "
	"__get_cpumask(mask), __print_hex_str(__get_dynamic_array(buf), "
	"__get_dynamic_array_len(buf)), __print_array(REC->vals, 3, 4)\n";

static const char fg_entry[] =
	"name: funcgraph_entry\nID: 11\n" COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"--> %ps (%d)\", (void *)REC->func, REC->depth\n";

/* Widths and precisions past TDAT_WIDTH_MAX, in the format and from
 * the record; a string's precision is kept. */
static const char wide[] =
	"name: wide\nID: 24\n" COMMON
	"\tfield:int w;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int n;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] s;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"[%999999999d][%*d][%*d][%.*d][%07000x][%.*s][%4096d]"
	"[%.00009999d]\", REC->w, REC->n, REC->w, -REC->n, REC->w, REC->n, "
	"REC->w, REC->w, REC->n, __get_str(s), REC->w, REC->w\n";

static const char fg_exit[] =
	"name: funcgraph_exit\nID: 10\n" COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long long calltime;\toffset:24;\tsize:8;"
	"\tsigned:0;\n"
	"\tfield:unsigned long long rettime;\toffset:32;\tsize:8;"
	"\tsigned:0;\n\n"
	"print fmt: \"<-- %ps (%d) (start: %llx  end: %llx) over: %d\", "
	"(void *)REC->func, REC->depth, REC->calltime, REC->rettime, "
	"REC->depth\n";

static const char kmalloc[] =
	"name: kmalloc\nID: 40\n" COMMON
	"\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"call_site=%pS ptr=%p\", (void *)REC->call_site, "
	"REC->ptr\n";

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T do_work\n"
	"ffffffff81002000 t helper\t[mymod]\n"
	"ffffffff81003000 T the_end\n";

static const char printk[] =
	"0xffffffff82000000 : \"pid=%d comm=%s val=%lx\\n\"\n";

static const char cmdlines[] = "42 worker\n7 init\n";

static void
put16(unsigned char *p, unsigned v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8 & 0xff;
}

static void
put32(unsigned char *p, unsigned long v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16 & 0xffff);
}

static void
put64(unsigned char *p, unsigned long long v)
{
	put32(p, (unsigned long)(v & 0xffffffff));
	put32(p + 4, (unsigned long)(v >> 32));
}

static const char *
show(struct tdat_sbuf *b, const struct tdat_event *ev, unsigned char *d,
    uint32_t size, int mode)
{
	struct tdat_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.data = d;
	rec.size = size;
	tdat_sb_reset(b);
	tdat_event_print(ev, &rec, mode, b);
	return tdat_sb_str(b);
}

static struct tdat_event *
add(struct tdat_events *s, const char *text, const char *sys)
{
	struct tdat_event *ev = NULL;
	struct tdat_err e;

	memset(&e, 0, sizeof(e));
	if (tdat_events_add(s, text, strlen(text), sys, &ev, &e) < 0)
		printf("# %s\n", e.msg);
	return ev;
}

static void
test_fields(struct tdat_event *ev)
{
	const struct tdat_field *f;

	ok(ev != NULL && ev->id == 316 && strcmp(ev->name, "sched_switch") == 0,
	    "name and ID");
	if (ev == NULL)
		return;
	ok(ev->ncommon == 4 && ev->nfields == 7, "4 common, 7 own fields");
	f = tdat_event_field(ev, "prev_comm");
	ok(f && f->offset == 8 && f->size == 16 && f->arraylen == 16 &&
	    (f->flags & TDAT_FLD_ARRAY) && (f->flags & TDAT_FLD_STRING) &&
	    strcmp(f->type, "char[16]") == 0, "char prev_comm[16]");
	f = tdat_event_field(ev, "prev_state");
	ok(f && (f->flags & TDAT_FLD_LONG) && (f->flags & TDAT_FLD_SIGNED),
	    "long prev_state is long and signed");
	f = tdat_event_field(ev, "common_pid");
	ok(f && f->offset == 4 && (f->flags & TDAT_FLD_SIGNED), "common_pid");
	ok(!ev->failed, "print fmt parsed");
}

static void
test_sched(struct tdat_event *ev, struct tdat_sbuf *b)
{
	unsigned char d[64];

	memset(d, 0, sizeof(d));
	put16(d, 316);
	memcpy(d + 8, "bash", 4);
	put32(d + 24, 1234);
	put32(d + 28, 120);
	put64(d + 32, 0x1);
	memcpy(d + 40, "swapper/1", 9);
	put32(d + 56, 0);
	put32(d + 60, 120);
	is(show(b, ev, d, 64, TDAT_PRINT_FMT), "prev_comm=bash prev_pid=1234 "
	    "prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 "
	    "next_prio=120", "sched_switch print fmt, state S");
	put64(d + 32, 0x100);
	is(show(b, ev, d, 64, TDAT_PRINT_FMT), "prev_comm=bash prev_pid=1234 "
	    "prev_prio=120 prev_state=R+ ==> next_comm=swapper/1 next_pid=0 "
	    "next_prio=120", "ternaries and shifts: state R+");
	put64(d + 32, 0x3);
	is(show(b, ev, d, 64, TDAT_PRINT_FMT), "prev_comm=bash prev_pid=1234 "
	    "prev_prio=120 prev_state=S|D ==> next_comm=swapper/1 next_pid=0 "
	    "next_prio=120", "__print_flags with a delimiter");
	is(show(b, ev, d, 64, TDAT_PRINT_RAW), " prev_comm=bash prev_pid=1234 "
	    "prev_prio=120 prev_state=3 next_comm=swapper/1 next_pid=0 "
	    "next_prio=120", "raw fields: a signed long in decimal");
	is(show(b, ev, d, 64, TDAT_PRINT_PLUGINS), "bash:1234 [120] S|D ==> "
	    "swapper/1:0 [120]", "sched_switch plugin");
	is(tdat_events_comm(ev->set, 1234), "bash",
	    "the plugin remembers the comm of a pid");
}

static void
test_softirq_irq(struct tdat_event *sirq, struct tdat_event *hirq,
    struct tdat_sbuf *b)
{
	unsigned char d[32];

	memset(d, 0, sizeof(d));
	put32(d + 8, 9);
	is(show(b, sirq, d, 12, TDAT_PRINT_FMT), "vec=9 [action=RCU]",
	    "__print_symbolic");
	put32(d + 8, 5);
	is(show(b, sirq, d, 12, TDAT_PRINT_FMT), "vec=5 [action=0x5]",
	    "__print_symbolic without a match");
	memset(d, 0, sizeof(d));
	put32(d + 8, (unsigned long)-3);
	put32(d + 12, 16 | 6 << 16);
	memcpy(d + 16, "eth0", 5);
	is(show(b, hirq, d, 24, TDAT_PRINT_FMT), "irq=-3 name=eth0",
	    "__get_str of a __data_loc string");
	is(show(b, hirq, d, 24, TDAT_PRINT_RAW), " irq=-3 name=eth0",
	    "raw __data_loc string");
}

/* tdat_event_nul_free(): only for a format printed by steps that write
 * text, numbers and symbols (report.c then looks for no NUL). */
static void
test_nul_free(struct tdat_event *fe, struct tdat_event *misc_ev,
    struct tdat_sbuf *b)
{
	unsigned char d[32];

	if (fe == NULL || misc_ev == NULL) {
		ok(0, "nul_free: the events");
		return;
	}
	memset(d, 0, sizeof(d));
	put64(d + 8, 0xffffffff81001010ULL);
	put32(d + 16, 3);
	show(b, fe, d, 20, TDAT_PRINT_FMT);
	ok(tdat_event_nul_free(fe, TDAT_PRINT_FMT) == 1 &&
	    tdat_event_nul_free(fe, TDAT_PRINT_RAW) == 0 &&
	    tdat_event_nul_free(fe, TDAT_PRINT_PLUGINS) == (fe->plugin == NULL),
	    "nul_free: \"--> %%ps (%%d)\" printed by its steps, not raw or "
	    "by a plugin");
	show(b, misc_ev, d, 32, TDAT_PRINT_FMT);
	ok(tdat_event_nul_free(misc_ev, TDAT_PRINT_FMT) == 0,
	    "nul_free: not a format with %%c and other conversions");
}

static void
test_misc(struct tdat_event *ev, struct tdat_sbuf *b)
{
	unsigned char d[32];

	memset(d, 0, sizeof(d));
	put64(d + 8, 0xffffffff81001010ULL);
	put64(d + 16, 0xabcdef);
	put32(d + 24, 0x1ff);
	d[28] = 0xde;
	d[29] = 0xad;
	d[30] = 0x07;
	d[31] = 0xef;
	is(show(b, ev, d, 32, TDAT_PRINT_FMT), "do_work+0x10|do_work|abcdef|"
	    "  511|511 |1ff|ff| 511|A|%|pos|1027|9|de ad 07 ef|7\t=>",
	    "conversions, flags, widths, *, casts, arithmetic, sizeof");
	put64(d + 8, 0x10);
	put32(d + 24, (unsigned long)-2);
	ok(strncmp(show(b, ev, d, 32, TDAT_PRINT_FMT), "0x10|0x10|", 10) == 0,
	    "an address outside kallsyms prints in hex");
}

static void
test_narrow(struct tdat_event *ev, struct tdat_sbuf *b)
{
	unsigned char d[12];

	memset(d, 0, sizeof(d));
	put32(d + 8, 0x180);
	is(show(b, ev, d, 12, TDAT_PRINT_FMT),
	    "-128 384 384 128 384 384 180 180 128",
	    "narrow conversions: a sign bit in the low byte");
	put32(d + 8, (unsigned long)-2);
	is(show(b, ev, d, 12, TDAT_PRINT_FMT),
	    "-2 -2 -2 254 65534 4294967294 fffe fffffffe 254",
	    "narrow conversions: a negative value, and a cast");
}

static void
test_net(struct tdat_event *ev, struct tdat_sbuf *b)
{
	static const unsigned char mac[6] = { 0, 0x11, 0x22, 0xaa, 0xbb, 0xcc };
	static const unsigned char ip[4] = { 192, 168, 1, 10 };
	static const unsigned char v6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0,
	    0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	unsigned char d[84];
	int i, tc;

	ok(ev && !ev->failed, "net: print fmt parsed");
	if (ev == NULL)
		return;
	memset(d, 0, sizeof(d));
	memcpy(d + 8, mac, 6);
	memcpy(d + 14, ip, 4);
	memcpy(d + 18, v6, 16);
	for (i = 0; i < 16; i++)
		d[34 + i] = (unsigned char)i;
	put32(d + 52, 72 | 8 << 16);
	put32(d + 56, 80 | 4 << 16);
	put32(d + 60, 1);
	put32(d + 64, 2);
	put32(d + 68, 0x10);
	put64(d + 72, 0x0000000f000000f3ULL);
	memcpy(d + 80, "\xde\xad\xbe\xef", 4);
	tc = ev->set->tc;
	ev->set->tc = TDAT_TC_34;
	is(show(b, ev, d, 84, TDAT_PRINT_FMT), "00:11:22:aa:bb:cc 192.168.1.10 "
	    "2001:db8::1 00010203-0405-0607-0809-0a0b0c0d0e0f "
	    "0000000f,000000f3 0-1,4-7,32-35 deadbeef {0x1,0x2,0x10}",
	    "%pM %pI4 %pI6c %pU, bitmask, cpumask, hex_str, array");
	/* libtraceevent 1.7.1 (trace-cmd 3.1.6): __print_array's elements
	 * as unsigned decimals, a space between */
	ev->set->tc = TDAT_TC_31;
	ok(strstr(show(b, ev, d, 84, TDAT_PRINT_FMT), " deadbeef 1 2 16") !=
	    NULL, "__print_array as trace-cmd 3.1.6 prints it");
	ev->set->tc = tc;
}

/* A report's look-ahead, for the function_graph plugin. */
struct peek {
	struct tdat_record next;
	int have, used;
};

static const struct tdat_record *
peek_next(void *arg)
{
	struct peek *p = arg;

	return p->have ? &p->next : NULL;
}

static void
peek_drop(void *arg)
{
	struct peek *p = arg;

	p->have = 0;
	p->used = 1;
}

static void
test_plugins(struct tdat_event *ent, struct tdat_event *ex,
    struct tdat_event *km, struct tdat_sbuf *b)
{
	unsigned char d[24], x[40], k[24];
	struct peek pk = { { 0 }, 1, 0 };
	struct tdat_plugin_ctx ctx = { peek_next, peek_drop, &pk };
	struct tdat_record rec;

	if (!ent || !ex || !km) {
		ok(0, "plugin events parsed");
		return;
	}
	memset(d, 0, sizeof(d));
	put16(d, 11);
	put32(d + 4, 42);
	put64(d + 8, 0xffffffff81001000ULL);
	put32(d + 16, 2);
	memset(x, 0, sizeof(x));
	put16(x, 10);
	put32(x + 4, 42);
	put64(x + 8, 0xffffffff81001000ULL);
	put32(x + 16, 2);
	put64(x + 24, 1000);
	put64(x + 32, 1000 + 12345);
	pk.next.data = x;
	pk.next.size = sizeof(x);
	memset(&rec, 0, sizeof(rec));
	rec.data = d;
	rec.size = sizeof(d);
	tdat_sb_reset(b);
	tdat_event_print_ctx(ent, &rec, rec.size, TDAT_PRINT_PLUGINS, &ctx, b);
	is(tdat_sb_str(b), "+ 12.345 us  |      do_work();",
	    "function_graph: a leaf folds its return into one line");
	ok(pk.used, "function_graph: the return is consumed");
	is(show(b, ent, d, sizeof(d), TDAT_PRINT_PLUGINS),
	    "             |      do_work() {", "function_graph: nested entry");
	is(show(b, ex, x, sizeof(x), TDAT_PRINT_PLUGINS),
	    "+ 12.345 us  |      }", "function_graph: exit");
	put32(d + 16, 0x3fffffff);
	show(b, ent, d, sizeof(d), TDAT_PRINT_PLUGINS);
	ok(b->len == 16 + 4096 + strlen("do_work() {") &&
	    strspn(b->p + 14, " ") == 2 + 4096, "function_graph: a depth of "
	    "2^30 - 1 indents 4096 columns");
	memset(k, 0, sizeof(k));
	put64(k + 8, 0xffffffff81001010ULL);
	is(show(b, km, k, sizeof(k), TDAT_PRINT_PLUGINS),
	    "(do_work+0x10) call_site=do_work+0x10 ptr=(nil)",
	    "kmem: call site, then the print format");
}

/* "[" n - len(tail) times c, then tail "]" at *s; 1 if so, and *s after */
static int
padded(const char **s, size_t n, char c, const char *tail)
{
	size_t k = strlen(tail), i;

	if (**s != '[' || n < k)
		return 0;
	for (i = 1; i <= n - k; i++)
		if ((*s)[i] != c)
			return 0;
	if (strncmp(*s + i, tail, k) != 0 || (*s)[i + k] != ']')
		return 0;
	*s += i + k + 1;
	return 1;
}

static void
test_wide(struct tdat_event *ev, struct tdat_sbuf *b)
{
	static unsigned char d[24 + 5000];
	const char *s;

	if (ev == NULL) {
		ok(0, "an event of wide conversions parsed");
		return;
	}
	memset(d, 0, sizeof(d));
	put32(d + 8, 7);
	put32(d + 12, 1000000000);
	put32(d + 16, 20 | 4200u << 16);
	memset(d + 20, 'x', 4199);
	s = show(b, ev, d, 24 + 4200, TDAT_PRINT_FMT);
	ok(padded(&s, 4096, ' ', "7"), "a width of 999999999 in the format "
	    "pads 4096 columns");
	ok(padded(&s, 4096, ' ', "7"), "a '*' width of 10^9 from the record "
	    "pads 4096");
	ok(strncmp(s, "[7", 2) == 0 && strspn(s + 2, " ") == 4095 &&
	    s[4097] == ']', "a '*' width of -10^9: 4096, left-justified");
	if (strncmp(s, "[7", 2) != 0 || strspn(s + 2, " ") != 4095)
		printf("# got '%.8s'... (%zu spaces)\n", s, strspn(s + 2, " "));
	s += strcspn(s, "]") + 1;
	ok(padded(&s, 4096, '0', "7"), "a '*' precision of 10^9 on a number "
	    "gives 4096 digits");
	ok(padded(&s, 4096, '0', "7"), "a zero flag and width 7000: 4096");
	ok(padded(&s, 4199, 'x', ""), "a '*' precision of 10^9 on a string "
	    "is kept: the whole 4199 bytes");
	ok(padded(&s, 4096, ' ', "7"), "a width of 4096 is kept");
	ok(padded(&s, 4096, '0', "7"), "a precision of 00009999: 4096");
	ok(*s == '\0', "and nothing after");
}

/* A buffer bounded by tdat_sb_limit refuses text past it, until reset. */
static void
test_sb_limit(void)
{
	struct tdat_sbuf b;
	char x[100];

	memset(x, 'x', sizeof(x));
	tdat_sb_init(&b);
	tdat_sb_limit(&b, 100);
	tdat_sb_add(&b, x, 99);
	ok(b.len == 99 && !b.full && !b.oom, "text up to the bound");
	tdat_sb_putc(&b, 'y');
	tdat_sb_printf(&b, "%d", 5);
	ok(b.len == 99 && b.full && b.oom && b.cap <= 100,
	    "past it: refused, full, no more memory than the bound");
	tdat_sb_reset(&b);
	tdat_sb_add(&b, x, 10);
	ok(b.len == 10 && !b.full && !b.oom, "reset takes the buffer back");
	tdat_sb_free(&b);
}

static void
test_failed(struct tdat_event *ev, struct tdat_sbuf *b)
{
	unsigned char d[16];

	memset(d, 0, sizeof(d));
	put64(d + 8, 414);
	ok(ev && ev->failed, "unknown helper function fails the print fmt");
	if (ev)
		is(show(b, ev, d, 16, TDAT_PRINT_FMT),
		    "[FAILED TO PARSE] secs=414", "failed events print raw");
}

static void
test_bprint(struct tdat_event *ev, struct tdat_sbuf *b)
{
	unsigned char d[64];

	memset(d, 0, sizeof(d));
	put64(d + 8, 0xffffffff81002004ULL);
	put64(d + 16, 0xffffffff82000000ULL);
	put32(d + 24, 42);
	memcpy(d + 28, "init", 5);
	put64(d + 36, 0xbeef);
	is(show(b, ev, d, 44, TDAT_PRINT_FMT),
	    "helper: pid=42 comm=init val=beef", "bprint: printk format, vbin");
	put64(d + 16, 0x1234);
	is(show(b, ev, d, 44, TDAT_PRINT_FMT),
	    "helper: (NO FORMAT FOUND at 1234)\n", "bprint: unknown format");
}

/* tdat_event_scan_id(): the id tdat_event_scan() gives, from the head
 * alone (the gate reads a format file only when a record names its id),
 * on the usual head and on those its fast path leaves to the tokenizer. */
static void
quiet(void *arg, const struct tdat_fmt_issue *is)
{
	(void)arg;
	(void)is;
}

static void
test_scan_id(void)
{
	static const char *const heads[] = {
		"name: sched_switch\nID: 316\nformat:\n",
		"name: x\nID: 012\nformat:\n",	/* octal, as strtoul */
		"name: x\nID: 0x1f\nformat:\n",
		"name: x\nID: 65535\nformat:\n",
		"name: x\nID: 65536\nformat:\n",	/* no event id */
		"name: x\nID: 1234567\nformat:\n",
		"name: x\nID: \nformat:\n",
		"name: x\nID: 7",			/* no newline */
		"name: x\nID: 7 8\nformat:\n",
		"name: a\vID: 3\nID: 4\nformat:\n",	/* \v: one line */
		"name: a ID: 5\nID: 6\nformat:\n",
		"name: a.b\nID: 9\nformat:\n",
		"ID: 11\nname: y\nformat:\n",
		"name: x\nIX: 3\nformat:\n",
		"name:x\nID:21\nformat:\n",
		"name: x\n ID: 22\nformat:\n",
		"name: \nID: 23\nformat:\n",
		"",
	};
	struct tdat_event *ev;
	struct tdat_err e;
	size_t i;
	int want, got, same = 0;

	for (i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		want = tdat_event_scan(heads[i], strlen(heads[i]), "t", 8,
		    quiet, NULL, &ev, &e) < 0 ? -1 : ev->id;
		if (want >= 0)
			tdat_event_free(ev);
		got = tdat_event_scan_id(heads[i], strlen(heads[i]));
		if (got == want)
			same++;
		else
			printf("# head %zu: id %d, tdat_event_scan %d\n", i,
			    got, want);
	}
	ok(same == (int)i, "tdat_event_scan_id agrees with tdat_event_scan "
	    "on %zu heads", i);
	ok(tdat_event_scan_id(heads[0], strlen(heads[0])) == 316 &&
	    tdat_event_scan_id(heads[1], strlen(heads[1])) == 10 &&
	    tdat_event_scan_id(heads[4], strlen(heads[4])) == -1,
	    "usual, octal and too large ids");
}

/* tdat_event_scan: a bad line is noted and passed over, not fatal. */
static void
scan_note(void *arg, const struct tdat_fmt_issue *is)
{
	char *log = arg;
	size_t n = strlen(log);

	snprintf(log + n, 256 - n, "%d:%s ", is->what, is->name ? is->name :
	    "-");
}

static void
test_scan(void)
{
	static const char lenient[] =
	    "name: odd\nID: 77\n" COMMON
	    "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
	    "\tfield:int b;\toffsex:12;\tsize:4;\tsigned:1;\n"
	    "\tfield:int c;\toffset:70000;\tsize:4;\tsigned:1;\n"
	    "\tfield:__data_loc char[] s;\toffset:16;\tsize:4;\tsigned:0;\n"
	    "\n";
	static const char noid[] = "name: x\nIX: 3\n" COMMON "\n";
	struct tdat_event *ev = NULL, *strict = NULL;
	struct tdat_err e = { 0 };
	char log[256] = "";
	int r;

	r = tdat_event_scan(lenient, strlen(lenient), "test", 8, scan_note,
	    log, &ev, &e);
	ok(r == 0 && ev && ev->id == 77 && ev->ncommon == 4 &&
	    ev->nfields == 2, "scan: the fields that parse are kept");
	ok(ev && ev->nfields == 2 && strcmp(ev->fields[1].name, "s") == 0 &&
	    (ev->fields[1].flags & TDAT_FLD_DYNAMIC), "scan: __data_loc field");
	is(log, "3:odd 4:odd 5:odd ", "scan: bad field, insane offset, no print "
	    "fmt");
	tdat_event_free(ev);
	ok(tdat_event_parse(lenient, strlen(lenient), "test", 8, 0, &strict,
	    &e) < 0, "parse: the same file fails as a whole");
	log[0] = '\0';
	r = tdat_event_scan(noid, strlen(noid), "test", 8, scan_note, log, &ev,
	    &e);
	ok(r == TDAT_ECORRUPT && ev == NULL, "scan: no ID, no event");
	is(log, "0:x ", "scan: no ID is noted");
}

/*
 * tdat_event_scan() gives a field line it read before (kept by its place
 * in the section) the field it gave then: not when the long size or a
 * byte differs, and each event's strings its own.
 */
static void
test_scan_kept(void)
{
	static const char a[] =
	    "name: a\nID: 5\n" COMMON
	    "\tfield:long v[];\toffset:8;\tsize:0;\tsigned:1;\n"
	    "\tfield:int w;\toffset:8;\tsize:4;\tsigned:1;\n"
	    "\n";
	static const char b[] =
	    "name: b\nID: 6\n" COMMON
	    "\tfield:long v[];\toffset:8;\tsize:0;\tsigned:1;\n"
	    "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n"
	    "\n";
	struct tdat_event *e1 = NULL, *e2 = NULL, *e3 = NULL;
	struct tdat_err e = { 0 };
	char log[256] = "";

	ok(tdat_event_scan(a, strlen(a), "t", 8, scan_note, log, &e1, &e) ==
	    0 && tdat_event_scan(a, strlen(a), "t", 4, scan_note, log, &e2,
	    &e) == 0 && tdat_event_scan(b, strlen(b), "t", 8, scan_note, log,
	    &e3, &e) == 0 && e1->nfields == 2 && e2->nfields == 2 &&
	    e3->nfields == 2, "scan kept: three scans");
	ok(e1 && e2 && e1->fields[0].elemsize == 8 &&
	    e2->fields[0].elemsize == 4, "scan kept: not across long sizes");
	ok(e3 && strcmp(e3->fields[1].name, "x") == 0 &&
	    strcmp(e3->fields[0].type, "long[]") == 0 &&
	    e3->fields[0].name != e1->fields[0].name,
	    "scan kept: a line not the same is read; strings of its own");
	tdat_event_free(e1);
	ok(e2 && strcmp(e2->fields[1].name, "w") == 0 &&
	    strcmp(e2->common[3].name, "common_pid") == 0,
	    "scan kept: strings outlive the event they came from");
	tdat_event_free(e2);
	tdat_event_free(e3);
}

/*
 * A field line's keys are whole words: "offsetx", "sizes" or "signed_"
 * is no "offset", "size" or "signed" (the line is malformed), while
 * blanks around the ':' and ';' are read past.
 */
static void
test_scan_keys(void)
{
	static const char text[] =
	    "name: k\nID: 5\n" COMMON
	    "\tfield:int a;\toffsetx:8;\tsize:4;\tsigned:1;\n"
	    "\tfield:int b;\toffset:8;\tsizes:4;\tsigned:1;\n"
	    "\tfield:int c;\toffset:8;\tsize:4;\tsigned_:1;\n"
	    "\tfield:int d;\toffset :8 ;\tsize: 4;\tsigned:1 ;\n"
	    "\n";
	struct tdat_event *ev = NULL;
	struct tdat_err e = { 0 };
	char log[256] = "";
	int r;

	r = tdat_event_scan(text, strlen(text), "test", 8, scan_note, log,
	    &ev, &e);
	ok(r == 0 && ev && ev->nfields == 1 &&
	    strcmp(ev->fields[0].name, "d") == 0 && ev->fields[0].offset == 8 &&
	    ev->fields[0].size == 4, "scan: keys are whole words, blanks "
	    "around them read past");
	is(log, "3:k 3:k 3:k 5:k ", "scan: three malformed field lines, no "
	    "print fmt");
	tdat_event_free(ev);
}

/*
 * tdat_tok_expect() reads a token in place, without copying it, except
 * quoted strings and the mac80211 names the tokenizer replaces: it
 * agrees with the copying reader (tdat_tok_read(), tdat_tok_item() and
 * a compare) on the result and where it leaves the text, for operators
 * of one to three bytes, blanks of every kind, bytes that are no token,
 * newlines with and without nl_ok, and the end of the text.
 */
static void
test_tok_expect(void)
{
	static const struct {
		const char *text;
		int type;
		const char *str;
	} c[] = {
		{ "format:\n", T_ITEM, "format" }, { "formats:", T_ITEM, "format" },
		{ "form", T_ITEM, "format" }, { " \v\f\r:x", T_OP, ":" },
		{ "->x", T_OP, "->" }, { "->x", T_OP, "-" }, { "<<=1", T_OP, "<<=" },
		{ "<<1", T_OP, "<<" }, { "!=", T_OP, "!=" }, { "++=", T_OP, "++" },
		{ "&&", T_OP, "&&" }, { "==", T_OP, "==" }, { ">>=", T_OP, ">>=" },
		{ "\n", T_NEWLINE, NULL }, { "\n\nID", T_ITEM, "ID" },
		{ "  \n", T_NEWLINE, "\n" }, { "", T_NONE, NULL }, { "", T_ITEM, NULL },
		{ "\x01x", T_NONE, NULL }, { "\x80x", T_NONE, NULL },
		{ "\x7fx", T_OP, "\x7f" }, { "(", T_DELIM, "(" }, { ",", T_DELIM, NULL },
		{ "\"a\" \"b\"", T_DQUOTE, "ab" }, { "'c'", T_SQUOTE, "c" },
		{ "\"open", T_DQUOTE, NULL }, { "LOCAL_PR_FMT", T_ITEM, NULL },
		{ "STA_PR_FMT x", T_DQUOTE, " sta:%pM" }, { "VIF_PR_FMTX", T_ITEM,
		    "VIF_PR_FMTX" }, { "L", T_ITEM, "L" }, { "fmt:", T_ITEM, "fmt" },
		{ "12ab;", T_ITEM, "12ab" }, { "a\0b", T_ITEM, "a" },
	};
	size_t i, bad = 0;
	int nl;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		for (nl = 0; nl < 2; nl++) {
			size_t len = strlen(c[i].text);
			struct ptok a = { c[i].text, len, 0, 0 };
			struct ptok b = { c[i].text, len, 0, 0 };
			char *tok;
			int ty, want, got;

			ty = nl ? tdat_tok_read(&a, &tok) :
			    tdat_tok_item(&a, &tok);
			want = ty == c[i].type && (c[i].str == NULL ||
			    (tok && strcmp(tok, c[i].str) == 0));
			free(tok);
			got = tdat_tok_expect(&b, nl, c[i].type, c[i].str) == 0;
			if (want != got || a.pos != b.pos) {
				printf("# case %zu nl %d: want %d at %zu, got %d "
				    "at %zu\n", i, nl, want, a.pos, got, b.pos);
				bad++;
			}
		}
	ok(bad == 0, "tdat_tok_expect agrees with the copying reader");
}

/* tdat_event_scan() of a format file of head, the common fields and one
 * int field: its id (-1 refused), the event in *sc (NULL refused), the
 * scan's notes in log. */
static int
scan_head(const char *head, char *log, struct tdat_event **sc)
{
	struct tdat_err e;
	char text[512];

	snprintf(text, sizeof(text), "%s%s\tfield:int x;\toffset:8;"
	    "\tsize:4;\tsigned:1;\n\nprint fmt: \"%%d\", REC->x\n", head,
	    COMMON);
	log[0] = '\0';
	*sc = NULL;
	return tdat_event_scan(text, strlen(text), "t", 8, scan_note, log, sc,
	    &e) < 0 ? -1 : (*sc)->id;
}

/*
 * The scan's head where a token is read by the copying reader: a name
 * that is a string, or one the tokenizer makes one, is no name (the ID
 * line after it is read), and an ID that is a string is no id.
 */
static void
test_scan_heads(void)
{
	static const char *const head[] = {
		"name: LOCAL_PR_FMT\nID: 7\n", "name: \"q\"\nID: 8\n",
		"ID: \"9\"\nID: 10\n", "name: STA_PR_FMTs\nID: 11\n",
	};
	static const int want[] = { 7, 8, -1, 11 };
	static const int named[] = { 0, 0, 0, 1 };
	struct tdat_event *sc;
	char log[256];
	size_t i;
	int id;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		id = scan_head(head[i], log, &sc);
		ok(id == want[i] && (id < 0 || (sc->name != NULL) == named[i]),
		    "scan head %zu: id %d", i, want[i]);
		tdat_event_free(sc);
	}
}

/* The usual head read straight (usual_head()) as the tokens read it:
 * its name and id, an id past 16 bits noted, a head not quite usual. */
static void
test_scan_usual(void)
{
	static const char *const head[] = {
		"name: ev_1\nID: 12\n", "name: big\nID: 70000\n",
		"name: sp \nID: 13\n", "name: x\nID: 014\n",
	};
	static const int want[] = { 12, -1, 13, 12 };
	static const char *const logs[] = { "", "1:big ", "", "" };
	struct tdat_event *sc;
	char log[256];
	size_t i;
	int id;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		id = scan_head(head[i], log, &sc);
		ok(id == want[i] && strcmp(log, logs[i]) == 0 && (id < 0 ||
		    (sc->name && strcmp(sc->name, i == 0 ? "ev_1" : i == 2 ?
		    "sp" : "x") == 0 && sc->nfields == 1)),
		    "scan usual head %zu: id %d", i, want[i]);
		tdat_event_free(sc);
	}
}

/*
 * The event reader and tdat-verify's scan agree on every format's id
 * (fuzz-write: a copy kept records of an id the scan found no format
 * for): a vertical tab is a space to both, and an ID that is no 16-bit
 * number is no id to either.
 */
static void
test_scan_ids(void)
{
	static const char *const head[] = {
		"name: a\vID: 221\n",		/* 221 for both */
		"name: a\nID: 0x1f\n",		/* 31 */
		"name: a ID: 9\n",		/* 9 */
		"name: a\nID: 4294967517\n",	/* none: 2^32 + 221 */
		"name: a\nID: 65536\n",		/* none */
		"name: a\nID: x1\n",		/* none */
	};
	static const int want[] = { 221, 31, 9, -1, -1, -1 };
	struct tdat_event *p, *sc;
	struct tdat_err e;
	char text[512], log[256];
	size_t i;
	int a, b;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		snprintf(text, sizeof(text), "%s%s\tfield:int x;\toffset:8;"
		    "\tsize:4;\tsigned:1;\n\nprint fmt: \"%%d\", REC->x\n",
		    head[i], COMMON);
		log[0] = '\0';
		p = sc = NULL;
		a = tdat_event_parse(text, strlen(text), "t", 8, 0, &p, &e) <
		    0 ? -1 : p->id;
		b = tdat_event_scan(text, strlen(text), "t", 8, scan_note, log,
		    &sc, &e) < 0 ? -1 : sc->id;
		ok(a == want[i] && b == want[i], "ids agree: format %zu has %d",
		    i, want[i]);
		tdat_event_free(p);
		tdat_event_free(sc);
	}
}

/*
 * Print formats nested past what the stack holds (fuzz-format: 7,000
 * unary '~' in a row overflowed ASan's stack; 200,000 overflowed the
 * plain build's): refused as a print format that does not parse, while
 * a nesting as deep as the kernel's deepest compiles and prints.
 */
static void
test_deep(struct tdat_sbuf *b)
{
	static const struct {
		const char *pre, *rep, *post;
		size_t n;
		int fails;
	} c[] = {
		{ "", "~", "REC->x", 20, 0 },
		{ "", "(", "REC->x", 20, 0 },
		{ "", "~", "REC->x", 200000, 1 },
		{ "", "- ", "REC->x", 200000, 1 },
		{ "REC->x", " + 1", "", 200000, 1 },
		{ "", "(", "REC->x", 200000, 1 },
		{ "", "REC->x ? 1 : ", "2", 200000, 1 },
		{ "", "(int)", "REC->x", 200000, 1 },
	};
	unsigned char d[16];
	struct tdat_event *ev;
	struct tdat_err e;
	char *text, *p;
	size_t i, j, len;

	memset(d, 0, sizeof(d));
	put32(d + 8, 7);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		len = 512 + strlen(c[i].pre) + strlen(c[i].rep) * c[i].n * 2 +
		    strlen(c[i].post);
		if ((text = malloc(len)) == NULL)
			return;
		p = text + snprintf(text, len, "name: deep\nID: 9\n%s"
		    "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
		    "print fmt: \"%%d\", %s", COMMON, c[i].pre);
		for (j = 0; j < c[i].n; j++)
			p = stpcpy(p, c[i].rep);
		p = stpcpy(p, c[i].post);
		if (strcmp(c[i].rep, "(") == 0)
			for (j = 0; j < c[i].n; j++)
				*p++ = ')';
		strcpy(p, "\n");
		ev = NULL;
		ok(tdat_event_parse(text, strlen(text), "t", 8, 0, &ev, &e) ==
		    0 && ev != NULL && ev->failed == c[i].fails, "%zu x '%s': "
		    "%s", c[i].n, c[i].rep, c[i].fails ? "refused" : "parsed");
		if (ev != NULL && !c[i].fails)
			is(show(b, ev, d, sizeof(d), TDAT_PRINT_FMT), "7",
			    "a nested print format prints");
		tdat_event_free(ev);
		free(text);
	}
}

/*
 * A selection's set (fields_only): names, ids and fields read, no print
 * format compiled, and an event whose print format would not compile
 * kept as the full reading keeps it.
 */
static void
test_fields_only(void)
{
	struct tdat_events *s = tdat_events_new(8, 0);
	const struct tdat_event *a, *b;
	struct tdat_err e;

	if (s == NULL)
		return;
	s->fields_only = 1;
	ok(tdat_events_add_lazy(s, sched_switch, strlen(sched_switch),
	    "sched", &e) == 0 && tdat_events_add_lazy(s, bad, strlen(bad),
	    "test", &e) == 0, "fields only: formats added");
	tdat_events_finish(s, 0);
	tdat_events_resolve(s);
	a = tdat_events_find(s, 316);
	b = tdat_events_find(s, 23);
	ok(s->nev == 2 && a != NULL && b != NULL, "fields only: both events "
	    "kept");
	ok(a && a->nfields == 7 && tdat_event_field(a, "next_pid") != NULL &&
	    a->pid != NULL, "fields only: fields read");
	ok(a && b && a->print == NULL && b->print == NULL && !a->failed &&
	    !b->failed && !(a->flags & TDAT_EV_SIMPLE), "fields only: no "
	    "print format compiled");
	tdat_events_free(s);
}

int
main(void)
{
	struct tdat_events *s = tdat_events_new(8, 0);
	struct tdat_event *ss, *sirq, *hirq, *misc_ev, *bad_ev, *bp, *nt;
	struct tdat_event *fe, *fx, *km, *wd;
	struct tdat_sbuf b;

	tdat_formats_all();
	tdat_sb_init(&b);
	test_scan_id();
	ok(s != NULL, "new event set");
	if (s == NULL)
		return 1;
	tdat_events_add_kallsyms(s, kallsyms, strlen(kallsyms));
	tdat_events_add_printk(s, printk, strlen(printk));
	tdat_events_add_cmdlines(s, cmdlines, strlen(cmdlines));
	ss = add(s, sched_switch, "sched");
	sirq = add(s, softirq, "irq");
	hirq = add(s, irq, "irq");
	misc_ev = add(s, misc, "test");
	bad_ev = add(s, bad, "test");
	bp = add(s, bprint, "ftrace");
	nt = add(s, net, "net");
	fe = add(s, fg_entry, "ftrace");
	fx = add(s, fg_exit, "ftrace");
	km = add(s, kmalloc, "kmem");
	wd = add(s, wide, "test");
	tdat_events_finish(s, 1);
	ok(tdat_events_find(s, 21) == hirq && tdat_events_find(s, 99) == NULL,
	    "events found by id");
	is(tdat_events_comm(s, 42), "worker", "comm from cmdlines");
	is(tdat_events_comm(s, 0), "<idle>", "pid 0 is <idle>");
	is(tdat_events_comm(s, 5), "<...>", "unknown pid");
	test_fields(ss);
	test_scan_ids();
	test_tok_expect();
	test_scan_heads();
	test_scan_usual();
	test_deep(&b);
	if (ss && sirq && hirq && misc_ev && bp) {
		test_sched(ss, &b);
		test_softirq_irq(sirq, hirq, &b);
		test_misc(misc_ev, &b);
		test_bprint(bp, &b);
	}
	test_net(nt, &b);
	test_narrow(add(s, narrow, "test"), &b);
	test_plugins(fe, fx, km, &b);
	test_nul_free(fe, misc_ev, &b);
	test_wide(wd, &b);
	test_sb_limit();
	test_failed(bad_ev, &b);
	test_scan();
	test_scan_kept();
	test_scan_keys();
	test_fields_only();
	tdat_sb_free(&b);
	tdat_events_free(s);
	printf("1..%d\n", ntest);
	return nfail != 0;
}
