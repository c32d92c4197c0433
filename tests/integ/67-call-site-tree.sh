#!/bin/bash
# Format minor 1 (docs/format.md). FLASH-IO's call sites (HDF5 over MPI-IO
# over POSIX, 8 frames deep, most sharing their outer frames) take at most
# what the tree form allows for the sites the trace lists
# (tests/py/site_tree_bound.py: distinct frames, distinct chains from the
# outermost frame, every number at its widest), and less than the flat
# form's least (2 bytes a frame). Read and written again (siot merge of the
# one file) the trace dumps the same, sites, histograms and all. Traces of
# minor 0 (two of the fuzzer's seeds, written before minor 1) still read, and
# written again (now as the current minor, whose trees are minor 1's) they
# are smaller and hold the same events (`siot dump --jsonl`, `siot diff`)
# and the same call-site tree, histograms and all but for the standard
# deviations, which minor 6 keeps to 2^-10 (they print to 3 digits: the last
# can move). Their structure may be written in fewer nodes: `siot merge`
# makes rank 0's last pass as MPI_Finalize does, which folds what these old
# traces kept as rank tables into the later forms by the rank's residue and
# quotient (`{r0-5:1+1*rank r6-7:49-7*rank}` becomes `1+1*(rank%7)-1*(rank/7)`).
. "$(dirname "$0")/../lib.sh"
same_dump() { # A B [SD]: siot dump of both, the same but for the file name (and with SD the deviations)
    local mask=s/^//
    [ "${3:-}" = SD ] && mask='s/ sd=[^ ]* / sd=* /g'
    "$SIOT" dump "$1" | tail -n +2 | sed "$mask" > a.dump && "$SIOT" dump "$2" | tail -n +2 | sed "$mask" > b.dump ||
        fail "siot dump $1 $2"
    cmp -s a.dump b.dump || { diff a.dump b.dump | head -5 >&2; fail "$1 and $2 dump differently"; }
    "$SIOT" diff "$1" "$2" > /dev/null || fail "siot diff $1 $2"
}
same_events() { # A B: every event the same (siot dump --jsonl), and siot diff says so
    "$SIOT" dump --jsonl "$1" > a.jsonl && "$SIOT" dump --jsonl "$2" > b.jsonl || fail "siot dump --jsonl $1 $2"
    cmp -s a.jsonl b.jsonl || { diff a.jsonl b.jsonl | head -5 >&2; fail "$1 and $2 hold different events"; }
    [ -s a.jsonl ] || fail "$1 holds no events"
    "$SIOT" diff "$1" "$2" > /dev/null || fail "siot diff $1 $2"
    # the call sites and histograms: the dump's lines of sites and timing
    "$SIOT" dump "$1" | grep -o '@s[0-9]* comp={[^}]*} dur={[^}]*}' | sed 's/ sd=[^ ]* / sd=* /g' | sort > a.sites &&
        "$SIOT" dump "$2" | grep -o '@s[0-9]* comp={[^}]*} dur={[^}]*}' | sed 's/ sd=[^ ]* / sd=* /g' | sort > b.sites ||
        fail "siot dump $1 $2"
    [ -s a.sites ] && cmp -s a.sites b.sites || { diff a.sites b.sites | head -5 >&2; fail "$1 and $2: other sites or histograms"; }
}
minor() { od -An -tu1 -j10 -N1 "$1" | tr -d ' '; }
CUR=$(sed -n 's/^#define SIOT_FORMAT_MINOR \([0-9]*\).*/\1/p' "$ROOT/core/format.h")
[ "${CUR:-0}" -ge 1 ] || fail "no format minor in core/format.h"

SIOT_TRACE=$WORK/f.siot mpirun_np 4 "$B/examples/flash-io" > /dev/null || fail "flash-io"
"$SIOT" dump f.siot > f.dump || fail "siot dump"
[ "$(minor f.siot)" = "$CUR" ] || fail "the trace is not of minor $CUR"
sec=$("$SIOT" dump --sizes f.siot | sed -n 's/.*call sites \([0-9]*\),.*/\1/p')
[ -n "$sec" ] || fail "siot dump --sizes names no call-site section"
py site_tree_bound.py f.dump "$sec" || fail "the call-site section is not the tree's size"
"$SIOT" merge -o again.siot f.siot || fail "siot merge of the one trace"
same_dump f.siot again.siot

for seed in 80-examples_ior-hdf5-4.replay 50-merge-lossless_ckpt-8; do
    old=$ROOT/tests/fuzz/corpus/$seed.siot
    [ "$(minor "$old")" = 0 ] || fail "$seed is not a trace of minor 0"
    "$SIOT" merge -o new.siot "$old" || fail "siot merge $seed"
    [ "$(minor new.siot)" = "$CUR" ] || fail "$seed written again is not of minor $CUR"
    [ "$(trace_size new.siot)" -lt "$(trace_size "$old")" ] || fail "$seed is not smaller as minor $CUR"
    same_events "$old" new.siot
    echo "   $seed: $(trace_size "$old") bytes as minor 0, $(trace_size new.siot) as minor $CUR, the same events, sites and histograms"
done
pass "FLASH-IO's call sites within the tree's bound ($sec bytes), the same dump written again; minor-0 traces read and written as minor $CUR"
