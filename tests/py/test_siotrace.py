"""The Python reader (python/siotrace over libsiot.so), run by
tests/integ/64-python-reader.sh with Debian's python3 and pandas:
    /usr/bin/python3 -m unittest test_siotrace
Its inputs come from the environment:
  KNOWN        the trace of tests/progs/known.c at 4 ranks
  KNOWN_JSONL  `siot dump --jsonl` of it
  KNOWN_STATS  `siot stats --json` of it
  BIG, BIG_N   the trace of `big irregular BIG_N` at 2 ranks
  CORRUPT      a truncated trace"""
import json
import os
import unittest

import pandas

import siotrace

KNOWN, BIG, BIG_N = os.environ["KNOWN"], os.environ["BIG"], int(os.environ["BIG_N"])


def jsonl_rows():
    with open(os.environ["KNOWN_JSONL"]) as f:
        return [json.loads(line) for line in f]


class Reader(unittest.TestCase):
    def test_summary_is_siot_stats(self):
        with open(os.environ["KNOWN_STATS"]) as f:
            want = json.load(f)
        self.assertEqual(siotrace.open(KNOWN).summary(), want)

    def test_events_are_the_dump_row_by_row(self):
        want = jsonl_rows()
        got = list(siotrace.open(KNOWN).iter_events(chunk=7))  # small chunks: the cursor resumes mid-rank
        self.assertEqual(len(got), len(want))
        for g, w in zip(got, want):
            for k in ("rank", "seq", "layer", "func", "parent", "ret", "args"):
                self.assertEqual(g[k], w[k], "%s of rank %d event %d" % (k, w["rank"], w["seq"]))
            self.assertEqual(g["errno"], w.get("errno", 0))
            self.assertEqual(g.get("bytes"), w.get("bytes"))
            self.assertEqual(g.get("names", {}), w.get("names", {}))
            self.assertGreaterEqual(g["dur"], 0)

    def test_dataframe_of_known_c(self):
        # tests/progs/known.c: each rank writes 10 x 100 bytes with
        # MPI_File_write_at at rank*1000 + 100*i
        df = siotrace.open(KNOWN).events(functions="MPI_File_write_at")
        self.assertIsInstance(df, pandas.DataFrame)
        self.assertEqual(len(df), 40)
        for r in range(4):
            mine = df[df["rank"] == r]
            self.assertEqual(sorted(mine["offset"]), [r * 1000 + 100 * i for i in range(10)])
            self.assertEqual(set(mine["bytes"]), {100})
        for c in siotrace.COLUMNS:
            self.assertIn(c, df.columns)

    def test_filters_rank_and_layer(self):
        t = siotrace.open(KNOWN)
        want = [w for w in jsonl_rows() if w["rank"] == 2 and w["layer"] == "posix"]
        got = list(t.iter_events(ranks=[2], layers=["posix"]))
        self.assertEqual([(g["seq"], g["func"]) for g in got], [(w["seq"], w["func"]) for w in want])
        self.assertEqual(len(list(t.iter_events(limit=5))), 5)
        self.assertEqual(len(list(t.iter_events(sample=10))), (len(jsonl_rows()) + 9) // 10)

    def test_big_trace_streamed_and_filtered(self):
        # big.c irregular: each rank makes BIG_N lseeks to x >> 21 for the
        # sequence x = x*6364136223846793005 + 1442695040888963407 from 12345 + rank
        t = siotrace.open(BIG)
        x, n = 12345 + 1, 0
        for frame in t.events(ranks=[1], layers=["posix"], functions="lseek", chunk=100000, as_frames=True):
            self.assertEqual(set(frame["rank"]), {1})
            for off in frame["offset"]:
                x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
                self.assertEqual(off, x >> 21)
                n += 1
        self.assertEqual(n, BIG_N)

    def test_structure_is_the_compressed_form(self):
        nodes = siotrace.open(KNOWN).structure()
        loops = [x for x in nodes if x["kind"] == "loop"]
        self.assertTrue(any(x["count"] == "10" and any(b.get("func") == "MPI_File_write_at" for b in x["body"]) for x in loops))

    def test_bad_input_raises_trace_error(self):
        with self.assertRaises(siotrace.TraceError) as e:
            siotrace.open(os.environ["CORRUPT"])
        self.assertTrue(str(e.exception))
        with self.assertRaises(siotrace.TraceError):
            siotrace.open("/nonexistent/x.siot")
        with self.assertRaises(siotrace.TraceError):
            list(siotrace.open(KNOWN).iter_events(layers=["nfs"]))


if __name__ == "__main__":
    unittest.main()
