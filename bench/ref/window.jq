# window.jq: mct-filter --from FROM --to TO on the trace (jq -c --argjson from NS --argjson to NS -f window.jq TRACE);
# FROM and TO in ns from the smallest ts
.traceEvents as $e | ([$e[] | .ts | numbers] | min) as $o | ($o + $from) as $lo | ($o + $to) as $hi
| $e[] | select(.ph == "M" or ((.ts | type) == "number" and (if .ph == "X"
    then .ts < $hi and .ts + ((.dur | numbers) // 0) > $lo else .ts >= $lo and .ts < $hi end)))
