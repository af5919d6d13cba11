/*
 * fuzz-select: libFuzzer harness for the selection (lib/select/select.c,
 * lib/select/filter.c) on real event formats: the input is a list of options,
 * one a line, applied to a fixture of t/data (TDAT_DATA, else t/data
 * from the current directory; t/fuzz/run points TDAT_DATA at small
 * copies made by t/fuzz/mkseeds) through the record stream:
 *
 *	f:N	the fixture (N mod the number of them)
 *	e:GLOB	-e		F:EXPR	-F
 *	p:LIST	--pid		c:GLOB	--comm
 *	C:LIST	--cpu		v:	-v
 *	s:TIME	--since		u:TIME	--until
 *	b:NAME	--buffer
 */
#include <stdint.h>
#include <stdlib.h>

#include "tdat-int.h"
#include "tdat-event.h"
#include "fuzz.h"

#define MAXOPT	16

static const char *fixtures[] = {
	"hebel23-driver-trace.dat", "labsisop-qemu-trace.dat",
	"kinmax-listen-trace.192.168.1.10_53616.dat",
	"x86_64-default-sched.dat", "s390x-v7-zstd-sched.dat",
};
#define NFIX	(sizeof(fixtures) / sizeof(fixtures[0]))

static struct tdat_blob aside[NFIX][2];

/*
 * Fixture n, opened once.  Its kallsyms and printk formats are set
 * aside (kept here, so still reachable): the selection does not read
 * them, and loading them for each input would be most of the work.
 * Its formats are read once in full here, print formats too: a
 * selection reads only their names and fields, and the print format
 * code they reach is reached still.
 */
static struct tdat_file *
fixture(unsigned n)
{
	static struct tdat_file *open[NFIX];
	const char *dir = getenv("TDAT_DATA");
	struct tdat_events *set;
	struct tdat_err e;
	char path[4096];

	n %= NFIX;
	if (open[n] == NULL) {
		snprintf(path, sizeof(path), "%s/%s", dir ? dir : "t/data",
		    fixtures[n]);
		if (tdat_open(path, &open[n], &e) < 0) {
			fprintf(stderr, "fuzz-select: %s: %s\n", path, e.msg);
			abort();
		}
		if (tdat_events_load(open[n], &set, &e) == 0) {
			tdat_events_finish(set, 0);
			tdat_events_resolve(set);
			tdat_events_free(set);
		}
		aside[n][0] = open[n]->kallsyms;
		aside[n][1] = open[n]->printk;
		memset(&open[n]->kallsyms, 0, sizeof(open[n]->kallsyms));
		memset(&open[n]->printk, 0, sizeof(open[n]->printk));
	}
	return open[n];
}

struct args {
	const char *ev[MAXOPT], *flt[MAXOPT], *comm[MAXOPT];
	int pid[MAXOPT];
	unsigned char cpus[64];
	unsigned fix;
};

/* A list of numbers "1,2-4" into cpus[] or pids; junk ends it. */
static void
list(const char *s, struct args *a, struct tdat_select_opts *o, int cpu)
{
	char *end;
	long lo, hi;
	int k;

	while (*s) {
		lo = strtol(s, &end, 10);
		if (end == s)
			return;
		hi = lo;
		if (*end == '-' && end[1])
			hi = strtol(end + 1, &end, 10);
		/* At most 64 of a range (lo never passes hi: LONG_MAX). */
		for (k = 0; lo <= hi && k < 64; k++) {
			if (cpu && lo >= 0 && lo < 64) {
				a->cpus[lo] = 1;
				o->cpus = a->cpus;
				o->ncpus = 64;
			} else if (!cpu && o->npids < MAXOPT)
				a->pid[o->npids++] = (int)lo;
			if (lo == hi)
				break;
			lo++;
		}
		s = *end == ',' ? end + 1 : end;
		if (end[0] != ',' && end[0] != '\0')
			return;
	}
}

static void
option(char *l, struct args *a, struct tdat_select_opts *o)
{
	char *v = l + 2;

	if (l[0] == '\0' || l[1] != ':')
		return;
	switch (l[0]) {
	case 'f': a->fix = (unsigned)strtoul(v, NULL, 10); break;
	case 'e': if (o->nevents < MAXOPT) a->ev[o->nevents++] = v; break;
	case 'F': if (o->nfilters < MAXOPT) a->flt[o->nfilters++] = v; break;
	case 'c': if (o->ncomms < MAXOPT) a->comm[o->ncomms++] = v; break;
	case 'p': list(v, a, o, 0); break;
	case 'C': list(v, a, o, 1); break;
	case 'v': o->invert = 1; break;
	case 's': o->has_since = tdat_parse_time(v, &o->since,
	    &o->since_rel) == 0; break;
	case 'u': o->has_until = tdat_parse_time(v, &o->until,
	    &o->until_rel) == 0; break;
	case 'b': o->buffer = v; break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tdat_reader_opts ro = { .buffer = -1 };
	struct tdat_select_opts o;
	struct tdat_select *sel;
	struct tdat_reader *r;
	struct tdat_record rec;
	struct tdat_file *f;
	struct tdat_err e;
	struct args a;
	char *text, *l, *next;
	int bad, n = 0;

	tdat_formats_all();
	if ((text = malloc(size + 1)) == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&o, 0, sizeof(o));
	memset(&a, 0, sizeof(a));
	for (l = text; l != NULL; l = next) {
		if ((next = strchr(l, '\n')) != NULL)
			*next++ = '\0';
		option(l, &a, &o);
	}
	o.events = a.ev;
	o.filters = a.flt;
	o.comms = a.comm;
	o.pids = a.pid;
	f = fixture(a.fix);
	if (tdat_select_open(&f, 1, &o, &sel, &bad, &e) == 0) {
		tdat_select_filter(sel, 0, &ro.filter);
		if (tdat_reader_open(f, &ro, &r, &e) == 0) {
			while (n++ < 100000 && tdat_reader_next(r, &rec,
			    &e) > 0)
				;
			tdat_reader_close(r);
		}
		tdat_select_close(sel);
	}
	free(text);
	return 0;
}
