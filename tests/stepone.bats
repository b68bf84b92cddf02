#!/usr/bin/env bats
# stepone.bats - which events are profiler steps is one rule, in every
# tool (mct(7), "Steps"): an X event of the host named ProfilerStep#N (or
# NAME#N), of any cat but the GPU's copy's (gpu_user_annotation), or of
# none.  mct-phases, mct-ranks, mct-path and mct-mem took a step of no
# cat for a step, while mct-group --by step, mct-filter --step, mct-flow
# --stack's step and mct-diff --step wanted cat user_annotation, cpu_op
# or Operator, and mct-flow and mct-diff took a B/E pair for one.
#
# The PyTorch example is written again with its four steps of no cat, of
# cat python_function, and as B/E pairs; tests/step_oracle.py (its steps
# by phases_oracle.is_step_event) says which events each step holds.

load helpers

setup_file() {
	light_trace
	local d=$BATS_FILE_TMPDIR

	mct-cat "$MCT_SRCDIR/examples/pytorch-small.pt.trace.json" > "$d/ua.nd"
	cp "$d/ua.nd" "$d/a.nd"		# the other side of mct-diff
	sed '/"name":"ProfilerStep#/s/"cat":"user_annotation",//' \
	    "$d/ua.nd" > "$d/nocat.nd"
	sed '/"name":"ProfilerStep#/s/"cat":"user_annotation"/"cat":"python_function"/' \
	    "$d/ua.nd" > "$d/py.nd"
	grep -v '"name":"ProfilerStep#' "$d/ua.nd" > "$d/nostep.nd"
	# each step a B at its start and an E at its end (compact, as the
	# stream's lines are)
	"$PYTHON3" -c '
import json, sys
def compact(e):
    return json.dumps(e, separators=(",", ":")) + "\n"
out = open(sys.argv[2], "w")
for i, line in enumerate(open(sys.argv[1])):
    e = json.loads(line)
    if i > 0 and str(e.get("name", "")).startswith("ProfilerStep#"):
        b = dict(e, ph="B")
        del b["dur"]
        out.write(compact(b))
        out.write(compact({"ph": "E", "pid": e["pid"], "tid": e["tid"],
                        "ts": e["ts"] + e["dur"]}))
    else:
        out.write(line)
' "$d/ua.nd" "$d/be.nd"
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	d=$BATS_FILE_TMPDIR
}

# like A B CMD...: what CMD writes of trace A is what it writes of B (the
# file's name apart).
like() {
	local a=$1 b=$2

	shift 2
	same_output "$d/$a.nd" "$d/$b.nd" "$@"
}

# TOOL_steps FILE: the step numbers of FILE as TOOL finds them, one a line.
path_steps() {
	mct-path -q --steps all -o tsv --no-header "$1" | cut -f1 | sed 's/^ProfilerStep#//'
}
group_steps() {
	mct-group --by step -a count -o tsv --no-header "$1" 2>/dev/null | cut -f1
}
flow_steps() {
	mct-flow -q --stack -o tsv -F step "$1" | sed 1d | grep . | sort -un
}
filter_steps() {
	local n

	for n in 0 1 2 3 4; do
		[ "$(mct-filter -c --step "$n" "$1")" -eq 0 ] || echo "$n"
	done
}

@test "the traces: four steps of each cat, none as B/E pairs, as the oracle says" {
	local t

	for t in ua nocat py; do
		same "$(mct-filter --ph X --match '^ProfilerStep#' -c "$d/$t.nd")" 4
		same "$(oracle step_oracle.py "$d/$t.nd" | grep -o '"[0-9]*": {' | tr -d '": {' | sort -n)" \
		    "$(printf '%s\n' 0 1 2 3)"
	done
	same "$(mct-filter --match '^ProfilerStep#' --where cat -c "$d/nocat.nd")" 0
	same "$(mct-filter --ph B --match '^ProfilerStep#' -c "$d/be.nd")" 4
	same "$(oracle step_oracle.py "$d/be.nd")" '{}'
}

@test "mct-filter --step N: a step of no cat, or of cat python_function, holds the events the oracle says, as one of cat user_annotation" {
	local t py n

	for t in nocat py; do
		py=$(oracle step_oracle.py "$d/$t.nd")
		for n in 0 1 2 3; do
			same "$(step_got --step "$n" "$d/$t.nd")" "$(step_want "$py" "$n")"
			same "$(step_got --step "$n" "$d/$t.nd")" "$(step_got --step "$n" "$d/ua.nd")"
		done
		same "$(step_got --step ProfilerStep#2 "$d/$t.nd")" "$(step_want "$py" 2)"
	done
}

@test "mct-group --by step, mct-flow --stack's step, mct-diff --step: a step of any cat is a step, as with cat user_annotation" {
	local t

	for t in nocat py; do
		like "$t" ua mct-group --by step -a count,total -o tsv
		like "$t" ua mct-group --by step,name -a count -o tsv
		same "$(mct-group --by step,name -a count,total -o tsv --no-header "$d/$t.nd" | sort)" \
		    "$(oracle step_oracle.py --group "$d/$t.nd" | sort)"
		same "$(mct-flow -q --stack -o tsv -F name,step "$d/$t.nd")" \
		    "$(mct-flow -q --stack -o tsv -F name,step "$d/ua.nd")"
		[ "$(mct-flow -q --stack "$d/$t.nd" | mct-filter -c --where step)" -gt 40 ]
		like "$t" ua mct-diff --step 2 -o tsv "$d/a.nd"
		like "$t" ua mct-diff --step median -o tsv "$d/a.nd"
	done
}

@test "every tool finds the same steps: mct-path, mct-group --by step, mct-flow --stack, mct-filter --step" {
	local t want

	for t in ua nocat py; do
		want=$(printf '%s\n' 0 1 2 3)
		same "$(path_steps "$d/$t.nd")" "$want"
		same "$(group_steps "$d/$t.nd")" "$want"
		same "$(flow_steps "$d/$t.nd")" "$want"
		same "$(filter_steps "$d/$t.nd")" "$want"
	done
	# mct-phases and mct-ranks cut their rounds at the same steps, and
	# mct-path finds the same paths in them
	like nocat ua mct-phases -o tsv
	like nocat ua mct-ranks -o tsv
	like py ua mct-phases -o tsv
	like nocat ua mct-path -q --steps all -o tsv
	like py ua mct-path -q --steps all -o tsv
}

@test "a step written as a B/E pair is no step, in any tool: the trace says what it says without the steps" {
	same "$(path_steps "$d/be.nd")" ""
	same "$(group_steps "$d/be.nd")" ""
	same "$(flow_steps "$d/be.nd")" ""
	same "$(filter_steps "$d/be.nd")" ""
	like be nostep mct-phases -o tsv
	like be nostep mct-group --by step,name -a count -o tsv
	run --separate-stderr mct-diff --step 1 -o tsv "$d/be.nd" "$d/ua.nd"
	[ "$status" -eq 2 ]
	same "$stderr" "mct-diff: $d/be.nd: no step 1"
	# the annotation is still the enclosing interval's name
	same "$(mct-flow -q --stack -o tsv -F annotation "$d/be.nd" | grep -c '^ProfilerStep#')" \
	    "$(mct-flow -q --stack -o tsv -F annotation "$d/ua.nd" | grep -c '^ProfilerStep#')"
}
