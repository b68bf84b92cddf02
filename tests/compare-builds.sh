#!/bin/sh
# compare-builds.sh - run every tool over the same inputs with two builds
# and compare stdout, stderr and exit status byte for byte.
#
# usage: tests/compare-builds.sh [-j N] OLD_BUILDDIR NEW_BUILDDIR [WORKDIR]
#
# For a change that must not change behaviour (a refactor): build the
# commit before it in one tree and the change in another, then run this.
# (Against a sanitizer build of the same source, with ASAN_OPTIONS=
# detect_leaks=0, it runs every tool under the sanitizers: a report is a
# difference, on stderr and in the exit status.)
# The inputs are the real traces of ../shared/fixtures (when present), the
# damaged corpus of tests/corpus, and seed-shaped traces made by gentrace
# in every form, and tests/genmem.py's [memory] events; or, when
# COMPARE_INPUTS is set, only the traces it names (a test's few).  Each
# command runs with the tools of OLD first on PATH, then of NEW; a
# difference is printed as a diff and counted.  -j N: N commands at a time
# (default 1), each of its own part of the list (every Nth command); each
# part's differences are printed together, the first part's first.  Exit 0
# when every command gave the same bytes and status, 1 otherwise, 2 for a
# usage error.
set -u
jobs=1
if [ "${1:-}" = -j ]; then
	jobs=${2:-}
	shift 2 2>/dev/null || jobs=
fi
case $jobs in ''|*[!0-9]*|0) jobs= ;; esac
if [ -z "$jobs" ] || [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: tests/compare-builds.sh [-j N] OLD_BUILDDIR NEW_BUILDDIR [WORKDIR]" >&2
	exit 2
fi
old=$(cd "$1" && pwd) && new=$(cd "$2" && pwd) || exit 2
src=$(cd "$(dirname "$0")/.." && pwd)
work=${3:-$(mktemp -d "${TMPDIR:-/tmp}/compare.XXXXXX")}
mkdir -p "$work/in" || exit 2
work=$(cd "$work" && pwd)
export LC_ALL=C
fixtures=${MCT_FIXTURES:-$src/../shared/fixtures}

# The generated inputs, made once with OLD's generator.
g="$old/tests/gentrace"
[ -n "${COMPARE_INPUTS:-}" ] || [ -f "$work/in/seed.json" ] || {
	"$g" --scale 0.05 > "$work/in/seed.json"
	"$g" --scale 0.05 --indent | gzip -n > "$work/in/seed-indent.json.gz"
	"$g" --scale 0.05 --form ndjson > "$work/in/seed.ndjson"
	"$g" --scale 0.05 --layout shuffle > "$work/in/seed-shuffle.json"
	"$g" --scale 0.02 --ranks 3 --slow-rank 1 --slow-factor 1.1 \
	    --out "$work/in" > /dev/null
	"$g" --scale 0.05 --slow-kernel kernel_kernel \
	    --slow-factor-kernel 1.10 > "$work/in/seed-slow.json"
	"$g" --scale 0.05 --metrics "$work/in/gpu.csv" \
	    --metrics-period 10000000 > /dev/null
	# the allocator's [memory] events (mct-mem)
	"${PYTHON3:-python3}" "$src/tests/genmem.py" > "$work/in/mem.json"
}
traces=$(ls "$work"/in/*.json "$work"/in/*.json.gz "$work"/in/*.ndjson \
    2>/dev/null)
[ -d "$fixtures" ] && traces="$traces $(ls "$fixtures"/*.json \
    "$fixtures"/*.json.gz)"
corpus=$(ls "$src"/tests/corpus/*.json "$src"/tests/corpus/*.nd)
ranks=$(ls "$work"/in/rank*.json* 2>/dev/null | head -3 | tr "\n" " ")
if [ -n "${COMPARE_INPUTS:-}" ]; then
	traces=$COMPARE_INPUTS corpus='' ranks=''
fi

# with BUILD TAG CMD: CMD (sh -c, in WORKDIR) with BUILD's tools first on
# PATH, its stdout and stderr in $o/TAG.out and .err; its exit status.
with() {
	PATH="$1/tools:$src/tools:$PATH" sh -c "cd \"\$0\" && $3" "$work" \
	    > "$o/$2.out" 2> "$o/$2.err"
}

# run CMD...: CMD under both builds, compared; the commands of this part
# only (the Nth of every -j N).  A build's own path, as a tool names
# itself, is read as BUILD (a build in the source tree must not hide the
# names of the inputs).  (Few processes a command: a pass of the list is
# some 5,000 runs.)
run() {
	n=$((n + 1))
	[ $((n % jobs)) -eq "$part" ] || return 0
	with "$old" old "$*"
	rold=$?
	with "$new" new "$*"
	rnew=$?
	errs=0
	if [ -s "$o/old.err" ] || [ -s "$o/new.err" ]; then
		sed "s|$old/tools/|BUILD/tools/|g" "$o/old.err" > "$o/old.err2"
		sed "s|$new/tools/|BUILD/tools/|g" "$o/new.err" > "$o/new.err2"
		cmp -s "$o/old.err2" "$o/new.err2" || errs=1
	else
		: > "$o/old.err2"
		: > "$o/new.err2"
	fi
	if [ "$rold" != "$rnew" ] || [ "$errs" = 1 ] ||
	    ! cmp -s "$o/old.out" "$o/new.out"; then
		bad=$((bad + 1))
		echo "DIFFERS: $*"
		diff "$o/old.out" "$o/new.out" | head -5
		diff "$o/old.err2" "$o/new.err2" | head -5
		[ "$rold" = "$rnew" ] || echo "exit status $rold, now $rnew"
	fi
}

# every command of the list, in order (run keeps this part's)
commands() {
	for t in $traces $corpus; do
		run "mct-cat '$t'"
		# the reader's other ways: through the spool, in parts by threads
		run "MCT_SPOOL=1 mct-cat '$t'"
		run "MCT_SPLIT=64 mct-cat '$t'"
		run "mct-cat -o tsv --time-unit us '$t'"
		run "mct-cat -o table -F ts,dur,name,args.grid '$t'"
		run "mct-cat --pair-be -o trace '$t'"
		run "mct-cat '$t' | mct-cat -w"
		run "mct-filter --device '$t'"
		run "mct-filter -c --where 'dur > 1000 || name ~ \"^mc\"' '$t'"
		run "mct-filter --from 1ms --to 50ms --clip '$t'"
		run "mct-group -o tsv '$t'"
		run "mct-group -o tsv --by category,name -a count,total,p90,first,last '$t'"
		run "mct-group -o partial --by name,tid '$t' | mct-group --merge -o tsv"
		run "mct-cat '$t' | mct-group --by rank,pid -o md"
		run "mct-flow --orphans '$t'"
		run "mct-flow --stack -o tsv -F launch.name,name,op,annotation,module,stack '$t'"
		run "mct-flow -o folded '$t'"
		run "mct-phases --gaps -o tsv '$t'"
		run "mct-phases -o trace '$t'"
		run "mct-ranks -o tsv '$t'"
		run "mct-ranks -o partial '$t'"
		run "mct-diff -o tsv '$t' '$t'"
		run "mct-diff -o tsv --by op --device '$t' '$t'"
		run "mct-diff -o md --device '$t' '$t'"
		run "mct-mem -o tsv -F device,ts,peak,reserved,rel,step,op,module,allocs,bytes,frees,freed '$t'"
		run "mct-mem -o md '$t'; mct-mem --by op -o table '$t'; mct-mem --by module -o md '$t'"
		run "mct-mem --counters -o csv '$t'"
		run "mct-metrics --join x '$t' 2>&1 | head -3"
		run "mct-path -o tsv '$t'"
		run "mct-cat '$t' | mct-path --steps all -o tsv"
	done
	for t in $traces; do
		run "mct-report '$t'"
	done
	if [ -n "$ranks" ]; then
		run "mct-cat --merge $ranks"
		run "mct-cat --align start $ranks | mct-ranks -o tsv"
		run "mct-cat $ranks | mct-ranks --collectives -o tsv"
		run "mct-cat --merge --pair-be $ranks | mct-group --by rank,name -o tsv"
		run "mct-flow --stack $ranks | mct-group --by rank,op -o tsv"
		run "for f in $ranks; do mct-ranks -o partial \$f; done | mct-ranks --merge -o tsv"
		run "mct-report $(echo "$ranks" | head -1)"
	fi
	# the generated inputs' own commands
	[ -z "${COMPARE_INPUTS:-}" ] || return 0
	run "mct-metrics -o tsv in/gpu.csv"
	run "mct-metrics --join utilization.gpu in/seed.json in/gpu.csv | mct-group --value metrics.utilization.gpu.mean -o tsv"
	run "mct-report --against in/seed-slow.json in/seed.json"
	run "mct-report --metrics in/gpu.csv in/seed.json"
}

# -j N: part k of N (k = 0 .. N-1) in the background, each with its own
# files in WORKDIR/jK; the parts' reports then in order, and the sums.
k=0
while [ "$k" -lt "$jobs" ]; do
	mkdir -p "$work/j$k"
	(
		part=$k o=$work/j$k n=0 bad=0
		commands > "$o/report"
		echo "$n $bad" > "$o/count"
	) &
	k=$((k + 1))
done
wait
n=0 bad=0 k=0
while [ "$k" -lt "$jobs" ]; do
	cat "$work/j$k/report"
	if ! read -r kn kbad < "$work/j$k/count"; then
		echo "compare-builds: part $k of $jobs did not finish" >&2
		kn=$n kbad=1
	fi
	n=$kn bad=$((bad + kbad))
	k=$((k + 1))
done
echo "compare-builds: $n commands, $bad differ"
[ "$bad" -eq 0 ]
