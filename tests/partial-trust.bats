#!/usr/bin/env bats
# partial-trust.bats - partials come from other machines: mct-group's and
# mct-ranks' partials are read as untrusted input.  Each case is an intact
# partial of a generated trace tampered by tests/partial_trust.py (python3
# json): the damaged line is named (FILE:LINE and what is wrong),
# skipped, exit 1, and the merged table is what python makes of the intact
# lines; a cut partial followed by another is two partials; no number of a
# partial overflows; keys are JSON, so they forge no record; the same
# partial or source twice is refused, or with --allow-repeat merged and
# said.

load helpers

AGGS=count,total,min,max

setup_file() {
	light_trace
	local d=$BATS_FILE_TMPDIR

	gen --scale 0.05 | mct-cat > "$d/s.nd"
	# the stream in two halves, by lines: two partials of one grouping
	head -1 "$d/s.nd" > "$d/h"
	tail -n +2 "$d/s.nd" | awk -v d="$d" '{ print > (d "/half" (NR % 2)) }'
	cat "$d/h" "$d/half0" > "$d/a.nd"
	cat "$d/h" "$d/half1" > "$d/b.nd"
	mct-group -o partial -a "$AGGS" "$d/a.nd" > "$d/A"
	mct-group -o partial -a "$AGGS" "$d/b.nd" > "$d/B"
	mct-group -o partial --by name,tid "$d/a.nd" > "$d/N"
	mct-group -o partial --exact-limit 5 "$d/a.nd" > "$d/L"
	mkdir "$d/job"
	gen --scale 0.03 --ranks 2 --out "$d/job"
	mct-ranks -o partial "$d/job/rank-0.json" > "$d/R0"
	mct-ranks -o partial "$d/job/rank-1.json" > "$d/R1"
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	d=$BATS_FILE_TMPDIR
}

# tamper CASE IN OUT: OUT and OUT.intact made; the line number in $off
tamper() {
	off=$("$PYTHON3" "$MCT_SRCDIR/tests/partial_trust.py" tamper "$@")
}

# The merged table of partials, and python's of the intact ones.
merged() {
	mct-group --merge -o tsv -a "$AGGS" --sort name "$@"
}

table() {
	oracle partial_trust.py table "$@"
}

# A tampered group partial, merged with an intact one: exit 1, the message,
# the table of the intact lines.
damaged() {
	local c=$1 in=$2 why=$3

	tamper "$c" "$in" T
	run --separate-stderr merged T "$d/B"
	[ "$status" -eq 1 ]
	same "$stderr" "mct-group: T:$off: damaged partial group: $why"
	same "$output" "$(table T.intact "$d/B")"
}

@test "the intact partials merge to python's table; partial_trust.py's table is mct-group's" {
	run --separate-stderr merged "$d/A" "$d/B"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	same "$output" "$(table "$d/A" "$d/B")"
	same "$output" "$(mct-group -o tsv -a "$AGGS" --sort name "$d/s.nd")"
}

@test "a key of fewer parts than --by: exit 1, FILE:OFFSET, the group skipped; no crash in --merge -o ndjson or mct-diff; -o partial passes no bad key on" {
	tamper short-key "$d/N" T
	run --separate-stderr mct-group --merge -o ndjson T
	[ "$status" -eq 1 ]
	same "$stderr" "mct-group: T:$off: damaged partial group: the key has 1 part, --by 2 fields"
	same "$output" "$(mct-group --merge -o ndjson T.intact 2>/dev/null)"
	run --separate-stderr mct-diff --by name,tid -o ndjson T "$d/N"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"mct-diff: T:$off: damaged partial group: the key has 1 part, --by 2 fields"* ]]
	# a merge's partial holds only the intact groups: merged again, clean
	mct-group --merge -o partial T > M 2>/dev/null || true
	run --separate-stderr mct-group --merge -o ndjson M
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "a key part that is not JSON forges no record: exit 1, FILE:OFFSET, no FORGED name in the ndjson of mct-group or mct-diff" {
	tamper bad-part "$d/A" T
	run --separate-stderr mct-group --merge -o ndjson T
	[ "$status" -eq 1 ]
	same "$stderr" "mct-group: T:$off: damaged partial group: part 1 of the key is not a JSON value"
	[[ "$output" != *FORGED* ]]
	run --separate-stderr mct-diff -o ndjson T "$d/A"
	[ "$status" -eq 1 ]
	[[ "$output" != *FORGED* ]]
	run --separate-stderr merged T "$d/B"
	same "$output" "$(table T.intact "$d/B")"
	# two values, each JSON: still not one
	damaged two-values "$d/A" "part 1 of the key is not a JSON value"
}

@test "figures that do not hold together: count below n, n not the number of values, last 2^62 ns before first or at 2^63-1 (no ts + dur of a trace), a second group of one key: each exit 1, named, skipped" {
	damaged count-low "$d/A" "n is $(sed -n 3p "$d/A" | "$PYTHON3" -c 'import json,sys; o=json.load(sys.stdin); print("%d, count %d: more values than events" % (o["n"], o["n"] - 1))')"
	damaged first-last "$d/A" "first and last are not a span of time"
	damaged last-max "$d/A" "first and last are not a span of time"
	damaged dup-key "$d/A" "a second group of the same key"
	tamper n-values "$d/A" T
	run --separate-stderr merged T "$d/B"
	[ "$status" -eq 1 ]
	same "$stderr" "mct-group: T:$off: damaged partial group"
	same "$output" "$(table T.intact "$d/B")"
}

@test "numbers at the int64 limits: first -2^63, a sketch's sum near 2^127 or bucket of 2^62, min above max: exit 1, named, skipped, no negative figure" {
	damaged first-min "$d/A" "first and last are not a span of time"
	damaged sum-huge "$d/L" "sum is not within n times min and max"
	damaged bucket-huge "$d/L" "n is $(sed -n "$(grep -n sketch "$d/L" | head -1 | cut -d: -f1)p" "$d/L" | "$PYTHON3" -c 'import json,sys; o=json.load(sys.stdin); print("%d, the sketch'"'"'s buckets count %d" % (o["n"], o["n"] - o["sketch"]["pos"][1] + 2**62))')"
	damaged min-max "$d/L" "min is above max"
	[[ "$output" != *$'\t-'* ]]
}

@test "count 2^63-1 merged with another partial of its key: the second is skipped as overflowing, exit 1; no negative count" {
	tamper count-max "$d/A" T

	run --separate-stderr mct-group --merge -o ndjson T "$d/B"
	[ "$status" -eq 1 ]
	[[ "$stderr" =~ ^"mct-group: $d/B:"[0-9]+": damaged partial group: its counts and the merged ones pass 2^63"$ ]]
	[[ "$output" == *'"count":9223372036854775807,'* ]]
	[[ "$output" != *'"count":-'* ]]
}

@test "an origin at -2^63 in the header (a trace's may be there): merged, first and last that would pass int64 from it empty, exit 0; a rank's origin at -2^63: a damaged line, exit 1, named" {
	tamper origin-min "$d/A" T
	run --separate-stderr mct-group --merge -o tsv -a count,first,last --sort name T
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	same "$(printf '%s\n' "$output" | cut -f2)" "$(table "$d/A" | cut -f2)"
	[ -z "$(printf '%s\n' "$output" | tail -n +2 | cut -f3,4 | tr -d '\t\n')" ]
	# a rank's origin is the time of its first event: one at -2^63 is a
	# damaged line (and its calls, of no rank), the other rank merged
	tamper rank-origin-min "$d/R0" T
	run --separate-stderr mct-ranks --merge --align start -o tsv T "$d/R1"
	[ "$status" -eq 1 ]
	same "$(printf '%s\n' "$stderr" | head -1)" "mct-ranks: T:$off: damaged partial line: the origin is not a time of a trace"
	same "$output" "$(mct-ranks --merge --align start -o tsv "$d/R1" 2>/dev/null)"
}

@test "a cut partial followed by another (one host's output cut, the next's after it): two partials, the first truncated (exit 1), the table of both" {
	local cut

	# cut inside the third group line (line 4); the next partial glued to it
	cut=4
	[ "$(sed -n 4p "$d/A" | wc -c)" -gt 15 ]
	{ head -3 "$d/A"; sed -n 4p "$d/A" | head -c 15; cat "$d/B"; } > T
	run --separate-stderr merged T
	[ "$status" -eq 1 ]
	same "$stderr" "mct-group: T:$cut: truncated partial: its last line is cut"
	head -3 "$d/A" > first
	same "$output" "$(table first "$d/B")"
	# cut at a line's end: the header of the next names the cut
	{ head -3 "$d/A"; cat "$d/B"; } > T2
	run --separate-stderr merged T2
	[ "$status" -eq 1 ]
	same "$stderr" "mct-group: T2:$cut: truncated partial: no end line after 2 groups"
	same "$output" "$(table first "$d/B")"
}

@test "a cut partial followed by one of another --by: exit 2 (another grouping), nothing written" {
	local cut=4

	{ head -3 "$d/A"; cat "$d/N"; } > T
	run --separate-stderr merged T
	[ "$status" -eq 2 ]
	same "$stderr" "mct-group: T:$cut: truncated partial: no end line after 2 groups
mct-group: T:$cut: a partial of another grouping (--by, --value, --missing or --meta differ)"
	[ -z "$output" ]
}

@test "the same partial twice: exit 2, both files named, nothing written; --allow-repeat merges it and says so" {
	cp "$d/A" A2
	run --separate-stderr merged "$d/A" A2
	[ "$status" -eq 2 ]
	same "$stderr" "mct-group: A2:$(wc -l < A2): the same partial as one in $d/A: its figures would count twice (--allow-repeat merges it)"
	[ -z "$output" ]
	run --separate-stderr merged --allow-repeat "$d/A" A2
	[ "$status" -eq 0 ]
	same "$stderr" "mct-group: A2:$(wc -l < A2): the same partial as one in $d/A: merged again (--allow-repeat)"
	same "$output" "$(table "$d/A" A2)"
	# in one file, one partial after the other
	cat "$d/A" "$d/A" > AA
	run --separate-stderr merged AA
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"AA:"*": the same partial as one in AA: its figures would count twice"* ]]
	# a merge's partial keeps the identities of its partials
	mct-group --merge -o partial "$d/A" "$d/B" > M
	run --separate-stderr merged M "$d/B"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *": the same partial as one in M: its figures would count twice"* ]]
}

@test "the same source of one host twice (two partials of one file): exit 2, the source named; a source '-' is no repeat; the host, digest and sources are in the end line" {
	run --separate-stderr merged "$d/A" "$d/L"
	[ "$status" -eq 2 ]
	[[ "$stderr" =~ ^"mct-group: $d/L:"[0-9]+": source "[^:]+":$d/a.nd is also in $d/A: its figures would count twice (--allow-repeat merges it)"$ ]]
	tail -1 "$d/A" | "$PYTHON3" -c '
import json, re, socket, sys
e = json.load(sys.stdin)
p = e["parts"]
assert len(p) == 1 and p[0]["host"] == socket.gethostname(), p
assert re.fullmatch("[0-9a-f]{16}", p[0]["digest"]), p
assert p[0]["sources"] == [sys.argv[1]], p
' "$d/a.nd"
	mct-group -o partial -a "$AGGS" < "$d/a.nd" > S1
	mct-group -o partial -a "$AGGS" < "$d/b.nd" > S2
	run --separate-stderr merged S1 S2
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "a partial of an older mct (no parts in its end line): merged with a note; a control character of a partial is escaped in messages" {
	tamper no-ident "$d/A" T
	run --separate-stderr merged T "$d/B"
	[ "$status" -eq 0 ]
	same "$stderr" "mct-group: T:$off: a partial of an older mct, without its identity: a repeat of its sources cannot be told"
	same "$output" "$(table "$d/A" "$d/B")"
	tamper ctrl-source "$d/A" T
	tamper ctrl-source "$d/L" U
	run --separate-stderr merged T U
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'/x/\x1b[31mred\x1b[0m.json is also in T'* ]]
	[[ "$stderr" != *$'\x1b'* ]]
}

@test "ranks partials: busy past the span, compute past busy, memory past compute, a negative figure, a start at -2^63, a call at 2^63-1: exit 1, named, the rest merged as python's ranks" {
	local c why

	for c in busy-span compute-busy memory-compute negative start-min ts-max; do
		case $c in
		busy-span|compute-busy) why="busy is more than end - start, or compute or comm more than busy" ;;
		memory-compute) why="kernel or memory negative, or more than compute" ;;
		negative) why="a negative time" ;;
		start-min) why="start and end are not times of a trace, start before end" ;;
		ts-max) why="ts and dur are not a span of time" ;;
		esac
		tamper "$c" "$d/R0" T
		run --separate-stderr mct-ranks --merge -o tsv T "$d/R1"
		[ "$status" -eq 1 ]
		[[ "$stderr" == "mct-ranks: T:$off: damaged partial line: $why"* ]]
		[ "$c" = ts-max ] && continue
		same "$(printf '%s\n' "$output" | awk -F'\t' 'NR > 1 { print $1 "\t" $2 "\t" $3 "\t" $5 }')" \
		    "$(oracle partial_trust.py ranks T.intact "$d/R1")"
	done
}

@test "a ranks partial of an older mct (a rank line without kernel and memory): merged, those two figures of the rank empty, the rest as the intact partial's" {
	tamper no-km "$d/R0" T
	run --separate-stderr mct-ranks --merge -o tsv --no-header T "$d/R1"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	same "$(printf '%s\n' "$output" | cut -f 1-29)" \
	    "$(mct-ranks --merge -o tsv --no-header "$d/R0" "$d/R1" | cut -f 1-29)"
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$30 == "" && $31 == ""' | wc -l)" -eq 1 ]
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$30 > 0' | wc -l)" -eq 1 ]
}

@test "man pages: validation, identity, --allow-repeat and their exit statuses are documented" {
	docs
	grep -q 'allow-repeat' "$MCT_SRCDIR/man/mct-group.1"
	grep -q 'damaged partial group: WHAT' "$MCT_SRCDIR/man/mct-group.1"
	grep -q 'parts' "$MCT_SRCDIR/man/mct-ranks.1"
	grep -q 'damaged partial group' "$MCT_SRCDIR/man/mct-diff.1"
	grep -q 'untrusted' "$MCT_SRCDIR/man/mct.7"
}

@test "a header mct did not write: a --by that is no field, or a line with invalid UTF-8: exit 2, the header named" {
	"$PYTHON3" - "$d/A" <<'PY'
import sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
hdr = lines[0]
assert b'"by":["name"]' in hdr
open("nofield", "wb").write(b"\n".join([hdr.replace(b'"by":["name"]', b'"by":[".ame"]')] + lines[1:]))
open("utf8", "wb").write(b"\n".join([hdr.replace(b'"by":["name"]', b'"by":["n\xffme"]')] + lines[1:]))
PY
	for f in nofield utf8; do
		run --separate-stderr mct-group --merge -o ndjson "$f"
		[ "$status" -eq 2 ]
		same "$output" ""
		[[ "$stderr" == "mct-group: $f:1: "* ]]
	done
}

@test "a sketch whose buckets lie far apart (2,000 groups, each a bucket at either end of the range) costs memory by its buckets, not by their span" {
	"$PYTHON3" - "$d/L" far <<'PY'
import json, sys
lines = open(sys.argv[1]).read().split("\n")
end = json.loads(lines[-2])
out = [lines[0]]
for i in range(2000):
    out.append(json.dumps({"key": json.dumps("g%d" % i), "count": 2, "n": 2,
        "float": False, "sum": 4, "sumsq": 10, "min": 1, "max": 3,
        "fsum": 4, "fsumsq": 10, "fmin": 1, "fmax": 3,
        "sketch": {"zero": 0, "pos": [1, 1, 262000, 1], "neg": []},
        "first": 1, "last": 2, "x": []}, separators=(",", ":")))
end.update(mct_partial_end=2000, alltotal=8000, alltotalf=8000)
out.append(json.dumps(end, separators=(",", ":")))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
	# the peak RSS of the merge, in KB (a dense sketch would take 4 GB)
	rss=$("$PYTHON3" -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=open("out", "w"))
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if r.returncode == 0 else -1)' \
	    mct-group --merge -o tsv -a "$AGGS" --sort name far)
	[ "$rss" -gt 0 ] && [ "$rss" -lt 200000 ]
	same "$(cat out)" "$(table far)"
}
