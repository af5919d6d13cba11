/*
 * ltt-xml.c: libxml2's table (the list in ltt-xml.h), filled when
 * a LTT directory first needs it.
 */
#define TDAT_XML_LOADER
#include "tdat-common.h"
#include "ltt-xml.h"

struct tdat_xml_fns tdat_xml_fns;

static const char *const tdat_xml_names[] = {
#define TDAT_XML_NAME(f) #f,
	TDAT_XML_FUNCS(TDAT_XML_NAME)
#undef TDAT_XML_NAME
};

static void
tdat_xml_fill(void *const *addr)
{
	size_t i = 0;

#define TDAT_XML_SET(f) \
	tdat_xml_fns.f = (__typeof__(tdat_xml_fns.f))addr[i++];
	TDAT_XML_FUNCS(TDAT_XML_SET)
#undef TDAT_XML_SET
}

struct tdat_dl tdat_xml_dl = {
	TDAT_XML_SONAME, "LTT directories", tdat_xml_names,
	sizeof(tdat_xml_names) / sizeof(tdat_xml_names[0]), tdat_xml_fill, 0
};

int
tdat_xml_load(struct tdat_err *e)
{
	return tdat_dl_load(&tdat_xml_dl, e);
}
