"""events.py: the events of `siot dump --jsonl` output, for the tests'
inline checks (PYTHONPATH=tests/py): by_rank(NAME) -> {rank: [event, ...]}
in each rank's program order; children and ancestor follow an event's
calls down and up its layers."""
import json


def by_rank(name):
    ev = {}
    for line in open(name):
        e = json.loads(line)
        ev.setdefault(e["rank"], []).append(e)
    return ev


def children(ev, e, layer):
    """the events of layer that e called itself (ev: all the events)"""
    return [c for c in ev if c["rank"] == e["rank"] and c["parent"] == e["seq"] and c["layer"] == layer]


def ancestor(by, e, layer):
    """the nearest call of layer that e was made inside (by: {(rank, seq):
    event}), or None"""
    while e["parent"] >= 0:
        e = by[(e["rank"], e["parent"])]
        if e["layer"] == layer:
            return e
    return None
