/* pnetcdf_record: what the generated PnetCDF wrappers need: small ids for
 * netCDF file ids and non-blocking requests, variable ranks, and the bytes
 * a put or get moves.
 *
 * Locks: called between siot_end and siot_finish, under the recorder lock
 * (siot_nc_save_reqs before the call, on the thread's pool only); the
 * PnetCDF inquiries they make pass through the wrappers unrecorded.
 *
 * Errors: ids are -1 for a negative id or NC_REQ_NULL (or when the id
 * table cannot grow, src/handles.h); dimension and byte counts are 0 when
 * PnetCDF or MPI cannot tell. Request arrays are left unrecorded without
 * pool memory. */
#ifndef SIOT_PNETCDF_RECORD_H
#define SIOT_PNETCDF_RECORD_H

#include <pnetcdf.h>

#include "pmpi/mpi_record.h"
#include "src/record.h"

int64_t siot_nc_id(int ncid);
int64_t siot_nc_new(int ncid);
int64_t siot_nc_close(int ncid, int ok);
/* Number of dimensions of a variable (0 when it cannot be told). */
int64_t siot_nc_varndims(int ncid, int varid);
/* Bytes of a subarray access: product of count[] x element size. */
int64_t siot_nc_count_bytes(int ncid, int varid, const MPI_Offset *count, int64_t elem);
/* Bytes of a whole-variable access. */
int64_t siot_nc_var_bytes(int ncid, int varid, int64_t elem);
/* Size of one element of a variable in its netCDF type. */
int64_t siot_nc_elem_size(int ncid, int varid);
/* Bytes of a flexible-API access: bufcount elements of buftype, or
 * `otherwise` when bufcount is -1 (the request in the variable's type). */
int64_t siot_nc_flex_bytes(MPI_Offset bufcount, MPI_Datatype buftype, int64_t otherwise);
/* Bytes of a varn access: num subarrays of counts[i] (one element each
 * when counts is NULL). */
int64_t siot_nc_varn_bytes(int ncid, int varid, int num, MPI_Offset *const *counts, int64_t elem);
/* Bytes of an mput/mget over num variables: whole variables, counts[i]
 * subarrays or (counts NULL) one element each; elem 0: each variable's own
 * element size; bufcounts/buftypes (flexible API) when not NULL. */
int64_t siot_nc_multi_bytes(int ncid, int num, const int *varids, MPI_Offset *const *counts, int whole,
                            const MPI_Offset *bufcounts, const MPI_Datatype *buftypes, int64_t elem);
/* Bytes of an attribute of nelems values of xtype. */
int64_t siot_nc_att_bytes(nc_type xtype, MPI_Offset nelems);
/* Bytes of a vard access: bufcount of buftype, or the size of filetype. */
int64_t siot_nc_vard_bytes(MPI_Datatype filetype, MPI_Offset bufcount, MPI_Datatype buftype);
/* A new non-blocking request id. */
int64_t siot_nc_req_new(int req);
/* Request arrays of ncmpi_wait/wait_all: saved before the call (it resets
 * them), recorded and released after. */
uint32_t siot_nc_save_reqs(const int *v, int64_t n);
void siot_nc_put_reqs(siot_raw *ev, uint32_t k, int64_t n, uint32_t saved, int ok);

#endif
