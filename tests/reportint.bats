#!/usr/bin/env bats
# mct-report interrupted: HUP, INT or TERM to the report's pid ends every
# process it started (the tools its jobs run too, which are not its
# children), removes its temporary directory, and ends the report by
# that signal (a shell's 128 + N).  tests/sigrun.py runs it in a session
# of its own and looks at what is left of that session's process group.
# A tool that takes its time is a script of `exec sleep 30` beside the
# report, in place of the tool: a report ends in a second on the small
# trace, the interrupt lands on the tool every time, and a sleep left
# behind is plain to see.

load helpers

setup_file() {
	light_trace
	genf "$BATS_FILE_TMPDIR/small.json" --scale 0.05
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	command -v sleep >/dev/null || skip "no sleep(1)"
}

# slow TOOL: a bin/ of the report and its tools, TOOL a sleep of 30 s
slow() {
	local f
	mkdir bin
	for f in "$MCT_BUILDDIR"/tools/mct-*; do
		[ -x "$f" ] && ln -s "$f" bin/
	done
	rm "bin/$1"
	printf '#!/bin/sh\nexec sleep 30\n' > "bin/$1"
	chmod +x "bin/$1"
}

# interrupt SIGNAL [SHELL]: the report of small.json with its slow tool,
# SIGNAL sent once the sleep runs; fails with sigrun.py's account of
# what was left
interrupt() {
	run "$PYTHON3" "$MCT_SRCDIR/tests/sigrun.py" "$1" "$PWD/tmp" sleep \
	    ${2:+"$2"} "$PWD/bin/mct-report" "$BATS_FILE_TMPDIR/small.json"
	[ "$status" -ne 77 ] || skip "$output"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "status $((128 + $(kill -l "$1")))" ]
}

@test "mct-report: TERM during a job's tool ends the tool, the tmp dir and the report" {
	slow mct-path
	interrupt TERM
}

@test "mct-report: INT during a job's tool ends the tool, the tmp dir and the report" {
	slow mct-path
	interrupt INT
}

@test "mct-report: HUP during a job's tool ends the tool, the tmp dir and the report" {
	slow mct-path
	interrupt HUP
}

@test "mct-report: TERM while the trace is read (the report's own tool) ends at once" {
	slow mct-cat
	interrupt TERM
}

@test "mct-report: under bash too, TERM ends a job's tool" {
	command -v bash >/dev/null || skip "no bash"
	slow mct-path
	interrupt TERM bash
}
