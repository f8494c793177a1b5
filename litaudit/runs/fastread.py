"""The fast reader of TREC run and qrels files: pyarrow's CSV reader on the file as it is
when single tabs or single spaces separate its columns, else on its bytes with every
whitespace run made one tab (byte-level passes). It only says *whether* a file is clean
(None when it is not); :mod:`litaudit.runs.trec_io` then reads the file line by line to
name every problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from litaudit.runs import arrow_calls, strcodes
from litaudit.runs.columns import from_numpy, string_buffers, to_numpy
from litaudit.runs.model import Run


@dataclass(frozen=True)
class RunTable:
    """A validated run as Arrow columns (topic, docno, score): what the importer stores."""

    tag: str
    table: Any  # pyarrow.Table: topic (dictionary-encoded), docno, score
    lines: int
    skipped: int

    @property
    def topics(self) -> int:
        return len(arrow_calls.unique(self.table.column("topic")))

    def to_run(self) -> Run:
        # start-up: pyarrow
        import pyarrow as pa

        t = self.table
        return Run(
            self.tag,
            t.column("topic").cast(pa.string()).to_numpy(zero_copy_only=False),
            t.column("docno").to_numpy(zero_copy_only=False),
            t.column("score").to_numpy(),
        )


def _single_delimiter(data: bytes) -> bytes | None:
    """b"\t" or b" " when the file uses only that byte between columns (no CR, no mix).

    Doubled, leading or trailing separators are caught after parsing, as a wrong column
    count or an empty field (see :func:`_fast_run`)."""
    if b"\r" in data or b"\f" in data or b"\v" in data:
        return None
    has_tab, has_space = b"\t" in data, b" " in data
    if has_tab == has_space:
        return None
    return b"\t" if has_tab else b" "


_WS_TO_TAB = bytes.maketrans(b" \r\f\v", b"\t\t\t\t")
MAX_TAB_PASSES = 8  # runs of up to 256 whitespace bytes between columns


def _tab_separated(data: bytes) -> bytes | None:
    """The bytes with every run of whitespace inside a line made one tab and whitespace
    at the line ends dropped: the fields that splitting each line on whitespace reads
    (as the line reader does), line numbers unchanged, in a form the CSV reader takes.
    Byte-level passes only (a regular expression is ten times slower); None when the
    whitespace runs are too long for ``MAX_TAB_PASSES`` halvings."""
    out = data.translate(_WS_TO_TAB)
    passes = 0
    while b"\t\t" in out:
        if passes == MAX_TAB_PASSES:
            return None
        out = out.replace(b"\t\t", b"\t")  # halves every run of tabs
        passes += 1
    out = out.replace(b"\n\t", b"\n").replace(b"\t\n", b"\n")
    return out[out.startswith(b"\t") : len(out) - out.endswith(b"\t")]


def _delimited(data: bytes):
    """(delimiter, bytes) the CSV reader can take: the file as it is when one byte
    separates its columns, then its tab-separated form (see :func:`_tab_separated`)."""
    delim = _single_delimiter(data)
    if delim is not None:
        yield delim, data
    norm = _tab_separated(data)
    if norm is not None and norm != data:
        yield b"\t", norm


def _no_empty(column) -> bool:
    """No empty string in a string column (dictionary columns: in their dictionary)."""
    # start-up: pyarrow
    import pyarrow as pa

    if pa.types.is_dictionary(column.type):
        column = column.chunk(0).dictionary if column.num_chunks == 1 else column.cast(pa.string())
    if hasattr(column, "chunks"):
        return all(_no_empty(c) for c in column.chunks)
    if len(column) == 0:
        return True
    offsets, _ = string_buffers(column)
    return bool(np.all(offsets[1:] > offsets[:-1]))


def _fast_table(data: bytes, names: list[str], types: dict, delimiter: bytes):
    """Arrow table of a well-formed file, or None when any line needs a closer look."""
    # start-up: pyarrow
    import pyarrow as pa

    # start-up: pyarrow
    import pyarrow.csv as pcsv

    try:
        return pcsv.read_csv(
            pa.py_buffer(data),
            read_options=pcsv.ReadOptions(
                column_names=names, use_threads=False, block_size=1 << 24
            ),
            parse_options=pcsv.ParseOptions(
                delimiter=delimiter.decode(),
                quote_char=False,
                double_quote=False,
                escape_char=False,
                ignore_empty_lines=True,
            ),
            convert_options=pcsv.ConvertOptions(
                column_types=types,
                include_columns=list(types),
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
                null_values=[],
                true_values=[],
                false_values=[],
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None


_RUN_NAMES = ["topic", "q0", "docno", "rank", "score", "tag"]


def fast_run(
    data: bytes, qrels_topics: set[str] | None, check_duplicates: bool = True
) -> RunTable | None:
    """The run as Arrow columns when every line is well formed, else None.

    The tag column is not parsed: every line must end with the first line's tag, which
    one count over the bytes checks (:func:`_one_tag`). The topic is parsed as plain text
    (a dictionary column hashes every row) and coded from its runs of equal lines (run
    files list a topic's lines together; any order works). ``check_duplicates=False``
    leaves the "document twice in one topic" check to the caller (the importer does it on
    its collection-wide docno codes)."""
    if b"\0" in data:
        return None
    for delim, text in _delimited(data):
        found = _fast_run_of(text, delim, qrels_topics, check_duplicates)
        if found is not None:
            return found
    return None


def _fast_run_of(
    data: bytes, delim: bytes, qrels_topics: set[str] | None, check_duplicates: bool
) -> RunTable | None:
    # start-up: pyarrow
    import pyarrow as pa

    # rank: an int32 is checked and dropped (a larger rank goes to the line-by-line
    # reader, which accepts any integer)
    t = _fast_table(
        data,
        _RUN_NAMES,
        {"topic": pa.string(), "docno": pa.string(), "rank": pa.int32(), "score": pa.float64()},
        delim,
    )
    if t is None or t.num_rows == 0:
        return None
    tag = _one_tag(data, delim, t.num_rows)
    if tag is None:
        return None
    t = t.combine_chunks()
    topic = _topic_codes(t.column("topic").chunk(0))
    docno = t.column("docno").chunk(0)
    if not (_no_empty(topic.dictionary) and _no_empty(docno)):
        return None
    score = t.column("score")
    if not arrow_calls.call("all", arrow_calls.call("is_finite", score)).as_py():
        return None
    if qrels_topics is not None and any(
        x not in qrels_topics for x in topic.dictionary.to_pylist()
    ):
        return None
    if check_duplicates:
        enc = arrow_calls.dictionary_encode(docno)
        if strcodes.has_duplicate_pairs(
            to_numpy(topic.indices), to_numpy(enc.indices), len(enc.dictionary)
        ):
            return None
    table = pa.table({"topic": topic, "docno": docno, "score": score})
    return RunTable(tag, table, t.num_rows, 0)


def _one_tag(data: bytes, delim: bytes, n_lines: int) -> str | None:
    """The run tag when each of the file's ``n_lines`` (non-blank) lines ends with the
    same last field, else None. A line ends with tag T exactly when the bytes hold
    ``delim + T + newline`` there (T holds neither), so counting those is the check."""
    start = len(data) - len(data.lstrip(b"\n"))
    end = data.find(b"\n", start)
    tag = (data[start:] if end < 0 else data[start:end]).rsplit(delim, 1)[-1]
    if not tag:
        return None
    ending = delim + tag
    if data.count(ending + b"\n") + data.endswith(ending) != n_lines:
        return None
    try:
        return tag.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _topic_codes(topic):
    """A string column as a dictionary array (dictionary in order of first appearance),
    coded through its runs of equal values: a run file's few hundred topics cost a few
    hundred hashes, not one per line."""
    # start-up: pyarrow
    import pyarrow as pa

    ree = arrow_calls.call("run_end_encode", topic)
    values = ree.values
    enc = arrow_calls.dictionary_encode(values)
    lengths = np.diff(to_numpy(ree.run_ends), prepend=0)
    indices = np.repeat(to_numpy(enc.indices), lengths)
    return pa.DictionaryArray.from_arrays(from_numpy(indices), enc.dictionary)


def fast_qrels(data: bytes, check_duplicates: bool = True):
    """The qrels as an Arrow table (topic, docno, rel) when every line is well formed,
    else None. ``check_duplicates=False`` leaves "a document judged twice in a topic" to
    the caller."""
    # start-up: pyarrow
    import pyarrow as pa

    for delim, text in _delimited(data) if b"\0" not in data else ():
        t = _fast_table(
            text,
            ["topic", "iter", "docno", "rel"],
            {"topic": pa.string(), "docno": pa.string(), "rel": pa.int32()},
            delim,
        )
        if (
            t is not None
            and t.num_rows
            and _no_empty(t.column("topic"))
            and _no_empty(t.column("docno"))
        ):
            if not check_duplicates:
                return t
            keys = arrow_calls.call(
                "binary_join_element_wise", t.column("topic"), t.column("docno"), "\x00"
            )
            if len(arrow_calls.unique(keys)) == t.num_rows:
                return t
    return None
