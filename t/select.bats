#!/usr/bin/env bats
# select.bats: the selection options every tool that reads events takes
# (tdat-select(7)): tdat-dump --records against trace-cmd 3.1.6's own
# report -F on the fixtures in t/data, and each option in each tool
# (tdat-dump --records, tdat-to-json lines and --chrome, tdat-to-ltt read
# back, tdat-cat).  Run by t/run-tests (make check); TDAT_BIN names the
# tools' folder.

bats_require_minimum_version 1.5.0

setup() {
	D=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
	B=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	T=$BATS_TEST_TMPDIR
	if [ ! -x "$B/tdat-dump" ]; then
		echo "# $B/tdat-dump is not built" >&3
		return 1
	fi
}

need_trace_cmd() {
	command -v trace-cmd >/dev/null 2>&1 || skip "trace-cmd is not installed"
}

load helpers

# tc ARGS...: trace-cmd report ARGS.  trace-cmd 3.1.6 now and then prints
# raw timestamps ("[000]1464179963720:") for a file that has no
# TRACECLOCK option: such a run is repeated, up to 5 times.  With -F on a
# file with instances it crashes at its very end, after printing every
# line: its output is taken unbuffered and its exit status ignored.
tc() {
	local i
	for i in 1 2 3 4 5; do
		stdbuf -o0 trace-cmd report "$@" >"$T/tc.out" 2>/dev/null || :
		grep -q -E '\[[0-9]{3,}\] *[0-9]+: ' "$T/tc.out" || break
	done
	cat "$T/tc.out"
}

# like_tc FILE TDAT-ARGS -- TC-ARGS: tdat-dump --records TDAT-ARGS FILE
# prints what trace-cmd report TC-ARGS FILE prints, at least one event.
like_tc() {
	local f=$1 a=() b=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		a+=("$1")
		shift
	done
	shift
	b=("$@")
	tc "${b[@]}" "$f" >"$T/want"
	[ "$(wc -l <"$T/want")" -gt 1 ] ||
	    { echo "trace-cmd printed no event: ${b[*]} ${f##*/}"; return 1; }
	run --separate-stderr "$B/tdat-dump" --records --trace-cmd=3.1 "${a[@]}" "$f"
	[ "$status" -eq 0 ] || { echo "exit $status: $stderr"; return 1; }
	printf '%s\n' "$output" >"$T/got"
	same "$T/want" "$T/got" || { echo "tdat: ${a[*]}; trace-cmd: ${b[*]}"; return 1; }
}

# filters_like_tc NAME FILTER...: for each FILTER and each of -N, -R and
# plugins, tdat-dump --records -t -F equals trace-cmd report -t -F.
filters_like_tc() {
	local f=$D/$1.dat flt m
	shift
	for flt in "$@"; do
		for m in -N -R ""; do
			like_tc "$f" $m -t -F "$flt" -- $m -t -F "$flt" || return 1
		done
	done
}

# ---- tdat-dump --records -F against trace-cmd report -F

@test "-F: what trace-cmd report -F prints (x86_64 v7 zstd)" {
	need_trace_cmd
	filters_like_tc x86_64-default-sched \
	    'sched_switch: prev_pid == 0' \
	    'sched_wakeup,sched_switch: (common_pid > 100 && target_cpu == 1) || prev_state == 2' \
	    '.*: COMM == "sh"' \
	    'sched: CPU == 1 && !(prev_pid == 0)' \
	    'SCHED_SWITCH: prev_state & 2' \
	    'sched/sched_sw.*: next_pid > 100' \
	    'timer: expires > 0' \
	    'sched_switch,sched_wakeup'
}

@test "-F: what trace-cmd report -F prints (s390x big-endian v7 zstd)" {
	need_trace_cmd
	filters_like_tc s390x-v7-zstd-sched \
	    'sched_switch: prev_pid == 0 || next_pid == 0' \
	    'irq,timer: CPU != 0' \
	    'sched_wakeup: comm == "sh"'
}

@test "-F: what trace-cmd report -F prints (instances: the buffer column)" {
	need_trace_cmd
	filters_like_tc x86_64-v7-none-instances \
	    'sched_switch: prev_pid == 0' \
	    '.*: common_pid == 0' \
	    '.*: CPU == 2 && common_pid > 0'
	grep -q '^foo: ' "$T/got"
}

@test "-F: what trace-cmd report -F prints (v6, 32-bit ARM)" {
	need_trace_cmd
	filters_like_tc hebel23-driver-trace 'irq: irq > 20' \
	    '.*: COMM == "kworker/0:1"'
}

@test "-F: a stack trace follows an event kept on its CPU, as in trace-cmd" {
	need_trace_cmd
	local f=$D/select/langraph-stacks.dat flt m
	for flt in 'irq: CPU == 0' 'sched_switch: prev_pid == 0' \
	    '.*: common_pid == 0'; do
		for m in -N ""; do
			like_tc "$f" $m -t -F "$flt" -- $m -t -F "$flt" ||
			    return 1
		done
	done
	like_tc "$f" -N -t -F 'irq: CPU == 0' -- -N -t -F 'irq: CPU == 0'
	grep -q 'kernel_stack:' "$T/got"
	like_tc "$f" -N -t -v -F 'irq: CPU == 0' -- -N -t -v -F 'irq: CPU == 0'
}

@test "several -F keep what any keeps; -v drops what they keep" {
	need_trace_cmd
	local f=$D/x86_64-default-sched.dat
	like_tc "$f" -N -t -F 'sched_switch: prev_pid == 0' -F sched_wakeup -- \
	    -N -t -F 'sched_switch: prev_pid == 0' -F sched_wakeup
	like_tc "$f" -N -t -v -F 'sched_switch: prev_pid == 0' -- \
	    -N -t -v -F 'sched_switch: prev_pid == 0'
	like_tc "$f" -t -v -F 'sched_switch: prev_pid == 0' -F 'timer' -- \
	    -t -v -F 'sched_switch: prev_pid == 0' -F 'timer'
	like_tc "$D/s390x-v7-zstd-sched.dat" -R -t -v -F 'irq: CPU == 0' -- \
	    -R -t -v -F 'irq: CPU == 0'
}

# lost FILE: x86_64-v7-none-instances with events lost before a page of
# CPU 0 (count unknown) and of CPU 1 (42 events, stored in the page).
lost() {
	local off0 off1
	off0=$("$B/tdat-dump" --flyrecord "$D/x86_64-v7-none-instances.dat" |
	    awk '/^buffer ""/ { t = 1 } t && $1 == "cpu" && $2 == "0:" { print $4 + 0; exit }')
	off1=$("$B/tdat-dump" --flyrecord "$D/x86_64-v7-none-instances.dat" |
	    awk '/^buffer ""/ { t = 1 } t && $1 == "cpu" && $2 == "1:" { print $4 + 0; exit }')
	cp "$D/x86_64-v7-none-instances.dat" "$1"
	python3 - "$1" "$((off0 + 3 * 4096))" "$((off1 + 5 * 4096))" <<'EOF'
import struct, sys
f = open(sys.argv[1], 'r+b')
for off, store in ((int(sys.argv[2]), False), (int(sys.argv[3]), True)):
    f.seek(off + 8)
    c = struct.unpack('<Q', f.read(8))[0]
    commit = c & ((1 << 27) - 1)
    c |= 1 << 31
    if store:
        c |= 1 << 30
        f.seek(off + 16 + commit)
        f.write(struct.pack('<Q', 42))
    f.seek(off + 8)
    f.write(struct.pack('<Q', c))
EOF
}

@test "a loss shows before a kept event only, as trace-cmd -F shows it" {
	need_trace_cmd
	lost "$T/lost.dat"
	like_tc "$T/lost.dat" -N -t -- -N -t
	grep -q 'CPU:0 \[EVENTS DROPPED\]' "$T/got"
	grep -q 'CPU:1 \[42 EVENTS DROPPED\]' "$T/got"
	like_tc "$T/lost.dat" -N -t -F 'sched_waking: pid >= 0' -- \
	    -N -t -F 'sched_waking: pid >= 0'
	grep -q 'CPU:0 \[EVENTS DROPPED\]' "$T/got"
	like_tc "$T/lost.dat" -N -t -F 'sched_stat_runtime: pid > 0' -- \
	    -N -t -F 'sched_stat_runtime: pid > 0'
	grep -q 'CPU:1 \[42 EVENTS DROPPED\]' "$T/got"
	like_tc "$T/lost.dat" -t -F 'sched_switch: prev_pid >= 0' -- \
	    -t -F 'sched_switch: prev_pid >= 0'
	! grep -q 'DROPPED' "$T/got"
}

@test "-e, --pid and --comm keep what the same -F keeps in trace-cmd" {
	need_trace_cmd
	local f=$D/x86_64-default-sched.dat inst=$D/x86_64-v7-none-instances.dat
	like_tc "$f" -N -t -e sched_switch -e 'timer:hrtimer_*' -- \
	    -N -t -F 'sched_switch,timer/hrtimer_.*'
	like_tc "$f" -N -t --pid 0 -- -N -t -F '.*: common_pid == 0'
	like_tc "$inst" -N -t --pid 1906,15 -- \
	    -N -t -F '.*: common_pid == 1906 || common_pid == 15'
	like_tc "$f" -t --comm sh -- -t -F '.*: COMM == "sh"'
	like_tc "$f" -N -t --comm 'sha*' -- -N -t -F '.*: COMM =~ "^sha"'
	like_tc "$f" -N -t -v --pid 0 -- -N -t -v -F '.*: common_pid == 0'
	like_tc "$f" -N -t --cpu 1,3 -- -N -t --cpu 1,3
}

# keys OUT: "ts event" of every event line of tdat-dump --records -t.
keys() {
	sed -n 's/^.*\] *\([0-9]*\)\.\([0-9]*\): \([^: ]*\): .*/\1\2 \3/p' |
	    awk '{ printf "%.0f %s\n", $1, $2 }'
}

# json_keys: the same, of JSON Lines.
json_keys() {
	jq -r '"\(.ts) \(.event)"'
}

# chrome_keys: the same, of the instant events of --chrome (sched_switch
# becomes slices: left out on both sides).
chrome_keys() {
	python3 -c '
import decimal, json, sys
d = json.load(sys.stdin, parse_float=decimal.Decimal)
for e in d["traceEvents"]:
    if e.get("ph") == "i":
        print(int(e["ts"] * 1000), e["name"])'
}

# Selections that each keep a part of x86_64-v7-none-instances, and what
# they keep from trace-cmd's report of it.
SELECTIONS=(
	"-e sched_wakeup"
	"-F sched_switch:prev_pid==0"
	"--pid 0"
	"--comm sh"
	"-v -e timer -e irq"
	"--cpu 2 --buffer ''"
	"--since 60.5"
	"--until +0.25"
	"--buffer foo"
	"--buffer bar --cpu 0,1"
)

# each_tool_keeps SEL: (shell words) every tool keeps, from the fixture, the events
# tdat-dump --records keeps with SEL, and not the whole trace.
each_tool_keeps() {
	local f=$D/x86_64-v7-none-instances.dat sel=$1 s
	eval "s=($sel)"
	"$B/tdat-dump" --records --trace-cmd=3.1 -t "${s[@]}" "$f" | keys | sort >"$T/want"
	"$B/tdat-dump" --records --trace-cmd=3.1 -t "$f" | keys | sort >"$T/all"
	[ -s "$T/want" ] || { echo "$sel keeps nothing"; return 1; }
	! cmp -s "$T/want" "$T/all" || { echo "$sel keeps everything"; return 1; }
	"$B/tdat-to-json" "${s[@]}" "$f" | json_keys | sort >"$T/got"
	same "$T/want" "$T/got" || { echo "tdat-to-json $sel"; return 1; }
	grep -v ' sched_switch$' "$T/want" >"$T/want.i"
	"$B/tdat-to-json" --chrome "${s[@]}" "$f" | chrome_keys | sort >"$T/got"
	same "$T/want.i" "$T/got" || { echo "tdat-to-json --chrome $sel"; return 1; }
	rm -rf "$T/l"
	"$B/tdat-to-ltt" --block-size 4096 "${s[@]}" "$f" "$T/l"
	"$B/tdat-cat" -o "$T/l.dat" "$T/l"
	"$B/tdat-dump" --records --trace-cmd=3.1 -t "$T/l.dat" | keys | sort >"$T/got"
	same "$T/want" "$T/got" || { echo "tdat-to-ltt $sel"; return 1; }
	"$B/tdat-cat" "${s[@]}" -o "$T/c.dat" "$f"
	"$B/tdat-dump" --records --trace-cmd=3.1 -t "$T/c.dat" | keys | sort >"$T/got"
	same "$T/want" "$T/got" || { echo "tdat-cat $sel"; return 1; }
}

@test "every selection option works the same in every tool" {
	command -v jq >/dev/null || skip "jq is not installed"
	local s
	for s in "${SELECTIONS[@]}"; do
		each_tool_keeps "$s" || return 1
	done
}

@test "--since and --until keep the time range trace-cmd prints" {
	local f=$D/x86_64-v7-none-instances.dat
	"$B/tdat-dump" --records -N -t "$f" |
	    awk 'NR == 1 { print; next } { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; break } } t >= 60.5 && t <= 61.25' \
	    >"$T/want"
	"$B/tdat-dump" --records -N -t --since 60.5 --until 61.25s "$f" >"$T/got"
	same "$T/want" "$T/got"
	"$B/tdat-dump" --records -N -t --since 60500ms --until 61250000us "$f" >"$T/got"
	same "$T/want" "$T/got"
}

# ---- the command line

# bad_filter TOOL ARGS...: a bad -F gives the reason, the filter and a
# caret under the fault, exit 2, and no output file.
bad_filter() {
	local caret
	caret=$(printf '%*s^' 16 '')
	run --separate-stderr "$B/$1" "${@:2}"
	[ "$status" -eq 2 ] || { echo "$1: exit $status"; return 1; }
	[ "${stderr_lines[0]}" = "$1: bad filter: Field not found" ] ||
	    { echo "$1: ${stderr_lines[0]}"; return 1; }
	[ "${stderr_lines[1]}" = "  sched_switch: prev_pidd > 0" ] ||
	    { echo "$1: ${stderr_lines[1]}"; return 1; }
	[ "${stderr_lines[2]}" = "$caret" ] ||
	    { echo "$1: got '${stderr_lines[2]}', want '$caret'"; return 1; }
	[ -z "$output" ] || { echo "$1 wrote to stdout"; return 1; }
}

@test "a bad -F: the same message with a caret in every tool" {
	local f=$D/x86_64-default-sched.dat x='sched_switch: prev_pidd > 0'
	bad_filter tdat-dump --records -F "$x" "$f"
	bad_filter tdat-to-json -F "$x" "$f"
	bad_filter tdat-to-json --chrome -F "$x" -o "$T/x.json" "$f"
	[ ! -e "$T/x.json" ]
	bad_filter tdat-to-ltt -F "$x" "$f" "$T/x.ltt"
	[ ! -e "$T/x.ltt" ]
	bad_filter tdat-cat -F "$x" -o "$T/x.dat" "$f"
	[ ! -e "$T/x.dat" ]
}

@test "selection options where there are no events are usage errors" {
	local f=$D/x86_64-default-sched.dat
	run -2 --separate-stderr "$B/tdat-to-json" --meta -e sched "$f"
	[[ $stderr == *"--meta takes no selection options"* ]]
	run -2 --separate-stderr "$B/tdat-to-json" --meta --pid 1 "$f"
	run -2 --separate-stderr "$B/tdat-dump" --options -F 'sched: pid > 0' "$f"
	[[ $stderr == *"selection options need --records"* ]]
	run -2 --separate-stderr "$B/tdat-dump" --records -e nosuch "$f"
	[[ $stderr == *"no event matches 'nosuch'"* ]]
	run -2 --separate-stderr "$B/tdat-dump" --records --buffer nosuch "$f"
	[[ $stderr == *'no buffer "nosuch"'* ]]
	run -2 --separate-stderr "$B/tdat-to-ltt" --since x "$f" "$T/y.ltt"
	[[ $stderr == *"bad time"* ]]
}

@test "every tool that reads events lists the selection options and tdat-select(7)" {
	local t o
	for t in tdat-dump tdat-to-json tdat-to-ltt tdat-cat; do
		run -0 "$B/$t" --help
		for o in --event --filter --pid --comm --invert --cpu --since \
		    --until --buffer; do
			[[ $output == *"$o"* ]] || { echo "$t --help lacks $o"; return 1; }
		done
		[[ $output == *"tdat-select(7)"* ]] || { echo "$t --help"; return 1; }
		grep -q 'tdat-select (7)' "$BATS_TEST_DIRNAME/../doc/$t.1" ||
		    { echo "doc/$t.1 does not point to tdat-select(7)"; return 1; }
	done
}

# ---- fast time cuts: --since and --until bisect each CPU's pages by their
# time stamps; what they keep must be what a full decode keeps
# (TDAT_FULL_DECODE) and what trace-cmd prints in that time range.

# stamps FILE [PAGE...]: the time stamps of a few pages with events
# (the second, the middle one, the last, and PAGEs) of two CPUs of FILE's
# top buffer, on the events' clock (TSC2NSEC applied), read from its v6
# copy $T/v6.dat (tdat-cat copies the pages as they are).
stamps() {
	local tsc
	tsc=$("$B/tdat-dump" --options "$1" |
	    awk '/\[multiplier, shift, offset\]/ { print $1, $2, $3; exit }')
	"$B/tdat-dump" --flyrecord "$T/v6.dat" |
	    python3 -c '
import struct, sys
path, tsc = sys.argv[1], sys.argv[2].split()
more = [int(x) for x in sys.argv[3:]]
mult, shift, toff = (int(x) for x in tsc) if tsc else (0, 0, 0)
f = open(path, "rb")
h = f.read(64)
i = h.index(b"\0", 10)
big, lsize = h[i + 1] == 1, h[i + 2]
e = ">" if big else "<"
ps = struct.unpack(e + "I", h[i + 3:i + 7])[0]
top = ncpu = 0
for line in sys.stdin:
    w = line.split()
    if w[0] == "buffer":
        top = w[1] == "\"\""
        continue
    if not top or w[0] != "cpu" or ncpu == 2:
        continue
    off, pages = int(w[3].rstrip(",")), int(w[6])
    if pages == 0:
        continue
    ncpu += 1
    for k in sorted(set([1, pages // 2, pages - 1] + more)):
        if k >= pages:
            continue
        f.seek(off + k * ps)
        b = f.read(8 + lsize)
        raw = struct.unpack(e + "Q", b[:8])[0]
        commit = struct.unpack(e + ("Q" if lsize == 8 else "I"), b[8:])[0]
        if commit & ((1 << 27) - 1) == 0:
            continue
        print((((raw - toff) * mult) >> shift) if mult else raw)
' "$T/v6.dat" "$tsc" "${@:2}"
}

# ns OUT: the first and the last timestamp of tdat-dump --records -t, in ns.
ns_span() {
	sed -n 's/^.*\] *\([0-9]*\)\.\([0-9]\{9\}\): .*/\1\2/p' "$1" |
	    sed 's/^0*//' | sed -n '1p;$p'
}

# windows FILE [PAGE...]: the cuts tried on FILE, one per line as "FROM TO ARGS":
# the range kept in ns, then the options: before its first event, after
# its last, empty, relative, and around some page stamps.
windows() {
	local f=$1 first last mid s end=999999999999999999
	"$B/tdat-dump" --records --trace-cmd=3.1 -t "$f" >"$T/all.txt"
	{ read -r first; read -r last; } < <(ns_span "$T/all.txt")
	mid=$(((first + last) / 2))
	echo "0 $((first - 1)) --until $((first - 1))ns"
	echo "0 $first --since 0 --until ${first}ns"
	echo "$((last + 1)) $end --since $((last + 1))ns"
	echo "$last $end --since ${last}ns"
	echo "$first $last --since ${first}ns --until ${last}ns"
	echo "$((first + 1)) $((last - 1)) --since $((first + 1))ns --until $((last - 1))ns"
	echo "$mid $((mid - 1)) --since ${mid}ns --until $((mid - 1))ns"
	echo "$first $end --since +0"
	echo "$((first + 10000000)) $((first + 20000000)) --since +0.01 --until +0.02"
	echo "$mid $((first + 10000000)) --since ${mid}ns --until +10ms"
	echo "$mid $((mid + 10000000)) --since ${mid}ns --until $((mid + 10000000))ns"
	for s in $(stamps "$@"); do
		echo "$((s - 1)) $((s + 2000000)) --since $((s - 1))ns --until $((s + 2000000))ns"
		echo "$s $s --since ${s}ns --until ${s}ns"
		echo "0 $s --until ${s}ns"
	done
}

# in_range FROM TO: of trace-cmd report -t, the first line and the event
# lines whose time is in [FROM, TO] ns, each with the lost-event line
# before it.
in_range() {
	awk -v from="$(printf '%021d' "$1")" -v to="$(printf '%021d' "$2")" '
	NR == 1 { print; next }
	/EVENTS DROPPED\]$/ { held = held $0 "\n"; next }
	{
		t = ""
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) {
				split(substr($i, 1, length($i) - 1), p, ".")
				t = sprintf("%012d%09d", p[1], p[2])
				break
			}
		if (t != "" && t >= from "" && t <= to "")
			printf "%s%s\n", held, $0
		held = ""
	}'
}

# cuts_agree FILE [TOOLS [PAGE...]]: on every window of FILE, tdat-dump --records
# -N -t keeps what a full decode keeps and what trace-cmd prints in that
# range (of the v6 copy when trace-cmd cannot read FILE); with TOOLS,
# tdat-to-json, tdat-cat and tdat-to-ltt (every fourth window) write what
# they write after a full decode.
cuts_agree() {
	local f=$1 tools=${2:-} from to args n=0 a
	shift $(($# > 1 ? 2 : 1))
	"$B/tdat-cat" --file-version 6 -o "$T/v6.dat" "$f"
	stdbuf -o0 trace-cmd report -N -t "$f" >"$T/tc-all" 2>/dev/null || :
	[ -s "$T/tc-all" ] ||
	    stdbuf -o0 trace-cmd report -N -t "$T/v6.dat" >"$T/tc-all" 2>/dev/null || :
	windows "$f" "$@" >"$T/windows"
	[ "$(wc -l <"$T/windows")" -ge 15 ] || { echo "few windows"; return 1; }
	while read -r from to args; do
		read -r -a a <<<"$args"
		"$B/tdat-dump" --records --trace-cmd=3.1 -N -t "${a[@]}" "$f" >"$T/fast" ||
		    { echo "tdat-dump $args: exit $?"; return 1; }
		TDAT_FULL_DECODE=1 "$B/tdat-dump" --records --trace-cmd=3.1 -N -t "${a[@]}" "$f" >"$T/full"
		same "$T/full" "$T/fast" || { echo "tdat-dump $args"; return 1; }
		in_range "$from" "$to" <"$T/tc-all" >"$T/tc"
		same "$T/tc" "$T/fast" || { echo "trace-cmd, $args"; return 1; }
		grep -h 'EVENTS DROPPED' "$T/fast" >>"$T/dropped" || :
		n=$((n + 1))
		[ -n "$tools" ] && [ $((n % 4)) -eq 1 ] || continue
		"$B/tdat-to-json" "${a[@]}" "$f" >"$T/fast"
		TDAT_FULL_DECODE=1 "$B/tdat-to-json" "${a[@]}" "$f" >"$T/full"
		same "$T/full" "$T/fast" || { echo "tdat-to-json $args"; return 1; }
		"$B/tdat-cat" "${a[@]}" -o "$T/fast.dat" "$f"
		TDAT_FULL_DECODE=1 "$B/tdat-cat" "${a[@]}" -o "$T/full.dat" "$f"
		cmp -s "$T/full.dat" "$T/fast.dat" || { echo "tdat-cat $args"; return 1; }
		rm -rf "$T/fast.ltt" "$T/full.ltt"
		"$B/tdat-to-ltt" "${a[@]}" "$f" "$T/fast.ltt"
		TDAT_FULL_DECODE=1 "$B/tdat-to-ltt" "${a[@]}" "$f" "$T/full.ltt"
		diff -r "$T/full.ltt" "$T/fast.ltt" >/dev/null ||
		    { echo "tdat-to-ltt $args"; return 1; }
	done <"$T/windows"
}

@test "fast cuts: v6 (32-bit ARM) keeps what a full decode and trace-cmd keep" {
	need_trace_cmd
	cuts_agree "$D/hebel23-driver-trace.dat" tools
}

@test "fast cuts: v7 zstd chunks keep what a full decode and trace-cmd keep" {
	need_trace_cmd
	cuts_agree "$D/x86_64-default-sched.dat" tools
}

@test "fast cuts: s390x big-endian v7 zstd" {
	need_trace_cmd
	cuts_agree "$D/s390x-v7-zstd-sched.dat" tools
}

@test "fast cuts: instances, uncompressed v7" {
	need_trace_cmd
	cuts_agree "$D/x86_64-v7-none-instances.dat" tools
}

@test "fast cuts: TSC2NSEC stamps converted (v7 zstd, 15 CPUs)" {
	need_trace_cmd
	cuts_agree "$D/hip24-host-trace.dat"
}

@test "fast cuts: lost-event lines as a full decode prints them" {
	need_trace_cmd
	lost "$T/lost.dat"
	cuts_agree "$T/lost.dat" tools 3 5
	# some cuts start at the pages after the losses
	grep -q 'CPU:0 \[EVENTS DROPPED\]' "$T/dropped"
	grep -q 'CPU:1 \[42 EVENTS DROPPED\]' "$T/dropped"
}

@test "fast cuts: an LTT directory is read whole, and cut as before" {
	local f=$D/x86_64-v7-none-instances.dat from to args a
	"$B/tdat-cat" --file-version 6 -o "$T/v6.dat" "$f"
	"$B/tdat-to-ltt" "$f" "$T/l" >/dev/null
	"$B/tdat-dump" --records -N -t "$T/l" >"$T/l-all"
	windows "$f" | head -n 11 >"$T/windows"
	while read -r from to args; do
		read -r -a a <<<"$args"
		"$B/tdat-dump" --records -N -t "${a[@]}" "$T/l" >"$T/got"
		in_range "$from" "$to" <"$T/l-all" >"$T/want"
		same "$T/want" "$T/got" || { echo "$args"; return 1; }
	done <"$T/windows"
}
