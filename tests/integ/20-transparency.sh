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
