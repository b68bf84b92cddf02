# count.py TRACE: the number of events of a trace, read by python3 json (for given trace files).
import json
import sys

with open(sys.argv[1], 'rb') as f:
    doc = json.load(f)
print(len(doc['traceEvents'] if isinstance(doc, dict) else doc))
