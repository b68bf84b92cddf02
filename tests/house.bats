#!/usr/bin/env bats
# house.bats - the shape of the code, as lib/mct.h promises it: lib has no
# circle in its call graph, only tools end the process, every file includes
# one project header, each tool is one file of its own, and its options()
# holds only its own options (lib/cli.c takes the shared ones).

load helpers

lib() {
	printf '%s\n' "$MCT_BUILDDIR/lib/libmct.a"
}

@test "lib's call graph across files has no circle" {
	command -v nm >/dev/null || skip "no nm(1)"
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" graph "$(lib)"
	[ "$status" -eq 0 ]
	# the graph is read at all: field access uses the scanner
	[[ "$output" == *"field.o -> json.o"* ]]
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" cycles "$(lib)"
	[ "$status" -eq 0 ]
	same "$output" ""
}

@test "the cycle finder finds a circle where there is one" {
	command -v nm >/dev/null || skip "no nm(1)"
	command -v cc >/dev/null || skip "no C compiler"
	cd "$BATS_TEST_TMPDIR"
	printf 'int b(int);\nint a(int x) { return x ? b(x - 1) : 0; }\n' > a.c
	printf 'int a(int);\nint b(int x) { return x ? a(x - 1) : 1; }\n' > b.c
	cc -c a.c b.c
	ar rc ab.a a.o b.o
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" cycles ab.a
	[ "$status" -eq 0 ]
	same "$output" "a.o -> b.o -> a.o"
}

@test "no lib file ends the process: they return a status and tools exit" {
	command -v nm >/dev/null || skip "no nm(1)"
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" exits "$(lib)"
	[ "$status" -eq 0 ]
	same "$output" ""
}

@test "every source file includes one project header, lib/mct.h" {
	local f bad=
	for f in "$MCT_SRCDIR"/lib/*.c "$MCT_SRCDIR"/tools/*.c; do
		[ -f "$f" ] || continue
		if grep -n '^#include "' "$f" | grep -v -e '"mct.h"' -e '"config.h"'; then
			bad="$bad ${f##*/}"
		fi
	done
	same "$bad" ""
	[ "$(ls "$MCT_SRCDIR"/lib/*.h | wc -l)" -eq 1 ]
}

@test "a tool is one file: no tool's object defines what another tool calls" {
	command -v nm >/dev/null || skip "no nm(1)"
	local t syms
	for t in "$MCT_BUILDDIR"/tools/mct-*.o; do
		[ -f "$t" ] || continue
		# a tool's own functions are static, main aside
		syms=$(nm "$t" | awk '$2 ~ /^[TDB]$/ && $3 != "main" { print $3 }')
		same "$syms" "" || { echo "in ${t##*/}"; return 1; }
	done
}

@test "the tools' options() are their own options only: under 450 lines in all" {
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" options \
	    "$MCT_SRCDIR"/tools/mct-*.c
	[ "$status" -eq 0 ]
	echo "$output"
	# every tool has its options() (a renamed one would count nothing)
	[[ "$output" != *" none"* ]]
	[ "${#lines[@]}" -ge 9 ]
	[ "${lines[-1]#total }" -lt 450 ]
}
