# metrics.py TRACE LOG: what mct-metrics --join does at its core, with python3 json: the trace
# read whole, the generic CSV log (time_ns, gpu, hbm_bw [GB/s], sm_clock [MHz]) read with csv,
# each counter a step function (bisect), every event with a dur given the time-weighted mean, min
# and max of both over its interval; prints the number of events that got values
import bisect, csv, json, sys

with open(sys.argv[1], 'rb') as f:
    doc = json.load(f)
t, cols = [], {}
with open(sys.argv[2], newline='') as f:
    r = csv.reader(f)
    head = next(r)
    names = [h.split(' [')[0] for h in head[2:]]
    for n in names:
        cols[n] = []
    for row in r:
        t.append(int(row[0]))
        for n, v in zip(names, row[2:]):
            cols[n].append(int(v))
joined = 0
for e in doc['traceEvents']:
    dur = e.get('dur')
    if not isinstance(dur, int) or e.get('ph') in ('C', 'M'):
        continue
    a, b = e['ts'], e['ts'] + dur
    i = max(bisect.bisect_right(t, a) - 1, 0)
    j = bisect.bisect_left(t, b)
    m = {}
    for n, v in cols.items():
        w = cov = 0
        lo = hi = None
        for k in range(i, max(j, i + 1)):
            s, x = max(a, t[k]), min(b, t[k + 1] if k + 1 < len(t) else b)
            if x > s:
                w += v[k] * (x - s)
                cov += x - s
                lo = v[k] if lo is None else min(lo, v[k])
                hi = v[k] if hi is None else max(hi, v[k])
        if cov:
            m[n] = {'mean': round(w / cov, 3), 'min': lo, 'max': hi}
    if m:
        e['metrics'] = m
        joined += 1
print(joined)
