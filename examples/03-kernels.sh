# The two TileLang kernels, with first and last appearance.
mct-cat "$TRACE" | mct-filter --pid 2 --name 'kernel_kernel*' |
    mct-group -a count,total,mean,median,min,max,first,last -o table
