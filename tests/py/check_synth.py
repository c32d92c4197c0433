"""Synthesised times that never contradict themselves (issue 20): in a CSV
and a Chrome export of one trace, every child (an event whose parent is an
enclosing traced call: a ROMIO pwrite under MPI_File_write_all, H5Dwrite ->
MPI-IO -> pwrite) lies inside its parent's [start, start+dur]; no event of a
function whose recorded minimum duration is positive (from `siot dump`, the
histograms the recorder measured) lasts zero; per rank and thread, starts
follow program order; and the Chrome metadata says the times are
synthesised, with a per-rank end equal to the rank's last event's end.
Tolerances are the outputs' rounding: 1 ns in CSV, 0.001 us in Chrome.

usage: check_synth.py DUMP.txt CSV CHROME.json NAME"""
import csv
import json
import re
import sys

dump_txt, cs, ch, name = sys.argv[1:5]
UNIT = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}


def ns(text):
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", text)
    return float(m.group(1)) * UNIT[m.group(2)]


# the least recorded duration of each function, over all its nodes
fmin = {}
for line in open(dump_txt):
    m = re.match(r"\s*(?:\[r[^\]]*\] )?([A-Za-z_]\w*)\(.* dur=(\{[^}]*\}|\S+)\s*$", line)
    if not m:
        continue
    d = m.group(2)
    lo = ns(re.search(r"min=(\S+)", d).group(1)) if d.startswith("{") else ns(d)
    fmin[m.group(1)] = min(lo, fmin.get(m.group(1), lo))
if not fmin:
    sys.exit("%s: no event with a duration in the dump" % name)


def check(form, evs, tol):
    """evs: dicts rank, seq, func, parent, thread, start, dur (ns)."""
    by = {(e["rank"], e["seq"]): e for e in evs}
    children = zero = 0
    for e in evs:
        if e["dur"] <= 0 and fmin.get(e["func"], 0) > 0:
            sys.exit("%s %s: rank %d event %d (%s) lasts %g ns; its function's recorded minimum is %g ns"
                     % (name, form, e["rank"], e["seq"], e["func"], e["dur"], fmin[e["func"]]))
        zero += e["dur"] <= 0
        if e["parent"] < 0:
            continue
        p = by.get((e["rank"], e["parent"]))
        if p is None:
            sys.exit("%s %s: rank %d event %d: parent %d is not exported" % (name, form, e["rank"], e["seq"], e["parent"]))
        if e["start"] < p["start"] - tol or e["start"] + e["dur"] > p["start"] + p["dur"] + tol:
            sys.exit("%s %s: rank %d event %d (%s) at [%g, %g] ns outside its parent %d (%s) at [%g, %g] ns"
                     % (name, form, e["rank"], e["seq"], e["func"], e["start"], e["start"] + e["dur"], p["seq"],
                        p["func"], p["start"], p["start"] + p["dur"]))
        children += 1
    last = {}
    for e in sorted(evs, key=lambda e: (e["rank"], e["seq"])):
        k = (e["rank"], e["thread"])
        if k in last and e["start"] < last[k]["start"] - tol:
            sys.exit("%s %s: rank %d event %d starts at %g ns, before event %d of the same thread (%g ns)"
                     % (name, form, e["rank"], e["seq"], e["start"], last[k]["seq"], last[k]["start"]))
        last[k] = e
    return children, zero


rows = list(csv.DictReader(open(cs)))
evs = [{"rank": int(r["rank"]), "seq": int(r["seq"]), "func": r["func"], "parent": int(r["parent"]),
        "thread": int(r["thread"]), "start": float(r["start_ns"]), "dur": float(r["dur_ns"])} for r in rows]
nc, _ = check("CSV", evs, 1.0)
doc = json.load(open(ch))
xs = [e for e in doc["traceEvents"] if e["ph"] == "X"]
cev = [{"rank": e["pid"], "seq": e["args"]["seq"], "func": e["name"], "parent": e["args"]["parent"],
        "thread": e["tid"], "start": e["ts"] * 1e3, "dur": e["dur"] * 1e3} for e in xs]
# Chrome's ts and dur are printed in us to 3 decimals: each rounds to 1 ns,
# so a child's end (ts + dur) and its parent's can each move by 1 ns
check("Chrome", cev, 2.0)
if len(cev) != len(evs):
    sys.exit("%s: %d CSV rows, %d Chrome events" % (name, len(evs), len(cev)))
# the metadata: synthesised, and each rank's end as its events end
other = doc.get("otherData", {})
if "synthesised" not in other.get("times", ""):
    sys.exit("%s Chrome: otherData does not say the times are synthesised" % name)
ends = {}
for e in cev:
    ends[e["rank"]] = max(ends.get(e["rank"], 0), e["start"] + e["dur"])
ranks = {r["rank"]: r for r in other.get("synthesis", [])}
if set(ranks) != set(ends):
    sys.exit("%s Chrome: otherData.synthesis covers ranks %s, the events %s" % (name, sorted(ranks), sorted(ends)))
# an end is a start plus a duration, each printed to 1 ns: 2 ns apart at most
# (with the float error of adding them, seen: 1.0000002 ns at 2.1e9 ns)
for r, end in ends.items():
    if abs(ranks[r]["end_ns"] - end) > 2.0:
        sys.exit("%s Chrome: rank %d ends at %g ns, otherData says %g" % (name, r, end, ranks[r]["end_ns"]))
# each rank's own span (the trace's per-rank times) beside its synthesised end, and the bound said
spans = [abs(x["end_ns"] - x["span_ns"]) / x["span_ns"] for x in ranks.values() if x.get("span_ns")]
if len(spans) != len(ranks) or abs(other.get("max_span_error", -1) - max(spans)) > 1e-5 * max(1, max(spans)):
    sys.exit("%s Chrome: max_span_error %s, the ranks' ends against their spans give %s"
             % (name, other.get("max_span_error"), max(spans) if spans else None))
print("   synth %s: %d events, %d children inside their parents, no zero duration where the recorded minimum is"
      " positive, program order per thread, per-rank ends in otherData, ends within %.1f%% of the ranks' spans"
      % (name, len(evs), nc, 100 * max(spans)))
