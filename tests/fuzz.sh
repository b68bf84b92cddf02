#!/bin/sh
# fuzz.sh - build the libFuzzer targets of mct with AddressSanitizer and
# UndefinedBehaviorSanitizer, seed a corpus for each and run them.  Not part
# of make check: run it as `make fuzz` or directly.
#
#   reader    tests/fuzz-reader.c: the scanner, field access and the reader
#             end to end (trace and stream input)
#   parsers   tests/fuzz-parsers.c: times, --where predicates (parsed and
#             evaluated), field lists, rules files
#   partial   tests/fuzz-partial.c: mct-group's partials (--merge), read,
#             checked, written and read back
#   rankpart  tests/fuzz-partial.c -DFUZZ_RANKPART: mct-ranks' partials
#             (--merge), read, checked, aligned, written and read back
#   mlog      tests/fuzz-mlog.c: mct-metrics' CSV/TSV metric logs (header,
#             lines, values with units, wall times, the step function)
#
# usage: tests/fuzz.sh [BUILDDIR]
#
#   BUILDDIR        a configured build directory whose config.h to use;
#                   without one a minimal config.h is generated
#
# environment:
#   FUZZ_TARGETS    the targets to run (default "reader parsers mlog"; also
#                   partial, rankpart)
#   FUZZ_SECONDS    how long to fuzz each target (default 60)
#   FUZZ_DIR        work directory (default /tmp/mct-fuzz): the binaries,
#                   corpus-TARGET/ (kept between runs), artifacts/ (crashes,
#                   named TARGET-crash-..., TARGET-leak-...), TARGET.log
#   FUZZ_TMP        TMPDIR for the targets' input and spool files (default a
#                   directory in /dev/shm if it is writable: twice as fast)
#   FUZZ_JOBS       with several targets, how many run at once (default 1;
#                   2 runs reader and parsers side by side); with one target,
#                   libFuzzer's -fork=N
#   FUZZ_QUIET      1 (default): hide the targets' warnings (-close_fd_mask=2;
#                   sanitizer reports are still shown); 0 to see them
#   FUZZ_RULES      0: the parsers target does not load its inputs as rules
#                   files too (default 1: it does)
#   FUZZ_ARGS       more libFuzzer options (for every target)
#   MCT_FIXTURES    real traces to seed from (default ../shared/fixtures)
#   FUZZ_CC         the compiler (default clang; it needs -fsanitize=fuzzer)
#   FUZZ_CXX        the C++ compiler of lib/demangle.cc (default clang++)
#   FUZZ_CFLAGS     more compiler flags, after the others: to look past a
#                   known finding, e.g. -fsanitize-recover=signed-integer-overflow
#                   with UBSAN_OPTIONS=halt_on_error=0:suppressions=FILE
#
# Exit status: 0 if no target found anything; otherwise 1 (or the status of
# the one target that failed), after every new artifact is printed in
# base64.  Each target's last statistics are printed at the end.
set -eu

srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=${1:-}
targets=${FUZZ_TARGETS:-reader parsers mlog}
seconds=${FUZZ_SECONDS:-60}
dir=${FUZZ_DIR:-/tmp/mct-fuzz}
jobs=${FUZZ_JOBS:-1}
quiet=${FUZZ_QUIET:-1}
fixtures=${MCT_FIXTURES:-$srcdir/../shared/fixtures}
cc=${FUZZ_CC:-clang}

for t in $targets; do
	case $t in
	reader|parsers|mlog|partial|rankpart) ;;
	*) echo "fuzz.sh: unknown target '$t' (want reader, parsers, mlog, partial, rankpart)" >&2; exit 2 ;;
	esac
done
command -v "$cc" >/dev/null 2>&1 || {
	echo "fuzz.sh: $cc not found (apt-get install clang)" >&2
	exit 2
}
mkdir -p "$dir/artifacts" "$dir/include"
if [ -n "${FUZZ_TMP:-}" ]; then
	tmp=$FUZZ_TMP
	mkdir -p "$tmp"
elif [ -d /dev/shm ] && [ -w /dev/shm ]; then
	tmp=$(mktemp -d /dev/shm/mct-fuzz.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
else
	tmp=$dir/tmp
	mkdir -p "$tmp"
fi
# A corpus of an older fuzz.sh (one target, corpus/) is the reader's.
if [ -d "$dir/corpus" ] && [ ! -d "$dir/corpus-reader" ]; then
	mv "$dir/corpus" "$dir/corpus-reader"
fi

# config.h: the build directory's, or a minimal one.
if [ -n "$builddir" ]; then
	[ -f "$builddir/config.h" ] || {
		echo "fuzz.sh: $builddir/config.h: not found (run configure)" >&2
		exit 2
	}
	inc=$(cd "$builddir" && pwd)
else
	inc=$dir/include
	version=$(sed -n 's/^AC_INIT(\[mct\], \[\([^]]*\)\].*/\1/p' \
	    "$srcdir/configure.ac")
	cat >"$inc/config.h.new" <<EOF
/* config.h for tests/fuzz.sh: the little of configure's that lib/ uses */
#define PACKAGE_NAME "mct"
#define PACKAGE_VERSION "${version:-0}"
#ifndef _GNU_SOURCE
# define _GNU_SOURCE 1
#endif
EOF
	mv "$inc/config.h.new" "$inc/config.h"
fi

# Build: each target and every lib/*.c, all instrumented.
jflags=$(pkg-config --cflags json-c 2>/dev/null || true)
jlibs=$(pkg-config --libs json-c 2>/dev/null || true)
# the build's gzip inflater: ISA-L's if its config.h says so
zlibs=-lz
if grep -q '^#define HAVE_ISAL 1' "$inc/config.h"; then
	zlibs="-lisal -lz"
fi
# short's demangler, the one C++ file, when the build has it
cxxobj=
cxxlibs=
if grep -q '^#define HAVE_DEMANGLE 1' "$inc/config.h"; then
	cxxobj=$dir/demangle.o
	cxxlibs=-lstdc++
	"${FUZZ_CXX:-clang++}" -g -O1 -fno-omit-frame-pointer \
	    -fsanitize=address,undefined -I"$srcdir/lib" -I"$inc" \
	    -c -o "$cxxobj" "$srcdir/lib/demangle.cc"
fi
# a target's source: tests/fuzz-TARGET.c, but rankpart's is partial's
src_of() {
	case $1 in
	rankpart) echo "-DFUZZ_RANKPART $srcdir/tests/fuzz-partial.c" ;;
	*) echo "$srcdir/tests/fuzz-$1.c" ;;
	esac
}
for t in $targets; do
	echo "fuzz.sh: building $dir/fuzz-$t with $cc"
	# shellcheck disable=SC2086
	"$cc" -g -O1 -std=gnu11 -fno-omit-frame-pointer \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	    -fsanitize-recover=pointer-overflow,nonnull-attribute,shift \
	    ${FUZZ_CFLAGS:-} -I"$srcdir/lib" -I"$inc" $jflags \
	    -o "$dir/fuzz-$t" $(src_of "$t") "$srcdir"/lib/*.c \
	    $cxxobj $jlibs $zlibs $cxxlibs -lpthread -lm
done

# Seeds of the reader: the heads of the real traces, small whole files,
# the damaged-input corpus of tests/corpus, and snippets.
seed_reader() {
	c=$dir/corpus-reader
	mkdir -p "$c"
	seed() {	# seed NAME < data
		cat >"$c/seed-$1"
	}
	if [ -d "$fixtures" ]; then
		for f in "$fixtures"/*; do
			[ -f "$f" ] || continue
			b=$(basename "$f")
			case $f in
			*.gz)
				gzip -dc "$f" 2>/dev/null | head -c 4096 | seed "$b.head" || true
				[ "$(wc -c <"$f")" -le 8192 ] && seed "$b" <"$f"
				;;
			*.json)
				head -c 4096 "$f" | seed "$b.head"
				;;
			esac
		done
	else
		echo "fuzz.sh: no fixtures in $fixtures; seeding with snippets only"
	fi
	if sh "$srcdir/tests/corpus/make.sh" "$tmp/corpus" >/dev/null 2>&1; then
		for f in "$tmp/corpus"/*; do
			[ -f "$f" ] && [ "$(wc -c <"$f")" -le 16384 ] &&
			    seed "damage-$(basename "$f")" <"$f"
		done
		rm -rf "$tmp/corpus"
	fi
	printf '%s\n' '{"otherData":{"v":1},"traceEvents":[' \
	    '{"name":"a","ph":"X","ts":1712195495519689.047,"dur":2.5,"pid":1,"tid":2,"args":{"grid":[2056,32,1]}},' \
	    '{"name":"b","ph":"M","ts":0,"args":{"name":"x"}}' \
	    '],"displayTimeUnit":"ns"}' | seed object
	printf '[\n  {"ts": 10, "dur": 5, "ph": "X"},\n  {"ts": 3, "ph": "B"},\n' | seed array-cut
	printf '{"ts":100,"dur":7,"args":{"co_id":1}}\n{"ts":50,"ph":"X"}\n' | seed ndjson
	printf '%s\n' '{"name":"mct_header","ph":"M","args":{"version":1,"unit":"us","unit_from":"given by --unit","origin":5,"form":"array","top_before":0,"top":{"a":1},"sources":["x"]}}' \
	    '{"ts":5,"ph":"X","name":"k"}' '{"ts":7,"ph":"X","args":{"a b":"c"}}' | seed stream
	printf '{"traceEvents":[{},{"ts":"123","dur":"4","ph":"X"},{"ts":"5.5"}]}' | seed string-ts
	printf '[{"name":"a\\qb\001\377","n":NaN,"i":Infinity,"a":[1,],"ts":1,},\n{"ts":2 x},\n{"ts":3}]' | seed repairs
	printf '\357\273\277[{"ts":1},[1,],"x",{"s":"\\ud83d\\ude00\\u00e9\\u1"}]' | seed bom-nonobj
	printf '{"traceEvents":[{"ts":1},{"ts":2},{"ts":3' | seed cut
	printf '{"a":{"b":[{"c":{"d":[[[[{}]]]]}}]},"traceEvents":[],"z":[1e400,-0.0e-5,18446744073709551616]}' | seed nested
	printf '[{"ts":1,"ph":"X"},{"ts":2,"ph":"X"}]' | gzip -c | seed gzip
	# the inflating thread: two members, and a member cut short
	{ printf '[{"ts":1,"ph":"X"},' | gzip -c; printf '{"ts":2}]' | gzip -c; } |
	    seed gzip-members
	printf '{"traceEvents":[{"ts":1.5,"ph":"X","dur":2.25}]}' | gzip -c |
	    head -c 30 | seed gzip-cut

	cat >"$dir/reader.dict" <<'EOF'
"{"
"}"
"["
"]"
","
":"
"\""
"\\\\"
"\\u"
"\\ud800"
"\\udc00"
"true"
"false"
"null"
"NaN"
"Infinity"
"-0.5e-7"
"1712195495519689.047"
"\"traceEvents\":["
"\"ts\":"
"\"dur\":"
"\"ph\":\"M\""
"\"args\":{\"co_id\":"
"{\"name\":\"mct_header\",\"ph\":\"M\",\"args\":{"
"\"unit\":\"us\""
"\"origin\":"
"\"top\":{"
"\x1f\x8b"
"\xef\xbb\xbf"
EOF
}

# Seeds of the parsers: times, predicates and field lists of the man
# pages and tests, and the rules files that ship.
seed_parsers() {
	c=$dir/corpus-parsers
	mkdir -p "$c"
	i=0
	while IFS= read -r line; do
		i=$((i + 1))
		printf '%s' "$line" >"$c/seed-$i"
	done <<'EOF'
26.57s
500us
1.5ms
1.5m
-250000
@1712195481233000000
@1712195481.233s
0.0000000005s
name==kernel_kernel
args.grid==[2056,32,1]
args.grid==[2056, 32, 1] && args.block=="(128, 1, 1)"
!cat && pid==2
cat~^(kernel|Kernel|gpu_memcpy)$ || name~^mc[A-Z]
dur>=1ms && dur<256.313ms
ts>=@1712195480123456789 && rel<26.57s && end<=@1712195481.233s
args."registers per thread">=128
args."a\"b".c!~x || launch.ts>5us || latency<=-3us
category==memcpy/copy
name!=mcGetDevice && args.co_id
pid=="1" || tid>=7 && id==0x1f
ts,dur,ph,pid,tid,name
rel,end,args.grid,args."a,b".c,launch.name,category
"end",args."rel",x.y.z
EOF
	for f in "$srcdir/data/default.rules" "$srcdir/examples/moe.rules"; do
		[ -f "$f" ] && head -c 4096 "$f" >"$c/seed-$(basename "$f")"
	done
	printf 'label\tname==a\n-\tph==M\n# comment\n\nx y\tdur>=1ms && args.grid==[1,2,3]\n' >"$c/seed-rules"
	printf 'bad\tcategory==x\n' >"$c/seed-rules-category"

	cat >"$dir/parsers.dict" <<'EOF'
"=="
"!="
"<="
">="
"~"
"!~"
"&&"
"||"
"!"
"\""
"\\"
"\x09"
"\x0a"
"."
","
"@"
"ns"
"us"
"ms"
"s"
"m"
"name"
"args."
"args.grid"
"ts"
"dur"
"rel"
"end"
"category"
"launch.ts"
"latency"
"[2056,32,1]"
"(128, 1, 1)"
"^(a|b)$"
"[[:alpha:]]"
"1712195480123456789"
"9223372036854775807"
"-"
"#"
EOF
}

# Seeds of the partial readers: partials of the build's example trace
# and of generated ranks (with BUILDDIR), and snippets.
seed_partial() {
	c=$dir/corpus-partial
	mkdir -p "$c"
	g=${builddir:+$builddir/tools/mct-group}
	ex=${builddir:+$builddir/examples/seed-small.json.gz}
	if [ -n "$g" ] && [ -x "$g" ] && [ -f "$ex" ]; then
		"$g" -o partial "$ex" | head -c 16384 >"$c/seed-name"
		"$g" -o partial --by name,tid -a sum:args.bytes "$ex" |
		    head -c 16384 >"$c/seed-name-tid"
		"$g" -o partial --exact-limit 3 --missing --by cat "$ex" |
		    head -c 16384 >"$c/seed-sketch"
	fi
	printf '%s\n' '{"mct_partial":1,"by":["name","tid"],"value":"dur","x":["args.n"],"missing":true,"meta":false,"limit":2,"unit":"us","origin":5,"sources":["-"]}' \
	    '{"key":"\"a\"\u001f7","count":3,"n":3,"float":false,"sum":6,"sumsq":14,"min":1,"max":3,"values":[1,2,3],"first":5,"last":9,"x":[[2,false,3,3,1,2]]}' \
	    '{"key":"\u001f","count":2,"n":2,"float":true,"sum":0,"sumsq":null,"min":0,"max":0,"fsum":1.5,"fsumsq":1.25,"fmin":0.5,"fmax":1,"sketch":{"zero":0,"pos":[130048,1,130944,1],"neg":[]},"x":[[0,false,0,0,0,0]]}' \
	    '{"mct_partial_end":2,"alltotal":6,"alltotalf":7.5,"allfloat":true,"parts":[{"host":"h","digest":"0123456789abcdef","sources":["-"]}]}' \
	    >"$c/seed-hand"
	cat >"$dir/partial.dict" <<'EOF'
"{\"mct_partial\":1,"
"{\"mct_partial_end\":"
"{\"key\":"
"\\u001f"
"\"count\":"
"\"n\":"
"\"values\":["
"\"sketch\":{\"zero\":"
"\"first\":"
"\"parts\":[{\"host\":"
"9223372036854775807"
"-9223372036854775808"
"170141183460469231731687303715884105727"
"4611686018427387904"
"1e308"
"\x0a"
EOF
}

seed_rankpart() {
	c=$dir/corpus-rankpart
	mkdir -p "$c"
	r=${builddir:+$builddir/tools/mct-ranks}
	gt=${builddir:+$builddir/tests/gentrace}
	if [ -n "$r" ] && [ -x "$r" ] && [ -x "$gt" ]; then
		mkdir -p "$tmp/ranks"
		"$gt" --scale 0.01 --ranks 2 --out "$tmp/ranks" >/dev/null 2>&1 &&
		    "$r" -o partial "$tmp/ranks/rank-0.json" |
		    head -c 16384 >"$c/seed-rank0" &&
		    cat "$tmp"/ranks/rank-*.json | "$r" -o partial |
		    head -c 16384 >"$c/seed-ranks" || true
		rm -rf "$tmp/ranks"
	fi
	printf '%s\n' '{"mct_ranks_partial":1,"key":null,"device":null,"rules":null,"unit":"ns","origin":5,"sources":["-"]}' \
	    '{"rank":3,"start":10,"end":100,"busy":50,"compute":40,"comm":10,"rounds":2,"round":20,"origin":5}' \
	    '{"rank":3,"call":"nccl","n":1,"ts":20,"dur":5}' \
	    '{"rank":1,"start":-5,"end":20,"busy":25,"compute":25,"comm":0,"rounds":0,"round":null,"origin":-7}' \
	    '{"mct_ranks_partial_end":3,"parts":[{"host":"h","digest":"0123456789abcdef","sources":["-"]}]}' \
	    >"$c/seed-hand"
	cat >"$dir/rankpart.dict" <<'EOF'
"{\"mct_ranks_partial\":1,"
"{\"mct_ranks_partial_end\":"
"{\"rank\":"
"\"call\":"
"\"start\":"
"\"busy\":"
"\"origin\":"
"\"parts\":[{\"host\":"
"null"
"9223372036854775807"
"-9223372036854775808"
"4611686018427387903"
"\x0a"
EOF
}

# Seeds of the metric logs: the first byte picks the options (see
# fuzz-mlog.c), then a log: nvidia-smi's, a generic one, bad values.
seed_mlog() {
	c=$dir/corpus-mlog
	mkdir -p "$c"
	printf '\000timestamp, index, name, clocks.sm [MHz], utilization.gpu [%%], memory.used [MiB]\n2026/12/02 07:00:00.000, 0, H100, 1410 MHz, 45 %%, 40960 MiB\n2026/12/02 07:00:00.100, 0, H100, 1.5 GHz, [N/A], 40 GiB\n2026/02/31 07:00:00.200, 0, H100, 1410 MHz, 45 %%, 1 MiB\n' >"$c/seed-nvidia"
	printf '\001time_ns,gpu,hbm_bw [GB/s],sm_clock\n1712195480123456789,0,50,1600\n1712195480124459254,0,ERR!,1.6 GHz\n1712195480124459254,0,67,[Unknown]\n# comment\n\n' >"$c/seed-generic"
	printf '\044\357\273\277time\tcard\tpower (W)\tutil\tx\n2026-12-02T07:00:00.5+08:00\tcard1\t250000 mW\t3\t"a\tb"\n2026-12-02 07:00:01\tGPU[1]\t45 %%\t1e3\t\n' >"$c/seed-tsv"
	printf '\100a,1712195480,b\nx,5,1\ny,6,2 kJ\n' >"$c/seed-timecol"

	cat >"$dir/mlog.dict" <<'EOF'
","
"\x09"
"\x0a"
"\""
" [MHz]"
" [MiB]"
" (%)"
"timestamp"
"index"
"time_ns"
"2026/12/02 07:00:00.000"
"2026-02-29T23:59:60.999999999+14:00"
"MHz"
"GHz"
"KiB"
"mW"
"[N/A]"
"ERR!"
"\xef\xbb\xbf"
"#"
"1e12"
"-0.0000005"
EOF
}

for t in $targets; do
	seed_$t
done

# No suppressions: every report stops the run.
: >"$dir/lsan.supp"
: >"$dir/ubsan.supp"

quietflag=
[ "$quiet" = 1 ] && quietflag=-close_fd_mask=2
ntargets=$(echo $targets | wc -w)
forkflag=
[ "$ntargets" -eq 1 ] && [ "$jobs" -gt 1 ] &&
    forkflag="-fork=$jobs -ignore_crashes=0"
stamp=$dir/artifacts/.start
: >"$stamp"

# run TARGET: fuzz it; its output in TARGET.log, its status in TARGET.rc.
run() {
	t=$1
	echo "fuzz.sh: fuzzing $t for $seconds s with $(find "$dir/corpus-$t" -type f | wc -l) inputs in $dir/corpus-$t"
	if [ "$t" = parsers ] && [ "${FUZZ_RULES:-1}" = 0 ]; then
		echo "fuzz.sh: parsers: not as rules files (FUZZ_RULES=0)"
	fi
	set +e
	# shellcheck disable=SC2086
	(
		cd "$dir" &&
		TMPDIR=$tmp \
		MCT_RULES=${MCT_RULES:-$srcdir/data/default.rules} \
		ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1} \
		UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$dir/ubsan.supp} \
		LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$dir/lsan.supp:print_suppressions=0} \
		"./fuzz-$t" -max_total_time="$seconds" -max_len=16384 -timeout=20 \
		    -rss_limit_mb=2048 -dict="$dir/$t.dict" \
		    -artifact_prefix="$dir/artifacts/$t-" -print_final_stats=1 \
		    $quietflag $forkflag ${FUZZ_ARGS:-} "$dir/corpus-$t"
	) >"$dir/$t.log" 2>&1
	echo $? >"$dir/$t.rc"
	set -e
}

if [ "$jobs" -gt 1 ] && [ "$ntargets" -gt 1 ]; then
	# side by side, $jobs at a time
	n=0
	for t in $targets; do
		run "$t" &
		n=$((n + 1))
		if [ "$n" -ge "$jobs" ]; then
			wait
			n=0
		fi
	done
	wait
else
	for t in $targets; do
		run "$t"
	done
fi

rv=0
for t in $targets; do
	r=$(cat "$dir/$t.rc")
	echo "fuzz.sh: $t: exit $r; corpus $(find "$dir/corpus-$t" -type f | wc -l) inputs; log $dir/$t.log"
	grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$dir/$t.log" | tail -1 || true
	grep -E '^stat::' "$dir/$t.log" || true
	if [ "$r" -ne 0 ]; then
		grep -E 'ERROR|invariant failed|SUMMARY|leak' "$dir/$t.log" | head -20 || true
		[ "$rv" -eq 0 ] && rv=$r || rv=1
	fi
done
found=0
for f in $(find "$dir/artifacts" -type f -newer "$stamp" | sort); do
	found=1
	echo "fuzz.sh: $f (base64):"
	base64 "$f"
	# what it does, once more, with the targets' messages shown
	t=$(basename "$f")
	t=${t%%-*}
	[ -x "$dir/fuzz-$t" ] || continue
	echo "fuzz.sh: $f: what fuzz-$t reports:"
	(
		cd "$dir" &&
		TMPDIR=$tmp MCT_RULES=${MCT_RULES:-$srcdir/data/default.rules} \
		"./fuzz-$t" "$f" 2>&1
	) | grep -E 'invariant failed|runtime error|ERROR|SUMMARY|leak of|^    #[0-9] ' |
	    head -20 || true
done
if [ $rv -ne 0 ] || [ $found -ne 0 ]; then
	echo "fuzz.sh: reproduce: $dir/fuzz-TARGET ARTIFACT" >&2
	[ $rv -ne 0 ] && exit $rv
	exit 1
fi
exit 0
