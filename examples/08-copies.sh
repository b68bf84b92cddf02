# The copies, with bytes.
mct-cat "$TRACE" | mct-filter --pid 3 --ph X |
    mct-group -a count,total,sum:args.bytes,max:args.bytes -o table
