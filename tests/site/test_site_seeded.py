"""The site of the seeded store (every seed, as `litaudit init` loads them) says what the
CLI's audits say: each index row is the `audit summary` row of its population (N, the
record as printed), each population page names that row's audit and ties what the index
counts, and BEIR SciFact's page ties the 133 candidates of its official population."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import _built_folder_once

pytestmark = pytest.mark.slow(reason="a site of the whole seeded store (~20 s of CPU)")


@pytest.fixture(scope="module")
def seeded_site(tmp_path_factory, summarized) -> tuple[Path, Path, dict]:
    """The site of the seeded store, built on the session's summarized copy (conftest.py:
    the site reuses the summary's stored best audits, as it does after `make run`), and
    that summary's --json. Built once and kept across runs while nothing it is built from
    changes (conftest.py, ``_built_folder_once``): its store with the audits the build
    stored, and its folder."""
    folder = _built_folder_once(tmp_path_factory, "seeded-site", _build_seeded_site(summarized))
    return folder / "seeded.duckdb", folder / "site", summarized.json


def _build_seeded_site(summarized):
    def build(folder: Path) -> None:
        from typer.testing import CliRunner

        from litaudit.cli.main import app

        db = folder / "seeded.duckdb"
        shutil.copy(summarized.db, db)
        res = CliRunner().invoke(app, ["--db", str(db), "site", str(folder / "site"), "--json"])
        assert res.exit_code == 0, res.output

    return build


def _cells(tr: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr)]


def test_index_rows_are_the_summary_rows(seeded_site):
    """Each index row is its summary row; its count of results tied with the record is
    its page's: the candidate best set of the summary's audit, or where the store has
    shared scores the ranks audit's confidence set of the best."""
    _db, out, summary = seeded_site
    index = (out / "index.html").read_text(encoding="utf-8")
    trs = re.findall(r"<tr data-source=.*?</tr>", index)
    assert len(trs) == len(summary["rows"]) > 250
    by_ranks = 0
    for tr, row in zip(trs, summary["rows"], strict=True):
        cells = _cells(tr)
        assert cells[1] == row["measure"] and int(cells[3]) == row["N"], (cells, row)
        assert cells[4] == row["best_text"] and cells[5].startswith(row["best_system"])
        page = re.search(r'href="(pop/[^"]+)"', tr)
        assert page
        text = (out / page.group(1)).read_text(encoding="utf-8")
        assert f"(best audit #{row['audit_id']})" in text
        rows = re.findall(r'<tr id="r\d+"( class="top")? data-role=', text)
        tied = sum(1 for r in rows if r) - (1 if rows[0] else 0)
        assert int(cells[6]) == tied, (cells, row)
        if "confidence set of the best and simultaneous" in text:
            by_ranks += 1
            assert "Ranks: " in text and re.search(r"\(ranks audit #\d+\)", text)
        else:
            assert tied == row["n_candidates"] - 1, (cells, row)
    assert by_ranks >= 5  # beir-13 and beir-cqadupstack: means of datasets


def test_scifact_ties_the_reports_candidates(seeded_site):
    _db, out, _summary = seeded_site
    page = (out / "pop" / "beir-scifact-ndcg-10-official.html").read_text(encoding="utf-8")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    assert "by openbmb/MiniCPM-Embedding" in text
    assert "Tied with the top (133 results" in text  # under the [0, 1] bound on 300 queries
    assert "Against chance: the null of 241 equally good systems is false by inspection" in text
    assert page.count('<tr id="r') == page.count("data-role=") > 200
    assert page.count(' class="top" ') == 133


def test_the_rows_read_once_are_the_stores(seeded_site):
    """The site leaves reproductions out of a history where its group (the rows the site
    read once) holds any, as `audit history` decides by asking the store: the same filters
    for every eighth group of the seeded store, with and without reproductions; and the
    record steps' per-measure rows the site hands them are those they read alone."""
    import dataclasses

    from litaudit.analyses.extreme.history import published_history_filters
    from litaudit.analyses.extreme.noise_inputs import NoiseLookups
    from litaudit.analyses.extreme.population import Filters
    from litaudit.analyses.extreme.record_steps import Preloaded
    from litaudit.analyses.site_audits import _groups, history_filters
    from litaudit.store import open_store

    db, _out, _summary = seeded_site
    store = open_store(db, read_only=True)
    try:
        _colls, groups, by_measure = _groups(store.con)
        loaded = Preloaded(NoiseLookups.load(store.con))  # as record steps read it alone
        loaded.part_scores(store.con, (), "nDCG@10")
        assert loaded.by_measure["nDCG@10"] == by_measure["nDCG@10"]
        held = [0, 0]
        for cid, meas, source in sorted(groups)[::8]:
            f = dataclasses.replace(Filters(), source=source)
            hf = history_filters(f, groups[(cid, meas, source)])
            assert hf == published_history_filters(store.con, cid, f, meas), (cid, meas)
            held[hf is not f] += 1
    finally:
        store.close()
    assert min(held) >= 10, held  # both kinds of group checked
