/*
 * tdat-event.h: event formats, print formats and report lines
 * (lib/event/event.c, lib/event/event-simple.c, lib/event/print.c, lib/event/print-eval.c,
 * lib/event/texts.c, lib/event/plugins.c, formats/text/report.c).
 *
 * An event format file (tracefs events/SYS/NAME/format) is parsed once into
 * a struct tdat_event: its fields and its print format, compiled into a list
 * of literal text and conversions whose arguments are expression trees.
 * Printing a record then only walks that list.  The output matches what
 * trace-cmd report 3.1.6 (libtraceevent 1.7.1) prints, including its
 * fallbacks: a print format libtraceevent cannot parse (an unknown helper
 * such as __print_symbolic_u64) prints "[FAILED TO PARSE]" and raw fields.
 *
 * A format file may end in the simple language of lib/event/event-simple.c,
 * "format: irq=<int:irq> name=<string:name>", instead of "print fmt:".
 */
#ifndef TDAT_EVENT_H
#define TDAT_EVENT_H

#include <stdatomic.h>

/* Field flags. */
enum {
	TDAT_FLD_SIGNED = 1 << 0,
	TDAT_FLD_ARRAY = 1 << 1,	/* fixed array, or old 2-byte dynamic */
	TDAT_FLD_DYNAMIC = 1 << 2,	/* __data_loc */
	TDAT_FLD_RELATIVE = 1 << 3,	/* __rel_loc */
	TDAT_FLD_STRING = 1 << 4,	/* char/u8/s8 array */
	TDAT_FLD_POINTER = 1 << 5,	/* type ends in '*' */
	TDAT_FLD_LONG = 1 << 6,	/* type mentions "long" */
};

struct tdat_field {
	char *type;		/* "int", "char[16]", "__data_loc char[]" */
	char *name;
	int offset, size;
	int arraylen;		/* elements of a fixed array, else 0 */
	int elemsize;
	unsigned flags;
};

struct tdat_print;		/* a compiled print format */
struct tdat_simple;		/* a compiled "format:" line */
struct tdat_events;

struct tdat_strs;		/* strings held in blocks (event.c) */

/* One event type. */
struct tdat_event {
	char *system, *name;
	int id;
	int ncommon, nfields;
	struct tdat_field *common;	/* common_type, common_pid, ... */
	struct tdat_field *fields;	/* the event's own fields */
	char *fmt;		/* print fmt string (escapes kept), or NULL */
	struct tdat_print *print;	/* compiled print format */
	struct tdat_simple *simple;	/* or compiled "format:" line */
	int failed;		/* print format could not be parsed */
	unsigned flags;		/* TDAT_EV_* */
	const struct tdat_plugin *plugin;	/* plugin override, or NULL */
	const struct tdat_field *pid;	/* common_pid, or NULL */
	uint32_t span;		/* bytes its fixed fields cover */
	struct tdat_events *set;	/* the set it belongs to */
	const char *lazy;	/* format text whose fields and print format
				 * are not parsed yet (tdat_events_add_lazy),
				 * from lazy_pos on; else NULL */
	size_t lazy_len, lazy_pos;
	struct tdat_strs *strs;	/* blocks holding strings of the event
				 * (tdat_event_scan's), or NULL */
};

enum {
	TDAT_EV_FTRACE = 1 << 0,	/* system "ftrace" */
	TDAT_EV_BPRINT = 1 << 1,	/* ftrace bprint: vbin data */
	TDAT_EV_SIMPLE = 1 << 2,	/* "format:" language, not print fmt */
};

/* Parse one format file.  lsize is the trace's long size (4 or 8), big
 * its byte order.  A print format that cannot be parsed is not an error:
 * the event is returned with failed set (trace-cmd prints raw fields). */
int tdat_event_parse(const char *text, size_t len, const char *system,
    int lsize, int big, struct tdat_event **out, struct tdat_err *e);
void tdat_event_free(struct tdat_event *);

/* What a lenient reading of a format file found (tdat_event_scan). */
enum {
	TDAT_FMT_NO_ID,		/* no "ID:" line */
	TDAT_FMT_BAD_ID,	/* the ID (text) is not an event id */
	TDAT_FMT_NO_FORMAT,	/* no "format:" line, so no fields */
	TDAT_FMT_BAD_FIELD,	/* a field line that does not parse */
	TDAT_FMT_FIELD_RANGE,	/* a field's offset or size past 0xffff */
	TDAT_FMT_NO_PRINT,	/* no "print fmt:" line */
};

struct tdat_fmt_issue {
	int what;		/* TDAT_FMT_* */
	const char *name;	/* the event's name, NULL if not (yet) known */
	const char *text;	/* TDAT_FMT_BAD_ID: the ID's text */
	const struct tdat_field *field;	/* TDAT_FMT_FIELD_RANGE */
};

/*
 * Read a format file leniently (tdat-verify): the tokenizer and field
 * parser of tdat_event_parse(), but a line that does not parse goes to
 * note and is passed over instead of failing the event.  The event has
 * its name (or NULL), id and the fields that parse; its print format is
 * not compiled: fmt holds its text, from "print fmt:" on.  TDAT_ECORRUPT, after a note, when it has no usable ID.
 */
int tdat_event_scan(const char *text, size_t len, const char *system,
    int lsize, void (*note)(void *, const struct tdat_fmt_issue *),
    void *arg, struct tdat_event **out, struct tdat_err *e);
/* The id tdat_event_scan() gives the format (its head read the same
 * way, its fields not read), or -1 where it fails it. */
int tdat_event_scan_id(const char *text, size_t len);

struct tdat_field *tdat_event_field(const struct tdat_event *,
    const char *name);
/* A numeric field of a record, unsigned, from the file's byte order;
 * 0 when the record is too short or the size is not 1, 2, 4 or 8. */
unsigned long long tdat_field_read(const struct tdat_event *,
    const struct tdat_field *, const unsigned char *data, uint32_t size);
/* Where the data of a dynamic field (__data_loc, __rel_loc) lies in a
 * record's data[0..size) whose byte order big says, bounded by the
 * record: *off and *len, both 0 when its location is not in the record
 * or the field is not 2 or 4 bytes. */
void tdat_field_dyn_span(const struct tdat_field *, const unsigned char *data,
    uint32_t size, int big, uint32_t *off, uint32_t *len);
/* Where an array field's bytes lie: a dynamic field's as
 * tdat_field_dyn_span() says, a fixed array's at its offset, a flexible
 * array member's (size 0) up to the record's end; bounded by the record. */
void tdat_field_span(const struct tdat_field *, const unsigned char *data,
    uint32_t size, int big, uint32_t *off, uint32_t *len);

/* All events of a trace, with its kallsyms, printk formats and comms. */
int tdat_events_load(struct tdat_file *, struct tdat_events **out,
    struct tdat_err *e);
/* The same for printing with plugins: print formats may then call the
 * helpers trace-cmd's plugins define (jiffies_to_msecs...). */
int tdat_events_load_mode(struct tdat_file *, int plugins,
    struct tdat_events **out, struct tdat_err *e);
/* An empty set (for tests): add symbols, formats, events by hand. */
struct tdat_events *tdat_events_new(int lsize, int big);
void tdat_events_free(struct tdat_events *);
int tdat_events_add_kallsyms(struct tdat_events *, const char *text,
    size_t len);
/* A set holding only the symbol table of a kallsyms text, parsed and
 * sorted as the first lookup of a set would (tdat_syms_need()): built
 * where the text loads, on its thread (formats/tracedat), for the first
 * lookup of a set loaded from the file to take (struct tdat_file
 * ksyms_late).  NULL without memory, or once *stop is set (stop may be
 * NULL). */
struct tdat_events *tdat_syms_build(const char *text, size_t len,
    const atomic_int *stop);
int tdat_events_add_printk(struct tdat_events *, const char *text, size_t len);
int tdat_events_add_cmdlines(struct tdat_events *, const char *text,
    size_t len);
/* Parse and add a format file; the set owns the event. */
int tdat_events_add(struct tdat_events *, const char *text, size_t len,
    const char *system, struct tdat_event **out, struct tdat_err *e);
/* Add a format file whose fields and print format are parsed when its
 * event is first looked up (tdat_events_find, tdat_events_find_name);
 * one whose fields do not parse then leaves the set, as tdat_events_add()
 * leaves it out.  text must stay until the set is freed.  TDAT_ECORRUPT
 * when its name, ID and format lines do not parse. */
int tdat_events_add_lazy(struct tdat_events *, const char *text, size_t len,
    const char *system, struct tdat_err *e);
/* Parse every pending format now (dropping those that do not parse). */
void tdat_events_resolve(struct tdat_events *);
/* How many formats the set parsed in full, and whether it read its
 * kallsyms (tdat_events_load* defer them to the first symbol): for tests. */
size_t tdat_events_parsed(const struct tdat_events *);
int tdat_events_syms_loaded(const struct tdat_events *);
/* Sort by id and attach plugins; call once after the last add. */
void tdat_events_finish(struct tdat_events *, int plugins);

const struct tdat_event *tdat_events_find(const struct tdat_events *, int id);
const struct tdat_event *tdat_events_find_name(const struct tdat_events *,
    const char *system, const char *name);
/* The comm of a pid: "<idle>" for 0, "<...>" when unknown. */
const char *tdat_events_comm(const struct tdat_events *, int pid);
/* Add a comm for a pid that has none yet. */
int tdat_events_set_comm(struct tdat_events *, int pid, const char *comm);
/* The kernel symbol holding addr, its start in *start; NULL if none. */
const char *tdat_events_sym(const struct tdat_events *, unsigned long long addr,
    unsigned long long *start);
/* tdat_events_sym() and the name's length in *len (kept with it). */
const char *tdat_events_sym_len(const struct tdat_events *,
    unsigned long long addr, unsigned long long *start, size_t *len);
/* The printk format at addr (quotes and a final \n removed); NULL if none. */
const char *tdat_events_printk(const struct tdat_events *,
    unsigned long long addr);

/* How to print an event's text. */
enum {
	TDAT_PRINT_FMT = 0,	/* print formats only (report -N) */
	TDAT_PRINT_RAW = 1,	/* field=value list (report -R) */
	TDAT_PRINT_PLUGINS = 2,	/* print formats with plugins (report) */
};
/* Append the text of one record (after "name: ") to out.  Printing with
 * plugins may update the set: comms seen in sched events, function
 * nesting per CPU. */
void tdat_event_print(const struct tdat_event *, const struct tdat_record *,
    int mode, struct tdat_sbuf *out);

/* The same, when data holds avail >= rec->size readable bytes: the rest
 * of the ring-buffer page.  libtraceevent prints a fixed array field in
 * full even where the record ends before it, showing the bytes that
 * follow; tdat_event_span() tells when a record is that short. */
void tdat_event_print_avail(const struct tdat_event *,
    const struct tdat_record *, uint32_t avail, int mode,
    struct tdat_sbuf *out);
uint32_t tdat_event_span(const struct tdat_event *);

/* 1 when tdat_event_print() of the event in mode prints with its own
 * print format (no plugin, not raw, not a bprint, simple or failed
 * event): then tdat_event_print_own() prints the same with none of
 * those checks.  It stays so while the event lives: only a bprint
 * event's print may fail later. */
int tdat_event_own(const struct tdat_event *, int mode);
/* tdat_event_print() of an event tdat_event_own() said 1 for, the record
 * holding its fields (tdat_event_span() <= rec->size). */
void tdat_event_print_own(const struct tdat_event *,
    const struct tdat_record *, struct tdat_sbuf *out);

/* What a plugin may ask of the report: the record after the one being
 * printed (same buffer), and to drop it (function_graph folds a
 * function's return into its entry line). */
struct tdat_plugin_ctx {
	const struct tdat_record *(*peek)(void *arg);
	void (*consume)(void *arg);
	void *arg;
};
/* Printing with a context; a plugin that peeks (tdat_plugin.peek) needs
 * rec->data to stay valid across peek(): copy it first. */
void tdat_event_print_ctx(const struct tdat_event *,
    const struct tdat_record *, uint32_t avail, int mode,
    const struct tdat_plugin_ctx *, struct tdat_sbuf *out);

/* A plugin: replaces the printing of one event (lib/event/plugins.c).
 * Returns 0 when it printed, 1 to go on with the print format. */
struct tdat_plugin {
	const char *system, *name;
	int (*print)(const struct tdat_event *, const struct tdat_record *,
	    const struct tdat_plugin_ctx *, struct tdat_sbuf *out);
	int peek;		/* it may call ctx->peek */
};
const struct tdat_plugin *tdat_plugin_find(const char *system,
    const char *name);
/* s uses from's symbols (read at the first lookup, then only read). */
void tdat_events_share_syms(struct tdat_events *s,
    const struct tdat_events *from);
/* A plugin of the set keeps state across records or looks ahead. */
int tdat_events_stateful(const struct tdat_events *);

/* Report: what trace-cmd report [-N|-R] [-t] prints. */
struct tdat_report_opts {
	int mode;		/* TDAT_PRINT_FMT, _RAW or _PLUGINS */
	int ns;			/* -t: full nanosecond timestamps */
	struct tdat_select *sel;	/* the records to print; NULL all */
	int tc;			/* the trace-cmd whose listing it is:
				 * TDAT_TC_31 (0), TDAT_TC_33 or TDAT_TC_34 */
	int lat;		/* -l: the latency layout (3.3, 3.4) */
	unsigned fgraph;	/* -O fgraph:...: TDAT_FGRAPH_* */
};
int tdat_report(struct tdat_file *, FILE *out, const struct tdat_report_opts *,
    struct tdat_err *e);
/* Several inputs as trace-cmd report -i A -i B prints them: one listing
 * merged by time, each line prefixed with its file's base name. */
int tdat_report_n(struct tdat_file *const *files, size_t n, FILE *out,
    const struct tdat_report_opts *, struct tdat_err *e);

/* How outputs that give a field's value read it (lib/event/fieldkind.c):
 * the element size of an array whose format gives none, from its C type;
 * text (char, not unsigned char) against bytes; and the kind of every
 * field, into kind[ev->nfields] (zeroed by the caller: TDAT_KIND_INT). */
struct tdat_event;
enum { TDAT_KIND_INT, TDAT_KIND_ADDR, TDAT_KIND_SYM };
int tdat_field_elem_size(const char *type, int lsize);
int tdat_field_is_text(const char *type);
void tdat_field_kinds(const struct tdat_event *ev, unsigned char *kind);
/* The size of common_type in f's records, from the first format the file
 * holds (2 when none says). */
struct tdat_file;
int tdat_type_size(struct tdat_file *f);

#endif
