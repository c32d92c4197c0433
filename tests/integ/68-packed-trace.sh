#!/bin/bash
# The job's file is packed (format minor 5, SIOT_PACK): magic and version,
# then pieces of the unpacked file in raw DEFLATE (docs/format.md). Read
# here by an independent reader, Python's zlib (tests/py/siot_container.py):
# the pieces make a trace whose sections have their CRCs, from HEADER to
# END, which siot dumps as it dumps the packed file. SIOT_PACK=0 writes the
# unpacked form, with the same events.
. "$(dirname "$0")/../lib.sh"
export ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=exitcode=98:print_stacktrace=1
CUR=$(sed -n 's/^#define SIOT_FORMAT_MINOR \([0-9]*\).*/\1/p' "$ROOT/core/format.h")
SIOT_TRACE=$WORK/f.siot mpirun_np 4 "$B/examples/flash-io" > /dev/null || fail "flash-io"
rm -f ./flash_io_test_*
SIOT_PACK=0 SIOT_TRACE=$WORK/u.siot mpirun_np 4 "$B/examples/flash-io" > /dev/null || fail "flash-io, SIOT_PACK=0"
byte() { od -An -tu1 -j "$2" -N1 "$1" | tr -d ' '; }
[ "$(byte f.siot 10)" = "$CUR" ] && [ "$(byte f.siot 12)" = 7 ] || fail "f.siot is not of minor $CUR with a first section of tag 7"
[ "$(byte u.siot 12)" = 1 ] || fail "SIOT_PACK=0: the first section is not the header"

python3 - f.siot py.siot "$ROOT/tests/py" <<'PY' || fail "Python's reading of the packed file"
import sys, zlib
sys.path.insert(0, sys.argv[3])
from siot_container import raw_sections, unpacked, uvar
data = open(sys.argv[1], "rb").read()
pieces = list(raw_sections(data))
if not pieces or any(tag != 7 for tag, _, _ in pieces):
    sys.exit("sections of the packed file: %s" % [t for t, _, _ in pieces])
raw = unpacked(data)
if raw[:12] != data[:12]:
    sys.exit("the unpacked file does not start with the packed one's magic and version")
tags = []
p = 12
while p < len(raw):
    n, q = uvar(raw, p + 1)
    crc = int.from_bytes(raw[q + n:q + n + 4], "little")
    if zlib.crc32(raw[p:p + 1] + raw[q:q + n]) != crc:
        sys.exit("section %d at %d: bad CRC" % (raw[p], p))
    tags.append(raw[p])
    p = q + n + 4
if p != len(raw) or tags[0] != 1 or tags[-1] != 5 or 4 not in tags:
    sys.exit("unpacked sections %s" % tags)
open(sys.argv[2], "wb").write(raw)
print("   %d piece(s), %d bytes unpacked into sections %s" % (len(pieces), len(raw), tags))
PY
"$ASAN_SIOT" dump f.siot | tail -n +2 > f.dump || fail "siot (ASan) dump f.siot"
"$SIOT" dump py.siot | tail -n +2 > py.dump || fail "siot dump of Python's unpacking"
cmp -s f.dump py.dump || { diff f.dump py.dump | head -5 >&2; fail "the packed file and Python's unpacking dump differently"; }
"$ASAN_SIOT" dump --jsonl f.siot > /dev/null || fail "siot (ASan) dump --jsonl f.siot"
"$SIOT" diff f.siot u.siot > diff.txt || { cat diff.txt >&2; fail "packed and unpacked runs differ"; }

fb=$(stat -c %s f.siot) pb=$(stat -c %s py.siot)
[ $((fb * 100)) -lt $((pb * 75)) ] || fail "packed $fb bytes, not under 75% of its $pb unpacked"
"$SIOT" dump --sizes f.siot > sizes.txt || fail "siot dump --sizes"
grep "^  packed (SIOT_PACK): $pb bytes unpacked" sizes.txt > /dev/null || { head -3 sizes.txt >&2; fail "--sizes does not give the unpacked size $pb"; }

# siot merge packs too, unless SIOT_PACK=0
"$SIOT" merge -o m.siot u.siot || fail "siot merge"
SIOT_PACK=0 "$SIOT" merge -o m0.siot f.siot || fail "siot merge, SIOT_PACK=0"
[ "$(byte m.siot 12)" = 7 ] && [ "$(byte m0.siot 12)" = 1 ] || fail "siot merge: packed $(byte m.siot 12), SIOT_PACK=0 $(byte m0.siot 12)"
"$SIOT" diff m.siot m0.siot > /dev/null || fail "the merged files differ"
pass "FLASH-IO 4 ranks: $fb bytes packed, $pb unpacked ($((fb * 100 / pb))%); Python's zlib unpacks it into a trace that dumps the same; SIOT_PACK=0 unpacked, the same events"
