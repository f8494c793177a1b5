"""`litaudit audit ranks`: rank resolution on shared topics or datasets, on real data."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import Cli, copy_db


def _ranks(cli, *args):
    r = cli("audit", "ranks", *args, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


@pytest.mark.slow
def test_trec6_has_a_near_clear_best_and_web2010_a_wide_tie(cli, shared_data, reference_db_file):
    # both ways on real data (issue 30, item 4): TREC-6 ad hoc AP's top run stands out
    # (run70, 0.4631 against 0.3742 next), Web 2010 AP's top is a wide tie. TREC-6's set:
    # 3 runs by MCB alone, 4 joined with the runs whose rank interval starts at 1 (run14)
    shutil.copy(reference_db_file, cli.db)
    pt = shared_data / "pertopic"
    six = _ranks(cli, pt / "adhoc6_ap.csv", "-m", "AP", "--no-save", "--resamples", "2000")
    web = _ranks(cli, pt / "web2010_ap.csv", "-m", "AP", "--no-save", "--resamples", "2000")
    s6, sw = six["result"]["resolution"], web["result"]["resolution"]
    names6 = [six["result"]["systems"][i] for i in s6["best_set"]]
    assert names6[0] == "run70" and len(names6) <= 4
    assert s6["p_first"][six["result"]["systems"].index("run70")] > 0.99
    assert len(sw["best_set"]) >= 25  # of 88 runs
    assert max(sw["p_first"]) < 0.35


@pytest.mark.slow
def test_beir13_from_the_store(cli, seeded_db_file):
    # BEIR-13 nDCG@10 from MTEB's, Pyserini's and papers' per-dataset rows: 228 systems with all 13
    # datasets; paired over the datasets the top two cannot be told apart
    shutil.copy(seeded_db_file, cli.db)
    done = _ranks(cli, "-c", "beir-13", "-m", "nDCG@10", "--resamples", "1000")
    rep = done["result"]
    res = rep["resolution"]
    assert (res["n_systems"], res["n_units"], res["units"]) == (228, 13, "datasets")
    assert rep["source"] == "datasets" and rep["noise"].startswith("each dataset's own noise")
    assert len(res["best_set"]) >= 2
    top2 = sorted(range(228), key=lambda i: -res["means"][i])[:2]
    assert all(res["in_best_set"][i] for i in top2)
    # stored: `audit show` prints it through the same renderer
    shown = cli("audit", "show", str(done["audit_id"]))
    assert shown.exit_code == 0 and "confidence set of the best" in shown.output
    # the identical call is reused
    again = _ranks(cli, "-c", "beir-13", "-m", "nDCG@10", "--resamples", "1000")
    assert again["reused"] and again["audit_id"] == done["audit_id"]


def test_terminal_output_names_the_method(cli, shared_data, reference_db_file):
    shutil.copy(reference_db_file, cli.db)
    r = cli(
        "audit",
        "ranks",
        shared_data / "pertopic" / "adhoc5_p10.csv",
        "-m",
        "P@10",
        "--no-save",
        "--resamples",
        "200",
    )
    assert r.exit_code == 0, r.output
    assert "multiple comparisons with the best (Hsu 1996)" in r.output
    assert "Mogstad, Romano, Shaikh and Wilhelm 2024" in r.output
    assert "P(first)" in r.output and "Monte Carlo" in r.output


def test_no_shared_scores_is_a_clear_error(cli, reference_db_file):
    shutil.copy(reference_db_file, cli.db)
    r = cli("audit", "ranks", "-c", "trec7", "-m", "AP")
    assert r.exit_code == 1
    assert "trec7-adhoc AP: no shared scores in the store" in r.output or (
        "no shared scores in the store" in r.output
    )
    r = cli("audit", "ranks", "-m", "AP")
    assert r.exit_code == 1 and "give score matrix files or --collection" in r.output
    r = cli("audit", "ranks", "-m", "AP", "-c", "beir-13", "--noise", "loud")
    assert r.exit_code == 1 and "--noise" in r.output
    r = cli("audit", "ranks", "-m", "AP", "-c", "beir-13", "--resamples", "5")
    assert r.exit_code == 1 and "--resamples" in r.output


@pytest.fixture(scope="module")
def beir_best(seeded_db_file, tmp_path_factory) -> tuple[Cli, dict]:
    """The CLI on a copy of the seeded store where `audit best -c beir-13 -m nDCG@10` has
    stored its audit, and that command's JSON, once for the module: its ranks section (228
    systems, 1 s of CPU) is computed once, and the report after it reuses the audit."""
    cli = Cli(tmp_path_factory.mktemp("beir-best") / "cli.duckdb")
    copy_db(seeded_db_file, cli.db)
    r = cli("audit", "best", "-c", "beir-13", "-m", "nDCG@10", "--json")
    assert r.exit_code == 0, r.output
    return cli, json.loads(r.stdout)


@pytest.mark.slow(
    reason="its BEIR-13 audit best is the module fixture (0.6 s): none in make test-fast"
)
def test_audit_best_carries_the_ranks_section(beir_best):
    cli, best = beir_best
    assert not best["reused"]
    ranks = best["result"]["ranks"]
    assert ranks["resolution"]["n_systems"] == 228 and ranks["source"] == "datasets"
    # a collection without shared scores in the store has no section
    r = cli("audit", "best", "-c", "trec7", "-m", "AP", "--no-save", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["result"]["ranks"] is None


@pytest.mark.slow
def test_the_report_carries_the_ranks_section(beir_best, tmp_path):
    cli, _best = beir_best
    out = tmp_path / "beir.md"
    r = cli("report", "-c", "beir-13", "-m", "nDCG@10", "-o", out)
    assert r.exit_code == 0, r.output
    # the report's best audit is `audit best`'s, stored: reused, not run again
    assert "ran the 'best' audit" not in r.output and "ran the 'history' audit" in r.output
    text = out.read_text(encoding="utf-8")
    assert "Ranks: 174 of 228 systems cannot be told apart from the best" in text
    assert "| rank | system | mean | 95% rank interval | P(first) | set of the best |" in text


@pytest.mark.slow
def test_a_stored_run_archive_evaluated_per_topic(cli, robust03_db_file):
    # robust03's 17 runs x 100 topics, AP per topic as `runs eval` gives it: evaluated by
    # the audit on a fresh import, the same answer after `runs eval` stored them
    shutil.copy(robust03_db_file, cli.db)
    fresh = _ranks(cli, "-c", "robust03", "-m", "AP")
    assert cli("runs", "eval", "-c", "robust03", "-m", "AP").exit_code == 0
    done = _ranks(cli, "-c", "robust03", "-m", "AP")
    assert fresh["result"] == done["result"]
    res = done["result"]["resolution"]
    assert done["result"]["source"] == "archive"
    assert (res["n_systems"], res["n_units"]) == (17, 100)
    assert 1 <= len(res["best_set"]) < 17
