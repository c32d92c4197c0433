"""The columnar DataFrames of python/siotrace (events(), built from arrays
libsiot.so fills) against `siot dump --jsonl`, run by
tests/integ/64-python-reader.sh with Debian's python3 and pandas:
    /usr/bin/python3 -m unittest test_frames
Inputs from the environment:
  FRAME_TRACES  "TRACE:JSONL ..." : traces (the examples', loops.c at 4
                ranks, big.c's offsets past 2^53) and `siot dump --jsonl`
                of each
  MW, MW_N, MW_SRC  the trace of tests/progs/manywrites.c at 2 ranks with
                N writes a rank, and its source (the writes' sizes and
                offsets come from its #defines)"""
import json
import math
import os
import re
import unittest

import numpy
import pandas

import siotrace


def dump_rows(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def expected_frame_columns(rows):
    """What the frame should hold, from the dump alone: per column, a
    value or None per row, the columns in the order the dicts of the
    package gave them (the fixed ones, then arguments as rows first show
    them; an argument named like a fixed column gets arg_)."""
    n = len(rows)
    cols = {"rank": [r["rank"] for r in rows], "seq": [r["seq"] for r in rows],
            "thread": [r.get("thread", 0) for r in rows], "layer": [r["layer"] for r in rows],
            "func": [r["func"] for r in rows], "parent": [r["parent"] for r in rows],
            "ret": [r.get("ret", 0) for r in rows], "errno": [r.get("errno", 0) for r in rows],
            "bytes": [r.get("bytes") for r in rows]}
    args = {}
    for i, r in enumerate(rows):
        for k, v in r["args"].items():
            name = k if k not in siotrace.COLUMNS else "arg_" + k
            args.setdefault(name, [None] * n)[i] = v
    return cols, args


def same(got, want):
    if want is None:
        return got is None or got is pandas.NA or (isinstance(got, float) and math.isnan(got))
    if isinstance(want, (dict, list, str)):
        return got == want
    return got == want and not isinstance(got, str)


class Frames(unittest.TestCase):
    def check_frame(self, df, rows, where):
        cols, args = expected_frame_columns(rows)
        self.assertEqual(len(df), len(rows), where)
        self.assertEqual(list(df.columns), siotrace.COLUMNS + list(args), where)
        for name, want in list(cols.items()) + list(args.items()):
            got = df[name].astype(object).tolist()
            for i, (g, w) in enumerate(zip(got, want)):
                if not same(g, w):
                    self.fail("%s: column %s row %d (rank %d seq %d): frame %r, dump %r"
                              % (where, name, i, rows[i]["rank"], rows[i]["seq"], g, w))

    def traces(self):
        for pair in os.environ["FRAME_TRACES"].split():
            trace, dump = pair.split(":")
            yield trace, dump_rows(dump)

    def test_frame_is_the_dump(self):
        for trace, rows in self.traces():
            t = siotrace.open(trace)
            self.check_frame(t.events(), rows, os.path.basename(trace))
            # the times are the dicts' (the library's other form of the same
            # events, printed with one decimal: 0.05 and the parse's error)
            df = t.events()
            dicts = list(t.iter_events())
            self.assertTrue(numpy.allclose(df["start"], [d["start"] for d in dicts], rtol=0, atol=0.06))
            self.assertTrue(numpy.allclose(df["dur"], [d["dur"] for d in dicts], rtol=0, atol=0.06))
            self.assertTrue((df["dur"] >= 0).all())

    def test_growing_past_the_count(self):
        # the count bounds the rows; were it short, the arrays grow: force it
        from siotrace import columns
        count = columns.Reader.count
        columns.Reader.count = lambda self: (count(self), 1)[1]
        try:
            for trace, rows in self.traces():
                self.check_frame(siotrace.open(trace).events(), rows, os.path.basename(trace) + " grown")
        finally:
            columns.Reader.count = count

    def test_chunks_and_filters_are_the_dump(self):
        for trace, rows in self.traces():
            t, name = siotrace.open(trace), os.path.basename(trace)
            parts = list(t.events(chunk=61, as_frames=True))  # small chunks: resumed mid-rank
            self.assertTrue(all(len(p) <= 61 for p in parts), name)
            got = pandas.concat([p.astype(object) for p in parts], ignore_index=True)
            want = t.events().astype(object)
            self.assertEqual(sorted(got.columns), sorted(want.columns), name)
            for c in want.columns:
                self.assertEqual(got[c].fillna(-7).tolist(), want[c].fillna(-7).tolist(), "%s: %s" % (name, c))
            last = max(r["rank"] for r in rows)
            funcs = sorted(set(r["func"] for r in rows))[:2]
            sub = [r for r in rows if r["rank"] in (0, last) and r["func"] in funcs]
            self.check_frame(t.events(ranks=[0, last], functions=funcs), sub, name + " ranks/functions")
            posix = [r for r in rows if r["layer"] == "posix"]
            self.check_frame(t.events(layers="posix", sample=3, limit=50), posix[::3][:50], name + " posix/3/50")
            self.assertEqual(len(t.events(limit=0)), 0)

    def test_manywrites_values_from_the_source(self):
        with open(os.environ["MW_SRC"]) as f:
            d = dict(re.findall(r"^#define (\w+) (\d+)$", f.read(), re.M))
        base, step, period, wrap, slot = (int(d[k]) for k in ("BASE", "STEP", "PERIOD", "WRAP", "SLOT"))
        n = int(os.environ["MW_N"])
        df = siotrace.open(os.environ["MW"]).events()
        w = df[df["func"] == "pwrite"]
        self.assertEqual(len(w), 2 * n)
        i = numpy.tile(numpy.arange(n), 2)
        self.assertTrue((w["rank"].to_numpy() == numpy.repeat([0, 1], n)).all())
        self.assertTrue((w["count"].to_numpy() == base + step * (i % period)).all())
        self.assertTrue((w["bytes"].to_numpy() == w["count"].to_numpy()).all())
        self.assertTrue((w["offset"].to_numpy() == (i % wrap) * slot).all())
        self.assertEqual(int(w["count"].sum()), 2 * int((base + step * (numpy.arange(n) % period)).sum()))
        opens = df[df["func"] == "open"]
        self.assertEqual(sorted(opens["pathname"].astype(str)), ["manywrites-0.dat", "manywrites-1.dat"])
        self.assertEqual(str(df["func"].dtype), "category")


if __name__ == "__main__":
    unittest.main()
