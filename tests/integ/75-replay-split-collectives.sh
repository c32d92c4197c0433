#!/bin/bash
# Split collective data access (tests/progs/splitcoll.c): each begin/end
# pair is one access. siot stats counts its bytes once, on the begin that
# names the access (the end completes it, as a wait does): MPI-IO wrote
# (NB+1)*P*K bytes and read NB*P*K, in (NB+1)*P write and NB*P read
# requests of K bytes, as the source's constants give (the file is as long:
# the POSIX layer under it says the same). The replay reissues the pairs
# faithfully, with files of the same sizes, and its table counts the bytes
# once too.
. "$(dirname "$0")/../lib.sh"
build_traced splitcoll
SRC=$ROOT/tests/progs/splitcoll.c
P=4
NB=$(c_define NB "$SRC") K=$(c_define K "$SRC")
roundtrip split $P "$WORK/splitcoll"
"$SIOT" stats --json split.orig.siot > split.json || fail "siot stats exited $?"
python3 - split.json $P "$NB" "$K" <<'PY' || fail "the split collectives' bytes or requests"
import json, sys
d, P, NB, K = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
want_w, want_r = (NB + 1) * P * K, NB * P * K
io = d["layers"]["mpiio"]
if (io["bytes_written"], io["bytes_read"]) != (want_w, want_r):
    sys.exit("MPI-IO layer wrote %d and read %d bytes, want %d and %d" % (io["bytes_written"], io["bytes_read"], want_w, want_r))
rows = [f for f in d["files"] if f["layer"] == "mpiio" and f["name"].endswith("split.dat")]
if len(rows) != 1 or (rows[0]["bytes_written"], rows[0]["bytes_read"]) != (want_w, want_r):
    sys.exit("split.dat's MPI-IO row %s, want %d written and %d read" % (rows, want_w, want_r))
for kind, n in (("mpiio_write", (NB + 1) * P), ("mpiio_read", NB * P)):
    got = sum(b["count"] for b in d["request_sizes"].get(kind, []))
    size = sum(b["bytes"] for b in d["request_sizes"].get(kind, []))
    if got != n or size != n * K:
        sys.exit("%s: %d requests of %d bytes in all, want %d of %d" % (kind, got, size, n, n * K))
print("   MPI-IO: %d B written, %d B read, in %d + %d requests of %d B" % (want_w, want_r, (NB + 1) * P, NB * P, K))
PY
size=$(stat -c %s orig-split/split.dat)
[ "$size" = $(((NB + 1) * P * K)) ] || fail "split.dat is $size bytes, want $(((NB + 1) * P * K))"
grep -Eq "^  bytes written +$(((NB + 1) * K)) " split.report ||
    { cat split.report >&2; fail "the replay's table does not say $(((NB + 1) * K)) bytes written by rank 0"; }
pass "split collectives: each access counted once, replayed faithfully"
