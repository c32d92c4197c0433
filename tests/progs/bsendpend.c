/* bsendpend: buffered sends still pending when their buffer is detached,
 * as MPICH's test bsendpending does, then attached again. In each of
 * NCOMM rounds (one duplicated communicator each), rank 0 attaches a
 * buffer of NMSG * (MPI_BSEND_OVERHEAD + MSG) bytes, sends NMSG messages
 * of MSG bytes to the last rank with MPI_Bsend, MPI_Ibsend (waited) and a
 * persistent MPI_Bsend_init request started once, meets the receiver with
 * a Sendrecv and detaches the buffer while the messages are still in it
 * (the receiver waits RECV_DELAY_MS before its receives): the detach
 * returns when they have gone. The receiver checks every byte (exit 2 when
 * one is wrong) and each rank writes what it received to bsend-R.dat, so
 * that a replay has a file to make. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MSG (128 * 1024)
#define NMSG 3
#define NCOMM 2
#define RECV_DELAY_MS 100

static unsigned char pattern(int round, int m, int i) { return (unsigned char)(i * (2 * m + 1) + round); }

static void send_round(unsigned char *msg, int round, int dest, MPI_Comm comm, int *errs)
{
    int bufsize = NMSG * (MPI_BSEND_OVERHEAD + MSG), outsize;
    unsigned char *buf = malloc(bufsize), *back;
    MPI_Buffer_attach(buf, bufsize);
    for (int m = 0; m < NMSG; m++)
        for (int i = 0; i < MSG; i++)
            msg[m * MSG + i] = pattern(round, m, i);
    MPI_Request rq[2];
    MPI_Status st[2];
    MPI_Bsend(msg, MSG, MPI_UNSIGNED_CHAR, dest, 0, comm);
    MPI_Ibsend(msg + MSG, MSG, MPI_UNSIGNED_CHAR, dest, 0, comm, &rq[0]);
    MPI_Bsend_init(msg + 2 * MSG, MSG, MPI_UNSIGNED_CHAR, dest, 0, comm, &rq[1]);
    MPI_Start(&rq[1]);
    MPI_Waitall(2, rq, st);
    MPI_Request_free(&rq[1]);
    MPI_Sendrecv(NULL, 0, MPI_BYTE, dest, 10, NULL, 0, MPI_BYTE, dest, 10, comm, MPI_STATUS_IGNORE);
    MPI_Buffer_detach(&back, &outsize);
    *errs += back != buf || outsize != bufsize;
    free(buf);
}

static void recv_round(unsigned char *msg, int round, MPI_Comm comm, int *errs)
{
    MPI_Sendrecv(NULL, 0, MPI_BYTE, 0, 10, NULL, 0, MPI_BYTE, 0, 10, comm, MPI_STATUS_IGNORE);
    struct timespec t = {0, RECV_DELAY_MS * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
    for (int m = 0; m < NMSG; m++) {
        MPI_Recv(msg + m * MSG, MSG, MPI_UNSIGNED_CHAR, 0, 0, comm, MPI_STATUS_IGNORE);
        for (int i = 0; i < MSG; i++)
            if (msg[m * MSG + i] != pattern(round, m, i)) {
                (*errs)++;
                break;
            }
    }
}

int main(int argc, char **argv)
{
    int rank, size, errs = 0;
    MPI_Init(&argc, &argv);
    unsigned char *msg = calloc(NMSG, MSG);
    for (int round = 0; round < NCOMM; round++) {
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        if (rank == 0)
            send_round(msg, round, size - 1, comm, &errs);
        else if (rank == size - 1)
            recv_round(msg, round, comm, &errs);
        MPI_Comm_free(&comm);
    }
    char name[32];
    snprintf(name, sizeof name, "bsend-%d.dat", rank);
    FILE *f = fopen(name, "wb");
    fwrite(msg, 1, rank == size - 1 ? NMSG * MSG : 0, f);
    fclose(f);
    if (errs)
        fprintf(stderr, "bsendpend rank %d: %d errors\n", rank, errs);
    free(msg);
    MPI_Finalize();
    return errs ? 2 : 0;
}
