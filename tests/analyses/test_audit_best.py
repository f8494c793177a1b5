"""Extreme-value audits on the store (litaudit.analyses.extreme.best; Carterette, SIGIR 2015)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from litaudit.analyses.audits import get_audit, list_audits
from litaudit.analyses.extreme import best as B
from litaudit.analyses.extreme import history as H
from litaudit.analyses.extreme import summary as S
from litaudit.analyses.extreme.population_summary import Tally
from litaudit.codec import dumps
from litaudit.errors import LitauditError, NotFound, ParameterError
from litaudit.stats import extreme as E
from litaudit.stats import extreme_exact, intervals
from tests.conftest import copy_db
from tests.typed import some

ROBUST = "robust04"


def _paper(con, bibkey: str, citation: str, year: int) -> int:
    return con.execute(
        "INSERT INTO papers (bibkey, citation, year, doi, url) VALUES (?, ?, ?, ?, ?) RETURNING id",
        [bibkey, citation, year, f"10.1/{bibkey}", f"https://x/{bibkey}"],
    ).fetchone()[0]


# a result's columns as _result writes them unless given
_RESULT = dict(
    year=2010,
    paper=None,
    track=None,
    n_topics=249,
    measure="AP",
    role="proposed",
    run_type=None,
    status="draft",
    standard=True,
    collection=ROBUST,
)


def _result(con, *, value: float, system: str, **given) -> None:
    """Insert one result of ``value`` by ``system`` (the other columns: _RESULT)."""
    from litaudit.store.collections import resolve_collection

    unknown = set(given) - set(_RESULT)
    assert not unknown, unknown
    r = _RESULT | given
    cid = resolve_collection(con, r["collection"]).id
    con.execute(
        "INSERT INTO results (source, paper_id, track, collection_id, n_topics, measure, value, "
        "value_text, system, role, run_type, year, standard, location, transcribed_by, "
        "transcribed_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'test', "
        "DATE '2026-01-01', ?)",
        [
            "paper" if r["paper"] else "official",
            r["paper"],
            r["track"],
            cid,
            r["n_topics"],
            r["measure"],
            value,
            f"{value:.4f}",
            system,
            r["role"],
            r["run_type"],
            r["year"],
            r["standard"],
            "Table 2",
            r["status"],
        ],
    )


VALUES = [0.251, 0.262, 0.240, 0.275, 0.301, 0.255, 0.268, 0.249, 0.290, 0.258]


@pytest.fixture(scope="module")
def lit_file(reference_db_file, tmp_path_factory) -> Path:
    """The database of :func:`lit`, written once for the module (its 20 inserts cost
    more than a copy of the file: ~45 ms of each of its 7 tests)."""
    from litaudit.store.db import open_store

    path = copy_db(reference_db_file, tmp_path_factory.mktemp("lit") / "lit.duckdb")
    with open_store(path) as store:
        con = store.con
        for i, v in enumerate(VALUES):
            pid = _paper(con, f"p{i}", f"Author{i} et al. (SIGIR {2005 + i})", 2005 + i)
            _result(
                con,
                value=v,
                system=f"sys{i}",
                year=2005 + i,
                paper=pid,
                role="proposed" if i % 2 == 0 else "baseline",
            )
    return path


@pytest.fixture
def lit(lit_file, tmp_path):
    """Ten Robust04 papers, one AP result each, years 2005-2014 (a test's own copy)."""
    from litaudit.store.db import open_store

    store = open_store(copy_db(lit_file, tmp_path / "lit.duckdb"))
    yield store
    store.close()


def test_best_matches_the_pure_statistics_and_keeps_provenance(lit):
    # the model's se, as the pure function's default (the default se is the measured one)
    rep = B.run_best(lit.con, "Robust04", "MAP", model=B.AuditModel(se="model")).result
    pure = intervals.audit_best(VALUES, 249)
    assert rep.collection_name == ROBUST and rep.measure == "AP" and rep.n_topics == 249
    assert rep.stats.reference == pure.reference
    assert rep.stats.thresholds == pure.thresholds
    assert rep.stats.interval == pure.interval
    assert rep.best.value == 0.301 and rep.best.system == "sys4"
    assert rep.best.citation == "Author4 et al. (SIGIR 2009)"
    assert rep.best.doi == "10.1/p4" and rep.best.bibkey == "p4"
    assert rep.best.provenance == "Author4 et al. (SIGIR 2009), Table 2"
    assert [c.result.value for c in rep.candidates] == sorted(
        (v for v in VALUES if v >= pure.interval.lower), reverse=True
    )
    assert rep.candidates[0].rank == 1 and rep.candidates[0].gap == 0.0


def test_stored_audit_carries_everything_needed_to_cite_it(lit):
    done = B.run_best(lit.con, ROBUST, "AP", model=B.AuditModel(alpha=0.1, p=0.25))
    rep = done.result
    a = get_audit(lit.con, some(done.audit_id))
    assert a.kind == "best" and a.method == "exact" and a.seed is None and a.trials is None
    assert a.params["alpha"] == 0.1 and a.params["p"] == 0.25
    assert a.params["filters"]["include_retracted"] is False
    assert a.input_fingerprint == rep.fingerprint and len(a.input_fingerprint) == 64
    assert a.software_version
    # decoded back into the type the analysis returned
    assert a.result == rep
    assert a.result.candidates[0].result.citation == "Author4 et al. (SIGIR 2009)"
    mc = B.run_best(
        lit.con,
        ROBUST,
        "AP",
        model=B.AuditModel(sampling=E.Sampling(method="montecarlo", trials=1000, seed=9)),
    )
    m = get_audit(lit.con, some(mc.audit_id))
    assert (m.method, m.seed, m.trials) == ("montecarlo", 9, 1000)
    assert [x.id for x in list_audits(lit.con, kind="best")] == [done.audit_id, mc.audit_id]
    assert not done.reused and not mc.reused
    again = B.run_best(lit.con, ROBUST, "AP", model=B.AuditModel(alpha=0.1, p=0.25))
    assert (again.audit_id, again.reused, again.result) == (done.audit_id, True, rep)


def test_a_reused_best_or_history_is_not_computed(lit, monkeypatch):
    # the key comes before the audit, as a claim's (tests/analyses/test_claim_key.py): an
    # identical call hands back the stored audit without computing it; another is computed
    best = B.run_best(lit.con, ROBUST, "AP")
    history = H.run_history(lit.con, ROBUST, "AP")

    def computed(*args, **kw):
        raise AssertionError("a reused audit was computed")

    monkeypatch.setattr(B, "compute_best", computed)
    monkeypatch.setattr(H, "population_noise", computed)
    again = B.run_best(lit.con, ROBUST, "AP")
    assert (again.audit_id, again.reused, again.result) == (best.audit_id, True, best.result)
    again_h = H.run_history(lit.con, ROBUST, "AP")
    assert (again_h.audit_id, again_h.reused) == (history.audit_id, True)
    assert again_h.result == history.result
    with pytest.raises(AssertionError, match="was computed"):
        B.run_best(lit.con, ROBUST, "AP", model=B.AuditModel(alpha=0.1))
    with pytest.raises(AssertionError, match="was computed"):
        H.run_history(lit.con, ROBUST, "AP", alpha=0.1)


def test_an_audit_stored_with_its_audit_id_inside_still_decodes(lit):
    # audits stored before issue 23 carry "audit_id": null inside best/claim/history
    # results; the codec passes over a field the type no longer has
    import json

    done = B.run_claim(lit.con, ROBUST, "AP", B.Claim(value=0.31))
    old = {**json.loads(dumps(done.result)), "audit_id": None}
    lit.con.execute("UPDATE audits SET result = ? WHERE id = ?", [dumps(old), done.audit_id])
    assert (
        "audit_id"
        in lit.con.execute("SELECT result FROM audits WHERE id = ?", [done.audit_id]).fetchone()[0]
    )
    assert get_audit(lit.con, some(done.audit_id)).result == done.result


def test_fingerprint_is_independent_of_row_order_and_changes_with_the_data(
    reference_db_file, tmp_path
):
    from litaudit.store.db import open_store
    from tests.conftest import copy_db

    def build(name, order):
        # two stores with the schema and reference data, as mem_store is: copies of the
        # session's file (an in-memory store migrated anew cost 0.14 s of CPU each)
        s = open_store(copy_db(reference_db_file, tmp_path / f"{name}.duckdb"))
        for i in order:
            _result(
                s.con, value=VALUES[i], system=f"sys{i}", track="trec13/robust", role="official"
            )
        return s

    a, b = build("a", range(10)), build("b", reversed(range(10)))
    fa = B.run_best(a.con, ROBUST, "AP", save=False).result.fingerprint
    fb = B.run_best(b.con, ROBUST, "AP", save=False).result.fingerprint
    assert fa == fb
    _result(b.con, value=0.2, system="extra", track="trec13/robust", role="official")
    assert B.run_best(b.con, ROBUST, "AP", save=False).result.fingerprint != fa
    a.close()
    b.close()


def test_retracted_and_nonstandard_are_left_out_by_default(lit):
    con = lit.con
    _result(
        con,
        value=0.40,
        system="retracted",
        paper=_paper(con, "r", "R (2011)", 2011),
        status="retracted",
    )
    _result(con, value=0.39, system="odd", paper=_paper(con, "o", "O (2012)", 2012), standard=False)
    assert B.run_best(con, ROBUST, "AP", save=False).result.stats.reference.n_results == 10
    f = B.Filters(include_retracted=True, include_nonstandard=True)
    rep = B.run_best(con, ROBUST, "AP", filters=f, save=False).result
    assert rep.stats.reference.n_results == 12 and rep.best.system == "retracted"


def test_filters_role_years_source(lit):
    con = lit.con
    prop = B.run_best(
        con, ROBUST, "AP", filters=B.Filters.parse(roles=["proposed"]), save=False
    ).result
    assert prop.stats.reference.n_results == 5
    yrs = B.run_best(
        con, ROBUST, "AP", filters=B.Filters.parse(years="2006-2010"), save=False
    ).result
    assert sorted(yrs.stats.values) == sorted(VALUES[1:6])
    assert yrs.population.n == 5 and yrs.population.roles == (
        Tally("baseline", 3),
        Tally("proposed", 2),
    )
    with pytest.raises(
        ParameterError,
        match="4 result.s. after the filters; an extreme-value audit needs at least 5",
    ):
        B.run_best(con, ROBUST, "AP", filters=B.Filters.parse(years="2007-2010"), save=False)
    with pytest.raises(ParameterError, match="0 result"):
        B.run_best(con, ROBUST, "AP", filters=B.Filters.parse(source="official"), save=False)
    with pytest.raises(LitauditError, match="--source"):
        B.Filters.parse(source="blogs")
    with pytest.raises(LitauditError, match="--role"):
        B.Filters.parse(roles=["winner"])


def test_mixed_topic_counts(lit):
    con = lit.con
    for i in range(5):
        _result(
            con,
            value=0.3 + i / 100,
            system=f"half{i}",
            n_topics=50,
            paper=_paper(con, f"h{i}", f"H{i} (2015)", 2015),
        )
    # the collection's default topic set (249) wins; the others are counted
    rep = B.run_best(con, ROBUST, "AP", save=False).result
    assert rep.n_topics == 249 and rep.n_other_topics == 5
    assert rep.population.n_other_topics == 5 and rep.population.n == 10
    rep50 = B.run_best(con, ROBUST, "AP", filters=B.Filters.parse(topics="50"), save=False).result
    assert rep50.stats.reference.n_results == 5 and rep50.n_topics == 50
    with pytest.raises(NotFound, match="no results on topics '100'"):
        B.run_best(con, ROBUST, "AP", filters=B.Filters.parse(topics="100"), save=False)


def test_too_few_results_and_unknown_names(mem_store):
    with pytest.raises(NotFound, match="unknown collection"):
        B.run_best(mem_store.con, "no-such-collection", "AP")
    _result(mem_store.con, value=0.3, system="only", track="trec13/robust", role="official")
    for i in range(3):
        _result(
            mem_store.con,
            value=0.2 + i / 100,
            system=f"r{i}",
            track="trec13/robust",
            role="official",
        )
    # N = 5 is the floor of every audit (defaults.MIN_N), with one message
    for run in (
        lambda: B.run_best(mem_store.con, ROBUST, "AP"),
        lambda: B.run_claim(mem_store.con, ROBUST, "AP", B.Claim(value=0.3)),
        lambda: H.run_history(mem_store.con, ROBUST, "AP"),
    ):
        with pytest.raises(
            ParameterError,
            match=r"robust04 AP: 4 result\(s\); an extreme-value audit needs at least 5",
        ):
            run()
    _result(mem_store.con, value=0.25, system="r5", track="trec13/robust", role="official")
    B.run_best(mem_store.con, ROBUST, "AP", filters=B.Filters.parse(source="official"), save=False)
    assert list_audits(mem_store.con) == []


def test_claim_and_history(lit):
    con = lit.con
    # the model's se (--se model): these check the model's arithmetic; the default, the
    # measured reference noise of robust04 AP, is checked in test_claim_noise.py
    model = B.AuditModel(se="model")
    c_done = B.run_claim(con, ROBUST, "AP", B.Claim(value=0.31), model=model)
    c = c_done.result
    assert c.stats.chance.n_draws == 11 and c.stats.reference.n_results == 10
    assert c.stats.record.n_at_or_above == 0 and c.stats.record.standing == "above-apart"
    assert c.record_holder.system == "sys4" and c.subject is None
    ref = E.reference(VALUES, 249)
    assert float(extreme_exact.max_sf(0.31, ref.mu, ref.se, 11)) < 1e-300  # 38 standard errors up
    assert c.stats.chance.p_value == 1e-6 and c.stats.chance.p_below_floor  # the floor
    mid = B.run_claim(con, ROBUST, "AP", B.Claim(value=0.27), model=model, save=False).result
    assert mid.stats.chance.p_value == pytest.approx(
        float(extreme_exact.max_sf(0.27, ref.mu, ref.se, 11))
    )
    assert c.answers[0].startswith(
        "Against the record: 0.3100 is above the record, 0.3010 "
        "(sys4, Author4 et al. (SIGIR 2009)), which lies below the claim's 60% band "
    )
    assert "a paired test on the same topics is what would confirm it" in c.answers[0]
    # the model's se, said once as what it is; no robust change here
    assert [a.split(":")[0] for a in c.answers] == [
        "Against the record",
        "Against chance",
        "Gap to the record",
        "The claim's own interval",
        "Reference model",
    ]
    assert some(c.noise).source == "model" and c.shrinkage is None
    assert "it is not a measured standard error" in c.answers[-1]
    stored = get_audit(con, some(c_done.audit_id))
    assert stored.params["value"] == 0.31 and stored.params["result_id"] is None
    assert stored.result.answers == c.answers  # decoded into a ClaimReport
    low = B.run_claim(con, ROBUST, "AP", B.Claim(value=0.25), model=model, save=False).result
    assert low.stats.record.standing == "below-apart" and low.stats.record.n_at_or_above == 8
    # a published result, as one of the N: by system name or by id
    one = B.run_claim(con, ROBUST, "AP", B.Claim(system="SYS8"), save=False).result
    assert some(one.subject).system == "sys8" and one.stats.chance.n_draws == 10
    assert one.stats.value == 0.290 and one.stats.record.n_at_or_above == 1
    by_id = B.run_claim(
        con, ROBUST, "AP", B.Claim(result_id=some(one.subject).id), save=False
    ).result
    assert by_id.stats == one.stats
    with pytest.raises(NotFound, match="no result of system 'nope'"):
        B.run_claim(con, ROBUST, "AP", B.Claim(system="nope"), save=False)
    with pytest.raises(NotFound, match="result #999 is not in the population"):
        B.run_claim(con, ROBUST, "AP", B.Claim(result_id=999), save=False)
    with pytest.raises(ParameterError, match="exactly one of"):
        B.run_claim(con, ROBUST, "AP", B.Claim(value=0.3, system="sys8"), save=False)
    h = H.run_history(con, ROBUST, "AP", reference="final", se="model").result
    pts = h.history.points
    assert [p.year for p in pts] == list(range(2005, 2015))
    assert [p.N for p in pts] == list(range(1, 11))
    assert [p.record for p in pts] == list(np.maximum.accumulate(VALUES))
    assert h.records[-1].system == "sys4"
    assert all(
        some(a.expected_max) < some(b.expected_max) for a, b in zip(pts, pts[1:], strict=False)
    )
    running = H.run_history(con, ROBUST, "AP", se="model", save=False).result  # no look-ahead
    assert running.history.reference == "running"
    assert running.history.points[0].expected_max is None  # one result: no spread yet
    assert running.history.points[-1].threshold == pytest.approx(pts[-1].threshold)


# ------------------------------------------------------------------------- seeded data
def test_trec7_official_runs_reproduce_the_paper(seeded_store, shared_data):
    # Carterette 2015, Sec. 3.1 on the 103 official TREC-7 ad hoc runs (AP, 50 topics):
    # mean ~0.2, sd ~0.08, alpha = 0.05 max threshold ~0.2375 with 35 runs above; ok7ax
    # (0.3033, best automatic run) has mu0 ~0.2705 and lower bound ~0.2378. We get 0.2367,
    # 0.2708, 0.2383: the paper rounded mu to 0.2, used 0.303 and read the quantiles off a
    # simulation (with its rounding the exact method gives 0.2375/0.2705/0.2380, see
    # tests/test_stats_extreme.py). Tolerance 0.001.
    import pandas as pd

    con = seeded_store.con
    rep = B.run_best(
        con,
        "trec7",
        "MAP",
        filters=B.Filters.parse(source="official"),
        model=B.AuditModel(se="model"),  # the paper's model se, sd / sqrt(n)
    ).result
    ref = rep.stats.reference
    assert (ref.n_results, ref.n_topics) == (103, 50)
    # cross-check: the seeded NIST MAPs against the means of the per-topic AP matrix (whose
    # cells are rounded to 4 decimals, so two means differ from NIST's by up to 6e-5)
    means = np.sort(pd.read_csv(shared_data / "pertopic" / "adhoc7_ap.csv").mean().to_numpy())
    np.testing.assert_allclose(rep.stats.values, means, atol=1e-4)
    assert ref.mu == pytest.approx(means.mean(), abs=1e-5)
    assert ref.sd == pytest.approx(means.std(ddof=1), abs=1e-5)
    assert ref.mu == pytest.approx(0.1992, abs=1e-4) and ref.sd == pytest.approx(0.0806, abs=1e-4)
    assert rep.stats.thresholds.max_threshold == pytest.approx(0.2375, abs=1e-3)
    assert rep.stats.thresholds.n_above == 35
    assert rep.stats.thresholds.min_threshold == pytest.approx(0.1625, abs=1e-3)
    paper = B.AuditModel(se="model")
    claim = B.run_claim(
        con, "trec7", "AP", B.Claim(system="ok7ax"), model=paper
    ).result  # ok7ax as one of the 103
    assert some(claim.subject).value_text == "0.3033" and claim.stats.chance.n_draws == 103
    assert claim.stats.interval.mu0 == pytest.approx(0.2705, abs=1e-3)
    assert claim.stats.interval.lower == pytest.approx(0.2378, abs=1e-3)
    assert claim.stats.chance.threshold == pytest.approx(0.2375, abs=1e-3)
    assert claim.stats.chance.expected_above_under_null == pytest.approx(0.0513, abs=1e-4)
    assert claim.stats.chance.n_published_above == 35
    # the same as the new value 0.3033 judged as the max of 102 others + itself
    as_value = B.run_claim(
        con, "trec7", "AP", B.Claim(value=0.3033, n=102), model=paper, save=False
    ).result
    assert as_value.stats.interval == claim.stats.interval
    auto = B.run_best(
        con, "trec7", "AP", filters=B.Filters.parse(run_types=["automatic"]), save=False
    ).result
    assert auto.best.system == "ok7ax" and auto.best.value_text == "0.3033"
    assert auto.best.track == "trec7/adhoc" and auto.best.provenance.startswith("TREC trec7")


def test_robust04_literature_end_to_end(seeded_store):
    con = seeded_store.con
    done = B.run_best(con, "robust04", "AP", filters=B.Filters.parse(source="papers"))
    rep = done.result
    assert rep.stats.reference.n_results >= 100 and rep.n_topics == 249
    assert all(c.result.citation and c.result.source == "paper" for c in rep.candidates)
    assert rep.stats.interval.lower <= rep.stats.interval.mu0 <= rep.best.value
    stored = get_audit(con, some(done.audit_id))
    assert stored.result.best.citation == rep.best.citation
    h = H.run_history(con, "robust04", "AP", filters=B.Filters.parse(source="papers")).result
    assert h.history.points[-1].N == rep.stats.reference.n_results
    assert h.history.points[-1].record == rep.best.value


@pytest.mark.slow(reason="the summarized seeded store (a session fixture, 6 s of CPU)")
def test_summary_audits_every_group(summarized, seeded_db_file, tmp_path):
    # `audit summary` (min_n 5) stored every group's audit on the seeded store
    # (summarized, conftest.py); the same summary on it again reuses every one
    import shutil

    from litaudit.store.db import open_store

    with open_store(seeded_db_file, read_only=True) as seeded:
        before = _n_stored(seeded.con)
    path = tmp_path / "summarized.duckdb"
    shutil.copy(summarized.db, path)
    out = summarized.json
    printed = [row["audit_id"] for row in (out["result"] if "result" in out else out)["rows"]]
    with open_store(path) as store:
        _check_summary(store, before, printed)


def _n_stored(con) -> int:
    """The number of stored audits, counted undecoded (decoding the summary's 304 costs
    0.9 s of CPU, which a count does not need)."""
    from litaudit.store import audits as stored_audits

    return len(stored_audits.listing(con))


def _check_summary(store, before: int, printed: list[int]) -> None:
    con = store.con
    stored = _n_stored(con)
    with store.transaction():
        s = S.run_summary(con, min_n=5)
    groups = {(r.collection_name, r.measure, r.source): r for r in s.rows}
    assert ("trec7", "AP", "official") in groups and ("robust04", "AP", "paper") in groups
    # 35 above the paper's threshold with the model se 0.0114; 29 with the measured 0.0155
    t7 = groups[("trec7", "AP", "official")]
    assert t7.n_above == 29 and t7.se_kind == "measured" and round(t7.se, 4) == 0.0155
    assert all(r.N >= 5 for r in s.rows)
    assert all(r.lower <= r.mu0 <= r.best and r.n_candidates >= 1 for r in s.rows)
    # every audit stored (by the summary that made them), each under its own id
    assert stored == before + len(s.rows)
    assert len(s.rows) == 304 and len({r.audit_id for r in s.rows}) == 304
    for r in s.rows[::17]:
        a = get_audit(con, some(r.audit_id))
        assert (a.kind, a.collection_id, a.measure) == ("best", r.collection_id, r.measure)
        assert a.result.stats.reference.n_results == r.N
        assert a.params["filters"]["source"] == r.source
    # the same summary again reuses every stored audit (analyses.audits.run_or_reuse):
    # the ids `audit summary --json` printed, and nothing more stored
    assert [r.audit_id for r in s.rows] == printed
    assert _n_stored(con) == stored
    assert all(n < 5 for _, _, _, n, why in s.skipped if why.startswith("fewer"))
    with pytest.raises(ParameterError, match="--min-n"):
        S.run_summary(con, min_n=1)
