# ranks.py RANKFILE...: what mct-cat --merge | mct-ranks does at its core, with python3 json: every
# rank file read whole, its device events (X on pid 2 and 3) sorted, the busy, compute (not
# nccl) and communication unions, their medians over the ranks, and the stragglers (compute over
# 5% above the median rank's); prints "stragglers,ranks"
import json, re, sys
comm = re.compile(r'([Nn]ccl|[Rr]ccl|AllReduce|AllGather|ReduceScatter|AllToAll|Broadcast)')


def union(iv):
    tot, cs, ce = 0, None, None
    for s, e in iv:
        if cs is not None and s <= ce:
            if e > ce:
                ce = e
            continue
        if cs is not None:
            tot += ce - cs
        cs, ce = s, e
    return tot + (ce - cs if cs is not None else 0)


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) // 2


rows = []
for path in sys.argv[1:]:
    with open(path, 'rb') as f:
        doc = json.load(f)
    dev = []
    for e in doc['traceEvents']:
        if e.get('ph') == 'X' and e.get('pid') in (2, 3):
            ts = e['ts']
            dev.append((ts, ts + e.get('dur', 0), comm.search(e['name']) is not None))
    dev.sort()
    busy = union((s, t) for s, t, c in dev)
    compute = union((s, t) for s, t, c in dev if not c)
    commt = union((s, t) for s, t, c in dev if c)
    rows.append((dev[-1][1] - dev[0][0], busy, compute, commt))
med = median(r[2] for r in rows)
print("%d,%d" % (sum(1 for r in rows if r[2] > med * 1.05), len(rows)))
