#!/bin/bash
# Compression of real access patterns: the IOR-shaped segments program
# (tests/progs/segments.c: S segments x 64 transfers of lseek + write, then
# read back) at 4 ranks as S grows, and the part of a trace that grows with
# the ranks by design (each rank's own times, section RANKTIMES) beside the
# rest, for the IOR-like example at 2..64 ranks. Sizes from the files, the
# sections from `siot dump --sizes`.
BENCH_NAME=compress
. "$(dirname "$0")/common.sh"
rank_times() { "$SIOT" dump --sizes "$1" | sed -n 's/.*rank times \([0-9]*\) .*/\1/p'; }
echo "== segments (S x 64 transfers of lseek + write, then read), 4 ranks ($MPI flavour)"
printf "%8s %12s %12s\n" S "trace B" "events"
for S in 16 256 4096; do
    (cd "$W" && rm -f segments.dat && SIOT_TRACE=$W/s.siot run 4 "$B/bench/segments" "$S" > /dev/null)
    printf "%8s %12s %12s\n" "$S" "$(stat -c %s "$W/s.siot")" "$("$SIOT" dump "$W/s.siot" | sed -n 's/.*note events_recorded: //p')"
done
echo
echo "== IOR-like example, POSIX, 8 segments: per-rank times against the rest ($MPI flavour)"
printf "%6s %12s %16s %12s\n" ranks "trace B" "rank times B" "rest B"
for P in ${PS:-2 4 16 64}; do
    (cd "$W" && rm -f ior.dat && SIOT_TRACE=$W/i.siot run "$P" "$B/examples/ior" -a posix -s 8 > /dev/null)
    c=$(stat -c %s "$W/i.siot")
    r=$(rank_times "$W/i.siot")
    printf "%6s %12s %16s %12s\n" "$P" "$c" "$r" "$((c - r))"
done
