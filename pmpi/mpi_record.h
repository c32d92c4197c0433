/* mpi_record: what the generated MPI and MPI-IO wrappers need: small ids for
 * MPI handles, portable special ranks, info contents, statuses and byte
 * counts, and the session hooks of MPI_Init and MPI_Finalize.
 *
 * Locks: the id helpers run between siot_end and siot_finish, under the
 * recorder lock; siot_mpi_agree is called without it and takes it only
 * around reading the next id, not across its Allreduce.
 *
 * Errors: ids are -1 for a null handle (SIOT_ID_UNKNOWN for a request not
 * seen made; -1 too when an id table cannot grow, src/handles.h); queries
 * of an MPI object answer 0 when MPI cannot tell; siot_mpi_agree -1 when
 * there is nothing to agree on or the Allreduce failed. Arrays too long or
 * beyond the pool's memory are left unrecorded. No failure is fatal. */
#ifndef SIOT_MPI_RECORD_H
#define SIOT_MPI_RECORD_H

#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "core/predef.h"
#include "src/record.h"

/* Handle bits as a table key, whatever the implementation's handle type. */
#define SIOT_HKEY(name, type)                                 \
    static inline uintptr_t siot_hkey_##name(type h)          \
    {                                                         \
        uintptr_t k = 0;                                      \
        memcpy(&k, &h, sizeof h < sizeof k ? sizeof h : sizeof k); \
        return k;                                             \
    }
SIOT_HKEY(comm, MPI_Comm)
SIOT_HKEY(group, MPI_Group)
SIOT_HKEY(dtype, MPI_Datatype)
SIOT_HKEY(op, MPI_Op)
SIOT_HKEY(file, MPI_File)
SIOT_HKEY(req, MPI_Request)
SIOT_HKEY(win, MPI_Win)
#undef SIOT_HKEY

/* siot_mpi_<fn>(handle): the handle's id by look (siot_h_id: a handle
 * found or given one; siot_h_new: made by the call; siot_h_find_known: a
 * request), -1 for the null handle. */
#define SIOT_HID(fn, type, null, look, kind, key) \
    static inline int64_t siot_mpi_##fn(type h) { return h == null ? -1 : look(kind, siot_hkey_##key(h)); }
SIOT_HID(comm_id, MPI_Comm, MPI_COMM_NULL, siot_h_id, SIOT_H_COMM, comm)
SIOT_HID(comm_new, MPI_Comm, MPI_COMM_NULL, siot_h_new, SIOT_H_COMM, comm)
SIOT_HID(group_id, MPI_Group, MPI_GROUP_NULL, siot_h_id, SIOT_H_GROUP, group)
SIOT_HID(group_new, MPI_Group, MPI_GROUP_NULL, siot_h_new, SIOT_H_GROUP, group)
SIOT_HID(op_id, MPI_Op, MPI_OP_NULL, siot_h_id, SIOT_H_OP, op)
SIOT_HID(file_id, MPI_File, MPI_FILE_NULL, siot_h_id, SIOT_H_FILE, file)
SIOT_HID(req_id, MPI_Request, MPI_REQUEST_NULL, siot_h_find_known, SIOT_H_REQ, req)
#undef SIOT_HID
/* Datatypes are watched for their free: MPI-IO makes and frees its own
 * copies of the program's types with PMPI calls the tracer does not see,
 * and MPI reuses their handle values. An attribute whose delete callback
 * reports the free (siot_h_gone) is set on each datatype the tracer gives
 * an id to, when it is made (siot_mpi_dtype_new) or first seen made by a
 * call it does not record (siot_mpi_dtype_in, once the call succeeded:
 * an invalid handle is never touched). Called under the recorder lock;
 * the callback itself takes no lock. */
int64_t siot_mpi_dtype_new(MPI_Datatype d);
int64_t siot_mpi_dtype_first_seen(MPI_Datatype d, int ok);
/* A datatype a call returns that may be a live one's own handle
 * (MPI_Type_get_contents): one more reference to its id (siot_h_ref). */
int64_t siot_mpi_dtype_ref(MPI_Datatype d);
static inline int64_t siot_mpi_dtype_in(MPI_Datatype d, int ok)
{
    if (d == MPI_DATATYPE_NULL)
        return -1;
    int32_t id = siot_h_find(SIOT_H_DTYPE, siot_hkey_dtype(d));
    return id >= 0 ? id : siot_mpi_dtype_first_seen(d, ok);
}
/* The same from a request's key (0: no request given). */
static inline int64_t siot_mpi_req_find(uintptr_t key)
{
    return key == 0 || key == siot_hkey_req(MPI_REQUEST_NULL) ? -1 : siot_h_find_known(SIOT_H_REQ, key);
}

static inline int64_t siot_mpi_peer(int r)
{
    return r == MPI_ANY_SOURCE ? SIOT_ANY_SOURCE : r == MPI_PROC_NULL ? SIOT_PROC_NULL : r == MPI_ROOT ? SIOT_ROOT : r;
}
static inline int64_t siot_mpi_root(int r) { return siot_mpi_peer(r); }
static inline int64_t siot_mpi_tag(int t) { return t == MPI_ANY_TAG ? SIOT_ANY_TAG : t; }

/* Collective creations: the ranks of comm agree on the id the new handle
 * gets (the largest of their next free ids), so the same file or
 * communicator has the same id in every rank. Called after the real call,
 * before siot_end; -1 when there is nothing to agree on. */
int32_t siot_mpi_agree(int kind, MPI_Comm comm, int ok);
/* The same agreement entered by a rank that does not record the call (its
 * layer is off, or it is inside the tracer): a collective of the tracer is
 * entered by every rank that enters the application's, whatever its state. */
void siot_mpi_agree_absent(MPI_Comm comm);

/* Ranks a collective's per-rank arrays are indexed by: the remote group of an
 * intercommunicator for most (Alltoallv, Gatherv, ...), the local group for
 * the reduce-scatter family, whose counts say how the local group shares the
 * result. */
int64_t siot_mpi_commsize(MPI_Comm c);
int64_t siot_mpi_localsize(MPI_Comm c);
int64_t siot_mpi_indegree(MPI_Comm c);
int64_t siot_mpi_outdegree(MPI_Comm c);
int64_t siot_mpi_cartdim(MPI_Comm c);
int siot_mpi_is_root(MPI_Comm c, int root);

void siot_mpi_put_dtypes(siot_raw *ev, uint32_t k, const MPI_Datatype *v, int64_t n, int ok);
/* The datatypes MPI_Type_get_contents returned for decoded, at most max. */
void siot_mpi_put_dtype_refs(siot_raw *ev, uint32_t k, MPI_Datatype decoded, const MPI_Datatype *v, int64_t max, int ok);
void siot_mpi_put_aints(siot_raw *ev, uint32_t k, const MPI_Aint *v, int64_t n);
#if MPI_VERSION >= 4
void siot_mpi_put_counts(siot_raw *ev, uint32_t k, const MPI_Count *v, int64_t n);
#endif
/* Displacements that may be absolute addresses (role addrarr): as
 * siot_mpi_put_aints, relative to the lowest when all are (src/addrs.h). */
void siot_mpi_put_addrs(siot_raw *ev, uint32_t k, const MPI_Aint *v, int64_t n);
#if MPI_VERSION >= 4
void siot_mpi_put_addr_counts(siot_raw *ev, uint32_t k, const MPI_Count *v, int64_t n);
#endif
void siot_mpi_put_info(siot_raw *ev, uint32_t k, MPI_Info info);
/* Request arrays: keys saved before the call (completed requests are reset to
 * MPI_REQUEST_NULL by it), ids recorded and completed ones released after. */
uint32_t siot_mpi_save_reqs(const MPI_Request *v, int64_t n);
void siot_mpi_put_reqs(siot_raw *ev, uint32_t k, const MPI_Request *v, int64_t n, uint32_t saved, int ok);
/* What a completed request's status defines (MPI-3.1 3.7.3, 5.12, 13.6):
 * a point-to-point receive (and a generalized request, whose query
 * function fills it in) all of it; an MPI-IO request its count only; a
 * send, a collective or a one-sided request nothing (source, tag and count
 * are undefined: MPI may leave the program's variable as it was, or fill
 * in values of its own internal messages). */
enum { SIOT_ST_FULL = 0, SIOT_ST_BYTES = 1, SIOT_ST_UNDEF = 2 };
/* A new request's id (siot_h_new), noting what its completion's status defines. */
int32_t siot_mpi_req_new(MPI_Request r, int shape);
/* The status of a call as [source, tag, bytes]: req is the id of the
 * request it completed (-1: none, a receive or probe of its own), whose
 * undefined fields are recorded as those of an empty status (MPI_ANY_SOURCE,
 * MPI_ANY_TAG, 0), so that a trace does not hold what the program's
 * variable happened to hold. */
void siot_mpi_put_status(siot_raw *ev, uint32_t k, const MPI_Status *st, int valid, int64_t req);
/* MPI_Waitany/Testany: the request completed is entry index of the
 * request ids recorded as argument kreqs. */
int64_t siot_mpi_req_at(const siot_raw *ev, uint32_t kreqs, int index);
/* The statuses of MPI_Waitall/Testall (indices NULL: n statuses, one per
 * request) and MPI_Waitsome/Testsome (n statuses, of the requests at
 * indices): 3n values, each status as siot_mpi_put_status's, the request
 * ids read from argument kreqs. sts NULL (the program passed
 * MPI_STATUSES_IGNORE for more requests than SIOT_MPI_STATUSES) records
 * nothing. */
void siot_mpi_put_statuses(siot_raw *ev, uint32_t k, const MPI_Status *sts, uint32_t kreqs, int64_t n,
                           const int *indices, int valid);
/* The statuses a wrapper supplies for MPI_STATUSES_IGNORE, on its stack:
 * siot_mpi_statuses answers the program's (given), or own for
 * MPI_STATUSES_IGNORE and at most SIOT_MPI_STATUSES requests. */
#define SIOT_MPI_STATUSES 64
MPI_Status *siot_mpi_statuses(MPI_Status *given, MPI_Status *own, int64_t n);
int64_t siot_mpi_status_bytes(const MPI_Status *st);
/* The status the wrappers pass for MPI_STATUS_IGNORE starts empty: MPI
 * leaves it untouched for completed sends, whose fields are undefined. */
static inline void siot_mpi_status_empty(MPI_Status *st)
{
    memset(st, 0, sizeof *st);
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
}
int64_t siot_mpi_bytes(int64_t count, MPI_Datatype dt);
/* What a trace records of an MPI return code: 0 or the error class. */
int64_t siot_mpi_err_class(int code);

void siot_mpi_init_pre(void);
void siot_mpi_init_post(void);
void siot_mpi_finalize_hook(void);
/* MPI_Abort: the job ends without MPI_Finalize; this rank writes its part. */
void siot_mpi_abort_hook(int errorcode);

#endif
