#!/bin/bash
# Wrappers are transparent: the same return values, errno, output files and
# exit status with and without tracing, for an MPI program and a serial one.
. "$(dirname "$0")/../lib.sh"
build_traced transp
for mode in plain traced; do
    mkdir -p $mode
    exe=$PWD/transp; [ $mode = plain ] && exe=$PWD/transp.plain
    (cd $mode && mpirun_np 3 "$exe") || fail "transp ($mode) exited $?"
done
[ -f traced/transp.siot ] || fail "traced run left no trace"
[ ! -e plain/transp.siot ] || fail "untraced run wrote a trace"
rm -f traced/transp.siot
for f in plain/*; do
    cmp "$f" "traced/$(basename "$f")" || fail "$(basename "$f") differs with tracing"
done
[ "$(ls plain | wc -l)" = "$(ls traced | wc -l)" ] || fail "traced run made different files: $(ls traced)"
grep -q "errno=2" plain/t-log-0.txt || fail "the failing calls did not fail as the test expects"
grep -q "errno kept across a successful pread: ret=10 errno=1234" plain/t-log-0.txt || fail "the errno check did not run"
# ... and the trace holds the failures as they happened
(cd traced && mpirun_np 3 "$PWD/../transp") || fail "transp (traced, second run)"
jsonl traced/transp.siot > t.jsonl
python3 - t.jsonl <<'PY' || fail "failures recorded"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"rank":1,')]
def one(pred, what):
    if not any(pred(e) for e in ev):
        sys.exit("no event: " + what)
one(lambda e: e["func"] == "open" and e["args"]["pathname"] == "does/not/exist" and e["ret"] == -1 and e.get("errno") == 2, "open ENOENT")
one(lambda e: e["func"] == "pwrite" and e["args"]["offset"] == 2500 and e["ret"] == 500 and e["bytes"] == 500, "short pwrite")
one(lambda e: e["func"] == "pwrite" and e["args"]["offset"] == 3000 and e["ret"] == -1 and e.get("errno") == 27, "pwrite EFBIG")
one(lambda e: e["func"] == "pread" and e["args"]["count"] == 4000 and e["ret"] == 1000, "short pread")
one(lambda e: e["func"] == "mkdir" and e["ret"] == -1 and e.get("errno") == 17, "mkdir EEXIST")
one(lambda e: e["func"] == "MPI_File_open" and e["args"]["filename"] == "does/not/exist" and e["ret"] != 0 and e["args"]["fh"] == -1, "MPI_File_open error")
one(lambda e: e["func"] == "MPI_Send" and e["args"]["dest"] == 8 and e["ret"] != 0, "MPI_Send error")
PY
rm -f traced/transp.siot

build_traced serial
for mode in plain traced; do
    mkdir -p s-$mode
    exe=$PWD/serial; [ $mode = plain ] && exe=$PWD/serial.plain
    set +e
    (cd s-$mode && "$exe" > stdout.txt 2> stderr.txt)
    echo $? > s-$mode/status.txt
    set -e
done
[ -f s-traced/serial.siot ] || fail "serial traced run left no trace"
rm s-traced/serial.siot
for f in s-plain/*; do
    cmp "$f" "s-traced/$(basename "$f")" || fail "serial: $(basename "$f") differs with tracing"
done
[ "$(cat s-plain/status.txt)" = 3 ] || fail "serial exit status $(cat s-plain/status.txt), expected 3"
pass "identical files, stdout, stderr, errno and exit status"
