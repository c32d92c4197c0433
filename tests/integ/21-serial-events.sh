#!/bin/bash
# A program that never calls MPI is traced as one rank, with exactly the
# events it makes (written out by hand below from tests/progs/serial.c).
. "$(dirname "$0")/../lib.sh"
build_traced serial
set +e; ./serial > out.txt; st=$?; set -e
[ $st = 3 ] || fail "serial exited $st"
[ -f serial.siot ] || fail "no trace written at exit"
jsonl serial.siot > serial.jsonl
grep -q '"rank":1' serial.jsonl && fail "a serial program has one rank"
cat > spec.json <<'JSON'
{"events": [
 ["fopen", {"pathname": "s-out.txt", "mode": "w"}, "=S"],
 ["fwrite", {"size": 1, "nmemb": 200, "stream": "=S"}, 200],
 ["fclose", {"stream": "=S"}, 0],
 ["open", {"pathname": "s-out.txt", "flags": 0, "mode": 0}, "=FD"],
 ["read", {"fd": "=FD", "count": 150}, 150],
 ["close", {"fd": "=FD"}, 0],
 ["stat", {"pathname": "s-out.txt"}, 0],
 ["rename", {"oldpath": "s-out.txt", "newpath": "s-renamed.txt"}, 0],
 ["mkdir", {"pathname": "s-dir", "mode": 448}, 0],
 ["opendir", {"name": "s-dir"}, "=D"],
 ["readdir", {"dirp": "=D"}, 1],
 ["readdir", {"dirp": "=D"}, 1],
 ["readdir", {"dirp": "=D"}, 0],
 ["closedir", {"dirp": "=D"}, 0],
 ["rmdir", {"pathname": "s-dir"}, 0],
 ["open", {"pathname": "s-missing", "flags": 0, "mode": 0}, -1]
]}
JSON
py expect.py serial.jsonl spec.json || fail "serial events"
grep '"func":"open","parent":-1,"args":{"pathname":"s-missing"' serial.jsonl | grep '"errno":2' > /dev/null ||
    fail "the failed open does not carry errno ENOENT"
grep '"func":"fwrite"' serial.jsonl | grep '"bytes":200' > /dev/null || fail "fwrite bytes"
pass "serial program traced with its exact events"
