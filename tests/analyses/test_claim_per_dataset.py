"""`audit claim --per-dataset FILE`: a claim's per-dataset values paired with the record
holder's on the shared datasets of a benchmark (issue 30, item 5)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from litaudit.analyses.audits import get_audit
from litaudit.analyses.extreme.per_dataset import compare_per_dataset
from litaudit.curation.filters import Filters
from litaudit.store.db import open_store
from tests.conftest import copy_db

# TencentBAC/Conan-embedding-v2's published nDCG@10 on the 13 datasets of BEIR-13 (MTEB's
# results repository, as seeded; its BEIR-13 mean 0.68651), as a paper's table would give
# them; the record holder is voyageai/voyage-3-m-exp (0.70483)
CONAN = {
    "arguana": "0.77792",
    "climate-fever": "0.51209",
    "dbpedia-entity": "0.52244",
    "fever": "0.9567",
    "fiqa": "0.71858",
    "hotpotqa": "0.85791",
    "nfcorpus": "0.55745",
    "nq": "0.76968",
    "quora": "0.92348",
    "scidocs": "0.31628",
    "scifact": "0.84274",
    "trec-covid": "0.84663",
    "webis-touche2020": "0.32277",
}


@pytest.fixture
def beir(cli, seeded_db_file):
    copy_db(seeded_db_file, cli.db)
    return cli


def _claim(cli, path, *more):
    return cli(
        "audit", "claim", "-c", "beir-13", "-m", "nDCG@10", "--value", "0.68652",
        "--per-dataset", path, "--no-save", *more,
    )  # fmt: skip


@pytest.mark.slow
def test_the_second_model_against_the_record_per_dataset(beir, tmp_path):
    f = tmp_path / "table.csv"
    f.write_text("dataset,value\n" + "".join(f"{k},{v}\n" for k, v in CONAN.items()))
    r = beir(
        "audit", "claim", "-c", "beir-13", "-m", "nDCG@10", "--value", "0.68652",
        "--per-dataset", f, "--json",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    per = json.loads(r.stdout)["result"]["per_dataset"]
    assert per["holder"] == "voyageai/voyage-3-m-exp" and len(per["pairs"]) == 13
    c = per["paired"]
    assert (c["wins"], c["ties"], c["losses"]) == (4, 0, 9)
    assert c["mean"] == pytest.approx(0.68651 - 0.70483, abs=1e-5)  # the means' difference
    assert c["low"] < 0 < c["high"]  # cannot be told apart over 13 datasets
    # sign test: 4 of 13, 2 * P(X <= 4 | 13, 1/2) = 2 * 1093 / 8192
    assert per["sign"]["p_value"] == pytest.approx(2 * 1093 / 8192, abs=1e-12)
    assert per["file_mean"] == pytest.approx(8.92467 / 13, abs=1e-12)  # 0.68651, as published
    assert "cannot be told apart from the record on these datasets" in per["answer"]
    # the claim gives every dataset: it is ranked with the 225 models (equal to Conan's
    # values, it shares Conan's rank 2; its share of first places differs from Conan's by
    # the independent dataset noise each gets, within Monte Carlo error)
    ranks = json.loads(r.stdout)["result"]["ranks"]
    res, systems = ranks["resolution"], ranks["systems"]
    me, conan = systems.index("(the claim)"), systems.index("TencentBAC/Conan-embedding-v2")
    assert res["n_systems"] == 229 and res["rank"][me] == res["rank"][conan] == 2
    assert res["in_best_set"][me] and res["p_first"][me] == pytest.approx(
        res["p_first"][conan], abs=0.04
    )
    # the same table as JSON (one object) gives the same comparison: the file is read by
    # compare_per_dataset alone, so it is called on the JSON file against the same record
    # holder (the whole claim, ranks and all, is computed once: the ranks are 2/3 of it)
    aid = json.loads(r.stdout)["audit_id"]
    j = tmp_path / "table.json"
    j.write_text(json.dumps(CONAN, indent=1))
    with open_store(beir.db, read_only=True) as store:
        stored = get_audit(store.con, aid)
        rep = stored.result
        again = compare_per_dataset(
            store.con, stored.collection_id, "nDCG@10", rep.record_holder, j, Filters()
        )
    assert rep.per_dataset.paired == again.paired and rep.per_dataset.pairs == again.pairs
    assert dataclasses.asdict(again.paired) == c  # as the command's JSON gave it
    # on the terminal: the answer and the table (`audit show` prints what the command
    # printed: tests/cli/test_show_equals_command.py)
    r3 = beir("audit", "show", str(aid))
    assert "Per dataset" in r3.output and "4 wins, 0 ties, 9 losses" in r3.output


@pytest.mark.parametrize(
    ("text", "msg"),
    [
        ("dataset,value\nscifact,0.7\nSciFact,0.71\n", ":3: dataset beir/scifact/test given twice"),
        ("dataset,value\nscifact,0.7\nmsmarco,0.71\n", ":3: dataset 'msmarco' is not one of"),
        ("dataset,value\nscifact,0.7\nnq,abc\n", ":3: value: 'abc' is not a finite number"),
        ("dataset,value\nscifact,70.2\nnq,0.5\n", ":2: value: 70.2 is outside nDCG@10's range"),
        ("dataset,score\n", ": no dataset rows"),
        ("name,value\nscifact,0.7\n", ":1: dataset: no 'dataset' column"),
    ],
)
def test_bad_files_name_file_line_and_problem(beir, tmp_path, text, msg):
    f = tmp_path / "bad.csv"
    f.write_text(text)
    r = _claim(beir, f)
    assert r.exit_code == 1
    assert f"{f}{msg}" in r.output.replace("\n", "")


def test_bad_json_names_its_line(beir, tmp_path):
    f = tmp_path / "bad.json"
    f.write_text(
        '[\n {"dataset": "scifact", "value": "0.70"},\n {"dataset": "nq", "value": 1.5}\n]\n'
    )
    r = _claim(beir, f)
    assert r.exit_code == 1 and f"{f}:3: value: 1.5 is outside" in r.output.replace("\n", "")


def test_a_collection_without_datasets_is_refused(beir, tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("dataset,value\nscifact,0.7\n")
    r = beir("audit", "claim", "-c", "trec7", "-m", "AP", "--value", "0.3", "--per-dataset", f)
    assert r.exit_code == 1 and "is not a mean of datasets" in r.output
