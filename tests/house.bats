#!/usr/bin/env bats
# house.bats - the shape of the code, as lib/mct.h promises it: lib has no
# circle in its call graph nor in its includes, no lib file is too long to
# read, nor a tool's, only tools end the process, every file includes one
# project header (the reader's, the json files' and a split tool's files
# their private one too), a tool's files share with each other only, each
# tool gets its events from mct_next() alone (the reader merges and pairs
# them), its options() holds only its own options (lib/cli.c takes the
# shared ones), lib/field.c names no tool (the tools register the keys of
# their records), what lib defines once (is-meta, an event's rank, a
# file's kind) is not defined again, every export is declared under the
# heading of its file in lib/mct.h, or in lib/mct_private.h (what lib's
# files give one another: no tool calls it), and the word an export
# begins with names one file; every test file's setup and setup_file
# start with light_trace, which finds a failing line only when one fails;
# tests/compare-builds.sh, a refactor's check, finds every kind of
# difference; and the oracles' cache gives an answer again only when the
# bytes asked about are the same.

load helpers

# The house is checked once, in the plain pass.
setup() {
	light_trace
	docs
}

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

@test "lib's includes have no circle" {
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" includes "$MCT_SRCDIR/lib"
	[ "$status" -eq 0 ]
	same "$output" ""
}

@test "the include cycle finder finds a circle where there is one" {
	cd "$BATS_TEST_TMPDIR"
	mkdir inc
	printf '#include "b.h"\n' > inc/a.h
	printf '#include "config.h"\n#include "a.h"\n' > inc/b.h
	printf '#include "a.h"\n' > inc/c.c
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" includes inc
	[ "$status" -eq 0 ]
	same "$output" "a.h -> b.h -> a.h"
}

@test "no lib .c file over 1,500 lines, and reader.c, the reader's face, under 1,200" {
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" sizes "$MCT_SRCDIR/lib"
	[ "$status" -eq 0 ]
	same "$output" ""
}

@test "no tools/*.c over 1,000 lines: a longer tool keeps its engine in files of its own" {
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" sizes "$MCT_SRCDIR/tools" \
	    1000
	[ "$status" -eq 0 ]
	same "$output" ""
}

@test "the size check names a file over its limit" {
	cd "$BATS_TEST_TMPDIR"
	mkdir big
	seq 1200 > big/reader.c
	seq 1500 > big/ok.c
	seq 1501 > big/long.c
	seq 3000 > big/long.h
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" sizes big
	[ "$status" -eq 0 ]
	same "$output" "long.c: 1501 lines (at most 1500)
reader.c: 1200 lines (at most 1199)"
	seq 1000 > big/reader.c
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" sizes big 1000
	[ "$status" -eq 0 ]
	same "$output" "long.c: 1501 lines (at most 1000)
ok.c: 1500 lines (at most 1000)"
}

@test "no lib file ends the process: they return a status and tools exit" {
	command -v nm >/dev/null || skip "no nm(1)"
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" exits "$(lib)"
	[ "$status" -eq 0 ]
	same "$output" ""
}

@test "every source file includes one project header, lib/mct.h (lib's files may take lib/mct_private.h in its place); the reader's, the json files and a split tool's files their own too" {
	local f bad= private
	for f in "$MCT_SRCDIR"/lib/*.c "$MCT_SRCDIR"/tools/*.c; do
		[ -f "$f" ] || continue
		case ${f#"$MCT_SRCDIR"/} in
		lib/reader.c|lib/read_*.c)	private='"read_private.h"' ;;
		lib/json.c|lib/json_*.c)	private='"json_private.h"' ;;
		lib/*)				private='"mct_private.h"' ;;
		tools/mct-*.c)			private=${f##*/}
						private="\"${private%.c}.h\"" ;;
		*)				private=${f##*/}
						private="\"mct-${private%%-*}.h\"" ;;
		esac
		if grep -n '^#include "' "$f" | grep -v -e '"mct.h"' \
		    -e '"config.h"' -e "$private"; then
			bad="$bad ${f##*/}"
		fi
	done
	same "$bad" ""
	same "$(cd "$MCT_SRCDIR"/lib && ls *.h)" "json_private.h
mct.h
mct_private.h
read_private.h"
}

@test "a tool's files share with each other only: no tool's object defines what another tool calls" {
	command -v nm >/dev/null || skip "no nm(1)"
	local objs
	objs=$(ls "$MCT_BUILDDIR"/tools/*.o)
	[ "$(echo "$objs" | wc -l)" -ge 8 ]
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" tools $objs
	[ "$status" -eq 0 ]
	same "$output" ""
}

@test "the sharing check names what a tool's file gives another tool, or no file of its own" {
	command -v nm >/dev/null || skip "no nm(1)"
	command -v cc >/dev/null || skip "no C compiler"
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' 'int x_find(void) { return 1; }' \
	    'int x_alone(void) { return 2; }' > x-find.c
	printf '%s\n' 'int x_find(void);' \
	    'int main(void) { return x_find(); }' > mct-x.c
	printf '%s\n' 'int x_find(void);' \
	    'int main(void) { return x_find(); }' > mct-y.c
	# mct-z.o calls tool z's own x_find: no use of x's (mct-y.o has none)
	printf '%s\n' 'int x_find(void) { return 3; }' > z-find.c
	cp mct-y.c mct-z.c
	cc -c x-find.c mct-x.c mct-y.c mct-z.c z-find.c
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" tools mct-x.o mct-y.o \
	    x-find.o mct-z.o z-find.o
	[ "$status" -eq 0 ]
	same "$output" "x-find.o: x_alone: no other file of its tool uses it
x-find.o: x_find: used by mct-y.o
z-find.o: x_find: used by mct-y.o"
}

@test "lib/field.c names no tool, nor a key of the tools' records: each tool registers those at start-up" {
	local f="$MCT_SRCDIR/lib/field.c" keys k bad=
	run grep -n -E 'mct-[a-z]' "$f"
	same "$output" ""
	# the keys of the tools' records, as lib/records.c has them
	keys=$(sed -n 's/.*\(TIME(\|\.name = \)\("[^"]*"\).*/\2/p' \
	    "$MCT_SRCDIR/lib/records.c")
	[ "$(echo "$keys" | wc -l)" -ge 30 ]
	for k in $keys; do
		grep -qF "$k" "$f" && bad="$bad $k"
	done
	same "$bad" ""
	# and every tool registers them before it parses a field
	for k in "$MCT_SRCDIR"/tools/mct-*.c; do
		awk '/^main\(/ { m = 1 } m && /mct_records_register\(\)/ { r = 1 }
		    m && /options\(/ { exit !r } END { exit !r }' "$k" ||
		    bad="$bad ${k##*/}"
	done
	same "$bad" ""
}

@test "no tool reads around mct_next(): merge.c, pairbe.c and an operand's events apart are the reader's" {
	command -v nm >/dev/null || skip "no nm(1)"
	local objs
	objs=$(ls "$MCT_BUILDDIR"/tools/*.o)
	[ "$(echo "$objs" | wc -l)" -ge 8 ]
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" inner $objs
	[ "$status" -eq 0 ]
	same "$output" ""
}

@test "the check names a tool that merges or pairs events itself" {
	command -v nm >/dev/null || skip "no nm(1)"
	command -v cc >/dev/null || skip "no C compiler"
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' 'int mct_merge_next(void *, void **);' \
	    'int mct_pairbe_next(void *, void **);' \
	    'int mct_next_in(void *, int, void **);' \
	    'int mct_next(void *, void **);' \
	    'int main(void) { void *e; return mct_merge_next(0, &e) +' \
	    '    mct_pairbe_next(0, &e) + mct_next_in(0, 0, &e) +' \
	    '    mct_next(0, &e); }' > mct-x.c
	cc -c mct-x.c
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" inner mct-x.o
	[ "$status" -eq 0 ]
	same "$output" "mct-x.o: mct_merge_next
mct-x.o: mct_next_in
mct-x.o: mct_pairbe_next"
}

@test "the tools' options() are their own options only: all the tools' under 450 lines together" {
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" options \
	    "$MCT_SRCDIR"/tools/mct-*.c
	[ "$status" -eq 0 ]
	echo "$output"
	# every tool has its options() (a renamed one would count nothing)
	[[ "$output" != *" none"* ]]
	[ "${#lines[@]}" -ge 11 ]
	[ "${lines[-1]%% *}" = total ]
	[ "${lines[-1]##* }" -lt 450 ]
}

# cites FILE...: the lines that cite a document the repository does not
# hold: the product's spec or the seed tutorial by section number, or an
# issue by number.  The rule itself belongs there, or mct(7), which holds
# the contract.  The pattern is built from pieces, so this file does not
# match it.
cites() {
	local doc=SPEC sec='§'
	grep -rnIiE --exclude='*.log' --exclude='*.trs' \
	    "$doc $sec|$doc section|issue [0-9]|seed $sec" "$@"
}

@test "no file cites the spec, an issue or the seed tutorial by number: each says the rule, or cites the man page" {
	cd "$MCT_SRCDIR"
	run cites lib tools tests bench examples man Makefile.am configure.ac
	same "$output" ""
	[ "$status" -eq 1 ]
}

@test "the citation check finds each kind of citation" {
	local doc=SPEC sec='§' iss=issue
	cd "$BATS_TEST_TMPDIR"
	mkdir d
	printf '%s\n' "/* the window ($doc ${sec}4) */" "# ($doc section 2)" \
	    "# ($iss 16)" "# Seed ${sec}12.5: gaps" "# seeds 4, mct(7)" > d/f.c
	run cites d
	same "$output" "d/f.c:1:/* the window ($doc ${sec}4) */
d/f.c:2:# ($doc section 2)
d/f.c:3:# ($iss 16)
d/f.c:4:# Seed ${sec}12.5: gaps"
}

@test "every concept once: lib and the tools test a metadata event, an event's rank and a file's kind only through lib's one function" {
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" once "$MCT_SRCDIR/lib" \
	    "$MCT_SRCDIR/tools"
	[ "$status" -eq 0 ]
	same "$output" ""
}

@test "the once check names a second definition where there is one" {
	cd "$BATS_TEST_TMPDIR"
	mkdir once
	# a tool's own is-meta, rank and sniffer, as the tools once had them
	cp "$MCT_SRCDIR/tools/mct-group.c" once/mct-x.c
	cat >> once/mct-x.c <<'C'
static int
is_meta(struct mct_event *ev)
{
	struct mct_val ph;

	return mct_get_key(ev, "ph", &ph) == 0 && mct_jstr_eq(&ph, "M", 1);
}

static int
rank_of(struct mct_event *ev, int64_t *rank)
{
	struct mct_val v;

	return mct_get_key(ev, "rank", &v) == 0 && mct_int(v.p, v.len, rank) == 0;
}

static int
partial_line(const char *p, size_t n)
{
	static const char tag[] = "{\"mct_partial\":";

	return n >= sizeof(tag) - 1 && memcmp(p, tag, sizeof(tag) - 1) == 0;
}
C
	# the one definitions, in their places, are no second ones
	cp "$MCT_SRCDIR/lib/field.c" "$MCT_SRCDIR/lib/input.c" once/
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" once once
	[ "$status" -eq 0 ]
	n=$(wc -l < "$MCT_SRCDIR/tools/mct-group.c")
	same "$output" "mct-x.c:$((n + 6)): is-meta (mct_is_meta): return mct_get_key(ev, \"ph\", &ph) == 0 && mct_jstr_eq(&ph, \"M\", 1);
mct-x.c:$((n + 14)): an event's rank (mct_event_rank): return mct_get_key(ev, \"rank\", &v) == 0 && mct_int(v.p, v.len, rank) == 0;
mct-x.c:$((n + 20)): file sniffing (mct_src_kind): static const char tag[] = \"{\\\"mct_partial\\\":\";"
}

@test "every function and variable lib exports has a user outside its file (else it is static)" {
	command -v nm >/dev/null || skip "no nm(1)"
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" lonely "$(lib)" \
	    "$MCT_BUILDDIR"/tools/*.o "$MCT_BUILDDIR"/tests/unit*.o
	[ "$status" -eq 0 ]
	same "$output" ""
}

@test "the export check names an export nobody else uses" {
	command -v nm >/dev/null || skip "no nm(1)"
	command -v cc >/dev/null || skip "no C compiler"
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' 'int mct_used(void) { return 1; }' \
	    'int mct_alone(void) { return 2; }' > a.c
	printf '%s\n' 'int mct_used(void);' \
	    'int main(void) { return mct_used(); }' > t.c
	cc -c a.c t.c
	ar rc lib.a a.o
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" lonely lib.a t.o
	[ "$status" -eq 0 ]
	same "$output" "a.o: mct_alone"
}

# house CMD ARG...: house.py's check CMD, which exits 0; its lines in
# $output.
house() {
	command -v nm >/dev/null || skip "no nm(1)"
	run "$PYTHON3" "$MCT_SRCDIR/tests/house.py" "$@"
	[ "$status" -eq 0 ]
}

# archive LIB FILE.c...: the C files compiled into the archive LIB.
archive() {
	local a=$1 f
	shift
	command -v cc >/dev/null || skip "no C compiler"
	cc -c "$@"
	for f; do
		ar rc "$a" "${f%.c}.o"
	done
}

@test "lib/mct.h and lib/mct_private.h declare every export of lib under the heading of its file" {
	house headers "$(lib)" "$MCT_SRCDIR/lib"
	same "$output" ""
}

@test "the headers check names an export under another file's heading, one not declared, and a heading of no file" {
	cd "$BATS_TEST_TMPDIR"
	mkdir h
	cd h
	printf '%s\n' 'int mct_a_one(void) { return 1; }' \
	    'int mct_a_two(void) { return 2; }' > a.c
	printf '%s\n' 'int mct_b_one(void) { return 3; }' \
	    'int b_own(void) { return 4; }' > b.c
	printf '%s\n' '/*' ' * a.c - the first file.' ' */' \
	    'int	 mct_a_one(void);' '/*' ' * b.c - the second file.' ' */' \
	    'int	 mct_a_two(void);' '/*' ' * c.c - no such file.' ' */' \
	    > mct.h
	printf '%s\n' '/*' ' * b.c - its own.' ' */' \
	    'static inline int' 'mct_b_inline(void)' '{' \
	    '	return mct_b_one();' '}' > mct_private.h
	: > read_private.h
	archive lib.a a.c b.c
	house headers lib.a .
	same "$output" "mct.h:10: c.c: no such file
a.o: mct_a_two: under b.c
b.o: b_own: not in read_private.h
b.o: mct_b_one: not in mct.h nor mct_private.h"
}

@test "a prefix names one file: the exports that begin with one word come from one file (the reader's files are one)" {
	house prefixes "$(lib)"
	same "$output" ""
}

@test "the prefix check names a word two files begin exports with" {
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' 'int mct_group_add(void) { return 1; }' \
	    'int mct_is_a(void) { return 1; }' > group.c
	printf '%s\n' 'int mct_group_text(void) { return 2; }' \
	    'int mct_is_b(void) { return 2; }' > cell.c
	printf '%s\n' 'int mct_header(void) { return 3; }' > reader.c
	printf '%s\n' 'int mct_header_x(void) { return 4; }' > read_x.c
	archive lib.a group.c cell.c reader.c read_x.c
	house prefixes lib.a
	same "$output" "mct_group_: cell.o group.o"
}

@test "no tool calls what lib/mct_private.h declares: lib's files' own" {
	local objs
	objs=$(ls "$MCT_BUILDDIR"/tools/mct-*.o)
	[ "$(echo "$objs" | wc -l)" -ge 8 ]
	house private "$MCT_SRCDIR/lib" $objs
	same "$output" ""
	# the check reads the header at all
	house private "$MCT_SRCDIR/lib" "$MCT_BUILDDIR/lib/output.o"
	[[ "$output" == *"output.o: mct_wrap_event"* ]]
}

@test "every setup and setup_file of a file that loads helpers begins with light_trace" {
	local f bad=
	for f in "$MCT_SRCDIR"/tests/*.bats; do
		grep -q '^load helpers$' "$f" || continue
		bad="$bad$(awk -v f="${f##*/}" '
		    /^setup(_file)?\(\) \{$/ { want = $1; next }
		    want != "" { if ($1 != "light_trace") print f ": " want; want = "" }' "$f")"
	done
	same "$bad" ""
}

@test "under light_trace a failing command still fails its test, named at its own line; commands whose failure is handled do not" {
	cd "$BATS_TEST_TMPDIR"
	# (T for @test: bats would read an @test here as one of this file)
	sed 's/^T /@test /' > t.bats <<-EOF2
	load "$MCT_SRCDIR/tests/helpers"
	setup() {
		light_trace
	}
	two() { [ "\$1" = 2 ]; }
	T "a function fails" {
		two 1
		echo not reached
	}
	T "a test fails" {
		run false
		[ "\$status" -eq 0 ]
	}
	T "failures handled" {
		two 1 || true
		if two 1; then false; fi
		x=\$(two 1; echo ok)
		[ "\$x" = ok ]
	}
	T "an exit status kept" {
		sh -c 'exit 3'
	}
	EOF2
	run bats --tap t.bats
	[ "$status" -eq 1 ]
	[[ "$output" == *"not ok 1 a function fails"*"(from function \`two' in file t.bats, line 5,"*"in test file t.bats, line 7)"*"\`two 1' failed"* ]]
	[[ "$output" != *"not reached"* ]]
	[[ "$output" == *"not ok 2 a test fails"*"(in test file t.bats, line 12)"* ]]
	[[ "$output" == *$'\nok 3 failures handled'* ]]
	[[ "$output" == *"not ok 4 an exit status kept"*"(in test file t.bats, line 21)"*"failed with status 3"* ]]
	# and bats' own tracing names the same lines
	run env MCT_TEST_TRACE=1 bats --tap t.bats
	[[ "$output" == *"in test file t.bats, line 7)"*"(in test file t.bats, line 12)"*"ok 3 failures handled"*"(in test file t.bats, line 21)"* ]]
}

# A build directory of links to the real build's tools, one of them a
# wrapper: compare-builds' NEW.
fake_build() {
	local d=$1 t
	mkdir -p "$d/tools" "$d/tests"
	for t in "$MCT_BUILDDIR"/tools/mct-*; do
		[ -f "$t" ] && [ -x "$t" ] && ln -s "$t" "$d/tools/${t##*/}"
	done
	ln -s "$MCT_BUILDDIR/tests/gentrace" "$d/tests/gentrace"
}

@test "tests/compare-builds.sh: a build against itself differs in nothing, with -j 2 as with one; a usage error is exit 2" {
	cd "$BATS_TEST_TMPDIR"
	genf t.json --scale 0.002
	run sh "$MCT_SRCDIR/tests/compare-builds.sh"
	[ "$status" -eq 2 ]
	[[ "$output" == "usage: tests/compare-builds.sh [-j N] OLD_BUILDDIR NEW_BUILDDIR [WORKDIR]" ]]
	for j in 0 x ''; do
		run sh "$MCT_SRCDIR/tests/compare-builds.sh" -j "$j" "$MCT_BUILDDIR" "$MCT_BUILDDIR"
		[ "$status" -eq 2 ]
	done
	COMPARE_INPUTS=$PWD/t.json run sh "$MCT_SRCDIR/tests/compare-builds.sh" \
	    "$MCT_BUILDDIR" "$MCT_BUILDDIR" w1
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^compare-builds:\ ([0-9]+)\ commands,\ 0\ differ$ ]]
	n=${BASH_REMATCH[1]}
	[ "$n" -ge 30 ]
	fake_build new
	COMPARE_INPUTS=$PWD/t.json run sh "$MCT_SRCDIR/tests/compare-builds.sh" \
	    -j 2 "$MCT_BUILDDIR" new w2
	[ "$status" -eq 0 ]
	same "$output" "compare-builds: $n commands, 0 differ"
}

@test "tests/compare-builds.sh: another byte, another message or another exit status is a difference, named, in either part of -j 2" {
	cd "$BATS_TEST_TMPDIR"
	genf t.json --scale 0.002
	fake_build new
	# mct-filter --device writes a line more; mct-ranks says something
	# more; mct-mem --counters exits 3 (its output the same)
	rm new/tools/mct-filter new/tools/mct-ranks new/tools/mct-mem
	printf '#!/bin/sh\n"%s" "$@"; s=$?\n[ "$1" != --device ] || echo extra\nexit $s\n' \
	    "$MCT_BUILDDIR/tools/mct-filter" > new/tools/mct-filter
	printf '#!/bin/sh\n"%s" "$@"; s=$?\necho "mct-ranks: more" >&2\nexit $s\n' \
	    "$MCT_BUILDDIR/tools/mct-ranks" > new/tools/mct-ranks
	printf '#!/bin/sh\n"%s" "$@" || exit\ncase " $* " in *" --counters "*) exit 3 ;; esac\n' \
	    "$MCT_BUILDDIR/tools/mct-mem" > new/tools/mct-mem
	chmod +x new/tools/mct-filter new/tools/mct-ranks new/tools/mct-mem
	for j in 1 2; do
		COMPARE_INPUTS=$PWD/t.json run sh "$MCT_SRCDIR/tests/compare-builds.sh" \
		    -j "$j" "$MCT_BUILDDIR" new "w$j"
		[ "$status" -eq 1 ]
		[[ "$output" == *"DIFFERS: mct-filter --device '$PWD/t.json'"$'\n'*"> extra"* ]]
		[[ "$output" == *"DIFFERS: mct-ranks -o tsv '$PWD/t.json'"$'\n'*"> mct-ranks: more"* ]]
		[[ "$output" == *"DIFFERS: mct-mem --counters -o csv '$PWD/t.json'"*"exit status 0, now 3"* ]]
		# the ranks' two commands, the mem's one, the filter's and the
		# report's (its sections use mct-filter --device)
		[[ "$output" =~ compare-builds:\ [0-9]+\ commands,\ ([0-9]+)\ differ$ ]]
		[ "${BASH_REMATCH[1]}" -ge 5 ]
		[ "$(grep -c '^DIFFERS: ' <<< "$output")" -eq "${BASH_REMATCH[1]}" ]
	done
}

# oracle (helpers.bash) with a python script of a test's own: FAKE_LOG
# gets a line each time python runs it.
fake_oracle() {
	(
		MCT_SRCDIR=$BATS_TEST_TMPDIR/src MCT_TEST_CACHE=$BATS_TEST_TMPDIR/cache \
		    BATS_RUN_TMPDIR=$BATS_TEST_TMPDIR/run
		oracle fake.py "$@" < /dev/null
	)
}

@test "the oracle cache (helpers.bash): an answer again without python; a call that wrote a file in a directory it was given writes it again; a call that touched its input runs again unless the bytes are the same" {
	cd "$BATS_TEST_TMPDIR"
	mkdir -p src/tests/corpus src/data cache/oracle cache/gen run w/out
	: > src/tests/corpus/none.py
	: > src/data/default.rules
	cat > src/tests/fake.py <<-'EOF2'
	import os, sys
	with open(os.environ["FAKE_LOG"], "a") as f:
	    f.write(" ".join(sys.argv[1:]) + "\n")
	op, arg = sys.argv[1], sys.argv[2]
	if op == "say":
	    print("said", arg)
	    sys.stderr.write("warned\n")
	    sys.exit(3)
	elif op == "cwd":
	    open("made", "w").write("x\n")
	elif op == "dir":
	    open(os.path.join(arg, "made"), "w").write("in dir\n")
	elif op == "same":
	    data = open(arg).read()
	    open(arg, "w").write(data)
	elif op == "change":
	    open(arg, "a").write("more\n")
	print("done", op)
	EOF2
	export FAKE_LOG=$PWD/log
	cd w
	echo input > in.txt
	: > "$FAKE_LOG"
	# an answer, its messages and status, kept and given again
	for i in 1 2; do
		run fake_oracle say hi
		[ "$status" -eq 3 ]
		same "$output" "$(printf 'said hi\nwarned')"
	done
	same "$(cat "$FAKE_LOG")" "say hi"
	# a file written in the current directory: not kept, asked again
	# (the second time the directory holds made: another question)
	fake_oracle cwd x > /dev/null
	rm made
	fake_oracle cwd x > /dev/null
	same "$(grep -c '^cwd' "$FAKE_LOG")" 2
	# a file written below a directory among the arguments: kept with it
	rmdir out; mkdir out
	same "$(fake_oracle dir out)" "done dir"
	rm out/made
	same "$(fake_oracle dir out)" "done dir"
	same "$(cat out/made)" "in dir"
	same "$(grep -c '^dir' "$FAKE_LOG")" 1
	# an input rewritten with the same bytes (touched): kept
	fake_oracle same in.txt > /dev/null
	fake_oracle same in.txt > /dev/null
	same "$(grep -c '^same' "$FAKE_LOG")" 1
	# an input changed: not kept (asked again of the same bytes, python
	# runs again, and changes it again)
	fake_oracle change in.txt > /dev/null
	echo input > in.txt
	fake_oracle change in.txt > /dev/null
	same "$(grep -c '^change' "$FAKE_LOG")" 2
	same "$(cat in.txt)" "$(printf 'input\nmore')"
	# an input changed between two calls: another question
	fake_oracle say hi > /dev/null 2>&1 || :
	same "$(grep -c '^say' "$FAKE_LOG")" 2
}
