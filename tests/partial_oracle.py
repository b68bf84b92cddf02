#!/usr/bin/env python3
"""partial_oracle.py - an independent python3 json check of mct-group's
partials (mct-group -o partial, --merge; mct(7), Many machines).

  partial_oracle.py state STREAM PARTIAL
      every group line of PARTIAL (grouped by name, value dur) holds the
      state of STREAM's events of that name: count, n, sum, sum of squares,
      min, max, first, last, and its values (as a multiset) or, for a
      sketch, bucket counts adding up to n; the header and end line agree.
  partial_oracle.py within BOUND STREAM... -- TSV
      TSV (mct-group -o tsv -a count,total,min,max,median,p90) of a merge
      is, for every name in the STREAMs together: count, total, min and max
      exactly, median and p90 within BOUND (relative) of the exact ones.
      Prints the worst relative error and how many groups were checked.

Events: every line that is a JSON object, but for the mct header and ph M
events; a value is an integer dur.  Exit 0 if all agree, 1 otherwise (what
differs on stderr).
"""
import json
import sys


def events(paths):
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                e = json.loads(line)
                if not isinstance(e, dict) or e.get("ph") == "M":
                    continue
                yield e


def groups(paths):
    g = {}
    for e in events(paths):
        if "name" not in e:
            continue
        s = g.setdefault(e["name"], {"count": 0, "v": [], "first": None,
                                     "last": None})
        s["count"] += 1
        if isinstance(e.get("dur"), int):
            s["v"].append(e["dur"])
        if isinstance(e.get("ts"), int):
            d = e["dur"] if isinstance(e.get("dur"), int) else 0
            s["first"] = e["ts"] if s["first"] is None else min(s["first"], e["ts"])
            end = e["ts"] + d
            s["last"] = end if s["last"] is None else max(s["last"], end)
    return g


def quantile(v, num, den):
    """Linear between the closest ranks, as lib/stats.c."""
    v = sorted(v)
    pn = num * (len(v) - 1)
    i, rem = divmod(pn, den)
    if i + 1 >= len(v):
        return float(v[-1])
    return (v[i] * den + (v[i + 1] - v[i]) * rem) / den


def state(stream, partial):
    bad = []
    want = groups([stream])
    with open(partial, encoding="utf-8") as f:
        lines = [json.loads(l) for l in f if l.strip()]
    head, body, end = lines[0], lines[1:-1], lines[-1]
    if head.get("mct_partial") != 1 or head.get("by") != ["name"] or \
            head.get("value") != "dur":
        bad.append("header: %r" % head)
    if end.get("mct_partial_end") != len(body):
        bad.append("end line: %r, %d groups" % (end, len(body)))
    seen = set()
    for r in body:
        name = json.loads(r["key"])
        seen.add(name)
        w = want.get(name)
        if w is None:
            bad.append("%r: not in the stream" % name)
            continue
        v = w["v"]
        got = (r["count"], r["n"])
        if got != (w["count"], len(v)):
            bad.append("%r: count, n %r, want %r" % (name, got, (w["count"], len(v))))
        if v:
            exp = (sum(v), sum(x * x for x in v), min(v), max(v))
            got = (r["sum"], r["sumsq"], r["min"], r["max"])
            if got != exp:
                bad.append("%r: sum sumsq min max %r, want %r" % (name, got, exp))
            if "values" in r:
                if sorted(r["values"]) != sorted(v):
                    bad.append("%r: values differ" % name)
            else:
                sk = r["sketch"]
                c = sk["zero"] + sum(sk["pos"][1::2]) + sum(sk["neg"][1::2])
                if c != len(v):
                    bad.append("%r: sketch counts %d, want %d" % (name, c, len(v)))
        if (r.get("first"), r.get("last")) != (w["first"], w["last"]):
            bad.append("%r: first last %r, want %r" % (
                name, (r.get("first"), r.get("last")), (w["first"], w["last"])))
    for name in set(want) - seen:
        bad.append("%r: no group line" % name)
    return bad


def within(bound, streams, tsv):
    bad = []
    want = groups(streams)
    worst = 0.0
    n = 0
    with open(tsv, encoding="utf-8") as f:
        head = f.readline().rstrip("\n").split("\t")
        if head != ["name", "count", "total", "min", "max", "median", "p90"]:
            return ["tsv header: %r" % head]
        for line in f:
            c = line.rstrip("\n").split("\t")
            w = want.pop(c[0], None)
            if w is None:
                bad.append("%r: not in the streams" % c[0])
                continue
            v = w["v"]
            if int(c[1]) != w["count"]:
                bad.append("%r: count %s, want %d" % (c[0], c[1], w["count"]))
            if not v:
                continue
            if (int(c[2]), int(c[3]), int(c[4])) != (sum(v), min(v), max(v)):
                bad.append("%r: total min max %r" % (c[0], c[2:5]))
            for col, (num, den) in ((5, (1, 2)), (6, (9, 10))):
                exact = quantile(v, num, den)
                err = abs(float(c[col]) - exact) / abs(exact) if exact else \
                    abs(float(c[col]))
                worst = max(worst, err)
                if err > bound:
                    bad.append("%r: %s %s, exact %r: %.4f%% off" % (
                        c[0], head[col], c[col], exact, 100 * err))
            n += 1
    for name in want:
        bad.append("%r: no row" % name)
    print("groups %d worst %.6f" % (n, worst))
    return bad


def main(argv):
    if len(argv) == 4 and argv[1] == "state":
        bad = state(argv[2], argv[3])
    elif len(argv) >= 6 and argv[1] == "within" and argv[-2] == "--":
        bad = within(float(argv[2]), argv[3:-2], argv[-1])
    else:
        sys.stderr.write(__doc__)
        return 2
    for b in bad[:20]:
        sys.stderr.write(b + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
