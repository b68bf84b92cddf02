#!/usr/bin/env python3
"""metrics_oracle.py - python3's own answers for mct-metrics.

    log LOG OUT [--time COL] [--time-unit U] [--tz +HH:MM] [--sync W=@TS]
        read the CSV/TSV metric LOG with csv and datetime, and compare
        every counter event of mct-metrics' output OUT with it: name,
        device (tid), ts to the ns, value, unit.  Prints "ok N samples".
    join IN OUT NAMES
        IN is the stream mct-metrics --join read (events and counters),
        OUT what it wrote.  Every event of IN is in OUT; every event with
        a dur has, for each counter in NAMES (its first device), the
        time-weighted mean (3 decimals, half away from zero), min, max and
        number of samples of the step function over its interval, or no
        value where no sample is in effect.  Prints "ok N joined".

Independent of the C code: wall times through datetime, values through
Decimal and Fraction.  Exit 1 with the first differences on stderr.
"""
import bisect
import csv
import datetime
import json
import math
import sys
from decimal import Decimal
from fractions import Fraction

TIMES = ("timestamp", "time", "date", "datetime")
DEVS = ("index", "device", "gpu", "card", "gpu index")
NOTHING = ("", "n/a", "[n/a]", "na", "-", "[not supported]",
           "not supported", "[unknown error]")
UNIT_NS = {"ns": 1, "us": 1000, "ms": 10**6, "s": 10**9}


def fail(msg):
    sys.stderr.write("metrics_oracle: " + msg + "\n")
    sys.exit(1)


def split_unit(h):
    h = h.strip()
    for o, c in (("[", "]"), ("(", ")")):
        if h.endswith(c) and o in h[:-1]:
            i = h.rindex(o)
            if i > 0:
                return h[:i].rstrip(), h[i + 1:-1]
    return h, None


def tzinfo(arg):
    if arg is None or arg.upper() in ("UTC", "GMT", "Z"):
        return datetime.timezone.utc
    if arg[0] not in "+-":
        from zoneinfo import ZoneInfo
        return ZoneInfo(arg)
    sign = -1 if arg[0] == "-" else 1
    body = arg[1:].replace(":", "")
    h, m = (int(body[:2]), int(body[2:4])) if len(body) == 4 else (int(body), 0)
    return datetime.timezone(sign * datetime.timedelta(hours=h, minutes=m))


def wall_ns(text, tz):
    """Epoch ns of a wall time, the fraction kept to the ns."""
    t = text.strip()
    frac = 0
    off = None
    for i, ch in enumerate(t[19:], 19):
        if ch in "Z+-":
            off = t[i:]
            t = t[:i]
            break
    if len(t) > 19:
        f = t[20:]
        frac = int((f + "000000000")[:9])
        t = t[:19]
    fmt = "%Y/%m/%d %H:%M:%S" if t[4] == "/" else (
        "%Y-%m-%dT%H:%M:%S" if "T" in t else "%Y-%m-%d %H:%M:%S")
    dt = datetime.datetime.strptime(t, fmt)
    z = tz if off is None else tzinfo("+00:00" if off == "Z" else off)
    dt = dt.replace(tzinfo=z)
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    d = dt - epoch
    return (d.days * 86400 + d.seconds) * 10**9 + frac


def time_ns(text, unit, tz):
    t = text.strip()
    if t and all(c in "+-0123456789." for c in t):
        v = Decimal(t) * UNIT_NS[unit]
        return int(v.to_integral_value(rounding="ROUND_HALF_UP"))
    return wall_ns(t, tz)


def parse_opts(args):
    o = {"time": None, "time-unit": "ns", "tz": None, "sync": None,
         "join": None}
    while args:
        k = args.pop(0)[2:]
        o[k] = args.pop(0)
    return o


# units of one quantity, in the quantity's least unit
UNITS = {}
for q, table in enumerate((
        {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40,
         "kB": 1000, "KB": 1000, "MB": 10**6, "GB": 10**9, "TB": 10**12},
        {"Hz": 1, "kHz": 10**3, "MHz": 10**6, "GHz": 10**9},
        {"mW": 1, "W": 10**3, "kW": 10**6},
        {"mJ": 1, "J": 10**3, "kJ": 10**6},
        {"mV": 1, "V": 10**3}, {"mA": 1, "A": 10**3},
        {"ns": 1, "us": 10**3, "\u00b5s": 10**3, "ms": 10**6, "s": 10**9},
        {"%": 1})):
    for k, f in table.items():
        UNITS[k] = (q, f)


def e6(x):
    """x rounded to 6 decimals, half away from zero."""
    q = math.floor(abs(Fraction(x)) * 10**6 + Fraction(1, 2))
    return Fraction(-q if x < 0 else q, 10**6)


def number(text, col):
    """The value of a cell in the column's unit (a column with none takes
    the first unit a value has), or ArithmeticError."""
    t = text.strip()
    k = 0
    while k < len(t) and t[k] in "+-0123456789.eE":
        k += 1
    num, unit = t[:k], t[k:].lstrip(" ")
    try:
        v = e6(Decimal(num))
    except (ValueError, ArithmeticError):
        raise ArithmeticError(text)
    if abs(v) >= 10**12:
        raise ArithmeticError(text)
    if not unit or unit == col["unit"]:
        return v
    if unit not in UNITS:
        raise ArithmeticError(text)
    if col["unit"] is None:
        col["unit"] = unit
        return v
    if col["unit"] not in UNITS or UNITS[col["unit"]][0] != UNITS[unit][0]:
        raise ArithmeticError(text)
    x = e6(v * UNITS[unit][1] / UNITS[col["unit"]][1])
    if abs(x) >= 10**12:
        raise ArithmeticError(text)
    return x


def expect_log(path, o):
    """The samples of a log: (ts, dev, name, value, unit), in time order.
    A metric column is one with a unit in the header, one --join names,
    or one with a number among its values; a cell of one that is no
    number (or in a unit of another quantity) is skipped alone."""
    tz = tzinfo(o["tz"])
    with open(path, newline="") as f:
        lines = [l for l in f.read().split("\n")]
    lines[0] = lines[0].lstrip("\ufeff")
    head = next(i for i, l in enumerate(lines) if l.strip())
    delim = "\t" if "\t" in lines[head] else ","
    cols = next(csv.reader([lines[head]], delimiter=delim,
                           skipinitialspace=True))
    names = [split_unit(c) for c in cols]
    low = [n.lower() for n, _ in names]
    if o["time"]:
        tcol = low.index(o["time"].lower())
    else:
        tcol = next((i for i, n in enumerate(low) if n in TIMES),
                    next(i for i, n in enumerate(low) if n.startswith("time")))
    dcol = next((i for i, n in enumerate(low) if n in DEVS), None)
    join = (o.get("join") or "").split(",")
    col = [{"unit": u, "metric": u is not None or n in join}
           for n, u in names]
    sync = None
    if o["sync"]:
        w, ts = o["sync"].rsplit("=@", 1)
        sync = (time_ns(w, o["time-unit"], tz), int(ts))
    out = []
    for n, line in enumerate(lines[head + 1:]):
        if not line.strip() or line == lines[head] or line.startswith("#"):
            continue
        row = next(csv.reader([line], delimiter=delim, skipinitialspace=True))
        if len(row) != len(cols):
            continue
        try:
            ts = time_ns(row[tcol], o["time-unit"], tz)
        except (ValueError, IndexError, ArithmeticError):
            continue
        if sync:
            ts = sync[1] + ts - sync[0]
        dev = 0
        if dcol is not None:
            d = row[dcol].strip().rstrip("]")
            k = len(d)
            while k and d[k - 1].isdigit():
                k -= 1
            if k == len(d):
                continue         # no device: a bad line
            dev = int(d[k:])
        for i, cell in enumerate(row):
            if i in (tcol, dcol) or cell.strip().lower() in NOTHING:
                continue
            try:
                v = number(cell, col[i])
            except ArithmeticError:
                continue
            col[i]["metric"] = True
            out.append((ts, n, i, v))
    out.sort()
    return [(ts, dev_of(lines, head, n, dcol, delim), names[i][0], v,
             col[i]["unit"]) for ts, n, i, v in out if col[i]["metric"]]


def dev_of(lines, head, n, dcol, delim):
    if dcol is None:
        return 0
    row = next(csv.reader([lines[head + 1 + n]], delimiter=delim,
                          skipinitialspace=True))
    d = row[dcol].strip().rstrip("]")
    k = len(d)
    while k and d[k - 1].isdigit():
        k -= 1
    return int(d[k:])


def read_stream(path):
    evs = []
    with open(path) as f:
        for line in f:
            e = json.loads(line, parse_float=Decimal)
            if e.get("name") == "mct_header":
                continue
            evs.append(e)
    return evs


def cmd_log(args):
    path, outp = args[0], args[1]
    o = parse_opts(args[2:])
    want = expect_log(path, o)
    got = [e for e in read_stream(outp) if e.get("ph") == "C"]
    if len(got) != len(want):
        fail("%d counter events, python reads %d samples" %
             (len(got), len(want)))
    for g, w in zip(got, want):
        ts, dev, name, v, unit = w
        gg = (g["ts"], g["tid"], g["name"], Decimal(g["args"]["value"]),
              g["args"].get("unit"), g["pid"])
        if gg != (ts, dev, name, v, unit, "metrics"):
            fail("got %r, want %r" % (gg, (ts, dev, name, v, unit)))
    print("ok %d samples" % len(want))


def mean_text(wsum, covered):
    """wsum/covered to 3 decimals, half away from zero."""
    x = Fraction(wsum) / covered * 1000
    q = math.floor(abs(x) + Fraction(1, 2))
    s = "-" if x < 0 and q else ""
    return "%s%d.%03d" % (s, q // 1000, q % 1000)


def limits(t):
    """Where each sample stops holding: the next sample's time, but at
    most twice the time since the last sample of an earlier time."""
    ends = []
    prev = None          # the last time before t[i]
    for i, x in enumerate(t):
        if i and t[i - 1] < x:
            prev = t[i - 1]
        nxt = t[i + 1] if i + 1 < len(t) else None
        lim = x + 2 * (x - prev) if prev is not None else None
        cands = [c for c in (nxt, lim) if c is not None]
        ends.append(min(cands) if cands else math.inf)
    return ends


def over(t, v, e, a, dur):
    i = bisect.bisect_right(t, a) - 1
    if dur == 0:
        if i < 0 or e[i] <= a:
            return None
        return (mean_text(v[i], 1), v[i], v[i], 1)
    b = a + dur
    wsum, cov, seen = Fraction(0), 0, []
    k = max(i, 0)        # those before i end by t[i] <= a
    for k in range(k, bisect.bisect_left(t, b)):
        lo, hi = max(a, t[k]), min(b, e[k])
        if hi > lo:
            wsum += Fraction(v[k]) * (hi - lo)
            cov += hi - lo
            seen.append(v[k])
    if not seen:
        return None
    return (mean_text(wsum, cov), min(seen), max(seen), len(seen))


def cmd_join(args):
    inp, outp, names = args[0], args[1], args[2].split(",")
    src = read_stream(inp)
    series, dev = {}, {}
    for e in src:
        if e.get("ph") == "C" and e.get("name") in names:
            n = e["name"]
            d = e.get("tid", 0)
            dev.setdefault(n, d)
            if d == dev[n]:
                series.setdefault(n, []).append(
                    (e["ts"], Decimal(e["args"]["value"])))
    steps = {}
    for n, s in series.items():
        s.sort(key=lambda x: x[0])   # stable: equal ts keep input order
        t = [x[0] for x in s]
        steps[n] = (t, [x[1] for x in s], limits(t))
    out = read_stream(outp)
    if len(out) != len(src):
        fail("%d events out, %d in" % (len(out), len(src)))
    plain = sorted(json.dumps({k: x for k, x in e.items() if k != "metrics"},
                              sort_keys=True, default=str) for e in out)
    if plain != sorted(json.dumps(e, sort_keys=True, default=str)
                       for e in src):
        fail("the events out are not the events in")
    joined = 0
    for e in out:
        dur = e.get("dur")
        if (not isinstance(dur, int) or dur < 0 or e.get("ph") in ("C", "M")
                or not isinstance(e.get("ts"), int)):
            if "metrics" in e:
                fail("metrics on an event without a dur: %r" % e)
            continue
        got = e.get("metrics", {})
        for n in names:
            w = over(*steps[n], e["ts"], dur) if n in steps else None
            g = got.get(n)
            if w is None and g is None:
                continue
            if w is None or g is None:
                fail("%s at %d: got %r, want %r" % (n, e["ts"], g, w))
            gg = (str(g["mean"]) if "." in str(g["mean"]) else None,
                  Decimal(g["min"]), Decimal(g["max"]), g["samples"])
            if gg != w:
                fail("%s at %d dur %d: got %r, want %r" %
                     (n, e["ts"], dur, gg, w))
            joined += 1
    print("ok %d joined" % joined)


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("log", "join"):
        fail("usage: metrics_oracle.py log|join ...")
    {"log": cmd_log, "join": cmd_join}[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
