#!/bin/sh
# rss.sh DIR PROGRAM [ARGS...]: runs one rank of an MPI job (given to mpirun
# in place of the program) under /usr/bin/time, which writes the rank's peak
# resident memory in KiB (its max RSS, VmHWM) to DIR/rss.RANK. The rank comes
# from the launcher's environment (MPICH's hydra: PMI_RANK; Open MPI:
# OMPI_COMM_WORLD_RANK), so the program needs no tracer to be measured.
dir=$1
shift
rank=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-0}}
exec /usr/bin/time -f %M -o "$dir/rss.$rank" "$@"
