#!/usr/bin/env python3
"""producers_tools_oracle.py - python3 json's answers for traces of every producer
(Kineto on CUDA and ROCm, MTIA, mcTracer, Chrome), for tests/producers-tools.bats.

It reads traces with oracle.py's reader (python's json module; ts/dur exact
integer ns) and decides, on its own, what mct(7) says:

  device FILE                 "COUNT TOTAL": the device events (the device
                              lanes of mct(7)) and the sum of their dur in ns
  launchcfg REPORT FILE       the report's launch-configuration table holds,
                              for each row, the count and the maxima of the
                              launch figures (mcTracer's and Kineto's keys)
  timeline TSV FILE           the timeline's legend (column 4 of plots.sh's
                              data, index in column 3) names exactly the
                              eight kernels with the most device time; its
                              labels (column 5) are those names cut to 40
                              characters (the pieces between ellipses are
                              pieces of the name, in order), no two alike
  nearest FIELD FILE          the path nearest FIELD by edit distance among
                              the non-M events' paths three levels deep
                              (a key with a dot quoted), then the virtual
                              fields (first seen wins a tie), or nothing if
                              farther than max(2, len(FIELD) // 3)
  kineto STEPS                write a small Kineto-shaped training trace:
                              two runs of kernels with one copy and a
                              switch of a few us between them, an idle gap
                              of the device with a data-loader op in it,
                              under host frames (threading _bootstrap and a
                              step annotation, named ProfilerStep#N if STEPS
                              is 1, "step N" if 0)
  mtia N                      write a small MTIA-shaped trace: N launches
                              (cat mtia_runtime) each with a device event
                              (cat mtia_ccp_events) sharing args.correlation

Exit status 0 when the check holds, 1 with the first difference on stderr.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402

DEVCATS = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset",
           "mtia_ccp_events"}


def is_host_cat(cat):
    c = cat.lower()
    return c.endswith("runtime") or c.endswith("driver")


def is_device(e):
    if e.get("ph") != "X":
        return False
    if "cat" not in e:
        return str(e.get("pid")) in ("2", "3")
    cat = e["cat"]
    if not isinstance(cat, str):
        return False
    if cat.lower() in DEVCATS:
        return True
    if is_host_cat(cat) or cat.lower() == "cuda_sync":
        return False
    a = e.get("args")
    return isinstance(a, dict) and ("correlation" in a or "co_id" in a)


def events(path):
    return oracle.read_all([path], None)[1]


def device_events(path):
    return [e for e in events(path) if is_device(e)]


def cmd_device(args):
    dev = device_events(args[0])
    print(len(dev), sum(int(e.get("dur", 0)) for e in dev))


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def md_table(path, after):
    """The rows of the first Markdown table after the line starting after."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = next(k for k, l in enumerate(lines) if l.startswith(after))
    while not lines[i].startswith("|"):
        i += 1
    head = cells(lines[i])
    rows = []
    i += 2
    while i < len(lines) and lines[i].startswith("|"):
        rows.append(cells(lines[i]))
        i += 1
    return head, rows


def num(cell):
    return float(cell.replace(",", ""))


def cmd_launchcfg(args):
    head, rows = md_table(args[0], "By launch configuration")
    dev = [e for e in device_events(args[1])
           if isinstance(e.get("args"), dict) and "grid" in e["args"]]
    keys = [h[len("max:args."):] for h in head if h.startswith("max:args.")]
    want = ["max:args." + k for k in ("registers_per_thread",
            "dynamic_shared", '"registers per thread"', '"shared memory"',
            '"blocks per SM"', '"est. achieved occupancy %"')
            if any(k.strip('"') in e["args"] for e in dev)]
    if [h for h in head if h.startswith("max:")] != want:
        oracle.die("columns %s, want %s" % (head, want))
    groups = {}
    for e in dev:
        k = (e["name"], oracle.ser(e["args"]["grid"]),
             oracle.ser(e["args"].get("block")) if "block" in e["args"] else "")
        groups.setdefault(k, []).append(e)
    def mismatch(r, g):
        """What differs between a row and a group's events, or None."""
        if int(num(r[3])) != len(g):
            return "count %s, want %d" % (r[3], len(g))
        for j, k in enumerate(keys):
            vals = [e["args"][k.strip('"')] for e in g
                    if k.strip('"') in e["args"]]
            cell = r[len(r) - len(keys) + j]
            m = float(max(vals))
            if abs(num(cell) - m) > 0.005 + 1e-9 * abs(m):
                return "%s is %s, want %s" % (k, cell, m)
        return None

    n, used = 0, set()
    for r in rows:
        if r[0] in ("(others)", "(total)"):
            continue
        cand = [(r[0], r[1], r[2])] if (r[0], r[1], r[2]) in groups else []
        if not cand and "\u2026" in r[0]:
            # a name over the table's width (60) is cut: one of the groups
            # it is a cut of (not matched before) has the row's figures
            cand = [k for k in groups if k[1:] == (r[1], r[2]) and
                    cut_of(r[0], k[0], 60) and k not in used]
        if not cand:
            oracle.die("no group %s" % r[:3])
        why = [mismatch(r, groups[k]) for k in cand]
        if None not in why:
            oracle.die("%s: %s" % (r[:3], why[0]))
        used.add(cand[why.index(None)])
        n += 1
    if n == 0:
        oracle.die("no rows")


def cut_of(label, name, width):
    """Is label name, or name cut to width characters with ellipses?"""
    if len(name) <= width:
        return label == name
    if len(label) > width or "\u2026" not in label:
        return False
    at = 0
    for i, piece in enumerate(label.split("\u2026")):
        j = name.find(piece, at) if i else (0 if name.startswith(piece) else -1)
        if j < 0:
            return False
        at = j + len(piece)
    return True


def cmd_timeline(args):
    got = {}
    label = {}
    for line in open(args[0], encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        if f[2] != "0":
            got[int(f[2])] = f[3]
            label[int(f[2])] = f[4]
    for i, name in got.items():
        if not cut_of(label[i], name, 40):
            oracle.die("label %r is no cut of %r" % (label[i], name))
    if len(set(label.values())) != len(label):
        oracle.die("two labels alike: %s" % sorted(label.values()))
    tot = {}
    for e in device_events(args[1]):
        tot[e.get("name")] = tot.get(e.get("name"), 0) + int(e.get("dur", 0))
    top = sorted(tot, key=lambda k: (-tot[k], k))[:8]
    if sorted(got.values()) != sorted(top):
        oracle.die("legend %s, want %s" % (sorted(got.values()), sorted(top)))
    if sorted(got) != list(range(1, len(top) + 1)):
        oracle.die("indices %s" % sorted(got))


def seg(k):
    ok = k and all(c == "_" or c.isascii() and c.isalnum() for c in k)
    return k if ok else '"' + k + '"'


def lev(a, b):
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        prev, row[0] = row[0], i
        for j in range(1, len(b) + 1):
            cur = row[j]
            row[j] = min(prev + (a[i - 1] != b[j - 1]), row[j] + 1,
                         row[j - 1] + 1)
            prev = cur
    return row[len(b)]


def paths_of(obj, prefix, depth):
    """An object's paths, as seen.c notes them: each key, then (depth
    first) its object's paths, to depth levels in all."""
    for k, v in obj.items():
        p = prefix + "." + seg(k) if prefix else seg(k)
        yield p
        if depth > 1 and isinstance(v, dict):
            yield from paths_of(v, p, depth - 1)


VIRTUAL = ["rel", "end", "category", "rank", "short"]


def cmd_nearest(args):
    field, paths = args[0], []
    seen = set()
    for e in events(args[1]):
        if e.get("ph") == "M":
            continue
        for p in paths_of(e, "", 3):
            if p not in seen:
                seen.add(p)
                paths.append(p)
    paths += VIRTUAL
    best = min(paths, key=lambda p: lev(field, p), default=None)
    if best is not None and lev(field, best) <= max(2, len(field) // 3):
        print(best)


def cmd_kineto(args):
    steps = args[0] == "1"
    t0 = 1000
    ev = [{"ph": "M", "name": "process_name", "pid": 0, "ts": 0,
           "args": {"name": "GPU 0"}}]
    host = {"pid": 100, "tid": 100}
    dev = {"pid": 0, "tid": 7}
    corr = [1]

    def x(lane, cat, name, ts, dur, **args):
        e = {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur}
        e.update(lane)
        if args:
            e["args"] = args
        ev.append(e)

    def kernel(name, ts, dur):
        c = corr[0]
        corr[0] += 1
        x(host, "cpu_op", "aten::mm", ts - 60, 30)
        x(host, "cuda_runtime", "cudaLaunchKernel", ts - 50, 10,
          correlation=c)
        x(dev, "kernel", name, ts, dur, correlation=c, grid=[8, 1, 1],
          block=[128, 1, 1])

    x(host, "python_function", "threading.py(1000): _bootstrap", t0 - 500,
      67000)
    starts = [t0 + k * 1000 - 100 for k in range(40)] + [t0 + 39900]
    ends = starts[1:] + [t0 + 59900]
    for k, (a, b) in enumerate(zip(starts, ends)):
        x(host, "user_annotation",
          ("ProfilerStep#%d" if steps else "step %d") % (k + 7), a, b - a)
    for i in range(20):
        kernel("kernel_a", t0 + i * 1000, 500)
    x(dev, "gpu_memcpy", "Memcpy DtoD (Device -> Device)", t0 + 19501, 3,
      correlation=999)
    for i in range(20):
        kernel("kernel_b", t0 + 19506 + i * 1000, 500)
    x(host, "cpu_op",
      "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__",
      t0 + 40000, 18000)
    x(host, "cpu_op", "aten::copy_", t0 + 58500, 300)
    for i in range(5):
        kernel("kernel_c", t0 + 60000 + i * 1000, 500)
    ev.sort(key=lambda e: e["ts"])
    json.dump({"traceEvents": ev, "displayTimeUnit": "ms"}, sys.stdout)
    print()


def cmd_mtia(args):
    n = int(args[0])
    ev = [{"ph": "M", "name": "process_name", "pid": 7, "ts": 0,
           "args": {"name": "MTIA"}}]
    t = 1000000
    for i in range(n):
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm",
                   "pid": 1234, "tid": 1234, "ts": t, "dur": 40 + i % 7})
        ev.append({"ph": "X", "cat": "mtia_runtime", "name": "launchKernel",
                   "pid": 1234, "tid": 1234, "ts": t + 5, "dur": 9,
                   "args": {"correlation": 100 + i}})
        ev.append({"ph": "X", "cat": "mtia_ccp_events",
                   "name": "mm_kernel_%d" % (i % 11), "pid": 7, "tid": 1,
                   "ts": t + 30, "dur": 100 + (i * 37) % 90,
                   "args": {"correlation": 100 + i, "grid": [i % 3 + 1, 1, 1],
                            "block": [64, 1, 1]}})
        t += 400 + (i % 5) * 10
    json.dump({"traceEvents": ev, "displayTimeUnit": "ms"}, sys.stdout)
    print()


def main():
    cmds = {"device": cmd_device, "launchcfg": cmd_launchcfg,
            "timeline": cmd_timeline, "mtia": cmd_mtia, "kineto": cmd_kineto,
            "nearest": cmd_nearest}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        oracle.die("usage: producers_tools_oracle.py %s ..." % "|".join(cmds))
    cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
