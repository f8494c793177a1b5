"""`litaudit audit ...` through the CLI (Carterette, SIGIR 2015 audits)."""

from __future__ import annotations

import json
import shutil

import pytest


@pytest.fixture
def db(seeded_db_file, tmp_path):
    """A private copy of the seeded database (audit commands write)."""
    path = tmp_path / "audit.duckdb"
    shutil.copy(seeded_db_file, path)
    return path


def _n_audits(path) -> int:
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute("SELECT count(*) FROM audits").fetchone()[0]
    finally:
        con.close()


def test_best_prints_tables_2_and_3_and_candidates(cli, db):
    r = cli("audit", "best", "-c", "trec7", "-m", "MAP", "--source", "official", db=db)
    assert r.exit_code == 0, r.output
    out = r.output
    assert out.startswith("Best-result audit: trec7 AP (official), 50 topics  [audit #1]")
    assert "Table 2: the published population" in out
    assert "│ 103 │ 0.1992 │ 0.0806 │ 0.0114 │ 0.0117 │ 0.3702 │" in out
    assert "│ max above │    0.2367 │      35 │" in out
    assert "│ 0.3702 │ 0.3377 │ [0.3052, 0.3702] │" in out
    assert "CLARIT98COMB" in out and "TREC trec7/adhoc" in out
    assert _n_audits(db) == 1


def test_best_json_and_montecarlo(cli, db):
    r = cli("audit", "best", "-c", "trec7", "-m", "AP", "--run-type", "automatic",
            "--method", "montecarlo", "--trials", "2000", "--seed", "7", "--json", db=db)
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["best"]["system"] == "ok7ax" and d["best"]["value_text"] == "0.3033"
    assert d["stats"]["method"] == "montecarlo" and d["stats"]["seed"] == 7
    assert d["stats"]["trials"] == 2000 and d["stats"]["thresholds"]["max_threshold_se"] > 0
    assert d["candidates"][0]["result"]["track"] == "trec7/adhoc"
    show = cli("audit", "show", str(d["audit_id"]), "--json", db=db)
    stored = json.loads(show.output)
    assert (stored["method"], stored["seed"], stored["trials"]) == ("montecarlo", 7, 2000)
    assert stored["params"]["filters"]["run_types"] == ["automatic"]


def test_claim_ok7ax(cli, db):
    # Carterette 2015, Sec. 3.1: ok7ax (0.303) as the max of the 103 TREC-7 runs has
    # mu0 ~0.2705 and lower bound ~0.2378; exact on the NIST values: 0.2708, 0.2383.
    r = cli("audit", "claim", "-c", "trec7", "-m", "AP", "--value", "0.3033", "--n", "102",
            db=db)
    assert r.exit_code == 0, r.output
    assert "Claimed 0.3033 as the max of 103 draws from Normal(0.1992, 0.0114)" in r.output
    assert "BEYOND CHANCE" in r.output
    assert "│ mu0                           │ 0.2708 " in r.output
    assert "[0.2383, 0.3033]" in r.output
    j = json.loads(cli("audit", "claim", "-c", "trec7", "-m", "AP", "--value", "0.24",
                       "--hidden-multiplier", "3", "--json", "--no-save", db=db).output)
    assert j["claim"]["n_draws"] == 3 * 103 + 1 and j["audit_id"] is None
    assert _n_audits(db) == 1


def test_history(cli, db):
    r = cli("audit", "history", "-c", "robust04", "-m", "AP", "--source", "papers", db=db)
    assert r.exit_code == 0, r.output
    assert "Sequential-testing history: robust04 AP (papers), 249 topics" in r.output
    assert "│ 2005 │" in r.output and "3 records over 15 years" in r.output


def test_summary_is_what_make_run_prints(cli, db):
    r = cli("audit", "summary", db=db)
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0] == ("Extreme-value audits (Carterette, SIGIR 2015): alpha = 0.05, "
                        "p = 0.2, N >= 5")
    header = next(ln for ln in lines if "collection" in ln)
    for col in ("measure", "source", "N", "best", "mu0", "lower", "candidates", "threshold"):
        assert col in header
    assert any(ln.startswith("│ trec7 ") and "│ AP " in ln and "│ official │ 103 │" in ln
               for ln in lines)
    assert any(ln.startswith("│ robust04 ") and "│ AP " in ln and "│ papers " in ln
               for ln in lines)
    n = _n_audits(db)
    assert n > 40
    listed = cli("audit", "list", "--kind", "best", "--json", db=db)
    assert len(json.loads(listed.output)) == n
    shown = cli("audit", "show", "1", db=db)
    assert shown.exit_code == 0 and "Best-result audit:" in shown.output


def test_no_save_opens_read_only(cli, db):
    r = cli("audit", "summary", "--no-save", "--json", db=db)
    assert r.exit_code == 0
    assert all(row["audit_id"] is None for row in json.loads(r.output)["rows"])
    assert _n_audits(db) == 0


@pytest.mark.parametrize("args, message", [
    (("best", "-c", "nope", "-m", "AP"), "unknown collection 'nope'"),
    (("best", "-c", "trec7", "-m", "AP", "--alpha", "1.5"),
     "alpha must be strictly between 0 and 1"),
    (("best", "-c", "trec7", "-m", "AP", "--p", "0"), "p must be strictly between 0 and 1"),
    (("best", "-c", "trec7", "-m", "AP", "--source", "blogs"), "--source"),
    (("best", "-c", "trec7", "-m", "AP", "--method", "bayes"), "unknown method 'bayes'"),
    (("best", "-c", "trec7", "-m", "AP", "--years", "1990"), "0 result(s) after the filters"),
    (("claim", "-c", "trec7", "-m", "AP", "--value", "0.3", "--hidden-multiplier", "0.5"),
     "hidden multiplier must be >= 1"),
    (("history", "-c", "trec7", "-m", "AP", "--reference", "oracle"), "unknown reference"),
    (("show", "999"), "no audit with id 999"),
])
def test_errors_are_one_line_and_exit_1(cli, db, args, message):
    r = cli("audit", *args, db=db)
    assert r.exit_code == 1
    assert message in r.output
    assert "Traceback" not in r.output
    assert _n_audits(db) == 0
