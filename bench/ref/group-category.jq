# group-category.jq: mct-group --by category on the pid 2 and 3 events of the trace; the category
# def is the rules file translated by rules.py into DIR/category.jq:
#   python3 rules.py jq RULES >DIR/category.jq && jq -L DIR -c -f group-category.jq TRACE
include "common" {search: "./"};
include "category";
[.traceEvents[] | select(.ph != "M" and (.pid == 2 or .pid == 3)) | {k: [category], v: .dur}
  | select(.k[0] != null)] | table(["category"])
