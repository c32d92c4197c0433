#!/bin/bash
# ioreplay refuses, with exit status 2 and one line saying why, before any
# I/O: a rank count other than the trace's, an unreadable or corrupt trace, a
# root it cannot use. With --verify too, where the replay runs traced: the
# refusal leaves no trace of it and no part file of a run that stopped
# without MPI_Finalize, and the tracer says nothing.
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
    [ -z "$(ls ./*.siot 2> /dev/null | grep -v -x -e ./k.siot -e ./cut.siot -e ./junk.siot)" ] ||
        fail "$what: files left: $(ls ./*.siot)"
    grep -q "^siotrace:" err.txt && fail "$what: the tracer spoke: $(grep "^siotrace:" err.txt)"
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
refused "wrong rank count, --verify" 3 "$B/bin/ioreplay" --verify --root "$WORK/root" k.siot
refused "missing trace, --verify" 2 "$B/bin/ioreplay" --verify --root "$WORK/root" nope.siot
pass "refusals: exit 2 with one line, before any I/O"
