/*
 * test_thread.c: unit tests of lib/common/thread.c: a thread started
 * off its starter's CPU (tdat_thread_attr(), tdat_thread_start()) that
 * then runs on all the starter's CPUs with every signal but SIGBUS
 * blocked, and struct tdat_cv: a polling wait sees a signal without
 * sleeping, and no wake-up is lost polling or not.  TAP.
 */
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tdat-thread.h"
#include "tap.h"

static void
skip(const char *why)
{
	printf("ok %d # SKIP %s\n", ++ntest, why);
}

static void
nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* What a started thread saw of itself. */
struct seen {
	cpu_set_t cpus;
	int got;		/* its CPUs read */
	int intr, bus;		/* SIGINT, SIGBUS blocked */
};

static void *
look(void *arg)
{
	struct seen *s = arg;
	sigset_t cur;

	s->got = pthread_getaffinity_np(pthread_self(), sizeof(s->cpus),
	    &s->cpus) == 0;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	s->intr = sigismember(&cur, SIGINT) == 1;
	s->bus = sigismember(&cur, SIGBUS) == 1;
	return NULL;
}

/* tdat_thread_attr() on the CPUs cpus (this thread moved there), and
 * where tdat_thread_start() runs its thread. */
static void
test_start(void)
{
	cpu_set_t all, one, set;
	pthread_attr_t a;
	struct seen s;
	pthread_t t;
	int me = -1, again, i, made = 0, tries;

	CPU_ZERO(&all);
	if (sched_getaffinity(0, sizeof(all), &all) != 0 ||
	    CPU_COUNT(&all) < 2) {
		skip("tdat_thread_attr(): fewer than two CPUs to run on");
		skip("tdat_thread_start(): fewer than two CPUs to run on");
	} else {
		/* the CPU it runs on read before and after: the same */
		for (tries = 0; tries < 100; tries++) {
			me = sched_getcpu();
			made = tdat_thread_attr(&a, &set);
			again = sched_getcpu();
			if (!made || me == again)
				break;
			pthread_attr_destroy(&a);
		}
		CPU_ZERO(&one);
		if (made) {
			pthread_attr_getaffinity_np(&a, sizeof(one), &one);
			pthread_attr_destroy(&a);
		}
		CPU_CLR(me, &all);
		ok(made && !CPU_ISSET(me, &one) && CPU_EQUAL(&one, &all),
		    "tdat_thread_attr(): a thread made to start on every CPU "
		    "the caller may run on but its own (%d of them, CPU %d "
		    "left out)", CPU_COUNT(&one), me);
		CPU_SET(me, &all);
		ok(made && CPU_EQUAL(&set, &all), "tdat_thread_attr(): the "
		    "caller's CPUs given back (%d)", CPU_COUNT(&set));
		memset(&s, 0, sizeof(s));
		made = tdat_thread_start(&t, look, &s) == 0 &&
		    pthread_join(t, NULL) == 0;
		ok(made && s.got && CPU_EQUAL(&s.cpus, &all) && s.intr &&
		    !s.bus,
		    "tdat_thread_start(): the thread runs on all the "
		    "caller's CPUs (%d), every signal but SIGBUS blocked",
		    CPU_COUNT(&s.cpus));
	}
	/* pinned to one CPU: nowhere else to start */
	for (i = 0; i < CPU_SETSIZE && !CPU_ISSET(i, &all); i++)
		;
	CPU_ZERO(&one);
	CPU_SET(i, &one);
	if (i == CPU_SETSIZE || sched_setaffinity(0, sizeof(one), &one) != 0) {
		skip("tdat_thread_attr(): cannot run on one CPU");
		skip("tdat_thread_start(): cannot run on one CPU");
		return;
	}
	made = tdat_thread_attr(&a, &set);
	if (made)
		pthread_attr_destroy(&a);
	ok(!made, "tdat_thread_attr(): no other CPU to start on, nothing "
	    "made");
	memset(&s, 0, sizeof(s));
	made = tdat_thread_start(&t, look, &s) == 0 &&
	    pthread_join(t, NULL) == 0;
	ok(made && s.got && CPU_EQUAL(&s.cpus, &one) && s.intr && !s.bus,
	    "tdat_thread_start() on one CPU: started there, signals blocked "
	    "as before");
	sched_setaffinity(0, sizeof(all), &all);
}

/* ------------------------------------------------------------------ */

struct waiter {
	pthread_mutex_t mu;
	struct tdat_cv cv;
	int flag;		/* what the waiter waits for */
	atomic_int woke;	/* it returned from its wait */
	atomic_int released;	/* the signal was sent */
	int woke_first;	/* it returned before the signal */
};

/* One wait, with nothing to wait for in the loop's sense: it returns
 * when the count moves or a signal comes. */
static void *
wait_once(void *arg)
{
	struct waiter *w = arg;

	pthread_mutex_lock(&w->mu);
	atomic_store(&w->woke, -1);	/* waiting */
	tdat_cv_wait(&w->cv, &w->mu);
	w->woke_first = !atomic_load(&w->released);
	atomic_store(&w->woke, 1);
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* A wait polling up to poll_ns, the count moved (no signal) after 20 ms,
 * the signal after 400 ms: whether the wait returned before the signal;
 * -1 if it could not run. */
static int
poll_sees(long poll_ns)
{
	struct waiter w;
	pthread_t t;
	int i;

	memset(&w, 0, sizeof(w));
	pthread_mutex_init(&w.mu, NULL);
	tdat_cv_init(&w.cv, poll_ns);
	if (pthread_create(&t, NULL, wait_once, &w) != 0)
		return -1;
	for (i = 0; i < 1000 && atomic_load(&w.woke) == 0; i++)
		nap_ms(1);
	nap_ms(20);
	atomic_fetch_add(&w.cv.gen, 1);
	for (i = 0; i < 400 && atomic_load(&w.woke) != 1; i++)
		nap_ms(1);
	pthread_mutex_lock(&w.mu);
	atomic_store(&w.released, 1);
	tdat_cv_broadcast(&w.cv);
	pthread_mutex_unlock(&w.mu);
	pthread_join(t, NULL);
	tdat_cv_destroy(&w.cv);
	pthread_mutex_destroy(&w.mu);
	return w.woke_first;
}

/* Two threads handing a turn to each other n times over one mutex and
 * variable: each waits in a loop for its turn. */
struct pingpong {
	pthread_mutex_t mu;
	struct tdat_cv cv;
	int turn;		/* 0: the main thread's, 1: the other's */
	long n, done;
};

static void *
pong(void *arg)
{
	struct pingpong *p = arg;
	long i;

	pthread_mutex_lock(&p->mu);
	for (i = 0; i < p->n; i++) {
		while (p->turn != 1)
			tdat_cv_wait(&p->cv, &p->mu);
		p->turn = 0;
		p->done++;
		tdat_cv_signal(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static long
pingpong(long poll_ns, long n)
{
	struct pingpong p;
	pthread_t t;
	long i;

	memset(&p, 0, sizeof(p));
	pthread_mutex_init(&p.mu, NULL);
	tdat_cv_init(&p.cv, poll_ns);
	p.n = n;
	if (pthread_create(&t, NULL, pong, &p) != 0)
		return -1;
	pthread_mutex_lock(&p.mu);
	for (i = 0; i < n; i++) {
		while (p.turn != 0)
			tdat_cv_wait(&p.cv, &p.mu);
		p.turn = 1;
		tdat_cv_signal(&p.cv);
	}
	while (p.turn != 0)
		tdat_cv_wait(&p.cv, &p.mu);
	pthread_mutex_unlock(&p.mu);
	pthread_join(t, NULL);
	tdat_cv_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	return p.done;
}

static void
test_cv(void)
{
	long got;

	ok(poll_sees(1000000000L) == 1, "tdat_cv_wait() polling: returns "
	    "when the count of signals moves, before any "
	    "pthread_cond_signal()");
	ok(poll_sees(0) == 0, "tdat_cv_wait() not polling: sleeps until "
	    "the signal");
	got = pingpong(TDAT_POLL_NS, 20000);
	ok(got == 20000, "20000 turns handed back and forth, waits polling "
	    "TDAT_POLL_NS: every one taken (%ld)", got);
	got = pingpong(1000, 2000);
	ok(got == 2000, "2000 turns, waits polling 1 us, so that most "
	    "sleep after it: no wake-up lost (%ld)", got);
	got = pingpong(0, 2000);
	ok(got == 2000, "2000 turns, waits not polling (%ld)", got);
}

int
main(void)
{
	test_start();
	test_cv();
	return tap_done();
}
