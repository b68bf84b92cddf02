# The timeline in phases, on the custom kernels alone.
mct-cat "$TRACE" | mct-filter --name 'kernel_kernel*' | mct-phases -o tsv --time-unit s |
    cut -f1-7
