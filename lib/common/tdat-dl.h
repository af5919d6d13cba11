/*
 * tdat-dl.h: a shared library loaded only when a format needs it
 * (lib/common/dl.c).  libxml2 (LTT directories, formats/ltt/ltt-xml.h)
 * and libbabeltrace2 (CTF directories, formats/ctf/ctf-bt2.h) pull in
 * ICU, glib and libstdc++: linked into every tool, they doubled the
 * start of a tdat-verify on a small trace.dat.  So the tools do not link
 * them; the format that reads or writes such a directory loads its
 * library (dlopen, RTLD_NOW | RTLD_LOCAL: every symbol resolved at once)
 * and calls through a table of the functions it uses.
 *
 * A library's header keeps the call sites as they are:
 *
 *   #include <lib/real-header.h>        the declarations, still the
 *                                       compile-time truth
 *   #define LIB_FUNCS(X) X(f) X(g) ...  the functions (and variables,
 *                                       such as libxml2's xmlFree) used
 *   struct lib_fns { LIB_FUNCS(MEMBER) } with MEMBER(f) __typeof__(f) *f;
 *   #define f (*lib()->f)              one line a name, after the header
 *
 * A name used but missing from the list fails the link (the tools name
 * neither library); one listed without its #define fails it too.
 */
#ifndef TDAT_DL_H
#define TDAT_DL_H

#include <stddef.h>

struct tdat_err;

struct tdat_dl {
	const char *soname;		/* "libxml2.so.2", from the build */
	const char *need;		/* what needs it: "LTT directories" */
	const char *const *names;	/* the symbols, n of them */
	size_t n;
	/* the library's table filled from the n addresses, in names' order */
	void (*fill)(void *const *addr);
	int ready;			/* loaded: read with tdat_dl_ready() */
};

/* 1 once l is loaded and its table filled (any thread). */
static inline int
tdat_dl_ready(const struct tdat_dl *l)
{
	return __atomic_load_n(&l->ready, __ATOMIC_ACQUIRE);
}

/* Load l once (thread-safe) and fill its table: 0, or TDAT_EIO with *e
 * saying which library the format needs and why it did not load. */
int tdat_dl_load(struct tdat_dl *l, struct tdat_err *e);

/* The table's guard on every call: loads l if no entry point did, or
 * prints that one line, removes any temporary output and exits 2. */
void tdat_dl_need(struct tdat_dl *l);

#endif
