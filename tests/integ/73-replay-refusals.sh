#!/bin/bash
# ioreplay refuses, with exit status 2 and one line saying why, before any
# I/O: a rank count other than the trace's, an unreadable or corrupt trace, a
# root it cannot use.
. "$(dirname "$0")/../lib.sh"
build_traced known
(mkdir -p orig && cd orig && SIOT_TRACE=$WORK/k.siot mpirun_np 2 "$WORK/known" > /dev/null) || fail "trace"
refused() { # WHAT ARGS...: exit 2, one line, no file made in the root
    local what=$1
    shift
    rm -rf root && mkdir root
    set +e
    mpirun_np "$@" > out.txt 2> err.txt
    local st=$?
    set -e
    [ $st = 2 ] || { cat err.txt >&2; fail "$what: exit status $st, expected 2"; }
    [ "$(grep -c '^ioreplay: ' err.txt)" = 1 ] || { cat err.txt >&2; fail "$what: expected one line of reason"; }
    [ -z "$(ls -A root)" ] || fail "$what: the replay wrote $(ls root)"
    echo "   $what: $(grep '^ioreplay: ' err.txt)"
}
refused "wrong rank count" 3 "$B/bin/ioreplay" --root "$WORK/root" k.siot
head -c 100 k.siot > cut.siot
refused "truncated trace" 2 "$B/bin/ioreplay" --root "$WORK/root" cut.siot
refused "missing trace" 2 "$B/bin/ioreplay" --root "$WORK/root" nope.siot
echo "not a trace" > junk.siot
refused "not a trace" 2 "$B/bin/ioreplay" --root "$WORK/root" junk.siot
echo file > plainfile
refused "root is a file" 2 "$B/bin/ioreplay" --root "$WORK/plainfile" k.siot
refused "root cannot be made" 2 "$B/bin/ioreplay" --root /proc/siot-no-such-root k.siot
refused "bad option" 2 "$B/bin/ioreplay" --bogus k.siot
pass "refusals: exit 2 with one line, before any I/O"
