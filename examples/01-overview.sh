# Overview: what is in the trace — events by ph, and the time span.
mct-cat "$TRACE" | mct-group --meta --by ph -a count,first,last -o tsv --time-unit s
