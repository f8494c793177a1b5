"""Printed digits kept (issue 32, item 3): `report --claim` and `audit claim --value` read
the claim as text, so both give the same answer on a run; percentages are refused for
baselines as for claims."""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.analyses.test_claim_evidence import _run_file
from tests.conftest import _built_once


def _report_audits(robust03_db_file: Path, path: Path) -> None:
    """Build: the robust03 database with the audits a report of robust03 AP stores (its
    best, history and reusability verdict: what the claims' reports reuse)."""
    from typer.testing import CliRunner

    from litaudit.cli.main import app

    shutil.copy(robust03_db_file, path)
    with tempfile.TemporaryDirectory() as out:
        args = ["--db", str(path), "report", "-c", "robust03", "-m", "AP", "-o", f"{out}/r.md"]
        res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output


@pytest.fixture(scope="module")
def reported_db_file(robust03_db_file, tmp_path_factory) -> Path:
    """:func:`_report_audits`'s database, built once and kept across runs as the session's
    databases are (tests/conftest.py ``_built_once``: under the digest of the package,
    schema, seeds and shared data; its name carries the digest of this build's source).
    The report's collection audits are not what this module checks: the claims are, and
    each report computes its claim."""
    src = inspect.getsource(_report_audits).encode()
    name = f"robust03-reported-{hashlib.sha256(src).hexdigest()[:12]}.duckdb"
    return _built_once(tmp_path_factory, name, functools.partial(_report_audits, robust03_db_file))


@pytest.fixture
def rcli(cli, reported_db_file, tmp_path):
    db = tmp_path / "copy.duckdb"
    shutil.copy(reported_db_file, db)
    return lambda *a: cli(*a, db=db)


@pytest.mark.slow
def test_report_and_audit_claim_agree_on_printed_digits(rcli, shared_data, tmp_path):
    # pircRBa1's AP is 0.310052 (official 0.3101): a claim printed 0.3100 is not
    # reproduced (4 digits), one printed 0.31 is (2 digits); a float would lose the zeros
    run = _run_file(shared_data, "pircRBa1")
    # (a claim printed with 2 digits is reproduced when the run rounds to it: the checks
    # of its digits and rounding, once in test_claim_evidence.py, are made here on the
    # same claim)
    for printed, verdict, digits, rounded in (
        ("0.3100", False, 4, "0.3101"),
        ("0.31", True, 2, "0.31"),
    ):
        res = rcli(
            "audit", "claim", "-c", "robust03", "-m", "AP", "--value", printed,
            "--run", run, "--json",
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        out = json.loads(res.output)["result"]
        assert out["evidence"]["run"]["reproduces"] is verdict
        assert (out["evidence"]["run"]["digits"], out["evidence"]["run"]["rounded"]) == (
            digits,
            rounded,
        )
        assert out["value_text"] == printed
        target = tmp_path / f"report-{printed}.json"
        res = rcli(
            "report", "-c", "robust03", "-m", "AP", "--claim", printed, "--run", run,
            "-o", target,
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        rep = json.loads(target.read_text())
        (claim,) = rep["claims"]
        assert claim["evidence"]["run"]["reproduces"] is verdict
        assert claim["evidence"]["run"]["claimed_text"] == printed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--baseline", "45"), "baseline AP 45 is not a fraction; did you mean 0.45?"),
        (("--baseline", "0.25", "--claim", "37"), "claimed AP 37 is not a fraction"),
        (("--baseline", "abc"), "--baseline: 'abc' is not a number"),
    ],
)
def test_baseline_percentages_are_refused_like_claims(cli, seeded_db_file, args, message):
    # --no-save opens the store read-only: the session's file itself, no copy
    res = cli(
        "audit", "baselines", "-c", "robust04", "-m", "AP", *args, "--no-save", db=seeded_db_file
    )
    assert res.exit_code == 1
    assert message in res.output


def test_report_claim_as_text_is_checked_before_any_audit(cli, seeded_db_file, tmp_path):
    db = tmp_path / "copy.duckdb"
    shutil.copy(seeded_db_file, db)
    out = Path(tmp_path / "r.md")
    res = cli("report", "-c", "robust04", "-m", "AP", "--claim", "37.2", "-o", out, db=db)
    assert res.exit_code == 1 and "did you mean 0.372?" in res.output
    res = cli("report", "-c", "robust04", "-m", "AP", "--claim", "nan", "-o", out, db=db)
    assert res.exit_code == 1 and "--claim: nan is not a finite number" in res.output
    assert not out.exists()
