# What the MPI benchmarks share (sourced): the flavour, its tools, a
# scratch directory W in /dev/shm removed at exit, and run P ARGS... to
# start P ranks (oversubscribed on Open MPI; on MPICH with the tests' yield
# preload, tests/run/mpich_yield.c, when built: this MPICH's ch4:ucx device
# polls without ever yielding, so an oversubscribed job's waiting ranks
# would take the cores from the ranks that work).
set -euo pipefail
MPI=${MPI:-mpich}
B=$(pwd)/build/$MPI
SIOT=$B/bin/siot
W=$(mktemp -d "/dev/shm/siot-${BENCH_NAME:-bench}.XXXXXX")
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() { # P ARGS...
    local np=$1
    shift
    if [ "$MPI" = openmpi ]; then
        mpirun.openmpi --oversubscribe -np "$np" "$@"
    elif [ -f "$B/tests/mpich_yield.so" ]; then
        mpirun.mpich -genv LD_PRELOAD "$B/tests/mpich_yield.so" -np "$np" "$@"
    else
        mpirun.mpich -np "$np" "$@"
    fi
}
