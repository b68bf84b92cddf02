#!/usr/bin/env bats
# mct-path.bats - the critical path: its segments, summary and breakdown
# on generated traces (mcTracer's syncs by name, two streams) and on the
# Kineto fixtures equal tests/path_oracle.py's own graph and longest path
# to the ns; HTA's acceptance on its own test traces; --step, --from/--to,
# --scale; bad input; the man page and help.

load helpers

setup_file() {
	light_trace
	genf "$BATS_FILE_TMPDIR/g.json" --scale 0.01
	mkdir "$BATS_FILE_TMPDIR/rk"
	gen --scale 0.005 --ranks 2 --out "$BATS_FILE_TMPDIR/rk" --slow-rank 1 \
	    --slow-factor 1.08 --profiler-steps
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	d=$BATS_FILE_TMPDIR
}

# The oracle's block for one question (SPEC, tab-separated options) of
# FILE, every question of FILE asked at once (and cached).
ask() {
	local f=$1 spec=$2

	shift 2
	oracle path_oracle.py "$f" "$@" |
	    awk -v s="== ${spec//$'\t'/ }" '/^== /{on = ($0 == s); next} on' |
	    awk '/^critical\t/ { print | "sort" ; next } { print }'
}

# What mct-path says, as the oracle writes it.
says() {
	local out err

	out=$(mct-path "$@" 2> err) || true
	awk '/on the path/ { gsub(/[(),]/, ""); l = $(NF-5); e = $(NF-3); n = $(NF-1) }
	    /negative weight/ { neg = $2 } /neither a launch/ { ne = $2 }
	    /launches without/ { nk = $2 } /syncs with no kernel/ { ns = $2 }
	    END { printf "summary %s %s %s %d %d %d %d\n", l, e, n, neg, nk, ns, ne }' err
	printf '%s\n' "$out" | mct-cat -o tsv --no-header -F kind,crit,name |
	    sed 's/^/seg\t/'
	mct-path -q -o tsv --no-header -F bound,crit,segments "$@" |
	    grep -v '^total' | sed 's/^/bound\t/'
	mct-path -q -o trace "$@" > says.json
	for t in dependency kernel_launch_delay sync_dependency collective; do
		mct-filter --where "ph == s && args.type == critical_path_$t" \
		    says.json | mct-cat -o tsv --no-header -F name | wc -l |
		    sed "/^0\$/d; s/^/flows\tcritical_path_$t\t/"
	done
	mct-filter --where 'args.critical == 1 && ph == X' says.json |
	    mct-cat -o tsv --no-header -F name,ts | sort | sed 's/^/critical\t/'
}

GEN_ASKS=("" $'--scale\tkernel=0.5' $'--scale\t^mc_memset_d32_kernel$=10000'
    $'--from-rel\t10000000\t--to-rel\t30000000')
STEP='[param|pytorch.model.alex_net|0|0|0|measure|forward]#2'
HTA_ASKS=("" $'--step\t'"$STEP")
PS_ASKS=($'--step\tProfilerStep#3' $'--steps\tmedian')

@test "a generated trace (syncs by name, two streams): segments, summary and breakdown are the oracle's" {
	same "$(says "$d/g.json")" "$(ask "$d/g.json" "" "${GEN_ASKS[@]}")"
}

@test "a graph big enough for threads (host edges beside the device's, successor lists beside the counts): the oracle's" {
	# (gentrace --scale 0.2: 42,946 host events, past the 32,768 items
	# from which mct-path gives the work a second thread)
	genf g02.json --scale 0.2
	[ "$(mct-filter -c --ph X -v --device g02.json)" -ge 32768 ]
	same "$(says g02.json)" "$(ask g02.json "")"
}

@test "read in the reader's threads, one event at a time (--scale) or from a stream: the same path" {
	local f a
	for f in "$d/g.json" "$fixtures/hta-critical-path-event-sync.json.gz"; do
		[ -f "$f" ] || continue
		a=$(MCT_SPLIT=1 mct-path --no-header "$f")
		[ -n "$a" ]
		same "$a" "$(mct-path --no-header --scale 'name == nothing=1' "$f")"
		same "$a" "$(mct-cat "$f" | mct-path --no-header)"
	done
}

@test "--scale 'name~kernel=0.5': the path after is the oracle's, the one before is the unscaled path" {
	same "$(says --scale 'name~kernel=0.5' "$d/g.json")" \
	    "$(ask "$d/g.json" $'--scale\tkernel=0.5' "${GEN_ASKS[@]}")"
	run --separate-stderr mct-path --scale 'name~kernel=0.5' "$d/g.json"
	[ "$status" -eq 0 ]
	l0=$(ask "$d/g.json" "" "${GEN_ASKS[@]}" | awk '/^summary/{print $2}')
	[[ "$stderr" == *"before --scale: "*"($l0 ns)"* ]]
}

@test "--scale of a kernel off the path changes nothing until it is critical: then the oracle's path" {
	run -0 mct-path -q "$d/g.json"
	a=$output
	run -0 mct-path -q --scale 'name==mc_memset_d32_kernel=0.5' "$d/g.json"
	same "$output" "$a"
	run -0 mct-path -q --scale 'name==mc_memset_d32_kernel=2' "$d/g.json"
	same "$output" "$a"
	same "$(says --scale 'name==mc_memset_d32_kernel=10000' "$d/g.json")" \
	    "$(ask "$d/g.json" $'--scale\t^mc_memset_d32_kernel$=10000' "${GEN_ASKS[@]}")"
	run -0 mct-path -q -o csv -F bound,top --scale 'name==mc_memset_d32_kernel=10000' "$d/g.json"
	[[ "$output" == *"kernel,mc_memset_d32_kernel"* ]]
}

@test "--from/--to: the ops that start within them, as the oracle's" {
	same "$(says --from 10ms --to 30ms "$d/g.json")" \
	    "$(ask "$d/g.json" $'--from-rel\t10000000\t--to-rel\t30000000' \
	    "${GEN_ASKS[@]}")"
}

@test "--from/--to beyond int64 ns from the origin hold everything there: a --from so far has no op, a --to so far every op" {
	printf '%s\n' '[{"name":"a","ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":1000000000000000000,"dur":10},' \
	    '{"name":"b","ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":1000000000000000020,"dur":5}]' > t.json
	run -0 --separate-stderr mct-path -u ns -o tsv --no-header --from 9000000000s t.json
	[ -z "$output" ]
	same "$stderr" "mct-path: no host op or device event: no path (B/E events count only with --pair-be)"
	run -0 --separate-stderr mct-path -q -u ns -o tsv --no-header -F bound,crit --to 9000000000s t.json
	same "$output" "$(mct-path -q -u ns -o tsv --no-header -F bound,crit t.json)"
	same "${lines[0]}" "host	15"
}

@test "--steps all: a row per ProfilerStep#N, its path and what bounds it, as the oracle's" {
	local f=$MCT_SRCDIR/examples/pytorch-small.pt.trace.json
	same "$(mct-path -q --steps all -o tsv --no-header "$f" | sed 's/^/step\t/')" \
	    "$(ask "$f" $'--steps\tall' $'--steps\tall')"
	run --separate-stderr mct-path --steps all "$f"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 5 ]
	[[ "$stderr" == "mct-path: 4 steps"* ]]
	run --separate-stderr mct-path --steps some "$f"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "mct-path: --steps 'some': all or median"* ]]
	run --separate-stderr mct-path --steps all -o trace "$f"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "mct-path: --steps all: a row per step, not a trace"* ]]
}

@test "--steps all: a bare ProfilerStep# (no digit after the #) is no step: no row for it, as the oracle's; --step finds it by its whole name" {
	bare_step > bare.json
	same "$(mct-path -q --steps all -o tsv --no-header bare.json | sed 's/^/step\t/')" \
	    "$(ask bare.json $'--steps\tall' $'--steps\tall')"
	run -0 --separate-stderr mct-path -q --steps all -o tsv --no-header -F name bare.json
	same "$output" $'ProfilerStep#10\nProfilerStep#11\nProfilerStep#12'
	run -0 --separate-stderr mct-path -q -o tsv --no-header -F bound,crit --step 'ProfilerStep#' bare.json
	same "$output" $'host\t1350000\ntotal\t1350000'
}

@test "a step's name with a NUL in it (\u0000) is its whole name: --steps all writes it whole, --steps median finds that step, on one rank and on two" {
	local med f
	genf ps.json --scale 0.01 --profiler-steps
	run -0 --separate-stderr mct-path --steps median -o tsv ps.json
	med=$(sed -n 's/^mct-path: median of 4 steps: //p' <<< "$stderr")
	[[ "$med" == ProfilerStep#? ]]
	sed "s/\"$med\"/\"$med\\\\u0000x\"/" ps.json > nul.json
	grep -qF "\"$med\\u0000x\"" nul.json
	# (the name was cut at the NUL: a row named $med, and no such step)
	same "$(mct-path -q --steps all -o ndjson nul.json | sed 1d)" \
	    "$(mct-path -q --steps all -o ndjson ps.json | sed "1d; s/\"$med\"/\"$med\\\\u0000x\"/")"
	same "$(mct-path -q --steps median -o tsv nul.json)" "$output"
	same "$(mct-path --steps median -o tsv nul.json 2>&1 >/dev/null | tr '\0' @ | grep median)" \
	    "mct-path: median of 4 steps: $med@x"
	run -2 --separate-stderr mct-path -q --step "$med" nul.json
	same "$stderr" "mct-path: --step $med: no such event"
	# two ranks: every rank's window of the name, as one step (the cut
	# name was no step's: a crash)
	mkdir nul
	for f in "$d"/rk/rank-*.json; do
		sed 's/"ProfilerStep#2"/"ProfilerStep#2\\u0000x"/' "$f" > "nul/${f##*/}"
	done
	same "$(mct-path -q --steps all -o ndjson nul/rank-*.json | sed 1d)" \
	    "$(mct-path -q --steps all -o ndjson "$d"/rk/rank-*.json | sed '1d; s/"ProfilerStep#2"/"ProfilerStep#2\\u0000x"/')"
	grep -qF '"ProfilerStep#2\u0000x","ph":"X","ts":' <(mct-path -q --steps all -o ndjson nul/rank-*.json)
	grep -qF '"ranks":2' <(mct-path -q --steps all -o ndjson nul/rank-*.json | grep -F 'ProfilerStep#2\u0000x')
}

@test "--steps all and median with --from and --to (the whole input kept): each step's window is theirs, a row each, the path of the window" {
	local want

	genf ps.json --scale 0.002 --profiler-steps
	want=$(mct-path -q -o tsv --no-header -F bound,crit --from 10ms --to 300ms ps.json | sed -n 's/^total\t//p')
	[ -n "$want" ]
	run -0 --separate-stderr mct-path -q --steps all -o tsv --no-header -F name,crit --from 10ms --to 300ms ps.json
	same "$output" "$(printf 'ProfilerStep#%d\t%s\n' 1 "$want" 2 "$want" 3 "$want" 4 "$want")"
	run -0 --separate-stderr mct-path -q --steps median -o tsv --from 10ms --to 300ms ps.json
	same "$output" "$(mct-path -q -o tsv --from 10ms --to 300ms ps.json)"
	same "$stderr" "mct-path: median of 4 steps: ProfilerStep#2"
	for w in "--from 1ms" "--to 100s"; do
		run -0 --separate-stderr mct-path -q --steps all -o tsv --no-header -F name $w ps.json
		same "$output" "$(printf 'ProfilerStep#%d\n' 1 2 3 4)"
	done
}

@test "--steps all step by step: ProfilerStep#N rounds (gentrace --profiler-steps) give the oracle's rows whatever the file's order" {
	local want l

	genf ps.json --scale 0.01 --profiler-steps
	want=$(ask ps.json $'--steps\tall' $'--steps\tall')
	[ "$(printf '%s\n' "$want" | wc -l)" -eq 4 ]
	same "$(mct-path -q --steps all -o tsv --no-header ps.json |
	    sed 's/^/step\t/')" "$want"
	# the device events after the host's (as Kineto writes them), the
	# order broken in windows, from a pipe: the same rows
	for l in sections shuffle; do
		genf "$l.json" --scale 0.01 --profiler-steps --layout "$l"
		same "$(mct-path -q --steps all -o tsv --no-header < "$l.json" |
		    sed 's/^/step\t/')" "$want"
		# from the file, read in the reader's threads: runs of events,
		# small ones with small chunks (a give-up amid a run)
		same "$(mct-path -q --steps all -o tsv --no-header "$l.json" |
		    sed 's/^/step\t/')" "$want"
		same "$(MCT_SPLIT=4096 mct-path -q --steps all -o tsv \
		    --no-header "$l.json" | sed 's/^/step\t/')" "$want"
	done
}

# FILE's lines in decreasing time order (backwards), and shuffled.
backwards() {
	"$PYTHON3" - "$1" <<'PY'
import random, sys
lines = open(sys.argv[1]).readlines()
open("back.nd", "w").writelines(lines[::-1])
random.Random(7).shuffle(lines)
open("shuf.nd", "w").writelines(lines)
PY
}

@test "--steps all of a trace written backwards or shuffled (the whole input kept, each step's window found in it): the rows in time order's, on one rank and two, with --from; --steps median's table and events" {
	local f rows all

	genf ps.nd --scale 0.05 --profiler-steps --event-sync --form ndjson
	backwards ps.nd
	rows=$(mct-path -q --steps all -o tsv --no-header ps.nd)
	[ "$(wc -l <<< "$rows")" -ge 10 ]
	all=$(mct-path -q --steps all -o tsv --no-header --from 1s ps.nd)
	mct-path -q -o md --steps median --events ev.json ps.nd > md 2> err
	for f in back.nd shuf.nd; do
		run -0 --separate-stderr mct-path --steps all -o tsv --no-header "$f"
		same "$output" "$rows"
		same "$stderr" "mct-path: $(wc -l <<< "$rows") steps"
		same "$(mct-path -q --steps all -o tsv --no-header --from 1s "$f")" "$all"
		same "$(mct-path -q -o md --steps median --events ev2.json "$f" 2>&1)" "$(cat err md)"
		same "$(sed 1d ev2.json)" "$(sed 1d ev.json)"
	done
	# a job of two ranks, merged and written backwards
	rows=$(mct-path -q --steps all -o tsv --no-header "$d"/rk/rank-*.json)
	mct-cat --merge "$d"/rk/rank-*.json | sed 1d > rk.nd
	backwards rk.nd
	same "$(mct-path -q --steps all -o tsv --no-header back.nd)" "$rows"
	same "$(mct-path -q --steps all -o tsv --no-header shuf.nd)" "$rows"
}

@test "--step keeps only its step's window as the input comes: the oracle's path, the same whatever the file's order or from a pipe" {
	local l st

	genf ps.json --scale 0.01 --profiler-steps
	same "$(says --step 'ProfilerStep#3' ps.json)" \
	    "$(ask ps.json $'--step\tProfilerStep#3' "${PS_ASKS[@]}")"
	for l in sections shuffle; do
		genf "$l.json" --scale 0.01 --profiler-steps --layout "$l"
		for st in 'ProfilerStep#3' 'ProfilerStep#1' 'mcLaunchKernel#40'; do
			same "$(mct-path -q --no-header -o tsv --step "$st" < "$l.json")" \
			    "$(mct-path -q --no-header -o tsv --step "$st" ps.json)"
		done
	done
}

@test "--steps median: the path of the step whose path is the median (the oracle's choice), as --step gives it, the step said on stderr even with -q" {
	local want med

	genf ps.json --scale 0.01 --profiler-steps
	want=$(ask ps.json $'--steps\tmedian' "${PS_ASKS[@]}")
	med=$(printf '%s\n' "$want" | sed -n '1s/^median //p')
	[ -n "$med" ]
	same "$(says --steps median ps.json)" "$(printf '%s\n' "$want" | sed 1d)"
	run -0 --separate-stderr mct-path -q -o md --steps median ps.json
	same "$stderr" "mct-path: median of 4 steps: $med"
	same "$output" "$(mct-path -q -o md --step "$med" ps.json)"
	# (of --steps all and median, the last one given)
	same "$(mct-path -q -o md --steps all --steps median ps.json 2>/dev/null)" "$output"
	# --events: in the same run, the events as -o ndjson writes them
	run -0 --separate-stderr mct-path -q -o md --steps median --events ev.ndjson ps.json
	same "$output" "$(mct-path -q -o md --step "$med" ps.json)"
	same "$(cat ev.ndjson)" "$(mct-path -q --step "$med" ps.json)"
	same "$(mct-cat -o tsv --no-header -F kind,crit,name ev.ndjson | sed 's/^/seg\t/')" \
	    "$(printf '%s\n' "$want" | grep '^seg')"
	# no step: the whole input, said so
	run -0 --separate-stderr mct-path -q --steps median "$d/g.json"
	same "$stderr" "mct-path: no step: the whole input"
	same "$output" "$(mct-path -q "$d/g.json")"
	# the input is read twice: not from a pipe
	run --separate-stderr mct-path --steps median < ps.json
	[ "$status" -eq 2 ]
	same "${stderr_lines[0]}" "mct-path: --steps median: standard input: not a file (the input is read twice)"
}

@test "--steps median's second reading, of the runs of lines the first kept, is --step's of the file: the path, its events and its counts, in any order, in small runs; -o trace reads the file again" {
	local l split med

	for l in time sections shuffle; do
		genf "$l.json" --scale 0.01 --profiler-steps --layout "$l"
		for split in "" 4096; do
			MCT_SPLIT=$split mct-path -o md --steps median \
			    --events ev.ndjson "$l.json" > med.md 2> med.err
			med=$(sed -n '1s/^mct-path: median of 4 steps: //p' med.err)
			[ -n "$med" ]
			mct-path -o md --step "$med" --events step.ndjson \
			    "$l.json" > step.md 2> step.err
			same "$(cat med.md)" "$(cat step.md)"
			same "$(sed 1d med.err)" "$(cat step.err)"
			same "$(cat ev.ndjson)" "$(cat step.ndjson)"
		done
		same "$(mct-path -q -o trace --steps median "$l.json" 2>/dev/null)" \
		    "$(mct-path -q -o trace --step "$med" "$l.json")"
	done
}

# A row of --steps all -o tsv made of --step NAME -o tsv's breakdown.
step_as_row() {
	local name=$1

	shift
	mct-path -q --step "$name" -o tsv --no-header -F bound,crit "$@" |
	    awk -F '\t' -v n="$name" '{ v[$1] = $2 } END { printf "%s\t%d\t%d\t%d\t%d\t%d\t%d\n", n, v["total"], v["host"], v["kernel"], v["comm"], v["launch"], v["kernel-wait"] }'
}

@test "two ranks, --steps all: a row per step of the job, each the path --step NAME gives of the same files, as the oracle's; the same from a stream in any order; --steps median among the job's steps" {
	local f=("$d/rk/rank-0.json" "$d/rk/rank-1.json") want name rows

	want=$(ask "$d/rk" $'--steps\tall' $'--steps\tall' $'--steps\tmedian')
	run -0 --separate-stderr mct-path --steps all -o tsv --no-header "${f[@]}"
	same "$(printf '%s\n' "$output" | sed 's/^/step\t/')" "$want"
	same "$stderr" "mct-path: $(printf '%s\n' "$want" | grep -c '^step') steps"
	rows=$output
	same "$(for name in $(cut -f1 <<< "$rows"); do
		step_as_row "$name" "${f[@]}"; done)" "$rows"
	# a job's row: its ranks (the rank key is an event's own)
	same "$(mct-path -q --steps all "${f[@]}" | mct-cat -o tsv --no-header -F ranks | sort -u)" 2
	# merged, the ranks one after another (a stream or the files reversed)
	same "$(mct-cat --merge "${f[@]}" | mct-path -q --steps all -o tsv --no-header)" "$rows"
	same "$(mct-cat "${f[1]}" "${f[0]}" | mct-path -q --steps all -o tsv --no-header)" "$rows"
	same "$(mct-path -q --steps all -o tsv --no-header "${f[1]}" "${f[0]}")" "$rows"
	run -0 --separate-stderr mct-path -q -o tsv --steps median "${f[@]}"
	same "$stderr" "mct-path: median of $(printf '%s\n' "$want" | grep -c '^step') steps: $(ask "$d/rk" $'--steps\tmedian' $'--steps\tall' $'--steps\tmedian' | sed -n 's/^median //p')"
}

@test "two ranks, a step on one rank only: analysed on that rank, counted on stderr, as the oracle's" {
	local want

	mkdir p
	cp "$d/rk/rank-0.json" p/
	grep -v '"name":"ProfilerStep#2"' "$d/rk/rank-1.json" > p/rank-1.json
	want=$(ask p $'--steps\tall' $'--steps\tall')
	run -0 --separate-stderr mct-path --steps all -o tsv --no-header p/rank-0.json p/rank-1.json
	same "$(printf '%s\n' "$output" | sed 's/^/step\t/')" "$(grep '^step' <<< "$want")"
	same "${stderr_lines[1]}" "mct-path: $(sed -n 's/^partial //p' <<< "$want") steps on some ranks only: each analysed on the ranks that have it"
	same "$(step_as_row ProfilerStep#2 p/rank-0.json p/rank-1.json)" "$(grep '^ProfilerStep#2	' <<< "$output")"
	same "$(mct-path -q --steps all p/rank-0.json p/rank-1.json | mct-cat -o tsv --no-header -F name,ranks | grep '^ProfilerStep#2	')" "ProfilerStep#2	1"
	# rank 0's part waits on disk while rank 1 comes: the same rows
	same "$(mct-path -q --steps all -o tsv --no-header p/rank-1.json p/rank-0.json)" "$output"
	run -0 --separate-stderr mct-path -q --steps all p/rank-0.json p/rank-1.json
	same "$stderr" ""
}

@test "--events FILE: the table on stdout and the events in FILE; not with --steps all; a file it cannot write exits 2" {
	run -0 mct-path -q -o table --events ev.ndjson "$d/g.json"
	same "$output" "$(mct-path -q -o table "$d/g.json")"
	same "$(cat ev.ndjson)" "$(mct-path -q "$d/g.json")"
	run --separate-stderr mct-path --steps all --events ev.ndjson "$d/g.json"
	[ "$status" -eq 2 ]
	same "${stderr_lines[0]}" "mct-path: --events: the events of one path, not with --steps all"
	run --separate-stderr mct-path --events nosuchdir/ev.ndjson "$d/g.json"
	[ "$status" -eq 2 ]
	same "$stderr" "mct-path: nosuchdir/ev.ndjson: No such file or directory"
}

@test "...EventSynchronize by name: the kernel of the last launch before the thread's ...EventRecord, only on a rank without cuda_sync events, as the oracle's" {
	cat > ev.json <<-'EOF'
	{"traceEvents":[
	{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1000,"dur":10,"args":{"correlation":1}},
	{"ph":"X","cat":"kernel","name":"k_long","pid":0,"tid":7,"ts":1020,"dur":500,"args":{"correlation":1}},
	{"ph":"X","cat":"cuda_runtime","name":"cudaEventRecord","pid":1,"tid":1,"ts":1030,"dur":5,"args":{"correlation":2}},
	{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1040,"dur":10,"args":{"correlation":3}},
	{"ph":"X","cat":"kernel","name":"k_short","pid":0,"tid":8,"ts":1060,"dur":50,"args":{"correlation":3}},
	{"ph":"X","cat":"cuda_runtime","name":"cudaEventSynchronize","pid":1,"tid":1,"ts":1060,"dur":470,"args":{"correlation":4}},
	{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1540,"dur":10,"args":{"correlation":5}},
	{"ph":"X","cat":"kernel","name":"k_after","pid":0,"tid":7,"ts":1560,"dur":100,"args":{"correlation":5}}
	]}
	EOF
	# the same with a cuda_sync event on the rank: no sync by name
	sed '$d' ev.json | sed '$s/$/,/' > evk.json
	printf '%s\n' '{"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":7,"ts":1700,"dur":1,"args":{"correlation":99}}' ']}' >> evk.json
	same "$(says ev.json)" "$(ask ev.json "" "")"
	same "$(says evk.json)" "$(ask evk.json "" "")"
	run -0 bash -c "mct-path -q ev.json | mct-cat -o csv --no-header -F kind,name"
	[[ "$output" == *"kernel,k_long"*"sync,cudaEventSynchronize"*"kernel,k_after"* ]]
	run -0 bash -c "mct-path -q evk.json | mct-cat -o csv --no-header -F kind,name"
	[[ "$output" != *"cudaEventSynchronize"* ]]
}

@test "gentrace --event-sync: mcEventSynchronize by name on the seed-shaped trace, the oracle's path" {
	genf ges.json --scale 0.01 --event-sync
	same "$(says ges.json)" "$(ask ges.json "" "")"
	run -0 bash -c "mct-path -q ges.json | mct-cat -o csv --no-header -F kind,name"
	[[ "$output" == *"sync,mcEventSynchronize"* ]]
}

@test "mct-report: a Critical path section, of the median step (the oracle's), with the breakdown and the top events" {
	local f=$MCT_SRCDIR/examples/pytorch-small.pt.trace.json
	med=$(ask "$f" $'--steps\tall' $'--steps\tall' | sort -t '	' -k3,3n |
	    awk -F'\t' '{ v[NR] = $2 } END { print v[int((NR + 1) / 2)] }')
	run -0 mct-report "$f"
	sec=$(printf '%s\n' "$output" | sed -n '/^## [0-9]*\. Critical path$/,/^## /p')
	[[ "$sec" == *"\`mct-path -o md --step '$med'\`: the critical path of the median step"* ]]
	[[ "$sec" == *"| bound | crit | share | segments | top |"* ]]
	[[ "$sec" == *"| kind | name | total | share |"* ]]
}

@test "-o table: the breakdown's rows and a total" {
	run -0 mct-path -q -o table --time-unit us "$d/g.json"
	[[ "${lines[0]}" == "bound "*"crit (us)"*"share"*"segments"*"top" ]]
	[[ "${lines[-1]}" == "total "*"100.00"* ]]
	run -0 mct-path -q -o md "$d/g.json"
	[[ "${lines[0]}" == "| bound"* ]]
	run -0 mct-path -q -o csv -F bound,crit "$d/g.json"
	same "${lines[0]}" "bound,crit"
}

@test "fixtures: the small Kineto fixtures' paths (every one's in make check-full) and steps are the oracle's, segment by segment" {
	need_fixtures
	local f all=("$fixtures"/kineto-*.json*)

	[ "${MCT_TEST_FULL:-0}" = 1 ] || all=(
	    "$fixtures"/kineto-h100-tiny.json
	    "$fixtures"/kineto-call-stack-tiny.json
	    "$fixtures"/kineto-rocm62-mi250.json.gz)
	for f in "${all[@]}"; do
		same "$(says "$f")" "$(ask "$f" "" "" $'--steps\tall')" ||
		    { echo "$f"; return 1; }
		same "$(mct-path -q --steps all -o tsv --no-header "$f" |
		    sed 's/^/step\t/')" \
		    "$(ask "$f" $'--steps\tall' "" $'--steps\tall')" ||
		    { echo "$f"; return 1; }
	done
}

@test "fixtures: HTA's simple-add step, its 2nd instance, has 159 events and 315 nodes on the path" {
	need_fixtures
	local f=$fixtures/hta-critical-path-simple-add.json.gz
	run --separate-stderr mct-path --step "$STEP" "$f"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *", 159 events, 315 nodes"* ]]
	same "$(says --step "$STEP" "$f")" "$(ask "$f" $'--step\t'"$STEP" "${HTA_ASKS[@]}")"
}

@test "fixtures: HTA's simple-add whole: the oracle's path; -o trace marks 622 of HTA's 624 critical events, and 3 others (mct-path(1))" {
	need_fixtures
	local f=$fixtures/hta-critical-path-simple-add.json.gz
	same "$(says "$f")" "$(ask "$f" "" "${HTA_ASKS[@]}")"
	key() {
		mct-filter --where 'args.critical == 1 && ph == X' "$1" |
		    mct-cat -o tsv --no-header -F name,ts,dur | sort
	}
	key says.json > mine
	key "$fixtures/hta-critical-path-simple-add.overlaid.json.gz" > hta
	same "$(wc -l < hta) $(comm -12 mine hta | wc -l) $(comm -23 mine hta | wc -l)" \
	    "624 622 3"
}


@test "early Kineto's steps (ProfilerStep#N of cat Operator) are the window of their ops, not an op on the path: the rows, median and path of cat user_annotation's, the oracle's; --only-path keeps them" {
	local want

	genf ua.json --scale 0.01 --profiler-steps
	sed '/"name":"ProfilerStep#/s/"cat":"user_annotation"/"cat":"Operator"/' ua.json > op.json
	[ "$(mct-filter -c --cat Operator --match '^ProfilerStep#' op.json)" -eq 4 ]
	same "$(mct-path -q -o tsv --steps all op.json)" "$(mct-path -q -o tsv --steps all ua.json)"
	same "$(mct-path -q --steps median op.json | sed 1d)" "$(mct-path -q --steps median ua.json | sed 1d)"
	want=$(ask op.json $'--step\tProfilerStep#3' "${PS_ASKS[@]}")
	same "$(says --step 'ProfilerStep#3' op.json)" "$want"
	# no step on its own path
	[ "$(mct-path -q --step 'ProfilerStep#3' op.json | mct-filter -c --match '^ProfilerStep#')" -eq 0 ]
	mct-path -q -o trace --only-path op.json > only.json
	[ "$(mct-filter -c --cat Operator --match '^ProfilerStep#' only.json)" -eq 4 ]
}
@test "-o trace --only-path: the X events on the path and the annotations, every other event, the flows" {
	need_fixtures
	local f=$fixtures/hta-critical-path-simple-add.json.gz
	mct-path -q -o trace "$f" > all.json
	mct-path -q -o trace --only-path "$f" > only.json
	n() { mct-filter --where "$2" "$1" | mct-cat -o tsv --no-header -F name | wc -l; }
	same "$(n only.json 'ph == X && cat !~ ^(user_annotation|python_function)$')" \
	    "$(n all.json 'ph == X && args.critical == 1')"
	same "$(n only.json 'ph != X')" "$(n all.json 'ph != X')"
	same "$(n only.json 'cat == user_annotation')" "$(n all.json 'cat == user_annotation')"
}

@test "fixtures: HTA's event-sync trace: the spin kernel's end joins the cudaEventSynchronize that waits for it" {
	need_fixtures
	local f=$fixtures/hta-critical-path-event-sync.json.gz
	same "$(says "$f")" "$(ask "$f" "")"
	run -0 bash -c 'mct-path -q "$1" | mct-cat -o tsv --no-header -F kind,name' _ "$f"
	[[ "$output" == *$'kernel\tat::cuda::(anonymous namespace)::spin_kernel(long)\nsync\tcudaEventSynchronize'* ]]
}

@test "two ranks, rank 1 8% slower (gentrace --ranks): the job's path is the oracle's and on rank 1 at every collective" {
	same "$(says "$d/rk/rank-0.json" "$d/rk/rank-1.json")" \
	    "$(ask "$d/rk" "" "" $'--step\tProfilerStep#'{1,2,3,4})"
	run -0 bash -c 'mct-path -q "$@" | mct-cat -o tsv --no-header -F rank,kind |
	    sort -u' _ "$d/rk/rank-0.json" "$d/rk/rank-1.json"
	[[ "$output" == *$'1\tcomm'* ]]
	[[ "$output" != *$'0\t'* ]]
}

@test "two ranks, rank 1 8% slower: each step's path is the oracle's, its work on rank 1 (rank 0's wait in its collective is on no path)" {
	local n

	for n in 1 2 3 4; do
		same "$(says --step "ProfilerStep#$n" "$d/rk/rank-0.json" \
		    "$d/rk/rank-1.json")" \
		    "$(ask "$d/rk" $'--step\tProfilerStep#'"$n" \
		    "" $'--step\tProfilerStep#'{1,2,3,4})" || return 1
		# (rank 0 only for the collective's end, after rank 1 came)
		run -0 bash -c 'mct-path -q --step "$1" "$2" "$3" |
		    mct-cat -o tsv --no-header -F rank,kind |
		    grep -v "^0	comm$" | cut -f1 | sort -u' _ \
		    "ProfilerStep#$n" "$d/rk/rank-0.json" "$d/rk/rank-1.json"
		same "$output" "1"
	done
}

@test "two ranks: the path crosses at a collective to the rank that came last, as the oracle's" {
	mkdir x
	cat > x/r0.json <<'J'
{"distributedInfo":{"rank":0},"traceEvents":[
{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":0,"dur":5,"args":{"correlation":1}},
{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":20,"dur":5,"args":{"correlation":2}},
{"name":"cudaDeviceSynchronize","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":26,"dur":106,"args":{"correlation":3}},
{"name":"compute","ph":"X","cat":"kernel","pid":0,"tid":7,"ts":10,"dur":100,"args":{"correlation":1}},
{"name":"ncclKernel_AllReduce","ph":"X","cat":"kernel","pid":0,"tid":7,"ts":110,"dur":20,"args":{"correlation":2}}]}
J
	cat > x/r1.json <<'J'
{"distributedInfo":{"rank":1},"traceEvents":[
{"name":"aten::op","ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":2},
{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":8,"dur":1,"args":{"correlation":2}},
{"name":"cudaDeviceSynchronize","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":9,"dur":123,"args":{"correlation":3}},
{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":140,"dur":5,"args":{"correlation":4}},
{"name":"ncclKernel_AllReduce","ph":"X","cat":"kernel","pid":0,"tid":7,"ts":10,"dur":120,"args":{"correlation":2}},
{"name":"after","ph":"X","cat":"kernel","pid":0,"tid":7,"ts":150,"dur":50,"args":{"correlation":4}}]}
J
	same "$(says x/r0.json x/r1.json)" "$(ask x "")"
	run -0 bash -c 'mct-path -q x/r0.json x/r1.json | mct-cat -o tsv --no-header -F rank,kind,name'
	same "$output" "0	launch	cudaLaunchKernel
0	kernel	compute
0	kernel-wait	compute
1	comm	ncclKernel_AllReduce
1	sync	cudaDeviceSynchronize
1	launch	cudaLaunchKernel
1	kernel	after"
}

@test "an unknown step exits 2 with a message; a bad --scale is a usage error" {
	run --separate-stderr mct-path --step nosuch "$d/g.json"
	[ "$status" -eq 2 ]
	same "$stderr" "mct-path: --step nosuch: no such event"
	run --separate-stderr mct-path --step 'mcGetDevice#0' "$d/g.json"
	[ "$status" -eq 2 ]
	# (with --scale too: the message, no path before it)
	run --separate-stderr mct-path --scale 'name~x=0.5' --step nosuch "$d/g.json"
	[ "$status" -eq 2 ]
	same "$stderr" "mct-path: --step nosuch: no such event"
	run --separate-stderr mct-path --scale 'name~x' "$d/g.json"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "mct-path: --scale 'name~x': EXPR=F wanted"$'\n'* ]]
	run --separate-stderr mct-path --scale 'name~x=abc' "$d/g.json"
	[ "$status" -eq 2 ]
}

@test "bad input: a launch with no kernel, a sync with no kernel, a kernel before its launch: counted, the oracle's path" {
	cat > t.json <<'J'
[{"name":"cudaStreamSynchronize","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":0,"dur":2,"args":{"correlation":5}},
{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":3,"dur":5,"args":{"correlation":1}},
{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":9}},
{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":16,"dur":2,"args":{"correlation":3}},
{"name":"cudaDeviceSynchronize","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":20,"dur":5,"args":{"correlation":2}},
{"name":"k","ph":"X","cat":"kernel","pid":0,"tid":7,"ts":4,"dur":40,"args":{"correlation":1}},
{"name":"early","ph":"X","cat":"kernel","pid":0,"tid":8,"ts":1,"dur":1,"args":{"correlation":3}}]
J
	run --separate-stderr mct-path t.json
	[ "$status" -eq 0 ]
	same "$(printf '%s\n' "${stderr_lines[@]:1}")" "mct-path: 1 launches without a device event
mct-path: 1 syncs with no kernel before them to wait for
mct-path: 1 kernels with neither a launch nor an earlier kernel to wait for"
	same "$(says t.json)" "$(ask t.json "")"
}

@test "bad input: a kernel that ends before its launch starts makes a cycle: reported, exit 1, no path, as the oracle finds" {
	cycle_trace > t.json
	n=$(ask t.json "" | sed -n 's/^cycle //p')
	[ -n "$n" ]
	run --separate-stderr mct-path -q t.json
	[ "$status" -eq 1 ]
	same "$stderr" "mct-path: $n nodes in a cycle (times out of order): no path"
	same "$(printf '%s\n' "$output" | grep -vc mct_header)" 0
	for o in trace table; do
		run --separate-stderr mct-path -q -o $o t.json
		[ "$status" -eq 1 ]
		same "$stderr" "mct-path: $n nodes in a cycle (times out of order): no path"
	done
	run --separate-stderr mct-path -q --step 'ProfilerStep#1' t.json
	[ "$status" -eq 1 ]
	run --separate-stderr mct-path --steps all t.json
	[ "$status" -eq 1 ]
	same "${stderr_lines[*]:0:2}" "mct-path: 1 steps mct-path: 1 steps with a cycle (times out of order): no row"
	same "$(printf '%s\n' "$output" | grep -vc mct_header)" 0
	# no path: no table row, no summary after the cycle
	run --separate-stderr mct-path -o tsv --no-header t.json
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	same "${stderr_lines[0]}" "mct-path: $n nodes in a cycle (times out of order): no path"
	[[ "$stderr" != *"on the path"* ]]
	run --separate-stderr mct-path -q --steps median -o tsv --no-header t.json
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	same "${stderr_lines[*]:0:2}" "mct-path: 1 steps with a cycle (times out of order): no row mct-path: no step without a cycle: the whole input"
}

@test "bad input: ops that overlap without nesting: the edge of negative weight is counted and taken as 0, exit 0, the oracle's path" {
	cat > t.json <<'J'
[{"name":"a","ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":10},
{"name":"b","ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":5,"dur":15},
{"name":"c","ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":30,"dur":5}]
J
	run --separate-stderr mct-path t.json
	[ "$status" -eq 0 ]
	same "${stderr_lines[1]}" "mct-path: 1 edges of negative weight (times out of order), taken as 0"
	same "$(says t.json)" "$(ask t.json "")"
}

@test "bad input: a path past int64 ns (times far apart, --scale) stays at 9223372036854775807 ns, its kernel on it" {
	printf '%s\n' '[{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":-4000000000000000000,"dur":10,"args":{"correlation":1}},' \
	    '{"name":"k","ph":"X","cat":"kernel","pid":0,"tid":7,"ts":4000000000000000000,"dur":4000000000000000000,"args":{"correlation":1}}]' > t.json
	run -0 --separate-stderr mct-path -q -u ns -o tsv --no-header -F bound,crit t.json
	same "$output" "kernel	4000000000000000000
launch	8000000000000000000
total	9223372036854775807"
	# an op's own time times 4
	printf '%s\n' '[{"name":"a","ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":4611686018427387903},' \
	    '{"name":"b","ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":4611686018427387903,"dur":5}]' > s.json
	run -0 --separate-stderr mct-path -q -u ns -o tsv --no-header -F bound,crit,top --scale 'name==a=4' s.json
	same "$output" "host	9223372036854775807	a
total	9223372036854775807	a"
}

@test "bad input: --steps all of two ranks whose steps are more than int64 ns apart: the step's dur stays at 9223372036854775807" {
	for r in 0 1; do
		t=$((r ? 4000000000000000000 : -4000000000000000000))
		n=$((r ? 4000000000000000000 : 20))
		printf '{"distributedInfo":{"rank":%d,"world_size":2},"traceEvents":[%s,\n%s]}\n' $r \
		    '{"name":"ProfilerStep#1","ph":"X","cat":"user_annotation","pid":1,"tid":1,"ts":'$t',"dur":'$n'}' \
		    '{"name":"a","ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":'$((t + 10))',"dur":5}' > r$r.json
	done
	run -0 --separate-stderr mct-path -q -u ns --steps all -o tsv --no-header -F name,ts,dur,ranks r0.json r1.json
	same "$output" "ProfilerStep#1	-4000000000000000000	9223372036854775807	2"
}

@test "bad input: an unknown step, or an instance past the last, exits 2 with the message" {
	run --separate-stderr mct-path --step 'mcLaunchKernel#100000' "$d/g.json"
	[ "$status" -eq 2 ]
	same "$stderr" "mct-path: --step mcLaunchKernel#100000: no such event"
	run --separate-stderr mct-path -o trace --step 'nosuch#2' "$d/g.json"
	[ "$status" -eq 2 ]
	same "$stderr" "mct-path: --step nosuch#2: no such event"
	[ -z "$output" ]
}

@test "--step NAME#N of a name that 100,000 events have: the N-th found at once (sorted once, not a scan for each of the N)" {
	awk 'BEGIN { printf "["
	    for (i = 0; i < 100000; i++)
		printf "%s{\"name\":\"a\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d}\n", i ? "," : "", 10 * i, 1 + i % 7
	    print "]" }' > many.json
	# (a scan for each of the N took 20 s of CPU, and longer under ASan)
	run -0 --separate-stderr timeout 10 mct-path -q -u ns -o tsv --no-header -F bound,crit --step 'a#99999' many.json
	same "$output" "host	4
total	4"
	run --separate-stderr timeout 10 mct-path -q -u ns --step 'a#100001' many.json
	[ "$status" -eq 2 ]
	same "$stderr" "mct-path: --step a#100001: no such event"
}

# backsteps N > FILE: N annotations "s" written latest first, each with
# an op inside (10 after its start, 1 + i * 7 % 31 long: us as Chrome's
# default, ns read with -u ns)
backsteps() {
	awk -v n="$1" 'BEGIN { printf "["
	    for (i = n - 1; i >= 0; i--) {
		printf "%s{\"name\":\"s\",\"ph\":\"X\",\"cat\":\"user_annotation\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":50}\n", i < n - 1 ? "," : "", 100 * i
		printf ",{\"name\":\"op\",\"ph\":\"X\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d}\n", 100 * i + 10, 1 + i * 7 % 31 }
	    print "]" }'
}

@test "--step NAME#N of steps written latest first: the oracle's window (each step goes in without moving the others)" {
	local k
	backsteps 3000 > back.json
	for k in 1 1500 2999 3000; do
		same "$(says --step "s#$k" back.json)" \
		    "$(ask back.json $'--step\ts#'$k $'--step\ts#1' \
		    $'--step\ts#1500' $'--step\ts#2999' $'--step\ts#3000')"
	done
	# 50,000 of them (a sorted array that takes each at its front moved
	# 1.25e9 elements; minutes under ASan): the op of the N-th
	backsteps 50000 > back50k.json
	for k in 1 31 25000 49999 50000; do
		run -0 --separate-stderr mct-path -q -u ns -o tsv --no-header -F bound,crit --step "s#$k" back50k.json
		same "$output" "$(printf 'host\t%d\ntotal\t%d' \
		    $((1 + (k - 1) * 7 % 31)) $((1 + (k - 1) * 7 % 31)))"
	done
}

@test "a kernel that starts more than 1.5 ms after its stream's last kernel waits for its launch; within 1.5 ms, for that kernel: the oracle's path" {
	cat > t.json <<'J'
[{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":0,"dur":5,"args":{"correlation":1}},
{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":2}},
{"name":"cudaStreamSynchronize","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":20,"dur":1100,"args":{"correlation":5}},
{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":1130,"dur":5,"args":{"correlation":3}},
{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":1140,"dur":5,"args":{"correlation":4}},
{"name":"k1","ph":"X","cat":"kernel","pid":0,"tid":7,"ts":6,"dur":4,"args":{"correlation":1}},
{"name":"k2","ph":"X","cat":"kernel","pid":0,"tid":7,"ts":1000,"dur":50,"args":{"correlation":2}},
{"name":"k3","ph":"X","cat":"kernel","pid":0,"tid":7,"ts":3000,"dur":10,"args":{"correlation":3}},
{"name":"k4","ph":"X","cat":"kernel","pid":0,"tid":7,"ts":3020,"dur":10,"args":{"correlation":4}}]
J
	same "$(says t.json)" "$(ask t.json "")"
	run -0 bash -c 'mct-path -q t.json | mct-cat -o tsv --no-header -F kind,name'
	same "$output" "launch	cudaLaunchKernel
kernel	k1
kernel-wait	k1
kernel	k2
sync	cudaStreamSynchronize
launch	cudaLaunchKernel
kernel	k3
kernel-wait	k3
kernel	k4"
}

@test "a copy launched long before it starts, right after the device's last work on another lane ends, waits for that work; on an idle device, for its launch: the oracle's path" {
	cat > t.json <<'J'
{"traceEvents":[
{"name":"mcLaunchKernel","ph":"X","pid":1,"tid":1,"ts":1000000,"dur":5000,"args":{"co_id":1}},
{"name":"mcMemcpyAsync","ph":"X","pid":1,"tid":1,"ts":1010000,"dur":8000,"args":{"co_id":2}},
{"name":"mcStreamSynchronize","ph":"X","pid":1,"tid":1,"ts":1040000,"dur":9000000,"args":{"co_id":5}},
{"name":"mcMemcpyAsync","ph":"X","pid":1,"tid":1,"ts":10050000,"dur":8000,"args":{"co_id":4}},
{"name":"mcStreamSynchronize","ph":"X","pid":1,"tid":1,"ts":10060000,"dur":9000000,"args":{"co_id":6}},
{"name":"big_kernel","ph":"X","pid":2,"tid":0,"ts":1006000,"dur":5000000,"args":{"co_id":1}},
{"name":"memcpy HtoD","ph":"X","pid":3,"tid":0,"ts":6007000,"dur":100000,"args":{"co_id":2}},
{"name":"memcpy DtoH","ph":"X","pid":3,"tid":0,"ts":18000000,"dur":100000,"args":{"co_id":4}}
],"displayTimeUnit":"ns"}
J
	same "$(says t.json)" "$(ask t.json "")"
	run -0 bash -c 'mct-path -q t.json | mct-cat -o tsv --no-header -F kind,name,crit'
	same "$output" "launch	mcLaunchKernel	6000
kernel	big_kernel	5000000
kernel-wait	big_kernel	1000
kernel	memcpy HtoD	100000
sync	mcStreamSynchronize	0
launch	mcMemcpyAsync	7950000
kernel	memcpy DtoH	100000
sync	mcStreamSynchronize	0"
}

@test "-F: the breakdown's columns, chosen and ordered; a name it has not exits 2 naming its five; with -o ndjson or trace it does nothing, said" {
	tsv=$(mct-path -q -o tsv "$d/g.json")
	same "$(mct-path -q -o tsv -F share,bound,crit "$d/g.json")" \
	    "$(awk -F '\t' -v OFS='\t' '{ print $3, $1, $2 }' <<< "$tsv")"
	for f in kind,crit kind,crit,share,name bound,crit,segments,name,ts,dur; do
		run --separate-stderr mct-path -o table -F "$f" "$d/g.json"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[[ "${stderr_lines[0]}" == "mct-path: -F: no field '"@(kind|name)"' in the breakdown (bound crit share segments top)" ]]
	done
	for o in ndjson trace; do
		run -0 --separate-stderr mct-path -q -o $o -F kind,crit "$d/g.json"
		same "$stderr" "mct-path: -F: the columns of tsv, csv, table and md, ignored with -o $o"
		same "$output" "$(mct-path -q -o $o "$d/g.json")"
	done
}

@test "the breakdown's share: a percentage in table and md (as mct-group's tables), a plain number in tsv and csv, 100 * crit / total of the oracle's" {
	want=$(ask "$d/g.json" "" "${GEN_ASKS[@]}" | awk -F '\t' '
	    /^bound\t/ { k[++n] = $2; c[n] = $3; t += $3 }
	    END { for (i = 1; i <= n; i++) printf "%s\t%.2f\n", k[i], 100 * c[i] / t
		printf "total\t%.2f\n", 100 }' | sort)
	same "$(mct-path -q -o tsv --no-header -F bound,share "$d/g.json" | sort)" "$want"
	same "$(mct-path -q -o csv --no-header -F bound,share "$d/g.json" | tr , '\t' | sort)" "$want"
	same "$(mct-path -q -o table -F bound,share "$d/g.json" | sed 1d | awk '{ print $1 "\t" $2 }' | sort)" \
	    "$(sed 's/$/%/' <<< "$want")"
	same "$(mct-path -q -o md -F bound,share "$d/g.json" | sed 1,2d | awk -F ' *[|] *' '{ print $2 "\t" $3 }' | sort)" \
	    "$(sed 's/$/%/' <<< "$want")"
}

@test "options that do not go together exit 2 with the message; --only-path without -o trace is said to do nothing" {
	for s in all median; do
		run --separate-stderr mct-path --step 'ProfilerStep#1' --steps $s "$d/g.json"
		[ "$status" -eq 2 ]
		same "${stderr_lines[0]}" "mct-path: --step ProfilerStep#1: not with --steps $s (one step, or each)"
	done
	run --separate-stderr mct-path --from 30ms --to 10ms "$d/g.json"
	[ "$status" -eq 2 ]
	same "${stderr_lines[0]}" "mct-path: --from 30ms is after --to 10ms: no op in between"
	run -0 --separate-stderr mct-path -q --only-path -o table "$d/g.json"
	same "$stderr" "mct-path: --only-path: with -o trace only, ignored"
	same "$output" "$(mct-path -q -o table "$d/g.json")"
}

@test "--scale: the events it scaled counted, none said even with -q; the 33rd --scale is told the limit, a malformed one the form" {
	cat > t.json <<'J'
[{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":0,"dur":5,"args":{"correlation":1}},
{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":2}},
{"name":"k1","ph":"X","cat":"kernel","pid":0,"tid":7,"ts":6,"dur":4,"args":{"correlation":1}},
{"name":"k2","ph":"X","cat":"kernel","pid":0,"tid":7,"ts":20,"dur":50,"args":{"correlation":2}}]
J
	run -0 --separate-stderr mct-path -o table --scale 'name~^k=0.5' t.json
	same "${stderr_lines[2]}" "mct-path: --scale: 2 events scaled"
	run -0 --separate-stderr mct-path -q -o table --scale 'name~NoSuchKernelXYZ=0.5' t.json
	same "$stderr" "mct-path: --scale: no event matched: the path is as measured"
	a=()
	for i in $(seq 33); do a+=(--scale "name~x$i=0.5"); done
	run --separate-stderr mct-path "${a[@]}" t.json
	[ "$status" -eq 2 ]
	same "${stderr_lines[0]}" "mct-path: --scale 'name~x33=0.5': at most 32 --scale options"
	run --separate-stderr mct-path --scale foo t.json
	[ "$status" -eq 2 ]
	same "${stderr_lines[0]}" "mct-path: --scale 'foo': EXPR=F wanted"
}

@test "no path: a file that cannot be read says only why (--steps median too); a B/E trace without --pair-be is said to have no op" {
	for s in "" "--steps median"; do
		run --separate-stderr mct-path $s nosuch.json
		[ "$status" -eq 2 ]
		same "$stderr" "mct-path: nosuch.json: No such file or directory"
	done
	genf be.json --scale 0.002 --be
	run -0 --separate-stderr mct-path -o tsv --no-header be.json
	[ -z "$output" ]
	same "$stderr" "mct-path: no host op or device event: no path (B/E events count only with --pair-be)"
	run -0 --separate-stderr mct-path -o tsv --no-header --pair-be be.json
	[ -n "$output" ]
	[[ "${stderr_lines[0]}" == *" on the path ("* ]]
}

@test "correlation ids in a pattern that crowds a table (multiples of 4096, of 2^20): the oracle's path" {
	awk 'BEGIN { printf "{\"displayTimeUnit\":\"ns\",\"traceEvents\":["
	    for (i = 0; i < 3000; i++) {
		id = i % 3 ? i * 4096 : i * 1048576
		t = 1000000 + 3000 * i
		printf "%s{\"name\":\"mcLaunchKernel\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1000,\"args\":{\"co_id\":%d}},", i ? "," : "", t, id
		printf "{\"name\":\"k%d\",\"ph\":\"X\",\"pid\":2,\"tid\":0,\"ts\":%d,\"dur\":%d,\"args\":{\"co_id\":%d}}", i % 7, t + 1500, 500 + i % 5 * 900, id
	    }
	    print "]}" }' > ids.json
	same "$(says ids.json)" "$(ask ids.json "")"
	run -0 bash -c 'mct-path -q ids.json | mct-cat -o tsv --no-header -F kind | sort -u'
	[[ "$output" == *kernel* ]]
}

@test "docs: the man page and --help name every option" {
	docs
	for o in --step --steps --from --to --scale --only-path --quiet --rules --pair-be --fields \
	    --output --no-header --width --time-unit --unit --help --version; do
		mct-path --help | grep -q -- "$o" || { echo "help: $o"; return 1; }
		grep -q -- "${o#--}" "$MCT_SRCDIR/man/mct-path.1" ||
		    { echo "man: $o"; return 1; }
	done
	grep -q 'mct-path' "$MCT_SRCDIR/HACKING.md"
	grep -q 'path-job.c' "$MCT_SRCDIR/HACKING.md"
	grep -q 'mct-path' "$MCT_SRCDIR/README.md"
	# a message that begins with a macro's name renders whole
	if command -v mandoc > /dev/null; then
		mandoc -Tascii "$MCT_SRCDIR/man/mct-path.1" | col -b |
		    grep -q "mct-path: FILE: No such file or directory"
	fi
	grep -q '^.Ql mct-path: N steps on some ranks only: each analysed on the ranks that have it$' \
	    "$MCT_SRCDIR/man/mct-path.1"
}

@test "a stream of a few huge events: the room its file's size suggests is a guess; where it cannot be had (ulimit -v) the path is found as before" {
	# (a sanitizer's shadow memory needs more address space than any ulimit)
	! grep -q __asan_init "$(command -v mct-path)" ||
	    skip "a sanitizer build: ulimit -v leaves it no room"
	# 100 events of 1 MB each: a 100 MB stream whose size would suggest
	# a million events
	"$PYTHON3" -c '
import sys
pad = "x" * (1 << 20)
f = open(sys.argv[1], "w")
f.write("{\"name\":\"mct_header\",\"ph\":\"M\",\"args\":{\"version\":1,\"unit\":\"ns\",\"origin\":0,\"form\":\"object\",\"sorted\":false,\"top_before\":0,\"top\":{},\"sources\":[\"a\"]}}\n")
for i in range(100):
    f.write("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":5,\"args\":{\"pad\":\"%s\"}}\n" % (i, i * 10, pad))
' fat.nd
	want=$(mct-path -o tsv fat.nd 2>&1; echo "rc $?")
	got=$(ulimit -v 40000; mct-path -o tsv fat.nd 2>&1; echo "rc $?")
	rm -f fat.nd
	same "$got" "$want"
	[[ "$got" != *"Cannot allocate memory"* ]]
}
