#!/usr/bin/env bats
# ctf-read.bats: a CTF directory tdat-to-ctf wrote, read back
# (formats/ctf/ctf-read.c through libbabeltrace2; ctf(5) "Reading it
# back"): tdat-cat DIR -o x.dat, and every tool that reads events.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	B=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	D=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
	C=$B/tdat-to-ctf
	T=$BATS_TEST_TMPDIR
}

# expected NAME KIND: trace-cmd's output for t/data/NAME.dat, if kept.
expected() {
	local f=$D/expected/$1.$2.txt
	if [ -f "$f" ]; then
		cat "$f"
	elif [ -f "$f.zst" ]; then
		zstd -dcq "$f.zst"
	else
		return 1
	fi
}

# A copy of labsisop-qemu-trace at FILE whose second page of CPU 0 says
# 5 events were lost before it: MISSED_EVENTS and MISSED_STORED (bits
# 31, 30 of the 32-bit commit word), the count after the page's data;
# sets off to CPU 0's data offset.
missed() {
	cp "$D/labsisop-qemu-trace.dat" "$1"
	chmod u+w "$1"
	off=$("$B/tdat-dump" --flyrecord "$1" | sed -n 's/.*cpu 0: offset \([0-9]*\),.*/\1/p')
	python3 - "$1" "$((off + 4096))" <<-'PY'
	import sys
	d = bytearray(open(sys.argv[1], 'rb').read())
	p = int(sys.argv[2])
	commit = int.from_bytes(d[p + 8:p + 12], 'little')
	size = commit & 0xfffff
	assert size + 12 + 4 <= 4096
	d[p + 12 + size:p + 12 + size + 4] = (5).to_bytes(4, 'little')
	d[p + 8:p + 12] = (commit | 3 << 30).to_bytes(4, 'little')
	open(sys.argv[1], 'wb').write(d)
	PY
}

# roundtrip FILE: FILE to CTF and back with tdat-cat; the copy's
# tdat-dump --records -t (and -N -t) equal the original's.
roundtrip() {
	local n
	n=$(basename "$1" .dat)
	rm -rf "$T/$n.ctf" "$T/$n.x.dat"
	"$C" --no-progress "$1" "$T/$n.ctf"
	run --separate-stderr "$B/tdat-cat" -o "$T/$n.x.dat" "$T/$n.ctf"
	[ "$status" -eq 0 ] || { echo "$n: tdat-cat: $stderr"; return 1; }
	[ -z "$stderr" ]
	for m in "" -N; do
		"$B/tdat-dump" --records $m -t "$1" >"$T/want"
		"$B/tdat-dump" --records $m -t "$T/$n.x.dat" >"$T/got"
		[ -s "$T/want" ]
		cmp -s "$T/want" "$T/got" ||
		    { echo "$n $m:"; diff "$T/want" "$T/got" | head -n 20; return 1; }
	done
}

@test "ctf read: tdat-cat DIR -o x.dat gives back the events of the fixtures (tdat-dump --records -t)" {
	# (tc34/x86_64-tc34-syscalls: its __data_loc char[] buffers hold
	# bytes, NULs too, written as byte sequences; ctf(5))
	for f in "$D"/*.dat "$D"/tc34/x86_64-tc34-func-args.dat \
	    "$D"/tc34/x86_64-tc34-syscalls.dat \
	    "$D"/select/langraph-stacks.dat; do
		roundtrip "$f"
	done
}

@test "ctf read: the copy's trace-cmd report -N -t is trace-cmd's of the original" {
	command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
	local k=0
	for f in "$D"/*.dat; do
		n=$(basename "$f" .dat)
		expected "$n" report-N >"$T/want" || continue
		rm -rf "$T/$n.ctf" "$T/x.dat"
		"$C" --no-progress "$f" "$T/$n.ctf"
		"$B/tdat-cat" -o "$T/x.dat" "$T/$n.ctf"
		tc_report -N -t -i "$T/x.dat" >"$T/got" 2>/dev/null
		cmp -s "$T/want" "$T/got" ||
		    { echo "$n:"; diff "$T/want" "$T/got" | head -n 20; return 1; }
		k=$((k + 1))
	done
	[ "$k" -ge 5 ]
}

@test "ctf read: every tool reads the directory: dump --records -N/-R, to-json, to-table, to-ltt" {
	n=x86_64-v7-none-instances
	"$C" "$D/$n.dat" "$T/d.ctf"
	for m in N R; do
		run --separate-stderr "$B/tdat-dump" --records --trace-cmd=3.1 -$m -t "$T/d.ctf"
		[ "$status" -eq 0 ] || { echo "-$m: $stderr"; return 1; }
		printf '%s\n' "$output" >"$T/got"
		expected "$n" report-$m | cmp - "$T/got"
	done
	"$B/tdat-to-json" "$D/$n.dat" >"$T/want.json"
	"$B/tdat-to-json" "$T/d.ctf" >"$T/got.json"
	cmp "$T/want.json" "$T/got.json"
	"$B/tdat-to-json" --buffer foo --cpu 2 "$D/$n.dat" >"$T/want.json"
	"$B/tdat-to-json" --buffer foo --cpu 2 "$T/d.ctf" >"$T/got.json"
	[ -s "$T/want.json" ]
	cmp "$T/want.json" "$T/got.json"
	"$B/tdat-to-table" "$T/d.ctf" "$T/tab"
	[ -s "$T/tab/meta.json" ]
	"$B/tdat-to-ltt" "$T/d.ctf" "$T/d.ltt"
	"$B/tdat-dump" --records --trace-cmd=3.1 -N -t "$T/d.ltt" >"$T/got"
	expected "$n" report-N | cmp - "$T/got"
}

@test "ctf read: pipes: tdat-cat DIR | tdat-dump, and the copy through stdin" {
	n=s390x-v7-zstd-sched
	"$C" "$D/$n.dat" "$T/p.ctf"
	"$B/tdat-cat" "$T/p.ctf" | "$B/tdat-dump" --records --trace-cmd=3.1 -N -t >"$T/got"
	expected "$n" report-N | cmp - "$T/got"
	"$B/tdat-cat" "$T/p.ctf" | "$B/tdat-to-json" >"$T/got.json"
	"$B/tdat-to-json" <"$D/$n.dat" >"$T/want.json"
	cmp "$T/want.json" "$T/got.json"
	# a selection of the directory, repacked
	"$B/tdat-cat" -e sched_switch --cpu 1 "$T/p.ctf" | "$B/tdat-to-json" >"$T/got.json"
	"$B/tdat-to-json" -e sched_switch --cpu 1 "$D/$n.dat" >"$T/want.json"
	[ -s "$T/want.json" ]
	cmp "$T/want.json" "$T/got.json"
	# and version 6
	"$B/tdat-cat" --file-version 6 -o "$T/v6.dat" "$T/p.ctf"
	"$B/tdat-dump" --records --trace-cmd=3.1 -N -t "$T/v6.dat" >"$T/got"
	expected "$n" report-N | cmp - "$T/got"
}

@test "ctf read: a latency tracer's text comes back" {
	# (not latency-tail-v7-none: its report shows bytes past its text,
	# t/data/latency/README)
	for f in "$D"/latency/latency-wakeup*.dat; do
		roundtrip "$f"
	done
}

@test "ctf read: lost events come back as lost events" {
	f=$T/missed.dat
	missed "$f"
	"$B/tdat-dump" --records -t "$f" | grep -q 'CPU:0 \[5 EVENTS DROPPED\]'
	roundtrip "$f"
	grep -q 'CPU:0 \[5 EVENTS DROPPED\]' "$T/got"
	# MISSED_EVENTS alone: lost events the ring buffer did not count
	f=$T/unknown.dat
	cp "$D/labsisop-qemu-trace.dat" "$f"
	chmod u+w "$f"
	printf '\200' | dd of="$f" bs=1 seek=$((off + 4096 + 11)) conv=notrunc 2>/dev/null
	roundtrip "$f"
	grep -q 'CPU:0 \[EVENTS DROPPED\]' "$T/got"
	if command -v trace-cmd >/dev/null; then
		tc_report -N -t -i "$f" >"$T/want" 2>/dev/null
		tc_report -N -t -i "$T/unknown.x.dat" >"$T/got" 2>/dev/null
		grep -q 'CPU:0 \[EVENTS DROPPED\]' "$T/want"
		cmp "$T/want" "$T/got"
	fi
}

@test "ctf read: a directory tdat-to-ctf did not write, nor LTTng, is refused in one line (--lttng: ctf-lttng.bats)" {
	"$C" "$D/x86_64-default-sched.dat" "$T/a.ctf"
	cp -r "$T/a.ctf" "$T/plain.ctf"
	rm -rf "$T/plain.ctf/tdat"
	run --separate-stderr "$B/tdat-cat" -o "$T/x.dat" "$T/plain.ctf"
	[ "$status" -eq 1 ]
	[ "$stderr" = "tdat-cat: $T/plain.ctf: a CTF trace neither written by tdat-to-ctf (no tdat/container) nor an LTTng kernel trace (domain \"kernel\", tracer_name \"lttng-modules\"): not supported" ]
	[ ! -e "$T/x.dat" ]
	# tdat-verify: refused, babeltrace2 named
	run --separate-stderr "$B/tdat-verify" "$T/a.ctf"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *"babeltrace2"* ]]
}

@test "ctf read: damaged directories: one line, exit 1 or 2, never a crash" {
	"$C" "$D/x86_64-default-sched.dat" "$T/a.ctf"
	# damaged metadata: babeltrace2 does not read it
	cp -r "$T/a.ctf" "$T/m.ctf"
	sed -i 's/stream_id = 0;/stream_id = zz;/' "$T/m.ctf/metadata"
	run --separate-stderr "$B/tdat-cat" -o "$T/x.dat" "$T/m.ctf"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "tdat-cat: $T/m.ctf: not a CTF trace babeltrace2 reads"* ]]
	[ ! -e "$T/x.dat" ]
	# a data stream cut short in a packet
	cp -r "$T/a.ctf" "$T/c.ctf"
	truncate -s 5000 "$T/c.ctf/cpu1"
	run --separate-stderr "$B/tdat-dump" --records "$T/c.ctf"
	[ "$status" -eq 1 ] || [ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -ge 1 ]
	[[ ${stderr_lines[0]} == "tdat-dump: "* ]]
	# flipped bytes in a data stream, a damaged container, missing formats
	for i in 1 2 3 4 5 6 7 8; do
		rm -rf "$T/f.ctf"
		cp -r "$T/a.ctf" "$T/f.ctf"
		python3 - "$T/f.ctf/cpu0" "$i" <<-'PY'
		import sys, random
		p = sys.argv[1]
		d = bytearray(open(p, 'rb').read())
		r = random.Random(int(sys.argv[2]))
		for _ in range(20):
		    d[r.randrange(len(d))] ^= 1 << r.randrange(8)
		open(p, 'wb').write(d)
		PY
		run --separate-stderr "$B/tdat-cat" -o "$T/f.dat" "$T/f.ctf"
		[ "$status" -le 2 ] || { echo "flip $i: status $status"; return 1; }
		[ "${#stderr_lines[@]}" -le 2 ]
	done
	cp -r "$T/a.ctf" "$T/k.ctf"
	echo "buffer x" >>"$T/k.ctf/tdat/container"
	run --separate-stderr "$B/tdat-dump" "$T/k.ctf"
	[ "$status" -eq 1 ]
	[ "$stderr" = "tdat-dump: $T/k.ctf: tdat/container: line $(wc -l <"$T/k.ctf/tdat/container") does not read" ]
	cp -r "$T/a.ctf" "$T/e.ctf"
	rm -rf "$T/e.ctf"/tdat/events/*-sched
	run --separate-stderr "$B/tdat-dump" --records "$T/e.ctf"
	[ "$status" -eq 1 ]
	[[ ${stderr_lines[0]} == *"does not match the format of its id in tdat/"* ]]
}

# peak_kb FILE CMD...: CMD's peak RSS in KB into FILE (GNU time).
peak_kb() {
	local out=$1
	shift
	/usr/bin/time -f '%M' -o "$out" "$@" >/dev/null 2>&1
}

@test "ctf read: memory stays bounded: 4 CPUs of 9 MB streams read in under 32 MiB RSS" {
	[ -x /usr/bin/time ] || skip "GNU time is not installed"
	# AddressSanitizer keeps freed memory in quarantine.
	[ -z "${ASAN_OPTIONS:-}" ] || skip "a sanitizer build"
	# 32 copies of a 4-CPU trace merged: about 9 MB of CTF a CPU.
	# babeltrace2 maps the file it reads of each stream in windows of
	# 8 MiB: with one file a CPU the reader held 4 such windows of read
	# pages (49 MB RSS); with stream files of 1 MiB (and a packet of
	# 256 KiB), one each.
	local f=$D/x86_64-default-sched.dat i
	set --
	for i in $(seq 32); do set -- "$@" "$f"; done
	"$B/tdat-cat" --no-progress -o "$T/m.dat" "$@"
	"$C" --no-progress "$T/m.dat" "$T/m.ctf"
	[ "$(find "$T/m.ctf" -maxdepth 1 -name 'cpu*' -size +1280k | wc -l)" -eq 0 ]
	peak_kb "$T/peak" "$B/tdat-dump" --records -e sched:sched_process_exec \
	    "$T/m.ctf"
	echo "tdat-dump --records: $(cat "$T/peak") KB"
	[ "$(cat "$T/peak")" -le 32768 ]
	[ "$("$B/tdat-dump" --records -e sched:sched_process_exec "$T/m.ctf" | wc -l)" -eq \
	  "$("$B/tdat-dump" --records -e sched:sched_process_exec "$T/m.dat" | wc -l)" ]
}

@test "ctf read: a stream cut in many files and instances (ties, lost events) comes back whole" {
	# every event twice at the same time (two copies merged), lost
	# events on CPU 0; packets of one event and files of one packet:
	# a tie after a stream's first file begins a new stream instance
	# (cpuN.K.0), one before lost events with an empty packet first
	local f=$T/missed.dat off n
	missed "$f"
	"$B/tdat-cat" --no-progress -o "$T/two.dat" "$f" "$f"
	"$B/tdat-dump" --records -t "$T/two.dat" | grep -q 'CPU:0 \[5 EVENTS DROPPED\]'
	TDAT_CTF_PACKET_BYTES=1 TDAT_CTF_FILE_BYTES=1 roundtrip "$T/two.dat"
	[ "$(ls "$T/two.ctf" | grep -c '^cpu0\.[1-9][0-9]*\.0$')" -ge 2 ]
	grep -c 'CPU:0 \[5 EVENTS DROPPED\]' "$T/got"
	[ "$(grep -c 'CPU:0 \[5 EVENTS DROPPED\]' "$T/got")" -eq 2 ]
	if command -v babeltrace2 >/dev/null; then
		n=$(babeltrace2 "$T/two.ctf" 2>"$T/bt.err" | wc -l)
		[ "$n" -eq "$("$B/tdat-dump" --records "$T/two.dat" | grep -vc '^CPU\|^cpus=')" ]
		! grep -v 'Tracer discarded' "$T/bt.err" | grep -q .
	fi
}

@test "ctf read: a directory of one file a CPU without stream instance ids (older tdat-to-ctf) is read" {
	"$C" --no-progress "$D/x86_64-default-sched.dat" "$T/a.ctf"
	# as tdat-to-ctf wrote it before: no stream_instance_id in the
	# packet header
	python3 - "$T/a.ctf" <<-'PY'
	import os, re, struct, sys
	d = sys.argv[1]
	m = open(d + '/metadata').read()
	m2 = re.sub(r'\n\t\tinteger \{[^}]*\} stream_instance_id;', '', m)
	assert m2 != m
	open(d + '/metadata', 'w').write(m2)
	for n in os.listdir(d):
	    if not n.startswith('cpu'):
	        continue
	    assert re.fullmatch(r'cpu[0-9]+', n)
	    b = open(d + '/' + n, 'rb').read()
	    out, o = bytearray(), 0
	    while o < len(b):
	        size = struct.unpack_from('<Q', b, o + 40)[0] // 8
	        p = bytearray(b[o:o + 8] + b[o + 16:o + size])
	        struct.pack_into('<QQ', p, 24, (size - 8) * 8, (size - 8) * 8)
	        out += p
	        o += size
	    open(d + '/' + n, 'wb').write(out)
	PY
	run --separate-stderr "$B/tdat-cat" -o "$T/x.dat" "$T/a.ctf"
	[ "$status" -eq 0 ]
	"$B/tdat-dump" --records -t "$D/x86_64-default-sched.dat" >"$T/want"
	"$B/tdat-dump" --records -t "$T/x.dat" >"$T/got"
	cmp "$T/want" "$T/got"
}
