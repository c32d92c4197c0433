/* sitetree: the call-site table written as a tree of frames (format minor 1,
 * docs/format.md). Sites share their outer frames (main, the HDF5 and MPI
 * layers above a write): each distinct frame is written once, each distinct
 * chain of frames from the outermost one is a tree node (its parent and one
 * frame), and a site is the node of its innermost frame. The decoded sites
 * are the very same frame lists.
 *
 * Locks: none. The encoder allocates through salloc.h only (a partial trace
 * may be encoded in a signal handler).
 *
 * Errors: siot_sitetree_encode returns -1 when memory ran out (nothing
 * useful written); siot_sitetree_decode returns -1 with the reader failed
 * with a one-line reason (input treated as hostile), 0 otherwise. */
#ifndef SIOT_SITETREE_H
#define SIOT_SITETREE_H

#include "core/model.h"
#include "core/vbuf.h"

/* Appends the frames, the nodes and the sites' nodes (not the module table). */
int siot_sitetree_encode(const siot_site *sites, uint32_t nsites, siot_vbuf *out);
/* Reads what encode wrote into sites[0..nsites) (allocated from arena);
 * frames must name one of nmodules modules. */
int siot_sitetree_decode(siot_rd *rd, siot_arena *arena, uint32_t nmodules, siot_site **sites, uint32_t *nsites);

#endif
