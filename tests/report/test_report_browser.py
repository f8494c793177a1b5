"""The HTML report rendered in a real browser (headless Chromium, Debian's package).

Checks the rendered DOM (the page's text, every plot drawn as SVG with paths) and the
browser's network log (the page itself requests nothing). `make test` installs chromium
(`make browser`); without it these tests skip with the reason. Chromium's answers (the
DOM, the requests, the screenshots) are kept across runs under the digest of the pages,
the probe scripts, the switches and the browser (tests/kept_browser.py ``browse``); the
assertions run on them on every run.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import _built_folder_once
from tests.kept_browser import Browsed, browse
from tests.report.test_report import COLLECTION, reported_folder

REPORT = Path(__file__).with_name("test_report.py")


@pytest.fixture(scope="module")
def html_report(tmp_path_factory) -> Path:
    """The HTML report with a claim of 0.36, on a copy of test_report.py's reported
    database (its literature audits and the verdict the first report stored, reused here).
    Built once a run and kept across runs while nothing it is built from changes
    (tests/conftest.py ``_built_folder_once``: the package, this module, test_report.py)."""

    def build(folder: Path) -> None:
        from typer.testing import CliRunner

        from litaudit.cli.main import app

        db = folder / "fixture.duckdb"
        shutil.copy(reported_folder(tmp_path_factory) / "reported.duckdb", db)
        args = ["report", "-c", COLLECTION, "-m", "AP", "--claim", "0.36", "-o"]
        res = CliRunner().invoke(app, ["--db", str(db), *args, str(folder / "report.html")])
        assert res.exit_code == 0, res.output
        db.unlink()  # the page is what the tests read

    return _built_folder_once(tmp_path_factory, "html-report", build, also=(REPORT,)) / (
        "report.html"
    )


@pytest.fixture(scope="module")
def first_screen(tmp_path_factory) -> Path:
    """Where :func:`laid_out` puts the screenshot of the report's first screen."""
    return tmp_path_factory.mktemp("laid-out") / "first-screen.png"


@pytest.fixture(scope="module")
def laid_out(html_report, first_screen, pytestconfig) -> tuple[dict, str, list[str]]:
    """The report loaded once at 1280x800 (:func:`layout_boxes`: the conclusions' boxes,
    the DOM as laid out, and the requests the page made; the screenshot of its first
    screen as ``first_screen``) for the render and first-screen tests: one Chromium for
    both (its answer, screenshot bytes included, kept across runs: ``browse``)."""
    return layout_boxes(
        html_report, first_screen.parent, 1280, 800, shot=first_screen, config=pytestconfig
    )


@pytest.mark.slow(reason="a headless Chromium (make test-fast needs none)")
def test_page_renders_text_and_plots_without_requests(laid_out):
    """The page's text and every plot drawn, and no request (the copy laid_out loads has
    no Content-Security-Policy, so nothing the report holds is blocked from asking)."""
    _boxes, dom, requests = laid_out
    dom = dom[: dom.index('<pre id="BOXES">')]  # the page's own, not the probe's output
    text = re.sub(r"<[^>]+>", " ", dom)
    for words in (
        "Data and provenance",
        "The best published AP against the best of N",
        "Candidate best systems (7)",  # under TREC-7's measured se 0.0155
        "NeuralX",
        "Smith et al. (SIGIR 2019)",
        "Against the record: 0.3600 is above the record, 0.3010 (NeuralX",
        "Can the collection be trusted? Reusability",
        "Appendix A: the audits cited",
    ):
        assert words in text, words
    plots = re.findall(r"<figure>(.*?)</figure>", dom, flags=re.S)
    assert len(plots) == 5
    for fig in plots:
        assert '<svg xmlns="http://www.w3.org/2000/svg"' in fig and 'class="plot"' in fig
        assert re.search(r'<path d="M\d', fig), fig[:200]
        assert "<figcaption>" in fig
    assert dom.count("<circle ") > 0
    assert requests == []


# the network check is not vacuous: an <img> with an http URL is seen (with the console
# check, in one page: tests/site/test_site_browser.py)


@pytest.mark.slow(reason="a headless Chromium (make test-fast needs none)")
def test_phone_width_screenshot(html_report, pytestconfig):
    """The screenshot's bytes are Chromium's kept answer while the report is unchanged."""
    res = browse(
        pytestconfig, html_report, "--window-size=390,1400", "--hide-scrollbars", shot=True
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.png is not None
    png = res.png
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width = int.from_bytes(png[16:20], "big")
    assert width == 390


@pytest.fixture(scope="module")
def scifact_report(tmp_path_factory, seeded_db_file) -> Path:
    """A report on a database seeded as `litaudit init` seeds it (every seed; a copy of
    the session's file, conftest.py): BEIR SciFact nDCG@10, the MTEB population, with a
    claim of 0.80. Kept across runs as :func:`html_report` is."""

    def build(folder: Path) -> None:
        from typer.testing import CliRunner

        from litaudit.cli.main import app

        db = folder / "seeded.duckdb"
        shutil.copy(seeded_db_file, db)
        args = ["report", "-c", "beir/scifact/test", "-m", "nDCG@10", "--claim", "0.80", "-o"]
        res = CliRunner().invoke(app, ["--db", str(db), *args, str(folder / "scifact.html")])
        assert res.exit_code == 0, res.output
        db.unlink()  # the page is what the tests read

    return _built_folder_once(tmp_path_factory, "scifact-report", build) / "scifact.html"


@pytest.fixture(scope="module")
def scifact_laid_out(scifact_report, tmp_path_factory, pytestconfig) -> tuple[dict, str, list[str]]:
    """The SciFact report loaded once at 1280x1000 for the render and table-width tests:
    a copy with the widths' script added and the CSP that forbids scripts removed (so
    nothing the report holds is blocked from asking), its DOM with the script's output
    parsed off, and the requests it made (Chromium's answer kept across runs while the
    copy is unchanged: ``browse``)."""
    folder = tmp_path_factory.mktemp("scifact-laid-out")
    widths, res, at = _probe(pytestconfig, scifact_report, folder, _WIDTHS, "WIDTHS", 1280, 1000)
    assert res.requests is not None
    return widths, res.stdout[:at], res.requests


@pytest.mark.slow(reason="a headless Chromium (make test-fast needs none)")
def test_beir_scifact_report_renders(scifact_laid_out):
    _widths, dom, requests = scifact_laid_out
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", dom))
    # the candidate best systems of MTEB's SciFact population, by name
    for words in (
        "SciFact, test (BEIR)",
        "Candidate best systems (139)",  # under the [0, 1] bound on 300 queries (with papers since 2019)
        "openbmb/MiniCPM-Embedding",
        "Salesforce/SFR-Embedding-2_R",
        "mteb/retrieval",
        "Claim audit: nDCG@10 = 0.8",
    ):
        assert words in text, words
    plots = re.findall(r"<figure>(.*?)</figure>", dom, flags=re.S)
    assert len(plots) == 3  # interval, expected max, record over time (no run archive)
    for fig in plots:
        assert re.search(r'<path d="M\d', fig), fig[:200]
    assert requests == []


# the boxes of the conclusions in the page as laid out (a copy of the report with this
# script added and the CSP that forbids scripts removed; the report itself runs none)
_BOXES = """<script>window.addEventListener('load', () => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return [r.top + scrollY, r.bottom + scrollY, r.left, r.right]; };
  const out = {heading: box(document.getElementById('conclusions')),
    list: box(document.querySelector('ul.conclusions')),
    verdict: box(document.getElementById('verdict-ap')),
    verdict_list: box(document.querySelector('ul.verdict')),
    first_figure: box(document.querySelector('figure')),
    viewport: [innerWidth, innerHeight]};
  const pre = document.createElement('pre'); pre.id = 'BOXES';
  pre.textContent = JSON.stringify(out); document.body.appendChild(pre); });</script>"""


def layout_boxes(
    report: Path,
    folder: Path,
    width: int,
    height: int,
    shot: Path | None = None,
    config: pytest.Config | None = None,
) -> tuple[dict, str, list[str]]:
    """Bounding boxes (top, bottom, left, right in CSS px from the page's top) of the
        conclusions' heading and list and of the first figure, at a window of width x height;
        the page's DOM as laid out (the report's, with the boxes' script and its output); and
        the requests it made (:func:`page_requests`). ``shot``: a screenshot of the window
        taken by the same Chromium (its first screen: the probe's output is appended at the
        page's end; the boxes are the same with it or without). With ``config``, Chromium's
    answer is kept across runs while the probe is unchanged (tests/kept_browser.py)."""
    boxes, res, _at = _probe(config, report, folder, _BOXES, "BOXES", width, height, shot=shot)
    assert res.requests is not None
    return boxes, res.stdout, res.requests


def _probe(
    config: pytest.Config | None,
    report: Path,
    folder: Path,
    script: str,
    pre_id: str,
    width: int,
    height: int,
    shot: Path | None = None,
) -> tuple[dict, Browsed, int]:
    """``report`` laid out by Chromium at a window of width x height, as a copy in
    ``folder`` with ``script`` added and the CSP that forbids scripts removed (so nothing
    the report holds is blocked from asking): what the script wrote into its
    ``<pre id=pre_id>`` (JSON), Chromium's answer (:func:`tests.kept_browser.browse`, with
    its network log; kept across runs while the copy is unchanged when ``config`` is
    given) and where the script's output starts in the DOM. ``shot``: the window's
    screenshot written there, taken by the same Chromium."""
    import html as _html

    page = report.read_text(encoding="utf-8")
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
    probe = folder / "probe.html"
    probe.write_text(page.replace("</body>", script + "</body>"), encoding="utf-8")
    res = browse(
        config,
        probe,
        f"--window-size={width},{height}",
        "--hide-scrollbars",
        "--dump-dom",
        netlog=True,
        shot=shot is not None,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    if shot is not None:
        assert res.png is not None
        shot.write_bytes(res.png)
    m = re.search(rf'<pre id="{pre_id}">(.*?)</pre>', res.stdout, flags=re.S)
    assert m, res.stdout[-2000:]
    return json.loads(_html.unescape(m.group(1))), res, m.start()


@pytest.mark.slow(reason="a headless Chromium (make test-fast needs none)")
def test_conclusions_are_in_the_first_screen_at_1280x800(laid_out, first_screen):
    """A reviewer opening the report sees its answers without scrolling: at 1280x800 the
    verdict (heading and every line) ends above 800 px, the Conclusions follow it, all
    before any plot; the screenshot of that first screen is taken too (by the Chromium
    that laid the page out)."""
    boxes, dom, _requests = laid_out
    png = first_screen.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")) == (1280, 800)

    # headless Chromium lays the page out 1280 px wide; its inner height (657 px for an
    # 800 px window, the window's own bars taken off) is stricter than the screenshot's
    width, inner = boxes["viewport"]
    assert width == 1280 and inner <= 800
    top, bottom = boxes["verdict"][0], boxes["verdict_list"][1]
    assert 0 < top < bottom <= inner, boxes
    assert bottom < boxes["heading"][0] < boxes["list"][1] < boxes["first_figure"][0]
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", dom))
    for words in (
        "Verdict: AP = 0.36 on trec7",
        "Above the record? Yes: 0.36 is 0.0590 above the record 0.3010",
        "Conclusions",
        "The claim AP = 0.36 on TREC-7 ad hoc",
        "Against the record: 0.3600 is above the record, 0.3010",
        "Against chance:",
        "Reusability:",
    ):
        assert words in text, words


_WIDTHS = """<script>window.addEventListener('load', () => {
  const body = document.body.getBoundingClientRect();
  const tables = [...document.querySelectorAll('table')].map((t) => {
    const r = t.getBoundingClientRect(); return [r.left, r.right]; });
  const pre = document.createElement('pre'); pre.id = 'WIDTHS';
  pre.textContent = JSON.stringify({body: [body.left, body.right], tables});
  document.body.appendChild(pre); });</script>"""


@pytest.mark.slow(reason="a headless Chromium (make test-fast needs none)")
def test_tables_fit_the_page_and_carry_result_ids(scifact_report, scifact_laid_out):
    """Issue 32: the candidate table ran off the page (raw URLs as link text); at
    1280 px every table now lies within the page's body, its links short, and the cited
    results carry their ids."""
    got, _dom, _requests = scifact_laid_out
    page = scifact_report.read_text(encoding="utf-8")
    left, right = got["body"]
    assert got["tables"] and all(a >= left - 1 and b <= right + 1 for a, b in got["tables"]), got
    links = re.findall(r'<a href="https?://[^"]+" rel="noreferrer">([^<]+)</a>', page)
    assert links and all(len(t) <= 40 and "://" not in t for t in links), links[:5]
    assert "<th>result</th>" in page
