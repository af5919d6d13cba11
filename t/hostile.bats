#!/usr/bin/env bats
# hostile.bats: damaged copies of the fixtures (t/mkbad) through the
# tools other than tdat-dump (dump.bats has its own): never a crash or a
# hang, one error line in the common shape, and no partial output left.

bats_require_minimum_version 1.5.0

setup() {
	D=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
	B=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	command -v python3 >/dev/null || skip "python3 is not installed"
}

need() {
	[ -x "$B/$1" ] || skip "$1 is not built"
}

# verify NAME [MKBAD-OPTIONS]: tdat-verify finds every damage that makes
# a file unreadable (exit 1), and never crashes.
verify() {
	local name=$1
	shift
	need tdat-verify
	run python3 "$BATS_TEST_DIRNAME/mkbad" -f -n "${TDAT_MKBAD_N:-24}" "$@" \
	    "$D/$name.dat" -- "$B/tdat-verify"
	echo "$output" | tail -n 40
	[ "$status" -eq 0 ]
}

# cat_bad NAME CUTS ARGS: tdat-cat ARGS -o OUT on damaged copies (CUTS:
# how many cuts at boundaries); a failed run leaves neither OUT nor a
# temporary beside it.
cat_bad() {
	local name=$1 cuts=$2 out=$BATS_TEST_TMPDIR/out
	shift 2
	need tdat-cat
	mkdir -p "$out"
	run python3 "$BATS_TEST_DIRNAME/mkbad" -n "${TDAT_MKBAD_N:-16}" -c "$cuts" \
	    "$D/$name.dat" -- "$B/tdat-cat" "$@" -o "$out/copy.dat"
	echo "$output" | tail -n 40
	[ "$status" -eq 0 ]
	run ls -A "$out"
	[ -z "$output" ] || [ "$output" = copy.dat ] ||
	    { echo "left in the output folder: $output"; return 1; }
}

@test "tdat-verify: damaged labsisop-qemu (v6 32-bit)" {
	verify labsisop-qemu-trace
}

@test "tdat-verify: damaged kinmax-listen (v6 32-bit)" {
	verify kinmax-listen-trace.192.168.1.10_53616
}

@test "tdat-verify: damaged s390x-v7-zstd-sched (v7 zstd big-endian)" {
	verify s390x-v7-zstd-sched
}

@test "tdat-verify: damaged hip24-host (v7 zlib)" {
	verify hip24-host-trace -n 8 -c 16
}

@test "tdat-verify: damaged x86_64-v7-none-instances (v7 none)" {
	verify x86_64-v7-none-instances -n 16 -c 24
}

@test "tdat-cat: damaged labsisop-qemu to v7 zstd" {
	cat_bad labsisop-qemu-trace 1000 --file-version 7 --compression zstd
}

@test "tdat-cat: damaged x86_64-default-sched to v6" {
	cat_bad x86_64-default-sched 1000 --file-version 6
}

@test "tdat-cat: damaged hip24-host (zlib) to v7 zstd" {
	TDAT_MKBAD_N=8 cat_bad hip24-host-trace 12 --file-version 7
}

# A function_graph record of depth 825,897,007 (fuzz-report's find): the
# plugin indents 2 * depth columns, at most 4096 here; the text before
# the record that runs past its page is printed, then exit 1.  (trace-cmd
# report ran 10 minutes on it without a line; tdat-dump made a line of
# 1.6 GB.)
@test "tdat-dump --records: a huge function_graph depth indents 4096 columns" {
	local f=$BATS_TEST_DIRNAME/fuzz/regress/open/report-graph-depth-huge.dat
	need tdat-dump
	run bash -c "'$B/tdat-dump' --records '$f' 2>'$BATS_TEST_TMPDIR/err' |
	    head -c 1000000 | awk '{ if (length > m) m = length }
	    END { print NR, m }'; exit \${PIPESTATUS[0]}"
	echo "$output"
	cat "$BATS_TEST_TMPDIR/err"
	[ "$status" -eq 1 ]
	[ "${output% *}" -ge 9 ]
	[ "${output#* }" -ge 4096 ] && [ "${output#* }" -le 4200 ]
	grep -q 'runs past the page commit' "$BATS_TEST_TMPDIR/err"
}
