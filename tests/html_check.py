#!/usr/bin/env python3
"""html_check.py - what mct-report -o html must be, checked from outside.

usage: html_check.py MD HTML [DOM CONSOLE PNG]

MD is the Markdown report, HTML the page mct-report -o html wrote of the
same trace; DOM, CONSOLE and PNG are what a browser made of the page
(chromium --dump-dom, its log on stderr, --screenshot).  Prints one JSON
object with every answer the tests ask:

  parses      the page parses with html.parser, every element closed
  tables      the number of tables of MD
  same_text   each table's cells in the page are those of MD (`code` as text)
  charts      the number of charts; marks_ok: each has one mark a row of
              the table beside it
  outside     the addresses the page would fetch (src, href, url(...) not
              data: or #): none
  scripts     <script> elements and on* attributes: none
  dom_same    the browser's tables and marks are the page's
  console     the browser's console messages
  shot        width, height, colours of the screenshot and the share of
              pixels not the background
"""
import html.parser
import json
import re
import struct
import sys
import zlib

VOID = {"meta", "br", "img", "hr", "input", "link", "rect", "path", "line",
        "circle", "polyline", "polygon"}


def md_tables(text):
    """Each table of the Markdown: its rows of cells, the rule row aside."""
    tables, cur = [], None
    for line in text.split("\n"):
        if line.startswith("|"):
            if re.fullmatch(r"\|(-+\|)+", line):
                continue
            body = line.replace("\\|", "\x01")[1:]
            if body.endswith("|"):
                body = body[:-1]
            cells = [c[1:] if c.startswith(" ") else c for c in body.split("|")]
            cells = [c[:-1] if c.endswith(" ") else c for c in cells]
            cells = [c.replace("\x01", "|").replace("`", "") for c in cells]
            if cur is None:
                cur = []
                tables.append(cur)
            cur.append(cells)
        else:
            cur = None
    return tables


class Page(html.parser.HTMLParser):
    """The tables, the charts and what the page refers to."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors = [], []
        self.tables, self.charts, self.pairs = [], [], []
        self.outside, self.scripts = [], 0
        self.cell = None
        self.row = None
        self.marks = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag not in VOID:
            self.stack.append(tag)
        if tag == "script" or any(k.startswith("on") for k in a):
            self.scripts += 1
        for k in ("src", "href", "xlink:href", "action"):
            v = a.get(k)
            if v is not None and not (v.startswith("data:") or v.startswith("#")):
                self.outside.append(v)
        for v in a.values():
            for u in re.findall(r"url\(([^)]*)\)", v or ""):
                if not u.strip("'\" ").startswith(("data:", "#")):
                    self.outside.append(u)
        if tag == "link":
            self.outside.append(a.get("href", "link"))
        if tag == "div" and a.get("class") == "pair":
            self.pairs.append({"table": None, "chart": None})
        if tag == "table":
            self.tables.append([])
            if self.pairs:
                self.pairs[-1]["table"] = len(self.tables) - 1
        elif tag == "tr":
            self.row = []
            self.tables[-1].append(self.row)
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "svg":
            self.marks = 0
        elif tag == "g" and self.marks is not None and \
                "mark" in (a.get("class") or "").split():
            self.marks += 1

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else ""))
        else:
            self.stack.pop()
        if tag in ("td", "th") and self.cell is not None:
            self.row.append("".join(self.cell))
            self.cell = None
        elif tag == "svg":
            self.charts.append(self.marks)
            if self.pairs:
                self.pairs[-1]["chart"] = len(self.charts) - 1
            self.marks = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)

    def handle_style(self, text):
        for u in re.findall(r"url\(([^)]*)\)", text):
            if not u.strip("'\" ").startswith(("data:", "#")):
                self.outside.append(u)


def read_page(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    p = Page()
    p.feed(text)
    p.close()
    p.handle_style(text)
    if p.stack and p.stack != ["html"]:
        p.errors.append("unclosed: " + " ".join(p.stack))
    return p


def marks_ok(p):
    """Each chart beside a table has one mark a row of the table (its header aside)."""
    bad = []
    for pair in p.pairs:
        if pair["chart"] is None:
            continue
        rows = len(p.tables[pair["table"]]) - 1
        if p.charts[pair["chart"]] != rows:
            bad.append([p.tables[pair["table"]][0], rows, p.charts[pair["chart"]]])
    return bad


def png(path):
    """Width, height, distinct colours and the share of non-background pixels."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", chunk[:10])
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    if depth != 8 or ctype not in (2, 6):
        return {"width": w, "height": h, "colours": None, "ink": None}
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    colours, counts = set(), {}
    i = 0
    for _ in range(h):
        ft = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ft == 1:
                line[x] = (line[x] + a) & 255
            elif ft == 2:
                line[x] = (line[x] + b) & 255
            elif ft == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ft == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        for x in range(0, stride, bpp * 4):
            px = bytes(line[x:x + 3])
            counts[px] = counts.get(px, 0) + 1
        prev = line
    colours = len(counts)
    total = sum(counts.values())
    ink = 1 - max(counts.values()) / total if total else 0
    return {"width": w, "height": h, "colours": colours, "ink": round(ink, 4)}


def main(argv):
    if len(argv) not in (3, 6):
        sys.exit(__doc__)
    with open(argv[1], encoding="utf-8") as f:
        md = md_tables(f.read())
    p = read_page(argv[2])
    ans = {
        "parses": not p.errors,
        "errors": p.errors[:5],
        "tables": len(md),
        "same_text": p.tables == md,
        "charts": len(p.charts),
        "marks": sum(p.charts),
        "marks_ok": not marks_ok(p) and len(p.charts) > 0,
        "marks_bad": marks_ok(p)[:3],
        "outside": p.outside[:5],
        "scripts": p.scripts,
    }
    if not ans["same_text"]:
        for i, (a, b) in enumerate(zip(p.tables, md)):
            if a != b:
                ans["first_difference"] = [i, a[:3], b[:3]]
                break
    if len(argv) == 6:
        d = read_page(argv[3])
        ans["dom_same"] = d.tables == p.tables and d.charts == p.charts
        with open(argv[4], encoding="utf-8", errors="replace") as f:
            ans["console"] = [l.strip() for l in f if ":CONSOLE" in l][:5]
        ans["shot"] = png(argv[5])
    print(json.dumps(ans, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv)
