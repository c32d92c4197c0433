#!/bin/bash
# The POSIX and stdio calls traced beyond 26-posix-surface's: extended
# attributes (all twelve), link/linkat/symlink/symlinkat, scandir/scandirat,
# close_range/closefrom, splice, name_to_handle_at/open_by_handle_at,
# fcloseall, the wide-character stream calls, and execl/execle/execlp. Each
# is recorded as many times as tests/progs/posixmore.c makes it (its
# constants, read from the source), with the bytes it moves where they are
# known (splice) and none where they are not (the wide calls, whose
# character counts are recorded instead); the same with the preload library.
# The descriptors a range closes lose their tracing: a pipe's end put at
# one of their numbers afterwards (F_DUPFD) is not recorded, nor counted to the file
# the number held; neither is the read on open_by_handle_at's descriptor.
# ioreplay replays the trace into files of the same names and sizes, and
# names exactly the calls it cannot reissue, with their reasons. Each list
# form of exec passes its arguments (and execle its environment) on and is
# recorded once.
. "$(dirname "$0")/../lib.sh"
P=2
build_traced posixmore
const() { c_define "$1" "$ROOT/tests/progs/posixmore.c"; }
mkdir -p orig pre
(cd orig && SIOT_TRACE=$WORK/more.siot mpirun_np $P "$WORK/posixmore" > /dev/null) || fail "the traced program failed"
if [ "$MPI" = openmpi ]; then
    ENV=(-x SIOT_TRACE="$WORK/pre.siot" -x LD_PRELOAD="$B/lib/libsiotrace.so")
else
    ENV=(-env SIOT_TRACE "$WORK/pre.siot" -env LD_PRELOAD "$B/lib/libsiotrace.so")
fi
(cd pre && mpirun_np $P "${ENV[@]}" "$WORK/posixmore.plain" > /dev/null) || fail "the preloaded program failed"

for t in more pre; do
"$SIOT" stats --json $t.siot > $t.json || fail "siot stats $t.siot exited $?"
jsonl $t.siot > $t.jsonl
echo "   $t.siot:"
python3 - "$ROOT/tests/progs/posixmore.c" $t.json $t.jsonl $P <<'PY' || fail "$t.siot: counts, bytes or values differ from the program's"
import json, re, sys
src, stats, P = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), int(sys.argv[4])
events = [json.loads(l) for l in open(sys.argv[3])]
C = {m.group(1): int(m.group(2)) for m in re.finditer(r'#define (\w+) (\d+)', src)}
fn = stats["functions"]
# C99 programs call the scans by their glibc names
for n in ("fwscanf", "vfwscanf", "wscanf"):
    fn[n] = {k: fn.get(n, {}).get(k, 0) + fn.get("__isoc99_" + n, {}).get(k, 0) for k in ("calls", "bytes")}
want = {}  # function: (calls per rank, bytes per rank); bytes None: not a data call
for x in ("get", "set", "list", "remove"):
    for p in ("", "l", "f"):
        want[p + x + "xattr"] = (C["N_XATTR"], None)
for n in ("link", "linkat", "symlink", "symlinkat"):
    want[n] = (C["N_LINK"], None)
want.update({
    "scandir": (C["N_SCANDIR"], None), "scandirat": (C["N_SCANDIR"], None),
    "close_range": (C["N_CLOSE_RANGE"], None), "closefrom": (C["N_CLOSEFROM"], None),
    "splice": (C["N_SPLICE"], C["N_SPLICE"] * C["SPLICE_BYTES"]),
    "name_to_handle_at": (C["N_NAME_TO_HANDLE"], None), "open_by_handle_at": (C["N_OPEN_BY_HANDLE"], None),
    # the symbolic link's write and the ranges' files' (not the pipes' after the ranges)
    "write": (1 + 2 * C["RANGE_FDS"] + 2, C["SYMW_BYTES"] + (2 * C["RANGE_FDS"] + 2) * C["CR_BYTES"]),
    "read": (C["N_OPEN_BY_HANDLE"], C["N_OPEN_BY_HANDLE"] * C["HANDLE_READ"]),
    "fcloseall": (C["N_FCLOSEALL"], None),
    # wide characters: their bytes are not known (0)
    "fgetwc": (C["N_FGETWC"] + C["N_UNGETWC"], 0), "ungetwc": (C["N_UNGETWC"], None),
    "fputws": (C["N_FPUTWS"], 0), "fputws_unlocked": (C["N_FPUTWS"], 0),
    "fgetws": (C["N_FGETWS"], 0), "fgetws_unlocked": (C["N_FGETWS"], 0),
    "fwprintf": (C["N_FWPRINTF"], 0), "vfwprintf": (C["N_FWPRINTF"], 0),
    "fwscanf": (C["N_FWSCANF"], 0), "vfwscanf": (C["N_FWSCANF"], 0),
    "putwchar": (C["N_PUTWCHAR"], 0), "wprintf": (C["N_WPRINTF"], 0),
    "getwchar": (C["N_GETWCHAR"], 0), "wscanf": (C["N_WSCANF"], 0),
})
for n in ("fputwc", "putwc", "fputwc_unlocked", "putwc_unlocked"):
    want[n] = (C["N_FPUTWC"], 0)
for n in ("getwc", "fgetwc_unlocked", "getwc_unlocked"):
    want[n] = (C["N_FGETWC"], 0)
bad = shown = 0
for name, (calls, nbytes) in want.items():
    got = fn.get(name, {"calls": 0, "bytes": 0})
    ok = got["calls"] == calls * P and (nbytes is None or got["bytes"] == nbytes * P)
    if not ok or name in ("close_range", "closefrom", "splice", "fputws", "fgetws", "fwprintf", "write"):
        shown += 1
        print("   %-18s calls %3d (want %3d)  bytes %6d (want %s)%s" % (name, got["calls"], calls * P, got["bytes"],
              "-" if nbytes is None else nbytes * P, "" if ok else "   <-- differs"))
    bad += not ok
print("   ... and %d more functions counted exactly" % (len(want) - shown))
# what the wide calls record: characters, not bytes
def values(func, key):
    return [e["args"][key] if key != "ret" else e["ret"] for e in events if e["func"] == func]
checks = [
    ("fputws ws", values("fputws", "ws"), C["WS_CHARS"]),
    ("fgetws ret", values("fgetws", "ret"), C["WS_CHARS"]),
    ("fwprintf ret", values("fwprintf", "ret"), C["FWPRINTF_CHARS"]),
    ("wprintf ret", values("wprintf", "ret"), C["WPRINTF_CHARS"]),
    ("fputwc wc", values("fputwc", "wc"), ord("a")),
    ("closefrom's ids", [len(v) for v in values("closefrom", "lowfd")], C["RANGE_FDS"]),
]
for what, got, w in checks:
    ok = len(got) > 0 and all(g == w for g in got)
    print("   %-18s %s (want all %d)%s" % (what, sorted(set(map(str, got))), w, "" if ok else "   <-- differs"))
    bad += not ok
ranges = sorted(len(e["args"]["first"]) for e in events if e["func"] == "close_range")
if ranges != sorted([C["RANGE_FDS"], 1] * P):
    print("   close_range's ids: %s, want %d and 1 per rank   <-- differs" % (ranges, C["RANGE_FDS"])); bad += 1
# per file: each descriptor closed by a range has its own bytes only (the
# one marked close-on-exec twice: it stayed open); no file got the pipes'
# writes or the read by handle
for f in stats["files"]:
    m = re.match(r"cr-\d+-(\d+)\.dat$", f["name"])
    if not m:
        continue
    w = C["CR_BYTES"] * (2 if m.group(1) == "550" else 1)
    if f["bytes_written"] != w or f["bytes_read"] != 0:
        print("   %s: %d written, %d read (want %d, 0)   <-- differs" % (f["name"], f["bytes_written"], f["bytes_read"], w))
        bad += 1
print("   files cr-*: %d, each with its own bytes" % sum(1 for f in stats["files"] if f["name"].startswith("cr-")))
sys.exit(1 if bad else 0)
PY
done

# The replay: the same files, of the same sizes, except splice-R.dat (splice
# is not replayed: its other end is a pipe) and wout-R.dat (standard output
# reopened: the replay writes to its own). It exits 1 and names exactly the
# calls it cannot reissue, with the counts posixmore.c makes.
replay_refuses $P more.siot 0 texts
cat > reasons.want <<EOF
scandir $((P * $(const N_SCANDIR))) the program's filter and comparison functions choose the entries: the replay does not have them
scandirat $((P * $(const N_SCANDIR))) the program's filter and comparison functions choose the entries: the replay does not have them
splice $((P * $(const N_SPLICE))) one end is a pipe, which the trace does not follow
open_by_handle_at $((P * $(const N_OPEN_BY_HANDLE))) the handle names the original's file, outside the replay root
read $((P * $(const N_OPEN_BY_HANDLE))) a descriptor whose opening is not in the trace
close $((P * $(const N_OPEN_BY_HANDLE))) a descriptor whose opening is not in the trace
__isoc99_fwscanf $((P * $(const N_FWSCANF))) a wide scan's format is not recorded
__isoc99_vfwscanf $((P * $(const N_FWSCANF))) a wide scan's format is not recorded
freopen $((2 * P)) a stream whose opening is not in the trace
fflush $P a stream whose opening is not in the trace
putwchar $((P * $(const N_PUTWCHAR))) standard output is the replay's own
wprintf $((P * $(const N_WPRINTF))) standard output is the replay's own
getwchar $((P * $(const N_GETWCHAR))) standard input is the replay's own
__isoc99_wscanf $((P * $(const N_WSCANF))) standard input is the replay's own
EOF
sort -o reasons.want reasons.want
diff reasons.want reasons.txt >&2 || { cat replay.report >&2; fail "the calls not reissued are not the ones expected"; }
(cd orig && find . -type f ! -name '*.siot' ! -name 'splice-*' ! -name 'wout-*' -printf '%P %s\n' | sort) > orig.files
(cd root && find . -type f ! -name 'splice-*' -printf '%P %s\n' | sort) > replay.files
diff orig.files replay.files >&2 || fail "the replay's files differ in name or size"
for r in $(seq 0 $((P - 1))); do
    [ "$(readlink "root/sym-$r.dat")" = "xattr-$r.dat" ] || fail "the replay's sym-$r.dat is not the relative link"
    case "$(readlink "root/symat-$r.dat")" in "$WORK/root/"*) ;; *) fail "the replay's absolute link symat-$r.dat leads outside its root" ;; esac
    [ "$(stat -c %h "root/xattr-$r.dat")" = 3 ] || fail "the replay's xattr-$r.dat has not its two hard links"
    [ "$(stat -c %s "root/splice-$r.dat")" = 0 ] || fail "splice was reissued"
done
echo "   replay: $(wc -l < orig.files) files of the same sizes; not reissued: $(awk '{print $1}' reasons.txt | tr '\n' ' ')"

# The list forms of exec (no MPI): the shell they start gets the arguments
# (and execle's environment); each is recorded once, relinked and preloaded.
unset FOO
for how in execl execle execlp; do
    case $how in execl) out="execl:one:" ;; execle) out="execle:two:bar" ;; execlp) out="execlp:three:" ;; esac
    for mode in relinked preloaded; do
        rm -rf "x-$how-$mode" && mkdir "x-$how-$mode"
        if [ $mode = relinked ]; then
            (cd "x-$how-$mode" && SIOT_TRACE=$WORK/$how-$mode.siot "$WORK/posixmore" $how) || fail "$how ($mode) exited $?"
        else
            (cd "x-$how-$mode" && SIOT_TRACE=$WORK/$how-$mode.siot LD_PRELOAD=$B/lib/libsiotrace.so "$WORK/posixmore.plain" $how) ||
                fail "$how ($mode) exited $?"
        fi
        [ "$(cat "x-$how-$mode/exec-out.txt")" = "$out" ] || fail "$how ($mode): the shell wrote '$(cat "x-$how-$mode/exec-out.txt")', not '$out'"
        "$SIOT" stats --json $how-$mode.siot > $how-$mode.json || fail "siot stats $how-$mode.siot"
        n=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["functions"].get(sys.argv[2], {}).get("calls", 0))' $how-$mode.json $how)
        [ "$n" = 1 ] || fail "$how ($mode) recorded $n times, not once"
    done
done
st=0
mpirun_np 1 "$B/bin/ioreplay" --root "$WORK/xroot" execle-relinked.siot > exec.report || st=$?
[ $st = 1 ] && grep -Eq '^ +1  execle: the replay does not start other programs' exec.report ||
    { cat exec.report >&2; fail "the replay of execle: exit $st, or not named with its reason"; }
echo "   execl, execle, execlp: arguments and environment passed on, each recorded once (relinked and preloaded)"
pass "xattr, links, scandir, close_range/closefrom, splice, file handles, fcloseall, wide-character streams and execl* counted exactly (relinked and preloaded) and replayed, or named with their reasons"
