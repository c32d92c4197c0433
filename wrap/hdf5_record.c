/* HDF5 ids and byte counts for the generated HDF5 wrappers. Runs with the
 * thread inside the tracer (between siot_end and siot_finish, rank lock
 * held): the HDF5 queries below pass through the wrappers unrecorded. */
#include <stdlib.h>

#include "wrap/hdf5_record.h"
#include "core/h5predef.h"

typedef struct predef {
    hid_t id;
    int code;
} predef;

static predef *predefs;
static int npredefs;

static int by_id(const void *a, const void *b)
{
    hid_t x = ((const predef *)a)->id, y = ((const predef *)b)->id;
    return x < y ? -1 : x > y;
}

/* The predefined ids are known once the library is initialised (the
 * macros call H5open) and never change after. */
static void load_predefs(void)
{
    hid_t ids[] = {
#define X(n) n,
        SIOT_H5_PREDEF_LIST(X)
#undef X
    };
    int n = (int)(sizeof ids / sizeof ids[0]);
    predef *p = malloc((size_t)n * sizeof *p);
    if (!p)
        return;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (ids[i] > 0) {
            p[k].id = ids[i];
            p[k].code = i + 1;
            k++;
        }
    qsort(p, (size_t)k, sizeof *p, by_id);
    predefs = p;
    npredefs = k;
}

static int predef_code(hid_t id)
{
    if (!predefs)
        load_predefs();
    int lo = 0, hi = npredefs - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (predefs[mid].id == id)
            return predefs[mid].code;
        if (predefs[mid].id < id)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return 0;
}

static void set_base(void)
{
    static int done;
    if (!done) {
        siot_h_set_base(SIOT_H_HID, SIOT_HID_BASE);
        done = 1;
    }
}

int64_t siot_h5_id(hid_t id)
{
    if (id == 0)
        return 0;
    if (id < 0)
        return -1;
    int c = predef_code(id);
    if (c)
        return c;
    set_base();
    return siot_h_id(SIOT_H_HID, (uintptr_t)id);
}

int64_t siot_h5_new(hid_t id)
{
    if (id < 0)
        return -1;
    set_base();
    return siot_h_new(SIOT_H_HID, (uintptr_t)id);
}

/* Did the close (or H5Idec_ref) that just returned take the identifier's
 * last reference? A close drops one: the identifier lives on while
 * H5Iinc_ref left it more (netCDF-4 keeps its datasets so), and it is gone
 * only when HDF5 no longer knows it. HDF5 is asked rather than the
 * references counted here, so that increments made where nothing is traced
 * (inside a library built without the wrappers) count too. */
static int last_reference_gone(hid_t id, int ok)
{
    return ok && H5Iis_valid(id) <= 0;
}

int64_t siot_h5_close(hid_t id, int ok)
{
    if (id <= 0)
        return id == 0 ? 0 : -1;
    int c = predef_code(id);
    if (c)
        return c;
    set_base();
    if (last_reference_gone(id, ok))
        return siot_h_release(SIOT_H_HID, (uintptr_t)id);
    return siot_h_id(SIOT_H_HID, (uintptr_t)id);
}

int64_t siot_h5_space_rank(hid_t space)
{
    if (space <= 0)
        return 0;
    int r = H5Sget_simple_extent_ndims(space);
    return r > 0 ? r : 0;
}

int64_t siot_h5_dset_rank(hid_t dset)
{
    hid_t s = dset > 0 ? H5Dget_space(dset) : -1;
    if (s < 0)
        return 0;
    int64_t r = siot_h5_space_rank(s);
    H5Sclose(s);
    return r;
}

static int64_t type_size(hid_t type)
{
    size_t s = type > 0 ? H5Tget_size(type) : 0;
    return (int64_t)s;
}

/* The bytes an element moves: the smaller side of the conversion between
 * the memory type and the stored one (file_type, closed here): a compound
 * in memory of which the file keeps some members (h5bench's interleaved
 * particles: 16-byte structs, 4-byte file members), doubles stored as
 * floats. Either way the file sees elements of the smaller size. */
static int64_t moved_size(hid_t mem_type, hid_t file_type)
{
    int64_t size = type_size(mem_type);
    if (file_type >= 0) {
        int64_t fs = type_size(file_type);
        if (fs > 0 && fs < size)
            size = fs;
        H5Tclose(file_type);
    }
    return size;
}

int64_t siot_h5_dset_bytes(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space)
{
    hssize_t n = -1;
    if (mem_space != H5S_ALL) {
        n = H5Sget_select_npoints(mem_space);
    } else if (file_space != H5S_ALL) {
        n = H5Sget_select_npoints(file_space);
    } else {
        hid_t s = H5Dget_space(dset);
        if (s >= 0) {
            n = H5Sget_select_npoints(s);
            H5Sclose(s);
        }
    }
    if (n <= 0)
        return 0;
    return (int64_t)n * moved_size(mem_type, H5Dget_type(dset));
}

int64_t siot_h5_attr_bytes(hid_t attr, hid_t mem_type)
{
    hid_t s = H5Aget_space(attr);
    if (s < 0)
        return 0;
    hssize_t n = H5Sget_select_npoints(s);
    H5Sclose(s);
    if (n <= 0)
        return 0;
    return (int64_t)n * moved_size(mem_type, H5Aget_type(attr));
}

int64_t siot_h5_chunk_bytes(hid_t dset, const hsize_t *offset)
{
    hsize_t n = 0;
    if (!offset || H5Dget_chunk_storage_size(dset, offset, &n) < 0)
        return 0;
    return (int64_t)n;
}
