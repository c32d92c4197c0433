/* test_vbuf: byte buffers, varints, the bounds-checked reader and CRC-32. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/vbuf.h"
#include "tests/unit/unit.h"

/* Reads one unsigned varint from exactly n bytes (heap copy, so ASan sees overreads). */
static uint64_t read_uvar_exact(const uint8_t *p, size_t n, const char **err, size_t *left)
{
    uint8_t *copy = malloc(n ? n : 1);
    memcpy(copy, p, n);
    siot_rd r;
    siot_rd_init(&r, copy, n);
    uint64_t v = siot_rd_uvar(&r);
    *err = r.err;
    *left = siot_rd_left(&r);
    free(copy);
    return v;
}

static int bytes_are(const siot_vbuf *b, const uint8_t *want, size_t n)
{
    return b->len == n && memcmp(b->data, want, n) == 0;
}

int main(void)
{
    /* Unsigned varints: exact LEB128 bytes at the boundaries, and round trips. */
    {
        static const struct {
            uint64_t v;
            uint8_t enc[10];
            size_t n;
        } cases[] = {
            {0, {0x00}, 1},
            {1, {0x01}, 1},
            {127, {0x7f}, 1},
            {128, {0x80, 0x01}, 2},
            {300, {0xac, 0x02}, 2},
            {16383, {0xff, 0x7f}, 2},
            {16384, {0x80, 0x80, 0x01}, 3},
            {UINT64_C(1) << 32, {0x80, 0x80, 0x80, 0x80, 0x10}, 5},
            {(UINT64_C(1) << 32) - 1, {0xff, 0xff, 0xff, 0xff, 0x0f}, 5},
            {UINT64_C(1) << 63, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 10},
            {(uint64_t)INT64_MAX, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, 9},
            {UINT64_MAX, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            siot_vbuf b;
            siot_vbuf_init(&b);
            siot_vbuf_uvar(&b, cases[i].v);
            CHECK(bytes_are(&b, cases[i].enc, cases[i].n));
            const char *err;
            size_t left;
            uint64_t got = read_uvar_exact(b.data, b.len, &err, &left);
            CHECK(err == NULL);
            CHECK(got == cases[i].v);
            CHECK_EQ_I64(left, 0);
            /* Every proper prefix is a truncated varint: refused, value 0, cursor at the end. */
            for (size_t k = 0; k < b.len; k++) {
                got = read_uvar_exact(b.data, k, &err, &left);
                CHECK(err != NULL);
                CHECK(got == 0);
                CHECK_EQ_I64(left, 0);
            }
            siot_vbuf_free(&b);
        }
    }

    /* Zigzag: hand-known mapping, and signed varints round trip at the extremes. */
    {
        CHECK(siot_zigzag(0) == 0);
        CHECK(siot_zigzag(-1) == 1);
        CHECK(siot_zigzag(1) == 2);
        CHECK(siot_zigzag(-2) == 3);
        CHECK(siot_zigzag(INT64_MAX) == UINT64_MAX - 1);
        CHECK(siot_zigzag(INT64_MIN) == UINT64_MAX);
        CHECK(siot_unzigzag(UINT64_MAX) == INT64_MIN);
        CHECK(siot_unzigzag(UINT64_MAX - 1) == INT64_MAX);
        CHECK(siot_unzigzag(3) == -2);
        static const int64_t sv[] = {0, 1, -1, 63, -64, 64, -65, 127, 128, -128, (int64_t)1 << 32, -((int64_t)1 << 32),
                                     INT64_MAX, INT64_MIN, INT64_MIN + 1};
        siot_vbuf b;
        siot_vbuf_init(&b);
        for (size_t i = 0; i < sizeof sv / sizeof sv[0]; i++)
            siot_vbuf_svar(&b, sv[i]);
        siot_rd r;
        siot_rd_init(&r, b.data, b.len);
        for (size_t i = 0; i < sizeof sv / sizeof sv[0]; i++)
            CHECK(siot_rd_svar(&r) == sv[i]);
        CHECK(r.err == NULL);
        CHECK_EQ_I64(siot_rd_left(&r), 0);
        /* -64 and 63 fit one byte (zigzag 127 and 126), -65 and 64 need two. */
        siot_vbuf_free(&b);
        siot_vbuf_init(&b);
        siot_vbuf_svar(&b, -64);
        CHECK_EQ_I64(b.len, 1);
        b.len = 0;
        siot_vbuf_svar(&b, 64);
        CHECK_EQ_I64(b.len, 2);
        siot_vbuf_free(&b);
    }

    /* Over-long and over-large varints are refused. */
    {
        const char *err;
        size_t left;
        /* 11 bytes: ten continuation bytes then a terminator. */
        uint8_t eleven[11] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
        read_uvar_exact(eleven, sizeof eleven, &err, &left);
        CHECK(err != NULL);
        /* 11 bytes of 0xff: more than 64 bits of payload. */
        uint8_t ff11[11];
        memset(ff11, 0xff, sizeof ff11);
        ff11[10] = 0x01;
        read_uvar_exact(ff11, sizeof ff11, &err, &left);
        CHECK(err != NULL);
        /* 10 bytes whose last byte carries bits beyond bit 63. */
        uint8_t big[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
        uint64_t v = read_uvar_exact(big, sizeof big, &err, &left);
        CHECK(err != NULL);
        CHECK(v == 0);
        uint8_t big2[10] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f};
        read_uvar_exact(big2, sizeof big2, &err, &left);
        CHECK(err != NULL);
    }

    /* Errors are sticky: after a failed read every later read fails and returns 0, even with bytes left. */
    {
        uint8_t d[4] = {9, 0x05, 0x07, 0x08};
        siot_rd r;
        siot_rd_init(&r, d, sizeof d);
        CHECK(siot_rd_uvar_max(&r, 4, "first") == 0); /* 9 > 4: fails with 3 bytes unread */
        CHECK(r.err != NULL && strcmp(r.err, "first") == 0);
        CHECK_EQ_I64(siot_rd_left(&r), 0);
        CHECK(siot_rd_u8(&r) == 0);
        CHECK(siot_rd_uvar(&r) == 0);
        siot_rd_fail(&r, "second");
        CHECK(strcmp(r.err, "first") == 0); /* the first error is kept */
        siot_rd_init(&r, d, 0);
        CHECK(siot_rd_u8(&r) == 0);
        CHECK(r.err != NULL);
        CHECK(siot_rd_u32le(&r) == 0);
        CHECK(siot_rd_u64le(&r) == 0);
    }

    /* Fixed-width little-endian fields, doubles and strings round trip with exact bytes. */
    {
        siot_vbuf b;
        siot_vbuf_init(&b);
        siot_vbuf_u8(&b, 0xab);
        siot_vbuf_u32le(&b, 0x11223344u);
        siot_vbuf_u64le(&b, UINT64_C(0x0102030405060708));
        siot_vbuf_f64(&b, -2.5);
        siot_vbuf_str(&b, "hello", 5);
        static const uint8_t want[] = {0xab, 0x44, 0x33, 0x22, 0x11, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
                                       /* -2.5 = 0xC004000000000000 */
                                       0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0xc0, 5, 'h', 'e', 'l', 'l', 'o'};
        CHECK(bytes_are(&b, want, sizeof want));
        siot_rd r;
        siot_rd_init(&r, b.data, b.len);
        CHECK(siot_rd_u8(&r) == 0xab);
        CHECK(siot_rd_u32le(&r) == 0x11223344u);
        CHECK(siot_rd_u64le(&r) == UINT64_C(0x0102030405060708));
        CHECK(siot_rd_f64(&r) == -2.5);
        size_t n;
        const uint8_t *s = siot_rd_bytes(&r, &n, 100);
        CHECK(n == 5 && memcmp(s, "hello", 5) == 0);
        CHECK(r.err == NULL);
        CHECK_EQ_I64(siot_rd_left(&r), 0);
        /* A u32 or u64 with too few bytes left is refused. */
        siot_rd_init(&r, b.data + 1, 3);
        CHECK(siot_rd_u32le(&r) == 0 && r.err != NULL);
        siot_rd_init(&r, b.data + 5, 7);
        CHECK(siot_rd_u64le(&r) == 0 && r.err != NULL);
        siot_vbuf_free(&b);
    }

    /* A buffer grown by many small writes keeps every byte. */
    {
        siot_vbuf b;
        siot_vbuf_init(&b);
        for (unsigned i = 0; i < 100000; i++)
            siot_vbuf_u8(&b, (uint8_t)(i * 7));
        int ok = b.len == 100000 && !b.oom;
        for (unsigned i = 0; ok && i < 100000; i++)
            ok = b.data[i] == (uint8_t)(i * 7);
        CHECK(ok);
        siot_vbuf_free(&b);
    }

    /* siot_rd_uvar_max: values up to max pass, larger ones fail. */
    {
        uint8_t d[2] = {100, 101};
        siot_rd r;
        siot_rd_init(&r, d, 2);
        CHECK(siot_rd_uvar_max(&r, 100, "too big") == 100);
        CHECK(r.err == NULL);
        CHECK(siot_rd_uvar_max(&r, 100, "too big") == 0);
        CHECK(r.err != NULL && strcmp(r.err, "too big") == 0);
    }

    /* siot_rd_count: a count must fit in what is left at min_item_bytes each. */
    {
        /* count byte followed by 5 payload bytes */
        uint8_t d[6] = {0, 1, 2, 3, 4, 5};
        siot_rd r;
        d[0] = 5;
        siot_rd_init(&r, d, 6);
        CHECK(siot_rd_count(&r, 1, "long") == 5 && r.err == NULL);
        d[0] = 6;
        siot_rd_init(&r, d, 6);
        CHECK(siot_rd_count(&r, 1, "long") == 0 && r.err != NULL);
        d[0] = 2;
        siot_rd_init(&r, d, 6);
        CHECK(siot_rd_count(&r, 2, "long") == 2 && r.err == NULL);
        d[0] = 3;
        siot_rd_init(&r, d, 6);
        CHECK(siot_rd_count(&r, 2, "long") == 0 && r.err != NULL); /* 3 items x 2 bytes > 5 bytes */
        d[0] = 0;
        siot_rd_init(&r, d, 1);
        CHECK(siot_rd_count(&r, 8, "long") == 0 && r.err == NULL); /* zero items always fit */
        /* A huge count (2^40) with a tiny input. */
        siot_vbuf b;
        siot_vbuf_init(&b);
        siot_vbuf_uvar(&b, UINT64_C(1) << 40);
        siot_vbuf_put(&b, "xyz", 3);
        siot_rd_init(&r, b.data, b.len);
        CHECK(siot_rd_count(&r, 1, "long") == 0 && r.err != NULL);
        /* min_item_bytes 0 is treated as 1, never as "anything fits". */
        siot_rd_init(&r, b.data, b.len);
        CHECK(siot_rd_count(&r, 0, "long") == 0 && r.err != NULL);
        siot_vbuf_free(&b);
    }

    /* siot_rd_bytes: length within both max and what is left; empty strings are fine. */
    {
        uint8_t d[5] = {3, 'a', 'b', 'c', 0};
        size_t n = 99;
        siot_rd r;
        siot_rd_init(&r, d, 4);
        const uint8_t *p = siot_rd_bytes(&r, &n, 3);
        CHECK(r.err == NULL && n == 3 && p == d + 1);
        CHECK_EQ_I64(siot_rd_left(&r), 0);
        siot_rd_init(&r, d, 4);
        p = siot_rd_bytes(&r, &n, 2); /* longer than max */
        CHECK(r.err != NULL && n == 0);
        d[0] = 4; /* longer than the data */
        siot_rd_init(&r, d, 4);
        p = siot_rd_bytes(&r, &n, 100);
        CHECK(r.err != NULL && n == 0);
        d[0] = 4; /* exactly the data */
        siot_rd_init(&r, d, 5);
        p = siot_rd_bytes(&r, &n, 4);
        CHECK(r.err == NULL && n == 4 && p == d + 1);
        d[0] = 0;
        siot_rd_init(&r, d, 1);
        p = siot_rd_bytes(&r, &n, 0);
        CHECK(r.err == NULL && n == 0 && siot_rd_left(&r) == 0);
        /* length 2^63: must not wrap the pointer arithmetic */
        uint8_t huge[10] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
        siot_rd_init(&r, huge, sizeof huge);
        p = siot_rd_bytes(&r, &n, SIZE_MAX);
        CHECK(r.err != NULL && n == 0);
    }

    /* CRC-32 (IEEE): the standard check value, the empty string, and chaining. */
    {
        CHECK(siot_crc32(0, "123456789", 9) == 0xCBF43926u);
        CHECK(siot_crc32(0, "", 0) == 0);
        CHECK(siot_crc32(siot_crc32(0, "1234", 4), "56789", 5) == 0xCBF43926u);
        CHECK(siot_crc32(0, "a", 1) == 0xE8B7BE43u);
        CHECK(siot_crc32(0, "The quick brown fox jumps over the lazy dog", 43) == 0x414FA339u);
    }

    /* 64 bytes and more go by carry-less multiplication where the processor
     * has it: the same CRC as bytewise, at every length and alignment, and
     * chained at any cut. */
    {
        static uint8_t buf[4096 + 16];
        uint64_t x = 88172645463325252ull;
        for (size_t i = 0; i < sizeof buf; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            buf[i] = (uint8_t)x;
        }
        int bad = 0;
        for (size_t n = 0; n <= 1100 && !bad; n += n < 200 ? 1 : 37)
            for (size_t off = 0; off < 16 && !bad; off += 5) {
                uint32_t ref = 0xffffffffu;
                for (size_t i = 0; i < n; i++) { /* bit by bit: independent of both ways */
                    ref ^= buf[off + i];
                    for (int k = 0; k < 8; k++)
                        ref = (ref & 1) ? 0xedb88320u ^ (ref >> 1) : ref >> 1;
                }
                ref = ~ref;
                size_t cut = n / 3;
                bad = siot_crc32(0, buf + off, n) != ref ||
                      siot_crc32(siot_crc32(0, buf + off, cut), buf + off + cut, n - cut) != ref;
            }
        CHECK(!bad);
        CHECK(siot_crc32(7, buf, 4096) == siot_crc32(siot_crc32(7, buf, 100), buf + 100, 3996));
    }

    return unit_done("vbuf");
}
