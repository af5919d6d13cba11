/*
 * fieldkind.c: how the outputs that give a field's value (JSON, tables,
 * CTF) read a field of a format file: the element size of an array whose
 * format gives none, text against bytes, and which integers are
 * addresses or kernel symbols (from the types, the print format's %p
 * conversions and the fields trace-cmd's plugins print as symbols).
 */
#include <string.h>

#include "event-int.h"
#include "tdat-int.h"

int
tdat_field_elem_size(const char *type, int lsize)
{
	if (strstr(type, "char") || strstr(type, "u8") || strstr(type, "s8"))
		return 1;
	if (strstr(type, "short") || strstr(type, "16"))
		return 2;
	if (strstr(type, "long long") || strstr(type, "64"))
		return 8;
	if (strstr(type, "long"))
		return lsize;
	if (strstr(type, "int") || strstr(type, "32"))
		return 4;
	return 1;
}

int
tdat_field_is_text(const char *type)
{
	return strstr(type, "char") != NULL &&
	    strstr(type, "unsigned char") == NULL;
}

/* The field a print-format argument reads; *array when it is indexed. */
static const struct tdat_field *
arg_field(const struct parg *a, int *array)
{
	while (a && a->type == PA_TYPE)
		a = a->left;
	*array = 0;
	if (a && a->type == PA_OP && a->str && strcmp(a->str, "[") == 0) {
		*array = 1;
		a = a->left;
		while (a && a->type == PA_TYPE)
			a = a->left;
	}
	return a && a->type == PA_FIELD ? a->field : NULL;
}

/* The fields trace-cmd's plugins print as kernel symbols. */
static int
plugin_sym(const struct tdat_event *ev, const char *field)
{
	static const char *const t[][3] = {
		{ "ftrace", "function", "ip" },
		{ "ftrace", "function", "parent_ip" },
		{ "ftrace", "kernel_stack", "caller" },
		{ "ftrace", "funcgraph_entry", "func" },
		{ "ftrace", "funcgraph_exit", "func" },
		{ "timer", "hrtimer_expire_entry", "function" },
		{ "timer", "hrtimer_start", "function" },
		{ "kmem", "kfree", "call_site" },
		{ "kmem", "kmalloc", "call_site" },
		{ "kmem", "kmalloc_node", "call_site" },
		{ "kmem", "kmem_cache_alloc", "call_site" },
		{ "kmem", "kmem_cache_alloc_node", "call_site" },
		{ "kmem", "kmem_cache_free", "call_site" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(ev->name, t[i][1]) == 0 &&
		    strcmp(field, t[i][2]) == 0 &&
		    strcmp(ev->system, t[i][0]) == 0)
			return 1;
	return 0;
}

void
tdat_field_kinds(const struct tdat_event *ev, unsigned char *kind)
{
	const struct tdat_print *p = ev->failed ? NULL : ev->print;
	const struct tdat_field *f;
	const char *q;
	int i, k, arr;

	for (i = 0; i < ev->nfields; i++) {
		f = &ev->fields[i];
		if (f->flags & TDAT_FLD_POINTER)
			kind[i] = TDAT_KIND_ADDR;
		if (plugin_sym(ev, f->name))
			kind[i] = TDAT_KIND_SYM;
	}
	for (k = 0; p && k < p->n; k++) {
		if (p->it[k].type != PP_POINTER ||
		    (f = arg_field(p->it[k].arg, &arr)) == NULL ||
		    f < ev->fields || f >= ev->fields + ev->nfields)
			continue;
		/* An array printed whole (%pI4, %pM, %*ph) is bytes. */
		if ((f->flags & (TDAT_FLD_ARRAY | TDAT_FLD_DYNAMIC)) && !arr)
			continue;
		i = (int)(f - ev->fields);
		q = strchr(p->it[k].format, 'p');
		if (q && q[1] != '\0' && strchr("FfSs", q[1]))
			kind[i] = TDAT_KIND_SYM;
		else if (kind[i] == TDAT_KIND_INT)
			kind[i] = TDAT_KIND_ADDR;
	}
}

int
tdat_type_size(struct tdat_file *f)
{
	const struct tdat_blob *b = NULL;
	const char *sys = "ftrace";
	struct tdat_event *ev;
	struct tdat_err e;
	int n = 2;

	if (f->nftrace)
		b = &f->ftrace[0];
	else if (f->nsys && f->sys[0].nev) {
		b = &f->sys[0].ev[0];
		sys = f->sys[0].name;
	}
	if (b && tdat_event_parse((const char *)b->p, b->len, sys, f->lsize,
	    f->big, &ev, &e) == 0) {
		if (ev->ncommon > 0 && strcmp(ev->common[0].name,
		    "common_type") == 0 && ev->common[0].size > 0 &&
		    ev->common[0].size <= 4)
			n = ev->common[0].size;
		tdat_event_free(ev);
	}
	return n;
}
