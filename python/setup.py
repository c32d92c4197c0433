"""Copies the reader library (libsiot.so, built by siotrace's make) into
the package being built, so that an installed siotrace needs no build tree:
$SIOT_LIBSIOT when set, else the first flavour built (build/mpich,
build/openmpi beside this directory). The metadata is in pyproject.toml."""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def reader_library():
    candidates = [os.environ.get("SIOT_LIBSIOT", "")]
    candidates += [os.path.join(HERE, "..", "build", f, "lib", "libsiot.so") for f in ("mpich", "openmpi")]
    for c in candidates:
        if c and os.path.exists(c):
            return c
    raise SystemExit("siotrace: libsiot.so not found: build siotrace first (make), or set SIOT_LIBSIOT")


class BuildWithReader(build_py):
    def run(self):
        super().run()
        dest = os.path.join(self.build_lib, "siotrace")
        os.makedirs(dest, exist_ok=True)
        shutil.copy(reader_library(), os.path.join(dest, "libsiot.so"))


setup(cmdclass={"build_py": BuildWithReader})
