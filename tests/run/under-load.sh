#!/usr/bin/env bash
# under-load.sh CMD...: runs CMD with LOAD_PROCS (default 2) CPU-bound
# processes beside it for its whole length, and ends them with it (make
# check-under-load: every test must pass on a machine that is busy with
# other work, as a shared machine or a CI host often is).
set -u
n=${LOAD_PROCS:-2}
pids=()
for _ in $(seq "$n"); do
    sh -c 'while :; do :; done' &
    pids+=($!)
done
trap 'kill "${pids[@]}" 2> /dev/null' EXIT
echo "== under load: $n CPU-bound processes run beside: $*"
"$@"
