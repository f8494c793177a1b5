"""Checks on the seed CSVs themselves (seeds/results/*.csv), before any loader sees them.

Format and provenance run everywhere; the digit-for-digit comparison with the sources
(Yang et al. SIGIR 2019 Robust04 meta-analysis; NIST TREC browser summaries) and the
topic counts against the official qrels run where ../shared/data is present.
"""

from __future__ import annotations

import csv
import datetime as dt
import importlib.util
import json
import re
from collections import Counter, defaultdict
from pathlib import Path

from litaudit.curation.fields import ROLES, RUN_TYPES, STATUSES, parse_value

REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO / "seeds"
ROBUST04_CSV = SEEDS / "results" / "robust04_literature.csv"
OFFICIAL_CSV = SEEDS / "results" / "trec_official.csv"
ROBUST04 = "disks45/nocr/trec-robust-2004"

# docs/DEVELOPING.md, "Results import format", in its order.
COLUMNS = [
    "source", "paper", "paper_citation", "paper_title", "paper_authors", "paper_venue",
    "paper_year", "paper_doi", "paper_url", "paper_tags", "track", "collection", "topic_set",
    "n_topics", "measure", "value", "system", "participant", "role", "run_type", "year",
    "standard", "location", "transcribed_by", "transcribed_at", "status", "notes",
]


def read(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def all_files() -> list[Path]:
    return sorted((SEEDS / "results").glob("*.csv"))


def all_rows() -> list[tuple[str, int, dict]]:
    return [(p.name, i, r) for p in all_files() for i, r in enumerate(read(p), start=2)]


def load_transcribe():
    spec = importlib.util.spec_from_file_location("seeds_transcribe", SEEDS / "transcribe.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ------------------------------------------------------------------ format
def test_columns_are_the_documented_import_format():
    doc = (REPO / "docs" / "DEVELOPING.md").read_text(encoding="utf-8")
    section = doc.split("## Results import format", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"`([a-z_]+)`", section.split("`results export`")[0]))
    assert documented == set(COLUMNS)
    for path in all_files():
        with path.open(newline="", encoding="utf-8") as f:
            assert next(csv.reader(f)) == COLUMNS, path.name


def test_seed_files_exist_and_are_small():
    names = {p.name for p in all_files()}
    assert {"robust04_literature.csv", "trec_official.csv"} <= names
    total = sum(p.stat().st_size for p in SEEDS.rglob("*") if p.is_file())
    assert total < 1_500_000, f"seeds/ is {total} bytes"


def test_every_row_names_its_source_and_provenance():
    for name, line, r in all_rows():
        where = f"{name}:{line}"
        assert r["source"] in ("paper", "official"), where
        for col in ("collection", "n_topics", "measure", "value", "system", "role", "year",
                    "standard", "location", "transcribed_by", "transcribed_at", "status"):
            assert r[col].strip(), f"{where}: {col} is blank"
        if r["source"] == "paper":
            assert r["paper"] and r["paper_citation"] and r["paper_url"], where
            assert r["location"].startswith("robust04_papers.json: "), where
            assert not r["track"], where
        else:
            assert r["track"] and r["participant"], where
            assert r["location"].startswith("official_summaries.csv: "), where
            assert not r["paper"], where
        dt.date.fromisoformat(r["transcribed_at"])
        assert r["transcribed_by"] == "litaudit seeds (transcribe.py)", where


def test_values_parse_and_keep_their_printed_form():
    for name, line, r in all_rows():
        value, text = parse_value(r["value"])
        assert text == r["value"], f"{name}:{line}"
        assert re.fullmatch(r"[01]\.\d{1,4}|[01]", text), f"{name}:{line}: {text!r}"
        assert 0.0 <= value <= 1.0, f"{name}:{line}"
        # a float round trip would print 0.1 + 0.2 style artefacts or drop digits
        assert len(text) <= 6, f"{name}:{line}: {text!r}"


def test_enumerations_are_valid():
    for name, line, r in all_rows():
        where = f"{name}:{line}"
        assert r["role"] in ROLES, where
        assert r["run_type"] == "" or r["run_type"] in RUN_TYPES, where
        assert r["status"] in STATUSES and r["status"] == "draft", where
        assert r["standard"] in ("true", "false"), where
        assert int(r["n_topics"]) > 0 and 1950 <= int(r["year"]) <= 2100, where
        if r["source"] == "paper":
            assert (r["role"], r["system"]) in {("proposed", "best (proposed)"),
                                                 ("baseline", "best baseline")}, where
        else:
            assert r["role"] == "official", where


def test_natural_keys_are_unique():
    """The store's results_natural_key (schema/001_core.sql) must not collide on import."""
    keys = Counter((r["source"], r["paper"], r["track"], r["collection"], r["n_topics"],
                    r["measure"], r["system"], r["role"]) for _, _, r in all_rows())
    assert [k for k, n in keys.items() if n > 1] == []


def test_collections_measures_and_topic_counts_resolve(mem_store):
    from litaudit.store.refdata import resolve_collection, resolve_measure

    con = mem_store.con
    topic_sets = {(c, n): k for c, n, k in
                  con.execute("SELECT collection_id, name, n_topics FROM topic_sets").fetchall()}
    used = {(r["collection"], r["topic_set"], r["n_topics"], r["measure"])
            for _, _, r in all_rows()}
    for collection, topic_set, n_topics, measure in sorted(used):
        assert resolve_collection(con, collection).id == collection
        assert resolve_measure(con, measure) == measure  # stored canonical
        assert topic_sets[(collection, topic_set)] == int(n_topics), (collection, topic_set)


# ------------------------------------------------------------------ Robust04 literature
def test_robust04_counts_and_flags():
    rows = read(ROBUST04_CSV)
    assert {r["collection"] for r in rows} == {ROBUST04}
    assert {r["n_topics"] for r in rows} == {"249"}
    papers = {r["paper"] for r in rows}
    assert len(papers) == 112  # of 130 papers, 18 carry no value at all
    # "109 papers carry a best AP" (shared/data/README.md)
    assert len({r["paper"] for r in rows if r["role"] == "proposed" and r["measure"] == "AP"}) \
        == 109
    assert Counter(r["measure"] for r in rows) == {
        "AP": 218, "P@10": 76, "P@20": 46, "nDCG@20": 40, "nDCG@10": 25, "P@5": 14,
        "Rprec": 8}
    neural = {r["paper"] for r in rows if r["paper_tags"] == "neural"}
    assert len(neural) == 19 and "guo2016cikma" in neural and "liu2005cikm" not in neural


def test_robust04_paper_fields_are_consistent_per_bibkey():
    by_key = defaultdict(set)
    for r in read(ROBUST04_CSV):
        by_key[r["paper"]].add(tuple(r[c] for c in COLUMNS[1:10]) + (r["year"],))
    assert all(len(v) == 1 for v in by_key.values())
    fields = {k: next(iter(v)) for k, v in by_key.items()}
    # 'Liu et al. (CIKM 2005)' -> venue CIKM, year 2005, authors incomplete -> blank
    assert fields["liu2005cikm"][:7] == ("liu2005cikm", "Liu et al. (CIKM 2005)", "", "",
                                         "CIKM", "2005", "")
    assert fields["amati2006ecir"][6] == "10.1007/11735106_3"  # DOI read off the Springer URL
    # colliding short citations are told apart in source order
    assert {"lv2011cikma", "lv2011cikmb", "zamani2016ictira", "zamani2016ictirb"} <= set(fields)
    assert fields["lv2011cikma"][7] != fields["lv2011cikmb"][7]


def test_robust04_known_values():
    # Liu et al. (CIKM 2005): best AP 0.3574, baseline 0.327 (printed with three digits);
    # Zamani and Croft (ICTIR 2016, the first of two): P@5 0.4730 keeps its trailing zero.
    got = {(r["paper"], r["role"], r["measure"]): r["value"] for r in read(ROBUST04_CSV)}
    assert got[("liu2005cikm", "proposed", "AP")] == "0.3574"
    assert got[("liu2005cikm", "baseline", "AP")] == "0.327"
    assert got[("zamani2016ictira", "proposed", "P@5")] == "0.4730"
    assert got[("amati2006ecir", "proposed", "Rprec")] == "0.2979"


def test_robust04_values_equal_the_source_digit_for_digit(shared_data):
    papers = json.loads((shared_data / "published" / "robust04_papers.json")
                        .read_text(encoding="utf-8"), parse_float=str, parse_int=str)
    by_cite_url = {(p["short_cite"], p["link"]): p for p in papers}
    rows = read(ROBUST04_CSV)
    seen = set()
    for line, r in enumerate(rows, start=2):
        p = by_cite_url[(r["paper_citation"], r["paper_url"])]
        part, key = r["location"].removeprefix("robust04_papers.json: ").split(".", 1)
        assert p[part][key] == r["value"], f"line {line}"
        assert (r["standard"] == "true") == (p["standard_setting"] == "yes")
        assert (r["paper_tags"] == "neural") == (p["is_neural"] == "yes")
        seen.add((r["paper_citation"], r["paper_url"], part, key))
    # and nothing the source carries is missing, except the documented gMAP values
    expected = {(p["short_cite"], p["link"], part, key)
                for p in papers for part in ("best", "baseline")
                for key in (p.get(part) or {}) if key != "gMAP"}
    assert seen == expected


# ------------------------------------------------------------------ official TREC runs
def test_official_counts():
    rows = read(OFFICIAL_CSV)
    ap_runs = Counter(r["track"] for r in rows if r["measure"] == "AP")
    assert ap_runs["trec7/adhoc"] == 103  # the TREC-7 example of Carterette 2015
    assert ap_runs["trec8/adhoc"] == 129
    assert ap_runs["trec13/robust"] == 110
    assert ap_runs["trec13/terabyte"] == 70
    assert ap_runs["trec28/deep/docs"] == 38 and ap_runs["trec28/deep/passages"] == 37
    assert ap_runs["trec15/terabyte/adhoc"] == 19 and "trec15/terabyte/efficiency" not in ap_runs
    # each (track, run) has each of its measures once
    assert max(Counter((r["track"], r["system"], r["measure"]) for r in rows).values()) == 1


def test_official_collections_kept_apart_and_years():
    rows = read(OFFICIAL_CSV)
    coll = {r["track"]: r["collection"] for r in rows}
    assert coll["trec28/deep/docs"] == "msmarco-document/trec-dl-2019"
    assert coll["trec28/deep/passages"] == "msmarco-passage/trec-dl-2019"
    assert coll["trec14/terabyte/adhoc"] != coll["trec14/terabyte/efficiency"]
    assert coll["trec13/robust"] == ROBUST04
    for r in rows:
        edition = int(r["track"].split("/")[0].removeprefix("trec"))
        assert int(r["year"]) == 1991 + edition
    assert {r["year"] for r in rows if r["track"] == "trec7/adhoc"} == {"1998"}


def test_official_run_types_normalised():
    rows = read(OFFICIAL_CSV)
    assert {r["run_type"] for r in rows} == {"automatic", "manual", ""}
    blank = [r for r in rows if r["run_type"] == ""]
    assert len(blank) == 93 and {r["track"] for r in blank} == {"trec27/core/main"}
    assert all(r["notes"].startswith("NIST run type: relauto") for r in blank)
    assert {r["run_type"] for r in rows if r["system"] == "juruManTit"} == {"manual"}


def test_official_values_equal_the_source_digit_for_digit(shared_data):
    t = load_transcribe()
    src = {}
    with (shared_data / "trec" / "official_summaries.csv").open(newline="",
                                                                 encoding="utf-8") as f:
        for s in csv.DictReader(f):
            k = (s["edition"], s["track"], s["task"], s["run_id"], s["measure"])
            src.setdefault(k, []).append(s)
    seeded = set()
    for line, r in enumerate(read(OFFICIAL_CSV), start=2):
        path, measure = r["location"].removeprefix("official_summaries.csv: ").rsplit(" ", 1)
        edition, track, task = path.split("/", 2)
        hits = src[(edition, track, task, r["system"], measure)]
        assert len(hits) == 1, f"line {line}: ambiguous source"
        s = hits[0]
        assert s["value"] == r["value"], f"line {line}"
        assert s["participant"] == r["participant"], f"line {line}"
        assert (t.RUN_TYPES[s["run_type"]] or "") == r["run_type"], f"line {line}"
        assert t.OFFICIAL_MEASURES[measure] == r["measure"], f"line {line}"
        assert t.OFFICIAL_TRACKS[(edition, track, task)][0] == r["track"], f"line {line}"
        seeded.add((edition, track, task, r["system"], measure))
    # complete: every unambiguous source value of the selected tracks and measures is in
    ambiguous = {k[:4] for k, v in src.items() if len(v) > 1}
    expected = {k for k in src if k[:3] in t.OFFICIAL_TRACKS
                and k[4] in t.OFFICIAL_MEASURES and k[:4] not in ambiguous}
    assert seeded == expected


QRELS = {  # collection id -> (qrels file, first topic, last topic)
    "trec6-adhoc": ("qrels.robust04.txt", 301, 350),
    "disks45/nocr/trec7": ("qrels.adhoc.351-400.txt", 351, 400),
    "disks45/nocr/trec8": ("qrels.adhoc.401-450.txt", 401, 450),
    "trec-robust-2003": ("qrels.robust03.txt", 0, 10**6),
    ROBUST04: ("qrels.robust04.txt", 0, 10**6),
    "wt10g/trec-web-2000": ("qrels.adhoc.451-550.txt", 451, 500),
    "wt10g/trec-web-2001": ("qrels.adhoc.451-550.txt", 501, 550),
    "gov2/trec-tb-2004": ("qrels.terabyte04.701-750.txt", 0, 10**6),
    "gov2/trec-tb-2005": ("qrels.terabyte05.751-800.txt", 0, 10**6),
    "gov2/trec-tb-2005/efficiency": ("qrels.terabyte05.751-800.txt", 0, 10**6),
    "gov2/trec-tb-2006": ("qrels.terabyte06.801-850.txt", 0, 10**6),
    "nyt/trec-core-2017": ("qrels.core17.txt", 0, 10**6),
    "wapo/v2/trec-core-2018": ("qrels.core18.txt", 0, 10**6),
}


def test_topic_counts_match_the_official_qrels(shared_data):
    n_topics = {r["collection"]: int(r["n_topics"]) for _, _, r in all_rows()}
    judged = {}  # qrels file -> its topic ids, each file read once
    for name in {name for name, _, _ in QRELS.values()}:
        with (shared_data / "trec" / "qrels" / name).open(encoding="utf-8") as f:
            judged[name] = {int(line.split(None, 1)[0]) for line in f}
    checked = 0
    for collection, (name, lo, hi) in QRELS.items():
        if collection not in n_topics:
            continue
        topics = {q for q in judged[name] if lo <= q <= hi}
        assert len(topics) == n_topics[collection], collection
        checked += 1
    assert checked == 13  # every seeded collection with a qrels file here


def test_transcription_is_up_to_date(shared_data):
    """The committed CSVs are exactly what seeds/transcribe.py writes from the sources."""
    files, left_out = load_transcribe().build(shared_data)
    for name, text in files.items():
        assert (SEEDS / name).read_text(encoding="utf-8") == text, name
    assert {"/".join(k): len(v) for k, v in left_out.items()} == {
        "trec15/terabyte/adhoc": 61, "trec15/terabyte/efficiency": 25}
