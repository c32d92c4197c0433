"""strip_section.py IN TAG OUT: copies a .siot file without its sections of
one tag, the end marker's section count lowered to match."""
import sys
import zlib

from siot_container import sections, uvar


def put_uvar(v):
    out = bytearray()
    while True:
        b = v & 127
        v >>= 7
        out.append(b | (128 if v else 0))
        if not v:
            return bytes(out)


def section(tag, payload):
    crc = zlib.crc32(bytes([tag]) + payload)
    return bytes([tag]) + put_uvar(len(payload)) + payload + crc.to_bytes(4, "little")


data, drop, out = open(sys.argv[1], "rb").read(), int(sys.argv[2]), sys.argv[3]
res, dropped = bytearray(data[:12]), 0
for tag, payload, _ in sections(data):
    if tag == drop:
        dropped += 1
    elif tag == 5:
        res += section(5, put_uvar(uvar(payload, 0)[0] - dropped))
    else:
        res += section(tag, payload)
if not dropped:
    sys.exit("no section with tag %d" % drop)
open(out, "wb").write(bytes(res))
