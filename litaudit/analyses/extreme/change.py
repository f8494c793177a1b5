"""`litaudit check-change`: the verdict on the results a change to a team's store folder
adds (issue 34, item 5), for a pull request's check.

For each result the change adds (or whose value it changes; :mod:`litaudit.curation.tree_diff`),
read from the database the folder was synced into (so that the result is one of its
population, as a published result): its claim audit (against the record, against chance,
its own interval, and the resolution line where the store has per-topic or per-dataset
scores: :func:`litaudit.analyses.extreme.best.run_claim`), and a paired test against the
record holder on the shared datasets or topics where the store has them
(:mod:`litaudit.analyses.extreme.record_steps`). Nothing is stored.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from litaudit.analyses.extreme.best import Claim, ClaimReport, run_claim
from litaudit.analyses.extreme.population import Filters, population
from litaudit.analyses.extreme.record_steps import pairing
from litaudit.curation.tree_diff import AddedRow, diff_folder
from litaudit.errors import LitauditError
from litaudit.stats.records import SignFlip, selective_signflip
from litaudit.store import results as result_store
from litaudit.store.collections import resolve_collection
from litaudit.store.measures import resolve_measure

if TYPE_CHECKING:
    import duckdb

SEED = 34  # the sign patterns of a paired test on more than 16 units


@dataclass(frozen=True, kw_only=True)
class PairedAgainstRecord:
    """The added result against the record holder on ``n`` shared ``basis`` units
    (datasets or topics): the sign-flip test (selective when the result is above the
    holder: conditional on that event)."""

    basis: str
    n: int
    test: SignFlip
    note: str | None = None


@dataclass(frozen=True, kw_only=True)
class AddedVerdict:
    """One added (``before`` None) or changed result: where it is in the folder, what it
    is, and its ``claim`` audit and ``paired`` test (None where not possible: ``problem``
    says why the claim audit could not run)."""

    file: str
    line: int
    collection: str
    measure: str
    system: str
    value: str
    before: str | None
    claim: ClaimReport | None
    paired: PairedAgainstRecord | None
    problem: str | None = None


@dataclass(frozen=True, kw_only=True)
class ChangeVerdict:
    """The verdicts on a change: ``base`` revision, ``folder``, the added or changed
    results' verdicts, and the counts of removed and unchanged results."""

    folder: str
    base: str
    verdicts: tuple[AddedVerdict, ...]
    n_removed: int
    n_unchanged: int


def _result_id(con: duckdb.DuckDBPyConnection, cid: str, measure: str, d: dict) -> int | None:
    """The stored id of the folder's row ``d`` (its natural key), or None."""

    want = (d.get("source"), d.get("paper") or "", d.get("track") or "", cid)
    rest = (measure, d.get("system"), d.get("role"))
    for key, (rid, text) in result_store.natural_keys(con, [cid]).items():
        n_ok = not d.get("n_topics") or str(key[4]) == str(d.get("n_topics"))
        if key[:4] == want and key[5:] == rest and n_ok and text == d.get("value"):
            return int(rid)
    return None


def _paired(con: duckdb.DuckDBPyConnection, rep: ClaimReport) -> PairedAgainstRecord | None:
    if rep.subject is None:
        return None
    pop = population(con, rep.collection_id, rep.measure, rep.filters)
    basis, d, note = pairing(con, pop.collection_id, pop.measure, pop.rows).paired(
        rep.record_holder, rep.subject
    )
    if d is None:
        return None
    test = selective_signflip(d, rng=np.random.default_rng(SEED))
    return PairedAgainstRecord(basis=basis, n=int(d.size), test=test, note=note)


def verdict_of(con: duckdb.DuckDBPyConnection, row: AddedRow) -> AddedVerdict:
    """The verdict on one added row (errors of its audit become its ``problem``)."""

    d = row.data
    base = dict(
        file=row.file,
        line=row.line,
        collection=d.get("collection", ""),
        measure=d.get("measure", ""),
        system=d.get("system", ""),
        value=d.get("value", ""),
        before=row.before,
    )
    try:
        cid = resolve_collection(con, d.get("collection", "")).id
        m = resolve_measure(con, d.get("measure", ""))
        rid = _result_id(con, cid, m, d)
        if rid is None:
            raise LitauditError(
                "not in the database: sync the folder first (`litaudit sync FOLDER`)"
            )
        rep = run_claim(con, cid, m, Claim(result_id=rid), filters=Filters(), save=False).result
        return AddedVerdict(**base, claim=rep, paired=_paired(con, rep))
    except LitauditError as exc:
        return AddedVerdict(**base, claim=None, paired=None, problem=str(exc))


def check_change(con: duckdb.DuckDBPyConnection, folder: Path, base: str) -> ChangeVerdict:
    """The verdicts on every result ``folder`` adds or changes relative to ``base``."""
    with tempfile.TemporaryDirectory(prefix="litaudit-base-") as tmp:
        diff = diff_folder(Path(folder), base, Path(tmp) / "base")
    return ChangeVerdict(
        folder=str(folder),
        base=base,
        verdicts=tuple(verdict_of(con, row) for row in diff.added),
        n_removed=diff.n_removed,
        n_unchanged=diff.n_unchanged,
    )
