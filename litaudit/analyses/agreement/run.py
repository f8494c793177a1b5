"""`litaudit reuse agreement` as a library call: assemble the design from one of its three
inputs (a stored run archive, run files with qrels, or a per-topic score matrix), run
the Section 3.2 analysis of Carterette, Kanoulas, Pavlu and Fang (SIGIR 2010,
:func:`litaudit.analyses.agreement.analysis.analyze`) and, for a stored archive, save the audit.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from litaudit import defaults
from litaudit.analyses.agreement import analysis as ag
from litaudit.analyses.agreement import audit
from litaudit.analyses.agreement import input as agin
from litaudit.analyses.agreement.analysis import Randomization, RandomizedAnalysis
from litaudit.analyses.audits import Audited
from litaudit.errors import LitauditError, ParameterError
from litaudit.measures import parse_measure
from litaudit.progress import Progress
from litaudit.runs.archive import run_rows
from litaudit.runs.coded import CodedQrels, CodedRuns
from litaudit.runs.stored_eval import load_coded
from litaudit.runs.trec_io import read_qrels, read_run
from litaudit.stats.agreement_null import (
    agreement_statistics,
    pair_sets,
    randomization_pvalue,
)
from litaudit.stats.design import assign_holdouts
from litaudit.store.collections import resolve_collection


@dataclass(frozen=True)
class AgreementRequest:
    """What `reuse agreement` was asked: exactly one of collection, qrels, scores."""

    collection: str | None = None
    qrels: Path | None = None
    runs: tuple[Path, ...] = ()
    runs_dir: Path | None = None
    scores: Path | None = None
    design: Path | None = None  # hold-out CSV for --scores
    run_sites: Path | None = None
    pseudo_sites: int | None = None
    held_out: int = defaults.AGREEMENT_K
    baseline: int = 0
    depth: int = defaults.AGREEMENT_DEPTH
    measure: str = "AP"
    alpha: float = defaults.REUSE_ALPHA
    correction: str = "none"
    min_topics: int = defaults.AGREEMENT_MIN_TOPICS
    seed: int | None = None
    randomize: int = 0  # R assignments of the randomization test (0: none)
    randomize_seed: int = 0

    def check(self) -> None:
        given = [v for v in (self.collection, self.qrels, self.scores) if v is not None]
        if len(given) != 1:
            raise ParameterError(
                "give exactly one of --collection, --qrels with --run/--runs-dir, or --scores"
            )


def _sites_of(tags, run_sites: Path | None) -> tuple[str, ...] | None:
    if run_sites is None:
        return None
    mapping = agin.read_run_sites(run_sites)
    missing = [t for t in tags if t not in mapping]
    if missing:
        raise LitauditError(f"{run_sites}: no site for run {missing[0]!r}")
    return tuple(mapping[t] for t in tags)


def _from_scores(req: AgreementRequest, rng):
    assert req.scores is not None
    tags, topics, matrix = agin.read_score_matrix(req.scores)
    sites = _sites_of(tags, req.run_sites)
    if sites is None:
        if req.pseudo_sites is None:
            raise ParameterError("--scores needs --run-sites FILE or --pseudo-sites M")
        sites = agin.pseudo_sites(tags, req.pseudo_sites)
    if req.design is not None:
        held = agin.read_holdouts(req.design, sorted(set(sites)))
        source = f"scores {req.scores.name}, design {req.design.name}"
        what = f"design {req.design}"
    else:
        a = assign_holdouts(topics, sorted(set(sites)), req.held_out, req.baseline, rng=rng)
        held = dict(zip(a.topics, a.held_out, strict=True))
        source = f"scores {req.scores.name}, round robin k={req.held_out}, baseline {req.baseline}"
        what = "generated design"
    design = agin.design_from_scores(tags, sites, topics, matrix, held, source=what)
    return design, None, req.measure, source


def stored_pool_inputs(con, collection: str) -> tuple[CodedRuns, CodedQrels, tuple[str, ...]]:
    """The runs, qrels and sites of the pooling simulation of a stored archive, as the
    store's integer codes (no docno coded again: robust03's simulation 2.0 -> 0.6 s of CPU,
    the same scores); rows in stored order (simulate_coded ranks them by run)."""
    cid = resolve_collection(con, collection).id
    coded, cq = load_coded(con, cid)
    rows = run_rows(con, cid, None)
    assert tuple(r[1] for r in rows) == coded.tags
    return coded, cq, tuple(r[2] or r[1] for r in rows)


def _pool_inputs(req: AgreementRequest):
    """The qrels, runs and sites of the pooling simulation of TREC files."""
    paths = list(req.runs)
    if req.runs_dir is not None:
        if not req.runs_dir.is_dir():
            raise LitauditError(f"{req.runs_dir}: not a directory")
        paths += sorted(p for p in req.runs_dir.iterdir() if p.is_file())
    if len(paths) < 2:
        raise ParameterError("--qrels needs at least 2 runs (--run or --runs-dir)")
    assert req.qrels is not None
    q = read_qrels(req.qrels)
    run_list = [read_run(p) for p in paths]
    tags = [r.tag for r in run_list]
    sites = _sites_of(tags, req.run_sites) or tuple(tags)
    return q, run_list, sites


def run_agreement(
    req: AgreementRequest,
    *,
    store=None,
    progress: Progress | None = None,
) -> Audited[ag.ReuseAgreement]:
    """The analysis of ``req`` with its checks (for a stored archive, ``store`` open for
    writing, saved as an audit in one transaction, or the stored audit of an identical
    call), and with ``req.randomize`` the randomization test of the same design inside it.
    ``progress`` (:class:`~litaudit.progress.Progress`): a phase for the pooling simulation
    (unit ``steps``: three per run, see
    :func:`~litaudit.analyses.agreement.input.simulate_pooling`) and one for the
    randomization test (unit ``assignments``)."""

    req.check()
    req = AgreementRequest(**{**req.__dict__, "measure": str(parse_measure(req.measure))})
    if req.collection is None:  # files: nothing stored
        return Audited(_analysis(req, progress), None)
    if store is None:
        raise ParameterError("a stored archive needs an open store")
    cid = resolve_collection(store.con, req.collection).id
    params = audit.audit_params(
        source="simulation",
        k=req.held_out,
        depth=req.depth,
        alpha=req.alpha,
        correction=req.correction,
        min_topics=req.min_topics,
        baseline=req.baseline,
    )
    params = {**params, "seed": req.seed}
    if req.randomize:  # without --randomize the parameters stay as they were
        params.update(randomize=req.randomize, randomize_seed=req.randomize_seed)
    key = audit.archive_key(store.con, cid, req.measure, params, req.seed)
    with store.transaction():
        return audit.save(store.con, key, lambda: _analysis(req, progress, store))


def _analysis(req: AgreementRequest, progress: Progress | None, store=None) -> ag.ReuseAgreement:
    """The analysis of ``req`` (its measure parsed) with its checks and, with
    ``req.randomize``, its randomization test."""
    rng = np.random.default_rng(req.seed) if req.seed is not None else None
    if req.scores is not None:
        design, true_scores, measure, source = _from_scores(req, rng)
    else:
        if progress is not None:
            label = f"simulating depth-{req.depth} pools, {req.held_out} sites held out"
            progress.status(label, unit="steps")
        k, depth, baseline, measure = req.held_out, req.depth, req.baseline, req.measure
        if req.collection is not None:
            assert store is not None
            coded, cq, sites = stored_pool_inputs(store.con, req.collection)
            sim = agin.simulate_coded(
                coded, cq, sites, k=k, depth=depth, baseline=baseline, measure=measure, rng=rng,
                progress=progress,
            )  # fmt: skip
        else:
            q, run_list, sites = _pool_inputs(req)
            sim = agin.simulate_pooling(
                q, run_list, sites, k=k, depth=depth, baseline=baseline, measure=measure,
                rng=rng, progress=progress,
            )  # fmt: skip
        design, true_scores, measure = sim.design, sim.true_scores, sim.measure
        source = (
            f"pooling simulation, k={req.held_out}, depth={req.depth}; kept "
            f"{sim.judged_kept} of {sim.judged_total} judgments"
        )
    result = ag.analyze(
        design,
        alpha=req.alpha,
        correction=req.correction,
        min_topics=req.min_topics,
        source=source,
        measure=measure,
        true_scores=true_scores,
    )
    rand = _randomize(req, design, progress) if req.randomize else None
    return dataclasses.replace(
        result, seed=req.seed, checks=audit.checks_for(result), randomization=rand
    )


def _randomize(req: AgreementRequest, design, progress: Progress | None) -> Randomization:
    """`reuse agreement --randomize R`: the randomization test of the design, its phase."""
    if progress is not None:
        progress.status(f"randomization test, {req.randomize} assignments", unit="assignments")
    return randomization_test(
        design,
        assignments=req.randomize,
        seed=req.randomize_seed,
        alpha=req.alpha,
        min_topics=req.min_topics,
        progress=progress,
    )


def randomization_test(
    design,
    *,
    assignments: int,
    seed: int,
    alpha: float = defaults.REUSE_ALPHA,
    min_topics: int = 5,
    progress=None,
) -> Randomization:
    """X^2 of each analysis with the design's assignment against ``assignments`` random
    assignments of the same design (same k, same all-site baseline count, the round robin
    after a random topic order) on the same scores. Valid when the real assignment was
    randomized that way; the design must hold out the same number of sites of every
    non-baseline topic. ``progress(steps, total=more)``: the ``assignments`` announced
    first, then one step after each."""

    if assignments < 1:
        raise ParameterError("--randomize needs at least 1 assignment")
    sizes = {len(h) for h in design.held_out if h}
    if len(sizes) != 1:
        raise ParameterError(
            "the randomization test needs the same number of held-out "
            f"sites on every held-out topic (got {sorted(sizes) or 'none'})"
        )
    k = sizes.pop()
    baseline = sum(1 for h in design.held_out if not h)
    names = design.site_names()
    code = {s: i for i, s in enumerate(names)}
    site = np.array([code[s] for s in design.sites])
    pos = {t: i for i, t in enumerate(design.topics)}

    def held(pairs_of_topic) -> np.ndarray:
        h = np.zeros((len(names), len(pos)), dtype=bool)
        for t, hs in pairs_of_topic:
            for s in hs:
                h[code[s], pos[t]] = True
        return h

    sets = pair_sets(site)
    real = agreement_statistics(
        design.scores,
        held(zip(design.topics, design.held_out, strict=True)),
        sets,
        alpha=alpha,
        min_topics=min_topics,
    )
    rng = np.random.default_rng(seed)
    null = np.zeros((assignments, len(sets)))
    if progress is not None:
        progress(total=assignments)
    for r in range(assignments):
        a = assign_holdouts(design.topics, names, k, baseline, rng=rng)
        st = agreement_statistics(
            design.scores,
            held(zip(a.topics, a.held_out, strict=True)),
            sets,
            alpha=alpha,
            min_topics=min_topics,
        )
        null[r] = [x.x2 for x in st]
        if progress is not None:
            progress(1)
    out = tuple(
        RandomizedAnalysis(
            x.analysis,
            x.pairs,
            x.x2,
            float(null[:, n].mean()) if x.pairs else None,
            randomization_pvalue(x.x2, null[:, n]) if x.pairs else None,
        )
        for n, x in enumerate(real)
    )
    return Randomization(assignments, seed, k, baseline, out)
