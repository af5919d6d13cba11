#!/usr/bin/env bats
# threads.bats: records formatted on worker threads (lib/merge/par.c)
# print byte for byte what one thread prints (TDAT_THREADS=1): text in
# its modes, JSON Lines and --chrome, over the fixtures, cut in blocks of
# a few records (TDAT_THREADS_BLOCK) so that blocks, passes over a block
# and their order are tried on small traces; and the threads are there.
# Run by t/run-tests (make check); TDAT_BIN names the tools' folder.

bats_require_minimum_version 1.5.0

setup() {
	D=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
	B=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	if [ ! -x "$B/tdat-dump" ] || [ ! -x "$B/tdat-to-json" ]; then
		echo "# $B/tdat-dump or tdat-to-json is not built" >&3
		return 1
	fi
}

load helpers

# one FILE TOOL ARGS...: TOOL ARGS FILE on one thread, into one and
# one.err; its exit status in st1.
one() {
	local f=$1 tool=$2
	shift 2
	TDAT_THREADS=1 "$B/$tool" "$@" "$f" >"$BATS_TEST_TMPDIR/one" \
	    2>"$BATS_TEST_TMPDIR/one.err" && st1=0 || st1=$?
}

# like_one HOW FILE TOOL ARGS...: TOOL ARGS FILE run with env(1)'s
# arguments in the array run_env gives what one() got: the same output,
# messages and exit status.  HOW says how it ran.
like_one() {
	local how=$1 f=$2 tool=$3 st
	shift 3
	env "${run_env[@]}" "$B/$tool" "$@" "$f" >"$BATS_TEST_TMPDIR/more" \
	    2>"$BATS_TEST_TMPDIR/more.err" && st=0 || st=$?
	if [ "$st" != "$st1" ]; then
		echo "$tool $* $f: exit $st1 on 1 thread, $st $how"
		return 1
	fi
	same "$BATS_TEST_TMPDIR/one" "$BATS_TEST_TMPDIR/more" ||
	    { echo "$tool $* $f: $how"; return 1; }
	same "$BATS_TEST_TMPDIR/one.err" "$BATS_TEST_TMPDIR/more.err" ||
	    { echo "$tool $* $f: messages, $how"; return 1; }
}

# both FILE TOOL ARGS...: TOOL ARGS FILE on one thread and on 2 and 3
# threads in blocks of 1, 7 and 64 records: the same output, messages
# and exit status.
both() {
	local f=$1 tool=$2 n blk
	shift 2
	one "$f" "$tool" "$@"
	for n in 2 3; do
		for blk in 1 7 64; do
			run_env=(TDAT_THREADS=$n TDAT_THREADS_BLOCK=$blk)
			like_one "on $n threads, blocks of $blk" "$f" "$tool" \
			    "$@" || return 1
		done
	done
}

fixtures() {
	ls "$D"/*.dat "$D"/plugins/*.dat "$D"/tc34/*.dat "$D"/crash/*.dat \
	    "$D"/latency/*.dat
}

# report_modes CHECK FILE: CHECK (both or auto) FILE tdat-dump --records
# in the modes -N -t, -R -t, -t, the default and -l.
report_modes() {
	local check=$1 f=$2 m
	for m in "-N -t" "-R -t" "-t" "" "-l"; do
		# shellcheck disable=SC2086
		"$check" "$f" tdat-dump --records $m || return 1
	done
}

@test "text report -N -t, -R -t, -t, default, -l: one thread or several, the same bytes" {
	local f
	for f in $(fixtures); do
		report_modes both "$f"
		both "$f" tdat-dump --records -N --trace-cmd=3.1
	done
}

@test "JSON Lines and --chrome: one thread or several, the same bytes" {
	local f
	for f in $(fixtures); do
		both "$f" tdat-to-json
		both "$f" tdat-to-json --chrome
	done
}

@test "several inputs (host and guest), instances, a selection: the same bytes" {
	local h=$D/hip24-host-trace.dat g=$D/multi/hip24-guest-cut.dat
	TDAT_THREADS=1 "$B/tdat-dump" --records -t "$h" "$g" >"$BATS_TEST_TMPDIR/a"
	TDAT_THREADS=2 TDAT_THREADS_BLOCK=5 "$B/tdat-dump" --records -t "$h" "$g" >"$BATS_TEST_TMPDIR/b"
	same "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	TDAT_THREADS=1 "$B/tdat-dump" --records -N -t "$h" "$g" >"$BATS_TEST_TMPDIR/a"
	TDAT_THREADS=2 TDAT_THREADS_BLOCK=5 "$B/tdat-dump" --records -N -t "$h" "$g" >"$BATS_TEST_TMPDIR/b"
	same "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	TDAT_THREADS=1 "$B/tdat-to-json" "$h" "$g" >"$BATS_TEST_TMPDIR/a"
	TDAT_THREADS=2 TDAT_THREADS_BLOCK=5 "$B/tdat-to-json" "$h" "$g" >"$BATS_TEST_TMPDIR/b"
	same "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	both "$D/x86_64-v7-none-instances.dat" tdat-dump --records -t
	both "$D/x86_64-v7-none-instances.dat" tdat-dump --records -t --buffer foo
	both "$D/x86_64-default-sched.dat" tdat-dump --records -t -e sched_switch --cpu 1
	both "$D/x86_64-default-sched.dat" tdat-to-json -e sched_switch --cpu 1
}

@test "the records are formatted on the threads asked for, each one's CPU time said" {
	local f=$D/x86_64-default-sched.dat
	TDAT_THREADS=2 TDAT_THREADS_BLOCK=100 TDAT_THREADS_STATS=1 \
	    "$B/tdat-dump" --records -N -t "$f" 2>"$BATS_TEST_TMPDIR/err" >/dev/null
	cat "$BATS_TEST_TMPDIR/err"
	grep -E -q '^tdat: 2 format threads, ([2-9]|[1-9][0-9]+) blocks, [1-9][0-9]* records$' \
	    "$BATS_TEST_TMPDIR/err"
	# TDAT_THREADS=2: the driver's thread and one worker
	grep -E -q '^tdat: driver [0-9]+\.[0-9]{3} s CPU, [0-9]+ passes; worker 1 [0-9]+\.[0-9]{3} s, [0-9]+ passes$' \
	    "$BATS_TEST_TMPDIR/err"
	! grep -q 'worker 2' "$BATS_TEST_TMPDIR/err"
	TDAT_THREADS=3 TDAT_THREADS_STATS=1 "$B/tdat-to-json" "$f" \
	    2>"$BATS_TEST_TMPDIR/err" >/dev/null
	grep -E -q '^tdat: 3 format threads, [1-9][0-9]* blocks' "$BATS_TEST_TMPDIR/err"
	grep -E -q '^tdat: driver .*; worker 1 .*; worker 2 [^;]*$' "$BATS_TEST_TMPDIR/err"
	# one thread, and --chrome (it pairs switches): record by record
	TDAT_THREADS=1 TDAT_THREADS_STATS=1 "$B/tdat-dump" --records -N -t "$f" \
	    2>"$BATS_TEST_TMPDIR/err" >/dev/null
	! grep -q 'format threads' "$BATS_TEST_TMPDIR/err"
	TDAT_THREADS=2 TDAT_THREADS_STATS=1 "$B/tdat-to-json" --chrome "$f" \
	    2>"$BATS_TEST_TMPDIR/err" >/dev/null
	! grep -q 'format threads' "$BATS_TEST_TMPDIR/err"
}

@test "the function plugin (callers per CPU) prints on one thread, -N on several" {
	local f=$D/plugins/x86_64-fgraph-retval.dat
	TDAT_THREADS=2 TDAT_THREADS_STATS=1 "$B/tdat-dump" --records "$f" \
	    2>"$BATS_TEST_TMPDIR/err" >/dev/null
	! grep -q 'format threads' "$BATS_TEST_TMPDIR/err"
	TDAT_THREADS=2 TDAT_THREADS_STATS=1 "$B/tdat-dump" --records -N "$f" \
	    2>"$BATS_TEST_TMPDIR/err" >/dev/null
	grep -q '^tdat: 2 format threads' "$BATS_TEST_TMPDIR/err"
}


# auto FILE TOOL ARGS...: TOOL ARGS FILE with TDAT_THREADS unset, the
# threads started after 1, 7 and 100 records (TDAT_THREADS_AFTER), in
# blocks of 7: the same output, messages and exit status as on one thread.
auto() {
	local f=$1 tool=$2 n
	shift 2
	one "$f" "$tool" "$@"
	for n in 1 7 100; do
		run_env=(-u TDAT_THREADS TDAT_THREADS_AFTER=$n
		    TDAT_THREADS_BLOCK=7)
		like_one "threads from record $((n + 1))" "$f" "$tool" "$@" ||
		    return 1
	done
}

@test "TDAT_THREADS unset: threads from a record on, the same bytes as one thread" {
	local f
	for f in $(fixtures); do
		report_modes auto "$f"
		auto "$f" tdat-to-json
	done
	# a selection and several inputs: the driver's general loop
	auto "$D/plugins/x86_64-v6-futex.dat" tdat-dump --records -N -t --cpu 1
	auto "$D/plugins/x86_64-v6-futex.dat" tdat-to-json --cpu 1
	auto "$D/plugins/x86_64-v6-jbd2.dat" tdat-dump --records -N -t \
	    "$D/plugins/x86_64-v6-futex.dat"
}

@test "TDAT_THREADS unset: two threads on uncompressed pages after 262,144 records, else one" {
	local v6=$D/plugins/x86_64-v6-futex.dat z=$D/x86_64-default-sched.dat
	local err=$BATS_TEST_TMPDIR/err
	env -u TDAT_THREADS TDAT_THREADS_AFTER=100 TDAT_THREADS_STATS=1 \
	    "$B/tdat-dump" --records -N -t "$v6" 2>"$err" >/dev/null
	cat "$err"
	grep -E -q '^tdat: 2 format threads from record 101, [1-9][0-9]* blocks, 1832 records$' "$err"
	env -u TDAT_THREADS TDAT_THREADS_AFTER=100 TDAT_THREADS_STATS=1 \
	    "$B/tdat-to-json" "$v6" 2>"$err" >/dev/null
	grep -q '^tdat: 2 format threads from record 101, ' "$err"
	# an uncompressed v7 file
	env -u TDAT_THREADS TDAT_THREADS_AFTER=100 TDAT_THREADS_STATS=1 \
	    "$B/tdat-dump" --records -N -t "$D/x86_64-v7-none-instances.dat" \
	    2>"$err" >/dev/null
	grep -q '^tdat: 2 format threads from record 101, ' "$err"
	# fewer records than 262,144: one thread
	env -u TDAT_THREADS -u TDAT_THREADS_AFTER TDAT_THREADS_STATS=1 \
	    "$B/tdat-dump" --records -N -t "$v6" 2>"$err" >/dev/null
	! grep -q 'format threads' "$err"
	# compressed pages (the second CPU decompresses ahead): one thread
	env -u TDAT_THREADS TDAT_THREADS_AFTER=100 TDAT_THREADS_STATS=1 \
	    "$B/tdat-dump" --records -N -t "$z" 2>"$err" >/dev/null
	! grep -q 'format threads' "$err"
	env -u TDAT_THREADS TDAT_THREADS_AFTER=100 TDAT_THREADS_STATS=1 \
	    "$B/tdat-to-json" "$z" 2>"$err" >/dev/null
	! grep -q 'format threads' "$err"
	# TDAT_THREADS=1, and one CPU to run on: one thread
	TDAT_THREADS=1 TDAT_THREADS_AFTER=100 TDAT_THREADS_STATS=1 \
	    "$B/tdat-dump" --records -N -t "$v6" 2>"$err" >/dev/null
	! grep -q 'format threads' "$err"
	if command -v taskset >/dev/null; then
		env -u TDAT_THREADS TDAT_THREADS_AFTER=100 TDAT_THREADS_STATS=1 \
		    taskset -c 0 "$B/tdat-dump" --records -N -t "$v6" 2>"$err" >/dev/null
		! grep -q 'format threads' "$err"
	fi
}

@test "TDAT_THREADS that is not a number: one line, exit 2" {
	run -2 env TDAT_THREADS=two "$B/tdat-dump" --records "$D/x86_64-default-sched.dat"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"TDAT_THREADS=two: not a number of threads"* ]]
	run -2 env TDAT_THREADS=0 "$B/tdat-to-json" "$D/x86_64-default-sched.dat"
	[[ "$output" == *"TDAT_THREADS=0"* ]]
}

@test "threads: a write error and a closed pipe as on one thread" {
	local f=$D/x86_64-default-sched.dat
	TDAT_THREADS=2 TDAT_THREADS_BLOCK=10 "$B/tdat-dump" --records -t "$f" >/dev/full 2>"$BATS_TEST_TMPDIR/err" && st=0 || st=$?
	[ "$st" = 2 ]
	TDAT_THREADS=2 TDAT_THREADS_BLOCK=10 "$B/tdat-to-json" "$f" >/dev/full 2>"$BATS_TEST_TMPDIR/err" && st=0 || st=$?
	[ "$st" = 2 ]
	grep -q 'write error' "$BATS_TEST_TMPDIR/err"
	st=$(set -o pipefail; TDAT_THREADS=2 TDAT_THREADS_BLOCK=10 "$B/tdat-dump" --records -t "$f" | head -n 1 >/dev/null; echo $?)
	[ "$st" = 141 ]
}

# clones TOOL ARGS...: the threads TOOL ARGS started (strace's clone
# calls: a call another thread's interrupted is also on a second line,
# "<... clone3 resumed>", not counted), in n.
clones() {
	strace -f -qq -e trace=clone,clone3 -o "$BATS_TEST_TMPDIR/st" "$@" \
	    >/dev/null 2>&1 || true
	n=$(grep -c -E ' clone3?\(' "$BATS_TEST_TMPDIR/st" || true)
}

@test "tdat-verify's second thread and tdat-cat's compressing threads: none for a second CPU under taskset -c 0" {
	command -v strace >/dev/null 2>&1 || skip "strace is not installed"
	command -v taskset >/dev/null 2>&1 || skip "taskset is not installed"
	[ "$(taskset -c 0,1 nproc 2>/dev/null)" = 2 ] || skip "fewer than 2 CPUs"
	local f=$D/x86_64-v7-none-instances.dat all
	# tdat-verify: its second thread for a 4.9 MB file on two CPUs
	clones taskset -c 0,1 "$B/tdat-verify" "$f"
	all=$n
	clones taskset -c 0 "$B/tdat-verify" "$f"
	echo "tdat-verify: $all threads on two CPUs, $n on one"
	[ "$all" -ge 1 ]
	[ "$n" -eq $((all - 1)) ]
	# tdat-cat --compression zstd: one compressing thread on two CPUs
	clones taskset -c 0,1 "$B/tdat-cat" --compression zstd -o "$BATS_TEST_TMPDIR/o.dat" "$f"
	all=$n
	clones taskset -c 0 "$B/tdat-cat" --compression zstd -o "$BATS_TEST_TMPDIR/o.dat" "$f"
	echo "tdat-cat: $all threads on two CPUs, $n on one"
	[ "$n" -eq $((all - 1)) ]
	run -0 "$B/tdat-verify" "$BATS_TEST_TMPDIR/o.dat"
}
