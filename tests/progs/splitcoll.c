/* splitcoll: the split collective data access calls, as ROMIO's split_coll
 * test and older codes use them. Each rank writes NB blocks of K bytes at
 * (i*P + rank)*K with MPI_File_write_at_all_begin/end, reads them back with
 * MPI_File_read_at_all_begin/end, then appends one block per rank with
 * MPI_File_write_ordered_begin/end (rank order, after the P*NB blocks).
 * The file is (NB + 1)*P*K bytes. See 75-replay-split-collectives.sh. */
#include <string.h>

#include "tests/progs/mpi_check.h"

#define NB 3
#define K 4096

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    static char out[K], in[K];
    memset(out, 'a' + rank % 26, sizeof out);
    MPI_File fh;
    MPI_Status st;
    CHECK(MPI_File_open(MPI_COMM_WORLD, argc > 1 ? argv[1] : "split.dat", MPI_MODE_CREATE | MPI_MODE_RDWR,
                        MPI_INFO_NULL, &fh));
    for (int i = 0; i < NB; i++) {
        CHECK(MPI_File_write_at_all_begin(fh, (MPI_Offset)(i * np + rank) * K, out, K, MPI_BYTE));
        CHECK(MPI_File_write_at_all_end(fh, out, &st));
    }
    for (int i = 0; i < NB; i++) {
        CHECK(MPI_File_read_at_all_begin(fh, (MPI_Offset)(i * np + rank) * K, in, K, MPI_BYTE));
        CHECK(MPI_File_read_at_all_end(fh, in, &st));
        if (memcmp(in, out, K) != 0) {
            fprintf(stderr, "splitcoll: rank %d read back other data at block %d\n", rank, i);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    CHECK(MPI_File_seek_shared(fh, (MPI_Offset)NB * np * K, MPI_SEEK_SET));
    CHECK(MPI_File_write_ordered_begin(fh, out, K, MPI_BYTE));
    CHECK(MPI_File_write_ordered_end(fh, out, &st));
    CHECK(MPI_File_close(&fh));
    MPI_Finalize();
    return 0;
}
