#!/bin/bash
# Hostile traces never make ioreplay touch anything outside --root: every
# path of a real trace rewritten into an attack (climbs out of the root,
# absolute paths to a directory beside it, ".." behind a subdirectory, a
# symbolic link planted in the root that points outside, /tmp, a 40-level
# climb, the root itself, a NUL inside a name), then replayed; and every
# trace of the fuzzing corpus replayed the same way, by an ioreplay built
# with ASan and UBSan: it refuses or replays, it never crashes. The directory
# beside the root, the rest of the test area and /tmp are checked unchanged.
. "$(dirname "$0")/../lib.sh"
HOSTILE=$B/tests/tools/hostile
tag=siot-hostile-$$
build_traced transp
mkdir -p orig && (cd orig && SIOT_TRACE=$WORK/transp.siot mpirun_np 1 "$WORK/transp") || fail "transp"
mkdir -p ck && (cd ck && SIOT_TRACE=$WORK/ckpt.siot mpirun_np 1 "$B/examples/ckpt" 4 2 2 4096 > /dev/null) || fail "ckpt"

state() { # everything outside the roots, with contents
    (cd "$WORK" && find . -path ./run -prune -o -path ./orig -prune -o -path ./ck -prune -o -name report.txt -prune -o -type f -print0 |
        sort -z | xargs -0 md5sum)
    (cd "$WORK/run" && find . -path ./root -prune -o -print | sort)
    ls -d /tmp/$tag* 2> /dev/null || true
}
attack() { # TRACE
    rm -rf run
    mkdir -p run/root outside
    echo "do not touch" > outside/keep
    ln -s "$WORK/outside" run/root/link
    before=$(state)
    set +e
    (cd run && ASAN_OPTIONS=detect_leaks=0:exitcode=99 UBSAN_OPTIONS=halt_on_error=1 \
        "${MPIRUN_BARE[@]}" -np 1 "$B/tests/asan/ioreplay" --root "$WORK/run/root" "$1" > ../report.txt 2>&1)
    st=$?
    set -e
    # refused (2), replayed with differences (1) or not: never a crash or a sanitizer report
    if [ $st -gt 2 ] || grep -Eq "ERROR: AddressSanitizer|runtime error:" report.txt; then
        tail -30 report.txt >&2
        fail "$(basename "$1"): ioreplay crashed (exit $st)"
    fi
    after=$(state)
    [ "$before" = "$after" ] || fail "$(basename "$1"): the replay changed things outside its root:
$(diff <(echo "$before") <(echo "$after"))"
}
n=0
for base in transp ckpt; do
    "$HOSTILE" "$base.siot" "$base.hostile.siot" "$WORK/outside" "$tag" 2> h.txt || fail "hostile $base"
    grep -q " paths rewritten" h.txt || fail "hostile $base: nothing rewritten"
    attack "$WORK/$base.hostile.siot"
    grep -Eq "paths refused +[1-9]" report.txt || { cat report.txt >&2; fail "$base: the hostile replay did not run to its end"; }
    [ -e run/root/outside ] || [ -e "run/root$WORK/outside" ] || fail "$base: no attack was confined to the root"
    n=$((n + $(grep -o '^hostile: [0-9]*' h.txt | cut -d' ' -f2)))
done
echo "   $n hostile paths in 2 traces: nothing outside the root created, changed or removed"
for f in "$ROOT"/tests/fuzz/corpus/*; do attack "$f"; done
echo "   $(ls "$ROOT"/tests/fuzz/corpus | wc -l) fuzzing-corpus traces replayed: the same"
rm -rf /tmp/$tag*
pass "hostile traces replayed inside their root only"
