#!/usr/bin/env bash
# make check's test phase: check.sh RESULTS FLAVOUR...
# Runs every unit test and integration test of each flavour, and the fuzzing
# jobs, several at a time, after the build phase has built all they need
# (make check-build). Each job runs through one.sh, which records its result
# in RESULTS; its output is printed whole when it ends, so that the logs of
# jobs running side by side do not interleave.
#
# Why concurrently: most of a test's time is not CPU-bound on all cores (a
# compile, an MPI job of sleeping or polling ranks, a Python check), so a
# 2-core machine finishes the suite about twice as fast with a few jobs at a
# time. The tests are independent: each works in its own directory
# (build/<flavour>/tests/work/<name>), and kills only processes started there.
#
# Slots: a job takes one slot, or the number on a line "# slots: N" near the
# top of its script (tests that build with make -j2 or run many ranks), and
# at most CHECK_SLOTS slots are taken at once (default: cores + 1; 1 runs
# the tests one after another). The longest jobs start first, by the times
# in tests/run/durations.txt (a job not listed there counts as 30 s), so
# that the last minutes are not one long test alone.
set -u
results=$1
shift
flavours=("$@")
cd "$(dirname "$0")/../.."
root=$PWD
slots_max=${CHECK_SLOTS:-$(($(nproc) + 1))}
[ "$slots_max" -ge 1 ] 2> /dev/null || slots_max=1
test_seconds=${TEST_SECONDS:-900}
logs=$root/build/check-logs
rm -rf "$logs"
mkdir -p "$logs"

# one job a line: SECONDS_EXPECTED SLOTS LIMIT LABEL<TAB>COMMAND (run by bash -c)
jobs_file=$logs/jobs.txt
expected() { # LABEL: the seconds durations.txt gives it, or 30
    local s
    s=$(awk -v l="$1" -F'\t' '$2 == l { print $1; exit }' tests/run/durations.txt 2> /dev/null)
    echo "${s:-30}"
}
slots_of() { # SCRIPT: its "# slots: N" line, or 1
    local n
    n=$(sed -n '1,20s/^# slots: *\([0-9]*\).*/\1/p' "$1" | head -1)
    echo "${n:-1}"
}
add() { # SLOTS LIMIT LABEL COMMAND
    printf '%s %s %s %s\t%s\n' "$(expected "$3")" "$1" "$2" "$3" "$4" >> "$jobs_file"
}
: > "$jobs_file"
for f in "${flavours[@]}"; do
    for u in build/$f/tests/unit/test_*; do
        [ -x "$u" ] || continue
        add 1 600 "[$f] unit ${u##*/}" "$u"
    done
    for t in tests/integ/*.sh; do
        add "$(slots_of "$t")" "$test_seconds" "[$f] $(basename "$t" .sh)" "MPI=$f bash $t"
    done
done
add 1 600 "fuzz: the corpus" \
    "make --no-print-directory -f tests/fuzz/fuzz.mk fuzz-corpus > build/fuzz-corpus.log 2>&1 || { tail -30 build/fuzz-corpus.log; exit 1; }"
add 1 900 "fuzz: 150,000 seeded runs" \
    "make --no-print-directory -f tests/fuzz/fuzz.mk fuzz-run SECONDS=${FUZZ_SECONDS:-60} TIMEOUT=30 FUZZ_OPTS='-seed=1 -runs=150000' > build/fuzz-run.log 2>&1 || { tail -40 build/fuzz-run.log; exit 1; }; grep -E '^Done|number_of_executed_units' build/fuzz-run.log | head -2"

# longest first; then run them, taking at most slots_max slots at once
mapfile -t queue < <(sort -s -k1,1nr "$jobs_file")
total=${#queue[@]}
echo "== make check: $total jobs, at most $slots_max slot(s) at a time"
declare -A running_slots=() running_label=() running_log=()
used=0 done_count=0
start_job() { # LINE SLOTS
    local line=$1 slots=$2 head cmd limit label log
    head=${line%%$'\t'*}
    cmd=${line#*$'\t'}
    read -r _ _ limit label <<< "$head"
    log=$logs/$(echo "$label" | tr -c 'A-Za-z0-9_.-' '_').log
    tests/run/one.sh "$results" "$label" "$limit" bash -c "$cmd" > "$log" 2>&1 < /dev/null &
    running_slots[$!]=$slots
    running_label[$!]=$label
    running_log[$!]=$log
    used=$((used + slots))
}
reap_one() {
    local pid
    wait -n -p pid "${!running_slots[@]}" 2> /dev/null
    [ -n "${pid:-}" ] && [ -n "${running_slots[$pid]:-}" ] || return 0
    done_count=$((done_count + 1))
    echo "== ($done_count/$total) ${running_label[$pid]}"
    cat "${running_log[$pid]}"
    used=$((used - running_slots[$pid]))
    unset "running_slots[$pid]" "running_label[$pid]" "running_log[$pid]"
}
for line in "${queue[@]}"; do
    read -r _ slots _ <<< "${line%%$'\t'*}"
    [ "$slots" -le "$slots_max" ] || slots=$slots_max
    while [ "$used" -gt 0 ] && [ $((used + slots)) -gt "$slots_max" ]; do
        reap_one
    done
    start_job "$line" "$slots"
done
while [ "${#running_slots[@]}" -gt 0 ]; do
    reap_one
done
