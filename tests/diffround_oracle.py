#!/usr/bin/env python3
"""diffround_oracle.py - are two runs' steady rounds alike, for the tests.

  diffround_oracle.py A B     (A and B mct streams: mct-cat's output)

mct-diff(1) compares the number and the median time of two runs' steady
rounds only where the rounds are alike: of the same kinds, profiler steps
or the calls of the same signatures.  This finds each run's steady phases
with phases_oracle.py (mct-phases' method written again in python3, json
only), takes the kind of each steady phase's rounds (profiler steps for a
run of ProfilerStep#N, else the signature of its heaviest anchor, the
first of the heaviest) and prints one JSON object:

  {"alike": true or false,
   "a": [{"key": SIGNATURE or null (profiler steps), "rounds": N}, ...],
   "b": [...],
   "note": the line mct-diff writes under its summary (--width 0, -o
           table), or null when the runs are alike or one has no rounds}

the kinds of a run as mct-diff's rounds_of_a and rounds_of_b list them:
profiler steps first, then by the signature's bytes.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phases_oracle  # noqa: E402


def kinds(path):
    """The kinds of the run's steady rounds: {key: rounds}, key None for
    profiler steps."""
    t = phases_oracle.Trace(path)
    out = {}
    for p in phases_oracle.find_phases(t):
        if p["kind"] != "steady" or p["rounds"] <= 0:
            continue
        if "steps" in p:
            k = None
        else:
            k = None
            best = None
            for sig, (calls, total) in p["anchors"].items():
                if best is None or total > best:
                    k, best = sig, total
        out[k] = out.get(k, 0) + p["rounds"]
    return out


def order(k):
    return (k is not None, b"" if k is None else
            k.encode("utf-8", "surrogateescape"))


def named(mine, other):
    """The kind to name: of those other lacks, else of all, the one of the
    most rounds, the first in order among equals."""
    for pool in ([k for k in mine if k not in other], list(mine)):
        if pool:
            pool.sort(key=order)
            return max(pool, key=lambda k: mine[k])   # the first of the most
    return None


def desc(mine, other):
    k = named(mine, other)
    s = "profiler steps" if k is None else "calls of " + k
    more = len(mine) - 1
    if more:
        s += " and %d other kind%s" % (more, "s" if more > 1 else "")
    return s


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: diffround_oracle.py A B")
    a, b = kinds(sys.argv[1]), kinds(sys.argv[2])
    alike = sorted(a, key=order) == sorted(b, key=order)
    note = None
    if a and b and not alike:
        note = "steady rounds, median round: A's rounds are %s, B's %s: " \
            "not compared" % (desc(a, b), desc(b, a))
    print(json.dumps({
        "alike": alike,
        "a": [{"key": k, "rounds": a[k]} for k in sorted(a, key=order)],
        "b": [{"key": k, "rounds": b[k]} for k in sorted(b, key=order)],
        "note": note}, ensure_ascii=False))


if __name__ == "__main__":
    main()
