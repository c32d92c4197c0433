#!/bin/bash
# Wrappers are transparent: the same return values, errno, output files and
# exit status with and without tracing, for an MPI program and a serial one.
. "$(dirname "$0")/../lib.sh"
build_traced transp
for mode in plain traced; do
    mkdir -p $mode
    exe=$PWD/transp; [ $mode = plain ] && exe=$PWD/transp.plain
    (cd $mode && mpirun_np 3 "$exe") || fail "transp ($mode) exited $?"
done
[ -f traced/transp.siot ] || fail "traced run left no trace"
[ ! -e plain/transp.siot ] || fail "untraced run wrote a trace"
rm -f traced/transp.siot
for f in plain/*; do
    cmp "$f" "traced/$(basename "$f")" || fail "$(basename "$f") differs with tracing"
done
[ "$(ls plain | wc -l)" = "$(ls traced | wc -l)" ] || fail "traced run made different files: $(ls traced)"
grep -q "errno=2" plain/t-log-0.txt || fail "the failing calls did not fail as the test expects"
grep -q "errno kept across a successful pread: ret=10 errno=1234" plain/t-log-0.txt || fail "the errno check did not run"
# ... and the trace holds the failures as they happened
(cd traced && mpirun_np 3 "$PWD/../transp") || fail "transp (traced, second run)"
jsonl traced/transp.siot > t.jsonl
python3 - t.jsonl <<'PY' || fail "failures recorded"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"rank":1,')]
def one(pred, what):
    if not any(pred(e) for e in ev):
        sys.exit("no event: " + what)
one(lambda e: e["func"] == "open" and e["args"]["pathname"] == "does/not/exist" and e["ret"] == -1 and e.get("errno") == 2, "open ENOENT")
one(lambda e: e["func"] == "pwrite" and e["args"]["offset"] == 2500 and e["ret"] == 500 and e["bytes"] == 500, "short pwrite")
one(lambda e: e["func"] == "pwrite" and e["args"]["offset"] == 3000 and e["ret"] == -1 and e.get("errno") == 27, "pwrite EFBIG")
one(lambda e: e["func"] == "pread" and e["args"]["count"] == 4000 and e["ret"] == 1000, "short pread")
one(lambda e: e["func"] == "mkdir" and e["ret"] == -1 and e.get("errno") == 17, "mkdir EEXIST")
one(lambda e: e["func"] == "MPI_File_open" and e["args"]["filename"] == "does/not/exist" and e["ret"] != 0 and e["args"]["fh"] == -1, "MPI_File_open error")
one(lambda e: e["func"] == "MPI_Send" and e["args"]["dest"] == 8 and e["ret"] != 0, "MPI_Send error")
PY
# Names a person can read, one vocabulary across flavours (issue 20): the
# error class an MPI call returned by the name the program itself got from
# MPI_Error_class (its log), whatever the flavour's number; the stream
# fprintf writes to by the file transp.c opened for it (t-log-RANK.txt).
"$SIOT" dump traced/transp.siot > t.dump || fail "siot dump"
"$SIOT" export --csv traced/transp.siot -o t.csv 2> /dev/null || fail "siot export --csv"
"$SIOT" export --chrome traced/transp.siot -o t.json 2> /dev/null || fail "siot export --chrome"
python3 - t.jsonl t.dump t.csv t.json plain/t-log-1.txt <<'PY' || fail "names of error classes and files"
import csv, json, re, sys
jl, dump, cs, ch, log = sys.argv[1:6]
got = dict(re.findall(r"^(MPI_File_open of a missing file|MPI_Send to a rank that does not exist): error, class (MPI_ERR_\w+)$",
                      open(log).read(), re.M))
want = {"MPI_File_open": got.get("MPI_File_open of a missing file"), "MPI_Send": got.get("MPI_Send to a rank that does not exist")}
if None in want.values():
    sys.exit("the program's log lacks the classes: %s" % got)
failed = lambda e: e["func"] in want and e["ret"] != 0
ev = [json.loads(l) for l in open(jl)]
rows = list(csv.DictReader(open(cs)))
chrome = [e for e in json.load(open(ch))["traceEvents"] if e["ph"] == "X"]
forms = [("jsonl", ev, lambda e: e.get("names", {})),
         ("CSV", [dict(r, ret=int(r["ret"])) for r in rows], lambda r: json.loads(r["args"]).get("names", {})),
         ("Chrome", [dict(e, func=e["name"], ret=e["args"]["ret"]) for e in chrome], lambda e: e["args"].get("names", {}))]
for form, evs, names in forms:
    bad = [e for e in evs if failed(e)]
    if len(bad) != 6 or any(names(e).get("ret") != want[e["func"]] for e in bad):
        sys.exit("%s: failed MPI calls named %s, want %s" % (form, [(e["func"], names(e).get("ret")) for e in bad], want))
for f, cls in want.items():
    if not re.search(r"^\[r0-2\] %s\(.*\) ret=%s " % (f, cls), open(dump).read(), re.M):
        sys.exit("dump: no %s(...) ret=%s" % (f, cls))
# fprintf's stream: its file, on every rank and in every form
fp = [e for e in ev if e["func"] == "fprintf"]
if not fp or any(e.get("names", {}).get("stream_file") != "t-log-%d.txt" % e["rank"] for e in fp):
    sys.exit("jsonl: fprintf streams named %s" % sorted({(e["rank"], e.get("names", {}).get("stream_file")) for e in fp}))
fr = [r for r in rows if r["func"] == "fprintf"]
if len(fr) != len(fp) or any(r["file"] != "t-log-%s.txt" % r["rank"] for r in fr):
    sys.exit("CSV: fprintf rows' files %s" % sorted({(r["rank"], r["file"]) for r in fr}))
fc = [e for e in chrome if e["name"] == "fprintf"]
if len(fc) != len(fp) or any(e["args"].get("names", {}).get("stream_file") != "t-log-%d.txt" % e["pid"] for e in fc):
    sys.exit("Chrome: fprintf streams not named by their files")
lines = [l for l in open(dump) if re.match(r"\[r0-2\] fprintf\(", l)]
if not lines or any(not re.match(r"\[r0-2\] fprintf\(stream=3<t-log-\{[^}]*rank\}\.txt>\)", l) for l in lines):
    sys.exit("dump: fprintf lines %s" % lines[:2])
print("   names: %s in every form; fprintf's stream is t-log-RANK.txt in dump, jsonl, CSV, Chrome"
      % ", ".join("%s ret=%s" % kv for kv in sorted(want.items())))
PY
rm -f traced/transp.siot

build_traced serial
for mode in plain traced; do
    mkdir -p s-$mode
    exe=$PWD/serial; [ $mode = plain ] && exe=$PWD/serial.plain
    set +e
    (cd s-$mode && "$exe" > stdout.txt 2> stderr.txt)
    echo $? > s-$mode/status.txt
    set -e
done
[ -f s-traced/serial.siot ] || fail "serial traced run left no trace"
rm s-traced/serial.siot
for f in s-plain/*; do
    cmp "$f" "s-traced/$(basename "$f")" || fail "serial: $(basename "$f") differs with tracing"
done
[ "$(cat s-plain/status.txt)" = 3 ] || fail "serial exit status $(cat s-plain/status.txt), expected 3"
pass "identical files, stdout, stderr, errno and exit status"
