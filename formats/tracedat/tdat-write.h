/*
 * tdat-write.h: writing trace.dat v6 and v7 (formats/tracedat/tracedat-write.c),
 * laid out as trace-cmd 3.x writes them (trace-cmd.dat.v6(5),
 * trace-cmd.dat.v7(5)).
 *
 * tdat_write() copies every piece of metadata, every option and every
 * buffer instance of an open trace into a new file, converting between
 * versions and compressions.  Ring-buffer pages are streamed CPU by CPU
 * in bounded windows: memory stays a few MiB whatever the trace size.
 *
 * A caller that rebuilds the pages itself (filters, merges) passes a
 * page source: the writer asks it for each CPU's pages in turn.
 *
 * Output files go through struct tdat_out (tdat-output.h): tdat_write()
 * takes tdat_out_fd() of a binary output.
 */
#ifndef TDAT_WRITE_H
#define TDAT_WRITE_H

#include <stddef.h>
#include <stdint.h>

struct tdat_file;
struct tdat_err;
struct tdat_page;


#endif
