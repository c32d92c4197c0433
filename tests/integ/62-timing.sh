#!/bin/bash
# Recorded times against the program's own clock (tests/progs/gaps.c): the
# computation between calls is the program's gap, not the tracer's work; the
# duration is the call's, not the stack walk's (depth 1 vs 40 with
# SIOT_STACK_DEPTH=64); the first call does not carry the tracer's set-up.
# Three runs (see tests/py/check_timing.py for which checks hold in every run):
# the first two on the tracer's default clock (the TSC where the kernel's
# clocksource is the TSC, src/clock.h), the third on SIOT_CLOCK=monotonic.
. "$(dirname "$0")/../lib.sh"
build_traced gaps
for i in 1 2 3; do
    mkdir -p run$i/files run$i/pfiles
    clock=; [ $i = 3 ] && clock=monotonic
    SIOT_CLOCK=$clock SIOT_STACK_DEPTH=64 SIOT_TRACE=run$i/t.siot ./gaps run$i/files > run$i/out.txt || fail "gaps run $i exited $?"
    "$SIOT" dump run$i/t.siot > run$i/dump.txt || fail "siot dump run $i"
    ./gaps.plain run$i/pfiles > run$i/plain.txt || fail "untraced gaps run $i"
done
src=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2> /dev/null)
want=CLOCK_MONOTONIC
[ "$src" = tsc ] && want=tsc
for i in 1 2; do
    grep -q "note clock: $want" run$i/dump.txt || fail "run $i: the kernel's clocksource is '$src', the trace's clock note: $(grep 'note clock' run$i/dump.txt)"
done
grep -q "note clock: CLOCK_MONOTONIC" run3/dump.txt || fail "SIOT_CLOCK=monotonic: the trace's clock note: $(grep 'note clock' run3/dump.txt)"
py check_timing.py run1 run2 run3 || fail "recorded times against the program's clock"
pass "(clocks: $want, CLOCK_MONOTONIC) comp = the program's gaps (0, 50 us, 2 ms), dur independent of stack depth, first open without the set-up"
