#!/usr/bin/env bash
# Prints what make check found: every failure and skip with its reason, the
# slowest tests, the time make check took (from the epoch seconds in
# START_FILE, when given), and the closing line "N passed, N failed[, N
# skipped]". Exit status 1 when something failed or nothing ran.
#   tally.sh RESULTS [START_FILE]
results=$1 start_file=${2:-}
[ -s "$results" ] || { echo "0 passed, 1 failed (no test ran)"; exit 1; }
pass=$(grep -c '^PASS' "$results")
failed=$(grep -c '^FAIL' "$results")
skipped=$(grep -c '^SKIP' "$results")
echo "== slowest tests"
sed -n 's/^[A-Z]* \(.*\) (\([0-9]*\) s[,)].*/\2 s  \1/p' "$results" | sort -rn | head -8
echo "== most processor time (user + system, all of a test's processes)"
sed -n 's/^[A-Z]* \(.*\) ([0-9]* s, \([0-9]*\) cpu s).*/\2 cpu s  \1/p' "$results" | sort -rn | head -8
sed -n 's/^[A-Z]* .* ([0-9]* s, \([0-9]*\) cpu s).*/\1/p' "$results" |
    awk '{ n += $1 } END { if (NR) printf "   all tests: %d cpu s\n", n }'
grep '^SKIP' "$results" | sed 's/^/   /'
grep '^FAIL' "$results" | sed 's/^/   /'
if [ -n "$start_file" ] && [ -s "$start_file" ]; then
    took=$(( $(date +%s) - $(cat "$start_file") ))
    echo "== make check took $took s ($((took / 60)) min $((took % 60)) s), $(nproc) cores, load average now $(cut -d' ' -f1-3 /proc/loadavg)"
    built=$(dirname "$start_file")/check-built # written when the build phase ended
    [ -s "$built" ] && [ "$(cat "$built")" -ge "$(cat "$start_file")" ] 2> /dev/null &&
        echo "   building $(( $(cat "$built") - $(cat "$start_file") )) s, tests $(( $(date +%s) - $(cat "$built") )) s"
fi
line="$pass passed, $failed failed"
[ "$skipped" = 0 ] || line="$line, $skipped skipped"
echo "$line"
[ "$failed" = 0 ] && [ "$pass" -gt 0 ]
