/*
 * tdat-int.h: the engine's interface, for lib/, formats/, the unit tests
 * and the fuzzers; bin/ includes only tdat.h.
 *
 * Layers, bottom up: common (errors, bytes, buffers) -> input formats
 * (trace.dat v6/v7 in formats/tracedat/, LTT directories in
 * formats/ltt/), each registered as a struct tdat_format
 * (formats/list/formats.c) and giving its metadata as a struct tdat_file
 * and its pages through struct tdat_page_ops -> the page iterator
 * (lib/read/pages.c)
 * -> the record stream (lib/read/records.c), with the selection applied
 * (lib/select/select.c), driven by lib/merge/run.c (tdat-sink.h: one or several
 * inputs merged by time) -> record sinks: text report (formats/text/report.c),
 * JSON (formats/json/), LTT (formats/ltt/ltt-write.c); page sink: trace.dat
 * (formats/tracedat/tracedat-write.c, with lib/merge/repack.c rebuilding the pages of
 * selected records).  lib/read/source.c opens an input of any format,
 * lib/read/file.c closes it.
 */
#ifndef TDAT_INT_H
#define TDAT_INT_H

#include "tdat.h"

/* Each folder's interface; a file may include just the ones it uses. */
#include "tdat-common.h"     /* lib/common: errors, buffers, outputs */
#include "tdat-codec.h"      /* lib/common: codecs, compression pipeline */
#include "tdat-ring.h"       /* lib/ring: the ring-buffer page format */
#include "tdat-read.h"       /* lib/read: inputs, pages, records */
#include "tdat-texts.h"      /* lib/event: the metadata texts */
#include "tdat-event.h"      /* lib/event: event and print formats */
#include "tdat-select.h"     /* lib/select: the selection and filters */

#endif
