# The same kernels by launch configuration and resources.
mct-cat "$TRACE" | mct-filter --pid 2 --name 'kernel_kernel*' |
    mct-group --by name,args.grid,args.block \
        -a count,mean,total,max:args.registers_per_thread,max:args.dynamic_shared -o table
