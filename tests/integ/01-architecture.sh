#!/bin/bash
# The architecture as the tree shows it: one include style, a folder include
# graph without a cycle (printed), no function over 80 lines in any folder
# of C (the runtime, the core, the layers, the engine, the siot command, the
# generator, the benchmarks; tests and examples are programs kept apart), no
# include circle between the modules (a .c and its .h) of the folders listed
# in MODULES, no comment or document naming a file that does not exist, the
# README's layout table equal to the tree, and docs/spec-format.md's role
# table equal to the generator's.
. "$(dirname "$0")/../lib.sh"
py layout.py "$ROOT" > layout.txt || { cat layout.txt >&2; fail "layout"; }
sed -n '/^folder include graph/,/^layout:/p' layout.txt | grep -v '^layout:'
py funclen.py 80 "$ROOT"/core "$ROOT"/src "$ROOT"/compress "$ROOT"/pmpi "$ROOT"/wrap "$ROOT"/replay "$ROOT"/siot \
    "$ROOT"/tools/gen "$ROOT"/bench > funclen.txt || { cat funclen.txt >&2; fail "functions too long"; }
# The folders whose modules include one another without a circle (each one
# found is printed); the others join this list as their circles are broken.
MODULES="core compress src siot replay pmpi wrap tools/gen bench"
py cycles.py "$ROOT" $MODULES > cycles.txt || { cat cycles.txt >&2; fail "modules include each other in a circle"; }
tail -1 cycles.txt
# ... and the check finds a circle made for it: m/x.c includes m/y.h, m/y.c
# includes m/x.h, m/z.c only m/x.h
mkdir -p circle/m && printf '#include "m/y.h"\n' > circle/m/x.c && printf '#include "m/x.h"\n' > circle/m/y.c
printf '#include "m/x.h"\n' > circle/m/z.c && touch circle/m/x.h circle/m/y.h circle/m/z.h
! py cycles.py circle m > circle.txt && grep -qx 'cycles: 2 modules include each other: m/x <-> m/y' circle.txt ||
    { cat circle.txt >&2; fail "cycles.py does not find the circle m/x <-> m/y"; }
(cd "$ROOT" && sh tools/gen/doc.sh --check "$B/tools/siot-gen") || fail "docs/spec-format.md is out of date"
pass "one include style, no folder cycle, no module circle, functions within 80 lines, no stale file names, layout and role tables current"
