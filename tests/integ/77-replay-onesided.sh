#!/bin/bash
# One-sided communication and dynamic processes (tests/progs/onesided.c):
# fence epochs with MPI_Put/MPI_Get between neighbours, a passive-target
# counter with MPI_Fetch_and_op under exclusive locks, MPI_Accumulate,
# MPI_Compare_and_swap, MPI_Rput/MPI_Rget, PSCW, the MPI-4 _c forms where
# the MPI has them, then an MPI-IO write of the window's data. Each call is
# recorded as often as the program makes it, with its target rank,
# displacement, counts and bytes (the program's constants, read from its
# source), on the window the ranks agreed on; ioreplay reissues the whole
# trace faithfully and writes the same file. MPI_Open_port is recorded and
# the replay names it as not reissued, with exit status 1; so is a dynamic
# window, and the calls on it name their window's maker.
. "$(dirname "$0")/../lib.sh"
# Open MPI 4.1.4's osc/rdma component over its shared-memory transport
# (vader) crashes in MPI_Compare_and_swap, untraced as traced (segfault in
# mca_btl_vader_poll_handle_frag); its other one-sided components work.
[ "$MPI" = openmpi ] && export OMPI_MCA_osc=^rdma
build_traced onesided
P=4
SIOT_TRACE=os.siot mpirun_np $P ./onesided > /dev/null || fail "the traced program failed"
jsonl os.siot > os.jsonl
printf '#include <mpi.h>\nint version = MPI_VERSION;\n' > version.c
MPI4=0
$MPICC -E -P version.c | grep -Eq "version = [4-9]" && MPI4=1
python3 - "$ROOT/tests/progs/onesided.c" os.jsonl $P $MPI4 <<'PY' || fail "one-sided calls differ from the program's"
import json, re, sys
src, ev, P, mpi4 = open(sys.argv[1]).read(), [json.loads(l) for l in open(sys.argv[2])], int(sys.argv[3]), int(sys.argv[4])
C = {m.group(1): int(m.group(2)) for m in re.finditer(r'#define (\w+) (\d+)', src)}
N, H, S, L, CD, HD = C["WIN_N"], C["HALO"], C["NSTEPS"], C["NLOCKS"], C["COUNTER_DISP"], C["HALO_DISP"]
want = {  # function: calls per rank, as onesided.c makes them
    "MPI_Win_create": 1, "MPI_Win_allocate": 1, "MPI_Win_free": 2,
    "MPI_Put": S + 1, "MPI_Get": S, "MPI_Win_fence": 2 * S + 3 * mpi4,
    "MPI_Win_lock": L + 1, "MPI_Win_unlock": L + 1, "MPI_Fetch_and_op": L,
    "MPI_Win_lock_all": 2, "MPI_Win_unlock_all": 2, "MPI_Win_flush": 1, "MPI_Win_flush_all": 2,
    "MPI_Win_sync": 1, "MPI_Accumulate": 1, "MPI_Compare_and_swap": 1, "MPI_Rput": 1, "MPI_Rget": 1,
    "MPI_Win_post": 1, "MPI_Win_start": 1, "MPI_Win_complete": 1, "MPI_Win_wait": 1,
    "MPI_Put_c": mpi4, "MPI_Get_c": mpi4,
}
def die(r, msg):
    sys.exit("rank %d: %s" % (r, msg))
wins = set()
for r in range(P):
    mine = [e for e in ev if e["rank"] == r]
    by = {}
    for e in mine:
        by.setdefault(e["func"], []).append(e)
    for f, n in want.items():
        if len(by.get(f, [])) != n:
            die(r, "%d %s, want %d" % (len(by.get(f, [])), f, n))
    wc, wa = by["MPI_Win_create"][0]["args"], by["MPI_Win_allocate"][0]["args"]
    if (wc["size"], wc["disp_unit"], wa["size"], wa["disp_unit"]) != (N * 8, 8, N * 8, 8):
        die(r, "window sizes %s %s" % (wc, wa))
    wins.add((wc["win"], wa["win"]))
    right, left = (r + 1) % P, (r + P - 1) % P
    puts = by["MPI_Put"]
    for e in puts[:S]:  # the fence epochs; the last one is PSCW's at 0
        a = e["args"]
        if (a["target_rank"], a["target_disp"], a["origin_count"], a["target_count"], a["win"], e["bytes"]) != (right, HD, H, H, wc["win"], H * 8):
            die(r, "fence Put %s" % e)
    if (puts[S]["args"]["target_rank"], puts[S]["args"]["target_disp"]) != (right, 0):
        die(r, "PSCW Put %s" % puts[S])
    for e in by["MPI_Get"]:
        a = e["args"]
        if (a["target_rank"], a["target_disp"], a["origin_count"], e["bytes"]) != (left, 0, H, H * 8):
            die(r, "Get %s" % e)
    for e in by["MPI_Fetch_and_op"]:
        a = e["args"]
        if (a["target_rank"], a["target_disp"], a["win"], e["bytes"]) != (0, CD, wa["win"], 8):
            die(r, "Fetch_and_op %s" % e)
    cas = by["MPI_Compare_and_swap"][0]
    if (cas["args"]["target_rank"], cas["args"]["target_disp"], cas["bytes"]) != (right, CD + 2, 8):
        die(r, "Compare_and_swap %s" % cas)
    for f in ("MPI_Rput", "MPI_Rget"):
        a = by[f][0]["args"]
        if (a["target_rank"], a["target_disp"]) != (right, CD + 3):
            die(r, "%s %s" % (f, a))
    locks = [e["args"]["rank"] for e in by["MPI_Win_lock"]]
    if locks != [0] * L + [r]:
        die(r, "MPI_Win_lock ranks %s" % locks)
    if mpi4 and by["MPI_Put_c"][0]["bytes"] != H * 8:
        die(r, "MPI_Put_c %s" % by["MPI_Put_c"][0])
if len(wins) != 1:
    sys.exit("the ranks' window ids differ: %s" % wins)
print("   %d ranks: %d kinds of one-sided call, each as often as onesided.c makes it, with its targets and bytes"
      % (P, sum(1 for n in want.values() if n)))
PY
roundtrip os $P "$WORK/onesided"

# Dynamic processes: MPI_Open_port recorded whether or not this MPI offers
# ports (the program prints which), and named by the replay.
P=2
SIOT_TRACE=ports.siot mpirun_np $P ./onesided ports > ports.out || fail "the traced program (ports) failed"
opened=$(grep -c "port opened" ports.out || true)
jsonl ports.siot > ports.jsonl
n_open=$(grep -c '"func":"MPI_Open_port"' ports.jsonl || true)
n_close=$(grep -c '"func":"MPI_Close_port"' ports.jsonl || true)
[ "$n_open" = $P ] && [ "$n_close" = "$opened" ] ||
    fail "MPI_Open_port x $n_open, MPI_Close_port x $n_close; the program made $P and $opened"
rc=0
mpirun_np $P "$B/bin/ioreplay" --explain --root "$WORK/root-ports" ports.siot > ports.report 2> ports.err || rc=$?
[ $rc = 1 ] || { cat ports.report >&2; fail "ioreplay exited $rc on a trace with MPI_Open_port (want 1)"; }
grep -q "MPI_Open_port: dynamic processes" ports.report || { cat ports.report >&2; fail "MPI_Open_port not named"; }
echo "   MPI_Open_port on $P ranks ($opened opened): recorded, and named by the replay (exit 1)"
# A dynamic window (onesided.c dynamic_window): its creation and attach are
# not reissued (its operations address the target's memory by absolute
# addresses), and every call on the window says it was made by
# MPI_Win_create_dynamic, in the replay's report and in --check alike, as
# often as the program makes it (DYN_STEPS fence epochs of one Put).
SIOT_TRACE=dyn.siot mpirun_np $P ./onesided dynamic > /dev/null || fail "the traced program (dynamic) failed"
steps=$(sed -n 's/^#define DYN_STEPS \([0-9]*\)/\1/p' "$ROOT/tests/progs/onesided.c")
rc=0
mpirun_np $P "$B/bin/ioreplay" --root "$WORK/root-dyn" dyn.siot > dyn.report 2> dyn.err || rc=$?
[ $rc = 1 ] || { cat dyn.report >&2; fail "ioreplay exited $rc on a trace with a dynamic window (want 1)"; }
"$B/bin/ioreplay" --check dyn.siot > dyn.check && fail "ioreplay --check called a dynamic window replayable"
made="made by MPI_Win_create_dynamic, which is not reissued"
for f in "MPI_Win_fence $((P * 2 * steps))" "MPI_Put $((P * steps))" "MPI_Win_free $P"; do
    set -- $f
    for out in dyn.report dyn.check; do
        grep -Eq "^ +$2  $1: $made" $out || { cat $out >&2; fail "$out: not $2 x $1 '$made'"; }
    done
done
grep -Eq "^ +$P  MPI_Win_create_dynamic: a dynamic window" dyn.report || fail "MPI_Win_create_dynamic not named"
! grep -q "creation is not in the trace" dyn.report dyn.check || fail "a call on the dynamic window blamed on a missing creation"
echo "   dynamic window on $P ranks: its $((P * (3 * steps + 1))) fences, Puts and frees named as made by MPI_Win_create_dynamic (replay and --check)"
pass "one-sided communication recorded with its targets and replayed; dynamic processes and windows recorded and named"
