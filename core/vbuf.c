#include "core/vbuf.h"
#include "core/salloc.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

void siot_vbuf_init(siot_vbuf *b) { memset(b, 0, sizeof *b); }

int siot_array_reserve(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *a = realloc(*arr, n * elem);
    if (!a)
        return -1;
    *arr = a;
    *cap = n;
    return 0;
}

void siot_vbuf_free(siot_vbuf *b)
{
    siot_free(b->data);
    memset(b, 0, sizeof *b);
}

int siot_vbuf_grow(siot_vbuf *b, size_t extra)
{
    if (b->oom)
        return 0;
    if (extra <= b->cap - b->len)
        return 1;
    size_t want = b->len + extra;
    if (want < b->len) {
        b->oom = 1;
        return 0;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap < want) {
        if (cap > SIZE_MAX / 2) {
            cap = want;
            break;
        }
        cap *= 2;
    }
    uint8_t *d = siot_realloc(b->data, cap);
    if (!d) {
        b->oom = 1;
        return 0;
    }
    b->data = d;
    b->cap = cap;
    return 1;
}

void siot_vbuf_put(siot_vbuf *b, const void *p, size_t n)
{
    if (n == 0 || !siot_vbuf_reserve(b, n))
        return;
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void siot_vbuf_u32le(siot_vbuf *b, uint32_t v)
{
    uint8_t t[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    siot_vbuf_put(b, t, 4);
}

void siot_vbuf_u64le(siot_vbuf *b, uint64_t v)
{
    uint8_t t[8];
    for (int i = 0; i < 8; i++)
        t[i] = (uint8_t)(v >> (8 * i));
    siot_vbuf_put(b, t, 8);
}

void siot_vbuf_f64(siot_vbuf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    siot_vbuf_u64le(b, u);
}

void siot_vbuf_str(siot_vbuf *b, const char *s, size_t n)
{
    siot_vbuf_uvar(b, n);
    siot_vbuf_put(b, s, n);
}

void siot_rd_init(siot_rd *r, const void *p, size_t n)
{
    r->p = p;
    r->end = r->p + n;
    r->err = NULL;
}

void siot_rd_fail(siot_rd *r, const char *why)
{
    if (!r->err)
        r->err = why;
    r->p = r->end;
}

size_t siot_rd_left(const siot_rd *r) { return (size_t)(r->end - r->p); }

uint8_t siot_rd_u8(siot_rd *r)
{
    if (r->p >= r->end) {
        siot_rd_fail(r, "unexpected end of data");
        return 0;
    }
    return *r->p++;
}

uint32_t siot_rd_u32le(siot_rd *r)
{
    if (siot_rd_left(r) < 4) {
        siot_rd_fail(r, "unexpected end of data");
        return 0;
    }
    uint32_t v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 | (uint32_t)r->p[3] << 24;
    r->p += 4;
    return v;
}

uint64_t siot_rd_u64le(siot_rd *r)
{
    if (siot_rd_left(r) < 8) {
        siot_rd_fail(r, "unexpected end of data");
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8;
    return v;
}

uint64_t siot_rd_uvar(siot_rd *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end) {
            siot_rd_fail(r, "unexpected end of data in a number");
            return 0;
        }
        uint8_t c = *r->p++;
        if (shift == 63 && (c & 0x7e)) {
            siot_rd_fail(r, "number too large");
            return 0;
        }
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    siot_rd_fail(r, "number too long");
    return 0;
}

int64_t siot_rd_svar(siot_rd *r) { return siot_unzigzag(siot_rd_uvar(r)); }

double siot_rd_f64(siot_rd *r)
{
    uint64_t u = siot_rd_u64le(r);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

uint64_t siot_rd_uvar_max(siot_rd *r, uint64_t max, const char *what)
{
    uint64_t v = siot_rd_uvar(r);
    if (v > max) {
        siot_rd_fail(r, what);
        return 0;
    }
    return v;
}

uint64_t siot_rd_count(siot_rd *r, size_t min_item_bytes, const char *what)
{
    uint64_t v = siot_rd_uvar(r);
    if (min_item_bytes == 0)
        min_item_bytes = 1;
    if (v > siot_rd_left(r) / min_item_bytes) {
        siot_rd_fail(r, what);
        return 0;
    }
    return v;
}

const uint8_t *siot_rd_bytes(siot_rd *r, size_t *len, size_t max)
{
    uint64_t n = siot_rd_uvar(r);
    if (n > max || n > siot_rd_left(r)) {
        siot_rd_fail(r, "string length out of bounds");
        *len = 0;
        return (const uint8_t *)"";
    }
    const uint8_t *p = r->p;
    r->p += n;
    *len = (size_t)n;
    return p;
}

/* CRC-32 (IEEE 802.3, the zlib polynomial, reflected): zlib's own, which
 * every program of the tool links for the packed form (core/pack.h). It has
 * no state to set up (Debian's zlib has its tables built in), so threads
 * and a signal handler may call it. (zlib answers 0 for a NULL buffer,
 * whatever the CRC so far: nothing to add is answered here.) */
uint32_t siot_crc32(uint32_t crc, const void *p, size_t n) { return n ? (uint32_t)crc32_z(crc, p, n) : crc; }
