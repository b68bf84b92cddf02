# group-name.jq: mct-group --by name on the trace (jq -c -f group-name.jq TRACE)
include "common" {search: "./"};
[.traceEvents[] | select(.ph != "M" and .name != null) | {k: [.name], v: .dur}] | table(["name"])
