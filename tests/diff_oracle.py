#!/usr/bin/env python3
"""diff_oracle.py - what mct-diff should print, computed independently.

Python's json module reads both runs; nothing here shares code or logic
with mct's C library.  The definitions are mct-diff(1)'s:

  input    a trace (Object or Array form, or events one a line; gzip or
           not) or an mct stream (its first line {"name":"mct_header",..},
           ts and dur already integer ns).  A trace's unit: us when any ts
           or dur has a fraction, else ns when an event has args.co_id,
           else us; times become integer ns exactly (Decimal).  Events
           whose ph is "M" are left out.
  rows     the --by fields of each event (dotted paths; an event without
           one is left out); count: the events of the key, total: the sum
           of their --value (default dur; events without it add nothing),
           median: the middle value, or the mean of the two middle ones.
           A key of one run only has count 0 and total 0 in the other, no
           median there, and only = "a" or "b"; new is true for a key
           of B only, gone for a key of A only.  total_delta = total_b -
           total_a, total_pct = 100 * delta / total_a (none when total_a
           is 0); the same for the medians.  Sorted by |total_delta|,
           largest first, ties in the byte order of the key's JSON text.
  --device only the device work: X events whose cat is kernel,
           gpu_memcpy, gpu_memset, memcpy, memset, mtia_ccp_events (any
           case), or without cat on pid 2 or 3, or with any other cat
           but a host one (ending in runtime or driver) or cuda_sync, and
           a correlation id (args.correlation or args.co_id).
  --op     the rows are by op, computed here from the traces: each device
           event (cat kernel, gpu_memcpy, gpu_memset) is paired through
           args.correlation with the host call of the same correlation
           (cat ending in runtime or driver), whose args."External id"
           names the cpu_op of that External id; that op's name is the
           key.  Device events without such an op are left out.
  summary  span: first start to last end of the device work (--device's
           definition); busy: the union of its intervals; busy_pct.

Usage: diff_oracle.py [--by F,..] [--value F] [--device] [--op]
           [--summary] --check OUT A B
       diff_oracle.py [--by F,..] [--value F] [--device] [--op]
           --rows A B
OUT is mct-diff -o ndjson's output (header, summary, rows).  Exit 0 when
every figure of every row (and, with --summary, the span and busy of
both runs) is what it should be, else 1 naming the first difference.
--rows prints the rows as they should be instead, one JSON record a
line in key order (times in ns, a figure not known null), for a test to
select from.
"""
import argparse
import gzip
import json
import sys
from decimal import Decimal
from fractions import Fraction

DEVCATS = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset",
           "mtia_ccp_events"}


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    text = data.decode("utf-8", "replace")
    first = text.lstrip()[:200]
    if first.startswith("{") and "\n" in text.strip() and \
            '"name":"mct_header"' in first.split("\n")[0]:
        lines = [json.loads(l) for l in text.split("\n") if l.strip()]
        return [e for e in lines[1:] if isinstance(e, dict)], True
    try:
        doc = json.loads(text, parse_float=Num)
    except json.JSONDecodeError:
        doc = [json.loads(l, parse_float=Num)
               for l in text.split("\n") if l.strip()]
    if isinstance(doc, dict):
        doc = doc.get("traceEvents", [])
    return [e for e in doc if isinstance(e, dict)], False


class Num(str):
    """A JSON number with a fraction or exponent, its text kept (exact)."""


def exact_ns(v, mult):
    """The integer ns of a JSON number's text, exactly."""
    if mult == 1 or isinstance(v, int):
        return int(v) * mult if isinstance(v, int) else int(Decimal(v))
    if "e" in v or "E" in v:
        n = Decimal(v) * mult
        assert n == int(n), v
        return int(n)
    ip, _, fp = v.partition(".")
    assert fp[3:].strip("0") == "", v
    neg = ip.startswith("-")
    n = int(ip.lstrip("-") or "0") * 1000 + int((fp[:3] or "0").ljust(3, "0"))
    return -n if neg else n


def to_ns(events):
    """ts and dur as integer ns, by the unit rule."""
    frac = any(isinstance(e.get(k), Num) and Decimal(e[k]) != int(Decimal(e[k]))
               for e in events for k in ("ts", "dur"))
    coid = any(isinstance(e.get("args"), dict) and "co_id" in e["args"]
               for e in events)
    mult = 1 if (not frac and coid) else 1000
    for e in events:
        for k in ("ts", "dur"):
            v = e.get(k)
            if isinstance(v, (int, Num)) and not isinstance(v, bool):
                e[k] = exact_ns(v, mult)


def get(e, path):
    cur = e
    for seg in path.split("."):
        if not isinstance(cur, dict) or seg not in cur:
            return None, False
        cur = cur[seg]
    return cur, True


def is_device(e):
    if e.get("ph") != "X":
        return False
    cat = e.get("cat")
    if cat is None:
        return str(e.get("pid")) in ("2", "3")
    if not isinstance(cat, str):
        return False
    c = cat.lower()
    if c in DEVCATS:
        return True
    if c.endswith("runtime") or c.endswith("driver") or c == "cuda_sync":
        return False
    a = e.get("args")
    return isinstance(a, dict) and ("correlation" in a or "co_id" in a)


def ops(events):
    """Each device event with an op, and the op's name."""
    cpu = {}
    launch = {}
    for e in events:
        a = e.get("args") if isinstance(e.get("args"), dict) else {}
        cat = str(e.get("cat", "")).lower()
        if cat == "cpu_op" and "External id" in a:
            cpu.setdefault(a["External id"], e.get("name"))
        if (cat.endswith("runtime") or cat.endswith("driver")) and \
                "correlation" in a:
            launch.setdefault(a["correlation"], a.get("External id"))
    out = []
    for e in events:
        a = e.get("args") if isinstance(e.get("args"), dict) else {}
        if str(e.get("cat", "")).lower() not in ("kernel", "gpu_memcpy",
                                                 "gpu_memset"):
            continue
        ext = launch.get(a.get("correlation"))
        if ext is not None and ext in cpu:
            d = dict(e)
            d["op"] = cpu[ext]
            out.append(d)
    return out


def median(v):
    v = sorted(v)
    n = len(v)
    if n % 2:
        return Fraction(v[n // 2])
    return Fraction(v[n // 2 - 1] + v[n // 2], 2)


def hashable(v):
    if isinstance(v, (str, int)):
        return v
    return ("json", json.dumps(v, separators=(",", ":"), default=str))


def table(events, by, value, device):
    """Groups by the key's JSON text: [key, count, values]."""
    t = {}
    for e in events:
        if e.get("ph") == "M" or (device and not is_device(e)):
            continue
        key = []
        for f in by:
            v, ok = get(e, f)
            if not ok:
                break
            key.append(v)
        else:
            h = tuple(hashable(v) for v in key)
            g = t.get(h)
            if g is None:
                g = t[h] = [key, 0, []]
            g[1] += 1
            v, ok = get(e, value)
            if ok and isinstance(v, (int, Num)) and \
                    not isinstance(v, bool):
                g[2].append(Fraction(Decimal(v)) if isinstance(v, Num)
                            else v)
    return {json.dumps(g[0], separators=(",", ":"), ensure_ascii=False,
                       default=str): g for g in t.values()}


def summary(events):
    iv = sorted((e["ts"], e["ts"] + max(e.get("dur", 0) or 0, 0))
                for e in events if is_device(e) and isinstance(e.get("ts"), int))
    if not iv:
        return None, None
    span = max(b for _, b in iv) - iv[0][0]
    busy, s, t = 0, iv[0][0], iv[0][1]
    for a, b in iv[1:]:
        if a <= t:
            t = max(t, b)
        else:
            busy += t - s
            s, t = a, b
    return span, busy + t - s


def close(want, got, what):
    if want is None:
        return got is None
    if got is None:
        return False
    if isinstance(want, Fraction) and want.denominator == 1 and \
            what != "pct":
        return got == int(want)
    if what == "median":
        return float(want) == float(got)
    return abs(float(want) - float(got)) <= 1e-9 * max(1.0, abs(float(want)))


def rows(ta, tb):
    out = []
    for k in sorted(set(ta) | set(tb)):
        ga, gb = ta.get(k), tb.get(k)
        key = (ga or gb)[0]
        r = {"key": key, "k": k}
        r["count_a"] = ga[1] if ga else 0
        r["count_b"] = gb[1] if gb else 0
        r["total_a"] = sum(ga[2], Fraction(0)) if ga else Fraction(0)
        r["total_b"] = sum(gb[2], Fraction(0)) if gb else Fraction(0)
        r["total_delta"] = r["total_b"] - r["total_a"]
        r["total_pct"] = 100 * r["total_delta"] / r["total_a"] \
            if r["total_a"] else None
        r["median_a"] = median(ga[2]) if ga and ga[2] else None
        r["median_b"] = median(gb[2]) if gb and gb[2] else None
        if r["median_a"] is not None and r["median_b"] is not None:
            r["median_delta"] = r["median_b"] - r["median_a"]
            r["median_pct"] = 100 * r["median_delta"] / r["median_a"] \
                if r["median_a"] else None
        else:
            r["median_delta"] = r["median_pct"] = None
        r["only"] = None if ga and gb else ("a" if ga else "b")
        r["new"] = r["only"] == "b"
        r["gone"] = r["only"] == "a"
        out.append(r)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", "--by", default="name")
    ap.add_argument("--value", default="dur")
    ap.add_argument("--device", action="store_true")
    ap.add_argument("--op", action="store_true")
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--check")
    ap.add_argument("--rows", action="store_true")
    ap.add_argument("a")
    ap.add_argument("b")
    o = ap.parse_args()
    by = o.by.split(",")
    runs = []
    for path in (o.a, o.b):
        ev, stream = load(path)
        if not stream:
            to_ns(ev)
        runs.append(ev)
    want = rows(*[table(ops(ev) if o.op else ev, by, o.value, o.device)
                  for ev in runs])
    if o.rows:
        for r in want:
            rec = dict(zip(by, r["key"]))
            rec.update((k, float(v) if isinstance(v, Fraction) and
                        v.denominator != 1 else
                        int(v) if isinstance(v, Fraction) else v)
                       for k, v in r.items() if k not in ("key", "k"))
            print(json.dumps(rec, default=str))
        return
    if o.check is None:
        sys.exit("diff_oracle: --check OUT or --rows")
    with open(o.check) as f:
        lines = [json.loads(l) for l in f if l.strip()]
    if not lines or lines[0].get("name") != "mct_header":
        sys.exit("diff_oracle: no header line first")
    if len(lines) < 2 or lines[1].get("name") != "mct_diff_summary":
        sys.exit("diff_oracle: no summary record second")
    if o.summary:
        for ev, s in zip(runs, "ab"):
            span, busy = summary(ev)
            for k, v in (("span", span), ("busy", busy)):
                if lines[1].get(k + "_" + s) != v:
                    sys.exit("diff_oracle: summary %s_%s: want %s, got %s"
                             % (k, s, v, lines[1].get(k + "_" + s)))
    got = lines[2:]
    if len(got) != len(want):
        sys.exit("diff_oracle: %d rows, want %d" % (len(got), len(want)))
    bykey = {r["k"]: r for r in want}
    prev = None
    for i, g in enumerate(got):
        key = [get(g, f)[0] for f in by]
        k = json.dumps(key, separators=(",", ":"), ensure_ascii=False,
                       default=str)
        if k not in bykey:
            sys.exit("diff_oracle: row %d: key %s is no key of the runs"
                     % (i + 1, k))
        w = bykey.pop(k)
        for c in ("count_a", "count_b", "total_a", "total_b", "total_delta",
                  "total_pct", "median_a", "median_b", "median_delta",
                  "median_pct"):
            kind = "pct" if c.endswith("pct") else \
                "median" if c.startswith("median") else "exact"
            wv = w[c]
            if isinstance(wv, int):
                wv = Fraction(wv)
            if not close(wv, g.get(c), kind):
                sys.exit("diff_oracle: row %s: %s: want %s, got %s"
                         % (k, c, None if wv is None else float(wv),
                            g.get(c)))
        for c in ("only", "new", "gone"):
            if g.get(c) != w[c]:
                sys.exit("diff_oracle: row %s: %s: want %s, got %s"
                         % (k, c, w[c], g.get(c)))
        d = abs(w["total_delta"])
        if prev is not None and (d > prev[0] or (d == prev[0] and
                                 k.encode() < prev[1].encode())):
            sys.exit("diff_oracle: row %d (%s) out of order" % (i + 1, k))
        prev = (d, k)
    print("diff_oracle: %d rows, every figure as wanted" % len(got))


if __name__ == "__main__":
    main()
