"""Checks on the seed CSVs themselves (seeds/results/*.csv), before any loader sees them.

Format and provenance run everywhere; the digit-for-digit comparison with the sources
(Yang et al. SIGIR 2019 Robust04 meta-analysis; NIST TREC browser summaries) and the
topic counts against the official qrels run where ../shared/data is present.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import functools
import importlib.util
import json
import re
import types
from collections import Counter, defaultdict
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path

import pytest

from litaudit.curation.fields import ROLES, RUN_TYPES, STATUSES, parse_value
from litaudit.curation.rows import COLUMNS as EXPORT_COLUMNS
from tests.typed import some

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO / "seeds"
ROBUST04_CSV = SEEDS / "results" / "robust04_literature.csv"
OFFICIAL_CSV = SEEDS / "results" / "trec_official.csv"
ROBUST04 = "disks45/nocr/trec-robust-2004"

# the results import/export columns in export order (docs/DEVELOPING.md, "Results import
# format"; the test below checks the document names the same set)
COLUMNS = list(EXPORT_COLUMNS)
MSMARCO_CSV = SEEDS / "results" / "msmarco_leaderboards.csv"
MTEB_CSV = SEEDS / "results" / "mteb_beir.csv.gz"
DERIVED_CSV = SEEDS / "results" / "beir_averages.csv.gz"
PYSERINI_CSV = SEEDS / "results" / "pyserini_2cr.csv.gz"
# where each file's rows point (the location's prefix)
LOCATIONS = {
    "robust04_literature.csv": r"robust04_papers\.json: ",
    "trec_official.csv": r"official_summaries\.csv: ",
    "msmarco_leaderboards.csv": r"msmarco_(passage|document)_leaderboard\.csv: line \d+, ",
    "mteb_beir.csv.gz": r"mteb_beir_retrieval\.csv: line \d+, column ",
    "beir_averages.csv.gz": r"(mteb_beir_retrieval\.csv: lines \d+(,\d+){11,}, column "
    r"|pyserini_2cr\.csv: lines \d+(,\d+){11,}$)",
    "pyserini_2cr.csv.gz": r"pyserini_2cr\.csv: line \d+ \(pyserini/2cr/[\w.-]+\.yaml, line \d+; "
    r"value on line \d+\)$",
    # seeds/literature.py: repository/path@commit, line (tests/curation/test_literature_seeds.py)
    "literature.csv.gz": r"[\w.-]+/[\w.-]+/\S+@[0-9a-f]{12}: line \d+",
}


def text(path: Path) -> str:
    import gzip

    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")


def read(path: Path) -> list[Mapping[str, str]]:
    """The file's rows, read-only: shared by the tests, which read them (one that tried to
    change a row would fail with a TypeError; copy a row to change it)."""
    return list(_read(path))


@functools.cache
def _read(path: Path) -> tuple[Mapping[str, str], ...]:
    """Read once per process: 20 of these tests read all the seeds (34,495 rows; a copy
    of each row for each reading test cost ~0.2 s of the module's CPU)."""
    import io

    return tuple(
        types.MappingProxyType(r) for r in csv.DictReader(io.StringIO(text(path), newline=""))
    )


def all_files() -> list[Path]:
    d = SEEDS / "results"
    return sorted([*d.glob("*.csv"), *d.glob("*.csv.gz")])


@pytest.fixture(scope="module", autouse=True)
def _seeds_read() -> None:
    """Every seed file read before the first test (a shared fixture: --cpu-durations
    counts it apart from the tests)."""
    for path in [*all_files(), SEEDS / "zero_shot.csv.gz"]:
        _read(path)


def all_rows() -> list[tuple[str, int, Mapping[str, str]]]:
    return [(p.name, i, r) for p in all_files() for i, r in enumerate(read(p), start=2)]


def load_transcribe():
    spec = some(importlib.util.spec_from_file_location("seeds_transcribe", SEEDS / "transcribe.py"))
    mod = importlib.util.module_from_spec(spec)
    some(spec.loader).exec_module(mod)
    return mod


# ------------------------------------------------------------------ format
def test_columns_are_the_documented_import_format():
    doc = (REPO / "docs" / "DEVELOPING.md").read_text(encoding="utf-8")
    section = doc.split("## Results import format", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"`([a-z_]+)`", section.split("`results export`")[0]))
    assert documented == set(COLUMNS)
    for path in all_files():
        assert text(path).split("\n", 1)[0].split(",") == COLUMNS, path.name


def test_seed_files_exist_and_are_small():
    names = {p.name for p in all_files()}
    assert set(LOCATIONS) == names
    # the two large ones (MTEB: 23,497 rows) are gzipped; trec_official.csv (5,625 rows,
    # 1.4 MB) stays plain text so that a change to it reads as a diff
    # (Python's bytecode cache of the seeds' scripts, written when a test imports one, is
    # not part of the seeds: a second run of the suite counted it)
    total = sum(
        p.stat().st_size
        for p in SEEDS.rglob("*")
        if p.is_file() and "__pycache__" not in p.relative_to(SEEDS).parts
    )
    assert total < 3_000_000, f"seeds/ is {total} bytes"


@pytest.mark.slow
def test_every_row_names_its_source_and_provenance():
    for name, line, r in all_rows():
        where = f"{name}:{line}"
        assert r["source"] in ("paper", "official"), where
        for col in (
            "collection",
            "n_topics",
            "measure",
            "value",
            "system",
            "role",
            "year",
            "standard",
            "location",
            "transcribed_by",
            "transcribed_at",
            "status",
        ):
            assert r[col].strip(), f"{where}: {col} is blank"
        assert re.match(LOCATIONS[name], r["location"]), where
        if r["source"] == "paper":
            assert r["paper"] and r["paper_citation"] and r["paper_url"], where
            assert not r["track"], where
        else:
            assert r["track"], where
            assert r["participant"] or name.startswith(("mteb", "beir", "pyserini")), where
            assert not r["paper"], where
        assert r["reporter"] in (
            "authors",
            "nist",
            "leaderboard",
            "mteb",
            "pyserini",
            "unknown",
        ), where
        assert not r["date"] or r["date"][:4] == r["year"], where
        for col in ("url", "code_url"):
            assert not r[col] or re.match(r"https?://\S+$", r[col]), where
        dt.date.fromisoformat(r["transcribed_at"])
        script = "literature.py" if name == "literature.csv.gz" else "transcribe.py"
        assert r["transcribed_by"] == f"litaudit seeds ({script})", where


def test_values_parse_and_keep_their_printed_form():
    for name, line, r in all_rows():
        value, printed = parse_value(r["value"])
        assert printed == r["value"], f"{name}:{line}"
        assert 0.0 <= value <= 1.0, f"{name}:{line}"
        if name.startswith("mteb"):  # the source JSON's digits, float noise included
            continue
        if name.startswith("literature") and r["location"].startswith(
            ("castorini/pygaggle/", "castorini/pyserini/")
        ):
            continue  # MS MARCO's evaluation script prints the float in full (0.1873...)
        assert re.fullmatch(r"[01]\.\d{1,5}|[01]", printed), f"{name}:{line}: {printed!r}"
        # a float round trip would print 0.1 + 0.2 style artefacts or drop digits
        assert len(printed) <= 7, f"{name}:{line}: {printed!r}"


def test_enumerations_are_valid():
    for name, line, r in all_rows():
        where = f"{name}:{line}"
        assert r["role"] in ROLES, where
        assert r["run_type"] == "" or r["run_type"] in RUN_TYPES, where
        assert r["status"] in STATUSES and r["status"] == "draft", where
        assert r["standard"] in ("true", "false"), where
        assert int(r["n_topics"]) > 0 and 1950 <= int(r["year"]) <= 2100, where
        if name == "literature.csv.gz":  # papers' own tables: named systems
            assert r["source"] == "paper" and r["role"] in (
                "proposed",
                "baseline",
                "reproduction",
            ), where
        elif r["source"] == "paper":
            assert (r["role"], r["system"]) in {
                ("proposed", "best (proposed)"),
                ("baseline", "best baseline"),
            }, where
        elif name.startswith("msmarco"):  # the leaderboards' official baselines (🏛)
            assert r["role"] == ("baseline" if "official baseline" in r["notes"] else "official"), (
                where
            )
        elif name.startswith("trec"):
            assert r["role"] == "official", where
        elif r["track"].startswith("pyserini/"):  # Pyserini's two-click reproductions
            assert r["role"] == "reproduction" and r["reporter"] == "pyserini", where
        else:  # MTEB: submissions to a leaderboard, not a track's official evaluation
            assert r["track"].startswith("mteb/") and r["role"] == "leaderboard", where


def test_natural_keys_are_unique():
    """The store's results_natural_key (schema/001_core.sql) must not collide on import."""
    keys = Counter(
        (
            r["source"],
            r["paper"],
            r["track"],
            r["collection"],
            r["n_topics"],
            r["measure"],
            r["system"],
            r["role"],
        )
        for _, _, r in all_rows()
    )
    assert [k for k, n in keys.items() if n > 1] == []


@pytest.mark.slow
def test_collections_measures_and_topic_counts_resolve(mem_store):
    from litaudit.store.collections import resolve_collection
    from litaudit.store.measures import ensure_measures, resolve_measure

    con = mem_store.con
    assert ensure_measures(con, ("AP@10", "P@15", "p@15", "P@25")) == 2  # as imports do
    topic_sets = {
        (c, n): k
        for c, n, k in con.execute(
            "SELECT collection_id, name, n_topics FROM topic_sets"
        ).fetchall()
    }
    used = {
        (r["collection"], r["topic_set"], r["n_topics"], r["measure"]) for _, _, r in all_rows()
    }
    # each name resolved once (72 collections and 18 measures in 278 combinations; a
    # name's resolution does not depend on the combination)
    for collection in sorted({c for c, _, _, _ in used}):
        assert resolve_collection(con, collection).id == collection
    for measure in sorted({m for _, _, _, m in used}):
        assert resolve_measure(con, measure) == measure  # stored canonical
    for collection, topic_set, n_topics, _ in sorted(used):
        assert topic_sets[(collection, topic_set)] == int(n_topics), (collection, topic_set)


# ------------------------------------------------------------------ Robust04 literature
def test_robust04_counts_and_flags():
    rows = read(ROBUST04_CSV)
    assert {r["collection"] for r in rows} == {ROBUST04}
    assert {r["n_topics"] for r in rows} == {"249"}
    papers = {r["paper"] for r in rows}
    assert len(papers) == 112  # of 130 papers, 18 carry no value at all
    # "109 papers carry a best AP" (shared/data/README.md)
    assert (
        len({r["paper"] for r in rows if r["role"] == "proposed" and r["measure"] == "AP"}) == 109
    )
    assert Counter(r["measure"] for r in rows) == {
        "AP": 218,
        "P@10": 76,
        "P@20": 46,
        "nDCG@20": 40,
        "nDCG@10": 25,
        "P@5": 14,
        "Rprec": 8,
    }
    neural = {r["paper"] for r in rows if r["paper_tags"] == "neural"}
    assert len(neural) == 19 and "guo2016cikma" in neural and "liu2005cikm" not in neural


def test_robust04_paper_fields_are_consistent_per_bibkey():
    by_key = defaultdict(set)
    for r in read(ROBUST04_CSV):
        by_key[r["paper"]].add(tuple(r[c] for c in COLUMNS[1:10]) + (r["year"],))
    assert all(len(v) == 1 for v in by_key.values())
    fields = {k: next(iter(v)) for k, v in by_key.items()}
    # 'Liu et al. (CIKM 2005)' -> venue CIKM, year 2005, authors incomplete -> blank
    assert fields["liu2005cikm"][:7] == (
        "liu2005cikm",
        "Liu et al. (CIKM 2005)",
        "",
        "",
        "CIKM",
        "2005",
        "",
    )
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
    papers = json.loads(
        (shared_data / "published" / "robust04_papers.json").read_text(encoding="utf-8"),
        parse_float=str,
        parse_int=str,
    )
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
    expected = {
        (p["short_cite"], p["link"], part, key)
        for p in papers
        for part in ("best", "baseline")
        for key in (p.get(part) or {})
        if key != "gMAP"
    }
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


# TREC Deep Learning 2021 and 2022, TREC-COVID rounds 1-5: runs, collection, judged topics
# (ir_datasets metadata.json queries.count of the judged ids), measures seeded.
RECENT = {
    "trec30/deep/docs": (66, "msmarco-document-v2/trec-dl-2021/judged", 57, "P@10"),
    "trec30/deep/passages": (63, "msmarco-passage-v2/trec-dl-2021/judged", 53, "P(rel=2)@10"),
    "trec31/deep/docs": (42, "msmarco-document-v2/trec-dl-2022/judged", 76, "P@10"),
    "trec31/deep/passages": (100, "msmarco-passage-v2/trec-dl-2022/judged", 76, "P(rel=2)@10"),
    "trec-covid/round1": (143, "cord19/trec-covid/round1", 30, "P@5"),
    "trec-covid/round2": (136, "cord19/trec-covid/round2", 35, "P@5"),
    "trec-covid/round3": (79, "cord19/trec-covid/round3", 40, "P@5"),
    "trec-covid/round4": (72, "cord19/trec-covid/round4", 45, "P@20"),
    "trec-covid/round5": (126, "cord19/trec-covid/round5", 50, "P@20"),
}


def test_recent_official_tracks():
    rows = read(OFFICIAL_CSV)
    collections = json.loads((SEEDS / "collections.json").read_text(encoding="utf-8"))
    by_id = {c["id"]: c for c in collections["collections"]}
    for track, (n_runs, collection, n_topics, precision) in RECENT.items():
        mine = [r for r in rows if r["track"] == track]
        measures = Counter(r["measure"] for r in mine)
        docs = track.endswith("/docs")  # DL passages 2020-2022: no nDCG@10, AP(rel=2) (below)
        ap = "AP(rel=2)" if precision == "P(rel=2)@10" else "AP"
        assert measures == {m: n_runs for m in (ap, precision) + (("nDCG@10",) * docs)}, track
        assert {(r["collection"], r["n_topics"]) for r in mine} == {(collection, str(n_topics))}
        c = by_id[collection]
        assert c["ir_datasets"] and c["topic_sets"][0]["n_topics"] == n_topics, collection
        assert re.search(rf" queries.count (is )?{n_topics}\b", c["provenance"]), collection
        assert "0526f71732c84618f32a916d7f0109da18033c7e" in c["provenance"], collection
    names = {c["name"] for c in collections["collections"]}
    assert {"dl21-passage", "dl21-doc", "dl22-passage", "dl22-doc", "trec-covid-r5"} <= names
    # DL 2021: the best AP of passages and nDCG@10 and AP of documents, with their runs
    for track, measure, value, run in (
        ("trec30/deep/passages", "AP(rel=2)", "0.3923", "NLE_P_v1"),
        ("trec30/deep/docs", "nDCG@10", "0.7437", "pash_doc_f1"),
        ("trec30/deep/docs", "AP", "0.3521", "pash_doc_f5"),
    ):
        values = {
            r["system"]: r["value"] for r in rows if (r["track"], r["measure"]) == (track, measure)
        }
        assert max(values.values(), key=float) == value
        assert [s for s, v in values.items() if v == value] == [run]


# Baseline runs whose official scores Anserini's regressions reproduce (castorini/anserini,
# docs/regressions-dl19-passage.md, regressions-dl20-passage.md, docs/regressions/
# regressions-dl21-passage.md, -dl22-passage.md): their AP (trec_eval map) without -l 2
# for 2019, with -l 2 for 2020-2022, and nDCG@10 on the graded qrels.
ANSERINI = {
    ("trec28", "bm25base_p"): ("0.3773", "0.5058"),
    ("trec29", "p_bm25"): ("0.2856", "0.4796"),
    ("trec30", "p_bm25"): ("0.1357", "0.4458"),
    ("trec31", "p_bm25"): ("0.0325", "0.2692"),
}


def test_dl_passage_values_say_which_qrels_nist_used(shared_data):
    """NIST's DL passage summaries: 2019 on the full graded qrels (its map counts grade 1
    as relevant, its nDCG@10 is the track's); 2020-2022 on the qrels with grade 1 mapped
    to 0 (map as the track's binary AP, but ndcg_cut_10 is not the graded nDCG@10, so it
    is not seeded; map and P_10 are AP(rel=2) and P(rel=2)@10). The seeded rows say so."""
    src = {}
    with (shared_data / "trec" / "official_summaries.csv").open(newline="", encoding="utf-8") as f:
        for s in csv.DictReader(f):
            if s["track"] == "deep" and s["task"] == "passages":
                src[(s["edition"], s["run_id"], s["measure"])] = s["value"]
    for (edition, run), (ap, graded_ndcg) in ANSERINI.items():
        assert src[(edition, run, "map")] == ap, edition
        assert (src[(edition, run, "ndcg_cut_10")] == graded_ndcg) == (edition == "trec28")
    rows = [r for r in read(OFFICIAL_CSV) if r["track"].endswith("/deep/passages")]
    assert {r["track"] for r in rows if r["measure"] == "nDCG@10"} == {"trec28/deep/passages"}
    for r in rows:
        full = r["measure"] in ("AP", "P@10")
        assert full == (r["track"] == "trec28/deep/passages" and r["measure"] != "nDCG@10")
        binary = r["measure"] in ("AP(rel=2)", "P(rel=2)@10")
        assert binary == (r["track"] != "trec28/deep/passages")
        assert ("grade 1 ('related') passages count as relevant" in r["notes"]) == full
        assert ("grade 1 ('related') mapped to 0" in r["notes"]) == binary


def _fits(value: str, denominator: int) -> bool:
    """A printed 4-decimal mean is k / denominator for an integer k (half a unit of the
    last digit either way)."""
    from decimal import Decimal

    x = Decimal(value) * denominator
    return abs(x - x.to_integral_value()) <= Decimal("0.00005") * denominator


def test_precision_values_fit_their_topic_counts():
    """A mean of P@k over n topics is a multiple of 1/(k n): the P@k values NIST printed
    confirm each seeded topic count and cutoff. For DL 2021/2022 and TREC-COVID, n is the
    smallest count every run fits, so NIST's numbers imply exactly ir_datasets' judged
    queries. The older tracks' P_10 fits 1/(15 n) and not 1/(10 n): it is P@15."""
    rows = read(OFFICIAL_CSV)
    by_track = defaultdict(list)
    for r in rows:
        if r["measure"].startswith(("P@", "P(rel=2)@")):
            k = int(r["measure"].rsplit("@", 1)[1])
            by_track[(r["track"], k, int(r["n_topics"]))].append(r["value"])
    assert len(by_track) == len({r["track"] for r in rows})  # every track has one P@k
    for (track, k, n), values in by_track.items():
        fit = sum(_fits(v, k * n) for v in values)
        # Robust 2004: three runs average over fewer than 249 topics (trec_eval without -c)
        assert fit == len(values) - 3 * (track == "trec13/robust"), (track, k, n)
        if k == 15:
            assert sum(_fits(v, 10 * n) for v in values) < len(values) / 2, track
        if track in RECENT:
            smallest = next(m for m in range(1, n + 1) if all(_fits(v, k * m) for v in values))
            assert smallest == n, track


def test_older_p_10_is_p_at_15_recomputed_from_robust03_runs(shared_data):
    """Recomputed from three Robust 2003 runs and the track's qrels (ranked as trec_eval
    ranks: score, then docno, both descending), NIST's 'P_10' is P@15, not P@10."""
    import gzip

    qrels = defaultdict(set)
    with (shared_data / "trec" / "qrels" / "qrels.robust03.txt").open(encoding="utf-8") as f:
        for line in f:
            topic, _, docno, rel = line.split()
            if int(rel) > 0:
                qrels[topic].add(docno)
    seeded = {
        (r["system"], r["measure"]): r["value"]
        for r in read(OFFICIAL_CSV)
        if r["track"] == "trec12/robust"
    }
    assert not any(m == "P@10" for _, m in seeded)
    for run in ("InexpC2", "NLPR03vb10", "SABIR03BASE"):
        ranked = defaultdict(list)
        with gzip.open(shared_data / "trec" / "runs" / "robust03" / f"input.{run}.gz", "rt") as f:
            for line in f:
                topic, _, docno, _, score, _ = line.split()
                ranked[topic].append((float(score), docno))
        topics = [t for t in ranked if t in qrels]
        assert len(topics) == 100
        top15 = {t: sorted(ranked[t], reverse=True)[:15] for t in topics}  # sorted once
        means = {}
        for k in (10, 15):
            hits = [sum(d in qrels[t] for _, d in top15[t][:k]) for t in topics]
            means[k] = f"{sum(hits) / (k * len(topics)):.4f}"
        assert seeded[(run, "P@15")] == means[15] != means[10], run


def test_official_collections_kept_apart_and_years():
    rows = read(OFFICIAL_CSV)
    coll = {r["track"]: r["collection"] for r in rows}
    assert coll["trec28/deep/docs"] == "msmarco-document/trec-dl-2019/judged"
    assert coll["trec28/deep/passages"] == "msmarco-passage/trec-dl-2019/judged"
    assert coll["trec14/terabyte/adhoc"] != coll["trec14/terabyte/efficiency"]
    assert coll["trec13/robust"] == ROBUST04
    t = load_transcribe()
    for r in rows:
        assert int(r["year"]) == t.trec_year(r["track"].split("/")[0])
    assert {r["year"] for r in rows if r["track"] == "trec7/adhoc"} == {"1998"}
    assert {r["year"] for r in rows if r["track"].startswith("trec30/")} == {"2021"}
    assert {r["year"] for r in rows if r["track"].startswith("trec31/")} == {"2022"}
    assert {r["year"] for r in rows if r["track"].startswith("trec-covid/")} == {"2020"}


def test_official_run_types_normalised():
    rows = read(OFFICIAL_CSV)
    assert {r["run_type"] for r in rows} == {"automatic", "manual", ""}
    blank = [r for r in rows if r["run_type"] == ""]
    relauto = [r for r in blank if r["track"] == "trec27/core/main"]
    assert len(relauto) == 93  # 31 runs x AP, P@10, nDCG@10
    assert all(r["notes"].startswith("NIST run type: relauto") for r in relauto)
    # TREC-COVID's feedback runs (judgments of earlier rounds): 177 runs x AP, P@5|P@20
    feedback = [r for r in blank if r["track"] != "trec27/core/main"]
    assert len(feedback) == 354 and {r["track"][:11] for r in feedback} == {"trec-covid/"}
    assert all(r["notes"].startswith("NIST run type: feedback") for r in feedback)
    assert {r["run_type"] for r in rows if r["system"] == "juruManTit"} == {"manual"}


@pytest.mark.slow
def test_official_values_equal_the_source_digit_for_digit(shared_data):
    t = load_transcribe()
    src: dict[tuple[str, ...], list[dict[str, str]]] = {}
    with (shared_data / "trec" / "official_summaries.csv").open(newline="", encoding="utf-8") as f:
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
        assert t.official_measure(r["track"], measure) == r["measure"], f"line {line}"
        assert t.OFFICIAL_TRACKS[(edition, track, task)][0] == r["track"], f"line {line}"
        seeded.add((edition, track, task, r["system"], measure))
    # complete: every unambiguous source value of the selected tracks and measures is in
    ambiguous = {k[:4] for k, v in src.items() if len(v) > 1}
    expected = {
        k
        for k in src
        if k[:3] in t.OFFICIAL_TRACKS
        and t.official_measure(t.OFFICIAL_TRACKS[k[:3]][0], k[4])
        and k[:4] not in ambiguous
    }
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_transcription_is_up_to_date(shared_data):
    """The committed CSVs are exactly what seeds/transcribe.py writes from the sources."""
    files, left_out = load_transcribe().build(shared_data)
    for name, written in files.items():
        assert text(SEEDS / name) == written, name
    assert {"/".join(k): len(v) for k, v in left_out.items()} == {
        "trec15/terabyte/adhoc": 61,
        "trec15/terabyte/efficiency": 25,
        "mteb/no release date": 18,
    }


# ------------------------------------------------------------------ MS MARCO leaderboards
def _source_lines(path: Path) -> dict[int, dict]:
    """Source CSV records by the line they start on."""
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        out, start = {}, 2
        for rec in reader:
            out[start] = dict(zip(header, rec, strict=True))
            start = reader.line_num + 1
    return out


def test_msmarco_values_dates_and_markers_equal_the_leaderboards(shared_data):
    rows = read(MSMARCO_CSV)
    src = {
        f: _source_lines(shared_data / "published" / f)
        for f in ("msmarco_passage_leaderboard.csv", "msmarco_document_leaderboard.csv")
    }
    seen = set()
    for r in rows:
        m = some(re.match(r"(\S+): line (\d+), column (.+)$", r["location"]))
        s = src[m[1]][int(m[2])]
        assert s[m[3]] == r["value"], r["location"]  # the printed digits
        assert s["date"].replace("/", "-") == r["date"]
        assert s["team"].strip() == r["participant"]
        assert (s[""] == "🏛") == (r["role"] == "baseline")
        assert (s[""] == "🏆") == ("leaderboard record (🏆)" in r["notes"])
        kind = "full-ranking" if s["type"] == "full ranking" else "reranking"
        assert r["track"].endswith("/" + kind)
        assert r["url"] == s["paper"].strip() and r["code_url"] == s["code"].strip()
        seen.add((m[1], int(m[2]), m[3]))
    expected = {
        (f, line, col)
        for f, recs in src.items()
        for line, s in recs.items()
        for col in (("dev", "eval") if "passage" in f else ("MRR@100 (Dev)", "MRR@100 (Eval)"))
        if s[col].strip()
    }
    assert seen == expected and len(rows) == 536
    counts = Counter((r["collection"], r["measure"]) for r in rows)
    assert counts == {
        ("msmarco-passage/dev/small", "RR@10"): 155,
        ("msmarco-passage/eval/small", "RR@10"): 168,
        ("msmarco-document/dev", "RR@100"): 96,
        ("msmarco-document/eval", "RR@100"): 117,
    }


# ------------------------------------------------------------------ MTEB (BEIR)
def test_mteb_values_equal_the_source_digit_for_digit(shared_data):
    rows = read(MTEB_CSV)
    src = _source_lines(shared_data / "published" / "mteb_beir_retrieval.csv")
    t = load_transcribe()
    seen = set()
    for r in rows:
        m = some(re.match(r"mteb_beir_retrieval\.csv: line (\d+), column (\w+)$", r["location"]))
        s = src[int(m[1])]
        assert s[m[2]] == r["value"] and t.MTEB_MEASURES[m[2]] == r["measure"]
        assert t.MTEB_TASKS[s["task"]][0] == r["collection"] and s["model"] == r["system"]
        assert s["release_date"] == r["date"] and s["reported_by"] == r["reporter"]
        seen.add((int(m[1]), m[2]))
    expected = {
        (line, col)
        for line, s in src.items()
        if s["release_date"]
        for col in t.MTEB_MEASURES
        if s[col].strip()
    }
    assert seen == expected
    # map_at_10 is AP cut at 10 (ir_measures AP@10), never trec_eval's AP
    assert {r["measure"] for r in rows} == {"nDCG@10", "AP@10", "RR@10", "R@100"}


def test_beir_collections_and_query_counts_are_the_documented_ones():
    data = json.loads((SEEDS / "collections.json").read_text(encoding="utf-8"))
    by_id = {c["id"]: c for c in data["collections"]}
    t = load_transcribe()
    for cid, _topic_set, n in t.MTEB_TASKS.values():
        c = by_id[cid]
        assert c["ir_datasets"] and c["topic_sets"][0]["n_topics"] == n, cid
        assert c["provenance"].endswith(f"{cid} queries.count {n}"), cid
    # ir_datasets metadata.json: beir/scifact/test 300, beir/trec-covid 50,
    # beir/msmarco/dev 6980, beir/cqadupstack/android 699
    assert t.MTEB_TASKS["SciFact"] == ("beir/scifact/test", "test", 300)
    assert t.MTEB_TASKS["CQADupstackAndroidRetrieval"][::2] == ("beir/cqadupstack/android", 699)
    assert by_id["beir/cqadupstack"]["topic_sets"][0]["n_topics"] == sum(t.CQA_FORUMS.values())
    assert (
        by_id["beir/mean"]["topic_sets"][0]["n_topics"] == 53359 == t.subset_queries("beir/mean")[0]
    )
    assert by_id["msmarco-passage/trec-dl-2019/judged"]["topic_sets"][0]["n_topics"] == 43
    for c in data["collections"]:
        assert c.get("provenance"), c["id"]


def test_derived_averages_recompute_from_their_cited_lines(shared_data):
    """Every average is the unweighted mean of exactly its subset's members (CQADupStack
    as the mean of its 12 forums), recomputed from the source lines it cites."""
    from decimal import ROUND_HALF_EVEN, Decimal

    t = load_transcribe()
    mteb = _source_lines(shared_data / "published" / "mteb_beir_retrieval.csv")
    pys = _source_lines(shared_data / "published" / "pyserini_2cr.csv")
    rows = read(DERIVED_CSV)
    assert {r["collection"] for r in rows} == {
        "beir/cqadupstack",
        "beir/mean",
        "beir/18",
        "beir/14",
        "beir/13",
    }
    pyserini_measures = {"nDCG@10": "nDCG@10", "R@100": "R@100", "R@1000": "R@1000"}
    for r in rows:
        if r["track"] == "mteb/retrieval/derived":
            m = some(
                re.match(r"mteb_beir_retrieval\.csv: lines ([\d,]+), column (\w+)$", r["location"])
            )
            parts = [mteb[int(x)] for x in m[1].split(",")]
            assert {p["model"] for p in parts} == {r["system"]}
            cells = {t.MTEB_TASKS[p["task"]][0]: Decimal(p[m[2]]) for p in parts}
            assert t.MTEB_MEASURES[m[2]] == r["measure"]
        else:
            m = some(re.match(r"pyserini_2cr\.csv: lines ([\d,]+)$", r["location"]))
            parts = [pys[int(x)] for x in m[1].split(",")]
            assert len({p["condition"].split(".")[0] for p in parts}) == 1
            assert {pyserini_measures[p["measure"]] for p in parts} == {r["measure"]}
            cells = {t.PYSERINI_TOPICS[p["topics"]][0]: Decimal(p["value"]) for p in parts}
        assert len(cells) == len(parts)  # one value per dataset, none twice
        forums = [v for c, v in cells.items() if c.startswith("beir/cqadupstack/")]
        with_cqa = r["collection"] == "beir/cqadupstack" or (
            "beir/cqadupstack" in t.BEIR_SUBSETS[r["collection"]][1]
        )
        assert len(forums) == (12 if with_cqa else 0)
        if r["collection"] == "beir/cqadupstack":
            assert len(cells) == 12
            mean = sum(forums, Decimal(0)) / 12
        else:
            members = t.BEIR_SUBSETS[r["collection"]][1]
            others = {c: v for c, v in cells.items() if not c.startswith("beir/cqadupstack/")}
            if "beir/cqadupstack" in members:
                want = {*members} - {"beir/cqadupstack"}
                assert set(others) == want, r["collection"]
                mean = (sum(others.values(), Decimal(0)) + sum(forums, Decimal(0)) / 12) / len(
                    members
                )
            else:
                assert set(others) == set(members), r["collection"]
                mean = sum(others.values(), Decimal(0)) / len(members)
        assert r["value"] == str(mean.quantize(Decimal("0.00001"), rounding=ROUND_HALF_EVEN))


# ------------------------------------------------------------------ Pyserini 2CR
def _pyserini(collection: str, measure: str, system: str) -> Mapping[str, str]:
    hits = [
        r
        for r in read(PYSERINI_CSV)
        if (r["collection"], r["measure"], r["system"]) == (collection, measure, system)
    ]
    assert len(hits) == 1, (collection, measure, system, len(hits))
    return hits[0]


def test_pyserini_counts_roles_and_known_values():
    rows = read(PYSERINI_CSV)
    # 1,496 scores, 167 of them the same model through another runtime (folded)
    assert len(rows) == 1329
    assert {r["role"] for r in rows} == {"reproduction"}
    assert {r["reporter"] for r in rows} == {"pyserini"}
    dl19 = "msmarco-passage/trec-dl-2019/judged"
    # BM25 with default and tuned parameters on DL 2019 passages (Pyserini 2CR)
    bm25 = _pyserini(dl19, "nDCG@10", "BM25 (k1=0.9, b=0.4)")
    assert bm25["value"] == "0.5058" and "bm25-default" in bm25["notes"]
    assert _pyserini(dl19, "nDCG@10", "BM25 (k1=0.82, b=0.68)")["value"] == "0.4973"
    # DL passage MAP is trec_eval -l 2: stored as AP(rel=2), never as AP (NIST's AP of the
    # same BM25 baseline run, bm25base_p, on the full qrels is 0.3773)
    assert _pyserini(dl19, "AP(rel=2)", "BM25 (k1=0.9, b=0.4)")["value"] == "0.3013"
    assert not [r for r in rows if r["collection"] == dl19 and r["measure"] in ("AP", "R@1000")]
    # MS MARCO v1 document dev 'MRR@10' is -M 100 recip_rank: RR@100
    doc = _pyserini("msmarco-document/dev", "RR@100", "BM25 doc (k1=0.9, b=0.4)")
    assert "label MRR@10" in doc["notes"]
    assert not [
        r for r in rows if r["collection"] == "msmarco-document/dev" and r["measure"] == "RR@10"
    ]
    assert {
        r["measure"] for r in rows if r["collection"] == "msmarco-document/trec-dl-2019/judged"
    } == {
        "AP@100",
        "nDCG@10",
        "R@1000",
    }


def test_pyserini_topic_keys_map_to_the_documented_collections(shared_data):
    t = load_transcribe()
    src = _source_lines(shared_data / "published" / "pyserini_2cr.csv")
    keys = {s["eval_key"] or s["topics"] for s in src.values()}
    assert keys == set(t.PYSERINI_TOPICS)  # every qrels key mapped, nothing skipped
    assert t.PYSERINI_TOPICS["dl19-passage"][0] == "msmarco-passage/trec-dl-2019/judged"
    assert t.PYSERINI_TOPICS["msmarco-v1-passage.dev"][0] == "msmarco-passage/dev/small"
    assert t.PYSERINI_TOPICS["msmarco-v2-passage-dev"][0] == "msmarco-passage-v2/dev1"
    assert t.PYSERINI_TOPICS["webis-touche2020"][0] == "beir/webis-touche2020/v2"
    assert t.PYSERINI_TOPICS["robust04"][0] == "beir/robust04"  # BEIR's, not TREC's Robust04
    data = json.loads((SEEDS / "collections.json").read_text(encoding="utf-8"))
    by_id = {c["id"]: c for c in data["collections"]}
    for cid, topic_set, n in t.PYSERINI_TOPICS.values():
        ts = {x["name"]: x["n_topics"] for x in by_id[cid]["topic_sets"]}
        assert ts[topic_set] == n, cid
        if by_id[cid]["ir_datasets"]:
            assert f"{cid} queries.count {n}" in by_id[cid]["provenance"], cid


def test_pyserini_values_equal_the_source_digit_for_digit(shared_data):
    """Every score is transcribed or folded into the row of the same model (same file,
    qrels and measure), whose notes keep its value."""
    t = load_transcribe()
    src = _source_lines(shared_data / "published" / "pyserini_2cr.csv")
    dated = t.pyserini_lines(SEEDS)
    rows = read(PYSERINI_CSV)
    seen = set()
    for r in rows:
        m = some(
            re.match(
                r"pyserini_2cr\.csv: line (\d+) \((\S+), line (\d+); value on line (\d+)\)$",
                r["location"],
            )
        )
        s = src[int(m[1])]
        assert (s["file"], s["line"], s["value"]) == (m[2], m[3], r["value"])
        key = s["eval_key"] or s["topics"]
        assert t.PYSERINI_TOPICS[key][0] == r["collection"]
        assert t.pyserini_measure(key, s["measure"]) == r["measure"]
        # dated by the commit that put the value on its YAML line (git blame, kept lines)
        kept_line = dated[(s["file"], s["line"], s["topics"], s["measure"])]
        assert kept_line["line"] == m[4] and kept_line["commit"] == s["commit"]
        label, printed = kept_line["text"].lstrip("- ").split(": ")
        assert label == s["measure"] and Decimal(printed) == Decimal(s["value"])
        assert (r["date"], r["year"]) == (kept_line["date"], kept_line["date"][:4])
        assert r["url"].endswith(f"{s['commit']}/{s['file']}#L{m[4]}")
        assert f"condition {s['condition']}" in r["notes"]
        seen.add(int(m[1]))
    folded = set(src) - seen
    assert len(folded) == 1496 - 1329
    kept = {(r["track"], r["collection"], r["measure"]): r for r in rows}
    by_row = defaultdict(list)
    for r in rows:
        by_row[(r["track"], r["collection"], r["measure"], r["system"])].append(r)
    for line in folded:
        s = src[line]
        model, rank = t.model_key(s["condition"])
        assert rank > 0 or s["condition"].endswith(".faiss")  # a runtime variant
        key = s["eval_key"] or s["topics"]
        track = f"pyserini/2cr/{Path(s['file']).stem}"
        cid = t.PYSERINI_TOPICS[key][0]
        measure = t.pyserini_measure(key, s["measure"])
        system = t.pyserini_system(s["display"], s["condition"])
        [row] = by_row[(track, cid, measure, system)]
        assert f"{s['condition']} (line {s['line']} of " in row["notes"]
        assert f": {s['value']}, not a separate result" in row["notes"]
    assert kept  # (used above)


def _pyserini_dates():
    spec = some(importlib.util.spec_from_file_location("seeds_pys", SEEDS / "pyserini_dates.py"))
    mod = importlib.util.module_from_spec(spec)
    some(spec.loader).exec_module(mod)
    return mod


def test_pyserini_score_lines_are_found_under_their_condition_and_topics():
    d = _pyserini_dates()
    yaml = [
        "conditions:",
        "  - name: a",
        "    topics:",
        "      - topic_key: dl19-passage",
        "        scores:",
        "          - MAP: 0.3013",
        "            nDCG@10: 0.5058",
        "      - topic_key: dl20-passage",
        "        scores:",
        "          - nDCG@10: 0.4796",
        "  - name: b",
        "    datasets:",
        "      - dataset: dl19-passage",
        "        scores:",
        "          - nDCG@10: 0.986",
    ]
    assert d.score_line(yaml, 2, "dl19-passage", "nDCG@10", "0.5058") == 7
    assert d.score_line(yaml, 2, "dl20-passage", "nDCG@10", "0.4796") == 10
    assert d.score_line(yaml, 11, "dl19-passage", "nDCG@10", "0.9860") == 15  # 0.986 printed
    with pytest.raises(d.NotFound, match="line 7 holds 0.5058, the data 0.5059"):
        d.score_line(yaml, 2, "dl19-passage", "nDCG@10", "0.5059")
    with pytest.raises(d.NotFound, match="no R@1K of dl19-passage in the condition at line 2"):
        d.score_line(yaml, 2, "dl19-passage", "R@1K", "0.7")  # not read from condition b


def test_pyserini_rows_are_dated_by_the_commits_that_added_their_values():
    """Issue 32: a reproduction's date is the day its value entered Pyserini's YAML file
    (git blame at the pinned commit), not the day the files were read (2026-08-07)."""
    rows = read(PYSERINI_CSV)
    dates = Counter(r["date"] for r in rows)
    assert len(dates) == 34 and (min(dates), max(dates)) == ("2022-04-27", "2026-06-06")
    assert "2026-08-07" not in dates
    assert Counter(r["year"] for r in rows) == {
        "2022": 568, "2023": 402, "2024": 283, "2025": 16, "2026": 60
    }  # fmt: skip
    kept = _pyserini_dates().read_kept()
    assert len(kept) == 1496  # every score of the data file, folded runtimes too
    for r in kept.values():
        label, printed = r["text"].lstrip("- ").split(": ")
        assert label == r["measure"] and Decimal(printed) == Decimal(r["value"])
        assert "2022-01-01" <= r["date"] <= "2026-08-07"  # not after the pinned commit
    derived = [r for r in read(DERIVED_CSV) if r["track"] == "pyserini/2cr/beir/derived"]
    by_line = {r["location"].split(" (")[0]: r["date"] for r in rows}
    for r in derived:  # an average is dated by its latest part
        lines = some(re.match(r"pyserini_2cr\.csv: lines ([\d,]+)$", r["location"]))[1]
        parts = [by_line.get(f"pyserini_2cr.csv: line {x}") for x in lines.split(",")]
        assert r["date"] == max(p for p in parts if p is not None)


def test_runtime_rule_keeps_one_row_per_model():
    t = load_transcribe()
    assert t.model_key("splade-pp-ed-onnx") == ("splade-pp-ed", 1)
    assert t.model_key("splade-pp-ed-pytorch") == ("splade-pp-ed", 0)
    assert t.model_key("bge-base-en-v1.5.lucene-hnsw-int8.onnx") == ("bge-base-en-v1.5", 3)
    assert t.model_key("bm25-rm3-tuned") == ("bm25-rm3-tuned", 0)
    assert t.pyserini_system("SPLADE++ EnsembleDistil: ONNX", "splade-pp-ed-onnx") == (
        "SPLADE++ EnsembleDistil"
    )
    rows = read(PYSERINI_CSV)
    spl = [
        r
        for r in rows
        if r["system"] == "SPLADE++ EnsembleDistil"
        and r["collection"] == "msmarco-passage/trec-dl-2019/judged"
        and r["measure"] == "nDCG@10"
    ]
    assert len(spl) == 1 and "splade-pp-ed-pytorch" in spl[0]["notes"]
    assert "splade-pp-ed-onnx" in spl[0]["notes"]


def test_beir_subsets_membership_and_effective_queries():
    t = load_transcribe()
    s = t.BEIR_SUBSETS
    assert len(s["beir/18"][1]) == 18 and len(s["beir/14"][1]) == 14
    assert len(s["beir/13"][1]) == 13 and len(s["beir/mean"][1]) == 15
    assert set(s["beir/13"][1]) < set(s["beir/14"][1]) < set(s["beir/18"][1])
    assert set(s["beir/mean"][1]) - set(s["beir/14"][1]) == {"beir/msmarco/dev"}
    assert "beir/cqadupstack" not in s["beir/13"][1]
    # a model with every member has the average, one without a member none
    rows = read(DERIVED_CSV)
    py18 = {r["system"] for r in rows if r["collection"] == "beir/18"}
    assert py18 == {
        "bm25-flat",
        "bm25-multifield",
        "splade-pp-ed",
        "contriever",
        "contriever-msmarco",
        "bge-base-en-v1.5",
    }
    assert not [r for r in rows if r["collection"] == "beir/18" and r["track"].startswith("mteb")]
    # n_eff = K^2 / sum(1/n_i): two parts of 1 and 3 queries -> 4 / (4/3) = 3
    assert t.effective_queries([1, 3]) == 3
    total, eff = t.subset_queries("beir/13")
    assert total == 33234 and round(eff) == 3134
    data = json.loads((SEEDS / "collections.json").read_text(encoding="utf-8"))
    by_id = {c["id"]: c for c in data["collections"]}
    for cid in ("beir/18", "beir/14", "beir/13"):
        ts = by_id[cid]["topic_sets"][0]
        assert ts["n_topics"] == t.subset_queries(cid)[0] and ts["parts"] == s[cid][1]
        assert f"is {t.subset_queries(cid)[1]:.0f}" in ts["description"]


# ------------------------------------------------------------------ MTEB zero-shot flags
def _zero_shot() -> list[Mapping[str, str]]:
    return read(SEEDS / "zero_shot.csv.gz")


def test_zero_shot_counts_and_known_flags():
    t = load_transcribe()
    rows = _zero_shot()
    flags = {(r["system"], r["collection"]): r for r in rows}
    assert Counter(r["zero_shot"] for r in rows) == {"true": 4308, "false": 1149}
    # 288 dated MTEB models; 235 of them declare training data in mteb's registry
    results = read(MTEB_CSV) + [r for r in read(DERIVED_CSV) if r["track"].startswith("mteb")]
    pairs = {(r["system"], r["collection"]) for r in results}
    assert len({s for s, _ in pairs}) == 288 and len({s for s, _ in flags}) == 235
    assert len(pairs) - len(flags) == 1387  # pairs of models that declare nothing: unknown
    assert set(flags) <= pairs
    # BGE base v1.5 declares NQ (with NQHardNegatives, ...), not MS MARCO
    bge = "BAAI/bge-base-en-v1.5"
    assert flags[(bge, "beir/nq")]["zero_shot"] == "false"
    assert flags[(bge, "beir/nq")]["trained_on"] == "NQ"
    assert flags[(bge, "beir/msmarco/dev")]["zero_shot"] == "true"
    # an average is zero-shot only when every member is
    for (system, cid), r in flags.items():
        if cid in t.BEIR_SUBSETS or cid == "beir/cqadupstack":
            members = t.CQA_FORUM_IDS if cid == "beir/cqadupstack" else t.BEIR_SUBSETS[cid][1]
            parts = [flags.get((system, m)) for m in members if m != "beir/cqadupstack"]
            if cid != "beir/cqadupstack" and "beir/cqadupstack" in members:
                parts.append(flags.get((system, "beir/cqadupstack")))
            assert all(p is not None for p in parts), (system, cid)
            want = all(some(p)["zero_shot"] == "true" for p in parts)
            assert r["zero_shot"] == ("true" if want else "false"), (system, cid)


def test_mteb_registry_reader_follows_mtebs_rules(tmp_path):
    """ModelMeta's training data through names, imports, set algebra and dict keys; a
    task adapted from another is the same data (MTEB's _collect_similar_tasks); a model
    adapted from another adds its data; None stays unknown."""
    spec = some(importlib.util.spec_from_file_location("mteb_models", SEEDS / "mteb_models.py"))
    mm = importlib.util.module_from_spec(spec)
    some(spec.loader).exec_module(mm)
    impl = tmp_path / "mteb" / "models" / "model_implementations"
    impl.mkdir(parents=True)
    (impl / "__init__.py").write_text("")
    (impl / "base.py").write_text('BASE = {"MSMARCOHardNegatives", "NQ"}\n')
    (impl / "models.py").write_text(
        "from .base import BASE\n"
        "from mteb.models.model_meta import ModelMeta\n"
        'EXTRA = BASE | set(["FEVER"])\n'
        'a = ModelMeta(name="org/a", training_datasets={**{"HotpotQA": ["train"]}})\n'
        'b = ModelMeta(name="org/b", training_datasets=EXTRA, adapted_from="org/a")\n'
        'c = ModelMeta(name="org/c", training_datasets=None)\n'
        "d = ModelMeta(name=some_name(), training_datasets=set())\n"
    )
    tasks = tmp_path / "mteb" / "tasks"
    tasks.mkdir()
    (tasks / "t.py").write_text(
        'x = TaskMetadata(name="MSMARCOHardNegatives", adapted_from=["MSMARCO"])\n'
        'y = TaskMetadata(name="MSMARCO")\n'
    )
    declared, adapted, unreadable = mm.read_models(tmp_path)
    similar = mm.read_similar(tmp_path)
    assert declared == {
        "org/a": {"HotpotQA"},
        "org/b": {"MSMARCOHardNegatives", "NQ", "FEVER"},
        "org/c": None,
    }
    assert adapted == {"org/b": "org/a"} and unreadable == []
    assert mm.training_tasks("org/b", declared, adapted, similar) == {
        "MSMARCOHardNegatives",
        "MSMARCO",
        "NQ",
        "FEVER",
        "HotpotQA",
    }
    assert mm.training_tasks("org/c", declared, adapted, similar) is None


@pytest.mark.slow
def test_zero_shot_filter_keeps_declared_zero_shot_results(undone_store, tmp_path):
    import gzip
    import shutil

    from litaudit.curation.filters import AUDIT
    from litaudit.curation.results import query_results
    from litaudit.curation.seed import load_seeds

    d = tmp_path / "seeds"
    (d / "results").mkdir(parents=True)
    (d / "papers").mkdir()
    shutil.copy(SEEDS / "collections.json", d / "collections.json")
    nq = [r for r in read(MTEB_CSV) if r["collection"] == "beir/nq" and r["measure"] == "nDCG@10"]
    with open(d / "results" / "mteb.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, COLUMNS)
        w.writeheader()
        w.writerows(nq)
    flags = [r for r in _zero_shot() if r["collection"] == "beir/nq"]
    (d / "zero_shot.csv.gz").write_bytes(gzip.compress(text(SEEDS / "zero_shot.csv.gz").encode()))
    load_seeds(undone_store, d)
    con = undone_store.con
    everyone = query_results(con, AUDIT, collection="beir/nq", measure="nDCG@10")
    zs = query_results(
        con, dataclasses.replace(AUDIT, zero_shot=True), collection="beir/nq", measure="nDCG@10"
    )
    want = {r["system"] for r in flags if r["zero_shot"] == "true"}
    assert len(everyone) == len(nq) and {r.system for r in zs} == want
    assert 0 < len(want) < len(nq)
