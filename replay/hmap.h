/* hmap: which file each handle of a rank refers to (a descriptor, a
 * stream, an MPI file, an HDF5 or netCDF id, keyed by rank, kind and id),
 * with the handle's position in that file for whoever follows it. One
 * table for the per-file accounting (replay/files.c: the file's row) and
 * the staging of a replay's input files (replay/inputs.c: the file's index
 * and where the next read or write starts). Open addressing over a table
 * at most half full; no global state; the map allocates.
 *
 * Errors: rp_hmap_set returns NULL without memory (the map is then as it
 * was). A pointer rp_hmap_find or rp_hmap_set returned stays valid until
 * the next set, remove, clear or free. */
#ifndef SIOT_HMAP_H
#define SIOT_HMAP_H

#include <stdint.h>

typedef struct rp_handle {
    int64_t id, pos; /* pos: 0 when bound; its user moves it */
    int32_t rank, file;
    uint8_t kind, used;
} rp_handle;

typedef struct rp_hmap {
    rp_handle *h;
    uint32_t cap, count;
} rp_hmap;

/* The handle, or NULL when it is not bound. */
rp_handle *rp_hmap_find(const rp_hmap *m, int32_t rank, uint8_t kind, int64_t id);
/* Binds the handle to file (a reopen rebinds it), at position 0. */
rp_handle *rp_hmap_set(rp_hmap *m, int32_t rank, uint8_t kind, int64_t id, int32_t file);
/* Unbinds h, a handle rp_hmap_find returned. */
void rp_hmap_remove(rp_hmap *m, rp_handle *h);
/* Unbinds every handle, the table kept. */
void rp_hmap_clear(rp_hmap *m);
void rp_hmap_free(rp_hmap *m);

#endif
