"""The report answers first (issue 20): conclusions before everything, the claim drawn on
every plot of its population, the plots' counts equal to the CLI's, citations a reader can
use, the audits' filters.

The fixture database is tests/test_report.py's (12 AP results on TREC-7, 4 runs); the
citations are checked on the seeded store (the MS MARCO passage leaderboard's record).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import _built_folder_once, copy_db
from tests.report.test_report import COLLECTION, lit_folder
from tests.typed import without_verdict


@pytest.fixture(scope="module")
def lit_db_file(tmp_path_factory) -> Path:
    """The fixture database without runs, with its literature audits (read-only; kept
    across runs: tests/report/test_report.py ``lit_folder``)."""
    return lit_folder(tmp_path_factory) / "lit.duckdb"


@pytest.fixture
def lit_db(lit_db_file, tmp_path) -> Path:
    path = tmp_path / "lit.duckdb"
    copy_db(lit_db_file, path)
    return path


def _section(md: str, heading: str) -> str:
    """From ``heading`` to the next section's anchor or heading."""
    start = md.index(heading)
    ends = [md.find(m, start + len(heading)) for m in ("\n## ", '\n<a id="')]
    return md[start : min([e for e in ends if e > 0], default=len(md))]


# ---------------------------------------------------------------------------- conclusions


def test_conclusions_come_first_and_link_their_evidence(cli, lit_db):
    md = cli("report", "-c", COLLECTION, "-m", "AP", "--claim", "0.36", db=lit_db).stdout
    heads = re.findall(r"^## (.+)$", md, flags=re.M)
    # the verdict first (issue 32), then the conclusions and the claim audit
    assert heads[:3] == ["Verdict: AP = 0.36 on trec7", "Conclusions", "Claim audit: AP = 0.36"]
    concl = _section(md, "## Conclusions")
    first = concl.split("\n\n")[1]  # the paragraph a reviewer pastes
    assert first == (
        "The claim AP = 0.36 on TREC-7 ad hoc (`disks45/nocr/trec7`) is checked against "
        "the 12 published AP results in the litaudit store (all of them: no filters)."
    )
    items = [line for line in concl.splitlines() if line.startswith("- ")]
    # one sentence per question: the record, chance, reusability (no runs here)
    assert [i[2:].split(":")[0] for i in items] == [
        "Against the record",
        "Against chance",
        "Reusability",
    ]
    # the claim audit's own sentences, as `audit claim` prints them
    term = cli(
        "audit", "claim", "-c", COLLECTION, "-m", "AP", "--value", "0.36", "--no-save", db=lit_db
    ).output.splitlines()
    record = next(x for x in term if x.startswith("Against the record:"))
    chance = next(x for x in term if x.startswith("Against chance:"))
    covers = (
        "What the record covers: TREC trec7/adhoc 1998 (7); papers 2019-2021 (5); no "
        "published result after 2021."
    )
    assert _unmd(items[0]).startswith(f"- {record} {covers} ([evidence: claim audit #2, N = 12 ")
    assert _unmd(items[1]).startswith(f"- {chance} ([evidence: claim audit #2, the max of 13")
    assert "[evidence: claim audit #2, N = 12 published AP results](<#claim-ap>)" in items[0]
    assert "[its paper](<https://doi.org/10.1145/0000001>)" in items[0]
    assert "(<#chance-ap>)" in items[1]
    # every link of the conclusions reaches an anchor of the report
    for target in re.findall(r"\(<#([a-z0-9-]+)>\)", concl):
        assert f'<a id="{target}"></a>' in md, target


def test_conclusions_are_the_audits_sentences(cli, lit_db):
    """The record and chance conclusions are the claim audit's own sentences
    (analyses.extreme.wording_claim), word for word; without a claim, the record and its candidates."""
    import json

    from litaudit.render.report.build import _conclusions
    from litaudit.render.report.model import ClaimSection

    c = ClaimSection(
        "AP",
        7,
        None,
        0.36,
        answers=("Against the record: r.", "Against chance: c."),
        n_results=12,
        n_draws=13,
    )

    class _A:
        collection_id = "x"

    got = _conclusions((c,), (), None, _A())  # type: ignore[arg-type]
    assert [x.sentence for x in got[:2]] == ["Against the record: r.", "Against chance: c."]
    assert got[1].evidence == "claim audit #7, the max of 13 draws"
    res = cli("report", "-c", COLLECTION, "-m", "AP", "--format", "json", db=lit_db)
    (best,) = [x for x in json.loads(res.stdout)["conclusions"] if x["question"] == "best"]
    # no claim: the record and the candidates that cannot be told apart from it
    assert best["sentence"] == (
        "The record for AP: 0.3010 by NeuralX (Smith et al. (SIGIR 2019)); 6 of the other "
        "11 published results lie at or above 0.2362, the lower end of its 60% interval, "
        "and cannot be told apart from it. What the record covers: TREC trec7/adhoc 1998 "
        "(7); papers 2019-2021 (5); no published result after 2021."
    )


def test_html_conclusions_have_anchors_and_links(cli, lit_db):
    html = cli("report", "-c", COLLECTION, "-m", "AP", "--claim", "0.36", "-f", "html", db=lit_db)
    page = html.stdout
    body = page[page.index("<body>") :]
    assert body.index('<h2 id="conclusions">') < body.index('<h2 id="claim-ap">')
    assert body.index('<h2 id="claim-ap">') < body.index('<h2 id="best-ap">')
    assert body.index('<h2 id="best-ap">') < body.index('<h2 id="data">')
    assert '<a href="#claim-ap" rel="noreferrer">evidence: claim audit #2' in page
    assert 'id="chance-ap"' in page


# -------------------------------------------------------------------------------- filters


def test_report_takes_the_audits_filters_and_says_them(cli, lit_db):
    """--until 2020: the record when a 2020 paper was submitted (the 2021 results left
    out): the same population as `audit claim --until 2020`."""
    res = cli(
        "report",
        "-c",
        COLLECTION,
        "-m",
        "AP",
        "--claim",
        "0.36",
        "--until",
        "2020",
        "--source",
        "official",
        db=lit_db,
    )
    assert res.exit_code == 0, res.output
    first = _section(res.stdout, "## Conclusions").split("\n\n")[1]
    assert first.endswith(
        "the 7 published AP results in the litaudit store with these filters: source "
        "official, dated up to 2020-12-31 (`--source official --until 2020-12-31`)."
    )
    term = cli(
        "audit",
        "claim",
        "-c",
        COLLECTION,
        "-m",
        "AP",
        "--value",
        "0.36",
        "--until",
        "2020",
        "--source",
        "official",
        "--no-save",
        db=lit_db,
    )
    record = without_verdict(term.output)[2]  # the answers first after the header (issue 20)
    assert record.startswith("Against the record: 0.3600 is above the record, 0.2750 (runF")
    assert record in _unmd(res.stdout)


def test_a_bad_filter_fails_before_any_audit(cli, lit_db):
    from tests.report.test_report import _n_audits

    before = _n_audits(lit_db)
    res = cli("report", "-c", COLLECTION, "-m", "AP", "--until", "2020-13", db=lit_db)
    assert res.exit_code == 1 and "--until" in res.stderr
    assert _n_audits(lit_db) == before


def _unmd(text: str) -> str:
    import html

    return html.unescape(re.sub(r"\\(.)", r"\1", text))


# ---------------------------------------------------------------------------------- plots


def test_claim_is_drawn_on_every_plot_of_its_population(cli, lit_db, tmp_path):
    out = tmp_path / "r.md"
    res = cli("report", "-c", COLLECTION, "-m", "AP", "--claim", "0.36", "-o", out, db=lit_db)
    assert res.exit_code == 0, res.output
    svgs = sorted(tmp_path.glob("r.fig-*.svg"))
    assert [p.name for p in svgs] == [
        "r.fig-expected-max-AP.svg",
        "r.fig-history-AP.svg",
        "r.fig-mxvd-AP.svg",
    ]
    for p in svgs:
        svg = p.read_text(encoding="utf-8")
        assert "claim = 0.3600" in svg, p.name  # its label, beside the line or at the edge
    # 0.36 is far right of the interval plot's curves: an arrow at the right edge
    assert "claim = 0.3600 \u2192" in (tmp_path / "r.fig-mxvd-AP.svg").read_text("utf-8")


def test_history_caption_counts_are_the_clis(cli, lit_db):
    """The figure's counts are those `audit history` prints (records, steps, records above
    the threshold, steps with the record above it), not every step counted as a record."""
    term = cli("audit", "history", "-c", COLLECTION, "-m", "AP", "--no-save", db=lit_db).output
    m = re.search(r"(\d+) records over (\d+) (year|date)s; (\d+) of them above", term)
    beyond = re.search(r"; (\d+) (?:year|date)s with the record above it", term)
    assert m and beyond
    from litaudit.render.report.figures import history_figure

    fig = history_figure(_literature_section(lit_db))
    assert fig is not None
    n_rec, n_steps, step, n_above = m.groups()
    assert (
        f"{n_rec} records over {n_steps} {step}s; {n_above} of them above that value; "
        f"{beyond.group(1)} {step}s with the record above it." in fig.caption
    )
    assert (n_rec, n_steps, n_above) == ("2", "3", "2")


def _literature_section(db: Path):
    from litaudit.analyses.report_audits import prepare_report
    from litaudit.render.report import build_report
    from litaudit.store.db import open_store

    with open_store(db) as store:
        rep = build_report(store.con, prepare_report(store.con, COLLECTION, measure="AP"))
    return rep.literature[0]


def test_a_dated_history_has_a_date_axis_fitted_to_its_days():
    """robust03's history: six dates in one week of 2003 (the axis ran 1900-2200)."""
    from litaudit.render.report.figures import history_figure
    from litaudit.render.report.model import HistoryPoint, LiteratureSection

    days = ["2003-07-30", "2003-07-31", "2003-08-01", "2003-08-04", "2003-08-05", "2003-08-06"]
    pts = tuple(
        HistoryPoint(
            2003, 5 + i, 0.25 + 0.01 * i, 0.23, 0.24, when=d, new_record=i % 2 == 0, beyond=True
        )
        for i, d in enumerate(days)
    )
    lit = LiteratureSection(
        "AP",
        1,
        None,
        n=None,
        n_topics=None,
        mean=None,
        sd=None,
        se=None,
        maximum=None,
        expected_max=None,
        alpha=None,
        max_threshold=None,
        min_threshold=None,
        n_above=None,
        n_below=None,
        expected_above_under_null=None,
        p=None,
        value=None,
        mu0=None,
        lower=None,
        coverage=None,
        candidates=(),
        history_audit=2,
        history=pts,
        history_error=None,
    )
    fig = history_figure(lit, 0.3)
    assert fig is not None
    labels = re.findall(r'text-anchor="middle">([^<]+)</text>', fig.svg)
    ticks = [t for t in labels if re.fullmatch(r"\d{4}-\d\d-\d\d", t)]
    assert ticks and all("2003-07-25" <= t <= "2003-08-10" for t in ticks), labels
    assert "1900" not in labels and "2200" not in labels
    assert "3 records over 6 dates; 3 of them above that value; 6 dates with" in fig.caption


def test_date_ticks_by_span():
    import datetime as dt

    from litaudit.render.report.svg import date_ticks

    def d(s: str) -> float:
        return float(dt.date.fromisoformat(s).toordinal())

    years = [t for _, t in date_ticks(d("2018-11-01"), d("2022-11-13"))]
    assert years == ["2019", "2020", "2021", "2022"]
    months = [t for _, t in date_ticks(d("2021-01-15"), d("2021-09-20"))]
    assert len(months) >= 3 and all(re.fullmatch(r"2021-0[2-9]", t) for t in months), months
    days = date_ticks(d("2003-07-29"), d("2003-08-07"))
    assert days[0][1] == "2003-07-29" and all(d("2003-07-29") <= x for x, _ in days)


def test_legend_lies_below_the_data():
    from litaudit.render.report.svg import HEIGHT, MARGIN_B, Plot

    p = Plot("t", "x", "y")
    p.line([0, 1], [0, 1], label="a line")
    p.scatter([0.5], [0.5], label="a point")
    svg = p.render()
    legend = svg[svg.index('<g class="legend">') :]
    ys = [float(y) for y in re.findall(r' y="([\d.]+)"', legend)]
    assert ys and min(ys) > HEIGHT - MARGIN_B
    assert f'viewBox="0 0 640 {HEIGHT + 28}"' in svg  # the plot grows by the legend


def test_run_points_are_named_and_the_notable_ones_labelled():
    from litaudit.analyses.reuse.overlap import RAOReport, RunRAO
    from litaudit.render.report.figures import rao_figure
    from litaudit.render.report.model import ReuseSection

    runs = tuple(
        RunRAO(f"run{i}", f"site{i}", "automatic", 0.2 + 0.03 * i, 50, 0.1 + 0.01 * (i % 5))
        for i in range(12)
    )
    rao = RAOReport(
        collection_id="c",
        depth=100,
        measure="Rprec",
        n_runs=12,
        n_participants=12,
        lower_bound=1 / 12,
        mean_rao=0.3,
        min_rao=0.2,
        max_rao=0.53,
        runs=runs,
    )
    sec = ReuseSection(
        n_runs=12,
        verdict_audit=None,
        verdict=None,
        rao_audit=3,
        rao=rao,
        lou_audit=None,
        lou=None,
        sub_audit=None,
        subcollections=None,
        notes=(),
    )
    fig = rao_figure(sec)
    assert fig is not None
    tips = re.findall(r"<title>([^<]+)</title></circle>", fig.svg)
    assert len(tips) == 12 and tips[0].startswith("run0 (site0): RAO 0.200, Rprec 0.1000")
    labels = re.findall(r'font-size="10" fill="#333333"[^>]*>([^<]+)</text>', fig.svg)
    assert "run11" in labels  # the highest RAO
    assert "run9" in labels or "run4" in labels  # the most effective (0.14)


# ------------------------------------------------------------------------------ citations


@pytest.fixture(scope="module")
def msmarco_md(seeded_db_file, tmp_path_factory) -> str:
    """The Markdown `report` prints of the seeded MS MARCO passage leaderboard: run once
    a run, and kept across runs while nothing it is built from changes (the package, the
    seeds, tests/conftest.py, this module: tests/conftest.py ``_built_folder_once``)."""

    def build(folder: Path) -> None:
        from typer.testing import CliRunner

        from litaudit.cli.main import app

        db = folder / "s.duckdb"
        shutil.copy(seeded_db_file, db)
        args = ["report", "-c", "msmarco-passage/dev", "-m", "RR@10", "--claim", "0.397"]
        res = CliRunner().invoke(app, ["--db", str(db), *args])
        assert res.exit_code == 0, res.output
        (folder / "report.md").write_text(res.stdout, encoding="utf-8")
        for path in folder.glob("s.duckdb*"):  # the database is not kept: 17 MB
            path.unlink()

    folder = _built_folder_once(tmp_path_factory, "report-msmarco", build)
    return (folder / "report.md").read_text(encoding="utf-8")


def test_record_holder_is_cited_as_a_reader_cites_it(msmarco_md):
    """The leaderboard's record: team, leaderboard, date, linked to its paper and code;
    the file, line and column it was transcribed from only in the appendix."""
    md = msmarco_md
    team = (
        "Alibaba DAMO NLP Group &amp; CTO Line-AI Engine Group, "
        "msmarco-passage/leaderboard/full-ranking, 2022-03-17"
    )
    holder = md[md.index("## Claim audit") : md.index("## The best published")]
    assert (
        # short link text (the host: a raw URL ran the HTML table off the page), then the
        # result's id in the store (issue 32)
        f"| {team} | [arxiv.org](<https://arxiv.org/pdf/2205.10569>) | "
        "[github.com](<https://github.com/Alibaba-NLP/HLATR>) | " in holder
    )
    concl = _section(md, "## Conclusions")
    assert f"the record: {team}" in concl
    assert "[its code](<https://github.com/Alibaba-NLP/HLATR>)" in concl
    where = "msmarco\\_passage\\_leaderboard.csv: line 159, column dev"
    appendix = md.index("## Appendix B")
    assert md.count(where) == 1 and md.index(where) > appendix


def test_parameters_are_a_readable_table_not_json(msmarco_md):
    audits = _section(msmarco_md, "## Appendix A")
    assert "{" not in audits and '"' not in audits
    assert "alpha 0.05; filters: none; p 0.2" in audits


def test_filter_options_name_every_filter_the_report_takes():
    from litaudit.curation.filters import Filters
    from litaudit.render.report.build import filter_options

    f = Filters.parse(until="2021-12", track="mteb/retrieval", zero_shot=True)
    assert filter_options(f) == "--until 2021-12-31 --track mteb/retrieval --zero-shot"
