#!/bin/bash
# slots: 12
# The summary of the ranks' own times (core/ranksum.h, issue 41): at 12
# ranks of tests/progs/imbalance.c (rank r computes r x STEP_MS ms before
# each of ITERS MPI_Allreduce calls, so it waits about (P-1-r) x STEP_MS ms
# in each), SIOT_RANK_TIMES=3 keeps a summary of the 12 ranks and the
# (rank, value) of the 3 fastest and 3 slowest of each quantity: siot stats (text,
# --json, --csv), siot findings, the report, siot dump and the Python reader
# say which form the trace holds and name the slowest and the most waiting
# ranks with times bounded by the source's sleeps (tests/py/check_rank_summary.py);
# siot merge of the ranks' own traces (SIOT_RANK_TRACES) keeps the same
# summary, not every row; the report lists each quantity's least, most and
# extremes; SIOT_RANK_TIMES=all keeps every rank's row; with SIOT_RANK_TIMES=1 the
# report and findings still name the slowest rank;
# a bad value is refused in one line.
. "$(dirname "$0")/../lib.sh"
build_traced imbalance
P=12
SIOT_RANK_TIMES=3 SIOT_RANK_TRACES=$WORK/parts SIOT_TRACE=$WORK/sum.siot mpirun_np $P ./imbalance > /dev/null ||
    fail "imbalance, SIOT_RANK_TIMES=3"
# the ranks' own traces joined afterwards: the summary the job's merge made
"$ASAN_SIOT" merge -o parts.siot parts/rank-*.siot || fail "siot merge of the ranks' traces"
"$SIOT" stats --json parts.siot > parts.json || fail "siot stats --json parts.siot"
SIOT_RANK_TIMES=all SIOT_TRACE=$WORK/all.siot mpirun_np $P ./imbalance > /dev/null || fail "imbalance, SIOT_RANK_TIMES=all"
SIOT_RANK_TIMES=1 SIOT_TRACE=$WORK/one.siot mpirun_np $P ./imbalance > /dev/null || fail "imbalance, SIOT_RANK_TIMES=1"
for f in sum all one; do
    "$ASAN_SIOT" stats --json $f.siot > $f.json || fail "siot stats --json $f.siot"
    "$SIOT" stats --csv $f.siot > $f.csv || fail "siot stats --csv $f.siot"
    "$SIOT" stats $f.siot > $f.txt || fail "siot stats $f.siot"
    "$ASAN_SIOT" findings --json $f.siot > $f.findings.json || fail "siot findings --json $f.siot"
    "$SIOT" findings $f.siot > $f.findings.txt || fail "siot findings $f.siot"
    "$ASAN_SIOT" report $f.siot -o $f.html || fail "siot report $f.siot"
    "$SIOT" dump $f.siot > $f.dump || fail "siot dump $f.siot"
    "$ASAN_SIOT" dump --sizes $f.siot > $f.sizes || fail "siot dump --sizes $f.siot"
done
PYTHONPATH=$ROOT/build/python SIOT_LIBSIOT=$B/lib/libsiot.so \
    py check_rank_summary.py "$ROOT/tests/progs/imbalance.c" $P 3 sum all one || fail "the summary of the ranks' times"
# a value that is neither 0, all nor a number: one line, and the default kept
SIOT_RANK_TIMES=some SIOT_TRACE=$WORK/bad.siot mpirun_np 2 ./imbalance > /dev/null 2> bad.err || fail "imbalance, bad value"
[ "$(grep -c "SIOT_RANK_TIMES=some is neither 0, all nor a number" bad.err)" -ge 1 ] || fail "no error for SIOT_RANK_TIMES=some"
pass "a summary of 12 ranks with the 3 slowest and fastest exact, every row with =all, as the program's sleeps say"
