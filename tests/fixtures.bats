#!/usr/bin/env bats
# fixtures.bats - mct-cat on real traces written by other tools
# (../shared/fixtures, see its README.md), checked against python3's json.
# Skipped with a message when the folder is not there.

load helpers

# The tsv columns checked on every fixture.
F=ph,name,pid,tid,ts,dur,rel,end,cat

# What mct-cat makes of every fixture, made once for the file's tests, and
# python's answers to every question about them, asked of one python
# process that reads each fixture once (oracle.py batch): fixture N's
# outputs in fx/N, its four answers numbered 4N-3 (count) to 4N
# (wrapcheck).
setup_file() {
	light_trace
	local d=$BATS_FILE_TMPDIR/fx f i=0

	[ -d "$fixtures" ] || return 0
	mkdir -p "$d"
	: > "$d/batch"
	for f in $(each_fixture); do
		i=$((i + 1))
		mkdir "$d/$i"
		mct-cat "$f" > "$d/$i/out.nd" 2> "$d/$i/err" &&
		    echo 0 > "$d/$i/rc" || echo $? > "$d/$i/rc"
		mct-cat -o tsv -F $F "$f" > "$d/$i/got.tsv" 2> /dev/null || :
		mct-cat "$f" 2> /dev/null | mct-cat --wrap > "$d/$i/w.json" 2> /dev/null || :
		printf '%s\n' "count $f" \
		    "check --sources $f -- $d/$i/out.nd $f" \
		    "columns --format tsv --fields $F $f" \
		    "wrapcheck $f $d/$i/w.json" >> "$d/batch"
	done
	oracle oracle.py batch "$d/batch" "$d" $(each_fixture) > "$d/answers"
}

setup() {
	light_trace
	need_fixtures
	cd "$BATS_TEST_TMPDIR"
	fx=$BATS_FILE_TMPDIR/fx
}

# Every trace in the fixtures folder (README.md aside).
each_fixture() {
	local f

	for f in "$fixtures"/*; do
		case ${f##*/} in
		README*) ;;
		*) [ -f "$f" ] && printf '%s\n' "$f" ;;
		esac
	done
}

# answer N: python's answer N into the file ans; its exit status in $arc.
answer() {
	arc=$(awk -v n="$1" '$1 == "@@" && $2 == n { print $3 }' "$fx/answers")
	awk -v n="$1" '$1 == "@@" { on = $2 == n; next } on' "$fx/answers" > ans
	[ -n "$arc" ]
}

@test "fixtures: the folder holds traces" {
	[ "$(each_fixture | wc -l)" -ge 1 ]
}

@test "every fixture: mct-cat reads it whole, exit 0, nothing on stderr" {
	local i=0

	for f in $(each_fixture); do
		i=$((i + 1))
		echo "fixture: ${f##*/}"
		same "$(cat "$fx/$i/rc")" 0
		same "$(cat "$fx/$i/err")" ""
	done
	[ "$i" -gt 0 ]
}

@test "every fixture: the number of events equals python's" {
	slow
	local i=0 want

	for f in $(each_fixture); do
		i=$((i + 1))
		echo "fixture: ${f##*/}"
		answer $((4 * i - 3))
		same "$arc" 0
		same "$(tail -n +2 "$fx/$i/out.nd" | wc -l)" "$(cat ans)"
	done
	[ "$i" -gt 0 ]
}

@test "every fixture: each event equals python's, ts/dur in ns by the unit rules; the header's unit, origin and keys too" {
	local i=0

	for f in $(each_fixture); do
		i=$((i + 1))
		echo "fixture: ${f##*/}"
		answer $((4 * i - 2))
		same "$(cat ans)" ""
		same "$arc" 0
	done
	[ "$i" -gt 0 ]
}

@test "every fixture: -o tsv columns (ph, name, pid, tid, ts, dur, rel, end, cat) equal python's" {
	slow
	local i=0

	for f in $(each_fixture); do
		i=$((i + 1))
		echo "fixture: ${f##*/}"
		answer $((4 * i - 1))
		same "$arc" 0
		diff ans "$fx/$i/got.tsv" | head -20
		cmp -s ans "$fx/$i/got.tsv"
	done
	[ "$i" -gt 0 ]
}

@test "every fixture: mct-cat F | mct-cat --wrap reloads in python: same events (source unit), same top-level keys in order" {
	slow
	local i=0

	for f in $(each_fixture); do
		i=$((i + 1))
		echo "fixture: ${f##*/}"
		answer $((4 * i))
		same "$(cat ans)" ""
		same "$arc" 0
	done
	[ "$i" -gt 0 ]
}

# --- what is special about each (README.md) -------------------------------

fixture() {
	[ -f "$fixtures/$1" ] || skip "$1 not in $fixtures"
	echo "$fixtures/$1"
}

@test "kineto-ns-resolution: float us with 3 decimals near the limit of a double become exact ns" {
	f=$(fixture kineto-ns-resolution.pt.trace.json.gz)
	gzip -dc "$f" | grep -qF '"ts": 1712195495519689.047,'
	mct-cat "$f" > out.nd
	grep -qF '"ts":1712195495519689047,' out.nd
	[[ "$(head -1 out.nd)" == *'"unit":"us","unit_from":"a ts or dur has a fraction",'* ]]
}

@test "kineto-ns-resolution: its 20 other top-level keys, 17 before traceEvents, in the header in order" {
	f=$(fixture kineto-ns-resolution.pt.trace.json.gz)
	mct-cat "$f" | head -1 > h
	run "$PYTHON3" -c '
import json, sys
a = json.load(open("h"))["args"]
print(a["top_before"], ",".join(a["top"]))'
	same "$output" "17 schemaVersion,deviceProperties,distributedInfo,trace_id,tw_job,mast_job_environment,tw_user,tw_task_id,tw_cluster,ai_rm_attribution,mast_job_attempt,mast_job_name,mast_job_version,username,logical_server_subtype,mast_task_group,host_name,INFO,traceName,displayTimeUnit"
}

@test "rpd-matmul-string-ts: string ts and dur become numbers, the empty {} first event passes, string pids stay strings" {
	f=$(fixture rpd-matmul-string-ts.json)
	mct-cat "$f" > out.nd
	same "$(sed -n 2p out.nd)" '{}'
	! grep -qE '"(ts|dur)":"' out.nd
	grep -q '"pid":"2"' out.nd
}

@test "chrome116-devtools: an integer beyond int64 keeps its digits" {
	f=$(fixture chrome116-devtools.json)
	mct-cat "$f" > out.nd
	grep -qF '"begin_main_sent_to_started_us":18446744064077150000,' out.nd
	# ids as strings and as integers are both kept
	grep -qF '"id":"2F9560129F3037EA5E41C8A383228711"' out.nd
	grep -qF '"id":15' out.nd
}

@test "ansible-unterminated: no closing ] and a trailing comma is not damage; the last event is there" {
	f=$(fixture ansible-unterminated.json)
	[[ "$(tail -c 3 "$f")" == *"},"* ]]
	run --separate-stderr mct-cat "$f"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "${lines[-1]}" == '{"name":"docker_compose : check letsencrypt is healthy",'*'"ts":1633826331547151000,'* ]]
	[[ "${lines[0]}" == *'"form":"array",'* ]]
}

@test "chrome-android-threadtime: U+FFFD in args passes byte for byte, no repair reported" {
	f=$(fixture chrome-android-threadtime.json.gz)
	run --separate-stderr mct-cat "$f"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	want=$(gzip -dc "$f" | grep -o $'"type":"[^"]*\xef\xbf\xbd[^"]*"' | head -1)
	[ -n "$want" ]
	grep -qF "$want" <<<"$output"
}

@test "kineto-resnet50-array: Array form, string tids kept as strings" {
	f=$(fixture kineto-resnet50-array.pt.trace.json.gz)
	mct-cat "$f" > out.nd
	[[ "$(head -1 out.nd)" == *'"form":"array","sorted":'*',"top_before":0,"top":{}'* ]]
	grep -qF '"tid":"4093687616"' out.nd
}

@test "kineto-h100-tiny: float us; baseTimeNanoseconds among the top-level keys" {
	f=$(fixture kineto-h100-tiny.json)
	mct-cat "$f" > out.nd
	[[ "$(head -1 out.nd)" == *'"unit":"us","unit_from":"a ts or dur has a fraction",'*'"baseTimeNanoseconds":1775078550000000000'* ]]
	grep -qF '"ts":88437691101719,' out.nd
}
