"""one_event_per_site.py MERGED.txt RANK.txt...: the ranks' events merged
into one event per call site: in the `siot dump` of the job's trace, no
(function, call site) has more event nodes than in the dump of any single
rank's own trace (a rank's trace may itself hold a site twice, e.g. when a
loop's first iteration differs). Call sites are compared by their frames."""
import re
import sys
from collections import Counter


def load(path):
    text = open(path).read()
    body, _, tail = text.partition("\ncall sites")
    frames = {}
    for line in tail.splitlines():
        m = re.match(r"\s*s(\d+):\s*(.*)", line)
        if m:
            frames[int(m.group(1))] = m.group(2).strip()
    count = Counter()
    for line in body.splitlines():
        m = re.match(r"\s*(?:\[r[^\]]*\] )?([A-Za-z_][A-Za-z_0-9]*)\(.*@s(\d+)", line)
        if m:
            count[(m.group(1), frames.get(int(m.group(2)), m.group(2)))] += 1
    return count


merged = load(sys.argv[1])
ranks = [load(p) for p in sys.argv[2:]]
if not merged or not ranks:
    sys.exit("one_event_per_site: nothing to compare")
bad = {k[0]: (v, max(r.get(k, 0) for r in ranks)) for k, v in merged.items() if v > max(r.get(k, 0) for r in ranks)}
if bad:
    sys.exit("one_event_per_site: (merged nodes, most in one rank) per site: %s" % bad)
print("one_event_per_site: %d call sites, none split by the merge" % len(merged))
