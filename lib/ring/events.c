/*
 * events.c: the event table by id the checks read records against: the
 * first event of an id holds it, ids index a table as large as the
 * largest one (a record's id has 16 bits).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-ring.h"

#define NIDS	65536

/* The room t->ev must grow to before its (nev + 1)th event, 0 when it
 * has it: 8, then twice as many each time it is full (a trace has some
 * thousands of events: not a realloc and a copy for each). */
static uint32_t
ev_room(size_t nev)
{
	if (nev == 0)
		return 8;
	return nev >= 8 && (nev & (nev - 1)) == 0 && nev < UINT32_MAX / 2 ?
	    (uint32_t)nev * 2 : 0;
}

int
tdat_ring_events_add(struct tdat_ring_events *t, uint32_t id,
    const char *name, struct tdat_shape *sh, size_t *ix)
{
	struct tdat_ring_ev *ev;
	uint32_t *idx, n, i;
	uint64_t *fast;

	if (id >= NIDS) {
		free(sh->loc);
		return 2;
	}
	if (id < t->nidx && t->idx[id]) {
		*ix = t->idx[id] - 1;
		free(sh->loc);
		return 1;
	}
	if (id >= t->nidx) {
		/* grown as ids come, not to NIDS at once: a 256 KiB table
		 * made for each file costs more than a small file's checks */
		n = t->nidx * 2 > id + 1 ? t->nidx * 2 : id + 1;
		if (n > NIDS)
			n = NIDS;
		if ((idx = realloc(t->idx, n * sizeof(*idx))) == NULL)
			goto nomem;
		t->idx = idx;
		if ((fast = realloc(t->fast, n * sizeof(*fast))) == NULL)
			goto nomem;
		t->fast = fast;
		memset(idx + t->nidx, 0, (n - t->nidx) * sizeof(*idx));
		for (i = t->nidx; i < n; i++)
			fast[i] = TDAT_RING_FAST_NONE;
		t->nidx = n;
	}
	if ((n = ev_room(t->nev)) != 0) {
		if ((ev = realloc(t->ev, n * sizeof(*ev))) == NULL)
			goto nomem;
		t->ev = ev;
	}
	ev = t->ev + t->nev;
	memset(ev, 0, sizeof(*ev));
	n = (uint32_t)strnlen(name, sizeof(ev->name) - 1);
	memcpy(ev->name, name, n);
	ev->sh = *sh;
	*ix = t->nev;
	t->fast[id] = (uint64_t)t->nev << 32 | (sh->nloc ? TDAT_RING_FAST_LOC |
	    TDAT_RING_FAST_NONE : sh->min_size);
	t->idx[id] = (uint32_t)++t->nev;
	return 0;
nomem:
	free(sh->loc);
	return -1;
}

void
tdat_ring_events_free(struct tdat_ring_events *t)
{
	size_t i;

	for (i = 0; i < t->nev; i++)
		free(t->ev[i].sh.loc);
	free(t->ev);
	free(t->idx);
	free(t->fast);
	memset(t, 0, sizeof(*t));
}
