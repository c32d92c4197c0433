/* userops: a reduction with the program's own operation and buffered
 * sends, as codes use them: MPI_Op_create (a commutative elementwise max
 * of ints), MPI_Allreduce and MPI_Reduce with it, MPI_Op_free; a buffer of
 * BSEND_BYTES attached, each rank MPI_Bsends NMSG messages of MSG ints to
 * the next rank and receives from the previous one, then detaches it.
 * Each rank then writes its result to res-R.dat (checked: exit 2 if the
 * reduction or a message is wrong). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 16
#define NMSG 4
#define MSG 32
#define BSEND_BYTES (NMSG * (MSG * 4 + MPI_BSEND_OVERHEAD))

static void imax(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = a[i] > b[i] ? a[i] : b[i];
}

int main(int argc, char **argv)
{
    int rank, size, v[N], r[N], msg[MSG], got[MSG];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Op op;
    MPI_Op_create(imax, 1, &op);
    for (int i = 0; i < N; i++)
        v[i] = rank * 100 + i;
    MPI_Allreduce(v, r, N, MPI_INT, op, MPI_COMM_WORLD);
    int ok = r[N - 1] == (size - 1) * 100 + N - 1;
    MPI_Reduce(v, r, N, MPI_INT, op, 0, MPI_COMM_WORLD);
    ok &= rank != 0 || r[0] == (size - 1) * 100;
    MPI_Op_free(&op);
    void *buf = malloc(BSEND_BYTES);
    MPI_Buffer_attach(buf, BSEND_BYTES);
    for (int k = 0; k < NMSG; k++) {
        for (int i = 0; i < MSG; i++)
            msg[i] = rank * 1000 + k * MSG + i;
        MPI_Bsend(msg, MSG, MPI_INT, (rank + 1) % size, k, MPI_COMM_WORLD);
    }
    int prev = (rank + size - 1) % size;
    for (int k = 0; k < NMSG; k++) {
        MPI_Recv(got, MSG, MPI_INT, prev, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ok &= got[MSG - 1] == prev * 1000 + k * MSG + MSG - 1;
    }
    void *back;
    int bytes;
    MPI_Buffer_detach(&back, &bytes);
    ok &= back == buf && bytes == BSEND_BYTES;
    free(buf);
    char name[32];
    snprintf(name, sizeof name, "res-%d.dat", rank);
    FILE *f = fopen(name, "w");
    fprintf(f, "%d %d\n", ok, r[0]);
    fclose(f);
    MPI_Finalize();
    return ok ? 0 : 2;
}
