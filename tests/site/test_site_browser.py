"""The site in a real browser (headless Chromium, Debian's package; `make browser`):
the first screen of a population page shows the record and the tied group; sorting and
the filters work; headings, labels and focus order serve keyboard users; no page logs a
console message or requests anything outside the site.

Interaction runs in the page itself: a copy of the page gets a test script (allowed by
adding its hash to the page's Content-Security-Policy) that clicks, types and reads the
DOM after the site's own script has set up, and writes what it saw into the page as
JSON, which ``--dump-dom`` returns. Without chromium these tests skip with the reason.
Chromium's answers (the DOM, the console lines, the requests) are kept across runs under
the digest of the site's files, the page with its test script, the switches and the
browser (tests/kept_browser.py ``browse``); the assertions run on them on every run, and
a change to a page, a script or the launch launches Chromium again.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from pathlib import Path

import pytest

from tests.kept_browser import browse

pytestmark = pytest.mark.slow(reason="a headless Chromium (make test-fast needs none)")


@pytest.fixture(scope="module")
def site(fixture_site) -> Path:
    """The fixture store's site (tests/site/conftest.py), built once with test_site.py's."""
    return fixture_site[1]


def console_lines(stderr: str) -> list[str]:
    """What the page logged: Chromium's console lines (errors, CSP violations, logs)."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def _open(
    config: pytest.Config, page: Path, root: Path, size: str = "1280,800"
) -> tuple[str, list[str], list[str]]:
    """(DOM after the scripts ran, console lines, requests outside the site) of ``page``
    under ``root`` (the site's folder: all the page can load), kept across runs."""
    res = browse(
        config,
        page,
        "--enable-logging=stderr",
        "--v=0",
        f"--window-size={size}",
        "--virtual-time-budget=5000",
        "--dump-dom",
        root=root,
        netlog=True,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.requests is not None
    return res.stdout, console_lines(res.stderr), res.requests


def _selftest(
    config: pytest.Config, page: Path, bodies: dict[str, str], root: Path, size: str = "1280,800"
) -> tuple[str, dict[str, dict]]:
    """Run each of ``bodies`` (JavaScript setting ``out``), in their order, in one copy of
    ``page`` once it has loaded: one Chromium for several checks of one page. Returns the
    DOM after them and each body's ``out`` by its name."""
    parts = "".join(
        "(function () { var out = {}; try { " + body + " } catch (e) { out.error = String(e); } "
        f"all[{json.dumps(name)}] = out; }})(); "
        for name, body in bodies.items()
    )
    js = (
        'window.addEventListener("load", function () { var all = {}; ' + parts + "var pre = "
        'document.createElement("pre"); pre.id = "selftest"; pre.textContent = '
        "JSON.stringify(all); document.body.appendChild(pre); });"
    )
    digest = "sha256-" + base64.b64encode(hashlib.sha256(js.encode()).digest()).decode()
    text = page.read_text(encoding="utf-8")
    text = text.replace("script-src '", f"script-src '{digest}' '", 1)
    text = text.replace("</body>", f"<script>{js}</script>\n</body>", 1)
    copy = page.with_name(f"{page.stem}.selftest-{size.replace(',', 'x')}.html")
    copy.write_text(text, encoding="utf-8")
    dom, console, requests = _open(config, copy, root, size)
    assert console == [] and requests == [], (page.name, console, requests)
    m = re.search(r'<pre id="selftest">(.*?)</pre>', dom, flags=re.S)
    assert m, dom[-2000:]
    outs = json.loads(html.unescape(m.group(1)))
    for name, out in outs.items():
        assert "error" not in out, (page.name, name, out)
    assert list(outs) == list(bodies), outs
    return dom, outs


POP = "pop/trec7-ap-paper.html"


@pytest.fixture(scope="module")
def pop_page(site, pytestconfig) -> tuple[str, dict[str, dict]]:
    """The population page loaded once at 1280x800 for four tests' checks, run in this
    order: the first screen (before a focus scrolls anything), keyboard (focus only),
    sorting (which ends sorted by rank, the order the page starts in), the filters."""
    bodies = {"first": FIRST_SCREEN, "keyboard": KEYBOARD, "sorting": SORTING, "filters": FILTERS}
    return _selftest(pytestconfig, site / POP, bodies, site)


@pytest.fixture(scope="module")
def index_page(site, pytestconfig) -> tuple[str, dict[str, dict]]:
    """The index loaded once for the render and keyboard tests."""
    return _selftest(pytestconfig, site / "index.html", {"keyboard": KEYBOARD}, site)


def test_every_page_renders_without_console_messages_or_requests(
    site, pop_page, index_page, pytestconfig
):
    """No page logs a console message or requests anything (the population page and the
    index: _selftest asserts both of the copy it loads, the pages' own script in it)."""
    doms = {POP: pop_page[0], "index.html": index_page[0]}
    for name in ("papers.html", "paper/smith2019.html"):
        dom, console, requests = _open(pytestconfig, site / name, site)
        assert console == [], (name, console)
        assert requests == [], (name, requests)
        doms[name] = dom
    for name, dom in doms.items():
        # the script ran: the filter form is shown and counts the rows
        assert re.search(r"<output[^>]*>showing \d+ of \d+</output>", dom), name


def test_console_and_network_checks_catch_an_error_and_a_request(tmp_path, pytestconfig):
    """Neither check is vacuous: a script error is seen in the console, an <img> with an
    http URL in the network log (one page with both: one Chromium for both checks; the
    report's tests use the same network check, tests/report/test_report_browser.py).
    Chromium's answer to this page is kept as the site's are (the checks' logic runs on
    it every run; a change to the page or the launch launches again)."""
    page = tmp_path / "error.html"
    page.write_text(
        '<!DOCTYPE html><p>x</p><img src="http://example.invalid/x.png">'
        "<script>undefined_fn();</script>",
        "utf-8",
    )
    _dom, console, requests = _open(pytestconfig, page, tmp_path)
    assert any("undefined_fn is not defined" in line for line in console)
    assert requests == ["http://example.invalid/x.png"]


FIRST_SCREEN = """
var rec = document.getElementById("record"), tied = document.getElementById("tied");
out.recordBottom = rec.getBoundingClientRect().bottom;
out.tiedBottom = tied.getBoundingClientRect().bottom;
out.height = window.innerHeight;
out.tiedInRecord = rec.contains(tied);
out.record = rec.textContent.replace(/\\s+/g, " ");
out.tied = Array.prototype.map.call(tied.querySelectorAll("li"), function (li) {
  return li.textContent; });
"""


@pytest.fixture(scope="module")
def pop_page_1024(site, pytestconfig) -> tuple[str, dict[str, dict]]:
    return _selftest(pytestconfig, site / POP, {"first": FIRST_SCREEN}, site, "1024,768")


def test_first_screen_shows_the_record_and_the_tied_group(pop_page, pop_page_1024):
    for size, (_dom, outs) in (("1280,800", pop_page), ("1024,768", pop_page_1024)):
        out = outs["first"]
        assert out["tiedInRecord"]
        assert out["recordBottom"] <= out["height"], (size, out)
        assert "0.4010 by NeuralX" in out["record"]
        assert "2 of the other 6 published results lie at or above 0.3432" in out["record"]
        assert out["tied"] == [
            "0.3990 Dense, Lee (ECIR 2023)",
            "0.3950 DeepY, Jones and Lee (CIKM 2021)",
        ]


SORTING = """
var table = document.getElementById("board");
function col(i) { return Array.prototype.map.call(table.tBodies[0].rows, function (r) {
  return r.cells[i].textContent; }); }
function head(label) { return Array.prototype.filter.call(table.querySelectorAll("thead th"),
  function (th) { return th.textContent === label; })[0]; }
out.start = col(4);
head("system").querySelector("button").click();
out.systemUp = col(4); out.sortUp = head("system").getAttribute("aria-sort");
head("system").querySelector("button").click();
out.systemDown = col(4); out.sortDown = head("system").getAttribute("aria-sort");
out.otherSort = head("AP").getAttribute("aria-sort");
head("AP").querySelector("button").click();
out.apUp = col(3);
head("rank").querySelector("button").click();
out.rankUp = col(0);
"""


def test_sorting(pop_page):
    out = pop_page[1]["sorting"]
    systems = ["NeuralX", "Dense", "DeepY", "BM25+RM3", "SDM", "QL", "BM25"]
    assert out["start"] == systems
    assert out["systemUp"] == sorted(systems, key=str.lower) and out["sortUp"] == "ascending"
    assert out["systemDown"] == sorted(systems, key=str.lower, reverse=True)
    assert out["sortDown"] == "descending" and out["otherSort"] == "none"
    assert out["apUp"] == ["0.2300", "0.2440", "0.2620", "0.2810", "0.3950", "0.3990", "0.4010"]
    assert out["rankUp"] == ["1", "2", "3", "4", "5", "6", "7"]


FILTERS = """
var form = document.querySelector("form.filters"), table = document.getElementById("board");
function set(name, value) {
  var el = form.elements.namedItem(name);
  if (el.type === "checkbox") { el.checked = value; } else { el.value = value; }
  el.dispatchEvent(new Event(el.tagName === "SELECT" || el.type === "checkbox" ? "change"
    : "input", {bubbles: true}));
}
function shown() { return Array.prototype.filter.call(table.tBodies[0].rows, function (r) {
  return !r.hidden; }).map(function (r) { return r.cells[4].textContent; }); }
out.hiddenForm = form.hidden;
set("role", "baseline"); out.role = shown(); out.count = form.querySelector("output").textContent;
set("role", ""); set("from", "2021"); out.since2021 = shown();
set("to", "2021"); out.in2021 = shown();
set("from", ""); set("to", ""); set("q", "jones"); out.search = shown();
set("q", "neur dense"); out.twoWords = shown();
set("q", ""); set("tied", true); out.tied = shown();
set("tied", false); out.all = shown();
"""

ZERO_SHOT = """
var form = document.querySelector("form.filters"), table = document.getElementById("board");
var zs = form.elements.namedItem("zs");
zs.checked = true; zs.dispatchEvent(new Event("change", {bubbles: true}));
out.zs = Array.prototype.filter.call(table.tBodies[0].rows, function (r) { return !r.hidden; })
  .map(function (r) { return r.cells[4].textContent; });
"""


def test_filters_and_search(site, pop_page, pytestconfig):
    out = pop_page[1]["filters"]
    assert out["hiddenForm"] is False  # the script shows the form
    assert out["role"] == ["BM25+RM3", "SDM", "QL", "BM25"] and out["count"] == "showing 4 of 7"
    assert out["since2021"] == ["Dense", "DeepY", "SDM", "QL", "BM25"]
    assert out["in2021"] == ["DeepY", "SDM", "QL"]
    assert out["search"] == ["DeepY", "SDM", "QL"]  # by the paper's citation
    assert out["twoWords"] == []  # every word must match
    assert out["tied"] == ["NeuralX", "Dense", "DeepY"]
    assert len(out["all"]) == 7
    official = site / "pop" / "trec7-ap-official.html"
    _dom, outs = _selftest(pytestconfig, official, {"zs": ZERO_SHOT}, site)
    assert outs["zs"]["zs"] == ["runC (grpC)", "runA (grpA)"]


KEYBOARD = """
var heads = Array.prototype.map.call(document.querySelectorAll("h1, h2, h3, h4"),
  function (h) { return parseInt(h.tagName[1], 10); });
out.heads = heads;
var focusable = document.querySelectorAll("a[href], button, input, select, textarea, [tabindex]");
out.first = focusable[0].className + " " + focusable[0].getAttribute("href");
out.positiveTabindex = Array.prototype.filter.call(focusable, function (e) {
  return e.tabIndex > 0; }).length;
out.unlabelled = Array.prototype.filter.call(document.querySelectorAll("input, select"),
  function (e) { return !e.labels || e.labels.length === 0; }).length;
out.nameless = Array.prototype.filter.call(document.querySelectorAll("button"),
  function (b) { return b.textContent.trim() === ""; }).length;
out.notFocusable = Array.prototype.filter.call(document.querySelectorAll("th button, input, select"),
  function (e) { e.focus(); return document.activeElement !== e; }).length;
var skip = document.querySelector("a.skip");
out.skipTarget = !!document.getElementById(skip.getAttribute("href").slice(1));
out.sortButtons = document.querySelectorAll("th button").length;
out.lang = document.documentElement.lang;
out.caption = !!document.querySelector("table caption");
var ids = Array.prototype.map.call(document.querySelectorAll("[id]"), function (e) { return e.id; });
out.duplicateIds = ids.filter(function (x, i) { return ids.indexOf(x) !== i; });
"""


def test_keyboard_navigation_and_headings(site, pop_page, index_page, pytestconfig):
    jones = _selftest(pytestconfig, site / "paper" / "jones2021.html", {"keyboard": KEYBOARD}, site)
    for name, (_dom, outs) in ((POP, pop_page), ("index.html", index_page), ("jones", jones)):
        out = outs["keyboard"]
        h = out["heads"]
        assert h[0] == 1 and h.count(1) == 1, (name, h)
        assert all(b - a <= 1 for a, b in zip(h, h[1:], strict=False)), (
            name,
            h,
        )  # no level skipped
        assert out["first"] == "skip #main" and out["skipTarget"], name
        assert out["positiveTabindex"] == 0 and out["unlabelled"] == 0 and out["nameless"] == 0
        assert out["notFocusable"] == 0 and out["sortButtons"] >= 5, (name, out)
        assert out["lang"] == "en" and out["caption"] and out["duplicateIds"] == []
