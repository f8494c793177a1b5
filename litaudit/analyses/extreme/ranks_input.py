"""The paired scores a rank resolution reads: systems x shared units, from three sources.

* ``matrix``: a topic-by-run CSV or ``trec_eval -q`` outputs (as `audit matrix` reads
  them); topics some run lacks are left out (counted).
* ``archive``: the per-topic scores of a collection's stored run archive (`runs eval`),
  as the interaction se reads them (:func:`litaudit.analyses.extreme.noise_inputs.stored_per_topic`).
* ``datasets``: a benchmark whose topic set is the equal-weight mean of other collections
  (``topic_sets.parts``, e.g. beir-13): every published result on each part, grouped by
  system (within its track or paper); systems without a value on every part are left out
  (counted). Each dataset's own noise, where the measure is bounded in [0, 1], is the
  bound sqrt(v (1 - v) / n) of a mean of n per-query scores in [0, 1] with mean v (the
  largest variance a [0, 1] score with mean v can have): a bound, not a measurement.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from litaudit.analyses.audits import fingerprint
from litaudit.analyses.extreme.population import Loaded, load_population
from litaudit.curation.filters import Filters
from litaudit.errors import NotFound, ParameterError
from litaudit.measures import parse_measure
from litaudit.runs.archive import count_runs
from litaudit.runs.archive_eval import archive_matrix
from litaudit.runs.pertopic import read_pertopic_csv, read_trec_eval_q
from litaudit.store.collections import TopicSet, topic_sets

if TYPE_CHECKING:
    import duckdb

NOISE_MODES = ("bound", "none")


@dataclass(frozen=True)
class RankInput:
    """K systems' scores on T shared units (``scores`` K x T), ``unit_se`` the cells' own
    se (None: none added); ``source`` 'matrix' | 'archive' | 'datasets'; ``what``: where
    they came from, in words; ``left_out``: systems without a score on every unit
    (datasets) or units without a score of every system (matrix, archive)."""

    systems: tuple[str, ...]
    units: tuple[str, ...]
    unit_kind: str
    scores: np.ndarray
    unit_se: np.ndarray | None
    source: str
    what: str
    left_out: int
    fingerprint: str


def _complete_topics(scores: np.ndarray, topics) -> tuple[np.ndarray, tuple[str, ...], int]:
    ok = np.all(np.isfinite(scores), axis=0)
    return scores[:, ok], tuple(t for t, k in zip(topics, ok, strict=True) if k), int((~ok).sum())


def existing_files(files) -> tuple[list[Path], str]:
    """The files as paths (each an existing file) and the SHA-256 of their bytes."""
    paths = [Path(p) for p in files]
    h = hashlib.sha256()
    for path in paths:
        if not path.is_file():
            raise NotFound(f"{path}: no such file")
        h.update(path.read_bytes())
    return paths, h.hexdigest()


def _check_range(scores: np.ndarray, matrix, paths: list[Path], measure: str) -> None:

    pm = parse_measure(measure)
    bad = np.isinf(scores) | (scores < pm.min_value) | (scores > pm.max_value)
    if bad.any():
        i, j = (int(x[0]) for x in np.nonzero(bad))
        where = paths[i] if len(paths) == len(matrix.runs) else paths[0]
        raise ParameterError(
            f"{where}: run {matrix.runs[i]}, topic {matrix.topics[j]}: {measure} "
            f"{scores[i, j]:g} is outside its range [{pm.min_value:g}, {pm.max_value:g}]"
        )


def from_files(paths: list[Path], fmt: str, measure: str, digest: str) -> RankInput:
    """A score matrix's runs x topics (``digest``: the SHA-256 of the files)."""

    if fmt not in ("csv", "trec_eval"):
        raise ParameterError(f"--input-format: {fmt!r} is not one of csv, trec_eval")
    if fmt == "csv" and len(paths) != 1:
        raise ParameterError(
            "a topic-by-run CSV is one file; several are for --input-format trec_eval"
        )
    if fmt == "csv":
        matrix = read_pertopic_csv(paths[0])
    else:
        matrix = read_trec_eval_q(paths, measure)
    scores = np.asarray(matrix.scores, dtype=np.float64)
    if scores.size == 0:
        raise ParameterError(f"{paths[0]}: no scores")
    _check_range(scores, matrix, paths, measure)
    scores, topics, dropped = _complete_topics(scores, matrix.topics)
    names = ", ".join(p.name for p in paths)
    what = f"{names}: {len(matrix.runs)} runs x {len(topics)} topics"
    if dropped:
        what += f" ({dropped} topics some run lacks left out)"
    return RankInput(
        tuple(matrix.runs), topics, "topics", scores, None, "matrix", what, dropped, digest
    )


def from_archive(
    con: duckdb.DuckDBPyConnection, collection_id: str, measure: str
) -> RankInput | None:
    """The stored run archive's per-topic scores of ``measure`` (every run, rel_level 1,
    read back while the archive is unchanged, else evaluated and kept, as the interaction
    se reads them: :func:`~litaudit.runs.archive_eval.archive_matrix`), or None when the
    store holds no run of the collection, or no qrels to evaluate them with."""

    if not count_runs(con, collection_id):
        return None
    try:
        tm = archive_matrix(con, collection_id, str(parse_measure(measure)))
    except NotFound:  # runs without qrels
        return None
    if tm is None:
        return None
    runs, topics, x, complete, fp = tm.runs, tm.topics, tm.x, tm.complete, tm.fingerprint
    scores, kept, dropped = _complete_topics(x, topics)
    what = (
        f"the stored run archive of {collection_id}: {len(runs)} runs x {len(kept)} topics, "
        f"{measure} per topic from `runs eval{' -c' if complete else ''}`"
        + (f" ({dropped} topics some run lacks left out)" if dropped else "")
    )
    return RankInput(
        tuple(runs), kept, "topics", scores, None, "archive", what, dropped, fingerprint([fp])
    )


@dataclass(frozen=True)
class Preread:
    """What the ranks audits of many populations read of the store, read once for them
    all (`litaudit site`): every topic set, by collection (a collection's default first,
    as :func:`~litaudit.store.collections.topic_sets` lists them), and the published
    results of each measure and filters (one query each, as :func:`from_datasets` reads
    them)."""

    sets: dict[str, list[TopicSet]]
    results: dict[tuple[str, Filters], list[Loaded]] = dataclasses.field(default_factory=dict)

    @classmethod
    def load(cls, con: duckdb.DuckDBPyConnection) -> Preread:
        return cls.of(topic_sets(con))

    @classmethod
    def of(cls, listed: Iterable[TopicSet]) -> Preread:
        """A Preread of the topic sets ``listed`` (as ``topic_sets`` lists them)."""
        sets: dict[str, list[TopicSet]] = {}
        for ts in listed:
            sets.setdefault(ts.collection_id, []).append(ts)
        return cls(sets)

    def population(
        self, con: duckdb.DuckDBPyConnection, measure: str, filters: Filters
    ) -> list[Loaded]:
        """``load_population(con, None, measure, filters)``, read once."""
        if (measure, filters) not in self.results:
            self.results[(measure, filters)] = load_population(con, None, measure, filters)
        return self.results[(measure, filters)]


def dataset_parts(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    topics: str | None,
    preread: Preread | None = None,
) -> tuple[str, list[str]] | None:
    """(topic set, its parts) when the collection's topic set (``topics``, else its
    default) is an equal-weight mean of other collections, else None; ``preread``: the
    topic sets read once."""
    listed = (
        topic_sets(con, collection_id) if preread is None else preread.sets.get(collection_id, [])
    )
    for ts in listed:
        if topics is None or topics in (ts.name, str(ts.n_topics)):
            return (ts.name, list(ts.parts)) if ts.parts else None
    return None


def _bounded(measure: str) -> bool:

    pm = parse_measure(measure)
    return pm.min_value == 0.0 and pm.max_value == 1.0


def _labels(keys: list[tuple[str, str]]) -> tuple[str, ...]:
    """A system's name, with its track or paper where two keys share the name."""
    count: dict[str, int] = {}
    for _, system in keys:
        count[system] = count.get(system, 0) + 1
    return tuple(s if count[s] == 1 else f"{s} ({g})" for g, s in keys)


def from_datasets(  # noqa: PLR0913 - ``preread``: what the site reads once
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    measure: str,
    filters: Filters,
    noise: str,
    preread: Preread | None = None,
) -> RankInput | None:
    """Every system's published values on each part of the collection's topic set (None
    when the topic set is not a mean of parts); ``noise`` 'bound' adds each value's bound
    se (measures in [0, 1]), 'none' adds none; ``preread``: the topic sets and results
    read once for many populations (:class:`Preread`)."""

    if noise not in NOISE_MODES:
        raise ParameterError(f"--noise: {noise!r} is not one of {', '.join(NOISE_MODES)}")
    found = dataset_parts(con, collection_id, filters.topics, preread)
    if found is None:
        return None
    topic_set, parts = found
    wanted = dataclasses.replace(filters, topics=None)
    cells: dict[tuple[str, str], dict[str, tuple[float, int, str]]] = {}
    loaded = (
        load_population(con, None, measure, wanted)
        if preread is None
        else preread.population(con, measure, wanted)
    )
    for x in loaded:
        if x.collection_id not in parts:
            continue
        r = x.row
        key = (r.track or r.bibkey or r.source, r.system)
        cells.setdefault(key, {}).setdefault(x.collection_id, (r.value, r.n_topics, r.value_text))
    keys = sorted(k for k, v in cells.items() if len(v) == len(parts))
    left = len(cells) - len(keys)
    if len(keys) < 2:
        raise NotFound(
            f"{collection_id} {measure}: {len(keys)} systems have a value on every one of the "
            f"{len(parts)} datasets of {topic_set} ({left} have some): nothing to rank"
        )
    y = np.array([[cells[k][p][0] for p in parts] for k in keys])
    n = np.array([[cells[k][p][1] for p in parts] for k in keys], dtype=np.float64)
    unit_se = None
    if noise == "bound" and _bounded(measure):
        unit_se = np.sqrt(np.clip(y * (1.0 - y), 0.0, None) / np.maximum(n, 1.0))
    what = (
        f"published {measure} of {len(keys)} systems on each of the {len(parts)} datasets of "
        f"{collection_id} ({topic_set})"
        + (f"; {left} systems without every dataset left out" if left else "")
    )
    texts = [f"{g}\x1f{s}\x1f" + "\x1f".join(cells[(g, s)][p][2] for p in parts) for g, s in keys]
    return RankInput(
        _labels(keys),
        tuple(parts),
        "datasets",
        y,
        unit_se,
        "datasets",
        what,
        left,
        fingerprint(texts + [noise]),
    )


def bound_note(inp: RankInput) -> str | None:
    """What the added noise is, in words (None when none was added)."""
    if inp.unit_se is None:
        return None
    se = float(math.sqrt(float(np.mean(inp.unit_se**2))))
    return (
        f"each dataset's own noise added: the bound sqrt(v(1-v)/n) of its query count "
        f"(rms {se:.4f}), a bound, not a measurement"
    )
