"""Every record step of `audit history` tested against the record it replaced (issue 34,
item 1): the statistics are :mod:`litaudit.stats.records`; this module finds the paired
scores each step can be tested on.

* Per-dataset scores: when the population's topic set is the equal-weight mean of other
  collections (``topic_sets.parts``: BEIR-13's 13 datasets, ...), a step's two systems
  are paired on the parts where both have a result of the same measure (the same system
  name; of several, the one of the same track, ``.../derived`` read as its parts' track).
* Per-topic scores: when the store holds the collection's run archive with runs tagged as
  both systems (the archive's evaluation of the measure).
* Otherwise only the two published means: the step in units of the standard error of a
  difference, sqrt(2) times the audit's se (:class:`~litaudit.analyses.extreme.noise.NoiseChoice`),
  which assumes the two results are as far apart by chance as two systems of the
  collection on the same topics are on average; under the model's sd / sqrt(n) it is no
  measured se at all.

The paired test is the selective sign-flip test (conditional on the record event), the
p-value multiplied by the number of results of the step (the record is the best of them),
Holm over the steps; with ``certify`` each step also gets its online level (alpha-spending
or LORD++) in the order the records came.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from litaudit.analyses.extreme.noise import NoiseChoice
from litaudit.analyses.extreme.noise_inputs import NoiseLookups
from litaudit.analyses.extreme.population import (
    Filters,
    Population,
    ResultRow,
    load_population,
    load_results,
)
from litaudit.analyses.extreme.same_topic import archive_tag
from litaudit.errors import ParameterError
from litaudit.stats import records as record_stats
from litaudit.stats.holm import holm
from litaudit.stats.sequential import History

if TYPE_CHECKING:
    import duckdb

BASES = ("datasets", "topics", "means")
METHOD = (
    "selective paired sign-flip test P(S >= s | S > 0) on the shared topics or datasets "
    "(conditional on the record event; Fithian, Sun and Taylor 2014; Smucker, Allan and "
    "Carterette, CIKM 2007), times the results of the step (Bonferroni: the record is the "
    "best of its step), Holm (1979) over the steps"
)


@dataclass(frozen=True, kw_only=True)
class RecordStepTest:
    """One record step: ``new`` took the record from ``previous`` at step ``when`` by
    ``margin``. ``step_results``: the results of the step (the Bonferroni factor).
    ``basis``: 'datasets' or 'topics' (``signflip``: the paired test on ``n_shared``
    units) or 'means' (``z`` = margin / ``se_difference`` and its selective normal
    p-value). ``p_raw``: the selective p-value; ``p``: times ``step_results`` (at most 1);
    ``p_holm``: Holm over the history's steps; ``level``/``certified``: the online rule's
    level and verdict (None without one). ``note``: why a paired test was not possible."""

    when: str
    previous: ResultRow
    new: ResultRow
    margin: float
    step_results: int
    basis: str
    n_shared: int | None
    signflip: record_stats.SignFlip | None
    z: float | None
    se_difference: float | None
    p_raw: float
    p: float
    p_holm: float
    level: float | None = None
    certified: bool | None = None
    note: str | None = None


@dataclass(frozen=True, kw_only=True)
class RecordSteps:
    """The record audit of a history: ``steps`` in time order; ``n_significant`` after
    Holm at ``alpha``; ``certify``: the online rule (None: not asked) and ``n_certified``;
    ``seed``/``draws``: the Monte Carlo sign patterns of tests on more than
    ``stats.records.EXACT_MAX`` units (exact enumeration below); ``method`` says what was
    done."""

    steps: tuple[RecordStepTest, ...]
    alpha: float
    n_significant: int
    certify: str | None
    n_certified: int | None
    seed: int
    draws: int
    method: str = METHOD
    se_source: str | None = None  # the audit's se behind the 'means' steps (NoiseChoice.source)


def _family(track: str | None) -> str:
    t = track or ""
    return t[: -len("/derived")] if t.endswith("/derived") else t


def _part_scores(
    con: duckdb.DuckDBPyConnection, parts: tuple[str, ...], measure: str
) -> dict[str, list[ResultRow]]:
    """Every result of ``measure`` on each part, by part."""
    return {p: load_results(con, p, measure, Filters()) for p in parts}


@dataclass(frozen=True)
class Preloaded:
    """What the record steps of many histories read of the store besides their own rows,
    read once for them all (`litaudit site`): the noise lookups and, per measure, every
    result of each collection (best first, as :func:`load_results` orders them)."""

    lookups: NoiseLookups
    by_measure: dict[str, dict[str, list[ResultRow]]] = dataclasses.field(default_factory=dict)

    def part_scores(
        self, con: duckdb.DuckDBPyConnection, parts: tuple[str, ...], measure: str
    ) -> dict[str, list[ResultRow]]:
        """As :func:`_part_scores`, from one query per measure."""
        if measure not in self.by_measure:
            got: dict[str, list[ResultRow]] = {}
            for x in load_population(con, None, measure, Filters()):
                got.setdefault(x.collection_id, []).append(x.row)
            self.by_measure[measure] = got
        return {p: list(self.by_measure[measure].get(p, ())) for p in parts}


def pick_part(rows: list[ResultRow], row: ResultRow) -> ResultRow | None:
    """The result among ``rows`` (one part's) of ``row``'s system: of several, the one of
    its track (a derived mean's track read as its parts')."""
    return _pick([r for r in rows if r.system == row.system], row)


def by_system(rows: list[ResultRow]) -> dict[str, list[ResultRow]]:
    """``rows`` (one part's) by system, each system's in their order: for
    :func:`pick_from`, which picks as :func:`pick_part` does without a scan of every row."""
    out: dict[str, list[ResultRow]] = {}
    for r in rows:
        out.setdefault(r.system, []).append(r)
    return out


def pick_from(index: dict[str, list[ResultRow]], row: ResultRow) -> ResultRow | None:
    """:func:`pick_part` of a part's rows indexed by :func:`by_system`."""
    return _pick(index.get(row.system, []), row)


def _pick(same: list[ResultRow], row: ResultRow) -> ResultRow | None:
    if len(same) > 1:
        same = [r for r in same if _family(r.track) == _family(row.track)] or same[:1]
    return same[0] if same else None


@dataclass(frozen=True, kw_only=True)
class StepSettings:
    """The steps of a history and how its record steps are tested: ``by`` 'auto', 'date'
    or 'year' (the replay's steps, :func:`litaudit.analyses.extreme.history.run_history`);
    Holm and the online rule at ``alpha``; ``certify``: None, 'spending' or 'lord';
    ``seed``/``draws``: the Monte Carlo sign patterns; ``reproductions``: whether the
    reproductions make steps too (False: published results only where the collection
    holds reproductions; the population's filters then say so, so no parameter here)."""

    by: str = "auto"
    alpha: float = 0.05
    certify: str | None = None
    seed: int = 0
    draws: int = record_stats.DRAWS
    reproductions: bool = True

    def params(self) -> dict:
        """The stored audit's parameters beyond the defaults (none by default, so that the
        key of a plain `audit history` stays what it was)."""
        given = {"certify": self.certify, "step_seed": self.seed, "step_draws": self.draws}
        default = {"certify": None, "step_seed": 0, "step_draws": record_stats.DRAWS}
        return {k: v for k, v in given.items() if v != default[k]}


@dataclass
class _Pairing:
    """Where a history's steps find paired scores (read once per history)."""

    con: duckdb.DuckDBPyConnection
    collection_id: str
    measure: str
    parts: tuple[str, ...] | None
    by_part: dict[str, list[ResultRow]] | None
    archived: bool
    archive: Any = None

    def paired(self, old: ResultRow, new: ResultRow) -> tuple[str, np.ndarray | None, str | None]:
        """(basis, new - old on the shared units or None, why not paired)."""
        if self.by_part is not None and self.parts:
            d = []
            missing = []
            for p in self.parts:
                a, b = pick_part(self.by_part[p], old), pick_part(self.by_part[p], new)
                if a is None or b is None:
                    missing.append(p)
                else:
                    d.append(b.value - a.value)
            if len(d) >= 2:
                note = f"no per-dataset result on {', '.join(missing)}" if missing else None
                return "datasets", np.asarray(d), note
            return "means", None, "no per-dataset results of both systems"
        if self.archived:
            got = self._topics(old, new)
            if got is not None:
                return "topics", got, None
            return "means", None, "the run archive holds no run of both systems"
        return "means", None, None

    def _topics(self, old: ResultRow, new: ResultRow) -> np.ndarray | None:

        ta = archive_tag(self.con, self.collection_id, old.system)
        tb = archive_tag(self.con, self.collection_id, new.system)
        if ta is None or tb is None:
            return None
        if self.archive is None:  # evaluated once for the history's steps
            # start-up: duckdb (through litaudit.runs.archive_eval)
            from litaudit.runs.archive_eval import evaluate_cached

            self.archive = evaluate_cached(self.con, self.collection_id, [self.measure])[0]
        ev = self.archive
        x = np.asarray(ev.matrix(self.measure), dtype=np.float64)
        a, b = x[ev.runs.index(ta)], x[ev.runs.index(tb)]
        shared = np.isfinite(a) & np.isfinite(b)
        if shared.sum() < 2:
            return None
        return b[shared] - a[shared]


def pairing(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    measure: str,
    rows: list[ResultRow],
    shared: Preloaded | None = None,
    lookups: NoiseLookups | None = None,
) -> _Pairing:
    """Where the record steps of a population (its ``rows``) find paired scores;
    ``shared``: the lookups and part scores read once for many histories; ``lookups``:
    the noise lookups of this one, when its caller has read them."""
    if shared is not None:
        lookups = shared.lookups
    elif lookups is None:
        lookups = NoiseLookups.load(con)
    sets: dict[str | None, int] = {}
    for r in rows:
        sets[r.topic_set] = sets.get(r.topic_set, 0) + 1
    topic_set = max(sets, key=lambda k: sets[k]) if sets else None
    found = lookups.topic_sets.get((collection_id, topic_set or ""))
    parts = found[1] if found and found[1] else None
    by_part = None
    if parts:
        by_part = (
            _part_scores(con, parts, measure)
            if shared is None
            else shared.part_scores(con, parts, measure)
        )
    return _Pairing(con, collection_id, measure, parts, by_part, collection_id in lookups.archived)


def _step(pairs, old, new, when, group, noise, rng, draws) -> RecordStepTest:
    basis, d, note = pairs.paired(old, new)
    margin = float(new.value - old.value)
    if d is not None:
        sf = record_stats.selective_signflip(d, rng=rng, draws=draws)
        p_raw = sf.p_selective
        z = se_d = None
    else:
        sf = None
        se_d = math.sqrt(2.0) * noise.se
        z, p_raw = record_stats.normal_selective_p(margin, se_d)
    return RecordStepTest(
        when=when,
        previous=old,
        new=new,
        margin=margin,
        step_results=group,
        basis=basis,
        n_shared=None if d is None else int(d.size),
        signflip=sf,
        z=z,
        se_difference=se_d,
        p_raw=float(p_raw),
        p=record_stats.step_adjusted(p_raw, group),
        p_holm=1.0,
        note=note,
    )


def record_steps(
    con: duckdb.DuckDBPyConnection,
    pop: Population,
    history: History,
    records: tuple[ResultRow, ...],
    noise: NoiseChoice,
    settings: StepSettings = StepSettings(),
    shared: Preloaded | None = None,
    lookups: NoiseLookups | None = None,
) -> RecordSteps:
    """The record audit of a replayed history of ``pop`` (``records[i]`` holds the record
    at ``history.points[i]``); ``shared``: what many histories read once (:class:`Preloaded`);
    ``lookups``: the noise lookups, when the history has read them (:func:`pairing`)."""

    alpha, certify, draws = settings.alpha, settings.certify, settings.draws
    if certify is not None and certify not in record_stats.CERTIFY_RULES:
        raise ParameterError(
            f"--certify: {certify!r} is not one of {', '.join(record_stats.CERTIFY_RULES)}"
        )
    pairs = pairing(con, pop.collection_id, pop.measure, pop.rows, shared, lookups)
    rng = np.random.default_rng(settings.seed)
    steps = []
    for i in range(1, len(history.points)):
        pt = history.points[i]
        if not pt.new_record:
            continue
        when = str(pt.when or pt.year)
        steps.append(_step(pairs, records[i - 1], records[i], when, pt.n_new, noise, rng, draws))
    adjusted = holm([s.p for s in steps]) if steps else ()
    levels: tuple[float | None, ...] = (None,) * len(steps)
    certified: tuple[bool | None, ...] = (None,) * len(steps)
    if certify is not None:
        levels, certified = record_stats.online_levels([s.p for s in steps], alpha, certify)
    out = tuple(
        dataclasses.replace(s, p_holm=float(h), level=lv, certified=c)
        for s, h, lv, c in zip(steps, adjusted, levels, certified, strict=True)
    )
    return RecordSteps(
        steps=out,
        alpha=alpha,
        n_significant=sum(1 for s in out if s.p_holm <= alpha),
        certify=certify,
        n_certified=None if certify is None else sum(1 for s in out if s.certified),
        seed=settings.seed,
        draws=draws,
        se_source=noise.source,
    )
