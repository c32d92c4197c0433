#!/bin/bash
# The recording hot path (docs/hotpath.md): what a traced call costs, in
# instructions and in ns, for four shapes of call (bench/hotpath.c), and what
# the recorded times say against the program's own clock.
#
# Instructions per call: callgrind's user-space count of the whole run at N
# and at 2N calls; the difference divided by N leaves out the start-up and
# the end of the run (the merge and the write of the trace) except the part
# of the end that grows with the number of events (an irregular trace is
# encoded event by event). Needs valgrind; without it that table is left out
# and the script says so.
# ns per call: the program's own clock around its loop, untraced and traced
# runs alternating, median of RUNS.
#
# SIOT_BEFORE=DIR (a build/<flavour> directory of another checkout) adds that
# build's numbers as a "before" column; DARSHAN_PREFIX=DIR (a darshan-runtime
# install, built against the same MPI) adds Darshan's runtime preloaded, with
# its counters only and with DXT's per-call trace of POSIX calls. Darshan's
# numbers include its end of run (DXT compresses its log then).
set -euo pipefail
MPI=${MPI:-mpich}
B=$(pwd)/build/$MPI
BB=$B/bench
# Run alone (not by make bench), the programs are relinked when the library
# changed: a stale binary would measure an older recorder.
make --no-print-directory -s -f bench/bench.mk MPI="$MPI" "build/$MPI/bench/hotpath" "build/$MPI/bench/hotpath.plain" >&2
SIOT=$B/bin/siot
N=${N:-200000}
NI=${NI:-20000}
RUNS=${RUNS:-5}
TMP=$(mktemp -d /dev/shm/siot-hotpath.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

SHAPES="regular irregular fwrite threads"
declare -A LABEL=(
    [regular]="pwrite 64 B, one site (folds)"
    [irregular]="pwrite 64 B, 16 sites, random"
    [fwrite]="fwrite 64 B to untraced stdout"
    [threads]="pwrite 64 B, 8 threads"
)

median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.0f", m}'; }

# the builds compared: name and binary
BUILDS="untraced traced"
declare -A BIN=([untraced]=$BB/hotpath.plain [traced]=$BB/hotpath)
declare -A ENVS=([untraced]="" [traced]="")
if [ -n "${SIOT_BEFORE:-}" ]; then
    mpicc."$MPI" -O2 -o "$TMP/hotpath.before" bench/hotpath.c -pthread \
        -Wl,@"$SIOT_BEFORE/wrap.flags"
    BIN[before]=$TMP/hotpath.before
    ENVS[before]=""
    BUILDS="$BUILDS before"
fi
if [ -n "${DARSHAN_PREFIX:-}" ]; then
    # Darshan leaves paths under /dev out by default (the data file is in
    # /dev/shm), and DXT's default 2 MiB of segments overflows at N=40000;
    # DXT's MAX_RECORDS counts 1 KiB records: 65536 is 64 MiB (4194304 made
    # it allocate and clear 4 GiB at the end of every run)
    mkdir -p "$TMP/dlog"
    printf 'NAME_INCLUDE ^/dev/shm/ *\nMAX_RECORDS 65536 DXT_POSIX\n' > "$TMP/darshan.conf"
    d="LD_PRELOAD=$DARSHAN_PREFIX/lib/libdarshan.so DARSHAN_ENABLE_NONMPI=1 DARSHAN_LOGPATH=$TMP/dlog"
    d="$d DARSHAN_CONFIG_PATH=$TMP/darshan.conf"
    BIN[darshan]=$BB/hotpath.plain
    ENVS[darshan]=$d
    BIN[darshan+dxt]=$BB/hotpath.plain
    ENVS[darshan+dxt]="$d DARSHAN_MOD_ENABLE=DXT_POSIX"
    BUILDS="$BUILDS darshan darshan+dxt"
fi

# run BUILD SHAPE N [launcher...]: the program's ns/call on its stderr
run() {
    local build=$1 shape=$2 n=$3
    shift 3
    rm -rf "$TMP"/data* "$TMP"/*.siot "$TMP"/dlog/*
    local envs
    read -r -a envs <<< "${ENVS[$build]}"
    env SIOT_TRACE="$TMP/t.siot" "${envs[@]}" "$@" "${BIN[$build]}" "$shape" "$TMP/data" "$n" \
        2> "$TMP/err" > /dev/null
    tail -n 1 "$TMP/err"
}

# Under valgrind a clock read is slow enough that the TSC's scale cannot be
# measured (src/clock.h): the clock is set to CLOCK_MONOTONIC so that every
# run counts the same path. Natively the TSC path costs fewer instructions.
# The file is written unpacked (SIOT_PACK=0, or PACK=1): the table counts
# the recording and the encoding, as before the packed form; what packing
# adds at the end of the run is the line under the table.
instructions() { # BUILD SHAPE N: user-space instructions of the whole run
    run "$1" "$2" "$3" env SIOT_CLOCK=monotonic SIOT_PACK="${PACK:-0}" valgrind --tool=callgrind \
        --callgrind-out-file="$TMP/cg.out" > /dev/null
    sed -n 's/^summary: *//p' "$TMP/cg.out"
}

echo "== hot path: instructions per call (callgrind, user space; (Ir(2N)-Ir(N))/N, N=$NI; $MPI flavour)"
if command -v valgrind > /dev/null; then
    printf "%-34s" "shape"
    for b in $BUILDS; do printf " %10s" "$b"; done
    printf " %10s\n" "added"
    declare -A IPC
    for s in $SHAPES; do
        printf "%-34s" "${LABEL[$s]}"
        for b in $BUILDS; do
            i1=$(instructions "$b" "$s" "$NI")
            i2=$(instructions "$b" "$s" $((2 * NI)))
            IPC[$b]=$(( (i2 - i1) / NI ))
            printf " %10s" "${IPC[$b]}"
        done
        printf " %10s\n" "$(( IPC[traced] - IPC[untraced] ))"
        [ "$s" = irregular ] && irregular_traced=${IPC[traced]}
    done
    p1=$(PACK=1 instructions traced irregular "$NI")
    p2=$(PACK=1 instructions traced irregular $((2 * NI)))
    echo "(the file unpacked; packing it, SIOT_PACK=1, adds $(( (p2 - p1) / NI - irregular_traced )) instructions an irregular event at the end of the run)"
    echo "(8 threads: callgrind runs one thread at a time, so a waiter's spinning on the lock is counted;"
    echo " the ns table is the one to read for contention)"
else
    echo "valgrind is not installed (apt-get install valgrind): instructions left out"
fi

echo
echo "== hot path: ns per call (the program's clock around its loop, N=$N, median of $RUNS alternating runs)"
printf "%-34s" "shape"
for b in $BUILDS; do printf " %10s" "$b"; done
printf " %10s\n" "added"
for s in $SHAPES; do
    declare -A T=()
    for _ in $(seq "$RUNS"); do
        for b in $BUILDS; do T[$b]="${T[$b]:-} $(run "$b" "$s" "$N")"; done
    done
    printf "%-34s" "${LABEL[$s]}"
    declare -A M=()
    for b in $BUILDS; do
        M[$b]=$(printf '%s\n' ${T[$b]} | median)
        printf " %10s" "${M[$b]}"
    done
    printf " %10s\n" "$(( M[traced] - M[untraced] ))"
done

# the recorded times of the regular loop, against the program's own clock
# (a back-to-back loop: the computation between calls is only the loop's
# increment, so comp should be tens of ns, and dur near the untraced call)
echo
echo "== recorded timing vs truth: the regular loop, N=$N"
printf "%-10s %12s %14s %14s %14s %16s\n" "build" "ns/call" "dur mean" "comp min" "comp mean" "first open dur"
for b in $BUILDS; do
    [ "$b" = untraced ] && continue
    case $b in darshan*) continue ;; esac
    ns=$(run "$b" regular "$N")
    d=$("$SIOT" dump "$TMP/t.siot")
    loop=$(grep -m1 'pwrite(' <<< "$d")
    field() { sed -n "s/.* $1={[^}]*$2=\([^ }]*\).*/\1/p" <<< "$loop"; }
    open=$(grep -m1 ' open(' <<< "$d" | sed -n 's/.* dur=\([^ ]*\).*/\1/p')
    printf "%-10s %12s %14s %14s %14s %16s\n" "$b" "$ns" "$(field dur mean)" "$(field comp min)" \
        "$(field comp mean)" "$open"
done
printf "%-10s %12s\n" "untraced" "$(run untraced regular "$N")"
echo "targets: < 500 instructions and < 100 ns added per call; recorded comp of a back-to-back loop tens of ns;"
echo "         recorded dur near the untraced ns/call; the first open tens of us, not ms"
