"""check_rank_times.py SRC P STATS.json STATS.csv STATS.txt REPORT.html

tests/progs/imbalance.c: after the ranks meet by point-to-point messages,
rank r computes (sleeps) r*STEP_MS ms before each of ITERS MPI_Allreduce
calls, so it waits about (P-1-r)*STEP_MS ms in each. The checks hold on a
busy machine (make check-under-load), where a rank waking from its sleep can
wait for a core for a time slice or more, so they are bounds and orders
computed within the run, not absolute times with a slack:
- a sleep lasts at least what it asks: rank r's recorded computation is at
  least r*STEP_MS*ITERS ms (less 1%, for the clocks' rounding), and rank 0's
  (it never sleeps) is under a quarter of its collective wait;
- the collective waits fall with the rank, and rank 0 waits at least half of
  the (P-1)*STEP_MS*ITERS ms the source gives it more than rank P-1;
- the steps span the same time on every rank (they end together in each
  Allreduce): computation + collective wait agree within 25% across ranks;
- the span is computation + I/O + MPI + MPI init;
then that the CSV, the report's "Time per rank" chart and its table of where
each rank's time went carry the same numbers, and that the text shows the
table."""
import csv
import json
import re
import sys

src, P = open(sys.argv[1]).read(), int(sys.argv[2])
C = {m.group(1): int(m.group(2)) for m in re.finditer(r"#define (\w+) (\d+)", src)}
ITERS, STEP = C["ITERS"], C["STEP_MS"] * 1e-3
stats = json.load(open(sys.argv[3]))
errors = []
coll, comp = [], []
for r in range(P):
    row = stats["ranks"][r]
    t = row.get("time_s")
    if t is None:
        sys.exit("rank %d: no time_s in stats --json" % r)
    want_wait, want_comp = (P - 1 - r) * STEP * ITERS, r * STEP * ITERS
    got_wait, got_comp = t["mpi_collective"], t["compute"]
    print("   rank %d: MPI collective %.1f ms (source: %.0f), computation %.1f ms (source: %.0f)"
          % (r, got_wait * 1e3, want_wait * 1e3, got_comp * 1e3, want_comp * 1e3))
    if got_comp < 0.99 * want_comp:
        errors.append("rank %d computes %.4f s, less than the %.4f s it sleeps" % (r, got_comp, want_comp))
    if abs(t["span"] - (t["compute"] + t["io"] + t["mpi"] + t["mpi_init"])) > 0.01 * t["span"] + 1e-6:
        errors.append("rank %d: span %.6f is not computation + I/O + MPI + MPI init" % (r, t["span"]))
    if t["io"] <= 0 or t["layer_posix"] <= 0:
        errors.append("rank %d: its pwrite calls took no time" % r)
    coll.append(got_wait)
    comp.append(got_comp)
if not comp[0] < 0.25 * coll[0]:
    errors.append("rank 0 never sleeps, yet computes %.4f s against %.4f s of collective wait" % (comp[0], coll[0]))
if any(coll[r] <= coll[r + 1] for r in range(P - 1)):
    errors.append("the collective waits do not fall with the rank: %s" % coll)
if not coll[0] - coll[P - 1] >= 0.5 * (P - 1) * STEP * ITERS:
    errors.append("rank 0 waits %.4f s more than rank %d, the source says %.4f" %
                  (coll[0] - coll[P - 1], P - 1, (P - 1) * STEP * ITERS))
steps = [comp[r] + coll[r] for r in range(P)]
if max(steps) > 1.25 * min(steps):
    errors.append("the steps' computation + collective wait differ between ranks: %s" % steps)

rows = {(int(x["name"]), x["metric"]): float(x["value"]) for x in csv.DictReader(open(sys.argv[4]))
        if x["section"] == "rank"}
for r in range(P):
    for k in ("mpi_collective", "compute", "span"):
        want = stats["ranks"][r]["time_s"][k]
        # the CSV leaves out what is zero (rank 0's computation can be, at
        # the trace's resolution: it never sleeps)
        got = rows.get((r, "time_%s_s" % k), None if want > 0 else 0.0)
        if got is None or abs(got - want) > 1e-9 * max(1, want):
            errors.append("CSV rank %d time_%s_s %s, JSON %s" % (r, k, got, want))

text = open(sys.argv[5]).read()
if "Time per rank (each rank's own)" not in text or "MPI collective" not in text:
    errors.append("siot stats shows no per-rank time table")

UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
html = open(sys.argv[6]).read()
chart = {}
for m in re.finditer(r"<title>rank (\d+) MPI: ([\d.]+)(ns|us|ms|s)</title>", html):
    chart[int(m.group(1))] = float(m.group(2)) * UNIT[m.group(3)]
for r in range(P):
    want = stats["ranks"][r]["time_s"]["mpi"]
    got = chart.get(r)
    if want > 1e-3 and (got is None or abs(got - want) > 0.01 * want):
        errors.append("report: rank %d MPI %s s, stats %s s" % (r, got, want))
# the report's table of where each rank's time went: the same numbers as stats --json
table = re.search(r'<table class="shares">(.*?)</table>', html, re.S)
rows = re.findall(r"<tr><td>(\d+)</td>(.*?)</tr>", table.group(1)) if table else []
if len(rows) != P:
    errors.append("report: %d rows in the time-share table, not %d" % (len(rows), P))
for rank, cells in rows:
    t = stats["ranks"][int(rank)]["time_s"]
    for key, ns in re.findall(r'data-key="(\w+)" data-ns="(\d+)"', cells):
        # stats --json prints 9 significant digits: past 1 s, tens of ns
        if abs(float(ns) - t[key] * 1e9) > max(2.0, 1e-8 * float(ns)):
            errors.append("report: rank %s %s %s ns, stats %s s" % (rank, key, ns, t[key]))
    share = re.search(r'data-key="io_share">([\d.]+)%', cells)
    if not share or abs(float(share.group(1)) - 100 * t["io"] / t["span"]) > 0.051:
        errors.append("report: rank %s I/O share %s, stats %.3f%%" % (rank, share and share.group(1), 100 * t["io"] / t["span"]))
if errors:
    sys.exit("\n".join(errors))
