"""`reuse verdict` asked once: its options as one settings object, checked, and the one
call that answers it (issue 37: a command parses into a settings object, makes one library
call that returns a typed result, and hands it to one renderer).

A stored run archive's verdict (:func:`litaudit.analyses.reuse.verdict.run_verdict`) is
saved as an audit; a per-topic score matrix's (:func:`~litaudit.analyses.reuse.verdict.
matrix_verdict`, ``--scores``) is not. The statistics are those of
:mod:`litaudit.analyses.reuse.verdict` (Voorhees et al. SIGIR 2014; Sanderson et al. CIKM
2012; Carterette et al. SIGIR 2010).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit import defaults
from litaudit.analyses.agreement import input as agreement_input
from litaudit.analyses.audits import Audited
from litaudit.analyses.reuse import verdict, verdict_matrix, verdict_settings
from litaudit.analyses.reuse.subcollection_tau import SubcollectionTest
from litaudit.errors import ParameterError

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True, kw_only=True)
class VerdictRequest:
    """What `reuse verdict` is asked: a stored archive (``collection``) or a per-topic score
    matrix (``scores``, with ``run_sites`` or ``pseudo_sites``), and the decision's
    parameters; None takes the default of :mod:`litaudit.defaults` (:meth:`checked`)."""

    collection: str | None = None
    scores: str | None = None
    pseudo_sites: int | None = None
    run_sites: str | None = None
    depth: int | None = None
    margin: float | None = None
    alpha: float | None = None
    split: str = "prefix"
    permutations: int = defaults.SUBCOLLECTION_PERMUTATIONS
    split_seed: int | None = None
    seed: int | None = None
    assignments: int | None = None
    subcollections: bool = False
    topics: str | None = None
    workers: int = 1

    def checked(self) -> VerdictRequest:
        """The request with its defaults filled in, or a ParameterError naming the option."""
        if (self.collection is None) == (self.scores is None):
            raise ParameterError("give --collection or --scores")
        if self.scores is not None and self.depth is not None:
            raise ParameterError("--depth applies to a stored archive (--collection), not --scores")
        alpha = defaults.REUSE_ALPHA if self.alpha is None else self.alpha
        margin = defaults.REUSE_MARGIN_PCT if self.margin is None else self.margin
        if not margin > 0:
            raise ParameterError(f"--margin must be a positive percentage, got {margin}")
        if not 0 < alpha < 0.5:
            raise ParameterError(f"--alpha must be in (0, 0.5), got {alpha}")
        if self.scores is not None and self.topics is not None:
            raise ParameterError(
                "--topic-ids applies to a stored archive (--collection), not --scores"
            )
        return dataclasses.replace(
            self,
            alpha=alpha,
            margin=margin,
            seed=defaults.AGREEMENT_SEED if self.seed is None else self.seed,
            assignments=self.assignments or defaults.AGREEMENT_ASSIGNMENTS,
        )

    def steps(self) -> tuple[str, int]:
        """What a progress bar of :func:`answer_verdict` counts, and how many steps."""
        assignments = self.assignments or defaults.AGREEMENT_ASSIGNMENTS
        if self.scores is not None:
            return "hold-out assignments", assignments
        depths = verdict_settings.verdict_depths(self.depth)
        total = verdict_settings.verdict_steps(
            depths, assignments, self.permutations, self.subcollections
        )
        return "reusability", total


def answer_verdict(
    con: duckdb.DuckDBPyConnection | None,
    req: VerdictRequest,
    *,
    progress: Callable[..., None] | None = None,
) -> Audited[verdict.Verdict]:
    """The verdict of a :meth:`VerdictRequest.checked` request: a stored archive's, saved
    as an audit on ``con`` (a write connection), or a score matrix's (``con`` unused, not
    stored). ``progress(steps)`` as :meth:`VerdictRequest.steps` counts."""
    assert req.alpha is not None and req.margin is not None  # checked() filled them in
    assert req.seed is not None and req.assignments is not None
    if req.scores is not None:
        return Audited(_matrix_verdict(req, progress), None)
    assert req.collection is not None and con is not None
    test = SubcollectionTest(
        split=req.split,
        permutations=req.permutations,
        seed=verdict.SUBCOLLECTION_SEED if req.split_seed is None else req.split_seed,
    )
    asked = verdict_settings.VerdictSettings(
        depth=req.depth,
        margin_pct=req.margin,
        alpha=req.alpha,
        assignments=req.assignments,
        seed=req.seed,
        subcollections=req.subcollections,
        splits=test,
        topics=req.topics,
    )
    return verdict.run_verdict(con, req.collection, asked, workers=req.workers, progress=progress)


def _matrix_verdict(req: VerdictRequest, progress) -> verdict.Verdict:
    """`reuse verdict --scores`: the verdict of a per-topic score matrix (not stored)."""

    assert req.scores is not None and req.alpha is not None and req.margin is not None
    assert req.seed is not None and req.assignments is not None
    tags, _, matrix = agreement_input.read_score_matrix(Path(req.scores))
    if req.run_sites is not None:
        mapping = agreement_input.read_run_sites(Path(req.run_sites))
        missing = [t for t in tags if t not in mapping]
        if missing:
            raise ParameterError(f"{req.run_sites}: no site for run {missing[0]!r}")
        sites = tuple(mapping[t] for t in tags)
    elif req.pseudo_sites is not None:
        sites = agreement_input.pseudo_sites(tags, req.pseudo_sites)
    else:
        raise ParameterError("--scores needs --run-sites FILE or --pseudo-sites M")
    return verdict_matrix.matrix_verdict(
        matrix,
        sites,
        names=tuple(sorted(set(sites))),
        source=Path(req.scores).name,
        margin_pct=req.margin,
        seed=req.seed,
        assignments=req.assignments,
        alpha=req.alpha,
        progress=progress,
    )
