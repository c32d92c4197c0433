"""unpacked_size.py FILE: the size of a .siot file unpacked (its own size
when it is not packed): what the folding left, for the tests that measure
it (the packing's DEFLATE would hide part of a trace's growth)."""
import sys

from siot_container import unpacked

print(len(unpacked(open(sys.argv[1], "rb").read())))
