#!/usr/bin/env bats
# bench.bats: the printing helpers of t/bench (make bench) on made-up
# times: medians, ratios against trace-cmd 3.1.6 and 3.4, goals judged
# against each, run's cost taken off.  No real bench runs here.
# Run by t/run-tests (make check).

bats_require_minimum_version 1.5.0

# lib SCRIPT: run SCRIPT in sh with t/bench's helpers defined.
lib() {
	run -0 sh -c "BENCH_LIB=1; gtime=\${GTIME-}; . '$BATS_TEST_DIRNAME/bench'; $1"
}

@test "bench: ratios against 3.1.6 and 3.4 in one line, each judged by the goal" {
	lib 'ratios "tdat-dump/trace-cmd report" 0.06 1.50 1.20 0.04'
	[ "$output" = "  ratio tdat-dump/trace-cmd report: vs 3.1.6 0.04, vs 3.4 0.05 (goal: at most 0.04 against each; vs 3.1.6 met; vs 3.4 MISSED; 3.4 is the faster: its goal is the harder)" ]
	lib 'ratios "tdat-to-json/trace-cmd report" 0.06 1.20 1.50 0.05'
	[ "$output" = "  ratio tdat-to-json/trace-cmd report: vs 3.1.6 0.05, vs 3.4 0.04 (goal: at most 0.05 against each; vs 3.1.6 met; vs 3.4 met; 3.1.6 is the faster: its goal is the harder)" ]
	# no goal: the ratios only
	lib 'ratios "tdat-to-json --chrome/trace-cmd report" 0.3 1.5 1.0'
	[ "$output" = "  ratio tdat-to-json --chrome/trace-cmd report: vs 3.1.6 0.20, vs 3.4 0.30" ]
}

@test "bench: a missing trace-cmd 3.4 says why, and the 3.1.6 ratio stands" {
	lib 'why34="no /tmp/oracle-sid: make-root sid"; ratios "tdat-cat/trace-cmd convert" 0.05 0.25 "" 0.25'
	[ "$output" = "  ratio tdat-cat/trace-cmd convert: vs 3.1.6 0.20, vs 3.4 n/a (no /tmp/oracle-sid: make-root sid) (goal: at most 0.25 against each; vs 3.1.6 met)" ]
	lib 'why316="trace-cmd not found"; why34="no run"; ratios "x/y" 1 "" "" 0.5'
	[ "$output" = "  ratio x/y: vs 3.1.6 n/a (trace-cmd not found), vs 3.4 n/a (no run) (goal: at most 0.5 against each)" ]
}

@test "bench: run's cost comes off 3.4's time; ratios and verdicts" {
	lib 'net 1.2345 0.0300; echo; net 0.01 0.03; echo; ratio 1 0; echo; ratio 1 3'
	[ "${lines[0]}" = "1.2045" ]
	[ "${lines[1]}" = "0.0001" ]
	[ "${lines[2]}" = "n/a" ]
	[ "${lines[3]}" = "0.33" ]
	lib 'verdict 0.04 0.04; verdict 0.05 0.04; verdict n/a 0.04; echo end'
	[ "$output" = "met
MISSED
end" ]
	# judged on the quotient, not on its two printed decimals
	lib 'ratios "a/b" 0.044 1 1 0.04'
	[ "$output" = "  ratio a/b: vs 3.1.6 0.04, vs 3.4 0.04 (goal: at most 0.04 against each; vs 3.1.6 MISSED; vs 3.4 MISSED)" ]
}

@test "bench: output sizes against both trace-cmd outputs" {
	lib 'sizes 900 1000 950; sizes 1000 999 ""'
	[ "${lines[0]}" = "  output sizes: tdat-cat 900 bytes, trace-cmd 3.1.6 1000 bytes, trace-cmd 3.4 950 bytes (goal: no larger than either; no larger than 1000: met; no larger than 950: met)" ]
	[ "${lines[1]}" = "  output sizes: tdat-cat 1000 bytes, trace-cmd 3.1.6 999 bytes, trace-cmd 3.4 n/a bytes (goal: no larger than either; larger than 999: MISSED)" ]
}

@test "bench: the median and peak of a times file; the peak over the tools" {
	printf '0.30 2048\n0.10 4096\n0.20 1024\n' >"$BATS_TEST_TMPDIR/times"
	GTIME=x lib "summary name '$BATS_TEST_TMPDIR/times'; echo \"\$secs \$kib\""
	[ "${lines[0]}" = "  name                                           0.2000 s      4.0 MiB" ]
	[ "${lines[1]}" = "0.20 4096" ]
	GTIME=x lib 'peak 2048; peak 40000; peak 1024; peak_line'
	[ "$output" = "peak memory: at most 39.1 MiB for every tdat tool timed (goal: at most 32 MiB; MISSED)" ]
	GTIME=x lib 'peak 30000; peak_line'
	[ "$output" = "peak memory: at most 29.3 MiB for every tdat tool timed (goal: at most 32 MiB; met)" ]
}
