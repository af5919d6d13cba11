/*
 * tdat-thread.h: how every thread besides the tool's own starts
 * (lib/common/output.c, beside the signal handler it protects).
 */
#ifndef TDAT_THREAD_H
#define TDAT_THREAD_H

#include <pthread.h>

/*
 * Every thread besides the tool's own starts here: fn(arg) on *t with every signal blocked but SIGBUS.  So SIGINT, SIGTERM,
 * SIGHUP and SIGPIPE reach the thread that updates the temporary outputs
 * (output.c's handler must never run while that thread is halfway through
 * its list), and a mapped file cut short still raises SIGBUS where it is
 * read (blocked, the kernel would kill the process without cli.c's
 * message).  pthread_create()'s result.
 */
int tdat_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
