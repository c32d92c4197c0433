#!/bin/bash
# The wrapper generator reads a spec line whole or refuses it: a line longer
# than 4095 bytes, and a %family line that grows beyond that when a member's
# type is put in, stop siot-gen with one line on stderr naming the file and
# the line; nothing is split or cut silently. A line of 4095 bytes is read.
. "$(dirname "$0")/../lib.sh"
GEN=$B/tools/siot-gen
[ -x "$GEN" ] || fail "no $GEN (make MPI=$MPI all)"
LINE='posix open  ret:newfd  | int open(const char *pathname:path, int flags:oflags, ... mode_t mode:omode)'
# pad TEXT N: TEXT followed by spaces up to N bytes (without the newline)
pad() { printf '%s%*s\n' "$1" $(($2 - ${#1})) ''; }

# refused SPEC LINENO: siot-gen --list exits 1 with one line "SPEC:LINENO: ..." that says the limit
refused() {
    local st=0
    "$GEN" --list "$1" > out.txt 2> err.txt || st=$?
    [ $st = 1 ] || { cat out.txt err.txt >&2; fail "$1: siot-gen exited $st, want 1"; }
    [ "$(wc -l < err.txt)" = 1 ] || { cat err.txt >&2; fail "$1: not one line on stderr"; }
    grep -q "^$1:$2: .*4095" err.txt || { cat err.txt >&2; fail "$1: the line does not name $1:$2 and the limit"; }
    echo "   $(cut -c1-110 err.txt)"
}

{ echo '# a line just at the limit'; pad "$LINE" 4095; } > at-limit.spec
"$GEN" --list at-limit.spec > at-limit.txt 2> err.txt || { cat err.txt >&2; fail "a line of 4095 bytes: refused"; }
[ "$(cat at-limit.txt)" = "posix open" ] || { cat at-limit.txt >&2; fail "a line of 4095 bytes: not read as one function"; }

# before: read as 4095 bytes and a line of spaces, and accepted
{ echo '# over the limit by spaces'; echo; pad "$LINE" 5000; } > spaces.spec
refused spaces.spec 3
# before: the options after byte 4095 parsed as a line of their own
{ pad "$LINE" 4090; } | tr -d '\n' > cut.spec
echo ' noreplay="the option past the limit"' >> cut.spec
refused cut.spec 1
# a comment is a line too
{ printf '# %05000d\n' 0; echo "$LINE"; } > comment.spec
refused comment.spec 1
# a family member's type makes the line longer than the limit (spaces inside it: the ends are trimmed)
FAM='ret:bytes | int w_${T}(int fd:fd, ${T.c} x:int)'
{ echo '%family T a:char; b:unsigned long long'; printf 'posix write%*s%s\n' $((4090 - 11 - ${#FAM})) '' "$FAM"; } > family.spec
refused family.spec 2
pass "lines over 4095 bytes refused in one line naming file and line (long, cut, comment, family); 4095 bytes read"
