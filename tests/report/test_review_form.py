"""A paper's claims in one report and a text form to paste in a review (issue 32, item
2): `report --claims FILE` (CSV or JSON, one claim a line) writes one document with a
verdict per claim; `--format text` has no anchors, no escapes and lines of at most 100
characters; the HTML of several claims keeps every id unique (checked in Chromium)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.kept_browser import browse
from tests.report.test_report import COLLECTION, lit_folder


@pytest.fixture(scope="module")
def lit_db_file(tmp_path_factory) -> Path:
    """The fixture database without runs, with its literature audits (read-only; kept
    across runs: tests/report/test_report.py ``lit_folder``)."""
    return lit_folder(tmp_path_factory) / "lit.duckdb"


@pytest.fixture
def lit_db(lit_db_file, tmp_path) -> Path:
    import shutil

    path = tmp_path / "lit.duckdb"
    shutil.copy(lit_db_file, path)
    return path


def _claims_csv(folder: Path) -> Path:
    path = folder / "claims.csv"
    path.write_text(
        "collection,measure,value,baseline,baseline_system,run,against\n"
        f"{COLLECTION},AP,0.36,,,,\n"
        f"{COLLECTION},MAP,0.2900,,,,\n"
    )
    return path


def _assert_review_text(text: str) -> None:
    long = [x for x in text.splitlines() if len(x) > 100]
    assert long == []
    assert "<a id" not in text and "](<" not in text and "\\[" not in text and "&lt;" not in text


def test_text_format_is_a_review_form(cli, lit_db):
    res = cli("report", "-c", COLLECTION, "-m", "AP", "--claim", "0.36", "-f", "text", db=lit_db)
    assert res.exit_code == 0, res.output
    text = res.stdout
    _assert_review_text(text)
    lines = text.splitlines()
    # the verdict first, its lines as `audit claim` prints them
    assert lines[3] == "Verdict: AP = 0.36 on trec7"
    assert lines[6].startswith("- Above the record? Yes: 0.36 is 0.0590 above the record 0.3010")
    assert "[0.2942, 0.3600]" in text  # no Markdown escapes
    assert "plot(s) left out of the text form" in text


def test_claims_file_gives_one_document_with_a_verdict_per_claim(cli, lit_db, tmp_path):
    claims = _claims_csv(tmp_path)
    out = tmp_path / "review.txt"
    res = cli("report", "--claims", claims, "-o", out, db=lit_db)
    assert res.exit_code == 0, res.output
    text = out.read_text()
    _assert_review_text(text)
    heads = [x for x in text.splitlines() if re.match(r"^Claim \d+: ", x)]
    assert heads[:2] == ["Claim 1: trec7 AP = 0.36", "Claim 2: trec7 AP = 0.2900"]
    # both verdicts before either report; each report follows
    assert text.index("Claim 2: trec7 AP = 0.2900") < text.index("Claim 1: Audit report")
    assert text.count("Above the record?") == 2
    assert "0.2900 is 0.0110 below the record 0.3010" in text  # digits as printed


@pytest.mark.slow
def test_claims_file_in_json_and_markdown(cli, lit_db, tmp_path):
    claims = tmp_path / "claims.json"
    claims.write_text(
        '[{"collection": "trec7", "measure": "AP", "value": 0.3600},\n'
        ' {"collection": "trec7", "measure": "AP", "value": "0.29"}]\n'
    )
    res = cli("report", "--claims", claims, "-f", "json", db=lit_db)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert [r["claims"][0]["value_text"] for r in doc["claims"]] == ["0.3600", "0.29"]
    md = tmp_path / "review.md"
    res = cli("report", "--claims", claims, "-o", md, db=lit_db)
    assert res.exit_code == 0, res.output
    text = md.read_text()
    ids = re.findall(r'<a id="([a-z0-9-]+)"></a>', text)
    assert len(ids) == len(set(ids))  # every anchor its own
    for target in re.findall(r"\(<#([a-z0-9-]+)>\)", text):
        assert target in ids, target
    # each claim's plots under its own names
    plots = sorted(p.name for p in tmp_path.glob("review.*.svg"))
    assert plots and any(".c1-" in p for p in plots) and any(".c2-" in p for p in plots)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("collection,measure,valeu\ntrec7,AP,0.36\n", 2, "unknown column 'valeu'; did you mean 'value'?"),
        ("collection,measure,value\ntrec7,,0.36\n", 2, "measure is missing"),
        ("collection,measure,value\ntrec7,AP,0.36\nnowhere,AP,0.3\n", 3, "nowhere AP = 0.3: unknown collection"),
        ("collection,measure,value\ntrec7,AP,36\n", 2, "trec7 AP = 36: claimed AP 36 is not a fraction"),
    ],
)  # fmt: skip
def test_a_bad_claim_names_its_file_and_line(cli, lit_db, tmp_path, text, line, message):
    claims = tmp_path / "claims.csv"
    claims.write_text(text)
    out = tmp_path / "r.md"
    res = cli("report", "--claims", claims, "-o", out, db=lit_db)
    assert res.exit_code == 1
    assert f"{claims}:{line}: " in res.output and message in res.output
    assert not out.exists()


def test_claims_and_a_single_claim_are_not_mixed(cli, lit_db, tmp_path):
    res = cli("report", "--claims", _claims_csv(tmp_path), "-c", COLLECTION, db=lit_db)
    assert res.exit_code == 1 and "--claims takes every claim from its file" in res.output
    res = cli("report", db=lit_db)
    assert res.exit_code == 1 and "give the collection" in res.output


@pytest.mark.slow(reason="a headless Chromium (make test-fast needs none)")
def test_claims_html_renders_with_unique_ids_in_chromium(
    cli, lit_db, tmp_path, pytestconfig, monkeypatch
):
    """The report is written on every run; Chromium's DOM of it is kept across runs while
    the page (its folder, written alone) is unchanged (tests/kept_browser.py). The claims
    file is named relative to tmp_path, so the page (which names it) is the same from run
    to run, not one per temp folder."""
    out = tmp_path / "html" / "review.html"
    out.parent.mkdir()
    monkeypatch.chdir(tmp_path)
    res = cli("report", "--claims", _claims_csv(Path(".")), "-o", out, db=lit_db)
    assert res.exit_code == 0, res.output
    res = browse(pytestconfig, out, "--window-size=1280,2000", "--dump-dom")
    assert res.returncode == 0, res.stderr[-2000:]
    dom = res.stdout
    ids = re.findall(r' id="([^"]+)"', dom)
    assert len(ids) == len(set(ids))
    assert dom.count('<ul class="verdict">') == 2
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", dom))
    for words in ("Claim 1: trec7 AP = 0.36", "Claim 2: trec7 AP = 0.2900", "Above the record?"):
        assert words in text, words
