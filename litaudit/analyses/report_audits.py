"""The audits a collection's report is built from, run and stored before it is rendered.

`litaudit report` calls :func:`prepare_report` (this module: it runs the missing
analyses and stores them) and then hands the :class:`ReportAudits` to
:func:`litaudit.render.report.build_report`, which only reads stored audits. With the
default parameters, an identical audit already stored is reused (same input fingerprint,
parameters and version), so a second report on the same database runs nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import duckdb

from litaudit import defaults
from litaudit.analyses.audits import get_audit, list_audits
from litaudit.curation.filters import Filters
from litaudit.errors import LitauditError
from litaudit.runs.archive import count_runs
from litaudit.runs.archive_eval import evaluate_cached
from litaudit.runs.evalcache import save
from litaudit.store import results_counts
from litaudit.store.audits import last_id
from litaudit.store.collections import resolve_collection
from litaudit.store.db import cursor
from litaudit.store.measures import resolve_measure

Note = Callable[[str], None]


@dataclass(frozen=True)
class Prepared:
    """One audit a report section needs: its stored id, or why there is none."""

    audit_id: int | None
    error: str | None = None


@dataclass(frozen=True)
class ReportAudits:
    """What :func:`prepare_report` ran or found, section by section."""

    collection_id: str
    measures: tuple[str, ...]  # literature sections, in report order
    best: tuple[Prepared, ...]  # per measure
    history: tuple[Prepared, ...]  # per measure
    claim_value: float | None
    claim: Prepared | None
    n_runs: int  # runs stored for the collection
    verdict: int | None  # the reuse-verdict audit (None: no runs)
    notes: tuple[str, ...]  # sections missing and why
    reuse_notes: tuple[str, ...]  # reusability components missing and why
    filters: Filters = Filters()  # the published results' filters (not the runs')


def report_measures(con: duckdb.DuckDBPyConnection, collection_id: str) -> tuple[str, ...]:
    """Measures with at least ``defaults.MIN_N`` non-retracted results, most results first
    (fewer make no population: the audits would refuse them)."""

    return results_counts.measures_with(con, collection_id, defaults.MIN_N)


def _last_id(con: duckdb.DuckDBPyConnection) -> int:

    return last_id(con)


def _literature(
    con: duckdb.DuckDBPyConnection, kind: str, cid: str, measure: str, note: Note, **kw
) -> Prepared:
    """The default-parameter audit of ``kind``: the stored one for the current results,
    else run and stored."""
    # start-up: numpy, scipy (through litaudit.analyses.extreme.best, litaudit.analyses.extreme.history)
    from litaudit.analyses.extreme import best, history

    runners: dict[str, Callable[..., Any]] = {
        "best": best.run_best,
        "history": history.run_history,
        "claim": best.run_claim,
    }
    fn = runners[kind]
    before = _last_id(con)
    try:
        done = fn(con, cid, measure, **kw)
    except LitauditError as exc:
        return Prepared(None, str(exc))
    if done.audit_id > before:
        note(f"ran the '{kind}' audit of {cid} / {measure}")
    return Prepared(done.audit_id)


def prepare_report(  # noqa: PLR0913 - the report's questions, each a keyword
    con: duckdb.DuckDBPyConnection,
    collection: str,
    *,
    measure: str | None = None,
    claim: float | str | None = None,
    note: Note | None = None,
    subcollections: bool | ReuseAsked = False,
    filters: Filters = Filters(),
    evidence: Any = None,
    progress: Callable[..., None] | None = None,
    with_reproductions: bool = False,
) -> ReportAudits:
    """Run (and store) the audits missing for the report of ``collection``.

    ``filters`` choose the published results every literature audit reads (as `audit
    best/claim/history` take them: ``until`` gives the record when a paper was
    submitted); the reusability audits read the stored runs and take none.

    ``measure`` limits the literature sections to one measure (default: every measure
    with at least ``defaults.MIN_N`` results); ``claim`` needs a measure when the
    collection has several, and a value in the measure's range (a bad value is an error,
    not a report that could not check it). ``subcollections`` adds Sanderson et al.'s
    sub-collection test to the reusability verdict (as `reuse verdict --subcollections`;
    off by default there and here: its random splits are most of the verdict's time); a
    stored verdict that has it is used either way; a :class:`ReuseAsked` gives it with the
    pool depth to decide at (`report --depth`). ``evidence``
    (:class:`litaudit.analyses.extreme.claim_evidence.Asked`): the claim's run, runs to compare
    with and its baseline, for the claim audit (a claim given only as a run takes its
    value from it). ``with_reproductions``: the history plot's record line through
    the reproductions too (default: published results only). The connection must be
    writable. ``progress``: told of the
    reusability verdict's steps when it is run, ``progress(0, total=n)`` first, then
    ``progress(k)`` as ``k`` more are done (a :class:`litaudit.render.progress.Bar` is one).
    """
    # start-up: numpy (through litaudit.analyses.extreme.record_steps)
    from litaudit.analyses.extreme.record_steps import StepSettings

    note = note or (lambda _msg: None)
    ref = resolve_collection(con, collection)
    if measure is not None:
        measures: tuple[str, ...] = (resolve_measure(con, measure),)
    else:
        measures = report_measures(con, ref.id)
    asked = evidence is not None and evidence.given()
    if asked and claim is None and evidence.run is None:
        raise LitauditError("--baseline and --against need the claim: give --claim or --run")
    if (claim is not None or asked) and len(measures) != 1:
        raise LitauditError(
            f"--claim needs --measure: {ref.name} has results for "
            f"{len(measures)} measures ({', '.join(measures) or 'none'})"
        )
    claim_value: float | None = None
    if claim is not None:
        # start-up: numpy, scipy (through litaudit.analyses.extreme.best)
        from litaudit.analyses.extreme.best import check_claimed_value

        claim_value = check_claimed_value(con, measures[0], claim)
    evaluate_once(con, ref.id, measures)
    best = tuple(_literature(con, "best", ref.id, m, note, filters=filters) for m in measures)
    hf = dict(filters=filters, steps=StepSettings(reproductions=with_reproductions))
    history = tuple(_literature(con, "history", ref.id, m, note, **hf) for m in measures)
    # start-up: numpy, scipy (through litaudit.analyses.extreme.best)
    from litaudit.analyses.extreme.best import Claim

    kw: dict[str, Any] = {"evidence": evidence} if asked else {}
    claimed = (
        _literature(
            con, "claim", ref.id, measures[0], note, claim=Claim(value=claim), filters=filters, **kw
        )
        if claim is not None or asked
        else None
    )
    if claimed is not None and claim is None and claimed.audit_id is not None:
        claim_value = get_audit(con, claimed.audit_id).result.value  # the run's value
    reuse = subcollections if isinstance(subcollections, ReuseAsked) else None
    reuse = reuse or ReuseAsked(subcollections=bool(subcollections))
    n_runs, verdict, notes = _reuse(con, ref.id, note, reuse, progress)
    return ReportAudits(
        ref.id,
        measures,
        best,
        history,
        claim_value,
        claimed,
        n_runs,
        verdict,
        tuple(notes) if not n_runs else (),
        tuple(notes) if n_runs else (),
        filters,
    )


def evaluate_once(
    con: duckdb.DuckDBPyConnection, collection_id: str, measures: tuple[str, ...]
) -> None:
    """Evaluate the collection's stored run archive for all the report's ``measures`` in
    one pass and keep the values in the store of evaluations (as `runs eval` does), so
    that each measure's audit reads its per-topic scores back (its measured noise and
    ranks: :func:`~litaudit.runs.archive_eval.archive_matrix`) instead of reading the
    whole archive once per measure. Measured at 110 runs x 249 topics x 1,000 (27.4M
    lines): one pass 3.4 s of CPU for 8 measures, 3.1 s for AP alone. Values already
    kept are read back, not computed; an archive that cannot be evaluated (no qrels, a
    measure the evaluator lacks) is left to each audit, which says why."""
    if len(measures) < 2 or not n_stored_runs(con, collection_id):
        return
    try:
        _, pending = evaluate_cached(con, collection_id, measures)
    except LitauditError:
        return
    if pending is None:
        return
    cur = cursor(con)  # kept in a transaction of its own, as archive_matrix keeps them
    try:
        save(cur, pending)
    except duckdb.Error:  # a read-only store: each audit evaluates on its own
        pass
    finally:
        cur.close()


def n_stored_runs(con: duckdb.DuckDBPyConnection, collection_id: str) -> int:

    try:
        return count_runs(con, collection_id)
    except Exception:  # noqa: BLE001 - a store without the runs schema has no runs
        return 0


@dataclass(frozen=True, kw_only=True)
class ReuseAsked:
    """What the report's reusability verdict is asked with: the sub-collection test, and
    the pool depth to decide at (None: the collection's recorded one)."""

    subcollections: bool = False
    depth: int | None = None


def _reuse(
    con: duckdb.DuckDBPyConnection, cid: str, note: Note, reuse: ReuseAsked, progress=None
) -> tuple[int, int | None, list[str]]:
    """(runs stored, verdict audit, notes): the reusability audits. The agreement in
    significance the report shows is the verdict's own (over its random assignments)."""
    n_runs = n_stored_runs(con, cid)
    if n_runs == 0:
        return (
            0,
            None,
            [
                f"no run archive is stored for {cid}: no reusability "
                "section (import one with `litaudit runs import`)"
            ],
        )
    # start-up: numpy (through litaudit.analyses.reuse.archive_ranges)
    from litaudit.analyses.reuse.archive_ranges import load_ranged

    # start-up: numpy (through litaudit.analyses.reuse.coded_archive)
    from litaudit.analyses.reuse.coded_archive import load_coded

    # start-up: numpy, scipy (through litaudit.analyses.reuse.verdict)
    from litaudit.analyses.reuse.verdict import run_verdict

    # start-up: numpy, scipy (through litaudit.analyses.reuse.verdict_settings)
    from litaudit.analyses.reuse.verdict_settings import VerdictSettings, verdict_steps

    subcollections, depth = reuse.subcollections, reuse.depth
    # by topic ranges (issue 24), unless the sub-collection analysis needs it whole
    loaded = load_coded(con, cid) if subcollections else load_ranged(con, cid)
    verdict = _stored_verdict(con, cid, loaded[1].fingerprint, subcollections, depth)
    if verdict is None:
        what = "RAO, LOU, sub-collections, agreement" if subcollections else "RAO, LOU, agreement"
        note(f"running the reusability audits of {cid} ({what})")
        asked = VerdictSettings(subcollections=subcollections, depth=depth)
        if progress is not None:  # the verdict's steps announced, then done
            n = asked.splits.permutations
            steps = verdict_steps((), asked.assignments, n, subcollections)
            progress(0, total=steps)
        vid = run_verdict(con, cid, asked, loaded=loaded, progress=progress).audit_id
        if vid is None:
            raise LitauditError(f"the reusability verdict of {cid} was not stored")
        verdict = vid
    return n_runs, verdict, []


def _stored_verdict(
    con: duckdb.DuckDBPyConnection,
    cid: str,
    fingerprint: str,
    subcollections: bool,
    given: int | None = None,
) -> int | None:
    """The newest stored verdict of the report's parameters for this archive, made by this
    code (one stored by other code is passed over)."""
    # start-up: numpy, scipy (through litaudit.analyses.reuse.verdict)
    from litaudit.analyses.reuse.verdict import KIND

    # start-up: numpy, scipy (through litaudit.analyses.reuse.verdict_settings)
    from litaudit.analyses.reuse.verdict_settings import collection_depth

    depth, source = collection_depth(con, cid, given)

    made = list_audits(
        con,
        kind=KIND,
        collection_id=cid,
        input_fingerprint=fingerprint,
        this_code=True,
        decodable=True,
    )
    for a in reversed(made):  # the newest first
        if (
            a.params.get("depth") == depth
            and a.params.get("depth_source") == source
            and a.params.get("margin_pct") == defaults.REUSE_MARGIN_PCT
            and a.params.get("alpha") == defaults.REUSE_ALPHA
            and a.params.get("split") == "prefix"
            and a.params.get("topics") is None  # decided on all topics, not a subset
            and (a.params.get("subcollections") or not subcollections)
        ):
            return a.id
    return None
