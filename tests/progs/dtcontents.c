/* A derived datatype decoded as PnetCDF decodes one (test 33-type-contents):
 * MPI_Type_get_envelope, then MPI_Type_get_contents, down to the named
 * types, and MPI_Type_free of every datatype get_contents returned whose
 * combiner is not MPI_COMBINER_NAMED (the MPI standard: those are handles
 * the caller frees; named ones must not be freed). MPICH returns the
 * constituent's own handle with its reference count raised, Open MPI a new
 * handle each time: either way each result is freed once.
 *
 * Each rank builds
 *   contig = MPI_Type_contiguous(CONTIG_N, MPI_INT)
 *   vec    = MPI_Type_vector(VEC_COUNT, VEC_BLOCK, VEC_STRIDE, contig)
 *   st     = MPI_Type_create_struct(2, {1, TAIL_INTS}, {0, TAIL_DISP}, {vec, MPI_INT})
 * writes through the view (MPI_INT, st) at rank * extent(st), decodes st
 * DECODES times, and in the first decoding writes ST_INTS ints more at
 * VEC_BASE through the vector get_contents returned (committed: a handle
 * the replay must hold), as the memory type. Decoding st takes
 * 7 get_envelope calls (st; vec and contig twice each: before and in their
 * own decoding; MPI_INT twice), 3 get_contents calls (st, vec, contig) and
 * 2 frees (vec's and contig's returned handles). Then st, vec and contig are freed: DECODES * 2 + 3 frees. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/progs/mpi_check.h"

#define CONTIG_N 4
#define VEC_COUNT 3
#define VEC_BLOCK 2
#define VEC_STRIDE 4
#define TAIL_INTS 2
#define TAIL_DISP 192
#define ST_INTS (VEC_COUNT * VEC_BLOCK * CONTIG_N + TAIL_INTS)
#define VEC_INTS (VEC_COUNT * VEC_BLOCK * CONTIG_N)
#define VEC_EXTENT_INTS (((VEC_COUNT - 1) * VEC_STRIDE + VEC_BLOCK) * CONTIG_N)
#define VEC_BASE 65536
#define DECODES 2

#define EXPECT(cond)                                                             \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "dtcontents: %s false (line %d)\n", #cond, __LINE__); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                        \
        }                                                                        \
    } while (0)

static MPI_File fh;
static int rank;
static int buf[VEC_EXTENT_INTS];

/* The vector get_contents returned, used as a memory type before it is freed. */
static void write_through(MPI_Datatype vec)
{
    CHECK(MPI_Type_commit(&vec));
    MPI_Offset at = VEC_BASE + (MPI_Offset)rank * VEC_INTS * (MPI_Offset)sizeof(int);
    CHECK(MPI_File_set_view(fh, at, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    CHECK(MPI_File_write_all(fh, buf, 1, vec, MPI_STATUS_IGNORE));
}

static int combiner_of(MPI_Datatype t, int *ni, int *na, int *nd)
{
    int combiner;
    CHECK(MPI_Type_get_envelope(t, ni, na, nd, &combiner));
    return combiner;
}

/* The counts of each level, known from how the types are built. */
static void expect_level(int combiner, int ni, int na, int nd, const int *ints)
{
    if (combiner == MPI_COMBINER_STRUCT)
        EXPECT(ni == 3 && na == 2 && nd == 2 && ints[0] == 2 && ints[1] == 1 && ints[2] == TAIL_INTS);
    else if (combiner == MPI_COMBINER_VECTOR)
        EXPECT(ni == 3 && na == 0 && nd == 1 && ints[0] == VEC_COUNT && ints[1] == VEC_BLOCK && ints[2] == VEC_STRIDE);
    else
        EXPECT(combiner == MPI_COMBINER_CONTIGUOUS && ni == 1 && na == 0 && nd == 1 && ints[0] == CONTIG_N);
}

static void decode(MPI_Datatype t, int use_vector)
{
    int ni, na, nd;
    int combiner = combiner_of(t, &ni, &na, &nd);
    if (combiner == MPI_COMBINER_NAMED)
        return;
    int ints[8];
    MPI_Aint addrs[8];
    MPI_Datatype types[8];
    EXPECT(ni <= 8 && na <= 8 && nd <= 8);
    CHECK(MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types));
    expect_level(combiner, ni, na, nd, ints);
    for (int i = 0; i < nd; i++) {
        int ni2, na2, nd2;
        int named = combiner_of(types[i], &ni2, &na2, &nd2) == MPI_COMBINER_NAMED;
        if (named)
            continue;
        decode(types[i], 0);
        if (use_vector && combiner == MPI_COMBINER_STRUCT)
            write_through(types[i]);
        CHECK(MPI_Type_free(&types[i]));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < VEC_EXTENT_INTS; i++)
        buf[i] = rank * 1000 + i;
    MPI_Datatype contig, vec, st;
    CHECK(MPI_Type_contiguous(CONTIG_N, MPI_INT, &contig));
    CHECK(MPI_Type_vector(VEC_COUNT, VEC_BLOCK, VEC_STRIDE, contig, &vec));
    int blocks[2] = {1, TAIL_INTS};
    MPI_Aint displs[2] = {0, TAIL_DISP};
    MPI_Datatype parts[2] = {vec, MPI_INT};
    CHECK(MPI_Type_create_struct(2, blocks, displs, parts, &st));
    CHECK(MPI_Type_commit(&st));
    MPI_Aint lb, extent;
    CHECK(MPI_Type_get_extent(st, &lb, &extent));
    CHECK(MPI_File_open(MPI_COMM_WORLD, "contents.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    CHECK(MPI_File_set_view(fh, (MPI_Offset)rank * extent, MPI_INT, st, "native", MPI_INFO_NULL));
    CHECK(MPI_File_write_all(fh, buf, ST_INTS, MPI_INT, MPI_STATUS_IGNORE));
    for (int d = 0; d < DECODES; d++)
        decode(st, d == 0);
    CHECK(MPI_File_close(&fh));
    CHECK(MPI_Type_free(&st));
    CHECK(MPI_Type_free(&vec));
    CHECK(MPI_Type_free(&contig));
    MPI_Finalize();
    return 0;
}
