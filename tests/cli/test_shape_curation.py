"""The curation write commands in the one shape (issue 37 item 1): each request's
``.checked()`` refuses bad input before the store opens (a --db path that does not exist
stays absent, and the error is the option's, not "no database"), and the typed answers
of `papers show`, `results add` and `results verify` hold what the commands print."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from litaudit.curation.paper_requests import (
    PaperAdd,
    PaperEdit,
    PapersImport,
    PapersList,
    answer_add,
    paper_details,
)
from litaudit.curation.result_requests import (
    ResultAdd,
    ResultEdit,
    ResultsImport,
    ResultsStatus,
    ResultsTemplate,
    StatusChange,
    answer_status,
)
from litaudit.curation.result_requests import answer_add as add_result
from litaudit.errors import LitauditError

TOOL = "litaudit sync"  # a name the tool records its own changes under: refused as --who
TOOL_ERROR = f"--who: {TOOL!r} is the name litaudit records its own changes under"

# (command line, the one-line error its request's .checked() gives)
REFUSED = (
    (["papers", "add", "k2024", "--who", TOOL], TOOL_ERROR),
    (["papers", "add", " "], "a paper needs a bibkey"),
    (["papers", "add", "k2024", "--title", "a\x07b"], "title: "),
    (["papers", "list", "--year", "20x"], "--years: expected YEAR or FROM-TO"),
    (["papers", "edit", "k", "--set", "title", "--reason", "x"], "--set 'title': expected"),
    (["papers", "edit", "k", "--set", "title=x", "--reason", " "], "an edit needs a reason"),
    (["papers", "import", "p.bib", "--who", ""], "--who: is empty"),
    (["results", "add", "-c", "robust04", "-m", "AP", "--value", "0.3", "--system", "x",
      "--role", "proposed", "--paper", "k", "--who", TOOL], TOOL_ERROR),
    (["results", "import", "r.csv", "--on-existing", "bogus"],
     "--on-existing: 'bogus' is not one of fail, skip, update"),
    (["results", "import", "r.csv", "--consistency", "Bogus"],
     "--consistency: 'bogus' is not one of flag, refuse, off"),
    (["results", "import", "r.csv", "--who", " "], "--who: is empty"),
    (["results", "edit", "1", "--set", "value", "--reason", "x"], "--set 'value': expected"),
    (["results", "edit", "1", "--set", "value=0.3", "--reason", ""], "an edit needs a reason"),
    (["results", "edit", "1", "--set", "value=0.3", "--reason", "a\x07"], "--reason: "),
    (["results", "verify", "1", "--who", TOOL], TOOL_ERROR),
    (["results", "retract", "1", "--reason", " "], "retracting needs a reason (--reason)"),
    (["results", "reinstate", "1", "--reason", ""], "reinstating needs a reason (--reason)"),
)  # fmt: skip


@pytest.mark.parametrize("args,error", REFUSED, ids=[" ".join(a[:2]) for a, _ in REFUSED])
def test_bad_options_are_refused_before_the_store_opens(cli, tmp_path, args, error):
    db = tmp_path / "absent.duckdb"
    r = cli(*args, db=db)
    assert r.exit_code == 1
    assert r.stderr.startswith(f"Error: {error}"), r.stderr
    assert len(r.stderr.splitlines()) == 1
    assert not db.exists()


def test_template_refuses_an_output_in_no_folder_before_writing(cli, tmp_path):
    target = tmp_path / "no" / "x.csv"
    r = cli("results", "template", str(target), db=tmp_path / "absent.duckdb")
    assert r.exit_code == 1
    assert r.stderr == f"Error: {target}: directory {target.parent} does not exist\n"
    assert not (tmp_path / "no").exists() and not (tmp_path / "absent.duckdb").exists()


def test_papers_import_reads_the_file_before_the_store_opens(cli, tmp_path):
    db = tmp_path / "absent.duckdb"
    for target, why in (
        (tmp_path / "missing.bib", "no such file"),
        (tmp_path, "is a directory, not a BibTeX file"),
        (tmp_path / "missing.csv", "no such file"),
    ):
        r = cli("papers", "import", str(target), db=db)
        assert (r.exit_code, r.stderr) == (1, f"Error: {target}: {why}\n")
    bib = tmp_path / "p.bib"
    bib.write_text("@article{k2020,\n title={T},\n author={A, B},\n year={2020}\n}\n")
    req = PapersImport(file=bib, who="a").checked()
    assert req.read is not None and [r["bibkey"] for r in req.read[0]] == ["k2020"]
    assert req.read[1] == () and not db.exists()


def test_checked_requests_name_the_curator_and_read_the_modes(monkeypatch):
    monkeypatch.setenv("LITAUDIT_USER", "erin")
    req = ResultsImport(files=(Path("r.csv"),), on_existing=" Skip ", consistency="OFF")
    got = req.checked()
    assert (got.on_existing, got.consistency, got.who) == ("skip", "off", "erin")
    assert ResultsStatus(result_ids=("1",), status="verified").checked().who == "erin"
    edit = ResultEdit(
        result_id="1", assignments=("value=0.3", "location=T=4", "value=0.4"), reason="r"
    )
    assert edit.checked() == dataclasses.replace(
        edit, who="erin", changes=(("value", "0.4"), ("location", "T=4"))
    )
    assert PaperEdit(key="k", assignments=("title=A",), reason="r").checked().changes == (
        ("title", "A"),
    )
    assert PapersList(year="2005-2010").checked() == PapersList(year="2005-2010")
    assert ResultsTemplate().checked() == ResultsTemplate(output="-")


def test_an_edit_without_a_reason_is_refused_by_checked():
    with pytest.raises(LitauditError, match="an edit needs a reason"):
        ResultEdit(result_id="1", assignments=("value=0.3",)).checked()
    with pytest.raises(LitauditError, match="is not one of verified, retracted, draft"):
        ResultsStatus(result_ids=("1",), status="deleted").checked()


def test_result_add_row_is_the_import_format():
    row = ResultAdd(
        collection="robust04",
        measure="AP",
        value="0.2531",
        system="s",
        role="official",
        track="trec7/adhoc",
        n_topics=50,
        nonstandard=True,
    ).row()
    assert row["source"] == "official" and row["standard"] == "false"
    assert row["n_topics"] == "50" and row["paper"] == "" and row["value"] == "0.2531"
    paper = ResultAdd(
        collection="robust04", measure="AP", value="0.3", system="s", role="proposed",
        paper="k", track="trec7/adhoc",
    ).row()  # fmt: skip
    assert paper["source"] == "paper" and paper["standard"] == "true"


def test_paper_details_and_status_changes_heard_one_by_one_up_to_a_failure(mem_store):
    store = mem_store
    added = answer_add(
        store, PaperAdd(bibkey="doe2024x", authors="Doe, Jane", venue="ECIR", year=2024, who="a")
    )
    details = paper_details(store.con, "doe2024x")
    assert details.paper.id == added.id and details.paper.citation == "Doe (ECIR 2024)"
    assert details.results == ()
    assert [(h.action, h.who) for h in details.history] == [("create", "a")]
    assert paper_details(store.con, str(added.id)) == details
    ids = [
        add_result(
            store,
            ResultAdd(
                collection="robust04", measure="AP", value=v, system=s, role="proposed",
                paper="doe2024x", who="a",
            ),
        ).id
        for v, s in (("0.25", "x"), ("0.26", "y"))
    ]  # fmt: skip
    assert sorted(r.id for r in paper_details(store.con, "doe2024x").results) == ids
    same = ResultAdd(
        collection="robust04", measure="AP", value="0.25", system="x", role="proposed",
        paper="doe2024x", who="a",
    )  # fmt: skip
    with pytest.raises(LitauditError, match=f"result #{ids[0]} is already stored with these"):
        add_result(store, same)  # was an IndexError (a traceback)
    retract = ResultsStatus(result_ids=(str(ids[1]),), status="retracted", reason="dup", who="a")
    answer_status(store, retract)
    heard: list[StatusChange] = []
    verify = ResultsStatus(result_ids=tuple(map(str, ids)), status="verified", who="a")
    with pytest.raises(LitauditError, match=f"result #{ids[1]} is retracted"):
        answer_status(store, verify, done=heard.append)
    assert [(c.result_id, c.changed) for c in heard] == [(ids[0], True)]
    again = answer_status(store, dataclasses.replace(verify, result_ids=(str(ids[0]),)))
    assert [(c.result_id, c.status, c.changed) for c in again] == [(ids[0], "verified", False)]
