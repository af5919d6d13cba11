#!/usr/bin/env bats
# cli.bats: the conventions every tool in $TDAT_BIN shares (lib/cli/cli.c):
# --help, --version, misuse, the message shape, exit statuses, and that
# each tool has a man page that lists its options and renders cleanly.

bats_require_minimum_version 1.5.0

setup() {
	B=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	TOP=$BATS_TEST_DIRNAME/..
	D=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
	TOOLS=()
	for t in "$B"/tdat-*; do
		[ -x "$t" ] && TOOLS+=("$t")
	done
	[ "${#TOOLS[@]}" -gt 0 ] || { echo "no tools in $B"; return 1; }
}

# args TOOL FILE: the arguments that make TOOL read FILE, with any output
# going to the test's own folder.
args() {
	case ${1##*/} in
	tdat-cat | tdat-to-json) echo "-o $BATS_TEST_TMPDIR/out.x $2" ;;
	tdat-to-ltt) echo "$2 $BATS_TEST_TMPDIR/out.ltt" ;;
	tdat-to-table) echo "$2 $BATS_TEST_TMPDIR/out.tables" ;;
	tdat-to-ctf) echo "$2 $BATS_TEST_TMPDIR/out.ctf" ;;
	*) echo "$2" ;;
	esac
}

@test "every tool: --help starts with 'usage: TOOL', exits 0, lists --version" {
	for t in "${TOOLS[@]}"; do
		n=${t##*/}
		run --separate-stderr "$t" --help
		[ "$status" -eq 0 ] || { echo "$n --help: exit $status"; return 1; }
		[ -z "$stderr" ] || { echo "$n --help wrote to stderr"; return 1; }
		[[ ${lines[0]} == "usage: $n "* ]] || { echo "$n: ${lines[0]}"; return 1; }
		[[ $output == *--version* ]] || { echo "$n --help lacks --version"; return 1; }
	done
}

@test "every tool: --version prints 'TOOL (tdat) VERSION' and exits 0" {
	for t in "${TOOLS[@]}"; do
		n=${t##*/}
		run --separate-stderr "$t" --version
		[ "$status" -eq 0 ] || { echo "$n --version: exit $status"; return 1; }
		[[ $output =~ ^$n\ \(tdat\)\ [0-9]+\.[0-9]+ ]] || { echo "$n: $output"; return 1; }
	done
}

@test "every tool: an unknown option exits 2 with a message and a usage line" {
	for t in "${TOOLS[@]}"; do
		n=${t##*/}
		run --separate-stderr "$t" --no-such-option
		[ "$status" -eq 2 ] || { echo "$n: exit $status"; return 1; }
		[[ ${stderr_lines[0]} == "$n: unknown option '--no-such-option'" ]] ||
		    { echo "$n: ${stderr_lines[0]}"; return 1; }
		[[ ${stderr_lines[1]} == "usage: $n "* ]] || { echo "$n: ${stderr_lines[1]}"; return 1; }
		[ -z "$output" ] || { echo "$n wrote to stdout"; return 1; }
	done
}

@test "every tool: a missing input exits 2 with one 'TOOL: FILE: ...' line" {
	for t in "${TOOLS[@]}"; do
		n=${t##*/}
		f=$BATS_TEST_TMPDIR/missing.dat
		# shellcheck disable=SC2046 # the paths have no spaces
		run --separate-stderr "$t" $(args "$t" "$f")
		[ "$status" -eq 2 ] || { echo "$n: exit $status: $stderr"; return 1; }
		[ "${#stderr_lines[@]}" -eq 1 ] || { echo "$n: $stderr"; return 1; }
		[[ $stderr == "$n: $f: "* ]] || { echo "$n: $stderr"; return 1; }
		[[ $stderr != *. ]] || { echo "$n: message ends with a full stop"; return 1; }
	done
}

@test "every tool: a file that is not a trace exits 1 with one line" {
	printf 'not a trace\n' >"$BATS_TEST_TMPDIR/text.dat"
	for t in "${TOOLS[@]}"; do
		n=${t##*/}
		# shellcheck disable=SC2046 # the paths have no spaces
		run --separate-stderr "$t" $(args "$t" "$BATS_TEST_TMPDIR/text.dat")
		[ "$status" -eq 1 ] || { echo "$n: exit $status: $stderr"; return 1; }
		if [ -z "$stderr" ]; then
			# a checker prints its findings as output
			[[ $output == *"$BATS_TEST_TMPDIR/text.dat"* ]] ||
			    { echo "$n: exit 1 but no finding names the file"; return 1; }
			continue
		fi
		[ "${#stderr_lines[@]}" -eq 1 ] || { echo "$n: $stderr"; return 1; }
		[[ $stderr == "$n: $BATS_TEST_TMPDIR/text.dat: "* ]] || { echo "$n: $stderr"; return 1; }
	done
}

@test "every tool has a man page that lists each of its long options" {
	bad=0
	for t in "${TOOLS[@]}"; do
		n=${t##*/}
		m=$TOP/doc/$n.1
		[ -f "$m" ] || { echo "no doc/$n.1"; bad=1; continue; }
		for o in $("$t" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
			grep -q -- "${o//-/\\\\-}" "$m" || grep -q -- "$o" "$m" ||
			    { echo "doc/$n.1 does not mention $o"; bad=1; }
		done
	done
	[ "$bad" -eq 0 ]
}

@test "every tool is in README.md with each of its long options" {
	for t in "${TOOLS[@]}"; do
		n=${t##*/}
		grep -q "\*\*$n\*\*" "$TOP/README.md" || { echo "README lacks $n"; return 1; }
		for o in $("$t" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
			case $o in --help | --version) continue ;; esac
			grep -q -- "\`$o" "$TOP/README.md" ||
			    { echo "README.md does not mention $o of $n"; return 1; }
		done
	done
}

@test "man pages render without warnings" {
	command -v groff >/dev/null || skip "groff is not installed"
	for m in "$TOP"/doc/*.[1-9]; do
		run groff -t -man -ww -z "$m"
		[ "$status" -eq 0 ] && [ -z "$output" ] || { echo "$m: $output"; return 1; }
	done
}

@test "t/run-tests counts TAP and ends with 'N passed, N failed'" {
	u=$BATS_TEST_TMPDIR/unit
	mkdir -p "$u"
	printf '#!/bin/sh\necho "ok 1 - a"\necho "not ok 2 - b"\necho "ok 3 - c # SKIP no"\necho 1..3\nexit 1\n' >"$u/t1"
	printf '#!/bin/sh\necho boom >&2\nexit 3\n' >"$u/t2"
	printf '#!/bin/sh\necho "ok 1 - x"\necho 1..2\n' >"$u/t3"
	chmod +x "$u"/t*
	run env TDAT_UNIT="$u" TESTS='t[0-9]' sh "$TOP/t/run-tests"
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "2 passed, 3 failed, 1 skipped" ] || { echo "$output"; return 1; }
	[[ $output == *"unit/t1: b"* ]]
	[[ $output == *"unit/t2: exit status 3"* ]]
	[[ $output == *"unit/t3: planned 2 tests, ran 1"* ]]
}

@test "README's quick start and .ci/run install the same packages and run make check (and check-asan)" {
	readme=$(grep -m1 '^apt-get update && ' "$TOP/README.md" |
	    sed 's/.*apt-get install -y //; s/ &&.*//' | tr ' ' '\n' | sort)
	ci=$(sed -n '/^pkgs=(/,/)/p' "$TOP/.ci/run" | tr -d '()' |
	    sed 's/pkgs=//' | tr -s ' \t' '\n\n' | grep . | sort)
	[ -n "$readme" ] && [ "$readme" = "$ci" ] ||
	    { echo "README: $readme"; echo ".ci/run: $ci"; return 1; }
	grep -q '^make check$' "$TOP/README.md"
	grep -q '^run check$' "$TOP/.ci/run"
	grep -q '^[[:space:]]*run check-asan$' "$TOP/.ci/run"
	# check-asan by default: CI_ASAN=0 leaves it out
	grep -q '"${CI_ASAN:-1}" != 0' "$TOP/.ci/run"
	grep -q 'make "$1" </dev/null' "$TOP/.ci/run"
}
