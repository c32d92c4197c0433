/* flash-io: a FLASH-IO-like kernel, the I/O of the FLASH astrophysics code.
 *
 * FLASH keeps its solution on a block-structured adaptive mesh: every rank
 * owns a few blocks of NXB x NYB x NZB cells, each cell holding NVAR = 24
 * variables ("unk"). Periodically it writes, through parallel HDF5 on
 * MPI_COMM_WORLD:
 *   <prefix>_hdf5_chk_0000      a checkpoint: the 24 variables in double
 *                               precision, one dataset each, shaped
 *                               [total blocks][NZB][NYB][NXB], plus the tree
 *                               metadata ("refine level", "node type", "gid",
 *                               "coordinates", "block size", "bounding box"),
 *                               the run information (file attributes "time",
 *                               "timestep", "number of steps", "nxb"... and
 *                               the compound dataset "sim info") and the
 *                               "unknown names" string dataset;
 *   <prefix>_hdf5_plt_cnt_0000  a plot file: 4 variables at cell centres in
 *                               single precision, with the same metadata;
 *   <prefix>_hdf5_plt_crn_0000  the same 4 variables interpolated to the cell
 *                               corners ([NZB+1][NYB+1][NXB+1] per block).
 * Each rank selects its own blocks (a hyperslab starting at its first global
 * block) in every per-block dataset, including the metadata ones; datasets
 * that are not per block are written by rank 0 alone. The transfers are
 * collective (H5FD_MPIO_COLLECTIVE) unless -i is given. With -r the
 * checkpoint is opened again and read back, and every value is checked: the
 * values are a function of (global block, cell, variable) only. Datasets
 * are created without modification times (H5Pset_obj_track_times(dcpl, 0);
 * HDF5 stores them by default), so two runs give byte-identical files.
 *
 * usage: flash-io [-n blocks_per_rank=4] [-z block_edge=8] [-i] [-r]
 *                 [-o prefix=flash_io_test]
 *   -i independent transfers, -r read the checkpoint back and verify it. */
#define _GNU_SOURCE
#include <hdf5.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVAR 24
#define NPLOT 4
#define NDIM 3
#define NGID 15 /* 2*NDIM face neighbours, the parent, 2^NDIM children */
#define NAMELEN 80

static const char *const unk_names[NVAR] = {"dens", "velx", "vely", "velz", "pres", "ener", "temp", "gamc",
                                            "game", "enuc", "gpot", "flam", "eint", "magx", "magy", "magz",
                                            "divb", "shok", "sumy", "yele", "ahe4", "ac12", "ao16", "ane2"};
/* the plot variables, as indices into unk_names */
static const int plot_vars[NPLOT] = {0, 4, 6, 5}; /* dens pres temp ener */

static int rank, size;
static struct {
    int nb, edge, indep, read;
    const char *prefix;
} o = {4, 8, 0, 0, "flash_io_test"};

/* the mesh, derived from the options and the rank count */
static long tot;    /* total number of blocks */
static long first;  /* this rank's first global block */
static int nxb, nyb, nzb;
static long ncell;  /* cells per block */
static int mside;   /* the blocks tile a mside^3 lattice of the unit cube */
static hid_t dxpl;  /* transfer property list: collective or independent */
static hid_t dcpl;  /* dataset creation: no modification times, so that runs compare equal */

static const double sim_time = 0.125, sim_dt = 1.5e-4;
static const int sim_nstep = 800;

static void die(const char *what)
{
    fprintf(stderr, "flash-io: rank %d: %s failed\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static hid_t ok(hid_t id, const char *what)
{
    if (id < 0)
        die(what);
    return id;
}

static void okh(herr_t e, const char *what)
{
    if (e < 0)
        die(what);
}

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: flash-io [-n blocks_per_rank] [-z block_edge] [-i] [-r] [-o prefix]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* The value of variable v in cell c (x fastest) of global block g. */
static double cell_value(long g, long c, int v)
{
    return (double)(v + 1) + 1.0e-3 * (double)g + 1.0e-7 * (double)c;
}

/* ------------------------------------------------------------ mesh metadata */

struct meta {
    int *lrefine, *nodetype, *gid;              /* [nb], [nb], [nb][NGID] */
    double *coord, *bsize, *bbox;               /* [nb][3], [nb][3], [nb][3][2] */
};

static long lattice_id(long i, long j, long k)
{
    if (i < 0 || j < 0 || k < 0 || i >= mside || j >= mside || k >= mside)
        return -21; /* FLASH's code for an external (outflow) boundary */
    long g = (k * mside + j) * mside + i;
    return g < tot ? g + 1 : -1; /* 1-based, as the Fortran code stores it */
}

static void meta_block(long g, int *lrefine, int *nodetype, int *gid, double *coord, double *bsize,
                       double *bbox)
{
    long i = g % mside, j = (g / mside) % mside, k = g / ((long)mside * mside);
    long ijk[NDIM] = {i, j, k};
    int level = 1;
    while ((1 << (level - 1)) < mside)
        level++;
    *lrefine = level;
    *nodetype = 1; /* LEAF */
    gid[0] = (int)lattice_id(i - 1, j, k);
    gid[1] = (int)lattice_id(i + 1, j, k);
    gid[2] = (int)lattice_id(i, j - 1, k);
    gid[3] = (int)lattice_id(i, j + 1, k);
    gid[4] = (int)lattice_id(i, j, k - 1);
    gid[5] = (int)lattice_id(i, j, k + 1);
    gid[6] = -1; /* parent: not stored in this uniform tree */
    for (int c = 0; c < 8; c++)
        gid[7 + c] = -1; /* leaves have no children */
    double h = 1.0 / mside;
    for (int d = 0; d < NDIM; d++) {
        bsize[d] = h;
        coord[d] = (ijk[d] + 0.5) * h;
        bbox[2 * d] = ijk[d] * h;
        bbox[2 * d + 1] = (ijk[d] + 1) * h;
    }
}

static void meta_fill(struct meta *m)
{
    m->lrefine = malloc(sizeof(int) * o.nb);
    m->nodetype = malloc(sizeof(int) * o.nb);
    m->gid = malloc(sizeof(int) * o.nb * NGID);
    m->coord = malloc(sizeof(double) * o.nb * NDIM);
    m->bsize = malloc(sizeof(double) * o.nb * NDIM);
    m->bbox = malloc(sizeof(double) * o.nb * NDIM * 2);
    for (int b = 0; b < o.nb; b++)
        meta_block(first + b, &m->lrefine[b], &m->nodetype[b], &m->gid[b * NGID],
                   &m->coord[b * NDIM], &m->bsize[b * NDIM], &m->bbox[b * NDIM * 2]);
}

static void meta_free(struct meta *m)
{
    free(m->lrefine);
    free(m->nodetype);
    free(m->gid);
    free(m->coord);
    free(m->bsize);
    free(m->bbox);
}

/* ------------------------------------------------------------ HDF5 helpers */

static hid_t file_create(const char *name)
{
    hid_t fapl = ok(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate");
    okh(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "H5Pset_fapl_mpio");
    hid_t f = ok(H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl), name);
    okh(H5Pclose(fapl), "H5Pclose");
    return f;
}

/* Creates dataset `name` of shape [tot][inner...] and writes this rank's
 * o.nb rows (starting at row `first`) from buf. */
static void write_blocks(hid_t file, const char *name, hid_t ftype, hid_t mtype, int ninner, const hsize_t *inner,
                         const void *buf)
{
    hsize_t dims[5], start[5], count[5];
    int nd = ninner + 1;
    dims[0] = (hsize_t)tot;
    start[0] = (hsize_t)first;
    count[0] = (hsize_t)o.nb;
    for (int i = 0; i < ninner; i++) {
        dims[i + 1] = count[i + 1] = inner[i];
        start[i + 1] = 0;
    }
    hid_t fspace = ok(H5Screate_simple(nd, dims, NULL), "H5Screate_simple");
    hid_t dset = ok(H5Dcreate2(file, name, ftype, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT), name);
    okh(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL), "H5Sselect_hyperslab");
    hid_t mspace = ok(H5Screate_simple(nd, count, NULL), "H5Screate_simple");
    okh(H5Dwrite(dset, mtype, mspace, fspace, dxpl, buf), name);
    H5Sclose(mspace);
    H5Sclose(fspace);
    H5Dclose(dset);
}

/* Creates a 1-D dataset of n elements that rank 0 writes alone (the other
 * ranks take part with an empty selection in collective mode). */
static void write_root(hid_t file, const char *name, hid_t type, hsize_t n, const void *buf)
{
    hid_t fspace = ok(H5Screate_simple(1, &n, NULL), "H5Screate_simple");
    hid_t dset = ok(H5Dcreate2(file, name, type, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT), name);
    hid_t mspace = ok(H5Screate_simple(1, &n, NULL), "H5Screate_simple");
    if (rank != 0) {
        okh(H5Sselect_none(fspace), "H5Sselect_none");
        okh(H5Sselect_none(mspace), "H5Sselect_none");
    }
    if (rank == 0 || !o.indep)
        okh(H5Dwrite(dset, type, mspace, fspace, dxpl, buf), name);
    H5Sclose(mspace);
    H5Sclose(fspace);
    H5Dclose(dset);
}

static void attr_write(hid_t loc, const char *name, hid_t type, const void *val)
{
    hid_t space = ok(H5Screate(H5S_SCALAR), "H5Screate");
    hid_t a = ok(H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT), name);
    okh(H5Awrite(a, type, val), name);
    H5Aclose(a);
    H5Sclose(space);
}

static hid_t string_type(size_t n)
{
    hid_t t = ok(H5Tcopy(H5T_C_S1), "H5Tcopy");
    okh(H5Tset_size(t, n), "H5Tset_size");
    return t;
}

/* The run information and tree metadata common to checkpoint and plot files. */
static void write_common(hid_t file, const struct meta *m, int nvars, const int *vars)
{
    /* file attributes */
    int ival;
    attr_write(file, "time", H5T_NATIVE_DOUBLE, &sim_time);
    attr_write(file, "timestep", H5T_NATIVE_DOUBLE, &sim_dt);
    attr_write(file, "number of steps", H5T_NATIVE_INT, &sim_nstep);
    ival = (int)tot;
    attr_write(file, "total blocks", H5T_NATIVE_INT, &ival);
    ival = 7;
    attr_write(file, "file format version", H5T_NATIVE_INT, &ival);
    attr_write(file, "nxb", H5T_NATIVE_INT, &nxb);
    attr_write(file, "nyb", H5T_NATIVE_INT, &nyb);
    attr_write(file, "nzb", H5T_NATIVE_INT, &nzb);

    /* "sim info": one compound record */
    struct siminfo {
        int file_format_version;
        char setup_call[NAMELEN], flash_version[NAMELEN], run_comment[NAMELEN];
    } si;
    memset(&si, 0, sizeof si);
    si.file_format_version = 7;
    snprintf(si.setup_call, NAMELEN, "./setup Sedov -3d -auto -nxb=%d -nyb=%d -nzb=%d", nxb, nyb, nzb);
    snprintf(si.flash_version, NAMELEN, "FLASH I/O kernel (siotrace example)");
    snprintf(si.run_comment, NAMELEN, "%d ranks x %d blocks", size, o.nb);
    hid_t s80 = string_type(NAMELEN);
    hid_t sit = ok(H5Tcreate(H5T_COMPOUND, sizeof si), "H5Tcreate");
    H5Tinsert(sit, "file format version", HOFFSET(struct siminfo, file_format_version), H5T_NATIVE_INT);
    H5Tinsert(sit, "setup call", HOFFSET(struct siminfo, setup_call), s80);
    H5Tinsert(sit, "flash version", HOFFSET(struct siminfo, flash_version), s80);
    H5Tinsert(sit, "run comment", HOFFSET(struct siminfo, run_comment), s80);
    write_root(file, "sim info", sit, 1, &si);
    H5Tclose(sit);

    H5Tclose(s80);

    /* "unknown names": [nvars][1] strings of 4 characters */
    char names[NVAR * 4];
    for (int v = 0; v < nvars; v++)
        memcpy(names + 4 * v, unk_names[vars ? vars[v] : v], 4);
    hid_t s4 = string_type(4);
    {
        hsize_t dims[2] = {(hsize_t)nvars, 1};
        hid_t fspace = ok(H5Screate_simple(2, dims, NULL), "H5Screate_simple");
        hid_t dset =
            ok(H5Dcreate2(file, "unknown names", s4, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT), "unknown names");
        hid_t mspace = ok(H5Screate_simple(2, dims, NULL), "H5Screate_simple");
        if (rank != 0) {
            H5Sselect_none(fspace);
            H5Sselect_none(mspace);
        }
        if (rank == 0 || !o.indep)
            okh(H5Dwrite(dset, s4, mspace, fspace, dxpl, names), "unknown names");
        H5Sclose(mspace);
        H5Sclose(fspace);
        H5Dclose(dset);
    }
    H5Tclose(s4);

    /* the tree, one row per block */
    hsize_t d3 = NDIM, dgid = NGID, dbb[2] = {NDIM, 2};
    write_blocks(file, "refine level", H5T_STD_I32LE, H5T_NATIVE_INT, 0, NULL, m->lrefine);
    write_blocks(file, "node type", H5T_STD_I32LE, H5T_NATIVE_INT, 0, NULL, m->nodetype);
    write_blocks(file, "gid", H5T_STD_I32LE, H5T_NATIVE_INT, 1, &dgid, m->gid);
    write_blocks(file, "coordinates", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &d3, m->coord);
    write_blocks(file, "block size", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &d3, m->bsize);
    write_blocks(file, "bounding box", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, dbb, m->bbox);
}

/* ------------------------------------------------------------ the files */

/* unk is [nb][nzb][nyb][nxb][NVAR], as FLASH keeps it: each variable is
 * copied out to a contiguous buffer before it is written. */
static void write_checkpoint(const char *name, const double *unk, const struct meta *m)
{
    hid_t file = file_create(name);
    write_common(file, m, NVAR, NULL);
    double *buf = malloc(sizeof(double) * o.nb * ncell);
    hsize_t inner[3] = {(hsize_t)nzb, (hsize_t)nyb, (hsize_t)nxb};
    for (int v = 0; v < NVAR; v++) {
        for (long i = 0; i < o.nb * ncell; i++)
            buf[i] = unk[i * NVAR + v];
        write_blocks(file, unk_names[v], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, inner, buf);
    }
    free(buf);
    okh(H5Fclose(file), "H5Fclose");
}

static void write_plot(const char *name, const double *unk, const struct meta *m, int corners)
{
    hid_t file = file_create(name);
    write_common(file, m, NPLOT, plot_vars);
    int cx = nxb + corners, cy = nyb + corners, cz = nzb + corners;
    long n = (long)cx * cy * cz;
    float *buf = malloc(sizeof(float) * o.nb * n);
    hsize_t inner[3] = {(hsize_t)cz, (hsize_t)cy, (hsize_t)cx};
    for (int p = 0; p < NPLOT; p++) {
        int v = plot_vars[p];
        for (int b = 0; b < o.nb; b++) {
            const double *u = unk + (long)b * ncell * NVAR;
            for (int k = 0; k < cz; k++)
                for (int j = 0; j < cy; j++)
                    for (int i = 0; i < cx; i++) {
                        double s = 0;
                        int cnt = 0;
                        if (!corners) {
                            s = u[(((long)k * nyb + j) * nxb + i) * NVAR + v];
                            cnt = 1;
                        } else {
                            /* the average of the cells of this block that touch the corner */
                            for (int kk = k - 1; kk <= k; kk++)
                                for (int jj = j - 1; jj <= j; jj++)
                                    for (int ii = i - 1; ii <= i; ii++)
                                        if (kk >= 0 && kk < nzb && jj >= 0 && jj < nyb && ii >= 0 && ii < nxb) {
                                            s += u[(((long)kk * nyb + jj) * nxb + ii) * NVAR + v];
                                            cnt++;
                                        }
                        }
                        buf[(long)b * n + ((long)k * cy + j) * cx + i] = (float)(s / cnt);
                    }
        }
        write_blocks(file, unk_names[v], H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 3, inner, buf);
    }
    free(buf);
    okh(H5Fclose(file), "H5Fclose");
}

/* Reads `name` rows [first, first+nb) into buf. */
static void read_blocks(hid_t file, const char *name, hid_t mtype, int ninner, const hsize_t *inner, void *buf)
{
    hsize_t start[5] = {(hsize_t)first, 0, 0, 0, 0}, count[5] = {(hsize_t)o.nb, 0, 0, 0, 0};
    for (int i = 0; i < ninner; i++)
        count[i + 1] = inner[i];
    hid_t dset = ok(H5Dopen2(file, name, H5P_DEFAULT), name);
    hid_t fspace = ok(H5Dget_space(dset), "H5Dget_space");
    if (H5Sget_simple_extent_ndims(fspace) != ninner + 1)
        die(name);
    okh(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL), "H5Sselect_hyperslab");
    hid_t mspace = ok(H5Screate_simple(ninner + 1, count, NULL), "H5Screate_simple");
    okh(H5Dread(dset, mtype, mspace, fspace, dxpl, buf), name);
    H5Sclose(mspace);
    H5Sclose(fspace);
    H5Dclose(dset);
}

static long read_checkpoint(const char *name, const struct meta *m)
{
    long bad = 0;
    hid_t fapl = ok(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate");
    okh(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "H5Pset_fapl_mpio");
    hid_t file = ok(H5Fopen(name, H5F_ACC_RDONLY, fapl), name);
    H5Pclose(fapl);

    int nstep = -1;
    hid_t a = ok(H5Aopen(file, "number of steps", H5P_DEFAULT), "H5Aopen");
    okh(H5Aread(a, H5T_NATIVE_INT, &nstep), "H5Aread");
    H5Aclose(a);
    bad += nstep != sim_nstep;

    double *buf = malloc(sizeof(double) * o.nb * ncell);
    hsize_t inner[3] = {(hsize_t)nzb, (hsize_t)nyb, (hsize_t)nxb};
    for (int v = 0; v < NVAR; v++) {
        read_blocks(file, unk_names[v], H5T_NATIVE_DOUBLE, 3, inner, buf);
        for (int b = 0; b < o.nb; b++)
            for (long c = 0; c < ncell; c++)
                bad += buf[b * ncell + c] != cell_value(first + b, c, v);
    }
    free(buf);

    int *ibuf = malloc(sizeof(int) * o.nb * NGID);
    double *dbuf = malloc(sizeof(double) * o.nb * NDIM * 2);
    hsize_t d3 = NDIM, dgid = NGID, dbb[2] = {NDIM, 2};
    read_blocks(file, "refine level", H5T_NATIVE_INT, 0, NULL, ibuf);
    bad += memcmp(ibuf, m->lrefine, sizeof(int) * o.nb) != 0;
    read_blocks(file, "gid", H5T_NATIVE_INT, 1, &dgid, ibuf);
    bad += memcmp(ibuf, m->gid, sizeof(int) * o.nb * NGID) != 0;
    read_blocks(file, "coordinates", H5T_NATIVE_DOUBLE, 1, &d3, dbuf);
    bad += memcmp(dbuf, m->coord, sizeof(double) * o.nb * NDIM) != 0;
    read_blocks(file, "bounding box", H5T_NATIVE_DOUBLE, 2, dbb, dbuf);
    bad += memcmp(dbuf, m->bbox, sizeof(double) * o.nb * NDIM * 2) != 0;
    free(ibuf);
    free(dbuf);
    okh(H5Fclose(file), "H5Fclose");
    return bad;
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
            o.nb = atoi(argv[++i]);
        else if (!strcmp(a, "-z") && v)
            o.edge = atoi(argv[++i]);
        else if (!strcmp(a, "-o") && v)
            o.prefix = argv[++i];
        else if (!strcmp(a, "-i"))
            o.indep = 1;
        else if (!strcmp(a, "-r"))
            o.read = 1;
        else
            usage();
    }
    if (o.nb <= 0 || o.edge <= 0 || o.edge > 256)
        usage();
    nxb = nyb = nzb = o.edge;
    ncell = (long)nxb * nyb * nzb;
    tot = (long)o.nb * size;
    first = (long)o.nb * rank;
    mside = 1;
    while ((long)mside * mside * mside < tot)
        mside++;

    /* this rank's part of the solution, cell by cell with the variables innermost */
    double *unk = malloc(sizeof(double) * o.nb * ncell * NVAR);
    if (!unk)
        die("malloc");
    for (int b = 0; b < o.nb; b++)
        for (long c = 0; c < ncell; c++)
            for (int v = 0; v < NVAR; v++)
                unk[((long)b * ncell + c) * NVAR + v] = cell_value(first + b, c, v);
    struct meta m;
    meta_fill(&m);

    dcpl = ok(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate");
    okh(H5Pset_obj_track_times(dcpl, 0), "H5Pset_obj_track_times");
    dxpl = ok(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate");
    okh(H5Pset_dxpl_mpio(dxpl, o.indep ? H5FD_MPIO_INDEPENDENT : H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");

    char chk[1024], cnt[1024], crn[1024];
    snprintf(chk, sizeof chk, "%s_hdf5_chk_0000", o.prefix);
    snprintf(cnt, sizeof cnt, "%s_hdf5_plt_cnt_0000", o.prefix);
    snprintf(crn, sizeof crn, "%s_hdf5_plt_crn_0000", o.prefix);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    write_checkpoint(chk, unk, &m);
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    write_plot(cnt, unk, &m, 0);
    write_plot(crn, unk, &m, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    long bad = 0, total_bad = 0;
    if (o.read)
        bad = read_checkpoint(chk, &m);
    MPI_Barrier(MPI_COMM_WORLD);
    double t3 = MPI_Wtime();
    MPI_Allreduce(&bad, &total_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);

    if (rank == 0) {
        double chk_mib = (double)tot * ncell * NVAR * 8 / 1048576.0;
        double plt_mib = (double)tot * NPLOT * 4 * (ncell + (nxb + 1.0) * (nyb + 1) * (nzb + 1)) / 1048576.0;
        printf("flash-io: %d ranks x %d blocks of %dx%dx%d, %s: checkpoint %.2f MiB in %.3f s, plot files %.2f MiB "
               "in %.3f s",
               size, o.nb, nxb, nyb, nzb, o.indep ? "independent" : "collective", chk_mib, t1 - t0, plt_mib, t2 - t1);
        if (o.read)
            printf(", read back in %.3f s: %ld bad values\n", t3 - t2, total_bad);
        else
            printf("\n");
    }
    meta_free(&m);
    free(unk);
    H5Pclose(dxpl);
    H5Pclose(dcpl);
    MPI_Finalize();
    return total_bad ? 3 : 0;
}
