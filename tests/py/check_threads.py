"""check_threads.py TRACE.jsonl NRANKS MPI(0|1)

threads.c's events: per rank, 8 threads, each with exactly its open, 100
pwrites of 256 bytes at offsets 0, 256, ... in order, fsync and close (and,
with MPI, 10 MPI_Sendrecv with tag = the thread's index), every event
carrying its thread; nothing lost, nothing attributed to the wrong thread."""
import json
import re
import sys
from collections import defaultdict

events = [json.loads(l) for l in open(sys.argv[1])]
nranks = int(sys.argv[2])
mpi = sys.argv[3] == "1"


def fail(msg):
    sys.exit("check_threads: " + msg)


by = defaultdict(list)
for e in events:
    by[(e["rank"], e.get("thread", 0))].append(e)
for r in range(nranks):
    threads = sorted(t for (rr, t) in by if rr == r and t != 0)
    if len(threads) != 8:
        fail("rank %d: events from %d threads, want 8" % (r, len(threads)))
    seen = set()
    for t in threads:
        ev = [e for e in by[(r, t)] if e["layer"] == "posix"]
        names = [e["func"] for e in ev]
        if names != ["open"] + ["pwrite"] * 100 + ["fsync", "close"]:
            fail("rank %d thread %d: %s" % (r, t, names[:5]))
        m = re.fullmatch(r"threads-%d-(\d)\.dat" % r, ev[0]["args"]["pathname"])
        if not m:
            fail("rank %d thread %d opened %s" % (r, t, ev[0]["args"]["pathname"]))
        idx = int(m.group(1))
        seen.add(idx)
        offs = [e["args"]["offset"] for e in ev[1:101]]
        if offs != [i * 256 for i in range(100)] or any(e["bytes"] != 256 for e in ev[1:101]):
            fail("rank %d thread %d: offsets or sizes wrong" % (r, t))
        if mpi:
            sr = [e for e in by[(r, t)] if e["func"] == "MPI_Sendrecv"]
            if len(sr) != 10 or any(e["args"]["sendtag"] != idx for e in sr):
                fail("rank %d thread %d: %d MPI_Sendrecv with the thread's tag" % (r, t, len(sr)))
    if seen != set(range(8)):
        fail("rank %d: threads %s" % (r, sorted(seen)))
print("   %d rank(s) x 8 threads: every thread's %d events there, in order, with its thread" % (
    nranks, 103 + (10 if mpi else 0)))
