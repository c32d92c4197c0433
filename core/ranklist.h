/* ranklist: sets of MPI ranks as unions of nested strided ranges (see
 * siot_ranklist in core/model.h), so that regular sets cost the same for 4 and
 * for 4,096 ranks.
 *
 * Canonical entry: strides positive and increasing, each stride larger than
 * the span of the dimensions inside it; then membership and enumeration are
 * arithmetic. The reader rejects non-canonical entries.
 *
 * Errors: the builders (siot_rl_single, siot_rl_from_sorted, siot_rl_union)
 * return 1, or 0 when memory ran out (siot_rl_union also for 2^32 ranks);
 * queries answer -1 for none (min and max of an empty list, siot_rl_nth
 * past the end, siot_rl_index of a non-member); siot_rl_format leaves
 * running out of memory in out->oom. */
#ifndef SIOT_RANKLIST_H
#define SIOT_RANKLIST_H

#include "core/model.h"

int siot_rl_single(siot_arena *a, siot_ranklist *rl, int32_t rank);
int siot_rl_contains(const siot_ranklist *rl, int64_t rank);
uint64_t siot_rl_size(const siot_ranklist *rl);
int32_t siot_rl_min(const siot_ranklist *rl); /* -1 when empty */
int32_t siot_rl_max(const siot_ranklist *rl);
int siot_rl_entry_ok(const siot_rentry *e, uint32_t nranks); /* canonical and inside [0,nranks) */
uint64_t siot_rl_entry_size(const siot_rentry *e);
int64_t siot_rl_entry_max(const siot_rentry *e);
int siot_rl_equal(const siot_ranklist *a, const siot_ranklist *b);
/* The k-th member of the list (k < size), in entry order. */
int32_t siot_rl_nth(const siot_ranklist *rl, uint64_t k);
/* Position of rank in entry order, or -1. */
int64_t siot_rl_index(const siot_ranklist *rl, int64_t rank);
/* Builds the smallest list this encoder finds for an ascending, duplicate-free
 * rank array. */
int siot_rl_from_sorted(siot_arena *a, siot_ranklist *rl, const int32_t *ranks, uint32_t n);
/* Union of two disjoint lists, re-encoded compactly. */
int siot_rl_union(siot_arena *a, siot_ranklist *out, const siot_ranklist *x, const siot_ranklist *y);
/* Writes "0-7", "{0,2..62}" style text. */
void siot_rl_format(const siot_ranklist *rl, siot_vbuf *out);

#endif
