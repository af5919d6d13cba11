/*
 * cli.c: the command-line helpers of bin/: one option table driving
 * getopt_long, --help and --version; one message shape; exit statuses
 * 0, 1, 2; a checked stdout; the progress line; standard input as the
 * default FILE.  Only bin/ calls these: the rest of the library never
 * prints or exits.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdat-int.h"
#include "tdat-output.h"

#ifndef TDAT_VERSION
#define TDAT_VERSION "unknown"
#endif

#define MAX_OPTS	64
#define MAX_CPUS	8192
#define HELP_COL	24
#define OPT_HELP	(TDAT_CLI_LONG - 1)
#define OPT_VERSION	(TDAT_CLI_LONG - 2)

static const char *prog = "tdat";
static const struct tdat_cli *cur;	/* the table of the last tdat_getopt() */
static struct {
	int mode;		/* 1 --progress, 0 --no-progress, -1 automatic */
	int last;		/* the percentage shown last */
	int shown;		/* a progress line is open */
} progress = { -1, -1, 0 };

static void	vwarn(const char *, va_list);
static void	usage_lines(FILE *);
static void	help_line(FILE *, int, const char *, int, const char *,
		    const char *);
static int	opt_val(const struct tdat_cli_opt *, int);
static void	stdout_failed(void);

void
tdat_cli_init(const char *name)
{
	const char *p;

	if (name == NULL)
		return;
	p = strrchr(name, '/');
	prog = p ? p + 1 : name;
}

const char *
tdat_prog(void)
{
	return prog;
}

/*
 * One line on stderr: "PROG: " and the message, whose control bytes
 * (a name or a compression from a damaged file: "heet:12;\tsize:4;\n...")
 * become '?'.
 */
static void
vwarn(const char *fmt, va_list ap)
{
	char line[2048];

	vsnprintf(line, sizeof(line), fmt, ap);
	tdat_vis(line, sizeof(line), line);
	tdat_cli_progress_end();
	fflush(stdout);
	fprintf(stderr, "%s: %s\n", prog, line);
}

void
tdat_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void
tdat_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(status);
}

int
tdat_report_err(const char *file, const struct tdat_err *e)
{
	const char *msg = e && e->msg[0] ? e->msg : "unknown error";
	int st;

	if (e && e->named)
		file = NULL;
	if (file && strcmp(file, "-") == 0)
		file = "stdin";
	if (e && e->has_off)
		tdat_warn("%s%soffset 0x%llx: %s", file ? file : "", file ?
		    ": " : "", (unsigned long long)e->off, msg);
	else
		tdat_warn("%s%s%s", file ? file : "", file ? ": " : "", msg);
	st = e ? tdat_exit_status(e->code) : 2;
	return st ? st : 2;
}

/* The usage lines: "usage: PROG SYNOPSIS", one per synopsis line. */
static void
usage_lines(FILE *fp)
{
	const char *s = cur && cur->synopsis ? cur->synopsis : "[options]";
	const char *nl;
	int first = 1;

	do {
		nl = strchr(s, '\n');
		fprintf(fp, "%s %s %.*s\n", first ? "usage:" : "      ", prog,
		    nl ? (int)(nl - s) : (int)strlen(s), s);
		first = 0;
		s = nl + 1;
	} while (nl && *s);
}

void
tdat_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	usage_lines(stderr);
	fprintf(stderr, "try '%s --help' for more information\n", prog);
	exit(2);
}

const char *
tdat_default_dir(const char *file, const char *ext)
{
	static char buf[4096];
	const char *b = strrchr(file, '/');
	size_t n;

	if (strcmp(file, "-") == 0) {
		snprintf(buf, sizeof(buf), "trace%s", ext);
		return buf;
	}
	b = b ? b + 1 : file;
	n = strlen(b);
	if (n > 4 && strcmp(b + n - 4, ".dat") == 0)
		n -= 4;
	if (n == 0 || n > sizeof(buf) - 1 - strlen(ext))
		tdat_usage_error("give DIR for %s", file);
	snprintf(buf, sizeof(buf), "%.*s%s", (int)n, b, ext);
	return buf;
}

static void
help_line(FILE *fp, int s, const char *l, int has_arg, const char *arg,
    const char *help)
{
	char buf[128];
	int n;

	if (s > 0 && s < 256 && l)
		n = snprintf(buf, sizeof(buf), "  -%c, --%s", s, l);
	else if (s > 0 && s < 256)
		n = snprintf(buf, sizeof(buf), "  -%c", s);
	else
		n = snprintf(buf, sizeof(buf), "      --%s", l ? l : "?");
	if (has_arg && n > 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, has_arg == 2 ? "[=%s]" :
		    l ? "=%s" : " %s", arg ? arg : "ARG");
	if (help == NULL || help[0] == '\0')
		fprintf(fp, "%s\n", buf);
	else if (strlen(buf) + 2 > HELP_COL)
		fprintf(fp, "%s\n%*s%s\n", buf, HELP_COL, "", help);
	else
		fprintf(fp, "%-*s%s\n", HELP_COL, buf, help);
}

void
tdat_help(const struct tdat_cli *cli, FILE *fp)
{
	const struct tdat_cli_opt *o;
	const struct tdat_cli *save = cur;

	cur = cli;
	usage_lines(fp);
	cur = save;
	if (cli->purpose)
		fprintf(fp, "%s\n", cli->purpose);
	fprintf(fp, "\noptions:\n");
	for (o = cli->opt; o && (o->short_name || o->long_name); o++)
		help_line(fp, o->short_name, o->long_name, o->has_arg,
		    o->arg_name, o->help);
	help_line(fp, 0, "help", 0, NULL, "show this help and exit");
	help_line(fp, 0, "version", 0, NULL, "show the version and exit");
	fprintf(fp, "\nexit status: 0 ok, 1 damaged data or a finding, "
	    "2 usage or I/O error\n");
}

static int
opt_val(const struct tdat_cli_opt *o, int i)
{
	return o->short_name ? o->short_name : TDAT_CLI_LONG + i;
}

int
tdat_getopt(int argc, char *argv[], const struct tdat_cli *cli)
{
	static const struct tdat_cli *built;
	static struct option lo[MAX_OPTS + 3];
	static char so[MAX_OPTS * 3 + 2];
	const struct tdat_cli_opt *o;
	const char *a;
	size_t n = 0, k = 0;
	int c, i;

	cur = cli;
	if (built != cli) {
		so[k++] = ':';
		for (i = 0, o = cli->opt; o && (o->short_name || o->long_name);
		    i++, o++) {
			if (i >= MAX_OPTS)
				tdat_die(2, "too many options in the table");
			if (o->short_name > 0 && o->short_name < 256) {
				so[k++] = (char)o->short_name;
				if (o->has_arg >= 1)
					so[k++] = ':';
				if (o->has_arg == 2)
					so[k++] = ':';
			}
			if (o->long_name) {
				lo[n].name = o->long_name;
				lo[n].has_arg = o->has_arg;
				lo[n].flag = NULL;
				lo[n].val = opt_val(o, i);
				n++;
			}
		}
		so[k] = '\0';
		lo[n++] = (struct option){ "help", no_argument, NULL, OPT_HELP };
		lo[n++] = (struct option){ "version", no_argument, NULL,
		    OPT_VERSION };
		lo[n] = (struct option){ NULL, 0, NULL, 0 };
		built = cli;
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, so, lo, NULL)) ==
	    TDAT_CLI_PROGRESS || c == TDAT_CLI_NO_PROGRESS)
		progress.mode = c == TDAT_CLI_PROGRESS;
	switch (c) {
	case OPT_HELP:
		tdat_help(cli, stdout);
		exit(tdat_close_stdout(0));
	case OPT_VERSION:
		printf("%s (tdat) %s\n", prog, TDAT_VERSION);
		exit(tdat_close_stdout(0));
	case '?':
	case ':':
		a = optind > 0 && optind <= argc ? argv[optind - 1] : "";
		if (optopt > 0 && optopt < 256 && strncmp(a, "--", 2) != 0) {
			if (c == ':')
				tdat_usage_error("option '-%c' needs an argument",
				    optopt);
			tdat_usage_error("unknown option '-%c'", optopt);
		}
		n = strcspn(a, "=");
		if (c == ':')
			tdat_usage_error("option '%.*s' needs an argument",
			    (int)n, a);
		if (optopt != 0 && a[n] == '=')
			tdat_usage_error("option '%.*s' takes no argument",
			    (int)n, a);
		tdat_usage_error("unknown option '%.*s'", (int)n, a);
	}
	return c;
}

long long
tdat_cli_num(const char *opt, const char *s, long long min, long long max)
{
	long long v;
	char *end;
	int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16;
	errno = 0;
	v = strtoll(s, &end, base);
	if (s[0] == '\0' || *end != '\0' || (base == 16 && s[2] == '\0'))
		tdat_usage_error("%s %s: invalid number", opt, s);
	if ((errno == ERANGE && v == LLONG_MIN) || v < min)
		tdat_usage_error("%s %s: too small (least %lld)", opt, s, min);
	if ((errno == ERANGE && v == LLONG_MAX) || v > max)
		tdat_usage_error("%s %s: too large (most %lld)", opt, s, max);
	return v;
}

unsigned char *
tdat_cli_cpus(const char *opt, const char *s, int *n)
{
	unsigned char *map;
	const char *p = s;
	long lo, hi, i;
	char *end;
	int top = 0;

	if ((map = calloc(MAX_CPUS, 1)) == NULL)
		tdat_die(2, "out of memory");
	do {
		if (*p < '0' || *p > '9')
			goto bad;
		lo = hi = strtol(p, &end, 10);
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				goto bad;
			hi = strtol(p, &end, 10);
			p = end;
		}
		if (lo < 0 || hi < lo || hi >= MAX_CPUS)
			goto bad;
		for (i = lo; i <= hi; i++)
			map[i] = 1;
		if (hi + 1 > top)
			top = (int)hi + 1;
	} while (*p++ == ',');
	if (p[-1] != '\0')
		goto bad;
	*n = top;
	return map;
bad:
	free(map);
	tdat_usage_error("%s %s: invalid CPU list (expected e.g. 0,2-3, "
	    "each below %d)", opt, s, MAX_CPUS);
}

static void
stdout_failed(void)
{
	int err = errno;

	if (err == EPIPE)
		return;
	if (err)
		tdat_warn("stdout: write error: %s", strerror(err));
	else
		tdat_warn("stdout: write error");
}

void
tdat_check_stdout(void)
{
	int pipe;

	errno = 0;
	if (fflush(stdout) == EOF || ferror(stdout)) {
		pipe = errno == EPIPE;
		stdout_failed();
		exit(pipe ? 1 : 2);
	}
}

int
tdat_close_stdout(int status)
{
	int bad;

	errno = 0;
	bad = fflush(stdout) == EOF || ferror(stdout);
	if (!bad && fclose(stdout) == EOF)
		bad = 1;
	if (!bad)
		return status;
	if (errno == EPIPE)
		return status;
	stdout_failed();
	return 2;
}

static void
show_progress(void *arg, uint64_t done, uint64_t total)
{
	int pct;

	(void)arg;
	pct = total ? (int)((double)done * 100 / (double)total) : 100;
	if (pct > 100)
		pct = 100;
	if (pct == progress.last)
		return;
	progress.last = pct;
	progress.shown = 1;
	fprintf(stderr, "\r%s: %3d%%", prog, pct);
}

tdat_progress_fn
tdat_cli_progress(uint64_t total)
{
	if (progress.mode == 0 || (progress.mode < 0 &&
	    (total < TDAT_CLI_AUTO_PROGRESS || !isatty(2))))
		return NULL;
	return show_progress;
}

void
tdat_cli_progress_end(void)
{
	if (progress.shown)
		fputc('\n', stderr);
	progress.shown = 0;
	progress.last = -1;
}

const char *
tdat_cli_input(const char *dflt)
{
	struct stat st;

	if (fstat(0, &st) == 0 && (S_ISFIFO(st.st_mode) ||
	    S_ISREG(st.st_mode) || S_ISSOCK(st.st_mode)))
		return "-";
	return dflt;
}

int
tdat_cli_open_all(char *const *paths, size_t n, struct tdat_file ***out)
{
	return tdat_cli_open_all_ex(paths, n, NULL, out);
}

/* Input k failed to open: the error of an input before it whose kallsyms
 * were left loading and are damaged comes first, as when each open read
 * them. */
static int
open_failed(char *const *paths, struct tdat_file **f, size_t k,
    const struct tdat_err *e)
{
	struct tdat_err ke = { 0 };
	size_t i;
	int st;

	for (i = 0; i < k; i++)
		if (tdat_kallsyms_wait(f[i], &ke) < 0)
			break;
	st = i < k ? tdat_report_err(paths[i], &ke) :
	    tdat_report_err(paths[k], e);
	tdat_cli_close_all(f, k);
	return st;
}

int
tdat_cli_open_all_ex(char *const *paths, size_t n,
    const struct tdat_open_opts *oo, struct tdat_file ***out)
{
	struct tdat_file **f;
	struct tdat_err e = { 0 };
	size_t k;

	if ((f = calloc(n ? n : 1, sizeof(*f))) == NULL)
		tdat_die(2, "out of memory");
	for (k = 0; k < n; k++)
		if (tdat_open_ex(paths[k], oo, &f[k], &e) < 0) {
			*out = NULL;
			return open_failed(paths, f, k, &e);
		}
	*out = f;
	return 0;
}

void
tdat_cli_close_all(struct tdat_file **f, size_t n)
{
	while (f != NULL && n > 0)
		tdat_close(f[--n]);
	free(f);
}

/* The file being read, for the SIGBUS message. */
static const char *volatile reading;

static void
put(const char *s)
{
	ssize_t n = write(2, s, strlen(s));

	(void)n;
}

/* Raw pages are mapped (lib/read/pages.c, tdat-cat's copy): a file cut short
 * under a mapped window raises SIGBUS on the next touch, on any thread.
 * Any temporary output goes; one line, exit 2, as for a read error. */
static void
on_sigbus(int sig)
{
	(void)sig;
	tdat_out_remove_live();
	put(tdat_prog());
	put(": ");
	put(reading ? reading : "input");
	put(": file changed while being read\n");
	_exit(2);
}

void
tdat_cli_catch_sigbus(const char *path)
{
	struct sigaction sa;

	reading = path == NULL ? NULL : strcmp(path, "-") == 0 ? "stdin" :
	    path;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}
