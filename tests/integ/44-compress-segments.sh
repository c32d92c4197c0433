#!/bin/bash
# Nested loops found in long flat runs (IOR's POSIX pattern): tests/progs/
# segments.c writes, for each of S segments, XFERS transfers with lseek +
# write at seg*P*BLOCK + rank*BLOCK + j*XFER, then reads them back. The
# trace at 4 ranks stays within 5% and under 3 KB from S = 16 to 4,096;
# the dump shows a loop of S over a loop of XFERS with the offset one
# two-level progression whose coefficients are the source's; the trace
# holds the same events as an uncompressed one (siot diff); and siot dump
# --sizes accounts for every byte of the file (its sections against the
# container read by Python).
. "$(dirname "$0")/../lib.sh"
segments_defines
P=4
sizes=""
for S in 16 256 4096; do
    rm -f segments.dat
    SIOT_TRACE=$WORK/s$S.siot mpirun_np $P ./segments $S > /dev/null || fail "segments $S"
    sizes="$sizes $(trace_size s$S.siot)"
done
echo "   segments at P=$P, S=16,256,4096:$sizes bytes"
min=$(printf '%s\n' $sizes | sort -n | head -1); max=$(printf '%s\n' $sizes | sort -n | tail -1)
[ $((max * 100)) -le $((min * 105)) ] || fail "sizes$sizes grow by more than 5%"
[ "$max" -lt 3072 ] || fail "the largest trace is $max bytes, not under 3 KB"
"$SIOT" dump s4096.siot > s4096.txt
want="offset=0+$BLOCK\*rank+$XFER\*i0+$((P * BLOCK))\*i1"
grep -A2 '^\[r0-3\] loop x4096 {' s4096.txt | grep "^  loop x$XFERS {" > /dev/null &&
    grep -q "lseek(fd=3[^,]*, $want, whence=SEEK_SET)" s4096.txt ||
    { grep -A3 'loop' s4096.txt | head -8 >&2; fail "no loop of 4096 over a loop of $XFERS with $want"; }
rm -f segments.dat
SIOT_COMPRESS=0 SIOT_TRACE=$WORK/flat.siot mpirun_np $P ./segments 16 > /dev/null || fail "segments, flat"
"$SIOT" diff s16.siot flat.siot > diff.txt || { cat diff.txt >&2; fail "the nested trace differs from the flat one"; }
"$ASAN_SIOT" dump --sizes s4096.siot > sizes.txt || fail "siot dump --sizes"
python3 - sizes.txt s4096.siot "$ROOT/tests/py" <<'PY' || { cat sizes.txt >&2; fail "siot dump --sizes"; }
import re, sys
sys.path.insert(0, sys.argv[3])
from siot_container import sections
text, data = open(sys.argv[1]).read(), open(sys.argv[2], "rb").read()
line = re.search(r"^  sections: (.*)$", text, re.M)
got = dict((k, int(v)) for k, v in re.findall(r"(magic|header|functions|call sites|rank times|nodes|end) (\d+)",
                                              line.group(1) if line else ""))
want = dict(zip([1, 2, 3, 6, 7, 4, 5], ["header", "functions", "call sites", "rank times", "rank times", "nodes", "end"]))
real = {}
for t, _, n in sections(data):
    real[want[t]] = real.get(want[t], 0) + n
real["magic"] = 12
if got != real:
    sys.exit("sections %s, the file's %s" % (got, real))
if "run table" in text:
    sys.exit("a run table is left")
if not re.search(r"^ +\d+ +lseek ", text, re.M):
    sys.exit("lseek is not among the largest events")
PY
pass "S segments of $XFERS transfers: a loop of S over a loop of $XFERS, flat in S (${sizes# } bytes), lossless; --sizes adds up"
