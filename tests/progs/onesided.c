/* onesided: MPI one-sided communication as halo-exchange and shared-counter
 * codes use it, then a checkpoint written with MPI-IO from the window's
 * data. See 77-replay-onesided.sh, which reads the constants below.
 *
 *   fence epochs:   NSTEPS x (MPI_Win_fence, MPI_Put of HALO doubles into the
 *                   right neighbour at displacement HALO_DISP, MPI_Get of
 *                   HALO doubles from the left neighbour at 0), closing fence;
 *   passive target: NLOCKS x (MPI_Win_lock exclusive on rank 0, MPI_Fetch_and_op
 *                   +1 on a counter at COUNTER_DISP of a window from
 *                   MPI_Win_allocate, MPI_Win_unlock); then MPI_Accumulate
 *                   and MPI_Compare_and_swap under MPI_Win_lock_all /
 *                   MPI_Win_flush / MPI_Win_unlock_all; at the end a shared
 *                   lock on its own window and MPI_Win_sync to read it;
 *   request based:  MPI_Rput + MPI_Wait, MPI_Rget + MPI_Wait under lock_all;
 *   PSCW:           MPI_Win_post/start/complete/wait with both neighbours,
 *                   one MPI_Put of HALO doubles each;
 *   MPI-4 (where MPI_VERSION >= 4): MPI_Put_c and MPI_Get_c in one more fence
 *                   epoch;
 *   the window's data written with MPI_File_write_at_all (WIN_N doubles at
 *                   rank*WIN_N*8 of onesided.out).
 * Every value that moves is checked, so a tracer that changed a result
 * makes the program fail. With argument "ports" it also opens an MPI port
 * and closes it if it opened (dynamic processes: not replayable). With
 * argument "dynamic" it also exchanges halos through a dynamic window
 * (MPI_Win_create_dynamic, MPI_Win_attach of DYN_N doubles, the addresses
 * shared by MPI_Allgather, DYN_STEPS fence epochs of one MPI_Put of HALO
 * doubles into the right neighbour's attached memory, MPI_Win_detach,
 * MPI_Win_free): not replayable, since a replay's memory is elsewhere. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define WIN_N 64
#define DYN_N 32
#define DYN_STEPS 3
#define HALO 8
#define HALO_DISP 16
#define NSTEPS 5
#define NLOCKS 3
#define COUNTER_DISP 2

static int rank, size;

/* As in tests/progs/h5keep.c, on purpose: each test program is one source
 * file, read beside its test as the statement of what it calls. */
static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "onesided: rank %d: %s\n", rank, what);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

static void fence_epochs(MPI_Win win, double *mem)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double out[HALO], in[HALO];
    for (int s = 0; s < NSTEPS; s++) {
        for (int i = 0; i < HALO; i++)
            out[i] = rank * 1000 + s * 10 + i;
        MPI_Win_fence(0, win);
        MPI_Put(out, HALO, MPI_DOUBLE, right, HALO_DISP, HALO, MPI_DOUBLE, win);
        MPI_Get(in, HALO, MPI_DOUBLE, left, 0, HALO, MPI_DOUBLE, win);
        MPI_Win_fence(0, win);
        for (int i = 0; i < HALO; i++)
            check(mem[HALO_DISP + i] == left * 1000 + s * 10 + i, "the neighbour's Put");
        for (int i = 0; i < HALO; i++)
            check(in[i] == left * 10000 + i, "the Get from the neighbour");
    }
}

static void passive(void)
{
    long *cnt;
    MPI_Win win;
    MPI_Win_allocate(WIN_N * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &cnt, &win);
    memset(cnt, 0, WIN_N * sizeof(long));
    MPI_Barrier(MPI_COMM_WORLD);
    long one = 1, old = -1;
    for (int i = 0; i < NLOCKS; i++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, COUNTER_DISP, MPI_SUM, win);
        MPI_Win_unlock(0, win);
        check(old >= 0 && old < (long)size * NLOCKS, "the counter's old value");
    }
    MPI_Win_lock_all(0, win);
    long v = rank + 1, cmp = 0, res = -1;
    MPI_Accumulate(&v, 1, MPI_LONG, 0, COUNTER_DISP + 1, 1, MPI_LONG, MPI_SUM, win);
    MPI_Win_flush(0, win);
    MPI_Compare_and_swap(&v, &cmp, &res, MPI_LONG, (rank + 1) % size, COUNTER_DISP + 2, win);
    MPI_Win_flush_all(win);
    MPI_Request rq;
    long put = 7 * (rank + 1), got = -1;
    MPI_Rput(&put, 1, MPI_LONG, (rank + 1) % size, COUNTER_DISP + 3, 1, MPI_LONG, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    MPI_Rget(&got, 1, MPI_LONG, (rank + 1) % size, COUNTER_DISP + 3, 1, MPI_LONG, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(win);
    check(got == 7 * (rank + 1), "the Rget of what the Rput wrote");
    MPI_Barrier(MPI_COMM_WORLD);
    /* the window's own memory, read in an epoch on itself */
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    MPI_Win_sync(win);
    if (rank == 0) {
        check(cnt[COUNTER_DISP] == (long)size * NLOCKS, "the shared counter");
        check(cnt[COUNTER_DISP + 1] == (long)size * (size + 1) / 2, "the accumulated sum");
    }
    MPI_Win_unlock(rank, win);
    MPI_Win_free(&win);
}

static void pscw(MPI_Win win, double *mem)
{
    MPI_Group world, peers;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int n[2] = {(rank + size - 1) % size, (rank + 1) % size};
    MPI_Group_incl(world, size > 2 ? 2 : 1, size > 2 ? n : n + 1, &peers);
    double out[HALO];
    for (int i = 0; i < HALO; i++)
        out[i] = -rank - i;
    MPI_Win_post(peers, 0, win);
    MPI_Win_start(peers, 0, win);
    MPI_Put(out, HALO, MPI_DOUBLE, n[1], 0, HALO, MPI_DOUBLE, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    check(mem[0] == -n[0], "the PSCW Put");
    MPI_Group_free(&peers);
    MPI_Group_free(&world);
}

static void large_counts(MPI_Win win, double *mem)
{
#if MPI_VERSION >= 4
    double out[HALO], in[HALO];
    for (int i = 0; i < HALO; i++)
        out[i] = rank + 0.5;
    MPI_Win_fence(0, win);
    MPI_Put_c(out, HALO, MPI_DOUBLE, (rank + 1) % size, HALO_DISP, HALO, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    MPI_Get_c(in, HALO, MPI_DOUBLE, (rank + 1) % size, HALO_DISP, HALO, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    check(in[0] == rank + 0.5 && mem[HALO_DISP] == (rank + size - 1) % size + 0.5, "the large-count Put and Get");
#else
    (void)win, (void)mem;
#endif
}

static void dynamic_window(void)
{
    static double mem[DYN_N], out[HALO];
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_attach(win, mem, sizeof mem);
    MPI_Aint mine, all[1024];
    MPI_Get_address(mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
    int right = (rank + 1) % size;
    for (int step = 0; step < DYN_STEPS; step++) {
        for (int i = 0; i < HALO; i++)
            out[i] = rank * 100 + step;
        MPI_Win_fence(0, win);
        MPI_Put(out, HALO, MPI_DOUBLE, right, all[right], HALO, MPI_DOUBLE, win);
        MPI_Win_fence(0, win);
        check(mem[0] == ((rank + size - 1) % size) * 100 + step, "the dynamic window's Put");
    }
    MPI_Win_detach(win, mem);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static double mem[WIN_N];
    for (int i = 0; i < WIN_N; i++)
        mem[i] = rank * 10000 + i;
    MPI_Win win;
    MPI_Win_create(mem, sizeof mem, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    fence_epochs(win, mem);
    passive();
    pscw(win, mem);
    large_counts(win, mem);
    MPI_Win_free(&win);

    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "onesided.out", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_File_write_at_all(fh, (MPI_Offset)rank * WIN_N * 8, mem, WIN_N, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);

    if (argc > 1 && strcmp(argv[1], "dynamic") == 0 && size <= 1024)
        dynamic_window();
    if (argc > 1 && strcmp(argv[1], "ports") == 0) {
        /* Not every MPI build offers ports (MPICH over UCX does not): the
         * call is made either way, and the program says how it went. */
        char port[MPI_MAX_PORT_NAME];
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        int opened = MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS;
        if (opened)
            MPI_Close_port(port);
        printf("rank %d: port %s\n", rank, opened ? "opened" : "refused");
    }
    MPI_Finalize();
    return 0;
}
