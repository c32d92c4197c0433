#!/bin/bash
# Recorded times against the program's own clock (tests/progs/gaps.c): the
# computation between calls is the program's gap, not the tracer's work; the
# duration is the call's, not the stack walk's (depth 1 vs 40 with
# SIOT_STACK_DEPTH=64); the first call does not carry the tracer's set-up.
# Three runs (see tests/py/check_timing.py for which checks hold in every run).
. "$(dirname "$0")/../lib.sh"
build_traced gaps
for i in 1 2 3; do
    mkdir -p run$i/files run$i/pfiles
    SIOT_STACK_DEPTH=64 SIOT_TRACE=run$i/t.siot ./gaps run$i/files > run$i/out.txt || fail "gaps run $i exited $?"
    "$SIOT" dump run$i/t.siot > run$i/dump.txt || fail "siot dump run $i"
    ./gaps.plain run$i/pfiles > run$i/plain.txt || fail "untraced gaps run $i"
done
py check_timing.py run1 run2 run3 || fail "recorded times against the program's clock"
pass "comp = the program's gaps (0, 50 us, 2 ms), dur independent of stack depth, first open without the set-up"
