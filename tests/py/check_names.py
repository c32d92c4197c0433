"""Names beside numbers, one vocabulary (issue 20): the dump of known.c's
trace shows its open flags, mode and MPI-IO access mode by the names the
program's source uses; dump --jsonl, CSV and Chrome JSON carry the same
"names" for every event.

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
opens = [n for n in by_key.values() if n.get("flags")]
if not any(names_in(n["flags"]) == flags and n.get("mode") == mode for n in opens):
    sys.exit("dump --jsonl: no open named %s %s" % (flags, mode))
print("   names: open flags %s, mode %s, amode %s as known.c writes them; the same names in jsonl, CSV, Chrome"
      % ("|".join(flags), mode, "|".join(amode)))
