#!/usr/bin/env bats
# ltt.bats: tdat-to-ltt writes every fixture in t/data as an LTT trace
# directory (ltt(5)): the XML is valid against schemas/ (xmllint), the
# tracefiles are whole blocks framed by block_start, block_end and the
# trailer, --lttv follows the rules LTTV's reader needs, and the round
# trip through tdat-cat reports as the original does in trace-cmd;
# damaged directories give located findings in tdat-verify.
# Run by t/run-tests (make check); TDAT_BIN names the tools' folder.

bats_require_minimum_version 1.5.0

setup() {
	D=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
	B=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	S=$BATS_TEST_DIRNAME/../schemas
	TOLTT=$B/tdat-to-ltt
	T=$BATS_TEST_TMPDIR
	if [ ! -x "$TOLTT" ]; then
		echo "# $TOLTT is not built" >&3
		return 1
	fi
}

fixtures() {
	local f
	for f in "$D"/*.dat; do
		basename "$f" .dat
	done
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

# blocks DIR FILE BS DIALECT ENDIAN [TRAILER_ENDIAN]: python check of a
# tracefile's frames.
blocks() {
	python3 - "$1/$2" "$3" "$4" "$5" "${6:-$5}" <<'EOF'
import struct, sys
path, bs, dialect, endian = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
e = '>' if endian.lower().startswith('big') else '<'
te = '>' if sys.argv[5].lower().startswith('big') else '<'
data = open(path, 'rb').read()
if len(data) == 0 or len(data) % bs:
    sys.exit('%s: %d bytes are not whole blocks of %d' % (path, len(data), bs))
for i in range(len(data) // bs):
    b = data[i * bs:(i + 1) * bs]
    if struct.unpack(e + 'H', b[:2])[0] != 17:
        sys.exit('%s: block %d does not start with block_start' % (path, i))
    if struct.unpack(e + 'I', b[2:6])[0] != 0:
        sys.exit('%s: block %d: block_start time is not 0' % (path, i))
    bid = struct.unpack(e + 'I', b[22:26])[0]
    t = struct.unpack(te + 'I', b[bs - 4:])[0]
    at = bs - 4 - t - 26 if dialect == '2005' else bs - t
    if not 26 <= at <= bs - 30 or struct.unpack(e + 'H', b[at:at + 2])[0] != 18:
        sys.exit('%s: block %d: trailer %d (%s) names no block_end' % (path, i, t, dialect))
    if struct.unpack(e + 'I', b[at + 22:at + 26])[0] != bid or bid != i:
        sys.exit('%s: block %d: block ids disagree' % (path, i))
    if any(b[at + 26:bs - 4]):
        sys.exit('%s: block %d: unused bytes are not zero' % (path, i))
EOF
}

endian_of() {
	sed -n 's/.* endian="\([A-Za-z_]*\)".*/\1/p' "$1/info/system.xml"
}

@test "tdat-to-ltt converts every fixture; the XML is valid against schemas/" {
	command -v xmllint >/dev/null || skip "xmllint is not installed"
	for n in $(fixtures); do
		run --separate-stderr "$TOLTT" "$D/$n.dat" "$T/$n"
		[ "$status" -eq 0 ] || { echo "$n: exit $status: $stderr"; return 1; }
		[ -d "$T/$n/eventdefs" ] && [ -d "$T/$n/cpu" ] && [ -d "$T/$n/control" ]
		for f in "$T/$n"/eventdefs/*.xml; do
			xmllint --noout --schema "$S/ltt-eventdefs.xsd" "$f" 2>"$T/err" ||
			    { cat "$T/err"; return 1; }
		done
		for x in system bookmarks tracedat; do
			xmllint --noout --schema "$S/ltt-$x.xsd" "$T/$n/info/$x.xml" 2>"$T/err" ||
			    { cat "$T/err"; return 1; }
		done
		grep -q '<facility name="builtin">' "$T/$n/eventdefs/builtin.xml"
		[ -s "$T/$n/info/header_page" ] && [ -f "$T/$n/info/options" ]
	done
}

@test "every tracefile is whole blocks with block_start, block_end, trailer and zero fill" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	for n in $(fixtures); do
		"$TOLTT" --block-size 4096 "$D/$n.dat" "$T/$n"
		en=$(endian_of "$T/$n")
		for f in "$T/$n"/cpu/* "$T/$n"/control/*; do
			[ -e "$f" ] || continue
			blocks "$T/$n" "${f#"$T/$n/"}" 4096 2005 "$en"
		done
	done
}

@test "system.xml says the byte order, long size, CPUs and block size" {
	"$TOLTT" "$D/s390x-v7-zstd-sched.dat" "$T/s"
	grep -q 'endian="big"' "$T/s/info/system.xml"
	grep -q 'arch_size="LP64"' "$T/s/info/system.xml"
	grep -q 'cpu="4"' "$T/s/info/system.xml"
	grep -q 'ltt_block_size="65536"' "$T/s/info/system.xml"
	"$TOLTT" "$D/labsisop-qemu-trace.dat" "$T/l"
	grep -q 'arch_size="ILP32"' "$T/l/info/system.xml"
	grep -q 'endian="little"' "$T/l/info/system.xml"
}

@test "eventdefs: types, formats, enums and descriptions from the format files" {
	"$TOLTT" "$D/x86_64-default-sched.dat" "$T/x"
	e=$T/x/eventdefs
	# char[16] as an array, pid_t as a signed int with its %d
	grep -A3 '<field name="prev_comm">' "$e/sched.xml" | grep -q '<array size="16">'
	grep -A2 '<field name="prev_pid">' "$e/sched.xml" | grep -q '<int size="4" format="%d"/>'
	# __data_loc char[] as a string
	grep -A2 '<field name="name">' "$e/irq.xml" | grep -q '<string/>'
	# __print_symbolic with values 0..n-1 as an enum
	grep -A4 '<field name="vec">' "$e/irq.xml" | grep -q '<enum size="4">'
	grep -q '<label name="HI" value="0"/>' "$e/irq.xml"
	# the print format is the description
	grep -q 'print fmt: &quot;prev_comm=%s' "$e/sched.xml"
	# control files: facility_load per facility, processes, interrupts
	[ -s "$T/x/control/facilities" ] && [ -s "$T/x/control/processes" ] &&
	    [ -s "$T/x/control/interrupts" ]
}

@test "--lttv follows the rules of LTTV's reader (2005 and 2003 trailers)" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	for v in 2005 2003; do
		for n in x86_64-default-sched s390x-v7-zstd-sched nish97-trace; do
			o=$T/$n-$v
			"$TOLTT" --lttv=$v --block-size 8192 "$D/$n.dat" "$o"
			[ "$(ls "$o/eventdefs")" = tdat.xml ]
			f=$o/eventdefs/tdat.xml
			! grep -q '<?xml' "$f"
			! grep -q '<!--' "$f"
			! grep -q '&' "$f"
			! grep -q 'size="' "$f"
			grep -q '<uint size=4/>' "$f"
			# the builtin events first, at 0 and 17..19
			grep -o '<event name="[^"]*"' "$f" | sed -n '1p;18,20p' |
			    tr '\n' ' ' | grep -q '"facility_load" .*"block_start" .*"block_end" .*"time_heartbeat"'
			en=$(endian_of "$o")
			[ "$en" = LITTLE_ENDIAN ] || [ "$en" = BIG_ENDIAN ]
			! grep -q '<?xml' "$o/info/system.xml"
			[ ! -e "$o/control/facilities" ]
			for c in "$o"/control/* "$o"/cpu/*; do
				[ -e "$c" ] || continue
				[ -s "$c" ] || { echo "empty $c"; return 1; }
				# LTTV reads the trailer as a little-endian word
				blocks "$o" "${c#"$o/"}" 8192 $v "$en" little
			done
		done
	done
	[ -e "$T/x86_64-default-sched-2005/control/processes" ]
}

@test "--bookmark writes info/bookmarks.xml; bad bookmarks exit 2" {
	"$TOLTT" --bookmark 'wake@60.1995-60.2' --bookmark 'point@61' \
	    "$D/labsisop-qemu-trace.dat" "$T/b"
	grep -q '<location name="wake" start_time="60.199500000" end_time="60.200000000">' \
	    "$T/b/info/bookmarks.xml"
	grep -q '<location name="point" time="61.000000000">' "$T/b/info/bookmarks.xml"
	if command -v xmllint >/dev/null; then
		xmllint --noout --schema "$S/ltt-bookmarks.xsd" "$T/b/info/bookmarks.xml"
	fi
	run --separate-stderr "$TOLTT" --bookmark 'x@2-1' "$D/labsisop-qemu-trace.dat" "$T/c"
	[ "$status" -eq 2 ] && [[ $stderr == "tdat-to-ltt: --bookmark x@2-1: END before START"* ]]
	run --separate-stderr "$TOLTT" --bookmark 'nothing' "$D/labsisop-qemu-trace.dat" "$T/c"
	[ "$status" -eq 2 ]
	[ ! -e "$T/c" ]
}

@test "an existing DIR is refused and nothing is left beside it" {
	mkdir "$T/exists"
	run --separate-stderr "$TOLTT" "$D/labsisop-qemu-trace.dat" "$T/exists"
	[ "$status" -eq 2 ]
	[[ $stderr == *"already exists" ]]
	[ -z "$(ls -A "$T/exists")" ]
	[ -z "$(ls -A "$T" | grep '^\.exists\.')" ]
	run --separate-stderr "$TOLTT" --block-size 1000 "$D/labsisop-qemu-trace.dat" "$T/y"
	[ "$status" -eq 2 ]
}

@test "without DIR the output is FILE's name with .ltt, here; --progress reports" {
	cd "$T"
	run --separate-stderr "$TOLTT" --progress "$D/labsisop-qemu-trace.dat"
	[ "$status" -eq 0 ]
	[ -d "$T/labsisop-qemu-trace.ltt/cpu" ]
	[[ $stderr == *"100%"* ]]
}

# tdat-cat reads LTT directories once it calls tdat_ltt_open().
@test "round trip: tdat-to-ltt then tdat-cat reports as the original (report -N -t)" {
	command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
	for n in $(fixtures); do
		for v in "" --lttv=2005 --lttv=2003; do
			rm -rf "$T/rt" "$T/rt.dat"
			"$TOLTT" $v --block-size 4096 "$D/$n.dat" "$T/rt"
			run --separate-stderr "$B/tdat-cat" -o "$T/rt.dat" "$T/rt"
			[ "$status" -eq 0 ] || { echo "$n $v: tdat-cat: $stderr"; return 1; }
			expected "$n" report-N >"$T/want"
			# trace-cmd 3.1.6 now and then prints raw timestamps
			# for a file without TRACECLOCK: retry such a run
			for i in 1 2 3 4 5; do
				trace-cmd report -N -t "$T/rt.dat" >"$T/got" 2>/dev/null
				grep -q -E '^[^:]*\] *[0-9]+: ' "$T/got" || break
			done
			cmp -s "$T/want" "$T/got" ||
			    { echo "$n $v:"; diff "$T/want" "$T/got" | head -n 20; return 1; }
		done
	done
}

# tdat-verify checks LTT directories (tdat_ltt_verify()).
@test "tdat-verify: a sound directory passes, damaged ones give located findings" {
	"$TOLTT" --block-size 4096 "$D/labsisop-qemu-trace.dat" "$T/v"
	run "$B/tdat-verify" "$T/v"
	[ "$status" -eq 0 ]
	printf '\356\356' | dd of="$T/v/cpu/0" bs=1 seek=26 conv=notrunc 2>/dev/null
	run "$B/tdat-verify" "$T/v"
	[ "$status" -eq 1 ]
	[[ $output == *"cpu/0"*"block 0"*"not defined"* ]] || { echo "$output"; return 1; }
	"$TOLTT" --block-size 4096 "$D/labsisop-qemu-trace.dat" "$T/w"
	truncate -s 5000 "$T/w/cpu/0"
	run "$B/tdat-verify" "$T/w"
	[ "$status" -eq 1 ]
	[[ $output == *"cpu/0"*"whole number"* ]] || { echo "$output"; return 1; }
}
