#!/usr/bin/env bats
# verify.bats: tdat-verify on the fixtures in t/data (clean: exit 0), its
# options and output shapes, the corruption suite (t/corrupt: every kind
# of damage found at the right offset, no tool crashing or hanging on it),
# and the crash regression inputs in t/data/crash.

bats_require_minimum_version 1.5.0

setup() {
	D=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
	B=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	V=$B/tdat-verify
	[ -x "$V" ] || skip "tdat-verify is not built"
}

corrupt() {
	command -v python3 >/dev/null || skip "python3 is not installed"
	command -v zstd >/dev/null || skip "zstd is not installed"
	run python3 "$BATS_TEST_DIRNAME/corrupt" -n "${TDAT_CORRUPT_N:-4}" \
	    "$D/$1.dat"
	echo "$output" | tail -n 40
	[ "$status" -eq 0 ]
}

@test "tdat-verify: every fixture is clean (exit 0, one summary each)" {
	run "$V" "$D"/*.dat
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | grep -c ': ok')" -eq "$(ls "$D"/*.dat | wc -l)" ]
	! echo "$output" | grep -q ': error: '
}

@test "tdat-verify: -q prints nothing" {
	run "$V" -q "$D/x86_64-default-sched.dat"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	printf 'not a trace' >"$BATS_TEST_TMPDIR/bad.dat"
	run "$V" -q "$BATS_TEST_TMPDIR/bad.dat"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
}

@test "tdat-verify: usage and I/O errors exit 2" {
	run "$V"
	[ "$status" -eq 2 ]
	run "$V" --no-such-option "$D/x86_64-default-sched.dat"
	[ "$status" -eq 2 ]
	run -2 "$V" "$BATS_TEST_TMPDIR/missing.dat"
	[[ "$output" == "tdat-verify: $BATS_TEST_TMPDIR/missing.dat: "* ]]
	run -2 "$V" "$BATS_TEST_TMPDIR"
	# the worst status over every FILE
	run -2 "$V" -q "$D/x86_64-default-sched.dat" "$BATS_TEST_TMPDIR/missing.dat"
	printf 'x' >"$BATS_TEST_TMPDIR/bad.dat"
	run -2 "$V" -q "$BATS_TEST_TMPDIR/bad.dat" "$BATS_TEST_TMPDIR/missing.dat"
	run -1 "$V" -q "$BATS_TEST_TMPDIR/bad.dat" "$D/x86_64-default-sched.dat"
}

@test "tdat-verify: --help and --version" {
	run "$V" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"usage: tdat-verify "* ]]
	for o in --quiet --keep-going --strict --json --check-events; do
		[[ "$output" == *"$o"* ]]
	done
	run "$V" --version
	[ "$status" -eq 0 ]
	[[ "$output" == "tdat-verify (tdat) "* ]]
}

@test "tdat-verify: the man page names every option of --help" {
	man=$BATS_TEST_DIRNAME/../doc/tdat-verify.1
	[ -f "$man" ]
	run "$V" --help
	for o in $(echo "$output" | grep -o -- '--[a-z-]*' | sort -u); do
		tr -d '\\' <"$man" | grep -q -- "$o" || { echo "no $o"; return 1; }
	done
}

@test "tdat-verify: one finding per line, FILE: offset 0x..: error: ..." {
	f=$BATS_TEST_TMPDIR/cut.dat
	head -c 300000 "$D/x86_64-v7-none-instances.dat" >"$f"
	run -1 "$V" "$f"
	echo "$output"
	echo "$output" | head -n 1 | grep -Eq "^$f: offset 0x[0-9a-f]+: error: "
	echo "$output" | tail -n 1 | grep -q "^$f: damaged: "
}

@test "tdat-verify: a damaged page names buffer, CPU and page" {
	f=$BATS_TEST_TMPDIR/page.dat
	cp "$D/labsisop-qemu-trace.dat" "$f"
	off=$("$B/tdat-dump" --flyrecord "$f" | sed -n 's/.*cpu 0: offset \([0-9]*\),.*/\1/p')
	[ -n "$off" ]
	# the commit of the first page: past the page
	printf '\377\377\000\000' | dd of="$f" bs=1 seek=$((off + 8)) conv=notrunc 2>/dev/null
	run -1 "$V" "$f"
	echo "$output"
	echo "$output" | grep -q "^$f: offset $(printf '0x%x' "$off"): error: CPU 0 page 0: page commit"
}

@test "tdat-verify: --json prints one JSON object per line" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	f=$BATS_TEST_TMPDIR/cut.dat
	head -c 300000 "$D/x86_64-v7-none-instances.dat" >"$f"
	run -1 "$V" --json "$f" "$D/labsisop-qemu-trace.dat"
	echo "$output"
	echo "$output" | python3 -c '
import json, sys
lines = [json.loads(l) for l in sys.stdin]
assert any(l.get("severity") == "error" and l["offset"] >= 0 for l in lines)
assert [l["summary"] for l in lines if "summary" in l] == ["damaged", "ok"]
'
}

@test "tdat-verify: warnings exit 0, with --strict 1; -k shows every one" {
	f=$BATS_TEST_TMPDIR/missed.dat
	cp "$D/labsisop-qemu-trace.dat" "$f"
	off=$("$B/tdat-dump" --flyrecord "$f" | sed -n 's/.*cpu 0: offset \([0-9]*\),.*/\1/p')
	# set MISSED_EVENTS (bit 31 of the commit word) on both pages
	for p in 0 1; do
		printf '\200' | dd of="$f" bs=1 seek=$((off + p * 4096 + 11)) conv=notrunc 2>/dev/null
	done
	run -0 "$V" "$f"
	echo "$output"
	[ "$(echo "$output" | grep -c 'warning: CPU 0 page .: events were lost')" -eq 1 ]
	run -1 "$V" --strict "$f"
	run -0 "$V" -k "$f"
	[ "$(echo "$output" | grep -c 'warning: CPU 0 page .: events were lost')" -eq 2 ]
}

@test "tdat-verify: -k reports errors past the first of a section" {
	f=$BATS_TEST_TMPDIR/ids.dat
	cp "$D/labsisop-qemu-trace.dat" "$f"
	off=$("$B/tdat-dump" --flyrecord "$f" | sed -n 's/.*cpu 0: offset \([0-9]*\),.*/\1/p')
	# both pages: their commit past the page
	for p in 0 1; do
		printf '\377\377\000\000' | dd of="$f" bs=1 seek=$((off + p * 4096 + 8)) conv=notrunc 2>/dev/null
	done
	run -1 "$V" "$f"
	[ "$(echo "$output" | grep -c ': error: ')" -eq 1 ]
	run -1 "$V" -k "$f"
	[ "$(echo "$output" | grep -c ': error: ')" -eq 2 ]
}

@test "tdat-verify: --check-events skips the pages" {
	run -0 "$V" --check-events "$D/s390x-v7-zstd-sched.dat"
	[[ "$output" == *": ok: v7 zstd, 1 buffer, 4 CPUs, 0 pages, 0 records"* ]]
}

@test "tdat-verify: stdin" {
	run -0 sh -c "'$V' - <'$D/kinmax-listen-trace.192.168.1.10_53616.dat'"
	[[ "$output" == "stdin: ok: "* ]]
}

# Inputs that once crashed a tool.  One named in t/data/crash/KNOWN
# still crashes code outside tdat-verify: the test says so and skips.
@test "crash regressions: no tool dies on t/data/crash/*" {
	ls "$D"/crash/*.dat >/dev/null 2>&1 || skip "no crash inputs"
	bad=0 known=
	for f in "$D"/crash/*.dat; do
		for t in "tdat-verify" "tdat-verify -k" "tdat-dump --all" \
		    "tdat-dump --records" "tdat-cat"; do
			[ -x "$B/${t%% *}" ] || continue
			st=0
			timeout 20 $B/$t "$f" >/dev/null 2>"$BATS_TEST_TMPDIR/err" ||
			    st=$?
			[ "$st" -ge 124 ] || grep -q 'Sanitizer\|runtime error' \
			    "$BATS_TEST_TMPDIR/err" || continue
			if grep -q "^${f##*/}:" "$D/crash/KNOWN" 2>/dev/null; then
				known="$known ${f##*/}"
				continue
			fi
			echo "$t ${f##*/}: status $st"
			head -n 5 "$BATS_TEST_TMPDIR/err"
			bad=1
		done
	done
	[ "$bad" -eq 0 ]
	[ -z "$known" ] || skip "known crashes outside tdat-verify:$known (t/data/crash/KNOWN)"
}

@test "corruption suite: labsisop-qemu (v6 i386)" {
	corrupt labsisop-qemu-trace
}

@test "corruption suite: kinmax-listen (v6 i386, trace-cmd listen)" {
	corrupt kinmax-listen-trace.192.168.1.10_53616
}

@test "corruption suite: hebel23-driver (v6 32-bit ARM)" {
	corrupt hebel23-driver-trace
}

@test "corruption suite: s390x-v7-zstd-sched (v7 zstd big-endian)" {
	corrupt s390x-v7-zstd-sched
}

@test "corruption suite: x86_64-default-sched (v7 zstd)" {
	corrupt x86_64-default-sched
}

@test "corruption suite: hip24-host (v7 zlib, 15 CPUs)" {
	corrupt hip24-host-trace
}

@test "corruption suite: x86_64-v7-none-instances (v7, 3 buffers)" {
	corrupt x86_64-v7-none-instances
}

@test "corruption suite: nish97 (v7 zstd, no event data)" {
	corrupt nish97-trace
}

@test "corruption suite: every other fixture" {
	listed=" labsisop-qemu-trace kinmax-listen-trace.192.168.1.10_53616 hebel23-driver-trace s390x-v7-zstd-sched x86_64-default-sched hip24-host-trace x86_64-v7-none-instances nish97-trace "
	n=0
	for f in "$D"/*.dat; do
		b=${f##*/}
		b=${b%.dat}
		case $listed in *" $b "*) continue ;; esac
		corrupt "$b"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || skip "no other fixtures"
}

@test "tdat-verify: SIGBUS (a mapped file cut short under it) is one line and exit 2" {
	# tdat-verify maps raw page windows; a file truncated while it reads
	# raises SIGBUS.  Stand-in: the signal sent while it waits on stdin.
	err=$BATS_TEST_TMPDIR/err
	fifo=$BATS_TEST_TMPDIR/fifo
	mkfifo "$fifo"
	"$V" <"$fifo" 2>"$err" &
	pid=$!
	exec 5>"$fifo"
	i=0
	while [ "$i" -lt 100 ]; do
		st=$(sed 's/.*) \(.\).*/\1/' "/proc/$pid/stat" 2>/dev/null)
		wchan=$(cat "/proc/$pid/wchan" 2>/dev/null)
		[ "$st" = S ] && [ "$wchan" != 0 ] && break
		sleep 0.1
		i=$((i + 1))
	done
	kill -BUS "$pid"
	set +e
	wait "$pid"
	status=$?
	set -e
	exec 5>&-
	cat "$err"
	[ "$status" -eq 2 ]
	[ "$(cat "$err")" = "tdat-verify: stdin: file changed while being read" ]
}

@test "tdat-verify: trace-cmd 3.4's files of kernel 7.2 are clean" {
	# sys_enter_write's __buf_val: the user's bytes, no NUL
	# (__print_dynamic_array); BTF and modules sections named by BTF_FILE
	# and MODULES_FILE; extract -B boot_mapped: two buffers, the top one
	# with no CPUs.
	run -0 "$V" "$D/tc34/x86_64-tc34-syscalls.dat" "$D/tc34/x86_64-tc34-func-args.dat"
	[ "${lines[0]}" = "$D/tc34/x86_64-tc34-syscalls.dat: ok: v7 zstd, 1 buffer, 4 CPUs, 172 pages, 10201 records, 0 errors, 0 warnings" ]
	[ "${lines[1]}" = "$D/tc34/x86_64-tc34-func-args.dat: ok: v7 zstd, 1 buffer, 4 CPUs, 7 pages, 231 records, 0 errors, 0 warnings" ]
	run -0 "$V" -k "$D/tc34/x86_64-tc34-lastboot-warm.dat"
	[[ $output != *'no option names this section'* ]]
	[[ ${lines[-1]} == *": ok with warnings: v7 zstd, 2 buffers, 4 CPUs, 19 pages, 1083 records, 0 errors, 2 warnings" ]]
	# (the warnings: scsi_dispatch_cmd_start/_done's print formats, which
	# trace-cmd 3.4 does not parse either)
	[ "$(grep -c 'print format does not parse' <<<"$output")" -eq 2 ]
}

@test "tdat-verify: a BTF section that is not BTF is an error" {
	# the func-args fixture, uncompressed, its BTF magic flipped
	"$B/tdat-cat" --compression none -o "$BATS_TEST_TMPDIR/n.dat" \
	    "$D/tc34/x86_64-tc34-func-args.dat"
	off=$("$B/tdat-dump" --sections "$BATS_TEST_TMPDIR/n.dat" |
	    sed -n 's/.*Section 23 @ \([0-9]*\) .*/\1/p')
	[ -n "$off" ]
	printf '\x00' | dd of="$BATS_TEST_TMPDIR/n.dat" bs=1 seek=$((off + 16)) \
	    conv=notrunc 2>/dev/null
	run -1 "$V" "$BATS_TEST_TMPDIR/n.dat"
	[[ $output == *": error: section BTF: no BTF magic (0x00eb)"* ]]

@test "tdat-verify --json: integers past 2^53 are strings, as in every JSON output" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	# the v7 header's offset of the first options section: 2^60
	python3 - "$D/x86_64-v7-none-instances.dat" "$BATS_TEST_TMPDIR/big.dat" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
p = d.index(0, 10) + 1 + 6
p = d.index(0, d.index(0, p) + 1) + 1
d[p:p + 8] = (1 << 60).to_bytes(8, 'little')
open(sys.argv[2], 'wb').write(d)
PY
	run "$V" --json "$BATS_TEST_TMPDIR/big.dat"
	echo "$output"
	[ "$status" -eq 1 ]
	echo "$output" | grep -q '"offset":"1152921504606846976"'
	! echo "$output" | grep -q '"offset":1152921504606846976'
	echo "$output" | grep -q '"errors":1,'
}
