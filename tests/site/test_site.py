"""`litaudit site`: the pages (record, tied group, leaderboard, history, papers), their
determinism and incremental writes, the folder's safety, the standing function."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import copy_db, examples
from tests.site.fixture import COLLECTION


@pytest.fixture(scope="module")
def site_db_file(fixture_site) -> Path:
    """The fixture store with its audits already run by one build (read-only: copy it;
    tests/site/conftest.py)."""
    return fixture_site[0]


@pytest.fixture
def site_db(site_db_file, tmp_path) -> Path:
    path = tmp_path / "site.duckdb"
    copy_db(site_db_file, path)
    return path


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _build(cli, db: Path, out: Path) -> dict:
    res = cli("site", out, "--json", db=db)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.fixture(scope="module")
def built_site(site_db_file, tmp_path_factory) -> tuple[dict, dict[str, bytes]]:
    """One `site --json` build of a copy of the fixture store into a new folder, for the
    module: what it said and the files it wrote (the tests of the pages read them; a
    test of a second build, or of a change, builds its own)."""
    from tests.conftest import Cli

    work = tmp_path_factory.mktemp("built_site")
    db = copy_db(site_db_file, work / "site.duckdb")
    done = _build(Cli(db), db, work / "out")
    return done, _files(work / "out")


# --------------------------------------------------------------------------- the pages
def test_site_pages(built_site):
    done, files = built_site
    assert done["pages"] == 7 and len(done["written"]) == 7 and done["removed"] == []
    assert sorted(files) == [
        ".litaudit-site",
        "index.html",
        "paper/jones2021.html",
        "paper/lee2023.html",
        "paper/smith2019.html",
        "papers.html",
        "pop/trec7-ap-official.html",
        "pop/trec7-ap-paper.html",
    ]
    index = _text(files["index.html"].decode())
    for words in (
        "2 populations of published results (14 results)",
        "0.4010 NeuralX, Smith et al. (SIGIR 2019) 2",  # record, holder, 2 tied with it
        "0.2750 runF, TREC trec7/adhoc",
        "measured",
        "Every audit uses one null",
    ):
        assert words in index, words
    pop = files["pop/trec7-ap-paper.html"].decode()
    text = _text(pop)
    for words in (
        "The record 0.4010 by NeuralX ( Smith et al. (SIGIR 2019) ). 2 of the other 6 "
        "published results lie at or above 0.3432, the lower end of its 60% interval, and "
        "cannot be told apart from it.",
        "Record band (60% interval under the reference model, p = 0.2): [0.3432, 0.4010]",
        "Tied with the top (3 results",
        "0.3990 Dense, Lee (ECIR 2023)",
        "0.3950 DeepY, Jones and Lee (CIKM 2021)",
        "candidate best set (Carterette, SIGIR 2015, Table 3)",
        "Against chance: 3 of the 7 published results lie above 0.3539, the value the best "
        "of 7 equally good systems exceeds with probability 0.05",
        "Population: N = 7 results on 50 topics",
        "Reference model: a null of 7 equally good systems",
        "litaudit audit best -c disks45/nocr/trec7 -m AP --source papers",
    ):
        assert words in text, words
    # every row, best first, with its rank, interval, tied mark, links to its paper
    rows = re.findall(r"<tr id=\"r\d+\"( class=\"top\")? data-role=\"(\w+)\".*?</tr>", pop)
    assert [r[1] for r in rows] == ["proposed"] * 3 + ["baseline"] * 4
    assert [bool(r[0]) for r in rows] == [True] * 3 + [False] * 4
    assert 'href="../paper/smith2019.html"' in pop
    assert 'href="https://doi.org/10.1145/0000001" rel="noreferrer">paper</a>' in pop
    assert pop.count('class="plot"') == 1 and "history audit #" in pop
    official = files["pop/trec7-ap-official.html"].decode()
    assert official.count('data-zs="1"') == 2 and 'name="zs"' in official
    assert official.count(">official, zero-shot</td>") == 2
    paper = _text(files["paper/jones2021.html"].decode())
    for words in ("Jones and Lee (CIKM 2021)", "Its results (3)", "3 of 7", "trec7 · AP · papers"):
        assert words in paper, words
    deepy = re.search(r'<tr id="(r\d+)"[^>]*data-text="deepy ', pop)
    assert deepy and f'href="../pop/trec7-ap-paper.html#{deepy.group(1)}">3 of 7</a>' in (
        files["paper/jones2021.html"].decode()
    )
    assert "import" in paper  # the results' history
    assert "None of its results set a record." in paper
    smith = _text(files["paper/smith2019.html"].decode())
    assert (
        "2019: 0.4010 NeuralX set the record of trec7 · AP · papers (N = 2 so far; above" in smith
    )
    assert "Records (1 step that set a new record" in text


def test_pages_load_nothing_from_outside(built_site):
    """Every page forbids loads by its CSP, allows its one script by hash, and has no
    src= or stylesheet link; links out are <a> to http(s) only."""
    from litaudit.render.site.assets import SCRIPT, SCRIPT_HASH

    _, files = built_site
    for name, data in files.items():
        if not name.endswith(".html"):
            continue
        page = data.decode()
        assert "default-src 'none'" in page and SCRIPT_HASH in page, name
        assert page.count("<script>") == 1 and f"<script>{SCRIPT}</script>" in page, name
        assert not re.search(r"\ssrc=|<link|@import|url\(", page), name
        for href in re.findall(r'href="([^"]*)"', page):
            assert href.startswith(("https://", "http://", "../", "#")) or re.match(
                r"^[\w/.-]+\.html$", href
            ), (name, href)


@pytest.mark.slow
def test_second_build_writes_nothing(cli, site_db, tmp_path):
    out = tmp_path / "out"
    _build(cli, site_db, out)
    before = _files(out)
    times = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    n_audits = _audits(site_db)
    again = _build(cli, site_db, out)
    assert _audits(site_db) == n_audits  # every audit found, none run again
    assert again["written"] == [] and again["unchanged"] == 7 and again["removed"] == []
    assert _files(out) == before
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == times
    res = cli("site", out, db=site_db)
    assert "7 pages (0 written, 7 unchanged, 0 removed" in res.stdout


@pytest.mark.slow
def test_a_changed_result_rewrites_only_its_pages(cli, site_db, tmp_path):
    """QL (jones2021, papers population) edited: its population's page, its paper's page
    and at most the index row of its population (its se) change; nothing else is written."""
    from litaudit.store.db import open_store

    out = tmp_path / "out"
    _build(cli, site_db, out)
    before = _files(out)
    with open_store(site_db, read_only=True) as store:
        (rid,) = store.con.execute("SELECT id FROM results WHERE system = 'QL'").fetchone()
    res = cli("results", "edit", rid, "--set", "value=0.2450", "--reason", "re-read", db=site_db)
    assert res.exit_code == 0, res.output
    done = _build(cli, site_db, out)
    # the index shows the population's se to 4 digits: it may or may not change
    assert set(done["written"]) - {"index.html"} == {
        "paper/jones2021.html",
        "pop/trec7-ap-paper.html",
    }
    after = _files(out)
    assert "0.2450" in after["pop/trec7-ap-paper.html"].decode()
    assert "value: 0.2440 → 0.2450 (re-read)" in after["paper/jones2021.html"].decode()
    for name in ("pop/trec7-ap-official.html", "paper/smith2019.html", "papers.html"):
        assert after[name] == before[name], name


@pytest.mark.slow
def test_a_population_too_small_loses_its_page(cli, site_db, tmp_path):
    out = tmp_path / "out"
    _build(cli, site_db, out)
    from litaudit.store.db import open_store

    with open_store(site_db, read_only=True) as store:
        ids = [r[0] for r in store.con.execute(
            "SELECT id FROM results WHERE role = 'baseline' ORDER BY id LIMIT 3"
        ).fetchall()]  # fmt: skip
    res = cli("results", "retract", *ids, "--reason", "test", db=site_db)
    assert res.exit_code == 0, res.output
    done = _build(cli, site_db, out)
    assert done["removed"] == ["pop/trec7-ap-paper.html"]
    assert not (out / "pop" / "trec7-ap-paper.html").exists()
    index = _text((out / "index.html").read_text(encoding="utf-8"))
    assert "Too few results to audit" in index and "N = 4" in index
    assert "pop/trec7-ap-paper.html" not in (out / ".litaudit-site").read_text(encoding="utf-8")


# ------------------------------------------------------------------------ the folder
def test_refuses_a_folder_that_is_not_a_site(cli, site_db, tmp_path):
    out = tmp_path / "home"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    n_audits = _audits(site_db)
    res = cli("site", out, db=site_db)
    assert res.exit_code == 1
    assert "not empty and not a site written by litaudit (no .litaudit-site)" in res.output
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert _audits(site_db) == n_audits  # refused before any audit
    res = cli("site", out / "notes.txt", db=site_db)
    assert res.exit_code == 1 and "is not a directory" in res.output
    res = cli("site", tmp_path / "no" / "such", db=site_db)
    assert res.exit_code == 1 and "does not exist" in res.output


def _audits(db: Path) -> int:
    from litaudit.store.db import open_store

    with open_store(db, read_only=True) as store:
        return int(store.con.execute("SELECT count(*) FROM audits").fetchone()[0])


def test_write_site_removes_only_listed_files_inside(tmp_path):
    from litaudit.render.site.write import MANIFEST, write_site

    out = tmp_path / "out"
    outside = tmp_path / "keep.txt"
    outside.write_text("keep", encoding="utf-8")
    done = write_site(out, {"a.html": "A", "sub/b.html": "B"})
    assert done.written == ("a.html", "sub/b.html") and done.total_bytes == 2
    (out / "mine.txt").write_text("not listed", encoding="utf-8")
    (out / MANIFEST).write_text("a.html\nsub/b.html\n../keep.txt\n", encoding="utf-8")
    done = write_site(out, {"a.html": "A2"})
    assert done.written == ("a.html",) and done.removed == ("sub/b.html",)
    assert outside.exists() and (out / "mine.txt").exists()
    assert (out / "a.html").read_text(encoding="utf-8") == "A2"


def test_stored_text_is_escaped_and_links_are_http_only():
    from litaudit.render.site.html import esc, link

    assert esc('<img src=x onerror="a()">') == "&lt;img src=x onerror=&quot;a()&quot;&gt;"
    assert link("paper", "javascript:alert(1)") == "paper"
    assert link("code", "https://example.org/a b") == (
        '<a href="https://example.org/a%20b" rel="noreferrer">code</a>'
    )


# markup, quotes, control characters (dropped) and their neighbours, and plain text
_TEXT = st.text(
    st.sampled_from(
        "a&<>\"'\x00\x08\t\n\x0b\x0c\r\x0e\x1f \x7e\x7f\x9f\xa0\u202a\u202e\u202f\u2066\u2069\u206aé1."
    )
    | st.characters()
)


@settings(max_examples=examples(200), deadline=None)
@given(_TEXT)
def test_esc_escapes_as_the_report_does(text):
    from litaudit.render.report.svg import escape
    from litaudit.render.site.html import esc

    assert esc(text) == escape(text, quote=True)


def test_site_help_is_listed(cli):
    res = cli("--help")
    assert "site" in res.stdout and "static site" in res.stdout


# ------------------------------------------------------------------------ the standing
def test_observed_ranks_share_equal_values():
    from litaudit.analyses.extreme.population import ResultRow
    from litaudit.render.site.ranks import observed_ranks

    def row(i: int, v: float) -> ResultRow:
        return ResultRow(
            i, "paper", f"s{i}", None, v, f"{v}", "proposed", None, 2020, 50, None, True,
            "verified", None, None, None, None, None, None, None, None, "",
        )  # fmt: skip

    rows = [row(1, 0.3), row(2, 0.2), row(3, 0.2), row(4, 0.1)]
    assert observed_ranks(rows) == {1: 1, 2: 2, 3: 2, 4: 4}


def test_standing_is_the_candidate_best_set(site_db):
    """The tied group is the best audit's candidate set (Table 3) and each member's rank
    interval is 1..k; the other results get none."""
    from litaudit.analyses.site_audits import prepare_site
    from litaudit.render.site.ranks import standing
    from litaudit.store.db import open_store

    with open_store(site_db) as store:
        sp = next(p for p in prepare_site(store.con).populations if p.source == "paper")
    st = standing(sp)
    rows, rep = sp.rows, sp.best.result
    assert st.tied == {c.result.id for c in rep.candidates}
    # the fixture's record 0.4010 has DeepY (0.3950) and Dense (0.3990) in its band
    assert sorted(r.system for r in rows if r.id in st.tied) == ["DeepY", "Dense", "NeuralX"]
    assert set(st.interval) == st.tied and set(st.interval.values()) == {(1, 3)}
    assert [st.rank[r.id] for r in rows] == list(range(1, 8))
    assert "Table 3" in st.method and st.audit == sp.best.id and st.kind == "best"


def test_history_key_is_the_key_run_history_stores(site_db):
    """prepare_site finds a stored history by :func:`history_key` without replaying it:
    the key must be the one run_history stores (dated and undated populations)."""
    from litaudit.analyses.audits import identical_ids
    from litaudit.analyses.extreme.history import run_history
    from litaudit.analyses.extreme.population import Filters, population
    from litaudit.analyses.site_audits import history_key
    from litaudit.store.db import open_store

    with open_store(site_db) as store:
        store.con.execute("UPDATE results SET date = DATE '1998-11-09' WHERE source = 'official'")
        for src in ("paper", "official"):
            f = Filters(source=src)
            done = run_history(store.con, COLLECTION, "AP", filters=f)
            pop = population(store.con, COLLECTION, "AP", f)
            assert identical_ids(store.con, [history_key(pop, f)]) == [done.audit_id]
            assert done.result.by == ("date" if src == "official" else "year")


def test_without_a_database_nothing_is_made(cli, tmp_path):
    db, out = tmp_path / "none.duckdb", tmp_path / "out"
    res = cli("site", out, db=db)
    assert res.exit_code == 1
    assert res.stderr == (
        f"Error: no database at {db} (given with --db); create one with `litaudit --db {db} init`\n"
    )
    assert not db.exists() and not out.exists()


def test_standing_from_a_ranks_audit():
    """Where a ranks audit exists, the tied group is the results of the systems in its
    confidence set of the best and each ranked result's interval is its system's; a
    result whose system the audit did not rank gets neither."""
    import numpy as np

    from litaudit.analyses.audits import StoredAudit
    from litaudit.analyses.extreme.population import ResultRow
    from litaudit.analyses.extreme.ranks import RanksAudit, answer
    from litaudit.analyses.site_audits import SitePopulation
    from litaudit.render.site.ranks import standing
    from litaudit.stats.ranks import resolve_ranks

    rng = np.random.default_rng(7)
    # A and B the same system up to small paired noise, C far below: 3 x 40 topics
    base = 0.5 + 0.1 * rng.standard_normal(40)
    y = np.vstack([base + 0.01 * rng.standard_normal(40) for _ in range(2)] + [base - 0.3])
    res = resolve_ranks(y, resamples=400, seed=1)
    systems = ("A", "B", "C")
    ra = RanksAudit(
        collection_id="c", measure="AP", source="matrix", what="3 runs", systems=systems,
        units=tuple(str(t) for t in range(40)), left_out=0, noise=None, resolution=res,
        answer=answer(res, systems), fingerprint="f",
    )  # fmt: skip

    def stored(i: int, result) -> StoredAudit:
        return StoredAudit(
            id=i, kind="ranks", collection_id="c", measure="AP", params={},
            method="bootstrap", seed=1, trials=400, input_fingerprint="f",
            software_version="0", result=result, created_at="",
        )  # fmt: skip

    def row(i: int, system: str, v: float) -> ResultRow:
        return ResultRow(
            i, "official", system, None, v, f"{v}", "official", None, 2020, 40, None, True,
            "verified", None, "t", None, None, None, None, None, None, "",
        )  # fmt: skip

    rows = (row(1, "A", 0.51), row(2, "B", 0.50), row(3, "D", 0.40), row(4, "C", 0.20))
    sp = SitePopulation(
        collection_id="c", collection_name="c", measure="AP", source="official",
        best=stored(1, None), history=None, history_error=None, rows=rows,
        ranks=stored(9, ra),
    )  # fmt: skip
    st = standing(sp)
    best = {systems[i] for i in res.best_set}
    assert best == {"A", "B"}  # the data make C apart from the top
    assert st.tied == {1, 2} and st.kind == "ranks" and st.audit == 9
    assert st.interval[4] == (res.rank_low[2], res.rank_high[2]) and 3 not in st.interval
    assert st.rank == {1: 1, 2: 2, 3: 3, 4: 4}
    assert "1 of the 4 results are not ranked by it" in st.method
    assert st.sentence == f"Ranks: {ra.answer}."


def test_history_leaves_out_reproductions_and_says_how_many(cli, site_db, tmp_path):
    """Where a collection holds reproductions the site's history replays the published
    results only, as `audit history` does unless asked (issue 32): the history audit is
    the one `audit history` stores, and the page says how many reproductions it left out."""
    from tests.site.fixture import COLUMNS

    rows = [COLUMNS] + [
        f"paper,repro2024,Repro et al. (2024),,2024,,{COLLECTION},MAP,{value},{system},,"
        "reproduction,automatic,2024,alice,2024-03-01,verified"
        for system, value in (("NeuralX", "0.4210"), ("BM25+RM3", "0.2790"))
    ]
    rows += [  # a population of reproductions only (P@10): no history to replay
        f"paper,repro2024,Repro et al. (2024),,2024,,{COLLECTION},P@10,0.4{k}00,Sys{k},,"
        "reproduction,automatic,2024,alice,2024-03-01,verified"
        for k in range(5)
    ]
    csv = tmp_path / "repro.csv"
    csv.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert cli("results", "import", csv, db=site_db).exit_code == 0
    out = tmp_path / "out"
    _build(cli, site_db, out)
    page = (out / "pop" / "trec7-ap-paper.html").read_text(encoding="utf-8")
    text = _text(page)
    assert "0.4210" in text  # the leaderboard lists the reproductions
    assert (
        "Published results only: the 2 reproductions of this population (re-runs of models "
        "published earlier, dated by when they were re-run) are left out of the record over "
        "time" in text
    )
    hist = re.search(r"history audit #(\d+)", page)
    assert hist is not None
    res = cli(
        "audit", "history", "-c", COLLECTION, "-m", "AP", "--source", "paper", "--json", db=site_db
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["reused"] is True and data["audit_id"] == int(hist.group(1))
    assert data["result"]["population"]["n"] == 7  # the 7 published, not the 9
    only = _text((out / "pop" / "trec7-p-10-paper.html").read_text(encoding="utf-8"))
    assert (
        "No history plot: every result of the population is a reproduction. Published "
        "results only: the 5 reproductions of this population" in only
    )
    # the official runs' population holds no reproduction: nothing said
    official = _text((out / "pop" / "trec7-ap-official.html").read_text(encoding="utf-8"))
    assert "reproduction" not in official
