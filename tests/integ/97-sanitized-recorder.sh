#!/bin/bash
# The recorder itself under AddressSanitizer and UBSan (make SAN=1: the
# archive under build/<flavour>-san, programs linked with -fsanitize): the
# hardening cases run again with every memory access of the wrappers, the
# compression, the merge, the spill and the signal-time writer checked.
# Any report fails the run (exit 99 for ASan; UBSan halts). Leak checking is
# off: the MPI libraries keep memory until exit.
. "$(dirname "$0")/../lib.sh"
make -s -j2 -C "$ROOT" MPI="$MPI" SAN=1 archive > san-build.out 2>&1 || { tail -20 san-build.out >&2; fail "make SAN=1 archive"; }
SANB=$ROOT/build/$MPI-san
SANF=-fsanitize=address,undefined
export ASAN_OPTIONS=detect_leaks=0:exitcode=99 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# the sanitizers' runtime must come first: no yield preload (tests/lib.sh)
MPIRUN=("${MPIRUN_BARE[@]}")
build_san() { # NAME [CFLAGS...]
    local name=$1
    shift
    $MPICC -std=c11 -O1 -g -Wno-unused-result $SANF "$@" -c "$ROOT/tests/progs/$name.c" -o "$name.o"
    $MPICC $SANF "$@" "$name.o" -Wl,@"$SANB/wrap.flags" -o "$name"
    $MPICC "$name.o" -Wl,@"$FLAGS" $SANF "$@" -o "$name.normal"
}
no_reports() { # FILE WHAT
    ! grep -Eq "ERROR: AddressSanitizer|runtime error:" "$1" || { grep -E -A12 "ERROR: Address|runtime error" "$1" >&2; fail "$2: sanitizer report"; }
}

# Known events: the sanitized recorder writes the same trace as the normal one.
build_san known
mkdir -p k-san k-normal # each from no files (MPI-IO looks at the file before creating it)
(cd k-san && SIOT_TRACE=$WORK/k-san.siot mpirun_np 4 ../known > /dev/null 2> ../k.err) ||
    { cat k.err >&2; fail "known (sanitized) failed"; }
no_reports k.err known
(cd k-normal && SIOT_TRACE=$WORK/k-normal.siot mpirun_np 4 ../known.normal > /dev/null) || fail "known (normal) exited $?"
"$SIOT" diff k-normal.siot k-san.siot > k.diff || { cat k.diff >&2; fail "the sanitized recorder's trace differs"; }

# Failing calls and errno (test 20's program): same files, failures recorded.
build_san transp
mkdir -p tr
(cd tr && mpirun_np 3 "$WORK/transp" 2> ../t.err) || { cat t.err >&2; fail "transp (sanitized) failed"; }
no_reports t.err transp
grep -q "errno kept across a successful pread: ret=10 errno=1234" tr/t-log-0.txt || fail "transp: errno check did not run"
jsonl tr/transp.siot | grep -c '"errno":2' > /dev/null || fail "transp: no ENOENT recorded"

# Threads: 8 threads of POSIX I/O, MPI_THREAD_MULTIPLE with MPI in the threads
# (and checkpoints taken by whichever thread ends a call).
build_san threads -pthread
SIOT_TRACE=$WORK/th1.siot ./threads serial 2> th.err || { cat th.err >&2; fail "threads serial (sanitized)"; }
no_reports th.err "threads serial"
jsonl th1.siot > th1.jsonl
py check_threads.py th1.jsonl 1 0 || fail "threads serial (sanitized)"
SIOT_CHECKPOINT=0.001 SIOT_TRACE=$WORK/th2.siot mpirun_np 2 ./threads multiple 2> th.err || { cat th.err >&2; fail "threads multiple (sanitized)"; }
no_reports th.err "threads multiple"
jsonl th2.siot > th2.jsonl
py check_threads.py th2.jsonl 2 1 || fail "threads multiple (sanitized)"

# Abnormal endings: the signal-time writer (emergency allocator) and MPI_Abort.
build_san ending
export OMPI_MCA_odls_base_sigkill_timeout=3
SIOT_TRACE=$WORK/job.siot mpirun_np 3 ./ending signal > /dev/null 2> e.err && fail "signal: the job did not fail"
no_reports e.err "ending signal"
[ "$(jsonl job.part-000002.siot | grep -c '"func":"pwrite"')" = 5 ] || fail "signal: the killed rank's part lacks its pwrites"
rm -f job.*
SIOT_TRACE=$WORK/job.siot mpirun_np 3 ./ending abort > /dev/null 2> e.err && fail "abort: the job did not fail"
no_reports e.err "ending abort"
[ "$(jsonl job.part-000001.siot | grep -c '"func":"pwrite"')" = 5 ] || fail "abort: the aborting rank's part lacks its pwrites"

# Irregular events past SIOT_MAX_MEMORY: spilled blocks, concatenated at
# MPI_Finalize, with checkpoints (SIOT_CHECKPOINT) copying the spilled blocks.
build_san big
N=100000
SIOT_CHECKPOINT=0.05 SIOT_TRACE=$WORK/big.siot SIOT_MAX_MEMORY=1M mpirun_np 2 ./big irregular $N mpi 2> b.err || { cat b.err >&2; fail "big (sanitized)"; }
no_reports b.err "big irregular"
dump_has big.siot "note spilled: " || fail "big: nothing spilled under a 1M limit"
jsonl big.siot > b.jsonl
py check_irregular.py b.jsonl 2 $N || fail "big: spilled trace not exact (sanitized)"
! ls th2.part-* big.part-* > /dev/null 2>&1 || fail "checkpoints left behind"
# Signals while the thread holds one of the tracer's locks (src/lock.h, rule
# 2): the sanitized build raises SIGTERM at the Nth acquisition of a lock
# (SIOT_FAULT_SIGNAL=15:N), at every kind of site in turn: the call-site
# table, a descriptor's close, the end of a call that changes a handle table,
# a thread's own queue, the MPI ranks' agreement on a new file's id. Every run must end,
# killed by the signal, with a readable partial trace or part.
build_san robust
for n in 1 2 3 4 5 6 7 8 9 10 11 12 16 20 30 45 60; do
    rm -f lk.siot
    set +e
    SIOT_FAULT_SIGNAL=15:$n SIOT_TRACE=$WORK/lk.siot timeout 20 ./robust stdout-loop > /dev/null 2> lk.err
    st=$?
    set -e
    [ $st = 143 ] || { cat lk.err >&2; fail "signal at lock acquisition $n: exit status $st (124: hung), want 143"; }
    no_reports lk.err "signal at lock acquisition $n"
    "$SIOT" dump lk.siot > lk.txt 2>&1 && grep -q "note partial: signal 15" lk.txt ||
        fail "signal at lock acquisition $n: no readable partial trace"
done
for n in 1 3 6 10 15 20 30; do
    rm -f lkm.*
    set +e
    SIOT_FAULT_SIGNAL=15:$n SIOT_TRACE=$WORK/lkm.siot timeout 60 "${MPIRUN[@]}" -np 2 ./robust collective > /dev/null 2> lkm.err
    st=$?
    set -e
    [ $st != 124 ] || fail "MPI job, signal at lock acquisition $n: hung"
    no_reports lkm.err "MPI job, signal at lock acquisition $n"
    # a rank that died first may make the launcher kill the other before its signal (MPICH: SIGKILL)
    files=$(ls lkm.part-*.siot lkm.siot 2> /dev/null || true)
    [ -n "$files" ] || fail "MPI job, signal at lock acquisition $n: no trace left"
    for f in $files; do
        "$SIOT" dump "$f" > /dev/null || fail "MPI job, signal at lock acquisition $n: $f unreadable"
    done
done
echo "   SIGTERM raised while the lock is held, at 17 serial and 7 MPI acquisitions: every run ended, traces readable"
pass "the recorder under ASan+UBSan: known events, failures and errno, 8 threads, signal and abort endings, spilling, checkpoints, signals inside the lock: no report, same traces, no hang"
