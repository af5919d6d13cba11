/*
 * tdat-ctf.h: CTF 1.8 trace directories (formats/ctf/; ctf(5)).
 *
 * Writing: tdat_ctf_write() (tdat.h, ctf-write.c).
 *
 * Reading (ctf-read.c): a directory tdat-to-ctf wrote is opened as a
 * trace.dat: its container and metadata from the originals kept in
 * tdat/, its events read by babeltrace2's src.ctf.fs (libbabeltrace2)
 * and re-encoded as ring-buffer pages through page operations, each
 * CPU's stream pulled as the page iterator asks for it.
 */
#ifndef TDAT_CTF_H
#define TDAT_CTF_H

#include <stddef.h>

struct tdat_file;
struct tdat_err;
struct tdat_format;
struct tdat_verify_opts;
struct tdat_verify_stats;

/* A record of an event type the trace has no format for: its bytes, in
 * an event class of this id (tdat:unknown). */
#define TDAT_CTF_ID_UNKNOWN	0x10003

/* The CTF format as the engine sees it (formats/list/formats.c). */
extern const struct tdat_format tdat_ctf_format;

/* 1 if path is a directory holding a file "metadata", else 0. */
int tdat_ctf_probe(const char *path);

/* The directory as an open trace.dat whose pages stream from its CTF
 * data streams.  A directory without tdat/ (not written by tdat-to-ctf),
 * or written with --lttng, is read as an LTTng kernel trace
 * (ctf-lttng.c), or refused (TDAT_EUNSUP).  Close it with tdat_close(). */
int tdat_ctf_open_tdat(const char *dir, struct tdat_file **out,
    struct tdat_err *e);

/* tdat_verify() of a CTF directory: refused (TDAT_EUNSUP). */
int tdat_ctf_verify_input(const char *dir, const struct tdat_verify_opts *,
    struct tdat_verify_stats *st, struct tdat_err *e);

#endif
