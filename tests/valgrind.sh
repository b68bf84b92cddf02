#!/bin/sh
# valgrind.sh - run a sample of the test suite's commands under valgrind
# (memcheck) and fail on any error it reports: a read of uninitialised
# memory, an invalid read or write, a bad free.  Leaks at exit are not
# errors for the tools (--leak-check=no); the fuzzers look for leaks in
# lib/.  Not part of make check (it takes minutes): `make check-valgrind`.
#
# usage: tests/valgrind.sh
#
# environment (make check-valgrind sets the first two):
#   MCT_BUILDDIR    the build directory: tools/ and tests/gentrace (default .)
#   MCT_SRCDIR      the source directory (default: this script's ..)
#   MCT_FIXTURES    real traces (default $MCT_SRCDIR/../shared/fixtures);
#                   mct-cat reads each, the other tools the small ones
#   VALGRIND        the valgrind command (default valgrind)
#   VALGRIND_ALL    1: every tool on every fixture and every corpus case
#   TMPDIR          where the work directory goes (default /tmp)
#
# The sample: a small generated trace in every form (Object, Array,
# NDJSON, indented, µs, gzip) through every tool and its main options and
# output formats, the pipelines of the README, the real traces, and the
# damaged inputs of tests/corpus (made by tests/corpus/make.sh).
#
# Each command's exit status must be 0, 1 or 2 (what it says of its input
# is the tests' business); valgrind's errors exit 99, and a signal 128 or
# more: those fail.  Exit status 0 when every command was clean, 1 after
# the list of those that were not (their valgrind logs are kept).
set -u

srcdir=${MCT_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${MCT_BUILDDIR:-.}
builddir=$(cd "$builddir" && pwd) || exit 2
fixtures=${MCT_FIXTURES:-$srcdir/../shared/fixtures}
vg=${VALGRIND:-valgrind}
all=${VALGRIND_ALL:-0}
export LC_ALL=C

command -v "${vg%% *}" >/dev/null 2>&1 || {
	echo "valgrind.sh: $vg not found (apt-get install valgrind)" >&2
	exit 2
}
for t in mct-cat mct-filter mct-group mct-flow mct-phases; do
	[ -x "$builddir/tools/$t" ] || {
		echo "valgrind.sh: $builddir/tools/$t: not built (make)" >&2
		exit 2
	}
done
[ -x "$builddir/tests/gentrace" ] || {
	echo "valgrind.sh: $builddir/tests/gentrace: not built (make)" >&2
	exit 2
}

work=$(mktemp -d "${TMPDIR:-/tmp}/mct-valgrind.XXXXXX") || exit 2
cleanup() {
	if [ "$bad" -eq 0 ]; then
		rm -rf "$work"
	else
		echo "valgrind.sh: logs kept in $work/logs"
	fi
}
bad=0 n=0
trap cleanup EXIT
trap 'exit 2' HUP INT TERM
mkdir -p "$work/logs" "$work/data"
PATH=$builddir/tools:$srcdir/tools:$PATH
export PATH MCT_RULES="${MCT_RULES:-$srcdir/data/default.rules}"

# vg PROG ARGS... [< input]: PROG under valgrind, output thrown away.
vg() {
	prog=$1
	shift
	n=$((n + 1))
	log=$work/logs/$n.log
	# shellcheck disable=SC2086
	$vg -q --error-exitcode=99 --leak-check=no --track-origins=yes \
	    --log-file="$log" "$builddir/tools/$prog" "$@" \
	    >/dev/null 2>"$work/logs/$n.err"
	st=$?
	if [ "$st" -gt 2 ]; then
		bad=$((bad + 1))
		echo "FAIL ($st): $prog $*"
		sed 's/^/    /' "$log" | head -40
		echo "$prog $*" >"$work/logs/$n.cmd"
	else
		rm -f "$log" "$work/logs/$n.err"
	fi
}

# vgp PROG ARGS...: the same, reading the stream of $s on standard input.
vgp() {
	vg "$@" <"$s"
}

# --- generated traces -------------------------------------------------------
d=$work/data
# gen FILE OPTIONS...: a small seed-shaped trace
gen() {
	f=$1
	shift
	"$builddir/tests/gentrace" --scale 0.005 "$@" >"$d/$f" || {
		echo "valgrind.sh: gentrace $*: failed" >&2
		exit 2
	}
}
gen t.json
gen a.json --unit us --keys-around
gen arr.json --form array
gen n.ndjson --form ndjson --layout shuffle
gen i.json --indent --string-ts --grid-string
gen cut.json --no-close --trailing-comma --form array
gzip -n -c "$d/t.json" >"$d/t.json.gz"
"$builddir/tools/mct-cat" "$d/t.json" >"$d/s.nd"
s=$d/s.nd
echo "valgrind.sh: generated traces ($(wc -l <"$s") events), every tool"

for f in t.json a.json arr.json n.ndjson i.json cut.json t.json.gz; do
	vg mct-cat "$d/$f"
done
vg mct-cat -o tsv -F ts,dur,rel,end,args.grid,'args."a b"',category "$d/a.json"
vg mct-cat -o csv --time-unit us "$d/i.json"
vg mct-cat -o table --time-unit ms "$d/t.json"
vg mct-cat -o md "$d/a.json"
vg mct-cat --wrap "$d/a.json"
vgp mct-cat --wrap
vgp mct-cat -u us -
vg mct-cat "$d/t.json" "$d/a.json" "$d/n.ndjson"
# a plain file checked in parts by threads, and one through the spool
export MCT_SPLIT=4096
vg mct-cat "$d/i.json"
vg mct-cat "$d/n.ndjson" "$d/cut.json"
unset MCT_SPLIT
export MCT_SPOOL=1
vg mct-cat "$d/a.json"
unset MCT_SPOOL

vgp mct-filter --pid 2 --name 'kernel_kernel*'
vgp mct-filter --from 14s --to 21s --clip
vgp mct-filter --from 1s --to 30s --within -o tsv -F rel,dur,name
vgp mct-filter --where 'args.grid==[2056,32,1] && dur>=1ms' --where 'name~^mc'
vgp mct-filter --match 'kernel_[a-z]+' -i -v -c
vgp mct-filter --category 'TileLang custom kernels' --category memcpy/copy
vgp mct-filter --ph X --min-dur 1us --max-dur 1s --no-meta -o csv
vg mct-filter --cat kernel --tid 1 "$d/a.json"

vgp mct-group
vgp mct-group --by category -a count,total,share,mean,median,min,max,stddev,p90,p99,first,last
vgp mct-group --by name,args.grid -a count,sum:args.bytes,max:args.bytes,mean:args.bytes -n 3 --total -o tsv
vgp mct-group -k pid,tid -s count -r -o table --time-unit ms
vgp mct-group --meta --missing -k ph -a count -o md
vg mct-group --value dur -o csv "$d/i.json"

vgp mct-flow
vgp mct-flow --orphans -o tsv -F launch.name,name,latency,queue
vgp mct-flow --key args.co_id -o table
vg mct-flow --orphans "$d/n.ndjson"
vgp mct-flow -q -o ndjson
mct-flow -q <"$s" >"$d/flow.nd" 2>/dev/null
vg mct-group --by launch.name --value latency -a count,median,p90,max <"$d/flow.nd"

vgp mct-phases
vgp mct-phases --gaps -o tsv
vgp mct-phases --only-gaps --gap 1ms -o ndjson
vgp mct-phases -o trace
vgp mct-phases --device 'name~^kernel_kernel' -k name,args.grid --min-rounds 2
vg mct-phases --gaps "$d/a.json"

# --- real traces ---------------------------------------------------------------
if [ -d "$fixtures" ]; then
	echo "valgrind.sh: real traces in $fixtures"
	for f in "$fixtures"/*.json "$fixtures"/*.gz; do
		[ -f "$f" ] || continue
		vg mct-cat "$f"
		if [ "$all" = 1 ] || [ "$(wc -c <"$f")" -le 200000 ]; then
			vg mct-filter -c --ph X "$f"
			vg mct-group -k name -a count,total,median "$f"
			vg mct-flow --orphans "$f"
			vg mct-phases --gaps "$f"
		fi
	done
else
	echo "valgrind.sh: no real traces in $fixtures (skipped)"
fi

# --- damaged inputs ---------------------------------------------------------------
echo "valgrind.sh: damaged inputs of tests/corpus"
sh "$srcdir/tests/corpus/make.sh" "$work/corpus" || exit 2
for f in "$work/corpus"/[0-9][0-9]-*; do
	size=$(if [ -f "$f" ]; then wc -c <"$f"; else echo 0; fi)
	if [ "$all" = 1 ] || [ "$size" -le 200000 ]; then
		vg mct-cat "$f"
		vg mct-filter -c "$f"
	fi
	case ${f##*/} in
	2[2-9]-*|4[0-5]-*|6[1-9]-*|7[3-6]-*|8[1-6]-*|34-*|52-*)
		vg mct-group -o tsv "$f"
		vg mct-flow --orphans -q "$f"
		vg mct-phases --gaps --device ph "$f"
		;;
	esac
done

echo "valgrind.sh: $n commands, $bad with errors"
[ "$bad" -eq 0 ] || exit 1
exit 0
