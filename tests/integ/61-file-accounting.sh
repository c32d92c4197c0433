#!/bin/bash
# Per-file accounting (siot stats, siot report) is exact: for
# tests/progs/ckpt5.c on 4 ranks (5 shared checkpoint files written with
# MPI_File_write_at_all) one row per file and layer with the bytes, calls and
# ranks its #defines give, the same rows in text, JSON, CSV and the report,
# and call-site rank counts equal to the ranks that made the call. The rows
# also equal those computed from the expanded events (check_files.py), for
# ckpt5 and for FLASH-IO (HDF5: its H5Dwrite bytes all go to its files).
# SIOT_RANK_TRACES makes its directory (mkdir -p) or says why it cannot.
. "$(dirname "$0")/../lib.sh"
SRC=$ROOT/tests/progs/ckpt5.c
def() { python3 -c "print($(sed -n "s/^#define $1 \(.*\)/\1/p" "$SRC"))"; }
NFILES=$(def NFILES) FIRST=$(def FIRST_STEP) EVERY=$(def STEP_EVERY) PER_RANK=$(def PER_RANK) CHUNKS=$(def CHUNKS)
[ -n "$NFILES" ] && [ -n "$FIRST" ] && [ -n "$EVERY" ] && [ -n "$PER_RANK" ] && [ -n "$CHUNKS" ] ||
    fail "cannot read the #defines of ckpt5.c"
P=4
build_traced ckpt5
mpirun_np $P ./ckpt5 > /dev/null || fail "ckpt5"
"$SIOT" stats --json ckpt5.siot > s.json || fail "siot stats --json"
"$SIOT" stats --csv ckpt5.siot > s.csv || fail "siot stats --csv"
"$SIOT" stats ckpt5.siot > s.txt || fail "siot stats"
"$SIOT" report ckpt5.siot -o r.html || fail "siot report"
jsonl ckpt5.siot > k.jsonl
py check_files.py s.json k.jsonl || fail "ckpt5: file rows differ from the events'"

# The values ckpt5.c's #defines give, in every output.
python3 - s.json s.csv s.txt r.html $P $NFILES $FIRST $EVERY $PER_RANK $CHUNKS <<'PY' || fail "ckpt5 file rows"
import csv, html, json, re, sys
sj, scsv, stxt, rhtml = sys.argv[1:5]
P, NFILES, FIRST, EVERY, PER_RANK, CHUNKS = map(int, sys.argv[5:])
names = ["ckpt_%04d.dat" % (FIRST + f * EVERY) for f in range(NFILES)]
want = {"calls": P * CHUNKS, "bytes_read": 0, "bytes_written": P * PER_RANK, "ranks": P}
def fail(m): sys.exit("ckpt5: " + m)

rows = [f for f in json.load(open(sj))["files"] if f["layer"] == "mpiio"]
if sorted(f["name"] for f in rows) != names:
    fail("JSON mpiio rows %s, want %s" % (sorted(f["name"] for f in rows), names))
for f in rows:
    got = {k: f[k] for k in want}
    if got != want or f["sharing"] != "shared" or f["opens"] != P or f["rank_list"] != "0-%d" % (P - 1):
        fail("JSON row %s, want %s, %d opens, shared by 0-%d" % (f, want, P, P - 1))
pats = [p for p in json.load(open(sj))["file_patterns"] if p["layer"] == "mpiio"]
span = "ckpt_{%04d..%04d}.dat" % (FIRST, FIRST + (NFILES - 1) * EVERY)
if [(p["pattern"], p["files"], p["bytes_written"]) for p in pats] != [(span, NFILES, NFILES * P * PER_RANK)]:
    fail("JSON mpiio patterns %s" % pats)

cells = {}
for r in csv.DictReader(open(scsv)):
    if r["section"] == "file":
        cells[(r["name"], r["layer"], r["metric"])] = int(r["value"])
for n in names:
    for m, v in want.items():
        if cells.get((n, "mpiio", m)) != v:
            fail("CSV %s mpiio %s = %s, want %d" % (n, m, cells.get((n, "mpiio", m)), v))

text = open(stxt).read()
for n in names:
    line = [l for l in text.splitlines() if l.split()[:2] == [n, "mpiio"]]
    mib = "%.1f MiB" % (P * PER_RANK / 2**20)
    if len(line) != 1 or not re.search(r"\s%d\s+0 B\s+%s\s+%d shared" % (P * CHUNKS, re.escape(mib), P), line[0]):
        fail("text row for %s: %s" % (n, line))

page = open(rhtml).read()
files = page.split('<table class="files">')[1].split("</table>")[0]
for tr in re.findall(r"<tr>(.*?)</tr>", files)[1:]:
    cols = re.findall(r"<td[^>]*?(?: title=\"(\d+)\")?>(.*?)</td>", tr)
    name, layer = html.unescape(cols[0][1]), cols[1][1]
    if layer != "MPI-IO":
        continue
    got = (int(cols[2][1]), int(cols[3][1]), int(cols[4][0]), int(cols[5][0]), int(cols[6][1]), cols[7][1])
    if name not in names or got != (P, want["calls"], 0, want["bytes_written"], P, "shared"):
        fail("report row %s %s" % (name, got))
    names.remove(name)
if names:
    fail("report lacks rows for %s" % names)
# Call sites: every MPI call of ckpt5.c is made by all ranks.
sites = page.split("<h2>Call sites</h2>")[1].split("</table>")[0]
mpi = 0
for tr in re.findall(r"<tr>(.*?)</tr>", sites)[1:]:
    cols = re.findall(r"<td[^>]*>(.*?)</td>", tr)
    if cols[1].startswith("MPI_"):
        mpi += 1
        if int(cols[6]) != P:
            fail("report call site %s %s: %s ranks, want %d" % (cols[0], cols[1], cols[6], P))
if mpi < 5:
    fail("report shows %d MPI call sites, ckpt5.c makes 5 kinds of MPI calls besides MPI_Init and MPI_Finalize "
         "(summed apart, under the table)" % mpi)
PY

# HDF5 over MPI-IO: the rows equal the events', and every byte H5Dwrite
# moved is in an hdf5 row (attributed through the dataset to its file).
SIOT_TRACE=$WORK/flash.siot mpirun_np $P "$B/examples/flash-io" -n 2 -i > /dev/null || fail "flash-io run"
"$SIOT" stats --json flash.siot > f.json || fail "siot stats --json flash"
jsonl flash.siot > f.jsonl
py check_files.py f.json f.jsonl || fail "flash-io: file rows differ from the events'"
python3 - f.json <<'PY' || fail "flash-io hdf5 rows"
import json, sys
s = json.load(open(sys.argv[1]))
h5 = sum(f["bytes_written"] for f in s["files"] if f["layer"] == "hdf5")
want = s["functions"]["H5Dwrite"]["bytes"]
if want <= 0 or h5 != want:
    sys.exit("hdf5 rows hold %d bytes written, H5Dwrite moved %d" % (h5, want))
PY

# SIOT_RANK_TRACES: a missing nested directory is made; one that cannot be
# is said, and the job's trace is still written.
rm -rf rt plain && touch plain
SIOT_RANK_TRACES=rt//a/b/ SIOT_TRACE=$WORK/rt.siot mpirun_np $P ./ckpt5 > /dev/null || fail "ckpt5 with SIOT_RANK_TRACES"
[ "$(ls rt/a/b | grep -c '^rank-.*\.siot$')" = $P ] || fail "SIOT_RANK_TRACES=rt//a/b/: $(ls -R rt)"
SIOT_RANK_TRACES=plain/sub SIOT_TRACE=$WORK/pl.siot mpirun_np $P ./ckpt5 > /dev/null 2> pl.err ||
    fail "ckpt5 with an impossible SIOT_RANK_TRACES"
grep -q "SIOT_RANK_TRACES: cannot create plain/sub: Not a directory" pl.err || fail "no reason given: $(head -3 pl.err)"
[ -s pl.siot ] || fail "no job trace when the rank traces cannot be written"
pass "ckpt5: $NFILES files x $((P * PER_RANK)) bytes x $P ranks in JSON, CSV, text and report; call-site ranks; HDF5 rows; rank-trace dir"
