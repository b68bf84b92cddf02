#!/usr/bin/env bats
# partial.bats - mct-group -o partial and --merge: a stream split
# any way, its parts' partials merged in any order or in a tree, gives the
# table of one mct-group over the whole, byte for byte; past --exact-limit
# the quantiles stay within the sketch's bound; damaged, truncated and
# mismatched partials; the Slurm recipe.  Numbers are checked by
# tests/partial_oracle.py (python3 json), never against captured output.

load helpers

AGGS=count,total,mean,median,min,max,p90,stddev,first,last

setup_file() {
	light_trace
	local d=$BATS_FILE_TMPDIR i

	# A small seed-shaped stream, split four ways round robin, each
	# group's events in turn (so every group of 4 events or more is in
	# every part); every part keeps the header line.  Each part's partial.
	gen --scale 0.05 | mct-cat > "$d/s.nd"
	head -1 "$d/s.nd" > "$d/h"
	tail -n +2 "$d/s.nd" | "$PYTHON3" -c '
import json, sys
d, n, out = sys.argv[1], {}, [open("%s/body%d" % (sys.argv[1], i), "w") for i in range(4)]
for line in sys.stdin:
    k = json.loads(line).get("name")
    n[k] = n.get(k, -1) + 1
    out[n[k] % 4].write(line)
' "$d"
	# and split by lines alone, round robin
	tail -n +2 "$d/s.nd" | awk -v d="$d" '{ print > (d "/line" (NR % 4)) }'
	for i in 0 1 2 3; do
		cat "$d/h" "$d/line$i" | mct-group -o partial -a "$AGGS" > "$d/R$i"
	done
	for i in 0 1 2 3; do
		cat "$d/h" "$d/body$i" > "$d/part$i.nd"
		mct-group -o partial -a "$AGGS,sum:args.bytes,max:args.bytes" \
		    "$d/part$i.nd" > "$d/P$i"
		mct-group -o partial --exact-limit 100 "$d/part$i.nd" > "$d/L$i"
	done
	mct-group -o tsv -a "$AGGS" "$d/s.nd" > "$d/whole.tsv"
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	d=$BATS_FILE_TMPDIR
	whole=$(cat "$d/whole.tsv")
}

part_oracle() {
	oracle partial_oracle.py "$@"
}

@test "every group of 4 events or more is in every part of the split (the case the acceptance names)" {
	local names i

	names=$(awk -F'\t' 'NR > 1 && $2 >= 4 { print $1 }' "$d/whole.tsv" | sort)
	for i in 0 1 2 3; do
		same "$(mct-group -o tsv -a count "$d/part$i.nd" |
		    awk -F'\t' 'NR > 1 && $2 >= 1 { print $1 }' | sort |
		    grep -Fxf <(printf '%s\n' "$names"))" "$names"
	done
	[ "$(printf '%s\n' "$names" | wc -l)" -gt 20 ]
}

@test "-o partial: each part's partial holds its events' state (count, n, sum, sum of squares, min, max, first, last, values) by the python oracle" {
	local i

	for i in 0 1 2 3; do
		part_oracle state "$d/part$i.nd" "$d/P$i"
	done
	head -1 "$d/P0" | grep -q '^{"mct_partial":1,"by":\["name"\],"value":"dur","x":\["args.bytes"\],.*"sources":\["[^"]*/part0.nd"\]}$'
	tail -1 "$d/P0" | grep -q '^{"mct_partial_end":'
}

@test "--merge of the four partials, in any order, is one mct-group's tsv byte for byte (count total mean median min max p90 stddev first last)" {
	run --separate-stderr mct-group --merge -o tsv -a "$AGGS" "$d/P0" "$d/P1" "$d/P2" "$d/P3"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	same "$output" "$whole"
	run mct-group --merge -o tsv -a "$AGGS" "$d/P3" "$d/P1" "$d/P0" "$d/P2"
	same "$output" "$whole"
	# one stream of partials on standard input
	run mct-group --merge -o tsv -a "$AGGS" < <(cat "$d/P2" "$d/P0" "$d/P3" "$d/P1")
	[ "$status" -eq 0 ]
	same "$output" "$whole"
	# split by lines alone (some groups miss some parts): the same
	run mct-group --merge -o tsv -a "$AGGS" "$d/R2" "$d/R3" "$d/R0" "$d/R1"
	same "$output" "$whole"
}

@test "a merge of merges gives the same bytes; so do partials of partials of one part" {
	mct-group --merge -o partial "$d/P0" "$d/P1" > M01
	mct-group --merge -o partial "$d/P3" "$d/P2" > M23
	run mct-group --merge -o tsv -a "$AGGS" M23 M01
	[ "$status" -eq 0 ]
	same "$output" "$whole"
	mct-group --merge -o partial M01 "$d/P2" > M012
	run mct-group --merge -o tsv -a "$AGGS" "$d/P3" M012
	same "$output" "$whole"
	# the merged partial holds the state of its parts' events
	cat "$d/h" "$d/body0" "$d/body1" > p01.nd
	part_oracle state p01.nd M01
}

@test "--merge writes every output mct-group writes: ndjson rows, csv, md, a table, --top, --total, --sort, sum: and max: fields" {
	local p=("$d/P0" "$d/P1" "$d/P2" "$d/P3") o

	for o in "-o csv --total" "-o md" "-o table" "-o tsv --top 5 --sort p90" \
	    "-o tsv -a count,sum:args.bytes,max:args.bytes" "-o tsv -r --time-unit ms"; do
		echo "# $o"
		# shellcheck disable=SC2086
		same "$(mct-group --merge $o "${p[@]}")" "$(mct-group $o "$d/s.nd")"
	done
	# ndjson: the rows are the same, the header line names the traces
	run mct-group --merge -a "$AGGS" "${p[@]}"
	same "$(printf '%s\n' "$output" | tail -n +2)" \
	    "$(mct-group -a "$AGGS" "$d/s.nd" | tail -n +2)"
	printf '%s\n' "$output" | head -1 |
	    grep -q '"name":"mct_header".*"sources":\["[^"]*/part0.nd","[^"]*/part1.nd","[^"]*/part2.nd","[^"]*/part3.nd"\]'
}

@test "--exact-limit 100: groups past it hold a sketch; merged count total min max are exact, median and p90 within 1% of the oracle's exact ones" {
	local i

	grep -q '"sketch":{' "$d/L0"
	for i in 0 1 2 3; do
		part_oracle state "$d/part$i.nd" "$d/L$i"
	done
	mct-group --merge --exact-limit 100 -o tsv -a count,total,min,max,median,p90 \
	    "$d/L0" "$d/L1" "$d/L2" "$d/L3" > merged.tsv
	run part_oracle within 0.01 "$d/s.nd" -- merged.tsv
	echo "$output"
	[ "$status" -eq 0 ]
	echo "# $output" >&3
	# a sketch is the same whatever the order and the tree of merges
	mct-group --merge -o partial --exact-limit 100 "$d/L2" "$d/L0" > A
	mct-group --merge -o partial --exact-limit 100 "$d/L3" "$d/L1" > B
	same "$(mct-group --merge --exact-limit 100 -o tsv -a median,p90,p99 A B)" \
	    "$(mct-group --merge --exact-limit 100 -o tsv -a median,p90,p99 "$d/L0" "$d/L1" "$d/L2" "$d/L3")"
	# exact partials merged past the merge's own limit become a sketch
	run mct-group --merge --exact-limit 100 -o tsv -a median,p90 "$d/P0" "$d/P1" "$d/P2" "$d/P3"
	same "$output" "$(mct-group --merge --exact-limit 100 -o tsv -a median,p90 "$d/L0" "$d/L1" "$d/L2" "$d/L3")"
}

@test "a truncated partial: exit 1, FILE:LINE named, its intact groups and the other partials merged" {
	local off n

	# cut inside the fourth line (the third group)
	off=4
	{ head -3 "$d/P1"; sed -n 4p "$d/P1" | head -c 20; } > cut
	run --separate-stderr mct-group --merge -o tsv -a count "$d/P0" cut "$d/P2" "$d/P3"
	[ "$status" -eq 1 ]
	same "$stderr" "mct-group: cut:$off: truncated partial: its last line is cut"
	# every group is still there; the two intact groups of cut count fully,
	# the cut one lacks its events of part 1
	[ "$(printf '%s\n' "$output" | wc -l)" -eq "$(printf '%s\n' "$whole" | wc -l)" ]
	for n in 2 3; do
		name=$("$PYTHON3" -c 'import json, sys; print(json.loads(json.loads(sys.argv[1])["key"]))' "$(sed -n ${n}p "$d/P1")")
		same "$(printf '%s\n' "$output" | awk -F'\t' -v n="$name" '$1 == n { print $2 }')" \
		    "$(printf '%s\n' "$whole" | awk -F'\t' -v n="$name" '$1 == n { print $2 }')"
	done
	name=$("$PYTHON3" -c 'import json, sys; print(json.loads(json.loads(sys.argv[1])["key"]))' "$(sed -n 4p "$d/P1")")
	want=$(mct-group -o tsv -a count "$d/part0.nd" "$d/part2.nd" "$d/part3.nd" |
	    awk -F'\t' -v n="$name" '$1 == n { print $2 }')
	same "$(printf '%s\n' "$output" | awk -F'\t' -v n="$name" '$1 == n { print $2 }')" "$want"

	# cut at a line's end: no end line
	head -3 "$d/P1" > cut2
	run --separate-stderr mct-group --merge -o tsv -a count "$d/P0" cut2
	[ "$status" -eq 1 ]
	same "$stderr" "mct-group: cut2:$(wc -l < cut2): truncated partial: no end line after 2 groups"
	# a damaged line in the middle costs only its group (here, alone)
	sed '3s/"count"/"c0unt/' "$d/P1" > bad
	run --separate-stderr mct-group --merge -o tsv -a count bad
	[ "$status" -eq 1 ]
	same "$stderr" "mct-group: bad:3: damaged partial line"
	[ "$(printf '%s\n' "$output" | wc -l)" -eq \
	    $(($(mct-group -o tsv -a count "$d/part1.nd" | wc -l) - 1)) ]
}

@test "partials of another grouping, value or version, a stream, a missing file: exit 2, the place named, nothing written" {
	mct-group -o partial --by cat "$d/part0.nd" > bycat
	mct-group -o partial --value ts "$d/part0.nd" > byts
	mct-group -o partial --missing "$d/part0.nd" > miss
	sed '1s/"mct_partial":1/"mct_partial":2/' "$d/P0" > v2
	for f in bycat byts miss; do
		run --separate-stderr mct-group --merge "$d/P1" "$f"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		same "$stderr" "mct-group: $f:1: a partial of another grouping (--by, --value, --missing or --meta differ)"
	done
	run --separate-stderr mct-group --merge v2 "$d/P1"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	same "$stderr" "mct-group: v2:1: a partial of format version 2; this mct-group reads version 1"
	run --separate-stderr mct-group --merge "$d/s.nd"
	[ "$status" -eq 2 ]
	same "$stderr" "mct-group: $d/s.nd:1: not a partial of mct-group -o partial (no header line)"
	run --separate-stderr mct-group --merge "$d/P0" nosuch
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == "mct-group: nosuch: "* ]]
	# --by and --value given must be the partials' own
	run --separate-stderr mct-group --merge --by cat "$d/P0"
	[ "$status" -eq 2 ]
	run mct-group --merge --by name --value dur -o tsv -a "$AGGS" "$d/P0" "$d/P1" "$d/P2" "$d/P3"
	[ "$status" -eq 0 ]
	same "$output" "$whole"
	# a field the partials do not have
	run --separate-stderr mct-group --merge -a sum:args.grid "$d/P0"
	[ "$status" -eq 2 ]
	same "$stderr" "mct-group: the partials have no field args.grid (write them with -a sum:args.grid or its kin)"
	run --separate-stderr mct-group --exact-limit x "$d/P0"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "mct-group: --exact-limit: invalid number 'x'"* ]]
}

@test "examples/slurm-array.sh: sh -n; its tasks run by hand (SLURM_ARRAY_TASK_ID) and its merge give one mct-group's table" {
	local s=$MCT_SRCDIR/examples/slurm-array.sh i

	sh -n "$s"
	sh -n "$MCT_SRCDIR/examples/fleet.sh"
	for i in 0 1 2 3; do
		echo "$d/part$i.nd"
	done > list
	mkdir out
	for i in 0 1 2 3; do
		SLURM_ARRAY_TASK_ID=$i MCT_AGGS=$AGGS sh "$s" list out
	done
	[ "$(ls out | tr '\n' ' ')" = "partial-0.nd partial-1.nd partial-2.nd partial-3.nd " ]
	run --separate-stderr env MCT_AGGS=$AGGS sh "$s" --merge list out
	[ "$status" -eq 0 ]
	same "$output" "$whole"
	# a task whose trace cannot be read leaves no partial; the merge says so
	echo /no/such/trace.json >> list
	run env SLURM_ARRAY_TASK_ID=4 sh "$s" list out
	[ "$status" -eq 1 ]
	[ ! -e out/partial-4.nd ] && [ ! -e out/partial-4.nd.tmp ]
	run --separate-stderr sh "$s" --merge list out
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"out/partial-4.nd"* ]]
}

@test "examples/slurm-array.sh: the last line of LIST counts without its newline; a trace named -x; no predictable temporary file" {
	local s=$MCT_SRCDIR/examples/slurm-array.sh i

	cp "$d/part0.nd" ./-x.nd
	printf '%s\n%s\n%s\n%s' "$d/part1.nd" "$d/part2.nd" "$d/part3.nd" -x.nd > list
	mkdir out
	# a link where the old script wrote partial-$i.nd.tmp: never followed
	echo victim > victim
	ln -s "$PWD/victim" out/partial-3.nd.tmp
	for i in 0 1 2 3; do
		SLURM_ARRAY_TASK_ID=$i MCT_AGGS=$AGGS sh "$s" list out
	done
	same "$(cat victim)" victim
	[ "$(ls out | tr '\n' ' ')" = "partial-0.nd partial-1.nd partial-2.nd partial-3.nd partial-3.nd.tmp " ]
	[ -z "$(ls -A out | grep '^\.')" ]
	run --separate-stderr env MCT_AGGS=$AGGS sh "$s" --merge list out
	[ "$status" -eq 0 ]
	same "$output" "$whole"
	# the merge of three lines (the last without newline) misses none
	printf '%s\n%s\n%s' "$d/part1.nd" "$d/part2.nd" "$d/part3.nd" > list3
	run --separate-stderr env MCT_AGGS=$AGGS sh "$s" --merge list3 out
	[ "$status" -eq 0 ]
	same "$output" "$(mct-group --merge -o tsv -a "$AGGS" out/partial-[0-2].nd)"
}

# A trace (ns) of two ordinary kernels and one X event EV, on a device lane.
odd_trace() {
	printf '{"traceEvents":[%s,\n%s,\n%s]}\n' \
	    '{"name":"a","cat":"kernel","ph":"X","pid":2,"tid":7,"ts":100,"dur":10}' \
	    "$1" \
	    '{"name":"a","cat":"kernel","ph":"X","pid":2,"tid":7,"ts":200,"dur":30}'
}

@test "-o partial of an event ending past 2^62 ns (ts 4e18, dur 4e18) or of a negative dur (ts 10, dur -5): --merge of it is the table of one run (first, last, ndjson's ts and dur); a last no such event makes is still damaged" {
	local c ev g out
	local A=count,total,mean,median,min,max,p90,stddev,first,last

	for c in far neg; do
		case $c in
		far) ev='{"name":"k","cat":"kernel","ph":"X","pid":2,"tid":7,"ts":4000000000000000000,"dur":4000000000000000000}' ;;
		neg) ev='{"name":"k","cat":"kernel","ph":"X","pid":2,"tid":7,"ts":10,"dur":-5}' ;;
		esac
		odd_trace "$ev" > $c.json
		# (a negative dur is damage, said: exit 1, the event kept)
		mct-group -u ns -o partial -a "$A" $c.json > $c.P 2> /dev/null ||
		    { [ $? -eq 1 ] && [ $c = neg ]; }
		run --separate-stderr mct-group --merge -o tsv -a "$A" $c.P
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		same "$output" "$(mct-group -u ns -o tsv -a "$A" $c.json 2> /dev/null)"
		run --separate-stderr mct-group --merge -o ndjson -a "$A" --sort name $c.P
		[ "$status" -eq 0 ]
		same "$(printf '%s\n' "$output" | tail -n +2)" \
		    "$(mct-group -u ns -o ndjson -a "$A" --sort name $c.json 2> /dev/null | tail -n +2)"
	done
	# the figures as the single run has them, from the trace's origin
	same "$(mct-group --merge -o tsv -a first,last --sort name far.P)" \
	    "$(printf 'name\tfirst\tlast\na\t0\t130\nk\t3999999999999999900\t7999999999999999900')"
	same "$(mct-group --merge -o tsv -a first,last --sort name neg.P)" \
	    "$(printf 'name\tfirst\tlast\na\t90\t220\nk\t0\t-5')"
	# a last 2^62 ns or more before first, or at 2^63-1, is no ts + dur
	# of a trace: the group damaged, skipped, exit 1
	for out in before max; do
		"$PYTHON3" - neg.P $out > T <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
for i, l in enumerate(lines):
    o = json.loads(l)
    if o.get("key") == '"k"':
        o["last"] = o["first"] - 2**62 if sys.argv[2] == "before" else 2**63 - 1
        lines[i] = json.dumps(o, separators=(",", ":"))
        print(i + 1, file=sys.stderr)
print("\n".join(lines))
PY
		g=$(grep -n '"key":"\\"k\\""' T | cut -d: -f1)
		run --separate-stderr mct-group --merge -o tsv -a count T
		[ "$status" -eq 1 ]
		same "$stderr" "mct-group: T:$g: damaged partial group: first and last are not a span of time"
		same "$output" "$(printf 'name\tcount\na\t2')"
	done
}
