#!/usr/bin/env bats
# chrome.bats: tdat-to-json --chrome as the viewers read it: every track
# well-formed in node's doubles (t/chrome-tracks.js) on every fixture,
# and the output of a few fixtures loaded into speedscope under headless
# Chromium (t/chrome-speedscope.js).
# Run by t/run-tests (make check); TDAT_BIN names the tools' folder.

bats_require_minimum_version 1.5.0

setup() {
	D=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
	J=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}/tdat-to-json
	T=$BATS_TEST_DIRNAME
	if [ ! -x "$J" ]; then
		echo "# $J is not built" >&3
		return 1
	fi
}

need_node() {
	command -v node >/dev/null || skip "node is not installed"
}

@test "--chrome: every track of every fixture is well-formed as node reads it" {
	need_node
	local f n=0 refused=0 out=()
	while IFS= read -r f; do
		n=$((n + 1))
		# damaged fixtures that tdat-to-json refuses have no document
		if ! "$J" --chrome "$f" >"$BATS_TEST_TMPDIR/$n.json" 2>/dev/null; then
			refused=$((refused + 1))
			continue
		fi
		out+=("$BATS_TEST_TMPDIR/$n.json")
	done < <(find "$D" -name '*.dat' | sort)
	echo "$n fixtures, $refused refused"
	[ "${#out[@]}" -ge 25 ]
	run node "$T/chrome-tracks.js" "${out[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "--chrome: x86_64-default-sched's slices: exact args, ends not past the next start" {
	need_node
	"$J" --chrome "$D/x86_64-default-sched.dat" >"$BATS_TEST_TMPDIR/c.json"
	# the slices of CPU 0, and the sums node makes
	run node -e '
		const d = JSON.parse(require("fs").readFileSync(process.argv[1]));
		const x = d.traceEvents.filter(e => e.ph === "X" && e.tid === 4194305);
		let bad = 0, cut = 0;
		for (let i = 1; i < x.length; i++) {
			const a = x[i - 1], b = x[i];
			if (a.ts + a.dur > b.ts) bad++;
			const c = a.args.common_dur - Math.round(a.dur * 1000);
			if (c !== 0 && c !== 1) bad++;
			if (c) cut++;
			if (Math.round(a.ts * 1000) !== a.args.common_ts) bad++;
		}
		console.log(x.length, bad, cut > 0);
	' "$BATS_TEST_TMPDIR/c.json"
	echo "$output"
	[ "$output" = "529 0 true" ]
}

@test "chrome-tracks.js notices overlaps, unmatched B/E and inexact args" {
	need_node
	local x='"ph":"X","pid":1,"tid":2'
	# 0.1 + 0.2 > 0.3 in doubles: the plain sum passes the next start
	echo "{\"traceEvents\":[{\"name\":\"a\",$x,\"ts\":0.1,\"dur\":0.2,\"args\":{\"common_ts\":100,\"common_dur\":200}},{\"name\":\"b\",$x,\"ts\":0.3,\"dur\":1,\"args\":{\"common_ts\":300,\"common_dur\":1000}}]}" >"$BATS_TEST_TMPDIR/a.json"
	run node "$T/chrome-tracks.js" "$BATS_TEST_TMPDIR/a.json"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"1 plain"* ]]
	echo '{"traceEvents":[{"name":"a","ph":"B","pid":1,"tid":1,"ts":1},{"name":"b","ph":"E","pid":1,"tid":1,"ts":2}]}' >"$BATS_TEST_TMPDIR/b.json"
	run node "$T/chrome-tracks.js" "$BATS_TEST_TMPDIR/b.json"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"2 unmatched B/E"* ]]
	echo "{\"traceEvents\":[{\"name\":\"a\",$x,\"ts\":1,\"dur\":1,\"args\":{\"common_ts\":1001,\"common_dur\":1000}}]}" >"$BATS_TEST_TMPDIR/c.json"
	run node "$T/chrome-tracks.js" "$BATS_TEST_TMPDIR/c.json"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"1 inexact"* ]]
	# and passes a well-formed one
	echo "{\"traceEvents\":[{\"name\":\"a\",$x,\"ts\":0.1,\"dur\":0.199,\"args\":{\"common_ts\":100,\"common_dur\":200}},{\"name\":\"b\",$x,\"ts\":0.3,\"dur\":1,\"args\":{\"common_ts\":300,\"common_dur\":1000}}]}" >"$BATS_TEST_TMPDIR/d.json"
	run node "$T/chrome-tracks.js" "$BATS_TEST_TMPDIR/d.json"
	echo "$output"
	[ "$status" -eq 0 ]
}

# ---- speedscope under headless Chromium

SPEEDSCOPE_VERSION=1.25.0

# need_browser: node, Chromium (CHROMIUM, else chromium on PATH) and
# speedscope $SPEEDSCOPE_VERSION, installed with npm on first use into
# the cache (SPEEDSCOPE_CACHE, default ~/.cache/tdat), never into the
# tree; sets CHROMIUM and RELEASE, or skips in one line.
need_browser() {
	need_node
	CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
	[ -n "$CHROMIUM" ] && [ -x "$CHROMIUM" ] ||
	    skip "chromium is not installed"
	local c=${SPEEDSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tdat}/speedscope-$SPEEDSCOPE_VERSION
	RELEASE=$c/node_modules/speedscope/dist/release
	if ! grep -qs "speedscope@$SPEEDSCOPE_VERSION" "$RELEASE/release.txt"; then
		command -v npm >/dev/null || skip "npm is not installed (for speedscope)"
		mkdir -p "$c" &&
		    npm install --prefix "$c" --no-audit --no-fund --no-save \
		    --loglevel=error "speedscope@$SPEEDSCOPE_VERSION" >&2 ||
		    skip "npm could not install speedscope@$SPEEDSCOPE_VERSION"
		grep -qs "speedscope@$SPEEDSCOPE_VERSION" "$RELEASE/release.txt" ||
		    skip "npm installed no speedscope@$SPEEDSCOPE_VERSION"
	fi
}

@test "speedscope in headless Chromium: CPU slices one after another, no importer warning" {
	need_browser
	local b out=()
	for b in x86_64-default-sched s390x-v7-zstd-sched labsisop-qemu-trace \
	    x86_64-v7-none-instances; do
		"$J" --chrome "$D/$b.dat" >"$BATS_TEST_TMPDIR/$b.json"
		out+=("$BATS_TEST_TMPDIR/$b.json")
	done
	# and a staircase the check must refuse: every slice 2 ns longer,
	# each ends inside the next
	node -e '
		const fs = require("fs");
		const d = JSON.parse(fs.readFileSync(process.argv[1]));
		for (const e of d.traceEvents)
			if (e.ph === "X")
				e.dur += 0.002;
		fs.writeFileSync(process.argv[2], JSON.stringify(d));
	' "$BATS_TEST_TMPDIR/x86_64-default-sched.json" "$BATS_TEST_TMPDIR/stairs.json"
	run node "$T/chrome-speedscope.js" "$RELEASE" "$CHROMIUM" "${out[@]}" \
	    "$BATS_TEST_TMPDIR/stairs.json"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == *"speedscope@$SPEEDSCOPE_VERSION"* ]]
	[[ "$output" == *"x86_64-default-sched.json: ok: 4 profiles, 2158 slices, deepest stack 1, 0 console"* ]]
	[[ "$output" == *"s390x-v7-zstd-sched.json: ok: 4 profiles, 2522 slices, deepest stack 1, 0 console"* ]]
	[[ "$output" == *"labsisop-qemu-trace.json: ok: 1 profiles, 55 slices, deepest stack 1, 0 console"* ]]
	[[ "$output" == *"x86_64-v7-none-instances.json: ok: 4 profiles, 1439 slices, deepest stack 1, 0 console"* ]]
	[[ "$output" == *"stairs.json: FAIL: 4 profiles, 2158 slices, deepest stack "* ]]
	[[ "$output" == *"slices opened inside another"* ]]
	[[ "$output" == *'console.warning: ts='*'Tried to end '* ]]
	[ "$(grep -c ': FAIL' <<<"$output")" -eq 1 ]
}
