"""The .siot container as docs/format.md describes it (magic and version,
then sections of tag, uvar length, payload, CRC-32), read here independently
of the C reader: for tests that measure or edit sections. A packed file
(minor 5: PACK sections, tag 7, each a uvar length and the raw DEFLATE of a
piece of the unpacked file) is unpacked with Python's zlib first."""
import zlib

PACK = 7


def uvar(d, p):
    """The LEB128 value at d[p] and the position after it."""
    v = s = 0
    while True:
        b = d[p]
        p += 1
        v |= (b & 127) << s
        s += 7
        if b < 128:
            return v, p


def raw_sections(data):
    """The sections of data as they are, packed or not."""
    p = 12
    while p < len(data):
        n, q = uvar(data, p + 1)
        yield data[p], data[q:q + n], q + n + 4 - p
        p = q + n + 4


def unpacked(data):
    """The unpacked file of data (data itself when it is not packed)."""
    if len(data) <= 12 or data[12] != PACK:
        return data
    out = bytearray()
    for tag, payload, _ in raw_sections(data):
        assert tag == PACK, "a section other than a piece in a packed file"
        n, q = uvar(payload, 0)
        piece = zlib.decompressobj(-15).decompress(payload[q:])
        assert len(piece) == n, "a piece not of its stated length"
        out += piece
    return bytes(out)


def sections(data):
    """(tag, payload, bytes taken with the framing) of each section of the
    unpacked file."""
    return raw_sections(unpacked(data))
