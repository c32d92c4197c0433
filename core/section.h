/* section: a section's frame (docs/format.md "The file in brief"): u8 tag, uvar
 * length, payload, u32 CRC-32 of tag and payload. The trace file's
 * sections (core/format.h) and the packed form's pieces (core/pack.h) are
 * framed so; this module is below both.
 *
 * siot_rd_section reads one: 0; SIOT_SECTION_SHORT when it runs past the
 * end of rd (rd then failed); SIOT_SECTION_BAD_CRC when its checksum does
 * not match and siot_format_verify_crc is set (tag, payload and len are set
 * then, and rd is past it).
 *
 * Locks: none. siot_put_section allocates through the buffer (salloc.h),
 * so a partial trace can be written in a signal handler. Errors: the
 * buffer's sticky oom; the reader's return codes above. */
#ifndef SIOT_SECTION_H
#define SIOT_SECTION_H

#include <stddef.h>
#include <stdint.h>

#include "core/vbuf.h"

void siot_put_section(siot_vbuf *out, uint8_t tag, const void *payload, size_t len);
enum { SIOT_SECTION_SHORT = -1, SIOT_SECTION_BAD_CRC = -2 };
int siot_rd_section(siot_rd *rd, uint8_t *tag, const uint8_t **payload, uint64_t *len);
/* Checksums are verified unless this is 0: the fuzzer turns it off to reach
 * the parsers behind them. */
extern int siot_format_verify_crc;

#endif
