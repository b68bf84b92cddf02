#!/usr/bin/env bats
# damage.bats - damaged and odd inputs (tests/corpus) through every tool.
#
# For every case of tests/corpus/README and every program (mct-cat,
# mct-filter, mct-group, mct-flow, mct-phases; mct-report on a few): the
# exit status, every message with its place, no crash (a status of 124 or
# more, a timeout included, fails), and every intact event through:
# mct-cat's events are checked against python's json reading of the case
# (tests/corpus/check.py); the other tools' counts against those events.
# mct-cat also reads each case through the spool and in parts by threads
# (MCT_SPOOL, MCT_SPLIT): the same stream, messages and status.
# Then output failures (a closed pipe, a full disk), unreadable operands
# among readable ones, standard input, and the repaired events' exact text.

# (tool commands with their options are split on purpose: $tool unquoted)
# shellcheck disable=SC2086

load helpers

# A sanitizer's report (a --enable-sanitizers build) exits 99, which the
# checks below take for a crash, never for the damaged-input status 1.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=99"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=99"

setup_file() {
	light_trace
	# the corpus: the committed text cases and the ones made here
	sh "$MCT_SRCDIR/tests/corpus/make.sh" "$BATS_FILE_TMPDIR/corpus"
	# a clean, seed-shaped trace big enough that output fills a pipe
	genf "$BATS_FILE_TMPDIR/clean.json" --scale 0.1
}

setup() {
	light_trace
	C=$BATS_FILE_TMPDIR/corpus
	T=$BATS_TEST_TMPDIR
	README=$MCT_SRCDIR/tests/corpus/README
	cd "$C" || return 1
}

# check.py reads only the files it is given: the corpus directory, its cwd,
# is not part of its question (17 MB to digest twice a call)
check() {
	oracle_reads_cwd=0 oracle corpus/check.py "$@"
}

# t PROG ARGS...: run it (60 s at most) with stdout in $T/out, stderr in
# $T/err and the status in $rc.  A status other than 0, 1 or 2 (a crash, a
# signal, the timeout's 124) fails the test here.
t() {
	rc=0
	timeout 60 "$@" > "$T/out" 2> "$T/err" || rc=$?
	if [ "$rc" -gt 2 ]; then
		echo "$*: exit status $rc (a crash, a signal or a hang)"
		head -c 2000 "$T/err"
		return 1
	fi
}

# field CASE N: field N of the case's line in README (1 case, 2 exit,
# 3 messages, 4 intact events).
field() {
	awk -F' [|] ' -v c="$1" -v n="$2" '$1 == c { print $n; f = 1 } END { exit !f }' "$README"
}

# expect PROG CASE: the last run of PROG on CASE exited with the case's
# status and wrote exactly the case's messages.
expect() {
	if [ "$rc" -ne "$want_rc" ]; then
		echo "$1 $2: exit status $rc, want $want_rc"
		head -c 2000 "$T/err"
		return 1
	fi
	check msgs "$1" "$2" "$want_msgs" "$T/err"
}

# r TAG PROG ARGS...: run it (60 s at most) with stdout, stderr and the
# exit status in $T/TAG.out, .err and .rc.  A status other than 0, 1 or 2
# (a crash, a signal, the timeout's 124) fails the test here.
r() {
	local tag=$1 st=0
	shift
	timeout 60 "$@" > "$T/$tag.out" 2> "$T/$tag.err" || st=$?
	echo "$st" > "$T/$tag.rc"
	if [ "$st" -gt 2 ]; then
		echo "$*: exit status $st (a crash, a signal or a hang)"
		head -c 2000 "$T/$tag.err"
		return 1
	fi
}

# check_case CASE: every tool on CASE, then check.py checks every run
# against README's line for CASE (one python for all: it is slow to start).
check_case() {
	local c=$1
	[ -e "$c" ]
	# mct-cat: the stream, checked against python's reading of the case
	r cat mct-cat "$c"
	# the same stream, messages and status when a plain file goes through
	# the spool (as a pipe does) and when threads check it in 64-byte parts
	r cat-spool env MCT_SPOOL=1 mct-cat "$c"
	r cat-parts env MCT_SPLIT=64 mct-cat "$c"
	for m in spool parts; do
		cmp "$T/cat.out" "$T/cat-$m.out"
		cmp "$T/cat.err" "$T/cat-$m.err"
		cmp "$T/cat.rc" "$T/cat-$m.rc"
	done
	# mct-filter: with no predicate, the same stream; -c counts non-M events
	r filter mct-filter "$c"
	r filter-c mct-filter -c "$c"
	# mct-group: every event (metadata and missing ph too) counted by ph
	r group-ph mct-group --meta --missing -k ph -a count -o tsv --no-header "$c"
	r group mct-group -o tsv "$c"
	# mct-flow: --key name makes every X event with a name a host call or
	# a device event; the names are unique, so each is an orphan record
	r flow-name mct-flow --key name --orphans -q "$c"
	r flow mct-flow -q "$c"
	# mct-phases: --device ph makes every X event device work; the phases
	# hold them all
	r phases-dev mct-phases --device ph -o tsv "$c"
	r phases mct-phases --gaps -o ndjson "$c"
	check case "$README" "$c" "$T"
}

# --- every case, every tool ----------------------------------------------

@test "01-object-complete.json: Object form, complete: the control case (exit 0)" {
	check_case 01-object-complete.json
}

@test "02-array-complete.json: Array form, complete (exit 0)" {
	check_case 02-array-complete.json
}

@test "03-object-no-close.json: Object form, ]} missing (a killed profiler): not damage (exit 0)" {
	check_case 03-object-no-close.json
}

@test "04-object-no-close-comma.json: Object form, ]} missing, a comma after the last event: not damage (exit 0)" {
	check_case 04-object-no-close-comma.json
}

@test "05-array-no-close.json: Array form, ] missing: not damage (exit 0)" {
	check_case 05-array-no-close.json
}

@test "06-array-no-close-comma.json: Array form, ] missing, a comma after the last event: not damage (exit 0)" {
	check_case 06-array-no-close-comma.json
}

@test "07-object-bracket-missing.json: Object form with } but without the ] before it (exit 1)" {
	check_case 07-object-bracket-missing.json
}

@test "08-object-brace-missing.json: Object form, ] present, final } missing: not damage (exit 0)" {
	check_case 08-object-brace-missing.json
}

@test "09-array-trailing-comma.json: Array form, a comma before the closing ] (writers' habit): not damage (exit 0)" {
	check_case 09-array-trailing-comma.json
}

@test "10-object-trailing-comma.json: Object form, a comma before ]}: not damage (exit 0)" {
	check_case 10-object-trailing-comma.json
}

@test "11-empty-event-last.json: a {} last event: an event, passes through (exit 0)" {
	check_case 11-empty-event-last.json
}

@test "12-empty-events.json: {} first, between and last: five events (exit 0)" {
	check_case 12-empty-events.json
}

@test "13-metadata-only.json: only ph M events: they pass, origin null (exit 0)" {
	check_case 13-metadata-only.json
}

@test "14-empty.json: an empty file: a header, no events, a warning (exit 0)" {
	check_case 14-empty.json
}

@test "15-empty-array.json: [] (exit 0)" {
	check_case 15-empty-array.json
}

@test "16-empty-object.json: {'traceEvents':[]} (exit 0)" {
	check_case 16-empty-object.json
}

@test "17-whitespace-only.json: only blanks and newlines (exit 0)" {
	check_case 17-whitespace-only.json
}

@test "18-not-json.txt: a text file that is not JSON (exit 2)" {
	check_case 18-not-json.txt
}

@test "19-top-level-scalar.json: a JSON number, not a trace (exit 2)" {
	check_case 19-top-level-scalar.json
}

@test "20-bom.json: a UTF-8 byte order mark before [: skipped silently (exit 0)" {
	check_case 20-bom.json
}

@test "21-crlf.json: Object form with CRLF line ends (exit 0)" {
	check_case 21-crlf.json
}

@test "22-invalid-escape.json: q in args.s of b: written q, b kept; / untouched (exit 1)" {
	check_case 22-invalid-escape.json
}

@test "23-raw-tab.json: a raw TAB in args.s of b: written u0009, b kept (exit 1)" {
	check_case 23-raw-tab.json
}

@test "24-nan-infinity.json: NaN, Infinity, -Infinity in b's args: null, b kept (exit 1)" {
	check_case 24-nan-infinity.json
}

@test "25-duplicate-keys.json: b has ts and name twice: the text (both keys) passes, both ts converted (exit 0)" {
	check_case 25-duplicate-keys.json
}

@test "26-not-objects.json: elements 5, 'x', [1,{}], null, true between events (exit 1)" {
	check_case 26-not-objects.json
}

@test "27-ndjson.json: NDJSON (one event a line, no array) (exit 0)" {
	check_case 27-ndjson.json
}

@test "28-ndjson-broken-line.json: NDJSON with one broken line among good ones (exit 1)" {
	check_case 28-ndjson-broken-line.json
}

@test "29-cut-in-string.json: a trace cut inside a string (exit 1)" {
	check_case 29-cut-in-string.json
}

@test "30-cut-in-number.json: a trace cut inside a number ('ts':12) (exit 1)" {
	check_case 30-cut-in-number.json
}

@test "31-cut-in-key.json: a trace cut inside a key (exit 1)" {
	check_case 31-cut-in-key.json
}

@test "32-cut-after-top-key.json: cut after a top-level key after traceEvents (],'otherData') (exit 1)" {
	check_case 32-cut-after-top-key.json
}

@test "33-cut-in-top-value.json: cut inside the value of a top-level key after traceEvents (exit 1)" {
	check_case 33-cut-in-top-value.json
}

@test "34-stream-broken-line.nd: a stream (header first) with broken lines: not JSON, cut, text after, an array (exit 1)" {
	check_case 34-stream-broken-line.nd
}

@test "35-ts-strings.json: ts and dur as strings ('100', '200.5', '1.25'): numbers in ns; 'x' stays a string (exit 0)" {
	check_case 35-ts-strings.json
}

@test "36-huge-ids.json: ids and args above 2^53 and above int64, a hex id string: the text kept (exit 0)" {
	check_case 36-huge-ids.json
}

@test "37-ts-beyond-int64.json: a ts whose ns do not fit in int64: reported at a byte offset, left as written (exit 1)" {
	check_case 37-ts-beyond-int64.json
}

@test "38-text-after-object.json: text after a complete Object-form trace (exit 1)" {
	check_case 38-text-after-object.json
}

@test "39-text-after-array.json: a second ] after an Array-form trace (exit 1)" {
	check_case 39-text-after-array.json
}

@test "40-missing-comma.json: two events without a comma between them: both kept (exit 1)" {
	check_case 40-missing-comma.json
}

@test "41-syntax-error-middle.json: a syntax error inside an event between good ones (exit 1)" {
	check_case 41-syntax-error-middle.json
}

@test "42-garbage-between-events.json: a line xyz between events of an array (the closing ] is no damage) (exit 1)" {
	check_case 42-garbage-between-events.json
}

@test "43-unquoted-key.json: {name:'x'} (JavaScript, not JSON) (exit 1)" {
	check_case 43-unquoted-key.json
}

@test "44-single-quotes.json: {'name':'x'} (exit 1)" {
	check_case 44-single-quotes.json
}

@test "45-comment-line.json: a // comment line between events (the closing ] is no damage) (exit 1)" {
	check_case 45-comment-line.json
}

@test "46-top-keys-around.json: top-level keys with nested values before and after traceEvents (exit 0)" {
	check_case 46-top-keys-around.json
}

@test "47-string-pid-missing-tid.json: string pid ('2', 'GPU 0'), string tid, no tid (exit 0)" {
	check_case 47-string-pid-missing-tid.json
}

@test "48-unsorted-overlap.json: unsorted events, overlapping X events on one lane (exit 0)" {
	check_case 48-unsorted-overlap.json
}

@test "49-all-ph.json: every ph type of the format, and an unknown one (Q) (exit 0)" {
	check_case 49-all-ph.json
}

@test "50-fraction-us.json: fractional µs ts (1712195495519689.047) and dur 2.5: exact ns (exit 0)" {
	check_case 50-fraction-us.json
}

@test "51-ndjson-non-object-line.json: NDJSON with the lines [1,2] and 5 among events (exit 1)" {
	check_case 51-ndjson-non-object-line.json
}

@test "52-stream-repairs.nd: a stream whose lines need the repairs of mct(7): kept, repaired, reported by line (exit 1)" {
	skip "stream lines are checked for their structure only, not repaired (mct(7))"
	check_case 52-stream-repairs.nd
}

@test "53-lone-surrogate.json: ud800 and udc00 escapes alone (valid JSON text): passed through (exit 0)" {
	check_case 53-lone-surrogate.json
}

@test "54-nan-ts.json: 'ts':NaN: null, the event kept (exit 1)" {
	check_case 54-nan-ts.json
}

@test "55-ndjson-cut-last-line.json: NDJSON whose last line is cut (exit 1)" {
	check_case 55-ndjson-cut-last-line.json
}

@test "56-object-without-trace-events.json: one object without traceEvents: an NDJSON file of one event (exit 0)" {
	check_case 56-object-without-trace-events.json
}

@test "57-cut-after-colon.json: Array form cut after 'name': (exit 1)" {
	check_case 57-cut-after-colon.json
}

@test "58-stream-crlf.nd: a stream with CRLF line ends (exit 0)" {
	check_case 58-stream-crlf.nd
}

@test "59-error-in-first-event.json: a syntax error in the first event (,,) (exit 1)" {
	check_case 59-error-in-first-event.json
}

@test "60-exponent-ts.json: ts and dur with exponents (1.5E2, 2e1, 2e2): exact ns (exit 0)" {
	check_case 60-exponent-ts.json
}

@test "61-raw-control.json: (made) raw 0x01 and 0x1f in args.s of b; 0x7f is no control character (exit 1)" {
	check_case 61-raw-control.json
}

@test "62-invalid-utf8.json: (made) a lone continuation byte, 0xff, an overlong, a surrogate, a cut sequence in b; valid 2-4 byte UTF-8 in c (exit 1)" {
	check_case 62-invalid-utf8.json
}

@test "63-nul-bytes.json: (made) a NUL in a string of b, two NULs after the closing ] (exit 1)" {
	check_case 63-nul-bytes.json
}

@test "64-nul-first.json: (made) four NULs before the trace: reported, the events after them read (exit 1)" {
	check_case 64-nul-first.json
}

@test "65-binary-garbage.bin: (made) 4 KB of binary garbage (no '{') (exit 2)" {
	check_case 65-binary-garbage.bin
}

@test "66-garbage-then-trace.json: (made) 1000 bytes of garbage, then an Array-form trace on the next line (exit 1)" {
	check_case 66-garbage-then-trace.json
}

@test "67-gzip-cut.json.gz: (made) a gzip stream of 2001 events cut at 8000 bytes: the events before the cut (exit 1)" {
	check_case 67-gzip-cut.json.gz
}

@test "68-gzip-garbage-after.json.gz: (made) a whole gzip stream, then text (exit 1)" {
	check_case 68-gzip-garbage-after.json.gz
}

@test "69-gzip-bad-member.json.gz: (made) two gzip members, the second damaged at its first byte of data (exit 1)" {
	check_case 69-gzip-bad-member.json.gz
}

@test "70-gzip-header-only.json.gz: (made) the first 10 bytes of a gzip stream (exit 1)" {
	check_case 70-gzip-header-only.json.gz
}

@test "71-gzip-empty.json.gz: (made) a gzip stream of an empty file (exit 0)" {
	check_case 71-gzip-empty.json.gz
}

@test "72-name-10mb.json: (made) an event whose name is 10 MB long (exit 0)" {
	check_case 72-name-10mb.json
}

@test "73-deep-event.json: (made) an event nested 10,000 levels deep: dropped, the others kept (exit 1)" {
	check_case 73-deep-event.json
}

@test "74-deep-ok.json: (made) an event nested 501 levels deep: under the limit of 512, kept (exit 0)" {
	check_case 74-deep-ok.json
}

@test "75-deep-top-array.json: (made) 10,000 nested arrays at the top level (exit 1)" {
	check_case 75-deep-top-array.json
}

@test "76-deep-top-object.json: (made) 10,000 nested objects at the top level (exit 1)" {
	check_case 76-deep-top-object.json
}

@test "77-directory.json: (made) a directory as the operand (exit 2)" {
	check_case 77-directory.json
}

@test "78-big-top-value.json: (made) a top-level key after traceEvents with a 3 MB value (longer than the read buffer) (exit 0)" {
	check_case 78-big-top-value.json
}

@test "79-resync-far.json: (made) a syntax error, then 3 MB with no place to resume, then events (exit 1)" {
	check_case 79-resync-far.json
}

@test "81-cut-in-escape.json: Array form cut inside a u escape (exit 1)" {
	check_case 81-cut-in-escape.json
}

@test "82-many-broken-events.json: every other event broken, the last one too (exit 1)" {
	check_case 82-many-broken-events.json
}

@test "83-stream-header-only.nd: a stream of only its header line (exit 0)" {
	check_case 83-stream-header-only.nd
}

@test "84-ndjson-crlf.json: NDJSON with CRLF line ends (exit 0)" {
	check_case 84-ndjson-crlf.json
}

@test "85-int64-edges.json: ns ts and dur at the ends of int64 (ts+dur beyond it): no arithmetic may overflow (exit 0)" {
	check_case 85-int64-edges.json
}

@test "86-us-extremes.json: µs ts ±9223372036854775 (±9.2e18 ns): ts - origin is beyond int64 (exit 0)" {
	check_case 86-us-extremes.json
}

@test "87-comma-after-first-line.json: NDJSON, then a line \", {...}\": \"b\" kept whichever way it is read (exit 1)" {
	check_case 87-comma-after-first-line.json
}

# --- the repaired events, exactly ------------------------------------------

# event NAME: mct-cat's line for the event named NAME in $T/out
event() {
	grep -F "{\"name\":\"$1\"," "$T/out"
}

@test "a stream whose header line holds a NUL byte: the header passed on whole, every tool" {
	# found by fuzzing: the header line was copied up to the NUL and then
	# written with its whole length, bytes past the end of the copy.
	# Stream lines are checked for their structure only (mct(7)): the
	# header is not repaired, it goes on as it came.
	printf '{"name":"mct_header","ph":"M","args":{"version":1,"unit":"us","unit_from":"x\000y","origin":100000,"form":"array","sorted":true,"top_before":0,"top":{},"sources":["t"]}}\n{"name":"a","ph":"X","ts":100000,"dur":10}\n' > "$T/nul.nd"
	head -1 "$T/nul.nd" > "$T/want"
	t mct-cat "$T/nul.nd"
	[ "$rc" -eq 0 ]
	head -1 "$T/out" | cmp - "$T/want"
	same "$(sed -n 2p "$T/out")" '{"name":"a","ph":"X","ts":100000,"dur":10}'
	t mct-filter "$T/nul.nd"
	[ "$rc" -eq 0 ]
	head -1 "$T/out" | cmp - "$T/want"
	t mct-flow --key name --orphans -q "$T/nul.nd"
	[ "$rc" -eq 0 ]
	head -1 "$T/out" | cmp - "$T/want"
}

@test "repairs keep the event, exactly: an invalid escape, a raw TAB, NaN and Infinity, ts NaN, 0x01 and 0x1f, NUL" {
	t mct-cat 22-invalid-escape.json
	same "$(event b)" '{"name":"b","ph":"X","pid":2,"tid":1,"ts":200000,"dur":10000,"args":{"s":"x\\qy\/z"}}'
	t mct-cat 23-raw-tab.json
	same "$(event b | tr A-F a-f)" '{"name":"b","ph":"X","pid":2,"tid":1,"ts":200000,"dur":10000,"args":{"s":"x\u0009y"}}'
	t mct-cat 24-nan-infinity.json
	same "$(event b)" '{"name":"b","ph":"X","pid":2,"tid":1,"ts":200000,"dur":10000,"args":{"v":null,"w":[null,null]}}'
	t mct-cat 54-nan-ts.json
	same "$(event b)" '{"name":"b","ph":"X","pid":2,"tid":1,"ts":null,"dur":10000}'
	t mct-cat 61-raw-control.json
	same "$(event b | tr A-F a-f)" "$(printf '%s\177%s' '{"name":"b","ph":"X","pid":2,"tid":1,"ts":200000,"dur":10000,"args":{"s":"x\u0001y\u001fz' '"}}')"
	t mct-cat 63-nul-bytes.json
	same "$(event b)" '{"name":"b","ph":"X","pid":2,"tid":1,"ts":200000,"dur":10000,"args":{"s":"x\u0000y"}}'
}

@test "invalid UTF-8 becomes U+FFFD (one or more a bad sequence), valid UTF-8 is kept byte for byte" {
	t mct-cat 62-invalid-utf8.json
	[ "$rc" -eq 1 ]
	"$PYTHON3" - "$T/out" <<'PY'
import json, re, sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
b = json.loads(lines[2].decode("utf-8"))     # strict UTF-8, or this fails
c = lines[3]
assert b["name"] == "b", b
parts = b["args"]["s"].split("|")
assert len(parts) == 6, parts
for i, p in enumerate(parts):
    rest = p[:-1] if i == 4 else p
    assert rest and set(rest) == {"\ufffd"}, (i, p)
assert parts[4].endswith("A"), parts
assert b'"s":"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"' in c, c
PY
}

@test "a stream's lines that need repairs are repaired (valid JSON out), reported by line, exit 1" {
	skip "stream lines are checked for their structure only, not repaired (mct(7))"
	t mct-cat 52-stream-repairs.nd
	same "$(sed -n 3p "$T/out")" '{"name":"b\\qx","ts":200000}'
	same "$(sed -n 4p "$T/out")" '{"name":"c","ts":300000,"v":null}'
	same "$(sed -n 5p "$T/out")" '{"name":"d","ts":400000,"w":[1]}'
	same "$(sed -n 6p "$T/out" | tr A-F a-f)" '{"name":"e\u0009x","ts":500000}'
	[ "$rc" -eq 1 ]
}

@test "int64 edges: end, rel and their predicates never overflow (a sanitizer build checks), exit 0" {
	local c
	for c in 85-int64-edges.json 86-us-extremes.json; do
		t mct-cat -o tsv -F ts,dur,end,rel "$c"
		[ "$rc" -eq 0 ]
		same "$(cat "$T/err")" ""
		# an end beyond int64 is no value (an empty cell), never a
		# wrapped-around negative number
		awk -F'\t' 'NR > 1 && $2 > 0 && $3 != "" && $3 + 0 < $1 + 0 { exit 1 }' "$T/out"
		t mct-filter -c --where 'end>0' --where 'rel>=0' "$c"
		[ "$rc" -eq 0 ]
		same "$(cat "$T/err")" ""
		t mct-group -k name -a count,total,first,last -o tsv "$c"
		[ "$rc" -eq 0 ]
		same "$(cat "$T/err")" ""
		t mct-phases --gaps --device ph -o ndjson "$c"
		[ "$rc" -eq 0 ]
		same "$(cat "$T/err")" ""
	done
}

@test "a rules file with no rules (empty, or comments only): every event is (other), exit 0" {
	printf '# no rules\n\n' > "$T/comments.rules"
	: > "$T/empty.rules"
	for f in "$T/comments.rules" "$T/empty.rules"; do
		t mct-group --rules "$f" -k category --missing -a count -o tsv --no-header 01-object-complete.json
		[ "$rc" -eq 0 ]
		same "$(cat "$T/err")" ""
		same "$(cat "$T/out")" "(other)	3"
		t mct-filter --rules "$f" --category x -c 01-object-complete.json
		[ "$rc" -eq 0 ]
		same "$(cat "$T/out")" 0
	done
}

# --- output failures -------------------------------------------------------

# every tool, with arguments that make it write a lot
each_tool() {
	printf '%s\n' "mct-cat" "mct-filter" "mct-group -k name,ts" "mct-flow -q" \
	    "mct-phases --gaps --gap 1us -o ndjson"
}

@test "every tool: a closed pipe (| head -1) ends quietly: no message, status 0 or SIGPIPE" {
	local tool st
	while read -r tool; do
		echo "$tool"
		# shellcheck disable=SC2086
		run bash -c 'timeout 60 '"$tool"' "$0" 2>"$1" | head -1 >/dev/null; echo "${PIPESTATUS[0]}"' \
		    "$BATS_FILE_TMPDIR/clean.json" "$T/err"
		st=$output
		[[ "$st" == 0 || "$st" == 141 ]] || { echo "status $st"; return 1; }
		same "$(cat "$T/err")" ""
	done < <(each_tool)
}

@test "every tool: a closed pipe after damage: the damage message only, no write error" {
	local tool st
	while read -r tool; do
		echo "$tool"
		run bash -c 'timeout 60 '"$tool"' 68-gzip-garbage-after.json.gz 2>"$0" | head -1 >/dev/null; echo "${PIPESTATUS[0]}"' "$T/err"
		st=$output
		[[ "$st" == 1 || "$st" == 141 ]] || { echo "status $st"; return 1; }
		same "$(cat "$T/err")" "${tool%% *}: 68-gzip-garbage-after.json.gz:162410: garbage after the gzip data"
	done < <(each_tool)
}

@test "every tool: output to a full disk (/dev/full) exits 2 with 'PROG: write error: No space left on device'" {
	local tool
	while read -r tool; do
		echo "$tool"
		# shellcheck disable=SC2086
		rc=0; timeout 60 $tool "$BATS_FILE_TMPDIR/clean.json" > /dev/full 2> "$T/err" || rc=$?
		[ "$rc" -eq 2 ]
		same "$(cat "$T/err")" "${tool%% *}: write error: No space left on device"
	done < <(each_tool)
}

@test "every tool: damaged input to a full disk: the damage, then the write error, exit 2" {
	local tool
	while read -r tool; do
		echo "$tool"
		# shellcheck disable=SC2086
		rc=0; timeout 60 $tool 41-syntax-error-middle.json > /dev/full 2> "$T/err" || rc=$?
		[ "$rc" -eq 2 ]
		same "$(cat "$T/err")" "${tool%% *}: 41-syntax-error-middle.json:76: expected ':' after a key; the event at offset 59 is dropped
${tool%% *}: write error: No space left on device"
	done < <(each_tool)
}

# --- operands that cannot be read, among others ------------------------------

@test "every tool: a directory among operands is reported, exit 2, the other operands still read" {
	local tool
	for tool in mct-cat mct-filter mct-group "mct-flow -q" mct-phases; do
		t $tool 77-directory.json 01-object-complete.json 29-cut-in-string.json
		[ "$rc" -eq 2 ]
		same "$(cat "$T/err")" "${tool%% *}: 77-directory.json: is a directory
${tool%% *}: 29-cut-in-string.json:131: cut off inside an event at the end of the input; 16 bytes dropped"
	done
	t mct-filter -c 01-object-complete.json 77-directory.json 29-cut-in-string.json
	[ "$rc" -eq 2 ]
	same "$(cat "$T/out")" 5
	t mct-group --meta --missing -k ph -a count -o tsv --no-header 77-directory.json 01-object-complete.json
	same "$(cat "$T/out")" "X	3"
	t mct-phases --device ph -o tsv 01-object-complete.json 77-directory.json
	same "$(check sum events "$T/out")" 3
	t mct-flow --key name --orphans -q 77-directory.json 01-object-complete.json
	same "$(check records "$T/out")" 3
}

@test "every tool: a missing file among operands: 'No such file or directory', exit 2, the others read" {
	local tool
	for tool in mct-cat mct-filter mct-group "mct-flow -q" mct-phases; do
		t $tool nosuch.json 02-array-complete.json
		[ "$rc" -eq 2 ]
		same "$(cat "$T/err")" "${tool%% *}: nosuch.json: No such file or directory"
	done
	t mct-cat nosuch.json 02-array-complete.json
	check cat 02-array-complete.json "$T/out" a b c
}

@test "mct-cat, mct-filter: an unreadable, empty or stream operand between two traces: each operand's events once" {
	local tool mid
	for mid in nosuch.json 77-directory.json 58-stream-crlf.nd 14-empty.json; do
		for tool in mct-cat mct-filter; do
			echo "$tool 01-object-complete.json $mid 02-array-complete.json"
			t $tool 01-object-complete.json $mid 02-array-complete.json
			same "$(tail -n +2 "$T/out" | grep -o '"name":"[a-z]*"' | tr -d '\n')" \
			    "$(case $mid in 58-*) echo '"name":"a""name":"b""name":"c""name":"a""name":"b""name":"a""name":"b""name":"c"' ;;
			    *) echo '"name":"a""name":"b""name":"c""name":"a""name":"b""name":"c"' ;; esac)"
		done
		t mct-filter -c 01-object-complete.json $mid 02-array-complete.json
		same "$(cat "$T/out")" "$(case $mid in 58-*) echo 8 ;; *) echo 6 ;; esac)"
	done
}

@test "every tool: an unreadable file (mode 000) among operands: 'Permission denied', exit 2, the others read" {
	if [ "$(id -u)" -eq 0 ]; then
		skip "running as root: mode 000 does not stop root from reading"
	fi
	cp 01-object-complete.json "$T/locked.json"
	chmod 000 "$T/locked.json"
	local tool
	for tool in mct-cat mct-filter mct-group "mct-flow -q" mct-phases; do
		t $tool "$T/locked.json" 02-array-complete.json
		[ "$rc" -eq 2 ]
		same "$(cat "$T/err")" "${tool%% *}: $T/locked.json: Permission denied"
	done
	t mct-filter -c "$T/locked.json" 02-array-complete.json
	same "$(cat "$T/out")" 3
}

# --- standard input and several operands ---------------------------------------

@test "every tool: damage on standard input is reported as (stdin), plain and gzip" {
	local tool
	for tool in mct-cat mct-filter mct-group "mct-flow -q" mct-phases; do
		rc=0; timeout 60 $tool < 41-syntax-error-middle.json > "$T/out" 2> "$T/err" || rc=$?
		[ "$rc" -eq 1 ]
		same "$(cat "$T/err")" "${tool%% *}: (stdin):76: expected ':' after a key; the event at offset 59 is dropped"
		rc=0; timeout 60 $tool - < 67-gzip-cut.json.gz > "$T/out" 2> "$T/err" || rc=$?
		[ "$rc" -eq 1 ]
		check msgs "${tool%% *}" '(stdin)' 'FILE:#: gzip stream cut off' "$T/err"
	done
	mct-cat < 67-gzip-cut.json.gz > "$T/s.nd" 2>/dev/null || true
	check cat 67-gzip-cut.json.gz "$T/s.nd" @zlib
}

@test "every tool: several damaged operands: each message names its file, the intact events of all come through" {
	local tool
	for tool in mct-cat mct-filter mct-group "mct-flow -q" mct-phases; do
		t $tool 28-ndjson-broken-line.json 41-syntax-error-middle.json 26-not-objects.json
		[ "$rc" -eq 1 ]
		same "$(head -2 "$T/err")" "${tool%% *}: 28-ndjson-broken-line.json:82: expected ':' after a key; the event at offset 56 is dropped
${tool%% *}: 41-syntax-error-middle.json:76: expected ':' after a key; the event at offset 59 is dropped"
		same "$(wc -l < "$T/err")" 7
	done
	t mct-filter -c 28-ndjson-broken-line.json 41-syntax-error-middle.json 26-not-objects.json
	same "$(cat "$T/out")" 8
	t mct-cat 28-ndjson-broken-line.json 41-syntax-error-middle.json 26-not-objects.json
	same "$(tail -n +2 "$T/out" | grep -o '"name":"[a-z]*"' | tr -d '\n')" \
	    '"name":"a""name":"b""name":"c""name":"a""name":"b""name":"c""name":"a""name":"b"'
}

# --- the stream of every case, through the other tools ------------------------

@test "every case: mct-cat CASE | TOOL reads mct-cat's stream without a message, exit 0, the same counts" {
	local c n
	for c in [0-9][0-9]-*; do
		[ -f "$c" ] || continue
		# (52's lines stay invalid JSON until streams are repaired: its
		# own tests fail for that)
		[ "$c" != 52-stream-repairs.nd ] || continue
		mct-cat "$c" > "$T/s.nd" 2>/dev/null || true
		[ -s "$T/s.nd" ] || continue
		for tool in "mct-filter" "mct-filter -c" "mct-group -o tsv" "mct-flow -q" \
		    "mct-phases -o tsv --gaps"; do
			# shellcheck disable=SC2086
			rc=0; timeout 60 $tool < "$T/s.nd" > "$T/out" 2> "$T/err" || rc=$?
			if [ "$rc" -ne 0 ] || [ -s "$T/err" ]; then
				echo "$c | $tool: exit $rc"
				head -5 "$T/err"
				return 1
			fi
		done
		# the same count as read from the case directly (checked there)
		n=$(mct-filter -c "$c" 2>/dev/null) || true
		same "$(mct-filter -c < "$T/s.nd")" "$n"
		mct-filter < "$T/s.nd" > "$T/f.nd"
		cmp "$T/s.nd" "$T/f.nd"
	done
}

# --- mct-report on a few -------------------------------------------------------

# report CASE: mct-report's status and messages (mct-cat's) are the case's;
# a case of no intact event has no report: exit 1, and mct-report says so
# after mct-cat's messages
report() {
	local c=$1 none=0
	want_rc=$(field "$c" 2)
	want_msgs=$(field "$c" 3)
	t mct-report "$c"
	if [ "$want_rc" -lt 2 ] && [ "$(field "$c" 4)" = - ]; then
		want_rc=1 none=1
		same "$(tail -n 1 "$T/err")" "mct-report: $c: no events"
		sed -i '$d' "$T/err"
	fi
	expect mct-cat "$c"
	if [ "$want_rc" -lt 2 ] && [ "$none" = 0 ]; then
		grep -qx "# Trace report: $c" "$T/out"
	else
		[ ! -s "$T/out" ]
	fi
}

@test "mct-report: a complete trace, a cut one, a syntax error, a cut gzip, garbage, an empty file (no events: exit 1), a directory" {
	local c
	for c in 01-object-complete.json 29-cut-in-string.json \
	    41-syntax-error-middle.json 67-gzip-cut.json.gz 65-binary-garbage.bin \
	    14-empty.json 73-deep-event.json 77-directory.json; do
		echo "$c"
		report "$c"
	done
}

@test "a ']' after damage ends what pass 1 saw then: the file read twice, through the spool and a pipe alike" {
	# Pass 1 meets '[' after a broken first object (the form is an array
	# then), so the object after ']' is an event; a "traceEvents" key
	# further on makes the form an object.  Pass 2 framed the file again
	# with the form pass 1 ended with, and dropped the event "c" that the
	# spool kept (found by the reader fuzz target).
	printf '%s\n' '{"a": x[' \
	    '{"name":"a","ph":"X","pid":1,"tid":1,"ts":1,"dur":1},' \
	    '{"name":"b","ph":"X","pid":1,"tid":1,"ts":2,"dur":1}' ']' \
	    '{"name":"c","ph":"X","pid":1,"tid":1,"ts":3,"dur":1}' \
	    '{"k":1,"traceEvents":[' \
	    '{"name":"d","ph":"X","pid":1,"tid":1,"ts":4,"dur":1}' ']}' \
	    > "$T/form.json"
	cd "$T"
	rc=0
	mct-cat form.json > twice.nd 2> twice.err || rc=$?
	[ "$rc" -eq 1 ]
	same "$(sed 1d twice.nd | sed 's/.*"name":"\([a-z]\)".*/\1/' | tr -d '\n')" abcd
	MCT_SPOOL=1 mct-cat form.json > spool.nd 2> spool.err || true
	cmp twice.nd spool.nd
	cmp twice.err spool.err
	mct-cat < form.json 2> /dev/null | sed 1d > pipe.nd || true
	same "$(sed 1d twice.nd)" "$(cat pipe.nd)"
	same "$(cat twice.err)" "mct-cat: form.json:6: unexpected character; the event at offset 0 is dropped"
}

@test "where the reads end does not change where the reader starts again: the spool, a pipe in pieces, gzip in small slots" {
	# The framer that goes on from the threads' blocks, or reads on from
	# a pipe, keeps the bytes before where it stands, so the '}' of "}, {"
	# before a read boundary still shows where the event after it starts
	# (found by the reader fuzz target: the spool dropped "b").  The '}'
	# is byte 54, the ',' byte 56.
	cd "$T"
	cp "$C/87-comma-after-first-line.json" c.json
	mct-cat c.json > want.nd 2> want.err || true
	same "$(sed 1d want.nd | sed 's/.*"name":"\([a-z]\)".*/\1/' | tr -d '\n')" abc
	gzip -c c.json > c.json.gz
	local k g how
	for k in 54 55 56 57 60; do
		for how in MCT_SPLIT=1000000000 MCT_SPLIT=; do
			(head -c "$k" c.json; sleep 0.1; tail -c +"$((k + 1))" c.json) |
			    env $how mct-cat > got.nd 2> /dev/null || true
			same "$(sed 1d got.nd)" "$(sed 1d want.nd)"
		done
	done
	for g in 2 7 55 56 64 200; do
		for how in MCT_SPLIT=1000000000 MCT_SPLIT= MCT_SPLIT=64; do
			MCT_GZSLOT=$g env $how mct-cat c.json.gz > got.nd 2> got.err || true
			same "$(sed 1d got.nd)" "$(sed 1d want.nd)"
			same "$(sed 's/c\.json\.gz:/c.json:/' got.err)" "$(cat want.err)"
		done
	done
	MCT_SPOOL=1 mct-cat c.json > got.nd 2> got.err || true
	cmp got.nd want.nd
	cmp got.err want.err
}

@test "damage is told for the first 20 places of an operand, then counted: a trace of 50 broken events, a stream of 30 broken lines, plain and gzip" {
	"$PYTHON3" - "$T/many.json" "$T/want" <<'PY'
import sys
# every third event broken (a syntax error inside it): python counts them
out, bad = ['{"traceEvents":['], 0
for i in range(150):
    if i % 3 == 1:
        out.append('{"name":"k","ph":"X","ts":%d x},' % (i * 10))
        bad += 1
    else:
        out.append('{"name":"k","ph":"X","ts":%d,"dur":1},' % (i * 10))
out.append('{"name":"end","ph":"i","ts":2000}]}')
open(sys.argv[1], "w").write("\n".join(out) + "\n")
open(sys.argv[2], "w").write("%d %d\n" % (bad, 150 - bad + 1))
PY
	read -r bad good < "$T/want"
	gzip -c "$T/many.json" > "$T/many.json.gz"
	for f in "$T/many.json" "$T/many.json.gz"; do
		run --separate-stderr mct-cat "$f"
		[ "$status" -eq 1 ]
		[ "$(printf '%s\n' "$stderr" | grep -c "^mct-cat: $f:[0-9]*: ")" -eq 20 ]
		same "$(printf '%s\n' "$stderr" | tail -1)" \
		    "mct-cat: $f: $((bad - 20)) more damaged places, not told (the first 20 are)"
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 21 ]
		[ "$(printf '%s\n' "$output" | wc -l)" -eq $((good + 1)) ]
	done
	# a stream of 30 lines that are no JSON object among good ones
	mct-cat "$T/many.json" 2> /dev/null | awk 'NR > 1 && NR <= 31 { print "{oops" } { print }' > "$T/s.nd"
	run --separate-stderr mct-group -o tsv "$T/s.nd"
	[ "$status" -eq 1 ]
	[ "$(printf '%s\n' "$stderr" | grep -c 'not a complete JSON object; line skipped$')" -eq 20 ]
	same "$(printf '%s\n' "$stderr" | tail -1)" \
	    "mct-group: $T/s.nd: 10 more damaged places, not told (the first 20 are)"
}

@test "a negative dur is told with its place, the event kept as written (exit 1): plain, gzip, in parts by threads" {
	"$PYTHON3" - "$T/neg.json" "$T/want" <<'PY'
import sys
# a trace big enough for threads, with dur -5 in events 1000 and 30000
evs, places = [], []
off = 1
for i in range(40000):
    d = -5 if i in (1000, 30000) else 3
    e = '{"name":"k%d","ph":"X","ts":%d,"dur":%d}' % (i % 7, i * 10, d)
    if d < 0:
        places.append(off)
    evs.append(e)
    off += len(e) + 2          # the event, ",\n"
open(sys.argv[1], "w").write("[" + ",\n".join(evs) + "]\n")
open(sys.argv[2], "w").write("".join(
    "mct-cat: %s:%d: dur -5 is negative; the event is kept as written\n" %
    (sys.argv[1], p) for p in places))
PY
	run --separate-stderr mct-cat "$T/neg.json"
	[ "$status" -eq 1 ]
	same "$stderr" "$(cat "$T/want")"
	[ "$(printf '%s\n' "$output" | grep -c '"dur":-5000')" -eq 2 ]
	for e in MCT_SPLIT=65536 MCT_SPOOL=1; do
		run --separate-stderr env "$e" mct-cat "$T/neg.json"
		[ "$status" -eq 1 ]
		same "$stderr" "$(cat "$T/want")"
	done
	gzip -c "$T/neg.json" > "$T/neg.json.gz"
	run --separate-stderr mct-cat "$T/neg.json.gz"
	[ "$status" -eq 1 ]
	same "$stderr" "$(sed 's|neg.json:|neg.json.gz:|' "$T/want")"
}
