#!/usr/bin/env python3
"""mem_oracle.py - what mct-mem should say of a trace, computed independently.

The tests of mct-mem compare its output with this script, never with
output captured from mct.  Python's json module reads the trace (floats
as Decimal, so times are exact), and everything below is worked out again
from mct-mem(1), the slow and obvious way:

  memory events  ph i or I named [memory] with args Bytes, Total Allocated,
                 Total Reserved, Device Type, Device Id (Kineto);
                 the device is cuda:N (type 1), hip:N (6), cpu (0 or id
                 -1), else "type T:N".
  peak           per device the largest Total Allocated, at the earliest
                 ts that has it (ties: the first in the file).
  op             the innermost cpu_op (X) on the event's pid and tid that
                 holds its ts (ts <= t < ts + dur): the latest start, then
                 the shortest; module alike of python_function events
                 named "nn.Module: ..."; step alike of X events named
                 ProfilerStep#N on the event's pid (any thread): the
                 name ProfilerStep# and a digit, then anything, on an
                 event that can be a step (phases_oracle.is_step: not
                 device work nor the GPU's copy, cat gpu_user_annotation).
  ops, modules   allocations (Bytes > 0) and frees (Bytes < 0) grouped
                 by device, step and op (or module); no op is "(no op)".
  left out       an event without a whole Bytes, Device Type or Device
                 Id; without Total Allocated, the device's running sum
                 of Bytes stands for it.
  counters       [ts, "memory DEVICE", allocated] of each event, in time
                 order.

Times are integer ns: Kineto's float us times 1000, exactly.  Prints every
answer the tests ask of the input, in one run: sections "## NAME", each
the TSV rows mct-mem should print (devices in the order of their first
event): summary (-F device,ts,peak,reserved,step,op,module,allocs,bytes,
frees,freed), op and module (--by, its default -F), counters (--counters
-F ts,name,args.allocated), and skipped (the count).

usage: mem_oracle.py FILE
"""
import gzip
import json
import os
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phases_oracle  # noqa: E402


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    d = json.loads(data.decode("utf-8"), parse_float=Decimal)
    return d["traceEvents"] if isinstance(d, dict) else d


def ns(v):
    return int(Decimal(str(v)) * 1000)


def device(t, i):
    if t == 0 or i == -1:
        return "cpu"
    if t == 1:
        return "cuda:%d" % i
    if t == 6:
        return "hip:%d" % i
    return "type %d:%d" % (t, i)


def innermost(spans, t):
    """The name of the innermost span (ts, end, name) holding t, or None."""
    best = None
    for s in spans:
        if s[0] <= t < s[1]:
            if best is None or (s[0], -(s[1] - s[0])) > (best[0], -(best[1] - best[0])):
                best = s
    return None if best is None else best[2]


def main(argv):
    evs = load(argv[1])
    ops, mods, steps, mem = {}, {}, {}, []
    skipped = 0
    for k, e in enumerate(evs):
        name = e.get("name")
        if e.get("ph") == "X" and "ts" in e and "dur" in e:
            ts = ns(e["ts"])
            span = (ts, ts + ns(e["dur"]), name)
            th = (json.dumps(e.get("pid")), json.dumps(e.get("tid")))
            if e.get("cat") == "cpu_op":
                ops.setdefault(th, []).append(span)
            if e.get("cat") == "python_function" and \
                    str(name).startswith("nn.Module: "):
                mods.setdefault(th, []).append(span)
            if phases_oracle.is_step(e):
                steps.setdefault(th[0], []).append(span)
        if name == "[memory]" and e.get("ph") in ("i", "I"):
            a = e.get("args", {})
            if not all(type(a.get(k)) is int
                       for k in ("Bytes", "Device Type", "Device Id")):
                skipped += 1
                continue
            th = (json.dumps(e.get("pid")), json.dumps(e.get("tid")))
            mem.append((ns(e["ts"]), k, th, a))
    mem.sort(key=lambda m: (m[0], m[1]))
    devs, groups = {}, {"op": {}, "module": {}}
    counters, running = [], {}
    for t, k, th, a in mem:
        dev = device(int(a["Device Type"]), int(a["Device Id"]))
        b = int(a["Bytes"])
        running[dev] = running.get(dev, 0) + b
        # an older profiler without Total Allocated: the running sum
        total = int(a["Total Allocated"]) if "Total Allocated" in a \
            else running[dev]
        counters.append([t, "memory " + dev, total])
        op = innermost(ops.get(th, []), t)
        mod = innermost(mods.get(th, []), t)
        step = innermost(steps.get(th[0], []), t)
        d = devs.setdefault(dev, {"allocs": 0, "frees": 0, "allocated": 0,
                                  "freed": 0, "peak": None})
        if b > 0:
            d["allocs"] += 1
            d["allocated"] += b
        elif b < 0:
            d["frees"] += 1
            d["freed"] -= b
        if d["peak"] is None or total > d["peak"]:
            d.update(peak=total, ts=t, op=op or "(no op)", module=mod,
                     step=step, reserved=a.get("Total Reserved"))
        for kind, who in (("op", op), ("module", mod)):
            g = groups[kind].setdefault((dev, step, who), [0, 0, 0, 0])
            if b > 0:
                g[0] += 1
                g[1] += b
            elif b < 0:
                g[2] += 1
                g[3] -= b
    # devices in the order of their first event; a device's rows by bytes
    # (most first), then op or module, then step, a missing one last
    order = list(dict.fromkeys(c[1][len("memory "):] for c in counters))

    def cell(v):
        return "" if v is None else str(v)

    def last(v):
        return (v is None, v or "")

    print("## summary")
    for dev in order:
        d = devs[dev]
        print("\t".join(cell(d[k]) for k in (
            "ts", "peak", "reserved", "step", "op", "module", "allocs",
            "allocated", "frees", "freed")).join((dev + "\t", "")))
    for kind in ("op", "module"):
        print("## " + kind)
        for dev in order:
            rows = [(step, who, g) for (dv, step, who), g in
                    groups[kind].items() if dv == dev]
            rows.sort(key=lambda r: (-r[2][1], last(r[1]), last(r[0])))
            for step, who, g in rows:
                if kind == "op" and who is None:
                    who = "(no op)"
                print("\t".join(cell(v) for v in [dev, step, who] + g))
    print("## counters")
    for t, name, total in counters:
        print("%d\t%s\t%d" % (t, name, total))
    print("## skipped")
    print(skipped)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
