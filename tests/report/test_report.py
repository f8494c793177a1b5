"""`litaudit report`: the report model, the SVG plots, Markdown/HTML/JSON, the CLI.

The snapshot (tests/report/snapshots/report_fixture.md) is built from a small deterministic
database made here (12 transcribed results, 4 synthetic runs), not from the seeds.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import _built_folder_once, copy_db
from tests.typed import some, without_verdict

SNAPSHOTS = Path(__file__).parent / "snapshots"
COLLECTION = "trec7"

# 12 published AP values on TREC-7 (50 topics): 5 from two papers, 7 official runs.
PAPERS = [
    ("smith2019", "Smith et al. (SIGIR 2019)", "10.1145/0000001", 2019),
    ("jones2021", "Jones and Lee (CIKM 2021)", "", 2021),
]
RESULTS = [  # source, paper or track, system, value, year, status
    ("paper", "smith2019", "BM25+RM3", "0.2810", 2019, "verified"),
    ("paper", "smith2019", "NeuralX", "0.3010", 2019, "verified"),
    ("paper", "jones2021", "DeepY", "0.2950", 2021, "draft"),
    ("paper", "jones2021", "QL", "0.2440", 2021, "draft"),
    ("paper", "jones2021", "SDM", "0.2620", 2021, "verified"),
    ("official", "trec7/adhoc", "runA", "0.2200", 1998, "draft"),
    ("official", "trec7/adhoc", "runB", "0.1900", 1998, "draft"),
    ("official", "trec7/adhoc", "runC", "0.2500", 1998, "draft"),
    ("official", "trec7/adhoc", "runD", "0.1500", 1998, "draft"),
    ("official", "trec7/adhoc", "runE", "0.2100", 1998, "draft"),
    ("official", "trec7/adhoc", "runF", "0.2750", 1998, "draft"),
    ("official", "trec7/adhoc", "runG", "0.1750", 1998, "draft"),
]


def _results_csv(path: Path) -> Path:
    cols = [
        "source",
        "paper",
        "paper_citation",
        "paper_doi",
        "paper_year",
        "track",
        "collection",
        "measure",
        "value",
        "system",
        "participant",
        "role",
        "run_type",
        "year",
        "transcribed_by",
        "transcribed_at",
        "status",
    ]
    papers = {p[0]: p for p in PAPERS}
    lines = [",".join(cols)]
    for src, where, system, value, year, status in RESULTS:
        p = papers.get(where)
        row = {
            "source": src,
            "collection": COLLECTION,
            "measure": "MAP",
            "value": value,
            "system": system,
            "year": str(year),
            "status": status,
            "transcribed_by": "alice" if src == "paper" else "bob",
            "transcribed_at": "2024-03-0" + ("1" if src == "paper" else "2"),
            "role": "proposed" if src == "paper" else "official",
            "run_type": "automatic",
        }
        if p:
            row.update(paper=p[0], paper_citation=p[1], paper_doi=p[2], paper_year=str(p[3]))
        else:
            row.update(track=where, participant="grp" + system[-1])
        lines.append(",".join(row.get(c, "") for c in cols))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _archive(folder: Path) -> tuple[Path, list[Path], Path]:
    """4 runs from 4 sites, 12 topics, documents from 3 sources (FBIS, FT, LA)."""
    folder.mkdir(parents=True, exist_ok=True)
    docs = [f"{pre}-{i:03d}" for pre in ("FBIS", "FT", "LA") for i in range(10)]
    qrels = []
    for t in range(1, 13):
        for d, doc in enumerate(docs):
            qrels.append(f"{t} 0 {doc} {1 if (d * 7 + t * 3) % 5 < 2 else 0}")
    qpath = folder / "qrels.txt"
    qpath.write_text("\n".join(qrels) + "\n", encoding="utf-8")
    runs = []
    for r in range(4):
        lines = []
        for t in range(1, 13):
            scored = sorted(
                (
                    (((d * (r + 3) + t * 11 + r * 5) % 29) + (3 - r) * 0.01 * d, doc)
                    for d, doc in enumerate(docs)
                ),
                reverse=True,
            )[:20]
            lines += [f"{t} Q0 {doc} {k + 1} {s:.3f} run{r}" for k, (s, doc) in enumerate(scored)]
        p = folder / f"input.run{r}"
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        runs.append(p)
    meta = folder / "meta.csv"
    meta.write_text(
        "tag,participant,run_type\n" + "".join(f"run{r},site{r},automatic\n" for r in range(4)),
        encoding="utf-8",
    )
    return qpath, runs, meta


def make_fixture_db(path: Path, *, runs: bool = True) -> Path:
    """The deterministic report database: reference data, 12 results, (4 runs)."""
    from litaudit.curation.importer import import_file
    from litaudit.store.db import open_store
    from litaudit.store.refdata import load_reference_data

    with open_store(path) as store:
        load_reference_data(store.con)
        import_file(store, _results_csv(path.parent / "results.csv"), who="fixture")
        if runs:
            from litaudit.runs.ingest import import_archive
            from litaudit.store.collections import resolve_collection

            q, rs, meta = _archive(path.parent / "archive")
            import_archive(
                store, resolve_collection(store.con, COLLECTION).id, rs, qrels_path=q, metadata=meta
            )
    return path


def store_literature_audits(path: Path) -> None:
    """The 'best', 'claim' (0.36) and 'history' audits of the fixture's AP results, run
    through litaudit.analyses.extreme.best and stored (the report then reuses them)."""
    from litaudit.analyses.extreme.best import Claim, run_best, run_claim
    from litaudit.analyses.extreme.history import run_history
    from litaudit.store.db import open_store

    with open_store(path) as store:
        run_best(store.con, COLLECTION, "AP")
        run_claim(store.con, COLLECTION, "AP", Claim(value=0.36))
        run_history(store.con, COLLECTION, "AP")


def _build_fresh(folder: Path) -> None:
    store_literature_audits(make_fixture_db(folder / "fresh.duckdb"))


def fresh_folder(tmp_path_factory) -> Path:
    """This process's copy of the fixture database with literature audits, before any
    report: built once a run, and kept across runs while nothing it is built from changes
    (tests/conftest.py ``_built_folder_once``: the package, the seeds, this module)."""
    return _built_folder_once(tmp_path_factory, "report-fresh", _build_fresh)


def _build_lit(folder: Path) -> None:
    store_literature_audits(make_fixture_db(folder / "lit.duckdb", runs=False))


def lit_folder(tmp_path_factory) -> Path:
    """This process's copy of the fixture database without runs, with its literature
    audits (``lit.duckdb``: test_report_answer.py's and test_review_form.py's): built
    once a run and kept across runs as :func:`fresh_folder` is."""
    return _built_folder_once(tmp_path_factory, "report-lit", _build_lit)


def reported_folder(tmp_path_factory) -> Path:
    """This process's copy of a fresh database after `report -c trec7 -m AP` (no
    sub-collections): ``reported.duckdb`` and the Markdown it printed, ``reported.md``;
    built once a run (test_report_browser.py's report starts from it too) and kept across
    runs as :func:`fresh_folder` is."""

    def build(folder: Path) -> None:
        from typer.testing import CliRunner

        from litaudit.cli.main import app

        db = folder / "reported.duckdb"
        shutil.copy(fresh_folder(tmp_path_factory) / "fresh.duckdb", db)
        res = CliRunner().invoke(app, ["--db", str(db), "report", "-c", COLLECTION, "-m", "AP"])
        assert res.exit_code == 0, res.output
        (folder / "reported.md").write_text(res.stdout, encoding="utf-8")

    return _built_folder_once(tmp_path_factory, "report-reported", build)


@pytest.fixture(scope="module")
def fresh_db_file(tmp_path_factory) -> Path:
    """The fixture database with literature audits, before any report (treat as
    read-only, copy it to write)."""
    return fresh_folder(tmp_path_factory) / "fresh.duckdb"


@pytest.fixture(scope="module")
def fixture_db_file(fresh_db_file, tmp_path_factory) -> Path:
    """The fixture database with literature audits; the reuse audits are run by the first
    report (module-scoped: treat as read-only, copy it to write; kept across runs as
    :func:`fresh_folder` is)."""

    def build(folder: Path) -> None:
        from litaudit.analyses.report_audits import prepare_report
        from litaudit.store.db import open_store

        path = folder / "fixture.duckdb"
        shutil.copy(fresh_db_file, path)
        with open_store(path) as store:  # runs and stores the reusability audits once
            prepare_report(store.con, COLLECTION, measure="AP", subcollections=True)

    return _built_folder_once(tmp_path_factory, "report-fixture", build) / "fixture.duckdb"


@pytest.fixture
def fresh_db(fresh_db_file, tmp_path) -> Path:
    """The fixture database before any report: the reusability audits are missing (a
    copy of the module's, to write)."""
    path = tmp_path / "fresh.duckdb"
    copy_db(fresh_db_file, path)
    return path


@dataclass(frozen=True)
class Reported:
    """A fresh database after `report -c trec7 -m AP` (no sub-collections): ``db`` (treat
    as read-only) and the Markdown it printed."""

    db: Path
    md: str


@pytest.fixture(scope="module")
def reported(tmp_path_factory) -> Reported:
    """The first report on a fresh database, run once for the tests that read what it
    ran, stored and printed (the verdict without sub-collections: 0.7 s of CPU)."""
    folder = reported_folder(tmp_path_factory)
    return Reported(db=folder / "reported.duckdb", md=(folder / "reported.md").read_text("utf-8"))


@pytest.fixture
def fixture_db(fixture_db_file, tmp_path) -> Path:

    path = tmp_path / "fixture.duckdb"
    copy_db(fixture_db_file, path)
    return path


def _n_audits(path: Path) -> int:
    from litaudit.store.db import open_store

    with open_store(path, read_only=True) as store:
        return store.con.execute("SELECT count(*) FROM audits").fetchone()[0]


# ------------------------------------------------------------------------------- snapshot


def test_markdown_snapshot(cli, fixture_db, tmp_path):
    out = tmp_path / "report.md"
    res = cli(
        "report",
        "--collection",
        COLLECTION,
        "--measure",
        "MAP",
        "--claim",
        "0.36",
        "-o",
        out,
        db=fixture_db,
    )
    assert res.exit_code == 0, res.output
    text = out.read_text(encoding="utf-8")
    snap = SNAPSHOTS / "report_fixture.md"
    if os.environ.get("LITAUDIT_UPDATE_SNAPSHOTS"):  # regenerate on purpose, then review
        snap.write_text(text, encoding="utf-8")
    assert snap.exists(), f"{snap} is missing: run with LITAUDIT_UPDATE_SNAPSHOTS=1 and review"
    assert text == snap.read_text(encoding="utf-8")
    # every image the Markdown links is written beside it, and each is an SVG with paths
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert len(links) == 5
    for name in links:
        svg = (tmp_path / name).read_text(encoding="utf-8")
        assert svg.startswith("<svg ") and '<path d="M' in svg


@pytest.mark.slow
def test_same_database_gives_byte_identical_reports(cli, fresh_db):
    """The first report runs the missing reuse audits; the second reuses them."""
    fixture_db = fresh_db
    before = _n_audits(fixture_db)
    outs = {}
    for fmt in ("md", "html", "json"):
        first = cli(
            "report",
            "-c",
            COLLECTION,
            "-m",
            "AP",
            "--format",
            fmt,
            "--subcollections",
            db=fixture_db,
        )
        assert first.exit_code == 0, first.output
        n = _n_audits(fixture_db)
        second = cli("report", "-c", COLLECTION, "-m", "AP", "--format", fmt, db=fixture_db)
        assert second.stdout == first.stdout
        assert _n_audits(fixture_db) == n  # nothing re-run
        outs[fmt] = second.stdout
    assert _n_audits(fixture_db) == before + 4  # rao, lou, sub-collections, verdict
    assert "Generated" not in outs["md"] and 'created_at": null' in outs["json"]
    stamped = cli("report", "-c", COLLECTION, "-m", "AP", "--timestamp", db=fixture_db)
    assert re.search(r"Generated \d{4}-\d\d-\d\dT", stamped.stdout)
    assert "| created |" in stamped.stdout


@pytest.mark.slow(reason="the first report on a fresh database (a module fixture, 0.7 s)")
def test_report_without_subcollections_runs_the_verdict_without_them(cli, reported, tmp_path):
    """As `reuse verdict`: the sub-collection test only when asked for (the JSON of the
    report on the database the first report, without --subcollections, left)."""
    db = tmp_path / "reported.duckdb"
    shutil.copy(reported.db, db)
    res = cli("report", "-c", COLLECTION, "-m", "AP", "--format", "json", db=db)
    assert res.exit_code == 0, res.output
    kinds = sorted(a["kind"] for a in json.loads(res.stdout)["audits"])
    assert "reuse-verdict" in kinds and "reuse-subcollections" not in kinds


# ------------------------------------------------------------------------------ contents


def test_json_holds_every_section_and_full_fingerprints(cli, fixture_db):
    res = cli(
        "report", "-c", COLLECTION, "-m", "AP", "--claim", "0.36", "--format", "json", db=fixture_db
    )
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    lit = d["literature"][0]
    # the stored audit's numbers, unrounded: Table 2 of the 12 fixture values
    values = [float(r[3]) for r in RESULTS]
    mean = sum(values) / len(values)
    assert lit["n"] == 12 and lit["mean"] == pytest.approx(mean, abs=1e-12)
    # under TREC-7's measured se (the store's reference noise, 0.0155)
    assert [c["system"] for c in lit["candidates"]] == [
        "NeuralX",
        "DeepY",
        "BM25+RM3",
        "runF",
        "SDM",
        "runC",
        "QL",
    ]
    assert lit["candidates"][0]["doi"] == "10.1145/0000001"
    assert [h["year"] for h in lit["history"]] == [1998, 2019, 2021]
    c = d["claims"][0]
    assert c["passes"] is True and c["n_draws"] == 13 and c["record_value"] == 0.301
    assert [a.split(":")[0] for a in c["answers"]] == [
        "Against the record",
        "Against chance",
        "Gap to the record",
        "The claim's own interval",
        "How much of the record is luck",
        "Reference model",
    ]
    assert c["p_value"] == 1e-6 and c["p_below_floor"] is True and c["n_star_capped"] is True
    assert lit["expected_above_under_null"] == pytest.approx(12 * (1 - 0.95 ** (1 / 12)))
    assert lit["population"].startswith("Population: N = 12 results on 50 topics")
    assert d["reuse"]["n_runs"] == 4 and d["reuse"]["rao"]["n_participants"] == 4
    kinds = sorted(a["kind"] for a in d["audits"])
    assert kinds == [
        "best",
        "claim",
        "history",
        "reuse-lou",
        "reuse-rao",
        "reuse-subcollections",
        "reuse-verdict",
    ]
    assert all(len(a["input_fingerprint"]) == 64 for a in d["audits"])
    assert d["data"]["statuses"] == [
        {"label": "verified", "n": 3},
        {"label": "draft", "n": 9},
        {"label": "retracted", "n": 0},
    ]


def test_html_is_self_contained(cli, fixture_db):
    res = cli("report", "-c", COLLECTION, "-m", "AP", "--format", "html", db=fixture_db)
    html = res.stdout
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert "default-src 'none'" in html
    assert not re.search(r"<(script|link|img|iframe)\b", html)
    assert not re.search(r"\bsrc=", html)
    # the only URLs are the SVG namespace and links a reader may follow (DOIs)
    urls = set(re.findall(r"https?://[^\"'<> ]+", html))
    assert urls == {"http://www.w3.org/2000/svg", "https://doi.org/10.1145/0000001"}
    assert html.count('class="plot"') == 5


def _unmarkdown(text: str) -> str:
    """The plain text of a paragraph the Markdown report escaped (backslash escapes and
    the &amp; &lt; &gt; entities undone)."""
    return html.unescape(re.sub(r"\\(.)", r"\1", text))


def test_claim_section_says_what_the_terminal_says(cli, fixture_db):
    """The report's claim section is the stored audit's answers, in order, then its tables:
    (a) against the record, (b) against chance, (c) the claim's own interval."""
    term = cli(
        "audit",
        "claim",
        "-c",
        COLLECTION,
        "-m",
        "AP",
        "--value",
        "0.36",
        "--no-save",
        db=fixture_db,
    )
    answers = without_verdict(term.output)[2:8]  # after the header
    md = cli("report", "-c", COLLECTION, "-m", "AP", "--claim", "0.36", db=fixture_db).stdout
    start = md.index("## Claim audit: AP = 0.36")
    section = md[start : md.index("\n## ", start)]
    paras = [
        p
        for p in section.split("\n\n")
        if p.startswith(("Against", "Gap to", "The claim", "How much", "Reference"))
    ]
    assert [_unmarkdown(p) for p in paras] == answers  # the same words, escaped as Markdown
    assert answers[0].startswith(
        "Against the record: 0.3600 is above the record, 0.3010 "
        "(NeuralX, Smith et al. (SIGIR 2019)), which lies within the claim's 60% band "
        "[0.2942, 0.3600] under the reference model"
    )
    order = [
        section.index(t)
        for t in (
            "*(a) Against the record*",
            "*(b) Against chance*",
            "*(c) The claim's own interval*",
        )
    ]
    assert order == sorted(order)
    assert "| 13 | 0.05 | 0.2790 | yes | 0.051 | 3 | &lt; 1e-6 | &gt; 1e+12 (capped) |" in section
    assert "beyond chance" not in md.lower() and "false positive" not in md


def _build_plain(folder: Path) -> None:
    make_fixture_db(folder / "plain.duckdb", runs=False)


def test_report_without_runs_or_literature_audits(cli, tmp_path, tmp_path_factory):
    # the fixture's reference data and 12 results, no runs, no audits: built once and kept
    # across runs as fresh_folder is (its build was ~0.1 s of this test's 0.15 s)
    plain = _built_folder_once(tmp_path_factory, "report-plain", _build_plain)
    db = copy_db(plain / "plain.duckdb", tmp_path / "plain.duckdb")
    res = cli("report", "-c", COLLECTION, db=db)
    assert res.exit_code == 0, res.output
    assert "no run archive is stored" in res.stdout
    assert "## Can the collection be trusted" not in res.stdout
    assert "plot(s) left out" not in res.stdout or "-o" in res.stdout


# --------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("-c", "nosuch"), "unknown collection 'nosuch'"),
        (("-c", COLLECTION, "-m", "AP", "--format", "pdf"), "--format: 'pdf' is not one of"),
    ],
)
def test_bad_input_is_one_line_and_exit_1(cli, fixture_db, args, message):
    res = cli("report", *args, db=fixture_db)
    assert res.exit_code == 1
    assert message in res.stderr and len(res.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("37.2", "claimed AP 37.2 is not a fraction; did you mean 0.372?"),
        ("-0.2", "claimed AP -0.2 is negative"),
    ],
)
def test_a_bad_claimed_value_is_an_error(cli, fixture_db, value, message):
    before = _n_audits(fixture_db)
    res = cli("report", "-c", COLLECTION, "-m", "AP", "--claim", value, db=fixture_db)
    assert res.exit_code == 1 and message in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and _n_audits(fixture_db) == before


def test_claim_needs_a_measure_when_there_are_several(cli, seeded_db_file, tmp_path):

    db = tmp_path / "s.duckdb"
    copy_db(seeded_db_file, db)
    res = cli("report", "-c", "robust04", "--claim", "0.36", db=db)
    assert res.exit_code == 1 and "--claim needs --measure" in res.stderr


def test_no_database_is_an_error_and_creates_nothing(cli, tmp_path):
    db = tmp_path / "missing.duckdb"
    res = cli("report", "-c", COLLECTION, db=db)
    assert res.exit_code == 1 and "no database" in res.stderr
    assert not db.exists()


def test_missing_output_directory_writes_nothing(cli, fixture_db, tmp_path):
    out = tmp_path / "nodir" / "r.md"
    res = cli("report", "-c", COLLECTION, "-m", "AP", "-o", out, db=fixture_db)
    assert res.exit_code == 1 and "does not exist" in res.stderr
    assert not list(tmp_path.glob("*.svg")) and not list(tmp_path.glob(".litaudit-*"))


# ------------------------------------------------------------------------------------ svg


def test_svg_plot_is_deterministic_and_drops_missing_points():
    from litaudit.render.report.svg import Plot

    def make():
        p = Plot("t <&>", "x", "y")
        p.line([0, 1, 2], [0.1, float("nan"), 0.3], label="a")
        p.scatter([0.5], [0.2], label="b")
        p.area([0, 1], [0, 0], [1, 1], label="band")
        p.vline(1.5)
        return p.render()

    a, b = make(), make()
    assert a == b and "t &lt;&amp;&gt;" in a and "nan" not in a
    assert a.count("<circle") == 2  # the point and its legend symbol
    with pytest.raises(ValueError):
        Plot("t", "x", "y").line([1, 2], [1])


def test_number_format_has_no_negative_zero():
    from litaudit.render.report.svg import num

    assert num(-0.001) == "0.00" and num(12.345) == "12.35" and num(-1.5) == "-1.50"


@given(st.floats(-1e3, 1e3), st.floats(1e-6, 1e3))
def test_ticks_are_nice_increasing_and_inside(lo, span):
    from litaudit.render.report.svg import nice_step, ticks

    hi = lo + span
    vals, decimals = ticks(lo, hi)
    step = nice_step(span, 5)
    mant = step / 10 ** math.floor(math.log10(step))
    assert any(math.isclose(mant, m, rel_tol=1e-9) for m in (1, 2, 5, 10))
    assert vals == sorted(vals) and len(vals) >= 1
    tol = step * 1e-6
    assert all(lo - tol <= v <= hi + tol for v in vals)
    assert len({f"{v:.{decimals}f}" for v in vals}) == len(vals)  # labels distinct


def test_report_passes_over_reuse_audits_stored_in_an_older_shape(fixture_db):
    """A verdict stored by an earlier version (another JSON shape) with the same
    parameters is not used (it no longer decodes); the report uses the current one."""
    from litaudit.analyses.audits import AuditKey, _insert, get_audit
    from litaudit.analyses.report_audits import prepare_report
    from litaudit.store.db import open_store

    with open_store(fixture_db) as store:
        con = store.con
        before = prepare_report(con, COLLECTION, measure="AP")
        assert before.verdict is not None
        old = get_audit(con, before.verdict)
        key = AuditKey(
            kind=old.kind,
            collection_id=old.collection_id,
            measure=old.measure,
            params=old.params,
            method=old.method,
            input_fingerprint=old.input_fingerprint,
            seed=old.seed,
            trials=old.trials,
        )
        _insert(con, [(key, {"checks": [], "passed": None})])
        after = prepare_report(con, COLLECTION, measure="AP")
    assert after.verdict == before.verdict


@pytest.mark.slow(reason="the first report on a fresh database (a module fixture, 0.7 s)")
def test_report_agreement_is_the_verdicts_own(reported):
    """The report's agreement section is the stored verdict's agreement over random
    assignments (the analysis `reuse verdict` prints), cited to the verdict's audit; no
    other agreement analysis is run or stored."""
    from litaudit.analyses.audits import get_audit, list_audits
    from litaudit.store.db import open_store

    with open_store(reported.db, read_only=True) as store:
        assert list_audits(store.con, kind="reuse-agreement") == []
        (v,) = list_audits(store.con, kind="reuse-verdict")
        a = get_audit(store.con, v.id).result.agreement
    md = reported.md
    section = md[md.index("### Agreement in significance over random assignments") :]
    section = section[: section.index("\n## ")]
    assert f"(audit #{v.id})" in section
    assert f"{a.assignments} random assignments (seed {a.seed})" in section
    assert f"{a.flips} sign flips" in section and f"seed {a.flip_seed}" in section
    rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    assert [r.split(" | ")[0].lstrip("| ") for r in rows[1:]] == [p.analysis for p in a.parts]
    assert "Kendall" not in section and "expected from power analysis" not in section


def test_agreement_rows_are_the_verdicts_numbers():
    """Each row of the report's agreement table is one part of the verdict's agreement
    test, with its numbers as stored (a score-matrix verdict: 12 runs of 6 sites)."""
    import numpy as np

    from litaudit.analyses.reuse.verdict_matrix import matrix_verdict
    from litaudit.render.report.blocks import Para, Table
    from litaudit.render.report.document_reuse import _agreement
    from litaudit.render.report.model import ReuseSection

    rng = np.random.default_rng(5)
    scores = rng.uniform(0.1, 0.5, (12, 60)) + np.linspace(0, 0.2, 12)[:, None]
    v = matrix_verdict(scores, [r // 2 for r in range(12)], assignments=20)
    section = ReuseSection(
        n_runs=12,
        verdict_audit=3,
        verdict=v,
        rao_audit=None,
        rao=None,
        lou_audit=None,
        lou=None,
        sub_audit=None,
        subcollections=None,
        notes=(),
    )
    blocks = _agreement(section)
    para = next(b for b in blocks if isinstance(b, Para)).text
    table = next(b for b in blocks if isinstance(b, Table))
    a = v.agreement
    assert a is not None
    assert "(audit #3)" in para and "20 random assignments" in para
    tested = [p for p in a.parts if p.status == "tested"]
    assert tested, "the fixture should give at least one tested analysis"
    for p in tested:
        row = next(r for r in table.rows if r[0] == p.analysis)
        real, null = some(p.disagreement_real), some(p.disagreement_null)
        assert row[2] == f"{100 * real:.1f}% / {100 * null:.1f}%"
        assert row[3].startswith(f"{some(p.paper_p).median:.3f} (")
        assert row[4] == f"{p.paper_rejections} of 20"
        assert row[5] == f"{p.p_value:.3g}"
