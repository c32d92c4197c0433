#!/bin/bash
# Trace files are untrusted input. A real trace truncated at every 1/16 of its
# length and with bytes flipped all over it: siot dump (built with ASan and
# UBSan) exits 2 with a one-line reason, never crashes or reports memory errors.
. "$(dirname "$0")/../lib.sh"
export ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=exitcode=98:print_stacktrace=1
build_traced known
mpirun_np 4 ./known || fail "known exited $?"
len=$(stat -c %s known.siot)
"$ASAN_SIOT" dump --jsonl known.siot > /dev/null || fail "the intact trace does not dump"

check_rejected() { # FILE WHAT
    for mode in "" --jsonl; do
        set +e
        "$ASAN_SIOT" dump $mode "$1" > /dev/null 2> err.txt
        local st=$?
        set -e
        [ $st = 2 ] || { cat err.txt >&2; fail "$2: siot dump $mode exited $st, expected 2"; }
        [ "$(wc -l < err.txt)" = 1 ] || { cat err.txt >&2; fail "$2: expected one line of reason"; }
        grep -q '^siot: ' err.txt || fail "$2: reason does not start with 'siot: '"
    done
}

for k in $(seq 0 15); do
    head -c $((len * k / 16)) known.siot > cut.siot
    check_rejected cut.siot "truncated at $k/16"
done
head -c $((len - 1)) known.siot > cut.siot
check_rejected cut.siot "last byte missing"

flips=0
for k in $(seq 0 63); do
    off=$((len * k / 64))
    # Bytes 10-11 are the minor version, which a reader accepts whatever it is.
    [ $off = 10 ] || [ $off = 11 ] && off=12
    for mask in 1 128 255; do
        cp known.siot flip.siot
        byte=$(od -An -tu1 -j $off -N1 known.siot | tr -d ' ')
        printf "$(printf '\\%03o' $(( byte ^ mask )))" | dd of=flip.siot bs=1 seek=$off conv=notrunc status=none
        cmp -s known.siot flip.siot && fail "flip at $off did not change the file"
        check_rejected flip.siot "byte $off xor $mask"
        flips=$((flips + 1))
    done
done
printf 'not a trace at all\n' > junk.siot
check_rejected junk.siot "junk file"
: > empty.siot
check_rejected empty.siot "empty file"
check_rejected /nonexistent/x.siot "missing file"
check_rejected . "a directory"

# Bad command lines: exit 2, one line that names what is wrong; an output
# that cannot be completed leaves nothing behind (no partial file, no temp).
bad_usage() { # EXPECTED-TEXT ARGS...
    local want=$1
    shift
    set +e
    "$ASAN_SIOT" "$@" > /dev/null 2> err.txt
    local st=$?
    set -e
    [ $st = 2 ] || { cat err.txt >&2; fail "siot $*: exited $st, expected 2"; }
    [ "$(wc -l < err.txt)" = 1 ] && grep -qF -- "$want" err.txt || { cat err.txt >&2; fail "siot $*: reason lacks '$want'"; }
}
bad_usage "'-o'" merge -o
bad_usage "'--bogus'" dump --bogus known.siot
# a near miss gets the nearest name the command knows
bad_usage "unknown command 'stat': did you mean 'stats'?" stat known.siot
bad_usage "unknown option '--jsn': did you mean '--json'?" stats --jsn known.siot
bad_usage "option '--plugin' needs a value" stats known.siot --plugin
bad_usage "'--window'" merge --window
bad_usage "cannot write /nonexistent/dir/r.html" report known.siot -o /nonexistent/dir/r.html
bad_usage "--max-events" export --csv --max-events 0 known.siot
bad_usage "one trace file" export --csv known.siot known.siot
bad_usage "more than --max-events 3" export --csv --max-events 3 known.siot -o out.csv
[ ! -e out.csv ] || fail "a refused export left out.csv"
! ls ./*.tmp-* > /dev/null 2>&1 || fail "temporary files left behind"
pass "17 truncations, $flips byte flips, junk, empty, missing: exit 2 with a reason, no sanitizer report; bad command lines"
