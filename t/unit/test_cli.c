/*
 * test_cli.c: unit tests of lib/cli/cli.c (message shape, option table,
 * numbers, CPU lists, misuse exit status, stdout check).  TAP output.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tdat-int.h"
#include "tap.h"


/* Run fn in a child with stdout and stderr captured; return its exit
 * status (or 128 + signal) and what it wrote in out/err. */
static int
run(void (*fn)(void *), void *arg, char *out, size_t on, char *err,
    size_t en)
{
	char o[] = "/tmp/tdat-test-cli-XXXXXX", e[] = "/tmp/tdat-test-cli-XXXXXX";
	int fo = mkstemp(o), fe = mkstemp(e), st;
	ssize_t r;
	pid_t pid;

	if (fo < 0 || fe < 0)
		exit(99);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		dup2(fo, 1);
		dup2(fe, 2);
		fn(arg);
		exit(tdat_close_stdout(0));
	}
	waitpid(pid, &st, 0);
	r = pread(fo, out, on - 1, 0);
	out[r > 0 ? r : 0] = '\0';
	r = pread(fe, err, en - 1, 0);
	err[r > 0 ? r : 0] = '\0';
	close(fo);
	close(fe);
	unlink(o);
	unlink(e);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

enum { OPT_HEAD_PAGE = 256 };
static const struct tdat_cli_opt opts[] = {
	{ 't', "ts", 0, NULL, "print raw timestamps" },
	{ OPT_HEAD_PAGE, "head-page", 0, NULL, "print header_page" },
	{ 0, "cpu", 1, "LIST", "only these CPUs" },
	{ 'N', NULL, 0, NULL, "no plugins" },
	{ 0 }
};
static const struct tdat_cli cli = { "[options] [FILE]\n--records [FILE]",
	"print a trace.dat file", opts };

struct args {
	int argc;
	char *argv[8];
};

static void
parse(void *p)
{
	struct args *a = p;
	int c;

	optind = 1;
	while ((c = tdat_getopt(a->argc, a->argv, &cli)) != -1)
		printf("%d:%s\n", c, optarg ? optarg : "");
	printf("rest %d\n", a->argc - optind);
}

static void
report(void *p)
{
	struct tdat_err e;

	tdat_fail(&e, TDAT_ECORRUPT, 0x1f40, "section size exceeds file");
	exit(tdat_report_err(p, &e));
}

static void
report_io(void *p)
{
	struct tdat_err e;

	tdat_fail_nooff(&e, TDAT_EIO, "cannot open: No such file or directory");
	exit(tdat_report_err(p, &e));
}

static void
num(void *p)
{
	printf("%lld\n", tdat_cli_num("--n", p, 0, 100));
}

static void
cpus(void *p)
{
	int n;

	free(tdat_cli_cpus("--cpu", p, &n));
	printf("%d\n", n);
}

static void
full(void *p)
{
	int fd = open("/dev/full", O_WRONLY);

	if (fd < 0)
		exit(77);
	dup2(fd, 1);
	printf("hello\n");
	exit(tdat_close_stdout(0));
}

int
main(void)
{
	char out[4096], err[4096];
	struct args a;
	unsigned char *m;
	int st, n;

	tdat_formats_all();
	tdat_cli_init("/some/dir/tdat-test");
	ok(strcmp(tdat_prog(), "tdat-test") == 0, "program name is the basename");

	st = run(report, "x.dat", out, sizeof(out), err, sizeof(err));
	ok(st == 1, "corrupt data gives exit status 1 (got %d)", st);
	ok(strcmp(err, "tdat-test: x.dat: offset 0x1f40: "
	    "section size exceeds file\n") == 0, "message shape with offset");
	st = run(report_io, "-", out, sizeof(out), err, sizeof(err));
	ok(st == 2, "I/O error gives exit status 2 (got %d)", st);
	ok(strcmp(err, "tdat-test: stdin: cannot open: "
	    "No such file or directory\n") == 0, "message shape for stdin");

	a = (struct args){ 6, { "p", "-t", "--cpu", "0-3", "--head-page",
	    "f.dat", NULL } };
	st = run(parse, &a, out, sizeof(out), err, sizeof(err));
	ok(st == 0, "good options exit 0");
	snprintf(err, sizeof(err), "116:\n%d:0-3\n256:\nrest 1\n",
	    TDAT_CLI_LONG + 2);
	ok(strcmp(out, err) == 0, "short, long-only and valued options parse");

	a = (struct args){ 2, { "p", "--bogus", NULL } };
	st = run(parse, &a, out, sizeof(out), err, sizeof(err));
	ok(st == 2, "unknown long option exits 2 (got %d)", st);
	ok(strncmp(err, "tdat-test: unknown option '--bogus'\nusage: "
	    "tdat-test [options] [FILE]\n", 63) == 0,
	    "unknown option message and usage line");
	a = (struct args){ 2, { "p", "-x", NULL } };
	st = run(parse, &a, out, sizeof(out), err, sizeof(err));
	ok(st == 2 && strstr(err, "unknown option '-x'"), "unknown short option");
	a = (struct args){ 2, { "p", "--cpu", NULL } };
	st = run(parse, &a, out, sizeof(out), err, sizeof(err));
	ok(st == 2 && strstr(err, "option '--cpu' needs an argument"),
	    "missing argument exits 2");
	a = (struct args){ 2, { "p", "--ts=3", NULL } };
	st = run(parse, &a, out, sizeof(out), err, sizeof(err));
	ok(st == 2 && strstr(err, "option '--ts' takes no argument"),
	    "argument to a flag exits 2");

	a = (struct args){ 2, { "p", "--help", NULL } };
	st = run(parse, &a, out, sizeof(out), err, sizeof(err));
	ok(st == 0 && err[0] == '\0', "--help exits 0, quiet on stderr");
	ok(strncmp(out, "usage: tdat-test [options] [FILE]\n"
	    "       tdat-test --records [FILE]\n", 67) == 0,
	    "--help starts with the usage lines");
	ok(strstr(out, "  -t, --ts              print raw timestamps\n") &&
	    strstr(out, "      --cpu=LIST        only these CPUs\n") &&
	    strstr(out, "      --head-page       print header_page\n") &&
	    strstr(out, "  -N                    no plugins\n") &&
	    strstr(out, "      --version"), "--help lists every option");
	a = (struct args){ 2, { "p", "--version", NULL } };
	st = run(parse, &a, out, sizeof(out), err, sizeof(err));
	ok(st == 0 && strcmp(out, "tdat-test (tdat) " TDAT_VERSION "\n") == 0,
	    "--version");

	st = run(num, "42", out, sizeof(out), err, sizeof(err));
	ok(st == 0 && strcmp(out, "42\n") == 0, "number in range");
	st = run(num, "0x10", out, sizeof(out), err, sizeof(err));
	ok(st == 0 && strcmp(out, "16\n") == 0, "hex number");
	st = run(num, "101", out, sizeof(out), err, sizeof(err));
	ok(st == 2 && strstr(err, "--n 101: too large"), "number too large");
	st = run(num, "-1", out, sizeof(out), err, sizeof(err));
	ok(st == 2 && strstr(err, "--n -1: too small"), "number too small");
	st = run(num, "4x", out, sizeof(out), err, sizeof(err));
	ok(st == 2 && strstr(err, "--n 4x: invalid number"), "not a number");

	m = tdat_cli_cpus("--cpu", "0,2-3,7", &n);
	ok(n == 8 && m[0] && !m[1] && m[2] && m[3] && !m[4] && m[7],
	    "CPU list 0,2-3,7");
	free(m);
	{
		static const char *bad[] = { "", "1-x", "3-1", "1,,2", ",1", "1,",
		    "8192", "-1", "a", "0-8192" };
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			st = run(cpus, (void *)bad[i], out, sizeof(out), err,
			    sizeof(err));
			ok(st == 2 && strstr(err, "invalid CPU list"),
			    "bad CPU list '%s' exits 2", bad[i]);
		}
	}
	st = run(cpus, "5", out, sizeof(out), err, sizeof(err));
	ok(st == 0 && strcmp(out, "6\n") == 0, "CPU list 5 gives 6 entries");
	st = run(num, "", out, sizeof(out), err, sizeof(err));
	ok(st == 2, "empty number");

	st = run(full, NULL, out, sizeof(out), err, sizeof(err));
	if (st == 77)
		printf("ok %d - # SKIP no /dev/full\n", ++ntest);
	else {
		ok(st == 2 && strstr(err, "tdat-test: stdout: write error"),
		    "write error on stdout gives 2 and a message (got %d)", st);
		if (st != 2 || !strstr(err, "tdat-test: stdout: write error"))
			printf("# stderr: %s\n", err);
	}

	printf("1..%d\n", ntest);
	return nfail != 0;
}
