/* btio: a BT-IO-like kernel, the I/O of the NAS Parallel Benchmarks' BT
 * (block tri-diagonal solver) in its "full" MPI-IO subtype.
 *
 * The solution is an N x N x N grid of cells with 5 double components each,
 * decomposed over a square number of ranks P = q x q: every rank owns a
 * pencil with the full x extent and 1/q of y and of z (when q does not
 * divide N, the first N % q ranks along a direction get one more plane).
 * Every step each rank fills its pencil with values that depend only on
 * (step, global cell, component) and appends it to the solution file
 * <prefix>.out through a subarray file view (MPI_Type_create_subarray over
 * the global [N][N][N] array of 5-double elements, C order) whose
 * displacement is step * N^3 * 5 * 8 bytes, with one collective
 * MPI_File_write_all (-i: independent MPI_File_write). Afterwards the file
 * is opened again and every step is read back through the same views
 * (MPI_File_read_all, or MPI_File_read with -i) and checked.
 * btio_f.f90 is the same program in Fortran and writes the same file.
 *
 * usage: btio [-n N=24] [-s steps=5] [-i] [-o prefix=btio]
 * Needs a square number of ranks (1, 4, 9, 16, ...); exits 2 otherwise. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCOMP 5

static int rank, size;
static struct {
    int n, steps, indep;
    const char *prefix;
} o = {24, 5, 0, "btio"};

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: btio [-n N] [-s steps] [-i] [-o prefix]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static void split(int n, int parts, int p, int *lo, int *len)
{
    *lo = p * (n / parts) + (p < n % parts ? p : n % parts);
    *len = n / parts + (p < n % parts);
}

/* The value of component c of global cell (x, y, z) at step s: an exact
 * binary fraction, so that the C and Fortran versions agree bit for bit. */
static double value(long long s, long long c, long long x, long long y, long long z)
{
    long long n = o.n;
    return (double)((((s * NCOMP + c) * n + z) * n + y) * n + x) * 0.25 + 1.0;
}

/* The start of main and its option loop are the same in every example, on
 * purpose: each example is one source file built by one mpicc command
 * (examples/README.md) and shares no code with the others. */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-n") && v)
            o.n = atoi(argv[++i]);
        else if (!strcmp(a, "-s") && v)
            o.steps = atoi(argv[++i]);
        else if (!strcmp(a, "-o") && v)
            o.prefix = argv[++i];
        else if (!strcmp(a, "-i"))
            o.indep = 1;
        else
            usage();
    }
    int q = 0;
    while ((q + 1) * (q + 1) <= size)
        q++;
    if (q * q != size) {
        if (rank == 0)
            fprintf(stderr, "btio: the number of ranks must be a square (1, 4, 9, 16, ...)\n");
        MPI_Finalize();
        return 2;
    }
    if (o.n < q || o.steps <= 0)
        usage();

    /* this rank's pencil: all of x, y planes [ys, ys+ly), z planes [zs, zs+lz) */
    int cy = rank % q, cz = rank / q, ys, ly, zs, lz, n = o.n;
    split(n, q, cy, &ys, &ly);
    split(n, q, cz, &zs, &lz);
    long ncells = (long)lz * ly * n;

    MPI_Datatype elem, filetype;
    int sizes[3] = {n, n, n}, subsizes[3] = {lz, ly, n}, starts[3] = {zs, ys, 0};
    MPI_Type_contiguous(NCOMP, MPI_DOUBLE, &elem);
    MPI_Type_commit(&elem);
    MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, elem, &filetype);
    MPI_Type_commit(&filetype);
    MPI_Offset step_bytes = (MPI_Offset)n * n * n * NCOMP * sizeof(double);

    char name[1024];
    snprintf(name, sizeof name, "%s.out", o.prefix);
    double *u = malloc(sizeof(double) * ncells * NCOMP);
    if (!u) {
        fprintf(stderr, "btio: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Status st;
    MPI_File fh;

    /* write: one step after the other, appended to the file */
    if (rank == 0)
        MPI_File_delete(name, MPI_INFO_NULL); /* may not exist */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
        fprintf(stderr, "btio: cannot create %s\n", name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int s = 0; s < o.steps; s++) {
        for (int k = 0; k < lz; k++)
            for (int j = 0; j < ly; j++)
                for (int i = 0; i < n; i++)
                    for (int c = 0; c < NCOMP; c++)
                        u[(((long)k * ly + j) * n + i) * NCOMP + c] = value(s, c, i, ys + j, zs + k);
        MPI_File_set_view(fh, s * step_bytes, elem, filetype, "native", MPI_INFO_NULL);
        if (o.indep)
            MPI_File_write(fh, u, (int)ncells, elem, &st);
        else
            MPI_File_write_all(fh, u, (int)ncells, elem, &st);
    }
    MPI_File_close(&fh);
    double t1 = MPI_Wtime();

    /* read back and verify */
    long long bad = 0, total_bad = 0;
    if (MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
        fprintf(stderr, "btio: cannot open %s\n", name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int s = 0; s < o.steps; s++) {
        memset(u, 0, sizeof(double) * ncells * NCOMP);
        MPI_File_set_view(fh, s * step_bytes, elem, filetype, "native", MPI_INFO_NULL);
        if (o.indep)
            MPI_File_read(fh, u, (int)ncells, elem, &st);
        else
            MPI_File_read_all(fh, u, (int)ncells, elem, &st);
        for (int k = 0; k < lz; k++)
            for (int j = 0; j < ly; j++)
                for (int i = 0; i < n; i++)
                    for (int c = 0; c < NCOMP; c++)
                        bad += u[(((long)k * ly + j) * n + i) * NCOMP + c] != value(s, c, i, ys + j, zs + k);
    }
    MPI_File_close(&fh);
    double t2 = MPI_Wtime();
    MPI_Allreduce(&bad, &total_bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);

    if (rank == 0) {
        double mib = (double)step_bytes * o.steps / 1048576.0;
        printf("btio: %d ranks (%dx%d), %d^3 cells x %d doubles, %d steps, %s: wrote %.2f MiB in %.3f s, read in "
               "%.3f s, verification %s (%lld bad values)\n",
               size, q, q, n, NCOMP, o.steps, o.indep ? "independent" : "collective", mib, t1 - t0, t2 - t1,
               total_bad ? "FAILED" : "SUCCESSFUL", total_bad);
    }
    free(u);
    MPI_Type_free(&filetype);
    MPI_Type_free(&elem);
    MPI_Finalize();
    return total_bad ? 3 : 0;
}
