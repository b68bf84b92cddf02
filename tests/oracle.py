#!/usr/bin/env python3
"""oracle.py - an independent reading of traces, for the tests of mct.

Python's own json module reads the trace; nothing here shares code or
logic with mct's C scanner.  Integers are python ints and fractions are
decimal.Decimal, both exact, so nothing passes through a double.  Two
events are equal when their canonical texts are (json.dumps, compact, key
order kept): equal values, equal key order, numbers distinguished from
strings and booleans.  ts and dur are converted to integer ns from the
number's decimal value, by the rules of the mct stream (mct(7)):

  unit   --unit if given; else us if any first-level ts/dur text has a '.';
         else ns if any event has args.co_id (mcTracer); else us.
  ts/dur a number, or a string holding a JSON number, times the unit,
         rounded half away from zero to an integer of ns.
  origin the smallest ts (ns) over events whose ph is not "M".

Subcommands (FILE may be gzip, "-" is stdin; Object, Array or NDJSON form;
a missing closing ] or ]} and a trailing comma before it are repaired, as
the Chrome format allows; NaN and Infinity read as null):

  events [--unit U] FILE...        each event as one compact JSON line, ts/dur in ns
  header [--unit U] FILE...        the args of the header mct-cat should write
  count FILE...                    the number of events
  check [--unit U] [--rank R] [--sources S... --] STREAM FILE...
                                   STREAM (mct-cat's output) has the header and
                                   the events the FILEs call for
  compare A B                      two NDJSON streams hold equal events
                                   (header lines skipped)
  wrapcheck [--unit U] ORIG WRAPPED
                                   WRAPPED (strict JSON) is ORIG again: same form,
                                   same top-level keys in order, same events, ts/dur
                                   equal to ORIG's in the source's unit
  columns [--format tsv|csv] [--fields LIST] [--time-unit U] [--no-header] FILE...
                                   what mct-cat -o tsv|csv should print
  stream FILE                      every line of FILE is strict JSON, an object,
                                   whose ts/dur, if numbers, are integers

Exit status 0 when the check holds, 1 with the first difference on stderr.
"""
import copy
import decimal
import os
import gzip
import json
import re
import sys
from decimal import Decimal

decimal.getcontext().prec = 200
UNITS = {"ns": 1, "us": 1000, "ms": 10**6, "s": 10**9}
JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?\Z")
MARK = "\0num"


class Frac(Decimal):
    """A number whose text had a decimal point."""
    __slots__ = ()


def number(text):
    return Frac(text) if "." in text else Decimal(text)


def no_nan(name):
    raise ValueError("not JSON: " + name)


_strict = json.JSONDecoder(parse_float=number, parse_constant=no_nan)
_lenient = json.JSONDecoder(parse_float=number, parse_constant=lambda n: None,
                            strict=False)


def keys_once(pairs):
    """json's object_pairs_hook that fails on a key an object holds twice
    (json.loads keeps the last of them, as mct does: a test must see it)."""
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), keys
    return dict(pairs)


def loads(text, strict=True):
    """strict: plain JSON.  Otherwise also what mct repairs and keeps:
    raw control characters in strings, NaN and Infinity (as null)."""
    return (_strict if strict else _lenient).decode(text)


def _num(v):
    if isinstance(v, Decimal):
        return {MARK: str(v)}
    raise TypeError(type(v).__name__)


_canon = json.JSONEncoder(separators=(",", ":"), default=_num).encode


def canon(v):
    """Canonical text; a fraction shows as {"\\u0000num":"1.5"}."""
    return _canon(v)


def ser(v):
    """Compact JSON text of a value."""
    return re.sub(r'\{"\\u0000num":"([^"]*)"\}', r"\1", canon(v))


def die(msg):
    print("oracle: " + msg, file=sys.stderr)
    sys.exit(1)


def read_text(path):
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)        # every member
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    return data.decode("utf-8", errors="replace")


class Trace:
    """A trace as python reads it: form, top-level pairs, events."""

    def __init__(self, path):
        self.path = path
        self.top = []           # (key, value) other than traceEvents, in order
        self.top_before = 0
        doc = self._parse(read_text(path))
        if isinstance(doc, list):
            self.form = "array"
            events = doc
        elif isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list):
            self.form = "object"
            seen = False
            for k, v in doc.items():
                if k == "traceEvents":
                    seen = True
                    continue
                self.top.append((k, v))
                self.top_before += not seen
            events = doc["traceEvents"]
        elif isinstance(doc, dict):
            self.form = "ndjson"
            events = [doc]
        else:
            self.form = "ndjson"
            events = doc.events
        # what is not an object is not an event (mct reports and skips it)
        self.events = [e for e in events if isinstance(e, dict)]

    def _parse(self, text):
        try:
            return loads(text, strict=False)
        except json.JSONDecodeError as e:
            first = e
        lines = [l for l in text.split("\n") if l.strip()]
        if len(lines) > 1 and first.msg == "Extra data":
            try:
                return _Lines([loads(l, strict=False) for l in lines])
            except json.JSONDecodeError:
                pass
        # The writer stopped after a complete event: the closing ] or ]}
        # is missing, perhaps after a trailing comma.
        t = text.rstrip()
        if t.endswith(","):
            t = t[:-1]
        for close in ("]", "]}"):
            try:
                return loads(t + close, strict=False)
            except json.JSONDecodeError:
                pass
        die("%s: python cannot read it: %s" % (self.path, first))


class _Lines:
    def __init__(self, events):
        self.events = events


def time_value(v):
    """A ts/dur value as an exact number, or None if it is none."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, Decimal)):
        return v
    if isinstance(v, str) and JSON_NUMBER.match(v):
        return number(v)
    return None


def to_ns(v, unit):
    if isinstance(v, int):
        return v * UNITS[unit]
    return int((v * UNITS[unit]).quantize(Decimal(1),
                                          rounding=decimal.ROUND_HALF_UP))


def detect_unit(trace, given):
    if given and given != "auto":
        return given, "given by --unit"
    for e in trace.events:
        for k in ("ts", "dur"):
            if isinstance(time_value(e.get(k)), Frac):
                return "us", "a ts or dur has a fraction"
    for e in trace.events:
        a = e.get("args")
        if isinstance(a, dict) and "co_id" in a:
            return "ns", "events carry args.co_id (mcTracer)"
    return "us", "Chrome trace format default"


def convert(e, unit):
    """The event as the stream carries it: ts/dur as integer ns (a copy:
    the trace's own event stays as read)."""
    e = dict(e)
    for k in ("ts", "dur"):
        v = e.get(k)
        if v is None or (type(v) is int and unit == "ns"):
            continue
        t = time_value(v)
        if t is not None:
            e[k] = to_ns(t, unit)     # the key keeps its place
    return e


def origin_of(events):
    o = None
    for e in events:
        ts = e.get("ts")
        if isinstance(ts, int) and not isinstance(ts, bool) and e.get("ph") != "M":
            o = ts if o is None or ts < o else o
    return o


def in_order(events):
    """Are the events (ph M aside) with a ts in time order?"""
    last = None
    for e in events:
        ts = e.get("ts")
        if isinstance(ts, int) and not isinstance(ts, bool) and e.get("ph") != "M":
            if last is not None and ts < last:
                return False
            last = ts
    return True


def rank_of(t, path, i):
    """A source's rank and the rule that gave it (mct(7), Ranks), by the rules."""
    di = dict(t.top).get("distributedInfo")
    r = di.get("rank") if isinstance(di, dict) else None
    if isinstance(r, int) and not isinstance(r, bool) and r >= 0:
        return r, "distributedInfo"
    if path != "-":
        m = re.search(r"rank[-_]?([0-9]{1,9})", os.path.basename(path), re.I)
        if m:
            return int(m.group(1)), "file name"
    return i, "order"


def is_stream_file(path):
    """Does the file begin with an mct header line (an mct stream)?"""
    with open(path, "rb") as f:
        return f.read(32).startswith(b'{"name":"mct_header"')


_read = {}


def trace(path):
    """Trace(path), read once per process (batch asks several questions
    of one file); its events are never changed (convert copies)."""
    if path == "-":
        return Trace(path)
    if path not in _read:
        _read[path] = Trace(path)
    return _read[path]


_all = {}


def read_all(paths, unit, operands=None, rank=None):
    """Expected header args and events of mct-cat on these operands (once
    per process for the same question: the callers only read them).

    operands: every operand as given (paths are the readable ones);
    rank: --rank (auto, order, N); with two trace operands or more (mct
    streams do not count), auto."""
    key = (tuple(paths), unit, None if operands is None else tuple(operands),
           rank)
    if "-" in paths:
        return _read_all(paths, unit, operands, rank)
    if key not in _all:
        _all[key] = _read_all(paths, unit, operands, rank)
    args, events = _all[key]
    return copy.deepcopy(args), events


def _read_all(paths, unit, operands, rank):
    events, origin, head, alone = [], None, None, None
    operands = operands if operands is not None else paths
    traces = [o for o in operands if o == "-" or
              (os.path.isfile(o) and not is_stream_file(o))]
    ranked = rank is not None or len(traces) > 1
    ranks = [{"path": p, "rank": None, "rank_from": None, "unit": "ns",
              "unit_from": None, "origin": None, "shift": 0, "top": {}}
             for p in operands]
    readable = [i for i, o in enumerate(operands)
                if o == "-" or os.path.isfile(o)]
    sorted_ = len(paths) == 1
    for k, p in enumerate(paths):
        t = trace(p)
        u, why = detect_unit(t, unit)
        evs = [convert(e, u) for e in t.events]
        o = origin_of(evs)
        if o is not None:
            origin = o if origin is None else min(origin, o)
        if head is None:
            head = (u, why, t.form, t.top_before, dict(t.top))
        sorted_ = sorted_ and in_order(evs)
        di = dict(t.top).get("distributedInfo")
        di = di.get("rank") if isinstance(di, dict) else None
        if not ranked and rank is None and len(traces) == 1 and \
                isinstance(di, int) and not isinstance(di, bool) and di >= 0:
            # one trace read alone has the rank it says, its lines as
            # they are: the header lists it
            alone = readable[k]
            ranks[alone].update(rank=di, rank_from="distributedInfo", unit=u,
                                unit_from=why, origin=o, top=dict(t.top))
        if ranked:
            i = readable[k]
            r, rule = rank_of(t, operands[i], i) if rank in (None, "auto") else \
                (i, "order") if rank == "order" else (int(rank), "option")
            ranks[i].update(rank=r, rank_from=rule, unit=u, unit_from=why,
                            origin=o, top=dict(t.top))
            for e in evs:
                e["rank"] = r
        events += evs
    u, why, form, before, top = head
    args = {"version": 1, "unit": u, "unit_from": why, "origin": origin,
            "form": form, "sorted": sorted_, "top_before": before, "top": top}
    if ranked:
        args["ranks"] = ranks
    elif alone is not None:
        args["ranks"] = ranks
    return args, events


def read_stream(path):
    """The lines of an NDJSON stream, strictly parsed."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        lines = data.decode("utf-8").split("\n")
        if lines[-1] == "":
            lines.pop()
        out = loads("[" + ",".join(lines) + "]")    # fast; one value a line?
        if len(out) == len(lines):
            return out
    except (ValueError, UnicodeDecodeError):
        pass
    for n, line in enumerate(data.split(b"\n"), 1):
        try:
            loads(line.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            die("%s:%d: not a JSON line (%s): %.300r" % (path, n, e, line))
    die("%s: a line holds more than one value" % path)


def is_header(v):
    return isinstance(v, dict) and next(iter(v.items()), None) == ("name", "mct_header")


def same_events(want, got):
    if canon(want) == canon(got):
        return
    for i, (w, g) in enumerate(zip(want, got)):
        if canon(w) != canon(g):
            die("event %d differs:\n  want %s\n  got  %s" % (i + 1, ser(w), ser(g)))
    die("events: want %d, got %d" % (len(want), len(got)))


def opt(args, name, default=None, many=False):
    """Take --name VALUE (with many: --name V1 V2 ... --) out of args."""
    if name not in args:
        return default
    i = args.index(name)
    if many:
        j = args.index("--", i) if "--" in args[i:] else len(args)
        vals = args[i + 1:j]
        del args[i:j + 1]
        return vals
    val = args[i + 1]
    del args[i:i + 2]
    return val


def cmd_events(args):
    unit = opt(args, "--unit", "auto")
    _, events = read_all(args, unit)
    for e in events:
        print(ser(e))


def cmd_header(args):
    unit = opt(args, "--unit", "auto")
    head, _ = read_all(args, unit)
    print(ser(head))


def cmd_count(args):
    print(sum(len(trace(p).events) for p in args))


def cmd_check(args):
    unit = opt(args, "--unit", "auto")
    sources = opt(args, "--sources", None, many=True)
    rank = opt(args, "--rank", None)
    stream, files = args[0], args[1:]
    want_args, want = read_all(files, unit, sources, rank)
    got = read_stream(stream)
    if not got or not is_header(got[0]):
        die("%s: the first line is not the mct header" % stream)
    h = got[0]
    if list(h) != ["name", "ph", "args"] or h["ph"] != "M":
        die("header: want the keys name, ph:\"M\", args; got %s" % ser(h))
    got_args = h["args"]
    if sources is not None:
        ranks = want_args.pop("ranks", None)
        want_args["sources"] = sources
        if ranks is not None:
            want_args["ranks"] = ranks
    elif isinstance(got_args, dict):
        got_args = {k: v for k, v in got_args.items() if k != "sources"}
    if canon(want_args) != canon(got_args):
        die("header args differ:\n  want %s\n  got  %s" % (ser(want_args), ser(got_args)))
    same_events(want, got[1:])


def cmd_compare(args):
    a = [v for v in read_stream(args[0]) if not is_header(v)]
    b = [v for v in read_stream(args[1]) if not is_header(v)]
    same_events(a, b)


def cmd_wrapcheck(args):
    unit = opt(args, "--unit", "auto")
    orig = trace(args[0])
    with open(args[1], "rb") as f:
        try:
            doc = loads(f.read().decode("utf-8"))
        except ValueError as e:
            die("%s: not strict JSON: %s" % (args[1], e))
    u, _ = detect_unit(orig, unit)
    if orig.form == "array":
        if not isinstance(doc, list):
            die("want the Array form, got %s" % type(doc).__name__)
        events = doc
    else:
        if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
            die("want the Object form with traceEvents")
        keys = list(doc)
        top = [(k, v) for k, v in doc.items() if k != "traceEvents"]
        if canon(dict(top)) != canon(dict(orig.top)):
            die("top-level keys differ:\n  want %s\n  got  %s" %
                (ser(dict(orig.top)), ser(dict(top))))
        if keys.index("traceEvents") != orig.top_before:
            die("traceEvents after %d keys, want %d" %
                (keys.index("traceEvents"), orig.top_before))
        events = doc["traceEvents"]
    if len(events) != len(orig.events):
        die("events: want %d, got %d" % (len(orig.events), len(events)))
    for i, (w, g) in enumerate(zip(orig.events, events)):
        ok = isinstance(g, dict) and list(g) == list(w)
        for k in (w if ok else ()):
            t = time_value(w[k]) if k in ("ts", "dur") else None
            if t is not None:
                # the same time in the source's unit, exactly, as a number
                gv = g[k]
                ok = ok and isinstance(gv, (int, Decimal)) and \
                    not isinstance(gv, bool) and gv * UNITS[u] == to_ns(t, u)
            else:
                a, b = w[k], g[k]
                # a text or an integer is its own canonical form
                ok = ok and (a == b if type(a) is type(b) and type(a) in (str, int)
                             else canon(a) == canon(b))
        if not ok:
            die("event %d differs:\n  want %s\n  got  %s" % (i + 1, ser(w), ser(g)))


def parse_fields(s):
    """A -F list: fields split at commas, paths at dots, "quoted" segments."""
    fields, segs, cur, i = [], [], "", 0
    while i <= len(s):
        c = s[i] if i < len(s) else ","
        if c == '"':
            j = s.index('"', i + 1)
            cur += s[i + 1:j]
            i = j + 1
            continue
        if c in ".,":
            segs.append(cur)
            cur = ""
            if c == ",":
                fields.append(segs)
                segs = []
        else:
            cur += c
        i += 1
    return fields


def dec_text(ns, unit):
    """ns in unit as exact decimal text, trailing zeros dropped."""
    t = format(Decimal(ns) / UNITS[unit], "f")
    if "." in t:
        t = t.rstrip("0").rstrip(".")
    return t


_TSV_SPECIAL = re.compile(r"[\\\t\n\r]")


def cmd_columns(args):
    fmt = opt(args, "--format", "tsv")
    flist = opt(args, "--fields", "ts,dur,ph,pid,tid,name")
    tunit = opt(args, "--time-unit", "ns")
    header = "--no-header" not in args
    meta = "--meta" in args     # rows of ph M events too (else left out)
    args = [a for a in args if a not in ("--no-header", "--meta")]
    head, events = read_all(args, "auto")
    origin = head["origin"]
    fields = parse_fields(flist)

    def cell(text):
        if fmt == "csv":
            if any(c in text for c in ',"\r\n'):
                return '"' + text.replace('"', '""') + '"'
            return text
        if not _TSV_SPECIAL.search(text):
            return text
        return (text.replace("\\", "\\\\").replace("\t", "\\t")
                .replace("\n", "\\n").replace("\r", "\\r"))

    def value(e, segs):
        if segs in (["ts"], ["dur"], ["rel"], ["end"]):
            ts, dur = e.get("ts"), e.get("dur")
            ts = ts if isinstance(ts, int) else None
            dur = dur if isinstance(dur, int) else None
            ism = e.get("ph") == "M"    # a metadata event has no rel
            n = {"ts": ts, "dur": dur,
                 "rel": None if ts is None or origin is None or ism
                 else ts - origin,
                 "end": None if ts is None else ts + (dur or 0)}[segs[0]]
            if n is None:
                return ""
            return str(n) if tunit == "ns" else dec_text(n, tunit)
        v = e
        for s in segs:
            v = v.get(s) if isinstance(v, dict) else None
        if v is None:
            return ""
        if type(v) is str:
            return v
        if type(v) is int:
            return str(v)
        return ser(v)

    sep = "," if fmt == "csv" else "\t"
    out = []
    if header:
        out.append(sep.join(cell(n) for n in split_list(flist)))
    for e in events:
        if meta or not (isinstance(e, dict) and e.get("ph") == "M"):
            out.append(sep.join(cell(value(e, f)) for f in fields))
    sys.stdout.write("\n".join(out) + "\n")


def split_list(s):
    """The field names of a -F list as written (commas inside quotes kept)."""
    names, cur, quoted = [], "", False
    for c in s:
        if c == '"':
            quoted = not quoted
        if c == "," and not quoted:
            names.append(cur)
            cur = ""
        else:
            cur += c
    return names + [cur]


def cmd_stream(args):
    for n, v in enumerate(read_stream(args[0]), 1):
        if not isinstance(v, dict):
            die("%s:%d: not an object" % (args[0], n))
        for k in ("ts", "dur"):
            t = v.get(k)
            if isinstance(t, Decimal) or (isinstance(t, str) and JSON_NUMBER.match(t)):
                die("%s:%d: %s is not an integer of ns: %s" % (args[0], n, k, ser(t)))


def cmd_batch(args):
    """batch FILE [INPUT...]: each line of FILE a command and its
    arguments (shell words), answered in one process, each trace read
    once; each answer follows a line '@@ N STATUS' (N from 1, STATUS the
    command's exit status, its message in the answer).  The INPUTs are
    not read: they name the files the commands read, so that the tests'
    cache of answers knows them."""
    import batch
    batch.run(args[0], lambda w: CMDS[w[0]](w[1:]))


CMDS = {"events": cmd_events, "header": cmd_header, "count": cmd_count,
        "check": cmd_check, "compare": cmd_compare,
        "wrapcheck": cmd_wrapcheck, "columns": cmd_columns,
        "stream": cmd_stream, "batch": cmd_batch}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in CMDS:
        die("usage: oracle.py %s ..." % "|".join(CMDS))
    CMDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
