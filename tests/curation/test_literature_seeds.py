"""seeds/results/literature.csv.gz: every value re-read from the kept source lines.

The lines come from authors' repositories at pinned commits (seeds/literature_lines.csv.gz);
seeds/literature.py turns them into rows. Here the rows are rebuilt from the kept lines
alone and compared with the committed file, each value is found again in the cell its
location names, and, where the repository mirrors are on this machine, the kept lines are
compared with the repositories themselves.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import re
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from tests.typed import some

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO / "seeds"
MIRRORS = Path("/work/.mirror")


def load():
    spec = some(importlib.util.spec_from_file_location("seeds_literature", SEEDS / "literature.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    some(spec.loader).exec_module(mod)
    return mod


def rows() -> list[dict]:
    text = load().read_text(SEEDS / "results" / "literature.csv.gz")
    return list(csv.DictReader(io.StringIO(text, newline="")))


def kept() -> dict[tuple[str, str, str, int], dict]:
    text = load().read_text(SEEDS / "literature_lines.csv.gz")
    with io.StringIO(text, newline="") as f:
        return {(r["repo"], r["path"], r["commit"], int(r["line"])): r for r in csv.DictReader(f)}


def test_committed_rows_are_what_the_kept_lines_give():
    lit = load()
    results, lines = lit.build(lit.read_kept())
    assert lit.read_text(SEEDS / "results" / "literature.csv.gz") == results
    assert lit.read_text(SEEDS / "literature_lines.csv.gz") == lines


def test_check_mode_passes_on_the_committed_files():
    assert load().main(["--from-lines", "--check"]) == 0


def test_every_value_is_in_the_cell_its_location_names():
    lines = kept()
    by_commit12 = {(repo, path, commit[:12]): commit for (repo, path, commit, _) in lines}
    for r in rows():
        m = some(
            re.match(
                r"(?P<repo>[^/]+/[^/]+)/(?P<path>\S+)@(?P<c>[0-9a-f]{12}): line (?P<n>\d+)"
                r"(, column (?P<col>.+))?$",
                r["location"],
            )
        )
        commit = by_commit12[(m["repo"], m["path"], m["c"])]
        text = lines[(m["repo"], m["path"], commit, int(m["n"]))]["text"]
        printed = r["value"]
        if "(percent)" in r["notes"]:
            pct = some(re.search(r"printed (\S+) \(percent\)", r["notes"]))[1]
            assert Decimal(pct) / 100 == Decimal(printed), r["location"]
            printed = pct
        assert re.search(rf"(?<![\d.]){re.escape(printed)}(?![\d])", text), r["location"]
        assert r["url"].endswith(f"/blob/{commit}/{m['path']}#L{m['n']}"), r["location"]


def test_paper_titles_are_in_their_citation_lines():
    lit = load()
    lines = kept()
    seen = set()
    for t in [*lit.TABLES, *lit.LINES]:
        if not t.source.cite or t.paper.bibkey in seen:
            continue
        seen.add(t.paper.bibkey)
        cited = " ".join(lines[(*t.source.key, n)]["text"] for n in t.source.cite).lower()
        assert " ".join(t.paper.title.lower().split()) in " ".join(cited.split()), t.paper.bibkey


def test_percent_becomes_the_same_digits():
    lit = load()
    assert lit.percent_to_fraction("71.7") == "0.717"
    assert lit.percent_to_fraction("34.0") == "0.340"
    assert lit.percent_to_fraction("67.46") == "0.6746"
    assert lit.percent_to_fraction("9") == "0.09"


def test_counts_and_spread():
    rs = rows()
    assert len(rs) == 628
    assert len({r["paper"] for r in rs}) == 42
    assert len({r["collection"] for r in rs}) == 29
    assert {r["role"] for r in rs} == {"proposed", "baseline", "reproduction"}
    assert all(r["reporter"] == "authors" and r["source"] == "paper" for r in rs)
    assert min(int(r["paper_year"]) for r in rs) >= 2019


@pytest.mark.slow
def test_kept_lines_equal_the_repositories():
    """Where the mirrors are on this machine, each kept line is the repository's line at
    its commit (and every source resolves)."""
    if not MIRRORS.is_dir():
        pytest.skip(f"no repository mirrors at {MIRRORS}")
    lit = load()
    read = lit.read_mirror(MIRRORS)
    sources = {t.source.key: t.source for t in [*lit.TABLES, *lit.LINES]}
    sources |= {o.key: o for t in lit.TABLES for o, _ in t.evidence_from}
    for (repo, path, commit, n), r in kept().items():
        src = sources[(repo, path, commit)]
        if not (MIRRORS / repo.replace("/", "+") / "repo").is_dir():
            continue
        assert read(src)[n] == (r["text"], r["date"]), f"{repo}/{path}:{n}"
