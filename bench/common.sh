# What the MPI benchmarks share (sourced): the flavour, its tools, a
# scratch directory W in /dev/shm removed at exit, and run P ARGS... to
# start P ranks (oversubscribed on Open MPI).
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
    if [ "$MPI" = openmpi ]; then mpirun.openmpi --oversubscribe -np "$np" "$@"; else mpirun.mpich -np "$np" "$@"; fi
}
