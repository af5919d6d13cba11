#!/usr/bin/env bats
# ctf.bats: tdat-to-ctf (formats/ctf/ctf-write.c; tdat-to-ctf(1), ctf(5)):
# the directory, its metadata, and what babeltrace2 and its Python
# bindings read from it against trace-cmd report -R (t/ctf-compare.py).

bats_require_minimum_version 1.5.0
load helpers

setup() {
	B=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	D=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
	C=$B/tdat-to-ctf
	T=$BATS_TEST_TMPDIR
	# a python3 with babeltrace2's bindings (Debian's python3-bt2)
	PY=
	for p in python3 /usr/bin/python3; do
		if command -v "$p" >/dev/null && "$p" -c 'import bt2' 2>/dev/null; then
			PY=$p
			break
		fi
	done
}

need_bt2() {
	[ -n "$PY" ] || skip "python3-bt2 is not installed"
	command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
}

# compare FILE: convert FILE and compare every event, field and time
# stamp with trace-cmd report -R -t through python3-bt2.
compare() {
	local n
	n=$(basename "$1" .dat)
	"$C" "$1" "$T/$n.ctf"
	if [ -f "$D/expected/$n.report-R.txt.zst" ]; then
		# trace-cmd's own (of a zlib file too, which Debian's trace-cmd
		# does not read)
		zstd -dc "$D/expected/$n.report-R.txt.zst" >"$T/$n.R"
	else
		tc_report -R -t -i "$1" >"$T/$n.R" 2>/dev/null
	fi
	run "$PY" "$BATS_TEST_DIRNAME/ctf-compare.py" "$T/$n.ctf" "$T/$n.R" "$n"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ ${lines[0]} =~ events\ ([0-9]+)\ \(trace-cmd\ ([0-9]+)\) ]]
	[ "${BASH_REMATCH[1]}" -gt 0 ] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]
}

@test "tdat-to-ctf: a directory with metadata and one stream file per CPU, renamed when complete" {
	run -0 "$C" "$D/x86_64-default-sched.dat" "$T/a.ctf"
	[ -z "$output" ]
	[ "$(head -c 13 "$T/a.ctf/metadata")" = "/* CTF 1.8 */" ]
	[ -f "$T/a.ctf/cpu0" ] && [ -f "$T/a.ctf/cpu3" ]
	# the originals, for the way back, where babeltrace2 does not look
	[ -s "$T/a.ctf/tdat/kallsyms" ] && [ -s "$T/a.ctf/tdat/header_page" ]
	[ -z "$(find "$T" -maxdepth 1 -name '.a.ctf*')" ]
	# an existing directory is refused
	run -2 "$C" "$D/x86_64-default-sched.dat" "$T/a.ctf"
	[[ $output == "tdat-to-ctf: $T/a.ctf: already exists" ]]
}

@test "tdat-to-ctf: FILE's name with .ctf by default; stdin when it is a pipe" {
	cd "$T"
	run -0 "$C" "$D/hebel23-driver-trace.dat"
	[ -f hebel23-driver-trace.ctf/metadata ]
	cat "$D/hebel23-driver-trace.dat" | "$C"
	[ -f trace.ctf/metadata ]
	cmp trace.ctf/cpu0 hebel23-driver-trace.ctf/cpu0
}

@test "tdat-to-ctf: babeltrace2 reads every event without a warning" {
	command -v babeltrace2 >/dev/null || skip "babeltrace2 is not installed"
	for f in x86_64-default-sched s390x-v7-zstd-sched x86_64-v7-none-instances \
	    hip24-host-trace hebel23-driver-trace; do
		"$C" "$D/$f.dat" "$T/$f.ctf"
		babeltrace2 "$T/$f.ctf" >"$T/out" 2>"$T/err"
		[ ! -s "$T/err" ] || { echo "$f:"; cat "$T/err"; return 1; }
		n=$("$B/tdat-to-json" "$D/$f.dat" | wc -l)
		[ "$(wc -l <"$T/out")" -eq "$n" ] || { echo "$f: $(wc -l <"$T/out") of $n"; return 1; }
	done
}

@test "tdat-to-ctf: every field and time stamp equals trace-cmd report -R's (python3-bt2)" {
	need_bt2
	compare "$D/x86_64-default-sched.dat"
}

@test "tdat-to-ctf: big-endian s390x, 32-bit ARM, x86-tsc with TSC2NSEC: fields and times equal trace-cmd's" {
	need_bt2
	compare "$D/s390x-v7-zstd-sched.dat"
	compare "$D/hebel23-driver-trace.dat"
	compare "$D/hip24-host-trace.dat"
}

@test "tdat-to-ctf: instances are streams named after their buffer, compared field by field" {
	need_bt2
	compare "$D/x86_64-v7-none-instances.dat"
	[ -f "$T/x86_64-v7-none-instances.ctf/foo-cpu0" ]
	[ -f "$T/x86_64-v7-none-instances.ctf/bar-cpu0" ]
	grep -q 'buffers = ",foo,bar";' "$T/x86_64-v7-none-instances.ctf/metadata" ||
	    grep -q 'buffers = ",bar,foo";' "$T/x86_64-v7-none-instances.ctf/metadata"
	# a stream class per buffer
	[ "$(grep -c '^stream {' "$T/x86_64-v7-none-instances.ctf/metadata")" -eq 3 ]
}

@test "tdat-to-ctf: field types from the format files" {
	"$C" "$D/x86_64-default-sched.dat" "$T/a.ctf"
	m=$T/a.ctf/metadata
	ev() { awk -v n="\"$1\";" '$1 == "name" && $3 == n {p = 1} p && /^};/ {exit} p' "$m"; }
	# common fields in the event's context, common_type being its id
	ev sched:sched_switch | grep -q 'context := struct'
	ev sched:sched_switch | grep -q 'signed = 1; base = 10; } common_pid;'
	[ -z "$(ev sched:sched_switch | grep common_type)" ]
	# char arrays: encoded bytes (strings); pids signed 32-bit
	ev sched:sched_switch | grep -q 'encoding = UTF8; } prev_comm\[16\];'
	ev sched:sched_switch | grep -q 'size = 32; align = 8; signed = 1; base = 10; } next_pid;'
	# __print_flags: an enumeration labelled from the print format
	ev sched:sched_switch | grep -q 'enum : integer { size = 64; .*"S" = 1, "D" = 2'
	# __data_loc char[]: a string
	ev sched:sched_process_exec | grep -q 'string filename;'
	# pointers in base 16
	"$C" "$D/json/function.dat" "$T/fn.ctf"
	m=$T/fn.ctf/metadata
	ev ftrace:function | grep -q 'base = 16; } ip;'
	# only the formats that have events are event classes (babeltrace2
	# holds every class in memory): the trace has 1339 formats
	[ "$(grep -c '^event {' "$m")" -lt 10 ]
	[ "$(ls "$T"/fn.ctf/tdat/events/*/* | wc -l)" -gt 1000 ]
}

@test "tdat-to-ctf: __print_symbolic labels, __data_loc arrays as sequences, names babeltrace2 would change" {
	"$C" "$D/hebel23-driver-trace.dat" "$T/h.ctf"
	grep -q '{ "HI" = 0, "TIMER" = 1, "NET_TX" = 2, .*} vec;' "$T/h.ctf/metadata"
	# __data_loc u8[]: a sequence after its length, _NAME_length
	"$C" "$D/plugins/synthetic-xen-wireless.dat" "$T/x.ctf"
	grep -q '} __frame_length;' "$T/x.ctf/metadata"
	grep -q 'size = 8; align = 8; signed = 0; base = 10; } frame\[__frame_length\];' "$T/x.ctf/metadata"
	# a name that begins with "_" gets one more: babeltrace2 takes one off
	"$C" "$D/plugins/x86_64-v6-futex.dat" "$T/f.ctf"
	grep -q '} ___syscall_nr;' "$T/f.ctf/metadata"
	command -v babeltrace2 >/dev/null || skip "babeltrace2 is not installed"
	babeltrace2 "$T/x.ctf" | grep -q 'cfg80211:cfg80211_rx_mlme_mgmt: .* _frame_length = 4, frame = \[ \[0\] = 176, \[1\] = 0, \[2\] = 58, \[3\] = 1 \]'
	need_bt2
	compare "$D/plugins/synthetic-xen-wireless.dat"
	compare "$D/json/fib.dat"
}

# t/mkseqclash: a field named as tdat-to-ctf names a sequence's length
# ("_f_length" beside the sequence f): a struct with a member twice is
# refused by babeltrace2 ("length field class is not an unsigned integer").
@test "tdat-to-ctf: a sequence's length member never takes a field's name" {
	python3 "$BATS_TEST_DIRNAME/mkseqclash" \
	    "$D/plugins/synthetic-xen-wireless.dat" "$T/clash.dat"
	"$C" "$T/clash.dat" "$T/c.ctf"
	grep -q '} __f_length;' "$T/c.ctf/metadata"
	grep -q '} f\[__f_length_2\];' "$T/c.ctf/metadata"
	"$B/tdat-dump" --records "$T/clash.dat" >"$T/a"
	"$B/tdat-dump" --records "$T/c.ctf" >"$T/b"
	same "$T/a" "$T/b"
	command -v babeltrace2 >/dev/null || skip "babeltrace2 is not installed"
	run --separate-stderr babeltrace2 "$T/c.ctf"
	[ "$status" -eq 0 ] && [ -z "$stderr" ]
	[[ $output == *"_f_length = 3, _f_length_2 = 4, f = [ [0] = 176, [1] = 0, [2] = 58, [3] = 1 ]"* ]]
}

@test "tdat-to-ctf: the clock class is the trace clock; a cycle clock says so" {
	"$C" "$D/hip24-host-trace.dat" "$T/h.ctf"
	grep -q 'name = "x86_tsc";' "$T/h.ctf/metadata"
	grep -q 'description = "ftrace clock x86-tsc in ns: TSC2NSEC (mult 735842807, shift 31, offset 0) applied";' "$T/h.ctf/metadata"
	"$C" "$D/plugins/synthetic-func-repeats-counter.dat" "$T/c.ctf"
	grep -q 'description = "ftrace clock counter: counts cycles, not ns' "$T/c.ctf/metadata"
	need_bt2
	# every time stamp is tdat-to-json's ts (the trace.dat's, in ns)
	"$B/tdat-to-json" "$D/hip24-host-trace.dat" | jq -r .ts >"$T/want"
	"$PY" -c 'import bt2, sys
for m in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(m) is bt2._EventMessageConst:
        print(m.default_clock_snapshot.ns_from_origin)' "$T/h.ctf" >"$T/got"
	same "$T/want" "$T/got"
}

@test "tdat-to-ctf: the environment carries UNAME and the trace's options" {
	"$C" "$D/x86_64-default-sched.dat" "$T/a.ctf"
	m=$T/a.ctf/metadata
	grep -q 'hostname = "(none)";' "$m"
	grep -q 'kernel_release = "6.1.0-56-amd64";' "$m"
	grep -q 'sysname = "Linux";' "$m"
	grep -q 'trace_clock = "local";' "$m"
	grep -q 'tracedat_version = 7;' "$m"
}

@test "tdat-to-ctf: lost events become discarded-event counts between packets" {
	f=$T/missed.dat
	cp "$D/labsisop-qemu-trace.dat" "$f"
	chmod u+w "$f"
	off=$("$B/tdat-dump" --flyrecord "$f" | sed -n 's/.*cpu 0: offset \([0-9]*\),.*/\1/p')
	# MISSED_EVENTS (bit 31 of the commit word) on both pages
	for p in 0 1; do
		printf '\200' | dd of="$f" bs=1 seek=$((off + p * 4096 + 11)) conv=notrunc 2>/dev/null
	done
	"$C" "$f" "$T/m.ctf"
	if command -v babeltrace2 >/dev/null; then
		babeltrace2 "$T/m.ctf" 2>&1 >/dev/null | grep -q 'Tracer discarded 1 event between \[00:09:50.282330847\] and \[00:09:50.282638656\]'
	fi
	need_bt2
	compare "$f"
	[[ $output == *" lost 1 (trace-cmd 1) (1 lost before a CPU's first event"* ]]
}

@test "tdat-to-ctf: a selection keeps the events it chooses" {
	"$C" -e sched_switch --cpu 1 "$D/x86_64-default-sched.dat" "$T/s.ctf"
	command -v babeltrace2 >/dev/null || skip "babeltrace2 is not installed"
	n=$("$B/tdat-to-json" -e sched_switch --cpu 1 "$D/x86_64-default-sched.dat" | wc -l)
	[ "$n" -gt 0 ]
	[ "$(babeltrace2 "$T/s.ctf" | grep -c 'sched:sched_switch: { cpu_id = 1 }')" -eq "$n" ]
	[ "$(babeltrace2 "$T/s.ctf" | wc -l)" -eq "$n" ]
}

@test "tdat-to-ctf: a damaged trace exits 1 with one line and leaves nothing" {
	head -c 300000 "$D/x86_64-v7-none-instances.dat" >"$T/cut.dat"
	run -1 "$C" "$T/cut.dat" "$T/cut.ctf"
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == "tdat-to-ctf: $T/cut.dat: "* ]]
	[ ! -e "$T/cut.ctf" ]
	[ -z "$(find "$T" -maxdepth 1 -name '.cut.ctf*')" ]
}

@test "tdat-to-ctf --lttng: lttng-modules 2.13's names, fields and environment; the statedump names the tasks" {
	"$C" --lttng "$D/hebel23-driver-trace.dat" "$T/l.ctf"
	m=$T/l.ctf/metadata
	grep -q 'domain = "kernel";' "$m"
	grep -q 'tracer_name = "lttng-modules";' "$m"
	grep -q 'tracer_major = 2;' "$m" && grep -q 'tracer_minor = 13;' "$m"
	grep -q 'kernel_release = "4.14.15-wega-lx";' "$m" && grep -q 'hostname = "wega";' "$m"
	ev() { awk -v n="\"$1\";" '$1 == "name" && $3 == n {p = 1} p && /^};/ {exit} p' "$m"; }
	# sched_switch as include/instrumentation/events/sched.h has it
	ev sched_switch | grep -q 'encoding = UTF8; } prev_comm\[16\];'
	ev sched_switch | grep -q 'size = 32; align = 8; signed = 1; base = 10; } prev_tid;'
	ev sched_switch | grep -q 'size = 32; align = 8; signed = 1; base = 10; } prev_prio;'
	ev sched_switch | grep -q '} prev_state;'
	ev sched_switch | grep -q 'size = 32; align = 8; signed = 1; base = 10; } next_tid;'
	[ -z "$(ev sched_switch | grep enum)" ]
	# irq.h: irq_handler_entry (irq, name), irq_softirq_entry (vec)
	ev irq_handler_entry | grep -q 'string name;'
	ev irq_softirq_entry | grep -q 'size = 32; align = 8; signed = 0; base = 10; } vec;'
	ev irq_softirq_raise | grep -q '} vec;'
	grep -q 'name = "lttng_statedump_process_state";' "$m"
	command -v babeltrace2 >/dev/null || skip "babeltrace2 is not installed"
	babeltrace2 "$T/l.ctf" >"$T/out" 2>"$T/err"
	[ ! -s "$T/err" ]
	# priorities as lttng gives them: the kernel's less MAX_RT_PRIO (100)
	"$B/tdat-to-json" -e sched_switch "$D/hebel23-driver-trace.dat" | head -1 |
	    jq -r '"prev_tid = \(.fields.prev_pid), prev_prio = \(.fields.prev_prio - 100), prev_state = \(.fields.prev_state)"' >"$T/want"
	grep -m1 ' sched_switch: ' "$T/out" | grep -q -F "$(cat "$T/want")"
	# one process_state per saved command line, before any other event
	n=$(grep -c . "$T/l.ctf/tdat/cmdlines")
	[ "$(grep -c ' lttng_statedump_process_state: ' "$T/out")" -eq "$n" ]
	head -1 "$T/out" | grep -q ' lttng_statedump_start: '
	# every event is there, besides the statedump
	[ "$(grep -vc ' lttng_statedump_' "$T/out")" -eq "$("$B/tdat-to-json" "$D/hebel23-driver-trace.dat" | wc -l)" ]
}

# ctf_bad NAME [ARGS]: tdat-to-ctf ARGS on damaged copies of a fixture
# (t/mkbad): no crash, one line on a refusal, and what it writes
# babeltrace2 reads without a word.
ctf_bad() {
	local name=$1 w=$T/wrap
	shift
	mkdir -p "$w"
	cat >"$w/tdat-to-ctf" <<-EOF2
	#!/bin/sh
	d=\$(mktemp -d "$T/w.XXXXXX")
	"$C" $* "\$1" "\$d/out.ctf"
	rc=\$?
	if [ \$rc -eq 0 ] && command -v babeltrace2 >/dev/null; then
		babeltrace2 "\$d/out.ctf" >/dev/null 2>"\$d/err" || rc=3
		[ -s "\$d/err" ] && { head -n 3 "\$d/err" >&2; rc=3; }
	fi
	rm -rf "\$d"
	exit \$rc
	EOF2
	chmod +x "$w/tdat-to-ctf"
	run python3 "$BATS_TEST_DIRNAME/mkbad" -n "${TDAT_MKBAD_N:-12}" -c 12 \
	    "$D/$name.dat" -- "$w/tdat-to-ctf"
	echo "$output" | tail -n 20
	[ "$status" -eq 0 ]
}

@test "tdat-to-ctf: damaged copies of 32-bit ARM and big-endian zstd traces (t/mkbad)" {
	ctf_bad hebel23-driver-trace
	ctf_bad s390x-v7-zstd-sched --lttng
}

@test "tdat-to-ctf: a record of an event type with no format is a tdat:unknown event with its bytes" {
	f=$T/unknown.dat
	cp "$D/labsisop-qemu-trace.dat" "$f"
	chmod u+w "$f"
	off=$("$B/tdat-dump" --flyrecord "$f" | sed -n 's/.*cpu 0: offset \([0-9]*\),.*/\1/p')
	# the first record's common_type (after the 12-byte page header, a
	# time extend and the record's 4-byte header: sched_switch, 102)
	# becomes 4095, which no format has
	python3 - "$f" "$((off + 12 + 8 + 4))" <<-'PY'
	import sys
	d = bytearray(open(sys.argv[1], 'rb').read())
	i = int(sys.argv[2])
	assert d[i:i + 2] == (102).to_bytes(2, 'little')
	d[i:i + 2] = (4095).to_bytes(2, 'little')
	open(sys.argv[1], 'wb').write(d)
	PY
	run -0 --separate-stderr "$C" "$f" "$T/u.ctf"
	[ -z "$stderr" ]
	grep -q 'name = "tdat:unknown";' "$T/u.ctf/metadata"
	command -v babeltrace2 >/dev/null || skip "babeltrace2 is not installed"
	babeltrace2 "$T/u.ctf" >"$T/out" 2>"$T/err"
	[ ! -s "$T/err" ]
	grep -m1 'tdat:unknown' "$T/out" | grep -q 'type = 4095, _data_length = '
	[ "$(wc -l <"$T/out")" -eq "$("$B/tdat-to-json" "$f" | wc -l)" ]
}
