"""Reusability by experimental design: agreement between baseline and reuse evaluations
(Carterette, Kanoulas, Pavlu and Fang, "Reusable Test Collections Through Experimental
Design", SIGIR 2010, Sections 3.2, 4.2, 4.3 and 5.1).

Input is a :class:`~litaudit.analyses.agreement.input.ScoreDesign`: per-topic scores of
runs, the site of every run, and the sites held out of every topic
(:mod:`litaudit.analyses.agreement.input`). It comes from one of
- :func:`simulate_pooling` (Section 4.3): on a judged collection, hold k sites out of each
  topic by round robin, keep only the judgments of documents in the depth-d pool of the
  other sites (unjudged = non-relevant) and evaluate every run on those reduced qrels;
- :func:`read_score_matrix` + :func:`read_holdouts` (or a generated assignment): a real
  design and its per-topic scores, e.g. the Section 4.2 check where every score is the
  full-judgment one and the collection is therefore reusable by construction.

:func:`analyze` then computes, for within-site, between-site and participant-comparison
pairs, the observed and expected agreement tables (aggregated over sites) and their
chi-square fit (:mod:`litaudit.stats.agreement`), Kendall's tau overall and per site, the
participant-comparison tau and the RMSE (:mod:`litaudit.stats.rankcorr`).
`reuse agreement` runs it on one assignment with the checks of
:func:`~litaudit.analyses.agreement.audit.checks_for`;
`reuse verdict` and `report` show the agreement over random assignments of
:mod:`litaudit.analyses.reuse.holdout_agreement` instead.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from litaudit import defaults
from litaudit.analyses.agreement.input import ScoreDesign
from litaudit.errors import NotFound, ParameterError
from litaudit.stats.agreement import (
    AgreementTable,
    PairTests,
    aggregate,
    decide,
    pair_tests,
    table,
)
from litaudit.stats.rankcorr import Tau, kendall_tau, participant_tau, rmse

if TYPE_CHECKING:
    pass

KIND = "reuse-agreement"
ANALYSES = ("within-site", "between-site", "participant-comparison")


# ------------------------------------------------------------------ analysis


@dataclass(kw_only=True, frozen=True)
class PairResult:
    """One tested pair: its runs, sites, topic counts, p-values and decisions."""

    analysis: str
    group: str  # the site (within-site), the new site (participant), a|b
    run_a: str
    run_b: str
    site_a: str
    site_b: str
    n_baseline: int
    n_reuse: int
    effect: float
    p_baseline: float
    p_reuse: float
    significant_baseline: bool
    significant_reuse: bool
    power_baseline: float
    power_reuse: float


@dataclass(frozen=True)
class GroupTable:
    group: str
    table: AgreementTable


@dataclass(frozen=True)
class AnalysisResult:
    """Agreement in significance for one type of reusability (Section 2.3)."""

    analysis: str  # within-site | between-site | participant-comparison
    pairs_tested: int
    pairs_skipped: int  # fewer than min_topics baseline or reuse topics
    aggregate: AgreementTable | None
    groups: tuple[GroupTable, ...]
    pairs: tuple[PairResult, ...]


@dataclass(frozen=True)
class RunScores:
    run: str
    site: str
    baseline: float  # mean over the topics its site contributed to
    reuse: float  # mean over the topics its site was held out of
    n_baseline: int
    n_reuse: int


@dataclass(frozen=True)
class SiteTau:
    site: str
    runs: int
    tau: Tau


@dataclass(frozen=True)
class RandomizedAnalysis:
    """One analysis's X^2 against the same scores under other assignments of the design."""

    analysis: str
    pairs: int
    x2: float
    x2_null_mean: float | None
    p_value: float | None  # (1 + #{X^2_r >= X^2}) / (1 + R); None without pairs


@dataclass(frozen=True)
class Randomization:
    """The dependence-keeping test of a design (litaudit.stats.agreement_null)."""

    assignments: int  # R
    seed: int
    k: int
    baseline: int
    analyses: tuple[RandomizedAnalysis, ...]


@dataclass(frozen=True)
class ReuseAgreement:
    """Everything Section 3.2 measures on one design."""

    source: str
    measure: str
    alpha: float
    correction: str  # none | holm | bonferroni (applied per analysis family)
    min_topics: int
    runs: int
    sites: int
    topics: int
    baseline_topics: int  # all-site baseline topics
    analyses: tuple[AnalysisResult, ...]
    tau: Tau | None  # overall, baseline vs reuse scores of every run
    site_tau: tuple[SiteTau, ...]  # within each site (Table 6)
    participant_tau: tuple[SiteTau, ...]  # per site (Table 6)
    rmse: float | None
    scores: tuple[RunScores, ...]
    # pooling simulation only (the paper's Figure 1, right): per-run reuse mean against the
    # mean over all topics with the full judgments
    true_tau: Tau | None = None
    true_rmse: float | None = None
    # `reuse agreement` only: its topic-order seed, the checks of checks_for at their
    # default thresholds and, with --randomize, the randomization test of the design
    seed: int | None = None
    checks: tuple[Check, ...] = ()
    randomization: Randomization | None = None

    def analysis(self, name: str) -> AnalysisResult:
        for a in self.analyses:
            if a.analysis == name:
                return a
        raise NotFound(f"no analysis {name!r}")


def _pair(
    d: ScoreDesign, i: int, j: int, base: np.ndarray, reuse: np.ndarray, min_topics: int
) -> PairTests | None:
    x, y = d.scores[i], d.scores[j]
    ok = ~(np.isnan(x) | np.isnan(y))
    b, r = base & ok, reuse & ok
    if b.sum() < min_topics or r.sum() < min_topics:
        return None
    diff = x - y
    return pair_tests(diff[b], diff[r])


def _candidate_pairs(d: ScoreDesign, analysis: str):
    """(group, i, j, baseline mask, reuse mask) for every pair of runs of one analysis."""
    sites = d.site_names()
    held = {s: d.held_mask(s) for s in sites}
    members = {s: [i for i, x in enumerate(d.sites) if x == s] for s in sites}
    if analysis == "within-site":
        for s in sites:
            for i, j in itertools.combinations(members[s], 2):
                yield s, i, j, ~held[s], held[s]
    elif analysis == "between-site":
        for s, t in itertools.combinations(sites, 2):
            base, reuse = ~held[s] & ~held[t], held[s] & held[t]
            for i in members[s]:
                for j in members[t]:
                    yield f"{s}|{t}", i, j, base, reuse
    else:  # participant comparison: s is the new site, t the participant on record;
        # each pair of runs once (s the earlier site in sort order), as in the verdict's
        # litaudit.stats.agreement_null.pair_sets
        for s, t in itertools.combinations(sites, 2):
            base, reuse = ~held[s] & ~held[t], held[s] & ~held[t]
            for i in members[s]:
                for j in members[t]:
                    yield s, i, j, base, reuse


def _analysis(
    d: ScoreDesign, analysis: str, alpha: float, correction: str, min_topics: int, method: str
) -> AnalysisResult:
    meta, tests, skipped = [], [], 0
    for group, i, j, base, reuse in _candidate_pairs(d, analysis):
        t = _pair(d, i, j, base, reuse, min_topics)
        if t is None:
            skipped += 1
            continue
        meta.append((group, i, j))
        tests.append(t)
    dec = decide(tests, alpha, correction)
    pairs = tuple(
        PairResult(
            analysis=analysis,
            group=g,
            run_a=d.runs[i],
            run_b=d.runs[j],
            site_a=d.sites[i],
            site_b=d.sites[j],
            n_baseline=t.n_baseline,
            n_reuse=t.n_reuse,
            effect=t.effect,
            p_baseline=t.p_baseline,
            p_reuse=t.p_reuse,
            significant_baseline=dec.sig_baseline[n],
            significant_reuse=dec.sig_reuse[n],
            power_baseline=dec.power_baseline[n],
            power_reuse=dec.power_reuse[n],
        )
        for n, ((g, i, j), t) in enumerate(zip(meta, tests, strict=True))
    )
    groups: tuple[GroupTable, ...] = ()
    if analysis != "between-site":
        names = sorted({g for g, _, _ in meta})
        groups = tuple(
            GroupTable(g, table(dec, [n for n, m in enumerate(meta) if m[0] == g], method=method))
            for g in names
        )
    agg = None
    if tests:
        # summing per-group tables and refitting = the paper's aggregation over sites
        agg = (
            aggregate([g.table for g in groups], method=method)
            if groups
            else table(dec, method=method)
        )
    return AnalysisResult(analysis, len(tests), skipped, agg, groups, pairs)


def _nanmean(x: np.ndarray) -> tuple[float, int]:
    x = x[~np.isnan(x)]
    return (float(x.mean()), int(x.size)) if x.size else (float("nan"), 0)


def analyze(
    d: ScoreDesign,
    *,
    alpha: float = defaults.REUSE_ALPHA,
    correction: str = "none",
    min_topics: int = 5,
    method: str = "auto",
    source: str = "",
    measure: str = "AP",
    true_scores: np.ndarray | None = None,
    which: Sequence[str] = ANALYSES,
) -> ReuseAgreement:
    """Section 3.2 on a design: significance agreement (3.2.1), ordering (3.2.2), RMSE (3.2.3).

    Pairs with fewer than ``min_topics`` baseline or reuse topics are skipped (counted).
    ``true_scores`` (runs x topics, full judgments; from a simulation) adds Kendall's tau and
    the RMSE between each run's reuse mean and its mean over all topics with all judgments.
    With a correction, each analysis's baseline p-values form one family and its reuse
    p-values another.
    ``which`` restricts the analyses (default: all three).
    """
    if min_topics < 2:
        raise ParameterError("min_topics must be at least 2 (a t-test needs 2 topics)")
    unknown = [a for a in which if a not in ANALYSES]
    if unknown:
        raise ParameterError(f"unknown analysis {unknown[0]!r}; choose from {', '.join(ANALYSES)}")
    analyses = tuple(_analysis(d, a, alpha, correction, min_topics, method) for a in which)
    scores = []
    for i, (run, site) in enumerate(zip(d.runs, d.sites, strict=True)):
        h = d.held_mask(site)
        b, nb = _nanmean(d.scores[i][~h])
        r, nr = _nanmean(d.scores[i][h])
        scores.append(RunScores(run, site, b, r, nb, nr))
    ok = [s for s in scores if s.n_baseline and s.n_reuse]
    base = np.array([s.baseline for s in ok])
    reuse = np.array([s.reuse for s in ok])
    tau = kendall_tau(base, reuse) if len(ok) >= 2 else None
    site_tau, part_tau = [], []
    for s in d.site_names():
        mine = [n for n, x in enumerate(ok) if x.site == s]
        others = [n for n, x in enumerate(ok) if x.site != s]
        if len(mine) >= 2:
            site_tau.append(SiteTau(s, len(mine), kendall_tau(base[mine], reuse[mine])))
        if mine and others:
            part_tau.append(
                SiteTau(s, len(mine), participant_tau(base[mine], reuse[mine], base[others]))
            )
    true_tau = true_rmse = None
    if true_scores is not None and ok:
        idx = [d.runs.index(x.run) for x in ok]
        truth = np.nanmean(np.asarray(true_scores, dtype=float)[idx], axis=1)
        true_tau = kendall_tau(truth, reuse) if len(ok) >= 2 else None
        true_rmse = rmse(truth, reuse)
    return ReuseAgreement(
        true_tau=true_tau,
        true_rmse=true_rmse,
        source=source,
        measure=measure,
        alpha=alpha,
        correction=correction,
        min_topics=min_topics,
        runs=len(d.runs),
        sites=len(d.site_names()),
        topics=len(d.topics),
        baseline_topics=sum(1 for h in d.held_out if not h),
        analyses=analyses,
        tau=tau,
        site_tau=tuple(site_tau),
        participant_tau=tuple(part_tau),
        rmse=rmse(base, reuse) if ok else None,
        scores=tuple(scores),
    )


# ------------------------------------------------------------------ verdict component


@dataclass(frozen=True)
class Check:
    """One number of the verdict with its threshold; passed is None when not applicable."""

    name: str
    value: float | None
    threshold: float | None  # None: reported only
    rule: str  # e.g. "p >= 0.05"
    passed: bool | None
    note: str
