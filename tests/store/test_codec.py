"""The typed audit pipeline: frozen dataclass -> canonical JSON -> the same dataclass, the
kind registry, and reuse of an identical call's stored audit."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from litaudit.codec import DecodeError, decode, dumps, to_jsonable


@dataclass(frozen=True)
class Leaf:
    name: str
    value: float
    count: int
    flag: bool
    maybe: float | None


@dataclass(frozen=True)
class Tree:
    leaves: tuple[Leaf, ...]
    pair: tuple[str, int]
    pairs: tuple[tuple[str, float], ...]
    nested: Leaf | None
    labels: dict[str, int]
    years: tuple[int, int] | None = None


finite = st.floats(allow_nan=False, allow_infinity=False)
leaf = st.builds(Leaf, st.text(), finite, st.integers(), st.booleans(), st.none() | finite)
tree = st.builds(
    Tree,
    st.lists(leaf, max_size=4).map(tuple),
    st.tuples(st.text(), st.integers()),
    st.lists(st.tuples(st.text(), finite), max_size=3).map(tuple),
    st.none() | leaf,
    st.dictionaries(st.text(), st.integers(), max_size=3),
    st.none() | st.tuples(st.integers(), st.integers()),
)


@pytest.mark.slow
@given(tree)
def test_round_trip_is_exact(t):
    back = decode(Tree, json.loads(dumps(t)))
    assert back == t and type(back) is Tree
    assert dumps(back) == dumps(t)  # canonical: the same text again


def test_numpy_scalars_and_nan():
    x = Leaf("a", np.float64(0.1 + 0.2), np.int64(3), np.bool_(True), None)  # type: ignore[arg-type]
    back = decode(Leaf, json.loads(dumps(x)))
    assert back == Leaf("a", 0.1 + 0.2, 3, True, None)
    assert type(back.value) is float and type(back.count) is int
    # JSON has no NaN: written as null; read back into a float field as NaN
    back = decode(Leaf, json.loads(dumps(Leaf("b", math.nan, 1, False, math.nan))))
    assert math.isnan(back.value) and back.maybe is None


def test_a_stored_result_that_does_not_fit_is_an_error():
    with pytest.raises(DecodeError, match=r"Leaf.count: expected an integer"):
        decode(Leaf, {"name": "a", "value": 1.0, "count": "3", "flag": True, "maybe": None})
    with pytest.raises(DecodeError, match=r"Tree.pair: expected 2 items"):
        decode(Tree, to_jsonable(Tree((), ("a", 1), (), None, {})) | {"pair": ["a"]})


def test_a_stored_audit_of_another_shape_is_one_clear_error(mem_store):
    from litaudit.analyses.audits import AuditKey, _insert, get_audit
    from litaudit.errors import StoreError
    from litaudit.store.collections import resolve_collection

    con = mem_store.con
    key = AuditKey(
        kind="reuse-rao",
        collection_id=resolve_collection(con, "trec7").id,
        measure="Rprec",
        params={},
        method="exact",
        input_fingerprint="f" * 64,
    )
    (aid,) = _insert(con, [(key, {"collection_id": "x", "depth": 1})])
    with pytest.raises(StoreError, match=rf"audit #{aid} \(reuse-rao.*RAOReport: no measure"):
        get_audit(con, aid)


def test_registered_kinds_decode_and_identical_calls_reuse(mem_store):
    from litaudit.analyses.audits import AuditKey, get_audit, kinds, list_audits, run_or_reuse
    from litaudit.analyses.reuse.overlap import RAOReport

    assert kinds()["reuse-rao"] is RAOReport and "best" in kinds()
    from litaudit.store.collections import resolve_collection

    con = mem_store.con
    cid = resolve_collection(con, "trec7").id
    calls = []

    def compute():
        calls.append(1)
        return _empty_rao(cid)

    def key(kind="reuse-rao", params=None, seed=None):
        params = {"depth": 2} if params is None else params
        return AuditKey(
            kind=kind,
            collection_id=cid,
            measure="Rprec",
            params=params,
            method="exact",
            input_fingerprint="f" * 64,
            seed=seed,
        )

    first = run_or_reuse(con, key(), compute)
    again = run_or_reuse(con, key(), compute)
    other = run_or_reuse(con, key(params={"depth": 3}), compute)
    seeded = run_or_reuse(con, key(seed=1), compute)
    assert (first.reused, again.reused, other.reused, seeded.reused) == (False, True, False, False)
    assert again.audit_id == first.audit_id and again.result == first.result
    assert len(calls) == 3 and len(list_audits(con)) == 3
    assert first.audit_id is not None
    assert get_audit(con, first.audit_id).result == first.result
    unsaved = run_or_reuse(con, key(), compute, save=False)
    assert unsaved.audit_id is None and len(list_audits(con)) == 3
    with pytest.raises(ValueError, match="no registered result type"):
        run_or_reuse(con, key("no-such-kind", {}), compute)
    # an audit other code made (or one stored before schema 011) is not handed back
    n = len(calls)
    con.execute("UPDATE audits SET code_digest = 'other' WHERE id = ?", [first.audit_id])
    fresh = run_or_reuse(con, key(), compute)
    assert not fresh.reused and fresh.audit_id != first.audit_id and len(calls) == n + 1
    again = run_or_reuse(con, key(), compute)
    assert again.reused and again.audit_id == fresh.audit_id  # this code's, handed back


def test_every_listed_kind_has_a_renderer_typed_with_its_result_type():
    import typing

    from litaudit.analyses.audits import KINDS, kinds
    from litaudit.render.audits import RENDERERS

    types = kinds()
    assert len(types) == len(KINDS) and len(set(types.values())) == len(KINDS)
    assert set(RENDERERS) == set(types.values())
    for kind, tp in types.items():
        fn = RENDERERS[tp]
        first = next(iter(typing.get_type_hints(fn)))
        assert typing.get_type_hints(fn)[first] is tp, (kind, fn.__name__)


_KIND_WORDS = ("AuditKey", "stored_audit", "population_key", "KIND")


def _kinds_stored_by_the_code() -> dict[str, str]:
    """Every audit kind the analyses store (kind -> where): the kind of each AuditKey
    built, the kind argument of the stored_audit and population_key calls
    (extreme/best.py, history.py; a string, or a module constant), and a module's KIND constant, read from the source
    (ast)."""
    import ast
    from pathlib import Path

    from tests.repo import syntax

    pkg = Path(__file__).resolve().parents[2] / "litaudit" / "analyses"
    found: dict[str, str] = {}
    for path in sorted(pkg.rglob("*.py")):
        # a module naming none of these stores no kind (the scan below finds only calls
        # and constants by these names): 21 of 73 are parsed, ~0.2 s of CPU less
        if not any(w in syntax.source(path) for w in _KIND_WORDS):
            continue
        tree = syntax.tree(path)
        consts = {
            t.id: n.value.value
            for n in tree.body
            if isinstance(n, ast.Assign)
            and isinstance(n.value, ast.Constant)
            and isinstance(n.value.value, str)
            for t in n.targets
            if isinstance(t, ast.Name)
        }
        for node in syntax.nodes(syntax.source(path)):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", "")
            if name == "AuditKey":
                kind = next(k.value for k in node.keywords if k.arg == "kind")
            elif name == "stored_audit":
                kind = node.args[1]
            elif name == "population_key":
                kind = node.args[0]
            else:
                continue
            if isinstance(kind, ast.Constant) and isinstance(kind.value, str):
                found[kind.value] = f"{path.name}:{node.lineno}"
            elif isinstance(kind, ast.Name) and kind.id in consts:
                found[consts[kind.id]] = f"{path.name}:{node.lineno}"
        if "KIND" in consts:
            found[consts["KIND"]] = f"{path.name}: KIND"
    return found


def test_the_kinds_tuple_lists_every_kind_the_code_stores():
    from litaudit.analyses.audits import KINDS

    stored = _kinds_stored_by_the_code()
    # the scan sees the kinds of best.py, the reuse analyses, the matrix and summary
    assert {"claim", "history", "reuse-agreement", "baselines"} <= set(stored)
    assert {"best", "claim", "history", "best-matrix", "reuse-rao", "reuse-verdict"} <= set(stored)
    listed = {k for k, _ in KINDS}
    assert {k: w for k, w in stored.items() if k not in listed} == {}
    assert listed == set(stored)  # nothing listed that no code stores


def test_audit_show_renders_a_kind_without_renderer_field_by_field(cli):
    from litaudit.analyses.audits import AuditKey, _insert
    from litaudit.store.collections import resolve_collection
    from litaudit.store.db import open_store
    from litaudit.store.refdata import load_reference_data

    with open_store(cli.db) as store:
        load_reference_data(store.con)
        cid = resolve_collection(store.con, "trec7").id
        key = AuditKey(
            kind="some-new-kind",
            collection_id=cid,
            measure=None,
            params={},
            method="exact",
            input_fingerprint="f" * 64,
        )
        (aid,) = _insert(
            store.con, [(key, {"passed": True, "checks": [{"name": "tau", "value": 0.9}]})]
        )
    r = cli("audit", "show", str(aid))
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].startswith(f"Audit #{aid} (some-new-kind)")
    assert lines[1:] == ["checks:", "  [0]", "    name: tau", "    value: 0.9", "passed: True"]


def test_a_listing_of_heads_decodes_no_result(mem_store):
    import dataclasses

    from litaudit.analyses.audits import AuditKey, _insert, list_audits, run_or_reuse
    from litaudit.analyses.stored_audits import stored_audits
    from litaudit.errors import StoreError
    from litaudit.store.collections import resolve_collection

    con = mem_store.con
    cid = resolve_collection(con, "trec7").id
    key = AuditKey(
        kind="reuse-rao",
        collection_id=cid,
        measure="Rprec",
        params={},
        method="exact",
        input_fingerprint="f" * 64,
    )
    report = _empty_rao(cid)
    fits = run_or_reuse(con, key, lambda: report).audit_id
    (old,) = _insert(con, [(key, {"collection_id": "x", "depth": 1})])  # an older shape
    with pytest.raises(StoreError, match=rf"audit #{old}"):
        list_audits(con)
    (decoded,) = list_audits(con, decodable=True)
    assert decoded.id == fits and decoded.result == report
    heads = list_audits(con, results=False)
    assert [a.id for a in heads] == [fits, old] and {a.result for a in heads} == {None}
    assert heads[0] == dataclasses.replace(decoded, result=None)
    assert heads[1].kind == "reuse-rao" and heads[1].measure == "Rprec"
    assert stored_audits(con, collection="trec7") == tuple(heads)  # what `audit list` prints


def _empty_rao(cid: str):
    """A Rao report of no runs on ``cid`` (the smallest stored result)."""
    from litaudit.analyses.reuse.overlap import RAOReport

    return RAOReport(
        collection_id=cid,
        depth=2,
        measure="Rprec",
        n_runs=0,
        n_participants=0,
        lower_bound=0.5,
        mean_rao=None,
        min_rao=None,
        max_rao=None,
        runs=(),
    )
