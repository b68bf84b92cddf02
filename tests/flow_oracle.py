#!/usr/bin/env python3
"""flow_oracle.py - an independent pairing of host calls and device events,
for the tests of mct-flow(1).

Python's json module reads the trace; nothing here shares code or logic
with mct.  ts and dur become integer ns from their decimal text (the unit:
--unit, else us if any ts/dur has a '.', else ns if any event has
args.co_id, else us; a stream, whose first line is mct's header, is in ns).

The rules (mct-flow(1)):

  Key mode, used when some X event has a correlation id: the id is
  --key FIELD, else args.co_id, else args.correlation (per event; a string
  and a number with the same text are the same id).  Only X events with a
  ts take part (no dur counts as 0).  The host side: --host-pid / --host-re
  if given (stand-ins for the mct expressions of the tests), else an event
  whose cat ends in "runtime" or "driver" (any case), else, with no cat, an
  event with pid 1.  The first host event of an id is its launch (later
  ones are ignored); every other event of the id is a device event, paired
  with the launch whatever the order of the two in the input.
    pairs        device events whose id has a launch
    no_device    launches whose id has no device event
    no_launch    device events whose id has no launch
    dangling     flow ends (ph s or f with an id and a ts; a flow is its
                 cat and id) of flows that have only s ends or only f
                 ends; 0 with --key

  Flow mode, used when no X event has an id but there are s/f ends: a flow
  end binds to the innermost X slice on its lane (pid, tid) with
  start <= ts <= start + dur (latest start, then shortest, then first in
  the input); an f end that no slice encloses binds to the first slice
  that starts after it on its lane, unless it has "bp":"e"; an s end binds
  only to an enclosing slice.  Per flow, the first s end (in the input) is
  the launch; every bound f end is a device event: a pair when the launch
  is bound, else no_launch.  A launch bound with no f end at all in its
  flow is no_device.

Subcommands (FILE may be gzip; Object, Array, NDJSON form or a stream):

  summary [OPTS] FILE        the line mct-flow writes on stderr
  records [OPTS] FILE        each pair as launch.name<TAB>name<TAB>latency
                             <TAB>queue, sorted (--time-unit U: latency and
                             queue as exact decimals of U)
  latency [OPTS] FILE        per launch name: name, count, median, min, max
                             of latency (TSV, by name)
  queue-negative [OPTS] FILE the number of pairs with queue < 0
  fields [OPTS] LIST FILE    the fields LIST (comma-separated dotted paths)
                             of each pair, TSV without header, sorted;
                             strings raw, other values as JSON text
                             (records and fields also take a directory that
                             save wrote)
  check [OPTS] OUT FILE      OUT (mct-flow's NDJSON output for FILE) is the
                             header line, the M events of FILE in order and
                             exactly the expected records (with --orphans
                             also the orphan records), in any order; FILE
                             may be a directory that save wrote
  save [OPTS] DIR FILE       all of the above for FILE into DIR: summary,
                             records.tsv, latency.tsv, queue-negative,
                             latency-over-1ms, by-launch.tsv (launch.name,
                             count, total dur, sum of launch.dur), pairs.nd,
                             orphans.nd, meta.nd
  strip-ids FILE [SHIFT]     FILE as NDJSON with args.co_id and
                             args.correlation removed (for flow mode); with
                             SHIFT (ns), the ts of f ends moved by SHIFT and
                             their "bp" dropped

OPTS: --key FIELD (dotted path), --host-pid P, --host-re REGEX (on name),
--orphans, --unit U, --mode key|flow, --time-unit U.
Exit status 0 when a check holds, 1 with the differences on stderr.
"""
import bisect
import collections
import decimal
import gzip
import json
import os
import re
import sys
from decimal import Decimal

decimal.getcontext().prec = 200
UNITS = {"ns": 1, "us": 1000, "ms": 10**6, "s": 10**9}
NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?\Z")
NOKEY = object()


def die(msg):
    print("flow_oracle: " + msg, file=sys.stderr)
    sys.exit(1)


def decode(text):
    return json.loads(text, parse_float=Decimal, strict=False,
                      parse_constant=lambda n: None)


# The rank a trace read alone says (its distributedInfo.rank), if any: the
# rank of its events that carry none (mct(7), Ranks).
FILE_RANK = None


def top_rank(doc):
    d = doc.get("distributedInfo") if isinstance(doc, dict) else None
    r = d.get("rank") if isinstance(d, dict) else None
    return r if type(r) is int and r >= 0 else None


def rank_of(e):
    r = e.get("rank")
    return FILE_RANK if r is None else r


_last = {}     # batch: the last file read, read once for the questions on it


def read_events(path):
    """The events of a file, in order, and whether it is an mct stream."""
    global FILE_RANK
    if path in _last:
        events, stream, FILE_RANK = _last[path]
        return events, stream
    events, stream = read_events1(path)
    if BATCH:
        _last.clear()
        _last[path] = (events, stream, FILE_RANK)
    return events, stream


BATCH = False


def read_events1(path):
    global FILE_RANK
    FILE_RANK = None
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    if text.startswith('{"name":"mct_header"'):
        lines = [l for l in text.split("\n") if l.strip()]
        return [decode(l) for l in lines[1:]], True
    try:
        doc = decode(text)
    except json.JSONDecodeError:
        t = text.rstrip().rstrip(",")
        doc = None
        for close in ("]", "]}"):
            try:
                doc = decode(t + close)
                break
            except json.JSONDecodeError:
                pass
        if doc is None:
            doc = [decode(l) for l in text.split("\n") if l.strip()]
    if isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list):
        FILE_RANK = top_rank(doc)
        doc = doc["traceEvents"]
    elif isinstance(doc, dict):
        doc = [doc]
    return [e for e in doc if isinstance(e, dict)], False


def time_num(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, Decimal)):
        return v
    if isinstance(v, str) and NUMBER.match(v):
        return Decimal(v) if ("." in v or "e" in v or "E" in v) else int(v)
    return None


def has_dot(v):
    if isinstance(v, Decimal):
        return True
    return isinstance(v, str) and NUMBER.match(v) is not None and "." in v


def unit_of(events, given, stream):
    if stream:
        return "ns"
    if given and given != "auto":
        return given
    if any(has_dot(e.get(k)) for e in events for k in ("ts", "dur")):
        return "us"
    for e in events:
        a = e.get("args")
        if isinstance(a, dict) and "co_id" in a:
            return "ns"
    return "us"


def to_ns(v, unit):
    if type(v) is int:
        return v * UNITS[unit]          # exact: no rounding to do
    v = time_num(v)
    if v is None:
        return None
    v = Decimal(v) * UNITS[unit]
    return int(v.quantize(Decimal(1), rounding=decimal.ROUND_HALF_UP))


def normalise(events, unit):
    """Events with first-level ts/dur as integer ns (where numeric)."""
    out = []
    for e in events:
        e = dict(e)
        for k in ("ts", "dur"):
            if k in e:
                n = to_ns(e[k], unit)
                if n is not None:
                    e[k] = n
        out.append(e)
    return out


def id_text(v):
    """An id as text: strings unquoted, everything else as JSON text."""
    if isinstance(v, str):
        return v
    return ser(v)


def _num(v):
    if isinstance(v, Decimal):
        return {"\0num": str(v)}
    raise TypeError(type(v).__name__)


_canon = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False,
                          default=_num).encode


_NUM = re.compile(r'\{"\\u0000num":"([^"]*)"\}')


def ser(v):
    t = _canon(v)
    return _NUM.sub(r"\1", t) if "\\u0000num" in t else t


def get_path(e, path):
    v = e
    for seg in path:
        if not isinstance(v, dict) or seg not in v:
            return NOKEY
        v = v[seg]
    return v


def split_field(f):
    segs, cur, i = [], "", 0
    while i < len(f):
        c = f[i]
        if c == '"':
            j = f.index('"', i + 1)
            cur += f[i + 1:j]
            i = j + 1
            continue
        if c == ".":
            segs.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    segs.append(cur)
    return segs


class Opts:
    def __init__(self, argv):
        self.key = None
        self.host_pid = None
        self.host_re = None
        self.orphans = False
        self.unit = None
        self.mode = None
        self.tunit = None
        self.args = []
        it = iter(argv)
        for a in it:
            if a == "--key":
                self.key = split_field(next(it))
            elif a == "--host-pid":
                self.host_pid = next(it)
            elif a == "--host-re":
                self.host_re = re.compile(next(it))
            elif a == "--orphans":
                self.orphans = True
            elif a == "--unit":
                self.unit = next(it)
            elif a == "--time-unit":
                self.tunit = next(it)
            elif a == "--mode":
                self.mode = next(it)
            else:
                self.args.append(a)


def corr_id(e, o):
    if o.key is not None:
        v = get_path(e, o.key)
    else:
        a = e.get("args")
        if not isinstance(a, dict):
            return None
        if "co_id" in a:
            v = a["co_id"]
        elif "correlation" in a:
            v = a["correlation"]
        else:
            return None
    if v is NOKEY or v is None:
        return None
    return id_text(v)


def is_host(e, o):
    if o.host_pid is not None:
        return id_text(e.get("pid")) == o.host_pid
    if o.host_re is not None:
        n = e.get("name")
        return isinstance(n, str) and o.host_re.search(n) is not None
    cat = e.get("cat")
    if isinstance(cat, str):
        c = cat.lower()
        return c.endswith("runtime") or c.endswith("driver")
    return e.get("pid") in (1, "1")


def is_x(e):
    return e.get("ph") == "X" and isinstance(e.get("ts"), int)


def dur_of(e):
    d = e.get("dur")
    return d if isinstance(d, int) else 0


def launch_of(h):
    r = {"name": h.get("name"), "ts": h["ts"], "dur": dur_of(h),
         "pid": h.get("pid"), "tid": h.get("tid")}
    if rank_of(h) is not None:
        r["rank"] = rank_of(h)
    return r


def paired(dev, host):
    r = dict(dev)
    r["launch"] = launch_of(host)
    r["latency"] = dev["ts"] - host["ts"]
    r["queue"] = dev["ts"] - host["ts"] - dur_of(host)
    return r


def orphan(e, why):
    r = dict(e)
    r["orphan"] = why
    return r


NO_DEV = "launch without device event"
NO_LAUNCH = "device event without launch"


def flow_ends(events):
    """The s/f ends with an id and a ts: (index, event, flow key)."""
    out = []
    for i, e in enumerate(events):
        if e.get("ph") in ("s", "f") and "id" in e and isinstance(e.get("ts"), int):
            cat = e.get("cat")
            k = (id_text(cat) if cat is not None else "") + "\x1f" + id_text(e["id"])
            out.append((i, e, k))
    return out


def dangling(ends):
    kinds = collections.defaultdict(lambda: [0, 0])
    for _, e, k in ends:
        kinds[k][e["ph"] == "f"] += 1
    return sum(s + f for s, f in kinds.values() if s == 0 or f == 0)


class Result:
    def __init__(self):
        self.records = []       # pairs
        self.orphan_records = []
        self.no_dev = self.no_launch = self.dangling = 0


def key_mode(events, o):
    r = Result()
    hosts, devs, order = {}, collections.defaultdict(list), []
    for e in events:
        if not is_x(e):
            continue
        k = corr_id(e, o)
        if k is None:
            continue
        if k not in hosts and k not in devs:
            order.append(k)
        if is_host(e, o):
            hosts.setdefault(k, e)      # a second host call is ignored
        else:
            devs[k].append(e)
    for k in order:
        h = hosts.get(k)
        if h is None:
            r.no_launch += len(devs[k])
            r.orphan_records += [orphan(d, NO_LAUNCH) for d in devs[k]]
        elif not devs[k]:
            r.no_dev += 1
            rec = {"name": h.get("name"), "ph": "X", "ts": h["ts"],
                   "dur": dur_of(h), "pid": h.get("pid"),
                   "tid": h.get("tid"), "key": k}
            if rank_of(h) is not None:
                rec["rank"] = rank_of(h)
            r.orphan_records.append(orphan(rec, NO_DEV))
        else:
            r.records += [paired(d, h) for d in devs[k]]
    r.dangling = 0 if o.key is not None else dangling(flow_ends(events))
    return r


def lane_of(e):
    return (ser(e["pid"]) if "pid" in e else "", ser(e["tid"]) if "tid" in e else "")


def flow_mode(events, o):
    r = Result()
    lanes = collections.defaultdict(list)
    for i, e in enumerate(events):
        if is_x(e):
            lanes[lane_of(e)].append((e["ts"], i, e))
    index = {}
    for lane, sl in lanes.items():
        sl.sort(key=lambda t: (t[0], t[1]))
        starts = [t[0] for t in sl]
        maxend, m = [], None
        for t in sl:
            end = t[0] + dur_of(t[2])
            m = end if m is None or end > m else m
            maxend.append(m)
        index[lane] = (sl, starts, maxend)

    def bind(e):
        got = index.get(lane_of(e))
        if got is None:
            return None
        sl, starts, maxend = got
        ts = e["ts"]
        j = bisect.bisect_right(starts, ts) - 1
        best = None
        while j >= 0 and maxend[j] >= ts:
            s, i, x = sl[j]
            if best is not None and s < best[0]:
                break
            if s + dur_of(x) >= ts:
                cand = (s, dur_of(x), i, x)
                if best is None or (cand[1], cand[2]) < (best[1], best[2]):
                    best = cand
            j -= 1
        if best is not None:
            return best[3]
        if e["ph"] == "f" and e.get("bp") != "e":
            j = bisect.bisect_right(starts, ts)
            if j < len(sl):
                return sl[j][2]
        return None

    ends = flow_ends(events)
    flows = collections.OrderedDict()
    for i, e, k in ends:
        flows.setdefault(k, []).append(e)
    for k, es in flows.items():
        ss = [e for e in es if e["ph"] == "s"]
        fs = [e for e in es if e["ph"] == "f"]
        launch = bind(ss[0]) if ss else None
        if launch is not None and not fs:
            r.no_dev += 1
            r.orphan_records.append(orphan(launch, NO_DEV))
        for f in fs:
            d = bind(f)
            if d is None:
                continue
            if launch is None:
                r.no_launch += 1
                r.orphan_records.append(orphan(d, NO_LAUNCH))
            else:
                r.records.append(paired(d, launch))
    r.dangling = dangling(ends)
    return r


_norm = [None]     # batch: the last file's events normalised, and for what


def normalised(raw, given, stream):
    """normalise(raw, its unit), once for the questions of a batch on a file
    (the events are only read after)."""
    if BATCH and _norm[0] is not None and _norm[0][0] is raw and \
            _norm[0][1:3] == (given, stream):
        return _norm[0][3]
    events = normalise(raw, unit_of(raw, given, stream))
    if BATCH:
        _norm[0] = (raw, given, stream, events)
    return events


def compute(path, o):
    raw, stream = read_events(path)
    events = normalised(raw, o.unit, stream)
    mode = o.mode
    if mode is None:
        keyed = o.key is not None or any(
            is_x(e) and corr_id(e, o) is not None for e in events)
        mode = "key" if keyed or not flow_ends(events) else "flow"
    r = key_mode(events, o) if mode == "key" else flow_mode(events, o)
    return events, r


def summary_line(r):
    return ("mct-flow: %d pairs; %d host calls without device event, %d "
            "device events without launch, %d dangling flow ends"
            % (len(r.records), r.no_dev, r.no_launch, r.dangling))


def median_text(v):
    """The exact median: the mean of the two middle values of an even count."""
    v = sorted(v)
    n = len(v)
    if n % 2:
        return str(v[n // 2])
    m = Decimal(v[n // 2 - 1] + v[n // 2]) / 2
    return str(int(m)) if m == int(m) else str(m)


def expected(path, o):
    """The M events and the expected records, as canonical texts: computed
    from a trace, or read from a directory that save wrote."""
    if os.path.isdir(path):
        def lines(name):
            with open(os.path.join(path, name), encoding="utf-8") as f:
                return [l.rstrip("\n") for l in f]
        recs = lines("pairs.nd") + (lines("orphans.nd") if o.orphans else [])
        return lines("meta.nd"), collections.Counter(recs)
    events, r = compute(path, o)
    want = collections.Counter(ser(x) for x in r.records)
    if o.orphans:
        want.update(ser(x) for x in r.orphan_records)
    return [ser(e) for e in events if e.get("ph") == "M"], want


def cmd_check(o):
    out, trace = o.args
    want_m, want = expected(trace, o)
    problems = []
    with open(out, encoding="utf-8", errors="replace") as f:
        lines = [l.rstrip("\n") for l in f]
    if not lines or not lines[0].startswith('{"name":"mct_header","ph":"M"'):
        problems.append("the first line is not the header: %r" % lines[:1])
    got_m, got = [], collections.Counter()
    for n, l in enumerate(lines[1:], 2):
        try:
            v = decode(l)
        except json.JSONDecodeError as e:
            problems.append("line %d is not JSON: %s" % (n, e))
            continue
        if v.get("ph") == "M" and "launch" not in v and "orphan" not in v:
            got_m.append(ser(v))
        else:
            got[ser(v)] += 1
    if got_m != want_m:
        problems.append("M events: got %d, want %d (or in another order)"
                        % (len(got_m), len(want_m)))
    for what, c in (("missing", want - got), ("unexpected", got - want)):
        if c:
            problems.append("%d records %s, e.g." % (sum(c.values()), what))
            problems += ["  " + x[:400] for x in list(c)[:3]]
    if problems:
        die("%s: %s" % (out, "\n".join(problems)))
    print("%d records, %d M events" % (sum(want.values()), len(want_m)))


def records_tsv(r, tunit):
    def t(n):
        if tunit is None or tunit == "ns":
            return str(n)
        d = (Decimal(n) / UNITS[tunit]).normalize()
        return "{:f}".format(d)
    return sorted("%s\t%s\t%s\t%s" % (x["launch"]["name"], x.get("name"),
                                      t(x["latency"]), t(x["queue"]))
                  for x in r.records)


def latency_tsv(r):
    by = collections.defaultdict(list)
    for x in r.records:
        by[x["launch"]["name"]].append(x["latency"])
    return ["%s\t%d\t%s\t%d\t%d" % (n, len(v), median_text(v), min(v), max(v))
            for n, v in sorted(by.items())]


def cmd_save(o):
    d, trace = o.args
    os.makedirs(d, exist_ok=True)
    events, r = compute(trace, o)

    def put(name, rows):
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write("".join(x + "\n" for x in rows))
    put("summary", [summary_line(r)])
    put("records.tsv", records_tsv(r, None))
    put("latency.tsv", latency_tsv(r))
    put("queue-negative", [str(sum(1 for x in r.records if x["queue"] < 0))])
    put("latency-over-1ms",
        [str(sum(1 for x in r.records if x["latency"] > 10**6))])
    by = collections.defaultdict(lambda: [0, 0, 0])
    for x in r.records:
        g = by[x["launch"]["name"]]
        g[0] += 1
        g[1] += dur_of(x)
        g[2] += x["launch"]["dur"]
    put("by-launch.tsv", ["%s\t%d\t%d\t%d" % (n, *g) for n, g in sorted(by.items())])
    put("pairs.nd", [ser(x) for x in r.records])
    put("orphans.nd", [ser(x) for x in r.orphan_records])
    put("meta.nd", [ser(e) for e in events if e.get("ph") == "M"])


def batch(args):
    """batch FILE [INPUT...]: each line of FILE a subcommand and its
    arguments (shell words), answered in one process, a trace read once
    for the questions in a row on it; each answer after a line "@@ N
    STATUS".  The INPUTs name the files read, for the tests' cache."""
    global BATCH
    import batch as questions
    BATCH = True
    questions.run(args[0], lambda w: main(["flow_oracle.py"] + w))


def main(argv):
    if len(argv) > 2 and argv[1] == "batch" and not BATCH:
        return batch(argv[2:])
    if len(argv) < 2:
        die("usage: flow_oracle.py summary|records|latency|queue-negative|"
            "check|strip-ids [OPTS] FILE... | batch FILE [INPUT...]")
    cmd, o = argv[1], Opts(argv[2:])
    if cmd == "strip-ids":
        raw, _ = read_events(o.args[0])
        shift = int(o.args[1]) if len(o.args) > 1 else 0
        w = sys.stdout.write
        for e in raw:
            a = e.get("args")
            if isinstance(a, dict):
                a.pop("co_id", None)
                a.pop("correlation", None)
            if shift and e.get("ph") == "f" and isinstance(e.get("ts"), int):
                e["ts"] += shift
                e.pop("bp", None)
            w(ser(e) + "\n")
        return
    if cmd == "check":
        return cmd_check(o)
    if cmd == "save":
        return cmd_save(o)
    if cmd in ("fields", "records") and os.path.isdir(o.args[-1]):
        r = Result()                    # the pairs that save wrote
        with open(os.path.join(o.args[-1], "pairs.nd"), encoding="utf-8") as f:
            r.records = [decode(l) for l in f]
    else:
        _, r = compute(o.args[-1], o)
    if cmd == "summary":
        print(summary_line(r))
    elif cmd == "records":
        sys.stdout.write("".join(x + "\n" for x in records_tsv(r, o.tunit)))
    elif cmd == "latency":
        sys.stdout.write("".join(x + "\n" for x in latency_tsv(r)))
    elif cmd == "fields":
        fields = [split_field(f) for f in o.args[0].split(",")]

        def cell(v):
            if v is NOKEY or v is None:
                return ""
            return v if isinstance(v, str) else ser(v)
        rows = sorted("\t".join(cell(get_path(x, f)) for f in fields)
                      for x in r.records)
        sys.stdout.write("".join(x + "\n" for x in rows))
    elif cmd == "queue-negative":
        print(sum(1 for x in r.records if x["queue"] < 0))
    else:
        die("unknown subcommand " + cmd)


if __name__ == "__main__":
    main(sys.argv)
