#!/usr/bin/env python3
"""names_check.py - no two rows of a table for people look alike.

  names_check.py md FILE...      every Markdown table of each FILE (a
                                 report, -o md)
  names_check.py table FILE...   each FILE is one -o table output (its
                                 first line the header)
  names_check.py cuts WIDTH NAMES TABLE
                                 no two rows of TABLE (-o table) alike,
                                 and each name of the file NAMES (one a
                                 line) shown in a row: the name itself
                                 when it has at most
                                 WIDTH characters, else a cut of it (the
                                 pieces between ellipses are pieces of the
                                 name, in order, the first its start) of
                                 WIDTH characters
  names_check.py is WIDTH NAME CELL
                                 CELL is NAME, or a cut of it (as above)

A row's key is its cells up to the first aggregate column (count, total,
share, the changes of mct-diff...); two rows of a table with the same key
are two keys that print alike.  Exit 0 when none are, else 1 naming them.
"""
import re
import sys

AGG = re.compile(r"^(count|total|share|mean|median|min|max|first|last|"
                 r"p\d+|(sum|mean|min|max):.*|.*_(a|b|delta|pct)|only|n|"
                 r"bandwidth|.*\((mean|max).*)$")
ELL = "\u2026"


def md_tables(path):
    t = []
    for line in open(path, encoding="utf-8"):
        if line.startswith("|"):
            t.append(line.rstrip("\n"))
        elif t:
            yield t
            t = []
    if t:
        yield t


def md_cells(line):
    line = line.replace("\\|", "\x01").strip()[1:-1]
    return [c.strip().replace("\x01", "|") for c in line.split("|")]


def nkeys(head):
    k = 0
    while k < len(head) and not AGG.match(head[k]):
        k += 1
    return k


def dups(where, head, keys):
    seen, bad = set(), 0
    for key in keys:
        if key in seen:
            bad += 1
            print("%s: two rows show %r (columns %s)" % (where, key, head))
        seen.add(key)
    return bad


def table_rows(path):
    """The header's cells and each row's key (text before the first
    aggregate column)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    lines = [l for l in lines if l]
    if not lines:
        return [], []
    cols = [(m.start(), m.group()) for m in
            re.finditer(r"\S+(?: \S+)*", lines[0])]
    head = [c[1] for c in cols]
    k = nkeys(head)
    if k == 0:
        return head, []
    end = cols[k][0] if k < len(cols) else None
    return head[:k], [l[:end].rstrip() for l in lines[1:]]


def cut_of(label, name, width):
    if len(name) <= width:
        return label == name
    if len(label) != width or ELL not in label:
        return False
    at = 0
    for i, piece in enumerate(label.split(ELL)):
        j = name.find(piece, at) if i else (0 if name.startswith(piece)
                                            else -1)
        if j < 0:
            return False
        at = j + len(piece)
    return True


def main(argv):
    bad = 0
    if len(argv) >= 3 and argv[1] == "md":
        for path in argv[2:]:
            for t in md_tables(path):
                head = md_cells(t[0])
                k = nkeys(head)
                if k:
                    bad += dups(path, head[:k],
                                [tuple(md_cells(l)[:k]) for l in t[2:]])
    elif len(argv) >= 3 and argv[1] == "table":
        for path in argv[2:]:
            head, keys = table_rows(path)
            bad += dups(path, head, keys)
    elif len(argv) == 5 and argv[1] == "is":
        if not cut_of(argv[4], argv[3], int(argv[2])):
            bad += 1
            print("%r is no cut of %r" % (argv[4], argv[3]))
    elif len(argv) == 5 and argv[1] == "cuts":
        width = int(argv[2])
        names = open(argv[3], encoding="utf-8").read().split("\n")[:-1]
        head, keys = table_rows(argv[4])
        bad += dups(argv[4], head, keys)
        for name in names:
            got = [k for k in keys if cut_of(k, name, width)]
            if not got:
                bad += 1
                print("%r: shown as %r" % (name, got))
    else:
        sys.exit(__doc__)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main(sys.argv)
