#!/usr/bin/env bats
# output.bats: where the tools' output goes (lib/common/output.c).  A writer
# interrupted by SIGINT, SIGTERM, SIGHUP or SIGPIPE leaves no temporary
# file or directory and no output under the final name, and ends with
# status 128 + N; a write error (/dev/full, a full file system) is one
# line naming the output; with no FILE, standard input is read when it is
# a pipe or a file, trace.dat (or the tool's own default) otherwise; one
# progress printer.
# Run by t/run-tests (make check); TDAT_BIN names the tools' folder.

bats_require_minimum_version 1.5.0

setup_file() {
	local d=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
	local b=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	local i=$d/x86_64-v7-none-instances.dat

	# A trace big enough to take a while to convert (merged copies).
	export BIG=$BATS_FILE_TMPDIR/big.dat
	"$b/tdat-cat" --no-progress -o "$BIG" "$i" "$i" "$i" "$i" "$i" "$i" \
	    "$i" "$i" "$i" "$i" "$i" "$i" "$i" "$i" "$i" "$i"
}

setup() {
	D=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
	B=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	T=$BATS_TEST_TMPDIR
	S=$D/x86_64-default-sched.dat
	if [ ! -x "$B/tdat-cat" ]; then
		echo "# $B/tdat-cat is not built" >&3
		return 1
	fi
	env --default-signal true 2>/dev/null ||
	    skip "env has no --default-signal"
}

# Nothing but $T/out's temporary may be beside it.
no_temporary() {
	local left

	left=$(ls -A "$T" | grep '^\.out\.' || true)
	[ -z "$left" ] || { echo "left behind: $left"; return 1; }
}

# stalled_stderr: open fd 9 on a FIFO whose buffer is full, so that the
# first write a tool makes to it (its progress line) blocks.
stalled_stderr() {
	mkfifo "$T/fifo"
	exec 9<>"$T/fifo"
	python3 -c '
import fcntl, os
fl = fcntl.fcntl(9, fcntl.F_GETFL)
fcntl.fcntl(9, fcntl.F_SETFL, fl | os.O_NONBLOCK)
for n in (4096, 1):
	try:
		while True:
			os.write(9, b"x" * n)
	except BlockingIOError:
		pass
fcntl.fcntl(9, fcntl.F_SETFL, fl)'
}

# wait_for GLOB PID: until a file matching GLOB exists (5 s at most).
wait_for() {
	local i

	for i in $(seq 500); do
		compgen -G "$1" >/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.01
	done
	return 1
}

# interrupt SIG NUM OUT CMD...: start CMD (stderr on the stalled FIFO,
# default signal actions), wait until the temporary of OUT exists and
# CMD is blocked, send SIG; CMD must die of it, leaving nothing.
interrupt() {
	local sig=$1 num=$2 out=$3 pid st=0
	shift 3

	stalled_stderr
	env --default-signal "$@" 2>&9 &
	pid=$!
	wait_for "$T/.$out.*" "$pid" || { echo "no temporary"; return 1; }
	sleep 0.1
	kill -0 "$pid"
	[ ! -e "$T/$out" ]
	kill -"$sig" "$pid"
	wait "$pid" || st=$?
	exec 9>&-
	echo "status $st"
	[ "$st" -eq $((128 + num)) ]
	no_temporary
	[ ! -e "$T/$out" ]
}

# ---- interruption: each writer stalled on its progress line

@test "tdat-cat -o: SIGTERM, SIGINT, SIGHUP, SIGPIPE leave no temporary" {
	for s in TERM:15 INT:2 HUP:1 PIPE:13; do
		echo "# SIG${s%:*}"
		interrupt "${s%:*}" "${s#*:}" out.dat "$B/tdat-cat" --progress \
		    --compression zlib -o "$T/out.dat" "$BIG"
		rm -f "$T/fifo"
	done
}

@test "tdat-to-ltt: SIGTERM, SIGINT, SIGHUP, SIGPIPE leave no temporary directory" {
	for s in TERM:15 INT:2 HUP:1 PIPE:13; do
		echo "# SIG${s%:*}"
		interrupt "${s%:*}" "${s#*:}" out.ltt "$B/tdat-to-ltt" \
		    --progress "$BIG" "$T/out.ltt"
		rm -f "$T/fifo"
	done
}

@test "tdat-to-json -o: SIGTERM, SIGINT, SIGHUP, SIGPIPE leave no temporary" {
	for s in TERM:15 INT:2 HUP:1 PIPE:13; do
		echo "# SIG${s%:*}"
		interrupt "${s%:*}" "${s#*:}" out.json "$B/tdat-to-json" \
		    --progress -o "$T/out.json" "$BIG"
		rm -f "$T/fifo"
	done
}

@test "tdat-to-table: SIGTERM, SIGINT, SIGHUP, SIGPIPE leave no temporary directory" {
	for s in TERM:15 INT:2 HUP:1 PIPE:13; do
		echo "# SIG${s%:*}"
		interrupt "${s%:*}" "${s#*:}" out.tables "$B/tdat-to-table" \
		    --progress "$BIG" "$T/out.tables"
		rm -f "$T/fifo"
	done
}

@test "tdat-cat -o: SIGBUS (its mapped input cut short) leaves no temporary, one line, exit 2" {
	local pid cpid st=0

	# tdat-cat maps the input's raw pages; an input truncated while it
	# copies them raises SIGBUS, on whichever thread touches the pages.
	# Stand-in: the signal sent while it is stalled on its progress line.
	stalled_stderr
	env --default-signal "$B/tdat-cat" --progress --compression zlib \
	    -o "$T/out.dat" "$BIG" 2>&9 &
	pid=$!
	wait_for "$T/.out.dat.*" "$pid" || { echo "no temporary"; return 1; }
	sleep 0.1
	kill -BUS "$pid"
	cat <&9 >"$T/err" 2>/dev/null &
	cpid=$!
	wait "$pid" || st=$?
	sleep 0.2
	kill "$cpid"
	exec 9>&-
	echo "status $st"
	[ "$st" -eq 2 ]
	grep -q "tdat-cat: $BIG: file changed while being read\$" "$T/err"
	[ "$(grep -c 'tdat-cat:' "$T/err")" -eq 1 ]
	no_temporary
	[ ! -e "$T/out.dat" ]
}

# masks TAG: each thread but the first (execve) that strace -ff traced into
# $T/TAG.* started with every signal blocked but SIGBUS (glibc's thread
# start sets the mask it was created with: the first SIG_SETMASK traced
# on it); at least one such thread.
masks() {
	local f m n=0

	for f in "$T/$1".*; do
		grep -q '^execve(' "$f" && continue
		m=$(grep -m 1 '^rt_sigprocmask(SIG_SETMASK, ' "$f")
		echo "$1 ${f##*.}: $m"
		[[ "$m" == "rt_sigprocmask(SIG_SETMASK, ~[BUS "* ]] || return 1
		[[ "${m%%]*}" != *INT* && "${m%%]*}" != *TERM* ]] || return 1
		[[ "${m%%]*}" != *HUP* && "${m%%]*}" != *PIPE* ]] || return 1
		n=$((n + 1))
	done
	[ "$n" -ge 1 ]
}

# SIGINT, SIGTERM, SIGHUP and SIGPIPE go to the thread that keeps the
# list of temporaries (the handler must not run while it is halfway
# through it), SIGBUS wherever a mapped input is read: every thread a tool
# starts (read-ahead, kallsyms, formatters, compressors, checks) blocks
# all signals but SIGBUS (lib/common/tdat-thread.h).
@test "every thread a tool starts blocks every signal but SIGBUS" {
	command -v strace >/dev/null 2>&1 || skip "strace is not installed"
	local st="strace -ff -e trace=execve,rt_sigprocmask -o"

	# (LeakSanitizer stops under ptrace: make check-asan's build)
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	$st "$T/dump" "$B/tdat-dump" --records "$S" >/dev/null
	masks dump
	TDAT_THREADS=2 $st "$T/par" "$B/tdat-dump" --records "$S" >/dev/null
	masks par
	$st "$T/json" "$B/tdat-to-json" "$S" >/dev/null
	masks json
	$st "$T/verify" "$B/tdat-verify" -q "$S"
	masks verify
	$st "$T/cat" "$B/tdat-cat" --file-version 7 --compression zstd \
	    -o "$T/out.dat" "$D/hebel23-driver-trace.dat"
	masks cat
}

@test "an ignored SIGHUP (nohup) stays ignored: the output is complete" {
	local pid cpid st=0

	stalled_stderr
	env --default-signal --ignore-signal=HUP "$B/tdat-cat" --progress \
	    -o "$T/out.dat" "$S" 2>&9 &
	pid=$!
	wait_for "$T/.out.dat.*" "$pid"
	kill -HUP "$pid"
	sleep 0.1
	kill -0 "$pid"
	cat <&9 >/dev/null 2>&1 &
	cpid=$!
	wait "$pid" || st=$?
	kill "$cpid"
	exec 9>&-
	[ "$st" -eq 0 ]
	no_temporary
	"$B/tdat-verify" -q "$T/out.dat"
}

# ---- SIGPIPE when reading stops

@test "tdat-dump --records BIG | head -1 ends quietly by SIGPIPE" {
	run --separate-stderr bash -c \
	    '"$0" --records "$1" | head -1; exit ${PIPESTATUS[0]}' \
	    "$B/tdat-dump" "$BIG"
	[ "$status" -eq 141 ]
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 1 ]
	run --separate-stderr bash -c \
	    '"$0" "$1" | head -1; exit ${PIPESTATUS[0]}' "$B/tdat-to-json" "$BIG"
	[ "$status" -eq 141 ]
	[ -z "$stderr" ]
}

# ---- write errors

@test "stdout on /dev/full: one line naming stdout, exit 2, for every tool" {
	[ -w /dev/full ] || skip "no /dev/full"
	for cmd in "tdat-cat $S" "tdat-to-json $S" "tdat-to-json --meta $S" \
	    "tdat-to-json --chrome $S" "tdat-dump --records $S" \
	    "tdat-dump --all $S" "tdat-dump $S" "tdat-verify $S"; do
		echo "# $cmd"
		# shellcheck disable=SC2086 # the command line, split on purpose
		run --separate-stderr sh -c '"$0" "$@" >/dev/full' "$B"/$cmd
		echo "$stderr"
		[ "$status" -eq 2 ]
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
		[[ $stderr == "${cmd%% *}: stdout: write error: No space left on device" ]]
	done
}

# full_fs CMD...: run CMD with a 256 KiB tmpfs mounted on $T/full; what
# is left in it goes to $T/left.
full_fs() {
	local u

	mkdir -p "$T/full"
	for u in "unshare -m" "unshare -rm" ""; do
		[ -n "$u" ] || skip "cannot mount a tmpfs here"
		$u sh -c 'mount -t tmpfs -o size=256k none "$1"' sh "$T/full" \
		    2>/dev/null && break
	done
	run --separate-stderr $u sh -c 'mount -t tmpfs -o size=256k none "$1"
	dir=$1; shift; "$@"; st=$?; ls -A "$dir" >"$dir/../left"; exit $st' \
	    sh "$T/full" "$@"
}

@test "a full file system: one line naming the output, nothing left, exit 2" {
	full_fs "$B/tdat-cat" --compression none -o "$T/full/out.dat" "$BIG"
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
	[[ $stderr == "tdat-cat: $T/full/out.dat: "*"No space left on device" ]]
	[ ! -s "$T/left" ]

	full_fs "$B/tdat-to-json" -o "$T/full/out.json" "$BIG"
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
	[[ $stderr == "tdat-to-json: $T/full/out.json: write error: No space left on device" ]]
	[ ! -s "$T/left" ]

	full_fs "$B/tdat-to-ltt" "$BIG" "$T/full/out.ltt"
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
	[[ $stderr == "tdat-to-ltt: $T/full/out.ltt: "*"No space left on device" ]]
	[ ! -s "$T/left" ]
}

@test "-o on a FIFO (or a device) writes into it, not a file renamed onto it" {
	# Renaming a temporary onto -o /dev/full would replace the device
	# (as root); a FIFO shows the same without harm: its reader gets the
	# output, and it stays a FIFO.
	mkfifo "$T/fifo"
	timeout 20 cat "$T/fifo" >"$T/got.dat" &
	pid=$!
	run -0 "$B/tdat-cat" -o "$T/fifo" "$S"
	wait "$pid"
	[ -p "$T/fifo" ]
	run -0 "$B/tdat-cat" -o "$T/want.dat" "$S"
	cmp "$T/want.dat" "$T/got.dat"

	timeout 20 cat "$T/fifo" >"$T/got.json" &
	pid=$!
	run -0 "$B/tdat-to-json" -o "$T/fifo" "$S"
	wait "$pid"
	[ -p "$T/fifo" ]
	"$B/tdat-to-json" "$S" | cmp - "$T/got.json"
}

@test "-o on a symbolic link writes the file it names and keeps the link" {
	# As for -o /dev/stdout with stdout on a file: renaming onto the link
	# would replace the link itself.
	: >"$T/real.dat"
	ln -s real.dat "$T/link.dat"
	run -0 "$B/tdat-cat" -o "$T/link.dat" "$S"
	[ -L "$T/link.dat" ]
	run -0 "$B/tdat-cat" -o "$T/want.dat" "$S"
	cmp "$T/want.dat" "$T/real.dat"
	run -0 "$B/tdat-to-json" -o "$T/link.dat" "$S"
	[ -L "$T/link.dat" ]
	"$B/tdat-to-json" "$S" | cmp - "$T/real.dat"
}

# ---- standard input without "-"

@test "tdat-dump reads a pipe or a redirected file without -" {
	"$B/tdat-dump" --records "$S" >"$T/want"
	"$B/tdat-dump" --records <"$S" >"$T/file"
	cmp "$T/want" "$T/file"
	cat "$S" | "$B/tdat-dump" --records >"$T/pipe"
	cmp "$T/want" "$T/pipe"
	"$B/tdat-dump" - <"$S" >"$T/want"
	cat "$S" | "$B/tdat-dump" >"$T/pipe"
	cmp "$T/want" "$T/pipe"
}

@test "tdat-to-json reads a pipe or a redirected file without -" {
	"$B/tdat-to-json" "$S" >"$T/want"
	"$B/tdat-to-json" <"$S" >"$T/file"
	cmp "$T/want" "$T/file"
	"$B/tdat-cat" -e sched_switch "$S" | "$B/tdat-to-json" |
	    jq -e -s 'length > 0 and all(.event == "sched_switch")' >/dev/null
}

@test "tdat-verify reads a pipe or a redirected file without -" {
	run -0 --separate-stderr "$B/tdat-verify" <"$S"
	[[ $output == "stdin: ok: "* ]]
	run -0 --separate-stderr sh -c 'cat "$1" | "$0"' "$B/tdat-verify" "$S"
	[[ $output == "stdin: ok: "* ]]
}

@test "tdat-to-ltt reads a pipe or a redirected file without -: trace.ltt" {
	cd "$T"
	"$B/tdat-to-ltt" <"$S"
	"$B/tdat-verify" -q trace.ltt
	"$B/tdat-to-ltt" "$S" want.ltt
	diff -r want.ltt trace.ltt
}

@test "with stdin /dev/null, no FILE means the default as before" {
	cd "$T"
	cp "$S" trace.dat
	"$B/tdat-dump" --records trace.dat >want
	"$B/tdat-dump" --records </dev/null >got
	cmp want got
	"$B/tdat-to-json" trace.dat >want
	"$B/tdat-to-json" </dev/null >got
	cmp want got
	run -2 --separate-stderr "$B/tdat-verify" </dev/null
	[[ $stderr == "tdat-verify: no FILE given"* ]]
	run -2 --separate-stderr "$B/tdat-to-ltt" </dev/null
	[ ! -e trace.ltt ]
}

# ---- progress

@test "tdat-to-json --progress climbs to 100%; --no-progress is quiet" {
	"$B/tdat-to-json" --progress "$BIG" 2>"$T/err" >/dev/null
	[ "$(tail -c 1 "$T/err" | od -An -tx1 | tr -d ' ')" = 0a ]
	tr '\r' '\n' <"$T/err" | grep . >"$T/p"
	[ "$(tail -1 "$T/p")" = "tdat-to-json: 100%" ]
	[ "$(wc -l <"$T/p")" -gt 10 ]
	sed 's/.*[^0-9]\([0-9][0-9]*\)%$/\1/' "$T/p" | sort -n -c
	run -0 --separate-stderr "$B/tdat-to-json" --no-progress "$BIG"
	[ -z "$stderr" ]
}

@test "tdat-to-ltt --progress climbs to 100%; --no-progress is quiet" {
	"$B/tdat-to-ltt" --progress "$BIG" "$T/a.ltt" 2>"$T/err"
	[ "$(tail -c 1 "$T/err" | od -An -tx1 | tr -d ' ')" = 0a ]
	tr '\r' '\n' <"$T/err" | grep . >"$T/p"
	[ "$(tail -1 "$T/p")" = "tdat-to-ltt: 100%" ]
	[ "$(wc -l <"$T/p")" -gt 10 ]
	sed 's/.*[^0-9]\([0-9][0-9]*\)%$/\1/' "$T/p" | sort -n -c
	run -0 --separate-stderr "$B/tdat-to-ltt" --no-progress "$BIG" "$T/b.ltt"
	[ -z "$stderr" ]
}
