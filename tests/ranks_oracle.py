#!/usr/bin/env python3
"""ranks_oracle.py - an independent computation of mct-ranks(1), for the tests.

Reads mct streams (mct-cat's output: a header line, then one event a line,
ts and dur integer ns) with python3's json module and nothing of mct.  An
event's rank is its key "rank"; without one, the place of its stream among
the operands (several operands) or 0.  The device events are the X events
of the device lanes (as phases_oracle.py says); communication is a device
event whose name matches the default rules' communication pattern (the
tests' traces have no name an earlier rule takes); memory, one that is not
and is a copy or memset (cat gpu_memcpy, gpu_memset, memcpy or memset in
any case, or no cat and pid 3); kernel, one that is neither.  The steady rounds are
those of phases_oracle.find_phases on each rank's device events.

Usage:
  ranks_oracle.py ranks [--threshold P] STREAM...
        what `mct-ranks -o tsv --no-header` writes: one line a rank, rank
        order: rank, the nine figures, their medians, the deviations,
        straggler (true/false), then kernel and memory, their medians and
        deviations, TAB apart.
  ranks_oracle.py collectives STREAM...
        what `mct-ranks --collectives -o tsv --no-header` writes: one line
        a collective (name, n, start, dur, ranks, skew, spread, first,
        last; start from the first stream's header origin), a blank line,
        then one line a rank: rank, times last, wait caused.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phases_oracle  # noqa: E402

COMM = re.compile(r"([Nn]ccl|[Rr]ccl|AllReduce|AllGather|ReduceScatter|"
                  r"AllToAll|Broadcast)")
KEYS = ["name", "args.grid", "args.block"]
MEMCATS = ("gpu_memcpy", "gpu_memset", "memcpy", "memset")


def is_memory(e):
    if "cat" not in e:
        return str(e.get("pid")) == "3"
    return isinstance(e["cat"], str) and e["cat"].lower() in MEMCATS


class Rank:
    def __init__(self):
        self.dev = []       # (ts, dur, signature, name, comm, memory)
        self.steps = []     # Kineto's ProfilerStep#N: (ts, end)

    # what find_phases reads of a trace
    def span(self):
        return self.dev[-1][0] - self.dev[0][0] if self.dev else 0


def read(paths):
    ranks = {}
    origin = None
    for i, path in enumerate(paths):
        first = True
        for e in phases_oracle.read_lines(path):
            if first and e.get("name") == "mct_header" and e.get("ph") == "M":
                if origin is None:
                    origin = e["args"].get("origin")
                first = False
                continue
            first = False
            if e.get("ph") != "X" or not isinstance(e.get("ts"), int):
                continue
            dur = e.get("dur")
            if not isinstance(dur, int) or dur < 0:
                dur = 0
            r = e.get("rank", i if len(paths) > 1 else 0)
            if not phases_oracle.on_device_lane(e):
                # the rounds, as mct-phases takes them
                if phases_oracle.is_step(e):
                    ranks.setdefault(r, Rank()).steps.append(
                        (e["ts"], e["ts"] + dur))
                continue
            name = phases_oracle.text_of(e.get("name", ""))
            sig = " ".join(phases_oracle.text_of(v) for v in
                           (phases_oracle.get_path(e, k) for k in KEYS)
                           if v is not None)
            comm = isinstance(e.get("name"), str) and \
                COMM.search(e["name"]) is not None
            mem = not comm and is_memory(e)
            ranks.setdefault(r, Rank()).dev.append((e["ts"], dur, sig, name,
                                                    comm, mem))
    for r in ranks.values():
        r.dev.sort(key=lambda d: d[0])      # stable: input order in ties
    return ranks, origin


def union(ivs):
    total, cur = 0, None
    for s, e in sorted(ivs):
        if cur is not None and s <= cur[1]:
            cur[1] = max(cur[1], e)
            continue
        if cur is not None:
            total += cur[1] - cur[0]
        cur = [s, e]
    if cur is not None:
        total += cur[1] - cur[0]
    return total


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) // 2


def fmt(x):
    if x is None:
        return ""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, float):
        if x == int(x) and abs(x) < 1e15:
            return str(int(x))
        return repr(x)
    return str(x)


NAMES = ["span", "busy", "busy_pct", "compute", "comm", "exposed", "idle",
         "rounds", "round"]
LATER = ["kernel", "memory"]    # after straggler in tsv


def figures(r):
    dev = r.dev
    start = dev[0][0]
    end = max(d[0] + d[1] for d in dev)
    busy = union((d[0], d[0] + d[1]) for d in dev)
    compute = union((d[0], d[0] + d[1]) for d in dev if not d[4])
    comm = union((d[0], d[0] + d[1]) for d in dev if d[4])
    memory = union((d[0], d[0] + d[1]) for d in dev if d[5])
    kernel = union((d[0], d[0] + d[1]) for d in dev if not d[4] and not d[5])
    span = end - start
    r.origin = start
    r.tend = end
    r.dev = [d[:4] for d in dev]
    rounds, times = 0, []
    for p in phases_oracle.find_phases(r):
        if p["kind"] == "steady" and p["rounds"] > 0:
            rounds += p["rounds"]
            # a profiler step's own time; a round found by its signature
            # has only its phase's span over its rounds
            times += p.get("steps") or \
                [(p["end"] - p["start"]) // p["rounds"]] * p["rounds"]
    pct = 100.0 * float(busy) / float(span) if span > 0 else 0.0
    return {"span": span, "busy": busy, "busy_pct": pct, "compute": compute,
            "comm": comm, "exposed": busy - compute, "idle": span - busy,
            "rounds": rounds, "round": median(times) if times else None,
            "kernel": kernel, "memory": memory}


def cmd_ranks(args):
    thr = 5.0
    if args[:1] == ["--threshold"]:
        thr = float(args[1])
        args = args[2:]
    ranks, _ = read(args)
    ids = sorted(ranks)
    f = {r: figures(ranks[r]) for r in ids}
    med = {}
    for k in NAMES + LATER:
        vals = [f[r][k] for r in ids if f[r][k] is not None]
        if not vals:
            med[k] = None
        elif k == "busy_pct":
            vals.sort()
            n = len(vals)
            med[k] = vals[n // 2] if n % 2 else \
                (vals[n // 2 - 1] + vals[n // 2]) / 2
        else:
            med[k] = median(vals)
    for r in ids:
        dev = {}
        for k in NAMES + LATER:
            v, m = f[r][k], med[k]
            if v is None or m is None or m == 0:
                dev[k] = None
            else:
                dev[k] = 100.0 * (float(v) - float(m)) / float(m)
        strag = float(f[r]["compute"]) > float(med["compute"]) * \
            (1 + thr / 100)
        row = [r]
        for names in (NAMES, LATER):
            row += [f[r][k] for k in names] + [med[k] for k in names] + \
                [dev[k] for k in names]
            if names is NAMES:
                row.append(strag)
        print("\t".join(fmt(x) for x in row))


def cmd_collectives(args):
    ranks, origin = read(args)
    ids = sorted(ranks)
    names = []
    for r in ids:
        for d in ranks[r].dev:
            if d[4] and d[3] not in names:
                names.append(d[3])
    colls = []
    for name in names:
        calls = {r: [d for d in ranks[r].dev if d[4] and d[3] == name]
                 for r in ids}
        for k in range(min(len(c) for c in calls.values())):
            at = [(calls[r][k][0], r) for r in ids]
            first = min(at)[1]
            lastts = max(a[0] for a in at)
            last = min(r for ts, r in at if ts == lastts)
            durs = [calls[r][k][1] for r in ids]
            end = max(calls[r][k][0] + calls[r][k][1] for r in ids)
            ts = min(a[0] for a in at)
            colls.append((ts, name, k + 1, end - ts, len(ids), lastts - ts,
                          max(durs) - min(durs), first, last))
    colls.sort(key=lambda c: (c[0], c[1].encode(), c[2]))
    times_last = {r: 0 for r in ids}
    wait = {r: 0 for r in ids}
    for c in colls:
        times_last[c[8]] += 1
        wait[c[8]] += c[5]
        print("\t".join(fmt(x) for x in
                        (c[1], c[2], c[0] - (origin or 0)) + c[3:]))
    print()
    for r in ids:
        print("%s\t%d\t%d" % (r, times_last[r], wait[r]))


def cmd_tag(args):
    out = sys.stdout
    for i, path in enumerate(args):
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            for n, line in enumerate(f):
                line = line.rstrip("\n")
                if n == 0 and '"mct_header"' in line:
                    if i == 0:
                        out.write(line + "\n")
                    continue
                e = json.loads(line)
                e["rank"] = i
                out.write(json.dumps(e, separators=(",", ":"),
                                     ensure_ascii=False) + "\n")


def main():
    cmds = {"ranks": cmd_ranks, "collectives": cmd_collectives,
            "tag": cmd_tag}
    if len(sys.argv) < 3 or sys.argv[1] not in cmds:
        sys.stderr.write(__doc__)
        sys.exit(2)
    cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
