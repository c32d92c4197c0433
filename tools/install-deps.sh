#!/bin/sh
# Installs the Debian packages siotrace needs, when missing (apt-get update
# runs once, and only if something is missing).
#   install-deps.sh build   what building and `make demo` need
#   install-deps.sh         that and what the tests need (fuzzer, browser, man)
set -eu
PKGS="gcc make binutils python3 mpich libmpich-dev openmpi-bin libopenmpi-dev \
libhdf5-mpich-dev libhdf5-openmpi-dev hdf5-tools libpnetcdf-dev pnetcdf-bin \
libunwind-dev zlib1g-dev gfortran pkgconf libotf2-trace-dev"
[ "${1:-all}" = build ] || PKGS="$PKGS clang libclang-rt-14-dev chromium man-db groff-base bsdutils valgrind python3-pandas python3-numpy python3-pip python3-setuptools time otf2-tools python3-otf2"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "install-deps: all packages present"
    exit 0
fi
echo "install-deps: installing$missing"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
