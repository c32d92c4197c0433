/* groups: ranks in groups of GROUP (the ranks of a node, a process grid's
 * rows), the way codes that write a file per node or per group do it.
 * Rank r joins the communicator of colour r / GROUP (key r % GROUP), opens
 * its group's file "groups-<r / GROUP>.dat", and writes NBLOCK blocks of
 * BLOCK bytes with pwrite at
 *     HEADER*(r / GROUP) + BLOCK*(r % GROUP) + GROUP*BLOCK*i
 * (each group's file begins with a header whose length grows with the
 * group's number), then a line that names it (LINE_FMT, with write at the
 * file's start: its length grows with the rank's decimal digits), then
 * sums its group's bytes with MPI_Allreduce on the group's communicator and
 * checks the total.
 * usage: groups (prints one line from rank 0; exit 1 on a wrong sum) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define GROUP 4
#define NBLOCK 3
#define BLOCK 100
#define HEADER 7
#define LINE_FMT "rank %d\n"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm group;
    MPI_Comm_split(MPI_COMM_WORLD, rank / GROUP, rank % GROUP, &group);
    char name[64], block[BLOCK];
    snprintf(name, sizeof name, "groups-%d.dat", rank / GROUP);
    memset(block, 'a' + rank % 26, sizeof block);
    int fd = open(name, O_WRONLY | O_CREAT, 0644);
    long mine = 0, total = 0;
    for (int i = 0; i < NBLOCK && fd >= 0; i++) {
        off_t at = (off_t)HEADER * (rank / GROUP) + (off_t)BLOCK * (rank % GROUP) + (off_t)GROUP * BLOCK * i;
        if (pwrite(fd, block, BLOCK, at) == BLOCK)
            mine += BLOCK;
    }
    char line[32];
    int len = snprintf(line, sizeof line, LINE_FMT, rank);
    if (fd >= 0) {
        if (write(fd, line, (size_t)len) != len)
            mine = -1;
        close(fd);
    }
    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, group);
    int members;
    MPI_Comm_size(group, &members);
    int bad = total != (long)members * NBLOCK * BLOCK;
    MPI_Comm_free(&group);
    if (rank == 0)
        printf("groups: %d ranks in groups of %d%s\n", size, GROUP, bad ? ", wrong sum" : "");
    MPI_Finalize();
    return bad;
}
