/* spill: keeping a rank's recorder within SIOT_MAX_MEMORY. When the queue
 * grows past it, the nodes it holds are encoded as NODES sections and
 * appended to a temporary file (unlinked at once, gone with the process);
 * the rank's trace is then written as a block of the job's file: its tables,
 * the spilled sections streamed from that file, and the nodes still in
 * memory (docs/format.md).
 *
 * Locks: the spill callback runs under the recorder lock (it is the queue's,
 * called from siot_finish); the block functions run once recording has
 * stopped (a session's end, a checkpoint under the lock). Signals: block
 * emission reads the spill file with system calls into a static buffer, so
 * that a partial trace can be written from a signal handler.
 *
 * Errors: 0 or -1; a spill that fails stops recording, and the trace says
 * after which event (note stopped). */
#ifndef SIOT_SPILL_H
#define SIOT_SPILL_H

#include <stdint.h>

#include "compress/queue.h"
#include "core/model.h"
#include "core/vbuf.h"

/* A new session: what an earlier one spilled is dropped. rank names the
 * spill file where O_TMPFILE cannot be used. */
void siot_spill_reset(int32_t rank);
/* q's nodes go to the spill file when siot_queue_spill is called (the
 * session does, under the recorder lock, past SIOT_MAX_MEMORY). */
void siot_spill_attach(siot_queue *q);
/* True when this rank sent part of its trace to the spill file. */
int siot_session_spilled(void);
/* The notes saying how the rank's trace was kept (spilled, stopped), from
 * the counts of its queues (one per thread) added up. */
typedef struct siot_spill_counts {
    int stopped;
    uint64_t stopped_at, lost, spilled_nodes;
} siot_spill_counts;
void siot_spill_describe(siot_trace *t, const siot_spill_counts *q);
/* The trace that stands for this rank's own session (its spilled sections
 * belong to it); returns the previous one. */
const siot_trace *siot_spill_set_own(const siot_trace *t);
int siot_spill_owns(const siot_trace *t);

/* A block of a job file (docs/format.md) holding t: this rank's own trace
 * with its spilled NODES sections when it spilled, or any trace (a merge of
 * some ranks' traces) as tables and one NODES section. len and nsec are
 * known after prepare; emit receives the bytes in order. */
typedef struct siot_block {
    siot_vbuf tables, last;
    uint64_t len;
    uint32_t nsec;
    uint64_t spill_bytes; /* streamed from this rank's spill file */
} siot_block;
typedef int (*siot_emit_fn)(void *arg, const void *p, size_t n);
int siot_block_prepare(const siot_trace *t, siot_block *b);
int siot_block_emit(const siot_block *b, siot_emit_fn emit, void *arg);
void siot_block_free(siot_block *b);

#endif
