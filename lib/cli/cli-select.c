/*
 * cli-select.c: the selection options every tool that reads events takes
 * (-e, -F, --pid, --comm, -v, --cpu, --since, --until, --buffer; see
 * tdat-select(7)), parsed into a struct tdat_select_opts, and the message
 * for a bad -F, with a caret under the fault.  Only bin/ calls these.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"

/* Append a to the list *v of *n entries. */
static void
add_str(const char ***v, size_t *n, const char *a)
{
	const char **p;

	if ((p = realloc(*v, (*n + 1) * sizeof(**v))) == NULL)
		tdat_die(2, "out of memory");
	p[(*n)++] = a;
	*v = p;
}

static void
add_pids(struct tdat_select_args *sa, const char *list)
{
	char tok[32];
	const char *p = list;
	size_t n;
	int *v;

	for (;;) {
		n = strcspn(p, ",");
		if (n >= sizeof(tok))
			tdat_usage_error("--pid: bad pid '%.*s'", (int)n, p);
		memcpy(tok, p, n);
		tok[n] = '\0';
		if ((v = realloc(sa->pids, (sa->o.npids + 1) *
		    sizeof(*v))) == NULL)
			tdat_die(2, "out of memory");
		sa->pids = v;
		v[sa->o.npids++] = (int)tdat_cli_num("--pid", tok, 0,
		    2147483647);
		if (p[n] == '\0')
			break;
		p += n + 1;
	}
	sa->o.pids = sa->pids;
}

/* TDAT_FULL_DECODE set in the environment: --since and --until decode
 * every event outside their range (to check the fast path against). */
static void
set_time(struct tdat_select_opts *o, const char *what, const char *a,
    uint64_t *v, int *rel, int *has)
{
	if (tdat_parse_time(a, v, rel) < 0)
		tdat_usage_error("%s: bad time '%s' (seconds, or a number with "
		    "s, ms, us or ns; + for relative)", what, a);
	*has = 1;
	o->full_decode = getenv("TDAT_FULL_DECODE") != NULL;
}

int
tdat_select_arg(struct tdat_select_args *sa, int c, const char *arg)
{
	struct tdat_select_opts *o = &sa->o;

	switch (c) {
	case 'e':
		add_str(&sa->events, &o->nevents, arg);
		o->events = sa->events;
		break;
	case 'F':
		add_str(&sa->filters, &o->nfilters, arg);
		o->filters = sa->filters;
		break;
	case TDAT_SEL_PID:
		add_pids(sa, arg);
		break;
	case TDAT_SEL_COMM:
		add_str(&sa->comms, &o->ncomms, arg);
		o->comms = sa->comms;
		break;
	case 'v':
		o->invert = 1;
		break;
	case TDAT_SEL_CPU:
		free(sa->cpus);
		sa->cpus = tdat_cli_cpus("--cpu", arg, &o->ncpus);
		o->cpus = sa->cpus;
		break;
	case TDAT_SEL_SINCE:
		set_time(o, "--since", arg, &o->since, &o->since_rel,
		    &o->has_since);
		break;
	case TDAT_SEL_UNTIL:
		set_time(o, "--until", arg, &o->until, &o->until_rel,
		    &o->has_until);
		break;
	case TDAT_SEL_BUFFER:
		o->buffer = arg;
		break;
	default:
		return 0;
	}
	sa->given = 1;
	return 1;
}

/* A bad -F: the reason, the filter, a caret under the fault. */
static int
bad_filter(const char *arg, const struct tdat_err *e)
{
	struct tdat_sbuf sb;

	tdat_sb_init(&sb);
	tdat_filter_caret(&sb, arg, (size_t)e->off, "  ");
	tdat_warn("bad filter: %s", e->msg);
	fputs(tdat_sb_str(&sb), stderr);
	tdat_sb_free(&sb);
	return 2;
}

int
tdat_select_cli_open(const struct tdat_select_args *sa,
    struct tdat_file *const *files, size_t n, struct tdat_select **out)
{
	struct tdat_err e = { 0 }, ke = { 0 };
	size_t i;
	int bad;

	if (tdat_select_open(files, n, &sa->o, out, &bad, &e) == 0)
		return 0;
	/* an input's kallsyms left loading fail first, as they would have
	 * in its open (tdat-cat) */
	for (i = 0; i < n; i++)
		if (tdat_kallsyms_wait(files[i], &ke) < 0)
			return tdat_report_err(tdat_file_path(files[i]), &ke);
	if (bad >= 0)
		return bad_filter(sa->o.filters[bad], &e);
	tdat_warn("%s", e.msg);
	bad = tdat_exit_status(e.code);
	return bad ? bad : 2;
}

void
tdat_select_args_free(struct tdat_select_args *sa)
{
	free(sa->events);
	free(sa->filters);
	free(sa->comms);
	free(sa->pids);
	free(sa->cpus);
	memset(sa, 0, sizeof(*sa));
}

int
tdat_cli_inputs_open(char *const *paths, size_t n,
    struct tdat_select_args *sa, struct tdat_cli_inputs *in)
{
	return tdat_cli_inputs_open_ex(paths, n, sa, NULL, in);
}

int
tdat_cli_inputs_open_ex(char *const *paths, size_t n,
    struct tdat_select_args *sa, const struct tdat_open_opts *oo,
    struct tdat_cli_inputs *in)
{
	size_t k;
	int st;

	memset(in, 0, sizeof(*in));
	if ((st = tdat_cli_open_all_ex(paths, n, oo, &in->files)) != 0)
		return st;
	in->n = n;
	for (k = 0; k < n; k++)
		in->size += tdat_file_size(in->files[k]);
	sa->o.separate = 1;
	if (sa->given && (st = tdat_select_cli_open(sa, in->files, n,
	    &in->sel)) != 0) {
		tdat_cli_close_all(in->files, n);
		memset(in, 0, sizeof(*in));
		return st;
	}
	return 0;
}

void
tdat_cli_inputs_close(struct tdat_cli_inputs *in)
{
	tdat_select_close(in->sel);
	tdat_cli_close_all(in->files, in->n);
	memset(in, 0, sizeof(*in));
}
