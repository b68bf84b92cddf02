#!/usr/bin/env bats
# ranks-partial.bats - mct-ranks -o partial and --merge: the
# per-rank partials of a job, merged in any order or in a tree, give the
# rank table and the collectives of one mct-ranks over the traces, byte
# for byte; a rank in two partials, partials of other options, kinds or
# versions, truncated partials.  The partials' figures and calls are
# checked by tests/ranks_partial_oracle.py, the merged tables by
# tests/ranks_oracle.py (python3 json), never against captured output.

load helpers

setup_file() {
	light_trace
	local d=$BATS_FILE_TMPDIR i

	# A job of 4 small ranks, rank 2 slower by 8%, clocks up to 3 s apart
	# (so the ranks' origins differ); each rank's stream, the ranks as one
	# stream with their rank keys; each rank's partial, from its trace.
	mkdir "$d/job"
	gen --scale 0.03 --ranks 4 --slow-rank 2 --slow-factor 1.08 \
	    --clock-offset 3000000000 --out "$d/job"
	for i in 0 1 2 3; do
		mct-cat "$d/job/rank-$i.json" > "$d/s$i.nd"
		mct-ranks -o partial "$d/job/rank-$i.json" > "$d/P$i"
	done
	oracle ranks_oracle.py tag "$d"/s[0-3].nd \
	    > "$d/job.nd"
	mct-ranks -o tsv "$d"/job/rank-[0-3].json > "$d/whole.tsv"
	mct-ranks --collectives -o tsv "$d"/job/rank-[0-3].json > "$d/colls.tsv"
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	d=$BATS_FILE_TMPDIR
	P=("$d/P0" "$d/P1" "$d/P2" "$d/P3")
}

pyo() {
	oracle ranks_oracle.py "$@"
}

state() {
	oracle ranks_partial_oracle.py state "$@"
}

@test "mct-ranks --help: -o partial, --merge, --align" {
	docs
	run mct-ranks --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"[--merge]"* ]]
	[[ "$output" == *"--merge "*"partials (-o partial)"* ]]
	[[ "$output" == *"md (Markdown), partial"* ]]
	[[ "$output" == *"--align HOW       with --merge: none (default), or start"* ]]
}

@test "-o partial of each rank's trace: its header, the rank's figures and its collective calls, as python's oracle computes them" {
	local i

	for i in 0 1 2 3; do
		state --rank "$i" "$d/P$i" "$d/s$i.nd"
	done
	head -1 "$d/P0" | grep -q '^{"mct_ranks_partial":1,"key":"name,args.grid,args.block","device":null,"rules":null,"unit":"ns","origin":[0-9]*,"sources":\["[^"]*/job/rank-0.json"\]}$'
	grep -q '^{"rank":2,"call":"ncclDevKernel_AllReduce_Sum_f32_RING_LL","n":6,"ts":[0-9]*,"dur":[0-9]*}$' "$d/P2"
	# the options that change the figures are in the header
	mct-ranks -o partial -k name --device 'pid == 2' --rules "$MCT_SRCDIR/data/default.rules" \
	    "$d/job/rank-1.json" > K
	head -1 K | grep -q '^{"mct_ranks_partial":1,"key":"name","device":"pid == 2","rules":"[^"]*/data/default.rules",'
	# --threshold, --collectives, --time-unit do not: the same partial
	run mct-ranks -o partial --threshold 50 --collectives --time-unit ms "$d/job/rank-0.json"
	same "$output" "$(cat "$d/P0")"
}

@test "--merge of the per-rank partials, in any order, is mct-ranks over the traces byte for byte, in every format, and python's table" {
	local o

	run --separate-stderr mct-ranks --merge -o tsv "${P[@]}"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	same "$output" "$(cat "$d/whole.tsv")"
	same "$(mct-ranks --merge -o tsv --no-header "$d/P3" "$d/P1" "$d/P0" "$d/P2")" \
	    "$(pyo ranks "$d/job.nd")"
	[[ "$output" == *$'\n2\t'*$'\ttrue\t'*$'\n3\t'* ]]
	for o in "-o csv" "-o md" "-o table" "-o tsv --no-header --threshold 20 --time-unit ms"; do
		echo "# $o"
		# shellcheck disable=SC2086
		same "$(mct-ranks --merge $o "$d/P2" "$d/P0" "$d/P3" "$d/P1")" \
		    "$(mct-ranks $o "$d"/job/rank-[0-3].json)"
	done
	# ndjson: the same records; the header line names the traces
	run mct-ranks --merge -o ndjson "${P[@]}"
	same "$(printf '%s\n' "$output" | tail -n +2)" \
	    "$(mct-ranks -o ndjson "$d"/job/rank-[0-3].json | tail -n +2)"
	printf '%s\n' "$output" | head -1 | grep -q '"unit_from":"the partials".*"sources":\["[^"]*/job/rank-0.json","[^"]*/job/rank-1.json","[^"]*/job/rank-2.json","[^"]*/job/rank-3.json"\]'
	# one stream of partials on standard input
	run mct-ranks --merge -o tsv < <(cat "$d/P1" "$d/P3" "$d/P0" "$d/P2")
	[ "$status" -eq 0 ]
	same "$output" "$(cat "$d/whole.tsv")"
}

@test "--merge --collectives: every collective's skew, spread and last rank, and the waits, as over the traces (every format) and as python's" {
	local o

	run --separate-stderr mct-ranks --merge --collectives -o tsv "$d/P3" "$d/P2" "$d/P1" "$d/P0"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	same "$output" "$(cat "$d/colls.tsv")"
	# (the oracle counts start from its first stream's origin, rank 0's;
	# mct-ranks from the job's, as over the traces above)
	same "$(mct-ranks --merge --collectives -o tsv --no-header "${P[@]}" | cut -f 1,2,4-)" \
	    "$(pyo collectives "$d/job.nd" | cut -f 1,2,4-)"
	[ "$(printf '%s\n' "$output" | grep -c '^ncclDevKernel')" -eq 6 ]
	for o in "-o csv" "-o md" "-o table" "-o tsv --time-unit us"; do
		echo "# $o"
		# shellcheck disable=SC2086
		same "$(mct-ranks --merge --collectives $o "${P[@]}")" \
		    "$(mct-ranks --collectives $o "$d"/job/rank-[0-3].json)"
	done
	same "$(mct-ranks --merge --collectives -o ndjson "${P[@]}" | tail -n +2)" \
	    "$(mct-ranks --collectives -o ndjson "$d"/job/rank-[0-3].json | tail -n +2)"
}

@test "a merge of merges, and the partial of all the ranks at once, give the same bytes; a merged partial holds its ranks' state" {
	mct-ranks --merge -o partial "$d/P0" "$d/P1" > M01
	mct-ranks --merge -o partial "$d/P3" "$d/P2" > M23
	run mct-ranks --merge -o tsv M23 M01
	[ "$status" -eq 0 ]
	same "$output" "$(cat "$d/whole.tsv")"
	same "$(mct-ranks --merge --collectives -o tsv M01 M23)" "$(cat "$d/colls.tsv")"
	mct-ranks --merge -o partial M01 "$d/P2" > M012
	same "$(mct-ranks --merge -o tsv "$d/P3" M012)" "$(cat "$d/whole.tsv")"
	pyo tag "$d/s0.nd" "$d/s1.nd" > j01.nd
	state M01 j01.nd
	# all four traces in one run: one partial of four ranks, the same
	mct-ranks -o partial "$d"/job/rank-[0-3].json > all
	state all "$d/job.nd"
	same "$(mct-ranks --merge -o tsv all)" "$(cat "$d/whole.tsv")"
}

@test "a rank in two partials: exit 2, both files named, nothing written (a rank's unions of intervals do not merge)" {
	cp "$d/P1" again
	run --separate-stderr mct-ranks --merge "$d/P0" "$d/P1" again
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	same "$stderr" "mct-ranks: again:2: rank 1 is also in $d/P1: a rank split across partials cannot be merged (its busy time is a union of intervals a partial does not hold)"
	mct-ranks --merge -o partial "$d/P0" "$d/P1" > M01
	run --separate-stderr mct-ranks --merge --collectives M01 "$d/P2" "$d/P0"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == "mct-ranks: $d/P0:"*": rank 0 is also in M01: "* ]]
}

@test "partials of other options (--key, --device, --rules): exit 2, the option named; options given to --merge must be the partials'" {
	mct-ranks -o partial -k name "$d/job/rank-1.json" > key
	mct-ranks -o partial --device 'pid == 2' "$d/job/rank-1.json" > dev
	mct-ranks -o partial --rules "$MCT_SRCDIR/data/default.rules" "$d/job/rank-1.json" > rules
	run --separate-stderr mct-ranks --merge "$d/P0" key
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	same "$stderr" "mct-ranks: key:1: a partial of another --key ('name', not 'name,args.grid,args.block')"
	run --separate-stderr mct-ranks --merge "$d/P0" dev
	[ "$status" -eq 2 ]
	same "$stderr" "mct-ranks: dev:1: a partial of another --device ('pid == 2', not none)"
	run --separate-stderr mct-ranks --merge "$d/P0" rules
	[ "$status" -eq 2 ]
	same "$stderr" "mct-ranks: rules:1: a partial of another --rules ('$MCT_SRCDIR/data/default.rules', not none)"
	run --separate-stderr mct-ranks --merge -k name "${P[@]}"
	[ "$status" -eq 2 ]
	same "$stderr" "mct-ranks: $d/P0:1: a partial of another --key ('name,args.grid,args.block', not 'name')"
	run mct-ranks --merge -o tsv -k name,args.grid,args.block "${P[@]}"
	[ "$status" -eq 0 ]
	same "$output" "$(cat "$d/whole.tsv")"
}

@test "a truncated partial: exit 1, FILE:LINE named, every rank's figures and the other partials used; its lost calls are said missing, not guessed" {
	local off

	# cut inside its fifth line (rank 1's third collective call)
	off=5
	{ head -4 "$d/P1"; sed -n 5p "$d/P1" | head -c 20; } > cut
	run --separate-stderr mct-ranks --merge -o tsv "$d/P0" cut "$d/P2" "$d/P3"
	[ "$status" -eq 1 ]
	same "$stderr" "mct-ranks: cut:$off: truncated partial: its last line is cut"
	same "$output" "$(cat "$d/whole.tsv")"
	run --separate-stderr mct-ranks --merge --collectives -o tsv "$d/P0" cut "$d/P2" "$d/P3"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"cut:$off: truncated partial: its last line is cut"* ]]
	[[ "$stderr" == *"ncclDevKernel_AllReduce_Sum_f32_RING_LL: 4 collectives not on every rank (rank 0: 6, rank 1: 2, rank 2: 6, rank 3: 6), left out"* ]]
	# the two collectives on every rank are those of the whole job
	same "$(printf '%s\n' "$output" | awk -F'\t' '/^nccl/ && ($2 == 1 || $2 == 2)')" \
	    "$(awk -F'\t' '/^nccl/ && ($2 == 1 || $2 == 2)' "$d/colls.tsv")"

	# cut at a line's end: no end line
	head -3 "$d/P1" > cut2
	run --separate-stderr mct-ranks --merge -o tsv "$d/P0" cut2
	[ "$status" -eq 1 ]
	same "$stderr" "mct-ranks: cut2:$(wc -l < cut2): truncated partial: no end line after 2 lines"
	# a damaged call line costs only that call
	sed '4s/"ts"/"t5"/' "$d/P1" > bad
	run --separate-stderr mct-ranks --merge -o tsv "$d/P0" bad
	[ "$status" -eq 1 ]
	same "$stderr" "mct-ranks: bad:4: damaged partial line"
	same "$output" "$(mct-ranks --merge -o tsv "$d/P0" "$d/P1")"
}

@test "not partials of mct-ranks: another version, mct-group's, a trace given to --merge, a partial without --merge, a missing file, nothing: exit 2, the place named" {
	sed '1s/"mct_ranks_partial":1/"mct_ranks_partial":2/' "$d/P0" > v2
	run --separate-stderr mct-ranks --merge "$d/P1" v2
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	same "$stderr" "mct-ranks: v2:1: a partial of format version 2; this mct-ranks reads version 1"
	mct-group -o partial "$d/s0.nd" > group
	run --separate-stderr mct-ranks --merge group
	[ "$status" -eq 2 ]
	same "$stderr" "mct-ranks: group:1: a partial of mct-group -o partial, not of mct-ranks -o partial"
	run --separate-stderr mct-group --merge "$d/P0"
	[ "$status" -eq 2 ]
	same "$stderr" "mct-group: $d/P0:1: a partial of mct-ranks -o partial, not of mct-group -o partial"
	# operands are all partials (--merge) or all traces
	run --separate-stderr mct-ranks --merge "$d/P0" "$d/job/rank-1.json"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	same "$stderr" "mct-ranks: $d/job/rank-1.json:1: not a partial of mct-ranks -o partial (no header line)"
	run --separate-stderr mct-ranks -o tsv "$d/job/rank-0.json" "$d/P1"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == *"mct-ranks: $d/P1:1: a partial, not a trace: read partials with --merge (and only partials)"* ]]
	run --separate-stderr mct-ranks --merge "$d/P0" nosuch
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == "mct-ranks: nosuch: "* ]]
	run --separate-stderr mct-ranks --merge < /dev/null
	[ "$status" -eq 2 ]
	same "$stderr" "mct-ranks: (stdin): empty: not a partial of mct-ranks -o partial"
}

@test "-o partial: a trace alone keeps its rank (distributedInfo, else its file name; through a pipe, the header or mct-cat --rank); a rank without device work is all 0" {
	genf rank-5.json --scale 0.005
	mct-ranks -o partial rank-5.json | sed -n 2p | grep -q '^{"rank":5,"start":'
	mct-cat --rank=auto rank-5.json | mct-ranks -o partial | sed -n 2p |
	    grep -q '^{"rank":5,"start":'
	mct-ranks -o partial < "$d/s2.nd" | sed -n 2p | grep -q '^{"rank":2,"start":'
	# a rank with profiler steps and no device work: its figures are 0
	# (its origin is its one event's ts, 1 us)
	printf '{"traceEvents":[{"ph":"X","name":"ProfilerStep#1","ts":1,"dur":5,"pid":1,"tid":1}]}\n' > rank-7.json
	run mct-ranks -o partial rank-7.json
	[ "$status" -eq 0 ]
	same "$(printf '%s\n' "$output" | sed -n 2p)" \
	    '{"rank":7,"start":0,"end":0,"busy":0,"compute":0,"comm":0,"kernel":0,"memory":0,"rounds":0,"round":null,"origin":1000}'
	# a run that reads nothing writes no partial
	run --separate-stderr mct-ranks -o partial nosuch.json
	[ "$status" -eq 2 ]
	[ -z "$output" ]
}

@test "--merge --align start: the ranks' clocks aligned as mct-cat --align start aligns them (the same collectives, the same shifts said); not for a partial of a stream of ranks" {
	mct-cat --align start "$d"/job/rank-[0-3].json 2> shifts > aligned.nd
	run --separate-stderr mct-ranks --merge --align start --collectives -o tsv "${P[@]}"
	[ "$status" -eq 0 ]
	same "$output" "$(mct-ranks --collectives -o tsv aligned.nd)"
	[ "$output" != "$(cat "$d/colls.tsv")" ]
	same "$(printf '%s\n' "$stderr" | sed 's/ (.*)//')" \
	    "$(sed 's/^mct-cat:/mct-ranks:/; s/ (.*)//' shifts)"
	[ "$(grep -c 'shifted by -[1-9]' shifts)" -eq 3 ]
	same "$(mct-ranks --merge --align start -o tsv "${P[@]}" 2> /dev/null)" \
	    "$(cat "$d/whole.tsv")"
	# an aligned partial merges again to the same
	mct-ranks --merge --align start -o partial "$d/P3" "$d/P1" "$d/P0" "$d/P2" > A 2> /dev/null
	same "$(mct-ranks --merge --collectives -o tsv A)" \
	    "$(mct-ranks --collectives -o tsv aligned.nd)"
	# the ranks of one stream have no origins of their own in a partial
	mct-cat "$d"/job/rank-[0-3].json | mct-ranks -o partial > S
	run --separate-stderr mct-ranks --merge --align start S
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	same "$stderr" "mct-ranks: --align start: rank 0 of S has no origin of its own (a partial of a stream of several ranks): align with mct-cat --align start before it"
	run --separate-stderr mct-ranks --align start "$d/job.nd"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "mct-ranks: --align: with --merge only"* ]]
	run --separate-stderr mct-ranks --merge --align ProfilerStep "${P[@]}"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "mct-ranks: --align: 'ProfilerStep': none or start"* ]]
}

@test "--merge of 20,000 ranks: each rank once, in rank order; a rank among them again is found" {
	head -2 "$d/P0" > one
	"$PYTHON3" - one many 20000 <<'PY'
import sys
hdr, rank = open(sys.argv[1]).read().splitlines()[:2]
n = int(sys.argv[3])
out = [hdr] + [rank.replace('"rank":0,', '"rank":%d,' % i, 1) for i in range(n - 1, -1, -1)]
out.append('{"mct_ranks_partial_end":%d}' % n)
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
	run --separate-stderr mct-ranks --merge -o tsv many
	[ "$status" -eq 0 ]
	same "$(printf '%s\n' "$output" | cut -f1)" "$(printf 'rank\n'; seq 0 19999)"
	sed -n '1p;2p' many | sed 's/"rank":19999,/"rank":4321,/' > again
	echo '{"mct_ranks_partial_end":1}' >> again
	run --separate-stderr mct-ranks --merge -o tsv many again
	[ "$status" -eq 2 ]
	# (the partials made here have no identity: each is noted as older)
	[[ "$stderr" == *"
mct-ranks: again:"*": rank 4321 is also in many: "* ]]
}

@test "-o partial of a call ending past 2^62 ns (ts 4e18, dur 4e18) or of a negative dur (ts 10, dur -5): --merge of it is the table of one run (such a call lasts no time, as in mct-phases); an end past 2^62 or a start after the end is still damaged" {
	local c ev why

	for c in far neg; do
		case $c in
		far) ev='"ts":4000000000000000000,"dur":4000000000000000000' ;;
		neg) ev='"ts":10,"dur":-5' ;;
		esac
		printf '{"traceEvents":[%s,\n%s,\n%s,\n%s]}\n' \
		    '{"name":"a","cat":"kernel","ph":"X","pid":2,"tid":7,"ts":100,"dur":10}' \
		    '{"name":"ncclDevKernel_AllReduce","cat":"kernel","ph":"X","pid":2,"tid":8,'"$ev"'}' \
		    '{"name":"ProfilerStep#1","ph":"X","pid":1,"tid":1,'"$ev"'}' \
		    '{"name":"a","cat":"kernel","ph":"X","pid":2,"tid":7,"ts":200,"dur":30}' > $c.json
		# (a negative dur is damage, said: exit 1, the call kept)
		mct-ranks -u ns -o partial $c.json > $c.P 2> /dev/null ||
		    { [ $? -eq 1 ] && [ $c = neg ]; }
		run --separate-stderr mct-ranks --merge -o tsv $c.P
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		same "$output" "$(mct-ranks -u ns -o tsv $c.json 2> /dev/null)"
		run --separate-stderr mct-ranks --merge --collectives -o tsv $c.P
		[ "$status" -eq 0 ]
		same "$output" "$(mct-ranks -u ns --collectives -o tsv $c.json 2> /dev/null)"
	done
	[ "$(mct-ranks --merge -o tsv --no-header far.P | cut -f 2,3)" = "$(printf '3999999999999999900\t40')" ]
	[ "$(mct-ranks --merge -o tsv --no-header neg.P | cut -f 2,3)" = "$(printf '220\t40')" ]
	# what no trace makes: the end a call past 2^62 would have, a start
	# after the end, the call itself: damaged, exit 1
	for c in end start call; do
		case $c in
		end) sed '2s/"end":[0-9]*/"end":8000000000000000000/' far.P > T
		    why="start and end are not times of a trace, start before end" ;;
		start) sed '2s/"start":[0-9]*/"start":300/' neg.P > T
		    why="start and end are not times of a trace, start before end" ;;
		call) sed '3s/"dur":0/"dur":4000000000000000000/' far.P > T
		    why="ts and dur are not a span of time" ;;
		esac
		! cmp -s T far.P && ! cmp -s T neg.P
		run --separate-stderr mct-ranks --merge -o tsv T
		[ "$status" -eq 1 ]
		[[ "$stderr" == "mct-ranks: T:"[23]": damaged partial line: $why"* ]]
	done
}

@test "-o partial of a trace whose smallest ts is beyond 2^62 ns (-5e18): the rank's origin null, --merge of it the table of one run; --align start refuses it, as mct-cat --align start does" {
	printf '{"traceEvents":[%s,\n%s,\n%s]}\n' \
	    '{"name":"a","cat":"kernel","ph":"X","pid":2,"tid":7,"ts":100,"dur":10}' \
	    '{"name":"h","ph":"X","pid":1,"tid":1,"ts":-5000000000000000000,"dur":10}' \
	    '{"name":"a","cat":"kernel","ph":"X","pid":2,"tid":7,"ts":200,"dur":30}' > o.json
	mct-ranks -u ns -o partial o.json > o.P
	sed -n 2p o.P | grep -q '"origin":null}$'
	run --separate-stderr mct-ranks --merge -o tsv o.P
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	same "$output" "$(mct-ranks -u ns -o tsv o.json)"
	run --separate-stderr mct-ranks --merge --collectives -o tsv o.P
	[ "$status" -eq 0 ]
	same "$output" "$(mct-ranks -u ns --collectives -o tsv o.json)"
	run --separate-stderr mct-ranks --merge --align start -o tsv o.P
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	run mct-cat -u ns --align start o.json
	[ "$status" -eq 2 ]
	# a rank's origin there is still damaged (partial-trust.bats: -2^63)
	sed '2s/"origin":null/"origin":-5000000000000000000/' o.P > T
	run --separate-stderr mct-ranks --merge -o tsv T
	[ "$status" -eq 1 ]
	same "$stderr" "mct-ranks: T:2: damaged partial line: the origin is not a time of a trace"
}
