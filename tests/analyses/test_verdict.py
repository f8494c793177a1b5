"""A claim's verdict (issue 32): one line per question, the run checked before it is
believed, a baseline judged against its own model first."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.analyses.test_claim_evidence import _run_file
from tests.conftest import copy_db
from tests.typed import without_verdict


@pytest.fixture
def rcli(cli, robust03_db_file, tmp_path):
    db = tmp_path / "copy.duckdb"
    copy_db(robust03_db_file, db)
    return lambda *a: cli(*a, db=db)


def _renamed_copy(shared: Path, tmp: Path, n: int) -> Path:
    """uwmtCR0 (AP 0.2763 over 100 topics) with the first ``n`` of its topics renamed to
    topics the qrels do not judge, and its own tag: what issue 32 tried."""
    lines = gzip.open(_run_file(shared, "uwmtCR0"), "rt").read().splitlines()
    topics: list[str] = []
    for line in lines:
        t = line.split()[0]
        if t not in topics:
            topics.append(t)
    renamed = set(topics[:n])
    out = []
    for line in lines:
        p = line.split()
        p[0] = "9" + p[0] if p[0] in renamed else p[0]
        p[5] = "mine"
        out.append(" ".join(p))
    path = tmp / "renamed.txt"
    path.write_text("\n".join(out) + "\n")
    return path


@pytest.mark.slow
def test_a_run_missing_judged_topics_is_the_first_line(rcli, shared_data, tmp_path):
    run = _renamed_copy(shared_data, tmp_path, 33)
    res = rcli("audit", "claim", "-c", "robust03", "-m", "AP", "--run", run, "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)["result"]
    r = out["evidence"]["run"]
    assert (r["n_topics"], r["n_qrels_topics"], r["n_missing"]) == (67, 100, 33)
    # trec_eval -c: the 33 missing topics count as 0, the mean over all 100
    assert r["value_all"] == pytest.approx(r["value"] * 67 / 100)
    assert r["identical"] == ["uwmtCR0"]  # its scores on its 67 topics are uwmtCR0's
    # the claim's value is the mean over every judged topic, as published results are
    assert out["value"] == pytest.approx(r["value_all"])
    first = out["verdict"][0]
    assert first["question"] == "run" and first["answer"] == (
        "no, topics missing and a copy of an archived run"
    )
    assert (
        f"it lacks 33 of the 100 judged topics: AP {r['value_all']:.4f} over all 100 with "
        f"those as 0 (trec_eval -c), the mean compared here, and {r['value']:.4f} over its "
        "67 topics" in first["text"]
    )
    assert "equals archived run uwmtCR0 on the 67 topics it was evaluated on" in first["text"]
    # the terminal: the verdict first after the header, its first line the run check
    # (`audit show` of the stored audit prints what the command printed:
    # tests/cli/test_show_equals_command.py; the claim is computed once)
    aid = json.loads(res.output)["audit_id"]
    head, shown = rcli("audit", "show", str(aid)).output.split("\n", 1)
    assert head.startswith(f"Audit #{aid} (claim), ")  # show's provenance line, then the text
    lines = shown.splitlines()
    assert lines[1].startswith("Population: ")
    assert lines[2] == "Verdict:" and lines[3].startswith("- Run renamed.txt sound? No, topics")
    assert without_verdict(shown)[2].startswith("Against the record: 0.2264 is below")


@pytest.mark.slow
def test_an_archived_run_given_as_the_claims_run_is_named(rcli, shared_data):
    res = rcli(
        "audit", "claim", "-c", "robust03", "-m", "AP", "--value", "0.2763",
        "--run", _run_file(shared_data, "uwmtCR0"), "--json", "--no-save",
    )  # fmt: skip
    out = json.loads(res.output)["result"]
    assert out["evidence"]["run"]["identical"] == ["uwmtCR0"]
    lines = {v["question"]: v for v in out["verdict"]}
    assert lines["run"]["answer"] == "no, a copy of an archived run"
    assert lines["reproduces"]["answer"] == "yes"
    # every comparison says its direction
    for v in out["verdict"]:
        if v["question"] == "same-topic":
            assert v["answer"] in ("better", "worse", "not distinguishable")
            assert "(higher;" in v["text"] or "(lower;" in v["text"]


def test_verdict_lines_of_a_claim_answer_each_question_once(cli, seeded_db_file, tmp_path):
    db = tmp_path / "s.duckdb"
    copy_db(seeded_db_file, db)
    res = cli(
        "audit", "claim", "-c", "robust04", "-m", "AP", "--value", "0.372", "--json",
        "--no-save", db=db,
    )  # fmt: skip
    out = json.loads(res.output)["result"]
    # no per-topic scores of robust04 in the seeds: no resolution (test_resolution.py's)
    assert out["resolution"] is None
    qs = [v["question"] for v in out["verdict"]]
    assert qs[:1] == ["record"] and "chance" in qs and len(qs) == len(set(qs))
    record = out["verdict"][0]
    # the printed value, its direction against the record, how many are at or above it
    assert record["answer"] == "yes"
    assert record["text"].startswith(
        "0.372 is 0.0034 above the record 0.3686 (best (proposed), Cormack et al. (SIGIR "
        "2009)); no published result is at or above it; the record lies within the claim's "
        "60% band"
    )
    # the chance line is the audit's own chance sentence, not a second wording of it
    chance = next(v for v in out["verdict"] if v["question"] == "chance")
    said = next(a for a in out["answers"] if a.startswith("Against chance"))
    assert chance["text"].split(".")[0] in said


@pytest.mark.parametrize(
    ("collection", "measure", "value", "weak"),
    [
        # the bar: Pyserini's tuned BM25 (k1=0.82, b=0.68) on MS MARCO dev is
        # 0.1875; 0.187 is within rounding of it, never weak
        ("msmarco-passage/dev", "RR@10", "0.187", False),
        # Pyserini's own tuned BM25 on DL 2019 (0.4973) is not weak though the default
        # (k1=0.9, b=0.4) reaches 0.5058
        ("dl19-passage", "nDCG@10", "0.4973", False),
        ("dl19-passage", "nDCG@10", "0.4500", True),
    ],
)
def test_a_baseline_is_judged_against_its_own_model_first(
    cli, seeded_db_file, tmp_path, collection, measure, value, weak
):
    db = tmp_path / "s.duckdb"
    copy_db(seeded_db_file, db)
    res = cli(
        "audit", "baselines", "-c", collection, "-m", measure, "--baseline", value,
        "--baseline-system", "BM25", "--json", "--no-save", db=db,
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    b = json.loads(res.output)["result"]
    if not b["reproductions"]:
        pytest.skip(f"the seeds hold no BM25 reproduction of {collection} {measure}")
    assert b["weak"] is weak
    first = b["sentences"][0]
    assert first.startswith("Weak baseline" if weak else "The baseline is not weak")
    # the median of every published baseline is only context, named so
    assert "median" not in first or "as context only, the median of all" in first
    if not weak:
        assert "is within rounding of BM25 (k1=0.82, b=0.68)" in first


@pytest.mark.slow
def test_runs_import_warns_when_the_qrels_cover_few_of_the_collections_topics(
    cli, seeded_db_file, shared_data, tmp_path
):
    db = tmp_path / "s.duckdb"
    copy_db(seeded_db_file, db)
    trec = shared_data / "trec"
    run = _run_file(shared_data, "uwmtCR0")
    qrels = trec / "qrels" / "qrels.robust03.txt"
    res = cli("runs", "import", "-c", "robust04", "--qrels", qrels, run, "--json", db=db)
    assert res.exit_code == 0, res.output  # said, not refused
    assert "warning: the qrels judge 100 topics, 40% of the 249 of" in res.stderr
    rep = json.loads(res.stdout)
    assert (rep["qrels_topics"], rep["collection_topics"]) == (100, 249)
    # the robust03 qrels on their own collection: no warning
    res = cli("runs", "import", "-c", "robust03", "--qrels", qrels, run, db=db)
    assert res.exit_code == 0 and "warning" not in res.stderr, res.output


@pytest.mark.parametrize(
    ("collection", "measure", "covers"),
    [
        (
            "robust04",
            "AP",
            "papers 2005-2019 (218); TREC trec13/robust 2004 (110); no published result after 2019",
        ),
        (
            "dl19-passage",
            "nDCG@10",
            # Pyserini's reproductions dated by the commits that added their values (git
            # blame, seeds/pyserini_dates.py), a paper's reproduction named by its paper
            "papers 2020-2025 (141); TREC trec28/deep/passages 2019 (37); reproductions "
            "pyserini/2cr/msmarco-v1-passage 2022-2025 (45), Yu et al. (arXiv 2021) (1); no "
            "published result after 2025",
        ),
    ],
)
def test_what_the_record_covers_is_said_beside_it(
    cli, seeded_db_file, tmp_path, collection, measure, covers
):
    db = tmp_path / "s.duckdb"
    copy_db(seeded_db_file, db)
    res = cli(
        "audit", "claim", "-c", collection, "-m", measure, "--value", "0.5", "--json",
        "--no-save", db=db,
    )  # fmt: skip
    out = json.loads(res.output)["result"]
    assert out["coverage"] == covers
    qs = [v["question"] for v in out["verdict"]]
    assert qs.index("coverage") == qs.index("record") + 1  # beside the record line


def test_coverage_keeps_reproductions_apart():
    from litaudit.analyses.extreme.coverage import record_coverage
    from litaudit.analyses.extreme.population import ResultRow

    def row(i, source, role, year, date=None, track=None, citation=None, bibkey=None):
        return ResultRow(
            id=i, source=source, system=f"s{i}", participant=None, value=0.3, value_text="0.3",
            role=role, run_type=None, year=year, n_topics=50, topic_set=None, standard=True,
            status="verified", location=None, track=track, bibkey=bibkey, citation=citation,
            title=None, venue=None, doi=None, url=None, provenance="-", date=date,
        )  # fmt: skip

    rows = [
        row(1, "paper", "proposed", 2015),
        row(2, "paper", "baseline", 2018, "2018-07-01"),
        row(3, "official", "official", 2004, track="trec13/robust"),
        row(4, "official", "reproduction", 2024, "2024-03-05", track="pyserini/2cr/x"),
        row(5, "official", "reproduction", 2022, "2022-01-10", track="pyserini/2cr/x"),
        row(6, "paper", "reproduction", 2021, "2021-05-01", citation="Yu et al. (arXiv 2021)"),
        row(7, "paper", "reproduction", 2020, bibkey="lin2020"),
        row(8, "paper", "reproduction", 2024, "2024-10-03", citation="Hofstätter (SIGIR 2021)"),
    ]
    c = record_coverage(rows)
    assert c.last_published == 2018  # the 2024 reproduction does not move it
    # reproductions by their dates (a commit's), a paper's named by its paper: dated by
    # the paper's year, or by the commit of its repository's line when later
    assert c.sentence == (
        "papers 2015-2018 (2); TREC trec13/robust 2004 (1); reproductions pyserini/2cr/x "
        "2022-2024 (2), Hofstätter (SIGIR 2021) (1, dated 2024), Yu et al. (arXiv 2021) (1), "
        "lin2020 (1, dated 2020); no published result after 2018"
    )
    many = [
        row(10 + i, "paper", "reproduction", 2022, citation=f"P{i} (arXiv 2022)") for i in range(8)
    ]
    c = record_coverage(many)
    assert c.sentence.endswith(
        "P5 (arXiv 2022) (1), 2 other papers (2, dated 2022); no published result"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("-c", "dl-19", "-m", "nDCG@10"), "did you mean 'dl19-doc' (msmarco-document/trec-dl-"),
        (("-c", "beir", "-m", "nDCG@10"), "collection 'beir' could mean 4 averages: beir-mean"),
        (("-c", "robust04", "-m", "MAPP"), "unknown measure 'MAPP'; did you mean 'AP'?"),
        (("-c", "robust04", "-m", "ndgc@20"), "did you mean 'nDCG@20'?"),
    ],
)
def test_lookups_of_a_review_suggest(cli, seeded_db_file, tmp_path, args, message):
    db = tmp_path / "s.duckdb"
    copy_db(seeded_db_file, db)
    res = cli("audit", "claim", *args, "--value", "0.5", "--no-save", db=db)
    assert res.exit_code == 1 and message in res.output, res.output


def test_an_unknown_bibkey_is_an_error_with_a_suggestion(cli, seeded_db_file, tmp_path):
    db = tmp_path / "s.duckdb"
    copy_db(seeded_db_file, db)
    for cmd in (("results", "list"), ("results", "export", tmp_path / "x.csv")):
        res = cli(*cmd, "--paper", "cormak2009", db=db)
        assert res.exit_code == 1
        assert "no paper 'cormak2009'; did you mean 'cormack2009sigir'?" in res.output


@pytest.mark.slow(reason="evaluates the robust03 archive unless a test before it did")
def test_against_typo_suggests_the_stored_run(rcli, shared_data, tmp_path):
    run = _run_file(shared_data, "uwmtCR0")
    res = rcli(
        "audit", "claim", "-c", "robust03", "-m", "AP", "--run", run, "--against", "uwmtcr1",
        "--no-save",
    )  # fmt: skip
    assert res.exit_code == 1
    assert (
        "--against: run 'uwmtcr1' is not stored for trec-robust-2003; did you mean 'uwmtCR0'?"
        in res.output
    )


def test_results_list_at_80_columns_keeps_words_whole(monkeypatch):
    from litaudit.render import console

    monkeypatch.setattr(console.out, "_width", 80, raising=False)
    rows = [["28666", "0.2625", "best (proposed)", "diaz2005cikm", 2005, "draft"]] * 3
    cols = ["id", "value", "system", "source", "year", "status"]
    widths = console._fitted_widths(cols, rows, ("id", "year", "status"), 4)
    assert widths["system"] >= len("(proposed)") and widths["source"] >= len("diaz2005cikm")


def test_no_float_is_printed_with_16_digits():
    from litaudit.analyses.wording import printed_number

    assert printed_number("0.7766199999999999") == "0.77662"
    assert printed_number("0.3100") == "0.3100"  # as printed
    assert printed_number("0.123456789") == "0.123457"
    assert printed_number(None) is None


def test_the_baseline_judgement_is_monotone_in_the_value(seeded_db_file):
    # a baseline above one that is not weak is not weak (issue 32: Pyserini's tuned BM25,
    # 0.4973, was weak on DL 2019 while higher values were not)
    from litaudit.analyses.extreme.baselines import baseline_standing
    from litaudit.store.db import open_store

    values = ["0.4000", "0.4900", "0.4971", "0.4972", "0.4973", "0.5000", "0.5052", "0.5058"]
    with open_store(seeded_db_file, read_only=True) as store:
        weak = [
            baseline_standing(
                store.con, "msmarco-passage/trec-dl-2019/judged", "nDCG@10", value=v, model="BM25"
            ).weak
            for v in values
        ]
    if weak[0] is None:
        pytest.skip("the seeds hold no BM25 reproduction of DL 2019 passage nDCG@10")
    assert weak == [True, True, True, False, False, False, False, False]


@pytest.mark.slow
def test_history_shows_published_results_unless_reproductions_are_asked_for(
    cli, seeded_db_file, tmp_path
):
    """Issue 32, item 5: DL 2019's 46 reproductions (Pyserini's 45, one of a paper's
    repository) are left out of the history plot by default, and said so in its caption;
    `--with-reproductions` draws them (224 results, as the record audit reads)."""
    db = tmp_path / "s.duckdb"
    copy_db(seeded_db_file, db)
    args = ("report", "-c", "dl19-passage", "-m", "nDCG@10", "-f", "json")
    lit = json.loads(cli(*args, db=db).stdout)["literature"][0]
    assert (lit["n"], lit["history"][-1]["n"], lit["history_left_out"]) == (224, 178, 46)
    both = json.loads(cli(*args, "--with-reproductions", db=db).stdout)["literature"][0]
    assert (both["history"][-1]["n"], both["history_left_out"]) == (224, 0)
    out = tmp_path / "r.md"
    assert cli(*args[:-2], "-o", out, db=db).exit_code == 0
    assert "Published results only: the 46 reproductions of the population" in out.read_text()
    # `audit history` the same way
    hist = ("audit", "history", "-c", "dl19-passage", "-m", "nDCG@10", "--json")
    published = json.loads(cli(*hist, db=db).stdout)
    n = published["result"]["population"]["n"]
    n_all = json.loads(cli(*hist, "--with-reproductions", "--no-save", db=db).stdout)["result"][
        "population"
    ]
    assert (n, n_all["n"]) == (178, 224)
    # its text: `audit show` of the stored audit prints what the command printed
    # (tests/cli/test_show_equals_command.py); the history is computed once
    text = cli("audit", "show", str(published["audit_id"]), db=db).output
    assert "filters: published results only (reproductions left out)" in text
