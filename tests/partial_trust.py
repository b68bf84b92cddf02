#!/usr/bin/env python3
"""partial_trust.py - damaged and tampered partials made from intact
ones, and the table the intact part of them makes (python3 json).

  partial_trust.py tamper CASE IN OUT
      OUT is IN (a partial of mct-group or mct-ranks) with one line
      tampered as CASE says; OUT.intact is IN without the lines a reader
      must skip.  Prints the number (from 1) of the tampered line.
  partial_trust.py table PARTIAL...
      the table the group lines of the PARTIALs make when merged, grouped
      by their keys' first part: TSV of name, count, total, min, max, in
      the order of the keys (what mct-group --merge -o tsv -a
      count,total,min,max --sort name prints).
  partial_trust.py ranks PARTIAL...
      the ranks of mct-ranks partials: TSV of rank, span, busy, compute
      (ns), in rank order.

Cases of a group partial (the tampered line is its second group line,
the first with a sketch in the sketch cases):
  short-key      the key of one part fewer than --by
  bad-part       a key part that is not JSON (a forged record)
  two-values     a key part of two JSON values ("a","b")
  count-max      count 2^63-1, of its largest group (kept: a merge with
                 another partial of the key is what overflows)
  count-low      count below n
  n-values       n one more than the values
  first-min      first -2^63
  first-last     last 2^62 ns before first (more than a dur can go back)
  last-max       last 2^63-1 (past the end of any sane ts and dur)
  dup-key        the line again, after it (and counted in the end line)
  sum-huge       a sketch's sum near 2^127 (IN has sketches)
  bucket-huge    a sketch's bucket count 2^62
  min-max        a sketch's min above its max
  origin-min     the header's origin -2^63 (kept: a trace's may be)
  no-ident       the end line without its parts (an older mct's)
  ctrl-source    the end line's sources with an escape character
Cases of a ranks partial (its first rank line):
  busy-span      busy more than end - start
  compute-busy   compute more than busy
  memory-compute memory more than compute
  no-km          no kernel and memory (an older mct's)
  negative       comm below 0
  start-min      start -2^63
  ts-max         a call's ts 2^63-1 (its first call line)
  rank-origin-min  a rank's origin -2^63 (kept: --align start refuses it)
"""
import json
import sys

I64MIN, I64MAX = -2**63, 2**63 - 1


def dumps(o):
    return json.dumps(o, separators=(",", ":"), ensure_ascii=False)


def load(path):
    with open(path, "rb") as f:
        return f.read().split(b"\n")[:-1]


def group_lines(lines):
    return [i for i, x in enumerate(lines)
            if x.startswith(b'{"key":')]


def tamper(case, src, dst):
    lines = load(src)
    groups = group_lines(lines)
    drop = set()
    if case in ("sum-huge", "bucket-huge", "min-max"):
        k = next(i for i in groups if b'"sketch"' in lines[i])
    elif case in ("busy-span", "compute-busy", "negative", "start-min",
                  "memory-compute", "no-km"):
        k = next(i for i, x in enumerate(lines)
                 if x.startswith(b'{"rank":') and b'"call"' not in x)
    elif case == "ts-max":
        k = next(i for i, x in enumerate(lines) if b'"call"' in x)
    elif case == "rank-origin-min":
        k = next(i for i, x in enumerate(lines)
                 if x.startswith(b'{"rank":') and b'"call"' not in x)
    elif case == "count-max":
        k = max(groups, key=lambda i: json.loads(lines[i])["count"])
    elif case in ("origin-min",):
        k = 0
    elif case in ("no-ident", "ctrl-source"):
        k = len(lines) - 1
    else:
        k = groups[1]
    o = json.loads(lines[k])
    if case == "short-key":
        o["key"] = o["key"].split("\x1f")[0]
    elif case == "bad-part":
        o["key"] = o["key"].split("\x1f")[0] + \
            ',"count":1}\n{"name":"FORGED"'
    elif case == "two-values":
        o["key"] = '"a","b"'
    elif case == "count-max":
        o["count"] = I64MAX
    elif case == "count-low":
        o["count"] = o["n"] - 1
    elif case == "n-values":
        o["n"] += 1
    elif case == "first-min":
        o["first"] = I64MIN
    elif case == "first-last":
        o["last"] = o["first"] - 2**62
    elif case == "last-max":
        o["last"] = I64MAX
    elif case == "sum-huge":
        o["sum"] = 2**127 - 5
    elif case == "bucket-huge":
        o["sketch"]["pos"][1] = 2**62
    elif case == "min-max":
        o["min"], o["max"] = o["max"] + 1, o["min"]
        o["fmin"], o["fmax"] = o["fmax"] + 1, o["fmin"]
    elif case == "origin-min":
        o["origin"] = I64MIN
    elif case == "no-ident":
        del o["parts"]
    elif case == "ctrl-source":
        o["parts"][0]["sources"] = ["/x/\x1b[31mred\x1b[0m.json"]
    elif case == "busy-span":
        o["busy"] = o["end"] - o["start"] + 1
    elif case == "compute-busy":
        o["compute"] = o["busy"] + 1
    elif case == "negative":
        o["comm"] = -1
    elif case == "memory-compute":
        o["memory"] = o["compute"] + 1
    elif case == "no-km":
        del o["kernel"], o["memory"]
    elif case == "dup-key":
        pass
    elif case == "start-min":
        o["start"] = I64MIN
    elif case == "ts-max":
        o["ts"] = I64MAX
    elif case == "rank-origin-min":
        o["origin"] = I64MIN
    else:
        sys.exit("partial_trust.py: unknown case %s" % case)
    new = dumps(o).encode()
    out = list(lines)
    out[k] = new
    if case == "dup-key":
        # the line twice, the end line counting both
        out.insert(k + 1, lines[k])
        drop.add(k + 1)
        end = json.loads(out[-1])
        end["mct_partial_end"] += 1
        out[-1] = dumps(end).encode()
    elif case not in ("no-ident", "ctrl-source", "count-max", "origin-min",
                      "rank-origin-min"):
        drop.add(k)
    with open(dst, "wb") as f:
        f.write(b"".join(x + b"\n" for x in out))
    with open(dst + ".intact", "wb") as f:
        f.write(b"".join(x + b"\n" for i, x in enumerate(out)
                         if i not in drop))
    print(k + (case == "dup-key") + 1)


def table(paths):
    t = {}
    for path in paths:
        for x in load(path):
            o = json.loads(x)
            if "key" not in o:
                continue
            name = json.loads(o["key"].split("\x1f")[0])
            g = t.setdefault(name, [0, None, None, None])
            g[0] += o["count"]
            if o["n"] == 0:
                continue
            g[1] = (g[1] or 0) + o["sum"]
            g[2] = o["min"] if g[2] is None else min(g[2], o["min"])
            g[3] = o["max"] if g[3] is None else max(g[3], o["max"])
    print("name\tcount\ttotal\tmin\tmax")
    for name in sorted(t, key=lambda s: s.encode()):
        g = t[name]
        print("\t".join([name] + ["" if v is None else str(v)
                                   for v in g]))


def ranks(paths):
    r = {}
    for path in paths:
        for x in load(path):
            o = json.loads(x)
            if "rank" in o and "call" not in o:
                r[o["rank"]] = (o["end"] - o["start"], o["busy"],
                                o["compute"])
    for k in sorted(r):
        print("%d\t%d\t%d\t%d" % ((k,) + r[k]))


def main(args):
    if len(args) == 4 and args[0] == "tamper":
        tamper(*args[1:])
    elif len(args) >= 2 and args[0] == "table":
        table(args[1:])
    elif len(args) >= 2 and args[0] == "ranks":
        ranks(args[1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
