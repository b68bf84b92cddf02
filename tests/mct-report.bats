#!/usr/bin/env bats
# mct-report: the seed analysis as Markdown, composed of the other tools.
# Its numbers are checked against the seed's (tests/gentrace.md) on the
# full-scale generated trace, and against python3 json on the fixtures.

load helpers

setup_file() {
	light_trace
	bats_require_minimum_version 1.5.0
	genf "$BATS_FILE_TMPDIR/seed.json"
	mct-report "$BATS_FILE_TMPDIR/seed.json" > "$BATS_FILE_TMPDIR/seed.md"
	# the options' tests: a small trace of the same shape
	genf "$BATS_FILE_TMPDIR/small.json" --scale 0.05
	mct-report "$BATS_FILE_TMPDIR/small.json" > "$BATS_FILE_TMPDIR/small.md"
	# one report of each fixture, and one python3 process reading each
	# once for what the tests ask of them all (report_oracle.py facts)
	[ -d "$fixtures" ] || return 0
	local f b
	mkdir "$BATS_FILE_TMPDIR/fx"
	for f in "$fixtures"/*.json*; do
		b=$BATS_FILE_TMPDIR/fx/${f##*/}
		mct-report "$f" > "$b.md" 2> "$b.err"
		echo $? > "$b.rc"
	done
	oracle report_oracle.py facts "$fixtures"/*.json* > "$BATS_FILE_TMPDIR/facts"
}

# every test in its own directory: none writes into the build tree
setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
}

# fact TAG TRACE [FACTS]: the lines TAG of TRACE in the oracle's facts
# (report_oracle.py facts), without their tag.
fact() {
	awk -v tag="$1" -v f="$2" '/^@@ / { on = substr($0, 4) == f; next }
	    on && index($0, tag "\t") == 1 { print substr($0, length(tag) + 2) }' \
	    "${3:-$BATS_FILE_TMPDIR/facts}"
}

# The report of a fixture made by setup_file: its text, stderr, status.
fxr() {
	echo "$BATS_FILE_TMPDIR/fx/${1##*/}.$2"
}

@test "the seed's category table comes out of the report" {
	r="$BATS_FILE_TMPDIR/seed.md"
	grep -q '^| TileLang custom kernels | 444 | 43.19 s | 91.14% |' "$r"
	grep -q '^| routing/reorder/scatter/gather | 5,602 | 3.19 s | 6.73% |' "$r"
	grep -q '^| memcpy/copy | 6,932 | 810.73 ms | 1.71% |' "$r"
	grep -q '^| mcBLAS/GEMM | 260 | 86.00 ms | 0.18% |' "$r"
}

@test "the seed's kernels and launch configurations" {
	r="$BATS_FILE_TMPDIR/seed.md"
	grep -q '^| kernel_kernel | 222 | 31.42 s | [0-9.]*% | 141.53 ms | 47.29 ms | 7.92 ms | 256.31 ms | 14.286 s | 80.213 s |' "$r"
	grep -q '^| kernel_kernel_1 | 222 | 11.77 s | [0-9.]*% | 53.03 ms | 17.83 ms | 3.18 ms | 95.41 ms | 14.349 s | 80.225 s |' "$r"
	grep -q '^| kernel_kernel | \[2056,32,1\] | \[128,1,1\] | 110 | 253.99 ms | 27.94 s | 192 | 32,768 |' "$r"
	grep -q '^| kernel_kernel_1 | \[1028,28,1\] | \[128,1,1\] | 110 | 12.05 ms | 1.33 s | 150 | 16,384 |' "$r"
}

@test "the seed's host API, the host-versus-device lesson and the copies" {
	r="$BATS_FILE_TMPDIR/seed.md"
	grep -q '^| mcMemcpyAsync | 6,932 | 46.54 s | [0-9.]* ms | 2.59 us | 375.58 ms |' "$r"
	grep -q '^| mcGetDevice | 140,703 | 27.50 ms |' "$r"
	grep -q '^| mcMemcpyAsync | 6,932 | 46.54 s | 810.73 ms |' "$r"
	grep -q '^| memcpy DTOD(device,device) | 5,370 | 790.03 ms | [0-9.]* us | 426.01 GB | 1.879 GB |' "$r"
	grep -q '^| memcpy HTOD(pinned,device) | 888 | 2.94 ms | [0-9.]* us | 1.380 MB | 8,224 B |' "$r"
}

@test "the seed's phases: two steady phases of 110 rounds" {
	r="$BATS_FILE_TMPDIR/seed.md"
	grep -q '^| steady | 26.570 s | 68.410 s | 41.84 s | [0-9,]* | [0-9.]*% | 110 |' "$r"
	grep -q '^| steady | 74.520 s | 80.225 s | 5.71 s | [0-9,]* | [0-9.]*% | 110 |' "$r"
	grep -q '^| warmup | 14.286 s |' "$r"
	grep -q '^| warmup | 20.760 s |' "$r"
}


@test "section 4: a device with no gap to list says so under the phases, the threshold as python finds it; a report that lists a gap does not" {
	need_fixtures
	local f r want n=0
	for f in "$fixtures"/*.json*; do
		r=$(fxr "$f" md)
		sed -n '/^## 4\. /,/^## 5\. /p' "$r" > s4
		if grep -q '^| \([0-9]* | \)\{0,1\}gap |' s4; then
			! grep -q 'no idle gap longer than' s4
			n=$((n + 1))
		fi
		# the message is the report's sentence, never said on stderr
		! grep -q 'no idle gap' "$(fxr "$f" err)"
	done
	[ "$n" -gt 0 ]
	# one rank: the oracle's threshold
	f=$fixtures/kineto-diff-control.json.gz
	mct-cat "$f" > c.nd
	want=$(oracle phases_oracle.py nogap c.nd)
	[ -n "$want" ]
	sed -n '/^## 4\. /,/^## 5\. /p' "$(fxr "$f" md)" > s4
	grep -qxF "Rank 3: ${want} between the device's first and last event." s4
	# no rank: two kernels back to back
	printf '%s\n' '{"traceEvents":[' \
	    '{"name":"k","ph":"X","ts":0,"dur":100,"pid":0,"tid":1,"cat":"kernel"},' \
	    '{"name":"k","ph":"X","ts":100,"dur":100,"pid":0,"tid":1,"cat":"kernel"}]}' > k.json
	mct-report k.json > k.md 2> k.err
	mct-cat k.json > k.nd
	same "$(oracle phases_oracle.py nogap k.nd)" "no idle gap longer than 1.00 ms"
	grep -qxF "No idle gap longer than 1.00 ms between the device's first and last event." k.md
	! grep -q 'no idle gap' k.err
}
@test "the overview counts equal python's" {
	r="$BATS_FILE_TMPDIR/seed.md"
	n=$(py count "$BATS_FILE_TMPDIR/seed.json")
	want=$("$PYTHON3" -c "print(f'{$n:,}')")
	grep -q "^| events | $want |" "$r"
}

@test "every fixture: the report runs, exit 0, and its top kernel is python's" {
	need_fixtures
	for f in "$fixtures"/*.json*; do
		output=$(cat "$(fxr "$f" md)")
		[ "$(cat "$(fxr "$f" rc)")" -eq 0 ] ||
		    { echo "$f: $(cat "$(fxr "$f" err)")"; return 1; }
		[[ "$output" == *"## 3. Top kernels"* ]]
		# python: the device event name with the largest total dur
		want=$(fact top "$f")
		if [ -n "$want" ]; then
			top=$(printf '%s\n' "$output" | sed -n '/## 3. Top kernels/,/## 4/p' |
			    grep '^| ' | sed -n 2p | cut -d'|' -f2 | sed 's/^ //; s/ $//')
			# a Markdown cell is cut at 60 characters (--width)
			oracle names_check.py is 60 "$want" "$top"
		fi
	done
}

@test "every fixture: no table of the report, of mct-group -o table (by name, short, op) or of mct-diff has two rows that look alike" {
	slow
	need_fixtures
	local f b n=0
	cd "$BATS_TEST_TMPDIR"
	for f in "$fixtures"/*.json*; do
		b=${f##*/}
		cp "$(fxr "$f" md)" "$b.md"
		mct-filter --device "$f" > dev.nd 2>/dev/null
		mct-group -o table dev.nd > "$b.name.txt" 2>/dev/null
		mct-group --by short -o table dev.nd > "$b.short.txt" 2>/dev/null
		mct-group --by name,args.grid -o table dev.nd > "$b.grid.txt" 2>/dev/null
		mct-flow -q --stack "$f" 2>/dev/null |
		    mct-group --by op,short -o table > "$b.op.txt" 2>/dev/null
		n=$((n + 1))
	done
	[ "$n" -gt 10 ]
	local a=$fixtures/kineto-diff-test.json.gz c=$fixtures/kineto-diff-control.json.gz
	if [ -f "$a" ] && [ -f "$c" ]; then
		mct-report --against "$c" "$a" > against.md 2>/dev/null
		grep -q '^## .*Against' against.md
		mct-diff --device -o table "$a" "$c" 2>/dev/null |
		    sed -n '/^name /,$p' > diff.txt
		[ "$(wc -l < diff.txt)" -gt 100 ]
	fi
	oracle names_check.py md ./*.md
	oracle names_check.py table ./*.txt
	# the check sees what it looks for: main's cut at 59 characters and …
	# made two rows of the diff trace's kernels alike
	if [ -f "$a" ]; then
		mct-filter --device "$a" | mct-group -a count -o tsv --no-header |
		    cut -f1 | cut -c1-59 | sort | uniq -d | grep -q .
	fi
}

@test "--output FILE writes the report there; -n sets the rows" {
	mct-report --output "$BATS_TEST_TMPDIR/r.md" -n 1 "$BATS_FILE_TMPDIR/seed.json"
	grep -q '^| kernel_kernel | 222 |' "$BATS_TEST_TMPDIR/r.md"
	! grep -q '^| kernel_kernel_1 | 222 | 11.77 s' "$BATS_TEST_TMPDIR/r.md"
	grep -q '^| (others) |' "$BATS_TEST_TMPDIR/r.md"
}

@test "a rules file that does not load (-r, MCT_RULES): one message naming its line, exit 2, no report" {
	cd "$BATS_TEST_TMPDIR"
	printf 'mine\tname == kernel_kernel\nbad\tph ==\n' > bad.rules
	run --separate-stderr mct-report -r bad.rules "$BATS_FILE_TMPDIR/seed.json"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	same "$stderr" "mct-report: bad.rules:2: a value is missing after the operator"
	MCT_RULES=bad.rules run --separate-stderr mct-report "$BATS_FILE_TMPDIR/seed.json"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	same "$stderr" "mct-report: bad.rules:2: a value is missing after the operator"
	MCT_RULES=/nonexistent.rules run --separate-stderr mct-report "$BATS_FILE_TMPDIR/seed.json"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == "mct-report: "*"/nonexistent.rules"* ]]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
	# the same rules less the bad line load, and name the categories
	head -n 1 bad.rules > good.rules
	run --separate-stderr mct-report -r good.rules "$BATS_FILE_TMPDIR/seed.json"
	[ "$status" -eq 0 ]
	grep -q '^| mine | ' <<< "$output"
}

@test "-r RULES names the categories; -u forces the unit" {
	run --separate-stderr mct-report -r "$MCT_SRCDIR/examples/moe.rules" "$BATS_FILE_TMPDIR/seed.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *"| MoE step1 gate/up projection (large) | 110 | 27.94 s |"* ]]
	run --separate-stderr mct-report -u ns "$BATS_FILE_TMPDIR/seed.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *"| time unit of the source | ns (given by --unit) |"* ]]
}

@test "stdin, - and errors: unreadable file, bad option, bad --top, bad --unit, two traces" {
	# stdin, gzip'ed: the file's report, named (stdin)
	gzip -c "$BATS_FILE_TMPDIR/small.json" | mct-report - > "$BATS_TEST_TMPDIR/r.md"
	grep -q '^| kernel_kernel | ' "$BATS_TEST_TMPDIR/r.md"
	same "$(cat "$BATS_TEST_TMPDIR/r.md")" \
	    "$(sed "s|$BATS_FILE_TMPDIR/small.json|(stdin)|" "$BATS_FILE_TMPDIR/small.md")"
	run --separate-stderr mct-report /nonexistent
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"/nonexistent"* ]]
	run --separate-stderr mct-report --top 0 x
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--top: invalid number '0'"* ]]
	run --separate-stderr mct-report --unit parsec x
	[ "$status" -eq 2 ]
	run --separate-stderr mct-report a b
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"one trace at a time"* ]]
	run --separate-stderr mct-report --bogus
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"Try 'mct-report --help'"* ]]
}

@test "-p DIR draws the four pictures (gnuplot), each non-trivial, linked from the report" {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed"
	export MCT_PLOTS="$MCT_SRCDIR/examples"
	run --separate-stderr mct-report -p "$BATS_TEST_TMPDIR/p" "$BATS_FILE_TMPDIR/seed.json"
	[ "$status" -eq 0 ]
	for p in timeline categories latency busy; do
		[ "$(wc -c < "$BATS_TEST_TMPDIR/p/$p.png")" -gt 5000 ]
		[[ "$output" == *"![$p]($BATS_TEST_TMPDIR/p/$p.png)"* ]]
		file "$BATS_TEST_TMPDIR/p/$p.png" 2>/dev/null | grep -q PNG ||
		    head -c 4 "$BATS_TEST_TMPDIR/p/$p.png" | grep -q PNG
	done
}

@test "--against B: a section of mct-diff tables, the slowed kernel first; an unreadable B exits 2" {
	cd "$BATS_TEST_TMPDIR"
	genf a.json --scale 0.05
	genf b.json --scale 0.05 --slow-kernel kernel_kernel --slow-factor-kernel 1.10
	run --separate-stderr mct-report --against b.json a.json
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > r.md
	grep -q '^## 10\. Against b\.json$' r.md
	grep -q '^| summary | a | b | delta | delta_pct |$' r.md
	# the section's tables are mct-diff --device's own, of the whole runs
	# (as Markdown, top rows)
	same "$(grep -A3 '^| category | count_a' r.md)" \
	    "$(mct-diff --device --by category -n 10 -o md a.json b.json |
	    sed '1,/^$/d' | head -4)"
	# the kernel table is mct-diff --by short's, the slowed kernel first
	# (mct-diff.bats checks its figures against the python3 oracle)
	first=$(mct-diff --device --by short -n 10 -o md a.json b.json |
	    sed '1,/^$/d' | sed -n 3p)
	[[ "$first" == "| kernel_kernel | "* ]]
	grep -qxF "$first" r.md
	grep -q '^By op (`mct-diff --device --by op`: the device time of the op that launched it):$' r.md
	run mct-report --against nonexistent.json a.json
	[ "$status" -eq 2 ]
}

@test "--metrics LOG: a device metrics section, kernel_kernel_1 on top of the bandwidth column" {
	# (tests/mct-metrics.bats checks the join itself)
	cd "$BATS_TEST_TMPDIR"
	gen --scale 0.02 --metrics g.csv --metrics-form csv > t.json
	if command -v gnuplot > /dev/null; then
		# with -p: the counters under the kernels, linked
		export MCT_PLOTS="$MCT_SRCDIR/examples"
		mct-report --metrics g.csv -p pl t.json > r.md
		[ "$(wc -c < pl/metrics.png)" -gt 10000 ]
		grep -q '^!\[kernels and device metrics\](pl/metrics.png)$' r.md
	else
		mct-report --metrics g.csv t.json > r.md
	fi
	sed -n '/^## [0-9]*\. Device metrics/,/^## /p' r.md > sec
	# (each counter's unit in its columns: below, against the log's header)
	grep -q '^| name | count | total | hbm_bw (mean, GB/s) | hbm_bw (max, GB/s) | sm_clock (mean, MHz) | sm_clock (max, MHz) |$' sec
	# the rows are mct-group's over the joined device lanes
	mct-cat t.json | mct-filter --device |
	    mct-metrics --join hbm_bw,sm_clock - g.csv |
	    mct-group -a 'mean:metrics.hbm_bw.mean' -o tsv --no-header > want
	kk1=$(awk -F'\t' '$1 == "kernel_kernel_1" { printf "%.2f", $2 }' want)
	[ -n "$kk1" ]
	grep -q "^| kernel_kernel_1 | [0-9]* | [^|]* | $kk1 |" sec
	same "$(grep '^| [a-z]' sec | sort -t'|' -k5,5gr | head -1 | cut -d'|' -f2)" \
	    " kernel_kernel_1 "
	# a log that cannot be read is an error
	run mct-report --metrics nothing.csv t.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"metric log nothing.csv: cannot read"* ]]
}

# The report's figures that python computes here (tests/report_oracle.py).
ro() {
	oracle report_oracle.py "$@"
}

# The rows of a Markdown table of section N of report R whose first cell
# is KEY, cells TAB apart.
md_rows() {
	sed -n "/^## $2\./,/^## /p" "$1" | grep -F "| $3 |" |
	    sed 's/^| //; s/ |$//; s/ | /\t/g'
}

@test "the GPU line: devices of two kinds, one without a name, a ; and a | in names: \"; \" between two devices once, as python's" {
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' '{"deviceProperties":[{"id":0,"name":"NVIDIA H100|x","numSms":132,"totalGlobalMem":85000000000},' \
	    '{"id":1,"name":"NVIDIA H100|x","numSms":132,"totalGlobalMem":85000000000},' \
	    '{"id":2,"name":"AMD Instinct; MI300","numSms":304},{"id":3},{"id":4,"name":""}],' \
	    '"otherData":{"device":{"name":"MXC500;a","count":8}},' \
	    '"traceEvents":[{"ph":"X","name":"k","pid":1,"tid":1,"ts":1,"dur":2,"cat":"kernel"}]}' > g.json
	printf '%s\n' '{"otherData":{"device":{"name":"C500","count":1}},' \
	    '"traceEvents":[{"ph":"X","name":"k","pid":1,"tid":1,"ts":1,"dur":2,"cat":"kernel"}]}' > b.json
	want=$(ro gpu g.json | awk 'NR > 1 { printf "; " } { printf "%s", $0 }')
	same "$want" '2 x NVIDIA H100|x, 132 SMs, 85.00 GB; AMD Instinct; MI300, 304 CUs (deviceProperties); 8 x MXC500;a (otherData.device)'
	mct-report g.json > r.md
	same "$(md_rows r.md 1 GPU | cut -f2)" "$(printf '%s' "$want" | sed 's/|/\\|/g')"
	mct-report -o html g.json > r.html
	grep -q -F "<td>GPU</td><td>$want</td>" r.html
	mct-report --against b.json g.json > d.md
	grep -q -x -F -e "- GPU of A: $want" d.md
	grep -q -x -F -e '- GPU of B: C500 (otherData.device)' d.md
	! grep -q ';  ' r.md d.md
}

@test "--against on the kineto-diff pair: the runs and the comparison count the same steps; the median step is python's" {
	need_fixtures
	a=$fixtures/kineto-diff-control.json.gz b=$fixtures/kineto-diff-test.json.gz
	[ -r "$a" ] && [ -r "$b" ] || skip "no kineto-diff-{control,test}.json.gz"
	cd "$BATS_TEST_TMPDIR"
	run --separate-stderr mct-report --against "$b" "$a"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > r.md
	IFS=$'\t' read -r na ma _ <<<"$(fact steps "$a")"
	IFS=$'\t' read -r nb mb _ <<<"$(fact steps "$b")"
	[ "$na" -gt 0 ] && [ "$nb" -gt 0 ]
	# the runs (section 4): the steady phases' rounds are A's steps, and
	# the steps' table has python's count and median
	# (the rounds column found by its name: a trace of a rank has a rank
	# column first)
	c=$(sed -n '/^## 4\./,/^## /p' r.md | grep -m1 '^| .* | rounds |' |
	    sed 's/^| //; s/ |$//; s/ | /\n/g' | grep -nx rounds | cut -d: -f1)
	[ -n "$c" ]
	same "$(md_rows r.md 4 steady | awk -F'\t' -v c="$c" '{ n += $c } END { print n }')" "$na"
	same "$(md_rows r.md 4 '(total)' | cut -f1-3)" "(total)	$na	$ma"
	# the comparison: the same steps, each run's median step
	grep -q "^| steady rounds | $na | $nb | " r.md
	grep -q "^| median round | $ma | $mb | " r.md
	# each run's GPU, beside its own
	grep -qxF -- "- GPU of A: $(fact gpu "$a")" r.md
	grep -qxF -- "- GPU of B: $(fact gpu "$b")" r.md
}

@test "median round is the median of the rounds (the steps' own times), the phases' mean is named mean round (generated Kineto steps)" {
	cd "$BATS_TEST_TMPDIR"
	# steps whose median is far from their mean
	ro kineto 1000,3000,1200,1100,5000 > a.json
	ro kineto 900,950,4000,910,920,930 > b.json
	run --separate-stderr mct-report --against b.json a.json
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > r.md
	IFS=$'\t' read -r na ma mean <<<"$(ro steps a.json)"
	IFS=$'\t' read -r nb mb _ <<<"$(ro steps b.json)"
	grep -q "^| steady rounds | $na | $nb | " r.md
	grep -q "^| median round | $ma | $mb | " r.md
	# mct-phases' round is the span of the steps over them: their mean,
	# called so
	grep -q '^| phase | start | end | span | events | busy_pct | rounds | mean round | top |$' r.md
	same "$(md_rows r.md 4 steady | cut -f7,8)" "$na	$mean"
	[ "$mean" != "$ma" ]
	! grep -q 'median round' <(sed -n '/^## 4\./,/^## 5\./p' r.md)
}

@test "times in the report have an adaptive unit: a 300 ns trace, an 8.39 ms trace, the collectives" {
	cd "$BATS_TEST_TMPDIR"
	printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1000.1,"dur":0.3}]}\n' > ns.json
	printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1000,"dur":8390}]}\n' > ms.json
	for f in ns.json ms.json; do
		run --separate-stderr mct-report "$f"
		[ "$status" -eq 0 ]
		same "$(grep '^| span (first start' <<<"$output")" \
		    "| span (first start to last end) | $(oracle producers_oracle.py span "$f") |"
	done
	[[ "$output" == *"| span (first start to last end) | 8.39 ms |"* ]]
	# the collectives and the waits: each time with its unit, python's
	gen --scale 0.02 --ranks 3 --slow-rank 1 --slow-factor 1.1 --out . > /dev/null
	mct-cat rank-*.json > job.nd
	run --separate-stderr mct-report job.nd
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > r.md
	grep -q '^| collective | n | start | skew | spread | last rank |$' r.md
	oracle ranks_oracle.py collectives job.nd > c.tsv
	awk -F'\t' 'NF == 9' c.tsv | sort -t$'\t' -k6,6gr -k3,3g | head -n 10 > top.tsv
	while IFS=$'\t' read -r name n start dur ranks skew spread first last; do
		grep -qxF "| $name | $n | $(ro human "$start") | $(ro human "$skew") | $(ro human "$spread") | $last |" r.md
	done < top.tsv
	[ -s top.tsv ]
	awk -F'\t' 'NF == 3' c.tsv > w.tsv
	while IFS=$'\t' read -r rank times wait; do
		grep -qxF "| $rank | $times | $(ro human "$wait") |" r.md
	done < w.tsv
	[ -s w.tsv ]
}

@test "--metrics LOG: each counter's unit in its columns, as the log's header gives it (both forms)" {
	cd "$BATS_TEST_TMPDIR"
	gen --scale 0.02 --metrics g.csv --metrics-form csv > t.json
	gen --scale 0.02 --metrics n.csv --metrics-form nvidia > u.json
	mct-metrics --sync '2026/12/02 07:00:00.000=@1712195480123456789' n.csv > n.nd
	for p in "t.json g.csv g.csv" "u.json n.nd n.csv"; do
		set -- $p
		head=$(mct-report --metrics "$2" "$1" | sed -n '/^## [0-9]*\. Device metrics/,$p' |
		    grep '^| name | count | total |')
		n=0
		while IFS=$'\t' read -r m u; do
			[[ "$head" == *"| $m (mean, $u) | $m (max, $u) |"* ]]
			n=$((n + 1))
		done < <(ro units "$3")
		[ "$n" -ge 2 ]
	done
}

@test "-o FORMAT: md (the default) or table, aligned as the tools' -o table; --output FILE writes a file; -o never does" {
	cd "$BATS_TEST_TMPDIR"
	# at small scale (the full-scale report is the seed tests')
	f=$BATS_FILE_TMPDIR/small.json
	same "$(mct-report -o md "$f")" "$(cat "$BATS_FILE_TMPDIR/small.md")"
	mct-report -o table "$f" > r.txt
	[ ! -e table ]
	! grep -q '^|' r.txt
	grep -qx '2. Device time by category' r.txt
	grep -qx -- '--------------------------' r.txt
	# a table of the report is the tool's own -o table
	want=$(mct-filter --device "$f" |
	    mct-group --by category -a count,total,share,mean,median,max -o table)
	same "$(sed -n '/^2\. Device time/,/^3\. Top/p' r.txt | grep -A100 '^category ' | sed '/^$/q' | sed '$d')" "$want"
	# a file only with --output
	mct-report --output r.md "$f" > out
	[ ! -s out ]
	cmp r.md "$BATS_FILE_TMPDIR/small.md"
	mct-report -o table --output=r.txt2 "$f"
	cmp r.txt r.txt2
	# a file name is no format; a format name given to --output is said
	run --separate-stderr mct-report -o r.md "$f"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "mct-report: -o: unknown format 'r.md' (want md, table or html)"* ]]
	[ -z "$output" ]
	run --separate-stderr mct-report --output table "$f"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"writing the report to the file 'table' (a format is -o table)"* ]]
	cmp table "$BATS_FILE_TMPDIR/small.md"
}

@test "empty input: an empty file or a trace of no events is 'no events' on stderr and exit 1, nothing on stdout" {
	cd "$BATS_TEST_TMPDIR"
	: > empty.json
	printf '{"traceEvents":[]}\n' > obj.json
	printf '[]\n' > arr.json
	gzip -c < empty.json > empty.json.gz
	for f in empty.json obj.json arr.json empty.json.gz; do
		run --separate-stderr mct-report "$f"
		[ "$status" -eq 1 ]
		[ -z "$output" ]
		[[ "$stderr" == *"mct-report: $f: no events"* ]]
	done
	run --separate-stderr mct-report - < obj.json
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"mct-report: (stdin): no events"* ]]
	# a run B of no events too
	run --separate-stderr mct-report --against obj.json "$BATS_FILE_TMPDIR/seed.json"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == *"mct-report: obj.json: no events"* ]]
	# and with --output, no file
	run mct-report --output r.md empty.json
	[ "$status" -eq 1 ]
	[ ! -e r.md ]
}

@test "mct-report(1) says in EXIT STATUS that a trace of no events exits 1" {
	docs
	mandoc -Tascii "$MCT_SRCDIR/man/mct-report.1" 2>/dev/null | col -b |
	    sed -n '/^EXIT STATUS/,/^EXAMPLES/p' | tr -s ' \n' ' ' |
	    grep -q '1[[:space:]].*no events'
}

@test "the GPU the trace names (deviceProperties, otherData.device) and the copies' bandwidth, as python's" {
	cd "$BATS_TEST_TMPDIR"
	genf k.json --scale 0.05 --keys-around
	ins=("$BATS_FILE_TMPDIR/seed.json" k.json)
	for f in kineto-diff-control.json.gz kineto-rocm62-mi250.json.gz \
	    kineto-h100-tiny.json chrome116-devtools.json; do
		[ -r "$fixtures/$f" ] && ins+=("$fixtures/$f")
	done
	ro facts "${ins[@]:0:2}" > facts
	for f in "${ins[@]}"; do
		echo "$f"
		case $f in
		"$fixtures"/*) cp "$(fxr "$f" md)" r.md; fs= ;;
		"$BATS_FILE_TMPDIR/seed.json") cp "$BATS_FILE_TMPDIR/seed.md" r.md; fs=facts ;;
		*) mct-report "$f" > r.md 2>/dev/null; fs=facts ;;
		esac
		want=$(fact gpu "$f" $fs | awk 'NR > 1 { printf "; " } { printf "%s", $0 }')
		got=$(md_rows r.md 1 GPU | cut -f2)
		same "$got" "$want"
		# the bandwidth of each copy: its bytes over its time; no copy
		# (python's (total) row alone): no table, but why
		if [ "$(fact copy "$f" $fs | wc -l)" -eq 1 ]; then
			sed -n '/^## 6\./,/^## /p' r.md | grep -q '^(none: no device work'
			! md_rows r.md 6 '(total)' | grep -q .
			continue
		fi
		while IFS=$'\t' read -r name bw; do
			same "$(md_rows r.md 6 "$name" | awk -F'\t' '{ print $NF }')" "$bw"
		done < <(fact copy "$f" $fs)
	done
	# both producers' keys are read
	grep -q '^| GPU | C500 (otherData.device) |$' "$BATS_FILE_TMPDIR/seed.md"
	grep -q '^| memcpy DTOD(device,device) | .* GB/s |$' "$BATS_FILE_TMPDIR/seed.md"
}

@test "a copy of no time has no bandwidth: '-', as python's, not inf (nor awk's division by zero)" {
	c='"ph":"X","cat":"gpu_memcpy","pid":0,"tid":7'
	cat > z.json <<-EOF
	{"traceEvents":[
	{$c,"name":"Memcpy HtoD (Pageable -> Device)","ts":10,"dur":0,"args":{"bytes":56}},
	{$c,"name":"Memcpy DtoH (Device -> Pageable)","ts":20,"dur":2,"args":{"bytes":2000}},
	{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":30,"dur":5}]}
	EOF
	mct-report z.json > r.md
	ro copies z.json > want
	grep -q '^Memcpy HtoD (Pageable -> Device)	-$' want
	while IFS=$'\t' read -r name bw; do
		same "$(md_rows r.md 6 "$name" | awk -F'\t' '{ print $NF }')" "$bw"
	done < want
	! grep -q inf r.md
}

@test "a run past two seconds shows where it is on a terminal's stderr, erased at the end; none when stderr is no terminal" {
	command -v script >/dev/null 2>&1 || skip "no script(1) to give the report a terminal"
	cd "$BATS_TEST_TMPDIR"
	genf small.json --scale 0.02
	# a trace that takes 2.5 s to arrive: the reading is the slow part
	mkfifo slow
	{ cat small.json; sleep 2.5; } > slow &
	script -qec "mct-report slow > r.md" typescript > /dev/null
	wait
	grep -q $'\r\033\\[Kmct-report: slow: reading the trace, 2 s' typescript
	# the line is erased before the end: the last thing said
	grep -q $' s\r\033\\[K$' typescript
	mct-report small.json | sed "s/small\.json/slow/g" | cmp - r.md
	# not a terminal: nothing but the report
	{ cat small.json; sleep 2.5; } > slow &
	run --separate-stderr mct-report slow
	wait
	[ "$status" -eq 0 ] && [ -z "$stderr" ]
}

@test "a trace with [memory] events has a Memory section: each device's peak and op as python computes them" {
	"$PYTHON3" "$MCT_SRCDIR/tests/genmem.py" --plain > mem.json
	mct-report mem.json > r.md
	oracle mem_oracle.py mem.json > or.txt
	# (the peak in bytes for people, as mct-mem -o md writes it)
	awk '$0 == "## summary" { on = 1; next } /^## / { on = 0 } on' or.txt |
	    cut -f1,3,6 | "$PYTHON3" -c '
import sys
sys.path.insert(0, sys.argv[1])
from report_oracle import nbytes
for l in sys.stdin:
    d, p, op = l.rstrip("\n").split("\t")
    print("%s\t%s\t%s" % (d, nbytes(int(p)), op))' "$MCT_SRCDIR/tests" > want
	[ "$(wc -l < want)" -gt 0 ]
	# the section's first table: device | peak | rel | step | module | op
	sed -n '/^## [0-9]*\. Memory$/,/^## /p' r.md |
	    awk '/^\| device \| peak/ { on = 1; next } on && /^$/ { exit }
		on && !/^\|---/' |
	    sed 's/^| //; s/ |$//; s/ | /\t/g' | cut -f1,2,6 > got
	same "$(cat got)" "$(cat want)"
	grep -q '^| device | step | op | allocs | bytes | frees | freed |$' r.md
	# no section without the events
	! grep -q 'Memory$' "$BATS_FILE_TMPDIR/seed.md"
	# the name written with an escape is the same name: the same report
	e=$BATS_TEST_TMPDIR/esc.json
	sed 's/"\[memory\]"/"\\u005bmemory]"/g' mem.json > "$e"
	grep -q -F '"\u005bmemory]"' "$e"
	mct-report "$e" | sed "s|$e|mem.json|g" | cmp - r.md
}

@test "the steps' table is read only where a step can be: a name written with a \\u escape still has it, a trace with no step has none" {
	cd "$BATS_TEST_TMPDIR"
	ro kineto 1000,3000,1200,1100,5000 > a.json
	grep -q 'ProfilerStep#' a.json
	sed 's/ProfilerStep#/Profiler\\u0053tep#/g' a.json > esc.json
	! grep -q 'ProfilerStep#' esc.json
	run --separate-stderr mct-report a.json
	[ "$status" -eq 0 ]
	want=$(sed -n "/^The profiler's training steps/,/^\$/p; /^| cat | count | median/,/^\$/p" <<<"$output")
	[[ "$want" == *"| cat | count | median"* ]]
	IFS=$'\t' read -r n med _ <<<"$(ro steps a.json)"
	[[ "$want" == *"| $n | $med |"* ]]
	run --separate-stderr mct-report esc.json
	[ "$status" -eq 0 ]
	same "$(sed -n "/^The profiler's training steps/,/^\$/p; /^| cat | count | median/,/^\$/p" <<<"$output")" "$want"
	printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1000,"dur":8390}]}\n' > none.json
	run --separate-stderr mct-report none.json
	[ "$status" -eq 0 ]
	[[ "$output" != *"training steps"* ]]
}

@test "the steps' table counts ProfilerStep# and a digit, as mct-phases' rounds: a ProfilerStep#x is no step" {
	cd "$BATS_TEST_TMPDIR"
	ro kineto 1000,3000,1200,1100,5000 > a.json
	# one more host event, of a name that is not a step's
	python3 -c '
import json, sys
d = json.load(open("a.json"))
ev = d["traceEvents"] if isinstance(d, dict) else d
s = next(e for e in ev if e.get("name", "").startswith("ProfilerStep#"))
x = dict(s); x["name"] = "ProfilerStep#x"; x["dur"] = 7000
ev.append(x)
json.dump(d, open("x.json", "w"))'
	grep -q 'ProfilerStep#x' x.json
	run --separate-stderr mct-report x.json
	[ "$status" -eq 0 ]
	IFS=$'\t' read -r n med _ <<<"$(ro steps x.json)"
	[ "$n" -eq 5 ]
	[[ "$output" == *"| user_annotation | 5 | $med |"* ]]
	[[ "$output" == *"--match '^ProfilerStep#[0-9]'"* ]]
}

@test "the overview's devices and processes are the names of the M process_name events, each once, not the threads' names" {
	cd "$BATS_TEST_TMPDIR"
	cat > t.json <<'JSON'
{"traceEvents":[
{"ph":"M","name":"process_name","pid":2,"args":{"name":"GPU 0"}},
{"ph":"M","name":"process_name","pid":1,"args":{"name":"python3"}},
{"ph":"M","name":"process_name","pid":3,"args":{"name":"python3"}},
{"ph":"M","name":"thread_name","pid":1,"tid":7,"args":{"name":"thread 7 (python3)"}},
{"ph":"M","name":"thread_name","pid":2,"tid":5,"args":{"name":"stream 5"}},
{"ph":"M","name":"process_labels","pid":2,"args":{"labels":"x"}},
{"ph":"X","cat":"kernel","name":"k","pid":2,"tid":5,"ts":1000,"dur":20},
{"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":7,"ts":990,"dur":40}
]}
JSON
	want=$(python3 -c '
import json
ev = json.load(open("t.json"))["traceEvents"]
print(", ".join(sorted({e["args"]["name"] for e in ev
    if e.get("ph") == "M" and e.get("name") == "process_name"})))')
	[ "$want" = "GPU 0, python3" ]
	run --separate-stderr mct-report t.json
	[ "$status" -eq 0 ]
	same "$(grep '^| devices and processes' <<<"$output")" \
	    "| devices and processes (M process_name) | $want |"
}

# sync.json: a Kineto trace of three steps (ro kineto) and what is not
# to be paired as device work: a cudaEventSynchronize and its cuda_sync
# (a wait with a correlation id), a kernel whose id no launch has, a
# kernel with no id.  flows.json: two Chrome slices an s/f flow joins,
# a pair of mct-flow's but no device work.
sync_traces() {
	ro kineto 1000,3000,1200 > k.json
	"$PYTHON3" - <<'PY'
import json
d = json.load(open("k.json"))
ev = d["traceEvents"]
host, dev = {"pid": 100, "tid": 100}, {"pid": 0, "tid": 7}
ev += [dict(ph="X", cat="cuda_runtime", name="cudaEventSynchronize", ts=5300,
            dur=600, args={"correlation": 900}, **host),
       dict(ph="X", cat="cuda_sync", name="Event Sync", ts=5310, dur=580,
            args={"correlation": 900}, **dev),
       dict(ph="X", cat="kernel", name="orphan_kernel", ts=6000, dur=300,
            args={"correlation": 901}, **dev),
       dict(ph="X", cat="kernel", name="free_kernel", ts=6400, dur=200, **dev)]
json.dump(d, open("sync.json", "w"))
s = {"pid": 1, "tid": 1}
json.dump({"traceEvents": [
    dict(ph="X", cat="input", name="InputLatency::TouchStart", ts=100, dur=50, **s),
    dict(ph="s", cat="input", name="flow", id=7, ts=120, **s),
    dict(ph="X", cat="input", name="Dispatch", ts=300, dur=40, pid=1, tid=2),
    dict(ph="f", cat="input", name="flow", id=7, ts=310, bp="e", pid=1, tid=2)]},
    open("flows.json", "w"))
PY
}

# The pairs of report R as sections 5, 8 and 9 show them, against
# python's (report_oracle.py pairs TRACE): each launching API's row of
# section 5 and the (total) rows of 5, 8 and 9; the device work with no
# launch said in each of the three, or nowhere where there is none.
check_pairs() {
	local r=$1 t=$2 n tot name c hs dt nn nt sh
	ro pairs "$t" > pairs
	! grep -q '^flow$' pairs
	IFS=$'\t' read -r _ n tot < <(grep '^pairs	' pairs)
	if [ "$n" = 0 ]; then
		for sec in 5 8 9; do
			sed -n "/^## $sec\\./,/^## /p" "$r" | grep -q '^(none: '
		done
		! md_rows "$r" 5 '(total)' | awk -F'\t' 'NF == 4' | grep -q .
	else
		same "$(md_rows "$r" 5 '(total)' | awk -F'\t' 'NF == 4' | cut -f2,4)" "$n	$tot"
		while IFS=$'\t' read -r _ name c hs dt; do
			grep -qxF "| $name | $c | $hs | $dt |" "$r"
		done < <(grep '^launch	' pairs)
		same "$(md_rows "$r" 8 '(total)' | cut -f2)" "$n"
		same "$(md_rows "$r" 9 '(total)' | head -1 | cut -f2,3)" "$n	$tot"
	fi
	if IFS=$'\t' read -r _ nn nt sh < <(grep '^nolaunch	' pairs); then
		for sec in 5 8 9; do
			sed -n "/^## $sec\\./,/^## /p" "$r" | tr '\n' ' ' |
			    grep -qF "$nn device event$([ "$nn" = 1 ] || echo s) ($nt, $sh of the device time) ha"
		done
	else
		! grep -q 'no launch in the trace' "$r"
	fi
}

@test "sections 5, 8 and 9 count only device work (no cuda_sync, no flow between browser slices) and say what has no launch, as python's" {
	sync_traces
	for t in sync.json flows.json k.json; do
		mct-report "$t" > r.md
		echo "$t"
		check_pairs r.md "$t"
	done
	# the cuda_sync is neither a launch's device time nor a latency
	! sed -n '/^## 5\./,/^## 10\./p' r.md | grep -q cudaEventSynchronize
	mct-report sync.json > r.md
	! sed -n '/^## 8\./,/^## 10\./p' r.md | grep -q -e cudaEventSynchronize -e 'Event Sync'
	grep -q "^2 device events (500.00 us, " r.md
	# --against: of B's pairs too only the device work
	mct-report --against sync.json k.json > a.md
	same "$(sed -n '/^By op/,/^## /p' a.md | grep '^| (no op) |' | cut -d'|' -f3,4)" " 7 | 7 "
	# the fixtures: Kineto's cuda_sync, device work with no launch, Chrome's
	# flows; the seed's shape (times past 2^31 ns, as awk prints them)
	for f in hta-critical-path-event-sync.json.gz kineto-resnet50-array.pt.trace.json.gz \
	    chrome-android-threadtime.json.gz pytorch-small.pt.trace.json small.json; do
		case $f in
		pytorch-small*) t=$MCT_SRCDIR/examples/$f; mct-report "$t" > r.md ;;
		small.json) t=$BATS_FILE_TMPDIR/$f; cp "$BATS_FILE_TMPDIR/small.md" r.md
			grep -q '^pairs	1,[0-9]*	[0-9.]* s$' <(ro pairs "$t") ;;
		*) t=$fixtures/$f; [ -r "$t" ] || continue; cp "$(fxr "$t" md)" r.md ;;
		esac
		echo "$t"
		check_pairs r.md "$t"
	done
}

# Flow mode (no correlation id, s/f ends): a kernel slice that two flows
# bind is the device end of two of mct-flow's pairs (mct-flow(1)), yet
# one device event with a launch.  bind2: both f ends inside k1 ("bp":
# "e"); gap2: both in the gap before k3, without "bp": each binds to the
# next slice.  The device work with no launch, as python's (report_oracle.py
# nolaunch, which ties each device event to a launch once).
@test "the device work with no launch counts a slice that two flows bind once, as python's" {
	"$PYTHON3" - <<'PY'
import json
h, d = {"pid": 1, "tid": 1}, {"pid": 2, "tid": 7}
x = [dict(ph="X", cat="cuda_runtime", name="cudaLaunchKernel", ts=0, dur=10, **h),
     dict(ph="X", cat="cuda_runtime", name="cudaLaunchKernel", ts=20, dur=10, **h),
     dict(ph="X", cat="kernel", name="k1", ts=50, dur=100, **d),
     dict(ph="X", cat="kernel", name="k2", ts=200, dur=10, **d),
     dict(ph="X", cat="kernel", name="k3", ts=300, dur=30, **d)]
def flows(ts, **bp):
    return [dict(ph="s", cat="ac2g", name="ac2g", id=1, ts=5, **h),
            dict(ph="s", cat="ac2g", name="ac2g", id=2, ts=25, **h),
            dict(ph="f", cat="ac2g", name="ac2g", id=1, ts=ts, **bp, **d),
            dict(ph="f", cat="ac2g", name="ac2g", id=2, ts=ts, **bp, **d)]
json.dump({"traceEvents": x + flows(50, bp="e")}, open("bind2.json", "w"))
json.dump({"traceEvents": x + flows(250)}, open("gap2.json", "w"))
PY
	for t in bind2 gap2; do
		echo "$t"
		# two pairs, one slice
		run --separate-stderr bash -c 'mct-flow --device "$0" |
		    mct-cat -o tsv --no-header -F name | sort | uniq -c' "$t.json"
		[ "$(echo $output)" = "2 $([ $t = bind2 ] && echo k1 || echo k3)" ]
		ro nolaunch "$t.json" > nl
		grep -qx 'mode	flow' nl
		IFS=$'\t' read -r _ nn nt sh < <(grep '^nolaunch	' nl)
		[ "$nn" = 2 ]
		mct-report "$t.json" > r.md
		for sec in 5 8 9; do
			sed -n "/^## $sec\\./,/^## /p" r.md | tr '\n' ' ' |
			    grep -qF "$nn device events ($nt, $sh of the device time) have no launch in the trace"
		done
	done
}

@test "the modules' table says its (total) is the launches inside a module: how many of the pairs, their share, as python's" {
	t=$MCT_SRCDIR/examples/pytorch-small.pt.trace.json
	mct-report "$t" > r.md
	# python's pairs, each with its module (stack_oracle.py); all are
	# device work here (report_oracle.py pairs)
	oracle stack_oracle.py total "$t" > tot
	read -r np ns < tot
	IFS=$'\t' read -r _ n _ < <(ro pairs "$t" | grep '^pairs	')
	[ "${n//,/}" -eq "$np" ]
	oracle stack_oracle.py by module "$t" > mods
	read -r nm sm < <(awk -F'\t' '{ n += $2; s += $3 } END { print n, s }' mods)
	[ "$nm" -gt 0 ] && [ "$nm" -lt "$np" ]
	sh=$("$PYTHON3" -c "print('%.2f%%' % (100 * $sm / $ns))")
	sed -n '/^## 9\./,/^## /p' r.md | tr '\n' ' ' |
	    grep -qF "Top modules (\`mct-group --by module\`): only the launches inside an \`nn.Module\`, here $nm of the $np paired device events; the shares are of all their device time, so the (total) row's $sh is the part of it that lies in some module:"
	same "$(md_rows r.md 9 '(total)' | sed -n 2p | cut -f2,4)" "$nm	$sh"
	# every pair in a module (bert-h100): said so
	f=$fixtures/kineto-bert-h100.json.gz
	if [ -r "$f" ]; then
		read -r np _ < <(oracle stack_oracle.py total "$f")
		oracle stack_oracle.py by module "$f" > mods
		[ "$(awk -F'\t' '{ n += $2 } END { print n }' mods)" -eq "$np" ]
		sed -n '/^## 9\./,/^## /p' "$(fxr "$f" md)" | tr '\n' ' ' |
		    grep -qF "Top modules (\`mct-group --by module\`): all $np paired device events are inside an \`nn.Module\`:"
	fi
	# mct-report(1) says so
	docs
	mandoc -Tascii "$MCT_SRCDIR/man/mct-report.1" 2>/dev/null | col -b |
	    tr -s '[:space:]' ' ' | grep -q '"(total)" row is the launches inside one' 
}

# Every Markdown table of report R with no row but a (total) row,
# printed.
total_only() {
	awk '/^\|/ { t[++n] = $0; next }
	    { if (n == 3 && t[3] ~ /^\| \(total\) \|/) print t[1]; n = 0 }
	    END { if (n == 3 && t[3] ~ /^\| \(total\) \|/) print t[1] }' "$1"
}

@test "a table of no rows is (none), and says why where the report knows it" {
	sync_traces
	# a trace of no device work; one with no grid, no copy and no op
	printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":5},{"ph":"X","cat":"cuda_runtime","name":"cudaGetDevice","pid":1,"tid":1,"ts":20,"dur":1}]}\n' > host.json
	printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1000,"dur":8390}]}\n' > dev.json
	mct-report host.json > host.md
	mct-report dev.json > dev.md
	mct-report sync.json > sync.md
	mct-report flows.json > flows.md
	for s in 2 3 6 7; do
		sed -n "/^## $s\\./,/^## /p" host.md | grep -qx '(none: no device work in this trace)'
	done
	sed -n '/^## 5\./,/^## 6\./p' host.md | grep -q '^| cudaGetDevice | 1 |'
	grep -qx '(none: no device event records a grid or block)' dev.md
	grep -qx '(none: no device work in the category memcpy/copy)' dev.md
	grep -qx '(none: no device work in that category)' dev.md
	grep -qx '(none: no call the rules label MXMACA, CUDA or HIP runtime or CUDA driver)' dev.md
	# (launches, latency, ops, modules and their kernels)
	[ "$(grep -cx '(none: no device event is tied to a launch by a correlation id or a flow)' dev.md)" -eq 6 ]
	[ "$(grep -cxF '(none: no launch inside an op or an `nn.Module`)' sync.md)" -eq 2 ]
	grep -qx '(none: no complete event (`ph` X) in this trace)' <(gen --scale 0.01 --be | mct-report -)
	[ "$(grep -cx '(none: no device work in this trace)' flows.md)" -ge 9 ]
	# no table is a (total) row alone, in these or the fixtures' reports
	for r in host.md dev.md sync.md flows.md "$BATS_FILE_TMPDIR/seed.md" \
	    "$BATS_FILE_TMPDIR"/fx/*.md; do
		[ -e "$r" ] || continue
		same "$(total_only "$r")" ""
	done
	# an op but no module (hta's trace records ops, no nn.Module)
	f=$fixtures/hta-critical-path-event-sync.json.gz
	if [ -r "$f" ]; then
		[ "$(grep -cxF '(none: no launch inside an `nn.Module`)' "$(fxr "$f" md)")" -eq 2 ]
	fi
	docs
	mandoc -Tascii "$MCT_SRCDIR/man/mct-report.1" 2>/dev/null | col -b |
	    tr -s '[:space:]' ' ' > man.txt
	grep -qF '"(none: no launch inside an op or an nn.Module)"' man.txt
	grep -qF '"(none: no device event records a grid or block)"' man.txt
}

@test "the reasons are true: device work the rules hide is still device work; a step name's backslashes are printed as written (dash's echo would read them); counts past 2^31 in the report's awk" {
	# a kernel every rule hides (label -): section 2 has no category, but
	# the device lanes (section 3) have it, and no section says otherwise
	printf '%s\n' '{"traceEvents":[{"ph":"X","cat":"kernel","name":"add_kernel","pid":0,"tid":7,"ts":1,"dur":20}]}' > hide.json
	printf -- '-\tname~.\n' > hide.rules
	mct-report -r hide.rules hide.json > hide.md
	sed -n '/^## 2\./,/^## 3\./p' hide.md | grep -qx '(none: the rules give no device event a category)'
	sed -n '/^## 3\./,/^## 4\./p' hide.md | grep -q '^| add_kernel | 1 |'
	! grep -q 'no device work in this trace' hide.md
	# the median step (no event in it) named with a backslash and a bar
	printf '%s\n' '{"traceEvents":[' \
	    '{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1\\n| x | y","pid":100,"tid":100,"ts":1000,"dur":50},' \
	    '{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2\\n| x | y","pid":100,"tid":100,"ts":2000,"dur":80},' \
	    '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":5000,"dur":20}]}' > nl.json
	mct-report nl.json > nl.md
	sed -n '/Critical path$/,$p' nl.md > crit
	# (the name as mct-path writes it, tsv: its backslash doubled)
	[ "$(grep -cxF -e '(none: ProfilerStep#1\\n| x | y, the median of 2 steps, has no host op or device event)' \
	    -e '(none: ProfilerStep#2\\n| x | y, the median of 2 steps, has no host op or device event)' crit)" -eq 2 ]
	! grep -q '^| x | y' nl.md
	# the report's awk helpers: a count past 2^31 keeps its digits (mawk's
	# %d stops at 2^31 - 1)
	fmt=$(sed -n "/^fmt_awk='/,/^'/p" "$MCT_BUILDDIR/tools/mct-report" | sed "1s/^fmt_awk='//; \$d")
	[ -n "$fmt" ]
	same "$(awk "$fmt"'BEGIN { print sep(12345678901) }')" "12,345,678,901"
}

@test "the overview's devices row: a | in a process name is \|, a newline in it stays \n: the table stays one table (md and html)" {
	printf '%s\n' '{"traceEvents":[' \
	    '{"ph":"M","name":"process_name","pid":0,"args":{"name":"GPU|0"}},' \
	    '{"ph":"M","name":"process_name","pid":1,"args":{"name":"host\nside"}},' \
	    '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":5000,"dur":20}]}' > dv.json
	mct-report dv.json > dv.md
	grep -qxF '| devices and processes (M process_name) | GPU\|0, host\nside |' dv.md
	# every row of the overview's table has its 2 cells (3 bars not \|)
	same "$(sed -n '/^## 1\./,/^All /p' dv.md | grep '^|' | sed 's/\\|//g' |
	    awk -F'|' '{ print NF }' | sort -u)" 4
	mct-report -o html dv.json > dv.html
	grep -qF 'GPU|0, host\nside' dv.html
}

@test "--against a trace of metadata only: the message names it, not a temporary file (exit 2)" {
	printf '%s\n' '{"traceEvents":[{"ph":"M","name":"process_name","pid":0,"args":{"name":"GPU"}}]}' > meta.json
	run --separate-stderr mct-report --against meta.json "$MCT_SRCDIR/examples/pytorch-small.pt.trace.json"
	[ "$status" -eq 2 ]
	same "$stderr" "mct-diff: meta.json: run B has no events: nothing to compare"
}

@test "the critical path: where there is none, why (the median step, of how many, mct-path's reason; a cycle is exit 1); what top and the names' table sum" {
	cat > es.json <<'EOF2'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":100,"tid":100,"ts":1000,"dur":50},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":100,"tid":100,"ts":2000,"dur":80},
{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":5000,"dur":20}
]}
EOF2
	mct-report es.json > r.md
	IFS=$'\t' read -r n _ < <(ro steps es.json)
	[ "$n" -eq 2 ]
	# the step mct-path names, and that it has no path
	mct-path --steps median -o md es.json 2> said > /dev/null
	med=$(sed -n 's/^mct-path: median of 2 steps: //p' said)
	[ -n "$med" ]
	grep -q 'no host op or device event: no path' said
	sed -n '/Critical path$/,$p' r.md > crit
	[ "$(grep -cxF "(none: $med, the median of $n steps, has no host op or device event)" crit)" -eq 2 ]
	# the whole trace of B/E events: not without --pair-be
	gen --scale 0.01 --be > be.json
	mct-report be.json | sed -n '/Critical path$/,$p' > crit
	[ "$(grep -cxF '(none: the trace has no host op or device event; B/E events count only with `mct-path --pair-be`)' crit)" -eq 2 ]
	f=$fixtures/kineto-rocm62-mi250.json.gz
	if [ -r "$f" ]; then
		grep -qxF '(none: ProfilerStep#2, the median of 2 steps, has no host op or device event)' "$(fxr "$f" md)"
	fi
	# a kernel that ends before its launch starts: a cycle, as mct-path
	# says (its step has none: the whole trace)
	cycle_trace > cyc.json
	mct-path -q --steps median cyc.json 2>&1 >/dev/null | grep -q 'nodes in a cycle (times out of order): no path$'
	mct-report cyc.json 2>/dev/null | sed -n '/Critical path$/,$p' > crit
	[ "$(grep -cxF '(none: the trace has a cycle in its graph, its times out of order)' crit)" -eq 2 ]
	# and exit 1, as mct-path's
	run --separate-stderr mct-report cyc.json
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"nodes in a cycle (times out of order): no path"* ]]
	# a path: what its top is; the table under it sums each name's events
	r=$BATS_FILE_TMPDIR/small.md
	sed -n '/Critical path$/,$p' "$r" > crit
	grep -qxF 'a row'"'"'s `top` is a single event, the one of its kind with the most time on it:' crit
	grep -qxF 'The names with the most time on it, each name'"'"'s events on the path summed' crit
	# (that sum, by python: the events of the first name on it)
	mct-path -q -o md --events ev.nd "$BATS_FILE_TMPDIR/small.json" > /dev/null
	IFS=$'\t' read -r kind name tot _ < <(sed -n '/^The names with/,$p' crit |
	    grep -m1 -A1 '^|---' | sed -n 2p | sed 's/^| //; s/ |$//; s/ | /\t/g')
	[ -n "$name" ]
	want=$("$PYTHON3" -c '
import json, sys
s = sum(e["crit"] for e in map(json.loads, open("ev.nd"))
        if e.get("kind") == sys.argv[1] and e.get("name") == sys.argv[2])
print(s)' "$kind" "$name")
	same "$tot" "$(ro human "$want")"
}

@test "the overview: events, then of them ph X, s, f and M in that order and the others, adding up, as python's" {
	ins=("$BATS_FILE_TMPDIR/small.json")
	for f in hta-critical-path-event-sync.json.gz kineto-bert-h100.json.gz \
	    ansible-unterminated.json chrome116-devtools.json; do
		[ -r "$fixtures/$f" ] && ins+=("$fixtures/$f")
	done
	for f in "${ins[@]}"; do
		echo "$f"
		case $f in
		"$fixtures"/*) cp "$(fxr "$f" md)" r.md ;;
		*) cp "$BATS_FILE_TMPDIR/small.md" r.md ;;
		esac
		IFS=$'\t' read -r -a want < <(ro ph "$f")
		{
			echo "| events | ${want[0]} |"
			for w in "${want[@]:1}"; do
				case $w in
				other\ *) echo "| of which other \`ph\` (below) | ${w#other } |" ;;
				*) echo "| of which \`ph\` ${w%% *} | ${w#* } |" ;;
				esac
			done
		} > want
		same "$(sed -n '/^## 1\./,/^## 2\./p' r.md | grep -e '^| events |' -e '^| of which ')" "$(cat want)"
	done
}

@test "the steps' line says they are the rounds only where a rank has 3 or more (mct-phases' rule)" {
	ro kineto 1000,2000 > k2.json
	ro kineto 1000,3000,1200 > k3.json
	mct-cat k2.json k3.json > job.nd
	for t in k2.json k3.json job.nd; do
		mct-report "$t" > r.md
		line=$(grep "^The profiler's training steps" r.md)
		# python's count of steps of each rank
		case $t in
		job.nd) IFS=$'\t' read -r lo _ < <(ro steps k2.json)
			IFS=$'\t' read -r hi _ < <(ro steps k3.json) ;;
		*) IFS=$'\t' read -r lo _ < <(ro steps "$t"); hi=$lo ;;
		esac
		echo "$t $lo $hi: $line"
		if [ "$lo" -ge 3 ]; then
			[[ "$line" == *", the rounds where there are 3 or more, each" ]]
		elif [ "$hi" -ge 3 ]; then
			[[ "$line" == *", the rounds on the ranks where there are 3 or more, each" ]]
		else
			[[ "$line" == *", fewer than 3 and so not the phases' rounds, each" ]]
		fi
		# as mct-phases takes them: a steady phase of the steps, or none
		n=$(mct-phases -o tsv --no-header "$t" | awk -F'\t' '$1 == "steady" || $2 == "steady"' | wc -l)
		if [ "$hi" -ge 3 ]; then [ "$n" -ge 1 ]; else [ "$n" -eq 0 ]; fi
	done
}
