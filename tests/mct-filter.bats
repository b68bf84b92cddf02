#!/usr/bin/env bats
# mct-filter.bats - every predicate, option, message and exit status of
# mct-filter(1).
#
# What mct-filter keeps is compared with tests/filter_oracle.py, which
# reads the same trace with python3's json module and applies the
# predicates of the man page independently (window rules, fnmatch globs,
# re regexes, the --where language, the rules file).  Small hand-made
# traces add counts worked out by hand from the man page.  Nothing is
# compared with output captured from mct itself.

load helpers

# The independent oracle of this file.
fo() {
	oracle filter_oracle.py "$@"
}

setup_file() {
	light_trace
	local d=$BATS_FILE_TMPDIR c

	# the seed-shaped trace at full scale (225,852 events), once
	genf "$d/full.json"
	genf "$d/gridstr.json" --grid-string
	mct-cat "$d/full.json" > "$d/full.nd"
	# a small one (14,163 events, 5 s) for the options
	genf "$d/small.json" -s 0.05
	genf "$d/small2.json" -s 0.05 -S 2 --layout shuffle
	mct-cat "$d/small.json" > "$d/small.nd"

	# mct's answers to the seed's questions on the full trace; the tests
	# below compare them with the oracle's (a failure here shows there)
	mct-cat "$d/full.json" | mct-filter --from 26.57s --to 68.41s |
	    mct-cat --wrap > "$d/window.json" || true
	mct-cat "$d/full.json" | mct-filter --within --from 26.57s --to 68.41s |
	    mct-cat --wrap > "$d/within.json" || true
	mct-cat "$d/full.json" | mct-filter --clip --from 26.57s --to 68.41s |
	    mct-cat --wrap > "$d/clip.json" || true
	mct-filter --from 26.57s --to 27.5s "$d/full.json" > "$d/direct.nd" || true
	mct-filter --from 26.57s --to 27.5s "$d/full.nd" > "$d/piped.nd" || true
	mct-filter -o trace --pid 2 --name 'kernel_kernel*' "$d/full.nd" \
	    > "$d/kernels.json" || true

	# the python oracle on the full trace, in one run: counts, and checks
	# of the files above
	cat > "$d/full.batch" <<-EOF
	--pid 2 --name 'kernel_kernel*'
	--where 'args.grid==[2056,32,1]'
	--where 'args.grid==[2056,32,1]' --pid 2 --name kernel_kernel
	--name mcMemcpyAsync --min-dur 1ms
	--from 26.57s --to 68.41s
	--from 26.57s --to 68.41s --within
	--pid 2 --pid 3 --ph X
	--from 26.57s --to 68.41s --check window.json
	--within --from 26.57s --to 68.41s --check within.json
	--clip --from 26.57s --to 68.41s --check clip.json
	--from 26.57s --to 27.5s --check direct.nd
	--from 26.57s --to 27.5s --check piped.nd
	--pid 2 --name 'kernel_kernel*' --check kernels.json
	EOF
	for c in 'TileLang custom kernels' routing/reorder/scatter/gather \
	    memcpy/copy mcBLAS/GEMM sort/hist/memset elementwise/reduce/fill \
	    softmax/topk semaphore/sync; do
		printf -- "--pid 2 --pid 3 --rules '%s' --category '%s'\n" \
		    "$MCT_SRCDIR/data/default.rules" "$c" >> "$d/full.batch"
	done
	# (asked in a directory of its own, with names relative to it: the
	# question is the same in every run, and its answer asked of python once)
	mkdir "$d/q"
	ln "$d"/full.json "$d"/full.batch "$d"/window.json "$d"/within.json \
	    "$d"/clip.json "$d"/direct.nd "$d"/piped.nd "$d"/kernels.json "$d/q"
	(cd "$d/q" && fo --batch full.batch full.json) > "$d/full.out"
	printf '%s\n' "--pid 2 --name 'kernel_kernel*'" \
	    "--where 'args.grid==[2056,32,1]'" > "$d/gridstr.batch"
	fo --batch "$d/gridstr.batch" "$d/gridstr.json" > "$d/gridstr.out"
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	full=$BATS_FILE_TMPDIR/full.json
	fullnd=$BATS_FILE_TMPDIR/full.nd
	small=$BATS_FILE_TMPDIR/small.json
	small2=$BATS_FILE_TMPDIR/small2.json
	smallnd=$BATS_FILE_TMPDIR/small.nd
	rules=$MCT_SRCDIR/data/default.rules
	unset MCT_RULES
	write_edge
	write_where
}

# The oracle's result on the full trace for one line of full.batch: a
# count, or "ok" for a check that held.  $2: another batch (gridstr).
full_want() {
	awk -F'\t' -v q="$1" '$2 == q { print $1; f = 1 } END { exit !f }' \
	    "$BATS_FILE_TMPDIR/${2:-full}.out"
}

# full_check FILE OPTIONS: the oracle's check of FILE held.
full_check() {
	same "$(full_want "$2 --check $1")" ok
}

# agree FILE OPTION...: mct-filter -c and the oracle count the same.
agree() {
	local f=$1 want got

	shift
	want=$(fo "$@" "$f") || return 1
	got=$(mct-filter -c "$@" "$f") || return 1
	same "$got" "$want"
}

# agree_events FILE OPTION...: mct-filter writes exactly the oracle's
# events (metadata included), in order, header line first.
agree_events() {
	local f=$1

	shift
	mct-filter "$@" "$f" > out.nd || return 1
	fo "$@" --check out.nd "$f"
}

# The window edges, in us (the Chrome default unit); the origin is 100 us,
# so --from 100us --to 200us is [200 us, 300 us) absolute.
write_edge() {
	cat > edge.json <<-'EOF'
	{"traceEvents":[
	{"name":"process_name","ph":"M","pid":1,"args":{"name":"edge"}},
	{"name":"origin","ph":"X","pid":1,"tid":1,"ts":100,"dur":1},
	{"name":"a_ends_at_from","ph":"X","pid":1,"tid":1,"ts":120,"dur":80},
	{"name":"b_straddles_from","ph":"X","pid":1,"tid":1,"ts":150,"dur":100},
	{"name":"c_inside","ph":"X","pid":1,"tid":1,"ts":210,"dur":20},
	{"name":"d_zero_at_from","ph":"X","pid":1,"tid":1,"ts":200,"dur":0},
	{"name":"f_starts_at_to","ph":"X","pid":1,"tid":1,"ts":300,"dur":10},
	{"name":"g_straddles_to","ph":"X","pid":1,"tid":1,"ts":290,"dur":20},
	{"name":"h_covers","ph":"X","pid":1,"tid":1,"ts":150,"dur":300},
	{"name":"i_instant_at_from","ph":"i","pid":1,"tid":1,"ts":200,"s":"t"},
	{"name":"j_instant_at_to","ph":"i","pid":1,"tid":1,"ts":300,"s":"t"},
	{"name":"k_instant_before","ph":"i","pid":1,"tid":1,"ts":199,"s":"t"},
	{"name":"l_x_without_dur","ph":"X","pid":1,"tid":1,"ts":250},
	{"name":"m_x_without_ts","ph":"X","pid":1,"tid":1,"dur":5},
	{"name":"n_ends_at_to","ph":"X","pid":1,"tid":1,"ts":280,"dur":20},
	{"name":"o_begin","ph":"B","pid":1,"tid":2,"ts":250},
	{"name":"o_begin","ph":"E","pid":1,"tid":2,"ts":310},
	{"name":"p_counter","ph":"C","pid":1,"ts":260,"args":{"v":1}}
	]}
	EOF
}

# Values of every type for the --where language (us; origin 1000 us).
write_where() {
	cat > where.json <<-'EOF'
	{"traceEvents":[
	{"name":"process_name","ph":"M","pid":"2","args":{"name":"dev"}},
	{"name":"n5","ph":"X","pid":2,"tid":1,"ts":1000,"dur":2000,"args":{"n":5,"grid":[1,2,3]}},
	{"name":"n5s","ph":"X","pid":"2","tid":1,"ts":2000,"dur":500,"args":{"n":"5","grid":"(1, 2, 3)"}},
	{"name":"n5f","ph":"X","pid":"02","tid":2,"ts":3000,"dur":1500,"args":{"n":5.0,"grid":"1,2,3"}},
	{"name":"n10","ph":"X","pid":3,"tid":2,"ts":4000,"dur":10,"args":{"n":10,"grid":[1, 2, 4]}},
	{"name":"text","ph":"X","pid":3,"tid":"main","ts":5000,"dur":0,"cat":"gpu_memcpy","args":{"s":"abc","n":"ten"}},
	{"name":"a b","ph":"i","pid":1,"tid":1,"ts":6000,"cat":"a,gpu_memcpy","args":{"s":"xabc","a b":7}},
	{"name":"Kernel_Kernel","ph":"X","pid":1,"tid":1,"ts":7000,"dur":100,"cat":"gpu_memcpy_x"},
	{"name":"noargs","ph":"X","pid":1,"tid":1,"ts":8000,"dur":3000,"cat":"xgpu_memcpy,b"},
	{"name":"nulls","ph":"X","pid":1,"tid":1,"ts":9000,"dur":1,"args":{"n":null,"s":null}},
	{"name":"flow","ph":"s","id":1,"pid":1,"tid":1,"ts":1000,"cat":"ac2g"},
	{}
	]}
	EOF
}

# mct-filter's kept names (no metadata), one line, for the hand-made traces.
names() {
	mct-filter --no-meta -o tsv -F name --no-header "$@" | tr '\n' ' '
}

# ===================================================================
# The seed's questions on the full-scale trace
# ===================================================================

@test "full: mct-cat | mct-filter --from 26.57s --to 68.41s | mct-cat --wrap is the window (oracle), metadata and top-level keys kept" {
	w=$BATS_FILE_TMPDIR/window.json
	# valid JSON, every M event, the top-level keys, the oracle's events
	"$PYTHON3" -c 'import json, sys; json.load(open(sys.argv[1]))' "$w"
	full_check window.json '--from 26.57s --to 68.41s'
	same "$(grep -c '"ph":"M"' "$w")" "$(grep -c '"ph":"M"' "$full")"
	# the window holds the 110 big-shape rounds of kernel_kernel
	n=$("$PYTHON3" -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
print(sum(1 for e in ev if e.get("name") == "kernel_kernel"
          and e.get("args", {}).get("grid") == [2056, 32, 1]))' "$w")
	same "$n" 110
	same "$(mct-filter -c --from 26.57s --to 68.41s "$full")" \
	    "$(full_want '--from 26.57s --to 68.41s')"
}

@test "full: --within through the same pipeline gives the oracle's events" {
	full_check within.json '--within --from 26.57s --to 68.41s'
	same "$(mct-filter -c --within --from 26.57s --to 68.41s "$fullnd")" \
	    "$(full_want '--from 26.57s --to 68.41s --within')"
	# fewer than the overlapping ones: some straddle
	[ "$(full_want '--from 26.57s --to 68.41s --within')" -lt \
	    "$(full_want '--from 26.57s --to 68.41s')" ]
}

@test "full: --clip through the same pipeline cuts the straddlers as the oracle does" {
	full_check clip.json '--clip --from 26.57s --to 68.41s'
	# independently: every X now lies in [from, to), and some were cut
	"$PYTHON3" - "$BATS_FILE_TMPDIR/clip.json" "$full" <<-'EOF'
	import json, sys
	ev = json.load(open(sys.argv[1]))["traceEvents"]
	org = min(e["ts"] for e in json.load(open(sys.argv[2]))["traceEvents"]
	          if e.get("ph") != "M" and "ts" in e)
	lo, hi = org + 26570000000, org + 68410000000
	xs = [e for e in ev if e.get("ph") == "X"]
	assert all(lo <= e["ts"] and e["ts"] + e["dur"] <= hi for e in xs), "X outside"
	cut = sum(1 for e in xs if e["ts"] == lo or e["ts"] + e["dur"] == hi)
	assert cut > 0, "no straddler was clipped"
	assert all(e["dur"] >= 0 for e in xs)
	EOF
}

@test "full: --pid 2 --name 'kernel_kernel*' keeps the 444 custom kernels (oracle)" {
	same "$(mct-filter -c --pid 2 --name 'kernel_kernel*' "$fullnd")" 444
	same "$(full_want "--pid 2 --name 'kernel_kernel*'")" 444
	same "$(mct-filter -c --pid 2 --name 'kernel_kernel*' "$full")" 444
}

@test "full: --where 'args.grid==[2056,32,1]' keeps 110 (oracle)" {
	same "$(mct-filter -c --where 'args.grid==[2056,32,1]' "$fullnd")" 110
	same "$(full_want "--where 'args.grid==[2056,32,1]'")" 110
	same "$(mct-filter -c --where 'args.grid==[2056,32,1]' --pid 2 --name kernel_kernel "$full")" \
	    "$(full_want "--where 'args.grid==[2056,32,1]' --pid 2 --name kernel_kernel")"
}

@test "full: grid written as the string \"(2056, 32, 1)\" (gentrace --grid-string): 444 and 110 too" {
	g=$BATS_FILE_TMPDIR/gridstr.json
	grep -qF '"grid":"(2056, 32, 1)"' "$g"
	same "$(mct-filter -c --pid 2 --name 'kernel_kernel*' "$g")" 444
	same "$(mct-filter -c --where 'args.grid==[2056,32,1]' "$g")" 110
	same "$(mct-cat "$g" | mct-filter -c --where 'args.grid==(2056,32,1)')" 110
	same "$(full_want "--where 'args.grid==[2056,32,1]'" gridstr)" 110
	same "$(full_want "--pid 2 --name 'kernel_kernel*'" gridstr)" 444
}

@test "full: --category with the default rules gives the seed's eight device counts (oracle classifies alike)" {
	local c want
	export MCT_RULES=$rules
	while IFS=: read -r c want; do
		same "$(mct-filter -c --pid 2 --pid 3 --category "$c" "$fullnd")" "$want"
		same "$(full_want "--pid 2 --pid 3 --rules '$rules' --category '$c'")" "$want"
	done <<-'EOF'
	TileLang custom kernels:444
	routing/reorder/scatter/gather:5602
	memcpy/copy:6932
	mcBLAS/GEMM:260
	sort/hist/memset:3136
	elementwise/reduce/fill:1358
	softmax/topk:448
	semaphore/sync:222
	EOF
}

@test "full: --category repeated ORs: the eight device categories cover every device X event" {
	n=$(mct-filter -c --rules "$rules" --pid 2 --pid 3 --ph X \
	    --category 'TileLang custom kernels' \
	    --category routing/reorder/scatter/gather --category memcpy/copy \
	    --category mcBLAS/GEMM --category sort/hist/memset \
	    --category elementwise/reduce/fill --category softmax/topk \
	    --category semaphore/sync "$fullnd")
	same "$n" 18402
	same "$(full_want '--pid 2 --pid 3 --ph X')" 18402
}

@test "full: the blocking memcpy calls: --name mcMemcpyAsync --min-dur 1ms (oracle)" {
	n=$(mct-filter -c --name mcMemcpyAsync --min-dur 1ms "$fullnd")
	same "$n" "$(full_want '--name mcMemcpyAsync --min-dur 1ms')"
	[ "$n" -gt 0 ]
	[ "$n" -lt 6932 ]
}

@test "full: a raw trace read directly gives the same events as through mct-cat (oracle on both)" {
	full_check direct.nd '--from 26.57s --to 27.5s'
	full_check piped.nd '--from 26.57s --to 27.5s'
	cmp "$BATS_FILE_TMPDIR/direct.nd" "$BATS_FILE_TMPDIR/piped.nd"
}

@test "full: mct-filter -o trace is the same trace as piping through mct-cat --wrap (oracle)" {
	full_check kernels.json "--pid 2 --name 'kernel_kernel*'"
}

# ===================================================================
# Real traces written by other tools
# ===================================================================

# agree_batch FILE LINE...: mct-filter -c on FILE with each line of
# options (shell words), and the oracle's batch over the same lines (one
# python run); they must agree.  A line ending in "--check OUT" compares
# events instead: mct-filter writes OUT, the oracle checks it.
agree_batch() {
	local f=$1 q got out

	shift
	: > ab.batch
	: > ab.got
	for q in "$@"; do
		printf '%s\n' "$q" >> ab.batch
		if [[ "$q" == *"--check "* ]]; then
			out=${q##*--check }
			eval "mct-filter ${q% --check *} \"\$f\"" > "$out" 2>/dev/null || true
			got=ok
		else
			got=$(eval "mct-filter -c $q \"\$f\"" 2>/dev/null) || true
		fi
		printf '%s\t%s\n' "$got" "$q" >> ab.got
	done
	fo --batch ab.batch "$f" > ab.want || return 1
	same "$(cat ab.got)" "$(cat ab.want)" || { echo "in $f"; return 1; }
}

@test "fixtures: --ph, --name, --from/--to, --clip, --where counts and events equal python's on every file" {
	slow
	need_fixtures
	local f n=0
	local -a where
	for f in "$fixtures"/*.json*; do
		[ -f "$f" ] || continue
		where=()
		case ${f##*/} in
		kineto-*|rpd-*)
			# Kineto args with blanks in keys, rpd's string ts and pid
			where=("--where 'cat==kernel && dur>=5us'"
			    "--where 'args.correlation>100 || args.\"External id\"'"
			    "--where 'rel<100ms && name~^(aten|cuda|hip)'"
			    "--where 'pid==0' --where 'tid!=1'")
			;;
		esac
		agree_batch "$f" "--ph X" "--ph i --ph I" "--ph s --ph f --ph t" \
		    "--ph B" "--ph C" "--name '*a*'" "--name process_name" \
		    "--name '*::*' --ph X" "--name '*loop*' -i" \
		    "--from 1ms --to 50ms" "--from 10us" "--to 2ms" \
		    "--within --from 1ms --to 50ms" "-v --ph X" \
		    "--min-dur 100us" "--where 'ts>=1ms && dur'" \
		    "--from 1ms --to 20ms --check window.nd" \
		    "--clip --from 2ms --to 5ms --ph X --check clip.nd" \
		    "${where[@]}"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}

# ===================================================================
# The window
# ===================================================================

@test "--from/--to: an X overlaps when ts < to and end > from; zero-length X and other events when from <= ts < to" {
	same "$(names --from 100us --to 200us edge.json)" \
	    "b_straddles_from c_inside d_zero_at_from g_straddles_to h_covers i_instant_at_from l_x_without_dur n_ends_at_to o_begin p_counter "
	agree_events edge.json --from 100us --to 200us
}

@test "--within: only events with from <= ts and end <= to" {
	same "$(names --within --from 100us --to 200us edge.json)" \
	    "c_inside d_zero_at_from i_instant_at_from l_x_without_dur n_ends_at_to o_begin p_counter "
	agree_events edge.json --within --from 100us --to 200us
}

@test "--clip: straddling X events are cut to the window, the rest untouched" {
	mct-filter --clip --from 100us --to 200us --no-meta -o tsv -F name,ts,dur \
	    --no-header edge.json > got
	same "$(grep -E '^(b_|g_|h_|c_)' got)" "$(printf '%s\t%s\t%s\n' \
	    b_straddles_from 200000 50000 c_inside 210000 20000 \
	    g_straddles_to 290000 10000 h_covers 200000 100000)"
	agree_events edge.json --clip --from 100us --to 200us
	agree_events "$small" --clip --from 1s --to 2s
	agree_events "$small" --clip --from 1s
	agree_events "$small" --clip --to 1s
}

@test "-v inverts the predicates, never the window: -v --from --to --name X keeps the window and drops X" {
	# by hand: [200 us, 300 us) holds these; c_inside is the one dropped
	same "$(names -v --from 100us --to 200us --name c_inside edge.json)" \
	    "b_straddles_from d_zero_at_from g_straddles_to h_covers i_instant_at_from l_x_without_dur n_ends_at_to o_begin p_counter "
	agree_events edge.json -v --from 100us --to 200us --name c_inside
	# the seed's: a name in the second from 1 s to 2 s
	x=$(mct-filter --no-meta --from 1s --to 2s --ph X -o tsv -F name \
	    --no-header "$small" | head -1)
	[ -n "$x" ]
	agree_events "$small" -v --from 1s --to 2s --name "$x"
	all=$(mct-filter -c --from 1s --to 2s "$small")
	xs=$(mct-filter -c --from 1s --to 2s --name "$x" "$small")
	[ "$xs" -gt 0 ]
	same "$(mct-filter -c -v --from 1s --to 2s --name "$x" "$small")" "$((all - xs))"
	# --clip cuts what -v keeps to the window, as without -v
	mct-filter -v --clip --from 1s --to 2s --ph X "$small" > out.nd
	if grep -q '"dur":-' out.nd; then return 1; fi
	agree_events "$small" -v --clip --from 1s --to 2s --ph X
}

@test "--from alone, --to alone, @absolute, every unit (ns us ms s m, bare ns)" {
	agree_events edge.json --from 100us
	agree_events edge.json --to 200us
	agree_batch "$small" "--from 1s" \
	    "--to 1.5s" \
	    "--from 0.02m --to 0.05m" \
	    "--from 1500ms --to 2500000us" \
	    "--from 1000000000 --to 2000000000ns" \
	    "--from @1712195481123456789 --to @1712195482123456789"
	same "$(mct-filter -c --from @1712195481123456789 --to @1712195482123456789 "$small")" \
	    "$(mct-filter -c --from 1s --to 2s "$small")"
	same "$(mct-filter -c --from @200us --to @300us edge.json)" \
	    "$(mct-filter -c --from 100us --to 200us edge.json)"
}

@test "--from/--to on several inputs: the origin is the smallest ts of all; events in operand order" {
	mct-filter --pid 2 --from 1s --to 3s "$small" "$small2" > out.nd
	fo --pid 2 --from 1s --to 3s --check out.nd "$small" "$small2"
	mct-filter --from 100us --to 200us edge.json where.json > out.nd
	fo --from 100us --to 200us --check out.nd edge.json where.json
}

# ===================================================================
# Field predicates
# ===================================================================

@test "--ph: one value, repeated values OR" {
	agree_batch "$small" "--ph X" \
	    "--ph s --ph f"
	same "$(mct-filter -c --ph s --ph f "$small")" \
	    $(( $(mct-filter -c --ph s "$small") + $(mct-filter -c --ph f "$small") ))
	agree_events where.json --ph i --ph s
}

@test "--pid/--tid: the value as written (number or string), repeated values OR" {
	same "$(names --pid 2 where.json)" "n5 n5s "
	same "$(names --pid 02 where.json)" "n5f "
	same "$(names --tid main where.json)" "text "
	agree_batch "$small" "--pid 2" \
	    "--pid 2 --pid 3" \
	    "--pid 1 --tid 39991"
	agree where.json --pid 2 --pid 3
}

@test "--cat matches cat or one of its comma-separated parts, not a substring" {
	same "$(names --cat gpu_memcpy where.json)" "text a b "
	same "$(names --cat b where.json)" "noargs "
	agree where.json --cat gpu_memcpy --cat ac2g
}

@test "--cat in another case than the trace's: nothing kept, a hint naming the trace's spelling, exit 0" {
	cat > cats.json <<-'EOF'
	{"traceEvents":[
	{"ph":"X","cat":"Runtime","name":"r","pid":1,"tid":1,"ts":1,"dur":1},
	{"ph":"X","cat":"Kernel","name":"k","pid":2,"tid":7,"ts":2,"dur":1},
	{"ph":"X","cat":"kernel_X","name":"kx","pid":2,"tid":7,"ts":3,"dur":1},
	{"ph":"X","cat":"a,MEMCPY","name":"m","pid":2,"tid":8,"ts":4,"dur":1},
	{"ph":"X","cat":"a,,b","name":"e","pid":2,"tid":8,"ts":5,"dur":1}]}
	EOF
	hint="(producers spell categories differently: Kineto kernel, older Kineto Kernel; --device keeps device work whatever the producer)"
	run --separate-stderr mct-filter -c --cat kernel cats.json
	[ "$status" -eq 0 ]
	same "$output" 0
	same "$stderr" "mct-filter: --cat kernel: no event has this category, but some have 'Kernel' $hint"
	# a part of a comma-separated cat; one hint a value, none for a
	# value that matched
	run --separate-stderr mct-filter -c --cat memcpy --cat Runtime --cat kernel_x cats.json
	same "$output" 1
	same "$stderr" "mct-filter: --cat memcpy: no event has this category, but some have 'MEMCPY' $hint
mct-filter: --cat kernel_x: no event has this category, but some have 'kernel_X' $hint"
	run --separate-stderr mct-filter -c --cat Kernel cats.json
	same "$output" 1
	same "$stderr" ""
	run --separate-stderr mct-filter -c --cat nothing cats.json
	same "$output" 0
	same "$stderr" ""
	# an empty part is a value like another (it never loops)
	run --separate-stderr timeout 10 mct-filter -c --cat '' cats.json
	same "$output" 1
	agree cats.json --cat Kernel
}

@test "--cat kernel on older Kineto (Kernel): the hint, and --cat Kernel keeps python's count" {
	need_fixtures
	f=$fixtures/kineto-resnet50-array.pt.trace.json.gz
	run --separate-stderr mct-filter -c --cat kernel "$f"
	same "$output" 0
	grep -qx "mct-filter: --cat kernel: no event has this category, but some have 'Kernel' (.*)" <<<"$stderr"
	agree "$f" --cat Kernel
	[ "$(mct-filter -c --cat Kernel "$f")" -gt 0 ]
}

@test "--name is a shell glob on the whole name, -i folds case, repeated --name ORs" {
	same "$(names --name 'kernel_*' where.json)" ""
	same "$(names -i --name 'kernel_*' where.json)" "Kernel_Kernel "
	same "$(names --name 'n?' --name 'n1[0-9]' where.json)" "n5 n10 "
	same "$(names --name 'a b' where.json)" "a b "
	agree_batch "$small" "--name 'kernel_kernel*'" \
	    "--name '*[Ss]catter*' --name 'mcMemcpy*'" \
	    "-i --name '*MEMCPY*'" \
	    "--name 'kernel_kernel_?'"
}

@test "--match is a POSIX ERE searched in the name, -i folds case, ANDed with --name" {
	same "$(names --match '^n[0-9]' where.json)" "n5 n5s n5f n10 "
	same "$(names -i --match '^N' where.json)" "n5 n5s n5f n10 noargs nulls "
	same "$(names --match '^n[0-9]' --name '*s' where.json)" "n5s "
	agree_batch "$small" "--match 'kernel_kernel(_[0-9]+)?\$'" \
	    "--match '[Ss]catter|[Gg]ather'" \
	    "--match '^mc(Memcpy|Launch)' --match 'Synchronize\$'" \
	    "-i --match 'SORT'"
}

@test "--min-dur/--max-dur: dur bounds, inclusive; a missing dur counts as 0" {
	same "$(names --max-dur 0 where.json)" "text a b flow  "
	same "$(names --min-dur 1ns --max-dur 1us where.json)" "nulls "
	same "$(names --min-dur 1.5ms where.json)" "n5 n5f noargs "
	agree_batch "$small" "--min-dur 1ms" \
	    "--max-dur 2.5us" \
	    "--min-dur 100us --max-dur 0.01s" \
	    "--name mcMemcpyAsync --min-dur 1ms"
}

@test "different options AND, the same option repeated ORs" {
	agree_batch "$small" "--pid 2 --name 'kernel_kernel*' --from 1s --to 4s --min-dur 1ms" \
	    "--pid 1 --pid 3 --ph X --max-dur 5us" \
	    "--ph X --where 'args.grid==[2056,32,1]' --where 'args.grid==[1028,16,1]'"
	same "$(mct-filter -c --pid 2 --ph X "$small")" "$(mct-filter --pid 2 "$small" | mct-filter -c --ph X)"
}

# ===================================================================
# --where
# ===================================================================

@test "--where ==: numbers as numbers, also numeric strings; text; quoted strings; = alone" {
	same "$(names --where 'args.n==5' where.json)" "n5 n5s n5f "
	same "$(names --where 'args.n=5' where.json)" "n5 n5s n5f "
	same "$(names --where 'pid==2' where.json)" "n5 n5s n5f "
	same "$(names --where 'pid=="2"' where.json)" "n5 n5s "
	same "$(names --where 'tid==main' where.json)" "text "
	same "$(names --where 'name==a b' where.json)" "a b "
	same "$(names --where 'name=="a b"' where.json)" "a b "
	same "$(names --where 'args."a b"==7' where.json)" "a b "
	agree_batch where.json "--where 'args.n==5'" \
	    "--where 'pid==2'"
	agree_batch "$small" "--where 'pid==2'" \
	    "--where 'name==kernel_kernel'"
}

@test "--where !=: a missing field is unequal" {
	same "$(mct-filter -c --where 'args.n!=5' where.json)" 8
	agree where.json --where 'args.n!=5'
	agree "$small" --where 'pid!=1'
}

@test "--where < <= > >=: numbers, numeric strings, and bytes for text" {
	same "$(names --where 'args.n<10' where.json)" "n5 n5s n5f "
	same "$(names --where 'args.n<=10' where.json)" "n5 n5s n5f n10 "
	same "$(names --where 'args.n>=5 && args.n<6' where.json)" "n5 n5s n5f "
	agree_batch where.json "--where 'args.n>5'" \
	    "--where 'name>n5'" \
	    "--where 'args.s<=b'"
	agree_batch "$small" "--where 'args.co_id>1000'" \
	    "--where 'args.co_id<=1000'" \
	    "--where 'args.registers_per_thread>=150'" \
	    "--where 'args.bytes>1000000'"
}

@test "--where ~ and !~: POSIX ERE on the text; a missing field does not match ~ and matches !~" {
	same "$(names --where 'args.s~^a' where.json)" "text "
	same "$(mct-filter -c --where 'args.s!~^a' where.json)" 10
	agree_batch where.json "--where 'args.s~abc\$'" \
	    "--where 'name!~^n'"
	agree_batch "$small" "--where 'name~^mc(Memcpy|Launch)'" \
	    "--where 'name!~^mc'" \
	    "--where 'args.grid~^\\[2056,'"
}

@test "--where arrays: [a,b,c] matches an array and a \"(a, b, c)\" string, not \"a,b,c\"" {
	same "$(names --where 'args.grid==[1,2,3]' where.json)" "n5 n5s "
	same "$(names --where 'args.grid==(1, 2, 3)' where.json)" "n5 n5s "
	same "$(names --where 'args.grid==[1, 2, 4]' where.json)" "n10 "
	agree where.json --where 'args.grid!=[1,2,3]'
	agree_batch "$small" "--where 'args.grid==[2056,32,1]'" \
	    "--where 'args.block==[128,1,1]'"
}

@test "--where bare FIELD: exists (null counts as present)" {
	same "$(names --where 'args.n' where.json)" "n5 n5s n5f n10 text nulls "
	same "$(names --where 'args.n && args.s' where.json)" "text nulls "
	agree where.json --where 'cat'
	agree_batch "$small" "--where 'args.grid'" \
	    "--where 'id'"
}

@test "--where: a quoted key may hold an escaped quote and a dot; blanks around the field change nothing" {
	# found by fuzzing: the field ended inside the quoted key, at the \"
	printf '%s\n' '{"name":"q","ts":1,"args":{"a\"b.":2}}' \
	    '{"name":"r","ts":2,"args":{"a":2}}' > quote.json
	same "$(names --where 'args."a\"b."==2' quote.json)" "q "
	same "$(names --where ' args."a\"b."  ==  2	' quote.json)" "q "
	same "$(names --where 'args."a\"b."' quote.json)" "q "
	same "$(names --where ' args."a\"b."	' quote.json)" "q "
	same "$(names --where '!args."a\"b." ' quote.json)" "r "
	agree quote.json --where 'args."a\"b."==2'
}

@test "--where bare virtual fields rel and end exist when ts does" {
	same "$(mct-filter -c --where rel where.json)" 10
	same "$(mct-filter -c --where end where.json)" 10
	agree where.json --where rel
}

@test "--where && binds tighter than ||; repeated --where ORs" {
	same "$(names --where 'args.n==5 && pid==2 || name==text' where.json)" "n5 n5s n5f text "
	same "$(names --where 'name==n5 || name==n10 && pid==3' where.json)" "n5 n10 "
	same "$(names --where 'name==n5' --where 'name==n10' where.json)" "n5 n10 "
	agree "$small" --where 'pid==2 && dur>=1ms || pid==3 && dur>=100us'
}

@test "--where ( ) groups before && and ||, !( ) negates one; a value keeps the parentheses that pair up" {
	same "$(names --where '(name==n5 || name==n10) && pid==3' where.json)" "n10 "
	same "$(names --where '!(args.n==5 || args.n) && dur>=1ms' where.json)" "noargs "
	same "$(names --where '( (name == n5) )' where.json)" "n5 "
	same "$(names --where '(args.grid==(1, 2, 3))' where.json)" "n5 n5s "
	agree "$small" --where 'pid==3 && (dur>=1ms || name~^mc)'
	agree "$small" --where '!(pid==2 || dur<100us) && name~(Memcpy|Memset)'
	agree where.json --where '(args.s ~ ^(x|a)b) || (tid == main)'
}

@test "--where '(cat == \"kernel\" || cat == \"gpu_memcpy\") && dur > 10us' selects what python selects" {
	local k=$MCT_SRCDIR/examples/pytorch-small.pt.trace.json
	agree_events "$k" --where '(cat == "kernel" || cat == "gpu_memcpy") && dur > 10us'
	agree_events "$k" --where '!(cat == "kernel" || cat == "gpu_memcpy") && dur > 10us'
	[ "$(mct-filter -c --where '(cat == "kernel" || cat == "gpu_memcpy") && dur > 10us' "$k")" -gt 0 ]
}

@test "--where on a field no event has: exit 2 naming the nearest field; -c prints no count (a key of the format's own: a warning)" {
	run --separate-stderr mct-filter -c --where 'catt == "kernel"' where.json
	[ "$status" -eq 2 ]
	same "$stderr" "mct-filter: --where: no event has the field 'catt' (did you mean 'cat'?)"
	same "$output" ""
	run --separate-stderr mct-filter --no-meta --where '!args.zzzzzzzz' where.json
	[ "$status" -eq 2 ]
	same "$stderr" "mct-filter: --where: no event has the field 'args.zzzzzzzz'"
	run --separate-stderr mct-filter -c --where 'args.sz == 1' where.json
	[ "$status" -eq 2 ]
	same "$stderr" "mct-filter: --where: no event has the field 'args.sz' (did you mean 'args.s'?)"
	# a key of the trace format's own that no event has: a warning only
	printf '%s\n' '{"traceEvents":[{"name":"a","ph":"i","ts":1,"s":"g"}]}' > inst.json
	run --separate-stderr mct-filter -c --where 'dur > 1000 || name == a' inst.json
	[ "$status" -eq 0 ]
	same "$output" 1
	same "$stderr" "mct-filter: --where: no event has the field 'dur'"
	# a field some event has is no error, whatever it selects
	run --separate-stderr mct-filter -c --where 'args.s == nothing' where.json
	[ "$status" -eq 0 ]
	same "$output" 0
}

@test "--where time fields take units: dur, rel, ts and end relative to the origin" {
	same "$(names --where 'dur>=1ms' where.json)" "n5 n5f noargs "
	same "$(names --where 'rel<2ms' where.json)" "n5 n5s flow "
	same "$(names --where 'ts>=4ms' where.json)" "text a b Kernel_Kernel noargs nulls "
	same "$(names --where 'end<=3ms' where.json)" "n5 n5s flow "
	same "$(names --where 'dur==1500us' where.json)" "n5f "
	agree_batch "$small" "--where 'dur>=1.5ms'" \
	    "--where 'rel>=1s && rel<2s'" \
	    "--where 'ts<500ms'" \
	    "--where 'end>4s'" \
	    "--where 'dur<0.000001s'"
}

@test "--where ts>=@N is absolute" {
	same "$(names --where 'ts>=@5000000' where.json)" "text a b Kernel_Kernel noargs nulls "
	agree "$small" --where 'ts>=@1712195482123456789'
}

@test "--where end<=@N is absolute too" {
	run --separate-stderr mct-filter -c --where 'end<=@4000000' where.json
	same "$stderr" ""
	[ "$status" -eq 0 ]
	same "$output" 3
}

@test "--where ~ on a time field matches its ns text" {
	run --separate-stderr mct-filter --no-meta -o tsv -F name --no-header \
	    --where 'dur~^2' where.json
	same "$stderr" ""
	[ "$status" -eq 0 ]
	same "$output" n5
}

# ===================================================================
# Rules and --category
# ===================================================================

@test "--category with --rules: first match wins, label - gives no category (oracle)" {
	cat > r.rules <<-'EOF'
	# comment line, then a blank one

	  # an indented comment
	-	ph==s
	five	args.n==5
	fivestr	pid=="2"
	big	dur>=1ms
	flows	ph==s
	EOF
	same "$(names --rules r.rules --category five where.json)" "n5 n5s n5f "
	same "$(names --rules r.rules --category fivestr where.json)" ""
	same "$(names --rules r.rules --category big where.json)" "noargs "
	same "$(names --rules r.rules --category flows where.json)" ""
	same "$(names --rules r.rules --category big --category five where.json)" "n5 n5s n5f noargs "
	agree_batch where.json "--rules r.rules --category five" \
	    "--rules r.rules -v --category big"
}

@test "--where category==LABEL, and a bare category (has one)" {
	agree where.json --rules "$rules" --where 'category==memcpy/copy'
	agree_batch "$small" "--rules '$rules' --where 'category~^(memcpy|mcBLAS)'" \
	    "--rules '$rules' --where 'category'" \
	    "--rules '$rules' --pid 2 --where 'category!=TileLang custom kernels'"
}

@test "--rules examples/moe.rules names the MoE steps (oracle)" {
	local m=$MCT_SRCDIR/examples/moe.rules
	same "$(mct-filter -c --rules "$m" --category 'MoE step1 gate/up projection (large)' "$fullnd")" 110
	same "$(mct-filter -c --rules "$m" --category 'MoE step2 down projection (small)' "$fullnd")" 110
	same "$(mct-filter -c --rules "$m" --category 'MoE step1 gate/up projection (warmup)' "$fullnd")" 2
	agree_batch "$small" "--rules '$m' --category 'MoE routing reorder'" \
	    "--rules '$m' --category 'MoE scatter output'"
}

@test "--category on every default label equals the oracle (small trace, all lanes)" {
	local c
	local -a qs=()
	for c in 'MXMACA runtime' 'TileLang custom kernels' routing/reorder/scatter/gather \
	    memcpy/copy mcBLAS/GEMM sort/hist/memset elementwise/reduce/fill \
	    softmax/topk semaphore/sync; do
		qs+=("--rules '$rules' --category '$c'")
	done
	agree_batch "$small" "${qs[@]}"
}

@test "rules file lookup: --rules over \$MCT_RULES over the installed default" {
	printf 'only\tname==n10\n' > one.rules
	printf 'only\tname==n5\n' > two.rules
	same "$(MCT_RULES=$PWD/one.rules names --category only where.json)" "n10 "
	same "$(MCT_RULES=$PWD/one.rules names --rules two.rules --category only where.json)" "n5 "
}

@test "rules file lookup: the default rules are found without --rules or \$MCT_RULES" {
	run --separate-stderr env -u MCT_RULES mct-filter -c --category 'TileLang custom kernels' "$smallnd"
	same "$stderr" ""
	[ "$status" -eq 0 ]
	same "$output" "$(fo --rules "$rules" --category 'TileLang custom kernels' "$small")"
}

# ===================================================================
# -v, -c, metadata
# ===================================================================

@test "-v keeps what does not match; metadata still passes; -c counts kept non-M events" {
	same "$(names -v --ph X where.json)" "a b flow  "
	agree_batch "$small" "-v --pid 1" \
	    "-v --from 1s --to 2s"
	agree_events where.json -v --ph X
	total=$(fo "$small")
	same "$(( $(mct-filter -c --pid 2 "$small") + $(mct-filter -c -v --pid 2 "$small") ))" "$total"
	# M lines and the header pass with -v
	mct-filter -v --ph M "$smallnd" > out.nd
	same "$(head -1 out.nd | cut -c1-21)" '{"name":"mct_header",'
	same "$(grep -c '"ph":"M"' out.nd)" "$(grep -c '"ph":"M"' "$smallnd")"
}

@test "metadata lines pass by default: the header first, then every M event" {
	mct-filter --pid 3 "$smallnd" > out.nd
	same "$(head -1 out.nd)" "$(head -1 "$smallnd")"
	same "$(grep -c '"ph":"M"' out.nd)" "$(grep -c '"ph":"M"' "$smallnd")"
	same "$(wc -l < out.nd)" $(( $(fo --pid 3 "$small") + $(grep -c '"ph":"M"' "$smallnd") ))
	agree_events "$small" --pid 3
	agree_events "$smallnd" --name nothing-matches
}

@test "--no-meta drops the header line and the M events" {
	mct-filter --no-meta --pid 2 "$smallnd" > out.nd
	if grep -q '"ph":"M"' out.nd; then return 1; fi
	fo --no-meta --pid 2 --check out.nd "$small"
	same "$(wc -l < out.nd)" "$(mct-filter -c --pid 2 "$small")"
	mct-filter --no-meta -o trace --ph X edge.json > t.json
	if grep -q '"ph":"M"' t.json; then return 1; fi
	fo --no-meta --ph X --check t.json edge.json
}

@test "-c prints one number, no header, with any output format" {
	run --separate-stderr mct-filter -c --ph X "$small"
	[ "$status" -eq 0 ]
	same "$output" "$(fo --ph X "$small")"
	same "$(mct-filter -c -o tsv --ph X "$small")" "$output"
	same "$(mct-filter --count --no-meta --ph X "$small")" "$output"
	same "$(mct-filter -c --ph nothing "$small")" 0
}

# ===================================================================
# Output formats
# ===================================================================

@test "-o tsv with -F and --time-unit: the oracle's rows" {
	mct-filter -o tsv -F rel,dur,args.grid,name --time-unit ms --pid 2 \
	    --name 'kernel_kernel*' "$small" > got
	fo --tsv rel,dur,args.grid,name --time-unit ms --pid 2 \
	    --name 'kernel_kernel*' "$small" > want
	same "$(cat got)" "$(cat want)"
	mct-filter -o tsv --no-header -F ts,end,dur,ph --time-unit us --from 1s --to 1.1s "$small" > got
	fo --tsv ts,end,dur,ph --no-header --time-unit us --from 1s --to 1.1s "$small" > want
	same "$(cat got)" "$(cat want)"
}

@test "-o tsv default fields ts,dur,ph,pid,tid,name (for gnuplot: raw ns, one header line)" {
	mct-filter -o tsv --ph X --pid 2 --to 500ms "$small" > got
	fo --tsv ts,dur,ph,pid,tid,name --ph X --pid 2 --to 500ms "$small" > want
	same "$(cat got)" "$(cat want)"
	same "$(head -1 got)" "$(printf 'ts\tdur\tph\tpid\ttid\tname')"
}

@test "-o csv: python's csv module reads the oracle's cells" {
	mct-filter -o csv -F ts,name,args.grid,args.co_id --pid 2 --to 300ms "$small" > got.csv
	fo --parse-csv got.csv > got
	fo --csv ts,name,args.grid,args.co_id --pid 2 --to 300ms "$small" > want
	same "$(cat got)" "$(cat want)"
	mct-filter -o csv --no-header --no-meta -F name --ph i where.json > got.csv
	same "$(fo --parse-csv got.csv)" '["a b"]'
}

@test "-o table: a header row, then one aligned row per event" {
	mct-filter -o table -F name,dur --pid 2 --name 'kernel_kernel*' "$small" > got
	n=$(fo --pid 2 --name 'kernel_kernel*' "$small")
	# the header and n kernels: no row for the M event of pid 2 (it passes)
	same "$(wc -l < got)" $((n + 1))
	[[ "$(head -1 got)" == name* ]]
	same "$(grep -c '^kernel_kernel' got)" "$n"
}

@test "-o table: times with their units (dur in a unit each, ts in ns said in the header), as python's" {
	mct-filter -o table -F name,ts,dur --pid 2 --name 'kernel_kernel*' \
	    --to 2s "$small" | cells > got
	fo --tsv name,ts,dur --no-header --pid 2 --name 'kernel_kernel*' \
	    --to 2s "$small" > raw
	want=$(printf 'name\tts (ns)\tdur\n%s' "$(humanize 3 < raw)")
	[ "$(wc -l < raw)" -gt 0 ]
	same "$(cat got)" "$want"
}

@test "-o md: a Markdown table of the oracle's cells" {
	mct-filter -o md -F name,dur,args.grid --pid 2 --name 'kernel_kernel*' \
	    --to 2s --time-unit ns "$small" > got.md
	same "$(head -2 got.md)" "$(printf '%s\n' '| name | dur (ns) | args.grid |' '|---|---|---|')"
	tail -n +3 got.md | sed 's/^| //; s/ |$//; s/ | /\t/g' > got
	fo --tsv name,dur,args.grid --no-header --pid 2 --name 'kernel_kernel*' \
	    --to 2s "$small" > want
	same "$(cat got)" "$(cat want)"
}

@test "-o trace: a valid trace with the source's top-level keys and unit (oracle)" {
	mct-filter -o trace --from 100us --to 200us edge.json > t.json
	"$PYTHON3" -c 'import json, sys; json.load(open(sys.argv[1]))' t.json
	fo --from 100us --to 200us --check t.json edge.json
	mct-filter -o trace --pid 2 --from 1s --to 2s "$small" > t.json
	fo --pid 2 --from 1s --to 2s --check t.json "$small"
	grep -q '"displayTimeUnit":"ns"' t.json
}

@test "-u UNIT: the unit of a trace read directly (oracle with the same unit)" {
	agree_events edge.json -u ms --from 100ms --to 200ms
	agree_events edge.json -u ns --from 100 --to 200
	agree_events edge.json --unit us --from 100us --to 200us
	same "$(mct-filter -c -u ns --from 100 --to 200 edge.json)" \
	    "$(mct-filter -c --from 100us --to 200us edge.json)"
}

@test "standard input: no operand and - read it, raw trace or stream" {
	same "$(mct-filter -c --ph X < where.json)" "$(fo --ph X where.json)"
	same "$(mct-filter -c --ph X - < "$smallnd")" "$(fo --ph X "$small")"
	same "$(mct-cat "$small" | mct-filter -c --pid 2 --name 'kernel_kernel*')" \
	    "$(fo --pid 2 --name 'kernel_kernel*' "$small")"
}

@test "gzip input is read by magic bytes" {
	gzip -c "$small" > s.json.gz
	agree s.json.gz --pid 2 --from 1s --to 2s
	same "$(mct-filter -c --pid 2 < s.json.gz)" "$(fo --pid 2 "$small")"
}

# ===================================================================
# Errors and exit status
# ===================================================================

# bad ARGS... : exit 2, nothing on stdout, and a one-line message naming
# the option, then the --help hint.
bad() {
	run --separate-stderr mct-filter "$@" where.json
	[ "$status" -eq 2 ] || { echo "status $status for $*"; return 1; }
	same "$output" ""
}

@test "--where 'dur>>3': a clear message, exit 2" {
	bad --where 'dur>>3'
	[[ "$stderr" == *"mct-filter: --where:"*"dur>>3"* ]]
	[[ "$stderr" == *"Try 'mct-filter --help'"* ]]
}

@test "--from 12x, --to @x, --min-dur abc, --max-dur 5parsecs: exit 2 naming the option and the text" {
	bad --from 12x
	[[ "$stderr" == *"mct-filter: --from: invalid time '12x'"* ]]
	bad --to @x
	[[ "$stderr" == *"--to: invalid time '@x'"* ]]
	bad --min-dur abc
	[[ "$stderr" == *"--min-dur: invalid duration 'abc'"* ]]
	bad --max-dur 5parsecs
	[[ "$stderr" == *"--max-dur"*"5parsecs"* ]]
	bad --min-dur @5
	bad --from ''
}

@test "a bad regular expression in --match and in --where ~: exit 2" {
	bad --match 'a('
	[[ "$stderr" == *"--match: invalid regular expression 'a('"* ]]
	bad --where 'name~a('
	[[ "$stderr" == *"--where: invalid regular expression 'a('"* ]]
	bad --where 'name!~[z-a]'
	[[ "$stderr" == *"--where"* ]]
}

@test "--where syntax errors: empty, missing field or value, unknown operator, unterminated string, bad time, a ( or ) alone, groups too deep" {
	bad --where ''
	[[ "$stderr" == *"--where"* ]]
	bad --where 'name==a ||'
	bad --where '&& name==a'
	bad --where 'name=='
	[[ "$stderr" == *"value is missing"* ]]
	bad --where 'name =< 3'
	bad --where 'name=="abc'
	[[ "$stderr" == *"unterminated string"* ]]
	bad --where 'dur>=3parsecs'
	[[ "$stderr" == *"invalid time"* ]]
	bad --where 'dur>=@5'
	bad --where 'args..x'
	bad --where '(name==a'
	[[ "$stderr" == *"--where: a ')' is missing in '(name==a'"* ]]
	bad --where 'name==a)'
	[[ "$stderr" == *"--where: a ')' without its '(' in 'name==a)'"* ]]
	bad --where "$(printf '(%.0s' {1..65})name"
	[[ "$stderr" == *"--where: groups nested deeper than 64 in '(("* ]]
}

@test "a missing rules file: exit 2 naming it" {
	bad --rules /nonexistent/x.rules --category x
	[[ "$stderr" == *"/nonexistent/x.rules"* ]]
	run --separate-stderr env MCT_RULES=/nonexistent/y.rules mct-filter -c --category x where.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"/nonexistent/y.rules"* ]]
}

@test "a missing rules file used only by --where category: exit 2 before any output" {
	bad --rules /nonexistent/x.rules --where 'category==x'
	[[ "$stderr" == *"/nonexistent/x.rules"* ]]
}

@test "--rules naming an unreadable file is an error even when no predicate uses it" {
	bad --rules /nonexistent/x.rules --ph X
	[[ "$stderr" == *"/nonexistent/x.rules"* ]]
}

@test "a malformed rules file: exit 2, the message names file:line" {
	printf '# ok\nfine\tname==a\nno tab here\n' > r1.rules
	bad --rules r1.rules --category fine
	[[ "$stderr" == *"r1.rules:3:"* ]]
	printf 'fine\tname==a\n\nbroken\tdur>>3\n' > r2.rules
	bad --rules r2.rules --category fine
	[[ "$stderr" == *"r2.rules:3:"* ]]
	printf 'x\tname==a\n\tname==b\n' > r3.rules
	bad --rules r3.rules --category x
	[[ "$stderr" == *"r3.rules:2:"* ]]
	printf 'loop\tcategory==x\n' > r4.rules
	bad --rules r4.rules --category loop
	[[ "$stderr" == *"r4.rules"*"category"* ]]
}

@test "other usage errors: unknown option, -o, --time-unit, -u, -F: exit 2" {
	bad --bogus
	[[ "$stderr" == *"usage: mct-filter"* ]]
	bad -o xml
	[[ "$stderr" == *"-o: unknown format 'xml' (want ndjson, tsv, csv, table, md or trace)"* ]]
	bad --time-unit auto
	bad --time-unit parsec
	bad -u furlong
	bad -F 'a..b' -o tsv
	run --separate-stderr mct-filter --ph < /dev/null
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--ph"* ]]
}

@test "an unreadable operand: exit 2, the other operands still filtered" {
	run --separate-stderr mct-filter -c --ph X /nonexistent/t.json where.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"/nonexistent/t.json: No such file or directory"* ]]
	same "$output" "$(fo --ph X where.json)"
}

@test "damaged input: exit 1, every intact event still filtered" {
	head -c 1000000 "$small" > cut.json
	run --separate-stderr mct-filter -c --pid 1 cut.json
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"cut.json"* ]]
	# the intact events: those python reads from the complete lines
	head -n "$(wc -l < cut.json)" cut.json > intact.json
	same "$output" "$(fo --pid 1 intact.json)"
}

@test "--help prints the usage line and every option on stdout, exit 0; --version" {
	docs
	run --separate-stderr mct-filter --help
	[ "$status" -eq 0 ]
	same "$stderr" ""
	[[ "${lines[0]}" == "usage: mct-filter [-chiVv] [-F fields] [-o format] [-u unit] [predicate ...] [file ...]" ]]
	for o in --ph --pid --tid --cat --name --match --ignore-case --from --to \
	    --within --step --clip --min-dur --max-dur --where --category --rules \
	    --invert --no-meta --count --fields --output --no-header \
	    --time-unit --unit --help --version; do
		[[ "$output" == *"$o"* ]] || { echo "missing $o"; return 1; }
	done
	run mct-filter --version
	[ "$status" -eq 0 ]
	[[ "$output" == "mct-filter (mct) "* ]]
}

@test "the man page documents every long option of --help and its SYNOPSIS is the usage line" {
	docs
	local m=$MCT_SRCDIR/man/mct-filter.1 o text
	[ -f "$m" ]
	command -v mandoc > /dev/null || skip "mandoc not installed"
	run mandoc -Tlint -W warning "$m"
	same "$output" ""
	text=$(mandoc -Tascii "$m" | sed 's/.\x08//g')
	for o in $(mct-filter --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		[[ "$text" == *"$o"* ]] || { echo "man page lacks $o"; return 1; }
	done
	syn=$(printf '%s\n' "$text" | awk '/^SYNOPSIS/ { f = 1; next } /^[A-Z]/ { f = 0 } f' |
	    tr -s ' \n' '  ' | sed 's/^ //; s/ $//')
	same "$syn" "mct-filter [-chiVv] [-F fields] [-o format] [-u unit] [predicate ...] [file ...]"
}

@test "--step N: the events of profiler step N (host events by their thread's step annotation, device work by its launch's step) as python's; NAME#N alike; -v does not invert it" {
	local s=$BATS_FILE_TMPDIR/pt.nd py n

	mct-cat "$MCT_SRCDIR/examples/pytorch-small.pt.trace.json" > "$s"
	py=$(oracle step_oracle.py "$s")
	for n in 0 1 2 3; do
		same "$(step_got --step "$n" "$s")" "$(step_want "$py" "$n")"
	done
	# the step has its kernels (launched on the main thread and on the
	# backward thread) and its own annotation
	[ "$(mct-filter -c --step 2 --device "$s")" -ge 12 ]
	same "$(mct-filter --step 2 --match '^ProfilerStep#' -o tsv --no-header -F name "$s")" "ProfilerStep#2"
	same "$(step_got --step ProfilerStep#2 "$s")" "$(step_want "$py" 2)"
	# -v inverts the predicates, never the step
	same "$(mct-filter -c -v --device --step 2 "$s")" \
	    "$(( $(mct-filter -c --step 2 "$s") - $(mct-filter -c --device --step 2 "$s") ))"
	# a step not there, another name: nothing, exit 0
	run mct-filter -c --step 99 "$s"
	[ "$status" -eq 0 ]
	same "$output" 0
	same "$(mct-filter -c --step 'Optimizer#1' "$s")" 0
	# the trace read directly keeps what the stream keeps
	same "$(mct-filter -c --step 1 "$MCT_SRCDIR/examples/pytorch-small.pt.trace.json")" \
	    "$(mct-filter -c --step 1 "$s")"
}

@test "--step N of an mcTracer trace (no step annotation): the events whose ts is in round N of mct-phases, host and device alike, as python's own phases cut them; none before the first round; NAME#N is no round" {
	local py n

	genf t.json --scale 0.03
	mct-cat t.json > t.nd
	py=$(oracle step_oracle.py --all t.nd)
	for n in 1 2 3 4 5 6; do
		same "$(step_got --step "$n" t.json)" "$(step_want "$py" "$n")"
	done
	same "$(mct-filter -c --step 7 t.json)" 0
	same "$(mct-filter -c --step 0 t.json)" 0
	# a round holds host calls and device work
	[ "$(mct-filter -c --step 2 --device t.json)" -gt 10 ]
	[ "$(mct-filter -c --step 2 --name mcLaunchKernel t.json)" -gt 10 ]
	# only ProfilerStep#N gives way to rounds, not another name
	same "$(mct-filter -c --step 'Optimizer#2' t.json)" 0
	same "$(mct-filter -c --step 'ProfilerStep#2' t.json)" "$(mct-filter -c --step 2 t.json)"
}

@test "--step: a step that is no number, or a NAME# without one, is a usage error" {
	for a in x 1x '#' 'ProfilerStep#' '#3' ''; do
		run --separate-stderr mct-filter --step "$a" /dev/null
		[ "$status" -eq 2 ]
		[[ "$stderr" == "mct-filter: --step: invalid step '$a' (want a step number N, or NAME#N)"* ]]
	done
}

@test "--step, --by step, mct-flow --stack's step, mct-diff --step: early Kineto's steps (ProfilerStep#N of cat Operator) are steps, as python's" {
	local s=$BATS_TEST_TMPDIR/op.nd u=$BATS_TEST_TMPDIR/ua.nd py n

	mct-cat "$MCT_SRCDIR/examples/pytorch-small.pt.trace.json" > "$u"
	# the same trace as early Kineto wrote its steps: an Operator
	sed '/"name":"ProfilerStep#/s/"cat":"user_annotation"/"cat":"Operator"/' "$u" > "$s"
	same "$(mct-filter --cat Operator --match '^ProfilerStep#' -c "$s")" 4
	py=$(oracle step_oracle.py "$s")
	for n in 0 1 2 3; do
		same "$(step_got --step "$n" "$s")" "$(step_want "$py" "$n")"
		same "$(step_got --step "$n" "$s")" "$(step_got --step "$n" "$u")"
	done
	same "$(mct-group --by step -a count -o tsv "$s")" "$(mct-group --by step -a count -o tsv "$u")"
	same "$(mct-flow -q --stack "$s" | mct-group --by step -a count -o tsv)" \
	    "$(mct-flow -q --stack "$u" | mct-group --by step -a count -o tsv)"
	[ "$(mct-flow -q --stack "$s" | mct-filter -c --where step)" -gt 40 ]
	mct-diff --step 2 -o tsv "$s" "$s" > /dev/null
}

@test "--step on the Kineto fixtures with ProfilerStep# (kineto-diff-control and -test): each step's events as python's (make check-full: python reads 35 MB a trace)" {
	need_fixtures
	[ "${MCT_TEST_FULL:-0}" = 1 ] || skip "python's 10 s a fixture: in make check-full"
	local f s py n steps

	for f in "$fixtures"/kineto-diff-control.json.gz "$fixtures"/kineto-diff-test.json.gz; do
		[ -r "$f" ] || continue
		s=$BATS_TEST_TMPDIR/$(basename "$f" .json.gz).nd
		mct-cat "$f" > "$s"
		py=$(oracle step_oracle.py "$s")
		steps=$(printf '%s\n' "$py" | grep -o '"[0-9]*": {' | tr -dc '0-9\n')
		[ "$(printf '%s\n' "$steps" | wc -l)" -ge 2 ]
		for n in $steps; do
			echo "# $f step $n"
			same "$(step_got --step "$n" "$s")" "$(step_want "$py" "$n")"
		done
	done
}
