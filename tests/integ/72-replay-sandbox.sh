#!/bin/bash
# The replay sandbox: a trace that creates ../../escape, an absolute path and a
# file through a symbolic link pointing outside the root: ioreplay creates or
# changes nothing outside --root (the first two are confined inside it, the
# call through the link is refused).
. "$(dirname "$0")/../lib.sh"
build_traced escape
abs=/tmp/siot-sandbox-$$-abs
mkdir -p a/b/run outside-orig outside
ln -s "$WORK/outside-orig" a/b/run/link
(cd a/b/run && SIOT_TRACE=$WORK/esc.siot mpirun_np 1 "$WORK/escape" ../../escape "$abs" link/victim) || fail "original run"
[ -f a/escape ] && [ -f "$abs" ] && [ -f outside-orig/victim ] || fail "the original run did not create its files"
rm -f a/escape "$abs"
# The replay root, with a link inside it that points outside it.
mkdir -p root
ln -s "$WORK/outside" root/link
# (The whole test area is watched; in /tmp the MPI runtime keeps session files
# of its own, so there the trace's own absolute path is checked below.)
before=$(find "$WORK" -newer esc.siot 2>/dev/null | grep -v "^$WORK/root" | sort)
sleep 1
# One call refused: the replay says which and why, and exits 1.
st=0
"$B/bin/ioreplay" --explain --root "$WORK/root" esc.siot > $WORK/root-report.txt || st=$?
[ $st = 1 ] || { cat $WORK/root-report.txt >&2; fail "replay exited $st, want 1 (a call refused)"; }
grep -Eq "rank 0 event [0-9]+ open: not reissued: a path that cannot be kept inside the replay root" \
    $WORK/root-report.txt || { cat $WORK/root-report.txt >&2; fail "--explain does not name the refused open"; }
after=$(find "$WORK" -newer esc.siot 2>/dev/null | grep -v "^$WORK/root" | sort)
[ -z "$(ls -A outside)" ] || fail "the replay wrote through the link: $(ls outside)"
[ ! -e a/escape ] || fail "../../escape escaped the root"
[ ! -e "$abs" ] || { rm -f "$abs"; fail "the absolute path escaped the root"; }
[ "$before" = "$after" ] || fail "files changed outside the root: $(comm -13 <(echo "$before") <(echo "$after"))"
[ -f root/escape ] || fail "../../escape was not confined to root/escape"
[ -f "root${abs}" ] || fail "$abs was not confined to root$abs"
grep -q "paths refused *1" $WORK/root-report.txt || { cat $WORK/root-report.txt >&2; fail "the call through the link was not refused"; }
rm -f $WORK/root-report.txt
pass "../.., absolute paths confined; a link out of the root refused; nothing outside changed"
