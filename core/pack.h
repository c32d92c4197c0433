/* pack: the packed file form (format minor 5, docs/format.md "Minor 5").
 *
 * A trace file as siot_trace_encode writes it (magic, version, sections) is
 * packed into: the same magic and version, then one or more PACK sections
 * (tag 7), each the raw DEFLATE (RFC 1951) of the next piece of at most
 * SIOT_PACK_PIECE bytes of the unpacked file, its magic and version
 * included. The pieces, inflated and put together, are the unpacked file.
 * The folding leaves the bytes of a trace repetitive (small constants, the
 * same kinds of events and histogram heads one after the other), which
 * DEFLATE takes out: FLASH-IO's trace is about 60% of its unpacked size.
 *
 * Untrusted input: a piece's declared length is checked against the piece
 * limit, what it inflates to must be exactly that length, and the file as a
 * whole may not unpack to more than SIOT_PACK_RATIO times its size plus
 * 64 MiB (DEFLATE can expand about 1,000-fold: a small hostile file must
 * not take gigabytes).
 *
 * Locks: none. Memory through salloc.h (zlib's allocations included), so a
 * file can be packed while a partial trace is written from a handler.
 *
 * Errors: siot_pack returns 0, or -1 without memory (out unchanged in
 * length then); siot_unpack 0, or -1 with a one-line reason in *why. */
#ifndef SIOT_PACK_H
#define SIOT_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "core/vbuf.h"

#define SIOT_SEC_PACK 7
#define SIOT_PACK_PIECE (4u << 20)
#define SIOT_PACK_RATIO 256u

/* Appends the packed form of the unpacked file raw[0..n) to out. */
int siot_pack(const uint8_t *raw, size_t n, siot_vbuf *out);
/* 1 when p[0..n) starts as a packed file does (magic, version, tag 7). */
int siot_is_packed(const uint8_t *p, size_t n);
/* The unpacked file of the packed file p[0..n), into raw (initialised by
 * the caller; freed by the caller whatever the result). */
int siot_unpack(const uint8_t *p, size_t n, siot_vbuf *raw, const char **why);

#endif
