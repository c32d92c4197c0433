"""The call-site section of a trace against the size the tree form of format
minor 1 (docs/format.md) allows, from the sites `siot dump` lists:

    site_tree_bound.py DUMP SECTION_BYTES

Counts the sites S, their frames T, the distinct frames F and the distinct
chains of frames from the outermost one N (the tree's nodes), and checks
that the section is at most what the tree takes when every number is at its
widest (module deltas 1 byte, offsets 7, node distances and indices and
frame indices 3 bytes each; the module paths as `siot dump` lists them)
and below the module table plus 2 bytes a frame, the least the flat form
of minor 0 took. Prints the counts."""
import re
import sys


def uvar_len(v):
    n = 1
    while v >= 128:
        v >>= 7
        n += 1
    return n


def main():
    dump, section = sys.argv[1], int(sys.argv[2])
    sites, modules = [], []
    part = None
    with open(dump) as f:
        for line in f:
            if line.startswith("call sites") or line.startswith("modules:"):
                part = line[0]
                continue
            m = re.match(r"^  s(\d+): ?(.*)$", line) if part == "c" else None
            if m:
                sites.append(tuple(m.group(2).split()))
            elif part == "m" and line.startswith("  "):
                modules.append(line[2:].rstrip("\n").encode())
    paths = uvar_len(len(modules)) + sum(uvar_len(len(p)) + len(p) for p in modules)
    if not sites:
        print("no call sites in the dump")
        return 1
    frames = {fr for s in sites for fr in s}
    chains = {s[k:] for s in sites for k in range(len(s))}
    S, T, F, N = len(sites), sum(len(s) for s in sites), len(frames), len(chains)
    payload = paths + uvar_len(F) + F * (1 + 7) + uvar_len(N) + N * (3 + 3) + uvar_len(S) + S * 3
    bound = 1 + uvar_len(payload) + payload + 4
    print("   %d sites of %d frames: %d distinct frames, %d tree nodes; section %d bytes, tree bound %d, "
          "flat at least %d" % (S, T, F, N, section, bound, paths + 2 * T))
    flat = paths + 2 * T
    ok = section <= bound and section < flat
    if not ok:
        print("call-site section of %d bytes: over the tree's bound %d or the flat form's least %d" %
              (section, bound, flat))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
