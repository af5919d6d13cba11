#!/usr/bin/env bats
# layers.bats: the layering check (t/layers) passes on the build's
# objects, and fails on a planted engine->format call, on an upward call
# between the engine's folders, and on a circle between two formats.
# Run by t/run-tests (make check); TDAT_BIN names the tools' folder, the
# objects are beside it.

bats_require_minimum_version 1.5.0

setup() {
	BIN=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	BUILD=$(cd "$BIN/.." && pwd)
	LAYERS=$BATS_TEST_DIRNAME/layers
	T=$BATS_TEST_TMPDIR
	command -v nm >/dev/null || skip "nm is not installed"
}

# obj DIR NAME CODE: compile CODE into $T/b/DIR/NAME.o
obj() {
	mkdir -p "$T/b/$1"
	printf '%s\n' "$3" >"$T/b/$1/$2.c"
	${CC:-cc} -c -o "$T/b/$1/$2.o" "$T/b/$1/$2.c"
}

# A sound little tree: a format calling the engine, the engine calling
# down.
sound() {
	obj lib/common common 'int lo(void) { return 1; }'
	obj lib/read read 'int lo(void); int rd(void) { return lo(); }'
	obj formats/fa fa 'int rd(void); int fa(void) { return rd(); }'
	obj formats/fb fb 'int fa(void); int fb(void) { return fa(); }'
}

@test "layers: the build's objects pass, the table names every folder" {
	run "$LAYERS" "$BUILD"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"layers: no violation"* ]]
	[[ "$output" == *"lib/read "*"lib/common "*" ok"* ]]
	[[ "$output" != *ENGINE* ]] && [[ "$output" != *UPWARD* ]] &&
	    [[ "$output" != *CIRCLE* ]]
}

@test "layers: a sound tree passes" {
	sound
	LAYERS_TODO= run "$LAYERS" "$T/b"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"formats/fb"*"formats/fa"*" ok"* ]]
}

@test "layers: an engine folder calling a format fails" {
	sound
	obj lib/common bad 'int fa(void); int bad(void) { return fa(); }'
	LAYERS_TODO= run "$LAYERS" "$T/b"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"lib/common"*"formats/fa"*"ENGINE->FORMAT"* ]]
	[[ "$output" == *"fa(bad)"* ]]
}

@test "layers: an upward call between engine folders fails" {
	sound
	obj lib/common up 'int rd(void); int up(void) { return rd(); }'
	LAYERS_TODO= run "$LAYERS" "$T/b"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"lib/common"*"lib/read"*"UPWARD"* ]]
}

@test "layers: a circle between two formats fails" {
	sound
	obj formats/fa back 'int fb(void); int back(void) { return fb(); }'
	LAYERS_TODO= run "$LAYERS" "$T/b"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"formats/fa"*"formats/fb"*"CIRCLE"* ]]
	[[ "$output" == *"formats/fb"*"formats/fa"*"CIRCLE"* ]]
}

@test "layers: a listed violation passes as todo, a listed one no longer met fails" {
	sound
	obj lib/common bad 'int fa(void); int bad(void) { return fa(); }'
	echo 'lib/common -> formats/fa fa' >"$T/todo"
	LAYERS_TODO=$T/todo run "$LAYERS" "$T/b"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"formats/fa"*" todo"* ]]
	rm "$T/b/lib/common/bad.o"
	LAYERS_TODO=$T/todo run "$LAYERS" "$T/b"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no longer met"* ]]
}
