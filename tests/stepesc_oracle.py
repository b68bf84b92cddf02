#!/usr/bin/env python3
"""stepesc_oracle.py - step names spelt with JSON escapes, for stepesc.bats.

A name is its decoded value: Profiler\\u0053tep#1 is ProfilerStep#1, as
python3's json module reads it.  Two questions:

  stepesc_oracle.py spell [--every] IN ESC PLAIN
        reads the trace IN (Object or Array form), adds two names that
        only look like steps (ProfilerStep#A and a bare ProfilerStep#,
        short user_annotation X events on a thread of their own beside
        the first step), and writes it twice with the same values: PLAIN
        as json.dumps writes it, ESC with every name that begins with
        ProfilerStep spelt with escapes, a different way each in turn
        (its S, its first digit, none, its #, every character, its first
        letter); with --every, only the ways that leave no ProfilerStep#
        in the text of ESC.
  stepesc_oracle.py facts FILE
        of the trace or mct stream FILE, read with json (names decoded):
        "count<TAB>N", the X events named ProfilerStep#, a digit and
        anything (not a gpu_user_annotation: off the device lanes), the
        training steps; "name<TAB>NAME" each, in ts order; and
        "annotated<TAB>N" each N (sorted, once) of a user_annotation X
        event named ProfilerStep#N, digits only (1 to 18 of them).
"""
import json
import re
import sys

SPELLINGS = [
    lambda s: s.replace("S", "\\u0053", 1),             # its S
    lambda s: re.sub(r"#([0-9])",                       # its first digit
                     lambda m: "#\\u%04x" % ord(m.group(1)), s, count=1),
    lambda s: s,                                        # as it is
    lambda s: s.replace("#", "\\u0023", 1),             # its #
    lambda s: "".join("\\u%04x" % ord(c) for c in s),  # every character
    lambda s: "\\u%04x" % ord(s[0]) + s[1:],           # its first letter
]


def events(doc):
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def spell(src, esc, plain, every=False):
    with open(src) as f:
        doc = json.load(f)
    ev = events(doc)
    first = min((e for e in ev if e.get("ph") == "X" and
                 str(e.get("name", "")).startswith("ProfilerStep#")),
                key=lambda e: float(e["ts"]))
    for name in ("ProfilerStep#A", "ProfilerStep#"):
        d = {"ph": "X", "cat": "user_annotation", "name": name,
             "pid": first["pid"], "tid": 1, "ts": first["ts"], "dur": 1}
        ev.append(d)
    text = json.dumps(doc)
    with open(plain, "w") as f:
        f.write(text)
    turn = [0]
    ways = [w for w in SPELLINGS
            if not every or "ProfilerStep#" not in w("ProfilerStep#1")]

    def one(m):
        s = ways[turn[0] % len(ways)](m.group(1))
        turn[0] += 1
        return '"name": "%s"' % s
    text = re.sub(r'"name": "(ProfilerStep[^"\\]*)"', one, text)
    with open(esc, "w") as f:
        f.write(text)


def read(path):
    with open(path) as f:
        text = f.read()
    try:
        return events(json.loads(text))
    except ValueError:      # an mct stream: a line an event
        return [json.loads(line) for line in text.splitlines() if line]


def facts(path):
    steps, ann = [], set()
    for e in read(path):
        name = e.get("name")
        if e.get("ph") != "X" or not isinstance(name, str):
            continue
        if re.match(r"ProfilerStep#[0-9]", name) and \
                e.get("cat") != "gpu_user_annotation":
            steps.append((float(e["ts"]), name))
        m = re.fullmatch(r"ProfilerStep#([0-9]{1,18})", name)
        if m and e.get("cat") == "user_annotation":
            ann.add(int(m.group(1)))
    steps.sort(key=lambda t: t[0])
    print("count\t%d" % len(steps))
    for _, name in steps:
        print("name\t%s" % name)
    for n in sorted(ann):
        print("annotated\t%d" % n)


def main(argv):
    if len(argv) == 5 and argv[1] == "spell":
        spell(argv[2], argv[3], argv[4])
    elif len(argv) == 6 and argv[1:3] == ["spell", "--every"]:
        spell(argv[3], argv[4], argv[5], every=True)
    elif len(argv) == 3 and argv[1] == "facts":
        facts(argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
