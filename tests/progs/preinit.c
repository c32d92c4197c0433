/* preinit: a file opened before MPI_Init is not traced, even when written
 * after it; a file opened after MPI_Init is. */
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int early = open("early.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (write(early, "before", 6) != 6)
        return 1;
    MPI_Init(&argc, &argv);
    if (write(early, "after", 5) != 5)
        return 1;
    int late = open("late.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (write(late, "late", 4) != 4)
        return 1;
    close(late);
    close(early);
    MPI_Finalize();
    return 0;
}
