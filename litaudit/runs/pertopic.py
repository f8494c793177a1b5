"""Per-topic score matrices as an input for the statistics: trec_eval -q output or a
topic-by-run CSV (rows = topics, columns = runs, an optional leading ``topic`` column; the
layout of ``shared/data/pertopic/*.csv``)."""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from litaudit.errors import InputError, Problem, ValidationFailed
from litaudit.measures import parse_measure
from litaudit.runs.model import sort_topics


@dataclass(frozen=True)
class PerTopicMatrix:
    """Scores of runs on topics: ``scores[run, topic]`` (NaN = not evaluated)."""

    topics: tuple[str, ...]
    runs: tuple[str, ...]
    scores: np.ndarray  # (len(runs), len(topics)) float64
    measure: str | None = None  # when the source names it (trec_eval -q)

    def mean(self) -> np.ndarray:
        return np.nanmean(self.scores, axis=1)


def read_pertopic_csv(path) -> PerTopicMatrix:
    """A topic-by-run CSV. Topics are named by the ``topic`` column, else numbered 1..n."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(str(path), None, f"cannot read file: {exc}") from None
    rows = list(csv.reader(text.splitlines()))
    header, has_topic, runs = _csv_header(path, rows)
    problems: list[Problem] = []
    topics: list[str] = []
    values: list[list[float]] = []
    for no, row in enumerate(rows[1:], start=2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(header):
            problems.append(
                Problem(str(path), no, f"expected {len(header)} columns, found {len(row)}")
            )
            continue
        topic = row[0].strip() if has_topic else str(len(topics) + 1)
        vals = _csv_cells(path, no, runs, row[1:] if has_topic else row, problems)
        if topic in topics:
            problems.append(Problem(str(path), no, f"topic {topic} appears twice"))
            continue
        topics.append(topic)
        values.append(vals)
    if problems:
        raise ValidationFailed(problems)
    if not topics:
        raise InputError(str(path), None, "no topic rows")
    return PerTopicMatrix(tuple(topics), tuple(runs), np.array(values, dtype=float).T)


def _csv_header(path: Path, rows: list[list[str]]) -> tuple[list[str], bool, list[str]]:
    """(the header, whether its first column names the topics, the run names) of a
    topic-by-run CSV."""
    if not rows or not any(rows[0]):
        raise InputError(str(path), 1, "empty file (expected a header of run names)")
    header = [h.strip() for h in rows[0]]
    has_topic = header[0].lower() == "topic"
    runs = header[1:] if has_topic else header
    if not runs:
        raise InputError(str(path), 1, "no run columns")
    dup = sorted({r for r in runs if runs.count(r) > 1})
    if dup:
        raise InputError(str(path), 1, f"run {dup[0]!r} appears twice in the header")
    return header, has_topic, runs


def _csv_cells(path: Path, no: int, runs, cells, problems: list[Problem]) -> list[float]:
    """The scores of one row (NaN where empty, NA or NaN; a bad cell is a problem)."""
    vals = []
    for run, c in zip(runs, cells, strict=True):
        c = c.strip()
        if c.upper() in ("", "NA", "NAN"):
            vals.append(math.nan)
            continue
        try:
            vals.append(float(c))
        except ValueError:
            problems.append(Problem(str(path), no, f"{c!r} is not a number", run))
            vals.append(math.nan)
    return vals


def read_trec_eval_q(paths, measure: str) -> PerTopicMatrix:
    """``trec_eval -q`` output files (``measure topic value``), one run per file (named by
    its ``runid`` line, else by the file name). ``measure`` in trec_eval or
    ir_measures spelling picks the rows; the ``all`` rows are ignored."""

    want = parse_measure(measure)
    per_run: dict[str, dict[str, float]] = {}
    for path in [Path(p) for p in paths]:
        run, scores = _read_q_file(path, want)
        if run in per_run:
            raise InputError(str(path), None, f"run {run!r} was already read from another file")
        per_run[run] = scores
    topics = sort_topics({t for s in per_run.values() for t in s})
    runs = tuple(per_run)
    mat = np.full((len(runs), len(topics)), np.nan)
    col = {t: i for i, t in enumerate(topics)}
    for ri, r in enumerate(runs):
        for t, v in per_run[r].items():
            mat[ri, col[t]] = v
    return PerTopicMatrix(topics, runs, mat, str(want))


def _read_q_file(path: Path, want) -> tuple[str, dict[str, float]]:
    """(its run name, topic -> score of the measure ``want``) of one trec_eval -q file."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(str(path), None, f"cannot read file: {exc}") from None
    run = path.name
    scores: dict[str, float] = {}
    problems: list[Problem] = []
    for no, line in enumerate(lines, start=1):
        f = line.split()
        if not f:
            continue
        if len(f) != 3:
            problems.append(
                Problem(str(path), no, f"expected 3 columns (measure topic value), found {len(f)}")
            )
            continue
        name, topic, value = f
        if name == "runid":
            run = value
            continue
        if topic == "all" or not _is_measure(name, want):
            continue
        try:
            v = float(value)
        except ValueError:
            problems.append(Problem(str(path), no, f"{value!r} is not a number"))
            continue
        if topic in scores:
            problems.append(Problem(str(path), no, f"topic {topic} appears twice"))
            continue
        scores[topic] = v
    if problems:
        raise ValidationFailed(problems)
    if not scores:
        what = want.trec_eval or f"{want} (trec_eval has no such measure)"
        raise InputError(str(path), None, f"no per-topic {what} lines (was trec_eval run with -q?)")
    return run, scores


def _is_measure(name: str, want) -> bool:
    """Whether the trec_eval measure ``name`` is ``want`` (unknown measures are not)."""

    try:
        return parse_measure(name) == want
    except Exception:  # noqa: BLE001 - measures we do not know are skipped
        return False
