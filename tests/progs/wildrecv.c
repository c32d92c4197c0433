/* Wildcard receives whose matching the program orders by time (test
 * 57-replay-wildcard): rank 0 receives one message from each other rank
 * with MPI_ANY_SOURCE, and the senders are made to arrive in the reverse
 * order of their ranks: sender r waits (P-1-r)*DELAY_MS before it sends.
 * Sender r's message is r*UNIT ints, each r, with tag TAG_A + r, so a
 * receive that matched another sender would get another count, tag and
 * contents. Rank 0 checks the order it got (the run must have it).
 *
 * The last sender, first in the run, first writes WRITES small blocks to
 * a file of its own: a replay without the waits (ioreplay --no-compute)
 * makes it the last to send, so a replay that posted the receives as
 * wildcards would match the others first.
 *
 *   phase A  MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG, &status)
 *   phase B  P-1 MPI_Irecv(MPI_ANY_SOURCE, TAG_B), MPI_Waitall with
 *            MPI_STATUSES_IGNORE: the program sees its senders only in the
 *            data (the tracer must learn them all the same)
 *   phase C  MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG) and MPI_Wait with
 *            MPI_STATUS_IGNORE, one at a time
 *   phase D  MPI_Probe(MPI_ANY_SOURCE, TAG_D, &status), then MPI_Recv from
 *            the source it found
 *
 * The senders send with MPI_Isend and complete with MPI_Wait on a status
 * holding SENTINEL_SOURCE and SENTINEL_TAG: MPI leaves a send's status
 * undefined, and the trace must not record what the variable held. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "tests/progs/mpi_check.h"

#define UNIT 16
#define DELAY_MS 250
#define WRITES 400
#define TAG_A 100
#define TAG_B 200
#define TAG_C 300
#define TAG_D 400
#define SENTINEL_SOURCE 4242
#define SENTINEL_TAG 4343

/* As in tests/progs/imbalance.c, on purpose: each test program is one source
 * file, read beside its test as the statement of what it calls. */
static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static int P, me;

static void bad(const char *phase, int i, int got, int want)
{
    fprintf(stderr, "wildrecv: phase %s, receive %d matched %d, not %d (the run's order did not hold)\n", phase, i,
            got, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Sender: waits its turn and sends its message with tag. */
static void send_turn(int tag, int fd)
{
    int n = me * UNIT;
    int *buf = malloc((size_t)n * sizeof *buf);
    for (int i = 0; i < n; i++)
        buf[i] = me;
    if (me == P - 1) {
        char block[64];
        memset(block, 'w', sizeof block);
        for (int i = 0; i < WRITES; i++)
            if (write(fd, block, sizeof block) != (ssize_t)sizeof block)
                MPI_Abort(MPI_COMM_WORLD, 1);
    }
    sleep_ms((long)(P - 1 - me) * DELAY_MS);
    MPI_Request req;
    MPI_Status st;
    st.MPI_SOURCE = SENTINEL_SOURCE;
    st.MPI_TAG = SENTINEL_TAG;
    CHECK(MPI_Isend(buf, n, MPI_INT, 0, tag, MPI_COMM_WORLD, &req));
    CHECK(MPI_Wait(&req, &st));
    free(buf);
}

int main(int argc, char **argv)
{
    CHECK(MPI_Init(&argc, &argv));
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &P));
    if (P < 3) {
        fprintf(stderr, "wildrecv: needs 3 ranks or more\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int fd = -1;
    if (me == P - 1) {
        fd = open("lastsender.dat", O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd < 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int max = (P - 1) * UNIT;
    int *bufs = malloc((size_t)(P - 1) * (size_t)max * sizeof *bufs);
    MPI_Status st;

    /* phase A */
    if (me) {
        send_turn(TAG_A + me, fd);
    } else {
        for (int i = 0; i < P - 1; i++) {
            int want = P - 1 - i, count;
            CHECK(MPI_Recv(bufs, max, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(MPI_Get_count(&st, MPI_INT, &count));
            if (st.MPI_SOURCE != want || st.MPI_TAG != TAG_A + want || count != want * UNIT || bufs[0] != want)
                bad("A", i, st.MPI_SOURCE, want);
        }
    }
    CHECK(MPI_Barrier(MPI_COMM_WORLD));

    /* phase B */
    if (me) {
        send_turn(TAG_B, fd);
    } else {
        MPI_Request reqs[64];
        if (P - 1 > 64)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (int i = 0; i < P - 1; i++)
            CHECK(MPI_Irecv(bufs + (size_t)i * max, max, MPI_INT, MPI_ANY_SOURCE, TAG_B, MPI_COMM_WORLD, &reqs[i]));
        /* GCC takes MPICH's MPI_STATUSES_IGNORE for a too small array */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
        CHECK(MPI_Waitall(P - 1, reqs, MPI_STATUSES_IGNORE));
#pragma GCC diagnostic pop
        for (int i = 0; i < P - 1; i++)
            if (bufs[(size_t)i * max] != P - 1 - i)
                bad("B", i, bufs[(size_t)i * max], P - 1 - i);
    }
    CHECK(MPI_Barrier(MPI_COMM_WORLD));

    /* phase C */
    if (me) {
        send_turn(TAG_C + me, fd);
    } else {
        for (int i = 0; i < P - 1; i++) {
            MPI_Request req;
            bufs[0] = -1;
            CHECK(MPI_Irecv(bufs, max, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req));
            CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            if (bufs[0] != P - 1 - i)
                bad("C", i, bufs[0], P - 1 - i);
        }
    }
    CHECK(MPI_Barrier(MPI_COMM_WORLD));

    /* phase D */
    if (me) {
        send_turn(TAG_D, fd);
    } else {
        for (int i = 0; i < P - 1; i++) {
            CHECK(MPI_Probe(MPI_ANY_SOURCE, TAG_D, MPI_COMM_WORLD, &st));
            if (st.MPI_SOURCE != P - 1 - i)
                bad("D", i, st.MPI_SOURCE, P - 1 - i);
            CHECK(MPI_Recv(bufs, max, MPI_INT, st.MPI_SOURCE, TAG_D, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
    }
    if (fd >= 0)
        close(fd);
    free(bufs);
    CHECK(MPI_Finalize());
    return 0;
}
