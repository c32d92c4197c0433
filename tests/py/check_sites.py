"""check_sites.py BINARY PROGRAM_OUT DEPTH DUMP [DUMP_UNWIND_ALWAYS]: the call
sites recorded for tests/progs/sites.c against the program's own record.

PROGRAM_OUT is what the program printed: one line per distinct chain of
calling lines, "site CASE BYTES CALLS L0,L1,..." (innermost first: L0 the
pwrite line in put(), L1 the line put was called from, ... up to main's or a
thread function's line; "*" stands for frames outside the program, e.g. the
kernel's signal frame and libc's raise between a handler and the code it
interrupted). Each case writes its own number of bytes (BYTES).

DUMP is `siot dump` of a flat trace (SIOT_COMPRESS=0: one line per event) made
with SIOT_STACK_DEPTH=DEPTH. Every recorded site is resolved with
`addr2line -e BINARY -f -C -i -a`: the dump's offsets are module-relative and
already point into the call instruction (return address - 1, addr2line's
convention, src/stack.c map_addr), which for a PIE executable is the address
addr2line takes; for a non-PIE one the base is 0 and the offset the absolute
address, which addr2line takes too. A frame is the program's when it is in
BINARY and resolves to sites.c; its lines (inlined callers too, innermost
first) are its tokens; a run of other frames is one "*". For every pwrite
event the tokens of its site must be the program's chain for a call of that
case (followed by "*" for libc's frames above main or a thread function), or,
when the site holds DEPTH frames (the walk was cut there), a prefix of it;
exactly one of the case's chains must match; and the number of events per
chain must be the program's count.

With DUMP_UNWIND_ALWAYS (the same program under SIOT_UNWIND=always: every site
from libunwind) the two traces must hold the same events with the same sites
(module and offset of every frame): the same multiset over all threads, and
the same sequence in the main thread."""
import collections
import os
import re
import subprocess
import sys

failures = []


def read_program(path):
    """{bytes: (case, [(chain tuple, calls)])}"""
    cases = {}
    for line in open(path):
        w = line.split()
        if not w or w[0] != "site":
            continue
        name, nbytes, calls, chain = w[1], int(w[2]), int(w[3]), tuple(w[4].split(","))
        cases.setdefault(nbytes, (name, []))[1].append((chain, calls))
    if not cases:
        sys.exit("check_sites: no 'site' lines in %s" % path)
    return cases


EVENT = re.compile(r"^\[r(\d+)\] (\w+)\((.*)\)(.*) @s(\d+)(?: |$)")
SITE = re.compile(r"^  s(\d+): (.*)$")


def read_dump(path):
    """(events, sites, notes): events as dicts; sites {id: [(module path, offset)]}"""
    lines = open(path).read().splitlines()
    events, sites, notes, modules, raw_sites = [], {}, {}, [], {}
    section = "head"
    for line in lines:
        if line.startswith("call sites"):
            section = "sites"
            continue
        if line.startswith("modules:"):
            section = "modules"
            continue
        if section == "head":
            m = re.match(r"^\s+note (\w+): (.*)$", line)
            if m:
                notes[m.group(1)] = m.group(2)
            elif re.match(r"^\s*(\[r\d+\] )?loop x", line):
                sys.exit("check_sites: %s is not a flat trace (a loop: %s); SIOT_COMPRESS=0 expected" % (path, line))
            elif line.startswith("[r"):
                m = EVENT.match(line)
                if not m:
                    sys.exit("check_sites: %s: an event without a call site: %s" % (path, line))
                th = re.search(r" thread=(\d+)", m.group(4))
                key = re.sub(r" (comp|dur)=(\{[^}]*\}|\S+)", "", line)
                key = re.sub(r" thread=\d+", "", key)
                key = re.sub(r" @s\d+", "", key)
                count = re.search(r"\bcount=(\d+)", m.group(3))
                events.append({"func": m.group(2), "count": int(count.group(1)) if count else None,
                               "thread": int(th.group(1)) if th else 0, "site": int(m.group(5)),
                               "key": key, "line": line})
        elif section == "sites":
            m = SITE.match(line)
            if m:
                raw_sites[int(m.group(1))] = [f.rsplit("+", 1) for f in m.group(2).split()]
        elif section == "modules" and line.strip():
            modules.append(line.strip())
    by_base = {}
    for p in modules:
        by_base.setdefault(os.path.basename(p), p)
    for sid, frames in raw_sites.items():
        sites[sid] = [(os.path.realpath(by_base[mod]) if mod in by_base else mod, int(off, 16)) for mod, off in frames]
    return events, sites, notes


def resolve(binary, offsets):
    """{offset: [(function, file, line)]} inlined frames innermost first"""
    offsets = sorted(set(offsets))
    if not offsets:
        return {}
    out = subprocess.run(["addr2line", "-e", binary, "-f", "-C", "-i", "-a"] + ["0x%x" % o for o in offsets],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, check=True).stdout
    res, cur, lines = {}, None, out.splitlines()
    i = 0
    while i < len(lines):
        if re.fullmatch(r"0x[0-9a-f]+", lines[i]):
            cur = int(lines[i], 16)
            res[cur] = []
            i += 1
            continue
        func, where = lines[i], lines[i + 1] if i + 1 < len(lines) else "??:0"
        where = re.sub(r" \(discriminator \d+\)$", "", where)
        f, _, ln = where.rpartition(":")
        res[cur].append((func, f, int(ln) if ln.isdigit() else 0))
        i += 2
    return res


def tokens_of(site, binary, resolved, named=False):
    """the site's source lines in sites.c, innermost first, "*" for a run of
    other frames (named: "function:line")"""
    toks = []
    for mod, off in site:
        frames = resolved.get(off, []) if mod == binary else []
        lines = [("%s:%d" % (func, ln)) if named else str(ln)
                 for func, f, ln in frames if os.path.basename(f) == "sites.c" and ln > 0]
        if lines:
            toks += lines
        elif not toks or toks[-1] != "*":
            toks.append("*")
    return tuple(toks)


def matches(toks, chain, full):
    if toks == chain or toks == chain + ("*",):
        return True
    return full and 0 < len(toks) <= len(chain) and toks == chain[:len(toks)]


def elf_kind(binary):
    with open(binary, "rb") as f:
        head = f.read(18)
    return {2: "not PIE (ET_EXEC)", 3: "PIE (ET_DYN)"}.get(int.from_bytes(head[16:18], "little"), "?")


def check(binary, cases, depth, dump, verbose):
    events, sites, notes = read_dump(dump)
    label = os.path.basename(dump)
    for n in ("site_walk_mismatches",):
        if n in notes:
            failures.append("%s: note %s: %s (the learned walk disagreed with libunwind)" % (label, n, notes[n]))
    if "events_recorded" in notes and int(notes["events_recorded"]) != len(events):
        failures.append("%s: %d event lines, the note says %s recorded" % (label, len(events), notes["events_recorded"]))
    missing = {e["site"] for e in events} - set(sites)
    if missing:
        failures.append("%s: events at call sites the dump does not list: %s" % (label, sorted(missing)))
        return events, sites
    resolved = resolve(binary, [off for s in sites.values() for mod, off in s if mod == binary])
    toks = {sid: tokens_of(s, binary, resolved) for sid, s in sites.items()}
    got = {b: collections.Counter() for b in cases}
    wrong = collections.defaultdict(list)  # (bytes, tokens) -> [event]
    for e in events:
        if e["func"] != "pwrite":
            continue
        b = e["count"]
        if b not in cases:
            failures.append("%s: a pwrite of %s bytes, which the program never made: %s" % (label, b, e["line"]))
            continue
        t = toks[e["site"]]
        full = len(sites[e["site"]]) >= depth
        fits = [chain for chain, _ in cases[b][1] if matches(t, chain, full)]
        if len(fits) == 1:
            got[b][fits[0]] += 1
        else:
            wrong[(b, t, len(fits))].append(e)
    nfail = len(failures)
    for (b, t, nfit), evs in sorted(wrong.items(), key=lambda kv: kv[0][0]):
        sids = sorted({e["site"] for e in evs})
        threads = sorted({e["thread"] for e in evs})
        what = "none" if nfit == 0 else "%d of them" % nfit
        failures.append("%s: case %s: %d call(s) in thread(s) %s at site(s) %s = %s, which resolve to %s;"
                        " the program's chains for the case (%s) match %s" %
                        (label, cases[b][0], len(evs), ",".join(map(str, threads)), ",".join("s%d" % s for s in sids),
                         " ".join("%s+0x%x" % (os.path.basename(m), o) for m, o in sites[sids[0]]),
                         " < ".join(tokens_of(sites[sids[0]], binary, resolved, True)),
                         "; ".join(",".join(c) for c, _ in cases[b][1]), what))
    table = []
    for b, (name, chains) in sorted(cases.items()):
        per_line_prog, per_line_rec = collections.Counter(), collections.Counter()
        for chain, calls in chains:
            per_line_prog[chain[1]] += calls
            per_line_rec[chain[1]] += got[b][chain]
            if got[b][chain] != calls:
                failures.append("%s: case %s: %d calls recorded at the chain %s, the program made %d" %
                                (label, name, got[b][chain], ",".join(chain), calls))
        table.append("   %-10s line (calls recorded/made) %s" %
                     (name, ", ".join("%s (%d/%d)" % (ln, per_line_rec[ln], per_line_prog[ln])
                                      for ln in sorted(per_line_prog, key=int))))
    total = sum(calls for _, chains in cases.values() for _, calls in chains)
    print("   %s: %s" % (label, "the %d pwrite calls each at the program's chain of lines, as many per chain" % total
                          if len(failures) == nfail else "%d failed checks" % (len(failures) - nfail)))
    if verbose or len(failures) > nfail:
        print("\n".join(table))
    return events, sites


def compare(fast, always, fast_label, always_label):
    (ev1, s1), (ev2, s2) = fast, always

    def keys(evs, sites, main_only):
        return [(e["key"], tuple(sites.get(e["site"], ()))) for e in evs if not main_only or e["thread"] == 0]

    def where(site):
        return " ".join("%s+0x%x" % (os.path.basename(m), o) for m, o in site)

    c1, c2 = collections.Counter(keys(ev1, s1, False)), collections.Counter(keys(ev2, s2, False))
    m1, m2 = keys(ev1, s1, True), keys(ev2, s2, True)
    if c1 != c2:
        only1, only2 = c1 - c2, c2 - c1
        for (ev, site), n in list(only1.items())[:4]:
            failures.append("%s vs %s: %d x %s @ %s only in %s" % (fast_label, always_label, n, ev, where(site), fast_label))
        for (ev, site), n in list(only2.items())[:4]:
            failures.append("%s vs %s: %d x %s @ %s only in %s" % (fast_label, always_label, n, ev, where(site), always_label))
        failures.append("%s vs %s: %d events differ in event or call site (of %d and %d)" %
                        (fast_label, always_label, sum(only1.values()), len(ev1), len(ev2)))
    if m1 != m2:
        i = next((i for i, (a, b) in enumerate(zip(m1, m2)) if a != b), min(len(m1), len(m2)))
        failures.append("%s vs %s: the main thread's events differ from its event %d on (%d and %d events)" %
                        (fast_label, always_label, i, len(m1), len(m2)))
    if c1 == c2 and m1 == m2:
        print("   %s = %s: the same %d events at the same sites (the %d of the main thread in order)" %
              (fast_label, always_label, len(ev1), len(m1)))


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    binary, prog, depth = os.path.realpath(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    cases = read_program(prog)
    print("   %s: %s" % (os.path.basename(binary), elf_kind(binary)))
    fast = check(binary, cases, depth, sys.argv[4], True)
    if len(sys.argv) == 6:
        always = check(binary, cases, depth, sys.argv[5], False)
        compare(fast, always, os.path.basename(sys.argv[4]), os.path.basename(sys.argv[5]))
    if failures:
        print("\n".join(failures))
        sys.exit(1)


main()
