#!/usr/bin/env python3
"""ranks_partial_oracle.py - checks an mct-ranks partial against python3.

Usage:
  ranks_partial_oracle.py state [--rank R] PARTIAL STREAM...
        PARTIAL (mct-ranks -o partial) must hold, for every rank of the
        streams (read as ranks_oracle.py reads them; --rank R gives a
        single stream's events rank R), the rank's line: start, end (first
        start, last end of its device events), busy, compute, comm, kernel,
        memory (unions of intervals), rounds and round (the steady rounds and their
        median time) and origin (the smallest ts of its events, M events
        aside: its trace's); then its collective calls, in time order:
        name, n (the rank's n-th call of that name), ts, dur.  Its header
        must be of version 1 with the streams' origin (their smallest ts),
        its end line must count its lines.  Prints what it checked; exit 1
        on the first difference, saying it.
"""
import json
import re
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ranks_oracle  # noqa: E402


def fail(msg):
    print("ranks_partial_oracle: " + msg)
    sys.exit(1)


def origins(paths, rank):
    """The smallest ts of the streams' events, M events aside: of all of
    them, and of each rank's (a rank's trace's origin)."""
    best, of = None, {}
    for i, path in enumerate(paths):
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            for line in f:
                e = json.loads(line)
                ts = e.get("ts")
                if e.get("ph") == "M" or not isinstance(ts, int):
                    continue
                r = rank if rank is not None else \
                    e.get("rank", i if len(paths) > 1 else 0)
                if best is None or ts < best:
                    best = ts
                if r not in of or ts < of[r]:
                    of[r] = ts
    return best, of


def expected(paths, rank):
    _, origin = origins(paths, rank)
    ranks, _ = ranks_oracle.read(paths)
    if rank is not None:
        if len(ranks) != 1:
            fail("--rank wants a single rank's stream")
        ranks = {rank: list(ranks.values())[0]}
    want = {}
    for r, rk in ranks.items():
        if not rk.dev:
            continue
        calls, nth = [], {}
        for d in rk.dev:
            if d[4]:
                nth[d[3]] = nth.get(d[3], 0) + 1
                calls.append({"call": d[3], "n": nth[d[3]], "ts": d[0],
                              "dur": d[1]})
        f = ranks_oracle.figures(rk)
        want[r] = ({"start": rk.origin, "end": rk.tend, "busy": f["busy"],
                    "compute": f["compute"], "comm": f["comm"],
                    "kernel": f["kernel"], "memory": f["memory"],
                    "rounds": f["rounds"], "round": f["round"],
                    "origin": origin[r]}, calls)
    return want


def cmd_state(args):
    rank = None
    if args[:1] == ["--rank"]:
        rank = int(args[1])
        args = args[2:]
    partial, paths = args[0], args[1:]
    want = expected(paths, rank)
    with open(partial, encoding="utf-8", errors="surrogateescape") as f:
        lines = [json.loads(x) for x in f]
    head, end, body = lines[0], lines[-1], lines[1:-1]
    if head.get("mct_ranks_partial") != 1:
        fail("no header of version 1: %r" % head)
    origin, _ = origins(paths, rank)
    if head.get("origin") != origin:
        fail("origin %r, want %r" % (head.get("origin"), origin))
    parts = end.pop("parts", None)
    if end != {"mct_ranks_partial_end": len(body)}:
        fail("end line %r, want %d lines" % (end, len(body)))
    # what it summarises: per partial a host, a digest, its sources
    if not parts or any(sorted(x) != ["digest", "host", "sources"] or
                        not re.fullmatch("[0-9a-f]{16}", x["digest"])
                        for x in parts):
        fail("end line's parts %r: want host, digest, sources" % parts)
    got, cur = {}, None
    for x in body:
        if "call" in x:
            if cur is None or x["rank"] != cur:
                fail("a call away from its rank's line: %r" % x)
            got[cur][1].append({k: x[k] for k in ("call", "n", "ts", "dur")})
        else:
            cur = x["rank"]
            if cur in got:
                fail("rank %r twice" % cur)
            got[cur] = ({k: v for k, v in x.items() if k != "rank"}, [])
    if sorted(got) != sorted(want):
        fail("ranks %r, want %r" % (sorted(got), sorted(want)))
    ncalls = 0
    for r in want:
        if got[r][0] != want[r][0]:
            fail("rank %r: %r, want %r" % (r, got[r][0], want[r][0]))
        if got[r][1] != want[r][1]:
            fail("rank %r: calls %r, want %r" % (r, got[r][1][:3],
                                                 want[r][1][:3]))
        ncalls += len(want[r][1])
    print("ok: %d ranks, %d collective calls" % (len(want), ncalls))


def main():
    if len(sys.argv) < 4 or sys.argv[1] != "state":
        sys.stderr.write(__doc__)
        sys.exit(2)
    cmd_state(sys.argv[2:])


main()
