/*
 * test_filter.c: unit tests of lib/select/filter.c, the event-filter parser and
 * evaluator, against plain field names (no event formats), and of the
 * time arguments of lib/select.c.  TAP output.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "tap.h"


/* A record of four fields: two numbers, one signed, one string. */
static const struct {
	const char *name;
	int kind;
} fields[] = {
	{ "prev_pid", TDAT_FIELD_NUM },
	{ "prio", TDAT_FIELD_SIGNED },
	{ "comm", TDAT_FIELD_STR },
	{ "common_flags", TDAT_FIELD_NUM },
};

struct rec {
	uint64_t prev_pid;
	int64_t prio;
	const char *comm;
	uint64_t flags;
};

static int
lookup(void *arg, const char *name, int *kind)
{
	size_t i;

	(void)arg;
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (strcmp(fields[i].name, name) == 0) {
			*kind = fields[i].kind;
			return (int)i;
		}
	return -1;
}

static int
get(void *arg, int id, struct tdat_fval *v)
{
	const struct rec *r = arg;

	switch (id) {
	case 0: v->num = r->prev_pid; return 0;
	case 1: v->num = (uint64_t)r->prio; return 0;
	case 2: v->str = r->comm; v->len = strlen(r->comm) + 4; return 0;
	case 3: v->num = r->flags; return 0;
	}
	return -1;
}

/* Does expr match r?  -1 if it does not parse. */
static int
match(const char *expr, const struct rec *r)
{
	struct tdat_filter *f;
	struct tdat_err e = { 0 };
	int m;

	if (tdat_filter_parse(expr, lookup, NULL, &f, &e) < 0)
		return -1;
	m = tdat_filter_match(f, get, (void *)r);
	tdat_filter_free(f);
	return m;
}

/* Does expr fail at position pos with reason why? */
static void
fails(const char *expr, size_t pos, const char *why)
{
	struct tdat_filter *f = NULL;
	struct tdat_err e = { 0 };
	int rc;

	rc = tdat_filter_parse(expr, lookup, NULL, &f, &e);
	ok(rc == TDAT_EUSAGE && e.has_off && e.off == pos &&
	    strcmp(e.msg, why) == 0, "'%s' fails at %zu with '%s' (got %d at "
	    "%llu: '%s')", expr, pos, why, rc, (unsigned long long)e.off,
	    e.msg);
	tdat_filter_free(f);
}

static void
test_match(void)
{
	/* comm is NUL-padded on purpose: "bash\0\0\0\0" */
	char comm[16] = "bash";
	struct rec r = { 42, -5, comm, 0x3 };

	ok(match("prev_pid == 42", &r) == 1, "== on a number");
	ok(match("prev_pid != 42", &r) == 0, "!= on a number");
	ok(match("prev_pid < 43 && prev_pid <= 42", &r) == 1, "< and <=");
	ok(match("prev_pid > 41 && prev_pid >= 42", &r) == 1, "> and >=");
	ok(match("prev_pid > 42", &r) == 0, "> is strict");
	ok(match("prev_pid == 0x2a", &r) == 1, "hex values");
	ok(match("common_flags & 2", &r) == 1, "& tests bits");
	ok(match("common_flags & 4", &r) == 0, "& with no common bit");
	ok(match("prio < 0", &r) == 1, "signed fields compare signed");
	ok(match("prio == -5", &r) == 1, "negative values");
	ok(match("prev_pid < 0", &r) == 0, "unsigned fields compare unsigned");
	ok(match("comm == bash", &r) == 1, "== on a string, bare word");
	ok(match("comm == \"bash\"", &r) == 1, "== on a quoted string");
	ok(match("comm != 'bash'", &r) == 0, "!= on a string");
	ok(match("comm == bas", &r) == 0, "== is not a prefix match");
	ok(match("comm ~ \"ba*\"", &r) == 1, "~ globs");
	ok(match("comm ~ \"b?sh\"", &r) == 1, "~ with ?");
	ok(match("comm ~ \"z*\"", &r) == 0, "~ not matching");
	ok(match("prev_pid == 1 || comm == bash", &r) == 1, "||");
	ok(match("prev_pid == 1 && comm == bash", &r) == 0, "&&");
	ok(match("!(prev_pid == 1)", &r) == 1, "! and parentheses");
	ok(match("prev_pid == 1 || prev_pid == 2 && comm == bash", &r) == 0,
	    "&& binds tighter than ||");
	ok(match("(prev_pid == 1 || prev_pid == 42) && comm == bash", &r) ==
	    1, "parentheses group");
	ok(match("  prev_pid==42&&comm==bash  ", &r) == 1, "no spaces needed");
}

static void
test_errors(void)
{
	fails("prev_pidd > 0", 0, "Field not found");
	fails("prev_pid > 0 && nosuch == 1", 16, "Field not found");
	fails("prev_pid >", 10, "Missing field name and/or value");
	fails("prev_pid", 8, "Missing field name and/or value");
	fails("prev_pid = 1", 9, "Invalid operator");
	fails("prev_pid == abc", 12, "Illegal integer value");
	fails("prev_pid ~ 1", 9, "Illegal operation for field type");
	fails("comm < 1", 5, "Illegal operation for field type");
	fails("(prev_pid == 1", 0, "Unbalanced parens");
	fails("prev_pid == 1)", 13, "Unbalanced parens");
	fails("prev_pid == 1 prio == 2", 14, "Syntax error");
	fails("", 0, "Meaningless filter expression");
	fails("comm == \"bash", 8, "Unterminated string");
	fails("prev_pid == 1 &&", 16, "Missing field name and/or value");
}

static void
test_split(void)
{
	char *ev;
	size_t at;

	at = tdat_filter_split("sched_switch: prev_pid > 0", &ev);
	ok(ev && strcmp(ev, "sched_switch") == 0 && at == 13,
	    "split EVENT: EXPR");
	free(ev);
	at = tdat_filter_split("sched:sched_switch,irq:*: prev_pid>0", &ev);
	ok(ev && strcmp(ev, "sched:sched_switch,irq:*") == 0 && at == 25,
	    "split SYSTEM:EVENT,...: EXPR");
	free(ev);
	at = tdat_filter_split("sched:sched_switch:prev_pid>0", &ev);
	ok(ev && strcmp(ev, "sched:sched_switch") == 0 && at == 19,
	    "split without a space");
	free(ev);
	at = tdat_filter_split("prev_pid > 0", &ev);
	ok(ev == NULL && at == 0, "no events: every event");
	at = tdat_filter_split("comm == \"a:b\"", &ev);
	ok(ev == NULL && at == 0, "a colon inside a value is not a split");
}

static void
test_time(void)
{
	static const struct {
		const char *s;
		int rc, rel;
		uint64_t ns;
	} t[] = {
		{ "2", 0, 0, 2000000000ULL },
		{ "1.5", 0, 0, 1500000000ULL },
		{ "+0.05", 0, 1, 50000000ULL },
		{ "1500ms", 0, 0, 1500000000ULL },
		{ "1500000000ns", 0, 0, 1500000000ULL },
		{ "12us", 0, 0, 12000ULL },
		{ "+3s", 0, 1, 3000000000ULL },
		{ "21.1234567891", 0, 0, 21123456789ULL },
		{ "1.2.3", -1, 0, 0 },
		{ "abc", -1, 0, 0 },
		{ "", -1, 0, 0 },
		{ "+", -1, 1, 0 },
		{ "5x", -1, 0, 0 },
		{ "99999999999999999999", -1, 0, 0 },
	};
	uint64_t ns;
	size_t i;
	int rc, rel;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ns = 0;
		rc = tdat_parse_time(t[i].s, &ns, &rel);
		ok(rc == t[i].rc && (rc < 0 || (ns == t[i].ns &&
		    rel == t[i].rel)), "time '%s' gives %d, %llu ns", t[i].s,
		    rc, (unsigned long long)ns);
	}
}

static void
test_caret(void)
{
	struct tdat_sbuf sb;

	tdat_sb_init(&sb);
	tdat_filter_caret(&sb, "sched_switch: prev_pidd > 0", 14, "  ");
	ok(strcmp(tdat_sb_str(&sb), "  sched_switch: prev_pidd > 0\n"
	    "                ^\n") == 0, "caret under the fault");
	tdat_sb_free(&sb);
}

int
main(void)
{
	tdat_formats_all();
	test_match();
	test_errors();
	test_split();
	test_time();
	test_caret();
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
