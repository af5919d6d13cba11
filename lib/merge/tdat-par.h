/*
 * tdat-par.h: the record driver's formatting on threads (par.c), for a
 * sink that gives struct tdat_sink_par (tdat-sink.h).
 */
#ifndef TDAT_PAR_H
#define TDAT_PAR_H

struct tdat_par;

/* After the sink's begin(): *pp n threads (the driver's included), or
 * NULL when the records go to record() (n is 1, no tdat_sink_par, or the
 * sink says so).  from: the records record() had before (for
 * TDAT_THREADS_STATS).  0 or a negative code. */
int tdat_par_open(const struct tdat_sink *, int n, uint64_t from,
    struct tdat_par **pp, struct tdat_err *e);
/* A kept record, in order (copied).  0 or a negative code. */
int tdat_par_add(struct tdat_par *, size_t k, const struct tdat_record *,
    struct tdat_err *e);
/* drain: format and write every record added (0 or a negative code);
 * else drop them.  Stops the threads and frees; p may be NULL. */
int tdat_par_close(struct tdat_par *, int drain, struct tdat_err *e);

#endif
