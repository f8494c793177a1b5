"""Arrow columns and numpy arrays, both ways, without copies and without pandas.

pyarrow's own converters (``Array.to_numpy``, ``pa.array``) import pandas on first use
(0.3 s) to check whether they were given a pandas object; the run-archive code converts
numeric and string columns through their buffers instead.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_NP: dict[str, np.dtype] = {
    t: np.dtype(t)
    for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
}
_NP.update(float=np.dtype(np.float32), double=np.dtype(np.float64))  # Arrow's names


def numpy_dtype(arrow_type) -> np.dtype:
    """The numpy dtype of a numeric Arrow type."""
    return _NP[str(arrow_type)]


def to_numpy(array) -> np.ndarray:
    """A numeric Arrow array (or ChunkedArray) without nulls as numpy, zero copy when it
    is one chunk."""
    if hasattr(array, "chunks"):
        array = array.chunk(0) if array.num_chunks == 1 else array.combine_chunks()
    dtype = numpy_dtype(array.type)
    return np.frombuffer(
        array.buffers()[1], dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize
    )


def from_numpy(a: np.ndarray):
    """A numeric numpy array as an Arrow array, zero copy when it is contiguous."""
    # start-up: pyarrow
    import pyarrow as pa

    a = np.ascontiguousarray(a)
    return pa.Array.from_buffers(pa.from_numpy_dtype(a.dtype), len(a), [None, pa.py_buffer(a)])


def from_strings(values: Sequence[str]):
    """A short list of str as an Arrow string array."""
    # start-up: pyarrow
    import pyarrow as pa

    data = [v.encode("utf-8") for v in values]
    offsets = np.zeros(len(data) + 1, dtype=np.int32)
    np.cumsum([len(b) for b in data], out=offsets[1:])
    return pa.Array.from_buffers(
        pa.string(), len(data), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))]
    )


def string_buffers(array) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, n + 1 of them, as int64; the bytes as uint8) of an Arrow string array."""
    n = len(array)
    offsets = np.frombuffer(
        array.buffers()[1], dtype=np.int32, count=n + 1, offset=array.offset * 4
    )
    data_buf = array.buffers()[2]
    data = (
        np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    )
    return offsets.astype(np.int64), data
