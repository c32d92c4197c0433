#!/bin/bash
# Datatypes a library makes and frees where the tracer cannot see
# (tests/progs/libfrees.c: PMPI calls, as MPI-IO copies and frees the
# program's types). MPI reuses their handle values, in an order that rank 0's
# extra frees change; the tracer learns of each free from an attribute's
# delete callback, so a reused handle value is a new type with the lowest
# free id. The ids are worked out from the program's source and the
# numbering rule of docs/handles.md: t 256; each iteration x 257, y 258,
# z 259, on every rank. The folded trace keeps them as constants: one loop,
# no table of values by iteration or by rank. Then MANY types freed unseen
# with no traced call between overflow the 256 frees kept waiting: the
# trace's note handle_frees_lost gives MANY - 256 on each rank.
. "$(dirname "$0")/../lib.sh"
build_traced libfrees
SRC=$ROOT/tests/progs/libfrees.c
ITERS=$(c_define ITERS "$SRC")
EXTENT=$(c_define EXTENT "$SRC")
MANY=$(c_define MANY "$SRC")
P=4
mpirun_np $P ./libfrees.plain || fail "untraced run"
SIOT_TRACE=$WORK/f.siot mpirun_np $P ./libfrees || fail "traced run"
jsonl f.siot > f.jsonl
python3 - f.jsonl "$P" "$ITERS" "$EXTENT" "$MANY" <<'PY' || fail "datatype ids"
import json, sys
path, P, iters, extent, many = sys.argv[1], *map(int, sys.argv[2:])
want_loop = [
    ("MPI_Type_create_resized", {"oldtype": 257, "lb": 0, "extent": extent, "newtype": 258}),
    ("MPI_Type_commit", {"datatype": 258}),
    ("MPI_Type_dup", {"oldtype": 258, "newtype": 259}),
    ("MPI_Type_free", {"datatype": 259}),
]
want = ([("MPI_Type_contiguous", {"count": 2, "newtype": 256}), ("MPI_Type_commit", {"datatype": 256})]
        + want_loop * iters
        + [("MPI_Type_contiguous", {"count": i + 1, "newtype": 257 + i}) for i in range(many)]
        + [("MPI_Type_free", {"datatype": 256})])
got = {r: [] for r in range(P)}
for line in open(path):
    e = json.loads(line)
    if e["func"].startswith("MPI_Type_"):
        got[e["rank"]].append((e["func"], e["args"]))
for r in range(P):
    if len(got[r]) != len(want):
        sys.exit(f"rank {r}: {len(got[r])} MPI_Type_ events, want {len(want)}")
    for i, ((f, a), (wf, wa)) in enumerate(zip(got[r], want)):
        bad = {k: a.get(k) for k, v in wa.items() if a.get(k) != v}
        if f != wf or bad:
            sys.exit(f"rank {r} event {i}: {f} {bad or ''}, want {wf} {wa}")
PY
"$SIOT" dump f.siot > f.txt || fail "siot dump"
grep -q "loop x$ITERS {" f.txt || fail "no loop of $ITERS iterations in the dump"
grep -q 'MPI_Type_create_resized(oldtype=257, lb=0, extent='"$EXTENT"', newtype=258)' f.txt ||
    fail "create_resized not folded to constant ids: $(grep create_resized f.txt | cut -c1-200)"
grep -q "by-i0" f.txt && fail "a value by iteration is left in the trace: $(grep by-i0 f.txt | cut -c1-200)"
lost=$("$SIOT" dump f.siot | sed -n 's/.*note handle_frees_lost: \([0-9]*\) .*/\1/p' | sort -u)
[ "$lost" = $((MANY - 256)) ] || fail "note handle_frees_lost gives '$lost', want $((MANY - 256))"
pass "types freed unseen: their ids freed (x 257, y 258, z 259 in all $ITERS iterations on $P ranks), one loop"
