"""`report`, `site`, `reuse design` and `reuse holdout` in the one shape (issue 37 item 1):
each request's ``checked()`` refuses bad input before the store opens (a database that
does not exist is neither created nor named in the error), and the answer is typed."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from litaudit.analyses.agreement.design_request import (
    DesignRequest,
    HoldoutRequest,
    answer_design,
    answer_holdout,
    site_names,
)
from litaudit.analyses.report_request import ReportRequest
from litaudit.analyses.site_request import SiteRequest
from litaudit.errors import InputError, LitauditError, ParameterError, ValidationFailed
from litaudit.files import OutputError
from litaudit.stats.design import design, design_table, partial_design


def _claims(tmp_path: Path, text: str, name: str = "claims.csv") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# ------------------------------------------------------------------ report


@pytest.mark.parametrize(
    ("fmt", "output", "want"),
    [
        (None, None, "md"),
        (None, "-", "md"),
        (None, "r.HTML", "html"),
        (None, "r.htm", "html"),
        (None, "r.txt", "text"),
        (None, "r.json", "json"),
        (None, "r.markdown", "md"),
        (None, "r.pdf", "md"),
        ("Markdown", "r.html", "md"),
        (".txt", None, "text"),
        (" JSON ", None, "json"),
    ],
)
def test_report_format_from_the_option_else_the_suffix(tmp_path, fmt, output, want):
    out = None if output is None else (output if output == "-" else str(tmp_path / output))
    req = ReportRequest(collection="trec7", fmt=fmt, output=out).checked()
    assert req.fmt == want
    assert (req.target is None) == (output in (None, "-"))


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({}, "give the collection (-c COLLECTION) or a claims file"),
        ({"collection": "trec7", "fmt": "pdf"}, "--format: 'pdf' is not one of"),
        ({"collection": "trec7", "claim": "abc"}, "--claim: 'abc' is not a number"),
    ],
)
def test_report_request_refuses_bad_options(kw, message):
    with pytest.raises(LitauditError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ReportRequest(**kw).checked()


@pytest.mark.parametrize(
    "given",
    [
        {"collection": "trec7"},
        {"measure": "AP"},
        {"claim": "0.3"},
        {"run": "r.txt"},
        {"against": ("a",)},
        {"baseline": "0.2"},
        {"baseline_system": "BM25"},
    ],
)
def test_report_claims_file_takes_every_claim_from_it(tmp_path, given):
    claims = _claims(tmp_path, "collection,measure,value\ntrec7,AP,0.36\n")
    with pytest.raises(LitauditError, match="--claims takes every claim from its file"):
        ReportRequest(claims=claims, **given).checked()


def test_report_request_reads_the_claims_file_whole(tmp_path):
    claims = _claims(tmp_path, "collection,measure,value\ntrec7,AP,0.3600\nrobust04,MAP,0.29\n")
    req = ReportRequest(claims=claims).checked()
    assert [(c.line, c.collection, c.measure, c.value) for c in req.lines] == [
        (2, "trec7", "AP", "0.3600"),
        (3, "robust04", "MAP", "0.29"),
    ]
    assert req.fmt == "md" and req.target is None


def test_report_request_names_the_bad_claims_line(tmp_path):
    claims = _claims(tmp_path, "collection,measure,value\ntrec7,,0.36\n")
    with pytest.raises(ValidationFailed) as exc:
        ReportRequest(claims=claims).checked()
    assert f"{claims}:2" in str(exc.value) and "measure is missing" in str(exc.value)
    with pytest.raises(InputError, match="no such claims file"):
        ReportRequest(claims=tmp_path / "none.csv").checked()


def test_report_request_refuses_an_output_it_cannot_write(tmp_path):
    db = tmp_path / "x.duckdb"
    db.write_bytes(b"")
    with pytest.raises(OutputError, match="refusing to overwrite the open database"):
        ReportRequest(collection="trec7", output=str(db), database=db).checked()
    with pytest.raises(OutputError, match="is a directory"):
        ReportRequest(collection="trec7", output=str(tmp_path)).checked()
    with pytest.raises(OutputError, match="does not exist"):
        ReportRequest(collection="trec7", output=str(tmp_path / "no" / "r.md")).checked()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("report", "-c", "trec7", "-f", "docx"), "--format: 'docx'"),
        (("report", "-c", "trec7", "-m", "AP", "--claim", "x"), "--claim: 'x' is not a number"),
        (("report", "-c", "trec7", "-o", "{tmp}/no/r.md"), "does not exist"),
        (("report", "--claims", "{tmp}/claims.csv"), "measure is missing"),
        (("report", "--claims", "{tmp}/claims.csv", "-m", "AP"), "--claims takes every"),
        (("site", "{tmp}/claims.csv"), "is not a directory"),
        (("site", "{tmp}/no/site"), "does not exist"),
        (("reuse", "holdout", "--sites", "3", "-o", "{tmp}/h.csv"), "--topics N or --topic-file"),
        (("reuse", "holdout", "-N", "6", "-o", "{tmp}/h.csv"), "give --sites M"),
        (("reuse", "holdout", "--sites", "3", "-N", "6", "-o", "{tmp}"), "is a directory"),
    ],
)
def test_a_bad_option_is_refused_before_the_store_opens(cli, tmp_path, args, message):
    _claims(tmp_path, "collection,measure,value\ntrec7,,0.36\n")
    db = tmp_path / "none.duckdb"
    res = cli(*(a.replace("{tmp}", str(tmp_path)) for a in args), db=db)
    assert res.exit_code == 1
    assert message in res.output and "no database" not in res.output
    assert not db.exists() and not Path(f"{db}.wal").exists()
    assert not (tmp_path / "h.csv").exists()


def test_a_good_request_without_a_database_says_where_it_looked(cli, tmp_path):
    db = tmp_path / "none.duckdb"
    for args in (("report", "-c", "trec7"), ("site", tmp_path / "site")):
        res = cli(*args, db=db)
        assert res.exit_code == 1 and "no database at" in res.output
        assert not db.exists() and not (tmp_path / "site").exists()


# ------------------------------------------------------------------ site


def test_site_request_refuses_a_folder_that_is_not_a_site(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine\n")
    with pytest.raises(LitauditError, match="not empty and not a site written by litaudit"):
        SiteRequest(directory=other).checked()
    with pytest.raises(LitauditError, match="is not a directory"):
        SiteRequest(directory=other / "notes.txt").checked()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert SiteRequest(directory=empty).checked().directory == empty
    assert SiteRequest(directory=tmp_path / "new").checked().directory == tmp_path / "new"
    assert not (tmp_path / "new").exists()  # checking creates nothing


# ------------------------------------------------------------------ reuse design


def test_design_answer_is_the_papers_design():
    # Carterette et al. 2010, Section 4.3: m=9 sites, N=564 topics, n0=200, k=2
    done = answer_design(DesignRequest(sites=9, topics=564, baseline_min=200, held_out=2))
    assert done.partial is None and done.chosen == design(9, 564, 200, 2)
    assert done.chosen.subsets == 10 and done.chosen.baseline == 204
    assert done.table == design_table(9, 564, 200)
    table_only = answer_design(DesignRequest(sites=9, topics=564, baseline_min=200))
    assert table_only.chosen is None and table_only.table == done.table
    part = answer_design(
        DesignRequest(sites=14, topics=249, baseline_min=0, held_out=2, partial=True)
    )
    assert part.partial == partial_design(14, 249, 0, 2) and part.table == ()


def test_design_request_partial_needs_held_out(cli, tmp_path):
    with pytest.raises(ParameterError, match="--partial needs --held-out K"):
        DesignRequest(sites=14, topics=249, baseline_min=0, partial=True).checked()
    res = cli("reuse", "design", "--sites", "14", "-N", "249", "--baseline-min", "0", "--partial")
    assert res.exit_code == 1 and "--partial needs --held-out K" in res.output


# ------------------------------------------------------------------ reuse holdout


def test_holdout_site_names():
    assert site_names(3, None) == ["S1", "S2", "S3"]
    assert site_names(10, None)[:2] == ["S01", "S02"] and site_names(10, None)[-1] == "S10"
    assert site_names(None, " A, B ,,C") == ["A", "B", "C"]
    assert site_names(3, "A,B,C") == ["A", "B", "C"]
    with pytest.raises(ParameterError, match="--sites 4 but --site-names lists 3 sites"):
        site_names(4, "A,B,C")


def test_holdout_request_checks_and_reads_its_topics(tmp_path):
    db = tmp_path / "x.duckdb"
    db.write_bytes(b"")
    with pytest.raises(OutputError, match="refusing to overwrite the open database"):
        HoldoutRequest(output=db, sites=3, topics=6, held_out=1, database=db).checked()
    topics = tmp_path / "topics.txt"
    topics.write_text("401\n\n402\n401\n")
    with pytest.raises(InputError, match="topic '401' appears twice"):
        HoldoutRequest(output=Path("-"), sites=3, topic_file=topics, held_out=1).checked()
    topics.write_text("401\n402\n403\n")
    req = HoldoutRequest(output=Path("-"), site_names="P,Q,R", topic_file=topics, held_out=1)
    req = req.checked()
    assert req.to_stdout and req.names == ("P", "Q", "R")
    assert req.topic_ids == ("401", "402", "403")


def test_holdout_answer_is_table_1s_round_robin_as_csv():
    # m = 3 sites, k = 1: each topic holds out one site, round robin (Table 1)
    req = HoldoutRequest(output=Path("-"), sites=3, topics=6, held_out=1).checked()
    plan = answer_holdout(req)
    rows = list(csv.reader(io.StringIO(plan.text)))
    assert rows[0] == ["topic", "held_out_site"] and len(rows) - 1 == plan.rows == 6
    assert plan.design == design(3, 6, 0, 1) and plan.topic_order == "as given"
    assert sorted(r[1] for r in rows[1:]) == ["S1", "S1", "S2", "S2", "S3", "S3"]
    shuffled = answer_holdout(
        HoldoutRequest(output=Path("-"), sites=3, topics=6, held_out=1, seed=5).checked()
    )
    assert shuffled.topic_order == "shuffled" and shuffled.rows == 6


def test_holdout_writes_nothing_on_a_bad_design(cli, tmp_path):
    out = tmp_path / "h.csv"
    res = cli(
        "reuse",
        "holdout",
        "--sites",
        "9",
        "-N",
        "30",
        "--baseline-min",
        "20",
        "--held-out",
        "2",
        "-o",
        out,
    )
    assert res.exit_code == 1 and "needs at least n0 + C(9,2)" in res.output
    assert not out.exists()
    res = cli("reuse", "holdout", "--sites", "3", "-N", "6", "--held-out", "1", "-o", out, "--json")
    assert res.exit_code == 0, res.output
    assert out.read_text().splitlines()[0] == "topic,held_out_site"
    assert '"rows": 6' in res.output


# ------------------------------------------------------------------ under a drawn bar


@pytest.mark.slow
def test_output_goes_to_stdout_under_a_drawn_bar(cli, small_seeded_db_file, tmp_path, monkeypatch):
    """With bars drawn (stderr a terminal), the report and the site's summary still go to
    standard output and stderr gets only the bars and the notes of the audits run (so
    `report > r.md` in a terminal gets the report)."""
    import shutil

    from rich.console import Console

    import litaudit.render.console as console

    db = tmp_path / "small.duckdb"
    shutil.copy(small_seeded_db_file, db)
    buf = io.StringIO()
    term = Console(file=buf, force_terminal=True, width=120, color_system=None)
    monkeypatch.setattr(console, "err", term)
    res = cli("report", "-c", "trec7", "-m", "AP", "-f", "text", db=db)
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("Audit report: ") and "Conclusions" in res.stdout
    drawn = buf.getvalue()
    assert "ran the 'best' audit of disks45/nocr/trec7 / AP" in drawn
    assert "Conclusions" not in drawn
    res = cli("site", tmp_path / "site", db=db)
    assert res.exit_code == 0, res.output
    assert f"{tmp_path / 'site'}: " in res.stdout and "pages (" in res.stdout
    assert "pages (" not in buf.getvalue()


@pytest.mark.slow
def test_report_answer_is_typed_and_its_document_is_what_the_command_prints(
    cli, small_seeded_store, tmp_path
):
    from litaudit.analyses.report_audits import ReportAudits
    from litaudit.analyses.report_request import ReportAnswer, answer_report
    from litaudit.render.report.output import report_document
    from litaudit.store.db import open_store

    con = small_seeded_store.con
    req = ReportRequest(collection="trec7", measure="AP", claim="0.36", fmt="text").checked()
    notes: list[str] = []
    done = answer_report(con, req, note=notes.append)
    assert isinstance(done, ReportAnswer) and len(done.audits) == 1
    [one] = done.audits
    assert isinstance(one, ReportAudits) and one.measures == ("AP",) and one.claim_value == 0.36
    assert notes[0] == "ran the 'best' audit of disks45/nocr/trec7 / AP"
    doc = report_document(con, done)
    assert doc.plots == {} and doc.text.startswith("Audit report: ")
    small_seeded_store.close()
    res = cli("report", "-c", "trec7", "-m", "AP", "--claim", "0.36", "-f", "text",
              db=tmp_path / "small-seeded.duckdb")  # fmt: skip
    assert res.exit_code == 0, res.output
    assert res.stdout == doc.text  # the audits reused: the same bytes

    claims = _claims(tmp_path, "collection,measure,value\ntrec7,AP,0.36\ntrec7,AP,0.2900\n")
    req = ReportRequest(claims=claims, fmt="md", output=str(tmp_path / "r.md")).checked()
    with open_store(tmp_path / "small-seeded.duckdb") as store:
        done = answer_report(store.con, req)
        doc = report_document(store.con, done)
    assert len(done.audits) == 2 and [a.claim_value for a in done.audits] == [0.36, 0.29]
    assert "Claim 2: " in doc.text and doc.plots
    assert all(Path(p).parent == tmp_path and (".c1-" in p or ".c2-" in p) for p in doc.plots)
