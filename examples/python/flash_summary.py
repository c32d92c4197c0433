"""A first look at a trace from Python, notebook style: bytes per rank, the
request-size distribution and the busiest call sites, here of the FLASH-IO
example:

    SIOT_TRACE=flash.siot mpirun -np 4 build/mpich/examples/flash-io
    PYTHONPATH=build/python python3 examples/python/flash_summary.py flash.siot

(Debian's python3 with python3-pandas; the numbers are the trace's own,
the statistics exactly those of `siot stats`.)"""
import sys

import siotrace

t = siotrace.open(sys.argv[1] if len(sys.argv) > 1 else "flash-io.siot")
s = t.summary()
print("%d ranks, %d events" % (s["nranks"], s["total_events"]))

# Bytes written per rank at the POSIX level: what reached the file system,
# whichever library (HDF5, MPI-IO) issued it.
df = t.events(layers="posix")
writes = df[df["func"].isin(["write", "pwrite", "writev", "pwritev", "pwrite64"])]
per_rank = writes.groupby("rank")["bytes"].sum()
for rank in range(t.nranks):
    print("rank %d: %d bytes written" % (rank, int(per_rank.get(rank, 0))))

# Request sizes of those writes, in powers of two.
print("\nrequest sizes (POSIX writes):")
sizes = writes["bytes"].astype("int64")
bins = sizes.apply(lambda b: 1 << max(int(b).bit_length() - 1, 0))
for lo, n in bins.value_counts().sort_index().items():
    print("  [%9d, %9d) bytes: %6d" % (lo, 2 * lo, n))

# The busiest call sites, with the line of the program or library.
print("\nbusiest call sites:")
for site in s["call_sites"][:5]:
    print("  %-8d %-22s %s" % (site["calls"], site["function"], site["location"]))
