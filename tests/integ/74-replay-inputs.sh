#!/bin/bash
# A replay that proves itself on what real programs do (tests/progs/inputs.c):
# an input deck read to its end with fgets (a file the program did not make),
# per-rank logs at absolute paths, a shared file written collectively through
# a derived-datatype view. On 3 ranks `ioreplay --verify` exits 0 and says
# faithful; the deck it staged has the original's size and line lengths (the
# test wrote the deck: known independently); --inputs DIR copies the real
# one; every block of the replayed shared file is written. On MPICH the same
# at the POSIX level, at 3 and 4 ranks (ROMIO's collective open creates the
# file on one rank before the others open it: the replay keeps that order).
. "$(dirname "$0")/../lib.sh"
build_traced inputs
SRC=$ROOT/tests/progs/inputs.c
def() { sed -n "s/^#define $1 \([0-9]*\).*/\1/p" "$SRC"; }
NB=$(def NB) BLK=$(($(def B) * 4))
# the deck: lines of several lengths, an empty one, a long one
{ echo "title  siotrace input deck"; echo; echo "nx 128"; printf 'coeffs %0180d\n' 7; echo "end"; } > deck.txt
replay_check() { # NAME P LEVEL [ioreplay options...]
    local name=$1 np=$2 level=$3
    shift 3
    rm -rf "orig-$name" "abs-$name" "root-$name"
    mkdir -p "orig-$name" "abs-$name"
    (cd "orig-$name" && SIOT_TRACE=$WORK/$name.siot mpirun_np "$np" "$WORK/inputs" ../deck.txt "$WORK/abs-$name") ||
        fail "$name: the original run"
    mpirun_np "$np" "$B/bin/ioreplay" --verify --explain --level "$level" --root "$WORK/root-$name" "$@" \
        "$WORK/$name.siot" > "$name.report" || { cat "$name.report" >&2; fail "$name: ioreplay --verify exited $?"; }
    grep -q "^round trip: faithful" "$name.report" || { cat "$name.report" >&2; fail "$name: not faithful"; }
    # the absolute outputs under the root, of the original's sizes
    for f in "abs-$name"/*; do
        r="root-$name$WORK/$f"
        [ -f "$r" ] && [ "$(stat -c %s "$r")" = "$(stat -c %s "$f")" ] || fail "$name: $r missing or of another size"
    done
    python3 - "root-$name$WORK/abs-$name/shared.dat" "$np" "$NB" "$BLK" <<'PY' || fail "$name: the shared file's blocks"
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
# the staged deck: the original's size and line lengths, made from the trace alone
python3 - deck.txt root-deck3/deck.txt <<'PY' || fail "the staged deck"
import sys
a, b = (open(f, "rb").read() for f in sys.argv[1:])
if len(a) != len(b) or [len(l) for l in a.split(b"\n")] != [len(l) for l in b.split(b"\n")]:
    sys.exit("staged deck: %d bytes, lines %s; the deck: %d bytes, lines %s"
             % (len(b), [len(l) for l in b.split(b"\n")], len(a), [len(l) for l in a.split(b"\n")]))
PY
grep -q "input files: 1 made from the trace" deck3.report || fail "the report does not say the deck was staged"
# --inputs: the real deck, copied
mkdir -p decks && cp deck.txt decks/
replay_check copied3 3 default --inputs "$WORK/decks"
cmp -s deck.txt root-copied3/deck.txt || fail "--inputs: the deck in the root is not the real one"
levels="the default level"
if [ "$MPI" = mpich ]; then
    replay_check posix3 3 posix
    replay_check posix4 4 posix
    levels="$levels and, on MPICH, the POSIX level (3 and 4 ranks)"
fi
pass "input deck staged (from the trace, or copied), absolute paths, derived-datatype collective view: faithful at $levels"
