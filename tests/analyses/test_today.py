"""Today's claims end to end (issue 13): MS MARCO, TREC DL and BEIR/MTEB populations from
the seeds, collections by ir_datasets id, date-window and reporter filters, the record
over time of a dated population, averages over sub-tasks.

Audits run with --no-save on the session's seeded database (read-only); commands that
write get a copy.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from litaudit.curation.filters import AUDIT, Filters, parse_date
from litaudit.errors import LitauditError
from litaudit.store.results import where
from tests.conftest import copy_db, examples


@pytest.fixture
def seeded_copy(seeded_db_file, tmp_path):
    path = tmp_path / "copy.duckdb"
    copy_db(seeded_db_file, path)
    return path


def _json(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _audit(result) -> dict:
    """The result of an audit command's --json: {"audit_id", "reused", "result"}."""
    out = _json(result)
    assert set(out) == {"audit_id", "reused", "result"}, list(out)
    return out["result"]


# ------------------------------------------------------------------ the three claims
def test_mrr_0440_on_msmarco_passage_dev(cli, seeded_db_file):
    r = cli(
        "audit",
        "claim",
        "-c",
        "msmarco-passage/dev/small",
        "-m",
        "MRR@10",
        "--value",
        "0.440",
        "--no-save",
        db=seeded_db_file,
    )
    assert r.exit_code == 0, r.output
    assert "Claim audit: msmarco-passage-dev RR@10 (all sources), 6980 topics" in r.output
    assert (
        "Population: N = 343 results on 6980 topics; sources: papers 144 (from 28 papers), "
        "msmarco-passage/leaderboard/" in r.output
    )
    # the leaderboard's 155, Pyserini's 44 reproductions and 81 values of 13 papers'
    # repositories (seeds/README.md); the last date is a commit's, not the day Pyserini's
    # files were read (2026-08-07): its reproductions are dated by the commits that added
    # their values (seeds/pyserini_dates.py)
    assert (
        "reported by leaderboard 155, authors 144, pyserini 44; dated 2018-11-01 to 2025-04-02."
        in r.output
    )
    best = _audit(
        cli(
            "audit",
            "best",
            "-c",
            "msmarco-passage/dev/small",
            "-m",
            "RR@10",
            "--no-save",
            "--json",
            db=seeded_db_file,
        )
    )
    cands = [c["result"] for c in best["candidates"]]
    # the leaderboard's record (AliceMind, 2022-03-17) leads, cited by file and line
    assert cands[0]["system"].startswith("AliceMind Search LM")
    assert cands[0]["value_text"] == "0.463" and cands[0]["date"] == "2022-03-17"
    # with the bound se the candidates include papers' values too; each leaderboard row is
    # cited by its file and line
    board = [c for c in cands if c["provenance"].startswith("msmarco-passage/leaderboard/")]
    assert board[0] is cands[0]
    assert all("msmarco_passage_leaderboard.csv: line " in c["provenance"] for c in board)


def test_ndcg_0745_on_trec_dl_2019_passage(cli, seeded_db_file):
    r = cli(
        "audit",
        "claim",
        "-c",
        "msmarco-passage/trec-dl-2019/judged",
        "-m",
        "nDCG@10",
        "--value",
        "0.745",
        "--no-save",
        db=seeded_db_file,
    )
    assert r.exit_code == 0, r.output
    assert "Claim audit: dl19-passage nDCG@10 (all sources), 43 topics" in r.output
    best = _audit(
        cli(
            "audit",
            "best",
            "-c",
            "dl19-passage",
            "-m",
            "ndcg_cut_10",
            "--no-save",
            "--json",
            db=seeded_db_file,
        )
    )
    cands = [c["result"] for c in best["candidates"]]
    # the papers' re-rankers lead (LiT5 over SPLADE++ ED: seeds/results/literature.csv.gz),
    # cited by repository, path, commit and line; then NIST's best run
    assert cands[0]["system"] == "LiT5-Distill-large-v2 (SPLADE++ ED)"
    assert cands[0]["value_text"] == "0.800" and cands[0]["provenance"] == (
        "Tamber et al. (arXiv 2023), castorini/LiT5/README.md@6f6aca2547e5: line 68, column nDCG@10"
    )
    official = [c for c in cands if c["role"] == "official"]
    assert official[0]["system"] == "idst_bert_p1" and official[0]["value_text"] == "0.7645"
    assert all(
        c["provenance"] == "TREC trec28/deep/passages, official_summaries.csv: "
        "trec28/deep/passages ndcg_cut_10"
        for c in cands
        if c["role"] == "official"
    )
    # and Pyserini's reproductions (e.g. SPLADE-v3 w/ Rocchio, 0.7406; and the papers' pages
    # of Pyserini's docs, e.g. ANCE-PRF: seeds/results/literature.csv.gz)
    assert {c["role"] for c in cands} == {"official", "reproduction", "proposed", "baseline"}
    assert all(
        c["provenance"].startswith("pyserini/2cr/msmarco-v1-passage, pyserini_2cr.csv: line ")
        or "castorini/pyserini/docs/experiments-" in c["provenance"]
        for c in cands
        if c["role"] == "reproduction"
    )
    # the old id (200 queries in ir_datasets, 43 judged) still names the collection
    old = _audit(
        cli(
            "audit",
            "best",
            "-c",
            "msmarco-passage/trec-dl-2019",
            "-m",
            "nDCG@10",
            "--no-save",
            "--json",
            db=seeded_db_file,
        )
    )
    assert old["collection_id"] == "msmarco-passage/trec-dl-2019/judged"


@pytest.mark.slow
def test_trec_dl_2021_best_names_its_run(cli, seeded_db_file):
    """TREC DL 2021 (trec30/deep): 63 passage runs on the 53 judged queries, 66 document
    runs on 57; the best AP and nDCG@10 are the file's maxima, with their runs. Passages
    have no nDCG@10: NIST's summary computed it on binarised qrels, and their AP is
    AP(rel=2) (seeds/README.md)."""
    args = ["audit", "best", "-c", "dl21-passage", "-m", "AP(rel=2)", "--no-save"]
    d = _audit(cli(*args, "--json", db=seeded_db_file))
    assert d["collection_id"] == "msmarco-passage-v2/trec-dl-2021/judged"
    assert d["n_topics"] == 53 and d["stats"]["reference"]["n_results"] == 63
    top = d["candidates"][0]["result"]
    assert (top["system"], top["value_text"]) == ("NLE_P_v1", "0.3923")
    assert top["provenance"] == (
        "TREC trec30/deep/passages, official_summaries.csv: trec30/deep/passages map"
    )
    text = cli(*args, db=seeded_db_file).output
    assert "Best-result audit: dl21-passage AP(rel=2) (all sources), 53 topics" in text
    assert "N = 63 results on 53 topics; sources: TREC trec30/deep/passages 63" in text
    assert "NLE_P_v1" in text
    doc = ["audit", "best", "-c", "dl21-doc", "-m", "nDCG@10", "--no-save"]
    d = _audit(cli(*doc, "--json", db=seeded_db_file))
    # NIST's 66 runs and Pyserini's 10 reproductions
    assert d["n_topics"] == 57 and d["stats"]["reference"]["n_results"] == 76
    cands = [c["result"] for c in d["candidates"]]
    assert [(c["system"], c["value_text"]) for c in cands[:2]] == [
        ("pash_doc_f1", "0.7437"),
        ("pash_doc_f4", "0.7404"),
    ]
    assert "pash_doc_f1" in cli(*doc, db=seeded_db_file).output
    # NIST's DL 2021 passage ndcg_cut_10 is not seeded (binary qrels): only Pyserini's 11
    pys = _audit(
        cli(
            "audit",
            *("best", "-c", "dl21-passage", "-m", "nDCG@10", "--no-save", "--json"),
            db=seeded_db_file,
        )
    )
    assert pys["population"]["roles"] == [{"label": "reproduction", "n": 11}]


@pytest.mark.parametrize(
    ("name", "collection", "measure", "n_topics", "n_runs"),
    [
        ("dl21-doc", "msmarco-document-v2/trec-dl-2021/judged", "nDCG@10", 57, 76),
        (
            "msmarco-passage-v2/trec-dl-2022",
            "msmarco-passage-v2/trec-dl-2022/judged",
            "AP(rel=2)",
            76,
            100,
        ),
        ("dl22-doc", "msmarco-document-v2/trec-dl-2022/judged", "P@10", 76, 42),
        ("trec-covid-r1", "cord19/trec-covid/round1", "P@5", 30, 143),
        ("cord19/trec-covid/round5", "cord19/trec-covid/round5", "P@20", 50, 126),
    ],
)
def test_todays_trec_populations_load(
    cli, seeded_db_file, name, collection, measure, n_topics, n_runs
):
    d = _audit(
        cli("audit", "best", "-c", name, "-m", measure, "--no-save", "--json", db=seeded_db_file)
    )
    assert d["collection_id"] == collection and d["n_topics"] == n_topics
    assert d["stats"]["reference"]["n_results"] == n_runs


def test_ndcg_080_on_beir_scifact(cli, seeded_db_file):
    r = cli(
        "audit",
        "claim",
        "-c",
        "beir/scifact/test",
        "-m",
        "nDCG@10",
        "--value",
        "0.80",
        "--no-save",
        db=seeded_db_file,
    )
    assert r.exit_code == 0, r.output
    assert "Claim audit: beir-scifact nDCG@10 (all sources), 300 topics" in r.output
    assert "reported by mteb 132, authors 109, unknown 7" in r.output
    best = _audit(
        cli(
            "audit",
            "best",
            "-c",
            "beir/scifact/test",
            "-m",
            "nDCG@10",
            "--no-save",
            "--json",
            db=seeded_db_file,
        )
    )
    names = [c["result"]["system"] for c in best["candidates"]]
    assert names[:3] == [
        "openbmb/MiniCPM-Embedding",
        "Salesforce/SFR-Embedding-2_R",
        "infly/inf-retriever-v1",
    ]
    top = best["candidates"][0]["result"]
    assert top["provenance"].startswith("mteb/retrieval, mteb_beir_retrieval.csv: line ")
    assert top["reporter"] in ("authors", "mteb", "unknown") and top["date"][:4] == "2024"


# ------------------------------------------------------------------ populations
def test_population_is_described_and_a_mixed_one_warned_about(cli, seeded_db_file):
    d = _audit(
        cli(
            "audit",
            "best",
            "-c",
            "beir/scifact/test",
            "-m",
            "nDCG@10",
            "--no-save",
            "--json",
            db=seeded_db_file,
        )
    )
    note = d["population"]
    assert note["n"] == 254 and note["n_topics"] == 300
    assert {t["label"]: t["n"] for t in note["reporters"]} == {
        "mteb": 132,
        "authors": 109,
        "unknown": 7,
        "pyserini": 6,
    }
    assert note["first_date"] == "2019-11-01" and note["n_undated"] == 0
    assert note["shape"]["skewness"] < -1.5 and note["warning"].startswith("the 254 values")
    # Carterette's TREC-7 example is near Normal: no warning
    t7 = _audit(
        cli("audit", "best", "-c", "trec7", "-m", "AP", "--no-save", "--json", db=seeded_db_file)
    )
    assert t7["population"]["warning"] is None


@pytest.mark.slow
def test_date_window_and_reporter_narrow_every_audit(cli, seeded_db_file):
    base = ["-c", "beir/scifact/test", "-m", "nDCG@10", "--no-save", "--json"]
    recent = _audit(cli("audit", "best", *base, "--since", "2025", db=seeded_db_file))
    assert recent["stats"]["reference"]["n_results"] < 235
    assert all(c["result"]["date"] >= "2025-01-01" for c in recent["candidates"])
    authors = _audit(cli("audit", "best", *base, "--reporter", "authors", db=seeded_db_file))
    assert authors["stats"]["reference"]["n_results"] == 109
    assert authors["population"]["filters"]["reporters"] == ["authors"]
    text = cli("audit", "best", *base[:-1], "--reporter", "authors", db=seeded_db_file).output
    assert "reported by authors 109; dated " in text and "; filters: reporter authors." in text
    window = _audit(
        cli(
            "audit",
            "claim",
            *base,
            "--value",
            "0.8",
            "--since",
            "2020-01",
            "--until",
            "2023-12-31",
            db=seeded_db_file,
        )
    )
    assert window["filters"]["since"] == "2020-01-01"
    assert window["filters"]["until"] == "2023-12-31"
    hist = _audit(cli("audit", "history", *base, "--until", "2022", db=seeded_db_file))
    assert hist["history"]["points"][-1]["when"] <= "2022-12-31"
    summary = _json(
        cli("audit", "summary", "--no-save", "--json", "--until", "2017", db=seeded_db_file)
    )
    names = {r["collection_name"] for r in summary["rows"]}
    assert "trec7" in names and "core17" in names  # TREC 2017 runs, submitted in 2017
    assert "msmarco-passage-dev" not in names and "dl19-passage" not in names
    bad = cli("audit", "best", *base, "--since", "2020-13", db=seeded_db_file)
    assert bad.exit_code == 1 and "--since: expected YYYY, YYYY-MM or YYYY-MM-DD" in bad.output


def test_full_ranking_and_reranking_kept_apart(cli, seeded_db_file):
    args = ["-c", "msmarco-passage/dev/small", "-m", "RR@10", "--no-save", "--json"]
    full = _audit(
        cli(
            "audit",
            "best",
            *args,
            "--track",
            "msmarco-passage/leaderboard/full-ranking",
            db=seeded_db_file,
        )
    )
    rerank = _audit(
        cli(
            "audit",
            "best",
            *args,
            "--track",
            "msmarco-passage/leaderboard/reranking",
            db=seeded_db_file,
        )
    )
    assert full["stats"]["reference"]["n_results"] == 77
    assert rerank["stats"]["reference"]["n_results"] == 78
    both = _audit(
        cli("audit", "best", *args, "--track", "msmarco-passage/leaderboard/", db=seeded_db_file)
    )
    assert both["stats"]["reference"]["n_results"] == 155


# ------------------------------------------------------------------ history over time
CMD = ("audit", "history", "-c", "msmarco-passage/dev/small", "-m", "RR@10", "--no-save")


def test_history_of_msmarco_passage_dev_is_replayed_date_by_date(cli, seeded_db_file):
    d = _audit(
        cli(
            "audit",
            "history",
            "-c",
            "msmarco-passage/dev/small",
            "-m",
            "RR@10",
            "--no-save",
            "--json",
            "--reference",
            "final",
            "--with-reproductions",
            db=seeded_db_file,
        )
    )
    assert d["by"] == "date" and d["history"]["reference"] == "final"
    pts = d["history"]["points"]
    assert pts[0]["when"] == "2018-11-01" and pts[0]["N"] == 1
    assert [p["N"] for p in pts] == sorted(p["N"] for p in pts) and pts[-1]["N"] == 343
    records = [(p["when"], p["record"]) for p in pts if p["new_record"]]
    assert records[0] == ("2018-11-01", 0.167) and records[-1] == ("2022-03-17", 0.463)
    assert all(b > a for (_, a), (_, b) in zip(records, records[1:], strict=False))
    # the expected max and its 95% point grow with the N published so far
    ems = [p["expected_max"] for p in pts]
    assert ems == sorted(ems) and all(p["threshold"] > p["expected_max"] for p in pts)
    text = cli(*CMD, db=seeded_db_file).output
    assert "Records (dates that set a new record)" in text
    # the default running reference: each date judged by the results so far (no look-ahead);
    # by default the published results only (the 66 reproductions left out: 277 of 343),
    # 149 dates of the leaderboard and the papers' repositories
    assert "18 records over 149 dates; 17 of them above the 0.05 threshold" in text
    assert "a null of 277 equally good systems" in text
    # asked for, the reproductions too: Pyserini's 44 on the dates of the commits that
    # added them (29 more dates; before issue 32 all on 2026-08-07, 162 dates in all)
    both = cli(*CMD, "--with-reproductions", db=seeded_db_file).output
    assert "18 records over 178 dates; 17 of them above the 0.05 threshold" in both
    assert "a null of 343 equally good systems" in both
    # no per-topic RR@10 of the dev set: the [0, 1] bound on 6,980 queries, said as a bound
    assert "each measured with the standard error 0.0057, a bound (kind bound)" in text


def test_undated_population_is_replayed_by_year(cli, seeded_db_file):
    d = _audit(
        cli(
            "audit",
            "history",
            "-c",
            "robust04",
            "-m",
            "AP",
            "--source",
            "papers",
            "--no-save",
            "--json",
            db=seeded_db_file,
        )
    )
    assert d["by"] == "year" and d["history"]["points"][0]["when"] == "2005"


# ------------------------------------------------------------------ averages over sub-tasks
@pytest.mark.slow
def test_cqadupstack_mean_is_a_population_with_its_query_count(cli, seeded_db_file):
    # beir/cqadupstack's best audit (the 12 forums' queries, its derived MTEB rows) is
    # checked in test_claim_noise.py's test_equal_weight_means_use_their_effective_queries,
    # which computes it: here the mean of BEIR, by its alias
    mean = _audit(
        cli(
            "audit",
            "best",
            "-c",
            "beir-mean",
            "-m",
            "nDCG@10",
            "--no-save",
            "--json",
            db=seeded_db_file,
        )
    )
    assert mean["collection_id"] == "beir/mean" and mean["n_topics"] == 53359


# ------------------------------------------------------------------ collections
def test_collections_resolve_by_id_alias_and_unique_prefix(seeded_read_store):
    from litaudit.store.collections import resolve_collection

    con = seeded_read_store.con
    assert resolve_collection(con, "msmarco-passage/dev").id == "msmarco-passage/dev/small"
    assert resolve_collection(con, "MSMARCO-DEV").id == "msmarco-passage/dev/small"
    assert resolve_collection(con, "beir/msmarco").id == "beir/msmarco/dev"
    assert resolve_collection(con, "scifact").default_topics == 300
    with pytest.raises(LitauditError, match="ambiguous: it begins beir/cqadupstack/android"):
        resolve_collection(con, "beir/cqadupstack/")


def test_a_near_miss_suggests_only_the_same_query_set(seeded_read_store):
    from litaudit.store.collections import resolve_collection

    con = seeded_read_store.con
    with pytest.raises(LitauditError) as exc:
        resolve_collection(con, "msmarco-pasage/dev/smal")
    assert "did you mean 'msmarco-passage-dev' (msmarco-passage/dev/small)?" in str(exc.value)
    for miss in (
        "msmarco-passage/dev/large",
        "msmarco-passage/trec-dl-2021",
        "msmarco-passage/devv",
    ):
        with pytest.raises(LitauditError) as exc:
            resolve_collection(con, miss)
        assert "did you mean" not in str(exc.value), miss
    with pytest.raises(LitauditError, match="did you mean 'robust04'"):
        resolve_collection(con, "robust4")


def test_collections_add_then_audit(cli, seeded_copy):
    r = cli(
        "collections",
        "add",
        "beir/nfcorpus/dev",
        "--topics",
        "324",
        "--title",
        "NFCorpus, dev (BEIR)",
        "--ir-datasets",
        db=seeded_copy,
    )
    assert r.exit_code == 0 and "added collection beir/nfcorpus/dev (324 queries)" in r.output
    shown = _json(cli("collections", "show", "beir/nfcorpus/dev", "--json", db=seeded_copy))
    assert shown["title"] == "NFCorpus, dev (BEIR)" and shown["ir_datasets"] is True
    assert shown["topic_sets"][0]["n_topics"] == 324
    assert "collections add" in shown["provenance"]
    again = cli("collections", "add", "scifact", "--topics", "3", db=seeded_copy)
    assert again.exit_code == 1 and "exists already" in again.output
    bad = cli("collections", "add", "x", "--topics", "0", db=seeded_copy)
    assert bad.exit_code == 1 and "--topics must be at least 1" in bad.output


def test_collections_list_shows_query_counts(cli, seeded_db_file):
    rows = _json(cli("collections", "list", "--json", db=seeded_db_file))
    by_id = {r["id"]: r for r in rows}
    assert by_id["beir/trec-covid"]["n_topics"] == 50
    assert by_id["beir/msmarco/dev"]["n_topics"] == 6980
    assert by_id["beir/webis-touche2020/v2"]["n_topics"] == 49
    assert by_id["msmarco-document/eval"]["n_topics"] == 5793
    assert all(r["provenance"] for r in rows)


# ------------------------------------------------------------------ the filter itself
def test_one_filter_builds_the_same_sql_for_curation_and_audits():
    f = Filters.parse(
        source="papers",
        roles=["Proposed", "baseline"],
        reporters=["authors"],
        since="2019",
        until="2020-02",
        track="msmarco-passage/leaderboard/",
    )
    assert f.source == "paper" and f.roles == ("baseline", "proposed")
    assert (f.since, f.until) == ("2019-01-01", "2020-02-29")
    cond, args = where(f)
    assert "r.source = ?" in cond and "starts_with(r.track, ?)" in cond
    assert "r.date IS NULL AND r.year >= ?" in cond and 2019 in args and 2020 in args
    assert cond.endswith("r.status <> 'retracted' AND r.standard")
    assert where(AUDIT) == ("r.status <> 'retracted' AND r.standard", [])
    with pytest.raises(LitauditError, match="--source: 'blogs'"):
        Filters.parse(source="blogs")
    with pytest.raises(LitauditError, match="--since 2021 is after --until 2020"):
        Filters.parse(since="2021", until="2020")
    assert parse_date("2024-02", "--until", end=True) == "2024-02-29"


def test_undated_rows_fall_in_a_window_by_their_year(seeded_read_store):
    from litaudit.curation.results import query_results

    con = seeded_read_store.con
    rows = query_results(
        con,
        Filters.parse(since="2009-06", until="2009-06", include_retracted=True),
        collection="robust04",
        measure="AP",
    )
    assert rows and {r.year for r in rows} == {2009} and {r.date for r in rows} == {None}


@pytest.mark.slow
def test_results_add_takes_a_date_and_a_reporter(cli, seeded_copy):
    r = cli(
        "results",
        "add",
        "-c",
        "beir/scifact/test",
        "-m",
        "nDCG@10",
        "--value",
        "0.80",
        "--system",
        "my-model",
        "--role",
        "proposed",
        "--track",
        "mteb/retrieval",
        "--date",
        "2026-10-01",
        "--reporter",
        "authors",
        "--url",
        "https://example.org/paper",
        "--json",
        db=seeded_copy,
    )
    rid = _json(r)["id"]
    shown = _json(cli("results", "show", str(rid), "--json", db=seeded_copy))
    assert (shown["date"], shown["year"], shown["reporter"]) == ("2026-10-01", 2026, "authors")
    bad = cli(
        "results",
        "add",
        "-c",
        "scifact",
        "-m",
        "nDCG@10",
        "--value",
        "0.8",
        "--system",
        "x",
        "--role",
        "proposed",
        "--track",
        "t",
        "--url",
        "javascript:alert(1)",
        db=seeded_copy,
    )
    assert bad.exit_code == 1 and "expected an http(s) URL" in bad.output


def test_migration_003_keeps_old_rows_with_their_years(tmp_path):
    """A schema-2 database (before dates) migrates: old rows keep their year, have no
    date, and are placed in a date window by their year."""
    import duckdb

    from litaudit.store import migrations
    from litaudit.store.db import open_store

    path = tmp_path / "v2.duckdb"
    con = duckdb.connect(str(path))
    migrations.ensure_table(con)
    for m in migrations.available()[:2]:
        con.execute(m.sql)
        con.execute("INSERT INTO _migrations (version, name) VALUES (?, ?)", [m.version, m.name])
    con.execute("INSERT INTO collections VALUES ('c', 'c', 'C', 'docs', FALSE, NULL)")
    con.execute("INSERT INTO measures VALUES ('AP', 'AP', NULL, 0, 1, 'average precision')")
    con.execute(
        "INSERT INTO results (source, track, collection_id, n_topics, measure, value, "
        "value_text, system, role, year, transcribed_by, transcribed_at) VALUES "
        "('official', 'trec7/adhoc', 'c', 50, 'AP', 0.25, '0.25', 'r1', 'official', "
        "1998, 't', '2026-01-01')"
    )
    con.close()
    with pytest.raises(LitauditError, match="run `litaudit db migrate`"):
        open_store(path, read_only=True)
    with open_store(path) as store:  # migrates
        assert migrations.db_version(store.con) == migrations.available()[-1].version
        assert 3 in {m.version for m in migrations.available()}
        row = store.con.execute("SELECT year, date, reporter FROM results").fetchone()
        assert row == (1998, None, None)
        from litaudit.curation.results import query_results

        inside = query_results(store.con, Filters.parse(since="1998-06", until="1999"))
        outside = query_results(store.con, Filters.parse(since="1999"))
        assert len(inside) == 1 and outside == []


def test_history_by_year_or_date_on_request(cli, seeded_db_file):
    args = ["-c", "trec7", "-m", "AP", "--no-save", "--json"]
    by_date = _audit(cli("audit", "history", *args, db=seeded_db_file))
    by_year = _audit(cli("audit", "history", *args, "--by", "year", db=seeded_db_file))
    assert by_date["by"] == "date" and len(by_date["history"]["points"]) > 1
    assert by_year["by"] == "year" and [p["when"] for p in by_year["history"]["points"]] == ["1998"]
    r = cli(
        "audit",
        "history",
        "-c",
        "robust04",
        "-m",
        "AP",
        "--by",
        "date",
        "--no-save",
        db=seeded_db_file,
    )
    assert r.exit_code == 1 and "have no date; replay by year" in r.output


# ------------------------------------------------------------------ properties


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 10_000).map(lambda k: k / 10_000), st.integers(0, 400)),
        min_size=2,
        max_size=40,
    ),
    st.randoms(use_true_random=False),
)
def test_dated_replay_does_not_depend_on_row_order(rows, rnd):
    """Replaying by date: the steps, N so far, records and thresholds are the same for any
    order of the input rows (Carterette 2015's sequential view of a population)."""
    import datetime as dt

    from litaudit.stats.sequential import replay

    assume(len({v for v, _ in rows}) > 1)  # a spread to estimate

    def run(rs):
        days = [dt.date(2019, 1, 1) + dt.timedelta(days=d) for _, d in rs]
        return replay(
            [v for v, _ in rs],
            [d.year for d in days],
            100,
            steps=([d.toordinal() for d in days], [d.isoformat() for d in days]),
        )

    shuffled = list(rows)
    rnd.shuffle(shuffled)
    a, b = run(rows), run(shuffled)
    key = [(p.when, p.N, p.n_new, p.record, p.new_record, p.threshold) for p in a.points]
    assert key == [(p.when, p.N, p.n_new, p.record, p.new_record, p.threshold) for p in b.points]
    assert [p.N for p in a.points] == sorted(p.N for p in a.points)
    assert a.points[-1].N == len(rows)
    assert all(
        p.record
        == max(
            v for v, d in rows if (dt.date(2019, 1, 1) + dt.timedelta(days=d)).isoformat() <= p.when
        )
        for p in a.points
    )
