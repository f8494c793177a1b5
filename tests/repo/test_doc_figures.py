"""Every figure README.md and docs/*.md quote is generated: it has an entry in docs/figures.json.

A figure is a number with a unit of time (ms, us, s), size (MB, MiB, GB, GiB, ...) or a
ratio (1.34x) anywhere in README.md and docs/*.md, and a percentage in README.md, outside
code. Each sits between `<!-- fig:NAME -->` and `<!-- /fig -->` with the same text as its
entry, which says how it was measured (bench/figures.py writes both; `source: carried`
keeps a figure measured before the file existed with its commit and date). The
calibration percentages of a `<!-- figs:BENCH -->` block come from that bench script.
ALLOW lists the numbers with a unit that are no measurement (targets, settings,
statistical levels), by the text around them. No measurement runs here; `python
bench/figures.py --adopt` marks the figures this test finds unmarked (as carried).
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")))
PERCENT_CHECKED = ("README.md",)
FIGURE = re.compile(
    r"(?<![\w.@/])\d[\d,]*(?:\.\d+)?(?:-\d[\d,]*(?:\.\d+)?)?"
    r"(?:\s?(?:ms|us|µs|s|MB|MiB|KB|kB|KiB|GB|GiB)\b|%|x\b)"
)
MARKER = re.compile(r"<!-- fig:(?P<name>[\w.]+) -->(?P<text>.*?)<!-- /fig -->", re.S)
BLOCK = re.compile(r"<!-- figs:(?P<bench>\w+) -->(?P<body>.*?)<!-- /figs -->", re.S)
FIELDS = {"text", "value", "unit", "source", "command", "commit", "date", "load", "machine"}

TARGET = "a target, not a measurement"
CONFIG = "a setting (defaults.py), not a measurement"
LEVEL = "a statistical level or margin, a parameter"
ALLOW = {
    "README.md": {
        "the 95% confidence set": LEVEL,
        "its 95% t interval": LEVEL,
        "its 95% point": LEVEL,
        "its 95% CI": LEVEL,
        "less than 90% of the collection's": CONFIG,
        "first in 99.9% of resamples": "the output of `audit ranks` in the transcript below it",
        "| 1.3 s |": TARGET,
        "| 2x litaudit's |": TARGET,
        "| 1.0 s, 1 GiB |": TARGET,
        "| 5 s |": TARGET,
        "| 2 s |": TARGET,
        "| 10 ms |": TARGET,
        "| 15 s, 600 MB |": TARGET,
        "| 60 s CPU, 100 MB |": TARGET,
        "| 2 GiB, linear in the lines |": TARGET,
        "| 30 s at 140M lines |": TARGET,
        "| 30 s, 1.5 GiB |": TARGET,
        "groups of about 128 MiB": CONFIG,
        "pieces of 64 MiB": CONFIG,
        "its 90% interval": LEVEL,
        "a margin of 1% of": LEVEL,
        "reusable within 1%": LEVEL,
        "lose more than 1%": LEVEL,
        "Reusable within 1%": LEVEL,
        "with 80% power": LEVEL,
    },
    "docs/DEVELOPING.md": {
        "within 1.3x": TARGET,
        "over 0.375 s": "a threshold of the test-timing check",
        "under 0.125 s": "a threshold of the test-timing check",
        "(128 MiB)": CONFIG,
        "256 MiB groups": CONFIG,
        "(256MB)": CONFIG,
        "the 60 s / 20 s targets": TARGET,
        "(60 s wall and 110 s CPU for": TARGET,
        "20 s for `make": TARGET,
        # "How the speed figures moved": README.md's Speed section as it stood
        "(target 1.0 s;": TARGET,
        "(target 2 s;": TARGET,
        "groups of about 128 MiB": CONFIG,
        "pieces of 64 MiB": CONFIG,
        "with a 64 MiB piece": CONFIG,
        "held at 256 MB": CONFIG,
        "the 30 s target": TARGET,
        "the 60 s target": TARGET,
        "The 1.3 s target": TARGET,
        "the 2x is not": TARGET,
        "so 2x the script": TARGET,
        "against 15 s and 600 MB": TARGET,
    },
    "docs/STATISTICS.md": {
        "(1.26x)": "the ratio of the two percentages beside it",
        "within the 2 s target": TARGET,
    },
}


def _figures() -> dict:
    return json.loads((ROOT / "docs" / "figures.json").read_text(encoding="utf-8"))


def _blank(text: str, a: int, z: int) -> str:
    return text[:a] + re.sub(r"[^\n]", " ", text[a:z]) + text[z:]


def unmarked_spans(rel: str, text: str) -> list[tuple[int, int]]:
    """Where the figures of `text` outside markers, code, allowed snippets and (for %)
    blocks are (bench/figures.py --adopt marks them)."""
    spans = [m.span() for m in re.finditer(r"```.*?```|`[^`\n]*`", text, flags=re.S)]
    spans += [m.span() for m in MARKER.finditer(text)]
    for snippet in ALLOW.get(rel, {}):
        spans += [m.span() for m in re.finditer(re.escape(snippet), text)]
    blocks = [m.span() for m in BLOCK.finditer(text)]
    for a, z in spans:
        text = _blank(text, a, z)
    return [
        m.span()
        for m in FIGURE.finditer(text)
        if not (
            m.group().endswith("%")
            and (rel not in PERCENT_CHECKED or any(a <= m.start() < z for a, z in blocks))
        )
    ]


def unmarked_figures(rel: str, text: str) -> list[str]:
    """The unmarked figures of `text`, as 'file:line: text'."""
    return [
        f"{rel}:{text.count(chr(10), 0, a) + 1}: {text[a:z]!r}"
        for a, z in unmarked_spans(rel, text)
    ]


@pytest.mark.parametrize("rel", DOCS)
def test_every_quoted_figure_is_marked_or_allowed(rel):
    assert unmarked_figures(rel, (ROOT / rel).read_text(encoding="utf-8")) == []


def test_the_pattern_finds_figures_outside_markers():
    text = "It took 0.70-0.93 s and 1,110 MiB, 1.34x; `2 s` <!-- fig:a -->3 s<!-- /fig -->, 4%."
    assert unmarked_figures("README.md", text) == [
        "README.md:1: '0.70-0.93 s'",
        "README.md:1: '1,110 MiB'",
        "README.md:1: '1.34x'",
        "README.md:1: '4%'",
    ]
    assert unmarked_figures("docs/X.md", "(target 1.0 s; 5%)") == ["docs/X.md:1: '1.0 s'"]


def test_every_marker_quotes_its_entry_and_every_entry_is_quoted():
    figures = _figures()["figures"]
    quoted: dict[str, str] = {}
    wrong = []
    for rel in DOCS:
        for m in MARKER.finditer((ROOT / rel).read_text(encoding="utf-8")):
            name, text = m.group("name"), m.group("text")
            if name in quoted:
                wrong.append(f"{rel}: {name} quoted twice")
            quoted[name] = text
            if name not in figures:
                wrong.append(f"{rel}: {name} has no entry in docs/figures.json")
            elif figures[name]["text"] != text:
                wrong.append(
                    f"{rel}: {name} reads {text!r}, figures.json {figures[name]['text']!r}"
                )
    wrong += [
        f"docs/figures.json: {n} is quoted nowhere" for n in sorted(set(figures) - set(quoted))
    ]
    assert wrong == []


def test_every_entry_says_how_it_was_measured():
    bad = []
    for name, f in _figures()["figures"].items():
        if set(f) != FIELDS:
            bad.append(f"{name}: fields {sorted(set(f) ^ FIELDS)}")
        elif f["source"] == "measured":
            if not all(f[k] for k in ("command", "commit", "date", "load", "machine")):
                bad.append(f"{name}: a measurement without its command, commit, load or machine")
        elif f["source"] == "carried":
            if not (re.fullmatch(r"[0-9a-f]{7,40}", f["commit"]) and f["date"]):
                bad.append(f"{name}: a carried figure without the commit that typed it")
        else:
            bad.append(f"{name}: source {f['source']!r}")
    assert bad == []


def test_every_block_names_a_bench_that_exists_and_every_allowed_snippet_occurs():
    blocks = _figures()["blocks"]
    bad = []
    for rel in DOCS:
        text = (ROOT / rel).read_text(encoding="utf-8")
        for m in BLOCK.finditer(text):
            bench = m.group("bench")
            if bench not in blocks or not (ROOT / "bench" / f"{bench}.py").exists():
                bad.append(f"{rel}: block {bench} has no bench script or entry")
        bad += [f"{rel}: {s!r} allowed but absent" for s in ALLOW.get(rel, {}) if s not in text]
    assert bad == []


def _section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def test_what_a_bench_measures_is_measured_and_the_speed_table_is_all_measured():
    """A figure bench/figures.py knows how to measure is never carried, and README.md's
    Speed section quotes only measured figures (its history is in DEVELOPING.md)."""
    spec = importlib.util.spec_from_file_location("bench_figures", ROOT / "bench" / "figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_figures"] = module  # its dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules["bench_figures"]
    figures = _figures()["figures"]
    known = {name for m in module.MEASURED.values() for name in m.names}
    speed = _section((ROOT / "README.md").read_text(encoding="utf-8"), "Speed")
    in_speed = {m.group("name") for m in MARKER.finditer(speed)}
    assert in_speed, "README.md's Speed section quotes no figure"
    assert in_speed <= known, f"not measured by bench/figures.py: {sorted(in_speed - known)}"
    carried = sorted(n for n in known if figures.get(n, {}).get("source") != "measured")
    assert carried == [], (
        f"bench/figures.py measures these, docs/figures.json carries them: {carried}"
    )
