# helpers.bash: what several t/*.bats files share (load helpers).

# same EXPECTED ACTUAL: compare two files, show the start of the diff.
same() {
	if ! cmp -s "$1" "$2"; then
		echo "output differs from $1 (first lines of the diff):"
		diff "$1" "$2" | head -n 30
		return 1
	fi
}
