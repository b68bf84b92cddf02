#!/usr/bin/env python3
"""stack_oracle.py - host stacks of launches, computed independently, for
the tests of mct-flow --stack (see mct-flow(1)).

Python's json module reads the trace (gzip or not, Object or Array form);
ts and dur become integer ns from their decimal text: us when any ts or
dur has a fraction, else ns when an event has args.co_id, else us.

The rules:
  pairs     X events with a correlation id (args.co_id, else
            args.correlation); the launch of an id is its first host event
            (cat ending in runtime or driver, any case; no cat and pid 1);
            every other X event of the id is device work paired with it.
  frames    on the launch's pid and tid, the X events without a correlation
            id and the B/E pairs (an E closes the latest open B; a B never
            closed lasts for ever) with start <= launch start and
            end >= launch end (end = ts + dur); outermost first: by start,
            then longest, then input order.  The stack is their names and
            then the launch's name.
  op        the cpu_op (cat cpu_op or Operator) of the same pid whose
            args."External id" is the launch's (the last such op in the
            input), else the innermost cpu_op frame.
  annotation the innermost user_annotation frame, else the innermost
            user_annotation X event of the pid that encloses the launch.
  module    the innermost python_function frame named "nn.Module: ...".
  step      N of the innermost frame that is a step named ProfilerStep#N
            (NAME#N with --step-name NAME; a step: an X event of any cat
            but gpu_user_annotation, or none, off the device lanes:
            phases_oracle.is_step_event), else of the innermost such
            step of the pid that encloses the launch; N digits only.
  gpu_annotation the innermost gpu_user_annotation X event of the device
            event's own pid and tid that holds the device event.
  backward  a cpu_op X event with an integer args."Sequence number" is a
            backward op when its args."Fwd thread id" is an integer other
            than 0, else a forward op.  A backward op's forward op: the
            forward op of the same pid and Sequence number with the latest
            start <= the backward op's (then the earliest end, then the
            latest in the input).  When no frame gives a step, the
            outermost backward frame that has a forward op puts that op's
            stack (its frames on its own pid and tid, itself the last)
            and "(backward)" before the frames; module, where the frames
            give none, is the forward op's (its frames'), and step is the
            forward op's (its frames', else its pid's, as above, at the
            forward op).  Annotation stays as above.
  under     with --under GLOB: only the pairs with a frame whose name
            matches that shell pattern (fnmatch.fnmatchcase).

Subcommands (after the options --step-name NAME and --under GLOB):
  by FIELD FILE     TSV, no header, sorted: FIELD value, count, total
                    device ns; FIELD is op, module, annotation, step,
                    gpu_annotation or name, or some of them joined by
                    commas (a key part each; pairs
                    without one are left out, as mct-group --by does,
                    but for op: those are the row "(no op)")
  folded FILE       the folded lines: frames;kernel and summed device ns,
                    sorted (';' in a name written ':', newline ' ')
  total FILE        the number of pairs and their device ns summed
  check FILE PAIRS  PAIRS (mct-flow --stack's NDJSON) holds exactly the
                    expected stack, op, annotation, module, step and
                    gpu_annotation of each pair
                    (matched by correlation id and device event start)
  save DIR FILE PAIRS  all of the above in one reading of FILE: DIR/op,
                    DIR/module, DIR/annotation, DIR/step, DIR/gpu_annotation,
                    DIR/folded, DIR/total and DIR/check (of PAIRS)
  sort FILE         the trace again, its events sorted by ts (stable), as
                    one JSON object: a time-sorted input
"""
import bisect
import decimal
import fnmatch
import gzip
import json
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phases_oracle  # noqa: E402


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw.decode("utf-8", "replace"),
                     parse_float=decimal.Decimal)
    if isinstance(doc, dict):
        return doc, doc.get("traceEvents", [])
    return doc, doc


def unit_of(events):
    frac = co = False
    for e in events:
        if not isinstance(e, dict):
            continue
        for k in ("ts", "dur"):
            v = e.get(k)
            if isinstance(v, decimal.Decimal) or (
                    isinstance(v, str) and "." in v):
                frac = True
        a = e.get("args")
        if isinstance(a, dict) and "co_id" in a:
            co = True
    return 1000 if frac or not co else 1


def isint(v):
    return isinstance(v, int) and not isinstance(v, bool)


def ns(v, mul):
    if v is None or isinstance(v, bool):
        return None
    try:
        return int(decimal.Decimal(str(v)) * mul)
    except decimal.InvalidOperation:
        return None


def corr(e):
    a = e.get("args")
    if not isinstance(a, dict):
        return None
    for k in ("co_id", "correlation"):
        if k in a and a[k] is not None:
            return str(a[k])
    return None


def is_host(e):
    c = e.get("cat")
    if isinstance(c, str):
        c = c.lower()
        return c.endswith("runtime") or c.endswith("driver")
    return str(e.get("pid")) == "1"


def analyse(path):
    _, events = load(path)
    mul = unit_of(events)
    lanes = defaultdict(list)   # (pid, tid) -> [ts, end, name, cat, seq]
    opens = defaultdict(list)
    ext = {}
    launch, dev = {}, []
    seq = 0
    fwd = defaultdict(list)     # (pid text, Sequence number) -> [(iv, lane)]
    bwd = {}                    # a backward op's seq -> its key in fwd
    for e in events:
        if not isinstance(e, dict) or e.get("ph") not in ("X", "B", "E"):
            continue
        ts = ns(e.get("ts"), mul)
        if ts is None:
            continue
        lane = (json.dumps(e.get("pid")), json.dumps(e.get("tid")))
        seq += 1
        ph = e["ph"]
        if ph == "E":
            if opens[lane]:
                opens[lane].pop()[1] = ts
            continue
        if ph == "B":
            iv = [ts, float("inf"), e.get("name"), e.get("cat"), seq,
                  e.get("pid"), "B", False]
            lanes[lane].append(iv)
            opens[lane].append(iv)
            continue
        dur = ns(e.get("dur"), mul)
        dur = dur if dur is not None and dur >= 0 else 0
        k = corr(e)
        if k is None:
            iv = [ts, ts + dur, e.get("name"), e.get("cat"), seq,
                  e.get("pid"), "X", phases_oracle.is_step_event(e)]
            lanes[lane].append(iv)
            a = e.get("args")
            if e.get("cat") in ("cpu_op", "Operator") and \
                    isinstance(a, dict) and isint(a.get("Sequence number")):
                ft = a.get("Fwd thread id")
                sn = (lane[0], a["Sequence number"])
                if isint(ft) and ft != 0:
                    bwd[seq] = sn
                else:
                    fwd[sn].append((iv, lane))
            if e.get("cat") in ("cpu_op", "Operator") and \
                    isinstance(a, dict) and isinstance(
                        a.get("External id"), int):
                ext[(json.dumps(e.get("pid")), a["External id"])] = \
                    e.get("name")
            continue
        if is_host(e):
            if k not in launch:
                launch[k] = (e, ts, dur, lane)
        else:
            dev.append((k, e, ts, dur))
    anns = defaultdict(list)    # pid text -> its user_annotation Xs
    stepivs = defaultdict(list)     # pid text -> its Xs that can be steps
    guas = defaultdict(list)        # lane -> its gpu_user_annotations
    for lane, ivs in lanes.items():
        for iv in ivs:
            if iv[3] == "gpu_user_annotation":
                guas[lane].append(iv)
            if iv[3] == "user_annotation" and iv[6] == "X":
                anns[json.dumps(iv[5])].append(iv)
            if iv[7]:
                stepivs[json.dumps(iv[5])].append(iv)
    stepre = re.compile(re.escape(OPT.get("--step-name", "ProfilerStep")) +
                        r"#([0-9]{1,18})\Z")
    under = OPT.get("--under")

    def step_of(iv):
        m = iv[7] and isinstance(iv[2], str) and stepre.match(iv[2])
        return int(m.group(1)) if m else None

    def index(ivs):
        # by start, with the latest end of every prefix
        ivs = sorted(ivs, key=lambda iv: iv[0])
        m, r = float("-inf"), []
        for iv in ivs:
            m = max(m, iv[1])
            r.append(m)
        return ivs, [iv[0] for iv in ivs], r

    def inner(ix, lo, hi, ok=lambda iv: True):
        # the innermost of ix's intervals that hold [lo, hi] and pass ok:
        # the latest start, then the earliest end, then the latest in the
        # trace; the scan back stops where no earlier interval reaches hi,
        # or starts before the one found
        if ix is None:
            return None
        ivs, st, r = ix
        best = None
        j = bisect.bisect_right(st, lo) - 1
        while j >= 0 and r[j] >= hi:
            iv = ivs[j]
            if best is not None and iv[0] < best[0]:
                break
            if iv[1] >= hi and ok(iv) and (best is None or (
                    iv[0], -iv[1], iv[4]) > (best[0], -best[1], best[4])):
                best = iv
            j -= 1
        return best
    annix = {k: index(v) for k, v in anns.items()}
    stepix = {k: index(v) for k, v in stepivs.items()}
    guaix = {k: index(v) for k, v in guas.items()}
    def is_step(iv):
        return step_of(iv) is not None
    # each lane by start, with the latest end of every prefix: the scan
    # back from a launch stops where no earlier interval reaches its end
    starts, reach = {}, {}
    for lane in list(lanes):
        lanes[lane], starts[lane], reach[lane] = index(lanes[lane])
    def enclosing(lane, lts, lend):
        ivs = lanes.get(lane, [])
        j = bisect.bisect_right(starts.get(lane, []), lts) - 1
        fr = []
        while j >= 0 and reach[lane][j] >= lend:
            if ivs[j][1] >= lend:
                fr.append(ivs[j])
            j -= 1
        fr.sort(key=lambda iv: (iv[0], -iv[1], iv[4]))
        return fr

    def members(fr):
        op = ann = mod = step = None
        for iv in reversed(fr):
            if op is None and iv[3] in ("cpu_op", "Operator"):
                op = iv[2]
            if ann is None and iv[3] == "user_annotation":
                ann = iv[2]
            if mod is None and iv[3] == "python_function" and \
                    isinstance(iv[2], str) and \
                    iv[2].startswith("nn.Module: "):
                mod = iv[2]
            if step is None:
                step = step_of(iv)
        return op, ann, mod, step

    def proc(pid, lts, lend):
        best = inner(stepix.get(pid), lts, lend, is_step)
        return step_of(best) if best else None

    def forward(bseq, bts):
        cands = [(iv, lane) for iv, lane in fwd.get(bwd[bseq], [])
                 if iv[0] <= bts]
        if not cands:
            return None
        iv, lane = max(cands, key=lambda c: (c[0][0], -c[0][1], c[0][4]))
        fr = enclosing(lane, iv[0], iv[1])
        _, _, mod, step = members(fr)
        if step is None:
            step = proc(lane[0], iv[0], iv[1])
        return [x[2] for x in fr][:1000], mod, step
    out = []
    for k, e, ts, dur in dev:
        if k not in launch:
            continue
        le, lts, ldur, lane = launch[k]
        lend = lts + ldur
        fr = enclosing(lane, lts, lend)
        stack = [iv[2] for iv in fr][:1000] + [le.get("name")]
        op, ann, mod, step = members(fr)
        fw = None
        if step is None:
            for iv in fr:
                if iv[4] in bwd:
                    fw = forward(iv[4], iv[0])
                    if fw:
                        break
        if fw:
            stack = fw[0] + ["(backward)"] + stack
            mod = fw[1] if mod is None else mod
            step = fw[2]
        a = le.get("args")
        if isinstance(a, dict) and isinstance(a.get("External id"), int):
            op = ext.get((lane[0], a["External id"]), op)
        if ann is None:
            best = inner(annix.get(lane[0]), lts, lend)
            ann = best[2] if best else None
        if step is None:
            best = inner(stepix.get(lane[0]), lts, lend, is_step)
            step = step_of(best) if best else None
        dlane = (json.dumps(e.get("pid")), json.dumps(e.get("tid")))
        best = inner(guaix.get(dlane), ts, ts + dur)
        gann = best[2] if best else None
        if under is not None and not any(
                isinstance(x, str) and fnmatch.fnmatchcase(x, under)
                for x in (fw[0] if fw else []) + [iv[2] for iv in fr]):
            continue
        out.append({"key": k, "ts": ts, "dur": dur, "name": e.get("name"),
                    "stack": stack, "op": op, "annotation": ann,
                    "module": mod, "step": step, "gpu_annotation": gann})
    return out


def clean(s):
    return str(s).replace(";", ":").replace("\n", " ")


def by(pairs, f, out):
    agg = defaultdict(lambda: [0, 0])
    fs = f.split(",")
    for p in pairs:
        ks = ["(no op)" if x == "op" and p[x] is None else p[x] for x in fs]
        k = None if None in ks else "\t".join(str(x) for x in ks)
        if k is not None:
            agg[k][0] += 1
            agg[k][1] += p["dur"]
    for k in sorted(agg):
        out.write("%s\t%d\t%d\n" % (k, agg[k][0], agg[k][1]))


def folded(pairs, out):
    agg = defaultdict(int)
    for p in pairs:
        agg[";".join(clean(s) for s in p["stack"] + [p["name"]])] += p["dur"]
    for k in sorted(agg, key=lambda s: s.encode()):
        out.write("%s %d\n" % (k, agg[k]))


def total(pairs, out):
    out.write("%d\t%d\n" % (len(pairs), sum(p["dur"] for p in pairs)))


def check(pairs, path, out):
    want = defaultdict(list)
    for p in pairs:
        want[(p["key"], p["ts"])].append(p)
    bad = n = 0
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if "launch" not in r:
                continue
            n += 1
            k = (corr(r), r["ts"])
            w = want.get(k)
            got = {x: r.get(x) for x in
                   ("stack", "op", "annotation", "module", "step",
                    "gpu_annotation")}
            if not w or not any(got == {x: p[x] for x in got} for p in w):
                bad += 1
                if bad <= 3:
                    out.write("mismatch %s: got %s want %s\n" % (
                        k, got, w and {x: w[0][x] for x in got}))
    if n != len(pairs):
        out.write("pairs: %d written, %d expected\n" % (n, len(pairs)))
        bad += 1
    out.write("ok\n" if bad == 0 else "%d bad\n" % bad)


OPT = {}


def main(argv):
    while len(argv) > 2 and argv[1] in ("--step-name", "--under"):
        OPT[argv[1]] = argv[2]
        del argv[1:3]
    if len(argv) < 3:
        sys.exit(__doc__)
    cmd = argv[1]
    if cmd == "sort":
        doc, events = load(argv[2])
        events = sorted((e for e in events if isinstance(e, dict)),
                        key=lambda e: decimal.Decimal(str(e.get("ts", 0)))
                        if e.get("ph") != "M" else decimal.Decimal(-1))
        print(json.dumps({"traceEvents": events}, default=str))
    elif cmd == "save":
        d = argv[2]
        pairs = analyse(argv[3])
        for f in ("op", "module", "annotation", "step", "gpu_annotation"):
            with open(os.path.join(d, f), "w") as out:
                by(pairs, f, out)
        with open(os.path.join(d, "folded"), "w") as out:
            folded(pairs, out)
        with open(os.path.join(d, "total"), "w") as out:
            total(pairs, out)
        with open(os.path.join(d, "check"), "w") as out:
            check(pairs, argv[4], out)
    elif cmd == "by":
        by(analyse(argv[3]), argv[2], sys.stdout)
    elif cmd == "folded":
        folded(analyse(argv[2]), sys.stdout)
    elif cmd == "total":
        total(analyse(argv[2]), sys.stdout)
    elif cmd == "check":
        check(analyse(argv[2]), argv[3], sys.stdout)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
