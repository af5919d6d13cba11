/*
 * test_event_simple.c: unit tests of the simple "format:" print language
 * (lib/event/event-simple.c) on three events: an irq handler, a softirq and
 * kmalloc.  TAP output.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
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

static const char irq[] =
	"name: irq_handler_entry\nID: 30\n" COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"format: irq=<int:irq> name=<string:name>\n";

static const char softirq[] =
	"name: softirq_entry\nID: 31\n" COMMON
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"format: vec=<int:vec> [action=<sym:vec:0=HI,1=TIMER,2=NET_TX,"
	"3=NET_RX,4=BLOCK,5=IRQ_POLL,6=TASKLET,7=SCHED,8=HRTIMER,9=RCU>]\n";

static const char kmalloc[] =
	"name: kmalloc\nID: 32\n" COMMON
	"\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_req;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_alloc;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long gfp_flags;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:int node;\toffset:48;\tsize:4;\tsigned:1;\n"
	"\tfield:bool accounted;\toffset:52;\tsize:1;\tsigned:0;\n"
	"\tfield:char cache[8];\toffset:53;\tsize:8;\tsigned:0;\n\n"
	"format: call_site=<ptr:call_site> ptr=<hex:ptr> "
	"bytes_req=<int:bytes_req> bytes_alloc=<int:bytes_alloc> "
	"gfp_flags=<mask:gfp_flags:|:0x400=__GFP_ZERO,0x800=__GFP_IO,"
	"0x40=__GFP_FS> node=<int:node> accounted=<if:accounted:true:false> "
	"cache=<strarray:cache> \\<end>\n";

static const char broken[] =
	"name: broken\nID: 33\n" COMMON
	"\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"format: x=<int:nosuchfield>\n";

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81200000 T alloc_bprm\n"
	"ffffffff81201000 T next_fn\n";

static void
put(unsigned char *p, unsigned long long v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
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
test_irq(struct tdat_event *ev, struct tdat_sbuf *b)
{
	unsigned char d[32];

	ok(ev && !ev->failed && (ev->flags & TDAT_EV_SIMPLE),
	    "irq: format: line compiled");
	if (ev == NULL)
		return;
	memset(d, 0, sizeof(d));
	put(d + 8, (unsigned long long)-7, 4);
	put(d + 12, 16 | 8 << 16, 4);
	memcpy(d + 16, "i8042", 6);
	is(show(b, ev, d, 24, TDAT_PRINT_FMT), "irq=-7 name=i8042",
	    "irq: signed int and a __data_loc string");
	is(show(b, ev, d, 24, TDAT_PRINT_RAW), " irq=-7 name=i8042",
	    "irq: raw fields");
}

static void
test_softirq(struct tdat_event *ev, struct tdat_sbuf *b)
{
	unsigned char d[16];

	ok(ev && !ev->failed, "softirq: format: line compiled");
	if (ev == NULL)
		return;
	memset(d, 0, sizeof(d));
	put(d + 8, 1, 4);
	is(show(b, ev, d, 12, TDAT_PRINT_FMT), "vec=1 [action=TIMER]",
	    "softirq: sym");
	put(d + 8, 12, 4);
	is(show(b, ev, d, 12, TDAT_PRINT_FMT), "vec=12 [action=0xc]",
	    "softirq: sym without a name");
}

static void
test_kmalloc(struct tdat_event *ev, struct tdat_sbuf *b)
{
	unsigned char d[64];

	ok(ev && !ev->failed, "kmalloc: format: line compiled");
	if (ev == NULL)
		return;
	memset(d, 0, sizeof(d));
	put(d + 8, 0xffffffff81200032ULL, 8);
	put(d + 16, 0xffff8bb741886600ULL, 8);
	put(d + 24, 416, 8);
	put(d + 32, 512, 8);
	put(d + 40, 0x400 | 0x40 | 0x3, 8);
	put(d + 48, (unsigned long long)-1, 4);
	d[52] = 1;
	memcpy(d + 53, "kmalloc-512", 8);
	is(show(b, ev, d, 61, TDAT_PRINT_FMT),
	    "call_site=alloc_bprm+0x32 ptr=0xffff8bb741886600 bytes_req=416 "
	    "bytes_alloc=512 gfp_flags=__GFP_ZERO|__GFP_FS|0x3 node=-1 "
	    "accounted=true cache=kmalloc- <end>",
	    "kmalloc: ptr, hex, mask, if, strarray and \\<");
	d[52] = 0;
	put(d + 40, 0, 8);
	put(d + 8, 0x10, 8);
	is(show(b, ev, d, 61, TDAT_PRINT_FMT),
	    "call_site=0x10 ptr=0xffff8bb741886600 bytes_req=416 "
	    "bytes_alloc=512 gfp_flags= node=-1 accounted=false "
	    "cache=kmalloc- <end>", "kmalloc: no symbol, no flags, false");
}

int
main(void)
{
	struct tdat_events *s = tdat_events_new(8, 0);
	struct tdat_event *a, *b2, *c, *d;
	struct tdat_sbuf b;

	tdat_formats_all();
	tdat_sb_init(&b);
	if (s == NULL)
		return 1;
	tdat_events_add_kallsyms(s, kallsyms, strlen(kallsyms));
	a = add(s, irq, "irq");
	b2 = add(s, softirq, "irq");
	c = add(s, kmalloc, "kmem");
	d = add(s, broken, "test");
	tdat_events_finish(s, 0);
	test_irq(a, &b);
	test_softirq(b2, &b);
	test_kmalloc(c, &b);
	ok(d && d->failed, "an unknown field fails the format: line");
	tdat_sb_free(&b);
	tdat_events_free(s);
	printf("1..%d\n", ntest);
	return nfail != 0;
}
