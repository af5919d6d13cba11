/*
 * fuzz-filter: libFuzzer harness for the event filter parser and matcher
 * (lib/select/filter.c): the input is an expression, fields resolve from a small
 * table and match against fixed values.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"

static const struct { const char *name; int kind; } fields[] = {
	{ "pid", TDAT_FIELD_NUM }, { "prio", TDAT_FIELD_SIGNED },
	{ "comm", TDAT_FIELD_STR }, { "common_pid", TDAT_FIELD_NUM },
	{ "name", TDAT_FIELD_STR },
};

static int
lookup(void *arg, const char *name, int *kind)
{
	size_t i;

	(void)arg;
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (strcmp(name, fields[i].name) == 0) {
			*kind = fields[i].kind;
			return (int)i;
		}
	return -1;
}

static int
get(void *arg, int id, struct tdat_fval *v)
{
	static const char comm[16] = "bash";

	(void)arg;
	memset(v, 0, sizeof(*v));
	if (id == 2 || id == 4) {
		v->str = comm;
		v->len = sizeof(comm);
	} else
		v->num = id == 1 ? (uint64_t)-5 : 42;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tdat_filter *flt;
	struct tdat_sbuf sb;
	struct tdat_err e;
	char *expr, *events = NULL;
	size_t at;

	tdat_formats_all();
	if ((expr = malloc(size + 1)) == NULL)
		return 0;
	memcpy(expr, data, size);
	expr[size] = '\0';
	at = tdat_filter_split(expr, &events);
	free(events);
	if (tdat_filter_parse(expr + at, lookup, NULL, &flt, &e) == 0) {
		tdat_filter_match(flt, get, NULL);
		tdat_filter_free(flt);
	} else if (e.has_off) {
		tdat_sb_init(&sb);
		tdat_filter_caret(&sb, expr + at, (size_t)e.off, "  ");
		tdat_sb_free(&sb);
	}
	free(expr);
	return 0;
}
