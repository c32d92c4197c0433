#!/bin/bash
# Big and many: offsets and sizes past 2^32 and 2^53 recorded exactly (and
# folded when regular), 2,000 files open at once, a 4,095-byte file name,
# and irregular events that compression cannot help with: past
# SIOT_MAX_MEMORY the recorder spills to a temporary file, so its memory
# stays bounded, and the trace still holds every event exactly (one rank
# and an MPI job); when spilling is impossible, recording stops and the
# trace says after which event and how many were lost.
. "$(dirname "$0")/../lib.sh"
build_traced big
peak_kb() { # CMD...: runs it, prints the peak resident memory of the command, in KiB
    python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:])
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)' "$@"
}

# offsets and sizes
./big offsets > traced.out || fail "big offsets"
./big.plain offsets > plain.out || fail "big offsets (untraced)"
cmp -s traced.out plain.out || fail "offsets: the traced run saw other results"
jsonl big.siot > o.jsonl
python3 - o.jsonl <<'PY' || fail "offsets not exact"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
pr = [e["args"]["offset"] for e in ev if e["func"] == "pread"]
want = [1 << 33, (1 << 53) + 1, (1 << 62) + 12345] + [(1 << 53) + (i << 40) for i in range(10)]
if pr != want:
    sys.exit("pread offsets %s" % pr)
ls = [e for e in ev if e["func"] == "lseek"]
if ls[0]["args"]["offset"] != (1 << 40) + 3 or ls[0]["ret"] != (1 << 40) + 3 or ls[1]["args"]["offset"] != (1 << 53) + 3:
    sys.exit("lseek %s" % ls)
rd = [e for e in ev if e["func"] == "read"]
if rd[0]["args"]["count"] != 1 << 33:
    sys.exit("read count %s" % rd[0]["args"]["count"])
PY
dump_has big.siot "offset=9007199254740992\+1099511627776\*i0" || fail "the 2^40 stride did not fold"
rm -f big.siot
echo "   offsets 2^33, 2^53+1, 2^62+12345, counts 2^33: exact; a 2^40 stride from 2^53 folded"

# 2,000 files open at once
./big files 2000 || fail "big files"
jsonl big.siot > f.jsonl
python3 - f.jsonl <<'PY' || fail "2000 files"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
op = [e for e in ev if e["func"] == "open"]
pw = [e for e in ev if e["func"] == "pwrite"]
if len(op) != 2000 or len({e["ret"] for e in op}) != 2000 or len(pw) != 2000:
    sys.exit("%d opens (%d descriptors), %d pwrites" % (len(op), len({e["ret"] for e in op}), len(pw)))
if sorted(e["args"]["fd"] for e in pw) != sorted(e["ret"] for e in op) or max(e["ret"] for e in op) < 2000:
    sys.exit("the writes do not go to the descriptors opened")
PY
rm -f big.siot

# a 4,095-byte name
./big name || fail "big name"
jsonl big.siot > n.jsonl
python3 - n.jsonl <<'PY' || fail "4095-byte name"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
path = "/".join(chr(ord("a") + d) * 250 for d in range(16)) + "/" + "z" * 79
op = [e for e in ev if e["func"] == "open"]
if len(path) != 4095 or not op or op[0]["args"]["pathname"] != path or op[0]["ret"] < 0:
    sys.exit("open of the 4095-byte path not recorded exactly")
PY
rm -f big.siot
echo "   2,000 files open at once and a 4,095-byte path: every call, every byte of the name"

# irregular events past SIOT_MAX_MEMORY: spilled, bounded, exact
N=1000000
lim=$(SIOT_MAX_MEMORY=2M SIOT_TRACE=lim.siot peak_kb ./big irregular $N) || fail "irregular (2M)"
unl=$(SIOT_MAX_MEMORY=4G SIOT_TRACE=unl.siot peak_kb ./big irregular $N) || fail "irregular (4G)"
dump_has lim.siot "note spilled: " || fail "irregular: nothing spilled under a 2M limit"
jsonl lim.siot > i.jsonl
py check_irregular.py i.jsonl 1 $N || fail "irregular (spilled) not exact"
[ "$lim" -lt $((unl / 3)) ] || fail "irregular: peak ${lim} KiB with SIOT_MAX_MEMORY=2M against ${unl} KiB without"
echo "   $N irregular events: peak ${lim} KiB with SIOT_MAX_MEMORY=2M, ${unl} KiB without"
rm -f lim.siot unl.siot i.jsonl
N=10000000
big=$(SIOT_MAX_MEMORY=64M SIOT_TRACE=big10.siot peak_kb ./big irregular $N) || fail "irregular 10^7"
[ "$big" -lt $((64 * 1024 + 48 * 1024)) ] || fail "10^7 irregular events: peak ${big} KiB with SIOT_MAX_MEMORY=64M"
"$SIOT" stats --json big10.siot > s.json || fail "siot stats of the spilled 10^7-event trace"
python3 -c 'import json, sys; s = json.load(open("s.json")); sys.exit(s["functions"]["lseek"]["calls"] != 10000000)' ||
    fail "10^7 irregular events: not all in the trace"
echo "   10^7 irregular events: peak ${big} KiB with SIOT_MAX_MEMORY=64M, all 10^7 in the trace"
rm -f big10.siot s.json

# an MPI job whose ranks spilled: their blocks concatenated, every event there
N=200000
SIOT_MAX_MEMORY=1M mpirun_np 2 ./big irregular $N mpi || fail "irregular (MPI)"
dump_has big.siot "note concatenated: " || fail "MPI job: not said to be concatenated"
jsonl big.siot > m.jsonl
py check_irregular.py m.jsonl 2 $N || fail "MPI job with spilled ranks not exact"
rm -f big.siot m.jsonl

# the block form read as the concatenation of its blocks (siot merge --concat)
mkdir -p ranks
SIOT_RANK_TRACES=$WORK/ranks mpirun_np 3 ./big irregular 50 mpi || fail "rank traces"
"$B/tests/tools/blocks" blocks.siot ranks/rank-00000[0-2].siot || fail "blocks"
"$SIOT" merge --concat -o concat.siot ranks/rank-00000[0-2].siot || fail "siot merge --concat"
"$SIOT" diff blocks.siot concat.siot > /dev/null || fail "a file of blocks does not read as their concatenation"
rm -rf ranks blocks.siot concat.siot big.siot

# spilling impossible: recording stops, and the trace says where
SIOT_SPILL_DIR=$WORK/no-such-dir SIOT_MAX_MEMORY=1M ./big irregular 100000 || fail "irregular (no spill dir)"
dump_has big.siot "TRUNCATED" || fail "a stopped trace not marked truncated"
"$SIOT" dump big.siot > st.txt
python3 - st.txt big.siot <<'PY' || fail "where recording stopped"
import re, subprocess, sys
t = open(sys.argv[1]).read()
m = re.search(r"note stopped: recording stopped after event (\d+) .* the (\d+) events after it", t)
if not m:
    sys.exit("no 'stopped' note")
rec, lost = int(m.group(1)), int(m.group(2))
if rec + lost != 100000 + 2 or rec < 1000:
    sys.exit("recorded %d + lost %d events, want 100002 in all (open, 100000 lseeks, close)" % (rec, lost))
PY
# no replay can reissue the calls after the stop: --check says so
st=0
"$B/bin/ioreplay" --check big.siot > check.txt || st=$?
[ $st = 1 ] && grep -q "^not fully replayable: the run made calls the trace does not hold (stopped: recording stopped" check.txt ||
    { cat check.txt >&2; fail "ioreplay --check of the stopped trace exited $st without saying it lacks calls"; }
pass "2^53 offsets, 2,000 files, 4,095-byte names, 10^7 irregular events within SIOT_MAX_MEMORY, stops said"
