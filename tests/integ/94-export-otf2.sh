#!/bin/bash
# siot export --otf2, read back outside siotrace: Debian's otf2-print (with
# -Werror: not a warning) and the otf2 Python module (python3-otf2, a second
# reader) read every example's archive and a purpose-built program's
# (tests/progs/otf2mix.c: POSIX, MPI-IO, HDF5 and, on Open MPI, PnetCDF
# data, a ring of messages on MPI_COMM_WORLD and on the halves of an
# MPI_Comm_split, collectives); regions entered per rank, their leaves,
# each location's record count, and bytes per I/O handle equal siot stats;
# otf2mix's bytes per file, its messages' receivers and counts equal its
# #defines; threads get locations of their own; an archive already there
# and --sample are refused; the OTF2 library is linked into siot only.
. "$(dirname "$0")/../lib.sh"
command -v otf2-print > /dev/null || fail "otf2-print is missing (make deps installs otf2-tools)"
/usr/bin/python3 -c 'import otf2' 2> /dev/null || fail "python3-otf2 is missing (make deps installs it)"
E=$B/examples
P=4

# otf2check NAME TRACE [check_otf2.py options]: export, then both readers
otf2check() {
    local name=$1 trace=$2
    shift 2
    local t0 t1
    t0=$(date +%s%N)
    "$ASAN_SIOT" export --otf2 "$name.otf2" "$trace" 2> "$name.err" || { cat "$name.err" >&2; fail "$name: export --otf2"; }
    t1=$(date +%s%N)
    "$SIOT" stats --json "$trace" > "$name.stats.json" || fail "$name: siot stats --json"
    /usr/bin/python3 "$ROOT/tests/py/count_otf2.py" "$name.otf2/traces.otf2" > "$name.counts.json" ||
        fail "$name: the otf2 module cannot read the archive"
    local out
    out=$(py check_otf2.py "$name.otf2/traces.otf2" "$name.stats.json" --py "$name.counts.json" "$@") ||
        fail "$name: $out"
    echo "   $name: $out; export $(((t1 - t0) / 1000000)) ms (ASan build), $(du -sk "$name.otf2" | cut -f1) KiB"
}

# --- the purpose-built program: amounts from its #defines
SRC=$ROOT/tests/progs/otf2mix.c
defs=$P
for d in NPW PW NMIO MIO H5N NCN NMSG MSG SUBMSG; do defs="$defs $(c_define $d "$SRC")"; done
if [ "$MPI" = openmpi ]; then
    $MPICC -std=c11 -O1 -g -I"$ROOT" -I/usr/include/hdf5/openmpi -DHAVE_PNETCDF -c "$SRC" -o otf2mix.o &&
        $MPICC otf2mix.o -Wl,@"$B/wrap-hdf5.flags" -Wl,@"$B/wrap-pnetcdf.flags" -o otf2mix || fail "build otf2mix"
else
    $MPICC -std=c11 -O1 -g -I"$ROOT" -I/usr/include/hdf5/mpich -c "$SRC" -o otf2mix.o &&
        $MPICC otf2mix.o -Wl,@"$B/wrap-hdf5.flags" -o otf2mix || fail "build otf2mix"
fi
mpirun_np $P ./otf2mix > /dev/null || fail "otf2mix run"
# shellcheck disable=SC2086
otf2check otf2mix otf2mix.siot --mix $defs
# each rank's unstarted persistent send: no message, and said so
grep -q "OTF2: $P persistent sends and receives made" otf2mix.err ||
    fail "otf2mix: the persistent sends are not counted: $(cat otf2mix.err)"
if [ "$MPI" = openmpi ]; then
    grep -q '"PnetCDF"' otf2mix.counts.json || fail "otf2mix: no PnetCDF handle in the archive"
fi

# --- threads: a location per traced thread, in its rank's location group
build_traced threads -pthread
mpirun_np 2 ./threads multiple > /dev/null || fail "threads multiple"
otf2check threads threads.siot
nloc=$(otf2-print -G threads.otf2/traces.otf2 | grep -c '^LOCATION  ')
[ "$nloc" -gt 2 ] || fail "threads: $nloc locations for 2 ranks with threads"

# --- every example, as test 80 runs them at 4 ranks
example_cases
for c in "${cases[@]}"; do
    name=${c%%|*} args=${c#*|}
    prog=${name%%-*}
    [ "$name" = flash-io ] && prog=flash-io
    mkdir -p "run-$name"
    # shellcheck disable=SC2086
    (cd "run-$name" && SIOT_TRACE=../$name.siot mpirun_np $P "$E/$prog" $args > /dev/null) || fail "$name run"
    otf2check "$name" "$name.siot"
done

# --- refusals, and where the library is linked
"$SIOT" export --otf2 ckpt.otf2 ckpt.siot 2> again.err && fail "an archive already there was overwritten"
grep -q 'already holds an archive' again.err || fail "no reason for refusing an existing archive: $(cat again.err)"
"$SIOT" export --otf2 other.otf2 --sample ckpt.siot 2> sample.err && fail "--otf2 --sample accepted"
grep -q 'no --sample' sample.err || fail "no reason for refusing --sample: $(cat sample.err)"
"$SIOT" export --otf2 small.otf2 --max-events 10 ckpt.siot 2> max.err && fail "--max-events 10 not refused"
grep -q 'more than --max-events 10' max.err || fail "no reason for the --max-events refusal: $(cat max.err)"
[ ! -e small.otf2 ] || fail "a refused export left small.otf2"
# (Debian's libotf2.so is libopen-trace-format2.so.N: asked by its symbols)
nm -D "$SIOT" > siot.syms && nm -D "$B/lib/libsiot.so" > libsiot.syms && nm "$B/lib/libsiotrace.a" > archive.syms 2> /dev/null ||
    fail "nm of siot, libsiot.so or libsiotrace.a"
grep -q ' U OTF2_Archive_Open$' siot.syms || fail "siot does not call the OTF2 library"
! grep -q 'OTF2_' libsiot.syms || fail "libsiot.so refers to OTF2"
! grep -q 'OTF2_' archive.syms || fail "the runtime archive refers to OTF2"
echo "   refusals: an existing archive, --sample, --max-events; libotf2 in siot only"
pass "siot export --otf2: every example, otf2mix and threads read back by otf2-print and the otf2 module, equal to siot stats and the sources"
