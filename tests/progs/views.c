/* views: MPI_File_set_view with a filetype from every datatype constructor
 * the spec knows, one file each (v-NN.dat): each rank writes one filetype's
 * worth of nonzero ints collectively, at displacement rank * EXTENT bytes
 * (the darray's ranks share displacement 0: the type itself splits the
 * array among them). */
#include <mpi.h>
#include <stdio.h>

#define EXTENT 256 /* bytes between the ranks' regions: more than any filetype's extent */
#define NTYPES 12

static MPI_Datatype make(int k, int rank, int size)
{
    MPI_Datatype t, inner;
    int bl3[3] = {1, 2, 1}, ds3[3] = {0, 3, 7}, ib[3] = {0, 4, 8}, bl2[2] = {2, 3}, sbl[2] = {2, 1};
    MPI_Aint hd2[2] = {0, 20}, hb2[2] = {0, 32}, sd2[2] = {0, 16};
    MPI_Datatype st2[2] = {MPI_INT, MPI_INT};
    int gs[2] = {4, 8}, ss[2] = {2, 4}, st[2] = {1, 2}, dg[1] = {12 * size}, dd[1] = {MPI_DISTRIBUTE_BLOCK},
        da[1] = {MPI_DISTRIBUTE_DFLT_DARG}, dp[1] = {size};
    switch (k) {
    case 0: MPI_Type_contiguous(8, MPI_INT, &t); break;
    case 1: MPI_Type_vector(3, 2, 4, MPI_INT, &t); break;
    case 2: MPI_Type_create_hvector(3, 2, 24, MPI_INT, &t); break;
    case 3: MPI_Type_indexed(3, bl3, ds3, MPI_INT, &t); break;
    case 4: MPI_Type_create_hindexed(2, bl2, hd2, MPI_INT, &t); break;
    case 5: MPI_Type_create_indexed_block(3, 2, ib, MPI_INT, &t); break;
    case 6: MPI_Type_create_hindexed_block(2, 3, hb2, MPI_INT, &t); break;
    case 7: MPI_Type_create_struct(2, sbl, sd2, st2, &t); break;
    case 8: MPI_Type_create_subarray(2, gs, ss, st, MPI_ORDER_C, MPI_INT, &t); break;
    case 9: MPI_Type_create_darray(size, rank, 1, dg, dd, da, dp, MPI_ORDER_C, MPI_INT, &t); break;
    case 10:
        MPI_Type_vector(2, 1, 2, MPI_INT, &inner);
        MPI_Type_create_resized(inner, 0, 40, &t);
        MPI_Type_free(&inner);
        break;
    default:
        MPI_Type_vector(2, 2, 3, MPI_INT, &inner);
        MPI_Type_dup(inner, &t);
        MPI_Type_free(&inner);
    }
    MPI_Type_commit(&t);
    return t;
}

int main(int argc, char **argv)
{
    int rank, size, buf[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 64; i++)
        buf[i] = 1000 * (rank + 1) + i;
    for (int k = 0; k < NTYPES; k++) {
        MPI_Datatype t = make(k, rank, size);
        int bytes;
        MPI_Type_size(t, &bytes);
        char name[32];
        snprintf(name, sizeof name, "v-%02d.dat", k);
        MPI_File fh;
        if (MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 2);
        MPI_Offset disp = k == 9 ? 0 : (MPI_Offset)rank * EXTENT;
        MPI_File_set_view(fh, disp, MPI_INT, t, "native", MPI_INFO_NULL);
        if (MPI_File_write_all(fh, buf, bytes / 4, MPI_INT, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 3);
        MPI_File_close(&fh);
        MPI_Type_free(&t);
    }
    MPI_Finalize();
    return 0;
}
