#!/usr/bin/env bats
# mct-group.bats - the seed's tables, every option, message and exit status
# of mct-group(1).
#
# Numbers are checked against the seed's figures (tests/gentrace.md, to the
# seed's rounding) and against tests/group_oracle.py, an independent python3
# json computation of every aggregate (exact to the ns), never against
# output captured from mct.

load helpers

: "${MCT_RULES:=$MCT_SRCDIR/data/default.rules}"
export MCT_RULES

setup_file() {
	light_trace
	local d=$BATS_FILE_TMPDIR

	# The seed-shaped trace at full scale (225,852 events), made once, and
	# the streams of the seed's pipelines.
	genf "$d/full.json"
	mct-cat "$d/full.json" > "$d/full.nd"
	mct-filter --pid 2 --pid 3 "$d/full.nd" > "$d/dev.nd"
	mct-filter --pid 2 --name 'kernel_kernel*' "$d/full.nd" > "$d/kern.nd"
	mct-filter --pid 1 --ph X "$d/full.nd" > "$d/host.nd"
	mct-filter --pid 3 --ph X "$d/full.nd" > "$d/copy.nd"
	mct-flow "$d/full.nd" > "$d/flow.nd" 2> /dev/null || true
	# the host lane of a small trace, for the options
	gen --scale 0.05 | mct-cat | mct-filter --pid 1 --ph X > "$d/shost.nd"

	# A small stream with what the options must handle: metadata, events
	# without the value, without a name, string pids, quoted keys, deep
	# paths, numbers as strings, a counter.
	cat > "$d/mix.json" <<-'EOF'
	{"traceEvents":[
	{"name":"process_name","ph":"M","pid":1,"args":{"name":"host"}},
	{"name":"k","ph":"X","pid":2,"tid":1,"ts":1000,"dur":100,"args":{"grid":[2,1,1],"a b":"x","bytes":10,"w":1.5,"deep":{"er":{"x":1}}}},
	{"name":"k","ph":"X","pid":2,"tid":1,"ts":1200,"dur":300,"args":{"grid":[2,1,1],"a b":"y","bytes":20,"w":"2.5","deep":{"er":{"x":2}}}},
	{"name":"k","ph":"X","pid":2,"tid":2,"ts":1100,"dur":200,"args":{"grid":[4,1,1],"a b":"x","bytes":"30","w":2}},
	{"name":"m","ph":"X","pid":2,"tid":2,"ts":5000,"dur":7,"args":{"grid":[4,1,1],"bytes":null,"w":1e1}},
	{"name":"m","ph":"i","pid":2,"tid":2,"ts":6000,"s":"t"},
	{"name":"m","ph":"X","pid":3,"tid":2,"ts":3000,"dur":50,"args":{"grid":[10,1,1],"a b":"x,\"z\""}},
	{"name":"n","ph":"X","pid":"host","tid":3,"ts":2500,"dur":1000,"args":{"w":-0.25}},
	{"ph":"X","pid":1,"tid":3,"ts":2000,"dur":400},
	{"name":"q","ph":"C","pid":1,"ts":2200,"args":{"v":3}}
	]}
	EOF
	mct-cat -u ns "$d/mix.json" > "$d/mix.nd"
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	full="$BATS_FILE_TMPDIR/full.json"
	fullnd="$BATS_FILE_TMPDIR/full.nd"
	dev="$BATS_FILE_TMPDIR/dev.nd"
	kern="$BATS_FILE_TMPDIR/kern.nd"
	host="$BATS_FILE_TMPDIR/host.nd"
	copy="$BATS_FILE_TMPDIR/copy.nd"
	flow="$BATS_FILE_TMPDIR/flow.nd"
	shost="$BATS_FILE_TMPDIR/shost.nd"
	mix="$BATS_FILE_TMPDIR/mix.nd"
}

# The independent python3 oracle of mct-group.
gor() {
	oracle group_oracle.py "$@"
}

# agree FORMAT FILE OPTION...: mct-group -o FORMAT OPTION... FILE succeeds
# and writes what the oracle computes with the same options.
agree() {
	local fmt=$1 f=$2

	shift 2
	mct-group -o "$fmt" "$@" "$f" > got
	gor --check got --format "$fmt" "$@" "$f"
}

# rounded FILE NKEY KEY SPEC...: the cells of the row of FILE (mct-group -o
# tsv output, raw ns) whose first NKEY cells, joined by |, are KEY, each
# rounded as its SPEC says, as the seed prints them: i (the cell as it is),
# s2 s3 s4 (seconds with 2, 3, 4 decimals), ms2 ms3, us2, GB2 GB3, MB2, p2
# (a plain number, 2 decimals: shares).
rounded() {
	local f=$1 nk=$2 key=$3

	shift 3
	awk -F '\t' -v nk="$nk" -v key="$key" -v spec="$*" '
	BEGIN {
		n = split(spec, sp, " ")
		div["s"] = 1e9; div["ms"] = 1e6; div["us"] = 1e3
		div["GB"] = 1e9; div["MB"] = 1e6
	}
	NR > 1 {
		k = $1
		for (i = 2; i <= nk; i++)
			k = k "|" $i
		if (k != key)
			next
		out = ""
		for (i = 1; i <= n; i++) {
			v = $(nk + i); u = sp[i]; d = u
			sub(/[0-9]+$/, "", u)
			sub(/^[A-Za-z]+/, "", d)
			if (u == "i")
				c = v
			else if (u == "p")
				c = sprintf("%." d "f", v)
			else
				c = sprintf("%." d "f %s", v / div[u], u)
			out = out (i > 1 ? " " : "") c
		}
		print out
		found = 1
	}
	END { if (!found) print "no row " key }' "$f"
}

# ---- the seed's tables, from the full-scale generated trace -------------

@test "the seed-shaped trace: mct-cat | mct-filter --pid 2 --pid 3 | mct-group --by category: counts, totals and shares to the seed's rounding" {
	mct-cat "$full" | mct-filter --pid 2 --pid 3 | mct-group --by category -o tsv > cat.tsv
	same "${PIPESTATUS[*]}" "0 0 0"
	same "$(rounded cat.tsv 1 'TileLang custom kernels' i s2 p2)" "444 43.19 s 91.14"
	same "$(rounded cat.tsv 1 'routing/reorder/scatter/gather' i s2 p2)" "5602 3.19 s 6.73"
	same "$(rounded cat.tsv 1 'memcpy/copy' i s2 p2)" "6932 0.81 s 1.71"
	same "$(rounded cat.tsv 1 'mcBLAS/GEMM' i s3 p2)" "260 0.086 s 0.18"
	same "$(rounded cat.tsv 1 'sort/hist/memset' i s3 p2)" "3136 0.042 s 0.09"
	same "$(rounded cat.tsv 1 'elementwise/reduce/fill' i s3 p2)" "1358 0.039 s 0.08"
	same "$(rounded cat.tsv 1 'softmax/topk' i s3 p2)" "448 0.031 s 0.06"
	same "$(rounded cat.tsv 1 'semaphore/sync' i s4 p2)" "222 0.0007 s 0.00"
	# the seed's order is the order of total, and there is no other row
	same "$(tail -n +2 cat.tsv | cut -f1)" "TileLang custom kernels
routing/reorder/scatter/gather
memcpy/copy
mcBLAS/GEMM
sort/hist/memset
elementwise/reduce/fill
softmax/topk
semaphore/sync"
	same "$(head -1 cat.tsv)" "$(printf 'category\tcount\ttotal\tshare\tmean\tmedian\tmin\tmax')"
}

@test "the seed-shaped trace: the category table equals the python oracle exactly (tsv and ndjson)" {
	agree tsv "$dev" --by category
	agree ndjson "$dev" --by category --total
}

@test "the seed-shaped trace: the human table prints the seed's cells: 444, 43.19 s, 91.14%, 5,602, 6,932, and a (total) row" {
	mct-cat "$full" | mct-filter --pid 2 --pid 3 | mct-group --by category -o table > t
	grep -E '^TileLang custom kernels +444 +43\.19 s +91\.14% ' t
	grep -E '^routing/reorder/scatter/gather +5,602 +3\.19 s +6\.73% ' t
	grep -E '^memcpy/copy +6,932 +810\.73 ms +1\.71% ' t
	grep -E '^semaphore/sync +222 +699\.30 us +0\.00% ' t
	grep -E '^\(total\) +18,402 +47\.39 s +100\.00% ' t
	same "$(wc -l < t)" 10
}

@test "the seed-shaped trace: kernel_kernel and kernel_kernel_1: count, total, mean, median, min, max, first, last to the seed's rounding" {
	mct-cat "$full" | mct-filter --pid 2 --name 'kernel_kernel*' |
	    mct-group -a count,total,mean,median,min,max,first,last -o tsv > k.tsv
	same "${PIPESTATUS[*]}" "0 0 0"
	same "$(rounded k.tsv 1 kernel_kernel i s2 ms2 ms2 ms2 ms2 s3 s3)" \
	    "222 31.42 s 141.53 ms 47.29 ms 7.92 ms 256.31 ms 14.286 s 80.213 s"
	same "$(rounded k.tsv 1 kernel_kernel_1 i s2 ms2 ms2 ms2 ms2 s3 s3)" \
	    "222 11.77 s 53.03 ms 17.83 ms 3.18 ms 95.41 ms 14.349 s 80.225 s"
	same "$(tail -n +2 k.tsv | cut -f1)" "kernel_kernel
kernel_kernel_1"
}

@test "the seed-shaped trace: the kernel table equals the python oracle exactly; the human table prints 141.53 ms and 14.286 s" {
	agree tsv "$kern" -a count,total,mean,median,min,max,first,last
	agree ndjson "$kern" -a count,total,mean,median,min,max,first,last --total
	mct-group -o table -a count,total,mean,median,min,max,first,last "$kern" > t
	grep -E '^kernel_kernel +222 +31\.42 s +141\.53 ms +47\.29 ms +7\.92 ms +256\.31 ms +14\.286 s +80\.213 s *$' t
	grep -E '^kernel_kernel_1 +222 +11\.77 s +53\.03 ms +17\.83 ms +3\.18 ms +95\.41 ms +14\.349 s +80\.225 s *$' t
}

@test "the seed-shaped trace: per launch config: calls, mean, total, registers and dynamic shared to the seed's rounding" {
	mct-cat "$full" | mct-filter --pid 2 --name 'kernel_kernel*' |
	    mct-group --by name,args.grid,args.block \
	    -a count,mean,total,max:args.registers_per_thread,max:args.dynamic_shared -o tsv > g.tsv
	same "${PIPESTATUS[*]}" "0 0 0"
	same "$(rounded g.tsv 3 'kernel_kernel|[2056,32,1]|[128,1,1]' i ms2 s2 i i)" "110 253.99 ms 27.94 s 192 32768"
	same "$(rounded g.tsv 3 'kernel_kernel|[1028,16,1]|[128,1,1]' i ms2 s2 i i)" "110 31.00 ms 3.41 s 192 32768"
	same "$(rounded g.tsv 3 'kernel_kernel|[520,32,1]|[128,1,1]' i ms2 s3 i i)" "1 63.35 ms 0.063 s 192 32768"
	same "$(rounded g.tsv 3 'kernel_kernel|[260,16,1]|[128,1,1]' i ms2 s3 i i)" "1 7.92 ms 0.008 s 192 32768"
	same "$(rounded g.tsv 3 'kernel_kernel_1|[2056,56,1]|[128,1,1]' i ms2 s2 i i)" "110 94.72 ms 10.42 s 150 16384"
	same "$(rounded g.tsv 3 'kernel_kernel_1|[1028,28,1]|[128,1,1]' i ms2 s2 i i)" "110 12.05 ms 1.33 s 150 16384"
	same "$(rounded g.tsv 3 'kernel_kernel_1|[520,56,1]|[128,1,1]' i ms2 s3 i i)" "1 23.56 ms 0.024 s 150 16384"
	same "$(rounded g.tsv 3 'kernel_kernel_1|[260,28,1]|[128,1,1]' i ms2 s3 i i)" "1 3.18 ms 0.003 s 150 16384"
	same "$(tail -n +2 g.tsv | wc -l)" 8
}

@test "the seed-shaped trace: the launch-config table equals the python oracle exactly; the human table prints 253.99 ms and 27.94 s" {
	local a=count,mean,total,max:args.registers_per_thread,max:args.dynamic_shared

	agree tsv "$kern" --by name,args.grid,args.block -a "$a"
	agree ndjson "$kern" --by name,args.grid,args.block -a "$a"
	mct-group -o table --by name,args.grid,args.block -a "$a" "$kern" > t
	grep -E '^kernel_kernel +\[2056,32,1\] +\[128,1,1\] +110 +253\.99 ms +27\.94 s +192 +32,768 *$' t
	grep -E '^kernel_kernel_1 +\[2056,56,1\] +\[128,1,1\] +110 +94\.72 ms +10\.42 s +150 +16,384 *$' t
}

@test "the seed-shaped trace: host runtime API (mct-filter --pid 1 --ph X): count, total, median, max to the seed's rounding" {
	mct-cat "$full" | mct-filter --pid 1 --ph X | mct-group -a count,total,median,max -o tsv > h.tsv
	same "${PIPESTATUS[*]}" "0 0 0"
	same "$(rounded h.tsv 1 mcMemcpyAsync i s2 us2 ms2)" "6932 46.54 s 2.59 us 375.58 ms"
	same "$(rounded h.tsv 1 mcDeviceSynchronize i ms2 ms2 ms2)" "2 414.22 ms 207.11 ms 366.88 ms"
	same "$(rounded h.tsv 1 mcModuleLoad i ms2 ms2 ms2)" "1 251.40 ms 251.40 ms 251.40 ms"
	same "$(rounded h.tsv 1 mcStreamSynchronize i ms2 us2 ms2)" "1562 109.06 ms 1.89 us 82.88 ms"
	same "$(rounded h.tsv 1 mcLaunchKernel i ms2 us2 ms2)" "10754 98.81 ms 4.87 us 7.82 ms"
	same "$(rounded h.tsv 1 mcModuleLaunchKernel i ms2 us2 ms2)" "704 22.15 ms 6.31 us 17.42 ms"
	same "$(rounded h.tsv 1 mcGetDevice i ms2 us2 ms3)" "140703 27.50 ms 0.18 us 0.028 ms"
	# largest total first
	same "$(sed -n 2p h.tsv | cut -f1)" mcMemcpyAsync
}

@test "the seed-shaped trace: the host API table equals the python oracle exactly; the human table prints 6,932 46.54 s 2.59 us 375.58 ms" {
	agree tsv "$host" -a count,total,median,max
	mct-group -o table -a count,total,median,max "$host" > t
	grep -E '^mcMemcpyAsync +6,932 +46\.54 s +2\.59 us +375\.58 ms *$' t
	grep -E '^mcGetDevice +140,703 +27\.50 ms +0\.18 us +28\.00 us *$' t
	grep -E '^mcLaunchKernel +10,754 +98\.81 ms +4\.87 us +7\.82 ms *$' t
}

@test "the seed-shaped trace: copies (mct-filter --pid 3 --ph X): count, time, bytes, max bytes to the seed's rounding" {
	mct-cat "$full" | mct-filter --pid 3 --ph X |
	    mct-group -a count,total,sum:args.bytes,max:args.bytes -o tsv > c.tsv
	same "${PIPESTATUS[*]}" "0 0 0"
	same "$(rounded c.tsv 1 'memcpy DTOD(device,device)' i ms2 GB2 GB3)" "5370 790.03 ms 426.01 GB 1.879 GB"
	same "$(rounded c.tsv 1 'memcpy DTOH(device,pageable)' i ms2 i i)" "448 14.74 ms 12544 64"
	same "$(rounded c.tsv 1 'memcpy DTOH(device,pinned)' i ms2 i i)" "226 3.02 ms 1794 8"
	same "$(rounded c.tsv 1 'memcpy HTOD(pinned,device)' i ms2 MB2 i)" "888 2.94 ms 1.38 MB 8224"
}

@test "the seed-shaped trace: the copy table equals the python oracle exactly; the human table prints 426.01 GB, 1.879 GB, 12,544 B, 64 B" {
	agree tsv "$copy" -a count,total,sum:args.bytes,max:args.bytes
	mct-group -o table -a count,total,sum:args.bytes,max:args.bytes "$copy" > t
	grep -E '^memcpy DTOD\(device,device\) +5,370 +790\.03 ms +426\.01 GB +1\.879 GB *$' t
	grep -E '^memcpy DTOH\(device,pageable\) +448 +14\.74 ms +12,544 B +64 B *$' t
	grep -E '^memcpy DTOH\(device,pinned\) +226 +3\.02 ms +1,794 B +8 B *$' t
	grep -E '^memcpy HTOD\(pinned,device\) +888 +2\.94 ms +1\.380? MB +8,224 B *$' t
}

@test "launch latency per API (mct-flow | mct-group --by launch.name --value latency) equals the oracle and sums to gentrace's latency_sum" {
	agree tsv "$flow" --by launch.name --value latency -a count,total,mean,median,min,max,p90,p99
	mct-cat "$full" | mct-flow 2> /dev/null |
	    mct-group --by launch.name --value latency -a count,total --total -o tsv > l.tsv
	want=$(gen --stats | awk '$1 == "latency_sum" { print $2 }')
	pairs=$(gen --stats | awk '$1 == "pairs" { print $2 }')
	same "$(awk -F '\t' '$1 == "(total)" { print $2, $3 }' l.tsv)" "$pairs $want"
}

@test "--value latency (a time between events): count, median, p90, max by default, sorted by median, as python's" {
	agree tsv "$flow" --by launch.name --value latency
	same "$(head -1 got)" "$(printf 'launch.name\tcount\tmedian\tp90\tmax')"
	agree tsv "$flow" --by launch.name --value queue
	same "$(head -1 got)" "$(printf 'launch.name\tcount\tmedian\tp90\tmax')"
	# the table: the same columns, times in their units
	mct-group --by launch.name --value latency -o table "$flow" > t
	[[ "$(head -1 t)" =~ ^launch.name\ +count\ +median\ +p90\ +max$ ]]
	# -a and --sort given: as given
	agree tsv "$flow" --by launch.name --value latency -a count,total,share
	same "$(head -1 got)" "$(printf 'launch.name\tcount\ttotal\tshare')"
	agree tsv "$flow" --by launch.name --value latency --sort count
	# busy time keeps the default of a duration
	agree tsv "$flow" --by name --value launch.dur
	same "$(head -1 got | cut -f2-)" "$(printf 'count\ttotal\tshare\tmean\tmedian\tmin\tmax')"
	# through partials: the merge knows the value, and so its default
	mct-group -o partial --by launch.name --value latency "$flow" > p.nd
	mct-group --merge -o tsv p.nd > m.tsv
	mct-group -o tsv --by launch.name --value latency "$flow" > d.tsv
	cmp m.tsv d.tsv
	same "$(head -1 m.tsv)" "$(printf 'launch.name\tcount\tmedian\tp90\tmax')"
}

# ---- independent checks -------------------------------------------------

@test "--by name on the whole seed stream: count, total, median, min, max equal the python oracle exactly" {
	agree tsv "$fullnd" -a count,total,median,min,max
}

@test "--by name on every fixture: count, total, median, min, max equal the python oracle exactly" {
	slow
	need_fixtures
	local f n=0

	# one python3 process checks them all (group_oracle.py --batch)
	: > q
	for f in "$fixtures"/*.json "$fixtures"/*.json.gz; do
		[ -f "$f" ] || continue
		mct-cat "$f" > "$n.nd" 2> /dev/null || [ $? -eq 1 ]
		mct-group -o tsv --by name -a count,total,median,min,max \
		    "$n.nd" > "$n.tsv"
		mct-group -o ndjson --by name -a count,total,median,min,max,first,last \
		    "$n.nd" > "$n.out.nd"
		printf '%s\n' "--check $n.tsv --format tsv --by name -a count,total,median,min,max $n.nd" \
		    "--check $n.out.nd --format ndjson --by name -a count,total,median,min,max,first,last $n.nd" >> q
		printf '%s\n%s\n' "${f##*/}" "${f##*/}" >> names
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
	gor --batch q > a
	# every answer is "@@ N 0" and nothing else; else say which
	awk 'NR == FNR { name[NR] = $0; next }
	    /^@@ / { k = $2; if ($3 != 0) print name[k] ": exit " $3; next }
	    { print name[k] ": " $0 }' names a
	[ "$(grep -c '^@@ [0-9]* 0$' a)" -eq "$((2 * n))" ]
	[ "$(wc -l < a)" -eq "$((2 * n))" ]
}

@test "every aggregate (p90 p95 p99 stddev first last sum: min: max: mean:) on the device lanes by name equals the oracle" {
	agree tsv "$dev" -a count,total,mean,median,min,max,stddev,p90,p95,p99,first,last,sum:args.registers_per_thread,min:args.dynamic_shared,max:args.dynamic_shared,mean:args.registers_per_thread
}

@test "events in any order: a shuffled trace gives the oracle's table" {
	genf sh.json --scale 0.1 --layout shuffle
	mct-cat sh.json > sh.nd
	agree tsv sh.nd -a count,total,median,min,max,first,last,p95
}

# ---- defaults and output formats ----------------------------------------

@test "default: --by name, -a count,total,share,mean,median,min,max, sorted by total; ndjson when piped" {
	mct-group "$kern" > got
	gor --check got --format ndjson "$kern"
	same "$(head -1 got)" "$(head -1 "$kern")"
}

@test "default output on a terminal is the human table with a (total) row" {
	command -v script > /dev/null || skip "script(1) not installed"
	script -qec "mct-group -a count,total '$kern'" /dev/null | tr -d '\r' > t
	grep -E '^name +count +total *$' t
	grep -E '^kernel_kernel +222 +31\.42 s *$' t
	grep -E '^\(total\) +444 +43\.19 s *$' t
}

@test "-o csv equals the oracle; a key with a comma and quotes is quoted as RFC 4180 says" {
	agree csv "$mix" --by 'name,args."a b"' -a count,total
	grep -qF 'm,"x,""z""",1,50' got
	agree csv "$kern" --by name,args.grid -a count,total,median
}

@test "--no-header: tsv and csv without the header line; a table keeps it" {
	agree tsv "$kern" --no-header -a count,total
	same "$(wc -l < got)" 2
	agree csv "$kern" --no-header -a count,total
	same "$(wc -l < got)" 2
	mct-group -o table --no-header -a count "$kern" > t
	grep -E '^name +count *$' t
}

@test "-o tsv: a null --by value is an empty cell, as in every tsv of mct" {
	printf '%s\n' '{"name":null,"ph":"X","ts":5,"dur":1}' '{"name":"a","ph":"X","ts":6,"dur":2}' |
	    mct-cat -u ns > n.nd
	agree tsv n.nd -a count,total
	same "$(cat got)" "$(printf 'name\tcount\ttotal\na\t1\t2\n\t1\t1')"
}

@test "-o table: key cells are written as in tsv (a tab in a name is \\t)" {
	printf '%s\n' '{"name":"a\tb","ph":"X","ts":5,"dur":1000}' | mct-cat -u ns > tab.nd
	mct-group -o table -a count tab.nd > t
	grep -qF 'a\tb' t
	! grep -q "$(printf 'a\tb')" t
}

@test "-o trace is not a format of mct-group: exit 2 with a message; so is -o bogus" {
	run --separate-stderr mct-group -o trace "$mix"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == *"mct-group: -o: unknown format 'trace'"* ]]
	[[ "$stderr" == *"Try 'mct-group --help' for more information."* ]]
	run --separate-stderr mct-group -o bogus "$mix"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"unknown format 'bogus'"* ]]
}

@test "--time-unit us/ms/s scales the time aggregates exactly in tsv, csv and ndjson; counts, shares and bytes are not scaled" {
	local a=count,total,share,mean,median,min,max,first,last,sum:args.dynamic_shared,p90

	for u in us ms s; do
		echo "# $u"
		agree tsv "$kern" --time-unit "$u" -a "$a"
		agree csv "$kern" --time-unit "$u" -a "$a"
		agree ndjson "$kern" --time-unit "$u" -a "$a"
	done
	mct-group -o tsv --time-unit ms -a count,total,first "$kern" > t
	same "$(sed -n 2p t)" "$(printf 'kernel_kernel\t222\t31419.73\t14286')"
	agree tsv "$flow" --by launch.name --value latency --time-unit us -a count,total,max,sum:latency
	run --separate-stderr mct-group --time-unit h "$mix"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--time-unit: unknown unit 'h'"* ]]
}

# ---- ndjson: a stream that reads back -----------------------------------

@test "ndjson: header line first, --by fields nested back, aggregates under their names, a name, ph X ts dur spanning the group" {
	agree ndjson "$kern" --by name,args.grid,args.block -a count,total,median,first,last,max:args.registers_per_thread
	same "$(head -1 got)" "$(head -1 "$kern")"
	# the record of the big kernel_kernel config, as python reads it
	"$PYTHON3" - got <<-'EOF'
	import json, sys
	lines = open(sys.argv[1]).read().splitlines()
	origin = json.loads(lines[0])["args"]["origin"]
	recs = [json.loads(l) for l in lines[1:]]
	r = [x for x in recs if x["args"]["grid"] == [2056, 32, 1]][0]
	assert r["name"] == "kernel_kernel" and r["args"]["block"] == [128, 1, 1], r
	assert r["count"] == 110 and r["max:args.registers_per_thread"] == 192, r
	assert r["ph"] == "X" and r["ts"] - origin == r["first"], r
	assert r["ts"] + r["dur"] - origin == r["last"], r
	EOF
	agree ndjson "$mix" --by args.grid -a count,total
	grep -qF '"name":"[2,1,1]"' got
}

@test "ndjson: a group's span past int64 ns, its dur, stays at its end, 9223372036854775807, not wrapped negative (it was signed overflow)" {
	# a at -4e18, b at 4e18 for 4e18: each ts and dur a sane time, from
	# the first start to the last end past int64
	printf '%s\n' '{"name":"a","ph":"X","pid":1,"ts":-4000000000000000000,"dur":4000000000000000000}' \
	    '{"name":"b","ph":"X","pid":1,"ts":4000000000000000000,"dur":4000000000000000000}' > far.nd
	run -0 --separate-stderr mct-group -u ns -o ndjson --by pid -a count,first far.nd
	same "${lines[1]}" '{"pid":1,"count":2,"first":0,"name":"1","ph":"X","ts":-4000000000000000000,"dur":9223372036854775807}'
}

@test "ndjson: the name of a record is the key's text when name is not a --by field" {
	agree ndjson "$kern" --by args.grid,args.block -a count
	grep -qF '"name":"[2056,32,1] [128,1,1]"' got
	agree ndjson "$dev" --by category -a count
	grep -qF '"category":"memcpy/copy","count":6932' got
}

@test "ndjson: a three-segment --by path nests three levels deep, and paths that end in the same key do not collide" {
	agree ndjson "$mix" --by args.deep.er.x -a count
	grep -qF '{"args":{"deep":{"er":{"x":1}}},"count":1' got
	printf '%s\n' '{"name":"a","ph":"X","ts":5,"dur":1,"args":{"a":{"b":1},"c":{"b":2}}}' |
	    mct-cat -u ns > ab.nd
	agree ndjson ab.nd --by args.a.b,args.c.b -a count
}

@test "ndjson: groups grouped again (mct-group | mct-group --by name -a count,sum:count,sum:total)" {
	mct-group --by name,args.grid "$kern" > groups.nd
	gor --check groups.nd --format ndjson --by name,args.grid "$kern"
	mct-group --by name -a count,sum:count,sum:total -o tsv groups.nd > got
	gor --check got --by name -a count,sum:count,sum:total groups.nd
	# 4 configurations of each kernel, 222 calls, the kernel's total
	gor --by name -a count,total "$kern" | awk -F '\t' 'NR > 1 { print $1 "\t4\t" $2 "\t" $3 }' | sort > want
	same "$(tail -n +2 got | sort)" "$(cat want)"
}

@test "ndjson: mct-filter reads the groups (--where 'count>100' keeps the four big configurations)" {
	mct-group --by name,args.grid "$kern" | mct-filter --where 'count>100' > big.nd
	same "$(head -1 big.nd)" "$(head -1 "$kern")"
	gor --by name,args.grid -a count "$kern" | awk -F '\t' 'NR > 1 && $3 > 100 { print $2 }' | sort > want
	"$PYTHON3" -c 'import json, sys
for l in open(sys.argv[1]).read().splitlines()[1:]:
    print(json.dumps(json.loads(l)["args"]["grid"], separators=(",", ":")))' big.nd | sort > got
	same "$(cat got)" "$(cat want)"
	same "$(wc -l < got)" 4
}

@test "ndjson: mct-cat --wrap makes a trace python loads, one X event per group from its first start to its last end" {
	mct-group --by name,args.grid -a count,first,last "$kern" | mct-cat --wrap > w.json
	same "${PIPESTATUS[*]}" "0 0"
	origin=$(head -1 "$kern" | "$PYTHON3" -c 'import json, sys; print(json.load(sys.stdin)["args"]["origin"])')
	"$PYTHON3" - w.json "$origin" <<-'EOF'
	import json, sys
	doc = json.load(open(sys.argv[1]))
	origin = int(sys.argv[2])
	ev = doc["traceEvents"]
	assert len(ev) == 8, len(ev)
	for e in ev:
	    assert e["ph"] == "X", e
	    assert e["ts"] - origin == e["first"], e
	    assert e["ts"] + e["dur"] - origin == e["last"], e
	assert sum(e["count"] for e in ev) == 444
	assert "otherData" in doc
	EOF
}

# ---- options --------------------------------------------------------------

@test "-k/--by: several fields, dotted paths and quoted keys equal the oracle; -k is --by" {
	agree tsv "$mix" --by 'name,args."a b"' -a count,total,first,last
	agree tsv "$mix" -k name,tid,args.grid -a count,total
	agree tsv "$kern" -k args.grid -a count,total,median
	agree tsv "$dev" --by pid,tid -a count,total,median
}

@test "--by the virtual fields rel and end equals the oracle" {
	agree tsv "$mix" --by rel -a count,total
	agree tsv "$mix" --by end -a count,total
	agree tsv "$mix" --by name,end -a count,total
}

@test "--by category with --rules FILE: the first matching rule wins, label - is no category; MCT_RULES is the default" {
	printf '%s\n' '# test rules' '-	ph==i' 'kernel	name==k && pid==2' \
	    'slow	dur>=300' 'other	pid==2 || pid==3' > r.rules
	agree tsv "$mix" --by category --rules r.rules -a count,total
	# (other): the event no rule matches (its own row: shares sum to 100%)
	same "$(cat got)" "$(printf 'category\tcount\ttotal\nslow\t2\t1400\nkernel\t3\t600\nother\t2\t57\n(other)\t1\t')"
	agree tsv "$mix" --by category --rules r.rules --missing -a count,total
	MCT_RULES=r.rules agree tsv "$mix" --by category,name -a count,total
}

@test "--rules: a rules file that cannot be read is exit 2 with a message" {
	run --separate-stderr mct-group --by category --rules nonexistent.rules "$mix"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *nonexistent.rules* ]]
}

@test "--value args.bytes, and sum:/min:/max:/mean: of a field that holds numbers and strings holding numbers" {
	agree tsv "$copy" --value args.bytes -a count,total,share,mean,median,min,max
	agree tsv "$mix" --value args.bytes -a count,total,mean,min,max
	agree tsv "$mix" -a count,sum:args.bytes,min:args.bytes,max:args.bytes,mean:args.bytes
	# k: 10 + 20 + "30"; m: null is no value
	same "$(awk -F '\t' '$1 == "k" || $1 == "m"' got)" "$(printf 'k\t3\t60\t10\t30\t20\nm\t3\t\t\t\t')"
}

@test "--value of a field with non-integer values (1.5, \"2.5\", 1e1, -0.25) is computed in doubles, as the oracle" {
	agree tsv "$mix" --value args.w -a count,total,mean,median,min,max,stddev,p90
	agree tsv "$mix" -a count,sum:args.w,min:args.w,max:args.w,mean:args.w
	same "$(awk -F '\t' '$1 == "k" { print $2, $3 }' got)" "3 6"
}

@test "--value: a string that is not a number is no value (it does not count as 0)" {
	agree tsv "$mix" --value name -a count,total,mean,min
	same "$(sed -n 2p got)" "$(printf 'k\t3\t\t\t')"
	printf '%s\n' '{"name":"a","ph":"X","ts":5,"dur":1,"args":{"s":"abc"}}' \
	    '{"name":"a","ph":"X","ts":6,"dur":1,"args":{"s":"12"}}' | mct-cat -u ns > s.nd
	agree tsv s.nd --value args.s -a count,total,mean,min,max
	same "$(sed -n 2p got)" "$(printf 'a\t2\t12\t12\t12\t12')"
}

@test "sum:/min:/max: skip strings that are not numbers (Kineto's string pid \"Spans\" is not 0)" {
	agree tsv "$mix" -a count,max:pid,min:pid,sum:pid
	same "$(awk -F '\t' '$1 == "n"' got)" "$(printf 'n\t1\t\t\t')"
	need_fixtures
	mct-cat "$fixtures/kineto-h100-tiny.json" > h100.nd
	agree tsv h100.nd -a count,max:pid,min:tid
}

@test "-a: every aggregate on the kernels, p0 p50 p100 p99.9 included, equals the oracle" {
	agree tsv "$kern" -a count,total,share,mean,median,min,max,stddev,p0,p50,p90,p95,p99,p99.9,p100,first,last,sum:args.grid,min:args.registers_per_thread,max:args.registers_per_thread,mean:args.dynamic_shared
	agree tsv "$kern" --by args.grid -a median,p50,min,p0,max,p100,stddev
	# p50 is the median, p0 the min, p100 the max; stddev of one value is 0
	awk -F '\t' 'NR > 1 && ($2 != $3 || $4 != $5 || $6 != $7) { exit 1 }' got
	same "$(awk -F '\t' '$1 == "[260,16,1]" { print $8 }' got)" 0
}

@test "-a: medians of an even count are the mean of the two middle values (x.5 ns), stddev is the sample one (n-1)" {
	printf '%s\n' '{"name":"a","ph":"X","ts":1,"dur":1}' '{"name":"a","ph":"X","ts":2,"dur":2}' \
	    '{"name":"a","ph":"X","ts":3,"dur":5}' '{"name":"a","ph":"X","ts":4,"dur":10}' | mct-cat -u ns > e.nd
	agree tsv e.nd -a count,median,stddev,p25,p75
	same "$(sed -n 2p got | cut -f1-3)" "$(printf 'a\t4\t3.5')"
	# sample stddev of 1 2 5 10 (mean 4.5): sqrt(49 / 3)
	"$PYTHON3" -c 'import sys, math; assert abs(float(sys.argv[1]) - math.sqrt(49 / 3)) < 1e-9' \
	    "$(sed -n 2p got | cut -f4)"
}

@test "-a: percentiles of integer values are exact (no floating-point noise in the ns)" {
	# p90 of 11 values 0, 10, ..., 100 is 90; of 0, 1, 2, 3 p90 is 2.7 and
	# p70 2.1 (not 2.0999999999999996)
	for i in 0 1 2 3 4 5 6 7 8 9 10; do
		printf '{"name":"a","ph":"X","ts":%d,"dur":%d}\n' "$i" "$((i * 10))"
	done > p.json
	for i in 0 1 2 3; do
		printf '{"name":"b","ph":"X","ts":%d,"dur":%d}\n' "$i" "$i"
	done >> p.json
	mct-cat -u ns p.json > p.nd
	mct-group -o tsv -a count,p90,p70 p.nd > got
	gor --check got --exact-quantiles -a count,p90,p70 p.nd
	mct-group -o tsv -a count,p90,p95,p99 "$dev" > got
	gor --check got --exact-quantiles -a count,p90,p95,p99 "$dev"
	need_fixtures
	mct-cat "$fixtures/chrome116-devtools.json" > c.nd
	mct-group -o tsv -a count,p90,p99 c.nd > got
	gor --check got --exact-quantiles -a count,p90,p99 c.nd
}

@test "-a: an unknown aggregate is exit 2 with a message" {
	for a in bogus p101 px sum: foo:args.x 'sum:args.' total,Count; do
		echo "# -a $a"
		run --separate-stderr mct-group -a "$a" "$mix"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[[ "$stderr" == *"mct-group: -a: "* ]]
		[[ "$stderr" == *"Try 'mct-group --help' for more information."* ]]
	done
	run --separate-stderr mct-group -a p101 "$mix"
	[[ "$stderr" == *"unknown aggregate 'p101'"* ]]
}

@test "-s/--sort AGG: largest first, ties by key; -r reverses the whole order" {
	agree tsv "$shost" -a count,total --sort count
	same "$(sed -n 2p got | cut -f1)" mcGetDevice
	agree tsv "$shost" -a count,total,median -s median
	agree tsv "$shost" -a count,total,median -s median -r
	agree tsv "$shost" -a count,total,median -r
	agree tsv "$dev" -a count,total,max --sort max
	# equal counts (110 each) are ordered by the key
	agree tsv "$kern" --by name,args.grid -a count,total --sort count
}

@test "--sort an aggregate that is not a column still sorts by it" {
	agree tsv "$shost" -a total --sort count
	same "$(sed -n 2p got | cut -f1)" mcGetDevice
}

@test "--sort a --by field: A to Z (its JSON text), ties by the whole key; -r Z to A" {
	agree tsv "$shost" -a count --sort name
	agree tsv "$shost" -a count --sort name -r
	agree tsv "$kern" --by name,args.grid -a count,total --sort args.grid
	agree tsv "$kern" --by name,args.grid -a count,total --sort name
	agree tsv "$kern" --by args.grid,name -a count,total --sort name -r
}

@test "--sort an unknown name is exit 2 with a message" {
	run --separate-stderr mct-group -a count,total --sort bogus "$mix"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == *bogus* ]]
}

@test "-n/--top N: the first N groups, then (others) with the aggregates of the rest (count and total summed, median of the union)" {
	agree tsv "$shost" -a count,total,share,median,min,max,first,last,p90 --top 3
	same "$(tail -n +2 got | wc -l)" 4
	same "$(tail -1 got | cut -f1)" "(others)"
	# the others' count and total are the other groups' sums
	gor -a count,total "$shost" | awk -F '\t' 'NR > 4 { n += $2; t += $3 } END { printf "%d %.0f\n", n, t }' > want
	same "$(awk -F '\t' '$1 == "(others)" { printf "%d %.0f\n", $2, $3 }' got)" "$(cat want)"
	agree ndjson "$shost" -a count,total,median --top 2 --total
	agree tsv "$dev" --by category -a count,total,median -n 2 --total -r
}

@test "--top N with N at least the number of groups: no (others) row" {
	agree tsv "$kern" -a count,total --top 2
	! grep -q others got
	agree tsv "$kern" -a count,total --top 100
}

@test "--top: 0, -1, 1.5, x and an empty value are exit 2 with a message" {
	for n in 0 -1 1.5 x ''; do
		echo "# --top '$n'"
		run --separate-stderr mct-group --top "$n" "$mix"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[[ "$stderr" == *"mct-group: --top: invalid number '$n'"* ]]
	done
}

@test "--total: a (total) row in tsv, csv and ndjson only when asked; always in a table" {
	agree tsv "$kern" -a count,total,median
	! grep -qF '(total)' got
	agree tsv "$kern" -a count,total,median --total
	same "$(tail -1 got | cut -f1,2)" "$(printf '(total)\t444')"
	agree csv "$kern" -a count,total,median --total
	agree ndjson "$kern" -a count,total,median --total
	mct-group -o table -a count "$kern" > t
	grep -E '^\(total\) +444 *$' t
}

@test "--missing: events that lack a --by field are left out, or with --missing grouped with that field empty" {
	agree tsv "$mix" --by args.grid -a count,total
	agree tsv "$mix" --by args.grid -a count,total --missing
	same "$(awk -F '\t' '$1 == ""' got)" "$(printf '\t4\t1400')"
	agree ndjson "$mix" --by args.grid -a count,total --missing
	grep -qF '{"args":{"grid":null},"count":4,"total":1400' got
}

@test "share is of the value of every event of the input, also of events left out for lacking a --by field" {
	agree tsv "$mix" --by args.grid -a count,total,share --total
	same "$(awk -F '\t' '$1 == "(total)" { printf "%d %d %.6f\n", $2, $3, $4 }' got)" "5 657 31.939718"
}

@test "count counts every event; a group none of whose events has the value has empty value aggregates (- in a table, null in ndjson)" {
	printf '%s\n' '{"name":"a","ph":"X","ts":1,"dur":10}' '{"name":"a","ph":"i","ts":2}' \
	    '{"name":"c","ph":"C","ts":3,"args":{"v":1}}' '{"name":"c","ph":"C","ts":7,"args":{"v":2}}' |
	    mct-cat -u ns > v.nd
	agree tsv v.nd -a count,total,mean,median,min,max,stddev,p90,first,last
	same "$(cat got)" "$(printf 'name\tcount\ttotal\tmean\tmedian\tmin\tmax\tstddev\tp90\tfirst\tlast
a\t2\t10\t10\t10\t10\t10\t0\t10\t0\t10
c\t2\t\t\t\t\t\t\t\t2\t6')"
	agree ndjson v.nd -a count,total,share,mean
	grep -qF '"name":"c","count":2,"total":null,"share":null,"mean":null' got
	mct-group -o table -a count,total,share v.nd > t
	grep -E '^c +2 +- +- *$' t
	agree tsv v.nd -a count,total,share
}

@test "--meta: metadata events count only with --meta; the header line never" {
	agree tsv "$mix" -a count,total
	! grep -q process_name got
	agree tsv "$mix" -a count,total --meta
	same "$(awk -F '\t' '$1 == "process_name" { print $2 }' got)" 1
	! grep -q mct_header got
	agree tsv "$fullnd" --meta --by ph -a count
	same "$(awk -F '\t' '$1 == "M" { print $2 }' got)" "$(gen --stats | awk '$1 == "M" { print $2 }')"
}

@test "-u/--unit: a trace read directly has its unit detected, or given" {
	# microseconds with a fraction: detected; read as ns with -u ns
	genf s.json --scale 0.02 --unit us
	mct-cat s.json > auto.nd
	mct-cat -u ns s.json > ns.nd
	mct-group -o tsv -a count,total,median,first,last s.json > got
	gor --check got -a count,total,median,first,last auto.nd
	mct-group -o tsv -u ns -a count,total,median,first,last s.json > got
	gor --check got -a count,total,median,first,last ns.nd
	mct-group -o tsv --unit ns -a count,total s.json > got
	gor --check got -a count,total ns.nd
	run --separate-stderr mct-group -u parsec s.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--unit: unknown unit 'parsec'"* ]]
}

# ---- errors, exit status, help ------------------------------------------

@test "--by and --value with an invalid field are exit 2 with a message" {
	for by in 'args.' '' 'a..b' 'args."x'; do
		echo "# --by '$by'"
		run --separate-stderr mct-group --by "$by" "$mix"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[[ "$stderr" == *"mct-group: --by: invalid field list '$by'"* ]]
	done
	run --separate-stderr mct-group --value 'a..b' "$mix"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"mct-group: --value: invalid field 'a..b'"* ]]
	run --separate-stderr mct-group --bogus "$mix"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"Try 'mct-group --help' for more information."* ]]
}

@test "an unreadable file is exit 2 with 'No such file or directory'; the other operands are still read" {
	run --separate-stderr mct-group -o tsv -a count nonexistent.nd
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"mct-group: nonexistent.nd: No such file or directory"* ]]
	run --separate-stderr mct-group -o tsv -a count nonexistent.nd "$kern"
	[ "$status" -eq 2 ]
	same "$(printf '%s\n' "$output" | cut -f1,2)" "$(printf 'name\tcount\nkernel_kernel\t222\nkernel_kernel_1\t222')"
}

@test "a damaged stream line is reported and skipped: exit 1, every intact event counted" {
	{ head -3 "$mix"; echo '{"name":"k","ph":"X","ts":'; tail -n +4 "$mix"; } > bad.nd
	run --separate-stderr mct-group -o tsv -a count,total,first,last bad.nd
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"bad.nd:4:"* ]]
	printf '%s\n' "$output" > got
	gor --check got -a count,total,first,last "$mix"
}

@test "cut names stay distinct: long names alike but at their end, in table and md, at --width 60 and 20; mct-diff too" {
	"$PYTHON3" - <<'EOF'
import json
pre = "void at::native::vectorized_elementwise_kernel<4, at::native::"
names = [pre + f + "<float>, at::detail::Array<char*, 2> >(int, at::native::"
         + f + "<float>, at::detail::Array<char*, 2>)"
         for f in ("FillFunctor", "AddFunctor", "MulFunctor")]
# alike but for their last character, and one the start of the others
names += ["k" * 90 + "_a", "k" * 90 + "_b", "k" * 90, "short one"]
ev = [{"name": n, "ph": "X", "cat": "kernel", "ts": 10 * i, "dur": 1 + i}
      for i, n in enumerate(names)]
json.dump({"traceEvents": ev}, open("t.json", "w"))
open("names", "w").write("".join(n + "\n" for n in names))
EOF
	local w
	# cut alone at 60, the three kernels and the two k names would be alike
	same "$(cut -c1-59 names | sort -u | wc -l)" 3
	for w in 60 20; do
		mct-group -a count -o table --width "$w" t.json > g.txt
		oracle names_check.py cuts "$w" names g.txt
		mct-group -a count -o md --width "$w" t.json > g.md
		oracle names_check.py md g.md
	done
	# at 60 the functor is shown, after the kernel's name
	run grep -c '^void at::native::vectorized_elementwise_kernel…[A-Za-z]*Functor' \
	    <(mct-group -a count -o table t.json)
	same "$output" 3
	# a name like no other is cut as it always was: 59 characters and …
	mct-group -a count -o table t.json | grep -q "^$(printf 'k%.0s' $(seq 59))…  "
	# mct-diff: its key column too
	mct-diff -o table t.json t.json 2>/dev/null | sed -n '/^name /,$p' > d.txt
	oracle names_check.py cuts 60 names d.txt
}

@test "a write error (>/dev/full) exits 2 with 'mct-group: write error: No space left on device'" {
	for o in ndjson tsv csv table; do
		echo "# -o $o"
		run --separate-stderr bash -c 'mct-group -o "$0" "$1" > /dev/full' "$o" "$kern"
		[ "$status" -eq 2 ]
		same "$stderr" "mct-group: write error: No space left on device"
	done
}

@test "--help: usage on stdout, exit 0; -V/--version" {
	docs
	run --separate-stderr mct-group --help
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "${lines[0]}" == "usage: mct-group "* ]]
	run mct-group -h
	[ "$status" -eq 0 ]
	run mct-group --version
	[ "$status" -eq 0 ]
	[[ "$output" == "mct-group (mct) "* ]]
	run mct-group -V
	[[ "$output" == "mct-group (mct) "* ]]
}

@test "man page: SYNOPSIS is the usage line, every long option of --help is in it, mandoc -Tlint is clean" {
	docs
	local man="$MCT_SRCDIR/man/mct-group.1" o

	[ -f "$man" ]
	usage=$(mct-group --help | head -1)
	synopsis=$(awk '/^\.Sh SYNOPSIS/ { f = 1; next } /^\.Sh/ { f = 0 } f' "$man" | awk '
	    $1 == ".Nm" { printf "mct-group" }
	    $1 == ".Op" && $2 == "Ar" && NF == 2 { printf " [file ...]"; next }
	    $1 == ".Op" {
		s = ""
		for (i = 2; i <= NF; i++)
			if ($i == "Fl") s = s (s == "" ? "" : " ") "-" $(++i)
			else if ($i == "Ar") s = s " " $(++i)
		printf " [%s]", s
	    }')
	same "usage: $synopsis" "$usage"
	for o in $(mct-group --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
		echo "# $o"
		grep -qF -- "Fl \\${o#-}" "$man"
	done
	command -v mandoc > /dev/null || skip "mandoc not installed"
	same "$(mandoc -Tlint -W warning "$man" 2>&1)" ""
}

@test "--table: several tables of one read, each the table of its own run, marked by its BY[:VALUE[:AGGS]] in md, table, tsv and ndjson; not with --by, --value, -a, -o partial, --merge" {
	cd "$BATS_TEST_TMPDIR"
	f=$BATS_FILE_TMPDIR/shost.nd
	set -- --table name --table 'name::count,total' --table 'pid,tid:dur:count,p90'
	# md: "### SPEC", a blank line, the table; a blank line between two
	mct-group -n 3 -o md "$@" "$f" > all.md
	same "$(grep '^### ' all.md)" "$(printf '### %s\n' name 'name::count,total' 'pid,tid:dur:count,p90')"
	awk '/^### / { n++; getline; next } $0 != "" { print > ("t" n) }' all.md
	mct-group -n 3 -o md "$f" | cmp - t1
	mct-group -n 3 -o md -a count,total "$f" | cmp - t2
	mct-group -n 3 -o md --by pid,tid -a count,p90 "$f" | cmp - t3
	# tsv and table: "# SPEC" before each, the same rows
	mct-group -o tsv --table name --table 'tid::count' "$f" > all.tsv
	same "$(grep '^# ' all.tsv)" "$(printf '# %s\n' name 'tid::count')"
	same "$(sed -n '/^# tid::count$/,$p' all.tsv | sed 1d)" "$(mct-group -o tsv --by tid -a count "$f")"
	mct-group -o table --table name --table 'tid::count' "$f" | grep -qx '# tid::count'
	# ndjson: one header, every row's first member names its table; the
	# rows of a table are those of its own run
	mct-group --table name --table 'tid::count' "$f" > all.nd
	[ "$(grep -c '"mct_header"' all.nd)" -eq 1 ]
	[ "$(tail -n +2 all.nd | grep -vc '^{"table":"')" -eq 0 ]
	same "$(grep '^{"table":"tid::count",' all.nd | sed 's/^{"table":"tid::count",/{/')" \
	    "$(mct-group --by tid -a count "$f" | tail -n +2)"
	# a table of the several is python's (one read: every table whole)
	{ head -n 1 all.nd; grep '^{"table":"tid::count",' all.nd |
	    sed 's/^{"table":"tid::count",/{/'; } > got.nd
	gor --check got.nd --format ndjson --by tid -a count "$f"
	# a table's own options are in its SPEC
	for o in "--by tid" "--value dur" "-a count" "-o partial" "--merge"; do
		run --separate-stderr mct-group --table name $o "$f"
		[ "$status" -eq 2 ]
		[[ "$stderr" == "mct-group: --table: not with --by, --value, -a, -o partial or --merge (a table's own are in its --table)"* ]]
	done
}

@test "--table 'SPEC;top=N;where=EXPR': a table's own top and selection, each table that of mct-filter --where EXPR | mct-group -n N, and python's; the messages" {
	cd "$BATS_TEST_TMPDIR"
	f=$BATS_FILE_TMPDIR/shost.nd
	d=$BATS_FILE_TMPDIR/dev.nd
	mct-group -o md -n 4 --table 'name::count,total' \
	    --table 'name::count,total;top=2' \
	    --table 'tid::count,total;where=dur >= 10us && name ~ ^mc' \
	    --table 'name::count,max;top=3;where=name ~ "^mc(Get|Set)" || tid == 0' \
	    "$f" > all.md
	awk '/^### / { n++; getline; next } $0 != "" { print > ("t" n) }' all.md
	[ -s t4 ]
	# no where= and no top=: the run's -n; top= overrides it
	mct-group -n 4 -o md -a count,total "$f" | cmp - t1
	mct-group -n 2 -o md -a count,total "$f" | cmp - t2
	# where= selects as mct-filter --where does (the run's -n: every table's)
	mct-filter --where 'dur >= 10us && name ~ ^mc' "$f" |
	    mct-group -n 4 -o md --by tid -a count,total | cmp - t3
	mct-filter --where 'name ~ "^mc(Get|Set)" || tid == 0' "$f" |
	    mct-group -n 3 -o md -a count,max | cmp - t4
	# and python's: the events of the selection, made by python, grouped
	mct-group -o tsv --table 'tid::count,total,max;where=dur >= 10us' "$f" |
	    sed 1d > got.tsv
	"$PYTHON3" -c '
import json, sys
for i, l in enumerate(open(sys.argv[1])):
    e = json.loads(l)
    if i == 0 or e.get("ph") == "M" or e.get("dur", 0) >= 10000:
        print(l, end="")' "$f" > sel.nd
	[ "$(wc -l < sel.nd)" -gt 10 ]
	gor --check got.tsv --by tid -a count,total,max sel.nd
	# a where= of category: as mct-filter --category, the rules once
	mct-group -o tsv --table 'name::count,total;where=category == "memcpy/copy"' "$d" |
	    sed 1d > cp.tsv
	[ "$(wc -l < cp.tsv)" -gt 1 ]
	mct-filter --category memcpy/copy "$d" | mct-group -o tsv -a count,total | cmp - cp.tsv
	run --separate-stderr mct-group --rules /nonexistent --table 'name;where=category == x' "$d"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"/nonexistent"* ]]
	# a where= field no event has: its table written, then exit 2, as
	# mct-filter --where; a key of the trace format's own only warned of
	run --separate-stderr mct-group -o tsv --table name --table 'tid;where=args.grd' "$f"
	[ "$status" -eq 2 ]
	same "$stderr" "mct-group: --table 'tid;where=args.grd': no event has the field 'args.grd'"
	[[ "$output" == *"# tid;where=args.grd"* ]]
	run --separate-stderr mct-group -o tsv --table 'tid;where=id' "$f"
	[ "$status" -eq 0 ]
	same "$stderr" "mct-group: --table 'tid;where=id': no event has the field 'id' (did you mean 'pid'?)"
	# the parts' messages
	run --separate-stderr mct-group --table 'name;top=0' "$f"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "mct-group: --table top=: invalid number '0'"* ]]
	run --separate-stderr mct-group --table 'name;sort=count' "$f"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "mct-group: --table: unknown part 'sort=count' in 'name;sort=count' (want top=N, o=FORMAT or where=EXPR)"* ]]
	run --separate-stderr mct-group --table 'name;where=dur >' "$f"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "mct-group: --table where=: "*" in 'dur >'"* ]]
}

@test "--table 'SPEC;o=FORMAT': a table in a format of its own among the others, each that of its own run, its heading its format's; not among ndjson; the messages" {
	cd "$BATS_TEST_TMPDIR"
	f=$BATS_FILE_TMPDIR/shost.nd
	mct-group --meta -o tsv --no-header --table 'ph::count,first,last' \
	    --table 'name::count,total,median;top=3;o=md;where=ph == X' \
	    --table 'tid::count;o=csv' --table 'name::count,max;top=2;o=table' \
	    "$f" > all.out
	same "$(grep -E '^#+ ' all.out)" "$(printf '%s\n' '# ph::count,first,last' \
	    '### name::count,total,median;top=3;o=md;where=ph == X' '# tid::count;o=csv' \
	    '# name::count,max;top=2;o=table')"
	awk '/^#+ / { n++; if ($0 ~ /^### /) getline; next } $0 != "" { print > ("t" n) }' all.out
	mct-group --meta -o tsv --no-header -a count,first,last --by ph "$f" | cmp - t1
	mct-filter --where 'ph == X' "$f" | mct-group -n 3 -o md -a count,total,median | cmp - t2
	mct-group --meta -o csv --no-header --by tid -a count "$f" | cmp - t3
	mct-group --meta -n 2 -o table -a count,max "$f" | cmp - t4
	# the tsv table is python's, whatever the md one beside it
	gor --check t1 --format tsv --no-header --meta --by ph -a count,first,last "$f"
	# not among ndjson (the default off a terminal); an unknown format
	run --separate-stderr mct-group --table 'name;o=md' "$f"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "mct-group: --table 'name;o=md': a format of its own, but the output is ndjson (want -o table, tsv, csv or md)"* ]]
	for fmt in json ndjson trace partial ''; do
		run --separate-stderr mct-group -o md --table "name;o=$fmt" "$f"
		[ "$status" -eq 2 ]
		[[ "$stderr" == "mct-group: --table o=: unknown format '$fmt' in 'name;o=$fmt' (want table, tsv, csv or md)"* ]]
	done
}

@test "tsv and csv: a whole number past 10^15 (a mean or total of absolute ts) is plain digits, never an exponent" {
	local k=$MCT_SRCDIR/examples/pytorch-small.pt.trace.json
	mct-group --by cat --value ts -o tsv "$k" > ts.tsv
	mct-group --by cat --value ts -o csv "$k" > ts.csv
	# the means of ts (about 1.4e18 ns) are whole doubles
	[ "$(awk -F '\t' 'NR > 1 && $5 ~ /^[0-9]+$/ && length($5) == 19' ts.tsv | wc -l)" -gt 0 ]
	if grep -E '[0-9][eE][+-]?[0-9]' ts.tsv ts.csv; then return 1; fi
}

@test "--by step,name: a host event by its thread's innermost ProfilerStep#N, device work by its launch's step, as python's (the README's PyTorch trace); --by step; --table; the stream alike; --step-name; stdin: the step events carry" {
	local ex=$MCT_SRCDIR/examples/pytorch-small.pt.trace.json py

	mct-cat "$ex" > s.nd
	py=$(oracle step_oracle.py --group s.nd | sort)
	[ "$(printf '%s\n' "$py" | cut -f1 | sort -u | wc -l)" -eq 4 ]
	same "$(mct-group --by step,name -a count,total -o tsv --no-header "$ex" | sort)" "$py"
	same "$(mct-group --by step,name -a count,total -o tsv --no-header s.nd | sort)" "$py"
	same "$(mct-group --table step,name:dur:count,total -o tsv --no-header "$ex" | sed 1d | sort)" "$py"
	same "$(mct-group --by step -a count -o tsv --no-header "$ex" | sort)" \
	    "$(printf '%s\n' "$py" | awk -F'\t' -v OFS='\t' '{ n[$1] += $3 } END { for (s in n) print s, n[s] }' | sort)"
	# --step-name: the same steps under another name
	sed 's/ProfilerStep#/train#/g' s.nd > t.nd
	same "$(mct-group --step-name train --by step,name -a count,total -o tsv --no-header t.nd | sed 's/train#/ProfilerStep#/' | sort)" "$py"
	run --separate-stderr mct-group --by step -o tsv t.nd
	same "$stderr" "mct-group: --by: no event has the field 'step'"
	# stdin is read once: only a step the events carry (mct-flow --stack's)
	run --separate-stderr mct-group --by step -o tsv < "$ex"
	same "$stderr" "mct-group: --by: no event has the field 'step'"
	mct-flow -q --stack "$ex" > pairs.nd
	same "$(mct-group --by step -a count -o tsv < pairs.nd)" \
	    "$(mct-group --by step -a count -o tsv pairs.nd)"
	# damaged input is said once (the first read is quiet)
	head -c 2000 "$ex" > cut.json
	run --separate-stderr mct-group --by step,name cut.json
	[ "$status" -eq 1 ]
	same "$stderr" "$(mct-group --by name cut.json 2>&1 >/dev/null)"
}

@test "--by step,name of an mcTracer trace (no step annotation): the rounds of mct-phases, as python's own phases cut them (each steady phase's rounds mct-phases' count); an event by its ts; outside every round, in no step" {
	genf t.json --scale 0.03
	mct-cat t.json > t.nd
	oracle step_oracle.py --all t.nd > py.json
	"$PYTHON3" -c 'import json, sys
d = json.load(open(sys.argv[1]))
open("group", "w").write("".join(l + "\n" for l in d["group"]))
print(" ".join(map(str, d["phase_rounds"])), len(d["rounds"]))' py.json > py.n
	[ "$(wc -l < group)" -gt 20 ]
	same "$(mct-group --by step,name -a count,total -o tsv --no-header t.json | sort)" "$(sort group)"
	same "$(mct-group --by step,name -a count,total -o tsv --no-header t.nd | sort)" "$(sort group)"
	# the rounds of each steady phase are those mct-phases counts
	same "$(mct-phases -o tsv t.json | awk -F'\t' '$1 == "steady" { printf "%s%s", s, $7; s = " " }') $(mct-group --by step -o tsv --no-header t.json | wc -l)" \
	    "$(cat py.n)"
	# the events before the first round (init, warmup) are in none
	[ "$(awk -F'\t' '{ n += $3 } END { print n }' group)" -lt "$(mct-group --by ph -a count -o tsv --no-header t.json | awk -F'\t' '{ n += $2 } END { print n }')" ]
	# stdin is read once: no step
	run --separate-stderr mct-group --by step -o tsv < t.json
	same "$stderr" "mct-group: --by: no event has the field 'step'"
}

@test "--by step,name on the Kineto fixtures with ProfilerStep# (kineto-diff-control and -test) as python's (make check-full: python reads 35 MB a trace)" {
	need_fixtures
	[ "${MCT_TEST_FULL:-0}" = 1 ] || skip "python's 3 s a fixture: in make check-full"
	local f n=0

	for f in "$fixtures"/kineto-diff-control.json.gz "$fixtures"/kineto-diff-test.json.gz; do
		[ -r "$f" ] || continue
		mct-cat "$f" > s.nd
		same "$(mct-group --by step,name -a count,total -o tsv --no-header "$f" | sort)" \
		    "$(oracle step_oracle.py --group s.nd | sort)"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || skip "kineto-diff-control and -test absent"
}

@test "ndjson: a --by field named as a key written after it (an aggregate, ph, ts, dur) stands once, the later, as python computes it (it was written twice)" {
	cat > t.json <<-'EOF'
	{"traceEvents":[
	{"ph":"X","name":"a","pid":1,"tid":1,"ts":10,"dur":5,"count":3},
	{"ph":"X","name":"a\"q","pid":1,"tid":1,"ts":30,"dur":5,"count":3},
	{"ph":"i","name":"b","pid":1,"tid":1,"ts":20,"s":"t"}]}
	EOF
	for by in count ph dur ts count,name; do
		mct-group --by "$by" -a count,sum:dur t.json > "by-$by.nd"
	done
	"$PYTHON3" - t.json <<'PY'
import json, os, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
sys.path.insert(0, os.environ["MCT_SRCDIR"] + "/tests")
from oracle import keys_once as once
for by in ("count", "ph", "dur", "ts", "count,name"):
    f = by.split(",")
    recs = [json.loads(l, object_pairs_hook=once) for l in open("by-%s.nd" % by)][1:]
    groups = {}
    for e in ev:
        if any(k not in e for k in f):
            continue	# no group
        groups.setdefault(tuple(json.dumps(e[k] * 1000 if k in ("ts", "dur") else e[k])
                                for k in f), []).append(e)
    assert len(recs) == len(groups), (by, recs)
    for key, g in groups.items():
        first = min(e["ts"] for e in g) * 1000
        last = max(e["ts"] + e.get("dur", 0) for e in g) * 1000
        r = [r for r in recs if r.get("count") == len(g) and r.get("ts") == first]
        assert len(r) == 1, (by, key, recs)
        r = r[0]
        assert (r["ph"], r["dur"]) == ("X", last - first), (by, r)
        d = [e["dur"] * 1000 for e in g if "dur" in e]
        assert r["sum:dur"] == (sum(d) if d else None), (by, r)
        if by != "count,name":
            want = " ".join(json.loads(k) if isinstance(json.loads(k), str) else k for k in key)
            assert r["name"] == want, (by, r, want)
PY
}
