#!/usr/bin/env python3
"""house.py - the shape of libmct, read from its object files with nm(1),
and from its sources and the tools'.

usage: house.py graph LIBMCT.a      print "a.o -> b.o" for every call across files
       house.py cycles LIBMCT.a     print each cycle of that graph, one a line
       house.py exits LIBMCT.a      print "x.o: sym" for each object that ends the
                                    process (exit, err, errx, ...), util.o and
                                    cli.o aside (the tools' end of main() and
                                    command line live there, see lib/mct.h)
       house.py includes LIBDIR     print each cycle of the #include "..." graph
                                    of LIBDIR's sources, one a line
       house.py sizes LIBDIR [N]    print "x.c: N lines (at most M)" for each .c
                                    of LIBDIR over its limit: 1,500 lines, and
                                    1,200 for reader.c, the reader's face; with
                                    N, N lines for every .c (the tools: 1,000)
       house.py lonely LIBMCT.a OBJ...
                                    print "x.o: sym" for each function or
                                    variable libmct exports that no other of
                                    its files and none of the OBJs (the tools',
                                    the unit tests') uses: it should be static
       house.py options TOOL.c...   print "TOOL.c N" for each tool's options(),
                                    N its lines from "options(" to its closing
                                    brace, then "total N"
       house.py tools TOOL.o...     print "x.o: sym: why" for each function or
                                    variable a tool's object exports (main
                                    aside) that another tool's object uses,
                                    or no other object of its own tool: a
                                    tool's files (tools/mct-TOOL.c and its
                                    engine's tools/TOOL-JOB.c) share with each
                                    other only
       house.py inner TOOL.o...     print "x.o: sym" for each object that calls
                                    what only mct_next() calls: merge.c's and
                                    pairbe.c's events, an operand's apart
       house.py once DIR...         print "file:N: CONCEPT: line" for each line
                                    of the .c and .h files of the DIRs that
                                    decides a concept lib defines once
                                    (ONCE below) outside its place
       house.py headers LIBMCT.a LIBDIR
                                    print "x.o: sym: why" for each function
                                    libmct exports that LIBDIR's headers do
                                    not declare where they should: an mct_
                                    one in mct.h or mct_private.h under the
                                    heading of its file (a read_*.c's under
                                    reader.c's), any other in
                                    read_private.h; and "x.h:N: x.c: no such
                                    file" for a heading of no file
       house.py prefixes LIBMCT.a   print "mct_WORD_: a.o b.o" for each word
                                    that begins exports of more than one
                                    file (the reader's files are one; the
                                    predicates mct_is_ aside)
       house.py private LIBDIR OBJ...
                                    print "x.o: sym" for each function
                                    LIBDIR/mct_private.h declares that one
                                    of the OBJs (the tools') calls
"""
import os
import re
import subprocess
import sys

MAX_LINES = 1500
MAX_LINES_OF = {"reader.c": 1199}

ENDERS = {"exit", "_exit", "_Exit", "err", "errx", "verr", "verrx", "abort",
          "mct_usage_hint"}
ALLOWED = {"util.o", "cli.o"}

# A reader opened with --merge or --pair-be hands out merged or paired
# events itself: no tool calls these.
INNER = ("mct_merge_", "mct_pairbe_", "mct_next_in", "mct_apart")


def symbols(lib):
    out = subprocess.run(["nm", "-A", lib], check=True, capture_output=True,
                         text=True).stdout
    defined, undefined = {}, {}
    for line in out.splitlines():
        # lib/libmct.a:field.o:0000000000000000 T mct_get
        head, _, rest = line.rpartition(":")
        obj = head.rsplit(":", 1)[-1]
        parts = rest.split()
        if len(parts) < 2:
            continue
        kind, name = parts[-2], parts[-1]
        if kind == "U":
            undefined.setdefault(obj, set()).add(name)
        elif kind.isupper():
            defined[name] = obj
        undefined.setdefault(obj, set())
    return defined, undefined


def graph(lib):
    defined, undefined = symbols(lib)
    g = {o: set() for o in undefined}
    for o, names in undefined.items():
        for n in names:
            d = defined.get(n)
            if d is not None and d != o:
                g[o].add(d)
    return g, undefined


def cycles(g):
    """Every elementary cycle, found from each node by depth-first search
    (the graphs have a few dozen nodes)."""
    found = set()
    for start in sorted(g):
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in sorted(g[node]):
                if nxt == start:
                    cyc = path[:]
                    i = cyc.index(min(cyc))
                    found.add(" -> ".join(cyc[i:] + cyc[:i] + [cyc[i]]))
                elif nxt not in path and nxt > start:
                    stack.append((nxt, path + [nxt]))
    return sorted(found)


def sources(libdir):
    return sorted(f for f in os.listdir(libdir)
                  if f.endswith((".c", ".cc", ".h")))


def includes(libdir):
    """The graph of #include "x" among the files of libdir (a header not
    there, config.h say, is no node)."""
    names = sources(libdir)
    g = {f: set() for f in names}
    for f in names:
        with open(os.path.join(libdir, f), encoding="utf-8") as fp:
            for line in fp:
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if m and m.group(1) in g:
                    g[f].add(m.group(1))
    return g


def sizes(libdir, limit=None):
    for f in sources(libdir):
        if not f.endswith(".c"):
            continue
        with open(os.path.join(libdir, f), encoding="utf-8") as fp:
            n = sum(1 for _ in fp)
        most = limit if limit is not None else MAX_LINES_OF.get(f, MAX_LINES)
        if n > most:
            print(f"{f}: {n} lines (at most {most})")


def inner(objs):
    """Each object's calls of what only mct_next() calls."""
    for obj in objs:
        out = subprocess.run(["nm", "-u", obj], check=True,
                             capture_output=True, text=True).stdout
        for name in sorted(line.split()[-1] for line in out.splitlines()
                           if line.strip()):
            if name.startswith(INNER):
                print(f"{os.path.basename(obj)}: {name}")


def tool_of(obj):
    """The tool an object is of: mct-X.o and X-JOB.o are of X."""
    name = os.path.basename(obj).rsplit(".", 1)[0]
    if name.startswith("mct-"):
        return name[4:]
    return name.split("-", 1)[0]


def object_symbols(objs, users, defined=None):
    """Adds to users each name an object of objs uses (name: objects), and
    to defined each one it exports, main aside (object: names)."""
    for obj in objs:
        out = subprocess.run(["nm", obj], check=True, capture_output=True,
                             text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                users.setdefault(parts[1], set()).add(obj)
            elif (defined is not None and len(parts) == 3 and
                  parts[1] in "TDBCR" and parts[2] != "main"):
                defined.setdefault(obj, []).append(parts[2])


def tools(objs):
    """What a tool's objects export, and who uses it."""
    defined, users = {}, {}
    object_symbols(objs, users, defined)
    # each tool links its own objects only: a name another tool's object
    # uses is that tool's own where one of its objects defines it too
    own = {(tool_of(o), n) for o, names in defined.items() for n in names}
    for obj in objs:
        base, mine = os.path.basename(obj), tool_of(obj)
        for name in sorted(defined.get(obj, [])):
            who = users.get(name, set()) - {obj}
            kin = [u for u in who if tool_of(u) == mine]
            other = sorted(os.path.basename(u) for u in who
                           if tool_of(u) != mine and
                           (tool_of(u), name) not in own)
            if other:
                print(f"{base}: {name}: used by {', '.join(other)}")
            elif not kin:
                print(f"{base}: {name}: no other file of its tool uses it")


def lonely(lib, objs):
    defined, undefined = symbols(lib)
    users = {}
    for o, names in undefined.items():
        for n in names:
            users.setdefault(n, set()).add(o)
    object_symbols(objs, users)
    for name, obj in sorted(defined.items(), key=lambda x: (x[1], x[0])):
        if not users.get(name, set()) - {obj}:
            print(f"{obj}: {name}")


def options(paths):
    """The lines of each file's options(), as "file N", then "total N"."""
    total = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        start = next((i for i, line in enumerate(lines)
                      if line.startswith("options(")), None)
        if start is None:
            print(f"{path} none")
            continue
        end = next(i for i in range(start, len(lines)) if lines[i] == "}")
        print(f"{path.rsplit('/', 1)[-1]} {end - start + 1}")
        total += end - start + 1
    print(f"total {total}")


# The concepts lib defines once, each in its place: how a line that
# decides it again looks, and the files where it may (the one definition,
# and what only looks like another: the framer's note of the same, a
# header's list of ranks, a partial's lines).
ONCE = [
    ("is-meta (mct_is_meta)",
     re.compile(r"""(?i)ph.*(mct_jstr_eq\([^;]*"M"\s*,\s*1\)|==\s*'M'|,\s*'M'\s*\))"""),
     {"field.c", "json_scan.c"}),
    ("an event's rank (mct_event_rank)",
     re.compile(r"""(mct_get_key|mct_get|key_at|mct_field_parse|mct_pline_int)\s*\([^;]*"rank"\s*[,)]"""),
     {"field.c", "read_header.c", "rankpart.c"}),
    ("file sniffing (mct_src_kind)",
     re.compile(r"""(memcmp|strncmp|strstr|mct_get_key)\s*\([^;]*(mct_header|MCT_HEADER|mct_partial|mct_ranks_partial|\{\\"mct_)"""
                r"""|^(?!.*mct_buf_add).*"\{\\"mct_"""
                r"""|MCT_HEADER_NAME\s*"\\""\s*;"""
                r"""|!=\s*'\{'.*!=\s*'\['"""),
     {"input.c", "mct.h"}),
]


def once(dirs):
    for d in dirs:
        for f in sources(d):
            with open(os.path.join(d, f), encoding="utf-8") as fp:
                for n, line in enumerate(fp, 1):
                    for what, pat, places in ONCE:
                        if f not in places and pat.search(line):
                            print(f"{f}:{n}: {what}: {line.strip()}")


HEADING = re.compile(r"^ \* ([a-z_0-9]+\.(?:c|cc)) - ")
DECL = re.compile(r"\b([a-z_][a-z_0-9]*)\s*\(")


def unit(name):
    """A file as headings name it: the reader's files are reader.c."""
    stem = re.sub(r"\.(o|c|cc)$", "", name)
    return "reader" if stem == "reader" or stem.startswith("read_") else stem


def declared(path):
    """name -> the stem of the heading it is declared under (None before
    the first), for each function a header declares outside comments;
    and the headings, as (line number, file)."""
    decl, heads, sect, incomment, inbody = {}, [], None, False, False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = HEADING.match(line)
            if m:
                sect = m.group(1)
                heads.append((n, sect))
            # an inline function's body declares nothing
            if line.startswith(("{", "}")):
                inbody = line.startswith("{")
                continue
            if inbody:
                continue
            code = line
            if incomment:
                if "*/" not in line:
                    continue
                code, incomment = line.split("*/", 1)[1], False
            code = re.sub(r"/\*.*?\*/", "", code)
            if "/*" in code:
                code, incomment = code.split("/*", 1)[0], True
            if code.lstrip().startswith("#") or "static inline" in code:
                continue
            for d in DECL.finditer(code):
                decl.setdefault(d.group(1), sect)
    return decl, heads


def headers(lib, libdir):
    defined, _ = symbols(lib)
    mct, heads = declared(os.path.join(libdir, "mct.h"))
    priv, pheads = declared(os.path.join(libdir, "mct_private.h"))
    read, _ = declared(os.path.join(libdir, "read_private.h"))
    for h, hs in (("mct.h", heads), ("mct_private.h", pheads)):
        for n, f in hs:
            if not os.path.exists(os.path.join(libdir, f)):
                print(f"{h}:{n}: {f}: no such file")
    for name, obj in sorted(defined.items(), key=lambda x: (x[1], x[0])):
        if not name.startswith("mct_"):
            if name not in read:
                print(f"{obj}: {name}: not in read_private.h")
            continue
        sect = mct.get(name, priv.get(name))
        if sect is None:
            print(f"{obj}: {name}: not in mct.h nor mct_private.h")
        elif unit(sect) != unit(obj):
            print(f"{obj}: {name}: under {sect}")


def prefixes(lib):
    defined, _ = symbols(lib)
    files = {}
    for name, obj in defined.items():
        parts = name.split("_")
        if parts[0] != "mct" or len(parts) < 2 or parts[1] == "is":
            continue
        files.setdefault(parts[1], set()).add(unit(obj))
    for word, f in sorted(files.items()):
        if len(f) > 1:
            print(f"mct_{word}_: " + " ".join(sorted(x + ".o" for x in f)))


def private(libdir, objs):
    priv, _ = declared(os.path.join(libdir, "mct_private.h"))
    for obj in objs:
        out = subprocess.run(["nm", "-u", obj], check=True,
                             capture_output=True, text=True).stdout
        for name in sorted(line.split()[-1] for line in out.splitlines()
                           if line.strip()):
            if name in priv:
                print(f"{os.path.basename(obj)}: {name}")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "headers":
        headers(sys.argv[2], sys.argv[3])
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "prefixes":
        prefixes(sys.argv[2])
        return 0
    if len(sys.argv) > 3 and sys.argv[1] == "private":
        private(sys.argv[2], sys.argv[3:])
        return 0
    if len(sys.argv) > 2 and sys.argv[1] == "lonely":
        lonely(sys.argv[2], sys.argv[3:])
        return 0
    if len(sys.argv) > 2 and sys.argv[1] == "options":
        options(sys.argv[2:])
        return 0
    if len(sys.argv) > 2 and sys.argv[1] == "tools":
        tools(sys.argv[2:])
        return 0
    if len(sys.argv) > 2 and sys.argv[1] == "inner":
        inner(sys.argv[2:])
        return 0
    if len(sys.argv) > 2 and sys.argv[1] == "once":
        once(sys.argv[2:])
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "sizes":
        sizes(sys.argv[2], int(sys.argv[3]))
        return 0
    cmds = ("graph", "cycles", "exits", "includes", "sizes")
    if len(sys.argv) != 3 or sys.argv[1] not in cmds:
        sys.stderr.write(__doc__)
        return 2
    if sys.argv[1] == "includes":
        for c in cycles(includes(sys.argv[2])):
            print(c)
        return 0
    if sys.argv[1] == "sizes":
        sizes(sys.argv[2])
        return 0
    g, undefined = graph(sys.argv[2])
    if sys.argv[1] == "graph":
        for o in sorted(g):
            for d in sorted(g[o]):
                print(f"{o} -> {d}")
    elif sys.argv[1] == "cycles":
        for c in cycles(g):
            print(c)
    else:
        for o in sorted(undefined):
            if o in ALLOWED:
                continue
            for n in sorted(undefined[o] & ENDERS):
                print(f"{o}: {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
