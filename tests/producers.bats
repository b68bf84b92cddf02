#!/usr/bin/env bats
# producers.bats - right on every producer's traces (the reader
# and stream side): B/E pairs as X events (--pair-be), origin, span and rel
# from timed events, metadata rows only with --meta, the header's size,
# time windows and unitless times, input that is no trace.  Numbers are
# checked against python3's json (tests/producers_oracle.py, oracle.py), on
# generated traces and on ../shared/fixtures where the problem was seen.

load helpers

setup_file() {
	light_trace
	local d=$BATS_FILE_TMPDIR

	cd "$d" || return 1
	genf x.json --scale 0.02
	genf be.json --scale 0.02 --be
	pyp nest 400 > nest.json
	# top-level values of every size around the limit, before and after
	# traceEvents
	"$PYTHON3" - <<-'EOF'
	import json
	ev = [{"ph": "M", "name": "process_name", "pid": 1, "ts": 0},
	      {"ph": "X", "name": "a", "ts": 5, "dur": 2, "pid": 1, "tid": 1}]
	d = {"displayTimeUnit": "ns", "systemTraceEvents": "s" * 200000,
	     "edge": "e" * 65534, "traceEvents": ev, "over": list(range(20000)),
	     "small": {"a": 1}}
	json.dump(d, open("big.json", "w"))
	EOF
}

setup() {
	light_trace
	cd "$BATS_FILE_TMPDIR" || return 1
	T=$BATS_TEST_TMPDIR
}

pyp() {
	oracle producers_oracle.py "$@"
}

# --- 3: --pair-be ---------------------------------------------------------

@test "--pair-be: a generated trace written as B/E pairs reads as the same trace written with X" {
	mct-cat x.json | tail -n +2 | sort > "$T/x"
	run --separate-stderr mct-cat --pair-be be.json
	[ "$status" -eq 0 ]
	same "$stderr" ""
	[[ "${lines[0]}" == *'"sorted":false,'* ]]
	printf '%s\n' "${lines[@]:1}" | sort > "$T/be"
	[ "$(grep -c '"ph":"X"' "$T/be")" -gt 1000 ]
	cmp "$T/x" "$T/be"
}

@test "--pair-be: nested slices on four threads, args merged, the unpaired ones: every event in order and the count equal python's" {
	run --separate-stderr mct-cat --pair-be nest.json
	[ "$status" -eq 0 ]
	printf '%s\n' "${lines[@]}" > "$T/s.nd"
	want=$(pyp pairbe nest.json "$T/s.nd")
	same "$stderr" "mct-cat: $want"
	[[ "$want" == *"400 B/E pairs"*"1 E with no open B"*"2 B never closed, 1 E before its B" ]]
}

@test "--pair-be: a B and its E further apart than int64 ns holds: the dur stays at its end, 9223372036854775807, not wrapped negative (it was signed overflow)" {
	printf '%s\n' '{"name":"x","ph":"B","pid":1,"tid":3,"ts":-9000000000000000000}' \
	    '{"name":"x","ph":"E","pid":1,"tid":3,"ts":9000000000000000000}' > "$T/far.nd"
	run -0 --separate-stderr mct-cat -u ns --pair-be "$T/far.nd"
	same "${lines[1]}" '{"name":"x","ph":"X","pid":1,"tid":3,"ts":-9000000000000000000,"dur":9223372036854775807}'
}

@test "--pair-be in mct-group, mct-phases and mct-flow: the same as reading mct-cat --pair-be's stream; without it B/E stay two events" {
	mct-cat --pair-be nest.json 2>/dev/null > "$T/s.nd"
	same "$(mct-group --pair-be -o tsv -a count,total,first,last nest.json 2>/dev/null)" \
	    "$(mct-group -o tsv -a count,total,first,last "$T/s.nd")"
	same "$(mct-phases --pair-be -o tsv nest.json 2>/dev/null)" \
	    "$(mct-phases -o tsv "$T/s.nd")"
	same "$(mct-flow --pair-be --key name --orphans -q nest.json 2>/dev/null)" \
	    "$(mct-flow --key name --orphans -q "$T/s.nd")"
	run --separate-stderr mct-group --pair-be -o tsv nest.json
	[[ "$stderr" == "mct-group: --pair-be: 400 B/E pairs"* ]]
	# without the option nothing changes
	same "$(mct-filter --ph X -c nest.json)" "$(grep -c '"ph": "X"' nest.json)"
	same "$(mct-filter --ph B -c nest.json)" "$(grep -c '"ph": "B"' nest.json)"
}

@test "--pair-be on chrome-android-threadtime (B/E, one B never closed): every event and the count equal python's" {
	need_fixtures
	f=$fixtures/chrome-android-threadtime.json.gz
	[ -f "$f" ] || skip "chrome-android-threadtime.json.gz not in $fixtures"
	run --separate-stderr mct-cat --pair-be "$f"
	[ "$status" -eq 0 ]
	printf '%s\n' "${lines[@]}" > "$T/s.nd"
	want=$(pyp pairbe "$f" "$T/s.nd")
	same "$stderr" "mct-cat: $want"
	[[ "$want" == *" 1 B never closed"* ]]
}

# --- 1: origin, span, rel -------------------------------------------------

@test "rel of a metadata event is empty, origin is the smallest ts of the others: tsv --meta equals python's (generated, Kineto)" {
	F=ph,name,ts,rel,end
	for f in nest.json $(ls "$fixtures"/kineto-h100-tiny.json 2>/dev/null); do
		echo "$f"
		mct-cat -o tsv --meta -F $F "$f" > "$T/got"
		py columns --format tsv --fields $F --meta "$f" > "$T/want"
		cmp "$T/want" "$T/got"
		[ "$(awk -F'\t' '$1 == "M" && $4 != ""' "$T/got" | wc -l)" -eq 0 ]
	done
}

@test "mct-report: the overview span is first start to last end of the non-M events, equal to python's (generated, Kineto and Chrome fixtures)" {
	for f in nest.json $(ls "$fixtures"/kineto-h100-tiny.json \
	    "$fixtures"/chrome-android-threadtime.json.gz 2>/dev/null); do
		echo "$f"
		got=$(mct-report "$f" 2>/dev/null | grep '^| span (first start to last end) |')
		same "$got" "| span (first start to last end) | $(pyp span "$f") |"
	done
}

# --- 11: metadata rows ----------------------------------------------------

@test "-o tsv, csv, table, md: no rows for M events unless --meta (mct-cat, mct-filter; mct-filter --ph M); ndjson keeps them" {
	for fmt in tsv csv table md; do
		same "$(mct-cat -o $fmt -F ph x.json | grep -c M)" 0
		same "$(mct-cat -o $fmt --meta -F ph x.json | grep -c M)" 1
		same "$(mct-filter -o $fmt -F ph x.json | grep -c M)" 0
		same "$(mct-filter -o $fmt --meta -F ph x.json | grep -c M)" 1
	done
	same "$(mct-filter --ph M -o tsv --no-header -F args.name x.json)" "MetaX C500"
	same "$(mct-cat x.json | grep -c '"ph":"M"')" 2	# the header and one
	for meta in "" --meta; do
		py columns --format csv --fields ph,name,rel $meta x.json > "$T/want"
		mct-cat -o csv -F ph,name,rel $meta x.json > "$T/got"
		cmp "$T/want" "$T/got"
	done
	same "$(mct-flow -q -o tsv -F ph x.json | grep -c M)" 0
}

# --- 12: the header's size ------------------------------------------------

@test "top-level values over 64 KB leave the header, named with their size in top_dropped (python's); --top-max sets the limit" {
	mct-cat big.json > "$T/s.nd"
	same "$(pyp top big.json "$T/s.nd")" "systemTraceEvents over"
	[ "$(head -1 "$T/s.nd" | wc -c)" -lt 66000 ]
	mct-cat --top-max 110K big.json > "$T/s.nd"
	same "$(pyp top big.json "$T/s.nd" 112640)" "systemTraceEvents"
	mct-cat --top-max 65533 big.json > "$T/s.nd"
	same "$(pyp top big.json "$T/s.nd" 65533)" "systemTraceEvents edge over"
	mct-cat --top-max 0 big.json > "$T/s.nd"
	same "$(pyp top big.json "$T/s.nd" 0)" ""
	# a plain file read in parts by threads, and a pipe through the spool
	MCT_SPLIT=1000 mct-cat big.json > "$T/p.nd"
	mct-cat < big.json | tail -n +2 > "$T/q.nd"
	same "$(pyp top big.json "$T/p.nd")" "systemTraceEvents over"
	for bad in -1 x 5G 1.5K; do
		run --separate-stderr mct-cat --top-max "$bad" big.json
		[ "$status" -eq 2 ]
		[[ "$stderr" == "mct-cat: --top-max: invalid size '$bad'"* ]]
	done
}

@test "-o trace of the same mct-cat puts the big values back in their places; a --wrap down a pipe names each one it lacks" {
	for how in "" MCT_SPOOL=1 MCT_SPLIT=1000; do
		env $how mct-cat -o trace big.json > "$T/w.json"
		"$PYTHON3" -c 'import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert list(a) == list(b) and a == b, (list(a), list(b))' big.json "$T/w.json"
	done
	run --separate-stderr sh -c 'mct-cat big.json | mct-cat --wrap'
	[ "$status" -eq 0 ]
	same "$stderr" "mct-cat: top-level key \"systemTraceEvents\" (200002 bytes) was left out of the stream (mct-cat --top-max): not in this trace
mct-cat: top-level key \"over\" (108891 bytes) was left out of the stream (mct-cat --top-max): not in this trace"
	same "$(printf '%s\n' "$output" | "$PYTHON3" -c 'import json, sys; print(*json.load(sys.stdin))')" \
	    "displayTimeUnit edge traceEvents small"
}

# --- 8: time windows ------------------------------------------------------

@test "--from after --to, or equal: an empty window, exit 2 before reading; absolute against relative after the header" {
	for w in "--from 10ms --to 5ms" "--from 5ms --to 5ms" "--from @900 --to @100"; do
		run --separate-stderr mct-filter $w nosuch.json
		[ "$status" -eq 2 ]
		same "${stderr%%$'\n'*}" "mct-filter: ${w% --to*} ${w#--from * }: an empty window (from must be before to)"
	done
	origin=$(mct-cat x.json | head -1 | sed 's/.*"origin":\([0-9]*\).*/\1/')
	run --separate-stderr mct-filter --from 1ms --to @$((origin + 1000)) -c x.json
	[ "$status" -eq 2 ]
	run --separate-stderr mct-filter --from 1us --to @$((origin + 2000)) -c x.json
	[ "$status" -eq 0 ]
	same "$stderr" ""
}

@test "a unitless --from or --to is ns, with a warning when it has a fraction or the trace is over 1000 times longer" {
	run --separate-stderr mct-filter --from 1.5 -c x.json
	[ "$status" -eq 0 ]
	same "$stderr" "mct-filter: --from: '1.5' has no unit and is read as ns, rounded to 2 ns; write 1.5us, 1.5ms or 1.5s for those units"
	same "$output" "$(mct-filter --from 2ns -c x.json)"
	span=$(pyp span --ns x.json)
	small=$((span / 1000 - 1)) big=$((span / 1000 + 1))
	run --separate-stderr mct-filter --to $small -c x.json
	[[ "$stderr" == "mct-filter: --to: '$small' has no unit and was read as $small ns, but the trace is "*" long: did you mean ${small}us, ${small}ms or ${small}s?" ]]
	for ok in "--to $big" "--from 0" "--from 5us" "--from @5"; do
		run --separate-stderr mct-filter $ok -c x.json
		same "$stderr" ""
	done
}

# --- 9: input errors ------------------------------------------------------

@test "--ph that is no Chrome phase warns (exit 0); real ones are quiet" {
	run --separate-stderr mct-filter --ph x -c x.json
	[ "$status" -eq 0 ]
	same "$output" 0
	same "$stderr" "mct-filter: --ph: 'x' is not a Chrome trace phase (X, B, E, i, I, C, b, e, n, s, t, f, M, ...; case matters)"
	for p in X B E i b s f M '('; do
		run --separate-stderr mct-filter --ph "$p" -c x.json
		same "$stderr" ""
	done
	run --separate-stderr mct-filter --ph XX -c x.json
	[[ "$stderr" == "mct-filter: --ph: 'XX' is not"* ]]
}

@test "every tool: a file that is not JSON exits 2 (not 1); an empty file warns, exit 0; mct-report prints no report for the one" {
	printf 'WARNING: profiler log\n{"a":\n' > "$T/log.txt"
	: > "$T/empty.json"
	for tool in mct-cat mct-filter mct-group "mct-flow -q" mct-phases; do
		run --separate-stderr $tool "$T/log.txt"
		[ "$status" -eq 2 ]
		[[ "$stderr" == "${tool%% *}: $T/log.txt:0: not a trace: expected '{' or '[', found 'W'"* ]]
		run --separate-stderr $tool "$T/empty.json"
		[ "$status" -eq 0 ]
		same "$stderr" "${tool%% *}: $T/empty.json: empty input: no events"
	done
	run --separate-stderr mct-report "$T/log.txt"
	[ "$status" -eq 2 ]
	same "$output" ""
	# a damaged trace stays 1, and garbage before events is damage too
	printf 'junk\n{"ph":"X","ts":1,"dur":2}\n' > "$T/junk.nd"
	run --separate-stderr mct-cat "$T/junk.nd"
	[ "$status" -eq 1 ]
	same "${#lines[@]}" 2
}
