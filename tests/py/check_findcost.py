"""Checks siot findings --json of the cost-ranked findings' programs
(tests/progs/findmpiio.c, findposix.c, h5flush.c, findptr.c; tests 54-57).

usage: check_findcost.py SRC FLAVOUR NRANKS MODE...   (MODE.json in the cwd)

Every finding must carry its cost ({"seconds", "extra_bytes"}, both >= 0)
and a remedy, and the list must be ranked by cost (seconds, then bytes).
Then each mode's expectations, from the program's #defines: the finding
the problem mode must give (its evidence numbers, the remedy's words, the
line marked SITE: in the source as its first site), and the remedy mode's
absence of it or lower cost. Prints one line per mode."""
import json
import os
import re
import sys

src_path, flavour, P = sys.argv[1], sys.argv[2], int(sys.argv[3])
modes = sys.argv[4:]
src = open(src_path).read()
C = {m.group(1): int(m.group(2)) for m in re.finditer(r"#define (\w+) (\d+)", src)}
LINE = {m.group(1): n + 1 for n, l in enumerate(src.split("\n")) for m in [re.search(r"SITE:(\w+)", l)] if m}
base = os.path.basename(src_path)


def fail(msg):
    sys.exit("%s: %s" % (base, msg))


def load(mode):
    got = json.load(open(mode + ".json"))["findings"]
    prev = None
    for f in got:
        cost = f.get("cost")
        if not cost or cost["seconds"] < 0 or cost["extra_bytes"] < 0 or not f.get("remedy"):
            fail("%s: %s without its cost or remedy: %s" % (mode, f["id"], f))
        key = (cost["seconds"], cost["extra_bytes"])
        if prev and key > prev:
            fail("%s: %s (cost %s) after a cheaper finding %s" % (mode, f["id"], key, prev))
        prev = key
    return got


def by_id(got):
    return {f["id"]: f for f in got}


def want(mode, found, fid, evidence, words, site):
    f = found.get(fid)
    if not f:
        fail("%s: no %s among %s" % (mode, fid, sorted(found)))
    for k, v in evidence.items():
        got = f["evidence"].get(k)
        if (got < v[1]) if isinstance(v, tuple) else got != v:
            fail("%s %s: evidence %s=%s, want %s" % (mode, fid, k, got, v))
    for w in words:
        if w not in f["remedy"]:
            fail("%s %s: the remedy lacks %r: %s" % (mode, fid, w, f["remedy"]))
    loc = f["sites"][0]["location"] if f["sites"] else ""
    if site and not loc.startswith("%s:%d " % (base, LINE[site])):
        fail("%s %s: first site %r, want %s:%d" % (mode, fid, loc, base, LINE[site]))
    return f


def func_time(mode, func):
    """The seconds siot stats gives a function in MODE's run (0 when absent)."""
    return json.load(open(mode + ".stats.json"))["functions"].get(func, {}).get("time_s", 0)


def gone_or_cheaper(mode, found, fid, before):
    f = found.get(fid)
    if f and f["cost"]["seconds"] >= before["cost"]["seconds"] / 2:
        fail("%s: %s still costs %s s (%s s without the remedy)" % (mode, fid, f["cost"]["seconds"],
                                                                      before["cost"]["seconds"]))
    return "gone" if not f else "%.3g s" % f["cost"]["seconds"]


def findmpiio(got):
    out = []
    span = (C["NBLK"] - 1) * P * C["BLK"] + C["BLK"]
    # ROMIO sieves independent strided writes: it reads the range the
    # blocks span and writes it back; OMPIO writes the blocks as they are
    if "sieve" in got and flavour == "mpich":
        f = want("sieve", got["sieve"], "read-modify-write",
                 {"read_bytes": P * span, "overwritten_bytes": P * (span - C["NBLK"] * C["BLK"]),
                  "independent": True}, ["romio_ds_write"], "sieve")
        out.append("sieve: read-modify-write %d bytes read; nosieve %s, collsieve %s" % (
            f["evidence"]["read_bytes"], gone_or_cheaper("nosieve", got["nosieve"], "read-modify-write", f),
            gone_or_cheaper("collsieve", got["collsieve"], "read-modify-write", f)))
    elif "sieve" in got:
        for m in ("sieve", "nosieve", "collsieve"):
            if "read-modify-write" in got[m]:
                fail("%s: read-modify-write on %s, whose OMPIO does not sieve writes" % (m, flavour))
        out.append("sieve: no read-modify-write (OMPIO)")
    if "smallcb" in got:
        # ROMIO's aggregator writes a buffer's worth at a time; OMPIO's
        # splits the buffer in two halves, one filled while the other is
        # written (aio_write)
        each = C["SMALL_CB"] if flavour == "mpich" else C["SMALL_CB"] // 2
        calls = C["CB_STEPS"] * P * C["CB_BLK"] // each
        f = want("smallcb", got["smallcb"], "small-collective-buffer",
                 {"posix_calls": calls, "mean_bytes": each}, ["cb_buffer_size"], "collbuf")
        out.append("smallcb: %d POSIX calls in %s collective calls, bigcb %s" % (
            f["evidence"]["posix_calls"], f["evidence"]["collective_calls"],
            gone_or_cheaper("bigcb", got["bigcb"], "small-collective-buffer", f)))
        # the remedy says the number of aggregators does not change the
        # count: each writes a buffer's worth at a time
        if "cbnodes" in got:
            n = want("cbnodes", got["cbnodes"], "small-collective-buffer", {"posix_calls": calls}, ["cb_nodes"],
                     "collbuf")["evidence"]["posix_calls"]
            out.append("cbnodes: %d POSIX calls with cb_nodes=%d, as many as with the default" % (n, P))
    least = 0.5 * (P - 1) * C["S_STEPS"] * C["SLOW_MS"] * 1e-3  # the waits the sleeps make, halved
    if "straggle" in got:
        f = want("straggle", got["straggle"], "collective-straggler",
                 {"straggler_rank": C["SLOW_RANK"], "wait_s": (">=", least)}, ["split collectives", "MPI_Wait"],
                 "straggle")
        out.append("straggle: rank %d, %.3f s waited, even %s" % (
            f["evidence"]["straggler_rank"], f["evidence"]["wait_s"],
            gone_or_cheaper("even", got["even"], "collective-straggler", f)))
    if "split" in got:
        # as the remedy says: the begin call holds the whole collective, so
        # the ranks wait there as long
        f = want("split", got["split"], "collective-straggler",
                 {"straggler_rank": C["SLOW_RANK"], "wait_s": (">=", least)}, [], "split")
        out.append("split: %.3f s waited in the split collectives" % f["evidence"]["wait_s"])
    if "iwrite" in got:
        # the wait moves out of the collective writes: into the MPI_Wait
        # that completes each (ROMIO), or into the collective MPI_File_close
        # (OMPIO, whose MPI_Wait returns at once); the finding counts it
        # there, says where most of it is, and names the sleeping rank (at
        # the wait's site from the computation before it; before a close,
        # from the ranks' own times); at least the sleeps' half
        where = "MPI_Wait" if flavour == "mpich" else "MPI_File_close"
        t = func_time("iwrite", where)
        if t < least:
            fail("iwrite: %.3f s in %s, want the wait moved there (at least %.3f s)" % (t, where, least))
        f = want("iwrite", got["iwrite"], "collective-straggler",
                 {"straggler_rank": C["SLOW_RANK"], "wait_s": (">=", least), "most_wait_s": (">=", least)},
                 [where], "iwrite")
        if "most in %s" % where not in f["summary"]:
            fail("iwrite: the summary does not say the wait is in %s: %s" % (where, f["summary"]))
        out.append("iwrite: collective-straggler, rank %d, %.3f s waited, %.3f s of it in %s (%.3f s there in all)" % (
            f["evidence"]["straggler_rank"], f["evidence"]["wait_s"], f["evidence"]["most_wait_s"], where, t))
    if "iwritep2p" in got:
        # the sleeping rank delays a point-to-point exchange: its waits are
        # MPI's, not the collective write's (whose request id they reuse)
        if "collective-straggler" in got["iwritep2p"]:
            fail("iwritep2p: collective-straggler from point-to-point waits: %s" % got["iwritep2p"]["collective-straggler"])
        t = func_time("iwritep2p", "MPI_Waitall")
        if t < 0.5 * C["S_STEPS"] * C["SLOW_MS"] * 1e-3:
            fail("iwritep2p: %.3f s in MPI_Waitall, want the ring's wait there" % t)
        out.append("iwritep2p: no collective-straggler; the ring's wait in MPI_Waitall (%.3f s)" % t)
    return out


def findposix(got):
    out = []
    if "stdio" in got:
        f = want("stdio", got["stdio"], "stdio-bulk", {"calls": P * C["N_REC"], "bytes": P * C["N_REC"] * C["REC"]},
                 ["pwrite", "setvbuf"], "stdio")
        out.append("stdio: %d bytes, posix %s" % (f["evidence"]["bytes"],
                                                  gone_or_cheaper("posix", got["posix"], "stdio-bulk", f)))
    if "redundant" in got:
        again = (P - 1) * C["N_IN"] * C["IN_SIZE"]
        f = want("redundant", got["redundant"], "redundant-reads",
                 {"bytes": again, "ranks": P, "calls": (P - 1) * C["N_IN"]}, ["MPI_Bcast"], "redundant")
        if f["cost"]["extra_bytes"] != again:
            fail("redundant: extra_bytes %s, want %d" % (f["cost"]["extra_bytes"], again))
        out.append("redundant: %d bytes again, bcast %s" % (again, gone_or_cheaper("bcast", got["bcast"],
                                                                                    "redundant-reads", f)))
    if "fpp" in got:
        f = want("fpp", got["fpp"], "file-per-process", {"files": P, "ranks": P}, ["MPI_File_write_at_all"], "fpp")
        out.append("fpp: %d files, shared %s" % (f["evidence"]["files"],
                                                 gone_or_cheaper("shared", got["shared"], "file-per-process", f)))
    if "loop" in got:
        # the compressor may keep a loop's first iteration apart, before a
        # loop of STEPS - 1 (the first MPI_File_open's calls beneath differ)
        f = want("loop", got["loop"], "open-in-loop", {"opens": (">=", P * (C["STEPS"] - 1))},
                 ["before the time loop"], "loop")
        if f["evidence"]["opens"] > P * C["STEPS"] or f["evidence"]["closes"] != f["evidence"]["opens"]:
            fail("loop: %s opens and %s closes in loops, want P * STEPS (%d) or P less" % (
                f["evidence"]["opens"], f["evidence"]["closes"], P * C["STEPS"]))
        out.append("loop: %d opens, once %s" % (f["evidence"]["opens"],
                                                gone_or_cheaper("once", got["once"], "open-in-loop", f)))
    if "newfile" in got:  # a new file in each step: the loop is walked, each open named
        f = want("newfile", got["newfile"], "open-in-loop", {"opens": (">=", P * (C["STEPS"] - 1))}, ["H5Dset_extent"],
                 "loop")  # the first iteration may be kept apart, as in loop
        if f["evidence"]["new_file_opens"] != f["evidence"]["opens"]:
            fail("newfile: %s of the %s opens in loops counted as new files" % (f["evidence"]["new_file_opens"],
                                                                                f["evidence"]["opens"]))
        out.append("newfile: %d opens of new files" % f["evidence"]["new_file_opens"])
    if "two" in got:
        ids = [f["id"] for f in got["two"]]
        want("two", by_id(got["two"]), "open-in-loop", {"opens": (">=", P * (C["STEPS"] - 1))}, [], "posixloop")
        want("two", by_id(got["two"]), "stdio-bulk", {"bytes": P * C["N_REC"] * C["REC"] * C["BULK"]}, [], "stdio")
        if ids.index("stdio-bulk") > ids.index("open-in-loop"):
            fail("two: open-in-loop ranked before stdio-bulk: %s" % ids)
        cost = {f["id"]: f["cost"]["seconds"] for f in got["two"]}
        out.append("two: stdio-bulk (%.4f s) before open-in-loop (%.4f s): %s" % (
            cost["stdio-bulk"], cost["open-in-loop"], ", ".join(ids)))
    return out


def h5flush(got):
    out = []
    f = want("flush", got["flush"], "hdf5-metadata-flush", {"flush_writes": (">=", C["NSTEP"])},
             ["H5Pset_coll_metadata_write", "H5Pset_mdc_config", "write as many"], "flush")
    out.append("flush: %d metadata writes against %d data writes" % (f["evidence"]["flush_writes"],
                                                                    f["evidence"]["data_writes"]))
    # the remedy says: the metadata block size and the alignment place the
    # entries but write as many of them
    for m in ("metablk", "align"):
        if m in got:
            want(m, got[m], "hdf5-metadata-flush", {"flush_writes": f["evidence"]["flush_writes"],
                                                     "flush_bytes": f["evidence"]["flush_bytes"]}, [], "flush")
            out.append("%s: as many metadata writes (%d)" % (m, f["evidence"]["flush_writes"]))
    out.append("once: %s" % gone_or_cheaper("once", got["once"], "hdf5-metadata-flush", f))
    # collective metadata writes: one collective write per rank for each
    # flush and at H5Fclose, instead of rank 0 writing the entries one by one
    c = got["collmd"].get("hdf5-metadata-flush")
    n = c["evidence"]["flush_writes"] if c else 0
    if n > P * (C["NSTEP"] + 1) or n >= f["evidence"]["flush_writes"]:
        fail("collmd: %d metadata writes, want at most P * (NSTEP + 1) = %d and fewer than flush's %d" % (
            n, P * (C["NSTEP"] + 1), f["evidence"]["flush_writes"]))
    # ROMIO's two-phase collective write fills the holes between the
    # metadata entries by reading them (read-modify-write); OMPIO writes the
    # entries as they are
    rmw = got["collmd"].get("read-modify-write")
    if flavour == "mpich" and not (rmw and rmw["evidence"]["collective"] and rmw["evidence"]["hdf5"]):
        fail("collmd: no read-modify-write of collective HDF5 writes on MPICH: %s" % sorted(got["collmd"]))
    if flavour == "mpich" and "H5Pset_meta_block_size" not in rmw["remedy"]:
        fail("collmd: the read-modify-write remedy lacks H5Pset_meta_block_size: %s" % rmw["remedy"])
    if flavour != "mpich" and rmw:
        fail("collmd: read-modify-write on %s, whose OMPIO does not fill holes" % flavour)
    out.append("collmd: %d metadata writes (%s s against %s s)%s" % (
        n, c["cost"]["seconds"] if c else 0, f["cost"]["seconds"],
        ", read-modify-write of %d bytes" % rmw["cost"]["extra_bytes"] if rmw else ""))
    # ROMIO's holes between the entries: fewer with the metadata in one
    # block (the remedy), more with objects aligned apart (not the remedy)
    for m, fewer in (("collmb", True), ("collal", False)):
        if m not in got:
            continue
        r = got[m].get("read-modify-write")
        extra = r["cost"]["extra_bytes"] if r else 0
        if flavour != "mpich" and r:
            fail("%s: read-modify-write on %s, whose OMPIO does not fill holes" % (m, flavour))
        if flavour == "mpich" and fewer and extra * 2 > rmw["cost"]["extra_bytes"]:
            fail("%s: %d bytes read and written back, not half of collmd's %d" % (m, extra, rmw["cost"]["extra_bytes"]))
        if flavour == "mpich" and not fewer and extra < rmw["cost"]["extra_bytes"]:
            fail("%s: %d bytes read and written back, fewer than collmd's %d" % (m, extra, rmw["cost"]["extra_bytes"]))
        out.append("%s: read-modify-write of %d bytes" % (m, extra))
    return out


def findptr(got):
    out = []
    again = (P - 1) * C["N_IN"] * C["IN_SIZE"]
    for mode, site in (("lseek", "lseek"), ("fseek", "fseek"), ("mpiseek", "mpiread"), ("mpiview", "mpiread")):
        if mode not in got:
            continue
        f = want(mode, got[mode], "redundant-reads", {"bytes": again, "pointer_bytes": again, "ranks": P,
                                                      "calls": (P - 1) * C["N_IN"]}, ["MPI_Bcast"], site)
        if f["cost"]["extra_bytes"] != again:
            fail("%s: extra_bytes %s, want %d" % (mode, f["cost"]["extra_bytes"], again))
        if "redundant-reads" in got[mode + "mine"]:
            fail("%smine: redundant-reads where each rank reads its own part: %s" % (
                mode, got[mode + "mine"]["redundant-reads"]["summary"]))
        out.append("%s: %d bytes read again at the pointer; %smine none" % (mode, again, mode))
    if "ownback" in got:
        part = C["N_IN"] * C["IN_SIZE"]
        f = want("ownback", got["ownback"], "read-after-write", {"bytes": P * part, "overlap_bytes": P * part,
                                                                  "by_ranges": True}, [], "readback")
        if "read-after-write" in got["neighbour"]:
            fail("neighbour: read-after-write where each rank reads the next rank's part: %s" % (
                got["neighbour"]["read-after-write"]["summary"]))
        out.append("ownback: read-after-write of %d bytes; neighbour none" % f["evidence"]["bytes"])
    return out


raw = {m: load(m) for m in modes}
lines = {"findmpiio.c": findmpiio, "findposix.c": findposix, "h5flush.c": h5flush, "findptr.c": findptr}[base](
    {m: (by_id(g) if base != "findposix.c" or m != "two" else g) for m, g in raw.items()})
for line in lines:
    print("   " + line)
