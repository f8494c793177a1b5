"""Extreme-value audit from a per-topic score matrix instead of published means.

The input is a topic-by-run CSV (like ``shared/data/pertopic/*.csv``) or ``trec_eval -q``
output; each run's mean over the topics is one of the N values of Carterette (2015), and
n is the number of topics. The per-topic scores also give a measured standard error of
one run's mean, the system x topic interaction's sqrt(MS_interaction / n), with the F test
of system differences (:mod:`litaudit.stats.noise`); the thresholds and intervals use it
unless ``se`` asks for the model's sd / sqrt(n) or gives a value. The audit is stored
(kind ``best-matrix``) like the others.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from litaudit import defaults
from litaudit.analyses.audits import Audited, AuditKey, run_or_reuse
from litaudit.analyses.extreme.best import AuditModel
from litaudit.analyses.extreme.population import too_few_message
from litaudit.errors import LitauditError
from litaudit.measures import parse_measure
from litaudit.runs.pertopic import read_pertopic_csv, read_trec_eval_q
from litaudit.stats.calibrated import ResampledNull, resampled_null
from litaudit.stats.intervals import BestAudit, audit_best
from litaudit.stats.noise import TopicInteraction, topic_interaction
from litaudit.stats.winner import WinnerCorrection, correct_winner, mean_covariance
from litaudit.store.collections import resolve_collection

if TYPE_CHECKING:
    import duckdb

KIND = "best-matrix"


@dataclass(frozen=True, kw_only=True)
class MatrixAudit:
    """``stats`` as for published results; ``runs``/``means`` in input order; ``file`` (the
    input files) and the SHA-256 of their bytes are the provenance; ``topics_complete`` says whether every run has a score
    on every topic (NaN cells are left out of that run's mean). ``interaction``: the
    two-way ANOVA of the scores (topics some run lacks left out); ``se_source``: 'interaction'
    (the default), 'model' or 'given', the standard error the thresholds used
    (``stats.reference.se``). ``resampled``: the threshold of the max and the F test
    calibrated on the matrix's own residuals (:mod:`litaudit.stats.calibrated`; None when
    fewer than 2 topics are complete)."""

    file: str
    file_sha256: str
    collection_id: str | None
    measure: str
    n_runs: int
    n_topics: int
    topics_complete: bool
    runs: tuple[str, ...]
    means: tuple[float, ...]
    stats: BestAudit
    candidates: tuple[tuple[str, float], ...]
    interaction: TopicInteraction | None = None  # (None: stored before issue 19)
    se_source: str = "model"
    winner: WinnerCorrection | None = None  # (None: stored before issue 34, or incomplete)
    resampled: ResampledNull | None = None  # (None: stored before issue 30)


def read_matrix(paths: list[Path], fmt: str, measure: str):

    if fmt == "csv":
        if len(paths) != 1:
            raise LitauditError(
                "a topic-by-run CSV is one file; several files are for "
                "--input-format trec_eval (one run each)"
            )
        return read_pertopic_csv(paths[0])
    if fmt == "trec_eval":
        return read_trec_eval_q(paths, measure)
    raise LitauditError(f"--input-format: {fmt!r} is not one of csv, trec_eval")


def _existing_paths(paths) -> list[Path]:
    paths = [Path(p) for p in ([paths] if isinstance(paths, (str, Path)) else paths)]
    for path in paths:
        if not path.is_file():
            raise LitauditError(f"{path}: no such file")
    return paths


def _sha256_of(paths: list[Path]) -> str:
    """The SHA-256 of the files' bytes, one after the other."""
    h = hashlib.sha256()
    for path in paths:
        h.update(path.read_bytes())
    return h.hexdigest()


def _check_range(scores: np.ndarray, matrix, paths: list[Path], fmt: str, m: str) -> None:
    """An error naming the first score outside the range of the measure ``m``."""

    pm = parse_measure(m)
    bad = np.isinf(scores) | (scores < pm.min_value) | (scores > pm.max_value)
    if bad.any():
        i, j = (int(x[0]) for x in np.nonzero(bad))
        where = paths[i] if fmt == "trec_eval" and len(paths) == len(matrix.runs) else paths[0]
        raise LitauditError(
            f"{where}: run {matrix.runs[i]}, topic {matrix.topics[j]}: "
            f"{m} {scores[i, j]:g} is outside its range "
            f"[{pm.min_value:g}, {pm.max_value:g}]"
            + (f" (and {int(bad.sum()) - 1} more cells)" if bad.sum() > 1 else "")
        )


def _matrix_se(scores: np.ndarray, se, alpha: float) -> tuple[TopicInteraction, str, float | None]:
    """(the interaction ANOVA, the se's source, the se the thresholds use: None for the
    model's) of a matrix audit asked for ``se`` (None/'interaction', 'model' or a value)."""
    inter = topic_interaction(scores, alpha=alpha, p_floor=defaults.P_FLOOR)
    if isinstance(se, float):
        return inter, "given", se
    if se == "model":
        return inter, "model", None
    if se == "bound":
        raise LitauditError("--se bound: a score matrix measures its own noise; use the default")
    return inter, "interaction", inter.se


def _resolve_collection(
    con: duckdb.DuckDBPyConnection, collection: str | None, save: bool
) -> str | None:
    """The collection id of ``collection`` (needed to store the audit)."""
    cid = None
    if collection is not None:
        cid = resolve_collection(con, collection).id
    if save and cid is None:
        raise LitauditError("--collection is needed to store the audit (or use --no-save)")
    return cid


def _compute(
    paths: list[Path], fmt: str, m: str, digest: str, cid: str | None, model: AuditModel
) -> MatrixAudit:
    """The matrix audit of ``paths`` under ``model``."""
    matrix = read_matrix(paths, fmt, m)
    scores = np.asarray(matrix.scores, dtype=np.float64)
    if scores.size == 0:
        raise LitauditError(f"{paths[0]}: no scores")
    _check_range(scores, matrix, paths, fmt, m)
    means = np.nanmean(scores, axis=1)
    if means.size < defaults.MIN_N:
        raise LitauditError(too_few_message(f"{paths[0].name} {m}", int(means.size)))
    inter, source, use = _matrix_se(scores, model.se, model.alpha)
    s = model.sampling
    stats = audit_best(
        means,
        len(matrix.topics),
        alpha=model.alpha,
        p=model.p,
        method=s.method,
        trials=s.trials,
        seed=s.seed,
        se=use,
    )
    return MatrixAudit(
        file=", ".join(str(p) for p in paths),
        file_sha256=digest,
        collection_id=cid,
        measure=m,
        n_runs=len(matrix.runs),
        n_topics=len(matrix.topics),
        topics_complete=bool(np.isfinite(scores).all()),
        runs=tuple(matrix.runs),
        means=tuple(float(x) for x in means),
        stats=stats,
        candidates=tuple((matrix.runs[i], float(means[i])) for i in stats.candidates),
        interaction=inter,
        se_source=source,
        winner=_winner(scores, model),
        resampled=resampled_null(
            scores,
            alpha=model.alpha,
            trials=defaults.RESAMPLED_NULL_TRIALS,
            seed=defaults.RESAMPLED_NULL_SEED,
        ),
    )


def _winner(scores: np.ndarray, model: AuditModel) -> WinnerCorrection | None:
    """The best run's mean corrected for selection (:mod:`litaudit.stats.winner`) on the
    topics every run has (None with fewer than 2)."""
    x = scores[:, np.isfinite(scores).all(axis=0)]
    if x.shape[1] < 2:
        return None
    means, sigma = mean_covariance(x)
    seed = model.sampling.seed if model.sampling.seed is not None else defaults.WINNER_SEED
    return correct_winner(means, sigma, scores=x, alpha=model.alpha, seed=seed)


def run_matrix(
    con: duckdb.DuckDBPyConnection,
    paths,
    *,
    measure: str,
    collection: str | None = None,
    fmt: str = "csv",
    model: AuditModel = AuditModel(),
    save: bool = True,
) -> Audited[MatrixAudit]:
    """Audit the run means of a score matrix under ``model`` (its ``se``: None or
    'interaction', measured from the matrix; 'model'; or a value); stored (kind
    ``best-matrix``) unless ``save=False``, or the stored audit of the same files and
    parameters reused."""

    paths = _existing_paths(paths)
    m = str(parse_measure(measure))
    cid = _resolve_collection(con, collection, save)
    digest = _sha256_of(paths)
    key = AuditKey(
        kind=KIND,
        collection_id=cid or "",
        measure=m,
        params={"files": [p.name for p in paths], "format": fmt, **model.params()},
        method=model.sampling.method,
        input_fingerprint=digest,
        seed=model.sampling.seed,
        trials=model.sampling.trials,
    )
    return run_or_reuse(con, key, lambda: _compute(paths, fmt, m, digest, cid, model), save=save)
