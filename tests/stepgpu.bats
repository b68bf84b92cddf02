#!/usr/bin/env bats
# stepgpu.bats - Kineto writes each ProfilerStep#N twice: on the host
# (cat user_annotation, the step) and on the GPU's lane (cat
# gpu_user_annotation, the span the GPU saw).  The GPU's copy is no step,
# in any tool: a trace with the copies added says what the trace without
# them says, and mct-report's steps table counts python's host steps.

load helpers

setup_file() {
	light_trace
	local d=$BATS_FILE_TMPDIR

	# the PyTorch example, then the same with a GPU copy of each step
	# on the kernels' stream (pid 0, tid 7), a third of the host's span
	cp "$MCT_SRCDIR/examples/pytorch-small.pt.trace.json" "$d/plain.json"
	"$PYTHON3" -c '
import json, sys
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"]
n = 0
for e in list(ev):
    if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#"):
        c = dict(e, cat="gpu_user_annotation", pid=0, tid=7,
                 dur=e["dur"] / 3, args={})
        ev.append(c)
        n += 1
assert n == 4, n
json.dump(t, open(sys.argv[2], "w"))
' "$d/plain.json" "$d/gpu.json"
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	plain=$BATS_FILE_TMPDIR/plain.json
	gpu=$BATS_FILE_TMPDIR/gpu.json
}

# both CMD...: what CMD writes of the trace with the GPU's copies is what
# it writes of the plain one (the file's name apart).
both() {
	same_output "$gpu" "$plain" "$@"
}

@test "the trace: four host steps, and their four GPU copies" {
	same "$(mct-filter --match '^ProfilerStep#' -c "$gpu")" 8
	same "$(mct-filter --match '^ProfilerStep#' --cat gpu_user_annotation -c "$gpu")" 4
}

@test "mct-phases, mct-ranks: the rounds are the host's steps" {
	both mct-phases -o tsv
	both mct-ranks -o tsv
}

@test "mct-path --steps all and --steps median: a row per host step" {
	both mct-path -q --steps all -o tsv
	both mct-path -q --steps median -o tsv
}

@test "mct-group --by step, mct-filter --step: the host's steps" {
	both mct-group --by step -a count -o tsv
	same "$(mct-filter --step 2 -c "$gpu")" "$(mct-filter --step 2 -c "$plain")"
}

@test "mct-report: the steps table counts python's host steps, the GPU's copies apart" {
	run --separate-stderr mct-report "$gpu"
	[ "$status" -eq 0 ]
	IFS=$'\t' read -r n med _ <<<"$(oracle report_oracle.py steps "$gpu")"
	same "$n" 4
	same "$(grep '^| user_annotation |' <<<"$output" | awk -F' *[|] *' '{ print $3 "|" $4 }')" "4|$med"
	[[ "$output" != *"| gpu_user_annotation |"* ]]
	grep -q -F 'mct-filter -v --cat gpu_user_annotation' <<<"$output"
}
