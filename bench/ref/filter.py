# filter.py TRACE window FROM_NS TO_NS | name PID PREFIX: mct-filter's selections, on the trace
import json, sys
with open(sys.argv[1], 'rb') as f:
    doc = json.load(f)
events = doc['traceEvents'] if isinstance(doc, dict) else doc
num = (int, float)
if sys.argv[2] == 'window':		# window FROM_NS TO_NS, relative to the smallest ts
    origin = min(e['ts'] for e in events if isinstance(e.get('ts'), num))
    lo, hi = origin + int(sys.argv[3]), origin + int(sys.argv[4])
    def keep(e):
        if e.get('ph') == 'M':
            return True
        ts = e.get('ts')
        if not isinstance(ts, num):
            return False
        if e.get('ph') == 'X':
            d = e.get('dur')
            return ts < hi and ts + (d if isinstance(d, num) else 0) > lo
        return lo <= ts < hi
else:					# name PID PREFIX
    pid, prefix = int(sys.argv[3]), sys.argv[4]
    def keep(e):
        if e.get('ph') == 'M':
            return True
        n = e.get('name')
        return e.get('pid') == pid and isinstance(n, str) and n.startswith(prefix)
out = sys.stdout
dumps = json.dumps
for e in events:
    if keep(e):
        out.write(dumps(e, separators=(',', ':'), ensure_ascii=False))
        out.write('\n')
