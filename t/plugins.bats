#!/usr/bin/env bats
# plugins.bats: tdat-dump --records against trace-cmd 3.1.6 for events
# that trace-cmd's plugins print (Debian's libtraceevent 1.7.1 plugins:
# scsi, jbd2, tlb, futex, xen, cfg80211, mac80211, function's
# func_repeats).  Fixtures: t/data/plugins (t/data/README says how they
# were made); expected outputs come from trace-cmd report -t, -N -t and
# -R -t.  Run by t/run-tests (make check); TDAT_BIN names the tools.

bats_require_minimum_version 1.5.0

setup() {
	D=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}/plugins
	DUMP=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}/tdat-dump
	if [ ! -x "$DUMP" ]; then
		echo "# $DUMP is not built" >&3
		return 1
	fi
}

load helpers

# records NAME KIND ARGS...: tdat-dump --records ARGS equals trace-cmd's
# output KIND (report, report-N, report-R) for t/data/plugins/NAME.dat.
records() {
	local name=$1 kind=$2 f tc
	shift 2
	tc=$(tc_of "$kind")
	f=$D/expected/$name.$kind.txt
	if [ -f "$f" ]; then
		cat "$f"
	else
		zstd -dcq "$f.zst"
	fi >"$BATS_TEST_TMPDIR/x"
	run --separate-stderr "$DUMP" --records $tc "$@" "$D/$name.dat"
	[ "$status" -eq 0 ] || { echo "exit $status: $stderr"; return 1; }
	[ -z "$stderr" ] || { echo "stderr: $stderr"; return 1; }
	"$DUMP" --records $tc "$@" "$D/$name.dat" >"$BATS_TEST_TMPDIR/a"
	same "$BATS_TEST_TMPDIR/x" "$BATS_TEST_TMPDIR/a"
}

# all_modes NAME: the three reports.
all_modes() {
	records "$1" report -t
	records "$1" report-N -t -N
	records "$1" report-R -t -R
}

@test "scsi: CDBs decoded (READ_10, WRITE_10, READ_CAPACITY_16...), errors and timeouts (v7)" {
	all_modes x86_64-v7-scsi
}

@test "scsi: with block events, a rescan and reads (v6)" {
	all_modes x86_64-v6-scsi
}

@test "scsi: the decoded CDB is in the report" {
	run "$DUMP" --records -t "$D/x86_64-v7-scsi.dat"
	[[ $output == *"cmnd=(READ_10 lba="*" txlen="*" protect=0 raw=28 "* ]]
	[[ $output == *"cmnd=(SERVICE_ACTION_IN_16 READ_CAPACITY_16 lba=0 alloc_len=32 raw=9e"* ]]
	[[ $output != *"FAILED TO PARSE"* ]]
}

@test "jbd2: jbd2_dev_to_name and jiffies_to_msecs" {
	all_modes x86_64-v6-jbd2
}

@test "tlb: tlb_flush reasons" {
	all_modes x86_64-v7-tlb
}

@test "futex: sys_enter_futex operations of a threaded program" {
	all_modes x86_64-v6-futex
}

@test "mac80211 and cfg80211 events of mac80211_hwsim (scan, IBSS, monitor)" {
	# -R: cfg80211_get_bss's ssid has no NUL in the record, so trace-cmd
	# prints the page's bytes after it up to the next NUL; so does tdat.
	all_modes x86_64-v7-wifi
}

@test "xen_hypercall_name, __le16_to_cpup and drv_bss_info_changed (hand-built records)" {
	all_modes synthetic-xen-wireless
}

@test "function: func_repeats with the time of the last call (ns with -t, us without)" {
	all_modes x86_64-v7-funcrep
	records x86_64-v7-funcrep report-no-t
}

@test "function: func_repeats of a trace whose clock counts (hand-built records)" {
	all_modes synthetic-func-repeats-counter
}

# x86_64-fgraph-retval.dat (t/mkfgraph): function_graph records of a
# kernel with funcgraph-retval and funcgraph-retaddr, which Debian's lack;
# the expected outputs are trace-cmd 3.4's and 3.3.1's.  Since 3.3 a
# call whose return is on another CPU is not a leaf, and return values
# print; 3.4 names the caller of fgraph_retaddr_entry.
@test "function_graph: return values, callers, returns on another CPU (3.4, 3.3; hand-built records)" {
	records x86_64-fgraph-retval tc34-report -t
	records x86_64-fgraph-retval tc33-report -t
	records x86_64-fgraph-retval tc34-report-N -t -N
	records x86_64-fgraph-retval tc34-report-R -t -R
}

@test "function_graph: -O fgraph:retval-dec, retval-hex, retval-skip, tailprint, depth" {
	records x86_64-fgraph-retval tc34-report-retval-dec -t -O fgraph:retval-dec
	records x86_64-fgraph-retval tc34-report-retval-hex -t -O fgraph:retval-hex
	records x86_64-fgraph-retval tc33-report-retval-skip -t -O retval-skip
	records x86_64-fgraph-retval tc34-report-tail-depth -t -O fgraph:tailprint \
	    -O depth
}
