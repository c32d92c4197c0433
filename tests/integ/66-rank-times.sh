#!/bin/bash
# Each rank's own times (issue "who waits"): tests/progs/imbalance.c makes
# rank r compute r x STEP_MS ms before each of ITERS MPI_Allreduce calls, so
# rank r waits about (P-1-r) x STEP_MS ms in each. siot stats --json (per-rank
# "time_s"), its CSV and text, and the report's "Time per rank" chart give
# each rank's collective wait and computation as the source says, by bounds
# and orders that hold on a busy machine (tests/py/check_rank_times.py: no
# less computation than the sleeps, waits falling with the rank by at least
# half the source's steps, the same span of steps on every rank); with the
# per-rank rows removed from the file, the report says its times are
# estimates.
. "$(dirname "$0")/../lib.sh"
build_traced imbalance
P=4
SIOT_TRACE=$WORK/imb.siot mpirun_np $P ./imbalance > /dev/null || fail "imbalance run"
"$ASAN_SIOT" stats --json imb.siot > imb.json || fail "siot stats --json"
"$SIOT" stats --csv imb.siot > imb.csv || fail "siot stats --csv"
"$SIOT" stats imb.siot > imb.txt || fail "siot stats"
"$ASAN_SIOT" report imb.siot -o imb.html || fail "siot report"
py check_rank_times.py "$ROOT/tests/progs/imbalance.c" $P imb.json imb.csv imb.txt imb.html || fail "per-rank times"
# the synthesised timeline says how far its ends are from the ranks' recorded spans, as the export does
"$SIOT" export --chrome imb.siot -o imb-chrome.json 2> /dev/null || fail "siot export --chrome"
python3 - imb.html imb-chrome.json <<'PY' || fail "the report's bound on the synthesised timeline"
import json, re, sys
m = re.search(r"synthesised end is within ([0-9.]+)% of its recorded span", open(sys.argv[1]).read())
other = json.load(open(sys.argv[2]))["otherData"]
if not m or abs(float(m.group(1)) - 100 * other["max_span_error"]) > 0.051:
    sys.exit("report: %s, export: max_span_error %s" % (m and m.group(1), other.get("max_span_error")))
PY
# the rows removed (a trace of an older siotrace): the report says so, and gives no bound it cannot know
py strip_section.py imb.siot 6 old.siot || fail "strip the RANKTIMES section"
"$SIOT" stats --json old.siot > old.json || fail "siot stats --json of a trace without rank times"
python3 -c "import json,sys; d=json.load(open('old.json')); sys.exit(any('time_s' in r for r in d['ranks']))" ||
    fail "per-rank times from a trace that has none"
"$SIOT" report old.siot -o old.html || fail "siot report of a trace without rank times"
grep -q "the trace has no per-rank totals" old.html || fail "the report does not say its per-rank times are estimates"
! grep -q "of its recorded span" old.html || fail "a bound against spans the trace does not keep"
pass "each rank's own MPI wait and computation, as the program's source says"
