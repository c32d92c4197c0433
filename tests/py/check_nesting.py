"""The dump shows the stack (issue 20): a call issued by another is indented
under it, without its parent distance; --raw keeps the distances.

usage: check_nesting.py NESTED.txt RAW.txt FLAVOUR
On MPICH, known.c's MPI_File_write_at(count=100) issues one pwrite of the
same count each time (ROMIO writes it whole): that pwrite must appear one
level under it inside the loop. On both flavours, every call the raw dump
shows at parent=-1 right after an event of its own ranks (its issuer, by
the recorded distance) is indented under that event in the nested dump."""
import re
import sys

nested = open(sys.argv[1]).read().split("\n")
raw = open(sys.argv[2]).read().split("\n")
flavour = sys.argv[3]
EV = re.compile(r"^( *)(\[r[^\]]*\] )?([A-Za-z_0-9]+)\(")


def events(lines):
    out = []
    for l in lines:
        m = EV.match(l)
        if m and not l.lstrip().startswith("loop"):
            out.append((len(m.group(1)), m.group(2), m.group(3), l))
    return out


n_ev, r_ev = events(nested), events(raw)
if len(n_ev) != len(r_ev) or [e[2] for e in n_ev] != [e[2] for e in r_ev]:
    sys.exit("the nested and raw dumps list different calls")
checked = 0
for i in range(1, len(r_ev)):
    ind, ranks, fn, line = r_ev[i]
    pind, pranks, pfn, _ = r_ev[i - 1]
    if " parent=-1 " in line and ind == pind and (ranks is None or ranks == pranks):
        if n_ev[i][0] != n_ev[i - 1][0] + 2 or " parent=-" in n_ev[i][3]:
            sys.exit("%s after %s: not nested under it:\n%s\n%s" % (fn, pfn, n_ev[i - 1][3][:100], n_ev[i][3][:100]))
        checked += 1
if checked == 0:
    sys.exit("no call issued by the call before it: nothing to check")
if flavour == "mpich":
    for i, (ind, _, fn, line) in enumerate(n_ev):
        if fn == "MPI_File_write_at":
            k = n_ev[i + 1]
            if k[2] != "pwrite" or k[0] != ind + 2 or "count=100" not in k[3]:
                sys.exit("MPI_File_write_at's pwrite not nested under it: %s" % k[3][:100])
            break
    else:
        sys.exit("no MPI_File_write_at in the dump")
print("   dump: %d calls nested under the call that issued them (parent=-1 in --raw)%s"
      % (checked, ", MPI_File_write_at's pwrite among them" if flavour == "mpich" else ""))
