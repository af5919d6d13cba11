/*
 * latency.c: which buffer of a trace holds a latency tracer's text.
 *
 * A latency tracer (trace-cmd record -p wakeup, irqsoff, ...) leaves text,
 * not ring-buffer pages: a v6 file holds it after its "latency  " tag, to
 * the end of the file; a v7 file in a BUFFER_TEXT section, compressed in
 * chunks or not; an LTT directory in info/latency.  Every format streams
 * it through its page operations (ci 0 of the buffer), in windows.
 */
#include "tdat-int.h"

int
tdat_latency_buffer(const struct tdat_file *f)
{
	size_t i;

	for (i = 0; i < f->nbuf; i++)
		if (f->buf[i].latency)
			return (int)i;
	return -1;
}

int
tdat_latency_top(const struct tdat_file *f)
{
	int i = tdat_latency_buffer(f);

	if (i < 0 || (!f->latency && f->buf[i].name[0] != '\0'))
		return -1;
	return i;
}
