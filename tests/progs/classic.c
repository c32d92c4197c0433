/* classic: the loop nest of the ScalaIOTrace paper (section 3). Ten files are
 * opened in turn, each written 100 times with MPI_File_write, and closed:
 * compressed, it is PRSD<10: open, RSD<100: write>, close>.
 * usage: classic [outer=10] [inner=100] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, outer = argc > 1 ? atoi(argv[1]) : 10, inner = argc > 2 ? atoi(argv[2]) : 100;
    char buf[64] = {0}, name[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < outer; i++) {
        MPI_File fh;
        snprintf(name, sizeof name, "classic-%d-%03d.dat", rank, i);
        MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
        for (int j = 0; j < inner; j++)
            MPI_File_write(fh, buf, 64, MPI_BYTE, MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
    }
    MPI_Finalize();
    return 0;
}
