/* handles: the kinds of objects a call's parameters use or create, told by
 * their parameter roles, with each kind's predefined ids and the replay's
 * words for one whose creation is missing; and a map, per kind, from a
 * trace's ids to numbers. What `ioreplay --check` (which creations are
 * missing) and the comparison of a replay with its original (ids numbered
 * by creation order) share. No global state; the map allocates.
 *
 * Errors: rp_idmap_set, rp_objs_note and rp_objs_keep return -1 when a map
 * cannot grow (an id outside the map's range is ignored: 0); rp_idmap_get
 * answers 0 for an id never set. A value that cannot be evaluated holds no
 * ids, and arrays past 4096 ids are cut. rp_kind_* give -1 for no kind. */
#ifndef SIOT_HANDLES_H
#define SIOT_HANDLES_H

#include <stddef.h>
#include <stdint.h>

#include "core/model.h"
#include "core/vbuf.h"

enum { RP_K_COMM, RP_K_GROUP, RP_K_DTYPE, RP_K_OP, RP_K_REQ, RP_K_FILE, RP_K_FD, RP_K_STREAM, RP_K_DIR, RP_K_WIN, RP_NKINDS };

/* The kind a role uses (reads an existing object), or creates; -1: none. */
int rp_kind_used(unsigned role);
int rp_kind_created(unsigned role);
/* Ids below the base are predefined objects (MPI_INT, MPI_COMM_WORLD...). */
int64_t rp_kind_base(int kind);
/* Why a call that uses an object of the kind whose creation is not in the trace is not reissued. */
const char *rp_kind_missing(int kind);
/* The same for one id: the recorder's SIOT_ID_UNKNOWN says more. */
const char *rp_id_missing(int kind, int64_t id);
/* MPI objects: their ids are numbers the recorder handed out (not the
 * program's own, as descriptors are). */
int rp_kind_is_mpi(int kind);

/* id -> value, per kind, for ids from the kind's base up to a bound (ids
 * outside are not stored: get answers 0). */
typedef struct rp_idmap {
    int64_t *v[RP_NKINDS];
    size_t cap[RP_NKINDS];
} rp_idmap;

int rp_idmap_in_range(int kind, int64_t id);
/* 0, or -1 without memory. */
int rp_idmap_set(rp_idmap *m, int kind, int64_t id, int64_t value);
int64_t rp_idmap_get(const rp_idmap *m, int kind, int64_t id);
void rp_idmap_free(rp_idmap *m);

/* rp_objs_note stores value for each MPI object e creates; rp_objs_used
 * answers the largest value stored for the objects e uses (0: none).
 * Objects made by calls a replay does not reissue (at the POSIX level, the
 * MPI-IO calls): an MPI call that uses one belongs with them (MPI_Wait on
 * an MPI_File_iwrite's request, MPI_Group_free of MPI_File_get_group's
 * group), covered by the POSIX calls they made. rp_objs_note records what
 * event e made (unreissued: made by such a call; else an id made again is
 * forgotten); rp_objs_used says whether e uses one of them. scratch:
 * for evaluating arrays. */
int rp_objs_note(rp_idmap *m, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c, int64_t value,
                 siot_vbuf *scratch);
int rp_objs_used(const rp_idmap *m, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c,
                 siot_vbuf *scratch);

/* The POSIX-level rule for one event e that would be kept (reissued or
 * compared): an MPI call on an object an MPI-IO call made is the library's
 * and not kept; what MPI-IO calls and calls not kept make is noted in m.
 * Returns whether e is kept, -1 without memory. in_mpiio: e is an MPI-IO
 * call or inside one. */
int rp_objs_keep(rp_idmap *m, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c, int keep, int in_mpiio,
                 siot_vbuf *scratch);

/* Objects made by calls a replay does not reissue (MPI_Win_create_dynamic's
 * window, a request of a call refused in turn): a later call that uses one
 * is not reissued because of its maker, and says so ("made by
 * MPI_Win_create_dynamic, which is not reissued (...)"), rather than that
 * the object's creation is missing from the trace. One text per maker and
 * reason, kept until rp_unmade_free, so that equal reasons are one pointer
 * (reports count reasons by pointer). */
enum { RP_UNMADE_REASONS = 64, RP_UNMADE_TEXT = 320 };
typedef struct rp_unmade {
    rp_idmap ids; /* MPI objects: their maker's reason number + 1; 0: not unmade */
    char *text[RP_UNMADE_REASONS];
    uint32_t n;
} rp_unmade;
/* e, made by f, was not reissued for why (NULL: it was): the MPI objects
 * it makes are unmade (or made again). 0, or -1 without memory. */
int rp_unmade_note(rp_unmade *u, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c, const char *why,
                   siot_vbuf *scratch);
/* Why the object is unmade, or NULL when it is not. */
const char *rp_unmade_why(const rp_unmade *u, int kind, int64_t id);
void rp_unmade_free(rp_unmade *u);

/* A test or probe that found nothing (its flag, else its first count, 0:
 * MPI_Test, MPI_Testsome, MPI_Iprobe... polling): how many a program makes
 * is timing. A replay does not reissue them and a comparison skips them. */
int rp_poll_found_nothing(const siot_funcdesc *f, const siot_event *e, const siot_ctx *c);

#endif
