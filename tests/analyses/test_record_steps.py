"""`audit history`'s record steps (issue 34, item 1): each record tested against the one it
replaced, on BEIR-13's datasets where the store holds them, else on the published means;
checked against honestboard 0.6.1 on MTEB's own file."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pytest

from litaudit.analyses.extreme.history import HistoryReport
from litaudit.codec import decode


def _history(cli, db, *args) -> dict:
    r = cli("audit", "history", *args, "--json", "--no-save", db=db)
    assert r.exit_code == 0, r.output
    return json.loads(r.output)["result"]


@pytest.fixture(scope="module")
def beir13(seeded_db_file, tmp_path_factory):
    """The JSON of `audit history -c beir/13 -m nDCG@10 --certify lord` on the seeds."""
    from typer.testing import CliRunner

    from litaudit.cli.main import app

    db = tmp_path_factory.mktemp("rec") / "s.duckdb"
    shutil.copy(seeded_db_file, db)
    args = ["--db", str(db), "audit", "history", "-c", "beir/13", "-m", "nDCG@10"]
    r = CliRunner().invoke(app, [*args, "--certify", "lord", "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def test_beir13_steps_are_paired_on_the_13_datasets(beir13):
    rs = beir13["result"]["record_steps"]
    steps = rs["steps"]
    assert len(steps) == 15 and rs["certify"] == "lord"
    assert {s["basis"] for s in steps} == {"datasets"} and {s["n_shared"] for s in steps} == {13}
    # every step: exact enumeration of the 2^13 sign patterns, p times the step's results
    for s in steps:
        sf = s["signflip"]
        assert sf["exact"] and sf["wins"] + sf["losses"] + sf["ties"] == 13
        assert s["p"] == pytest.approx(min(1.0, s["step_results"] * s["p_raw"]))
        assert s["margin"] == pytest.approx(s["new"]["value"] - s["previous"]["value"])
    last = steps[-1]
    assert last["new"]["system"] == "voyageai/voyage-3-m-exp" and last["when"] == "2025-01-08"
    assert (last["signflip"]["wins"], last["signflip"]["losses"]) == (10, 3)
    assert rs["n_significant"] == sum(1 for s in steps if s["p_holm"] <= 0.05)
    assert rs["n_certified"] == sum(1 for s in steps if s["certified"])


@pytest.mark.slow
def test_beir13_steps_against_honestboard(beir13, shared_data):
    """honestboard's record audit of MTEB's file (models with all 13 tasks, dated by their
    release date): where both chains take the same step, the selective p-values agree
    within honestboard's Monte Carlo error (200,000 sign patterns; we enumerate the
    8,192) plus the derived means' 5-decimal rounding, and the step's result counts are
    equal. The chains differ where the populations do: the seeds leave out the models
    without a release date (all-mpnet-base-v2 opens honestboard's chain), and a derived
    BEIR-13 mean is dated by its latest part (NV-Embed-v2: 2024-09-09, not 2024-08-29)."""
    hb = pytest.importorskip("honestboard")
    import pandas as pd

    df = pd.read_csv(shared_data / "published" / "mteb_beir_retrieval.csv")
    tasks = "ArguAna ClimateFEVER DBPedia FEVER FiQA2018 HotpotQA NFCorpus NQ QuoraRetrieval"
    tasks += " SCIDOCS SciFact TRECCOVID Touche2020"
    d = df[df.task.isin(tasks.split())]
    w = d.pivot_table(index="model", columns="task", values="main_score", aggfunc="first")
    dates = d.groupby("model").release_date.first().reindex(w.index)
    keep = w.notna().all(axis=1) & dates.notna()
    board = hb.Board(list(w.index[keep]), w[keep].to_numpy(), [str(x) for x in dates[keep]])
    theirs = {(s["previous"], s["new"]): s for s in board.record_audit()["steps"]}
    ours = beir13["result"]["record_steps"]["steps"]
    same = [
        (s, theirs[(s["previous"]["system"], s["new"]["system"])])
        for s in ours
        if (s["previous"]["system"], s["new"]["system"]) in theirs
    ]
    assert len(same) >= 11
    for s, t in same:
        p = t["p_selective"]
        assert abs(s["p_raw"] - p) < 4 * math.sqrt(p * (1 - p) / 100_000) + 0.002
        assert s["step_results"] == t["date_group"]


def test_published_means_only_give_the_step_in_se_units(cli, seeded_db_file):
    d = _history(cli, seeded_db_file, "-c", "robust04", "-m", "AP", "--source", "papers")
    rs = d["record_steps"]
    se = d["noise"]["se"]
    # the seeds' reference noise of robust04 AP (measured; issue 30)
    assert rs["steps"] and rs["se_source"] == d["noise"]["source"] == "reference"
    for s in rs["steps"]:
        assert s["basis"] == "means" and s["signflip"] is None
        assert s["se_difference"] == pytest.approx(math.sqrt(2) * se)
        assert s["z"] == pytest.approx(s["margin"] / s["se_difference"])


@pytest.mark.slow
def test_history_prints_the_steps_and_audit_show_too(cli, seeded_db_file, tmp_path):
    db = tmp_path / "h.duckdb"
    shutil.copy(seeded_db_file, db)
    r = cli("audit", "history", "-c", "beir/13", "-m", "nDCG@10", "--certify", "spending", db=db)
    assert r.exit_code == 0, r.output
    out = r.output
    assert "Record steps, each against the record it replaced" in out
    assert "13 datasets (10+/3-)" in out
    assert "record steps beat the record they replaced after Holm at 0.05" in out
    assert "Online certification (alpha-spending" in out
    shown = cli("audit", "show", "1", db=db)
    assert shown.exit_code == 0 and "Record steps, each against" in shown.output
    bad = cli("audit", "history", "-c", "beir/13", "-m", "nDCG@10", "--certify", "bh", db=db)
    assert bad.exit_code == 1 and "--certify: 'bh' is not one of spending, lord" in bad.output


def test_a_history_stored_before_the_record_steps_decodes(beir13):
    old = dict(beir13["result"])
    del old["record_steps"]
    rep = decode(HistoryReport, old)
    assert rep.record_steps is None and rep.collection_id == "beir/13"
    assert np.isclose(rep.history.points[-1].record, 0.70484)


@pytest.mark.slow
def test_a_step_between_archived_runs_is_paired_on_their_topics(robust03_db_file):
    """robust03's archive holds 17 of the 78 official runs: a step between two of them is
    paired on the 100 topics, the differences those of the archive's per-topic AP."""
    from litaudit.analyses.extreme.population import Filters, population
    from litaudit.analyses.extreme.record_steps import pairing
    from litaudit.analyses.extreme.same_topic import archive_scores
    from litaudit.store.db import open_store

    with open_store(robust03_db_file, read_only=True) as store:
        con = store.con
        pop = population(con, "trec-robust-2003", "AP", Filters())
        by = {r.system: r for r in pop.rows}
        pairs = pairing(con, pop.collection_id, "AP", pop.rows)
        basis, d, note = pairs.paired(by["uwmtCR0"], by["pircRBa1"])
        a = archive_scores(con, pop.collection_id, "AP", "uwmtCR0").scores
        b = archive_scores(con, pop.collection_id, "AP", "pircRBa1").scores
        other = pairs.paired(by["uwmtCR0"], by["pircRBa2"])  # pircRBa2: not archived
    assert basis == "topics" and note is None and d is not None and d.size == 100
    assert float(d.sum()) == pytest.approx(sum(b[t] - a[t] for t in a))
    assert other[0] == "means" and other[2] == "the run archive holds no run of both systems"
