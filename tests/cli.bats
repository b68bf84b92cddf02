#!/usr/bin/env bats
# cli.bats - what every mct tool shares (mct(7), EXIT STATUS and the rest):
# --help, --version, a misused option, write errors, a closed pipe, the
# locale, the man page.  Each test loops over every tool that was built.

load helpers

setup_file() {
	light_trace
	# A big generated trace (the seed's full scale) and its stream.
	# (and their metric logs, for mct-metrics)
	gen --metrics "$BATS_FILE_TMPDIR/big.csv" > "$BATS_FILE_TMPDIR/big.json"
	mct-cat "$BATS_FILE_TMPDIR/big.json" > "$BATS_FILE_TMPDIR/big.nd"
	# A small trace in µs, so that times have fractions.
	gen --scale 0.02 --unit us --metrics "$BATS_FILE_TMPDIR/small.csv" \
	    > "$BATS_FILE_TMPDIR/small.json"
	mct-cat "$BATS_FILE_TMPDIR/small.json" > "$BATS_FILE_TMPDIR/small.nd"
	# mct-mem reads the allocator's events: Kineto-shaped traces of them
	"$PYTHON3" "$MCT_SRCDIR/tests/genmem.py" --plain 3 \
	    > "$BATS_FILE_TMPDIR/small-mem.json"
	"$PYTHON3" "$MCT_SRCDIR/tests/genmem.py" --plain 300 \
	    > "$BATS_FILE_TMPDIR/big-mem.json"
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	run tools
	[ "${#lines[@]}" -gt 0 ] || fail_no_tools
	TOOLS=("${lines[@]}")
}

fail_no_tools() {
	echo "no tool found in $MCT_BUILDDIR/tools"
	return 1
}

# mct-diff compares two runs: it is given its input twice (against itself).
twice() {
	if [ "$1" = mct-diff ]; then echo "$2 $2"; else echo "$2"; fi
}

# What a tool reads in these tests: mct-cat a trace, mct-metrics a metric
# log, mct-mem a trace with memory events, the others a stream.
input_for() {
	if [ "$1" = mct-cat ]; then
		echo "$BATS_FILE_TMPDIR/$2.json"
	elif [ "$1" = mct-metrics ]; then
		echo "$BATS_FILE_TMPDIR/$2.csv"
	elif [ "$1" = mct-mem ]; then
		echo "$BATS_FILE_TMPDIR/$2-mem.json"
	else
		echo "$BATS_FILE_TMPDIR/$2.nd"
	fi
}

@test "every tool: --help prints the usage on stdout and exits 0" {
	docs
	for t in "${TOOLS[@]}"; do
		echo "tool: $t"
		run --separate-stderr "$t" --help
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		[[ "${lines[0]}" == "usage: $t "* ]]
		[ "${#lines[@]}" -gt 3 ]
	done
}

@test "every tool: -h is --help" {
	docs
	for t in "${TOOLS[@]}"; do
		echo "tool: $t"
		run --separate-stderr "$t" -h
		[ "$status" -eq 0 ]
		same "$output" "$("$t" --help)"
	done
}

@test "every tool: --version and -V print 'NAME (mct) VERSION', VERSION from configure.ac" {
	docs
	version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$MCT_BUILDDIR/config.h")
	[ -n "$version" ]
	for t in "${TOOLS[@]}"; do
		echo "tool: $t"
		for o in --version -V; do
			run --separate-stderr "$t" "$o"
			[ "$status" -eq 0 ]
			[ -z "$stderr" ]
			same "$output" "$t (mct) $version"
		done
	done
}

@test "every tool: an unknown option exits 2 with one 'Try NAME --help' line on stderr, nothing on stdout" {
	for t in "${TOOLS[@]}"; do
		for o in --no-such-option -@; do
			echo "tool: $t $o"
			run --separate-stderr "$t" "$o" /dev/null
			[ "$status" -eq 2 ]
			[ -z "$output" ]
			n=$(grep -cFx "Try '$t --help' for more information." <<<"$stderr")
			[ "$n" -eq 1 ]
		done
	done
}

@test "every tool: --help and --version to a full disk fail with a message" {
	for t in "${TOOLS[@]}"; do
		for o in --help --version; do
			echo "tool: $t $o"
			run --separate-stderr bash -c '"$0" "$1" >/dev/full' "$t" "$o"
			[ "$status" -ne 0 ]
			[[ "$stderr" == *"$t: "*"No space left on device"* ]]
		done
	done
}

@test "every tool: output to a full disk exits 2 with 'NAME: write error: No space left on device'" {
	for t in "${TOOLS[@]}"; do
		echo "tool: $t"
		in=$(input_for "$t" small)
		# shellcheck disable=SC2046
		run --separate-stderr bash -c '"$0" "$@" >/dev/full' "$t" $(twice "$t" "$in")
		[ "$status" -eq 2 ]
		same "$stderr" "$t: write error: No space left on device"
	done
}

@test "every tool: '| head -1' on the full-scale trace ends quietly and at once" {
	for t in "${TOOLS[@]}"; do
		echo "tool: $t"
		in=$(input_for "$t" big)
		# shellcheck disable=SC2046
		run bash -c 'timeout 20 "$0" "$@" 2>err | head -1 >/dev/null
			echo "${PIPESTATUS[0]}"' "$t" $(twice "$t" "$in")
		echo "status: $output"
		# 0 if all output fitted into the pipe, 141 after SIGPIPE;
		# 124 would be timeout's: the tool went on after the reader left
		[[ "$output" == 0 || "$output" == 141 ]]
		same "$(cat err)" ""
	done
}

@test "every tool: output is the same under LC_ALL=C and LC_ALL=de_DE.UTF-8" {
	# If de_DE.UTF-8 is not installed the variable is still set: a tool
	# that called setlocale would see it then, on a machine that has it.
	in_nd="$BATS_FILE_TMPDIR/small.nd"
	for t in "${TOOLS[@]}"; do
		for args in "" "-o tsv" "-o csv" "-o table"; do
			echo "tool: $t $args"
			# shellcheck disable=SC2086,SC2046
			c=$(LC_ALL=C "$t" $args $(twice "$t" "$in_nd") 2>&1; echo "status $?")
			# shellcheck disable=SC2086,SC2046
			de=$(LC_ALL=de_DE.UTF-8 LANG=de_DE.UTF-8 "$t" $args $(twice "$t" "$in_nd") 2>&1
			    echo "status $?")
			same "$de" "$c"
		done
	done
	t=mct-cat
	c=$(LC_ALL=C $t -o tsv --time-unit ms -F ts,dur,rel,end "$BATS_FILE_TMPDIR/small.json")
	de=$(LC_ALL=de_DE.UTF-8 $t -o tsv --time-unit ms -F ts,dur,rel,end "$BATS_FILE_TMPDIR/small.json")
	same "$de" "$c"
	[[ "$c" == *.* ]]
}

@test "every tool: every long option in --help is in its man page man/NAME.1" {
	docs
	bad=0
	for t in "${TOOLS[@]}"; do
		page="$MCT_SRCDIR/man/$t.1"
		if [ ! -f "$page" ]; then
			echo "$t: no man page $page"
			bad=1
			continue
		fi
		opts=$("$t" --help | grep -oE -- '--[a-z0-9][a-z0-9-]*' | sort -u)
		[ -n "$opts" ] || { echo "$t: no long option in --help"; bad=1; }
		for o in $opts; do
			# mdoc writes --fields as "Fl \-fields" (or "Fl -fields")
			grep -qE -- "Fl \\\\?-${o#--}([^a-z0-9-]|\$)" "$page" ||
			    { echo "$t: $o is not in $page"; bad=1; }
		done
	done
	[ "$bad" -eq 0 ]
}

@test "every tool: the man page names the tool and lints clean with mandoc -Tlint" {
	docs
	command -v mandoc >/dev/null || skip "mandoc not installed"
	bad=0
	for t in "${TOOLS[@]}"; do
		page="$MCT_SRCDIR/man/$t.1"
		if [ ! -f "$page" ]; then
			echo "$t: no man page $page"
			bad=1
			continue
		fi
		grep -qx ".Nm $t" "$page" || { echo "$t: no '.Nm $t' in $page"; bad=1; }
		mandoc -Tlint -W warning "$page" || bad=1
	done
	[ "$bad" -eq 0 ]
}
