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


class _Columns(ctypes.Structure):
    """siot_lib_columns (siot/lib_columns.h): where siot_lib_fill writes."""
    _fields_ = [(name, ctypes.c_void_p) for name in (
        "rank", "thread", "err", "seq", "parent", "ret", "bytes", "has_bytes",
        "start", "dur", "layer", "func", "arg", "arg_kind")] + [("narrow", ctypes.c_int32)]


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
        U64, I64 = ctypes.c_uint64, ctypes.c_int64
        lib.siot_lib_select.restype, lib.siot_lib_select.argtypes = ctypes.c_int, [P, S, U64, U64, S, E]
        for f in (lib.siot_lib_tables, lib.siot_lib_codes):
            f.restype, f.argtypes = P, [P, S, E]
        lib.siot_lib_texts.restype, lib.siot_lib_texts.argtypes = P, [P, ctypes.c_uint32, S, E]
        lib.siot_lib_count.restype, lib.siot_lib_count.argtypes = I64, [P, ctypes.POINTER(U64), S, E]
        lib.siot_lib_fill.restype = I64
        lib.siot_lib_fill.argtypes = [P, ctypes.POINTER(_Columns), U64, U64, S, E]
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


# the frame's first columns (siotrace.columns); without numpy there are no frames
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

    def _cursor(self, ranks, layers, functions, sample, limit):
        """A cursor of the library over the events asked for (rank, layer,
        function, one in `sample`, at most `limit`: all chosen there)."""
        err = ctypes.create_string_buffer(512)
        cur = self._lib.siot_lib_events(self._h, _listing(ranks), _listing(layers), err, len(err))
        if not cur:
            raise TraceError(err.value.decode("utf-8", "replace"))
        if self._lib.siot_lib_select(cur, _listing(functions), sample, limit or 0, err, len(err)) != 0:
            self._lib.siot_lib_cursor_free(cur)
            raise TraceError(err.value.decode("utf-8", "replace"))
        return cur

    def _chunks(self, ranks, layers, functions, sample, limit, chunk):
        err = ctypes.create_string_buffer(512)
        cur = self._cursor(ranks, layers, functions, sample, limit)
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
        as Python objects). The filters (ranks, layers, functions, one in
        `sample`, at most `limit`) are applied by the reader (ranks not
        asked for are not walked)."""
        if limit == 0:
            return
        for rows in self._chunks(ranks, layers, _names(functions), sample, limit, chunk):
            yield from rows

    def events(self, ranks=None, layers=None, functions=None, sample=1, limit=None, chunk=16384, as_frames=False):
        """The events as one pandas DataFrame (columns: rank seq thread layer
        func parent ret errno bytes start dur, then one per argument name),
        or, with as_frames=True, a generator of DataFrames of at most chunk
        rows each. Built from arrays the reader fills (siotrace.columns):
        layer, func and text arguments are categoricals. Without pandas: a
        list of dicts."""
        try:
            import pandas
        except ImportError:
            return list(self.iter_events(ranks, layers, functions, sample, limit, chunk))
        from . import columns
        if as_frames:
            return self._frames(ranks, layers, functions, sample, limit, chunk, pandas)
        if limit == 0:
            return columns.frame(None, None, 0, pandas)
        cur = self._cursor(ranks, layers, functions, sample, limit)
        try:
            r = columns.Reader(self._lib, cur, TraceError, _Columns, _names(layers), _names(functions))
            buf, n = r.fill_all()
            return columns.frame(r, buf, n, pandas)
        finally:
            self._lib.siot_lib_cursor_free(cur)

    def _frames(self, ranks, layers, functions, sample, limit, chunk, pandas):
        from . import columns
        if limit == 0:
            return
        cur = self._cursor(ranks, layers, functions, sample, limit)
        try:
            r = columns.Reader(self._lib, cur, TraceError, _Columns, _names(layers), _names(functions))
            while True:
                buf, r.stats = r.buffers(chunk), {}
                n = r.fill(buf, 0, chunk)
                if n == 0:
                    return
                yield columns.frame(r, buf, n, pandas)
        finally:
            self._lib.siot_lib_cursor_free(cur)

    def _frame(self, rows):
        try:
            import pandas
        except ImportError:
            return rows
        return pandas.DataFrame(rows)


def _names(values):
    """A filter's names as a set, or None for all."""
    if values is None:
        return None
    return set([values] if isinstance(values, (str, int)) else values)


def open(path):  # noqa: A001 (the package's entry, as the issue names it)
    """Opens a trace; raises TraceError with the reader's reason when it
    cannot be read."""
    return Trace(path)
