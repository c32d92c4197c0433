#!/usr/bin/env python3
"""An OTF2 archive of `siot export --otf2`, read back by Debian's otf2-print
(and, when given, by the otf2 module's counts: count_otf2.py), against
`siot stats --json` of the same trace.

usage: check_otf2.py ANCHOR STATS.JSON [--py COUNTS.JSON] [--mix P NPW PW NMIO MIO H5N NCN NMSG MSG SUBMSG]

Checked for every archive: otf2-print -Werror reads it without a warning;
each rank's locations enter as many regions as `siot stats` counts calls on
the rank, and leave each; each location's event count in the definitions
is the number of its records; IoOperationBegin and Complete pair by
matching id on their location; the bytes of each I/O handle (a file and
paradigm), read and written, equal the stats' row of that file and layer.
With --py: the otf2 module read the same records per location and the
same bytes per handle. With --mix (tests/progs/otf2mix.c's #defines): the
bytes per file from the program's source, its messages with their
receivers in the world (the halves of its MPI_Comm_split ordered by the
split's key), and its collectives per rank.
"""
import collections
import json
import re
import subprocess
import sys

LAYER_OF = {"POSIX": "posix", "ISOC": "stdio", "MPI-IO": "mpiio", "HDF5": "hdf5", "PnetCDF": "pnetcdf"}


def fail(msg):
    sys.exit("check_otf2: " + msg)


def otf2_print(args):
    r = subprocess.run(["otf2-print", "-Werror"] + args, capture_output=True, text=True)
    if r.returncode != 0 or r.stderr.strip():
        fail("otf2-print %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()[:500]))
    return r.stdout


def definitions(anchor):
    """Locations (ref -> (rank, declared events)), handles (ref -> (name, paradigm id))."""
    text = otf2_print(["-G", anchor])
    locs, handles, paradigms = {}, {}, {}
    for line in text.splitlines():
        m = re.match(r'LOCATION\s+(\d+)\s+Name: .*# Events: (\d+), Group: "[^"]*" <(\d+)>', line)
        if m:
            locs[int(m.group(1))] = (int(m.group(3)), int(m.group(2)))
        m = re.match(r'IO_PARADIGM\s+(\d+)\s+Identification: "([^"]*)"', line)
        if m:
            paradigms[int(m.group(1))] = m.group(2)
        m = re.match(r'IO_HANDLE\s+(\d+)\s+Name: "([^"]*)" <\d+>, File: .*I/O Paradigm: "[^"]*" <(\d+)>', line)
        if m:
            handles[int(m.group(1))] = (m.group(2), int(m.group(3)))
    return locs, {h: (n, paradigms[p]) for h, (n, p) in handles.items()}


def events(anchor, handles):
    """Records per (location, kind), bytes per (handle, mode), sends."""
    kinds = collections.Counter()
    hbytes = collections.Counter()
    sends = []
    begun = {}
    for line in otf2_print([anchor]).splitlines():
        m = re.match(r"([A-Z_]+)\s+(\d+)\s+(\d+)\s+(.*)$", line)
        if not m or m.group(1) == "Event":
            continue
        kind, loc, rest = m.group(1), int(m.group(2)), m.group(4)
        kinds[(loc, kind)] += 1
        if kind == "IO_OPERATION_BEGIN":
            h = re.search(r"Handle: \"[^\"]*\" <(\d+)>, Mode: (\w+), .*Matching Id: (\d+)", rest)
            begun[(loc, int(h.group(3)))] = (int(h.group(1)), h.group(2))
        elif kind == "IO_OPERATION_COMPLETE":
            h = re.search(r"Handle: \"[^\"]*\" <(\d+)>, Bytes Result: (\d+), Matching Id: (\d+)", rest)
            key = (loc, int(h.group(3)))
            if key not in begun or begun[key][0] != int(h.group(1)):
                fail("location %d: completion of matching id %s without its begin on the handle" % key)
            handle, mode = begun.pop(key)
            hbytes[(handles[handle], mode)] += int(h.group(2))
        elif kind == "MPI_SEND":
            s = re.search(r'Receiver: \d+ \("[^"]*" <(\d+)>\), Communicator: "([^"]*)" <\d+>, Tag: (\d+), Length: (\d+)', rest)
            sends.append((loc, int(s.group(1)), s.group(2), int(s.group(3)), int(s.group(4))))
    if begun:
        fail("I/O operations begun and never completed: %s" % sorted(begun)[:5])
    return kinds, hbytes, sends


def check_counts(locs, kinds, stats):
    per_rank = collections.Counter()
    for loc, (rank, declared) in locs.items():
        got = sum(n for (l, _), n in kinds.items() if l == loc)
        if got != declared:
            fail("location %d: %d records, its definition says %d" % (loc, got, declared))
        if kinds[(loc, "ENTER")] != kinds[(loc, "LEAVE")]:
            fail("location %d: %d enters, %d leaves" % (loc, kinds[(loc, "ENTER")], kinds[(loc, "LEAVE")]))
        per_rank[rank] += kinds[(loc, "ENTER")]
    for r in stats["ranks"]:
        want = sum(r["calls"][layer] for layer in ("posix", "stdio", "mpi", "mpiio", "hdf5", "pnetcdf"))
        if per_rank[r["rank"]] != want:
            fail("rank %d: %d regions entered, siot stats counts %d calls" % (r["rank"], per_rank[r["rank"]], want))
    return per_rank


def check_bytes(hbytes, stats):
    rows = {(f["name"], f["layer"]): f for f in stats["files"]}
    seen = set()
    for ((name, paradigm), mode), n in hbytes.items():
        key = (name, LAYER_OF[paradigm])
        if key not in rows:
            fail("handle %s (%s) moved %d bytes: no such file in siot stats" % (name, paradigm, n))
        seen.add(key)
    for key, f in rows.items():
        for mode, field in (("READ", "bytes_read"), ("WRITE", "bytes_written")):
            got = hbytes[((key[0], {v: k for k, v in LAYER_OF.items()}[key[1]]), mode)]
            if got != f[field]:
                fail("%s (%s) %s: %d bytes in the archive, %d in siot stats" % (key + (mode, got, f[field])))


def check_python(counts_file, kinds, hbytes, locs):
    py = json.load(open(counts_file))
    names = {"Enter": "ENTER", "Leave": "LEAVE", "IoOperationBegin": "IO_OPERATION_BEGIN",
             "IoOperationComplete": "IO_OPERATION_COMPLETE", "IoCreateHandle": "IO_CREATE_HANDLE",
             "IoDestroyHandle": "IO_DESTROY_HANDLE", "MpiSend": "MPI_SEND", "MpiRecv": "MPI_RECV",
             "MpiCollectiveBegin": "MPI_COLLECTIVE_BEGIN", "MpiCollectiveEnd": "MPI_COLLECTIVE_END"}
    got = collections.Counter({(int(l), names.get(k, k)): n for l, k, n in py["records"]})
    if got != kinds:
        diff = set(got.items()) ^ set(kinds.items())
        fail("the otf2 module and otf2-print read different records: %s" % sorted(diff)[:6])
    pyb = collections.Counter({((n, p), "ALL"): b for n, p, b in py["bytes"]})
    allb = collections.Counter()
    for (h, _), b in hbytes.items():
        allb[(h, "ALL")] += b
    if +pyb != +allb:
        fail("the otf2 module and otf2-print read different bytes per handle")


def check_mix(kinds, hbytes, sends, locs, defs):
    P, NPW, PW, NMIO, MIO, H5N, NCN, NMSG, MSG, SUBMSG = defs
    want = {(("otf2mix-%d.dat" % r, "POSIX"), m): NPW * PW for r in range(P) for m in ("READ", "WRITE")}
    want[(("otf2mix.mpiio", "MPI-IO"), "WRITE")] = P * (NMIO + 1) * MIO
    want[(("otf2mix.h5", "HDF5"), "WRITE")] = P * H5N * 8
    if any(h[1] == "PnetCDF" for (h, _) in hbytes):
        want[(("otf2mix.nc", "PnetCDF"), "WRITE")] = P * NCN * 4
    for k, v in want.items():
        if hbytes[k] != v:
            fail("%s %s: %d bytes, the source says %d" % (k[0][0], k[1], hbytes[k], v))
    # the program's own messages: its sizes (the libraries send none of these)
    world = sorted((s[0], s[1]) for s in sends if s[4] == MSG)
    if world != sorted((r, (r + 1) % P) for r in range(P) for _ in range(NMSG)):
        fail("world ring: sends %s" % world)
    # a half of colour c holds the ranks r % 2 == c, ordered by the key P - r:
    # its rank i is the i-th largest world rank; the ring sends to the next
    halves = sorted((s[0], s[1]) for s in sends if s[4] == SUBMSG)
    want = []
    for c in (0, 1):
        members = sorted((r for r in range(P) if r % 2 == c), reverse=True)
        want += [(members[i], members[(i + 1) % len(members)]) for i in range(len(members))]
    if halves != sorted(want):
        fail("split ring: sends %s, want %s" % (halves, sorted(want)))
    if any("colour" not in s[2] for s in sends if s[4] == SUBMSG):
        fail("split ring's sends not on the split's communicators")
    for loc in locs:
        if kinds[(loc, "MPI_RECV")] != NMSG + 1:
            fail("location %d: %d receives, the source makes %d" % (loc, kinds[(loc, "MPI_RECV")], NMSG + 1))


def main():
    a = sys.argv[1:]
    anchor, stats = a[0], json.load(open(a[1]))
    locs, handles = definitions(anchor)
    kinds, hbytes, sends = events(anchor, handles)
    per_rank = check_counts(locs, kinds, stats)
    check_bytes(hbytes, stats)
    if "--py" in a:
        check_python(a[a.index("--py") + 1], kinds, hbytes, locs)
    if "--mix" in a:
        i = a.index("--mix")
        check_mix(kinds, hbytes, sends, locs, [int(v) for v in a[i + 1:i + 11]])
    total = sum(hbytes.values())
    print("%d locations, %d regions entered, %d I/O handles with %d bytes, %d messages, %d collectives" %
          (len(locs), sum(per_rank.values()), len({h for (h, _) in hbytes}), total, len(sends),
           sum(n for (l, k), n in kinds.items() if k == "MPI_COLLECTIVE_END")))


main()
