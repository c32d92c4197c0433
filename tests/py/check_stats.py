"""check_stats.py STATS.json TRACE.jsonl [KNOWN.json]

Every count and byte total of `siot stats --json` equals what the expanded
events (`siot dump --jsonl`) give when summed here (the calls per outermost
traced call too), and, when given, the
values known in advance from the program (KNOWN.json: {"path.to.key": value}).
Function classes (read, write, collective...) come from the spec files."""
import json
import sys
from collections import Counter, defaultdict

from specs import spec_classes


def comm_kind(c):
    base, mods = c[0], c[1:]
    if base == "coll" or "coll" in mods:
        return "collective"
    if base in ("send", "recv", "sendrecv", "probe", "wait", "test", "start"):
        return "nonblocking" if "nb" in mods or base in ("wait", "test", "start") else "blocking"
    return "other"


def fail(msg):
    sys.exit("check_stats: " + msg)


stats = json.load(open(sys.argv[1]))
events = [json.loads(l) for l in open(sys.argv[2])]
known = json.load(open(sys.argv[3])) if len(sys.argv) > 3 else {}
classes = spec_classes()
P = stats["nranks"]

fn_calls, fn_bytes = Counter(), Counter()
layer_calls, layer_read, layer_write = Counter(), Counter(), Counter()
per_rank = defaultdict(Counter)
for e in events:
    f, layer = e["func"], e["layer"]
    c = classes[f]
    b = e.get("bytes", 0) if e.get("bytes", 0) > 0 else 0
    fn_calls[f] += 1
    fn_bytes[f] += b
    layer_calls[layer] += 1
    if c[0] == "read":
        layer_read[layer] += b
    elif c[0] == "write":
        layer_write[layer] += b
    per_rank[e["rank"]][layer] += 1
    if layer == "mpi":
        per_rank[e["rank"]]["comm:" + comm_kind(c)] += 1

if stats["total_events"] != len(events):
    fail("total_events %d, the events sum to %d" % (stats["total_events"], len(events)))
if set(stats["functions"]) != set(fn_calls):
    fail("functions %s vs %s" % (sorted(stats["functions"]), sorted(fn_calls)))
for f, v in stats["functions"].items():
    if v["calls"] != fn_calls[f] or v["bytes"] != fn_bytes[f]:
        fail("%s: calls %d bytes %d, events give %d and %d" % (f, v["calls"], v["bytes"], fn_calls[f], fn_bytes[f]))
for layer, v in stats["layers"].items():
    want = (layer_calls[layer], layer_read[layer], layer_write[layer])
    got = (v["calls"], v["bytes_read"], v["bytes_written"])
    if got != want:
        fail("layer %s: calls/read/written %s, events give %s" % (layer, got, want))
    if v["rank0_calls"] != per_rank[0][layer]:
        fail("layer %s: rank0_calls %d, events give %d" % (layer, v["rank0_calls"], per_rank[0][layer]))
    if P > 1:
        others = [per_rank[r][layer] for r in range(1, P)]
        if (v["others_calls_min"], v["others_calls_max"]) != (min(others), max(others)) or \
                abs(v["others_calls_mean"] - sum(others) / len(others)) > 1e-6 * max(1.0, abs(v["others_calls_mean"])):  # printed with 9 digits
            fail("layer %s: other ranks min/mean/max differ" % layer)
# each rank's own counts, per layer and per kind of communication
if [r["rank"] for r in stats["ranks"]] != list(range(P)):
    fail("ranks section lists %s" % [r["rank"] for r in stats["ranks"]])
for r in stats["ranks"]:
    for key, n in r["calls"].items():
        layer = key in ("posix", "stdio", "mpi", "mpiio", "hdf5", "pnetcdf")
        want = per_rank[r["rank"]][key if layer else "comm:" + key]
        if n != want:
            fail("rank %d: %s calls %d, events give %d" % (r["rank"], key, n, want))
for kind, v in stats["communication"].items():
    counts = [per_rank[r]["comm:" + kind] for r in range(P)]
    if v["calls"] != sum(counts) or v["rank0"] != counts[0]:
        fail("communication %s: %s, events give %d (rank 0: %d)" % (kind, v, sum(counts), counts[0]))
    if P > 1 and (v["others_min"], v["others_max"]) != (min(counts[1:]), max(counts[1:])):
        fail("communication %s: other ranks min/max differ" % kind)
# each function's calls per outermost traced call they were made in (the
# chains siot/origin.c follows over the compressed form, by the parents)
by_seq = {(e["rank"], e["seq"]): e for e in events}
outer = Counter()
for e in events:
    r = e
    while r["parent"] >= 0:
        r = by_seq[(r["rank"], r["parent"])]
    outer[(e["func"], r["func"])] += 1
got_outer = {(c["function"], c["outermost"]): c["calls"] for c in stats["outermost"]}
if got_outer != dict(outer) or stats["calls_without_chain"]:
    fail("calls per outermost call differ: %s (%d without a chain)" % (
        sorted(set(got_outer.items()) ^ set(outer.items()))[:6], stats["calls_without_chain"]))
for path, want in known.items():
    got = stats
    for k in path.split("."):
        got = got[int(k)] if isinstance(got, list) else got.get(k) if isinstance(got, dict) else None
        if got is None:
            fail("known value %s: missing" % path)
    if got != want:
        fail("known value %s = %s, expected %s" % (path, got, want))
print("check_stats: %d events, %d functions, %d known values: ok" % (len(events), len(fn_calls), len(known)))
