#!/usr/bin/env bats
# mct-phases.bats - the phases of the seed-shaped trace, its idle gap
# at 68.41-74.52 s, and every option, format and error of mct-phases(1).
#
# Expected values come from the seed's numbers (tests/phases_oracle.py seed,
# seedgap) or from tests/phases_oracle.py, python3's json reading the same
# stream and computing the six steps of the method, the idle gaps, the busy
# time (the union of the device intervals) and the host events in each gap
# on its own; never from output of mct-phases kept from an earlier run.

load helpers

setup_file() {
	light_trace
	local d="$BATS_FILE_TMPDIR"

	# The seed-shaped trace at full scale, its stream, and the custom
	# kernels alone; python's answers for them, computed once.
	genf "$d/t.json"
	mct-cat "$d/t.json" > "$d/t.nd"
	mct-filter --name 'kernel_kernel*' "$d/t.nd" > "$d/k.nd"
	printf '%s\n' "phases $d/t.nd" "gaps $d/t.nd" \
	    "phases --device-name '^kernel_kernel' $d/t.nd" \
	    "gaps --device-name '^kernel_kernel' $d/t.nd" "phases $d/k.nd" > "$d/q"
	pyo batch "$d/q" "$d/t.nd" "$d/k.nd" > "$d/a"
	batch_answer "$d/a" 1 > "$d/t.phases"
	batch_answer "$d/a" 2 > "$d/t.gaps"
	batch_answer "$d/a" 3 > "$d/tk.phases"
	batch_answer "$d/a" 4 > "$d/tk.gaps"
	batch_answer "$d/a" 5 > "$d/k.phases"

	# Each Kineto fixture: its stream, mct-phases' outputs that the
	# fixtures' tests check, and python's answers, one process a fixture.
	[ -d "$fixtures" ] && [ "${MCT_TEST_SLOW:-1}" != 0 ] || return 0
	local f b n=0
	mkdir "$d/kx"
	for f in "$fixtures"/kineto-*; do
		[ -f "$f" ] || continue
		b=$d/kx/$n
		n=$((n + 1))
		echo "$f" > "$b.name"
		mct-cat "$f" > "$b.nd"
		mct-phases --gaps "$f" > "$b.gaps" 2> "$b.err"
		echo $? > "$b.rc"
		mct-phases "$b.nd" > "$b.phases"
		mct-phases --only-gaps "$b.nd" > "$b.only"
		printf '%s\n' "fmt $b.gaps" "windows $b.nd $b.gaps" \
		    "fmt $b.phases" "phases $b.nd" "fmt $b.only" "gaps $b.nd" \
		    "nogap $b.nd" > "$b.q"
		pyo batch "$b.q" "$b".* > "$b.a"
	done
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	D="$BATS_FILE_TMPDIR"
}

# The oracle of this file.
pyo() {
	oracle phases_oracle.py "$@"
}

# mct-phases into out (stdout) and err; its exit status in $status.
phases_to() {
	mct-phases "$@" > out 2> err && status=0 || status=$?
}

# A small trace in Chrome's unit (us) from lines NAME|TS|DUR|CAT|GRID|PID
# on stdin.  An empty CAT writes no cat key; PID defaults to 0 for the
# device categories and to 100 (a host lane) for the others.
mk() {
	awk -F'|' '
	BEGIN { printf "{\"traceEvents\":[" }
	{
		pid = $6 != "" ? $6 : ($4 ~ /^(kernel|gpu_memcpy|gpu_memset)$/ ? 0 : 100)
		printf "%s\n{\"name\":\"%s\",\"ph\":\"X\",\"ts\":%s,\"dur\":%s,\"pid\":%s,\"tid\":1",
		    (NR > 1 ? "," : ""), $1, $2, $3, pid
		if ($4 != "")
			printf ",\"cat\":\"%s\"", $4
		if ($5 != "")
			printf ",\"args\":{\"grid\":%s}", $5
		printf "}"
	}
	END { print "\n]}" }'
}

# N calls of NAME, PERIOD us apart from START, each DUR long: mk lines.
calls() {
	local name=$1 n=$2 start=$3 period=$4 dur=$5 grid=${6:-} i

	for ((i = 0; i < n; i++)); do
		echo "$name|$((start + i * period))|$dur|kernel|$grid|"
	done
}

# The phase kinds of mct-phases' ndjson output on stdin, one line.
kinds() {
	pyo fmt | cut -f1 | tr '\n' ' ' | sed 's/ $//'
}

# Every usage error: exit 2, nothing on stdout, the message and one
# "Try" line on stderr.
usage_error() {
	local want=$1

	shift
	run --separate-stderr mct-phases "$@" "$D/k.nd"
	echo "mct-phases $*: status $status, stderr: $stderr"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == *"$want"* ]]
	[[ "$stderr" == *"Try 'mct-phases --help' for more information."* ]]
}

# --- the phases of the seed-shaped trace ---------------------------------

@test "the seed-shaped trace's phases on the unfiltered device lanes: init, the 520 and 260 warmups, 110 rounds of 2056, switch, 110 rounds of 1028" {
	phases_to "$D/t.nd"
	[ "$status" -eq 0 ]
	same "$(cat err)" ""
	pyo seed out
}

@test "the seed-shaped trace's phases on mct-filter --name 'kernel_kernel*' alone: the same phases" {
	mct-filter --name 'kernel_kernel*' "$D/t.nd" | mct-phases > out
	pyo seed out
}

@test "the seed-shaped trace's phases as TSV in seconds: the two steady phases, 110 rounds each, boundaries within 0.1 s" {
	mct-phases -o tsv --time-unit s --no-header "$D/k.nd" > out
	awk -F '\t' '$1 == "steady"' out > steady
	same "$(wc -l < steady)" 2
	run awk -F '\t' '
	function near(x, y) { return x - y < 0.1 && y - x < 0.1 }
	NR == 1 && near($2, 26.57) && near($3, 68.41) && $7 == 110 { ok++ }
	NR == 2 && near($2, 74.52) && near($3, 80.22) && $7 == 110 { ok++ }
	END { exit ok != 2 }' steady
	[ "$status" -eq 0 ]
}

@test "the seed-shaped trace's phases with --device 'name~^kernel_kernel' on the unfiltered trace: the same phases" {
	mct-phases --device 'name~^kernel_kernel' "$D/t.nd" > out
	pyo seed out
}

@test "the six steps: phases on the device lanes equal python's, boundaries, rounds, events, busy and anchors exactly" {
	mct-phases "$D/t.nd" | pyo fmt > got
	same "$(cat got)" "$(cat "$D/t.phases")"
}

@test "the six steps: phases of the custom kernels alone equal python's exactly" {
	mct-phases "$D/k.nd" | pyo fmt > got
	same "$(cat got)" "$(cat "$D/k.phases")"
}

@test "the six steps: --device 'name~^kernel_kernel' on the unfiltered trace equals python's exactly" {
	mct-phases --device 'name~^kernel_kernel' "$D/t.nd" | pyo fmt > got
	same "$(cat got)" "$(cat "$D/tk.phases")"
}

@test "busy of every phase is python's union of the device intervals in [start, end); events equal" {
	mct-phases "$D/t.nd" > out
	pyo windows "$D/t.nd" out > want
	pyo fmt out | cut -f5,6 > got
	same "$(cat got)" "$(cat want)"
	# and busy_pct is busy / span
	"$PYTHON3" -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("ph") != "X":
        continue
    want = 100.0 * r["busy"] / r["span"] if r["span"] else 0
    assert abs(r["busy_pct"] - want) < 1e-9, (r["busy_pct"], want)
' out
}

@test "busy and events of the custom kernels' phases equal python's" {
	mct-phases "$D/k.nd" > out
	pyo windows "$D/k.nd" out > want
	pyo fmt out | cut -f5,6 > got
	same "$(cat got)" "$(cat want)"
}

@test "sections and shuffle layouts: the seed's phases and gaps, the same as the sorted trace" {
	mct-phases --gaps "$D/t.nd" | pyo fmt > base
	for l in sections shuffle; do
		echo "layout $l"
		genf "$l.json" --layout "$l"
		mct-cat "$l.json" > "$l.nd"
		mct-phases --gaps "$l.nd" > out
		pyo seed out
		pyo fmt out > got
		same "$(cat got)" "$(cat base)"
		mct-filter --name 'kernel_kernel*' "$l.nd" | mct-phases > out
		pyo seed out
		pyo fmt out > got
		same "$(cat got)" "$(cat "$D/k.phases")"
	done
}

@test "a trace read directly gives what its stream gives" {
	mct-phases --gaps "$D/t.json" | pyo fmt > got
	same "$(cat got)" "$(cat "$D/t.phases" "$D/t.gaps")"
}

@test "a trace in microseconds (fractions) gives what the same trace in nanoseconds gives" {
	genf ns.json --scale 0.05
	genf us.json --scale 0.05 --unit us
	grep -q '"ts":[0-9]*\.[0-9]' us.json
	mct-phases --gaps ns.json | pyo fmt > want
	mct-phases --gaps us.json | pyo fmt > got
	[ -s want ]
	same "$(cat got)" "$(cat want)"
}

# --- gaps ----------------------------------------------------------------

@test "--gaps on the device lanes: every idle gap over the automatic threshold, host events equal python's" {
	mct-phases --gaps "$D/t.nd" > out
	pyo fmt out | grep '^gap' > got
	same "$(cat got)" "$(cat "$D/t.gaps")"
	# the phases are listed too, before the gaps
	pyo fmt out | head -1 | grep -q '^init'
}

@test "--only-gaps --device 'name~^kernel_kernel': the 68.41-74.52 s stretch, host events ranked as python ranks them" {
	mct-phases --only-gaps --device 'name~^kernel_kernel' "$D/t.nd" > out
	pyo seedgap out
	pyo fmt out > got
	same "$(cat got)" "$(cat "$D/tk.gaps")"
	# three host names with their overlap in every gap
	run grep -c $'^gap\t[0-9]*\t[0-9]*\t[^;]*=[0-9]*;[^;]*=[0-9]*;[^;]*=[0-9]*$' got
	same "$output" "$(wc -l < got)"
}

@test "an idle gap is explained by the host: the host side of the 68.41-74.52 s gap holds the long mcDeviceSynchronize (366.88 ms) and mcStreamSynchronize (82.88 ms)" {
	mct-phases --only-gaps --device 'name~^kernel_kernel' "$D/t.nd" > out
	"$PYTHON3" -c '
import json, sys
for l in open(sys.argv[1]):
    g = json.loads(l)
    if g.get("phase") == "gap" and abs(g["start"] / 1e9 - 68.41) < 0.1:
        host = dict((h["name"], h["overlap"]) for h in g["host"])
        print(host)
        assert host.get("mcDeviceSynchronize", 0) >= 366.88e6
        assert host.get("mcStreamSynchronize", 0) >= 82.88e6
        sys.exit(0)
sys.exit(1)
' out
}

@test "--gaps on the custom kernels alone: the 68.41-74.52 s gap, nothing on the host (there is none), as python finds" {
	mct-phases --gaps "$D/k.nd" > out
	pyo seedgap out
	pyo fmt out | grep '^gap' > got
	pyo gaps "$D/k.nd" > want
	same "$(cat got)" "$(cat want)"
	grep -q $'^gap\t68[0-9]*\t74[0-9]*\t-$' got
}

@test "--only-gaps lists gaps only" {
	mct-phases --only-gaps "$D/t.nd" | pyo fmt > got
	same "$(cat got)" "$(cat "$D/t.gaps")"
	mct-phases -o tsv --no-header --only-gaps "$D/t.nd" | cut -f1 | sort -u > kinds
	same "$(cat kinds)" "gap"
}

@test "--gap T: gaps longer than T only, and --gap alone lists them" {
	mct-phases --gap 6s --device 'name~^kernel_kernel' "$D/t.nd" > out
	pyo fmt out | grep '^gap' > got
	pyo gaps --gap 6000000000 --device-name '^kernel_kernel' "$D/t.nd" > want
	same "$(cat got)" "$(cat want)"
	# of the three long stretches (6.39, 5.80, 6.11 s) two are over 6 s
	same "$(wc -l < got)" 2
	pyo seedgap out
	# the phases are still there
	pyo seed out
	mct-phases --gap 5s --device 'name~^kernel_kernel' "$D/t.nd" | pyo fmt | grep -c '^gap' > n
	same "$(cat n)" 3
}


@test "--gaps -o table or md with no gap to list says so on stderr, the --gap in force as a duration, each rank's; exit 0; a gap listed, or a machine format, says nothing" {
	{
		echo "k|0|100|kernel||"
		echo "k|100|100|kernel||"
		echo "k|3000|100|kernel||"		# a 2.8 ms gap
	} | mk > small.json
	run -0 --separate-stderr mct-phases --only-gaps --gap 3ms -o table small.json
	same "$stderr" "mct-phases: no idle gap longer than 3.00 ms"
	same "$output" "phase  start  end  span  events  busy_pct  rounds  round  top"
	run -0 --separate-stderr mct-phases --gaps -o md small.json
	same "$stderr" ""
	same "$(printf '%s\n' "$output" | grep -c '^| gap |')" 1
	# the automatic --gap: 1% of the span, at least 1 ms
	{ echo "k|0|100|kernel||"; echo "k|100|100|kernel||"; } | mk > none.json
	run -0 --separate-stderr mct-phases --gaps -o md none.json
	same "$stderr" "mct-phases: no idle gap longer than 1.00 ms"
	# a machine format, or -o trace, says nothing (as of intact input)
	for o in tsv csv ndjson trace; do
		run -0 --separate-stderr mct-phases --gaps -o $o none.json
		same "$stderr" ""
	done
	# without --gaps nothing is looked for, nothing said
	run -0 --separate-stderr mct-phases -o table none.json
	same "$stderr" ""
	# each rank's, in the rows' order
	mct-cat --rank order small.json none.json > two.nd
	run -0 --separate-stderr mct-phases --only-gaps --gap 2ms -o table two.nd
	same "$stderr" "mct-phases: rank 1: no idle gap longer than 2.00 ms"
}
@test "--gap automatic: 1% of the device span, but at least 1 ms; host events ranked by overlap, ties by name" {
	{
		echo "k|0|100|kernel||"
		echo "k|600|100|kernel||"		# a 0.5 ms gap: not listed
		echo "k|3000|100|kernel||"		# a 2.3 ms gap: listed
		echo "k|4000|100|kernel||"		# a 0.9 ms gap: not listed
		echo "sleep|1000|1500|cpu_op||"
		echo "b_call|2600|400|cpu_op||101"	# a lane of its own: not
		echo "a_call|2600|200|cpu_op||"		# a frame around a_call
		echo "a_call|2800|200|cpu_op||"
		echo "before|0|50|cpu_op||"
	} | mk > small.json
	mct-phases --only-gaps small.json | pyo fmt > got
	same "$(cat got)" $'gap\t700000\t3000000\tsleep=1500000;a_call=400000;b_call=400000'
	mct-cat small.json | pyo gaps > want
	same "$(cat want)" "$(cat got)"
	# with --gap 400us the 0.5 and 0.9 ms gaps are listed too
	mct-phases --only-gaps --gap 400us small.json | pyo fmt | cut -f2,3 > got
	same "$(cat got)" $'100000\t600000\n700000\t3000000\n3100000\t4000000'
}

@test "gaps: with --device narrowing the device side, the host side stays the host lanes (device copies are neither)" {
	{
		echo "kernel_kernel|0|100|||2"
		echo "memcpy DTOD|200|3000|||3"
		echo "mcDeviceSynchronize|150|3000|||1"
		echo "kernel_kernel|5000|100|||2"
		echo "kernel_kernel|5200|100|||\"2\""
	} | mk > lanes.json
	mct-phases --only-gaps --device 'name==kernel_kernel' lanes.json | pyo fmt > got
	same "$(cat got)" $'gap\t100000\t5000000\tmcDeviceSynchronize=3000000'
	# on the device lanes (pid 2 and 3, a string pid too) the copy is device work
	mct-phases --only-gaps lanes.json | pyo fmt > got
	same "$(cat got)" $'gap\t3200000\t5000000\t-'
}

# --- the Kineto fixtures -------------------------------------------------

@test "Kineto fixtures: exit 0, output parses, events and busy of every phase equal python's" {
	slow
	need_fixtures
	n=0
	for b in $(kineto_fixtures); do
		echo "fixture $(cat "$b.name")"
		same "$(cat "$b.rc")" 0
		same "$(cat "$b.err")" ""
		# -o md: where no gap is listed, that none is longer than the
		# threshold (python's)
		mct-phases --gaps -o md "$b.nd" 2> err > /dev/null
		same "$(sed 's/^mct-phases: \(rank [0-9]*: \)\{0,1\}//' err)" \
		    "$(batch_answer "$b.a" 7)"
		batch_answer "$b.a" 1 > got
		[ -s got ]
		batch_answer "$b.a" 2 > want
		grep -v '^gap' got | cut -f5,6 > gotw
		same "$(cat gotw)" "$(cat want)"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || skip "no kineto-* fixture in $fixtures"
}

@test "Kineto fixtures: the phases equal python's six steps" {
	slow
	need_fixtures
	for b in $(kineto_fixtures); do
		echo "fixture $(cat "$b.name")"
		batch_answer "$b.a" 3 > got
		batch_answer "$b.a" 4 > want
		same "$(cat got)" "$(cat want)"
	done
}

@test "Kineto fixtures: the idle gaps and their host events equal python's" {
	slow
	need_fixtures
	for b in $(kineto_fixtures); do
		echo "fixture $(cat "$b.name")"
		batch_answer "$b.a" 5 > got
		batch_answer "$b.a" 6 > want
		same "$(cat got)" "$(cat want)"
	done
}

@test "a bare ProfilerStep# (no digit after the #) is no step: the rounds are the profiler's steps without it, as python's" {
	bare_step > bare.json
	mct-cat bare.json > bare.nd
	mct-phases -o ndjson bare.nd | pyo fmt > got
	same "$(cat got)" "$(pyo phases bare.nd)"
	# (as a step it made one run of all four: one steady phase, no init)
	same "$(mct-phases -o ndjson bare.nd | kinds)" "init steady tail"
}

@test "one-off calls are those of the anchors' own names, also when a name has spaces (void f<int>(int))" {
	# Kineto's kernel names start with "void ": a steady run of one of them
	# must not make every other "void ..." kernel a warmup.
	{
		echo "void bar()|0|1000|kernel||"
		echo "void foo<int>(int)|50000|5000|kernel|[2,1,1]|"
		calls 'void foo<int>(int)' 10 100000 10000 5000 '[1,1,1]'
		echo "void bar()|300000|1000|kernel||"
	} | mk > void.json
	mct-phases void.json > out
	same "$(kinds < out)" "init warmup switch steady tail"
	mct-cat void.json | pyo phases > want
	pyo fmt out > got
	same "$(cat got)" "$(cat want)"
}

# --- options ------------------------------------------------------------

@test "-k/--key name: one signature a kernel name; the seed's phases, as python finds them" {
	mct-phases -k name "$D/k.nd" > out
	same "$(kinds < out)" "init warmup switch warmup switch steady switch steady"
	pyo fmt out > got
	pyo phases --key name "$D/k.nd" > want
	same "$(cat got)" "$(cat want)"
	mct-phases --key name "$D/k.nd" | pyo fmt > got2
	same "$(cat got2)" "$(cat got)"
	grep -q $'^steady\t.*\tkernel_kernel=110:[0-9]*;kernel_kernel_1=110:[0-9]*$' got
}

@test "-k args.grid: the one-off calls of the anchors' kernels are still the seed's warmups" {
	mct-phases -k args.grid "$D/k.nd" > out
	pyo seed out
	pyo fmt out > got
	pyo phases --key args.grid "$D/k.nd" > want
	same "$(cat got)" "$(cat want)"
}

@test "-k: an empty field list is a usage error" {
	usage_error "--key" -k ''
}

@test "--device EXPR: a bad expression or a missing argument exits 2" {
	usage_error "--device" --device 'name=='
	usage_error "--device" --device 'name~('
	run --separate-stderr mct-phases --device
	[ "$status" -eq 2 ]
}

@test "--device with --rules: a category of one's own rules file selects the device work" {
	printf '# the custom kernels\nmoe\tname~^kernel_kernel\n' > my.rules
	mct-phases --rules my.rules --device 'category==moe' "$D/t.nd" > out
	pyo seed out
	pyo fmt out > got
	same "$(cat got)" "$(cat "$D/tk.phases")"
}

@test "--rules FILE with -k category: signatures are the file's labels" {
	printf 'big\targs.grid==[2056,32,1] || args.grid==[2056,56,1]\nsmall\targs.grid==[1028,16,1] || args.grid==[1028,28,1]\nother\tname~.\n' > grid.rules
	mct-phases --rules grid.rules -k category "$D/k.nd" > out
	"$PYTHON3" -c '
import json, sys
st = [r for r in map(json.loads, open(sys.argv[1]))
      if r.get("phase") == "steady"]
got = [(a["key"], a["calls"]) for r in st for a in r["anchors"]]
print(got)
assert got == [("big", 220), ("small", 220)], got
assert [r["rounds"] for r in st] == [220, 220]
' out
}

@test "--rules: a missing rules file is an error once a category is needed (exit 2)" {
	run --separate-stderr mct-phases --rules /nonexistent/x.rules -k category "$D/k.nd"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"/nonexistent/x.rules"* ]]
}

@test "--min-rounds N: a steady phase repeats at least N times" {
	# 111: no run of the seed repeats 111 times, so there is no steady
	# phase and no warmup, and the whole trace is init
	mct-phases --min-rounds 111 "$D/k.nd" > out
	same "$(kinds < out)" "init"
	pyo fmt out > got
	pyo phases --min-rounds 111 "$D/k.nd" > want
	same "$(cat got)" "$(cat want)"
	mct-phases --min-rounds 110 "$D/k.nd" > out
	pyo seed out
	mct-phases --min-rounds 2 "$D/t.nd" | pyo fmt > got
	pyo phases --min-rounds 2 "$D/t.nd" > want
	same "$(cat got)" "$(cat want)"
}

@test "--min-rounds: bad values exit 2" {
	for v in 1 0 -3 x 3x ''; do
		usage_error "--min-rounds" --min-rounds "$v"
	done
}

@test "--min-rounds: a fraction is not a number of rounds (exit 2)" {
	usage_error "--min-rounds" --min-rounds 2.5
}

@test "--min-share P: only the (2056,32,1) run holds 50% of the device time; the 1028 run becomes one-off calls" {
	mct-phases --min-share 50 "$D/k.nd" > out
	pyo fmt out > got
	pyo phases --min-share 50 "$D/k.nd" > want
	same "$(cat got)" "$(cat want)"
	# the steady phase ends with the last kernel_kernel of the run
	grep -Eq $'^steady\t2657[0-9]{7}\t683[0-9]{8}\t110\t.*\tkernel_kernel \\[2056,32,1\\] \\[128,1,1\\]=110:[0-9]+$' got
	grep -Eq $'^warmup\t745[0-9]{8}\t802[0-9]{8}\t110\t' got
}

@test "--min-share: bad values exit 2" {
	for v in 101 -1 x ''; do
		usage_error "--min-share" --min-share "$v"
	done
}

@test "--split X: a pause over X times the median pause ends a run" {
	{
		calls s 10 0 10000 2000
		calls s 10 200000 10000 2000
	} | mk > split.json
	mct-phases split.json | pyo fmt > got
	same "$(cut -f1-4 got)" $'steady\t0\t92000000\t10\nswitch\t92000000\t200000000\t0\nsteady\t200000000\t292000000\t10'
	mct-phases --split 20 split.json | pyo fmt > got
	same "$(cut -f1-4 got)" $'steady\t0\t292000000\t20'
	mct-cat split.json > split.nd
	for x in 5 11.5 20; do
		mct-phases --split "$x" split.nd | pyo fmt > got
		pyo phases --split "$x" split.nd > want
		same "$(cat got)" "$(cat want)"
	done
	mct-phases --split 1.5 "$D/k.nd" | pyo fmt > got
	pyo phases --split 1.5 "$D/k.nd" > want
	same "$(cat got)" "$(cat want)"
}

@test "--split X: times the median pause, not the shortest one" {
	# pauses of 16 and 4 ms (the median is 16 ms), and one of 50 ms
	for t in 0 16 20 36 40 56 60 76 80 96 146 162 166 182 186 202 206 222 226 242; do
		echo "m|$((t * 1000))|2000|kernel||"
	done | mk > median.json
	# 5 x 16 ms = 80 ms: the 50 ms pause does not end the run
	mct-phases median.json | pyo fmt | cut -f1-4 > got
	same "$(cat got)" $'steady\t0\t244000000\t20'
	# 3 x 16 = 48 ms does; 3.2 x 16 = 51.2 ms does not
	mct-phases --split 3 median.json | pyo fmt | cut -f1-4 > got
	same "$(cat got)" $'steady\t0\t98000000\t10\nswitch\t98000000\t146000000\t0\nsteady\t146000000\t244000000\t10'
	mct-phases --split 3.2 median.json | pyo fmt | cut -f1-4 > got
	same "$(cat got)" $'steady\t0\t244000000\t20'
}

@test "--split: bad values exit 2" {
	for v in 1 0.5 -2 x ''; do
		usage_error "--split" --split "$v"
	done
}

@test "--overlap P: runs covering each other by P% share a phase; in part only, the lighter is dropped" {
	{
		calls a 10 0 10000 8000
		calls b 10 50000 10000 4000
	} | mk > ov.json
	# a [0, 98 ms), b [50, 144 ms): they share 48 ms, 49% of a, 51% of b
	mct-phases ov.json | pyo fmt > got
	same "$(cat got)" $'steady\t0\t98000000\t10\t15\t80000000\ta=10:8000000\ntail\t98000000\t144000000\t0\t5\t20000000\t-'
	mct-phases --overlap 45 ov.json | pyo fmt > got
	same "$(cat got)" $'steady\t0\t144000000\t10\t20\t100000000\ta=10:8000000;b=10:4000000'
	mct-cat ov.json > ov.nd
	for p in 45 49 50 80; do
		mct-phases --overlap "$p" ov.nd | pyo fmt > got
		pyo phases --overlap "$p" ov.nd > want
		same "$(cat got)" "$(cat want)"
	done
}

@test "--overlap: bad values exit 2" {
	for v in 0 101 x ''; do
		usage_error "--overlap" --overlap "$v"
	done
}

@test "--join T: one-off calls closer than T form one warmup" {
	# 10 s joins the 14.29 s and 20.76 s cases into one warmup
	mct-phases --join 10s "$D/k.nd" > out
	same "$(kinds < out)" "init warmup switch steady switch steady"
	pyo fmt out > got
	pyo phases --join 10000000000 "$D/k.nd" > want
	same "$(cat got)" "$(cat want)"
	grep -Eq $'^warmup\t1428[0-9]{7}\t2077[0-9]{7}\t1\t4\t' got
	# 0: every call that does not touch the one before is its own case
	mct-phases --join 0 "$D/k.nd" | pyo fmt > got
	pyo phases --join 0 "$D/k.nd" > want
	same "$(cat got)" "$(cat want)"
	# the default, 1% of the device span (0.66 s here): the seed's two
	mct-phases --join 660ms "$D/k.nd" > out
	pyo seed out
}

@test "--join: bad values exit 2" {
	for v in -1s xyz 1x ''; do
		usage_error "--join" --join "$v"
	done
}

@test "-o ndjson: the header line first, then one record a line with the documented keys" {
	mct-phases -o ndjson --gaps "$D/t.nd" > out
	head -1 out | grep -q '^{"name":"mct_header"'
	same "$(head -1 out)" "$(head -1 "$D/t.nd")"
	"$PYTHON3" -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
ph = ["name", "ph", "ts", "dur", "pid", "tid", "phase", "start", "end",
      "span", "events", "busy", "busy_pct", "rounds", "round", "anchors", "top"]
gap = ["name", "ph", "ts", "dur", "pid", "tid", "phase", "start", "end",
       "span", "host"]
for l in lines[1:]:
    r = json.loads(l)
    keys = gap if r["phase"] == "gap" else ph
    assert list(r) == keys, (list(r), keys)
    assert r["ph"] == "X" and r["pid"] == 1000000
    assert r["tid"] == (2 if r["phase"] == "gap" else 1)
    assert r["ts"] - r["start"] == json.loads(lines[0])["args"]["origin"]
    assert r["dur"] == r["span"] == r["end"] - r["start"]
    for a in r.get("anchors", []):
        assert list(a) == ["key", "calls", "mean"]
    for a in r.get("top", []):
        assert list(a) == ["key", "calls", "total"]
    for h in r.get("host", []):
        assert list(h) == ["name", "overlap"]
    if r["phase"] in ("steady", "warmup"):
        assert r["name"].startswith(r["phase"] + ": " + r["anchors"][0]["key"])
    elif r["phase"] != "gap":
        assert r["name"] == r["phase"] and r["round"] is None
    else:
        assert r["name"] == "gap"
' out
	# the records can be filtered again
	same "$(mct-phases "$D/t.nd" | mct-filter --where 'phase==steady' -c)" 2
}

@test "-o ndjson: top holds the signatures with most device time starting in the phase, as python counts them" {
	mct-phases "$D/t.nd" > out
	"$PYTHON3" - "$D/t.nd" out <<'EOF'
import json, sys
origin = None
dev = []
for i, l in enumerate(open(sys.argv[1])):
    e = json.loads(l)
    if i == 0:
        origin = e["args"]["origin"]
        continue
    if e.get("ph") == "X" and str(e.get("pid")) in ("2", "3"):
        a = e.get("args", {})
        key = " ".join([e["name"]] + [json.dumps(a[k], separators=(",", ":"))
                                      for k in ("grid", "block") if k in a])
        dev.append((e["ts"], e["dur"], key))
for l in open(sys.argv[2]):
    r = json.loads(l)
    if r.get("ph") != "X":
        continue
    acc = {}
    for ts, dur, key in dev:
        if r["ts"] <= ts < r["ts"] + r["dur"]:
            c = acc.setdefault(key, [0, 0])
            c[0] += 1
            c[1] += dur
    want = sorted(acc.items(), key=lambda kv: -kv[1][1])[:3]
    got = [(t["key"], [t["calls"], t["total"]]) for t in r["top"]]
    assert [g[1][1] for g in got] == [w[1][1] for w in want], (got, want)
    assert sorted(got) == sorted(want), (got, want)
EOF
}

@test "-o trace: the phases as a track, wrapped beside the trace with mct-cat --wrap, load in python" {
	mct-phases -o trace --gaps "$D/t.json" > phases.ndjson
	head -1 phases.ndjson | grep -q '^{"name":"mct_header"'
	mct-cat "$D/t.json" | mct-cat --wrap - phases.ndjson > both.json
	mct-phases --gaps "$D/t.nd" > plain
	"$PYTHON3" - both.json plain "$D/t.json" <<'EOF'
import json, sys
both = json.load(open(sys.argv[1]))
orig = json.load(open(sys.argv[3]))
plain = [json.loads(l) for l in open(sys.argv[2])][1:]
ev = both["traceEvents"]
mine = [e for e in ev if e.get("pid") == 1000000]
assert len(ev) == len(orig["traceEvents"]) + len(mine)
assert ev[:len(orig["traceEvents"])] == orig["traceEvents"]
meta = [e for e in mine if e["ph"] == "M"]
assert [(e["name"], e["tid"], e["args"]["name"]) for e in meta] == [
    ("process_name", 0, "mct phases"), ("thread_name", 1, "phases"),
    ("thread_name", 2, "idle gaps")], meta
x = [e for e in mine if e["ph"] == "X"]
assert len(x) == len(plain) > 8
for e, p in zip(x, plain):
    assert e["name"] == p["name"] and e["ts"] == p["ts"] and \
        e["dur"] == p["dur"] and e["tid"] == p["tid"], (e, p)
    assert e["args"] == dict((k, v) for k, v in p.items() if k not in
                             ("name", "ph", "ts", "dur", "pid", "tid")), e
for k in orig:
    if k != "traceEvents":
        assert both[k] == orig[k]
EOF
}

@test "-o trace: in a microsecond trace the track's ts and dur come back in microseconds" {
	genf us.json --scale 0.05 --unit us
	mct-phases -o trace us.json > phases.ndjson
	mct-phases us.json > plain
	mct-cat --wrap us.json phases.ndjson > both.json
	"$PYTHON3" - both.json plain <<'EOF'
import json, sys
from decimal import Decimal
both = json.load(open(sys.argv[1]), parse_float=Decimal)
plain = [json.loads(l) for l in open(sys.argv[2])][1:]
x = [e for e in both["traceEvents"] if e.get("pid") == 1000000 and e["ph"] == "X"]
assert len(x) == len(plain) > 0
for e, p in zip(x, plain):
    assert Decimal(e["ts"]) * 1000 == p["ts"], (e["ts"], p["ts"])
    assert Decimal(e["dur"]) * 1000 == p["dur"], (e["dur"], p["dur"])
EOF
}

@test "-o tsv: a header line, nine columns, the phases of the ndjson output; --no-header drops the header" {
	mct-phases -o tsv --gaps "$D/t.nd" > out
	same "$(head -1 out)" $'phase\tstart\tend\tspan\tevents\tbusy_pct\trounds\tround\ttop'
	same "$(awk -F '\t' '{ print NF }' out | sort -u)" 9
	tail -n +2 out | cut -f1-3 > got
	mct-phases --gaps "$D/t.nd" | pyo fmt | cut -f1-3 > want
	same "$(cat got)" "$(cat want)"
	# events, rounds; round = span / rounds; busy is the percentage
	grep -v '^gap' out | tail -n +2 | cut -f5,7 | sed 's/\t$/\t0/' > got
	pyo fmt < <(mct-phases "$D/t.nd") | awk -F '\t' '{ print $5 "\t" $4 }' > want
	same "$(cat got)" "$(cat want)"
	awk -F '\t' '$1 == "steady" && $8 != int($4 / $7) { exit 1 }' out
	# start, end, span, events, busy % (2 decimals), rounds, round: python's
	"$PYTHON3" -c '
import sys
for l in open(sys.argv[1]):
    k, a, b, rounds, events, busy = l.split("\t")[:6]
    a, b, rounds, busy = int(a), int(b), int(rounds), int(busy)
    print("\t".join(str(x) for x in (
        k, a, b, b - a, events, "%.2f" % (100.0 * busy / (b - a)),
        rounds or "", (b - a) // rounds if rounds else "")))
' "$D/t.phases" > want
	grep -v '^gap' out | tail -n +2 | cut -f1-8 > got
	same "$(cat got)" "$(cat want)"
	mct-phases -o tsv --no-header --gaps "$D/t.nd" > nohead
	same "$(cat nohead)" "$(tail -n +2 out)"
}

@test "-o csv: RFC 4180, nine columns, the same rows as tsv; --no-header drops the header" {
	mct-phases -o csv --gaps "$D/t.nd" > out
	mct-phases -o tsv --gaps "$D/t.nd" > tsv
	"$PYTHON3" - out tsv <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
tsv = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
assert rows[0] == ["phase", "start", "end", "span", "events", "busy_pct",
                   "rounds", "round", "top"], rows[0]
assert all(len(r) == 9 for r in rows)
assert rows == tsv, [(a, b) for a, b in zip(rows, tsv) if a != b][:2]
EOF
	mct-phases -o csv --no-header --gaps "$D/t.nd" > nohead
	same "$(cat nohead)" "$(tail -n +2 out)"
}

@test "-o table: aligned columns with their header, one row a phase, times in seconds" {
	mct-phases -o table --gaps "$D/k.nd" > out
	same "$(head -1 out | tr -s ' ')" "phase start end span events busy_pct rounds round top"
	same "$(tail -n +2 out | awk '{ print $1 }' | tr '\n' ' ')" \
	    "$(mct-phases --gaps "$D/k.nd" | pyo fmt | cut -f1 | tr '\n' ' ')"
	grep -Eq '^steady +26\.570 s +68\.410 s .* 110 ' out
	grep -Eq '^steady +74\.520 s +80\.225 s .* 110 ' out
	# --no-header does not take a table's header away
	same "$(mct-phases -o table --no-header --gaps "$D/k.nd")" "$(cat out)"
}

@test "-o md: a Markdown table, the table's cells, | in a cell escaped" {
	mct-phases -o md --gaps "$D/k.nd" > out
	same "$(head -2 out)" $'| phase | start | end | span | events | busy_pct | rounds | round | top |\n|---|---|---|---|---|---|---|---|---|'
	same "$(tail -n +3 out | cut -d '|' -f2 | tr -d ' ' | tr '\n' ' ')" \
	    "$(mct-phases --gaps "$D/k.nd" | pyo fmt | cut -f1 | tr '\n' ' ')"
	grep -Eq '^\| steady \| 26\.570 s \| 68\.410 s \| .* \| 110 \| ' out
	# --no-header keeps a Markdown table's header
	same "$(mct-phases -o md --no-header --gaps "$D/k.nd")" "$(cat out)"
	"$PYTHON3" -c '
import json
ev = [{"name": "a|b", "ph": "X", "ts": i * 1000, "dur": 500, "pid": 0,
       "tid": 1, "cat": "kernel"} for i in range(5)]
print(json.dumps({"traceEvents": ev}))' > pipe.json
	mct-phases -o md pipe.json > out
	grep -qF '| a\|b x5 |' out
}

@test "-o: an unknown format exits 2" {
	usage_error "-o" -o json
	usage_error "-o" --output ''
}

@test "--time-unit: start, end, span, busy, round, mean, total and overlap scaled exactly; ts and dur stay ns" {
	mct-phases --gaps --device 'name~^kernel_kernel' "$D/t.nd" > ns
	for u in us ms s; do
		mct-phases --gaps --device 'name~^kernel_kernel' --time-unit "$u" "$D/t.nd" > "$u"
		"$PYTHON3" - ns "$u" "$u" <<'EOF'
import json, sys
from decimal import Decimal
div = {"us": 1000, "ms": 10**6, "s": 10**9}[sys.argv[3]]
a = [json.loads(l, parse_float=Decimal) for l in open(sys.argv[1])]
b = [json.loads(l, parse_float=Decimal) for l in open(sys.argv[2])]
assert a[0] == b[0]
def scaled(x, y, path):
    if isinstance(x, dict):
        for k in x:
            times = k in ("start", "end", "span", "busy", "round", "mean",
                          "total", "overlap")
            if times and x[k] is not None:
                assert Decimal(y[k]) == Decimal(x[k]) / div, (path, k, x[k], y[k])
            else:
                scaled(x[k], y[k], path + "." + k)
    elif isinstance(x, list):
        for i, (p, q) in enumerate(zip(x, y)):
            scaled(p, q, path + "[%d]" % i)
    else:
        assert x == y, (path, x, y)
for p, q in zip(a[1:], b[1:]):
    scaled(p, q, p["name"])
EOF
	done
	mct-phases -o tsv --no-header --time-unit ms "$D/k.nd" | cut -f2,3 > got
	"$PYTHON3" -c '
import sys
from decimal import Decimal
for l in open(sys.argv[1]):
    f = l.split("\t")
    print("\t".join(str(Decimal(int(x)) / 1000000).rstrip("0").rstrip(".")
                    if "." in str(Decimal(int(x)) / 1000000) else
                    str(int(x) // 1000000) for x in f[1:3]))
' "$D/k.phases" > want
	same "$(cat got)" "$(cat want)"
	grep -q $'^26570\\.[0-9]*\t68409\\.[0-9]*$' got
}

@test "--time-unit: auto and unknown units exit 2" {
	for v in auto min x ''; do
		usage_error "--time-unit" --time-unit "$v"
	done
}

@test "-u/--unit: the unit of a trace read directly scales every time" {
	{
		calls k 10 0 10000 2000
		echo "h|5|100000|cpu_op||"
	} | mk > u.json
	mct-phases u.json | pyo fmt > us
	mct-phases -u ms u.json | pyo fmt > ms
	mct-phases --unit ms u.json | pyo fmt > ms2
	same "$(cat ms2)" "$(cat ms)"
	same "$(cat us)" $'steady\t0\t92000000\t10\t10\t20000000\tk=10:2000000\ntail\t92000000\t100005000\t0\t0\t0\t-'
	same "$(cat ms)" $'steady\t0\t92000000000\t10\t10\t20000000000\tk=10:2000000000\ntail\t92000000000\t100005000000\t0\t0\t0\t-'
}

@test "-u: an unknown unit exits 2" {
	usage_error "--unit" -u parsec
	usage_error "--unit" --unit ''
}

# --- input, edge cases, exit status --------------------------------------

@test "no device events: the whole trace is one init phase; empty input gives only the header" {
	printf '%s\n' '[{"name":"h","ph":"X","ts":10,"dur":5,"pid":1,"tid":1},' \
	    '{"name":"h","ph":"X","ts":20,"dur":30,"pid":1,"tid":1}]' > host.json
	phases_to host.json
	[ "$status" -eq 0 ]
	same "$(pyo fmt out)" $'init\t0\t40000\t0\t0\t0\t-'
	phases_to --gaps /dev/null
	[ "$status" -eq 0 ]
	same "$(wc -l < out)" 1
	head -1 out | grep -q '^{"name":"mct_header"'
}

@test "a job of two ranks, over 32,768 device calls: each rank's phases and gaps are those of its own trace read alone" {
	gen --scale 1 --ranks 2 --slow-rank 1 --slow-factor 1.1 --out . \
	    > /dev/null
	mct-cat rank-0.json rank-1.json > job.nd
	mct-phases -o tsv --gaps job.nd > job.tsv
	# (the calls fill the array past its first mapped block)
	[ "$(awk -F '\t' '$2 != "gap" { n += $6 } END { print n }' job.tsv)" \
	    -gt 32768 ]
	for r in 0 1; do
		mct-phases -o tsv --gaps "rank-$r.json" > alone.tsv
		grep -q steady alone.tsv
		awk -F '\t' -v r="$r" 'NR == 1 || $1 == r' job.tsv > mine.tsv
		diff alone.tsv mine.tsv
	done
	! diff <(cut -f2- mine.tsv) <(grep '^0' job.tsv | cut -f2-) > /dev/null
}

@test "a rank with host events only: the other rank's phases the same whether they come before its device calls or after" {
	calls k 40 0 100 50 > dev
	calls k 40 9000 100 50 >> dev
	awk -F '|' '{ print "h" NR "|" ($2 + 30) "|20|cpu_op||" }' dev |
	    head -5 > host
	{ cat host dev; } | mk | sed 's/"pid":100,/"rank":1,&/; s/"pid":0,/"rank":0,&/' > first.json
	{ cat dev host; } | mk | sed 's/"pid":100,/"rank":1,&/; s/"pid":0,/"rank":0,&/' > last.json
	mct-phases -o tsv --gaps --gap 1ms first.json > first.tsv
	mct-phases -o tsv --gaps --gap 1ms last.json > last.tsv
	grep -q '^0	steady' last.tsv
	grep -q '^1	init' last.tsv
	diff first.tsv last.tsv
}

@test "device times that sum past int64: the sums stay at its end, not wrapped (b steady, not a; it was signed overflow)" {
	# ten calls of a, 100 ns; three of b, 4e18 ns each (each one a sane
	# time, their sum past int64)
	k='"ph":"X","cat":"kernel","pid":0'
	{
		printf '{"traceEvents":[\n'
		for i in 0 1 2 3 4 5 6 7 8 9; do
			printf '{%s,"tid":7,"name":"a","ts":%d,"dur":100},\n' "$k" $((i * 1000))
		done
		for i in 0 1 2; do
			printf '{%s,"tid":8,"name":"b","ts":2000%d,"dur":4000000000000000000}%s\n' \
			    "$k" $i "$([ $i -lt 2 ] && echo ,)"
		done
		printf ']}\n'
	} > big.json
	run --separate-stderr mct-phases -u ns -o tsv --no-header big.json
	[ "$status" -eq 0 ]
	same "$(printf '%s\n' "$output" | cut -f1,5,7,9)" "init	10		a x10
steady	3	3	b x3"
}

@test "a call whose end is past a sane time counts as of no time: the span is not wrapped negative (it was signed overflow)" {
	# each ts and dur a sane time (below 2^62 ns); the second call's end,
	# 8e18, is not, and the span from the first start would pass int64
	k='"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7'
	cat > ends.json <<-EOF
	{"traceEvents":[
	{$k,"ts":-4000000000000000000,"dur":100},
	{$k,"ts":4000000000000000000,"dur":4000000000000000000}]}
	EOF
	run --separate-stderr mct-phases -u ns -o tsv --no-header ends.json
	[ "$status" -eq 0 ]
	same "$(printf '%s\n' "$output" | cut -f1-4,6)" \
	    "init	0	8000000000000000000	8000000000000000000	0.00"
}

@test "a phase from an origin far before the calls: its span past int64 ns stays at its end, 9223372036854775807, not wrapped negative (it was signed overflow)" {
	# an instant at -9e18 sets the origin (any int64 may), the calls at
	# 4e18: init runs from the one to the other
	k='"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7'
	cat > far.json <<-EOF
	{"traceEvents":[{"name":"z","ph":"i","pid":1,"tid":1,"ts":-9000000000000000000},
	{$k,"ts":4000000000000000000,"dur":100},
	{$k,"ts":4000000000000001000,"dur":100},
	{$k,"ts":4000000000000002000,"dur":100}]}
	EOF
	run -0 --separate-stderr mct-phases -u ns far.json
	same "${lines[1]}" '{"name":"init","ph":"X","ts":-9000000000000000000,"dur":9223372036854775807,"pid":1000000,"tid":1,"phase":"init","start":0,"end":9223372036854775807,"span":9223372036854775807,"events":0,"busy":0,"busy_pct":0,"rounds":0,"round":null,"anchors":[],"top":[]}'
	run -0 --separate-stderr mct-phases -u ns -o tsv --no-header far.json
	same "$(printf '%s\n' "$output" | cut -f1-6)" "init	0	9223372036854775807	9223372036854775807	0	0.00
steady	9223372036854775807	9223372036854775807	2100	3	14.29"
}

@test "calls 2e18 ns apart are one run: --split times the pause, past int64, stays at its end instead of a negative limit that cut every call apart" {
	k='"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7'
	cat > apart.json <<-EOF
	{"traceEvents":[{$k,"ts":-3000000000000000000,"dur":100},
	{$k,"ts":-1000000000000000000,"dur":100},
	{$k,"ts":1000000000000000000,"dur":100},
	{$k,"ts":3000000000000000000,"dur":100}]}
	EOF
	run -0 --separate-stderr mct-phases -u ns -o tsv --no-header apart.json
	same "$output" "steady	0	6000000000000000100	6000000000000000100	4	0.00	4	1500000000000000025	a x4"
}

@test "damaged input: the intact events are used, exit 1, the damage reported" {
	head -c 4000000 "$D/t.json" > cut.json
	phases_to cut.json
	[ "$status" -eq 1 ]
	grep -q 'cut.json' err
	[ -s out ]
	pyo fmt out > /dev/null
}

@test "an unreadable file exits 2 with its name" {
	run --separate-stderr mct-phases /nonexistent/t.json
	[ "$status" -eq 2 ]
	same "$stderr" "mct-phases: /nonexistent/t.json: No such file or directory"
}

@test "--help: usage on stdout, every option listed; the man page's SYNOPSIS is the usage line" {
	docs
	run --separate-stderr mct-phases --help
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	for o in -k --key --device --gaps --only-gaps --gap --min-rounds \
	    --min-share --split --overlap --join --rules -o --output \
	    --no-header --time-unit -u --unit -h --help -V --version; do
		grep -qE -- "(^| )$o( |,|$)" <<<"$output" || { echo "$o missing"; return 1; }
	done
	command -v mandoc >/dev/null || skip "mandoc not installed"
	page="$MCT_SRCDIR/man/mct-phases.1"
	syn=$(mandoc -Tascii "$page" | col -b |
	    sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed '1d;$d' | tr -s ' \t\n' '   ' |
	    sed 's/^ //;s/ $//')
	same "usage: $syn" "${lines[0]}"
}

@test "the man page: every record field and phase kind is described, and it lints clean" {
	docs
	page="$MCT_SRCDIR/man/mct-phases.1"
	[ -f "$page" ]
	for w in init warmup steady switch tail gap name ph ts dur pid tid phase \
	    start end span events busy busy_pct rounds round anchors key calls \
	    mean top total host overlap 1000000 "mct phases" "idle gaps"; do
		grep -qw -- "$w" "$page" || { echo "$w is not in $page"; return 1; }
	done
	command -v mandoc >/dev/null || skip "mandoc not installed"
	run mandoc -Tlint -W warning "$page"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the man page's EXAMPLES run on the seed-shaped trace" {
	cp "$D/t.json" t.json
	mct-cat t.json | mct-phases > e1
	pyo seed e1
	mct-cat t.json | mct-filter --name 'kernel_kernel*' | mct-phases > e2
	pyo seed e2
	mct-phases --only-gaps --device 'name~^kernel_kernel' t.json > e3
	pyo seedgap e3
	mct-phases -o trace t.json > phases.ndjson
	mct-cat t.json | mct-cat --wrap - phases.ndjson > both.json
	"$PYTHON3" -c 'import json, sys; json.load(open(sys.argv[1]))' both.json
	mct-cat t.json | mct-phases -o tsv --time-unit s | awk -F '\t' '$1 == "steady" { print $7 }' > e5
	same "$(cat e5)" $'110\n110'
}

@test "downstream, span, busy and round are times like ts: --where takes units, -o tsv --time-unit scales them" {
	mct-phases --device 'name~^kernel_kernel' "$D/t.nd" > ph.nd
	run mct-filter -c --where 'span > 5s' ph.nd
	[ "$status" -eq 0 ]
	want=$("$PYTHON3" -c '
import json, sys
print(sum(1 for l in open(sys.argv[1])
          if (lambda r: isinstance(r.get("span"), int) and r["span"] > 5 * 10**9)(json.loads(l))))' ph.nd)
	[ "$want" -gt 0 ]
	same "$output" "$want"
	mct-filter --where 'round >= 1ms' -o tsv --no-header --time-unit ms -F name,span,busy,round ph.nd > got
	"$PYTHON3" - ph.nd > want <<'EOF2'
import json, sys
from decimal import Decimal
def ms(x):
    return str(Decimal(x) / 1000000).rstrip("0").rstrip(".") if "." in str(Decimal(x) / 1000000) else str(Decimal(x) / 1000000)
for l in open(sys.argv[1]):
    r = json.loads(l)
    if not isinstance(r.get("round"), int) or r["round"] < 10**6:
        continue
    print("\t".join([r["name"]] + [ms(r[k]) for k in ("span", "busy", "round")]))
EOF2
	[ -s want ]
	same "$(cat got)" "$(cat want)"
}
