"""check_irregular.py TRACE.jsonl NRANKS N

big.c's irregular mode: each rank r made N lseeks to x >> 21 for the
sequence x = x*6364136223846793005 + 1442695040888963407 (mod 2^64) from
x = 12345 + r; every one must be in the trace, in order, with that offset
and return value (nothing lost, nothing approximated)."""
import json
import sys

nranks, n = int(sys.argv[2]), int(sys.argv[3])
x = {r: 12345 + r for r in range(nranks)}
count = {r: 0 for r in range(nranks)}
with open(sys.argv[1]) as f:
    for line in f:
        if '"lseek"' not in line:
            continue
        e = json.loads(line)
        r = e["rank"]
        x[r] = (x[r] * 6364136223846793005 + 1442695040888963407) % 2**64
        want = x[r] >> 21
        if e["args"]["offset"] != want or e["ret"] != want:
            sys.exit("check_irregular: rank %d lseek %d: offset %s, want %d" % (r, count[r], e["args"]["offset"], want))
        count[r] += 1
if any(c != n for c in count.values()):
    sys.exit("check_irregular: lseeks per rank %s, want %d" % (count, n))
print("   %d rank(s) x %d irregular lseeks, every offset exact" % (nranks, n))
