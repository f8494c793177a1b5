"""Stored audits: every analysis result is saved with what is needed to cite it.

An audit row holds its kind, collection, measure, canonical JSON parameters, method,
seed and trials, a SHA-256 fingerprint of its input rows, the software version and the
canonical JSON result. Reports are built only from stored audits.

The pipeline (docs/DEVELOPING.md, "Adding an audit kind"): an analysis returns a frozen
dataclass whose type is listed for its kind in :data:`KINDS`; :func:`run_or_reuse` stores it
under its :class:`AuditKey` (kind, collection, measure, parameters, method, seed, trials,
input fingerprint), or hands back the stored audit of an identical call (the same key,
made by the same code), decoded into the same type (:mod:`litaudit.codec`), and returns it
as :class:`Audited`: the one way an audit is stored (:func:`run_or_reuse_many` for many at
once) and :func:`identical_ids` the one way it is located. ``get_audit`` / ``get_audits`` /
``list_audits`` decode every listed kind; an unlisted kind's result stays the plain JSON.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from litaudit import __version__
from litaudit.codec import DecodeError, decode, dumps, to_jsonable
from litaudit.errors import NotFound, StoreError
from litaudit.store import audits as stored

if TYPE_CHECKING:
    import duckdb

T = TypeVar("T")

# Every audit kind and its result type ("module:Class"), imported only when a result of
# the kind is stored or decoded (the analyses import this module). Adding a kind: one line
# here, a renderer in litaudit.render.audits.RENDERERS (docs/DEVELOPING.md).
KINDS: tuple[tuple[str, str], ...] = (
    ("best", "litaudit.analyses.extreme.best:BestReport"),
    ("claim", "litaudit.analyses.extreme.best:ClaimReport"),
    ("history", "litaudit.analyses.extreme.history:HistoryReport"),
    ("best-matrix", "litaudit.analyses.extreme.matrix:MatrixAudit"),
    ("reuse-rao", "litaudit.analyses.reuse.overlap:RAOReport"),
    ("reuse-lou", "litaudit.analyses.reuse.lou:LOUReport"),
    ("reuse-subcollections", "litaudit.analyses.reuse.subcollection_tau:SubcollectionReport"),
    ("reuse-agreement", "litaudit.analyses.agreement.analysis:ReuseAgreement"),
    ("reuse-verdict", "litaudit.analyses.reuse.verdict:Verdict"),
    ("baselines", "litaudit.analyses.extreme.baselines:BaselineStanding"),
    ("ranks", "litaudit.analyses.extreme.ranks:RanksAudit"),
    ("resolution", "litaudit.analyses.extreme.resolution:ResolutionReport"),
)
_PATHS = dict(KINDS)


def result_type(kind: str) -> type | None:
    """The result type of ``kind`` as :data:`KINDS` lists it, or None for an unlisted kind."""
    path = _PATHS.get(kind)
    if path is None:
        return None
    module, _, name = path.partition(":")
    tp = getattr(importlib.import_module(module), name)
    assert isinstance(tp, type)
    return tp


def kinds() -> dict[str, type]:
    """Every listed kind and its result type."""
    out = {}
    for kind, _path in KINDS:
        tp = result_type(kind)
        assert tp is not None
        out[kind] = tp
    return out


def fingerprint(rows) -> str:
    """SHA-256 over the canonical JSON of the input rows (order-sensitive: sort first)."""
    payload = json.dumps(to_jsonable(rows), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass(kw_only=True, frozen=True)
class StoredAudit:
    """One row of ``audits``; ``result`` is the listed type of ``kind`` (else JSON), None
    in a listing of heads only (``list_audits(results=False)``)."""

    id: int
    kind: str
    collection_id: str
    measure: str | None
    params: dict
    method: str
    seed: int | None
    trials: int | None
    input_fingerprint: str
    software_version: str
    result: Any
    created_at: str


@dataclass(kw_only=True, frozen=True)
class AuditKey:
    """What identifies an audit: two calls with equal keys (and the same software version)
    are identical, and the second hands back the first's stored audit.

    ``params`` are stored as canonical JSON; ``seed`` and ``trials`` are those of the
    method's randomness (None when it has none); ``input_fingerprint`` identifies the
    input rows (:func:`fingerprint`).
    """

    kind: str
    collection_id: str
    measure: str | None
    params: dict
    method: str
    input_fingerprint: str
    seed: int | None = None
    trials: int | None = None

    def values(self) -> tuple:
        """The key as its columns store it (params as canonical JSON), in the order of
        :data:`litaudit.store.audits.KEY_COLUMNS`."""
        return (
            self.kind,
            self.collection_id,
            self.measure,
            dumps(self.params),
            self.method,
            self.seed,
            self.trials,
            self.input_fingerprint,
        )


@functools.cache
def code_digest() -> str:
    """SHA-256 of litaudit's own source (every .py file under the package, by relative path),
    computed once a process: stored with each audit, and an identical call hands back only
    an audit the same code made (what an audit computes or says may change without the
    version number changing)."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def _insert(con: duckdb.DuckDBPyConnection, audits: list[tuple[AuditKey, Any]]) -> list[int]:
    """Insert audit rows (each its key and result) in one statement; their ids, in order.
    The one writer of ``audits`` through its owner (:mod:`litaudit.store.audits`), called
    by :func:`run_or_reuse` and :func:`run_or_reuse_many` only (tests call it to store a
    result of an older shape). DuckDB runs single-row inserts slowly (`audit summary`
    stores one audit per population), hence one statement for many."""
    if not audits:
        return []
    return stored.insert_many(
        con,
        [k.values() + (dumps(r),) for k, r in audits],
        version=__version__,
        code_digest=code_digest(),
    )


def _row(r: stored.AuditRow, *, with_result: bool = True) -> StoredAudit:
    result = json.loads(r[10]) if with_result else None
    tp = result_type(r[1]) if with_result else None
    if tp is not None:
        try:
            result = decode(tp, result)
        except DecodeError as exc:
            raise StoreError(
                f"audit #{r[0]} ({r[1]}, made by litaudit {r[9]}): its stored "
                f"result does not fit {tp.__name__} ({exc}); re-run the "
                "audit with this version"
            ) from None
    return StoredAudit(
        id=r[0],
        kind=r[1],
        collection_id=r[2],
        measure=r[3],
        params=json.loads(r[4]),
        method=r[5],
        seed=r[6],
        trials=r[7],
        input_fingerprint=r[8],
        software_version=r[9],
        result=result,
        created_at=r[11],
    )


def get_audit(con: duckdb.DuckDBPyConnection, audit_id: int) -> StoredAudit:
    r = stored.get(con, audit_id)
    if r is None:
        raise NotFound(f"no audit with id {audit_id}")
    return _row(r)


def get_audits(con: duckdb.DuckDBPyConnection, audit_ids) -> dict[int, StoredAudit]:
    """Several stored audits by id, in one query (a look-up of one id reads its block of
    the result column: ~25 ms an audit on a seeded store, against 0.1 s for 554 at once:
    bench/bench_site.py)."""
    ids = sorted({int(i) for i in audit_ids})
    if not ids:
        return {}
    found = {int(r[0]): _row(r) for r in stored.get_many(con, ids)}
    missing = [i for i in ids if i not in found]
    if missing:
        raise NotFound(f"no audit with id {missing[0]}")
    return found


def list_audits(
    con: duckdb.DuckDBPyConnection,
    *,
    kind: str | None = None,
    collection_id: str | None = None,
    measure: str | None = None,
    input_fingerprint: str | None = None,
    this_code: bool = False,
    decodable: bool = False,
    results: bool = True,
) -> list[StoredAudit]:
    """The stored audits that match every filter given, oldest first (``this_code``: only
    those made by this code, :func:`code_digest`; ``decodable``: only those whose result
    decodes into its kind's type, one stored in an older shape passed over, else that
    one is a StoreError; ``results=False``: their heads only, each result None and none
    decoded, as `audit list` prints them: 0.26 s CPU less for a seeded store's 320 audits,
    bench/bench_codec.py)."""
    rows = stored.listing(
        con,
        kind=kind,
        collection_id=collection_id,
        measure=measure,
        input_fingerprint=input_fingerprint,
        code_digest=code_digest() if this_code else None,
    )
    if not results:
        return [_row(r, with_result=False) for r in rows]
    if not decodable:
        return [_row(r) for r in rows]
    out = []
    for r in rows:
        try:
            out.append(_row(r))
        except StoreError:
            continue
    return out


@dataclass(frozen=True)
class Audited(Generic[T]):
    """An analysis result and the audit that holds it: the one shape every audit command
    returns and prints (``--json``: ``{"audit_id": ..., "reused": ..., "result": ...}``).

    ``audit_id`` is None when the result was not stored (``--no-save``); ``reused`` says
    that an identical call's stored audit was handed back instead of storing a new one.
    """

    result: T
    audit_id: int | None
    reused: bool = False


def identical_ids(con: duckdb.DuckDBPyConnection, keys: list[AuditKey]) -> list[int | None]:
    """The id of the newest stored audit identical to each of ``keys`` (an equal key, made
    by this code), or None: the one way an audit is located. One query for one key, else
    one query a kind."""
    if len(keys) == 1:
        return [stored.identical_id(con, keys[0].values(), code_digest())]
    found: dict[tuple, int] = {}
    for kind in {k.kind for k in keys}:
        found.update(stored.newest_ids_by_key(con, kind, code_digest()))
    return [found.get(k.values()) for k in keys]


def _check_kind(key: AuditKey, result: Any) -> None:
    tp = result_type(key.kind)
    if tp is None:
        raise ValueError(f"audit kind {key.kind!r} has no registered result type (not in KINDS)")
    if not isinstance(result, tp):
        raise TypeError(
            f"audit kind {key.kind!r} computed a {type(result).__name__}, listed {tp.__name__}"
        )


def run_or_reuse(
    con: duckdb.DuckDBPyConnection, key: AuditKey, compute: Callable[[], T], *, save: bool = True
) -> Audited[T]:
    """The stored audit of an identical call, else ``compute()`` stored as a new audit: the
    one way an audit is stored (:func:`run_or_reuse_many` for many at once).

    Identical: an equal :class:`AuditKey` (parameters as canonical JSON), made by the same
    code (:func:`code_digest`). ``save=False`` computes and stores nothing. A result
    already computed is stored with ``compute=lambda: result``.
    """
    if not save:
        return Audited(compute(), None)
    if result_type(key.kind) is None:
        raise ValueError(f"audit kind {key.kind!r} has no registered result type (not in KINDS)")
    (found,) = identical_ids(con, [key])
    if found is not None:
        return Audited(get_audit(con, found).result, found, reused=True)
    result = compute()
    _check_kind(key, result)
    (added,) = _insert(con, [(key, result)])
    return Audited(result, added)


def run_or_reuse_many(
    con: duckdb.DuckDBPyConnection, keys: list[AuditKey], compute: Callable[[int], T | None]
) -> list[tuple[int, bool] | None]:
    """:func:`run_or_reuse` of many keys at once, for the commands that store one audit
    per population (`audit summary`, `site`): each key's (audit id, reused), the identical
    stored audit's, else ``compute(i)`` stored (all of them in one insert); None where
    ``compute(i)`` returns None (nothing to store). Located in one query a kind."""
    found = identical_ids(con, keys)
    out: list[tuple[int, bool] | None] = [None if i is None else (i, True) for i in found]
    todo: list[tuple[int, Any]] = []
    for i, aid in enumerate(found):
        if aid is None:
            result = compute(i)
            if result is not None:
                _check_kind(keys[i], result)
                todo.append((i, result))
    added = _insert(con, [(keys[i], result) for i, result in todo])
    for (i, _result), aid in zip(todo, added, strict=True):
        out[i] = (aid, False)
    return out
