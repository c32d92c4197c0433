"""check_report.py DOM STATS_JSON STATS_TXT DUMP: the report page as
Chromium's DOM holds it (chromium --dump-dom), parsed with html.parser and
checked against siot stats --json, siot stats and siot dump:

- colours: every element of a concept (class c-NAME) has one colour (its
  fill, or a legend swatch's background), and two concepts never share one;
  every coloured SVG shape names its concept;
- ticks: a linear axis's labels are 0, s, 2s... with s a 1-2-5 multiple of
  a power of ten in the labels' unit; a log axis's labels are 1, 10 or 100
  of a unit;
- request sizes: log-scale charts (marked so) whose bars carry their values,
  the calls and bytes of siot stats --json's request_sizes, every bin;
- layers: calls, bytes and time per layer as in the JSON, MPI init/finalize
  a row of its own (MPI_Init, MPI_Init_thread, MPI_Finalize out of MPI);
- call sites: no MPI_Init / MPI_Finalize row; the init/finalize line gives
  their calls;
- files: every row as the JSON's files (opens, calls, exact bytes), none
  with no successful call; the failed opens as the JSON's, and every open
  that siot dump shows failing (ret=-1) among them;
- the -g hint on the page exactly when siot stats prints it;
- bandwidth: each I/O layer's bytes over the time in its calls, as the JSON gives them.
- files' time and bandwidth, the top files by bytes and by time, the
  access patterns and the layers' amplification: as siot stats --json
  --access gives them (STATS_JSON must come from --access);
- the heat map of I/O over time: one row per rank (or group), shares
  within 0..1, a legend;
- with PROGRAM "known" (tests/progs/known.c): numbers the source fixes
  (known.dat: 40 MPI_File_write_at of 100 bytes, each rank's consecutive
  after its first at rank*1000; posix-R.dat: 3 write of 64 then a pwrite of
  32 at 1000), independently of siot stats.
- with PROGRAM "rmw" (tests/progs/rmw.c): the MPI-IO writes' bytes and
  access pattern its source fixes, and ROMIO's read-modify-write under
  them (POSIX reads under MPI-IO writes, at least as many bytes written).
Usage: check_report.py DOM STATS_JSON STATS_TXT DUMP [PROGRAM].
Prints what it checked; exit status 1 with the reasons otherwise."""
import json
import math
import os
import re
import sys
from html.parser import HTMLParser

from access_oracle import expected_access  # the same directory

VOID = {"meta", "br", "img", "input", "link", "hr", "col", "area", "base", "wbr", "source"}
INIT_FUNCS = {"MPI_Init", "MPI_Init_thread", "MPI_Finalize"}
LAYER_TITLE = {"posix": "POSIX", "stdio": "stdio", "mpi": "MPI", "mpiio": "MPI-IO", "hdf5": "HDF5",
               "pnetcdf": "PnetCDF"}
BYTE_UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4}
TIME_UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children, self.text = [], ""

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def all(self):
        yield self
        for c in self.children:
            yield from c.all()

    def find(self, tag=None, cls=None):
        return [n for n in self.all() if (tag is None or n.tag == tag) and (cls is None or cls in n.classes())]

    def alltext(self):
        return self.text + "".join(c.alltext() for c in self.children)


class Tree(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.cur = Node("#root", [], None)

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.text += data


errors = []


def err(msg):
    errors.append(msg)


def colour_of(n):
    if "fill" in n.attrs:
        return n.attrs["fill"].lower()
    m = re.search(r"background:\s*([^;]+)", n.attrs.get("style", ""))
    return m.group(1).strip().lower() if m else None


def check_colours(root):
    seen = {}
    for n in root.all():
        for c in n.classes():
            if c.startswith("c-"):
                seen.setdefault(c, set()).add(colour_of(n))
    for c, cols in sorted(seen.items()):
        if len(cols) != 1 or None in cols:
            err(f"concept {c} has colours {sorted(map(str, cols))}")
    owner = {}
    for c, cols in seen.items():
        for col in cols:
            if col in owner and owner[col] != c:
                err(f"colour {col} means both {owner[col]} and {c}")
            owner[col] = c
    for svg in root.find("svg"):
        for n in svg.all():
            if n.tag in ("rect", "circle", "path", "polygon") and "fill" in n.attrs and \
                    not any(c.startswith("c-") for c in n.classes()):
                err(f"an SVG {n.tag} filled {n.attrs['fill']} names no concept")
    legends = root.find("div", "legend")
    for svg in root.find("svg", "chart"):
        fig = svg.parent
        if fig is None or not fig.find("div", "legend"):
            err(f"chart '{title(svg)}' has no legend of its own")
        else:
            shown = {c for n in svg.all() for c in n.classes() if c.startswith("c-")}
            listed = {c for n in fig.find("div", "legend")[0].all() for c in n.classes() if c.startswith("c-")}
            if not shown <= listed:
                err(f"chart '{title(svg)}': {sorted(shown - listed)} drawn but not in its legend")
    return len(seen), len(legends)


def title(svg):
    t = svg.find("text", "t")
    return t[0].alltext() if t else "?"


def parse_label(s):
    """'200 KiB' -> (200.0, 'KiB'); '10' -> (10.0, '')"""
    m = re.fullmatch(r"\s*([0-9.]+(?:e[+-]?\d+)?)\s*([A-Za-z]*)\s*", s)
    if not m:
        return None
    return float(m.group(1)), m.group(2)


def is125(x):
    if x <= 0:
        return False
    e = math.floor(math.log10(x) + 1e-9)
    m = x / 10 ** e
    return any(abs(m - k) < 1e-6 for k in (1, 2, 5, 10))


def check_ticks(root):
    axes = 0
    for svg in root.find("svg"):
        lin = [t for t in svg.find("text", "tick") if "log" not in t.classes()]
        log = [t for t in svg.find("text", "tick") if "log" in t.classes()]
        if lin:
            axes += 1
            vals = [parse_label(t.alltext()) for t in lin]
            if None in vals:
                err(f"'{title(svg)}': tick labels not a number and a unit: {[t.alltext() for t in lin]}")
                continue
            units = {u for v, u in vals if v != 0}
            if len(units) > 1:
                err(f"'{title(svg)}': ticks in several units {units}")
            nums = [v for v, u in vals]
            step = nums[1] - nums[0] if len(nums) > 1 else 0
            if nums[0] != 0 or not is125(step) or any(abs(v - i * step) > 1e-6 * step for i, v in enumerate(nums)):
                err(f"'{title(svg)}': ticks {[t.alltext() for t in lin]} are not 0, s, 2s... with s 1-2-5")
        if log:
            axes += 1
            for t in log:
                v = parse_label(t.alltext())
                if v is None or not any(abs(v[0] - k) < 1e-9 for k in (1, 10, 100, 1000)) and v[1] == "" or \
                        v[1] and not any(abs(v[0] - k) < 1e-9 for k in (1, 10, 100)):
                    err(f"'{title(svg)}': log tick {t.alltext()!r} is not 1, 10 or 100 of a unit (or a power of ten)")
    return axes


def base_value(label):
    """'10 KiB' -> 10240, '100' -> 100, '5 ms' -> 5e6"""
    v = parse_label(label)
    if v is None:
        return None
    return v[0] * {**BYTE_UNITS, **TIME_UNITS, "": 1}.get(v[1], float("nan"))


def check_log_scale(svg):
    """Ticks and bar tops where a logarithmic axis puts them: y linear in
    log(value), fitted through the first and last tick, within a pixel."""
    ticks = [(base_value(t.alltext()), float(t.attrs["y"]) - 4) for t in svg.find("text", "tick")]
    if len(ticks) < 3 or any("log" not in t.classes() for t in svg.find("text", "tick")) or ticks[0][0] != 1:
        err(f"'{title(svg)}': not a log axis from 1 (ticks {[t.alltext() for t in svg.find('text', 'tick')]})")
        return
    (v0, y0), (v1, y1) = ticks[0], ticks[-1]
    slope = (y1 - y0) / math.log(v1)
    for v, y in ticks:
        if abs(y0 + slope * math.log(v) - y) > 1:
            err(f"'{title(svg)}': tick {v} at y {y}, not on the log scale")
    kids = [n for n in svg.all() if n.tag in ("rect", "text")]
    for i, n in enumerate(kids):
        if n.tag == "rect" and i + 1 < len(kids) and "bv" in kids[i + 1].classes():
            v = base_value(kids[i + 1].alltext())
            top, h = float(n.attrs["y"]), float(n.attrs["height"])
            if v and h > 2.5 and abs(y0 + slope * math.log(v) - top) > 1.5 + 0.06 * abs(slope):
                err(f"'{title(svg)}': bar of {kids[i + 1].alltext()} tops at y {top}, not on the log scale")


def bytes_of(label):
    v = parse_label(label)
    return None if v is None or v[1] not in BYTE_UNITS else (v[0], BYTE_UNITS[v[1]])


def check_sizes(root, st):
    want = {}
    for key, bins in st.get("request_sizes", {}).items():
        layer, d = key.rsplit("_", 1)
        for b in bins:
            want[(layer, d, b["min"])] = (b["count"], b["bytes"])
    logs = root.find("svg", "log")
    if want and not logs:
        err("no log-scale request-size chart")
    for svg in logs:
        if "logarithmic" not in svg.alltext():
            err(f"'{title(svg)}': a log chart not marked logarithmic")
        check_log_scale(svg)
    got = {"calls": {}, "bytes": {}}
    for svg in logs:
        kids = [n for n in svg.all() if n.tag in ("rect", "text")]
        for i, n in enumerate(kids):
            if n.tag == "rect" and ("c-read" in n.classes() or "c-write" in n.classes()):
                v = kids[i + 1] if i + 1 < len(kids) else None
                if v is None or "bv" not in v.classes():
                    err(f"'{title(svg)}': a bar without its value")
                    continue
                k = (v.attrs["data-layer"], v.attrs["data-dir"], int(v.attrs["data-min"]))
                got[v.attrs["data-what"]][k] = v.alltext()
    for what, i in (("calls", 0), ("bytes", 1)):
        if set(got[what]) != set(want):
            err(f"size bars ({what}) {sorted(set(got[what]) ^ set(want))[:6]} differ from stats --json")
        for k, text in got[what].items():
            if k not in want:
                continue
            exact = want[k][i]
            if what == "calls" and text != str(exact):
                err(f"size bar {k}: {text!r} calls, stats --json says {exact}")
            if what == "bytes":
                b = bytes_of(text)
                if b is None or abs(b[0] * b[1] - exact) > 0.051 * b[1]:
                    err(f"size bar {k}: {text!r}, stats --json says {exact} bytes")
    return len(got["calls"]), len(got["bytes"])


def hbar_rows(root, name):
    for svg in root.find("svg"):
        if title(svg) == name:
            return {t.attrs["data-row"]: [float(x) for x in t.attrs["data-v"].split(",")] for t in svg.find("text", "v")}
    err(f"no chart '{name}'")
    return {}


def close(a, b):
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b)) + 1e-3


def check_layers(root, st):
    fn = st["functions"]
    init = {k: sum(f[k] for n, f in fn.items() if n in INIT_FUNCS) for k in ("calls", "time_s")}
    calls, rw, times = (hbar_rows(root, n) for n in ("Calls", "Bytes read and written", "Time in calls (all ranks)"))
    for l, d in st["layers"].items():
        t = LAYER_TITLE[l]
        sub = init if l == "mpi" else {"calls": 0, "time_s": 0}
        if d["calls"] - sub["calls"] and not close(calls.get(t, [-1])[0], d["calls"] - sub["calls"]):
            err(f"Calls {t}: {calls.get(t)} on the page, stats --json {d['calls']} less init/finalize {sub['calls']}")
        if d["calls"] - sub["calls"] and not close(times.get(t, [-1])[0] * 1e-9, d["time_s"] - sub["time_s"]):
            err(f"Time {t}: {times.get(t)} ns on the page, stats --json {d['time_s']} s less {sub['time_s']}")
        if l != "mpi" and rw.get(t) != [d["bytes_read"], d["bytes_written"]]:
            err(f"Bytes {t}: {rw.get(t)} on the page, stats --json {d['bytes_read']}, {d['bytes_written']}")
    if init["calls"]:
        c, t = calls.get("MPI init/finalize"), times.get("MPI init/finalize")
        if not c or c[0] != init["calls"] or not t or not close(t[0] * 1e-9, init["time_s"]):
            err(f"MPI init/finalize: {c} calls, {t} ns on the page; stats --json {init}")
        top = max(times.items(), key=lambda kv: kv[1][0])[0] if times else None
        print(f"   time rows: {', '.join(f'{k} {v[0] * 1e-9:.3f}s' for k, v in times.items())} (top: {top})")
    return init


def check_bandwidth(root, st):
    """Each I/O layer's bytes per second of its calls = (read + written) / time_s of stats --json."""
    cells = {td.attrs.get("data-layer"): float(td.attrs["data-bps"]) for td in root.find("td") if "data-bps" in td.attrs}
    for l, d in st["layers"].items():
        moved = d["bytes_read"] + d["bytes_written"]
        if l == "mpi" or moved <= 0 or d["time_s"] <= 0:
            continue
        want = moved / d["time_s"]
        if l not in cells or abs(cells[l] - want) > 1e-5 * want:
            err(f"bandwidth {l}: {cells.get(l)} B/s on the page, stats --json {want}")
    return len(cells)


def table_rows(root, cls):
    tabs = root.find("table", cls)
    if not tabs:
        return None
    return [[td.alltext().strip() for td in tr.find("td")] + [[td.attrs.get("title") for td in tr.find("td")]]
            for tr in tabs[0].find("tr") if tr.find("td")]


def check_sites(root, st, init):
    rows = table_rows(root, "sites") or []
    bad = [r[1] for r in rows if r[1] in INIT_FUNCS]
    if bad:
        err(f"call-site table lists {bad}")
    line = root.find("p", "init")
    if init["calls"]:
        if not line or f", {init['calls']} calls" not in line[0].alltext():
            err(f"no line giving the {init['calls']} MPI init/finalize calls apart")
    return len(rows), rows[0][1] if rows else None


def check_files(root, st, dump):
    rows = table_rows(root, "files") or []
    want = {(f["name"], LAYER_TITLE[f["layer"]]): f for f in st["files"]}
    seen = set()
    for r in rows:
        name, layer, opens, calls = r[0], r[1], int(r[2]), int(r[3])
        titles = r[-1]
        f = want.get((name, layer))
        seen.add((name, layer))
        if opens + calls == 0:
            err(f"files table: {name} ({layer}) with no successful call")
        if f is None:
            err(f"files table: {name} ({layer}) not in stats --json")
        elif (opens, calls, int(titles[4]), int(titles[5])) != \
                (f["opens"], f["calls"], f["bytes_read"], f["bytes_written"]):
            err(f"files table: {name} ({layer}) {r[:-1]} {titles[4:6]}, stats --json {f}")
    if seen != set(want):
        err(f"files table rows {sorted(set(want) - seen)[:4]} missing")
    failed = table_rows(root, "failed") or []
    fwant = {(f["name"], LAYER_TITLE[f["layer"]]): f["calls"] for f in st.get("failed_opens", [])}
    fgot = {(r[0], r[1]): int(r[2]) for r in failed}
    if fgot != fwant:
        err(f"failed opens on the page {fgot}, stats --json {fwant}")
    # siot dump: every open of a plain name that failed
    dumped = set(re.findall(r'\b(?:open|open64|openat|fopen|fopen64)\((?:dirfd=[^,]*, )?(?:pathname|filename|path)="'
                            r'([^"{}]+)"[^\n]*\bret=-1\b', dump))
    names = {n for n, _ in fgot}
    if not dumped <= names:
        err(f"opens siot dump shows failing, not in the failed list: {sorted(dumped - names)}")
    return len(rows), sorted(names)


def rows_of(root, cls):
    """A table's rows as lists of <td> nodes."""
    tabs = root.find("table", cls)
    return [tr.find("td") for tr in tabs[0].find("tr") if tr.find("td")] if tabs else None


def check_file_times(root, st):
    """Files table: time in data calls (data-ns) and bandwidth (data-bps) as stats --json's time_s."""
    want = {(f["name"], LAYER_TITLE[f["layer"]]): f for f in st["files"]}
    n = 0
    for tds in rows_of(root, "files") or []:
        f = want.get((tds[0].alltext().strip(), tds[1].alltext().strip()))
        ns = [float(td.attrs["data-ns"]) for td in tds if "data-ns" in td.attrs]
        bps = [float(td.attrs["data-bps"]) for td in tds if "data-bps" in td.attrs]
        if f is None or not ns:
            err(f"files table: row {tds[0].alltext()} without its time")
            continue
        n += 1
        if not close(ns[0] * 1e-9, f["time_s"]):
            err(f"files table: {f['name']} ({f['layer']}) {ns[0]} ns, stats --json time_s {f['time_s']}")
        moved = f["bytes_read"] + f["bytes_written"]
        if moved and f["time_s"] > 0 and (not bps or abs(bps[0] - moved / f["time_s"]) > 1e-5 * bps[0]):
            err(f"files table: {f['name']} ({f['layer']}) bandwidth {bps}, stats --json {moved / f['time_s']}")
    return n


def check_top_files(root, st):
    """The top 10 by bytes and by time: rows as stats --json's files, in
    order, and no file left out that beats the last one shown."""
    files = [f for f in st["files"] if f["bytes_read"] + f["bytes_written"] > 0 or f["time_s"] > 0]
    got = {}
    for cls, key in (("top-bytes", lambda f: f["bytes_read"] + f["bytes_written"]), ("top-time", lambda f: f["time_s"])):
        rows = rows_of(root, cls)
        if rows is None:
            err(f"no table {cls}")
            continue
        want = {(f["name"], LAYER_TITLE[f["layer"]]): f for f in files}
        keys = []
        for tds in rows:
            f = want.get((tds[0].alltext().strip(), tds[1].alltext().strip()))
            if f is None:
                err(f"{cls}: {tds[0].alltext()} not among stats --json's files")
                continue
            b = [int(td.attrs["data-bytes"]) for td in tds if "data-bytes" in td.attrs]
            ns = [float(td.attrs["data-ns"]) for td in tds if "data-ns" in td.attrs]
            if b != [f["bytes_read"], f["bytes_written"]] or not ns or not close(ns[0] * 1e-9, f["time_s"]):
                err(f"{cls}: {f['name']} {b} {ns}, stats --json {f}")
            keys.append(key(f))
        if len(rows) != min(10, len(files)):
            err(f"{cls}: {len(rows)} rows, stats --json has {len(files)} files that moved data")
        if keys != sorted(keys, reverse=True):
            err(f"{cls}: not in decreasing order: {keys}")
        shown = {(tds[0].alltext().strip(), tds[1].alltext().strip()) for tds in rows}
        left = [key(f) for f in files if (f["name"], LAYER_TITLE[f["layer"]]) not in shown]
        if keys and left and max(left) > keys[-1] * (1 + 1e-9):
            err(f"{cls}: a file left out has {max(left)}, more than the last shown {keys[-1]}")
        got[cls] = len(rows)
    return got


def check_access(root, st):
    """Access patterns and amplification: every row as stats --json --access."""
    if "access" not in st:
        err("STATS_JSON has no access rows: make it with siot stats --json --access")
        return 0, 0
    want = {(a["name"], LAYER_TITLE[a["layer"]]): a for a in st["access"]
            if a["consecutive"] + a["sequential"] + a["random"] + a["unknown"]}
    got = {}
    for tds in rows_of(root, "access") or []:
        got[(tds[0].alltext().strip(), tds[1].alltext().strip())] = \
            {td.attrs["data-key"]: int(td.alltext()) for td in tds if "data-key" in td.attrs}
    for k, a in want.items():
        if got.get(k) != {n: a[n] for n in ("consecutive", "sequential", "random", "unknown", "aligned")}:
            err(f"access {k}: {got.get(k)} on the page, stats --json {a}")
    if set(got) != set(want):
        err(f"access rows {sorted(set(got) ^ set(want))[:4]} differ from stats --json")
    amp = {}
    for tds in rows_of(root, "amplification") or []:
        txt = [td.alltext().strip() for td in tds]
        b = [int(td.attrs["data-bytes"]) for td in tds if "data-bytes" in td.attrs]
        r = [float(td.attrs["data-ratio"]) for td in tds if "data-ratio" in td.attrs]
        amp[(txt[0], txt[1], txt[3])] = (b, r[0] if r else None)
    for a in st["amplification"]:
        k = (LAYER_TITLE[a["upper"]], a["upper_dir"] + "s", LAYER_TITLE[a["lower"]])
        b = [a["upper_bytes"], a["lower_read"], a["lower_written"]]
        ratio = (a["lower_read"] + a["lower_written"]) / a["upper_bytes"] if a["upper_bytes"] else 0
        if k not in amp or amp[k][0] != b or amp[k][1] is None or not close(amp[k][1], ratio):
            err(f"amplification {k}: {amp.get(k)} on the page, stats --json {b} ratio {ratio}")
    if len(amp) != len(st["amplification"]):
        err(f"amplification: {len(amp)} rows on the page, {len(st['amplification'])} in stats --json")
    return len(got), len(amp)


def check_heat(root, st):
    """The heat map: a row per rank (or group of ranks), shares 0..1, its scale in the legend."""
    svgs = root.find("svg", "heat")
    if not svgs:
        if any(l != "mpi" and d["calls"] for l, d in st["layers"].items()):
            err("no heat map of I/O over time")
        return 0
    svg = svgs[0]
    cells = [n for n in svg.find("rect") if "data-share" in n.attrs]
    shares = [float(n.attrs["data-share"]) for n in cells]
    if not cells or min(shares) < 0 or max(shares) > 1:
        err(f"heat map: {len(cells)} cells, shares {min(shares, default=None)}..{max(shares, default=None)}")
    labels = [t.alltext() for t in svg.find("text", "row")]
    n = st["nranks"]
    if n <= 32 and labels != [f"rank {k}" for k in range(n)]:
        err(f"heat map rows {labels[:5]}... for {n} ranks")
    if not svg.parent.find("div", "scale"):
        err("heat map without its scale")
    return len(cells)


def check_known(root):
    """tests/progs/known.c at any number of ranks P: the facts its source fixes."""
    acc = {(tds[0].alltext().strip(), tds[1].alltext().strip()):
           {td.attrs["data-key"]: int(td.alltext()) for td in tds if "data-key" in td.attrs}
           for tds in rows_of(root, "access") or []}
    posix = sorted(k[0] for k in acc if re.fullmatch(r"posix-\d+\.dat", k[0]))
    P = len(posix)
    if P < 2:
        err(f"known: {P} posix-R.dat files in the access table")
        return
    # each rank writes blocks (rank*10+i)*100, i < 10: its first at rank*1000 (sequential past 0, but for rank 0)
    want = {"consecutive": 10 * P - (P - 1), "sequential": P - 1, "random": 0, "unknown": 0, "aligned": 0}
    for layer in ("MPI-IO", "POSIX"):
        if acc.get(("known.dat", layer)) != want:
            err(f"known.dat ({layer}): {acc.get(('known.dat', layer))}, the source says {want}")
    for f in posix:  # write 64 at 0, 64, 128, then pwrite 32 at 1000
        if acc[(f, "POSIX")] != {"consecutive": 3, "sequential": 1, "random": 0, "unknown": 0, "aligned": 0}:
            err(f"{f}: {acc[(f, 'POSIX')]}, the source says 3 consecutive, 1 sequential")
    top = {tds[0].alltext().strip() + "/" + tds[1].alltext().strip(): [int(td.attrs["data-bytes"]) for td in tds
                                                                     if "data-bytes" in td.attrs]
           for tds in rows_of(root, "top-bytes") or []}
    if top.get("known.dat/MPI-IO") != [0, 1000 * P] or any(top.get(f + "/POSIX", [0, 224]) != [0, 224] for f in posix):
        err(f"known: top files by bytes {top}; the source says known.dat {1000 * P}, posix-R.dat 224 written")
    amp = [[td.alltext().strip() for td in tds] + [td.attrs.get("data-bytes") for td in tds]
           for tds in rows_of(root, "amplification") or []]
    if not any(r[0] == "MPI-IO" and r[1] == "writes" and r[3] == "POSIX" and r[7 + 2] == str(1000 * P) and
               r[7 + 5] == str(1000 * P) for r in amp):
        err(f"known: amplification {amp}; the source says MPI-IO writes of {1000 * P} bytes made POSIX write as many")
    print(f"   known.c at {P} ranks: known.dat {want}; posix-R.dat 3 consecutive + 1 sequential, 224 bytes; "
          f"MPI-IO -> POSIX writes 1.00")


def check_rmw(root, st):
    """tests/progs/rmw.c: rank 0 writes FILL bytes at 0, then each of P ranks
    R blocks of K bytes at (i*2P + 2*rank)*K collectively."""
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "progs", "rmw.c")).read()
    C = {m.group(1): int(m.group(2)) for m in re.finditer(r"#define (\w+) (\d+)", src)}
    P, R, K = st["nranks"], C["R"], C["K"]
    calls = [[(0, C["FILL"])] + [((i * 2 * P + 2 * r) * K, K) for i in range(R)] if r == 0 else
             [((i * 2 * P + 2 * r) * K, K) for i in range(R)] for r in range(P)]
    want = expected_access(calls)
    acc = {tds[1].alltext().strip(): {td.attrs["data-key"]: int(td.alltext()) for td in tds if "data-key" in td.attrs}
           for tds in rows_of(root, "access") or [] if tds[0].alltext().strip() == "rmw.out"}
    if acc.get("MPI-IO") != want:
        err(f"rmw.out (MPI-IO): {acc.get('MPI-IO')}, the source says {want}")
    amp = {(tds[0].alltext().strip(), tds[1].alltext().strip(), tds[3].alltext().strip()):
           [int(td.attrs["data-bytes"]) for td in tds if "data-bytes" in td.attrs]
           for tds in rows_of(root, "amplification") or []}
    up, rd, wr = amp.get(("MPI-IO", "writes", "POSIX"), [0, 0, 0])
    if up != C["FILL"] + R * P * K or rd <= 0 or wr < up:
        err(f"rmw: MPI-IO writes of {up} bytes (the source says {C['FILL'] + R * P * K}) made POSIX read {rd} "
            f"and write {wr}: no read-modify-write")
    print(f"   rmw.c at {P} ranks: MPI-IO {want}; MPI-IO writes {up} bytes -> POSIX read {rd}, wrote {wr} "
          f"(read-modify-write, ratio {(rd + wr) / up:.2f})")


def main():
    tree = Tree()
    tree.feed(open(sys.argv[1], errors="replace").read())
    root = tree.root
    st = json.load(open(sys.argv[2]))
    stats_txt = open(sys.argv[3]).read()
    dump = open(sys.argv[4]).read()
    nconcepts, nlegends = check_colours(root)
    axes = check_ticks(root)
    ncalls, nbytes = check_sizes(root, st)
    init = check_layers(root, st)
    nsites, top = check_sites(root, st, init)
    nfiles, failed = check_files(root, st, dump)
    nbw = check_bandwidth(root, st)
    ntimes = check_file_times(root, st)
    tops = check_top_files(root, st)
    nacc, namp = check_access(root, st)
    nheat = check_heat(root, st)
    if len(sys.argv) > 5 and sys.argv[5] == "known":
        check_known(root)
    if len(sys.argv) > 5 and sys.argv[5] == "rmw":
        check_rmw(root, st)
    hint = bool(root.find("p", "hint"))
    if hint != ("rebuild the program with -g" in stats_txt):
        err(f"-g hint on the page: {hint}; in siot stats: {not hint}")
    for e in errors[:20]:
        print("check_report:", e, file=sys.stderr)
    if errors:
        sys.exit(1)
    print(f"   report: {nconcepts} concepts, one colour each, {nlegends} legends; {axes} axes of 1-2-5 ticks; "
          f"{ncalls}+{nbytes} log size bars with their values as stats --json; top site {top} of {nsites}; "
          f"{nfiles} file rows as stats --json; failed opens {failed}; -g hint {hint}; {nbw} layer bandwidths")
    print(f"   report: {ntimes} file times and bandwidths, top files {tops}, {nacc} access rows and {namp} "
          f"amplification rows as stats --json --access; heat map of {nheat} cells")


main()
