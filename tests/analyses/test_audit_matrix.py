"""`litaudit audit matrix`: the extreme-value audit fed by a per-topic score matrix."""

from __future__ import annotations

import json

import pytest


@pytest.mark.slow
def test_trec7_matrix_reproduces_the_official_population(cli, shared_data, seeded_db_file):
    import shutil

    shutil.copy(seeded_db_file, cli.db)
    # Urbano's TREC-7 matrix reproduces the official MAPs (data README: mean 0.1992, sd
    # 0.0806 over 103 runs); Carterette 2015 Sec. 4: threshold about 0.2375, 35 above.
    r = cli(
        "audit",
        "matrix",
        shared_data / "pertopic" / "adhoc7_ap.csv",
        "-m",
        "AP",
        "-c",
        "trec7",
        "--json",
    )
    assert r.exit_code == 0, r.output
    done = json.loads(r.stdout)
    rep = done["result"]
    ref = rep["stats"]["reference"]
    assert (ref["n_results"], ref["n_topics"]) == (103, 50)
    assert ref["mu"] == pytest.approx(0.1992, abs=1e-4)
    assert ref["sd"] == pytest.approx(0.0806, abs=1e-4)
    # the matrix measures the noise: the interaction se 0.0155 (the model's sd / sqrt(n) is
    # 0.0114), F = 27.0 for system differences; the thresholds use it
    it = rep["interaction"]
    assert round(it["se"], 4) == 0.0155 and round(it["f_systems"], 1) == 27.0
    assert rep["se_source"] == "interaction" and ref["se"] == it["se"]
    assert rep["stats"]["thresholds"]["max_threshold"] == pytest.approx(0.2503, abs=1e-4)
    assert rep["stats"]["thresholds"]["n_above"] == 29
    # calibrated on the matrix's residuals (issue 30): runs differ in noise, so the
    # resampled threshold of the max lies above the Normal one with the pooled se
    rn = rep["resampled"]
    assert rn["trials"] == 4000 and rn["seed"] == 2018
    assert 0.2503 + 0.005 < rn["max_threshold"] < 0.2503 + 0.02
    assert rn["best_mean"] == pytest.approx(0.3702, abs=1e-4) and rn["p_max"] == 1 / 4001
    # the calibrated test of equal means: the studentized max-t on the same replications
    mt = rn["max_t"]
    assert (mt["trials"], mt["seed"]) == (4000, 2018) and mt["p"] == 1 / 4001
    assert mt["statistic"] > mt["threshold"] > 2
    # the terminal's text: `audit show` of the stored audit prints what the command
    # printed (tests/cli/test_show_equals_command.py): the matrix is audited once
    shown = cli("audit", "show", str(done["audit_id"]))
    assert shown.exit_code == 0, shown.output
    text = shown.stdout
    assert "Measured noise: the system x topic interaction of the 103 runs x 50 topics" in text
    assert "Calibrated on the matrix's residuals (topics resampled with all means equal" in text
    assert "Equal means by the studentized max-t" in text
    # --se model: the paper's reference, threshold about 0.2375 with 35 above
    model = json.loads(
        cli(
            "audit",
            "matrix",
            shared_data / "pertopic" / "adhoc7_ap.csv",
            "-m",
            "AP",
            "--se",
            "model",
            "--no-save",
            "--json",
        ).stdout
    )["result"]
    assert model["se_source"] == "model"
    assert model["stats"]["thresholds"]["max_threshold"] == pytest.approx(0.2375, abs=1e-3)
    assert model["stats"]["thresholds"]["n_above"] == 35
    assert done["audit_id"] >= 1 and not done["reused"] and len(rep["file_sha256"]) == 64
    shown = cli("audit", "show", str(done["audit_id"]), "--json")
    assert shown.exit_code == 0 and json.loads(shown.stdout)["kind"] == "best-matrix"
    shown = cli("audit", "show", str(done["audit_id"]))
    assert shown.exit_code == 0 and "Table 2 and 3 rows" in shown.stdout
    # the same call again: the stored audit, not a new one
    again = json.loads(
        cli(
            "audit",
            "matrix",
            shared_data / "pertopic" / "adhoc7_ap.csv",
            "-m",
            "AP",
            "-c",
            "trec7",
            "--json",
        ).stdout
    )
    assert (again["audit_id"], again["reused"], again["result"]) == (done["audit_id"], True, rep)
    # Monte Carlo without --seed takes the documented default seed
    r = cli(
        "audit",
        "matrix",
        shared_data / "pertopic" / "adhoc7_ap.csv",
        "-m",
        "AP",
        "--method",
        "montecarlo",
        "--trials",
        "500",
        "--no-save",
        "--json",
    )
    assert r.exit_code == 0, r.output
    from litaudit import defaults

    assert json.loads(r.stdout)["result"]["stats"]["seed"] == defaults.MONTECARLO_SEED


def test_trec_eval_q_input_and_read_only_use(cli, tmp_path):
    files = []
    for run, base in (("a", 0.30), ("b", 0.20), ("c", 0.25), ("d", 0.22), ("e", 0.27)):
        # trec_eval -q: the per-topic rows, then the summary block naming the run
        lines = [f"map\t{t}\t{base + 0.01 * t:.4f}" for t in range(1, 6)]
        lines += [f"runid\tall\t{run}", f"map\tall\t{base + 0.03:.4f}"]
        f = tmp_path / f"{run}.q"
        f.write_text("\n".join(lines) + "\n")
        files.append(f)
    assert cli("init", "--no-seeds").exit_code == 0
    r = cli(
        "audit", "matrix", *files, "-m", "MAP", "--input-format", "trec_eval", "--no-save", "--json"
    )
    assert r.exit_code == 0, r.output
    done = json.loads(r.stdout)
    rep = done["result"]
    assert rep["runs"] == ["a", "b", "c", "d", "e"] and rep["n_topics"] == 5
    assert rep["means"] == pytest.approx([0.33, 0.23, 0.28, 0.25, 0.30])
    assert done["audit_id"] is None
    few = cli(
        "audit", "matrix", *files[:3], "-m", "MAP", "--input-format", "trec_eval", "--no-save"
    )
    assert few.exit_code == 1
    assert "a.q AP: 3 result(s); an extreme-value audit needs at least 5" in few.stderr
    r = cli("audit", "matrix", *files, "-m", "MAP", "--input-format", "trec_eval")
    assert r.exit_code == 1 and "--collection is needed" in r.stderr
    r = cli("audit", "matrix", tmp_path / "none.csv", "-m", "AP", "--no-save")
    assert r.exit_code == 1 and "no such file" in r.stderr
