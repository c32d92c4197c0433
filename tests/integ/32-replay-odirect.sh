#!/bin/bash
# A program that opens its files with O_DIRECT (IOR's --posix.odirect) and
# reads and writes aligned blocks from aligned memory
# (tests/progs/odirect.c): the trace records O_DIRECT, and ioreplay --verify,
# at the default and the POSIX level, is faithful and makes files of the
# original's sizes (its buffers are aligned: the kernel refuses O_DIRECT
# transfers from others with EINVAL). Skipped where the work directory's
# file system does not support O_DIRECT (tmpfs before Linux 6.6, some
# network file systems).
. "$(dirname "$0")/../lib.sh"
P=2
SRC=$ROOT/tests/progs/odirect.c
dd if=/dev/zero of="$WORK/probe" bs=4096 count=1 oflag=direct status=none 2> probe.err ||
    skip "the file system of $WORK ($(findmnt -no FSTYPE -T "$WORK" 2>/dev/null || echo unknown)) does not support O_DIRECT: $(cat probe.err)"
rm -f "$WORK/probe"
build_traced odirect
const() { c_define "$1" "$SRC"; }
BLOCK=$(const BLOCK)
N=$(( $(const N_PWRITE) + $(const N_WRITE) + 2 * $(const N_PWRITEV) ))
[ "$BLOCK" -gt 0 ] && [ "$N" -gt 0 ] || fail "no BLOCK, N_PWRITE, N_WRITE or N_PWRITEV in $SRC"
for level in default posix; do
    ROUNDTRIP_LEVEL=$level roundtrip "direct-$level" $P "$WORK/odirect"
    for r in $(seq 0 $((P - 1))); do
        o=$(stat -c %s "orig-direct-$level/direct-$r.dat") && c=$(stat -c %s "root-direct-$level/direct-$r.dat") ||
            fail "$level level: no direct-$r.dat"
        [ "$o" = $((N * BLOCK)) ] && [ "$c" = "$o" ] ||
            fail "$level level: direct-$r.dat is $c bytes in the replay, $o in the original (want $((N * BLOCK)))"
    done
done
# the opens recorded O_DIRECT (the replay reissued them with it)
jsonl direct-default.orig.siot > direct.jsonl
python3 - direct.jsonl $P <<'PY' || fail "the opens did not record O_DIRECT"
import json, os, sys
opens = [json.loads(l) for l in open(sys.argv[1])]
opens = [e for e in opens if e["func"].startswith("open") and e["args"].get("pathname", "").startswith("direct-")]
direct = [e for e in opens if e["args"]["flags"] & os.O_DIRECT and "O_DIRECT" in e["names"]["flags"]]
print("   opens with O_DIRECT: %d of %d (want %s)" % (len(direct), len(opens), sys.argv[2]))
sys.exit(0 if len(direct) == len(opens) == int(sys.argv[2]) else 1)
PY
pass "O_DIRECT transfers replayed faithfully at both levels, files of the original's sizes"
