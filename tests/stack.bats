#!/usr/bin/env bats
# stack.bats - mct-flow --stack and -o folded (host stacks, op, annotation,
# module, gpu_annotation, step; --under, --step-name), the field short,
# --width, and category tables that add up.
#
# Expected values come from tests/stack_oracle.py (python3's json, the rules
# of mct-flow(1) written down independently), run on the Kineto fixtures
# (skipped when ../shared/fixtures is absent) and on generated traces.

load helpers

spy() {
	oracle stack_oracle.py "$@"
}

setup_file() {
	light_trace
	genf "$BATS_FILE_TMPDIR/gen.json" --scale 0.02
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	gen="$BATS_FILE_TMPDIR/gen.json"
}

# Every number of mct-flow --stack on one trace against the oracle: each
# pair's stack, op, annotation and module; device time per op, module and
# annotation through mct-group; the folded lines and their sum.
against_oracle() {
	local f=$1 by

	mct-flow -q --stack "$f" > pairs.nd
	mkdir -p py
	spy save py "$f" pairs.nd
	same "$(tail -1 py/check)" "ok" || { cat py/check; return 1; }
	for by in op module annotation; do
		mct-group --by "$by" -a count,total -o tsv --no-header pairs.nd |
		    sort > got
		same "$(cat got)" "$(sort py/$by)"
	done
	mct-flow -q -o folded "$f" > folded
	same "$(cat folded)" "$(cat py/folded)"
	# every line "frames value"; the values add up to the device time
	run awk '!/^[^\n]+ [0-9]+$/ { bad++ } { s += $NF }
	    END { printf "%d %d\n", bad, s }' folded
	same "$output" "0 $(cut -f2 py/total)"
}

@test "stack: the tiny Kineto call stack: op aten::mm, its annotation, the stack outermost first" {
	need_fixtures
	local f=$fixtures/kineto-call-stack-tiny.json
	[ -f "$f" ] || skip "kineto-call-stack-tiny.json absent"
	mct-flow -q --stack -o tsv -F op,annotation,stack "$f" > out
	same "$(cat out)" "op	annotation	stack
aten::mm	## backward ##	[\"autograd::engine::evaluate_function: AddmmBackward0\",\"AddmmBackward0\",\"aten::mm\",\"cudaLaunchKernel\"]"
	against_oracle "$f"
}

@test "stack: the bert traces (CUDA and ROCm): op through External id, every figure as the oracle's" {
	need_fixtures
	local f
	for f in "$fixtures"/kineto-bert-h100.json.gz "$fixtures"/kineto-bert-mi300.json.gz; do
		[ -f "$f" ] || skip "${f##*/} absent"
		against_oracle "$f"
	done
	# the modules are there: BertAttention above some launch
	mct-flow -q --stack -o tsv -F stack --no-header \
	    "$fixtures"/kineto-bert-h100.json.gz | grep -q 'nn.Module: BertAttention'
}

@test "stack: the diff traces (launches without External id): op by containment, as the oracle's" {
	need_fixtures
	local f=$fixtures/kineto-diff-test.json.gz
	[ -f "$f" ] || skip "kineto-diff-test.json.gz absent"
	against_oracle "$f"
	# no launch carries an External id, and ops are found
	[ "$(mct-flow -q --stack -o tsv -F op --no-header "$f" | grep -c .)" -gt 1000 ]
}

@test "(no op): the launches outside every op are a row of --by op in mct-group and mct-diff, so the shares add up to 100%" {
	slow
	need_fixtures
	local a=$fixtures/kineto-diff-test.json.gz b=$fixtures/kineto-diff-control.json.gz
	[ -f "$a" ] && [ -f "$b" ] || skip "kineto-diff-*.json.gz absent"
	spy by op "$a" | grep '^(no op)	' > py.a
	spy by op "$b" | grep '^(no op)	' > py.b
	[ "$(cut -f2 py.a)" -gt 0 ]
	mct-flow -q --stack "$a" > pairs.nd
	run mct-group --by op -a count,total -o tsv --no-header pairs.nd
	same "$(grep '^(no op)	' <<<"$output")" "$(cat py.a)"
	# the shares of every row, (no op) in, add up to those of the pairs
	run sh -c "mct-group --by op -a share -o tsv --no-header pairs.nd |
	    awk -F'\t' '{ s += \$2 } END { printf \"%.2f\\n\", s }'"
	same "$output" "100.00"
	# mct-diff --by op: the row is named, its counts and totals python's,
	# on the trace and on the pairs made upstream
	for x in "$a" pairs.nd; do
		mct-diff --by op -o tsv "$x" "$b" 2>/dev/null > d.tsv
		same "$(awk -F'\t' '$1 == "(no op)" { print $1 "\t" $2 "\t" $4 }' d.tsv)" \
		    "$(cut -f1,2,3 py.a)"
		same "$(awk -F'\t' '$1 == "(no op)" { print $3 "\t" $5 }' d.tsv)" \
		    "$(cut -f2,3 py.b)"
		run awk -F'\t' '$1 == ""' d.tsv
		same "$output" ""
	done
}

@test "stack: a time-sorted input (streamed, forgetting) gives what the unsorted one gives" {
	need_fixtures
	local f=$fixtures/kineto-diff-control.json.gz
	[ -f "$f" ] || skip "kineto-diff-control.json.gz absent"
	spy sort "$f" > sorted.json
	mct-flow -q --stack sorted.json | head -1 | grep -q '"sorted":true'
	against_oracle sorted.json
	# a window just longer than the longest latency: intervals and host
	# calls are forgotten as the trace goes, and no stack is lost
	local w
	w=$(mct-filter -o tsv -F latency --no-header pairs.nd | sort -n | tail -1)
	mct-flow -q --stack --window $((w / 1000 + 1000))us sorted.json > w.nd
	same "$(cat w.nd)" "$(cat pairs.nd)"
}

@test "stack: a generated mcTracer trace: the stack is the API call alone" {
	against_oracle "$gen"
	mct-flow -q -o folded "$gen" | sed 's/ [0-9]*$//' | sort -u > frames
	grep -q '^mcModuleLaunchKernel;kernel_kernel$' frames
	run grep -c ';.*;' frames
	same "$output" "0"
}

@test "stack: -o tsv -F with stack fields, and the NDJSON record keeps the pair" {
	mct-flow -q --stack -F launch.name,name,stack,op "$gen" -o tsv | head -2 > out
	same "$(head -1 out)" "launch.name	name	stack	op"
	mct-flow -q "$gen" | tail -n +2 | head -3 > plain
	mct-flow -q --stack "$gen" | tail -n +2 | head -3 |
	    sed 's/,"stack":\[[^]]*\]}$/}/' > stacked
	same "$(cat stacked)" "$(cat plain)"
}

@test "stack: bad input: unbalanced B/E, an External id pointing nowhere, 1,500 nested frames" {
	"$PYTHON3" - <<'EOF'
import json
ev = [{"ph": "X", "cat": "cpu_op", "name": "op%d" % i, "pid": 1, "tid": 1,
       "ts": i, "dur": 10000 - 2 * i} for i in range(1500)]
ev += [{"ph": "B", "name": "b", "pid": 1, "tid": 2, "ts": 0},
       {"ph": "E", "pid": 1, "tid": 2, "ts": 1},
       {"ph": "E", "pid": 1, "tid": 2, "ts": 2},
       {"ph": "B", "name": "open", "pid": 1, "tid": 2, "ts": 3},
       {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
        "tid": 1, "ts": 2000, "dur": 5,
        "args": {"correlation": 7, "External id": 99999}},
       {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
        "ts": 3000, "dur": 50, "args": {"correlation": 7}},
       {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
        "tid": 2, "ts": 2000, "dur": 5, "args": {"correlation": 8}},
       {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7,
        "ts": 3100, "dur": 50, "args": {"correlation": 8}}]
json.dump({"traceEvents": ev}, open("bad.json", "w"))
EOF
	run -1 --separate-stderr mct-flow --stack -o tsv -F name,op,stack bad.json
	same "${stderr_lines[0]}" "mct-flow: 2 unbalanced B/E events (an E without its B, or a B never ended)"
	same "${stderr_lines[1]}" "mct-flow: 1 launches whose External id names no op (op found by time instead)"
	same "${stderr_lines[2]}" "mct-flow: 1 stacks deeper than 1000 frames, cut to their outermost 1000"
	same "${lines[1]%%	\[*}" "k	op1499"
	same "${lines[2]}" "k2		[\"open\",\"cudaLaunchKernel\"]"
	# 1,000 frames and the launch
	run "$PYTHON3" -c 'import json,sys; print(len(json.loads(sys.argv[1])))' \
	    "$(mct-flow -q --stack -o tsv -F stack --no-header bad.json | head -1)"
	same "$output" "1001"
	# -q keeps the damage counts, drops the note on External ids
	run -1 --separate-stderr mct-flow -q --stack bad.json
	same "${#stderr_lines[@]}" "2"
	mct-flow -q --stack bad.json > pairs.nd 2>/dev/null || :
	spy check bad.json pairs.nd | tail -1 | grep -qx ok
}

# A small Kineto trace with two steps: a launch in each, one on the
# backward thread (inside step 7 by time alone), one after the steps; a
# train#N annotation inside step 8 for --step-name; gpu_user_annotation
# intervals on the kernels' stream, one inside the other.
steps_trace() {
	"$PYTHON3" - <<'EOF'
import json
def x(cat, name, tid, ts, dur, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": 1 if tid else 0,
         "tid": tid if tid else 7, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e
ev = [x("user_annotation", "ProfilerStep#7", 1, 0, 1000),
      x("cpu_op", "aten::mm", 1, 10, 100),
      x("cuda_runtime", "cudaLaunchKernel", 1, 20, 5, correlation=1),
      x("user_annotation", "ProfilerStep#8", 1, 1000, 1000),
      x("user_annotation", "train#3", 1, 1100, 200),
      x("cpu_op", "aten::add", 1, 1120, 130),
      x("cuda_runtime", "cudaLaunchKernel", 1, 1150, 5, correlation=2),
      x("cpu_op", "MmBackward0", 2, 500, 100),
      x("cuda_runtime", "cudaLaunchKernel", 2, 520, 5, correlation=3),
      x("cuda_runtime", "cudaLaunchKernel", 1, 2500, 5, correlation=4),
      x("gpu_user_annotation", "ProfilerStep#7", 0, 30, 800),
      x("gpu_user_annotation", "opt", 0, 40, 100),
      x("kernel", "k1", 0, 50, 50, correlation=1),
      x("kernel", "k3", 0, 600, 10, correlation=3),
      x("kernel", "k2", 0, 1200, 30, correlation=2),
      x("kernel", "k4", 0, 2600, 20, correlation=4)]
json.dump({"traceEvents": ev}, open("steps.json", "w"))
EOF
}

# The pairs' count and summed ns, from mct-flow -o tsv -F dur.
count_sum() {
	awk 'NF { n++; s += $1 } END { printf "%d\t%d\n", n, s }'
}

@test "stack: step (the thread's ProfilerStep#N, else the process's) and gpu_annotation (the stream's, innermost) as the oracle's; --step-name; mct-group --by step,name" {
	steps_trace
	mct-flow -q --stack steps.json > pairs.nd
	mkdir py
	spy save py steps.json pairs.nd
	same "$(tail -1 py/check)" "ok"
	for by in step gpu_annotation step,name; do
		mct-group --by "$by" -a count,total -o tsv --no-header pairs.nd |
		    sort > got
		same "$(cat got)" "$(spy by "$by" steps.json | sort)"
	done
	# three of the four pairs are in a step, one by its process alone
	same "$(awk -F'\t' '{ n += $2 } END { print n }' py/step)" "3"
	# --step-name: train#3 is the step; -o tsv shows it
	mct-flow -q --step-name train steps.json > t.nd
	same "$(spy --step-name train check steps.json t.nd | tail -1)" "ok"
	run mct-flow -q --step-name train -o tsv -F name,step --no-header steps.json
	same "$(grep -c '	3$' <<<"$output")" "$(spy --step-name train by step steps.json | cut -f2)"
	# a ROCm trace's gpu_user_annotation (ProfilerStep#1 on the device)
	need_fixtures
	local f=$fixtures/kineto-rocm62-mi250.json.gz
	[ -f "$f" ] || skip "kineto-rocm62-mi250.json.gz absent"
	against_oracle "$f"
	[ "$(mct-filter -c --where gpu_annotation pairs.nd)" -gt 0 ]
}

@test "stack: --under GLOB keeps the pairs with a frame that matches, as the oracle's; folded too" {
	steps_trace
	for g in 'aten::*' 'MmBackward0' 'ProfilerStep#8' 'nothing'; do
		same "$(mct-flow -q --under "$g" -o tsv -F dur --no-header steps.json | count_sum)" \
		    "$(spy --under "$g" total steps.json)"
	done
	mct-flow -q --under 'aten::*' -o folded steps.json > f
	same "$(cat f)" "$(spy --under 'aten::*' folded steps.json)"
	# a real trace: the optimizer's kernels
	need_fixtures
	local f=$fixtures/kineto-rocm62-mi250.json.gz
	[ -f "$f" ] || skip "kineto-rocm62-mi250.json.gz absent"
	mct-flow -q --under 'Optimizer.step*' -o tsv -F dur --no-header "$f" | count_sum > got
	same "$(cat got)" "$(spy --under 'Optimizer.step*' total "$f")"
	[ "$(cut -f1 got)" -gt 0 ]
}

# A forward pass in ProfilerStep#4 on tid 1 and its backward pass on tid 2
# after the step's end (so no annotation of the process holds it): ops
# that share a Sequence number, one of them after the backward op, one
# on another pid, a backward op with no forward op, one in a step.  And
# the same events sorted by ts.
bwd_trace() {
	"$PYTHON3" - <<'EOF'
import json
def x(cat, name, tid, ts, dur, pid=1, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid if tid else 0,
         "tid": tid if tid else 7, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e
def op(name, tid, ts, dur, sn, ft, pid=1):
    return x("cpu_op", name, tid, ts, dur, pid,
             **{"Sequence number": sn, "Fwd thread id": ft})
ev = [x("user_annotation", "ProfilerStep#4", 1, 0, 1000),
      x("user_annotation", "## forward ##", 1, 5, 500),
      x("python_function", "nn.Module: Linear_0", 1, 8, 400),
      op("aten::to", 1, 10, 20, 10, 0),
      op("aten::linear", 1, 40, 300, 10, 0),
      op("aten::t", 1, 50, 30, 10, 0),
      op("aten::addmm", 1, 100, 200, 11, 0),
      x("cuda_runtime", "cudaLaunchKernel", 1, 120, 5, correlation=1),
      op("aten::mul", 7, 1400, 50, 11, 0, pid=2),
      op("autograd::engine::evaluate_function: AddmmBackward0", 2, 1500,
         300, 11, 1),
      op("AddmmBackward0", 2, 1510, 200, 11, 1),
      x("cpu_op", "aten::mm", 2, 1520, 100),
      x("cuda_runtime", "cudaLaunchKernel", 2, 1530, 5, correlation=2),
      op("autograd::engine::evaluate_function: TBackward0", 2, 1900, 100,
         10, 1),
      x("cuda_runtime", "cudaLaunchKernel", 2, 1910, 5, correlation=3),
      op("autograd::engine::evaluate_function: XBackward0", 2, 2100, 100,
         99, 1),
      x("cuda_runtime", "cudaLaunchKernel", 2, 2110, 5, correlation=4),
      x("user_annotation", "ProfilerStep#5", 1, 3000, 1000),
      op("aten::addmm", 1, 3100, 100, 11, 0),
      op("autograd::engine::evaluate_function: AddmmBackward0", 2, 3500,
         100, 11, 1),
      x("cuda_runtime", "cudaLaunchKernel", 2, 3510, 5, correlation=5)]
for i in range(1, 6):
    ev.append(x("kernel", "k%d" % i, 0, 5000 + 100 * i, 10 * i,
                correlation=i))
json.dump({"traceEvents": ev}, open("bwd.json", "w"))
ev.sort(key=lambda e: e["ts"])
json.dump({"traceEvents": ev}, open("sorted.json", "w"))
EOF
}

@test "stack: a backward op's launches continue its forward op's stack (same Sequence number, latest before it, same pid): step and module from there, annotation its own, as the oracle's; sorted too" {
	bwd_trace
	against_oracle bwd.json
	mct-group --by step -a count,total -o tsv --no-header pairs.nd | sort > got
	same "$(cat got)" "$(sort py/step)"
	# k2's stack: the forward op aten::addmm (not the later one, nor
	# pid 2's), then (backward); k4's backward op has no forward op
	run mct-flow -q --stack -o tsv -F name,step,stack --no-header bwd.json
	same "$(grep '^k2' <<<"$output")" 'k2	4	["ProfilerStep#4","## forward ##","nn.Module: Linear_0","aten::linear","aten::addmm","(backward)","autograd::engine::evaluate_function: AddmmBackward0","AddmmBackward0","aten::mm","cudaLaunchKernel"]'
	same "$(grep '^k4' <<<"$output")" 'k4		["autograd::engine::evaluate_function: XBackward0","cudaLaunchKernel"]'
	# --under matches the forward frames: the oracle's stacks that have it
	same "$(mct-flow -q --under 'aten::linear' -o tsv -F dur --no-header bwd.json | count_sum | cut -f2)" \
	    "$(awk '/(^|;)aten::linear;/ { s += $NF } END { print s }' py/folded)"
	# a time-sorted input, streamed: the same pairs
	mct-flow -q --stack sorted.json | head -1 | grep -q '"sorted":true'
	for f in bwd.json sorted.json; do
		mct-flow -q --stack -o tsv -F name,step,annotation,module,op,stack \
		    "$f" | sort > "$f.tsv"
	done
	same "$(cat sorted.json.tsv)" "$(cat bwd.json.tsv)"
}

@test "stack: backward ops on the Kineto fixtures with Sequence numbers: every pair's stack, step and module as the oracle's (all of them with MCT_TEST_FULL=1)" {
	need_fixtures
	local f fs=(kineto-rank0-of-2-nccl.json.gz)
	[ "${MCT_TEST_FULL:-0}" = 1 ] && fs+=(kineto-rank1-of-2-nccl.json.gz
	    kineto-ns-resolution.pt.trace.json.gz kineto-diff-control.json.gz)
	for f in "${fs[@]}"; do
		[ -f "$fixtures/$f" ] || skip "$f absent"
		against_oracle "$fixtures/$f"
		mct-group --by step -a count,total -o tsv --no-header pairs.nd |
		    sort > got
		same "$(cat got)" "$(sort py/step)"
		# some backward kernels reach their forward op
		[ "$(grep -c '"(backward)"' pairs.nd)" -gt 0 ]
		rm -rf py
	done
}

@test "stack: -o folded takes no stack option, and an unknown -o names folded" {
	mct-flow -q -o folded "$gen" > a
	mct-flow -q --stack -o folded "$gen" > b
	same "$(cat a)" "$(cat b)"
	run -2 mct-flow -o flame "$gen"
	same "${lines[0]}" "mct-flow: -o: unknown format 'flame' (want ndjson, tsv, csv, table, md, trace or folded)"
}

@test "short: no ( left in any kernel name of the ROCm fixtures and the bert pair, < only around functors; a template, a functor, a Tensile GEMM, a memcpy and a mangled name" {
	need_fixtures
	local f n=0
	for f in kineto-rocm62-mi250.json.gz kineto-bert-mi300.json.gz kineto-bert-h100.json.gz; do
		[ -f "$fixtures/$f" ] || skip "$f absent"
		mct-filter --cat kernel -o tsv -F short --no-header "$fixtures/$f" > s
		n=$((n + $(wc -l < s)))
		run grep -c '(' s
		same "$output" "0"
		run grep -c -v -E '^[^<>]*(<[A-Za-z0-9_]*([Ff]unctor|Ops)[A-Za-z0-9_]*(, [A-Za-z0-9_]*([Ff]unctor|Ops)[A-Za-z0-9_]*)*>)?$' s
		same "$output" "0"
	done
	[ "$n" -gt 100 ]
	printf '%s\n' '{"name":"void at::native::vectorized_gather_kernel<16, long>(char*, char*, long)","ph":"X","ts":1}' \
	    '{"name":"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)","ph":"X","ts":1}' \
	    '{"name":"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT320x224x64_MI16x16x1_SN_LDSB1","ph":"X","ts":2}' \
	    '{"name":"Memcpy DtoD (Device -> Device)","ph":"X","ts":3}' > n.nd
	run mct-filter -o tsv -F short --no-header n.nd
	same "$output" "at::native::vectorized_gather_kernel
at::native::vectorized_elementwise_kernel<FillFunctor>
Cijk_Alik_Bljk_…_MT320x224x64
Memcpy DtoD (Device -> Device)"
	# a mangled CK name: demangled when the C++ runtime was found
	printf '%s\n' '{"name":"_ZN2ck27kernel_gemm_xdl_cshuffle_v1INS_16GridwiseGemm_xdlIfLb1EEELi256EEEvPKfPf","ph":"X","ts":1}' > m.nd
	run mct-filter -o tsv -F short --no-header m.nd
	if grep -q '^#define HAVE_DEMANGLE 1' "$MCT_BUILDDIR/config.h"; then
		same "$output" "ck::kernel_gemm_xdl_cshuffle_v1"
	else
		same "$output" "_ZN2ck27kernel_gemm_xdl_cshuffle_v1INS_16GridwiseGemm_xdlIfLb1EEELi256EEEvPKfPf"
	fi
	# short groups: mct-group --by short
	run mct-group --by short -a count -o tsv --no-header --sort short n.nd
	same "${lines[3]}" "at::native::vectorized_gather_kernel	1"
}

@test "--width: table and md cells cut with an ellipsis, in characters; tsv, csv and ndjson never" {
	"$PYTHON3" -c '
import json
print(json.dumps({"name": "\u00e9" * 70, "ph": "X", "ts": 1, "dur": 1}))
print(json.dumps({"name": "x" * 60, "ph": "X", "ts": 2, "dur": 1}))' > w.nd
	run mct-filter -o table -F name w.nd
	same "${lines[1]}" "$(printf 'é%.0s' $(seq 59))…"
	same "${lines[2]}" "$(printf 'x%.0s' $(seq 60))"
	run mct-group -o md --width 10 -a count w.nd
	# (groups of equal total in the order of their keys' one spelling,
	# UTF-8: x before é, though the trace spells é \u00e9)
	same "${lines[3]}" "| ééééééééé… | 1 |"
	run mct-filter -o table --width 0 -F name w.nd
	same "${lines[1]}" "$(printf 'é%.0s' $(seq 70))"
	for o in tsv csv; do
		run mct-filter -o "$o" --width 5 -F name --no-header w.nd
		same "${lines[0]}" "$(printf 'é%.0s' $(seq 70))"
	done
	same "$(mct-filter --width 5 w.nd)" "$(mct-cat w.nd)"
	run -2 mct-group --width 1 w.nd
	same "${lines[0]}" "mct-group: --width: invalid width '1' (want a number of characters from 2, or 0 for no limit)"
}

@test "category: (other) for what no rule matches, so every fixture's table sums to 100.00%" {
	printf '%s\n' '{"name":"mystery","ph":"X","ts":1,"dur":30}' \
	    '{"name":"ampere_sgemm_128x64_nn","cat":"kernel","ph":"X","ts":2,"dur":70}' \
	    '{"name":"flow","ph":"s","id":1,"ts":3}' > o.nd
	run mct-group --by category -a count,total,share -o tsv --no-header o.nd
	same "$output" "BLAS/GEMM	1	70000	70
(other)	1	30000	30"
	# the label - (the flow here) makes no row; (other) is a row, not a label
	run mct-filter -c --where 'category' o.nd
	same "$output" "1"
	# the generated trace's device lanes: every kernel has a rule
	run sh -c "mct-filter --where 'pid==2' '$gen' |
	    mct-group --by category -a count -o tsv --no-header"
	[ "$status" -eq 0 ]
	[[ "$output" != *"(other)"* ]]
	need_fixtures
	local f
	for f in "$fixtures"/*.json*; do
		run sh -c "mct-group --by category -a total,share -o tsv --no-header '$f' 2>/dev/null |
		    awk -F'\t' '{ t += \$2; s += \$3 } END { if (t > 0) printf \"%.2f\n\", s; else print \"100.00\" }'"
		same "$output" "100.00" || { echo "in ${f##*/}"; return 1; }
	done
}

@test "category: the default rules know attention, normalization, communication and ROCm GEMMs" {
	printf '%s\n' \
	    '{"name":"void pytorch_flash::flash_fwd_kernel<int>(int)","cat":"kernel","ph":"X","ts":1}' \
	    '{"name":"attn_fwd","cat":"kernel","ph":"X","ts":2}' \
	    '{"name":"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float>(int)","cat":"kernel","ph":"X","ts":3}' \
	    '{"name":"rms_norm_kernel","cat":"kernel","ph":"X","ts":4}' \
	    '{"name":"ncclDevKernel_SendRecv(ncclDevComm*)","cat":"kernel","ph":"X","ts":5}' \
	    '{"name":"mcclKernel_Sum_float_Simple","cat":"kernel","ph":"X","ts":6}' \
	    '{"name":"Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1","cat":"kernel","ph":"X","ts":7}' \
	    '{"name":"_ZN2ck27kernel_gemm_xdl_cshuffle_v1INS_16GridwiseGemm_xdlIfLb1EEELi256EEEvPKfPf","ph":"X","ts":8}' \
	    '{"name":"igemm_fwd_gtcx3_nhwc_fp16","ph":"X","ts":9}' \
	    '{"name":"hipblasltKernel","ph":"X","ts":10}' > r.nd
	run mct-filter -o tsv -F category --no-header r.nd
	same "$output" "attention
attention
normalization
normalization
communication
communication
BLAS/GEMM
BLAS/GEMM
BLAS/GEMM
BLAS/GEMM"
}

@test "mct-report: 'Device time by op and module' equals the oracle; -p writes the folded stacks, and the flame graph where a tool is" {
	need_fixtures
	local f=$fixtures/kineto-bert-h100.json.gz
	[ -f "$f" ] || skip "kineto-bert-h100.json.gz absent"
	mkdir py
	mct-flow -q --stack "$f" > pairs.nd
	spy save py "$f" pairs.nd
	PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -i flame | paste -sd:) \
	    mct-report -p pics "$f" > r.md 2>/dev/null
	sed -n '/^## 9. Device time by op and module/,/^## 10\./p' r.md > sec
	[ -s sec ]
	# the first op row is the op with the most device time
	local top
	top=$(sort -t '	' -k3,3nr -k1,1 py/op | head -1 | cut -f1)
	same "$(grep -m1 '^| aten::' sec | cut -d'|' -f2 | sed 's/^ //; s/ $//')" "$top"
	grep -q '^| op | short |' sec
	grep -q '^| module | short |' sec
	same "$(cat pics/stacks.folded)" "$(cat py/folded)"
	grep -q 'stacks.folded.*no flamegraph.pl' sec
	# a flame-graph tool on PATH: its picture is linked
	mkdir bin
	printf '#!/bin/sh\ncat >/dev/null; echo "<svg/>"\n' > bin/flamegraph.pl
	chmod +x bin/flamegraph.pl
	PATH=$PWD/bin:$PATH mct-report -p pics2 "$f" > r2.md 2>/dev/null
	grep -q '^!\[device time by host stack\](pics2/flame.svg)' r2.md
	[ -s pics2/stacks.folded ]
}
