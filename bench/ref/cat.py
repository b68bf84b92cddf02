# cat.py TRACE: the python3 reference of mct-cat: json.load the whole trace, then one compact event
# a line on stdout.
import json
import sys

with open(sys.argv[1], 'rb') as f:
    doc = json.load(f)
events = doc['traceEvents'] if isinstance(doc, dict) else doc
out = sys.stdout
dumps = json.dumps
for e in events:
    out.write(dumps(e, separators=(',', ':'), ensure_ascii=False))
    out.write('\n')
