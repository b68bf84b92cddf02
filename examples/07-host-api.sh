# The host runtime API — count, total, median, max.
mct-cat "$TRACE" | mct-filter --pid 1 --ph X | mct-group -a count,total,median,max -n 7 -o table
