/*
 * thread.c: how tdat's threads start, and a condition variable whose
 * waiter may poll before it sleeps (tdat-thread.h).
 *
 * Both are for a machine whose CPUs sit idle while a thread waits to be
 * run.  On the 2-vCPU VM:
 * - a thread started by a busy one first ran a median 2.5-2.9 ms after
 *   pthread_create() (0.1 to 5.4 ms, 41 starts, the starter spinning):
 *   it is queued on its starter's CPU until the idle one's balancing takes
 *   it.  Created on the CPUs other than its starter's, it ran after 0.17
 *   ms; it then takes back the starter's CPUs, so that it is not pinned.
 * - a thread asleep on a condition variable went on a median 0.56 ms
 *   after the signal, 1.7 ms or more in a quarter of the cases
 *   (tdat-verify's second thread handed the format files, 31 runs).
 *   Polling for the signal (the pause instruction between looks) left a
 *   zstd compression on the other vCPU as fast as before (274 against 271
 *   MB/s; a loop without pause: 261).  Polling costs a CPU, so only the
 *   waits between the phases of tdat-verify poll; the page read-ahead and
 *   the compression pipeline, whose threads are busy with more threads
 *   than CPUs, were slower polling (tdat-dump --records: 0.13-0.15 s
 *   against 0.11-0.14).
 */
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tdat-thread.h"

struct start {
	void *(*fn)(void *);
	void *arg;
	cpu_set_t cpus;		/* the starter's, given back */
};

static void *
started(void *arg)
{
	struct start s = *(struct start *)arg;

	free(arg);
	pthread_setaffinity_np(pthread_self(), sizeof(s.cpus), &s.cpus);
	return s.fn(s.arg);
}

int
tdat_thread_attr(pthread_attr_t *a, cpu_set_t *cpus)
{
	cpu_set_t other;
	int me = sched_getcpu();

	if (me < 0 || me >= CPU_SETSIZE ||
	    sched_getaffinity(0, sizeof(*cpus), cpus) != 0)
		return 0;
	other = *cpus;
	CPU_CLR(me, &other);
	if (CPU_COUNT(&other) == 0 || pthread_attr_init(a) != 0)
		return 0;
	if (pthread_attr_setaffinity_np(a, sizeof(other), &other) != 0) {
		pthread_attr_destroy(a);
		return 0;
	}
	return 1;
}

int
tdat_cpus(void)
{
	cpu_set_t cpus;
	long n;

	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
		return CPU_COUNT(&cpus);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > CPU_SETSIZE ? CPU_SETSIZE : (int)n;
}

int
tdat_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	pthread_attr_t a;
	struct start *s;
	int rc = -1;

	sigfillset(&all);
	sigdelset(&all, SIGBUS);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if ((s = malloc(sizeof(*s))) != NULL && tdat_thread_attr(&a, &s->cpus)) {
		s->fn = fn;
		s->arg = arg;
		rc = pthread_create(t, &a, started, s);
		pthread_attr_destroy(&a);
		if (rc == 0)
			s = NULL;
	}
	free(s);
	if (rc != 0)	/* one CPU, or no room: started here */
		rc = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* ------------------------------------------------------------------ */

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void
relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Whether cv's count of signals moved from g within its poll_ns. */
static int
polled(struct tdat_cv *cv, unsigned g)
{
	long long end = 0;
	unsigned i;

	for (i = 0;; i++) {
		if (atomic_load_explicit(&cv->gen, memory_order_acquire) != g)
			return 1;
		if (i % 64 == 0) {
			if (end == 0)
				end = now_ns() + cv->poll_ns;
			else if (now_ns() >= end)
				return 0;
		}
		relax();
	}
}

int
tdat_cv_init(struct tdat_cv *cv, long poll_ns)
{
	atomic_init(&cv->gen, 0);
	cv->poll_ns = poll_ns;
	return pthread_cond_init(&cv->c, NULL);
}

void
tdat_cv_destroy(struct tdat_cv *cv)
{
	pthread_cond_destroy(&cv->c);
}

void
tdat_cv_wait(struct tdat_cv *cv, pthread_mutex_t *mu)
{
	unsigned g = atomic_load_explicit(&cv->gen, memory_order_relaxed);
	int moved;

	if (cv->poll_ns <= 0) {
		pthread_cond_wait(&cv->c, mu);
		return;
	}
	pthread_mutex_unlock(mu);
	moved = polled(cv, g);
	pthread_mutex_lock(mu);
	/* signalled between the polling and the lock (signals come with
	 * the mutex held): the caller looks again at what it waits for */
	if (moved || atomic_load_explicit(&cv->gen, memory_order_relaxed) != g)
		return;
	pthread_cond_wait(&cv->c, mu);
}

void
tdat_cv_signal(struct tdat_cv *cv)
{
	atomic_fetch_add_explicit(&cv->gen, 1, memory_order_release);
	pthread_cond_signal(&cv->c);
}

void
tdat_cv_broadcast(struct tdat_cv *cv)
{
	atomic_fetch_add_explicit(&cv->gen, 1, memory_order_release);
	pthread_cond_broadcast(&cv->c);
}
