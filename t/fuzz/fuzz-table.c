/*
 * fuzz-table: libFuzzer harness for the table writer, as tdat-to-table
 * drives it: the input (after its first byte: bit 0 --hex, bit 1 at most
 * two tables open at once) is a trace.dat, written as tables into an
 * empty directory in /dev/shm.  The writer must refuse it or write
 * tables that read_csv takes with meta.json's dtypes: meta.json is JSON
 * that names every CSV file; each file is its header (the column names)
 * and rows of as many fields, RFC 4180 quoting, every text cell quoted,
 * every integer cell a decimal integer within its dtype's range (an
 * empty one only in an Int64 column), every bool cell true or false;
 * and as many rows as meta.json says.  A table that breaks this aborts.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "tdat-int.h"
#include "fuzz.h"

static void fail(const char *, const char *, size_t)
    __attribute__((noreturn));

static void
fail(const char *path, const char *what, size_t at)
{
	fprintf(stderr, "fuzz-table: %s: byte %zu: %s\n", path, at, what);
	abort();
}

/* A whole file, its length in *n; NULL on any error. */
static char *
slurp_file(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	char *p = NULL;
	long len;

	*n = 0;
	if (fp == NULL)
		return NULL;
	if (fseek(fp, 0, SEEK_END) == 0 && (len = ftell(fp)) >= 0 &&
	    fseek(fp, 0, SEEK_SET) == 0 && (p = malloc((size_t)len + 1)) &&
	    fread(p, 1, (size_t)len, fp) == (size_t)len)
		*n = (size_t)len;
	else {
		free(p);
		p = NULL;
	}
	fclose(fp);
	return p;
}

/* Whether the n bytes at s are a decimal integer of dtype (uintN,
 * intN, Int64). */
static int
int_ok(const char *s, size_t n, const char *dtype)
{
	int neg = n > 0 && s[0] == '-', bits;
	uint64_t v = 0, max;
	size_t i;

	if (n == (size_t)neg || n - neg > 20 || (s[neg] == '0' && n - neg > 1))
		return 0;
	for (i = neg; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return 0;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (dtype[0] == 'u') {
		bits = atoi(dtype + 4);
		max = bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;
		return !neg && v <= max;
	}
	bits = atoi(dtype + 3);		/* intN, IntN */
	max = (1ULL << (bits - 1)) - (neg ? 0 : 1);
	return v <= max && !(neg && v == 0);
}

/* Check one CSV file against its entry of meta.json. */
static void
check_table(const char *dir, struct json_object *t)
{
	struct json_object *o, *cols, *c;
	const char *name, *dtype, *p, *end, *f;
	char path[4200];
	size_t n, i, ncol = 0, k, fl;
	int64_t rows = -1, got = 0;
	char *text;
	int quoted;

	if (!json_object_object_get_ex(t, "path", &o) ||
	    (name = json_object_get_string(o)) == NULL ||
	    strchr(name, '/') || !json_object_object_get_ex(t, "columns",
	    &cols) || (ncol = json_object_array_length(cols)) == 0)
		fail("meta.json", "a table without path or columns", 0);
	if (json_object_object_get_ex(t, "nr-rows", &o))
		rows = json_object_get_int64(o);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((text = slurp_file(path, &n)) == NULL)
		fail(path, "cannot read", 0);
	p = text;
	end = text + n;
	/* the header */
	for (i = 0; i < ncol; i++) {
		c = json_object_array_get_idx(cols, i);
		if (!json_object_object_get_ex(c, "name", &o))
			fail(path, "a column without a name", 0);
		f = json_object_get_string(o);
		fl = strlen(f);
		if ((size_t)(end - p) < fl + 1 || memcmp(p, f, fl) != 0 ||
		    p[fl] != (i + 1 < ncol ? ',' : '\n'))
			fail(path, "header", (size_t)(p - text));
		p += fl + 1;
	}
	/* the rows */
	while (p < end) {
		for (i = 0; i < ncol; i++) {
			c = json_object_array_get_idx(cols, i);
			json_object_object_get_ex(c, "dtype", &o);
			dtype = json_object_get_string(o);
			f = p;
			quoted = p < end && *p == '"';
			if (quoted) {
				for (p++; p < end; p++) {
					if (*p != '"')
						continue;
					if (p + 1 < end && p[1] == '"') {
						p++;
						continue;
					}
					break;
				}
				if (p >= end)
					fail(path, "an unclosed quote",
					    (size_t)(f - text));
				p++;
			} else {
				while (p < end && *p != ',' && *p != '\n' &&
				    *p != '"')
					p++;
			}
			k = (size_t)(p - f);
			if (p >= end || *p != (i + 1 < ncol ? ',' : '\n'))
				fail(path, "a row of the wrong number of "
				    "fields", (size_t)(f - text));
			p++;
			if (strcmp(dtype, "str") == 0) {
				if (!quoted)
					fail(path, "text not quoted",
					    (size_t)(f - text));
			} else if (strcmp(dtype, "bool") == 0) {
				if (!(k == 4 && memcmp(f, "true", 4) == 0) &&
				    !(k == 5 && memcmp(f, "false", 5) == 0))
					fail(path, "not a bool",
					    (size_t)(f - text));
			} else if (quoted || !((k == 0 &&
			    strcmp(dtype, "Int64") == 0) ||
			    int_ok(f, k, dtype))) {
				fail(path, "not an integer of its dtype",
				    (size_t)(f - text));
			}
		}
		got++;
	}
	if (got != rows)
		fail(path, "not the rows meta.json counts", n);
	free(text);
}

static void
check_dir(const char *dir)
{
	struct json_object *meta, *tables;
	char path[4200];
	size_t i, n;

	snprintf(path, sizeof(path), "%s/meta.json", dir);
	if ((meta = json_object_from_file(path)) == NULL)
		fail(path, "not JSON", 0);
	if (!json_object_object_get_ex(meta, "events-info", &tables))
		fail(path, "no events-info", 0);
	n = json_object_array_length(tables);
	for (i = 0; i < n; i++)
		check_table(dir, json_object_array_get_idx(tables, i));
	json_object_put(meta);
}

/* Empty dir (one level: the writer makes files only). */
static void
empty(const char *dir)
{
	char path[4200];
	struct dirent *de;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
		    (de->d_name[1] == '.' && de->d_name[2] == '\0')))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
}

static char dir[64];

static void
rm_dir(void)
{
	empty(dir);
	rmdir(dir);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct tdat_table_opts o;
	struct tdat_file *f;
	struct tdat_err e;
	char path[64];

	tdat_formats_all();
	if (dir[0] == '\0') {
		snprintf(dir, sizeof(dir), "/dev/shm/fuzz-table.%d",
		    (int)getpid());
		if (mkdir(dir, 0700) < 0 && errno != EEXIST &&
		    (snprintf(dir, sizeof(dir), "/tmp/fuzz-table.%d",
		    (int)getpid()), mkdir(dir, 0700) < 0) && errno != EEXIST)
			abort();
		atexit(rm_dir);
	}
	if (size < 1 || fz_file(&fd, data + 1, size - 1, path,
	    sizeof(path)) < 0 || tdat_open(path, &f, &e) < 0)
		return 0;
	memset(&o, 0, sizeof(o));
	o.hex = data[0] & 1;
	o.max_open = data[0] & 2 ? 2 : 0;
	empty(dir);
	if (tdat_table_write(&f, 1, dir, &o, &e) == 0)
		check_dir(dir);
	empty(dir);
	tdat_close(f);
	return 0;
}
