#!/bin/bash
# A program that calls PMPI_Init and PMPI_Finalize itself (tests/progs/pinit.c,
# like ROMIO's psimple.c) never shows the tracer MPI_Init: under mpirun -np 4
# each process writes its own part <trace>.part-RRRRRR.siot (the rank from
# the launcher's environment), rank 0 says so in one line, and `siot merge`
# joins the parts into a 4-rank trace that holds each rank's own calls as
# the program's source makes them. The merged trace replays: every file the
# program wrote comes back with its size (what PMPI_Init did at start-up is
# in the trace too, and some of it cannot come back the same in a replay
# root, so ioreplay's verdict is not asserted). With MPI_Finalize through
# the wrapper the ranks merge there, each its launcher's rank; when the
# trace's directory cannot be written, the parts go to the working directory
# and each rank says where.
. "$(dirname "$0")/../lib.sh"
build_traced pinit
mkdir -p run
(cd run && SIOT_TRACE=$WORK/job.siot mpirun_np 4 ../pinit > /dev/null 2> ../run.err) ||
    { st=$?; cat run.err >&2; fail "pinit exited $st"; }

[ ! -e job.siot ] || fail "the processes wrote the job's trace path: one of them replaced the others'"
parts=$(ls job.part-*.siot 2> /dev/null | tr '\n' ' ')
[ "$parts" = "job.part-000000.siot job.part-000001.siot job.part-000002.siot job.part-000003.siot " ] ||
    fail "parts written: '$parts', want ranks 0..3"
said=$(grep -c '^siotrace:' run.err || true)
[ "$said" = 1 ] || { cat run.err >&2; fail "the tracer said $said lines, want 1 for the launch"; }
grep -q "^siotrace: the 4 processes of this MPI launch could not merge their traces: the tracer never saw MPI_Init.*$WORK/job.part-000000.siot.*siot merge -o $WORK/job.siot $WORK/job.part-\*.siot" run.err ||
    { cat run.err >&2; fail "the line does not say why and how to merge"; }
echo "   4 parts, one line: $(cut -c1-90 run.err)..."

"$SIOT" merge -o job.siot job.part-*.siot || fail "siot merge of the parts exited $?"
"$SIOT" stats --json job.siot > stats.json || fail "siot stats --json"
python3 - stats.json <<'PY' || fail "stats of the merged trace"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["nranks"] == 4, s["nranks"]
assert not s["partial"], "a complete launch's parts merge into a trace marked partial"
PY
dump_has job.siot "note mpi_init_unseen: the tracer never saw MPI_Init" || fail "the merged trace does not say why it came in parts"

# Each rank's calls, from pinit.c: the rank MPI gave it, 3 pwrite of 1000
# bytes at 0, 1000, 2000 to pinit-R.dat, 2 fwrite of 500 bytes to
# pinit-R.txt, 100 bytes at R*100 of the shared file, one barrier.
jsonl job.siot > job.jsonl
python3 - job.jsonl <<'PY' || fail "the merged trace's events per rank"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert sorted({e["rank"] for e in ev}) == [0, 1, 2, 3], sorted({e["rank"] for e in ev})
for r in range(4):
    mine = [e for e in ev if e["rank"] == r and e["parent"] == -1]  # the program's own calls
    def calls(f):
        return [e for e in mine if e["func"] == f]
    ranks = [e["args"]["rank"] for e in calls("MPI_Comm_rank")]
    assert ranks == [r], (r, "MPI_Comm_rank", ranks)
    assert [e["args"]["size"] for e in calls("MPI_Comm_size")] == [4], (r, "MPI_Comm_size")
    fd = [e["ret"] for e in calls("open") if e["args"]["pathname"] == "pinit-%d.dat" % r]
    assert len(fd) == 1, (r, "open", fd)
    pw = [(e["args"]["offset"], e["bytes"]) for e in calls("pwrite") if e["args"]["fd"] == fd[0]]
    assert pw == [(0, 1000), (1000, 1000), (2000, 1000)], (r, "pwrite", pw)
    st = [e["ret"] for e in calls("fopen") if e["args"]["pathname"] == "pinit-%d.txt" % r]
    assert len(st) == 1, (r, "fopen", st)
    fw = [e["bytes"] for e in calls("fwrite") if e["args"]["stream"] == st[0]]
    assert fw == [500, 500], (r, "fwrite", fw)
    wa = [(e["args"]["offset"], e["bytes"]) for e in calls("MPI_File_write_at")]
    assert wa == [(r * 100, 100)], (r, "MPI_File_write_at", wa)
    assert len(calls("MPI_Barrier")) == 1, (r, "MPI_Barrier")
    assert not calls("MPI_Init") and not calls("MPI_Finalize"), (r, "MPI_Init/MPI_Finalize were not seen")
PY
echo "   siot merge: 4 ranks, each with its rank, 3 pwrite x 1000 B, 2 fwrite x 500 B, 1 MPI_File_write_at at rank*100"

# The replay: it runs to its report and writes every file the program wrote,
# each of the same size; none of the program's own writes is among the calls
# it could not reissue as recorded (those are PMPI_Init's start-up calls).
rc=0
mpirun_np 4 "$B/bin/ioreplay" --explain --root "$WORK/root" job.siot > replay.txt 2>&1 || rc=$?
[ $rc -le 1 ] && grep -q "slowest rank" replay.txt || { cat replay.txt >&2; fail "ioreplay of the merged trace exited $rc"; }
(cd run && find . -name 'pinit-*' -printf '%P %s\n' | sort) > orig.files
(cd root && find . -name 'pinit-*' -printf '%P %s\n' | sort) > replay.files
[ "$(wc -l < orig.files)" = 9 ] || fail "the program wrote $(wc -l < orig.files) files, want 9"
diff orig.files replay.files > /dev/null || { diff orig.files replay.files >&2; fail "the replay's files differ"; }
! grep -E "event [0-9]+ (pwrite|fwrite|MPI_File_write_at|MPI_File_open|MPI_Barrier)" replay.txt ||
    fail "the replay did not reissue the program's own calls as recorded"
# PMPI_Init, then MPI_Finalize through the wrapper: the ranks merge there as
# usual, each its launcher's rank (MPI_Comm_rank's answer on each).
mkdir -p fin
(cd fin && SIOT_TRACE=$WORK/fin.siot mpirun_np 4 ../pinit mpi-finalize > /dev/null 2> ../fin.err) ||
    { st=$?; cat fin.err >&2; fail "pinit mpi-finalize exited $st"; }
[ -f fin.siot ] && [ -z "$(ls fin.part-*.siot 2> /dev/null)" ] || fail "MPI_Finalize: no job trace, or parts"
! grep -q '^siotrace:' fin.err || { cat fin.err >&2; fail "MPI_Finalize: the tracer spoke"; }
jsonl fin.siot | python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin]
got = sorted((e["rank"], e["args"]["rank"]) for e in ev if e["func"] == "MPI_Comm_rank")
assert got == [(r, r) for r in range(4)], got
' || fail "MPI_Finalize: the merged ranks are not MPI's"
echo "   PMPI_Init with MPI_Finalize: merged there, rank r of the trace is MPI's rank r"

# The trace's directory cannot be written: each part goes to the working
# directory (the first fallback), rank 0's line points there, and each other
# rank says where its own went, since it is not beside the trace.
mkdir -p fb
(cd fb && SIOT_TRACE=/proc/no-such-dir/job.siot mpirun_np 4 ../pinit > /dev/null 2> ../fb.err) ||
    { st=$?; cat fb.err >&2; fail "pinit (fallback) exited $st"; }
[ "$(ls fb/job.part-*.siot | wc -l)" = 4 ] || fail "fallback: $(ls fb) instead of 4 parts"
grep -q "^siotrace: the 4 processes .*(rank 0: $WORK/fb/job.part-000000.siot)" fb.err || { cat fb.err >&2; fail "fallback: rank 0's line"; }
for r in 1 2 3; do
    grep -q "^siotrace: rank $r of an MPI launch without MPI_Init: its part is in $WORK/fb/job.part-00000$r.siot$" fb.err ||
        { cat fb.err >&2; fail "fallback: rank $r does not say where its part is"; }
done
[ "$(grep -c '^siotrace:' fb.err)" = 4 ] || { cat fb.err >&2; fail "fallback: not one line per process"; }
echo "   unwritable trace directory: the parts in the working directory, each rank says so"
pass "PMPI_Init/PMPI_Finalize under mpirun -np 4: 4 parts, one line, merged into 4 ranks, replayed with the same files; MPI_Finalize merges with the right ranks; fallback parts"
