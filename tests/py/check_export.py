"""Checks `siot export` output against facts known from the traced programs'
sources, not from the tracer.

usage: check_export.py chrome FILE.json KIND N   (KIND irregular: N lseeks at
                                                   the LCG offsets of big.c;
                                                   KIND known: N ranks of known.c)
       check_export.py csv FILE.csv KIND N
       check_export.py count FILE.json           prints the number of X events
"""
import csv
import json
import sys


def fail(msg):
    print("check_export: " + msg, file=sys.stderr)
    sys.exit(1)


def lcg_offsets(n, rank=0):
    x = 12345 + rank
    for _ in range(n):
        x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
        yield x >> 21


def load_chrome(path):
    with open(path) as f:
        doc = json.load(f)  # the whole file must be valid JSON
    if not isinstance(doc.get("traceEvents"), list):
        fail("no traceEvents array")
    evs = doc["traceEvents"]
    for e in evs:
        if e.get("ph") not in ("X", "M"):
            fail("unexpected phase %r" % e.get("ph"))
    return doc, [e for e in evs if e["ph"] == "X"]


def check_times(rows):
    """Per rank: outermost calls in order without overlap, children inside
    their parent's span (microseconds; 5 ns of slack for the printed precision)."""
    by_rank = {}
    for r in rows:
        by_rank.setdefault(r["rank"], []).append(r)
    for rank, evs in by_rank.items():
        evs.sort(key=lambda r: r["seq"])
        span = {}
        last_end = -1.0
        for r in evs:
            span[r["seq"]] = (r["start"], r["start"] + r["dur"])
            if r["dur"] < 0:
                fail("rank %d seq %d: negative duration" % (rank, r["seq"]))
            if r["parent"] < 0:
                if r["start"] + 5e-3 < last_end:
                    fail("rank %d seq %d starts before the previous call ended" % (rank, r["seq"]))
                last_end = r["start"] + r["dur"]
            else:
                ps, pe = span[r["parent"]]
                if r["start"] + 5e-3 < ps or r["start"] + r["dur"] > pe + 5e-3:
                    fail("rank %d seq %d lies outside its parent %d" % (rank, r["seq"], r["parent"]))


def check_kind(rows, kind, n):
    if kind == "irregular":
        offs = [r["args"]["offset"] for r in rows if r["func"] == "lseek"]
        if len(offs) != n:
            fail("%d lseek events, the program made %d" % (len(offs), n))
        if offs != list(lcg_offsets(n)):
            fail("lseek offsets differ from the program's sequence")
    elif kind == "known":
        ranks = sorted({r["rank"] for r in rows})
        if ranks != list(range(n)):
            fail("ranks %s, expected 0..%d" % (ranks, n - 1))
        for rank in ranks:
            w = [r["args"] for r in rows if r["rank"] == rank and r["func"] == "MPI_File_write_at"]
            if [a["offset"] for a in w] != [(rank * 10 + i) * 100 for i in range(10)]:
                fail("rank %d: MPI_File_write_at offsets differ from known.c's" % rank)
            if any(a["count"] != 100 for a in w):
                fail("rank %d: MPI_File_write_at counts differ from known.c's" % rank)


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "count":
        print(len(load_chrome(path)[1]))
        return
    kind, n = sys.argv[3], int(sys.argv[4])
    rows = []
    if mode == "chrome":
        doc, xs = load_chrome(path)
        names = {e["pid"]: e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M"}
        for e in xs:
            if names.get(e["pid"]) != "rank %d" % e["pid"]:
                fail("pid %d has no process_name" % e["pid"])
            a = dict(e["args"])
            rows.append({"rank": e["pid"], "seq": a.pop("seq"), "parent": a.pop("parent"), "func": e["name"],
                         "start": e["ts"], "dur": e["dur"], "args": a})
    else:
        with open(path, newline="") as f:
            rd = csv.DictReader(f)
            want = "rank,seq,layer,func,parent,depth,start_ns,dur_ns,ret,errno,bytes,thread,file,args".split(",")
            if rd.fieldnames != want:
                fail("CSV columns %s" % rd.fieldnames)
            for row in rd:
                rows.append({"rank": int(row["rank"]), "seq": int(row["seq"]), "parent": int(row["parent"]),
                             "func": row["func"], "start": float(row["start_ns"]) / 1e3,
                             "dur": float(row["dur_ns"]) / 1e3, "args": json.loads(row["args"])})
    check_times(rows)
    check_kind(rows, kind, n)
    print("check_export: %s: %d events, times nested and ordered, %s facts hold" % (mode, len(rows), kind))


main()
