"""columns: a trace's events as DataFrames built from arrays that
libsiot.so fills (siot_lib_fill, siot/lib.h), a batch of rows per call,
instead of one dict per event: 10^6 events in about a second and under a
third of the memory of the dicts (bench/reader.sh).

The frame has the columns and values of the dicts (rank seq thread layer
func parent ret errno bytes start dur, then one column per argument name
in the order the events first show it). Types, chosen so that 10^6 events
fit in little memory without rounding a value:
  rank, thread, errno   int32 (C ints in the calls they come from)
  seq, parent           int32 while every rank's events number under 2^31,
                        else int64
  ret, start, dur       int64, float64, float64
  layer, func           categoricals of the names used
  bytes, an argument    int64 where every row has one; where some rows lack
                        it (bytes of a call that moves none, an argument of
                        another function): float64 with NaN, as pandas makes
                        of the dicts (nullable Int64 when a value lies beyond
                        2^53, which float64 would round), or, when fewer
                        than half the rows have it, a sparse column
                        (Sparse[int64, nan]: only the rows that have it)
  text arguments        categoricals (each distinct path or mode once)
  a status, an array    the object siot dump writes (dict or list)
"""
import ctypes
import json
import mmap

import numpy

from . import COLUMNS
# siot_lib_columns' arrays (siot/lib_columns.h) in its order, and their element
# types (seq and parent: int32 when narrow)
_FIXED = [("rank", numpy.int32), ("thread", numpy.int32), ("err", numpy.int32), ("seq", numpy.int64),
          ("parent", numpy.int64), ("ret", numpy.int64), ("bytes", numpy.int64), ("has_bytes", numpy.uint8),
          ("start", numpy.float64), ("dur", numpy.float64), ("layer", numpy.int8), ("func", numpy.int16)]
_ABSENT, _INT, _STR, _JSON, _NULL = 0, 1, 2, 3, 4
_EXACT = 2 ** 53  # integers float64 holds exactly
_BATCH = 1 << 20  # rows per call into the library (a call cannot be interrupted)


def _zeroed(n, dtype):
    """n zeros in pages of their own: the kernel gives a page memory only
    once written (numpy.zeros may take reused, written memory)."""
    m = mmap.mmap(-1, max(n * numpy.dtype(dtype).itemsize, 1))
    return numpy.frombuffer(m, dtype, count=n)


class Buffers:
    """The arrays of cap rows one siot_lib_fill call writes into. Argument
    arrays start zeroed (kind ABSENT) and are only written where the
    argument exists, in pages the kernel maps only when written: an
    argument of few rows costs little."""

    def __init__(self, cap, ncols, wanted, columns_type, narrow):
        self.cap, self.narrow = cap, narrow
        self.fixed = {name: (_zeroed if name in ("thread", "err") else numpy.empty)(
            cap, numpy.int32 if narrow and name in ("seq", "parent") else dtype) for name, dtype in _FIXED}
        self.arg = [_zeroed(cap, numpy.int64) if w else None for w in wanted]
        self.kind = [_zeroed(cap, numpy.uint8) if w else None for w in wanted]
        self._arg_ptrs = (ctypes.c_void_p * max(ncols, 1))(*[a.ctypes.data if a is not None else None for a in self.arg])
        self._kind_ptrs = (ctypes.c_void_p * max(ncols, 1))(*[a.ctypes.data if a is not None else None for a in self.kind])
        self.c = columns_type(*([self.fixed[name].ctypes.data for name, _ in _FIXED] +
                                [ctypes.cast(self._arg_ptrs, ctypes.c_void_p), ctypes.cast(self._kind_ptrs, ctypes.c_void_p),
                                 int(narrow)]))


class Reader:
    """The columnar form of a cursor (siot_lib_events, siot_lib_select)."""

    def __init__(self, lib, cur, error, columns_type, layers=None, functions=None):
        self.lib, self.cur, self.error, self.columns_type = lib, cur, error, columns_type
        self.err = ctypes.create_string_buffer(512)
        self.tables = json.loads(self._text(lib.siot_lib_tables))
        self.texts = [[] for _ in self.tables["args"]]  # per column: its texts by code
        self.ntexts = 0
        self.wanted = self._wanted_columns(layers, functions)
        self.narrow = None
        self.stats = {}  # per argument column of the rows filled: (values, first row, kinds bits)

    def _text(self, fn, *args):
        ptr = fn(self.cur, *args, self.err, len(self.err))
        if not ptr:
            raise self.error(self.err.value.decode("utf-8", "replace"))
        try:
            return ctypes.string_at(ptr).decode("utf-8", "replace")
        finally:
            self.lib.siot_lib_free(ptr)

    def _wanted_columns(self, layers, functions):
        """Argument columns the selected events can have (the others are
        never written: no arrays for them)."""
        t = self.tables
        layer_ok = set(t["layers"].index(x) for x in layers if x in t["layers"]) if layers is not None else None
        wanted = [False] * len(t["args"])
        for f, name in enumerate(t["funcs"]):
            if layer_ok is not None and t["func_layer"][f] not in layer_ok:
                continue
            if functions is not None and name not in functions:
                continue
            for col in t["func_args"][f]:
                wanted[col] = True
        return wanted

    def count(self):
        """How many events at most, and whether seq fits in int32."""
        most = ctypes.c_uint64()
        n = self.lib.siot_lib_count(self.cur, ctypes.byref(most), self.err, len(self.err))
        if n < 0:
            raise self.error(self.err.value.decode("utf-8", "replace"))
        self.narrow = most.value < 2 ** 31
        return n

    def buffers(self, cap):
        if self.narrow is None:
            self.count()
        return Buffers(cap, len(self.tables["args"]), self.wanted, self.columns_type, self.narrow)

    def fill(self, buf, at, most):
        """Rows at.. of buf, at most `most`: how many were written."""
        got = self.lib.siot_lib_fill(self.cur, ctypes.byref(buf.c), at, most, self.err, len(self.err))
        if got < 0:
            raise self.error(self.err.value.decode("utf-8", "replace"))
        self._new_texts()
        self.codes = json.loads(self._text(self.lib.siot_lib_codes))
        for j, values, first, kinds in self.codes["args"]:  # since the last call: add up
            was = self.stats.get(j, (0, first, 0))
            self.stats[j] = (was[0] + values, min(was[1], first), was[2] | kinds)
        return got

    def _new_texts(self):
        new = json.loads(self._text(self.lib.siot_lib_texts, self.ntexts))
        for col, kind, text in new:
            self.texts[col].append(json.loads(text) if kind == _JSON else text)
        self.ntexts += len(new)

    def fill_all(self):
        """Every selected event into one Buffers: (buf, rows)."""
        buf, n = self.buffers(self.count() + 1), 0  # + 1: room to see the end
        self.stats = {}
        while True:
            if n == buf.cap:
                buf = _grown(self, buf, n)
            got = self.fill(buf, n, min(_BATCH, buf.cap - n))
            if got == 0:
                return buf, n
            n += got


def _grown(reader, buf, n):
    """A Buffers of twice the rows holding buf's n (the count is a bound
    that should hold: kept for traces whose counts are approximate)."""
    bigger = reader.buffers(2 * buf.cap)
    for name, _ in _FIXED:
        bigger.fixed[name][:n] = buf.fixed[name][:n]
    for j, a in enumerate(buf.arg):
        if a is not None:
            bigger.arg[j][:n], bigger.kind[j][:n] = a[:n], buf.kind[j][:n]
    return bigger


def _named(codes, which, names, pandas):
    """A categorical of the library's codes (the dicts had strings): code i
    is names[which[i]]."""
    return pandas.Categorical.from_codes(codes, categories=[names[i] for i in which])


def _as_float(values):
    """The integers as float64 in the same memory (no second copy)."""
    out = values.view(numpy.float64)
    numpy.copyto(out, values, casting="unsafe")
    return out


def _maybe_missing(values, present, pandas, have=None):
    """Integers where present (see the module's types); values is the
    library's array, reused. have: how many are present, when known."""
    n = len(values)
    have = int(numpy.count_nonzero(present())) if have is None else have
    if have == n:
        return values
    if have * 2 < n:  # a few rows: the values' untouched pages cost nothing, the mask a byte a row
        return pandas.arrays.IntegerArray(values, ~present())
    if values.max() >= _EXACT or values.min() <= -_EXACT:
        return pandas.arrays.IntegerArray(values, ~present())
    out = _as_float(values)
    out[~present()] = numpy.nan
    return out


def _argument(values, kind, stats, texts, pandas):
    """One argument column from its values, kinds and the library's
    count of them."""
    have, _, bits = stats
    if bits & ~(1 << _INT | 1 << _NULL) == 0:
        return _maybe_missing(values, lambda: kind == _INT, pandas, None if bits & 1 << _NULL else have)
    if bits & ~(1 << _STR | 1 << _NULL) == 0 and all(isinstance(x, str) for x in texts):
        width = numpy.int8 if len(texts) < 2 ** 7 else numpy.int16 if len(texts) < 2 ** 15 else numpy.int32
        codes = numpy.full(len(values), -1, width)  # the width pandas keeps: no second copy
        rows = numpy.flatnonzero(kind == _STR)
        codes[rows] = values[rows]
        return pandas.Categorical.from_codes(codes, categories=texts)
    out = numpy.full(len(values), None, dtype=object)  # mixed kinds (rare): objects, as the dicts had
    for i in numpy.flatnonzero(kind == _INT):
        out[i] = int(values[i])
    for i in numpy.flatnonzero((kind == _STR) | (kind == _JSON)):
        out[i] = texts[values[i]]
    return out


def frame(reader, buf, n, pandas):
    """The DataFrame of buf's first n rows, buf's arrays becoming its
    columns (buf is not to be used after)."""
    if n == 0:
        return pandas.DataFrame({c: pandas.Series(dtype="float64") for c in COLUMNS})
    f, t, seen = buf.fixed, reader.tables, reader.codes
    cols = {"rank": f["rank"][:n], "seq": f["seq"][:n], "thread": f["thread"][:n],
            "layer": _named(f["layer"][:n], seen["layers"], t["layers"], pandas),
            "func": _named(f["func"][:n], seen["funcs"], t["funcs"], pandas),
            "parent": f["parent"][:n], "ret": f["ret"][:n], "errno": f["err"][:n],
            "bytes": _maybe_missing(f["bytes"][:n], lambda: f["has_bytes"][:n] != 0, pandas),
            "start": f["start"][:n], "dur": f["dur"][:n]}
    # the columns in the order in which the events first show them, as the dicts'
    def first_shown(j):  # its first row, then its place among that row's arguments
        row = reader.stats[j][1]
        return row, t["func_args"][seen["funcs"][f["func"][row]]].index(j)

    for j in sorted(reader.stats, key=first_shown):
        name = t["args"][j]
        cols[name if name not in cols else "arg_" + name] = _argument(buf.arg[j][:n], buf.kind[j][:n],
                                                                     reader.stats[j], reader.texts[j], pandas)
        buf.arg[j] = buf.kind[j] = None  # a sparse column keeps only its rows: the rest goes now
    return pandas.DataFrame(cols, copy=False)
