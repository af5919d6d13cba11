/*
 * jsonc.c: the JSON rules every JSON output follows, for json-c objects:
 * strings made valid UTF-8 (each byte that does not belong to a
 * well-formed sequence becomes U+FFFD) and integers as a reader of
 * doubles takes them without loss (a number up to TDAT_JSON_SAFE in
 * magnitude, else a string of its decimal digits).  formats/json's
 * streaming writer and tdat-verify --json (lib/cli/cli-verify.c) both
 * follow them.
 */
#include <stdio.h>

#include <json-c/json.h>

#include "tdat-common.h"

size_t
tdat_json_utf8(struct tdat_sbuf *b, const void *s, size_t n)
{
	const unsigned char *p = s;
	size_t i = 0, start = 0, bad = 0, l;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if ((l = tdat_utf8_len(p + i, n - i)) != 0) {
			i += l;
			continue;
		}
		tdat_sb_add(b, (const char *)p + start, i - start);
		tdat_sb_add(b, "\xef\xbf\xbd", 3);
		bad++;
		start = ++i;
	}
	tdat_sb_add(b, (const char *)p + start, n - start);
	return bad;
}

struct json_object *
tdat_json_string(const void *s, size_t n)
{
	struct tdat_sbuf b;
	struct json_object *o;

	tdat_sb_init(&b);
	tdat_json_utf8(&b, s, n);
	if (b.oom) {
		tdat_sb_free(&b);
		return NULL;
	}
	o = json_object_new_string_len(b.p ? b.p : "", (int)b.len);
	tdat_sb_free(&b);
	return o;
}

struct json_object *
tdat_json_u64(uint64_t v)
{
	char buf[24];

	if (v <= TDAT_JSON_SAFE)
		return json_object_new_int64((int64_t)v);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return json_object_new_string(buf);
}
