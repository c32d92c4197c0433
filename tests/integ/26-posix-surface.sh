#!/bin/bash
# The POSIX and stdio surface beyond open/read/write/close: dup3, mkstemp,
# fputc/fgetc, fprintf, rewind, fgetpos/fsetpos, fscanf, freopen, printf
# once stdout is reopened on a file, aio_write with aio_suspend/aio_error/
# aio_return, lio_listio, copy_file_range, sendfile, statx, posix_fallocate.
# Each call is recorded as many times, with as many bytes, as
# tests/progs/surface.c makes it (its constants, read from the source), the
# write after mkstemp is attributed to the name mkstemp made, the same with
# the preload library (LD_PRELOAD on the untraced build), and ioreplay
# replays the trace (aio synchronously) into files of the same names and sizes.
. "$(dirname "$0")/../lib.sh"
P=2
build_traced surface
mkdir -p orig
(cd orig && SIOT_TRACE=$WORK/surface.siot mpirun_np $P "$WORK/surface") || fail "the traced program failed"
# The same program untraced, with the preload library: the exported entries
# (calls through the PLT) record the same calls.
if [ "$MPI" = openmpi ]; then
    ENV=(-x SIOT_TRACE="$WORK/pre.siot" -x LD_PRELOAD="$B/lib/libsiotrace.so")
else
    ENV=(-env SIOT_TRACE "$WORK/pre.siot" -env LD_PRELOAD "$B/lib/libsiotrace.so")
fi
mkdir -p pre && (cd pre && mpirun_np $P "${ENV[@]}" "$WORK/surface.plain") || fail "the preloaded program failed"

for t in surface pre; do
"$SIOT" stats --json $t.siot > $t.json || fail "siot stats $t.siot exited $?"
echo "   $t.siot:"
python3 - "$ROOT/tests/progs/surface.c" $t.json $P <<'PY' || fail "$t.siot: counts or bytes differ from the program's"
import json, re, sys
src, stats, P = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), int(sys.argv[3])
C = {m.group(1): int(m.group(2)) for m in re.finditer(r'#define (\w+) (\d+)', src)}
fn = stats["functions"]
# function: (calls per rank, bytes per rank); bytes None: not a data call
want = {
    "dup3": (C["N_DUP3"], None),
    "mkstemp": (C["N_MKSTEMP"], None),
    "fputc": (C["N_FPUTC"], C["N_FPUTC"]),
    "fprintf": (C["N_FPRINTF"], C["N_FPRINTF"] * C["FPRINTF_BYTES"]),
    "rewind": (C["N_REWIND"], None),
    "fgetc": (C["N_FGETC"], C["N_FGETC"]),
    "fgetpos": (C["N_FGETPOS"], None),
    "fsetpos": (C["N_FSETPOS"], None),
    "freopen": (C["N_FREOPEN"] + C["N_FREOPEN_STDOUT"], None),
    "printf": (C["N_PRINTF"], C["N_PRINTF"] * C["PRINTF_BYTES"]),
    "aio_write": (C["N_AIO"], 0),
    "aio_suspend": (C["N_AIO"], 0),
    "aio_error": (C["N_AIO"], None),
    "lio_listio": (C["N_LIO_LISTIO"], None),
    "aio_return": (C["N_AIO"] + C["LIO_REQS"], C["N_AIO"] * C["AIO_BYTES"] + C["LIO_REQS"] * C["LIO_BYTES"]),
    "sendfile": (C["N_SENDFILE"], C["N_SENDFILE"] * C["SENDFILE_BYTES"]),
    "copy_file_range": (C["N_COPY_FILE_RANGE"], C["N_COPY_FILE_RANGE"] * C["CFR_BYTES"]),
    "statx": (C["N_STATX"], None),
    "posix_fallocate": (C["N_POSIX_FALLOCATE"], None),
    # never called by the program: fscanf's bytes are read with the real ftello
    "ftello": (0, None),
}
# C99 programs call fscanf by its glibc name
fn["fscanf"] = {k: fn.get("fscanf", {}).get(k, 0) + fn.get("__isoc99_fscanf", {}).get(k, 0) for k in ("calls", "bytes")}
want["fscanf"] = (C["N_FSCANF"], C["N_FSCANF"] * C["FSCANF_BYTES"])
bad = 0
for name, (calls, nbytes) in want.items():
    got = fn.get(name, {"calls": 0, "bytes": 0})
    ok = got["calls"] == calls * P and (nbytes is None or got["bytes"] == nbytes * P)
    print("   %-16s calls %3d (want %3d)  bytes %6d (want %s)%s" % (name, got["calls"], calls * P, got["bytes"],
          "-" if nbytes is None else nbytes * P, "" if ok else "   <-- differs"))
    bad += not ok
# the write on mkstemp's descriptor is attributed to the file it made
tmp = [f for f in stats["files"] if f["name"].startswith("tmp-") and f["layer"] == "posix"]
wrote = sum(f["bytes_written"] for f in tmp)
print("   files tmp-*: %s, %d bytes written (want %d)" % ([f["name"] for f in tmp], wrote, C["TMP_BYTES"] * P))
bad += wrote != C["TMP_BYTES"] * P
# aio's bytes, on aio_return, are writes to the file of the requests
aio = sum(f["bytes_written"] for f in stats["files"] if f["name"].startswith("aio-") and f["layer"] == "posix")
want_aio = (C["N_AIO"] * C["AIO_BYTES"] + C["LIO_REQS"] * C["LIO_BYTES"]) * P
print("   files aio-*: %d bytes written (want %d)" % (aio, want_aio))
bad += aio != want_aio
sys.exit(1 if bad else 0)
PY
done

# The replay: the same files, of the same sizes (mkstemp's at the names it got).
# out-R.dat is standard output reopened: printf is not replayed (it would
# write to the replay's own standard output), nor the freopen of a stream the
# tracer did not follow and the fflush on it. The scans are reissued with
# their recorded formats: the word is read, but the number is not (the
# replay's fprintf writes text of the recorded length, not the program's
# digits), one different result per rank. The replay exits 1 and names
# exactly these, with the counts surface.c makes (the aio completions are
# covered by the synchronous transfers).
replay_refuses $P surface.siot 1
const() { c_define "$1" "$ROOT/tests/progs/surface.c"; }
printf '%s\n' "__isoc99_fscanf $P" "fflush $P" "freopen $P" "printf $((P * $(const N_PRINTF)))" |
    sort > reasons.want
diff reasons.want reasons.txt >&2 || { cat replay.report >&2; fail "the calls not reissued are not the ones expected"; }
for r in $(seq 0 $((P - 1))); do
    [ "$(stat -c %s "orig/out-$r.dat")" -eq $(($(const N_PRINTF) * $(const PRINTF_BYTES))) ] ||
        fail "out-$r.dat does not hold what printf wrote"
done
(cd orig && find . -type f ! -name '*.siot' ! -name 'out-*.dat' -printf '%P %s\n' | sort) > orig.files
(cd root && find . -type f -printf '%P %s\n' | sort) > replay.files
# nine files a rank besides out: dup, tmp (mkstemp), stream, reopened, aio, src, cfr, sf, falloc
[ "$(wc -l < orig.files)" -eq $((9 * P)) ] || fail "the program made $(wc -l < orig.files) files, not $((9 * P))"
diff orig.files replay.files >&2 || fail "the replay's files differ in name or size"
pass "$(wc -l < orig.files) files; dup3, mkstemp, fputc, fgetc, fprintf, rewind, fgetpos/fsetpos, fscanf, freopen, printf on a reopened stdout, aio, lio_listio, copy_file_range, sendfile, statx, posix_fallocate counted exactly (relinked and preloaded) and replayed"
