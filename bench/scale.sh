#!/bin/bash
# Real jobs as ranks are added (PS, default 16 64 128 256; all oversubscribed
# on this machine's cores): for the small SPMD kernel (tests/progs/kernel.c:
# one shared file, 8 strided MPI_File_write_at of 1 KiB per rank), FLASH-IO
# (parallel HDF5; independent transfers on MPICH, as in bench/merge.sh) and
# POP (a 2-D grid's halo exchanges and CG solves, history by rank 0), the
# job's trace: its packed size, its sections unpacked (siot dump --sizes:
# header, function table, call sites, rank times, nodes), the time rank 0
# spent merging at MPI_Finalize (the trace's note finalize_seconds), and the
# peak resident memory (max RSS, KiB) of rank 0 and of rank 1, traced and
# untraced (the same program built without the tracer, each rank run under
# /usr/bin/time by bench/rss.sh: no tracer needed to measure it).
# Waiting ranks yield the processor: Open MPI's mpi_yield_when_idle, on
# MPICH the tests' preload (bench/common.sh; MPIR_CVAR_POLLS_BEFORE_YIELD is
# the ch3 device's and does nothing with this MPICH's ch4:ucx). Ends with each program's
# size growth from the first rank count to the last (target: within 5%),
# and the growth of the unpacked sections besides the rank times (which
# hold about 14-20 B per rank by design: SIOT_RANK_TIMES=0 leaves them out).
# PROGS chooses the programs (default: kernel flash-io pop; also ckpt,
# ior-posix, ior-mpiio, ior-hdf5 and btio, the other examples, with the
# options of tests/integ/80-examples.sh but larger); KEEP=dir keeps
# each job's trace there as PROGRAM-FLAVOUR-P.siot. A run that
# fails is tried once more, then its row says so and the others go on.
# Then the same at the first and last rank count with SIOT_TOLERANCE=5
# (TOLERANCE=p another percent, 0 none; traces kept as
# PROGRAM-FLAVOUR-tolP-RANKS.siot): timings kept within that percent.
# After each table, the last rank count's trace replayed at that rank count
# (mpirun -np P ioreplay --verify): its verdict ("faithful (N calls at the
# default level)", or "approximate" where counts were merged within a
# tolerance) and its wall time; REPLAY=0 leaves it out.
BENCH_NAME=scale
. "$(dirname "$0")/common.sh"
PS=${PS:-"16 64 128 256"}
BB=$B/bench
RSS=$(cd "$(dirname "$0")" && pwd)/rss.sh
export OMPI_MCA_mpi_yield_when_idle=1
# FLASH_ARGS: FLASH-IO's options (default: -i, independent transfers, on
# MPICH, whose collectives were slow on this machine, and the tables before
# kept it; none, collective transfers, on Open MPI)
flash_args=""
[ "$MPI" = mpich ] && flash_args="-i"
flash_args=${FLASH_ARGS-$flash_args}
POP_ARGS=${POP_ARGS:-"-s 2 -k 1"}

note() { "$SIOT" dump "$1" | sed -n "s/.*note $2: //p"; }
# header functions sites ranktimes nodes (unpacked bytes)
sections() {
    "$SIOT" dump --sizes "$1" | sed -n 's/.*sections: magic [0-9]*, header \([0-9]*\), functions \([0-9]*\), call sites \([0-9]*\), rank times \([0-9]*\) ([^)]*), nodes \([0-9]*\),.*/\1 \2 \3 \4 \5/p'
}
rss() { cat "$W/$1/rss.$2" 2> /dev/null || echo -; }

# the trace TRACE of a P-rank job replayed at P ranks with --verify: P TRACE
replay_line() {
    local np=$1 t0 v
    rm -rf "$W/replay" && mkdir -p "$W/replay"
    t0=$(date +%s.%N)
    v=$(cd "$W/replay" && run "$np" "$B/bin/ioreplay" --verify "$2" 2>&1 | grep '^round trip:' |
        sed "s/; the replay's trace: [^)]*)/)/" || echo "round trip: no verdict (the replay failed)")
    echo "replay at $np ranks ($(printf %.1f "$(echo "$(date +%s.%N) - $t0" | bc)") s wall): ${v#round trip: }"
}

# one run: DIR P PROGRAM ARGS... (in W/DIR, the rank's memory beside);
# a failed run is tried once more
one() {
    local d=$W/$1 np=$2 try
    shift 2
    for try in 1 2; do
        rm -rf "$d" && mkdir -p "$d"
        (cd "$d" && run "$np" "$RSS" "$d" "$@" > /dev/null 2> "$W/err") && return 0
    done
    echo "$np ranks of $1: failed twice: $(tail -1 "$W/err")"
    return 1
}

table() { # TITLE TRACED PLAIN ARGS...
    local title=$1 traced=$2 plain=$3
    shift 3
    echo "== $title ($MPI flavour${SIOT_TOLERANCE:+, SIOT_TOLERANCE=$SIOT_TOLERANCE}): the job's trace and its ranks' memory by rank count"
    printf "%5s %9s %7s %6s %6s %8s %9s %9s %9s %9s %9s %9s %7s\n" ranks "packed B" header funcs sites "rank t" nodes \
        "final s" "r0 KiB" "r0 plain" "r1 KiB" "r1 plain" "wall s"
    local first="" last="" P c s t0 t1 x firstx="" lastx="" lastp=""
    for P in $PS; do
        t0=$(date +%s.%N)
        rm -f "$W/t.siot"
        SIOT_TRACE=$W/t.siot one traced "$P" "$traced" "$@" || continue
        t1=$(date +%s.%N)
        one plain "$P" "$plain" "$@" || true
        [ -z "${KEEP:-}" ] || cp "$W/t.siot" "$KEEP/$(echo "$title" | cut -d' ' -f1 | tr -d :)-$MPI${SIOT_TOLERANCE:+-tol$SIOT_TOLERANCE}-$P.siot"
        c=$(stat -c %s "$W/t.siot")
        s=$(sections "$W/t.siot")
        # shellcheck disable=SC2086
        x=$(set -- $s; echo $(($1 + $2 + $3 + $5)))
        # shellcheck disable=SC2086
        printf "%5s %9s %7s %6s %6s %8s %9s %9s %9s %9s %9s %9s %7.1f\n" "$P" "$c" $s \
            "$(note "$W/t.siot" finalize_seconds)" "$(rss traced 0)" "$(rss plain 0)" "$(rss traced 1)" \
            "$(rss plain 1)" "$(echo "$t1 - $t0" | bc)"
        [ -n "$first" ] || first=$c firstx=$x
        last=$c lastx=$x
        cp "$W/t.siot" "$W/last.siot"
        lastp=$P
    done
    [ -n "$first" ] || return 0
    [ "${REPLAY:-1}" = 0 ] || replay_line "$lastp" "$W/last.siot"
    echo "growth from $(set -- $PS; echo "$1") to $lastp ranks: packed $(echo "scale=1; 100 * ($last - $first) / $first" | bc)%," \
        "sections besides rank times (unpacked) $(echo "scale=1; 100 * ($lastx - $firstx) / $firstx" | bc)% (target: within 5%)"
    echo
}

tables() { # the tables of PROGS at PS
    for prog in ${PROGS:-kernel flash-io pop}; do
        case $prog in
        # k.dat in the run's own directory: every run starts without it, as
        # ROMIO's first open of a missing file makes other calls (lstat, statfs)
        kernel) table "kernel: 8 strided MPI_File_write_at of 1 KiB per rank" "$BB/kernel" "$BB/kernel.plain" k.dat ;;
        # shellcheck disable=SC2086
        flash-io) table "flash-io $flash_args" "$B/examples/flash-io" "$BB/flash-io.plain" $flash_args ;;
        # shellcheck disable=SC2086
        pop) table "pop $POP_ARGS" "$B/examples/pop" "$BB/pop.plain" $POP_ARGS ;;
        ckpt) table "ckpt 6 2 2 4096" "$B/examples/ckpt" "$BB/ckpt.plain" 6 2 2 4096 ;;
        ior-posix) table "ior-posix -a posix -s 4" "$B/examples/ior" "$BB/ior.plain" -a posix -s 4 ;;
        ior-mpiio) table "ior-mpiio -a mpiio -c -s 4" "$B/examples/ior" "$BB/ior.plain" -a mpiio -c -s 4 ;;
        # independent HDF5 transfers: MPICH's collectives at 64 ranks on 2 cores are slow
        ior-hdf5) table "ior-hdf5 -a hdf5 -s 2 -b 16384 -t 8192" "$B/examples/ior" "$BB/ior.plain" -a hdf5 -s 2 -b 16384 -t 8192 ;;
        # a square number of ranks: 16, 64, 256
        btio) table "btio -n 24 -s 5" "$B/examples/btio" "$BB/btio.plain" -n 24 -s 5 ;;
        esac
    done
}

tables
# Within SIOT_TOLERANCE (default 5; TOLERANCE=0 leaves this out): timing
# histograms kept to that percent (compress/timefold.h) at the first and
# the last rank count, what the growth is when timings need not be exact.
TOLERANCE=${TOLERANCE:-5}
if [ "$TOLERANCE" != 0 ]; then
    # shellcheck disable=SC2086
    PS="$(set -- $PS; echo "$1 ${!#}")" SIOT_TOLERANCE=$TOLERANCE tables
fi
