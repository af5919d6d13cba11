#!/usr/bin/env bats
# table.bats: tdat-to-table, the events as CSV tables and meta.json.
# The values are checked against tdat-to-json's, as pandas reads the
# tables (python3-pandas) and as DuckDB does (@duckdb/node-api under node,
# installed at test time into a cache outside the repository:
# TDAT_DUCKDB_DIR, default ~/.cache/tdat/duckdb-VERSION), by
# t/table-check.py.  Without pandas, or node and the package, those tests
# are skipped with one line saying so.

bats_require_minimum_version 1.5.0

DUCKDB_VERSION=1.5.6-r.1

setup() {
	B=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	D=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
	T=$BATS_TEST_DIRNAME
	S=$BATS_TEST_DIRNAME/../schemas
	W=$BATS_TEST_TMPDIR
}

# A python with pandas (Debian's python3-pandas is /usr/bin/python3's
# when another python3 comes first in PATH), or skip.
need_pandas() {
	local p
	for p in python3 /usr/bin/python3; do
		if "$p" -c 'import pandas' 2>/dev/null; then
			PY=$p
			return 0
		fi
	done
	skip "pandas is not installed (apt-get install python3-pandas)"
}

# node with @duckdb/node-api, installing the pinned version into the
# cache when it is missing and the npm registry answers, or skip.
need_duckdb() {
	command -v node >/dev/null || skip "node is not installed: DuckDB check skipped"
	DUCK=${TDAT_DUCKDB_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tdat/duckdb-$DUCKDB_VERSION}
	if [ ! -f "$DUCK/node_modules/@duckdb/node-api/package.json" ]; then
		command -v npm >/dev/null || skip "npm is not installed: DuckDB check skipped"
		mkdir -p "$DUCK" &&
		    (cd "$DUCK" && timeout 300 npm install --no-audit --no-fund \
		    --silent "@duckdb/node-api@$DUCKDB_VERSION") >/dev/null 2>&1 ||
		    skip "npm install @duckdb/node-api@$DUCKDB_VERSION failed (no registry?): DuckDB check skipped"
	fi
	export NODE_PATH=$DUCK/node_modules
}

# tables NAME [OPTIONS] FILE...: tdat-to-table and tdat-to-json of the
# same inputs and options (but --hex, tdat-to-table's own), into $W/NAME
# and $W/NAME.jsonl.
tables() {
	local n=$1 a
	local -a j=()
	shift
	"$B/tdat-to-table" "$@" "$W/$n" || { echo "tdat-to-table $*: exit $?"; return 1; }
	for a in "$@"; do
		[ "$a" = --hex ] || j+=("$a")
	done
	"$B/tdat-to-json" "${j[@]}" >"$W/$n.jsonl" || { echo "tdat-to-json $*: exit $?"; return 1; }
}

# check_pandas NAME [--hex]: pandas' values of $W/NAME against the JSON.
check_pandas() {
	local n=$1
	shift
	run "$PY" "$T/table-check.py" --pandas "$@" "$W/$n" "$W/$n.jsonl"
	echo "$output" | tail -n 25
	[ "$status" -eq 0 ]
}

# The fixtures the readers are checked on: every kind of input and value.
fixtures() {
	ls "$D"/*.dat "$D"/latency/latency-wakeup-v7.dat \
	    "$D"/plugins/x86_64-v7-wifi.dat "$D"/plugins/x86_64-v6-scsi.dat \
	    "$D"/probe/kprobe-ustring.dat "$D"/json/fib.dat \
	    "$D"/table/rtapp-bprint.dat "$D"/tc34/x86_64-tc34-func-args.dat \
	    "$D"/tc34/x86_64-tc34-lastboot-warm.dat
}

# A copy of labsisop-qemu-trace.dat with an unknown event (t/mkunknown)
# whose page says events were lost before it (RB_MISSED_EVENTS, bit 31 of
# the 4-byte commit of CPU 0's first page, at 1122304 + 8).
lost_unknown() {
	python3 "$T/mkunknown" "$D/labsisop-qemu-trace.dat" "$W/unk.dat"
	python3 -c '
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
p = 1122304 + 8
c = struct.unpack("<I", d[p:p + 4])[0]
d[p:p + 4] = struct.pack("<I", c | 0x80000000)
open(sys.argv[2], "wb").write(d)' "$W/unk.dat" "$W/lost.dat"
}

@test "one CSV per event type, columns in order, and meta.json" {
	run "$B/tdat-to-table" "$D/x86_64-default-sched.dat" "$W/t"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ -f "$W/t/meta.json" ]
	[ -f "$W/t/sched.sched_switch.csv" ]
	[ -f "$W/t/irq.softirq_entry.csv" ]
	[ "$(head -n 1 "$W/t/sched.sched_switch.csv")" = \
	    "common_ts,common_cpu,common_pid,common_comm,common_flags,common_preempt_count,prev_comm,prev_pid,prev_prio,prev_state,next_comm,next_pid,next_prio" ]
	# sched_wakeup's own pid and comm do not clash with the task's
	head -n 1 "$W/t/sched.sched_wakeup.csv" | grep -q '^common_ts,common_cpu,common_pid,common_comm,.*,comm,pid,'
	# every event is a row of one table, and meta.json counts them
	rows=$(cat "$W"/t/*.csv | wc -l)
	tables=$(ls "$W"/t/*.csv | wc -l)
	events=$("$B/tdat-to-json" "$D/x86_64-default-sched.dat" | wc -l)
	[ $((rows - tables)) -eq "$events" ]
	run jq -r '."nr-rows", ."cpus-count", ."trace-clock", ."trace-id", (."events-info" | length)' "$W/t/meta.json"
	[ "${lines[0]}" -eq "$events" ]
	[ "${lines[1]}" -eq 4 ]
	[ "${lines[2]}" = local ]
	[[ ${lines[3]} == 0x* ]]
	[ "${lines[4]}" -eq "$tables" ]
	# the time range is the first and last event's
	first=$("$B/tdat-to-json" "$D/x86_64-default-sched.dat" | head -n 1 | jq .ts)
	[ "$(jq '."time-range"[0]' "$W/t/meta.json")" = "$first" ]
	# the pid -> comm map of the saved command lines
	[ "$(jq -r '."pid-comms"[] | select(.[0] == 150) | .[1]' "$W/t/meta.json")" = sh ]
}

@test "meta.json validates against schemas/table-meta.schema.json" {
	python3 -c 'import jsonschema' 2>/dev/null || skip "python3-jsonschema is not installed"
	for f in x86_64-default-sched.dat latency/latency-wakeup-v7.dat; do
		rm -rf "$W/m"
		"$B/tdat-to-table" "$D/$f" "$W/m"
		run python3 "$T/json-validate.py" "$S/table-meta.schema.json" "$W/m/meta.json"
		[ "$status" -eq 0 ] || { echo "$f: $output"; return 1; }
	done
	rm -rf "$W/m"
	lost_unknown
	"$B/tdat-to-table" --hex "$D/hip24-host-trace.dat" "$W/lost.dat" "$W/m"
	run python3 "$T/json-validate.py" "$S/table-meta.schema.json" "$W/m/meta.json"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
}

@test "pandas reads every table of the fixtures with meta.json's dtypes: every value is tdat-to-json's" {
	need_pandas
	for f in $(fixtures); do
		n=$(basename "$f" .dat)
		tables "$n" "$f"
		check_pandas "$n" || { echo "$f"; return 1; }
	done
}

@test "DuckDB reads every table of the fixtures (read_csv_auto with meta.json's types): row counts and values" {
	need_duckdb
	need_pandas
	for f in $(fixtures); do
		n=$(basename "$f" .dat)
		tables "$n" "$f"
		run node "$T/table-duck.mjs" "$W/$n" "$W/$n.duck"
		[ "$status" -eq 0 ] || { echo "$f: $output"; return 1; }
		run "$PY" "$T/table-check.py" --duck "$W/$n.duck" "$W/$n" "$W/$n.jsonl"
		echo "$output"
		[ "$status" -eq 0 ] || { echo "$f"; return 1; }
		[[ $output == *"duckdb: "*" tables, "* ]]
	done
}

@test "u64 beyond 2^63 exact: addresses in decimal by default, \"0x...\" strings with --hex" {
	need_pandas
	tables dec "$D/json/function.dat"
	tables hex --hex "$D/json/function.dat"
	# ftrace function ip: a kernel address, above 2^63
	ip=$(jq -r 'select(.event == "function") | .fields.ip' "$W/dec.jsonl" | head -n 1)
	[[ $ip == 0xffff* ]]
	[ "$(sed -n 2p "$W/dec/ftrace.function.csv" | cut -d, -f7)" = "$(printf '%u' "$ip")" ]
	[ "$(sed -n 2p "$W/hex/ftrace.function.csv" | cut -d, -f7)" = "\"$ip\"" ]
	[ "$(jq -r '.pointers' "$W/dec/meta.json")" = decimal ]
	[ "$(jq -r '."events-info"[0].columns[] | select(.name == "ip") | .dtype' "$W/dec/meta.json")" = uint64 ]
	[ "$(jq -r '."events-info"[0].columns[] | select(.name == "ip") | .dtype' "$W/hex/meta.json")" = str ]
	check_pandas dec
	check_pandas hex --hex
	# the symbol beside it
	head -n 1 "$W/dec/ftrace.function.csv" | grep -q ',ip_sym,parent_ip_sym$'
}

@test "trace_printk rows carry their format string" {
	need_pandas
	tables p "$D/table/rtapp-bprint.dat"
	head -n 1 "$W/p/ftrace.bprint.csv" | grep -q ',ip,fmt,buf,format$'
	sed -n 2p "$W/p/ftrace.bprint.csv" | grep -q ',"evt=util_est_rq step=pre pid=%d comm=%s cpu=%d rq=%p'
	check_pandas p
}

@test "a table per trace_printk format, its arguments in typed columns named from the format" {
	need_pandas
	"$B/tdat-to-table" "$D/table/rtapp-bprint.dat" "$W/p"
	[ "$(jq '[."events-info"[] | select(.kind == "printk")] | length' "$W/p/meta.json")" -eq 10 ]
	t=$(jq -r '."events-info"[] | select(.format == "evt=util_est_rq step=pre pid=%d comm=%s cpu=%d rq=%p event=enqueue t_avg=%lu t_est=%lu q_avg=%lu q_est=%lu") | .path' "$W/p/meta.json")
	[ "$(head -n 1 "$W/p/$t")" = common_ts,common_cpu,common_pid,common_comm,common_flags,common_preempt_count,ip,pid,comm,cpu,rq,t_avg,t_est,q_avg,q_est ]
	[ "$(jq -r --arg t "$t" '."events-info"[] | select(.path == $t) | .read_csv.dtype | "\(.pid) \(.comm) \(.rq) \(.t_avg)"' "$W/p/meta.json")" = "int32 str uint64 uint64" ]
	# every row's arguments put back into its format make the message
	# tdat-dump prints, and every bprint record has its row
	"$B/tdat-dump" --records -N -t "$D/table/rtapp-bprint.dat" >"$W/report.txt"
	run "$PY" "$T/table-printk.py" "$W/p" "$W/report.txt"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "10 tables, 200 rows, 200 messages equal" ]
	# the format tables' rows are not counted twice
	[ "$(jq '."nr-rows"' "$W/p/meta.json")" -eq 200 ]
	# --hex: %p arguments as "0x..." strings too
	"$B/tdat-to-table" --hex "$D/table/rtapp-bprint.dat" "$W/h"
	sed -n 2p "$W/h/$t" | grep -q ',"0xffffffc97fed2f68",'
}

@test "unknown events and lost events go to tables of their own" {
	need_pandas
	lost_unknown
	tables ul "$W/lost.dat"
	[ "$(cat "$W/ul/unknown.csv")" = "common_ts,common_cpu,id,data
585229563745,0,999,\"e70301005a00000074726163652d636d64000000000000005a000000780000000100000074726163652d636d64000000000000005b00000078000000\"" ]
	[ "$(cat "$W/ul/lost.csv")" = "common_ts,common_cpu,lost
585229563745,0," ]
	[ "$(jq -r '."events-info"[] | select(.path == "lost.csv") | .read_csv.na_values.lost[0]' "$W/ul/meta.json")" = "" ]
	check_pandas ul
}

@test "a latency tracer's text: latency.csv, one row a line" {
	need_pandas
	tables l "$D/latency/latency-wakeup-v6.dat"
	[ "$(ls "$W/l")" = "latency.csv
meta.json" ]
	[ "$(wc -l <"$W/l/latency.csv")" -eq $(($(wc -l <"$W/l.jsonl") + 1)) ]
	check_pandas l
}

@test "several inputs: one stream merged by time, a common_file column" {
	need_pandas
	tables m "$D/hip24-host-trace.dat" "$D/multi/hip24-guest-cut.dat"
	head -n 1 "$W/m/kvm.kvm_exit.csv" | grep -q '^common_ts,common_cpu,common_file,common_pid,'
	[ "$(jq '.files | length' "$W/m/meta.json")" -eq 2 ]
	check_pandas m
}

@test "instances: a common_buffer column, \"\" for the top buffer" {
	need_pandas
	tables i "$D/x86_64-v7-none-instances.dat"
	head -n 1 "$W/i/sched.sched_switch.csv" | grep -q '^common_ts,common_cpu,common_buffer,common_pid,'
	cut -d, -f3 "$W/i/sched.sched_switch.csv" | sort -u | grep -qx '""'
	check_pandas i
}

@test "selection options choose the rows" {
	need_pandas
	tables s -e sched_switch --cpu 1 "$D/x86_64-default-sched.dat"
	[ "$(ls "$W/s")" = "meta.json
sched.sched_switch.csv" ]
	[ "$(cut -d, -f2 "$W/s/sched.sched_switch.csv" | sort -u | tr '\n' ' ')" = "1 common_cpu " ]
	check_pandas s
	run "$B/tdat-to-table" --pid 1,x "$D/x86_64-default-sched.dat" "$W/bad"
	[ "$status" -eq 2 ]
	[ ! -e "$W/bad" ]
}

@test "standard input: DIR alone reads a pipe or a file" {
	"$B/tdat-to-table" "$W/a" <"$D/x86_64-default-sched.dat"
	"$B/tdat-to-table" "$D/x86_64-default-sched.dat" "$W/b"
	diff -r -q -x meta.json "$W/a" "$W/b"
	[ "$(jq -r '.files[0].path' "$W/a/meta.json")" = - ]
	cat "$D/x86_64-default-sched.dat" | "$B/tdat-to-table" "$W/c"
	diff -r -q "$W/a" "$W/c"
	run "$B/tdat-to-table" "$W/d" </dev/null
	[ "$status" -eq 2 ]
	[[ ${lines[0]} == "tdat-to-table: expected FILE... DIR" ]]
}

@test "DIR is made whole or not at all: an existing DIR is refused, a damaged input leaves nothing" {
	mkdir "$W/x"
	run "$B/tdat-to-table" "$D/x86_64-default-sched.dat" "$W/x"
	[ "$status" -eq 2 ]
	[ -z "$(ls -A "$W/x")" ]
	head -c 1000000 "$D/labsisop-qemu-trace.dat" >"$W/cut.dat"
	run --separate-stderr "$B/tdat-to-table" "$W/cut.dat" "$W/y"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "tdat-to-table: $W/cut.dat: "* ]]
	[ ! -e "$W/y" ]
	[ -z "$(ls -A "$W" | grep '^\.')" ]
}

# bad NAME CUTS: tdat-to-table on damaged copies of NAME.dat (t/mkbad,
# CUTS cuts at boundaries): no crash or hang, one message line, nothing
# left of a refused copy; and pandas reads every table of the copies it
# took, with the row counts meta.json gives.
bad() {
	local out=$W/bad
	mkdir -p "$out" "$W/wrap"
	# mkbad appends the copy's path and wants messages named by the
	# command: a tdat-to-table that writes each copy's tables to a DIR
	# of its own
	printf '#!/bin/sh\nexec "%s" "$1" "%s/t.$$"\n' "$B/tdat-to-table" \
	    "$out" >"$W/wrap/tdat-to-table"
	chmod +x "$W/wrap/tdat-to-table"
	run python3 "$T/mkbad" -n "${TDAT_MKBAD_N:-12}" -c "$2" "$D/$1.dat" -- \
	    "$W/wrap/tdat-to-table"
	echo "$output" | tail -n 20
	[ "$status" -eq 0 ]
	run ls -A "$out"
	[[ $output != *.t.* ]] || { echo "left behind: $output"; return 1; }
	need_pandas
	run "$PY" -c '
import json, os, sys
import pandas as pd
n = 0
for d in sorted(os.listdir(sys.argv[1])):
    d = os.path.join(sys.argv[1], d)
    meta = json.load(open(os.path.join(d, "meta.json")))
    for t in meta["events-info"]:
        df = pd.read_csv(os.path.join(d, t["path"]), **t["read_csv"])
        assert len(df) == t["nr-rows"], (d, t["path"], len(df))
        n += 1
print("%d tables read" % n)
sys.exit(n == 0)' "$out"
	echo "$output" | tail -n 5
	[ "$status" -eq 0 ]
}

@test "damaged inputs: refused in one line, or tables pandas reads (v6 32-bit, v7 zstd big-endian)" {
	bad labsisop-qemu-trace 60
	bad s390x-v7-zstd-sched 60
}
