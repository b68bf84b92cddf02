#!/usr/bin/env python3
"""step_oracle.py - the events of each profiler step, for mct-filter --step.

Reads an mct stream (mct-cat's output: a header line, then one event a
line, ts and dur integer ns) with python3's json module and nothing of
mct.  A step is an event that can be one (phases_oracle.is_step_event:
an X event of the host, of any cat but the GPU's copy's,
gpu_user_annotation, or none) named NAME#N (ProfilerStep by default,
--name NAME).  A host event is in step N when,
of the step annotations of its thread (rank, pid, tid) that hold it
(start <= its ts, its ts + dur <= end), the innermost (the latest start,
then the earliest end) is NAME#N.  Device work with a correlation id
(args.correlation or args.co_id) is in the step of its launch: the first
host call (cat ending in runtime or driver, any case; no cat and pid 1)
of that id, whose step is found on its thread, else on its process.
Device work is as phases_oracle.on_device_lane says.  Events without ts,
and M events, are in no step.

A trace with no step annotation at all whose device work is mcTracer's
(some X event on a device lane with no cat and an args.co_id) has
mct-phases' rounds for steps, its device work all cut, found here by phases_oracle.py's own six steps (default
knobs; one rank); another producer's trace without annotations has no
steps.  The rounds: in each steady phase, in time order, the calls of its
heaviest anchor (largest total, the first of equals) that start in it cut
it into rounds, the first from the phase's start, each to the next call's
start (a call at the same start cuts nothing), the last to the phase's
end; numbered from 1 over the trace.  An event (host or device alike) is
in the round whose [start, end) holds its ts, else in none.

Usage:
  step_oracle.py [--name NAME] STREAM
        one JSON object: for each step N, {"count": events, "md5": the
        md5 of their lines "ts<TAB>dur<TAB>pid<TAB>tid<NL>" in input order
        (dur empty when the event has none)}.
  step_oracle.py [--name NAME] --group STREAM
        for mct-group --by step,name: a line STEP<TAB>NAME<TAB>count<TAB>
        total dur a group (events with a name; the total empty when none
        has a dur), sorted.
  step_oracle.py [--name NAME] --all STREAM
        every answer in one JSON object: "steps" (the first form's),
        "group" (the second form's lines), "rounds" ([N, start, end] a
        round, absolute ns; empty with step annotations), "phase_rounds"
        (the rounds of each steady phase, as mct-phases counts them) and
        "pairs" ({N: {name: [count, total dur]}} of the device work with
        a launch: what mct-diff --step N compares).
"""
import hashlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phases_oracle  # noqa: E402


_COMPACT = json.JSONEncoder(separators=(",", ":")).encode


def text(v):
    return v if isinstance(v, str) else _COMPACT(v)


def is_host_call(e):
    cat = e.get("cat")
    if cat is None:
        return str(e.get("pid")) == "1"
    if not isinstance(cat, str):
        return False
    c = cat.lower()
    return c.endswith("runtime") or c.endswith("driver")


def corr(e):
    a = e.get("args")
    if not isinstance(a, dict):
        return None
    for k in ("correlation", "co_id"):
        if k in a:
            return (text(e.get("rank", "")), text(a[k]))
    return None


def times(e):
    ts = e.get("ts")
    if not isinstance(ts, int):
        return None
    d = e.get("dur")
    return ts, ts + (d if isinstance(d, int) and d >= 0 else 0)


def rounds_of(path):
    """mct-phases' rounds of the stream: [N, start, end], and the rounds
    of each steady phase."""
    t = phases_oracle.Trace(path)
    out, per = [], []
    for p in phases_oracle.find_phases(t):
        if p["kind"] != "steady" or not p["anchors"]:
            continue
        items = list(p["anchors"].items())
        sig = max(items, key=lambda a: a[1][1])[0]
        starts = [p["start"]]
        calls = [d[0] for d in t.dev
                 if d[2] == sig and p["start"] <= d[0] < p["end"]]
        for ts in calls[1:]:
            if ts != starts[-1]:
                starts.append(ts)
        per.append(p["rounds"])
        for i, a in enumerate(starts):
            b = starts[i + 1] if i + 1 < len(starts) else p["end"]
            out.append([len(out) + 1, a, b])
    return out, per


def main(argv):
    name = "ProfilerStep"
    if argv[:1] == ["--name"]:
        name, argv = argv[1], argv[2:]
    group = argv[:1] == ["--group"]
    every = argv[:1] == ["--all"]
    if group or every:
        argv = argv[1:]
    pat = re.compile(re.escape(name) + r"#([0-9]+)\Z")
    evs = []
    with open(argv[0], encoding="utf-8", errors="surrogateescape") as f:
        for i, line in enumerate(f):
            e = json.loads(line)
            if i == 0 and e.get("name") == "mct_header":
                continue
            evs.append(e)
    steps, launches = [], {}
    for e in evs:
        t = times(e)
        lane = (text(e.get("rank", "")), text(e.get("pid")),
                text(e.get("tid")))
        if t is None:
            continue
        m = pat.match(e["name"]) if isinstance(e.get("name"), str) else None
        if m and phases_oracle.is_step_event(e):
            steps.append((t[0], t[1], int(m.group(1)), lane))
        elif is_host_call(e) and corr(e) is not None:
            launches.setdefault(corr(e), (t, lane))

    mctracer = any(phases_oracle.on_device_lane(e) and "cat" not in e and
                   isinstance(e.get("args"), dict) and "co_id" in e["args"]
                   for e in evs)
    rounds, per = rounds_of(argv[0]) if not steps and name == \
        "ProfilerStep" and mctracer else ([], [])

    def step_at(t, lane, byproc):
        if rounds:
            return next((r[0] for r in rounds if r[1] <= t[0] < r[2]), None)
        for same in ((lambda l: l == lane),
                     (lambda l: l[:2] == lane[:2]))[:1 + byproc]:
            best = None
            for s in steps:
                if same(s[3]) and s[0] <= t[0] and t[1] <= s[1]:
                    if best is None or (s[0], -s[1]) > (best[0], -best[1]):
                        best = s
            if best is not None:
                return best[2]
        return None

    out, groups, pairs = {}, {}, {}
    for e in evs:
        if e.get("ph") == "M":
            continue
        t = times(e)
        if t is None:
            continue
        lane = (text(e.get("rank", "")), text(e.get("pid")),
                text(e.get("tid")))
        c = corr(e) if phases_oracle.on_device_lane(e) else None
        if c is not None:
            if c not in launches:
                continue
            n = step_at(t if rounds else launches[c][0], launches[c][1],
                        True)
            if n is not None and "name" in e:
                g = pairs.setdefault(str(n), {}).setdefault(
                    text(e["name"]), [0, 0])
                g[0] += 1
                g[1] += e.get("dur", 0)
        else:
            n = step_at(t, lane, False)
        if n is None:
            continue
        d = e.get("dur")
        if "name" in e:
            g = groups.setdefault((n, text(e["name"])), [0, 0, False])
            g[0] += 1
            if isinstance(d, int) and d >= 0:
                g[1] += d
                g[2] = True
        o = out.setdefault(str(n), {"count": 0, "md5": hashlib.md5()})
        o["count"] += 1
        o["md5"].update(("%d\t%s\t%s\t%s\n" % (
            e["ts"], d if isinstance(d, int) else "", text(e.get("pid")),
            text(e.get("tid")))).encode())
    lines = ["%d\t%s\t%d\t%s" % (n, nm, g[0], g[1] if g[2] else "")
             for (n, nm), g in sorted(groups.items())]
    if group:
        for ln in lines:
            print(ln)
        return
    for o in out.values():
        o["md5"] = o["md5"].hexdigest()
    if every:
        out = {"steps": out, "group": lines, "rounds": rounds,
               "phase_rounds": per, "pairs": pairs}
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1:])
