# diff.py A B: mct-diff's rows from two traces: per name, count, total and
# median of dur in each, their changes, sorted by |total change|; prints the
# number of rows and the first row's name, comma-separated
import json, statistics, sys


def table(path):
    with open(path, 'rb') as f:
        doc = json.load(f)
    events = doc['traceEvents'] if isinstance(doc, dict) else doc
    groups = {}
    for e in events:
        if e.get('ph') == 'M' or e.get('name') is None:
            continue
        g = groups.get(e['name'])
        if g is None:
            g = groups[e['name']] = [0, []]
        g[0] += 1
        d = e.get('dur')
        if isinstance(d, (int, float)):
            g[1].append(d)
    return groups


a, b = table(sys.argv[1]), table(sys.argv[2])
rows = []
for k in set(a) | set(b):
    ga, gb = a.get(k, [0, []]), b.get(k, [0, []])
    ta, tb = sum(ga[1]), sum(gb[1])
    ma = statistics.median(ga[1]) if ga[1] else None
    mb = statistics.median(gb[1]) if gb[1] else None
    rows.append((k, ga[0], gb[0], ta, tb, tb - ta, 100 * (tb - ta) / ta if ta else None,
                 ma, mb, mb - ma if ma is not None and mb is not None else None))
rows.sort(key=lambda r: (-abs(r[5]), r[0]))
print("%d,%s" % (len(rows), rows[0][0] if rows else ""))
