"""A Parquet results file read as text (for :mod:`litaudit.curation.rows`): each column
of the format as the text its values print as, a binary float by the shortest text that
reads back as the same float of its own width (``repr``; a float32 0.3012 gives
``0.3012``), strings and decimals as they are; a column of another type is a problem."""

from __future__ import annotations

from collections.abc import Collection

from litaudit.errors import InputError, Problem


def cell_text(v) -> str:
    """A decoded value (JSON, Parquet) as the text of a cell: None empty, booleans
    lower-case."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def read_parquet(
    name: str, raw: bytes, wanted: Collection[str]
) -> tuple[list[str], dict[str, list[str]], int, list[Problem]]:
    """(every column name, in order and with duplicates; the first column of each name in
    ``wanted`` as text; the number of rows; the columns whose type holds no text) of the
    Parquet file ``name`` whose bytes are ``raw``. A file that cannot be read raises
    InputError."""
    # start-up: pyarrow
    import pyarrow as pa

    # start-up: pyarrow
    import pyarrow.parquet as pq

    try:
        table = pq.ParquetFile(pa.BufferReader(raw)).read()  # keeps duplicate names
    except (pa.ArrowException, OSError, ValueError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(
            name, None, f"not a readable Parquet file (corrupt or truncated?): {msg}"
        ) from None
    problems: list[Problem] = []
    names = [
        c
        for i, c in enumerate(table.column_names)
        if c in wanted and table.column_names.index(c) == i
    ]
    columns = {}
    for c in names:
        col = table.column(table.column_names.index(c))
        try:
            columns[c] = _arrow_text(col)
        except TypeError as exc:
            problems.append(Problem(name, None, str(exc), c))
    return list(table.column_names), columns, table.num_rows, problems


def _arrow_text(col) -> list[str]:
    """A Parquet column as text: strings as they are, decimals with their scale, integers,
    booleans, dates; binary floats by their shortest round-trip form at their own width."""
    # start-up: pyarrow
    import pyarrow as pa

    t = col.type
    if pa.types.is_dictionary(t):
        col = col.cast(t.value_type)
        t = t.value_type
    values = col.to_pylist()
    if pa.types.is_floating(t):
        # start-up: numpy
        import numpy as np

        width = {16: np.float16, 32: np.float32}.get(t.bit_width)
        return ["" if v is None else (str(width(v)) if width else repr(float(v))) for v in values]
    if (
        pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or pa.types.is_integer(t)
        or pa.types.is_decimal(t)
        or pa.types.is_boolean(t)
        or pa.types.is_date(t)
        or pa.types.is_null(t)
        or pa.types.is_timestamp(t)
    ):
        return [cell_text(v.isoformat() if hasattr(v, "isoformat") else v) for v in values]
    raise TypeError(f"a column of type {t} cannot hold this field (use strings)")
