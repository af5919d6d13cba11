#!/usr/bin/env bats
# probe.bats: string fields as trace-cmd 3.1.6 prints them where the data
# does not end them: a kprobe's empty ustring in raw mode (report -R
# prints the bytes from its offset to the next NUL), an offset outside the
# record, a string without its NUL (t/data/probe).
# Run by t/run-tests (make check); TDAT_BIN names the tools' folder.

bats_require_minimum_version 1.5.0

setup() {
	P=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}/probe
	DUMP=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}/tdat-dump
	T=$BATS_TEST_TMPDIR
	if [ ! -x "$DUMP" ]; then
		echo "# $DUMP is not built" >&3
		return 1
	fi
}

load helpers

# records NAME KIND ARGS...: tdat-dump --records against trace-cmd's KIND.
records() {
	local n=$1 k=$2
	shift 2
	# shellcheck disable=SC2046 # no option for 3.4
	run --separate-stderr "$DUMP" --records $(tc_of "$k") "$@" "$P/$n.dat"
	[ "$status" -eq 0 ] && [ -z "$stderr" ] ||
	    { echo "exit $status: $stderr"; return 1; }
	printf '%s\n' "$output" >"$T/a"
	same "$P/$n.$k.txt" "$T/a"
}

@test "report -R: an empty ustring prints the bytes after it up to a NUL" {
	records kprobe-ustring report-R -R -t
	# The next record's header, the record's own id, past "abcd".
	grep -q 'filename=hi$' "$T/a"
	grep -q 'filename=OK$' "$T/a"
	grep -q 'filename=abcdfi$' "$T/a"
	[ "$(grep -c 'filename=$' "$T/a")" -eq 2 ]
}

@test "report -N and report: an empty string prints nothing, one without its NUL runs on" {
	records kprobe-ustring report-N -N -t
	records kprobe-ustring report -t
	grep -q 'filename="abcdfi"$' "$T/a"
	[ "$(grep -c 'filename=""$' "$T/a")" -eq 4 ]
}

@test "tdat-dump --all of the probe file equals trace-cmd dump --all" {
	zstd -dcq "$P/kprobe-ustring.dump-all.txt.zst" >"$T/x"
	(cd "$P" && "$DUMP" --all kprobe-ustring.dat) >"$T/a"
	same "$T/x" "$T/a"
}
