#!/usr/bin/env python3
"""producers_oracle.py - what mct must make of other producers' traces,
computed independently with python3's json (tests/producers.bats).

  pairbe TRACE STREAM   check mct-cat --pair-be's STREAM (its events, in
                        order) against B/E pairing done here on TRACE;
                        print the expected count line of stderr
  span [--ns] TRACE     the span of the trace as mct-report writes it:
                        first start to last end of its non-M events
  top TRACE STREAM [MAX]  check the header's top and top_dropped (values
                        over MAX bytes of compact JSON, default 65536)
  nest N                write a Chrome trace of N random nested B/E slices
                        on a few threads, with metadata at ts 0, X and i
                        events between, args on both ends, and the odd
                        ones: an E with nothing open, an E before its B,
                        B events never closed

Times are integer ns as in the stream (oracle.py reads the trace).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import die, read_all, read_stream, ser, Trace  # noqa: E402
from report_oracle import human  # noqa: E402


def pairbe(trace):
    """The events of mct-cat --pair-be, in order, and the counts."""
    _, events = read_all([trace], "auto")
    stacks, order, out = {}, [], []
    n = {"pairs": 0, "lone_e": 0, "lone_b": 0, "early_e": 0}
    for e in events:
        ph, ts = e.get("ph"), e.get("ts")
        if ph not in ("B", "E") or not isinstance(ts, int) \
                or isinstance(ts, bool):
            out.append(e)
            continue
        # the thread: its pid and tid as JSON text (1 and "1" differ)
        k = (ser(e["pid"]) if "pid" in e else None,
             ser(e["tid"]) if "tid" in e else None)
        if k not in stacks:
            stacks[k] = []
            order.append(k)
        s = stacks[k]
        if ph == "B":
            s.append(e)
            continue
        if not s:
            n["lone_e"] += 1
            out.append(e)
            continue
        b = s.pop()
        if ts < b["ts"]:
            n["early_e"] += 1
            out += [b, e]
            continue
        n["pairs"] += 1
        x = {}
        eargs = e.get("args")
        eargs = eargs if isinstance(eargs, dict) and eargs else None
        for key, v in b.items():
            if key == "dur":
                continue
            if key == "ph":
                v = "X"
            elif key == "args" and eargs is not None and isinstance(v, dict):
                v = {a: w for a, w in v.items() if a not in eargs}
                v.update(eargs)
                eargs = None
            x[key] = v
            if key == "ts":
                x["dur"] = ts - b["ts"]
        if eargs is not None and "args" not in b:
            x["args"] = eargs
        out.append(x)
    for k in order:
        n["lone_b"] += len(stacks[k])
        out += stacks[k]
    return out, n


def cmd_pairbe(args):
    want, n = pairbe(args[0])
    got = read_stream(args[1])
    head = got[0]["args"]
    if head.get("sorted") is not False:
        die("the header does not say sorted false")
    got = got[1:]
    if len(got) != len(want):
        die("%d events, want %d" % (len(got), len(want)))
    for i, (g, w) in enumerate(zip(got, want)):
        if ser(g) != ser(w):
            die("event %d:\n  got  %s\n  want %s" % (i + 1, ser(g), ser(w)))
    if n["lone_e"] or n["lone_b"] or n["early_e"]:
        print("--pair-be: %d B/E pairs made X events; passed on unchanged: "
              "%d E with no open B on its thread, %d B never closed, %d E "
              "before its B" % (n["pairs"], n["lone_e"], n["lone_b"],
                                n["early_e"]))
    else:
        print("pairs %d" % n["pairs"])


def cmd_span(args):
    ns = args[0] == "--ns"     # in ns, not as mct-report writes it
    _, events = read_all([args[-1]], "auto")
    lo = hi = None
    for e in events:
        ts = e.get("ts")
        if e.get("ph") == "M" or not isinstance(ts, int) or \
                isinstance(ts, bool):
            continue
        d = e.get("dur")
        end = ts + (d if isinstance(d, int) and not isinstance(d, bool)
                    else 0)
        lo = ts if lo is None else min(lo, ts)
        hi = end if hi is None else max(hi, end)
    if ns:
        print(hi - lo)
    else:
        print("-" if hi is None else human(hi - lo))


def cmd_top(args):
    t = Trace(args[0])
    limit = int(args[2]) if len(args) > 2 else 65536
    head = read_stream(args[1])[0]["args"]
    keep = [(k, v) for k, v in t.top if limit <= 0 or len(ser(v)) <= limit]
    big = [(k, len(ser(v))) for k, v in t.top
           if limit > 0 and len(ser(v)) > limit]
    if ser(head.get("top")) != ser(dict(keep)):
        die("top: got %.200s, want %.200s" % (ser(head.get("top")),
                                              ser(dict(keep))))
    if ser(head.get("top_dropped", {})) != ser(dict(big)):
        die("top_dropped: got %s, want %s" % (ser(head.get("top_dropped")),
                                              ser(dict(big))))
    print(" ".join(k for k, _ in big))


def cmd_nest(args):
    import json
    import random
    rnd = random.Random(19)
    n = int(args[0])
    threads = [(1, 1), (1, 2), (2, 1), (1, "1")]    # "1" is not 1
    ev = [{"ph": "M", "name": "process_name", "pid": p, "tid": 0, "ts": 0,
           "args": {"name": "p%d" % p}} for p in (1, 2)]
    t = {k: 1000 + 17 * i for i, k in enumerate(threads)}
    depth = {k: 0 for k in threads}
    opened = 0
    while opened < n or any(depth.values()):
        k = rnd.choice(threads)
        pid, tid = k
        t[k] += rnd.randint(0, 5000)
        ts = float("%d.%03d" % divmod(t[k], 1000))    # us with ns digits
        r = rnd.random()
        if opened < n and (depth[k] == 0 or r < 0.45):
            b = {"name": "s%d" % opened, "cat": "c", "ph": "B", "pid": pid,
                 "tid": tid, "ts": ts}
            if rnd.random() < 0.5:
                b["args"] = {"a": opened, "b": "x"}
            ev.append(b)
            depth[k] += 1
            opened += 1
        elif depth[k] > 0:
            e = {"ph": "E", "pid": pid, "tid": tid, "ts": ts}
            if rnd.random() < 0.3:
                e["args"] = {"b": "y", "c": [1, 2]}
            ev.append(e)
            depth[k] -= 1
        elif r < 0.6:
            ev.append({"name": "x", "ph": "X", "pid": pid, "tid": tid,
                       "ts": ts, "dur": 3})
        else:
            ev.append({"name": "i", "ph": "i", "pid": pid, "tid": tid,
                       "ts": ts, "s": "t"})
    # the odd ones
    ev.append({"ph": "E", "pid": 3, "tid": 3, "ts": 5})
    ev.append({"name": "late", "ph": "B", "pid": 3, "tid": 4, "ts": 900})
    ev.append({"ph": "E", "pid": 3, "tid": 4, "ts": 800})
    ev.append({"name": "open", "ph": "B", "pid": 3, "tid": 3, "ts": 10})
    ev.append({"name": "open2", "ph": "B", "pid": 3, "tid": 3, "ts": 11})
    json.dump({"traceEvents": ev, "displayTimeUnit": "ms"}, sys.stdout,
              indent=0)
    print()


def main():
    cmds = {"pairbe": cmd_pairbe, "span": cmd_span, "top": cmd_top,
            "nest": cmd_nest}
    if len(sys.argv) < 3 or sys.argv[1] not in cmds:
        die("usage: producers_oracle.py %s ..." % "|".join(cmds))
    cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
