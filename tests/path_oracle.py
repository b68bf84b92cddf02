#!/usr/bin/env python3
"""path_oracle.py - an independent critical path of a trace, for the tests
of mct-path(1).

oracle.py reads the trace (ts and dur in integer ns); the graph and its
longest path are built here, with plain python (no networkx), from the
rules of mct-path(1):

  events   an event's place (seq) is its index in the trace, metadata
           events counted.  Host ops: X events off the device lanes with
           dur > 0, not annotations (cat user_annotation,
           gpu_user_annotation, python_function, Trace), not a training
           step whatever its cat (early Kineto's Operator), nor cuda_sync.
           Device work: the device lanes (as phases_oracle.py says) whose
           correlation id (args.correlation, else args.co_id) names a
           host call (cat ending in runtime or driver, or no cat and pid
           1) that is a host op of the graph.
  window   --step NAME[#N]: the N-th (from 1) X event named NAME in ts
           order (ties by seq); NAME alone if an event has that whole
           name; host ops that start within [ts, ts + dur].  --from/--to:
           host ops that start within them.  Else the whole trace.
  nodes    a start and an end per host op and device event; node id
           2 * seq (start) or 2 * seq + 1 (end).
  edges    per host lane (pid, tid), ops by ts (longest first, then seq)
           nested by a stack (an op is inside the top while it starts
           before the top ends); each op entered: from the last node of
           the lane (weight: the difference of times), and, at depth 0,
           a 0 edge from the previous top-level op's end; each op left:
           from the last node to its end (0 for a blocking call:
           (cuda|hip|mc)(DeviceSynchronize|StreamSynchronize|EventQuery|
           EventSynchronize|Memcpy|MemcpyAsync)).
           Device events by ts, sync events (Kineto's cuda_sync, or a
           host op named ...DeviceSynchronize / ...StreamSynchronize
           whose correlation id no cuda_sync event has, or
           ...EventSynchronize on a rank without cuda_sync events) by
           their end;
           ties by seq.  A kernel: start -> end (its dur); a launch edge
           (launch start -> kernel start) when the queue of its stream
           (+1 at a launch, -1 at a kernel start, by ts, launches first)
           was 1 at the launch and 0 at the kernel start, the stream's
           last kernel ended before the launch and so did a kernel it
           waits for; else, with a last kernel on the stream, a
           kernel-kernel edge from its end if it ended at most 1.5 ms
           before, else the launch edge.  A launch edge of more than
           1.5 ms becomes a wait edge from the rank's device work that
           ended last, when no device lane of the rank ran anything at the
           start, that work is of another lane and ended after the launch
           and at most 1.5 ms before.  Sync: device sync from the
           last kernel of every stream, stream sync from the stream's,
           Event Sync from the kernel of the last launch on wait_on_stream
           before the cudaEventRecord it names, to the call's end (0);
           ...EventSynchronize by name from the kernel of the thread's
           last launch before the thread's latest ...EventRecord that
           starts before the call, to the call's end (0);
           Stream Wait Event: from that kernel to the start of the kernel
           of the next launch of the call's thread on the waiting stream.
           Several ranks: the n-th communication kernel of a name on each
           rank is one collective; from the start of the rank that came
           last to each other rank's end, and an earlier rank's kernel
           counts its own time from that start only.
           A negative weight counts and is taken as 0.
  path     longest path (Kahn's order); of equal lengths the predecessor
           with the smaller node id; ends at the smallest id of the
           longest.

Usage: path_oracle.py FILE [SPEC...]   (FILE a directory: its files, in
  name order, are the ranks of a job)
  SPEC: options, tab-separated: --step NAME[#N] or --steps all (a line
  "step<TAB>NAME<TAB>CRIT<TAB>HOST<TAB>KERNEL<TAB>COMM<TAB>LAUNCH<TAB>WAIT"
  per step of the job, then with several ranks "partial N" when N steps
  lack a rank, nothing else) or --steps median (a line "median
  NAME", then --step NAME's block), --from NS, --to NS (ns on
  the trace's clock), --from-rel NS, --to-rel NS (ns from its origin), --scale REGEX=F; "" (or none) the whole trace.  For
  each SPEC a block "== SPEC", then "summary LENGTH EVENTS NODES NEGATIVE
  NO_KERNEL NO_SOURCE NO_EDGE" (or the error: "unknown step", "cycle
  NODES"), "seg<TAB>KIND<TAB>NS
  <TAB>NAME" per segment of the path in order, "bound<TAB>KIND<TAB>NS<TAB>
  SEGMENTS" per kind, "flows<TAB>TYPE<TAB>N" per kind of edge -o trace
  draws, "critical<TAB>NAME<TAB>TS" per event with a node on the path:
  one process answers every question of an input.
path_oracle.py --json SPEC FILE: the analysis as one JSON object (length,
  nodes, events: the seqs with a node on the path, named: their (name, ts,
  dur), segs, breakdown, counts).
--scale (a stand-in for mct's expressions): events whose name matches
REGEX (re.search) have the weights of their own spans (the edges of
their op or kernel) times F, rounded down; the rest of the graph as it was.
"""
import collections
import heapq
import itertools
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402
import phases_oracle  # noqa: E402

COMM = re.compile(r"[Nn]ccl|[Rr]ccl|[Mm]ccl|AllReduce|AllGather|ReduceScatter|"
                  r"AllToAll|Broadcast|SendRecv|[Ss]end[Rr]ecv|_[Ss]end_|"
                  r"_[Rr]ecv_")
NOT_OPS = {"user_annotation", "gpu_user_annotation", "python_function",
           "Trace"}
BLOCKING = re.compile(r"^(cuda|hip|mc)(DeviceSynchronize|StreamSynchronize|"
                      r"EventQuery|EventSynchronize|Memcpy|MemcpyAsync)$")
DEVSYNC = re.compile(r"^(cuda|hip|mc)DeviceSynchronize$")
STRSYNC = re.compile(r"^(cuda|hip|mc)StreamSynchronize$")
LAUNCHING = re.compile(r"^(cuda|hip|mc)(LaunchKernel|LaunchCooperativeKernel|"
                       r"ModuleLaunchKernel|MemcpyAsync|MemsetAsync)$")
KK_MAX = 1500000     # ns: a longer gap between kernels is not queueing
RECORD = re.compile(r"^(cuda|hip|mc)EventRecord$")
EVSYNC = re.compile(r"^(cuda|hip|mc)EventSynchronize$")
WAITEV = re.compile(r"^(cuda|hip|mc)StreamWaitEvent$")


_COMPACT = json.JSONEncoder(separators=(",", ":")).encode


def text(v):
    return v if isinstance(v, str) else _COMPACT(v)


def corr_of(e):
    a = e.get("args")
    if not isinstance(a, dict):
        return None
    for k in ("correlation", "co_id"):
        if k in a and not isinstance(a[k], (dict, list)) and a[k] is not None:
            return text(a[k])
    return None


def host_call(e):
    cat = e.get("cat")
    if isinstance(cat, str):
        c = cat.lower()
        return c.endswith("runtime") or c.endswith("driver")
    return "cat" not in e and str(e.get("pid")) == "1"


class Ev:
    __slots__ = ("seq", "e", "ts", "dur", "name", "lane", "kind", "corr",
                 "f", "rk")


def analyse(events, step=None, tfrom=None, tto=None, scale=(), only=None):
    """The path.  only: (rank, lo, hi), a step of one rank (--steps)."""
    evs = []
    ranks = []                      # in the order they come
    for i, e in enumerate(events):
        if e.get("ph") != "X" or not isinstance(e.get("ts"), int):
            continue
        x = Ev()
        x.seq, x.e, x.ts = i, e, e["ts"]
        d = e.get("dur")
        x.dur = d if isinstance(d, int) and d >= 0 else 0
        x.name = text(e.get("name", ""))
        x.f = 1.0
        for rx, f in scale:
            if rx.search(x.name):
                x.f *= f
        r = e.get("rank")
        x.rk = r if isinstance(r, int) and not isinstance(r, bool) else None
        if x.rk not in ranks:
            ranks.append(x.rk)
        x.lane = (x.rk, text(e.get("pid")), text(e.get("tid")))
        c = corr_of(e)
        x.corr = None if c is None else (x.rk, c)
        cat = e.get("cat")
        if phases_oracle.on_device_lane(e):
            x.kind = "dev"
        elif cat == "cuda_sync":
            x.kind = "sync"
        elif x.dur > 0 and not (isinstance(cat, str) and cat in NOT_OPS) \
                and not is_step(e):
            x.kind = "op"
        else:
            x.kind = None
        evs.append(x)
    lo = {r: None for r in ranks}
    hi = dict(lo)
    if only is not None:
        for r in ranks:
            lo[r], hi[r] = 1, 0
        lo[only[0]], hi[only[0]] = only[1], only[2]
    elif step is not None:
        n, base = 1, step
        if not any(x.name == step for x in evs) and "#" in step:
            base, num = step.rsplit("#", 1)
            n = int(num)
        found = 0
        for r in ranks:
            named = sorted((x for x in evs if x.name == base and x.rk == r),
                           key=lambda x: (x.ts, x.seq))
            if 1 <= n <= len(named):
                lo[r], hi[r] = named[n - 1].ts, named[n - 1].ts + \
                    named[n - 1].dur
                found += 1
            else:
                lo[r], hi[r] = 1, 0
        if not found:
            return {"error": "unknown step"}
    for r in ranks:
        if tfrom is not None:
            lo[r] = tfrom
        if tto is not None:
            hi[r] = tto

    def inside(x):
        return (lo[x.rk] is None or x.ts >= lo[x.rk]) and \
            (hi[x.rk] is None or x.ts <= hi[x.rk])
    ops = [x for x in evs if x.kind == "op" and inside(x)]
    opseq = {x.seq for x in ops}
    launch = {}                     # corr -> host call op in the graph
    for x in ops:
        if x.corr is not None and host_call(x.e) and x.corr not in launch:
            launch[x.corr] = x
    devs = [x for x in evs if x.kind == "dev" and (x.corr in launch or (
        x.corr is None and COMM.search(x.name) and inside(x)))]
    syncs = [x for x in evs if x.kind == "sync" and x.corr in launch]
    synced = {x.corr for x in syncs}
    edges = collections.defaultdict(list)   # dest -> [(src, w, kind, attrib)]
    counts = collections.Counter()

    def edge(u, v, w, kind, att):
        if w < 0:
            counts["negative"] += 1
            w = 0
        edges[v].append((u, w, kind, att))

    def S(x):
        return 2 * x.seq

    def E(x):
        return 2 * x.seq + 1

    byseq = {x.seq: x for x in evs}

    def ts_of(node):
        x = byseq[node // 2]
        return x.ts + (x.dur if node % 2 else 0)

    # host lanes
    lanes = collections.defaultdict(list)
    for x in ops:
        lanes[x.lane].append(x)
    for lane in lanes.values():
        lane.sort(key=lambda x: (x.ts, -x.dur, x.seq))
        stack, last = [], None
        lasttop = None

        def leave():
            nonlocal last, lasttop
            x = stack.pop()
            lt = ts_of(last)
            w = 0 if BLOCKING.match(x.name) else x.ts + x.dur - lt
            edge(last, E(x), w, "op", x.seq)
            if not stack:
                last, lasttop = None, E(x)
            else:
                last = E(x)
        for x in lane:
            while stack and stack[-1].ts + stack[-1].dur <= x.ts:
                leave()
            if not stack and lasttop is not None:
                edge(lasttop, S(x), 0, "dep", None)
            if last is not None:
                edge(last, S(x), x.ts - ts_of(last), "op", stack[-1].seq
                     if stack else None)
            stack.append(x)
            last = S(x)
        while stack:
            leave()

    # launches on each stream, in ts order: for queues and event syncs
    pairs = [(launch[d.corr], d) for d in devs if d.corr is not None]
    queue_rt, queue_k = {}, {}
    bystream = collections.defaultdict(list)
    for r, d in pairs:
        bystream[d.lane].append((r.ts, 0, r.seq, d.seq, "r"))
        bystream[d.lane].append((d.ts, 1, d.seq, d.seq, "k"))
    launches = collections.defaultdict(list)    # stream -> [(ts, seq, dev)]
    for s, items in bystream.items():
        items.sort()
        q = 0
        for ts, o, _, dseq, what in items:
            q += 1 if what == "r" else -1
            (queue_rt if what == "r" else queue_k)[dseq] = q
    for r, d in pairs:
        launches[d.lane].append((r.ts, r.seq, d, r))
    for v in launches.values():
        v.sort(key=lambda t: (t[0], t[1]))
    records = {}
    for x in ops:
        if RECORD.match(x.name) and x.corr is not None:
            records.setdefault(x.corr, x)

    def before_record(stream, rcorr):
        rec = records.get(rcorr)
        if rec is None:
            return None
        best = None
        for ts, seq, d, r in launches.get(stream, ()):
            if ts < rec.ts:
                best = d
        return best

    used = {r.seq for r, d in pairs}
    counts["no_kernel"] = sum(1 for x in ops if host_call(x.e) and
                              LAUNCHING.match(x.name) and x.seq not in used)
    items = [(d.ts, d.seq, "k", d, None) for d in devs]
    # a rank with cuda_sync events takes no EventSynchronize by name
    rank_sync = {x.rk for x in evs if x.kind == "sync"}
    for s in syncs:
        items.append((s.ts + s.dur, s.seq, "s", s, s.name))
    for x in ops:
        if x.corr in synced or not host_call(x.e):
            continue
        if DEVSYNC.match(x.name):
            items.append((x.ts + x.dur, x.seq, "s", x, "Context Sync"))
        elif STRSYNC.match(x.name):
            items.append((x.ts + x.dur, x.seq, "s", x, "Stream Sync"))
        elif EVSYNC.match(x.name) and x.rk not in rank_sync:
            items.append((x.ts + x.dur, x.seq, "s", x, "Event Sync by name"))
    items.sort(key=lambda t: (t[0], t[1]))
    last = {}
    ksync = {}
    devlast = {}    # rank -> its device work that ends last so far

    def busy(x, r):
        """A kernel launched more than KK_MAX before its start, whose
        device had nothing running then and whose last kernel ended on
        another stream after the launch, at most KK_MAX before: that
        kernel (it waited for the device, not its launch), else None."""
        d = devlast.get(x.rk)
        if r is None or d is None or x.ts - r.ts <= KK_MAX:
            return None
        end = d.ts + d.dur
        if end > x.ts or x.ts - end > KK_MAX or end <= r.ts or \
                d.lane == x.lane:
            return None
        return d

    for _, _, what, x, sname in items:
        if what == "k":
            r = launch.get(x.corr)
            edge(S(x), E(x), x.dur, "dev", x.seq)
            b = busy(x, r)
            src = ksync.pop(x.seq, None)
            added = False
            if src is not None:
                edge(E(src), S(x), 0, "sync", x.seq)
                added = True
            ls = last.get(x.lane) if r is not None else \
                device_before(devs, x)
            if (r is not None and queue_rt[x.seq] == 1 and
                    queue_k[x.seq] == 0 and
                    (ls is None or ls.ts + ls.dur < r.ts) and
                    (src is None or src.ts + src.dur < r.ts)):
                if b is not None:
                    edge(E(b), S(x), x.ts - b.ts - b.dur, "wait", b.seq)
                else:
                    edge(S(r), S(x), x.ts - r.ts, "launch", r.seq)
                added = True
            elif ls is not None and (src is None or
                                     src.ts + src.dur < ls.ts + ls.dur):
                if r is None or x.ts - ls.ts - ls.dur <= KK_MAX:
                    edge(E(ls), S(x), x.ts - ls.ts - ls.dur, "wait", ls.seq)
                elif b is not None:
                    edge(E(b), S(x), x.ts - b.ts - b.dur, "wait", b.seq)
                else:
                    edge(S(r), S(x), x.ts - r.ts, "launch", r.seq)
                added = True
            if not added:
                counts["no_edge"] += 1
            last[x.lane] = x
            d = devlast.get(x.rk)
            if d is None or x.ts + x.dur > d.ts + d.dur:
                devlast[x.rk] = x
            continue
        # a sync: the host call it ends
        if x.kind == "sync":
            call = launch[x.corr]
        else:
            call = x
        if call.seq not in opseq:
            continue
        if sname == "Context Sync":
            srcs = [last[k] for k in last if k[0] == call.rk]
        elif sname == "Stream Sync":
            if x.kind == "sync":
                srcs = [last.get(x.lane)]
            else:
                srcs = [last.get(thread_stream(launches, call))]
        elif sname == "Event Sync by name":
            srcs = [record_kernel(ops, pairs, call)]
        elif sname in ("Event Sync", "Stream Wait Event"):
            a = x.e.get("args", {})
            ws = a.get("wait_on_stream")
            rc = a.get("wait_on_cuda_event_record_corr_id")
            src = None if ws is None or rc is None else \
                before_record((x.rk, x.lane[1], text(ws)), (x.rk, text(rc)))
            if src is None:
                counts["no_source"] += 1
                continue
            if sname == "Event Sync":
                srcs = [src]
            else:
                dest = None
                for ts, seq, d, r in launches.get(x.lane, ()):
                    if r.lane == call.lane and ts > call.ts:
                        dest = d
                        break
                if dest is not None:
                    ksync[dest.seq] = src
                continue
        else:
            continue
        if not srcs or srcs[0] is None:
            counts["no_source"] += 1
        for s in srcs:
            if s is not None:
                edge(E(s), E(call), 0, "sync", call.seq)
    for v, lst in edges.items():
        for i, (u, w, k, a) in enumerate(lst):
            if k in ("op", "dev") and a is not None and byseq[a].f != 1:
                lst[i] = (u, int(w * byseq[a].f), k, a)
    if len(ranks) > 1:
        collectives(devs, ranks, edge, edges)
    return longest(edges, ops, devs, counts, byseq)


def device_before(devs, x):
    """A collective without launch follows its device's work: the kernel
    of its rank and pid that ended last at or before its start (then the
    later in the input)."""
    best = None
    for p in devs:
        if p is x or p.ts + p.dur > x.ts or p.lane[:2] != x.lane[:2]:
            continue
        if best is None or (p.ts + p.dur, p.seq) > (best.ts + best.dur,
                                                    best.seq):
            best = p
    return best


def collectives(devs, ranks, edge, edges):
    """The n-th communication kernel of a name on each rank is one
    collective: from the start of the rank that came last (latest start,
    then the rank seen first) to each other rank's end.  An earlier rank's
    kernel counts its own time from that start only (its wait is on no
    path)."""
    calls = collections.defaultdict(list)
    for x in devs:
        if COMM.search(x.name):
            calls[(x.name, x.rk)].append(x)
    names = sorted({n for n, r in calls})
    for name in names:
        per = {r: sorted(calls.get((name, r), []), key=lambda x: (x.ts, x.seq))
               for r in ranks}
        for i in range(max(len(v) for v in per.values())):
            got = [(ranks.index(r), per[r][i]) for r in ranks
                   if i < len(per[r])]
            if len(got) < 2:
                continue
            last = max(got, key=lambda t: (t[1].ts, -t[0]))[1]
            for _, x in got:
                if x is not last:
                    edge(2 * last.seq, 2 * x.seq + 1,
                         x.ts + x.dur - last.ts, "coll", x.seq)
                    cap = max(0, x.ts + x.dur - last.ts)
                    own = edges[2 * x.seq + 1]
                    for k, (u, w, kind, a) in enumerate(own):
                        if kind == "dev" and u == 2 * x.seq and w > cap:
                            own[k] = (u, cap, kind, a)


def record_kernel(ops, pairs, call):
    """The kernel of the thread's last launch before its latest
    ...EventRecord that starts before the call (None: none)."""
    recs = [r for r in ops if RECORD.match(r.name) and r.lane == call.lane
            and r.ts < call.ts]
    if not recs:
        return None
    rec = max(recs, key=lambda r: (r.ts, r.seq))
    best, bt = None, None
    for r, d in pairs:
        if r.lane == call.lane and r.ts < rec.ts and \
                (bt is None or (r.ts, r.seq) > bt):
            best, bt = d, (r.ts, r.seq)
    return best


def thread_stream(launches, call):
    """The stream of the thread's last launch before the call."""
    best, bt = None, None
    for s, v in launches.items():
        for ts, seq, d, r in v:
            if r.lane == call.lane and ts < call.ts and \
                    (bt is None or (ts, seq) > bt):
                best, bt = s, (ts, seq)
    return best


RANK = {"op": 0, "dep": 0, "dev": 1, "launch": 2, "wait": 3, "sync": 4,
        "coll": 1}


def longest(edges, ops, devs, counts, byseq):
    nodes = set()
    for x in ops + devs:
        nodes.add(2 * x.seq)
        nodes.add(2 * x.seq + 1)
    succ = collections.defaultdict(list)
    indeg = collections.Counter()
    for v, lst in edges.items():
        for u, w, k, a in lst:
            succ[u].append(v)
            indeg[v] += 1
    ready = [n for n in nodes if indeg[n] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        n = heapq.heappop(ready)
        order.append(n)
        for v in succ[n]:
            indeg[v] -= 1
            if indeg[v] == 0:
                heapq.heappush(ready, v)
    if len(order) != len(nodes):
        return {"error": "cycle", "cycle": len(nodes) - len(order)}
    dist, pred = {}, {}
    for v in order:
        best = None
        for u, w, k, a in edges.get(v, ()):
            c = (dist[u] + w, -RANK[k], -u)
            if best is None or c > best[0]:
                best = (c, (u, w, k, a))
        if best is None:
            dist[v], pred[v] = 0, None
        else:
            dist[v], pred[v] = best[0][0], best[1]
    if not order:
        return {"length": 0, "nodes": 0, "events": [], "segs": [],
                "breakdown": {}, "counts": dict(counts)}
    end = min(order, key=lambda n: (-dist[n], n))
    path, n = [end], end
    segs = []
    while pred[n] is not None:
        u, w, k, a = pred[n]
        segs.append((u, n, w, k, a))
        path.append(u)
        n = u
    path.reverse()
    segs.reverse()
    out = []
    for u, v, w, k, a in segs:
        if k == "dep":
            continue
        if k in ("op", "dev", "coll"):
            x = byseq[a] if a is not None else None
            if x is None:
                kind = "host"
            elif x.kind == "dev":
                kind = "comm" if COMM.search(x.name) else "kernel"
            else:
                kind = "host"
        else:
            kind = {"launch": "launch", "wait": "kernel-wait",
                    "sync": "sync"}[k]
        if out and out[-1][0] == a and out[-1][1] == kind:
            out[-1][2] += w
        else:
            out.append([a, kind, w])
    bd = collections.Counter()
    for a, kind, w in out:
        bd[kind] += w
    flows = collections.Counter(k for u, v, w, k, a in segs
                                if k in ("dep", "launch", "sync", "coll"))
    return {"length": dist[end], "nodes": len(path), "flows": dict(flows),
            "events": sorted({n // 2 for n in path}), "segs": out,
            "breakdown": dict(bd), "counts": dict(counts),
            "start": min(n for n in path), "end": end}


ORIGIN = [0]     # the trace's, for --from-rel and --to-rel


def parse(argv):
    step = tfrom = tto = None
    scale = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--step":
            step = argv[i + 1]
        elif a == "--from":
            tfrom = int(argv[i + 1])
        elif a == "--to":
            tto = int(argv[i + 1])
        elif a == "--from-rel":
            tfrom = ORIGIN[0] + int(argv[i + 1])
        elif a == "--to-rel":
            tto = ORIGIN[0] + int(argv[i + 1])
        elif a == "--scale":
            rx, f = argv[i + 1].rsplit("=", 1)
            scale.append((re.compile(rx), float(f)))
        i += 2
    return step, tfrom, tto, scale


def is_step(e):
    """A training step: ProfilerStep#N off the device lanes, not the GPU's
    copy of the annotation."""
    return e.get("ph") == "X" and isinstance(e.get("ts"), int) and \
        phases_oracle.is_step(e) and not phases_oracle.on_device_lane(e)


def steps(events, scale):
    """--steps all: a row per step of the job, in ts order of its
    earliest event (ties in input order).  Each name's first event (by
    ts, then seq) on each rank is one step, analysed as --step NAME (all
    its ranks' windows); a later event of the name on a rank, a step of
    that rank alone.  With several ranks, a last line "partial N" when N
    steps lack a rank."""
    def rank(e):
        r = e.get("rank")
        return r if isinstance(r, int) and not isinstance(r, bool) else None
    ranks = {rank(e) for e in events
             if e.get("ph") == "X" and isinstance(e.get("ts"), int)}
    st = sorted((e["name"], ranks_key(rank(e)), e["ts"], i)
                for i, e in enumerate(events) if is_step(e))
    jobs = []                       # (ts, seq, name, [seq...], whole)
    for name, grp in itertools.groupby(st, key=lambda t: t[0]):
        first, seen = [], set()
        for _, rk, ts, i in grp:
            if rk in seen:
                jobs.append((ts, i, name, [i], False))
            else:
                seen.add(rk)
                first.append((ts, i))
        ts, i = min(first)
        jobs.append((ts, i, name, [i for _, i in first], True))
    out, partial = [], 0
    for ts, i, name, mem, whole in sorted(jobs):
        if whole and len(mem) > 1:
            r = analyse(events, name, None, None, scale)
        else:
            e = events[mem[0]]
            d = e.get("dur") if isinstance(e.get("dur"), int) else 0
            r = analyse(events, None, None, None, scale,
                        (rank(e), e["ts"], e["ts"] + d))
        partial += whole and len(mem) < len(ranks)
        if "error" in r:
            continue
        bd = collections.Counter()
        for a, kind, w in r["segs"]:
            bd[kind] += w
        out.append("step\t%s\t%d\t%s" % (name, r["length"], "\t".join(
            str(bd[k]) for k in ("host", "kernel", "comm", "launch",
                                 "kernel-wait"))))
    if len(ranks) > 1 and partial:
        out.append("partial %d" % partial)
    return out


def ranks_key(r):
    """A rank as a key that sorts (None first)."""
    return (-1, 0) if r is None else (0, r)


def tsv(t):
    """A text as mct's -o tsv writes it."""
    return t.replace("\\", "\\\\").replace("\t", "\\t").replace(
        "\n", "\\n").replace("\r", "\\r")


def median(events, spec):
    """--steps median: the step of the rows' median path, the lower of
    the two middle ones, rows ordered by crit and then by the bytes of
    their "NAME<TAB>CRIT" line (sort -k2,2n under LC_ALL=C); a line
    "median NAME" (or "median" with no row), then --step NAME's block."""
    rest = spec.split("\t")[2:]
    rows = []
    for line in steps(events, parse(rest)[3]):
        if not line.startswith("step\t"):
            continue
        _, name, crit = line.split("\t")[:3]
        rows.append((int(crit), (tsv(name) + "\t" + crit).encode(), name))
    rows.sort()
    if not rows:
        return ["median"] + block(events, "\t".join(rest))
    name = rows[(len(rows) - 1) // 2][2]
    return ["median " + tsv(name)] + block(
        events, "\t".join(["--step", name] + rest))


def block(events, spec):
    """What mct-path says of one question, as text."""
    if spec.startswith("--steps\tall"):
        return steps(events, parse(spec.split("\t")[2:])[3])
    if spec.startswith("--steps\tmedian"):
        return median(events, spec)
    r = analyse(events, *parse(spec.split("\t") if spec else []))
    if "error" in r:
        return [r["error"] + (" %d" % r["cycle"] if "cycle" in r else "")]
    c = r["counts"]
    out = ["summary %d %d %d %d %d %d %d" % (
        r["length"], len(r["events"]), r["nodes"], c.get("negative", 0),
        c.get("no_kernel", 0), c.get("no_source", 0), c.get("no_edge", 0))]
    nseg = collections.Counter()
    for a, kind, w in r["segs"]:
        name = text(events[a].get("name", "")) if a is not None \
            else "(thread)"
        out.append("seg\t%s\t%d\t%s" % (kind, w, name))
        nseg[kind] += 1
    for k in ("host", "kernel", "comm", "launch", "kernel-wait", "sync"):
        if nseg[k]:
            out.append("bound\t%s\t%d\t%d" % (k, r["breakdown"][k], nseg[k]))
    for k, t in (("dep", "dependency"), ("launch", "kernel_launch_delay"),
                 ("sync", "sync_dependency"), ("coll", "collective")):
        if r["flows"].get(k):
            out.append("flows\tcritical_path_%s\t%d" % (t, r["flows"][k]))
    for s in r["events"]:
        out.append("critical\t%s\t%d" % (text(events[s].get("name", "")),
                                          events[s]["ts"]))
    return out


def main(argv):
    """FILE [SPEC...]: SPEC is mct-path's options, tab-separated ("" the
    whole trace); --json SPEC: the analysis as JSON."""
    if argv[0] == "--json":
        _, events = oracle.read_all([argv[2]], None)
        r = analyse(events, *parse(argv[1].split("\t") if argv[1] else []))
        if "events" in r:
            r["named"] = sorted([text(events[s].get("name", "")),
                                 events[s]["ts"], events[s].get("dur", 0)]
                                for s in r["events"])
        print(json.dumps(r, sort_keys=True))
        return
    paths = [os.path.join(argv[0], f) for f in sorted(os.listdir(argv[0]))] \
        if os.path.isdir(argv[0]) else [argv[0]]
    head, events = oracle.read_all(paths, None)
    ORIGIN[0] = head["origin"] or 0
    for spec in argv[1:] or [""]:
        print("== " + spec.replace("\t", " "))
        for line in block(events, spec):
            print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
