/*
 * ltt-xml.h: libxml2, loaded only when an LTT directory is read, checked
 * or written (lib/common/tdat-dl.h; ltt-xml.c).  The LTT files include
 * this instead of <libxml/...>; their calls go through the table.
 */
#ifndef TDAT_LTT_XML_H
#define TDAT_LTT_XML_H

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlstring.h>
#include <libxml/xmlwriter.h>

#include "tdat-dl.h"

/* Every function (and variable) of libxml2 that tdat calls: add a name
 * here and its #define below. */
#define TDAT_XML_FUNCS(X) \
	X(htmlCtxtReadMemory) \
	X(htmlFreeParserCtxt) \
	X(htmlNewParserCtxt) \
	X(xmlAddNextSibling) \
	X(xmlDocGetRootElement) \
	X(xmlFree) \
	X(xmlFreeDoc) \
	X(xmlFreeTextWriter) \
	X(xmlGetLastError) \
	X(xmlGetLineNo) \
	X(xmlGetProp) \
	X(xmlNewTextWriterFilename) \
	X(xmlNodeGetContent) \
	X(xmlReadMemory) \
	X(xmlResetLastError) \
	X(xmlSchemaFree) \
	X(xmlSchemaFreeParserCtxt) \
	X(xmlSchemaFreeValidCtxt) \
	X(xmlSchemaNewMemParserCtxt) \
	X(xmlSchemaNewValidCtxt) \
	X(xmlSchemaParse) \
	X(xmlSchemaSetValidStructuredErrors) \
	X(xmlSchemaValidateDoc) \
	X(xmlSetGenericErrorFunc) \
	X(xmlSetProp) \
	X(xmlStrcmp) \
	X(xmlTextWriterEndDocument) \
	X(xmlTextWriterEndElement) \
	X(xmlTextWriterFullEndElement) \
	X(xmlTextWriterSetIndent) \
	X(xmlTextWriterSetIndentString) \
	X(xmlTextWriterStartDocument) \
	X(xmlTextWriterStartElement) \
	X(xmlTextWriterWriteAttribute) \
	X(xmlTextWriterWriteElement) \
	X(xmlTextWriterWriteFormatAttribute) \
	X(xmlTextWriterWriteString) \
	X(xmlUnlinkNode)

/* Their addresses, typed by the real declarations. */
struct tdat_xml_fns {
#define TDAT_XML_MEMBER(f) __typeof__(f) *f;
	TDAT_XML_FUNCS(TDAT_XML_MEMBER)
#undef TDAT_XML_MEMBER
};
extern struct tdat_xml_fns tdat_xml_fns;
extern struct tdat_dl tdat_xml_dl;

/* Load libxml2 (LTT directories): 0, or TDAT_EIO with *e saying why
 * not.  Each entry point that reads or writes such a directory calls it
 * first. */
int tdat_xml_load(struct tdat_err *e);

/* The table, loaded if no entry point did (else one line, exit 2). */
static inline const struct tdat_xml_fns *
tdat_xml(void)
{
	if (!tdat_dl_ready(&tdat_xml_dl))
		tdat_dl_need(&tdat_xml_dl);
	return &tdat_xml_fns;
}

/* The call sites unchanged: each name calls through the table. */
#ifndef TDAT_XML_LOADER
#define htmlCtxtReadMemory (*tdat_xml()->htmlCtxtReadMemory)
#define htmlFreeParserCtxt (*tdat_xml()->htmlFreeParserCtxt)
#define htmlNewParserCtxt (*tdat_xml()->htmlNewParserCtxt)
#define xmlAddNextSibling (*tdat_xml()->xmlAddNextSibling)
#define xmlDocGetRootElement (*tdat_xml()->xmlDocGetRootElement)
#define xmlFree (*tdat_xml()->xmlFree)
#define xmlFreeDoc (*tdat_xml()->xmlFreeDoc)
#define xmlFreeTextWriter (*tdat_xml()->xmlFreeTextWriter)
#define xmlGetLastError (*tdat_xml()->xmlGetLastError)
#define xmlGetLineNo (*tdat_xml()->xmlGetLineNo)
#define xmlGetProp (*tdat_xml()->xmlGetProp)
#define xmlNewTextWriterFilename (*tdat_xml()->xmlNewTextWriterFilename)
#define xmlNodeGetContent (*tdat_xml()->xmlNodeGetContent)
#define xmlReadMemory (*tdat_xml()->xmlReadMemory)
#define xmlResetLastError (*tdat_xml()->xmlResetLastError)
#define xmlSchemaFree (*tdat_xml()->xmlSchemaFree)
#define xmlSchemaFreeParserCtxt (*tdat_xml()->xmlSchemaFreeParserCtxt)
#define xmlSchemaFreeValidCtxt (*tdat_xml()->xmlSchemaFreeValidCtxt)
#define xmlSchemaNewMemParserCtxt (*tdat_xml()->xmlSchemaNewMemParserCtxt)
#define xmlSchemaNewValidCtxt (*tdat_xml()->xmlSchemaNewValidCtxt)
#define xmlSchemaParse (*tdat_xml()->xmlSchemaParse)
#define xmlSchemaSetValidStructuredErrors (*tdat_xml()->xmlSchemaSetValidStructuredErrors)
#define xmlSchemaValidateDoc (*tdat_xml()->xmlSchemaValidateDoc)
#define xmlSetGenericErrorFunc (*tdat_xml()->xmlSetGenericErrorFunc)
#define xmlSetProp (*tdat_xml()->xmlSetProp)
#define xmlStrcmp (*tdat_xml()->xmlStrcmp)
#define xmlTextWriterEndDocument (*tdat_xml()->xmlTextWriterEndDocument)
#define xmlTextWriterEndElement (*tdat_xml()->xmlTextWriterEndElement)
#define xmlTextWriterFullEndElement (*tdat_xml()->xmlTextWriterFullEndElement)
#define xmlTextWriterSetIndent (*tdat_xml()->xmlTextWriterSetIndent)
#define xmlTextWriterSetIndentString (*tdat_xml()->xmlTextWriterSetIndentString)
#define xmlTextWriterStartDocument (*tdat_xml()->xmlTextWriterStartDocument)
#define xmlTextWriterStartElement (*tdat_xml()->xmlTextWriterStartElement)
#define xmlTextWriterWriteAttribute (*tdat_xml()->xmlTextWriterWriteAttribute)
#define xmlTextWriterWriteElement (*tdat_xml()->xmlTextWriterWriteElement)
#define xmlTextWriterWriteFormatAttribute (*tdat_xml()->xmlTextWriterWriteFormatAttribute)
#define xmlTextWriterWriteString (*tdat_xml()->xmlTextWriterWriteString)
#define xmlUnlinkNode (*tdat_xml()->xmlUnlinkNode)
#endif

#endif
