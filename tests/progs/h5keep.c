/* HDF5 identifiers kept alive by reference counts, netCDF-4's way
 * (netcdf-c libhdf5/hdf5open.c): a dataset opened with H5Oopen, its count
 * raised with H5Iinc_ref, closed with H5Oclose, and read through the same
 * identifier afterwards. Every rank writes its NPER ints of one dataset
 * through the MPI-IO driver, then reads them back READS times through
 * kept identifiers:
 *   1. H5Oopen, H5Iinc_ref, H5Oclose; new ids made; H5Dread
 *   2. H5Iinc_ref, H5Dclose; H5Dread; H5Idec_ref (the last reference)
 *   3. H5Dopen2, H5Iinc_ref, H5Dclose; H5Dread; H5Dclose (the last)
 * usage: mpirun -np P h5keep FILE */
#include <stdio.h>
#include <stdlib.h>

#include <hdf5.h>
#include <mpi.h>

#define NPER 16
#define READS 3

static int rank, nprocs;

/* As in tests/progs/onesided.c, on purpose: each test program is one source
 * file, read beside its test as the statement of what it calls. */
static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "h5keep: rank %d: %s failed\n", rank, what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* The file space of the dataset with this rank's NPER ints selected. */
static hid_t my_slab(hid_t dset)
{
    hsize_t start = (hsize_t)rank * NPER, count = NPER;
    hid_t fs = H5Dget_space(dset);
    check(fs >= 0, "H5Dget_space");
    check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0, "H5Sselect_hyperslab");
    return fs;
}

static void write_file(const char *path, hid_t fapl)
{
    int val[NPER];
    for (int i = 0; i < NPER; i++)
        val[i] = rank * NPER + i;
    hsize_t all = (hsize_t)nprocs * NPER, n = NPER;
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    check(f >= 0, "H5Fcreate");
    hid_t space = H5Screate_simple(1, &all, NULL), ms = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(f, "v", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(d >= 0, "H5Dcreate2");
    hid_t fs = my_slab(d);
    check(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, val) >= 0, "H5Dwrite");
    H5Sclose(fs);
    H5Sclose(ms);
    H5Sclose(space);
    H5Dclose(d);
    H5Fclose(f);
}

/* One H5Dread of this rank's ints through dset, checked. */
static void read_mine(hid_t dset, hid_t xfer)
{
    int got[NPER];
    hsize_t n = NPER;
    hid_t ms = H5Screate_simple(1, &n, NULL), fs = my_slab(dset);
    check(H5Dread(dset, H5T_NATIVE_INT, ms, fs, xfer, got) >= 0, "H5Dread through a kept identifier");
    for (int i = 0; i < NPER; i++)
        check(got[i] == rank * NPER + i, "the values read back");
    H5Sclose(fs);
    H5Sclose(ms);
}

/* 1 and 2: kept over H5Oclose, then over H5Dclose until H5Idec_ref. */
static void kept_over_closes(hid_t f)
{
    hid_t o = H5Oopen(f, "v", H5P_DEFAULT);
    check(o >= 0, "H5Oopen");
    check(H5Iinc_ref(o) == 2, "H5Iinc_ref");
    check(H5Oclose(o) >= 0 && H5Iis_valid(o) > 0, "H5Oclose of a kept dataset");
    /* identifiers made while the dataset is kept: none may take its place */
    hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
    read_mine(o, xfer);
    check(H5Iinc_ref(o) == 2, "H5Iinc_ref again");
    check(H5Dclose(o) >= 0 && H5Iis_valid(o) > 0, "H5Dclose of a kept dataset");
    read_mine(o, xfer);
    check(H5Idec_ref(o) == 0, "H5Idec_ref of the last reference");
    H5Pclose(xfer);
}

/* 3: kept over one H5Dclose, ended by another. */
static void kept_then_closed_twice(hid_t f)
{
    hid_t d = H5Dopen2(f, "v", H5P_DEFAULT);
    check(d >= 0, "H5Dopen2");
    check(H5Iinc_ref(d) == 2, "H5Iinc_ref");
    check(H5Dclose(d) >= 0, "H5Dclose of a kept dataset");
    read_mine(d, H5P_DEFAULT);
    check(H5Dclose(d) >= 0 && H5Iis_valid(d) <= 0, "H5Dclose of the last reference");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    check(argc == 2, "usage: h5keep FILE");
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    check(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) >= 0, "H5Pset_fapl_mpio");
    write_file(argv[1], fapl);
    hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
    check(f >= 0, "H5Fopen");
    kept_over_closes(f);
    kept_then_closed_twice(f);
    H5Fclose(f);
    H5Pclose(fapl);
    MPI_Finalize();
    return 0;
}
