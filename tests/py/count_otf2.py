#!/usr/bin/env python3
"""Counts an OTF2 archive's records per location and kind, and the bytes
each I/O handle completed, with the otf2 module (Debian's python3-otf2: a
reader apart from otf2-print), as JSON for check_otf2.py.

usage: count_otf2.py ANCHOR > COUNTS.JSON   (run by the Python that has otf2)
"""
import collections
import json
import sys

import otf2

records = collections.Counter()
nbytes = collections.Counter()
with otf2.reader.open(sys.argv[1]) as trace:
    for loc, ev in trace.events:
        records[(loc._ref, type(ev).__name__)] += 1
        if isinstance(ev, otf2.events.IoOperationComplete):
            nbytes[(ev.handle.name, ev.handle.io_paradigm.identification)] += ev.bytes_result
json.dump({"records": [[l, k, n] for (l, k), n in sorted(records.items())],
           "bytes": [[h, p, b] for (h, p), b in sorted(nbytes.items())]}, sys.stdout)
