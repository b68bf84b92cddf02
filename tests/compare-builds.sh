#!/bin/sh
# compare-builds.sh - run every tool over the same inputs with two builds
# and compare stdout, stderr and exit status byte for byte.
#
# usage: tests/compare-builds.sh OLD_BUILDDIR NEW_BUILDDIR [WORKDIR]
#
# For a change that must not change behaviour (a refactor): build the
# commit before it in one tree and the change in another, then run this.
# The inputs are the real traces of ../shared/fixtures (when present), the
# damaged corpus of tests/corpus, and seed-shaped traces made by gentrace
# in every form, and tests/genmem.py's [memory] events.  Each command runs
# with the tools of OLD first on PATH, then of NEW; a difference is
# printed as a diff and counted.  Exit 0 when every command gave the same
# bytes and status, 1 otherwise.
set -u
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
work=${3:-$(mktemp -d "${TMPDIR:-/tmp}/compare.XXXXXX")}
mkdir -p "$work/in"
export LC_ALL=C
fixtures=${MCT_FIXTURES:-$src/../shared/fixtures}

# The generated inputs, made once with OLD's generator.
g="$old/tests/gentrace"
[ -f "$work/in/seed.json" ] || {
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

n=0 bad=0
# run NAME CMD...: CMD under both builds, compared.
run() {
	n=$((n + 1))
	for b in old new; do
		eval "d=\$$b"
		(cd "$work" && PATH="$d/tools:$src/tools:$PATH" \
		    MCT_PKGDATADIR_OVERRIDE= sh -c "$*" \
		    > "$work/$b.out" 2> "$work/$b.err"; echo $? > "$work/$b.rc")
		# (a build's own path, as a tool names itself; a build in the
		# source tree must not hide the names of the inputs)
		sed "s|$d/tools/|BUILD/tools/|g" "$work/$b.err" > "$work/$b.err2"
	done
	if ! cmp -s "$work/old.out" "$work/new.out" ||
	    ! cmp -s "$work/old.err2" "$work/new.err2" ||
	    ! cmp -s "$work/old.rc" "$work/new.rc"; then
		bad=$((bad + 1))
		echo "DIFFERS: $*"
		diff "$work/old.out" "$work/new.out" | head -5
		diff "$work/old.err2" "$work/new.err2" | head -5
		diff "$work/old.rc" "$work/new.rc"
	fi
}

for t in $traces $corpus; do
	run "mct-cat '$t'"
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
run "mct-metrics -o tsv in/gpu.csv"
run "mct-metrics --join utilization.gpu in/seed.json in/gpu.csv | mct-group --value metrics.utilization.gpu.mean -o tsv"
run "mct-report --against in/seed-slow.json in/seed.json"
run "mct-report --metrics in/gpu.csv in/seed.json"
echo "compare-builds: $n commands, $bad differ"
[ "$bad" -eq 0 ]
