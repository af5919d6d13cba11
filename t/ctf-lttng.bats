#!/usr/bin/env bats
# ctf-lttng.bats: a real LTTng kernel trace read as a trace.dat
# (formats/ctf/ctf-lttng.c through libbabeltrace2; tdat-cat(1), ctf(5)):
# t/data/lttng/flipping-endianness, lttng-modules 2.5, from Trace
# Compass's test traces (t/data/README).

bats_require_minimum_version 1.5.0
load helpers

setup() {
	B=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	D=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
	L=$D/lttng/flipping-endianness
	T=$BATS_TEST_TMPDIR
}

want() {
	zstd -dcq "$D/expected/lttng-flipping-endianness.report.txt.zst"
}

@test "lttng: tdat-dump --records of an LTTng kernel trace is trace-cmd 3.1.6's report of its tdat-cat copy" {
	want >"$T/want"
	run --separate-stderr "$B/tdat-dump" --records -t --trace-cmd=3.1 "$L"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	printf '%s\n' "$output" | cmp - "$T/want"
	# every event babeltrace2 counts, with its fields and task
	[ "$(grep -c ': sched_switch: ' "$T/want")" -eq 2540 ]
	[ "$(grep -c '^ ' "$T/want")" -eq 14310 ]
	grep -q '^  lttng-sessiond-211   \[000\] 1417383672.251352767: sched_switch:         lttng-sessiond:211 \[120\] R ==> lttng-consumerd:232 \[120\]$' "$T/want"
}

@test "lttng: tdat-cat DIR -o x.dat writes a trace.dat trace-cmd reports as the expected, that verifies" {
	run --separate-stderr "$B/tdat-cat" -o "$T/x.dat" "$L"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	"$B/tdat-verify" -q --strict "$T/x.dat"
	"$B/tdat-dump" --records -t --trace-cmd=3.1 "$T/x.dat" | cmp - <(want)
	"$B/tdat-dump" --options "$T/x.dat" | grep -q 'Linux qemu0 3.14.23-WR7.0.0.0_standard'
	"$B/tdat-dump" --cmd-lines "$T/x.dat" | grep -q '^211 lttng-sessiond$'
	"$B/tdat-dump" --events "$T/x.dat" | grep -q '^name: lttng_statedump_process_state$'
	if command -v trace-cmd >/dev/null; then
		tc_report -t "$T/x.dat" >"$T/got" 2>"$T/err"
		[ ! -s "$T/err" ]
		want | cmp - "$T/got"
	fi
}

@test "lttng: tdat-to-ctf --lttng read back maps sched, irq and softirq events to the original's lines" {
	"$B/tdat-to-ctf" --lttng "$D/x86_64-default-sched.dat" "$T/l.ctf"
	pat=' (sched_switch|sched_wakeup|sched_wakeup_new|sched_waking|sched_migrate_task|sched_process_[a-z]+|sched_stat_[a-z]+|softirq_[a-z]+|irq_handler_[a-z]+):'
	# LTTng keeps no latency flags: that column left out
	"$B/tdat-dump" --records -t "$D/x86_64-default-sched.dat" |
	    grep -E "$pat" | sed -E 's/\] [^ ]{5} /] /' >"$T/want"
	run --separate-stderr "$B/tdat-dump" --records -t "$T/l.ctf"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	printf '%s\n' "$output" | grep -E "$pat" |
	    sed -E 's/\] [^ ]{5} /] /' >"$T/got"
	[ "$(wc -l <"$T/want")" -gt 17000 ]
	cmp "$T/want" "$T/got"
	printf '%s\n' "$output" | grep -q ' lttng_statedump_process_state: tid=148 '
}

@test "lttng: a user space trace, another CTF trace and several channels are refused in one line" {
	mkdir "$T/ust"
	cp "$L"/channel-context-switches_0 "$T/ust/"
	python3 - "$L/metadata" "$T/ust/metadata" <<-'PY'
	import sys
	d = open(sys.argv[1], 'rb').read()
	assert d.count(b'domain = "kernel";') == 1
	open(sys.argv[2], 'wb').write(d.replace(b'domain = "kernel";', b'domain = "ust";   '))
	PY
	run --separate-stderr "$B/tdat-cat" -o "$T/x.dat" "$T/ust"
	[ "$status" -eq 1 ]
	[ "$stderr" = "tdat-cat: $T/ust: an LTTng user space trace (domain \"ust\"): not supported, only kernel traces are" ]
	[ ! -e "$T/x.dat" ]
	"$B/tdat-to-ctf" --lttng "$D/x86_64-v7-none-instances.dat" "$T/i.ctf"
	run --separate-stderr "$B/tdat-dump" --records "$T/i.ctf"
	[ "$status" -eq 1 ]
	[ "$stderr" = "tdat-dump: $T/i.ctf: an LTTng trace of several channels (stream classes): not supported" ]
}

@test "lttng: damaged metadata or streams: one line, exit 1, never a hang or a crash" {
	for cut in 37 100 4096 4133 8000; do
		rm -rf "$T/m"
		cp -r "$L" "$T/m"
		truncate -s "$cut" "$T/m/metadata"
		run --separate-stderr timeout 60 "$B/tdat-dump" --records "$T/m"
		[ "$status" -eq 1 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
	done
	grep -q 'cut short' <<<"$stderr"
	rm -rf "$T/m"
	cp -r "$L" "$T/m"
	truncate -s 100000 "$T/m/channel-context-switches_0"
	run --separate-stderr timeout 60 "$B/tdat-cat" -o "$T/x.dat" "$T/m"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ ! -e "$T/x.dat" ]
}

@test "lttng: a packet's discarded events are the missed events before its first event" {
	cp -r "$L" "$T/d"
	chmod -R u+w "$T/d"
	# the second packet (at 256 KiB) says 5 events were discarded before
	# it: events_discarded, big-endian, 56 bytes into its header
	printf '\0\0\0\5' | dd of="$T/d/channel-context-switches_0" bs=1 seek=$((262144 + 56)) conv=notrunc 2>/dev/null
	"$B/tdat-dump" --records -t "$T/d" >"$T/got"
	grep -A1 -B1 'EVENTS DROPPED' "$T/got" >"$T/drop"
	[ "$(wc -l <"$T/drop")" -eq 3 ]
	grep -q '^CPU:0 \[5 EVENTS DROPPED\]$' "$T/drop"
	grep -q ' 1417383705.133434153: irq_handler_exit: ' "$T/drop"
	"$B/tdat-cat" -o "$T/d.dat" "$T/d"
	"$B/tdat-dump" --records -t "$T/d.dat" | cmp - "$T/got"
	if command -v trace-cmd >/dev/null; then
		tc_report -t "$T/d.dat" 2>/dev/null | grep -q '^CPU:0 \[5 EVENTS DROPPED\]$'
	fi
}

@test "lttng: the events are read through a metadata of the classes used, in a temporary of TMPDIR removed at the end" {
	"$B/tdat-to-ctf" --lttng "$D/x86_64-default-sched.dat" "$T/l.ctf"
	mkdir "$T/tmpd"
	TMPDIR=$T/tmpd "$B/tdat-dump" --records -t "$T/l.ctf" >"$T/trimmed"
	[ -z "$(ls -A "$T/tmpd")" ]
	# no temporary can be made: the whole metadata's graph reads them
	TMPDIR=$T/none "$B/tdat-dump" --records -t "$T/l.ctf" >"$T/whole"
	cmp "$T/trimmed" "$T/whole"
	[ "$(wc -l <"$T/whole")" -gt 25000 ]
	TMPDIR=$T/tmpd "$B/tdat-cat" -o "$T/x.dat" "$T/l.ctf"
	[ -z "$(ls -A "$T/tmpd")" ]
	"$B/tdat-dump" --records -t "$T/x.dat" | cmp - "$T/whole"
}
