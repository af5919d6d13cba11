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

# cpu1_id ID OUT: x86_64-v7-none-instances.dat into OUT with its top
# buffer's CPU 1 (data at 4202496, 110592 bytes) named ID in its BUFFER
# option.
cpu1_id() {
	python3 - "$D/x86_64-v7-none-instances.dat" "$2" "$1" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.find(struct.pack('<IQQ', 1, 4202496, 110592))
assert i > 0
d[i:i + 4] = struct.pack('<I', int(sys.argv[3]))
open(sys.argv[2], 'wb').write(d)
PY
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

# tdat-verify compared every CPU of a buffer with each one before it for
# a CPU named twice: a v6 copy of 65,536 CPUs (salvaged from a fuzz-salvage
# input, t/fuzz/regress/salvage) took 25 s under ASan, and one of 2^20
# CPUs (the most the readers take) minutes.  The ids are sorted now.
@test "tdat-verify: 2^20 CPUs are checked for a CPU named twice by sorting, not pair by pair" {
	local r=$BATS_TEST_DIRNAME/fuzz/regress/salvage/v6-cpus-65536-verify-slow
	local t=$BATS_TEST_TMPDIR
	need tdat-cat
	need tdat-verify
	tail -c +2 "$r" >"$t/in.dat"
	run "$B/tdat-cat" --salvage --file-version 6 -o "$t/cpus.dat" "$t/in.dat"
	[ "$status" -eq 1 ]
	python3 - "$t/cpus.dat" "$t/big.dat" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
q, p = d.find(b'options  \0'), d.find(b'flyrecord\0')
n = int.from_bytes(d[q - 4:q], 'little')
assert n == 65536 and p > q
n2 = 1 << 20
open(sys.argv[2], 'wb').write(d[:q - 4] + n2.to_bytes(4, 'little') +
    d[q:p + 10] + bytes(16 * n2) + d[p + 10 + 16 * n:])
PY
	run timeout 120 "$B/tdat-verify" "$t/big.dat"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"1048576 CPUs, 0 pages"* ]]
	# tdat-cat looked each CPU id up in the table, pair by pair too
	run timeout 120 "$B/tdat-cat" -o "$t/out.dat" "$t/big.dat"
	[ "$status" -eq 0 ]
	run "$B/tdat-verify" "$t/out.dat"
	echo "$output"
	[ "$status" -eq 0 ]
}

# A v7 BUFFER option with a CPU id of 4,000,000,000 (tdat-verify: a
# warning, past CPUCOUNT): tdat-cat walked every id up to it, hours of
# work (a v6 copy: a 64 GB CPU table).  Ids past 2^20 - 1 are refused.
@test "tdat-cat: a CPU id of 4e9 is refused at its table entry, not walked up to" {
	local t=$BATS_TEST_TMPDIR
	need tdat-cat
	cpu1_id 4000000000 "$t/id.dat"
	for v in 6 7; do
		run timeout 60 "$B/tdat-cat" --file-version $v -o "$t/out.dat" \
		    "$t/id.dat"
		echo "$output"
		[ "$status" -eq 1 ]
		[ "$output" = "tdat-cat: $t/id.dat: offset 0x402000: buffer \"\": CPU 4000000000: a CPU id past 1048575 cannot be written" ]
		[ ! -e "$t/out.dat" ]
	done
}

@test "tdat-verify: a CPU named twice in a BUFFER option is found" {
	local t=$BATS_TEST_TMPDIR
	need tdat-verify
	cpu1_id 0 "$t/twice.dat"
	run "$B/tdat-verify" "$t/twice.dat"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"offset 0x402000: error: the top buffer: CPU 0 appears twice"* ]]
}

# A v6 BUFFER option with no name (fuzz-salvage, t/fuzz/regress/salvage):
# the salvage open dropped the buffer before it, the top one, and the
# writer read its freed clock (ASan: heap-use-after-free).
@test "tdat-cat --salvage: a malformed v6 BUFFER option drops itself, not the top buffer" {
	local r=$BATS_TEST_DIRNAME/fuzz/regress/salvage/v6-buffer-option-malformed
	local t=$BATS_TEST_TMPDIR
	need tdat-cat
	need tdat-verify
	tail -c +2 "$r" >"$t/in.dat"
	run "$B/tdat-cat" --salvage --file-version 6 -o "$t/out.dat" "$t/in.dat"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *'offset 0x17c0: dropped: buffer "?": malformed BUFFER option'* ]]
	run "$B/tdat-verify" "$t/out.dat"
	[ "$status" -eq 0 ]
}

# A header_page whose commit field is 6 bytes, in a file of no pages
# (fuzz-write, t/fuzz/regress/write): tdat-cat copied it, into a file
# tdat-verify refuses; it is refused as tdat-dump --records refuses it.
@test "tdat-cat: a header_page of a 6-byte commit field is refused, pages or none" {
	local r=$BATS_TEST_DIRNAME/fuzz/regress/write/header-page-commit-size
	local t=$BATS_TEST_TMPDIR
	need tdat-cat
	tail -c +2 "$r" >"$t/in.dat"
	for v in 6 7; do
		run "$B/tdat-cat" --file-version $v -o "$t/out.dat" "$t/in.dat"
		echo "$output"
		[ "$status" -eq 1 ]
		[ "$output" = "tdat-cat: $t/in.dat: offset 0x1e: header_page: commit size 6 is neither 4 nor 8" ]
		[ ! -e "$t/out.dat" ]
	done
}

# header_8192 OUT: x86_64-v7-none-instances.dat with its file header's
# page size set to 8192 (each BUFFER option still says 4096).
header_8192() {
	python3 - "$D/x86_64-v7-none-instances.dat" "$1" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
assert d[10:14] == b'7\0\0\x08' and d[14:18] == struct.pack('<I', 4096)
d[14:18] = struct.pack('<I', 8192)
open(sys.argv[2], 'wb').write(d)
PY
}

# x86_64-v7-none-instances.dat with a file header that says pages of
# 8192 bytes, while each BUFFER option still says 4096 (what fuzz-write
# found, t/fuzz/regress/write/repack-page-size-header, with 459008).
# tdat-cat rebuilt the pages of a selection at the largest page size it
# saw, so each CPU got pages of 8192 in a buffer of 4096.  (trace-cmd
# 3.1 misreads such a file: it maps pages at the header's size.)
@test "tdat-cat: pages rebuilt for a selection take their buffer's page size" {
	local t=$BATS_TEST_TMPDIR
	need tdat-cat
	need tdat-verify
	header_8192 "$t/in.dat"
	run "$B/tdat-cat" --file-version 7 --compression none -e 'sched*' \
	    -o "$t/out.dat" "$t/in.dat"
	echo "$output"
	[ "$status" -eq 0 ]
	run "$B/tdat-verify" "$t/out.dat"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 106 pages, 8448 records, 0 errors"* ]]
	"$B/tdat-dump" --records -N -t -e 'sched*' "$t/in.dat" >"$t/want"
	"$B/tdat-dump" --records -N -t "$t/out.dat" >"$t/got"
	[ "$(wc -l <"$t/want")" -eq 8449 ]
	cmp "$t/want" "$t/got"
}

# The same file: trace-cmd 3.1 maps the top buffer's pages at the
# header's page size ("bad page offset", a third of the events lost), so
# tdat-verify warns that the two differ; it said nothing before.
@test "tdat-verify warns of a top buffer page size unlike the header's" {
	local t=$BATS_TEST_TMPDIR
	need tdat-verify
	header_8192 "$t/in.dat"
	run "$B/tdat-verify" "$t/in.dat"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$t/in.dat: offset 0x3e9918: warning: the top buffer: page size 4096 is not the header's 8192, at which trace-cmd reads it" ]
	[[ "${lines[1]}" == *": ok with warnings: "*", 19054 records, 0 errors, 1 warning" ]]
	run "$B/tdat-verify" --strict "$t/in.dat"
	[ "$status" -eq 1 ]
	run "$B/tdat-verify" "$D/x86_64-v7-none-instances.dat"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 errors, 0 warnings" ]]
}

# tdat-cat writes the header's page size as the top buffer's: trace-cmd
# reads a copy of that file as tdat reads the file (before, the copy kept
# the header's 8192 and trace-cmd lost a third of its events; a v6 copy
# was refused: "a v6 file holds one page size").
@test "tdat-cat mends a header page size unlike the top buffer's" {
	local t=$BATS_TEST_TMPDIR v
	need tdat-cat
	need tdat-verify
	header_8192 "$t/in.dat"
	"$B/tdat-dump" --records --trace-cmd=3.1 -N -t "$t/in.dat" >"$t/want"
	for v in 6 7; do
		"$B/tdat-cat" --file-version $v -o "$t/v$v.dat" "$t/in.dat"
		run "$B/tdat-verify" "$t/v$v.dat"
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" == *" 185 pages, 19054 records, 0 errors, 0 warnings" ]]
		"$B/tdat-dump" --records --trace-cmd=3.1 -N -t "$t/v$v.dat" | cmp - "$t/want"
	done
	command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
	for v in 6 7; do
		trace-cmd report -N -t "$t/v$v.dat" >"$t/tc" 2>&1
		cmp "$t/tc" "$t/want"
	done
}

# A string from a damaged file in a message (here the v7 compression,
# "z<newline>t<tab>"): every tool printed it raw, over several lines; its
# control bytes are '?' now, the message one line.
@test "a control byte from the file does not break the message's line" {
	local t=$BATS_TEST_TMPDIR tool
	python3 - "$D/x86_64-default-sched.dat" "$t/in.dat" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
assert d[18:23] == b'zstd\0'
d[18:22] = b'z\nt\t'
open(sys.argv[2], 'wb').write(d)
PY
	for tool in "tdat-dump" "tdat-dump --records" "tdat-to-json" "tdat-to-ltt" "tdat-cat -o $t/out.dat"; do
		run --separate-stderr $B/$tool "$t/in.dat"
		echo "$tool: $stderr"
		[ "$status" -eq 1 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == *": $t/in.dat: offset 0x0: unknown compression \"z?t?\"" ]]
	done
	run "$B/tdat-verify" "$t/in.dat"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = "$t/in.dat: offset 0x0: error: unknown compression \"z?t?\"" ]
	[ "${lines[2]}" = "$t/in.dat: damaged: tdat-cat --salvage cannot recover it: unknown compression \"z?t?\"" ]
}
