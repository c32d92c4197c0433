"""Names beside numbers, one vocabulary (issue 20): the dump of known.c's
trace shows its open flags, mode and MPI-IO access mode by the names the
program's source uses; dump --jsonl, CSV and Chrome JSON carry the same
"names" for every event; a descriptor or MPI file is shown with the file
known.c opened it on (dump: fd=3<posix-{rank}.dat>; jsonl and Chrome:
names "fd_file"/"fh_file"; CSV: the file column).

usage: check_names.py known.c DUMP.txt JSONL CSV CHROME.json"""
import csv
import json
import re
import sys

src, dump_txt, jl, cs, ch = sys.argv[1:6]
code = open(src).read()
dump = open(dump_txt).read()


def names_in(expr):
    return sorted(w for w in re.split(r"\s*\|\s*", expr.strip()))


# from the program's source: open(name, FLAGS, MODE) and MPI_File_open's amode
m = re.search(r"int fd = open\(name, ([A-Z_ |]+), (0\d+)\)", code)
a = re.search(r'MPI_File_open\(MPI_COMM_WORLD, "known.dat", ([A-Z_ |]+),', code)
if not m or not a:
    sys.exit("known.c: the open calls are not where this check looks")
flags, mode, amode = names_in(m.group(1)), m.group(2), names_in(a.group(1))
got = re.search(r'open\(pathname="posix-[^"]*", flags=([A-Z_|]+), mode=(\d+)\)', dump)
if not got or names_in(got.group(1)) != flags or got.group(2) != mode:
    sys.exit("dump: posix open shows %s, want flags %s mode %s" % (got and got.group(0), flags, mode))
got = re.search(r"MPI_File_open\(comm=MPI_COMM_WORLD, [^)]*amode=([A-Z_|]+),", dump)
if not got or names_in(got.group(1)) != amode:
    sys.exit("dump: MPI_File_open shows %s, want amode %s" % (got and got.group(0), amode))

# the same names in every form
by_key = {}
for line in open(jl):
    e = json.loads(line)
    by_key[(e["rank"], e["seq"])] = e.get("names", {})
rows = list(csv.DictReader(open(cs)))
chrome = [e for e in json.load(open(ch))["traceEvents"] if e["ph"] == "X"]
if len(rows) != len(by_key) or len(chrome) != len(by_key):
    sys.exit("%d jsonl events, %d CSV rows, %d Chrome events" % (len(by_key), len(rows), len(chrome)))
for r in rows:
    if json.loads(r["args"]).get("names", {}) != by_key[(int(r["rank"]), int(r["seq"]))]:
        sys.exit("CSV row %s %s: names differ from dump --jsonl's" % (r["rank"], r["seq"]))
for e in chrome:
    if e["args"].get("names", {}) != by_key[(e["pid"], e["args"]["seq"])]:
        sys.exit("Chrome event %s %s: names differ from dump --jsonl's" % (e["pid"], e["args"]["seq"]))
# handles with their files: known.c opens "posix-%d.dat" (rank) for open/write/
# pwrite and "known.dat" for MPI_File_write_at (whose library pwrite writes it)
p = re.search(r'snprintf\(name, sizeof name, "([^"]+)", rank\);\s*int fd = open\(name', code)
if not p or "pwrite(fd, buf, 32, 1000)" not in code:
    sys.exit("known.c: the POSIX file is not where this check looks")
posix = p.group(1)
ev = {}
for line in open(jl):
    e = json.loads(line)
    ev[(e["rank"], e["seq"])] = e
want = {}  # (rank, seq) -> the file known.c says that handle refers to
for k, e in ev.items():
    if e["func"] == "MPI_File_write_at":
        want[k] = ("fh", "known.dat")
    elif e["func"] == "pwrite" and e["parent"] >= 0 and ev[(e["rank"], e["parent"])]["func"] == "MPI_File_write_at":
        want[k] = ("fd", "known.dat")
    elif e["func"] == "pwrite" and e["args"]["offset"] == 1000:
        want[k] = ("fd", posix % e["rank"])
if len(want) != 4 * (1 + 10 + 10):
    sys.exit("dump --jsonl: %d pwrite/MPI_File_write_at events, want 84" % len(want))
for k, (arg, f) in want.items():
    if by_key[k].get(arg + "_file") != f:
        sys.exit("dump --jsonl: %s on rank %d names %s, want %s" % (ev[k]["func"], k[0], by_key[k], f))
for r in rows:
    k = (int(r["rank"]), int(r["seq"]))
    if k in want and r["file"] != want[k][1]:
        sys.exit("CSV: %s on rank %d in file %r, want %s" % (r["func"], k[0], r["file"], want[k][1]))
g = re.search(r"pwrite\(fd=3<([^>]*)>, count=32, offset=1000\)", dump)
if not g or not re.fullmatch(re.escape(posix).replace("%d", r"\{[^}]*rank\}"), g.group(1)):
    sys.exit("dump: pwrite at 1000 shows %s, want fd=3<%s with the rank>" % (g and g.group(0), posix))
for pat in (r"MPI_File_write_at\(fh=0<known.dat>,", r"\n +pwrite\(fd=3<known.dat>, count=100,"):
    if not re.search(pat, dump):
        sys.exit("dump: no %s" % pat)
opens = [n for n in by_key.values() if n.get("flags")]
if not any(names_in(n["flags"]) == flags and n.get("mode") == mode for n in opens):
    sys.exit("dump --jsonl: no open named %s %s" % (flags, mode))
print("   names: open flags %s, mode %s, amode %s as known.c writes them; the same names in jsonl, CSV, Chrome;"
      " pwrite and MPI_File_write_at with their files (%s, known.dat) in all four" % ("|".join(flags), mode, "|".join(amode), posix))
