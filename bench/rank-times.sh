#!/bin/bash
# The bytes of the ranks' own times (sections RANKTIMES and RANKSUM, "rank
# times" in siot dump --sizes) by rank count, for a small MPI-IO kernel: the
# IOR-like example with each rank writing 8 strided 1 KiB blocks to one
# shared file with MPI_File_write_at (ior -a mpiio -s 8 -b 1024 -t 1024 -w),
# with SIOT_RANK_TIMES unset (the summary past 16 ranks) and =all (every
# rank's row), beside the whole trace.
#   MPI=mpich bash bench/rank-times.sh     (PS="16 32 64" by default)
BENCH_NAME=rank-times
. "$(dirname "$0")/common.sh"
PS=${PS:-"16 32 64"}
rank_times() { "$SIOT" dump --sizes "$1" | sed -n 's/.*rank times \([0-9]*\) (\([^)]*\)).*/\1 B (\2)/p'; }
echo "== rank times of ior -a mpiio -s 8 -b 1024 -t 1024 -w ($MPI flavour)"
printf "%6s %-44s %-26s %10s %10s\n" ranks "default: rank times" "=all: rank times" "trace B" "=all B"
for P in $PS; do
    (cd "$W" && rm -f ior.dat && SIOT_TRACE=$W/d.siot run "$P" "$B/examples/ior" -a mpiio -s 8 -b 1024 -t 1024 -w > /dev/null)
    (cd "$W" && rm -f ior.dat && SIOT_RANK_TIMES=all SIOT_TRACE=$W/a.siot run "$P" "$B/examples/ior" -a mpiio -s 8 -b 1024 -t 1024 -w > /dev/null)
    printf "%6s %-44s %-26s %10s %10s\n" "$P" "$(rank_times "$W/d.siot")" "$(rank_times "$W/a.siot")" \
        "$(stat -c %s "$W/d.siot")" "$(stat -c %s "$W/a.siot")"
done
