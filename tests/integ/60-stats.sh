#!/bin/bash
# siot stats on the compressed trace: every count and byte total equals what
# the expanded events sum to and the values known from the program, at P = 1,
# 4 and 8; rank 0 against the other ranks; exact file rows and their
# patterns; a plug-in
# handler written here gives the known numbers.
. "$(dirname "$0")/../lib.sh"
build_traced known
build_traced gather0
for P in 1 4 8; do
    rm -f known.dat posix-*.dat
    mpirun_np $P ./known > /dev/null || fail "known at P=$P"
    "$SIOT" stats --json known.siot > s.json || fail "siot stats --json"
    jsonl known.siot > k.jsonl
    # From tests/progs/known.c: one pwrite of 32 bytes of its own, and each
    # MPI_File_write_at of 100 bytes becomes one pwrite in ROMIO (MPICH) and
    # in OMPIO's posix fbtl (Open MPI).
    pw=$((11 * P)); pwb=$((1032 * P))
    cat > known.json <<JSON
{"nranks": $P,
 "functions.MPI_File_write_at.calls": $((10 * P)), "functions.MPI_File_write_at.bytes": $((1000 * P)),
 "functions.write.calls": $((3 * P)), "functions.write.bytes": $((192 * P)),
 "functions.pwrite.calls": $pw, "functions.pwrite.bytes": $pwb,
 "functions.MPI_Barrier.calls": $P, "functions.MPI_Allreduce.calls": $P, "functions.MPI_Bcast.calls": $P,
 "layers.mpiio.calls": $((12 * P)), "layers.mpiio.bytes_written": $((1000 * P)), "layers.mpiio.rank0_calls": 12, "ranks.0.calls.mpiio": 12, "ranks.0.calls.collective": 3,
 "communication.collective.calls": $((3 * P)), "communication.collective.rank0": 3}
JSON
    py check_stats.py s.json k.jsonl known.json || fail "known at P=$P"
    rm -f known.siot
done

# Only rank 0 does I/O: rank 0 against the others, and the file.
mpirun_np 4 ./gather0 > /dev/null || fail gather0
"$SIOT" stats --json gather0.siot > g.json
jsonl gather0.siot > g.jsonl
cat > g-known.json <<'JSON'
{"layers.posix.rank0_calls": 8, "layers.posix.others_calls_max": 0,
 "communication.blocking.rank0": 18, "communication.blocking.others_min": 6,
 "communication.blocking.others_max": 6, "communication.collective.rank0": 6,
 "files.0.name": "history.dat", "files.0.bytes_written": 49152, "files.0.calls": 6}
JSON
py check_stats.py g.json g.jsonl g-known.json || fail gather0

# Loops, strided offsets, numbered files, exchanges, data-dependent counts.
build_traced loops
mpirun_np 4 ./loops all 20 > /dev/null || fail loops
"$SIOT" stats --json loops.siot > l.json
jsonl loops.siot > l.jsonl
py check_stats.py l.json l.jsonl || fail loops
py check_files.py l.json l.jsonl || fail "loops: file rows"
# loops.c files(): ranks x steps 10, 20 .. 120 files plot_%04d_r%d.dat, one exact row each, and a pattern over them.
python3 - l.json <<'PY' || fail "numbered files: rows or pattern"
import json, sys
s = json.load(open(sys.argv[1]))
rows = sorted(f["name"] for f in s["files"] if f["layer"] == "stdio" and f["name"].startswith("plot_"))
want = sorted("plot_%04d_r%d.dat" % (10 * k, r) for k in range(1, 13) for r in range(4))
if rows != want:
    sys.exit("stdio plot rows %s" % rows[:6])
# each: fwrite of 8-byte items, 10, 20 .. 50 of them, by its one rank
bad = [f for f in s["files"] if f["layer"] == "stdio" and f["name"].startswith("plot_") and
       (f["bytes_written"] != 8 * 10 * (1 + 2 + 3 + 4 + 5) or f["calls"] != 5 or f["sharing"] != "unique")]
if bad:
    sys.exit("stdio plot rows %s" % bad[:2])
pats = [(p["pattern"], p["files"]) for p in s["file_patterns"] if p["layer"] == "stdio"]
if ("plot_{0010..0120}_r{0..3}.dat", 48) not in pats:
    sys.exit("stdio patterns %s" % pats)
PY

# The tables and the CSV.
"$SIOT" stats loops.siot > l.txt || fail "siot stats"
for h in "Calls per layer" "Bytes per layer" "Time per function" "Files" "Request sizes" "Top call sites"; do
    grep -q "$h" l.txt || fail "siot stats output lacks '$h'"
done
grep -q "loops.c:[0-9]" l.txt || fail "call sites not resolved to loops.c:LINE"
# The call-site table reads well: the counts end under "calls", the
# functions start under "function", no addr2line annotations.
python3 - l.txt <<'PY' || fail "call-site table layout"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
h = next(i for i, l in enumerate(lines) if l.startswith("Top call sites"))
head, rows = lines[h], []
for l in lines[h + 1:]:
    m = re.match(r"  s\d+ +(\d+)  (\S+) +(.*)$", l)
    if not m:
        break
    rows.append((l, m))
if not rows:
    sys.exit("no rows under the call-site header")
for l, m in rows:
    if m.end(1) != head.index("calls") + len("calls") or m.start(2) != head.index("function"):
        sys.exit("misaligned under %r: %r" % (head, l))
    if "discriminator" in l or ":?" in l:
        sys.exit("addr2line noise: %r" % l)
PY
"$SIOT" stats --csv loops.siot > l.csv || fail "siot stats --csv"
[ "$(head -1 l.csv)" = "section,name,metric,value,layer" ] || fail "csv header"
n=$(python3 -c 'import json; print(json.load(open("l.json"))["total_events"])')
grep -q "^job,,total_events,$n,\$" l.csv || fail "csv total_events"

# A plug-in: MPI_File_write_at_all bytes per rank, 4 segments x 65536 bytes each.
gcc -std=c11 -O1 -shared -fPIC -I"$ROOT" -o writeall.so "$ROOT/tests/plugin/write_all_bytes.c" || fail "plug-in build"
mpirun_np 4 "$B/examples/ior" -a mpiio -c -s 4 -b 65536 -t 16384 > /dev/null || fail ior
"$SIOT" stats --plugin ./writeall.so ior.siot > p.txt || fail "siot stats --plugin"
for r in 0 1 2 3; do
    grep -qx "rank $r MPI_File_write_at_all bytes 262144" p.txt || { cat p.txt >&2; fail "plug-in: rank $r"; }
done
grep -qx "consistent yes" p.txt || fail "plug-in: record bytes and count disagree"
set +e; "$SIOT" stats --plugin ./nonexistent.so ior.siot 2> e.txt; st=$?; set -e
[ $st = 2 ] && grep -q "cannot load plug-in" e.txt || fail "missing plug-in: exit $st"
pass "stats == known values == summed events at P=1,4,8; rank 0 vs others; patterns; plug-in"
