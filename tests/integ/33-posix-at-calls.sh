#!/bin/bash
# The *at calls on real directory descriptors (tests/progs/atcalls.c): the
# directory argument is recorded as the id of the descriptor the traced open
# of that directory returned (AT_FDCWD as -100), never as a bare number
# that means nothing after the run. siot stats names each file under its
# directory (atdir.R/f1, not f1), the input read through a descriptor of a
# directory the program did not make is staged inside that directory, and
# ioreplay passes its own descriptor of the directory: faithful at both
# levels, with the files of the sizes the program's #defines give. The
# same holds through the descriptor of a DIR* (dirfd of an opendir or
# fdopendir, an untraced query): the DIR* and its descriptor share the id
# the opendir returned, and closedir releases both.
. "$(dirname "$0")/../lib.sh"
build_traced atcalls
SRC=$ROOT/tests/progs/atcalls.c
P=2
N1=$(c_define N1 "$SRC") N2=$(c_define N2 "$SRC") N3=$(c_define N3 "$SRC") N4=$(c_define N4 "$SRC")
N5=$(c_define N5 "$SRC") DECK=$(c_define DECK "$SRC") DECK2=$(c_define DECK2 "$SRC")
mkdir -p orig/indir
head -c 100 /dev/zero | tr '\0' 'd' > orig/indir/deck.txt
head -c 100 /dev/zero | tr '\0' 'e' > orig/indir/deck2.txt
(cd orig && SIOT_TRACE=$WORK/at.siot mpirun_np $P ../atcalls indir) || fail "atcalls (traced)"
jsonl at.siot > at.jsonl
python3 - at.jsonl $P <<'PY' || fail "directory descriptors recorded as numbers, not as the ids of their opens"
import json, sys
ev, P = [json.loads(l) for l in open(sys.argv[1])], int(sys.argv[2])
for r in range(P):
    mine = [e for e in ev if e["rank"] == r]
    opens = {}  # the first open of each path (atdir.R's second is the fdopendir's)
    for e in mine:
        if e["func"] in ("open", "open64"):
            opens.setdefault(e["args"]["pathname"], e["ret"])
            if e["args"]["mode"] != 0:  # O_DIRECTORY opens, given no mode (spec-format.md, omode)
                sys.exit("rank %d: open(%s) recorded mode %s, not given one" % (r, e["args"]["pathname"], e["args"]["mode"]))
    d, i = opens.get("atdir.%d" % r), opens.get("indir")
    if d is None or i is None or d < 0 or i < 0:
        sys.exit("rank %d: opens %s" % (r, opens))
    at = [e for e in mine if e["func"].endswith("at") or e["func"].startswith("openat")]
    want = {"mkdirat": 1, "renameat": 1, "fstatat": 2, "faccessat": 2, "unlinkat": 3}
    for f, n in want.items():
        got = sum(1 for e in at if e["func"].startswith(f))
        if got != n:
            sys.exit("rank %d: %d %s events, the program makes %d" % (r, got, f, n))
    # the DIR* streams: opendir of atdir.R and of indir, fdopendir of atdir.R
    ods = {e["args"]["name"]: e["ret"] for e in mine if e["func"] == "opendir"}
    dd, ind = ods.get("atdir.%d" % r), ods.get("indir")
    fdo = [e for e in mine if e["func"] == "fdopendir"]
    if dd is None or ind is None or dd < 0 or ind < 0 or len(fdo) != 1 or fdo[0]["ret"] < 0:
        sys.exit("rank %d: opendirs %s, fdopendirs %s" % (r, ods, fdo))
    fdd = fdo[0]["ret"]
    for e in at:
        for k, v in e["args"].items():
            if k.endswith("dirfd"):
                p = e["args"].get("pathname", e["args"].get("oldpath", e["args"].get("newpath", "")))
                expect = (-100 if p == "plain.%d" % r else i if p == "deck.txt" else dd if p == "f3" else
                          ind if p == "deck2.txt" else fdd if (e["func"], p) == ("faccessat", "f1b") else d)
                if v != expect:
                    sys.exit("rank %d: %s(%s) %s=%s, want %s (the open/opendir of that directory)" % (r, e["func"], p, k, v, expect))
    if fdd != fdo[0]["args"]["fd"]:
        sys.exit("rank %d: fdopendir(fd=%s) returned DIR %s: a DIR* has its descriptor's id" % (r, fdo[0]["args"]["fd"], fdd))
    # closedir releases the DIR* and its descriptor: the open after the
    # fdopendir's closedir takes its id again (lowest free)
    closed = [e["args"]["dirp"] for e in mine if e["func"] == "closedir"]
    if sorted(closed) != sorted([dd, ind, fdd]):
        sys.exit("rank %d: closedir of %s, the opendirs returned %s" % (r, closed, [dd, ind, fdd]))
    plain = [e["ret"] for e in at if e["args"].get("pathname") == "plain.%d" % r]
    if plain != [fdd]:
        sys.exit("rank %d: the open after closedir(%s) has id %s: closedir did not release its descriptor" % (r, fdd, plain))
PY
"$SIOT" stats --json at.siot > at.json || fail "siot stats --json"
python3 - at.json $P "$N1" "$N2" "$N3" "$N4" "$N5" "$DECK" "$DECK2" "$WORK/orig" <<'PY' || fail "files not named under their directories"
import json, sys
rows = {f["name"]: f for f in json.load(open(sys.argv[1]))["files"]}
P, N1, N2, N3, N4, N5, DECK, DECK2 = map(int, sys.argv[2:10])
cwd = sys.argv[10]
def want(name, key, n):
    if name not in rows or rows[name][key] != n:
        sys.exit("%s: %s; the program's %s is %d (rows: %s)" % (name, rows.get(name, {}).get(key), key, n, sorted(rows)))
for r in range(P):
    want("atdir.%d/f1" % r, "bytes_written", N1)
    want("atdir.%d/sub/f2" % r, "bytes_written", N2)
    want("plain.%d" % r, "bytes_written", N3)
    want("%s/atdir.%d/abs.dat" % (cwd, r), "bytes_written", N4)
    want("atdir.%d/f3" % r, "bytes_written", N5)
want("indir/deck.txt", "bytes_read", P * DECK)
want("indir/deck2.txt", "bytes_read", P * DECK2)
if any(n in rows for n in ("f1", "deck.txt", "f3", "deck2.txt")):
    sys.exit("a file named without its directory: %s" % sorted(rows))
PY
for level in default posix; do
    rm -rf "root-$level"
    mpirun_np $P "$B/bin/ioreplay" --verify --explain --level $level --root "$WORK/root-$level" at.siot \
        > "$level.report" || { rc=$?; cat "$level.report" >&2; fail "ioreplay --verify --level $level exited $rc"; }
    grep -q "^round trip: faithful" "$level.report" || { cat "$level.report" >&2; fail "$level: not faithful"; }
    grep -q "input files: 2 made from the trace" "$level.report" || { cat "$level.report" >&2; fail "$level: the decks inside indir were not the two inputs staged"; }
    for r in $(seq 0 $((P - 1))); do
        [ "$(stat -c %s "root-$level/atdir.$r/f1b")" = "$N1" ] || fail "$level: atdir.$r/f1b is not $N1 bytes"
        [ "$(stat -c %s "root-$level/atdir.$r/abs.dat")" = "$N4" ] || fail "$level: atdir.$r/abs.dat is not $N4 bytes"
        [ ! -e "root-$level/atdir.$r/sub" ] || fail "$level: atdir.$r/sub was not removed"
        [ ! -e "root-$level/atdir.$r/f3" ] || fail "$level: atdir.$r/f3, removed through an opendir's descriptor, is there"
    done
    [ "$(stat -c %s "root-$level/indir/deck.txt")" -ge "$DECK" ] || fail "$level: indir/deck.txt staged shorter than the $DECK bytes read"
    [ "$(stat -c %s "root-$level/indir/deck2.txt")" -ge "$DECK2" ] || fail "$level: indir/deck2.txt staged shorter than the $DECK2 bytes read"
    echo "   $level level: $(sed -n 's/^round trip: \(faithful ([0-9]* calls\).*/\1)/p' "$level.report"), the decks staged inside indir"
done
pass "*at calls: directory descriptors (of opens and of DIR*s) recorded by their opens' ids, files named under their directories, replayed faithfully"
