#!/bin/sh
# `make install`: installs every flavour that has been built (build/mpich,
# build/openmpi) under $DESTDIR$PREFIX:
#   bin/siot, bin/ioreplay.FLAVOUR (bin/ioreplay: the MPICH one when built)
#   lib/siotrace/FLAVOUR/libsiotrace.a and its flag files, whose archive path
#     is rewritten to the installed one
#   lib/pkgconfig/siotrace-FLAVOUR.pc (siotrace.pc: the default flavour)
#   share/man/man1/siot.1 ioreplay.1, share/man/man7/siotrace.7
#   share/doc/siotrace/: README.md and docs/*.md (the README's links to
#     docs/ hold there too)
#   include/siotrace/: the headers a `siot stats --plugin` library is built
#     against (replay/analyze.h and what it includes, in the same layout)
set -eu
: "${PREFIX:?PREFIX must be set}"
DESTDIR=${DESTDIR:-}
VERSION=${VERSION:-0.1.0}
case "$PREFIX" in /*) ;; *) echo "install: PREFIX must be an absolute path, not '$PREFIX'" >&2; exit 2 ;; esac
SRC=$(pwd)
D=$DESTDIR$PREFIX
built=""
for f in mpich openmpi; do
    [ -f "build/$f/lib/libsiotrace.a" ] && [ -f "build/$f/wrap.flags" ] && [ -x "build/$f/bin/siot" ] &&
        [ -x "build/$f/bin/ioreplay" ] && built="$built $f"
done
if [ -z "$built" ]; then
    echo "install: nothing built yet: run 'make' (and 'make MPI=openmpi') first" >&2
    exit 2
fi
mkdir -p "$D/bin" "$D/lib/pkgconfig" "$D/share/man/man1" "$D/share/man/man7"
first=""
for f in $built; do
    [ -n "$first" ] || first=$f
    L=$D/lib/siotrace/$f
    mkdir -p "$L"
    install -m 644 "build/$f/lib/libsiotrace.a" "$L/libsiotrace.a"
    for flags in build/$f/wrap*.flags; do
        # the archive was named by its absolute path in the build tree
        sed "s|^$SRC/build/$f/lib/libsiotrace.a\$|$PREFIX/lib/siotrace/$f/libsiotrace.a|" "$flags" \
            > "$L/$(basename "$flags")"
        if grep -qF "$SRC/build/$f/" "$L/$(basename "$flags")"; then
            echo "install: $flags still names the build tree" >&2
            exit 2
        fi
    done
    install -m 755 "build/$f/bin/ioreplay" "$D/bin/ioreplay.$f"
    {
        echo "prefix=$PREFIX"
        echo "libdir=\${prefix}/lib/siotrace/$f"
        echo "wrap=\${libdir}/wrap.flags"
        [ -f "$L/wrap-hdf5.flags" ] && echo "wrap_hdf5=\${libdir}/wrap-hdf5.flags"
        [ -f "$L/wrap-pnetcdf.flags" ] && echo "wrap_pnetcdf=\${libdir}/wrap-pnetcdf.flags"
        echo "ioreplay=\${prefix}/bin/ioreplay.$f"
        echo "plugin_cflags=-I\${prefix}/include/siotrace"
        echo
        echo "Name: siotrace-$f"
        echo "Description: multi-level I/O tracer for MPI programs built with mpicc.$f (link option)"
        echo "Version: $VERSION"
        echo "Libs: -Wl,@\${libdir}/wrap.flags"
    } > "$D/lib/pkgconfig/siotrace-$f.pc"
done
install -m 755 "build/$first/bin/siot" "$D/bin/siot"
ln -sf "ioreplay.$first" "$D/bin/ioreplay"
ln -sf "siotrace-$first.pc" "$D/lib/pkgconfig/siotrace.pc"
install -m 644 man/siot.1 man/ioreplay.1 "$D/share/man/man1/"
install -m 644 man/siotrace.7 "$D/share/man/man7/"
mkdir -p "$D/share/doc/siotrace/docs"
install -m 644 README.md "$D/share/doc/siotrace/"
install -m 644 docs/*.md "$D/share/doc/siotrace/docs/"
mkdir -p "$D/include/siotrace/replay" "$D/include/siotrace/core"
install -m 644 replay/analyze.h "$D/include/siotrace/replay/"
install -m 644 core/model.h core/vbuf.h core/ranktimes.h core/roles.h "$D/include/siotrace/core/"
# The Python package, where Debian's python3 looks under the prefix
# (/usr/local: /usr/local/lib/python3.X/dist-packages), with the reader
# library beside it.
if [ -f "build/$first/lib/libsiot.so" ] && [ -x /usr/bin/python3 ]; then
    PYDIR=$(/usr/bin/python3 -c 'import sys; print("%s/lib/python3.%d/dist-packages" % (sys.argv[1], sys.version_info[1]))' "$D")
    mkdir -p "$PYDIR/siotrace"
    install -m 644 python/siotrace/*.py "$PYDIR/siotrace/"
    install -m 755 "build/$first/lib/libsiot.so" "$PYDIR/siotrace/libsiot.so"
    echo "  python: import siotrace (in $PYDIR)"
fi
echo "install: siotrace $VERSION ($built ) in $D"
echo "  link:  mpicc.$first app.o -Wl,@$PREFIX/lib/siotrace/$first/wrap.flags -o app"
echo "         or \$(pkg-config --libs siotrace-$first) with PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig"
