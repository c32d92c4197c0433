#include "pmpi/mpi_record.h"
#include "src/addrs.h"

#include <stdio.h>

int32_t siot_mpi_agree(int kind, MPI_Comm comm, int ok)
{
    int inter = 0;
    /* Every rank of comm takes part, whatever its own call returned: one
     * rank skipping the reduction would leave the others waiting. */
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return -1;
    siot_lock();
    int mine = ok ? siot_h_next(kind) : -1, all = -1;
    siot_unlock();
    if (PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return -1;
    return all;
}

void siot_mpi_agree_absent(MPI_Comm comm)
{
    int inter = 0, flag = 0, done = 0, mine = -1, all;
    if (comm == MPI_COMM_NULL || PMPI_Initialized(&flag) != MPI_SUCCESS || !flag ||
        PMPI_Finalized(&done) != MPI_SUCCESS || done || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return;
    PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, comm);
}

int64_t siot_mpi_commsize(MPI_Comm c)
{
    int n = 0, inter = 0;
    if (c == MPI_COMM_NULL)
        return 0;
    if (PMPI_Comm_test_inter(c, &inter) == MPI_SUCCESS && inter) {
        if (PMPI_Comm_remote_size(c, &n) != MPI_SUCCESS)
            return 0;
    } else if (PMPI_Comm_size(c, &n) != MPI_SUCCESS) {
        return 0;
    }
    return n;
}

int64_t siot_mpi_localsize(MPI_Comm c)
{
    int n = 0;
    if (c == MPI_COMM_NULL || PMPI_Comm_size(c, &n) != MPI_SUCCESS)
        return 0;
    return n;
}

static void degrees(MPI_Comm c, int *in, int *out)
{
    int topo = MPI_UNDEFINED, w = 0, rank = 0, nd = 0;
    *in = *out = 0;
    if (c == MPI_COMM_NULL || PMPI_Topo_test(c, &topo) != MPI_SUCCESS)
        return;
    if (topo == MPI_DIST_GRAPH) {
        PMPI_Dist_graph_neighbors_count(c, in, out, &w);
    } else if (topo == MPI_GRAPH) {
        PMPI_Comm_rank(c, &rank);
        PMPI_Graph_neighbors_count(c, rank, in);
        *out = *in;
    } else if (topo == MPI_CART) {
        PMPI_Cartdim_get(c, &nd);
        *in = *out = 2 * nd;
    }
}

int64_t siot_mpi_indegree(MPI_Comm c)
{
    int in, out;
    degrees(c, &in, &out);
    return in;
}

int64_t siot_mpi_outdegree(MPI_Comm c)
{
    int in, out;
    degrees(c, &in, &out);
    return out;
}

int64_t siot_mpi_cartdim(MPI_Comm c)
{
    int nd = 0;
    if (c == MPI_COMM_NULL || PMPI_Cartdim_get(c, &nd) != MPI_SUCCESS)
        return 0;
    return nd;
}

int siot_mpi_is_root(MPI_Comm c, int root)
{
    int inter = 0, rank = -1;
    if (c == MPI_COMM_NULL)
        return 0;
    if (PMPI_Comm_test_inter(c, &inter) == MPI_SUCCESS && inter)
        return root == MPI_ROOT;
    PMPI_Comm_rank(c, &rank);
    return rank == root;
}

static int dtype_keyval = MPI_KEYVAL_INVALID;
static int dtype_keyval_failed;

static int dtype_freed(MPI_Datatype d, int keyval, void *tag, void *extra)
{
    (void)keyval;
    (void)extra;
    siot_h_gone(SIOT_H_DTYPE, siot_hkey_dtype(d), (uint64_t)(uintptr_t)tag);
    return MPI_SUCCESS;
}

/* Sets the attribute that reports d's free. The keyval is made at the
 * first datatype, inside MPI_Init..MPI_Finalize (a datatype exists only
 * there). MPI_TYPE_NULL_COPY_FN: a duplicate is a new type, with its own
 * id, watched when the tracer sees it. */
static void dtype_watch(MPI_Datatype d)
{
    if (dtype_keyval == MPI_KEYVAL_INVALID && !dtype_keyval_failed &&
        PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, dtype_freed, &dtype_keyval, NULL) != MPI_SUCCESS)
        dtype_keyval_failed = 1;
    if (dtype_keyval == MPI_KEYVAL_INVALID)
        return;
    uint64_t tag = siot_h_tag(SIOT_H_DTYPE, siot_hkey_dtype(d));
    if (tag)
        PMPI_Type_set_attr(d, dtype_keyval, (void *)(uintptr_t)tag);
}

int64_t siot_mpi_dtype_new(MPI_Datatype d)
{
    if (d == MPI_DATATYPE_NULL)
        return -1;
    int64_t id = siot_h_new(SIOT_H_DTYPE, siot_hkey_dtype(d));
    if (id >= SIOT_DTYPE_BASE)
        dtype_watch(d);
    return id;
}

int64_t siot_mpi_dtype_first_seen(MPI_Datatype d, int ok)
{
    int64_t id = siot_h_id(SIOT_H_DTYPE, siot_hkey_dtype(d));
    if (ok && id >= SIOT_DTYPE_BASE)
        dtype_watch(d);
    return id;
}

int64_t siot_mpi_dtype_ref(MPI_Datatype d)
{
    if (d == MPI_DATATYPE_NULL)
        return -1;
    uintptr_t key = siot_hkey_dtype(d);
    int known = siot_h_find(SIOT_H_DTYPE, key) >= 0;
    int64_t id = siot_h_ref(SIOT_H_DTYPE, key);
    if (!known && id >= SIOT_DTYPE_BASE)
        dtype_watch(d); /* a new handle (Open MPI): watched as a creation's */
    return id;
}

/* As many as decoded's envelope counts: max_datatypes may be larger, and
 * MPI does not write the entries after those (they are whatever the
 * program's array held). Nothing when the call failed: no handle was made. */
void siot_mpi_put_dtype_refs(siot_raw *ev, uint32_t k, MPI_Datatype decoded, const MPI_Datatype *v, int64_t max, int ok)
{
    int ni, na, nd, combiner;
    if (!ok || !v || PMPI_Type_get_envelope(decoded, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
        return;
    int64_t n = nd < max ? nd : max;
    if (n < 0 || n > SIOT_MAX_ARRAY)
        return;
    int64_t *a = siot_put_arr(ev, k, (uint32_t)n);
    for (int64_t i = 0; a && i < n; i++)
        a[i] = siot_mpi_dtype_ref(v[i]);
}

void siot_mpi_put_dtypes(siot_raw *ev, uint32_t k, const MPI_Datatype *v, int64_t n, int ok)
{
    if (!v || n < 0 || n > SIOT_MAX_ARRAY)
        return;
    int64_t *a = siot_put_arr(ev, k, (uint32_t)n);
    if (a)
        for (int64_t i = 0; i < n; i++)
            a[i] = siot_mpi_dtype_in(v[i], ok);
}

/* Arrays of MPI_Aint and of MPI_Count (two types, possibly of different
 * widths) recorded as int64 values; then, for displacements that may be
 * absolute addresses (role addrarr), made relative to the lowest when all
 * are (src/addrs.h), on the recorded copy: the caller's stays as it is. */
static void no_rebase(int64_t *a, int64_t n) { (void)a, (void)n; }
static void rebase(int64_t *a, int64_t n) { siot_addr_rebase(a, n); }
#define DEFINE_PUT_WIDE(name, T, then)                             \
    void name(siot_raw *ev, uint32_t k, const T *v, int64_t n)     \
    {                                                              \
        if (!v || n < 0 || n > SIOT_MAX_ARRAY)                     \
            return;                                                \
        int64_t *a = siot_put_arr(ev, k, (uint32_t)n);             \
        if (!a)                                                    \
            return;                                                \
        for (int64_t i = 0; i < n; i++)                            \
            a[i] = (int64_t)v[i];                                  \
        then(a, n);                                                \
    }
DEFINE_PUT_WIDE(siot_mpi_put_aints, MPI_Aint, no_rebase)
DEFINE_PUT_WIDE(siot_mpi_put_addrs, MPI_Aint, rebase)
#if MPI_VERSION >= 4
DEFINE_PUT_WIDE(siot_mpi_put_counts, MPI_Count, no_rebase)
DEFINE_PUT_WIDE(siot_mpi_put_addr_counts, MPI_Count, rebase)
#endif

/* Hints are what replay needs from an info object: "key=value;key=value",
 * keys in the order the implementation lists them. */
void siot_mpi_put_info(siot_raw *ev, uint32_t k, MPI_Info info)
{
    char text[8192];
    size_t len = 0;
    int nkeys = 0;
    text[0] = 0;
    if (info != MPI_INFO_NULL && PMPI_Info_get_nkeys(info, &nkeys) == MPI_SUCCESS) {
        for (int i = 0; i < nkeys; i++) {
            char key[MPI_MAX_INFO_KEY + 1], val[1025];
            int vlen = 0, flag = 0;
            if (PMPI_Info_get_nthkey(info, i, key) != MPI_SUCCESS)
                continue;
            if (PMPI_Info_get_valuelen(info, key, &vlen, &flag) != MPI_SUCCESS || !flag)
                continue;
            if (vlen > 1024)
                vlen = 1024;
            if (PMPI_Info_get(info, key, vlen, val, &flag) != MPI_SUCCESS || !flag)
                continue;
            val[vlen] = 0;
            int n = snprintf(text + len, sizeof text - len, "%s%s=%s", len ? ";" : "", key, val);
            if (n < 0 || (size_t)n >= sizeof text - len)
                break;
            len += (size_t)n;
        }
    }
    siot_put_strn(ev, k, text, len);
}

/* A deliberate twin of wrap/pnetcdf_record.c's siot_nc_save_reqs and
 * siot_nc_put_reqs: the keys differ in width (an MPI_Request's bits, a
 * PnetCDF int) and in what the call completed (the requests MPI set to
 * MPI_REQUEST_NULL; every request the PnetCDF call was given), and one helper
 * would test that per element through a callback on every wait. */
uint32_t siot_mpi_save_reqs(const MPI_Request *v, int64_t n)
{
    if (!v || n <= 0 || n > SIOT_MAX_ARRAY)
        return 0;
    uint32_t off = siot_pool_tmp((size_t)n * sizeof(uintptr_t));
    uintptr_t *keys = siot_pool_at(off);
    if (keys)
        for (int64_t i = 0; i < n; i++)
            keys[i] = siot_hkey_req(v[i]);
    return off;
}

void siot_mpi_put_reqs(siot_raw *ev, uint32_t k, const MPI_Request *v, int64_t n, uint32_t saved, int ok)
{
    if (!v || !saved || n <= 0 || n > SIOT_MAX_ARRAY)
        return;
    int64_t *a = siot_put_arr(ev, k, (uint32_t)n);
    const uintptr_t *keys = siot_pool_at(saved); /* after siot_put_arr: the pool may have moved */
    uintptr_t null_key = siot_hkey_req(MPI_REQUEST_NULL);
    for (int64_t i = 0; i < n; i++) {
        int32_t id = keys[i] == null_key ? -1 : siot_h_find_known(SIOT_H_REQ, keys[i]);
        if (a)
            a[i] = id;
        if (ok && keys[i] != null_key && v[i] == MPI_REQUEST_NULL)
            siot_h_release(SIOT_H_REQ, keys[i]);
    }
}

int64_t siot_mpi_status_bytes(const MPI_Status *st)
{
    MPI_Count n = 0;
    if (PMPI_Get_elements_x(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED)
        return 0;
    return (int64_t)n;
}

/* The status shape of each request id below SIOT_REQ_SHAPES (ids are the
 * lowest free ones: a program has that many requests in flight at most in
 * practice); a larger id's status is recorded as MPI gave it. Read and
 * written under the recorder lock. */
#define SIOT_REQ_SHAPES 4096
static uint8_t req_shape[SIOT_REQ_SHAPES];

int32_t siot_mpi_req_new(MPI_Request r, int shape)
{
    int32_t id = siot_h_new(SIOT_H_REQ, siot_hkey_req(r));
    if (id >= 0 && id < SIOT_REQ_SHAPES)
        req_shape[id] = (uint8_t)shape;
    return id;
}

/* -1: no request (the call's own receive or probe, or the null request,
 * whose status MPI empties); a request made where the tracer did not see
 * (SIOT_ID_UNKNOWN: through PMPI) may be a send: its status is not taken. */
static int shape_of(int64_t req)
{
    if (req == SIOT_ID_UNKNOWN)
        return SIOT_ST_UNDEF;
    return req >= 0 && req < SIOT_REQ_SHAPES ? req_shape[req] : SIOT_ST_FULL;
}

static void status_values(int64_t *a, const MPI_Status *st, int shape)
{
    a[0] = shape == SIOT_ST_FULL ? siot_mpi_peer(st->MPI_SOURCE) : SIOT_ANY_SOURCE;
    a[1] = shape == SIOT_ST_FULL ? siot_mpi_tag(st->MPI_TAG) : SIOT_ANY_TAG;
    a[2] = shape == SIOT_ST_UNDEF ? 0 : siot_mpi_status_bytes(st);
}

void siot_mpi_put_status(siot_raw *ev, uint32_t k, const MPI_Status *st, int valid, int64_t req)
{
    if (!valid)
        return;
    int64_t *a = siot_put_arr(ev, k, 3);
    if (a)
        status_values(a, st, shape_of(req));
}

MPI_Status *siot_mpi_statuses(MPI_Status *given, MPI_Status *own, int64_t n)
{
    return given == MPI_STATUSES_IGNORE && n <= SIOT_MPI_STATUSES ? own : given;
}

/* The recorded array of argument k (NULL when it is none). */
static const int64_t *recorded_arr(const siot_raw *ev, uint32_t k, uint32_t *n)
{
    if (ev->args[k].kind != SIOT_RV_ARR)
        return NULL;
    *n = ev->args[k].n;
    return siot_pool_at((uint32_t)ev->args[k].i + 1);
}

int64_t siot_mpi_req_at(const siot_raw *ev, uint32_t kreqs, int index)
{
    uint32_t n = 0;
    const int64_t *ids = recorded_arr(ev, kreqs, &n);
    return ids && index >= 0 && (uint32_t)index < n ? ids[index] : -1;
}

void siot_mpi_put_statuses(siot_raw *ev, uint32_t k, const MPI_Status *sts, uint32_t kreqs, int64_t n,
                           const int *indices, int valid)
{
    if (!valid || !sts || n < 0 || 3 * n > SIOT_MAX_ARRAY)
        return;
    int64_t *a = siot_put_arr(ev, k, (uint32_t)(3 * n));
    uint32_t nids = 0;
    const int64_t *ids = recorded_arr(ev, kreqs, &nids); /* after siot_put_arr: the pool may have moved */
    for (int64_t i = 0; a && i < n; i++) {
        int64_t at = indices ? indices[i] : i;
        status_values(a + 3 * i, &sts[i], shape_of(ids && at >= 0 && at < (int64_t)nids ? ids[at] : -1));
    }
}

int64_t siot_mpi_err_class(int code)
{
    int cls = code;
    if (code != MPI_SUCCESS && PMPI_Error_class(code, &cls) != MPI_SUCCESS)
        cls = code;
    return cls;
}

int64_t siot_mpi_bytes(int64_t count, MPI_Datatype dt)
{
    int size = 0;
    if (dt == MPI_DATATYPE_NULL || PMPI_Type_size(dt, &size) != MPI_SUCCESS)
        return 0;
    return (int64_t)count * size;
}
