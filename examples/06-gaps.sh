# What the host did while the custom kernels were not running.
mct-phases --only-gaps --device 'name~^kernel_kernel' -o tsv --time-unit ms "$TRACE"
