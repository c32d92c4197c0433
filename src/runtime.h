/* runtime: what every wrapper layer uses: the hot path (record.c: begin,
 * end, finish and the pool; session.c: a leaf's end), and the headers of
 * the layers below it that a wrapper reads too: the thread's state and the
 * recorded layers (thread.h), the descriptor filters (handles.h), the
 * locks (lock.h), the clock (clock.h) and the configuration (config.h).
 *
 * Hot path, as generated wrappers use it:
 *
 *   if (siot_recording(LAYER) && filter) slot = siot_begin(FN);   // pre-order slot, start time
 *   ... real call ...
 *   ev = siot_end(slot);      // end time and call site; the thread is now "inside the tracer"
 *   ... fill ev->args, ev->ret ...
 *   siot_finish(slot);        // group handed to the thread's queue when outermost
 *
 * A leaf call (a POSIX or stdio call filled from its own values only,
 * which makes no traced call while it runs) takes a shorter way, generated
 * for it: two raw clock readings around the real call in the wrapper
 * itself, then the next staging slot taken inline, and one call that
 * stages the event (times, call site) and hands it on:
 *
 *   if (!(siot_recording(LAYER) && filter)) return real call;
 *   s0 = siot_stamp(); ... real call ...; s1 = siot_stamp();
 *   if ((ev = siot_leaf_slot(NARGS))) { ... fill ev ...; siot_leaf_end(ev, FN, s0, s1); }
 *
 * The event is the same as the long way's; only the tracer's work is less.
 *
 * No allocation happens per call once the staging area and the thread's
 * queue have grown, and no formatting. Locks: a wrapper whose event is
 * filled from the call's own values (the generator decides, from the
 * parameters' roles) takes none but its own thread's queue lock in
 * siot_finish (a leaf's siot_leaf_end, defined in session.c, likewise),
 * which other threads take only to checkpoint, spill or end
 * the session (session.h); a wrapper that reads or changes the shared
 * handle tables (an open, an MPI handle) ends with siot_end_shared, which
 * holds the recorder lock until siot_finish.
 * Signals: while the thread holds either lock a signal is handled when it
 * lets go (lock.h, rule 2); elsewhere a wrapper may be interrupted anywhere.
 *
 * Errors: none reach the program. siot_begin returns -1 when the staging
 * area cannot grow: the call then runs unrecorded, counted
 * (session.h siot_unstaged_calls, the trace's note calls_unrecorded).
 * siot_put_* leave an argument unrecorded (SIOT_RV_NONE) when the pool
 * cannot grow (siot_put_arr returns NULL, siot_pool_tmp 0) and cut strings
 * at SIOT_MAX_STRING. A group the queue cannot take is noted in the trace
 * (src/session.h). errno: a wrapper saves it after the real call and
 * restores it after siot_finish. */
#ifndef SIOT_RUNTIME_H
#define SIOT_RUNTIME_H

#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "core/event.h"
#include "core/model.h"
#include "core/roles.h"
#include "src/clock.h"
#include "src/config.h"
#include "src/handles.h"
#include "src/lock.h"
#include "src/thread.h"

int siot_begin(uint32_t func);
siot_raw *siot_end(int slot);
/* The same, and the recorder lock taken until siot_finish: the filling
 * reads or changes the shared handle tables (handles.h). */
siot_raw *siot_end_shared(int slot);
void siot_finish(int slot);
/* A leaf call (see above). siot_leaf_room: out of line, a thread's first
 * leaf or a full staging area: 1 when the next slot is there, 0 when it
 * cannot be had (counted as for siot_begin; the thread is not busy then). */
int siot_leaf_room(void);

/* The next staging slot, for a leaf's event to be filled, taken after the
 * call: the same slot siot_begin would have taken, since a leaf stages
 * nothing while it runs (the pre-order of the thread's staged calls is
 * the same). The thread is "inside the tracer" from here to siot_leaf_end;
 * busy first: a signal handler's traced call meanwhile passes through, and
 * cannot move the staging area. nargs: the function's recorded arguments.
 * Its ret, err, bytes and argument kinds are the wrapper's to set: the
 * generated wrapper clears (0, SIOT_RV_NONE) those its filling may leave
 * unset (tools/gen emit_leaf_fill), and only those. NULL: no slot. */
static inline __attribute__((always_inline)) siot_raw *siot_leaf_slot(uint32_t nargs)
{
    siot_tls *t = &siot_t;
    t->busy++;
    if (SIOT_UNLIKELY(!t->inited || t->nstage == t->capstage) && !siot_leaf_room())
        return NULL;
    siot_raw *r = &t->stage[t->nstage];
    r->nargs = nargs;
    return r;
}

/* The leaf's event, filled, staged (its function, its place, its times
 * from the raw readings, its computation, its call site) and handed on as
 * siot_finish does (session.c: the push is inlined into it). */
void siot_leaf_end(siot_raw *r, uint32_t func, uint64_t s0, uint64_t s1);

/* Pool storage for strings and arrays of the event being filled. */
void siot_put_str(siot_raw *ev, uint32_t k, const char *s);
void siot_put_strn(siot_raw *ev, uint32_t k, const char *s, size_t n);
/* Reserves room for n int64 values and returns where to write them (NULL on OOM). */
int64_t *siot_put_arr(siot_raw *ev, uint32_t k, uint32_t n);
/* Scratch bytes in the thread's pool that live until the current group is
 * flushed; returns offset+1 (0 on failure). The pool may move: re-derive
 * pointers with siot_pool_at after any call that can record. */
uint32_t siot_pool_tmp(size_t n);
void *siot_pool_at(uint32_t off1);
static inline void siot_put_int(siot_raw *ev, uint32_t k, int64_t v)
{
    ev->args[k].kind = SIOT_RV_INT;
    ev->args[k].i = v;
}

/* The main thread's staging area, at load time. */
void siot_record_init_thread(void);

#endif
