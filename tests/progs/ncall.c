/* The PnetCDF families beyond put_vara: varn (several subarrays of one
 * variable), mput/mget (several variables in one call), bput (buffered
 * non-blocking), varm (mapped), vard (an MPI datatype for the file layout)
 * and the flexible put_att. Every rank writes its NX ints of each variable
 * of one dimension, then reads them back and checks them. The whole-
 * variable calls (put_var, iput_var, get_var: every rank the whole
 * variable of size*NX ints, the same values) come last.
 * usage: ncall (writes ncall.nc) */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include <pnetcdf.h>

#define NX 8     /* ints per rank and variable (even: vard's file type is of pairs) */
#define SPLIT 3  /* put_varn: the first subarray has SPLIT ints, the second NX - SPLIT */
#define NATT 3   /* ints of the global attribute */
enum { VA, VB, VC, VD, VE, VF, NV }; /* varn, mput (2), bput, varm, vard */
enum { VG = NV, VH, NVALL };           /* put_var and get_var, iput_var */

static void check(int err, const char *what)
{
    if (err != NC_NOERR) {
        fprintf(stderr, "ncall: %s: %s\n", what, ncmpi_strerror(err));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void fill(int *buf, int v, int rank)
{
    for (int i = 0; i < NX; i++)
        buf[i] = v * 10000 + rank * 100 + i;
}

static void verify(const int *buf, int v, int rank)
{
    for (int i = 0; i < NX; i++)
        if (buf[i] != v * 10000 + rank * 100 + i) {
            fprintf(stderr, "ncall: variable %d read back wrong at %d\n", v, i);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
}

static void writes(int nc, const int *var, int rank, MPI_Datatype ftype)
{
    int buf[NV][NX];
    for (int v = 0; v < NV; v++)
        fill(buf[v], v, rank);
    MPI_Offset s0[1] = {(MPI_Offset)rank * NX}, s1[1] = {(MPI_Offset)rank * NX + SPLIT};
    MPI_Offset c0[1] = {SPLIT}, c1[1] = {NX - SPLIT}, cnt[1] = {NX}, one[1] = {1};
    MPI_Offset *starts[2] = {s0, s1}, *counts[2] = {c0, c1};
    check(ncmpi_put_varn_int_all(nc, var[VA], 2, starts, counts, buf[VA]), "put_varn_int_all");
    int two[2] = {var[VB], var[VC]};
    MPI_Offset *mstarts[2] = {s0, s0}, *mcounts[2] = {cnt, cnt};
    int *mbufs[2] = {buf[VB], buf[VC]};
    check(ncmpi_mput_vara_int_all(nc, 2, two, mstarts, mcounts, mbufs), "mput_vara_int_all");
    int req, st;
    check(ncmpi_buffer_attach(nc, NX * sizeof(int)), "buffer_attach");
    check(ncmpi_bput_vara_int(nc, var[VD], s0, cnt, buf[VD], &req), "bput_vara_int");
    check(ncmpi_wait_all(nc, 1, &req, &st), "wait_all");
    check(st, "the bput");
    check(ncmpi_buffer_detach(nc), "buffer_detach");
    check(ncmpi_put_varm_int_all(nc, var[VE], s0, cnt, one, one, buf[VE]), "put_varm_int_all");
    check(ncmpi_put_vard_all(nc, var[VF], ftype, buf[VF], NX, MPI_INT), "put_vard_all");
}

static void reads(int nc, const int *var, int rank, MPI_Datatype ftype)
{
    int buf[NV][NX];
    MPI_Offset s0[1] = {(MPI_Offset)rank * NX}, s1[1] = {(MPI_Offset)rank * NX + SPLIT};
    MPI_Offset c0[1] = {SPLIT}, c1[1] = {NX - SPLIT}, cnt[1] = {NX}, one[1] = {1};
    MPI_Offset *starts[2] = {s0, s1}, *counts[2] = {c0, c1};
    check(ncmpi_get_varn_int_all(nc, var[VA], 2, starts, counts, buf[VA]), "get_varn_int_all");
    int two[2] = {var[VB], var[VC]};
    MPI_Offset *mstarts[2] = {s0, s0}, *mcounts[2] = {cnt, cnt};
    int *mbufs[2] = {buf[VB], buf[VC]};
    check(ncmpi_mget_vara_int_all(nc, 2, two, mstarts, mcounts, mbufs), "mget_vara_int_all");
    check(ncmpi_get_vara_int_all(nc, var[VD], s0, cnt, buf[VD]), "get_vara_int_all");
    check(ncmpi_get_varm_int_all(nc, var[VE], s0, cnt, one, one, buf[VE]), "get_varm_int_all");
    check(ncmpi_get_vard_all(nc, var[VF], ftype, buf[VF], NX, MPI_INT), "get_vard_all");
    for (int v = 0; v < NV; v++)
        verify(buf[v], v, rank);
}

/* Whole variables: put_var and iput_var of size*NX ints, then get_var. */
static void whole(int nc, const int *var, int size, int write)
{
    int n = size * NX, req, st;
    int *all = malloc((size_t)n * sizeof *all);
    if (!all)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < n; i++)
        all[i] = write ? 7 * i : -1;
    if (write) {
        check(ncmpi_put_var_int_all(nc, var[VG], all), "put_var_int_all");
        check(ncmpi_iput_var_int(nc, var[VH], all, &req), "iput_var_int");
        check(ncmpi_wait_all(nc, 1, &req, &st), "wait_all");
        check(st, "the iput");
    } else {
        check(ncmpi_get_var_int_all(nc, var[VG], all), "get_var_int_all");
        for (int i = 0; i < n; i++)
            if (all[i] != 7 * i) {
                fprintf(stderr, "ncall: whole variable read back wrong at %d\n", i);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
    }
    free(all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, nc, dim, var[NVALL];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* vard: this rank's NX ints of the variable, as a file type of pairs
     * of ints: PnetCDF decodes it (MPI_Type_get_envelope/get_contents) and
     * frees the pair type get_contents returns (test 86: a known id) */
    MPI_Datatype pair, ftype;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    int gsize = size * NX / 2, sub = NX / 2, at = rank * NX / 2;
    MPI_Type_create_subarray(1, &gsize, &sub, &at, MPI_ORDER_C, pair, &ftype);
    MPI_Type_free(&pair);
    MPI_Type_commit(&ftype);
    check(ncmpi_create(MPI_COMM_WORLD, "ncall.nc", NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &nc), "create");
    check(ncmpi_def_dim(nc, "x", (MPI_Offset)size * NX, &dim), "def_dim");
    const char *names[NVALL] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    for (int v = 0; v < NVALL; v++)
        check(ncmpi_def_var(nc, names[v], NC_INT, 1, &dim, &var[v]), "def_var");
    int att[NATT] = {1, 2, 3};
    check(ncmpi_put_att(nc, NC_GLOBAL, "version", NC_INT, NATT, att), "put_att");
    check(ncmpi_enddef(nc), "enddef");
    writes(nc, var, rank, ftype);
    whole(nc, var, size, 1);
    check(ncmpi_close(nc), "close");
    check(ncmpi_open(MPI_COMM_WORLD, "ncall.nc", NC_NOWRITE, MPI_INFO_NULL, &nc), "open");
    reads(nc, var, rank, ftype);
    whole(nc, var, size, 0);
    check(ncmpi_close(nc), "close");
    MPI_Type_free(&ftype);
    MPI_Finalize();
    return 0;
}
