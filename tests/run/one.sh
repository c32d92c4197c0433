#!/usr/bin/env bash
# Runs one test and records its result: one.sh RESULTS LABEL SECONDS CMD...
# Exit status 0 is a pass, 77 a skip (the test says why on a line starting
# "skip "), anything else, or running past SECONDS, a failure. The test's
# output goes to stdout as it comes; RESULTS gets one line:
#   PASS|FAIL|SKIP LABEL (N s, C cpu s)[: reason]
# C is the processor time of the test and every process it waited for (user
# and system, from the kernel's accounting of reaped children): on a 2-core
# machine the suite's length is bounded by the sum of these, so they say
# which tests to make cheaper.
set -u
results=$1 label=$2 limit=$3
shift 3
log=$(mktemp)
cpu_seconds() { # user + system seconds of this shell's reaped children
    # (times must run in this shell: a subshell's children counts start at 0)
    times > "$log.times"
    tail -1 "$log.times" | # "UmU.UUUs SmS.SSSs" of the children
        awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); n += a[1] * 60 + a[2] } printf "%.0f", n }'
    rm -f "$log.times"
}
start=$(date +%s)
timeout --kill-after=20 "$limit" "$@" > >(tee "$log") 2>&1
st=$?
wait # for tee
took=$(( $(date +%s) - start ))
cpu_seconds > "$log.cpu"
cpu=$(cat "$log.cpu")
rm -f "$log.cpu"
case $st in
0) line="PASS $label ($took s, $cpu cpu s)" ;;
77) line="SKIP $label ($took s, $cpu cpu s): $(sed -n 's/^skip *\[[^]]*\] *[^:]*: //p' "$log" | head -1)" ;;
124 | 137) line="FAIL $label ($took s, $cpu cpu s): still running after $limit s" ;;
*) line="FAIL $label ($took s, $cpu cpu s): $(sed -n 's/^FAIL \[[^]]*\] [^:]*: //p' "$log" | head -1 | cut -c1-300)" ;;
esac
rm -f "$log"
echo "$line" >> "$results"
[ "$st" = 0 ] || [ "$st" = 77 ]
