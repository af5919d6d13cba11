/*
 * tdat-check.h: the format-neutral rules of tdat-verify (lib/check/):
 * what any source's checker asks once its container is checked.  The
 * findings (tdat_check_find(): severity, one error per section unless
 * keep_going, a warning of one kind once per section), the metadata
 * texts line by line (lib/event/texts.c), the event format files and
 * their print formats (lib/event), and every CPU's pages through the
 * source's page operations and lib/ring's page checker, on two threads
 * when the source allows it.  A format's checker (trace.dat's:
 * formats/tracedat/tracedat-verify.c) sets up a struct tdat_check,
 * checks its container with tdat_check_find(), then calls these.
 */
#ifndef TDAT_CHECK_H
#define TDAT_CHECK_H

#include <pthread.h>
#include <stdint.h>

#include "tdat-int.h"

#define TDAT_CHECK_WARN_KINDS	32

/* An event of the table (c->events.ev[i]): where its format is. */
struct tdat_check_ev {
	const struct tdat_blob *bl;	/* its format file */
	const char *sys;
};

struct tdat_check {
	struct tdat_file *f;
	const struct tdat_verify_opts *o;
	struct tdat_verify_stats *st;
	struct tdat_err *e;	/* I/O errors and lack of memory */
	int fatal;		/* an I/O error or lack of memory */
	int stop;		/* the callback asked to stop */
	/* the current section */
	int sec_stop;		/* its first error is in */
	int ahead;		/* a check ahead of the order (lib/check/cpus.c):
				 * every warning to the callback, its kind
				 * reported before or not */
	const char *warned[TDAT_CHECK_WARN_KINDS];
	int nwarned;
	/* pages: their layout, set by the format's checker */
	struct tdat_page_layout pl;
	int have_pl;
	/* event formats: the table by id (lib/ring), and ev[i] the format
	 * file of events.ev[i] */
	struct tdat_ring_events events;
	struct tdat_check_ev *ev;
	unsigned char *seen;	/* seen[i]: a record of ev[i] is in the pages */
	struct tdat_codec *codec;	/* for the pages; NULL: the file's */
	/* Set by the format's checker: the file's codec (NULL: none; a
	 * second thread makes its own of the same name). */
	const struct tdat_codec *file_codec;
	/* kallsyms, printk formats, cmdlines: their lines (scan_texts) */
	struct tdat_text_check text[3];
	uint64_t text_at[3];
	int text_exact[3];
	/* the second thread, waiting for each phase's share; NULL: each
	 * phase that wants one starts its own (lib/check/worker.c) */
	struct tdat_check_worker *worker;
};

/* Findings (lib/check/findings.c). */
/* A new section: no error in it yet, no warning kind reported. */
void	tdat_check_section(struct tdat_check *);
/* Out of memory: fatal; returns 1. */
int	tdat_check_nomem(struct tdat_check *);
/* Whether work of this size is worth a second thread (o->threads). */
int	tdat_check_two_threads(const struct tdat_check *, uint64_t work,
	    uint64_t min);
/* Report a finding (sev TDAT_FIND_*); nonzero when the current section
 * should stop (its first error without keep_going, or the callback asks). */
int	tdat_check_find(struct tdat_check *, int sev, const char *kind,
	    int has_off, uint64_t off, const struct tdat_buffer *, int cpu,
	    long long page, const char *fmt, ...)
	    __attribute__((format(printf, 9, 10)));
/* Report a finding made already, as tdat_check_find() does. */
int	tdat_check_report(struct tdat_check *, const struct tdat_finding *);
/* What tdat_check_ev, the event table and seen[] hold, freed. */
void	tdat_check_free(struct tdat_check *);

#define TDAT_CHECK_ERR(c, kind, off, ...) \
	tdat_check_find(c, TDAT_FIND_ERROR, kind, 1, off, NULL, -1, -1, \
	    __VA_ARGS__)
#define TDAT_CHECK_WARN(c, kind, off, ...) \
	tdat_check_find(c, TDAT_FIND_WARNING, kind, 1, off, NULL, -1, -1, \
	    __VA_ARGS__)

/* The metadata texts and the event formats (lib/check/rules.c). */
/* Each text's lines against the kernel's shape, kept (before the
 * container's checks: a large kallsyms need not stay after); where the
 * first bad line lies as the format's text_where tells, else the text's
 * offset. */
void	tdat_check_scan_texts(struct tdat_check *);
/* Where each text's first bad line lies (v->text_at, v->text_exact), of
 * the checks in v->text: as tdat_check_scan_texts() sets them. */
void	tdat_check_texts_where(struct tdat_check *);
/* One error per damaged text: its first bad line, and how many. */
void	tdat_check_texts(struct tdat_check *);
/* Every format file: warnings, and the event table the pages need. */
void	tdat_check_formats(struct tdat_check *);
/* tdat_check_scan_texts(), tdat_check_texts() and, unless the callback
 * stopped, tdat_check_formats() in one, the texts read while the format
 * files are (on two threads when worth it): the same findings. */
void	tdat_check_texts_formats(struct tdat_check *);
/* Print formats render a record of zeros: all, or the events seen. */
void	tdat_check_print_formats(struct tdat_check *, int all);

/* The second thread (lib/check/worker.c). */
struct tdat_check_worker;
/* Started now for a file of fsize bytes that is worth a second thread
 * (o->threads, as tdat_check_two_threads()); else NULL.  The phases
 * still choose whether to hand it a share, as they chose whether to
 * start a thread. */
struct tdat_check_worker *tdat_check_worker_new(
	    const struct tdat_verify_opts *o, uint64_t fsize);
void	tdat_check_worker_free(struct tdat_check_worker *);
/* fn(arg) on the second thread: v->worker if it has one, else a thread
 * started for it; pthread_create()'s result.  tdat_check_join() waits
 * for it to return. */
struct tdat_check_thread {
	pthread_t t;
	struct tdat_check_worker *w;
};
int	tdat_check_spawn(struct tdat_check *v, struct tdat_check_thread *t,
	    void *(*fn)(void *), void *arg);
void	tdat_check_join(struct tdat_check_thread *t);

/* Pages (lib/check/cpus.c). */
/* A latency buffer's text: every piece of it reads. */
void	tdat_check_latency_text(struct tdat_check *, int bi);
/* Every CPU's pages of every buffer (nothing without c->have_pl). */
void	tdat_check_pages(struct tdat_check *);

#endif
