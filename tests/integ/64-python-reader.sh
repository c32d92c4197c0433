#!/bin/bash
# The Python reader: python/siotrace (in build/python) over libsiot.so, the
# tool's own decoder through ctypes, run with Debian's python3 and pandas
# (tests/py/test_siotrace.py): summary() is siot stats --json, events() is
# siot dump --jsonl row by row with synthesised times, known.c's writes as a
# DataFrame, rank and layer filters, 10^6 events of big.c streamed in
# frames with every offset as its generator makes it, the compressed
# structure, TraceError on bad input; the DataFrames built from columns the
# reader fills (tests/py/test_frames.py) equal siot dump --jsonl for every
# example's trace, loops.c's at 4 ranks, big.c's offsets past 2^53 and 600 paths,
# whole, in chunks, filtered and past the count,
# and manywrites.c's sizes and offsets are its #defines'; then
# examples/python on FLASH-IO.
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

# The frames against the dump: the examples, loops with several ranks, and
# manywrites (N writes a rank of sizes and offsets its #defines give).
SIOT_TRACE=$WORK/flash.siot mpirun_np 4 "$B/examples/flash-io" > /dev/null || fail "flash-io"
SIOT_TRACE=$WORK/ckpt.siot mpirun_np 4 "$B/examples/ckpt" 4 2 2 4096 > /dev/null || fail ckpt
SIOT_TRACE=$WORK/ior.siot mpirun_np 4 "$B/examples/ior" -a mpiio -c -s 4 -b 65536 -t 16384 > /dev/null || fail ior
SIOT_TRACE=$WORK/pop.siot mpirun_np 4 "$B/examples/pop" -k 2 -g 32 -s 1 > /dev/null || fail pop
SIOT_TRACE=$WORK/btio.siot mpirun_np 4 "$B/examples/btio" -n 12 -s 2 > /dev/null || fail btio
SIOT_TRACE=$WORK/btio_f.siot mpirun_np 4 "$B/examples/btio_f" -n 12 -s 2 > /dev/null || fail btio_f
build_traced loops
SIOT_TRACE=$WORK/loops.siot mpirun_np 4 ./loops all 20 > /dev/null || fail "loops all 20"
# offsets past 2^53 (big.c offsets): exact in the frame, as in the dump
SIOT_TRACE=$WORK/bigoff.siot mpirun_np 1 ./big offsets > /dev/null || fail "big offsets"
# 600 distinct paths (big.c files): the table of texts grows past its first 256
SIOT_TRACE=$WORK/bigfiles.siot mpirun_np 1 ./big files 600 > /dev/null || fail "big files 600"
build_traced manywrites
MW_N=3000
SIOT_TRACE=$WORK/mw.siot mpirun_np 2 ./manywrites $MW_N > /dev/null || fail "manywrites $MW_N"
FRAME_TRACES=""
for t in flash ckpt ior pop btio btio_f loops bigoff bigfiles; do
    jsonl $t.siot > $t.jsonl
    FRAME_TRACES="$FRAME_TRACES $WORK/$t.siot:$WORK/$t.jsonl"
done
export FRAME_TRACES MW=$WORK/mw.siot MW_N MW_SRC=$ROOT/tests/progs/manywrites.c
$PY -m unittest -v test_frames > frames.out 2>&1 || { cat frames.out >&2; fail "python3 -m unittest test_frames"; }
echo "   $(grep -c ' ok$' frames.out) unittest cases ok: frames = siot dump --jsonl for$(for t in flash ckpt ior pop btio btio_f loops bigoff bigfiles; do printf ' %s (%d)' $t "$(wc -l < $t.jsonl)"; done) events"

# The example on the FLASH-IO example's trace: its numbers are siot stats'.
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
pass "Python reader: summary = stats, events = dump --jsonl, frames = dump --jsonl (examples, loops), filters, 10^6 events streamed, TraceError; the example"
