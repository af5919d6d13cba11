#!/usr/bin/env bats
# ltt.bats: tdat-to-ltt writes every fixture in t/data as an LTT trace
# directory (ltt(5)): the XML is valid against schemas/ (xmllint), the
# tracefiles are whole blocks framed by block_start, block_end and the
# trailer, --lttv follows the rules LTTV's reader needs, and the round
# trip through tdat-cat reports as the original does in trace-cmd;
# damaged directories give located findings in tdat-verify.
# Run by t/run-tests (make check); TDAT_BIN names the tools' folder.

bats_require_minimum_version 1.5.0

load helpers

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

# hex FILE OFFSET COUNT: COUNT bytes of FILE at OFFSET as hex digits.
hex() {
	od -An -tx1 -v -j "$2" -N "$3" "$1" | tr -d ' \n'
}

@test "--lttv on a big-endian trace: 2005 keeps its order with a little-endian trailer; 2003 is all little-endian" {
	for v in 2005 2003; do
		"$TOLTT" --lttv=$v --block-size 4096 "$D/s390x-v7-zstd-sched.dat" "$T/s$v"
	done
	grep -q 'endian="BIG_ENDIAN"' "$T/s2005/info/system.xml"
	grep -q 'endian="LITTLE_ENDIAN"' "$T/s2003/info/system.xml"
	grep -q 'endian="big"' "$T/s2003/info/tracedat.xml"
	# block_start (id 17, t 0, 19 s 345775684 ns, cycles 0, block 0),
	# then id 85 at t 0: hrtimer_expire_entry (ftrace id 296, flags 9,
	# pid 449, hrtimer 0x7f77efe8, now 19345607541: trace-cmd -R's first
	# event of CPU 0)
	[ "$(hex "$T/s2005/cpu/0" 0 56)" = "0011""00000000""00000013""149c1e44$(
	    )""0000000000000000""00000000""0055""00000000""0128""09""00""000001c1$(
	    )""000000007f77efe8""0000000481168b75" ]
	[ "$(hex "$T/s2003/cpu/0" 0 56)" = "1100""00000000""13000000""441e9c14$(
	    )""0000000000000000""00000000""5500""00000000""2801""09""00""c1010000$(
	    )""e8ef777f00000000""758b168104000000" ]
	# block_end at 4050: the trailer says so little-endian in both, as
	# the unused bytes (2005: 4096 - 4 - 4050 - 26 = 16) or as the
	# distance from the end of the block (2003: 4096 - 4050 = 46)
	[ "$(hex "$T/s2005/cpu/0" 4050 2)" = 0012 ]
	[ "$(hex "$T/s2005/cpu/0" 4092 4)" = 10000000 ]
	[ "$(hex "$T/s2003/cpu/0" 4050 2)" = 1200 ]
	[ "$(hex "$T/s2003/cpu/0" 4092 4)" = 2e000000 ]
	"$B/tdat-verify" "$T/s2005"
	"$B/tdat-verify" "$T/s2003"
}

@test "--lttv: a struct with a sequence and no string ends with an empty string, in eventdefs and payload" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
	# The fixture's first record, a 60-byte sched_switch, made a bprint
	# (ftrace id 6): ip, fmt, then u32 buf[] of 11 words to its end.
	python3 - "$D/labsisop-qemu-trace.dat" "$T/bp.dat" >"$T/rec" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
at = 1122304 + 12          # CPU 0's first page (tdat-dump --flyrecord), after its header
while d[at] & 31 == 30:    # time extends
    at += 8
n = (d[at] & 31) * 4
assert n == 60
d[at + 4:at + 6] = struct.pack('<H', 6)
open(sys.argv[2], 'wb').write(d)
print(d[at + 4:at + 4 + n].hex())
PY
	r=$(cat "$T/rec")
	tc_report -N -t "$T/bp.dat" >"$T/want"
	grep -q ' bprint: ' "$T/want"
	for v in 2005 2003; do
		o=$T/bp$v
		"$TOLTT" --lttv=$v --block-size 4096 "$T/bp.dat" "$o"
		awk '/<event name="ftrace:bprint"/,/<\/event>/' "$o/eventdefs/tdat.xml" |
		    tr -d ' \n' | grep -q '<sequencelengthsize=4><uintsize=4/></sequence></field><fieldname="__lttv_end"><description>[^<]*</description><string/></field></struct></event>$'
		# the 41st event of the file: id 40
		[ "$(grep -o '<event name="[^"]*"' "$o/eventdefs/tdat.xml" |
		    grep -n -x '<event name="ftrace:bprint"' | cut -d: -f1)" = 41 ]
		# id 40, t 0, the 16 fixed bytes, the count 11, the 44 bytes of
		# buf, and the empty string
		[ "$(hex "$o/cpu/0" 26 71)" = "2800""00000000""${r:0:32}""0b000000""${r:32}""00" ] ||
		    { hex "$o/cpu/0" 26 71; echo; echo "$r"; return 1; }
		"$B/tdat-verify" "$o"
		"$B/tdat-cat" -o "$T/bp$v.dat" "$o"
		tc_report -N -t "$T/bp$v.dat" >"$T/got"
		cmp "$T/want" "$T/got"
	done
}

@test "--lttv: instance CPUs are tracefiles of cpu/ numbered past the machine's, mapped in info/tracedat.xml" {
	command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
	"$TOLTT" --lttv=2005 --block-size 4096 "$D/x86_64-v7-none-instances.dat" "$T/i"
	[ "$(ls "$T/i/cpu" | sort -n | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 8 9 10 11 " ]
	[ -z "$(ls -A "$T/i/info/buffers")" ]
	grep -q 'cpu="4"' "$T/i/info/system.xml"
	# buffer 1 (bar) CPU c is cpu/4+c, buffer 2 (foo) CPU c is cpu/8+c
	grep -A5 '<buffer name="bar"' "$T/i/info/tracedat.xml" | grep -q '<cpu id="0" .*tracefile="cpu/4"/>'
	grep -A5 '<buffer name="foo"' "$T/i/info/tracedat.xml" | grep -q '<cpu id="3" .*tracefile="cpu/11"/>'
	! grep -A5 '<buffer name=""' "$T/i/info/tracedat.xml" | grep -q tracefile
	if command -v xmllint >/dev/null; then
		xmllint --noout --schema "$S/ltt-tracedat.xsd" "$T/i/info/tracedat.xml"
	fi
	# cpu/8 starts with foo's first event on CPU 0: 60.199557766 in
	# trace-cmd, block_start's 60 s and 0x0be50286 ns
	trace-cmd report -N -t "$D/x86_64-v7-none-instances.dat" |
	    grep -m1 '^foo: .*\[000\]' | grep -q ' 60\.199557766: '
	[ "$(hex "$T/i/cpu/8" 6 8)" = "3c000000""8602e50b" ]
	"$B/tdat-verify" "$T/i"
	"$B/tdat-cat" -o "$T/i.dat" "$T/i"
	[ "$(trace-cmd report -N -t "$T/i.dat" | grep -c '^foo: ')" = \
	    "$(trace-cmd report -N -t "$D/x86_64-v7-none-instances.dat" | grep -c '^foo: ')" ]
}

@test "lost events: a lost_events event before the record, given back as EVENTS DROPPED" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
	# CPU 0's second page marked as missing events (commit bit 31),
	# without a count
	python3 - "$D/labsisop-qemu-trace.dat" "$T/lost.dat" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
at = 1122304 + 4096 + 8
c = struct.unpack('<I', d[at:at + 4])[0]
d[at:at + 4] = struct.pack('<I', c | 1 << 31)
open(sys.argv[2], 'wb').write(d)
PY
	tc_report -N -t "$T/lost.dat" >"$T/want"
	[ "$(grep -c '^CPU:0 \[EVENTS DROPPED\]$' "$T/want")" = 1 ]
	for v in "" --lttv=2005 --lttv=2003; do
		rm -rf "$T/l" "$T/l.dat"
		"$TOLTT" $v --block-size 4096 "$T/lost.dat" "$T/l"
		# one lost_events (id 22) with count -1, then the record's
		# sched_switch (id 41) at the same time
		python3 - "$T/l/cpu/0" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
hits = [i for i in range(0, len(d) - 20)
        if d[i:i + 2] == b'\x16\x00' and d[i + 6:i + 14] == b'\xff' * 8]
assert len(hits) == 1, hits
i = hits[0]
assert d[i + 14:i + 16] == b'\x29\x00', d[i + 14:i + 16]
assert d[i + 2:i + 6] == d[i + 16:i + 20]
PY
		"$B/tdat-cat" -o "$T/l.dat" "$T/l"
		tc_report -N -t "$T/l.dat" >"$T/got"
		cmp "$T/want" "$T/got"
	done
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

# tdat_open() takes an LTT directory as it takes a trace.dat (lib/read/source.c):
# every tool that reads events reads one, its pages streamed.
@test "every tool reads an LTT directory: dump --records -N/-R, to-json, to-ltt" {
	for n in x86_64-v7-none-instances s390x-v7-zstd-sched; do
		rm -rf "$T/d" "$T/d2"
		"$TOLTT" --lttv=2005 "$D/$n.dat" "$T/d"
		for m in N R; do
			run --separate-stderr "$B/tdat-dump" --records --trace-cmd=3.1 -$m -t "$T/d"
			[ "$status" -eq 0 ] || { echo "$n -$m: $stderr"; return 1; }
			printf '%s\n' "$output" >"$T/got"
			expected "$n" report-$m >"$T/want"
			cmp -s "$T/want" "$T/got" ||
			    { echo "$n -$m:"; diff "$T/want" "$T/got" | head; return 1; }
		done
		"$B/tdat-to-json" "$D/$n.dat" >"$T/want.json"
		"$B/tdat-to-json" "$T/d" >"$T/got.json"
		cmp "$T/want.json" "$T/got.json"
		"$TOLTT" "$T/d" "$T/d2"
		"$B/tdat-dump" --records --trace-cmd=3.1 -N -t "$T/d2" >"$T/got"
		expected "$n" report-N | cmp - "$T/got"
	done
	run --separate-stderr "$B/tdat-cat" --salvage -o "$T/s.dat" "$T/d"
	[ "$status" -eq 2 ] || [ "$status" -eq 1 ]
	[[ "$stderr" == *"LTT directory cannot be salvaged"* ]]
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

# The texts kept in info/ (kallsyms, printk formats, cmdlines) are held
# to the kernel's shapes, as in a trace.dat (lib/event/texts.c).
@test "tdat-verify: a damaged line of info/kallsyms or info/cmdlines is located" {
	"$TOLTT" "$D/labsisop-qemu-trace.dat" "$T/v"
	run -0 "$B/tdat-verify" "$T/v"
	# the first byte of kallsyms's 31st line, of cmdlines's 2nd
	local ko co
	read -r ko co <<<"$(python3 - "$T/v/info/kallsyms" 30 "$T/v/info/cmdlines" 1 <<'PY'
import sys
for path, n in zip(sys.argv[1::2], sys.argv[2::2]):
    d = bytearray(open(path, "rb").read())
    at = 0
    for i in range(int(n)):
        at = d.index(b"\n", at) + 1
    d[at] ^= 0x80
    open(path, "wb").write(d)
    print(at, end=" ")
PY
)"
	run -1 "$B/tdat-verify" -k "$T/v"
	echo "$output"
	[[ "${lines[0]}" == "$T/v/info/kallsyms: offset 0x$(printf %x "$ko"): error: line 31 is damaged (no address): \"\\x"* ]]
	[[ "${lines[1]}" == "$T/v/info/cmdlines: offset 0x$(printf %x "$co"): error: line 2 is damaged (no pid): \"\\x"* ]]
	[[ "${lines[2]}" == "$T/v: damaged: LTT directory, "*", 2 errors, "* ]]
}

# tdat-to-ltt copied a damaged line into info/kallsyms as it was, into
# a directory tdat-verify refuses: the input is refused in one line, at
# the line's offset, and no directory is left (tdat-cat --salvage drops
# such lines).
@test "a trace whose kallsyms hold a damaged line is refused" {
	"$B/tdat-cat" --file-version 6 "$D/x86_64-default-sched.dat" -o "$T/v6.dat"
	local at
	at=$(python3 - "$T/v6.dat" <<'PY'
import sys
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
at = d.index(b"0000000000000000 A fixed_percpu_data\n")
for i in range(30):
    at = d.index(b"\n", at) + 1
d[at] ^= 0x80
open(p, "wb").write(d)
print(at)
PY
)
	run -1 "$TOLTT" "$T/v6.dat" "$T/l"
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "tdat-to-ltt: $T/v6.dat: offset 0x$(printf %x "$at"): KALLSYMS: line 31 is damaged (no address): \"\\x"* ]]
	[ ! -e "$T/l" ]
	[ -z "$(ls -A "$T" | grep '^\.')" ]
	"$B/tdat-cat" --salvage "$T/v6.dat" -o "$T/s.dat" 2>/dev/null || true
	"$TOLTT" "$T/s.dat" "$T/l"
	"$B/tdat-verify" -q "$T/l"
}

# refused_then_salvaged GLOB: tdat-to-ltt of the damaged $T/v6.dat fails
# in one line matching GLOB, leaving no directory or temporary; its
# salvaged copy converts, and that directory verifies.
refused_then_salvaged() {
	run -1 "$TOLTT" --no-progress "$T/v6.dat" "$T/l"
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == $1 ]]
	[ ! -e "$T/l" ]
	[ -z "$(ls -A "$T" | grep '^\.')" ]
	run -1 "$B/tdat-cat" --salvage "$T/v6.dat" -o "$T/s.dat"
	"$TOLTT" --no-progress "$T/s.dat" "$T/l"
	"$B/tdat-verify" -q "$T/l"
}

# A CPU's time that goes back (a page time stamp before the last record:
# tdat-verify calls the trace.dat damaged) was written into a tracefile
# whose time goes back, which tdat-verify refuses in a directory: refused
# (t/fuzz/sweep over fuzz-write's corpus found it).
@test "a trace whose CPU time goes back is refused" {
	"$B/tdat-cat" --file-version 6 "$D/x86_64-default-sched.dat" -o "$T/v6.dat"
	python3 - "$T/v6.dat" <<'PY'
import struct, sys
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
at = d.index(b"flyrecord\0") + 10
off = struct.unpack_from("<Q", d, at)[0]	# CPU 0's first page
ts = struct.unpack_from("<Q", d, off)[0]
struct.pack_into("<Q", d, off + 4096, ts - 1000000000)
open(p, "wb").write(d)
PY
	run -1 "$B/tdat-verify" -q "$T/v6.dat"
	refused_then_salvaged "tdat-to-ltt: $T/v6.dat: offset 0x*: CPU 0: record time * is before the CPU's last record (*): the input is damaged (tdat-cat --salvage drops such pages)"
}

# A record its format does not fit (here a sched_process_exec whose
# filename's __data_loc says 200 bytes, past its record) was encoded with
# the string cut at the record's end: a directory that verifies, holding
# what the trace never said.  tdat-cat refuses it; tdat-to-ltt too now.
@test "a record its event's format does not fit is refused" {
	"$B/tdat-cat" --file-version 6 "$D/x86_64-default-sched.dat" -o "$T/v6.dat"
	local at
	at=$(python3 - "$T/v6.dat" "$("$B/tdat-dump" --events "$T/v6.dat" |
	    sed -n '/^name: sched_process_exec$/{n;s/^ID: //p}')" <<'PY'
import struct, sys
p, ev = sys.argv[1], int(sys.argv[2])
d = bytearray(open(p, "rb").read())
at = d.index(b"flyrecord\0")
while True:	# the first record of the event whose filename is a path
	at = d.index(struct.pack("<H", ev), at + 1)
	loc = struct.unpack_from("<I", d, at + 8)[0]
	o, n = loc & 0xffff, loc >> 16
	if 16 <= o < 64 and 1 < n < 64 and d[at + o] == ord("/") and d[at + o + n - 1] == 0:
		break
struct.pack_into("<I", d, at + 8, 200 << 16 | o)
open(p, "wb").write(d)
print(at)
PY
)
	at=$((at - 4))	# its header: a record of 36 bytes has one word
	run -1 "$B/tdat-verify" -q "$T/v6.dat"
	run -1 "$B/tdat-cat" "$T/v6.dat" -o "$T/c.dat"
	[[ "${lines[0]}" == *"offset 0x$(printf %x "$at"): a __data_loc field lies outside its record" ]]
	refused_then_salvaged "tdat-to-ltt: $T/v6.dat: offset 0x$(printf %x "$at"): CPU 0: a __data_loc field lies outside its record: the input is damaged (tdat-cat --salvage drops such pages)"
}

# A buffer's page size in info/tracedat.xml is held to what the file's
# is (1 KiB to 1 MiB): tdat-cat -e of a directory whose buffer said
# 4000000000 wrote a copy of 4 GB (one page of that size a CPU).
@test "a buffer page size of 4000000000 in tracedat.xml is refused in one line" {
	"$TOLTT" "$D/x86_64-default-sched.dat" "$T/d"
	sed -i 's/<buffer name="" clock="local" page_size="4096"/<buffer name="" clock="local" page_size="4000000000"/' \
	    "$T/d/info/tracedat.xml"
	grep -q 'page_size="4000000000"' "$T/d/info/tracedat.xml"
	run "$B/tdat-cat" -e 'sched*' -o "$T/out.dat" "$T/d"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "tdat-cat: $T/d: $T/d/info/tracedat.xml: buffer \"\": page size 4000000000" ]
	[ ! -e "$T/out.dat" ]
}

# libxml2 printed its own lines on stderr ("I/O error : Is a directory",
# "encoding error : input conversion failed") beside the tools' one line:
# tdat-verify three of them for a directory named like an eventdefs file.
@test "an eventdefs entry that is a directory gets one line, not libxml2's" {
	"$TOLTT" "$D/x86_64-default-sched.dat" "$T/d"
	rm "$T/d/eventdefs/builtin.xml"
	mkdir "$T/d/eventdefs/builtin.xml"
	run --separate-stderr "$B/tdat-verify" "$T/d"
	echo "$output"; echo "stderr: $stderr"
	[ "$status" -eq 1 ]
	[ -z "$stderr" ]
	[ "${lines[0]}" = "$T/d/eventdefs/builtin.xml: error: not a regular file" ]
	# once (the directory's open failing on it too made a second)
	[ "${lines[1]}" = "$T/d: damaged: LTT directory, 0 blocks, 0 events, 1 error, 0 warnings" ]
	# a second file alike: two findings, one shown ("repeated" before)
	rm "$T/d/eventdefs/irq.xml"
	mkdir "$T/d/eventdefs/irq.xml"
	run "$B/tdat-verify" "$T/d"
	[ "${lines[1]}" = "$T/d: damaged: LTT directory, 0 blocks, 0 events, 2 errors, 0 warnings (1 not shown; -k shows every finding)" ]
	run "$B/tdat-verify" -k "$T/d"
	echo "$output"
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[1]}" = "$T/d/eventdefs/irq.xml: error: not a regular file" ]
	run --separate-stderr "$B/tdat-dump" --records "$T/d"
	echo "$output"; echo "stderr: $stderr"
	[ "$status" -eq 1 ]
	[ "$stderr" = "tdat-dump: $T/d: $T/d/eventdefs/builtin.xml: not a regular file" ]
}

# An XML file's tree takes some 13 times its size (310 MB of memory for
# tdat-verify of a 23 MB eventdefs file): every XML file of a directory
# is held to 16 MiB, and a larger one refused in one line before it is
# read (it was read up to 256 MiB before).
@test "an XML file over 16 MiB is refused before it is read" {
	local f
	"$TOLTT" "$D/x86_64-default-sched.dat" "$T/d"
	for f in eventdefs/sched.xml info/system.xml info/tracedat.xml; do
		rm -rf "$T/e"
		cp -r "$T/d" "$T/e"
		truncate -s $((16 * 1048576 + 1)) "$T/e/$f"
		run --separate-stderr "$B/tdat-verify" "$T/e"
		echo "$output"; echo "stderr: $stderr"
		[ "$status" -eq 1 ]
		[ -z "$stderr" ]
		[[ "$output" == *"$T/e/$f: error: 16777217 bytes: an XML file is at most 16777216"* ]]
		run --separate-stderr "$B/tdat-dump" --records "$T/e"
		echo "stderr: $stderr"
		[ "$status" -eq 1 ]
		[ "$stderr" = "tdat-dump: $T/e: $T/e/$f: 16777217 bytes: an XML file is at most 16777216" ]
	done
	# 16 MiB is read (libxml2 stops at the padding's first NUL)
	truncate -s $((16 * 1048576)) "$T/e/info/tracedat.xml"
	run --separate-stderr "$B/tdat-dump" --records "$T/e"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

# One eventdefs file that is not well-formed among XML ones is a damaged
# file: tdat-verify named it, not the directory taken for LTTV's dialect
# (whose first finding blamed info/system.xml), and libxml2 printed its
# encoding errors on stderr.  A file that declares itself XML is not
# LTTV's (whose reader refuses the declaration): the readers refuse it in
# one line, where they read what libxml2's HTML parser made of its damage.
@test "one eventdefs file that is not XML is named, without libxml2's lines" {
	"$TOLTT" "$D/x86_64-default-sched.dat" "$T/d"
	sed -i '1s/encoding="UTF-8"/encoding="EUC-JP"/; s/tasklet_exit/tasklet\xff\xfe\x80exit/' \
	    "$T/d/eventdefs/irq.xml"
	run --separate-stderr "$B/tdat-verify" -k "$T/d"
	echo "$output"; echo "stderr: $stderr"
	[ "$status" -eq 1 ]
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == "$T/d/eventdefs/irq.xml: error: not well-formed XML: line "* ]]
	run --separate-stderr "$B/tdat-dump" --records "$T/d"
	echo "stderr: $stderr"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == "tdat-dump: $T/d: $T/d/eventdefs/irq.xml: not well-formed XML: line "* ]]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
}

# A system.xml that is not well-formed was found twice: by its schema
# check with libxml2's line, and by the directory's open as "not
# well-formed XML" alone, which the check for a repeat did not match.
@test "a system.xml that is not XML is found once, with its line" {
	"$TOLTT" "$D/x86_64-default-sched.dat" "$T/d"
	sed -i 's/<system /<system" /' "$T/d/info/system.xml"
	run --separate-stderr "$B/tdat-verify" -k "$T/d"
	echo "$output"
	[ "$status" -eq 1 ]
	[ -z "$stderr" ]
	[ "$(grep -c 'system.xml: error' <<<"$output")" -eq 1 ]
	[[ "${lines[0]}" == "$T/d/info/system.xml: error: not well-formed XML: line 2: "* ]]
}

# A directory as LTT wrote it, without tdat's info/ (its formats made
# from the eventdefs), was a v7 file of no sections: tdat-dump showed no
# format (--systems, --events and --all printed none of them) and its
# compression as "(null)", printf's word for a null string, which a
# tracedat.xml without compression="..." gave too.
@test "a directory without tdat's originals dumps its formats as a v6 file" {
	"$TOLTT" --lttv "$D/x86_64-default-sched.dat" "$T/d"
	find "$T/d/info" -mindepth 1 ! -name system.xml -exec rm -rf {} +
	run --separate-stderr "$B/tdat-dump" "$T/d"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *"(null)"* ]]
	[ "${lines[1]}" = "version:      6" ]
	[ "$("$B/tdat-dump" --systems "$T/d")" = $'\t[Events format, 1 systems]\n\t\ttdat 65 [system, events]' ]
	[ "$("$B/tdat-dump" --events "$T/d" | grep -c '^name: ')" -eq 65 ]
	"$B/tdat-dump" --all "$T/d" | grep -q '^name: sched_switch$'
	"$TOLTT" "$D/x86_64-default-sched.dat" "$T/e"
	sed -i 's/ compression="[^"]*"//' "$T/e/info/tracedat.xml"
	run "$B/tdat-dump" "$T/e"
	[ "$status" -eq 0 ]
	[ "${lines[5]}" = "compression:  none " ]
	run "$B/tdat-dump" --all "$T/e"
	[[ "$output" != *"(null)"* ]]
}

# Two event formats of one name in a system (a damaged trace; here an
# LTTV eventdefs file naming irq:irq_handler_entry twice) made eventdefs
# that name an event twice, which tdat-verify refused (the schema's
# unique event names); LTTV's dialect was not checked for it.
@test "tdat-to-ltt refuses two events of one name; tdat-verify finds them" {
	"$TOLTT" --lttv "$D/hebel23-driver-trace.dat" "$T/d"
	find "$T/d/info" -mindepth 1 ! -name system.xml -exec rm -rf {} +
	sed -i 's/name="irq:irq_handler_exit"/name="irq:irq_handler_entry"/' \
	    "$T/d/eventdefs/tdat.xml"
	run "$B/tdat-verify" "$T/d"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "$T/d/eventdefs: error: facility tdat names two events irq:irq_handler_entry" ]
	mkdir "$T/w"
	cd "$T/w"
	for opt in --lttv=2005 --block-size=4096; do
		run --separate-stderr "$TOLTT" --no-progress $opt ../d o
		echo "$stderr"
		[ "$status" -eq 1 ]
		[ -z "$(ls -A)" ]
	done
	[ "$stderr" = 'tdat-to-ltt: o: facility "tdat" would name two events "irq_handler_entry"' ]
}

# A buffer whose page size is not the file's (a v7 header saying 8192,
# its BUFFER options 4096): the directory's pages were built at the
# file's size and read at the buffer's ("page commit 8132 exceeds the
# page"), so neither tdat-dump nor tdat-cat read the directory back.
@test "a buffer page size unlike the file's reads back from the directory" {
	python3 - "$D/x86_64-v7-none-instances.dat" "$T/in.dat" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
assert d[10:14] == b'7\0\0\x08' and d[14:18] == struct.pack('<I', 4096)
d[14:18] = struct.pack('<I', 8192)
open(sys.argv[2], 'wb').write(d)
PY
	"$TOLTT" "$T/in.dat" "$T/d"
	grep -q '<tracedat .*page_size="8192"' "$T/d/info/tracedat.xml"
	grep -q '<buffer name="" .*page_size="4096"' "$T/d/info/tracedat.xml"
	"$B/tdat-dump" --records -N -t "$T/in.dat" >"$T/want"
	[ "$(wc -l <"$T/want")" -eq 19055 ]
	"$B/tdat-dump" --records -N -t "$T/d" >"$T/got"
	cmp "$T/want" "$T/got"
	"$B/tdat-cat" -o "$T/back.dat" "$T/d"
	run "$B/tdat-verify" "$T/back.dat"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 185 pages, 19054 records, 0 errors"* ]]
	"$B/tdat-dump" --records -N -t "$T/back.dat" >"$T/got"
	cmp "$T/want" "$T/got"
}

# tdat-verify's summary of a directory counted nothing ("LTT directory,
# 0 pages, 0 records"): it counts the blocks of its tracefiles and their
# events now, pages and records in --json.
@test "tdat-verify counts a directory's blocks and events" {
	local bytes n recs ev
	"$TOLTT" --block-size 4096 "$D/labsisop-qemu-trace.dat" "$T/v"
	bytes=$(find "$T/v/cpu" "$T/v/control" -type f -exec cat {} + | wc -c)
	[ -d "$T/v/info/buffers" ] && bytes=$((bytes + $(find "$T/v/info/buffers" -type f -exec cat {} + | wc -c)))
	[ $((bytes % 4096)) -eq 0 ]
	n=$((bytes / 4096))
	recs=$("$B/tdat-dump" --records "$D/labsisop-qemu-trace.dat" | grep -c '^ ')
	run "$B/tdat-verify" "$T/v"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ ": ok: LTT directory, $n blocks, "([0-9]+)" events, 0 errors, 0 warnings"$ ]]
	ev=${BASH_REMATCH[1]}
	[ "$ev" -gt "$recs" ]
	run "$B/tdat-verify" --json "$T/v"
	[[ "$output" == *"\"pages\":$n,\"records\":$ev,"* ]]
}

# libxml2 inflated a gzip or xz XML file whatever it held: an eventdefs
# file of 200 KB of gzip, 50 M empty elements, took 6.5 GB and 25 s in
# tdat-verify.  Compressed XML files are refused in one line.
@test "a gzip or xz XML file is refused, not inflated" {
	local z
	command -v xz >/dev/null || skip "xz is not installed"
	"$TOLTT" "$D/x86_64-default-sched.dat" "$T/d"
	for z in gzip xz; do
		rm -rf "$T/e"
		cp -r "$T/d" "$T/e"
		$z -c "$T/d/eventdefs/sched.xml" >"$T/e/eventdefs/sched.xml"
		run --separate-stderr "$B/tdat-verify" "$T/e"
		echo "$output"; echo "stderr: $stderr"
		[ "$status" -eq 1 ]
		[ -z "$stderr" ]
		[ "${lines[0]}" = "$T/e/eventdefs/sched.xml: error: $z data, not XML" ]
		run --separate-stderr "$B/tdat-dump" --records "$T/e"
		[ "$status" -eq 1 ]
		[ "$stderr" = "tdat-dump: $T/e: $T/e/eventdefs/sched.xml: $z data, not XML" ]
	done
}

# sysname_v6 NAME OUT: x86_64-default-sched.dat as a v6 file whose event
# system "sched" is called NAME (the bytes after it move; the pages are
# not reached).
sysname_v6() {
	"$B/tdat-cat" --file-version 6 -o "$T/v6.dat" "$D/x86_64-default-sched.dat"
	python3 - "$T/v6.dat" "$2" "$1" <<'PY'
import os, sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.find(b'\0sched\0')
assert i > 0
d[i + 1:i + 6] = os.fsencode(sys.argv[3])
open(sys.argv[2], 'wb').write(d)
PY
}

# An event system's name from the trace named a file: "../../x" climbed
# out of the directory (tdat-to-ltt wrote X.xml where the name pointed
# before it refused the name, too late), and a control byte made a file
# name and a message of two lines.
@test "tdat-to-ltt refuses a system name that is not a file name" {
	local name shown
	mkdir -p "$T/a/b/c"
	cd "$T/a/b/c"
	# the last: not UTF-8, which the XML must be ("not well-formed")
	for name in "../../../escape" "$(printf 'sc\nhd')" "$(printf 'sc\377hd')"; do
		shown=$(printf '%s' "$name" | LC_ALL=C tr '\n\377' '??')
		sysname_v6 "$name" "$T/in.dat"
		run --separate-stderr "$TOLTT" --no-progress "$T/in.dat" out
		echo "$stderr"
		[ "$status" -eq 1 ]
		[ "$stderr" = "tdat-to-ltt: out: event system name \"$shown\" cannot be a file name" ]
		[ -z "$(ls -A "$T/a/b/c")" ]
	done
	[ ! -e "$T/escape.xml" ] && [ ! -e "$T/a/escape.xml" ]
}

# A file that cannot be written whole (here: past the file size limit,
# as on a full file system) gave libxml2's two lines ("I/O error : File
# too large", "I/O error : write error") before tdat-to-ltt's own.
@test "tdat-to-ltt: an XML file that cannot be written is one line" {
	mkdir "$T/o"
	run --separate-stderr sh -c 'trap "" XFSZ; ulimit -f 4; exec "$0" --no-progress "$1" "$2"' \
	    "$TOLTT" "$D/x86_64-default-sched.dat" "$T/o/out"
	echo "$stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" =~ ^"tdat-to-ltt: $T/o/out: eventdefs/"[a-z_]+".xml: cannot write"$ ]]
	[ -z "$(ls -A "$T/o")" ]
}

# A CPU whose records are all of event types the trace has no format for
# (here every id moved: 3NN -> 9NN, 1NN -> 8NN) got a tracefile of no
# block, which LTTV cannot open (tdat-verify: "empty tracefile").
@test "tdat-to-ltt makes no tracefile for records it skips" {
	local d
	"$B/tdat-cat" --file-version 6 -o "$T/v6.dat" "$D/x86_64-default-sched.dat"
	python3 - "$T/v6.dat" "$T/in.dat" <<'PY'
import re, sys
d = open(sys.argv[1], 'rb').read()
sub = {b'3': b'9', b'1': b'8'}
d = re.sub(rb'\nID: ([13])(\d\d)\n', lambda m: b'\nID: ' + sub[m.group(1)] + m.group(2) + b'\n', d)
open(sys.argv[2], 'wb').write(d)
PY
	for d in --lttv=2003 --lttv=2005 --lttv=xml; do
		rm -rf "$T/o"
		if [ $d = --lttv=xml ]; then
			run --separate-stderr "$TOLTT" --no-progress "$T/in.dat" "$T/o"
		else
			run --separate-stderr "$TOLTT" --no-progress $d "$T/in.dat" "$T/o"
		fi
		echo "$stderr"
		[ "$status" -eq 0 ]
		[[ "$stderr" == *": 24838 records of unknown event types skipped" ]]
		[ -z "$(find "$T/o/cpu" -type f -empty)" ]
		run "$B/tdat-verify" "$T/o"
		echo "$output"
		[ "$status" -eq 0 ]
	done
}

@test "trace-cmd 3.4's BTF and modules sections go to info/btf and info/modules, and come back" {
	local F=$D/tc34/x86_64-tc34-func-args.dat
	local L=$D/tc34/x86_64-tc34-lastboot-warm.dat t=$BATS_TEST_TMPDIR
	run -0 "$B/tdat-to-ltt" "$F" "$t/fa.ltt"
	[ -s "$t/fa.ltt/info/btf" ]
	# the arguments print from the BTF, as from the trace.dat
	"$B/tdat-dump" --records -t "$t/fa.ltt" |
	    diff "$D/expected/tc34/x86_64-tc34-func-args.tc34-report.txt" -
	run -0 "$B/tdat-to-ltt" "$L" "$t/lw.ltt"
	"$B/tdat-dump" --modules "$L" | tail -n +2 >"$t/m"
	"$B/tdat-cat" -o "$t/back.dat" "$t/lw.ltt"
	"$B/tdat-dump" --modules "$t/back.dat" | tail -n +2 | diff "$t/m" -
	"$B/tdat-verify" "$t/back.dat"
	# their options, offsets in the trace.dat, are not kept
	run -0 "$B/tdat-dump" --options "$t/lw.ltt"
	[[ $output == *'[Option LAST_BOOT_INFO, 242 bytes]'* ]]
	[[ $output != *MODULES_FILE* && $output != *' 23 8'* ]]
}
