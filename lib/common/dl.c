/*
 * dl.c: the libraries loaded only when needed (tdat-dl.h).
 */
#include "tdat-common.h"
#include "tdat-dl.h"
#include "tdat-output.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t dl_lock = PTHREAD_MUTEX_INITIALIZER;

/* dlopen and every dlsym of l: 0, or a negative code with *e filled. */
static int
dl_open(struct tdat_dl *l, struct tdat_err *e)
{
	void **addr;
	void *h;
	size_t i;

	h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
		return tdat_fail_nooff(e, TDAT_EIO, "%s need %s: %s", l->need,
		    l->soname, dlerror());
	if ((addr = calloc(l->n ? l->n : 1, sizeof(*addr))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	for (i = 0; i < l->n; i++) {
		dlerror();
		if ((addr[i] = dlsym(h, l->names[i])) == NULL) {
			free(addr);
			return tdat_fail_nooff(e, TDAT_EIO, "%s need %s with "
			    "%s: not found in it", l->need, l->soname,
			    l->names[i]);
		}
	}
	l->fill(addr);
	free(addr);
	return 0;
}

int
tdat_dl_load(struct tdat_dl *l, struct tdat_err *e)
{
	int rc = 0;

	if (tdat_dl_ready(l))
		return 0;
	pthread_mutex_lock(&dl_lock);
	if (!l->ready && (rc = dl_open(l, e)) == 0)
		__atomic_store_n(&l->ready, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&dl_lock);
	return rc;
}

void
tdat_dl_need(struct tdat_dl *l)
{
	struct tdat_err e;

	if (tdat_dl_load(l, &e) == 0)
		return;
	tdat_out_remove_live();
	fprintf(stderr, "%s: %s\n", program_invocation_short_name, e.msg);
	exit(2);
}
