/* hash: the mixing steps the tables and folds share. Header only, no
 * state, nothing that can fail.
 *
 * siot_hash_mix folds one value into a running hash: the recorder's loop
 * fold (compress/queue.c) and the merge across ranks (compress/merge.c)
 * hash a node's shape with it, and their hashes must agree, which one
 * definition guarantees. siot_hash_fmix is MurmurHash3's 64-bit
 * finaliser: every bit of x moves every bit of the result, for tables
 * indexed by the low bits of a hash of sparse keys. */
#ifndef SIOT_HASH_H
#define SIOT_HASH_H

#include <stdint.h>

static inline uint64_t siot_hash_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 32);
}

static inline uint64_t siot_hash_fmix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

#endif
