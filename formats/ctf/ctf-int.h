/*
 * ctf-int.h: between the CTF reader (ctf-read.c) and its LTTng part
 * (ctf-lttng.c): a real LTTng kernel trace made a trace.dat's model.
 */
#ifndef CTF_INT_H
#define CTF_INT_H

#include <stdint.h>

#include <babeltrace2/babeltrace.h>

struct tdat_file;
struct tdat_err;
struct tdat_sbuf;
struct tdat_field;
struct tdat_events;
struct ctf_lttng;

/* One field of a format from its babeltrace2 field f, in the record r
 * (its __data_loc data after the fixed part); tmp is scratch.  0, or -1
 * when f does not fit the field (r->oom: out of memory). */
int tdat_ctf_put_field(int big, const struct tdat_field *tf,
    const bt_field *f, struct tdat_sbuf *r, struct tdat_sbuf *tmp);

/* The model of the LTTng kernel trace whose stream st is: f's version,
 * headers, options and clock; its events are st's stream class's.
 * Refused (TDAT_EUNSUP): not LTTng's kernel tracer, no clock. */
int tdat_ctf_lttng_new(const bt_stream *st, struct tdat_file *f,
    struct ctf_lttng **out, struct tdat_err *e);
void tdat_ctf_lttng_free(struct ctf_lttng *);
/* Whether the first pass met events of class id. */
int tdat_ctf_lttng_used(const struct ctf_lttng *, uint64_t id);
/* The stream class whose events it reads (the first graph's). */
const bt_stream_class *tdat_ctf_lttng_class(const struct ctf_lttng *);
/* The first pass over a CPU's events: task names (the latest by time ts
 * of each task), and the pid running before the first sched_switch
 * (*first_pid, *have_pid set once). */
void tdat_ctf_lttng_scan(struct ctf_lttng *, const bt_event *ev, int64_t ts,
    int32_t *first_pid, int *have_pid);
/* After the first pass: the formats of the event classes it met. */
int tdat_ctf_lttng_formats(struct ctf_lttng *, struct tdat_file *f,
    struct tdat_err *e);
/* Then, f's formats loaded: f's saved cmdlines, and each format's fields
 * tied to the payload's members (evs: f's formats, loaded). */
int tdat_ctf_lttng_finish(struct ctf_lttng *, struct tdat_file *f,
    const struct tdat_events *evs, struct tdat_err *e);
/* The record of ev into rec (big: its byte order); *pid is the task
 * running on its CPU, followed through sched_switch. */
int tdat_ctf_lttng_record(struct ctf_lttng *, const bt_event *ev, int big,
    int32_t *pid, struct tdat_sbuf *rec, struct tdat_err *e);

#endif
