"""A PNG file is a real, non-blank picture: valid signature and chunks (CRCs
checked), decodable pixels, and more than a few colours with a good share of
non-white pixels. usage: check_png.py FILE.png"""
import struct
import sys
import zlib


def fail(msg):
    print("check_png: " + msg, file=sys.stderr)
    sys.exit(1)


data = open(sys.argv[1], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    fail("not a PNG")
pos, idat, hdr = 8, b"", None
while pos < len(data):
    (n,) = struct.unpack(">I", data[pos:pos + 4])
    kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
    (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
    if zlib.crc32(kind + body) != crc:
        fail("bad CRC in %r" % kind)
    if kind == b"IHDR":
        hdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, ctype = hdr[0], hdr[1], hdr[2], hdr[3]
if depth != 8 or ctype not in (2, 6):
    fail("unexpected pixel format depth=%d colour type=%d" % (depth, ctype))
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colours, nonwhite = set(), 0
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1:
            line[i] = (line[i] + a) & 255
        elif f == 2:
            line[i] = (line[i] + b) & 255
        elif f == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 4 == 0:
        for x in range(0, w, 2):
            px = bytes(line[x * bpp:x * bpp + 3])
            colours.add(px)
            if px != b"\xff\xff\xff":
                nonwhite += 1
    prev = line
sampled = (h // 4 + 1) * (w // 2 + 1)
if len(colours) < 8 or nonwhite < sampled // 100:
    fail("blank-looking picture: %d colours, %d of %d sampled pixels not white" % (len(colours), nonwhite, sampled))
print("check_png: %dx%d, %d colours, %.1f%% of sampled pixels not white" % (w, h, len(colours),
                                                                           100.0 * nonwhite / sampled))
