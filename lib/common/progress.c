/*
 * progress.c: how far a reader has come through a trace's page data, for
 * the progress callbacks of the writers (tdat-to-ltt, tdat-to-json).
 * Records come in time order from every CPU's data in turn, so the offset
 * of a record jumps between the CPUs' data; the sum of how far each CPU's
 * data has been read climbs steadily.  It is sampled every 4096 records.
 */
#include <stdlib.h>

#include "tdat-int.h"

#define EVERY	4096

int
tdat_read_progress_init(struct tdat_read_progress *p,
    const struct tdat_file *f, void (*fn)(void *, uint64_t, uint64_t),
    void *arg)
{
	size_t i, n = 0;
	uint32_t k;

	p->fn = fn;
	p->arg = arg;
	p->done = p->total = p->count = 0;
	p->read = NULL;
	p->first = NULL;
	if (fn == NULL)
		return 0;
	for (i = 0; i < f->nbuf; i++)
		n += f->buf[i].ncpu;
	p->read = calloc(n + 1, sizeof(*p->read));
	p->first = calloc(f->nbuf + 1, sizeof(*p->first));
	if (p->read == NULL || p->first == NULL) {
		tdat_read_progress_end(p, 0);
		return TDAT_ENOMEM;
	}
	for (i = 0, n = 0; i < f->nbuf; i++) {
		p->first[i] = n;
		n += f->buf[i].ncpu;
		for (k = 0; k < f->buf[i].ncpu; k++)
			p->total += f->buf[i].cpu[k].size;
	}
	return 0;
}

void
tdat_read_progress_note(struct tdat_read_progress *p,
    const struct tdat_file *f, const struct tdat_record *r)
{
	const struct tdat_buffer *b;
	uint64_t pos, *read;
	uint32_t k;

	if (p->fn == NULL || ++p->count % EVERY != 0 || r->buffer < 0 ||
	    (size_t)r->buffer >= f->nbuf)
		return;
	b = &f->buf[r->buffer];
	for (k = 0; k < b->ncpu; k++)
		if (b->cpu[k].id == (uint32_t)r->cpu)
			break;
	if (k == b->ncpu || r->off < b->cpu[k].off)
		return;
	pos = r->off - b->cpu[k].off;
	if (pos > b->cpu[k].size)
		pos = b->cpu[k].size;
	read = &p->read[p->first[r->buffer] + k];
	if (pos > *read) {
		p->done += pos - *read;
		*read = pos;
	}
	p->fn(p->arg, p->done, p->total);
}

void
tdat_read_progress_end(struct tdat_read_progress *p, int complete)
{
	if (p->fn && complete)
		p->fn(p->arg, p->total, p->total);
	free(p->read);
	free(p->first);
	p->read = NULL;
	p->first = NULL;
}
