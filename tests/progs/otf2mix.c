#define _GNU_SOURCE
/* otf2mix: every kind of record `siot export --otf2` writes, in amounts
 * the test reads from the #defines below (tests/integ/94-export-otf2.sh):
 * POSIX writes and reads of a file per rank, MPI-IO writes of a shared
 * file (independent and collective), an HDF5 dataset written collectively,
 * with HAVE_PNETCDF a netCDF variable written collectively, messages around
 * a ring on MPI_COMM_WORLD and on the halves of an MPI_Comm_split, and
 * collectives on both; and a persistent send made and freed unstarted on
 * each rank, which OTF2 gets no message for (counted on stderr). */
#include <fcntl.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_PNETCDF
#include <pnetcdf.h>
#endif

#include "tests/progs/mpi_check.h"

/* NPW POSIX writes, then as many reads, of PW bytes each; NMIO
 * MPI_File_write_at calls of MIO bytes, then one write_at_all of MIO; H5N
 * doubles each rank writes to the HDF5 dataset (one H5Dwrite); NCN ints
 * each rank writes to the netCDF variable (one put); NMSG MPI_Send/MPI_Recv
 * around the world's ring, of MSG bytes; one around each half's ring, of
 * SUBMSG bytes. */
#define NPW 5
#define PW 300
#define NMIO 4
#define MIO 200
#define H5N 64
#define NCN 32
#define NMSG 3
#define MSG 1000
#define SUBMSG 40

static char buf[4096];

static void posix_io(int rank)
{
    char name[64];
    snprintf(name, sizeof name, "otf2mix-%d.dat", rank);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    for (int i = 0; i < NPW; i++)
        if (write(fd, buf, PW) != PW)
            MPI_Abort(MPI_COMM_WORLD, 1);
    close(fd);
    fd = open(name, O_RDONLY);
    for (int i = 0; i < NPW; i++)
        if (read(fd, buf, PW) != PW)
            MPI_Abort(MPI_COMM_WORLD, 1);
    close(fd);
}

static void mpiio(int rank)
{
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, "otf2mix.mpiio", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    for (int i = 0; i < NMIO; i++)
        CHECK(MPI_File_write_at(fh, (MPI_Offset)(rank * (NMIO + 1) + i) * MIO, buf, MIO, MPI_BYTE,
                                MPI_STATUS_IGNORE));
    CHECK(MPI_File_write_at_all(fh, (MPI_Offset)(rank * (NMIO + 1) + NMIO) * MIO, buf, MIO, MPI_BYTE,
                                MPI_STATUS_IGNORE));
    CHECK(MPI_File_close(&fh));
}

static void hdf5(int rank, int size)
{
    double v[H5N];
    for (int i = 0; i < H5N; i++)
        v[i] = rank + i;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fcreate("otf2mix.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t dims = (hsize_t)size * H5N, start = (hsize_t)rank * H5N, count = H5N;
    hid_t space = H5Screate_simple(1, &dims, NULL), mem = H5Screate_simple(1, &count, NULL);
    hid_t d = H5Dcreate2(f, "v", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &count, NULL);
    hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, mem, space, xfer, v);
    H5Pclose(xfer);
    H5Dclose(d);
    H5Sclose(mem);
    H5Sclose(space);
    H5Fclose(f);
    H5Pclose(fapl);
}

#ifdef HAVE_PNETCDF
static void pnetcdf(int rank, int size)
{
    int nc, dim, var, v[NCN];
    for (int i = 0; i < NCN; i++)
        v[i] = rank * NCN + i;
    ncmpi_create(MPI_COMM_WORLD, "otf2mix.nc", NC_CLOBBER, MPI_INFO_NULL, &nc);
    ncmpi_def_dim(nc, "x", (MPI_Offset)size * NCN, &dim);
    ncmpi_def_var(nc, "v", NC_INT, 1, &dim, &var);
    ncmpi_enddef(nc);
    MPI_Offset start = (MPI_Offset)rank * NCN, count = NCN;
    ncmpi_put_vara_int_all(nc, var, &start, &count, v);
    ncmpi_close(nc);
}
#endif

/* One message to the next rank of comm, one from the previous: rank 0
 * sends first, the others receive first, so that it never deadlocks. */
static void ring(MPI_Comm comm, int n, int tag)
{
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    if (r == 0)
        CHECK(MPI_Send(buf, n, MPI_BYTE, (r + 1) % p, tag, comm));
    CHECK(MPI_Recv(buf, n, MPI_BYTE, (r + p - 1) % p, tag, comm, MPI_STATUS_IGNORE));
    if (r != 0)
        CHECK(MPI_Send(buf, n, MPI_BYTE, (r + 1) % p, tag, comm));
}

int main(int argc, char **argv)
{
    int rank, size, x, y;
    MPI_Comm half;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(buf, 'a' + rank % 26, sizeof buf);
    posix_io(rank);
    mpiio(rank);
    hdf5(rank, size);
#ifdef HAVE_PNETCDF
    pnetcdf(rank, size);
#endif
    for (int i = 0; i < NMSG; i++)
        ring(MPI_COMM_WORLD, MSG, i);
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
    ring(half, SUBMSG, 7);
    x = rank;
    CHECK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, half));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(MPI_Bcast(buf, 16, MPI_BYTE, 0, MPI_COMM_WORLD));
    CHECK(MPI_Comm_free(&half));
    MPI_Request req;
    CHECK(MPI_Send_init(buf, 1, MPI_BYTE, rank, 99, MPI_COMM_WORLD, &req));
    CHECK(MPI_Request_free(&req));
    MPI_Finalize();
    return 0;
}
