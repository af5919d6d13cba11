#!/usr/bin/env bats
# batch.bats: the "archives at scale" recipes of README and tdat-batch(7),
# run as written with GNU parallel and with xargs -P over a tree of traces
# made from the fixtures: verify it with one JSON Lines summary, telling
# damaged (exit 1) from unreadable (exit 2) files; convert it to v7 zstd
# keeping names and folders, checked with tdat-verify and trace-cmd
# report; spread over several machines with parallel's --sshlogin (here
# ":" the local machine, and a stand-in ssh that runs each "host" in a
# folder of its own, so that --transferfile, --return and --cleanup really
# move files); every tool's exit status on damaged and unreadable files;
# and tdat-verify's memory staying flat over 200 files in one run.

bats_require_minimum_version 1.5.0

setup() {
	D=${TDAT_DATA:-$BATS_TEST_DIRNAME/data}
	B=${TDAT_BIN:-$BATS_TEST_DIRNAME/../build/bin}
	[ -x "$B/tdat-verify" ] || skip "the tools are not built"
	PATH=$B:$PATH
	T=$BATS_TEST_TMPDIR
	# GNU parallel's citation notice: --will-cite in every call, and a
	# home of our own so that nothing is written to the user's.
	HOME=$T/home
	mkdir -p "$HOME"
	export PATH HOME
}

need_parallel() {
	command -v parallel >/dev/null || skip "GNU parallel is not installed"
	parallel --will-cite --version </dev/null | grep -q 'GNU parallel' ||
	    skip "parallel is not GNU parallel"
}

need_jq() {
	command -v jq >/dev/null || skip "jq is not installed"
}

# The good traces of the archive (small fixtures, v6 and v7).
GOOD="x86_64-default-sched s390x-v7-zstd-sched labsisop-qemu-trace
kinmax-listen-trace.192.168.1.10_53616"

# archive: $T/archive with good traces in nested folders, and beside them
# damaged files (not a trace, cut after the header, cut in the middle of
# the CPU data, empty) and unreadable ones (a dangling symlink, a folder
# named *.dat, and when not root a file without read permission).
archive() {
	local a=$T/archive f
	mkdir -p "$a/2026/board1" "$a/2026/board 2" "$a/old"
	cp "$D/x86_64-default-sched.dat" "$a/2026/board1/boot.dat"
	cp "$D/s390x-v7-zstd-sched.dat" "$a/2026/board 2/sched v7.dat"
	cp "$D/labsisop-qemu-trace.dat" "$a/old/qemu.dat"
	cp "$D/kinmax-listen-trace.192.168.1.10_53616.dat" "$a/old/listen.dat"
	mkdir -p "$T/damaged" "$T/unreadable"
	printf 'not a trace\n' >"$T/damaged/notrace.dat"
	head -c 300 "$D/x86_64-default-sched.dat" >"$T/damaged/header.dat"
	f=$D/s390x-v7-zstd-sched.dat
	head -c $(($(stat -c %s "$f") / 2)) "$f" >"$T/damaged/half.dat"
	f=$D/x86_64-default-sched.dat
	head -c $(($(stat -c %s "$f") - 4096)) "$f" >"$T/damaged/tail.dat"
	: >"$T/damaged/empty.dat"
	ln -s "$T/nowhere.dat" "$T/unreadable/missing.dat"
	mkdir "$T/unreadable/folder.dat"
	if [ "$(id -u)" -ne 0 ]; then
		cp "$D/x86_64-default-sched.dat" "$T/unreadable/noperm.dat"
		chmod 000 "$T/unreadable/noperm.dat"
	fi
}

# summaries: the "file summary" pairs of a JSON Lines stream, sorted.
summaries() {
	jq -r 'select(.summary) | "\(.file)\t\(.summary)"' | sort
}

@test "batch: every tool exits 1 on damaged files and 2 on unreadable ones" {
	archive
	local f t st
	for f in "$T"/damaged/*.dat "$T"/unreadable/*.dat; do
		case $f in */damaged/*) st=1 ;; *) st=2 ;; esac
		for t in "tdat-verify -q" "tdat-verify --json" \
		    "tdat-cat -o $T/out.dat" "tdat-cat --file-version 6" \
		    "tdat-dump" "tdat-dump --records" "tdat-dump --all" \
		    "tdat-to-json" "tdat-to-json --meta"; do
			run $t "$f"
			[ "$status" -eq "$st" ] ||
			    { echo "$t $f: exit $status, not $st"; return 1; }
		done
		# The same file as standard input: a damaged stream is
		# damaged; an unreadable file never gets that far.
		[ "$st" -eq 1 ] || continue
		for t in "tdat-verify -q" "tdat-cat" "tdat-dump --records" \
		    "tdat-to-json"; do
			run $t <"$f"
			[ "$status" -eq 1 ] ||
			    { echo "$t < $f: exit $status, not 1"; return 1; }
		done
	done
	[ ! -e "$T/out.dat" ]
	# The worst status wins when one run is given both kinds.
	run tdat-verify -q "$T/damaged/notrace.dat" "$D/s390x-v7-zstd-sched.dat"
	[ "$status" -eq 1 ]
	run tdat-verify -q "$T/damaged/notrace.dat" "$T/unreadable/missing.dat"
	[ "$status" -eq 2 ]
}

@test "batch: a file without read permission is unreadable (2) for every tool" {
	local f=$T/noperm.dat t run_as=
	cp "$D/s390x-v7-zstd-sched.dat" "$f"
	chmod 000 "$f"
	if [ "$(id -u)" -eq 0 ]; then
		# root reads anything: run the tools as nobody.
		command -v setpriv >/dev/null || skip "root, and no setpriv"
		run_as="setpriv --reuid=65534 --regid=65534 --clear-groups"
		chmod 755 "$T"
	fi
	for t in "tdat-verify -q" "tdat-cat" "tdat-dump" "tdat-dump --records" \
	    "tdat-to-json" "tdat-to-json --meta"; do
		run $run_as $B/$t "$f"
		[ "$status" -eq 2 ] ||
		    { echo "$t: exit $status, not 2: $output"; return 1; }
		[[ $output == *"$f: Permission denied" ]] || { echo "$output"; return 1; }
	done
}

@test "batch: tdat-verify --json gives one summary per file, unreadable ones too" {
	need_jq
	archive
	run -2 tdat-verify --json "$T/unreadable/missing.dat" \
	    "$T/damaged/notrace.dat" "$D/s390x-v7-zstd-sched.dat"
	echo "$output"
	# stderr still has the message of the unreadable file.
	echo "$output" | grep -q "^tdat-verify: $T/unreadable/missing.dat: No such file or directory$"
	[ "$(echo "$output" | grep '^{' | summaries)" = "$(printf '%s\t%s\n' \
	    "$D/s390x-v7-zstd-sched.dat" ok "$T/damaged/notrace.dat" damaged \
	    "$T/unreadable/missing.dat" unreadable | sort)" ]
	# -q stays quiet on stdout.
	run -2 --separate-stderr tdat-verify -q --json "$T/unreadable/missing.dat"
	[ -z "$output" ]
}

# expect_verify OUT: the summaries in OUT are those of the archive.
expect_verify() {
	local want
	want=$( (cd "$T" && find archive damaged unreadable -name '*.dat') |
	    while IFS= read -r f; do
		case $f in
		archive/*) echo "$f	ok" ;;
		damaged/*) echo "$f	damaged" ;;
		*) echo "$f	unreadable" ;;
		esac
	    done | sort)
	diff <(summaries <"$1") <(echo "$want")
}

@test "batch: verify a tree with GNU parallel, one JSON Lines summary" {
	need_parallel
	need_jq
	archive
	cd "$T"
	# The recipe: many files per tdat-verify (-X), two at a time.
	run --separate-stderr sh -c "find archive damaged unreadable \
	    -name '*.dat' -print0 | parallel --will-cite -0 -X -j2 \
	    tdat-verify --json >report.jsonl"
	echo "$stderr"
	# parallel's status is the number of failed jobs.
	[ "$status" -ge 1 ] && [ "$status" -le 2 ]
	expect_verify report.jsonl
	# The triage lines of the recipe.
	[ "$(jq -r 'select(.summary == "damaged") | .file' report.jsonl |
	    sort | tr '\n' ' ')" = "damaged/empty.dat damaged/half.dat damaged/header.dat damaged/notrace.dat damaged/tail.dat " ]
	jq -r 'select(.summary == "unreadable") | "\(.file): \(.message)"' \
	    report.jsonl | grep -qx 'unreadable/missing.dat: No such file or directory'
	[ "$(jq -c -s '[.[] | select(.summary)] | group_by(.summary) |
	    map({(.[0].summary): length}) | add' report.jsonl)" = \
	    '{"damaged":5,"ok":4,"unreadable":'$(ls unreadable | wc -l)'}' ]
	# One file per job: the joblog's exit values tell the two apart.
	run sh -c "find archive damaged unreadable -name '*.dat' |
	    parallel --will-cite -j2 --joblog jobs.log tdat-verify -q {}"
	awk -F'\t' 'NR > 1 { print $7, $9 }' jobs.log | sort >st
	cat st
	grep -qx '0 tdat-verify -q archive/old/qemu.dat' st
	grep -qx '1 tdat-verify -q damaged/half.dat' st
	grep -qx '1 tdat-verify -q damaged/notrace.dat' st
	grep -qx '2 tdat-verify -q unreadable/missing.dat' st
	grep -qx '2 tdat-verify -q unreadable/folder.dat' st
}

@test "batch: verify a tree with xargs -P, one JSON Lines summary" {
	need_jq
	archive
	cd "$T"
	run -123 --separate-stderr sh -c "find archive damaged unreadable \
	    -name '*.dat' -print0 | xargs -0 -r -P2 -n3 \
	    tdat-verify --json >report.jsonl"
	expect_verify report.jsonl
	# A clean tree: xargs and tdat-verify both exit 0.
	run -0 sh -c "find archive -name '*.dat' -print0 |
	    xargs -0 -r -P2 -n3 tdat-verify -q"
}

# check_v7 IN OUT: OUT is a clean v7 zstd trace with IN's events.
check_v7() {
	run -0 tdat-verify --json "$2"
	echo "$output" | jq -e 'select(.summary) | .summary == "ok" and
	    .version == 7 and .compression == "zstd"' >/dev/null ||
	    { echo "$2: $output"; return 1; }
	# trace-cmd 3.1.6 itself, given the same file, very rarely prints
	# other lines (seen once in some hundred runs, on a v7 zstd file):
	# a difference must hold in three runs.
	local i
	for i in 1 2 3; do
		/usr/bin/trace-cmd report -t "$1" >"$T/r.in" 2>&1
		/usr/bin/trace-cmd report -t "$2" >"$T/r.out" 2>&1
		if diff "$T/r.in" "$T/r.out" >"$T/r.diff"; then
			[ "$(wc -l <"$T/r.out")" -gt 10 ]
			return
		fi
		echo "$2: trace-cmd report differs from $1 (run $i)"
		head -n 6 "$T/r.diff"
	done
	return 1
}

# check_tree SRC DST: DST has exactly SRC's *.dat names, each converted.
check_tree() {
	local f
	diff <(cd "$1" && find . -name '*.dat' | sort) \
	    <(cd "$2" && find . -type f | sort)
	while IFS= read -r f; do
		check_v7 "$1/$f" "$2/$f" || return 1
	done < <(cd "$1" && find . -name '*.dat')
}

@test "batch: convert a tree to v7 zstd with GNU parallel, keeping names" {
	need_parallel
	need_jq
	[ -x /usr/bin/trace-cmd ] || skip "trace-cmd is not installed"
	archive
	cd "$T/archive"
	run -0 sh -c "find . -name '*.dat' | parallel --will-cite -j2 \
	    'mkdir -p ../v7/{//} && tdat-cat --file-version 7 --compression zstd -o ../v7/{} {}'"
	echo "$output"
	check_tree "$T/archive" "$T/v7"
	# A damaged input: its job fails with 1 and leaves no output.
	run -1 sh -c "cd '$T' && ls damaged/notrace.dat | parallel --will-cite \
	    'tdat-cat --file-version 7 --compression zstd -o v7/{/} {}'"
	[ ! -e "$T/v7/notrace.dat" ]
	[ -z "$(find "$T/v7" -name '.*')" ]
}

@test "batch: convert a tree to v7 zstd with xargs -P, keeping names" {
	need_jq
	[ -x /usr/bin/trace-cmd ] || skip "trace-cmd is not installed"
	archive
	cd "$T/archive"
	run -0 sh -c 'find . -name "*.dat" -print0 | xargs -0 -r -P2 -I{} sh -c \
	    '\''mkdir -p "../v7/${1%/*}" && tdat-cat --file-version 7 --compression zstd -o "../v7/$1" "$1"'\'' sh {}'
	echo "$output"
	check_tree "$T/archive" "$T/v7"
}

@test "batch: GNU parallel --sshlogin ':' (the local machine) converts and verifies" {
	need_parallel
	need_jq
	archive
	cd "$T/archive"
	run -0 sh -c "find . -name '*.dat' | parallel --will-cite -S 2/: \
	    'mkdir -p ../v7/{//} && tdat-cat --file-version 7 --compression zstd -o ../v7/{} {}'"
	check_tree "$T/archive" "$T/v7"
	run sh -c "cd '$T' && find archive damaged -name '*.dat' |
	    parallel --will-cite -S : -X tdat-verify --json >s.jsonl"
	[ "$status" -ge 1 ] && [ "$status" -le 2 ]
	[ "$(jq -r 'select(.summary == "ok") | .file' "$T/s.jsonl" | wc -l)" -eq 4 ]
	[ "$(jq -r 'select(.summary == "damaged") | .file' "$T/s.jsonl" | wc -l)" -eq 5 ]
}

# A stand-in for ssh: "fakessh [OPTION...] HOST [--] COMMAND..." runs the
# command line in $FAKE_REMOTE/HOST, as ssh runs it in HOST's home, so
# each "machine" has its own files and parallel must move them with rsync.
# ssh's login sets SHELL, which parallel's remote wrapper runs the job
# with; CI runs with no SHELL in the environment, so set it here too.
fakessh() {
	cat >"$T/fakessh" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do case $1 in -*) shift ;; *) break ;; esac; done
h=$1
shift
[ "${1-}" = -- ] && shift
mkdir -p "$FAKE_REMOTE/$h" && cd "$FAKE_REMOTE/$h" && HOME=$PWD SHELL=/bin/sh exec /bin/sh -c "$*"
EOF
	chmod +x "$T/fakessh"
	FAKE_REMOTE=$T/remote
	export FAKE_REMOTE
}

@test "batch: GNU parallel -S with --transferfile, --return and --cleanup" {
	need_parallel
	need_jq
	command -v rsync >/dev/null || skip "rsync is not installed (parallel moves files with it)"
	archive
	fakessh
	cd "$T/archive"
	# The recipe of tdat-batch(7), with --ssh naming the stand-in.
	# RSYNC_OLD_ARGS=1: rsync 3.2.4 and later would otherwise take
	# parallel's quoting of "board 2/sched v7.v7.dat" literally and
	# not bring it back (parallel still exiting 0).
	RSYNC_OLD_ARGS=1
	export RSYNC_OLD_ARGS
	run -0 --separate-stderr sh -c "find . -name '*.dat' |
	    parallel --will-cite --ssh '$T/fakessh' -S 1/hostA,1/hostB --wd 'tdat.{#}' \
	    --transferfile {} --return {.}.v7.dat --cleanup \
	    'tdat-cat --file-version 7 --compression zstd -o {.}.v7.dat {} &&
	    echo \$PARALLEL_SSHLOGIN \$PWD/{}'"
	echo "$output"
	echo "$stderr"
	# Both "machines" worked, each in its own folder, on its own copy.
	echo "$output" | grep -q "^hostA $T/remote/hostA/"
	echo "$output" | grep -q "^hostB $T/remote/hostB/"
	[ "$(echo "$output" | wc -l)" -eq 4 ]
	# --return brought every result back beside its input...
	for f in 2026/board1/boot "2026/board 2/sched v7" old/qemu old/listen; do
		[ -f "$f.v7.dat" ] || { echo "no $f.v7.dat"; return 1; }
		check_v7 "$f.dat" "$f.v7.dat"
	done
	# ...and --cleanup removed the copies and results on the "remote".
	[ -z "$(find "$T/remote" -type f)" ]
	# Verifying on the "machines": the JSON lines come back, the files
	# are cleaned up.
	run --separate-stderr sh -c "cd '$T' && find archive damaged -name '*.dat' ! -name '*.v7.dat' |
	    parallel --will-cite --ssh '$T/fakessh' -S 2/hostA,2/hostB --wd 'tdat.{#}' \
	    --transferfile {} --cleanup tdat-verify --json {} >remote.jsonl"
	echo "$stderr"
	echo "status $status"; cat "$T/remote.jsonl"; [ "$status" -eq 5 ]
	[ "$(jq -r 'select(.summary) | .summary' "$T/remote.jsonl" | sort |
	    uniq -c | tr -s ' \n' '  ')" = " 5 damaged 4 ok " ]
	[ -z "$(find "$T/remote" -type f)" ]
	# A damaged trace fails remotely with 1, and nothing comes back.
	cd "$T/damaged"
	run sh -c "ls notrace.dat | parallel --will-cite --ssh '$T/fakessh' \
	    -S hostA --transferfile {} --return {.}.v7.dat --cleanup \
	    'tdat-cat -o {.}.v7.dat {}'"
	[ "$status" -eq 1 ]
	[ ! -e notrace.v7.dat ]
}

# peak KIB COMMAND...: the peak resident set of COMMAND in KiB.
peak() {
	/usr/bin/time -f '%M' -o "$T/peak" "$@" >/dev/null 2>&1
	tail -n 1 "$T/peak"
}

@test "batch: tdat-verify's memory does not grow with the number of files" {
	[ -x /usr/bin/time ] || skip "GNU time is not installed"
	# AddressSanitizer keeps freed memory in quarantine: peaks there say
	# nothing about what tdat holds (make check-asan sets ASAN_OPTIONS).
	[ -z "${ASAN_OPTIONS:-}" ] || skip "a sanitizer build"
	local i one many f
	mkdir "$T/many"
	# 200 names: symlinks to the fixtures, the biggest one last.
	for i in $(seq 1 25); do
		for f in "$D"/*.dat; do
			ln -s "$f" "$T/many/$i-${f##*/}"
		done
	done
	[ "$(ls "$T/many" | wc -l)" -eq 200 ]
	for f in "$D"/*.dat; do
		i=$(peak tdat-verify -q "$f")
		[ "${one:-0}" -ge "$i" ] || one=$i
	done
	many=$(peak tdat-verify -q "$T"/many/*)
	echo "largest single file: $one KiB, 200 files: $many KiB"
	[ "$many" -le $((one + 8192)) ]
	# 200 times the same file, against that file once.
	f=$D/x86_64-default-sched.dat
	one=$(peak tdat-verify -q "$f")
	many=$(peak tdat-verify -q $(for i in $(seq 1 200); do echo "$f"; done))
	echo "$f: once $one KiB, 200 times $many KiB"
	[ "$many" -le $((one + 8192)) ]
}

@test "batch: README's Archives recipes run as written" {
	need_parallel
	need_jq
	archive
	cp -r "$T/damaged/." "$T/archive/"
	ln -s "$T/nowhere.dat" "$T/archive/missing.dat"
	# The sh block of the section, continuation lines joined; the
	# several-machines recipe needs hosts (tested above with a stand-in).
	sed -n '/^## Archives$/,/^## /p' "$BATS_TEST_DIRNAME/../README.md" |
	    sed -n '/^```sh$/,/^```$/p' | grep -v '^```' | grep -v '^#' | grep . |
	    sed -e ':a' -e '/\\$/N; s/\\\n//; ta' | grep -v -- ' -S ' >"$T/recipes"
	cat "$T/recipes"
	[ "$(wc -l <"$T/recipes")" -eq 4 ]
	cd "$T"
	run sh -e -c "$(sed -n 1p recipes)"
	[ "$status" -ge 1 ]	# the number of failed jobs
	run sh -e -c "$(sed -n 2p recipes)"
	[ "$status" -eq 123 ]
	run -0 sh -e -c "$(sed -n 3p recipes)"
	[ "$(echo "$output" | sort | tr '\n' ' ')" = "damaged archive/empty.dat damaged archive/half.dat damaged archive/header.dat damaged archive/notrace.dat damaged archive/tail.dat unreadable archive/missing.dat " ]
	run sh -c "$(sed -n 4p recipes)"
	[ "$status" -eq 6 ]	# one job failed per damaged or missing file
	[ "$(cd v7 && find . -type f | sort | tr '\n' ' ')" = "./2026/board 2/sched v7.dat ./2026/board1/boot.dat ./old/listen.dat ./old/qemu.dat " ]
}
