/*
 * tdat-verify: check trace.dat files and LTT directories for damage
 * (container, event formats, every ring-buffer page;
 * formats/tracedat/tracedat-verify.c over lib/check, and
 * formats/ltt/ltt-verify.c) with a trustworthy exit status: 0 clean,
 * 1 damaged (with --strict, warnings too), 2 usage or I/O error.  The
 * findings and summaries are printed by lib/cli/cli-verify.c.
 */
#include <string.h>
#include <unistd.h>

#include "tdat.h"

enum { O_JSON = 256, O_STRICT, O_CHECK_EVENTS };

static const struct tdat_cli_opt opts[] = {
	{ 'q', "quiet", 0, NULL, "print nothing: the exit status tells" },
	{ 'k', "keep-going", 0, NULL,
	    "report every finding, not the first error of each section" },
	{ O_STRICT, "strict", 0, NULL, "warnings make the exit status 1 too" },
	{ O_JSON, "json", 0, NULL, "findings and summaries as JSON Lines" },
	{ O_CHECK_EVENTS, "check-events", 0, NULL,
	    "check the container and the event formats only, not the pages" },
	{ 0, NULL, 0, NULL, NULL },
};

static const struct tdat_cli cli = {
	"[-q] [-k] [--strict] [--json] [--check-events] [FILE...]",
	"check trace.dat files and LTT directories for damage (- or no FILE "
	"with a pipe or a file "
	"as standard input: stdin)",
	opts,
};

int
main(int argc, char *argv[])
{
	struct tdat_cli_verify o;
	int c;

	memset(&o, 0, sizeof(o));
	tdat_formats_all();
	tdat_cli_init("tdat-verify");
	while ((c = tdat_getopt(argc, argv, &cli)) != -1) {
		switch (c) {
		case 'q':
			o.quiet = 1;
			break;
		case 'k':
			o.keep_going = 1;
			break;
		case O_STRICT:
			o.strict = 1;
			break;
		case O_JSON:
			o.json = 1;
			break;
		case O_CHECK_EVENTS:
			o.no_pages = 1;
			break;
		}
	}
	if (optind >= argc && tdat_cli_input(NULL) == NULL)
		tdat_usage_error("no FILE given");
	return tdat_close_stdout(tdat_cli_verify(argv + optind,
	    (size_t)(argc - optind), &o));
}
