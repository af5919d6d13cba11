/*
 * file.c: what every open input has, whatever its format: its path and
 * size, its metadata blobs, and closing it.  What only its format holds
 * the format's release operation frees first (struct tdat_page_ops).
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tdat-int.h"

void
tdat_blob_free(struct tdat_blob *b)
{
	if (b->map)
		munmap(b->map, b->mlen);
	else if (!b->arena)
		free(b->p);
	b->p = NULL;
	b->map = NULL;
	b->mlen = 0;
	b->arena = 0;
}

int
tdat_kallsyms_wait(struct tdat_file *f, struct tdat_err *e)
{
	int (*wait)(struct tdat_file *, struct tdat_err *);

	if (f == NULL || (wait = f->kallsyms_wait) == NULL)
		return 0;
	f->kallsyms_wait = NULL;
	return wait(f, e);
}

const char *
tdat_file_path(const struct tdat_file *f)
{
	return f->path;
}

uint64_t
tdat_file_size(const struct tdat_file *f)
{
	return f->fsize;
}

static void
free_systems(struct tdat_file *f)
{
	uint32_t j, k;

	for (j = 0; j < f->nftrace; j++)
		tdat_blob_free(&f->ftrace[j]);
	free(f->ftrace);
	for (j = 0; j < f->nsys; j++) {
		for (k = 0; k < f->sys[j].nev; k++)
			tdat_blob_free(&f->sys[j].ev[k]);
		free(f->sys[j].ev);
		free(f->sys[j].name);
	}
	free(f->sys);
}

void
tdat_close(struct tdat_file *f)
{
	size_t i;

	if (f == NULL)
		return;
	if (f->page_ops && f->page_ops->release)
		f->page_ops->release(f);
	if (f->fd > 0)
		close(f->fd);
	free(f->path);
	free(f->comp);
	tdat_blob_free(&f->hpage);
	tdat_blob_free(&f->hevent);
	tdat_blob_free(&f->kallsyms);
	tdat_blob_free(&f->printk);
	tdat_blob_free(&f->cmdlines);
	tdat_blob_free(&f->modules);
	tdat_blob_free(&f->btf);
	free_systems(f);
	for (i = 0; i < f->narena; i++)
		free(f->arena_mem[i]);
	free(f->arena_mem);
	free(f->opt);
	for (i = 0; i < f->nopt_blobs; i++)
		free(f->opt_blobs[i]);
	free(f->opt_blobs);
	for (i = 0; i < f->nbuf; i++) {
		free(f->buf[i].name);
		free(f->buf[i].clock);
		free(f->buf[i].cpu);
	}
	free(f->buf);
	free(f->clock_data);
	free(f->trace_clock);
	free(f);
}
