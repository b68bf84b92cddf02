# Memory bandwidth and clock beside the kernels.  The
# GPU's log (nvidia-smi --format=csv, one sample every 10 ms, wall times)
# is put on the trace's clock: the profiler started at 07:00:00.000, the
# trace's origin.  Each call of a custom kernel gets the time-weighted
# mean of each counter over its interval; then the means by kernel.
LOG=${TRACE%.json.gz}-gpu.csv
origin=$(mct-cat "$TRACE" | head -1 | sed 's/.*"origin":\([0-9]*\).*/\1/')
mct-metrics --sync "2026/12/02 07:00:00.000=@$origin" "$LOG" > "$TMP/gpu.nd"
mct-cat "$TRACE" | mct-filter --name 'kernel_kernel*' |
    mct-metrics --join utilization.memory,clocks.current.sm - "$TMP/gpu.nd" |
    mct-group -a 'count,mean:metrics."utilization.memory".mean,mean:metrics."clocks.current.sm".mean' \
    --sort 'mean:metrics."utilization.memory".mean' -o tsv
