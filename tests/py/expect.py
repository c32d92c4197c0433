"""expect.py TRACE.jsonl SPEC.json: the trace's events of one rank equal a
list written by hand in the test: [[func, {args}, ret], ...]. A value "*"
matches anything; "=NAME" binds the first value seen and requires the same
value later. Only events whose func is named in the list are compared when
the spec has "only_funcs": true.
"""
import json
import sys

trace = [json.loads(l) for l in open(sys.argv[1])]
spec = json.load(open(sys.argv[2]))
rank = spec.get("rank", 0)
want = spec["events"]
evs = [e for e in trace if e["rank"] == rank]
if spec.get("top_only"):
    evs = [e for e in evs if e["parent"] == -1]
names = {w[0] for w in want}
if spec.get("only_funcs"):
    evs = [e for e in evs if e["func"] in names]
bound = {}


def match(got, exp, where):
    if exp == "*":
        return
    if isinstance(exp, str) and exp.startswith("="):
        if exp in bound:
            exp = bound[exp]
        else:
            bound[exp] = got
            return
    if got != exp:
        sys.exit("expect: %s: got %r, expected %r" % (where, got, exp))


if len(evs) != len(want):
    sys.exit("expect: %d events, expected %d:\n  got  %s\n  want %s" % (
        len(evs), len(want), [e["func"] for e in evs], [w[0] for w in want]))
for e, (func, args, ret) in zip(evs, want):
    where = "seq %d %s" % (e["seq"], e["func"])
    match(e["func"], func, where)
    if set(e["args"]) != set(args):
        sys.exit("expect: %s: argument names %s, expected %s" % (where, sorted(e["args"]), sorted(args)))
    for k, v in args.items():
        match(e["args"][k], v, where + " " + k)
    match(e["ret"], ret, where + " ret")
print("expect: %d events match" % len(evs))
