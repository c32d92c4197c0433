"""check_rank_summary.py SRC P K SUM ALL ONE

tests/progs/imbalance.c at P ranks, traced twice: SUM.* with
SIOT_RANK_TIMES=K (a summary and the (rank, value) of the K fastest and
slowest ranks of each quantity, no rows), ALL.* with SIOT_RANK_TIMES=all
(every rank's row), ONE.* with SIOT_RANK_TIMES=1 (one extreme a side). Files
NAME.json, .csv, .txt (siot stats), .findings.json, .findings.txt, .html,
.dump, .sizes. Values known from the source: rank r sleeps r*STEP_MS ms
before each of ITERS Allreduce calls, so its computation is at least that
(less 1% for clock rounding and the file's rounding, ROUNDING), and it waits at least half of the
(P-1-r)*STEP_MS*ITERS ms the source gives it (the margin test 66 uses on a
busy machine); the ranks with the most computation are the last K, the most
waiting the first K (the ranks are STEP_MS*ITERS = 300 ms apart); the rows form lists the
8 fastest and slowest of every rank's row."""
import csv
import json
import re
import sys

src, P, K = open(sys.argv[1]).read(), int(sys.argv[2]), int(sys.argv[3])
SUM, ALL, ONE = sys.argv[4:7]
C = {m.group(1): int(m.group(2)) for m in re.finditer(r"#define (\w+) (\d+)", src)}
STEP = C["STEP_MS"] * 1e-3 * C["ITERS"]  # seconds of sleep per rank number
errors = []


def check(cond, what):
    if not cond:
        errors.append(what)


def sleep(r):
    return r * STEP


def wait(r):
    return (P - 1 - r) * STEP


def extremes(q, name, key, ranks, bound):
    got = [e["rank"] for e in q[key]]
    check(len(got) == len(ranks) and set(got) == set(ranks), "%s %s ranks %s, the source says %s" % (name, key, got, ranks))
    vals = [e["s"] for e in q[key]]
    check(vals == sorted(vals, reverse=(key == "slowest")), "%s %s not most extreme first: %s" % (name, key, vals))
    for e in q[key]:
        check(bound(e["rank"], e["s"]), "%s %s rank %d: %.4f s against the source" % (name, key, e["rank"], e["s"]))
    print("   %-14s %s: %s" % (name, key, ", ".join("%d %.3f s" % (e["rank"], e["s"]) for e in q[key])))


# A file keeps times with 10-bit mantissas (docs/format.md, flag 16), and a
# rank's computation is its span less its MPI time, each up to about
# (P-1)*STEP: known to within 2^-10 of each (rank 1 of 12 once read 0.1979 s
# for its 0.2 s of sleep, beyond the 1% alone).
ROUNDING = 2 * (P - 1) * STEP / 1024


def comp_ok(r, s):
    return 0.99 * sleep(r) - ROUNDING <= s <= 2 * sleep(r) + 1.0


def wait_ok(r, s):
    return 0.5 * wait(r) <= s <= wait(r) + 0.5 * (P - 1) * STEP + 1.0


def check_summary(rt, name):
    check(rt["ranks"] == P, "%s: %s ranks, want %d" % (name, rt["ranks"], P))
    for qn, q in rt["quantities"].items():
        n = sum(c for _, c in q["hist"])
        check(n == P, "%s %s: histogram of %d ranks, want %d" % (name, qn, n, P))
        check(q["min_s"] <= q["mean_s"] <= q["max_s"], "%s %s: mean outside min and max" % (name, qn))
        # the file keeps times to 0.1%, and a rank's computation is derived from its rounded times
        tol = 2e-3 * q["max_s"] + 1e-6
        check(abs(q["max_s"] - q["slowest"][0]["s"]) <= tol and abs(q["min_s"] - q["fastest"][0]["s"]) <= tol,
              "%s %s: min, max not the extremes' values" % (name, qn))
    comp, coll = rt["quantities"]["compute"], rt["quantities"]["mpi_collective"]
    k = min(rt["keep"], P)  # the rows form lists the default 8
    extremes(comp, name + " compute", "slowest", list(range(P - k, P)), comp_ok)
    extremes(comp, name + " compute", "fastest", list(range(k)), comp_ok)
    extremes(coll, name + " wait", "slowest", list(range(k)), wait_ok)
    extremes(coll, name + " wait", "fastest", list(range(P - k, P)), wait_ok)
    mean = sum(sleep(r) for r in range(P)) / P
    check(0.99 * mean <= comp["mean_s"] <= 2 * mean + 1.0, "%s: mean computation %.4f, sleeps' mean %.4f"
          % (name, comp["mean_s"], mean))


stats = {n: json.load(open(n + ".json")) for n in (SUM, ALL)}
s, a = stats[SUM]["rank_times"], stats[ALL]["rank_times"]
check(s["form"] == "summary" and s["keep"] == K and s["rows"] == 0, "%s: form %s keep %s rows %s" %
      (SUM, s["form"], s["keep"], s["rows"]))
check(a["form"] == "rows" and a["rows"] == P, "%s: form %s rows %s" % (ALL, a["form"], a["rows"]))
check(all("time_s" in stats[ALL]["ranks"][r] for r in range(P)), "%s: a rank without its row" % ALL)
check_summary(s, "summary")
check_summary(a, "rows")

# the text, CSV, dump and sizes say which form they read
form = "summary of %d ranks; extremes exact" % P
text = open(SUM + ".txt").read()
check("Time per rank (%s)" % form in text and "Slowest and fastest ranks (%d of each, exact)" % K in text,
      "siot stats does not say it read a summary")
check("Time per rank (each rank's own)" in open(ALL + ".txt").read(), "siot stats of =all shows no per-rank table")
rows = {(x["name"], x["metric"]): x["value"] for x in csv.DictReader(open(SUM + ".csv")) if x["section"] == "rank_times"}
check(rows.get(("compute", "slowest1_rank")) == str(s["quantities"]["compute"]["slowest"][0]["rank"]) and
      rows.get(("", "ranks")) == str(P), "CSV rank_times rows disagree with the JSON")
check(("rank times: %s" % form) in open(SUM + ".dump").read(), "siot dump does not say the trace holds a summary")
sizes = {n: re.search(r"rank times (\d+) \(([^)]*)\)", open(n + ".sizes").read()) for n in (SUM, ALL)}
check(sizes[SUM] and sizes[SUM].group(2).endswith("summary of %d ranks" % P), "dump --sizes: %s" %
      (sizes[SUM] and sizes[SUM].group(2)))
check(sizes[ALL] and sizes[ALL].group(2) == "%d ranks" % P, "dump --sizes of =all: %s" % (sizes[ALL] and sizes[ALL].group(2)))

# findings and the report name the slowest rank and the most waiting one
for n in (SUM, ALL):
    f = {x["id"]: x for x in json.load(open(n + ".findings.json"))["findings"]}.get("rank-wait")
    check(f is not None, "%s: no rank-wait finding" % n)
    if f:
        ev = f["evidence"]
        check(ev["slowest_rank"] == P - 1 and ev["most_waiting_rank"] == 0 and ev["ranks"] == P,
              "%s rank-wait: %s" % (n, ev))
        check(comp_ok(P - 1, ev["compute_s"]) and ev["wait_s"] >= 0.5 * wait(0), "%s rank-wait times: %s" % (n, ev))
        print("   %s findings: %s" % (n, f["summary"]))
check(form in open(SUM + ".findings.txt").read(), "siot findings does not say it read a summary")
html = open(SUM + ".html").read()
check("Slowest rank: <b>rank %d</b>" % (P - 1) in html and form in html, "the report does not name the slowest rank")

# the report's table of extremes: the slowest ranks' computation, exact, the
# slowest first, as siot stats --json gives them, and the least and most
quant = s["quantities"]["compute"]
row = re.search(r'<tr data-key="compute">(.*?)</tr>', html)
slow_cells = re.findall(r'data-rank="(\d+)" data-ns="(\d+)"', row.group(1).split('data-key="slowest"')[1].split("</td>")[0]) if row else []
check([int(r) for r, _ in slow_cells] == [e["rank"] for e in quant["slowest"]] and
      [int(r) for r, _ in slow_cells][:1] == [P - 1], "the report's slowest ranks: %s" % slow_cells)
check(all(comp_ok(int(r), int(ns) * 1e-9) for r, ns in slow_cells), "the report's slowest computations: %s" % slow_cells)
check("least of each column" in html and "most of each column" in html, "the report shows only the mean of the summary")

# siot merge of the ranks' own traces: the same summary (no rows past 2K)
parts = json.load(open("parts.json"))["rank_times"]
check(parts == s, "siot merge of the parts: rank times %s, the job's %s" % (
    {k: parts[k] for k in ("form", "keep", "rows", "ranks")}, {k: s[k] for k in ("form", "keep", "rows", "ranks")}))

# with one extreme a side: the slowest is still named, exactly
one = json.load(open(ONE + ".json"))["rank_times"]
check(one["form"] == "summary" and one["keep"] == 1 and one["rows"] == 0, "%s: form %s keep %s rows %s" %
      (ONE, one["form"], one["keep"], one["rows"]))
check([e["rank"] for e in one["quantities"]["compute"]["slowest"]] == [P - 1], "%s: slowest %s" %
      (ONE, one["quantities"]["compute"]["slowest"]))
html = open(ONE + ".html").read()
check("Slowest rank: <b>rank %d</b>" % (P - 1) in html and "Where each rank's time went (%s)" % form in html,
      "the report of %s does not name the slowest rank" % ONE)
f = {x["id"]: x for x in json.load(open(ONE + ".findings.json"))["findings"]}.get("rank-wait")
check(f is not None and f["evidence"]["slowest_rank"] == P - 1 and f["evidence"]["most_waiting_rank"] == 0,
      "%s rank-wait: %s" % (ONE, f and f["evidence"]))
print("   SIOT_RANK_TIMES=1: a summary of %d ranks, %d rows" % (one["ranks"], one["rows"]))

# the Python reader gives the same summary
try:
    import siotrace
    t = siotrace.open(SUM + ".siot")
    check(t.rank_times() == s, "the Python reader's rank_times() differs from siot stats --json")
except ImportError as e:
    errors.append("the Python reader: %s" % e)
print("   rank times: %s B (%s), %s B (%s)" % (sizes[SUM].group(1), sizes[SUM].group(2), sizes[ALL].group(1),
                                             sizes[ALL].group(2)))
if errors:
    sys.exit("\n".join(errors))
