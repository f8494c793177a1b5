"""`litaudit reuse agreement` as a library call: assemble the design from one of its three
inputs (a stored run archive, run files with qrels, or a per-topic score matrix), run
the Section 3.2 analysis of Carterette, Kanoulas, Pavlu and Fang (SIGIR 2010,
:func:`litaudit.analyses.agreement.analyze`) and, for a stored archive, save the audit.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from litaudit.analyses import agreement as ag
from litaudit.analyses import agreement_input as agin
from litaudit.errors import LitauditError, ParameterError


@dataclass(frozen=True)
class AgreementRequest:
    """What `reuse agreement` was asked: exactly one of collection, qrels, scores."""

    collection: str | None = None
    qrels: Path | None = None
    runs: tuple[Path, ...] = ()
    runs_dir: Path | None = None
    scores: Path | None = None
    design: Path | None = None            # hold-out CSV for --scores
    run_sites: Path | None = None
    pseudo_sites: int | None = None
    held_out: int = 2
    baseline: int = 0
    depth: int = 100
    measure: str = "AP"
    alpha: float = 0.05
    correction: str = "none"
    min_topics: int = 5
    seed: int | None = None

    def check(self) -> None:
        given = [v for v in (self.collection, self.qrels, self.scores) if v is not None]
        if len(given) != 1:
            raise ParameterError("give exactly one of --collection, --qrels with "
                                 "--run/--runs-dir, or --scores")


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
        from litaudit.stats.design import assign_holdouts

        a = assign_holdouts(topics, sorted(set(sites)), req.held_out, req.baseline, rng=rng)
        held = dict(zip(a.topics, a.held_out, strict=True))
        source = (f"scores {req.scores.name}, round robin k={req.held_out}, "
                  f"baseline {req.baseline}")
        what = "generated design"
    design = agin.design_from_scores(tags, sites, topics, matrix, held, source=what)
    params = ag.audit_params(source="scores", k=None if req.design else req.held_out,
                             depth=None, alpha=req.alpha, correction=req.correction,
                             min_topics=req.min_topics, file=req.scores.name)
    return design, None, req.measure, source, params


def run_agreement(req: AgreementRequest, *, store=None,
                  status: Callable[[str], AbstractContextManager] | None = None
                  ) -> tuple[ag.ReuseAgreement, int | None]:
    """The analysis of ``req`` and, for a stored archive (``store`` open for writing),
    the id of the audit saved in one transaction."""
    from litaudit.measures import parse_measure

    req.check()
    req = AgreementRequest(**{**req.__dict__, "measure": str(parse_measure(req.measure))})
    rng = np.random.default_rng(req.seed) if req.seed is not None else None
    cid = None
    if req.scores is not None:
        design, true_scores, measure, source, params = _from_scores(req, rng)
    else:
        if req.collection is not None:
            from litaudit.runs.archive import load_archive
            from litaudit.store.refdata import resolve_collection

            if store is None:
                raise ParameterError("a stored archive needs an open store")
            cid = resolve_collection(store.con, req.collection).id
            archive = load_archive(store.con, cid)
            run_list, q = list(archive.runs), archive.qrels
            sites = tuple(i.participant or i.tag for i in archive.info)
        else:
            from litaudit.runs.trec_io import read_qrels, read_run

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
        label = (f"simulating depth-{req.depth} pools, {req.held_out} sites held out...")
        with (status(label) if status is not None else nullcontext()):
            sim = agin.simulate_pooling(q, run_list, sites, k=req.held_out, depth=req.depth,
                                        baseline=req.baseline, measure=req.measure, rng=rng)
        design, true_scores, measure = sim.design, sim.true_scores, sim.measure
        source = (f"pooling simulation, k={req.held_out}, depth={req.depth}; kept "
                  f"{sim.judged_kept} of {sim.judged_total} judgments")
        params = ag.audit_params(source="simulation", k=req.held_out, depth=req.depth,
                                 alpha=req.alpha, correction=req.correction,
                                 min_topics=req.min_topics, baseline=req.baseline)
    result = ag.analyze(design, alpha=req.alpha, correction=req.correction,
                        min_topics=req.min_topics, source=source, measure=measure,
                        true_scores=true_scores)
    audit_id = None
    if cid is not None:
        with store.transaction():
            audit_id = ag.save(store.con, cid, result, {**params, "seed": req.seed}, design,
                               req.seed)
    return result, audit_id
