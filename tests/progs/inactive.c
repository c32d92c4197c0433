/* inactive: completions on inactive persistent requests, as the MPI
 * library test suites make them (MPI-1 3.7.3: a test of a null or inactive
 * request returns at once with flag true and an empty status). Each rank:
 *   - a persistent send (MPI_Send_init to rank 0) tested and waited on
 *     before its first MPI_Start, then started once and completed (rank 0
 *     receives one message from every rank), then tested and waited on
 *     again (inactive once more), then freed;
 *   - a persistent receive from MPI_ANY_SOURCE never started: tested,
 *     waited on, freed;
 *   - arrays of NINACT inactive requests given to MPI_Waitany and
 *     MPI_Testany (index MPI_UNDEFINED), MPI_Waitsome and MPI_Testsome
 *     (outcount MPI_UNDEFINED), MPI_Waitall and MPI_Testall (flag true);
 *   - MPI-4 persistent collectives where the library has them (an
 *     MPI_Bcast_init never started, tested, waited on and freed; an
 *     MPI_Allreduce_init started NCOLL times, then tested and waited on
 *     inactive). MPICH before 4.1 answers a test of a persistent collective
 *     never started with flag 0 and never returns from a wait on it (fixed
 *     in MPICH 4.1, "Fix active query for persistent collective
 *     requests"): there the MPI_Bcast_init is only made and freed.
 * The program checks every flag, index and empty status itself (exit 2)
 * and writes res-inactive-R.dat (its checked values) so that a replay has
 * a file to write. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/progs/mpi_check.h"

#define TAG 27
#define NINACT 3
#define NCOLL 2

static int rank, size, ok = 1, res[16], nres;

static void expect(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "inactive rank %d: %s\n", rank, what);
        ok = 0;
    }
}

/* An empty status: MPI_ANY_SOURCE, MPI_ANY_TAG, no elements. */
static int empty(const MPI_Status *s)
{
    int n = -1;
    MPI_Get_count(s, MPI_INT, &n);
    return s->MPI_SOURCE == MPI_ANY_SOURCE && s->MPI_TAG == MPI_ANY_TAG && n == 0;
}

/* Test, then wait, on an inactive request: both return at once, empty. */
static void test_and_wait(MPI_Request *r, const char *what)
{
    MPI_Status s;
    int flag = 0;
    CHECK(MPI_Test(r, &flag, &s));
    expect(flag && empty(&s), what);
    CHECK(MPI_Wait(r, &s));
    expect(empty(&s), what);
}

static void send_init(void)
{
    int buf[4] = {rank, rank, rank, rank}, in[4];
    MPI_Request r;
    CHECK(MPI_Send_init(buf, 4, MPI_INT, 0, TAG, MPI_COMM_WORLD, &r));
    test_and_wait(&r, "send not started yet");
    MPI_Request *rr = NULL;
    MPI_Status *st = NULL;
    if (rank == 0) {
        rr = malloc(sizeof *rr * (size_t)size);
        st = malloc(sizeof *st * (size_t)size);
        for (int i = 0; i < size; i++)
            CHECK(MPI_Irecv(in, 4, MPI_INT, i, TAG, MPI_COMM_WORLD, &rr[i]));
    }
    CHECK(MPI_Start(&r));
    CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    if (rank == 0) {
        CHECK(MPI_Waitall(size, rr, st));
        free(rr);
        free(st);
    }
    test_and_wait(&r, "send after its completion");
    CHECK(MPI_Request_free(&r));
    expect(r == MPI_REQUEST_NULL, "freed send");
}

static void recv_init(void)
{
    int buf[4];
    MPI_Request r;
    CHECK(MPI_Recv_init(buf, 4, MPI_INT, MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &r));
    test_and_wait(&r, "receive from any source never started");
    CHECK(MPI_Request_free(&r));
}

/* The completions over arrays of inactive requests only. */
static void arrays(void)
{
    int buf[NINACT];
    MPI_Request r[NINACT];
    MPI_Status st[NINACT];
    int idx = 0, flag = 0, out = 0, done[NINACT];
    for (int i = 0; i < NINACT; i++)
        CHECK(i % 2 ? MPI_Send_init(&buf[i], 1, MPI_INT, rank, TAG + i, MPI_COMM_WORLD, &r[i])
                    : MPI_Recv_init(&buf[i], 1, MPI_INT, rank, TAG + i, MPI_COMM_WORLD, &r[i]));
    CHECK(MPI_Waitany(NINACT, r, &idx, &st[0]));
    expect(idx == MPI_UNDEFINED && empty(&st[0]), "Waitany over inactive requests");
    CHECK(MPI_Testany(NINACT, r, &idx, &flag, &st[0]));
    expect(flag && idx == MPI_UNDEFINED, "Testany over inactive requests");
    CHECK(MPI_Waitsome(NINACT, r, &out, done, st));
    expect(out == MPI_UNDEFINED, "Waitsome over inactive requests");
    CHECK(MPI_Testsome(NINACT, r, &out, done, st));
    expect(out == MPI_UNDEFINED, "Testsome over inactive requests");
    CHECK(MPI_Waitall(NINACT, r, st));
    for (int i = 0; i < NINACT; i++)
        expect(empty(&st[i]), "Waitall over inactive requests");
    flag = 0;
    CHECK(MPI_Testall(NINACT, r, &flag, st));
    expect(flag, "Testall over inactive requests");
    for (int i = 0; i < NINACT; i++)
        CHECK(MPI_Request_free(&r[i]));
}

#if MPI_VERSION >= 4
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
#define NEVER_STARTED_HANGS 1
#else
#define NEVER_STARTED_HANGS 0
#endif
static void collectives(void)
{
    int a = rank, v = rank + 1, sum = -1;
    MPI_Request b, ar;
    CHECK(MPI_Bcast_init(&a, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &b));
    if (!NEVER_STARTED_HANGS)
        test_and_wait(&b, "Bcast_init never started");
    CHECK(MPI_Request_free(&b));
    CHECK(MPI_Allreduce_init(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &ar));
    for (int i = 0; i < NCOLL; i++) {
        CHECK(MPI_Start(&ar));
        CHECK(MPI_Wait(&ar, MPI_STATUS_IGNORE));
        expect(sum == size * (size + 1) / 2, "Allreduce_init's sum");
        res[nres++] = sum;
    }
    test_and_wait(&ar, "Allreduce_init after its completion");
    CHECK(MPI_Request_free(&ar));
}
#define HAVE_COLL 1
#else
#define HAVE_COLL 0
#define NEVER_STARTED_HANGS 0
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    send_init();
    recv_init();
    arrays();
#if MPI_VERSION >= 4
    collectives();
#endif
    res[nres++] = ok;
    char name[64];
    snprintf(name, sizeof name, "res-inactive-%d.dat", rank);
    FILE *f = fopen(name, "w");
    if (!f || fwrite(res, sizeof res[0], (size_t)nres, f) != (size_t)nres || fclose(f) != 0)
        ok = 0;
    if (rank == 0)
        printf("inactive: persistent collectives %s\n", !HAVE_COLL ? "not in this MPI"
                                                         : NEVER_STARTED_HANGS ? "made; none tested before a start"
                                                                               : "made");
    MPI_Finalize();
    return ok ? 0 : 2;
}
