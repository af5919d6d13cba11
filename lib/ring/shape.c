/*
 * shape.c: what a record of an event must hold, from its format as
 * tdat-verify reads it (tdat_event_scan): tdat-verify holds every record
 * to it, and tdat-cat --salvage keeps only the records that hold it, so
 * that what --salvage writes passes tdat-verify.
 */
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"

/*
 * Does the print format take field name as bytes, not a string?  Kernel
 * 7.x's syscall events keep the user's buffer in a __data_loc char[]
 * field (__buf_val) with no NUL, printed by __print_dynamic_array().
 */
static int
raw_bytes(const char *fmt, const char *name)
{
	static const char fn[] = "__print_dynamic_array(";
	size_t n = strlen(name);
	const char *p = fmt;

	while (p != NULL && (p = strstr(p, fn)) != NULL) {
		p += sizeof(fn) - 1;
		while (*p == ' ')
			p++;
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == ' '))
			return 1;
	}
	return 0;
}

/* Fields fl[0..n) into sh, after the ones before them; nonzero when out
 * of memory.  fmt: the event's print format, or NULL. */
static int
add_fields(struct tdat_shape *sh, const struct tdat_field *fl, int n,
    uint32_t *last_off, uint32_t *last_end, int *last_arr, const char *fmt)
{
	struct tdat_loc *loc;
	int i;

	for (i = 0; i < n; i++) {
		const struct tdat_field *f = &fl[i];
		uint32_t off = (uint32_t)f->offset, size = (uint32_t)f->size;

		if (off >= *last_off) {
			if (*last_end > sh->min_size)
				sh->min_size = *last_end;
			*last_off = off;
			*last_end = off + size;
			*last_arr = (f->flags & TDAT_FLD_ARRAY) != 0;
		} else if (off + size > sh->min_size)
			sh->min_size = off + size;
		if (!(f->flags & TDAT_FLD_DYNAMIC) || size != 4)
			continue;
		loc = realloc(sh->loc, (sh->nloc + 1) * sizeof(*loc));
		if (loc == NULL)
			return 1;
		sh->loc = loc;
		loc = &sh->loc[sh->nloc++];
		memset(loc, 0, sizeof(*loc));
		loc->off = off;
		loc->rel = (f->flags & TDAT_FLD_RELATIVE) != 0;
		loc->str = strstr(f->type, "char[]") != NULL &&
		    !(fmt && raw_bytes(fmt, f->name));
		tdat_vis(loc->name, sizeof(loc->name), f->name);
	}
	return 0;
}

/*
 * The size a record of te needs, and its dynamic fields.  The last field
 * may be an array the kernel fills only in part (ftrace's kernel_stack):
 * records must hold every field before it.
 */
int
tdat_shape_of(const struct tdat_event *te, struct tdat_shape *sh)
{
	uint32_t i, last_off = 0, last_end = 0;
	int last_arr = 0;

	sh->min_size = 0;
	sh->nloc = 0;
	sh->loc = NULL;
	if (add_fields(sh, te->common, te->ncommon, &last_off, &last_end,
	    &last_arr, NULL) || add_fields(sh, te->fields, te->nfields,
	    &last_off, &last_end, &last_arr, te->fmt)) {
		free(sh->loc);
		sh->loc = NULL;
		return -1;
	}
	if (!last_arr && last_end > sh->min_size)
		sh->min_size = last_end;
	for (i = 0; i < sh->nloc; i++)
		if (sh->loc[i].off + 4 > sh->min_size)
			sh->min_size = sh->loc[i].off + 4;
	return 0;
}

int
tdat_shape_test(const struct tdat_shape *sh, const unsigned char *d,
    uint32_t size, int big, uint32_t *i, uint32_t *off, uint32_t *len)
{
	const struct tdat_loc *l;
	uint32_t loc;

	if (*i == 0 && size < sh->min_size)
		return TDAT_SHAPE_SHORT;
	for (; *i < sh->nloc; (*i)++) {
		l = &sh->loc[*i];
		loc = tdat_rd32(d + l->off, big);
		*off = loc & 0xffff;
		*len = loc >> 16;
		if (l->rel)
			*off += l->off + 4;
		if (*off > size || *len > size - *off)
			return TDAT_SHAPE_OUTSIDE;
		if (!l->str || *len == 0 || memchr(d + *off, '\0', *len))
			continue;
		if (memchr(d + *off, '\0', size - *off) == NULL)
			return TDAT_SHAPE_UNTERMINATED;
		return TDAT_SHAPE_LONG_STRING;
	}
	return TDAT_SHAPE_OK;
}

const char *
tdat_shape_check(const struct tdat_shape *sh, const unsigned char *d,
    uint32_t size, int big)
{
	uint32_t i = 0, off, len;

	for (;; i++)
		switch (tdat_shape_test(sh, d, size, big, &i, &off, &len)) {
		case TDAT_SHAPE_OK:
			return NULL;
		case TDAT_SHAPE_SHORT:
			return "record is shorter than its event";
		case TDAT_SHAPE_OUTSIDE:
			return "a __data_loc field lies outside its record";
		case TDAT_SHAPE_UNTERMINATED:
			return "a string field is not terminated in its record";
		}
}
