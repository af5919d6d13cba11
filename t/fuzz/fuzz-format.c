/*
 * fuzz-format: libFuzzer harness for the event format parser and the
 * print format compiler and printer (lib/event*.c, lib/event/print.c).  The
 * input is a format file; after a "\n\0" separator, the bytes of a record
 * to print with it in every mode.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int modes[] = { TDAT_PRINT_FMT, TDAT_PRINT_RAW,
	    TDAT_PRINT_PLUGINS };
	const uint8_t *sep = memmem(data, size, "\n\0", 2);
	size_t flen = sep ? (size_t)(sep - data) + 1 : size;
	struct tdat_events *set;
	struct tdat_event *ev;
	struct tdat_record rec;
	struct tdat_sbuf sb;
	struct tdat_err e;
	unsigned char *rd;
	char *text;
	size_t i, rlen = sep ? size - flen - 1 : 0;

	tdat_formats_all();
	if ((text = malloc(flen + 1)) == NULL)
		return 0;
	memcpy(text, data, flen);
	text[flen] = '\0';
	if ((set = tdat_events_new(8, 0)) == NULL) {
		free(text);
		return 0;
	}
	if (tdat_events_add(set, text, flen, "fuzz", &ev, &e) == 0) {
		tdat_events_finish(set, 1);
		/* An exact-size heap copy, so ASan sees any read past it. */
		if ((rd = malloc(rlen ? rlen : 1)) != NULL) {
			memcpy(rd, sep ? sep + 1 : data, rlen);
			memset(&rec, 0, sizeof(rec));
			rec.data = rd;
			rec.size = (uint32_t)rlen;
			tdat_sb_init(&sb);
			for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
				tdat_sb_reset(&sb);
				tdat_event_print(ev, &rec, modes[i], &sb);
			}
			tdat_sb_free(&sb);
			free(rd);
		}
	}
	tdat_events_free(set);
	free(text);
	return 0;
}
