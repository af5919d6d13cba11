/*
 * test_dl.c: lib/common/dl.c, the libraries loaded when first needed: a
 * missing library or symbol is one TDAT_EIO message naming what needs
 * it, tdat_dl_need() turns that into one line and exit 2, and a present
 * one fills its table once.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "tdat-int.h"
#include "tdat-dl.h"
#include "tap.h"

static int fills;
static void *got;

static void
fill(void *const *addr)
{
	fills++;
	got = addr[0];
}

static const char *const zlib_names[] = { "zlibVersion" };
static const char *const bad_names[] = { "zlibVersion", "tdat_no_such" };

static void
test_missing(void)
{
	struct tdat_dl l = { "libtdat-no-such.so.9", "TEST directories",
	    zlib_names, 1, fill, 0 };
	struct tdat_err e;

	memset(&e, 0, sizeof(e));
	ok(tdat_dl_load(&l, &e) == TDAT_EIO && !tdat_dl_ready(&l),
	    "a missing library is TDAT_EIO (%d)", e.code);
	ok(strstr(e.msg, "TEST directories need libtdat-no-such.so.9: ") ==
	    e.msg && strchr(e.msg, '\n') == NULL, "it says who needs what: %s",
	    e.msg);
	ok(fills == 0, "no table filled");
}

static void
test_symbol(void)
{
	struct tdat_dl l = { "libz.so.1", "TEST directories", bad_names, 2,
	    fill, 0 };
	struct tdat_err e;

	memset(&e, 0, sizeof(e));
	ok(tdat_dl_load(&l, &e) == TDAT_EIO && !tdat_dl_ready(&l),
	    "a missing symbol is TDAT_EIO");
	ok(strstr(e.msg, "tdat_no_such") != NULL, "it names it: %s", e.msg);
	ok(fills == 0, "no table filled");
}

static void
test_present(void)
{
	struct tdat_dl l = { "libz.so.1", "TEST directories", zlib_names, 1,
	    fill, 0 };
	struct tdat_err e;

	ok(tdat_dl_load(&l, &e) == 0 && tdat_dl_ready(&l) && fills == 1,
	    "a present library loads and fills its table");
	ok(got == (void *)zlibVersion, "with the library's own address");
	ok(tdat_dl_load(&l, &e) == 0 && fills == 1, "once");
	tdat_dl_need(&l);
	ok(fills == 1, "tdat_dl_need() of a loaded one returns");
}

static void
test_need(void)
{
	struct tdat_dl l = { "libtdat-no-such.so.9", "TEST directories",
	    zlib_names, 1, fill, 0 };
	char buf[512];
	int fd[2], st = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(fd) != 0 || (pid = fork()) < 0) {
		ok(0, "pipe and fork");
		return;
	}
	if (pid == 0) {
		dup2(fd[1], 2);
		tdat_dl_need(&l);
		_exit(0);
	}
	close(fd[1]);
	n = read(fd[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd[0]);
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 2,
	    "tdat_dl_need() of a missing library exits 2");
	ok(n > 0 && strchr(buf, '\n') == buf + n - 1 &&
	    strstr(buf, ": TEST directories need libtdat-no-such.so.9: "),
	    "with one line: %s", buf);
}

int
main(void)
{
	test_missing();
	test_symbol();
	test_present();
	test_need();
	return tap_done();
}
