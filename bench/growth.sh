#!/bin/bash
# How the job's trace grows on programs that call the I/O libraries the way
# public HPC kernels do, where values the libraries pass differ per rank
# (derived-datatype displacements, per-rank tables of HDF5's metadata flush,
# irregular dataset offsets): the packed size at a small and a larger rank
# count (and for the particle kernel, a small and a larger step count), by
# default and with SIOT_RANK_TIMES=0 (the per-rank times left out), and the
# growth in percent.
#   btio_f (examples/btio): Fortran, collective MPI-IO through subarray
#     file views, 4 -> 16 ranks (a square count);
#   pnf (tests/progs/pnf.f90): Fortran PnetCDF (nfmpi_*), 2 -> 16 ranks,
#     Open MPI only (Debian builds PnetCDF against Open MPI);
#   particles (bench/particles.c): HDF5 VPIC-IO-like groups of eight
#     datasets written collectively, 2 -> 8 ranks at 5 steps, 5 -> 20 steps
#     at 4 ranks.
# A run that fails is tried once more, then its row says so.
BENCH_NAME=growth
. "$(dirname "$0")/common.sh"
BB=$B/bench
export OMPI_MCA_mpi_yield_when_idle=1

size() { # RANKTIMES P PROGRAM ARGS...: the trace's packed bytes, or "failed"
    local rt=$1 np=$2 d=$W/run try
    shift 2
    for try in 1 2; do
        rm -rf "$d" && mkdir -p "$d"
        if (cd "$d" && SIOT_RANK_TIMES=$rt SIOT_TRACE=$W/t.siot run "$np" "$@" > /dev/null 2> "$W/err"); then
            stat -c %s "$W/t.siot"
            return 0
        fi
    done
    echo failed
}

pct() { [ "$1" = failed ] || [ "$2" = failed ] && echo - || echo "scale=1; 100 * ($2 - $1) / $1" | bc; }

row() { # NAME FROM TO PROGRAM-FROM... -- PROGRAM-TO...: sizes of both, both ways
    local name=$1 from=$2 to=$3 a=() b=() sep=0 x
    shift 3
    for x in "$@"; do
        [ "$x" = -- ] && { sep=1; continue; }
        [ $sep = 0 ] && a+=("$x") || b+=("$x")
    done
    local d1 d2 z1 z2
    d1=$(size 8 "${a[@]}") d2=$(size 8 "${b[@]}")
    z1=$(size 0 "${a[@]}") z2=$(size 0 "${b[@]}")
    printf "%-34s %-10s %9s %9s %8s %9s %9s %8s\n" "$name" "$from->$to" "$d1" "$d2" "$(pct "$d1" "$d2")" \
        "$z1" "$z2" "$(pct "$z1" "$z2")"
}

echo "== growth on library-heavy kernels ($MPI flavour): packed trace bytes"
printf "%-34s %-10s %9s %9s %8s %9s %9s %8s\n" program from-\>to default "" "growth%" "no ranktimes" "" "growth%"
row "btio_f -n 24 -s 5 (MPI-IO, Fortran)" 4 16 4 "$B/examples/btio_f" -n 24 -s 5 -- 16 "$B/examples/btio_f" -n 24 -s 5
[ "$MPI" != openmpi ] || row "pnf (PnetCDF, Fortran)" 2 16 2 "$BB/pnf" -- 16 "$BB/pnf"
row "particles, 5 steps (HDF5)" 2 8 2 "$BB/particles" 5 -- 8 "$BB/particles" 5
row "particles at 4 ranks (HDF5), steps" 5 20 4 "$BB/particles" 5 -- 4 "$BB/particles" 20
