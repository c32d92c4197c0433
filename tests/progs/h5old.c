/* A program of the HDF5 1.6 API (built with -DH5_USE_16_API, as old codes
 * are): H5Dcreate, H5Dopen, H5Gcreate, H5Gopen, H5Acreate and H5Eset_auto
 * are the macros of the 1.6 names (H5Dcreate1...). Every rank writes and
 * reads back its own rows of NDSETS datasets of NROWS x NCOLS ints in one
 * parallel file, through MPI-IO.
 * usage: h5old FILE */
#include <stdio.h>
#include <stdlib.h>

#include <hdf5.h>
#include <mpi.h>

#define NDSETS 5 /* datasets created with H5Dcreate, reopened with H5Dopen */
#define ROWS 4   /* rows per rank */
#define NCOLS 8

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "h5old: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* The file space of a dataset with this rank's rows selected. */
static hid_t my_rows(hid_t dset, int rank)
{
    hid_t fs = H5Dget_space(dset);
    hsize_t start[2] = {(hsize_t)rank * ROWS, 0}, count[2] = {ROWS, NCOLS};
    check(fs >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0, "selection");
    return fs;
}

static void write_file(const char *path, int rank, int size, int *buf)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    check(f >= 0, "H5Fcreate");
    hid_t g = H5Gcreate(f, "/data", 0);
    check(g >= 0, "H5Gcreate");
    hsize_t dims[2] = {(hsize_t)size * ROWS, NCOLS}, one = 1;
    hid_t space = H5Screate_simple(2, dims, NULL), mem = H5Screate_simple(2, (hsize_t[]){ROWS, NCOLS}, NULL);
    hid_t ascalar = H5Screate_simple(1, &one, NULL);
    hid_t a = H5Acreate(g, "ranks", H5T_NATIVE_INT, ascalar, H5P_DEFAULT);
    check(a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &size) >= 0, "H5Acreate/H5Awrite");
    H5Aclose(a);
    for (int d = 0; d < NDSETS; d++) {
        char name[32];
        snprintf(name, sizeof name, "d%d", d);
        hid_t ds = H5Dcreate(g, name, H5T_NATIVE_INT, space, H5P_DEFAULT);
        check(ds >= 0, "H5Dcreate");
        for (int i = 0; i < ROWS * NCOLS; i++)
            buf[i] = d * 1000000 + rank * 1000 + i;
        hid_t fs = my_rows(ds, rank);
        check(H5Dwrite(ds, H5T_NATIVE_INT, mem, fs, H5P_DEFAULT, buf) >= 0, "H5Dwrite");
        H5Sclose(fs);
        H5Dclose(ds);
    }
    H5Sclose(ascalar);
    H5Sclose(mem);
    H5Sclose(space);
    H5Gclose(g);
    H5Pclose(fapl);
    check(H5Fclose(f) >= 0, "H5Fclose");
}

static void read_file(const char *path, int rank, int *buf)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, fapl);
    check(f >= 0, "H5Fopen");
    hid_t g = H5Gopen(f, "/data");
    check(g >= 0, "H5Gopen");
    hid_t mem = H5Screate_simple(2, (hsize_t[]){ROWS, NCOLS}, NULL);
    for (int d = 0; d < NDSETS; d++) {
        char name[32];
        snprintf(name, sizeof name, "d%d", d);
        hid_t ds = H5Dopen(g, name);
        check(ds >= 0, "H5Dopen");
        hid_t fs = my_rows(ds, rank);
        check(H5Dread(ds, H5T_NATIVE_INT, mem, fs, H5P_DEFAULT, buf) >= 0, "H5Dread");
        for (int i = 0; i < ROWS * NCOLS; i++)
            check(buf[i] == d * 1000000 + rank * 1000 + i, "the data read back");
        H5Sclose(fs);
        H5Dclose(ds);
    }
    H5Sclose(mem);
    H5Gclose(g);
    H5Pclose(fapl);
    H5Fclose(f);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    H5Eset_auto(NULL, NULL); /* the 1.6 form: no error stack argument */
    int *buf = malloc(ROWS * NCOLS * sizeof *buf);
    check(buf != NULL, "malloc");
    const char *path = argc > 1 ? argv[1] : "h5old.h5";
    write_file(path, rank, size, buf);
    read_file(path, rank, buf);
    free(buf);
    MPI_Finalize();
    return 0;
}
