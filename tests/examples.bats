#!/usr/bin/env bats
# The walkthrough in examples/ is executable documentation: every
# examples/NAME.sh, run on the bundled example trace, prints exactly
# examples/NAME.out.  A change of output shows here first.

bats_require_minimum_version 1.5.0

setup() {
	trace="$MCT_BUILDDIR/examples/seed-small.json.gz"
	[ -s "$trace" ] || skip "the example trace was not built (run make)"
}

run_example() {
	local name=$1
	TRACE="$trace" TMP="$BATS_TEST_TMPDIR" run --separate-stderr \
	    sh "$MCT_SRCDIR/examples/$name.sh"
	[ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
	diff -u "$MCT_SRCDIR/examples/$name.out" <(printf '%s\n' "$output")
}

@test "every example script has its expected output and is run below" {
	local f n
	for f in "$MCT_SRCDIR"/examples/[0-9]*.sh; do
		n=$(basename "$f" .sh)
		[ -f "$MCT_SRCDIR/examples/$n.out" ]
		grep -q "run_example $n;" "$BATS_TEST_FILENAME"
	done
}

@test "01 overview: events by ph and the span" { run_example 01-overview; }
@test "02 device time by category" { run_example 02-categories; }
@test "03 the two TileLang kernels" { run_example 03-kernels; }
@test "04 launch configurations" { run_example 04-launch-configs; }
@test "05 phases of the custom kernels" { run_example 05-phases; }
@test "06 what the host did in the gaps" { run_example 06-gaps; }
@test "07 host runtime API" { run_example 07-host-api; }
@test "08 copies with bytes" { run_example 08-copies; }
@test "09 host time beside device time" { run_example 09-host-vs-device; }
@test "10 launch latency per API" { run_example 10-latency; }
@test "11 a window sliced for the viewer" { run_example 11-window; }
@test "12 launches per second with awk" { run_example 12-launch-rate; }
@test "13 memory utilization and clock per kernel" { run_example 13-metrics; }
