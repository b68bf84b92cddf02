#!/usr/bin/env bats
# mct-metrics.bats - device metric logs as counter events, and --join
# (metrics over each event): every option, format and error of mct-metrics(1).
#
# Expected values come from tests/metrics_oracle.py (python3's csv,
# datetime, Decimal and Fraction reading the same log and streams), or
# from what gentrace --metrics was told (bandwidth high in
# kernel_kernel_1); never from output of mct-metrics kept from a run.

load helpers

SYNC='2026/12/02 07:00:00.000=@1712195480123456789'

setup_file() {
	light_trace
	local d="$BATS_FILE_TMPDIR"

	# A small trace with its nvidia-smi log (wall times, 1 ms) and its
	# generic log (trace ns, jittered); the logs as streams; merged.
	gen --scale 0.02 --metrics "$d/nv.csv" > "$d/t.json"
	gen --scale 0.02 --metrics "$d/g.csv" --metrics-form csv > /dev/null
	mct-metrics --sync "$SYNC" "$d/nv.csv" > "$d/nv.nd"
	mct-metrics "$d/g.csv" > "$d/g.nd"
	mct-cat --merge "$d/t.json" "$d/g.nd" > "$d/m.nd"
	mct-metrics --join hbm_bw,sm_clock "$d/m.nd" > "$d/j.nd"
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	D="$BATS_FILE_TMPDIR"
}

pyo() {
	oracle metrics_oracle.py "$@"
}

# mct-metrics into out (stdout) and err; its exit status in $status.
metrics_to() {
	mct-metrics "$@" > out 2> err && status=0 || status=$?
}

@test "mct-metrics: --help and --version" {
	docs
	run mct-metrics --help
	[ "$status" -eq 0 ]
	for o in --metric --time --index --log-unit --tz --sync --join \
	    --device --window --unit --fields --output --no-header --width \
	    --help --version; do
		[[ "$output" == *"$o"* ]] || { echo "no $o"; return 1; }
		grep -q -- "${o#--}" "$MCT_SRCDIR/man/mct-metrics.1" ||
		    { echo "$o not in the man page"; return 1; }
	done
	run mct-metrics --version
	[ "$status" -eq 0 ]
	[[ "$output" == mct-metrics* ]]
}

@test "mct-metrics: usage errors exit 2 with a message" {
	printf 'time,x\n1,2\n' > l.csv
	for a in "--tz Mars/Base" "--tz +25:00" "--sync 2026" \
	    "--sync 2026/12/02 07:00:00=12" "--log-unit parsec" \
	    "--time-unit parsec" \
	    "--device 1" "--window 1s" "--join ,," \
	    "--join x --window -1s" "-o pdf" "--bogus"; do
		metrics_to $a l.csv
		[ "$status" -eq 2 ] || { echo "$a: $status"; return 1; }
		grep -q "Try 'mct-metrics --help'" err
	done
	metrics_to none.csv
	[ "$status" -eq 2 ]
	grep -q 'none.csv' err
	printf 'a,b\n1,2\n' > nt.csv
	metrics_to nt.csv
	[ "$status" -eq 2 ]
	grep -q 'nt.csv:1: no time column' err
	metrics_to --time nope l.csv
	[ "$status" -eq 2 ]
	grep -q 'no such column as --time names' err
}

@test "mct-metrics: no log that can be read (a missing file, no time column): nothing on stdout, exit 2, as every tool (it wrote a header of no source); one readable log beside: its header and samples" {
	printf 'time,x\n1,2\n' > l.csv
	printf 'a,b\n1,2\n' > nt.csv
	for a in none.csv nt.csv "none.csv nt.csv" "--time nope l.csv"; do
		metrics_to $a
		[ "$status" -eq 2 ] || { echo "$a: $status"; return 1; }
		[ ! -s out ] || { echo "$a: wrote $(cat out)"; return 1; }
		[ -s err ]
	done
	# as mct-cat: a stream of the operands that could be read
	metrics_to none.csv l.csv
	[ "$status" -eq 2 ]
	[ "$(wc -l < out)" -eq 2 ]
	head -1 out | grep -q '"sources":\["none.csv","l.csv"\]'
	sed -n 2p out | grep -q '"name":"x"'
	# an empty log is read: a stream of no samples, as mct-cat's of an
	# empty input
	: > empty.csv
	metrics_to empty.csv
	[ "$status" -eq 0 ]
	[ "$(wc -l < out)" -eq 1 ]
}

@test "mct-metrics: nvidia-smi CSV, wall times and --sync: every ts as python's to the ns, units in args.unit" {
	pyo log "$D/nv.csv" "$D/nv.nd" --sync "$SYNC"
	# three metrics a line, the header line first, sorted, on the trace's
	# clock: the first sample is at the trace's origin
	[ "$(($(wc -l < "$D/nv.nd") - 1))" -eq "$((3 * ($(wc -l < "$D/nv.csv") - 1)))" ]
	head -1 "$D/nv.nd" | grep -q '"name":"mct_header".*"sorted":true'
	sed -n 2p "$D/nv.nd" | grep -q '"ts":1712195480123456789,"args":{"value":1600,"unit":"MHz"}'
	grep -q '"name":"utilization.memory".*"unit":"%"' "$D/nv.nd"
	# without --sync: epoch ns; --tz moves them by the offset
	metrics_to "$D/nv.csv"
	[ "$status" -eq 0 ]
	pyo log "$D/nv.csv" out
	sed -n 2p out | grep -q '"ts":1796194800000000000,'
	metrics_to --tz +08:00 "$D/nv.csv"
	pyo log "$D/nv.csv" out --tz +08:00
	sed -n 2p out | grep -q '"ts":1796166000000000000,'
	if [ -e /usr/share/zoneinfo/America/New_York ]; then
		metrics_to --tz America/New_York "$D/nv.csv"
		pyo log "$D/nv.csv" out --tz America/New_York
	fi
}

@test "mct-metrics: nounits, TSV, quoted fields, N/A, gzip: the same samples" {
	# nvidia-smi's nounits: the values bare, the header keeps its units
	sed '2,$s/ \(MHz\|%\|MiB\),/,/g; 2,$s/ MiB$//' "$D/nv.csv" > nu.csv
	! grep -q 'MHz,' <(sed 1d nu.csv)
	metrics_to --sync "$SYNC" nu.csv
	[ "$status" -eq 0 ]
	same "$(sed 1d out)" "$(sed 1d "$D/nv.nd")"
	# a TSV with a quoted field, [N/A] and an empty field: no sample
	printf 'time\tgpu\tpower (W)\tname\n' > t.tsv
	printf '1.5\t"card1"\t[N/A]\tMI300X\n2.25\tcard1\t310.5\tMI300X\n3\tcard1\t\tMI300X\n' >> t.tsv
	metrics_to --log-unit s t.tsv
	[ "$status" -eq 0 ]
	pyo log t.tsv out --time-unit s
	same "$(sed 1d out)" '{"name":"power","ph":"C","pid":"metrics","tid":1,"ts":2250000000,"args":{"value":310.5,"unit":"W"}}'
	gzip -c t.tsv > t.tsv.gz
	metrics_to --log-unit s t.tsv.gz
	[ "$status" -eq 0 ]
	pyo log t.tsv out --time-unit s
}

@test "mct-metrics: --time-unit, the old name of --log-unit: the same samples, and a warning" {
	printf 'time\tpower (W)\n1.5\t300\n2.25\t310.5\n' > t.tsv
	metrics_to --log-unit s t.tsv
	[ "$status" -eq 0 ]
	[ ! -s err ]
	mv out new
	metrics_to --time-unit s t.tsv
	[ "$status" -eq 0 ]
	cmp out new
	same "$(cat err)" "mct-metrics: --time-unit is now --log-unit (the unit of the log's time column)"
	metrics_to --time-unit parsec t.tsv
	[ "$status" -eq 2 ]
	grep -q "^mct-metrics: --time-unit: invalid unit 'parsec'" err
	metrics_to --log-unit parsec t.tsv
	[ "$status" -eq 2 ]
	grep -q "^mct-metrics: --log-unit: invalid unit 'parsec'" err
}

@test "mct-metrics -o table, -o md: ts in ns, the header saying so" {
	metrics_to -o table --sync "$SYNC" "$D/nv.csv"
	[ "$status" -eq 0 ]
	[[ "$(head -1 out)" =~ ^ts\ \(ns\)\ +ph\ +pid\ +tid\ +name\ +args.value\ +args.unit$ ]]
	# the rows: python's ts, as the stream has them
	same "$(sed 1d out | awk '{ print $1 }')" "$(sed 1d "$D/nv.nd" | "$PYTHON3" -c '
import json, sys
for line in sys.stdin:
    print(json.loads(line)["ts"])')"
	metrics_to -o md --sync "$SYNC" "$D/nv.csv"
	same "$(head -1 out)" "| ts (ns) | ph | pid | tid | name | args.value | args.unit |"
}

@test "mct-metrics -o table, tsv: each value's unit is a column of its own by default (it was left out: 'memory.used 40960', MiB said nowhere)" {
	metrics_to -o table --sync "$SYNC" "$D/nv.csv"
	[ "$status" -eq 0 ]
	# the units of the header's brackets, beside their values
	same "$(sed -n 2,4p out | awk '{ print $5, $7 }')" "$(printf 'clocks.current.sm MHz\nutilization.memory %%\nmemory.used MiB')"
	metrics_to -o tsv --sync "$SYNC" "$D/nv.csv"
	same "$(head -1 out)" "$(printf 'ts\tph\tpid\ttid\tname\targs.value\targs.unit')"
	# the columns before it are where they were, as the stream has them
	same "$(cut -f7 out | sed 1d)" "$(sed 1d "$D/nv.nd" | "$PYTHON3" -c '
import json, sys
for line in sys.stdin:
    print(json.loads(line)["args"].get("unit", ""))')"
	# a column without a unit: an empty cell
	printf 'time_ns,bw\n1,5\n' > nounit.csv
	metrics_to -o tsv --no-header nounit.csv
	same "$(cat out)" "$(printf '1\tC\tmetrics\t0\tbw\t5\t')"
}

@test "mct-metrics -o table, -o md: --width cuts cells as in every tool (it was refused: unrecognized option), 0 never; tsv never cuts" {
	local n
	n=$(printf 'x%.0s' $(seq 70))
	printf 'time_ns,%s [MHz]\n1000,5\n' "$n" > long.csv
	# the default: 60 characters, the last an ellipsis
	metrics_to -o table long.csv
	[ "$status" -eq 0 ]
	grep -q " $(printf 'x%.0s' $(seq 59))… " out
	metrics_to -o table --width 0 long.csv
	[ "$status" -eq 0 ]
	grep -q " $n " out
	metrics_to -o md --width 10 long.csv
	[ "$status" -eq 0 ]
	grep -q "| xxxxxxxxx… |" out
	metrics_to -o tsv --width 10 long.csv
	same "$(cut -f5 out | tail -1)" "$n"
	metrics_to --width x long.csv
	[ "$status" -eq 2 ]
	grep -q -- "--width: invalid width 'x'" err
}

@test "mct-metrics: rocm-smi --csv with a time column, -m, --time and --index by number" {
	cat > rocm.csv <<'EOF'
time,device,Temperature (Sensor edge) (C),GPU use (%),Card series
2026-12-02 07:00:00.5,card0,35.0,12,AMD Instinct MI300X
2026-12-02 07:00:00.5,card1,36.0,99,AMD Instinct MI300X
time,device,Temperature (Sensor edge) (C),GPU use (%),Card series
2026-12-02T07:00:01.000000001Z,card0,35.0,13,AMD Instinct MI300X
2026-12-02 08:00:01.25+01:00,card1,36.5,98,AMD Instinct MI300X
EOF
	metrics_to rocm.csv
	[ "$status" -eq 0 ]
	[ ! -s err ]
	pyo log rocm.csv out
	[ "$(grep -c '"name":"Temperature (Sensor edge)".*"unit":"C"' out)" -eq 4 ]
	grep -q '"tid":0,"ts":1796194801000000001,"args":{"value":13,"unit":"%"}' out
	! grep -q 'Card series' out
	metrics_to -m 'GPU use' --time 1 --index 2 rocm.csv
	[ "$status" -eq 0 ]
	[ "$(grep -c '"ph":"C"' out)" -eq 4 ]
	! grep -q Temperature out
	metrics_to -m nope rocm.csv
	[ "$status" -eq 2 ]
	metrics_to -o tsv -F ts,tid,name,args.value rocm.csv
	same "$(sed -n 2p out)" "$(printf '1796194800500000000\t0\tTemperature (Sensor edge)\t35')"
}

@test "mct-metrics: bad lines are told with their line, skipped; a time going back is kept, sorted, exit 1" {
	cat > bad.csv <<'EOF'
timestamp, index, clocks.current.sm [MHz]
2026/12/02 07:00:00.100, 0, 1410 MHz
garbage
2026/12/02 07:00:00.200, 0, fast
2026/13/02 07:00:00.300, 0, 1400 MHz
2026/12/02 07:00:00.400, x, 1400 MHz
2026/12/02 07:00:00.500, 0, 1400 GHz
2026/12/02 07:00:00.050, 0, 1390 MHz
2026/12/02 07:00:00.600, 0, 1380 MHz
EOF
	metrics_to bad.csv
	[ "$status" -eq 1 ]
	grep -q '^mct-metrics: bad.csv:3: 1 fields, the header has 3$' err
	grep -q "^mct-metrics: bad.csv:4: clocks.current.sm: 'fast' is no number; the value is skipped$" err
	grep -q '^mct-metrics: bad.csv:5: time .2026/13/02' err
	grep -q '^mct-metrics: bad.csv:6: device .x. is no number$' err
	grep -q '^mct-metrics: bad.csv:8: the time goes back 450 ms: samples are put in time order$' err
	[ "$(wc -l < err)" -eq 5 ]
	pyo log bad.csv out
	same "$(grep -o '"value":[0-9]*' out)" "$(printf '"value":%s\n' 1390 1410 1400000 1380)"
	# past 20 bad lines, or values, of a file: a count
	{ echo 'time,x'; echo '0,5'; for i in $(seq 30); do
		echo "$((i * 10)),no"; echo "$((i * 10))"
		echo "$((i * 10 + 5)),1"; done; } > many.csv
	metrics_to many.csv
	[ "$status" -eq 1 ]
	[ "$(grep -c 'many.csv:[0-9]*:' err)" -eq 40 ]
	grep -q 'many.csv: 30 bad lines in all, skipped' err
	grep -q 'many.csv: 30 bad values in all, skipped' err
	[ "$(grep -c '"ph":"C"' out)" -eq 31 ]
}

@test "mct-metrics: a column whose values are not all numbers keeps its good samples; each bad one said with its line, exit 1" {
	# hbm_bw without its unit, its first value ERR!; sm_clock's second
	# [Unknown], then values in GHz (converted) and in W (refused)
	"$PYTHON3" - "$D/g.csv" > bad.csv <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
lines[0] = lines[0].replace("hbm_bw [GB/s]", "hbm_bw")
def cell(n, k, text):
    f = lines[n - 1].split(",")
    f[k] = text
    lines[n - 1] = ",".join(f)
cell(2, 2, "ERR!")
cell(3, 3, "[Unknown]")
cell(5, 3, "1.7 GHz")
cell(6, 3, "45 W")
cell(7, 3, "1700000 kHz")
print("\n".join(lines))
PY
	metrics_to bad.csv
	[ "$status" -eq 1 ]
	same "$(cat err)" "mct-metrics: bad.csv:2: hbm_bw: 'ERR!' is no number; the value is skipped
mct-metrics: bad.csv:3: sm_clock: '[Unknown]' is no number; the value is skipped
mct-metrics: bad.csv:6: sm_clock: '45 W' is not in MHz; the value is skipped"
	pyo log bad.csv out
	[ "$(grep -c '"ph":"C"' out)" -eq $(( 2 * ($(wc -l < bad.csv) - 1) - 3 )) ]
	grep -q '"ts":1712195480124459254,"args":{"value":67}' out
	# --join names the column: its good samples joined, the same said
	metrics_to --join hbm_bw,sm_clock "$D/t.json" bad.csv
	[ "$status" -eq 1 ]
	same "$(cat err)" "mct-metrics: bad.csv:2: hbm_bw: 'ERR!' is no number; the value is skipped
mct-metrics: bad.csv:3: sm_clock: '[Unknown]' is no number; the value is skipped
mct-metrics: bad.csv:6: sm_clock: '45 W' is not in MHz; the value is skipped"
	mv out direct
	mct-metrics bad.csv > bad.nd || [ $? -eq 1 ]
	mct-cat --merge "$D/t.json" bad.nd > m.nd
	metrics_to --join hbm_bw,sm_clock m.nd
	run pyo join m.nd out hbm_bw,sm_clock
	[ "$status" -eq 0 ]
	[ "${output#ok }" != "0 joined" ]
	same "$(grep -v '"ph":"C"' out | sed 1d | sort)" "$(sed 1d direct | sort)"
	# a column --join names whose values are never numbers: each said
	{ echo 'time,gpu,util'; for i in 1 2 3; do echo "$i,0,ERR!"; done; } > err.csv
	metrics_to --join util "$D/t.json" err.csv
	[ "$status" -eq 1 ]
	[ "$(grep -c "err.csv:[234]: util: 'ERR!' is no number; the value is skipped" err)" -eq 3 ]
	# without --join, such a column is text: nothing said
	metrics_to err.csv
	[ "$status" -eq 0 ]
	[ ! -s err ]
	# a value too large once in the column's unit (10^12 at most)
	printf 'time,gpu,mem [MiB]\n1,0,5\n2,0,999999 TiB\n' > huge.csv
	metrics_to huge.csv
	[ "$status" -eq 1 ]
	same "$(cat err)" "mct-metrics: huge.csv:3: mem: '999999 TiB' is too large in MiB; the value is skipped"
}

@test "mct-metrics: real calendar dates; a byte order mark skipped; the same time twice for a device said, the later line's values hold" {
	sed 's|^2026/12/02 07:00:00.003|2026/02/31 07:00:00.003|' "$D/nv.csv" > feb.csv
	metrics_to feb.csv
	[ "$status" -eq 1 ]
	n=$(grep -n '^2026/02/31' feb.csv | cut -d: -f1)
	same "$(cat err)" "mct-metrics: feb.csv:$n: time '2026/02/31 07:00:00.003' is no number and no wall time"
	pyo log feb.csv out
	printf '\357\273\277' | cat - "$D/nv.csv" > bom.csv
	metrics_to bom.csv
	[ "$status" -eq 0 ]
	[ ! -s err ]
	pyo log bom.csv out
	same "$(sed 1d out)" "$(mct-metrics "$D/nv.csv" | sed 1d)"
	# line 10 again with other values: said; in the join the later holds
	awk -F, 'NR == 10 { print; OFS = ","; $3 = 99; $4 = 999 } { print }' "$D/g.csv" > dup.csv
	metrics_to dup.csv
	[ "$status" -eq 1 ]
	same "$(cat err)" "mct-metrics: dup.csv:11: the same time and device as line 10: the values of this later line hold"
	pyo log dup.csv out
	mv out dup.nd
	metrics_to --join hbm_bw "$D/t.json" dup.csv
	[ "$status" -eq 1 ]
	mv out direct
	mct-cat --merge "$D/t.json" dup.nd > m.nd
	metrics_to --join hbm_bw m.nd
	run pyo join m.nd out hbm_bw
	[ "$status" -eq 0 ]
	same "$(grep -v '"ph":"C"' out | sed 1d | sort)" "$(sed 1d direct | sort)"
	# past 20 of a file: a count
	{ echo 'time,x'; for i in $(seq 25); do echo "$i,1"; echo "$i,2"; done; } > dups.csv
	metrics_to dups.csv
	[ "$status" -eq 1 ]
	[ "$(grep -c 'the values of this later line hold$' err)" -eq 20 ]
	same "$(tail -1 err)" "mct-metrics: dups.csv: 25 lines at the time of the line before of their device in all"
}

@test "mct-metrics --join -o tsv, table: the default columns are the event's and each joined counter's mean (they were ts,ph,pid,tid,name,args.value: no joined figure, args.value empty on every event)" {
	metrics_to --join hbm_bw,sm_clock -o tsv "$D/t.json" "$D/g.nd"
	[ "$status" -eq 0 ]
	same "$(head -1 out)" "$(printf 'ts\tdur\tph\tpid\ttid\tname\tmetrics.hbm_bw.mean\tmetrics.sm_clock.mean')"
	# the cells: each event's as the ndjson has it
	metrics_to --join hbm_bw,sm_clock "$D/t.json" "$D/g.nd"
	"$PYTHON3" - out > want <<'PY'
import json, sys
for l in list(open(sys.argv[1]))[1:]:
    e = json.loads(l, parse_float=str)	# the mean's text, 1500.000
    if e["ph"] == "M":
        continue	# a table has no metadata rows (--meta)
    m = e.get("metrics", {})
    print("\t".join(str(x) for x in [e.get("ts", ""), e.get("dur", ""), e["ph"],
          e.get("pid", ""), e.get("tid", ""), e["name"]] +
          [m[k]["mean"] if k in m else "" for k in ("hbm_bw", "sm_clock")]))
PY
	metrics_to --join hbm_bw,sm_clock -o tsv --no-header "$D/t.json" "$D/g.nd"
	same "$(cat out)" "$(cat want)"
	[ "$(awk -F'\t' '$7 != ""' out | wc -l)" -gt 0 ]
	# a counter named with dots is quoted in the field, as the header says
	printf 'time_ns,clocks.current.sm [MHz]\n0,1500\n' > c.csv
	printf '{"traceEvents":[{"name":"k","ph":"X","ts":0,"dur":10,"pid":2,"tid":1}]}' > k.json
	metrics_to --join clocks.current.sm -o table k.json c.csv
	[ "$status" -eq 0 ]
	[[ "$(head -1 out)" == *' metrics."clocks.current.sm".mean' ]]
	[[ "$(tail -1 out)" == *' 1500.000' ]]
	# -F, before or after --join, is the columns asked for
	metrics_to -F name,dur --join hbm_bw -o tsv "$D/t.json" "$D/g.nd"
	same "$(head -1 out)" "$(printf 'name\tdur')"
	metrics_to --join hbm_bw -F name -o csv "$D/t.json" "$D/g.nd"
	same "$(head -1 out)" name
	# without --join, the samples' columns as before
	metrics_to -o tsv "$D/g.csv"
	same "$(head -1 out)" "$(printf 'ts\tph\tpid\ttid\tname\targs.value\targs.unit')"
}

@test "mct-metrics --join: every event's mean, min, max and samples as python's, exactly; events kept" {
	run pyo join "$D/m.nd" "$D/j.nd" hbm_bw,sm_clock
	[ "$status" -eq 0 ]
	[[ "$output" == "ok "* ]]
	[ "${output#ok }" != "0 joined" ]
	head -1 "$D/j.nd" | grep -q '"sorted":false'
	# the trace and the log (its stream, or the CSV itself) read directly:
	# the trace's events in their order, the same values, no counters
	grep -v '"ph":"C"' "$D/j.nd" | sed 1d | sort > want
	metrics_to --join hbm_bw,sm_clock "$D/t.json" "$D/g.nd"
	[ "$status" -eq 0 ]
	[ ! -s err ]
	same "$(sed 1d out | sort)" "$(cat want)"
	head -1 out | grep -q '"sorted":true'
	same "$(sed 1d out | cut -d, -f1-4)" "$(mct-cat "$D/t.json" | sed 1d |
	    cut -d, -f1-4)"
	metrics_to --join hbm_bw,sm_clock "$D/g.csv" "$D/t.json"
	[ "$status" -eq 0 ]
	same "$(sed 1d out | sort)" "$(cat want)"
	# counters in the trace operand are not joined then: said
	metrics_to --join hbm_bw "$D/m.nd" "$D/g.csv"
	grep -q 'counter events of the trace operands not joined' err
	# the nvidia-smi log of the same trace, wall times synced
	mct-cat --merge "$D/t.json" "$D/nv.nd" > nm.nd
	metrics_to --join utilization.memory,nothing nm.nd
	[ "$status" -eq 0 ]
	grep -q -- '--join nothing: no counter events of that name' err
	pyo join nm.nd out utilization.memory,nothing
	# its CSV read directly with --sync: the same events
	grep -v '"ph":"C"' out | sed 1d | sort > want
	metrics_to --join utilization.memory --sync "$SYNC" "$D/t.json" \
	    "$D/nv.csv"
	[ "$status" -eq 0 ]
	same "$(sed 1d out | sort)" "$(cat want)"
}

@test "mct-metrics --join: a bad log line and a cut-off trace are both told, exit 1; the rest joined as from the streams" {
	# the generic log with a garbage line; the trace cut inside an event
	awk 'NR == 50 { print "garbage" } { print }' "$D/g.csv" > bad.csv
	size=$(wc -c < "$D/t.json")
	head -c $((size - 300)) "$D/t.json" > cut.json
	metrics_to --join hbm_bw,sm_clock cut.json bad.csv
	[ "$status" -eq 1 ]
	grep -q '^mct-metrics: bad.csv:50: 1 fields, the header has 4$' err
	grep -q '^mct-metrics: cut.json:[0-9]*: cut off inside an event' err
	[ "$(wc -l < err)" -eq 2 ]
	mv out direct
	# the same from the streams: the log's (the bad line skipped) merged
	# with the trace's, joined; python3 checks those values
	mct-metrics bad.csv > bad.nd || [ $? -eq 1 ]
	mct-cat --merge cut.json bad.nd > m.nd || [ $? -eq 1 ]
	metrics_to --join hbm_bw,sm_clock m.nd
	[ "$status" -eq 0 ]
	run pyo join m.nd out hbm_bw,sm_clock
	[ "$status" -eq 0 ]
	[[ "$output" == "ok "* ]]
	[ "${output#ok }" != "0 joined" ]
	same "$(grep -v '"ph":"C"' out | sed 1d | sort)" "$(sed 1d direct | sort)"
}

@test "mct-metrics --join: joined in the reader's threads (chunks, spool, gzip, a pipe) or alone: the same rows as python's" {
	# want: the trace's events of the oracle-checked join of the streams
	run pyo join "$D/m.nd" "$D/j.nd" hbm_bw,sm_clock
	[ "$status" -eq 0 ]
	grep -v '"ph":"C"' "$D/j.nd" | sed 1d | sort > want
	gzip -c "$D/t.json" > t.json.gz
	for how in "MCT_SPLIT=1000000000" "MCT_SPLIT=4096" \
	    "MCT_SPOOL=1 MCT_SPLIT=4096" "MCT_SPLIT=4096 MCT_GZSLOT=3000"; do
		in="$D/t.json"
		case $how in *GZSLOT*) in=t.json.gz ;; esac
		rc=0
		env $how mct-metrics --join hbm_bw,sm_clock "$in" "$D/g.csv" \
		    > out 2> err || rc=$?
		[ "$rc" -eq 0 ]
		[ ! -s err ]
		same "$(sed 1d out | sort)" "$(cat want)"
	done
	MCT_SPLIT=4096 mct-metrics --join hbm_bw,sm_clock - "$D/g.csv" \
	    < "$D/t.json" > out
	same "$(sed 1d out | sort)" "$(cat want)"
	# chunks written whole as the threads joined them: in the trace's
	# order, as the one-chunk read writes them event by event
	MCT_SPLIT=4096 mct-metrics --join hbm_bw,sm_clock "$D/t.json" \
	    "$D/g.csv" > chunks
	MCT_SPLIT=1000000000 mct-metrics --join hbm_bw,sm_clock "$D/t.json" \
	    "$D/g.csv" > whole
	cmp chunks whole
	# two trace operands get a rank each: joined after the rank, alone
	MCT_SPLIT=4096 mct-metrics --join hbm_bw "$D/t.json" "$D/t.json" \
	    "$D/g.csv" > out2 2> err || true
	grep -q '"rank":1,"metrics":{"hbm_bw":' out2
}

@test "mct-metrics --join: mct-group --value metrics.X.mean puts kernel_kernel_1, the high-bandwidth kernel, on top" {
	mct-group --by name --value metrics.hbm_bw.mean -a mean --sort mean \
	    -o tsv --no-header "$D/j.nd" > out
	same "$(head -1 out | cut -f1)" kernel_kernel_1
	mct-metrics --join utilization.memory "$D/t.json" "$D/nv.nd" |
	    mct-group --by name --value 'metrics."utilization.memory".mean' \
	    -a mean --sort mean -o tsv --no-header > out
	same "$(head -1 out | cut -f1)" kernel_kernel_1
}

@test "mct-metrics --join: --device, --window on input out of order, and a log that does not overlap" {
	# two devices: the first one counts unless --device says
	sed 's/"tid":0/"tid":1/; s/"value":\([0-9]*\)/"value":1\1/' "$D/g.nd" |
	    grep -e mct_header -e '"hbm_bw"' > g1.nd
	mct-cat --merge "$D/t.json" "$D/g.nd" g1.nd > two.nd
	metrics_to --join hbm_bw two.nd
	[ "$status" -eq 0 ]
	grep -q 'samples of other devices than 0 left out (--device N chooses)' err
	metrics_to --join hbm_bw --device 1 two.nd
	[ "$status" -eq 0 ]
	grep -v '"pid":"metrics","tid":0' two.nd > dev1.nd
	pyo join dev1.nd <(grep -v '"pid":"metrics","tid":0' out) hbm_bw
	# out of order by a little: --window joins as it comes
	"$PYTHON3" - "$D/m.nd" > wob.nd <<'PY'
import random, sys
random.seed(7)
lines = open(sys.argv[1]).read().splitlines(True)
out = [lines[0].replace('"sorted":true', '"sorted":false', 1)]
for i in range(1, len(lines), 40):
    c = lines[i:i + 40]
    random.shuffle(c)
    out += c
sys.stdout.write("".join(out))
PY
	metrics_to --join hbm_bw --window 1s wob.nd
	[ "$status" -eq 0 ]
	[ ! -s err ]
	pyo join wob.nd out hbm_bw
	metrics_to --join hbm_bw wob.nd
	pyo join wob.nd out hbm_bw
	# put in order by the reader's merge, whose runs need $TMPDIR: with
	# none, exit 2 and no events, as mct-cat --merge (not some of them):
	# the header and the line that says the stream is cut
	TMPDIR=/nonexistent metrics_to --join hbm_bw wob.nd "$D/t.json"
	[ "$status" -eq 2 ]
	grep -q '/nonexistent' err
	[ "$(wc -l < out)" -eq 2 ]
	same "$(tail -1 out)" '{"name":"mct_cut","ph":"M","args":{}}'
	metrics_to --join hbm_bw --window 0 wob.nd
	grep -q 'samples came more than --window after later events' err
	# a log of another time: a warning, no values, exit 0
	metrics_to --sync '2026/12/02 07:00:00.000=@1000' "$D/nv.csv"
	mct-cat --merge "$D/t.json" out > far.nd
	metrics_to --join utilization.memory far.nd
	[ "$status" -eq 0 ]
	grep -q 'do not overlap the events' err
	! grep -q '"metrics":' out
	[ "$(wc -l < out)" -eq "$(wc -l < far.nd)" ]
}

@test "mct-metrics: the mx-smi recipe of the man page makes its sample the generic CSV" {
	local man="$MCT_SRCDIR/man/mct-metrics.1"

	sed -n '/^\.\\" sample-begin/,/^\.\\" sample-end/p' "$man" |
	    grep -v '^\.' > hbm.log
	sed -n '/^\.\\" recipe-begin/,/^\.\\" recipe-end/p' "$man" |
	    grep -v '^\.' | sed 's/\\e/\\/g' > recipe.sh
	[ "$(wc -l < hbm.log)" -eq 4 ]
	sh recipe.sh
	same "$(cat hbm.csv)" "time,index,hbm_bw [GB/s]
2026-12-02 07:00:01.000412345,0,812.5
2026-12-02 07:00:02.001398761,0,95.25"
	metrics_to hbm.csv
	[ "$status" -eq 0 ]
	pyo log hbm.csv out
	grep -q '"ts":1796194801000412345,"args":{"value":812.5,"unit":"GB/s"}' out
}

@test "-o trace: ts in microseconds as a viewer reads them, the ns as three decimals; mct-cat reads back the stream's ns, python's json the same" {
	mct-metrics -o trace "$D/g.csv" > t.json
	# a viewer's unit: the first sample's ts is the stream's / 1000
	same "$(grep -o '"ts":[0-9.]*' t.json | head -1)" \
	    "$(mct-cat -o tsv --no-header -F ts "$D/g.nd" | head -1 |
	    python3 -c 'import sys; t = int(sys.stdin.read()); print("\"ts\":%d.%03d" % (t // 1000, t % 1000))')"
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' t.json
	same "$(mct-cat -o tsv --no-header -F ts,name,tid,args.value t.json)" \
	    "$(mct-cat -o tsv --no-header -F ts,name,tid,args.value "$D/g.nd")"
	# the stream stays in ns
	same "$(mct-metrics "$D/g.csv" | head -1 | grep -o '"unit":"[a-z]*"')" '"unit":"ns"'
}
