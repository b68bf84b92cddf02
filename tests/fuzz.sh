#!/bin/sh
# fuzz.sh - build tests/fuzz-reader.c (a libFuzzer target) with AddressSanitizer
# and UndefinedBehaviorSanitizer, seed a corpus and run it.  Not part of
# make check: run it as `make fuzz` or directly.
#
# usage: tests/fuzz.sh [BUILDDIR]
#
#   BUILDDIR        a configured build directory whose config.h to use;
#                   without one a minimal config.h is generated
#
# environment:
#   FUZZ_SECONDS    how long to fuzz (default 60)
#   FUZZ_DIR        work directory (default /tmp/mct-fuzz): the binary,
#                   corpus/ (kept between runs), artifacts/ (crashes)
#   FUZZ_TMP        TMPDIR for the reader's input and spool files (default a
#                   directory in /dev/shm if it is writable: twice as fast)
#   FUZZ_JOBS       parallel jobs (libFuzzer -fork=N; default 1)
#   FUZZ_QUIET      1 (default): hide the reader's warnings (-close_fd_mask=2;
#                   sanitizer reports are still shown); 0 to see them
#   FUZZ_ARGS       more libFuzzer options
#   MCT_FIXTURES    real traces to seed from (default ../shared/fixtures)
#   FUZZ_CC         the compiler (default clang; it needs -fsanitize=fuzzer)
#
# Exit status: 0 if no crash was found; otherwise libFuzzer's status, after
# the crashing inputs are printed in base64.
set -eu

srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=${1:-}
seconds=${FUZZ_SECONDS:-60}
dir=${FUZZ_DIR:-/tmp/mct-fuzz}
jobs=${FUZZ_JOBS:-1}
quiet=${FUZZ_QUIET:-1}
fixtures=${MCT_FIXTURES:-$srcdir/../shared/fixtures}
cc=${FUZZ_CC:-clang}

command -v "$cc" >/dev/null 2>&1 || {
	echo "fuzz.sh: $cc not found (apt-get install clang)" >&2
	exit 2
}
mkdir -p "$dir/corpus" "$dir/artifacts" "$dir/include"
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

# Build: the target and every lib/*.c, all instrumented.
jflags=$(pkg-config --cflags json-c 2>/dev/null || true)
jlibs=$(pkg-config --libs json-c 2>/dev/null || true)
echo "fuzz.sh: building $dir/fuzz-reader with $cc"
# shellcheck disable=SC2086
"$cc" -g -O1 -std=gnu11 -fno-omit-frame-pointer \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -fsanitize-recover=pointer-overflow,nonnull-attribute,shift \
    -I"$srcdir/lib" -I"$inc" $jflags \
    -o "$dir/fuzz-reader" "$srcdir/tests/fuzz-reader.c" "$srcdir"/lib/*.c \
    $jlibs -lz -lm

# Seeds: the heads of the real traces, small whole files, and snippets.
seed() {	# seed NAME < data
	cat >"$dir/corpus/seed-$1"
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

# A dictionary of the tokens that matter.
cat >"$dir/json.dict" <<'EOF'
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

# No suppressions: every report stops the run (the known bugs of the
# first runs are fixed; their inputs are in tests/unit.c).
: >"$dir/lsan.supp"
: >"$dir/ubsan.supp"

nseed=$(find "$dir/corpus" -type f | wc -l)
echo "fuzz.sh: fuzzing for $seconds s with $nseed inputs in $dir/corpus"
stamp=$dir/artifacts/.start
: >"$stamp"
set +e
if [ "$quiet" = 1 ]; then
	quietflag=-close_fd_mask=2
else
	quietflag=
fi
forkflag=
[ "$jobs" -gt 1 ] && forkflag="-fork=$jobs -ignore_crashes=0"
# shellcheck disable=SC2086
(
	cd "$dir" &&
	TMPDIR=$tmp \
	ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$dir/ubsan.supp} \
	LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$dir/lsan.supp:print_suppressions=0} \
	./fuzz-reader -max_total_time="$seconds" -max_len=16384 -timeout=20 \
	    -rss_limit_mb=2048 -dict="$dir/json.dict" \
	    -artifact_prefix="$dir/artifacts/" -print_final_stats=1 \
	    $quietflag $forkflag ${FUZZ_ARGS:-} "$dir/corpus"
)
rv=$?
set -e
found=0
for f in $(find "$dir/artifacts" -type f -newer "$stamp" | sort); do
	found=1
	echo "fuzz.sh: $f (base64):"
	base64 "$f"
done
echo "fuzz.sh: corpus: $(find "$dir/corpus" -type f | wc -l) inputs; exit $rv"
if [ $rv -ne 0 ] || [ $found -ne 0 ]; then
	echo "fuzz.sh: reproduce: $dir/fuzz-reader ARTIFACT" >&2
	[ $rv -ne 0 ] && exit $rv
	exit 1
fi
exit 0
