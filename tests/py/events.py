"""events.py: the events of `siot dump --jsonl` output, for the tests'
inline checks (PYTHONPATH=tests/py): by_rank(NAME) -> {rank: [event, ...]}
in each rank's program order."""
import json


def by_rank(name):
    ev = {}
    for line in open(name):
        e = json.loads(line)
        ev.setdefault(e["rank"], []).append(e)
    return ev
