"""The line-by-line reader of TREC run files and qrels (:mod:`litaudit.runs.trec_io` says
which files it reads): a file's bytes (plain or gzip, detected from the first two bytes;
python-isal when installed), its lines split on any run of spaces or tabs, blank lines
ignored, and every problem named with its file and line, as strictly as trec_eval: a wrong
column count, a non-numeric rank or score, a docno twice in one topic, an empty file, a run
tag that changes inside a file, a topic missing from the qrels, a qrels line judged twice
(:class:`~litaudit.errors.ValidationFailed`, at most ``MAX_PROBLEMS`` listed per file),
unless ``lenient`` (then bad lines are skipped and counted).
"""

from __future__ import annotations

import gzip
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from litaudit.errors import InputError, Problem, ValidationFailed
from litaudit.runs.model import Qrels, Run

try:  # python-isal (a dependency) decompresses gzip ~2x faster; plain gzip where it is missing
    from isal import igzip
except ImportError:  # pragma: no cover
    igzip = None  # type: ignore[assignment]


REL_MAX = 2**31 - 1  # relevance grades are stored as int32


MAX_PROBLEMS = 20  # problems listed per file before "... and N more"


_INT = r"^[+-]?[0-9]+$"


_FLOAT = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"


_INT_RE = re.compile(_INT)


_FLOAT_RE = re.compile(_FLOAT)


_WS = re.compile(rb"[ \t\r\f\v]+")


def read_bytes(path: Path) -> bytes:
    """The file's content, decompressed when it is gzip (python-isal when installed)."""
    return decompress(path, Path(path).read_bytes())


def decompress(path: Path, raw: bytes) -> bytes:
    """``raw`` (the bytes of ``path``) decompressed when it is gzip."""
    if raw[:2] != b"\x1f\x8b":
        return raw
    try:
        if igzip is None:
            return gzip.decompress(raw)
        return igzip.decompress(raw)
    except Exception as exc:  # isal raises its own error types
        raise InputError(str(path), None, f"not a readable gzip file ({exc})") from None


@dataclass(frozen=True)
class ParsedRun:
    """A run file read line by line: the run, its tag and the lines skipped (lenient)."""

    run: Run
    lines: int  # non-blank lines read
    skipped: int  # lines skipped as bad (lenient only)


@dataclass(frozen=True)
class ParsedQrels:
    qrels: Qrels
    lines: int
    skipped: int


class _Collector:
    def __init__(self, name: str):
        self.name = name
        self.problems: list[Problem] = []
        self.count = 0

    def add(self, line: int | None, msg: str) -> None:
        self.count += 1
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(Problem(self.name, line, msg))

    def raise_if_any(self) -> None:
        if self.count:
            probs = list(self.problems)
            if self.count > len(probs):
                probs.append(Problem(self.name, None, more_problems(self.count - len(probs))))
            raise ValidationFailed(probs)


def more_problems(n: int) -> str:
    """What stands for the ``n`` problems of a file past the first ``MAX_PROBLEMS``."""
    return f"... and {n} more problems"


_MORE = re.compile(r"\.\.\. and ([0-9]+) more problems")


def cap_problems(problems: list[Problem]) -> list[Problem]:
    """At most ``MAX_PROBLEMS`` problems listed per file, the rest counted in one
    :func:`more_problems` after them (a file read in pieces has each piece's problems)."""
    listed: dict[str, int] = {}
    more: dict[str, int] = {}
    out: list[Problem] = []
    for p in problems:
        m = _MORE.fullmatch(p.message) if p.line is None else None
        if m is None and listed.get(p.file, 0) < MAX_PROBLEMS:
            out.append(p)
            listed[p.file] = listed.get(p.file, 0) + 1
        else:
            more[p.file] = more.get(p.file, 0) + (int(m[1]) if m else 1)
    for f, n in more.items():
        at = max((i for i, p in enumerate(out) if p.file == f), default=len(out) - 1)
        out.insert(at + 1, Problem(f, None, more_problems(n)))
    return out


def _lines(path: Path):
    """(line number, fields) of every non-blank line; fields is a str (the problem) for a
    line that cannot be text (not UTF-8, or a NUL byte)."""
    try:
        data = read_bytes(path)
    except OSError as exc:
        raise InputError(str(path), None, f"cannot read file: {exc.strerror or exc}") from None
    except (EOFError, gzip.BadGzipFile) as exc:
        raise InputError(str(path), None, f"not a readable gzip file ({exc})") from None
    return _lines_of(str(path), data)


def _lines_of(name: str, data: bytes, first_line: int = 1):
    """:func:`_lines` of ``data``, a file's text from its line ``first_line`` on."""
    if first_line == 1 and data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(
            name,
            1,
            "not UTF-8: the file is UTF-16 (it starts with a "
            "UTF-16 byte-order mark); save it as UTF-8",
        )
    for no, raw in enumerate(data.split(b"\n"), start=first_line):
        fields = _WS.split(raw.strip(b" \t\r\f\v"))
        if fields == [b""]:
            continue
        if b"\0" in raw:
            yield no, "NUL byte in line"
            continue
        try:
            yield no, [f.decode("utf-8") for f in fields]
        except UnicodeDecodeError as exc:
            yield no, f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x}; Latin-1?)"


def parse_run_file(
    path, *, qrels_topics: set[str] | None = None, lenient: bool = False
) -> ParsedRun:
    """Read one run file line by line, naming every problem with its line."""
    path = Path(path)
    pr, col = _parse_run_lines(str(path), _lines(path), qrels_topics=qrels_topics)
    return _finish_run(str(path), pr, col, lenient)


def parse_run_text(
    name: str,
    data: bytes,
    *,
    first_line: int = 1,
    tag: str | None = None,
    qrels_topics: set[str] | None = None,
) -> tuple[ParsedRun, _Collector]:
    """A part of a run file (its text from line ``first_line`` on) read line by line:
    what it holds (``run.tag`` is ``tag`` when given, else the first valid line's; None
    when no line is valid) and its problems (collected, not raised)."""
    return _parse_run_lines(name, _lines_of(name, data, first_line), qrels_topics, tag)


def _finish_run(name: str, pr: ParsedRun, col: _Collector, lenient: bool) -> ParsedRun:
    """A whole file's :class:`ParsedRun`, or its problems raised."""
    if pr.lines == 0:
        raise InputError(name, None, "empty run file (no ranking lines)")
    if not lenient:
        col.raise_if_any()
    if pr.run.tag is None:
        raise InputError(name, None, f"no valid ranking line among {pr.lines} lines")
    return pr


def _parse_run_lines(
    name: str, numbered_lines, qrels_topics: set[str] | None, tag: str | None = None
) -> tuple[ParsedRun, _Collector]:
    """The valid lines of ``numbered_lines`` ((line number, fields), see :func:`_lines`)
    as a run, and the problems of the others."""
    col = _Collector(name)
    topics: list[str] = []
    docs: list[str] = []
    scores: list[float] = []
    seen: set[tuple[str, str]] = set()
    lines = bad = 0
    missing_topics: set[str] = set()
    for no, f in numbered_lines:
        lines += 1
        if isinstance(f, str):
            col.add(no, f)
            bad += 1
            continue
        if len(f) != 6:
            col.add(no, f"expected 6 columns (topic Q0 docno rank score tag), found {len(f)}")
            bad += 1
            continue
        topic, _, docno, rank, score, t = f
        problem = _field_problem(rank, score, t, tag)
        if problem is None and (topic, docno) in seen:
            problem = f"document {docno} appears twice in topic {topic}"
        if problem is None and qrels_topics is not None and topic not in qrels_topics:
            if topic in missing_topics:  # report a missing topic once, skip its other lines
                bad += 1
                continue
            problem = f"topic {topic} is not in the qrels"
            missing_topics.add(topic)
        if problem:
            col.add(no, problem)
            bad += 1
            continue
        if tag is None:
            tag = t
        seen.add((topic, docno))
        topics.append(topic)
        docs.append(docno)
        scores.append(float(score))
    run = Run(
        tag,  # type: ignore[arg-type]  # None: no valid line (see _finish_run)
        np.array(topics, dtype=object),
        np.array(docs, dtype=object),
        np.array(scores, dtype=np.float64),
    )
    return ParsedRun(run, lines, bad), col


def _field_problem(rank: str, score: str, t: str, tag: str | None) -> str | None:
    """What is wrong with a ranking line's rank, score or tag (the run's ``tag`` so far),
    or None."""
    if not _INT_RE.match(rank):
        return f"rank {rank!r} is not an integer"
    if not _FLOAT_RE.match(score):
        return f"score {score!r} is not a number"
    if not math.isfinite(float(score)):
        # trec_eval's atof reads both "inf" and "1e400" as infinity; both are refused
        return f"score {score!r} is not a finite number (beyond a double's range)"
    if tag is not None and t != tag:
        return f"run tag changes from {tag!r} to {t!r}"
    return None


def parse_qrels_file(path, *, lenient: bool = False) -> ParsedQrels:
    """Read a qrels file line by line, naming every problem with its line."""
    path = Path(path)
    col = _Collector(str(path))
    topics: list[str] = []
    docs: list[str] = []
    rels: list[int] = []
    seen: set[tuple[str, str]] = set()
    lines = bad = 0
    for no, f in _lines(path):
        lines += 1
        if isinstance(f, str):
            col.add(no, f)
            bad += 1
            continue
        if len(f) != 4:
            col.add(no, f"expected 4 columns (topic iter docno rel), found {len(f)}")
            bad += 1
            continue
        topic, _, docno, rel = f
        if not _INT_RE.match(rel):
            col.add(no, f"relevance {rel!r} is not an integer")
            bad += 1
            continue
        if len(rel) > 12 or not -REL_MAX <= int(rel) <= REL_MAX:
            col.add(no, f"relevance {rel} is out of range (a 32-bit integer, at most {REL_MAX})")
            bad += 1
            continue
        if (topic, docno) in seen:
            col.add(no, f"document {docno} is judged twice for topic {topic}")
            bad += 1
            continue
        seen.add((topic, docno))
        topics.append(topic)
        docs.append(docno)
        rels.append(int(rel))
    if lines == 0:
        raise InputError(str(path), None, "empty qrels file (no judgment lines)")
    if not lenient:
        col.raise_if_any()
    q = Qrels(
        np.array(topics, dtype=object), np.array(docs, dtype=object), np.array(rels, dtype=np.int32)
    )
    return ParsedQrels(q, lines, bad)
