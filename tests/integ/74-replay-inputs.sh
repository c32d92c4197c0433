#!/bin/bash
# A replay that proves itself on what real programs do (tests/progs/inputs.c):
# an input deck read to its end with fgets (a file the program did not make),
# per-rank logs at absolute paths (outside the run's directory and inside
# it), a shared file written collectively through
# a derived-datatype view. On 3 ranks `ioreplay --verify` exits 0 and says
# faithful; the deck it staged has the original's size and line lengths (the
# test wrote the deck: known independently); --inputs DIR copies the real
# one; every block of the replayed shared file is written. On MPICH the same
# at the POSIX level, at 3 and 4 ranks (ROMIO's collective open creates the
# file on one rank before the others open it: the replay keeps that order).
# A directory and its files made through doubled slashes and used through
# single ones are one directory and the run's own files, not inputs: the
# replay's mkdir succeeds, and the deck stays the one input staged. A
# directory made by its absolute name inside the run's directory with a
# trailing slash, and statvfs of that directory itself (mdtest's), replay
# with their results (the replay once made the directory before the mkdir,
# as its own parent, and looked for the run's directory under its root).
# And replays that cannot be faithful say so: the same program traced without
# the MPI layer (SIOT_LAYERS=posix,stdio,mpiio) has no constructor for its
# view's datatype: `ioreplay --check` (no mpirun) says so before any I/O, and
# the replay exits 1 with --explain naming each MPI_File_set_view; a program
# whose writes met a file-size limit (transp.c: a short write of 500 bytes,
# then EFBIG) cannot get the same results: exit 1, both calls listed.
# A deck that cannot be staged (its place in the root is a dangling link) is
# named with the reason on stderr, and the replay exits 1.
# A program run again over its old outputs (tests/progs/rerun.c) removes them
# first (MPI_File_delete, unlink) and succeeds: the replay stages them
# (empty) so that its removals succeed too, faithful; run where they are not,
# the removals fail in the run and in the replay alike, faithful again.
# Run again over an old output it does not remove (MPI_MODE_CREATE over it),
# the size MPI_File_get_size recorded at the open says the file was there:
# the replay stages it at that size, faithful; over a shorter file in the
# root, the replay says the size differs (exit 1).
. "$(dirname "$0")/../lib.sh"
build_traced inputs
SRC=$ROOT/tests/progs/inputs.c
def() { c_define "$1" "$SRC"; }
NB=$(def NB) BLK=$(($(def B) * 4))
# the deck: lines of several lengths, an empty one, a long one
{ echo "title  siotrace input deck"; echo; echo "nx 128"; printf 'coeffs %0180d\n' 7; echo "end"; } > deck.txt
replay_check() { # NAME P LEVEL [ioreplay options...]
    local name=$1 np=$2 level=$3
    shift 3
    # NAME-in: the absolute outputs inside the run's directory, which the
    # replay keeps under its root by their names relative to it
    local absdir=$WORK/abs-$name rootabs=root-$name$WORK/abs-$name
    case $name in *-in) absdir=$WORK/orig-$name/abs rootabs=root-$name/abs ;; esac
    rm -rf "orig-$name" "abs-$name" "root-$name"
    mkdir -p "orig-$name" "$absdir"
    (cd "orig-$name" && SIOT_TRACE=$WORK/$name.siot mpirun_np "$np" "$WORK/inputs" ../deck.txt "$absdir") ||
        fail "$name: the original run"
    mpirun_np "$np" "$B/bin/ioreplay" --verify --explain --level "$level" --root "$WORK/root-$name" "$@" \
        "$WORK/$name.siot" > "$name.report" || {
        rc=$?
        cat "$name.report" >&2
        fail "$name: ioreplay --verify exited $rc"
    }
    grep -q "^round trip: faithful" "$name.report" || { cat "$name.report" >&2; fail "$name: not faithful"; }
    # the absolute outputs under the root, of the original's sizes
    for f in "$absdir"/*.*; do
        r=$rootabs/$(basename "$f")
        [ -f "$r" ] && [ "$(stat -c %s "$r")" = "$(stat -c %s "$f")" ] || fail "$name: $r missing or of another size"
    done
    python3 - "$rootabs/shared.dat" "$np" "$NB" "$BLK" <<'PY' || fail "$name: the shared file's blocks"
import sys
data, P, NB, B = open(sys.argv[1], "rb").read(), *map(int, sys.argv[2:])
if len(data) != P * NB * B:
    sys.exit("shared.dat: %d bytes, want %d" % (len(data), P * NB * B))
empty = [k for k in range(P * NB) if data[k * B:(k + 1) * B] == bytes(B)]
if empty:
    sys.exit("blocks never written: %s" % empty)
PY
    echo "   $name ($np ranks, $level level): $(sed -n 's/^round trip: \(faithful ([0-9]* calls\).*/\1)/p' "$name.report"), every block of shared.dat written"
}
replay_check deck3 3 default
# Inside the run's directory (ROMIO's tests given -fname $PWD/testfile): the
# staging took each file there for a directory of that name (the run's
# directory, an ancestor of the path, was measured on the whole path), and
# the replay's opens failed with EISDIR (MPICH's darray_read hung in its
# collective open).
replay_check deck3-in 3 default
# readdir at the end of a directory is no failure: errno 0 in the trace (the
# program checked that errno kept its value)
jsonl deck3.siot | python3 -c '
import json, sys
rd = [e for e in map(json.loads, sys.stdin) if e["func"] == "readdir"]
ends = [e for e in rd if e["ret"] == 0]
if len(rd) != 5 or len(ends) != 1 or ends[0].get("errno", 0) != 0:  # ".", "..", 2 files, the end
    sys.exit("readdir events %s" % [(e["ret"], e.get("errno", 0)) for e in rd])
' || fail "readdir at the end of the directory"
# f0, made as ABSDIR//listed//f0 and appended to as ABSDIR/listed/f0: one
# file in siot stats, opened twice, with the 9 bytes of "appended\n"
"$SIOT" stats --json deck3.siot > deck3.json || fail "siot stats --json deck3.siot"
python3 - deck3.json "$(def NFILES)" <<'PY' || fail "files under two spellings"
import json, sys
# the files inside listed (listed itself, opendir'd, is a row of its own)
rows = [f for f in json.load(open(sys.argv[1]))["files"] if "listed/" in f["name"]]
names = sorted(f["name"].rsplit("/", 2)[-2:][1] for f in rows)
if any("//" in f["name"] for f in rows) or names != ["f%d" % i for i in range(int(sys.argv[2]))]:
    sys.exit("file rows %s" % [f["name"] for f in rows])
f0 = next(f for f in rows if f["name"].endswith("/f0"))
if f0["opens"] != 2 or f0["bytes_written"] != 9:
    sys.exit("f0: %d opens, %d bytes written; the program opens it twice and appends 9 bytes" % (f0["opens"], f0["bytes_written"]))
PY
# the staged deck: the original's size and line lengths, made from the trace alone
python3 - deck.txt root-deck3/deck.txt <<'PY' || fail "the staged deck"
import sys
a, b = (open(f, "rb").read() for f in sys.argv[1:])
if len(a) != len(b) or [len(l) for l in a.split(b"\n")] != [len(l) for l in b.split(b"\n")]:
    sys.exit("staged deck: %d bytes, lines %s; the deck: %d bytes, lines %s"
             % (len(b), [len(l) for l in b.split(b"\n")], len(a), [len(l) for l in a.split(b"\n")]))
PY
grep -q "input files: 1 made from the trace" deck3.report || fail "the report does not say the deck was staged"
# A deck that cannot be staged (a dangling symbolic link in the root where
# it goes: the replay cannot keep that path inside its root) is named with
# the reason, and the replay exits 1; its refusal is counted once, for the
# fopen that the replay refuses (the previous build skipped the deck without
# a word and counted 2 paths refused on rank 0)
rm -rf root-unstaged && mkdir -p root-unstaged && ln -s nowhere root-unstaged/deck.txt
st=0
mpirun_np 3 "$B/bin/ioreplay" --root "$WORK/root-unstaged" deck3.siot > unstaged.report 2> unstaged.err || st=$?
[ $st = 1 ] || { cat unstaged.report unstaged.err >&2; fail "a deck that cannot be staged: ioreplay exited $st, want 1"; }
grep -Eq "^ioreplay: 1 input file not staged: [^ ]*deck\.txt \(a path that cannot be kept inside the replay root\)$" \
    unstaged.err || { cat unstaged.err >&2; fail "a deck that cannot be staged: not named with its reason"; }
grep -Eq "^  paths refused +1 +1 " unstaged.report || { cat unstaged.report >&2; fail "a deck that cannot be staged: refusals"; }
echo "   $(grep '^ioreplay: 1 input file not staged' unstaged.err)"
# --inputs: the real deck, copied
mkdir -p decks && cp deck.txt decks/
replay_check copied3 3 default --inputs "$WORK/decks"
cmp -s deck.txt root-copied3/deck.txt || fail "--inputs: the deck in the root is not the real one"
levels="the default level"
if [ "$MPI" = mpich ]; then
    replay_check posix3 3 posix
    replay_check posix4 4 posix
    replay_check posix3-in 3 posix
    levels="$levels and, on MPICH, the POSIX level (3 and 4 ranks)"
fi
# --check, and a replay that cannot reissue everything
rm -rf orig-nompi abs-nompi && mkdir -p orig-nompi abs-nompi
(cd orig-nompi && SIOT_LAYERS=posix,stdio,mpiio SIOT_TRACE=$WORK/nompi.siot mpirun_np 3 "$WORK/inputs" ../deck.txt \
    "$WORK/abs-nompi") || fail "the run without the MPI layer"
st=0
"$B/bin/ioreplay" --check nompi.siot > check.txt || st=$?
[ $st = 1 ] && grep -Eq "^ +3  MPI_File_set_view: an MPI datatype whose creation is not in the trace" check.txt ||
    { cat check.txt >&2; fail "--check: exit $st, the missing datatype not named"; }
grep -q "^the run recorded without the layers mpi,hdf5,pnetcdf (SIOT_LAYERS)" check.txt ||
    { cat check.txt >&2; fail "--check does not say which layers the run left out"; }
"$B/bin/ioreplay" --check deck3.siot > check-full.txt || { cat check-full.txt >&2; fail "--check refused a full trace"; }
grep -q "^replayable: all" check-full.txt || fail "--check: no verdict on a full trace"
st=0
mpirun_np 3 "$B/bin/ioreplay" --explain --root "$WORK/root-nompi" nompi.siot > nompi.report || st=$?
[ $st = 1 ] || { cat nompi.report >&2; fail "the replay without constructors exited $st, want 1"; }
grep -q "^ioreplay: the run recorded without the layers mpi,hdf5,pnetcdf (SIOT_LAYERS): their calls are not in the trace" nompi.report ||
    { cat nompi.report >&2; fail "the replay does not say which layers the run left out"; }
for r in 0 1 2; do
    grep -Eq "rank $r event [0-9]+ MPI_File_set_view: not reissued: an MPI datatype whose creation is not in the trace" \
        nompi.report || { cat nompi.report >&2; fail "--explain does not list rank $r's MPI_File_set_view"; }
done
echo "   without the MPI layer: --check and --explain name the 3 MPI_File_set_view with no datatype; exit 1"
build_traced transp
mkdir -p orig-fsize && (cd orig-fsize && SIOT_TRACE=$WORK/fsize.siot mpirun_np 2 "$WORK/transp" > /dev/null) ||
    fail "transp with its file-size limit"
st=0
mpirun_np 2 "$B/bin/ioreplay" --explain --root "$WORK/root-fsize" fsize.siot > fsize.report || st=$?
[ $st = 1 ] || { cat fsize.report >&2; fail "the replay of writes past a file-size limit exited $st, want 1"; }
for r in 0 1; do
    grep -Eq "rank $r event [0-9]+ pwrite: returned 1000, recorded 500$" fsize.report &&
        grep -Eq "rank $r event [0-9]+ pwrite: returned 1000, recorded -1$" fsize.report ||
        { cat fsize.report >&2; fail "--explain does not list rank $r's short and EFBIG writes"; }
done
echo "   past a file-size limit: the short write and the EFBIG listed with both results; exit 1"
build_traced rerun
for old in with without; do
    rm -rf "orig-$old" "root-$old" && mkdir -p "orig-$old"
    [ $old = with ] && echo "the last run's output" > "orig-$old/out.dat" && echo "the last run's log" > "orig-$old/log.txt"
    (cd "orig-$old" && SIOT_TRACE=$WORK/rerun-$old.siot mpirun_np 2 "$WORK/rerun" .) || fail "rerun $old old outputs"
    st=0
    mpirun_np 2 "$B/bin/ioreplay" --verify --explain --root "$WORK/root-$old" "rerun-$old.siot" > "rerun-$old.report" || st=$?
    [ $st = 0 ] || { cat "rerun-$old.report" >&2; fail "rerun $old old outputs: ioreplay --verify exited $st"; }
    grep -q "^round trip: faithful" "rerun-$old.report" || { cat "rerun-$old.report" >&2; fail "rerun $old old outputs: not faithful"; }
done
NB=$(sed -n "s/^#define NB \([0-9]*\).*/\1/p" "$ROOT/tests/progs/rerun.c")
jsonl rerun-with.siot | python3 -c '
import json, sys
ev = [e for e in map(json.loads, sys.stdin) if e["rank"] == 0 and e["parent"] == -1]
rm = [(e["func"], e["ret"]) for e in ev if e["func"] in ("MPI_File_delete", "unlink")]
if rm != [("MPI_File_delete", 0), ("unlink", 0)]:
    sys.exit("the removals of the old outputs: %s" % rm)
' || fail "rerun: the recorded removals"
[ "$(stat -c %s root-with/out.dat)" = $((2 * NB * 4)) ] || fail "rerun: the replayed out.dat is not 2 ranks x $NB ints"
echo "   old outputs removed first: staged empty, removals replayed with their results, faithful with and without them"
# run over an old output it keeps (no delete): the size MPI_File_get_size
# gave at the open, the old file's (the test wrote it: OLD bytes, larger
# than anything the run writes), says the file was there; the replay stages
# it at that size, so that the size, the non-creating opens of the other
# ranks (POSIX level) and the file's final size are the run's
OLD=100000
klevels=default
[ "$MPI" = mpich ] && klevels="default posix"
for level in $klevels; do
    rm -rf orig-keep "root-keep-$level" && mkdir -p orig-keep
    head -c $OLD /dev/zero > orig-keep/out.dat
    (cd orig-keep && SIOT_TRACE=$WORK/keep.siot mpirun_np 2 "$WORK/rerun" . keep) || fail "rerun over a kept output"
    [ "$level" = default ] && { jsonl keep.siot | python3 -c '
import json, sys
got = [e["args"]["size"] for e in map(json.loads, sys.stdin) if e["func"] == "MPI_File_get_size"]
if got != [int(sys.argv[1])] * 2:
    sys.exit("MPI_File_get_size recorded %s, want the old size %s on both ranks" % (got, sys.argv[1]))
' $OLD || fail "rerun keep: the recorded size at the open"; }
    st=0
    mpirun_np 2 "$B/bin/ioreplay" --verify --explain --level "$level" --root "$WORK/root-keep-$level" keep.siot \
        > "keep-$level.report" || st=$?
    [ $st = 0 ] || { cat "keep-$level.report" >&2; fail "rerun over a kept output, $level level: ioreplay --verify exited $st"; }
    grep -q "^round trip: faithful" "keep-$level.report" || { cat "keep-$level.report" >&2; fail "rerun keep ($level): not faithful"; }
    [ "$(stat -c %s "root-keep-$level/out.dat")" = "$(stat -c %s orig-keep/out.dat)" ] ||
        fail "rerun keep ($level): the replayed out.dat is $(stat -c %s "root-keep-$level/out.dat") bytes, the run's $(stat -c %s orig-keep/out.dat)"
done
# the same trace replayed over a shorter file already in the root: the size
# at the open differs, and the replay says so (exit 1, MPI_File_get_size)
rm -rf root-short && mkdir -p root-short && head -c 10 /dev/zero > root-short/out.dat
st=0
mpirun_np 2 "$B/bin/ioreplay" --explain --root "$WORK/root-short" keep.siot > short.report || st=$?
[ $st = 1 ] && grep -Eq "MPI_File_get_size: returned 10, recorded $OLD" short.report ||
    { cat short.report >&2; fail "a size at the open other than the run's: exit $st, MPI_File_get_size not listed"; }
echo "   old output kept: staged at its size ($OLD B), faithful at $klevels; a shorter one in the root: exit 1, MPI_File_get_size listed"
pass "input deck staged (from the trace, or copied), absolute paths, derived-datatype collective view: faithful at $levels; --check and --explain name what cannot be replayed"
