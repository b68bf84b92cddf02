# phases.py STREAM OUT: what mct-phases --gaps does at its core: sort the device events (X on pid 2
# and 3), their busy union, the idle gaps over 1% of the device span (at least 1 ms) with the host
# calls (pid 1) overlapping each, and the calls by signature (name, grid, block);
# writes the gaps to OUT and "gaps,device events" on stdout
import json, sys
from bisect import bisect_left
loads, dumps = json.loads, json.dumps
dev, host = [], []
with open(sys.argv[1], 'rb') as f:
    for line in f:
        e = loads(line)
        if e.get('ph') != 'X':
            continue
        pid, ts, dur = e.get('pid'), e.get('ts', 0), e.get('dur', 0)
        if pid == 2 or pid == 3:
            a = e.get('args') or {}
            dev.append((ts, ts + dur, e.get('name'), dumps(a.get('grid')), dumps(a.get('block'))))
        elif pid == 1:
            host.append((ts, ts + dur, e.get('name')))
dev.sort()
sig = {}
for s, t, n, g, b in dev:
    v = sig.get((n, g, b))
    if v is None:
        v = sig[(n, g, b)] = [0, 0]
    v[0] += 1
    v[1] += t - s
busy, gaps = 0, []
cs, ce = dev[0][0], dev[0][1]
end = ce
for s, t, *_ in dev:
    if s > ce:
        busy += ce - cs
        gaps.append((ce, s))
        cs, ce = s, t
    elif t > ce:
        ce = t
    if t > end:
        end = t
busy += ce - cs
threshold = max((end - dev[0][0]) // 100, 1000000)
gaps = [g for g in gaps if g[1] - g[0] > threshold]
starts = [g[0] for g in gaps]
during = [{} for g in gaps]
for s, t, n in host:
    i = bisect_left(starts, t) - 1
    while i >= 0 and gaps[i][1] > s:
        o = min(t, gaps[i][1]) - max(s, gaps[i][0])
        if o > 0:
            during[i][n] = during[i].get(n, 0) + o
        i -= 1
origin = dev[0][0]
with open(sys.argv[2], 'w') as out:
    for (s, t), d in zip(gaps, during):
        top = sorted(d.items(), key=lambda x: -x[1])[:3]
        out.write(dumps({'name': 'gap', 'ts': s, 'dur': t - s, 'start': s - origin,
                         'host': [{'name': n, 'overlap': o} for n, o in top]}) + '\n')
    out.write(dumps({'busy': busy, 'signatures': len(sig)}) + '\n')
print('%d,%d' % (len(gaps), len(dev)))
