/*
 * tdat-output.h: where a tool's output goes (lib/common/output.c).
 *
 * One helper for every writer: a file output is written to a temporary
 * ".NAME.XXXXXX" created with O_EXCL beside the target (mode 0666 less
 * the umask) and renamed onto it by tdat_out_commit(); tdat_out_abort()
 * removes it.  A directory output (tdat-to-ltt) is a temporary directory
 * beside the target, renamed likewise, removed with its contents.  No
 * path, or "-", is standard output.  A SIGINT, SIGTERM, SIGHUP or SIGPIPE
 * while a temporary lives removes it and ends the process as killed by
 * that signal (the handler is installed with the first temporary).
 *
 *	struct tdat_out *out;
 *
 *	if (tdat_out_open(path, TDAT_OUT_TEXT, &f, 1, &out, &e) < 0)
 *		return tdat_report_err(path, &e);
 *	rc = write_something(f, tdat_out_fp(out), &e);
 *	if (rc < 0 && !tdat_out_failed(out)) {
 *		tdat_out_abort(out);		(the input's fault)
 *		return tdat_report_err(input, &e);
 *	}
 *	if (tdat_out_commit(out, &e) < 0)	(a write error)
 *		return tdat_report_err(tdat_out_name(path), &e);
 */
#ifndef TDAT_OUTPUT_H
#define TDAT_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

struct tdat_file;
struct tdat_err;
struct tdat_out;

enum {
	TDAT_OUT_TEXT = 0,	/* streamed through tdat_out_fp() */
	TDAT_OUT_BINARY = 1,	/* written with seeks on tdat_out_fd(); on
				 * stdout through a spool, never a terminal */
};

/* Open a file output; path NULL or "-" is standard output.  An output
 * that is one of the n inputs is refused (TDAT_EUSAGE). */
int tdat_out_open(const char *path, int flags, struct tdat_file *const *in,
    size_t n, struct tdat_out **out, struct tdat_err *e);
/* Open a directory output; path must not exist. */
int tdat_out_open_dir(const char *path, struct tdat_out **out,
    struct tdat_err *e);

/* A binary output's descriptor (seekable, empty). */
int tdat_out_fd(const struct tdat_out *);
/* A text output's stream; its write errors are kept for commit. */
FILE *tdat_out_fp(struct tdat_out *);
/* fwrite(p, 1, n, fp), a large block written without stdio's copies when
 * fp is a view; for any FILE. */
size_t tdat_fwrite_big(const void *p, size_t n, FILE *fp);
/* The temporary to fill (the directory of a directory output); NULL for
 * standard output. */
const char *tdat_out_path(const struct tdat_out *);
/* An output path as messages name it: path, or "stdout" for NULL or "-". */
const char *tdat_out_name(const char *path);
/* 1 if a write through tdat_out_fp() has failed. */
int tdat_out_failed(const struct tdat_out *);

/* Flush, check and rename the temporary onto the target (or copy the
 * spool to stdout); a write error is "write error: REASON".  Frees o. */
int tdat_out_commit(struct tdat_out *o, struct tdat_err *e);
/* Remove the temporary (standard output: flush what was written); frees
 * o.  NULL is allowed. */
void tdat_out_abort(struct tdat_out *o);
/* Remove every temporary not committed yet, making only system calls:
 * for the handler of a fatal signal (SIGBUS) that exits after it. */
void tdat_out_remove_live(void);

#endif
