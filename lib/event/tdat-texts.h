/*
 * tdat-texts.h: the metadata texts (kallsyms, printk formats, saved
 * cmdlines) and the shape of their lines (lib/event/texts.c).
 */
#ifndef TDAT_TEXTS_H
#define TDAT_TEXTS_H

#include <stddef.h>
#include <stdint.h>

struct tdat_err;
struct tdat_file;
struct tdat_blob;

/*
 * The metadata texts (lib/event/texts.c): whether each line has the shape the
 * kernel gives it.  tdat_text_line_bad(): NULL, or what is wrong with the
 * n bytes of one line (without its newline).  tdat_text_check() counts a
 * text's lines and bad ones; tdat_text_drop_bad() takes the bad ones out
 * in place and returns the text's new length.
 */
enum tdat_text { TDAT_TEXT_KALLSYMS, TDAT_TEXT_PRINTK, TDAT_TEXT_CMDLINES };

#define TDAT_TEXT_PREVIEW	40	/* bytes of a bad line shown */

struct tdat_text_check {
	uint64_t lines;		/* lines read */
	uint64_t bad;		/* lines not of the kernel's shape */
	uint64_t first_line;	/* the first bad one, counted from 1 */
	uint64_t first_at;	/* its first byte in the text */
	const char *why;	/* what is wrong with it */
	char first[TDAT_TEXT_PREVIEW * 4 + 1];	/* its first bytes, printable */
};

const char *tdat_text_line_bad(enum tdat_text, const char *p, size_t n);
const char *tdat_text_name(enum tdat_text);	/* "KALLSYMS"... */
void tdat_text_check(enum tdat_text, const char *text, size_t len,
    struct tdat_text_check *);
/* r, the check of a text's lines up to byte at, takes the check of the
 * lines that follow (tdat_text_check() of the text from at): r becomes
 * the check of both, as if read in one go. */
void tdat_text_check_add(struct tdat_text_check *r,
    const struct tdat_text_check *next, uint64_t at);
size_t tdat_text_drop_bad(enum tdat_text, char *text, size_t len,
    struct tdat_text_check *);
/*
 * r's first damaged line of a text of kind as a message, into buf:
 * "KALLSYMS: line 5 is damaged (no address): \"...\"", without
 * "KALLSYMS: " unless name (an LTT info file's name says it), with " of
 * the decompressed text" after the number unless exact, and "; 3 of 40
 * lines are" when more than one is.  Returns buf.
 */
#define TDAT_TEXT_SAY	(TDAT_TEXT_PREVIEW * 4 + 160)
const char *tdat_text_say(char *buf, size_t n, enum tdat_text kind, int name,
    const struct tdat_text_check *r, int exact);
/* A writer's check of f's texts: 0, or < 0 naming the first damaged line
 * (lib/event/texts.c). */
int tdat_text_refuse(const struct tdat_file *f, struct tdat_err *e);
/* The same with the kallsyms' lines checked already (r, of the text f
 * holds: the reader checked them as it read them), or NULL. */
int tdat_text_refuse_known(const struct tdat_file *f,
    const struct tdat_text_check *kallsyms, struct tdat_err *e);

#endif
