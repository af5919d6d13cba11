/*
 * ctf-read.c: a CTF 1.8 trace directory that tdat-to-ctf wrote, given
 * back as a trace.dat (ctf(5)).
 *
 * The container and the metadata come from the originals the writer
 * kept in tdat/ (header_page, header_event, the format files, kallsyms,
 * printk formats, cmdlines, options, and tdat/container: version, byte
 * order, long size, page size, buffers and their CPUs).  The events are
 * read by babeltrace2 (libbabeltrace2's src.ctf.fs component, the
 * plugin "ctf"): one graph per directory, its source's output ports (one
 * per data stream: a CPU's stream instance, its files read one after the
 * other; or, as older directories have it, one file) connected to a sink
 * of ours that pulls, when a CPU's stream asks for more, the next batch
 * of messages of that port alone, a CPU's instances in turn.  Each event becomes a record again from its event class's
 * format (its id the ftrace id): the context's common fields and the
 * payload's fields at their offsets, __data_loc data after the fixed
 * part, and lib/ring's encoder lays the records out in pages; a
 * discarded-events message marks the next record's page as after lost
 * events.  Memory: one batch of messages, one record and one window of
 * pages per open CPU, and what babeltrace2 holds (its packet index, and
 * the mapping of the file each port's iterator is at: bounded by the
 * writer's stream files, and unmapped when the port ends, its iterator
 * put).
 *
 * Times are the events' clock values: nanoseconds with OFFSET, TSC2NSEC
 * and TIME_SHIFT applied, so the options that would shift them again
 * are left out (TSC2NSEC kept as the identity, as the LTT reader does).
 * A directory without tdat/, or written with --lttng (events renamed and
 * rebuilt), is read as a real LTTng kernel trace when its environment
 * says so (ctf-lttng.c makes its formats; a first pass over its streams
 * finds their CPUs, the tasks and the event classes used), and refused
 * otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctf-bt2.h"

#include "tdat-int.h"
#include "tdat-ctf.h"
#include "ctf-int.h"
#include "tdat-opts.h"
#include "event-int.h"
#include "ltt-int.h"

#define CTF_WINDOW	(256u << 10)	/* bytes of pages a window holds */
#define CTF_WINDOW_LTTNG (32u << 10)	/* ... of an LTTng trace */

/* One data stream (its files): its port, buffer, CPU and instance. */
struct cport {
	int buf;
	uint32_t cpu;
	uint32_t inst;			/* the CPU's streams in this order */
	uint64_t size;			/* bytes of the files: an estimate */
	bt_message_iterator *it;	/* made when first pulled */
	struct cstream *owner;		/* the open stream reading it */
	/* LTTng: its stream class, CPU, first task, events */
	uint64_t sc;
	int have_cpu, have_pid;
	int32_t first_pid;
};

/* One CPU's stream as ring-buffer pages: the state of page operations. */
struct cstream {
	struct tdat_ctf *c;
	struct cport *port;		/* NULL: no data stream, no pages */
	struct tdat_err *e;
	const bt_message **qbuf;	/* messages pulled, [iq, nq) unused */
	uint64_t nq, iq, qcap;
	int ended;
	struct tdat_pager pg;		/* the next record, and pages */
	int missed;			/* discarded events came before */
	long long missed_count;
	FILE *lost;			/* tdat/lost, read along */
	int lost_none, lost_have;	/* ... there is none; a line is read */
	uint64_t lost_ts;		/* ... its time */
	int done;
	unsigned char *win;
	size_t wcap;
	uint32_t index;
	uint64_t off;
	uint32_t ps;
	int lat_fd;
	int32_t pid;			/* LTTng: the task running */
};

struct tdat_ctf {
	char *dir;
	char *tdir;			/* dir/tdat */
	struct tdat_file *f;
	struct tdat_events *evs;
	struct tdat_page_layout pl;
	/* babeltrace2 */
	const bt_plugin *plugin;
	bt_graph *graph;
	bt_component_class_sink *sink_cls;
	const bt_component_source *src;
	const bt_component_sink *sink;
	struct cport *ports;
	uint64_t nports;
	struct cstream *want;		/* the stream the sink pulls for */
	int drop;			/* ... or whose iterator it puts */
	int pull_rc;			/* what the last pull gave: 1, 0 end */
	int faulty;			/* a run failed: babeltrace2 leaves */
	struct tdat_err fault;		/* the graph unusable; its error */
	struct ctf_lttng *lt;		/* a real LTTng kernel trace */
	const char *bt_dir;		/* ... the directory babeltrace2 reads
					 * (NULL: dir), in tmp */
	struct tdat_out *tmp;
	int lttng;			/* ... is being opened or read */
};

/* ------------------------------------------------------------------ */
/* babeltrace2's errors as one line. */

static int
bt_fail(struct tdat_err *e, int code, const char *dir, const char *what)
{
	const bt_error *err = bt_current_thread_take_error();
	const char *msg = NULL;
	char line[200];
	uint64_t n;
	size_t k;

	if (err && (n = bt_error_get_cause_count(err)) > 0)
		msg = bt_error_cause_get_message(
		    bt_error_borrow_cause_by_index(err, 0));
	snprintf(line, sizeof(line), "%s", msg ? msg : "");
	for (k = 0; line[k]; k++)
		if (line[k] == '\n' || line[k] == '\t')
			line[k] = ' ';
	if (err)
		bt_error_release(err);
	if (*line)
		return tdat_fail_nooff(e, code, "%s: babeltrace2: %s", what,
		    line);
	return tdat_fail_nooff(e, code, "%s", what);
}

/* ------------------------------------------------------------------ */
/* The sink: one input port per source port; it pulls for c->want. */

static bt_component_class_initialize_method_status
sink_init(bt_self_component_sink *self,
    bt_self_component_sink_configuration *conf, const bt_value *params,
    void *data)
{
	struct tdat_ctf *c = data;
	char name[32];
	uint64_t i;

	(void)conf;
	(void)params;
	bt_self_component_set_data(
	    bt_self_component_sink_as_self_component(self), c);
	for (i = 0; i < c->nports; i++) {
		snprintf(name, sizeof(name), "in%llu", (unsigned long long)i);
		if (bt_self_component_sink_add_input_port(self, name, NULL,
		    NULL) != BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
			return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

/* A port's message iterator is made when its stream is first pulled,
 * and put at its end or when the stream is read again: babeltrace2
 * keeps the file it reads mapped until then. */
static bt_component_class_sink_graph_is_configured_method_status
sink_configured(bt_self_component_sink *self)
{
	(void)self;
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

static void
sink_finalize(bt_self_component_sink *self)
{
	struct tdat_ctf *c = bt_self_component_get_data(
	    bt_self_component_sink_as_self_component(self));
	uint64_t i;

	for (i = 0; c && i < c->nports; i++) {
		bt_message_iterator_put_ref(c->ports[i].it);
		c->ports[i].it = NULL;
	}
}

/* Put the wanted stream's port's iterator (it begins again when next
 * pulled), or pull its next batch into the stream's queue. */
static bt_component_class_sink_consume_method_status
sink_consume(bt_self_component_sink *self)
{
	struct tdat_ctf *c = bt_self_component_get_data(
	    bt_self_component_sink_as_self_component(self));
	struct cstream *s = c->want;
	bt_message_array_const msgs;
	uint64_t n, i;

	if (s == NULL || s->port == NULL)
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	if (c->drop) {
		c->drop = 0;
		bt_message_iterator_put_ref(s->port->it);
		s->port->it = NULL;
		c->pull_rc = 1;
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	}
	if (s->port->it == NULL &&
	    bt_message_iterator_create_from_sink_component(self,
	    bt_self_component_sink_borrow_input_port_by_index(self,
	    (uint64_t)(s->port - c->ports)), &s->port->it) !=
	    BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK)
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	switch (bt_message_iterator_next(s->port->it, &msgs, &n)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		if (n > s->qcap) {
			const bt_message **q = realloc(s->qbuf,
			    n * sizeof(*q));

			if (q == NULL) {
				for (i = 0; i < n; i++)
					bt_message_put_ref(msgs[i]);
				return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
			}
			s->qbuf = q;
			s->qcap = n;
		}
		for (i = 0; i < n; i++)
			s->qbuf[i] = msgs[i];
		s->nq = n;
		s->iq = 0;
		c->pull_rc = 1;
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		/* its last file unmapped */
		bt_message_iterator_put_ref(s->port->it);
		s->port->it = NULL;
		c->pull_rc = 0;
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		c->pull_rc = 2;
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	default:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
}

/* Run the graph once for stream s (drop: to put its port's iterator);
 * 1 when messages were queued (or the iterator put), 0 at its end, < 0
 * on error. */
static int
pull(struct tdat_ctf *c, struct cstream *s, int drop, struct tdat_err *e)
{
	bt_graph_run_once_status st;

	if (c->faulty) {
		*e = c->fault;
		return e->code;
	}
	do {
		c->want = s;
		c->drop = drop;
		c->pull_rc = -1;
		st = bt_graph_run_once(c->graph);
		c->want = NULL;
	} while ((st == BT_GRAPH_RUN_ONCE_STATUS_OK && c->pull_rc == 2) ||
	    st == BT_GRAPH_RUN_ONCE_STATUS_AGAIN);
	if (st == BT_GRAPH_RUN_ONCE_STATUS_OK ||
	    st == BT_GRAPH_RUN_ONCE_STATUS_END)
		return c->pull_rc < 0 ? 0 : c->pull_rc;
	if (st == BT_GRAPH_RUN_ONCE_STATUS_MEMORY_ERROR)
		tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	else
		bt_fail(e, TDAT_ECORRUPT, c->dir, "a data stream does not "
		    "decode");
	/* a graph whose run failed is not run again (babeltrace2's
	 * precondition): every stream ends with this error */
	c->faulty = 1;
	c->fault = *e;
	return e->code;
}

/* ------------------------------------------------------------------ */
/* The graph. */

/* The bytes of CPU id cpu of buffer buf in the trace.dat: an estimate
 * of its stream's, never 0. */
static uint64_t
cpu_bytes(const struct tdat_ctf *c, int buf, uint32_t cpu)
{
	const struct tdat_buffer *b = &c->f->buf[buf];
	uint32_t i;

	for (i = 0; i < b->ncpu; i++)
		if (b->cpu[i].id == cpu && b->cpu[i].size)
			return b->cpu[i].size;
	return 1;
}

/* A port's buffer and CPU from its name, "TRACE | SC_ID | ID": the
 * stream class id is the buffer, the stream instance id the CPU and
 * (its high 32 bits) the instance; or, as an older tdat-to-ctf wrote,
 * without instance ids, "TRACE | SC_ID | PATH", the file cpuN,
 * NAME-cpuN or bufferB-cpuN of the CPU.  -1 if it is not so. */
static int
port_place(struct tdat_ctf *c, const char *name, struct cport *p)
{
	const char *last = NULL, *prev = NULL, *q, *base, *cpu;
	char *end;
	unsigned long long sc, id;
	unsigned long n;
	struct stat st;

	for (q = name; (q = strstr(q, " | ")) != NULL; q += 3) {
		prev = last;
		last = q;
	}
	if (last == NULL || prev == NULL)
		return -1;
	sc = strtoull(prev + 3, &end, 10);
	if (end != last || sc >= c->f->nbuf)
		return -1;
	if (last[3] >= '0' && last[3] <= '9' && strchr(last + 3, '/') == NULL) {
		errno = 0;
		id = strtoull(last + 3, &end, 10);
		if (*end || errno)
			return -1;
		p->buf = (int)sc;
		p->cpu = (uint32_t)id;
		p->inst = (uint32_t)(id >> 32);
		p->size = cpu_bytes(c, p->buf, p->cpu);
		return 0;
	}
	base = strrchr(last + 3, '/');
	base = base ? base + 1 : last + 3;
	if ((cpu = strstr(base, "cpu")) == NULL)
		return -1;
	while (strstr(cpu + 3, "cpu"))
		cpu = strstr(cpu + 3, "cpu");
	if (cpu[3] < '0' || cpu[3] > '9')
		return -1;
	n = strtoul(cpu + 3, &end, 10);
	if (*end || n > 0xffffffffUL)
		return -1;
	p->buf = (int)sc;
	p->cpu = (uint32_t)n;
	p->size = stat(last + 3, &st) == 0 ? (uint64_t)st.st_size : 0;
	return 0;
}

/* babeltrace2's ctf plugin, found (a dlopen()) once per process and
 * kept: a tool that opens several directories, or a fuzzer, loads it
 * once. */
static const bt_plugin *
ctf_plugin(void)
{
	static const bt_plugin *plugin;

	if (plugin == NULL) {
		bt_logging_set_global_level(BT_LOGGING_LEVEL_NONE);
		if (bt_plugin_find("ctf", BT_FALSE, BT_FALSE, BT_TRUE, BT_TRUE,
		    BT_FALSE, &plugin) != BT_PLUGIN_FIND_STATUS_OK)
			plugin = NULL;
	}
	return plugin;
}

static int
graph_open(struct tdat_ctf *c, struct tdat_err *e)
{
	const bt_component_class_source *fs;
	bt_value *params = NULL, *inputs = NULL;
	uint64_t i;
	int rc = 0;

	if ((c->plugin = ctf_plugin()) == NULL ||
	    (fs = bt_plugin_borrow_source_component_class_by_name_const(
	    c->plugin, "fs")) == NULL)
		return bt_fail(e, TDAT_EUNSUP, c->dir, "babeltrace2's ctf "
		    "plugin (src.ctf.fs) is not installed");
	if ((params = bt_value_map_create()) == NULL ||
	    bt_value_map_insert_empty_array_entry(params, "inputs",
	    &inputs) != BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK ||
	    bt_value_array_append_string_element(inputs, c->bt_dir ?
	    c->bt_dir : c->dir) !=
	    BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK ||
	    (c->graph = bt_graph_create(0)) == NULL) {
		bt_value_put_ref(params);
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	if (bt_graph_add_source_component(c->graph, fs, "src", params,
	    BT_LOGGING_LEVEL_NONE, &c->src) != BT_GRAPH_ADD_COMPONENT_STATUS_OK)
		rc = bt_fail(e, TDAT_ECORRUPT, c->dir, "not a CTF trace "
		    "babeltrace2 reads");
	bt_value_put_ref(params);
	if (rc < 0)
		return rc;
	c->nports = bt_component_source_get_output_port_count(c->src);
	if (c->nports && (c->ports = calloc(c->nports,
	    sizeof(*c->ports))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	for (i = 0; i < c->nports; i++) {
		const bt_port_output *op =
		    bt_component_source_borrow_output_port_by_index_const(
		    c->src, i);

		if (!c->lttng && port_place(c, bt_port_get_name(
		    bt_port_output_as_port_const(op)), &c->ports[i]) < 0)
			return tdat_fail_nooff(e, TDAT_ECORRUPT, "data "
			    "stream \"%.80s\" is not one tdat-to-ctf writes "
			    "(cpuN, NAME-cpuN)", bt_port_get_name(
			    bt_port_output_as_port_const(op)));
	}
	if ((c->sink_cls = bt_component_class_sink_create("tdat",
	    sink_consume)) == NULL ||
	    bt_component_class_sink_set_initialize_method(c->sink_cls,
	    sink_init) != BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK ||
	    bt_component_class_sink_set_graph_is_configured_method(
	    c->sink_cls, sink_configured) !=
	    BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK ||
	    bt_component_class_sink_set_finalize_method(c->sink_cls,
	    sink_finalize) != BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	if (bt_graph_add_sink_component_with_initialize_method_data(c->graph,
	    c->sink_cls, "sink", NULL, c, BT_LOGGING_LEVEL_NONE, &c->sink) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK)
		return bt_fail(e, TDAT_ENOMEM, c->dir, "cannot make a "
		    "babeltrace2 graph");
	for (i = 0; i < c->nports; i++)
		if (bt_graph_connect_ports(c->graph,
		    bt_component_source_borrow_output_port_by_index_const(
		    c->src, i),
		    bt_component_sink_borrow_input_port_by_index_const(
		    c->sink, i), NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
			return bt_fail(e, TDAT_ENOMEM, c->dir, "cannot make a "
			    "babeltrace2 graph");
	/* configure it: the message iterators are made */
	return pull(c, NULL, 0, e) < 0 ? e->code : 0;
}

/* ------------------------------------------------------------------ */
/* Events back into records. */

static int
is_int(const bt_field *f)
{
	return bt_field_class_type_is(bt_field_get_class_type(f),
	    BT_FIELD_CLASS_TYPE_INTEGER);
}

static uint64_t
int_value(const bt_field *f)
{
	if (bt_field_class_type_is(bt_field_get_class_type(f),
	    BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return (uint64_t)bt_field_integer_signed_get_value(f);
	return bt_field_integer_unsigned_get_value(f);
}

/* The bytes of a string, or of an array of integers (each es bytes in
 * the trace's byte order), appended to sb; -1 if f is neither. */
static int
field_bytes(int big, const bt_field *f, struct tdat_sbuf *sb, int nul)
{
	bt_field_class_type t = bt_field_get_class_type(f);
	unsigned char b[8];
	uint64_t i, n;
	int es;

	if (t == BT_FIELD_CLASS_TYPE_STRING) {
		tdat_sb_add(sb, bt_field_string_get_value(f),
		    (size_t)bt_field_string_get_length(f));
		if (nul)
			tdat_sb_putc(sb, 0);
		return 0;
	}
	if (!bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY))
		return -1;
	n = bt_field_array_get_length(f);
	for (i = 0; i < n; i++) {
		const bt_field *x =
		    bt_field_array_borrow_element_field_by_index_const(f, i);

		if (!is_int(x))
			return -1;
		es = (int)(bt_field_class_integer_get_field_value_range(
		    bt_field_borrow_class_const(x)) / 8);
		if (es < 1 || es > 8)
			return -1;
		tdat_put(b, int_value(x), es, big);
		tdat_sb_add(sb, (const char *)b, (size_t)es);
	}
	return 0;
}

/* Room for n bytes at off in the record being built (zeros). */
static int
rec_room(struct tdat_sbuf *r, size_t n)
{
	while (r->len < n && !r->oom)
		tdat_sb_putc(r, 0);
	return r->oom ? -1 : 0;
}

/* One field of the format from its babeltrace2 field f: put at its
 * offset, its data after the fixed part for a __data_loc field. */
int
tdat_ctf_put_field(int big, const struct tdat_field *tf, const bt_field *f,
    struct tdat_sbuf *r, struct tdat_sbuf *tmp)
{
	uint32_t off = (uint32_t)tf->offset, len, at;
	int dyn = (tf->flags & TDAT_FLD_DYNAMIC) != 0;

	if (is_int(f)) {
		if (tf->size != 1 && tf->size != 2 && tf->size != 4 &&
		    tf->size != 8)
			return -1;
		tdat_put((unsigned char *)r->p + off, int_value(f), tf->size,
		    big);
		return 0;
	}
	tdat_sb_reset(tmp);
	if (field_bytes(big, f, tmp, dyn || tf->size == 0) < 0 || tmp->oom)
		return -1;
	len = (uint32_t)tmp->len;
	if (dyn) {
		if (tf->size != 2 && tf->size != 4)
			return -1;
		at = (uint32_t)r->len;
		tdat_sb_add(r, tmp->p ? tmp->p : "", len);
		if (tf->flags & TDAT_FLD_RELATIVE)
			at -= off + (uint32_t)tf->size;
		tdat_put((unsigned char *)r->p + off, tf->size == 2 ? at :
		    (uint64_t)len << 16 | (at & 0xffff), tf->size, big);
		return r->oom ? -1 : 0;
	}
	if (tf->size == 0 || bt_field_get_class_type(f) ==
	    BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITH_LENGTH_FIELD) {
		/* a flexible array, or kernel_stack's callers: to the
		 * record's end */
		if (rec_room(r, off) < 0)
			return -1;
		r->len = off;
		tdat_sb_add(r, tmp->p ? tmp->p : "", len);
		return r->oom ? -1 : 0;
	}
	if (len > (uint32_t)tf->size)
		len = (uint32_t)tf->size;
	if (len)
		memcpy(r->p + off, tmp->p, len);
	return 0;
}

/* The fields of a struct, in order, for the format's fields (common
 * ones less common_type, or its own): a sequence's length member comes
 * before it. */
static int
put_struct(struct tdat_ctf *c, const struct tdat_field *tf, int n,
    int skip_type, const bt_field *st, struct tdat_sbuf *r,
    struct tdat_sbuf *tmp)
{
	uint64_t j = 0, m = st ? bt_field_class_structure_get_member_count(
	    bt_field_borrow_class_const(st)) : 0;
	int i;

	for (i = 0; i < n; i++) {
		const bt_field *f;

		if (skip_type && strcmp(tf[i].name, "common_type") == 0)
			continue;
		if (j >= m)
			return -1;
		f = bt_field_structure_borrow_member_field_by_index_const(st,
		    j++);
		if (((tf[i].flags & (TDAT_FLD_DYNAMIC | TDAT_FLD_ARRAY)) ||
		    tf[i].size == 0) && is_int(f) && j < m)
			f = bt_field_structure_borrow_member_field_by_index_const(
			    st, j++);
		if (tdat_ctf_put_field(c->f->big, &tf[i], f, r, tmp) < 0)
			return -1;
	}
	return 0;
}

/* The bytes the fixed fields of ev cover. */
static uint32_t
fixed_size(const struct tdat_event *ev)
{
	uint32_t n = 0, end;
	int i;

	for (i = 0; i < ev->ncommon; i++)
		if ((end = (uint32_t)ev->common[i].offset +
		    (uint32_t)ev->common[i].size) > n)
			n = end;
	for (i = 0; i < ev->nfields; i++)
		if ((end = (uint32_t)ev->fields[i].offset +
		    (uint32_t)ev->fields[i].size) > n)
			n = end;
	return n;
}

/* The record of an event message into s->pg.rec; 0, or < 0 with *s->e. */
static int
event_record(struct cstream *s, const bt_message *m)
{
	struct tdat_ctf *c = s->c;
	const bt_event *ev = bt_message_event_borrow_event_const(m);
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	const bt_clock_snapshot *cs =
	    bt_message_event_borrow_default_clock_snapshot_const(m);
	uint64_t id = bt_event_class_get_id(ec);
	const struct tdat_event *te;
	const bt_field *pay = bt_event_borrow_payload_field_const(ev);
	struct tdat_sbuf tmp;
	int64_t ns;
	int bad;

	if (c->lttng) {
		/* nanoseconds from the clock's origin, its offset in */
		if (cs == NULL || bt_clock_snapshot_get_ns_from_origin(cs, &ns)
		    != BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK || ns < 0)
			return tdat_fail_nooff(s->e, TDAT_ECORRUPT, "CPU %u: "
			    "an event's time is not in nanoseconds from 1970 "
			    "on (before its clock's origin or past 2262)",
			    s->port->cpu);
		s->pg.ts = (uint64_t)ns;
		return tdat_ctf_lttng_record(c->lt, ev, c->f->big, &s->pid,
		    &s->pg.rec, s->e);
	}
	s->pg.ts = bt_clock_snapshot_get_value(cs);
	tdat_sb_reset(&s->pg.rec);
	if (id == TDAT_CTF_ID_UNKNOWN) {
		/* type, __data_length, data: the record's own bytes */
		if (pay == NULL || bt_field_class_structure_get_member_count(
		    bt_field_borrow_class_const(pay)) < 3 ||
		    field_bytes(c->f->big,
		    bt_field_structure_borrow_member_field_by_index_const(
		    pay, 2), &s->pg.rec, 0) < 0)
			goto bad;
		return s->pg.rec.oom ? tdat_fail_nooff(s->e, TDAT_ENOMEM,
		    "out of memory") : 0;
	}
	if (id > INT32_MAX || (te = tdat_events_find(c->evs, (int)id)) ==
	    NULL)
		goto bad;
	if (rec_room(&s->pg.rec, fixed_size(te)) < 0)
		return tdat_fail_nooff(s->e, TDAT_ENOMEM, "out of memory");
	if (te->ncommon > 0 && strcmp(te->common[0].name, "common_type") == 0
	    && (te->common[0].size == 1 || te->common[0].size == 2 ||
	    te->common[0].size == 4))
		tdat_put((unsigned char *)s->pg.rec.p + te->common[0].offset, id,
		    te->common[0].size, c->f->big);
	tdat_sb_init(&tmp);
	bad = put_struct(c, te->common, te->ncommon, 1,
	    bt_event_borrow_specific_context_field_const(ev), &s->pg.rec, &tmp) < 0
	    || put_struct(c, te->fields, te->nfields, 0, pay, &s->pg.rec, &tmp)
	    < 0;
	tdat_sb_free(&tmp);
	if (s->pg.rec.oom)
		return tdat_fail_nooff(s->e, TDAT_ENOMEM, "out of memory");
	if (!bad)
		return 0;
bad:
	return tdat_fail_nooff(s->e, TDAT_ECORRUPT, "CPU %u: event class "
	    "%llu (%s) does not match the format of its id in tdat/",
	    s->port->cpu, (unsigned long long)id,
	    bt_event_class_get_name(ec) ? bt_event_class_get_name(ec) : "?");
}

/* Whether the loss before the stream's record at ts was not counted by
 * the ring buffer: a line "BUFFER CPU TS" of tdat/lost (ctf(5)), read
 * along the stream (its lines for this stream come in time order). */
static int
lost_uncounted(struct cstream *s, uint64_t ts)
{
	char line[96], path[PATH_MAX];
	unsigned long long t;
	unsigned cpu;
	int b;

	if (s->lost == NULL) {
		if (s->lost_none)
			return 0;
		snprintf(path, sizeof(path), "%s/tdat/lost", s->c->dir);
		if ((s->lost = fopen(path, "re")) == NULL) {
			s->lost_none = 1;
			return 0;
		}
	}
	for (;;) {
		while (!s->lost_have && fgets(line, sizeof(line), s->lost))
			if (sscanf(line, "%d %u %llu", &b, &cpu, &t) == 3 &&
			    b == s->port->buf && cpu == s->port->cpu) {
				s->lost_ts = t;
				s->lost_have = 1;
			}
		if (!s->lost_have || s->lost_ts > ts)
			return 0;
		s->lost_have = 0;
		if (s->lost_ts == ts)
			return 1;
	}
}

/* The port of buffer buf, CPU id cpu and instance inst, or NULL. */
static struct cport *
find_port(struct tdat_ctf *c, int buf, uint32_t cpu, uint32_t inst)
{
	uint64_t i;

	for (i = 0; i < c->nports; i++)
		if (c->ports[i].buf == buf && c->ports[i].cpu == cpu &&
		    c->ports[i].inst == inst)
			return &c->ports[i];
	return NULL;
}

/* Read port p from its start for s: a port read before (its iterator
 * kept) is put first. */
static int
port_take(struct cstream *s, struct cport *p, struct tdat_err *e)
{
	int rc;

	if (s->port && s->port->owner == s)
		s->port->owner = NULL;
	s->port = p;
	p->owner = s;
	if (p->it && (rc = pull(s->c, s, 1, e)) < 0)
		return rc;
	return 0;
}

/* The next record of the stream into s->pg.rec; 1, 0 at the end, < 0 on
 * damage. */
static int
next_record(struct cstream *s)
{
	const bt_message *m;
	uint64_t n;
	int rc;

	for (;;) {
		if (s->iq >= s->nq) {
			if (s->ended)
				return 0;
			s->nq = s->iq = 0;
			if ((rc = pull(s->c, s, 0, s->e)) < 0) {
				s->ended = 1;
				return rc;
			}
			if (rc == 0) {
				struct cport *p = find_port(s->c, s->port->buf,
				    s->port->cpu, s->port->inst + 1);

				if (p == NULL) {
					s->ended = 1;
					return 0;
				}
				if ((rc = port_take(s, p, s->e)) < 0) {
					s->ended = 1;
					return rc;
				}
			}
			continue;
		}
		m = s->qbuf[s->iq++];
		rc = 0;
		switch (bt_message_get_type(m)) {
		case BT_MESSAGE_TYPE_EVENT:
			rc = event_record(s, m) < 0 ? -1 : 1;
			break;
		case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
			s->missed = 1;
			s->missed_count = bt_message_discarded_events_get_count(
			    m, &n) == BT_PROPERTY_AVAILABILITY_AVAILABLE ?
			    (long long)n : -1;
			break;
		default:
			break;
		}
		bt_message_put_ref(m);
		if (rc < 0)
			return s->e->code;
		if (rc > 0) {
			s->pg.missed = s->missed;
			s->pg.count = s->missed && lost_uncounted(s,
			    s->pg.ts) ? -1 : s->missed_count;
			s->missed = 0;
			return 1;
		}
	}
}

/* Damage found after a page was begun: reported by the next call. */
static void
defer(struct cstream *s, int rc)
{
	tdat_pager_defer(&s->pg, rc, s->e);
}

/* Fill one page with records; 1 if a page was made, 0 at the end,
 * < 0 on damage. */
static int
next_cb(void *s)
{
	return next_record(s);
}

static int
fill_page(struct cstream *s, unsigned char *pg)
{
	int rc = tdat_pager_fill(&s->pg, &s->c->pl, s->ps, pg, next_cb, s,
	    s->e);

	if (rc == TDAT_PAGER_BIG)
		return tdat_fail_nooff(s->e, TDAT_ECORRUPT, "CPU %u: a "
		    "record of %u bytes does not fit a page of %u",
		    s->port->cpu, (uint32_t)s->pg.rec.len, s->ps);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Page operations. */

static void co_close(void *st);

static int
lat_next(struct cstream *s, struct tdat_window *w, struct tdat_err *e)
{
	ssize_t n;

	if (s->done)
		return 0;
	do
		n = pread(s->lat_fd, s->win, s->wcap, (off_t)s->off);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		s->done = 1;
		return n < 0 ? tdat_fail_nooff(e, TDAT_EIO, "tdat/latency: %s",
		    strerror(errno)) : 0;
	}
	memset(w, 0, sizeof(*w));
	w->p = s->win;
	w->len = (size_t)n;
	w->off = s->off;
	w->index = s->index++;
	s->off += (uint64_t)n;
	return 1;
}

static int
co_open(struct tdat_file *f, int buf, uint32_t ci, void **st,
    uint64_t *total, struct tdat_err *e)
{
	struct tdat_ctf *c = f->page_arg;
	struct cstream *s;
	char path[PATH_MAX];
	struct stat sb;
	int rc;

	*st = NULL;
	*total = 0;
	if (buf < 0 || (size_t)buf >= f->nbuf || (f->buf[buf].latency ?
	    ci != 0 : ci >= f->buf[buf].ncpu))
		return tdat_fail_nooff(e, TDAT_EUSAGE, "%s: no buffer %d CPU "
		    "index %u", f->path, buf, ci);
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	s->c = c;
	s->e = e;
	s->lat_fd = -1;
	s->done = 1;
	tdat_sb_init(&s->pg.rec);
	*st = s;
	s->wcap = CTF_WINDOW;
	if (f->buf[buf].latency) {
		snprintf(path, sizeof(path), "%s/tdat/latency", c->dir);
		if ((s->lat_fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
		    fstat(s->lat_fd, &sb) < 0) {
			rc = tdat_fail_nooff(e, TDAT_EIO, "tdat/latency: %s",
			    strerror(errno));
			goto fail;
		}
		*total = (uint64_t)sb.st_size;
	} else {
		struct cport *p = find_port(c, buf, f->buf[buf].cpu[ci].id, 0);
		uint32_t k;

		if (p == NULL)
			return 0;	/* no data stream: no pages */
		for (k = 0; p; p = find_port(c, buf, p->cpu, ++k))
			if (p->owner) {
				rc = tdat_fail_nooff(e, TDAT_EUSAGE, "a CTF "
				    "data stream is read once at a time");
				goto fail;
			}
		p = find_port(c, buf, f->buf[buf].cpu[ci].id, 0);
		s->pid = p->first_pid;
		s->ps = f->buf[buf].page_size;
		/* an LTTng trace's CPUs are often many, its metadata large */
		s->wcap = (c->lttng ? CTF_WINDOW_LTTNG : CTF_WINDOW) / s->ps *
		    s->ps;
		if (s->wcap == 0)
			s->wcap = s->ps;
		*total = p->size;
		if ((rc = port_take(s, p, e)) < 0)
			goto fail;
	}
	if ((s->win = malloc(s->wcap)) == NULL) {
		rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		goto fail;
	}
	s->done = 0;
	return 0;
fail:
	co_close(s);
	*st = NULL;
	return rc;
}

static int
co_next(void *st, struct tdat_window *w, struct tdat_err *e)
{
	struct cstream *s = st;
	size_t n = 0;
	int rc;

	s->e = e;
	if (s->lat_fd >= 0)
		return lat_next(s, w, e);
	while (!s->done && s->wcap - n >= s->ps) {
		if ((rc = fill_page(s, s->win + n)) < 0) {
			if (n > 0) {	/* the pages made come first */
				defer(s, rc);
				break;
			}
			s->done = 1;	/* a stream does not go on after damage */
			return rc;
		}
		if (rc == 0) {
			s->done = 1;
			break;
		}
		n += s->ps;
	}
	if (n == 0)
		return 0;
	memset(w, 0, sizeof(*w));
	w->p = s->win;
	w->len = n;
	w->off = s->off;
	w->index = s->index++;
	s->off += n;
	return 1;
}

static void
co_close(void *st)
{
	struct cstream *s = st;

	if (s == NULL)
		return;
	while (s->iq < s->nq)
		bt_message_put_ref(s->qbuf[s->iq++]);
	if (s->port && s->port->owner == s)
		s->port->owner = NULL;
	if (s->lat_fd >= 0)
		close(s->lat_fd);
	if (s->lost)
		fclose(s->lost);
	free(s->qbuf);
	tdat_sb_free(&s->pg.rec);
	free(s->win);
	free(s);
}

static void ctf_free(struct tdat_ctf *c);

static void
co_release(struct tdat_file *f)
{
	struct tdat_ctf *c = f->page_arg;

	tdat_options_free(f);	/* the decoder's, if used */
	f->page_ops = NULL;
	f->page_arg = NULL;
	if (c == NULL)
		return;
	c->f = NULL;		/* the caller frees f */
	ctf_free(c);
}

static const struct tdat_page_ops ctf_page_ops = {
	.open = co_open,
	.next = co_next,
	.close = co_close,
	.release = co_release,
};

/* ------------------------------------------------------------------ */
/* The originals in tdat/. */

static int
read_blob(struct tdat_ctf *c, const char *rel, struct tdat_blob *b,
    int optional, struct tdat_err *e)
{
	char path[PATH_MAX];

	if (optional && (size_t)snprintf(path, sizeof(path), "%s/%s", c->tdir,
	    rel) < sizeof(path) && access(path, F_OK) != 0)
		return 0;
	return tdat_ltt_blob(c->tdir, "tdat", rel, b, e);
}

static int
read_dir_blobs(struct tdat_ctf *c, const char *rel, struct tdat_blob **out,
    uint32_t *n, struct tdat_err *e)
{
	return tdat_ltt_dir_blobs(c->tdir, "tdat", rel, 1, out, n, e);
}

/* tdat/events/NNNN-PART/ in order, named by the lines of tdat/systems. */
static int
read_systems(struct tdat_ctf *c, struct tdat_err *e)
{
	struct tdat_file *f = c->f;
	struct tdat_blob sys = { 0 };
	char path[PATH_MAX], **names;
	const char *p, *nl = NULL, *end;
	size_t k, i;
	int rc;

	if ((rc = read_blob(c, "systems", &sys, 0, e)) < 0)
		return rc;
	snprintf(path, sizeof(path), "%s/tdat/events", c->dir);
	if (tdat_ltt_list(path, &names, &k) < 0) {
		free(sys.p);
		/* (an empty folder, as a packed tree may lose it) */
		return errno == ENOENT ? 0 : tdat_fail_nooff(e,
		    TDAT_ECORRUPT, "tdat/events: %s", strerror(errno));
	}
	if (k && (f->sys = calloc(k, sizeof(*f->sys))) == NULL)
		rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	p = (const char *)sys.p;
	end = p + sys.len;
	for (i = 0; i < k && rc == 0; i++) {
		struct tdat_system *s = &f->sys[f->nsys];

		if (p >= end)
			rc = tdat_fail_nooff(e, TDAT_ECORRUPT, "tdat/systems: "
			    "fewer names than folders in tdat/events");
		else if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (rc < 0)
			break;
		if ((s->name = strndup(p, (size_t)(nl - p))) == NULL) {
			rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
			break;
		}
		p = nl + 1;
		f->nsys++;
		snprintf(path, sizeof(path), "events/%s", names[i]);
		rc = read_dir_blobs(c, path, &s->ev, &s->nev, e);
	}
	tdat_ltt_list_free(names, k);
	free(sys.p);
	return rc;
}

/* The options as stored, less those that shift time: the events hold
 * times already shifted (TSC2NSEC stays, as the identity).  A BUFFER
 * option's index is kept for the buffers of tdat/container in remap. */
static int
read_options(struct tdat_ctf *c, int **remap, size_t *nold,
    struct tdat_err *e)
{
	struct tdat_blob b = { 0 };
	int rc;

	*remap = NULL;
	*nold = 0;
	if ((rc = read_blob(c, "options", &b, 0, e)) < 0)
		return rc;
	return tdat_ltt_options(c->f, b, "tdat/options", remap, nold, e);
}

/* Text from hex digits; NULL if they are not. */
static char *
unhex(const char *s)
{
	size_t n = strlen(s), i;
	char *t;
	unsigned v;

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		n--;
	if (n % 2 || (t = malloc(n / 2 + 1)) == NULL)
		return NULL;
	for (i = 0; i < n / 2; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1 || v == 0) {
			free(t);
			return NULL;
		}
		t[i] = (char)v;
	}
	t[n / 2] = 0;
	return t;
}

/* One line of tdat/container. */
static int
container_line(struct tdat_ctf *c, char *line, const int *remap,
    size_t nold, int *lttng)
{
	struct tdat_file *f = c->f;
	struct tdat_buffer *b = f->nbuf ? &f->buf[f->nbuf - 1] : NULL;
	char key[32], *val, **text = NULL;
	unsigned long long u, v;
	int i, j, k;

	if (sscanf(line, "%31s", key) != 1)
		return 0;
	val = line + strlen(key);
	while (*val == ' ')
		val++;
	if (strcmp(key, "buffer") == 0) {
		if (sscanf(val, "%llu %d %d", &u, &j, &k) != 3 || u < 1024 ||
		    u > (1u << 20) || f->nbuf >= 65536 ||
		    (b = realloc(f->buf, (f->nbuf + 1) * sizeof(*b))) == NULL)
			return -1;
		f->buf = b;
		b += f->nbuf++;
		memset(b, 0, sizeof(*b));
		b->page_size = (uint32_t)u;
		b->opt_index = j >= 0 && (size_t)j < nold ? remap[j] : -1;
		b->latency = k != 0;
		return 0;
	}
	if (strcmp(key, "cpu") == 0)
		return b && sscanf(val, "%llu %llu", &u, &v) == 2 &&
		    u <= 0xffffffffULL && b->ncpu < (1u << 20) ?
		    tdat_ltt_add_cpu(b, (uint32_t)u, v) : -1;
	if (strcmp(key, "buffer_name") == 0 && b && !b->name)
		text = &b->name;
	else if (strcmp(key, "buffer_clock") == 0 && b && !b->clock)
		text = &b->clock;
	else if (strcmp(key, "compression") == 0 && !f->comp)
		text = &f->comp;
	else if (strcmp(key, "clock_data") == 0 && !f->clock_data)
		text = &f->clock_data;
	else if (strcmp(key, "trace_clock") == 0 && !f->trace_clock)
		text = &f->trace_clock;
	if (text) {
		if (*val == 0)
			return (*text = strdup("")) ? 0 : -1;
		return (*text = unhex(val)) ? 0 : -1;
	}
	if (sscanf(val, "%d", &i) != 1)
		return -1;
	if (strcmp(key, "version") == 0)
		f->version = i;
	else if (strcmp(key, "big") == 0)
		f->big = i != 0;
	else if (strcmp(key, "long_size") == 0)
		f->lsize = i;
	else if (strcmp(key, "page_size") == 0)
		f->page_size = (uint32_t)i;
	else if (strcmp(key, "cpus") == 0)
		f->ncpus = (uint32_t)i;
	else if (strcmp(key, "has_clock_data") == 0)
		f->has_clock_data = i;
	else if (strcmp(key, "v6_options") == 0)
		f->v6_options = i;
	else if (strcmp(key, "latency") == 0)
		f->latency = i;
	else if (strcmp(key, "lttng") == 0)
		*lttng = i;
	return 0;
}

/* The container as tdat/container describes it (ctf(5)).  The byte
 * order comes first: the options are read in it. */
static int
read_container(struct tdat_ctf *c, struct tdat_err *e)
{
	struct tdat_file *f = c->f;
	struct tdat_blob b = { 0 };
	char *p, *nl, *big;
	int *remap = NULL, lttng = 0, rc;
	size_t nold = 0, i, line = 1;

	if ((rc = read_blob(c, "container", &b, 0, e)) < 0)
		return rc;
	big = strstr((char *)b.p, "\nbig ");
	f->big = big && big[5] == '1';
	if ((rc = read_options(c, &remap, &nold, e)) < 0)
		goto out;
	for (p = (char *)b.p; rc == 0 && p && *p; p = nl, line++) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl++ = 0;
		if (container_line(c, p, remap, nold, &lttng) < 0)
			rc = tdat_fail_nooff(e, TDAT_ECORRUPT, "tdat/container: "
			    "line %zu does not read", line);
	}
	if (rc == 0 && lttng)
		rc = tdat_fail_nooff(e, TDAT_EUNSUP, "written by tdat-to-ctf "
		    "--lttng (events renamed and rebuilt): it cannot be read "
		    "back");
	if (rc == 0 && ((f->version != 6 && f->version != 7) ||
	    (f->lsize != 4 && f->lsize != 8) || f->page_size < 1024 ||
	    f->page_size > (1u << 20) || f->nbuf == 0))
		rc = tdat_fail_nooff(e, TDAT_ECORRUPT, "tdat/container: "
		    "not a trace.dat's container (version, long size, page "
		    "size, buffers)");
	for (i = 0; rc == 0 && i < f->nbuf; i++) {
		if (f->buf[i].name == NULL && (f->buf[i].name = strdup("")) ==
		    NULL)
			rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		if (f->buf[i].latency && f->latency) {
			char path[PATH_MAX];
			struct stat st;

			/* a v6 file's text is also where latency_off says */
			snprintf(path, sizeof(path), "%s/tdat/latency", c->dir);
			if (f->fd < 0 && ((f->fd = open(path, O_RDONLY |
			    O_CLOEXEC)) < 0 || fstat(f->fd, &st) < 0))
				rc = tdat_fail_nooff(e, TDAT_EIO, "tdat/latency: "
				    "%s", strerror(errno));
			else
				f->fsize = (uint64_t)st.st_size;
		}
	}
out:
	free(remap);
	free(b.p);
	return rc;
}

static int
read_originals(struct tdat_ctf *c, struct tdat_err *e)
{
	struct tdat_file *f = c->f;
	int rc;

	if ((rc = read_container(c, e)) < 0 ||
	    (rc = read_blob(c, "header_page", &f->hpage, 0, e)) < 0 ||
	    (rc = read_blob(c, "header_event", &f->hevent, 0, e)) < 0 ||
	    (rc = read_blob(c, "kallsyms", &f->kallsyms, 0, e)) < 0 ||
	    (rc = read_blob(c, "printk", &f->printk, 0, e)) < 0 ||
	    (rc = read_blob(c, "cmdlines", &f->cmdlines, 0, e)) < 0 ||
	    (rc = read_blob(c, "modules", &f->modules, 1, e)) < 0 ||
	    (rc = read_blob(c, "btf", &f->btf, 1, e)) < 0 ||
	    (rc = read_dir_blobs(c, "ftrace", &f->ftrace, &f->nftrace,
	    e)) < 0 ||
	    (rc = read_systems(c, e)) < 0 ||
	    (rc = tdat_page_layout(f, &c->pl, e)) < 0 ||
	    (rc = tdat_events_load(f, &c->evs, e)) < 0)
		return rc;
	c->evs->fields_only = 1;
	tdat_events_finish(c->evs, 0);
	return 0;
}

/* ------------------------------------------------------------------ */

static int
btf_kept(struct tdat_file *f, struct tdat_err *e)
{
	(void)e;
	return f->btf.p != NULL;
}

int
tdat_ctf_probe(const char *path)
{
	char p[PATH_MAX];
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	snprintf(p, sizeof(p), "%s/metadata", path);
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static void
ctf_free(struct tdat_ctf *c)
{
	if (c == NULL)
		return;
	if (c->f)
		tdat_options_free(c->f);	/* the decoder's, if used */
	tdat_close(c->f);
	bt_graph_put_ref(c->graph);	/* the sink puts its iterators */
	bt_component_class_sink_put_ref(c->sink_cls);
	tdat_out_abort(c->tmp);		/* the second graph's directory */
	tdat_events_free(c->evs);
	tdat_ctf_lttng_free(c->lt);
	free(c->ports);
	free(c->tdir);
	free(c->dir);
	free(c);
}

/* ------------------------------------------------------------------ */
/* A real LTTng kernel trace (ctf-lttng.c): a first pass over every data
 * stream finds its CPU (the packets' cpu_id), its events' classes, the
 * task names and the task running before its first sched_switch. */

static void
packet_cpu(struct cport *p, const bt_message *m)
{
	const bt_packet *pk =
	    bt_message_packet_beginning_borrow_packet_const(m);
	const bt_field *ctx = pk ? bt_packet_borrow_context_field_const(pk) :
	    NULL, *f;

	if (p->have_cpu || ctx == NULL)
		return;
	f = bt_field_structure_borrow_member_field_by_name_const(ctx,
	    "cpu_id");
	if (f && is_int(f) && int_value(f) <= 0xffffffffu) {
		p->cpu = (uint32_t)int_value(f);
		p->have_cpu = 1;
	}
}

static int
scan_message(struct tdat_ctf *c, struct cport *p, const bt_message *m,
    uint64_t *nev, struct tdat_err *e)
{
	const bt_stream *st;
	const bt_clock_snapshot *cs;
	int64_t ns;

	switch (bt_message_get_type(m)) {
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		st = bt_message_stream_beginning_borrow_stream_const(m);
		p->sc = bt_stream_class_get_id(bt_stream_borrow_class_const(st));
		if (c->lt == NULL)
			return tdat_ctf_lttng_new(st, c->f, &c->lt, e);
		if (bt_stream_borrow_class_const(st) !=
		    tdat_ctf_lttng_class(c->lt))
			return tdat_fail_nooff(e, TDAT_EUNSUP, "an LTTng trace "
			    "of several channels (stream classes): not "
			    "supported");
		return 0;
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		packet_cpu(p, m);
		return 0;
	case BT_MESSAGE_TYPE_EVENT:
		(*nev)++;
		cs = bt_message_event_borrow_default_clock_snapshot_const(m);
		if (cs == NULL || bt_clock_snapshot_get_ns_from_origin(cs, &ns)
		    != BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
			ns = 0;
		if (c->lt)
			tdat_ctf_lttng_scan(c->lt,
			    bt_message_event_borrow_event_const(m), ns,
			    &p->first_pid, &p->have_pid);
		return 0;
	default:
		return 0;
	}
}

static int
scan_port(struct tdat_ctf *c, struct cport *p, struct tdat_err *e)
{
	struct cstream s;
	uint64_t nev = 0;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	s.c = c;
	s.port = p;
	s.e = e;
	for (;;) {
		const bt_message *m;

		if (s.iq >= s.nq) {
			s.nq = s.iq = 0;
			if ((rc = pull(c, &s, 0, e)) <= 0)
				break;
			continue;
		}
		m = s.qbuf[s.iq++];
		rc = scan_message(c, p, m, &nev, e);
		bt_message_put_ref(m);
		if (rc < 0)
			break;
	}
	while (s.iq < s.nq)
		bt_message_put_ref(s.qbuf[s.iq++]);
	free(s.qbuf);
	p->size = nev * 32 + 1;		/* an estimate, for progress */
	return rc < 0 ? rc : 0;
}

/* ------------------------------------------------------------------ */
/* The events are read through a second graph whose metadata declares
 * only the event classes the first pass met: babeltrace2 keeps its
 * metadata's parse tree while the source lives, some 55 bytes a byte of
 * metadata (17 MB for lttng-modules 2.8's 1181 events), which the
 * first graph frees.  Its directory is a temporary in $TMPDIR (made and
 * removed as the tools' outputs are, a signal included): the metadata as
 * text, and a link to every other entry of the trace's directory. */

#define TRIM_MAX	(64u << 20)	/* metadata larger is kept whole */

/* The metadata's text: its packets' contents, or the file as it is. */
static int
metadata_text(const char *dir, struct tdat_sbuf *t)
{
	struct tdat_blob b = { 0 };
	struct tdat_err e = { 0 };
	uint64_t off = 0;
	int big;

	if (tdat_ltt_blob(dir, "", "metadata", &b, &e) < 0)
		return -1;
	if (b.len < 4 || (tdat_get(b.p, 4, 0) != 0x75d11d57u &&
	    tdat_get(b.p, 4, 1) != 0x75d11d57u)) {
		tdat_sb_add(t, (const char *)b.p, (size_t)b.len);
		free(b.p);
		return t->oom ? -1 : 0;
	}
	big = tdat_get(b.p, 4, 0) != 0x75d11d57u;
	while (off + 37 <= b.len) {	/* sizes checked by metadata_packets */
		uint32_t content = (uint32_t)tdat_get(b.p + off + 24, 4, big);
		uint32_t packet = (uint32_t)tdat_get(b.p + off + 28, 4, big);

		tdat_sb_add(t, (const char *)b.p + off + 37, content / 8 - 37);
		off += packet / 8;
	}
	free(b.p);
	return t->oom ? -1 : 0;
}

/* Past a string or comment at p (of text up to end), or p. */
static const char *
skip_lexical(const char *p, const char *end)
{
	if (*p == '"') {
		for (p++; p < end && *p != '"'; p++)
			if (*p == '\\' && p + 1 < end)
				p++;
		return p < end ? p + 1 : end;
	}
	if (*p == '/' && p + 1 < end && p[1] == '*') {
		const char *q = memmem(p + 2, (size_t)(end - p - 2), "*/", 2);

		return q ? q + 2 : end;
	}
	if (*p == '/' && p + 1 < end && p[1] == '/') {
		const char *q = memchr(p, '\n', (size_t)(end - p));

		return q ? q + 1 : end;
	}
	return p;
}

static int
ident_char(char ch)
{
	return ch == '_' || (ch >= '0' && ch <= '9') || (ch >= 'a' &&
	    ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* An event block [p, end) "event { ... };": its "id = N;" at depth 1,
 * or -1. */
static long long
block_id(const char *p, const char *end)
{
	int depth = 0;

	while (p < end) {
		const char *q = skip_lexical(p, end);

		if (q != p) {
			p = q;
			continue;
		}
		if (*p == '{')
			depth++;
		else if (*p == '}')
			depth--;
		else if (depth == 1 && *p == 'i' && p + 1 < end && p[1] == 'd' &&
		    !ident_char(p[-1]) && p + 2 < end && !ident_char(p[2])) {
			const char *s = p + 2;
			char *e;
			long long v;

			while (s < end && (*s == ' ' || *s == '\t' || *s == '\n'))
				s++;
			if (s < end && *s == '=') {
				v = strtoll(s + 1, &e, 0);
				if (e != s + 1 && v >= 0)
					return v;
			}
		}
		p++;
	}
	return -1;
}

/* The '}' closing the '{' at b, or end. */
static const char *
match_brace(const char *b, const char *end)
{
	const char *q;
	int d = 0;

	while (b < end) {
		if ((q = skip_lexical(b, end)) != b) {
			b = q;
			continue;
		}
		if (*b == '{')
			d++;
		else if (*b == '}' && --d == 0)
			return b;
		b++;
	}
	return end;
}

/* The metadata text less the event blocks of classes not used. */
static int
trim_events(struct tdat_ctf *c, const struct tdat_sbuf *t,
    struct tdat_sbuf *out)
{
	const char *p = t->p, *end = t->p + t->len, *from = p;
	int depth = 0;

	while (p < end) {
		const char *q = skip_lexical(p, end);

		if (q != p) {
			p = q;
			continue;
		}
		if (*p == '{')
			depth++;
		else if (*p == '}')
			depth--;
		else if (depth == 0 && end - p > 5 && memcmp(p, "event", 5) ==
		    0 && (p == t->p || !ident_char(p[-1])) &&
		    !ident_char(p[5])) {
			const char *b = p + 5, *close;
			long long id;

			while (b < end && *b != '{' && *b != ';')
				b++;
			if (b >= end || *b != '{') {
				p++;
				continue;
			}
			if ((close = match_brace(b, end)) >= end)
				break;
			q = close + 1;
			while (q < end && (*q == ' ' || *q == '\t' || *q == '\n'))
				q++;
			if (q < end && *q == ';')
				q++;
			id = block_id(b, close + 1);
			if (id >= 0 && !tdat_ctf_lttng_used(c->lt, (uint64_t)id)) {
				tdat_sb_add(out, from, (size_t)(p - from));
				from = q;
			}
			p = q;
			continue;
		}
		p++;
	}
	tdat_sb_add(out, from, (size_t)(end - from));
	return out->oom ? -1 : 0;
}

/* The temporary directory: the trimmed metadata and links. */
static int
trim_dir(struct tdat_ctf *c, const char *tdir, const struct tdat_sbuf *m,
    struct tdat_err *e)
{
	char src[PATH_MAX], dst[PATH_MAX], *real;
	char **names;
	size_t n, i;
	int fd, rc = 0;

	snprintf(dst, sizeof(dst), "%s/metadata", tdir);
	if ((fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0
	    || write(fd, m->p, m->len) != (ssize_t)m->len) {
		rc = tdat_fail_nooff(e, TDAT_EIO, "%s: %s", dst,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	close(fd);
	if ((real = realpath(c->dir, NULL)) == NULL)
		return tdat_fail_nooff(e, TDAT_EIO, "%s", strerror(errno));
	if (tdat_ltt_list(real, &names, &n) < 0) {
		free(real);
		return tdat_fail_nooff(e, TDAT_EIO, "%s", strerror(errno));
	}
	for (i = 0; i < n && rc == 0; i++) {
		if (strcmp(names[i], "metadata") == 0)
			continue;
		snprintf(src, sizeof(src), "%s/%s", real, names[i]);
		snprintf(dst, sizeof(dst), "%s/%s", tdir, names[i]);
		if (symlink(src, dst) < 0)
			rc = tdat_fail_nooff(e, TDAT_EIO, "%s: %s", dst,
			    strerror(errno));
	}
	tdat_ltt_list_free(names, n);
	free(real);
	return rc;
}

/* A port's key: its name's last part, a path's base name. */
static const char *
port_key(const bt_port_output *op)
{
	const char *n = bt_port_get_name(bt_port_output_as_port_const(op));
	const char *k = n, *q, *s;

	for (q = n; (q = strstr(q, " | ")) != NULL; q += 3)
		k = q + 3;
	if ((s = strrchr(k, '/')) != NULL)
		k = s + 1;
	return k;
}

/* The second graph, its ports taking the first's places. */
static int
lttng_regraph(struct tdat_ctf *c, struct tdat_err *e)
{
	struct tdat_sbuf t, m;
	struct cport *old = c->ports;
	char **keys = NULL, tmpl[PATH_MAX];
	const char *td = getenv("TMPDIR");
	uint64_t nold = c->nports, i, k;
	struct tdat_err te = { 0 };
	int rc = 0;

	tdat_sb_init(&t);
	tdat_sb_init(&m);
	rc = metadata_text(c->dir, &t);
	if (rc == 0 && (t.len < 6 || memcmp(t.p, "/* CTF", 6) != 0))
		tdat_sb_puts(&m, "/* CTF 1.8 */\n");	/* as text it needs it */
	if (rc < 0 || t.len > TRIM_MAX ||
	    trim_events(c, &t, &m) < 0 || m.len == 0) {
		tdat_sb_free(&t);
		tdat_sb_free(&m);
		return 0;	/* the first graph reads it */
	}
	tdat_sb_free(&t);
	if ((keys = calloc(nold + 1, sizeof(*keys))) == NULL) {
		tdat_sb_free(&m);
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	for (i = 0; i < nold; i++)
		if ((keys[i] = strdup(port_key(
		    bt_component_source_borrow_output_port_by_index_const(
		    c->src, i)))) == NULL)
			rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	snprintf(tmpl, sizeof(tmpl), "%s/tdat-lttng", td && *td ? td :
	    "/tmp");
	if (rc == 0 && (tdat_out_open_dir(tmpl, &c->tmp, &te) < 0 ||
	    trim_dir(c, tdat_out_path(c->tmp), &m, &te) < 0)) {
		/* no temporary: the first graph reads it */
		tdat_out_abort(c->tmp);
		c->tmp = NULL;
		for (i = 0; i < nold; i++)
			free(keys[i]);
		free(keys);
		tdat_sb_free(&m);
		return 0;
	}
	tdat_sb_free(&m);
	if (rc == 0) {
		/* the first graph, and its parse tree, go */
		bt_graph_put_ref(c->graph);
		bt_component_class_sink_put_ref(c->sink_cls);
		c->graph = NULL;
		c->sink_cls = NULL;
		c->src = NULL;
		c->sink = NULL;
		c->ports = NULL;
		c->nports = 0;
		c->bt_dir = tdat_out_path(c->tmp);
		rc = graph_open(c, e);
	}
	for (i = 0; rc == 0 && i < c->nports; i++) {
		const char *key = port_key(
		    bt_component_source_borrow_output_port_by_index_const(
		    c->src, i));

		for (k = 0; k < nold && strcmp(keys[k], key) != 0; k++)
			;
		if (k == nold) {
			rc = tdat_fail_nooff(e, TDAT_ECORRUPT, "data stream "
			    "\"%.80s\" not found again", key);
			break;
		}
		c->ports[i] = old[k];
		c->ports[i].it = NULL;
		c->ports[i].owner = NULL;
	}
	if (rc == 0 && c->nports != nold)
		rc = tdat_fail_nooff(e, TDAT_ECORRUPT, "the data streams are "
		    "not found again");
	for (i = 0; i < nold; i++)
		free(keys[i]);
	free(keys);
	if (c->ports != old)
		free(old);
	return rc;
}

/* The CPUs of the one buffer, in ascending order; a CPU's streams, if
 * several, are read one after the other. */
static int
lttng_cpus(struct tdat_ctf *c, struct tdat_err *e)
{
	struct tdat_file *f = c->f;
	struct tdat_buffer *b;
	uint64_t i, k;
	int64_t last = -1;

	if ((f->buf = calloc(1, sizeof(*f->buf))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	f->nbuf = 1;
	b = f->buf;
	b->page_size = f->page_size;
	b->opt_index = -1;
	if ((b->name = strdup("")) == NULL || (b->clock =
	    strdup(f->trace_clock)) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	for (i = 0; i < c->nports; i++) {
		struct cport *p = &c->ports[i];

		p->buf = 0;
		if (!p->have_cpu)
			p->cpu = (uint32_t)i;
		for (k = 0; k < i; k++)
			if (c->ports[k].cpu == p->cpu)
				p->inst++;
	}
	for (;;) {
		int64_t next = -1;
		uint64_t size = 0;

		for (i = 0; i < c->nports; i++)
			if ((int64_t)c->ports[i].cpu > last && (next < 0 ||
			    (int64_t)c->ports[i].cpu < next))
				next = c->ports[i].cpu;
		if (next < 0)
			break;
		for (i = 0; i < c->nports; i++)
			if ((int64_t)c->ports[i].cpu == next)
				size += c->ports[i].size;
		if (tdat_ltt_add_cpu(b, (uint32_t)next, size) < 0)
			return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		f->ncpus = (uint32_t)next + 1;
		last = next;
	}
	return 0;
}

/* LTTng's metadata is in packets (ctf(5) of CTF 1.8, "Metadata"): each
 * whole, or babeltrace2 2.0 loops for ever on the last one cut short. */
static int
metadata_packets(const char *dir, struct tdat_err *e)
{
	char path[PATH_MAX];
	unsigned char h[37];
	uint64_t off = 0, size;
	uint32_t magic, content, packet;
	struct stat st;
	int fd, big;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return tdat_fail_nooff(e, TDAT_EIO, "metadata: %s",
		    strerror(errno));
	}
	size = (uint64_t)st.st_size;
	for (; off < size; off += packet / 8) {
		n = pread(fd, h, sizeof(h), (off_t)off);
		if (n < 4)
			break;
		magic = tdat_get(h, 4, 0);
		big = magic != 0x75d11d57u;
		if (tdat_get(h, 4, big) != 0x75d11d57u) {
			if (off == 0)
				break;	/* text metadata */
			close(fd);
			return tdat_fail_nooff(e, TDAT_ECORRUPT, "metadata: "
			    "offset %llu: not a metadata packet",
			    (unsigned long long)off);
		}
		content = n == (ssize_t)sizeof(h) ? (uint32_t)tdat_get(h + 24,
		    4, big) : 0;
		packet = n == (ssize_t)sizeof(h) ? (uint32_t)tdat_get(h + 28,
		    4, big) : 0;
		if (content < 8 * sizeof(h) || content > packet ||
		    packet % 8 || packet / 8 > size - off) {
			close(fd);
			return tdat_fail_nooff(e, TDAT_ECORRUPT, "metadata: "
			    "offset %llu: a metadata packet cut short or of "
			    "bad sizes", (unsigned long long)off);
		}
	}
	close(fd);
	return 0;
}

static int
lttng_open(struct tdat_ctf *c, struct tdat_err *e)
{
	uint64_t i;
	int rc;

	for (i = 0; i < c->nports; i++)
		if ((rc = scan_port(c, &c->ports[i], e)) < 0)
			return rc;
	if (c->lt == NULL)
		return tdat_fail_nooff(e, TDAT_EUNSUP, "a CTF trace with no "
		    "data stream, not written by tdat-to-ctf (no "
		    "tdat/container): not supported");
	if ((rc = lttng_cpus(c, e)) < 0 ||
	    (rc = tdat_ctf_lttng_formats(c->lt, c->f, e)) < 0 ||
	    (rc = tdat_page_layout(c->f, &c->pl, e)) < 0 ||
	    (rc = tdat_events_load(c->f, &c->evs, e)) < 0)
		return rc;
	c->evs->fields_only = 1;
	tdat_events_finish(c->evs, 0);
	if ((rc = tdat_ctf_lttng_finish(c->lt, c->f, c->evs, e)) < 0)
		return rc;
	return lttng_regraph(c, e);
}

/* Whether tdat/container (at path) says tdat-to-ctf --lttng wrote it. */
static int
lttng_written(const char *path)
{
	char line[128];
	FILE *fp = fopen(path, "re");
	int yes = 0;

	if (fp == NULL)
		return 0;
	while (!yes && fgets(line, sizeof(line), fp))
		yes = strcmp(line, "lttng 1\n") == 0;
	fclose(fp);
	return yes;
}

int
tdat_ctf_open_tdat(const char *dir, struct tdat_file **out,
    struct tdat_err *e)
{
	struct tdat_ctf *c;
	char path[PATH_MAX];
	struct stat st;
	int rc;

	*out = NULL;
	snprintf(path, sizeof(path), "%s/tdat/container", dir);
	if ((rc = tdat_bt2_load(e)) < 0)
		return rc;
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->dir = strdup(dir)) == NULL ||
	    (c->tdir = malloc(strlen(dir) + sizeof("/tdat"))) == NULL ||
	    (c->f = calloc(1, sizeof(*c->f))) == NULL ||
	    (c->f->path = strdup(dir)) == NULL) {
		ctf_free(c);
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	}
	c->f->fd = -1;
	snprintf(c->tdir, strlen(dir) + sizeof("/tdat"), "%s/tdat", dir);
	if (stat(path, &st) != 0 || lttng_written(path)) {
		/* not tdat-to-ctf's, or its --lttng one (events renamed
		 * and rebuilt): an LTTng kernel trace? */
		c->lttng = 1;
		if ((rc = metadata_packets(dir, e)) < 0 ||
		    (rc = graph_open(c, e)) < 0 ||
		    (rc = lttng_open(c, e)) < 0) {
			ctf_free(c);
			return rc;
		}
	} else if ((rc = read_originals(c, e)) < 0 ||
	    (rc = graph_open(c, e)) < 0) {
		ctf_free(c);
		return rc;
	}
	if (c->f->btf.p)
		c->f->btf_load = btf_kept;
	c->f->page_ops = &ctf_page_ops;
	c->f->page_arg = c;
	*out = c->f;
	return 0;
}

int
tdat_ctf_verify_input(const char *dir, const struct tdat_verify_opts *o,
    struct tdat_verify_stats *st, struct tdat_err *e)
{
	(void)o;
	(void)st;
	return tdat_fail_nooff(e, TDAT_EUSAGE, "a CTF directory: "
	    "tdat-verify does not check CTF (babeltrace2 does: babeltrace2 "
	    "%s >/dev/null)", dir);
}

/* ------------------------------------------------------------------ */
/* The CTF format as the engine sees it (lib/read/source.c). */

static int
ctf_bid(const char *path)
{
	return strcmp(path, "-") != 0 && tdat_ctf_probe(path);
}

static int
ctf_open(const char *path, const struct tdat_open_opts *o,
    struct tdat_file **out, struct tdat_err *e)
{
	*out = NULL;
	if (o && o->salvage)
		return tdat_fail_nooff(e, TDAT_EUNSUP, "a CTF directory "
		    "cannot be salvaged");
	return tdat_ctf_open_tdat(path, out, e);
}

const struct tdat_format tdat_ctf_format = {
	.name = "ctf",
	.bid = ctf_bid,
	.open = ctf_open,
	.verify = tdat_ctf_verify_input,
};
