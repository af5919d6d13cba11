/*
 * ltt-int.h: what the LTT modules (formats/ltt*.c) share and nothing
 * else sees: ftrace event formats reduced to LTT fields, the LTT type
 * model read from and written to eventdefs, and block constants.
 */
#ifndef LTT_INT_H
#define LTT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "tdat-int.h"
#include "tdat-ltt.h"

#define LTT_ID_FACILITY_LOAD	0
#define LTT_ID_BLOCK_START	17
#define LTT_ID_BLOCK_END	18
#define LTT_ID_HEARTBEAT	19
#define LTT_NBUILTIN		20	/* ids 0..19 belong to the builtin facility */
#define LTT_HDR			6	/* u16 id + u32 time */
#define LTT_BLOCK_EV		(LTT_HDR + 20)	/* block_start, block_end */
#define LTT_MIN_BLOCK		1024
#define LTT_MAX_BLOCK		(1u << 20)	/* written: one block per tracefile */
#define LTT_MAX_READ_BLOCK	(64u << 20)	/* read: one block at a time */
#define LTT_MAX_EVENTS		65535
/* The empty string field LTTV's dialect ends a struct with when it holds
 * a sequence and no string (ltt(5)). */
#define LTTV_END		"__lttv_end"

/* ---- ftrace event formats --------------------------------------- */

enum { FS_PAD, FS_FIXED, FS_DLOC_STR, FS_DLOC_SEQ, FS_TAIL_STR, FS_TAIL_SEQ };

struct fmt_field {
	char *type, *name;
	int off, size, sign;
	int count;		/* -1 scalar, 0 [] of size 0, N [N] */
	int dloc;		/* 1 __data_loc, 2 __rel_loc */
	int is_char;		/* char element */
	int elem;		/* element size */
	char *format;		/* printf conversion from the print fmt */
	int nlabel;		/* __print_symbolic values 0..n-1 */
	char **label;
};

/* One LTT field made from the format: a slot of the record. */
struct fmt_slot {
	int kind;		/* FS_* */
	int field;		/* index in fmt_event.f, -1 for padding */
	int off, size;		/* bytes of the record it covers */
	int elem;		/* element size of sequences */
};

struct fmt_event {
	char *sys, *name;
	int id;
	int nf;
	struct fmt_field *f;
	char *print;		/* print fmt text, or NULL */
	int ns;
	struct fmt_slot *s;
	int fixed_end;		/* bytes of the fixed part */
	int type_off, type_size;	/* common_type */
};

int tdat_ltt_fmt_parse(const char *text, size_t len, const char *sys, int lsize,
    int big, struct fmt_event *ev);
void tdat_ltt_fmt_free(struct fmt_event *ev);
/* Encode record (data, size) as the LTT payload into sb. */
void tdat_ltt_fmt_encode(const struct fmt_event *ev, const unsigned char *d,
    uint32_t size, int big, struct tdat_sbuf *sb);
/* Decode an LTT payload back into a record; returns bytes consumed or -1. */
long tdat_ltt_fmt_decode(const struct fmt_event *ev, const unsigned char *p,
    size_t len, int big, struct tdat_sbuf *out);

/* ---- the LTT type model ----------------------------------------- */

enum { LT_INT, LT_UINT, LT_FLOAT, LT_STRING, LT_ENUM, LT_ARRAY, LT_SEQUENCE,
	LT_STRUCT, LT_UNION, LT_TYPEREF };

struct lt_type;
struct lt_field {
	char *name, *desc;
	struct lt_type *t;
};

struct lt_type {
	int kind;
	int size;		/* int/uint/float/enum: bytes; array: count;
				 * sequence: length size; union: type code size */
	char *format;
	char *ref;		/* typeref */
	struct lt_type *elem;
	int nfield;
	struct lt_field *field;
	int nlabel;
	char **label;
	long *value;
};

struct lt_event {
	char *name, *desc;
	struct lt_type *t;	/* NULL: no payload */
};

struct lt_facility {
	char *name, *desc;
	int nev;
	struct lt_event *ev;
	int ntype;
	char **tname;
	struct lt_type **tdef;
	uint32_t cksum;
	uint32_t base;
	int loaded;
};

struct lt_defs {
	int nfac;
	struct lt_facility *fac;
};

struct lt_type *tdat_ltt_new(int kind, int size);
void tdat_ltt_type_free(struct lt_type *);
void tdat_ltt_defs_free(struct lt_defs *);
void tdat_ltt_fac_free(struct lt_facility *);
struct lt_facility *tdat_ltt_defs_add(struct lt_defs *, const char *name);
struct lt_event *tdat_ltt_fac_add(struct lt_facility *, const char *name,
    const char *desc, struct lt_type *t);
void tdat_ltt_struct_add(struct lt_type *st, const char *name, const char *desc,
    struct lt_type *t);
struct lt_facility *tdat_ltt_defs_find(const struct lt_defs *,
    const char *name);
const char *tdat_ltt_fac_dup(const struct lt_facility *);
int tdat_ltt_cmp_str(const void *, const void *);
uint32_t tdat_ltt_checksum(const struct lt_facility *);
/* The builtin facility (formats/ltt/ltt-builtin.xml). */
extern const char tdat_ltt_builtin_xml[];
int tdat_ltt_builtin(struct lt_defs *, struct tdat_err *e);

/* Write facilities as an XML document (dialect 0) or LTTV's dialect. */
int tdat_ltt_write_eventdefs(const char *path, const struct lt_facility *fac,
    int nfac, int lttv, struct tdat_err *e);
/* Read every facility of an eventdefs file (XML or LTTV's dialect); with
 * keep, its XML tree is kept there, or why it is not XML. */
struct ltt_defdoc;
int tdat_ltt_read_eventdefs(const char *path, struct lt_defs *d, int *lttv,
    struct ltt_defdoc *keep, struct tdat_err *e);
/* Bytes of a payload of type t at p (len available), or -1. */
char *tdat_ltt_xml_text(const char *s);
long tdat_ltt_payload_size(const struct lt_facility *fac,
    const struct lt_type *t,
    const unsigned char *p, size_t len, int big);
/* The same walk, turning every number of the payload (big-endian if big)
 * to the other byte order in place; bytes or -1 (unions cannot be). */
long tdat_ltt_payload_swap(const struct lt_facility *fac,
    const struct lt_type *t,
    unsigned char *p, size_t len, int big);

/* The built-in schemas (ltt-schemas.c, from schemas/ltt-*.xsd). */
extern const char tdat_ltt_xsd_eventdefs[], tdat_ltt_xsd_system[],
    tdat_ltt_xsd_bookmarks[],
    tdat_ltt_xsd_tracedat[];

/* Event formats made from eventdefs (ltt-synth.c). */
struct synth_ev;
struct synth_ev *tdat_ltt_synth_new(const struct lt_facility *fac,
    const struct lt_event *ev, uint16_t id, struct tdat_blob *fmt);
void tdat_ltt_synth_free(struct synth_ev *);
long tdat_ltt_synth_decode(const struct synth_ev *s, const unsigned char *p,
    size_t len, int big, struct tdat_sbuf *out);

/* ---- reading a directory (ltt-read.c) ---------------------------- */

/* An eventdefs file as XML, kept by tdat_ltt_dir_open for tdat_ltt_verify's
 * schema check, so that it is parsed once. */
struct ltt_defdoc {
	char *name;		/* its name in eventdefs/ */
	struct _xmlDoc *doc;	/* its tree, or NULL if it is not XML ... */
	char why[256];		/* ... and then why */
};

struct ltt_dir {
	char *dir;
	int big;
	int lttv_endian;	/* endian="LITTLE_ENDIAN" / "BIG_ENDIAN" */
	int lttv_defs;		/* eventdefs in LTTV's dialect */
	int xml_defs;		/* eventdefs that are well-formed XML */
	int nfiles;		/* eventdefs files */
	uint32_t bs, ncpu;
	int lsize;		/* from arch_size */
	struct lt_defs defs;	/* builtin first, then listing order */
	int32_t *id_fac, *id_ev;	/* LTT id -> facility, event */
	uint32_t nid;		/* their size: ids from nid on are -1 */
	struct ltt_defdoc *docs;	/* with keep_docs: the eventdefs read */
	int ndocs;
	uint64_t kept;		/* their files' bytes (16 MiB at most) */
};

struct ltt_tf {
	char rel[256];
	int fd;
	uint64_t size, nblocks, bi;
	unsigned char *blk;
	int loaded;
	uint32_t pos, end_at, bs;
	int trailer;		/* 2005 or 2003: the convention found */
	int trailer_big;	/* the byte order it was found in */
	uint64_t t0, c0, t1, c1;
	uint32_t block_id, prev;
	uint64_t wraps;
	int have_last;
	long long fail_block;
	char why[200];		/* the last damage, without file and block */
};

struct ltt_ev {
	uint16_t id;
	int fac, ev;
	uint64_t time;
	const unsigned char *p;
	uint32_t n;
	uint64_t off, block;
	int block_start;
};

int tdat_ltt_slurp(const char *path, unsigned char **out, uint64_t *len,
    struct tdat_err *e);
struct _xmlNode;
char *tdat_ltt_xattr(struct _xmlNode *n, const char *name);
long long tdat_ltt_xattr_num(struct _xmlNode *n, const char *name,
    long long def);
int tdat_ltt_list(const char *path, char ***out, size_t *n);
void tdat_ltt_list_free(char **v, size_t n);
/* The originals a trace.dat's copy keeps as files (info/ here, tdat/ in
 * a CTF directory): the file BASE/REL whole, LABEL/REL naming it in a
 * message; every file of the folder BASE/REL in name order (missing_ok:
 * none when it is not there); the options of blob b, stored as u16 id,
 * u32 size and data, into f (b.p given to it), less those that shift
 * time (TSC2NSEC kept as the identity), NAME naming b in a message and
 * *remap each stored option's index in f->opt (-1 if left out). */
int tdat_ltt_blob(const char *base, const char *label, const char *rel,
    struct tdat_blob *b, struct tdat_err *e);
int tdat_ltt_dir_blobs(const char *base, const char *label, const char *rel,
    int missing_ok, struct tdat_blob **out, uint32_t *n, struct tdat_err *e);
int tdat_ltt_options(struct tdat_file *f, struct tdat_blob b, const char *name,
    int **remap, size_t *nold, struct tdat_err *e);
int tdat_ltt_add_cpu(struct tdat_buffer *b, uint32_t id, uint64_t size);

/* Records made from another format's events laid out in ring-buffer
 * pages (lib/ring's encoder), for the LTT and CTF readers: the record
 * the stream's next() gave and has not placed yet, and damage found after
 * a page was begun, reported by the next call. */
struct tdat_pager {
	struct tdat_sbuf rec;
	int pending;		/* rec holds the next record */
	uint64_t ts;
	int missed;		/* lost events came before it */
	long long count;	/* ... that many (-1: unknown) */
	int err_rc;
	struct tdat_err err;
};
#define TDAT_PAGER_BIG	2	/* the record does not fit an empty page */
void tdat_pager_defer(struct tdat_pager *p, int rc, const struct tdat_err *e);
/* Fill the page pg of ps bytes; next(arg) puts the next record in p
 * (1, 0 at the end, < 0 with *e set).  1 if a page was made, 0 at the
 * end, < 0 on damage, TDAT_PAGER_BIG for the caller to say. */
int tdat_pager_fill(struct tdat_pager *p, const struct tdat_page_layout *pl,
    uint32_t ps, unsigned char *pg, int (*next)(void *), void *arg,
    struct tdat_err *e);
/* Made-up trace.dat parts (ltt-read.c): header_event's text, and a
 * format file's type for an integer (u8...s64). */
extern const char tdat_synth_hevent[];
const char *tdat_synth_ctype(int sign, int size);
/* keep_docs: keep the eventdefs files' trees in d->docs (tdat_ltt_verify). */
int tdat_ltt_dir_open(const char *dir, struct ltt_dir *d, int keep_docs,
    struct tdat_err *e);
int tdat_ltt_dir_map(struct ltt_dir *d);
struct _xmlDoc;
struct _xmlDoc *tdat_ltt_read_doc(const char *path, int xml_opts,
    int html_opts, int *html, struct tdat_err *why);
void tdat_ltt_dir_close(struct ltt_dir *d);
int tdat_ltt_tf_open(struct ltt_dir *d, struct ltt_tf *t, const char *rel,
    struct tdat_err *e);
void tdat_ltt_tf_close(struct ltt_tf *t);
void tdat_ltt_tf_rewind(struct ltt_tf *t);
/* 1 and *ev, 0 at the end, < 0 on damage (e names file, block, offset). */
int tdat_ltt_tf_next(struct ltt_dir *d, struct ltt_tf *t, struct ltt_ev *ev,
    struct tdat_err *e);

#endif
