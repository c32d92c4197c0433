#!/bin/bash
# slots: 4
# Datatypes built from absolute addresses (tests/progs/typeaddr.c):
# hindexed, hindexed_block and struct types from MPI_Get_address of the
# fields of a struct array on the heap (and of a record on the stack), used
# with MPI_BOTTOM in MPI_File_write_at_all, MPI_File_write_at, MPI_Send and
# MPI_Recv, and one decoded with MPI_Type_get_contents. Addresses differ on
# every rank; the tracer records them relative to the lowest of each array
# (src/addrs.h), so at 4 and at 16 ranks:
# - every rank records the displacements the record layout gives (the
#   offsets of struct rec's fields and its size, from Python's ctypes, which
#   lays out a C struct by the platform's ABI), and a file type's byte
#   displacements (FT_D0, FT_D1: above 64 KiB, not addresses) exactly;
# - no datatype event of the dump holds a per-rank value, and each is
#   printed the same at both counts (the dump prints each value's encoding:
#   constant, array, range; the same text is the same bytes), and no
#   displacement array is among the largest parts of the trace (before: at
#   16 ranks, 4,194 B for each array of 32 addresses, the largest events);
# - the trace's note counts the 5 arrays of addresses of each rank;
# - the file holds what the source says (its #defines);
# - the replay is faithful at both levels, with files of the same sizes.
. "$(dirname "$0")/../lib.sh"
build_traced typeaddr
SRC=$ROOT/tests/progs/typeaddr.c
defs=""
for d in NREC NVAL RANK_BYTES RECV_AT ID_MUL VAL_MUL FT_D0 FT_D1 FT_VAL; do
    defs="$defs $d=$(c_define $d "$SRC")"
done
for P in 4 16; do
    rm -f typeaddr.dat
    SIOT_TRACE=$WORK/t$P.siot mpirun_np $P ./typeaddr || fail "traced run at P=$P"
    jsonl t$P.siot > t$P.jsonl
    python3 - t$P.jsonl typeaddr.dat "$P" $defs <<'PY' || fail "recorded displacements or file contents at P=$P"
import ctypes, json, struct, sys
path, data, P = sys.argv[1], sys.argv[2], int(sys.argv[3])
D = {k: int(v) for k, v in (a.split("=") for a in sys.argv[4:])}
NREC, NVAL = D["NREC"], D["NVAL"]
class Rec(ctypes.Structure):  # struct rec of typeaddr.c
    _fields_ = [("id", ctypes.c_int), ("val", ctypes.c_double * NVAL), ("tag", ctypes.c_char)]
size = ctypes.sizeof(Rec)
fields = [Rec.id.offset, Rec.val.offset, Rec.tag.offset]
want = {  # relative to the lowest address: the record layout
    "MPI_Type_create_hindexed": [[i * size for i in range(NREC)]],
    "MPI_Type_create_struct": [[f - fields[0] for f in fields]] * 2,
    "MPI_Type_create_hindexed_block": [[i * size for i in range(NREC)], [D["FT_D0"], D["FT_D1"]]],
}
seen = {r: {f: [] for f in want} for r in range(P)}
contents = {r: [] for r in range(P)}
for line in open(path):
    e = json.loads(line)
    if e["func"] in want:
        seen[e["rank"]][e["func"]].append(e["args"]["array_of_displacements"])
    elif e["func"] == "MPI_Type_get_contents":
        contents[e["rank"]].append(e["args"]["array_of_addresses"])
for r in range(P):
    if seen[r] != want:
        sys.exit(f"rank {r}: displacements {seen[r]}, want {want}")
    if contents[r] != want["MPI_Type_create_hindexed"]:
        sys.exit(f"rank {r}: get_contents addresses {contents[r]}")
b = open(data, "rb").read()
def at(off, fmt):
    return struct.unpack_from(fmt, b, off)
for r in range(P):
    base = r * D["RANK_BYTES"]
    vals = at(base, f"{NREC * NVAL}d")
    ids = at(base + 8 * NREC * NVAL, f"{NREC}i")
    rec0 = at(base + (8 * NVAL + 4) * NREC, f"=i{NVAL}dc")
    prev = (r + P - 1) % P
    got = at(base + D["RECV_AT"], f"=i{NVAL}dc")
    if list(vals) != [r * D["VAL_MUL"] + k for k in range(NREC * NVAL)]:
        sys.exit(f"rank {r}: values {vals[:6]}...")
    if list(ids) != [r * D["ID_MUL"] + i for i in range(NREC)]:
        sys.exit(f"rank {r}: ids {ids}")
    for who, rec in ((r, rec0), (prev, got)):
        w = (who * D["ID_MUL"],) + tuple(float(who * D["VAL_MUL"] + j) for j in range(NVAL)) + (b"a",)
        if rec != w:
            sys.exit(f"rank {r}: record {rec}, want {w}")
    ft = (at(4 * r + D["FT_D0"], "i")[0], at(4 * r + D["FT_D1"], "i")[0])
    if ft != (D["FT_VAL"] + r, D["FT_VAL"] + r + 1):
        sys.exit(f"rank {r}: through the view {ft}")
PY
    "$SIOT" dump t$P.siot > dump$P.txt || fail "siot dump at P=$P"
    grep -E '^\[r[^]]*\] MPI_Type_(create_|get_contents)' dump$P.txt | sed 's/^\[[^]]*\] //; s/ comp=.*//' > types$P.txt
    [ "$(wc -l < types$P.txt)" = 6 ] || fail "P=$P: $(wc -l < types$P.txt) datatype events in the dump, want 6"
    grep -E 'rank|\{r' types$P.txt && fail "P=$P: a datatype event holds a per-rank value"
    # per rank: hx, hb, st, st_in and get_contents' addresses (not ft's byte displacements)
    grep -q "note address_displacements: $((5 * P)) " dump$P.txt || fail "P=$P: note address_displacements"
    # before: at 16 ranks the hindexed types' displacements took 4,194 B each, the largest events
    "$SIOT" dump --sizes t$P.siot > sizes$P.txt || fail "siot dump --sizes at P=$P"
    grep -E 'MPI_Type_.* B in array_of_(displacements|addresses)' sizes$P.txt &&
        fail "P=$P: displacements among the largest parts of the trace"
done
diff types4.txt types16.txt > /dev/null || { diff types4.txt types16.txt >&2; fail "datatype events differ from 4 to 16 ranks"; }
echo "   datatype events at P=4 and 16: $(grep -Eo 'array_of_displacements=(range\([^)]*\)|\[[^]]*\])' types16.txt | sed 's/.*=//' | tr '\n' ' ')"
for level in default posix; do
    ROUNDTRIP_LEVEL=$level roundtrip addr-$level 4 "$WORK/typeaddr"
done
pass "address displacements recorded relative to the lowest (the same at 4 and 16 ranks, no per-rank value), byte displacements exact, file as the source says, replay faithful"
