"""Reusability analyses on run archives: RAO, leave-out-uniques, sub-collections, verdict.

What the papers' numbers allow here. Voorhees, Lin, Efron (SIGIR 2014) report TREC-8 and
Microblog 2012/2013 (71, 121 and 71 pooled runs); Sanderson et al. (CIKM 2012) report
TRECs 2-8 and GOV2 (Tables 3-4: e.g. GOV2 2004 HTML-PDF tau 0.47, random 0.84-0.99,
p < 0.001). We have none of those archives, only 17 of the 78 TREC 2003 Robust runs, so:
- cannot be reproduced: every number of their Table 2, Figures 1-2 and Tables 2-4 (other
  collections, other run sets; unique documents depend on the whole pool: "unique" here
  means unique among these 17 runs, the 16 participants they come from);
- can be reproduced on robust03: the official MAP of each of the 17 runs (trec_eval,
  official_summaries.csv, 4 digits), which pins the archive and the evaluator that LOU
  and the sub-collection MAPs rest on; the paper's definitions (RAO in [1/P, 1], Table 2
  over automatic runs with MAP >= 0.1, p = (1 + #{tau_random <= tau}) / (1 + R), the
  automatic-runs / bottom-25% selection), checked against independent computations
  (Python sets for uniques and RAO, pytrec_eval for LOU, the general evaluator on
  filtered runs and qrels for every sub-collection MAP, scipy for tau).
"""

from __future__ import annotations

import csv
import gzip
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litaudit.analyses.reuse import coded_archive, overlap, subcollection_tau
from litaudit.analyses.reuse.lou import lou_of_archive
from litaudit.errors import InputError, ParameterError
from litaudit.runs.model import Archive, RunInfo
from tests.analyses.kept_reference import kept_reference
from tests.conftest import examples
from tests.typed import make_qrels, make_run, some

# ------------------------------------------------------------------ a tiny archive, by hand

TOPICS = ("1", "2")


def tiny_archive() -> Archive:
    """3 runs of 2 participants over documents of two sources (AA..., BB...)."""
    qrels = make_qrels(
        topic=["1", "1", "1", "1", "2", "2", "2"],
        docno=["AA1", "AA2", "BB1", "BB2", "AA3", "BB3", "BB4"],
        rel=[1, 0, 1, 2, 1, 1, 0],
    )
    runs = (
        make_run(
            "r1",
            ["1"] * 4 + ["2"] * 3,
            ["AA1", "BB1", "AA2", "BB2", "AA3", "BB3", "BB4"],
            [4, 3, 2, 1, 3, 2, 1],
        ),
        make_run("r2", ["1"] * 3 + ["2"] * 2, ["BB2", "AA2", "AA1", "BB4", "AA3"], [3, 2, 1, 2, 1]),
        make_run("r3", ["1"] * 2 + ["2"] * 2, ["AA2", "BB1", "BB3", "AA3"], [2, 1, 2, 1]),
    )
    info = (
        RunInfo("r1", "siteA", "automatic", None),
        RunInfo("r2", "siteA", "automatic", None),
        RunInfo("r3", "siteB", "manual", None),
    )
    return Archive("trec-robust-2003", qrels, runs, info)


def test_code_archive_orders_as_trec_eval():
    # scores equal as float32 tie, and ties go to the larger docno first (trec_eval)
    run = make_run("x", ["1", "1", "1"], ["AA1", "AA2", "BB1"], [1.0, 1.0 + 1e-9, 0.5])
    arch = Archive("c", make_qrels(["1"], ["AA1"], [1]), (run,), (RunInfo("x", None, None, None),))
    c = coded_archive.code_archive(arch)
    assert [c.docnos[d] for d in c.doc] == ["AA2", "AA1", "BB1"]
    assert c.rank.tolist() == [0, 1, 2]
    assert c.participants == ("x",)  # no participant: the run is its own


@pytest.mark.parametrize("runs", [[0], [2], [0, 2], [2, 0], [1, 2], [0, 1, 2]])
def test_evaluate_means_of_some_runs_equals_the_full_evaluation(runs):
    """The means of a subset of runs (its rows found by run blocks) are the full
    evaluation's means of those runs, in the order asked for."""
    c = coded_archive.code_archive(tiny_archive())
    full = coded_archive.evaluate_means(c, "AP")
    some = coded_archive.evaluate_means(c, "AP", runs=np.array(runs))
    assert some.tolist() == full[runs].tolist()
    keep = c.q_rel < 1  # no relevant document left: every mean 0
    assert coded_archive.evaluate_means(c, "AP", runs=np.array(runs), qrels_keep=keep).tolist() == [
        0.0
    ] * len(runs)


def test_rao_and_lou_on_the_tiny_archive():
    arch = tiny_archive()
    rao = overlap.rao_of_archive(arch, depth=2)
    # depth 2. topic 1: r1 {AA1, BB1}, r2 {BB2, AA2} (siteA), r3 {AA2, BB1} (siteB):
    # P_AA1 = P_BB2 = 1, P_BB1 = P_AA2 = 2. topic 2: r1 {AA3, BB3}, r2 {BB4, AA3},
    # r3 {BB3, AA3}: P_AA3 = P_BB3 = 2, P_BB4 = 1.
    r1 = ((1 + 1 / 2) / 2 + (1 / 2 + 1 / 2) / 2) / 2
    r2 = ((1 + 1 / 2) / 2 + (1 + 1 / 2) / 2) / 2
    r3 = ((1 / 2 + 1 / 2) / 2 + (1 / 2 + 1 / 2) / 2) / 2
    assert [r.rao for r in rao.runs] == pytest.approx([r1, r2, r3], abs=1e-15)
    assert rao.n_participants == 2 and rao.lower_bound == 0.5
    lou = lou_of_archive(arch, depth=2)
    # relevant: 1/AA1 (siteA only), 1/BB1 (both), 1/BB2 (siteA only), 2/AA3 (both),
    # 2/BB3 (both)
    assert (lou.n_relevant, lou.n_unique) == (5, 2)
    assert {p.participant: p.unique_relevant for p in lou.participants} == {"siteA": 2, "siteB": 0}
    assert lou.largest_participant == "siteA" and lou.largest_share == 1.0
    # r1 loses AA1 and BB2 on topic 1: AP (1/1 + 2/2 + 3/4)/3 -> (1/2)/1
    r1_lou = next(r for r in lou.runs if r.tag == "r1")
    before = ((1 + 1 + 3 / 4) / 3 + (1 + 1) / 2) / 2
    after = (1 / 2 + 1) / 2
    assert (r1_lou.before, r1_lou.after) == pytest.approx((before, after), abs=1e-15)
    assert r1_lou.pct_change == pytest.approx(100 * (after - before) / before, abs=1e-12)
    r3_lou = next(r for r in lou.runs if r.tag == "r3")
    assert r3_lou.before == r3_lou.after and not r3_lou.considered  # manual run
    assert lou.n_considered == 2


def test_split_rules(tmp_path):
    docnos = np.array(["FBIS3-1", "FR940104-0-1", "FT911-1", "LA0101-1", "XX1"], dtype=object)
    sp = subcollection_tau.split_documents(docnos, "prefix")
    assert sp.names == ("FBIS", "FR", "FT", "LA", "XX")
    assert sp.labels.tolist() == [0, 1, 2, 3, 4]
    sp = subcollection_tau.split_documents(docnos, "prefix:FBIS,FR94,FT,LA,F")
    assert sp.names == ("F", "FBIS", "FR94", "FT", "LA")
    assert sp.labels.tolist() == [1, 2, 3, 4, -1]  # longest prefix wins
    m = tmp_path / "map.tsv"
    m.write_text("# docno type\nFBIS3-1\thtml\nFT911-1 , pdf\nFT911-1 pdf\n")
    sp = subcollection_tau.split_documents(docnos, str(m))
    assert sp.names == ("html", "pdf") and sp.labels.tolist() == [0, -1, 1, -1, -1]
    m.write_text("FBIS3-1 html\nFT911-1 pdf extra\n")
    with pytest.raises(InputError, match=r"map.tsv:2: expected 2 fields"):
        subcollection_tau.split_documents(docnos, str(m))
    m.write_text("FBIS3-1 html\nFBIS3-1 pdf\n")
    with pytest.raises(InputError, match=r"map.tsv:2: document FBIS3-1 is mapped to both"):
        subcollection_tau.split_documents(docnos, str(m))
    with pytest.raises(ParameterError, match="no such file"):
        subcollection_tau.split_documents(docnos, str(tmp_path / "absent"))
    with pytest.raises(ParameterError, match="distinct"):
        subcollection_tau.split_documents(docnos, "prefix:FT,FT")


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(
        st.text(alphabet=st.sampled_from("ABFTRLaz09-_\u00e9\u00c5 "), max_size=8)
        | st.sampled_from(["FBIS3-1", "FR940104-0-1", "FT911-1", "LA0101-1", "", "XX"]),
        max_size=30,
    )
)
def test_prefix_split_is_the_leading_letters(docnos):
    # the leading ASCII letters (regex ^[A-Za-z]+) of each docno name its sub-collection;
    # a docno without one is in none (-1); the names sorted
    lead = [m.group(0) if (m := re.match(r"[A-Za-z]+", d)) else None for d in docnos]
    names = sorted({x for x in lead if x is not None})
    sp = subcollection_tau.split_documents(np.array(docnos, dtype=object), "prefix")
    assert sp.names == tuple(names)
    assert sp.labels.dtype == np.int64
    assert sp.labels.tolist() == [-1 if x is None else names.index(x) for x in lead]


def test_select_runs():
    full = np.array([0.3, 0.1, 0.2, 0.25, 0.05, np.nan])
    types = ["automatic", "automatic", "manual", "automatic", "automatic", "automatic"]
    keep, excluded = subcollection_tau.select_runs(
        full, types, automatic_only=True, drop_bottom=0.25
    )
    # 5 automatic runs, floor(5/4) = 1 dropped: the NaN one (no score ranks lowest)
    assert keep.tolist() == [0, 1, 3, 4]
    assert excluded == [(2, "run type manual"), (5, "bottom 25% by MAP")]
    keep, _ = subcollection_tau.select_runs(
        full[:5], types[:5], automatic_only=False, drop_bottom=0.5
    )
    assert keep.tolist() == [0, 2, 3]  # 0.05 and 0.1 dropped (floor(5 / 2) = 2)
    with pytest.raises(ParameterError):
        subcollection_tau.select_runs(full, types, automatic_only=True, drop_bottom=1.0)


# ------------------------------------------------------------------------- CLI, tiny store


def write_tiny_files(tmp_path: Path) -> tuple[list[Path], Path, Path]:
    arch = tiny_archive()
    paths = []
    for r in arch.runs:
        p = tmp_path / f"input.{r.tag}.gz"
        with gzip.open(p, "wt") as fh:
            for i, (t, d, s) in enumerate(zip(r.topic, r.docno, r.score, strict=True)):
                fh.write(f"{t} Q0 {d} {i + 1} {s} {r.tag}\n")
        paths.append(p)
    q = tmp_path / "qrels.txt"
    q.write_text(
        "".join(
            f"{t} 0 {d} {r}\n"
            for t, d, r in zip(arch.qrels.topic, arch.qrels.docno, arch.qrels.rel, strict=True)
        )
    )
    meta = tmp_path / "meta.csv"
    with open(meta, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["tag", "participant", "run_type"])
        for info in arch.info:
            w.writerow([info.tag, info.participant, info.run_type])
    return paths, q, meta


@pytest.fixture(scope="module")
def tiny_db(reference_db_file, tmp_path_factory) -> Path:
    """The tiny archive imported once for the module, into a copy of the reference
    database (what `init --no-seeds` makes); each test writes to its own copy (tiny_cli)."""
    import shutil

    from litaudit.runs.ingest import import_archive
    from litaudit.store.db import open_store

    folder = tmp_path_factory.mktemp("tiny")
    paths, q, meta = write_tiny_files(folder)
    db = folder / "tiny.duckdb"
    shutil.copy(reference_db_file, db)
    with open_store(db) as store:
        import_archive(store, "trec-robust-2003", paths, qrels_path=q, metadata=meta)
    return db


@pytest.fixture
def tiny_cli(cli, tiny_db):
    import shutil

    shutil.copy(tiny_db, cli.db)
    return cli


def audits(db: Path, kind: str):
    from litaudit.analyses.audits import list_audits
    from litaudit.store.db import open_store

    with open_store(db, read_only=True) as store:
        return list_audits(store.con, kind=kind)


@pytest.mark.slow
def test_cli_rao_and_lou(tiny_cli):
    res = tiny_cli("reuse", "rao", "--collection", "robust03", "--depth", "2")
    assert res.exit_code == 0, res.output
    assert "Run Average Overlap, trec-robust-2003, depth 2" in res.output
    assert "3 runs, P = 2 participants: RAO range [1/P = 0.5000, 1]" in res.output
    assert "saved as audit #1" in res.output
    # an identical call hands back the stored audit instead of storing a new one
    res = tiny_cli("reuse", "rao", "-c", "robust03", "-k", "2", "--json")
    out = json.loads(res.output)
    assert (out["audit_id"], out["reused"], out["result"]["depth"]) == (1, True, 2)
    assert [r["tag"] for r in out["result"]["runs"]] == ["r1", "r2", "r3"]
    assert [a.params for a in audits(tiny_cli.db, "reuse-rao")] == [{"depth": 2}]
    res = tiny_cli("reuse", "rao", "-c", "robust03", "-k", "3", "--json")
    assert json.loads(res.output)["audit_id"] == 2
    shown = tiny_cli("audit", "show", "1")
    assert shown.exit_code == 0, shown.output
    assert "Run Average Overlap, trec-robust-2003, depth 2" in shown.output
    res = tiny_cli("reuse", "lou", "-c", "robust03", "-k", "2", "--json")
    assert res.exit_code == 0, res.output
    lou = json.loads(res.output)["result"]
    assert (lou["n_unique"], lou["n_relevant"], lou["n_considered"]) == (2, 5, 2)
    res = tiny_cli("reuse", "lou", "-c", "robust03", "-k", "2")
    assert "Table 2 statistics (automatic runs with MAP >= 0.1)" in res.output
    assert "2 unique of 5 relevant documents" in res.output


@pytest.mark.slow
def test_cli_subcollections_and_verdict(tiny_cli):
    res = tiny_cli(
        "reuse",
        "subcollections",
        "-c",
        "robust03",
        "--all-types",
        "--keep-bottom",
        "-R",
        "20",
        "--split-seed",
        "5",
        "--json",
    )
    assert res.exit_code == 0, res.output
    sub = json.loads(res.output)["result"]
    assert [s["name"] for s in sub["subcollections"]] == ["AA", "BB"]
    assert sub["permutations"] == 20 and sub["seed"] == 5 and len(sub["pairs"]) == 1
    p = sub["pairs"][0]["p_value"]
    assert p is None or 0 < p <= 1
    stored = audits(tiny_cli.db, "reuse-subcollections")
    assert stored[0].seed == 5 and stored[0].trials == 20
    res = tiny_cli(
        "reuse",
        "verdict",
        "-c",
        "robust03",
        "-k",
        "2",
        "-R",
        "20",
        "--subcollections",
        "--split-seed",
        "5",
        "--json",
    )
    assert res.exit_code == 0, res.output
    v = json.loads(res.output)["result"]
    # two participants: no hold-out design (k = 2 of >= 3 sites), so no test can be made
    assert v["outcome"] == "not enough data"
    assert v["tests"] == [] and v["agreement"] is None
    assert any("2 participant(s)" in n for n in v["notes"])
    assert v["coverage"]["runs"] == 3 and v["coverage"]["participants"] == 2
    assert [x["depth"] for x in v["lou"]] == [2, 10, 20, 50, 100, 1000]
    assert v["subcollections"]["seed"] == 5 and v["subcollections"]["pairs"] == 1
    assert len(audits(tiny_cli.db, "reuse-verdict")) == 1
    n_rao, n_lou = len(audits(tiny_cli.db, "reuse-rao")), len(audits(tiny_cli.db, "reuse-lou"))
    n_sub = len(audits(tiny_cli.db, "reuse-subcollections"))
    # an identical second call reuses the stored verdict (and stores nothing new)
    res = tiny_cli(
        "reuse",
        "verdict",
        "-c",
        "robust03",
        "-k",
        "2",
        "-R",
        "20",
        "--subcollections",
        "--split-seed",
        "5",
    )
    assert res.exit_code == 0, res.output
    assert "Reusability verdict, trec-robust-2003" in res.output
    assert res.output.startswith(
        "Not enough data for a reusability decision on trec-robust-2003: 2 participant(s)"
    )
    assert "REUSABLE" not in res.output
    vid = audits(tiny_cli.db, "reuse-verdict")[-1].id
    assert (
        res.output.rstrip()
        .splitlines()[-1]
        .startswith(f"audit #{vid}: stored earlier by an identical call")
    )
    assert len(audits(tiny_cli.db, "reuse-verdict")) == 1
    # `audit show` prints the stored verdict as the command did, not its JSON
    shown = tiny_cli("audit", "show", str(vid))
    assert shown.exit_code == 0, shown.output
    assert shown.output.splitlines()[1].startswith("Not enough data for a reusability decision")
    # the command's text is `audit show`'s, after its provenance line (issue 37)
    assert shown.output.rstrip().splitlines()[1:] == res.output.rstrip().splitlines()[:-1]
    assert '"outcome"' not in shown.output
    # another alpha is another call; its components are reused (same inputs, seed and R)
    res = tiny_cli(
        "reuse",
        "verdict",
        "-c",
        "robust03",
        "-k",
        "2",
        "-R",
        "20",
        "--subcollections",
        "--split-seed",
        "5",
        "--alpha",
        "0.01",
    )
    assert res.exit_code == 0, res.output
    assert res.output.rstrip().splitlines()[-1] == "saved as audit #" + str(
        audits(tiny_cli.db, "reuse-verdict")[-1].id
    )
    assert (
        len(audits(tiny_cli.db, "reuse-rao")),
        len(audits(tiny_cli.db, "reuse-lou")),
        len(audits(tiny_cli.db, "reuse-subcollections")),
    ) == (n_rao, n_lou, n_sub)
    assert (
        json.loads(
            tiny_cli(
                "reuse",
                "verdict",
                "-c",
                "robust03",
                "-k",
                "2",
                "-R",
                "20",
                "--subcollections",
                "--split-seed",
                "5",
                "--json",
            ).output
        )["result"]
        == v
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (("reuse", "rao", "-c", "nosuch"), "nosuch"),
        (("reuse", "rao", "-c", "robust04"), "no run archive stored"),
        (("reuse", "lou", "-c", "robust03", "--measure", "XYZ"), "unknown measure 'XYZ'"),
        (
            ("reuse", "subcollections", "-c", "robust03", "--split", "nosuchfile.tsv", "-R", "5"),
            "no such file",
        ),
        (
            ("reuse", "subcollections", "-c", "robust03", "--split", "prefix:AA", "-R", "5"),
            "gives 1 sub-collection(s) (AA); need at least 2",
        ),
        (
            (
                "reuse",
                "subcollections",
                "-c",
                "robust03",
                "--all-types",
                "--split",
                "prefix:AA,BB",
                "-R",
                "5",
            ),
            None,
        ),
    ],
)
def test_cli_errors(tiny_cli, args, message):
    res = tiny_cli(*args)
    if message is None:  # the control: the same command, valid
        assert res.exit_code == 0, res.output
        assert "Kendall's tau per pair" in res.output
        return
    assert res.exit_code == 1
    assert message in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert len(audits(tiny_cli.db, "reuse-subcollections")) == 0


# ------------------------------------------------------------------------ robust03, real


@pytest.fixture(scope="module")
def robust03(robust03_db_file, robust03_coded):
    """(the robust03 archive, its coding, NIST's figures of each run): the archive and
    its coding as the session's robust03 database holds them (conftest.py: the 17 run
    files and the qrels of ../shared imported once; that the coding is what
    code_archive makes of the files' text: test_code_stored_equals_code_archive_robust03)."""
    from litaudit.runs.archive import load_archive
    from litaudit.store.db import open_store
    from tests.conftest import SHARED_DATA

    official: dict[str, dict[str, str]] = {}
    with open(SHARED_DATA / "trec" / "official_summaries.csv", newline="", encoding="utf-8") as fh:
        # the header and the lines of trec12 robust (edition and track lead each line):
        # 0.08 -> 0.01 s of CPU, no line of another track parsed
        lines = [next(fh), *(x for x in fh if x.startswith("trec12,robust,"))]
        for r in csv.DictReader(lines):
            if r["edition"] == "trec12" and r["track"] == "robust":
                official.setdefault(
                    r["run_id"], {"participant": r["participant"], "run_type": r["run_type"]}
                )
                official[r["run_id"]][r["measure"]] = r["value"]
    with open_store(robust03_db_file, read_only=True) as store:
        arch = load_archive(store.con, "trec-robust-2003")
    coded = robust03_coded[1]  # the session's
    assert [(i.tag, i.participant, i.run_type) for i in arch.info] == [
        (i.tag, official[i.tag]["participant"], official[i.tag]["run_type"]) for i in arch.info
    ]
    return arch, coded, official


@pytest.mark.slow(reason="the module's robust03 archive: the session's robust03 database")
def test_robust03_official_map(shared_data, robust03):
    # trec_eval's MAP of each run as NIST published it (official_summaries.csv, 4 digits)
    arch, c, official = robust03
    maps = coded_archive.evaluate_means(c, "AP")
    for tag, m in zip(c.tags, maps, strict=True):
        assert m == pytest.approx(float(official[tag]["map"]), abs=5e-5 + 1e-12), tag


@pytest.fixture(scope="module")
def robust03_top100(robust03) -> dict[tuple[str, str], set[str]]:
    """Pure-Python sets: the docnos of each participant's runs in the first 100 of a
    topic, by (participant, topic). Each run's rows as load_archive reads them, in
    trec_eval order: the order of DuckDB's ORDER BY topic, score::FLOAT DESC, docno DESC
    over the text (test_load_archive_reads_each_run_in_trec_eval_order checks it), apart
    from the coded one under test (Run.ranked() of each run, which sorts them again, cost
    1.4 s of the fixture's 2.0 s); the first 100 rows of each topic's block, sliced in
    Python (each topic's rows one block, asserted; counting along the 1.5M rows one by
    one: 0.27 -> 0.06 s of CPU, the same sets)."""
    arch, _, _ = robust03
    top: dict[tuple[str, str], set[str]] = {}
    for r, i in zip(arch.runs, arch.info, strict=True):
        cuts = [0, *(np.flatnonzero(r.topic[1:] != r.topic[:-1]) + 1).tolist(), len(r)]
        topics = r.topic[cuts[:-1]].tolist()
        assert len(topics) == len(set(topics))  # no topic's rows apart
        for t, a, b in zip(topics, cuts[:-1], cuts[1:], strict=True):
            top.setdefault((i.participant, t), set()).update(r.docno[a : min(b, a + 100)].tolist())
    return top


@pytest.fixture(scope="module")
def robust03_lou(robust03):
    """lou_of_archive of the module's robust03 archive at depth 100, computed once for
    the two tests that check it (its uniques against sets, its scores against
    pytrec_eval): 0.26 s of CPU each time."""
    arch, c, _ = robust03
    return lou_of_archive(arch, depth=100, coded=c)


@pytest.mark.slow
def test_robust03_rao_and_uniques_against_sets(
    shared_data, robust03, robust03_top100, robust03_lou
):
    arch, c, _ = robust03
    depth = 100
    rao = overlap.rao_of_archive(arch, depth=depth, coded=c)
    assert rao.n_runs == 17 and rao.n_participants == 16  # uglasgow.ounis has 2 runs
    assert all(1 / 16 <= some(r.rao) <= 1 for r in rao.runs)
    top = robust03_top100
    count: dict[tuple[str, str], int] = {}
    for (_, t), docs in top.items():
        for d in docs:
            count[(t, d)] = count.get((t, d), 0) + 1
    run = arch.runs[c.tags.index("uic0301")].ranked()
    # each topic's rows one block of the ranked run (asserted), its first `depth` sliced
    # (a mask of the run's rows per topic cost 0.1 s of CPU)
    cuts = [0, *(np.flatnonzero(run.topic[1:] != run.topic[:-1]) + 1).tolist(), len(run)]
    docs, tops = run.docno.tolist(), run.topic.tolist()
    first = {tops[a]: docs[a : min(b, a + depth)] for a, b in zip(cuts[:-1], cuts[1:], strict=True)}
    assert len(first) == len(cuts) - 1
    per_topic = [
        np.mean([1 / count[(t, d)] for d in first[t]]) for t in run.topics() if t in c.topic_names
    ]
    assert rao.runs[c.tags.index("uic0301")].rao == pytest.approx(np.mean(per_topic), abs=1e-12)
    q = arch.qrels  # (as lists: iterating numpy's object arrays cost 0.1 s more)
    relevant = {
        (t, d)
        for t, d, g in zip(q.topic.tolist(), q.docno.tolist(), q.rel.tolist(), strict=True)
        if g >= 1
    }
    unique: dict[str, int] = {}
    for (p, t), docs in top.items():
        unique[p] = unique.get(p, 0) + sum((t, d) in relevant and count[(t, d)] == 1 for d in docs)
    lou = robust03_lou  # at depth 100
    assert {p.participant: p.unique_relevant for p in lou.participants} == unique
    assert (lou.n_relevant, lou.n_unique) == (len(relevant), sum(unique.values()))
    assert lou.largest_participant == max(unique, key=unique.__getitem__)


@pytest.mark.slow
def test_robust03_lou_against_pytrec_eval(shared_data, robust03, robust03_top100, robust03_lou):
    import pytrec_eval

    arch, c, _ = robust03
    lou = robust03_lou
    # every run is automatic; rutcor03100 (MAP 0.0737) is below 0.1: 16 considered
    assert lou.n_considered == 16 and lou.n_unknown_type == 0
    row = {r.tag: r for r in lou.runs}
    assert not row["rutcor03100"].considered
    # re-evaluate uic0301 with pytrec_eval on the qrels without its participant's uniques
    top: dict[tuple[str, str], set[str]] = {}  # (topic, docno) -> who pooled it
    for (p, t), docs in robust03_top100.items():
        for d in docs:
            top.setdefault((t, d), set()).add(p)
    qrels: dict[str, dict[str, int]] = {}
    q = arch.qrels  # (as lists: iterating numpy's object arrays cost 0.1 s more)
    for t, d, g in zip(q.topic.tolist(), q.docno.tolist(), q.rel.tolist(), strict=True):
        if g >= 1 and top.get((t, d)) == {"uillinois-chicago.yu"}:
            continue
        qrels.setdefault(t, {})[d] = int(g)
    run = arch.runs[c.tags.index("uic0301")]
    rd: dict[str, dict[str, float]] = {}
    for t, d, s in zip(run.topic.tolist(), run.docno.tolist(), run.score.tolist(), strict=True):
        rd.setdefault(t, {})[d] = float(s)
    res = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(rd)
    after = np.mean([res[t]["map"] for t in res])
    assert row["uic0301"].after == pytest.approx(after, abs=1e-12)
    # Table 2 statistics of this 17-run subset (computed here, not in the paper)
    pct = np.array([abs(some(r.pct_change)) for r in lou.runs if r.considered])
    assert lou.max_abs_pct == pytest.approx(pct.max(), abs=1e-12)
    assert lou.max_abs_pct == pytest.approx(abs(some(row["uic0301"].pct_change)), abs=1e-12)
    assert lou.n_above == int((pct > 1.0).sum())


def _subcollection_maps(arch) -> dict[str, list[float]]:
    """The general evaluator's MAP (complete=True) of each run of ``arch`` (in its order)
    on each of FBIS, FR94, FT and LA: the rows of the runs and qrels whose docno starts
    with it, averaged over the topics with a relevant document left."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from litaudit.runs.evaluate import evaluate

    # Arrow's starts_with (the split under test uses numpy's; 0.6 s less than fixed-width
    # numpy text of the runs)
    docnos = [pa.array(r.docno, pa.string()) for r in arch.runs]
    q_docnos = pa.array(arch.qrels.docno, pa.string())

    def starts(docno: pa.Array, prefix: str) -> np.ndarray:
        return pc.starts_with(docno, prefix).to_numpy(zero_copy_only=False)

    maps = {}
    for prefix in ["FBIS", "FR94", "FT", "LA"]:
        q = arch.qrels.filter(starts(q_docnos, prefix))
        sub_runs = []
        for r, docno in zip(arch.runs, docnos, strict=True):
            m = starts(docno, prefix)
            sub_runs.append(make_run(r.tag, r.topic[m], r.docno[m], r.score[m]))
        ev = evaluate(sub_runs, q, ["AP"], complete=True)
        with_rel = [i for i, t in enumerate(ev.topics) if ((q.topic == t) & (q.rel >= 1)).any()]
        maps[prefix] = ev.matrix("AP")[:, with_rel].mean(axis=1).tolist()
    return maps


@pytest.mark.slow
def test_robust03_subcollection_maps_against_the_evaluator(shared_data, robust03, tmp_path_factory):
    # the general evaluator's MAPs of every run on each sub-collection (a run's AP does not
    # depend on the others) made once and kept across runs while the package, the
    # libraries and the robust03 build are the same (kept_reference; 1.3 s of CPU when
    # made); the split under test computed every run
    from scipy.stats import kendalltau

    arch, c, _ = robust03
    rep = subcollection_tau.subcollections_of_archive(
        arch, split="prefix:FBIS,FR94,FT,LA", permutations=20, seed=1, coded=c
    )
    assert [s.name for s in rep.subcollections] == ["FBIS", "FR94", "FT", "LA"]
    assert [s.topics for s in rep.subcollections] == [70, 30, 92, 88]
    assert len(rep.runs) == 13  # 17 automatic, bottom floor(17/4) = 4 dropped
    assert {t for t, _ in rep.excluded} == {"rutcor03100", "NLPR03vb10", "humR03dc", "MU03rob01"}
    maps = kept_reference(tmp_path_factory, _subcollection_maps, arch)
    at = [[i.tag for i in arch.info].index(r.tag) for r in rep.runs]
    oracle = []
    for k, prefix in enumerate(["FBIS", "FR94", "FT", "LA"]):
        expect = np.array(maps[prefix])[at]
        got = np.array([r.maps[k] for r in rep.runs])
        np.testing.assert_allclose(got, expect, rtol=0, atol=1e-12)
        oracle.append(expect)
    for p in rep.pairs:
        a, b = ["FBIS", "FR94", "FT", "LA"].index(p.a), ["FBIS", "FR94", "FT", "LA"].index(p.b)
        assert p.tau == pytest.approx(kendalltau(oracle[a], oracle[b]).statistic, abs=1e-12)
        assert 1 / 21 <= some(p.p_value) <= 1 and p.random_valid == 20


def _assert_same_coding(a, b):
    import dataclasses

    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype, f.name
            np.testing.assert_array_equal(x, y, err_msg=f.name)
        else:
            assert x == y, f.name


def test_code_stored_equals_code_archive(mem_store, tmp_path):
    # the analyses' loader builds from the integer tables what code_archive makes of the
    # string archive: same arrays, order, dtypes and fingerprint; here with topics whose
    # text and numeric orders differ, a second import appending doc ids out of byte order,
    # a deleted run leaving unused docnos behind, and score ties
    from litaudit.runs.archive import delete_runs, load_archive, load_tables
    from litaudit.runs.ingest import import_archive

    (tmp_path / "q.txt").write_text("2 0 b 1\n10 0 a 1\n10 0 c 0\n2 0 zz 2\n1 0 m 1\n")
    (tmp_path / "a.run").write_text(
        "2 Q0 b 1 1.5 A\n2 Q0 q 2 1.5 A\n10 Q0 c 1 3 A\n10 Q0 a 2 2 A\n1 Q0 m 1 1 A\n"
    )
    (tmp_path / "x.run").write_text("2 Q0 only_x 1 9 X\n")
    (tmp_path / "b.run").write_text("10 Q0 aa 1 5 B\n10 Q0 a 2 5 B\n2 Q0 zz 1 0.5 B\n")
    import_archive(
        mem_store,
        "trec-robust-2003",
        [tmp_path / "a.run", tmp_path / "x.run"],
        qrels_path=tmp_path / "q.txt",
    )
    import_archive(mem_store, "trec-robust-2003", [tmp_path / "b.run"])
    delete_runs(mem_store, "trec-robust-2003", ["X"])
    con = mem_store.con
    want = coded_archive.code_archive(load_archive(con, "trec-robust-2003"))
    got = coded_archive.code_stored(load_tables(con, "trec-robust-2003"), "trec-robust-2003")
    _assert_same_coding(got, want)
    assert "only_x" not in got.docnos.tolist() and got.topic_names == ("1", "2", "10")


def _coding_digests(coded) -> dict[str, object]:
    """Each field of a coded archive: an array as (dtype, shape, sha256 of its bytes; of
    its values' text for docnos), anything else as itself."""
    import dataclasses
    import hashlib

    out: dict[str, object] = {}
    for f in dataclasses.fields(coded):
        x = getattr(coded, f.name)
        if isinstance(x, np.ndarray):
            data = "\0".join(x.tolist()).encode() if x.dtype == object else x.tobytes()
            out[f.name] = (str(x.dtype), x.shape, hashlib.sha256(data).hexdigest())
        else:
            out[f.name] = x
    return out


def _code_archive_digests(arch) -> dict[str, object]:
    """:func:`_coding_digests` of what code_archive makes of the string archive ``arch``."""
    return _coding_digests(coded_archive.code_archive(arch))


@pytest.mark.slow
def test_code_stored_equals_code_archive_robust03(robust03_db_file, robust03, tmp_path_factory):
    # on the run's robust03 database (conftest.py: the 17 runs and qrels imported once);
    # the string archive is the module's (load_archive of the same database). What
    # code_archive makes of it (every field's dtype, shape and bytes) is made once and
    # kept across runs while the package, the libraries and the robust03 build are the
    # same (kept_reference; 0.5 s of CPU when made); code_stored runs every run
    from litaudit.runs.archive import load_tables
    from litaudit.store.db import open_store

    arch = robust03[0]
    with open_store(robust03_db_file, read_only=True) as store:
        tables = load_tables(store.con, "trec-robust-2003")
    got = _coding_digests(coded_archive.code_stored(tables, "trec-robust-2003"))
    want = kept_reference(tmp_path_factory, _code_archive_digests, arch)
    assert got.keys() == want.keys()
    for name, value in want.items():
        assert got[name] == value, name
