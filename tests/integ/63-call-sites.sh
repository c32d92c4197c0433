#!/bin/bash
# Call sites from frames that are hard for the walk by learned frame sizes
# (docs/hotpath.md), against the program's own record (tests/progs/sites.c:
# a variable-length array and alloca of varying sizes, one helper from two
# lines, recursion at depths 1, 5 and 30, a handler on a sigaltstack, 4
# threads, new threads whose variable frames shrink after their first call;
# over 4096 calls per thread, so the cross-check with libunwind runs). Built
# twice: -O1 (build_traced) and -O2 -fomit-frame-pointer. For each binary and
# SIOT_STACK_DEPTH 8 and 40, flat traces (SIOT_COMPRESS=0) with the learned
# walk and with SIOT_UNWIND=always; tests/py/check_sites.py resolves every
# site with addr2line and checks each pwrite's frames in the program against
# the chain of source lines the program noted, the counts per chain against
# the program's, and that both traces hold the same events at the same sites.
# No trace may carry the note site_walk_mismatches.
. "$(dirname "$0")/../lib.sh"
unset SIOT_UNWIND SIOT_STACK_DEPTH SIOT_TOLERANCE SIOT_WINDOW
command -v addr2line > /dev/null || fail "addr2line (binutils) not found: the sites cannot be resolved"
build_traced sites
# the same program at -O2 without frame pointers, built as build_traced does
$MPICC -std=c11 -O2 -fomit-frame-pointer -g -Wno-unused-result -c "$ROOT/tests/progs/sites.c" -o sites-o2.o
$MPICC sites-o2.o -Wl,@"$FLAGS" -o sites-o2

./sites.plain plain.data > plain.out || fail "untraced sites exited $?"
sort plain.out > plain.sorted

problems=()
for bin in sites sites-o2; do
    for depth in 8 40; do
        for walk in learned always; do
            run=$bin.d$depth.$walk
            unwind=()
            [ $walk = always ] && unwind=(SIOT_UNWIND=always)
            # the same file name in every run: the open must compare equal
            env "${unwind[@]}" SIOT_COMPRESS=0 SIOT_STACK_DEPTH=$depth SIOT_TRACE=$run.siot \
                ./$bin data > $run.out || fail "$run: $bin exited $?"
            "$SIOT" dump $run.siot > $run.dump || fail "siot dump $run.siot exited $?"
            grep -Eq '^ +note events_recorded:' $run.dump || fail "$run: the dump has no note lines"
            if grep -E '^ +note site_walk_mismatches' $run.dump > $run.mismatch; then
                problems+=("$run: $(sed 's/^ *//' $run.mismatch)")
            fi
            # what the program did does not depend on the tracer (the order of
            # the threads' lines may)
            sort $run.out | cmp -s - plain.sorted || fail "$run: the traced program's table differs from the untraced one's"
        done
        echo "   $bin, SIOT_STACK_DEPTH=$depth:"
        py check_sites.py ./$bin $bin.d$depth.learned.out $depth $bin.d$depth.learned.dump $bin.d$depth.always.dump \
            > $bin.d$depth.check || problems+=("$bin at depth $depth: $(grep -c '^[^ ]' $bin.d$depth.check) failed checks")
        cat $bin.d$depth.check
    done
done
[ ${#problems[@]} -eq 0 ] || fail "wrong call sites: $(printf '%s; ' "${problems[@]}")(details above)"
pass "every call at the program's own chain of lines (-O1 and -O2 -fomit-frame-pointer, depth 8 and 40), the learned walk = libunwind, no site_walk_mismatches"
