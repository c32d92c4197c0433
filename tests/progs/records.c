/* records: a record variable written in pieces, the way PnetCDF writes one
 * for IOR's NCMPI backend (ior -a NCMPI -c): NSEG records, each rank
 * writing its block of every record in PIECES collective transfers; the
 * first piece of a new record makes the file's record count grow, so rank 0
 * rewrites the header's 8-byte count right after it. Then the same pieces
 * are read back collectively.
 *
 * The calls repeat with a period of PIECES transfers plus the header write,
 * but the loop the compressor sees starts at the header write: its inner
 * loop runs over pieces 1..PIECES-1 of one record and piece 0 of the next,
 * so the offsets are a pattern by piece (the last one jumps a record) that
 * moves on by a record per outer iteration. The trace must keep its size
 * whatever NSEG.
 *
 * usage: records NSEG */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER 16896   /* bytes before the first record */
#define PIECES 4       /* transfers per rank and record */
#define XFER 16384     /* bytes per transfer */
#define COUNT_AT 4     /* where the header keeps the record count */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nseg = argc > 1 ? atoi(argv[1]) : 16;
    long long block = (long long)PIECES * XFER;
    long long record = block * size;
    char *buf = malloc(XFER);
    memset(buf, 'a' + rank, XFER);

    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "records.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    long long numrecs = 0;
    if (rank == 0)
        MPI_File_write_at(fh, 0, "CDF\5", 4, MPI_BYTE, MPI_STATUS_IGNORE);
    for (int s = 0; s < nseg; s++)
        for (int p = 0; p < PIECES; p++) {
            MPI_Offset off = HEADER + s * record + rank * block + (MPI_Offset)p * XFER;
            MPI_File_write_at_all(fh, off, buf, XFER, MPI_BYTE, MPI_STATUS_IGNORE);
            if (s + 1 > numrecs) {
                numrecs = s + 1;
                if (rank == 0)
                    MPI_File_write_at(fh, COUNT_AT, &numrecs, 8, MPI_BYTE, MPI_STATUS_IGNORE);
            }
        }
    for (int s = 0; s < nseg; s++)
        for (int p = 0; p < PIECES; p++) {
            MPI_Offset off = HEADER + s * record + rank * block + (MPI_Offset)p * XFER;
            MPI_File_read_at_all(fh, off, buf, XFER, MPI_BYTE, MPI_STATUS_IGNORE);
        }
    MPI_File_close(&fh);
    free(buf);
    if (rank == 0)
        printf("records: %d records of %d pieces of %d bytes per rank\n", nseg, PIECES, XFER);
    MPI_Finalize();
    return 0;
}
