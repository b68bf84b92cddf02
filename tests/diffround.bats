#!/usr/bin/env bats
# diffround.bats - mct-diff's summary compares the two runs' steady rounds
# (their number, their median time) only where they are alike: profiler
# steps in both, or the calls of the same signatures (mct-diff(1),
# Summary).  Whether they are alike, what each run's rounds are and the
# line that says so come from tests/diffround_oracle.py (mct-phases'
# method again in python3, phases_oracle.py); the figures of rounds that
# are alike are those of the ndjson summary, compared as before.

load helpers

# kern FILE NAME GRID N PERIOD [steps]: N calls of kernel NAME (grid GRID,
# block [128,1,1]) PERIOD us apart, 400 us each, then a memset; with
# steps, a ProfilerStep#N on the host over each call.
kern() {
	local f=$1 name=$2 grid=$3 n=$4 p=$5 steps=${6:-} i ts

	{
		printf '{"traceEvents":[\n'
		for ((i = 0; i < n; i++)); do
			ts=$((1000 + p * i))
			[ -z "$steps" ] ||
			    printf '{"ph":"X","cat":"user_annotation","name":"ProfilerStep#%d","pid":1,"tid":1,"ts":%d,"dur":%d},\n' \
			    "$i" "$((ts - 50))" "$((p - 100))"
			printf '{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%d,"dur":400,"args":{"grid":%s,"block":[128,1,1],"correlation":%d}},\n' \
			    "$name" "$ts" "$grid" "$((i + 1))"
		done
		printf '{"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":%d,"dur":10,"args":{"correlation":999}}\n]}\n' \
		    "$((1000 + p * n))"
	} > "$f"
}

setup_file() {
	light_trace
	local d=$BATS_FILE_TMPDIR

	kern "$d/gemm4.json" gemm '[4,1,1]' 8 1000
	kern "$d/gemm4b.json" gemm '[4,1,1]' 12 1100
	kern "$d/gemm8.json" gemm '[8,1,1]' 8 1000
	kern "$d/other.json" other_gemm '[4,1,1]' 8 1000
	kern "$d/gemm4s.json" gemm '[4,1,1]' 8 1000 steps
	kern "$d/others.json" other_gemm '[4,1,1]' 10 900 steps
	for f in "$d"/*.json; do
		mct-cat "$f" > "${f%.json}.nd"
	done
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	d=$BATS_FILE_TMPDIR
}

nd() {
	local f=${1%.json}

	printf '%s.nd\n' "${f%.nd}"
}

# what A B KEY: the oracle's answer for runs A and B, one key (a trace
# X.json is asked of X.nd, its stream)
what() {
	oracle diffround_oracle.py "$(nd "$1")" "$(nd "$2")" |
	    "$PYTHON3" -c 'import json, sys
v = json.load(sys.stdin)[sys.argv[1]]
print(v if isinstance(v, str) else json.dumps(v))' "$3"
}

# The summary record's rounds_of_a and rounds_of_b (null where absent).
rounds_of() {
	mct-diff -o ndjson "$1" "$2" | sed -n 2p | "$PYTHON3" -c '
import json, sys
s = json.load(sys.stdin)
assert s["name"] == "mct_diff_summary", s
print(json.dumps(s.get("rounds_of_a")))
print(json.dumps(s.get("rounds_of_b")))'
}

# unlike A B: mct-diff says what the oracle says of rounds not alike
unlike() {
	local a=$1 b=$2 note

	same "$(what "$a" "$b" alike)" false
	note=$(what "$a" "$b" note)
	# ndjson: the summary record lists each run's kinds, as the oracle
	same "$(rounds_of "$a" "$b")" "$(what "$a" "$b" a)
$(what "$a" "$b" b)"
	# the tables: no change of either figure, the oracle's line under them
	run mct-diff -o table --width 0 "$a" "$b"
	[ "$status" -eq 0 ]
	same "$(grep -E '^(steady rounds|median round) ' <<<"$output" |
	    awk '{print $(NF - 1), $NF}')" "- -
- -"
	same "$(grep -c 'not compared' <<<"$output")" 1
	same "${lines[6]}" "$note"
	run mct-diff -o md --width 0 "$a" "$b"
	same "$(grep -E '^\| (steady rounds|median round) ' <<<"$output" |
	    cut -d'|' -f5,6)" " - | - 
 - | - "
	# md: the same line, the signatures as code spans
	same "$(sed 's/`//g' <<<"${lines[7]}")" "$note"
}

# alike A B: the rounds are alike for the oracle, and mct-diff compares
# them as it always did: their changes from the summary's own figures
alike() {
	local a=$1 b=$2 want

	same "$(what "$a" "$b" alike)" true
	same "$(rounds_of "$a" "$b")" "null
null"
	want=$(mct-diff -o ndjson "$a" "$b" | sed -n 2p | "$PYTHON3" -c '
import json, sys
s = json.load(sys.stdin)
for k in ("rounds", "round"):
    a, b = s[k + "_a"], s[k + "_b"]
    print("%+.2f%%" % (100.0 * (b - a) / a))')
	run mct-diff -o md "$a" "$b"
	[ "$status" -eq 0 ]
	[[ "$output" != *"not compared"* ]]
	same "$(grep -E '^\| (steady rounds|median round) ' <<<"$output" |
	    cut -d'|' -f6 | tr -d ' ')" "$(sed 's/^+0\.00%/0.00%/' <<<"$want")"
}

@test "rounds of another kernel, of the same kernel on another grid: the changes of steady rounds and median round are -, the line under the summary and the summary record's rounds_of_a/b are the oracle's" {
	unlike "$d/gemm4.nd" "$d/other.nd"
	unlike "$d/gemm4.nd" "$d/gemm8.nd"
	# read directly, as streams: the same
	unlike "$d/gemm8.json" "$d/gemm4.json"
}

@test "profiler steps in one run only are not alike: 'profiler steps' is the kind named" {
	unlike "$d/gemm4s.nd" "$d/gemm4.nd"
	run what "$d/gemm4s.nd" "$d/gemm4.nd" note
	[[ "$output" == *"A's rounds are profiler steps, B's calls of gemm [4,1,1] [128,1,1]:"* ]]
}

@test "rounds alike: the same kernel in other numbers, profiler steps of other kernels, a run against itself: compared as always" {
	alike "$d/gemm4.nd" "$d/gemm4b.nd"
	alike "$d/gemm4s.nd" "$d/others.nd"
	alike "$d/gemm8.json" "$d/gemm8.nd"
	# the generated seed-shaped run against one kernel 10% slower
	genf a.json --scale 0.05
	gen --scale 0.05 --slow-kernel kernel_kernel --slow-factor-kernel 1.10 \
	    > b.json
	mct-cat a.json > a.nd
	mct-cat b.json > b.nd
	alike a.nd b.nd
}

@test "the generated run against its profiler-step twin: not alike, A's kinds two signatures, B's the steps" {
	genf a.json --scale 0.05
	genf s.json --scale 0.05 --profiler-steps
	mct-cat a.json > a.nd
	mct-cat s.json > s.nd
	unlike a.nd s.nd
	same "$(what a.nd s.nd b)" '[{"key": null, "rounds": 12}]'
}

@test "--width cuts the signatures of the line as cells, never alike; a run without rounds is no case (its median round is -, its number compared)" {
	kern x.json 'gemm_kernel_with_a_very_long_name_for_tile_128x128_sm90_A' '[4,1,1]' 8 1000
	kern y.json 'gemm_kernel_with_a_very_long_name_for_tile_128x128_sm90_B' '[4,1,1]' 8 1000
	run mct-diff -o table --width 30 x.json y.json
	line=$(grep 'not compared' <<<"$output")
	[[ "$line" == *"calls of gemm_kernel_"*"…"*", B's calls of gemm_kernel_"*"…"* ]]
	a=${line#*A\'s rounds are calls of }
	a=${a%%, B\'s*}
	b=${line#*B\'s calls of }
	b=${b%: not compared}
	[ "$a" != "$b" ]
	[ "$("$PYTHON3" -c 'import sys; print(len(sys.argv[1]))' "$a")" -le 30 ]
	# one kernel call: no steady round in B
	kern one.json gemm '[4,1,1]' 1 1000
	run mct-diff -o md "$d/gemm4.json" one.json
	[[ "$output" != *"not compared"* ]]
	same "$(grep -E '^\| (steady rounds|median round) ' <<<"$output" |
	    cut -d'|' -f5,6)" " -8 | -100.00% 
 - | - "
}

@test "fixtures: bert on MI300 against H100: rounds of other kernels, not compared; the oracle's kinds; mct-report --against says so under its summary" {
	need_fixtures
	mct-cat "$fixtures/kineto-bert-mi300.json.gz" > m.nd
	mct-cat "$fixtures/kineto-bert-h100.json.gz" > h.nd
	unlike m.nd h.nd
	[[ "$(what m.nd h.nd note)" == "steady rounds, median round: A's rounds are calls of attn_fwd [2,8,1] [256,1,1] and 1 other kind, B's calls of void cutlass::Kernel2<"* ]]
	run --separate-stderr mct-report --against "$fixtures/kineto-bert-h100.json.gz" \
	    "$fixtures/kineto-bert-mi300.json.gz"
	[ "$status" -eq 0 ]
	sec=$(sed -n '/^## .*Against/,$p' <<<"$output")
	same "$(grep -E '^\| (steady rounds|median round) ' <<<"$sec" |
	    cut -d'|' -f5,6)" " - | - 
 - | - "
	# the line under the summary table, then the rows by category
	same "$(grep -A4 '^| median round ' <<<"$sec" | sed -n '3p;5p')" \
	    "$(mct-diff -o md m.nd h.nd | grep 'not compared')
By category (\`mct-diff --device --by category\`):"
	[[ "$(grep -A3 '^By category' <<<"$sec" | sed -n 3p)" == "| category | count_a |"* ]]
}
