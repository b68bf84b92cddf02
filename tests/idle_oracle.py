#!/usr/bin/env python3
"""idle_oracle.py - idle time by cause and queue length per device stream,
computed independently of mct, for the tests of mct-flow --idle and
--queue.

The pairs (each device event with the host call that launched it) are
flow_oracle.py's but those of a Kineto cuda_sync (a wait, not work);
everything else is computed here.  A stream is the
device event's (rank, pid, tid).  On a stream the device events are taken
in order of start, then of their launch's start, then of end.

  idle, per stream: for each event after the first, gap = its start minus
  the end of the event before it (negative if they overlap).  The gap is
  host wait when the event's launch started after that end, else kernel
  wait when gap < --kernel-wait, else other wait.  (HolisticTraceAnalysis'
  get_idle_time_breakdown, in ns.)

  queue, per stream: +1 at each launch's start, -1 at each device event's
  start; at one time launches come first.  The queue length after each
  change is a sample: count, mean, sample stddev, max, p50 and p95 (linear
  interpolation between the two nearest ranks), and at_limit, the time
  from a change that left the length >= --queue-limit to the next change.
  (HolisticTraceAnalysis' get_queue_length_summary and
  get_time_spent_blocked_on_full_queue.)  The counters: per stream, the
  length after the last change of each time.

  hta: the same two tables as HolisticTraceAnalysis computes them on a
  Kineto trace in us: float times rounded (ts up, end down), host events
  that start at or after the last ProfilerStep's start dropped with every
  device event they launched, launches only of cudaLaunchKernel,
  cudaLaunchKernelExC, cuLaunchKernel, cudaMemcpyAsync, cudaMemsetAsync,
  its threshold 30 (us, the trace's unit), times back in ns.

Usage: idle_oracle.py [--kernel-wait NS,...] [--queue-limit N,...] [--unit U] FILE
Prints TSV lines, each led by its table (rows in mct-flow's order: rank,
then pid, then tid, numbers before text; cells as mct-flow -o tsv writes
them, the rank empty where there is none):
  idle       rank pid tid events idle host_wait kernel_wait other_wait
  queue      rank pid tid count mean stddev max p50 p95 at_limit
             (once for the defaults, 30000 ns and 1024, and once for each
             value given, led by idle@NS and queue@N)
  counter    rank pid tid ts length
  hta-idle, hta-queue   (Kineto traces) as idle and queue
  hta-compute           (Kineto traces) HTA's compute time, every event
  summary    mct-flow's line on stderr
Floats are the shortest text that reads back as the same double, and an
integral one as an integer; stddev has 12 significant digits.
"""
import math
import os
from fractions import Fraction
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flow_oracle as fo  # noqa: E402

HTA_LAUNCH = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel",
              "cudaMemcpyAsync", "cudaMemsetAsync")


def order_key(v):
    if isinstance(v, bool) or v is None:
        return (1, fo.ser(v))
    if isinstance(v, (int, Decimal)):
        return (0, Decimal(v), "")
    return (1, fo.ser(v))


def stream_of(d):
    return (fo.rank_of(d), d.get("pid"), d.get("tid"))


def stream_key(s):
    r = s[0]
    return (-1 if r is None else r, order_key(s[1]), order_key(s[2]))


def by_stream(pairs):
    """pairs: (stream, ts, dur, launch ts) -> {stream: sorted list}."""
    out = {}
    for s, ts, dur, lts in pairs:
        out.setdefault(s, []).append((ts, lts, ts + dur))
    for v in out.values():
        v.sort()
    return out


def row_head(s):
    r = {}
    if s[0] is not None:
        r["rank"] = s[0]
    r["pid"] = s[1]
    r["tid"] = s[2]
    return r


def idle_rows(streams, kw):
    rows = []
    for s in sorted(streams, key=stream_key):
        ev = streams[s]
        host = kern = other = 0
        for i in range(1, len(ev)):
            prev_end = ev[i - 1][2]
            gap = ev[i][0] - prev_end
            if ev[i][1] > prev_end:
                host += gap
            elif gap < kw:
                kern += gap
            else:
                other += gap
        r = row_head(s)
        r.update(events=len(ev), idle=host + kern + other, host_wait=host,
                 kernel_wait=kern, other_wait=other)
        rows.append(r)
    return rows


def quantile(v, p):
    """Linear between the closest ranks, exact (p a Fraction), then the
    nearest double."""
    pos = p * (len(v) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(v) - 1)
    return float(v[lo] + (v[hi] - v[lo]) * (pos - lo))


def queue_rows(streams, limit):
    rows, counters = [], []
    for s in sorted(streams, key=stream_key):
        ch = []
        for ts, lts, _ in streams[s]:
            ch.append((lts, 0))         # launches first at one time
            ch.append((ts, 1))
        ch.sort()
        q, vals, at = 0, [], 0
        for i, (t, k) in enumerate(ch):
            q += 1 if k == 0 else -1
            vals.append(q)
            if i + 1 < len(ch) and q >= limit:
                at += ch[i + 1][0] - t
            if i + 1 == len(ch) or ch[i + 1][0] != t:
                counters.append([s[0], s[1], s[2], t, q])
        n, sm, sq = len(vals), sum(vals), sum(x * x for x in vals)
        sv = sorted(vals)
        r = row_head(s)
        r.update(count=n, mean=sm / n,
                 stddev=math.sqrt((n * sq - sm * sm) / (n * (n - 1)))
                 if n > 1 else 0.0,
                 max=sv[-1], p50=quantile(sv, Fraction(1, 2)),
                 p95=quantile(sv, Fraction(95, 100)), at_limit=at)
        rows.append(r)
    return rows, counters


def pairs_of(records):
    out = []
    for x in records:
        if str(x.get("cat")).lower() == "cuda_sync":
            continue                    # a wait, not device work
        lts = x["launch"]["ts"]
        out.append((stream_of(x), x["ts"], fo.dur_of(x), lts))
    return out


def hta_events(path):
    """The trace's events as HTA keeps them: times in us as integers
    (floats: ts up, end down), then what its last-step filter drops."""
    raw, _ = fo.read_events(path)
    ev = []
    for e in raw:
        if e.get("ph") != "X" or not isinstance(e.get("ts"), (int, Decimal)):
            continue
        e = dict(e)
        ts, dur = e["ts"], e.get("dur", 0)
        if isinstance(ts, Decimal) or isinstance(dur, Decimal):
            end = math.floor(Decimal(ts) + Decimal(dur))
            ts = math.ceil(Decimal(ts))
            dur = end - ts
        e["ts"], e["dur"] = int(ts), int(dur)
        ev.append(e)
    steps = [e["ts"] for e in ev if "ProfilerStep" in str(e.get("name"))]
    if steps:
        last = max(steps)
        ev = [e for e in ev if not (is_cpu(e) and e["ts"] >= last)]
    return ev


def is_cpu(e):
    """HTA's CPU side: no stream, or stream -1 (a cuda_sync on a stream is
    GPU work to HTA)."""
    a = e.get("args")
    return not (isinstance(a, dict) and a.get("stream", -1) != -1)


def hta_compute(path):
    """HTA's compute time (its temporal breakdown) over every event, in ns:
    the union of the kernels whose name has no "nccl" in it."""
    raw, _ = fo.read_events(path)
    ev = fo.normalise(raw, fo.unit_of(raw, None, False))
    iv = sorted((e["ts"], e["ts"] + fo.dur_of(e)) for e in ev
                if e.get("ph") == "X" and e.get("cat") == "kernel" and
                isinstance(e.get("ts"), int) and
                "nccl" not in str(e.get("name")).lower())
    total, cur = 0, None
    for a, b in iv:
        if cur is None or a > cur[1]:
            total += cur[1] - cur[0] if cur else 0
            cur = [a, b]
        else:
            cur[1] = max(cur[1], b)
    return total + (cur[1] - cur[0] if cur else 0)


def hta(path):
    ev = hta_events(path)
    launches = {}
    for e in ev:
        a = e.get("args") or {}
        if is_cpu(e) and "correlation" in a:
            launches.setdefault(a["correlation"], e)
    pairs = []
    for e in ev:
        a = e.get("args") or {}
        if is_cpu(e) or "correlation" not in a:
            continue
        h = launches.get(a["correlation"])
        if h is None:
            continue            # HTA keeps only kernels of kept CPU events
        pairs.append((h.get("name") in HTA_LAUNCH, e, h))
    s_idle = by_stream([(stream_of(e), e["ts"] * 1000, e["dur"] * 1000,
                         h["ts"] * 1000) for _, e, h in pairs])
    s_queue = by_stream([(stream_of(e), e["ts"] * 1000, e["dur"] * 1000,
                          h["ts"] * 1000) for ok, e, h in pairs if ok])
    return {"idle": idle_rows(s_idle, 30 * 1000),
            "queue": queue_rows(s_queue, 1024)[0]}


def main(argv):
    kws, limits, unit, args = [], [], None, []
    it = iter(argv[1:])
    for a in it:
        if a == "--kernel-wait":
            kws = [int(x) for x in next(it).split(",")]
        elif a == "--queue-limit":
            limits = [int(x) for x in next(it).split(",")]
        elif a == "--unit":
            unit = next(it)
        else:
            args.append(a)
    o = fo.Opts(["--unit", unit] if unit else [])
    _, r = fo.compute(args[0], o)
    streams = by_stream(pairs_of(r.records))
    queue, counters = queue_rows(streams, 1024)
    w = sys.stdout.write
    tables = [("idle", idle_rows(streams, 30000), IDLE),
              ("queue", queue, QUEUE)]
    tables += [("idle@%d" % k, idle_rows(streams, k), IDLE) for k in kws]
    tables += [("queue@%d" % n, queue_rows(streams, n)[0], QUEUE)
               for n in limits]
    for name, rows, keys in tables:
        for x in rows:
            w(line(name, x, keys))
    for c in counters:
        w("\t".join(["counter"] + [cell(v) for v in c]) + "\n")
    raw, stream = fo.read_events(args[0])
    if not stream and any(e.get("cat") == "kernel" for e in raw):
        w("hta-compute\t%d\n" % hta_compute(args[0]))
        h = hta(args[0])
        for x in h["idle"]:
            w(line("hta-idle", x, IDLE))
        for x in h["queue"]:
            w(line("hta-queue", x, QUEUE))
    w("summary\t" + fo.summary_line(r) + "\n")


IDLE = ("events", "idle", "host_wait", "kernel_wait", "other_wait")
QUEUE = ("count", "mean", "stddev", "max", "p50", "p95", "at_limit")


def cell(v):
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e15:
            return str(int(v))
        return repr(v)
    return fo.ser(v)


def line(name, x, keys):
    cells = [name, cell(x.get("rank")), cell(x["pid"]), cell(x["tid"])]
    for k in keys:
        v = x[k]
        cells.append("%.12g" % v if k == "stddev" else cell(v))
    return "\t".join(cells) + "\n"

if __name__ == "__main__":
    main(sys.argv)
