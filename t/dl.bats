#!/usr/bin/env bats
# dl.bats: libxml2 and libbabeltrace2 (with ICU, glib and libstdc++ behind
# them) are no tool's link dependency (lib/common/tdat-dl.h): a trace.dat
# never loads them, an LTT directory loads libxml2 and a CTF directory
# libbabeltrace2, when read or written.

bats_require_minimum_version 1.5.0

setup() {
	B=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	D=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
	T=$D/x86_64-default-sched.dat
}

# loaded CMD...: the libraries CMD loaded, one a line (ld.so's LD_DEBUG)
loaded() {
	LD_DEBUG=files LD_DEBUG_OUTPUT=$BATS_TEST_TMPDIR/ld "$@" >/dev/null 2>&1
	cat "$BATS_TEST_TMPDIR"/ld.* | sed -n 's/.*file=\([^ ]*\) .*/\1/p' |
	    sort -u
	rm -f "$BATS_TEST_TMPDIR"/ld.*
}

@test "no tool links libxml2 or libbabeltrace2" {
	for t in "$B"/tdat-*; do
		[ -x "$t" ] || continue
		run ldd "$t"
		[ "$status" -eq 0 ]
		! [[ $output == *libxml2* || $output == *libbabeltrace2* ]] ||
		    { echo "${t##*/}: $output"; return 1; }
	done
}

@test "a trace.dat loads neither: verify, dump, to-json, cat" {
	for c in "tdat-verify $T" "tdat-dump --records $T" \
	    "tdat-to-json $T" "tdat-cat -o $BATS_TEST_TMPDIR/c.dat $T"; do
		out=$(loaded $B/$c)
		[[ $out == *libzstd* ]] || { echo "$c: no LD_DEBUG: $out"; return 1; }
		! [[ $out == *libxml2* || $out == *libbabeltrace2* ]] ||
		    { echo "$c: $out"; return 1; }
	done
}

@test "an LTT directory loads libxml2 written, read and verified" {
	L=$BATS_TEST_TMPDIR/x.ltt
	out=$(loaded "$B"/tdat-to-ltt "$T" "$L")
	[[ $out == *libxml2.so* && $out != *libbabeltrace2* ]] || { echo "$out"; return 1; }
	"$B"/tdat-verify "$L"
	out=$(loaded "$B"/tdat-verify "$L")
	[[ $out == *libxml2.so* && $out != *libbabeltrace2* ]] || { echo "$out"; return 1; }
	out=$(loaded "$B"/tdat-dump --records "$L")
	[[ $out == *libxml2.so* ]] || { echo "$out"; return 1; }
	[ "$("$B"/tdat-dump --records "$L" | wc -l)" -gt 100 ]
}

@test "a CTF directory loads libbabeltrace2 read, not written" {
	C=$BATS_TEST_TMPDIR/x.ctf
	out=$(loaded "$B"/tdat-to-ctf "$T" "$C")
	! [[ $out == *libbabeltrace2* || $out == *libxml2* ]] || { echo "$out"; return 1; }
	out=$(loaded "$B"/tdat-dump --records "$C")
	[[ $out == *libbabeltrace2.so* && $out != *libxml2* ]] || { echo "$out"; return 1; }
	cmp <("$B"/tdat-dump --records "$T") <("$B"/tdat-dump --records "$C")
}
