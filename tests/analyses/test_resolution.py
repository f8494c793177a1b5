"""`audit resolution` (issue 34, item 3): what a collection can resolve, from BEIR-13's
datasets in the seeds, a run archive, or a matrix file."""

from __future__ import annotations

import json
import shutil

import pytest

from litaudit.stats.resolution import resolution


def _json(r) -> dict:
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


@pytest.mark.slow
def test_beir13_resolution_from_its_datasets(cli, seeded_db_file, tmp_path):
    db = tmp_path / "r.duckdb"
    shutil.copy(seeded_db_file, db)
    d = _json(
        cli(
            "audit",
            "resolution",
            "-c",
            "beir-13",
            "-m",
            "nDCG@10",
            "--gap",
            "0.005",
            "--json",
            db=db,
        )
    )
    rep = d["result"]
    assert d["audit_id"] == 1 and rep["source"] == "datasets" and rep["unit"] == "datasets"
    r = rep["resolution"]
    assert r["n_units"] == 13 and r["top"] == 10 and len(rep["top_systems"]) == 10
    assert r["units_needed"] > 13 and r["power_at_n"] < 0.1
    means = [m for _, m in rep["top_systems"]]
    assert means == sorted(means, reverse=True)
    out = cli("audit", "show", "1", db=db).output
    assert (
        "beir/13 nDCG@10 (13 datasets): the smallest difference between systems like its top 10"
        in out
    )
    assert "it cannot resolve a 0.005 gain: that needs about" in out
    assert "Sakai" in out


def test_matrix_file_equals_the_stats(cli, seeded_db_file, shared_data):
    path = shared_data / "pertopic" / "adhoc7_ap.csv"
    d = _json(
        cli(
            "audit",
            "resolution",
            "--matrix",
            str(path),
            "-m",
            "AP",
            "--gap",
            "0.01",
            "--no-save",
            "--json",
            db=seeded_db_file,
        )
    )
    import numpy as np

    from litaudit.runs.pertopic import read_pertopic_csv

    x = np.asarray(read_pertopic_csv(path).scores, dtype=np.float64)
    want = resolution(x, gap=0.01)
    r = d["result"]["resolution"]
    assert d["audit_id"] is None and r["n_units"] == 50
    assert r["mdd"] == pytest.approx(want.mdd) and r["units_needed"] == want.units_needed == 2264


@pytest.mark.slow(reason="evaluates the robust03 archive unless a test before it did")
def test_a_run_archive_is_read_per_topic(cli, robust03_db_file):
    d = _json(
        cli(
            "audit",
            "resolution",
            "-c",
            "robust03",
            "-m",
            "AP",
            "--no-save",
            "--json",
            db=robust03_db_file,
        )
    )
    rep = d["result"]
    assert rep["source"] == "archive" and rep["resolution"]["n_units"] == 100
    assert "17 runs x 100 topics" in rep["what"] and rep["resolution"]["gap"] is None


@pytest.mark.slow
def test_without_per_topic_scores_the_error_says_how_to_get_them(cli, seeded_db_file):
    r = cli("audit", "resolution", "-c", "robust04", "-m", "AP", "--no-save", db=seeded_db_file)
    assert r.exit_code == 1
    assert "no per-topic or per-dataset scores in the store" in r.output
    assert "--matrix FILE" in r.output
    bad = cli(
        "audit",
        "resolution",
        "-c",
        "beir-13",
        "-m",
        "nDCG@10",
        "--gap",
        "-1",
        "--no-save",
        db=seeded_db_file,
    )
    assert bad.exit_code == 1 and "--gap must be a difference > 0" in bad.output


@pytest.mark.slow
def test_the_claim_verdict_sets_its_gain_against_the_resolution(cli, seeded_db_file):
    r = cli(
        "audit",
        "claim",
        "-c",
        "beir-13",
        "-m",
        "nDCG@10",
        "--value",
        "0.71",
        "--no-save",
        db=seeded_db_file,
    )
    assert r.exit_code == 0, r.output
    assert (
        "This collection cannot resolve a 0.0052 gain over the record between systems like its "
        "top 10: that needs about 913 datasets (it has 13;"
    ) in r.output
    # a collection without per-topic scores has no resolution line: robust04's claim in
    # test_verdict.py's test_verdict_lines_of_a_claim_answer_each_question_once


# ------------------------------------------------ the winner corrected (issue 34, item 2)
@pytest.mark.slow
def test_audit_matrix_corrects_its_winner(cli, seeded_db_file, shared_data):
    from tests.conftest import copy_db

    path = shared_data / "pertopic" / "adhoc7_ap.csv"
    copy_db(seeded_db_file, cli.db)
    d = _json(cli("audit", "matrix", str(path), "-m", "AP", "-c", "trec7", "--json"))
    # the terminal's text: `audit show` of the stored audit prints what the command
    # printed (tests/cli/test_show_equals_command.py): the matrix is audited once
    r = cli("audit", "show", str(d["audit_id"]))
    assert r.exit_code == 0, r.output
    assert "The winner's score corrected for selection (95%): run16 observed 0.3702" in r.output
    assert "conditional (Lee et al. 2016) 0.3632 [0.2720, 0.4219]" in r.output
    w = d["result"]["winner"]
    assert w["seed"] == 2024 and [e["method"] for e in w["estimates"]] == [
        "conditional",
        "hybrid",
        "bootstrap",
    ]


@pytest.mark.slow(reason="the seeded database (a session fixture)")
def test_audit_best_corrects_its_winner_with_a_measured_se(cli, seeded_db_file):
    args = ("audit", "best", "-c", "trec7", "-m", "AP", "--source", "official", "--no-save")
    plain = _json(cli(*args, "--se", "model", "--json", db=seeded_db_file))
    assert plain["result"]["winner"] is None  # the model's se: no correction, as no shrinkage
    r = cli(*args, "--se", "0.0155", db=seeded_db_file)
    assert (
        "The winner's score corrected for selection (95%): CLARIT98COMB observed 0.3702" in r.output
    )
    assert "0.0027 above its truncation point" in r.output  # the runner-up, 0.3675
