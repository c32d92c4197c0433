/* PnetCDF ids and byte counts for the generated PnetCDF wrappers. Runs with
 * the thread inside the tracer: the inquiries below are not recorded. */
#include "wrap/pnetcdf_record.h"

#include <stdlib.h>

int64_t siot_nc_id(int ncid) { return ncid < 0 ? -1 : siot_h_id(SIOT_H_NCID, (uintptr_t)(unsigned)ncid); }

int64_t siot_nc_new(int ncid) { return ncid < 0 ? -1 : siot_h_new(SIOT_H_NCID, (uintptr_t)(unsigned)ncid); }

int64_t siot_nc_close(int ncid, int ok)
{
    if (ncid < 0)
        return -1;
    return ok ? siot_h_release(SIOT_H_NCID, (uintptr_t)(unsigned)ncid) : siot_nc_id(ncid);
}

int64_t siot_nc_varndims(int ncid, int varid)
{
    int n = 0;
    if (ncmpi_inq_varndims(ncid, varid, &n) != NC_NOERR || n < 0)
        return 0;
    return n;
}

int64_t siot_nc_count_bytes(int ncid, int varid, const MPI_Offset *count, int64_t elem)
{
    if (!count)
        return 0;
    int64_t n = siot_nc_varndims(ncid, varid), e = 1;
    for (int64_t i = 0; i < n; i++)
        e *= count[i] > 0 ? count[i] : 0;
    return e * elem;
}

/* The dimension ids of a variable: on the stack up to SMALL_DIMS, else
 * allocated. Not an array of NC_MAX_VAR_DIMS: PnetCDF 1.12 defines it as
 * NC_MAX_INT, 8 GiB of stack. */
#define SMALL_DIMS 64

int64_t siot_nc_var_bytes(int ncid, int varid, int64_t elem)
{
    int nd = 0, small[SMALL_DIMS];
    if (ncmpi_inq_varndims(ncid, varid, &nd) != NC_NOERR || nd < 0)
        return 0;
    int *dims = nd <= SMALL_DIMS ? small : malloc((size_t)nd * sizeof *dims);
    int64_t e = dims && ncmpi_inq_vardimid(ncid, varid, dims) == NC_NOERR ? 1 : 0;
    for (int i = 0; e && i < nd; i++) {
        MPI_Offset len = 0;
        e = ncmpi_inq_dimlen(ncid, dims[i], &len) == NC_NOERR ? e * len : 0;
    }
    if (dims != small)
        free(dims);
    return e * elem;
}

static int64_t nc_type_size(nc_type t)
{
    switch (t) {
    case NC_BYTE:
    case NC_CHAR:
    case NC_UBYTE:
        return 1;
    case NC_SHORT:
    case NC_USHORT:
        return 2;
    case NC_INT:
    case NC_UINT:
    case NC_FLOAT:
        return 4;
    case NC_DOUBLE:
    case NC_INT64:
    case NC_UINT64:
        return 8;
    }
    return 0;
}

int64_t siot_nc_elem_size(int ncid, int varid)
{
    nc_type t;
    return ncmpi_inq_vartype(ncid, varid, &t) == NC_NOERR ? nc_type_size(t) : 0;
}

int64_t siot_nc_flex_bytes(MPI_Offset bufcount, MPI_Datatype buftype, int64_t otherwise)
{
    if (bufcount < 0)
        return otherwise;
    int s = 0;
    if (buftype == MPI_DATATYPE_NULL || PMPI_Type_size(buftype, &s) != MPI_SUCCESS)
        return 0;
    return (int64_t)bufcount * s;
}

int64_t siot_nc_req_new(int req)
{
    return req == NC_REQ_NULL ? -1 : siot_h_new(SIOT_H_NCREQ, (uintptr_t)(unsigned)req);
}

/* A deliberate twin of pmpi/mpi_record.c's siot_mpi_save_reqs and
 * siot_mpi_put_reqs (why: there). */
uint32_t siot_nc_save_reqs(const int *v, int64_t n)
{
    if (!v || n <= 0 || n > SIOT_MAX_ARRAY)
        return 0;
    uint32_t off = siot_pool_tmp((size_t)n * sizeof(int));
    int *keys = siot_pool_at(off);
    if (keys)
        memcpy(keys, v, (size_t)n * sizeof(int));
    return off;
}

void siot_nc_put_reqs(siot_raw *ev, uint32_t k, int64_t n, uint32_t saved, int ok)
{
    if (n < 0 && ok) { /* NC_REQ_ALL and friends: every pending request completed */
        siot_h_clear(SIOT_H_NCREQ);
        return;
    }
    if (!saved || n <= 0 || n > SIOT_MAX_ARRAY)
        return;
    int64_t *a = siot_put_arr(ev, k, (uint32_t)n);
    const int *keys = siot_pool_at(saved); /* after siot_put_arr: the pool may have moved */
    for (int64_t i = 0; i < n; i++) {
        int64_t id = keys[i] == NC_REQ_NULL ? -1 : siot_h_find_known(SIOT_H_NCREQ, (uintptr_t)(unsigned)keys[i]);
        if (a)
            a[i] = id;
        if (ok && keys[i] != NC_REQ_NULL)
            siot_h_release(SIOT_H_NCREQ, (uintptr_t)(unsigned)keys[i]);
    }
}

int64_t siot_nc_varn_bytes(int ncid, int varid, int num, MPI_Offset *const *counts, int64_t elem)
{
    if (num <= 0)
        return 0;
    if (!counts) /* no counts: one element at each start */
        return (int64_t)num * elem;
    int64_t b = 0;
    for (int i = 0; i < num; i++)
        b += siot_nc_count_bytes(ncid, varid, counts[i], elem);
    return b;
}

/* One variable of an mput/mget: its request in its own type. */
static int64_t one_of_many(int ncid, int varid, MPI_Offset *const *counts, int i, int whole, int64_t elem)
{
    if (whole)
        return siot_nc_var_bytes(ncid, varid, elem);
    return counts ? siot_nc_count_bytes(ncid, varid, counts[i], elem) : elem;
}

int64_t siot_nc_multi_bytes(int ncid, int num, const int *varids, MPI_Offset *const *counts, int whole,
                            const MPI_Offset *bufcounts, const MPI_Datatype *buftypes, int64_t elem)
{
    if (num <= 0 || !varids)
        return 0;
    int64_t b = 0;
    for (int i = 0; i < num; i++) {
        int64_t e = elem ? elem : siot_nc_elem_size(ncid, varids[i]);
        int64_t own = one_of_many(ncid, varids[i], counts, i, whole, e);
        b += bufcounts && buftypes ? siot_nc_flex_bytes(bufcounts[i], buftypes[i], own) : own;
    }
    return b;
}

int64_t siot_nc_vard_bytes(MPI_Datatype filetype, MPI_Offset bufcount, MPI_Datatype buftype)
{
    int s = 0;
    if (filetype == MPI_DATATYPE_NULL || PMPI_Type_size(filetype, &s) != MPI_SUCCESS)
        s = 0;
    return siot_nc_flex_bytes(bufcount, buftype, s);
}

int64_t siot_nc_att_bytes(nc_type xtype, MPI_Offset nelems) { return nelems > 0 ? (int64_t)nelems * nc_type_size(xtype) : 0; }
