#!/usr/bin/env bats
# fuzz.bats: the inputs that once found a bug with a fuzzer
# (t/fuzz/regress/NAME) replayed through their harnesses, built with a
# plain main() (t/fuzz/replay.c) in the normal build: no crash, no
# sanitizer report (make check-asan), no abort of a harness's own check.

bats_require_minimum_version 1.5.0

setup() {
	U=${TDAT_UNIT:-$BATS_TEST_DIRNAME/../build/t}/fuzz
	R=$BATS_TEST_DIRNAME/fuzz/regress
	[ -d "$U" ] || skip "the fuzz harnesses are not built"
	export TDAT_DATA=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
}

# replay HARNESS DIR: every file of DIR through build/t/fuzz/fuzz-HARNESS.
replay() {
	local h=$U/fuzz-$1 f bad=0
	[ -x "$h" ] || { echo "fuzz-$1 is not built"; return 1; }
	for f in "$R/$2"/*; do
		[ -f "$f" ] && [ "${f##*/}" != README ] || continue
		if ! timeout 60 "$h" "$f" >/dev/null 2>"$BATS_TEST_TMPDIR/err"; then
			echo "fuzz-$1 ${f#"$R"/}: status $?"
			head -n 8 "$BATS_TEST_TMPDIR/err"
			bad=1
		elif grep -q 'Sanitizer\|runtime error' "$BATS_TEST_TMPDIR/err"
		then
			echo "fuzz-$1 ${f#"$R"/}:"
			head -n 8 "$BATS_TEST_TMPDIR/err"
			bad=1
		fi
	done
	return $bad
}

@test "fuzz regressions: every harness is built" {
	for c in "$BATS_TEST_DIRNAME"/fuzz/fuzz-*.c; do
		n=${c##*/}
		[ -x "$U/${n%.c}" ] || { echo "${n%.c} is not built"; false; }
	done
}

@test "fuzz regressions: container, records and report (regress/open)" {
	replay open open
	replay records open
	replay report open
}

@test "fuzz regressions: formats, pages and filters" {
	replay format format
	replay page page
	replay filter filter
}

@test "fuzz regressions: the writer and salvage (regress/write, salvage)" {
	replay write write
	replay salvage salvage
}

@test "fuzz regressions: the CTF writer over the writer's inputs (regress/write)" {
	replay ctf write
}

@test "fuzz regressions: selections and LTT directories" {
	replay select select
	replay ltt ltt
}

# Every tool over the inputs that once found a bug outside the harnesses
# (t/fuzz/sweep): no crash or sanitizer report, one line on stderr, and
# every output written passes tdat-verify.
@test "fuzz regressions: the tools over the LTT inputs (t/fuzz/sweep)" {
	run python3 "$BATS_TEST_DIRNAME/fuzz/sweep" -b "${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}" \
	    "$R"/ltt/*
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "1 inputs, 0 problems" ]
}
