#!/usr/bin/env bash
# Runs one test and records its result: one.sh RESULTS LABEL SECONDS CMD...
# Exit status 0 is a pass, 77 a skip (the test says why on a line starting
# "skip "), anything else, or running past SECONDS, a failure. The test's
# output goes to stdout as it comes; RESULTS gets one line:
#   PASS|FAIL|SKIP LABEL (N s)[: reason]
set -u
results=$1 label=$2 limit=$3
shift 3
log=$(mktemp)
start=$(date +%s)
timeout --kill-after=20 "$limit" "$@" > >(tee "$log") 2>&1
st=$?
wait # for tee
took=$(( $(date +%s) - start ))
case $st in
0) line="PASS $label ($took s)" ;;
77) line="SKIP $label ($took s): $(sed -n 's/^skip *\[[^]]*\] *[^:]*: //p' "$log" | head -1)" ;;
124 | 137) line="FAIL $label ($took s): still running after $limit s" ;;
*) line="FAIL $label ($took s): $(sed -n 's/^FAIL \[[^]]*\] [^:]*: //p' "$log" | head -1 | cut -c1-300)" ;;
esac
rm -f "$log"
echo "$line" >> "$results"
[ "$st" = 0 ] || [ "$st" = 77 ]
