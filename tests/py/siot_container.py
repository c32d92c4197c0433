"""The .siot container as docs/format.md describes it (magic and version,
then sections of tag, uvar length, payload, CRC-32), read here independently
of the C reader: for tests that measure or edit sections."""


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


def sections(data):
    """(tag, payload, bytes taken with the framing) of each section."""
    p = 12
    while p < len(data):
        n, q = uvar(data, p + 1)
        yield data[p], data[q:q + n], q + n + 4 - p
        p = q + n + 4
