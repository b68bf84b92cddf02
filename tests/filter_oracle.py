#!/usr/bin/env python3
"""filter_oracle.py - what mct-filter should keep, computed independently.

The tests of mct-filter compare its output with this script, never with
output captured from mct.  Python's own json module reads the input;
nothing here shares code or logic with mct's C library.  Every predicate
of mct-filter(1) is implemented again from the man page:

  selection  options of one kind OR their values, different options AND;
             ph M events (metadata) always pass (not with --no-meta) and
             are not counted; -v inverts the predicates but not the
             --from/--to window, which holds either way.
  --ph --pid --tid   the value's text equals one of the values given
             (a number by its JSON text, a string by its content).
  --cat      equals, or equals one comma-separated part of cat.
  --name     fnmatch shell pattern; --match a POSIX ERE (re.search);
             -i folds case for both.
  --from --to (times relative to the origin, @ absolute): an X event is
             kept when ts < to and ts+dur > from (a zero-length X when
             from <= ts < to); any other event when from <= ts < to;
             --within: from <= ts and ts+dur <= to; --clip cuts the ts and
             dur of X events that stick out of the window.
  --min-dur --max-dur  dur (missing: 0) >= min, <= max.
  --where    the FIELD OP VALUE language (see parse_expr below).
  --category with --rules FILE (LABEL<TAB>PREDICATE, first match wins,
             # comments, label - = no category).

Input: trace files (Object, Array or NDJSON form, gzip, unterminated) or
mct streams (first line {"name":"mct_header",...}).  In a trace, ts/dur
are converted to integer ns from their text with Decimal: the unit is
--unit, else us when a ts/dur text has a '.', else ns when an event has
args.co_id, else us.  The origin is the smallest ts over non-M events of
all inputs (a stream's header gives its own).

Modes (default: print the number of kept non-M events, like -c):
  --events           print the kept events, one canonical JSON line each
  --check OUTPUT     OUTPUT (mct-filter's output: a stream, or a trace
                     written by -o trace) holds exactly the kept events,
                     in order; exit 1 with the first difference
  --out-unit U       with --check of a trace: its ts/dur unit (default:
                     detected as for an input trace)
  --tsv FIELDS       the TSV mct-filter -o tsv -F FIELDS should print
                     (with --time-unit U, --no-header); no rows for
                     M events unless --meta or --ph M
  --csv FIELDS       the cells of mct-filter -o csv -F FIELDS, one JSON
                     list a row; "--parse-csv FILE" (alone) prints the
                     rows of a CSV file read by python's csv module alike
  --classify         print "label<TAB>count" for every category
  --batch FILE       each line of FILE is a list of options (shell words);
                     print "RESULT<TAB>LINE" for each, RESULT the count, or
                     with --check "ok" or "FAIL: why" (loads the input once)

Exit status: 0; 1 when a --check fails; 2 for a bad option or predicate.
"""
import argparse
import csv
import fnmatch
import gzip
import json
import re
import shlex
import sys
from decimal import Decimal, ROUND_HALF_UP

UNITS = {"ns": 1, "us": 1000, "ms": 10**6, "s": 10**9}
NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?\Z")
TIME = re.compile(r"(@?)([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+))(ns|us|ms|s|m)?\Z")


class Usage(Exception):
    pass


class Num:
    """A JSON number with a fraction or exponent, kept as its text."""
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __eq__(self, other):
        return isinstance(other, Num) and self.text == other.text

    def __hash__(self):
        return hash(self.text)


def loads(text):
    return json.loads(text, parse_float=Num, strict=False)


def ser(v):
    """Compact JSON text of a value, numbers as their text."""
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + ser(x)
                              for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(ser(x) for x in v) + "]"
    if isinstance(v, Num):
        return v.text
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, int):
        return str(v)
    return json.dumps(v, ensure_ascii=False)


def jtype(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, Num)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def text_of(v):
    """The text a value is compared by: a string's content, else its JSON."""
    t = type(v)
    if t is str:
        return v
    if t is int:
        return str(v)       # (ser's text of an int, sooner)
    return ser(v)


def num_text(v):
    """The number text of a ts/dur value (number, or string holding one)."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return str(v)
    if isinstance(v, Num):
        return v.text
    if isinstance(v, str) and JSON_NUMBER.match(v):
        return v
    return None


def to_ns(text, unit):
    ns = (Decimal(text) * UNITS[unit]).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return int(ns)


# ---------------------------------------------------------------- input

def read_text(path):
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    return data.decode("utf-8", errors="replace")


def parse_trace_text(text):
    """(form, top, events) of a trace; repairs a missing closing ] or ]}."""
    s = text.strip()
    try:
        doc = loads(s)
    except ValueError:
        doc = None
        t = s.rstrip().rstrip(",").rstrip()
        for tail in ("]", "]}", "}"):
            try:
                doc = loads(t + tail)
                break
            except ValueError:
                pass
        if doc is None:
            # NDJSON: one event a line
            events = []
            for line in s.splitlines():
                line = line.strip().rstrip(",")
                if line:
                    events.append(loads(line))
            return "ndjson", {}, events
    if isinstance(doc, list):
        return "array", {}, doc
    if isinstance(doc, dict) and "traceEvents" in doc:
        top = {k: v for k, v in doc.items() if k != "traceEvents"}
        return "object", top, doc["traceEvents"]
    return "ndjson", {}, [doc]


class Input:
    """All operands: events with ts/dur in ns, and the origin."""

    def __init__(self, paths, unit="auto"):
        self.events = []
        self.origin = None
        self.tops = []
        self.forms = []
        self.ntrace = 0
        ops = []
        for i, p in enumerate(paths or ["-"]):
            n = len(self.events)
            if self._add(p, unit):
                ops.append((i, p, n, len(self.events)))
        # two trace operands or more are the ranks of a job (mct(7)): every
        # event gets the rank of its file, by distributedInfo.rank, else the
        # number after "rank" in its name, else its place among the operands
        if len(ops) > 1:
            for i, p, a, b in ops:
                di = self.tops[i].get("distributedInfo")
                r = di.get("rank") if isinstance(di, dict) else None
                if not (type(r) is int and r >= 0):
                    m = re.search(r"rank[-_]?([0-9]{1,9})",
                                  p.rsplit("/", 1)[-1], re.I) \
                        if p != "-" else None
                    r = int(m.group(1)) if m else i
                for e in self.events[a:b]:
                    e["rank"] = r

    def _origin(self, o):
        if o is not None and (self.origin is None or o < self.origin):
            self.origin = o

    def _add(self, path, unit):
        text = read_text(path)
        if text.startswith('{"name":"mct_header"'):
            lines = text.split("\n")
            hdr = loads(lines[0])
            self.tops.append(hdr["args"].get("top", {}))
            self.forms.append(hdr["args"].get("form"))
            self._origin(hdr["args"].get("origin"))
            for line in lines[1:]:
                if not line:
                    continue
                if line.startswith('{"name":"mct_header"'):
                    continue
                self.events.append(loads(line))
            return False
        form, top, events = parse_trace_text(text)
        self.forms.append(form)
        self.tops.append(top)
        events = [e for e in events if isinstance(e, dict)]
        if unit == "auto":
            unit = detect_unit(events)
        convert_times(events, unit)
        for e in events:
            ts = e.get("ts")
            if type(ts) is int and e.get("ph") != "M":
                self._origin(ts)
        self.events.extend(events)
        return True


def detect_unit(events):
    """us if a ts/dur text has a '.', else ns if args.co_id, else us."""
    for e in events:
        for k in ("ts", "dur"):
            v = e.get(k)
            if v is not None and type(v) is not int:
                t = num_text(v)
                if t is not None and "." in t:
                    return "us"
    for e in events:
        a = e.get("args")
        if isinstance(a, dict) and "co_id" in a:
            return "ns"
    return "us"


def convert_times(events, unit):
    mult = UNITS[unit]
    for e in events:
        for k in ("ts", "dur"):
            v = e.get(k)
            if type(v) is int:
                e[k] = v * mult
            elif v is not None:
                t = num_text(v)
                if t is not None:
                    e[k] = to_ns(t, unit)


def int_key(e, k):
    v = e.get(k)
    return v if type(v) is int else None


# ---------------------------------------------------------------- times

def parse_time(s, allow_abs=True):
    """A command-line time: (ns, absolute).  Raises Usage."""
    m = TIME.match(s)
    if not m or (m.group(1) and not allow_abs):
        raise Usage("invalid time '%s'" % s)
    unit = m.group(3) or "ns"
    v = Decimal(m.group(2))
    if unit == "m":
        v *= 60 * 10**9
    else:
        v *= UNITS[unit]
    return int(v.quantize(Decimal(1), rounding=ROUND_HALF_UP)), bool(m.group(1))


# ---------------------------------------------------------------- regexes

CLASSES = {"[:digit:]": "0-9", "[:alpha:]": "A-Za-z", "[:alnum:]": "A-Za-z0-9",
           "[:upper:]": "A-Z", "[:lower:]": "a-z", "[:space:]": r" \t\n\r\f\v",
           "[:xdigit:]": "0-9A-Fa-f", "[:punct:]": r"!-/:-@\[-`{-~"}


def ere(pattern, icase=False):
    """A POSIX ERE (the common subset) as a python regex."""
    for k, v in CLASSES.items():
        pattern = pattern.replace(k, v)
    try:
        return re.compile(pattern, re.I if icase else 0)
    except re.error as e:
        raise Usage("invalid regular expression '%s': %s" % (pattern, e))


# ---------------------------------------------------------------- fields

class Field:
    def __init__(self, text):
        self.text = text
        self.kind = "path"
        self.segs = []
        if text in ("rel", "end"):
            self.kind = text
        elif text == "category":
            self.kind = "category"
        else:
            i = 0
            while i < len(text):
                if text[i] == '"':
                    j = i + 1
                    seg = ""
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
                    if j < 0:
                        j = len(text)
                    seg = text[i:j]
                    i = j
                if seg == "":
                    raise Usage("invalid field '%s'" % text)
                self.segs.append(seg)
                if i < len(text):
                    if text[i] != ".":
                        raise Usage("invalid field '%s'" % text)
                    i += 1
                    if i == len(text):
                        raise Usage("invalid field '%s'" % text)
            if not self.segs:
                raise Usage("invalid field '%s'" % text)
        self.time = self.kind in ("rel", "end") or \
            (self.kind == "path" and len(self.segs) == 1 and self.segs[0] in ("ts", "dur"))


MISSING = object()


class Ctx:
    """What evaluation needs besides the event: origin and rules."""

    def __init__(self, origin, rules=None, rules_path=None):
        self.origin = origin
        self.rules = rules
        # each event's category, kept for the process's other questions
        # with the same rules file (a --batch asks several): the event
        # kept beside it, so that its id is not another's
        self.cache = {} if rules_path is None else \
            _CATEGORIES.setdefault((rules_path, origin), {})


_CATEGORIES = {}


def get(ev, f, ctx):
    if f.kind == "category":
        c = category(ev, ctx)
        return MISSING if c is None else c
    if f.kind != "path":
        return MISSING
    v = ev
    for s in f.segs:
        if not isinstance(v, dict) or s not in v:
            return MISSING
        v = v[s]
    return v


def field_ns(ev, f, ctx):
    """A time field in ns, or None."""
    ts = int_key(ev, "ts")
    if f.kind == "rel":
        if ts is None or ctx.origin is None or ev.get("ph") == "M":
            return None
        return ts - ctx.origin
    if f.kind == "end":
        if ts is None:
            return None
        dur = int_key(ev, "dur")
        return ts + (dur or 0)
    v = get(ev, f, ctx)
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    return None


# ---------------------------------------------------------------- --where

OPS = ["==", "!=", "<=", ">=", "!~", "<", ">", "~", "="]


class Cond:
    pass


def tuple_text(s):
    if len(s) >= 2 and ((s[0] == "[" and s[-1] == "]") or (s[0] == "(" and s[-1] == ")")):
        return re.sub(r"\s", "", s[1:-1])
    return None


def word_end(s, j, depth):
    """Does a bare word end at j: &&, ||, or a ) closing no ( of it?"""
    if s.startswith("&&", j) or s.startswith("||", j):
        return True, depth
    if s[j] == "(":
        return False, depth + 1
    if s[j] == ")":
        return depth == 0, depth - 1
    return False, depth


def parse_cond(s, i, icase=False, level=0):
    while i < len(s) and s[i] in " \t":
        i += 1
    neg = False
    k = i + 1
    while k < len(s) and s[k] in " \t":
        k += 1
    if s.startswith("!", i) and s.startswith("(", k):
        neg, i = True, k
    if s.startswith("(", i):         # ( expr ), !( expr ): a group
        if level >= 64:
            raise Usage("groups nested deeper than 64")
        c = Cond()
        c.op, c.neg = "group", neg
        c.sub, i = parse_or(s, i + 1, icase, level + 1)
        if not s.startswith(")", i):
            raise Usage("a ')' is missing")
        return c, i + 1
    if s.startswith("!", i):         # !FIELD: the event lacks the field
        neg, i = True, k
    j = i
    inq = False
    depth = 0
    while j < len(s):
        if inq and s[j] == "\\" and j + 1 < len(s):
            j += 2      # inside quotes a backslash escapes the next character
            continue
        if s[j] == '"' and (inq or j == i or s[j - 1] == "."):
            inq = not inq
        if not inq:
            end, depth = word_end(s, j, depth)
            if end or s[j] in "=!<>~ \t":
                break
        j += 1
    if j == i:
        raise Usage("a field is missing")
    c = Cond()
    c.field = Field(s[i:j])
    c.neg = neg
    i = j
    while i < len(s) and s[i] in " \t":
        i += 1
    c.op = None
    for op in OPS:
        if s.startswith(op, i):
            c.op = "==" if op == "=" else op
            i += len(op)
            break
    if c.op is None:
        if i < len(s) and not word_end(s, i, 0)[0]:
            raise Usage("unknown operator at '%s'" % s[i:])
        c.op = "exists"
        return c, i
    if neg:
        raise Usage("! goes only before a bare field")
    while i < len(s) and s[i] in " \t":
        i += 1
    c.isnum = c.istime = False
    c.tuple = None
    if i < len(s) and s[i] == '"':
        j = i + 1
        while j < len(s) and s[j] != '"':
            if s[j] == "\\" and j + 1 < len(s):
                j += 1
            j += 1
        if j >= len(s):
            raise Usage("unterminated string")
        c.text = json.loads(s[i:j + 1])
        i = j + 1
    else:
        j, depth = i, 0
        while j < len(s):
            end, depth = word_end(s, j, depth)
            if end:
                break
            j += 1
        c.text = s[i:j].rstrip(" \t")
        if c.text == "":
            raise Usage("a value is missing after the operator")
        if c.text[0] in "<>=~":
            raise Usage("invalid operator before '%s'" % c.text)
        i = j
        if NUMBER.match(c.text):
            c.isnum = True
            c.num = Decimal(c.text)
        c.tuple = tuple_text(c.text)
        if c.field.time and c.op not in ("~", "!~"):
            # ts and end take @absolute times; dur and rel do not
            c.ns, c.abs = parse_time(c.text, allow_abs=c.field.kind == "end" or
                                     c.field.segs == ["ts"])
            c.istime = True
    if c.op in ("~", "!~"):
        c.re = ere(c.text, icase)
    return c, i


def parse_expr(s):
    """expr := and ( || and )* ; and := cond ( && cond )*, a cond also
    ( expr ) or !( expr ).  Raises Usage."""
    ors, i = parse_or(s, 0)
    if s[i:].strip(" \t").startswith(")"):
        raise Usage("a ')' without its '('")
    if s[i:].strip(" \t"):
        raise Usage("unexpected text '%s'" % s[i:])
    return ors


def parse_or(s, i, icase=False, level=0):
    ors = []
    while True:
        ands = []
        while True:
            c, i = parse_cond(s, i, icase, level)
            ands.append(c)
            while i < len(s) and s[i] in " \t":
                i += 1
            if not s.startswith("&&", i):
                break
            i += 2
        ors.append(ands)
        if not s.startswith("||", i):
            break
        i += 2
    return ors, i


def cmp(a, b):
    return (a > b) - (a < b)


_TESTS = {"==": lambda r: r == 0, "!=": lambda r: r != 0,
          "<": lambda r: r < 0, "<=": lambda r: r <= 0,
          ">": lambda r: r > 0, ">=": lambda r: r >= 0}


def test(op, r):
    return _TESTS[op](r)


def eval_cond(c, ev, ctx):
    if c.op == "group":
        return eval_expr(c.sub, ev, ctx) != c.neg
    if c.op == "exists":
        if c.field.time and c.field.kind != "path":
            return (field_ns(ev, c.field, ctx) is not None) != c.neg
        return (get(ev, c.field, ctx) is not MISSING) != c.neg
    if c.field.time and c.op in ("~", "!~"):
        # a time field's text is its integer ns
        ns = field_ns(ev, c.field, ctx)
        if ns is None:
            return c.op == "!~"
        r = c.re.search(str(ns)) is not None
        return r if c.op == "~" else not r
    if c.field.time and c.istime:
        ns = field_ns(ev, c.field, ctx)
        if ns is None:
            return c.op == "!="
        want = c.ns
        if not c.abs and (c.field.kind == "end" or c.field.segs == ["ts"]):
            want += ctx.origin or 0
        return test(c.op, cmp(ns, want))
    v = get(ev, c.field, ctx)
    if v is MISSING:
        return c.op in ("!=", "!~")
    t = text_of(v)
    if c.op in ("~", "!~"):
        r = c.re.search(t) is not None
        return r if c.op == "~" else not r
    if c.isnum and jtype(v) in ("number", "string") and NUMBER.match(t):
        return test(c.op, cmp(Decimal(t), c.num))
    if c.tuple is not None and jtype(v) in ("array", "string"):
        tt = tuple_text(t)
        if tt is not None:
            return test(c.op, cmp(tt.encode(), c.tuple.encode()))
    return test(c.op, cmp(t.encode(), c.text.encode()))


def eval_expr(e, ev, ctx):
    for ands in e:
        for c in ands:
            if not eval_cond(c, ev, ctx):
                break
        else:
            return True
    return False


# The trace format's own keys: one of them that no event has (dur in a
# trace of instants) is only warned of, not an error.
OWN_KEYS = {"name", "cat", "ph", "ts", "tts", "dur", "tdur", "pid", "tid",
            "id", "id2", "bp", "s", "scope", "cname", "args", "rank"}


def expr_paths(e):
    """The path fields (not rel, end, category, nor a key of the trace
    format's own) an expression names."""
    for ands in e:
        for c in ands:
            if c.op == "group":
                yield from expr_paths(c.sub)
            elif c.field.kind == "path" and not (
                    len(c.field.segs) == 1 and c.field.text in OWN_KEYS):
                yield c.field


# ---------------------------------------------------------------- rules

def load_rules(path):
    rules = []
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except OSError as e:
        raise Usage("rules file %s: %s" % (path, e.strerror))
    with f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if line.strip(" \t") == "" or line.lstrip(" \t").startswith("#"):
                continue
            if "\t" not in line or line.startswith("\t"):
                raise Usage("%s:%d: want LABEL<TAB>PREDICATE" % (path, n))
            label, pred = line.split("\t", 1)
            try:
                e = parse_expr(pred.lstrip("\t"))
            except Usage as u:
                raise Usage("%s:%d: %s" % (path, n, u))
            rules.append((None if label == "-" else label, e))
    return rules


def category(ev, ctx):
    if ctx.rules is None:
        raise Usage("category without --rules")
    got = ctx.cache.get(id(ev))
    if got is not None and got[0] is ev:
        return got[1]
    label = None
    for lab, e in ctx.rules:
        if eval_expr(e, ev, ctx):
            label = lab
            break
    ctx.cache[id(ev)] = (ev, label)
    return label


# ---------------------------------------------------------------- selection

def parser():
    p = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    for o in ("ph", "pid", "tid", "cat", "name", "match", "where", "category"):
        p.add_argument("--" + o, action="append", default=[])
    p.add_argument("-i", "--ignore-case", action="store_true")
    p.add_argument("--from", dest="frm")
    p.add_argument("--to")
    p.add_argument("--within", action="store_true")
    p.add_argument("--clip", action="store_true")
    p.add_argument("--min-dur")
    p.add_argument("--max-dur")
    p.add_argument("--rules")
    p.add_argument("-v", "--invert", action="store_true")
    p.add_argument("--no-meta", action="store_true")
    p.add_argument("--meta", action="store_true")
    p.add_argument("-u", "--unit", default="auto")
    # modes
    p.add_argument("--events", action="store_true")
    p.add_argument("--check")
    p.add_argument("--out-unit", choices=sorted(UNITS))
    p.add_argument("--tsv")
    p.add_argument("--csv")
    p.add_argument("--time-unit", default="ns")
    p.add_argument("--no-header", action="store_true")
    p.add_argument("--batch")
    p.add_argument("--classify", action="store_true")
    p.add_argument("files", nargs="*")
    return p


class Selection:
    def __init__(self, a, origin):
        self.a = a
        self.ctx = Ctx(origin, load_rules(a.rules) if a.rules else None,
                       a.rules)
        if a.category and self.ctx.rules is None:
            raise Usage("--category needs --rules FILE here")
        self.where = [parse_expr(w) for w in a.where]
        self.lanes = [(opt, key) for opt, key in
                      ((a.ph, "ph"), (a.pid, "pid"), (a.tid, "tid")) if opt]
        self.res = [ere(m, a.ignore_case) for m in a.match]
        o = origin or 0
        self.lo = self.hi = None
        if a.frm is not None:
            ns, ab = parse_time(a.frm)
            self.lo = ns if ab else ns + o
        if a.to is not None:
            ns, ab = parse_time(a.to)
            self.hi = ns if ab else ns + o
        self.mind = parse_time(a.min_dur, False)[0] if a.min_dur else None
        self.maxd = parse_time(a.max_dur, False)[0] if a.max_dur else None

    def window(self, ev):
        if self.lo is None and self.hi is None:
            return True
        ts = int_key(ev, "ts")
        if ts is None:
            return False
        lo, hi = self.lo, self.hi
        if ev.get("ph") != "X":
            return (lo is None or lo <= ts) and (hi is None or ts < hi)
        end = ts + (int_key(ev, "dur") or 0)
        if self.a.within:
            return (lo is None or lo <= ts) and (hi is None or end <= hi)
        if end == ts:
            return (lo is None or lo <= ts) and (hi is None or ts < hi)
        return (hi is None or ts < hi) and (lo is None or end > lo)

    def matches(self, ev):
        a = self.a
        for opt, key in self.lanes:
            if key not in ev or text_of(ev[key]) not in opt:
                return False
        if a.cat:
            if "cat" not in ev:
                return False
            t = text_of(ev["cat"])
            if not any(c == t or c in t.split(",") for c in a.cat):
                return False
        if a.name or a.match:
            if "name" not in ev:
                return False
            t = text_of(ev["name"])
            if a.name:
                if a.ignore_case:
                    ok = any(fnmatch.fnmatchcase(t.lower(), g.lower()) for g in a.name)
                else:
                    ok = any(fnmatch.fnmatchcase(t, g) for g in a.name)
                if not ok:
                    return False
            if a.match and not any(r.search(t) for r in self.res):
                return False
        if self.mind is not None or self.maxd is not None:
            dur = int_key(ev, "dur") or 0
            if self.mind is not None and dur < self.mind:
                return False
            if self.maxd is not None and dur > self.maxd:
                return False
        if self.where:
            for e in self.where:
                if eval_expr(e, ev, self.ctx):
                    break
            else:
                return False
        if a.category and category(ev, self.ctx) not in a.category:
            return False
        return True

    def clip(self, ev):
        """--clip: cut an X event that overlaps the window and sticks out
        of it; other events are not changed."""
        if not (self.a.clip and ev.get("ph") == "X"):
            return ev
        if self.a.within or not self.window(ev):
            return ev
        ts, dur = int_key(ev, "ts"), int_key(ev, "dur")
        if ts is None or dur is None:
            return ev
        nts = max(ts, self.lo) if self.lo is not None else ts
        nend = min(ts + dur, self.hi) if self.hi is not None else ts + dur
        if (nts, nend) == (ts, ts + dur):
            return ev
        ev = dict(ev)
        ev["ts"] = nts
        ev["dur"] = nend - nts
        return ev

    def run(self, events):
        """The events written (M included unless --no-meta), and the count;
        self.missing: a --where field that no non-M event has (an error:
        no count, exit 2), when there were non-M events."""
        out, n = [], 0
        paths = {f.text: f for e in self.where for f in expr_paths(e)}
        seen = set()
        any_ev = False
        a = self.a
        windowed = self.lo is not None or self.hi is not None
        for ev in events:
            if ev.get("ph") == "M":
                if not a.no_meta:
                    out.append(ev)
                continue
            any_ev = True
            if len(seen) < len(paths):
                for t, f in paths.items():
                    if t not in seen and get(ev, f, self.ctx) is not MISSING:
                        seen.add(t)
            # -v inverts the predicates, never the window
            if (windowed and not self.window(ev)) or \
                    self.matches(ev) == a.invert:
                continue
            n += 1
            out.append(self.clip(ev))
        self.missing = any_ev and len(seen) < len(paths)
        return out, n


# ---------------------------------------------------------------- output

def fmt_time(ns, unit):
    d = UNITS[unit]
    if d == 1:
        return str(ns)
    s = format(Decimal(ns) / Decimal(d), "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


def cells(ev, fields, ctx, tunit):
    row = []
    for f in fields:
        if f.time:
            ns = field_ns(ev, f, ctx)
            row.append("" if ns is None else fmt_time(ns, tunit))
            continue
        v = get(ev, f, ctx)
        row.append("" if v is MISSING or v is None else text_of(v))
    return row


def split_fields(s):
    out, cur, q, esc = [], "", False, False
    for ch in s:
        if esc:
            esc = False
            cur += ch
            continue
        if q and ch == "\\":
            esc = True
        elif ch == '"':
            q = not q
        if ch == "," and not q:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def tsv_escape(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def _num(o):
    if isinstance(o, Num):
        return {"$number": o.text}
    raise TypeError(repr(o))


_canon = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False,
                          default=_num).encode


def canon(ev):
    """A canonical text of an event (key order and number text kept)."""
    return _canon(ev)


def load_output(path):
    """mct-filter's output as a list of canonical lines; header seen?"""
    text = read_text(path)
    if not text.startswith('{"name":"mct_header"'):
        # a trace (-o trace, mct-cat --wrap) is strict JSON
        try:
            doc = json.loads(text, parse_float=Num)
        except ValueError:
            doc = None
        if isinstance(doc, list):
            return doc, None, None
        if isinstance(doc, dict) and "traceEvents" in doc:
            return doc["traceEvents"], None, \
                {k: v for k, v in doc.items() if k != "traceEvents"}
    lines = [l for l in text.split("\n") if l != ""]
    hdr = bool(lines) and lines[0].startswith('{"name":"mct_header"')
    evs = [loads(l) for l in (lines[1:] if hdr else lines)]
    return evs, hdr, None


def check(sel_out, a, inp):
    """Raise Mismatch unless OUTPUT holds exactly the selected events."""
    try:
        evs, hdr, top = load_output(a.check)
    except (OSError, ValueError) as e:
        die("%s: %s" % (a.check, e))
    if top is not None and len(inp.tops) == 1 and \
            json.dumps(list(top.items()), default=_num) != \
            json.dumps(list(inp.tops[0].items()), default=_num):
        die("%s: top-level keys %s, want %s" % (a.check, list(top), list(inp.tops[0])))
    if hdr is not None:
        if a.no_meta and hdr:
            die("%s: a header line, but --no-meta" % a.check)
        if not a.no_meta and not hdr:
            die("%s: no header line" % a.check)
    else:
        # a trace: ts/dur back in the source's unit; convert
        evs = [e for e in evs if isinstance(e, dict)]
        convert_times(evs, a.out_unit or detect_unit(evs))
    want = [canon(e) for e in sel_out]
    got = [canon(e) for e in evs]
    if want == got:
        return 0
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            die("event %d differs:\n  want %s\n  got  %s" % (i + 1, w[:300], g[:300]))
    die("%d events wanted, %d written; first extra: %s" % (
        len(want), len(got), (want[len(got)] if len(want) > len(got) else got[len(want)])[:300]))


class Mismatch(Exception):
    pass


def die(msg):
    raise Mismatch(msg)


def batch_one(p, inp, line):
    """One line of --batch: the count, or for --check "ok" or "FAIL: why"."""
    b = p.parse_args(shlex.split(line))
    sel = Selection(b, inp.origin)
    out, n = sel.run(inp.events)
    if not b.check:
        return "" if sel.missing else str(n)
    try:
        check(out, b, inp)
    except Mismatch as m:
        return "FAIL: " + str(m).replace("\n", " ").replace("\t", " ")
    return "ok"


def main(argv):
    p = parser()
    a = p.parse_args(argv)
    try:
        inp = Input(a.files, a.unit)
        if a.batch:
            with open(a.batch) as f:
                for line in f:
                    if not line.strip() or line.lstrip().startswith("#"):
                        continue
                    print("%s\t%s" % (batch_one(p, inp, line), line.strip()))
            return 0
        sel = Selection(a, inp.origin)
        if a.classify:
            counts = {}
            for ev in inp.events:
                if ev.get("ph") == "M":
                    continue
                if not (sel.window(ev) and sel.matches(ev)):
                    continue
                c = category(ev, sel.ctx)
                counts[c] = counts.get(c, 0) + 1
            for c in sorted(counts, key=lambda x: (x is None, x or "")):
                print("%s\t%d" % ("-" if c is None else c, counts[c]))
            return 0
        out, n = sel.run(inp.events)
        if a.check:
            try:
                check(out, a, inp)
            except Mismatch as m:
                print("filter_oracle: %s" % m, file=sys.stderr)
                return 1
            return 0
        if a.events:
            for e in out:
                print(canon(e))
            return 0
        if a.tsv or a.csv:
            spec = a.tsv or a.csv
            fields = [Field(x) for x in split_fields(spec)]
            rows = []
            if not a.no_header:
                rows.append([f.text for f in fields])
            # rows of M events only when asked (--meta, or --ph M)
            meta = a.meta or "M" in a.ph
            rows += [cells(e, fields, sel.ctx, a.time_unit) for e in out
                     if meta or e.get("ph") != "M"]
            if a.tsv:
                for r in rows:
                    print("\t".join(tsv_escape(c) for c in r))
            else:
                for r in rows:
                    print(json.dumps(r))
            return 0
        if sel.missing:
            return 2    # mct-filter -c prints no count
        print(n)
        return 0
    except Usage as u:
        print("filter_oracle: %s" % u, file=sys.stderr)
        return 2


def csv_rows(path):
    """mct-filter's CSV output parsed by python's csv module, as JSON lists."""
    with open(path, newline="") as f:
        for r in csv.reader(f):
            print(json.dumps(r))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--parse-csv":
        csv_rows(sys.argv[2])
        sys.exit(0)
    sys.exit(main(sys.argv[1:]))
