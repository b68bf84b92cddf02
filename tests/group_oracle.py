#!/usr/bin/env python3
"""group_oracle.py - what mct-group should print, computed independently.

The tests of mct-group compare its output with this script, never with
output captured from mct.  Python's own json module reads the stream;
nothing here shares code or logic with mct's C library.  Every definition
is taken from mct-group(1):

  input      an mct stream (the first line is the header
             {"name":"mct_header",...}; further header lines are dropped),
             or events one a line without a header (the origin is then the
             smallest integer ts of the events that are not ph M).  Events
             whose ph is "M" are left out unless --meta.
  groups     by the --by fields: first-level keys, dotted paths with
             quoted segments (args."a b"), rel (ts - origin), end (ts +
             dur, dur 0 when missing), category (the rules file: first
             matching rule wins, label - means no category, no rule at
             all is the category "(other)"; the rules and
             their --where predicates are tests/filter_oracle.py's, the
             one python reading of that language).  An event
             that lacks a --by field is left out, unless --missing (then
             the field is empty in its group's key).
  values     --value FIELD (default dur): a number, or a string holding a
             JSON number; other events of the group have no value.
  count      every event of the group; total mean median min max stddev
             (sample, n-1, 0 for one value) pN (linear between the closest
             ranks: position q*(n-1) in the sorted values) use the events
             that have the value; share = 100 * total / the value summed
             over every event of the input that has it (metadata aside
             unless --meta), whether grouped or not; first = the smallest
             ts of the group - origin, last = the largest ts+dur - origin;
             sum:F min:F max:F mean:F over the events that have F.
  sort       --sort AGG: largest first, groups without a value last; by a
             --by field: its JSON text, byte order; ties by the whole key
             (the --by values' JSON text joined by \\x1f), byte order; -r
             reverses the whole order.  Default total.
  defaults   -a count,total,share,mean,median,min,max; of a --value that
             is a time between two events (latency, queue, skew), whose
             sum means nothing, -a count,median,p90,max and --sort median.
  rows       --top N: the first N groups, then "(others)" made of the rest
             (when there is a rest); --total: a "(total)" row of every
             grouped event.

Integers are exact python ints, sums of integers exact, medians and
percentiles of integers exact Fractions.  How closely mct-group's number
must match:
  int      count total min max first last sum: min: max: of integers:
           digit for digit (also scaled by --time-unit, an exact decimal);
  double   medians of integers, min/max of doubles: the double nearest the
           exact value; with --exact-quantiles, every percentile too;
  approx   mean, share, stddev, mean:, interpolated percentiles, anything
           of doubles: within 1e-9, relative.

Usage:
  group_oracle.py [OPTIONS] [FILE...]          print the tsv mct-group -o tsv
                                               should print (exact numbers)
  group_oracle.py --check OUT [OPTIONS] [FILE...]
                                               OUT, mct-group's output (-o tsv,
                                               csv or ndjson, see --format), holds
                                               the rows wanted in their order;
                                               exit 1 naming the first difference
  group_oracle.py --batch FILE [INPUT...]      each line of FILE the options
                                               of one of the above (shell words),
                                               answered in one process, each
                                               stream read once in a row of
                                               questions; each answer after a
                                               line "@@ N STATUS" (N from 1);
                                               INPUTs only name what is read
OPTIONS, as mct-group's: -k/--by, --value, -a/--aggregates, -s/--sort,
  -r/--reverse, -n/--top, --total, --missing, --meta, --rules (default
  $MCT_RULES), --time-unit, --no-header; and for --check: --format
  tsv|csv|ndjson (of OUT), --any-order (rows in any order),
  --exact-quantiles (percentiles of integers must be the nearest double).
ndjson (--format ndjson): the input's header line first, then per row the
--by fields nested ({"args":{"grid":..}}; virtual fields under their
names), every aggregate under its name (null when empty), "name" (the key
text when name is not a --by field; the row's label for (others) and
(total)), "ph":"X", "ts" = the first start and "dur" = last end - first
start in absolute ns.
Exit status: 0 ok, 1 a difference, 2 a usage error (e.g. an unknown
aggregate or --sort name, like mct-group).
"""
import argparse
import csv
import io
import json
import math
import os
import re
import sys
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import filter_oracle  # noqa: E402  (the --where language and rules files)

UNITS = {"ns": 1, "us": 1000, "ms": 10**6, "s": 10**9}
JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?\Z")
INTEGER = re.compile(r"-?[0-9]+\Z")
TIME_NAMES = ("latency", "queue", "launch.dur", "launch.ts", "span", "busy", "tdur")
SIMPLE = ("count", "total", "share", "mean", "median", "min", "max", "stddev",
          "first", "last")
HEADER = '{"name":"mct_header"'


Usage = filter_oracle.Usage     # one usage error for both oracles


class Fl(float):
    """A JSON number with a fraction or exponent; keeps its text."""

    def __new__(cls, text):
        f = float.__new__(cls, text)
        f.text = text
        return f


def loads(text):
    return DECODER.decode(text)


DECODER = json.JSONDecoder(parse_float=Fl, strict=False)
ENCODER = json.JSONEncoder(ensure_ascii=False)


def ser(v):
    """Compact JSON text of a value, number texts kept."""
    if isinstance(v, dict):
        return "{" + ",".join(ENCODER.encode(k) + ":" + ser(x)
                              for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(ser(x) for x in v) + "]"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, Fl):
        return v.text
    if isinstance(v, int):
        return str(v)
    return ENCODER.encode(v)


# ---------------------------------------------------------------- fields

def split_list(s):
    """A comma-separated list; commas inside double quotes do not split."""
    out, cur, q, i = [], "", False, 0
    while i < len(s):
        c = s[i]
        if q and c == "\\" and i + 1 < len(s):
            cur += s[i:i + 2]
            i += 2
            continue
        if c == '"':
            q = not q
        if c == "," and not q:
            out.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    out.append(cur)
    return out


class Field:
    def __init__(self, text):
        self.text = text
        self.segs = []
        if text in ("rel", "end", "category"):
            self.kind = text
        else:
            self.kind = "path"
            i = 0
            while True:
                if i < len(text) and text[i] == '"':
                    j, seg = i + 1, ""
                    while j < len(text) and text[j] != '"':
                        if text[j] == "\\" and j + 1 < len(text):
                            j += 1
                        seg += text[j]
                        j += 1
                    if j >= len(text):
                        raise Usage("invalid field '%s'" % text)
                    i = j + 1
                else:
                    j = text.find(".", i)
                    j = len(text) if j < 0 else j
                    seg = text[i:j]
                    i = j
                if seg == "":
                    raise Usage("invalid field '%s'" % text)
                self.segs.append(seg)
                if i == len(text):
                    break
                if text[i] != ".":
                    raise Usage("invalid field '%s'" % text)
                i += 1
        self.time = self.kind in ("rel", "end") or \
            (self.kind == "path" and self.segs in (["ts"], ["dur"])) or \
            text in TIME_NAMES


MISSING = object()


def int_of(v):
    return v if type(v) is int else None


def get(ev, f, st):
    """The value of a field: a JSON value, or MISSING."""
    if f.kind == "rel":
        ts = int_of(ev.get("ts"))
        if ts is None or st.origin is None:
            return MISSING
        return ts - st.origin
    if f.kind == "end":
        ts = int_of(ev.get("ts"))
        if ts is None:
            return MISSING
        return ts + (int_of(ev.get("dur")) or 0)
    if f.kind == "category":
        c = st.rules.category(ev, st)
        return MISSING if c is None else c
    v = ev
    for s in f.segs:
        if not isinstance(v, dict) or s not in v:
            return MISSING
        v = v[s]
    return v


def number(v):
    """A number (int exact, else float) from a JSON number or a string
    holding one; None otherwise."""
    if isinstance(v, bool) or v is None:
        return None
    if type(v) is int:
        return v
    if isinstance(v, Fl):
        return float(v)
    if isinstance(v, str) and JSON_NUMBER.match(v):
        return int(v) if INTEGER.match(v) else float(v)
    return None


# ---------------------------------------------------------------- rules
#
# The rules file and its predicates are the --where language, which
# tests/filter_oracle.py implements: category is asked of it, on the
# event's line decoded its way.

class Rules:
    def __init__(self, path):
        self.rules = None if path is None else filter_oracle.load_rules(path)
        self.ctx = None

    def category(self, ev, st):
        """The label of the first rule that matches (None for -), or
        (other) when none does: mct-group's row for what no rule knows."""
        if self.ctx is None:
            self.ctx = filter_oracle.Ctx(st.origin, self.rules)
        e = filter_oracle.loads(st.raw[id(ev)])
        for label, x in self.rules:
            if filter_oracle.eval_expr(x, e, self.ctx):
                return label
        return "(other)"


# ---------------------------------------------------------------- groups

class Group:
    def __init__(self, key, parts, nx):
        self.key = key          # bytes: the parts' JSON text joined by \x1f
        self.parts = parts      # JSON values, MISSING for a missing one
        self.count = 0
        self.vals = []
        self.x = [[] for _ in range(nx)]
        self.first = self.last = None

    def merge(self, g):
        self.count += g.count
        self.vals += g.vals
        for a, b in zip(self.x, g.x):
            a += b
        if g.first is not None:
            self.first = g.first if self.first is None else min(self.first, g.first)
            self.last = g.last if self.last is None else max(self.last, g.last)


class Agg:
    def __init__(self, text, st):
        self.text = text
        self.kind, self.q, self.x = text, None, None
        m = re.match(r"p([0-9]+(?:\.[0-9]+)?)\Z", text)
        if text in SIMPLE:
            pass
        elif m and Fraction(m.group(1)) <= 100:
            self.kind, self.q = "p", Fraction(m.group(1)) / 100
        elif ":" in text and text.split(":", 1)[0] in ("sum", "min", "max", "mean"):
            self.kind, f = text.split(":", 1)
            self.kind += ":"
            fl = Field(f)
            names = [g.text for g in st.xf]
            if fl.text not in names:
                st.xf.append(fl)
                names.append(fl.text)
            self.x = names.index(fl.text)
        else:
            raise Usage("unknown aggregate '%s'" % text)
        self.time = self.kind in ("first", "last") or \
            (self.x is None and self.kind not in ("count", "share") and st.value.time) or \
            (self.x is not None and st.xf[self.x].time)


# How exactly mct-group must print a value:
INT = "int"          # an integer, digit for digit
DOUBLE = "double"    # the double nearest to the exact value
APPROX = "approx"    # computed in floating point: within 1e-9, relative


def xsum(v):
    """The exact sum: an int for ints, a Fraction when there are floats."""
    ints = sum(y for y in v if type(y) is int)
    fl = [y for y in v if type(y) is not int]
    return ints + sum(Fraction(y) for y in fl) if fl else ints


def quantile(vals, q, st):
    """(value, exactness): linear between the closest ranks."""
    s = sorted(vals)
    n = len(s)
    pos = q * (n - 1)
    i = math.floor(pos)
    ints = all(type(v) is int for v in s)
    if i + 1 >= n:
        return s[-1], INT if ints else DOUBLE
    lo, hi = s[i], s[i + 1]
    if pos == i:
        return lo, INT if ints else DOUBLE
    if ints:
        exact = DOUBLE if q == Fraction(1, 2) or st.exact_quantiles else APPROX
        return Fraction(lo) + (Fraction(hi) - Fraction(lo)) * (pos - i), exact
    return lo + (hi - lo) * float(pos - i), APPROX


def value_of(g, a, st):
    """(value or None, exactness): a group's aggregate."""
    if a.kind == "count":
        return g.count, INT
    if a.kind in ("first", "last"):
        if g.first is None:
            return None, INT
        o = st.origin or 0
        return (g.first if a.kind == "first" else g.last) - o, INT
    if a.x is not None:
        v = g.x[a.x]
        if not v:
            return None, INT
        ints = all(type(y) is int for y in v)
        if a.kind == "sum:":
            return (sum(v), INT) if ints else (math.fsum(v), APPROX)
        if a.kind in ("min:", "max:"):
            m = min(v) if a.kind == "min:" else max(v)
            return m, INT if type(m) is int else DOUBLE
        return Fraction(sum(v), len(v)) if ints else math.fsum(v) / len(v), APPROX
    v = g.vals
    if not v:
        return None, INT
    ints = all(type(y) is int for y in v)
    tot = xsum(v)
    if a.kind == "total":
        return (tot, INT) if ints else (float(tot), APPROX)
    if a.kind == "share":
        if st.alltotal == 0:
            return None, INT
        return Fraction(100 * tot) / st.alltotal, APPROX
    if a.kind == "mean":
        return Fraction(tot) / len(v), APPROX
    if a.kind in ("min", "max"):
        m = min(v) if a.kind == "min" else max(v)
        return m, INT if ints else DOUBLE
    if a.kind == "stddev":
        if len(v) == 1:
            return 0, INT
        n = len(v)
        if ints:
            s2 = sum(y * y for y in v)
            return math.sqrt(Fraction(n * s2 - tot * tot, n * (n - 1))), APPROX
        m = Fraction(tot) / n
        return math.sqrt(sum((Fraction(y) - m) ** 2 for y in v) / (n - 1)), APPROX
    return quantile(v, Fraction(1, 2) if a.kind == "median" else a.q, st)


class State:
    pass


_last = {}     # --batch: the last operands read, and what was read


def read_events(paths, st, meta):
    """Events of the operands (header line, and M events unless meta, left
    out); the same operands again in a row are not read again."""
    key = (tuple(paths or ["-"]), meta)
    if key in _last and "-" not in key[0]:
        evs, st.header_line, st.raw, st.origin, st.header = _last[key]
        return list(evs)
    _last.clear()
    evs = read_events1(paths, st, meta)
    _last[key] = (evs, st.header_line, st.raw, st.origin, st.header)
    return list(evs)


def read_events1(paths, st, meta):
    events, header = [], None
    st.header_line = None
    st.raw = {}
    for p in paths or ["-"]:
        f = sys.stdin if p == "-" else open(p, encoding="utf-8", errors="surrogateescape")
        with f:
            for n, line in enumerate(f):
                line = line.rstrip("\n")
                if not line:
                    continue
                if line.startswith(HEADER):
                    if header is None:
                        header = loads(line)
                        st.header_line = line
                    continue
                ev = loads(line)
                if isinstance(ev, dict):
                    events.append(ev)
                    st.raw[id(ev)] = line  # for the rules (category)
    if header is not None:
        st.origin = header["args"].get("origin")
    else:
        ts = [e["ts"] for e in events if type(e.get("ts")) is int and e.get("ph") != "M"]
        st.origin = min(ts) if ts else None
    st.header = header
    return [e for e in events if meta or e.get("ph") != "M"]


# Times between two events (mct-flow's latency and queue, a collective's
# skew): their sum means nothing, so -a defaults to these, sorted by median.
BETWEEN = ("latency", "queue", "skew")


def compute(a):
    if a.aggregates is None:
        between = a.value in BETWEEN
        a.aggregates = ("count,median,p90,max" if between else
                        "count,total,share,mean,median,min,max")
        if between and a.sort is None:
            a.sort = "median"
    st = State()
    st.exact_quantiles = a.exact_quantiles
    st.value = Field(a.value)
    st.by = [Field(x) for x in split_list(a.by)]
    st.xf = []
    st.aggs = [Agg(x, st) for x in split_list(a.aggregates)]
    if not st.aggs or any(x.text == "" for x in st.aggs):
        raise Usage("no aggregates")
    st.rules = Rules(a.rules)
    if any(f.kind == "category" for f in st.by) and a.rules is None:
        raise Usage("category needs --rules or $MCT_RULES")
    sort = a.sort or "total"
    byt = [f.text for f in st.by]
    if sort in byt:
        sortby = ("field", byt.index(sort))
    else:
        try:
            sortby = ("agg", Agg(sort, st))
        except Usage:
            raise Usage("unknown --sort '%s'" % sort)
    events = read_events(a.files, st, a.meta)
    groups = {}
    alli, allf = 0, []
    for ev in events:
        v = get(ev, st.value, st)
        val = None if v is MISSING else number(v)
        if (st.value.kind != "path" or st.value.segs in (["ts"], ["dur"])) and \
                type(val) is not int:
            val = None
        if type(val) is int:
            alli += val
        elif val is not None:
            allf.append(val)
        parts = [get(ev, f, st) for f in st.by]
        if not a.missing and any(p is MISSING for p in parts):
            continue
        key = "\x1f".join("" if p is MISSING else ser(p) for p in parts) \
            .encode("utf-8", "surrogateescape")
        g = groups.get(key)
        if g is None:
            g = groups[key] = Group(key, parts, len(st.xf))
        g.count += 1
        if val is not None:
            g.vals.append(val)
        for i, f in enumerate(st.xf):
            xv = get(ev, f, st)
            xn = None if xv is MISSING else number(xv)
            if xn is not None:
                g.x[i].append(xn)
        ts = int_of(ev.get("ts"))
        if ts is not None:
            end = ts + (int_of(ev.get("dur")) or 0)
            g.first = ts if g.first is None else min(g.first, ts)
            g.last = end if g.last is None else max(g.last, end)
    st.alltotal = xsum([alli] + allf)
    rows = list(groups.values())
    if sortby[0] == "field":
        i = sortby[1]
        rows.sort(key=lambda g: (b"" if g.parts[i] is MISSING else
                                 ser(g.parts[i]).encode("utf-8", "surrogateescape"), g.key))
    else:
        ag = sortby[1]

        def k(g):
            v = value_of(g, ag, st)[0]
            return (v is None, 0 if v is None else -Fraction(v), g.key)
        rows.sort(key=k)
    if a.reverse:
        rows.reverse()
    out = [(g, None) for g in rows]
    if a.top is not None:
        if a.top < 1:
            raise Usage("invalid --top")
        if len(rows) > a.top:
            o = Group(b"", [], len(st.xf))
            for g in rows[a.top:]:
                o.merge(g)
            out = out[:a.top] + [(o, "(others)")]
    if a.total:
        t = Group(b"", [], len(st.xf))
        for g in rows:
            t.merge(g)
        out.append((t, "(total)"))
    st.rows = out
    return st


# ---------------------------------------------------------------- output

def exact_text(v, unit=1):
    """An exact number as decimal text (ints plain, fractions exact when
    finite in decimal, else 17 significant digits)."""
    if isinstance(v, float):
        return repr(v / unit)
    f = Fraction(v) / unit
    if f.denominator == 1:
        return str(f.numerator)
    d = f.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d == 1:
        n, k = f, 0
        while n.denominator != 1:
            n *= 10
            k += 1
        s = str(abs(n.numerator)).rjust(k + 1, "0")
        return ("-" if f < 0 else "") + s[:-k] + "." + s[-k:]
    return repr(float(f))


def key_cells(g, label, st):
    if label is not None:
        return [label] + [""] * (len(st.by) - 1)
    cells = []
    for p in g.parts:
        if p is MISSING or p is None:
            cells.append("")
        elif isinstance(p, str):
            cells.append(p)
        else:
            cells.append(ser(p))
    return cells


def table(st, unit):
    """[(by cells, [(value, exact, time)], group, label)]"""
    rows = []
    for g, label in st.rows:
        vals = []
        for ag in st.aggs:
            v, ex = value_of(g, ag, st)
            vals.append((v, ex, ag.time))
        rows.append((key_cells(g, label, st), vals, g, label))
    return rows


def tsv_escape(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def print_tsv(st, a):
    unit = UNITS[a.time_unit]
    if not a.no_header:
        print("\t".join([f.text for f in st.by] + [x.text for x in st.aggs]))
    for cells, vals, _, _ in table(st, unit):
        print("\t".join([tsv_escape(c) for c in cells] +
                        ["" if v is None else exact_text(v, unit if t else 1)
                         for v, _, t in vals]))


# ---------------------------------------------------------------- --check

def die(msg):
    print("group_oracle: " + msg, file=sys.stderr)
    sys.exit(1)


def same_number(got, want, exact, unit):
    """got: the text mct-group printed; want: the oracle's value, in ns
    for a time (unit scales it)."""
    try:
        gf = Fraction(str(got))
    except (ValueError, ZeroDivisionError):
        return False
    wf = Fraction(want) / unit
    if gf == wf:
        return True
    if exact == INT and (unit == 1 or Fraction(want).denominator == 1):
        return False
    if exact == DOUBLE and unit == 1:
        return float(gf) == float(wf)
    return abs(gf - wf) <= abs(wf) * Fraction(1, 10**9) + Fraction(1, 10**9)


def read_out(a):
    with open(a.check, encoding="utf-8", errors="surrogateescape", newline="") as f:
        text = f.read()
    if a.format == "csv":
        return list(csv.reader(io.StringIO(text)))
    if a.format == "tsv":
        return [l.split("\t") for l in text.split("\n") if l != ""] if text else []
    return [l for l in text.split("\n") if l != ""]


def check_cells(where, got, cells, vals, unit, a):
    want_cells = cells if a.format == "csv" else [tsv_escape(c) for c in cells]
    if got[:len(cells)] != want_cells:
        die("%s: key %r, want %r" % (where, got[:len(cells)], want_cells))
    for (v, ex, t), gc, name in zip(vals, got[len(cells):], a.aggnames):
        if v is None:
            if gc != "":
                die("%s: %s is %r, want empty (no value)" % (where, name, gc))
        elif not same_number(gc, v, ex, unit if t else 1):
            die("%s: %s is %r, want %s" % (where, name, gc, exact_text(v, unit if t else 1)))


def nest(st, g):
    """The --by fields as the nested object an ndjson record holds."""
    obj = {}
    for f, p in zip(st.by, g.parts):
        val = None if p is MISSING else p
        if f.kind != "path":
            obj[f.text] = val
            continue
        o = obj
        for s in f.segs[:-1]:
            if not isinstance(o.get(s), dict):
                o[s] = {}
            o = o[s]
        o[f.segs[-1]] = val
    return obj


def check(st, a):
    unit = UNITS[a.time_unit]
    rows = table(st, unit)
    out = read_out(a)
    a.aggnames = [x.text for x in st.aggs]
    if a.format == "ndjson":
        if st.header is not None:
            if not out or out[0] != st.header_line:
                die("the first line is not the input's header line: %r" % (out[0][:200] if out else None))
            out = out[1:]
        recs = [loads(l) for l in out]
        if a.any_order:
            rows.sort(key=lambda r: json.dumps(r[0]))
            recs.sort(key=lambda r: json.dumps(key_cells_rec(r, st)))
        if len(recs) != len(rows):
            die("%d records, want %d" % (len(recs), len(rows)))
        for n, (rec, (cells, vals, g, label)) in enumerate(zip(recs, rows), 1):
            where = "record %d" % n
            keys = [f.text for f in st.by] if label is None else []
            if label is not None:
                if rec.get("name") != label:
                    die("%s: name %r, want %r" % (where, rec.get("name"), label))
            else:
                want = nest(st, g)
                for k, v in want.items():
                    if k not in rec or canon(rec[k]) != canon(v):
                        die("%s: %s is %s, want %s" % (where, k, canon(rec[k]) if k in rec
                                                       else "missing", canon(v)))
                if "name" not in [f.text for f in st.by]:
                    wn = " ".join(cells)
                    if rec.get("name") != wn:
                        die("%s: name %r, want %r" % (where, rec.get("name"), wn))
            for (v, ex, t), name in zip(vals, a.aggnames):
                if name not in rec:
                    die("%s: no %s" % (where, name))
                gv = rec[name]
                if v is None:
                    if gv is not None:
                        die("%s: %s is %r, want null" % (where, name, gv))
                elif isinstance(gv, bool) or not isinstance(gv, (int, float)) or \
                        not same_number(gv.text if isinstance(gv, Fl) else gv, v, ex,
                                        unit if t else 1):
                    die("%s: %s is %r, want %s" % (where, name, gv,
                                                   exact_text(v, unit if t else 1)))
            if g.first is not None:
                if rec.get("ph") != "X" or rec.get("ts") != g.first or \
                        rec.get("dur") != g.last - g.first:
                    die("%s: ph/ts/dur %r/%r/%r, want X/%d/%d" % (
                        where, rec.get("ph"), rec.get("ts"), rec.get("dur"),
                        g.first, g.last - g.first))
        return 0
    if not a.no_header:
        want = [f.text for f in st.by] + a.aggnames
        if not out or out[0] != want:
            die("header %r, want %r" % (out[0] if out else None, want))
        out = out[1:]
    if a.any_order:
        rows.sort(key=lambda r: [tsv_escape(c) for c in r[0]])
        out.sort(key=lambda r: r[:len(st.by)])
    if len(out) != len(rows):
        die("%d rows, want %d" % (len(out), len(rows)))
    for n, (got, (cells, vals, _, _)) in enumerate(zip(out, rows), 1):
        if len(got) != len(cells) + len(vals):
            die("row %d: %d cells, want %d: %r" % (n, len(got), len(cells) + len(vals), got))
        check_cells("row %d" % n, got, cells, vals, unit, a)
    return 0


_CANON = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode


def canon(v):
    return _CANON(v)


def key_cells_rec(rec, st):
    return [ser(rec.get(f.text)) for f in st.by]


# ---------------------------------------------------------------- main

def parser():
    p = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    p.add_argument("-k", "--by", default="name")
    p.add_argument("--value", default="dur")
    p.add_argument("-a", "--aggregates")
    p.add_argument("-s", "--sort")
    p.add_argument("-r", "--reverse", action="store_true")
    p.add_argument("-n", "--top", type=int)
    p.add_argument("--total", action="store_true")
    p.add_argument("--missing", action="store_true")
    p.add_argument("--meta", action="store_true")
    p.add_argument("--rules", default=os.environ.get("MCT_RULES"))
    p.add_argument("--time-unit", default="ns", choices=sorted(UNITS))
    p.add_argument("--no-header", action="store_true")
    p.add_argument("--check")
    p.add_argument("--format", default="tsv", choices=("tsv", "csv", "ndjson"))
    p.add_argument("--any-order", action="store_true")
    p.add_argument("--exact-quantiles", action="store_true")
    p.add_argument("files", nargs="*")
    return p


def batch(argv):
    import batch as questions
    questions.run(argv[0], main)
    return 0


def main(argv):
    if argv[:1] == ["--batch"]:
        return batch(argv[1:])
    a = parser().parse_args(argv)
    try:
        st = compute(a)
    except Usage as u:
        print("group_oracle: %s" % u, file=sys.stderr)
        return 2
    if a.check:
        return check(st, a)
    print_tsv(st, a)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
