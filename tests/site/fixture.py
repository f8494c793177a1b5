"""A small deterministic store for the site's tests: 7 published AP values on TREC-7 from
three papers (proposed and baseline, 2019-2023) and 7 official runs (1998), two of them
declared zero-shot. Not the seeds: each build takes well under a second."""

from __future__ import annotations

from pathlib import Path

COLLECTION = "trec7"
PAPERS = {
    "smith2019": ("Smith et al. (SIGIR 2019)", "10.1145/0000001", 2019),
    "jones2021": ("Jones and Lee (CIKM 2021)", "", 2021),
    "lee2023": ("Lee (ECIR 2023)", "10.1145/0000003", 2023),
}
RESULTS = [  # source, paper or track, system, value, role, year
    ("paper", "smith2019", "NeuralX", "0.4010", "proposed", 2019),
    ("paper", "smith2019", "BM25+RM3", "0.2810", "baseline", 2019),
    ("paper", "jones2021", "DeepY", "0.3950", "proposed", 2021),
    ("paper", "jones2021", "QL", "0.2440", "baseline", 2021),
    ("paper", "jones2021", "SDM", "0.2620", "baseline", 2021),
    ("paper", "lee2023", "Dense", "0.3990", "proposed", 2023),
    ("paper", "lee2023", "BM25", "0.2300", "baseline", 2023),
    ("official", "trec7/adhoc", "runA", "0.2200", "official", 1998),
    ("official", "trec7/adhoc", "runB", "0.1900", "official", 1998),
    ("official", "trec7/adhoc", "runC", "0.2500", "official", 1998),
    ("official", "trec7/adhoc", "runD", "0.1500", "official", 1998),
    ("official", "trec7/adhoc", "runE", "0.2100", "official", 1998),
    ("official", "trec7/adhoc", "runF", "0.2750", "official", 1998),
    ("official", "trec7/adhoc", "runG", "0.1750", "official", 1998),
]
ZERO_SHOT = ("runA", "runC")
COLUMNS = (
    "source,paper,paper_citation,paper_doi,paper_year,track,collection,measure,value,"
    "system,participant,role,run_type,year,transcribed_by,transcribed_at,status"
)


def results_csv(path: Path) -> Path:
    lines = [COLUMNS]
    for src, where, system, value, role, year in RESULTS:
        if src == "paper":
            cite, doi, py = PAPERS[where]
            paper = f"{where},{cite},{doi},{py},"
        else:
            paper = f",,,,{where}"
        part = "" if src == "paper" else f"grp{system[-1]}"
        lines.append(
            f"{src},{paper},{COLLECTION},MAP,{value},{system},{part},{role},automatic,{year},"
            "alice,2024-03-01,verified"
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def make_site_db(path: Path) -> Path:
    """The store above in a new database file at ``path``."""
    from litaudit.curation.importer import import_file
    from litaudit.store.collections import resolve_collection
    from litaudit.store.db import open_store
    from litaudit.store.refdata import load_reference_data

    with open_store(path) as store:
        load_reference_data(store.con)
        import_file(store, results_csv(path.parent / "site_results.csv"), who="fixture")
        cid = resolve_collection(store.con, COLLECTION).id
        for system in ZERO_SHOT:
            store.con.execute(
                "INSERT INTO zero_shot (system, collection_id, zero_shot, trained_on, source) "
                "VALUES (?, ?, true, NULL, 'test')",
                [system, cid],
            )
    return path
