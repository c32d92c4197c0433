/* stack: call-site signatures. An event's site is the list of return
 * addresses of the frames that led to the call, the tracer's own frames left
 * out, at most SIOT_STACK_DEPTH of them, each stored as (module, offset) so
 * that every rank of a job agrees on it despite address-space randomisation.
 * Two calls of the same function from different places are different events
 * to the compressor; the same place in every iteration is the same event.
 *
 * Locks: the walk and the per-thread caches take none; a site never seen
 * is entered in the rank's table under the recorder lock (lock.h), which
 * siot_sites_export takes too (its _locked twin runs under it). Signals:
 * siot_site_here is safe in a signal handler (a handler's own traced call;
 * on an alternate stack the walk is libunwind's).
 *
 * Errors: siot_site_here answers 0 (no site) when no frame maps to a module
 * or the site table cannot grow: the event is then recorded without a site.
 * siot_sites_export(_locked) return 0, or -1 without memory (t then lacks
 * some modules or sites). */
#ifndef SIOT_STACK_H
#define SIOT_STACK_H

#include <stdint.h>

#include "core/model.h"

/* Code in this section is the tracer's: its frames never enter a signature. */
#define SIOT_TEXT __attribute__((section("siot_text"), noinline))

/* The site of the traced call in flight, called from the wrapper's frame
 * (the tracer's frames are left out): its id + 1, 0 when unknown. Cheap on
 * repeat: the return addresses are found with one load per frame from frame
 * sizes each thread learns from libunwind (stack.c), and a per-thread cache
 * maps them to the site; libunwind walks only a stack not seen before.
 * Takes the recorder lock only for a site never seen. Safe in a signal
 * handler (on an alternate stack the walk is libunwind's). frame: the
 * caller's own frame (__builtin_frame_address(0) in a SIOT_TEXT function),
 * where the walk past the tracer's frames starts. */
uint32_t siot_site_here(unsigned depth, const void *frame);
/* Walks where the learned frame sizes disagreed with libunwind (a frame
 * whose size varies between calls from the same place): counted, and the
 * thread's sizes forgotten; the trace's note site_walk_mismatches. */
uint64_t siot_site_walk_mismatches(void);
/* The costs of the first signature paid at start-up, before the program's
 * threads and clocks: libunwind's set-up and the table of loaded modules. */
void siot_stack_warm(void);
/* Copies the sites and modules seen so far into t (allocated in t's arena). */
int siot_sites_export(siot_trace *t);
/* The same, for a caller that holds the tracer lock. */
int siot_sites_export_locked(siot_trace *t);

#endif
