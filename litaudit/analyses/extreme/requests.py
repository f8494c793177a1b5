"""The extreme-value audit commands asked once (issue 37 item 1): each command's options
as one frozen settings object, checked before the store opens, and the one call that
answers it with a typed result (an :class:`~litaudit.analyses.audits.Audited` report, or
`audit summary`'s :class:`~litaudit.analyses.extreme.summary.Summary`), which one renderer
prints (:func:`litaudit.render.audits.emit`). The statistics are those of the modules
called (Carterette, SIGIR 2015; docs/STATISTICS.md); nothing is computed here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from litaudit import defaults
from litaudit.analyses.audits import Audited
from litaudit.analyses.extreme.baselines import BaselineStanding, run_baselines
from litaudit.analyses.extreme.best import AuditModel, BestReport, run_best
from litaudit.analyses.extreme.claim_audit import Claim, ClaimReport, run_claim
from litaudit.analyses.extreme.claim_evidence import Asked
from litaudit.analyses.extreme.history import HistoryReport, run_history
from litaudit.analyses.extreme.matrix import MatrixAudit, run_matrix
from litaudit.analyses.extreme.noise import parse_se
from litaudit.analyses.extreme.printed import printed
from litaudit.analyses.extreme.ranks import RanksAudit, RankSettings, run_ranks
from litaudit.analyses.extreme.record_steps import StepSettings
from litaudit.analyses.extreme.summary import Summary, run_summary
from litaudit.curation.filters import Filters
from litaudit.progress import Progress
from litaudit.stats.extreme import Sampling
from litaudit.store.results import resolve_id


@dataclass(frozen=True, kw_only=True)
class ModelOptions:
    """The extreme-value model's options as given (``--alpha --p --method --trials
    --seed --se``); :meth:`model` the AuditModel of them (a bad one: a ParameterError)."""

    alpha: float = defaults.ALPHA
    p: float = defaults.P_INTERVAL
    method: str = "exact"
    trials: int | None = None
    seed: int | None = None
    se: str | None = None

    def model(self) -> AuditModel:
        sampling = Sampling(method=self.method, trials=self.trials, seed=self.seed)
        return AuditModel(alpha=self.alpha, p=self.p, se=parse_se(self.se), sampling=sampling)


@dataclass(frozen=True, kw_only=True)
class BestRequest:
    """`audit best`: a population's thresholds of its max and min (Tables 2-3)."""

    collection: str
    measure: str
    filters: Filters = Filters()
    options: ModelOptions = ModelOptions()
    save: bool = True

    def checked(self) -> BestRequest:
        self.options.model()
        return self


def answer_best(con: duckdb.DuckDBPyConnection, req: BestRequest) -> Audited[BestReport]:
    return run_best(
        con,
        req.collection,
        req.measure,
        filters=req.filters,
        model=req.options.model(),
        save=req.save,
    )


@dataclass(frozen=True, kw_only=True)
class ClaimRequest:
    """`audit claim`: ``claim`` (its ``result_id`` left None: ``result``, a published
    result's id or uid, names it), the ``evidence`` asked for, the population and model."""

    collection: str
    measure: str
    claim: Claim = Claim()
    result: str | None = None
    evidence: Asked = Asked()
    filters: Filters = Filters()
    options: ModelOptions = ModelOptions()
    save: bool = True

    def checked(self) -> ClaimRequest:
        self.options.model()
        return self


def answer_claim(con: duckdb.DuckDBPyConnection, req: ClaimRequest) -> Audited[ClaimReport]:
    claim = req.claim
    if req.result is not None:
        text = req.result.strip()
        rid = int(text) if text.isdigit() else resolve_id(con, text)
        claim = dataclasses.replace(claim, result_id=rid)
    return run_claim(
        con,
        req.collection,
        req.measure,
        claim,
        filters=req.filters,
        model=req.options.model(),
        evidence=req.evidence,
        save=req.save,
    )


@dataclass(frozen=True, kw_only=True)
class BaselinesRequest:
    """`audit baselines`: a baseline (as printed) and its model against the published
    baselines and reproductions (Armstrong et al., CIKM 2009); ``claim`` as printed."""

    collection: str
    measure: str
    value: str | None = None
    model: str | None = None
    claim: str | None = None
    save: bool = True

    def checked(self) -> BaselinesRequest:
        printed(self.claim, "--claim")
        return self


def answer_baselines(
    con: duckdb.DuckDBPyConnection, req: BaselinesRequest
) -> Audited[BaselineStanding]:
    return run_baselines(
        con,
        req.collection,
        req.measure,
        value=req.value,
        model=req.model,
        claim=printed(req.claim, "--claim")[0],
        save=req.save,
    )


@dataclass(frozen=True, kw_only=True)
class HistoryRequest:
    """`audit history`: the record over time against the expected max; ``every``: the
    terminal shows every step, not only the record steps (the stored audit is the same)."""

    collection: str
    measure: str
    reference: str = "running"
    filters: Filters = Filters()
    alpha: float = defaults.ALPHA
    se: str | None = None
    steps: StepSettings = StepSettings()
    save: bool = True

    def checked(self) -> HistoryRequest:
        parse_se(self.se)
        return self


def answer_history(con: duckdb.DuckDBPyConnection, req: HistoryRequest) -> Audited[HistoryReport]:
    return run_history(
        con,
        req.collection,
        req.measure,
        filters=req.filters,
        alpha=req.alpha,
        reference=req.reference,
        se=parse_se(req.se),
        steps=req.steps,
        save=req.save,
    )


@dataclass(frozen=True, kw_only=True)
class RanksRequest:
    """`audit ranks`: the confidence set of the best and rank intervals (Mogstad et al.
    2024) of a collection's stored scores or of score ``files``."""

    measure: str
    collection: str | None = None
    files: tuple[Path, ...] = ()
    fmt: str = "csv"
    filters: Filters = Filters()
    settings: RankSettings = RankSettings()
    save: bool = True


def answer_ranks(con: duckdb.DuckDBPyConnection, req: RanksRequest) -> Audited[RanksAudit]:
    return run_ranks(
        con,
        measure=req.measure,
        collection=req.collection,
        files=list(req.files) or None,
        fmt=req.fmt,
        filters=req.filters,
        settings=req.settings,
        save=req.save,
    )


@dataclass(frozen=True, kw_only=True)
class MatrixRequest:
    """`audit matrix`: run means of a per-topic score matrix (N runs, n topics)."""

    files: tuple[Path, ...]
    measure: str
    collection: str | None = None
    fmt: str = "csv"
    options: ModelOptions = ModelOptions()
    save: bool = True

    def checked(self) -> MatrixRequest:
        self.options.model()
        return self


def answer_matrix(con: duckdb.DuckDBPyConnection, req: MatrixRequest) -> Audited[MatrixAudit]:
    return run_matrix(
        con,
        list(req.files),
        measure=req.measure,
        collection=req.collection,
        fmt=req.fmt,
        model=req.options.model(),
        save=req.save,
    )


@dataclass(frozen=True, kw_only=True)
class SummaryRequest:
    """`audit summary`: `audit best` (exact) of every collection, measure and source."""

    min_n: int = defaults.MIN_N
    alpha: float = defaults.ALPHA
    p: float = defaults.P_INTERVAL
    filters: Filters = field(default_factory=Filters)
    save: bool = True


def answer_summary(
    con: duckdb.DuckDBPyConnection, req: SummaryRequest, progress: Progress | None = None
) -> Summary:
    return run_summary(
        con,
        min_n=req.min_n,
        alpha=req.alpha,
        p=req.p,
        filters=req.filters,
        save=req.save,
        progress=progress,
    )
