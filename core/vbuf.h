/* vbuf: growable byte buffers with varint writers, and a bounds-checked
 * reader cursor for untrusted input.
 *
 * Every read goes through siot_rd_*; once a read fails the cursor is marked
 * bad, later reads return zero, and the caller checks rd->err once. This keeps
 * the decoder free of per-field error plumbing without ever reading past the
 * end of the input.
 *
 * Signals: the buffers grow through salloc.h (usable while a handler writes
 * a partial trace); siot_array_reserve uses realloc (readers only).
 *
 * Errors: writers never report: a failed allocation sets b->oom, later
 * writes are dropped, and the caller checks oom once (siot_vbuf_reserve: 1,
 * or 0 once oom is set). Readers keep the first failure in r->err, move to
 * the end and return 0 (siot_rd_bytes: "" of length 0).
 * siot_array_reserve: 0, or -1 with the array unchanged. */
#ifndef SIOT_VBUF_H
#define SIOT_VBUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct siot_vbuf {
    uint8_t *data;
    size_t len;
    size_t cap;
    int oom; /* set once an allocation failed; the content is then incomplete */
} siot_vbuf;

void siot_vbuf_init(siot_vbuf *b);
void siot_vbuf_free(siot_vbuf *b);
/* Room for extra more bytes: 1, or 0 once out of memory. The check is
 * inline (the encoder asks for every value); growing is not. */
int siot_vbuf_grow(siot_vbuf *b, size_t extra);
static inline int siot_vbuf_reserve(siot_vbuf *b, size_t extra)
{
    if (__builtin_expect(!b->oom && extra <= b->cap - b->len, 1))
        return 1;
    return siot_vbuf_grow(b, extra);
}
void siot_vbuf_put(siot_vbuf *b, const void *p, size_t n);
static inline void siot_vbuf_u8(siot_vbuf *b, uint8_t v)
{
    if (siot_vbuf_reserve(b, 1))
        b->data[b->len++] = v;
}
void siot_vbuf_u32le(siot_vbuf *b, uint32_t v);
void siot_vbuf_u64le(siot_vbuf *b, uint64_t v);
/* LEB128: 7 bits a byte, the high bit set on all but the last. */
static inline void siot_vbuf_uvar(siot_vbuf *b, uint64_t v)
{
    if (!siot_vbuf_reserve(b, 10))
        return;
    uint8_t *d = b->data + b->len;
    for (; v >= 0x80; v >>= 7)
        *d++ = (uint8_t)(v | 0x80);
    *d++ = (uint8_t)v;
    b->len = (size_t)(d - b->data);
}
void siot_vbuf_f64(siot_vbuf *b, double v);
void siot_vbuf_str(siot_vbuf *b, const char *s, size_t n); /* length-prefixed */

typedef struct siot_rd {
    const uint8_t *p;
    const uint8_t *end;
    const char *err; /* first error, NULL while all reads succeeded */
} siot_rd;

void siot_rd_init(siot_rd *r, const void *p, size_t n);
void siot_rd_fail(siot_rd *r, const char *why);
size_t siot_rd_left(const siot_rd *r);
uint8_t siot_rd_u8(siot_rd *r);
uint32_t siot_rd_u32le(siot_rd *r);
uint64_t siot_rd_u64le(siot_rd *r);
uint64_t siot_rd_uvar(siot_rd *r);
int64_t siot_rd_svar(siot_rd *r);
double siot_rd_f64(siot_rd *r);
/* An unsigned varint that must be <= max (counts, indices, lengths). */
uint64_t siot_rd_uvar_max(siot_rd *r, uint64_t max, const char *what);
/* A count of items that each take at least min_item_bytes: bounded by what is
 * left, so a forged count can never make the reader allocate beyond the input. */
uint64_t siot_rd_count(siot_rd *r, size_t min_item_bytes, const char *what);
/* A length-prefixed byte string: returns a pointer into the input. */
const uint8_t *siot_rd_bytes(siot_rd *r, size_t *len, size_t max);

static inline uint64_t siot_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t siot_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }
static inline void siot_vbuf_svar(siot_vbuf *b, int64_t v) { siot_vbuf_uvar(b, siot_zigzag(v)); } /* zigzag */

uint32_t siot_crc32(uint32_t crc, const void *p, size_t n);

/* A heap array (malloc/realloc, for readers, not the runtime) of elem-byte
 * elements with room for at least need: *cap doubles from 16. 0, or -1
 * without memory (the array unchanged). */
int siot_array_reserve(void **arr, size_t *cap, size_t need, size_t elem);

#endif
