#!/usr/bin/env python3
"""report_oracle.py - figures of mct-report(1), computed independently with
python3's json (tests/mct-report.bats).

  steps TRACE       Kineto's training steps (X events named ProfilerStep#N
                    off the device lanes, not the GPU's copy of the
                    annotation, cat gpu_user_annotation): their number,
                    the median and
                    the mean of their durations, TAB apart, as the report
                    writes a time (2.59 us, 253.99 ms, 27.94 s)
  gpu TRACE         the GPUs the trace's top-level keys name, as the
                    report's overview writes them: deviceProperties
                    (identical devices counted, most first; one
                    without a name is none), then otherData.device;
                    nothing if none
  copies TRACE      each copy's name and its bandwidth (the sum of
                    args.bytes over the sum of dur), then the (total)
                    row, TAB apart, as the report writes a rate
  units LOG         each counter of a CSV metric log ("name [unit]"
                    columns) and its unit, TAB apart
  facts TRACE...    for each trace a line "@@ TRACE", then its gpu lines
                    as "gpu<TAB>...", its copies lines as "copy<TAB>...",
                    and "top<TAB>NAME": the device event name with the
                    largest total dur (X events of cat kernel, Kernel,
                    gpu_memcpy, gpu_memset, Memcpy, Memset, or of pid 2
                    or 3 where there is no cat); "steps<TAB>..." as
                    steps writes it; one read of each trace
  human NS          NS as the report writes a time
  pairs TRACE       the device work paired with a launch by correlation
                    id (args.co_id, else args.correlation; the launch is
                    the first X event of the id whose cat ends in runtime
                    or driver, any case, or, with no cat, on pid 1), as
                    sections 5, 8 and 9 count it: only device work
                    (on_device_lane: no cuda_sync).  Lines, TAB apart:
                    "pairs", their number and device time; "launch", a
                    launching API's name, its pairs, the host time of
                    its launches summed (one a pair) and the device time;
                    "nolaunch", the number of device events with no
                    launch, their time and their share of all device
                    time (%.2f), when there are any; times as the report
                    writes them.  "flow" alone where the trace has
                    device work, flows and no X event with an id (the
                    flow mode of mct-flow(1), not computed here)
  nolaunch TRACE    the device work with no launch, counted apart from
                    any pair: "nolaunch", the number of device events
                    (on_device_lane) that no launch is tied to, their
                    time and share as pairs writes them, when there are
                    any; "mode" and key or flow before it.  Key mode as
                    pairs; flow mode (no X event with an id, s/f ends): a
                    flow is its cat and id; an end binds to the X slice
                    of its lane (pid, tid) that encloses its ts, the
                    latest start, then the shortest, then the first in
                    the input; an f end enclosed by none, without
                    "bp":"e", to the first slice that starts after it; a
                    device slice has a launch when an f end of a flow
                    whose first s end is bound binds to it (however many
                    do)
  ph TRACE          the report's overview: the number of events, then
                    the counts of ph X, s, f and M, those the trace has,
                    in that order, then the count of all others where
                    there are any ("other"), TAB apart, sep'd by 1,000s
  kineto DURS       write a small Kineto-shaped trace: training steps
                    (ProfilerStep#N) of these durations (us, comma-
                    separated) one after the other, two kernels launched
                    in each, a copy of 1 MB in the first

Times are integer ns as in the stream (oracle.py reads the trace).
"""
import csv
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import die, read_all, trace  # noqa: E402
from phases_oracle import on_device_lane  # noqa: E402
from stack_oracle import corr, is_host  # noqa: E402


def human(ns):
    """A time as mct's tables write one: us, ms or s by its size."""
    a = abs(ns)
    if a < 1e6:
        return "%.2f us" % (ns / 1e3)
    if a < 1e9:
        return "%.2f ms" % (ns / 1e6)
    return "%.2f s" % (ns / 1e9)


def size(b):
    """Bytes in B, KB, MB, GB, TB (powers of 1000), 3 digits or more."""
    units = ["B", "KB", "MB", "GB", "TB"]
    k = 0
    while abs(b) >= 1000 and k < 4:
        b /= 1000
        k += 1
    return ("%.3f %s" if abs(b) < 10 else "%.2f %s") % (b, units[k])


def nbytes(b):
    """A whole number of bytes as mct's tables write one (mct-group(1)):
    below 100,000 exact, 12,544 B; else as size()."""
    return "{:,} B".format(b) if -100000 < b < 100000 else size(b)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def cmd_steps(args):
    _, events = read_all([args[0]], "auto")
    d = [e.get("dur") if is_int(e.get("dur")) else 0 for e in events
         if e.get("ph") == "X" and is_int(e.get("ts")) and
         isinstance(e.get("name"), str) and
         re.match(r"ProfilerStep#[0-9]", e["name"]) is not None and
         not on_device_lane(e) and e.get("cat") != "gpu_user_annotation"]
    print("%d\t%s\t%s" % (len(d), human(statistics.median(d)) if d else "-",
                          human(statistics.mean(d)) if d else "-"))


def cmd_gpu(args):
    top = dict(trace(args[0]).top)
    props = top.get("deviceProperties")
    if isinstance(props, list):
        n, order = {}, []
        for p in props:
            if not isinstance(p, dict) or not isinstance(p.get("name"), str) \
                    or p["name"] == "":
                continue
            k = (p["name"], p.get("numSms"), p.get("totalGlobalMem"))
            if k not in n:
                order.append(k)
            n[k] = n.get(k, 0) + 1
        out = []
        for k in sorted(order, key=lambda k: (-n[k], k[0].encode())):
            name, sms, mem = k
            d = ("%d x " % n[k] if n[k] > 1 else "") + name
            if sms is not None:
                cu = re.search(r"AMD|Radeon|Instinct", name)
                d += ", %s %s" % (sms, "CUs" if cu else "SMs")
            if mem is not None:
                d += ", " + size(mem)
            out.append(d)
        if out:
            print("; ".join(out) + " (deviceProperties)")
    other = top.get("otherData")
    dev = other.get("device") if isinstance(other, dict) else None
    if isinstance(dev, dict) and isinstance(dev.get("name"), str):
        c = dev.get("count")
        print(("%d x " % c if is_int(c) and c > 1 else "") + dev["name"] +
              " (otherData.device)")


COPY = re.compile(r"^([Mm]emcpy|memcpy)")


def cmd_copies(args):
    _, events = read_all([args[0]], "auto")
    rows = {}
    for e in events:
        if e.get("ph") != "X" or not on_device_lane(e):
            continue
        if e.get("cat") not in ("gpu_memcpy", "Memcpy") and not (
                isinstance(e.get("name"), str) and COPY.match(e["name"])):
            continue
        r = rows.setdefault(e["name"], [0, 0])
        r[0] += e.get("dur") if is_int(e.get("dur")) else 0
        b = (e.get("args") or {}).get("bytes")
        r[1] += b if is_int(b) else 0
    rows["(total)"] = [sum(r[0] for r in rows.values()),
                       sum(r[1] for r in rows.values())]
    for name, (dur, b) in rows.items():
        print("%s\t%s" % (name, size(b / dur * 1e9) + "/s"
                          if dur > 0 and b > 0 else "-"))


DEVICE_CATS = {"kernel", "Kernel", "gpu_memcpy", "gpu_memset", "Memcpy",
               "Memset"}


def cmd_top(args):
    tot = {}
    for e in trace(args[0]).events:
        if e.get("ph") != "X":
            continue
        c = e.get("cat")
        if c in DEVICE_CATS if c is not None else str(e.get("pid")) in ("2", "3"):
            tot[e.get("name")] = (tot.get(e.get("name"), 0) +
                                  float(e.get("dur", 0) or 0))
    if tot:
        print(max(sorted(tot), key=lambda k: tot[k]))


def cmd_facts(args):
    import contextlib
    import io
    for path in args:
        print("@@ " + path)
        for tag, cmd in (("gpu", cmd_gpu), ("copy", cmd_copies),
                         ("top", cmd_top), ("steps", cmd_steps)):
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                cmd([path])
            for line in buf.getvalue().splitlines():
                print(tag + "\t" + line)


def cmd_pairs(args):
    _, events = read_all([args[0]], "auto")
    xs = [e for e in events if e.get("ph") == "X" and is_int(e.get("ts"))]
    dev = [e for e in xs if on_device_lane(e)]
    if dev and all(corr(e) is None for e in xs) and any(
            e.get("ph") in ("s", "f") for e in events):
        print("flow")
        return
    launch = {}
    for e in xs:
        k = corr(e)
        if k is not None and is_host(e) and k not in launch:
            launch[k] = e

    def dur(e):
        return e.get("dur") if is_int(e.get("dur")) else 0
    rows, n, tot, nn, nt = {}, 0, 0, 0, 0
    for e in dev:
        k = corr(e)
        h = launch.get(k) if k is not None else None
        if h is None or h is e:
            nn += 1
            nt += dur(e)
            continue
        n += 1
        tot += dur(e)
        r = rows.setdefault(h.get("name"), [0, 0, 0])
        r[0] += 1
        r[1] += dur(h)
        r[2] += dur(e)
    print("pairs\t%s\t%s" % (f"{n:,}", human(tot)))
    for name, (c, hs, dt) in sorted(rows.items()):
        print("launch\t%s\t%s\t%s\t%s" % (name, f"{c:,}", human(hs),
                                            human(dt)))
    if nn:
        all_t = tot + nt
        print("nolaunch\t%s\t%s\t%s" % (
            f"{nn:,}", human(nt),
            "%.2f%%" % (100 * nt / all_t) if all_t > 0 else "-"))


def cmd_nolaunch(args):
    _, events = read_all([args[0]], "auto")
    xs = [e for e in events if e.get("ph") == "X" and is_int(e.get("ts"))]
    dev = [e for e in xs if on_device_lane(e)]

    def dur(e):
        return e.get("dur") if is_int(e.get("dur")) else 0
    launched = set()        # id() of the device events with a launch
    ends = [e for e in events if e.get("ph") in ("s", "f") and "id" in e
            and is_int(e.get("ts"))]
    if any(corr(e) is not None for e in xs) or not ends:
        print("mode\tkey")
        launch = {}
        for e in xs:
            k = corr(e)
            if k is not None and is_host(e) and k not in launch:
                launch[k] = e
        for e in dev:
            h = launch.get(corr(e)) if corr(e) is not None else None
            if h is not None and h is not e:
                launched.add(id(e))
    else:
        print("mode\tflow")
        lanes = {}
        for i, e in enumerate(xs):
            lanes.setdefault((str(e.get("pid")), str(e.get("tid"))),
                             []).append((i, e))

        def bind(f):
            sl = lanes.get((str(f.get("pid")), str(f.get("tid"))), [])
            inside = [(-e["ts"], dur(e), i, e) for i, e in sl
                      if e["ts"] <= f["ts"] <= e["ts"] + dur(e)]
            if inside:
                return min(inside, key=lambda t: t[:3])[3]
            if f["ph"] == "f" and f.get("bp") != "e":
                after = [(e["ts"], i, e) for i, e in sl if e["ts"] > f["ts"]]
                if after:
                    return min(after, key=lambda t: t[:2])[2]
            return None
        flows = {}
        for e in ends:
            flows.setdefault((str(e.get("cat")), json.dumps(e["id"])),
                             []).append(e)
        for es in flows.values():
            ss = [e for e in es if e["ph"] == "s"]
            if not ss or bind(ss[0]) is None:
                continue
            for f in es:
                d = bind(f) if f["ph"] == "f" else None
                if d is not None:
                    launched.add(id(d))
    nn = sum(1 for e in dev if id(e) not in launched)
    nt = sum(dur(e) for e in dev if id(e) not in launched)
    all_t = sum(dur(e) for e in dev)
    if nn:
        print("nolaunch\t%s\t%s\t%s" % (
            f"{nn:,}", human(nt),
            "%.2f%%" % (100 * nt / all_t) if all_t > 0 else "-"))


def cmd_ph(args):
    _, events = read_all([args[0]], "auto")
    c = {}
    for e in events:
        c[e.get("ph")] = c.get(e.get("ph"), 0) + 1
    out = ["%s" % f"{len(events):,}"]
    rest = len(events)
    for p in ("X", "s", "f", "M"):
        if p in c:
            out.append("%s %s" % (p, f"{c[p]:,}"))
            rest -= c[p]
    if rest:
        out.append("other " + f"{rest:,}")
    print("\t".join(out))


def cmd_units(args):
    with open(args[0], newline="") as f:
        head = next(csv.reader(f, skipinitialspace=True))
    for col in head:
        m = re.match(r"^(.*?) \[(.*)\]$", col.strip())
        if m:
            print("%s\t%s" % (m.group(1), m.group(2)))


def cmd_kineto(args):
    host, dev = {"pid": 100, "tid": 100}, {"pid": 0, "tid": 7}
    rows = []       # lane, cat, name, ts, dur, args
    t, corr = 1000, 1
    for k, d in enumerate(int(v) for v in args[0].split(",")):
        rows.append((host, "user_annotation", "ProfilerStep#%d" % k, t, d,
                     None))
        work = [("kernel", "kernel_a", t + 5, d // 4),
                ("kernel", "kernel_b", t + d // 2, d // 4)]
        if k == 0:
            work.append(("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)",
                         t + 2, 2))
        for cat, name, ts, dur in work:
            rows.append((host, "cuda_runtime", "cudaLaunchKernel", ts - 2, 1,
                         {"correlation": corr}))
            a = {"correlation": corr}
            a.update({"bytes": 1000000} if cat == "gpu_memcpy" else
                     {"grid": [8, 1, 1], "block": [128, 1, 1]})
            rows.append((dev, cat, name, ts, dur, a))
            corr += 1
        t += d
    ev = [{"ph": "M", "name": "process_name", "pid": 0, "ts": 0,
           "args": {"name": "GPU 0"}}]
    for lane, cat, name, ts, dur, a in sorted(rows, key=lambda r: r[3]):
        e = dict(ph="X", cat=cat, name=name, ts=ts, dur=dur, **lane)
        if a:
            e["args"] = a
        ev.append(e)
    json.dump({"schemaVersion": 1, "traceEvents": ev}, sys.stdout)
    print()


def main():
    cmds = {"steps": cmd_steps, "gpu": cmd_gpu, "copies": cmd_copies,
            "units": cmd_units, "kineto": cmd_kineto, "facts": cmd_facts,
            "pairs": cmd_pairs, "nolaunch": cmd_nolaunch, "ph": cmd_ph,
            "human": lambda a: print(human(int(a[0])))}
    if len(sys.argv) < 3 or sys.argv[1] not in cmds:
        die(__doc__)
    cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
