#!/usr/bin/env python3
"""phases_oracle.py - an independent computation of mct-phases(1), for the tests.

Reads an mct stream (mct-cat's output: a header line, then one event a line,
ts and dur integer ns) with python3's json module and nothing of mct.  The
device events are the X events of the device lanes of mct(7): cat kernel,
gpu_memcpy, gpu_memset, memcpy, memset or mtia_ccp_events in any case,
another cat (not a runtime or driver one, not cuda_sync) with a
correlation id, or, without a cat, pid 2 or 3 (mcTracer); --device-name RE narrows them to those whose name matches RE
(python re.search; the tests pass mct-phases --device 'name~RE').  The host
events are the X events of the other lanes, also when --device-name narrows
the device side.  Times printed are ns; start/end are relative to the
header's origin.

Subcommands (STREAM "-" or none is stdin):

  phases [OPTIONS] [STREAM]   the six steps of the method in mct-phases(1),
                              written again from its description: one line a
                              phase, in time order:
                              KIND START END ROUNDS EVENTS BUSY ANCHORS
                              ANCHORS = key=calls:mean;... sorted by key
                              (- when none); fields TAB apart.  Step 4
                              takes the one-off calls by the name field of
                              the anchors' calls, not by a part of the
                              signature text (a name may hold spaces).
  gaps [OPTIONS] [STREAM]     the idle gaps of the device: one line a gap:
                              gap START END HOST, HOST = name=time;... the
                              three host names with the most time in it,
                              each moment going to the innermost host event
                              of its lane (pid, tid; an event's time less its
                              children's, a child cut to its parent's end;
                              Kineto's cat Trace span left out), most first,
                              ties by name, - when none.
  nogap [OPTIONS] [STREAM]    where no gap is longer than --gap (automatic:
                              1% of the device span, at least 1 ms) and the
                              device has events: 'no idle gap longer than T',
                              T as mct-phases writes a duration; else nothing.
  fmt [FILE]                  mct-phases -o ndjson (or -o trace) output in
                              the two formats above (the same line shapes), so
                              the tests compare them with diff.
  windows STREAM [FILE]       for each record of mct-phases' ndjson output in
                              FILE (ts, dur absolute ns): the device events
                              starting in [ts, ts+dur) and the busy time, the
                              union of the device intervals clipped to it:
                              EVENTS BUSY, one line a record.
  busy STREAM FROM TO         the same for one window (relative ns).
  seed [FILE]                 check mct-phases' ndjson output in FILE
                              against the phases of the seed-shaped
                              trace, boundaries within 0.1 s; prints what
                              differs, exit 1 if anything does.
  seedgap [FILE]              check that mct-phases' gaps in FILE hold the
                              seed's 68.41-74.52 s stretch without custom
                              kernels (within 0.1 s).
  batch FILE [INPUT...]       each line of FILE one of the above, answered
                              in one process (a file read once for the
                              commands in a row on it), each answer after a
                              line "@@ N STATUS"

OPTIONS: --key LIST (default name,args.grid,args.block), --device-name RE,
--min-rounds N (3), --min-share P (1), --split X (5), --overlap P (80),
--join NS (default: 1% of the device span), --gap NS (default: 1% of the
device span, at least 1 ms), --min-switch NS (default: 1% of the median
round of the steady phases).  Host events named ProfilerStep#N (Kineto's
training steps: ProfilerStep# and a digit), when there are --min-rounds
of them, are the rounds.  The device span is from the first device
event's start to the last one's start.

Exit status 0; 1 with a message on stderr when the input is not a stream.
"""
import json
import re
import sys

DEVICE_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset",
               "mtia_ccp_events")
NTOP = 3


def die(msg):
    sys.stderr.write("phases_oracle.py: " + msg + "\n")
    sys.exit(1)


_last = {}     # batch: the events of the last file read, read once


def read_lines(path):
    if path not in (None, "-"):
        if path not in _last:
            _last.clear()
            _last[path] = list(read_lines1(path))
        return iter(_last[path])
    return read_lines1(path)


def read_lines1(path):
    f = sys.stdin if path in (None, "-") else open(path, encoding="utf-8",
                                                    errors="surrogateescape")
    try:
        for line in f:
            line = line.strip()
            if line:
                yield json.loads(line)
    finally:
        if f is not sys.stdin:
            f.close()


def is_step_name(n):
    """A training step's name: ProfilerStep# and a digit, then anything
    (a bare ProfilerStep#, or no digit after the #, is no step)."""
    return isinstance(n, str) and re.match(r"ProfilerStep#[0-9]", n) \
        is not None


def is_step_event(e):
    """An event that can be a step, whatever its name (mct(7), "Steps"):
    an X event of the host, not device work nor the GPU's copy of the
    annotation (Kineto writes each step again on the GPU's lane, cat
    gpu_user_annotation); any other cat, or none."""
    return e.get("ph") == "X" and e.get("cat") != "gpu_user_annotation" \
        and not on_device_lane(e)


def is_step(e):
    """A training step's annotation: a step's name, on an event that can
    be a step."""
    return is_step_name(e.get("name")) and is_step_event(e)


def on_device_lane(e):
    """The device lanes of mct(7): device categories of every producer (any
    case), mcTracer's pid 2 and 3 without a cat, and any other cat but a
    host call's or cuda_sync on an event with a correlation id."""
    if "cat" not in e:
        return str(e.get("pid")) in ("2", "3")
    cat = e["cat"]
    if not isinstance(cat, str):
        return False
    c = cat.lower()
    if c in DEVICE_CATS:
        return True
    if c.endswith("runtime") or c.endswith("driver") or c == "cuda_sync":
        return False
    a = e.get("args")
    return isinstance(a, dict) and ("correlation" in a or "co_id" in a)


_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def text_of(v):
    if isinstance(v, str):
        return v
    return _COMPACT(v)


def get_path(e, path):
    v = e
    for seg in path.split("."):
        if not isinstance(v, dict) or seg not in v:
            return None
        v = v[seg]
    return v


_traces = {}   # batch: a file's Trace for the same options, made once


def trace_of(path, key="name,args.grid,args.block", device_re=None):
    """Trace(...), once per process for a file (callers only read it)."""
    if path in (None, "-"):
        return Trace(path, key, device_re)
    k = (path, key, device_re)
    if k not in _traces:
        _traces[k] = Trace(path, key, device_re)
    return _traces[k]


class Trace:
    """What mct-phases keeps of a stream: device calls and host events."""

    def __init__(self, path, key="name,args.grid,args.block", device_re=None):
        self.origin = None
        self.has_header = False
        self.dev = []           # (ts, dur, signature, name)
        self.host = []          # (ts, dur, name, lane)
        self.steps = []         # Kineto's ProfilerStep#N: (ts, end)
        self.tend = None
        rx = re.compile(device_re) if device_re is not None else None
        keys = key.split(",")
        lanes = {}              # (pid, tid) -> its text, made once
        first = True
        for e in read_lines(path):
            if not isinstance(e, dict):
                die("not an event: %r" % (e,))
            if first and e.get("name") == "mct_header" and e.get("ph") == "M":
                self.has_header = True
                self.origin = e["args"].get("origin")
                first = False
                continue
            first = False
            if e.get("ph") != "X" or not isinstance(e.get("ts"), int):
                continue
            ts = e["ts"]
            dur = e.get("dur")
            if not isinstance(dur, int) or dur < 0:
                dur = 0
            if self.tend is None or ts + dur > self.tend:
                self.tend = ts + dur
            lane = on_device_lane(e)
            if rx is not None:
                dev = isinstance(e.get("name"), str) and \
                    rx.search(e["name"]) is not None
            else:
                dev = lane
            if not lane and is_step(e):
                self.steps.append((ts, ts + dur))
            if dev:
                parts = [text_of(v) for v in (get_path(e, k) for k in keys)
                         if v is not None]
                self.dev.append((ts, dur, " ".join(parts),
                                 text_of(e.get("name", ""))))
            elif not lane and e.get("cat") != "Trace":
                # Kineto's profiler span (cat Trace) is not host work
                pid, tid = e.get("pid", "\0"), e.get("tid", "\0")
                k = (type(pid), pid, type(tid), tid) \
                    if type(pid) in (int, str) and type(tid) in (int, str) \
                    else None
                lane = lanes.get(k) if k is not None else None
                if lane is None:
                    lane = json.dumps([pid, tid])
                    if k is not None:
                        lanes[k] = lane
                self.host.append((ts, dur, text_of(e.get("name", "")), lane))
        self.dev.sort(key=lambda d: d[0])
        if self.origin is None:
            self.origin = self.dev[0][0] if self.dev else 0

    def span(self):
        return self.dev[-1][0] - self.dev[0][0] if self.dev else 0

    def window(self, a, b):
        """Device events starting in [a, b), and the union of the device
        intervals clipped to [a, b)."""
        events = sum(1 for d in self.dev if a <= d[0] < b)
        ivs = sorted((max(ts, a), min(ts + dur, b)) for ts, dur, _, _ in self.dev
                     if ts < b and ts + dur > a)
        busy = 0
        cur = None
        for s, e in ivs:
            if cur is not None and s <= cur[1]:
                cur[1] = max(cur[1], e)
                continue
            if cur is not None:
                busy += cur[1] - cur[0]
            cur = [s, e]
        if cur is not None:
            busy += cur[1] - cur[0]
        return events, busy


def find_phases(t, min_rounds=3, min_share=1.0, split=5.0, overlap=80.0,
                join=None, min_switch=None):
    """Steps 2 to 5.  A phase: dict kind, start, end, anchors {sig: [calls,
    total]}, rounds."""
    alltotal = sum(d[1] for d in t.dev)
    by_sig = {}
    for d in t.dev:
        by_sig.setdefault(d[2], []).append(d)
    # step 2: runs of each signature, split at pauses over split x median
    cands = []
    for sig, calls in by_sig.items():
        if len(calls) < min_rounds:
            continue
        deltas = sorted(calls[i][0] - calls[i - 1][0]
                        for i in range(1, len(calls)))
        med = deltas[len(deltas) // 2]
        limit = int(med * split)
        runs = [[calls[0]]]
        for i in range(1, len(calls)):
            if calls[i][0] - calls[i - 1][0] > limit:
                runs.append([])
            runs[-1].append(calls[i])
        for r in runs:
            total = sum(d[1] for d in r)
            if len(r) >= min_rounds and total >= min_share / 100 * alltotal:
                cands.append({"sig": sig, "start": r[0][0],
                              "end": max(d[0] + d[1] for d in r),
                              "total": total, "calls": len(r)})
    # step 3: heaviest first; join, clash or a phase of its own
    cands.sort(key=lambda c: (-c["total"], c["start"]))
    phases = []
    for c in cands:
        hit = None
        for p in phases:
            ov = min(c["end"], p["end"]) - max(c["start"], p["start"])
            if ov > 0:
                hit = (p, ov)
                break
        if hit is None:
            phases.append({"kind": "steady", "start": c["start"],
                           "end": c["end"], "rounds": c["calls"],
                           "anchors": {c["sig"]: [c["calls"], c["total"]]}})
            continue
        p, ov = hit
        if ov >= overlap / 100 * (c["end"] - c["start"]) and \
           ov >= overlap / 100 * (p["end"] - p["start"]):
            a = p["anchors"].setdefault(c["sig"], [0, 0])
            a[0] += c["calls"]
            a[1] += c["total"]
            p["start"] = min(p["start"], c["start"])
            p["end"] = max(p["end"], c["end"])
    steady = list(phases)
    # step 4: the anchors' names outside the steady phases: warmups.  The
    # names are the names of the anchors' calls (the events), whatever
    # --key is and whatever spaces a name holds.
    anchor_sigs = set(sig for p in steady for sig in p["anchors"])
    names = set(d[3] for d in t.dev if d[2] in anchor_sigs)
    if join is None:
        join = t.span() // 100
    w = None
    for ts, dur, sig, name in t.dev:
        if name not in names:
            continue
        if any(p["start"] <= ts < p["end"] for p in steady):
            continue
        if w is None or ts - w["end"] > join:
            w = {"kind": "warmup", "start": ts, "end": ts + dur,
                 "rounds": 0, "anchors": {}}
            phases.append(w)
        w["end"] = max(w["end"], ts + dur)
        a = w["anchors"].setdefault(sig, [0, 0])
        a[0] += 1
        a[1] += dur
    for p in phases:
        if p["kind"] == "warmup":
            p["rounds"] = max(a[0] for a in p["anchors"].values())
    phases = fill(t, phases)
    # Kineto's ProfilerStep#N are the rounds, where there are enough
    if len(t.steps) >= min_rounds:
        phases = step_rounds(t, phases)
    return merge_switches(phases, min_switch)


def step_rounds(t, phases):
    """Each run of steps (the next starting at most a median step after
    the run's end) is a steady phase, a round per step, with the anchors
    of the steady phases starting in it; phases starting in a run go, one
    reaching into it is cut at its start; init/switch/tail found again."""
    st = sorted(t.steps)
    lens = sorted(e - s for s, e in st)
    med = lens[len(lens) // 2]
    kept = [p for p in phases if p["kind"] in ("steady", "warmup")]
    runs = []
    i = 0
    while i < len(st):
        start, end = st[i]
        j = i + 1
        while j < len(st) and st[j][0] - end <= med:
            end = max(end, st[j][1])
            j += 1
        run = {"kind": "steady", "start": start, "end": end,
               "rounds": j - i, "anchors": {},
               "steps": [e - s for s, e in st[i:j]]}
        for p in kept:
            if p["start"] < start < p["end"]:
                p["end"] = start
            if not start <= p["start"] < end:
                continue
            if p["kind"] == "steady":
                for sig, (calls, total) in p["anchors"].items():
                    a = run["anchors"].setdefault(sig, [0, 0])
                    a[0] += calls
                    a[1] += total
            p["drop"] = True
        runs.append(run)
        i = j
    return fill(t, [p for p in kept if not p.get("drop")] + runs)


def merge_switches(phases, min_switch):
    """A switch shorter than min_switch (default 1% of the median round of
    the steady phases) joins the phase before it."""
    if min_switch is None:
        r = sorted((p["end"] - p["start"]) // p["rounds"] for p in phases
                   if p["kind"] == "steady" and p["rounds"] > 0)
        min_switch = r[len(r) // 2] // 100 if r else 0
    out = []
    for p in phases:
        if out and p["kind"] == "switch" and \
           p["end"] - p["start"] < min_switch:
            out[-1]["end"] = max(out[-1]["end"], p["end"])
            continue
        out.append(p)
    return out


def fill(t, phases):
    """Step 5: init, switches, tail around the phases."""
    phases.sort(key=lambda p: p["start"])
    at = t.origin
    extra = []
    for i, p in enumerate(phases):
        if p["start"] > at:
            extra.append({"kind": "init" if i == 0 else "switch",
                          "start": at, "end": p["start"], "rounds": 0,
                          "anchors": {}})
        at = max(at, p["end"])
    if t.tend is not None and t.tend > at:
        extra.append({"kind": "init" if not phases else "tail", "start": at,
                      "end": t.tend, "rounds": 0, "anchors": {}})
    phases += extra
    phases.sort(key=lambda p: p["start"])
    return phases


def find_gaps(t, gap=None):
    """Step 6: stretches longer than gap with no device event running, and
    the host names that overlap each most."""
    if not t.dev:
        return []
    if gap is None:
        gap = max(t.span() // 100, 1000000)
    gaps = []
    cur1 = None
    for ts, dur, _, _ in t.dev:
        if cur1 is not None and ts - cur1 > gap:
            gaps.append((cur1, ts))
        if cur1 is None or ts + dur > cur1:
            cur1 = ts + dur
    # each moment of a gap goes to the innermost host event of its lane:
    # an event's time less its children's (a child cut to its parent)
    spans = []          # (ts, end, name, parent name or None)
    lanes = {}
    for i, (ts, dur, name, lane) in enumerate(t.host):
        lanes.setdefault(lane, []).append((ts, -(ts + dur), i, name))
    for evs in lanes.values():
        evs.sort()
        stack = []
        for ts, nend, _, name in evs:
            end = -nend
            while stack and stack[-1][0] <= ts:
                stack.pop()
            parent = stack[-1][1] if stack else None
            if stack and end > stack[-1][0]:
                end = stack[-1][0]
            spans.append((ts, end, name, parent))
            stack.append((end, name))
    out = []
    for a, b in gaps:
        acc = {}
        for ts, end, name, parent in spans:
            ov = min(b, end) - max(a, ts)
            if ov > 0:
                acc[name] = acc.get(name, 0) + ov
                if parent is not None:
                    acc[parent] = acc.get(parent, 0) - ov
        top = sorted([kv for kv in acc.items() if kv[1] > 0],
                     key=lambda kv: (-kv[1], kv[0].encode(
                         "utf-8", "surrogateescape")))[:NTOP]
        out.append((a, b, top))
    return out


def anchors_text(items):
    """items: (key, calls, mean)."""
    if not items:
        return "-"
    return ";".join("%s=%d:%d" % it for it in sorted(items))


def host_text(items):
    if not items:
        return "-"
    return ";".join("%s=%d" % it for it in items)


def parse_opts(args):
    o = {"key": "name,args.grid,args.block", "device_re": None,
         "min_rounds": 3, "min_share": 1.0, "split": 5.0, "overlap": 80.0,
         "join": None, "gap": None, "min_switch": None}
    conv = {"--key": ("key", str), "-k": ("key", str), "--device-name": ("device_re", str),
            "--min-rounds": ("min_rounds", int),
            "--min-share": ("min_share", float), "--split": ("split", float),
            "--overlap": ("overlap", float), "--join": ("join", int),
            "--gap": ("gap", int), "--min-switch": ("min_switch", int)}
    rest = []
    i = 0
    while i < len(args):
        if args[i] in conv:
            k, f = conv[args[i]]
            o[k] = f(args[i + 1])
            i += 2
        else:
            rest.append(args[i])
            i += 1
    return o, (rest[0] if rest else None)


def cmd_phases(args):
    o, path = parse_opts(args)
    t = trace_of(path, o["key"], o["device_re"])
    for p in find_phases(t, o["min_rounds"], o["min_share"], o["split"],
                         o["overlap"], o["join"], o["min_switch"]):
        events, busy = t.window(p["start"], p["end"])
        anc = [(k, v[0], v[1] // v[0]) for k, v in p["anchors"].items()]
        print("\t".join(str(x) for x in (
            p["kind"], p["start"] - t.origin, p["end"] - t.origin,
            p["rounds"], events, busy, anchors_text(anc))))


def cmd_gaps(args):
    o, path = parse_opts(args)
    t = trace_of(path, o["key"], o["device_re"])
    for a, b, top in find_gaps(t, o["gap"]):
        print("\t".join(("gap", str(a - t.origin), str(b - t.origin),
                         host_text(top))))


def cmd_nogap(args):
    """The sentence a trace with no gap to list gets (mct-phases' stderr
    line): the automatic --gap as a duration; nothing when there is a gap,
    or no device event."""
    o, path = parse_opts(args)
    t = trace_of(path, o["key"], o["device_re"])
    if not t.dev or find_gaps(t, o["gap"]):
        return
    gap = o["gap"] if o["gap"] is not None else max(t.span() // 100, 1000000)
    if gap < 1000000:
        txt = "%.2f us" % (gap / 1e3)
    elif gap < 1000000000:
        txt = "%.2f ms" % (gap / 1e6)
    else:
        txt = "%.2f s" % (gap / 1e9)
    print("no idle gap longer than " + txt)


def records(path):
    for r in read_lines(path):
        if r.get("ph") != "X":
            continue
        if "args" in r and "phase" in r["args"]:
            r = dict(r, **r["args"])        # -o trace: fields under args
        yield r


def cmd_fmt(args):
    for r in records(args[0] if args else None):
        if r["phase"] == "gap":
            print("\t".join(("gap", str(r["start"]), str(r["end"]),
                             host_text([(h["name"], h["overlap"])
                                        for h in r["host"]]))))
        else:
            anc = [(a["key"], a["calls"], a["mean"]) for a in r["anchors"]]
            print("\t".join(str(x) for x in (
                r["phase"], r["start"], r["end"], r["rounds"], r["events"],
                r["busy"], anchors_text(anc))))


def cmd_windows(args):
    t = trace_of(args[0])
    for r in records(args[1] if len(args) > 1 else None):
        if r["phase"] == "gap":
            continue
        print("%d\t%d" % t.window(r["ts"], r["ts"] + r["dur"]))


def cmd_busy(args):
    t = trace_of(args[0])
    a, b = int(args[1]) + t.origin, int(args[2]) + t.origin
    print("%d\t%d" % t.window(a, b))


# The seed's phases (tests/gentrace.md), relative seconds.  A pair is the
# grids of kernel_kernel and kernel_kernel_1, with their mean times (ms, to
# the seed's rounding) in the steady phases.
SEED = [
    ("init", 0, 14.29, None),
    ("warmup", 14.29, None, (("[520,32,1]", None), ("[520,56,1]", None))),
    ("switch", None, None, None),
    ("warmup", 20.76, None, (("[260,16,1]", None), ("[260,28,1]", None))),
    ("switch", None, 26.57, None),
    ("steady", 26.57, 68.41, (("[2056,32,1]", 253.99), ("[2056,56,1]", 94.72))),
    ("switch", 68.41, 74.52, None),
    ("steady", 74.52, 80.22, (("[1028,16,1]", 31.00), ("[1028,28,1]", 12.05))),
]
SEED_ROUNDS = 110
TOL = 0.1


def cmd_seed(args):
    got = [r for r in records(args[0] if args else None)
           if r["phase"] != "gap"]
    bad = []
    kinds = [r["phase"] for r in got]
    want = [s[0] for s in SEED]
    if kinds not in (want, want + ["tail"]):
        bad.append("phases %s, want %s (and maybe a tail)" % (kinds, want))
    for r, (kind, start, end, pair) in zip(got, SEED):
        where = "%s %.3f-%.3f s" % (r["phase"], r["start"] / 1e9,
                                    r["end"] / 1e9)
        if start is not None and abs(r["start"] / 1e9 - start) > TOL:
            bad.append("%s: start, want %.2f s" % (where, start))
        if end is not None and abs(r["end"] / 1e9 - end) > TOL:
            bad.append("%s: end, want %.2f s" % (where, end))
        if r["ts"] + r["dur"] != r["ts"] + (r["end"] - r["start"]) or \
           r["span"] != r["end"] - r["start"]:
            bad.append("%s: dur/span is not end - start" % where)
        if pair is None:
            continue
        keys = [a["key"] for a in r["anchors"]]
        for i, (grid, mean) in enumerate(pair):
            hits = [a for a in r["anchors"] if grid in a["key"].split(" ")]
            if len(hits) != 1:
                bad.append("%s: anchors %s, want one with grid %s" %
                           (where, keys, grid))
                continue
            a = hits[0]
            name = "kernel_kernel" if i == 0 else "kernel_kernel_1"
            if a["key"].split(" ")[0] != name and \
               a["key"].split(" ")[0].startswith("kernel_kernel"):
                bad.append("%s: anchor %s is not %s" % (where, a["key"], name))
            if kind == "steady":
                if a["calls"] != SEED_ROUNDS:
                    bad.append("%s: %s calls %d, want %d" % (
                        where, a["key"], a["calls"], SEED_ROUNDS))
                if round(a["mean"] / 1e6, 2) != mean:
                    bad.append("%s: %s mean %.2f ms, want %.2f ms" % (
                        where, a["key"], a["mean"] / 1e6, mean))
            elif a["calls"] != 1:
                bad.append("%s: %s calls %d, want 1" % (where, a["key"],
                                                        a["calls"]))
        if len(r["anchors"]) != 2:
            bad.append("%s: %d anchors, want the pair" % (where,
                                                         len(r["anchors"])))
        if kind == "steady" and r["rounds"] != SEED_ROUNDS:
            bad.append("%s: %d rounds, want %d" % (where, r["rounds"],
                                                  SEED_ROUNDS))
        if kind == "steady" and \
           r["round"] != (r["end"] - r["start"]) // r["rounds"]:
            bad.append("%s: round is not span / rounds" % where)
    for b in bad:
        print(b)
    sys.exit(1 if bad else 0)


def cmd_seedgap(args):
    gaps = [r for r in records(args[0] if args else None)
            if r["phase"] == "gap"]
    for g in gaps:
        if abs(g["start"] / 1e9 - 68.41) <= TOL and \
           abs(g["end"] / 1e9 - 74.52) <= TOL:
            sys.exit(0)
    print("no gap 68.41-74.52 s among %s" % [
        "%.3f-%.3f" % (g["start"] / 1e9, g["end"] / 1e9) for g in gaps])
    sys.exit(1)


def cmd_batch(args):
    """batch FILE [INPUT...]: each line of FILE a command and its arguments
    (shell words), answered in one process, a file read once for the
    commands that follow each other on it; each answer after a line
    "@@ N STATUS".  The INPUTs are not read: they name the files the
    commands read, for the tests' cache of answers."""
    import batch
    batch.run(args[0], lambda w: CMDS[w[0]](w[1:]))


def main():
    cmds = CMDS
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        die("usage: phases_oracle.py phases|gaps|fmt|windows|busy|seed|seedgap|batch ...")
    cmds[sys.argv[1]](sys.argv[2:])


CMDS = {"phases": cmd_phases, "gaps": cmd_gaps, "fmt": cmd_fmt,
        "windows": cmd_windows, "busy": cmd_busy, "seed": cmd_seed,
        "seedgap": cmd_seedgap, "batch": cmd_batch, "nogap": cmd_nogap}

if __name__ == "__main__":
    main()
