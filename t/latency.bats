#!/usr/bin/env bats
# latency.bats: latency-tracer files (text, not events) in v6 and v7, as
# trace-cmd 3.1.6 reports them (t/data/latency): tdat-dump --records and
# --all, tdat-to-json, tdat-to-ltt and back, tdat-cat between versions and
# compressions, tdat-verify.
# Run by t/run-tests (make check); TDAT_BIN names the tools' folder.

bats_require_minimum_version 1.5.0

setup() {
	L=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}/latency
	B=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	S=$BATS_TEST_DIRNAME/../schemas
	T=$BATS_TEST_TMPDIR
	if [ ! -x "$B/tdat-dump" ]; then
		echo "# $B/tdat-dump is not built" >&3
		return 1
	fi
}

load helpers

FIXTURES="latency-wakeup-v6 latency-wakeup-v7 latency-wakeup_rt-v7 latency-tail-v7-none"

# expected NAME KIND: trace-cmd's output for t/data/latency/NAME.dat.
expected() {
	local f=$L/$1.$2.txt
	if [ -f "$f" ]; then
		cat "$f"
	else
		zstd -dcq "$f.zst"
	fi
}

# records FILE KIND: tdat-dump --records as trace-cmd report KIND.
records() {
	case $2 in
	report) "$B/tdat-dump" --records --trace-cmd=3.1 -t "$1" ;;
	report-N) "$B/tdat-dump" --records --trace-cmd=3.1 -N -t "$1" ;;
	report-R) "$B/tdat-dump" --records --trace-cmd=3.1 -R -t "$1" ;;
	esac
}

# reported FILE: what trace-cmd report -t prints for FILE.
reported() {
	/usr/bin/trace-cmd report -t "$1" 2>/dev/null
}

@test "tdat-dump --records prints the text as trace-cmd report does (v6, v7, -N, -R)" {
	local n k
	for n in $FIXTURES; do
		for k in report report-N report-R; do
			expected "$n" "$k" >"$T/x"
			run --separate-stderr records "$L/$n.dat" "$k"
			[ "$status" -eq 0 ] && [ -z "$stderr" ] ||
			    { echo "$n $k: exit $status: $stderr"; return 1; }
			records "$L/$n.dat" "$k" >"$T/a"
			same "$T/x" "$T/a" || { echo "in $n $k"; return 1; }
		done
	done
	# The v7 text is the whole report, not "cpus=4" alone.
	[ "$(wc -l <"$T/a")" -gt 100 ]
}

@test "uncompressed v7 text: the file's bytes after the section are read as text" {
	# trace-cmd reads 8192-byte pieces from the text to the end of the
	# file, each up to its first NUL: "ms" comes from the strings section.
	records "$L/latency-tail-v7-none.dat" report >"$T/a"
	[ "$(tail -n 1 "$T/a")" = ms ]
}

@test "compressed text: each chunk is printed up to its first NUL" {
	# A NUL 100 bytes into a 60000-byte text: trace-cmd prints the chunk
	# it is in up to there, then the next chunk whole.
	python3 - "$L/latency-wakeup-v6.dat" "$T/nul6.dat" <<'EOF'
import sys
d = open(sys.argv[1], "rb").read()
head = d[:d.index(b"latency  \0") + 10]
text = (d[len(head):] * 5)[:60000]
open(sys.argv[2], "wb").write(head + text[:100] + b"\0" + text[101:])
EOF
	"$B/tdat-cat" --file-version 7 --compression zstd -o "$T/nul7.dat" \
	    "$T/nul6.dat"
	reported "$T/nul7.dat" >"$T/x"
	"$B/tdat-dump" --records --trace-cmd=3.1 -t "$T/nul7.dat" >"$T/a"
	same "$T/x" "$T/a"
	# tdat-cat compresses the text in 8192-byte chunks: the pieces of
	# the v6 file, which therefore reports the same.
	reported "$T/nul6.dat" >"$T/x6"
	same "$T/x6" "$T/x"
	[ "$(wc -c <"$T/x")" -lt 55000 ]
}

@test "tdat-dump --all equals trace-cmd dump --all" {
	local n
	for n in $FIXTURES; do
		expected "$n" dump-all |
		    sed 's/^\( Tracing meta data in file \).*:$/\1FILE:/' >"$T/x"
		"$B/tdat-dump" --all "$L/$n.dat" |
		    sed 's/^\( Tracing meta data in file \).*:$/\1FILE:/' >"$T/a"
		same "$T/x" "$T/a" || { echo "in $n"; return 1; }
	done
}

@test "tdat-cat converts latency files between v6 and v7, any compression" {
	local n v c
	for n in latency-wakeup-v6 latency-wakeup-v7 latency-wakeup_rt-v7; do
		expected "$n" report >"$T/x"
		for v in 6 7; do
			for c in none zstd; do
				[ "$v" = 6 ] && [ "$c" = zstd ] && continue
				run -0 "$B/tdat-cat" --file-version "$v" \
				    --compression "$c" -o "$T/out.dat" "$L/$n.dat"
				reported "$T/out.dat" >"$T/a"
				same "$T/x" "$T/a" || { echo "$n -> v$v $c"; return 1; }
				records "$T/out.dat" report >"$T/a"
				same "$T/x" "$T/a" || { echo "$n -> v$v $c"; return 1; }
			done
		done
	done
}

@test "tdat-cat writes uncompressed v7 text last: trace-cmd reads no bytes after it" {
	"$B/tdat-cat" --file-version 6 -o "$T/v6.dat" "$L/latency-tail-v7-none.dat"
	"$B/tdat-cat" --file-version 7 --compression none -o "$T/v7.dat" \
	    "$L/latency-tail-v7-none.dat"
	reported "$T/v6.dat" >"$T/x"
	reported "$T/v7.dat" >"$T/a"
	same "$T/x" "$T/a"
	# Only the "ms" the original's tail gave is gone.
	expected latency-tail-v7-none report | sed '$s/^ms$//' >"$T/e"
	same "$T/e" "$T/a"
}

@test "tdat-to-json: one object per line of the text, valid against the schema" {
	local n
	for n in latency-wakeup-v6 latency-wakeup-v7; do
		"$B/tdat-to-json" "$L/$n.dat" >"$T/j"
		[ "$(head -n 1 "$T/j")" = '{"latency":"# tracer: wakeup"}' ]
		# The lines are the report's after its cpus= line (the
		# report ends with a newline of its own).
		expected "$n" report | sed '1d;$d' >"$T/x"
		jq -r .latency "$T/j" >"$T/a"
		same "$T/x" "$T/a" || { echo "in $n"; return 1; }
		if python3 -c 'import jsonschema' 2>/dev/null; then
			run -0 python3 "$BATS_TEST_DIRNAME/json-validate.py" \
			    --lines "$S/event.schema.json" "$T/j"
		fi
	done
	# --chrome: no events.
	run -0 "$B/tdat-to-json" --chrome "$L/latency-wakeup-v7.dat"
	[ "$(echo "$output" | jq '.traceEvents | length')" -eq 0 ]
}

@test "tdat-to-json: a text without its last newline, NULs, other bytes and long lines go without loss" {
	python3 - "$L/latency-wakeup-v6.dat" "$T/odd.dat" <<'EOF'
import sys
d = open(sys.argv[1], "rb").read()
head = d[:d.index(b"latency  \0") + 10]
text = b"# tracer: x\n\xff\xfe\nab\0c\n" + b"y" * ((2 << 20) + 5) + b"\n\nlast"
open(sys.argv[2], "wb").write(head + text)
open(sys.argv[2] + ".text", "wb").write(text)
EOF
	"$B/tdat-to-json" "$T/odd.dat" >"$T/j"
	[ "$(wc -l <"$T/j")" -eq 8 ]	# the y line in 3 pieces
	[ "$(sed -n 4p "$T/j" | jq .newline)" = false ]
	[ "$(sed -n 2p "$T/j")" = '{"latency":{"hex":"fffe"}}' ]
	[ "$(sed -n 3p "$T/j")" = '{"latency":"ab\u0000c"}' ]
	[ "$(tail -n 1 "$T/j")" = '{"latency":"last","newline":false}' ]
	python3 - "$T/j" "$T/odd.dat.text" <<'EOF'
import json, sys
out = b""
for line in open(sys.argv[1], encoding="utf-8"):
    o = json.loads(line)
    t = o["latency"]
    t = bytes.fromhex(t["hex"]) if isinstance(t, dict) else t.encode()
    out += t + (b"" if o.get("newline", True) is False else b"\n")
if out != open(sys.argv[2], "rb").read():
    sys.exit("the lines do not give the text back")
EOF
	if python3 -c 'import jsonschema' 2>/dev/null; then
		run -0 python3 "$BATS_TEST_DIRNAME/json-validate.py" --lines \
		    "$S/event.schema.json" "$T/j"
	fi
}

@test "tdat-to-json --meta: where the text starts, v6 and v7" {
	local off
	off=$("$B/tdat-to-json" --meta "$L/latency-wakeup-v7.dat" | jq .latency.offset)
	[ "$off" -gt 0 ]
	[ "$(tail -c +$((off + 1)) "$L/latency-wakeup-v7.dat" | head -c 4 | od -An -tu4 | tr -d ' ')" -eq 1 ]	# one chunk
	off=$("$B/tdat-to-json" --meta "$L/latency-tail-v7-none.dat" | jq .latency.offset)
	[ "$(tail -c +$((off + 1)) "$L/latency-tail-v7-none.dat" | head -c 16)" = "# tracer: wakeup" ]
	off=$("$B/tdat-to-json" --meta "$L/latency-wakeup-v6.dat" | jq .latency.offset)
	[ "$(tail -c +$((off + 1)) "$L/latency-wakeup-v6.dat" | head -c 16)" = "# tracer: wakeup" ]
}

@test "tdat-to-ltt keeps the text in info/latency; the directory reports and converts back" {
	local n v c
	for n in latency-wakeup-v6 latency-wakeup-v7; do
		rm -rf "$T/d"
		run -0 "$B/tdat-to-ltt" "$L/$n.dat" "$T/d"
		expected "$n" report | sed '1d;$d' >"$T/x"
		same "$T/x" "$T/d/info/latency" || { echo "in $n"; return 1; }
		run -0 "$B/tdat-verify" "$T/d"
		expected "$n" report >"$T/x"
		records "$T/d" report >"$T/a"
		same "$T/x" "$T/a" || { echo "tdat-dump $n"; return 1; }
		for v in 6 7; do
			for c in none zstd; do
				[ "$v" = 6 ] && [ "$c" = zstd ] && continue
				run -0 "$B/tdat-cat" --file-version "$v" \
				    --compression "$c" -o "$T/out.dat" "$T/d"
				reported "$T/out.dat" >"$T/a"
				same "$T/x" "$T/a" || { echo "$n -> v$v $c"; return 1; }
			done
		done
	done
}

@test "tdat-verify: latency files are ok; a v7 chunk that does not decompress is found" {
	local n
	for n in $FIXTURES; do
		run -0 "$B/tdat-verify" "$L/$n.dat"
		# (trace-cmd convert through v6 gave the wakeup_rt file a
		# second CPUCOUNT option: a warning)
		[[ "$output" == *": ok: "* || "$output" == *": ok with warnings: "* ]]
	done
	# The zstd frame's magic of the one chunk of text, damaged.
	python3 - "$L/latency-wakeup-v7.dat" "$T/bad.dat" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
i = d.index(b"\x28\xb5\x2f\xfd", d.index(b"\x16\x00\x01\x00"))
d[i] ^= 0xff
open(sys.argv[2], "wb").write(d)
EOF
	run -1 "$B/tdat-verify" "$T/bad.dat"
	[[ "${lines[0]}" == "$T/bad.dat: offset 0x"*": error: latency text: chunk 0: zstd: "* ]]
	run -1 "$B/tdat-verify" --json "$T/bad.dat"
	[[ "$output" == *'"kind":"decompress"'* ]]
	# tdat-dump says so too.
	run -1 --separate-stderr "$B/tdat-dump" --records "$T/bad.dat"
	[[ "$stderr" == *"chunk 0: zstd: "* ]]
}
