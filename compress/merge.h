/* merge: uniting the compressed traces of two groups of ranks into one
 * (inter-node compression).
 *
 * The two node lists are aligned on structure (function, call site, thread,
 * loop bodies), with a bounded look-ahead where they differ (rank 0's extra
 * I/O, a boundary rank skipping an exchange). Aligned nodes become one node
 * for the union of their ranks, with every value merged as a function of the
 * rank: a line base + k*rank when one fits (offsets, peers, file-name numbers),
 * else a per-rank table whose entries share compact rank lists. Nodes that do
 * not align keep their own rank lists, in an order that preserves each rank's
 * program order. Neither side is expanded: the work is proportional to the
 * compressed sizes.
 *
 * Errors: siot_trace_merge returns 0, -1 when memory ran out, or
 * SIOT_E_CONFLICT; src is freed in every case. After a conflict dst is as it
 * was; after -1 it is still a valid trace, but nodes aligned before the
 * failure may already hold src's ranks. siot_merge_notes: 0 or -1 (memory). */
#ifndef SIOT_MERGE_H
#define SIOT_MERGE_H

#include "core/model.h"

/* Merges src's ranks into dst (src is consumed: its memory moves into dst).
 * window bounds the alignment's look-ahead. Returns 0, -1 on OOM, or
 * SIOT_E_CONFLICT when the two describe a function differently (dst then
 * still holds its own ranks, src is freed). */
int siot_trace_merge(siot_trace *dst, siot_trace *src, unsigned window);

/* A merge leaves in dst's arena both inputs' memory and what it replaced
 * (nodes, values and histograms merged into new ones): after a tree level
 * most of the arena is dead. t rewritten into a fresh arena (its exact
 * encoding decoded, as a parent would receive it, with its own flags and
 * rank-times K kept), the old one freed: 0, or -1 (memory) with t
 * unchanged. */
int siot_trace_compact(siot_trace *t);

/* The SIOT_TOLERANCE a trace was recorded with (its notes "tolerance" or
 * "approximate"), or 0: loop counts of different ranks within it merge
 * into one approximate count (compress/xmerge.h). */
double siot_trace_tolerance(const siot_trace *t);

/* Notes of two traces combined (counts added, memory maxima kept). */
int siot_merge_notes(siot_trace *dst, const siot_trace *src);

#endif
