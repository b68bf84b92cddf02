#!/bin/sh
# make.sh DIR - make the corpus of damaged inputs in DIR (created if need
# be): a copy of the small text cases committed beside this script
# (NN-what.*), and the cases that are binary, large or need building,
# which are never committed: NUL bytes, control characters, invalid UTF-8,
# binary garbage, gzip cut off or damaged, a 10 MB name, nesting 10,000
# levels deep, a directory.  Every case is described, one line each, in
# README beside this script; tests/damage.bats runs every tool on each.
#
# The output is the same on every run and every machine (no randomness,
# gzip -n): the offsets in README depend on it.  POSIX sh, printf, awk,
# gzip, head, dd.
set -eu

[ $# -eq 1 ] || { echo "usage: make.sh DIR" >&2; exit 2; }
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
export LC_ALL=C

# The committed text cases.
for f in "$here"/[0-9][0-9]-*; do
	rm -f "$dir/${f##*/}"
	cp "$f" "$dir/"
	chmod u+w "$dir/${f##*/}"	# (a dist tree is read-only)
done
cd "$dir"

# ev NAME TS: one complete event, as in the committed cases.
ev() {
	printf '{"name":"%s","ph":"X","pid":2,"tid":1,"ts":%s,"dur":10}' "$1" "$2"
}

# rep N STRING: STRING N times (awk: no seq, no yes).
rep() {
	awk -v n="$1" -v s="$2" 'BEGIN {
		t = s; r = ""
		while (n > 0) { if (n % 2) r = r t; t = t t; n = int(n / 2) }
		printf "%s", r }'
}

# 61: raw control characters (0x01, 0x1f, 0x7f is not one) in a string.
{
	printf '[\n%s,\n' "$(ev a 100)"
	printf '{"name":"b","ph":"X","pid":2,"tid":1,"ts":200,"dur":10,"args":{"s":"x\001y\037z\177"}},\n'
	printf '%s\n]\n' "$(ev c 300)"
} > 61-raw-control.json

# 62: invalid UTF-8: a lone continuation byte, 0xff, an overlong '/',
# an encoded surrogate, a lead byte before ASCII, a sequence cut by the
# closing quote; valid 2-, 3- and 4-byte sequences stay as they are.
{
	printf '[\n%s,\n' "$(ev a 100)"
	printf '{"name":"b","ph":"X","pid":2,"tid":1,"ts":200,"dur":10,"args":{"s":"\200|\377|\300\257|\355\240\200|\303A|\342\202"}},\n'
	printf '{"name":"c","ph":"X","pid":2,"tid":1,"ts":300,"dur":10,"args":{"s":"\303\251\342\202\254\360\237\230\200"}}\n]\n'
} > 62-invalid-utf8.json

# 63: NUL bytes: one in a string (repaired), two after the trace.
{
	printf '[\n%s,\n' "$(ev a 100)"
	printf '{"name":"b","ph":"X","pid":2,"tid":1,"ts":200,"dur":10,"args":{"s":"x\000y"}},\n'
	printf '%s\n]\000\000' "$(ev c 300)"
} > 63-nul-bytes.json

# 64: NUL bytes before the trace (as a UTF-16 or padded file starts).
{
	printf '\000\000\000\000[\n%s,\n%s\n]\n' "$(ev a 100)" "$(ev b 200)"
} > 64-nul-first.json

# 65: 4096 bytes of binary garbage, none of them '{'; the first is 0x89.
awk 'BEGIN {
	x = 12345
	printf "%c", 137
	for (i = 1; i < 4096; i++) {
		x = (x * 1103515245 + 12345) % 2147483648
		c = int(x / 65536) % 256
		if (c == 123) c = 0
		printf "%c", c
	}
}' > 65-binary-garbage.bin

# 66: 1000 bytes of garbage (no '{', no newline), then a trace in Array form
# starting on a new line.
{
	awk 'BEGIN { for (i = 0; i < 1000; i++) printf "%c", 33 + (i * 7) % 90 }' |
	    tr '{' '('
	printf '\n[\n%s,\n%s\n]\n' "$(ev a 100)" "$(ev b 200)"
} > 66-garbage-then-trace.json

# 67: a gzip stream cut off in the middle (2000 events, cut at 8000 bytes).
big() {
	printf '{"traceEvents":[\n'
	awk 'BEGIN { for (i = 1; i <= 2000; i++)
		printf "{\"name\":\"e%d\",\"ph\":\"X\",\"pid\":2,\"tid\":1,\"ts\":%d,\"dur\":3,\"args\":{\"i\":%d}},\n", i, i * 10, i * i }'
	printf '%s\n]}\n' "$(ev last 30000)"
}
big | gzip -n -9 -c | head -c 8000 > 67-gzip-cut.json.gz

# 68: a whole gzip stream with garbage after it.
big | gzip -n -9 -c > 68-gzip-garbage-after.json.gz
printf 'not gzip\n' >> 68-gzip-garbage-after.json.gz

# 69: two gzip members; the second is damaged at its first byte of deflate
# data (block type 3, which does not exist): the first member's events stay.
printf '[\n%s,\n%s,\n' "$(ev a 100)" "$(ev b 200)" | gzip -n -c > 69-gzip-bad-member.json.gz
printf '%s\n]\n' "$(ev c 300)" | gzip -n -c > m2.tmp
{
	head -c 10 m2.tmp
	printf '\007'
	tail -c +12 m2.tmp
} >> 69-gzip-bad-member.json.gz
rm -f m2.tmp

# 70: only the first 10 bytes of a gzip stream (its header).
big | gzip -n -c | head -c 10 > 70-gzip-header-only.json.gz

# 71: a gzip stream of an empty file.
: | gzip -n -c > 71-gzip-empty.json.gz

# 72: an event whose name is 10 MB long, between two ordinary events.
{
	printf '[\n%s,\n{"name":"b' "$(ev a 100)"
	rep 10485760 n
	printf '","ph":"X","pid":2,"tid":1,"ts":200,"dur":10},\n%s\n]\n' "$(ev c 300)"
} > 72-name-10mb.json

# 73: an event nested 10,000 levels deep (args.x.x.x...), between two
# ordinary events: it is dropped, they stay.
{
	printf '[\n%s,\n{"name":"b","ph":"X","pid":2,"tid":1,"ts":200,"dur":10,"args":' "$(ev a 100)"
	rep 10000 '{"x":'
	printf '1'
	rep 10000 '}'
	printf '},\n%s\n]\n' "$(ev c 300)"
} > 73-deep-event.json

# 74: nesting 500 levels deep inside an event: under the limit (512), kept.
{
	printf '[\n%s,\n{"name":"b","ph":"X","pid":2,"tid":1,"ts":200,"dur":10,"args":' "$(ev a 100)"
	rep 250 '{"x":['
	printf '1'
	rep 250 ']}'
	printf '},\n%s\n]\n' "$(ev c 300)"
} > 74-deep-ok.json

# 75: 10,000 levels of arrays at the top level.
{
	rep 10000 '['
	rep 10000 ']'
	printf '\n'
} > 75-deep-top-array.json

# 76: 10,000 levels of objects at the top level.
{
	rep 10000 '{"a":'
	printf '1'
	rep 10000 '}'
	printf '\n'
} > 76-deep-top-object.json

# 77: a directory as an operand.
rm -rf 77-directory.json
mkdir 77-directory.json

# 78: a top-level key after traceEvents whose value (3 MB) is larger than
# the reader's buffer.
{
	printf '{"traceEvents":[\n%s,\n%s\n],"otherData":{"s":"' "$(ev a 100)" "$(ev b 200)"
	rep 3145728 y
	printf '"}}\n'
} > 78-big-top-value.json

# 79: a syntax error followed by 3 MB without a place to resume (no newline,
# no '{'), then the next events on lines of their own.
{
	printf '[\n%s,\n{"name":"x","ph" "X","s":"' "$(ev a 100)"
	rep 3145728 z
	printf '"},\n%s,\n%s\n]\n' "$(ev b 200)" "$(ev c 300)"
} > 79-resync-far.json
