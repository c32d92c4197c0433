#!/bin/bash
# Built with -O2 -D_FORTIFY_SOURCE=2 -D_FILE_OFFSET_BITS=64 the program calls
# __open64_2, __read_chk, pread64/__pread64_chk, fopen64, lseek64 ... instead of
# the plain names. Every traced-function symbol the object file references
# (read with nm, independently of the tracer) must appear in the trace.
. "$(dirname "$0")/../lib.sh"
build_traced fortify -O2 -D_FORTIFY_SOURCE=2 -D_FILE_OFFSET_BITS=64
./fortify || fail "fortify exited $?"
jsonl fortify.siot > fortify.jsonl
cat "$ROOT"/spec/posix.spec "$ROOT"/spec/stdio.spec | sed -n 's/.*| *[^(]*[ *]\([A-Za-z_0-9]*\)(.*/\1/p' | sort -u > traced-names.txt
nm fortify.o | awk '$1 == "U" {print $2}' | sort -u > referenced.txt
comm -12 traced-names.txt referenced.txt > expected.txt
[ "$(wc -l < expected.txt)" -ge 20 ] || fail "only $(wc -l < expected.txt) traced names referenced: $(cat expected.txt)"
for s in __open64_2 __read_chk fopen64 lseek64; do
    grep -qx "$s" expected.txt || fail "the build does not reference $s: the test no longer tests fortified names"
done
missing=""
while read -r sym; do
    grep -q "\"func\":\"$sym\"" fortify.jsonl || missing="$missing $sym"
done < expected.txt
[ -z "$missing" ] && pass "all $(wc -l < expected.txt) referenced I/O symbols traced" || fail "referenced but not traced:$missing"
