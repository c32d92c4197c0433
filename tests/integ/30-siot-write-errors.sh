#!/bin/bash
# Nothing silent on a full disk: every siot command that writes to stdout
# (dump in each form, diff with a difference to show, stats and findings in
# each format, report, export and merge with -o -, help, each command's --help,
# --version) exits 2 with one line naming the write error when stdout is
# /dev/full, where each writes its answer and exits 0 (diff: 1) into a
# file. Two traces of small programs (tests/progs/aioshort.c and
# tests/progs/inactive.c, 2 ranks) are the input; diff compares them.
. "$(dirname "$0")/../lib.sh"
[ -c /dev/full ] || skip "no /dev/full (a character device that refuses every write) on this machine"
build_traced aioshort
build_traced inactive
mkdir -p run
(cd run && SIOT_TRACE=$WORK/a.siot mpirun_np 2 ../aioshort > /dev/null) || fail "aioshort (traced)"
(cd run && SIOT_TRACE=$WORK/b.siot mpirun_np 2 ../inactive > /dev/null) || fail "inactive (traced)"
checked=0
# try WANT ARGS...: siot ARGS into a file exits WANT and writes something;
# into /dev/full it exits 2 and says "write error" in exactly one line
try() {
    local want=$1 st=0
    shift
    "$SIOT" "$@" > out.txt 2> err.txt || st=$?
    [ $st = "$want" ] && [ -s out.txt ] || { cat err.txt >&2; fail "siot $* into a file: exit $st (want $want), $(wc -c < out.txt) bytes"; }
    st=0
    "$SIOT" "$@" > /dev/full 2> err.txt || st=$?
    [ $st = 2 ] && [ "$(grep -c "write error" err.txt)" = 1 ] ||
        { cat err.txt >&2; fail "siot $* > /dev/full: exit $st, $(grep -c "write error" err.txt) lines saying write error (want 2, 1)"; }
    checked=$((checked + 1))
}
try 0 dump a.siot
try 0 dump --raw a.siot
try 0 dump --jsonl a.siot
try 0 dump --sizes a.siot
try 1 diff a.siot b.siot
for fmt in "" --json --csv; do
    try 0 stats $fmt a.siot
done
try 0 findings a.siot
try 0 findings --json a.siot
try 0 report a.siot -o -
try 0 export --chrome a.siot -o -
try 0 export --csv a.siot -o -
# merge -o -: the merged trace on stdout, byte for byte the file -o FILE
# writes, and no file named "-"
try 0 merge -o - a.siot
"$SIOT" merge -o m.siot a.siot && "$SIOT" merge -o - a.siot > m-stdout.siot || fail "siot merge -o FILE, -o -"
cmp -s m.siot m-stdout.siot || fail "siot merge -o - wrote other bytes than -o FILE"
[ ! -e ./- ] || fail "siot merge -o - made a file named -"
try 0 help
try 0 help dump
try 0 --version
for cmd in dump diff stats findings merge report export; do
    try 0 "$cmd" --help
done
pass "$checked siot command lines: their answer into a file, exit 2 and one line on a full disk"
