"""siotrace: read siotrace traces (*.siot) from Python.

The decoding is done by the tool's own reader, libsiot.so (siot/lib.h),
through ctypes: nothing of the format is reimplemented here.

    import siotrace
    t = siotrace.open("app.siot")
    t.summary()["functions"]["pwrite"]["bytes"]    # what `siot stats --json` says
    df = t.events(ranks=[0], layers=["posix"])      # a pandas DataFrame
    for chunk in t.events(chunk=100000, as_frames=True): ...   # streamed

Without pandas, events() returns dicts. Times (start, dur) are the ones
`siot export` synthesises from the trace's timing histograms: typical
values, not measured timestamps.
"""
import ctypes
import json
import os

__all__ = ["open", "Trace", "TraceError"]


class TraceError(Exception):
    """A trace that cannot be read, with the reader's one-line reason."""


def _find_library():
    """libsiot.so: $SIOT_LIBSIOT, beside this package (make install), or in
    the build tree (build/python/siotrace -> build/<flavour>/lib)."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("SIOT_LIBSIOT", ""), os.path.join(here, "libsiot.so")]
    build = os.path.dirname(os.path.dirname(here))
    candidates += [os.path.join(build, flavour, "lib", "libsiot.so") for flavour in ("mpich", "openmpi")]
    for c in candidates:
        if c and os.path.exists(c):
            return c
    raise TraceError("libsiot.so not found (build siotrace with make, or set SIOT_LIBSIOT)")


_lib = None


def _library():
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(_find_library())
        P, S, E = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t
        lib.siot_lib_open.restype, lib.siot_lib_open.argtypes = P, [S, S, E]
        lib.siot_lib_close.restype, lib.siot_lib_close.argtypes = None, [P]
        lib.siot_lib_nranks.restype, lib.siot_lib_nranks.argtypes = ctypes.c_uint32, [P]
        for f in (lib.siot_lib_summary, lib.siot_lib_structure):
            f.restype, f.argtypes = P, [P, S, E]
        lib.siot_lib_events.restype, lib.siot_lib_events.argtypes = P, [P, S, S, S, E]
        lib.siot_lib_next.restype, lib.siot_lib_next.argtypes = P, [P, ctypes.c_uint32, S, E]
        lib.siot_lib_cursor_free.restype, lib.siot_lib_cursor_free.argtypes = None, [P]
        lib.siot_lib_free.restype, lib.siot_lib_free.argtypes = None, [P]
        _lib = lib
    return _lib


def _take_text(lib, ptr):
    """The library's malloc'd text as a Python string, freed."""
    try:
        return ctypes.string_at(ptr).decode("utf-8", "replace")
    finally:
        lib.siot_lib_free(ptr)


def _listing(values):
    if values is None:
        return None
    if isinstance(values, (str, int)):
        values = [values]
    return ",".join(str(v) for v in values).encode()


COLUMNS = ["rank", "seq", "thread", "layer", "func", "parent", "ret", "errno", "bytes", "start", "dur"]


class Trace:
    """An opened trace. Use open(path)."""

    def __init__(self, path):
        self._lib = _library()
        err = ctypes.create_string_buffer(512)
        self._h = self._lib.siot_lib_open(os.fsencode(path), err, len(err))
        if not self._h:
            raise TraceError(err.value.decode("utf-8", "replace"))
        self.path = path
        self.nranks = self._lib.siot_lib_nranks(self._h)
        self._summary = None

    def close(self):
        if self._h:
            self._lib.siot_lib_close(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _text(self, fn):
        err = ctypes.create_string_buffer(512)
        ptr = fn(self._h, err, len(err))
        if not ptr:
            raise TraceError(err.value.decode("utf-8", "replace"))
        return _take_text(self._lib, ptr)

    def summary(self):
        """The statistics of `siot stats --json`, computed on the compressed
        trace (no expansion): functions, layers, communication, ranks,
        rank_times, files, file_patterns, request_sizes, call_sites."""
        if self._summary is None:
            self._summary = json.loads(self._text(self._lib.siot_lib_summary))
        return self._summary

    def rank_times(self):
        """The ranks' own times, or None when the trace has none: a dict
        with "form" ("rows": every rank's row, each rank's times also in
        summary()["ranks"][r]["time_s"]; "summary": past 2K ranks, no rows,
        only the K fastest and slowest ranks of each quantity with their
        exact values), "ranks" (how many the times cover), "rows" (0 in a
        summary), "keep" (K) and "quantities":
        per quantity (span, compute, io, mpi, ...) min_s, max_s, mean_s,
        stddev_s, "slowest" and "fastest" ([{"rank", "s"}], most extreme
        first) and "hist" ([[bin_low_ns, ranks]], log2 bins)."""
        return self.summary().get("rank_times")

    def files(self):
        """One row per file and layer (calls, bytes, opens, ranks, sharing)."""
        return self._frame(self.summary()["files"])

    def call_sites(self):
        """The busiest call sites with their location (file:line (function))."""
        return self._frame(self.summary()["call_sites"])

    def structure(self):
        """The compressed form itself: a list of nodes, events and loops
        (with their count and body), values as expressions of rank and
        loop iterations, as `siot dump` shows them."""
        return json.loads(self._text(self._lib.siot_lib_structure))

    def _chunks(self, ranks, layers, chunk):
        err = ctypes.create_string_buffer(512)
        cur = self._lib.siot_lib_events(self._h, _listing(ranks), _listing(layers), err, len(err))
        if not cur:
            raise TraceError(err.value.decode("utf-8", "replace"))
        try:
            while True:
                ptr = self._lib.siot_lib_next(cur, chunk, err, len(err))
                if not ptr:
                    if err.value:
                        raise TraceError(err.value.decode("utf-8", "replace"))
                    return
                yield json.loads(_take_text(self._lib, ptr))
        finally:
            self._lib.siot_lib_cursor_free(cur)

    def iter_events(self, ranks=None, layers=None, functions=None, sample=1, limit=None, chunk=16384):
        """Events as dicts (rank, seq, thread, layer, func, parent, ret,
        errno, bytes, start, dur, args, names), each rank in program order;
        streamed: only `chunk` events are held at a time (about 3 KiB each
        as Python objects). ranks and layers
        are filtered by the reader (ranks not asked for are not walked);
        functions, sample (one in k) and limit here."""
        funcs = set([functions] if isinstance(functions, str) else functions) if functions else None
        n = kept = 0
        for rows in self._chunks(ranks, layers, chunk):
            for e in rows:
                if funcs is not None and e["func"] not in funcs:
                    continue
                n += 1
                if (n - 1) % sample:
                    continue
                if limit is not None and kept >= limit:
                    return
                kept += 1
                yield e

    def events(self, ranks=None, layers=None, functions=None, sample=1, limit=None, chunk=16384, as_frames=False):
        """The events as one pandas DataFrame (columns: rank seq thread layer
        func parent ret errno bytes start dur, then one per argument name),
        or, with as_frames=True, a generator of DataFrames of at most chunk
        rows each. Without pandas: a list of dicts."""
        it = self.iter_events(ranks, layers, functions, sample, limit, chunk)
        try:
            import pandas
        except ImportError:
            return list(it)
        if as_frames:
            return self._frames(it, chunk, pandas)
        return _to_frame([e for e in it], pandas)

    def _frames(self, it, chunk, pandas):
        rows = []
        for e in it:
            rows.append(e)
            if len(rows) == chunk:
                yield _to_frame(rows, pandas)
                rows = []
        if rows:
            yield _to_frame(rows, pandas)

    def _frame(self, rows):
        try:
            import pandas
        except ImportError:
            return rows
        return pandas.DataFrame(rows)


def _flatten(e):
    row = {k: e.get(k) for k in COLUMNS}
    for k, v in e["args"].items():
        row[k if k not in row else "arg_" + k] = v
    return row


def _to_frame(rows, pandas):
    df = pandas.DataFrame([_flatten(e) for e in rows])
    for c in COLUMNS:
        if c not in df.columns:
            df[c] = pandas.Series(dtype="float64")
    return df


def open(path):  # noqa: A001 (the package's entry, as the issue names it)
    """Opens a trace; raises TraceError with the reader's reason when it
    cannot be read."""
    return Trace(path)
