/*
 * table.c: the events of one or more traces as tables for dataframes
 * (tdat-to-table(1), schemas/table-meta.schema.json): one CSV file per
 * event type, SYSTEM.EVENT.csv, and meta.json, which says what each table
 * holds and how to read it.
 *
 * Values are those of the JSON Lines of tdat-to-json (formats/json/
 * json-events.c), field by field, in a form a CSV reader types right:
 * integers in decimal (u64 exact: meta.json gives the dtype), addresses in
 * decimal or, with hex, as "0x..." strings, text quoted as RFC 4180 says
 * (always quoted: an empty string is "" and not a missing value), byte
 * arrays and fields of odd sizes as hex digits, other arrays as the JSON
 * array of their integers, text that is not UTF-8 as the JSON value
 * {"hex":"..."}.  The columns of a table: common_ts, common_cpu,
 * common_file (several inputs), common_buffer (instances), common_pid,
 * common_comm, the other common fields, the event's own fields in format
 * order, then FIELD_sym (the kernel symbol of an address field trace-cmd
 * prints as one) and, for trace_printk's bprint, format.  Events of no
 * known type go to unknown.csv, lost events to lost.csv, a latency
 * tracer's text to latency.csv.
 *
 * Memory.  Each table being written has a buffer of TBUF bytes and an
 * open file; at most HOT of them at once (fewer if asked: max_open): the one least recently written
 * is flushed and closed for another, and opened again (O_APPEND) when it
 * gets rows again.  However many event types there are, the buffers take
 * at most HOT * TBUF bytes.  The fast rows (row_fast()) add one cache of
 * SYMC addresses' texts (416 KiB) and, per event type, its steps.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event-int.h"
#include "tdat-json.h"
#include "tdat-num.h"
#include "tdat-opts.h"
#include "tdat-sink.h"

#define TBUF	(64 * 1024)	/* a table's write buffer */
#define HOT	128		/* tables with a buffer and an open file */
#define NUMW	24		/* room for a number */
#define FAST_COLS_MAX	64	/* columns row_fast() takes */

/* How a field's value is read (as json-events.c). */
enum { K_INT = TDAT_KIND_INT, K_ADDR = TDAT_KIND_ADDR, K_SYM = TDAT_KIND_SYM };

/* How a column is written. */
enum {
	C_TS, C_CPU, C_FILE, C_BUFFER, C_PID, C_COMM,
	C_UINT,			/* an unsigned integer of size bytes */
	C_SINT,			/* a signed one */
	C_ADDR,			/* an address: decimal, or "0x..." (hex) */
	C_STR,			/* text up to its first NUL */
	C_BYTES,		/* bytes as hex digits */
	C_ARRAY,		/* integers as a JSON array */
	C_SYM,			/* the symbol name of an address field */
	C_FORMAT,		/* bprint: the printk format at fmt */
	C_ID,			/* unknown.csv: the event id */
	C_DATA,			/* unknown.csv: the record's bytes */
	C_LOST,			/* lost.csv: events lost, empty if unknown */
	C_LINE,			/* latency.csv: a line */
	C_NEWLINE,		/* latency.csv: whether a newline ends it */
	C_ARG,			/* a printk format's argument */
};

struct col {
	int how;
	const struct tdat_field *f;	/* the field read, or NULL */
	int size;		/* bytes of an integer */
	int es;			/* element size of an array */
	int kind;		/* K_* of an array's elements */
	int common;		/* a common field (JSON: "common" or top) */
	char conv;		/* C_ARG: 'd' signed, 'u' unsigned, 'p'
				 * address, 's' string */
	char *name;
	const char *dtype;	/* pandas */
	const char *duck;	/* DuckDB */
};

struct table {
	char *system, *event;	/* NULL for the special tables */
	char *file;		/* its file name in the directory */
	struct col *cols;	/* the schema: of the first type written */
	int ncols;
	uint64_t rows;
	char *buf;		/* TBUF bytes while hot, else NULL */
	size_t len;
	int fd;			/* open while hot */
	uint64_t last;		/* when a row last came */
	int special;		/* unknown, lost, latency */
	char *format;		/* a printk format's table: the format */
};

/* The table of one trace_printk format of one input. */
struct ptab {
	const char *fmt;	/* the input's printk format (its address) */
	struct table *t;	/* NULL: the format has no table */
	struct col *cols;
	int ncols;
};

/* One event type of one input, and the table it goes to. */
struct tev {
	const struct tdat_event *ev;
	size_t in;
	struct table *t;
	struct col *cols;
	int ncols;
	const struct tdat_field *fmt, *buf;	/* bprint's, for its
						 * format's table */
	int fast;		/* row_fast() writes its rows */
	int nname;		/* fast: its columns of names (C_PID's comm */
	int namecol[10];	/* and C_SYM), in order */
	/* row_fast()'s steps, one a column from FAST_LEAD on */
	struct tstep *step;
	int loads;		/* 8-byte loads: a record has need bytes */
	uint32_t need, reach;	/* and avail >= reach */
	const struct tdat_field *pid;
	uint64_t pid_mask;
	int naddr;		/* its steps of addresses (OP_A, OP_SYM) */
	int check;		/* 1: of several fields (an entry of one may
				 * take the slot of another's) */
	uint8_t addr[FAST_COLS_MAX];
};

/* row_fast()'s step for a column after the leading four (common_ts,
 * common_cpu, common_pid, common_comm): where its value is and how it is
 * written. */
struct tstep {
	uint64_t mask;		/* its bytes of the 8 loaded */
	uint32_t off;
	uint8_t size;
	uint8_t op;		/* OP_* */
	uint8_t src;		/* OP_SYM: the step whose value it names */
};

enum { OP_ZERO, OP_U, OP_S, OP_A, OP_SYM };

#define FAST_LEAD	4
#define FAST_COLS	FAST_COLS_MAX	/* columns after those row_fast()
					 * takes */

#define IDC	256

struct tin {
	struct tdat_file *f;
	struct tdat_events *ev;
	int type_size;
	struct idc {
		int id;
		const struct tdat_event *ev;	/* NULL: unknown */
		struct tev *v;
	} idc[IDC];		/* the last ids seen, by id */
};

#define NAMEC	256
#define TASKC	64
#define SYMC	4096	/* row_fast()'s addresses, by value */
#define SYMC_TEXT	40	/* names up to this long: one fixed-size copy */

/* An address as row_fast() writes it: its decimal digits and, looked up
 * once asked, its symbol name. */
struct symc {
	uint64_t v;
	const struct tdat_events *set;	/* NULL: empty */
	char dec[NUMW];
	uint32_t declen;
	int looked;		/* sym and the rest are known */
	const char *s;		/* "" when none */
	uint32_t len;
	int plain;
	char text[SYMC_TEXT];	/* s when len <= SYMC_TEXT */
};

struct tw {
	const char *dir;
	struct tdat_table_opts *o;
	struct tin *in;
	size_t nin;
	int buffers;		/* some input has instance buffers */
	struct table **t;
	size_t nt;
	struct table *hot[HOT];
	int nhot, maxhot;
	uint64_t tick;
	struct tev **cache;	/* open addressing on (event, input) */
	size_t ncache, capcache;
	struct table *unknown, *lost, *latency;
	struct ptab *ptab;	/* open addressing on the format's address */
	size_t nptab, capptab;
	int nformat;		/* printk format tables made */
	struct tdat_sbuf sb;	/* scratch */
	uint64_t first_ts, last_ts;
	int any;
	struct tdat_err *e;
	int err;		/* a write failed: the code, e filled */
	struct namec {
		const char *s;
		size_t len;
		int plain;
	} names[NAMEC];		/* names (comms, symbols), by address */
	/* the last pid's comm */
	int comm_pid;
	size_t comm_in;
	const char *comm;
	struct symc *syms;	/* SYMC of them, made on first use */
	struct jn_hi hi;	/* the high digits of the last number */
	/* row_fast(): tasks' cells, "PID,\"COMM\"", by pid */
	struct taskc {
		int pid;
		const char *comm;
		size_t len;	/* 0: none */
		char text[64];
	} task[TASKC];
};

/* ------------------------------------------------------------------ */
/* Files and buffers. */

static int
wfail(struct tw *w, const struct table *t, const char *what)
{
	w->o->out_failed = 1;
	if (!w->err)
		w->err = tdat_fail_nooff(w->e, errno == ENOMEM ? TDAT_ENOMEM :
		    TDAT_EIO, "%s: %s: %s", t ? t->file : "meta.json", what,
		    strerror(errno));
	return w->err;
}

static int
topen(struct tw *w, struct table *t, int create)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", w->dir, t->file) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return wfail(w, t, "cannot create");
	}
	t->fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC |
	    (create ? O_CREAT | O_EXCL : 0), 0666);
	if (t->fd < 0)
		return wfail(w, t, create ? "cannot create" : "cannot open");
	return 0;
}

static int
tflush(struct tw *w, struct table *t)
{
	size_t done = 0;
	ssize_t k;

	if (t->len == 0 || w->err)
		return w->err;
	if (t->fd < 0 && topen(w, t, 0) < 0)
		return w->err;
	while (done < t->len) {
		k = write(t->fd, t->buf + done, t->len - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			return wfail(w, t, "write error");
		}
		done += (size_t)k;
	}
	t->len = 0;
	return 0;
}

/* Flush and close a table and give up its buffer. */
static int
tcool(struct tw *w, struct table *t)
{
	int i;

	tflush(w, t);
	if (t->fd >= 0 && close(t->fd) < 0)
		wfail(w, t, "write error");
	t->fd = -1;
	free(t->buf);
	t->buf = NULL;
	for (i = 0; i < w->nhot; i++)
		if (w->hot[i] == t) {
			w->hot[i] = w->hot[--w->nhot];
			break;
		}
	return w->err;
}

/* Make t hot: a buffer and an open file, cooling the table least
 * recently written when HOT are. */
static int
theat(struct tw *w, struct table *t)
{
	struct table *old;
	int i, k;

	if (t->buf)
		return 0;
	if (w->nhot >= w->maxhot) {
		for (i = 1, k = 0; i < w->nhot; i++)
			if (w->hot[i]->last < w->hot[k]->last)
				k = i;
		old = w->hot[k];
		if (tcool(w, old) < 0)
			return w->err;
	}
	if ((t->buf = malloc(TBUF)) == NULL) {
		errno = ENOMEM;
		return wfail(w, t, "out of memory");
	}
	t->len = 0;
	w->hot[w->nhot++] = t;
	return 0;
}

static void
put_slow(struct tw *w, struct table *t, const char *s, size_t n)
{
	size_t k;

	while (n > 0) {
		if (t->len == TBUF && tflush(w, t) < 0)
			return;
		k = TBUF - t->len;
		if (k > n)
			k = n;
		memcpy(t->buf + t->len, s, k);
		t->len += k;
		s += k;
		n -= k;
	}
}

static inline void
put(struct tw *w, struct table *t, const char *s, size_t n)
{
	if (TBUF - t->len >= n) {
		memcpy(t->buf + t->len, s, n);
		t->len += n;
	} else {
		put_slow(w, t, s, n);
	}
}

static inline void
putc1(struct tw *w, struct table *t, char c)
{
	if (t->len == TBUF && tflush(w, t) < 0)
		return;
	t->buf[t->len++] = c;
}

/* ------------------------------------------------------------------ */
/* Values. */

/* A magnitude m (negative: with a minus) in decimal: one fixed-size copy
 * when there is room. */
static inline char *num_at(char *, uint64_t, int);

static inline void
put_num(struct tw *w, struct table *t, uint64_t m, int neg)
{
	char d[NUMW], *end = d + sizeof(d), *q;

	if (TBUF - t->len >= NUMW) {
		t->len = (size_t)(num_at(t->buf + t->len, m, neg) - t->buf);
		return;
	}
	q = tdat_udec_digits(end, m);
	if (neg)
		*--q = '-';
	put_slow(w, t, q, (size_t)(end - q));
}

static inline void
put_u64(struct tw *w, struct table *t, uint64_t v)
{
	put_num(w, t, v, 0);
}

static inline void
put_i64(struct tw *w, struct table *t, int64_t v)
{
	put_num(w, t, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
}

static const char hx[] = "0123456789abcdef";

static void
put_hex(struct tw *w, struct table *t, const unsigned char *s, size_t n)
{
	char b[256];
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		b[k++] = hx[s[i] >> 4];
		b[k++] = hx[s[i] & 15];
		if (k == sizeof(b)) {
			put(w, t, b, k);
			k = 0;
		}
	}
	put(w, t, b, k);
}

/* A string cell whose bytes need nothing done: printable ASCII but '"'. */
static int
plain(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80 || s[i] == '"')
			return 0;
	return 1;
}

/* A string cell: quoted, '"' doubled; bytes that are not UTF-8 as the
 * JSON value {"hex":"..."} (quoted in turn). */
static void
put_str(struct tw *w, struct table *t, const void *sv, size_t n)
{
	const unsigned char *s = sv, *q;
	unsigned m = 0;
	size_t i;

	for (i = 0; i < n; i++)
		m |= s[i];
	if ((m & 0x80) && !tdat_utf8_ok(s, n)) {
		put(w, t, "\"{\"\"hex\"\":\"\"", 12);
		put_hex(w, t, s, n);
		put(w, t, "\"\"}\"", 4);
		return;
	}
	putc1(w, t, '"');
	while (n > 0 && (q = memchr(s, '"', n)) != NULL) {
		put(w, t, (const char *)s, (size_t)(q - s) + 1);
		putc1(w, t, '"');
		n -= (size_t)(q - s) + 1;
		s = q + 1;
	}
	put(w, t, (const char *)s, n);
	putc1(w, t, '"');
}

/* The comm of a pid. */
static const char *
comm_of(struct tw *w, size_t k, int pid)
{
	if (w->comm == NULL || w->comm_pid != pid || w->comm_in != k) {
		w->comm = tdat_events_comm(w->in[k].ev, pid);
		w->comm_pid = pid;
		w->comm_in = k;
	}
	return w->comm;
}

static inline void
put_addr(struct tw *w, struct table *t, uint64_t v)
{
	char d[NUMW], *end = d + sizeof(d), *p;

	if (!w->o->hex) {
		put_u64(w, t, v);
		return;
	}
	*--end = '"';
	p = tdat_hex_digits(end, v);
	*--p = 'x';
	*--p = '0';
	*--p = '"';
	put(w, t, p, (size_t)(end + 1 - p));
}

/* An array of integers as the JSON array text of a quoted cell. */
static void
put_array(struct tw *w, struct table *t, const struct col *c,
    const unsigned char *p, uint32_t len, int big)
{
	struct tdat_sbuf *b = &w->sb;
	uint32_t i, n = len / (uint32_t)c->es;
	uint64_t v;
	char d[NUMW], *end = d + sizeof(d), *q;

	tdat_sb_reset(b);
	tdat_sb_putc(b, '[');
	for (i = 0; i < n; i++) {
		if (i)
			tdat_sb_putc(b, ',');
		v = tdat_getn(p + (size_t)i * (size_t)c->es, c->es, big);
		if (c->kind != K_INT && w->o->hex) {
			q = tdat_hex_digits(end, v);
			tdat_sb_puts(b, "\"0x");
			tdat_sb_add(b, q, (size_t)(end - q));
			tdat_sb_putc(b, '"');
			continue;
		}
		if (c->kind == K_INT && c->f && (c->f->flags & TDAT_FLD_SIGNED) &&
		    tdat_sext(v, c->es) < 0) {
			tdat_sb_putc(b, '-');
			v = -(uint64_t)tdat_sext(v, c->es);
		}
		q = tdat_udec_digits(end, v);
		tdat_sb_add(b, q, (size_t)(end - q));
	}
	tdat_sb_putc(b, ']');
	if (b->oom) {
		errno = ENOMEM;
		wfail(w, t, "out of memory");
		return;
	}
	put_str(w, t, b->p, b->len);
}

/* A name that stays where it is while the inputs' events live (a comm,
 * a symbol, a printk format), as a string cell. */
static inline void
put_name(struct tw *w, struct table *t, const char *s)
{
	struct namec *c = &w->names[((uintptr_t)s >> 3) % NAMEC];

	if (c->s != s) {
		c->s = s;
		c->len = strlen(s);
		c->plain = plain(s, c->len);
	}
	if (!c->plain || TBUF - t->len < c->len + 2) {
		put_str(w, t, s, c->len);
		return;
	}
	t->buf[t->len] = '"';
	memcpy(t->buf + t->len + 1, s, c->len);
	t->buf[t->len + c->len + 1] = '"';
	t->len += c->len + 2;
}

/* ------------------------------------------------------------------ */
/* Columns. */

static const char *
udtype(int size, const char **duck)
{
	switch (size) {
	case 1:
		*duck = "UTINYINT";
		return "uint8";
	case 2:
		*duck = "USMALLINT";
		return "uint16";
	case 4:
		*duck = "UINTEGER";
		return "uint32";
	}
	*duck = "UBIGINT";
	return "uint64";
}

static const char *
sdtype(int size, const char **duck)
{
	switch (size) {
	case 1:
		*duck = "TINYINT";
		return "int8";
	case 2:
		*duck = "SMALLINT";
		return "int16";
	case 4:
		*duck = "INTEGER";
		return "int32";
	}
	*duck = "BIGINT";
	return "int64";
}

/* A byte of a column name as col_add() keeps it. */
static char
name_byte(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' ? c : '_';
}

static int
col_add(struct col **cols, int *n, int how, const char *name,
    const struct tdat_field *f)
{
	struct col *c, *v;
	char *q;

	if ((v = realloc(*cols, (size_t)(*n + 1) * sizeof(*v))) == NULL)
		return -1;
	*cols = v;
	c = &v[*n];
	memset(c, 0, sizeof(*c));
	if ((c->name = strdup(*name ? name : "_")) == NULL)
		return -1;
	(*n)++;
	/* a damaged format's name stays one CSV field and JSON string */
	for (q = c->name; *q; q++)
		*q = name_byte(*q);
	c->how = how;
	c->f = f;
	c->dtype = "str";
	c->duck = "VARCHAR";
	switch (how) {
	case C_TS:
		c->dtype = udtype(8, &c->duck);
		break;
	case C_CPU: case C_PID: case C_ID:
		c->dtype = sdtype(4, &c->duck);
		break;
	case C_LOST:
		c->dtype = "Int64";
		c->duck = "BIGINT";
		break;
	case C_NEWLINE:
		c->dtype = "bool";
		c->duck = "BOOLEAN";
		break;
	}
	return 0;
}

/* The column of a field, as json-events.c's value() writes it. */
static void
col_plan(struct col *c, const struct tdat_field *f, int kind, int lsize,
    int hex)
{
	int str = (f->flags & TDAT_FLD_STRING) != 0 && tdat_field_is_text(f->type), es;

	c->f = f;
	c->kind = kind;
	if ((f->flags & TDAT_FLD_ARRAY) || f->size == 0) {
		es = f->elemsize;
		if (f->size == 0 && !(f->flags & TDAT_FLD_DYNAMIC)) {
			es = tdat_field_elem_size(f->type, lsize);
			str = es == 1 && tdat_field_is_text(f->type);
		}
		if (es != 1 && es != 2 && es != 4 && es != 8)
			es = (f->flags & TDAT_FLD_LONG) ? lsize : 1;
		c->es = es;
		c->how = str ? C_STR : es == 1 && kind == K_INT ? C_BYTES :
		    C_ARRAY;
		return;
	}
	if (f->size < 0 || (f->size <= 8 && (f->size & (f->size - 1)) == 0)) {
		c->size = f->size > 0 ? f->size : 8;
		if (kind != K_INT) {
			c->how = C_ADDR;
			if (!hex)
				c->dtype = udtype(c->size, &c->duck);
		} else if (f->flags & TDAT_FLD_SIGNED) {
			c->how = C_SINT;
			c->dtype = sdtype(c->size, &c->duck);
		} else {
			c->how = C_UINT;
			c->dtype = udtype(c->size, &c->duck);
		}
		return;
	}
	c->how = C_BYTES;		/* an odd size: its bytes */
}

static int
is_main_common(const char *name)
{
	return strcmp(name, "common_type") == 0 ||
	    strcmp(name, "common_pid") == 0 ||
	    strcmp(name, "common_flags") == 0 ||
	    strcmp(name, "common_preempt_count") == 0;
}

/* The columns every table begins with. */
static int
lead_cols(struct tw *w, struct col **cols, int *n)
{
	if (col_add(cols, n, C_TS, "common_ts", NULL) < 0 ||
	    col_add(cols, n, C_CPU, "common_cpu", NULL) < 0)
		return -1;
	if (w->nin > 1 && col_add(cols, n, C_FILE, "common_file", NULL) < 0)
		return -1;
	if (w->buffers && col_add(cols, n, C_BUFFER, "common_buffer",
	    NULL) < 0)
		return -1;
	return 0;
}

/* Whether cols has a column named name (as col_add() would keep it). */
static int
has_col(const struct col *cols, int n, const char *name)
{
	const char *a, *b;
	int i;

	if (*name == '\0')
		name = "_";
	for (i = 0; i < n; i++) {
		for (a = cols[i].name, b = name; *a && *b &&
		    *a == name_byte(*b); a++, b++)
			;
		if (*a == '\0' && *b == '\0')
			return 1;
	}
	return 0;
}

/* The columns of an event type. */
static int
event_cols(struct tw *w, const struct tdat_event *ev, int lsize,
    struct col **cols, int *n)
{
	const struct tdat_field *f;
	unsigned char *kind;
	char name[300];
	int i;

	if (lead_cols(w, cols, n) < 0 ||
	    col_add(cols, n, C_PID, "common_pid", NULL) < 0 ||
	    col_add(cols, n, C_COMM, "common_comm", NULL) < 0)
		return -1;
	/* common_flags, common_preempt_count: unsigned, as JSON's "flags" */
	for (i = 0; i < 2; i++) {
		const char *cn = i ? "common_preempt_count" : "common_flags";

		f = tdat_event_field(ev, cn);
		if (col_add(cols, n, C_UINT, cn, f) < 0)
			return -1;
		(*cols)[*n - 1].common = 1;
		(*cols)[*n - 1].size = f && f->size >= 1 && f->size <= 8 &&
		    !(f->size & (f->size - 1)) ? f->size : 8;
		(*cols)[*n - 1].dtype = udtype((*cols)[*n - 1].size,
		    &(*cols)[*n - 1].duck);
	}
	for (i = 0; i < ev->ncommon; i++) {
		f = &ev->common[i];
		if (is_main_common(f->name) || has_col(*cols, *n, f->name))
			continue;
		if (col_add(cols, n, C_UINT, f->name, f) < 0)
			return -1;
		col_plan(&(*cols)[*n - 1], f, K_INT, lsize, w->o->hex);
		(*cols)[*n - 1].common = 1;
	}
	if ((kind = calloc((size_t)ev->nfields + 1, 1)) == NULL)
		return -1;
	tdat_field_kinds(ev, kind);
	for (i = 0; i < ev->nfields; i++) {
		f = &ev->fields[i];
		if (has_col(*cols, *n, f->name))
			continue;	/* a damaged format */
		if (col_add(cols, n, C_UINT, f->name, f) < 0)
			goto fail;
		col_plan(&(*cols)[*n - 1], f, kind[i], lsize, w->o->hex);
	}
	for (i = 0; i < ev->nfields; i++) {
		f = &ev->fields[i];
		if (kind[i] != K_SYM || (f->flags & (TDAT_FLD_ARRAY |
		    TDAT_FLD_DYNAMIC)) || (f->size != 1 && f->size != 2 &&
		    f->size != 4 && f->size != 8))
			continue;
		snprintf(name, sizeof(name), "%s_sym", f->name);
		if (has_col(*cols, *n, name))
			continue;
		if (col_add(cols, n, C_SYM, name, f) < 0)
			goto fail;
		(*cols)[*n - 1].size = f->size;
	}
	if ((ev->flags & TDAT_EV_BPRINT) && (f = tdat_event_field(ev,
	    "fmt")) != NULL && !has_col(*cols, *n, "format") &&
	    f->size >= 1 && f->size <= 8 && !(f->size & (f->size - 1))) {
		if (col_add(cols, n, C_FORMAT, "format", f) < 0)
			goto fail;
		(*cols)[*n - 1].size = f->size;
	}
	free(kind);
	return 0;
fail:
	free(kind);
	return -1;
}

static void
cols_free(struct col *cols, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(cols[i].name);
	free(cols);
}

/* ------------------------------------------------------------------ */
/* Tables. */

/* A file name's piece: letters, digits, '_', '-' and '+' kept, any
 * other byte '_'; at most 100 bytes. */
static void
clean(struct tdat_sbuf *b, const char *s)
{
	size_t i;

	if (*s == '\0')
		tdat_sb_putc(b, '_');
	for (i = 0; s[i] && i < 100; i++) {
		unsigned char c = (unsigned char)s[i];

		tdat_sb_putc(b, (c >= 'a' && c <= 'z') || (c >= 'A' &&
		    c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		    c == '-' || c == '+' ? (char)c : '_');
	}
}

static int
name_used(const struct tw *w, const char *file)
{
	size_t i;

	for (i = 0; i < w->nt; i++)
		if (strcmp(w->t[i]->file, file) == 0)
			return 1;
	return 0;
}

/* A new table: its file created, its header in its buffer. */
static struct table *
table_new(struct tw *w, const char *sys, const char *event, const char *base,
    struct col *cols, int ncols)
{
	struct table *t, **v;
	struct tdat_sbuf b;
	int i, k;

	if ((v = realloc(w->t, (w->nt + 1) * sizeof(*v))) == NULL)
		goto oom;
	w->t = v;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		goto oom;
	t->fd = -1;
	tdat_sb_init(&b);
	if (base) {
		tdat_sb_puts(&b, base);
	} else {
		clean(&b, sys);
		tdat_sb_putc(&b, '.');
		clean(&b, event);
	}
	k = (int)b.len;
	tdat_sb_puts(&b, ".csv");
	for (i = 2; !b.oom && name_used(w, tdat_sb_str(&b)); i++) {
		b.len = (size_t)k;
		tdat_sb_printf(&b, "-%d.csv", i);
	}
	t->file = b.oom ? NULL : strdup(tdat_sb_str(&b));
	tdat_sb_free(&b);
	t->system = sys ? strdup(sys) : NULL;
	t->event = event ? strdup(event) : NULL;
	w->t[w->nt++] = t;
	if (t->file == NULL || (sys && t->system == NULL) ||
	    (event && t->event == NULL))
		goto oom;
	t->special = sys == NULL;
	if (topen(w, t, 1) < 0 || theat(w, t) < 0)
		return NULL;
	for (i = 0; i < ncols; i++) {
		if (i)
			putc1(w, t, ',');
		put(w, t, cols[i].name, strlen(cols[i].name));
	}
	putc1(w, t, '\n');
	if (w->err)
		return NULL;
	/* the table owns its columns from now on */
	t->cols = cols;
	t->ncols = ncols;
	return t;
oom:
	errno = ENOMEM;
	wfail(w, NULL, "out of memory");
	return NULL;
}

/* Whether two column lists make the same table. */
static int
same_schema(const struct col *a, int na, const struct col *b, int nb)
{
	int i;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++)
		if (strcmp(a[i].name, b[i].name) != 0 ||
		    strcmp(a[i].dtype, b[i].dtype) != 0)
			return 0;
	return 1;
}

static int fast_steps(struct tev *);

static size_t
tev_slot(struct tev *const *t, size_t cap, const struct tdat_event *ev)
{
	size_t k = ((uintptr_t)ev >> 4) * 2654435761u & (cap - 1);

	while (t[k] && t[k]->ev != ev)
		k = (k + 1) & (cap - 1);
	return k;
}

static struct tev *
tev_new(struct tw *w, size_t in, const struct tdat_event *ev)
{
	struct tev *v = calloc(1, sizeof(*v));
	size_t i;
	int nsym;

	if (v == NULL)
		return NULL;
	v->ev = ev;
	v->in = in;
	if (event_cols(w, ev, w->in[in].f->lsize, &v->cols, &v->ncols) < 0)
		goto fail;
	if ((ev->flags & TDAT_EV_BPRINT) && has_col(v->cols, v->ncols,
	    "format")) {
		v->fmt = tdat_event_field(ev, "fmt");
		v->buf = tdat_event_field(ev, "buf");
		if (v->buf == NULL || v->buf->offset < 0)
			v->fmt = NULL;
	}
	v->fast = w->nin == 1 && !w->buffers && v->fmt == NULL &&
	    (size_t)v->ncols * (NUMW + 1) + 1 <= TBUF / 2;
	for (i = 0, nsym = 0; v->fast && i < (size_t)v->ncols; i++) {
		int how = v->cols[i].how;

		nsym += how == C_SYM;
		v->fast = (how == C_TS || how == C_CPU || how == C_PID ||
		    how == C_COMM || how == C_UINT || how == C_SINT ||
		    (how == C_ADDR && !w->o->hex) || how == C_SYM) &&
		    (v->cols[i].f == NULL || (v->cols[i].f->size >= 0 &&
		    v->cols[i].size == v->cols[i].f->size)) && nsym <= 8;
		if (v->fast && (how == C_PID || how == C_SYM))
			v->namecol[v->nname++] = (int)i;
	}
	if (v->fast && (v->ncols < FAST_LEAD || v->ncols - FAST_LEAD >
	    FAST_COLS || v->cols[0].how != C_TS || v->cols[1].how != C_CPU ||
	    v->cols[2].how != C_PID || v->cols[3].how != C_COMM))
		v->fast = 0;
	if (v->fast && ((w->syms == NULL && (w->syms = calloc(SYMC,
	    sizeof(*w->syms))) == NULL) || fast_steps(v) < 0))
		goto fail;
	for (i = 0; i < w->nt; i++) {
		struct table *t = w->t[i];

		if (!t->special && !t->format &&
		    strcmp(t->system, ev->system) == 0 &&
		    strcmp(t->event, ev->name) == 0 &&
		    same_schema(t->cols, t->ncols, v->cols, v->ncols)) {
			v->t = t;
			return v;
		}
	}
	if ((v->t = table_new(w, ev->system, ev->name, NULL, v->cols,
	    v->ncols)) == NULL)
		goto fail;
	return v;
fail:
	if (v->t == NULL || v->t->cols != v->cols)
		cols_free(v->cols, v->ncols);
	free(v->step);
	free(v);
	return NULL;
}

/* The table of an event type (events are per input, so the pointer
 * names the input too). */
static struct tev *
tev_get(struct tw *w, size_t in, const struct tdat_event *ev)
{
	struct tev **t;
	size_t i, k, cap;

	if (w->cache) {
		k = tev_slot(w->cache, w->capcache, ev);
		if (w->cache[k])
			return w->cache[k];
	}
	if ((w->ncache + 1) * 2 > w->capcache) {
		cap = w->capcache ? w->capcache * 2 : 64;
		if ((t = calloc(cap, sizeof(*t))) == NULL)
			return NULL;
		for (i = 0; i < w->capcache; i++)
			if (w->cache[i])
				t[tev_slot(t, cap, w->cache[i]->ev)] =
				    w->cache[i];
		free(w->cache);
		w->cache = t;
		w->capcache = cap;
	}
	k = tev_slot(w->cache, w->capcache, ev);
	if ((w->cache[k] = tev_new(w, in, ev)) == NULL)
		return NULL;
	w->ncache++;
	return w->cache[k];
}

/* A special table, made on first use. */
static struct table *
special(struct tw *w, struct table **slot, const char *base, int what)
{
	struct col *cols = NULL;
	int n = 0;

	if (*slot)
		return *slot;
	if (what != C_LINE && lead_cols(w, &cols, &n) < 0)
		goto oom;
	switch (what) {
	case C_ID:
		if (col_add(&cols, &n, C_ID, "id", NULL) < 0 ||
		    col_add(&cols, &n, C_DATA, "data", NULL) < 0)
			goto oom;
		break;
	case C_LOST:
		if (col_add(&cols, &n, C_LOST, "lost", NULL) < 0)
			goto oom;
		break;
	case C_LINE:
		if ((w->buffers && col_add(&cols, &n, C_BUFFER,
		    "common_buffer", NULL) < 0) ||
		    col_add(&cols, &n, C_LINE, "line", NULL) < 0 ||
		    col_add(&cols, &n, C_NEWLINE, "newline", NULL) < 0)
			goto oom;
		break;
	}
	if ((*slot = table_new(w, NULL, NULL, base, cols, n)) == NULL) {
		cols_free(cols, n);
		return NULL;
	}
	return *slot;
oom:
	cols_free(cols, n);
	errno = ENOMEM;
	wfail(w, NULL, "out of memory");
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Rows. */

static int
row_begin(struct tw *w, struct table *t)
{
	if (!t->buf && theat(w, t) < 0)
		return -1;
	t->last = ++w->tick;
	t->rows++;
	return 0;
}

/* The leading cells; returns how many columns they took. */
static inline int
lead(struct tw *w, struct table *t, const struct col *cols, size_t k,
    const struct tdat_record *r)
{
	struct tdat_file *f = w->in[k].f;
	int i = 2;

	put_u64(w, t, r->ts);
	putc1(w, t, ',');
	put_i64(w, t, r->cpu);
	if (cols[i].how == C_FILE) {
		putc1(w, t, ',');
		put_str(w, t, tdat_file_path(f), strlen(tdat_file_path(f)));
		i++;
	}
	if (cols[i].how == C_BUFFER) {
		const char *b = r->buffer > 0 ? f->buf[r->buffer].name : "";

		putc1(w, t, ',');
		put_str(w, t, b, strlen(b));
		i++;
	}
	return i;
}

/* The cell of column c of event type v for record r (after its comma);
 * *pid is the record's pid once its common_pid cell is written. */
static inline void
cell(struct tw *w, struct table *t, const struct tev *v, const struct col *c,
    size_t k, const struct tdat_record *r, int *pid)
{
	const struct tdat_field *f = c->f;
	int big = w->in[k].f->big;
	uint32_t off, len;
	uint64_t x;
	const char *s;

	switch (c->how) {
	case C_PID:
		*pid = (int)(v->ev->pid ? tdat_field_read(v->ev,
		    v->ev->pid, r->data, r->size) : 0);
		put_i64(w, t, *pid);
		break;
	case C_COMM:
		put_name(w, t, comm_of(w, k, *pid));
		break;
	case C_UINT: case C_SINT: case C_ADDR:
		x = f == NULL || f->size < 0 || (uint32_t)f->offset +
		    (uint32_t)f->size > r->size ? 0 :
		    tdat_getn(r->data + f->offset, c->size, big);
		if (c->how == C_ADDR)
			put_addr(w, t, x);
		else if (c->how == C_SINT)
			put_i64(w, t, tdat_sext(x, c->size));
		else
			put_u64(w, t, x);
		break;
	case C_STR: {
		const unsigned char *nul;

		tdat_field_span(f, r->data, r->size, big, &off, &len);
		nul = memchr(r->data + off, 0, len);
		put_str(w, t, r->data + off, nul ?
		    (size_t)(nul - (r->data + off)) : len);
		break;
	}
	case C_BYTES:
		/* quoted: no bytes is "", not a missing value */
		putc1(w, t, '"');
		if (!(f->flags & TDAT_FLD_ARRAY) && f->size != 0) {
			/* an odd size (none past the record) */
			if ((uint32_t)f->offset + (uint32_t)f->size <=
			    r->size)
				put_hex(w, t, r->data + f->offset,
				    (size_t)f->size);
		} else {
			tdat_field_span(f, r->data, r->size, big, &off, &len);
			put_hex(w, t, r->data + off, len);
		}
		putc1(w, t, '"');
		break;
	case C_ARRAY:
		tdat_field_span(f, r->data, r->size, big, &off, &len);
		put_array(w, t, c, r->data + off, len, big);
		break;
	case C_SYM:
	case C_FORMAT:
		x = (uint32_t)f->offset + (uint32_t)f->size > r->size ?
		    0 : tdat_getn(r->data + f->offset, c->size, big);
		s = x == 0 ? NULL : c->how == C_SYM ?
		    tdat_events_sym(w->in[k].ev, x, NULL) :
		    tdat_events_printk(w->in[k].ev, x);
		if (s)
			put_name(w, t, s);
		else
			put(w, t, "\"\"", 2);
		break;
	}
}

static void printk_row(struct tw *, const struct tev *, size_t,
    const struct tdat_record *);

/* The digits of a magnitude m (negative: with a minus) at p, which has
 * NUMW bytes of room: one fixed-size copy; returns the end. */
static inline char *
num_at(char *p, uint64_t m, int neg)
{
	if (neg)
		*p++ = '-';
	if (m < 10) {
		*p = (char)('0' + m);
		return p + 1;
	}
	p += tdat_udec_len(m);
	tdat_udec_digits(p, m);
	return p;
}

/* The need and reach of a field row_fast() loads 8 bytes of; returns
 * the mask of its bytes (loads off when it cannot). */
static uint64_t
fast_reach(struct tev *v, const struct tdat_field *f)
{
	return tdat_field_reach(f, &v->loads, &v->need, &v->reach);
}

/* row_fast()'s steps of a fast event type; -1: no memory. */
static int
fast_steps(struct tev *v)
{
	const struct col *c;
	struct tstep *s;
	int i;

	if ((v->step = calloc((size_t)v->ncols + 1, sizeof(*s))) == NULL)
		return -1;
	v->loads = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
	    !(v->ev->set && v->ev->set->big);
	v->need = 0;
	v->reach = 8;	/* (a step of no field loads at 0) */
	v->pid = v->ev->pid;
	if (v->pid)
		v->pid_mask = fast_reach(v, v->pid);
	for (i = FAST_LEAD; i < v->ncols; i++) {
		c = &v->cols[i];
		s = &v->step[i - FAST_LEAD];
		if (c->f == NULL) {
			s->op = OP_ZERO;
			continue;
		}
		s->op = c->how == C_SYM ? OP_SYM : c->how == C_ADDR ? OP_A :
		    c->how == C_SINT ? OP_S : OP_U;
		s->off = (uint32_t)c->f->offset;
		s->size = (uint8_t)c->size;
		s->mask = fast_reach(v, c->f);
		if (s->op == OP_A || s->op == OP_SYM) {
			if (v->naddr > 0 && (v->step[v->addr[0]].off !=
			    s->off || v->step[v->addr[0]].size != s->size))
				v->check = 1;
			v->addr[v->naddr++] = (uint8_t)(i - FAST_LEAD);
		}
	}
	return 0;
}

/* A name's length and whether it goes between quotes as it is. */
static inline const struct namec *
name_of(struct tw *w, const char *s)
{
	struct namec *c = &w->names[((uintptr_t)s >> 3) % NAMEC];

	if (c->s != s) {
		c->s = s;
		c->len = strlen(s);
		c->plain = plain(s, c->len);
	}
	return c;
}

/* The entry of address x of input k: its decimal digits made. */
static inline struct symc *
sym_entry(struct tw *w, size_t k, uint64_t x)
{
	struct symc *c = &w->syms[(x >> 4 ^ x >> 16) % SYMC];
	char d[NUMW + 8];

	if (c->v != x || c->set != w->in[k].ev) {
		c->v = x;
		c->set = w->in[k].ev;
		c->declen = (uint32_t)(jn_u64(d, x) - d);
		memcpy(c->dec, d, NUMW);
		c->looked = 0;
	}
	return c;
}

/* sym_entry() with its symbol name looked up. */
static inline struct symc *
sym_named(struct tw *w, size_t k, uint64_t x)
{
	struct symc *c = sym_entry(w, k, x);
	const struct namec *n;
	const char *s;

	if (!c->looked) {
		s = x ? tdat_events_sym(w->in[k].ev, x, NULL) : NULL;
		n = name_of(w, s ? s : "");
		c->s = n->s;
		c->len = n->len <= UINT32_MAX / 2 ? (uint32_t)n->len : 0;
		c->plain = n->plain && n->len <= UINT32_MAX / 2;
		memset(c->text, 0, sizeof(c->text));
		if (n->len <= SYMC_TEXT)
			memcpy(c->text, n->s, n->len);
		c->looked = 1;
	}
	return c;
}

/* The cells "PID,\"COMM\"" of a task, kept by pid. */
static inline struct taskc *
task_of(struct tw *w, int pid)
{
	return &w->task[(unsigned)pid % TASKC];
}

/* Those cells at p (room: NUMW + 3 + the comm's length + 8), made once
 * for each task; returns the end. */
static inline char *
put_task(struct tw *w, char *p, int pid, const struct namec *comm)
{
	struct taskc *c = task_of(w, pid);
	char *start = p;

	if (c->len != 0 && c->pid == pid && c->comm == comm->s) {
		memcpy(p, c->text, sizeof(c->text));
		return p + c->len;
	}
	if (pid < 0)
		*p++ = '-';
	p = jn_u64(p, pid < 0 ? -(uint64_t)pid : (uint64_t)pid);
	*p++ = ',';
	*p++ = '"';
	memcpy(p, comm->s, comm->len);
	p += comm->len;
	*p++ = '"';
	c->len = 0;
	if ((size_t)(p - start) <= sizeof(c->text)) {
		memcpy(c->text, start, (size_t)(p - start));
		c->len = (size_t)(p - start);
		c->pid = pid;
		c->comm = comm->s;
	}
	return p;
}

/* The decimal digits of v at p (NUMW bytes of room and 8 more): the
 * small ones inline; returns the end. */
static inline __attribute__((always_inline)) char *
tnum(char *p, uint64_t v, struct jn_hi *h)
{
	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	if (v < 100000000)
		return jn_dec_short(p, (uint32_t)v);
	return jn_u64_hi(p, v, h);
}

#define FAST_SLACK	64	/* bytes a fixed-size copy may store past
				 * the end of a row */

/*
 * The row of a record of a type of integers, a comm and symbol names
 * (tev.fast), laid out straight in its table's buffer by the type's
 * steps: the bytes cell() writes.  1, having written nothing, when a
 * name needs quoting.
 */
static int
row_fast(struct tw *w, const struct tev *v, size_t k,
    const struct tdat_record *r)
{
	struct table *t = v->t;
	const struct tstep *s;
	const struct symc *sc[FAST_COLS];
	struct namec comm;
	struct taskc *tc;
	uint64_t val[FAST_COLS], x;
	int big = w->in[k].f->big, i, a, n = v->ncols - FAST_LEAD, pid, loads;
	size_t need;
	char *p;

	if (n > FAST_COLS || w->syms == NULL)
		return 1;
	loads = v->loads && !big && r->size >= v->need &&
	    r->avail >= v->reach;
	if (loads) {
		pid = 0;
		if (v->pid) {
			memcpy(&x, r->data + v->pid->offset, 8);
			pid = (int)(x & v->pid_mask);
		}
		for (i = 0; i < n; i++) {
			memcpy(&x, r->data + v->step[i].off, 8);
			val[i] = x & v->step[i].mask;
		}
	} else {
		pid = (int)tdat_field_read_at(v->ev, v->pid, r->data, r->size);
		for (i = 0; i < n; i++) {
			s = &v->step[i];
			val[i] = s->op == OP_ZERO ||
			    s->off + s->size > r->size ? 0 :
			    tdat_getn(r->data + s->off, s->size, big);
		}
	}
	comm.s = comm_of(w, k, pid);
	tc = task_of(w, pid);
	if (tc->len != 0 && tc->pid == pid && tc->comm == comm.s)
		comm.len = sizeof(tc->text);	/* (more than it takes) */
	else if (!(comm = *name_of(w, comm.s)).plain)
		return 1;
	need = (size_t)v->ncols * (NUMW + 1) + 1 + comm.len + 2 + FAST_SLACK;
	for (a = 0; a < v->naddr; a++) {
		i = v->addr[a];
		if (v->step[i].op == OP_A) {
			sc[i] = sym_entry(w, k, val[i]);
		} else {
			sc[i] = sym_named(w, k, val[i]);
			if (!sc[i]->plain)
				return 1;
			need += sc[i]->len + 2;
		}
	}
	/* (two in one slot: the first is gone) */
	for (a = 0; v->check && a < v->naddr; a++) {
		i = v->addr[a];
		if (sc[i]->v != val[i] || sc[i]->set != w->in[k].ev ||
		    (v->step[i].op == OP_SYM && !sc[i]->looked))
			return 1;
	}
	if (need > TBUF)
		return 1;
	if (row_begin(w, t) < 0 || (TBUF - t->len < need &&
	    tflush(w, t) < 0))
		return 0;
	p = t->buf + t->len;
	p = jn_u64_hi(p, r->ts, &w->hi);
	*p++ = ',';
	if (r->cpu >= 0 && r->cpu < 10) {
		*p++ = (char)('0' + r->cpu);
	} else {
		if (r->cpu < 0)
			*p++ = '-';
		p = jn_u64(p, r->cpu < 0 ? -(uint64_t)r->cpu :
		    (uint64_t)r->cpu);
	}
	*p++ = ',';
	p = put_task(w, p, pid, &comm);
	for (i = 0; i < n; i++) {
		s = &v->step[i];
		*p++ = ',';
		switch (s->op) {
		case OP_ZERO:
			*p++ = '0';
			break;
		case OP_U:
			p = tnum(p, val[i], &w->hi);
			break;
		case OP_S:
			x = (uint64_t)tdat_sext(val[i], s->size);
			if ((int64_t)x < 0) {
				*p++ = '-';
				x = -x;
			}
			p = tnum(p, x, &w->hi);
			break;
		case OP_A:
			memcpy(p, sc[i]->dec, NUMW);
			p += sc[i]->declen;
			break;
		default:	/* OP_SYM */
			*p++ = '"';
			if (sc[i]->len <= SYMC_TEXT)
				memcpy(p, sc[i]->text, SYMC_TEXT);
			else
				memcpy(p, sc[i]->s, sc[i]->len);
			p += sc[i]->len;
			*p++ = '"';
			break;
		}
	}
	*p++ = '\n';
	t->len = (size_t)(p - t->buf);
	return 0;
}

static void
event_row(struct tw *w, const struct tev *v, size_t k,
    const struct tdat_record *r)
{
	struct table *t = v->t;
	int i, pid = 0;

	if (v->fast && row_fast(w, v, k, r) == 0)
		return;
	if (row_begin(w, t) < 0)
		return;
	for (i = lead(w, t, v->cols, k, r); i < v->ncols; i++) {
		putc1(w, t, ',');
		cell(w, t, v, &v->cols[i], k, r, &pid);
	}
	putc1(w, t, '\n');
	if (v->fmt && !w->err)
		printk_row(w, v, k, r);
}

/* ------------------------------------------------------------------ */
/* A table per trace_printk format: bprint's arguments, decoded. */

#define MAXARGS	64

/* A column name for the argument at conversion p of fmt: the word of
 * "word=%d" or "word: %d", else argN. */
static void
arg_name(const char *fmt, const char *p, int n, char *name, size_t cap,
    const struct col *cols, int ncols)
{
	const char *e = p, *b;

	if (e > fmt && e[-1] == ' ' && e - 1 > fmt && e[-2] == ':')
		e--;
	if (e > fmt && (e[-1] == '=' || e[-1] == ':')) {
		e--;
		for (b = e; b > fmt && (b[-1] == '_' || (b[-1] >= 'a' &&
		    b[-1] <= 'z') || (b[-1] >= 'A' && b[-1] <= 'Z') ||
		    (b[-1] >= '0' && b[-1] <= '9')); b--)
			;
		if (b < e && (size_t)(e - b) < cap && !(*b >= '0' &&
		    *b <= '9')) {
			memcpy(name, b, (size_t)(e - b));
			name[e - b] = '\0';
			if (!has_col(cols, ncols, name) &&
			    strncmp(name, "common_", 7) != 0)
				return;
		}
	}
	snprintf(name, cap, "arg%d", n);
}

/*
 * The argument columns of a printk format, in the order the kernel's
 * vbin_printf() stores the arguments and lib/event/print-eval.c's
 * vbin_args() reads them: integers 4-byte aligned, of 4 bytes, a long's
 * (l, z, %p) or 8 (ll, L); strings NUL-terminated, unaligned.  -1 for a
 * format whose arguments that reading does not take one by one (a '*'
 * width, %c, %h, a '-' or ' ' flag, %p with an extension that prints
 * its argument as text): its rows stay in ftrace.bprint.csv alone.
 */
static int
printk_cols(const char *fmt, int lsize, int hex, struct col **cols, int *n)
{
	const char *p, *conv;
	char name[64];
	int ls, na = 0, size;
	char kind;

	for (p = fmt; *p; p++) {
		if (*p != '%')
			continue;
		conv = p;
		ls = 0;
		kind = 0;
		for (p++; *p; p++) {
			if (*p == 'l')
				ls++;
			else if (*p == 'L')
				ls = 2;
			else if (*p == 'z' || *p == 'Z')
				ls = 1;
			else if (!strchr("0123456789.#+", *p))
				break;
		}
		switch (*p) {
		case '%':
			if (p == conv + 1)
				continue;
			return -1;
		case 'p':
			if ((p[1] >= 'a' && p[1] <= 'z') || (p[1] >= 'A' &&
			    p[1] <= 'Z') || (p[1] >= '0' && p[1] <= '9')) {
				p++;
				if (!strchr("sSxfF", *p) || ((*p == 'f' ||
				    *p == 'F') && p[1] == 'w'))
					return -1;
			}
			ls = 1;
			kind = 'p';
			break;
		case 'd': case 'i':
			kind = 'd';
			break;
		case 'u': case 'x': case 'X': case 'o':
			kind = 'u';
			break;
		case 's':
			kind = 's';
			break;
		default:
			return -1;
		}
		if (ls > 2 || ++na > MAXARGS)
			return -1;
		size = ls == 0 ? 4 : ls == 1 ? lsize : 8;
		arg_name(fmt, conv, na, name, sizeof(name), *cols, *n);
		if (col_add(cols, n, C_ARG, name, NULL) < 0)
			return -2;
		(*cols)[*n - 1].conv = kind;
		(*cols)[*n - 1].size = size;
		if (kind == 'd')
			(*cols)[*n - 1].dtype = sdtype(size,
			    &(*cols)[*n - 1].duck);
		else if (kind == 'u' || (kind == 'p' && !hex))
			(*cols)[*n - 1].dtype = udtype(size,
			    &(*cols)[*n - 1].duck);
		if (!*p)
			break;
	}
	return 0;
}

static size_t
ptab_slot(const struct ptab *t, size_t cap, const char *fmt)
{
	size_t k = ((uintptr_t)fmt >> 3) * 2654435761u & (cap - 1);

	while (t[k].fmt && t[k].fmt != fmt)
		k = (k + 1) & (cap - 1);
	return k;
}

/* The table of printk format fmt (the columns of v up to its fields,
 * ip, then the arguments); NULL with w->err set when out of memory. */
static struct ptab *
ptab_get(struct tw *w, const struct tev *v, const char *fmt)
{
	struct ptab *pt = NULL, *np;
	struct col *cols = NULL;
	size_t i, k, cap;
	char base[48];
	int n = 0, rc, c;

	if (w->capptab && w->ptab[k = ptab_slot(w->ptab, w->capptab,
	    fmt)].fmt)
		return &w->ptab[k];
	if ((w->nptab + 1) * 2 > w->capptab) {
		cap = w->capptab ? w->capptab * 2 : 64;
		if ((np = calloc(cap, sizeof(*np))) == NULL)
			goto oom;
		for (i = 0; i < w->capptab; i++)
			if (w->ptab[i].fmt)
				np[ptab_slot(np, cap, w->ptab[i].fmt)] =
				    w->ptab[i];
		free(w->ptab);
		w->ptab = np;
		w->capptab = cap;
	}
	pt = &w->ptab[ptab_slot(w->ptab, w->capptab, fmt)];
	pt->fmt = fmt;
	w->nptab++;
	/* the columns before the fields, and ip */
	for (c = 0; c < v->ncols && (v->cols[c].f == NULL ||
	    v->cols[c].common || strcmp(v->cols[c].name, "ip") == 0); c++) {
		if (col_add(&cols, &n, v->cols[c].how, v->cols[c].name,
		    v->cols[c].f) < 0)
			goto oom;
		free(cols[n - 1].name);
		cols[n - 1] = v->cols[c];
		if ((cols[n - 1].name = strdup(v->cols[c].name)) == NULL)
			goto oom;
	}
	if ((rc = printk_cols(fmt, w->in[v->in].f->lsize, w->o->hex,
	    &cols, &n)) == -2)
		goto oom;
	if (rc < 0) {
		cols_free(cols, n);
		return pt;	/* no table */
	}
	pt->cols = cols;
	pt->ncols = n;
	for (i = 0; i < w->nt; i++)
		if (w->t[i]->format && strcmp(w->t[i]->format, fmt) == 0 &&
		    same_schema(w->t[i]->cols, w->t[i]->ncols, cols, n)) {
			pt->t = w->t[i];
			return pt;
		}
	snprintf(base, sizeof(base), "%s.%s.%d", "ftrace", "bprint",
	    ++w->nformat);
	if ((pt->t = table_new(w, v->ev->system, v->ev->name, base, cols,
	    n)) == NULL)
		return NULL;
	if ((pt->t->format = strdup(fmt)) == NULL)
		goto oom;
	return pt;
oom:
	if (pt && pt->cols != cols)
		cols_free(cols, n);
	errno = ENOMEM;
	wfail(w, NULL, "out of memory");
	return NULL;
}

/* The row of a bprint record in its format's table, when the format has
 * one and the record holds every argument. */
static void
printk_row(struct tw *w, const struct tev *v, size_t k,
    const struct tdat_record *r)
{
	const struct tdat_field *f = v->fmt;
	struct ptab *pt;
	struct table *t;
	uint64_t val[MAXARGS], x;
	uint32_t at[MAXARGS], len[MAXARGS], off;
	int big = w->in[k].f->big, i, a, pid = 0;
	const char *fmt;

	if (f->size < 1 || f->size > 8 || (f->size & (f->size - 1)) ||
	    (uint32_t)f->offset + (uint32_t)f->size > r->size)
		return;
	x = tdat_getn(r->data + f->offset, f->size, big);
	if (x == 0 || (fmt = tdat_events_printk(w->in[k].ev, x)) == NULL)
		return;
	if ((pt = ptab_get(w, v, fmt)) == NULL || (t = pt->t) == NULL)
		return;
	/* the arguments, as vbin_args() reads them */
	off = (uint32_t)v->buf->offset;
	for (i = 0, a = 0; i < pt->ncols; i++) {
		const struct col *c = &pt->cols[i];

		if (c->how != C_ARG)
			continue;
		if (c->conv == 's') {
			const unsigned char *nul;

			if (off >= r->size)
				return;
			nul = memchr(r->data + off, 0, r->size - off);
			at[a] = off;
			len[a] = nul ? (uint32_t)(nul - (r->data + off)) :
			    r->size - off;
			off += len[a++] + 1;
			continue;
		}
		off = (off + 3) & ~3u;
		if (off >= r->size || (uint32_t)c->size > r->size - off)
			return;
		val[a++] = tdat_getn(r->data + off, c->size, big);
		off += (uint32_t)c->size;
	}
	if (row_begin(w, t) < 0)
		return;
	for (i = lead(w, t, pt->cols, k, r), a = 0; i < pt->ncols; i++) {
		const struct col *c = &pt->cols[i];

		putc1(w, t, ',');
		if (c->how != C_ARG)
			cell(w, t, v, c, k, r, &pid);
		else if (c->conv == 's') {
			put_str(w, t, r->data + at[a], len[a]);
			a++;
		} else if (c->conv == 'd')
			put_i64(w, t, tdat_sext(val[a++], c->size));
		else if (c->conv == 'p')
			put_addr(w, t, val[a++]);
		else
			put_u64(w, t, val[a++]);
	}
	putc1(w, t, '\n');
}

static void
unknown_row(struct tw *w, size_t k, const struct tdat_record *r, int id)
{
	struct table *t = special(w, &w->unknown, "unknown", C_ID);
	int i;

	if (t == NULL || row_begin(w, t) < 0)
		return;
	i = lead(w, t, t->cols, k, r);
	(void)i;
	putc1(w, t, ',');
	put_i64(w, t, id);
	putc1(w, t, ',');
	putc1(w, t, '"');
	put_hex(w, t, r->data, r->size);
	putc1(w, t, '"');
	putc1(w, t, '\n');
}

static void
lost_row(struct tw *w, size_t k, const struct tdat_record *r)
{
	struct table *t = special(w, &w->lost, "lost", C_LOST);

	if (t == NULL || row_begin(w, t) < 0)
		return;
	lead(w, t, t->cols, k, r);
	putc1(w, t, ',');
	if (r->missed_count >= 0)
		put_i64(w, t, r->missed_count);
	putc1(w, t, '\n');
}

/* ------------------------------------------------------------------ */
/* A latency tracer's text: one row a line, as tdat-to-json's lines. */

#define LINE_MAX_LEN	(1u << 20)

struct latency_out {
	struct tw *w;
	struct table *t;
	const char *bname;
};

static int
latency_row(void *arg, const char *p, size_t n, int newline)
{
	struct latency_out *lo = arg;
	struct tw *w = lo->w;
	struct table *t = lo->t;

	if (row_begin(w, t) < 0)
		return w->err;
	if (w->buffers) {
		put_str(w, t, lo->bname, strlen(lo->bname));
		putc1(w, t, ',');
	}
	put_str(w, t, p, n);
	put(w, t, newline ? ",true\n" : ",false\n", newline ? 6 : 7);
	return w->err;
}

/* A latency tracer's text, a row a line (lib/read/latency.c). */
static int
latency(struct tw *w, struct tdat_file *f, int bi)
{
	struct latency_out lo = { w, NULL, f->buf[bi].name };
	int rc;

	if ((lo.t = special(w, &w->latency, "latency", C_LINE)) == NULL)
		return w->err;
	rc = tdat_latency_lines(f, bi, LINE_MAX_LEN, latency_row, &lo, w->e);
	return w->err ? w->err : rc;
}

/* ------------------------------------------------------------------ */
/* meta.json */

static void
kstr(struct tdat_jw *j, const char *key, const char *s)
{
	tdat_jw_key(j, key);
	if (s)
		tdat_jw_cstr(j, s);
	else
		tdat_jw_null(j);
}

static int
int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The selected clock of an input, or NULL. */
static const char *
clock_of(struct tdat_file *f, char *buf, size_t n)
{
	const struct tdat_optval *ov;
	struct tdat_err e;
	const char *text = NULL, *sel;
	size_t len = 0, i, sl;

	if (f->clock_data) {
		text = f->clock_data;
		len = strlen(text);
	} else if (tdat_options(f, &ov, &e) == 0) {
		for (i = 0; i < f->nopt; i++)
			if (f->opt[i].id == TDAT_OPT_TRACECLOCK) {
				text = ov[i].u.text.s;
				len = ov[i].u.text.len;
			}
	}
	if (text && (sel = tdat_clock_selected(text, len, &sl)) != NULL &&
	    sl < n) {
		memcpy(buf, sel, sl);
		buf[sl] = '\0';
		return buf;
	}
	return f->trace_clock;
}

static int
trace_id(struct tdat_file *f, uint64_t *id)
{
	const struct tdat_optval *ov;
	struct tdat_err e;
	size_t i;

	if (tdat_options(f, &ov, &e) < 0)
		return 0;
	for (i = 0; i < f->nopt; i++)
		if (f->opt[i].id == TDAT_OPT_TRACEID && ov[i].u.num.width) {
			*id = ov[i].u.num.value;
			return 1;
		}
	return 0;
}

static void
file_meta(struct tdat_jw *j, struct tdat_file *f)
{
	char clk[64];
	uint64_t id;

	tdat_jw_key(j, "trace-id");
	if (trace_id(f, &id))
		tdat_jw_hex(j, id);
	else
		tdat_jw_null(j);
	kstr(j, "trace-clock", clock_of(f, clk, sizeof(clk)));
	tdat_jw_key(j, "cpus-count");
	tdat_jw_u64(j, f->ncpus);
}

static void
table_meta(struct tdat_jw *j, const struct table *t)
{
	int i, nul = 0;

	tdat_jw_obj(j);
	tdat_jw_key(j, "event");
	if (t->system) {
		struct tdat_sbuf b;

		tdat_sb_init(&b);
		tdat_sb_printf(&b, "%s:%s", t->system, t->event);
		tdat_jw_str(j, b.p ? b.p : "", b.len);
		tdat_sb_free(&b);
	} else {
		tdat_jw_null(j);
	}
	kstr(j, "system", t->system);
	kstr(j, "name", t->event);
	if (t->special)
		kstr(j, "kind", t->file[0] == 'u' ? "unknown" :
		    t->file[1] == 'o' ? "lost" : "latency");
	else
		kstr(j, "kind", t->format ? "printk" : "event");
	if (t->format)
		kstr(j, "format", t->format);
	kstr(j, "path", t->file);
	tdat_jw_key(j, "nr-rows");
	tdat_jw_u64(j, t->rows);
	tdat_jw_key(j, "columns");
	tdat_jw_arr(j);
	for (i = 0; i < t->ncols; i++) {
		const struct col *c = &t->cols[i];
		const char *as = NULL;

		tdat_jw_obj(j);
		kstr(j, "name", c->name);
		kstr(j, "dtype", c->dtype);
		kstr(j, "duckdb", c->duck);
		switch (c->how) {
		case C_ARG:
			as = c->conv == 's' ? "text" : c->conv == 'p' ?
			    "address" : "integer";
			break;
		case C_ADDR:
			as = "address";
			break;
		case C_STR: case C_COMM: case C_FILE: case C_BUFFER:
		case C_LINE: case C_SYM: case C_FORMAT:
			as = "text";
			break;
		case C_BYTES: case C_DATA:
			as = "bytes";
			break;
		case C_ARRAY:
			as = c->kind == K_INT ? "array" : "address-array";
			break;
		}
		kstr(j, "as", as ? as : c->how == C_NEWLINE ? "bool" :
		    "integer");
		if (c->f && c->f->type)
			kstr(j, "type", c->f->type);
		nul |= c->how == C_LOST;
		tdat_jw_end(j, '}');
	}
	tdat_jw_end(j, ']');
	/* pandas.read_csv(path, **read_csv) */
	tdat_jw_key(j, "read_csv");
	tdat_jw_obj(j);
	tdat_jw_key(j, "dtype");
	tdat_jw_obj(j);
	for (i = 0; i < t->ncols; i++) {
		tdat_jw_key(j, t->cols[i].name);
		tdat_jw_cstr(j, t->cols[i].dtype);
	}
	tdat_jw_end(j, '}');
	tdat_jw_key(j, "keep_default_na");
	tdat_jw_bool(j, 0);
	if (nul) {
		tdat_jw_key(j, "na_values");
		tdat_jw_obj(j);
		tdat_jw_key(j, "lost");
		tdat_jw_arr(j);
		tdat_jw_cstr(j, "");
		tdat_jw_end(j, ']');
		tdat_jw_end(j, '}');
	}
	tdat_jw_end(j, '}');
	/* DuckDB: read_csv_auto(path, types = {...}, allow_quoted_nulls = false) */
	tdat_jw_key(j, "duckdb_types");
	tdat_jw_obj(j);
	for (i = 0; i < t->ncols; i++) {
		tdat_jw_key(j, t->cols[i].name);
		tdat_jw_cstr(j, t->cols[i].duck);
	}
	tdat_jw_end(j, '}');
	tdat_jw_end(j, '}');
}

static int
table_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct table *const *)a)->file,
	    (*(const struct table *const *)b)->file);
}

static int
write_meta(struct tw *w)
{
	char path[PATH_MAX];
	struct tdat_jw j;
	int *pids = NULL;
	size_t i, k, n = 0;
	uint64_t rows = 0;
	FILE *fp;
	int rc;

	snprintf(path, sizeof(path), "%s/meta.json", w->dir);
	if ((fp = fopen(path, "wx")) == NULL)
		return wfail(w, NULL, "cannot create");
	if (tdat_jw_init(&j, fp) < 0) {
		fclose(fp);
		errno = ENOMEM;
		return wfail(w, NULL, "out of memory");
	}
	tdat_jw_obj(&j);
	kstr(&j, "tool", "tdat-to-table");
	kstr(&j, "version", TDAT_VERSION);
	kstr(&j, "format", "csv");
	/* What LISA's trace-dump parquet writes, for the first input. */
	file_meta(&j, w->in[0].f);
	tdat_jw_key(&j, "time-range");
	if (w->any) {
		tdat_jw_arr(&j);
		tdat_jw_u64(&j, w->first_ts);
		tdat_jw_u64(&j, w->last_ts);
		tdat_jw_end(&j, ']');
	} else {
		tdat_jw_null(&j);
	}
	/* pid -> comm, from the saved cmdlines: the comm common_comm
	 * gives (the first input's, for a pid several name) */
	for (k = 0; k < w->nin; k++)
		n += w->in[k].ev->ncomm;
	if (n && (pids = malloc(n * sizeof(*pids))) == NULL) {
		tdat_jw_free(&j);
		fclose(fp);
		errno = ENOMEM;
		return wfail(w, NULL, "out of memory");
	}
	for (k = 0, n = 0; k < w->nin; k++)
		for (i = 0; i < w->in[k].ev->ncomm; i++)
			pids[n++] = w->in[k].ev->comm[i].pid;
	if (n)
		qsort(pids, n, sizeof(*pids), int_cmp);
	tdat_jw_key(&j, "pid-comms");
	tdat_jw_arr(&j);
	for (i = 0; i < n; i++) {
		const char *c = NULL;

		if (i > 0 && pids[i] == pids[i - 1])
			continue;
		for (k = 0; k < w->nin && c == NULL; k++) {
			c = tdat_events_comm(w->in[k].ev, pids[i]);
			if (strcmp(c, "<...>") == 0 && k + 1 < w->nin)
				c = NULL;
		}
		tdat_jw_arr(&j);
		tdat_jw_i64(&j, pids[i]);
		tdat_jw_cstr(&j, c);
		tdat_jw_end(&j, ']');
	}
	tdat_jw_end(&j, ']');
	free(pids);
	tdat_jw_key(&j, "pointers");
	tdat_jw_cstr(&j, w->o->hex ? "hex" : "decimal");
	tdat_jw_key(&j, "notes");
	tdat_jw_arr(&j);
	tdat_jw_cstr(&j, w->o->hex ?
	    "addresses (columns \"as\": \"address\") are strings \"0x...\", "
	    "as tdat-to-json writes them" :
	    "addresses (columns \"as\": \"address\") are unsigned decimal "
	    "integers; tdat-to-json writes them \"0x...\" (tdat-to-table "
	    "--hex)");
	tdat_jw_cstr(&j, "text is always quoted: \"\" is an empty string; "
	    "read with keep_default_na=False (pandas) and "
	    "allow_quoted_nulls=false (DuckDB)");
	tdat_jw_cstr(&j, "text that is not UTF-8 is the JSON text "
	    "{\"hex\":\"...\"} of its bytes, as in tdat-to-json");
	tdat_jw_end(&j, ']');
	tdat_jw_key(&j, "files");
	tdat_jw_arr(&j);
	for (k = 0; k < w->nin; k++) {
		tdat_jw_obj(&j);
		kstr(&j, "path", tdat_file_path(w->in[k].f));
		file_meta(&j, w->in[k].f);
		tdat_jw_end(&j, '}');
	}
	tdat_jw_end(&j, ']');
	if (w->nt)
		qsort(w->t, w->nt, sizeof(*w->t), table_cmp);
	tdat_jw_key(&j, "events-info");
	tdat_jw_arr(&j);
	for (i = 0; i < w->nt; i++) {
		table_meta(&j, w->t[i]);
		if (w->t[i]->format == NULL)
			rows += w->t[i]->rows;
	}
	tdat_jw_end(&j, ']');
	tdat_jw_key(&j, "nr-rows");
	tdat_jw_u64(&j, rows);
	tdat_jw_end(&j, '}');
	tdat_jw_nl(&j);
	rc = tdat_jw_flush(&j);
	tdat_jw_free(&j);
	if (rc < 0) {
		fclose(fp);
		return wfail(w, NULL, "write error");
	}
	if (fclose(fp) != 0)
		return wfail(w, NULL, "write error");
	w->o->rows = rows;
	w->o->tables = w->nt;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The sink. */

static int
tw_begin(void *arg, struct tdat_file *const *files, size_t n,
    struct tdat_run *run, struct tdat_err *e)
{
	struct tw *w = arg;
	size_t k, b;
	int rc;

	(void)run;
	if ((w->in = calloc(n ? n : 1, sizeof(*w->in))) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	w->nin = n;
	for (k = 0; k < n; k++) {
		w->in[k].f = files[k];
		if ((rc = tdat_sink_events(files, n, k, &w->in[k].ev, e)) < 0)
			return rc;
		w->in[k].type_size = tdat_type_size(files[k]);
		for (b = 1; b < files[k]->nbuf; b++)
			if (!files[k]->buf[b].latency)
				w->buffers = 1;
	}
	if ((rc = tdat_sink_latency_alone(files, n, e)) < 0)
		return rc;
	for (k = 0; k < n; k++)
		if (tdat_latency_buffer(files[k]) >= 0 && (rc = latency(w,
		    files[k], tdat_latency_buffer(files[k]))) < 0)
			return rc;
	return n == 1 && files[0]->latency ? TDAT_RUN_NO_RECORDS :
	    TDAT_RUN_RECORDS;
}

static int
tw_record(void *arg, size_t k, const struct tdat_record *rec,
    struct tdat_err *e)
{
	struct tw *w = arg;
	const struct tdat_event *ev;
	struct idc *c;
	int id, ts = w->in[k].type_size;

	(void)e;
	id = rec->size >= (uint32_t)ts ?
	    (int)tdat_getn(rec->data, ts, w->in[k].f->big) : -1;
	c = &w->in[k].idc[(unsigned)id % IDC];
	if (c->id != id || (c->ev == NULL && c->v == NULL)) {
		c->id = id;
		c->ev = ev = tdat_events_find(w->in[k].ev, id);
		c->v = NULL;
		if (ev && (c->v = tev_get(w, k, ev)) == NULL) {
			c->ev = NULL;
			if (!w->err) {
				errno = ENOMEM;
				wfail(w, NULL, "out of memory");
			}
			return w->err;
		}
	}
	if (!w->any) {
		w->first_ts = rec->ts;
		w->any = 1;
	}
	w->last_ts = rec->ts;
	if (rec->missed)
		lost_row(w, k, rec);
	if (c->v)
		event_row(w, c->v, k, rec);
	else
		unknown_row(w, k, rec, id);
	return w->err;
}

static int
tw_end(void *arg, int complete, struct tdat_err *e)
{
	struct tw *w = arg;

	(void)e;
	while (w->nhot > 0)
		tcool(w, w->hot[0]);
	if (!complete || w->err)
		return w->err;
	return write_meta(w);
}

static void
tw_free(void *arg)
{
	struct tw *w = arg;
	size_t k;

	for (k = 0; k < w->capcache; k++)
		if (w->cache[k]) {
			if (w->cache[k]->t == NULL ||
			    w->cache[k]->t->cols != w->cache[k]->cols)
				cols_free(w->cache[k]->cols,
				    w->cache[k]->ncols);
			free(w->cache[k]->step);
			free(w->cache[k]);
		}
	free(w->cache);
	for (k = 0; k < w->capptab; k++)
		if (w->ptab[k].fmt && (w->ptab[k].t == NULL ||
		    w->ptab[k].t->cols != w->ptab[k].cols))
			cols_free(w->ptab[k].cols, w->ptab[k].ncols);
	free(w->ptab);
	for (k = 0; k < w->nt; k++) {
		struct table *t = w->t[k];

		if (t->fd >= 0)
			close(t->fd);
		free(t->buf);
		cols_free(t->cols, t->ncols);
		free(t->file);
		free(t->format);
		free(t->system);
		free(t->event);
		free(t);
	}
	free(w->t);
	free(w->syms);
	for (k = 0; k < w->nin; k++)
		tdat_events_free(w->in[k].ev);
	free(w->in);
	tdat_sb_free(&w->sb);
}

static const struct tdat_sink_ops tw_ops = {
	0, tw_begin, tw_record, tw_end, tw_free, NULL
};

int
tdat_table_write(struct tdat_file *const *files, size_t n, const char *dir,
    struct tdat_table_opts *o, struct tdat_err *e)
{
	struct tw w;
	struct tdat_sink sink = { &tw_ops, &w };

	memset(&w, 0, sizeof(w));
	w.dir = dir;
	w.o = o;
	w.e = e;
	w.maxhot = o->max_open > 0 && o->max_open < HOT ? o->max_open : HOT;
	tdat_sb_init(&w.sb);
	o->rows = o->tables = 0;
	o->out_failed = 0;
	return tdat_run(files, n, o->sel, &sink, o->progress, o->progress_arg,
	    e);
}
