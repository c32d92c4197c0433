#!/bin/bash
# A program that starts and ends MPI with PMPI_Init and PMPI_Finalize itself
# (tests/progs/pinit.c, like ROMIO's psimple.c) is traced as one that calls
# MPI_Init and MPI_Finalize: what PMPI_Init does at start-up is MPI's own and
# is not recorded, the ranks merge at PMPI_Finalize into the job's trace
# (no parts, no word from the tracer), and `ioreplay --verify` finds the
# round trip faithful (the replay starts and ends MPI with the same calls).
# Each rank's calls are the source's, counted from its #defines; so with
# PMPI_Init_thread, and with PMPI_Init ended by MPI_Finalize. The processes
# of an MPI launch that start no MPI at all (pinit no-mpi) still write one
# part each, said in one line, which `siot merge` joins; when the trace's
# directory cannot be written, the parts go to the working directory and
# each rank says where.
. "$(dirname "$0")/../lib.sh"
build_traced pinit
SRC=$ROOT/tests/progs/pinit.c
PWRITES=$(c_define PWRITES "$SRC")
PWRITE_BYTES=$(c_define PWRITE_BYTES "$SRC")
FWRITES=$(c_define FWRITES "$SRC")
FWRITE_BYTES=$(c_define FWRITE_BYTES "$SRC")
SHARED_BYTES=$(c_define SHARED_BYTES "$SRC")
export PWRITES PWRITE_BYTES FWRITES FWRITE_BYTES SHARED_BYTES

# check_events TRACE START END [REQUIRED]: each of the 4 ranks' own calls
# (parent -1) are exactly pinit.c's, in its order, from START to END; the
# rank is MPI's (MPI_Comm_rank's answer), so the ranks merged as MPI's.
check_events() {
    jsonl "$1" > "$1.jsonl"
    python3 - "$1.jsonl" "$2" "$3" "${4:-}" <<'PY'
import json, os, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
start, end, required = sys.argv[2], sys.argv[3], sys.argv[4]
d = {k: int(os.environ[k]) for k in ("PWRITES", "PWRITE_BYTES", "FWRITES", "FWRITE_BYTES", "SHARED_BYTES")}
assert sorted({e["rank"] for e in ev}) == [0, 1, 2, 3], sorted({e["rank"] for e in ev})
want = ([start, "MPI_Comm_rank", "MPI_Comm_size", "open"] + ["pwrite"] * d["PWRITES"] + ["close", "fopen"] +
        ["fwrite"] * d["FWRITES"] + ["fclose", "MPI_File_open", "MPI_File_write_at", "MPI_File_close",
        "MPI_Barrier", end])
for r in range(4):
    mine = [e for e in ev if e["rank"] == r and e["parent"] == -1]  # the program's own calls
    got = [e["func"] for e in mine]
    assert got == want, (r, got)  # nothing of PMPI_Init's own start-up before the program's calls
    def calls(f):
        return [e for e in mine if e["func"] == f]
    assert calls(start)[0]["ret"] == 0 and calls(end)[0]["ret"] == 0, (r, "start or end failed")
    if required:
        assert calls(start)[0]["args"]["required"] == int(required), (r, calls(start)[0]["args"])
    assert [e["args"]["rank"] for e in calls("MPI_Comm_rank")] == [r], (r, "MPI_Comm_rank")
    assert [e["args"]["size"] for e in calls("MPI_Comm_size")] == [4], (r, "MPI_Comm_size")
    assert calls("open")[0]["args"]["pathname"] == "pinit-%d.dat" % r, (r, "open")
    pw = [(e["args"]["offset"], e["bytes"]) for e in calls("pwrite")]
    assert pw == [(i * d["PWRITE_BYTES"], d["PWRITE_BYTES"]) for i in range(d["PWRITES"])], (r, "pwrite", pw)
    assert calls("fopen")[0]["args"]["pathname"] == "pinit-%d.txt" % r, (r, "fopen")
    assert [e["bytes"] for e in calls("fwrite")] == [d["FWRITE_BYTES"]] * d["FWRITES"], (r, "fwrite")
    wa = [(e["args"]["offset"], e["bytes"]) for e in calls("MPI_File_write_at")]
    assert wa == [(r * d["SHARED_BYTES"], d["SHARED_BYTES"])], (r, "MPI_File_write_at", wa)
PY
}

# run NAME ARGS...: pinit under mpirun -np 4 in NAME/ (trace NAME.siot): it
# exits 0, the job's trace is written, no part, and the tracer says nothing.
run() {
    local name=$1
    shift
    mkdir -p "$name"
    (cd "$name" && SIOT_TRACE=$WORK/$name.siot mpirun_np 4 ../pinit "$@" > /dev/null 2> "../$name.err") ||
        { st=$?; cat "$name.err" >&2; fail "$name: pinit $* exited $st"; }
    [ -f "$name.siot" ] || fail "$name: no job trace: $(ls)"
    [ -z "$(ls "$name".part-*.siot 2> /dev/null)" ] || fail "$name: the ranks wrote parts: the tracer did not see MPI start"
    ! grep -q '^siotrace:' "$name.err" || { cat "$name.err" >&2; fail "$name: the tracer spoke"; }
}

# verify NAME: ioreplay --verify of NAME.siot exits 0 and says faithful, and
# the replay writes the files the run wrote, with the same sizes.
verify() {
    local name=$1
    mpirun_np 4 "$B/bin/ioreplay" --verify --explain --root "$WORK/root-$name" "$WORK/$name.siot" > "$name.report" 2>&1 ||
        { st=$?; cat "$name.report" >&2; fail "$name: ioreplay --verify exited $st"; }
    grep -q "^round trip: faithful" "$name.report" || { cat "$name.report" >&2; fail "$name: the round trip is not faithful"; }
    (cd "$name" && find . -type f -printf '%P %s\n' | sort) > "$name.orig.files"
    (cd "root-$name" && find . -type f -printf '%P %s\n' | sort) > "$name.replay.files"
    [ "$(wc -l < "$name.orig.files")" = 9 ] || fail "$name: the program wrote $(wc -l < "$name.orig.files") files, want 9"
    diff "$name.orig.files" "$name.replay.files" > /dev/null ||
        { diff "$name.orig.files" "$name.replay.files" >&2; fail "$name: the replay's files differ"; }
    echo "   $name: $(sed -n 's/^round trip: //p' "$name.report" | sed 's/;.*/)/'), the same 9 files"
}

run job
check_events job.siot PMPI_Init PMPI_Finalize
echo "   PMPI_Init/PMPI_Finalize: one job trace, 4 ranks of MPI's numbers, each $PWRITES pwrite x $PWRITE_BYTES B, $FWRITES fwrite x $FWRITE_BYTES B, 1 MPI_File_write_at at rank*$SHARED_BYTES, nothing of PMPI_Init's start-up"
verify job

# the level pinit.c asks for, as the flavour's mpi.h numbers it
printf '#include <mpi.h>\n#include <stdio.h>\nint main(void) { printf("%%d\\n", MPI_THREAD_FUNNELED); return 0; }\n' > funneled.c
$MPICC funneled.c -o funneled && FUNNELED=$(./funneled) || fail "MPI_THREAD_FUNNELED from mpi.h"
run thread thread
check_events thread.siot PMPI_Init_thread PMPI_Finalize "$FUNNELED"
verify thread

run fin mpi-finalize
check_events fin.siot PMPI_Init MPI_Finalize
verify fin

# No MPI at all under the launcher: one part per process, rank 0's line, the
# merge; each part is its launcher rank's (the program names its files so).
mkdir -p parts
(cd parts && SIOT_TRACE=$WORK/nompi.siot mpirun_np 4 ../pinit no-mpi > /dev/null 2> ../parts.err) ||
    { st=$?; cat parts.err >&2; fail "pinit no-mpi exited $st"; }
[ ! -e nompi.siot ] || fail "no-mpi: the processes wrote the job's trace path: one of them replaced the others'"
parts=$(ls nompi.part-*.siot 2> /dev/null | tr '\n' ' ')
[ "$parts" = "nompi.part-000000.siot nompi.part-000001.siot nompi.part-000002.siot nompi.part-000003.siot " ] ||
    fail "no-mpi: parts written: '$parts', want ranks 0..3"
[ "$(grep -c '^siotrace:' parts.err || true)" = 1 ] || { cat parts.err >&2; fail "no-mpi: not one line for the launch"; }
grep -q "^siotrace: the 4 processes of this MPI launch could not merge their traces: the tracer never saw MPI start.*$WORK/nompi.part-000000.siot.*siot merge -o $WORK/nompi.siot $WORK/nompi.part-\*.siot" parts.err ||
    { cat parts.err >&2; fail "no-mpi: the line does not say why and how to merge"; }
"$SIOT" merge -o nompi.siot nompi.part-*.siot || fail "siot merge of the parts exited $?"
dump_has nompi.siot "note mpi_init_unseen: the tracer never saw MPI start" || fail "no-mpi: the merged trace does not say why it came in parts"
jsonl nompi.siot | python3 -c '
import json, os, sys
ev = [json.loads(l) for l in sys.stdin]
for r in range(4):
    got = [(e["func"], e["bytes"]) for e in ev if e["rank"] == r and e["func"] in ("pwrite", "fwrite")]
    want = [("pwrite", int(os.environ["PWRITE_BYTES"]))] * int(os.environ["PWRITES"]) + \
           [("fwrite", int(os.environ["FWRITE_BYTES"]))] * int(os.environ["FWRITES"])
    assert got == want, (r, got)
    assert [e["args"]["pathname"] for e in ev if e["rank"] == r and e["func"] == "open"] == ["pinit-%d.dat" % r], r
' || fail "no-mpi: the merged parts are not the launcher's ranks' calls"
echo "   no MPI under the launcher: 4 parts, one line, merged into the 4 ranks' calls"

# The trace's directory cannot be written: each part goes to the working
# directory (the first fallback), rank 0's line points there, and each other
# rank says where its own went, since it is not beside the trace.
mkdir -p fb
(cd fb && SIOT_TRACE=/proc/no-such-dir/job.siot mpirun_np 4 ../pinit no-mpi > /dev/null 2> ../fb.err) ||
    { st=$?; cat fb.err >&2; fail "pinit no-mpi (fallback) exited $st"; }
[ "$(ls fb/job.part-*.siot | wc -l)" = 4 ] || fail "fallback: $(ls fb) instead of 4 parts"
grep -q "^siotrace: the 4 processes .*(rank 0: $WORK/fb/job.part-000000.siot)" fb.err || { cat fb.err >&2; fail "fallback: rank 0's line"; }
for r in 1 2 3; do
    grep -q "^siotrace: rank $r of an MPI launch that the tracer never saw start MPI: its part is in $WORK/fb/job.part-00000$r.siot$" fb.err ||
        { cat fb.err >&2; fail "fallback: rank $r does not say where its part is"; }
done
[ "$(grep -c '^siotrace:' fb.err)" = 4 ] || { cat fb.err >&2; fail "fallback: not one line per process"; }
echo "   unwritable trace directory: the parts in the working directory, each rank says so"
pass "PMPI_Init, PMPI_Init_thread, PMPI_Finalize under mpirun -np 4: one job trace of the program's own calls, ioreplay --verify faithful (also with MPI_Finalize); no MPI: parts, one line, merged; fallback parts"
