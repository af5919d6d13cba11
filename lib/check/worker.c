/*
 * worker.c: tdat-verify's second thread, started once for a file where
 * the formats' thread was (formats/tracedat/tracedat-verify.c) and
 * handed each phase's share in turn: the texts and the format files
 * (rules.c), then the pages (cpus.c), where each phase started a thread
 * of its own.  The pages' share then goes to a thread that waits on a
 * condition variable, which runs sooner than one just created when the
 * other vCPU is busy: on the 2-vCPU VM at load 3.5, a new thread first
 * ran a median 1.7-2.0 ms after pthread_create(), a waiting one 32-36 us
 * after the signal (a micro-benchmark, 60 of each).  Started before the
 * file's open instead, it ran later for the formats (median 0.58 -> 1.64
 * ms, load 1.1-1.3): a new thread waits as long there.  With the other
 * vCPU idle, a waiting thread went on 0.56 ms after the signal (median;
 * a quarter 1.7 ms or more), so this thread and the pages' pool
 * (cpus.c) poll for their signals for up to TDAT_POLL_NS before they
 * sleep (lib/common/thread.c): on ../shared/bench's v6 twin the formats
 * were taken 0.12 ms after they were handed over, not 0.56, and the
 * pages 0.52 ms, not 1.17 (medians of 31).
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "tdat-int.h"
#include "tdat-check.h"
#include "tdat-thread.h"

struct tdat_check_worker {
	pthread_mutex_t mu;
	struct tdat_cv cv;
	pthread_t t;
	void *(*fn)(void *);	/* the work handed over, not taken yet */
	void *arg;
	int busy;		/* handed over, not done */
	int quit;
};

static void *
work_loop(void *arg)
{
	struct tdat_check_worker *w = arg;
	void *(*fn)(void *);
	void *a;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->quit && w->fn == NULL)
			tdat_cv_wait(&w->cv, &w->mu);
		if (w->fn == NULL)
			break;
		fn = w->fn;
		a = w->arg;
		w->fn = NULL;
		pthread_mutex_unlock(&w->mu);
		fn(a);
		pthread_mutex_lock(&w->mu);
		w->busy = 0;
		tdat_cv_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* A file this large has pages worth a second thread (cpus.c's
 * MIN_PAGES_2) unless most of it is metadata. */
#define MIN_FILE	(1u << 20)

struct tdat_check_worker *
tdat_check_worker_new(const struct tdat_verify_opts *o, uint64_t fsize)
{
	struct tdat_check_worker *w;

	if (o->threads == 1 || (o->threads < 2 && (fsize < MIN_FILE ||
	    tdat_cpus() < 2)))
		return NULL;
	if ((w = calloc(1, sizeof(*w))) == NULL)
		return NULL;
	pthread_mutex_init(&w->mu, NULL);
	tdat_cv_init(&w->cv, TDAT_POLL_NS);
	if (tdat_thread_start(&w->t, work_loop, w) != 0) {
		tdat_cv_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		free(w);
		return NULL;
	}
	return w;
}

void
tdat_check_worker_free(struct tdat_check_worker *w)
{
	if (w == NULL)
		return;
	pthread_mutex_lock(&w->mu);
	w->quit = 1;
	tdat_cv_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->t, NULL);
	tdat_cv_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
}

int
tdat_check_spawn(struct tdat_check *v, struct tdat_check_thread *t,
    void *(*fn)(void *), void *arg)
{
	struct tdat_check_worker *w = v->worker;

	t->w = NULL;
	if (w == NULL)
		return tdat_thread_start(&t->t, fn, arg);
	pthread_mutex_lock(&w->mu);
	if (w->busy) {		/* each phase joins its share first */
		pthread_mutex_unlock(&w->mu);
		return tdat_thread_start(&t->t, fn, arg);
	}
	w->fn = fn;
	w->arg = arg;
	w->busy = 1;
	tdat_cv_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	t->w = w;
	return 0;
}

void
tdat_check_join(struct tdat_check_thread *t)
{
	struct tdat_check_worker *w = t->w;

	if (w == NULL) {
		pthread_join(t->t, NULL);
		return;
	}
	pthread_mutex_lock(&w->mu);
	while (w->busy)
		tdat_cv_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}
