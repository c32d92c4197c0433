#!/bin/bash
# The recorder under ThreadSanitizer (make TSAN=1: the archive under
# build/<flavour>-tsan, programs linked with -fsanitize=thread) running the
# thread tests: 8 threads of POSIX I/O without MPI, with MPI FUNNELED, and
# with MPI_THREAD_MULTIPLE and MPI calls in the threads, checkpoints taken by
# whichever thread ends a call; and unit test_salloc (the emergency allocator
# from threads and a signal handler). Every event must be there, and TSan must
# report nothing about the tracer's code (tests/py/tsan_reports.py; the MPI
# library's own reports, about its threads and locks, are counted apart).
. "$(dirname "$0")/../lib.sh"
make -s -j2 -C "$ROOT" MPI="$MPI" TSAN=1 archive > tsan-build.out 2>&1 || { tail -20 tsan-build.out >&2; fail "make TSAN=1 archive"; }
TSANB=$ROOT/build/$MPI-tsan
export TSAN_OPTIONS="exitcode=0 report_signal_unsafe=1"
# UCX (under MPICH) hooks madvise and munmap, which crashes TSan at every
# thread's exit, traced or not: its memory events are switched off.
export UCX_MEM_EVENTS=no
# The emergency allocator (core/salloc.c), which every recording thread and
# a signal handler use at once once a signal ends the process: unit
# test_salloc's threads and handler, with no report.
gcc -std=c11 -O1 -g -D_GNU_SOURCE -I"$ROOT" -fsanitize=thread -pthread "$ROOT/tests/unit/test_salloc.c" \
    "$ROOT/core/salloc.c" -o salloc-tsan
TSAN_OPTIONS=exitcode=66 ./salloc-tsan > salloc-tsan.log 2>&1 ||
    { tail -30 salloc-tsan.log >&2; fail "unit test_salloc under ThreadSanitizer"; }
$MPICC -std=c11 -O1 -g -fsanitize=thread -pthread -c "$ROOT/tests/progs/threads.c" -o threads.o
$MPICC -fsanitize=thread -pthread threads.o -Wl,@"$TSANB/wrap.flags" -o threads

SIOT_TRACE=$WORK/serial.siot ./threads serial > serial.log 2>&1 || { tail serial.log >&2; fail "threads serial"; }
jsonl serial.siot > serial.jsonl
py check_threads.py serial.jsonl 1 0 || fail "threads serial: events"
for mode in funneled multiple; do
    SIOT_CHECKPOINT=0.001 SIOT_TRACE=$WORK/$mode.siot mpirun_np 2 ./threads $mode > $mode.log 2>&1 ||
        { tail $mode.log >&2; fail "threads $mode"; }
    jsonl $mode.siot > $mode.jsonl
    py check_threads.py $mode.jsonl 2 $([ $mode = multiple ] && echo 1 || echo 0) || fail "threads $mode: events"
done
py tsan_reports.py serial.log funneled.log multiple.log > tsan.txt || { cat tsan.txt >&2; fail "ThreadSanitizer reports about the tracer"; }
echo "   $(tail -1 tsan.txt)"
pass "the recorder under ThreadSanitizer: the emergency allocator, 8 threads without MPI, FUNNELED, MULTIPLE with checkpoints: all events, no report"
