#!/bin/bash
# siot report and siot export, checked outside the code that wrote them:
# the HTML page is loaded by a real headless Chromium (no load errors, no
# fetched resources, its charts in the DOM, a non-blank screenshot; its
# colours, ticks, log-scale size charts and tables in the DOM checked
# against siot stats --json and siot dump: check_report.py); the
# Chrome trace-event JSON and the CSV are parsed by Python's json and csv
# modules and hold the events the programs' sources say they made, with
# synthesised times that nest and follow program order; --max-events refuses
# or samples; progress shows on a terminal only.
. "$(dirname "$0")/../lib.sh"
command -v chromium > /dev/null || fail "chromium is missing (make deps installs it)"
build_traced known
build_traced big
build_traced rmw

# --- report: a multi-layer job (HDF5 over MPI-IO over POSIX) and a small one
SIOT_TRACE=$WORK/flash.siot mpirun_np 4 "$B/examples/flash-io" -n 2 -i > /dev/null || fail "flash-io run"
SIOT_TRACE=$WORK/known.siot mpirun_np 4 ./known > /dev/null || fail "known run"
# and a collective write with holes: ROMIO's read-modify-write in the amplification table
SIOT_TRACE=$WORK/rmw.siot mpirun_np 4 ./rmw > /dev/null || fail "rmw run"
for t in flash known rmw; do
    "$ASAN_SIOT" report "$t.siot" -o "$t.html" || fail "siot report $t (ASan build)"
    [ "$(grep -c '<svg' "$t.html")" -ge 6 ] || fail "$t.html: fewer than 6 charts"
    ! grep -Eq '(src|href)=|@import|url\(' "$t.html" || fail "$t.html refers to an outside resource"
    ! grep -q '<script' "$t.html" || fail "$t.html has a script"
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --enable-logging=stderr --v=0 \
        --window-size=1100,2600 --screenshot="$WORK/$t.png" "file://$WORK/$t.html" > "$t.chrome.out" 2> "$t.chrome.log" ||
        { tail -20 "$t.chrome.log" >&2; fail "chromium could not render $t.html"; }
    ! grep -Eq 'Uncaught|Failed to load resource|net::ERR_' "$t.chrome.log" ||
        { grep -E 'Uncaught|Failed to load|net::ERR_' "$t.chrome.log" >&2; fail "$t.html: load errors"; }
    py check_png.py "$t.png" > "$t.png.txt" || fail "$t.png: blank or broken screenshot"
    chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$WORK/$t.html" > "$t.dom" 2> /dev/null ||
        fail "chromium --dump-dom $t.html"
    [ "$(grep -c '<svg' "$t.dom")" -ge 6 ] || fail "$t.html: the browser's DOM holds fewer than 6 charts"
    echo "   report $t: $(wc -c < "$t.html") bytes, $(grep -c '<svg' "$t.dom") charts in Chromium's DOM, screenshot: $(cat "$t.png.txt")"
done
grep -q 'HDF5' flash.html && grep -q 'MPI-IO' flash.html && grep -q 'H5Dwrite' flash.html ||
    fail "flash.html lacks the HDF5 layer or its call sites"
grep -q 'rank 3' flash.html || fail "flash.html: no rank 3 in the timeline"
# issue 19 item 2: the sections of a multi-level trace (check_report.py
# compares their numbers with siot stats --json --access)
for s in '<h3>Top files</h3>' '<h3>Access patterns</h3>' '<h3>Amplification between layers</h3>' \
    '<table class="top-bytes">' '<table class="top-time">' '<svg class="chart heat"'; do
    grep -q "$s" flash.dom || fail "flash.html: no $s"
done
grep -q '<td>HDF5</td><td>writes</td>.*<td>MPI-IO</td>' flash.dom &&
    grep -q '<td>MPI-IO</td><td>writes</td>.*<td>POSIX</td>' flash.dom ||
    fail "flash.html: no amplification rows HDF5 -> MPI-IO and MPI-IO -> POSIX"
# one colour per concept, 1-2-5 ticks, log-scale size charts with their bars'
# values, MPI init/finalize apart, the files and failed opens: as Chromium's
# DOM holds them, against siot stats --json, siot stats and siot dump
for t in flash known rmw; do
    "$SIOT" stats --json --access $t.siot > $t.stats.json || fail "stats --json --access $t"
    "$SIOT" stats $t.siot > $t.stats.txt || fail "stats $t"
    "$SIOT" dump $t.siot > $t.dump.txt || fail "dump $t"
    py check_report.py $t.dom $t.stats.json $t.stats.txt $t.dump.txt $t || fail "$t.html against siot stats"
done
# the walk's limit: the page says it stopped, and counts fewer calls
"$SIOT" report --walk-events 100 known.siot -o known-cut.html || fail "siot report --walk-events 100"
grep -q 'class="note">From each rank.s first events only' known-cut.html || fail "no note of the walk's limit"
grep -q 'data-key="consecutive">37<' known.html && ! grep -q 'data-key="consecutive">37<' known-cut.html ||
    fail "--walk-events 100: the same access counts as the whole walk"
if [ "$MPI" = mpich ] && [ ! -e /etc/romio-hints ]; then # ROMIO looks for its hints file at every MPI_File_open
    grep -q '/etc/romio-hints' flash.dump.txt || fail "flash-io: no open of /etc/romio-hints in the trace"
    grep -q '<table class="failed">.*' flash.dom && grep -q '<td class="site">/etc/romio-hints</td>' flash.dom ||
        fail "flash.html: /etc/romio-hints not among the failed opens"
fi

# --- export: facts from the sources (known.c's offsets; big.c's LCG offsets)
"$ASAN_SIOT" export --chrome known.siot -o known.json 2> export.err || fail "export --chrome known"
py check_export.py chrome known.json known 4 || fail "known.json"
"$ASAN_SIOT" export --csv known.siot -o known.csv 2> export.err || fail "export --csv known"
py check_export.py csv known.csv known 4 || fail "known.csv"
"$ASAN_SIOT" dump known.siot > known.txt || fail "dump known"
jsonl known.siot > known.jsonl
py check_names.py "$ROOT/tests/progs/known.c" known.txt known.jsonl known.csv known.json || fail "names"
"$ASAN_SIOT" dump --raw known.siot > known.raw.txt || fail "dump --raw known"
py check_nesting.py known.txt known.raw.txt "$MPI" || fail "nesting"
n_jsonl=$(jsonl known.siot | wc -l)
[ "$(py check_export.py count known.json)" = "$n_jsonl" ] || fail "known.json: not one event per expanded event"
SIOT_TRACE=$WORK/irr.siot ./big irregular 2000 > /dev/null || fail "big irregular 2000"
"$ASAN_SIOT" export --chrome irr.siot -o irr.json 2> /dev/null || fail "export --chrome irr"
py check_export.py chrome irr.json irregular 2000 || fail "irr.json"
"$ASAN_SIOT" export --csv irr.siot -o irr.csv 2> /dev/null || fail "export --csv irr"
py check_export.py csv irr.csv irregular 2000 || fail "irr.csv"

# --- the limit: refused with a reason and no file, or sampled
SIOT_TRACE=$WORK/many.siot ./big irregular 1000000 > /dev/null || fail "big irregular 10^6"
total=$(jsonl many.siot | wc -l)
set +e
"$SIOT" export --chrome many.siot --max-events 50000 -o many.json 2> refuse.err
rc=$?
set -e
[ $rc = 2 ] || fail "export past --max-events exited $rc, not 2"
grep -q "more than --max-events 50000" refuse.err || fail "no reason given for the refusal: $(cat refuse.err)"
[ ! -e many.json ] && [ -z "$(ls many.json.tmp* 2> /dev/null)" ] || fail "a refused export left a file"
"$SIOT" export --chrome many.siot --max-events 50000 --sample -o many.json 2> /dev/null || fail "export --sample"
kept=$(py check_export.py count many.json)
k=$(( (total + 49999) / 50000 ))
[ "$kept" = $(( (total + k - 1) / k )) ] || fail "--sample kept $kept of $total events, not one in $k"
echo "   export: known and irregular events as the sources say; $total events: refused past 50000, sampled $kept (1 in $k)"

# --- progress: on a terminal only
script -qec "$SIOT export --csv --max-events 2000000 many.siot > /dev/null" /dev/null > tty.out 2>&1 || fail "export under script"
grep -q 'siot export: .* of .* events (.*%), .*/s' tty.out || fail "no progress on a terminal: $(head -c 300 tty.out)"
"$SIOT" export --csv --max-events 2000000 many.siot -o many.csv 2> notty.err || fail "export to a file"
[ "$(head -1 notty.err)" = "siot: export: $total events written to many.csv" ] &&
    [ "$(wc -l < notty.err)" = 2 ] && grep -q '^siot: export: times synthesised from the recorded means' notty.err ||
    fail "progress when not on a terminal, or no word on the synthesised times: $(head -c 400 notty.err)"
# --- a page or a CSV is not poured onto a terminal: refused without -o, written with -o -
for cmd in "report many.siot" "export --csv many.siot"; do
    st=0
    script -qec "$SIOT $cmd" /dev/null > tty-refused.out 2>&1 || st=$?
    [ $st = 2 ] && grep -q "not writing to a terminal: give -o FILE" tty-refused.out ||
        fail "siot $cmd on a terminal: exit $st, $(head -c 300 tty-refused.out)"
done
script -qec "$SIOT export --csv -o - known.siot" /dev/null > tty-insist.out 2>&1 || fail "export -o - on a terminal"
grep -q "^rank,seq,layer,func" tty-insist.out || fail "export -o - on a terminal wrote no CSV"
mkdir -p r1 r2
mpirun_np 1 "$B/bin/ioreplay" --time-scale 4 --quiet --progress --root r1 many.siot 2> replay-progress.err ||
    fail "ioreplay --progress"
grep -q 'ioreplay (rank 0): .* of .* events' replay-progress.err || fail "ioreplay --progress showed nothing"
mpirun_np 1 "$B/bin/ioreplay" --no-compute --quiet --root r2 many.siot 2> replay-quiet.err || fail "ioreplay"
[ ! -s replay-quiet.err ] || fail "ioreplay wrote progress when not on a terminal: $(head -c 300 replay-quiet.err)"
pass "report in headless Chromium; Chrome JSON and CSV parsed, with the sources' events; limit, sampling, progress"
