/* renest: nested loops found in long flat runs. The on-the-fly folding
 * (compress/queue.h) makes one loop of a nest whose inner boundary it did
 * not see: for each of S segments, 64 transfers at seg*P*64K + rank*64K +
 * j*1K fold into one loop of S*64 iterations whose offsets are a run table
 * of S runs, growing with S. This pass, run on a rank's trace once it is
 * complete, rewrites such a loop as S iterations of a loop of 64 with the
 * offset one two-level progression, when every value of the body can be so
 * written (run starts and lengths multiples of the inner count, runs with
 * one stride and bases in progression); otherwise the loop stays as it is.
 * When the segment's edge falls in the middle of the body (write, then
 * lseek to the next transfer: the lseek's runs start one iteration before
 * each segment's end), such a value becomes two pieces of the inner loop,
 * each a two-level progression. Lossless: the expanded events are the same,
 * and no event moves (its timing histograms stay whole).
 *
 * Locks: none; the trace is the caller's alone. Signals: not for handlers.
 *
 * Errors: running out of memory leaves the loop being rewritten as it was. */
#ifndef SIOT_RENEST_H
#define SIOT_RENEST_H

#include "core/format.h"
#include "core/model.h"

/* Rewrites the loops of t that can be; returns how many were split (the
 * node ids are renumbered when some were). */
uint32_t siot_renest(siot_trace *t);

#endif
