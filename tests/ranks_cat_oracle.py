#!/usr/bin/env python3
"""ranks_cat_oracle.py - what mct-cat must write for the ranks of a job (mct(7)),
computed with python's json, for tests/ranks-cat.bats.

The traces are read by tests/oracle.py's Trace (python's json, exact
decimals); nothing here shares code or logic with mct.  The rules, from
mct-cat(1):

  rank     with --rank=N the operand's rank is N; with --rank=order its
           position; otherwise (auto) its top-level distributedInfo.rank,
           else the number after "rank" in its file name, else its position
           (oracle.rank_of).  Every event gets "rank" as its last key.
  align    start: each operand is shifted so that its smallest ts (M events
           aside) is the smallest of all operands'; NAME (a glob): so that
           its earliest event (with a ts, not M) whose name matches starts
           at the earliest of them.  ts += shift; dur is left alone.
  merge    all events in one order: by key, then rank, then operand, then
           place in the operand, where the key of an event is its ts, or,
           for an M event or one without an integer ts, the key of the
           event before it in its operand (the smallest possible first).

Subcommands:

  check [--rank R] [--align A] [--merge] STREAM FILE...
        STREAM (mct-cat's output on the FILEs) has the events and the
        header ranks (path, rank, rank_from, unit, origin, shift, top)
        these rules give; with --merge, ts never decreases.
  shifts [--align A] FILE...
        the lines mct-cat --align writes on stderr
  wrap TRACE STREAM
        TRACE (mct-cat --wrap of the multi-rank STREAM) is strict JSON with
        STREAM's events in order (a rank's process_sort_index aside), each
        rank's pids and flow ids its own, a name "rank R \u00b7 ..." and one
        sort index in [R*10^7, (R+1)*10^7) for every process, in the order
        of the process's own sort index in its rank; prints the number of
        processes
  phases A B RANK
        mct-phases records A (of several ranks) of rank RANK equal the
        records B (of that rank alone), the rank and the times relative to
        the origin (start, end) aside
  flows STREAM
        mct-flow's records in STREAM: every launch is of its device
        event's rank; prints rank<TAB>launch.name<TAB>name<TAB>latency<TAB>
        queue for each, sorted

Exit status 0 when the check holds, 1 with the first difference on stderr.
"""

import fnmatch
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (tests/oracle.py: Trace, units, the stream)

PID_STRIDE = 10000000
ID_STRIDE = 10 ** 12


def die(msg):
    sys.stderr.write("ranks_oracle: %s\n" % msg)
    sys.exit(1)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def mark_of(evs, glob):
    ts = [e["ts"] for e in evs if e.get("ph") != "M" and is_int(e.get("ts"))
          and isinstance(e.get("name"), str)
          and fnmatch.fnmatchcase(e["name"], glob)]
    return min(ts) if ts else None


def expect(files, rank=None, align="none", merge=False):
    """The ranks list of the header and the events, as mct-cat writes them."""
    srcs = []
    for i, p in enumerate(files):
        t = oracle.Trace(p)
        u, why = oracle.detect_unit(t, "auto")
        evs = [oracle.convert(e, u) for e in t.events]
        if rank == "order":
            r, rule = i, "order"
        elif rank not in (None, "auto"):
            r, rule = int(rank), "option"
        else:
            r, rule = oracle.rank_of(t, p, i)
        srcs.append({"path": p, "rank": r, "rank_from": rule, "unit": u,
                     "unit_from": why, "origin": oracle.origin_of(evs),
                     "shift": 0, "top": dict(t.top), "evs": evs})
    if align == "start":
        at = [s["origin"] for s in srcs]
    elif align != "none":
        at = [mark_of(s["evs"], align) for s in srcs]
        if None in at:
            die("a file has no event named %s" % align)
    if align != "none":
        target = min(a for a in at if a is not None)
        for s, a in zip(srcs, at):
            s["shift"] = target - a if a is not None else 0
    ranked = rank is not None or len(files) > 1
    out = []
    for i, s in enumerate(srcs):
        key = None
        for n, e in enumerate(s["evs"]):
            if s["shift"] and is_int(e.get("ts")):
                e["ts"] += s["shift"]
            if ranked:
                e["rank"] = s["rank"]
            if e.get("ph") != "M" and is_int(e.get("ts")):
                key = e["ts"]
            k = (key is not None, key if key is not None else 0)
            out.append(((k, s["rank"], i, n), e))
    if merge:
        out.sort(key=lambda x: x[0])
    ranks = [{k: v for k, v in s.items() if k != "evs"} for s in srcs]
    return ranks, [e for _, e in out]


def opts(args, names):
    o = {}
    while args and args[0].startswith("--"):
        a = args.pop(0)
        if a == "--merge":
            o["merge"] = True
        elif a[2:] in names:
            o[a[2:]] = args.pop(0)
        else:
            die("unknown option %s" % a)
    return o


def cmd_check(args):
    o = opts(args, ("rank", "align"))
    stream, files = args[0], args[1:]
    ranks, want = expect(files, o.get("rank"), o.get("align", "none"),
                         o.get("merge", False))
    got = oracle.read_stream(stream)
    if not got or not oracle.is_header(got[0]):
        die("%s: no header line" % stream)
    h = got[0]["args"]
    if oracle.canon(h.get("ranks")) != oracle.canon(ranks):
        die("header ranks differ:\n  want %s\n  got  %s" %
            (oracle.ser(ranks), oracle.ser(h.get("ranks"))))
    if o.get("merge") and h.get("sorted") is not True:
        die("--merge: the header does not say sorted")
    origins = [r["origin"] + r["shift"] for r in ranks if r["origin"] is not None]
    if h.get("origin") != (min(origins) if origins else None):
        die("header origin %s, want %s" % (h.get("origin"), min(origins)))
    oracle.same_events(want, got[1:])
    if o.get("merge"):
        last = None
        for i, e in enumerate(got[1:]):
            if e.get("ph") != "M" and is_int(e.get("ts")):
                if last is not None and e["ts"] < last:
                    die("event %d: ts %d after %d" % (i + 1, e["ts"], last))
                last = e["ts"]


def cmd_shifts(args):
    o = opts(args, ("align",))
    ranks, _ = expect(args, None, o.get("align", "none"))
    for r in ranks:
        print("mct-cat: --align %s: rank %d (%s) shifted by %d ns" %
              (o.get("align", "none"), r["rank"], r["path"], r["shift"]))


def own(v, r, stride, pre, sep):
    """A rank's own pid or id: r * stride + v, or the string pre r sep v."""
    if is_int(v) and 0 <= v < stride:
        return r * stride + v
    return "%s%d%s%s" % (pre, r, sep, v)


def cmd_wrap(args):
    with open(args[0], "rb") as f:
        try:
            doc = oracle.loads(f.read().decode("utf-8"))
        except ValueError as e:
            die("%s: not strict JSON: %s" % (args[0], e))
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    stream = [e for e in oracle.read_stream(args[1]) if not oracle.is_header(e)]
    procs = {}           # pid in the trace -> rank
    sort_own = {}        # pid in the trace -> its own first sort index
    want_evs = []
    for s in stream:
        r = s.get("rank")
        want = dict(s)
        if is_int(r) and "pid" in s:
            want["pid"] = own(s["pid"], r, PID_STRIDE, "rank ", " ")
            if procs.setdefault(want["pid"], r) != r:
                die("pid %s is in ranks %d and %d" % (want["pid"], procs[want["pid"]], r))
        if is_int(r) and s.get("ph") != "M":
            for k in ("id", "bind_id"):
                if k in s:
                    want[k] = own(s[k], r, ID_STRIDE, "", ":")
        if is_int(r) and s.get("ph") == "M" and s.get("name") == "process_sort_index":
            a = s.get("args")
            if isinstance(a, dict) and is_int(a.get("sort_index")) and "pid" in s:
                sort_own.setdefault(want["pid"], a["sort_index"])
            continue     # written anew at the end
        if is_int(r) and s.get("ph") == "M" and s.get("name") == "process_name" \
                and isinstance(s.get("args"), dict) and isinstance(s["args"].get("name"), str):
            want["args"] = dict(s["args"], name="rank %d \u00b7 %s" % (r, s["args"]["name"]))
        want_evs.append(want)
    for i, (w, g) in enumerate(zip(want_evs, evs)):
        # ts and dur are in the trace's unit: compared elsewhere
        w = {k: v for k, v in w.items() if k not in ("ts", "dur")}
        g = {k: v for k, v in g.items() if k not in ("ts", "dur")}
        if oracle.canon(g) != oracle.canon(w):
            die("event %d:\n  want %s\n  got  %s" % (i + 1, oracle.ser(w), oracle.ser(g)))
    named, sort = {}, {}
    for e in evs[len(want_evs):]:
        if e.get("ph") != "M":
            die("an event after the stream's that is not M: %s" % oracle.ser(e))
    for e in evs:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            named[e.get("pid")] = e["args"]["name"]
        if e.get("ph") == "M" and e.get("name") == "process_sort_index":
            if e.get("pid") in sort and e.get("pid") in procs:
                die("process %s has two sort indexes" % e.get("pid"))
            sort[e.get("pid")] = e["args"]["sort_index"]
    for p, r in procs.items():
        if not named.get(p, "").startswith("rank %d \u00b7 " % r):
            die("process %s of rank %d is named %r" % (p, r, named.get(p)))
        if not (r * PID_STRIDE <= sort.get(p, -1) < (r + 1) * PID_STRIDE):
            die("process %s of rank %d has sort index %r" % (p, r, sort.get(p)))
    # in a rank, the processes keep the order of their own sort indexes
    for p in sort_own:
        for q in sort_own:
            if procs[p] == procs[q] and sort_own[p] < sort_own[q] and sort[p] >= sort[q]:
                die("processes %s and %s: sort indexes %d, %d, were %d, %d" %
                    (p, q, sort[p], sort[q], sort_own[p], sort_own[q]))
    flows = {}
    for e in evs:
        if e.get("ph") in ("s", "t", "f") and "id" in e:
            key = (e.get("cat"), e["id"])
            r = procs.get(e.get("pid"))
            if flows.setdefault(key, r) != r:
                die("flow %s joins ranks %s and %s" % (key, flows[key], r))
    print(len(procs))


def cmd_phases(args):
    a = [e for e in oracle.read_stream(args[0]) if not oracle.is_header(e)
         and e.get("ph") != "M" and e.get("rank") == int(args[2])]
    b = [e for e in oracle.read_stream(args[1]) if not oracle.is_header(e)
         and e.get("ph") != "M"]
    drop = ("rank", "start", "end")
    a = [{k: v for k, v in e.items() if k not in drop} for e in a]
    b = [{k: v for k, v in e.items() if k not in drop} for e in b]
    if not b:
        die("no records for rank %s alone" % args[2])
    oracle.same_events(b, a)


def cmd_flows(args):
    rows = []
    for e in oracle.read_stream(args[0]):
        if oracle.is_header(e) or e.get("ph") == "M":
            continue
        r, lr = e.get("rank"), e.get("launch", {}).get("rank")
        if r != lr:
            die("a pair crosses ranks: rank %s, its launch's %s" % (r, lr))
        rows.append("%s\t%s\t%s\t%d\t%d" % (r, e["launch"]["name"], e["name"],
                                            e["latency"], e["queue"]))
    for row in sorted(rows):
        print(row)


def main():
    cmds = {"check": cmd_check, "shifts": cmd_shifts, "wrap": cmd_wrap,
            "phases": cmd_phases, "flows": cmd_flows}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        sys.stderr.write(__doc__)
        sys.exit(2)
    cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
