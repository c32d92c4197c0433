#!/bin/bash
# MPI_File_set_view with a filetype from every datatype constructor the
# spec knows (tests/progs/views.c: contiguous, vector, hvector, indexed,
# hindexed, indexed_block, hindexed_block, struct, subarray, darray,
# resized, dup): each is recorded with its constructor, `ioreplay --verify`
# is faithful, and each replayed file has every 4-byte word the program
# wrote filled: the words each filetype covers, worked out by hand from
# views.c, which must hold the program's values 1000*(rank+1)+i in the
# original (the holes between them hold whatever the MPI-IO library put
# there, and are not compared). (The
# MPI-1 names MPI_Type_struct/hvector/hindexed, which C headers no longer
# declare: test 83, from Fortran.)
. "$(dirname "$0")/../lib.sh"
build_traced views
P=3
NTYPES=$(sed -n 's/^#define NTYPES \([0-9]*\).*/\1/p' "$ROOT/tests/progs/views.c")
# Also at the POSIX level. On MPICH, ROMIO's own datatype calls inside
# the collective writes (recorded with the static link, not reissued at
# that level) shift the recorder's ids of the datatypes made after them
# (--verify compares MPI objects by creation order), and an aggregator's
# data-sieving read returns the size other aggregators' writes had
# extended the file to (not compared, counted in the verdict). On Open
# MPI, every rank opens FILE.locktest.N with O_CREAT inside MPI_File_open
# before the file itself: the replay orders the ranks' opens around the
# creating open of the file itself, not of that one (replay/order.c).
levels="default posix"
for level in $levels; do
    ROUNDTRIP_LEVEL=$level roundtrip "views-$level" $P "$WORK/views"
    jsonl "views-$level.orig.siot" > "views-$level.jsonl"
    python3 - "orig-views-$level" "root-views-$level" "$NTYPES" $P "views-$level.jsonl" <<'PY' || fail "views ($level): the replayed files"
import json, os, struct, sys
orig, rep, n, P = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
REGION = 256 // 4  # views.c EXTENT: rank r's region starts at word r * REGION (not v-09: darray)
# The words each filetype covers, in the order its ints are written, worked
# out by hand from the constructors' arguments in views.c (vector(3,2,4):
# 0,1,4,5,8,9; hvector stride 24 bytes: 6 words; subarray {4,8} of {2,4}
# at {1,2}, C order: rows 1-2, columns 2-5; darray: 12 ints per rank from
# word 0; resized vector(2,1,2): 0,2; dup of vector(2,2,3): 0,1,3,4).
COVER = [list(range(8)), [0, 1, 4, 5, 8, 9], [0, 1, 6, 7, 12, 13], [0, 3, 4, 7], [0, 1, 5, 6, 7],
         [0, 1, 4, 5, 8, 9], [0, 1, 2, 8, 9, 10], [0, 1, 4], [10, 11, 12, 13, 18, 19, 20, 21],
         list(range(12)), [0, 2], [0, 1, 3, 4]]
if len(COVER) != n:
    sys.exit("views.c makes %d filetypes, this test knows %d" % (n, len(COVER)))
# the ints each file's MPI_File_write_all took from buf (buf[0..count) of each rank)
counts = [json.loads(l)["args"]["count"] for l in open(sys.argv[5]) if '"func":"MPI_File_write_all"' in l and '"rank":0,' in l]
if counts != [len(c) for c in COVER]:
    sys.exit("MPI_File_write_all counts on rank 0: %s, the filetypes' sizes give %s" % (counts, [len(c) for c in COVER]))
word = lambda data, i: struct.unpack_from("<i", data, 4 * i)[0] if 4 * i + 4 <= len(data) else None
for k in range(n):
    name = "v-%02d.dat" % k
    a, b = (open(os.path.join(d, name), "rb").read() for d in (orig, rep))
    # only the words the program wrote: the holes between them hold whatever
    # the MPI-IO library put there (OMPIO can leave an earlier file's values
    # from its collective buffers), and need not match
    for r in range(P):
        base = 12 * r if k == 9 else REGION * r
        for i, w in enumerate(COVER[k]):
            at = base + w
            if word(a, at) != 1000 * (r + 1) + i:
                sys.exit("%s: word %d holds %s in the original, views.c writes %d there" % (name, at, word(a, at), 1000 * (r + 1) + i))
            if word(b, at) in (None, 0):
                sys.exit("%s: word %d (rank %d's int %d) is empty in the replay" % (name, at, r, i))
PY
done
jsonl views-default.orig.siot > v.jsonl
for f in MPI_Type_contiguous MPI_Type_vector MPI_Type_create_hvector MPI_Type_indexed MPI_Type_create_hindexed \
    MPI_Type_create_indexed_block MPI_Type_create_hindexed_block MPI_Type_create_struct MPI_Type_create_subarray \
    MPI_Type_create_darray MPI_Type_create_resized MPI_Type_dup; do
    [ "$(grep -c "\"func\":\"$f\"" v.jsonl)" -ge $P ] || fail "$f: not recorded on every rank"
done
pass "file views from $NTYPES constructors: recorded, replayed faithfully at the levels $levels, every written word filled"
