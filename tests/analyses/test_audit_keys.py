"""The key of every stored audit kind (its parameters, method, seed, trials and input
fingerprint) is pinned: an audit stored by an earlier version with the same call is still
found and reused. The results' digests of best, claim, history and best-matrix changed with issue 30
(the measured reference noise by default, the 0.25-sd rule removed; then best's resampled_max,
claim's mixed.method and best-matrix's studentized max-t); their keys did not. The digests were computed with main at 0d6203e, before the audit
parameters became parameter objects (issue 23, item 5); a change here orphans every
stored audit of the kind. The results' digests say that every stored result is the same
too (the reuse kinds' results hold their input fingerprint, which varies: see _keys).

The inputs are fixed here (results written by this test, shared/data's TREC-7 matrix, the
tiny archive of test_reuse_runs), not the seeds, which change as results are curated.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.analyses.test_reuse_runs import write_tiny_files

# kind -> (audits stored, the digests of their keys and results) (see _keys)
PINNED = {
    "best": (7, "05962c09314283ca", "67e182e30f87f477"),  # 3 of `audit best`, 4 of summary
    "claim": (
        3,
        "66cd48228dcc6fb4",
        "e7483e4a64305b5e",
    ),  # +resampled_max, mixed.method; #32 wording; #37: its key read before it is computed
    "history": (2, "082b66bdb5f35111", "6007963600b296f6"),
    "baselines": (1, "7738d92f4971817d", "e19e8e7cf6a45598"),
    "best-matrix": (2, "2701d3d7cf56a78a", "f25ea9264d402ce9"),  # +max_t (#30, calibrated)
    "reuse-rao": (1, "47ef9addd5861c89", "-"),
    "reuse-lou": (1, "de17885f0d3fde48", "-"),
    "reuse-subcollections": (2, "7eaeb633ad9e6c09", "-"),  # its own and the verdict's
    "reuse-verdict": (1, "3133b86aa505eec1", "-"),  # issue 31: a new site's interval
}

# (system, value, year, role, bibkey or None for an official run of trec13/robust)
ROWS = [
    ("bm25", 0.2512, 2005, "baseline", "p05"),
    ("sdm", 0.2634, 2005, "proposed", "p05"),
    ("bm25", 0.2498, 2007, "baseline", "p07"),
    ("rm3", 0.2811, 2007, "proposed", "p07"),
    ("ql", 0.2455, 2009, "baseline", "p09"),
    ("ltr", 0.2902, 2009, "proposed", "p09"),
    ("bm25", 0.2531, 2011, "baseline", "p11"),
    ("neural", 0.3017, 2011, "proposed", "p11"),
    ("bm25", 0.2546, 2013, "baseline", "p13"),
    ("bert", 0.3120, 2013, "proposed", "p13"),
    ("pl2", 0.2389, 2004, "official", None),
    ("uogRobSWR10", 0.3033, 2004, "official", None),
    ("pircRB04t3", 0.3008, 2004, "official", None),
    ("fub04Dge", 0.2850, 2004, "official", None),
    ("apl04rsTDNw5", 0.2706, 2004, "official", None),
    ("humR04d5", 0.2557, 2004, "official", None),
]


def _write_results(db) -> None:
    """ROWS as robust04 AP results on 249 topics (the papers: p05 ... p13)."""
    from litaudit.store.collections import resolve_collection
    from litaudit.store.db import open_store

    with open_store(db) as store:
        con = store.con
        cid = resolve_collection(con, "robust04").id
        papers: dict[str | None, int] = {}
        for system, value, year, role, bibkey in ROWS:
            if bibkey is not None and bibkey not in papers:
                papers[bibkey] = con.execute(
                    "INSERT INTO papers (bibkey, citation, year) VALUES (?, ?, ?) RETURNING id",
                    [bibkey, f"Author et al. ({year})", year],
                ).fetchone()[0]
            con.execute(
                "INSERT INTO results (source, paper_id, track, collection_id, n_topics, "
                "measure, value, value_text, system, role, run_type, year, standard, "
                "location, transcribed_by, transcribed_at, status) VALUES (?, ?, ?, ?, 249, "
                "'AP', ?, ?, ?, ?, ?, ?, TRUE, 'Table 2', 'test', DATE '2026-01-01', 'draft')",
                [
                    "paper" if bibkey else "official",
                    papers.get(bibkey),
                    None if bibkey else "trec13/robust",
                    cid,
                    value,
                    f"{value:.4f}",
                    system,
                    role,
                    None if bibkey else "automatic",
                    year,
                ],
            )


def _keys(db) -> dict[str, tuple[int, str, str]]:
    """kind -> (how many audits of the kind are stored, the sha256 (16 hex digits) of
    their keys in id order, and of their results: "-" for the reuse kinds, which hold
    the input fingerprint)."""
    from litaudit.analyses.audits import list_audits
    from litaudit.codec import dumps
    from litaudit.store.db import open_store

    out: dict[str, list] = {}
    results: dict[str, list] = {}
    with open_store(db, read_only=True) as store:
        for a in list_audits(store.con):
            key = [a.collection_id, a.measure, dumps(a.params), a.method, a.seed, a.trials]
            if not a.kind.startswith("reuse-"):  # (the tiny archive's gzip files hold
                key.append(a.input_fingerprint)  # their time of writing)
            out.setdefault(a.kind, []).append(key)
            result = json.loads(dumps(a.result))
            result.pop("file", None)  # (a matrix audit's input path: where shared/ is)
            results.setdefault(a.kind, []).append(result)
    return {
        k: (len(v), _digest(v), "-" if k.startswith("reuse-") else _digest(results[k]))
        for k, v in out.items()
    }


def _digest(x) -> str:
    return hashlib.sha256(json.dumps(x, sort_keys=True).encode()).hexdigest()[:16]


@pytest.mark.slow
def test_stored_audit_keys_do_not_change(cli, shared_data, tmp_path, reference_db_file):
    import shutil

    shutil.copy(reference_db_file, cli.db)  # what `init --no-seeds` makes, built once
    _write_results(cli.db)
    matrix = shared_data / "pertopic" / "adhoc7_ap.csv"
    robust = ("-c", "robust04", "-m", "AP")
    mc = ("--method", "montecarlo")
    calls = [
        ("audit", "best", *robust),
        ("audit", "best", *robust, *mc),
        ("audit", "best", *robust, *mc, "--trials", "500", "--seed", "3", "--source",
         "official", "--se", "model", "--alpha", "0.1", "--p", "0.25"),
        ("audit", "claim", *robust, "--value", "0.33"),
        ("audit", "claim", *robust, "--system", "bert", *mc, "--trials", "300", "--n", "40",
         "--hidden-multiplier", "2", "--years", "2005-2013", "--se", "0.004"),
        ("audit", "claim", *robust, "--value", "0.3", "--role", "proposed", "--role",
         "official"),
        ("audit", "history", *robust),
        ("audit", "history", *robust, "--reference", "final", "--source", "papers"),
        ("audit", "summary"),
        ("audit", "summary", "--alpha", "0.1", "--p", "0.3"),
        ("audit", "baselines", *robust, "--baseline", "0.25", "--baseline-system", "bm25"),
        ("audit", "matrix", matrix, "-m", "AP", "-c", "trec7"),
        ("audit", "matrix", matrix, "-m", "AP", "-c", "trec7", *mc, "--trials", "200",
         "--se", "model"),
    ]  # fmt: skip
    for args in calls:
        res = cli(*args)
        assert res.exit_code == 0, (args, res.output)
    tiny = tmp_path / "tiny.duckdb"
    from litaudit.runs.ingest import import_archive
    from litaudit.store.db import open_store

    paths, q, meta = write_tiny_files(tmp_path)
    shutil.copy(reference_db_file, tiny)
    with open_store(tiny) as store:
        import_archive(store, "trec-robust-2003", paths, qrels_path=q, metadata=meta)
    for args in (
        ("reuse", "rao", "-c", "robust03", "-k", "2"),
        ("reuse", "lou", "-c", "robust03", "-k", "2"),
        ("reuse", "subcollections", "-c", "robust03", "--all-types", "-R", "20", "--split-seed",
         "5"),
        ("reuse", "verdict", "-c", "robust03", "-k", "2", "-R", "20", "--subcollections",
         "--split-seed", "5"),
    ):  # fmt: skip
        res = cli(*args, db=tiny)
        assert res.exit_code == 0, (args, res.output)
    keys = _keys(cli.db) | _keys(tiny)
    assert keys == PINNED
