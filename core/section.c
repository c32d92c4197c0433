/* section: a section's frame (core/section.h). */
#include "core/section.h"

int siot_format_verify_crc = 1;

void siot_put_section(siot_vbuf *out, uint8_t tag, const void *payload, size_t len)
{
    /* the room at once: grown by doubling, the file so far would be copied
     * again at each step (a trace's nodes are most of it) */
    siot_vbuf_reserve(out, 1 + 10 + len + 4);
    siot_vbuf_u8(out, tag);
    siot_vbuf_uvar(out, len);
    siot_vbuf_put(out, payload, len);
    siot_vbuf_u32le(out, siot_crc32(siot_crc32(0, &tag, 1), payload, len));
}

int siot_rd_section(siot_rd *rd, uint8_t *tag, const uint8_t **payload, uint64_t *len)
{
    *tag = siot_rd_u8(rd);
    *len = siot_rd_uvar(rd);
    if (rd->err || *len > siot_rd_left(rd) || siot_rd_left(rd) - *len < 4)
        return SIOT_SECTION_SHORT;
    *payload = rd->p;
    rd->p += *len;
    uint32_t want = siot_rd_u32le(rd);
    return siot_crc32(siot_crc32(0, tag, 1), *payload, (size_t)*len) != want && siot_format_verify_crc
               ? SIOT_SECTION_BAD_CRC
               : 0;
}
