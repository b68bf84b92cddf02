# Launch latency (device start - launch start) per API, in us.
mct-cat "$TRACE" | mct-flow -q |
    mct-group --by launch.name --value latency -a count,median,min,max -o tsv --time-unit us
