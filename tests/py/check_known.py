"""Checks the expanded trace of tests/progs/known.c against the events the
program makes, derived here from its source, not from the tracer.

usage: check_known.py NRANKS FLAVOUR < trace.jsonl
"""
import json
import sys

MPI_BYTE, MPI_INT, MPI_SUM = 3, 7, 2          # fixed ids, docs/handles.md
MPI_MODE_CREATE, MPI_MODE_WRONLY = 1, 4        # same values in MPICH and Open MPI
O_WRONLY, O_CREAT, O_TRUNC = 0o1, 0o100, 0o1000  # Linux


def fail(msg):
    print("check_known: " + msg, file=sys.stderr)
    sys.exit(1)


def expected_top(rank):
    """The program's own calls in order: (func, args, ret, bytes); None = any."""
    ev = [("MPI_Init", {}, 0, None),
          ("MPI_Comm_rank", {"comm": 0, "rank": rank}, 0, None),
          ("MPI_File_open", {"comm": 0, "filename": "known.dat",
                             "amode": MPI_MODE_CREATE | MPI_MODE_WRONLY, "info": "", "fh": 0}, 0, None)]
    for i in range(10):
        ev.append(("MPI_File_write_at", {"fh": 0, "offset": (rank * 10 + i) * 100,
                                         "count": 100, "datatype": MPI_BYTE}, 0, 100))
    ev.append(("MPI_File_close", {"fh": 0}, 0, None))
    ev.append(("open", {"pathname": "posix-%d.dat" % rank, "flags": O_CREAT | O_WRONLY | O_TRUNC,
                        "mode": 0o644}, "FD", None))
    for _ in range(3):
        ev.append(("write", {"fd": "FD", "count": 64}, 64, 64))
    ev.append(("pwrite", {"fd": "FD", "count": 32, "offset": 1000}, 32, 32))
    ev.append(("close", {"fd": "FD"}, 0, None))
    ev.append(("MPI_Barrier", {"comm": 0}, 0, None))
    ev.append(("MPI_Allreduce", {"count": 1, "datatype": MPI_INT, "op": MPI_SUM, "comm": 0}, 0, None))
    ev.append(("MPI_Bcast", {"count": 16, "datatype": MPI_BYTE, "root": 0, "comm": 0}, 0, None))
    ev.append(("MPI_Finalize", {}, 0, None))
    return ev


def main():
    nranks, flavour = int(sys.argv[1]), sys.argv[2]
    events = [json.loads(line) for line in sys.stdin]
    by_rank = {}
    for e in events:
        by_rank.setdefault(e["rank"], []).append(e)
    if sorted(by_rank) != list(range(nranks)):
        fail("ranks present: %s, expected 0..%d" % (sorted(by_rank), nranks - 1))
    prev = None
    for rank in range(nranks):
        evs = by_rank[rank]
        if [e["seq"] for e in evs] != list(range(len(evs))):
            fail("rank %d: seq is not 0..n-1 in order" % rank)
        top = [e for e in evs if e["parent"] == -1]
        exp = expected_top(rank)
        if len(top) != len(exp):
            fail("rank %d: %d top-level events, expected %d: %s" % (rank, len(top), len(exp),
                                                                     [e["func"] for e in top]))
        fd = None
        for e, (func, args, ret, nbytes) in zip(top, exp):
            where = "rank %d seq %d" % (rank, e["seq"])
            if e["func"] != func:
                fail("%s: %s, expected %s" % (where, e["func"], func))
            if func == "open":
                fd = e["ret"]
                if fd < 0:
                    fail("%s: open failed" % where)
            want = {k: (fd if v == "FD" else v) for k, v in args.items()}
            if e["args"] != want:
                fail("%s %s: args %s, expected %s" % (where, func, e["args"], want))
            if e["ret"] != (fd if ret == "FD" else ret):
                fail("%s %s: ret %s, expected %s" % (where, func, e["ret"], ret))
            if nbytes is not None and e.get("bytes") != nbytes:
                fail("%s %s: bytes %s, expected %s" % (where, func, e.get("bytes"), nbytes))
            if e.get("errno", 0) != 0:
                fail("%s %s: errno %s on a successful call" % (where, func, e["errno"]))
        # Children: every non-top event points at an earlier event of its rank.
        for e in evs:
            if e["parent"] != -1 and not (0 <= e["parent"] < e["seq"]):
                fail("rank %d seq %d: parent %d out of range" % (rank, e["seq"], e["parent"]))
        writes = [e for e in top if e["func"] == "MPI_File_write_at"]
        kids = {w["seq"]: [c for c in evs if c["parent"] == w["seq"]] for w in writes}
        # ROMIO's (MPICH) and OMPIO's (Open MPI, through the exported
        # entries) independent write_at issue one pwrite of the same block.
        for w in writes:
            ks = kids[w["seq"]]
            if len(ks) != 1 or ks[0]["func"] not in ("pwrite", "pwrite64"):
                fail("rank %d: MPI_File_write_at seq %d children %s, expected one pwrite"
                     % (rank, w["seq"], [(k["func"], k["args"]) for k in ks]))
            a = ks[0]["args"]
            if a.get("offset") != w["args"]["offset"] or a.get("count") != 100 or ks[0]["ret"] != 100:
                fail("rank %d: pwrite under write_at offset %s: %s" % (rank, w["args"]["offset"], a))
        fopen = [e for e in top if e["func"] == "MPI_File_open"][0]
        opens = [c for c in evs if c["parent"] == fopen["seq"] and c["func"].startswith("open")
                 and c["args"].get("pathname") == "known.dat"]
        if not opens:
            fail("rank %d: no open of known.dat under MPI_File_open" % rank)
        if any(c["args"].get("pathname", "").startswith("/usr/lib") for c in evs):
            fail("rank %d: the MPI library's loading of its plug-ins was recorded" % rank)
        prev = evs
    print("check_known: %d ranks, %d events: ok" % (nranks, len(events)))


main()
