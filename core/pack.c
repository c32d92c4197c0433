#include "core/pack.h"

#include <string.h>
#include <zlib.h>

#include "core/section.h"
#include "core/salloc.h"

enum { HEAD = 12 }; /* magic (8) and version (4) */
#define PACK_SMALL (1u << 20)

/* zlib's memory through salloc, as the rest of the encoder's. */
static voidpf pack_alloc(voidpf opaque, uInt items, uInt size)
{
    (void)opaque;
    return siot_calloc(items, size);
}

static void pack_free(voidpf opaque, voidpf p)
{
    (void)opaque;
    siot_free(p);
}

/* One PACK section: tag, length, uvar piece length, deflated piece, CRC. */
static int pack_piece(z_stream *z, const uint8_t *piece, size_t n, siot_vbuf *body, siot_vbuf *out)
{
    body->len = 0;
    siot_vbuf_uvar(body, n);
    size_t bound = deflateBound(z, (uLong)n);
    if (deflateReset(z) != Z_OK || !siot_vbuf_reserve(body, bound))
        return -1;
    z->next_in = (Bytef *)piece;
    z->avail_in = (uInt)n;
    z->next_out = body->data + body->len;
    z->avail_out = (uInt)bound;
    if (deflate(z, Z_FINISH) != Z_STREAM_END)
        return -1;
    body->len += bound - z->avail_out;
    siot_put_section(out, SIOT_SEC_PACK, body->data, body->len);
    return out->oom ? -1 : 0;
}

int siot_pack(const uint8_t *raw, size_t n, siot_vbuf *out)
{
    if (n < HEAD)
        return -1;
    size_t start = out->len;
    z_stream z = {.zalloc = pack_alloc, .zfree = pack_free};
    /* raw DEFLATE (no zlib header: the section has its own CRC). Level 6
     * up to 1 MiB, where it takes milliseconds (level 9 gains under 1% for
     * twice the time); level 3 above, where the time counts at
     * MPI_Finalize: a 12 MB irregular trace packs in half the time for 4%
     * more bytes (level 6: about 4,200 instructions an event that did not
     * fold; bench/hotpath.sh). */
    int level = n > PACK_SMALL ? 3 : 6;
    if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    siot_vbuf body;
    siot_vbuf_init(&body);
    siot_vbuf_put(out, raw, HEAD);
    int rc = out->oom ? -1 : 0;
    for (size_t at = 0; rc == 0 && at < n; at += SIOT_PACK_PIECE) {
        size_t len = n - at < SIOT_PACK_PIECE ? n - at : SIOT_PACK_PIECE;
        rc = pack_piece(&z, raw + at, len, &body, out);
    }
    deflateEnd(&z);
    siot_vbuf_free(&body);
    if (rc != 0 && !out->oom)
        out->len = start;
    return rc;
}

int siot_is_packed(const uint8_t *p, size_t n) { return n > HEAD && p[HEAD] == SIOT_SEC_PACK; }

/* Inflates one piece of exactly len bytes onto raw. */
static int unpack_piece(z_stream *z, siot_rd *rd, siot_vbuf *raw, uint64_t len, const char **why)
{
    if (!siot_vbuf_reserve(raw, (size_t)len)) {
        *why = "out of memory unpacking the trace";
        return -1;
    }
    z->next_in = (Bytef *)rd->p;
    z->avail_in = (uInt)siot_rd_left(rd);
    z->next_out = raw->data + raw->len;
    z->avail_out = (uInt)len;
    int zr = inflateReset(z) == Z_OK ? inflate(z, Z_FINISH) : Z_STREAM_ERROR;
    if (zr != Z_STREAM_END || z->avail_out != 0 || z->avail_in != 0) {
        *why = zr == Z_STREAM_END || zr == Z_BUF_ERROR ? "trace is corrupt (a packed piece is not of its stated length)"
                                                       : "trace is corrupt (a packed piece does not inflate)";
        return -1;
    }
    raw->len += (size_t)len;
    return 0;
}

/* One PACK section: framing and checksum, then its piece. */
static int unpack_section(z_stream *z, siot_rd *rd, siot_vbuf *raw, uint64_t budget, const char **why)
{
    uint8_t tag = 0;
    const uint8_t *payload = NULL;
    uint64_t len = 0;
    int framed = siot_rd_section(rd, &tag, &payload, &len);
    if (framed != 0 || tag != SIOT_SEC_PACK) {
        *why = framed == SIOT_SECTION_SHORT ? "trace is truncated (a packed piece runs past the end of the file)"
               : tag != SIOT_SEC_PACK       ? "trace is corrupt (a section other than a packed piece in a packed file)"
                                            : "trace is corrupt (checksum mismatch in a packed piece)";
        return -1;
    }
    siot_rd piece;
    siot_rd_init(&piece, payload, (size_t)len);
    uint64_t n = siot_rd_uvar(&piece);
    if (piece.err || n == 0 || n > SIOT_PACK_PIECE || n > budget - raw->len) {
        *why = "trace is corrupt (a packed piece's length is out of range)";
        return -1;
    }
    return unpack_piece(z, &piece, raw, n, why);
}

int siot_unpack(const uint8_t *p, size_t n, siot_vbuf *raw, const char **why)
{
    *why = "trace is corrupt";
    if (!siot_is_packed(p, n))
        return -1;
    uint64_t budget = (uint64_t)n * SIOT_PACK_RATIO + (64u << 20);
    z_stream z = {.zalloc = pack_alloc, .zfree = pack_free};
    if (inflateInit2(&z, -15) != Z_OK) {
        *why = "out of memory unpacking the trace";
        return -1;
    }
    siot_rd rd;
    siot_rd_init(&rd, p + HEAD, n - HEAD);
    int rc = 0;
    while (rc == 0 && siot_rd_left(&rd) > 0)
        rc = unpack_section(&z, &rd, raw, budget, why);
    inflateEnd(&z);
    /* the unpacked file starts with the packed one's magic and version and
     * is not packed again */
    if (rc == 0 && (raw->len < HEAD || memcmp(raw->data, p, HEAD) != 0 || siot_is_packed(raw->data, raw->len))) {
        *why = "trace is corrupt (the packed pieces do not make a trace)";
        rc = -1;
    }
    return rc;
}
