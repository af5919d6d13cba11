# helpers.bash: what several t/*.bats files share (load helpers).

# same EXPECTED ACTUAL: compare two files, show the start of the diff.
same() {
	if ! cmp -s "$1" "$2"; then
		echo "output differs from $1 (first lines of the diff):"
		diff "$1" "$2" | head -n 30
		return 1
	fi
}

# tc_report ARGS...: trace-cmd report ARGS, its stdout.  trace-cmd 3.1.6
# reads past the end of an empty TRACECLOCK option (hebel23-driver-trace,
# labsisop-qemu-trace and files made from them): in about one run in 250
# the bytes after it name a clock, and it prints raw timestamps
# ("[000]585229563745:") for the same file.  Such a run is repeated, up
# to 5 times; the exit status is the last run's.
tc_report() {
	local i st
	for i in 1 2 3 4 5; do
		trace-cmd report "$@" >"$BATS_TEST_TMPDIR/tc_report.out"
		st=$?
		grep -q -E '\[[0-9]{3,}\] *[0-9]+: ' \
		    "$BATS_TEST_TMPDIR/tc_report.out" || break
	done
	cat "$BATS_TEST_TMPDIR/tc_report.out"
	return "$st"
}

# tc_of KIND: the tdat-dump option that prints what the trace-cmd of an
# expected output KIND printed: tc34-* trace-cmd 3.4 (the default, no
# option), tc33-* 3.3.1, anything else 3.1.6.
tc_of() {
	case $1 in
	tc34-*) ;;
	tc33-*) echo --trace-cmd=3.3 ;;
	*) echo --trace-cmd=3.1 ;;
	esac
}

# damage_kallsyms DUMP IN OUT: OUT a copy of the v7 zstd trace IN with 4
# bytes 400,000 bytes into its compressed kallsyms section overwritten
# (0xff), so that the section no longer decompresses.  DUMP: the
# tdat-dump that finds the section.
damage_kallsyms() {
	local at
	cp "$2" "$3"
	at=$("$1" --sections "$3" |
	    sed -n 's/.*Section *[0-9]* @ \([0-9]*\) .*"kallsyms".*/\1/p')
	printf '\377\377\377\377' | dd of="$3" bs=1 seek=$((at + 24 + 400000)) \
	    conv=notrunc status=none
}
