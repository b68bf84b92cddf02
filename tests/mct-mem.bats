#!/usr/bin/env bats
# mct-mem.bats - every option, message and exit status of mct-mem(1).
#
# What mct-mem writes is compared with tests/mem_oracle.py, which reads
# the same trace with python3's json module (times as Decimal) and works
# out the peaks, the op, module and step of each memory event, the
# allocations by op and module and the counter values again, the slow and
# obvious way: one oracle run per input answers every question asked of
# it.  The inputs: tests/genmem.py's small generated trace, and the two
# Kineto fixtures that hold [memory] events.

load helpers

setup_file() {
	light_trace
	"$PYTHON3" "$MCT_SRCDIR/tests/genmem.py" > "$BATS_FILE_TMPDIR/mem.json"
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	mem=$BATS_FILE_TMPDIR/mem.json
}

SUMMARY=device,ts,peak,reserved,step,op,module,allocs,bytes,frees,freed

# section FILE NAME: the oracle's rows of one question about FILE.
section() {
	oracle mem_oracle.py "$1" > or.txt || return 1
	awk -v s="## $2" '$0 == s { on = 1; next } /^## / { on = 0 } on' or.txt
}

# agree FILE: the summary, both --by tables and the counters equal the
# oracle's.
agree() {
	local f=$1

	same "$(mct-mem -o tsv --no-header -F $SUMMARY "$f" 2>/dev/null)" \
	    "$(section "$f" summary)"
	same "$(mct-mem --by op -o tsv --no-header "$f" 2>/dev/null)" \
	    "$(section "$f" op)"
	same "$(mct-mem --by module -o tsv --no-header "$f" 2>/dev/null)" \
	    "$(section "$f" module)"
	same "$(mct-mem --counters -o tsv --no-header -F ts,name,args.allocated \
	    "$f" 2>/dev/null)" "$(section "$f" counters)"
}

@test "generated: the peak, its time, step, op and module, and the tallies of each device equal the oracle's" {
	agree "$mem"
	# what the trace was made to hold: a peak outside every op and step,
	# the op of an event at the very end of another (its parent), the CPU
	run mct-mem -o tsv --no-header -F device,step,op "$mem"
	[[ "$output" == *"cuda:0		(no op)"* ]]
	[[ "$output" == *"cuda:1	ProfilerStep#12	aten::linear"* ]]
	[[ "$output" == *"cpu	ProfilerStep#10	(no op)"* ]]
}

@test "generated: an event without Bytes is left out and said; one without Total Allocated counts the running sum" {
	run --separate-stderr mct-mem -o tsv "$mem"
	[ "$status" -eq 0 ]
	same "$stderr" "mct-mem: $(section "$mem" skipped) [memory] event without a whole Bytes, Device Type or Device Id: left out"
	# the running sum: the oracle's counters, compared in agree
	same "$(mct-mem --counters -o tsv --no-header -F args.allocated "$mem" 2>/dev/null | tail -1)" \
	    "$(section "$mem" counters | tail -1 | cut -f3)"
}

@test "a bare ProfilerStep# (no digit after the #) is no step: what it holds outside the steps has none, as the oracle says" {
	bare_step > bare.json
	agree bare.json
	run -0 mct-mem -o tsv --no-header -F device,step,op bare.json
	[[ "$output" == *"cuda:0		(no op)"* ]]
	[[ "$output" == *"cuda:1	ProfilerStep#12	aten::linear"* ]]
}

@test "fixtures: on kineto-bert-h100 and kineto-bert-mi300 the peak and the op at the peak equal the oracle's" {
	need_fixtures
	local f want
	for f in "$fixtures"/kineto-bert-h100.json.gz "$fixtures"/kineto-bert-mi300.json.gz; do
		echo "# $f"
		want=$(section "$f" summary | cut -f1,3,6)
		[ -n "$want" ]
		same "$(mct-mem -o tsv --no-header -F device,peak,op "$f")" "$want"
		agree "$f"
	done
	# ROCm names its device hip
	[[ "$(mct-mem -o tsv --no-header -F device "$fixtures/kineto-bert-mi300.json.gz")" == hip:0* ]]
}

@test "-o trace: the counter events open in the viewer (valid Chrome JSON, ph C), one per memory event, in time order" {
	mct-mem -o trace "$mem" > c.json
	"$PYTHON3" - c.json "$(section "$mem" counters | wc -l)" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	c = [e for e in d["traceEvents"] if e.get("ph") == "C"]
	assert len(c) == int(sys.argv[2]), (len(c), sys.argv[2])
	assert all(e["name"].startswith("memory ") and "allocated" in e["args"]
	           and "pid" in e for e in c)
	assert [e["ts"] for e in c] == sorted(e["ts"] for e in c)
	assert any(e.get("ph") == "M" for e in d["traceEvents"])
	EOF
	# --counters writes the same events as a stream
	same "$(mct-mem --counters "$mem" 2>/dev/null | grep -c '"ph":"C"')" \
	    "$(section "$mem" counters | wc -l)"
}

@test "a Bytes at the ends of int64: the sums stay at the end, not wrapped (it was signed overflow)" {
	m='"ph":"i","name":"[memory]","pid":1,"tid":1'
	d='"Device Type":1,"Device Id":0'
	cat > big.json <<-EOF
	{"traceEvents":[
	{"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":1,"ts":0,"dur":100},
	{$m,"ts":10,"args":{"Bytes":9223372036854775807,$d}},
	{$m,"ts":20,"args":{"Bytes":9223372036854775807,$d}},
	{$m,"ts":30,"args":{"Bytes":-9223372036854775808,$d}}]}
	EOF
	run mct-mem -o tsv --no-header -F device,peak,allocs,bytes,frees,freed big.json
	[ "$status" -eq 0 ]
	same "$output" "cuda:0	9223372036854775807	2	9223372036854775807	1	9223372036854775807"
	run mct-mem --by op -o tsv --no-header big.json
	[ "$status" -eq 0 ]
	same "$output" "cuda:0		aten::empty	2	9223372036854775807	1	9223372036854775807"
}

@test "--by op --top N: the first N rows of each device" {
	same "$(mct-mem --by op --top 2 -o tsv --no-header "$mem" 2>/dev/null)" \
	    "$(section "$mem" op | awk -F '\t' '++n[$1] <= 2')"
	same "$(mct-mem --by module --top 1 -o tsv --no-header -F device,module "$mem" 2>/dev/null)" \
	    "$(section "$mem" module | awk -F '\t' '++n[$1] <= 1' | cut -f1,3)"
}

@test "a trace without [memory] events: no records, a note on stderr, exit 0" {
	run --separate-stderr mct-mem -o tsv "$MCT_SRCDIR/examples/pytorch-small.pt.trace.json"
	[ "$status" -eq 0 ]
	same "$output" "device	peak	rel	step	module	op"
	same "$stderr" "mct-mem: no [memory] events: the trace was recorded without memory (PyTorch profiler: profile_memory=True)"
}

@test "other producers' allocation records (CAVEATS): mcTracer's mcMalloc/mcFree carry only co_id, Kineto's cudaMalloc/cudaFree ids only, rpd's hipMalloc a size and pointer with no hipFree; mct-mem reads none of them; the man page says so" {
	genf t.json --scale 0.03
	same "$(mct-filter --match '^mc(Malloc|Free)(Host)?$' -o tsv --no-header -F args t.json | sed 's/[0-9][0-9]*/N/' | sort -u)" '{"co_id":N}'
	[ "$(mct-filter -c --match '^mc(Malloc|Free)' t.json)" -gt 4 ]
	run --separate-stderr mct-mem -o tsv t.json
	same "$output" "device	peak	rel	step	module	op"
	if [ -d "$fixtures" ]; then
		local r=$fixtures/rpd-matmul-string-ts.json
		same "$(mct-filter --match '^hipMalloc$' -o tsv --no-header -F args.desc "$r" | grep -cv '^ptr=0x[0-9a-f]* | size=0x[0-9a-f]*$')" 0
		[ "$(mct-filter -c --match '^hipMalloc$' "$r")" -gt 0 ]
		same "$(mct-filter -c --match '^hipFree' "$r")" 0
		same "$(mct-filter --match '^(cudaMalloc|cudaFree|cudaHostAlloc)$' -o tsv --no-header -F args "$fixtures/hta-critical-path-simple-add.json.gz" | sed 's/:[0-9][0-9]*//g' | sort -u)" '{"External id","cbid","correlation"}'
		run --separate-stderr mct-mem -o tsv "$r"
		same "$output" "device	peak	rel	step	module	op"
	fi
	docs
	text=$(mandoc -Tascii "$MCT_SRCDIR/man/mct-mem.1" | sed 's/.\x08//g')
	for w in CAVEATS mcMalloc mcFreeHost cudaMalloc hipMalloc hipFree 'Allocated Memory'; do
		[[ "$text" == *"$w"* ]] || { echo "mct-mem(1) lacks $w"; return 1; }
	done
}

# people FILE OPTION...: FILE's records in tsv (checked against the
# oracle in agree) written as mct-mem(1) says table and md write them for
# people: bytes as mct-group writes them (12,544 B; 2.164 MB; 426.01 GB),
# rel as a length (2.72 ms), counts with thousands separators; as md rows.
people() {
	local f=$1
	shift
	mct-mem -o tsv "$@" "$f" 2>/dev/null | "$PYTHON3" -c '
import sys
sys.path.insert(0, sys.argv[1])
from report_oracle import human, nbytes
BYTES = {"peak", "reserved", "bytes", "freed", "args.allocated", "args.reserved"}
rows = [l.rstrip("\n").split("\t") for l in sys.stdin]
head = rows[0]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for r in rows[1:]:
    print("| " + " | ".join(
        v if v == "" else nbytes(int(v)) if h in BYTES else
        human(int(v)) if h == "rel" else
        "{:,}".format(int(v)) if h in ("allocs", "frees") else v
        for h, v in zip(head, r)) + " |")' "$MCT_SRCDIR/tests"
}

@test "table and md: bytes as mct-group writes them (2.168 MB, 64 B), rel as a length (3.01 ms), counts with separators; tsv, csv and ndjson keep the numbers" {
	local f F
	for f in "$mem" "$fixtures/kineto-bert-h100.json.gz"; do
		[ -f "$f" ] || continue
		echo "# $f"
		F="-F device,peak,rel,reserved,allocs,bytes,frees,freed,step,op"
		same "$(mct-mem -o md $F "$f" 2>/dev/null)" "$(people "$f" $F)"
		same "$(mct-mem -o md --by op "$f" 2>/dev/null)" \
		    "$(people "$f" --by op)"
		same "$(mct-mem -o md --by module --top 3 "$f" 2>/dev/null)" \
		    "$(people "$f" --by module --top 3)"
		same "$(mct-mem -o md --counters -F rel,name,args.allocated,args.reserved "$f" 2>/dev/null)" \
		    "$(people "$f" --counters -F rel,name,args.allocated,args.reserved)"
		# table: the same cells, in columns (none empty: no step)
		F="-F device,op,allocs,bytes,frees,freed"
		same "$(mct-mem -o table --by op $F "$f" 2>/dev/null | sed 's/   */|/g')" \
		    "$(people "$f" --by op $F | sed '2d; s/^| //; s/ |$//; s/ | /|/g')"
	done
	# the generated trace's peaks, as people read them
	run --separate-stderr mct-mem -o md "$mem"
	[[ "${lines[0]}" == "| device | peak | rel | step | module | op |" ]]
	same "${lines[2]}" "| cuda:0 | 2.168 MB | 3.01 ms |  |  | (no op) |"
	[[ "${lines[4]}" == "| cpu | 64 B | 880.00 us | "* ]]
	# under --time-unit a table's rel is a number in that unit, as a ts
	run --separate-stderr mct-mem -o table --time-unit ms "$mem"
	[[ "${lines[0]}" == "device  peak      rel (ms)  step "* ]]
	[[ "${lines[1]}" == "cuda:0  2.168 MB  3.01      "* ]]
	# the programs' formats: the numbers
	run --separate-stderr mct-mem -o csv --no-header -F device,peak,rel,bytes "$mem"
	same "${lines[0]}" "cuda:0,2167808,3010000,3225600"
	[[ "$(mct-mem "$mem" 2>/dev/null | sed -n 2p)" == *'"peak":2167808,'* ]]
}

@test "usage errors: --by X, --counters with --by, -o trace with --by, --top 0: exit 2" {
	run --separate-stderr mct-mem --by kernel "$mem"
	[ "$status" -eq 2 ]
	[[ "${stderr%%$'\n'*}" == "mct-mem: --by: 'kernel' is not op or module" ]]
	run --separate-stderr mct-mem --counters --by op "$mem"
	[ "$status" -eq 2 ]
	[[ "${stderr%%$'\n'*}" == "mct-mem: --counters and --by: one at a time" ]]
	run --separate-stderr mct-mem -o trace --by op "$mem"
	[ "$status" -eq 2 ]
	run --separate-stderr mct-mem --top 0 --by op "$mem"
	[ "$status" -eq 2 ]
	[[ "${stderr%%$'\n'*}" == "mct-mem: --top: invalid number '0'" ]]
}

@test "--top without --by is a usage error, as every option that goes with another (it was ignored: the summary came out, exit 0)" {
	run --separate-stderr mct-mem --top 3 "$mem"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "${stderr%%$'\n'*}" == "mct-mem: --top goes with --by (the first N rows of each device)" ]]
	run --separate-stderr mct-mem --top 3 --counters "$mem"
	[ "$status" -eq 2 ]
	run --separate-stderr mct-mem --top 3 --by module -o tsv "$mem"
	[ "$status" -eq 0 ]
}

@test "a stream read from stdin gives what the trace gives" {
	same "$(mct-cat "$mem" | mct-mem -o tsv -F $SUMMARY 2>/dev/null)" \
	    "$(mct-mem -o tsv -F $SUMMARY "$mem" 2>/dev/null)"
}

@test "docs: --help's usage line is the man page's synopsis; every option is in the man page; mandoc lints it clean" {
	docs
	man=$MCT_SRCDIR/man/mct-mem.1
	usage=$(mct-mem --help | head -1)
	synopsis=$(awk '/^\.Sh SYNOPSIS/ { f = 1; next } /^\.Sh/ { f = 0 } f' "$man" | awk '
	    $1 == ".Nm" { printf "mct-mem" }
	    $1 == ".Op" && $2 == "Ar" && NF == 2 { printf " [file ...]"; next }
	    $1 == ".Op" {
		s = ""
		for (i = 2; i <= NF; i++)
			if ($i == "Fl") { t = $(++i); sub(/^\\/, "", t); s = s (s == "" ? "" : " ") "-" t }
			else if ($i == "Ar") s = s " " $(++i)
		printf " [%s]", s
	    }')
	same "usage: $synopsis" "$usage"
	for o in $(mct-mem --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
		echo "# $o"
		grep -qF -- "Fl \\${o#-}" "$man"
	done
	command -v mandoc > /dev/null || skip "mandoc not installed"
	same "$(mandoc -Tlint -W warning "$man" 2>&1)" ""
}
