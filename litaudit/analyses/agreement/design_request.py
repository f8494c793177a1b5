"""`reuse design` and `reuse holdout` asked once (issue 37 item 1): each command's options
as one frozen settings object, checked before anything is computed or written, and the one
call that answers it with a typed result (printed, and for `reuse holdout` written, by
:mod:`litaudit.render.design`).

The design is the held-out-site design of Carterette, Kanoulas, Pavlu and Fang (SIGIR 2010,
Table 2 and Section 4.3; :mod:`litaudit.stats.design`); the hold-out file is its round
robin of Table 1.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from litaudit.analyses.agreement.input import holdout_csv, holdout_topic_ids
from litaudit.errors import ParameterError
from litaudit.files import STDOUT, check_target
from litaudit.stats.design import (
    Design,
    PartialDesign,
    assign_holdouts,
    design,
    design_table,
    partial_design,
)


@dataclass(frozen=True, kw_only=True)
class DesignRequest:
    """`reuse design`: m sites, N topics, the all-site baseline n0 and, when given, the
    number k of sites held out of each topic (``partial``: Section 4.3's partial cycle)."""

    sites: int
    topics: int
    baseline_min: int
    held_out: int | None = None
    partial: bool = False

    def checked(self) -> DesignRequest:
        if self.partial and self.held_out is None:
            raise ParameterError("--partial needs --held-out K")
        return self


@dataclass(frozen=True, kw_only=True)
class DesignAnswer:
    """What `reuse design` computed: the partial-cycle design (``partial``), or the
    design of the chosen k (``chosen``, None without --held-out) and the table of every
    feasible k (``table``)."""

    request: DesignRequest
    partial: PartialDesign | None = None
    chosen: Design | None = None
    table: tuple[Design, ...] = ()


def answer_design(req: DesignRequest) -> DesignAnswer:
    """The design of a :meth:`DesignRequest.checked` request (Carterette et al. 2010,
    Table 2; Section 4.3 with ``partial``); an infeasible one is a ParameterError."""
    if req.partial:
        assert req.held_out is not None  # checked()
        part = partial_design(req.sites, req.topics, req.baseline_min, req.held_out)
        return DesignAnswer(request=req, partial=part)
    chosen = (
        design(req.sites, req.topics, req.baseline_min, req.held_out)
        if req.held_out is not None
        else None
    )
    rows = design_table(req.sites, req.topics, req.baseline_min)
    return DesignAnswer(request=req, chosen=chosen, table=rows)


@dataclass(frozen=True, kw_only=True)
class HoldoutRequest:
    """`reuse holdout`: the output (``-``: standard output), the sites (``sites`` named
    S1..Sm, or ``site_names``), the topics (``topics`` named 1..N, or ``topic_file``), the
    design's n0 and k, the seed of the topic shuffle, and the open database (never the
    output). :meth:`checked` fills in ``names`` and ``topic_ids``."""

    output: Path
    sites: int | None = None
    site_names: str | None = None
    topics: int | None = None
    topic_file: Path | None = None
    baseline_min: int = 0
    held_out: int
    seed: int | None = None
    database: Path | None = None
    names: tuple[str, ...] = ()
    topic_ids: tuple[str, ...] = ()

    @property
    def to_stdout(self) -> bool:
        return str(self.output) == STDOUT

    def checked(self) -> HoldoutRequest:
        """The output checked (never the database, a directory or a FIFO), the site names
        and the topic ids read (a bad topic file: an InputError naming its line)."""
        if not self.to_stdout:
            check_target(self.output, [self.database])
        names = site_names(self.sites, self.site_names)
        ids = holdout_topic_ids(self.topics, self.topic_file)
        return dataclasses.replace(self, names=tuple(names), topic_ids=tuple(ids))


def site_names(sites: int | None, names: str | None) -> list[str]:
    """The sites of a hold-out design: ``names`` (comma-separated), else S1..Sm (S01..,
    zero-padded, from ten sites on); both given must agree."""
    if names:
        out = [s.strip() for s in names.split(",") if s.strip()]
        if sites is not None and sites != len(out):
            raise ParameterError(f"--sites {sites} but --site-names lists {len(out)} sites")
        return out
    if sites is None:
        raise ParameterError("give --sites M or --site-names A,B,...")
    width = len(str(sites))
    return [f"S{i:0{width}d}" if width > 1 else f"S{i}" for i in range(1, sites + 1)]


@dataclass(frozen=True, kw_only=True)
class HoldoutPlan:
    """The hold-out design of a `reuse holdout` request and its CSV (``text``: ``topic,
    held_out_site``, ``rows`` rows), for the renderer to write; ``topic_order``:
    ``shuffled`` with a seed, else ``as given``."""

    request: HoldoutRequest
    design: Design
    text: str
    rows: int
    topic_order: str


def answer_holdout(req: HoldoutRequest) -> HoldoutPlan:
    """Design the hold-outs of a :meth:`HoldoutRequest.checked` request (Carterette et al.
    2010, Table 1: round robin, the topic order shuffled first with the seed) and build
    its CSV (not written: :func:`litaudit.render.design.print_holdout` writes it)."""
    names, ids = list(req.names), list(req.topic_ids)
    d = design(len(names), len(ids), req.baseline_min, req.held_out)
    rng = np.random.default_rng(req.seed) if req.seed is not None else None
    a = assign_holdouts(ids, names, req.held_out, d.baseline, rng=rng)
    text, rows = holdout_csv(a)
    order = "shuffled" if req.seed is not None else "as given"
    return HoldoutPlan(request=req, design=d, text=text, rows=rows, topic_order=order)
