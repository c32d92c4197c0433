#include "core/vbuf.h"
#include "core/salloc.h"

#include <stdlib.h>
#include <string.h>

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

/* CRC-32 (IEEE 802.3, reflected), table built on first use. */
/* CRC-32 (the zlib polynomial) eight bytes at a time ("slicing by 8"):
 * crc_table[k][i] is the CRC of byte i followed by k zero bytes, so the
 * eight lookups of one step are independent of each other. */
static uint32_t crc_table[8][256];
static int crc_ready;

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int k = 1; k < 8; k++)
            crc_table[k][i] = (crc_table[k - 1][i] >> 8) ^ crc_table[0][crc_table[k - 1][i] & 0xff];
    crc_ready = 1;
}

static inline uint32_t le32(const uint8_t *s) { return s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24; }

static uint32_t crc_table_run(uint32_t crc, const uint8_t *s, size_t n)
{
    if (!crc_ready)
        crc_init();
    crc = ~crc;
    for (; n >= 8; s += 8, n -= 8) {
        uint32_t lo = crc ^ le32(s), hi = le32(s + 4);
        crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^ crc_table[5][(lo >> 16) & 0xff] ^
              crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
              crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
    }
    while (n--)
        crc = crc_table[0][(crc ^ *s++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CRC_FOLD 1
/* The CRC of whole 16-byte blocks (n a multiple of 16, at least 64) by
 * carry-less multiplication: four blocks folded in parallel, then one, then
 * Barrett's reduction (Gopal et al., "Fast CRC computation for generic
 * polynomials using PCLMULQDQ", Intel 2009; the constants of the reflected
 * zlib polynomial, as in zlib's and Chromium's crc32_simd). A trace's nodes
 * section is most of its bytes, and the table takes about 3 instructions a
 * byte; this, about one per 8. crc: the running CRC, not inverted. */
#define LOAD16(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
__attribute__((target("pclmul,sse4.1"))) static uint32_t crc_fold(uint32_t crc, const uint8_t *buf,
                                                                  size_t len)
{
    const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
    const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
    const __m128i k5k0 = _mm_set_epi64x(0, 0x0163cd6124);
    const __m128i poly = _mm_set_epi64x(0x01f7011641, 0x01db710641);
    __m128i x1 = LOAD16(buf), x2 = LOAD16(buf + 16), x3 = LOAD16(buf + 32), x4 = LOAD16(buf + 48), x5;
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
/* one 16-byte lane x folded over the next 16 bytes at p, by constants k */
#define FOLD16(x, k, p) \
    _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x11), _mm_clmulepi64_si128(x, k, 0x00)), LOAD16(p))
    for (buf += 64, len -= 64; len >= 64; buf += 64, len -= 64) {
        x1 = FOLD16(x1, k1k2, buf);
        x2 = FOLD16(x2, k1k2, buf + 16);
        x3 = FOLD16(x3, k1k2, buf + 32);
        x4 = FOLD16(x4, k1k2, buf + 48);
    }
    __m128i rest[3] = {x2, x3, x4};
    for (int i = 0; i < 3; i++) { /* four into one */
        x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
        x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), rest[i]), x5);
    }
    for (; len >= 16; buf += 16, len -= 16) {
        x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
        x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), LOAD16(buf)), x5);
    }
    /* 128 bits to 64, then Barrett's reduction to 32 */
    const __m128i mask32 = _mm_setr_epi32(~0, 0, ~0, 0);
    x2 = _mm_clmulepi64_si128(x1, k3k4, 0x10);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
    x2 = _mm_srli_si128(x1, 4);
    x1 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, mask32), k5k0, 0x00), x2);
    x2 = _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), poly, 0x10);
    x2 = _mm_clmulepi64_si128(_mm_and_si128(x2, mask32), poly, 0x00);
    return (uint32_t)_mm_extract_epi32(_mm_xor_si128(x1, x2), 1);
}
#endif

uint32_t siot_crc32(uint32_t crc, const void *p, size_t n)
{
    const uint8_t *s = p;
#ifdef CRC_FOLD
    /* the processor has PCLMULQDQ and SSE4.1: asked each time (a load once
     * libgcc's table is filled; init in case no constructor has run yet),
     * not kept in a flag that threads would race on */
    if (n >= 64 && (__builtin_cpu_init(), __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1"))) {
        size_t whole = n & ~(size_t)15;
        crc = ~crc_fold(~crc, s, whole);
        s += whole;
        n -= whole;
    }
#endif
    return n ? crc_table_run(crc, s, n) : crc;
}
