#!/usr/bin/env bats
# cat.bats: tdat-cat converts every fixture in t/data to v6 and to v7
# uncompressed, zlib and zstd.  The metadata of each output (tdat-dump)
# must equal the input's; its events, as tdat-dump --records -N -t reads
# them, must equal trace-cmd's expected report -N -t of the input; and
# trace-cmd 3.1.6 must report it exactly as it reports the input.
# Debian's trace-cmd cannot read zlib, so zlib inputs are compared with
# the expected report in t/data/expected and zlib outputs are converted
# back to zstd for it.  Then the command line, event selection, merging.
# Run by t/run-tests (make check); TDAT_BIN names the tools' folder.

bats_require_minimum_version 1.5.0

setup() {
	D=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
	B=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	CAT=$B/tdat-cat
	DUMP=$B/tdat-dump
	T=$BATS_TEST_TMPDIR
	if [ ! -x "$CAT" ]; then
		echo "# $CAT is not built" >&3
		return 1
	fi
}

need_trace_cmd() {
	command -v trace-cmd >/dev/null 2>&1 || skip "trace-cmd is not installed"
}

# expected NAME KIND: trace-cmd's output for t/data/NAME.dat.
expected() {
	local f=$D/expected/$1.$2.txt
	if [ -f "$f" ]; then
		cat "$f"
	else
		zstd -dcq "$f.zst"
	fi
}

load helpers

# tc FILE: trace-cmd report -N -t FILE.  trace-cmd 3.1.6 now and then
# prints raw timestamps ("[000]1464179963720:") for a file that has no
# TRACECLOCK option (about 1 run in 30 on hebel23-driver-trace): such a
# run is repeated, up to 5 times.
tc() {
	local i
	for i in 1 2 3 4 5; do
		trace-cmd report -N -t "$1" 2>/dev/null >"$T/tc.out"
		grep -q -E '^[^:]*\] *[0-9]+: ' "$T/tc.out" || break
	done
	cat "$T/tc.out"
}

# report_input NAME: what trace-cmd report -N -t prints for the fixture,
# as t/data/expected holds it.
report_input() {
	expected "$1" report-N
}

# metadata FILE: what must survive any conversion, as tdat-dump shows it
# (section headers name offsets and sizes, which may change).
metadata() {
	local p
	[ -x "$DUMP" ] || return 0
	for p in head-page head-event ftrace-events systems events kallsyms \
	    printk cmd-lines; do
		"$DUMP" --$p "$1" | grep -v '^[[:space:]]*\[Section'
	done
}

# records FILE: tdat-dump --records -N -t, if this build has it.
records() {
	"$DUMP" --records --trace-cmd=3.1 -N -t "$1" 2>/dev/null
}

# convert NAME VARIANT: tdat-cat NAME into VARIANT; tdat's own reading of
# the output must equal trace-cmd's expected report of the input, and so
# must trace-cmd's report of it (zlib: of a zstd copy of it).
convert() {
	local name=$1 v=$2 args out=$T/$1.$2.dat check
	case $v in
	6) args="--file-version 6" ;;
	7-none) args="--compression none" ;;
	7-zlib) args="--compression zlib" ;;
	7-zstd) args="--compression zstd" ;;
	esac
	run --separate-stderr "$CAT" $args -o "$out" "$D/$name.dat"
	[ "$status" -eq 0 ] || { echo "exit $status: $stderr"; return 1; }
	[ -z "$stderr" ] || { echo "stderr: $stderr"; return 1; }
	metadata "$D/$name.dat" >"$T/meta.in"
	metadata "$out" >"$T/meta.out"
	same "$T/meta.in" "$T/meta.out"
	if [ -x "$DUMP" ] && records "$D/$name.dat" >/dev/null; then
		expected "$name" report-N >"$T/expected"
		records "$out" >"$T/records"
		same "$T/expected" "$T/records"
	fi
	need_trace_cmd
	report_input "$name" >"$T/expected"
	check=$out
	if [ "$v" = 7-zlib ]; then
		check=$T/back.dat
		"$CAT" --compression zstd -o "$check" "$out"
	fi
	tc "$check" >"$T/actual"
	same "$T/expected" "$T/actual"
}

# ---- conversions of every fixture

@test "hebel23-driver-trace to v6 reports the same" {
	convert hebel23-driver-trace 6
}

@test "hebel23-driver-trace to v7-none reports the same" {
	convert hebel23-driver-trace 7-none
}

@test "hebel23-driver-trace to v7-zlib reports the same" {
	convert hebel23-driver-trace 7-zlib
}

@test "hebel23-driver-trace to v7-zstd reports the same" {
	convert hebel23-driver-trace 7-zstd
}

@test "hip24-host-trace to v6 reports the same" {
	convert hip24-host-trace 6
}

@test "hip24-host-trace to v7-none reports the same" {
	convert hip24-host-trace 7-none
}

@test "hip24-host-trace to v7-zlib reports the same" {
	convert hip24-host-trace 7-zlib
}

@test "hip24-host-trace to v7-zstd reports the same" {
	convert hip24-host-trace 7-zstd
}

@test "kinmax-listen-trace.192.168.1.10_53616 to v6 reports the same" {
	convert kinmax-listen-trace.192.168.1.10_53616 6
}

@test "kinmax-listen-trace.192.168.1.10_53616 to v7-none reports the same" {
	convert kinmax-listen-trace.192.168.1.10_53616 7-none
}

@test "kinmax-listen-trace.192.168.1.10_53616 to v7-zlib reports the same" {
	convert kinmax-listen-trace.192.168.1.10_53616 7-zlib
}

@test "kinmax-listen-trace.192.168.1.10_53616 to v7-zstd reports the same" {
	convert kinmax-listen-trace.192.168.1.10_53616 7-zstd
}

@test "labsisop-qemu-trace to v6 reports the same" {
	convert labsisop-qemu-trace 6
}

@test "labsisop-qemu-trace to v7-none reports the same" {
	convert labsisop-qemu-trace 7-none
}

@test "labsisop-qemu-trace to v7-zlib reports the same" {
	convert labsisop-qemu-trace 7-zlib
}

@test "labsisop-qemu-trace to v7-zstd reports the same" {
	convert labsisop-qemu-trace 7-zstd
}

@test "nish97-trace to v6 reports the same" {
	convert nish97-trace 6
}

@test "nish97-trace to v7-none reports the same" {
	convert nish97-trace 7-none
}

@test "nish97-trace to v7-zlib reports the same" {
	convert nish97-trace 7-zlib
}

@test "nish97-trace to v7-zstd reports the same" {
	convert nish97-trace 7-zstd
}

@test "s390x-v7-zstd-sched to v6 reports the same" {
	convert s390x-v7-zstd-sched 6
}

@test "s390x-v7-zstd-sched to v7-none reports the same" {
	convert s390x-v7-zstd-sched 7-none
}

@test "s390x-v7-zstd-sched to v7-zlib reports the same" {
	convert s390x-v7-zstd-sched 7-zlib
}

@test "s390x-v7-zstd-sched to v7-zstd reports the same" {
	convert s390x-v7-zstd-sched 7-zstd
}

@test "x86_64-default-sched to v6 reports the same" {
	convert x86_64-default-sched 6
}

@test "x86_64-default-sched to v7-none reports the same" {
	convert x86_64-default-sched 7-none
}

@test "x86_64-default-sched to v7-zlib reports the same" {
	convert x86_64-default-sched 7-zlib
}

@test "x86_64-default-sched to v7-zstd reports the same" {
	convert x86_64-default-sched 7-zstd
}

@test "x86_64-v7-none-instances to v6 reports the same" {
	convert x86_64-v7-none-instances 6
}

@test "x86_64-v7-none-instances to v7-none reports the same" {
	convert x86_64-v7-none-instances 7-none
}

@test "x86_64-v7-none-instances to v7-zlib reports the same" {
	convert x86_64-v7-none-instances 7-zlib
}

@test "x86_64-v7-none-instances to v7-zstd reports the same" {
	convert x86_64-v7-none-instances 7-zstd
}

# ---- zstd's level, chosen by measure

# t/data/zstd/function-cpu0.dat is what trace-cmd convert --compression
# zstd made of 1148 pages of a function trace: tdat-cat makes the same
# pages (back from a v6 copy) smaller, with the same events.
@test "zstd: a function trace comes out smaller than trace-cmd convert makes it" {
	local f=$D/zstd/function-cpu0.dat tc td
	"$CAT" --file-version 6 -o "$T/v6.dat" "$f"
	"$CAT" --file-version 7 --compression zstd -o "$T/out.dat" "$T/v6.dat"
	tc=$(wc -c <"$f")
	td=$(wc -c <"$T/out.dat")
	echo "trace-cmd convert: $tc bytes, tdat-cat: $td bytes"
	[ $((td * 100)) -le $((tc * 95)) ]
	run "$B/tdat-verify" -q "$T/out.dat"
	[ "$status" -eq 0 ]
	[ "$("$DUMP" --records --trace-cmd=3.1 -N -t "$T/out.dat" | sha256sum | cut -d' ' -f1)" = \
	    "$(cat "$D/zstd/function-cpu0.report-N.sha256")" ]
}

@test "zstd: trace-cmd reads that smaller function trace with the same events" {
	need_trace_cmd
	local f=$D/zstd/function-cpu0.dat
	"$CAT" --file-version 6 -o "$T/v6.dat" "$f"
	"$CAT" --file-version 7 --compression zstd -o "$T/out.dat" "$T/v6.dat"
	[ "$(trace-cmd report -N -t "$T/out.dat" 2>/dev/null | sha256sum |
	    cut -d' ' -f1)" = "$(cat "$D/zstd/function-cpu0.report-N.sha256")" ]
}

# trace-cmd makes chunks of 10 pages; tdat-cat makes them of 40, which
# trace-cmd's reader takes as well (each chunk names its size): 1148
# pages are 28 chunks and one of 28 pages.  Debian's trace-cmd reads no
# zlib: tdat-dump reads that copy.
@test "v7 chunks of 40 pages, zstd and zlib: the events are the same" {
	local f=$D/zstd/function-cpu0.dat c want
	want=$(cat "$D/zstd/function-cpu0.report-N.sha256")
	"$DUMP" --flyrecord "$f" | grep -q ': .* 115 chunks, .* 1148 pages$'
	for c in zstd zlib; do
		"$CAT" --file-version 7 --compression $c -o "$T/$c.dat" "$f"
		"$DUMP" --flyrecord "$T/$c.dat" |
		    grep -q ': .* 29 chunks, .* 1148 pages$'
		[ "$("$DUMP" --records --trace-cmd=3.1 -N -t "$T/$c.dat" | sha256sum |
		    cut -d' ' -f1)" = "$want" ]
	done
}

@test "v7 chunks of 40 pages: trace-cmd reads them" {
	need_trace_cmd
	local f=$D/zstd/function-cpu0.dat want
	want=$(cat "$D/zstd/function-cpu0.report-N.sha256")
	"$CAT" --file-version 7 --compression zstd -o "$T/zstd.dat" "$f"
	[ "$(trace-cmd report -N -t "$T/zstd.dat" 2>/dev/null | sha256sum |
	    cut -d' ' -f1)" = "$want" ]
}

# A reader holds about a chunk of each CPU: the chunks of all the CPUs
# with data come to 640 pages at most (tracedat-write.c, chunk_pages()),
# and each to 10 (trace-cmd's) at least.  t/mkcpus makes v6 files of 16,
# 40 and 64 CPUs of 20 pages each from function-cpu0.dat's pages.
@test "v7 chunks: fewer pages in a chunk when many CPUs have data" {
	local n want
	"$CAT" --file-version 6 -o "$T/v6.dat" "$D/zstd/function-cpu0.dat"
	for n in 16:1 64:2 40:2; do
		"$BATS_TEST_DIRNAME/mkcpus" "$T/v6.dat" "$T/m.dat" ${n%:*} 20
		"$CAT" --file-version 7 --compression zstd -o "$T/o.dat" \
		    "$T/m.dat"
		[ "$("$DUMP" --flyrecord "$T/o.dat" |
		    grep -c ": .* ${n#*:} chunks, .* 20 pages$")" -eq ${n%:*} ]
		want=$("$DUMP" --records -t "$T/m.dat" | sha256sum)
		[ "$("$DUMP" --records -t "$T/o.dat" | sha256sum)" = "$want" ]
	done
	# A merge counts the CPUs of every input, not the first's alone: 4
	# CPUs and 40 are 44, chunks of 14 pages: CPUs 0-3 (40 or 41 pages
	# repacked) in 3 chunks (2 counting the first input's 4 CPUs).
	"$BATS_TEST_DIRNAME/mkcpus" "$T/v6.dat" "$T/m4.dat" 4 20
	"$CAT" -o "$T/o.dat" "$T/m4.dat" "$T/m.dat"
	[ "$("$DUMP" --flyrecord "$T/o.dat" |
	    grep -c ': .* 3 chunks, .* 4[01] pages$')" -eq 4 ]
}

@test "zstd: scheduler events come out no larger than trace-cmd convert makes them" {
	need_trace_cmd
	local n tc td
	for n in x86_64-v7-none-instances hebel23-driver-trace; do
		trace-cmd convert --file-version 7 --compression zstd \
		    -i "$D/$n.dat" -o "$T/tc.dat" >/dev/null 2>&1
		"$CAT" --file-version 7 --compression zstd -o "$T/td.dat" \
		    "$D/$n.dat"
		tc=$(wc -c <"$T/tc.dat")
		td=$(wc -c <"$T/td.dat")
		echo "$n: trace-cmd convert $tc bytes, tdat-cat $td bytes"
		[ "$td" -le "$tc" ]
		rm -f "$T/tc.dat" "$T/td.dat"
	done
}

# ---- compressed metadata copied as it is

# sec FILE NAME: the compressed bytes of section NAME (its payload after
# the two sizes), as tdat-dump --sections places them.
sec() {
	set -- "$1" $("$DUMP" --sections "$1" | sed -n \
	    "s/.*Section *[0-9]* @ \([0-9]*\) .*\"$2\", .*, \([0-9]*\) compressed.*/\1 \2/p")
	[ -n "$3" ] || return 1
	tail -c +$(($2 + 16 + 8 + 1)) "$1" | head -c "$3"
}

# ksec FILE: the kallsyms section's compressed bytes.
ksec() {
	sec "$1" kallsyms
}

# alter FILE NAME: section NAME of FILE (zstd) made of other bytes that
# decompress to the same: a level-6 frame padded with a skippable frame
# to the same length; they are left in $T/alt.zst.
alter() {
	local at n pad
	sec "$1" "$2" >"$T/sec.zst"
	zstd -dcq "$T/sec.zst" >"$T/sec.txt"
	zstd -q -6 -c "$T/sec.txt" >"$T/sec6.zst"
	n=$(wc -c <"$T/sec.zst")
	pad=$((n - $(wc -c <"$T/sec6.zst") - 8))
	[ "$pad" -ge 0 ] || return 1
	{
		cat "$T/sec6.zst"
		# skippable frame: magic 0x184d2a50, its size, zeros
		printf 'P*M\030'
		printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((pad & 255)) \
		    $((pad >> 8 & 255)) $((pad >> 16 & 255)) $((pad >> 24 & 255)))"
		head -c "$pad" /dev/zero
	} >"$T/alt.zst"
	cmp -s "$T/sec.zst" "$T/alt.zst" && return 1
	at=$("$DUMP" --sections "$1" |
	    sed -n "s/.*Section *[0-9]* @ \([0-9]*\) .*\"$2\".*/\1/p")
	dd if="$T/alt.zst" of="$1" bs=65536 oflag=seek_bytes \
	    seek=$((at + 16 + 8)) conv=notrunc status=none
}

# A v7 input whose kallsyms or event formats the output's codec
# compressed is written with those bytes (tdat-cat does not compress them
# again).  The fixture's own zstd bytes are what tdat-cat would make too,
# so they are replaced by other bytes that decompress alike: only a copy
# keeps them, and only a right copy reads back.
@test "v7 kallsyms and formats compressed alike are copied as they are" {
	local f=$D/x86_64-default-sched.dat
	command -v zstd >/dev/null 2>&1 || skip "zstd is not installed"
	cp "$f" "$T/in.dat"
	alter "$T/in.dat" kallsyms
	mv "$T/alt.zst" "$T/kalt.zst"
	alter "$T/in.dat" "events format"
	run "$CAT" --compression zstd -o "$T/out.dat" "$T/in.dat"
	[ "$status" -eq 0 ]
	ksec "$T/out.dat" | cmp - "$T/kalt.zst"
	sec "$T/out.dat" "events format" | cmp - "$T/alt.zst"
	"$B/tdat-verify" -q "$T/out.dat"
	metadata "$f" >"$T/meta.in"
	metadata "$T/out.dat" >"$T/meta.out"
	same "$T/meta.in" "$T/meta.out"
	# timer events print their functions through the kallsyms
	expected x86_64-default-sched report-N >"$T/expected"
	grep -q 'function=[a-z_]' "$T/expected"
	records "$T/out.dat" >"$T/records"
	same "$T/expected" "$T/records"
	need_trace_cmd
	tc "$T/out.dat" >"$T/actual"
	same "$T/expected" "$T/actual"
}

# The same for zlib, 2.4 MB of compressed kallsyms: copied in windows.
@test "a v7 zlib kallsyms of 15 MB is copied as it is" {
	local f=$D/hip24-host-trace.dat
	run "$CAT" --compression zlib -o "$T/out.dat" "$f"
	[ "$status" -eq 0 ]
	ksec "$f" >"$T/k.in"
	[ "$(wc -c <"$T/k.in")" -gt 2000000 ]
	ksec "$T/out.dat" | cmp - "$T/k.in"
	"$B/tdat-verify" -q "$T/out.dat"
	expected hip24-host-trace report-N >"$T/expected"
	records "$T/out.dat" >"$T/records"
	same "$T/expected" "$T/records"
}

# ---- command line

@test "--help prints usage and every option, exits 0" {
	run --separate-stderr "$CAT" --help
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ ${lines[0]} == "usage: tdat-cat "* ]]
	for o in --file-version --compression --output --progress; do
		[[ $output == *"$o"* ]] || { echo "no $o in --help"; return 1; }
	done
}

@test "--version prints the version, exits 0" {
	run --separate-stderr "$CAT" --version
	[ "$status" -eq 0 ]
	[[ $output == "tdat-cat (tdat) "* ]]
}

@test "an unknown option is a usage error (exit 2)" {
	run --separate-stderr "$CAT" --no-such-option "$D/labsisop-qemu-trace.dat"
	[ "$status" -eq 2 ]
	[[ $stderr == *"unknown option"* ]]
}

@test "--file-version accepts only 6 and 7" {
	run --separate-stderr "$CAT" --file-version 5 -o "$T/x.dat" \
	    "$D/labsisop-qemu-trace.dat"
	[ "$status" -eq 2 ]
	[ ! -e "$T/x.dat" ]
}

@test "--compression rejects an unknown name" {
	run --separate-stderr "$CAT" --compression lz4 -o "$T/x.dat" \
	    "$D/labsisop-qemu-trace.dat"
	[ "$status" -eq 2 ]
	[[ $stderr == *"unknown compression"* ]]
}

@test "--file-version 6 with compression is a usage error" {
	run --separate-stderr "$CAT" --file-version 6 --compression zstd \
	    -o "$T/x.dat" "$D/labsisop-qemu-trace.dat"
	[ "$status" -eq 2 ]
	[[ $stderr == *"cannot be compressed"* ]]
}

@test "the default output is version 7 with zstd" {
	"$CAT" -o "$T/x.dat" "$D/labsisop-qemu-trace.dat"
	# magic (10 bytes), "7\0", endian, long size, page size, "zstd\0"
	[ "$(dd if="$T/x.dat" bs=1 skip=10 count=1 2>/dev/null)" = 7 ]
	[ "$(dd if="$T/x.dat" bs=1 skip=18 count=4 2>/dev/null)" = zstd ]
}

@test "--file-version 6 writes version 6, --compression none v7 none" {
	"$CAT" --file-version 6 -o "$T/a.dat" "$D/x86_64-default-sched.dat"
	[ "$(dd if="$T/a.dat" bs=1 skip=10 count=1 2>/dev/null)" = 6 ]
	"$CAT" --compression none -o "$T/b.dat" "$D/x86_64-default-sched.dat"
	[ "$(dd if="$T/b.dat" bs=1 skip=18 count=4 2>/dev/null)" = none ]
}

@test "- reads standard input, no -o writes standard output" {
	need_trace_cmd
	"$CAT" --compression none - <"$D/labsisop-qemu-trace.dat" >"$T/x.dat"
	tc "$T/x.dat" >"$T/actual"
	report_input labsisop-qemu-trace >"$T/expected"
	same "$T/expected" "$T/actual"
}

@test "standard output into a pipe works" {
	need_trace_cmd
	"$CAT" "$D/hebel23-driver-trace.dat" | cat >"$T/x.dat"
	tc "$T/x.dat" >"$T/actual"
	report_input hebel23-driver-trace >"$T/expected"
	same "$T/expected" "$T/actual"
}

@test "-o FILE replaces FILE only when done, leaving no temporary" {
	echo old >"$T/out.dat"
	"$CAT" -o "$T/out.dat" "$D/labsisop-qemu-trace.dat"
	[ "$(head -c 3 "$T/out.dat")" != old ]
	[ "$(ls -A "$T" | grep -c '^\.out\.dat\.')" -eq 0 ]
}

@test "a damaged input leaves the target alone and no temporary (exit 1)" {
	head -c 300000 "$D/x86_64-v7-none-instances.dat" >"$T/bad.dat"
	echo old >"$T/out.dat"
	run --separate-stderr "$CAT" -o "$T/out.dat" "$T/bad.dat"
	[ "$status" -eq 1 ]
	[[ $stderr == "tdat-cat: $T/bad.dat: "* ]]
	[ "$(cat "$T/out.dat")" = old ]
	[ "$(ls -A "$T" | grep -c '^\.out\.dat\.')" -eq 0 ]
}

@test "a damaged page is refused, not copied: plain, v6, repacked (exit 1)" {
	# page 1 of labsisop-qemu-trace.dat: its first event made id 65520
	cp "$D/labsisop-qemu-trace.dat" "$T/bad.dat"
	printf '\360\377' | dd of="$T/bad.dat" bs=1 seek=1126416 \
	    conv=notrunc 2>/dev/null
	for a in "" "--file-version 6" "--cpu 0"; do
		run --separate-stderr "$CAT" $a -o "$T/out.dat" "$T/bad.dat"
		[ "$status" -eq 1 ]
		[ "$stderr" = "tdat-cat: $T/bad.dat: offset 0x11300c: event id has no format" ]
		[ ! -e "$T/out.dat" ]
	done
	"$CAT" -e 'sched:*' -o "$T/out.dat" "$T/bad.dat"
	"$B/tdat-verify" "$T/out.dat"
}

@test "a damaged page after whole chunks of its CPU stops the copy the same way (exit 1)" {
	# Chunks go into the compressor as soon as their pages are checked:
	# a damaged page later in the window still stops the copy with its
	# error and no output.  x86_64-v7-none-instances.dat, buffer "": CPU
	# 0 (copied early, beside the metadata) at 0x3ea000, page 12; CPU 1
	# at 0x402000, pages 15 and 23 (the last, short chunk); each page's
	# first event made id 65520.
	for p in 0x3f6000 0x411000 0x419000; do
		cp "$D/x86_64-v7-none-instances.dat" "$T/bad.dat"
		printf '\360\377' | dd of="$T/bad.dat" bs=1 \
		    seek=$((p + 20)) conv=notrunc 2>/dev/null
		for a in "" "--compression zlib" "--compression none"; do
			echo old >"$T/out.dat"
			run --separate-stderr "$CAT" $a -o "$T/out.dat" "$T/bad.dat"
			[ "$status" -eq 1 ]
			[ "$stderr" = "tdat-cat: $T/bad.dat: offset $(printf '%#x' $((p + 16))): event id has no format" ]
			[ "$(cat "$T/out.dat")" = old ]
			[ "$(ls -A "$T" | grep -c '^\.out\.dat\.')" -eq 0 ]
		done
	done
}

@test "an output that is the input is refused (exit 2)" {
	cp "$D/labsisop-qemu-trace.dat" "$T/in.dat"
	run --separate-stderr "$CAT" -o "$T/in.dat" "$T/in.dat"
	[ "$status" -eq 2 ]
	[[ $stderr == *"is one of the inputs"* ]]
	cmp "$D/labsisop-qemu-trace.dat" "$T/in.dat"
}

@test "a missing input is an I/O error (exit 2)" {
	run --separate-stderr "$CAT" -o "$T/x.dat" "$T/none.dat"
	[ "$status" -eq 2 ]
	[[ $stderr == "tdat-cat: $T/none.dat: "* ]]
	[ ! -e "$T/x.dat" ]
}

@test "--progress shows a percentage on stderr" {
	run --separate-stderr "$CAT" --progress -o "$T/x.dat" \
	    "$D/x86_64-default-sched.dat"
	[ "$status" -eq 0 ]
	[[ $stderr == *"100%"* ]]
}

@test "--no-progress keeps stderr quiet" {
	run --separate-stderr "$CAT" --no-progress -o "$T/x.dat" \
	    "$D/x86_64-default-sched.dat"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "a terminal as standard output is refused" {
	command -v script >/dev/null 2>&1 || skip "script(1) is not installed"
	run script -qec "$CAT $D/labsisop-qemu-trace.dat" /dev/null
	[[ $output == *"refusing to write a trace to a terminal"* ]]
}

@test "a conversion and its inverse give back the same file" {
	"$CAT" --compression none -o "$T/a.dat" "$D/x86_64-v7-none-instances.dat"
	cmp "$D/x86_64-v7-none-instances.dat" "$T/a.dat" ||
	    echo "# (not byte-identical: fine, checked below)" >&3
	"$CAT" --file-version 6 -o "$T/b.dat" "$T/a.dat"
	"$CAT" --compression none -o "$T/c.dat" "$T/b.dat"
	"$CAT" --file-version 6 -o "$T/d.dat" "$T/c.dat"
	cmp "$T/b.dat" "$T/d.dat"
}

# ---- choosing events: the pages are rebuilt without the dropped ones

# pick NAME ARGS: tdat-cat ARGS on t/data/NAME.dat; its report in $T/actual,
# the input's in $T/input.
pick() {
	local name=$1
	shift
	need_trace_cmd
	report_input "$name" >"$T/input"
	run --separate-stderr "$CAT" --compression none "$@" -o "$T/pick.dat" \
	    "$D/$name.dat"
	[ "$status" -eq 0 ] || { echo "exit $status: $stderr"; return 1; }
	tc "$T/pick.dat" >"$T/actual"
}

@test "rebuilt pages of every event report like the originals" {
	pick x86_64-v7-none-instances --cpu 0-63
	same "$T/input" "$T/actual"
	pick s390x-v7-zstd-sched --cpu 0-63
	same "$T/input" "$T/actual"
}

@test "-e EVENT keeps only that event" {
	pick x86_64-default-sched -e sched_switch
	grep -E '^cpus=| sched_switch: ' "$T/input" >"$T/expected"
	same "$T/expected" "$T/actual"
}

@test "-e SYSTEM:GLOB and -e SYSTEM" {
	pick x86_64-default-sched -e 'sched:sched_w*'
	grep -E '^cpus=| sched_w[a-z_]*: ' "$T/input" >"$T/expected"
	same "$T/expected" "$T/actual"
	pick x86_64-default-sched -e irq
	grep -E '^cpus=| (irq_handler_[a-z]*|softirq_[a-z]*): ' "$T/input" \
	    >"$T/expected"
	same "$T/expected" "$T/actual"
}

@test "an -e that names no event is an error (exit 2)" {
	run --separate-stderr "$CAT" -e no_such_event -o "$T/x.dat" \
	    "$D/x86_64-default-sched.dat"
	[ "$status" -eq 2 ]
	[[ $stderr == *"no event matches 'no_such_event'"* ]]
}

@test "-v drops what -e would keep" {
	pick x86_64-default-sched -v -e sched_switch
	grep -v ' sched_switch: ' "$T/input" >"$T/expected"
	same "$T/expected" "$T/actual"
}

@test "sparse events get time extends (gaps over 2^27 ns)" {
	pick hebel23-driver-trace -e gpio_value
	grep -E '^cpus=| gpio_value: ' "$T/input" >"$T/expected"
	[ "$(wc -l <"$T/expected")" -gt 2 ]
	same "$T/expected" "$T/actual"
}

@test "--cpu LIST keeps only those CPUs" {
	pick x86_64-default-sched --cpu 1,3
	grep -v -E '\[00[02]\]' "$T/input" >"$T/expected"
	same "$T/expected" "$T/actual"
}

@test "--pid LIST keeps only those pids" {
	pick x86_64-default-sched --pid 0,7
	awk 'NR == 1 || $1 ~ /-(0|7)$/' "$T/input" >"$T/expected"
	[ "$(wc -l <"$T/expected")" -gt 10 ]
	same "$T/expected" "$T/actual"
}

@test "--comm GLOB keeps only those tasks" {
	pick x86_64-default-sched --comm 'kworker*'
	awk 'NR == 1 || $1 ~ /^kworker/' "$T/input" >"$T/expected"
	[ "$(wc -l <"$T/expected")" -gt 10 ]
	same "$T/expected" "$T/actual"
}

@test "--since and --until keep a time range, absolute or +relative" {
	local first
	pick hebel23-driver-trace --since 1466.0 --until 1468.5
	awk 'NR == 1 { print; next } { t = $0; sub(/^.*\] +/, "", t);
	    t = t + 0; if (t >= 1466 && t <= 1468.5) print }' "$T/input" \
	    >"$T/expected"
	same "$T/expected" "$T/actual"
	first=$(awk 'NR == 2 { sub(/^.*\] +/, ""); print $1 + 0 }' "$T/input")
	pick hebel23-driver-trace --since +2.0 --until +3500ms
	awk -v f="$first" 'NR == 1 { print; next } { t = $0;
	    sub(/^.*\] +/, "", t); t = t + 0;
	    if (t >= f + 2 - 1e-9 && t <= f + 3.5 + 1e-9) print }' \
	    "$T/input" >"$T/expected"
	same "$T/expected" "$T/actual"
}

@test "a malformed --since is a usage error" {
	run --separate-stderr "$CAT" --since 1.2.3 -o "$T/x.dat" \
	    "$D/hebel23-driver-trace.dat"
	[ "$status" -eq 2 ]
	[[ $stderr == *"bad time"* ]]
}

@test "--buffer NAME keeps one buffer instance" {
	pick x86_64-v7-none-instances --buffer foo
	grep -E '^cpus=|^foo: ' "$T/input" >"$T/expected"
	same "$T/expected" "$T/actual"
	pick x86_64-v7-none-instances --buffer ''
	grep -v -E '^(foo|bar): ' "$T/input" >"$T/expected"
	same "$T/expected" "$T/actual"
}

@test "-F keeps what trace-cmd report -F shows" {
	local f
	for f in 'sched_switch: prev_pid == 0' \
	    'sched_wakeup,sched_switch: (common_pid > 100 && target_cpu == 1) || prev_state == 2' \
	    'sched/sched_switch: prev_pid == 0' \
	    'sched_switch: prev_state & 2' \
	    'sched_wakeup: pid >= 50 && comm == "sh"'; do
		pick x86_64-default-sched -F "$f"
		trace-cmd report -N -t -F "$f" "$D/x86_64-default-sched.dat" \
		    >"$T/expected" 2>/dev/null
		[ "$(wc -l <"$T/expected")" -gt 1 ] || { echo "$f: nothing"; return 1; }
		same "$T/expected" "$T/actual" || { echo "filter: $f"; return 1; }
	done
}

@test "-F takes SYSTEM:EVENT and event globs" {
	pick x86_64-default-sched -F 'sched:sched_sw*: prev_pid == 0'
	trace-cmd report -N -t -F 'sched_switch: prev_pid == 0' \
	    "$D/x86_64-default-sched.dat" >"$T/expected" 2>/dev/null
	same "$T/expected" "$T/actual"
}

@test "-F with ~ globs strings, as the kernel does" {
	pick x86_64-default-sched -F 'sched_switch: next_comm ~ "kworker/*"'
	grep -E '^cpus=| sched_switch: .* next_comm=kworker/' "$T/input" \
	    >"$T/expected"
	same "$T/expected" "$T/actual"
}

# bad_filter FILTER REASON COLUMN: the message, the filter, and a caret
# under byte COLUMN of it.
bad_filter() {
	local caret
	caret=$(printf '%*s^' $(($3 + 2)) '')
	run --separate-stderr "$CAT" -F "$1" -o "$T/x.dat" \
	    "$D/x86_64-default-sched.dat"
	[ "$status" -eq 2 ] || { echo "exit $status"; return 1; }
	[ "${stderr_lines[0]}" = "tdat-cat: bad filter: $2" ] ||
	    { echo "got: ${stderr_lines[0]}"; return 1; }
	[ "${stderr_lines[1]}" = "  $1" ] || { echo "got: ${stderr_lines[1]}"; return 1; }
	[ "${stderr_lines[2]}" = "$caret" ] ||
	    { echo "$1: got '${stderr_lines[2]}', want '$caret'"; return 1; }
	[ ! -e "$T/x.dat" ]
}

@test "-F errors point a caret at the fault" {
	bad_filter 'sched_switch: prev_pidd > 0' 'Field not found' 14
	bad_filter 'sched_switch: prev_pid > 0 && (next_pid == 1' \
	    'Unbalanced parens' 30
	bad_filter 'sched_switch: prev_pid >> 1' 'Illegal integer value' 24
	bad_filter 'sched_switch: prev_pid = 1' 'Invalid operator' 23
	bad_filter 'sched_switch: prev_comm < 1' \
	    'Illegal operation for field type' 24
	bad_filter 'sched_switch: prev_pid > 0 && prev_pid' \
	    'Missing field name and/or value' 38
	bad_filter 'no_such_event: pid > 1' 'No event matches' 0
}

# ---- several inputs

@test "inputs split by CPU merge back into the original" {
	need_trace_cmd
	"$CAT" --cpu 0,2 -o "$T/a.dat" "$D/x86_64-v7-none-instances.dat"
	"$CAT" --cpu 1,3 --file-version 6 -o "$T/b.dat" \
	    "$D/x86_64-v7-none-instances.dat"
	"$CAT" -o "$T/m.dat" "$T/b.dat" "$T/a.dat"
	report_input x86_64-v7-none-instances >"$T/expected"
	tc "$T/m.dat" >"$T/actual"
	same "$T/expected" "$T/actual"
}

@test "inputs split by time merge back, filtered on the way" {
	need_trace_cmd
	"$CAT" --until 1468.0 -o "$T/a.dat" "$D/hebel23-driver-trace.dat"
	"$CAT" --since 1468.000000001 -o "$T/b.dat" "$D/hebel23-driver-trace.dat"
	"$CAT" -e sched_switch -o "$T/m.dat" "$T/a.dat" "$T/b.dat"
	report_input hebel23-driver-trace |
	    grep -E '^cpus=| sched_switch: ' >"$T/expected"
	tc "$T/m.dat" >"$T/actual"
	same "$T/expected" "$T/actual"
}

@test "inputs with different formats are refused, naming the event" {
	run --separate-stderr "$CAT" -o "$T/m.dat" \
	    "$D/x86_64-default-sched.dat" "$D/s390x-v7-zstd-sched.dat"
	[ "$status" -eq 2 ]
	[[ $stderr == "tdat-cat: "*"differs from"* ]]
	"$CAT" --compression none -e sched_switch -o "$T/a.dat" \
	    "$D/x86_64-v7-none-instances.dat"
	run --separate-stderr "$CAT" -o "$T/m.dat" \
	    "$D/x86_64-default-sched.dat" "$D/x86_64-v7-none-instances.dat"
	[ "$status" -eq 2 ]
	[[ $stderr == "tdat-cat: "*"event "*":"*" (id "*") "* ]]
	[ ! -e "$T/m.dat" ]
}

# ---- memory

# peak COMMAND...: the peak resident set of COMMAND in KiB.
peak() {
	/usr/bin/time -f '%M' -o "$T/peak" "$@" >/dev/null 2>&1
	tail -n 1 "$T/peak"
}

@test "a large kallsyms is written from the input, not copied" {
	[ -x /usr/bin/time ] || skip "GNU time is not installed"
	# AddressSanitizer keeps freed memory in quarantine.
	[ -z "${ASAN_OPTIONS:-}" ] || skip "a sanitizer build"
	local f=$D/hip24-host-trace.dat held v
	# 15 MB of kallsyms: tdat-dump --kallsyms holds them once.
	held=$(peak "$DUMP" --kallsyms "$f")
	for v in "--file-version 6" "--file-version 7 --compression none" \
	    "--file-version 7 --compression zstd" \
	    "--file-version 7 --compression zlib"; do
		run peak "$CAT" $v -o "$T/out.dat" "$f"
		echo "$v: $output KiB, the kallsyms held once: $held KiB"
		[ "$output" -le $((held + 4096)) ]
		"$DUMP" --kallsyms "$T/out.dat" | sed -n '/Kallsyms, /,$p' |
		    cmp - <("$DUMP" --kallsyms "$f" | sed -n '/Kallsyms, /,$p')
	done
}

# ---- the start: large texts on threads of their own

# A time cut's start from a v6 input was mostly its 4 MB of kallsyms
# compressed on the writer's thread before any page: they are compressed
# on a thread begun before the output's first write (the thread makes no
# call strace sees; the writer's first threads came after the metadata).
@test "a v6 input's kallsyms are compressed on a thread begun before any write" {
	command -v strace >/dev/null 2>&1 || skip "strace is not installed"
	local f=$D/hebel23-driver-trace.dat first
	# (LeakSanitizer stops under ptrace: make check-asan's build)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -e trace=clone,clone3,pwrite64 -o "$T/st" \
	    "$CAT" --until 0 -o "$T/out.dat" "$f"
	first=$(grep -m 1 -E 'clone3?\(|pwrite64\(' "$T/st")
	echo "first: $first"
	[[ "$first" == *clone* ]]
	# the same bytes as compressed in their turn: a copy through a pipe
	# (the text not mapped) and tdat-dump's reading of both
	"$CAT" --until 0 <"$f" >"$T/pipe.dat"
	cmp "$T/out.dat" "$T/pipe.dat"
	"$DUMP" --kallsyms "$T/out.dat" | sed -n '/Kallsyms, /,$p' |
	    cmp - <("$DUMP" --kallsyms "$f" | sed -n '/Kallsyms, /,$p')
}

# ... in one zstd frame with tables of their own sizes (lib/common/codec.c
# tdat_codec_compress_text()): fewer bytes than zstd's level 3 makes of
# them (2.5 MB of kallsyms: 680 KB, 10 KB fewer), in fewer instructions.
@test "a v6 input's kallsyms compressed ahead come out smaller than zstd -3's" {
	command -v zstd >/dev/null 2>&1 || skip "zstd is not installed"
	local f=$D/hebel23-driver-trace.dat n z
	"$CAT" --until 0 -o "$T/out.dat" "$f"
	n=$("$DUMP" --sections "$T/out.dat" |
	    sed -n 's/.*"kallsyms", flags 0x1, \([0-9]*\) compressed.*/\1/p')
	"$DUMP" --kallsyms "$f" | sed -n '/Kallsyms, /,$p' | tail -n +2 |
	    head -c -1 >"$T/k.txt"
	z=$(zstd -3 -c <"$T/k.txt" | wc -c)
	echo "kallsyms $(wc -c <"$T/k.txt") bytes: tdat-cat $n, zstd -3 $z"
	[ -n "$n" ] && [ "$n" -gt 100000 ] && [ "$n" -lt $((z - 4000)) ]
	"$DUMP" --kallsyms "$T/out.dat" | sed -n '/Kallsyms, /,$p' |
	    cmp - <("$DUMP" --kallsyms "$f" | sed -n '/Kallsyms, /,$p')
}

# And a v7 input's compressed kallsyms (903 KB) are read and decompressed
# on a thread of their own while the sections before them load.
@test "a v7 input's kallsyms are read on a thread of their own" {
	command -v strace >/dev/null 2>&1 || skip "strace is not installed"
	local f=$D/x86_64-default-sched.dat main n
	n=$("$DUMP" --sections "$f" |
	    sed -n 's/.*"kallsyms", flags 0x1, \([0-9]*\) compressed.*/\1/p')
	[ "$n" -gt 500000 ]
	# (LeakSanitizer stops under ptrace: make check-asan's build)
	# (one file per thread, -ff: with -f, a call another thread's cuts
	# in on is printed in two pieces, "<unfinished ...>" and "resumed")
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -ff -e trace=execve,clone,clone3,pread64 -o "$T/st" \
	    "$CAT" --until 0 -o "$T/out.dat" "$f"
	main=$(grep -l '^execve(' "$T"/st.*)
	grep -lE "^pread64\(.*, $n, [0-9]+\) = $n" "$T"/st.* >"$T/reads"
	echo "main thread: $main, the read's: $(cat "$T/reads")"
	[ "$(wc -l <"$T/reads")" -eq 1 ]
	[ "$(cat "$T"/st.* | grep -cE "^pread64\(.*, $n, [0-9]+\) = $n")" -eq 1 ]
	[ -n "$main" ] && [ "$(cat "$T/reads")" != "$main" ]
	"$B/tdat-verify" -q "$T/out.dat"
}

# tdat-cat opens one input chosen by time (or a copy) with its kallsyms
# left loading: the writer writes the sections before them, copies their
# compressed bytes (their size read from the frame's first block) and the
# sections after them meanwhile, and takes their verdict at the end (a
# time cut of a 400 MB v7 zstd trace waited for their decompression and
# check before it began).  strace holds the kallsyms thread's one read
# 0.3 s (each thread's first pread64): the printk section (id 20) after
# them is written well before it ends.
@test "a v7 input's kallsyms load while the writer writes them and the sections around them" {
	command -v strace >/dev/null 2>&1 || skip "strace is not installed"
	local f=$D/x86_64-default-sched.dat main k n tw tr
	n=$("$DUMP" --sections "$f" |
	    sed -n 's/.*"kallsyms", flags 0x1, \([0-9]*\) compressed.*/\1/p')
	"$CAT" --until 0 -o "$T/want.dat" "$f"
	mkdir "$T/st"
	# (LeakSanitizer stops under ptrace: make check-asan's build)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -ff -ttt -e trace=execve,pread64,pwrite64 \
	    -e inject=pread64:delay_exit=300000:when=1 -o "$T/st/t" \
	    "$CAT" --until 0 -o "$T/out.dat" "$f"
	main=$(grep -l '^[0-9.]* execve(' "$T"/st/t.*)
	k=$(grep -lE "^[0-9.]* pread64\(.*, $n, [0-9]+\) = $n" "$T"/st/t.*)
	tw=$(grep -m 1 ' pwrite64([0-9]*, "\\24\\0\\1\\0' "$main" | cut -d' ' -f1)
	tr=$(grep -m 1 ' pread64(' "$k" | cut -d' ' -f1)
	echo "main $main, kallsyms $k: printk written $tw, their read $tr"
	[ -n "$tw" ] && [ -n "$tr" ]
	awk -v w="$tw" -v r="$tr" 'BEGIN { exit !(w - r < 0.15) }'
	cmp "$T/want.dat" "$T/out.dat"
	"$B/tdat-verify" -q "$T/out.dat"
}

# ... and when they are damaged, tdat-cat fails as when it waited for them
# in the open: their message first, whatever fails after them (here the
# output's folder, which does not exist), and no output.
@test "damaged kallsyms left loading fail as in the open, before any later failure" {
	local f=$T/in.dat want
	damage_kallsyms "$DUMP" "$D/x86_64-default-sched.dat" "$f"
	run "$DUMP" "$f"
	[ "$status" -ne 0 ]
	want=${output#tdat-dump: }
	[[ "$want" == *"does not decompress"* ]]
	run -1 "$CAT" --until 0 -o "$T/out.dat" "$f"
	[ "$output" = "tdat-cat: $want" ]
	[ ! -e "$T/out.dat" ]
	run -1 "$CAT" -o "$T/out.dat" "$f"
	[ "$output" = "tdat-cat: $want" ]
	run -1 "$CAT" --until 0 -o "$T/no/out.dat" "$f"
	[ "$output" = "tdat-cat: $want" ]
	[ "$(ls -A "$T" | grep -c '^\.out')" = 0 ]
}

# A CPU whose records jump by more than one time extend holds (27 + 32
# bits, 18 years: two extends in a row, which tdat-verify only warns of)
# came out of the repacker, and of an LTT directory's pages, with the
# extend's high bits cut: 1152921514 s became 10 s.  Such a gap now
# starts a page, whose time stamp has 64 bits.
@test "a gap no time extend holds keeps its time through a repack and an LTT directory" {
	local want
	"$CAT" --file-version 6 "$D/x86_64-default-sched.dat" -o "$T/v6.dat"
	python3 - "$T/v6.dat" "$T/gap.dat" "$B/tdat-dump" <<'PY'
import re, struct, subprocess, sys
src, dst, dump = sys.argv[1:4]
d = bytearray(open(src, "rb").read())
fly = subprocess.run([dump, "--flyrecord", src], capture_output=True,
                     text=True).stdout
off, size = map(int, re.search(r"cpu 1: offset (\d+), size (\d+)", fly).groups())
page = off + size - 4096			# CPU 1's last page
commit = struct.unpack_from("<Q", d, page + 8)[0]
p, end, items = page + 16, page + 16 + commit, []
while p < end:					# its items
    t = struct.unpack_from("<I", d, p)[0] & 31
    items.append((p, t))
    if t == 0 or t == 29:
        p += 4 + struct.unpack_from("<I", d, p + 4)[0]
    else:
        p += {30: 8, 31: 16}.get(t, 4 + 4 * t)
at = [q for q, t in items if t <= 28][-1]	# before its last record,
ext = struct.pack("<II", (1 << 27) - 1 << 5 | 30, 0xffffffff) * 2
d[at:end + 16] = ext + d[at:end]		# two extends of 2^59 - 1 ns
struct.pack_into("<Q", d, page + 8, commit + 16)
open(dst, "wb").write(d)
PY
	last() { "$B/tdat-dump" --records -t "$1" | awk '$2 == "[001]"' | tail -n 1; }
	want=$(last "$T/gap.dat")
	[[ "$want" == *" 1152921514.970536273: hrtimer_start: "* ]]
	"$CAT" -e 'hrtimer*' "$T/gap.dat" -o "$T/r.dat"
	[ "$(last "$T/r.dat")" = "$want" ]
	"$B/tdat-verify" -q "$T/r.dat"
	"$B/tdat-to-ltt" --no-progress "$T/gap.dat" "$T/l"
	"$CAT" "$T/l" -o "$T/back.dat"
	[ "$(last "$T/back.dat")" = "$want" ]
	"$B/tdat-verify" -q "$T/back.dat"
}

@test "trace-cmd 3.4's sections: kept in v7, left out of v6 as 3.4's convert leaves them" {
	local L=$D/tc34/x86_64-tc34-lastboot-warm.dat t=$BATS_TEST_TMPDIR
	run -0 "$CAT" -o "$t/7.dat" "$L"
	run -0 "$CAT" --compression none -o "$t/n.dat" "$L"
	for f in "$t/7.dat" "$t/n.dat"; do
		"$B/tdat-verify" "$f"
		"$B/tdat-dump" --sections "$f" | grep -o '"[a-zA-Z_ ]*"' |
		    tr '\n' ' ' >"$t/s"
		[ "$(cat "$t/s")" = '"headers" "ftrace events" "events format" "kallsyms" "printk" "modules" "BTF" "command lines" "options" "buffer flyrecord " "options" "buffer flyrecord boot_mapped" "options" "strings" ' ]
		# the options name the sections where they now are
		m=$("$B/tdat-dump" --sections "$f" | sed -n 's/.*Section 25 @ \([0-9]*\) .*/\1/p')
		"$B/tdat-dump" --options "$f" | grep -q "^		\[Option MODULES_FILE, 8 bytes\] @ $m$"
		"$B/tdat-dump" --modules "$f" | tail -n +2 >"$t/m"
		"$B/tdat-dump" --modules "$L" | tail -n +2 | diff - "$t/m"
		"$B/tdat-dump" --options "$L" | grep -A9 LAST_BOOT_INFO >"$t/lb"
		"$B/tdat-dump" --options "$f" | grep -A9 LAST_BOOT_INFO | diff "$t/lb" -
		"$B/tdat-to-json" --meta "$f" | grep -q '"btf":{"offset":[0-9]*,"size":5440252}'
	done
	# v6 has no sections: no BTF_FILE or MODULES_FILE option naming
	# none (trace-cmd 3.4's convert copies them, offsets and all)
	run -0 "$CAT" --file-version 6 -o "$t/6.dat" "$L"
	"$B/tdat-verify" "$t/6.dat"
	run -0 "$B/tdat-dump" --options "$t/6.dat"
	[[ $output == *'[Option LAST_BOOT_INFO, 242 bytes]'* ]]
	[[ $output != *MODULES_FILE* && $output != *' 23 8'* ]]
}
