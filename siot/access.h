/* access: what only program order tells, from one walk of every rank's
 * events (replay/synth.h: the expanded events with synthesised times),
 * shared by `siot report` and `siot stats --json --access`:
 *
 * - the access pattern of each file (name and layer, as replay/files.h rows
 *   them), per rank, then summed: a data call is consecutive when its
 *   offset is the previous call's end (same rank, same file), sequential
 *   when it is past that end, random when below it; a rank's first call
 *   on a file is judged against offset 0. The offset is the call's own
 *   (pread, pwrite, MPI_File_write_at...), or for POSIX read/write/readv/
 *   writev the descriptor's position followed from its open (0), lseek's
 *   result and the bytes moved. Other calls (stdio, MPI-IO's file
 *   pointers, HDF5, PnetCDF) have no known offset and count as such. An
 *   MPI-IO offset counts the etypes of the rank's file view past its
 *   displacement: with a view of bytes (etype and filetype MPI_BYTE or
 *   MPI_CHAR, as HDF5 sets them) the byte offset is displacement + offset;
 *   under any other view it is not known. With pointers set, a call at an
 *   MPI file's individual pointer (MPI_File_read, MPI_File_write_all...)
 *   has the pointer as its offset: 0 at the open and at each
 *   MPI_File_set_view, MPI_File_seek's SEEK_SET and SEEK_CUR, advanced by
 *   the bytes of each such call under a view of bytes; and a stdio call its
 *   stream's position: 0 at fopen (not appending), fseek's SEEK_SET and
 *   SEEK_CUR, ftell, rewind, advanced by the bytes moved.
 *   Aligned: offset and size multiples of SIOT_FS_BLOCK (4 KiB,
 *   siot/measures.h), the misaligned-requests finding's measure.
 * - how each layer amplified or merged the bytes of the layer above: the
 *   bytes of data calls whose recorded parent (the call that issued them)
 *   is a read or a write of another layer, by the parent's layer and
 *   direction and the child's layer and direction (ROMIO's
 *   read-modify-write under a collective write shows as reads under
 *   writes); beside them each layer's own bytes per direction.
 *
 * The walk iterates every event (time proportional to the expanded trace,
 * twice over for the synthesised times); it stops after max_events and
 * says so (truncated). A caller may see each event too (on_event).
 *
 * Errors: siot_access_run returns 0, or -1 with a reason in err (out of
 * memory, an inconsistent trace). */
#ifndef SIOT_ACCESS_H
#define SIOT_ACCESS_H

#include <stdint.h>

#include "core/roles.h"
#include "replay/synth.h"
#include "replay/files.h"

enum { SIOT_AP_CONSECUTIVE, SIOT_AP_SEQUENTIAL, SIOT_AP_RANDOM, SIOT_AP_UNKNOWN, SIOT_AP_N };

typedef struct siot_access_row {
    uint64_t n[SIOT_AP_N];
    uint64_t aligned; /* of the calls with a known offset */
    int64_t prev_end; /* walking: the end of the last call of last_rank */
    int64_t last_rank;
} siot_access_row;

typedef struct siot_access {
    siot_files files;      /* the walk's own rows: names and layers */
    siot_access_row *rows; /* parallel to files.rows */
    uint32_t caprows;
    /* [parent layer][parent dir][child layer][child dir], dir 0 read, 1 write */
    uint64_t amp[SIOT_NLAYERS][2][SIOT_NLAYERS][2];
    uint64_t layer_bytes[SIOT_NLAYERS][2]; /* every data call of the layer */
    uint64_t events;
    int truncated; /* stopped after max_events */
    int64_t *pos;  /* the walked rank's descriptor positions, -1 unknown */
    uint32_t npos;
    struct siot_view *views; /* the walked rank's MPI files with a view set */
    uint32_t nviews, capviews;
    /* Set by the caller: follow MPI files' individual file pointers and
     * stdio streams' positions too (siot findings' redundant-reads), so
     * that MPI_File_read, fread and the like get offsets; off by default,
     * where they count as unknown. */
    int pointers;
    struct siot_mptr *mptrs; /* the walked rank's MPI files' pointers (in etypes) and streams' positions */
    uint32_t nmptrs, capmptrs;
    /* The event walked last, for on_event: a data call's file row and byte
     * offset (-1 when not known or not a data call on a file). */
    int32_t last_row;
    int64_t last_off;
    void (*on_event)(void *user, const siot_synth_ev *ev, const siot_funcdesc *f);
    void *user;
} siot_access;

void siot_access_init(siot_access *a);
int siot_access_run(const siot_trace *t, siot_access *a, uint64_t max_events, char *err, size_t errlen);
void siot_access_free(siot_access *a);
const char *siot_access_name(unsigned k); /* "consecutive", ... */

/* The default limit of siot report and siot stats --access. */
#define SIOT_ACCESS_MAX_EVENTS 10000000ull /* about 6 s on a 10^7-event trace */

#endif
