#!/usr/bin/env bats
# mct-ranks.bats - a job of many ranks: the rank table, the
# straggler, the collectives, and every option, format and error of
# mct-ranks(1).
#
# Expected values come from tests/ranks_oracle.py (python3's json reading
# the same streams: unions of intervals, medians, the steady rounds of
# tests/phases_oracle.py, the n-th collective of each name) or from what
# gentrace --ranks was told (which rank is slow); never from output of
# mct-ranks kept from an earlier run.

load helpers

setup_file() {
	light_trace
	local d="$BATS_FILE_TMPDIR" i

	# A job of 4 small ranks, rank 2 slower by 8%, clocks in step; the
	# same with the clocks off by up to 3 s; their streams; the ranks as
	# one stream with a rank key on every event; python's answers.
	mkdir "$d/job" "$d/off"
	gen --scale 0.03 --ranks 4 --slow-rank 2 --slow-factor 1.08 \
	    --out "$d/job"
	gen --scale 0.03 --ranks 4 --slow-rank 2 --slow-factor 1.08 \
	    --clock-offset 3000000000 --out "$d/off"
	for i in 0 1 2 3; do
		mct-cat "$d/job/rank-$i.json" > "$d/s$i.nd"
	done
	pyo tag "$d"/s[0-3].nd > "$d/job.nd"
	pyo ranks "$d/job.nd" > "$d/ranks.py"
	pyo collectives "$d/job.nd" > "$d/colls.py"
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	D="$BATS_FILE_TMPDIR"
}

# The oracle of this file.
pyo() {
	oracle ranks_oracle.py "$@"
}

# mct-ranks into out (stdout) and err; its exit status in $status.
ranks_to() {
	mct-ranks "$@" > out 2> err && status=0 || status=$?
}

@test "mct-ranks: --help and --version" {
	docs
	run mct-ranks --help
	[ "$status" -eq 0 ]
	for o in --collectives --threshold --key --device --rules --output \
	    --no-header --time-unit --width --unit --help --version; do
		[[ "$output" == *"$o"* ]] || { echo "no $o"; return 1; }
	done
	run mct-ranks --version
	[ "$status" -eq 0 ]
	[[ "$output" == mct-ranks* || "$output" == *mct* ]]
}

@test "mct-ranks: usage errors exit 2 with a message" {
	run mct-ranks -o trace "$D/job.nd"
	[ "$status" -eq 2 ]
	[[ "$output" == *"-o: unknown format 'trace'"* ]]
	run mct-ranks --threshold x "$D/job.nd"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--threshold: invalid number 'x'"* ]]
	run mct-ranks --threshold -1 "$D/job.nd"
	[ "$status" -eq 2 ]
	run mct-ranks --device 'name ~~' "$D/job.nd"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--device:"* ]]
	run mct-ranks --bogus
	[ "$status" -eq 2 ]
	run mct-ranks "$BATS_TEST_TMPDIR/none.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *none.json* ]]
}

@test "mct-ranks: a job of 4 ranks, rank 2 8% slower: every figure as python's, rank 2 the one straggler" {
	ranks_to -o tsv --no-header "$D/job.nd"
	[ "$status" -eq 0 ]
	same "$(cat out)" "$(cat "$D/ranks.py")"
	# compute is the union of the non-communication device intervals, to
	# the ns; the straggler column says rank 2 and no other
	same "$(awk -F'\t' '$29 == "true" { print $1 }' out)" 2
	[ "$(wc -l < out)" -eq 4 ]
	# communication was seen, and the slow rank waits least in it
	awk -F'\t' '$6 <= 0 { exit 1 }' out
	[ "$(sort -t"$(printf '\t')" -k6,6n out | head -1 | cut -f1)" = 2 ]
}

@test "mct-ranks: the rank files read directly, through mct-cat, or merged, give the same rows" {
	ranks_to -o tsv --no-header "$D"/job/rank-[0-3].json
	[ "$status" -eq 0 ]
	same "$(cat out)" "$(cat "$D/ranks.py")"
	mct-cat "$D"/job/rank-[0-3].json | mct-ranks -o tsv --no-header > out
	same "$(cat out)" "$(cat "$D/ranks.py")"
	mct-cat --merge "$D"/job/rank-[3210].json |
	    mct-ranks --collectives -o tsv --no-header > out
	same "$(cat out)" "$(cat "$D/colls.py")"
}

@test "mct-ranks: clock offsets, then mct-cat --align start: rank 2 the one straggler, figures as without offsets" {
	# offsets make the ranks' times disagree: skews of seconds
	mct-cat "$D"/off/rank-[0-3].json |
	    mct-ranks --collectives -o tsv --no-header > out
	awk -F'\t' 'NF == 9 && $6 > 1000000000 { n++ } END { exit n == 0 }' out
	# aligned by their first events, every figure is python's on the
	# offset-free job, the collectives too (but their start: the origin moved)
	mct-cat --align start "$D"/off/rank-[0-3].json 2> /dev/null |
	    mct-ranks -o tsv --no-header > out
	same "$(cat out)" "$(cat "$D/ranks.py")"
	same "$(awk -F'\t' '$29 == "true" { print $1 }' out)" 2
	mct-cat --merge --align start "$D"/off/rank-[0-3].json 2> /dev/null |
	    mct-ranks --collectives -o tsv --no-header > out
	same "$(cut -f1,2,4- out)" "$(cut -f1,2,4- "$D/colls.py")"
}

@test "mct-ranks: --threshold moves the line" {
	ranks_to -o tsv --no-header --threshold 10 "$D/job.nd"
	same "$(cat out)" "$(pyo ranks --threshold 10 "$D/job.nd")"
	[ "$(awk -F'\t' '$29 == "true"' out | wc -l)" -eq 0 ]
	ranks_to -o tsv --no-header --threshold 7.5 "$D/job.nd"
	same "$(awk -F'\t' '$29 == "true" { print $1 }' out)" 2
}

@test "mct-ranks: --collectives: skew, spread and the last rank of every collective as python's" {
	ranks_to --collectives -o tsv --no-header "$D/job.nd"
	[ "$status" -eq 0 ]
	[ ! -s err ]
	same "$(cat out)" "$(cat "$D/colls.py")"
	# a collective after every round (3 + 3 at this scale), each last on
	# the slow rank, which caused every wait
	[ "$(awk -F'\t' 'NF == 9' out | wc -l)" -eq 6 ]
	[ "$(awk -F'\t' 'NF == 9 && $9 != 2' out | wc -l)" -eq 0 ]
	same "$(awk -F'\t' 'NF == 3 && $2 > 0 { print $1 }' out)" 2
	# ndjson: the same records, ts absolute
	ranks_to --collectives "$D/job.nd"
	"$PYTHON3" - out > got <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
origin = lines[0]["args"]["origin"]
waits = False
for r in lines[1:]:
    if "name" in r:
        assert not waits
        print("\t".join(str(x) for x in (r["name"], r["n"], r["ts"] - origin,
              r["dur"], r["ranks"], r["skew"], r["spread"], r["first"],
              r["last"])))
    else:
        if not waits:
            print()
        waits = True
        print("%d\t%d\t%d" % (r["rank"], r["times_last"], r["wait"]))
PY
	same "$(cat got)" "$(cat "$D/colls.py")"
}

@test "--collectives -o ndjson --time-unit: a collective's ts and dur stay ns, as an event's and as mct-phases' (dur was scaled beside a ts in ns); skew, spread and wait are scaled" {
	ranks_to --collectives "$D/job.nd"
	mv out ns
	ranks_to --collectives --time-unit ms "$D/job.nd"
	[ "$status" -eq 0 ]
	"$PYTHON3" - ns out <<'PY'
import json, sys
from decimal import Decimal
ns = [json.loads(l) for l in open(sys.argv[1])][1:]
ms = [json.loads(l, parse_float=Decimal) for l in open(sys.argv[2])][1:]
assert len(ns) == len(ms) and any("name" in r for r in ns)
for a, b in zip(ns, ms):
    if "name" in a:
        # an interval of the stream: ts and dur in ns, whole numbers
        assert b["ts"] == a["ts"] and b["dur"] == a["dur"], (a, b)
        assert isinstance(b["dur"], int), b
        for k in ("skew", "spread"):
            assert b[k] == Decimal(a[k]) / 1000000, (k, a, b)
    else:
        assert b["wait"] == Decimal(a["wait"]) / 1000000, (a, b)
PY
	# the tables: start and dur both in the unit asked
	ranks_to --collectives -o tsv --no-header --time-unit ms "$D/job.nd"
	"$PYTHON3" - ns out <<'PY'
import json, sys
from decimal import Decimal
ns = [json.loads(l) for l in open(sys.argv[1])][1:]
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
rows = [r for r in rows if len(r) == 9]
colls = [r for r in ns if "name" in r]
assert len(rows) == len(colls)
for r, c in zip(rows, colls):
    assert Decimal(r[3]) == Decimal(c["dur"]) / 1000000, (r, c)
PY
}

@test "mct-ranks: a collective missing on a rank is reported with counts, not guessed" {
	# drop rank 1's third collective
	awk '/ncclDevKernel/ && ++n == 3 { next } { print }' "$D/s1.nd" > s1.nd
	pyo tag "$D/s0.nd" s1.nd "$D/s2.nd" "$D/s3.nd" > job.nd
	ranks_to --collectives -o tsv --no-header job.nd
	[ "$status" -eq 0 ]
	same "$(cat err)" "mct-ranks: ncclDevKernel_AllReduce_Sum_f32_RING_LL: 1 collective not on every rank (rank 0: 6, rank 1: 5, rank 2: 6, rank 3: 6), left out"
	same "$(cat out)" "$(pyo collectives job.nd)"
	[ "$(awk -F'\t' 'NF == 9' out | wc -l)" -eq 5 ]
}

@test "mct-ranks: ndjson: the header line, a record per rank with its medians and deviations" {
	ranks_to "$D/job.nd"
	[ "$status" -eq 0 ]
	"$PYTHON3" - out "$D/ranks.py" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
want = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
assert lines[0]["name"] == "mct_header", lines[0]
recs = lines[1:]
assert [r["rank"] for r in recs] == [0, 1, 2, 3]
names = ["span", "busy", "busy_pct", "compute", "comm", "exposed", "idle",
         "rounds", "round"]
for r, w in zip(recs, want):
    got = [r[k] for k in names] + [r["median"][k] for k in names] + \
          [r["dev"][k] for k in names]
    for g, x in zip(got, w[1:28]):
        assert float(g) == float(x), (r["rank"], g, x)
    assert r["straggler"] == (w[28] == "true")
assert abs(recs[2]["dev"]["compute"] - 8) < 0.5, recs[2]["dev"]["compute"]
PY
}

@test "mct-ranks: tsv and csv headers, --time-unit scales the times" {
	ranks_to -o tsv "$D/job.nd"
	same "$(head -1 out)" "$(printf 'rank\tspan\tbusy\tbusy_pct\tcompute\tcomm\texposed\tidle\trounds\tround\tmedian.span\tmedian.busy\tmedian.busy_pct\tmedian.compute\tmedian.comm\tmedian.exposed\tmedian.idle\tmedian.rounds\tmedian.round\tdev.span\tdev.busy\tdev.busy_pct\tdev.compute\tdev.comm\tdev.exposed\tdev.idle\tdev.rounds\tdev.round\tstraggler\tkernel\tmemory\tmedian.kernel\tmedian.memory\tdev.kernel\tdev.memory')"
	ranks_to -o csv "$D/job.nd"
	[[ "$(head -1 out)" == rank,span,busy,busy_pct,compute,* ]]
	[ "$(wc -l < out)" -eq 5 ]
	ranks_to -o tsv --no-header --time-unit ms "$D/job.nd"
	same "$(cut -f1,5 out)" "$(awk -F'\t' '{ printf "%s\t%d", $1, int($5 / 1000000); s = sprintf("%06d", $5 % 1000000); sub(/0+$/, "", s); if (s != "") printf ".%s", s; print "" }' "$D/ranks.py")"
	ranks_to --collectives -o tsv "$D/job.nd"
	[[ "$(head -1 out)" == "name	n	start	dur	ranks	skew	spread	first	last" ]]
	grep -qx 'rank	times_last	wait' out
}

@test "mct-ranks: the table for people: deviations beside the figures, a median row" {
	ranks_to -o table "$D/job.nd"
	[ "$status" -eq 0 ]
	[[ "$(head -1 out)" == rank*span*busy*compute*straggler ]]
	grep -q '^median ' out
	grep -E '^2 .*\(\+8\.[0-9]%\).* true *$' out
	ranks_to -o md --collectives "$D/job.nd"
	[ "$(grep -c '^|---|' out)" -eq 2 ]
	grep -q '^| ncclDevKernel_AllReduce_Sum_f32_RING_LL | 1 |' out
}

@test "mct-ranks -o table, -o md: --width cuts cells as in every tool (it was refused: unrecognized option), 0 never" {
	ranks_to -o md --collectives --width 20 "$D/job.nd"
	[ "$status" -eq 0 ]
	grep -q '^| ncclDevKernel_AllRe… | 1 |' out
	ranks_to -o table --collectives --width 0 "$D/job.nd"
	[ "$status" -eq 0 ]
	grep -q '^ncclDevKernel_AllReduce_Sum_f32_RING_LL  *1 ' out
	ranks_to -o tsv --collectives --width 20 "$D/job.nd"
	grep -q '^ncclDevKernel_AllReduce_Sum_f32_RING_LL	1	' out
	ranks_to --width -1 "$D/job.nd"
	[ "$status" -eq 2 ]
	grep -q -- "--width: invalid width '-1'" err
}

@test "mct-ranks: one trace is one rank; no device events, no rows" {
	ranks_to -o tsv --no-header "$D/s0.nd"
	[ "$status" -eq 0 ]
	same "$(cat out)" "$(pyo ranks "$D/s0.nd")"
	same "$(cut -f1,20-29 out)" "$(printf '0\t0\t0\t0\t0\t0\t0\t0\t0\t0\tfalse')"
	printf '{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":2,"pid":1,"tid":1}]}\n' > h.json
	ranks_to -o tsv h.json
	[ "$status" -eq 0 ]
	[ "$(wc -l < out)" -eq 1 ]
}

@test "mct-ranks: a rank that is not an integer is damage (exit 1), the rest counted" {
	# the first kernel's rank (only device events are read for it)
	n=$(grep -n '"pid":2,"tid":0,"ts"' "$D/job.nd" | head -1 | cut -d: -f1)
	sed "${n}s/\"rank\":0/\"rank\":\"x\"/" "$D/job.nd" > bad.nd
	grep -q '"rank":"x"' bad.nd
	ranks_to -o tsv --no-header bad.nd
	[ "$status" -eq 1 ]
	[[ "$(cat err)" == *"bad.nd:$n: rank is not an integer: \"x\""* ]]
	[ "$(wc -l < out)" -eq 4 ]
}

@test "mct-ranks: --device and --key narrow the calls" {
	ranks_to -o tsv --no-header --device 'name~^(kernel_kernel|nccl)' "$D/job.nd"
	[ "$status" -eq 0 ]
	[ "$(wc -l < out)" -eq 4 ]
	# fewer device calls: less busy time than with every device lane
	paste <(cut -f3 out) <(cut -f3 "$D/ranks.py") | awk '$1 >= $2 { exit 1 }'
	ranks_to -o tsv --no-header -k name "$D/job.nd"
	[ "$status" -eq 0 ]
	same "$(cut -f1-8 out)" "$(cut -f1-8 "$D/ranks.py")"
}

@test "gentrace --ranks: distributedInfo, a collective after each round, clock offsets that only shift" {
	"$PYTHON3" - "$D/job" "$D/off" <<'PY'
import json, sys
job, off = sys.argv[1], sys.argv[2]
shifts = set()
for r in range(4):
    a = json.load(open("%s/rank-%d.json" % (job, r)))
    b = json.load(open("%s/rank-%d.json" % (off, r)))
    assert a["distributedInfo"] == {"rank": r, "world_size": 4}, r
    ea, eb = a["traceEvents"], b["traceEvents"]
    assert len(ea) == len(eb)
    coll = [e for e in ea if e["name"].startswith("ncclDevKernel")]
    assert len(coll) == 6, len(coll)            # 3 + 3 rounds at 0.03
    if r == 2:
        assert all(e["dur"] == 100000 for e in coll)
    else:
        assert all(e["dur"] > 100000 for e in coll)
    d = {y["ts"] - x["ts"] for x, y in zip(ea, eb) if "ts" in x}
    assert len(d) == 1, d                       # one shift for the rank
    s = d.pop()
    assert -3000000000 <= s <= 3000000000
    shifts.add(s)
    assert [dict(x, ts=0) for x in ea if "ts" in x] == \
        [dict(y, ts=0) for y in eb if "ts" in y]
assert len(shifts) > 1, shifts
PY
	run gentrace --ranks 2
	[ "$status" -eq 2 ]
	[[ "$output" == *"--ranks N and --out DIR go together"* ]]
	run gentrace --ranks 2 --out . --slow-rank 2
	[ "$status" -eq 2 ]
	run gentrace --slow-factor 1.1
	[ "$status" -eq 2 ]
	run gentrace --ranks 2 --out . --slow-factor 1.x
	[ "$status" -eq 2 ]
	[[ "$output" == *"--slow-factor: invalid value '1.x'"* ]]
	run gentrace --ranks 2 --out "$BATS_TEST_TMPDIR/nodir"
	[ "$status" -eq 2 ]
	[[ "$output" == *"nodir/rank-0.json"* ]]
}

@test "mct-report: a Ranks section when the stream holds several ranks, none for one" {
	mct-report -n 4 "$D/job.nd" > r.md
	sed -n '/^## [0-9]*\. Ranks$/,/^## /p' r.md > sec
	[ -s sec ]
	# the rank table is mct-ranks' own
	mct-ranks -o md "$D/job.nd" > t.md
	grep -qxF -f t.md sec
	[ "$(grep -cxF -f t.md sec)" -eq 7 ]
	grep -q '^| rank | .* | round | kernel | memory | straggler |$' sec
	# the top 4 collectives by skew, as python's, the slow rank last in each
	same "$(grep '^| ncclDev' sec | awk -F' *[|] *' '{ print $3 "\t" $7 }')" \
	    "$(awk -F'\t' 'NF == 9 { print $2 "\t" $9 "\t" $6 }' "$D/colls.py" |
	    sort -t"$(printf '\t')" -k3,3nr | head -4 | cut -f1,2)"
	grep -q '^| 2 | 6 | ' sec
	mct-report "$D/s0.nd" > one.md
	! grep -q 'Ranks' one.md
}

@test "fixtures: the two real Kineto NCCL ranks: rank table and collectives as python's" {
	need_fixtures
	local f0="$fixtures/kineto-rank0-of-2-nccl.json.gz" i
	local f1="$fixtures/kineto-rank1-of-2-nccl.json.gz"
	[ -r "$f0" ] && [ -r "$f1" ] || skip "no kineto-rank{0,1}-of-2-nccl.json.gz"
	mct-cat "$f0" > s0.nd
	mct-cat "$f1" > s1.nd
	ranks_to -o tsv --no-header "$f0" "$f1"
	[ "$status" -eq 0 ]
	same "$(cat out)" "$(pyo ranks s0.nd s1.nd)"
	ranks_to --collectives -o tsv --no-header "$f0" "$f1"
	[ "$status" -eq 0 ]
	same "$(cat out)" "$(pyo collectives s0.nd s1.nd)"
	[ "$(awk -F'\t' 'NF == 9' out | wc -l)" -gt 0 ]
}

@test "mct-ranks: kernel and memory, unions of the compute kernels and of the copies and memsets, each class on its own (python's); after straggler in tsv, after round in ndjson; kernel is compute of --device 'cat == \"kernel\"' (HTA's)" {
	# python's figures (the rank table above is compared whole): copies
	# on every rank; each class at most compute, the two at least compute
	awk -F'\t' '!($31 > 0 && $30 <= $5 && $31 <= $5 && $30 + $31 >= $5) { exit 1 }' "$D/ranks.py"
	ranks_to -o ndjson "$D/job.nd"
	grep -q '"round":[0-9]*,"kernel":[0-9]*,"memory":[0-9]*,"median":' out
	need_fixtures
	local f0="$fixtures/kineto-rank0-of-2-nccl.json.gz"
	[ -r "$f0" ] || skip "no kineto-rank0-of-2-nccl.json.gz"
	ranks_to -o tsv --no-header "$f0"
	same "$(cut -f 30 out)" \
	    "$(mct-ranks -o tsv --no-header --device 'cat == "kernel"' "$f0" | cut -f 5)"
}

@test "--collectives: waits summed past int64 stay at its end, not wrapped negative (it was signed overflow)" {
	# rank 1 starts each of four collectives 4e18 ns after rank 0 (each a
	# sane time; the four skews' sum past int64)
	for r in 0 1; do
		{
			printf '{"distributedInfo":{"rank":%d,"world_size":2},"traceEvents":[' $r
			for i in 0 1 2 3; do
				printf '%s{"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce","pid":0,"tid":7,"ts":%s,"dur":100}' \
				    "$([ $i -gt 0 ] && echo ,)" "$((r * 4000000000000000000 + i * 1000))"
			done
			printf ']}\n'
		} > r$r.json
	done
	run --separate-stderr mct-ranks -u ns --collectives -o tsv --no-header r0.json r1.json
	[ "$status" -eq 0 ]
	same "$(printf '%s\n' "$output" | tail -n 2)" "0	0	0
1	4	9223372036854775807"
}

@test "a rank's calls whose end is past a sane time count as of no time, as in mct-phases: its span, busy time and rounds are not wrapped negative (it was signed overflow)" {
	# k every 1e18 ns from -4.5e18, back to back, the last to 9e18; m the
	# same 1 ns later: each ts and dur a sane time (below 2^62 ns), but
	# the last k's and m's ends are not, so they last no time (the span
	# from the first start to the last end was past int64)
	{
		printf '{"traceEvents":[\n'
		for i in 0 1 2 3 4 5 6 7 8 9; do
			t=$((-4500000000000000000 + i * 1000000000000000000))
			printf '{"ph":"X","cat":"kernel","pid":0,"tid":7,"name":"k","ts":%d,"dur":%d},\n' \
			    $t $((i < 9 ? 1000000000000000000 : 4500000000000000000))
			printf '{"ph":"X","cat":"kernel","pid":0,"tid":8,"name":"m","ts":%d,"dur":%d}%s\n' \
			    $((t + 1)) $((i < 9 ? 1 : 4499999999999999999)) "$([ $i -lt 9 ] && echo ,)"
		done
		printf ']}\n'
	} > far.json
	run -0 --separate-stderr mct-ranks -u ns -o tsv --no-header far.json
	same "$(printf '%s\n' "$output" | cut -f1-10)" \
	    "0	9000000000000000001	9000000000000000000	100	9000000000000000000	0	0	1	10	900000000000000000"
}

@test "--collectives: a call whose end is past a sane time lasts no time: the collective's dur is not wrapped negative (it was signed overflow)" {
	# rank 0's call at -4e18, rank 1's at 4e18 for 4e18: its end, 8e18,
	# is not a sane time (from the first start to it was past int64)
	for r in 0 1; do
		printf '{"distributedInfo":{"rank":%d,"world_size":2},"traceEvents":[{"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce","pid":0,"tid":7,"ts":%s,"dur":%s}]}\n' \
		    $r $((r ? 4000000000000000000 : -4000000000000000000)) \
		    $((r ? 4000000000000000000 : 100)) > r$r.json
	done
	run -0 --separate-stderr mct-ranks -u ns --collectives -o tsv --no-header r0.json r1.json
	same "$(printf '%s\n' "$output" | head -n 1)" \
	    "ncclKernel_AllReduce	1	0	8000000000000000000	2	8000000000000000000	100	0	1"
}

@test "a call whose end is past a sane time counts as of no time in mct-ranks and mct-diff as in mct-phases: the same steady rounds (they were 4 to mct-phases' 6)" {
	# six rounds of a b c; then three more and an a at 4e18 ns lasting
	# 4e18 each: each ts and dur a sane time (below 2^62 ns), their ends
	# not
	k='"ph":"X","cat":"kernel","pid":0,"tid":7'
	{
		printf '{"traceEvents":[\n'
		for i in $(seq 0 17); do
			printf '{%s,"name":"%s","ts":%d,"dur":10},\n' "$k" \
			    "$(echo a b c | cut -d' ' -f$((i % 3 + 1)))" $((i * 20))
		done
		printf '{%s,"name":"a","ts":4000000000000000000,"dur":4000000000000000000}' "$k"
		for i in $(seq 0 8); do
			printf ',\n{%s,"name":"%s","ts":%d,"dur":4000000000000000000}' "$k" \
			    "$(echo a b c | cut -d' ' -f$((i % 3 + 1)))" \
			    $((4000000000000000100 + i / 3 * 100 + i % 3 * 20))
		done
		printf ']}\n'
	} > ends.json
	run -0 --separate-stderr mct-phases -u ns -o tsv --no-header ends.json
	phases=$(printf '%s\n' "$output" | awk -F'\t' '$1 == "steady" { n += $7 } END { print n + 0 }')
	[ "$phases" -eq 6 ]
	run -0 --separate-stderr mct-ranks -u ns -o tsv --no-header ends.json
	same "$(printf '%s\n' "$output" | cut -f9)" "$phases"
	run -0 --separate-stderr mct-diff -u ns -o ndjson ends.json ends.json
	[[ "${lines[1]}" == *'"rounds_a":'$phases',"rounds_b":'$phases,* ]]
}

@test "a name of 16 MiB: mct-ranks holds a small multiple of it (each rule's scratch is given back), the same table as mct-ranks of the name cut short" {
	if ldd "$MCT_BUILDDIR/tools/mct-ranks" | grep -q -e libasan -e libtsan; then
		skip "a sanitizer's allocator keeps memory of its own"
	fi
	[ -x /usr/bin/time ] || skip "no /usr/bin/time to measure the peak memory"
	"$PYTHON3" - big.json <<'PY'
import json, sys
name = "k" * (16 << 20)
evs = [{"name": "ncclDevKernel_AllReduce_x", "ph": "X", "ts": 10, "dur": 5,
        "pid": 2, "tid": 7, "cat": "kernel"},
       {"name": name, "ph": "X", "ts": 20, "dur": 5, "pid": 2, "tid": 7,
        "cat": "kernel"}]
json.dump({"traceEvents": evs, "distributedInfo": {"rank": 0}},
          open(sys.argv[1], "w"))
PY
	/usr/bin/time -f %M -o kb mct-ranks -o tsv big.json > out
	# 16 MiB is 16384 KiB: at most 16 times that, and what the tool
	# holds without it (a few MiB; it was 43 times the name)
	[ "$(cat kb)" -lt $((16 * 16384 + 32768)) ]
	sed 's/"k\{100,\}"/"kk"/' big.json > small.json
	same "$(cat out)" "$(mct-ranks -o tsv small.json)"
}
