/*
 * repack.c: the kept records of one or more traces (lib/select/select.c),
 * merged in time order and packed into new ring-buffer pages by the
 * encoder (lib/ring/encode.c), served to the writer through a struct
 * tdat_page_src.
 */
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "tdat-sink.h"

struct input {
	struct tdat_file *f;
	/* the current CPU's kept records */
	struct tdat_reader *rd;
	int have;
	struct tdat_record rec;
};

struct tdat_repack {
	struct input *in;
	size_t nin;
	struct tdat_select *sel;
	struct tdat_page_layout pl;
	struct tdat_page_src src;
	struct tdat_ring_gate *check;	/* files[0]'s formats, for each record */
	/* the page being built (lib/ring's encoder), of the current
	 * buffer's page size */
	unsigned char *page;
	uint32_t page_size;
	struct tdat_ring_enc enc;
	int done;		/* the CPU's records are exhausted */
};

/* ------------------------------------------------------------------ */
/* Pages. */

/* Add a record; a page completed on the way goes to dst (*emitted 1). */
static int
add_record(struct tdat_repack *s, const struct tdat_record *r,
    unsigned char *dst, int *emitted, struct tdat_err *e)
{
	struct tdat_ring_enc *c = &s->enc;
	uint64_t ts = r->raw_ts;
	const char *why;
	unsigned char *d;

	*emitted = 0;
	if (c->open && ts < c->last_ts)
		ts = c->last_ts;	/* merged inputs: keep time moving on */
	if (!tdat_ring_enc_fits(c, r->size))
		return tdat_fail(e, TDAT_EUNSUP, r->off, "record of %u bytes "
		    "does not fit a page of %u", r->size, s->page_size);
	if (tdat_ring_enc_full(c, r->size, ts, r->missed)) {
		tdat_ring_enc_finish(c, dst);
		*emitted = 1;
	}
	if (!c->open)
		tdat_ring_enc_start(c, ts, r->missed, r->missed_count);
	d = tdat_ring_enc_add(c, r->data, r->size, ts);
	/* A record tdat-verify would flag in the output: refuse the input
	 * (tdat-cat --salvage copies its intact pages). */
	if ((why = tdat_ring_gate_record(s->check, d, (r->size + 3) &
	    ~3u)) != NULL)
		return tdat_fail(e, TDAT_ECORRUPT, r->off, "%s", why);
	return 0;
}

/* The next record of the CPU over every input, in time order (ties: the
 * earlier input, as the driver's ranks have it for one buffer). */
static struct input *
next_input(struct tdat_repack *s)
{
	struct input *best = NULL;
	size_t i, bi = 0;

	for (i = 0; i < s->nin; i++)
		if (s->in[i].have && (best == NULL ||
		    tdat_merge_before(s->in[i].rec.ts, i, best->rec.ts, bi))) {
			best = &s->in[i];
			bi = i;
		}
	return best;
}

/* An error of input in: named when there are several (its offset is in
 * that file). */
static int
in_fail(const struct tdat_repack *s, const struct input *in,
    struct tdat_err *e, int rc)
{
	if (s->nin > 1)
		tdat_err_name(e, tdat_file_path(in->f));
	return rc;
}

static int
pull(const struct tdat_repack *s, struct input *in, struct tdat_err *e)
{
	int rc;

	in->have = 0;
	if (in->rd == NULL)
		return 0;
	if ((rc = tdat_reader_next(in->rd, &in->rec, e)) < 0)
		return in_fail(s, in, e, rc);
	in->have = rc > 0;
	return 0;
}

static void
close_readers(struct tdat_repack *s)
{
	size_t i;

	for (i = 0; i < s->nin; i++) {
		tdat_reader_close(s->in[i].rd);
		s->in[i].rd = NULL;
		s->in[i].have = 0;
	}
}

static int
buffer_index(const struct tdat_file *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->nbuf; i++)
		if (!f->buf[i].latency && strcmp(f->buf[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Whether an input has CPU cpu in its buffer called name. */
static int
has_cpu(const struct tdat_repack *s, const char *name, uint32_t cpu)
{
	const struct tdat_file *f;
	size_t i;
	uint32_t j;
	int bi;

	for (i = 0; i < s->nin; i++) {
		f = s->in[i].f;
		if ((bi = buffer_index(f, name)) < 0)
			continue;
		for (j = 0; j < f->buf[bi].ncpu; j++)
			if (f->buf[bi].cpu[j].id == cpu)
				return 1;
	}
	return 0;
}

static int
src_begin(void *arg, int buf, uint32_t cpu, uint64_t *total,
    struct tdat_err *e)
{
	struct tdat_repack *s = arg;
	const char *name = s->in[0].f->buf[buf].name;
	struct tdat_reader_opts ro;
	unsigned char *map;
	size_t i;
	uint32_t j;
	int bi, rc;

	close_readers(s);
	*total = 0;
	s->done = 0;
	/* Pages are built to this buffer's page size, which the writer
	 * writes, whatever the other buffers' or the file header's is. */
	s->page_size = s->in[0].f->buf[buf].page_size;
	tdat_ring_enc_init(&s->enc, &s->pl, s->page, s->page_size);
	/* (The writer asks for every CPU number up to the highest: a
	 * damaged input's CPU 327680 is no reason to open readers and a
	 * map of cpu + 1 bytes for each of the numbers below it.) */
	if ((s->sel && !tdat_select_stream(s->sel, 0, buf, cpu)) ||
	    !has_cpu(s, name, cpu))
		return 0;
	if ((map = calloc(cpu + 1, 1)) == NULL)
		return tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
	map[cpu] = 1;
	for (i = 0; i < s->nin; i++) {
		struct tdat_file *f = s->in[i].f;

		if ((bi = buffer_index(f, name)) < 0)
			continue;
		for (j = 0; j < f->buf[bi].ncpu; j++)
			if (f->buf[bi].cpu[j].id == cpu)
				*total += f->buf[bi].cpu[j].size;
		memset(&ro, 0, sizeof(ro));
		ro.cpus = map;
		ro.ncpus = (int)cpu + 1;
		ro.buffer = bi;
		tdat_select_filter(s->sel, i, &ro.filter);
		ro.strict_time = 1;
		if ((rc = tdat_reader_open(f, &ro, &s->in[i].rd, e)) < 0)
			rc = in_fail(s, &s->in[i], e, rc);
		else
			rc = pull(s, &s->in[i], e);
		if (rc < 0) {
			free(map);
			return rc;
		}
	}
	free(map);
	return 0;
}

static int
src_read(void *arg, unsigned char *dst, size_t cap, size_t *got,
    struct tdat_err *e)
{
	struct tdat_repack *s = arg;
	struct input *in;
	int rc, emitted;

	*got = 0;
	while (!s->done && cap - *got >= s->page_size) {
		if ((in = next_input(s)) == NULL) {
			s->done = 1;
			if (s->enc.open) {
				tdat_ring_enc_finish(&s->enc, dst + *got);
				*got += s->page_size;
			}
			break;
		}
		if ((rc = add_record(s, &in->rec, dst + *got, &emitted, e)) < 0)
			return in_fail(s, in, e, rc);
		*got += emitted ? s->page_size : 0;
		if ((rc = pull(s, in, e)) < 0)
			return rc;
	}
	return 0;
}

/* ------------------------------------------------------------------ */

int
tdat_repack_open(struct tdat_file *const *files, size_t n,
    struct tdat_select *sel, struct tdat_repack **out,
    struct tdat_err *e)
{
	struct tdat_repack *s;
	void *in;
	size_t i;
	uint32_t cap;
	int rc;

	*out = NULL;
	if ((s = tdat_handle_new(sizeof(*s), files, n, sizeof(*s->in), &in,
	    e)) == NULL)
		return e->code;
	s->in = in;
	s->nin = n;
	s->sel = sel;
	/* The writer writes files[0]'s CPU count: make it cover every CPU
	 * of every input. */
	for (i = 0; i < n; i++)
		if (files[i]->ncpus > files[0]->ncpus)
			files[0]->ncpus = files[i]->ncpus;
	if ((rc = tdat_page_layout(files[0], &s->pl, e)) < 0 ||
	    (rc = tdat_ring_gate_open(files[0], &s->check, e)) < 0)
		goto fail;
	/* One page buffer, of the largest page size any buffer has (the
	 * reader keeps each in 64 bytes to 16 MiB). */
	cap = 1;
	for (i = 0; i < files[0]->nbuf; i++)
		if (files[0]->buf[i].page_size > cap)
			cap = files[0]->buf[i].page_size;
	if ((s->page = malloc(cap)) == NULL) {
		rc = tdat_fail_nooff(e, TDAT_ENOMEM, "out of memory");
		goto fail;
	}
	s->src.arg = s;
	s->src.begin = src_begin;
	s->src.read = src_read;
	*out = s;
	return 0;
fail:
	tdat_repack_close(s);
	return rc;
}

const struct tdat_page_src *
tdat_repack_pages(struct tdat_repack *s)
{
	return &s->src;
}

void
tdat_repack_close(struct tdat_repack *s)
{
	if (s == NULL)
		return;
	close_readers(s);
	tdat_ring_gate_close(s->check);
	free(s->in);
	free(s->page);
	free(s);
}
