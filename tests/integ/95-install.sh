#!/bin/bash
# make install into a temporary prefix, then build and trace programs with
# the installed files only (pkg-config for the link option, the installed
# siot to read the trace); man pages and every --help.
. "$(dirname "$0")/../lib.sh"
# a prefix outside the source tree, as an installation is
P=$(mktemp -d /tmp/siot-prefix.XXXXXX)
trap 'rm -rf "$P"' EXIT
make -s -C "$ROOT" install PREFIX="$P" > install.out || fail "make install"
for f in bin/siot "bin/ioreplay.$MPI" "lib/siotrace/$MPI/libsiotrace.a" "lib/siotrace/$MPI/wrap.flags" \
    "lib/siotrace/$MPI/wrap-hdf5.flags" "lib/pkgconfig/siotrace-$MPI.pc" share/man/man1/siot.1 \
    share/man/man1/ioreplay.1 share/man/man7/siotrace.7 include/siotrace/replay/analyze.h \
    share/doc/siotrace/README.md share/doc/siotrace/docs/recording.md share/doc/siotrace/docs/replay.md; do
    [ -e "$P/$f" ] || fail "not installed: $f"
done
# The Python package, with the reader beside it, where Debian's python3
# looks under the prefix.
pydir=$(/usr/bin/python3 -c 'import sys; print("lib/python3.%d/dist-packages" % sys.version_info[1])')
[ -f "$P/$pydir/siotrace/__init__.py" ] && [ -f "$P/$pydir/siotrace/columns.py" ] && [ -f "$P/$pydir/siotrace/libsiot.so" ] || fail "not installed: $pydir/siotrace"
# Nothing installed points back into the source tree.
! grep -lF "$ROOT/" "$P"/lib/siotrace/*/*.flags "$P"/lib/pkgconfig/*.pc || fail "installed files name the build tree"
export PKG_CONFIG_PATH=$P/lib/pkgconfig
link=$(pkg-config --libs "siotrace-$MPI" | sed "s/ *$//") || fail "pkg-config siotrace-$MPI"
[ "$link" = "-Wl,@$P/lib/siotrace/$MPI/wrap.flags" ] || fail "pkg-config --libs gave '$link'"
hdf5=$(pkg-config --variable=wrap_hdf5 "siotrace-$MPI")
# A Makefile-based application: tracing is one variable on the command line.
mkdir app && cd app
cp "$ROOT/examples/ckpt/ckpt.c" "$ROOT/tests/progs/known.c" .
cat > Makefile << 'MK'
CC = mpicc.$(MPI)
app: ckpt.o
	$(CC) ckpt.o $(LDFLAGS) -o app
MK
make -s MPI="$MPI" LDFLAGS="$link" > make.out 2>&1 || { cat make.out >&2; fail "the application's Makefile with LDFLAGS"; }
SIOT_TRACE=$WORK/app.siot mpirun_np 4 ./app 4 2 2 1024 > /dev/null || fail "traced run of the installed-archive build"
"$P/bin/siot" dump --jsonl "$WORK/app.siot" > app.jsonl || fail "installed siot cannot read the trace"
# the installed Python package reads it too, with its own libsiot.so (not the build tree's)
n=$(env -u SIOT_LIBSIOT PYTHONPATH="$P/$pydir" /usr/bin/python3 -c '
import sys, siotrace
assert siotrace._find_library().startswith(sys.argv[2])
print(sum(1 for _ in siotrace.open(sys.argv[1]).iter_events()))' "$WORK/app.siot" "$P/") ||
    fail "the installed Python package cannot read the trace"
[ "$n" = "$(wc -l < app.jsonl)" ] || fail "the installed Python package read $n events, siot dump --jsonl $(wc -l < app.jsonl)"
# pip install of python/ (pyproject.toml, no network: Debian's setuptools),
# from a copy of the sources (the build writes beside them) with this
# flavour's reader, into a directory of its own: its frame has the dump's pwrites
n=$(cp -r "$ROOT/python" pysrc && SIOT_LIBSIOT=$B/lib/libsiot.so /usr/bin/python3 -m pip install -q \
    --no-build-isolation --no-index --target "$P/pip" ./pysrc 2> pip.err > pip.out &&
    env -u SIOT_LIBSIOT PYTHONPATH="$P/pip" /usr/bin/python3 -c '
import sys, siotrace
assert siotrace._find_library().startswith(sys.argv[2])
print(len(siotrace.open(sys.argv[1]).events(functions="pwrite")))' "$WORK/app.siot" "$P/pip/") ||
    { cat pip.out pip.err >&2; fail "pip install ./python"; }
[ "$n" = "$(grep -c '"func":"pwrite"' app.jsonl)" ] || fail "the pip-installed package read $n pwrite calls, the dump another number"
# ckpt 4 steps, every 2 -> 2 checkpoints per rank, each 2 blocks written with pwrite (ckpt.c)
n=$(grep -c '"func":"pwrite","parent":-1' app.jsonl || true)
[ "$n" = 16 ] || fail "expected 16 pwrite calls (4 ranks x 2 checkpoints x 2 blocks), the trace has $n"
# An HDF5 program with the installed HDF5 flag file.
mpicc.$MPI -std=c11 -O1 -I/usr/include/hdf5/$MPI -c "$ROOT/examples/flash-io/flash-io.c" -o flash.o
mpicc.$MPI flash.o -Wl,@"$hdf5" -o flash || fail "linking with the installed wrap-hdf5.flags"
SIOT_TRACE=$WORK/flash.siot mpirun_np 2 ./flash -n 1 -i > /dev/null || fail "traced flash-io (installed)"
"$P/bin/siot" stats "$WORK/flash.siot" > flash.stats || fail "installed siot stats"
grep -q H5Dwrite flash.stats || fail "no H5Dwrite in the installed build's trace"
# A siot stats plug-in built against the installed headers only (no source
# tree on the include path), loaded by the installed siot: MPI_File_write_at_all
# bytes per rank of an ior run, 4 segments x 65536 bytes (as in test 60).
cp "$ROOT/tests/plugin/write_all_bytes.c" .
pcf=$(pkg-config --variable=plugin_cflags "siotrace-$MPI")
[ "$pcf" = "-I$P/include/siotrace" ] || fail "plugin_cflags is '$pcf'"
gcc -std=c11 -O1 -shared -fPIC $pcf -o writeall.so write_all_bytes.c || fail "plug-in build with the installed headers"
SIOT_TRACE=$WORK/ior.siot mpirun_np 4 "$B/examples/ior" -a mpiio -c -s 4 -b 65536 -t 16384 > /dev/null || fail ior
"$P/bin/siot" stats --plugin ./writeall.so "$WORK/ior.siot" > p.txt || fail "installed siot stats --plugin"
for r in 0 1 2 3; do
    grep -qx "rank $r MPI_File_write_at_all bytes 262144" p.txt || { cat p.txt >&2; fail "installed plug-in: rank $r"; }
done
cd "$WORK"
mkdir rp && (cd rp && mpirun_np 4 "$P/bin/ioreplay.$MPI" --quiet --no-compute "$WORK/app.siot") || fail "installed ioreplay"
# man pages: found through MANPATH, formatted without warnings
for m in siot ioreplay siotrace; do
    MANPATH=$P/share/man man -w "$m" > /dev/null 2>&1 || fail "man $m not found under the prefix"
    w=$(MANPATH=$P/share/man man --warnings "$m" 2>&1 > /dev/null)
    [ -z "$w" ] || fail "man $m: $w"
done
MANPATH=$P/share/man man siotrace > man.txt 2> /dev/null || fail "man siotrace"
grep -q SIOT_MAX_MEMORY man.txt || fail "man siotrace lacks the environment"
# every --help: exit 0, a usage line, each option the parser knows
for c in dump diff stats findings merge report export; do
    "$P/bin/siot" "$c" --help > help.txt || fail "siot $c --help exited $?"
    grep -q "^usage: siot $c" help.txt || fail "siot $c --help has no usage line"
    "$P/bin/siot" help "$c" > help2.txt
    cmp -s help2.txt help.txt || fail "siot help $c differs from siot $c --help"
    "$P/bin/siot" --help > usage.txt
    grep -q "^  $c" usage.txt || fail "siot --help does not list $c"
done
for o in --root --level --no-compute --time-scale --seed --quiet --progress; do
    "$P/bin/ioreplay.$MPI" --help > rphelp.txt || fail "ioreplay --help"
    grep -q -- "$o" rphelp.txt || fail "ioreplay --help lacks $o"
done
pass "installed to a prefix and python/ with pip; a Makefile app traced through pkg-config, HDF5 through wrap_hdf5; a plug-in on the installed headers; man pages; --help"
