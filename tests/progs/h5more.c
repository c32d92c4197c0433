/* HDF5 calls beyond create/open/read/write (one process, the sec2 driver):
 * direct chunk I/O, a point selection, a soft link opened as an object, a
 * committed datatype, the file size.
 * usage: h5more FILE */
#include <stdio.h>
#include <stdlib.h>

#include <hdf5.h>
#include <mpi.h>

#define N 8    /* the dataset is N x N ints */
#define CH 4   /* in CH x CH chunks */
#define NPTS 3 /* points written through H5Sselect_elements */
#define NC 5   /* records written from a struct in memory into a one-member compound */

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "h5more: %s failed\n", what);
        exit(1);
    }
}

static hid_t chunked_dataset(hid_t f)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t dims[2] = {N, N}, chunk[2] = {CH, CH};
    check(H5Pset_chunk(dcpl, 2, chunk) >= 0, "H5Pset_chunk");
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t ds = H5Dcreate2(f, "ds", H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    check(ds >= 0, "H5Dcreate2");
    H5Sclose(space);
    H5Pclose(dcpl);
    return ds;
}

/* One whole chunk written and read back around the chunk cache. */
static void direct_chunk(hid_t ds)
{
    int out[CH * CH], in[CH * CH];
    for (int i = 0; i < CH * CH; i++)
        out[i] = 1000 + i;
    hsize_t at[2] = {CH, 0};
    check(H5Dwrite_chunk(ds, H5P_DEFAULT, 0, at, sizeof out, out) >= 0, "H5Dwrite_chunk");
    uint32_t filters = 1;
    check(H5Dread_chunk(ds, H5P_DEFAULT, at, &filters, in) >= 0 && filters == 0, "H5Dread_chunk");
    for (int i = 0; i < CH * CH; i++)
        check(in[i] == out[i], "the chunk read back");
}

static void points(hid_t ds)
{
    hsize_t coord[NPTS][2] = {{0, 1}, {2, 3}, {7, 7}}, n = NPTS;
    int val[NPTS] = {11, 22, 33};
    hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(1, &n, NULL);
    check(H5Sselect_elements(fs, H5S_SELECT_SET, NPTS, &coord[0][0]) >= 0, "H5Sselect_elements");
    check(H5Dwrite(ds, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, val) >= 0, "H5Dwrite");
    H5Sclose(ms);
    H5Sclose(fs);
}

/* Records in memory of which the file keeps one member (h5bench's
 * interleaved particles): HDF5 converts, and the file gets NC ints. */
typedef struct record {
    int a;
    double b;
    float c;
} record;

static void compound(hid_t f)
{
    hsize_t n = NC;
    hid_t ft = H5Tcreate(H5T_COMPOUND, sizeof(int)), mt = H5Tcreate(H5T_COMPOUND, sizeof(record));
    H5Tinsert(ft, "a", 0, H5T_NATIVE_INT);
    H5Tinsert(mt, "a", HOFFSET(record, a), H5T_NATIVE_INT);
    H5Tinsert(mt, "b", HOFFSET(record, b), H5T_NATIVE_DOUBLE);
    H5Tinsert(mt, "c", HOFFSET(record, c), H5T_NATIVE_FLOAT);
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(f, "records", ft, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    record r[NC];
    for (int i = 0; i < NC; i++)
        r[i] = (record){i, i * 0.5, (float)i};
    check(d >= 0 && H5Dwrite(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) >= 0, "H5Dwrite (compound)");
    H5Dclose(d);
    H5Sclose(sp);
    H5Tclose(mt);
    H5Tclose(ft);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *path = argc > 1 ? argv[1] : "h5more.h5";
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    check(f >= 0, "H5Fcreate");
    hid_t ds = chunked_dataset(f);
    direct_chunk(ds);
    points(ds);
    H5Dclose(ds);
    compound(f);
    check(H5Lcreate_soft("/ds", f, "alias", H5P_DEFAULT, H5P_DEFAULT) >= 0, "H5Lcreate_soft");
    check(H5Lexists(f, "alias", H5P_DEFAULT) > 0, "H5Lexists");
    hid_t o = H5Oopen(f, "alias", H5P_DEFAULT);
    check(o >= 0 && H5Oclose(o) >= 0, "H5Oopen/H5Oclose");
    hid_t t = H5Tcopy(H5T_NATIVE_INT);
    check(H5Tcommit2(f, "itype", t, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) >= 0, "H5Tcommit2");
    H5Tclose(t);
    t = H5Topen2(f, "itype", H5P_DEFAULT);
    check(t >= 0 && H5Tclose(t) >= 0, "H5Topen2");
    check(H5Ldelete(f, "alias", H5P_DEFAULT) >= 0, "H5Ldelete");
    check(H5Fflush(f, H5F_SCOPE_GLOBAL) >= 0, "H5Fflush");
    hsize_t size = 0;
    check(H5Fget_filesize(f, &size) >= 0 && size > 0, "H5Fget_filesize");
    printf("filesize %llu\n", (unsigned long long)size);
    check(H5Fclose(f) >= 0, "H5Fclose");
    MPI_Finalize();
    return 0;
}
