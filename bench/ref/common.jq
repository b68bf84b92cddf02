# common.jq: the aggregates of mct-group's tables, for group-*.jq and kernels.jq (include "common")
def med: sort as $s | ($s | length) as $n
  | if $n == 0 then null elif $n % 2 == 1 then $s[($n - 1) / 2 | floor]
    else ($s[$n / 2 - 1 | floor] + $s[$n / 2 | floor]) / 2 end;
def stats: (map(.v | numbers)) as $v | ($v | length) as $n | ($v | add) as $t
  | {count: length, total: $t, mean: (if $n > 0 then $t / $n else null end), median: ($v | med),
     min: ($v | min), max: ($v | max)};
def table($by): (map(.v | numbers) | add) as $all
  | group_by(.k) | map(.[0].k as $k | stats as $s | ([$by, $k] | transpose | map({(.[0]): .[1]}) | add) + $s
      + {share: (if $all > 0 then 100 * ($s.total // 0) / $all else null end)})
  | sort_by(.total) | reverse | .[];
