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
};

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

#endif
