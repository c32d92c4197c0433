#!/bin/bash
# Files made with mknod and mknodat, as mdtest -k makes them: each call is
# recorded with its path and mode (tests/progs/mknodfiles.c's constants,
# read from the source), siot stats names every regular file made (written
# or not) and not the FIFO, and ioreplay --verify, at the default and the
# POSIX level, is faithful, makes the same files (and the FIFO), and stages
# none of them as an input (they are the program's: a staged one makes the
# program's own mkdir and mknod fail with EEXIST). A device node is not
# reissued, and named with its reason.
. "$(dirname "$0")/../lib.sh"
P=2
SRC=$ROOT/tests/progs/mknodfiles.c
build_traced mknodfiles
mkdir -p orig
(cd orig && SIOT_TRACE=$WORK/mk.siot mpirun_np $P "$WORK/mknodfiles") || fail "the traced program failed"
"$SIOT" stats --json mk.siot > mk.json || fail "siot stats mk.siot exited $?"
jsonl mk.siot > mk.jsonl
python3 - "$SRC" mk.json mk.jsonl $P <<'PY' || fail "the mknod calls or the files differ from the program's"
import json, re, sys
src, stats, P = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), int(sys.argv[4])
events = [json.loads(l) for l in open(sys.argv[3])]
# octal constants (the modes) as C reads them
C = {m.group(1): int(m.group(2), 8 if m.group(2).startswith("0") else 10)
     for m in re.finditer(r'#define (\w+) (\d+)', src)}
bad = 0
def check(what, got, want):
    global bad
    print("   %-44s %s%s" % (what, got, "" if got == want else "   <-- want %s" % (want,)))
    bad += got != want
for r in range(P):
    d = "mdtest-%d/" % r
    calls = [(e["func"], e["args"].get("pathname"), e["args"].get("mode"), e["args"].get("dev"), e["ret"])
             for e in events if e["rank"] == r and e["func"].startswith("mknod")]
    want = [("mknod", d + "file.%d" % i, C["MKNOD_MODE"], 0, 0) for i in range(C["N_MKNOD"])]
    want += [("mknodat", d + "at.%d" % i, C["MKNODAT_MODE"], 0, 0) for i in range(C["N_MKNODAT"])]
    want += [("mknod", d + "fifo.%d" % i, C["FIFO_MODE"], 0, 0) for i in range(C["N_FIFO"])]
    check("rank %d: mknod, mknodat calls (path, mode)" % r, calls, want)
fn = stats["functions"]
check("siot stats: mknod calls", fn.get("mknod", {}).get("calls", 0), (C["N_MKNOD"] + C["N_FIFO"]) * P)
check("siot stats: mknodat calls", fn.get("mknodat", {}).get("calls", 0), C["N_MKNODAT"] * P)
# every regular file made is a file of the trace, the written ones with their bytes; the FIFO is none
files = {f["name"]: f["bytes_written"] for f in stats["files"] if f["layer"] == "posix"}
want = {}
for r in range(P):
    for i in range(C["N_MKNOD"]):
        want["mdtest-%d/file.%d" % (r, i)] = C["WRITE_BYTES"] if i < C["N_WRITTEN"] else 0
    want["mdtest-%d/at.0" % r] = C["MKNODAT_BYTES"]
check("siot stats: files (%d)" % len(want), sorted(files.items()), sorted(want.items()))
sys.exit(1 if bad else 0)
PY

# Replayed at both levels: faithful, the same files, none staged as an input
for level in default posix; do
    ROUNDTRIP_LEVEL=$level roundtrip "mk-$level" $P "$WORK/mknodfiles"
    ! grep -E "^ioreplay: input files: [1-9]" "mk-$level.report" ||
        fail "$level level: the replay staged the program's own files as inputs"
    for r in $(seq 0 $((P - 1))); do
        [ -p "root-mk-$level/mdtest-$r/fifo.0" ] || fail "$level level: the replay made no FIFO mdtest-$r/fifo.0"
    done
done

# A device node: recorded, not reissued, named with its reason
mkdir -p dev
(cd dev && SIOT_TRACE=$WORK/dev.siot mpirun_np 1 "$WORK/mknodfiles" dev) || fail "the traced program (dev) failed"
st=0
mpirun_np 1 "$B/bin/ioreplay" --root "$WORK/root-dev" dev.siot > dev.report || st=$?
[ $st = 1 ] && grep -Eq '^ +1  mknod: a device node' dev.report ||
    { cat dev.report >&2; fail "the device node's mknod: exit $st (want 1), or not named with its reason"; }
[ ! -e "$WORK/root-dev/mdtest-0/null.0" ] || fail "the replay made a device node"
pass "mknod and mknodat recorded with path and mode, their regular files counted, replayed faithfully at both levels without staging them; a device node named as not reissued"
