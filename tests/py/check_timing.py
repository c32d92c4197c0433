"""check_timing.py RUN_DIR...: the recorded times of tests/progs/gaps.c
against the program's own clock. Each RUN_DIR holds dump.txt (siot dump of
the run's trace), out.txt (what the program printed: "gap COUNT min max",
"call COUNT min" and "open first NS", ns) and plain.txt (the same from the
untraced program).

The recorded computation of a call spans from the moment the tracer handed
the thread back after the previous call to the moment the call started, so it
contains the program's own gap (from its clock read after the previous call
returned to its read before this call): in every run, recorded comp min >=
the program's gap min and recorded comp max >= the program's gap max (less
the dump's printed precision). It must also not contain the tracer's work:
recorded comp min <= program's gap min + max(1 us, 10%) (in one of the runs
at least: a preemption inside the wrapper of the one call with the smallest
gap can add to it; the tracer's own cost would be in every run).
The recorded duration is inside the program's timed call: dur min <= the
program's call min. The stack walk is outside it: at depth 40 the recorded
dur min is within max(250 ns, 15%) of that at depth 1 (in one run at least;
a walk of 40 frames inside the duration adds about 700 ns).
The first open (the tracer builds its tables then, about a millisecond the
program sees) records no more than 2 x + 50 us the first open of the
untraced program or the mean of the later opens of the same runs,
whichever is larger (the smallest of the runs of each): on a loaded
machine every open can take tens of microseconds (a CI run: the first
78 us, untraced 19 us, the later ones 30 us), while the set-up inside the
duration adds a millisecond.
"""
import re
import sys

UNIT = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
failures = []


def ns(text):
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", text)
    if not m:
        raise ValueError("not a time: %r" % text)
    return float(m.group(1)) * UNIT[m.group(2)]


def slack(value):
    """how far the true time may be from the value the dump prints: half a
    unit of the last printed digit of siot_fmt_ns(value), plus the trace
    file's rounding of a histogram's min and max (10 significant bits, to
    nearest: at most value/1024; docs/format.md)"""
    if value < 1e3:
        printed = 0.5
    elif value < 1e6:
        printed = 5.0
    elif value < 1e9:
        printed = 5e3
    else:
        printed = 5e5
    return printed + value / 1024


def hist(line, label):
    """(n, mean, min, max) of LABEL={...} or LABEL=X in a dump line"""
    m = re.search(r" %s=\{n=(\d+) mean=(\S+) sd=\S+ min=(\S+) max=([^@]+)@" % label, line)
    if m:
        return int(m.group(1)), ns(m.group(2)), ns(m.group(3)), ns(m.group(4))
    m = re.search(r" %s=(\S+)" % label, line)
    if not m:
        return None
    v = ns(m.group(1))
    return 1, v, v, v


def combine(hs):
    hs = [h for h in hs if h]
    n = sum(h[0] for h in hs)
    return n, sum(h[0] * h[1] for h in hs) / n, min(h[2] for h in hs), max(h[3] for h in hs)


def read_run(d):
    dump = open(d + "/dump.txt").read().splitlines()
    prog = {}
    for line in open(d + "/out.txt"):
        w = line.split()
        prog[(w[0], w[1])] = [int(x) for x in w[2:]]
    for line in open(d + "/plain.txt"):
        w = line.split()
        prog[("plain " + w[0], w[1])] = [int(x) for x in w[2:]]
    rec = {}
    for count in (11, 22, 33, 44, 55):
        lines = [l for l in dump if "pwrite(" in l and "count=%d," % count in l]
        if not lines:
            failures.append("%s: no pwrite of count %d in the dump" % (d, count))
            continue
        rec[count] = (combine(hist(l, "comp") for l in lines), combine(hist(l, "dur") for l in lines))
    first = [l for l in dump if " open(" in l and "/first" in l]
    later = [l for l in dump if " open(" in l and "later" in l]
    if len(first) != 1 or not later:
        failures.append("%s: the first open and the later opens not found in the dump" % d)
    else:
        rec["first"] = hist(first[0], "dur")[1]
        rec["later"] = combine(hist(l, "dur") for l in later)
        if rec["later"][0] != 20:
            failures.append("%s: %d later opens recorded, the program made 20" % (d, rec["later"][0]))
    return rec, prog


def fmt(v):
    return "%.0fns" % v if v < 1e4 else "%.1fus" % (v / 1e3)


runs = [read_run(d) for d in sys.argv[1:]]
if failures:
    print("\n".join(failures))
    sys.exit(1)

names = {11: "back to back", 22: "50 us computed", 33: "2 ms asleep"}
for count, name in names.items():
    upper_ok = False
    for i, (rec, prog) in enumerate(runs):
        (n, _, cmin, cmax), _ = rec[count]
        gmin, gmax = prog[("gap", str(count))]
        print("   %-14s run %d: program gap min %s max %s; recorded comp min %s max %s" %
              (name, i, fmt(gmin), fmt(gmax), fmt(cmin), fmt(cmax)))
        if cmin + slack(cmin) < gmin:
            failures.append("%s: recorded comp min %s below the program's gap %s" % (name, fmt(cmin), fmt(gmin)))
        if cmax + slack(cmax) < gmax:
            failures.append("%s: recorded comp max %s below the program's gap %s" % (name, fmt(cmax), fmt(gmax)))
        if cmin - slack(cmin) <= gmin + max(1000, 0.1 * gmin):
            upper_ok = True
    if not upper_ok:
        failures.append("%s: recorded comp min exceeds the program's gap by more than max(1 us, 10%%) in every run" % name)

depth_ok = False
for i, (rec, prog) in enumerate(runs):
    d1 = rec[44][1][2]
    d40 = rec[55][1][2]
    c1, c40 = prog[("call", "44")][0], prog[("call", "55")][0]
    print("   depth 1 vs 40 run %d: recorded dur min %s vs %s; program's call (wrapper included) min %s vs %s" %
          (i, fmt(d1), fmt(d40), fmt(c1), fmt(c40)))
    for count, d, c in ((44, d1, c1), (55, d40, c40)):
        if d - slack(d) > c:
            failures.append("count %d: recorded dur min %s longer than the program's whole call %s" % (count, fmt(d), fmt(c)))
    if d40 - slack(d40) <= d1 + max(250, 0.15 * d1):
        depth_ok = True
if not depth_ok:
    failures.append("the recorded duration grows with the stack depth (the walk is inside it) in every run")

first = min(r["first"] for r, _ in runs)
seen = min(p[("open", "first")][0] for _, p in runs)
plain = min(p[("plain open", "first")][0] for _, p in runs)
later = min(r["later"][1] for r, _ in runs)
print("   first open: recorded dur %s, untraced %s, the traced program's own clock %s (smallest of %d runs);"
      " later opens: recorded mean %s" % (fmt(first), fmt(plain), fmt(seen), len(runs), fmt(later)))
if first > 2 * max(plain, later) + 50e3:
    failures.append("the first open records %s, untraced it takes %s, the later ones %s: the tracer's set-up is "
                    "inside it" % (fmt(first), fmt(plain), fmt(later)))

if failures:
    print("\n".join(failures))
    sys.exit(1)
