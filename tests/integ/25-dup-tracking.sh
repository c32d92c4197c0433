#!/bin/bash
# Descriptors are tracked through every duplication (tests/progs/robust.c,
# mode dups): dup, fcntl F_DUPFD and F_DUPFD_CLOEXEC make traced copies; dup2
# and dup3 onto a traced descriptor make it refer to the source's file, or,
# from a descriptor that is not traced (a pipe), to nothing traced. The bytes
# each file gets are known from the program's source: a.dat 5, b.dat
# 7+3+11+13+17 = 51, c.dat 0, d.dat 19; what went to the pipe is in no file.
# The replay reissues the same calls, and the files it writes have those sizes.
. "$(dirname "$0")/../lib.sh"
build_traced robust
./robust.plain dups || fail "untraced run"
for f in a b c d; do mv $f.dat plain-$f.dat; done
SIOT_TRACE=$WORK/dups.siot ./robust dups || fail "traced run"
for f in a b c d; do
    cmp -s plain-$f.dat $f.dat || fail "$f.dat differs from the untraced run's"
done
"$SIOT" stats --json dups.siot > stats.json || fail "siot stats"
python3 - stats.json <<'PY' || fail "per-file bytes in siot stats --json"
import json, sys
want = {"a.dat": 5, "b.dat": 51, "c.dat": 0, "d.dat": 19}
got = {f["name"]: f["bytes_written"] for f in json.load(open(sys.argv[1]))["files"] if f["layer"] == "posix"}
if got != want:
    sys.exit(f"files {got}, want {want}")
PY
jsonl dups.siot > dups.jsonl
for fc in "dup 1" "dup2 1" "dup3 2" "fcntl 2"; do
    set -- $fc
    [ "$(grep -c "\"func\":\"$1\"" dups.jsonl)" = "$2" ] || fail "$2 $1 events wanted"
done
grep -q '"func":"dup2","parent":-1,"args":{"oldfd":-1,' dups.jsonl || fail "dup2 from a pipe: the source is not shown as untraced"
grep -q '"func":"write","parent":-1,"args":{"fd":[0-9]*,"count":10}' dups.jsonl && fail "the write to the pipe was traced"
grep -q '"count":23}' dups.jsonl && fail "the write to the pipe through dup3 was traced"
# the replay: the same POSIX calls, files of the same sizes
mkdir -p orig && cp dups.siot orig/
SIOT_TRACE=$WORK/replay.siot mpirun_np 1 "$B/tests/ioreplay-traced" --root "$WORK/root" dups.siot > replay.txt ||
    fail "ioreplay"
"$SIOT" diff --layers posix --outermost dups.siot replay.siot > diff.txt || { cat diff.txt >&2; fail "the replay's calls differ"; }
for f in a b c d; do
    [ "$(stat -c %s root/$f.dat)" = "$(stat -c %s plain-$f.dat)" ] || fail "replayed $f.dat has the wrong size"
done
pass "dup, dup2, dup3, F_DUPFD(_CLOEXEC): per-file bytes exact, pipe writes untraced, replay equal"
