"""Reading TREC run files (``topic Q0 docno rank score tag``) and qrels (``topic iter docno rel``).

Plain or gzip (detected from the first two bytes), columns separated by any run of spaces
or tabs, blank lines ignored. Validation is as strict as trec_eval's: a wrong column count,
a non-numeric rank or score, a docno twice in one topic, an empty file, a run tag that
changes inside a file, a topic missing from the qrels, a qrels line judged twice: each
reported with file and line (:class:`~litaudit.errors.ValidationFailed`), unless
``lenient`` (then bad lines are skipped and counted).

Two parsers give the same answer: a fast one (python-isal when installed, then
:mod:`litaudit.runs.fastread`, pyarrow's CSV reader) that only says *whether* a file is
clean, and the line-by-line one (:mod:`litaudit.runs.trec_parse`), which runs on the files
where it is not (any problem), to name every problem with its line (and to drop bad lines
when lenient). Here: which parser reads a file, and the file as Arrow columns or a
:class:`~litaudit.runs.model.Run`.
"""

from __future__ import annotations

import gzip
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from litaudit.errors import InputError, ValidationFailed
from litaudit.runs.fastread import RunTable, fast_qrels, fast_run
from litaudit.runs.model import Qrels, Run
from litaudit.runs.trec_parse import (
    ParsedRun,
    decompress,
    parse_qrels_file,
    parse_run_file,
    read_bytes,
)


def _slow_run(path: Path, qrels_topics, lenient) -> RunTable:
    pr = parse_run_file(path, qrels_topics=qrels_topics, lenient=lenient)
    return run_table(pr)


def run_table(pr: ParsedRun) -> RunTable:
    """A :class:`ParsedRun` as the importer's Arrow columns."""
    # start-up: pyarrow
    import pyarrow as pa

    # start-up: pyarrow
    import pyarrow.compute as pc

    r = pr.run
    table = pa.table(
        {
            "topic": pc.dictionary_encode(pa.array(r.topic.tolist(), pa.string())),
            "docno": pa.array(r.docno.tolist(), pa.string()),
            "score": pa.array(r.score, pa.float64()),
        }
    )
    return RunTable(r.tag, table, len(r), pr.skipped)


def read_run_table(
    path,
    *,
    qrels_topics: set[str] | None = None,
    lenient: bool = False,
    check_duplicates: bool = True,
    raw: bytes | None = None,
) -> RunTable:
    """One run file as Arrow columns, validated (fast path, line-by-line when needed).

    ``raw``: the file's bytes when the caller has read them already (compressed or not).
    ``check_duplicates=False``: the fast path does not look for a document twice in a
    topic (the caller must, and re-read the file with :func:`read_slow_run_table` when it
    finds one)."""
    path = Path(path)
    try:
        data = read_bytes(path) if raw is None else decompress(path, raw)
    except OSError as exc:
        raise InputError(str(path), None, f"cannot read file: {exc.strerror or exc}") from None
    except (EOFError, gzip.BadGzipFile) as exc:
        raise InputError(str(path), None, f"not a readable gzip file ({exc})") from None
    fast = fast_run(data, qrels_topics, check_duplicates)
    if fast is not None:
        return fast
    del data
    return _slow_run(path, qrels_topics, lenient)


def read_slow_run_table(
    path, *, qrels_topics: set[str] | None = None, lenient: bool = False
) -> RunTable:
    """One run file read line by line (every problem named with its line)."""
    return _slow_run(Path(path), qrels_topics, lenient)


def read_run_tables(
    paths, *, qrels_topics: set[str] | None = None, lenient: bool = False, threads: int = 2
) -> list[RunTable]:
    """Several run files, read by ``threads`` threads (decompression and parsing release
    the GIL). Every file's problems are collected before failing."""

    paths = [Path(p) for p in paths]

    def one(p):
        try:
            return read_run_table(p, qrels_topics=qrels_topics, lenient=lenient)
        except ValidationFailed as exc:
            return exc.problems
        except InputError as exc:
            return [exc.problem]

    if threads > 1 and len(paths) > 1:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            results = list(pool.map(one, paths))
    else:
        results = [one(p) for p in paths]
    problems = [p for r in results if isinstance(r, list) for p in r]
    if problems:
        raise ValidationFailed(problems)
    return results


def read_qrels_table(path, *, lenient: bool = False, check_duplicates: bool = True):
    """A qrels file as an Arrow table (topic, docno, rel), validated.

    ``check_duplicates=False``: the fast path does not look for a document judged twice
    in a topic (the caller must, and re-read with :func:`read_slow_qrels_table`)."""

    path = Path(path)
    try:
        data = read_bytes(path)
    except OSError as exc:
        raise InputError(str(path), None, f"cannot read file: {exc.strerror or exc}") from None
    fast = fast_qrels(data, check_duplicates)
    if fast is not None:
        return fast
    return read_slow_qrels_table(path, lenient=lenient)


def read_slow_qrels_table(path, *, lenient: bool = False):
    """A qrels file read line by line (every problem named with its line)."""
    # start-up: pyarrow
    import pyarrow as pa

    q = parse_qrels_file(path, lenient=lenient).qrels
    return pa.table(
        {
            "topic": pa.array(q.topic.tolist(), pa.string()),
            "docno": pa.array(q.docno.tolist(), pa.string()),
            "rel": pa.array(q.rel, pa.int32()),
        }
    )


def read_runs(paths, *, qrels: Qrels | None = None, lenient: bool = False) -> list[Run]:
    """Several run files (plain or .gz) as :class:`Run` objects."""
    qtopics = set(qrels.topic.tolist()) if qrels is not None else None
    return [t.to_run() for t in read_run_tables(paths, qrels_topics=qtopics, lenient=lenient)]


def read_run(path, *, qrels: Qrels | None = None, lenient: bool = False) -> Run:
    """One run file (plain or .gz). Problems name the file and line."""
    qtopics = set(qrels.topic.tolist()) if qrels is not None else None
    return read_run_table(path, qrels_topics=qtopics, lenient=lenient).to_run()


def read_qrels(path, *, lenient: bool = False) -> Qrels:
    """A qrels file (plain or .gz): ``topic iter docno rel``. Problems name file and line."""
    t = read_qrels_table(path, lenient=lenient)
    return Qrels(
        t.column("topic").to_numpy(zero_copy_only=False),
        t.column("docno").to_numpy(zero_copy_only=False),
        t.column("rel").to_numpy(),
    )
