/*
 * fuzz-page: libFuzzer harness for the ring-buffer page decoder shared by
 * the record reader and tdat-verify (tdat_page_init, tdat_page_next).
 * The first byte picks the layout: bit 0 big-endian, bit 1 an 8-byte
 * commit field, bits 2-3 the page size (4096 >> n); the rest is the page.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tdat_page_layout pl;
	struct tdat_page pg;
	struct tdat_page_item it = { 0 };
	struct tdat_err e;
	unsigned char *page;
	uint32_t ps;
	uint64_t sum = 0;

	tdat_formats_all();
	if (size < 1)
		return 0;
	memset(&pl, 0, sizeof(pl));
	pl.big = data[0] & 1;
	pl.commit_size = data[0] & 2 ? 8 : 4;
	pl.data_off = 8 + pl.commit_size;
	pl.padding_type = 29;
	pl.extend_type = 30;
	pl.stamp_type = 31;
	ps = 4096u >> ((data[0] >> 2) & 3);
	/* An exact-size heap copy, so ASan sees any read past the page. */
	if ((page = malloc(ps)) == NULL)
		return 0;
	memset(page, 0, ps);
	memcpy(page, data + 1, size - 1 < ps ? size - 1 : ps);
	memset(&pg, 0, sizeof(pg));
	pg.p = page;
	pg.page_size = ps;
	pg.chunk_pos = data[0] & 16 ? 0 : -1;
	if (tdat_page_init(&pl, &pg, &e) == 0)
		while (tdat_page_next(&pl, &pg, &it, &e) > 0) {
			if (it.kind == TDAT_ITEM_DATA && it.size)
				sum += it.data[it.size - 1] + it.data[0];
			if (pg.pos > pg.commit)
				abort();
		}
	free(page);
	return sum == 1;
}
