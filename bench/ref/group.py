# group.py TRACE name | category RULES | kernels: the tables of mct-group, from the trace
# (category: the rules file read by tests/filter_oracle.py, through rules.py)
import json, sys
with open(sys.argv[1], 'rb') as f:
    doc = json.load(f)
events = doc['traceEvents'] if isinstance(doc, dict) else doc
mode = sys.argv[2]
num = (int, float)
groups = {}


def add(key, e):
    g = groups.get(key)
    if g is None:
        g = groups[key] = [0, []]
    g[0] += 1
    d = e.get('dur')
    if isinstance(d, num):
        g[1].append(d)


if mode == 'name':
    by = ('name',)
    for e in events:
        if e.get('ph') != 'M' and e.get('name') is not None:
            add((e['name'],), e)
elif mode == 'category':
    import rules				# bench/ref/rules.py: the tests' oracle's rules
    category = rules.classifier(sys.argv[3])
    by = ('category',)
    for e in events:
        if e.get('ph') != 'M' and e.get('pid') in (2, 3):
            c = category(e)
            if c is not None:
                add((c,), e)
else:						# the kernel table: pid 2, kernel_kernel*, by name and grid
    by = ('name', 'args.grid')
    for e in events:
        n = e.get('name')
        a = e.get('args')
        if (e.get('ph') != 'M' and e.get('pid') == 2 and isinstance(n, str)
                and n.startswith('kernel_kernel') and isinstance(a, dict) and 'grid' in a):
            add((n, json.dumps(a['grid'], separators=(',', ':'))), e)
everything = sum(sum(v) for c, v in groups.values())
rows = []
for key, (count, v) in groups.items():
    v.sort()
    n = len(v)
    total = sum(v)
    r = dict(zip(by, key))
    if mode == 'kernels':
        r['args.grid'] = json.loads(r['args.grid'])
    r['count'] = count
    r['total'] = total if n else None
    r['share'] = 100 * total / everything if everything and n else None
    r['mean'] = total / n if n else None
    r['median'] = (v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2) if n else None
    r['min'] = v[0] if n else None
    r['max'] = v[-1] if n else None
    rows.append(r)
rows.sort(key=lambda r: -1 if r['total'] is None else r['total'], reverse=True)
for r in rows:
    print(json.dumps(r, separators=(',', ':')))
