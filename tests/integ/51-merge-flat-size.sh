#!/bin/bash
# Inter-node merge keeps the trace size flat: the IOR-like strided shared-file
# program (rank r's block of segment s at (s*P + r)*b) through POSIX and
# through MPI-IO, at P = 2, 4, 8 and 16: the largest trace is at most 5%
# larger than the smallest, leaving out the two parts that grow with the
# ranks by design: each rank's own time totals (section RANKTIMES, at most
# 2 bytes per quantity and 1 for the rank per rank), and the timing
# histograms, whose number is that of the events but whose bytes follow the
# samples: their means and M2 (format minor 2: exact integers while they
# fit in 3 bytes each, else 3-byte floats, so at most 6 bytes a histogram
# whatever P) and their log2 bins (a bin more for each order of magnitude the slowest
# rank adds): at most 8 bytes more a histogram than at P = 2. Also: rank-0-only I/O and per-rank files named
# with the rank merge into one event per call site.
. "$(dirname "$0")/../lib.sh"
for api in posix mpiio; do
    sizes="" rts="" hbs=""
    for P in 2 4 8 16; do
        rm -f ior.dat
        SIOT_TRACE=$PWD/$api-$P.siot mpirun_np $P "$B/examples/ior" -a $api -s 8 > /dev/null || fail "ior $api at P=$P"
        rt=$(py section_sizes.py $api-$P.siot 6)
        [ "$rt" -gt 0 ] || fail "ior $api at P=$P: no per-rank times"
        [ "$rt" -le $((200 + P * 31)) ] || fail "ior $api at P=$P: per-rank times take $rt bytes, more than 31 per rank"
        line=$("$SIOT" dump --sizes $api-$P.siot | grep 'of which histograms')
        hb=$(sed -n 's/.*histograms \([0-9]*\) B in.*/\1/p' <<< "$line")
        nh=$(sed -n 's/.*histograms [0-9]* B in \([0-9]*\),.*/\1/p' <<< "$line")
        mom=$(sed -n 's/.*their means and M2 \([0-9]*\) B.*/\1/p' <<< "$line")
        [ -n "$hb" ] && [ -n "$nh" ] && [ -n "$mom" ] || fail "ior $api at P=$P: siot dump --sizes: $line"
        [ "$mom" -le $((6 * nh)) ] || fail "ior $api at P=$P: means and M2 take $mom bytes, more than 6 a histogram"
        [ $P = 2 ] && hb2=$hb nh2=$nh
        [ "$nh" = "$nh2" ] || fail "ior $api at P=$P: $nh histograms, $nh2 at P=2"
        [ "$hb" -le $((hb2 + 8 * nh2)) ] || fail "ior $api at P=$P: the histograms grow from $hb2 to $hb bytes"
        sizes="$sizes $(( $(trace_size $api-$P.siot) - rt - hb ))"
        rts="$rts $rt" hbs="$hbs $hb"
    done
    echo "   ior $api at P=2,4,8,16: per-rank times$rts bytes, histograms$hbs"
    min=$(printf '%s\n' $sizes | sort -n | head -1); max=$(printf '%s\n' $sizes | sort -n | tail -1)
    echo "   ior $api at P=2,4,8,16:$sizes bytes besides them"
    [ $((max * 100)) -le $((min * 105)) ] || fail "ior $api: sizes$sizes grow by more than 5%"
done
"$SIOT" dump posix-16.siot > posix16.txt
grep -q 'offset=.*65536\*rank' posix16.txt || fail "the offsets are not a function of the rank"

rank_dumps() { # DIR: siot dump of each rank's own trace
    for f in "$1"/*.siot; do "$SIOT" dump "$f" > "$f.txt"; done
}
build_traced gather0
rm -rf gr && mkdir gr
SIOT_RANK_TRACES=$PWD/gr SIOT_TRACE=$PWD/g.siot mpirun_np 8 ./gather0 > /dev/null || fail gather0
"$SIOT" dump g.siot > g.txt
rank_dumps gr
py one_event_per_site.py g.txt gr/*.txt || fail "gather0: the merge split a call site"
grep -q '^\[r0\] .*loop\|^\[r0\] open\|^\[r0\] write\|^\[r0\] close' g.txt || fail "rank 0's I/O is not rank 0's alone"
grep -q '\[r1-7\] MPI_Send' g.txt || fail "the other ranks' sends are not merged into one rank list"
rm -rf cr && mkdir cr
SIOT_RANK_TRACES=$PWD/cr SIOT_TRACE=$PWD/c.siot mpirun_np 8 "$B/examples/ckpt" 12 3 2 4096 > /dev/null || fail ckpt
"$SIOT" dump c.siot > c.txt
rank_dumps cr
py one_event_per_site.py c.txt cr/*.txt || fail "ckpt: the merge split a call site"
grep -q 'ckpt-{%04d:.*}-{0+1\*rank}.tmp' c.txt || fail "ckpt file names are not a pattern of the step and rank: $(grep -m1 fopen c.txt)"
pass "flat size in P; rank-0 I/O and per-rank files: one event per call site"
