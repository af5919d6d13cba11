#!/usr/bin/env bats
# salvage.bats: tdat-cat --salvage on damaged copies of the fixtures.
# Each copy is cut or damaged at a known place; t/salvage-check.py works
# out from the bytes of the intact file which pages must survive, and
# checks that trace-cmd report -N -t of the output prints exactly the
# events of those pages of an intact raw copy, in its order.  Every
# output must pass tdat-verify and be read by trace-cmd; the exit status
# is 1 when anything was dropped, 0 (and the output equals a plain copy)
# when nothing was.  Run by t/run-tests (make check).

bats_require_minimum_version 1.5.0

setup() {
	D=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
	B=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	export TDAT_BIN=$B
	CAT=$B/tdat-cat
	VERIFY=$B/tdat-verify
	CHECK=$BATS_TEST_DIRNAME/salvage-check.py
	T=$BATS_TEST_TMPDIR
	Z=$D/x86_64-default-sched.dat		# v7 zstd, 4 CPUs
	command -v trace-cmd >/dev/null 2>&1 || skip "trace-cmd is not installed"
	# The same pages raw, as v6: the reference for every check.
	"$CAT" --file-version 6 "$Z" -o "$T/v6.dat"
}

# salvage IN OUT: run --salvage; status must be 1; the output verifies.
salvage() {
	run -1 "$CAT" --salvage "$1" -o "$2"
	printf '%s\n' "$output" >"$2.err"
	[ -s "$2" ]
	"$VERIFY" -q "$2"
}

# check_cut FILE CUT [OPTIONS]: cut FILE at CUT bytes, salvage it and
# check the events against the pages whole before the cut.
check_cut() {
	local f=$1 cut=$2 spec
	shift 2
	head -c "$cut" "$f" >"$T/cut.dat"
	salvage "$T/cut.dat" "$T/out.dat"
	spec=$("$CHECK" keep "$f" "$cut")
	run "$CHECK" check "$T/v6.dat" "$T/out.dat" "$spec"
	echo "# cut $(basename "$f") at $cut: ${output//$'\n'/; }" >&3
	[ "$status" -eq 0 ]
}

@test "an intact input: exit 0, the output equals a plain copy" {
	local f
	for f in "$D"/*.dat "$T/v6.dat"; do
		"$CAT" "$f" -o "$T/plain.dat"
		run "$CAT" --salvage "$f" -o "$T/salv.dat"
		[ "$status" -eq 0 ] || { echo "$f: $output"; false; }
		[ -z "$output" ]
		cmp "$T/plain.dat" "$T/salv.dat"
		"$CAT" --file-version 6 "$f" -o "$T/plain6.dat"
		"$CAT" --salvage --file-version 6 "$f" -o "$T/salv6.dat"
		cmp "$T/plain6.dat" "$T/salv6.dat"
	done
}

@test "v6 cut inside each CPU's pages: the whole pages before the cut" {
	# CPU data at 4083712 (59 pages), 4325376 (62), 4579328 (59),
	# 4820992 (57): cuts at, just after and inside pages of each.
	local cut
	for cut in 4083712 4083800 4100000 4325376 4400000 4401234 4579328 \
	    4700000 4820992 4900000 5054000 5054463; do
		check_cut "$T/v6.dat" "$cut"
	done
	grep -q 'offset 0x4d1000: buffer "" CPU 3: kept 56 pages (5894 records), dropped 1 pages' "$T/out.dat.err"
}

@test "v6 cut: one line per buffer and CPU, the damage located" {
	head -c 4400000 "$T/v6.dat" >"$T/cut.dat"
	salvage "$T/cut.dat" "$T/out.dat"
	run cat "$T/out.dat.err"
	[ "${lines[0]}" = "tdat-cat: $T/cut.dat: buffer \"\" CPU 0: kept 59 pages (6210 records), dropped 0 pages" ]
	[ "${lines[1]}" = "tdat-cat: $T/cut.dat: offset 0x432000: buffer \"\" CPU 1: kept 18 pages (1864 records), dropped 44 pages: data cut short: 180224 bytes past the end of the file" ]
	[ "${#lines[@]}" -eq 4 ]
}

@test "v7 zstd cut inside each CPU's chunks: the whole chunks before the cut" {
	# CPU data at 913408, 978944, 1044480, 1110016; the BUFFER option
	# follows the data, so a cut loses it: the chunk streams are found
	# from the section.
	local cut
	for cut in 913420 925000 978944 990000 1000000 1044480 1060000 \
	    1100000 1110016 1150000 1171300 1171500; do
		check_cut "$Z" "$cut"
	done
}

@test "v7 cut inside the last options and strings: every page kept" {
	check_cut "$Z" 1171350
	check_cut "$Z" 1171450
	grep -q 'kept 57 pages' "$T/out.dat.err"
}

@test "a cut before the first options section is refused" {
	# v7 puts its first options section after kallsyms and the rest:
	# without it there are no headers and no buffers.
	local cut
	for cut in 5 100 1000 2500 600000 911000; do
		head -c "$cut" "$Z" >"$T/cut.dat"
		run -1 "$CAT" --salvage "$T/cut.dat" -o "$T/out.dat"
		[ "${#lines[@]}" -eq 1 ]
		[ ! -e "$T/out.dat" ]
	done
	head -c 100000 "$T/v6.dat" >"$T/cut.dat"
	run -1 "$CAT" --salvage "$T/cut.dat" -o "$T/out.dat"
	[[ "$output" == *"runs past the end of the file"* ]]
}

@test "a damaged page header or record is dropped alone" {
	local spec p1=$((4325376 + 5 * 4096)) p2=$((4579328 + 7 * 4096))
	cp "$T/v6.dat" "$T/bad.dat"
	# CPU 1 page 5: a commit past the page; CPU 2 page 7: the first
	# record's header and length zeroed (a record of length 0).
	printf '\377\377\000\000' | dd of="$T/bad.dat" bs=1 seek=$((p1 + 8)) \
	    conv=notrunc 2>/dev/null
	printf '\000\000\000\000\000\000\000\000' | dd of="$T/bad.dat" bs=1 \
	    seek=$((p2 + 16)) conv=notrunc 2>/dev/null
	salvage "$T/bad.dat" "$T/out.dat"
	grep -q "offset 0x425000: buffer \"\" CPU 1: kept 61 pages .*dropped 1 pages" "$T/out.dat.err"
	grep -q "offset 0x$(printf %x $((p2 + 16))): buffer \"\" CPU 2: kept 58 pages .*dropped 1 pages" "$T/out.dat.err"
	spec=$("$CHECK" drop "$("$CHECK" keep "$T/v6.dat" 99999999)" 1:5 2:7)
	run "$CHECK" check "$T/v6.dat" "$T/out.dat" "$spec"
	echo "# flip: ${output//$'\n'/; }" >&3
	[ "$status" -eq 0 ]
}

@test "a zeroed compressed chunk loses that chunk only" {
	local spec
	# CPU 1's third chunk (pages 20-29) at 1000132: its bytes zeroed.
	python3 - "$Z" "$T/bad.dat" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
at = 978944 + 4
for i in range(3):
    cs, us = struct.unpack_from("<II", d, at)
    if i == 2:
        d[at + 8:at + 8 + cs] = bytes(cs)
    at += 8 + cs
open(sys.argv[2], "wb").write(d)
EOF
	salvage "$T/bad.dat" "$T/out.dat"
	grep -q 'offset 0xf42c4: buffer "" CPU 1: kept 52 pages (5385 records), dropped 10 pages and 1 unreadable' "$T/out.dat.err"
	spec=$("$CHECK" drop "$("$CHECK" keep "$T/v6.dat" 99999999)" \
	    1:20 1:21 1:22 1:23 1:24 1:25 1:26 1:27 1:28 1:29)
	run "$CHECK" check "$T/v6.dat" "$T/out.dat" "$spec"
	echo "# zeroed chunk: ${output//$'\n'/; }" >&3
	[ "$status" -eq 0 ]
}

# text_damage IN OUT [GAP]: three kallsyms lines, one printk format and
# one cmdline of a v6 file (or of an uncompressed v7 one: GAP 16, the
# section header between the texts) made into lines the kernel never
# writes (a top bit set on the first byte of each; the printk line's
# closing quote zeroed).  Prints the offset and line number of the first
# damaged line of each.
text_damage() {
	python3 - "$1" "$2" "${3:-0}" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
gap = int(sys.argv[3])
ks = d.index(b"0000000000000000 A fixed_percpu_data\n")
ps = ks + struct.unpack_from("<I", d, ks - 4)[0] + gap + 4
cs = ps + struct.unpack_from("<I", d, ps - 4)[0] + gap + 8
out = []
def line(start, n):
    at = start
    for i in range(n - 1):
        at = d.index(b"\n", at) + 1
    return at
for n in (401, 2000, 3000):
    at = line(ks, n)
    d[at] ^= 0x80
    if n == 401:
        out += [at, n]
at = line(ps, 3)
d[d.index(b"\n", at) - 1] = 0
out += [at, 3]
at = line(cs, 5)
d[at] ^= 0x80
out += [at, 5]
open(sys.argv[2], "wb").write(d)
print(*out)
PY
}

@test "damaged lines of kallsyms, printk formats and cmdlines" {
	local k kn p pn c cn x
	read -r k kn p pn c cn <<<"$(text_damage "$T/v6.dat" "$T/bad.dat")"
	run -1 "$VERIFY" "$T/bad.dat"
	echo "$output"
	x="$T/bad.dat: offset 0x$(printf %x "$k"): error: KALLSYMS: line $kn is damaged (no address): \"\\x"
	[[ "${lines[0]}" == "$x"*'"; 3 of '*' lines are' ]]
	x="$T/bad.dat: offset 0x$(printf %x "$p"): error: PRINTK: line $pn is damaged (no closing quote): \"0x"
	[[ "${lines[1]}" == "$x"*'\x00"' ]]
	x="$T/bad.dat: offset 0x$(printf %x "$c"): error: CMDLINES: line $cn is damaged (no pid): \"\\x"
	[[ "${lines[2]}" == "$x"* ]]
	[[ "${lines[3]}" == *": damaged: "*", 3 errors, "* ]]
	[[ "${lines[4]}" == *"would keep 237 of 237 pages (24838 records), dropping 5 damaged lines of kallsyms, printk formats or cmdlines" ]]
	# --salvage drops those lines alone and says where the first was
	salvage "$T/bad.dat" "$T/out.dat"
	cat "$T/out.dat.err"
	grep -q "offset 0x$(printf %x "$k"): dropped: KALLSYMS: line $kn is damaged (no address): \".*\"; 3 of [0-9]* lines are$" "$T/out.dat.err"
	grep -q "offset 0x$(printf %x "$p"): dropped: PRINTK: line $pn is damaged (no closing quote): \".*\"$" "$T/out.dat.err"
	grep -q "offset 0x$(printf %x "$c"): dropped: CMDLINES: line $cn is damaged (no pid): \".*\"$" "$T/out.dat.err"
	"$B/tdat-dump" --kallsyms "$T/v6.dat" | grep -v '^	' >"$T/k.in"
	"$B/tdat-dump" --kallsyms "$T/out.dat" | grep -v '^	' >"$T/k.out"
	[ "$(diff "$T/k.in" "$T/k.out" | grep -c '^<')" -eq 3 ]
	[ "$(diff "$T/k.in" "$T/k.out" | grep -c '^>')" -eq 0 ]
	for x in --printk --cmd-lines; do
		"$B/tdat-dump" $x "$T/v6.dat" | grep -v '^	' >"$T/t.in"
		"$B/tdat-dump" $x "$T/out.dat" | grep -v '^	' >"$T/t.out"
		[ "$(diff "$T/t.in" "$T/t.out" | grep -c '^<')" -eq 1 ]
		[ "$(diff "$T/t.in" "$T/t.out" | grep -c '^>')" -eq 0 ]
	done
	# every event still there; trace-cmd reads it
	[ "$(trace-cmd report -N "$T/out.dat" | wc -l)" -eq "$(trace-cmd report -N "$T/v6.dat" | wc -l)" ]
	# the same lines of a v7 file salvage to the same output
	"$CAT" --compression none "$T/v6.dat" -o "$T/v7n.dat"
	read -r k kn p pn c cn <<<"$(text_damage "$T/v7n.dat" "$T/bad7.dat" 16)"
	run -1 "$VERIFY" "$T/bad7.dat"
	[[ "${lines[0]}" == *": offset 0x$(printf %x "$k"): error: KALLSYMS: line $kn is damaged (no address): "* ]]
	[[ "${lines[2]}" == *": offset 0x$(printf %x "$c"): error: CMDLINES: line $cn is damaged (no pid): "* ]]
	salvage "$T/bad7.dat" "$T/out7.dat"
	grep -q "offset 0x$(printf %x "$p"): dropped: PRINTK: line $pn is damaged (no closing quote): \".*\"$" "$T/out7.dat.err"
	cmp "$T/out.dat" "$T/out7.dat"
}

@test "a plain copy refuses damaged lines of kallsyms, printk formats or cmdlines" {
	local k kn p pn c cn v
	# (the writer copied them as they were, into a file tdat-verify
	# refuses; a fuzz-salvage corpus input through t/fuzz/sweep)
	read -r k kn p pn c cn <<<"$(text_damage "$T/v6.dat" "$T/bad.dat")"
	for v in 6 7; do
		run -1 "$CAT" --file-version $v "$T/bad.dat" -o "$T/copy.dat"
		[ "${#lines[@]}" -eq 1 ]
		[[ "${lines[0]}" == "tdat-cat: $T/bad.dat: offset 0x$(printf %x "$k"): KALLSYMS: line $kn is damaged (no address): \"\\x"* ]]
		[ ! -e "$T/copy.dat" ]
		[ -z "$(ls -A "$T" | grep '^\.copy')" ]
	done
	# a selection's copy (the repacker) too
	run -1 "$CAT" -e 'sched:*' "$T/bad.dat" -o "$T/copy.dat"
	[[ "${lines[0]}" == *": offset 0x$(printf %x "$k"): KALLSYMS: line $kn is damaged"* ]]
	[ ! -e "$T/copy.dat" ]
	# an LTT directory's info/cmdlines: the line, no offset
	"$B/tdat-to-ltt" "$T/v6.dat" "$T/ltt"
	printf 'x1 sh\n' >>"$T/ltt/info/cmdlines"
	run -1 "$CAT" "$T/ltt" -o "$T/copy.dat"
	[[ "${lines[0]}" == "tdat-cat: "*"CMDLINES: line "*" is damaged (no pid): \"x1 sh\"" ]]
	[ ! -e "$T/copy.dat" ]
}

# time_back IN OUT: OUT is v6 IN whose CPU 0 second page's time stamp is
# a second before its first's; prints that page's offset.
time_back() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
at = d.index(b"flyrecord\0") + 10
off = struct.unpack_from("<Q", d, at)[0]	# CPU 0's first page
ts = struct.unpack_from("<Q", d, off)[0]
struct.pack_into("<Q", d, off + 4096, ts - 1000000000)
open(sys.argv[2], "wb").write(d)
print(off + 4096)
PY
}

# A page whose time goes back (tdat-verify: damaged) was refused by a
# plain copy (the page check) but written by the repacker (a selection,
# several inputs) with its records' times moved forward; and an error of
# the second input was put under the first one's name.
@test "a copy through the repacker refuses a CPU whose time goes back, naming its input" {
	local pg why
	pg=$(time_back "$T/v6.dat" "$T/bad.dat")
	why="CPU 0: record time * is before the CPU's last record (*): the input is damaged (tdat-cat --salvage drops such pages)"
	run -1 "$VERIFY" -q "$T/bad.dat"
	run -1 "$CAT" "$T/bad.dat" -o "$T/copy.dat"
	[[ "${lines[0]}" == "tdat-cat: $T/bad.dat: offset 0x$(printf %x "$pg"): "* ]]
	run -1 "$CAT" -e 'sched:*' "$T/bad.dat" -o "$T/copy.dat"
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "tdat-cat: $T/bad.dat: offset 0x$(printf %x $((pg + 16))): "$why ]]
	[ ! -e "$T/copy.dat" ]
	[ -z "$(ls -A "$T" | grep '^\.copy')" ]
	run -1 "$CAT" "$T/v6.dat" "$T/bad.dat" -o "$T/copy.dat"
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "tdat-cat: $T/bad.dat: offset 0x$(printf %x $((pg + 16))): "$why ]]
	[ ! -e "$T/copy.dat" ]
	# the salvaged copy goes through the repacker
	run -1 "$CAT" --salvage "$T/bad.dat" -o "$T/s.dat"
	"$CAT" -e 'sched:*' "$T/v6.dat" "$T/s.dat" -o "$T/copy.dat"
	"$VERIFY" -q "$T/copy.dat"
}

@test "v6 with instances cut inside an instance: the other buffers whole" {
	local I=$D/x86_64-v7-none-instances.dat
	"$CAT" --file-version 6 "$I" -o "$T/i6.dat"
	head -c 4650000 "$T/i6.dat" >"$T/cut.dat"
	salvage "$T/cut.dat" "$T/out.dat"
	grep -q 'buffer "bar" CPU 3: kept 4 pages (269 records), dropped 0 pages' "$T/out.dat.err"
	grep -q 'offset 0x46f000: buffer "foo" CPU 0: kept 9 pages (1380 records), dropped 6 pages' "$T/out.dat.err"
	trace-cmd report "$T/out.dat" >/dev/null
	# The instance whose CPU table is gone is dropped whole.
	head -c 4400000 "$T/i6.dat" >"$T/cut.dat"
	salvage "$T/cut.dat" "$T/out.dat"
	grep -q 'dropped: buffer "bar": flyrecord runs past the end of the file' "$T/out.dat.err"
	trace-cmd report "$T/out.dat" >/dev/null
}

# same_events IN OUT SEL...: the salvage OUT lists, for the CPUs SEL
# selects, exactly the events IN lists for them.
same_events() {
	local in=$1 out=$2
	shift 2
	"$B/tdat-dump" --records -N -t "$@" "$in" | sed 's/^ *//' >"$T/want"
	"$B/tdat-dump" --records -N -t "$@" "$out" | sed 's/^ *//' >"$T/got"
	diff "$T/want" "$T/got"
}

# prefix_events IN OUT N SEL...: OUT lists N events for SEL, the first N
# of IN's.
prefix_events() {
	local in=$1 out=$2 n=$3
	shift 3
	"$B/tdat-dump" --records -N -t "$@" "$in" | sed 's/^ *//' |
	    head -n $((n + 1)) >"$T/want"
	"$B/tdat-dump" --records -N -t "$@" "$out" | sed 's/^ *//' >"$T/got"
	[ "$(wc -l <"$T/got")" -eq $((n + 1)) ]
	diff "$T/want" "$T/got"
}

@test "v7 cut before its BUFFER option: every event keeps its CPU (CPUSTAT)" {
	# hip24-host: 18 CPUs, 15 with data (1, 3 and 9 have none); the cut is
	# inside CPU 10's chunks.  Without CPUSTAT the streams were taken as
	# CPUs 0, 1, 2...: CPU 2's events printed as CPU 1's.
	local H=$D/hip24-host-trace.dat
	head -c 2464433 "$H" >"$T/cut.dat"
	salvage "$T/cut.dat" "$T/out.dat"
	grep -q 'read as buffer "" with 8 CPUs (CPUs from CPUSTAT)' "$T/out.dat.err"
	"$B/tdat-dump" --flyrecord "$T/out.dat" | grep -o 'cpu [0-9]*' | tr '\n' ' ' >"$T/cpus"
	[ "$(cat "$T/cpus")" = "cpu 0 cpu 2 cpu 4 cpu 5 cpu 6 cpu 7 cpu 8 cpu 10 " ]
	same_events "$H" "$T/out.dat" --cpu 0,2,4-8
	prefix_events "$H" "$T/out.dat" 841 --cpu 10
	run -0 "$B/tdat-dump" --records -N -t --cpu 1,3,9,11-17 "$T/out.dat"
	[ "$output" = "cpus=20" ]
	trace-cmd report "$T/out.dat" >/dev/null
}

@test "uncompressed v7 cut before its BUFFER options: the pages split by CPUSTAT's counts" {
	local I=$D/x86_64-v7-none-instances.dat
	# Inside the top buffer's CPU 2: CPUs 0 and 1 whole, CPU 2's whole pages.
	head -c 4370432 "$I" >"$T/cut.dat"
	salvage "$T/cut.dat" "$T/out.dat"
	grep -q 'read as buffer "" with 3 CPUs (CPUs from CPUSTAT)' "$T/out.dat.err"
	same_events "$I" "$T/out.dat" --buffer '' --cpu 0,1
	prefix_events "$I" "$T/out.dat" 1132 --buffer '' --cpu 2
	# Inside instance foo's CPU 2: the top buffer and bar whole, foo
	# named from its CPUSTAT block, its CPUs 0 and 1 whole.
	head -c 4742390 "$I" >"$T/cut.dat"
	salvage "$T/cut.dat" "$T/out.dat"
	grep -q 'read as buffer "foo" with 3 CPUs (CPUs from CPUSTAT)' "$T/out.dat.err"
	same_events "$I" "$T/out.dat" --buffer ''
	same_events "$I" "$T/out.dat" --buffer bar
	same_events "$I" "$T/out.dat" --buffer foo --cpu 0,1
	prefix_events "$I" "$T/out.dat" 154 --buffer foo --cpu 2
	trace-cmd report "$T/out.dat" >/dev/null
}

@test "v7 cut in a last boot's buffer (all-zero CPUSTAT): its whole CPUs kept" {
	# trace-cmd 3.4's persistent buffer "boot_mapped": its CPUSTAT counts
	# this boot's events, none, and LAST_BOOT_INFO names it.  Cut in CPU
	# 2's chunk (CPUs 0 and 1 whole), then in CPU 3's (0 to 2 whole):
	# the buffer was dropped whole ("no CPUSTAT says which").
	local L=$D/tc34/x86_64-tc34-lastboot-warm.dat cut n
	for cut in 1903000:1 1907000:2; do
		n=${cut#*:}
		head -c "${cut%:*}" "$L" >"$T/cut.dat"
		salvage "$T/cut.dat" "$T/out.dat"
		grep -q "read as buffer \"boot_mapped\" with $((n + 1)) CPUs (the last boot's" "$T/out.dat.err"
		same_events "$L" "$T/out.dat" --buffer boot_mapped --cpu 0-$n
		run -0 "$B/tdat-dump" --records -N -t --buffer boot_mapped \
		    --cpu $((n + 1))-3 "$T/out.dat"
		[ "${#lines[@]}" -eq 1 ]
		trace-cmd report "$T/out.dat" >/dev/null
	done
}

@test "trace-cmd reads every salvaged output" {
	local cut
	for cut in 920000 1000000 1171000; do
		head -c "$cut" "$Z" >"$T/cut.dat"
		salvage "$T/cut.dat" "$T/out.dat"
		trace-cmd report "$T/out.dat" >/dev/null
	done
}

@test "tdat-verify says what --salvage would keep" {
	head -c 4400000 "$T/v6.dat" >"$T/cut.dat"
	run -1 "$VERIFY" "$T/cut.dat"
	[ "${lines[-1]}" = "$T/cut.dat: damaged: tdat-cat --salvage would keep 77 of 237 pages (8074 records)" ]
	run -1 "$VERIFY" --json "$T/cut.dat"
	[[ "${lines[-1]}" == *'"salvage":true,"kept_pages":77,"pages":237,"kept_records":8074,"lost_chunks":0,"dropped_lines":0}' ]]
	head -c 1000 "$Z" >"$T/cut.dat"
	run -1 "$VERIFY" "$T/cut.dat"
	[[ "${lines[-1]}" == *"damaged: tdat-cat --salvage cannot recover it: "* ]]
	run -0 "$VERIFY" "$Z"
	[[ "$output" != *--salvage* ]]
}

@test "--salvage takes one input and no event selection" {
	run -2 "$CAT" --salvage "$Z" "$Z" -o "$T/out.dat"
	run -2 "$CAT" --salvage -e sched_switch "$Z" -o "$T/out.dat"
}

@test "tdat-verify: a v6 latency file cut inside a line is damaged" {
	# A latency file made from a small v6 fixture: its metadata, then
	# "latency" and the text, which runs to the end of the file.
	python3 - "$D/kinmax-listen-trace.192.168.1.10_53616.dat" "$T" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
head = d[:d.index(b"flyrecord\0")] + b"latency  \0"
txt = (b"# tracer: wakeup\n#\n"
       b"  <idle>-0       0d....    0us+:      0:120:R   + [000]    17:120:R migration/0\n"
       b"  <idle>-0       0d....    2us : 0\n")
open(sys.argv[2] + "/lat.dat", "wb").write(head + txt)
open(sys.argv[2] + "/latcut.dat", "wb").write(head + txt[:60])
print(len(head) + txt.index(b"  <idle>"))
PY
	run -0 "$VERIFY" "$T/lat.dat"
	local line
	line=$(python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); print(d.rindex(b"\n") + 1)' "$T/latcut.dat")
	run -1 "$VERIFY" "$T/latcut.dat"
	[ "${lines[0]}" = "$T/latcut.dat: offset 0x$(printf %x "$line"): error: latency text ends inside a line: the file is cut short" ]
	run -1 "$VERIFY" --json "$T/latcut.dat"
	[[ "${lines[0]}" == *'"kind":"latency-cut"'* ]]
}
