#!/usr/bin/env bats
# mct-cat.bats - every option, message and exit status of mct-cat(1).
#
# Events are checked against tests/oracle.py (python3's json, ts/dur
# converted with decimal arithmetic) or against exact expected text.

load helpers

setup_file() {
	light_trace
	# The seed-shaped trace at full scale (225,852 events), made once.
	genf "$BATS_FILE_TMPDIR/full.json"
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	full="$BATS_FILE_TMPDIR/full.json"
}

# mct-cat's stdout, stderr and status, for the file-based checks below:
# out.nd, err, and $status.
cat_to() {
	mct-cat "$@" > out.nd 2> err && status=0 || status=$?
}

# --- the full-scale generated trace -------------------------------------

@test "full-scale trace: 225,852 event lines after one header line" {
	cat_to "$full"
	[ "$status" -eq 0 ]
	same "$(cat err)" ""
	same "$(wc -l < out.nd)" 225853
	same "$(grep -c '^{"name":"mct_header"' out.nd)" 1
	same "$(gen --stats | awk '$1 == "events" { print $2 }')" 225852
}

@test "full-scale trace: every event equals python's event at the same position" {
	cat_to "$full"
	[ "$status" -eq 0 ]
	py check out.nd "$full"
}

@test "full-scale trace (ns): every event line is the input's event text, byte for byte" {
	# gentrace writes one compact event a line; in an ns source nothing of
	# the text may change, big ts digits included
	cat_to "$full"
	sed -n '2,$p' "$full" | grep '^{' | sed 's/,$//' > want
	tail -n +2 out.nd > got
	cmp want got
	grep -qF '"ts":1712195480123456789,' got
}

@test "full-scale trace: the header has the origin gentrace reports" {
	cat_to "$full"
	origin=$(gen --stats | awk '$1 == "origin" { print $2 }')
	[ -n "$origin" ]
	[[ "$(head -1 out.nd)" == *'"unit":"ns","unit_from":"events carry args.co_id (mcTracer)","origin":'"$origin,"* ]]
}

@test "mct-cat big.json | head -1 returns at once, without 'Broken pipe'" {
	run bash -c 'timeout 20 mct-cat "$0" 2>err | head -1; echo "status ${PIPESTATUS[0]}"' "$full"
	[[ "${lines[0]}" == '{"name":"mct_header","ph":"M","args":{"version":1,'* ]]
	[[ "${lines[1]}" == "status 141" || "${lines[1]}" == "status 0" ]]
	same "$(cat err)" ""
}

@test "a write error (>/dev/full) exits 2 with 'mct-cat: write error: No space left on device'" {
	for o in ndjson tsv csv table trace; do
		echo "-o $o"
		run --separate-stderr bash -c 'mct-cat -o "$0" "$1" >/dev/full' "$o" "$full"
		[ "$status" -eq 2 ]
		same "$stderr" "mct-cat: write error: No space left on device"
	done
}

# --- input forms ---------------------------------------------------------

@test "Object form with top-level keys before and after traceEvents: events and keys as python reads them" {
	genf t.json --scale 0.02 --keys-around
	cat_to t.json
	[ "$status" -eq 0 ]
	same "$(cat err)" ""
	py check --sources t.json -- out.nd t.json
	# the keys, in order, and how many came before traceEvents
	[[ "$(head -1 out.nd)" == *'"form":"object","sorted":true,"top_before":2,"top":{"schemaVersion":1,"deviceProperties":[{'*'}],"displayTimeUnit":"ns","otherData":{'*'}}},"sources":["t.json"]}}' ]]
}

@test "Array form: the same events" {
	genf t.json --scale 0.02 --form array
	cat_to t.json
	[ "$status" -eq 0 ]
	py check out.nd t.json
	[[ "$(head -1 out.nd)" == *'"form":"array","sorted":true,"top_before":0,"top":{}'* ]]
}

@test "indented trace (one key a line): the same events, compacted" {
	genf t.json --scale 0.02 --indent
	cat_to t.json
	[ "$status" -eq 0 ]
	py check out.nd t.json
	genf a.json --scale 0.02 --indent --form array
	cat_to a.json
	[ "$status" -eq 0 ]
	py check out.nd a.json
}

@test "NDJSON input: the same events, form ndjson" {
	genf t.ndjson --scale 0.02 --form ndjson
	cat_to t.ndjson
	[ "$status" -eq 0 ]
	same "$(cat err)" ""
	py check out.nd t.ndjson
	[[ "$(head -1 out.nd)" == *'"form":"ndjson"'* ]]
}

@test "gzip is read by its magic bytes: a file, a file without .gz, standard input" {
	genf t.json --scale 0.02 --keys-around
	gzip -c t.json > t.json.gz
	cp t.json.gz t.bin
	for f in t.json.gz t.bin; do
		cat_to "$f"
		[ "$status" -eq 0 ]
		py check out.nd t.json
	done
	gzip -c t.json | mct-cat > out.nd
	py check out.nd t.json
}

@test "concatenated gzip members are read one after the other" {
	genf t.json --scale 0.02
	head -c 100000 t.json | gzip -c > t.json.gz
	tail -c +100001 t.json | gzip -c >> t.json.gz
	cat_to t.json.gz
	[ "$status" -eq 0 ]
	same "$(cat err)" ""
	py check out.nd t.json
}

@test "standard input: no operand, '-', and a pipe" {
	genf t.json --scale 0.02 --unit us
	mct-cat < t.json > a.nd
	py check --sources - -- a.nd t.json
	mct-cat - < t.json > b.nd
	py check --sources - -- b.nd t.json
	gen --scale 0.02 --unit us | mct-cat > c.nd
	py check c.nd t.json
}

@test "'-' among file operands reads standard input at its place" {
	printf '[{"name":"a","ts":1}]' > a.json
	printf '[{"name":"b","ts":2}]' > b.json
	printf '[{"name":"c","ts":3}]' > c.json
	run --separate-stderr mct-cat a.json - c.json < b.json
	[ "$status" -eq 0 ]
	same "${lines[1]}" '{"name":"a","ts":1000,"rank":0}'
	same "${lines[2]}" '{"name":"b","ts":2000,"rank":1}'
	same "${lines[3]}" '{"name":"c","ts":3000,"rank":2}'
	[ "${#lines[@]}" -eq 4 ]
}

@test "a leading UTF-8 byte order mark is skipped silently" {
	printf '\357\273\277{"traceEvents":[{"name":"a","ts":5}]}' > t.json
	run --separate-stderr mct-cat t.json
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	same "${lines[1]}" '{"name":"a","ts":5000}'
	[[ "${lines[0]}" == *'"form":"object"'* ]]
}

@test "an mct stream as input passes through; a second stream's header is dropped" {
	genf a.json --scale 0.02
	genf b.json --scale 0.01 --unit us
	mct-cat a.json > a.nd
	mct-cat b.json > b.nd
	cat_to a.nd
	[ "$status" -eq 0 ]
	py check out.nd a.json
	cat_to a.nd b.nd
	[ "$status" -eq 0 ]
	same "$(cat err)" ""
	same "$(grep -c '"name":"mct_header"' out.nd)" 1
	py check --sources a.nd b.nd -- out.nd a.json b.json
}

# --- what the stream keeps -----------------------------------------------

@test "number text, string bytes, escapes and key order are kept; whitespace between tokens goes" {
	cat > t.json <<'EOF'
{ "traceEvents" : [
  { "name" : "a \u00e9\/b\n\"q\"" , "ts" : 7 , "z" : 1.10, "y": -0.0, "x": 1E+3,
    "id" : 123456789012345678901234567890, "args" : { "big" : 18446744073709551616,
    "s" : "two  spaces", "t": true, "f": false, "n": null, "e": [ ], "o": { } } },
  {}
] }
EOF
	run --separate-stderr mct-cat t.json
	[ "$status" -eq 0 ]
	same "${lines[1]}" '{"name":"a \u00e9\/b\n\"q\"","ts":7000,"z":1.10,"y":-0.0,"x":1E+3,"id":123456789012345678901234567890,"args":{"big":18446744073709551616,"s":"two  spaces","t":true,"f":false,"n":null,"e":[],"o":{}}}'
	same "${lines[2]}" '{}'
	[ "${#lines[@]}" -eq 3 ]
}

@test "every JSON object in the events array is an event, {} included, first and last" {
	printf '[{},{"ts":1},{}]' > t.json
	run --separate-stderr mct-cat t.json
	[ "$status" -eq 0 ]
	same "${lines[1]}" '{}'
	same "${lines[2]}" '{"ts":1000}'
	same "${lines[3]}" '{}'
}

@test "the header line: exact keys and order, as the design gives it" {
	printf '{"traceEvents":[{"ph":"X","ts":0.25,"dur":1}],"otherData":{"v":1}}' > t.json
	run --separate-stderr mct-cat t.json
	[ "$status" -eq 0 ]
	same "${lines[0]}" '{"name":"mct_header","ph":"M","args":{"version":1,"unit":"us","unit_from":"a ts or dur has a fraction","origin":250,"form":"object","sorted":true,"top_before":0,"top":{"otherData":{"v":1}},"sources":["t.json"]}}'
	same "${lines[1]}" '{"ph":"X","ts":250,"dur":1000}'
}

@test "unit detection: a fraction means us, args.co_id means ns, otherwise us (Chrome's default)" {
	printf '[{"ts":10,"dur":2,"args":{"co_id":1}},{"ts":11.5}]' > frac.json
	printf '[{"ts":10,"dur":2,"args":{"co_id":1}},{"ts":11}]' > coid.json
	printf '[{"ts":10,"dur":2,"args":{"x":1}},{"ts":11}]' > plain.json
	for f in frac coid plain; do
		mct-cat $f.json > $f.nd
		py check $f.nd $f.json
	done
	[[ "$(head -1 frac.nd)" == *'"unit":"us","unit_from":"a ts or dur has a fraction","origin":10000,'* ]]
	[[ "$(head -1 coid.nd)" == *'"unit":"ns","unit_from":"events carry args.co_id (mcTracer)","origin":10,'* ]]
	[[ "$(head -1 plain.nd)" == *'"unit":"us","unit_from":"Chrome trace format default","origin":10000,'* ]]
	same "$(sed -n 2p coid.nd)" '{"ts":10,"dur":2,"args":{"co_id":1}}'
	same "$(sed -n 2p frac.nd)" '{"ts":10000,"dur":2000,"args":{"co_id":1}}'
}

@test "µs input: ts and dur become exact integer ns, from the decimal text" {
	genf t.json --scale 0.02 --unit us
	cat_to t.json
	[ "$status" -eq 0 ]
	py check out.nd t.json
	origin=$(gen --scale 0.02 --stats | awk '$1 == "origin" { print $2 }')
	[[ "$(head -1 out.nd)" == *'"unit":"us","unit_from":"a ts or dur has a fraction","origin":'"$origin,"* ]]
	printf '[{"ts":1712195495519689.047,"dur":0.001},{"ts":1712195495519689.0475,"dur":2.5e-3},{"ts":-1.0005,"dur":0.0004}]' > x.json
	run --separate-stderr mct-cat x.json
	same "${lines[1]}" '{"ts":1712195495519689047,"dur":1}'
	same "${lines[2]}" '{"ts":1712195495519689048,"dur":3}'
	same "${lines[3]}" '{"ts":-1001,"dur":0}'
}

@test "rounding to the ns is half away from zero, done once on the exact value" {
	# 0.0004999 us is 0.4999 ns: 0, not 1 (no rounding in two steps)
	printf '[{"ts":0.0005},{"ts":-0.0005},{"ts":0.0004999},{"ts":0.00149999}]' > t.json
	run --separate-stderr mct-cat t.json
	same "${lines[1]}" '{"ts":1}'
	same "${lines[2]}" '{"ts":-1}'
	same "${lines[3]}" '{"ts":0}'
	same "${lines[4]}" '{"ts":1}'
}

@test "a string ts or dur holding a number becomes a number; other strings stay strings" {
	printf '[{"ts":"250","dur":"1.5"},{"ts":"soon","dur":""}]' > t.json
	run --separate-stderr mct-cat t.json
	[ "$status" -eq 0 ]
	same "${lines[1]}" '{"ts":250000,"dur":1500}'
	same "${lines[2]}" '{"ts":"soon","dur":""}'
	# in an ns source too
	printf '[{"ts":"250","dur":"12","args":{"co_id":1}}]' > n.json
	run --separate-stderr mct-cat n.json
	same "${lines[1]}" '{"ts":250,"dur":12,"args":{"co_id":1}}'
}

@test "string ts that are not JSON numbers ('.5', '+1', '1.') never make invalid JSON" {
	printf '[{"ts":".5"},{"ts":"+1"},{"ts":"1."},{"ts":"0x10"},{"ts":"1e3"}]' > t.json
	cat_to t.json
	py stream out.nd
}

@test "ts and dur with an exponent become integer ns, also in an ns source" {
	printf '[{"ts":1e3,"dur":2E1,"args":{"co_id":1}}]' > t.json
	cat_to t.json
	py stream out.nd
	same "$(sed -n 2p out.nd)" '{"ts":1000,"dur":20,"args":{"co_id":1}}'
}

@test "generated trace with string ts/dur (--string-ts): numbers in the stream" {
	genf t.json --scale 0.02 --string-ts
	cat_to t.json
	[ "$status" -eq 0 ]
	py stream out.nd
	py check out.nd t.json
}

@test "the header carries the true origin for unsorted input read through a pipe" {
	for layout in shuffle sections; do
		echo "layout $layout"
		gen --scale 0.05 --layout $layout | mct-cat > out.nd
		genf t.json --scale 0.05 --layout $layout
		py check out.nd t.json
		origin=$(gen --scale 0.05 --stats | awk '$1 == "origin" { print $2 }')
		[[ "$(head -1 out.nd)" == *"\"origin\":$origin,"* ]]
	done
	# the shuffled trace does not start with its smallest ts
	[[ "$(gen --scale 0.05 --layout shuffle | grep -m1 -o '"ts":[0-9]*')" != "\"ts\":$origin" ]]
}

@test "origin leaves out ph M events, and is null when no event has a ts" {
	printf '[{"ph":"M","ts":1,"name":"process_name"},{"ph":"X","ts":5,"dur":1}]' > t.json
	run mct-cat t.json
	[[ "${lines[0]}" == *'"origin":5000,'* ]]
	printf '[{"ph":"M","name":"process_name","ts":3}]' > m.json
	run mct-cat m.json
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *'"origin":null,'* ]]
	same "${lines[1]}" '{"ph":"M","name":"process_name","ts":3000}'
}

# --- cut-off and damaged input -------------------------------------------

@test "a trace cut off inside an event: every complete event before it, the offset named, exit 1" {
	genf whole.json --scale 0.02
	off=$(head -n 1000 whole.json | wc -c)	# where the 1000th event starts
	gen --scale 0.02 --cut $((off + 25)) > cut.json
	same "$(wc -c < cut.json)" $((off + 25))
	{ head -n 1000 whole.json | sed '$s/,$//'; echo ']}'; } > want.json
	cat_to cut.json
	[ "$status" -eq 1 ]
	same "$(cat err)" "mct-cat: cut.json:$off: cut off inside an event at the end of the input; 25 bytes dropped"
	py check out.nd want.json
	same "$(wc -l < out.nd)" 1000
}

@test "a trace cut off right after an event (no ]}) is complete: exit 0, no message" {
	genf whole.json --scale 0.02
	off=$(head -n 1000 whole.json | wc -c)
	gen --scale 0.02 --cut $((off - 2)) > cut.json	# before ",\n"
	{ head -n 1000 whole.json | sed '$s/,$//'; echo ']}'; } > want.json
	cat_to cut.json
	[ "$status" -eq 0 ]
	same "$(cat err)" ""
	py check out.nd want.json
}

@test "Array form without ] and with a trailing comma comes through whole, exit 0" {
	genf t.json --scale 0.02 --form array --no-close --trailing-comma
	[[ "$(tail -c 3 t.json)" == *"},"* ]]
	cat_to t.json
	[ "$status" -eq 0 ]
	same "$(cat err)" ""
	py check out.nd t.json
	genf o.json --scale 0.02 --no-close
	cat_to o.json
	[ "$status" -eq 0 ]
	py check out.nd o.json
}

@test "a syntax error inside an event in the middle: events before and after come through, exit 1, offsets named" {
	genf t.json --scale 0.02
	line=$(sed -n 500p t.json)
	off=$(head -n 499 t.json | wc -c)
	pre=${line%%\"ph\":*}
	sed '500s/"ph":/"ph" /' t.json > bad.json
	sed '500d' t.json > want.json
	cat_to bad.json
	[ "$status" -eq 1 ]
	# the error is where the ':' should be: at "X", after the space
	same "$(cat err)" "mct-cat: bad.json:$((off + ${#pre} + 5)): expected ':' after a key; the event at offset $off is dropped"
	py check out.nd want.json
}

@test "a syntax error in an indented trace: only that event is lost" {
	genf t.json --scale 0.02 --indent
	# break the 300th event: its "ph" line loses the colon
	n=$(grep -n '^    {$' t.json | sed -n 300p | cut -d: -f1)
	sed "$((n + 2))s/\"ph\": /\"ph\" /" t.json > bad.json
	! cmp -s t.json bad.json
	py events t.json | sed 300d > want.nd
	cat_to bad.json
	[ "$status" -eq 1 ]
	grep -qE "^mct-cat: bad.json:[0-9]+: expected ':' after a key; the event at offset $(head -n $((n - 1)) t.json | wc -c | awk '{ print $1 + 4 }') is dropped\$" err
	py compare want.nd out.nd
}

@test "a damaged line of NDJSON input: only that line is lost" {
	genf t.ndjson --scale 0.02 --form ndjson
	sed '100s/,"ph":/,"ph"::/' t.ndjson > bad.ndjson
	sed 100d t.ndjson > want.ndjson
	cat_to bad.ndjson
	[ "$status" -eq 1 ]
	[ "$(wc -l < err)" -eq 1 ]
	grep -qE "^mct-cat: bad.ndjson:[0-9]+: .*; the event at offset $(head -n 99 t.ndjson | wc -c) is dropped\$" err
	py check out.nd want.ndjson
}

@test "elements of the events array that are not objects are reported and skipped, exit 1" {
	printf '[{"ts":1},5,"x",[1,{}],null,{"ts":3}]' > t.json
	run --separate-stderr mct-cat t.json
	[ "$status" -eq 1 ]
	same "$stderr" "mct-cat: t.json:10: not an event (not a JSON object); skipped
mct-cat: t.json:12: not an event (not a JSON object); skipped
mct-cat: t.json:16: not an event (not a JSON object); skipped
mct-cat: t.json:23: not an event (not a JSON object); skipped"
	same "${lines[1]}" '{"ts":1000}'
	same "${lines[2]}" '{"ts":3000}'
	[ "${#lines[@]}" -eq 3 ]
}

@test "repair: an invalid escape is kept as a backslash, exit 1" {
	printf '[{"name":"a\\qb","ts":1}]' > t.json
	run --separate-stderr mct-cat t.json
	[ "$status" -eq 1 ]
	same "$stderr" "mct-cat: t.json:11: invalid escape kept as a backslash"
	same "${lines[1]}" '{"name":"a\\qb","ts":1000}'
}

@test "repair: a raw control character is escaped, exit 1" {
	printf '[{"name":"a\001b\tc","ts":1}]' > t.json
	run --separate-stderr mct-cat t.json
	[ "$status" -eq 1 ]
	same "$stderr" "mct-cat: t.json:11: raw control character escaped"
	same "${lines[1],,}" '{"name":"a\u0001b\u0009c","ts":1000}'
}

@test "repair: invalid UTF-8 becomes U+FFFD, exit 1; valid UTF-8 is untouched" {
	printf '[{"name":"\303\251a\377b","ts":1}]' > t.json
	run --separate-stderr mct-cat t.json
	[ "$status" -eq 1 ]
	same "$stderr" "mct-cat: t.json:13: invalid UTF-8 replaced by U+FFFD"
	same "${lines[1]}" "$(printf '{"name":"\303\251a\357\277\275b","ts":1000}')"
}

@test "repair: a trailing comma in an event is dropped, exit 1" {
	printf '[{"name":"ab","a":[1,2,],"ts":1,}]' > t.json
	run --separate-stderr mct-cat t.json
	[ "$status" -eq 1 ]
	[[ "$stderr" =~ ^"mct-cat: t.json:"(22|23)": trailing comma dropped"$ ]]
	same "${lines[1]}" '{"name":"ab","a":[1,2],"ts":1000}'
}

@test "repair: NaN, Infinity and -Infinity become null, the event is kept, exit 1" {
	printf '[{"ts":1,"v":NaN,"w":[Infinity,-Infinity]},{"ts":2}]' > t.json
	run --separate-stderr mct-cat t.json
	[ "$status" -eq 1 ]
	[[ "$stderr" == "mct-cat: t.json:13: NaN or Infinity written as null"* ]]
	same "${lines[1]}" '{"ts":1000,"v":null,"w":[null,null]}'
	same "${lines[2]}" '{"ts":2000}'
}

@test "a file that is not JSON: 'not a trace', exit 2 (not a damaged trace)" {
	echo 'hello, world' > t.txt
	run --separate-stderr mct-cat t.txt
	[ "$status" -eq 2 ]
	same "$stderr" "mct-cat: t.txt:0: not a trace: expected '{' or '[', found 'h'"
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *'"origin":null,'* ]]
}

@test "an empty file, [] and {\"traceEvents\":[]}: a header and no events, exit 0; the empty file warned of" {
	: > e.json
	printf '[]' > a.json
	printf '{"traceEvents":[],"otherData":{}}' > o.json
	for f in e.json a.json o.json; do
		run --separate-stderr mct-cat $f
		[ "$status" -eq 0 ]
		if [ $f = e.json ]; then
			same "$stderr" "mct-cat: e.json: empty input: no events"
		else
			[ -z "$stderr" ]
		fi
		[ "${#lines[@]}" -eq 1 ]
		[[ "${lines[0]}" == '{"name":"mct_header",'*'"origin":null,'* ]]
	done
	[[ "$(mct-cat o.json)" == *'"form":"object","sorted":true,"top_before":0,"top":{"otherData":{}}'* ]]
}

@test "a gzip file cut off: the events before the cut, then 'gzip stream cut off', exit 1" {
	genf t.json --scale 0.02
	gzip -c t.json | head -c 50000 > cut.json.gz
	# what zlib can inflate of it (gzip(1) has an inflate of its own
	# that may stop a byte or so earlier)
	"$PYTHON3" -c 'import sys, zlib
sys.stdout.buffer.write(zlib.decompressobj(31).decompress(open(sys.argv[1], "rb").read()))' \
	    cut.json.gz > prefix
	size=$(wc -c < prefix)
	[ "$size" -gt 0 ]
	# the complete lines of what could be decompressed, closed again
	{ head -n "$(wc -l < prefix)" prefix | sed '$s/,$//'; echo ']}'; } > want.json
	cat_to cut.json.gz
	[ "$status" -eq 1 ]
	grep -qx "mct-cat: cut.json.gz:$size: gzip stream cut off" err
	py check out.nd want.json
}

@test "a missing file: exit 2, 'No such file or directory', the other operands still read" {
	genf t.json --scale 0.02
	cat_to nosuch.json t.json
	[ "$status" -eq 2 ]
	same "$(cat err)" "mct-cat: nosuch.json: No such file or directory"
	py check --sources nosuch.json t.json -- out.nd t.json
}

@test "a directory: exit 2, 'is a directory', the other operands still read" {
	mkdir d
	printf '[{"ts":1}]' > t.json
	cat_to t.json d
	[ "$status" -eq 2 ]
	same "$(cat err)" "mct-cat: d: is a directory"
	py check --sources t.json d -- out.nd t.json
}

@test "damage and an unreadable file together: exit 2 wins over 1" {
	printf '[{"ts":1},5]' > t.json
	cat_to t.json nosuch.json
	[ "$status" -eq 2 ]
	grep -qx "mct-cat: t.json:10: not an event (not a JSON object); skipped" err
	grep -qx "mct-cat: nosuch.json: No such file or directory" err
}

@test "damaged lines of a stream operand are reported by line number and skipped, exit 1" {
	printf '%s\n' '{"name":"mct_header","ph":"M","args":{"version":1,"unit":"us","unit_from":"a ts or dur has a fraction","origin":5,"form":"array","top_before":0,"top":{},"sources":["x"]}}' \
	    '{"ts":5}' 'not json' '{"ts":6' '{"ts":7} x' '{"ts":8}' > s.nd
	run --separate-stderr mct-cat s.nd
	[ "$status" -eq 1 ]
	same "${lines[1]}" '{"ts":5}'
	same "${lines[2]}" '{"ts":8}'
	[ "${#lines[@]}" -eq 3 ]
	same "$(grep -c '^mct-cat: s\.nd:[345]: .*; line skipped$' <<<"$stderr")" 3
	same "$(wc -l <<<"$stderr")" 3
}

# --- several operands ----------------------------------------------------

@test "several files: one header, origin the smallest over all, events of each in turn, each in its own unit" {
	genf a.json --scale 0.02		# ns (mcTracer)
	printf '{"traceEvents":[{"name":"early","ph":"X","ts":1712195480000000.5,"dur":1}]}' > b.json
	genf c.json --scale 0.01 --form array --unit us
	cat_to a.json b.json c.json
	[ "$status" -eq 0 ]
	py check --sources a.json b.json c.json -- out.nd a.json b.json c.json
	[[ "$(head -1 out.nd)" == *'"unit":"ns",'*'"origin":1712195480000000500,"form":"object",'* ]]
}

# --- output formats and fields -------------------------------------------

fields_input() {
	cat > f.json <<'EOF'
{"traceEvents":[
{"name":"k\tx","ph":"X","pid":2,"tid":"7","ts":1000.5,"dur":20,"args":{"grid":[2056,32,1],"a b":"p,q","a.b":"say \"hi\"","n":null,"deep":{"x":{"y":true}}}},
{"name":"m","ph":"i","pid":1,"ts":999}
]}
EOF
}

@test "-o tsv: default columns, strings unescaped then \\t \\n \\r \\\\ escaped, missing values empty" {
	cat > t.json <<'EOF'
[{"name":"a\tb\\c\nd\u00e9","ph":"X","pid":1,"tid":2,"ts":1,"dur":2},{"ph":"i","ts":3}]
EOF
	run --separate-stderr mct-cat -o tsv t.json
	[ "$status" -eq 0 ]
	same "${lines[0]}" $'ts\tdur\tph\tpid\ttid\tname'
	same "${lines[1]}" $'1000\t2000\tX\t1\t2\ta\\tb\\\\c\\nd\303\251'
	same "${lines[2]}" $'3000\t\ti\t\t\t'
	[ "${#lines[@]}" -eq 3 ]
}

@test "-F: first-level keys, dotted paths, quoted segments, rel, end; arrays as compact JSON" {
	fields_input
	run --separate-stderr mct-cat -o tsv -F 'name,ts,dur,rel,end,args.grid,args."a b",args."a.b",args.n,args.deep.x.y,tid,cat' f.json
	[ "$status" -eq 0 ]
	same "$output" "$(printf '%s\n' \
	    'name	ts	dur	rel	end	args.grid	args."a b"	args."a.b"	args.n	args.deep.x.y	tid	cat' \
	    'k\tx	1000500	20000	1500	1020500	[2056,32,1]	p,q	say "hi"		true	7	' \
	    'm	999000		0	999000							')"
	run --separate-stderr mct-cat --fields name,args.grid -o tsv f.json
	same "${lines[1]}" "k\\tx	[2056,32,1]"
}

@test "-o csv: RFC 4180 quoting, the header names quoted too" {
	fields_input
	run --separate-stderr mct-cat -o csv -F 'name,ts,args.grid,args."a b",args."a.b",args.n' f.json
	[ "$status" -eq 0 ]
	same "$output" "$(printf '%s\n' \
	    'name,ts,args.grid,"args.""a b""","args.""a.b""",args.n' \
	    'k	x,1000500,"[2056,32,1]","p,q","say ""hi""",' \
	    'm,999000,,,,')"
}

@test "-o table: aligned columns with a header" {
	fields_input
	run --separate-stderr mct-cat -o table -F name,ts,pid f.json
	[ "$status" -eq 0 ]
	same "$output" "$(printf '%s\n' \
	    'name  ts (ns)  pid' \
	    'k\tx  1000500  2' \
	    'm     999000   1')"
}

@test "-o table, -o md: a length of time in a unit each, a point in time in ns with the unit in the header, as python's" {
	cat > u.json <<'EOF'
{"traceEvents":[
{"name":"a","ph":"X","pid":1,"tid":1,"ts":1000,"dur":0.18},
{"name":"b","ph":"X","pid":1,"tid":1,"ts":1500.25,"dur":2590},
{"name":"c","ph":"X","pid":1,"tid":1,"ts":9000,"dur":253990.5},
{"name":"d","ph":"X","pid":1,"tid":1,"ts":12000,"dur":27940000}
]}
EOF
	want=$("$PYTHON3" - u.json <<-'PY' | humanize 3
	import json, sys
	from decimal import Decimal
	ev = json.load(open(sys.argv[1]), parse_float=Decimal)["traceEvents"]
	origin = min(int(e["ts"] * 1000) for e in ev)
	for e in ev:
	    ts, dur = int(e["ts"] * 1000), int(e["dur"] * 1000)
	    print("%s\t%d\t%d\t%d\t%d" % (e["name"], ts, dur, ts - origin, ts + dur))
	PY
	)
	want=$(printf 'name\tts (ns)\tdur\trel (ns)\tend (ns)\n%s' "$want")
	run --separate-stderr mct-cat -o table -F name,ts,dur,rel,end u.json
	[ "$status" -eq 0 ]
	same "$(cells <<<"$output")" "$want"
	run --separate-stderr mct-cat -o md -F name,ts,dur,rel,end u.json
	same "$(sed '2d; s/^| //; s/ |$//; s/ | /\t/g' <<<"$output")" "$want"
	# tsv and csv: numbers, the header bare
	same "$(mct-cat -o tsv -F ts,dur u.json | head -2)" "$(printf 'ts\tdur\n1000000\t180')"
}

@test "-o table --time-unit: every time the exact number in that unit, the header naming it" {
	cat > u.json <<'EOF'
{"traceEvents":[{"name":"b","ph":"X","pid":1,"tid":1,"ts":1500.25,"dur":2590}]}
EOF
	for u in ns us ms s; do
		run --separate-stderr mct-cat -o table --time-unit $u -F name,ts,dur u.json
		want=$("$PYTHON3" -c '
import sys
from decimal import Decimal
d = {"ns": 1, "us": 1000, "ms": 10**6, "s": 10**9}[sys.argv[1]]
def f(ns):
    t = format(Decimal(ns) / d, "f")
    return t.rstrip("0").rstrip(".") if "." in t else t
print("name\tts (%s)\tdur (%s)" % (sys.argv[1], sys.argv[1]))
print("b\t%s\t%s" % (f(1500250), f(2590000)))' $u)
		same "$(cells <<<"$output")" "$want"
	done
}

@test "-o md: a Markdown (GFM) table, header row, separator row, | in cells escaped" {
	printf '{"traceEvents":[{"name":"k|x","ph":"X","pid":2,"ts":1000.5},{"name":"m","ph":"i","pid":1,"ts":999}]}' > t.json
	run --separate-stderr mct-cat -o md -F name,ts,pid t.json
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
	[[ "${lines[0]}" =~ ^"|"" "*"name"" "*"|"" "*"ts (ns)"" "*"|"" "*"pid"" "*"|"$ ]]
	[[ "${lines[1]}" =~ ^"|"(" "*:?-{3,}:?" "*"|"){3}$ ]]
	[[ "${lines[2]}" =~ ^"|"" "*"k\\|x"" "*"|"" "*"1000500"" "*"|"" "*"2"" "*"|"$ ]]
	[[ "${lines[3]}" =~ ^"|"" "*"m"" "*"|"" "*"999000"" "*"|"" "*"1"" "*"|"$ ]]
}

@test "--no-header drops the header line of tsv and csv; a table keeps its header" {
	fields_input
	run mct-cat -o tsv --no-header -F name,pid f.json
	same "$output" $'k\\tx\t2\nm\t1'
	run mct-cat -o csv --no-header -F name,pid f.json
	same "$output" "$(printf 'k\tx,2\nm,1')"
	run mct-cat -o table --no-header -F name,pid f.json
	same "${lines[0]}" "name  pid"
	# ndjson has its header line whatever --no-header says
	run mct-cat --no-header f.json
	[[ "${lines[0]}" == '{"name":"mct_header",'* ]]
}

@test "--time-unit us, ms, s: exact decimals, trailing zeros dropped; ns integers" {
	fields_input
	for u in ns us ms s; do
		run --separate-stderr mct-cat -o tsv --no-header --time-unit $u -F ts,dur,rel,end f.json
		[ "$status" -eq 0 ]
		case $u in
		ns) same "${lines[0]}" "1000500	20000	1500	1020500" ;;
		us) same "${lines[0]}" "1000.5	20	1.5	1020.5" ;;
		ms) same "${lines[0]}" "1.0005	0.02	0.0015	1.0205" ;;
		s)  same "${lines[0]}" "0.0010005	0.00002	0.0000015	0.0010205" ;;
		esac
	done
}

@test "-o tsv and -o csv on a generated trace equal python's columns" {
	genf t.json --scale 0.02 --unit us
	F='name,ts,dur,rel,end,ph,pid,tid,args.grid,args.co_id,args.bytes,id'
	for fmt in tsv csv; do
		mct-cat -o $fmt -F "$F" --time-unit us t.json > got
		py columns --format $fmt --fields "$F" --time-unit us t.json > want
		cmp want got
	done
}

@test "-o ndjson is the default output" {
	genf t.json --scale 0.02
	mct-cat -o ndjson t.json > a.nd
	py check a.nd t.json
	mct-cat --output=ndjson t.json > b.nd
	py check b.nd t.json
}

@test "-u/--unit forces the source unit: ns, us, ms, s, exactly; the header says so" {
	printf '[{"ts":1.5,"dur":2},{"ts":1.123456789,"dur":0}]' > t.json
	for u in ns us ms s; do
		echo "unit $u"
		run --separate-stderr mct-cat -u $u t.json
		[ "$status" -eq 0 ]
		[[ "${lines[0]}" == *"\"unit\":\"$u\",\"unit_from\":\"given by --unit\","* ]]
		mct-cat --unit=$u t.json > out.nd
		py check --unit $u out.nd t.json
	done
	run mct-cat -u s t.json
	same "${lines[1]}" '{"ts":1500000000,"dur":2000000000}'
	same "${lines[2]}" '{"ts":1123456789,"dur":0}'
	run mct-cat -u ns t.json
	same "${lines[1]}" '{"ts":2,"dur":2}'
	same "${lines[2]}" '{"ts":1,"dur":0}'
	run mct-cat --unit auto t.json
	[[ "${lines[0]}" == *'"unit":"us","unit_from":"a ts or dur has a fraction"'* ]]
}

@test "-u us on a trace that detection calls ns multiplies by 1000" {
	printf '[{"ts":9000000000000000,"dur":250,"args":{"co_id":1}},{"ts":8999999999999999.5}]' > t.json
	mct-cat -u us t.json > out.nd
	py check --unit us out.nd t.json
	same "$(sed -n 2p out.nd)" '{"ts":9000000000000000000,"dur":250000,"args":{"co_id":1}}'
}

@test "a ts too large for int64 ns after conversion is reported, exit 1" {
	# 9.3e15 us is 9.3e18 ns > 2^63: the stream cannot carry it as ns
	printf '[{"ts":9300000000000000,"args":{"co_id":1}},{"ts":5}]' > t.json
	cat_to -u us t.json
	[ "$status" -eq 1 ]
	grep -q '^mct-cat: t.json:.*9300000000000000' err
	same "$(sed -n 3p out.nd)" '{"ts":5000}'
}

@test "-u does not convert a stream again: a stream is always in ns" {
	genf t.json --scale 0.02 --unit us
	mct-cat t.json | mct-cat -u us > out.nd
	py check out.nd t.json
	mct-cat t.json | mct-cat -u s - > out.nd
	py check out.nd t.json
}

@test "no spool file in TMPDIR: exit 2 with a message naming the folder (a pipe, gzip, MCT_SPOOL)" {
	printf '[{"ts":1}]' > t.json
	gzip -c t.json > t.json.gz
	msg="mct-cat: cannot make a temporary file in $BATS_TEST_TMPDIR/none (set TMPDIR): No such file or directory"
	TMPDIR="$BATS_TEST_TMPDIR/none" run --separate-stderr bash -c 'cat t.json | mct-cat'
	[ "$status" -eq 2 ]
	same "$stderr" "$msg"
	TMPDIR="$BATS_TEST_TMPDIR/none" run --separate-stderr mct-cat t.json.gz
	[ "$status" -eq 2 ]
	same "$stderr" "$msg"
	MCT_SPOOL=1 TMPDIR="$BATS_TEST_TMPDIR/none" run --separate-stderr mct-cat t.json
	[ "$status" -eq 2 ]
	same "$stderr" "$msg"
}

@test "no spool file: nothing written, not even the header, whatever the other operands (through a pipe)" {
	genf t.json --scale 0.02
	gzip -c t.json > t.json.gz
	none="$BATS_TEST_TMPDIR/none"
	TMPDIR=$none run --separate-stderr mct-cat t.json.gz
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	TMPDIR=$none run --separate-stderr mct-cat t.json t.json.gz
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	run --separate-stderr bash -c 'TMPDIR=$PWD/none mct-cat t.json.gz | mct-group -o tsv; echo "${PIPESTATUS[*]}"'
	same "$output" "$(printf 'name\tcount\ttotal\tshare\tmean\tmedian\tmin\tmax\n2 0')"
	same "$stderr" "mct-cat: cannot make a temporary file in $none (set TMPDIR): No such file or directory
mct-group: (stdin): empty input: no events"
	run bash -c 'set -o pipefail; TMPDIR=$PWD/none mct-cat t.json.gz | mct-group -o tsv'
	[ "$status" -eq 2 ]
}

@test "the spool fails after the header is out (--merge): the stream ends with its cut line, which a reader reports (exit 1)" {
	genf t.json --scale 0.02 --layout shuffle
	TMPDIR="$BATS_TEST_TMPDIR/none" run --separate-stderr mct-cat --merge t.json
	[ "$status" -eq 2 ]
	[ "$(printf '%s\n' "$output" | wc -l)" -eq 2 ]
	same "$(printf '%s\n' "$output" | tail -1)" '{"name":"mct_cut","ph":"M","args":{}}'
	run --separate-stderr bash -c 'TMPDIR=$PWD/none mct-cat --merge t.json | mct-group -o tsv; echo "${PIPESTATUS[*]}"'
	same "$(printf '%s\n' "$output" | tail -1)" "2 1"
	[[ "$stderr" == *"mct-group: (stdin):2: the stream is cut: its writer stopped on an error before its end" ]]
}

@test "a stream that ends with its cut line: every intact event is read, the cut said with its line, exit 1" {
	genf t.json --scale 0.02
	mct-cat t.json > s.nd
	mct-group -o tsv s.nd > whole.tsv
	printf '%s\n' '{"name":"mct_cut","ph":"M","args":{}}' >> s.nd
	n=$(wc -l < s.nd)
	for tool in "mct-group -o tsv" "mct-cat"; do
		run --separate-stderr $tool s.nd
		[ "$status" -eq 1 ]
		same "$stderr" "${tool%% *}: s.nd:$n: the stream is cut: its writer stopped on an error before its end"
	done
	run --separate-stderr mct-group -o tsv s.nd
	same "$output" "$(cat whole.tsv)"
	run --separate-stderr mct-cat s.nd
	same "$output" "$(cat s.nd | head -n -1)"
}

@test "a plain file needs no spool: it is read twice (also as standard input)" {
	genf t.json --scale 0.02
	TMPDIR="$BATS_TEST_TMPDIR/none" mct-cat t.json > out.nd
	py check out.nd t.json
	TMPDIR="$BATS_TEST_TMPDIR/none" mct-cat < t.json > out2.nd
	py check out2.nd t.json
}

@test "a plain file that shrinks between the passes: said, exit 1" {
	genf t.json --scale 0.2
	# once the first bytes arrive, pass 2 has begun: cut the file short
	run --separate-stderr bash -c 'mct-cat t.json | { head -c 1 >/dev/null;
		truncate -s 2000000 t.json; cat > out.nd; }; exit ${PIPESTATUS[0]}'
	[ "$status" -eq 1 ]
	same "$stderr" "mct-cat: t.json: the file shrank while it was read (2000000 bytes, was $(gen --scale 0.2 | wc -c))"
}

@test "the spool goes to TMPDIR and is gone afterwards" {
	mkdir tmp
	genf t.json --scale 0.02
	cat t.json | TMPDIR="$BATS_TEST_TMPDIR/tmp" mct-cat > out.nd
	py check out.nd t.json
	same "$(ls -A tmp)" ""
}

@test "a file read twice, in parts by threads (MCT_SPLIT), or once through the spool (MCT_SPOOL): the same stream" {
	# every form and layout (the header's origin and "sorted" of a
	# shuffled trace included); parts of 4 KB, so a file is cut in eight
	genf obj.json --scale 0.02
	genf ind.json --scale 0.02 --indent=4 --keys-around
	genf arr.json --scale 0.02 -f array --layout shuffle
	genf nd.json --scale 0.02 -f ndjson --layout sections
	genf us.json --scale 0.02 -u us --string-ts --no-close
	genf cut.json --scale 0.02 --trailing-comma --cut 200000
	for f in obj ind arr nd us cut; do
		MCT_SPOOL=1 mct-cat $f.json > spool.nd 2> spool.err || echo "rc $?" >> spool.err
		for split in 4096 65536 1000000000; do
			MCT_SPLIT=$split mct-cat $f.json > part.nd 2> part.err || echo "rc $?" >> part.err
			cmp spool.nd part.nd
			cmp spool.err part.err
		done
		[ $f = cut ] || py check part.nd $f.json	# python cannot read a cut file
	done
	# two parts, each sorted, cut exactly where ts falls back: the
	# header still says unsorted, and the origin is the second part's
	{ echo '['; seq 15000 15499 | sed 's/.*/{"ts":&},/'
	  seq 10000 10498 | sed 's/.*/{"ts":&},/'; echo '{"ts":10499}'; echo ']'; } > two.json
	size=$(wc -c < two.json)
	MCT_SPLIT=$((size / 2)) mct-cat two.json | head -1 > head.nd
	grep -q '"origin":10000000,"form":"array","sorted":false' head.nd
	same "$(MCT_SPLIT=$((size / 2)) mct-cat two.json | wc -l)" 1001
}

@test "a part or block that changes the form (an NDJSON line, then an object with traceEvents): every way of reading says object, no message" {
	# The threads' parts and blocks began with the form of the first
	# event and their own change of it was lost: the header said ndjson,
	# lost the top-level key, and a block's false start said "unexpected
	# ','" or "the file changed while it was read" (reader fuzz finding).
	printf '%s\n' '{"traceMvents":[]}' '{"traceEvents":[' \
	    '{"name":"a","ph":"X","pid":2,"tid":1,"ts":100,"dur":10},' \
	    '{"name":"b","ph":"X","pid":2,"tid":1,"ts":200,"dur":10}' \
	    '],"k":1}' > fm.json
	gzip -c fm.json > fm.json.gz
	mct-cat fm.json > want.nd
	grep -q '"form":"object",.*"top":{"k":1}' want.nd
	same "$(sed 1d want.nd | wc -l)" 3
	local how f
	for how in MCT_SPLIT=16 MCT_SPLIT=40 "MCT_SPOOL=1 MCT_SPLIT=16" \
	    "MCT_SPOOL=1 MCT_SPLIT=" "MCT_GZSLOT=16 MCT_SPLIT=16"; do
		for f in fm.json fm.json.gz; do
			run --separate-stderr env $how mct-cat $f
			[ "$status" -eq 0 ]
			same "$stderr" ""
			same "$(printf '%s\n' "$output" | sed 's/fm\.json\.gz/fm.json/')" \
			    "$(cat want.nd)"
		done
	done
}

# --- wrap ----------------------------------------------------------------

@test "mct-cat t.json | mct-cat --wrap: Object form, top-level keys in place, ts/dur back in the source unit (exact text)" {
	printf '{"a":1,"traceEvents":[{"ts":1.5,"dur":0.25,"name":"x"},{"ph":"M","name":"m"}],"b":{"c":[1,2]}}' > t.json
	run --separate-stderr bash -c 'mct-cat t.json | mct-cat --wrap'
	[ "$status" -eq 0 ]
	same "$output" '{"a":1,"traceEvents":[
{"ts":1.5,"dur":0.25,"name":"x"},
{"ph":"M","name":"m"}
],"b":{"c":[1,2]}}'
}

@test "--wrap of Array form and of NDJSON: [ ... ] and {\"traceEvents\":[ ... ]}" {
	printf '[{"ts":1},{"ts":2.5}]' > a.json
	run bash -c 'mct-cat a.json | mct-cat -w'
	same "$output" '[
{"ts":1},
{"ts":2.5}
]'
	printf '{"ts":1}\n{"ts":2}\n' > n.ndjson
	run bash -c 'mct-cat n.ndjson | mct-cat -w'
	same "$output" '{"traceEvents":[
{"ts":1},
{"ts":2}
]}'
}

@test "--wrap of an empty trace is valid JSON with no events" {
	printf '[]' > a.json
	mct-cat a.json | mct-cat --wrap > w.json
	py wrapcheck a.json w.json
	printf '{"traceEvents":[],"x":1}' > o.json
	mct-cat o.json | mct-cat --wrap > w.json
	py wrapcheck o.json w.json
}

@test "µs round trip: mct-cat t.json | mct-cat --wrap equals t.json event for event, keys in order, in µs" {
	genf t.json --scale 0.05 --unit us --keys-around
	mct-cat t.json | mct-cat --wrap > w.json
	py wrapcheck t.json w.json
	genf a.json --scale 0.05 --unit us --form array
	mct-cat a.json | mct-cat --wrap > w.json
	py wrapcheck a.json w.json
}

@test "ns round trip: mct-cat t.json | mct-cat --wrap keeps every event, the ts digits and the top-level keys" {
	genf t.json --scale 0.1 --keys-around
	mct-cat t.json | mct-cat --wrap > w.json
	py wrapcheck t.json w.json
	# an ns source's events come back byte for byte
	cmp <(sed -n '2,$p' t.json | grep '^{' | sed 's/,$//') <(sed -n '2,$p' w.json | grep '^{' | sed 's/,$//')
}

@test "-w, --wrap and -o trace read a trace directly and write the same trace" {
	genf t.json --scale 0.02 --unit us --keys-around
	for o in -w --wrap "-o trace" "--output=trace"; do
		echo "option $o"
		# shellcheck disable=SC2086
		mct-cat $o t.json > w.json
		py wrapcheck t.json w.json
	done
}

@test "--wrap writes times back in a unit given by -u (ms, s), exactly" {
	printf '{"traceEvents":[{"ts":1.5,"dur":0.000001},{"ts":2,"dur":3}]}' > t.json
	for u in ms s; do
		mct-cat -u $u t.json | mct-cat --wrap > w.json
		py wrapcheck --unit $u t.json w.json
	done
	run bash -c 'mct-cat -u ms t.json | mct-cat --wrap'
	same "$output" '{"traceEvents":[
{"ts":1.5,"dur":0.000001},
{"ts":2,"dur":3}
]}'
}

@test "--wrap of a cut-off trace makes a complete trace python reads" {
	genf t.json --scale 0.02 --form array --no-close --trailing-comma --unit us
	mct-cat t.json | mct-cat --wrap > w.json
	py wrapcheck t.json w.json
}

@test "--wrap of a slice (head of a stream) keeps the header's facts" {
	genf t.json --scale 0.02 --keys-around
	mct-cat t.json | head -101 | mct-cat --wrap > w.json
	{ head -n 101 t.json | sed '$s/,$//'; echo '],"displayTimeUnit":"ns","otherData":{"tracer":"mcTracer","version":"2.1.0","device":{"name":"C500","count":1}}}'; } > want.json
	py wrapcheck want.json w.json
}

# --- progress ------------------------------------------------------------

@test "--progress: a progress line on stderr for a slow input, and the output unchanged" {
	genf t.json --scale 0.05
	run --separate-stderr bash -c '{ head -c 300000 t.json; sleep 1.5; tail -c +300001 t.json; } |
		mct-cat --progress > out.nd'
	[ "$status" -eq 0 ]
	[[ "$stderr" =~ "mct-cat: (stdin): "[0-9]+" MB, "[0-9]+" events" ]]
	py check out.nd t.json
}

@test "--no-progress, and stderr not a terminal: no progress line" {
	genf t.json --scale 0.05
	for o in --no-progress ""; do
		run --separate-stderr bash -c '{ head -c 300000 t.json; sleep 1.2; tail -c +300001 t.json; } |
			mct-cat '"$o"' > out.nd'
		[ "$status" -eq 0 ]
		same "$stderr" ""
		py check out.nd t.json
	done
}

@test "--progress then --no-progress: the last one wins" {
	genf t.json --scale 0.05
	run --separate-stderr bash -c '{ head -c 300000 t.json; sleep 1.2; tail -c +300001 t.json; } |
		mct-cat --progress --no-progress > out.nd'
	[ "$status" -eq 0 ]
	same "$stderr" ""
}

# --- usage errors --------------------------------------------------------

@test "an unknown -o format exits 2 naming the option" {
	run --separate-stderr mct-cat -o json /dev/null
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	same "$stderr" "mct-cat: -o: unknown format 'json' (want ndjson, tsv, csv, table, md or trace)
Try 'mct-cat --help' for more information."
}

@test "an unknown --unit exits 2 naming the option" {
	for o in -u --unit; do
		run --separate-stderr mct-cat $o minutes /dev/null
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		same "$stderr" "mct-cat: --unit: unknown unit 'minutes' (want auto, ns, us, ms or s)
Try 'mct-cat --help' for more information."
	done
}

@test "an unknown --time-unit exits 2 naming the option; auto is not a time unit" {
	for u in h auto; do
		run --separate-stderr mct-cat -o tsv --time-unit $u /dev/null
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		same "$stderr" "mct-cat: --time-unit: unknown unit '$u' (want ns, us, ms or s)
Try 'mct-cat --help' for more information."
	done
}

@test "an invalid -F list exits 2 naming the option" {
	for f in '' 'a,,b' 'args."open'; do
		run --separate-stderr mct-cat -o tsv -F "$f" /dev/null
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		same "$stderr" "mct-cat: -F: invalid field list '$f'
Try 'mct-cat --help' for more information."
	done
}

@test "an option without its argument exits 2 with the usage hint" {
	for o in -o -F -u --time-unit; do
		run --separate-stderr mct-cat $o
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[[ "$stderr" == *"Try 'mct-cat --help' for more information." ]]
	done
}

@test "--help lists every option of the man page's synopsis" {
	docs
	run mct-cat --help
	same "${lines[0]}" "usage: mct-cat [-hVw] [-F fields] [-o format] [-u unit] [--align how] [--merge]"
	same "${lines[1]}" "               [--rank how] [file ...]"
	for o in --align -F --fields -h --help --merge --no-header --no-progress -o --output --progress --rank --time-unit -u --unit -V --version -w --wrap; do
		[[ "$output" == *" $o"[\ ,]* ]] || { echo "missing $o"; return 1; }
	done
}

@test "--rules: category in -F from the given rules file; an unreadable one exits 2 before any output" {
	run --separate-stderr mct-cat --rules /nonexistent.rules "$BATS_FILE_TMPDIR/full.json"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == *"rules file /nonexistent.rules"* ]]
	n=$(mct-cat --rules "$MCT_SRCDIR/examples/moe.rules" -o tsv --no-header -F category \
	    "$BATS_FILE_TMPDIR/full.json" | grep -c '^MoE step1 gate/up projection (large)$')
	want=$("$PYTHON3" -c 'import json,sys; ev=json.load(open(sys.argv[1]))["traceEvents"]; print(sum(1 for e in ev if e.get("name")=="kernel_kernel" and e.get("args",{}).get("grid")==[2056,32,1]))' "$BATS_FILE_TMPDIR/full.json")
	[ "$n" -eq "$want" ]
}

# --- pipes ----------------------------------------------------------------

# F_GETPIPE_SZ (Linux): the bytes a pipe holds; 1 MB is the default most
# a user may ask for (/proc/sys/fs/pipe-max-size).
pipe_sz() {
	python3 -c 'import fcntl, sys; print(fcntl.fcntl(int(sys.argv[1]), 1032))' "$1"
}

@test "a pipe mct-cat writes to holds 1 MB (a sixteenth of the wakes of 64 KB)" {
	[ "$(uname)" = Linux ] || skip "F_SETPIPE_SZ is Linux's"
	[ "$(cat /proc/sys/fs/pipe-max-size)" -ge 1048576 ] ||
		skip "pipe-max-size is below 1 MB here"
	# read to the end first: mct-cat has set the size before its first write
	run bash -c 'mct-cat "$1" | python3 -c "
import fcntl, sys
n = sum(1 for _ in sys.stdin.buffer)
print(n, fcntl.fcntl(0, 1032))"' _ "$full"
	[ "$status" -eq 0 ]
	same "$output" "225853 1048576"
	# a pipe the tool does not write to is left as it is
	run bash -c 'printf x | python3 -c "import fcntl; print(fcntl.fcntl(0, 1032))"'
	same "$output" 65536
}

@test "a pipe mct-filter reads from holds 1 MB; its events are the same" {
	[ "$(uname)" = Linux ] || skip "F_SETPIPE_SZ is Linux's"
	[ "$(cat /proc/sys/fs/pipe-max-size)" -ge 1048576 ] ||
		skip "pipe-max-size is below 1 MB here"
	mct-cat "$full" > all.nd
	# the writer waits (5 s at most) for the reader to have grown the pipe
	run bash -c 'python3 -c "
import fcntl, sys, time
sys.stdout.buffer.write(open(sys.argv[1], \"rb\").read(4096))
sys.stdout.flush()
for i in range(500):
    if fcntl.fcntl(1, 1032) == 1048576:
        break
    time.sleep(0.01)
print(fcntl.fcntl(1, 1032), file=sys.stderr)
sys.stdout.buffer.write(open(sys.argv[1], \"rb\").read()[4096:])" all.nd 2> size |
	    mct-filter > filtered.nd'
	[ "$status" -eq 0 ]
	same "$(cat size)" 1048576
	cmp filtered.nd all.nd
}

@test "an event's own rank key: --rank=N and --rank=order replace it, the rules keep it (a null one is none); each key once, as python computes it (it was written twice)" {
	# a: its own rank; b: its own, spelt with an escape; c: null; d: none
	cat > own.json <<-'EOF'
	{"traceEvents":[
	{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1,"rank":7},
	{"ph":"X","name":"b","pid":1,"tid":1,"ts":2,"dur":1,"r\u0061nk":8},
	{"ph":"X","name":"c","pid":1,"tid":1,"ts":3,"dur":1,"rank":null},
	{"ph":"X","name":"d","pid":1,"tid":1,"ts":4,"dur":1}]}
	EOF
	cp own.json other.json
	mct-cat --rank 3 own.json > given.nd
	mct-cat --rank 3 --align start own.json > shifted.nd 2> err
	mct-cat --rank 3 - < own.json > stdin.nd
	mct-cat --rank=order own.json other.json > order.nd
	mct-cat --rank=order --merge own.json other.json > order-merge.nd
	mct-cat own.json other.json > rules.nd
	mct-cat --merge own.json other.json > rules-merge.nd
	"$PYTHON3" - own.json <<'PY'
import json, os, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
sys.path.insert(0, os.environ["MCT_SRCDIR"] + "/tests")
from oracle import keys_once as once
def check(f, ranks, given):
    recs = [json.loads(l, object_pairs_hook=once) for l in open(f)][1:]
    want = []
    for r in ranks:
        for e in ev:
            w = dict(e, ts=e["ts"] * 1000, dur=e["dur"] * 1000)
            if given or w.get("rank") is None:
                w["rank"] = r
            want.append(w)
    key = lambda e: (e["rank"], e["name"], e["ts"])
    assert sorted(recs, key=key) == sorted(want, key=key), (f, recs)
for f in ("given.nd", "shifted.nd", "stdin.nd"):
    check(f, [3], True)
check("order.nd", [0, 1], True)
check("order-merge.nd", [0, 1], True)
check("rules.nd", [0, 1], False)
check("rules-merge.nd", [0, 1], False)
PY
	# a tool reading the operands takes the same ranks (the rules' own)
	run mct-group --by rank -o tsv own.json other.json
	[ "$status" -eq 0 ]
	same "$(printf '%s\n' "${lines[@]}" | cut -f1,2 | sort)" "$(printf '0\t2\n1\t2\n7\t2\n8\t2\nrank\tcount')"
}

@test "an event's own rank key deep in a large operand (framed in parts, gzip in blocks, and stdin): --rank=N replaces it, the rules keep it; each key once (it was written twice)" {
	# the full trace with one event of its own rank three quarters in
	"$PYTHON3" - "$full" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
lines.insert(len(lines) * 3 // 4, '{"name":"own","ph":"X","pid":1,"tid":1,"ts":5,"dur":5,"rank":7},')
open("big.json", "w").write("\n".join(lines))
PY
	gzip -c big.json > big.json.gz
	mct-cat --rank 3 big.json > a.nd
	mct-cat --rank 3 big.json.gz > b.nd
	mct-cat --rank 3 - < big.json.gz > c.nd
	mct-cat --rank=order --merge big.json big.json.gz > d.nd
	mct-cat big.json big.json.gz > e.nd
	"$PYTHON3" - <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["MCT_SRCDIR"] + "/tests")
from oracle import keys_once as once
for f, want in (("a.nd", [3]), ("b.nd", [3]), ("c.nd", [3]),
                ("d.nd", [0, 1]), ("e.nd", [7, 7])):
    got = [json.loads(l, object_pairs_hook=once)["rank"]
           for l in open(f) if '"name":"own"' in l]
    assert sorted(got) == want, (f, got)
PY
}
