#!/bin/bash
# A nest whose inner boundary falls in the middle of the loop's body:
# tests/progs/segments.c with `after` seeks once to the first transfer, then
# after every write seeks to the next transfer's offset, which after a
# segment's last transfer is the next segment's start. The fold makes one
# loop of S*XFERS iterations of `write, lseek` whose lseek offsets change
# progression one iteration before each segment's end; the final pass must
# make it S iterations of a loop of XFERS with the offset in two pieces:
# iterations 0..XFERS-2 at the segment's next transfer, the last at the next
# segment's start. At 4 ranks the trace stays within 5% from S = 16 to
# 4,096, and holds the same events as an uncompressed one (siot diff).
. "$(dirname "$0")/../lib.sh"
segments_defines
P=4
grep -q 'seek(fd, next_offset(s, j, rank, size));' "$SRC" || fail "segments.c no longer seeks after each transfer"
sizes=""
for S in 16 256 4096; do
    rm -f segments.dat
    SIOT_TRACE=$WORK/m$S.siot mpirun_np $P ./segments $S after > /dev/null || fail "segments $S after"
    sizes="$sizes $(trace_size m$S.siot)"
done
echo "   segments after, P=$P, S=16,256,4096:$sizes bytes"
min=$(printf '%s\n' $sizes | sort -n | head -1); max=$(printf '%s\n' $sizes | sort -n | tail -1)
[ $((max * 100)) -le $((min * 105)) ] || fail "sizes$sizes grow by more than 5%"
# From the source: transfer (s, j) of rank r is at s*P*BLOCK + r*BLOCK +
# j*XFER; the seek after it goes to transfer j+1 (i0 < XFERS-1: XFER more,
# XFER + BLOCK*rank + XFER*i0 + P*BLOCK*i1) or, after the last, to the next
# segment's first (P*BLOCK + BLOCK*rank + P*BLOCK*i1).
low="$XFER+$BLOCK\*rank+$XFER\*i0+$((P * BLOCK))\*i1"
high="$((P * BLOCK))+$BLOCK\*rank+$((P * BLOCK))\*i1"
want="offset=by-i0\[0-$((XFERS - 2)):$low $((XFERS - 1)):$high\](2 runs)"
"$SIOT" dump m4096.siot > m4096.txt
for call in write read; do
    grep -A3 '^\[r0-3\] loop x4096 {' m4096.txt | grep -A2 "^  loop x$XFERS {" |
        grep -q "^    $call(fd=3[^,]*, count=$XFER) ret=$XFER" ||
        { grep -A4 'loop' m4096.txt >&2; fail "no loop of 4096 over a loop of $XFERS ${call}s"; }
done
[ "$(grep -c "^    lseek(fd=3[^,]*, $want, whence=SEEK_SET)" m4096.txt)" = 2 ] ||
    { grep 'lseek' m4096.txt >&2; fail "the seeks after the writes and the reads are not $want"; }
grep -q "^\[r0-3\] lseek(fd=3[^,]*, offset=0+$BLOCK\*rank, whence=SEEK_SET)" m4096.txt ||
    fail "no first seek to rank*$BLOCK before the loop"
for S in 16 256; do
    rm -f segments.dat
    SIOT_COMPRESS=0 SIOT_TRACE=$WORK/flat$S.siot mpirun_np $P ./segments $S after > /dev/null || fail "flat $S"
    # the sanitized reader: run tables inside run tables, expanded
    "$ASAN_SIOT" diff m$S.siot flat$S.siot > diff$S.txt || { head diff$S.txt >&2; fail "S=$S: the nested trace differs from the flat one"; }
done
"$SIOT" diff m16.siot flat256.siot > /dev/null && fail "siot diff finds no difference between S=16 and S=256"
pass "write then seek to the next transfer: a loop of S over a loop of $XFERS, the seek's offset in two pieces, flat in S (${sizes# } bytes), lossless"
