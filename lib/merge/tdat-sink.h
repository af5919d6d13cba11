/*
 * tdat-sink.h: record sinks and the one driver that feeds them
 * (lib/merge/run.c).
 *
 * tdat_run() takes one or more inputs and a selection and runs
 * source -> page iterator -> record stream -> selection -> sink: each
 * input's records come from its own record stream (lib/read/records.c, every
 * CPU of every buffer merged by time, guest times moved to the host
 * clock by its TIME_SHIFT and TSC2NSEC options), the streams of several
 * inputs are merged by time, the selection drops what it does not keep,
 * and the sink gets what is left, in order.  A sink sees records only:
 * it never opens a reader nor reads the container's bytes.
 *
 * The record sinks: the text report of trace-cmd report (formats/text/report.c),
 * JSON Lines and the Chrome trace event format (formats/json/json-events.c), and
 * the LTT writer (formats/ltt/ltt-write.c).  The trace.dat writer
 * (formats/tracedat/tracedat-write.c) is not a record sink: it copies pages, and
 * takes rebuilt ones through a struct tdat_page_src (lib/merge/repack.c,
 * formats/tracedat/tracedat-salvage.c's intact pages).
 *
 * Order.  Records of several inputs at the same time come in the order
 * trace-cmd report -i A -i B reads its handles: the top buffers of the
 * inputs in input order, then the instance buffers of the first input,
 * of the second, and so on; within one buffer, CPU by CPU.
 */
#ifndef TDAT_SINK_H
#define TDAT_SINK_H

#include <stddef.h>
#include <stdint.h>

struct tdat_file;
struct tdat_record;
struct tdat_select;
struct tdat_err;
struct tdat_run;
struct tdat_sbuf;
struct tdat_sink_par;

/* Sink flags. */
enum {
	/* With a CPU list in the selection, read only the top buffer of
	 * each input (unless --buffer names one), as trace-cmd report does. */
	TDAT_SINK_CPUS_TOP = 1 << 0,
	/* A record whose time goes back on its CPU (a damaged page) is an
	 * error, for a writer whose output tdat-verify holds to time order
	 * (tdat_reader_opts.strict_time). */
	TDAT_SINK_STRICT_TIME = 1 << 1,
};

/* What the driver says after begin(): go on, or no records wanted. */
enum { TDAT_RUN_RECORDS = 0, TDAT_RUN_NO_RECORDS = 1 };

struct tdat_sink_ops {
	unsigned flags;		/* TDAT_SINK_* */
	/* The inputs' metadata, before any record.  run is the driver,
	 * for tdat_run_peek().  Returns TDAT_RUN_RECORDS, or
	 * TDAT_RUN_NO_RECORDS when the sink wants no records (a
	 * latency-tracer file), or a negative code. */
	int	(*begin)(void *sink, struct tdat_file *const *files, size_t n,
		    struct tdat_run *run, struct tdat_err *e);
	/* One kept record of input k (index in files), valid until the
	 * next call into the driver.  0, or a negative code to stop. */
	int	(*record)(void *sink, size_t k, const struct tdat_record *rec,
		    struct tdat_err *e);
	/* After the last record: complete is 1 when every record came,
	 * 0 when the run stopped on an error (the sink flushes what it can
	 * and need not write its trailer).  0 or a negative code. */
	int	(*end)(void *sink, int complete, struct tdat_err *e);
	/* Free the sink's state (always called, once). */
	void	(*free)(void *sink);
	/* NULL, or how the sink's records may be formatted on worker
	 * threads (lib/merge/par.c). */
	const struct tdat_sink_par *par;
};

/*
 * Formatting on threads (lib/merge/par.c).  A sink whose output is one
 * piece of bytes per record, each made from that record alone, may give
 * these: the driver then copies the kept records into blocks, workers
 * format each block into a buffer of its own (each with a formatter of
 * its own: caches, event sets), and the driver's thread writes the
 * buffers in block order, so the bytes are those record() would have
 * written.  TDAT_THREADS=1 keeps record(); unset, lib/merge/run.c
 * chooses (its auto_threads()).
 */
struct tdat_sink_par {
	/* After begin(), in the driver's thread: a formatter for one
	 * worker or for the driver's own thread, or NULL when the run must stay sequential (a stateful
	 * or looking-ahead output: say why in the sink) or on no memory;
	 * then record() is used.  The first call may say no; once one
	 * formatter is made, all are asked to be. */
	void	*(*fmt_new)(void *sink, struct tdat_err *e);
	/* On a worker: append record rec of input k to out.  0, or a
	 * negative code (*e filled): out then holds the bytes of the
	 * records before, which are written before the error is; or
	 * TDAT_PAR_REDO (out as on an error): this record changed, or a
	 * record before changed, how later ones print (a sticky state),
	 * so this one and all after go to record() in order. */
	int	(*fmt)(void *fmt, size_t k, const struct tdat_record *rec,
		    struct tdat_sbuf *out, struct tdat_err *e);
	/* On a worker, optional: the end of a pass over a block (append
	 * what the formatter holds).  0 or a negative code. */
	int	(*fmt_flush)(void *fmt, struct tdat_sbuf *out,
		    struct tdat_err *e);
	void	(*fmt_free)(void *fmt);
	/* Optional, in the driver's thread, every kept record in order
	 * before it is copied: the sink's sequential part.  Returns how
	 * many bytes from rec->data the formatter reads (0: rec->size);
	 * the copy has those (up to rec->avail) and on to the next NUL,
	 * for a string that runs past them; with TDAT_PAR_EXACT or'ed in,
	 * just those (the record has no string).  Without note() the copy
	 * is rec->size bytes. */
	uint32_t (*note)(void *sink, size_t k, const struct tdat_record *rec);
	/* In the driver's thread: write n formatted bytes in order.  0 or
	 * a negative code. */
	int	(*write)(void *sink, const char *p, size_t n,
		    struct tdat_err *e);
};

enum { TDAT_PAR_REDO = 1 };
#define TDAT_PAR_EXACT	((uint32_t)1 << 31)

/* Threads records are formatted on, the driver's included: TDAT_THREADS
 * (1 to TDAT_THREADS_MAX); TDAT_THREADS_AUTO when unset (run.c's
 * choice); 0 with *e filled when TDAT_THREADS is not such a number. */
#define TDAT_THREADS_MAX	4
#define TDAT_THREADS_AUTO	(-1)
int tdat_threads(struct tdat_err *e);

struct tdat_sink {
	const struct tdat_sink_ops *ops;
	void *arg;		/* the sink's state, passed to every op */
};

/* Progress through the inputs' page data: bytes read over all inputs;
 * called every few thousand records and once at the end. */
typedef void (*tdat_progress_fn)(void *arg, uint64_t done, uint64_t total);

/*
 * Run the n inputs through the selection sel (NULL: every record; when
 * given, opened over the same files in the same order) into sink.
 * Calls begin, record for each kept record, end, free.  Returns 0 or
 * the first negative code (*e filled).
 */
int tdat_run(struct tdat_file *const *files, size_t n,
    struct tdat_select *sel, const struct tdat_sink *sink,
    tdat_progress_fn progress, void *progress_arg, struct tdat_err *e);

/*
 * For sinks that look ahead (function_graph folds a leaf function's
 * return into its entry line): the record that follows, in time order,
 * the one being handed to record() in the same input, whether the
 * selection keeps it or not; NULL at the end or on an error (reported
 * by tdat_run()).  Peeking moves that input's stream on: the data of
 * the record being handled becomes invalid (copy it first).  The
 * record peeked comes to record() in its turn (if kept) unless
 * tdat_run_consume() drops it.
 */
const struct tdat_record *tdat_run_peek(struct tdat_run *, size_t k);
void tdat_run_consume(struct tdat_run *, size_t k);

/* What the inputs' streams fetched so far (tdat_reader_counts() added
 * up over the inputs): windows loaded and pages decoded.  A sink may
 * ask from its end(); the time-cut tests do. */
void tdat_run_counts(const struct tdat_run *, uint64_t *loads,
    uint64_t *pages);

/*
 * For the begin() of sinks that read every input's events: the event
 * formats of input k of the n files, loaded and ready for records
 * (tdat_events_finish() without plugins); with several inputs a failure
 * names its file.
 */
int tdat_sink_events(struct tdat_file *const *files, size_t n, size_t k,
    struct tdat_events **ev, struct tdat_err *e);
/* 0, or a usage error naming the first latency tracer's file among
 * several inputs (trace-cmd report refuses it as well). */
int tdat_sink_latency_alone(struct tdat_file *const *files, size_t n,
    struct tdat_err *e);

#endif
