"""Extreme-value audit from a per-topic score matrix instead of published means.

The input is a topic-by-run CSV (like ``shared/data/pertopic/*.csv``) or ``trec_eval -q``
output; each run's mean over the topics is one of the N values of Carterette (2015), and
n is the number of topics. The audit is stored (kind ``best-matrix``) like the others.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from litaudit.analyses.audits import save_audit
from litaudit.defaults import MIN_N
from litaudit.errors import LitauditError
from litaudit.stats.intervals import BestAudit, audit_best

KIND = "best-matrix"


@dataclass(frozen=True)
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
    audit_id: int | None = None


def read_matrix(paths: list[Path], fmt: str, measure: str):
    from litaudit.runs.pertopic import read_pertopic_csv, read_trec_eval_q

    if fmt == "csv":
        if len(paths) != 1:
            raise LitauditError("a topic-by-run CSV is one file; several files are for "
                                "--format trec_eval (one run each)")
        return read_pertopic_csv(paths[0])
    if fmt == "trec_eval":
        return read_trec_eval_q(paths, measure)
    raise LitauditError(f"--format: {fmt!r} is not one of csv, trec_eval")


def run_matrix(con, paths, *, measure: str, collection: str | None = None, fmt: str = "csv",
               alpha: float = 0.05, p: float = 0.2, method: str = "exact",
               trials: int | None = None, seed: int | None = None,
               save: bool = True) -> MatrixAudit:
    from litaudit.measures import parse_measure

    paths = [Path(p) for p in ([paths] if isinstance(paths, (str, Path)) else paths)]
    for path in paths:
        if not path.is_file():
            raise LitauditError(f"{path}: no such file")
    m = str(parse_measure(measure))
    matrix = read_matrix(paths, fmt, m)
    scores = np.asarray(matrix.scores, dtype=np.float64)
    if scores.size == 0:
        raise LitauditError(f"{path}: no scores")
    means = np.nanmean(scores, axis=1)
    if means.size < MIN_N:
        from litaudit.analyses.population import too_few_message

        raise LitauditError(too_few_message(f"{paths[0].name} {m}", int(means.size)))
    stats = audit_best(means, len(matrix.topics), alpha=alpha, p=p, method=method,
                       trials=trials, seed=seed)
    cid = None
    if collection is not None:
        from litaudit.store.refdata import resolve_collection

        cid = resolve_collection(con, collection).id
    h = hashlib.sha256()
    for path in paths:
        h.update(path.read_bytes())
    digest = h.hexdigest()
    rep = MatrixAudit(
        ", ".join(str(p) for p in paths), digest, cid, m, len(matrix.runs), len(matrix.topics),
        bool(np.isfinite(scores).all()), tuple(matrix.runs),
        tuple(float(x) for x in means), stats,
        tuple((matrix.runs[i], float(means[i])) for i in stats.candidates))
    if save:
        if cid is None:
            raise LitauditError("--collection is needed to store the audit (or use --no-save)")
        aid = save_audit(con, kind=KIND, collection_id=cid, measure=m,
                         params={"files": [p.name for p in paths], "format": fmt, "alpha": alpha, "p": p,
                                 "method": method},
                         method=stats.method, input_fingerprint=digest, result=rep,
                         seed=stats.seed, trials=stats.trials)
        rep = dataclasses.replace(rep, audit_id=aid)
    return rep
