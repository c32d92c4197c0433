/* ior: an IOR-like parallel I/O benchmark kernel.
 *
 * Each of P ranks writes, for each of S segments, one block of B bytes in
 * transfers of T bytes, then reads it back and checks it:
 *   shared file (default): block of rank r in segment s at offset (s*P + r)*B
 *   file per process (-F):  block of segment s at offset s*B of file.<rank>
 * through POSIX (-a posix) or MPI-IO (-a mpiio, independent or -c collective),
 * or through a high-level library over MPI-IO, as IOR's backends do:
 *   -a hdf5   parallel HDF5: one 1-D dataset "data" of bytes (H5T_NATIVE_UCHAR)
 *             of S*P*B bytes (S*B per file with -F, the file opened on
 *             MPI_COMM_SELF), each transfer one hyperslab H5Dwrite/H5Dread at
 *             the same offsets as above, collective transfer mode with -c;
 *             built when HAVE_HDF5 is defined.
 *   -a ncmpi  PnetCDF: one NC_UBYTE variable "data" over one dimension of the
 *             same size (a CDF-5 file), each transfer one
 *             ncmpi_put_vara_uchar_all/ncmpi_get_vara_uchar_all with -c, or the
 *             independent forms between ncmpi_begin_indep_data and
 *             ncmpi_end_indep_data; built when HAVE_PNETCDF is defined.
 *
 * usage: ior [-a posix|mpiio|hdf5|ncmpi] [-b B] [-t T] [-s S] [-i reps] [-F] [-c]
 *            [-w] [-r] [-o file]
 *   -w only write, -r only read (a file written before); default both. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#ifdef HAVE_HDF5
#include <hdf5.h>
#endif
#ifdef HAVE_PNETCDF
#include <pnetcdf.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;
static struct {
    const char *api;
    long block, xfer, segments, reps;
    int fpp, coll, write, read;
    const char *file;
} o = {"posix", 65536, 16384, 4, 1, 0, 0, 1, 1, "ior.dat"};

static void fill(unsigned char *buf, long n, long long off)
{
    for (long i = 0; i < n; i++)
        buf[i] = (unsigned char)((off + i) * 31 + 7);
}

static long check(const unsigned char *buf, long n, long long off)
{
    long bad = 0;
    for (long i = 0; i < n; i++)
        bad += buf[i] != (unsigned char)((off + i) * 31 + 7);
    return bad;
}

static long long block_offset(long s)
{
    return o.fpp ? (long long)s * o.block : ((long long)s * size + rank) * o.block;
}

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: ior [-a posix|mpiio|hdf5|ncmpi] [-b B] [-t T] [-s S] [-i reps] [-F] [-c] [-w] [-r] "
                        "[-o file]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

#if defined(HAVE_HDF5) || defined(HAVE_PNETCDF)
/* the number of bytes in the file: S*P*B shared, S*B per process */
static long long file_bytes(void)
{
    return (long long)o.segments * o.block * (o.fpp ? 1 : size);
}
#endif

#ifdef HAVE_HDF5
static void h5_check(long long ret, const char *what)
{
    if (ret < 0) {
        fprintf(stderr, "ior: rank %d: %s failed\n", rank, what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static long phase_hdf5(int writing, unsigned char *buf, const char *name)
{
    long bad = 0;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    h5_check(fapl, "H5Pcreate");
    h5_check(H5Pset_fapl_mpio(fapl, o.fpp ? MPI_COMM_SELF : MPI_COMM_WORLD, MPI_INFO_NULL), "H5Pset_fapl_mpio");
    hid_t file, dset, fspace;
    if (writing) {
        file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        h5_check(file, "H5Fcreate");
        hsize_t dim = (hsize_t)file_bytes();
        fspace = H5Screate_simple(1, &dim, NULL);
        h5_check(fspace, "H5Screate_simple");
        /* no modification times in the object header: runs compare equal */
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        h5_check(dcpl, "H5Pcreate");
        h5_check(H5Pset_obj_track_times(dcpl, 0), "H5Pset_obj_track_times");
        dset = H5Dcreate2(file, "data", H5T_NATIVE_UCHAR, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        h5_check(dset, "H5Dcreate2");
        H5Pclose(dcpl);
    } else {
        file = H5Fopen(name, H5F_ACC_RDONLY, fapl);
        h5_check(file, "H5Fopen");
        dset = H5Dopen2(file, "data", H5P_DEFAULT);
        h5_check(dset, "H5Dopen2");
        fspace = H5Dget_space(dset);
        h5_check(fspace, "H5Dget_space");
    }
    H5Pclose(fapl);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    h5_check(dxpl, "H5Pcreate");
    h5_check(H5Pset_dxpl_mpio(dxpl, o.coll ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT), "H5Pset_dxpl_mpio");
    hsize_t count = (hsize_t)o.xfer;
    hid_t mspace = H5Screate_simple(1, &count, NULL);
    h5_check(mspace, "H5Screate_simple");
    for (long s = 0; s < o.segments; s++)
        for (long k = 0; k < o.block / o.xfer; k++) {
            long long off = block_offset(s) + k * o.xfer;
            hsize_t start = (hsize_t)off;
            h5_check(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL), "H5Sselect_hyperslab");
            if (writing) {
                fill(buf, o.xfer, off);
                h5_check(H5Dwrite(dset, H5T_NATIVE_UCHAR, mspace, fspace, dxpl, buf), "H5Dwrite");
            } else {
                h5_check(H5Dread(dset, H5T_NATIVE_UCHAR, mspace, fspace, dxpl, buf), "H5Dread");
                bad += check(buf, o.xfer, off);
            }
        }
    H5Sclose(mspace);
    H5Pclose(dxpl);
    H5Sclose(fspace);
    H5Dclose(dset);
    h5_check(H5Fclose(file), "H5Fclose");
    return bad;
}
#endif

#ifdef HAVE_PNETCDF
static void nc_check(int err, const char *what)
{
    if (err != NC_NOERR) {
        fprintf(stderr, "ior: rank %d: %s: %s\n", rank, what, ncmpi_strerror(err));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static long phase_ncmpi(int writing, unsigned char *buf, const char *name)
{
    long bad = 0;
    int ncid, varid, dimid;
    MPI_Comm comm = o.fpp ? MPI_COMM_SELF : MPI_COMM_WORLD;
    if (writing) {
        nc_check(ncmpi_create(comm, name, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid), "ncmpi_create");
        nc_check(ncmpi_def_dim(ncid, "bytes", (MPI_Offset)file_bytes(), &dimid), "ncmpi_def_dim");
        nc_check(ncmpi_def_var(ncid, "data", NC_UBYTE, 1, &dimid, &varid), "ncmpi_def_var");
        nc_check(ncmpi_enddef(ncid), "ncmpi_enddef");
    } else {
        nc_check(ncmpi_open(comm, name, NC_NOWRITE, MPI_INFO_NULL, &ncid), "ncmpi_open");
        nc_check(ncmpi_inq_varid(ncid, "data", &varid), "ncmpi_inq_varid");
    }
    if (!o.coll)
        nc_check(ncmpi_begin_indep_data(ncid), "ncmpi_begin_indep_data");
    MPI_Offset count = o.xfer;
    for (long s = 0; s < o.segments; s++)
        for (long k = 0; k < o.block / o.xfer; k++) {
            long long off = block_offset(s) + k * o.xfer;
            MPI_Offset start = off;
            if (writing) {
                fill(buf, o.xfer, off);
                if (o.coll)
                    nc_check(ncmpi_put_vara_uchar_all(ncid, varid, &start, &count, buf), "ncmpi_put_vara_uchar_all");
                else
                    nc_check(ncmpi_put_vara_uchar(ncid, varid, &start, &count, buf), "ncmpi_put_vara_uchar");
            } else {
                if (o.coll)
                    nc_check(ncmpi_get_vara_uchar_all(ncid, varid, &start, &count, buf), "ncmpi_get_vara_uchar_all");
                else
                    nc_check(ncmpi_get_vara_uchar(ncid, varid, &start, &count, buf), "ncmpi_get_vara_uchar");
                bad += check(buf, o.xfer, off);
            }
        }
    if (!o.coll)
        nc_check(ncmpi_end_indep_data(ncid), "ncmpi_end_indep_data");
    nc_check(ncmpi_close(ncid), "ncmpi_close");
    return bad;
}
#endif

static long phase(int writing, unsigned char *buf)
{
    char name[512];
    long bad = 0;
    if (o.fpp)
        snprintf(name, sizeof name, "%s.%08d", o.file, rank);
    else
        snprintf(name, sizeof name, "%s", o.file);
    if (strcmp(o.api, "posix") == 0) {
        int fd = open(name, writing ? O_CREAT | O_WRONLY : O_RDONLY, 0644);
        if (fd < 0) {
            perror(name);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (long s = 0; s < o.segments; s++)
            for (long k = 0; k < o.block / o.xfer; k++) {
                long long off = block_offset(s) + k * o.xfer;
                if (writing) {
                    fill(buf, o.xfer, off);
                    if (pwrite(fd, buf, (size_t)o.xfer, (off_t)off) != o.xfer)
                        MPI_Abort(MPI_COMM_WORLD, 1);
                } else {
                    if (pread(fd, buf, (size_t)o.xfer, (off_t)off) != o.xfer)
                        MPI_Abort(MPI_COMM_WORLD, 1);
                    bad += check(buf, o.xfer, off);
                }
            }
        if (writing)
            fsync(fd);
        close(fd);
    } else if (strcmp(o.api, "mpiio") == 0) {
        MPI_File fh;
        MPI_Comm comm = o.fpp ? MPI_COMM_SELF : MPI_COMM_WORLD;
        if (MPI_File_open(comm, name, writing ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY, MPI_INFO_NULL,
                          &fh) != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (long s = 0; s < o.segments; s++)
            for (long k = 0; k < o.block / o.xfer; k++) {
                MPI_Offset off = block_offset(s) + k * o.xfer;
                if (writing) {
                    fill(buf, o.xfer, off);
                    if (o.coll)
                        MPI_File_write_at_all(fh, off, buf, (int)o.xfer, MPI_BYTE, MPI_STATUS_IGNORE);
                    else
                        MPI_File_write_at(fh, off, buf, (int)o.xfer, MPI_BYTE, MPI_STATUS_IGNORE);
                } else {
                    if (o.coll)
                        MPI_File_read_at_all(fh, off, buf, (int)o.xfer, MPI_BYTE, MPI_STATUS_IGNORE);
                    else
                        MPI_File_read_at(fh, off, buf, (int)o.xfer, MPI_BYTE, MPI_STATUS_IGNORE);
                    bad += check(buf, o.xfer, off);
                }
            }
        if (writing)
            MPI_File_sync(fh);
        MPI_File_close(&fh);
#ifdef HAVE_HDF5
    } else if (strcmp(o.api, "hdf5") == 0) {
        bad = phase_hdf5(writing, buf, name);
#endif
#ifdef HAVE_PNETCDF
    } else if (strcmp(o.api, "ncmpi") == 0) {
        bad = phase_ncmpi(writing, buf, name);
#endif
    } else {
        usage();
    }
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
    int only_w = 0, only_r = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-a") && v)
            o.api = argv[++i];
        else if (!strcmp(a, "-b") && v)
            o.block = atol(argv[++i]);
        else if (!strcmp(a, "-t") && v)
            o.xfer = atol(argv[++i]);
        else if (!strcmp(a, "-s") && v)
            o.segments = atol(argv[++i]);
        else if (!strcmp(a, "-i") && v)
            o.reps = atol(argv[++i]);
        else if (!strcmp(a, "-o") && v)
            o.file = argv[++i];
        else if (!strcmp(a, "-F"))
            o.fpp = 1;
        else if (!strcmp(a, "-c"))
            o.coll = 1;
        else if (!strcmp(a, "-w"))
            only_w = 1;
        else if (!strcmp(a, "-r"))
            only_r = 1;
        else
            usage();
    }
    if (only_w || only_r) {
        o.write = only_w;
        o.read = only_r;
    }
    if (o.xfer <= 0 || o.block <= 0 || o.block % o.xfer || o.segments <= 0 || o.reps <= 0)
        usage();
    const char *missing = NULL;
#ifndef HAVE_HDF5
    if (strcmp(o.api, "hdf5") == 0)
        missing = "HDF5 (HAVE_HDF5)";
#endif
#ifndef HAVE_PNETCDF
    if (strcmp(o.api, "ncmpi") == 0)
        missing = "PnetCDF (HAVE_PNETCDF)";
#endif
    if (missing) {
        if (rank == 0)
            fprintf(stderr, "ior: -a %s: this ior was built without %s\n", o.api, missing);
        MPI_Finalize();
        return 2;
    }
    unsigned char *buf = malloc((size_t)o.xfer);
    long bad = 0;
    for (long rep = 0; rep < o.reps; rep++) {
        double t0 = MPI_Wtime();
        if (o.write)
            phase(1, buf);
        MPI_Barrier(MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        if (o.read)
            bad += phase(0, buf);
        MPI_Barrier(MPI_COMM_WORLD);
        double t2 = MPI_Wtime();
        long total_bad;
        MPI_Reduce(&bad, &total_bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            double mib = (double)o.block * o.segments * size / 1048576.0;
            printf("ior: %s%s%s, %d ranks, %ld segments x %ld B in %ld B transfers: write %.1f MiB/s, read %.1f "
                   "MiB/s, %ld bad bytes\n",
                   o.api, o.fpp ? " file-per-process" : " shared", o.coll ? " collective" : "", size, o.segments,
                   o.block, o.xfer, o.write ? mib / (t1 - t0) : 0.0, o.read ? mib / (t2 - t1) : 0.0, total_bad);
        }
    }
    free(buf);
    MPI_Finalize();
    return bad ? 3 : 0;
}
