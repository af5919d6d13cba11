/*
 * run.c: the one record driver (tdat-sink.h).  Each input has its own
 * record stream; the driver merges them by time, applies the selection
 * and hands the kept records to the sink.  With one input this is that
 * input's stream as it is.
 */
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "tdat-sink.h"
#include "tdat-par.h"
#include "tdat-thread.h"

struct run_in {
	struct tdat_run *run;
	struct tdat_file *f;
	struct tdat_reader *rd;	/* NULL: no records (latency text) */
	int have;		/* rec is read and not handed on */
	int done;
	int keep_all;		/* the selection keeps every record */
	struct tdat_record rec;
	size_t *rank;		/* per buffer: its place among all buffers */
	struct tdat_read_progress prog;
	uint64_t pdone, ptotal;	/* what the progress said of this input */
};

struct tdat_run {
	struct run_in *in;
	size_t n;
	struct tdat_select *sel;
	struct tdat_err *e;
	int rc;			/* an error met while peeking */
	tdat_progress_fn fn;
	void *fn_arg;
	int threads;		/* tdat_threads(): TDAT_THREADS, or
				 * TDAT_THREADS_AUTO */
};

/* Progress of one input: report the sum over all of them. */
static void
run_progress(void *arg, uint64_t done, uint64_t total)
{
	struct run_in *in = arg;
	struct tdat_run *r = in->run;
	uint64_t d = 0, t = 0;
	size_t k;

	in->pdone = done;
	in->ptotal = total;
	for (k = 0; k < r->n; k++) {
		d += r->in[k].pdone;
		t += r->in[k].ptotal ? r->in[k].ptotal : r->in[k].prog.total;
	}
	r->fn(r->fn_arg, d, t);
}

/* trace-cmd report's handles: the top buffers of every input, then the
 * instances of the first input, of the second... */
static int
set_ranks(struct tdat_run *r)
{
	size_t k, b, next = r->n;

	for (k = 0; k < r->n; k++) {
		struct run_in *in = &r->in[k];
		size_t nb = in->f->nbuf;

		if ((in->rank = calloc(nb ? nb : 1, sizeof(*in->rank))) == NULL)
			return -1;
		in->rank[0] = k;
		for (b = 1; b < nb; b++)
			in->rank[b] = next++;
	}
	return 0;
}

/* Does the input hold ring-buffer pages at all? */
static int
has_pages(const struct tdat_file *f)
{
	size_t b;

	if (f->latency)
		return 0;
	for (b = 0; b < f->nbuf; b++)
		if (!f->buf[b].latency)
			return 1;
	return 0;
}

static int
open_input(struct tdat_run *r, size_t k, unsigned flags)
{
	struct run_in *in = &r->in[k];
	struct tdat_reader_opts ro;
	const struct tdat_select_opts *so;
	int rc;

	if (!has_pages(in->f)) {
		in->done = 1;
		return 0;
	}
	memset(&ro, 0, sizeof(ro));
	ro.buffer = -1;
	tdat_select_filter(r->sel, k, &ro.filter);
	ro.strict_time = (flags & TDAT_SINK_STRICT_TIME) != 0;
	so = r->sel ? tdat_select_options(r->sel) : NULL;
	if ((flags & TDAT_SINK_CPUS_TOP) && so && so->cpus &&
	    so->buffer == NULL)
		ro.buffer = 0;
	in->keep_all = ro.filter.keep == NULL;
	if ((rc = tdat_reader_open(in->f, &ro, &in->rd, r->e)) < 0 && r->n > 1)
		tdat_err_name(r->e, tdat_file_path(in->f));
	return rc;
}

/* Read the next record of input k, if none is waiting. */
static void
fill(struct tdat_run *r, struct run_in *in)
{
	int rc;

	if (in->have || in->done || r->rc < 0)
		return;
	if ((rc = tdat_reader_next_all(in->rd, &in->rec, r->e)) < 0) {
		r->rc = rc;
		if (r->n > 1)
			tdat_err_name(r->e, tdat_file_path(in->f));
	}
	if (rc <= 0)
		in->done = 1;
	else
		in->have = 1;
}

/* The input whose waiting record comes next; NULL at the end. */
static struct run_in *
next_input(struct tdat_run *r)
{
	struct run_in *best = NULL, *in;
	size_t k;

	for (k = 0; k < r->n; k++) {
		in = &r->in[k];
		fill(r, in);
		if (r->rc < 0)
			return NULL;
		if (!in->have)
			continue;
		if (best == NULL || tdat_merge_before(in->rec.ts,
		    in->rank[in->rec.buffer], best->rec.ts,
		    best->rank[best->rec.buffer]))
			best = in;
	}
	return best;
}

/* One input's next record into *rec, read there rather than into
 * in->rec and copied (unless a peek read it): 1, or 0 at the end or on
 * an error (r->rc). */
static int
next_alone(struct tdat_run *r, struct run_in *in, struct tdat_record *rec)
{
	int rc;

	if (in->have) {
		*rec = in->rec;
		in->have = 0;
		return 1;
	}
	if (in->done || r->rc < 0)
		return 0;
	if ((rc = tdat_reader_next_all(in->rd, rec, r->e)) < 0)
		r->rc = rc;
	if (rc <= 0)
		in->done = 1;
	return rc > 0;
}

/* The next record in time order into *rec, and its input; NULL at the
 * end or on an error (r->rc). */
static struct run_in *
take(struct tdat_run *r, struct tdat_record *rec)
{
	struct run_in *in;

	if (r->n == 1)
		return next_alone(r, &r->in[0], rec) ? &r->in[0] : NULL;
	if ((in = next_input(r)) != NULL) {
		*rec = in->rec;
		in->have = 0;
	}
	return in;
}

/* A record to the sink, or to its formatting threads. */
static int
hand_on(struct tdat_run *r, const struct tdat_sink *sink,
    struct tdat_par *par, size_t k, const struct tdat_record *rec)
{
	if (par != NULL)
		return tdat_par_add(par, k, rec, r->e);
	return sink->ops->record(sink->arg, k, rec, r->e);
}

/*
 * run_records() for the common run (one input, every record kept, no
 * formatting threads, no progress): the read and the sink's call alone,
 * without the checks the general loop makes for every record (about 24
 * instructions of each record's 850 on tdat-dump's main thread).  A
 * record a plugin peeked while printing (tdat_run_peek()) is handed on
 * first, as take() does.
 */
static int
run_alone(struct tdat_run *r, const struct tdat_sink *sink, uint64_t left)
{
	int (*record)(void *, size_t, const struct tdat_record *,
	    struct tdat_err *) = sink->ops->record;
	struct run_in *in = &r->in[0];
	struct tdat_reader *rd = in->rd;
	struct tdat_record rec;
	int rc;

	while (r->rc >= 0) {
		if (in->have) {
			rec = in->rec;
			in->have = 0;
		} else if (in->done)
			break;
		else if ((rc = tdat_reader_next_all(rd, &rec, r->e)) <= 0) {
			in->done = 1;
			if (rc < 0)
				r->rc = rc;
			break;
		}
		if ((rc = record(sink->arg, 0, &rec, r->e)) < 0)
			return rc;
		if (left != 0 && --left == 0)
			return 1;	/* on to the threads */
	}
	return r->rc;
}

/*
 * Formatting threads when TDAT_THREADS is unset: two, from the
 * AUTO_AFTER-th kept record on, when every input's pages are read as they
 * lie in the file (uncompressed trace.dat: tdat_page_ops.cheap) and this
 * thread may run on two CPUs or more.  On the 2-vCPU VM of issue 37, the
 * 415.7 MB v6 trace's tdat-dump --records -N -t took 0.69 to 0.91 s on
 * two threads against 0.73 to 1.05 s on one (4 alternated rounds), its
 * tdat-to-json 0.79-0.88 against 1.17-1.30 s; about one run in five on
 * two threads took 1.6-1.8 s, both threads' CPU time near double (the VM
 * reported no steal; a cache line's round trip between its two vCPUs
 * took 99 ns in some runs, 480 to 900 ns in others, and every record
 * crosses from this thread to a worker).  Going back to one thread on a
 * pace measured after the switch was tried (issue 37's notes): its
 * windows of 20-40 ms were too noisy, and the median run got slower.
 * Compressed pages keep the second CPU
 * decompressing ahead: there two threads were slower (../shared/bench,
 * 0.17-0.23 s against 0.14-0.16 s), and stay asked for only.  A
 * selection of fewer records (a 10 ms time cut: 28,700) stays on one
 * thread: the threads and their formatters' event sets cost it 5 to 8
 * ms of CPU, about what 256 Ki records formatted on two threads save.
 * TDAT_THREADS_AFTER=N (tests) starts them after N records.
 */
#define AUTO_AFTER	((uint64_t)1 << 18)
#define AUTO_THREADS	2

/* The records to format in turn before the threads start by default, or
 * 0: none start. */
static uint64_t
auto_after(const struct tdat_run *r, const struct tdat_sink *sink)
{
	const struct tdat_file *f;
	const char *s;
	size_t k, b;
	long n;

	if (r->threads != TDAT_THREADS_AUTO || sink->ops->par == NULL ||
	    tdat_cpus() < 2)
		return 0;
	for (k = 0; k < r->n; k++) {
		f = r->in[k].f;
		if (r->in[k].rd == NULL)
			continue;
		if (f->page_ops == NULL || !f->page_ops->cheap)
			return 0;
		for (b = 0; b < f->nbuf; b++)
			if (f->buf[b].compressed)
				return 0;
	}
	if ((s = getenv("TDAT_THREADS_AFTER")) != NULL &&
	    (n = atol(s)) > 0)
		return (uint64_t)n;
	return AUTO_AFTER;
}

static int
run_records(struct tdat_run *r, const struct tdat_sink *sink)
{
	struct tdat_record rec;
	struct tdat_par *par;
	struct tdat_err scratch;
	struct run_in *in;
	uint64_t left, kept = 0;
	size_t k;
	int rc;

	left = auto_after(r, sink);
	if ((rc = tdat_par_open(sink, left ? 1 : r->threads, 0, &par,
	    r->e)) < 0)
		return rc;
	if (par == NULL && r->n == 1 && r->in[0].keep_all &&
	    r->in[0].prog.fn == NULL) {
		if ((rc = run_alone(r, sink, left)) != 1)
			return rc;
		if ((rc = tdat_par_open(sink, AUTO_THREADS, left, &par,
		    r->e)) < 0)
			return rc;
		if (par == NULL)
			return run_alone(r, sink, 0);
		left = 0;
	}
	while ((in = take(r, &rec)) != NULL) {
		k = (size_t)(in - r->in);
		if (!in->keep_all && !tdat_reader_keeps(in->rd, &rec)) {
			if (tdat_reader_past(in->rd, &rec))
				in->done = 1;
			continue;
		}
		if ((rc = hand_on(r, sink, par, k, &rec)) < 0) {
			tdat_par_close(par, 0, &scratch);
			return rc;
		}
		if (left != 0 && ++kept == left) {
			left = 0;
			if ((rc = tdat_par_open(sink, AUTO_THREADS, kept, &par,
			    r->e)) < 0)
				return rc;
		}
		if (r->rc < 0)
			break;
		if (in->prog.fn != NULL)
			tdat_read_progress_note(&in->prog, in->f, &rec);
	}
	/* what was read before an error is written, as record() would */
	if ((rc = tdat_par_close(par, 1, r->e)) < 0)
		return rc;
	return r->rc;
}

const struct tdat_record *
tdat_run_peek(struct tdat_run *r, size_t k)
{
	struct run_in *in;

	if (r == NULL || k >= r->n)
		return NULL;
	in = &r->in[k];
	fill(r, in);
	return in->have ? &in->rec : NULL;
}

void
tdat_run_consume(struct tdat_run *r, size_t k)
{
	if (r != NULL && k < r->n)
		r->in[k].have = 0;
}

void
tdat_run_counts(const struct tdat_run *r, uint64_t *loads, uint64_t *pages)
{
	uint64_t l, p;
	size_t k;

	*loads = *pages = 0;
	for (k = 0; r != NULL && k < r->n; k++) {
		if (r->in[k].rd == NULL)
			continue;
		tdat_reader_counts(r->in[k].rd, &l, &p);
		*loads += l;
		*pages += p;
	}
}

static void
run_free(struct tdat_run *r, int complete)
{
	size_t k;

	for (k = 0; k < r->n; k++) {
		tdat_read_progress_end(&r->in[k].prog, complete);
		tdat_reader_close(r->in[k].rd);
		free(r->in[k].rank);
	}
	free(r->in);
}

/*
 * Inputs opened with their kallsyms left loading (tdat-dump --records,
 * lib/tdat.h kallsyms_later): the readers are opened first, so that a
 * time cut's seek runs while the kallsyms load (a 10 ms cut of a v7 zstd
 * trace waited for its 4 MB of kallsyms, then bisected each CPU's
 * chunks), then the kallsyms are waited for, before the sink begins: it
 * reads them, and nothing is written before them, so that damaged ones
 * fail as the open would have, first and with no output.  A reader's
 * error is kept for when the sink has begun (its errors come first, as
 * before).
 */
static int
kallsyms_pending(const struct tdat_run *r)
{
	size_t k;

	for (k = 0; k < r->n; k++)
		if (r->in[k].f->kallsyms_wait != NULL)
			return 1;
	return 0;
}

/* Every input's kallsyms read in: 0, or the first one's error in r->e,
 * named as the open names it. */
static int
kallsyms_in(struct tdat_run *r)
{
	struct tdat_err ke = { 0 };
	const char *path;
	size_t k;
	int rc;

	for (k = 0; k < r->n; k++)
		if ((rc = tdat_kallsyms_wait(r->in[k].f, &ke)) < 0) {
			path = tdat_file_path(r->in[k].f);
			if (r->n > 1)
				tdat_err_name(&ke, strcmp(path, "-") == 0 ?
				    "stdin" : path);
			*r->e = ke;
			return rc;
		}
	return 0;
}

/* Open the readers ahead (kallsyms_pending()): 0, or the first reader's
 * error into *oe; the kallsyms' error is returned. */
static int
open_ahead(struct tdat_run *r, unsigned flags, int *orc, struct tdat_err *oe)
{
	size_t k;

	*orc = 0;
	for (k = 0; k < r->n && *orc >= 0; k++)
		*orc = open_input(r, k, flags);
	if (*orc < 0)
		*oe = *r->e;
	return kallsyms_in(r);
}

int
tdat_run(struct tdat_file *const *files, size_t n, struct tdat_select *sel,
    const struct tdat_sink *sink, tdat_progress_fn progress,
    void *progress_arg, struct tdat_err *e)
{
	struct tdat_run r;
	struct tdat_err saved, oe;
	size_t k;
	int rc, erc, ahead, orc = 0;

	memset(&r, 0, sizeof(r));
	r.n = n;
	r.sel = sel;
	r.e = e;
	r.fn = progress;
	r.fn_arg = progress_arg;
	if ((r.in = calloc(n ? n : 1, sizeof(*r.in))) == NULL) {
		rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		goto out;
	}
	for (k = 0; k < n; k++) {
		r.in[k].run = &r;
		r.in[k].f = files[k];
		if (tdat_read_progress_init(&r.in[k].prog, files[k],
		    progress ? run_progress : NULL, &r.in[k]) < 0) {
			rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
			goto out;
		}
	}
	if (set_ranks(&r) < 0) {
		rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		goto out;
	}
	/* TDAT_THREADS is looked at before anything is written */
	ahead = kallsyms_pending(&r);
	if (sink->ops->par != NULL && (r.threads = tdat_threads(e)) == 0) {
		rc = e->code;
		if (ahead && (erc = kallsyms_in(&r)) < 0)
			rc = erc;
		goto out;
	}
	if (ahead && (rc = open_ahead(&r, sink->ops->flags, &orc, &oe)) < 0)
		goto out;
	if ((rc = sink->ops->begin(sink->arg, files, n, &r, e)) < 0)
		goto out;
	if (rc == TDAT_RUN_RECORDS && ahead && orc < 0) {
		*e = oe;
		rc = orc;
	} else if (rc == TDAT_RUN_RECORDS) {
		for (k = 0; k < n && rc >= 0 && !ahead; k++)
			rc = open_input(&r, k, sink->ops->flags);
		if (rc >= 0)
			rc = run_records(&r, sink);
	}
	if (rc > 0)
		rc = 0;
	/* The sink ends in any case, to flush what it holds. */
	saved = *e;
	erc = sink->ops->end(sink->arg, rc == 0, e);
	if (rc == 0)
		rc = erc;
	else
		*e = saved;
out:
	if (r.in)
		run_free(&r, rc == 0);
	sink->ops->free(sink->arg);
	return rc;
}

int
tdat_sink_events(struct tdat_file *const *files, size_t n, size_t k,
    struct tdat_events **ev, struct tdat_err *e)
{
	int rc;

	if ((rc = tdat_events_load(files[k], ev, e)) < 0) {
		if (n > 1)
			tdat_err_name(e, tdat_file_path(files[k]));
		return rc;
	}
	tdat_events_finish(*ev, 0);
	return 0;
}

int
tdat_sink_latency_alone(struct tdat_file *const *files, size_t n,
    struct tdat_err *e)
{
	size_t k;
	int rc;

	for (k = 0; n > 1 && k < n; k++)
		if (tdat_latency_buffer(files[k]) >= 0) {
			rc = tdat_fail_nooff(e, TDAT_EUSAGE, "a latency "
			    "tracer's file cannot be read with others");
			tdat_err_name(e, tdat_file_path(files[k]));
			return rc;
		}
	return 0;
}
