"""Issue 12: arbitrary input never gives a traceback or a partial write (hypothesis), the
curation round trip through the CLI alone, and stored text escaped in every output."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litaudit.errors import LitauditError
from tests.conftest import copy_db, examples, unwritten
from tests.typed import some

SETTINGS = settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# text that looks a little like each format, so that the readers get past the first byte
CSV_HEAD = "source,track,collection,measure,value,system,role,transcribed_by,transcribed_at\n"
fragments = st.sampled_from(
    [
        "official",
        "trec7/adhoc",
        "trec7",
        "AP",
        "0.30",
        ",",
        "\n",
        '"',
        "\x00",
        "\x1b[31m",
        "٣",
        "1e400",
        "{",
        "}",
        "[",
        "]",
        ":",
        "2024-05-01",
        "@article{",
        "title = {",
        "\\'{e}",
        "=",
    ]
)
texty = st.lists(st.one_of(fragments, st.text(max_size=8)), max_size=30).map("".join)
blobs = st.one_of(
    st.binary(max_size=300),
    texty.map(lambda t: t.encode("utf-8")),
    texty.map(lambda t: t.encode("utf-16")),
)


def _counts(con) -> tuple:
    return tuple(
        con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
        for t in ("results", "papers", "history", "measures", "audits")
    )


@pytest.mark.parametrize(
    "suffix,prefix",
    [
        (".csv", CSV_HEAD.encode()),
        (".tsv", b""),
        (".json", b""),
        (".json", b'[{"source": '),
        (".parquet", b"PAR1"),
    ],
)
def test_results_importer_never_crashes_and_never_writes_half(mem_store, tmp_path, suffix, prefix):
    from litaudit.curation.importer import import_files

    before = _counts(mem_store.con)

    @SETTINGS
    @given(data=blobs)
    def run(data):
        path = tmp_path / f"x{suffix}"
        path.write_bytes(prefix + data)
        try:
            import_files(mem_store, [path], who="t", dry_run=True)
        except LitauditError as exc:
            assert (
                str(exc)
                and "\n" not in str(exc).strip()
                or exc.__class__.__name__ == "ValidationFailed"
            )
        assert _counts(mem_store.con) == before

    run()


@pytest.mark.slow
def test_a_failed_real_import_writes_nothing(mem_store, tmp_path):
    """Not a dry run: whatever arbitrary bytes do, a failure leaves the store as it was."""
    from litaudit.curation.importer import import_files

    before = _counts(mem_store.con)
    good = tmp_path / "good.csv"
    good.write_text(CSV_HEAD + "official,trec7/adhoc,trec7,AP,0.30,r1,official,t,2024-05-01\n")

    @SETTINGS
    @given(data=blobs)
    def run(data):
        bad = tmp_path / "bad.csv"
        bad.write_bytes(CSV_HEAD.encode() + data + b"\nofficial,,,,x,,,,\n")
        with pytest.raises(LitauditError):
            import_files(mem_store, [good, bad], who="t")
        assert _counts(mem_store.con) == before

    run()


def test_bibtex_and_papers_csv_never_crash(mem_store, tmp_path, capfd):
    from litaudit.curation.papers import import_bibtex

    before = _counts(mem_store.con)

    @SETTINGS
    @given(data=blobs, suffix=st.sampled_from([".bib", ".csv"]))
    def run(data, suffix):
        path = tmp_path / f"p{suffix}"
        path.write_bytes(data)
        try:
            import_bibtex(mem_store, path, who="t", dry_run=True)
        except LitauditError:
            pass
        assert _counts(mem_store.con) == before

    run()
    assert capfd.readouterr().err == ""  # no stray parser log lines


@SETTINGS
@given(data=blobs, gz=st.booleans())
def test_run_and_qrels_readers_never_crash(tmp_path_factory, data, gz):
    import gzip

    from litaudit.runs.trec_io import read_qrels_table, read_run_table

    d = tmp_path_factory.mktemp("runs")
    path = d / ("x.gz" if gz else "x.txt")
    path.write_bytes(gzip.compress(data) if gz else data)
    for reader in (read_run_table, read_qrels_table):
        try:
            reader(path)
        except LitauditError:
            pass


# ------------------------------------------------------------------ the curation round trip


@pytest.mark.slow
def test_curation_round_trip_through_the_cli(cli, tmp_path):
    """init, curate (papers with notes, with and without results; edits, verification,
    retraction), export to JSON, `init --no-seeds` a new database, import: the second
    export is the first, byte for byte; re-importing into a seeded database skips or
    updates instead of failing."""
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    rows = tmp_path / "rows.csv"
    rows.write_text(
        "source,paper,paper_title,paper_authors,paper_year,paper_venue,track,collection,"
        "measure,value,system,role,location,notes,transcribed_by,transcribed_at\n"
        'paper,roe2021,A Study,"Roe, R and Poe, P",2021,SIGIR,,robust04,MAP,0.30,best,'
        'proposed,Table 3,"quoted, ""note""",carol,2024-05-01\n'
        "paper,roe2021,,,,,,robust04,P@10,0.4520,best,proposed,Table 3,,carol,2024-05-01\n"
        "official,,,,,,trec7/adhoc,trec7,AP,0.3033,ok7ax,official,,,bob,2024-05-01\n"
    )
    assert cli("init", "--no-seeds", db=a).exit_code == 0
    assert cli("results", "import", rows, db=a).exit_code == 0
    assert (
        cli(
            "papers",
            "add",
            "lone2022",
            "--authors",
            "Lone, L",
            "--year",
            "2022",
            "--title",
            "No results",
            db=a,
        ).exit_code
        == 0
    )
    assert (
        cli(
            "papers", "edit", "lone2022", "--set", "notes=to read", "--reason", "queue", db=a
        ).exit_code
        == 0
    )
    ids = {
        r["system"] + r["measure"]: r["id"]
        for r in json.loads(cli("results", "list", "--json", db=a).stdout)
    }
    assert cli("results", "verify", str(ids["bestAP"]), db=a).exit_code == 0
    r = cli(
        "results",
        "edit",
        str(ids["bestAP"]),
        "--set",
        "value=0.300",
        "--reason",
        "re-read",
        "--who",
        "dave",
        db=a,
    )
    assert r.exit_code == 0 and "status: verified -> draft" in r.stdout
    assert (
        cli("results", "retract", str(ids["ok7axAP"]), "--reason", "wrong run", db=a).exit_code == 0
    )
    first = tmp_path / "first.json"
    assert cli("results", "export", first, db=a).exit_code == 0
    bundle = json.loads(first.read_text())
    assert {p["bibkey"] for p in bundle["papers"]} == {"roe2021", "lone2022"}
    assert [h["action"] for h in bundle["history"] if h["entity"] == "result"].count("edit") == 2
    assert cli("init", "--no-seeds", db=b).exit_code == 0
    res = cli("results", "import", first, db=b)
    assert res.exit_code == 0, res.stderr
    second = tmp_path / "second.json"
    assert cli("results", "export", second, db=b).exit_code == 0
    assert second.read_bytes() == first.read_bytes()
    got = {
        r["system"] + r["measure"]: r
        for r in json.loads(cli("results", "list", "--json", db=b).stdout)
    }
    assert got["bestAP"]["value_text"] == "0.300" and got["bestAP"]["status"] == "draft"
    assert got["ok7axAP"]["status"] == "retracted"
    assert got["bestAP"]["notes"] == 'quoted, "note"'
    hist = json.loads(cli("results", "history", str(got["bestAP"]["id"]), "--json", db=b).stdout)
    assert [(h["action"], h["field"], h["who"]) for h in hist] == [
        ("import", None, hist[0]["who"]),
        ("verify", "status", hist[1]["who"]),
        ("edit", "value", "dave"),
        ("edit", "status", "dave"),
    ]
    assert (
        json.loads(cli("papers", "show", "lone2022", "--json", db=b).stdout)["notes"] == "to read"
    )
    # again into the same database: every row is stored so already (unchanged)
    res = cli("results", "import", first, db=b)
    assert res.exit_code == 0 and "left 3 unchanged" in res.stdout
    res = cli("results", "import", first, "--on-existing", "skip", db=b)
    assert res.exit_code == 0 and "skipped 3 already present" in res.stdout
    third = tmp_path / "third.json"
    cli("results", "export", third, db=b)
    assert third.read_bytes() == first.read_bytes()
    # update: a changed value in the file is written, as an edit in the history
    changed = json.loads(first.read_text())
    changed["results"][0]["value"] = "0.3000"
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(changed))
    res = cli("results", "import", edited, "--on-existing", "update", "--who", "erin", db=b)
    assert res.exit_code == 0 and "updated 1 existing" in res.stdout, res.stdout
    rid = [
        r
        for r in json.loads(cli("results", "list", "--json", db=b).stdout)
        if r["value_text"] == "0.3000"
    ][0]["id"]
    last = json.loads(cli("results", "history", str(rid), "--json", db=b).stdout)[-1]
    assert (last["action"], last["field"], last["who"]) == ("edit", "value", "erin")


def test_csv_export_round_trips_into_a_seeded_database(small_seeded_db_file, cli, tmp_path):
    db = tmp_path / "s.duckdb"
    copy_db(small_seeded_db_file, db)  # TREC-7's seed rows whole
    out = tmp_path / "trec7.csv"
    assert cli("results", "export", out, "-c", "trec7", db=db).exit_code == 0
    res = cli("results", "import", out, db=db)
    assert res.exit_code == 0 and "added 0 results and 0 papers, left" in res.stdout
    assert res.stdout.rstrip().endswith("unchanged")
    res = cli("results", "import", out, "--on-existing", "skip", db=db)
    assert res.exit_code == 0 and "added 0 results" in res.stdout


# ------------------------------------------------------------------ digits


def test_json_and_parquet_keep_printed_digits(undone_store, tmp_path):
    from decimal import Decimal

    import pyarrow as pa
    import pyarrow.parquet as pq

    from litaudit.curation.importer import import_files
    from litaudit.curation.results import query_results

    base = {
        "source": "official",
        "track": "trec7/adhoc",
        "collection": "trec7",
        "measure": "AP",
        "role": "official",
        "transcribed_by": "t",
        "transcribed_at": "2024-05-01",
    }
    (tmp_path / "j.json").write_text(
        "["
        + ",".join(
            json.dumps(dict(base, system=f"j{i}"))[:-1] + f', "value": {v}}}'
            for i, v in enumerate(["0.30", "0.2500", "1e-1", "0"])
        )
        + "]"
    )
    n = 3
    table = pa.table(
        {
            **{k: pa.array([v] * n, pa.string()) for k, v in base.items()},
            "system": pa.array(["p0", "p1", "p2"]),
            "value": pa.array(
                [Decimal("0.3000"), Decimal("0.2500"), Decimal("0.1230")], pa.decimal128(5, 4)
            ),
        }
    )
    pq.write_table(table, tmp_path / "d.parquet")
    f32 = table.set_column(
        table.column_names.index("value"), "value", pa.array([0.3012, 0.30, 0.1], pa.float32())
    )
    f32 = f32.set_column(f32.column_names.index("system"), "system", pa.array(["f0", "f1", "f2"]))
    pq.write_table(f32, tmp_path / "f.parquet")
    import_files(
        undone_store, [tmp_path / "j.json", tmp_path / "d.parquet", tmp_path / "f.parquet"], who="t"
    )
    got = {r.system: r.value_text for r in query_results(undone_store.con)}
    assert got == {
        "j0": "0.30",
        "j1": "0.2500",
        "j2": "1e-1",
        "j3": "0",
        "p0": "0.3000",
        "p1": "0.2500",
        "p2": "0.1230",
        "f0": "0.3012",
        "f1": "0.3",
        "f2": "0.1",
    }


# ------------------------------------------------------------------ stored text in output

NASTY = "[/bold]sys :100: [red]x\x1b[2J\x1b]0;title\x07\x9b31m<script>alert(1)</script>*_"


@pytest.fixture
def nasty_db(small_seeded_db_file, tmp_path):
    """The small seeded database (conftest.py: TREC-7 whole) with a result and a paper
    holding markup, escapes and HTML."""
    import duckdb

    db = tmp_path / "nasty.duckdb"
    copy_db(small_seeded_db_file, db)
    con = duckdb.connect(str(db))
    rid = some(
        con.execute(
            "SELECT min(id) FROM results WHERE collection_id = 'disks45/nocr/trec7' "
            "AND measure = 'AP'"
        ).fetchone()
    )[0]
    con.execute(
        "UPDATE results SET system = ?, value = 0.99, value_text = '0.99' WHERE id = ?",
        [NASTY, rid],
    )
    pid = some(con.execute("SELECT min(id) FROM papers").fetchone())[0]
    con.execute(
        "UPDATE papers SET citation = ?, url = 'javascript:alert(1)', doi = NULL WHERE id = ?",
        [NASTY, pid],
    )
    con.close()
    return db, rid, pid


def _no_controls(text: str) -> None:
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", text), repr(text)


@pytest.mark.slow
def test_terminal_output_escapes_markup_and_strips_controls(cli, nasty_db):
    db, rid, pid = nasty_db
    for argv in (
        ["results", "show", str(rid)],
        ["results", "list", "-c", "trec7"],
        ["papers", "show", str(pid)],
        ["papers", "list"],
        ["audit", "best", "-c", "trec7", "-m", "AP", "--source", "official"],
        [
            "audit",
            "claim",
            "-c",
            "trec7",
            "-m",
            "AP",
            "--source",
            "official",
            "--value",
            "0.5",
            "--no-save",
        ],
        ["audit", "history", "-c", "trec7", "-m", "AP", "--source", "official", "--no-save"],
    ):
        res = cli(*argv, db=db)
        assert res.exit_code == 0, (argv, res.stderr, res.exception)
        _no_controls(res.stdout)
        assert "\U0001f4af" not in res.stdout  # no :100: emoji
        if argv[:2] in (["audit", "claim"], ["audit", "history"]):  # the record holder
            assert "[/bold]sys :100: [red]x" in res.stdout, res.stdout
    res = cli("results", "show", str(rid), db=db)
    assert "[/bold]sys :100: [red]x" in res.stdout
    aid = some(
        re.search(
            r"audit #(\d+)",
            cli("audit", "best", "-c", "trec7", "-m", "AP", "--source", "official", db=db).stdout,
        )
    ).group(1)
    res = cli("audit", "show", aid, db=db)
    assert res.exit_code == 0 and "[/bold]sys" in res.stdout
    _no_controls(res.stdout)
    js = cli("results", "show", str(rid), "--json", db=db).stdout
    _no_controls(js)
    assert json.loads(js)["system"] == NASTY  # JSON keeps the data


@pytest.mark.slow
def test_reports_escape_stored_text_and_link_only_http(cli, nasty_db, tmp_path):
    db, rid, pid = nasty_db
    md_path = tmp_path / "r.md"
    res = cli("report", "-c", "trec7", "-m", "AP", "-o", md_path, db=db)
    assert res.exit_code == 0, res.stderr
    md = md_path.read_text()
    assert "<script>" not in md and "&lt;script&gt;" in md
    assert "javascript:" not in md
    _no_controls(md)
    html = cli("report", "-c", "trec7", "-m", "AP", "--format", "html", db=db).stdout
    assert "<script>" not in html and "javascript:" not in html


def test_markdown_escaping_units():
    from litaudit.render.report.blocks import http_url
    from litaudit.render.report.markdown import _inline, _line_start

    assert http_url("javascript:alert(1)") is None and http_url("data:text/html,x") is None
    assert http_url("https://doi.org/10.1/a b>") == "https://doi.org/10.1/a%20b%3E"
    assert http_url("//evil.example") is None and http_url("http:///x") is None
    assert _inline("a <b> [c](d) ![e](f)") == r"a &lt;b&gt; \[c\](d) !\[e\](f)"
    assert _inline("code `x<y` stays") == "code `x<y` stays"
    assert _inline("lone ` <i>") == r"lone \` &lt;i&gt;"
    assert _line_start("# not a heading") == r"\# not a heading"
    assert _line_start("1. not a list") == r"1\. not a list"
    assert _line_start("0.36 is a number") == "0.36 is a number"


def test_console_clean_and_escape():
    from litaudit.render.console import clean, escape

    assert clean("a\x1b[31mb\x1b[0m\x9bc\td\ne\x00") == "abc\td\ne"
    assert clean("x\x1b]0;title\x07y") == "xy"
    assert escape("[/bold]") == "\\[/bold]"


def test_bibtex_latex_braces_and_equals(undone_store, tmp_path, capfd):
    from litaudit.curation.papers import get_paper, import_bibtex

    p = tmp_path / "p.bib"
    p.write_text(
        "@inproceedings{ux2020,\n  title = {{UXTEST}: Does $a = b$ hold? Caf{\\'e} "
        'and {\\"u}ber},\n  author = {M{\\"u}ller, J{\\"o}rg and Doe, Jane},\n'
        "  booktitle = {SIGIR},\n  year = {2020}\n}\n"
    )
    assert import_bibtex(undone_store, p, who="t")["added"] == 1
    paper = get_paper(undone_store.con, "ux2020")
    title = some(paper.title)
    assert title.startswith("UXTEST: Does") and "Café" in title and "über" in title
    assert "=" in title
    assert paper.citation == "Müller and Doe (SIGIR 2020)"
    assert capfd.readouterr().err == ""


def test_editing_a_verified_result_returns_it_to_draft(small_seeded_store):
    from litaudit.curation.results import edit_result, get_result, history, set_status

    seeded_store = small_seeded_store

    rid = seeded_store.con.execute("SELECT min(id) FROM results").fetchone()[0]
    set_status(seeded_store, rid, "verified", reason=None, who="t")
    log = edit_result(seeded_store, rid, {"location": "Table 9"}, reason="moved", who="u")
    assert ("status", "verified", "draft") in log
    assert get_result(seeded_store.con, rid).status == "draft"
    h = history(seeded_store.con, "result", rid)[-1]
    assert (h.field, h.old_value, h.new_value, h.reason) == (
        "status",
        "verified",
        "draft",
        "moved",
    )


def test_paper_citation_is_optional(undone_store, tmp_path):
    from litaudit.curation.importer import import_file
    from litaudit.curation.papers import get_paper

    p = tmp_path / "r.csv"
    p.write_text(
        "source,paper,paper_authors,paper_venue,paper_year,collection,measure,value,"
        "system,role,transcribed_by,transcribed_at\n"
        'paper,kim2018,"Kim, K and Lee, L and Park, P",Proc. CIKM 2018,2018,'
        "robust04,AP,0.25,s,proposed,t,2024-05-01\n"
    )
    import_file(undone_store, p, who="t")
    assert get_paper(undone_store.con, "kim2018").citation == "Kim et al. (CIKM 2018)"


def test_the_same_problem_on_many_lines_reports_once(undone_store, tmp_path):
    from litaudit.curation.importer import import_file
    from litaudit.errors import ValidationFailed

    p = tmp_path / "r.csv"
    p.write_text(
        CSV_HEAD
        + "".join(
            f"official,trec7/adhoc,robust4,AP,0.{i},s{i},official,,2024-05-01\n"
            for i in range(1, 23)
        )
    )
    with pytest.raises(ValidationFailed) as exc:
        import_file(undone_store, p, who="t")
    msgs = [str(x) for x in exc.value.problems]
    assert len(msgs) == 1, msgs  # the blank transcribed_by is filled from who
    assert msgs[0].startswith(f"{p}:2: ") and "(also on lines 3, 4, 5, 6, 7 and 16 more)" in msgs[0]


@pytest.mark.slow
def test_curation_export_carries_dates_reporters_and_links(
    small_seeded_db_file, reference_db_file, cli, tmp_path
):
    """Schema 003's columns (date, reporter, url, code_url) go through the curation export
    and back digit for digit; `--on-existing update` writes a changed reporter and date.
    (MS MARCO passage dev/small is whole in the small seed set: conftest.py.) The second
    database is a copy of the reference one (what `init --no-seeds` makes: its own test
    is test_curation_round_trip_through_the_cli)."""
    from tests.conftest import copy_db

    out, again = tmp_path / "dev.json", tmp_path / "again.json"
    assert (
        cli(
            "results", "export", out, "-c", "msmarco-passage/dev/small", db=small_seeded_db_file
        ).exit_code
        == 0
    )
    rows = json.loads(out.read_text())["results"]
    assert all(r["date"] and r["reporter"] for r in rows)
    assert any(r["url"].startswith("http") for r in rows)
    assert any(r["code_url"].startswith("http") for r in rows)
    b = copy_db(reference_db_file, tmp_path / "b.duckdb")
    res = cli("results", "import", out, db=b)
    assert res.exit_code == 0, res.stderr
    assert cli("results", "export", again, db=b).exit_code == 0
    assert again.read_bytes() == out.read_bytes()
    bundle = json.loads(out.read_text())
    bundle["results"][0]["reporter"], bundle["results"][0]["date"] = "unknown", "2019-01-02"
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(bundle))
    res = cli("results", "import", edited, "--on-existing", "update", db=b)
    assert res.exit_code == 0 and "updated 1 existing" in res.stdout, res.stdout
    got = json.loads(
        cli("results", "list", "-c", "msmarco-passage/dev/small", "--json", db=b).stdout
    )
    assert sum(1 for r in got if r["reporter"] == "unknown" and str(r["date"]) == "2019-01-02") == 1


@pytest.mark.parametrize(
    "column, value, message",
    [
        ("date", "2020-13-01", "not a calendar date"),
        ("date", "2020/01/02", "expected a date YYYY-MM-DD"),
        ("date", "2999-01-01", "in the future"),
        ("url", "javascript:alert(1)", "expected an http(s) URL"),
        ("code_url", "ftp://example.org/x", "expected an http(s) URL"),
        ("reporter", "someone", "reporter must be one of"),
    ],
)
def test_new_columns_are_checked_as_strictly_as_the_others(
    cli, reference_db_file, tmp_path, column, value, message
):
    db = tmp_path / "x.duckdb"
    copy_db(reference_db_file, db)  # what `init --no-seeds` writes, built once a run
    f = tmp_path / "rows.csv"
    f.write_text(
        "source,track,collection,measure,value,system,role,transcribed_by,"
        f"transcribed_at,{column}\n"
        f"official,trec7/adhoc,trec7,AP,0.3033,ok7ax,official,bob,2024-05-01,{value}\n"
    )
    with unwritten(db):
        res = cli("results", "import", f, db=db)
    assert res.exit_code == 1 and message in res.stderr, res.stderr
    assert f"rows.csv:2: {column}: " in res.stderr
