/* escape: creates and writes each path given on the command line (for the
 * replay sandbox test: relative paths with .., absolute paths, paths through
 * symbolic links). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        int fd = open(argv[i], O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (fd < 0) {
            perror(argv[i]);
            continue;
        }
        if (write(fd, "written by escape\n", 18) != 18)
            perror("write");
        close(fd);
    }
    MPI_Finalize();
    return 0;
}
