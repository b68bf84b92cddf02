#!/usr/bin/env python3
"""esckeys_oracle.py - one string spelt many ways in JSON, for esckeys.bats.

A string is its decoded value: "gemm\\u005fkernel" is "gemm_kernel" and
"a\\/b" is "a/b", as python3's json module reads them.  Two questions:

  esckeys_oracle.py spell IN MIXED PLAIN
        reads the trace IN (Object or Array form), adds X events whose
        names hold the characters JSON may escape (a slash, a quote, a
        backslash, control characters, non-ASCII, a character past
        U+FFFF), and writes it twice with the same values: PLAIN in the
        canonical spelling (json.dumps with ensure_ascii=False: RFC
        8785's, JSON.stringify()'s), MIXED with every value of a key
        "name" (at any depth) spelt a different way each time it comes
        (its slashes, underscores and first character escaped; as in
        PLAIN; every character escaped; \\u-escaped past ASCII).
  esckeys_oracle.py group FILE FIELD
        of the trace or mct stream FILE, read with json (strings
        decoded): its events but metadata (ph M) grouped by the value
        of FIELD (a dotted path), "KEY<TAB>COUNT" each, KEY the value's
        canonical JSON text, sorted.
"""
import json
import sys

NAMES = ["a/b", 'say "hi"', "back\\slash", "tab\there", "line\nfeed",
         "bell\x07", "caf\u00e9", "euro\u20ac", "smile\U0001F600",
         "gemm_kernel"]


def events(doc):
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def canon(v):
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def every_char(s):
    return '"' + "".join("\\u%04x" % u for c in s.encode("utf-16-be")
                         .hex(" ", 2).split() for u in [int(c, 16)]) + '"'


def slashes(s):
    t = canon(s)[1:-1].replace("/", "\\/").replace("_", "\\u005f")
    if s and s[0] not in '"\\\n\t\x07/_':
        t = "\\u%04X" % ord(s[0]) + t[1:] if ord(s[0]) < 0x10000 else t
    return '"' + t + '"'


SPELLINGS = [slashes, canon, every_char, json.dumps]


def spell(src, mixed, plain):
    with open(src, encoding="utf-8") as f:
        doc = json.load(f)
    ev = events(doc)
    x = next(e for e in ev if e.get("ph") == "X")
    for i in range(3 * len(NAMES)):
        ev.append({"ph": "X", "cat": x.get("cat", "kernel"),
                   "name": NAMES[i % len(NAMES)], "pid": x["pid"],
                   "tid": x["tid"], "ts": x["ts"] + i, "dur": i + 1})
    with open(plain, "w", encoding="utf-8") as f:
        f.write(canon(doc))
    turn = {}

    def enc(v, key=None):
        if isinstance(v, dict):
            return "{" + ",".join(canon(k) + ":" + enc(w, k)
                                  for k, w in v.items()) + "}"
        if isinstance(v, list):
            return "[" + ",".join(enc(w) for w in v) + "]"
        if isinstance(v, str) and key == "name":
            turn[v] = turn.get(v, -1) + 1
            return SPELLINGS[turn[v] % len(SPELLINGS)](v)
        return canon(v)
    with open(mixed, "w", encoding="utf-8") as f:
        f.write(enc(doc))


def read(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return events(json.loads(text))
    except ValueError:      # an mct stream: a line an event
        return [json.loads(line) for line in text.splitlines() if line]


def group(path, field):
    n = {}
    for e in read(path):
        if not isinstance(e, dict) or e.get("ph") == "M":
            continue
        v = e
        for seg in field.split("."):
            v = v.get(seg) if isinstance(v, dict) else None
        if v is None:
            continue
        k = canon(v)
        n[k] = n.get(k, 0) + 1
    for k in sorted(n, key=lambda k: k.encode()):
        print("%s\t%d" % (k, n[k]))


def main():
    sys.stdout.reconfigure(encoding="utf-8")
    a = sys.argv[1:]
    if a[:1] == ["spell"] and len(a) == 4:
        spell(*a[1:])
    elif a[:1] == ["group"] and len(a) == 3:
        group(*a[1:])
    else:
        sys.exit("usage: esckeys_oracle.py spell IN MIXED PLAIN | "
                 "group FILE FIELD")


if __name__ == "__main__":
    main()
