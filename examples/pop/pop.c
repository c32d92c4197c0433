/* pop: a POP-like kernel, the structure of the Parallel Ocean Program's time
 * step and history output.
 *
 * The global horizontal grid (NX x NY points) is split in tiles over a 2-D,
 * non-periodic Cartesian process grid (MPI_Dims_create, MPI_Cart_create).
 * Every time step has
 *   - a baroclinic part: the "temperature" is advanced by an explicit
 *     diffusion stencil plus a step-dependent heating (one halo exchange);
 *   - a barotropic part: the surface height is the solution of an elliptic
 *     system (a 5-point Laplacian plus a diagonal term, zero outside the
 *     domain) whose right-hand side depends on the temperature and on the
 *     step, solved by conjugate gradients from the previous solution until
 *     the residual norm drops below a tolerance. Every CG iteration does one
 *     halo exchange (MPI_Irecv/MPI_Isend/MPI_Waitall with up to 4
 *     neighbours) and two MPI_Allreduce dot products, so the number of
 *     messages per step follows the (data-dependent) convergence.
 * Every K steps the history is written: rank 0 gathers both fields with
 * MPI_Gatherv, reassembles them and writes <prefix>_hist_<step>.nc through
 * PnetCDF on MPI_COMM_SELF (when built with -DHAVE_PNETCDF) or
 * <prefix>_hist_<step>.dat with POSIX open/write/close (a text header, then
 * the raw doubles: ssh, then temp, each NY rows of NX). Rank 0 also keeps a
 * stdio log, <prefix>_log.txt, with the CG iterations of every step.
 * Checks: every solve must converge, and the gathered fields must add up to
 * the sum of the tiles.
 *
 * usage: pop [-g NX[xNY]=64] [-s steps=10] [-k history_every=5] [-o prefix=pop] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_PNETCDF
#include <pnetcdf.h>
#endif

#define CG_MAXITER 500
#define CG_TOL 1.0e-6  /* relative to the norm of the right-hand side */
#define DIAG 0.6       /* the diagonal term of the barotropic operator */
#define KAPPA 0.1      /* diffusion number of the baroclinic stencil */
#define TCOEF 1.0e-4   /* weight of the temperature in the barotropic forcing */

static int rank, size;
static struct {
    int nx, ny, steps, every;
    const char *prefix;
} o = {64, 64, 10, 5, "pop"};

static MPI_Comm cart;
static int dims[2], coords[2];
static int north, south, west, east;
static int xs, ys, lx, ly; /* this tile: columns [xs, xs+lx), rows [ys, ys+ly) */
static int W;              /* row stride of a field with its halo: lx + 2 */
static double *sbuf_w, *sbuf_e, *rbuf_w, *rbuf_e;

#define AT(a, i, j) ((a)[(long)(j) * W + (i)]) /* i = 1..lx, j = 1..ly */

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: pop [-g NX[xNY]] [-s steps] [-k history_every] [-o prefix]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static void split(int n, int parts, int p, int *lo, int *len)
{
    *lo = p * (n / parts) + (p < n % parts ? p : n % parts);
    *len = n / parts + (p < n % parts);
}

/* Fills the halo of a from the four neighbours; the halo stays zero where
 * there is none (the edge of the domain). */
static void halo_exchange(double *a)
{
    enum { TO_N = 11, TO_S, TO_W, TO_E };
    MPI_Request rq[8];
    MPI_Status st[8];
    for (int j = 1; j <= ly; j++) {
        sbuf_w[j - 1] = AT(a, 1, j);
        sbuf_e[j - 1] = AT(a, lx, j);
    }
    MPI_Irecv(&AT(a, 1, 0), lx, MPI_DOUBLE, north, TO_S, cart, &rq[0]);
    MPI_Irecv(&AT(a, 1, ly + 1), lx, MPI_DOUBLE, south, TO_N, cart, &rq[1]);
    MPI_Irecv(rbuf_w, ly, MPI_DOUBLE, west, TO_E, cart, &rq[2]);
    MPI_Irecv(rbuf_e, ly, MPI_DOUBLE, east, TO_W, cart, &rq[3]);
    MPI_Isend(&AT(a, 1, 1), lx, MPI_DOUBLE, north, TO_N, cart, &rq[4]);
    MPI_Isend(&AT(a, 1, ly), lx, MPI_DOUBLE, south, TO_S, cart, &rq[5]);
    MPI_Isend(sbuf_w, ly, MPI_DOUBLE, west, TO_W, cart, &rq[6]);
    MPI_Isend(sbuf_e, ly, MPI_DOUBLE, east, TO_E, cart, &rq[7]);
    MPI_Waitall(8, rq, st);
    for (int j = 1; j <= ly; j++) {
        if (west != MPI_PROC_NULL)
            AT(a, 0, j) = rbuf_w[j - 1];
        if (east != MPI_PROC_NULL)
            AT(a, lx + 1, j) = rbuf_e[j - 1];
    }
}

static double dot(const double *a, const double *b)
{
    double local = 0, global;
    for (int j = 1; j <= ly; j++)
        for (int i = 1; i <= lx; i++)
            local += AT(a, i, j) * AT(b, i, j);
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, cart);
    return global;
}

/* y = A x, x with a valid halo */
static void apply_op(const double *x, double *y)
{
    for (int j = 1; j <= ly; j++)
        for (int i = 1; i <= lx; i++)
            AT(y, i, j) = (DIAG + 4.0) * AT(x, i, j) - AT(x, i - 1, j) - AT(x, i + 1, j) - AT(x, i, j - 1) -
                          AT(x, i, j + 1);
}

/* The baroclinic part: explicit diffusion of t plus heating. */
static void baroclinic(double *t, double *tmp, int step)
{
    halo_exchange(t);
    double phase = 0.37 * step;
    for (int j = 1; j <= ly; j++)
        for (int i = 1; i <= lx; i++) {
            double gx = (double)(xs + i - 1) / o.nx, gy = (double)(ys + j - 1) / o.ny;
            double heat = 0.02 * sin(2 * M_PI * gx + phase) * cos(M_PI * gy);
            AT(tmp, i, j) = AT(t, i, j) +
                            KAPPA * (AT(t, i - 1, j) + AT(t, i + 1, j) + AT(t, i, j - 1) + AT(t, i, j + 1) -
                                     4 * AT(t, i, j)) +
                            heat;
        }
    for (int j = 1; j <= ly; j++)
        for (int i = 1; i <= lx; i++)
            AT(t, i, j) = AT(tmp, i, j);
}

/* The right-hand side of the barotropic system: the (small) effect of the
 * temperature plus a surface wind forcing, a wave whose amplitude and
 * wavenumber jump at some steps and persist in between, so that the
 * warm-started solver has sometimes little and sometimes much to do. */
static void barotropic_rhs(const double *t, double *b, int step)
{
    static const double amp[10] = {0.5, 0.5, 0.5, 2e-3, 2e-3, 0.1, 0.1, 0.1, 0.1, 1e-5};
    static const int wave[10] = {3, 3, 3, 5, 5, 2, 2, 2, 2, 7};
    double a = amp[(step - 1) % 10];
    int k = wave[(step - 1) % 10];
    for (int j = 1; j <= ly; j++)
        for (int i = 1; i <= lx; i++) {
            double gx = (double)(xs + i - 1) / o.nx, gy = (double)(ys + j - 1) / o.ny;
            AT(b, i, j) = TCOEF * AT(t, i, j) + a * sin(k * M_PI * gx) * sin((k + 1) * M_PI * gy);
        }
}

/* Solves A x = b by conjugate gradients, x holding the first guess; returns
 * the number of iterations (-1 if it did not converge). */
static int cg_solve(double *x, const double *b, double *r, double *p, double *q, double *resid)
{
    halo_exchange(x);
    apply_op(x, q);
    for (int j = 1; j <= ly; j++)
        for (int i = 1; i <= lx; i++) {
            AT(r, i, j) = AT(b, i, j) - AT(q, i, j);
            AT(p, i, j) = AT(r, i, j);
        }
    double bb = dot(b, b), rr = dot(r, r);
    double target = CG_TOL * CG_TOL * (bb > 0 ? bb : 1.0);
    int it = 0;
    while (rr > target && it < CG_MAXITER) {
        halo_exchange(p);
        apply_op(p, q);
        double alpha = rr / dot(p, q);
        for (int j = 1; j <= ly; j++)
            for (int i = 1; i <= lx; i++) {
                AT(x, i, j) += alpha * AT(p, i, j);
                AT(r, i, j) -= alpha * AT(q, i, j);
            }
        double rr_new = dot(r, r);
        double beta = rr_new / rr;
        rr = rr_new;
        for (int j = 1; j <= ly; j++)
            for (int i = 1; i <= lx; i++)
                AT(p, i, j) = AT(r, i, j) + beta * AT(p, i, j);
        it++;
    }
    *resid = sqrt(rr / (bb > 0 ? bb : 1.0));
    return rr > target ? -1 : it;
}

/* ------------------------------------------------------------ history */

static int *counts, *displs;     /* Gatherv layout (rank 0) */
static int (*tiles)[4];          /* xs, ys, lx, ly of every rank (rank 0) */
static double *gbuf, *gfield[2]; /* gathered tiles, reassembled fields (rank 0) */

/* Gathers field a into gfield[which] on rank 0; returns 0 if the gathered
 * values add up to the sum of the tiles. */
static int gather_field(const double *a, int which)
{
    double *tile = malloc(sizeof(double) * (lx * ly > 0 ? lx * ly : 1));
    double local = 0, total = 0;
    for (int j = 1; j <= ly; j++)
        for (int i = 1; i <= lx; i++) {
            tile[(j - 1) * lx + (i - 1)] = AT(a, i, j);
            local += AT(a, i, j);
        }
    MPI_Gatherv(tile, lx * ly, MPI_DOUBLE, gbuf, counts, displs, MPI_DOUBLE, 0, cart);
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, cart);
    free(tile);
    if (rank != 0)
        return 0;
    double sum = 0;
    for (int r = 0; r < size; r++) {
        int tx = tiles[r][0], ty = tiles[r][1], tlx = tiles[r][2], tly = tiles[r][3];
        for (int j = 0; j < tly; j++)
            for (int i = 0; i < tlx; i++) {
                double v = gbuf[displs[r] + j * tlx + i];
                gfield[which][(long)(ty + j) * o.nx + tx + i] = v;
                sum += v;
            }
    }
    return fabs(sum - total) > 1e-9 * (fabs(total) + 1.0);
}

#ifdef HAVE_PNETCDF
static void nc_check(int err, const char *what)
{
    if (err != NC_NOERR) {
        fprintf(stderr, "pop: %s: %s\n", what, ncmpi_strerror(err));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void write_history(int step, double time)
{
    char name[1024];
    int ncid, dim[3], vtime, vars[2];
    snprintf(name, sizeof name, "%s_hist_%04d.nc", o.prefix, step);
    nc_check(ncmpi_create(MPI_COMM_SELF, name, NC_CLOBBER, MPI_INFO_NULL, &ncid), "ncmpi_create");
    nc_check(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dim[0]), "ncmpi_def_dim");
    nc_check(ncmpi_def_dim(ncid, "y", o.ny, &dim[1]), "ncmpi_def_dim");
    nc_check(ncmpi_def_dim(ncid, "x", o.nx, &dim[2]), "ncmpi_def_dim");
    nc_check(ncmpi_def_var(ncid, "time", NC_DOUBLE, 1, dim, &vtime), "ncmpi_def_var");
    nc_check(ncmpi_put_att_text(ncid, vtime, "units", 4, "days"), "ncmpi_put_att_text");
    static const char *vname[2] = {"SSH", "TEMP"}, *lname[2] = {"sea surface height", "potential temperature"},
                      *units[2] = {"cm", "degC"};
    double fill = 9.96921e36;
    for (int v = 0; v < 2; v++) {
        nc_check(ncmpi_def_var(ncid, vname[v], NC_DOUBLE, 3, dim, &vars[v]), "ncmpi_def_var");
        nc_check(ncmpi_put_att_text(ncid, vars[v], "long_name", strlen(lname[v]), lname[v]), "ncmpi_put_att_text");
        nc_check(ncmpi_put_att_text(ncid, vars[v], "units", strlen(units[v]), units[v]), "ncmpi_put_att_text");
        nc_check(ncmpi_put_att_double(ncid, vars[v], "missing_value", NC_DOUBLE, 1, &fill), "ncmpi_put_att_double");
    }
    static const char title[] = "POP-like ocean model history (siotrace example)";
    nc_check(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", strlen(title), title), "ncmpi_put_att_text");
    nc_check(ncmpi_put_att_double(ncid, NC_GLOBAL, "model_time", NC_DOUBLE, 1, &time), "ncmpi_put_att_double");
    nc_check(ncmpi_put_att_int(ncid, NC_GLOBAL, "step", NC_INT, 1, &step), "ncmpi_put_att_int");
    nc_check(ncmpi_enddef(ncid), "ncmpi_enddef");
    MPI_Offset start[3] = {0, 0, 0}, count[3] = {1, o.ny, o.nx};
    nc_check(ncmpi_put_vara_double_all(ncid, vtime, start, count, &time), "ncmpi_put_vara_double_all");
    for (int v = 0; v < 2; v++)
        nc_check(ncmpi_put_vara_double_all(ncid, vars[v], start, count, gfield[v]), "ncmpi_put_vara_double_all");
    nc_check(ncmpi_close(ncid), "ncmpi_close");
}
#else
static void write_all(int fd, const void *buf, size_t n, const char *name)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) {
            perror(name);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        p += w;
        n -= (size_t)w;
    }
}

static void write_history(int step, double time)
{
    char name[1024], header[256];
    snprintf(name, sizeof name, "%s_hist_%04d.dat", o.prefix, step);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) {
        perror(name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int n = snprintf(header, sizeof header,
                     "POP history\nstep %d\ntime %.6f\nnx %d\nny %d\nvars SSH TEMP\nformat float64 row-major\nend\n",
                     step, time, o.nx, o.ny);
    write_all(fd, header, (size_t)n, name);
    for (int v = 0; v < 2; v++)
        write_all(fd, gfield[v], sizeof(double) * o.nx * o.ny, name);
    if (close(fd) != 0) {
        perror(name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}
#endif

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
        if (!strcmp(a, "-g") && v) {
            char *end;
            o.nx = o.ny = (int)strtol(argv[++i], &end, 10);
            if (*end == 'x')
                o.ny = (int)strtol(end + 1, &end, 10);
            if (*end)
                usage();
        } else if (!strcmp(a, "-s") && v)
            o.steps = atoi(argv[++i]);
        else if (!strcmp(a, "-k") && v)
            o.every = atoi(argv[++i]);
        else if (!strcmp(a, "-o") && v)
            o.prefix = argv[++i];
        else
            usage();
    }
    if (o.nx <= 0 || o.ny <= 0 || o.steps < 0 || o.every <= 0)
        usage();

    /* the process grid: dims[0] rows of tiles (y), dims[1] columns (x) */
    int periods[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    if (dims[0] > o.ny || dims[1] > o.nx) {
        if (rank == 0)
            fprintf(stderr, "pop: a %dx%d grid is too small for %dx%d tiles\n", o.nx, o.ny, dims[1], dims[0]);
        MPI_Finalize();
        return 2;
    }
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 2, coords);
    MPI_Cart_shift(cart, 0, 1, &north, &south);
    MPI_Cart_shift(cart, 1, 1, &west, &east);
    split(o.ny, dims[0], coords[0], &ys, &ly);
    split(o.nx, dims[1], coords[1], &xs, &lx);
    W = lx + 2;

    long n = (long)(lx + 2) * (ly + 2);
    double *t = calloc(n, sizeof(double)), *tmp = calloc(n, sizeof(double));
    double *ssh = calloc(n, sizeof(double)), *b = calloc(n, sizeof(double));
    double *r = calloc(n, sizeof(double)), *p = calloc(n, sizeof(double)), *q = calloc(n, sizeof(double));
    sbuf_w = malloc(sizeof(double) * ly);
    sbuf_e = malloc(sizeof(double) * ly);
    rbuf_w = malloc(sizeof(double) * ly);
    rbuf_e = malloc(sizeof(double) * ly);

    /* initial state: a warm pool in a cooler ocean */
    for (int j = 1; j <= ly; j++)
        for (int i = 1; i <= lx; i++) {
            double gx = (double)(xs + i - 1) / o.nx - 0.4, gy = (double)(ys + j - 1) / o.ny - 0.55;
            AT(t, i, j) = 4.0 + 20.0 * exp(-(gx * gx + gy * gy) / 0.02);
        }

    /* the Gatherv layout */
    int mytile[4] = {xs, ys, lx, ly};
    if (rank == 0) {
        tiles = malloc(sizeof *tiles * size);
        counts = malloc(sizeof(int) * size);
        displs = malloc(sizeof(int) * size);
        gbuf = malloc(sizeof(double) * o.nx * o.ny);
        gfield[0] = malloc(sizeof(double) * o.nx * o.ny);
        gfield[1] = malloc(sizeof(double) * o.nx * o.ny);
    }
    MPI_Gather(mytile, 4, MPI_INT, tiles, 4, MPI_INT, 0, cart);
    if (rank == 0)
        for (int k = 0, off = 0; k < size; k++) {
            counts[k] = tiles[k][2] * tiles[k][3];
            displs[k] = off;
            off += counts[k];
        }

    FILE *log = NULL;
    char logname[1024];
    snprintf(logname, sizeof logname, "%s_log.txt", o.prefix);
    if (rank == 0) {
        log = fopen(logname, "w");
        if (!log) {
            perror(logname);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        fprintf(log, "POP-like run: grid %dx%d, %d ranks as %dx%d tiles, %d steps, history every %d\n", o.nx, o.ny,
                size, dims[1], dims[0], o.steps, o.every);
    }

    int *iters = malloc(sizeof(int) * (o.steps + 1));
    int failed = 0, nhist = 0;
    const double dt = 0.1; /* days */
    double t0 = MPI_Wtime();
    for (int step = 1; step <= o.steps; step++) {
        baroclinic(t, tmp, step);
        barotropic_rhs(t, b, step);
        double resid;
        iters[step] = cg_solve(ssh, b, r, p, q, &resid);
        if (iters[step] < 0)
            failed = 1;
        if (rank == 0)
            fprintf(log, "step %4d  time %8.3f  cg_iterations %4d  relative_residual %.3e\n", step, step * dt,
                    iters[step], resid);
        if (step % o.every == 0) {
            failed |= gather_field(ssh, 0);
            failed |= gather_field(t, 1);
            if (rank == 0)
                write_history(step, step * dt);
            nhist++;
        }
    }
    double t1 = MPI_Wtime();
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_LOR, cart);

    if (rank == 0) {
        fprintf(log, "end: %s\n", failed ? "FAILED" : "ok");
        fclose(log);
        int total = 0;
        printf("pop: %d ranks (%dx%d), %dx%d grid, %d steps, %d history files (%s), %.2f s, cg iterations:", size,
               dims[1], dims[0], o.nx, o.ny, o.steps, nhist,
#ifdef HAVE_PNETCDF
               "netCDF",
#else
               "POSIX",
#endif
               t1 - t0);
        for (int s = 1; s <= o.steps; s++) {
            printf(" %d", iters[s]);
            total += iters[s];
        }
        printf(" (total %d)%s\n", total, failed ? ", FAILED" : "");
        free(tiles);
        free(counts);
        free(displs);
        free(gbuf);
        free(gfield[0]);
        free(gfield[1]);
    }
    free(iters);
    free(t);
    free(tmp);
    free(ssh);
    free(b);
    free(r);
    free(p);
    free(q);
    free(sbuf_w);
    free(sbuf_e);
    free(rbuf_w);
    free(rbuf_e);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return failed ? 3 : 0;
}
