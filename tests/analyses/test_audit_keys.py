"""The key of every stored audit kind (its parameters, method, seed, trials and input
fingerprint) is pinned: an audit stored by an earlier version with the same call is still
found and reused. The digests were computed with main at 0d6203e, before the audit
parameters became parameter objects (issue 23, item 5); a change here orphans every
stored audit of the kind. The results' digests say that every stored result is the same
too (the reuse kinds' results hold their input fingerprint, which varies: see _keys)."""

from __future__ import annotations

import hashlib
import json
import shutil

from tests.analyses.test_reuse_runs import write_tiny_files

# kind -> (audits stored, the digests of their keys and results) (see _keys)
PINNED = {
    "best": (218, "4ced46fb04635450", "afc3e49c7bb85a29"),  # 2 of `audit best`, 216 of summary
    "claim": (2, "8039a44c8a4a0217", "13281bb5ab354c39"),
    "history": (2, "8525fcf2e4059ddb", "1f80cab6cd098ec1"),
    "best-matrix": (2, "7474f7c7a0e1a594", "34e1705e242fad77"),
    "baselines": (1, "7f9a6620a7dd6da0", "681a8ca9bb0069c7"),
    "reuse-rao": (1, "47ef9addd5861c89", "-"),
    "reuse-lou": (1, "de17885f0d3fde48", "-"),
    "reuse-subcollections": (2, "7eaeb633ad9e6c09", "-"),  # its own and the verdict's
    "reuse-verdict": (1, "cecbc4304805f66f", "-"),
}


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
            results.setdefault(a.kind, []).append(dumps(a.result))
    return {
        k: (len(v), _digest(v), "-" if k.startswith("reuse-") else _digest(results[k]))
        for k, v in out.items()
    }


def _digest(x) -> str:
    return hashlib.sha256(json.dumps(x).encode()).hexdigest()[:16]


def test_stored_audit_keys_do_not_change(cli, shared_data, seeded_db_file, tmp_path):
    shutil.copy(seeded_db_file, cli.db)
    calls = [
        ("audit", "best", "-c", "robust04", "-m", "AP"),
        ("audit", "best", "-c", "robust04", "-m", "AP", "--method", "montecarlo"),
        (
            "audit",
            "best",
            "-c",
            "trec7",
            "-m",
            "AP",
            "--method",
            "montecarlo",
            "--trials",
            "500",
            "--seed",
            "3",
            "--source",
            "official",
            "--se",
            "model",
        ),
        ("audit", "claim", "-c", "robust04", "-m", "AP", "--value", "0.33"),
        (
            "audit",
            "claim",
            "-c",
            "robust04",
            "-m",
            "AP",
            "--value",
            "0.33",
            "--method",
            "montecarlo",
            "--trials",
            "300",
            "--n",
            "40",
            "--years",
            "2005-2015",
        ),
        ("audit", "history", "-c", "robust04", "-m", "AP"),
        ("audit", "history", "-c", "trec7", "-m", "AP", "--reference", "final"),
        ("audit", "matrix", shared_data / "pertopic" / "adhoc7_ap.csv", "-m", "AP", "-c", "trec7"),
        (
            "audit",
            "matrix",
            shared_data / "pertopic" / "adhoc7_ap.csv",
            "-m",
            "AP",
            "-c",
            "trec7",
            "--method",
            "montecarlo",
            "--trials",
            "200",
        ),
        ("audit", "summary", "--since", "2021"),
        (
            "audit",
            "baselines",
            "-c",
            "robust04",
            "-m",
            "AP",
            "--baseline",
            "0.25",
            "--baseline-system",
            "BM25",
        ),
    ]
    for args in calls:
        res = cli(*args)
        assert res.exit_code == 0, (args, res.output)
    tiny = tmp_path / "tiny.duckdb"
    from litaudit.runs.ingest import import_archive
    from litaudit.store.db import open_store
    from litaudit.store.refdata import load_reference_data

    paths, q, meta = write_tiny_files(tmp_path)
    with open_store(tiny) as store:
        load_reference_data(store.con)
        import_archive(store, "trec-robust-2003", paths, qrels_path=q, metadata=meta)
    for args in (
        ("reuse", "rao", "-c", "robust03", "-k", "2"),
        ("reuse", "lou", "-c", "robust03", "-k", "2"),
        ("reuse", "subcollections", "-c", "robust03", "--all-types", "-R", "20", "--seed", "5"),
        (
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
        ),
    ):
        res = cli(*args, db=tiny)
        assert res.exit_code == 0, (args, res.output)
    keys = _keys(cli.db) | _keys(tiny)
    assert keys == PINNED
