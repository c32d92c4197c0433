#!/bin/bash
# The classic example of the ScalaIOTrace paper comes out as
# PRSD<10: MPI_File_open, RSD<100: MPI_File_write>, MPI_File_close>, and the
# file name number is a progression.
. "$(dirname "$0")/../lib.sh"
build_traced classic
SIOT_LAYERS=mpiio SIOT_TRACE=$PWD/classic.siot mpirun_np 1 ./classic 10 100 || fail "classic run"
"$SIOT" dump classic.siot > classic.txt || fail "siot dump"
# The nodes, with their nesting, without the arguments and timing:
sed -n '/^\[r0\]/,/^$/p' classic.txt | sed '/^$/d' | sed -e 's/^\[r0\] //' -e 's/(.*//' > shape.txt
cat > want.txt <<'TXT'
loop x10 {
  MPI_File_open
  loop x100 {
    MPI_File_write
  }
  MPI_File_close
}
TXT
diff want.txt shape.txt || { cat classic.txt >&2; fail "classic structure"; }
grep -q 'filename="classic-0-{%03d:0+1\*i0}.dat"' classic.txt || fail "file name not a progression: $(grep File_open classic.txt)"
[ "$(trace_size classic.siot)" -lt 4096 ] || fail "classic trace is $(trace_size classic.siot) bytes"
pass "PRSD<10: MPI_File_open, RSD<100: MPI_File_write>, MPI_File_close>"
