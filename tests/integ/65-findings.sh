#!/bin/bash
# siot findings on purpose-built programs (tests/progs/findings.c) at 4 ranks:
# 7-byte unaligned pwrites from rank 0 give small-requests, misaligned-requests
# and rank-imbalance; independent MPI_File_write_at to a shared file gives
# independent-shared; an open/append/close per iteration gives reopened-file;
# an fsync after each append gives sync-in-loop; stat, access and lseek before
# each append give metadata-heavy (before 1 MiB appends, of severity low: a
# small share of the time); 80 files per rank give many-files-per-rank;
# pwrites from the last block down, or shuffled (a run table of offsets in the
# trace), give random-access; reading back what the
# rank wrote gives read-after-write; the collective, block-aligned program
# gives nothing. Each finding's numbers
# are the program's constants and its first call site is the source line
# marked SITE: in findings.c.
. "$(dirname "$0")/../lib.sh"
build_traced findings
P=4
SRC=$ROOT/tests/progs/findings.c
for mode in ${MODES:-unaligned independent reopen sync metadata metabig manyfiles random shuffled readback clean}; do
    rm -f ./*.dat
    SIOT_TRACE=$WORK/$mode.siot mpirun_np $P ./findings $mode > /dev/null || fail "findings $mode"
    "$SIOT" findings --json $mode.siot > $mode.json || fail "siot findings --json ($mode) exited $?"
    "$SIOT" findings $mode.siot > $mode.txt || fail "siot findings ($mode) exited $?"
    python3 - "$SRC" $mode.json $mode $P <<'PY' || { cat $mode.txt >&2; fail "findings of the $mode program"; }
import json, re, sys
src, got, mode, P = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3], int(sys.argv[4])
C = {m.group(1): int(m.group(2)) for m in re.finditer(r"#define (\w+) (\d+)", src)}
line = {m.group(1): n + 1 for n, l in enumerate(src.split("\n")) for m in [re.search(r"SITE:(\w+)", l)] if m}
def back(blocks):  # the calls that start below the previous call's end
    return sum(b < a + 1 for a, b in zip(blocks, blocks[1:]))
want = {  # id: (evidence that must hold, the marked line of its first site)
    "unaligned": {"small-requests": ({"count": C["N_TINY"], "of": C["N_TINY"]}, "unaligned"),
                  "misaligned-requests": ({"count": C["N_TINY"]}, "unaligned"),
                  "rank-imbalance": ({"busiest_rank": 0, "busiest_bytes": C["N_TINY"] * C["TINY"]}, "unaligned")},
    "independent": {"independent-shared": ({"count": P * C["N_INDEP"], "ranks": P}, "independent")},
    "reopen": {"reopened-file": ({"count": P * C["N_REOPEN"]}, "reopen")},
    "sync": {"sync-in-loop": ({"count": P * C["N_SYNC"]}, "sync")},
    "metadata": {"metadata-heavy": ({"metadata_calls": P * (3 * C["N_META"] + 2), "data_calls": P * C["N_META"]},
                                    "metadata")},
    "metabig": {"metadata-heavy": ({"metadata_calls": P * (3 * C["N_META"] + 2), "data_calls": P * C["N_META"]},
                                   "metadata")},
    "manyfiles": {"many-files-per-rank": ({"max_files_per_rank": C["N_FILES"], "rank": 0,
                                           "total_files": P * C["N_FILES"]}, "manyfiles")},
    "random": {"random-access": ({"files": P, "calls": P * C["N_RAND"], "backward": P * (C["N_RAND"] - 1)},
                                 "random")},
    "shuffled": {"random-access": ({"files": P, "calls": P * C["N_RAND"], "backward": P * back(
                     [i * C["SHUFFLE"] % C["N_RAND"] for i in range(C["N_RAND"])])}, "shuffled")},
    "readback": {"read-after-write": ({"bytes": P * C["N_RB"] * C["BLOCK"], "files": P}, "readback")},
    "clean": {},
}[mode]
# rank-wait measures the run's own waits (test 66-rank-summary): a busy machine can make one here;
# open-in-loop and file-per-process (the per-rank files opened in loops) are
# tested by tests 54-56
found = {f["id"]: f for f in got["findings"] if f["id"] not in ("rank-wait", "open-in-loop", "file-per-process")}
if set(found) != set(want):
    sys.exit("%s: findings %s, want %s" % (mode, sorted(found), sorted(want)))
for fid, (ev, site) in want.items():
    f = found[fid]
    if f["cost"]["seconds"] <= 0 or not f["remedy"]:  # every rule states its cost and remedy
        sys.exit("%s %s: cost %s, remedy %r" % (mode, fid, f["cost"], f["remedy"]))
    for k, v in ev.items():
        if f["evidence"].get(k) != v:
            sys.exit("%s %s: evidence %s=%s, want %s" % (mode, fid, k, f["evidence"].get(k), v))
    loc = f["sites"][0]["location"] if f["sites"] else ""
    if not loc.startswith("findings.c:%d " % line[site]):
        sys.exit("%s %s: first site at %r, want findings.c:%d" % (mode, fid, loc, line[site]))
if "metadata-heavy" in found:  # severity by the share of the time, said in the evidence
    f = found["metadata-heavy"]
    ev = f["evidence"]
    share = ev["metadata_s"] / (ev["metadata_s"] + ev["data_s"])
    rule = "high" if share >= 0.5 else "low" if share < 0.1 else "medium"
    if abs(ev["metadata_share"] - share) > 1e-3 or f["severity"] != rule:
        sys.exit("%s: metadata share %s severity %s, from its times %.4f: %s" % (mode, ev["metadata_share"], f["severity"], share, rule))
    open("share-%s.txt" % mode, "w").write("%.6f\n" % share)
print("   %-12s %s" % (mode, ", ".join("%s (%s)" % (f, found[f]["sites"][0]["location"]) for f in sorted(found)) or "nothing"))
PY
done
# 3 metadata calls take a smaller share of the time against a 1 MiB write
# than against a 4 KiB one (PAGE; how much smaller is the machine's: the CI of
# 2ac15f9 measured 0.091 with 4 KiB, where the test wanted 0.1 or more)
if [ -f share-metadata.txt ] && [ -f share-metabig.txt ]; then
    python3 -c 'import sys; a, b = (float(open(f).read()) for f in sys.argv[1:]); sys.exit(not b < a)' \
        share-metadata.txt share-metabig.txt ||
        fail "metadata share $(cat share-metabig.txt) with 1 MiB writes, not under $(cat share-metadata.txt) with 4 KiB"
    echo "   metadata share of the time: $(cat share-metadata.txt) before 4 KiB writes, $(cat share-metabig.txt) before 1 MiB ones"
fi
# The report has the same findings, in its own section.
"$SIOT" report unaligned.siot -o unaligned.html || fail "siot report unaligned.siot"
"$SIOT" report clean.siot -o clean.html || fail "siot report clean.siot"
grep -q '<h2 id="findings">' unaligned.html || fail "the report has no findings section"
for id in small-requests misaligned-requests rank-imbalance; do
    grep -q "\] $id: " unaligned.html || fail "the report lacks the finding $id"
done
grep -q "ranks: 0 findings" clean.html || ! grep '\] [a-z-]*: ' clean.html | grep -qv '\] rank-wait: ' ||
    fail "the clean program's report shows findings"
# The access patterns of siot report and siot stats --json --access (the
# report's equal the JSON's: test 94) against the offsets the source fixes:
# consecutive (at the previous call's end), sequential (past it), random
# (before it), a rank's first call judged against 0; aligned to 4 KiB.
for mode in random shuffled unaligned; do
    "$SIOT" stats --json --access $mode.siot > $mode.access.json || fail "siot stats --json --access ($mode)"
    PYTHONPATH="$ROOT/tests/py" python3 - "$SRC" $mode.access.json $mode $P <<'PY' || fail "access patterns of the $mode program"
import json, re, sys
from access_oracle import expected_access
src, st, mode, P = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3], int(sys.argv[4])
C = {m.group(1): int(m.group(2)) for m in re.finditer(r"#define (\w+) (\d+)", src)}
if mode == "unaligned":  # rank 0: TINY bytes at TINY*i
    calls = [[(C["TINY"] * i, C["TINY"]) for i in range(C["N_TINY"])]]
else:
    order = range(C["N_RAND"] - 1, -1, -1) if mode == "random" else [i * C["SHUFFLE"] % C["N_RAND"] for i in range(C["N_RAND"])]
    calls = [[(i * C["BLOCK"], C["BLOCK"]) for i in order]] * P
want = expected_access(calls)
got = {k: sum(a[k] for a in st["access"] if a["layer"] == "posix") for k in want}
if got != want:
    sys.exit("%s: access %s, the source says %s" % (mode, got, want))
print("   %s: %s" % (mode, got))
PY
done
# A POSIX call that MPI-IO made is located at the program's line that made
# the MPI-IO call (the libraries beneath have no line information).
"$SIOT" stats --json independent.siot > ind-stats.json || fail "siot stats --json"
python3 - "$SRC" ind-stats.json <<'PY' || fail "the POSIX writes beneath MPI_File_write_at are not located at the program's line"
import json, re, sys
src, stats = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
line = next(n + 1 for n, l in enumerate(src.split("\n")) if "SITE:independent" in l)
sites = [c for c in stats["call_sites"] if c["function"].startswith("pwrite")]
if not sites or any(not c["location"].startswith("findings.c:%d " % line) for c in sites):
    sys.exit("pwrite sites %s, want findings.c:%d" % (sites, line))
print("   the pwrites beneath MPI_File_write_at: %s" % sites[0]["location"])
PY
pass "each purpose-built problem found with its numbers and source line, nothing on the clean program"
