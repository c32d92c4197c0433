/* Datatypes of absolute addresses (test 33-type-addresses): each rank fills
 * NREC records (struct rec: an int id, NVAL doubles, a char tag) on the heap
 * and describes them by MPI_Get_address of their fields, as PnetCDF's
 * flexible API and HDF5 describe buffers used with MPI_BOTTOM:
 *
 *   hx = MPI_Type_create_hindexed(NREC, NVAL each, &r[i].val, MPI_DOUBLE)
 *   hb = MPI_Type_create_hindexed_block(NREC, 1, &r[i].id, MPI_INT)
 *   st = MPI_Type_create_struct(3, {1, NVAL, 1}, {&r[0].id, &r[0].val, &r[0].tag},
 *                               {MPI_INT, MPI_DOUBLE, MPI_CHAR})
 *
 * and writes from MPI_BOTTOM at rank * RANK_BYTES: hx with
 * MPI_File_write_at_all (the NREC*NVAL doubles), then hb and st with
 * MPI_File_write_at (the NREC ids, then record 0 packed: id, values, tag).
 * Record 0 goes to the next rank with MPI_Send(MPI_BOTTOM, st), which
 * receives it with MPI_Recv(MPI_BOTTOM, st_in), st_in built the same way
 * on a record on the stack, and writes it at rank * RANK_BYTES + RECV_AT.
 * hx is decoded once with MPI_Type_get_contents (its addresses).
 *
 * A type of byte displacements that are not addresses, though above 64 KiB:
 * ft = MPI_Type_create_hindexed_block(2, 1, {FT_D0, FT_D1}, MPI_INT), the
 * file type of a view at rank * sizeof(int) through which each rank writes
 * the two ints FT_VAL + rank and FT_VAL + rank + 1.
 *
 * Values: r[i].id = rank * ID_MUL + i, r[i].val[j] = rank * VAL_MUL + i * NVAL
 * + j, r[i].tag = 'a' + i. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/progs/mpi_check.h"

#define NREC 32
#define NVAL 3
#define RANK_BYTES 1024
#define RECV_AT 960
#define ID_MUL 100
#define VAL_MUL 1000
#define FT_D0 70000
#define FT_D1 170000
#define FT_VAL 7000

struct rec {
    int id;
    double val[NVAL];
    char tag;
};

static int rank, size;

static void fill(struct rec *r)
{
    for (int i = 0; i < NREC; i++) {
        r[i].id = rank * ID_MUL + i;
        for (int j = 0; j < NVAL; j++)
            r[i].val[j] = rank * VAL_MUL + i * NVAL + j;
        r[i].tag = (char)('a' + i);
    }
}

/* The struct of one record's three fields, at their absolute addresses. */
static MPI_Datatype record_type(struct rec *r)
{
    int len[3] = {1, NVAL, 1};
    MPI_Aint at[3];
    MPI_Datatype parts[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, t;
    CHECK(MPI_Get_address(&r->id, &at[0]));
    CHECK(MPI_Get_address(r->val, &at[1]));
    CHECK(MPI_Get_address(&r->tag, &at[2]));
    CHECK(MPI_Type_create_struct(3, len, at, parts, &t));
    CHECK(MPI_Type_commit(&t));
    return t;
}

static void build(struct rec *r, MPI_Datatype *hx, MPI_Datatype *hb)
{
    int len[NREC];
    MPI_Aint vals[NREC], ids[NREC];
    for (int i = 0; i < NREC; i++) {
        len[i] = NVAL;
        CHECK(MPI_Get_address(r[i].val, &vals[i]));
        CHECK(MPI_Get_address(&r[i].id, &ids[i]));
    }
    CHECK(MPI_Type_create_hindexed(NREC, len, vals, MPI_DOUBLE, hx));
    CHECK(MPI_Type_create_hindexed_block(NREC, 1, ids, MPI_INT, hb));
    CHECK(MPI_Type_commit(hx));
    CHECK(MPI_Type_commit(hb));
}

/* get_contents of hx: its addresses are those it was built from. */
static void decode(MPI_Datatype hx, struct rec *r)
{
    int ni, na, nd, combiner, ints[NREC + 1];
    MPI_Aint addrs[NREC];
    MPI_Datatype types[1];
    CHECK(MPI_Type_get_envelope(hx, &ni, &na, &nd, &combiner));
    if (combiner != MPI_COMBINER_HINDEXED || ni != NREC + 1 || na != NREC || nd != 1) {
        fprintf(stderr, "typeaddr: envelope %d %d %d %d\n", combiner, ni, na, nd);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    CHECK(MPI_Type_get_contents(hx, ni, na, nd, ints, addrs, types));
    if (addrs[1] - addrs[0] != (MPI_Aint)((char *)&r[1] - (char *)&r[0])) {
        fprintf(stderr, "typeaddr: get_contents addresses %ld apart\n", (long)(addrs[1] - addrs[0]));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Record 0 to the next rank, from the previous into a record on the stack. */
static void pass_on(MPI_Datatype st, MPI_File fh)
{
    struct rec in = {0};
    MPI_Datatype st_in = record_type(&in);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (rank % 2 == 0)
        CHECK(MPI_Send(MPI_BOTTOM, 1, st, next, 5, MPI_COMM_WORLD));
    CHECK(MPI_Recv(MPI_BOTTOM, 1, st_in, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (rank % 2 == 1)
        CHECK(MPI_Send(MPI_BOTTOM, 1, st, next, 5, MPI_COMM_WORLD));
    if (in.id != prev * ID_MUL || in.val[NVAL - 1] != prev * VAL_MUL + NVAL - 1 || in.tag != 'a') {
        fprintf(stderr, "typeaddr: rank %d received id %d\n", rank, in.id);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    CHECK(MPI_File_write_at(fh, (MPI_Offset)rank * RANK_BYTES + RECV_AT, MPI_BOTTOM, 1, st_in, MPI_STATUS_IGNORE));
    CHECK(MPI_Type_free(&st_in));
}

/* Byte displacements that are not addresses stay as the program gave them. */
static void through_view(MPI_File fh)
{
    MPI_Aint d[2] = {FT_D0, FT_D1};
    int v[2] = {FT_VAL + rank, FT_VAL + rank + 1};
    MPI_Datatype ft;
    CHECK(MPI_Type_create_hindexed_block(2, 1, d, MPI_INT, &ft));
    CHECK(MPI_Type_commit(&ft));
    CHECK(MPI_File_set_view(fh, (MPI_Offset)rank * (MPI_Offset)sizeof(int), MPI_INT, ft, "native", MPI_INFO_NULL));
    CHECK(MPI_File_write_all(fh, v, 2, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(MPI_Type_free(&ft));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct rec *r = calloc(NREC, sizeof *r);
    if (!r)
        MPI_Abort(MPI_COMM_WORLD, 1);
    fill(r);
    MPI_Datatype hx, hb, st;
    build(r, &hx, &hb);
    st = record_type(&r[0]);
    decode(hx, r);
    MPI_File fh;
    MPI_Offset at = (MPI_Offset)rank * RANK_BYTES;
    CHECK(MPI_File_open(MPI_COMM_WORLD, "typeaddr.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    CHECK(MPI_File_write_at_all(fh, at, MPI_BOTTOM, 1, hx, MPI_STATUS_IGNORE));
    /* The independent writes below go between the ranks' collective data.
     * Open MPI's collective write can still be writing a range that spans
     * those gaps (with the bytes it found there) after a rank has returned
     * from it: untraced, 16 ranks left some ranks' ids zero in 2 of 6 runs.
     * MPI's rule for accesses that must not race in nonatomic mode:
     * sync, barrier, sync. */
    CHECK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_File_sync(fh));
    CHECK(MPI_File_write_at(fh, at + NREC * NVAL * (MPI_Offset)sizeof(double), MPI_BOTTOM, 1, hb, MPI_STATUS_IGNORE));
    CHECK(MPI_File_write_at(fh, at + NREC * (NVAL * (MPI_Offset)sizeof(double) + (MPI_Offset)sizeof(int)), MPI_BOTTOM,
                            1, st, MPI_STATUS_IGNORE));
    pass_on(st, fh);
    through_view(fh);
    CHECK(MPI_File_close(&fh));
    CHECK(MPI_Type_free(&hx));
    CHECK(MPI_Type_free(&hb));
    CHECK(MPI_Type_free(&st));
    free(r);
    MPI_Finalize();
    return 0;
}
