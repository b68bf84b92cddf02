# Device time by category (pid 2 kernels, pid 3 copies).
mct-cat "$TRACE" | mct-filter --pid 2 --pid 3 | mct-group --by category -o table
