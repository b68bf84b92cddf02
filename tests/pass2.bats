#!/usr/bin/env bats
# pass2.bats - pass 2 by threads: a plain file framed again in
# the chunks pass 1 marked, and the spool's lines converted in chunks, by
# worker threads; gzip through a ring of small buffers (MCT_GZSLOT).
# Every way of reading gives the same stream, messages and status as the
# one-thread way (MCT_SPLIT huge: no parts, no chunks).

load helpers

setup_file() {
	light_trace
	cd "$BATS_FILE_TMPDIR"
	# fractional us, string ts, an unterminated array: every event
	# converted; one event with three ts/dur numbers, so that spool lines
	# are indexed whole
	genf us.json --scale 0.02 -u us --string-ts --no-close
	sed -i '0,/"ph":"X"/s/"ph":"X"/"ts":"7.5","dur":1,"ph":"X"/' us.json
	gzip -c us.json > us.json.gz
	MCT_SPLIT=1000000000 mct-cat us.json > want.nd 2> want.err
}

setup() {
	light_trace
	cd "$BATS_FILE_TMPDIR"
}

@test "pass 2 by threads: plain in chunks, spool in chunks, gzip through a small ring, a pipe: the same stream" {
	[ ! -s want.err ]
	grep -q '"ts":7500,"dur":1000' want.nd
	py check want.nd us.json
	MCT_SPLIT=4096 mct-cat us.json > a.nd
	cmp want.nd a.nd
	MCT_SPOOL=1 MCT_SPLIT=4096 mct-cat us.json > b.nd
	cmp want.nd b.nd
	# gzip and a pipe: the header names the operand as given
	sed '1s/"sources":\["us.json"\]/"sources":["us.json.gz"]/' want.nd > wantgz.nd
	MCT_SPLIT=4096 MCT_GZSLOT=1000 mct-cat us.json.gz > c.nd
	cmp wantgz.nd c.nd
	MCT_GZSLOT=7 mct-cat us.json.gz > d.nd
	cmp wantgz.nd d.nd
	sed '1s/"sources":\["us.json"\]/"sources":["-"]/' want.nd > wantin.nd
	MCT_SPLIT=4096 mct-cat < us.json > e.nd
	cmp wantin.nd e.nd
}

@test "MCT_HUGEPAGES=0 or not, the reading thread framing blocks or not: the same stream, plain, gzip and a pipe" {
	o=$BATS_TEST_TMPDIR
	sed '1s/"sources":\["us.json"\]/"sources":["us.json.gz"]/' want.nd > "$o/wantgz.nd"
	sed '1s/"sources":\["us.json"\]/"sources":["-"]/' want.nd > "$o/wantin.nd"
	for h in 0 1; do
		MCT_HUGEPAGES=$h mct-cat us.json > "$o/a.nd"
		cmp want.nd "$o/a.nd"
		# blocks of 4 KiB: the reading thread frames many of them
		MCT_HUGEPAGES=$h MCT_SPLIT=4096 mct-cat us.json.gz > "$o/b.nd"
		cmp "$o/wantgz.nd" "$o/b.nd"
		MCT_HUGEPAGES=$h mct-cat us.json.gz > "$o/c.nd"
		cmp "$o/wantgz.nd" "$o/c.nd"
		MCT_HUGEPAGES=$h MCT_SPLIT=4096 mct-cat < us.json > "$o/d.nd"
		cmp "$o/wantin.nd" "$o/d.nd"
	done
}

@test "pass 2 by threads: a value beyond int64 ns is said once, of the same event, exit 1" {
	# the 30000th event of 35000, in a late chunk
	{ echo '['; seq 1 35000 | sed 's/.*/{"ts":&.5},/' |
	  sed '30000s/.*/{"ts":9300000000000000.5},/'; echo '{"ts":1}]'; } > big.json
	run --separate-stderr env MCT_SPLIT=1000000000 mct-cat big.json
	[ "$status" -eq 1 ]
	same "$stderr" "mct-cat: big.json: event 30000: 9300000000000000.5 us is beyond int64 ns; left as written"
	want=$output
	for how in MCT_SPLIT=4096 "MCT_SPOOL=1 MCT_SPLIT=4096"; do
		run --separate-stderr env $how mct-cat big.json
		[ "$status" -eq 1 ]
		same "$stderr" "mct-cat: big.json: event 30000: 9300000000000000.5 us is beyond int64 ns; left as written"
		same "$output" "$want"
	done
}

@test "pass 2 by threads: spaced events, compacted and converted a chunk at a time: the oracle's stream; each value beyond int64 ns said, of the same event, exit 1" {
	# Kineto's layout ("k": v: a space after each ':' and ','), so that
	# pass 2 compacts a chunk whole and converts the times it noted in one
	# copy; integer and fractional us, an event with three times, one with
	# 40 keys (its times not noted: indexed), one with a string ts
	cd "$BATS_TEST_TMPDIR"
	"$PYTHON3" - <<'PY'
def ev(i, ts):
    extra = ""
    if i == 20000:
        extra = ', "ts": 5'
    if i == 25000:
        extra = "".join(', "k%d": %d' % (j, j) for j in range(40))
    return ('  {"name": "k%d", "ph": "X", "pid": 1, "tid": %d, "ts": %s, '
            '"dur": %s%s, "args": {"ts": 1.5, "i": %d}}'
            % (i % 7, i % 3, ts, "%d.25" % (i % 9) if i % 2 else str(i % 9),
               extra, i))
def write(name, big):
    evs = []
    for i in range(35000):
        ts = "%d" % (1661203462598738 + 3 * i) if i % 3 else "%d.%03d" % (
            1000 + 10 * i, i % 1000)
        if i == 22000:
            ts = '"%d.5"' % (5000 + i)
        if big and i == 29999:
            ts = "9300000000000000.5"
        if big and i == 30999:
            ts = "9300000000000001"
        evs.append(ev(i, ts))
    with open(name, "w") as f:
        f.write('{"traceEvents": [\n' + ",\n".join(evs) + '\n]}\n')
write("sp.json", False)
write("spb.json", True)
PY
	MCT_SPLIT=4096 mct-cat sp.json > sp.nd
	py check sp.nd sp.json
	grep -q '"ts":1661203462598741000,"dur":1250,' sp.nd
	run --separate-stderr env MCT_SPLIT=1000000000 mct-cat spb.json
	[ "$status" -eq 1 ]
	same "$stderr" "mct-cat: spb.json: event 30000: 9300000000000000.5 us is beyond int64 ns; left as written
mct-cat: spb.json: event 31000: 9300000000000001 us is beyond int64 ns; left as written"
	want=$output
	for how in MCT_SPLIT=4096 MCT_SPLIT=65536 "MCT_SPOOL=1 MCT_SPLIT=4096" MCT_SPLIT=; do
		run --separate-stderr env $how mct-cat spb.json
		[ "$status" -eq 1 ]
		same "$stderr" "mct-cat: spb.json: event 30000: 9300000000000000.5 us is beyond int64 ns; left as written
mct-cat: spb.json: event 31000: 9300000000000001 us is beyond int64 ns; left as written"
		same "$output" "$want"
	done
}

@test "gzip whose inflated bytes end at a ring buffer's end (256 KiB by default): the same stream, no buffer freed twice" {
	cd "$BATS_TEST_TMPDIR"
	# The inflater's last buffer is then empty; the block reader traded
	# its own buffer for it and kept it too (a double free, abort).
	"$PYTHON3" - <<'PY'
import gzip
evs = ['{"ts": %d, "dur": 5, "ph": "X", "name": "k%d"}' % (10 + 3 * i, i % 5)
       for i in range(40000)]
t = ('[\n' + ",\n".join(evs) + '\n]').encode()
t += b" " * (-(len(t) + 1) % 262144) + b"\n"
open("ring.json", "wb").write(t)
open("ring.json.gz", "wb").write(gzip.compress(t))
h = len(t) // 2		# two members, each of whole buffers of 4 KiB
open("ring2.json.gz", "wb").write(gzip.compress(t[:h]) + gzip.compress(t[h:]))
PY
	[ $(( $(wc -c < ring.json) % 262144 )) -eq 0 ]
	mct-cat ring.json | tail -n +2 > want.nd
	py check <(mct-cat ring.json) ring.json
	for how in "" "MCT_GZSLOT=4096 MCT_SPLIT=4096" "MCT_GZSLOT=16 MCT_SPLIT=16"; do
		for f in ring.json.gz ring2.json.gz; do
			run --separate-stderr env $how mct-cat $f
			[ "$status" -eq 0 ]
			[ -z "$stderr" ]
			same "$(printf '%s\n' "$output" | tail -n +2)" "$(cat want.nd)"
		done
	done
}

@test "pass 2 by threads: a reader that stops early (| head) ends at once" {
	run bash -c 'set -o pipefail; MCT_SPLIT=4096 timeout 20 mct-cat us.json | head -3 | wc -l'
	same "$output" 3
	run bash -c 'MCT_SPLIT=4096 timeout 20 mct-filter --ph X us.json | head -1 | wc -l'
	same "$output" 1
}

@test "gzip from a slow pipe, its header (with a file name) in pieces: read whole, exit 0" {
	# ISA-L misread a gzip header that came in pieces: 'invalid block type'
	gzip -c us.json > slow.json.gz	# the header names the file: 18 bytes
	run --separate-stderr bash -c '{ for i in 0 1 2 3; do
		dd if=slow.json.gz bs=1 skip=$((i * 5)) count=5 status=none
		sleep 0.1; done; tail -c +21 slow.json.gz; } | mct-cat'
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	same "$(printf '%s\n' "$output" | sed 1d | cksum)" "$(sed 1d want.nd | cksum)"
}

@test "pass 1 in blocks (gzip, a pipe): wrong cuts, damage mid-block, keys after the events: the same stream, messages and status as one framer" {
	cd "$BATS_TEST_TMPDIR"	# its own files, not the others' want.nd
	# names that look like event starts to resync() ("},\n{" inside a
	# string is not JSON, but "},{" is); a syntax error in the middle; a
	# top-level key after traceEvents; the events indented
	"$PYTHON3" - > blk.json <<'PY'
import json
evs = []
for i in range(3000):
    name = "k},{\"ts\":%d" % i if i % 7 == 0 else "kernel_%d" % (i % 13)
    evs.append({"name": name, "ph": "X", "pid": 1, "tid": i % 3,
                "ts": 1000 + i * 10, "dur": 5, "args": {"i": i, "s": "[{" * (i % 4)}})
text = json.dumps({"traceEvents": evs, "otherData": {"v": 1}}, indent=1)
open("blk-ok.json", "w").write(text + "\n")
lines = text.split("\n")
mid = len(lines) // 2
while '"dur"' not in lines[mid]:
    mid += 1
lines[mid] = lines[mid].replace('"dur":', '"dur"')    # a missing ':'
print("\n".join(lines))
PY
	gzip -c blk.json > blk.json.gz
	MCT_SPLIT=1000000000 mct-cat --align 'kernel_5' blk.json > want.nd 2> want.err && st=0 || st=$?
	[ "$st" -eq 1 ]
	[ "$(grep -c "expected ':' after a key" want.err)" -eq 1 ]
	grep -q '"otherData"' want.nd
	for split in 512 4096 100000; do
		sed '1s/"sources":\["blk.json"\]/"sources":["blk.json.gz"]/' want.nd > wantgz.nd
		sed 's/blk\.json\([: ]\)/blk.json.gz\1/' want.err > wantgz.err
		rc=0; MCT_SPLIT=$split MCT_GZSLOT=3000 mct-cat --align 'kernel_5' blk.json.gz > c.nd 2> c.err || rc=$?
		[ "$rc" -eq 1 ]
		cmp wantgz.nd c.nd
		cmp wantgz.err c.err
		sed '1s/"sources":\["blk.json"\]/"sources":["-"]/' want.nd > wantin.nd
		sed 's/blk\.json\([: ]\)/(stdin)\1/' want.err > wantin.err
		rc=0; MCT_SPLIT=$split mct-cat --align 'kernel_5' < blk.json > e.nd 2> e.err || rc=$?
		[ "$rc" -eq 1 ]
		cmp wantin.nd e.nd
		cmp wantin.err e.err
	done
	# the events: python's of the file before the damage, less one
	mct-cat blk-ok.json > ok.nd
	py check ok.nd blk-ok.json
	[ "$(sed 1d want.nd | wc -l)" -eq 2999 ]
	[ "$(sed 1d ok.nd | grep -vxFf <(sed 1d want.nd) | wc -l)" -eq 1 ]
}

@test "pass 2 by threads: chunks of one event a line are taken as lines, any other layout is framed again: the same stream as one thread" {
	cd "$BATS_TEST_TMPDIR"
	# regions of 300 events: one a line (LF, CRLF, indented, blank lines,
	# the comma leading the next line), several a line, indented events;
	# ns (co_id) and fractional us (converted)
	for unit in ns us; do
		"$PYTHON3" - "$unit" > lay.json <<'PY'
import json, sys
us = sys.argv[1] == "us"
names = ["kernel", "a b", "x},{\"y\":1", "\u00e9\u6f22", "t\\n\"q\"", "[{"]
out, n = ['{"traceEvents":['], 6000
for i in range(n):
    ev = {"name": names[i % len(names)], "ph": "X", "pid": 1, "tid": i % 3,
          "ts": 1000 + i * 10 + (0.5 if us else 0), "dur": 5,
          "args": {"i": i, "l": [1, {"a": None}]}}
    if not us:
        ev["args"]["co_id"] = i
    text = json.dumps(ev, separators=(",", ":"), ensure_ascii=False)
    last = i == n - 1
    r = (i // 300) % 6
    if r == 0:
        out.append(text + ("" if last else ",") + "\n")
    elif r == 1:
        out.append(text + ("" if last else ",") + "\r\n")
    elif r == 2:
        out.append("  \t" + text + ("" if last else " ,") + "\n\n")
    elif r == 3:
        out.append(text + ("" if last else ","))
    elif r == 4:
        out.append(json.dumps(ev, indent=2, ensure_ascii=False) + ("" if last else ",") + "\n")
    else:
        out.append(text + "\n" + ("" if last else ","))
out.append('\n],"displayTimeUnit":"ns"}\n')
sys.stdout.write("".join(out))
PY
		MCT_SPLIT=1000000000 mct-cat lay.json > want.nd
		py check want.nd lay.json
		[ "$(sed 1d want.nd | wc -l)" -eq 6000 ]
		for split in 300 4096 65536; do
			MCT_SPLIT=$split mct-cat lay.json > got.nd
			cmp want.nd got.nd
		done
		mct-cat lay.json > got.nd
		cmp want.nd got.nd
	done
}

@test "pass 2 by threads: a file written between the passes is framed again there: said, exit 1, every line handed out is JSON" {
	cd "$BATS_TEST_TMPDIR"
	genf t.json --scale 0.2	# one event a line: taken as lines
	want=$(( $(mct-cat t.json | wc -l) - 2 ))	# no header, one less
	# a ':' two thirds in becomes '#': the line keeps its braces
	at=$("$PYTHON3" -c 'import sys; t = open(sys.argv[1], "rb").read()
print(t.index(b"\"ph\":", len(t) * 2 // 3) + 4)' t.json)
	touch -d '1 minute ago' t.json	# any write changes its time
	# once the header is out, pass 2 has begun (read takes just that line)
	run --separate-stderr bash -c 'mct-cat t.json | { read -r header;
		printf "#" | dd of=t.json bs=1 seek='"$at"' conv=notrunc status=none
		cat > out.nd; }; exit ${PIPESTATUS[0]}'
	[ "$status" -eq 1 ]
	same "$stderr" "mct-cat: t.json: the file changed while it was read"
	"$PYTHON3" -c 'import json, sys
for line in open(sys.argv[1], "rb"):
    json.loads(line)' out.nd
	[ "$(wc -l < out.nd)" -eq "$want" ]
}

@test "pass 1's guess of the unit (gzip, a pipe): a co_id late, a fraction early, times too big, odd numbers, --unit: the same stream, messages and status as one thread" {
	cd "$BATS_TEST_TMPDIR"
	# 20000 events, of 100 bytes or so; the block threads of a read-once
	# operand convert times from us as they frame them, and must give it
	# up, or take it back in pass 2, where the unit turns out otherwise
	"$PYTHON3" - <<'PY'
import json
def write(name, evs):
    with open(name, "w") as f:
        f.write('{"traceEvents":[\n' + ",\n".join(evs) + '\n]}\n')
def ev(i, ts, dur=5, coid=False, extra=""):
    a = '"args":{"i":%d%s}' % (i, ',"co_id":%d' % i if coid else "")
    return '{"name":"k%d","ph":"X","pid":1,"tid":%d,"ts":%s,"dur":%s%s,%s}' % (
        i % 7, i % 3, ts, dur, extra, a)
n = 20000
# integer times, mcTracer's co_id now and then, then always: ns in the
# end, converted (an exponent); blocks give the guess up anywhere in them,
# or keep it to be taken back
# (and 12345678E-9: 8 digits first, not a plain integer; as us 12 ns)
write("late.json", [ev(i, "2E5" if i == 19990 else "12345678E-9" if i == 2600 else
                       1000 + 10 * i,
                       coid=i >= 15000 or i == 2900 or i % 5003 == 5002 or
                       (8000 <= i < 9000 and i % 37 == 36)) for i in range(n)])
# the same with epoch ns (too big as us), -0 and 1E3 (not plain integers)
write("epoch.json", [ev(i, "-0" if i == 1500 else "1E3" if i == 2500 else
                         1700000000000000000 + 10 * i, coid=i >= 3000) for i in range(n)])
# a fraction early: us for sure; co_id late; too big as ns at event 3500;
# three times in event 2000
write("frac.json", [ev(i, "5.5" if i == 10 else "9300000000000000" if i == 3499 else
                        1000 + 10 * i, coid=i >= 1000,
                        extra=',"ts":7' if i == 1999 else "") for i in range(n)])
PY
	for t in late epoch frac; do
		gzip -c $t.json > $t.json.gz
		for opt in "" "--unit ms" "--unit ns"; do
			rc=0; MCT_SPLIT=1000000000 mct-cat $opt $t.json > want.nd 2> want.err || rc=$?
			# (python's has no int64: it multiplies the too big one)
			if [ -z "$opt" ] && [ $t != frac ]; then
				py check want.nd $t.json
			fi
			for split in 512 4096 262144 ""; do
				sed "1s/\"sources\":\[\"$t.json\"\]/\"sources\":[\"$t.json.gz\"]/" want.nd > wantgz.nd
				sed "s/$t\.json:/$t.json.gz:/" want.err > wantgz.err
				st=0; env ${split:+MCT_SPLIT=$split} mct-cat $opt $t.json.gz > got.nd 2> got.err || st=$?
				[ "$st" -eq "$rc" ]
				cmp wantgz.nd got.nd
				cmp wantgz.err got.err
				sed "1s/\"sources\":\[\"$t.json\"\]/\"sources\":[\"-\"]/" want.nd > wantin.nd
				sed "s/$t\.json:/(stdin):/" want.err > wantin.err
				st=0; cat $t.json | env ${split:+MCT_SPLIT=$split} mct-cat $opt > got.nd 2> got.err || st=$?
				[ "$st" -eq "$rc" ]
				cmp wantin.nd got.nd
				cmp wantin.err got.err
			done
		done
	done
	# what the cases are: ns in the end, us for sure with its message
	grep -q '"unit":"ns"' <(mct-cat late.json.gz | head -1)
	cat late.json | mct-cat > l.nd
	grep -q '"ts":1000,"dur":5,' l.nd
	grep -q '"ts":0,"dur":5,"args":{"i":2600}' l.nd
	cat epoch.json | mct-cat > e.nd
	grep -q '"unit":"ns"' <(head -1 e.nd)
	grep -q '"ts":0,"dur":5,"args":{"i":1500}' e.nd
	grep -q '"ts":1000,"dur":5,"args":{"i":2500}' e.nd
	grep -q '"ts":1700000000000000020,"dur":5,"args":{"i":2}' e.nd
	run --separate-stderr mct-cat frac.json.gz
	[ "$status" -eq 1 ]
	same "$stderr" "mct-cat: frac.json.gz: event 3500: 9300000000000000 us is beyond int64 ns; left as written"
}

@test "threads that cannot start (gzip): pass 1 alone, pass 2 made by the reader itself, the same stream; no inflating thread: said, exit 1" {
	cd "$BATS_TEST_TMPDIR"
	if ldd "$MCT_BUILDDIR/tools/mct-cat" | grep -q -e libasan -e libtsan; then
		skip "a sanitizer wraps pthread_create itself"
	fi
	# pthread_create fails from its k-th call on: the inflating thread is
	# the first, the block threads of pass 1 the next two (two CPUs, or
	# MCT_SPLIT), then the chunk threads of pass 2
	cat > failthr.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
int
pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *),
    void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *,
	    void *(*)(void *), void *);
	static int n;
	const char *k = getenv("FAIL_FROM");

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
	if (k != NULL && *k != '\0' && ++n >= atoi(k))
		return EAGAIN;
	return real(t, a, f, arg);
}
C
	"${CC:-cc}" -shared -fPIC -o failthr.so failthr.c -ldl
	# integer us, so that pass 1 converts them: the spool's chunks must be
	# taken as such, by whoever makes them
	genf t.json --scale 0.05 -u us
	gzip -c t.json > t.json.gz
	MCT_SPLIT=1000000000 mct-cat t.json.gz > want.nd
	py check want.nd t.json
	for k in 2 3 4 5; do
		FAIL_FROM=$k LD_PRELOAD="$PWD/failthr.so" MCT_SPLIT=65536 \
		    timeout 60 "$MCT_BUILDDIR/tools/mct-cat" t.json.gz > got.nd
		cmp want.nd got.nd
	done
	run --separate-stderr env FAIL_FROM=1 LD_PRELOAD="$PWD/failthr.so" mct-cat t.json.gz
	[ "$status" -eq 1 ]
	same "$stderr" "mct-cat: t.json.gz: cannot start inflating"
	[ "$(echo "$output" | wc -l)" -eq 1 ]	# the header, of no events
}

@test "mct-cat sends the spool's final lines (sendfile): to a file, a file it appends to, a pipe, /dev/full, a closed pipe; a value too big in a sent chunk; ranks and shifts: the same stream, messages and status as one thread" {
	cd "$BATS_TEST_TMPDIR"
	# Kineto's shape: fractional us, no co_id; pass 1 converts every
	# block, so pass 2 of gzip and a pipe sends the spool's chunks as they
	# are; event 7000 (in a sent chunk) too big, event 12000 with three
	# times (its block and those after are converted in pass 2 again)
	"$PYTHON3" - <<'PY'
def ev(i, ts, extra=""):
    return ('{"name":"k%d","ph":"X","pid":1,"tid":%d,"ts":%s,"dur":%d.25%s,'
            '"args":{"i":%d}}' % (i % 7, i % 3, ts, i % 9, extra, i))
def write(name, evs):
    with open(name, "w") as f:
        f.write('{"traceEvents":[\n' + ",\n".join(evs) + '\n]}\n')
n = 20000
# (and event 9001's dur too big after a ts made longer)
write("k.json", [ev(i, "91000.5").replace('"dur":0.25', '"dur":9300000000000000') if i == 9000 else
                 ev(i, "9300000000000000" if i == 6999 else "%d.%03d" % (1000 + 10 * i, i % 1000),
                    ',"ts":7' if i == 11999 else "") for i in range(n)])
write("clean.json", [ev(i, "%d.5" % (50 + 3 * i)) for i in range(n)])
PY
	gzip -c k.json > k.json.gz
	gzip -c clean.json > clean.json.gz
	rc=0; MCT_SPLIT=1000000000 mct-cat k.json > want.nd 2> want.err || rc=$?
	[ "$rc" -eq 1 ]
	same "$(cat want.err)" "mct-cat: k.json: event 7000: 9300000000000000 us is beyond int64 ns; left as written
mct-cat: k.json: event 9001: 9300000000000000 us is beyond int64 ns; left as written"
	grep -q '"ts":91000500,"dur":9300000000000000,"args":{"i":9000}}' want.nd
	sed '1s/"sources":\["k.json"\]/"sources":["k.json.gz"]/' want.nd > wantgz.nd
	sed 's/k\.json:/k.json.gz:/' want.err > wantgz.err
	sed '1s/"sources":\["k.json"\]/"sources":["-"]/' want.nd > wantin.nd
	sed 's/k\.json:/(stdin):/' want.err > wantin.err
	for split in 4096 65536 ""; do
		export MCT_SPLIT=$split
		[ -n "$split" ] || unset MCT_SPLIT
		st=0; mct-cat k.json.gz > got.nd 2> got.err || st=$?
		[ "$st" -eq 1 ]
		cmp wantgz.nd got.nd
		cmp wantgz.err got.err
		# O_APPEND: sendfile(2) refuses, the lines are written
		echo 'a line before' > app.nd
		st=0; mct-cat k.json.gz >> app.nd 2> got.err || st=$?
		[ "$st" -eq 1 ]
		cmp <(echo 'a line before'; cat wantgz.nd) app.nd
		cmp wantgz.err got.err
		# a pipe, from gzip and into cat
		run bash -c 'mct-cat k.json.gz 2> got.err | cat > piped.nd; echo ${PIPESTATUS[0]}'
		same "$output" 1
		cmp wantgz.nd piped.nd
		cmp wantgz.err got.err
		st=0; cat k.json | mct-cat > got.nd 2> got.err || st=$?
		[ "$st" -eq 1 ]
		cmp wantin.nd got.nd
		cmp wantin.err got.err
	done
	unset MCT_SPLIT
	# a full disk: the write error, exit 2 (at once: ThreadSanitizer
	# would call the threads it leaves leaked); a closed pipe: quiet
	TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}report_thread_leaks=0" \
	    run --separate-stderr bash -c 'mct-cat clean.json.gz > /dev/full'
	[ "$status" -eq 2 ]
	same "$stderr" "mct-cat: write error: No space left on device"
	run --separate-stderr bash -c 'mct-cat clean.json.gz | head -2 | wc -l; echo ${PIPESTATUS[0]}'
	same "$stderr" ""
	[ "${lines[0]}" = 2 ]
	[ "${lines[1]}" = 0 ] || [ "${lines[1]}" = 141 ]	# (or SIGPIPE)
	# two operands (a rank on each event) and --align (a shift): not sent
	MCT_SPLIT=1000000000 mct-cat clean.json k.json > want2.nd 2> want2.err || true
	sed -e '1s/"clean.json"/"clean.json.gz"/g' -e '1s/"k.json"/"k.json.gz"/g' want2.nd > want2gz.nd
	sed 's/k\.json:/k.json.gz:/' want2.err > want2gz.err
	st=0; mct-cat clean.json.gz k.json.gz > got.nd 2> got.err || st=$?
	[ "$st" -eq 1 ]
	grep -q '"rank":1' got.nd
	cmp want2gz.nd got.nd
	cmp want2gz.err got.err
	MCT_SPLIT=1000000000 mct-cat --align start --rank order clean.json k.json > want3.nd 2> want3.err || true
	sed -e '1s/"clean.json"/"clean.json.gz"/g' -e '1s/"k.json"/"k.json.gz"/g' want3.nd > want3gz.nd
	sed 's/k\.json\([:)]\)/k.json.gz\1/g; s/clean\.json\([:)]\)/clean.json.gz\1/g' want3.err > want3gz.err
	st=0; mct-cat --align start --rank order clean.json.gz k.json.gz > got.nd 2> got.err || st=$?
	[ "$st" -eq 1 ]
	cmp want3gz.nd got.nd
	cmp want3gz.err got.err
	# ns as written (mcTracer's): no line converted, all sent but the
	# first chunk's, which mct_next() reads to start pass 2
	genf ns.json --scale 0.05
	gzip -c ns.json > ns.json.gz
	MCT_SPLIT=1000000000 mct-cat ns.json > wantns.nd
	grep -q '"unit":"ns"' <(head -1 wantns.nd)
	for split in 4096 65536 ""; do
		env ${split:+MCT_SPLIT=$split} mct-cat ns.json.gz > got.nd
		cmp <(sed '1s/"ns.json"/"ns.json.gz"/g' wantns.nd) got.nd
		cat ns.json | env ${split:+MCT_SPLIT=$split} mct-cat | cat > got.nd
		cmp <(sed '1s/"ns.json"/"-"/g' wantns.nd) got.nd
	done
	# the stream itself, against python's json
	mct-cat clean.json.gz > c.nd
	py check c.nd clean.json
	cmp <(sed '1s/clean.json.gz/clean.json/' c.nd) <(mct-cat clean.json)
}

@test "values beyond int64 ns: each told with its event, the first 20 of an operand, then counted; the same alone, by threads, through the spool and gzip" {
	cd "$BATS_TEST_TMPDIR"
	# 30 of them, every 2000th event from the 8th (python counts)
	"$PYTHON3" - tb.json want <<'PY'
import sys
evs, big = [], []
for i in range(60000):
    if i % 2000 == 7:
        evs.append('{"name":"k","ph":"X","ts":9300000000000000.5,"dur":1}')
        big.append(i + 1)
    else:
        evs.append('{"name":"k","ph":"X","ts":%d,"dur":1}' % (1000 + i))
open(sys.argv[1], "w").write("[" + ",\n".join(evs) + "]\n")
w = ["mct-cat: tb.json: event %d: 9300000000000000.5 us is beyond int64 ns; "
     "left as written" % n for n in big[:20]]
w.append("mct-cat: tb.json: %d more values beyond int64 ns, left as "
         "written (the first 20 are told)" % (len(big) - 20))
open(sys.argv[2], "w").write("\n".join(w) + "\n")
PY
	for how in MCT_SPLIT=1000000000 MCT_SPLIT=65536 MCT_SPOOL=1 \
	    "MCT_SPOOL=1 MCT_SPLIT=65536"; do
		run --separate-stderr env $how mct-cat tb.json
		[ "$status" -eq 1 ]
		same "$stderr" "$(cat want)"
	done
	gzip -c tb.json > tb.json.gz
	run --separate-stderr mct-cat tb.json.gz
	[ "$status" -eq 1 ]
	same "$stderr" "$(sed 's/tb\.json:/tb.json.gz:/' want)"
}
