/* hdf5_record: what the generated HDF5 wrappers need: small stable ids for
 * HDF5 identifiers, dataspace ranks, and the bytes a transfer moves.
 *
 * Ids (docs/handles.md): 0 is H5P_DEFAULT / H5S_ALL, 1..255 the predefined
 * datatypes and property-list classes in a fixed order, created
 * identifiers from 256, lowest free first, -1 an invalid id.
 *
 * Locks: called between siot_end and siot_finish, under the recorder lock;
 * the HDF5 queries they make pass through the wrappers unrecorded.
 *
 * Errors: ids are 0 for H5P_DEFAULT, -1 for an invalid identifier, one
 * closed that was never seen, or when the id table cannot grow
 * (src/handles.h); ranks and byte counts are 0 when HDF5 cannot tell.
 * Nothing else fails. */
#ifndef SIOT_HDF5_RECORD_H
#define SIOT_HDF5_RECORD_H

#include <hdf5.h>

#include "pmpi/mpi_record.h"
#include "src/record.h"

#define SIOT_HID_BASE 256

int64_t siot_h5_id(hid_t id);
int64_t siot_h5_new(hid_t id);
/* The id of an identifier a close or H5Idec_ref was given: released when
 * the call succeeded (ok) and took its last reference (HDF5 no longer knows
 * it); kept while H5Iinc_ref's references hold it (docs/handles.md). */
int64_t siot_h5_close(hid_t id, int ok);
/* Rank of a dataspace (0 when it cannot be told). */
int64_t siot_h5_space_rank(hid_t space);
int64_t siot_h5_dset_rank(hid_t dset);
/* Bytes of memory an H5Dwrite/H5Dread moves: selected elements x type size. */
int64_t siot_h5_dset_bytes(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space);
/* Bytes an H5Awrite/H5Aread moves: the attribute's elements x type size. */
int64_t siot_h5_attr_bytes(hid_t attr, hid_t mem_type);
/* H5Dread_chunk: the stored (filtered) size of the chunk at offset. */
int64_t siot_h5_chunk_bytes(hid_t dset, const hsize_t *offset);

#endif
