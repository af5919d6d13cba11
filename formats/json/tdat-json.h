/*
 * tdat-json.h: JSON output of trace.dat files (lib/json*.c): events as
 * JSON Lines, the metadata as one document, and the Chrome/Perfetto trace
 * event format.  The shapes are described by the JSON Schemas in schemas/ and
 * tdat-to-json(1).
 *
 * Values reach a reader whose numbers are doubles (jq 1.6, JavaScript)
 * without loss: an integer is a JSON number when its magnitude is at most
 * 2^53 - 1 (TDAT_JSON_SAFE, lib/common/jsonc.c), otherwise a string of its decimal digits
 * ("18446744071880255392"); addresses are "0x..." strings.
 *
 * Strings from a trace are bytes; JSON strings are Unicode.  A string value
 * that is well-formed UTF-8 is a JSON string; any other is the object
 * {"hex":"..."} of its bytes, two lowercase hex digits each.  Keys and
 * display names (--chrome's task names) are always strings: there each
 * byte that does not belong to a well-formed UTF-8 sequence becomes U+FFFD.
 * Escaping of '"', '\\' and control characters is json-c's, with
 * JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE.
 */
#ifndef TDAT_JSON_H
#define TDAT_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct tdat_file;
struct tdat_err;
struct tdat_sbuf;
struct tdat_select;
struct json_object;

/* The shapes, called by tdat_json_write() (formats/json/json-meta.c, formats/json/json-events.c). */
int tdat_json_meta(struct tdat_file *f, FILE *out,
    const struct tdat_json_opts *o, struct tdat_err *e);
/* The events of n inputs (JSON Lines: merged by time, each with the
 * "file" it comes from when n > 1). */
int tdat_json_events(struct tdat_file *const *files, size_t n, FILE *out,
    const struct tdat_json_opts *o, struct tdat_err *e);

/* Append s[0..n) to b as a quoted JSON string, made valid UTF-8; 0 or
 * TDAT_ENOMEM. */
int tdat_json_quote(struct tdat_sbuf *b, const void *s, size_t n);

/* Append s[0..n) to b as a value without loss: a quoted JSON string when it
 * is UTF-8, else {"hex":"..."}; 0 or TDAT_ENOMEM. */
int tdat_json_text(struct tdat_sbuf *b, const void *s, size_t n);

/*
 * A small buffered JSON writer for large outputs: values are appended to
 * a buffer that is flushed to the stream when it fills.  Commas between
 * members and elements are placed by the writer.
 */
#define TDAT_JW_DEPTH	32

struct tdat_jw {
	FILE *out;
	char *buf;
	size_t len, cap;
	int err;		/* a write failed or memory ran out */
	int depth;
	unsigned char first[TDAT_JW_DEPTH];	/* no member yet at this depth */
	int after_key;
	int lines_depth;	/* if not 0: a newline after each comma there */
	struct json_object *js;	/* reused for json-c's string escaping */
	struct tdat_sbuf *tmp;	/* UTF-8 repair */
	struct tdat_sbuf *mem;	/* not NULL: written there, not to out */
};

int tdat_jw_init(struct tdat_jw *, FILE *out);	/* 0 or TDAT_ENOMEM */
int tdat_jw_flush(struct tdat_jw *);		/* 0 or TDAT_EIO */
void tdat_jw_free(struct tdat_jw *);
void tdat_jw_obj(struct tdat_jw *);		/* { */
void tdat_jw_arr(struct tdat_jw *);		/* [ */
void tdat_jw_end(struct tdat_jw *, int c);	/* '}' or ']' */
void tdat_jw_key(struct tdat_jw *, const char *key);
/* A key already quoted with its colon ("\"pid\":"), from tdat_json_quote(). */
void tdat_jw_qkey(struct tdat_jw *, const char *q, size_t n);
/* A string value without loss: a string, or {"hex":"..."} (see above). */
void tdat_jw_str(struct tdat_jw *, const void *s, size_t n);
void tdat_jw_cstr(struct tdat_jw *, const char *s);
/* A string always, bad bytes as U+FFFD: names for display. */
void tdat_jw_name(struct tdat_jw *, const void *s, size_t n);
/* Integers: numbers up to TDAT_JSON_SAFE in magnitude, else decimal
 * strings. */
void tdat_jw_u64(struct tdat_jw *, uint64_t v);
void tdat_jw_i64(struct tdat_jw *, int64_t v);
/* An address: "0x" and lowercase hex digits, as a string. */
void tdat_jw_hex(struct tdat_jw *, uint64_t v);
void tdat_jw_raw(struct tdat_jw *, const char *s, size_t n);	/* a value */
void tdat_jw_null(struct tdat_jw *);
void tdat_jw_bool(struct tdat_jw *, int v);
void tdat_jw_nl(struct tdat_jw *);		/* end a JSON Lines line */
/* Whether the n bytes at s go between quotes as they are: printable
 * ASCII without '"' and '\\' (what tdat_jw_str writes unchanged). */
int tdat_json_plain(const void *s, size_t n);

#endif
