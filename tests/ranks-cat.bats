#!/usr/bin/env bats
# ranks-cat.bats - the ranks of one job (mct(7), Ranks): the rank of every event
# and the header's list of them, mct-cat --merge, --align and --wrap of a
# job, the field rank, and the ranks kept apart by mct-flow and mct-phases.
# Results are checked against tests/ranks_cat_oracle.py (python's json).

load helpers

ro() {
	oracle ranks_cat_oracle.py "$@"
}

setup_file() {
	light_trace
	cd "$BATS_FILE_TMPDIR" || return 1
	# rank 0 by its file name (ns, sorted); rank 1 by distributedInfo (us,
	# unsorted); rank 2 by its file name (ns, Array form, unsorted)
	genf rank-0.json --scale 0.02 --seed 1
	gen --scale 0.02 --seed 2 --unit us --layout shuffle |
	    sed '1s/^{/{"distributedInfo":{"backend":"nccl","rank":1,"world_size":3},/' > b.json
	genf job_rank_2.json --scale 0.02 --seed 3 --layout shuffle --form array
	mct-cat rank-0.json b.json job_rank_2.json > job.nd
}

setup() {
	light_trace
	cd "$BATS_FILE_TMPDIR" || return 1
	J="rank-0.json b.json job_rank_2.json"
}

@test "several operands: every event has its operand's rank (distributedInfo, file name), the header lists them" {
	ro check job.nd $J
	py check --sources $J -- job.nd $J
	[[ "$(head -1 job.nd)" == *'"rank":0,"rank_from":"file name","unit":"ns"'*'"rank":1,"rank_from":"distributedInfo","unit":"us"'*'"rank":2,"rank_from":"file name","unit":"ns"'* ]]
	# an operand without a rule takes its position
	cp rank-0.json "$BATS_TEST_TMPDIR/plain.json"
	mct-cat "$BATS_TEST_TMPDIR/plain.json" b.json > "$BATS_TEST_TMPDIR/o.nd"
	[[ "$(head -1 "$BATS_TEST_TMPDIR/o.nd")" == *'"rank":0,"rank_from":"order"'*'"rank":1,"rank_from":"distributedInfo"'* ]]
}

@test "the two real ranks of a Kineto job, in either order: each event has its distributedInfo rank" {
	need_fixtures
	local a=$fixtures/kineto-rank0-of-2-nccl.json.gz b=$fixtures/kineto-rank1-of-2-nccl.json.gz
	mct-cat "$a" "$b" > "$BATS_TEST_TMPDIR/ab.nd"
	ro check "$BATS_TEST_TMPDIR/ab.nd" "$a" "$b"
	mct-cat "$b" "$a" > "$BATS_TEST_TMPDIR/ba.nd"
	ro check "$BATS_TEST_TMPDIR/ba.nd" "$b" "$a"
	[[ "$(head -1 "$BATS_TEST_TMPDIR/ba.nd")" == *'"rank":1,"rank_from":"distributedInfo"'*'"rank":0,"rank_from":"distributedInfo"'* ]]
}

@test "one real rank read alone has the rank its distributedInfo says: in mct-cat's header, mct-ranks, mct-flow and --by rank" {
	need_fixtures
	local f=$fixtures/kineto-rank1-of-2-nccl.json.gz
	[ -f "$f" ] || skip "kineto-rank1-of-2-nccl.json.gz not in $fixtures"
	cd "$BATS_TEST_TMPDIR"
	# the header lists it, rank 1 by its distributedInfo; lines as they came
	mct-cat "$f" > one.nd
	[[ "$(head -1 one.nd)" == *',"ranks":[{"path":"'"$f"'","rank":1,"rank_from":"distributedInfo",'* ]]
	same "$(sed 1d one.nd | grep -c '"rank":')" 0
	# read directly or as the stream, it is rank 1 in every tool
	for in in "$f" one.nd; do
		same "$(mct-ranks -o tsv --no-header "$in" | cut -f1)" 1
		same "$(mct-flow -o tsv --no-header -F rank,launch.rank "$in" |
		    sort -u)" "$(printf '1\t1')"
		same "$(mct-group --by rank -o tsv --no-header "$in" | cut -f1)" 1
	done
	# with the other rank, each has its own
	mct-cat one.nd "$fixtures/kineto-rank0-of-2-nccl.json.gz" |
	    mct-group --by rank -a count -o tsv --no-header | sort > two
	same "$(cut -f1 two | tr '\n' ' ')" "0 1 "
	same "$(grep -c . two)" 2
}

@test "--rank=order, --rank=N and --rank=auto give ranks also where the rules would not" {
	mct-cat --rank=order rank-0.json rank-0.json > "$BATS_TEST_TMPDIR/o.nd"
	ro check --rank order "$BATS_TEST_TMPDIR/o.nd" rank-0.json rank-0.json
	mct-cat --rank=7 b.json > "$BATS_TEST_TMPDIR/n.nd"
	ro check --rank 7 "$BATS_TEST_TMPDIR/n.nd" b.json
	mct-cat --rank=auto job_rank_2.json > "$BATS_TEST_TMPDIR/a.nd"
	ro check --rank auto "$BATS_TEST_TMPDIR/a.nd" job_rank_2.json
	# one operand without --rank: no rank key, no list
	mct-cat rank-0.json | head -3 > "$BATS_TEST_TMPDIR/one.nd"
	same "$(grep -c '"rank":' "$BATS_TEST_TMPDIR/one.nd")" 0
}

@test "two operands of one rank: exit 2 naming both, nothing written; usage errors exit 2" {
	run --separate-stderr mct-cat rank-0.json b.json rank-0.json
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	same "$stderr" "mct-cat: rank-0.json and rank-0.json both have rank 0 (by file name and by file name); --rank=order numbers the operands 0, 1, ..."
	run --separate-stderr mct-filter -c b.json b.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"b.json and b.json both have rank 1 (by distributedInfo and by distributedInfo)"* ]]
	run --separate-stderr mct-cat --rank=3 rank-0.json b.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == "mct-cat: --rank=3: one operand only"* ]]
	for bad in x -1 1.5 ''; do
		run --separate-stderr mct-cat --rank="$bad" rank-0.json
		[ "$status" -eq 2 ]
		[[ "$stderr" == "mct-cat: --rank: invalid value '$bad'"* ]]
	done
	run --separate-stderr mct-cat --align '' rank-0.json
	[ "$status" -eq 2 ]
}

@test "rank is a field: mct-group --by rank,name and mct-filter --where 'rank==1' count what python counts" {
	"$PYTHON3" -c '
import json, sys, collections
c = collections.Counter()
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("ph") != "M" and e.get("name") != "mct_header":
        c[(e["rank"], e.get("name"))] += 1
for (r, n), k in c.items():
    print("%d\t%s\t%d" % (r, n, k))
print("rank1\t%d" % sum(k for (r, n), k in c.items() if r == 1))' job.nd | sort > "$BATS_TEST_TMPDIR/want"
	same "$(mct-group --by rank,name -a count -o tsv --no-header job.nd | sort)" "$(grep -v '^rank1' "$BATS_TEST_TMPDIR/want")"
	same "rank1	$(mct-filter --where 'rank==1' -c job.nd)" "$(grep '^rank1' "$BATS_TEST_TMPDIR/want")"
	same "rank1	$(mct-filter --where 'rank>0 && rank<2' -c $J)" "$(grep '^rank1' "$BATS_TEST_TMPDIR/want")"
	# straight from the files too: the reader gives the ranks to every tool
	same "$(mct-group --by rank -a count -o tsv --no-header $J)" \
	    "$(mct-group --by rank -a count -o tsv --no-header job.nd)"
}

@test "--merge: every event once, ts never decreasing, ties by rank then input order; runs spilled to TMPDIR" {
	mct-cat --merge $J > "$BATS_TEST_TMPDIR/m.nd"
	ro check --merge "$BATS_TEST_TMPDIR/m.nd" $J
	# small chunks: many sorted runs, the same result
	MCT_MERGE_CHUNK=20000 mct-cat --merge $J > "$BATS_TEST_TMPDIR/m2.nd"
	cmp "$BATS_TEST_TMPDIR/m.nd" "$BATS_TEST_TMPDIR/m2.nd"
	# a stream of ranks merged: the same events
	mct-cat --merge job.nd > "$BATS_TEST_TMPDIR/m3.nd"
	cmp <(tail -n +2 "$BATS_TEST_TMPDIR/m.nd") <(tail -n +2 "$BATS_TEST_TMPDIR/m3.nd")
	# a spool that cannot be made: exit 2, said; sorted files need none,
	# they are read in place
	run --separate-stderr env TMPDIR=/nonexistent mct-cat --merge rank-0.json b.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"/nonexistent"* ]]
	env TMPDIR=/nonexistent mct-cat --merge --rank=order rank-0.json rank-0.json > "$BATS_TEST_TMPDIR/m4.nd"
	ro check --merge --rank order "$BATS_TEST_TMPDIR/m4.nd" rank-0.json rank-0.json
}

@test "--align start and --align NAME: each rank's shift on stderr and in the header, ts shifted, dur kept" {
	mct-cat --align start $J > "$BATS_TEST_TMPDIR/s.nd" 2> "$BATS_TEST_TMPDIR/err"
	ro check --align start "$BATS_TEST_TMPDIR/s.nd" $J
	same "$(cat "$BATS_TEST_TMPDIR/err")" "$(ro shifts --align start $J)"
	mct-cat --merge --align 'kernel_kern?l*' $J > "$BATS_TEST_TMPDIR/k.nd" 2> "$BATS_TEST_TMPDIR/err"
	ro check --merge --align 'kernel_kern?l*' "$BATS_TEST_TMPDIR/k.nd" $J
	same "$(cat "$BATS_TEST_TMPDIR/err")" "$(ro shifts --align 'kernel_kern?l*' $J)"
	run --separate-stderr mct-cat --align nosuchname $J
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	same "$stderr" "mct-cat: rank-0.json: --align: no event named 'nosuchname'"
}

@test "--wrap of a job: one valid trace, each rank's processes apart, named and ordered by rank, flows within a rank" {
	mct-cat --wrap $J > "$BATS_TEST_TMPDIR/w.json"
	n=$(ro wrap "$BATS_TEST_TMPDIR/w.json" job.nd)
	one=$("$PYTHON3" -c 'import json,sys; print(len({e.get("pid") for e in json.load(open(sys.argv[1]))["traceEvents"] if "pid" in e}))' rank-0.json)
	[ "$n" -eq $((3 * one)) ]
	mct-cat --merge $J | mct-cat --wrap > "$BATS_TEST_TMPDIR/w2.json"
	mct-cat --merge $J > "$BATS_TEST_TMPDIR/m.nd"
	[ "$(ro wrap "$BATS_TEST_TMPDIR/w2.json" "$BATS_TEST_TMPDIR/m.nd")" -eq "$n" ]
}

@test "mct-flow pairs within a rank: one trace twice (--rank=order) gives twice its pairs, the same latencies" {
	oracle flow_oracle.py records rank-0.json > "$BATS_TEST_TMPDIR/want"
	mct-cat --rank=order rank-0.json rank-0.json | mct-flow > "$BATS_TEST_TMPDIR/f.nd" 2> "$BATS_TEST_TMPDIR/err"
	ro flows "$BATS_TEST_TMPDIR/f.nd" > "$BATS_TEST_TMPDIR/got"
	same "$(awk -F'\t' '$1 == 0' "$BATS_TEST_TMPDIR/got" | cut -f2- | sort)" "$(sort "$BATS_TEST_TMPDIR/want")"
	same "$(awk -F'\t' '$1 == 1' "$BATS_TEST_TMPDIR/got" | cut -f2- | sort)" "$(sort "$BATS_TEST_TMPDIR/want")"
	same "$(wc -l < "$BATS_TEST_TMPDIR/got")" "$((2 * $(wc -l < "$BATS_TEST_TMPDIR/want")))"
	# the counts on stderr: twice the trace's own
	mct-flow rank-0.json 2>&1 >/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) $i *= 2; print }' > "$BATS_TEST_TMPDIR/err1"
	same "$(cat "$BATS_TEST_TMPDIR/err")" "$(cat "$BATS_TEST_TMPDIR/err1")"
	if [ -d "$fixtures" ]; then
		local k=$fixtures/kineto-rank0-of-2-nccl.json.gz
		oracle flow_oracle.py records "$k" | sort > "$BATS_TEST_TMPDIR/want"
		mct-cat --rank=order "$k" "$k" | mct-flow 2>/dev/null > "$BATS_TEST_TMPDIR/f.nd"
		ro flows "$BATS_TEST_TMPDIR/f.nd" > "$BATS_TEST_TMPDIR/got"
		same "$(awk -F'\t' '$1 == 1' "$BATS_TEST_TMPDIR/got" | cut -f2- | sort)" "$(cat "$BATS_TEST_TMPDIR/want")"
		same "$(wc -l < "$BATS_TEST_TMPDIR/got")" "$((2 * $(wc -l < "$BATS_TEST_TMPDIR/want")))"
	fi
}

@test "mct-phases per rank: each rank's phases and gaps are those of its trace alone, with its rank" {
	mct-phases --gaps $J > "$BATS_TEST_TMPDIR/p.nd"
	mct-phases --gaps rank-0.json > "$BATS_TEST_TMPDIR/p0.nd"
	ro phases "$BATS_TEST_TMPDIR/p.nd" "$BATS_TEST_TMPDIR/p0.nd" 0
	mct-phases --gaps b.json > "$BATS_TEST_TMPDIR/p1.nd"
	ro phases "$BATS_TEST_TMPDIR/p.nd" "$BATS_TEST_TMPDIR/p1.nd" 1
	mct-phases --gaps job_rank_2.json > "$BATS_TEST_TMPDIR/p2.nd"
	ro phases "$BATS_TEST_TMPDIR/p.nd" "$BATS_TEST_TMPDIR/p2.nd" 2
	run mct-phases -o tsv $J
	[[ "${lines[0]}" == "rank	phase	start	"* ]]
	[[ "${lines[1]}" == "0	"* && "${lines[${#lines[@]}-1]}" == "2	"* ]]
}

@test "bad input: a rank cut mid-event exits 1 with the others complete; an operand that is no trace exits 2, named" {
	head -c 300000 rank-0.json > "$BATS_TEST_TMPDIR/rank-0.json"
	run --separate-stderr mct-cat "$BATS_TEST_TMPDIR/rank-0.json" b.json job_rank_2.json
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"rank-0.json:"*": cut off inside an event at the end of the input;"* ]]
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/cut.nd"
	same "$(grep -v ',"rank":0}$' "$BATS_TEST_TMPDIR/cut.nd" | tail -n +2)" "$(grep -v ',"rank":0}$' job.nd | tail -n +2)"
	n=$(grep -c ',"rank":0}$' "$BATS_TEST_TMPDIR/cut.nd")
	[ "$n" -gt 100 ]
	same "$(grep ',"rank":0}$' "$BATS_TEST_TMPDIR/cut.nd")" "$(grep ',"rank":0}$' job.nd | head -n "$n")"
	echo 'hello' > "$BATS_TEST_TMPDIR/notes.txt"
	run --separate-stderr mct-cat "$BATS_TEST_TMPDIR/notes.txt" b.json job_rank_2.json
	[ "$status" -eq 2 ]
	same "$stderr" "mct-cat: $BATS_TEST_TMPDIR/notes.txt:0: not a trace: expected '{' or '[', found 'h'"
	same "$(printf '%s\n' "$output" | tail -n +2)" "$(mct-cat b.json job_rank_2.json | tail -n +2)"
}
