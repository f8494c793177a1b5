"""The papers since 2019 (seeds/results/literature.csv.gz) in the audits: every audit,
the summary and the report see them, and --role, --reporter, --since select them."""

from __future__ import annotations

import csv
import gzip
import io
import json

import pytest

from tests.conftest import REPO

DL19 = "msmarco-passage/trec-dl-2019/judged"


def literature() -> list[dict]:
    data = gzip.decompress((REPO / "seeds" / "results" / "literature.csv.gz").read_bytes())
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"), newline="")))


def _result(r) -> dict:
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)["result"]


def test_role_reporter_and_since_select_the_papers(cli, seeded_db_file):
    args = ["-c", "dl19-passage", "-m", "nDCG@10", "--no-save", "--json"]
    picked = ["--role", "proposed", "--reporter", "authors", "--since", "2023"]
    d = _result(cli("audit", "best", *args, *picked, db=seeded_db_file))
    expected = [
        r
        for r in literature()
        if r["collection"] == DL19
        and r["measure"] == "nDCG@10"
        and r["role"] == "proposed"
        and r["date"] >= "2023-01-01"
    ]
    assert d["stats"]["reference"]["n_results"] == len(expected) > 20
    cands = [c["result"] for c in d["candidates"]]
    assert all(c["role"] == "proposed" and c["reporter"] == "authors" for c in cands)
    assert all(c["date"] >= "2023-01-01" for c in cands)
    best = max(expected, key=lambda r: float(r["value"]))
    assert (cands[0]["system"], cands[0]["value_text"]) == (best["system"], best["value"])
    # the baselines the papers compared against, apart
    base = _result(cli("audit", "best", *args, "--role", "baseline", db=seeded_db_file))
    assert {c["result"]["role"] for c in base["candidates"]} == {"baseline"}


def test_papers_population_on_a_beir_dataset(cli, seeded_db_file):
    d = _result(
        cli(
            "audit",
            "claim",
            "-c",
            "beir-trec-covid",
            "-m",
            "nDCG@10",
            "--value",
            "0.80",
            "--source",
            "papers",
            "--no-save",
            "--json",
            db=seeded_db_file,
        )  # fmt: skip
    )
    n = sum(
        r["collection"] == "beir/trec-covid" and r["measure"] == "nDCG@10" for r in literature()
    )
    assert d["population"]["n"] == n >= 9
    assert {t["label"] for t in d["population"]["reporters"]} == {"authors"}


@pytest.mark.slow(reason="the summarized seeded store (a session fixture, 6 s of CPU)")
def test_summary_audits_the_papers_groups(summarized):
    out = summarized.json  # `audit summary --json` on the seeded store (conftest.py)
    rows = out["result"]["rows"] if "result" in out else out["rows"]
    papers = {(x["collection_name"], x["measure"]) for x in rows if x["source"] == "paper"}
    # Robust04 (the meta-analysis) and now TREC DL and MS MARCO from the papers' tables
    assert {
        ("robust04", "AP"),
        ("dl19-passage", "nDCG@10"),
        ("dl20-passage", "nDCG@10"),
        ("msmarco-passage-dev", "RR@10"),
    } <= papers
