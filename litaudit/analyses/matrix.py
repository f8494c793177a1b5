"""Extreme-value audit from a per-topic score matrix instead of published means.

The input is a topic-by-run CSV (like ``shared/data/pertopic/*.csv``) or ``trec_eval -q``
output; each run's mean over the topics is one of the N values of Carterette (2015), and
n is the number of topics. The audit is stored (kind ``best-matrix``) like the others.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from litaudit import defaults
from litaudit.analyses.audits import Audited, run_or_reuse
from litaudit.errors import LitauditError
from litaudit.stats.extreme import montecarlo_params
from litaudit.stats.intervals import BestAudit, audit_best

KIND = "best-matrix"


@dataclass(kw_only=True, frozen=True)
class MatrixAudit:
    """``stats`` as for published results; ``runs``/``means`` in input order; ``file`` (the
    input files) and the SHA-256 of their bytes are the provenance; ``topics_complete`` says whether every run has a score
    on every topic (NaN cells are left out of that run's mean)."""

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


def read_matrix(paths: list[Path], fmt: str, measure: str):
    from litaudit.runs.pertopic import read_pertopic_csv, read_trec_eval_q

    if fmt == "csv":
        if len(paths) != 1:
            raise LitauditError(
                "a topic-by-run CSV is one file; several files are for "
                "--format trec_eval (one run each)"
            )
        return read_pertopic_csv(paths[0])
    if fmt == "trec_eval":
        return read_trec_eval_q(paths, measure)
    raise LitauditError(f"--format: {fmt!r} is not one of csv, trec_eval")


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
    from litaudit.measures import parse_measure

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


def run_matrix(
    con,
    paths,
    *,
    measure: str,
    collection: str | None = None,
    fmt: str = "csv",
    alpha: float = defaults.ALPHA,
    p: float = defaults.P_INTERVAL,
    method: str = "exact",
    trials: int | None = None,
    seed: int | None = None,
    save: bool = True,
) -> Audited[MatrixAudit]:
    """Audit the run means of a score matrix; stored (kind ``best-matrix``) unless
    ``save=False``, or the stored audit of the same files and parameters reused."""
    from litaudit.measures import parse_measure

    paths = _existing_paths(paths)
    m = str(parse_measure(measure))
    trials, seed = montecarlo_params(method, trials, seed)
    cid = None
    if collection is not None:
        from litaudit.store.refdata import resolve_collection

        cid = resolve_collection(con, collection).id
    if save and cid is None:
        raise LitauditError("--collection is needed to store the audit (or use --no-save)")
    digest = _sha256_of(paths)

    def compute() -> MatrixAudit:
        matrix = read_matrix(paths, fmt, m)
        scores = np.asarray(matrix.scores, dtype=np.float64)
        if scores.size == 0:
            raise LitauditError(f"{paths[0]}: no scores")
        _check_range(scores, matrix, paths, fmt, m)
        means = np.nanmean(scores, axis=1)
        if means.size < defaults.MIN_N:
            from litaudit.analyses.population import too_few_message

            raise LitauditError(too_few_message(f"{paths[0].name} {m}", int(means.size)))
        stats = audit_best(
            means, len(matrix.topics), alpha=alpha, p=p, method=method, trials=trials, seed=seed
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
        )

    params = {
        "files": [p.name for p in paths],
        "format": fmt,
        "alpha": alpha,
        "p": p,
        "method": method,
    }
    return run_or_reuse(
        con,
        KIND,
        collection_id=cid or "",
        measure=m,
        params=params,
        fingerprint=digest,
        compute=compute,
        method=method,
        seed=seed if method == "montecarlo" else None,
        trials=trials if method == "montecarlo" else None,
        save=save,
    )
