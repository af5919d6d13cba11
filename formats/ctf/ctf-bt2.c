/*
 * ctf-bt2.c: libbabeltrace2's table (the list in ctf-bt2.h), filled when
 * a CTF directory first needs it.
 */
#define TDAT_BT2_LOADER
#include "tdat-common.h"
#include "ctf-bt2.h"

struct tdat_bt2_fns tdat_bt2_fns;

static const char *const tdat_bt2_names[] = {
#define TDAT_BT2_NAME(f) #f,
	TDAT_BT2_FUNCS(TDAT_BT2_NAME)
#undef TDAT_BT2_NAME
};

static void
tdat_bt2_fill(void *const *addr)
{
	size_t i = 0;

#define TDAT_BT2_SET(f) \
	tdat_bt2_fns.f = (__typeof__(tdat_bt2_fns.f))addr[i++];
	TDAT_BT2_FUNCS(TDAT_BT2_SET)
#undef TDAT_BT2_SET
}

struct tdat_dl tdat_bt2_dl = {
	TDAT_BT2_SONAME, "CTF directories", tdat_bt2_names,
	sizeof(tdat_bt2_names) / sizeof(tdat_bt2_names[0]), tdat_bt2_fill, 0
};

int
tdat_bt2_load(struct tdat_err *e)
{
	return tdat_dl_load(&tdat_bt2_dl, e);
}
