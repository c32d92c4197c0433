#!/bin/bash
# Files opened before MPI_Init (the runtime's, or the program's) are not
# recorded; the first event of each rank is MPI_Init.
. "$(dirname "$0")/../lib.sh"
build_traced preinit
mpirun_np 2 ./preinit || fail "preinit exited $?"
jsonl preinit.siot > preinit.jsonl
for r in 0 1; do
    cat > spec.json <<JSON
{"rank": $r, "events": [
 ["MPI_Init", {}, 0],
 ["open", {"pathname": "late.dat", "flags": 577, "mode": 420}, "=FD"],
 ["write", {"fd": "=FD", "count": 4}, 4],
 ["close", {"fd": "=FD"}, 0],
 ["MPI_Finalize", {}, 0]
]}
JSON
    py expect.py preinit.jsonl spec.json || fail "rank $r events"
done
pass "pre-MPI_Init file not traced, post-Init file traced"
