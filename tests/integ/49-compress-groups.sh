#!/bin/bash
# Values by the rank's quotient: tests/progs/groups.c puts ranks in groups
# of GROUP (colour rank/GROUP for MPI_Comm_split, a file
# "groups-<rank/GROUP>.dat" per group) and writes at
# HEADER*(rank/GROUP) + BLOCK*(rank%GROUP) + GROUP*BLOCK*i. HEADER is not
# a multiple of GROUP, so the offset is no progression within a residue
# class: it used to be a table of one entry per group, and the colour and
# the file name one per group too, growing with the ranks. Now each is one
# value by quotient. Each rank also writes a line that prints its rank
# (LINE_FMT), whose length is one value by the rank's decimal digits.
# And:
# - every rank's colour, key, file name and offsets in the expanded trace
#   are the source's formulas (from its #defines);
# - the trace's size besides the per-rank times is within 5% from 8 to 16
#   ranks, and the dump shows the three values as such;
# - the trace holds the same events as an uncompressed one, and the replay
#   is faithful with the same files.
. "$(dirname "$0")/../lib.sh"
build_traced groups
SRC=$ROOT/tests/progs/groups.c
G=$(c_define GROUP "$SRC")
N=$(c_define NBLOCK "$SRC")
BLK=$(c_define BLOCK "$SRC")
HDR=$(c_define HEADER "$SRC")
LINE=$(sed -n 's/^#define LINE_FMT "\(.*\)"$/\1/p' "$SRC")
[ -n "$LINE" ] || fail "no LINE_FMT in $SRC"
sizes=""
for P in 8 16; do
    rm -f groups-*.dat
    SIOT_TRACE=$WORK/g$P.siot mpirun_np $P ./groups > out$P.txt || fail "groups at $P ranks"
    grep -q "^groups: $P ranks in groups of $G\$" out$P.txt || fail "groups at $P ranks: $(cat out$P.txt)"
    sizes="$sizes $(($(trace_size g$P.siot) - $(py section_sizes.py g$P.siot 6)))"
done
echo "   groups at P=8,16:$sizes bytes besides the per-rank times"
jsonl g16.siot > g16.jsonl
python3 - g16.jsonl 16 "$G" "$N" "$BLK" "$HDR" "$LINE" <<'PY' || fail "values by rank"
import json, sys
path, P, G, N, BLK, HDR = sys.argv[1], *map(int, sys.argv[2:7])
line = sys.argv[7].replace("\\n", "\n")
ev = [json.loads(l) for l in open(path)]
for r in range(P):
    mine = [e for e in ev if e["rank"] == r]
    split = [e for e in mine if e["func"] == "MPI_Comm_split"]
    if len(split) != 1 or split[0]["args"]["color"] != r // G or split[0]["args"]["key"] != r % G:
        sys.exit("rank %d: MPI_Comm_split %s, the source gives colour %d key %d" % (r, split, r // G, r % G))
    opens = [e for e in mine if e["func"] == "open"]
    if len(opens) != 1 or opens[0]["args"]["pathname"] != "groups-%d.dat" % (r // G):
        sys.exit("rank %d: open %s" % (r, opens))
    offs = [e["args"]["offset"] for e in mine if e["func"] == "pwrite"]
    want = [HDR * (r // G) + BLK * (r % G) + G * BLK * i for i in range(N)]
    if offs != want:
        sys.exit("rank %d: offsets %s, the source gives %s" % (r, offs, want))
    lines = [e["ret"] for e in mine if e["func"] == "write"]
    if lines != [len(line % r)]:
        sys.exit("rank %d: write returned %s, the source's line is %d bytes" % (r, lines, len(line % r)))
PY
set -- $sizes
[ $(($2 * 100)) -le $(($1 * 105)) ] && [ $(($1 * 100)) -le $(($2 * 105)) ] || fail "sizes$sizes differ by more than 5%"
# b*(rank/G) with b = HEADER, and the offset's c*(rank%G) + b*(rank/G): the
# dump's grid form of the same value
dump_has g16.siot "color=0\\+1\\*\\(rank/$G\\)" || fail "the colour is not one value by quotient"
dump_has g16.siot "pathname=\"groups-\\{0\\+1\\*\\(rank/$G\\)\\}\\.dat\"" || fail "the file name is not one pattern by quotient"
dump_has g16.siot "offset=0\\+$BLK\\*\\(rank%$G\\)\\+$HDR\\*\\(rank/$G\\)\\+$((G * BLK))\\*i0" ||
    { grep -m1 'pwrite' "$WORK/.dump.txt" >&2; fail "the offset is not one value by quotient"; }
# the line's length: LINE_FMT's bytes at rank 0, one more per decimal digit
L0=$(python3 -c 'import sys; print(len(sys.argv[1].replace("\\n", "\n") % 0))' "$LINE")
dump_has g16.siot "write\\(.*ret=$L0\\+1\\*\\(digits\\(rank\\)-1\\)" ||
    { grep -m1 '[^p]write(' "$WORK/.dump.txt" >&2; fail "the line's length is not one value by digits"; }
rm -f groups-*.dat
SIOT_COMPRESS=0 SIOT_TRACE=$WORK/flat.siot mpirun_np 16 ./groups > /dev/null || fail "groups, flat"
"$SIOT" diff g16.siot flat.siot > diff.txt || { cat diff.txt >&2; fail "the trace differs from the flat one"; }
rm -f groups-*.dat
roundtrip groups 8 "$WORK/groups"
pass "colour, file name and offsets by quotient, a line's length by digits: one value each (${sizes# } bytes at 8 and 16 ranks), lossless, replayed"
