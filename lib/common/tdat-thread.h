/*
 * tdat-thread.h: how every thread besides the tool's own starts, and a
 * condition variable whose waiter may poll (lib/common/thread.c).
 */
#ifndef TDAT_THREAD_H
#define TDAT_THREAD_H

#include <pthread.h>
#include <sched.h>

/*
 * Every thread besides the tool's own starts here: fn(arg) on *t with
 * every signal blocked but SIGBUS.  So SIGINT, SIGTERM, SIGHUP and
 * SIGPIPE reach the thread that updates the temporary outputs (output.c's
 * handler must never run while that thread is halfway through its list),
 * and a mapped file cut short still raises SIGBUS where it is read
 * (blocked, the kernel would kill the process without cli.c's message).
 * It is started on the caller's CPUs but the one the caller runs on
 * (tdat_thread_attr()), and fn runs on all the caller's CPUs.
 * pthread_create()'s result.
 */
int tdat_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

/*
 * *a made to start a thread on the CPUs this thread may run on but the
 * one it runs on, those CPUs in *cpus: 1; 0 when there are no others
 * (nothing made).  pthread_attr_destroy() *a after use.
 */
int tdat_thread_attr(pthread_attr_t *a, cpu_set_t *cpus);

/* The CPUs this thread may run on (its affinity), at least 1. */
int tdat_cpus(void);

/*
 * A condition variable whose waiter may poll a while before it sleeps
 * (lib/common/thread.c): on a VM a sleeping thread can go on a
 * millisecond or more after the signal.  Signal and broadcast with the
 * mutex held; a wait may return with nothing changed, as
 * pthread_cond_wait() may, so the caller waits in a loop.
 */
struct tdat_cv {
	pthread_cond_t c;
	_Atomic unsigned gen;	/* signals so far */
	long poll_ns;		/* polled at most, per wait; 0: none */
};

/* What a wait between two phases of a job polls: they come within a
 * millisecond or so. */
#define TDAT_POLL_NS	2000000L

int	tdat_cv_init(struct tdat_cv *, long poll_ns);
void	tdat_cv_destroy(struct tdat_cv *);
void	tdat_cv_wait(struct tdat_cv *, pthread_mutex_t *);
void	tdat_cv_signal(struct tdat_cv *);
void	tdat_cv_broadcast(struct tdat_cv *);

#endif
