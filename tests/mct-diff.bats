#!/usr/bin/env bats
# mct-diff.bats - two runs compared: a generated trace against a
# copy with one kernel made slower, one added and one removed; every figure
# checked by tests/diff_oracle.py (python3 json), never against captured
# output; --fail-if's exit 3, its columns, groups and errors; the new and
# gone keys; the summary; formats; partials; damaged, unreadable and empty
# operands; the real pairs of ../shared/fixtures.

load helpers

setup_file() {
	light_trace
	local d=$BATS_FILE_TMPDIR

	# run A; B: kernel_kernel 10% slower; C: a kernel added, one removed
	genf "$d/a.json" --scale 0.05
	gen --scale 0.05 --slow-kernel kernel_kernel --slow-factor-kernel 1.10 \
	    > "$d/b.json"
	gen --scale 0.05 --add-kernel added_kernel --drop-kernel \
	    mc_memset_d32_kernel | gzip > "$d/c.json.gz"
	mct-cat "$d/a.json" > "$d/a.nd"
	mct-diff -o ndjson "$d/a.json" "$d/b.json" > "$d/ab.nd"
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	d=$BATS_FILE_TMPDIR
}

diff_oracle() {
	oracle diff_oracle.py "$@"
}

# A column of the rows (the records after the header and the summary).
col() {
	"$PYTHON3" -c '
import json, sys
for l in list(open(sys.argv[1]))[2:]:
    r = json.loads(l)
    print(" ".join(str(r.get(k)) for k in sys.argv[2:]))' "$@"
}

@test "one kernel 10% slower: it is the first row, total_pct 10.00, no other row changed; every figure is the oracle's" {
	diff_oracle --summary --check "$d/ab.nd" "$d/a.json" "$d/b.json"
	run col "$d/ab.nd" name total_pct
	[[ "${lines[0]}" == "kernel_kernel 9.99"* || "${lines[0]}" == "kernel_kernel 10.00"* ]]
	same "$(printf '%.2f' "${lines[0]#* }")" 10.00
	run col "$d/ab.nd" total_delta median_delta only
	same "$(printf '%s\n' "${lines[@]:1}" | sort -u)" "0 0 None
0 None None"
}

@test "--fail-if 'total_pct > 5' exits 3 and names the row on stderr; a bound not reached exits 0" {
	run --separate-stderr mct-diff -o tsv --fail-if 'total_pct > 5' \
	    "$d/a.json" "$d/b.json"
	[ "$status" -eq 3 ]
	same "$stderr" "mct-diff: --fail-if: kernel_kernel (total +178.12 ms, +10.00%)"
	[ "${#lines[@]}" -gt 10 ]
	run mct-diff --fail-if 'total_pct > 5 && total_delta > 1s' "$d/a.json" "$d/b.json"
	[ "$status" -eq 0 ]
	run mct-diff --fail-if 'total_delta > 100ms' "$d/a.json" "$d/b.json"
	[ "$status" -eq 3 ]
}

@test "a trace against itself (one side a stream): exit 0, every delta 0, with a --fail-if on any change" {
	run --separate-stderr mct-diff --fail-if 'total_delta > 0 || total_delta < 0 || median_delta > 0 || median_delta < 0' \
	    "$d/a.json" "$d/a.nd"
	[ "$status" -eq 0 ]
	same "$stderr" ""
	printf '%s\n' "$output" > same.nd
	diff_oracle --summary --check same.nd "$d/a.json" "$d/a.nd"
	same "$(col same.nd total_delta | sort -u)" 0
	same "$(col same.nd only | sort -u)" None
}

@test "a kernel added and one removed (gzip, from a pipe): rows with only b and only a, first; the oracle agrees" {
	mct-diff "$d/a.json" <(zcat "$d/c.json.gz") > ac.nd
	diff_oracle --check ac.nd "$d/a.json" "$d/c.json.gz"
	run col ac.nd name count_a count_b total_pct median_a only new gone
	same "${lines[0]}" "mc_memset_d32_kernel 1 0 -100 441911 a False True"
	same "${lines[1]}" "added_kernel 0 7 None None b True False"
	same "$(printf '%s\n' "${lines[@]:2}" | awk '{ print $(NF - 2), $(NF - 1), $NF }' |
	    sort -u)" "None False False"
	run mct-diff --fail-if 'only == b' "$d/a.json" "$d/c.json.gz"
	[ "$status" -eq 3 ]
}

@test "--fail-if new, gone: a bare flag holds for a key of one run only, !new for the others; the table shows yes and no" {
	# the oracle's new and gone keys
	diff_oracle --rows "$d/a.json" "$d/c.json.gz" > rows.nd
	want() {
		"$PYTHON3" -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if eval(sys.argv[2]):
        print("mct-diff: --fail-if: " + r["name"])' rows.nd "$1" | sort
	}
	names() { sed 's/ (total .*//' <<<"$1" | sort; }
	run --separate-stderr mct-diff --fail-if new "$d/a.json" "$d/c.json.gz"
	[ "$status" -eq 3 ]
	same "$(names "$stderr")" "$(want 'r["new"]')"
	[[ "$stderr" == *"added_kernel (total +"*", -, only in B)" ]]
	run --separate-stderr mct-diff --fail-if 'gone && total_a > 100us' \
	    "$d/a.json" "$d/c.json.gz"
	[ "$status" -eq 3 ]
	same "$(names "$stderr")" \
	    "$(want 'r["gone"] and r["total_a"] > 100000')"
	run --separate-stderr mct-diff --fail-if '!new && !gone && total_delta != 0' \
	    "$d/a.json" "$d/c.json.gz"
	same "$(names "$stderr")" \
	    "$(want 'not r["only"] and r["total_delta"] != 0')"
	run --separate-stderr mct-diff --fail-if 'new == false' "$d/a.json" "$d/c.json.gz"
	[ "$status" -eq 0 ]
	# in every format: true and false for programs, yes and no for people
	run mct-diff -o tsv "$d/a.json" "$d/c.json.gz"
	[[ "${lines[0]}" == *"	only	new	gone" ]]
	same "$(grep -c '	b	true	false$' <<<"$output")" "$(want 'r["new"]' | wc -l)"
	same "$(grep -c '	a	false	true$' <<<"$output")" "$(want 'r["gone"]' | wc -l)"
	run mct-diff -o table "$d/a.json" "$d/c.json.gz"
	[[ "$output" == *" only  new  gone"* ]]
	grep -q '^added_kernel .* b  *yes  *no$' <<<"$output"
	grep -q '^mc_memset_d32_kernel .* a  *no  *yes$' <<<"$output"
}

@test "--fail-if: a name that is no column exits 2 with the nearest column, or the list; nothing written" {
	run --separate-stderr mct-diff --fail-if 'totl_pct > 5' "$d/a.json" "$d/b.json"
	[ "$status" -eq 2 ]
	same "$output" ""
	same "${stderr%%$'\n'*}" "mct-diff: --fail-if: no column 'totl_pct' (did you mean 'total_pct'?)"
	run --separate-stderr mct-diff --fail-if 'total_pct > 5 || nwe' "$d/a.json" "$d/b.json"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "mct-diff: --fail-if: no column 'nwe' (did you mean "* ]]
	run --separate-stderr mct-diff -k name,args.grid --fail-if 'zzzzzz' \
	    "$d/a.json" "$d/b.json"
	[ "$status" -eq 2 ]
	same "${stderr%%$'\n'*}" "mct-diff: --fail-if: no column 'zzzzzz' (the columns: name, args.grid, count_a, count_b, total_a, total_b, total_delta, total_pct, median_a, median_b, median_delta, median_pct, only, new, gone)"
	# the --by fields are columns, and paths inside them
	run mct-diff -k name,args --fail-if 'args.grid && name == x' "$d/a.json" "$d/b.json"
	[ "$status" -eq 0 ]
}

@test "--fail-if groups: ( ) and !( ) as in --where; the same rows as without them" {
	run --separate-stderr mct-diff --fail-if 'total_pct > 5' "$d/a.json" "$d/b.json"
	[ "$status" -eq 3 ]
	local plain=$stderr
	run --separate-stderr mct-diff --fail-if '(total_pct > 5)' "$d/a.json" "$d/b.json"
	[ "$status" -eq 3 ]
	same "$stderr" "$plain"
	run --separate-stderr mct-diff --fail-if '(total_pct > 5 || new) && (total_delta > 1us)' \
	    "$d/a.json" "$d/c.json.gz"
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"added_kernel (total +"* ]]
	run --separate-stderr mct-diff --fail-if '!(total_pct <= 5 || !total_pct)' \
	    "$d/a.json" "$d/b.json"
	[ "$status" -eq 3 ]
	same "$stderr" "$plain"
}

@test "--by and --value, --device: the oracle agrees; --by op on a trace without ops: the row (no op)" {
	mct-diff --device --by name,args.grid --value args.bytes "$d/a.json" \
	    "$d/c.json.gz" > k.nd
	diff_oracle --device --by name,args.grid --value args.bytes --check k.nd \
	    "$d/a.json" "$d/c.json.gz"
	# device work only: no host call is a row
	! grep -q mcLaunchKernel k.nd
	# --by op on a trace without framework ops (mcTracer's): each device
	# event paired with its launch is in the row (no op)
	run --separate-stderr mct-diff -o tsv --no-header --by op "$d/a.json" \
	    "$d/b.json"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	same "$(cut -f1,2 <<<"${lines[0]}")" \
	    "$(printf '(no op)\t%s' "$(mct-flow -q -o tsv --no-header "$d/a.json" | wc -l)")"
	[[ "$stderr" == *"mct-diff: --by (run A): no event has the field 'op'"* ]]
}

@test "the summary: span, busy, busy %, steady rounds and median round of each run, as mct-ranks measures a run" {
	run col "$d/ab.nd" name
	head -2 "$d/ab.nd" | tail -1 > s.json
	"$PYTHON3" - "$d/a.nd" s.json <<'EOF'
import json, subprocess, sys
s = json.load(open(sys.argv[2]))
assert s["name"] == "mct_diff_summary", s
r = [json.loads(l) for l in subprocess.run(["mct-ranks", "-o", "ndjson",
     sys.argv[1]], capture_output=True, text=True, check=True).stdout.split("\n")[1:] if l]
r = [x for x in r if "rounds" in x][0]
for k in ("span", "busy", "rounds", "round"):
    assert s[k + "_a"] == r[k], (k, s[k + "_a"], r[k])
assert s["rounds_a"] > 0 and s["rounds_b"] == s["rounds_a"], s
assert s["busy_b"] > s["busy_a"] and s["span_b"] == s["span_a"], s
assert abs(s["busy_pct_a"] - 100 * s["busy_a"] / s["span_a"]) < 1e-9
EOF
}

@test "the summary's busy % changes in percentage points (-0.01 pp), not in percent; its delta_pct is -" {
	# C's busy % is A's less a little: the change as the ndjson summary's
	# figures give it, in points
	mct-diff "$d/a.json" "$d/c.json.gz" > ac.nd
	want=$("$PYTHON3" -c '
import json, sys
s = json.loads(open(sys.argv[1]).readlines()[1])
d = s["busy_pct_b"] - s["busy_pct_a"]
assert abs(d) >= 0.005, s		# a change to see
print("%s%.2f pp" % ("+" if d > 0 else "", d))' ac.nd)
	run mct-diff -o md "$d/a.json" "$d/c.json.gz"
	[ "$status" -eq 0 ]
	same "$(grep '^| busy % |' <<<"$output" | cut -d'|' -f5,6)" " $want | - "
	# no other figure is in points; the rows' changes stay in percent
	same "$(grep -c ' pp |' <<<"$output")" 1
	[[ "${lines[9]}" == *"% |"* ]]
	run mct-diff -o table "$d/a.json" "$d/c.json.gz"
	same "$(grep '^busy % ' <<<"$output" | awk '{print $5, $6, $7}')" "$want -"
}

@test "formats: tsv and csv have exactly the columns of mct-diff(1); md and table the summary first; --time-unit scales times" {
	cols="name	count_a	count_b	total_a	total_b	total_delta	total_pct	median_a	median_b	median_delta	median_pct	only	new	gone"
	# the first row as ab.nd has it (its figures are the oracle's, above)
	read -r name ca cb ta tb td pct ma mb md <<<"$(col "$d/ab.nd" name \
	    count_a count_b total_a total_b total_delta total_pct median_a \
	    median_b median_delta | sed -n 1p)"
	ms() {
		"$PYTHON3" -c 'import decimal, sys
print(format(decimal.Decimal(sys.argv[1]).scaleb(-6).normalize(), "f"))' "$1"
	}
	run mct-diff -o tsv "$d/a.json" "$d/b.json"
	same "${lines[0]}" "$cols"
	same "$(cut -f1-6,8-10 <<<"${lines[1]}")" \
	    "$(printf '%s\t' "$name" "$ca" "$cb" "$ta" "$tb" "$td" "$ma" "$mb" |
	    sed 's/\t$//')	$md"
	run mct-diff -o csv --no-header "$d/a.json" "$d/b.json"
	[[ "${lines[0]}" == "$name,$ca,$cb,$ta,$tb,$td,"* ]]
	run mct-diff -o tsv --time-unit ms --top 1 "$d/a.json" "$d/b.json"
	[ "${#lines[@]}" -eq 2 ]
	same "$(cut -f1-6 <<<"${lines[1]}")" \
	    "$name	$ca	$cb	$(ms "$ta")	$(ms "$tb")	$(ms "$td")"
	run mct-diff -o md "$d/a.json" "$d/b.json"
	same "${lines[0]}" "| summary | a | b | delta | delta_pct |"
	[[ "${lines[2]}" == "| span | "* ]]
	# (bats leaves out the empty line between the tables)
	same "${lines[7]}" "| ${cols//	/ | } |"
	[[ "${lines[9]}" == "| $name | $ca | $cb | "*"| +$(printf '%.2f' "$pct")% |"* ]]
	run mct-diff -o table "$d/a.json" "$d/b.json"
	[[ "${lines[0]}" == "summary "* ]]
	[[ "$output" == *"steady rounds"* ]]
	# ndjson: the header, the summary, the rows
	run mct-diff "$d/a.json" "$d/b.json"
	[[ "${lines[0]}" == '{"name":"mct_header"'* ]]
	[[ "${lines[1]}" == '{"name":"mct_diff_summary"'* ]]
	[[ "${lines[2]}" == "{\"name\":\"$name\",\"count_a\":$ca,"* ]]
}

@test "--width N cuts table and md cells to N characters with …; -u sets the unit of a trace read directly; bad values exit 2" {
	run mct-diff -o md --width 8 "$d/a.json" "$d/b.json"
	[ "$status" -eq 0 ]
	# every cell of the rows at most 8 characters, the long names cut with
	# …; but names a cut to 8 would make alike are widened till they are
	# not: the names of a table are never two alike
	"$PYTHON3" -c '
import sys
rows = [l for l in sys.stdin.read().split("\n") if l.startswith("| ")]
cut, names = 0, []
for l in rows:
    for i, c in enumerate(l.strip("|").split("|")):
        c = c.strip()
        if i == 0 and len(c) > 8:
            assert "\u2026" in c, (c, l)
        else:
            assert len(c) <= 8, (c, l)
        cut += c.endswith("\u2026")
    names.append(l.strip("|").split("|")[0])
assert cut > 0, "no cell was cut"
assert len(set(names)) == len(names), names' <<<"$output"
	# -u: the unit of a trace read directly; integers are microseconds
	# by default (Chrome's), nanoseconds with -u ns
	printf '%s\n' '{"traceEvents":[' \
	    '{"ph":"X","cat":"kernel","name":"k","pid":2,"tid":1,"ts":10,"dur":3},' \
	    '{"ph":"X","cat":"kernel","name":"k","pid":2,"tid":1,"ts":20,"dur":4}]}' \
	    > u.json
	run mct-diff -o tsv --no-header u.json u.json
	same "$(cut -f1-5 <<<"${lines[0]}")" "k	2	2	7000	7000"
	run mct-diff -o tsv --no-header -u ns u.json u.json
	same "$(cut -f1-5 <<<"${lines[0]}")" "k	2	2	7	7"
	run --separate-stderr mct-diff --width x "$d/a.json" "$d/b.json"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--width"* ]]
	run --separate-stderr mct-diff -u parsecs "$d/a.json" "$d/b.json"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"parsecs"* ]]
}

@test "a call whose end is past a sane time counts as of no time, as in mct-phases: the summary's span is not wrapped negative (it was signed overflow)" {
	# kernels at -4e18 and at 4e18 for 4e18: each ts and dur a sane time
	# (below 2^62 ns), but b's end is not, so b lasts no time (from the
	# first start to the last end was past int64)
	k='"ph":"X","cat":"kernel","pid":2,"tid":7'
	printf '{"traceEvents":[{%s,"name":"a","ts":-4000000000000000000,"dur":4000000000000000000},{%s,"name":"b","ts":4000000000000000000,"dur":4000000000000000000}]}\n' \
	    "$k" "$k" > far.json
	run -0 --separate-stderr mct-diff -u ns far.json far.json
	same "${lines[1]}" '{"name":"mct_diff_summary","span_a":8000000000000000000,"span_b":8000000000000000000,"busy_a":4000000000000000000,"busy_b":4000000000000000000,"busy_pct_a":50,"busy_pct_b":50,"rounds_a":0,"rounds_b":0,"round_a":null,"round_b":null}'
}

@test "--top N and --min-delta T hide rows; --fail-if still sees every row" {
	run mct-diff -o tsv --no-header --min-delta 1us "$d/a.json" "$d/b.json"
	[ "${#lines[@]}" -eq 1 ]
	run mct-diff -o tsv --no-header --min-delta 179ms "$d/a.json" "$d/b.json"
	[ "${#lines[@]}" -eq 0 ]
	run mct-diff -o tsv --no-header --top 3 "$d/a.json" "$d/b.json"
	[ "${#lines[@]}" -eq 3 ]
	run mct-diff -o tsv --min-delta 179ms --fail-if 'total_pct > 5' \
	    "$d/a.json" "$d/b.json"
	[ "$status" -eq 3 ]
}

@test "partials: mct-group -o partial of each run give the rows of the traces; the summary is then not known" {
	mct-group -o partial "$d/a.json" > pa
	mct-group -o partial "$d/b.json" | gzip > pb.gz
	mct-diff pa pb.gz > p.nd
	same "$(tail -n +3 p.nd)" "$(tail -n +3 "$d/ab.nd")"
	sed -n 2p p.nd | grep -q '"span_a":null,"span_b":null,'
	# a partial and a trace mix
	mct-diff pa "$d/b.json" > pt.nd
	same "$(tail -n +3 pt.nd)" "$(tail -n +3 "$d/ab.nd")"
	# another grouping is refused
	mct-group -o partial -k category "$d/b.json" > pc
	run --separate-stderr mct-diff pa pc
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"pc:1: a partial of another grouping"* ]]
	# a partial through a pipe is refused, not read as events
	run --separate-stderr mct-diff pa <(cat pa)
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"a partial of mct-group is read from a file, not from a pipe"* ]]
}

@test "a damaged operand: exit 1, its rows from the intact events; an unreadable one: exit 2, nothing written" {
	# a line of run B's stream made garbage
	awk 'NR == 500 { print "{\"name\": broken"; next } { print }' \
	    <(gen --scale 0.05 --form ndjson --slow-kernel kernel_kernel \
	    --slow-factor-kernel 1.10) > bad.nd
	run --separate-stderr mct-diff "$d/a.json" bad.nd
	[ "$status" -eq 1 ]
	[[ "$stderr" == "mct-diff: bad.nd:"* ]]
	printf '%s\n' "$output" > bad.out
	grep -v broken bad.nd > intact.nd
	diff_oracle --check bad.out "$d/a.json" intact.nd
	run --separate-stderr mct-diff "$d/a.json" nonexistent.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"nonexistent.json"* ]]
	same "$output" ""
}

@test "an empty run (an empty file, '[', no traceEvents, only metadata, an empty partial), as A or as B: exit 2 whatever --fail-if says, nothing written" {
	: > empty.json
	printf '[' > bracket.json
	printf '{"traceEvents":[]}' > none.json
	printf '%s\n' '{"traceEvents":[{"ph":"M","name":"process_name","pid":1,"args":{"name":"x"}}]}' > meta.json
	mct-group -o partial none.json > none.partial
	for f in empty.json bracket.json none.json meta.json none.partial; do
		what=events
		[ "$f" = none.partial ] && what=groups
		run --separate-stderr mct-diff --fail-if 'total_pct > 1000000' "$d/a.json" "$f"
		[ "$status" -eq 2 ] || { echo "$f as B: $status"; return 1; }
		same "$output" ""
		same "${stderr##*$'\n'}" "mct-diff: $f: run B has no $what: nothing to compare"
		run --separate-stderr mct-diff "$f" "$d/b.json"
		[ "$status" -eq 2 ] || { echo "$f as A: $status"; return 1; }
		same "$output" ""
		same "${stderr##*$'\n'}" "mct-diff: $f: run A has no $what: nothing to compare"
	done
	# from a pipe too
	run --separate-stderr mct-diff --fail-if new "$d/a.json" - < /dev/null
	[ "$status" -eq 2 ]
	same "${stderr##*$'\n'}" "mct-diff: (stdin): run B has no events: nothing to compare"
}

# bad_gate EXPR MESSAGE: --fail-if EXPR is a usage error said as MESSAGE.
bad_gate() {
	run --separate-stderr mct-diff --fail-if "$1" "$d/a.json" "$d/b.json"
	[ "$status" -eq 2 ] || { echo "$1: status $status"; return 1; }
	same "$output" ""
	same "${stderr%%$'\n'*}" "mct-diff: --fail-if: $2"
}

@test "usage errors exit 2: --fail-if that does not parse (with its place), one operand, an unknown format" {
	bad_gate 'total_pct > 5 &&' "a field is missing at the end of 'total_pct > 5 &&'"
	bad_gate 'total_pct >' "a value is missing after the operator at the end of 'total_pct >'"
	bad_gate 'total_pct ?? 5' "unknown operator at '?? 5' (want == != < <= > >= ~ !~) at character 11 of 'total_pct ?? 5'"
	bad_gate '(total_pct > 5' "a ')' is missing at the end of '(total_pct > 5'"
	bad_gate 'total_pct > 5) || new' "a ')' without its '(' at character 14 of 'total_pct > 5) || new'"
	run --separate-stderr mct-diff "$d/a.json"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "mct-diff: two runs to compare, A and B (got 1 operand)"* ]]
	run mct-diff -o trace "$d/a.json" "$d/b.json"
	[ "$status" -eq 2 ]
	run mct-diff --min-delta x "$d/a.json" "$d/b.json"
	[ "$status" -eq 2 ]
}

@test "fixtures: kineto-diff-control against kineto-diff-test, every figure of every row is the oracle's" {
	slow
	need_fixtures
	mct-diff "$fixtures/kineto-diff-control.json.gz" \
	    "$fixtures/kineto-diff-test.json.gz" > kd.nd
	diff_oracle --summary --check kd.nd "$fixtures/kineto-diff-control.json.gz" \
	    "$fixtures/kineto-diff-test.json.gz"
}

@test "fixtures: the README's gate on kineto-diff-control against -test fails on the oracle's rows, the kernels new in B among them" {
	need_fixtures
	local a=$fixtures/kineto-diff-control.json.gz b=$fixtures/kineto-diff-test.json.gz
	local gate
	gate=$(sed -n 's/.*mct-diff --device --fail-if \('"'"'[^'"'"']*'"'"'\) .*/\1/p' \
	    "$MCT_SRCDIR/README.md" | sort -u)
	same "$gate" "'new && total_b > 1ms || total_pct > 5 && total_delta > 1ms'"
	run --separate-stderr mct-diff --device -o tsv \
	    --fail-if 'new && total_b > 1ms || total_pct > 5 && total_delta > 1ms' "$a" "$b"
	[ "$status" -eq 3 ]
	diff_oracle --device --rows "$a" "$b" > rows.nd
	same "$(sed 's/^mct-diff: --fail-if: //; s/ (total [^(]*$//' <<<"$stderr" | sort)" \
	    "$("$PYTHON3" -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["new"] and r["total_b"] > 1000000 or (r["total_pct"] or 0) > 5 \
            and r["total_delta"] > 1000000:
        print(r["name"])' rows.nd | sort)"
	# every kernel of B only over 1 ms is named
	same "$(grep -c ', only in B)$' <<<"$stderr")" "$("$PYTHON3" -c '
import json, sys
print(sum(1 for l in open(sys.argv[1]) if json.loads(l)["new"] and
          json.loads(l)["total_b"] > 1000000))' rows.nd)"
	# the new keys are the kernels of B only, as python3 reads the traces
	"$PYTHON3" - "$a" "$b" rows.nd <<'EOF'
import gzip, json, sys
names = [{e["name"] for e in json.load(gzip.open(p))["traceEvents"]
          if e.get("cat") == "kernel"} for p in sys.argv[1:3]]
rows = [json.loads(l) for l in open(sys.argv[3])]
new = {r["name"] for r in rows if r["new"]}
assert names[1] - names[0] == new, (len(names[1] - names[0]), len(new))
assert len(new) > 0
EOF
	# the gate before: no new kernel
	run --separate-stderr mct-diff --fail-if 'total_pct > 5 && total_delta > 1ms' "$a" "$b"
	! grep -q 'only in B' <<<"$stderr"
}

@test "fixtures: bert on H100 against MI300, by name and --by op on the traces: the oracle's device time per op; through mct-flow --stack the same rows" {
	need_fixtures
	local h=$fixtures/kineto-bert-h100.json.gz m=$fixtures/kineto-bert-mi300.json.gz

	mct-diff "$h" "$m" > bn.nd
	diff_oracle --summary --check bn.nd "$h" "$m"
	mct-diff --by op "$h" "$m" > op.nd
	diff_oracle --op --by op --check op.nd "$h" "$m"
	# the rows line up: every op is in both runs
	same "$(col op.nd only | sort -u)" None
	# the pipeline pairs upstream: the same rows (the summary is the
	# pairs' own there)
	mct-diff --by op <(mct-cat "$h" | mct-flow --stack 2>/dev/null) \
	    <(mct-cat "$m" | mct-flow --stack 2>/dev/null) > opp.nd
	same "$(sed 1,2d op.nd)" "$(sed 1,2d opp.nd)"
	mct-diff --by module,annotation,stack -o tsv "$h" "$m" > s.tsv
	mct-diff --by module,annotation,stack -o tsv \
	    <(mct-cat "$h" | mct-flow --stack 2>/dev/null) "$m" > sp.tsv
	same "$(cat s.tsv)" "$(cat sp.tsv)"
	[ "$(wc -l < s.tsv)" -gt 2 ]
}

@test "--step N: the device work launched in step N of each run, its counts and totals the stack oracle's; --step-name; errors" {
	local ex=$MCT_SRCDIR/examples/pytorch-small.pt.trace.json
	mct-diff --step 2 -o tsv --no-header "$ex" "$ex" > d.tsv
	oracle stack_oracle.py by step,name "$ex" > py
	same "$(cut -f1,2,4 d.tsv | sort)" \
	    "$(awk -F'\t' -v OFS='\t' '$1 == 2 { print $2, $3, $4 }' py | sort)"
	same "$(cut -f1,3,5 d.tsv | sort)" "$(cut -f1,2,4 d.tsv | sort)"
	# --by step: the step is a key like the others
	run mct-diff --by step -o tsv --no-header "$ex" "$ex"
	same "$(cut -f1,2 <<<"$output" | sort)" \
	    "$(oracle stack_oracle.py by step "$ex" | cut -f1,2 | sort)"
	# --step-name: no annotation Optimizer.step#N with a number
	run -2 --separate-stderr mct-diff --step 2 --step-name Optimizer.step "$ex" "$ex"
	same "$stderr" "mct-diff: $ex: no step 2"
	same "$output" ""
	run -2 --separate-stderr mct-diff --step 9 "$ex" "$ex"
	same "$stderr" "mct-diff: $ex: no step 9"
	# one kernel: neither a step annotation nor a steady round
	printf '{"traceEvents":[{"name":"k","ph":"X","pid":2,"tid":0,"ts":1000,"dur":5,"args":{"co_id":1}},{"name":"mcLaunchKernel","ph":"X","pid":1,"tid":1,"ts":900,"dur":5,"args":{"co_id":1}}]}\n' > one.json
	run -2 --separate-stderr mct-diff --step median one.json "$ex"
	same "$stderr" "mct-diff: one.json: no step annotation (ProfilerStep#N): no median step"
	run -2 --separate-stderr mct-diff --step median --step-name Optimizer.step one.json "$ex"
	same "$stderr" "mct-diff: one.json: no step annotation (Optimizer.step#N): no median step"
	run -2 --separate-stderr mct-diff --step 1.5 "$ex" "$ex"
	same "${stderr_lines[0]}" "mct-diff: --step: invalid step '1.5' (want a step number N of NAME#N, or median)"
	mct-group -o partial "$ex" > p.part
	run -2 --separate-stderr mct-diff --step 1 p.part "$ex"
	same "$stderr" "mct-diff: p.part: --step reads a trace, not a partial of mct-group"
}

@test "--step N of two mcTracer traces (no step annotation): the device work with a launch in round N of mct-phases in each run, by its ts, its counts and totals python's; --step median; a round not there" {
	genf a.json --scale 0.03
	genf b.json --scale 0.03 --slow-kernel kernel_kernel --slow-factor-kernel 1.1
	mct-cat a.json > a.nd
	mct-cat b.json > b.nd
	oracle step_oracle.py --all a.nd > a.py
	oracle step_oracle.py --all b.nd > b.py
	for n in 2 4; do
		"$PYTHON3" -c 'import json, sys
for f, side in ((sys.argv[1], "a"), (sys.argv[2], "b")):
    for k, (c, t) in json.load(open(f))["pairs"].get(sys.argv[3], {}).items():
        print(side, k, c, t, sep="\t")' a.py b.py "$n" | sort > want
		mct-diff --step "$n" -o tsv --no-header a.json b.json |
		    awk -F'\t' -v OFS='\t' '$2 > 0 { print "a", $1, $2, $4 } $3 > 0 { print "b", $1, $3, $5 }' | sort > got
		[ "$(wc -l < want)" -gt 10 ]
		same "$(cat got)" "$(cat want)"
	done
	# the slow kernel is 10% slower in every round
	same "$(mct-diff --step 2 -o tsv --no-header a.json b.json | awk -F'\t' '$1 == "kernel_kernel" { print $7 }')" 10
	run --separate-stderr mct-diff --step median -o tsv a.json b.json
	same "$(grep median <<<"$stderr")" "mct-diff: a.json: the median step of 6 is $("$PYTHON3" -c 'import json, sys
r = sorted(json.load(open(sys.argv[1]))["rounds"], key=lambda r: (r[2] - r[1], r[0]))
print(r[len(r) // 2][0])' a.py)
mct-diff: b.json: the median step of 6 is $("$PYTHON3" -c 'import json, sys
r = sorted(json.load(open(sys.argv[1]))["rounds"], key=lambda r: (r[2] - r[1], r[0]))
print(r[len(r) // 2][0])' b.py)"
	run -2 --separate-stderr mct-diff --step 7 a.json b.json
	same "$stderr" "mct-diff: a.json: no step 7"
}

@test "fixtures: --step median on kineto-diff-control against -test: python's median step, and the rows of that step windowed by hand (the pairs launched inside each run's ProfilerStep#N)" {
	slow
	need_fixtures
	local a=$fixtures/kineto-diff-control.json.gz b=$fixtures/kineto-diff-test.json.gz
	local x s e n
	run --separate-stderr mct-diff --step median -o tsv "$a" "$b"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > step.tsv
	for x in a b; do
		mct-filter --name 'ProfilerStep#*' -o tsv -F name,ts,end,dur \
		    --no-header "${!x}" > steps.$x
		# the median: the step at n/2 (from 0) by length, then number
		n=$("$PYTHON3" -c '
import sys
st = [l.split("\t") for l in open(sys.argv[1])]
st.sort(key=lambda s: (int(s[3]), int(s[0].split("#")[1])))
print(st[len(st) // 2][0].split("#")[1])' steps.$x)
		grep -qxF "mct-diff: ${!x}: the median step of $(wc -l < steps.$x) is $n" <<<"$stderr"
		read -r s e < <(awk -F'\t' -v n="ProfilerStep#$n" '$1 == n { print $2, $3 }' steps.$x)
		mct-flow -q --stack "${!x}" |
		    mct-filter --where "launch.ts >= @$s && launch.ts <= @$e" > $x.nd
	done
	mct-diff -o tsv a.nd b.nd > hand.tsv
	same "$(cat step.tsv)" "$(cat hand.tsv)"
	[ "$(wc -l < hand.tsv)" -gt 100 ]
}
