"""What `reuse agreement` adds to the analysis of :mod:`litaudit.analyses.agreement.analysis`
(Carterette, Kanoulas, Pavlu and Fang, SIGIR 2010, Sections 4.2-4.3 and 5.1): the pass/fail
checks of its numbers (:func:`checks_for`), the pooling simulation of a stored run archive
(:func:`simulate_archive`, sites = participants), and the analysis stored as an audit of
kind ``reuse-agreement`` (:func:`save`, with :func:`audit_params`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from litaudit import defaults
from litaudit.analyses.agreement.input import Simulation, simulate_pooling
from litaudit.analyses.audits import Audited, AuditKey, run_or_reuse
from litaudit.errors import NotFound
from litaudit.runs.archive import load_archive, stored_fingerprint

if TYPE_CHECKING:
    import duckdb
from litaudit.analyses.agreement.analysis import KIND, Check, ReuseAgreement

METHOD = "exact+asymptotic chi-square, noncentral t power"


def checks_for(
    result: ReuseAgreement,
    *,
    p_min: float = 0.05,
    tau_min: float | None = None,
    rmse_max: float | None = None,
) -> tuple[Check, ...]:
    """Pass/fail of each number.

    The chi-square p-value of every analysis is the test (Section 3.2.1: reject
    reusability when p < p_min); an analysis with fewer than
    ``defaults.AGREEMENT_MIN_PAIRS`` pairs is not enough data (passed None), never a pass.
    The p-value treats the pairs as independent (see docs/STATISTICS.md: the verdict
    does not gate on it). Kendall's tau and the RMSE have no reference distribution
    (Sections 3.2.2-3.2.3: "its interpretation is somewhat subjective"): they are reported
    with ``passed = None`` unless a threshold is given.
    """
    out = []
    for a in result.analyses:
        fit = a.aggregate.fit if a.aggregate else None
        rule = f"p >= {p_min:g}"
        if fit is None:
            out.append(
                Check(
                    f"{a.analysis} chi-square p",
                    None,
                    p_min,
                    rule,
                    None,
                    f"no pair with >= {result.min_topics} baseline and reuse topics",
                )
            )
        elif a.pairs_tested < defaults.AGREEMENT_MIN_PAIRS:
            out.append(
                Check(
                    f"{a.analysis} chi-square p",
                    fit.p_value,
                    p_min,
                    rule,
                    None,
                    f"not enough data: {a.pairs_tested} pair(s), fewer than "
                    f"{defaults.AGREEMENT_MIN_PAIRS}",
                )
            )
        else:
            out.append(
                Check(
                    f"{a.analysis} chi-square p",
                    fit.p_value,
                    p_min,
                    rule,
                    fit.p_value >= p_min,
                    f"{a.pairs_tested} pairs, {fit.method}, correction {result.correction}",
                )
            )

    def info(name, value, threshold, op, note):
        if value is None:
            return Check(name, None, threshold, "", None, note)
        if threshold is None:
            return Check(name, value, None, "reported only", None, note)
        ok = value >= threshold if op == ">=" else value <= threshold
        return Check(name, value, threshold, f"{op} {threshold:g}", ok, note)

    out.append(
        info(
            "Kendall tau",
            result.tau.tau if result.tau else None,
            tau_min,
            ">=",
            "baseline vs reuse mean scores of every run",
        )
    )
    out.append(
        info("RMSE", result.rmse, rmse_max, "<=", "baseline vs reuse mean scores of every run")
    )
    return tuple(out)


def simulate_archive(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    *,
    k: int = defaults.AGREEMENT_K,
    depth: int = defaults.AGREEMENT_DEPTH,
    measure: str = "AP",
    seed: int | None = None,
    progress=None,
) -> tuple[Simulation, tuple[str, ...]]:
    """Load a stored run archive and run the pooling simulation; sites = participants."""

    archive = load_archive(con, collection_id)
    if len(archive.runs) < 2:
        raise NotFound(f"collection {collection_id} has fewer than 2 stored runs")
    sites = tuple(i.participant or i.tag for i in archive.info)
    rng = np.random.default_rng(seed) if seed is not None else None
    sim = simulate_pooling(
        archive.qrels,
        archive.runs,
        sites,
        k=k,
        depth=depth,
        measure=measure,
        rng=rng,
        progress=progress,
    )
    return sim, sites


def audit_params(
    *,
    source: str,
    k: int | None,
    depth: int | None,
    alpha: float,
    correction: str,
    min_topics: int,
    **extra,
) -> dict:
    return {
        "source": source,
        "k": k,
        "depth": depth,
        "alpha": alpha,
        "correction": correction,
        "min_topics": min_topics,
        **extra,
    }


def archive_key(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    measure: str,
    params: dict,
    seed: int | None,
) -> AuditKey:
    """The key of `reuse agreement` on a stored archive: the archive's state
    (:func:`~litaudit.runs.archive.stored_fingerprint`, as the other reuse kinds), the
    measure, parameters and seed. The pooling simulation is a function of these alone (the
    topic order is permuted only by ``seed``), so an identical call is found before it
    runs: a repeated call reads the stored audit instead of loading and pooling the
    archive again (robust03: 1.8 -> 0.06 s of CPU)."""
    return AuditKey(
        kind=KIND,
        collection_id=collection_id,
        measure=measure,
        params=params,
        method=METHOD,
        input_fingerprint=stored_fingerprint(con, collection_id),
        seed=seed,
    )


def save(
    con: duckdb.DuckDBPyConnection,
    key: AuditKey,
    compute: Callable[[], ReuseAgreement],
) -> Audited[ReuseAgreement]:
    """Store ``compute()`` as an audit of kind 'reuse-agreement' under ``key``
    (:func:`archive_key`), or hand back the stored audit of an identical call (same
    archive, parameters, seed and version) without computing."""

    def checked() -> ReuseAgreement:
        result = compute()
        if result.measure != key.measure:  # the key names the measure before it is run
            raise ValueError(f"computed {result.measure!r}, keyed {key.measure!r}")
        return result

    return run_or_reuse(con, key, checked)
