# helpers.bash - loaded by every .bats file of mct.
#
# make check sets MCT_SRCDIR, MCT_BUILDDIR, PYTHON3 and PATH (builddir/tools
# and builddir/tests first); run by hand, the defaults below assume an
# in-tree build.  Temporary files go only under $BATS_TEST_TMPDIR (or
# $BATS_FILE_TMPDIR for what setup_file makes once per file).

bats_require_minimum_version 1.5.0

: "${MCT_SRCDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
: "${MCT_BUILDDIR:=$MCT_SRCDIR}"
: "${PYTHON3:=python3}"
export MCT_SRCDIR MCT_BUILDDIR PYTHON3
export LC_ALL=C
# A test reads no input but its own: what a pipe gives it, not the stdin
# make or a shell gave bats.
exec < /dev/null
PATH="$MCT_BUILDDIR/tools:$MCT_BUILDDIR/tests:$PATH"

# Real traces written by other tools sit beside the checkout, in
# ../shared/fixtures (a CI clone has a copy of shared/ beside it).
fixtures="${MCT_FIXTURES:-$MCT_SRCDIR/../shared/fixtures}"

# The longest tests (full-scale seed layouts, oracle loops over every
# fixture) repeat code paths that shorter tests also run.  A second pass
# of the suite (CI's sanitizer build) may leave them out with
# MCT_TEST_SLOW=0; they are then reported as skipped, never silently gone.
slow() {
	[ "${MCT_TEST_SLOW:-1}" != 0 ] ||
	    skip "a long test, left out of this pass (MCT_TEST_SLOW=0)"
}

# Tests of documents and of the source (man pages, help texts, the README
# tour, the house rules) run no C path that the tools' own tests do not: a
# second pass of the suite (CI's sanitizer build) leaves them out with
# MCT_TEST_DOCS=0, and they are reported as skipped.
docs() {
	[ "${MCT_TEST_DOCS:-1}" != 0 ] ||
	    skip "a test of documents or sources, run in the plain pass (MCT_TEST_DOCS=0)"
}

# bats runs its DEBUG trap before every command of a test, setup and
# setup_file, to name the failing line should one fail: a function call per
# command, about a tenth of a test file's CPU time (measured side by side).
# light_trace, the first command of every setup and setup_file, hands that
# work to the ERR trap: bats' own functions (bats_debug_trap,
# bats_error_trap, as Debian's bats 1.8 has them; house.bats checks the
# lines they name) name the line when a command fails, not before each
# command.  A test that ends with a bare "return N" (no
# command failed) is still reported as failed, at the line of its setup.
# Without those functions, or with MCT_TEST_TRACE=1, bats traces as it does.
light_trace() {
	[ "${MCT_TEST_TRACE:-0}" = 0 ] &&
	    declare -F bats_debug_trap bats_error_trap > /dev/null || return 0
	trap - DEBUG
	trap 'light_status=$?
	    [ -n "${BATS_TEST_COMPLETED:-}" ] ||
		BATS_ERROR_STATUS=${BATS_ERROR_STATUS:-$light_status}
	    bats_debug_trap "$BASH_SOURCE"
	    BATS_DEBUG_LAST_STACK_TRACE_IS_VALID=1
	    bats_error_trap' ERR
}

need_fixtures() {
	[ -d "$fixtures" ] || skip "../shared/fixtures not present"
}

# The seed-shaped trace generator (tests/gentrace.c).
gen() {
	"$MCT_BUILDDIR/tests/gentrace" "$@"
}

# One directory for the whole run (every .bats file, and in CI both passes,
# plain and sanitizer build): generated traces, made once, and the answers
# of the python oracles, asked once per input.  make check sets it in the
# build tree; a run by hand uses one under $TMPDIR.
: "${MCT_TEST_CACHE:=${TMPDIR:-/tmp}/mct-test-cache}"
# (bats reads this file again for every test: a process only the first time)
[ -d "$MCT_TEST_CACHE/oracle" ] && [ -d "$MCT_TEST_CACHE/gen" ] ||
    mkdir -p "$MCT_TEST_CACHE/gen" "$MCT_TEST_CACHE/oracle"
export MCT_TEST_CACHE

# genf FILE [ARG...]: FILE is what gentrace writes for ARGs, generated once
# per run (the generator's source and the ARGs name it) and copied.
genf() {
	local out=$1 key c

	shift
	key=$({ cat "$MCT_SRCDIR/tests/gentrace.c"; printf '%s\n' "$@"; } |
	    sha1sum | cut -c1-40)
	c="$MCT_TEST_CACHE/gen/$key"
	if [ ! -s "$c" ]; then
		gen "$@" > "$c.$$" && mv -f "$c.$$" "$c" || {
			rm -f "$c.$$"
			return 1
		}
	fi
	cp "$c" "$out"
}

# The state of the files an oracle could read or write: those named by its
# arguments (a directory: every file below it) and the files of the current
# directory (not when a test file sets oracle_reads_cwd=0: its oracles read
# only the files they are given); one line each, the content's digest and the name.  Paths under
# this run's temporary directory (as in mct's headers) count from it.
oracle_inputs() {
	local e f files=() named=() others=() run=${BATS_RUN_TMPDIR:-/nonexistent}
	local -A is_named=()

	oracle_ls "$@"
	for e in "${oracle_ls[@]}"; do
		case $e in
		d:*) mapfile -d '' -O "${#files[@]}" files < <(find "${e#d:}" -type f -print0 | sort -z) ;;
		f:*) files+=("${e#f:}") ;;
		s:*) printf 'special %s\n' "${e#s:}" ;;
		n:*) printf 'none %s\n' "${e#n:}" ;;
		esac
	done 2>/dev/null
	[ "${#files[@]}" -gt 0 ] || return 0
	mapfile -t named < <(grep -lF -- "$run" "${files[@]}" 2>/dev/null)
	for f in "${named[@]}"; do
		printf '%s  %s\n' "$(sed "s|$run|@RUN@|g" "$f" | sha1sum)" "$f"
		is_named[$f]=1
	done
	for f in "${files[@]}"; do
		[ -n "${is_named[$f]:-}" ] || others+=("$f")
	done
	[ "${#others[@]}" -eq 0 ] || sha1sum -- "${others[@]}" 2>/dev/null
	return 0
}

# oracle_ls ARG...: the names oracle_inputs looks at, by the shell alone,
# in the array $oracle_ls: the current directory's files (unless
# oracle_reads_cwd=0), then each ARG, as f:NAME (a file), d:NAME (a
# directory: its files need find), s:NAME (neither) or n:NAME (no such
# name); false when an ARG is a directory.
oracle_ls() {
	local a dirs=0

	oracle_ls=()
	if [ "${oracle_reads_cwd:-1}" = 1 ]; then
		for a in ./*; do
			[ -f "$a" ] && oracle_ls+=("f:$a")
		done
	fi
	for a in "$@"; do
		if [ -d "$a" ]; then
			oracle_ls+=("d:$a")
			dirs=1
		elif [ -f "$a" ]; then
			oracle_ls+=("f:$a")
		elif [ -e "$a" ]; then
			oracle_ls+=("s:$a")
		else
			oracle_ls+=("n:$a")
		fi
	done
	[ "$dirs" = 0 ]
}

# oracle_untouched STAMP WAS ARG...: oracle_ls finds the names of WAS (its
# list, made before STAMP, one a line) again, and no file of them is as
# new as STAMP (file times go by the kernel's clock tick: a file written
# in STAMP's tick counts as touched).  Then oracle_inputs would print what
# it printed before STAMP, and the digests need not be worked out again.
# (A call that set a file's time back, os.utime or shutil.copy2 over an
# input, would not be seen: no oracle does.)
oracle_untouched() {
	local stamp=$1 was=$2 now e

	shift 2
	oracle_ls "$@" || return 1
	printf -v now '%s\n' "${oracle_ls[@]}"
	[ "$now" = "$was" ] || return 1
	for e in "${oracle_ls[@]}"; do
		[[ $e != f:* ]] || [[ ${e#f:} -ot $stamp ]] || return 1
	done
}

# The digest of the oracles' sources, in $oracle_src: worked out once per
# run of a test file, then read by the shell itself (the cache is asked
# about a thousand times a pass of the suite, and each process costs).
oracle_sources() {
	local f=${BATS_RUN_TMPDIR:-}/oracle-sources

	if [ -n "${BATS_RUN_TMPDIR:-}" ] && [ -s "$f" ]; then
		IFS= read -r oracle_src < "$f"
		return
	fi
	oracle_src=$(cat "$MCT_SRCDIR"/tests/*.py "$MCT_SRCDIR"/tests/corpus/*.py \
	    "$MCT_SRCDIR/data/default.rules" | sha1sum)
	if [ -n "${BATS_RUN_TMPDIR:-}" ]; then
		printf '%s\n' "$oracle_src" > "$f.$$" && mv -f "$f.$$" "$f"
	fi
}

# oracle SCRIPT [ARG...]: python3 tests/SCRIPT ARGs, once per question and
# input.  The answer (stdout, stderr, status) is kept under a digest of the
# oracles' sources, the ARGs, the bytes of every file they name, of the
# current directory's files and of stdin, and given again for the same
# question of the same bytes: the tests of a second build (CI's sanitizer
# pass) ask python only of output that differs.  Paths under this run's
# temporary directory count from it, in the question and in the answer.
# A call that wrote files, each below a directory among its ARGs (say,
# stack_oracle.py save DIR ...), is kept with them, and writes them again
# when asked again; a call that wrote any other file, or removed one, is
# not kept.
oracle() {
	local script=$1 key c q before after in= rc keep was run=${BATS_RUN_TMPDIR:-/nonexistent}

	# stdin is read by the oracle when it is a pipe or a file (the tests'
	# own stdin is /dev/null, above), and then is part of the question
	if [ -p /dev/stdin ] || [ -f /dev/stdin ]; then
		in=$(mktemp "$MCT_TEST_CACHE/stdin.XXXXXX")
		cat > "$in"
	fi
	before=$(oracle_inputs "${@:2}")
	oracle_sources
	# (the question, this run's directory in it written @RUN@, made by the
	# shell itself: \1 between the arguments, which hold none)
	printf -v q '%s\1' "$PWD" "$@"
	q="$oracle_src"$'\n'"$q"$'\n'"$before"
	q=${q//"$run"/@RUN@}
	if [ -z "$in" ]; then
		key=$(sha1sum <<< "$q")
	else
		key=$({ printf '%s\n' "$q"; cat "$in"; } | sha1sum)
	fi
	c="$MCT_TEST_CACHE/oracle/${key%% *}"
	if [ -d "$c" ]; then
		oracle_put_files "$c" "$run"
		sed "s|@RUN@|$run|g" "$c/out"
		[ ! -s "$c/err" ] || sed "s|@RUN@|$run|g" "$c/err" >&2
		[ -z "$in" ] || rm -f "$in"
		IFS= read -r rc < "$c/rc"
		return "$rc"
	fi
	mkdir -p "$c.$$"
	# (the names looked at, then a file as old as they may be: what the
	# call touches is newer)
	was=
	if oracle_ls "${@:2}"; then
		printf -v was '%s\n' "${oracle_ls[@]}"
		: > "$c.$$/stamp"
	fi
	"$PYTHON3" "$MCT_SRCDIR/tests/$script" "${@:2}" < "${in:-/dev/null}" \
	    > "$c.$$/out" 2> "$c.$$/err" && rc=0 || rc=$?
	[ -z "$in" ] || rm -f "$in"
	echo "$rc" > "$c.$$/rc"
	# (the files are looked at again before the answer is written: it may
	# go to one of them; their digests again only if one was touched)
	if [ -n "$was" ] && oracle_untouched "$c.$$/stamp" "$was" "${@:2}"; then
		after=$before
	else
		after=$(oracle_inputs "${@:2}")
	fi
	keep=0
	if [ "$after" = "$before" ] ||
	    oracle_got_files "$c.$$" "$run" "$before" "$after" "${@:2}"; then
		keep=1
	fi
	cat "$c.$$/out"
	[ ! -s "$c.$$/err" ] || cat "$c.$$/err" >&2
	if [ "$keep" = 1 ]; then
		sed -i "s|$run|@RUN@|g" "$c.$$/out" "$c.$$/err"
		mv -T "$c.$$" "$c" 2>/dev/null || rm -rf "$c.$$"
	else
		rm -rf "$c.$$"
	fi
	return "$rc"
}

# oracle_got_files DIR RUN BEFORE AFTER ARG...: the files an oracle call
# wrote (AFTER's lines that BEFORE lacks, lines of oracle_inputs), copied
# into DIR/files and listed in DIR/files.list, when every one of them is
# below a directory among the ARGs and no file is gone; else false.
oracle_got_files() {
	local c=$1 run=$2 before=$3 after=$4 l n d i=0 ok
	local -A now=()

	shift 4
	while IFS= read -r l; do
		[[ $l =~ ^[0-9a-f]{40}\ \ (-\ \ )?(.*)$ ]] || continue
		now[${BASH_REMATCH[2]}]=1
	done <<<"$after"
	while IFS= read -r l; do	# a file gone, or a name no longer a file
		[ -n "$l" ] || continue
		[[ $l =~ ^[0-9a-f]{40}\ \ (-\ \ )?(.*)$ ]] || continue
		[ -n "${now[${BASH_REMATCH[2]}]:-}" ] || return 1
	done <<<"$before"
	mkdir -p "$c/files"
	: > "$c/files.list"
	while IFS= read -r l; do
		[[ $l =~ ^[0-9a-f]{40}\ \ (-\ \ )?(.*)$ ]] || return 1
		n=${BASH_REMATCH[2]} ok=
		for d in "$@"; do
			[ -d "$d" ] && [[ $n == "${d%/}"/* ]] && ok=1
		done
		[ -n "$ok" ] || return 1
		sed "s|$run|@RUN@|g" "$n" > "$c/files/$i" || return 1
		printf '%s\t%s\n' "$i" "$n" | sed "s|$run|@RUN@|g" >> "$c/files.list"
		i=$((i + 1))
	done < <(comm -13 <(printf '%s\n' "$before" | sort) \
	    <(printf '%s\n' "$after" | sort))
}

# oracle_put_files DIR RUN: the files a kept oracle call wrote, written
# again (oracle_got_files).
oracle_put_files() {
	local c=$1 run=$2 i n

	[ -f "$c/files.list" ] || return 0
	while IFS=$'\t' read -r i n; do
		n=${n//@RUN@/$run}
		mkdir -p "$(dirname "$n")"
		sed "s|@RUN@|$run|g" "$c/files/$i" > "$n"
	done < "$c/files.list"
}

# The independent python3 json oracle.
py() {
	oracle oracle.py "$@"
}

# Every tool that has been built.
tools() {
	local t

	for t in "$MCT_BUILDDIR"/tools/mct-*; do
		[ -f "$t" ] && [ -x "$t" ] && printf '%s\n' "${t##*/}"
	done
}

# Fail, showing the difference, unless "$1" (what we got) equals "$2" (what
# we want).
same() {
	[ "$1" = "$2" ] && return 0
	diff -u --label want --label got <(printf '%s\n' "$2") \
	    <(printf '%s\n' "$1") | cat -A | head -40
	return 1
}

# same_output [-H] A B CMD...: what CMD writes of file A (stdout and
# stderr) is what it writes of file B, each file's name read as T; -H: the
# stream's header line left out (it holds a trace's top-level keys as
# written).  For two spellings of one trace.
same_output() {
	local drop= a b

	if [ "$1" = -H ]; then
		drop='/^{"name":"mct_header"/d'
		shift
	fi
	a=$1 b=$2
	shift 2
	same "$("$@" "$a" 2>&1 | sed "s/$(basename "$a" | sed 's/\./\\./g')/T/g; $drop")" \
	    "$("$@" "$b" 2>&1 | sed "s/$(basename "$b" | sed 's/\./\\./g')/T/g; $drop")"
}

# step_want PY N: step_oracle.py's answer PY for step N of an mct stream:
# {"count": C, "md5": M}.
step_want() {
	printf '%s\n' "$1" | grep -o "\"$2\": {\"count\": [0-9]*, \"md5\": \"[0-9a-f]*\"}" |
	    sed 's/^"[0-9]*": //'
}

# step_got ARG...: mct-filter ARG...'s events (--step N and a stream), as
# step_want says them.
step_got() {
	local out

	out=$(mct-filter "$@" -o tsv --no-header -F ts,dur,pid,tid)
	printf '{"count": %d, "md5": "%s"}\n' \
	    "$(printf '%s' "$out" | grep -c '')" \
	    "$(printf '%s' "$out" | { cat; [ -z "$out" ] || echo; } | md5sum | cut -c1-32)"
}

# The cells of a human table (columns two or more spaces apart, as -o table
# writes them), tab-separated.
cells() {
	sed 's/   */\t/g; s/\t$//' "$@"
}

# humanize COLS < TSV: the tsv with its columns COLS (1-based, comma-
# separated) of ns written for people as mct(7) says a table writes a
# length of time (0.18 us, 2.59 ms, 27.94 s), by python3's formatting.
humanize() {
	"$PYTHON3" -c '
import sys
cols = {int(c) - 1 for c in sys.argv[1].split(",")}
def human(ns):
    a = abs(ns)
    return ("%.2f us" % (ns / 1e3) if a < 1e6 else
            "%.2f ms" % (ns / 1e6) if a < 1e9 else "%.2f s" % (ns / 1e9))
for line in sys.stdin:
    c = line.rstrip("\n").split("\t")
    print("\t".join(human(int(x)) if i in cols else x for i, x in enumerate(c)))' "$1"
}

# batch_answer FILE N: the N-th answer of an oracle's batch (tests/batch.py;
# FILE its output), and its exit status.
batch_answer() {
	awk -v n="$2" '/^@@ / { on = $2 == n; if (on) rc = $3; next }
	    on { print } END { exit rc }' "$1"
}

# The files setup_file made of each Kineto fixture, as kx/N (mct-flow.bats,
# mct-phases.bats).
kineto_fixtures() {
	local b

	for b in "$BATS_FILE_TMPDIR"/kx/*.name; do
		[ -f "$b" ] && echo "${b%.name}"
	done
}

# cycle_trace > FILE: a step whose kernel 'early' ends before its launch
# starts, a sync between: the critical path's graph has a cycle (times
# out of order; mct-path exits 1).
cycle_trace() {
	cat <<'J'
[{"name":"ProfilerStep#1","ph":"X","cat":"user_annotation","pid":1,"tid":1,"ts":0,"dur":30},
{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":0,"dur":1,"args":{"correlation":1}},
{"name":"cudaDeviceSynchronize","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":2,"dur":3,"args":{"correlation":3}},
{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":10,"dur":1,"args":{"correlation":2}},
{"name":"early","ph":"X","cat":"kernel","pid":0,"tid":7,"ts":1,"dur":1,"args":{"correlation":2}},
{"name":"k","ph":"X","cat":"kernel","pid":0,"tid":7,"ts":20,"dur":1,"args":{"correlation":1}}]
J
}

# bare_step > FILE: tests/genmem.py's trace (three ProfilerStep#N on its
# main thread) with an X event named a bare "ProfilerStep#" (no digit after
# the #: no step, mct(7)) around all of it on that thread.
bare_step() {
	"$PYTHON3" "$MCT_SRCDIR/tests/genmem.py" | "$PYTHON3" -c '
import json, sys
d = json.load(sys.stdin)
d["traceEvents"].append({"ph": "X", "cat": "user_annotation",
    "name": "ProfilerStep#", "pid": 3100, "tid": 3100, "ts": 999000.0,
    "dur": 5000.0, "args": {}})
json.dump(d, sys.stdout)'
}
