#!/usr/bin/env bats
# mct-flow.bats - the pairing rules, every option, message and exit status of
# mct-flow(1).
#
# Expected numbers come from tests/flow_oracle.py (python3's json, the
# pairing rules written down independently), from the seed's figures
# (tests/gentrace.md: 18,391 pairs, mcMemcpyAsync 46.54 s of host time beside
# 0.81 s of copies) or from hand-made traces whose answer is written here.

load helpers

# The flow oracle.
fpy() {
	oracle flow_oracle.py "$@"
}

setup_file() {
	light_trace
	# The seed-shaped trace at full scale, and python's answer for it.
	genf "$BATS_FILE_TMPDIR/full.json"
	fpy save "$BATS_FILE_TMPDIR/py" "$BATS_FILE_TMPDIR/full.json"
	# A smaller one for the options, and the same without correlation ids
	# (flow mode): f ends as written (bp "e", on the device slice's start),
	# and 1 ns before the slice without bp (Chrome's default binding).
	genf "$BATS_FILE_TMPDIR/small.json" --scale 0.1
	fpy save "$BATS_FILE_TMPDIR/pys" "$BATS_FILE_TMPDIR/small.json"
	fpy strip-ids "$BATS_FILE_TMPDIR/small.json" > "$BATS_FILE_TMPDIR/flows.nd"
	fpy strip-ids "$BATS_FILE_TMPDIR/small.json" -1 > "$BATS_FILE_TMPDIR/next.nd"

	# Each Kineto fixture: mct-flow's outputs that the fixtures' tests
	# check, and python's answers, one process a fixture.
	[ -d "$fixtures" ] && [ "${MCT_TEST_SLOW:-1}" != 0 ] || return 0
	local f b n=0
	mkdir "$BATS_FILE_TMPDIR/kx"
	for f in "$fixtures"/kineto*; do
		[ -f "$f" ] || continue
		b=$BATS_FILE_TMPDIR/kx/$n
		n=$((n + 1))
		echo "$f" > "$b.name"
		mct-flow "$f" > "$b.nd" 2> "$b.err"
		echo $? > "$b.rc"
		mct-flow --orphans "$f" > "$b.orphans.nd" 2> /dev/null
		echo $? > "$b.orphans.rc"
		printf '%s\n' "summary $f" "summary --key args.correlation $f" \
		    "check --orphans $b.orphans.nd $f" > "$b.q"
		fpy batch "$b.q" "$f" "$b.orphans.nd" > "$b.a"
	done
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	full="$BATS_FILE_TMPDIR/full.json"
	small="$BATS_FILE_TMPDIR/small.json"
	pyd="$BATS_FILE_TMPDIR/py"
	pys="$BATS_FILE_TMPDIR/pys"
}

# mct-flow's stdout, stderr and status: out.nd, err, $status.
flow_to() {
	mct-flow "$@" > out.nd 2> err && status=0 || status=$?
}

# The numbers of a summary line.
counts() {
	sed -n 's/^mct-flow: \([0-9]*\) pairs; \([0-9]*\) host calls without device event, \([0-9]*\) device events without launch, \([0-9]*\) dangling flow ends$/\1 \2 \3 \4/p'
}

# The rows of -o tsv whose column $1 (launch.name) is not empty, sorted:
# the pairs (a metadata event has no launch).
launched() {
	awk -F '\t' -v c="$1" '$c != ""' | sort
}

# A stat of gentrace --stats.
gstat() {
	gen --stats "${@:2}" | awk -v k="$1" '$1 == k { print $2 }'
}

# --- the seed-shaped trace ------------------------------------------------

@test "seed trace: 18,391 pairs and 11 device events without launch, the counts python computes" {
	slow
	flow_to "$full"
	[ "$status" -eq 0 ]
	same "$(cat err)" "$(cat "$pyd/summary")"
	read -r pairs nodev nolaunch dangling < <(counts < err)
	same "$pairs" 18391
	same "$nolaunch" 11
	same "$dangling" 0
	# the generator's own account of the trace it wrote
	same "$pairs" "$(gstat pairs)"
	same "$nolaunch" "$(gstat device_without_host)"
	same "$nodev" "$(gstat host_without_device)"
	# one line per pair after the header and the metadata event
	same "$(wc -l < out.nd)" $((1 + 1 + 18391))
}

@test "seed trace: every pair's record, latency and queue, and every orphan record, equal python's" {
	slow
	flow_to --orphans "$full"
	[ "$status" -eq 0 ]
	fpy check --orphans out.nd "$pyd"
}

# The full-scale trace is checked above, in its own layout; the other
# layouts and ways in are checked on the trace at scale 0.1.
@test "seed trace at scale 0.1 through mct-cat: the same output as reading the trace directly" {
	mct-cat "$small" | mct-flow > piped.nd 2> err
	same "$(cat err)" "$(cat "$pys/summary")"
	flow_to "$small"
	cmp piped.nd out.nd
}

@test "seed trace at scale 0.1, --layout sections (host, then kernels, then copies): python's counts and records" {
	genf sec.json --scale 0.1 --layout sections
	flow_to sec.json
	[ "$status" -eq 0 ]
	same "$(cat err)" "$(fpy summary sec.json)"
	same "$(counts < err)" "$(counts < "$pys/summary")"
	fpy check out.nd "$pys"
}

@test "seed trace at scale 0.1, --layout shuffle (order broken): python's counts and records" {
	genf shuf.json --scale 0.1 --layout shuffle
	flow_to shuf.json
	[ "$status" -eq 0 ]
	same "$(cat err)" "$(fpy summary shuf.json)"
	same "$(counts < err)" "$(counts < "$pys/summary")"
	fpy check out.nd "$pys"
}

@test "seed trace at scale 0.1 reversed (every device event before its host call): each waits and is paired, as python says" {
	mct-cat "$small" > s.nd
	{ head -1 s.nd; tail -n +2 s.nd | tac; } > rev.nd
	flow_to --orphans rev.nd
	[ "$status" -eq 0 ]
	same "$(cat err)" "$(cat "$pys/summary")"
	fpy check --orphans out.nd "$pys"
}

@test "the seed-shaped trace: mcMemcpyAsync, 46.54 s of host time beside 0.81 s of copies on the device" {
	run --separate-stderr bash -c 'mct-cat "$0" | mct-flow |
	    mct-group --by launch.name -a count,total,sum:launch.dur -o tsv' "$full"
	[ "$status" -eq 0 ]
	same "${lines[0]}" "$(printf 'launch.name\tcount\ttotal\tsum:launch.dur')"
	row=$(printf '%s\n' "${lines[@]}" | awk -F '\t' '$1 == "mcMemcpyAsync"')
	same "$(awk -F '\t' '{ printf "%d %.2f s %.2f s\n", $2, $3 / 1e9, $4 / 1e9 }' <<<"$row")" \
	    "6932 0.81 s 46.54 s"
	# every row is python's: count, device time, host time per launch API
	same "$(printf '%s\n' "${lines[@]:1}" | sort)" "$(sort "$pyd/by-launch.tsv")"
}

@test "seed: --value latency per launch API: count, median, min and max equal python's" {
	run --separate-stderr bash -c 'mct-flow "$0" | mct-group --by launch.name \
	    --value latency -a count,median,min,max,p99 -o tsv --no-header' "$full"
	[ "$status" -eq 0 ]
	same "$(printf '%s\n' "${lines[@]}" | cut -f 1-5 | sort)" "$(sort "$pyd/latency.tsv")"
	# p99 lies between the median and the max
	printf '%s\n' "${lines[@]}" | awk -F '\t' '!($6 >= $3 && $6 <= $5) { print; bad = 1 } END { exit bad }'
}

@test "seed: mct-filter --where 'queue<0' keeps the calls that blocked until the device finished (python's count)" {
	run --separate-stderr bash -c 'mct-flow "$0" | mct-filter -c --where "queue<0"' "$full"
	[ "$status" -eq 0 ]
	same "$output" "$(cat "$pyd/queue-negative")"
	same "$output" "$(gstat queue_negative)"
	# the records kept are whole pairs, ready for more filtering
	run --separate-stderr bash -c 'mct-flow "$0" | mct-filter --no-meta --where "queue<0" |
	    mct-filter -c --where "launch.name == mcMemcpyAsync"' "$full"
	[ "$status" -eq 0 ]
	[ "$output" -gt 0 ]
}

@test "seed: mct-filter --where 'latency>1ms' keeps python's count" {
	run --separate-stderr bash -c 'mct-flow "$0" | mct-filter -c --where "latency>1ms"' "$full"
	[ "$status" -eq 0 ]
	same "$output" "$(cat "$pyd/latency-over-1ms")"
}

@test "seed: --orphans | mct-filter --where orphan gives python's orphans of each kind" {
	run --separate-stderr bash -c 'mct-flow --orphans "$0" | mct-filter --where orphan |
	    mct-group --by orphan -a count -o tsv --no-header' "$full"
	[ "$status" -eq 0 ]
	read -r _ nodev nolaunch _ < <(counts < "$pyd/summary")
	same "$(printf '%s\n' "${lines[@]}" | sort)" \
	    "$(printf 'device event without launch\t%s\nlaunch without device event\t%s' "$nolaunch" "$nodev")"
	# tests/gentrace.md: the 11 are the FillFunctor<float> kernels of init
	run --separate-stderr bash -c 'mct-flow --orphans "$0" |
	    mct-filter --no-meta --where "orphan == device event without launch" -o tsv --no-header -F name' "$full"
	same "${#lines[@]}" 11
	same "$(printf '%s\n' "${lines[@]}" | grep -c 'FillFunctor<float>')" 11
}

@test "seed: the output keeps ts, dur and name of the device event (mct-group by name reads it)" {
	# python's device events of the pairs, by name: count and total dur
	fpy fields name,dur "$pyd" |
	    awk -F '\t' '{ n[$1]++; t[$1] += $2 } END { for (k in n) printf "%s\t%d\t%.0f\n", k, n[k], t[k] }' |
	    sort > want
	run --separate-stderr bash -c 'mct-flow "$0" | mct-group --by name -a count,total -o tsv --no-header' "$full"
	[ "$status" -eq 0 ]
	same "$(printf '%s\n' "${lines[@]}" | sort)" "$(cat want)"
}

# --- real traces written by other tools ------------------------------------

@test "Kineto fixtures: pairs and orphans of each kind equal python's computation on args.correlation" {
	slow
	need_fixtures
	n=0
	for b in $(kineto_fixtures); do
		cat "$b.name"
		same "$(cat "$b.rc")" 0
		want=$(batch_answer "$b.a" 1)
		same "$(cat "$b.err")" "$want"
		same "$(batch_answer "$b.a" 2 | counts | cut -d' ' -f1-3)" \
		    "$(counts <<<"$want" | cut -d' ' -f1-3)"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || skip "no Kineto file in $fixtures"
}

@test "Kineto fixtures: every record, and with --orphans every orphan, equals python's" {
	slow
	need_fixtures
	for b in $(kineto_fixtures); do
		cat "$b.name"
		same "$(cat "$b.orphans.rc")" 0
		batch_answer "$b.a" 3
	done
}

@test "Kineto fixture: mct-cat | mct-flow equals mct-flow FILE" {
	slow
	need_fixtures
	f=$fixtures/kineto-resnet50-array.pt.trace.json.gz
	[ -f "$f" ] || skip "${f##*/} not present"
	mct-cat "$f" | mct-flow > piped.nd 2> err
	same "$(cat err)" "$(fpy summary "$f")"
	fpy check piped.nd "$f"
}

@test "non-Kineto traces with s/f flows (rpd, Chrome): flow-mode pairs equal python's flow-mode computation" {
	slow
	need_fixtures
	for name in rpd-matmul-string-ts.json chrome116-devtools.json chrome-android-threadtime.json.gz; do
		f=$fixtures/$name
		[ -f "$f" ] || { echo "$name absent"; continue; }
		echo "$name"
		flow_to --orphans "$f"
		[ "$status" -eq 0 ]
		want=$(fpy summary --mode flow "$f")
		same "$(counts < err | cut -d' ' -f1)" "$(counts <<<"$want" | cut -d' ' -f1)"
		same "$(cat err)" "$want"
		fpy check --orphans --mode flow out.nd "$f"
	done
}

@test "a trace without correlation ids or s/f flows (Chrome flow v2, ansible): 0 pairs, exit 0" {
	need_fixtures
	for name in chrome-webview-flow-v2.json.gz ansible-unterminated.json; do
		f=$fixtures/$name
		[ -f "$f" ] || continue
		flow_to "$f"
		[ "$status" -eq 0 ]
		same "$(counts < err)" "0 0 0 0"
		same "$(cat err)" "$(fpy summary "$f")"
		fpy check out.nd "$f"
	done
}

# --- key mode, rule by rule (hand-made traces, answers written here) ------

keyed_trace() {
	cat > k.json <<'EOF'
{"traceEvents":[
{"name":"thread_name","ph":"M","pid":1,"tid":7,"args":{"name":"host"}},
{"name":"k1","ph":"X","pid":2,"tid":0,"ts":1500,"dur":100,"args":{"co_id":1}},
{"name":"mcLaunchKernel","ph":"X","pid":1,"tid":7,"ts":1000,"dur":50,"args":{"co_id":1}},
{"name":"mcLaunchKernel","ph":"X","pid":1,"tid":7,"ts":1100,"dur":50,"args":{"co_id":1}},
{"name":"mcMemcpyAsync","ph":"X","pid":1,"tid":7,"ts":2000,"dur":5000,"args":{"co_id":"2"}},
{"name":"k2","ph":"X","pid":3,"tid":0,"ts":2100,"dur":100,"args":{"co_id":2}},
{"name":"k2b","ph":"X","pid":3,"tid":0,"ts":2300,"dur":100,"args":{"co_id":2}},
{"name":"mcGetDevice","ph":"X","pid":1,"tid":7,"ts":3000,"dur":5,"args":{"co_id":3}},
{"name":"k4","ph":"X","pid":2,"tid":0,"ts":4000,"dur":5,"args":{"co_id":4}},
{"name":"i5","ph":"i","pid":2,"tid":0,"ts":4000,"args":{"co_id":5}},
{"name":"mcLaunchKernel","ph":"i","pid":1,"tid":7,"ts":3900,"args":{"co_id":4}},
{"name":"B6","ph":"B","pid":1,"tid":7,"ts":5000,"args":{"co_id":6}},
{"name":"k6","ph":"X","pid":2,"tid":0,"ts":5100,"dur":5,"args":{"co_id":6}},
{"name":"s","ph":"s","cat":"x","id":9,"pid":1,"tid":7,"ts":3000},
{"name":"f","ph":"f","cat":"y","id":9,"pid":2,"tid":0,"ts":3000},
{"name":"s","ph":"s","cat":"x","id":10,"pid":1,"tid":7,"ts":3000},
{"name":"f","ph":"f","cat":"x","id":10,"pid":2,"tid":0,"ts":3000}
]}
EOF
}

@test "key mode: a device event before its host call waits, then is paired; latency and queue from the launch" {
	keyed_trace
	flow_to k.json
	[ "$status" -eq 0 ]
	same "$(grep '"name":"k1"' out.nd)" \
	    '{"name":"k1","ph":"X","pid":2,"tid":0,"ts":1500,"dur":100,"args":{"co_id":1},"launch":{"name":"mcLaunchKernel","ts":1000,"dur":50,"pid":1,"tid":7},"latency":500,"queue":450}'
	fpy check out.nd k.json
}

@test "key mode: a second host call with the same id is ignored (not paired, not counted)" {
	keyed_trace
	flow_to k.json
	# id 1 pairs with the first call (ts 1000), never with the one at 1100
	! grep -q '"ts":1100' out.nd
	same "$(counts < err)" "3 1 2 2"
}

@test "key mode: the id \"2\" and the id 2 are one id; a call that blocks has a negative queue" {
	keyed_trace
	flow_to -o tsv -F name,launch.name,latency,queue k.json
	same "$(grep '^k2' out.nd)" "$(printf 'k2\tmcMemcpyAsync\t100\t-4900\nk2b\tmcMemcpyAsync\t300\t-4700')"
}

@test "key mode: only ph X events take part (i and B events with an id are ignored)" {
	keyed_trace
	flow_to --orphans k.json
	# k4's id is on an i event only: k4 has no launch; i5 is nothing
	grep -q '"name":"k4".*"orphan":"device event without launch"' out.nd
	! grep -q i5 out.nd
	# k6's host side is a B event: no launch either
	grep -q '"name":"k6".*"orphan":"device event without launch"' out.nd
}

@test "key mode: counts of pairs, host calls without device event, device events without launch, dangling flow ends" {
	keyed_trace
	flow_to k.json
	# pairs k1 k2 k2b; no device: co_id 3; no launch: k4 k6;
	# dangling: flow x/9 has only an s, y/9 only an f (a flow is cat + id)
	same "$(cat err)" "mct-flow: 3 pairs; 1 host calls without device event, 2 device events without launch, 2 dangling flow ends"
	same "$(cat err)" "$(fpy summary k.json)"
}

@test "--orphans: the two kinds of orphan records" {
	keyed_trace
	flow_to --orphans k.json
	[ "$status" -eq 0 ]
	same "$(grep '"orphan":"launch' out.nd)" \
	    '{"name":"mcGetDevice","ph":"X","ts":3000,"dur":5,"pid":1,"tid":7,"key":"3","orphan":"launch without device event"}'
	same "$(grep -c '"orphan":"device event without launch"' out.nd)" 2
	grep -qxF '{"name":"k4","ph":"X","pid":2,"tid":0,"ts":4000,"dur":5,"args":{"co_id":4},"orphan":"device event without launch"}' out.nd
	fpy check --orphans out.nd k.json
	# without --orphans, none
	flow_to k.json
	! grep -q orphan out.nd
}

@test "host side: cat ending in runtime or driver (any case) decides before pid; without cat, pid 1" {
	cat > h.json <<'EOF'
[
{"name":"cudaLaunchKernel","cat":"CUDA_Runtime","ph":"X","pid":7,"tid":1,"ts":1.0,"dur":2,"args":{"correlation":1}},
{"name":"kern","cat":"kernel","ph":"X","pid":1,"tid":9,"ts":5,"dur":1,"args":{"correlation":1}},
{"name":"cuLaunchKernel","cat":"cuda_driver","ph":"X","pid":7,"tid":1,"ts":10,"dur":2,"args":{"correlation":2}},
{"name":"kern2","cat":"Kernel","ph":"X","pid":8,"tid":9,"ts":13,"dur":1,"args":{"correlation":2}},
{"name":"hostcall","ph":"X","pid":1,"tid":1,"ts":20,"dur":2,"args":{"correlation":3}},
{"name":"dev3","ph":"X","pid":2,"tid":1,"ts":24,"dur":1,"args":{"correlation":3}},
{"name":"runtime_but_not_last","cat":"runtime_x","ph":"X","pid":1,"tid":1,"ts":30,"dur":2,"args":{"correlation":4}},
{"name":"dev4","cat":"kernel","ph":"X","pid":2,"tid":1,"ts":35,"dur":1,"args":{"correlation":4}}
]
EOF
	flow_to -o tsv --no-header -F name,launch.name,latency,queue h.json
	[ "$status" -eq 0 ]
	same "$(launched 2 < out.nd)" "$(printf 'dev3\thostcall\t4000\t2000\nkern\tcudaLaunchKernel\t4000\t2000\nkern2\tcuLaunchKernel\t3000\t1000')"
	# correlation 4: no host side, so two device events without launch
	same "$(counts < err)" "3 0 2 0"
	same "$(cat err)" "$(fpy summary h.json)"
}

# --- flow mode ---------------------------------------------------------------

@test "flow mode (no correlation ids): the seed's flows give key mode's pairs and latencies (scale 0.1)" {
	flow_to -u ns -o tsv --no-header "$BATS_FILE_TMPDIR/flows.nd"
	[ "$status" -eq 0 ]
	same "$(counts < err)" "$(counts < "$pys/summary" | awk '{ print $1, 0, 0, 0 }')"
	# the same launches, latencies and queues as python's co_id pairing
	same "$(launched 1 < out.nd)" "$(sort "$pys/records.tsv")"
}

@test "flow mode: every record of the generated flows equals python's (sorted and unsorted input)" {
	flows=$BATS_FILE_TMPDIR/flows.nd
	flow_to -u ns --orphans "$flows"
	[ "$status" -eq 0 ]
	same "$(cat err)" "$(fpy summary --unit ns "$flows")"
	fpy check --orphans --unit ns out.nd "$flows"
	# unsorted: the same records
	{ sed -n '1p' "$flows"; sed -n '2,$p' "$flows" | tac; } > rev.nd
	flow_to -u ns --orphans rev.nd
	same "$(cat err)" "$(fpy summary --unit ns "$flows")"
	fpy check --orphans --unit ns out.nd "$flows"
}

@test "flow mode: an f end that no slice encloses binds to the next slice on its lane (f 1 ns before each device slice)" {
	slow
	next=$BATS_FILE_TMPDIR/next.nd
	flow_to -u ns "$next"
	[ "$status" -eq 0 ]
	want=$(fpy summary --unit ns "$next")
	# python: every f binds to the slice it precedes, as every pair did
	same "$(counts <<<"$want")" "$(fpy summary --unit ns "$BATS_FILE_TMPDIR/flows.nd" | counts)"
	fpy check --unit ns out.nd "$next"
	same "$(cat err)" "$want"
}

@test "flow mode: an unenclosed f binds to the slice after it, never to one that ended before it" {
	cat > a.json <<'EOF'
{"traceEvents":[
{"name":"host","ph":"X","pid":1,"tid":1,"ts":0,"dur":10},
{"name":"s","ph":"s","cat":"c","id":1,"pid":1,"tid":1,"ts":5},
{"name":"before","ph":"X","pid":2,"tid":1,"ts":0,"dur":10},
{"name":"f","ph":"f","cat":"c","id":1,"pid":2,"tid":1,"ts":20},
{"name":"later","ph":"X","pid":2,"tid":1,"ts":40,"dur":10},
{"name":"after","ph":"X","pid":2,"tid":1,"ts":30,"dur":10},
{"name":"s","ph":"s","cat":"c","id":2,"pid":1,"tid":1,"ts":6},
{"name":"f","ph":"f","cat":"c","id":2,"pid":3,"tid":1,"ts":20},
{"name":"after3","ph":"X","pid":3,"tid":1,"ts":25,"dur":10}
]}
EOF
	flow_to -o tsv --no-header a.json
	[ "$status" -eq 0 ]
	same "$(launched 1 < out.nd)" "$(printf 'host\tafter\t30000\t20000\nhost\tafter3\t25000\t15000')"
	same "$(counts < err)" "2 0 0 0"
}

@test "flow mode: the innermost enclosing slice (latest start, then shortest); bp e and s ends bind only to enclosing slices" {
	cat > d.json <<'EOF'
{"traceEvents":[
{"name":"outerhost","ph":"X","pid":1,"tid":1,"ts":0,"dur":10},
{"name":"host","ph":"X","pid":1,"tid":1,"ts":4,"dur":2},
{"name":"s","ph":"s","cat":"c","id":1,"pid":1,"tid":1,"ts":5},
{"name":"outer","ph":"X","pid":2,"tid":1,"ts":10,"dur":100},
{"name":"inner","ph":"X","pid":2,"tid":1,"ts":15,"dur":10},
{"name":"innerlong","ph":"X","pid":2,"tid":1,"ts":15,"dur":20},
{"name":"f","ph":"f","cat":"c","id":1,"pid":2,"tid":1,"ts":20,"bp":"e"},
{"name":"f","ph":"f","cat":"c","id":1,"pid":2,"tid":1,"ts":50,"bp":"e"},
{"name":"f","ph":"f","cat":"c","id":1,"pid":2,"tid":1,"ts":200,"bp":"e"},
{"name":"late","ph":"X","pid":2,"tid":1,"ts":300,"dur":1},
{"name":"s","ph":"s","cat":"c","id":2,"pid":1,"tid":1,"ts":50},
{"name":"nextafter","ph":"X","pid":1,"tid":1,"ts":60,"dur":1},
{"name":"f","ph":"f","cat":"c","id":2,"pid":2,"tid":1,"ts":60,"bp":"e"}
]}
EOF
	flow_to --orphans -o tsv --no-header -F name,launch.name,latency,queue,orphan d.json
	[ "$status" -eq 0 ]
	# f at 20 -> inner (start 15, shorter than innerlong); at 50 -> outer;
	# at 200 (bp e, nothing encloses) -> unbound; flow 2's s at 50 is
	# enclosed by nothing -> its f (in outer) has no launch
	same "$(sort out.nd | grep -v '^	process')" \
	    "$(printf 'inner\thost\t11000\t9000\t\nouter\t\t\t\tdevice event without launch\nouter\thost\t6000\t4000\t')"
	same "$(counts < err)" "2 0 1 0"
	same "$(cat err)" "$(fpy summary d.json)"
}

@test "flow mode: the flow start's slice is the launch, several f ends give several pairs, dangling ends are counted" {
	cat > m.json <<'EOF'
{"traceEvents":[
{"name":"host","ph":"X","pid":1,"tid":1,"ts":0,"dur":10},
{"name":"s","ph":"s","cat":"c","id":1,"pid":1,"tid":1,"ts":1},
{"name":"d1","ph":"X","pid":2,"tid":1,"ts":20,"dur":5},
{"name":"d2","ph":"X","pid":2,"tid":2,"ts":30,"dur":5},
{"name":"f","ph":"f","cat":"c","id":1,"pid":2,"tid":1,"ts":20,"bp":"e"},
{"name":"f","ph":"f","cat":"c","id":1,"pid":2,"tid":2,"ts":31,"bp":"e"},
{"name":"lonely","ph":"X","pid":1,"tid":1,"ts":50,"dur":10},
{"name":"s","ph":"s","cat":"c","id":2,"pid":1,"tid":1,"ts":55},
{"name":"s","ph":"s","cat":"other","id":1,"pid":1,"tid":1,"ts":56}
]}
EOF
	flow_to --orphans -o tsv --no-header -F name,launch.name,latency,orphan m.json
	same "$(launched 2 < out.nd)" "$(printf 'd1\thost\t20000\t\nd2\thost\t30000\t')"
	# c/2 and other/1 have only an s, both in "lonely": 2 dangling ends,
	# 2 launches without device event
	same "$(grep -c "$(printf '^lonely\t\t\tlaunch without device event$')" out.nd)" 2
	same "$(counts < err)" "2 2 0 2"
	same "$(cat err)" "$(fpy summary m.json)"
}

# --- options -----------------------------------------------------------------

@test "--key args.co_id explicitly: the default's pairs, and no dangling flow ends are counted" {
	flow_to --key args.co_id "$small"
	[ "$status" -eq 0 ]
	same "$(cat err)" "$(fpy summary --key args.co_id "$small")"
	same "$(cat err)" "$(cat "$pys/summary")"
	fpy check out.nd "$pys"
}

@test "--key a field that no event has: 0 pairs, exit 0, only the header and metadata" {
	flow_to --key args.nothing "$small"
	[ "$status" -eq 0 ]
	same "$(counts < err)" "0 0 0 0"
	same "$(grep -vc '"ph":"M"' out.nd)" 0
	fpy check out.nd "$small" --key args.nothing
}

@test "--key on a first-level field: pairs by it, and dangling flows are not counted" {
	keyed_trace
	# tid as the id: the calls on tid 7 share one id, the kernels on tid 0
	# another (and have no launch)
	flow_to --key tid k.json
	same "$(cat err)" "$(fpy summary --key tid k.json)"
	fpy check out.nd k.json --key tid
	[ "$(counts < err | cut -d' ' -f4)" = 0 ]
}

@test "--key: an invalid field exits 2 with a message" {
	run --separate-stderr mct-flow --key 'a..b' "$small"
	[ "$status" -eq 2 ]
	same "$output" ""
	same "${stderr_lines[0]}" "mct-flow: --key: invalid field 'a..b'"
	same "${stderr_lines[1]}" "Try 'mct-flow --help' for more information."
}

@test "--host EXPR: which events are host calls (python's pairs for 'name ~ ^mc' and 'pid == 2')" {
	flow_to --host 'name ~ ^mc' "$small"
	[ "$status" -eq 0 ]
	same "$(cat err)" "$(fpy summary --host-re '^mc' "$small")"
	fpy check out.nd "$small" --host-re '^mc'
	# mc_memset_d32_kernel runs on the device but matches: it is now a
	# second host call of its id, and its launch has no device event
	flow_to --host 'pid == 2' "$small"
	[ "$status" -eq 0 ]
	same "$(cat err)" "$(fpy summary --host-pid 2 "$small")"
	fpy check out.nd "$small" --host-pid 2
}

@test "--host: a bad expression exits 2 with a message naming it" {
	for e in 'name ~ (' '== 3' 'pid =='; do
		run --separate-stderr mct-flow --host "$e" "$small"
		[ "$status" -eq 2 ]
		same "$output" ""
		[[ "${stderr_lines[0]}" == "mct-flow: --host: "*" in '$e'" ]]
		same "${stderr_lines[1]}" "Try 'mct-flow --help' for more information."
	done
}

@test "-q, --quiet: no summary on stderr, the same output" {
	flow_to "$small"
	mv out.nd loud.nd
	for q in -q --quiet; do
		flow_to "$q" "$small"
		[ "$status" -eq 0 ]
		same "$(cat err)" ""
		cmp loud.nd out.nd
	done
}

@test "-o tsv: columns launch.name,name,latency,queue by default, pair rows equal python's" {
	flow_to -o tsv "$full"
	[ "$status" -eq 0 ]
	same "$(head -1 out.nd)" "$(printf 'launch.name\tname\tlatency\tqueue')"
	tail -n +2 out.nd | launched 1 > got
	sort "$pyd/records.tsv" > want
	cmp want got
	# --no-header drops the header line
	flow_to -o tsv --no-header "$full"
	cmp <(launched 1 < out.nd) want
}

@test "-o tsv and csv: one row per pair, no rows for metadata events (awk sees data rows only)" {
	flow_to -o tsv --no-header "$full"
	same "$(wc -l < out.nd)" 18391
	flow_to -o csv --no-header "$full"
	same "$(wc -l < out.nd)" 18391
}

@test "-o csv: RFC 4180 quoting; the rows are python's" {
	flow_to -o csv "$full"
	[ "$status" -eq 0 ]
	same "$(head -1 out.nd)" "launch.name,name,latency,queue"
	"$PYTHON3" -c 'import csv, sys
for r in csv.reader(open(sys.argv[1], newline="")):
    print("\t".join(r))' out.nd | tail -n +2 | launched 1 > got
	cmp <(sort "$pyd/records.tsv") got
	# names with commas and quotes are quoted
	grep -q '^mcLaunchKernel,"void ' out.nd
}

@test "-F and --time-unit: any field, times (ts, dur, latency, queue, launch.ts, launch.dur) as exact decimals" {
	f=name,ts,dur,launch.name,launch.ts,launch.dur,latency,queue,args.co_id,args.grid
	flow_to -o tsv --no-header -F "$f" "$small"
	[ "$status" -eq 0 ]
	same "$(launched 4 < out.nd)" "$(fpy fields "$f" "$small" | sort)"
	for u in us ms s; do
		flow_to -o tsv --no-header --time-unit "$u" "$small"
		[ "$status" -eq 0 ]
		same "$(launched 1 < out.nd)" "$(fpy records --time-unit "$u" "$small" | sort)"
	done
	flow_to -o tsv --no-header --time-unit ns "$small"
	same "$(launched 1 < out.nd)" "$(fpy records "$small" | sort)"
}

@test "--time-unit: a bad unit exits 2" {
	run --separate-stderr mct-flow -o tsv --time-unit auto "$small"
	[ "$status" -eq 2 ]
	same "${stderr_lines[0]}" "mct-flow: --time-unit: unknown unit 'auto' (want ns, us, ms or s)"
}

@test "-o table: aligned columns for people, the header always" {
	for h in "" --no-header; do
		flow_to -o table $h "$small"
		[ "$status" -eq 0 ]
		[[ "$(head -1 out.nd)" == "launch.name"*" name "*" latency "*" queue" ]]
	done
	# in the first 1000 rows (the widths come from them) the latency
	# column starts at the same place on every line (in characters: a
	# name cut at --width ends in a 3-byte ellipsis, so count it as one)
	head -1001 out.nd | sed 's/\xe2\x80\xa6/~/g' |
	    awk 'NR == 1 { c = index($0, " latency") + 1; next }
	    substr($0, c - 1, 1) != " " { print "misaligned: " $0; bad = 1 } END { exit bad }'
	rows=$(mct-flow -q -o tsv --no-header "$small" | wc -l)
	same "$(wc -l < out.nd)" $((rows + 1))
}

@test "-o table: latency and queue in a unit each, launch.ts in ns said in its header, as python formats the tsv's ns" {
	F=launch.name,launch.ts,launch.dur,latency,queue
	flow_to -o table -F $F --width 0 "$small"
	[ "$status" -eq 0 ]
	cells out.nd > got
	mct-flow -q -o tsv --no-header -F $F "$small" > raw
	want=$(printf 'launch.name\tlaunch.ts (ns)\tlaunch.dur\tlatency\tqueue\n%s' \
	    "$(humanize 3,4,5 < raw)")
	same "$(cat got)" "$want"
	# --time-unit: numbers in it, every header naming it
	flow_to -o table -F $F --time-unit us "$small"
	same "$(head -1 out.nd | cells)" "$(printf 'launch.name\tlaunch.ts (us)\tlaunch.dur (us)\tlatency (us)\tqueue (us)')"
}

@test "-o md: a Markdown table" {
	flow_to -o md "$small"
	[ "$status" -eq 0 ]
	same "$(sed -n 1,2p out.nd)" "$(printf '%s\n' '| launch.name | name | latency | queue |' '|---|---|---|---|')"
	same "$(awk -F '|' '$2 ~ /mcMemcpyAsync/' out.nd | wc -l)" \
	    "$(fpy records "$small" | grep -c '^mcMemcpyAsync')"
}

@test "-o: a bad format exits 2" {
	run --separate-stderr mct-flow -o xml "$small"
	[ "$status" -eq 2 ]
	[[ "${stderr_lines[0]}" == "mct-flow: -o: unknown format 'xml' (want "* ]]
}

@test "-o trace: a trace python loads, with the source's top-level keys; mct-cat reads back python's records" {
	flow_to -o trace "$small"
	[ "$status" -eq 0 ]
	"$PYTHON3" -c 'import json, sys
t = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
assert [k for k in t if k != "traceEvents"] == [k for k in s if k != "traceEvents"], (list(t), list(s))
print(sum("launch" in e for e in t["traceEvents"]))' out.nd "$small" > n
	same "$(cat n)" "$(fpy summary "$small" | counts | cut -d' ' -f1)"
	mct-cat out.nd > back.nd
	fpy check back.nd "$small"
}

@test "mct-flow | mct-cat --wrap on a microsecond trace: JSON python loads; ts back in us, latency in ns" {
	need_fixtures
	f=$fixtures/kineto-resnet50-array.pt.trace.json.gz
	[ -f "$f" ] || skip "${f##*/} not present"
	mct-flow -q "$f" | mct-cat --wrap > w.json
	"$PYTHON3" -c 'import json, sys
from decimal import Decimal
ev = json.load(open(sys.argv[1]), parse_float=Decimal)
assert isinstance(ev, list), type(ev)      # the source is in Array form
n = 0
for e in ev:
    if "launch" not in e:
        continue
    n += 1
    ts = int(Decimal(e["ts"]) * 1000)
    assert ts - e["launch"]["ts"] == e["latency"], e
    assert e["latency"] - e["launch"]["dur"] == e["queue"], e
print(n)' w.json > n
	same "$(cat n)" "$(fpy summary "$f" | counts | cut -d' ' -f1)"
}

@test "-u, --unit: the unit of a trace read directly" {
	keyed_trace
	flow_to -u us k.json
	[ "$status" -eq 0 ]
	same "$(cat err)" "$(fpy summary --unit us k.json)"
	fpy check --unit us out.nd k.json
	same "$(grep '"name":"k1"' out.nd)" \
	    '{"name":"k1","ph":"X","pid":2,"tid":0,"ts":1500000,"dur":100000,"args":{"co_id":1},"launch":{"name":"mcLaunchKernel","ts":1000000,"dur":50000,"pid":1,"tid":7},"latency":500000,"queue":450000}'
	[[ "$(head -1 out.nd)" == *'"unit":"us","unit_from":"given by --unit"'* ]]
	flow_to --unit ms -o tsv --no-header k.json
	same "$(launched 1 < out.nd)" "$(fpy records --unit ms k.json | sort)"
	run --separate-stderr mct-flow -u xs "$small"
	[ "$status" -eq 2 ]
	same "${stderr_lines[0]}" "mct-flow: --unit: unknown unit 'xs' (want auto, ns, us, ms or s)"
}

# --- --idle and --queue (answers: tests/idle_oracle.py) ----------------------

# The idle oracle: TSV lines led by their table (idle, queue, counter, ...).
ipy() {
	oracle idle_oracle.py "$@"
}

# The lines of table T in an answer of ipy (file A), without T.
itable() {
	awk -F '\t' -v t="$1" '$1 == t { sub(/^[^\t]*\t/, ""); print }' "$2"
}

IDLE_F=rank,pid,tid,events,idle,host_wait,kernel_wait,other_wait
QUEUE_F=rank,pid,tid,count,mean,stddev,max,p50,p95,at_limit

# mct-flow --idle or --queue -o tsv in the oracle's columns (stddev to 12
# significant digits, as the oracle gives it).
itsv() {
	local f=$IDLE_F

	[[ " $* " == *" --queue "* ]] && f=$QUEUE_F
	mct-flow -q -o tsv --no-header -F "$f" "$@" |
	    awk -F '\t' -v q="$f" 'BEGIN { OFS = "\t" }
		q ~ /stddev/ { $6 = sprintf("%.12g", $6) } { print }'
}

# Hand-made: host wait, kernel wait, other wait, an overlap (a negative
# gap), equal starts, a launch at the time of a start, a copy, a string
# tid, a cuda_sync (paired, but no work: in no table) and a device event
# without launch (in no table).
tables_trace() {
	local l='"ph":"X","cat":"cuda_runtime","pid":9,"tid":9'

	printf '%s\n' '{"traceEvents":[' \
	    "{$l,\"name\":\"cudaLaunchKernel\",\"ts\":0,\"dur\":5,\"args\":{\"correlation\":1}}," \
	    '{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":10,"dur":10,"args":{"correlation":1}},' \
	    "{$l,\"name\":\"cudaLaunchKernel\",\"ts\":6,\"dur\":5,\"args\":{\"correlation\":2}}," \
	    '{"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":25,"dur":5,"args":{"correlation":2}},' \
	    "{$l,\"name\":\"cudaLaunchKernel\",\"ts\":40,\"dur\":2,\"args\":{\"correlation\":3}}," \
	    '{"ph":"X","cat":"kernel","name":"k3","pid":0,"tid":7,"ts":45,"dur":5,"args":{"correlation":3}},' \
	    "{$l,\"name\":\"cudaLaunchKernel\",\"ts\":41,\"dur\":2,\"args\":{\"correlation\":4}}," \
	    '{"ph":"X","cat":"kernel","name":"k4","pid":0,"tid":7,"ts":100,"dur":10,"args":{"correlation":4}},' \
	    "{$l,\"name\":\"cudaLaunchKernel\",\"ts\":43,\"dur\":1,\"args\":{\"correlation\":6}}," \
	    '{"ph":"X","cat":"kernel","name":"k6","pid":0,"tid":7,"ts":105,"dur":1,"args":{"correlation":6}},' \
	    "{$l,\"name\":\"cudaLaunchKernel\",\"ts\":42,\"dur\":2,\"args\":{\"correlation\":5}}," \
	    '{"ph":"X","cat":"kernel","name":"k5","pid":0,"tid":7,"ts":105,"dur":3,"args":{"correlation":5}},' \
	    "{$l,\"name\":\"cudaLaunchKernel\",\"ts\":120,\"dur\":2,\"args\":{\"correlation\":7}}," \
	    '{"ph":"X","cat":"kernel","name":"k7","pid":0,"tid":7,"ts":130,"dur":5,"args":{"correlation":7}},' \
	    "{$l,\"name\":\"cudaMemcpyAsync\",\"ts\":130,\"dur\":2,\"args\":{\"correlation\":8}}," \
	    '{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":140,"dur":5,"args":{"correlation":8}},' \
	    "{$l,\"name\":\"cudaLaunchKernel\",\"ts\":121,\"dur\":2,\"args\":{\"correlation\":9}}," \
	    '{"ph":"X","cat":"kernel","name":"k9","pid":0,"tid":"s1","ts":150,"dur":5,"args":{"correlation":9}},' \
	    "{$l,\"name\":\"cudaLaunchKernel\",\"ts\":122,\"dur\":2,\"args\":{\"correlation\":10}}," \
	    '{"ph":"X","cat":"kernel","name":"k10","pid":0,"tid":"s1","ts":200,"dur":5,"args":{"correlation":10}},' \
	    "{$l,\"name\":\"cudaStreamSynchronize\",\"ts\":160,\"dur\":30,\"args\":{\"correlation\":11}}," \
	    '{"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":7,"ts":170,"dur":5,"args":{"correlation":11}},' \
	    '{"ph":"X","cat":"kernel","name":"orphan","pid":0,"tid":7,"ts":300,"dur":5,"args":{"correlation":99}}' \
	    ']}'
}

@test "--idle, --queue: a hand-made trace of every case equals python's, with --kernel-wait and --queue-limit" {
	tables_trace > t.json
	ipy --kernel-wait 4000 --queue-limit 2 t.json > a
	same "$(itsv --idle t.json)" "$(itable idle a)"
	same "$(itsv --idle --kernel-wait 4us t.json)" "$(itable idle@4000 a)"
	same "$(itsv --queue t.json)" "$(itable queue a)"
	same "$(itsv --queue --queue-limit 2 t.json)" "$(itable queue@2 a)"
	# the cases are there: host and other wait, overlaps (at 4us the
	# kernel wait is theirs: negative), time at 2 or more
	read -r _ _ _ _ _ host kern other <<<"$(itable idle@4000 a | head -1)"
	[ "$host" -gt 0 ] && [ "$other" -gt 0 ] && [ "$kern" -lt 0 ]
	[ "$(itable queue@2 a | awk -F '\t' '{ s += $10 } END { print s }')" -gt 0 ]
	# the summary on stderr stays, and counts the device event without launch
	flow_to --idle t.json
	[ "$status" -eq 0 ]
	same "$(cat err)" "$(itable summary a)"
}

@test "--idle, --queue: a generated trace equals python's to the ns; --queue -o trace has python's counters, valid Chrome JSON" {
	genf g.json --scale 0.02
	ipy --kernel-wait 5000 --queue-limit 3 g.json > a
	same "$(itsv --idle g.json)" "$(itable idle a)"
	same "$(itsv --idle --kernel-wait 5us g.json)" "$(itable idle@5000 a)"
	same "$(itsv --queue --queue-limit 3 g.json)" "$(itable queue@3 a)"
	mct-flow -q --queue -o trace g.json > q.json
	# (ts past 2^53: read as text, not by jq)
	same "$(sed -n 's/^{"name":"queue length","ph":"C","ts":\([0-9]*\),"pid":\([^,]*\)\(,"rank":\([0-9]*\)\)\{0,1\},"args":{"stream \([^"]*\)":\([0-9]*\)}},\{0,1\}$/\4\t\2\t\5\t\1\t\6/p' q.json)" \
	    "$(itable counter a)"
	same "$(jq '[.traceEvents[] | select(.ph == "C")] | length' q.json)" \
	    "$(itable counter a | wc -l)"
	# the lanes' names pass through, for the viewer
	[ "$(jq '[.traceEvents[] | select(.ph == "M")] | length' q.json)" -gt 0 ]
}

@test "--idle, --queue: Kineto fixtures equal python's (all with MCT_TEST_FULL=1); on the two NCCL ranks, HolisticTraceAnalysis' figures" {
	need_fixtures
	n=0
	for f in "$fixtures"/kineto*; do
		[ -f "$f" ] || continue
		[ "${MCT_TEST_FULL:-0}" = 1 ] || [ "$(wc -c < "$f")" -lt 500000 ] || continue
		echo "${f##*/}"
		ipy "$f" > "a.${f##*/}"
		same "$(itsv --idle "$f")" "$(itable idle "a.${f##*/}")"
		same "$(itsv --queue "$f")" "$(itable queue "a.${f##*/}")"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || skip "no Kineto file in $fixtures"
	# HTA drops the host events from the last ProfilerStep's start on (so
	# the kernels they launched): mct-filter does it as mct(7) says, and
	# the tables are HTA's
	for r in 0 1; do
		f=$fixtures/kineto-rank$r-of-2-nccl.json.gz
		[ -f "$f" ] || continue
		t=$(mct-filter --ph X --match '^ProfilerStep#' -o tsv --no-header \
		    -F rel "$f" | sort -n | tail -1)
		mct-filter -v --where "cat ~ runtime\$ && rel >= ${t}ns" "$f" > hta.nd
		same "$(itsv --idle hta.nd)" "$(itable hta-idle "a.${f##*/}")"
		same "$(itsv --queue hta.nd)" "$(itable hta-queue "a.${f##*/}")"
		# and HTA's compute time, as mct(7) says to get it
		same "$(mct-ranks -o tsv --no-header --device 'cat == "kernel"' "$f" | cut -f 5)" \
		    "$(itable hta-compute "a.${f##*/}")"
	done
}

@test "queue past int64 ns (a launch far after its device event) stays at its end, -9223372036854775808, not wrapped (it was signed overflow)" {
	# the kernel at -4e18, its launch at 4e18 for 4e18: each a sane time,
	# device start minus launch end past int64
	printf '%s\n' '{"traceEvents":[{"name":"k","ph":"X","cat":"kernel","pid":2,"tid":7,"ts":-4000000000000000000,"dur":10,"args":{"correlation":1}},' \
	    '{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":4000000000000000000,"dur":4000000000000000000,"args":{"correlation":1}}]}' > far.json
	run -0 --separate-stderr mct-flow -q -u ns -o tsv --no-header far.json
	same "$output" "cudaLaunchKernel	k	-8000000000000000000	-9223372036854775808"
}

@test "--idle: gaps summed past int64 ns (events that overlap by 4e18 ns) stay at its end, not wrapped positive (it was signed overflow)" {
	# four kernels of a stream 1 ns apart, each 4e18 ns long: three gaps
	# of about -4e18 ns each, kernel waits
	{
		printf '{"traceEvents":[\n'
		for i in 0 1 2 3; do
			printf '{"name":"cudaLaunchKernel","ph":"X","cat":"cuda_runtime","pid":1,"tid":1,"ts":%d,"dur":1,"args":{"correlation":%d}},\n' \
			    $((-4500000000000000000 + i)) $i
			printf '{"name":"k","ph":"X","cat":"kernel","pid":2,"tid":7,"ts":%d,"dur":4000000000000000000,"args":{"correlation":%d}}%s\n' \
			    $((-4000000000000000000 + i)) $i "$([ $i -lt 3 ] && echo ,)"
		done
		printf ']}\n'
	} > over.json
	run -0 --separate-stderr mct-flow -q -u ns --idle -o tsv --no-header over.json
	same "$output" "2	7	4	-9223372036854775808	0	-9223372036854775808	0"
}

@test "--idle, --queue: the formats, -F, and what does not go with them exits 2" {
	tables_trace > t.json
	run --separate-stderr mct-flow -q --idle -o table t.json
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "pid  tid  events  idle"*"host_wait  kernel_wait  other_wait" ]]
	run --separate-stderr mct-flow -q --queue -o tsv t.json
	same "${lines[0]}" "$(printf 'pid\ttid\tcount\tmean\tstddev\tmax\tp50\tp95\tat_limit')"
	run --separate-stderr mct-flow -q --queue -o tsv -F tid,max t.json
	ipy --kernel-wait 4000 --queue-limit 2 t.json > a
	same "$output" "$(printf 'tid\tmax\n'; itable queue a | cut -f 3,7)"
	# ndjson: the header line, then a record per stream
	run --separate-stderr mct-flow -q --idle t.json
	[[ "${lines[0]}" == '{"name":"mct_header"'* ]]
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[2]}" == '{"pid":0,"tid":"s1","events":2,'* ]]
	for bad in "--idle --queue" "--idle --stack" "--queue --orphans" \
	    "--idle -o folded" "--idle -o trace"; do
		run --separate-stderr mct-flow $bad t.json
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[[ "$stderr" == "mct-flow: "*"Try 'mct-flow --help'"* ]]
	done
	run --separate-stderr mct-flow --idle --queue t.json
	[[ "$stderr" == *"--idle and --queue: one table at a time"* ]]
	run --separate-stderr mct-flow --queue --stack t.json
	[[ "$stderr" == *"--queue and --stack: the table has no place for them"* ]]
	run --separate-stderr mct-flow --idle -o folded t.json
	[[ "$stderr" == *"--idle and -o folded: the table has no place for them"* ]]
	run --separate-stderr mct-flow --idle -o trace t.json
	[[ "$stderr" == *"--idle and -o trace: the table is not a trace (--queue -o trace has counters)"* ]]
	run --separate-stderr mct-flow --idle --kernel-wait 3x t.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--kernel-wait: invalid duration '3x'"* ]]
	run --separate-stderr mct-flow --queue --queue-limit 0 t.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--queue-limit: invalid number '0'"* ]]
}

# --- the stream, files and errors ----------------------------------------

@test "the header line comes first, metadata events pass through in order" {
	keyed_trace
	flow_to k.json
	[[ "$(head -1 out.nd)" == '{"name":"mct_header","ph":"M","args":{"version":1,"unit":"ns",'* ]]
	same "$(sed -n 2p out.nd)" '{"name":"thread_name","ph":"M","pid":1,"tid":7,"args":{"name":"host"}}'
	# a stream's own header is passed on unchanged
	mct-cat k.json > k.nd
	mct-flow -q k.nd > out2.nd
	same "$(head -1 out2.nd)" "$(head -1 k.nd)"
}

@test "an empty trace and a metadata-only trace: 0 pairs, exit 0" {
	echo '{"traceEvents":[]}' > e.json
	flow_to e.json
	[ "$status" -eq 0 ]
	same "$(counts < err)" "0 0 0 0"
	same "$(wc -l < out.nd)" 1
	echo '[{"name":"process_name","ph":"M","pid":1,"args":{"name":"x"}}]' > m.json
	flow_to m.json
	[ "$status" -eq 0 ]
	same "$(tail -n +2 out.nd)" '{"name":"process_name","ph":"M","pid":1,"args":{"name":"x"}}'
}

@test "standard input: none or '-'; gzip read by its magic bytes" {
	gzip -c "$small" > s.gz
	mct-flow "$small" > want 2>/dev/null
	mct-flow < s.gz > a 2> err
	same "$(cat err)" "$(fpy summary "$small")"
	mct-flow - < s.gz > b 2>/dev/null
	# the header names the source; the events are the same
	cmp <(tail -n +2 want) <(tail -n +2 a)
	cmp a b
}

@test "a damaged trace: exit 1, the damage reported, every intact event paired (as python pairs mct-cat's events)" {
	genf cut.json --scale 0.1 --cut 1000000
	flow_to cut.json
	[ "$status" -eq 1 ]
	grep -q '^mct-flow: cut.json:[0-9]*: cut off inside an event' err
	mct-cat cut.json > cut.nd 2>/dev/null || true
	same "$(grep '^mct-flow: [0-9]* pairs' err)" "$(fpy summary cut.nd)"
	fpy check out.nd cut.nd
}

@test "an unreadable file exits 2 with a message" {
	run --separate-stderr mct-flow no-such.json
	[ "$status" -eq 2 ]
	same "${stderr_lines[0]}" "mct-flow: no-such.json: No such file or directory"
}

@test "a full disk exits 2 with 'mct-flow: write error'; '| head -1' ends quietly" {
	for o in ndjson tsv trace; do
		run --separate-stderr bash -c 'mct-flow -q -o "$0" "$1" > /dev/full' "$o" "$full"
		[ "$status" -eq 2 ]
		same "$stderr" "mct-flow: write error: No space left on device"
	done
	run bash -c 'timeout 20 mct-flow -q "$0" 2>err | head -1 >/dev/null; echo "${PIPESTATUS[0]}"' "$full"
	[[ "$output" == 141 || "$output" == 0 ]]
	same "$(cat err)" ""
}

# --- the manual ------------------------------------------------------------

@test "mct(7) Compared with HolisticTraceAnalysis: the functions matched, each difference, the options it names are mct-flow's" {
	docs
	page=$MCT_SRCDIR/man/mct.7
	text=$(mandoc -Tascii "$page" | col -bx | tr -s ' \n' '  ')
	for s in "Compared with HolisticTraceAnalysis" get_idle_time_breakdown \
	    consecutive_kernel_delay get_queue_length_summary \
	    get_time_spent_blocked_on_full_queue "The last step" cuda_sync \
	    gpu_user_annotation "mct-flow --kernel-wait" "mct-flow --idle" \
	    "mct-flow --queue --host"; do
		[[ "$text" == *"$s"* ]] || { echo "missing: $s"; false; }
	done
	for o in idle queue kernel-wait queue-limit host; do
		mct-flow --help | grep -q -- "--$o" || { echo "no --$o"; false; }
	done
}

@test "--device: only the pairs of device work; a cuda_sync is passed over (its launch a host call without device event), a flow between host slices no pair; --stack --device is --stack | mct-filter --device; as python's" {
	cd "$BATS_TEST_TMPDIR"
	"$PYTHON3" -c '
import json
def x(cat, name, pid, tid, ts, dur, corr):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
            "ts": ts, "dur": dur, "args": {"correlation": corr}}
ev = [x("cpu_op", "aten::mm", 1, 1, 0, 100, None),
      x("cuda_runtime", "cudaLaunchKernel", 1, 1, 10, 5, 1),
      x("cuda_runtime", "cudaLaunchKernel", 1, 1, 20, 5, 2),
      x("cuda_runtime", "cudaEventSynchronize", 1, 1, 30, 40, 3),
      x("kernel", "k1", 0, 7, 15, 10, 1),
      x("kernel", "k2", 0, 7, 30, 10, 2),
      x("cuda_sync", "Event Sync", 0, 7, 40, 30, 3)]
del ev[0]["args"]
json.dump({"traceEvents": ev}, open("k.json", "w"))
# a Chrome flow between two host slices
json.dump({"traceEvents": [
    {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
    {"ph": "s", "name": "f", "cat": "input", "id": 9, "pid": 1, "tid": 1, "ts": 1},
    {"ph": "X", "name": "b", "pid": 1, "tid": 2, "ts": 20, "dur": 10},
    {"ph": "f", "name": "f", "cat": "input", "id": 9, "pid": 1, "tid": 2, "ts": 21, "bp": "e"}]},
    open("c.json", "w"))
'
	# python: the pairs of device work
	same "$(oracle report_oracle.py pairs k.json | head -n 1)" "$(printf 'pairs\t2\t20.00 us')"
	same "$(mct-flow -q --device -o tsv --no-header -F launch.name,name k.json)" \
	    "$(printf 'cudaLaunchKernel\tk1\ncudaLaunchKernel\tk2')"
	[ "$(mct-flow -q -o tsv --no-header k.json | wc -l)" -eq 3 ]
	run --separate-stderr mct-flow --device k.json
	[ "$status" -eq 0 ]
	[[ "$stderr" == "mct-flow: 2 pairs; 1 host calls without device event, 0 device events without launch"* ]]
	same "$(mct-flow -q --stack --device k.json)" "$(mct-flow -q --stack k.json | mct-filter --device)"
	! mct-flow -q -o folded --device k.json | grep -q 'Event Sync'
	mct-flow -q -o folded k.json | grep -q 'Event Sync'
	# flow mode: the flow binds two host slices: a pair, but not with --device
	[ "$(mct-flow -q -o tsv --no-header c.json | wc -l)" -eq 1 ]
	same "$(mct-flow -q --device --orphans c.json | tail -n +2)" ""
}

@test "man page: SYNOPSIS is the usage line, every long option of --help is in it, mandoc -Tlint is clean" {
	docs
	page=$MCT_SRCDIR/man/mct-flow.1
	[ -f "$page" ]
	for o in $(mct-flow --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -qE -- "Fl \\\\?-${o#--}([^a-z0-9-]|\$)" "$page" || { echo "$o missing"; false; }
	done
	command -v mandoc >/dev/null || skip "mandoc not installed"
	same "$(mandoc -Tlint -W warning "$page" 2>&1)" ""
	usage=$(mct-flow --help | head -1)
	syn=$(mandoc -Tascii "$page" | col -bx | sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' |
	    sed '1d;$d' | tr -s ' \n' '  ' | sed 's/^ //;s/ $//')
	same "usage: $syn" "$usage"
}

@test "man page: the summary line, the record's keys and the orphan kinds are the program's" {
	docs
	page=$MCT_SRCDIR/man/mct-flow.1
	[ -f "$page" ]
	text=$(mandoc -Tascii "$page" | col -bx | tr -s ' \n' '  ')
	for s in "pairs; N host calls without device event, N device events without launch, N dangling flow ends" \
	    "launch without device event" "device event without launch" \
	    latency queue launch.name launch.dur args.co_id args.correlation \
	    "46.54" "0.81"; do
		[[ "$text" == *"$s"* ]] || { echo "missing: $s"; false; }
	done
}

@test "--window: 0 keeps every host call; the pairs of the sorted seed trace do not change; a bad value exits 2" {
	run --separate-stderr mct-flow --window 0 "$BATS_FILE_TMPDIR/small.json"
	[ "$status" -eq 0 ]
	a=$(printf '%s\n' "$output" | grep -c '"latency":')
	b=$(mct-flow -q --window 1ms "$BATS_FILE_TMPDIR/small.json" | grep -c '"latency":')
	# python: the pairs by co_id on the same trace
	want=$("$PYTHON3" - "$BATS_FILE_TMPDIR/small.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
host = {e["args"]["co_id"] for e in ev if e.get("ph") == "X" and e.get("pid") == 1 and "co_id" in e.get("args", {})}
print(sum(1 for e in ev if e.get("ph") == "X" and e.get("pid") != 1 and e.get("args", {}).get("co_id") in host))
PY
)
	[ "$a" -eq "$want" ]
	[ "$b" -le "$want" ]
	run --separate-stderr mct-flow --window 2x "$BATS_FILE_TMPDIR/small.json"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--window: invalid duration '2x'"* ]]
}

@test "--rules: category in -F; an unreadable rules file exits 2 before any output" {
	run --separate-stderr mct-flow -q --rules /nonexistent.rules "$BATS_FILE_TMPDIR/small.json"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == *"rules file /nonexistent.rules"* ]]
	n=$(mct-flow -q --rules "$MCT_SRCDIR/data/default.rules" -o tsv --no-header \
	    -F category "$BATS_FILE_TMPDIR/small.json" | grep -c '^TileLang custom kernels$')
	want=$("$PYTHON3" -c 'import json,sys; ev=json.load(open(sys.argv[1]))["traceEvents"]; print(sum(1 for e in ev if e.get("ph")=="X" and e.get("name") in ("kernel_kernel","kernel_kernel_1")))' "$BATS_FILE_TMPDIR/small.json")
	[ "$n" -eq "$want" ]
}

@test "a device event's own launch, latency, queue (stack, op, orphan) are left out of its record: each key once, mct-flow's value, as python computes it (they were written twice)" {
	# us; k1 with keys of the names mct-flow adds, one spelt with an
	# escape; k2 plain; k3 without launch, with an orphan of its own
	h='"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1'
	d='"ph":"X","cat":"kernel","pid":0,"tid":7'
	cat > own.json <<-EOF
	{"traceEvents":[
	{$h,"ts":10,"dur":5,"args":{"correlation":1}},
	{$d,"name":"k1","ts":100,"dur":20,"latency":999999,"queue":"q","l\\u0061unch":"mine","stack":["x"],"op":"y","args":{"correlation":1}},
	{$h,"ts":200,"dur":5,"args":{"correlation":2}},
	{$d,"name":"k2","ts":300,"dur":20,"args":{"correlation":2}},
	{$d,"name":"k3","ts":400,"dur":20,"orphan":"o","args":{"correlation":3}}]}
	EOF
	# the same without the own keys mct-flow adds to it (--stack finds
	# no op for k1: its own stays)
	sed -e 's/"latency":999999,"queue":"q","l\\u0061unch":"mine",//' \
	    -e 's/"orphan":"o",//' own.json > plain.json
	! grep -q -e latency -e orphan -e u0061 plain.json
	for opt in "" --stack --orphans; do
		mct-flow -q $opt own.json > "own$opt.nd"
		mct-flow -q $opt plain.json > "plain$opt.nd"
	done
	"$PYTHON3" - own.json own.nd own--stack.nd own--orphans.nd <<'PY'
import json, os, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
host = {e["args"]["correlation"]: e for e in ev if e["cat"] == "cuda_runtime"}
want = {}
for e in ev:
    h = host.get(e["args"]["correlation"])
    if e["cat"] == "kernel" and h:
        want[e["name"]] = ((e["ts"] - h["ts"]) * 1000,
                           (e["ts"] - h["ts"] - h["dur"]) * 1000,
                           {"name": h["name"], "ts": h["ts"] * 1000,
                            "dur": h["dur"] * 1000, "pid": 1, "tid": 1})
sys.path.insert(0, os.environ["MCT_SRCDIR"] + "/tests")
from oracle import keys_once as once
for f in sys.argv[2:]:
    recs = [json.loads(l, object_pairs_hook=once) for l in open(f)][1:]
    got = {r["name"]: r for r in recs if "latency" in r}
    assert sorted(got) == sorted(want), (f, sorted(got))
    for n, (lat, q, l) in want.items():
        assert (got[n]["latency"], got[n]["queue"], got[n]["launch"]) == (lat, q, l), (f, got[n])
    stack = ["cudaLaunchKernel"] if f.endswith("stack.nd") else ["x"]
    assert (got["k1"]["stack"], got["k1"]["op"]) == (stack, "y"), got["k1"]
    if f.endswith("orphans.nd"):
        o = [r for r in recs if r["name"] == "k3"]
        assert [r["orphan"] for r in o] == ["device event without launch"], o
PY
	# the records are those of the event without the keys
	for opt in "" --stack --orphans; do
		same "$(cat "own$opt.nd" | tail -n +2)" "$(cat "plain$opt.nd" | tail -n +2)"
	done
	# and what reads them reads mct-flow's values
	for opt in --idle --queue; do
		same "$(mct-flow -q $opt own.json | tail -n +2)" \
		    "$(mct-flow -q $opt plain.json | tail -n +2)"
	done
	same "$(mct-group --value latency -o tsv own.nd)" \
	    "$(mct-group --value latency -o tsv plain.nd)"
}
