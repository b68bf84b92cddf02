#!/usr/bin/env bats
# esckeys.bats - a string spelt two ways in JSON ("gemm\u005fkernel" and
# "gemm_kernel", "a\/b" and "a/b") is one string, so one key, in every
# tool that groups, joins or compares by a string's value: mct-group
# (and its partials, merged), mct-diff, mct-flow's stacks and mct-mem's
# modules (an nn.Module spelt with escapes is one); and a group's
# key is written in one spelling (RFC 8785's: mct-group(1)), whatever
# spelling came first.
#
# tests/esckeys_oracle.py writes a trace twice with the same values, the
# values of "name" spelt a different way in turn in one (so each name
# comes in several spellings) and in the canonical spelling in the
# other, with names that hold what JSON escapes beside them; and groups
# a trace's events by a field with python3's json (strings decoded).

load helpers

setup_file() {
	light_trace
	local d=$BATS_FILE_TMPDIR

	"$PYTHON3" "$MCT_SRCDIR/tests/esckeys_oracle.py" spell \
	    "$MCT_SRCDIR/examples/pytorch-small.pt.trace.json" \
	    "$d/mixed.json" "$d/plain.json"
	# the allocator's events, for mct-mem
	"$PYTHON3" "$MCT_SRCDIR/tests/genmem.py" > "$d/mem.json"
	"$PYTHON3" "$MCT_SRCDIR/tests/esckeys_oracle.py" spell "$d/mem.json" \
	    "$d/mem-mixed.json" "$d/mem-plain.json"
}

setup() {
	light_trace
	cd "$BATS_TEST_TMPDIR"
	mixed=$BATS_FILE_TMPDIR/mixed.json
	plain=$BATS_FILE_TMPDIR/plain.json
}

# both CMD...: what CMD writes of the mixed trace is what it writes of the
# plain one (the file's name apart; the header line, which holds the
# trace's top-level keys as written, left out).
both() {
	same_output -H "$mixed" "$plain" "$@"
}

# keys: "KEY<TAB>COUNT" of mct-group -a count -o ndjson --by name on
# stdin, KEY the name's JSON text as written, sorted.
keys() {
	sed 1d | sed -E 's/^\{"name":(.*),"count":([0-9]+),"ph".*$/\1\t\2/' |
	    LC_ALL=C sort
}

@test "the oracle: the mixed trace spells its names several ways, the plain one once" {
	grep -q -F '"name":"\u0061\/b"' "$mixed"
	grep -q -F '"name":"a/b"' "$mixed"
	grep -q -F '"name":"\u0067emm\u005fkernel"' "$mixed"
	grep -q -F '"name":"gemm_kernel"' "$mixed"
	! grep -q -F '\/' "$plain"
	same "$(oracle esckeys_oracle.py group "$mixed" name)" \
	    "$(oracle esckeys_oracle.py group "$plain" name)"
}

@test "mct-group --by name: a name spelt two ways is one group, written in its one spelling; the oracle agrees" {
	mct-cat "$mixed" | mct-group --by name -a count -o ndjson > g.nd
	same "$(keys < g.nd)" "$(oracle esckeys_oracle.py group "$mixed" name | LC_ALL=C sort)"
	grep -q -F '{"name":"a/b","count":3,' g.nd
	grep -q -F '{"name":"gemm_kernel","count":3,' g.nd
	grep -q -F '{"name":"tab\there","count":3,' g.nd
	grep -q -F '{"name":"say \"hi\"","count":3,' g.nd
	grep -q -F '{"name":"back\\slash","count":3,' g.nd
	grep -q -F '{"name":"bell\u0007","count":3,' g.nd
}

@test "mct-group: every output of the mixed trace is the plain one's, byte for byte" {
	both mct-group --by name
	both mct-group --by name -o tsv
	both mct-group --by name -o csv -s name
	both mct-group --by cat,name -o ndjson --total
	both mct-group --by name,args.grid -o ndjson
	both mct-group --by args -o ndjson
	both mct-group --by op -o ndjson
	both mct-group --by module -o ndjson
	both mct-group --by stack -o ndjson
}

@test "the key's spelling does not hang on which spelling came first" {
	printf '%s\n' '{"traceEvents":[' \
	    '{"ph":"X","name":"gemm\u005fkernel","ts":1,"dur":2,"pid":1,"tid":1},' \
	    '{"ph":"X","name":"gemm_kernel","ts":4,"dur":3,"pid":1,"tid":1},' \
	    '{"ph":"X","name":"a\/b\u000A\u0022","ts":8,"dur":1,"pid":1,"tid":1},' \
	    '{"ph":"X","name":"a/b\n\"","ts":9,"dur":1,"pid":1,"tid":1}]}' > t1.json
	printf '%s\n' '{"traceEvents":[' \
	    '{"ph":"X","name":"gemm_kernel","ts":1,"dur":2,"pid":1,"tid":1},' \
	    '{"ph":"X","name":"gemm\u005fkernel","ts":4,"dur":3,"pid":1,"tid":1},' \
	    '{"ph":"X","name":"a/b\n\"","ts":8,"dur":1,"pid":1,"tid":1},' \
	    '{"ph":"X","name":"a\/b\u000A\u0022","ts":9,"dur":1,"pid":1,"tid":1}]}' > t2.json
	mct-cat t1.json | mct-group --by name -a count,total -s name -o ndjson > 1.nd
	mct-cat t2.json | mct-group --by name -a count,total -s name -o ndjson > 2.nd
	same "$(sed 1d 1.nd | cut -d, -f1-3)" \
	    "$(printf '%s\n' '{"name":"a/b\n\"","count":2,"total":2000' \
	    '{"name":"gemm_kernel","count":2,"total":5000')"
	same "$(sed 1d 2.nd | cut -d, -f1-3)" "$(sed 1d 1.nd | cut -d, -f1-3)"
	# the oracle's spelling of the key: python3's json.dumps
	same "$(oracle esckeys_oracle.py group t1.json name)" \
	    "$(printf '"a/b\\n\\""\t2\n"gemm_kernel"\t2\n')"
}

@test "mct-group -o partial: the mixed trace's partial is the plain one's; merged, one group a name" {
	# (all but the header and end lines, which name the file)
	mct-group -o partial -a count,total "$mixed" | sed '1d;$d' > pm
	mct-group -o partial -a count,total "$plain" | sed '1d;$d' > pp
	same "$(cat pm)" "$(cat pp)"
	mct-group -o partial -a count,total "$mixed" > Pm
	mct-group -o partial -a count,total "$plain" > Pp
	mct-group --merge -a count -o ndjson Pm Pp > merged.nd
	same "$(keys < merged.nd)" \
	    "$(oracle esckeys_oracle.py group "$mixed" name | LC_ALL=C sort |
	    awk -F'\t' '{ print $1 "\t" 2 * $2 }')"
}

@test "mct-diff: a name spelt escaped in A and plainly in B is one row, every delta 0" {
	run --separate-stderr mct-diff -o tsv "$plain" "$mixed"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > d.tsv
	head -1 d.tsv | grep -q 'count_a'
	# every row seen in both, with the same count and total
	same "$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["count_a"] != $c["count_b"] || $c["total_delta"] != 0 { print }' d.tsv)" ""
	same "$(($(wc -l < d.tsv) - 1))" \
	    "$(oracle esckeys_oracle.py group "$plain" name | wc -l)"
	run mct-diff --fail-if 'total_delta > 0 || total_delta < 0' "$mixed" "$plain"
	[ "$status" -eq 0 ]
	both mct-diff -o tsv "$plain"
	both mct-diff --by op -o tsv "$plain"
}

@test "--merge: a partial whose key is spelt otherwise (an older mct's) merges into the group of its one spelling" {
	mct-group -o partial -a count,total "$plain" |
	    sed 's/"key":"\\"gemm_kernel\\""/"key":"\\"gemm\\\\u005fkernel\\""/' > Pold
	grep -q -F '"key":"\"gemm\\u005fkernel\""' Pold
	mct-group -o partial -a count,total "$mixed" > Pm
	run --separate-stderr mct-group --merge -a count -s name -o tsv Pold Pm
	[ "$status" -eq 0 ]
	same "$stderr" ""
	same "$(printf '%s\n' "$output" | grep -c kernel$'\t')" 1
	printf '%s\n' "$output" | grep -q -x "gemm_kernel"$'\t'6
	# the older partial merged with itself (--allow-repeat): one group, twice
	run --separate-stderr mct-group --merge --allow-repeat -a count -o ndjson Pold Pold
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | grep -q -F '{"name":"gemm_kernel","count":6,'
}

@test "mct-flow --stack: a frame spelt two ways is one frame, written in its one spelling; an escaped nn.Module is a module" {
	both mct-flow --stack -q -o tsv -F launch.name,name,op,module,annotation,stack
	both mct-flow --stack -q -o folded
	mct-flow --stack -q -o tsv -F module,stack "$mixed" > s.tsv
	grep -q -F 'nn.Module: Linear_1' s.tsv
	! grep -q -F '\\u' s.tsv
	both mct-diff --by module -o tsv "$plain"
	both mct-diff --by stack -o tsv "$plain"
}

@test "mct-mem: an nn.Module spelt with escapes is the module it decodes to" {
	local m=$BATS_FILE_TMPDIR/mem-mixed.json p=$BATS_FILE_TMPDIR/mem-plain.json

	grep -q -F '"name":"\u006En.Module: ' "$m"
	same "$(mct-mem -o tsv "$m" | sed 1d)" "$(mct-mem -o tsv "$p" | sed 1d)"
	same "$(mct-mem --by module -o tsv "$m")" "$(mct-mem --by module -o tsv "$p")"
	mct-mem --by module -o tsv "$m" | grep -q -F 'nn.Module: Linear_'
}

@test "mct-filter --name, --match and --where match a name's decoded text, however spelt" {
	both mct-filter -q --name 'a/b' -o tsv -F ts,dur
	both mct-filter -q --match '^gemm_k|say "hi"|back\\slash' -o tsv -F ts,dur
	both mct-filter -q --where 'name == "a/b" || name == "café"' -o tsv -F ts,dur
	same "$(mct-filter --name 'a/b' -o tsv -F ts --no-header "$mixed" | wc -l)" 3
	same "$(mct-filter --match '^gemm_kernel$' -o tsv -F ts --no-header "$mixed" | wc -l)" 3
}
