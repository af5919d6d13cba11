/*
 * findings.c: the findings of a check (lib/check/tdat-check.h).  They go
 * to the caller's callback in the order a check on one thread finds
 * them.  Each section (a container, the formats, each CPU's pages) stops
 * at its first error unless keep_going is set; a warning of one kind is
 * reported once per section unless keep_going is set.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "tdat-check.h"
#include "tdat-thread.h"

void
tdat_check_section(struct tdat_check *v)
{
	v->sec_stop = 0;
	v->nwarned = 0;
}

int
tdat_check_nomem(struct tdat_check *v)
{
	tdat_fail_nooff(v->e, TDAT_ENOMEM, "out of memory");
	v->fatal = 1;
	return 1;
}

/*
 * Whether to use a second thread for work of this size: o->threads 1
 * never, 2 always (the tests), 0 when the process may run on a second
 * CPU (tdat_cpus(): taskset -c 0 makes one) and the work is worth a
 * thread.
 */
int
tdat_check_two_threads(const struct tdat_check *v, uint64_t work, uint64_t min)
{
	if (v->o->threads == 1)
		return 0;
	if (v->o->threads >= 2)
		return 1;
	return work >= min && tdat_cpus() >= 2;
}

/* A warning of a kind the section reported already: counted only
 * (unless keep_going, or ahead). */
static int
repeated(const struct tdat_check *v, int sev, const char *kind)
{
	int i;

	if (sev != TDAT_FIND_WARNING || v->o->keep_going || v->ahead)
		return 0;
	for (i = 0; i < v->nwarned; i++)
		if (v->warned[i] == kind)
			return 1;
	return 0;
}

int
tdat_check_report(struct tdat_check *v, const struct tdat_finding *fd)
{
	if (fd->severity == TDAT_FIND_ERROR)
		v->st->errors++;
	else
		v->st->warnings++;
	if (v->stop)
		return 1;
	if (repeated(v, fd->severity, fd->kind)) {
		v->st->unreported++;
		return 0;
	}
	if (fd->severity == TDAT_FIND_WARNING && !v->o->keep_going &&
	    !v->ahead && v->nwarned < TDAT_CHECK_WARN_KINDS)
		v->warned[v->nwarned++] = fd->kind;
	if (v->o->found && v->o->found(v->o->arg, fd))
		v->stop = 1;
	if (fd->severity == TDAT_FIND_ERROR && !v->o->keep_going)
		v->sec_stop = 1;
	return v->stop || v->sec_stop;
}

/*
 * Report a finding.  Returns nonzero when the current section should
 * stop: after its first error (unless keep_going), or when the callback
 * asks.
 */
int
tdat_check_find(struct tdat_check *v, int sev, const char *kind,
    int has_off, uint64_t off, const struct tdat_buffer *b, int cpu,
    long long page, const char *fmt, ...)
{
	struct tdat_finding fd;
	char msg[320], bname[64];
	va_list ap;

	memset(&fd, 0, sizeof(fd));
	fd.severity = sev;
	fd.kind = kind;
	if (!v->stop && repeated(v, sev, kind))
		return tdat_check_report(v, &fd);	/* counted, not said */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fd.has_off = has_off;
	fd.off = off;
	if (b) {
		tdat_vis(bname, sizeof(bname), b->name ? b->name : "");
		fd.buffer = bname;
	}
	fd.cpu = cpu;
	fd.page = page;
	fd.msg = msg;
	return tdat_check_report(v, &fd);
}

void
tdat_check_free(struct tdat_check *v)
{
	tdat_ring_events_free(&v->events);
	free(v->ev);
	free(v->seen);
	v->ev = NULL;
	v->seen = NULL;
}
