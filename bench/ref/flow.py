# flow.py STREAM OUT: join host calls (pid 1) to device events by args.co_id, as mct-flow does;
# writes the pairs to OUT and "pairs,most waiting at once" on stdout
import json, sys
loads, dumps = json.loads, json.dumps
host, dev = {}, {}
pairs = waiting = most = 0
out = open(sys.argv[2], 'w')


def emit(h, d):
    r = dict(d)
    hts, hdur = h.get('ts', 0), h.get('dur', 0)
    r['launch'] = {'name': h.get('name'), 'ts': hts, 'dur': hdur, 'pid': h.get('pid'), 'tid': h.get('tid')}
    r['latency'] = d.get('ts', 0) - hts
    r['queue'] = d.get('ts', 0) - (hts + hdur)
    out.write(dumps(r, separators=(',', ':'), ensure_ascii=False))
    out.write('\n')


with open(sys.argv[1], 'rb') as f:
    for line in f:
        e = loads(line)
        a = e.get('args')
        if e.get('ph') == 'M' or not isinstance(a, dict):
            continue
        k = a.get('co_id')
        if k is None:
            continue
        is_host = e.get('pid') == 1
        mine, other = (host, dev) if is_host else (dev, host)
        o = other.pop(k, None)
        if o is None:
            mine[k] = e
            waiting += 1
        else:
            waiting -= 1
            pairs += 1
            emit(e, o) if is_host else emit(o, e)
        if waiting > most:
            most = waiting
out.close()
print('%d,%d' % (pairs, most))
