#!/bin/bash
# A 3-level nested loop of MPI-IO and POSIX writes, run with inner counts 10,
# 1,000 and 100,000: the three trace files differ in size by at most 5%.
. "$(dirname "$0")/../lib.sh"
build_traced loops
sizes=""
for n in 10 1000 100000; do
    rm -f nested*
    SIOT_TRACE=$PWD/n$n.siot mpirun_np 2 ./loops nested3 $n || fail "nested3 $n"
    sizes="$sizes $(trace_size n$n.siot)"
done
read -r s1 s2 s3 <<< "$sizes"
min=$s1; max=$s1
for s in $s2 $s3; do [ "$s" -lt "$min" ] && min=$s; [ "$s" -gt "$max" ] && max=$s; done
echo "   trace sizes for inner counts 10, 1000, 100000:$sizes bytes"
[ $((max * 100)) -le $((min * 105)) ] || fail "sizes$sizes differ by more than 5%"
dump_has n100000.siot "loop x100000 \{" || fail "the inner loop did not fold"
pass "trace size independent of the iteration count (${min}..${max} bytes)"
