# Shared helpers for the integration tests (bash). Each test script sources
# this file; MPI (mpich|openmpi) selects the flavour.
set -euo pipefail
MPI=${MPI:-mpich}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$ROOT/build/$MPI
SIOT=$B/bin/siot
ASAN_SIOT=$B/tests/asan/siot
FLAGS=$B/wrap.flags
MPICC=mpicc.$MPI
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# Keep the tests independent of the caller's tracer settings.
unset SIOT_TRACE SIOT_LAYERS SIOT_COMPRESS SIOT_VERBOSE

TEST_NAME=$(basename "$0" .sh)
WORK=$B/tests/work/$TEST_NAME
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"

# Open MPI's session directory (ompi.HOST.UID) is the test's own: mpirun
# makes it under /tmp at its start and removes it at its end, and two
# tests' mpiruns doing so at the same moment made one of them fail ("A call
# to mkdir was unable to create the desired directory ... File exists",
# test 76 in make check-under-load). A short path, as the job's sockets
# live there and a socket's path must fit in 108 bytes.
if [ "$MPI" = openmpi ]; then
    export OMPI_MCA_orte_tmpdir_base=/tmp/siot-ompi-$TEST_NAME
    rm -rf "$OMPI_MCA_orte_tmpdir_base"
    mkdir -p "$OMPI_MCA_orte_tmpdir_base"
    # removed at the test's end when mpirun left it empty (a test that sets
    # its own EXIT trap leaves it behind, empty)
    trap 'rmdir "$OMPI_MCA_orte_tmpdir_base" 2> /dev/null || true' EXIT
fi

fail() {
    echo "FAIL [$MPI] $TEST_NAME: $*" >&2
    exit 1
}

pass() { echo "ok   [$MPI] $TEST_NAME: $*"; }

# skip REASON: the test cannot run here; counted as skipped, with the reason, never as passed
skip() {
    echo "skip [$MPI] $TEST_NAME: $*"
    exit 77
}

# kill_here SIGNAL PATTERN: like pkill -SIGNAL -f PATTERN, but only the
# processes working in this test's directory: make check runs tests side by
# side, and the other flavour's run of the same test starts the same command
# lines. Status 1 when no such process was signalled.
kill_here() {
    local sig=$1 pat=$2 pid st=1
    for pid in $(pgrep -f -- "$pat"); do
        [ "$(readlink "/proc/$pid/cwd" 2> /dev/null)" = "$PWD" ] || continue
        kill "-$sig" "$pid" 2> /dev/null && st=0
    done
    return $st
}

# mpirun for the flavour: mpirun_np P cmd... (MPIRUN: the command itself, for
# timeout and MPMD lines). On MPICH the ranks yield the processor while they
# wait (tests/run/mpich_yield.c, preloaded with -genv: a test's own
# "-env LD_PRELOAD ..." takes precedence); MPIRUN_BARE is mpirun without it,
# for programs built with AddressSanitizer, whose runtime must come first in
# the library list.
if [ "$MPI" = openmpi ]; then
    MPIRUN_BARE=(mpirun.openmpi --oversubscribe)
    MPIRUN=("${MPIRUN_BARE[@]}")
else
    MPIRUN_BARE=(mpirun.mpich)
    MPIRUN=("${MPIRUN_BARE[@]}")
    [ -f "$B/tests/mpich_yield.so" ] && MPIRUN+=(-genv LD_PRELOAD "$B/tests/mpich_yield.so")
fi
mpirun_np() {
    local np=$1
    shift
    "${MPIRUN[@]}" -np "$np" "$@"
}

# need_pnetcdf: skips the test on a flavour built without PnetCDF's layer.
need_pnetcdf() {
    [ -f "$B/wrap-pnetcdf.flags" ] || skip "no PnetCDF on the $MPI flavour (Debian builds it for Open MPI only)"
}

# pnetcdf_pair P NAME COMPILER SOURCE [FLAGS...]: a PnetCDF program built
# twice, ./NAME linked with wrap-pnetcdf.flags and ./NAME.plain with PnetCDF
# alone, both run at P ranks (the untraced one in plain/); fails unless the
# traced run wrote the same NAME.nc as the untraced one.
pnetcdf_pair() {
    local np=$1 name=$2 cc=$3 src=$4
    shift 4
    "$cc" "$@" -c "$src" -o "$name.o" || fail "compile $(basename "$src")"
    "$cc" "$name.o" -Wl,@"$B/wrap-pnetcdf.flags" -o "$name" || fail "link $name against the tracer"
    "$cc" "$name.o" -lpnetcdf -o "$name.plain" || fail "link $name without the tracer"
    mkdir -p plain && (cd plain && mpirun_np "$np" "../$name.plain") > /dev/null || fail "$name (untraced)"
    mpirun_np "$np" "./$name" > /dev/null || fail "$name (traced)"
    cmp -s "$name.nc" "plain/$name.nc" || fail "the traced program's $name.nc differs from the untraced one's"
}

# build_traced NAME [extra cflags...]: tests/progs/<NAME>.c -> ./NAME (traced) and ./NAME.plain (untraced)
# (includes are written from the top of the tree: tests/progs/mpi_check.h).
# Each program is built once per flavour and set of flags, in
# build/<flavour>/tests/progs/, and linked (hard links, so that the
# program's own path is the test's) into the test's directory: several
# tests use the same program, and make check runs tests side by side (a
# lock makes one build it while the others wait). It is built again when
# its source, a header of tests/progs, the archive or wrap.flags is newer.
build_traced() {
    local name=$1
    shift
    local key=$name
    [ $# = 0 ] || key=$name-$(echo "$*" | md5sum | cut -c1-8)
    local dir=$B/tests/progs/$key
    mkdir -p "$dir"
    (
        flock 9
        local stale=0 f
        for f in "$ROOT/tests/progs/$name.c" "$ROOT"/tests/progs/*.h "$B/lib/libsiotrace.a" "$FLAGS"; do
            [ "$dir/$name" -nt "$f" ] || stale=1
        done
        [ -e "$dir/$name.plain" ] || stale=1
        if [ $stale = 1 ]; then
            rm -f "$dir/$name" "$dir/$name.plain" "$dir/$name.o"
            $MPICC -std=c11 -O1 -g -Wno-unused-result -I"$ROOT" "$@" -c "$ROOT/tests/progs/$name.c" -o "$dir/$name.o" &&
                $MPICC "$dir/$name.o" -o "$dir/$name.plain" &&
                $MPICC "$dir/$name.o" -Wl,@"$FLAGS" -o "$dir/$name"
        fi
    ) 9> "$dir.lock" || fail "build of tests/progs/$name.c $*"
    ln -f "$dir/$name" "$dir/$name.plain" "$dir/$name.o" .
}

# findings_run NAME P PROG ARGS...: PROG run traced at P ranks into
# NAME.siot, its siot findings in NAME.json and NAME.txt, each finding of
# the text with its cost and remedy lines, its siot stats in NAME.stats.json
# (tests 54-57)
findings_run() {
    local name=$1 np=$2
    shift 2
    SIOT_TRACE=$WORK/$name.siot mpirun_np "$np" "$@" > /dev/null || fail "$* ($name)"
    "$SIOT" findings --json "$name.siot" > "$name.json" || fail "siot findings --json $name.siot exited $?"
    "$SIOT" findings "$name.siot" > "$name.txt" || fail "siot findings $name.siot exited $?"
    "$SIOT" stats --json "$name.siot" > "$name.stats.json" || fail "siot stats --json $name.siot exited $?"
    local n
    n=$(grep -c '^\[' "$name.txt" || true)
    [ "$(grep -c '^    cost: ' "$name.txt" || true)" = "$n" ] && [ "$(grep -c '^    remedy: ' "$name.txt" || true)" = "$n" ] ||
        fail "$name: siot findings' text lacks a cost or remedy line"
}

# findings_modes P SRC CLEAN PROG MODE...: PROG run traced at P ranks with
# each MODE as its argument (after rm -f CLEAN, a glob), each through
# findings_run, then tests/py/check_findcost.py on the program's source SRC
# (tests 54-57)
findings_modes() {
    local np=$1 src=$2 clean=$3 prog=$4 mode
    shift 4
    for mode in "$@"; do
        # shellcheck disable=SC2086
        rm -f $clean
        findings_run "$mode" "$np" "$prog" "$mode"
    done
    py check_findcost.py "$src" "$MPI" "$np" "$@" || fail "findings of $(basename "$src")"
}

# c_define NAME FILE: the integer a C source's `#define NAME <integer>` gives,
# a comment after it aside (the tests state expected values from the
# program's source, not its output)
c_define() {
    local v
    v=$(sed -n "s/^#define $1 \([0-9][0-9]*\)\( *\/\*.*\)\{0,1\}\$/\1/p" "$2")
    [ -n "$v" ] || fail "no #define $1 in $2"
    echo "$v"
}

# segments_defines: SRC, XFERS, XFER and BLOCK (= XFERS*XFER) of
# tests/progs/segments.c, built traced as ./segments (tests 44 and 48)
segments_defines() {
    build_traced segments
    SRC=$ROOT/tests/progs/segments.c
    XFERS=$(c_define XFERS "$SRC")
    XFER=$(c_define XFER "$SRC")
    BLOCK=$((XFERS * XFER))
}

# example_cases: sets cases to every example as "name|arguments" (small
# sizes: MPICH collectives cost tens of ms with 9 ranks on 2 cores,
# PLATFORM.md); the program is the name up to its first "-" (flash-io whole).
# Tests 80 and 94 run them.
example_cases() {
    cases=(
        "ckpt|6 2 2 4096"
        "ior-posix|-a posix -s 4"
        "ior-mpiio|-a mpiio -c -s 4"
        "ior-hdf5|-a hdf5 -c -s 2 -b 16384 -t 8192"
        "flash-io|-n 2"
        "pop|-s 3 -k 2 -g 32"
        "btio|-n 12 -s 3"
        "btio_f|-n 12 -s 3"
    )
    if [ "$MPI" = openmpi ]; then
        cases+=("ior-ncmpi|-a ncmpi -c -s 2 -b 16384 -t 8192")
    fi
}

# jsonl TRACE: the expanded events, failing the test when siot fails
jsonl() { "$SIOT" dump --jsonl "$1" || fail "siot dump --jsonl $1 exited $?"; }

py() { python3 "$ROOT/tests/py/$1" "${@:2}"; }
# A trace's size unpacked (SIOT_PACK): the tests of the folding measure that.
trace_size() { py unpacked_size.py "$1" || fail "unpacked_size.py $1"; }

# roundtrip NAME P PROGRAM ARGS...: traces the program in orig-NAME/, replays
# the trace under root-NAME/ with `ioreplay --verify` (the replay traces
# itself and compares its calls with the original's at the replayed level),
# which must exit 0 and say faithful; and, independently of the tracer, the
# replay must write files of the same names and sizes. ROUNDTRIP_LEVEL=posix
# replays at the POSIX level instead; ROUNDTRIP_TIMEOUT=S ends a replay that
# has not ended in S seconds (a test of a replay that once hung).
roundtrip() {
    local name=$1 np=$2 level=${ROUNDTRIP_LEVEL:-default} st=0 bound=()
    shift 2
    [ -z "${ROUNDTRIP_TIMEOUT:-}" ] || bound=(timeout -k 10 "$ROUNDTRIP_TIMEOUT")
    mkdir -p "orig-$name"
    (cd "orig-$name" && SIOT_TRACE=$WORK/$name.orig.siot mpirun_np "$np" "$@" > /dev/null) || fail "$name: original run"
    rm -rf "root-$name"
    "${bound[@]}" "${MPIRUN[@]}" -np "$np" "$B/bin/ioreplay" --verify --explain --level "$level" --root "$WORK/root-$name" \
        "$WORK/$name.orig.siot" > "$name.report" || st=$?
    [ $st != 124 ] || fail "$name: the replay did not end in $ROUNDTRIP_TIMEOUT s"
    [ $st = 0 ] || { cat "$name.report" >&2; fail "$name: replay (--verify) exited $st"; }
    grep -q "^round trip: faithful" "$name.report" || { cat "$name.report" >&2; fail "$name: no verdict"; }
    (cd "orig-$name" && find . -type f ! -name '*.siot' -printf '%P %s\n' | sort) > "$name.orig.files"
    (cd "root-$name" && find . -type f -printf '%P %s\n' | sort) > "$name.replay.files"
    diff "$name.orig.files" "$name.replay.files" > /dev/null ||
        { diff "$name.orig.files" "$name.replay.files" >&2; fail "$name: the replay's files differ in name or size"; }
    echo "   $name at P=$np: $(sed -n 's/^round trip: //p' "$name.report" | sed 's/;.*/)/'), $(wc -l < "$name.orig.files") files of the same sizes"
}

# roundtrip_levels NAME P PROGRAM ARGS...: roundtrip at the default level
# (NAME-default) and at the POSIX level (NAME-posix), then the run's trace
# and each replay's own as JSON lines in TRACE.jsonl, for the test to hold
# all three against the program's source; their names in ROUNDTRIP_TRACES.
roundtrip_levels() {
    local name=$1 t
    shift
    roundtrip "$name-default" "$@"
    ROUNDTRIP_LEVEL=posix roundtrip "$name-posix" "$@"
    ROUNDTRIP_TRACES="$name-default.orig.siot root-$name-default.siot root-$name-posix.siot"
    for t in $ROUNDTRIP_TRACES; do jsonl "$t" > "$t.jsonl"; done
}

# replay_refuses NP TRACE N [texts]: ioreplay of TRACE on NP ranks under
# $WORK/root exits 1 (calls it cannot reissue) with N different results on
# rank 0 and at the least on the others; its report in replay.report, the
# calls it names in reasons.txt, sorted, one "name count" line each ("name
# count reason" with texts), for the test to compare with the counts the
# program's source gives
replay_refuses() {
    local st=0
    mpirun_np "$1" "$B/bin/ioreplay" --root "$WORK/root" "$2" > replay.report || st=$?
    [ $st = 1 ] || { cat replay.report >&2; fail "ioreplay exited $st, want 1 (calls it cannot reissue)"; }
    grep -E "different results +$3 +$3 " replay.report > /dev/null ||
        { cat replay.report >&2; fail "replayed calls gave other results than the $3 expected"; }
    if [ "${4:-}" = texts ]; then
        sed -n 's/^ *\([0-9][0-9]*\)  \([a-z_0-9]*\): \(.*\)/\2 \1 \3/p' replay.report | sort > reasons.txt
    else
        sed -n 's/^ *\([0-9][0-9]*\)  \([a-z_0-9]*\): .*/\2 \1/p' replay.report | sort > reasons.txt
    fi
}

# dump_has TRACE REGEX: the human dump of TRACE matches REGEX (the dump is
# read whole: grep -q on a pipe could end siot early, and pipefail would
# take that as a failure)
dump_has() {
    "$SIOT" dump "$1" > "$WORK/.dump.txt" || fail "siot dump $1 exited $?"
    grep -Eq -- "$2" "$WORK/.dump.txt"
}
