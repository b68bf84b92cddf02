#!/usr/bin/env bats
# The tools on every producer's traces: the device lanes of
# mct(7) for Kineto (CUDA, ROCm), MTIA, mcTracer and rocmProfileData;
# mct-report's launch figures, pictures and their legend; the README's
# tour as written; the help texts and .gitignore.  Numbers against
# python3 json (tests/producers_tools_oracle.py), on small generated traces and
# on the fixtures in ../shared/fixtures.

load helpers

po() {
	oracle producers_tools_oracle.py "$@"
}

setup_file() {
	light_trace
	bats_require_minimum_version 1.5.0
	genf "$BATS_FILE_TMPDIR/seed.json" --scale 0.02
	oracle producers_tools_oracle.py mtia 300 \
	    > "$BATS_FILE_TMPDIR/mtia.json"
	printf '%s\n' '{"traceEvents":[' \
	    '{"ph":"M","name":"process_name","pid":1,"ts":0,"args":{"name":"host"}},' \
	    '{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":10,"dur":5},' \
	    '{"ph":"X","cat":"cuda_runtime","name":"cudaMalloc","pid":1,"tid":1,"ts":20,"dur":5}' \
	    ']}' > "$BATS_FILE_TMPDIR/host.json"
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
}

# --device against the oracle: count and total dur.
device_agrees() {
	local want got

	want=$(po device "$1")
	got=$(mct-filter --device --no-meta -o tsv --no-header -F dur "$1" |
	    awk '{ n++; t += $1 } END { printf "%d %d\n", n, t }')
	same "$got" "$want"
}

@test "--device: the device lanes of mcTracer (pid 2, 3) and MTIA (mtia_ccp_events), against python" {
	device_agrees "$BATS_FILE_TMPDIR/seed.json"
	device_agrees "$BATS_FILE_TMPDIR/mtia.json"
	same "$(mct-filter --device -c "$BATS_FILE_TMPDIR/mtia.json")" 300
	same "$(mct-filter --device -c "$BATS_FILE_TMPDIR/host.json")" 0
}

@test "--device on the fixtures: Kineto CUDA and ROCm, early Kineto, rocmProfileData, Chrome (none)" {
	need_fixtures
	for f in kineto-bert-mi300.json.gz kineto-rocm62-mi250.json.gz \
	    kineto-h100-tiny.json kineto-rank0-of-2-nccl.json.gz \
	    rpd-matmul-string-ts.json; do
		device_agrees "$fixtures/$f" || { echo "in $f"; return 1; }
	done
	# cuda_sync has a correlation id but is a wait, not work
	same "$(mct-filter --device -c "$fixtures/kineto-h100-tiny.json")" 1
}

@test "the default rules: rocmProfileData's copies (CopyHostToDevice ...) are memcpy/copy, FillBuffer a memset, its Tensile Cijk_ BLAS/GEMM; an mcTracer Cijk_ (args.co_id) stays mcBLAS/GEMM; against python" {
	need_fixtures
	f=$fixtures/rpd-matmul-string-ts.json
	got=$(mct-filter --device "$f" | mct-group --by category -a count,total -o tsv --no-header | sort)
	want=$("$PYTHON3" -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
ev = [e for e in (d if isinstance(d, list) else d["traceEvents"])
      if e.get("ph") == "X" and str(e.get("pid")) == "2" and "cat" not in e]
def lab(n):
    if re.match(r"Copy(Host|Device)To(Host|Device)$", n): return "memcpy/copy"
    if n == "FillBuffer": return "sort/hist/memset"
    if n.startswith("Cijk_"): return "BLAS/GEMM"
    return None
t = {}
for e in ev:
    l = lab(e["name"])
    if l:
        c = t.setdefault(l, [0, 0]); c[0] += 1; c[1] += int(e["dur"]) * 1000
for l in sorted(t): print("%s\t%d\t%d" % (l, t[l][0], t[l][1]))
' "$f")
	[ "$(wc -l <<<"$want")" -eq 3 ]
	same "$(grep -e '^memcpy/copy' -e '^sort/hist/memset' -e '^BLAS/GEMM' <<<"$got")" "$want"
	# a Tensile kernel of mcTracer (args.co_id) keeps the seed's label
	printf '%s\n' '{"traceEvents":[{"name":"Cijk_Ailk_Bljk_x","ph":"X","pid":2,"tid":1,"ts":1,"dur":2,"args":{"co_id":7}},{"name":"Cijk_Ailk_Bljk_y","ph":"X","pid":2,"tid":1,"ts":5,"dur":2}]}' > t.json
	same "$(mct-group --by name,category -a count -o tsv --no-header t.json)" \
	    "$(printf 'Cijk_Ailk_Bljk_x\tmcBLAS/GEMM\t1\nCijk_Ailk_Bljk_y\tBLAS/GEMM\t1')"
}

@test "MTIA: mct-flow pairs every launch, mct-phases and mct-report see the device work" {
	m=$BATS_FILE_TMPDIR/mtia.json
	same "$(mct-flow -q "$m" | mct-filter -c --where launch.name)" 300
	run --separate-stderr mct-phases "$m"
	[ "$status" -eq 0 ]
	same "$(tail -n +2 <<<"$output" | jq -s 'map(.events) | add')" 300
	run --separate-stderr mct-report "$m"
	[ "$status" -eq 0 ]
	# the top kernels table sums to every device event
	same "$(awk '/^## 3/,/^By launch/' <<<"$output" | grep '^| (total)' |
	    cut -d'|' -f3 | tr -d ' ,')" 300
	po launchcfg <(printf '%s\n' "$output") "$m"
}

@test "mct-report: Kineto's launch figures (registers per thread, shared memory, blocks per SM, occupancy) and the timeline's legend (top 8 kernels), against python" {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed"
	need_fixtures
	f=$fixtures/kineto-bert-h100.json.gz
	mkdir gp
	cp "$MCT_SRCDIR"/examples/plots.sh "$MCT_SRCDIR"/examples/*.gp gp/
	# a timeline.gp that keeps its data instead of drawing it
	printf '%s\n' 'system(sprintf("cp %s %s.tsv", data, out))' > gp/timeline.gp
	MCT_PLOTS=$PWD/gp mct-report -p pics "$f" > r.md
	grep -q '^By launch configuration.*max:args."registers per thread"' r.md
	po launchcfg r.md "$f"
	po timeline pics/timeline.png.tsv "$f"
	# ROCm's Kineto writes no registers per thread: no such column
	mct-report "$fixtures/kineto-rocm62-mi250.json.gz" > r.md
	! grep -q 'registers' r.md
}

@test "mct-report: mcTracer's launch figures are still read" {
	mct-report "$BATS_FILE_TMPDIR/seed.json" > r.md
	grep -q '^By launch configuration.*max:args.registers_per_thread,max:args.dynamic_shared`' r.md
	po launchcfg r.md "$BATS_FILE_TMPDIR/seed.json"
}

@test "mct-report -p on a trace with no device events: exit 0, a note, no picture" {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed"
	run --separate-stderr mct-report -p pics "$BATS_FILE_TMPDIR/host.json"
	[ "$status" -eq 0 ]
	grep -qx '(no device events: no pictures)' <<<"$output"
	! grep -q 'png' <<<"$output"
	[ -z "$(ls pics 2>/dev/null)" ]
	! grep -qi 'gnuplot\|line [0-9]' <<<"$stderr"
}

@test "mct-report -p exits 0 on the fixtures, and leaves no empty picture" {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed"
	need_fixtures
	for f in kineto-h100-tiny.json chrome116-devtools.json; do
		rm -rf pics
		run --separate-stderr mct-report -p pics "$fixtures/$f"
		[ "$status" -eq 0 ] || { echo "$f: $stderr"; return 1; }
		for p in pics/*.png; do
			[ -e "$p" ] || continue
			[ -s "$p" ] || { echo "$f: empty $p"; return 1; }
			grep -q "($p)" <<<"$output"
		done
		# every picture linked is there
		for p in $(grep -o 'pics/[a-z]*\.png' <<<"$output"); do
			[ -s "$p" ]
		done
	done
}

# The README's tour, each line as written, on trace.json.
tour() {
	sed -n '/^## A 30-second tour/,/^- `mct-cat`/p' "$MCT_SRCDIR/README.md" |
	    grep '^    mct' | sed 's/^    //; s/  *# .*//'
}

@test "README: the tour works as written on a Kineto trace" {
	docs
	need_fixtures
	[ "$(tour | wc -l)" -ge 8 ]
	grep -q 'pt.trace.json.gz' <<<"$(tour)"
	for t in "$fixtures/kineto-bert-h100.json.gz"; do
		gzip -dcf "$t" > trace.json
		gzip -c trace.json > trace.json.gz
		cp trace.json.gz rank0.pt.trace.json.gz
		# two runs of one job (mct-diff), and a metric log on the
		# trace's clock (mct-metrics): a sample every 100 us of its span
		cp trace.json.gz main.json.gz
		cp trace.json.gz pr.json.gz
		"$PYTHON3" -c '
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"]
      if isinstance(e.get("ts"), (int, float)) and e.get("ph") != "M"]
lo = int(min(e["ts"] for e in ev) * 1000)
hi = int(max(e["ts"] + e.get("dur", 0) for e in ev) * 1000)
print("time_ns,gpu,hbm_bw [GB/s]")
for t in range(lo, hi + 100000, 100000):
    print("%d,0,%d" % (t, 100 + t // 100000 % 7))
' trace.json > hbm.csv
		# a job of two ranks (told apart by their file names)
		for r in 0 1; do
			grep -v distributedInfo trace.json > rank-$r.json
			gzip -c rank-$r.json > rank-$r.json.gz
		done
		while IFS= read -r line; do
			run --separate-stderr sh -c "$line"
			[ "$status" -eq 0 ] || { echo "$line: $stderr"; return 1; }
			# a line that writes a file (> FILE at its end) writes
			# something; the others write to stdout
			f=${line##*> }
			case $f in
			"$line"|*' '*) [ -n "$output" ] ||
			    { echo "no output: $line"; return 1; } ;;
			*) [ -s "$f" ] ;;
			esac
			# nothing on stderr but mct-flow's summary and the
			# shifts of --align
			! grep -v -e '^mct-flow: [0-9]* pairs' \
			    -e '^mct-cat: --align .* shifted by' <<<"$stderr" |
			    grep -q . ||
			    { echo "$line: $stderr"; return 1; }
		done <<<"$(tour)"
		# --device and --category select on this producer too
		[ "$(mct-filter --device -c trace.json)" -gt 0 ]
		[ "$(mct-filter --device --category memcpy/copy -c trace.json)" -gt 0 ]
	done
}

@test "README: every sample's output is what its command prints, on a terminal (the in-tree mcTracer and PyTorch traces)" {
	docs
	r=$MCT_SRCDIR/README.md
	# both example traces are asked about, and one sample is piped
	grep -q '^    \$ .*examples/seed-small\.json\.gz' "$r"
	grep -q '^    \$ .*examples/pytorch-small\.pt\.trace\.json' "$r"
	[ "$(grep -c '^    \$ ' "$r")" -ge 10 ]
	run --separate-stderr "$PYTHON3" "$MCT_SRCDIR/tests/readme_samples.py" \
	    "$r" "$MCT_BUILDDIR"
	[ "$status" -eq 0 ] || { echo "$output$stderr"; return 1; }
	same "$stderr" ""
}

@test "README: the PyTorch sample's step times are python's (ProfilerStep#N durations, as a table writes a time)" {
	docs
	"$PYTHON3" - "$MCT_SRCDIR/examples/pytorch-small.pt.trace.json" \
	    "$MCT_SRCDIR/tests" > want <<'EOF'
import decimal, json, sys
sys.path.insert(0, sys.argv[2])
from report_oracle import human
doc = json.load(open(sys.argv[1]), parse_float=decimal.Decimal)
steps = [(int(e["dur"] * 1000), e["name"]) for e in doc["traceEvents"]
         if e.get("ph") == "X" and e["name"].startswith("ProfilerStep#")]
for d, n in sorted(steps, key=lambda s: (-s[0], s[1])):
    print("%s\t%s" % (n, human(d)))
EOF
	[ "$(wc -l < want)" -eq 4 ]
	sed -n '/^    ProfilerStep#/{s/^    //; s/  */\t/; p;}' \
	    "$MCT_SRCDIR/README.md" > got
	same "$(cat got)" "$(cat want)"
}

@test "examples/pytorch-small.pt.trace.json is what tests/genkineto.py writes" {
	docs
	"$PYTHON3" "$MCT_SRCDIR/tests/genkineto.py" |
	    cmp - "$MCT_SRCDIR/examples/pytorch-small.pt.trace.json"
}

@test "README: its first command is the one CI runs, and it tells the packages to use mct from those to test it" {
	docs
	r=$MCT_SRCDIR/README.md
	first=$(grep -m1 '^    apt-get update' "$r" | sed 's/^    //')
	grep -qxF "$first" "$MCT_SRCDIR/.ci/run"
	# what configure needs is in the use list; what only the tests
	# need is not
	use=$(grep -m1 '^    apt-get install' "$r")
	for p in build-essential autoconf automake pkg-config libjson-c-dev \
	    zlib1g-dev libisal-dev; do
		grep -qw -- "$p" <<<"$use" || { echo "missing $p"; return 1; }
	done
	for p in bats python3 jq parallel openssh-server mandoc; do
		! grep -qw -- "$p" <<<"$use" || { echo "use list has $p"; return 1; }
		grep -qw -- "$p" <<<"$first"
	done
	grep -q 'NDJSON' "$r"
	grep -q -- '-o table' "$r"
}

@test "README and HACKING.md cite no file outside the tree, and say what mct cannot read" {
	docs
	local doc=SPEC sec='§'
	# HACKING.md may say where the tests' fixtures are; the README
	# names no file a user does not have
	! grep -nE "$doc|$sec|shared/|seed tutorial" "$MCT_SRCDIR/README.md" ||
	    { echo "README.md cites a file outside the tree"; return 1; }
	! grep -nE "$doc|$sec|seed tutorial" "$MCT_SRCDIR/HACKING.md" ||
	    { echo "HACKING.md cites a file outside the tree"; return 1; }
	for w in 'Nsight Systems' Perfetto rocprof traceconv 'nsys export'; do
		grep -q "$w" "$MCT_SRCDIR/README.md"
	done
}

@test "HACKING.md names every lib and tool source file and every test file" {
	docs
	h=$MCT_SRCDIR/HACKING.md
	cd "$MCT_SRCDIR"
	for f in lib/*.c lib/*.cc tools/*.c tests/*.bats; do
		grep -qF "$(basename "$f")" "$h" || { echo "HACKING.md: no $f"; return 1; }
	done
}

@test "README: how to run the tools (make install, or the build tree on PATH)" {
	docs
	r=$MCT_SRCDIR/README.md
	grep -q '`make install`' "$r"
	grep -q 'PATH=$PWD/tools:$PATH' "$r"
}

@test "--help texts speak to users: no SPEC, no seed analysis" {
	docs
	for t in $(tools); do
		run "$t" --help
		[ "$status" -eq 0 ]
		! grep -q 'SPEC\|seed' <<<"$output" || { echo "$t: $output"; return 1; }
	done
}

@test ".gitignore covers what a build makes" {
	command -v git >/dev/null || skip "git is not installed"
	git -C "$MCT_SRCDIR" rev-parse 2>/dev/null || skip "not a git checkout"
	for p in examples/seed-small.json.gz plots/timeline.png configure \
	    Makefile.in Makefile config.status autom4te.cache/x build-aux/x \
	    lib/libmct.a lib/device.o tools/mct-cat tests/unit tests/gentrace \
	    tests/mct-cat.log tests/mct-cat.trs test-suite.log confcache; do
		git -C "$MCT_SRCDIR" check-ignore -q --no-index "$p" ||
		    { echo "not ignored: $p"; return 1; }
	done
	! git -C "$MCT_SRCDIR" ls-files --error-unmatch examples/seed-small.json.gz 2>/dev/null
}

# The warning for a field no event had, with python's nearest field.
warns() {
	local opt=$1 field=$2 file=$3 near

	near=$(po nearest "$field" "$file")
	[ -n "$near" ] || { echo "python has no suggestion for $field"; return 1; }
	same "$(grep -c . <<<"$stderr")" 1
	same "$stderr" "$4: $opt: no event has the field '$field' (did you mean '$near'?)"
}

@test "a misspelled field: a warning naming it and the nearest field seen (python), exit 0 (2 for --where), output unchanged" {
	s=$BATS_FILE_TMPDIR/seed.json
	run --separate-stderr mct-group --by nmae "$s"
	[ "$status" -eq 0 ]
	warns --by nmae "$s" mct-group
	same "$output" "$(mct-group --by nmae "$s" 2>/dev/null)"
	mct-flow -q "$s" > flow.ndjson
	run --separate-stderr mct-group --by launch.name --value latncy flow.ndjson
	[ "$status" -eq 0 ]
	warns --value latncy flow.ndjson mct-group
	run --separate-stderr mct-group --by 'args.gird,name' "$s"
	warns --by args.gird "$s" mct-group
	# --where: the same message, but an error (exit 2) and no count
	run --separate-stderr mct-filter --where 'args.grd==[2056,32,1] || dur>1ms' -c "$s"
	[ "$status" -eq 2 ]
	warns --where args.grd "$s" mct-filter
	same "$output" ""
	run --separate-stderr mct-flow --key args.co_di "$s"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'no event has' <<<"$stderr")" -eq 1 ]
	grep -qx "mct-flow: --key: no event has the field 'args.co_di' (did you mean '$(po nearest args.co_di "$s")'?)" <<<"$stderr"
	# far from every field: no suggestion
	run --separate-stderr mct-group --by zzzzzzzz "$s"
	same "$stderr" "mct-group: --by: no event has the field 'zzzzzzzz'"
}

@test "a misspelled field on Kineto: --key args.corelation, --by with a spaced key" {
	need_fixtures
	f=$fixtures/kineto-bert-h100.json.gz
	run --separate-stderr mct-flow -q --key args.corelation "$f"
	[ "$status" -eq 0 ]
	warns --key args.corelation "$f" mct-flow
	run --separate-stderr mct-group --by args.registers_per_thread -n 1 "$f"
	warns --by args.registers_per_thread "$f" mct-group
	grep -q 'args."registers per thread"' <<<"$stderr"
}

@test "a misspelled field: virtual fields are suggested, and a dotted key's quoted path three levels deep" {
	s=$BATS_FILE_TMPDIR/seed.json
	run --separate-stderr mct-group --by catgory "$s"
	[ "$status" -eq 0 ]
	warns --by catgory "$s" mct-group
	grep -q "did you mean 'category'" <<<"$stderr"
	run --separate-stderr mct-filter --where 'rnak == 0' -c "$s"
	warns --where rnak "$s" mct-filter
	grep -q "did you mean 'rank'" <<<"$stderr"
	# an nvidia-smi column with dots, joined: metrics."utilization.memory"
	gen --scale 0.01 --metrics nv.csv > t.json
	mct-metrics --join utilization.memory \
	    --sync '2026/12/02 07:00:00.000=@1712195480123456789' t.json nv.csv > j.nd
	run --separate-stderr mct-group --value metrics.utilization.memory.mean -a count,mean -o tsv j.nd
	[ "$status" -eq 0 ]
	warns --value metrics.utilization.memory.mean j.nd mct-group
	grep -q "did you mean 'metrics.\"utilization.memory\".mean'" <<<"$stderr"
	# the suggested path works: each group's mean of the means, as python's
	run --separate-stderr mct-group --value 'metrics."utilization.memory".mean' -a count,mean -o tsv j.nd
	same "$stderr" ""
	want=$("$PYTHON3" - j.nd <<-'EOF'
	import json, sys
	g = {}
	for line in open(sys.argv[1]):
	    e = json.loads(line)
	    m = e.get("metrics", {}).get("utilization.memory")
	    if m is not None:
	        g.setdefault(e["name"], []).append(m["mean"])
	for k in sorted(g):
	    print("%s %d %.6f" % (k, len(g[k]), sum(g[k]) / len(g[k])))
	EOF
	)
	got=$(sed 1d <<<"$output" | grep -v '^total' |
	    awk -F'\t' '$3 != "" { printf "%s %d %.6f\n", $1, $2, $3 }' |
	    LC_ALL=C sort)
	same "$got" "$(LC_ALL=C sort <<<"$want")"
}

@test "no warning for fields some event had, for virtual fields, or on an empty input" {
	s=$BATS_FILE_TMPDIR/seed.json
	run --separate-stderr mct-group --by name,args.grid --value dur "$s"
	same "$stderr" ""
	run --separate-stderr mct-group --by category "$s"
	same "$stderr" ""
	run --separate-stderr mct-filter --where 'args.grid && rel>=1ms' -c "$s"
	same "$stderr" ""
	run --separate-stderr mct-flow -q --key args.co_id "$s"
	same "$stderr" ""
	: > empty.json
	run --separate-stderr mct-group --by nmae empty.json
	! grep -q 'no event has' <<<"$stderr"
}

# mct-phases against phases_oracle.py: phases and gaps, in its line shapes.
phases_agree() {
	local s=$1

	shift
	mct-phases --gaps "$@" "$s" | oracle phases_oracle.py fmt > got
	{
		oracle phases_oracle.py phases "$@" "$s"
		oracle phases_oracle.py gaps "$s"
	} > want
	same "$(cat got)" "$(cat want)"
}

@test "mct-phases: a switch shorter than 1% of the median round joins the phase before it; --min-switch sets the threshold" {
	po kineto 0 > k.json
	mct-cat k.json > k.nd
	phases_agree k.nd
	phases_agree k.nd --min-switch 0
	phases_agree k.nd --min-switch 30000000
	# the 6 us switch holding one copy is no row; with --min-switch 0 it is
	same "$(mct-phases k.nd | tail -n +2 | jq -r .phase | paste -sd' ')" \
	    "init steady steady switch steady tail"
	same "$(mct-phases --min-switch 0 k.nd | tail -n +2 |
	    jq -r 'select(.phase == "switch" and .span < 10000) | .phase')" switch
	same "$(mct-phases --min-switch 30ms k.nd | grep -c '"switch"')" 0
	run --separate-stderr mct-phases --min-switch x k.nd
	[ "$status" -eq 2 ]
	grep -q "^mct-phases: --min-switch: invalid duration 'x'" <<<"$stderr"
}

@test "mct-phases: Kineto's ProfilerStep#N are the rounds; gaps name the innermost host events, not the frames around them" {
	po kineto 1 > k.json
	mct-cat k.json > k.nd
	phases_agree k.nd
	# one steady phase over the 41 steps, a round each
	same "$(mct-phases k.nd | tail -n +2 | jq -r 'select(.phase == "steady") | .rounds' |
	    paste -sd' ')" "41 5"
	run --separate-stderr mct-phases --only-gaps k.nd
	[ "$status" -eq 0 ]
	same "$(jq -r '.host[0].name' <<<"$output" | tail -n +2)" \
	    "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"
	! grep -q '_bootstrap' <<<"$output"
}

@test "mct-phases on Kineto fixtures: phases and gaps equal python's" {
	need_fixtures
	for f in kineto-bert-h100.json.gz kineto-rocm62-mi250.json.gz \
	    kineto-rank0-of-2-nccl.json.gz; do
		mct-cat "$fixtures/$f" > s.nd
		phases_agree s.nd || { echo "in $f"; return 1; }
	done
}
