/* forks: a process that forks children doing I/O of their own.
 * The parent writes 3 blocks to forks-parent.dat, forks a child that writes
 * 5 blocks to forks-child.dat and exits (exit(0) in the first child, _exit(0)
 * in the second, exec of /bin/true in the third), waits, and writes 2 more.
 *   forks          serial
 *   forks mpi      the same after MPI_Init (rank 0 only forks) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void blocks(const char *name, int n, int first)
{
    char buf[100];
    memset(buf, 'x', sizeof buf);
    int fd = open(name, O_CREAT | O_WRONLY, 0644);
    for (int i = 0; i < n; i++)
        if (pwrite(fd, buf, sizeof buf, (off_t)(first + i) * 100) != (ssize_t)sizeof buf)
            exit(3);
    close(fd);
}

int main(int argc, char **argv)
{
    int mpi = argc > 1 && strcmp(argv[1], "mpi") == 0, rank = 0;
    if (mpi) {
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    }
    if (rank == 0) {
        blocks("forks-parent.dat", 3, 0);
        for (int k = 0; k < 3; k++) {
            pid_t p = fork();
            if (p == 0) {
                blocks("forks-child.dat", 5, 0);
                if (k == 0)
                    exit(0);
                if (k == 1)
                    _exit(0);
                execl("/bin/true", "true", (char *)NULL);
                _exit(1);
            }
            int st = 0;
            if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
                return 4;
        }
        blocks("forks-parent.dat", 2, 3);
    }
    if (mpi)
        MPI_Finalize();
    return 0;
}
