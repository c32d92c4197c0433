#!/bin/bash
# The Python reader: python/siotrace (in build/python) over libsiot.so, the
# tool's own decoder through ctypes, run with Debian's python3 and pandas
# (tests/py/test_siotrace.py): summary() is siot stats --json, events() is
# siot dump --jsonl row by row with synthesised times, known.c's writes as a
# DataFrame, rank and layer filters, 10^6 events of big.c streamed in
# frames with every offset as its generator makes it, the compressed
# structure, TraceError on bad input; then examples/python on FLASH-IO.
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
$PY -c "import pandas" 2> /dev/null || fail "Debian's python3-pandas is not installed (tools/install-deps.sh installs it)"
build_traced known
build_traced big
SIOT_TRACE=$WORK/known.siot mpirun_np 4 ./known > /dev/null || fail "known"
jsonl known.siot > known.jsonl
"$SIOT" stats --json known.siot > known.stats.json || fail "siot stats --json"
BIG_N=500000
SIOT_TRACE=$WORK/big.siot mpirun_np 2 ./big irregular $BIG_N mpi > /dev/null || fail "big irregular"
head -c 300 known.siot > corrupt.siot
export KNOWN=$WORK/known.siot KNOWN_JSONL=$WORK/known.jsonl KNOWN_STATS=$WORK/known.stats.json
export BIG=$WORK/big.siot BIG_N CORRUPT=$WORK/corrupt.siot
export PYTHONPATH=$ROOT/build/python:$ROOT/tests/py SIOT_LIBSIOT=$B/lib/libsiot.so
/usr/bin/time -f "%e s %M KiB" -o py.time $PY -m unittest -v test_siotrace > py.out 2>&1 ||
    { cat py.out >&2; fail "python3 -m unittest test_siotrace"; }
echo "   $(grep -c ' ok$' py.out) unittest cases ok ($(cat py.time), 10^6 events of big.c streamed)"

# The example on the FLASH-IO example's trace: its numbers are siot stats'.
SIOT_TRACE=$WORK/flash.siot mpirun_np 4 "$B/examples/flash-io" > /dev/null || fail "flash-io"
"$SIOT" stats --json flash.siot > flash.stats.json
$PY "$ROOT/examples/python/flash_summary.py" flash.siot > flash.out || { cat flash.out >&2; fail "examples/python/flash_summary.py"; }
$PY - flash.out flash.stats.json <<'PYCHK' || fail "the example's numbers differ from siot stats'"
import json, re, sys
out, stats = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
per_rank = {int(r): int(b) for r, b in re.findall(r"^rank (\d+): (\d+) bytes written", out, re.M)}
total = sum(v["bytes_written"] for k, v in stats["layers"].items() if k == "posix")
if len(per_rank) != stats["nranks"] or sum(per_rank.values()) != total:
    sys.exit("per-rank POSIX bytes %s, stats give %d in all" % (per_rank, total))
if "busiest call sites" not in out or "request sizes" not in out:
    sys.exit("the example printed no call sites or request sizes")
print("   examples/python/flash_summary.py: %d ranks, %d POSIX bytes written, as siot stats" % (len(per_rank), total))
PYCHK
pass "Python reader: summary = stats, events = dump --jsonl, filters, 10^6 events streamed, TraceError; the example"
