/* waitsome: completions whose order MPI leaves open. Each rank posts
 * NREQ requests, half receives from and half sends to the other ranks in
 * turn (MSG ints each, tags by message), the receives and sends mixed in
 * the array, and completes them with MPI_Waitsome until none is left;
 * then the same with MPI_Testsome polled, MPI_Waitany and MPI_Testany.
 * Ranks start their sends at staggered times (rank r sleeps r * STAGGER_MS
 * first), so the sets each call completes differ from call to call and from
 * run to run: what a replay must reproduce is the set the run completed.
 * Every received value is checked (exit 2), and each rank writes the
 * order in which its requests completed to order-R.dat. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NREQ 20
#define MSG 64
#define STAGGER_MS 3
#define ROUNDS 4 /* Waitsome, Testsome, Waitany, Testany */

static int rank, size, errs, order[ROUNDS * NREQ], norder;

static void nap(int ms)
{
    struct timespec t = {0, ms * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

static void post(int round, int buf[NREQ][MSG], MPI_Request rq[NREQ])
{
    nap(rank * STAGGER_MS);
    for (int i = 0; i < NREQ; i++) {
        int k = i / 2, peer = (rank + 1 + k % (size - 1)) % size, from = (rank + size - 1 - k % (size - 1)) % size;
        if (i % 2 == 0) {
            MPI_Irecv(buf[i], MSG, MPI_INT, from, round * NREQ + k, MPI_COMM_WORLD, &rq[i]);
        } else {
            for (int j = 0; j < MSG; j++)
                buf[i][j] = rank * 100000 + (round * NREQ + k) * MSG + j;
            MPI_Isend(buf[i], MSG, MPI_INT, peer, round * NREQ + k, MPI_COMM_WORLD, &rq[i]);
        }
    }
}

static void check(int round, int buf[NREQ][MSG], int i)
{
    order[norder++] = i;
    if (i % 2)
        return;
    int k = i / 2, from = (rank + size - 1 - k % (size - 1)) % size;
    for (int j = 0; j < MSG; j++)
        if (buf[i][j] != from * 100000 + (round * NREQ + k) * MSG + j) {
            errs++;
            return;
        }
}

static void complete(int round, int buf[NREQ][MSG], MPI_Request rq[NREQ])
{
    int left = NREQ, idx[NREQ], n, flag;
    MPI_Status st[NREQ];
    while (left > 0) {
        if (round == 0) {
            MPI_Waitsome(NREQ, rq, &n, idx, st);
        } else if (round == 1) {
            MPI_Testsome(NREQ, rq, &n, idx, st);
        } else {
            (round == 2 ? MPI_Waitany(NREQ, rq, &idx[0], &st[0]) : MPI_Testany(NREQ, rq, &idx[0], &flag, &st[0]));
            n = round == 2 || flag ? 1 : 0;
        }
        for (int c = 0; c < n; c++)
            check(round, buf, idx[c]);
        left -= n;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static int buf[NREQ][MSG];
    MPI_Request rq[NREQ];
    for (int round = 0; round < ROUNDS; round++) {
        post(round, buf, rq);
        complete(round, buf, rq);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    char name[32];
    snprintf(name, sizeof name, "order-%d.dat", rank);
    FILE *f = fopen(name, "wb");
    fwrite(order, sizeof(int), (size_t)norder, f);
    fclose(f);
    if (errs)
        fprintf(stderr, "waitsome rank %d: %d wrong messages\n", rank, errs);
    MPI_Finalize();
    return errs || norder != ROUNDS * NREQ ? 2 : 0;
}
