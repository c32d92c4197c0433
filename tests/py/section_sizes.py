"""section_sizes.py FILE [TAG]: the bytes each section tag takes in a .siot
file (framing included); with TAG, only that tag's total (0 when absent)."""
import sys
from collections import Counter

from siot_container import sections

sizes = Counter()
for tag, _, size in sections(open(sys.argv[1], "rb").read()):
    sizes[tag] += size
if len(sys.argv) > 2:
    print(sizes[int(sys.argv[2])])
else:
    for tag, n in sorted(sizes.items()):
        print(tag, n)
