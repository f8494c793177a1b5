"""Baseline strength: a paper's baseline against the published baselines of its
collection and measure, the reproducible value of the same model, and the best official
run (issue 21, item 3).

Improvements measured from a weak baseline do not add up (Armstrong, Moffat, Webber,
Zobel, "Improvements That Don't Add Up", CIKM 2009; Lin, "The Neural Hype and
Comparisons Against Weak Baselines", SIGIR Forum 2018; Yang, Lu, Yang, Lin, "Critically
Examining the Neural Hype", SIGIR 2019). The references read from the store:

* the published baselines: results with role ``baseline`` on the collection and measure
  (the baseline's rank among them and their median);
* the reproductions of the same model: results with role ``reproduction`` (e.g.
  Pyserini's two-click reproductions) whose system names the same model
  (:func:`model_key`: "BM25 (k1=0.9, b=0.4)", "bm25-default" and "BM25" are one model;
  "BM25+RM3" is another);
* the best official run (role ``official``).

A baseline is judged against its own model first (issue 32, item 6): weak when it lies
below every reproduction of the same model (tuned and default) by more than rounding
(half a unit in the last digit of each value as printed); within rounding of one of them,
or above the strongest, it is never weak. Without a reproduction, against the published
baselines of the same model (weak below their median). The median of all published
baselines, of any model, is context only, named as such: half of them lie below it by
construction. Without a model named there is nothing to judge against. The claim's gain
is given over its own baseline and over the strongest baseline of the same kind (the same
model's reproductions and published baselines; every published baseline when no model
is named).
"""

from __future__ import annotations

import dataclasses
import re
import statistics
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from litaudit.analyses.audits import Audited, AuditKey, run_or_reuse
from litaudit.analyses.extreme.baselines_wording import baseline_sentences
from litaudit.analyses.extreme.population import ResultRow, load_results, results_fingerprint
from litaudit.analyses.extreme.printed import check_range, printed
from litaudit.curation.filters import Filters
from litaudit.errors import ParameterError
from litaudit.store.collections import resolve_collection
from litaudit.store.measures import resolve_measure

if TYPE_CHECKING:
    import duckdb

_RUNTIMES = {"pytorch", "onnx", "default", "tuned", "flat", "multifield", "cached"}


def model_key(name: str) -> str:
    """A system name reduced to its model: lower case, without parameters in brackets,
    without a runtime after ':' and without a trailing default/tuned/flat/runtime word;
    '-', '_' and '+' read as spaces."""
    s = name.lower().split(":", 1)[0]
    s = re.sub(r"\([^)]*\)|\[[^\]]*\]", " ", s)
    words = re.sub(r"[-_+]", " ", s).split()
    while words and words[-1] in _RUNTIMES:
        words.pop()
    return " ".join(words)


def _digits(text: str) -> int:
    try:
        exp = Decimal(text.strip()).as_tuple().exponent
    except ArithmeticError:
        return 4
    return max(0, -int(exp)) if isinstance(exp, int) else 0


@dataclass(frozen=True, kw_only=True)
class BaselineRef:
    """A reference value: ``kind`` (published baseline, reproduction, official), its
    value as printed, system, and where it comes from (``source``, ``url``)."""

    kind: str
    result_id: int
    system: str
    value: float
    value_text: str
    source: str
    url: str | None


def _ref(kind: str, r: ResultRow) -> BaselineRef:
    return BaselineRef(
        kind=kind,
        result_id=r.id,
        system=r.system,
        value=r.value,
        value_text=r.value_text,
        source=r.provenance,
        url=r.url or r.link,
    )


@dataclass(frozen=True)
class BaselineStanding:
    """`audit baselines` (and a claim's ``--baseline``): where a baseline stands.

    ``value``/``value_text``: the paper's baseline (None for the view alone), ``model``
    its model's name as given (``model_key`` the name matched). ``published``: the
    published baselines of any model, best first; ``rank`` of the baseline among them and
    itself (1 = best; ``n_published`` + 1 in all), ``median`` of them and ``below_median``
    (context only, never the judgement). ``same_model_published`` and
    ``same_model_median``: the published baselines of the same model. ``matches``: the
    reproduction of the same model the baseline is within rounding of.
    ``reproductions``: the reproductions of the same model (every reproduction of the
    collection and measure when no model is named), best first; ``reproducible``: the
    strongest of the same model, ``reproducible_gap`` = value - it, ``rounding`` the gap
    that rounding explains, ``below_reproducible``. ``best_official`` and
    ``official_gap`` = value - it. ``weak``: below every reproduction of its model (tuned
    and default) by more than rounding, else (no reproduction) below the median of its
    model's published baselines (None when there is neither to judge against);
    ``weak_because`` says which. ``claim``: the claimed value when given;
    ``gain_over_own`` = claim - value; ``strongest``: the strongest baseline of the same
    kind, ``gain_over_strongest`` = claim - it. ``sentences``: the judgement in words.
    """

    collection_id: str
    measure: str
    value: float | None
    value_text: str | None
    model: str | None
    model_key: str | None
    published: tuple[BaselineRef, ...]
    n_published: int
    rank: int | None
    median: float | None
    below_median: bool | None
    reproductions: tuple[BaselineRef, ...]
    reproducible: BaselineRef | None
    reproducible_gap: float | None
    rounding: float | None
    below_reproducible: bool | None
    best_official: BaselineRef | None
    official_gap: float | None
    weak: bool | None
    weak_because: tuple[str, ...]
    claim: float | None
    gain_over_own: float | None
    strongest: BaselineRef | None
    gain_over_strongest: float | None
    sentences: tuple[str, ...]
    fingerprint: str
    same_model_published: tuple[BaselineRef, ...] = ()  # (issue 32: its own model first)
    same_model_median: float | None = None
    matches: BaselineRef | None = None  # a reproduction of the model within rounding


_ROLES = ("baseline", "reproduction", "official")


def _rows(con: duckdb.DuckDBPyConnection, cid: str, measure: str) -> dict[str, list[ResultRow]]:
    """The published baselines, reproductions and official runs, each best first: one
    query (the population's order kept within each role) rather than one a role (a
    population query is ~4 ms: 12.8 -> 5.3 ms a baseline standing on DL 2019)."""
    by_role: dict[str, list[ResultRow]] = {role: [] for role in _ROLES}
    for r in load_results(con, cid, measure, Filters(roles=_ROLES)):
        by_role[r.role].append(r)
    return by_role


def _against_reproducible(v, text, ref: BaselineRef | None):
    """(gap, rounding, below by more than rounding) of the baseline against ``ref``:
    rounding is half a unit in the last printed digit of each value."""
    if v is None or ref is None or text is None:
        return None, None, None
    gap = v - ref.value
    rounding = 0.5 * 10.0 ** -_digits(text) + 0.5 * 10.0 ** -_digits(ref.value_text)
    return gap, rounding, gap < -rounding - 1e-12


def _within_rounding(v, text, refs: list[BaselineRef]) -> BaselineRef | None:
    """The strongest of ``refs`` the baseline ``v`` (printed ``text``) is within rounding
    of (half a unit in the last printed digit of each), or None."""
    if v is None or text is None:
        return None
    for r in sorted(refs, key=lambda r: -r.value):
        rounding = 0.5 * 10.0 ** -_digits(text) + 0.5 * 10.0 ** -_digits(r.value_text)
        if abs(v - r.value) <= rounding + 1e-12:
            return r
    return None


def _judge(v, below_all, matches, own_median) -> tuple[bool | None, tuple[str, ...]]:
    """(weak, why): against the model's reproductions first (below every one of them by
    more than rounding; within rounding of one, or between them, is never weak: monotone
    in the value), else against the median of its own published baselines."""
    if v is None:
        return None, ()
    if below_all is not None:
        weak = below_all and matches is None
        return weak, (
            "below every reproduction of its model by more than rounding",
        ) if weak else ()
    if own_median is not None:
        weak = v < own_median
        return weak, ("below the median of its model's published baselines",) if weak else ()
    return None, ()


def baseline_standing(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    measure: str,
    *,
    value: float | str | None = None,
    model: str | None = None,
    claim: float | None = None,
) -> BaselineStanding:
    """Where the baseline ``value`` (as printed, or a float) of ``model`` stands on
    ``collection_id`` and ``measure`` (canonical ids); ``claim``: the claimed value."""
    rows = _rows(con, collection_id, measure)
    published, repro_all, official = rows["baseline"], rows["reproduction"], rows["official"]
    key = model_key(model) if model else None
    if model is not None and not key:
        raise ParameterError(f"--baseline-system {model!r} names no model")
    repro = [r for r in repro_all if key is None or model_key(r.system) == key]
    v, text = printed(value, "--baseline")
    if v is not None:
        check_range(con, measure, v, f"baseline {measure}")
    if claim is not None:
        check_range(con, measure, claim, f"claimed {measure}")
    pub_vals = [r.value for r in published]
    median = statistics.median(pub_vals) if pub_vals else None
    rank = below_median = None
    if v is not None and pub_vals:
        rank = 1 + sum(1 for x in pub_vals if x > v)
        below_median = v < median  # type: ignore[operator]
    reproducible = _ref("reproduction", repro[0]) if (repro and key) else None
    gap, rounding, below_rep = _against_reproducible(v, text, reproducible)
    best_off = _ref("official", official[0]) if official else None
    off_gap = None if (v is None or best_off is None) else v - best_off.value
    own_pub = [
        _ref("published baseline", r) for r in published if key and model_key(r.system) == key
    ]
    own_median = statistics.median([r.value for r in own_pub]) if own_pub else None
    refs = [_ref("reproduction", r) for r in repro] if key else []
    matches = _within_rounding(v, text, refs)
    below_all = None
    if refs and v is not None and text is not None:
        weakest = min(refs, key=lambda r: r.value)
        below_all = _against_reproducible(v, text, weakest)[2]
    weak, because = _judge(v, below_all, matches, own_median)
    same = [_ref("reproduction", r) for r in repro] if key else []
    same += [
        _ref("published baseline", r)
        for r in published
        if key is None or model_key(r.system) == key
    ]
    strongest = max(same, key=lambda r: r.value) if same else None
    gain_own = None if (claim is None or v is None) else claim - v
    gain_strong = None if (claim is None or strongest is None) else claim - strongest.value
    rep = BaselineStanding(
        collection_id=collection_id,
        measure=measure,
        value=v,
        value_text=text,
        model=model,
        model_key=key,
        published=tuple(_ref("published baseline", r) for r in published),
        n_published=len(published),
        rank=rank,
        median=median,
        below_median=below_median,
        reproductions=tuple(_ref("reproduction", r) for r in repro),
        reproducible=reproducible,
        reproducible_gap=gap,
        rounding=rounding,
        below_reproducible=below_rep,
        best_official=best_off,
        official_gap=off_gap,
        weak=weak,
        weak_because=because,
        claim=claim,
        gain_over_own=gain_own,
        strongest=strongest,
        gain_over_strongest=gain_strong,
        sentences=(),
        fingerprint=results_fingerprint(published + repro_all + official),
        same_model_published=tuple(own_pub),
        same_model_median=own_median,
        matches=matches,
    )

    return dataclasses.replace(rep, sentences=baseline_sentences(rep))


def run_baselines(
    con: duckdb.DuckDBPyConnection,
    collection: str,
    measure: str,
    *,
    value: float | str | None = None,
    model: str | None = None,
    claim: float | None = None,
    save: bool = True,
) -> Audited[BaselineStanding]:
    """`audit baselines`: the standing stored as an audit of kind ``baselines``."""

    cid = resolve_collection(con, collection).id
    m = resolve_measure(con, measure)
    rep = baseline_standing(con, cid, m, value=value, model=model, claim=claim)
    key = AuditKey(
        kind="baselines",
        collection_id=cid,
        measure=m,
        params={"baseline": rep.value_text, "model": model, "claim": claim},
        method="exact",
        input_fingerprint=rep.fingerprint,
    )
    return run_or_reuse(con, key, lambda: rep, save=save)
