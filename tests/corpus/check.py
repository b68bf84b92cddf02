#!/usr/bin/env python3
"""check.py - the independent side of tests/damage.bats.

Reads a case of the corpus (tests/corpus/README) with python's json module
and nothing of mct, and checks what the tools made of it.  An event is
"intact" when its line of the case file is a whole JSON object on its own:
the cases are written one event a line, as trace writers do, so python
finds every intact event by trying each line (without a leading `[`,
`{"traceEvents":[` or `, ` and a trailing `,`, `]` or `]}`).  ts and dur are
converted to integer ns from their decimal text, as mct(7) says, in the unit
the stream's header names; a stream case (first line the header) is not
converted.  gzip cases are inflated as far as python's zlib can.

Subcommands (exit 0 when the check holds, 1 with the difference on stderr):

  cat CASE STREAM ITEM...   STREAM (mct-cat's stdout for CASE) is a header line
                            and the events ITEM... in order, each equal to
                            python's reading of its line of CASE.  ITEM is a
                            name; NAME* an event kept by a repair (its name is
                            checked, its text is valid JSON); {} the event
                            {}; NAME... a name
                            that starts with NAME; @zlib every event line of
                            what zlib inflates; - no events.
  case README CASE DIR      all of the above for one case at once: README's line
                            for CASE, and in DIR the runs of tests/damage.bats,
                            TAG.out TAG.err TAG.rc for each TAG below
  msgs PROG FILE PATTERNS STDERR
                            STDERR is exactly the messages PATTERNS (README's
                            messages field: " // " between messages, FILE for
                            the operand, # a decimal number, * any text, -
                            none), each after "PROG: ".
  count STREAM              the number of events of STREAM that are not ph M
  phs STREAM                "PH<TAB>COUNT" of every event (metadata too), sorted
  xcount [--named] STREAM   the number of X events whose ts is an integer (ns);
                            with --named, only those with a string name of at
                            most 255 bytes (what mct-flow --key name pairs)
  records STREAM            the number of records of mct-flow: events with a
                            first-level "latency" or "orphan"
  sum COLUMN TSV            the sum of the column named COLUMN of a TSV file
"""
import decimal
import json
import re
import sys
import zlib
from decimal import Decimal

decimal.getcontext().prec = 200
UNITS = {"ns": 1, "us": 1000, "ms": 10**6, "s": 10**9}
JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?\Z")
HEADER = b'{"name":"mct_header"'
INT64 = (-2**63, 2**63 - 1)


class Num(str):
    """A JSON number, as its text."""
    __slots__ = ()

    def __repr__(self):
        return "Num(%s)" % str.__repr__(self)


def no_constant(name):
    raise ValueError("not JSON: " + name)


_dec = json.JSONDecoder(object_pairs_hook=list, parse_int=Num,
                        parse_float=Num, parse_constant=no_constant)


def loads(text):
    """Strict JSON; objects as lists of pairs (order and duplicates kept),
    numbers as their text."""
    return _dec.decode(text)


def fail(msg):
    sys.stderr.write("check.py: " + msg + "\n")
    sys.exit(1)


def inflate(data):
    """What zlib can inflate of data: every member, up to the damage."""
    out = bytearray()
    while data[:2] == b"\x1f\x8b":
        d = zlib.decompressobj(31)
        try:
            for i in range(len(data)):
                out += d.decompress(data[i:i + 1])
                if d.eof:
                    break
        except zlib.error:
            return bytes(out)
        if not d.eof:
            return bytes(out)
        data = d.unused_data
    return bytes(out)


def case_lines(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = inflate(data)
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    return data.split(b"\n")


def line_event(raw):
    """The event a line holds on its own, or None."""
    try:
        s = raw.decode("utf-8").strip(" \t\r\n")
    except UnicodeDecodeError:
        return None
    for pre in ('{"traceEvents":[', "[", ", "):
        if s.startswith(pre) and s[len(pre):].startswith("{"):
            s = s[len(pre):]
            break
    for suf in ("", ",", "]", "]}", "],", "]},"):
        t = s[:len(s) - len(suf)] if suf else s
        if not t.startswith("{") or (suf and not s.endswith(suf)):
            continue
        try:
            v = loads(t)
        except Exception:	# ValueError, RecursionError
            continue
        if isinstance(v, list):
            return v
    return None


def first(pairs, key):
    for k, v in pairs:
        if k == key:
            return v
    return None


def to_ns(text, unit):
    """Integer ns of a decimal text, rounded half away from zero; None if
    it does not fit in int64."""
    v = Decimal(text) * UNITS[unit]
    n = int(v.to_integral_value(rounding=decimal.ROUND_HALF_UP))
    if not INT64[0] <= n <= INT64[1]:
        return None
    return n


def converted(pairs, unit):
    out = []
    for k, v in pairs:
        if k in ("ts", "dur") and unit is not None:
            text = None
            if isinstance(v, Num):
                text = str(v)
            elif isinstance(v, str) and JSON_NUMBER.match(v):
                text = v
            if text is not None:
                n = to_ns(text, unit)
                if n is not None:
                    v = Num(str(n))
        out.append((k, v))
    return out


def read_stream(path):
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines or not lines[0].startswith(HEADER):
        fail("%s: the first line is not the mct header" % path)
    evs = []
    for i, raw in enumerate(lines):
        try:
            v = loads(raw.decode("utf-8"))
        except Exception as e:
            fail("%s:%d: not strict JSON (%s): %r" % (path, i + 1, e, raw[:200]))
        if not isinstance(v, list):
            fail("%s:%d: not a JSON object" % (path, i + 1))
        if i > 0:
            evs.append(v)
    return loads(lines[0].decode("utf-8")), evs


def show(v):
    return json.dumps(v)[:300]


def cmd_cat(case, stream, items):
    header, evs = read_stream(stream)
    args = first(header, "args")
    unit = first(args, "unit") if isinstance(args, list) else None
    lines = case_lines(case)
    is_stream = lines[0].startswith(HEADER)
    if is_stream:
        lines = lines[1:]
        unit = None
    cand = [e for e in (line_event(l) for l in lines) if e is not None]
    if items == ["-"]:
        items = []
    if items == ["@zlib"]:
        want = [converted(e, unit) for e in cand]
        if len(want) != len(evs):
            fail("%d events, python finds %d" % (len(evs), len(want)))
        for i, (w, g) in enumerate(zip(want, evs)):
            if w != g:
                fail("event %d: %s, python has %s" % (i + 1, show(g), show(w)))
        return
    names = [first(e, "name") for e in evs]
    if len(evs) != len(items):
        fail("events %s, want %s" % (show(names), show(items)))
    for i, (item, ev) in enumerate(zip(items, evs)):
        name = first(ev, "name")
        if item == "{}":
            if ev != []:
                fail("event %d is %s, want {}" % (i + 1, show(ev)))
            continue
        if item.endswith("*"):
            if name != item[:-1]:
                fail("event %d is %s, want %s (repaired)" % (i + 1, show(name), item))
            continue
        if item.endswith("..."):
            ok = isinstance(name, str) and name.startswith(item[:-3])
        else:
            ok = name == item
        if not ok:
            fail("event %d is named %s, want %s" % (i + 1, show(name)[:80], item))
        match = [e for e in cand if first(e, "name") == name]
        if len(match) != 1:
            fail("python finds %d lines for the event %s in %s" %
                 (len(match), item, case))
        want = converted(match[0], unit)
        if want != ev:
            fail("event %d: %s, python has %s" % (i + 1, show(ev), show(want)))


def sane(e):
    """Has the event a ts that mct-flow takes: |ts| < 2^62 ns?"""
    try:
        return abs(int(str(first(e, "ts")))) < 2 ** 62
    except ValueError:
        return True


def pattern(p):
    out = []
    for c in p:
        out.append("[0-9]+" if c == "#" else ".*" if c == "*" else re.escape(c))
    return re.compile("".join(out) + r"\Z")


def cmd_msgs(prog, fname, pats, errfile):
    with open(errfile, "rb") as f:
        got = f.read().decode("utf-8", "replace").split("\n")
    if got and got[-1] == "":
        got.pop()
    want = [] if pats.strip() == "-" else pats.split(" // ")
    want = [prog + ": " + w.strip().replace("FILE", fname) for w in want]
    for i in range(max(len(got), len(want))):
        g = got[i] if i < len(got) else "(nothing)"
        w = want[i] if i < len(want) else "(nothing)"
        if i >= len(got) or i >= len(want) or not pattern(w).match(g):
            fail("message %d: got %r\n          want %r\nall messages:\n%s" %
                 (i + 1, g[:300], w, "\n".join(x[:300] for x in got[:20])))


# The runs of check_case in tests/damage.bats: tag, program, what stdout is.
RUNS = [
    ("cat", "mct-cat", "stream"),
    ("filter", "mct-filter", "same"),
    ("filter-c", "mct-filter", "count"),
    ("group-ph", "mct-group", "phs"),
    ("group", "mct-group", None),
    ("flow-name", "mct-flow", "records"),
    ("flow", "mct-flow", None),
    ("phases-dev", "mct-phases", "sum"),
    ("phases", "mct-phases", None),
]


def slurp(path):
    with open(path, "rb") as f:
        return f.read()


def cmd_case(readme, case, d):
    row = None
    with open(readme, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split(" | ")
            if parts[0] == case:
                row = parts
    if row is None or len(row) < 4:
        fail("%s: no line in %s" % (case, readme))
    want_rc, pats, items = int(row[1]), row[2], row[3].split()
    for tag, prog, _ in RUNS:
        rc = int(slurp("%s/%s.rc" % (d, tag)))
        if rc != want_rc:
            fail("%s (%s): exit status %d, want %d; its messages:\n%s" %
                 (prog, tag, rc, want_rc,
                  slurp("%s/%s.err" % (d, tag)).decode("utf-8", "replace")[:2000]))
        cmd_msgs(prog, case, pats, "%s/%s.err" % (d, tag))
    stream = "%s/cat.out" % d
    if not slurp(stream):
        # nothing could be read: nothing is written (mct-filter -c says 0)
        if want_rc != 2 or items != ["-"]:
            fail("mct-cat wrote nothing")
        for tag, prog, what in RUNS:
            out = slurp("%s/%s.out" % (d, tag))
            if out != (b"0\n" if what == "count" else b""):
                fail("%s (%s) wrote %r" % (prog, tag, out[:200]))
        return
    cmd_cat(case, stream, items)
    evs = read_stream(stream)[1]
    count = sum(1 for e in evs if first(e, "ph") != "M")
    phs = {}
    for e in evs:
        ph = first(e, "ph")
        k = "" if ph is None else ph if isinstance(ph, str) else json.dumps(ph)
        phs[k] = phs.get(k, 0) + 1
    xs = [e for e in evs if first(e, "ph") == "X" and is_ns(first(e, "ts"))]
    named = [e for e in xs if isinstance(first(e, "name"), str) and
             len(first(e, "name").encode("utf-8", "surrogatepass")) <= 255]
    for tag, prog, what in RUNS:
        out = slurp("%s/%s.out" % (d, tag))
        if what == "same":
            got, want = out, slurp(stream)
        elif what == "count":
            got, want = out, b"%d\n" % count
        elif what == "phs":
            got = sorted(out.decode("utf-8", "replace").splitlines())
            want = sorted("%s\t%d" % kv for kv in phs.items())
        elif what == "records":
            got = sum(1 for e in read_stream("%s/%s.out" % (d, tag))[1]
                      if any(k in ("latency", "orphan") for k, v in e))
            # mct-flow takes only times with |t| < 2^62 ns (MCT_SANE_NS):
            # sums and differences of two cannot overflow
            want = sum(1 for e in named if sane(e))
        elif what == "sum":
            rows = [l.split("\t") for l in out.decode("utf-8").splitlines()]
            col = rows[0].index("events") if rows else None
            got = sum(int(r[col]) for r in rows[1:]) if rows else 0
            want = sum(1 for e in xs if sane(e))	# as mct-phases takes them
        else:
            continue
        if got != want:
            fail("%s (%s): %s, want %s" % (prog, tag, repr(got)[:300],
                                          repr(want)[:300]))


def is_ns(v):
    return isinstance(v, Num) and re.match(r"-?[0-9]+\Z", v) and \
        INT64[0] <= int(v) <= INT64[1]


def main(argv):
    if len(argv) < 2:
        fail("usage: check.py case|cat|msgs|count|phs|xcount|records|sum ...")
    cmd = argv[1]
    if cmd == "cat" and len(argv) >= 4:
        cmd_cat(argv[2], argv[3], argv[4:])
    elif cmd == "case" and len(argv) == 5:
        cmd_case(*argv[2:])
    elif cmd == "msgs" and len(argv) == 6:
        cmd_msgs(*argv[2:])
    elif cmd == "count" and len(argv) == 3:
        print(sum(1 for e in read_stream(argv[2])[1] if first(e, "ph") != "M"))
    elif cmd == "phs" and len(argv) == 3:
        n = {}
        for e in read_stream(argv[2])[1]:
            ph = first(e, "ph")
            k = "" if ph is None else ph if isinstance(ph, str) else json.dumps(ph)
            n[k] = n.get(k, 0) + 1
        for k in sorted(n):
            print("%s\t%d" % (k, n[k]))
    elif cmd == "xcount" and len(argv) in (3, 4):
        named = argv[2] == "--named"
        n = 0
        for e in read_stream(argv[-1])[1]:
            if first(e, "ph") != "X" or not is_ns(first(e, "ts")):
                continue
            name = first(e, "name")
            if named and not (isinstance(name, str) and
                              len(name.encode("utf-8", "surrogatepass")) <= 255):
                continue
            n += 1
        print(n)
    elif cmd == "records" and len(argv) == 3:
        print(sum(1 for e in read_stream(argv[2])[1]
                  if any(k in ("latency", "orphan") for k, v in e)))
    elif cmd == "sum" and len(argv) == 4:
        with open(argv[3]) as f:
            rows = [l.rstrip("\n").split("\t") for l in f]
        col = rows[0].index(argv[2])
        print(sum(int(r[col]) for r in rows[1:]))
    else:
        fail("bad usage: " + " ".join(argv[1:]))


if __name__ == "__main__":
    main(sys.argv)
