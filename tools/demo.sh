#!/bin/sh
# The end-to-end demonstration behind `make demo`: trace the checkpointing
# example on 8 ranks and show what the trace holds.
set -eu
MPI=${MPI:-mpich}
B=$(pwd)/build/$MPI
D=$B/demo
rm -rf "$D"
mkdir -p "$D"
cd "$D"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ "$MPI" = openmpi ]; then RUN="mpirun.openmpi --oversubscribe"; else RUN="mpirun.mpich"; fi
echo "== tracing: $RUN -np 8 $B/examples/ckpt"
$RUN -np 8 "$B/examples/ckpt"
echo
echo "== the job's trace: $(ls -l ckpt.siot | awk '{print $5}') bytes in $D/ckpt.siot"
echo "== siot dump ckpt.siot (first 40 lines)"
"$B/bin/siot" dump ckpt.siot | head -40
echo "..."
echo
echo "== siot dump --jsonl ckpt.siot: $("$B/bin/siot" dump --jsonl ckpt.siot | wc -l) events; rank 3's first checkpoint:"
"$B/bin/siot" dump --jsonl ckpt.siot | grep '"rank":3,' | grep -m 8 'ckpt-0005\|"func":"pwrite"'
