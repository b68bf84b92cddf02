# name.jq: mct-filter --pid PID --name 'PREFIX*' on the trace
# (jq -c --argjson pid PID --arg prefix PREFIX -f name.jq TRACE)
.traceEvents[] | select(.ph == "M" or (.pid == $pid and ((.name | strings | startswith($prefix)) // false)))
