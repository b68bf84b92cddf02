# kernels.jq: the kernel table on the trace (jq -c -f kernels.jq TRACE): pid 2,
# kernel_kernel*, by name and args.grid
include "common" {search: "./"};
[.traceEvents[] | select(.ph != "M" and .pid == 2 and ((.name | strings | startswith("kernel_kernel")) // false)
  and (.args | type) == "object" and .args.grid != null) | {k: [.name, .args.grid], v: .dur}]
| table(["name", "args.grid"])
