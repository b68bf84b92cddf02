#!/usr/bin/env bats
# stepesc.bats - a step whose name is spelt with JSON escapes
# (Profiler\u0053tep#1, ProfilerStep\u00231 ...) is the step its decoded
# name is, in every tool that finds steps or matches a step's name:
# mct-phases, mct-ranks, mct-path, mct-group --by step, mct-filter --step,
# mct-flow --stack, mct-diff --step, mct-mem and mct-report.
#
# tests/stepesc_oracle.py writes a trace twice with the same values, its
# step names spelt with escapes (a different way each) and plainly, two
# decoys beside them (ProfilerStep#A, a bare ProfilerStep#, escaped too),
# and says with python3's json module (names decoded) which events are
# steps.  Each tool must agree with it, and say of the escaped trace what
# it says of the plain one.

load helpers

setup_file() {
	light_trace
	local d=$BATS_FILE_TMPDIR

	"$PYTHON3" "$MCT_SRCDIR/tests/stepesc_oracle.py" spell \
	    "$MCT_SRCDIR/examples/pytorch-small.pt.trace.json" \
	    "$d/esc.json" "$d/plain.json"
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	esc=$BATS_FILE_TMPDIR/esc.json
	plain=$BATS_FILE_TMPDIR/plain.json
}

# facts FILE [KIND]: the oracle's lines of KIND (count, name, annotated)
# about FILE, the kind left off.
facts() {
	oracle stepesc_oracle.py facts "$1" |
	    awk -F'\t' -v k="${2:-count}" '$1 == k { print $2 }'
}

# col NAME...: the columns NAME of the tsv (with its header) on stdin.
col() {
	awk -F'\t' -v names="$*" '
	    NR == 1 { n = split(names, w, " ")
		for (j = 1; j <= n; j++) for (i = 1; i <= NF; i++) if ($i == w[j]) c[j] = i
		next }
	    { l = $c[1]; for (j = 2; j <= n; j++) l = l "\t" $c[j]; print l }'
}

# both CMD...: what CMD writes of the escaped trace is what it writes of
# the plain one (the file's name apart).
both() {
	same_output "$esc" "$plain" "$@"
}

@test "the oracle: the escaped and the plain trace hold the same steps, the decoys none" {
	same "$(facts "$esc")" 4
	same "$(oracle stepesc_oracle.py facts "$esc")" \
	    "$(oracle stepesc_oracle.py facts "$plain")"
	# the escapes are there, in the step names and the decoys
	same "$(grep -c 'ProfilerStep#[0-9]' "$esc")" 1
	grep -q -F '"ProfilerStep#\u0031"' "$esc"
	grep -q -F '"\u0050rofilerStep#"' "$esc"
}

@test "mct-phases: an escaped step is a round, as the oracle counts steps" {
	same "$(mct-phases -o tsv "$esc" | col phase rounds |
	    awk -F'\t' '$1 == "steady" { s += $2 } END { print s }')" \
	    "$(facts "$esc")"
	same "$(mct-phases -o tsv "$esc" | col phase rounds)" "$(printf 'steady\t4')"
	both mct-phases -o tsv
}

@test "mct-ranks: an escaped step is a round of its rank" {
	same "$(mct-ranks -o tsv "$esc" | col rounds)" "$(facts "$esc")"
	both mct-ranks -o tsv
}

@test "mct-path --steps all: a row per step, escaped or not, named by its decoded name" {
	same "$(mct-path --steps all -o tsv "$esc" 2>/dev/null | col name)" \
	    "$(facts "$esc" name)"
	both mct-path --steps all -o tsv
	both mct-path --steps median -o tsv
}

@test "mct-path --step NAME#N finds an escaped step by its decoded name" {
	local n

	for n in $(facts "$esc" name); do
		run mct-path --step "$n" -o tsv "$esc"
		[ "$status" -eq 0 ]
		both mct-path --step "$n" -o tsv
	done
}

@test "mct-group --by step: the steps of escaped annotations, as the oracle's" {
	same "$(mct-group --by step -o tsv "$esc" | col step)" \
	    "$(facts "$esc" annotated)"
	both mct-group --by step -o tsv
}

@test "mct-filter --step N and --step NAME#N: an escaped step's events, as python's (step_oracle.py)" {
	local py n out

	mct-cat "$esc" > esc.nd
	py=$(oracle step_oracle.py esc.nd)
	for n in $(facts "$esc" annotated); do
		for a in "$n" "ProfilerStep#$n"; do
			out=$(mct-filter --step "$a" -o tsv --no-header -F ts,dur,pid,tid esc.nd)
			same "$(printf '%s\n' "$out" | grep -c .)" \
			    "$(printf '%s\n' "$py" | grep -o "\"$n\": {\"count\": [0-9]*" | sed 's/.* //')"
			[ -n "$out" ]
		done
		both mct-filter --step "ProfilerStep#$n" -o tsv -F ts,dur,pid,tid,name
	done
}

@test "mct-flow --stack: a launch inside an escaped step has its step" {
	same "$(mct-flow --stack -o tsv -F step "$esc" 2>/dev/null | sed 1d |
	    sort -n -u)" "$(facts "$esc" annotated)"
	both mct-flow --stack -o tsv -F launch.name,step,op,module
}

@test "mct-diff --step: a run whose steps are escaped has them" {
	same "$(mct-diff --step 2 "$plain" "$esc" -o tsv 2>&1 | sed 's/esc\.json/plain.json/g')" \
	    "$(mct-diff --step 2 "$plain" "$plain" -o tsv 2>&1)"
	same "$(mct-diff --step median "$plain" "$esc" -o tsv 2>&1 | sed 's/esc\.json/plain.json/g')" \
	    "$(mct-diff --step median "$plain" "$plain" -o tsv 2>&1)"
}

@test "mct-mem: the step of an allocation inside an escaped step, named decoded, as mem_oracle.py's" {
	local s

	"$PYTHON3" "$MCT_SRCDIR/tests/genmem.py" > mem.json
	"$PYTHON3" "$MCT_SRCDIR/tests/stepesc_oracle.py" spell mem.json e.json p.json
	grep -q -F 'Profiler\u0053tep#' e.json
	oracle mem_oracle.py e.json > or.txt
	for s in summary op; do
		case $s in
		summary) set -- -F device,ts,peak,reserved,step,op,module,allocs,bytes,frees,freed ;;
		op) set -- --by op ;;
		esac
		same "$(mct-mem "$@" -o tsv --no-header e.json 2>/dev/null)" \
		    "$(awk -v s="## $s" '$0 == s { on = 1; next } /^## / { on = 0 } on' or.txt)"
	done
	# the JSON output names the step as the plain trace's does
	same "$(mct-mem --by op e.json 2>/dev/null | sed 1d)" \
	    "$(mct-mem --by op p.json 2>/dev/null | sed 1d)"
}

@test "mct-report: the steps table, the phases and the median step's path of escaped steps are those of plain ones" {
	local a b

	a=$(mct-report "$esc" 2>&1 | sed 's/esc\.json/T/g')
	b=$(mct-report "$plain" 2>&1 | sed 's/plain\.json/T/g')
	same "$a" "$b"
	[[ "$a" == *"| (total) | $(facts "$esc") |"* ]]
	[[ "$a" == *"--step 'ProfilerStep#"* ]]
	# every step escaped: no ProfilerStep# in the text, the median step
	# still looked for
	"$PYTHON3" "$MCT_SRCDIR/tests/stepesc_oracle.py" spell --every \
	    "$MCT_SRCDIR/examples/pytorch-small.pt.trace.json" e.json p.json
	run grep -c -F 'ProfilerStep#' e.json
	same "$output" 0
	same "$(facts e.json)" 4
	same "$(mct-report e.json 2>&1 | sed 's/e\.json/T/g')" \
	    "$(mct-report p.json 2>&1 | sed 's/p\.json/T/g')"
}

@test "a job whose ranks spell their steps differently: one step of the job each, with both ranks" {
	mkdir job
	gen --scale 0.03 --ranks 2 --profiler-steps --out job
	"$PYTHON3" "$MCT_SRCDIR/tests/stepesc_oracle.py" spell job/rank-1.json e1.json p1.json
	run mct-path --steps all -o tsv -F name,ranks job/rank-0.json e1.json
	[ "$status" -eq 0 ]
	same "$(printf '%s\n' "$output" | grep -v '^mct-path:' | col ranks | sort -u)" 2
	same "$(printf '%s\n' "$output" | grep -v '^mct-path:' | col name)" \
	    "$(facts e1.json name)"
	same "$(mct-path --steps all -o tsv job/rank-0.json e1.json 2>&1)" \
	    "$(mct-path --steps all -o tsv job/rank-0.json p1.json 2>&1)"
	same "$(mct-ranks -o tsv job/rank-0.json e1.json | col rounds)" \
	    "$(mct-ranks -o tsv job/rank-0.json p1.json | col rounds)"
}
