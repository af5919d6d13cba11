/*
 * cli-verify.c: tdat-verify, the command-line part (like cli.c, it
 * prints): each finding of tdat_verify() as a line or a JSON object, a
 * summary per file, and after damage what tdat-cat --salvage would keep.
 */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include <json.h>

#include "tdat-int.h"

struct job {
	int quiet, json, strict;
	struct tdat_verify_opts vo;
	const char *file;	/* as printed */
};

/* Valid UTF-8 for json-c: bad bytes become U+FFFD (lib/common/jsonc.c). */
static json_object *
jstr(const char *s)
{
	json_object *o = tdat_json_string(s, strlen(s));

	if (o == NULL)
		tdat_die(2, "out of memory");
	return o;
}

/* Integers by the JSON number rule of every output (jsonc.c): past
 * 2^53 - 1 in magnitude, a string of their digits. */
static json_object *
jnum(uint64_t v)
{
	json_object *o = tdat_json_u64(v);

	if (o == NULL)
		tdat_die(2, "out of memory");
	return o;
}

static void
jprint(json_object *o)
{
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE), stdout);
	putchar('\n');
	json_object_put(o);
	tdat_check_stdout();
}

static int
found(void *arg, const struct tdat_finding *fd)
{
	const struct job *j = arg;
	const char *sev = fd->severity == TDAT_FIND_ERROR ? "error" : "warning";
	const char *file = j->file;
	char path[4096], msg[1100];
	json_object *o;

	if (j->quiet)
		return 0;
	if (fd->file) {
		snprintf(path, sizeof(path), "%s/%s", j->file, fd->file);
		file = path;
	}
	if (j->json) {
		o = json_object_new_object();
		json_object_object_add(o, "file", jstr(file));
		json_object_object_add(o, "severity", json_object_new_string(sev));
		json_object_object_add(o, "kind", json_object_new_string(fd->kind));
		json_object_object_add(o, "offset", fd->has_off ?
		    jnum(fd->off) : NULL);
		if (fd->buffer)
			json_object_object_add(o, "buffer", jstr(fd->buffer));
		if (fd->cpu >= 0)
			json_object_object_add(o, "cpu",
			    json_object_new_int(fd->cpu));
		if (fd->page >= 0)
			json_object_object_add(o, "page",
			    jnum((uint64_t)fd->page));
		json_object_object_add(o, "message", jstr(fd->msg));
		jprint(o);
		return 0;
	}
	/* one line: a file's name or message may hold control bytes */
	tdat_vis(path, sizeof(path), file);
	tdat_vis(msg, sizeof(msg), fd->msg);
	printf("%s: ", path);
	if (fd->has_off)
		printf("offset 0x%llx: ", (unsigned long long)fd->off);
	printf("%s: ", sev);
	if (fd->buffer && fd->buffer[0])
		printf("buffer %s%s", fd->buffer, fd->cpu >= 0 ? " " : ": ");
	if (fd->cpu >= 0)
		printf("CPU %d%s", fd->cpu, fd->page >= 0 ? " " : ": ");
	if (fd->page >= 0)
		printf("page %lld: ", fd->page);
	printf("%s\n", msg);
	tdat_check_stdout();
	return 0;
}

static void
summary(const struct job *j, const struct tdat_verify_stats *st, int status)
{
	const char *word = status == 0 ? (st->warnings ? "ok with warnings" :
	    "ok") : "damaged";
	json_object *o;

	if (j->json) {
		o = json_object_new_object();
		json_object_object_add(o, "file", jstr(j->file));
		json_object_object_add(o, "summary", json_object_new_string(word));
		json_object_object_add(o, "version", json_object_new_int(st->version));
		json_object_object_add(o, "compression", jstr(st->comp));
		json_object_object_add(o, "buffers", jnum(st->buffers));
		json_object_object_add(o, "cpus", jnum(st->cpus));
		json_object_object_add(o, "pages", jnum(st->pages));
		json_object_object_add(o, "records", jnum(st->records));
		json_object_object_add(o, "errors", jnum(st->errors));
		json_object_object_add(o, "warnings", jnum(st->warnings));
		jprint(o);
		return;
	}
	printf("%s: %s: ", j->file, word);
	if (st->version)
		printf("v%d %s, %u buffer%s, %u CPU%s, ", st->version, st->comp,
		    st->buffers, st->buffers == 1 ? "" : "s", st->cpus,
		    st->cpus == 1 ? "" : "s");
	if (st->version == 0 && strcmp(st->comp, "ltt") == 0)
		printf("LTT directory, %llu blocks, %llu events, ",
		    (unsigned long long)st->pages,
		    (unsigned long long)st->records);
	else
		printf("%llu pages, %llu records, ",
		    (unsigned long long)st->pages,
		    (unsigned long long)st->records);
	printf("%llu error%s, %llu warning%s",
	    (unsigned long long)st->errors, st->errors == 1 ? "" : "s",
	    (unsigned long long)st->warnings, st->warnings == 1 ? "" : "s");
	if (st->unreported)
		printf(" (%llu not shown; -k shows every finding)",
		    (unsigned long long)st->unreported);
	putchar('\n');
	tdat_check_stdout();
}

/*
 * A file that could not be read (missing, a directory, an I/O error): the
 * message goes to stderr as always and, with --json, a summary says so, so
 * that one JSON Lines stream accounts for every file given.
 */
static int
unreadable(const struct job *j, const char *path, const struct tdat_err *e)
{
	json_object *o;

	tdat_report_err(path, e);	/* stderr, even with -q */
	if (j->json && !j->quiet) {
		o = json_object_new_object();
		json_object_object_add(o, "file", jstr(strcmp(path, "-") == 0 ?
		    "stdin" : path));
		json_object_object_add(o, "summary",
		    json_object_new_string("unreadable"));
		json_object_object_add(o, "message", jstr(e->msg[0] ? e->msg :
		    "unknown error"));
		jprint(o);
	}
	return 2;
}

/*
 * After damage: what tdat-cat --salvage would keep, as the format's checker
 * counted it (struct tdat_verify_stats).
 */
static void
salvage_hint(const struct job *j, const struct tdat_verify_stats *st)
{
	char drop[96] = "", why[sizeof(st->salvage_why)];
	json_object *o;

	if (j->json) {
		o = json_object_new_object();
		json_object_object_add(o, "file", jstr(j->file));
		json_object_object_add(o, "salvage",
		    json_object_new_boolean(st->salvage > 0));
		if (st->salvage > 0) {
			json_object_object_add(o, "kept_pages",
			    jnum(st->kept_pages));
			json_object_object_add(o, "pages",
			    jnum(st->salvage_pages));
			json_object_object_add(o, "kept_records",
			    jnum(st->kept_records));
			json_object_object_add(o, "lost_chunks",
			    jnum(st->lost_chunks));
			json_object_object_add(o, "dropped_lines",
			    jnum(st->dropped_lines));
		}
		jprint(o);
		return;
	}
	tdat_vis(why, sizeof(why), st->salvage_why);
	if (st->dropped_lines)
		snprintf(drop, sizeof(drop), ", dropping %llu damaged lines of "
		    "kallsyms, printk formats or cmdlines",
		    (unsigned long long)st->dropped_lines);
	if (st->salvage < 0)
		printf("%s: damaged: tdat-cat --salvage cannot recover it: %s\n",
		    j->file, why);
	else
		printf("%s: damaged: tdat-cat --salvage would keep %llu of %llu "
		    "pages (%llu records)%s\n", j->file,
		    (unsigned long long)st->kept_pages,
		    (unsigned long long)st->salvage_pages,
		    (unsigned long long)st->kept_records, drop);
	tdat_check_stdout();
}

static int
verify_one(const char *path, struct job *j, int last)
{
	struct tdat_verify_stats st;
	struct tdat_err e = { 0 };
	int status;

	j->file = strcmp(path, "-") == 0 ? "stdin" : path;
	tdat_cli_catch_sigbus(path);
	if (tdat_verify(path, &j->vo, &st, &e) < 0)
		return unreadable(j, path, &e);
	/* Many files in one run: give back what this one held before the
	 * next.  After the last, exit gives it back without the trim's
	 * system calls (37 madvise() on ../shared/bench's v6 twin). */
	if (!last)
		malloc_trim(0);
	status = st.errors || (j->strict && st.warnings) ? 1 : 0;
	if (!j->quiet)
		summary(j, &st, status);
	if (status && st.errors && !j->quiet && st.salvage)
		salvage_hint(j, &st);
	return status;
}

int
tdat_cli_verify(char **paths, size_t n, const struct tdat_cli_verify *o)
{
	struct job j;
	size_t i;
	int r, st = 0;

	memset(&j, 0, sizeof(j));
	j.quiet = o->quiet;
	j.json = o->json;
	j.strict = o->strict;
	j.vo.keep_going = o->keep_going;
	j.vo.no_pages = o->no_pages;
	j.vo.salvage = !o->quiet;
	j.vo.found = found;
	j.vo.arg = &j;
	if (n == 0)
		return verify_one("-", &j, 1);
	for (i = 0; i < n; i++)
		if ((r = verify_one(paths[i], &j, i + 1 == n)) > st)
			st = r;
	return st;
}
