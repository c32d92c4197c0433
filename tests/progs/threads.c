/* threads: 8 threads doing POSIX I/O at the same time, each on its own file
 * (thread t: 100 pwrites of 256 bytes at offsets i*256 of threads-<rank>-<t>.dat,
 * an fsync and a close). The threads start their pwrites together (a
 * barrier after the opens), so that their calls interleave.
 *   threads serial     no MPI
 *   threads funneled   MPI_Init_thread(FUNNELED); the threads do POSIX only
 *   threads multiple   MPI_Init_thread(MULTIPLE); each thread also exchanges
 *                      10 messages with the next rank (tag = thread) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NT 8
static int rank, size, use_mpi;
static pthread_barrier_t start;

static void *work(void *arg)
{
    int t = (int)(long)arg;
    char name[64], buf[256];
    memset(buf, 'A' + t, sizeof buf);
    snprintf(name, sizeof name, "threads-%d-%d.dat", rank, t);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0)
        exit(2);
    pthread_barrier_wait(&start);
    for (int i = 0; i < 100; i++)
        if (pwrite(fd, buf, sizeof buf, (off_t)i * 256) != (ssize_t)sizeof buf)
            exit(3);
    fsync(fd);
    close(fd);
    if (use_mpi == 2) {
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        for (int i = 0; i < 10; i++) {
            int out = rank * 1000 + t * 10 + i, in = -1;
            MPI_Sendrecv(&out, 1, MPI_INT, right, t, &in, 1, MPI_INT, left, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (in != left * 1000 + t * 10 + i)
                exit(4);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "serial";
    use_mpi = strcmp(mode, "funneled") == 0 ? 1 : strcmp(mode, "multiple") == 0 ? 2 : 0;
    if (use_mpi) {
        int provided;
        MPI_Init_thread(&argc, &argv, use_mpi == 2 ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, &provided);
        if (use_mpi == 2 && provided < MPI_THREAD_MULTIPLE) {
            fprintf(stderr, "threads: MPI_THREAD_MULTIPLE not provided\n");
            MPI_Abort(MPI_COMM_WORLD, 5);
        }
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    pthread_t th[NT];
    pthread_barrier_init(&start, NULL, NT);
    for (long t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, work, (void *)t);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    if (use_mpi)
        MPI_Finalize();
    return 0;
}
