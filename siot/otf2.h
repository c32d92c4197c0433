/* otf2: `siot export --otf2 DIR`, the trace as an OTF2 archive (the Open
 * Trace Format 2 of Score-P, read by Vampir, Scalasca, otf2-print and
 * Python's otf2 module), written with the OTF2 library over the walk of
 * siot/export.h: the same synthesised times as --chrome, in nanoseconds.
 *
 * What the archive holds: one location group per rank, one location per
 * traced thread (the rank's first thread is the MPI rank's location);
 * one region per traced function, entered and left by each call; the I/O
 * paradigms POSIX, ISOC (stdio), MPI-IO, HDF5 and PnetCDF, one I/O handle
 * per file and layer (the rows of `siot stats`' file table, named by the
 * file), IoCreateHandle at each open, IoDestroyHandle at the close of the
 * handle an open made, IoOperationBegin/Complete around each read and
 * write with its bytes; MpiSend/MpiRecv for point-to-point calls whose
 * peer the trace gives, MpiCollectiveBegin/End for the MPI-1 collectives,
 * on communicators rebuilt from their creations in the trace.
 *
 * Nothing is dropped silently: the records that cannot be written (a peer
 * on a communicator whose creation is not in the trace, a receive from any
 * source without a status, a collective OTF2 has no operation for, data on
 * a handle that names no traced file) are counted by reason in o->note.
 *
 * Built only into the siot tool (never the runtime): without the OTF2
 * library at build time (SIOT_NO_OTF2), siot_export_otf2 refuses, saying
 * so. Errors: as siot_export (siot/export.h); the OTF2 library's errors
 * are named in err. */
#ifndef SIOT_OTF2_H
#define SIOT_OTF2_H

#include <stddef.h>
#include <stdint.h>

#include "siot/export.h"

/* Writes DIR/traces.otf2, DIR/traces.def and DIR/traces/ (DIR is made if
 * missing; an archive already there is refused). Returns 0, 1 when
 * refused, -1 on an error. */
int siot_export_otf2(const siot_trace *t, siot_export_opts *o, const char *dir, uint64_t *written, char *err,
                     size_t errlen);

#endif
