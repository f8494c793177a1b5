"""Regenerate the seed CSVs in seeds/results/ and seeds/papers/ from the shared data folder.

A developer script, never run by `litaudit init`: the loader reads only the CSVs this
writes. Keeping the transcription as code makes it reproducible and reviewable.

    python seeds/transcribe.py                 # rewrite seeds/results/*.csv
    python seeds/transcribe.py --check         # exit 1 if the files differ from the data
    python seeds/transcribe.py --data DIR      # shared data elsewhere (default ../shared/data)

Sources (see seeds/README.md for the mapping decisions):
  published/robust04_papers.json  Yang, Lu, Yang, Lin, SIGIR 2019 (lintool/robust04-analysis)
  trec/official_summaries.csv     NIST TREC browser (usnistgov/trec-browser)
  published/msmarco_passage_leaderboard.csv, msmarco_document_leaderboard.csv
                                  microsoft/MSMARCO-{Passage,Document}-Ranking-Submissions
  published/mteb_beir_retrieval.csv  embeddings-benchmark/results (MTEB), CC0

Values are copied as text, exactly as the source prints them (JSON numbers are read with
``parse_float=str``), so 0.327 stays 0.327 and 0.4730 stays 0.4730. Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import re
import sys
from collections import Counter, defaultdict
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

from litaudit.curation.rows import COLUMNS as RESULT_COLUMNS

SEEDS = Path(__file__).resolve().parent
RESULTS = SEEDS / "results"
DEFAULT_DATA = SEEDS.parent.parent / "shared" / "data"

# The results import format (docs/DEVELOPING.md, "Results import format"), in its order.
COLUMNS = list(RESULT_COLUMNS)
TRANSCRIBED_BY = "litaudit seeds (transcribe.py)"
TRANSCRIBED_AT = "2026-11-22"
STATUS = "draft"

# ---------------------------------------------------------------- Robust04 literature
ROBUST04 = "disks45/nocr/trec-robust-2004"
ROBUST04_TOPIC_SET, ROBUST04_TOPICS = "judged", 249
# Measure keys of robust04_papers.json -> ir_measures names.
PAPER_MEASURES = {
    "AP": "AP",
    "P@5": "P@5",
    "P@10": "P@10",
    "P@20": "P@20",
    "nDCG@10": "nDCG@10",
    "nDCG@20": "nDCG@20",
    "R-precision": "Rprec",
}
# Carried by the data but not seeded: the measure registry has no geometric-mean family.
SKIPPED_PAPER_MEASURES = {"gMAP": "geometric mean of AP: no such measure in litaudit.measures"}
PAPER_PARTS = (("best", "proposed", "best (proposed)"), ("baseline", "baseline", "best baseline"))
PAPER_NOTE = (
    "from the Robust04 meta-analysis of Yang, Lu, Yang, Lin (SIGIR 2019), "
    "lintool/robust04-analysis; value as recorded there"
)
CITE = re.compile(r"^(?P<authors>.+?) \((?P<venue>[A-Za-z]+) (?P<year>\d{4})\)$")
DOI_IN_URL = re.compile(
    r"^https://(?:link\.springer\.com/(?:chapter|article)|onlinelibrary\.wiley\.com/doi/"
    r"(?:full|abs))/(?P<doi>10\.\d{4,9}/\S+)$"
)


def parse_citation(cite: str) -> tuple[str, str, int]:
    """'Liu et al. (CIKM 2005)' -> ('Liu et al.', 'CIKM', 2005)."""
    m = CITE.match(cite.strip())
    if not m:
        raise ValueError(f"cannot parse the citation {cite!r}")
    return m["authors"], m["venue"], int(m["year"])


def bibkey_stem(cite: str) -> str:
    """'Van Gysel et al. (TOIS 2018)' -> 'vangysel2018tois'."""
    authors, venue, year = parse_citation(cite)
    first = re.split(r" and | et al\.", authors)[0]
    return re.sub(r"[^a-z]", "", first.lower()) + str(year) + venue.lower()


def bibkeys(cites: list[str]) -> list[str]:
    """Stable keys; citations that collide get a, b, ... in source order."""
    stems = [bibkey_stem(c) for c in cites]
    counts, seen = Counter(stems), Counter()
    keys = []
    for s in stems:
        if counts[s] > 1:
            keys.append(s + "abcdefghijklmnopqrstuvwxyz"[seen[s]])
            seen[s] += 1
        else:
            keys.append(s)
    return keys


def robust04_rows(data: Path) -> list[dict]:
    path = data / "published" / "robust04_papers.json"
    papers = json.loads(path.read_text(encoding="utf-8"), parse_float=str, parse_int=str)
    rows = []
    for key, p in zip(bibkeys([p["short_cite"] for p in papers]), papers, strict=True):
        authors, venue, year = parse_citation(p["short_cite"])
        standard = p["standard_setting"] == "yes"
        doi = DOI_IN_URL.match(p["link"])
        note = (
            PAPER_NOTE
            if standard
            else (
                PAPER_NOTE + "; non-standard setting per the meta-analysis, topic count not "
                "recorded there, 249 assumed"
            )
        )
        for part, role, system in PAPER_PARTS:
            for mkey, value in (p.get(part) or {}).items():
                if mkey in SKIPPED_PAPER_MEASURES:
                    continue
                rows.append(
                    {
                        "source": "paper",
                        "paper": key,
                        "paper_citation": p["short_cite"],
                        "paper_authors": "" if "et al." in authors else authors,
                        "paper_venue": venue,
                        "paper_year": year,
                        "paper_doi": doi["doi"] if doi else "",
                        "paper_url": p["link"],
                        "paper_tags": "neural" if p["is_neural"] == "yes" else "",
                        "collection": ROBUST04,
                        "topic_set": ROBUST04_TOPIC_SET,
                        "n_topics": ROBUST04_TOPICS,
                        "measure": PAPER_MEASURES[mkey],
                        "value": value,
                        "system": system,
                        "role": role,
                        "year": year,
                        "standard": "true" if standard else "false",
                        "location": f"robust04_papers.json: {part}.{mkey}",
                        "notes": note,
                        "reporter": "authors",
                    }
                )
    return rows


PAPER_COLUMNS = [
    "bibkey",
    "citation",
    "title",
    "authors",
    "venue",
    "year",
    "doi",
    "url",
    "tags",
    "notes",
]


def robust04_papers(data: Path) -> list[dict]:
    """Every paper of the meta-analysis, including the 18 that carry no values (the 11
    non-standard ones among them), so that none is lost; tags: neural, nonstandard."""
    path = data / "published" / "robust04_papers.json"
    papers = json.loads(path.read_text(encoding="utf-8"), parse_float=str, parse_int=str)
    out = []
    for key, p in zip(bibkeys([p["short_cite"] for p in papers]), papers, strict=True):
        authors, venue, year = parse_citation(p["short_cite"])
        doi = DOI_IN_URL.match(p["link"])
        tags = [
            t
            for t, on in (
                ("neural", p["is_neural"] == "yes"),
                ("nonstandard", p["standard_setting"] != "yes"),
            )
            if on
        ]
        has_values = any(p.get(part) for part, _, _ in PAPER_PARTS)
        out.append(
            {
                "bibkey": key,
                "citation": p["short_cite"],
                "title": "",
                "authors": "" if "et al." in authors else authors,
                "venue": venue,
                "year": year,
                "doi": doi["doi"] if doi else "",
                "url": p["link"],
                "tags": ",".join(tags),
                "notes": PAPER_NOTE.replace("; value as recorded there", "")
                + ("" if has_values else "; the meta-analysis records no values for this paper"),
            }
        )
    return out


def papers_csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=PAPER_COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


# ---------------------------------------------------------------- official TREC runs
# (edition, track, task) -> (track label, collection id, topic set, n_topics).
# The label keeps NIST's task when the task separates tasks; where NIST's task field
# describes the run instead (TREC-9 web, Terabyte 2004) the label omits it and the
# location names it. Topic counts are judged topics (checked against trec/qrels).
OFFICIAL_TRACKS = {
    ("trec6", "adhoc", "A"): ("trec6/adhoc/A", "trec6-adhoc", "301-350", 50),
    ("trec7", "adhoc", ""): ("trec7/adhoc", "disks45/nocr/trec7", "351-400", 50),
    ("trec8", "adhoc", ""): ("trec8/adhoc", "disks45/nocr/trec8", "401-450", 50),
    ("trec12", "robust", ""): ("trec12/robust", "trec-robust-2003", "robust03", 100),
    ("trec13", "robust", ""): ("trec13/robust", ROBUST04, "judged", 249),
    ("trec14", "robust", ""): ("trec14/robust", "aquaint/trec-robust-2005", "robust05", 50),
    ("trec9", "web", "content-only"): ("trec9/web", "wt10g/trec-web-2000", "451-500", 50),
    ("trec9", "web", "content-link"): ("trec9/web", "wt10g/trec-web-2000", "451-500", 50),
    ("trec10", "web", "adhoc"): ("trec10/web/adhoc", "wt10g/trec-web-2001", "501-550", 50),
    **{
        ("trec13", "terabyte", t): ("trec13/terabyte", "gov2/trec-tb-2004", "701-750", 49)
        for t in [
            f"{a}LinksUsed-{b}AnchorTextUsed-{c}DocStructUsed"
            for a in ("", "No")
            for b in ("", "No")
            for c in ("", "No")
        ]
    },
    ("trec14", "terabyte", "adhoc"): ("trec14/terabyte/adhoc", "gov2/trec-tb-2005", "751-800", 50),
    ("trec14", "terabyte", "efficiency"): (
        "trec14/terabyte/efficiency",
        "gov2/trec-tb-2005/efficiency",
        "751-800",
        50,
    ),
    ("trec15", "terabyte", "adhoc"): ("trec15/terabyte/adhoc", "gov2/trec-tb-2006", "801-850", 50),
    ("trec15", "terabyte", "efficiency"): (
        "trec15/terabyte/efficiency",
        "gov2/trec-tb-2006/efficiency",
        "801-850",
        50,
    ),
    ("trec26", "core", "main"): ("trec26/core/main", "nyt/trec-core-2017", "core17", 50),
    ("trec27", "core", "main"): ("trec27/core/main", "wapo/v2/trec-core-2018", "core18", 50),
    ("trec28", "deep", "docs"): (
        "trec28/deep/docs",
        "msmarco-document/trec-dl-2019/judged",
        "judged",
        43,
    ),
    ("trec28", "deep", "passages"): (
        "trec28/deep/passages",
        "msmarco-passage/trec-dl-2019/judged",
        "judged",
        43,
    ),
    ("trec29", "deep", "docs"): (
        "trec29/deep/docs",
        "msmarco-document/trec-dl-2020/judged",
        "judged",
        45,
    ),
    ("trec29", "deep", "passages"): (
        "trec29/deep/passages",
        "msmarco-passage/trec-dl-2020/judged",
        "judged",
        54,
    ),
    # TREC 2021 and 2022 Deep Learning: the v2 corpora; judged queries per ir_datasets'
    # metadata, which the P_10 values confirm (each a multiple of 1/(10 n), see README).
    ("trec30", "deep", "docs"): (
        "trec30/deep/docs",
        "msmarco-document-v2/trec-dl-2021/judged",
        "judged",
        57,
    ),
    ("trec30", "deep", "passages"): (
        "trec30/deep/passages",
        "msmarco-passage-v2/trec-dl-2021/judged",
        "judged",
        53,
    ),
    ("trec31", "deep", "docs"): (
        "trec31/deep/docs",
        "msmarco-document-v2/trec-dl-2022/judged",
        "judged",
        76,
    ),
    ("trec31", "deep", "passages"): (
        "trec31/deep/passages",
        "msmarco-passage-v2/trec-dl-2022/judged",
        "judged",
        76,
    ),
    # TREC-COVID (2020): each round its own collection (CORD-19 release, topics 1-30 in
    # round 1 and 5 more each round, residual-collection judgments of that round).
    **{
        ("trec-covid", f"round{i}", ""): (
            f"trec-covid/round{i}",
            f"cord19/trec-covid/round{i}",
            f"1-{n}",
            n,
        )
        for i, n in ((1, 30), (2, 35), (3, 40), (4, 45), (5, 50))
    },
}
# trec_eval names -> ir_measures names (the ones seeded; others in the file are left out).
# P_5 and P_20 occur only in TREC-COVID (rounds 1-3 and 4-5). Not seeded there: 'ndcg'
# and 'ndcg_20' (names trec_eval does not print, see README), bpref, rbp_p5.
OFFICIAL_MEASURES = {
    "map": "AP",
    "P_5": "P@5",
    "P_10": "P@10",
    "P_20": "P@20",
    "Rprec": "Rprec",
    "ndcg_cut_10": "nDCG@10",
}
# The summaries of these tracks (trec_eval's older report: P_10, P_100, P_1000, Rprec,
# map) print P@15 under the name P_10: recomputed from the 17 Robust 2003 runs and qrels
# in ../shared/data, every 'P_10' equals P@15 and none P@10, and in every track below
# the values are multiples of 1/(15 n) (n topics), not of 1/(10 n). Seeded as P@15.
P15_TRACKS = {
    "trec6/adhoc/A",
    "trec7/adhoc",
    "trec8/adhoc",
    "trec9/web",
    "trec10/web/adhoc",
    "trec12/robust",
    "trec13/robust",
    "trec14/robust",
}
P15_NOTE = "NIST's summary names this value P_10; it is P@15 (seeds/README.md)"
# Deep Learning passages: which qrels NIST's summaries used, read off the track's
# baseline runs that Anserini's regressions reproduce (seeds/README.md). 2019: the full
# graded qrels, so binary measures count grade 1 ('related') as relevant; 2020-2022: the
# qrels with grade 1 mapped to 0 for every measure, nDCG included, so ndcg_cut_10 is not
# the track's nDCG@10 (on graded qrels) and is left out.
DL_PASSAGES_FULL_QRELS = {"trec28/deep/passages"}
DL_PASSAGES_BINARY_QRELS = {"trec29/deep/passages", "trec30/deep/passages", "trec31/deep/passages"}
BINARY_MEASURES = {"map", "P_10"}
# ... so 2020-2022's map and P_10 are ir_measures' AP(rel=2) and P(rel=2)@10 (trec_eval -l 2)
BINARY_QRELS_MEASURES = {"map": "AP(rel=2)", "P_10": "P(rel=2)@10"}
DL_FULL_QRELS_NOTE = (
    "computed on the full qrels: grade 1 ('related') passages count as relevant "
    "(trec_eval's default), not grade >= 2 as the track binarises passages (seeds/README.md)"
)
DL_BINARY_QRELS_NOTE = (
    "computed on the qrels with grade 1 ('related') mapped to 0: relevant = grade >= 2, "
    "as the track binarises passages (seeds/README.md)"
)


def official_measure(label: str, trec_eval_name: str) -> str | None:
    """The ir_measures name of a trec_eval value of the track ``label``; None: not seeded."""
    if trec_eval_name == "P_10" and label in P15_TRACKS:
        return "P@15"
    if label in DL_PASSAGES_BINARY_QRELS:
        return BINARY_QRELS_MEASURES.get(trec_eval_name)
    return OFFICIAL_MEASURES.get(trec_eval_name)


def official_notes(label: str, trec_eval_name: str, run_type: str) -> list[str]:
    """What a row of the track ``label`` says about its value and run type."""
    notes = [RUN_TYPE_NOTES[run_type]] if run_type in RUN_TYPE_NOTES else []
    if official_measure(label, trec_eval_name) == "P@15":
        notes.append(P15_NOTE)
    if trec_eval_name in BINARY_MEASURES and label in DL_PASSAGES_FULL_QRELS:
        notes.append(DL_FULL_QRELS_NOTE)
    if trec_eval_name in BINARY_MEASURES and label in DL_PASSAGES_BINARY_QRELS:
        notes.append(DL_BINARY_QRELS_NOTE)
    return notes


# NIST run-type spellings -> run_type; None = left blank (unknown or neither).
RUN_TYPES = {
    "automatic": "automatic",
    "auto": "automatic",
    "manual": "manual",
    "human-assisted": "manual",
    "relauto": None,
    "feedback": None,
    "": None,
}
RUN_TYPE_NOTES = {
    "human-assisted": "NIST run type: human-assisted",
    "relauto": "NIST run type: relauto (automatic, using earlier relevance judgments); "
    "run_type left blank",
    "feedback": "NIST run type: feedback (TREC-COVID: automatic, using the relevance "
    "judgments of earlier rounds); run_type left blank",
}
MULTI_EVAL_NOTE = "partial: see seeds/README.md (Terabyte 2006)"


def submitted_date(text: str) -> str:
    """NIST's submission date 'M/D/YYYY' or 'M/D/YY' -> ISO; '' when absent or unreadable."""
    m = re.match(r"^(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})$", text.strip())
    if not m:
        return ""
    year = (
        int(m[3]) if len(m[3]) == 4 else (1900 + int(m[3]) if int(m[3]) >= 50 else 2000 + int(m[3]))
    )
    return f"{year:04d}-{int(m[1]):02d}-{int(m[2]):02d}"


# Editions not numbered: the year they were held.
EDITION_YEARS = {"trec-covid": 2020}


def trec_year(edition: str) -> int:
    """TREC edition N was held in 1991 + N (trec7 -> 1998, trec28 -> 2019); TREC-COVID
    in 2020."""
    if edition in EDITION_YEARS:
        return EDITION_YEARS[edition]
    return 1991 + int(edition.removeprefix("trec"))


def official_rows(data: Path) -> tuple[list[dict], dict]:
    """Rows for OFFICIAL_TRACKS, and what was left out (runs with several evaluations)."""
    path = data / "trec" / "official_summaries.csv"
    with path.open(newline="", encoding="utf-8") as f:
        src = [
            r for r in csv.DictReader(f) if (r["edition"], r["track"], r["task"]) in OFFICIAL_TRACKS
        ]
    # A run printed with several trec_eval blocks for one measure (Terabyte 2006: NIST's
    # summary files hold two unlabeled evaluations) cannot be attributed: leave it out.
    n_evals = Counter((r["edition"], r["track"], r["task"], r["run_id"], r["measure"]) for r in src)
    ambiguous = {k[:4] for k, n in n_evals.items() if n > 1}
    left_out = defaultdict(set)
    partial = {k[:3] for k in ambiguous}
    rows = []
    for r in src:
        key = (r["edition"], r["track"], r["task"])
        if key + (r["run_id"],) in ambiguous:
            left_out[key].add(r["run_id"])
            continue
        label, collection, topic_set, n_topics = OFFICIAL_TRACKS[key]
        measure = official_measure(label, r["measure"])
        if measure is None:
            continue
        notes = official_notes(label, r["measure"], r["run_type"])
        if key in partial:
            notes.append(MULTI_EVAL_NOTE)
        rows.append(
            {
                "source": "official",
                "track": label,
                "collection": collection,
                "topic_set": topic_set,
                "n_topics": n_topics,
                "measure": measure,
                "value": r["value"],
                "system": r["run_id"],
                "participant": r["participant"],
                "role": "official",
                "run_type": RUN_TYPES[r["run_type"]] or "",
                "year": trec_year(r["edition"]),
                "standard": "true",
                "location": f"official_summaries.csv: {'/'.join(key)} {r['measure']}",
                "notes": "; ".join(notes),
                "reporter": "nist",
                "date": submitted_date(r["submitted"]),
            }
        )
    order = {label: i for i, (label, *_) in enumerate(OFFICIAL_TRACKS.values())}
    rows.sort(key=lambda r: order[r["track"]])  # stable: source order within a track
    return rows, {k: sorted(v) for k, v in left_out.items()}


# ---------------------------------------------------------------- MS MARCO leaderboards
# file -> (collection, topic set, n, value column) for dev and eval, measure, track stem.
# Query counts: ir_datasets metadata.json (seeds/collections.json, provenance).
MSMARCO = {
    "msmarco_passage_leaderboard.csv": {
        "measure": "RR@10",
        "track": "msmarco-passage/leaderboard",
        "values": (
            ("dev", "msmarco-passage/dev/small", "dev/small", 6980),
            ("eval", "msmarco-passage/eval/small", "eval/small", 6837),
        ),
    },
    "msmarco_document_leaderboard.csv": {
        "measure": "RR@100",
        "track": "msmarco-document/leaderboard",
        "values": (
            ("MRR@100 (Dev)", "msmarco-document/dev", "dev", 5193),
            ("MRR@100 (Eval)", "msmarco-document/eval", "eval", 5793),
        ),
    },
}
# The leaderboards' marker column (unnamed): a record, an official baseline.
MARKERS = {"🏆": "leaderboard record (🏆)", "🏛": "official baseline (🏛)"}
# `type` spellings -> the track's task; 'reraking' is a typo in one passage row.
MSMARCO_TYPES = {"full ranking": "full-ranking", "reranking": "reranking", "reraking": "reranking"}


def _http(text: str) -> str:
    t = text.strip()
    return t if re.match(r"^https?://\S+$", t) else ""


def _labels(recs: list[dict], key) -> list[str]:
    """System labels unique within a track: the description, then + its id or date, then
    + its line, only where needed."""
    base = [r["description"].strip() or f"line {r['_line']}" for r in recs]
    count = Counter((key(r), b) for r, b in zip(recs, base, strict=True))
    second = [
        b if count[(key(r), b)] == 1 else f"{b} ({r.get('id') or r['_iso']})"
        for r, b in zip(recs, base, strict=True)
    ]
    count2 = Counter((key(r), b) for r, b in zip(recs, second, strict=True))
    return [
        b if count2[(key(r), b)] == 1 else f"{b} ({r['_iso']}, line {r['_line']})"
        for r, b in zip(recs, second, strict=True)
    ]


def _read_lines(path: Path) -> list[dict]:
    """CSV records with the line each starts on (header = line 1) under '_line'."""
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        out, start = [], reader.line_num + 1
        for rec in reader:
            d = dict(zip(header, rec, strict=True))
            d["_line"] = start
            out.append(d)
            start = reader.line_num + 1
    return out


def msmarco_rows(data: Path) -> list[dict]:
    rows = []
    for fname, spec in MSMARCO.items():
        recs = _read_lines(data / "published" / fname)
        for r in recs:
            r["_iso"] = r["date"].replace("/", "-")
            r["_task"] = MSMARCO_TYPES[r["type"].strip()]
        labels = _labels(recs, key=lambda r: (r["_task"], r[""] == "🏛"))
        for r, label in zip(recs, labels, strict=True):
            notes = [MARKERS[r[""]]] if r[""] else []
            if r["type"].strip() != r["_task"].replace("-", " "):
                notes.append(f"type printed {r['type']!r}")
            if r.get("id"):
                notes.append(f"submission id {r['id']}")
            for col, collection, topic_set, n in spec["values"]:
                value = r[col].strip()
                if not value:
                    continue
                rows.append(
                    {
                        "source": "official",
                        "track": f"{spec['track']}/{r['_task']}",
                        "collection": collection,
                        "topic_set": topic_set,
                        "n_topics": n,
                        "measure": spec["measure"],
                        "value": value,
                        "system": label,
                        "participant": r["team"].strip(),
                        "role": "baseline" if r[""] == "🏛" else "official",
                        "year": r["_iso"][:4],
                        "standard": "true",
                        "location": f"{fname}: line {r['_line']}, column {col}",
                        "notes": "; ".join(notes),
                        "date": r["_iso"],
                        "reporter": "leaderboard",
                        "url": _http(r["paper"]),
                        "code_url": _http(r["code"]),
                    }
                )
    return rows


# ---------------------------------------------------------------- MTEB (BEIR tasks)
MTEB_FILE = "mteb_beir_retrieval.csv"
MTEB_TRACK = "mteb/retrieval"
DERIVED_TRACK = "mteb/retrieval/derived"
# MTEB task -> (ir_datasets id, topic set, queries), checked against collections.json.
MTEB_TASKS = {
    "ArguAna": ("beir/arguana", "test", 1406),
    "ClimateFEVER": ("beir/climate-fever", "test", 1535),
    "DBPedia": ("beir/dbpedia-entity/test", "test", 400),
    "FEVER": ("beir/fever/test", "test", 6666),
    "FiQA2018": ("beir/fiqa/test", "test", 648),
    "HotpotQA": ("beir/hotpotqa/test", "test", 7405),
    "MSMARCO": ("beir/msmarco/dev", "dev", 6980),
    "NFCorpus": ("beir/nfcorpus/test", "test", 323),
    "NQ": ("beir/nq", "test", 3452),
    "QuoraRetrieval": ("beir/quora/test", "test", 10000),
    "SCIDOCS": ("beir/scidocs", "test", 1000),
    "SciFact": ("beir/scifact/test", "test", 300),
    "Touche2020": ("beir/webis-touche2020/v2", "test", 49),
    "TRECCOVID": ("beir/trec-covid", "test", 50),
}
CQA_FORUMS = {
    "android": 699,
    "english": 1570,
    "gaming": 1595,
    "gis": 885,
    "mathematica": 804,
    "physics": 1039,
    "programmers": 876,
    "stats": 652,
    "tex": 2906,
    "unix": 1072,
    "webmasters": 506,
    "wordpress": 541,
}
MTEB_TASKS.update(
    {
        f"CQADupstack{f.capitalize()}Retrieval": (f"beir/cqadupstack/{f}", "test", n)
        for f, n in CQA_FORUMS.items()
    }
)
# MTEB score columns -> ir_measures names. map_at_10 is pytrec_eval's map_cut_10, the mean
# of AP cut at rank 10 (ir_measures AP@10), not trec_eval's AP; mrr_at_10 is MRR cut at
# 10 (RR@10); main_score repeats ndcg_at_10 and is not seeded twice.
MTEB_MEASURES = {
    "ndcg_at_10": "nDCG@10",
    "map_at_10": "AP@10",
    "mrr_at_10": "RR@10",
    "recall_at_100": "R@100",
}
CQA = ("beir/cqadupstack", "12-forums", sum(CQA_FORUMS.values()))
# BEIR's 15 datasets as MTEB's retrieval leaderboard averages them (CQADupStack as one).
DERIVED_DIGITS = Decimal("0.00001")  # the sources print 5 decimals


def _mteb_notes(r: dict) -> str:
    bits = [
        f"MTEB {r['task']} ({r['split']})",
        f"model revision {r['revision'] or 'not recorded'}",
        f"n_parameters {r['n_parameters'] or 'not recorded'}",
        f"open weights {r['open_weights'] or 'not recorded'}",
    ]
    if r["mteb_version"]:
        bits.append(f"mteb {r['mteb_version']}")
    return "; ".join(bits)


def mteb_rows(data: Path) -> tuple[list[dict], dict]:
    """One row per model, task and measure present; what was left out (no release date:
    the store needs a year)."""
    recs = _read_lines(data / "published" / MTEB_FILE)
    rows, undated = [], Counter()
    for r in recs:
        if not r["release_date"]:
            undated[r["model"]] += 1
            continue
        cid, topic_set, n = MTEB_TASKS[r["task"]]
        for col, measure in MTEB_MEASURES.items():
            value = r[col].strip()
            if not value:
                continue
            rows.append(
                {
                    "source": "official",
                    "track": MTEB_TRACK,
                    "collection": cid,
                    "topic_set": topic_set,
                    "n_topics": n,
                    "measure": measure,
                    "value": value,
                    "system": r["model"],
                    "participant": r["model"].split("/")[0] if "/" in r["model"] else "",
                    "role": "leaderboard",
                    "year": r["release_date"][:4],
                    "standard": "true",
                    "location": f"{MTEB_FILE}: line {r['_line']}, column {col}",
                    "notes": _mteb_notes(r),
                    "date": r["release_date"],
                    "reporter": r["reported_by"],
                    "url": _http(r["reference"]),
                }
            )
    return rows, dict(undated)


def _mean(values: list[Decimal]) -> Decimal:
    return sum(values, Decimal(0)) / len(values)


# ---------------------------------------------------------------- Pyserini 2CR
PYSERINI_FILE = "pyserini_2cr.csv"
PYSERINI_REPO = "https://github.com/castorini/pyserini/blob"
PYSERINI_DATE = "2026-08-07"  # the commit the YAML files were read at (data README)
# each score's YAML line and the date git blame gives it at that commit, written by
# seeds/pyserini_dates.py from a mirror of castorini/pyserini: a row is dated by the
# commit that put its value in the file, not by the day the files were read
PYSERINI_LINES = "pyserini_lines.csv.gz"


def pyserini_lines(seeds: Path) -> dict[tuple[str, str, str, str], dict]:
    """(file, condition line, topics, measure) -> the score's kept YAML line."""
    text = gzip.decompress((seeds / PYSERINI_LINES).read_bytes()).decode("utf-8")
    with io.StringIO(text, newline="") as f:
        return {
            (r["file"], r["condition_line"], r["topics"], r["measure"]): r
            for r in csv.DictReader(f)
        }


# Pyserini's qrels key (eval_key; BEIR rows: the topic key) -> (collection, topic set,
# queries). MS MARCO v2 'dev' is ir_datasets' dev1. Query counts: seeds/collections.json.
PYSERINI_TOPICS = {
    "msmarco-v1-passage.dev": ("msmarco-passage/dev/small", "dev/small", 6980),
    "dl19-passage": ("msmarco-passage/trec-dl-2019/judged", "judged", 43),
    "dl20-passage": ("msmarco-passage/trec-dl-2020/judged", "judged", 54),
    "msmarco-doc-dev": ("msmarco-document/dev", "dev", 5193),
    "dl19-doc": ("msmarco-document/trec-dl-2019/judged", "judged", 43),
    "dl20-doc": ("msmarco-document/trec-dl-2020/judged", "judged", 45),
    "msmarco-v2-passage-dev": ("msmarco-passage-v2/dev1", "dev1", 3903),
    "msmarco-v2-passage-dev2": ("msmarco-passage-v2/dev2", "dev2", 4281),
    "dl21-passage": ("msmarco-passage-v2/trec-dl-2021/judged", "judged", 53),
    "dl22-passage": ("msmarco-passage-v2/trec-dl-2022/judged", "judged", 76),
    "dl23-passage": ("msmarco-passage-v2/trec-dl-2023/judged", "judged", 82),
    "msmarco-v2-doc-dev": ("msmarco-document-v2/dev1", "dev1", 4552),
    "msmarco-v2-doc-dev2": ("msmarco-document-v2/dev2", "dev2", 5000),
    "dl21-doc": ("msmarco-document-v2/trec-dl-2021/judged", "judged", 57),
    "dl22-doc": ("msmarco-document-v2/trec-dl-2022/judged", "judged", 76),
    "dl23-doc": ("msmarco-document-v2/trec-dl-2023/judged", "judged", 82),
    # BEIR: the same collections as MTEB's tasks (the test split; Touché with BEIR's v2
    # judgments), and the four datasets BEIR does not redistribute (BEIR's Table 1).
    "arguana": MTEB_TASKS["ArguAna"],
    "climate-fever": MTEB_TASKS["ClimateFEVER"],
    "dbpedia-entity": MTEB_TASKS["DBPedia"],
    "fever": MTEB_TASKS["FEVER"],
    "fiqa": MTEB_TASKS["FiQA2018"],
    "hotpotqa": MTEB_TASKS["HotpotQA"],
    "nfcorpus": MTEB_TASKS["NFCorpus"],
    "nq": MTEB_TASKS["NQ"],
    "quora": MTEB_TASKS["QuoraRetrieval"],
    "scidocs": MTEB_TASKS["SCIDOCS"],
    "scifact": MTEB_TASKS["SciFact"],
    "trec-covid": MTEB_TASKS["TRECCOVID"],
    "webis-touche2020": MTEB_TASKS["Touche2020"],
    **{f"cqadupstack-{f}": (f"beir/cqadupstack/{f}", "test", n) for f, n in CQA_FORUMS.items()},
    "bioasq": ("beir/bioasq", "test", 500),
    "signal1m": ("beir/signal1m", "test", 97),
    "trec-news": ("beir/trec-news", "test", 57),
    "robust04": ("beir/robust04", "test", 249),
}
# (Pyserini's measure label, how its eval key computes it) -> ir_measures name, from
# trec_eval_metric_definitions in Pyserini's pyserini/2cr/msmarco.py and beir.py. The
# labels do not say it all: MS MARCO v1 document 'MRR@10' is -M 100 recip_rank (RR@100),
# DL document 'MAP' is -M 100 map (AP@100), DL passage MAP and R@1K use -l 2.
V1_PASSAGE_DEV = {"msmarco-v1-passage.dev"}
DL_PASSAGE_V1 = {"dl19-passage", "dl20-passage"}
DL_DOC_V1 = {"dl19-doc", "dl20-doc"}
V2_DEV = {
    "msmarco-v2-passage-dev",
    "msmarco-v2-passage-dev2",
    "msmarco-v2-doc-dev",
    "msmarco-v2-doc-dev2",
}
DL_PASSAGE_V2 = {"dl21-passage", "dl22-passage", "dl23-passage"}
DL_DOC_V2 = {"dl21-doc", "dl22-doc", "dl23-doc"}


def pyserini_measure(key: str, label: str) -> str:
    """The ir_measures name of Pyserini's ``label`` on qrels ``key``."""
    if label == "nDCG@10":
        return "nDCG@10"  # -c -m ndcg_cut.10 everywhere (graded judgments)
    if key in V1_PASSAGE_DEV:
        return {"MRR@10": "RR@10", "R@1K": "R@1000"}[label]  # -M 10 recip_rank
    if key == "msmarco-doc-dev":
        return {"MRR@10": "RR@100", "R@1K": "R@1000"}[label]  # -M 100 recip_rank
    if key in V2_DEV:
        return {"MRR@100": "RR@100", "R@1K": "R@1000"}[label]  # -M 100 recip_rank
    if key in DL_PASSAGE_V1:
        return {"MAP": "AP(rel=2)", "R@1K": "R(rel=2)@1000"}[label]  # -l 2
    if key in DL_DOC_V1:
        return {"MAP": "AP@100", "R@1K": "R@1000"}[label]  # -M 100 map
    if key in DL_PASSAGE_V2:
        return {"MAP@100": "AP(rel=2)@100", "R@1K": "R(rel=2)@1000"}[label]  # -l 2 -M 100
    if key in DL_DOC_V2:
        return {"MAP@100": "AP@100", "R@1K": "R@1000"}[label]  # -M 100 map
    return {"R@100": "R@100", "R@1000": "R@1000"}[label]  # BEIR: recall.100, recall.1000


# One model through several runtimes or indexes (PyTorch or ONNX query encoder, Faiss or
# Lucene flat, Lucene HNSW, quantised HNSW): one result. The condition's name without
# these suffixes names the model; the kept condition is the first of this order (exact
# search with the PyTorch encoder first), the others' values go into its notes.
RUNTIME_SUFFIXES = (
    (".faiss-flat.pytorch", 0),
    ("-pytorch", 0),
    (".faiss", 0),
    (".lucene-flat", 1),
    ("-onnx", 1),
    (".lucene-hnsw.onnx", 2),
    (".lucene-hnsw-int8.onnx", 3),
)


def model_key(condition: str) -> tuple[str, int]:
    """(the model's condition name without its runtime suffix, the runtime's rank)."""
    for suffix, rank in sorted(RUNTIME_SUFFIXES, key=lambda s: -len(s[0])):
        if condition.endswith(suffix):
            return condition[: -len(suffix)], rank
    return condition, 0


def pyserini_system(display: str, condition: str) -> str:
    """Pyserini's label without its runtime part ('SPLADE++ EnsembleDistil: PyTorch' ->
    'SPLADE++ EnsembleDistil'); the model's condition name where the label is empty."""
    return display.split(": ")[0].strip() if display.strip() else model_key(condition)[0]


def pyserini_rows(data: Path) -> tuple[list[dict], dict]:
    """One row per model, qrels and measure (runtimes folded, see RUNTIME_SUFFIXES); what
    was folded (condition -> the condition kept)."""
    recs = _read_lines(data / "published" / PYSERINI_FILE)
    dated = pyserini_lines(Path(__file__).resolve().parent)
    stem = {r["file"]: Path(r["file"]).stem for r in recs}
    models: dict[tuple[str, str], list[str]] = defaultdict(list)  # (file, model) -> conditions
    first_line: dict[tuple[str, str], int] = {}
    for r in recs:
        k = (r["file"], r["condition"])
        if k not in first_line:
            first_line[k] = int(r["line"])
            models[(r["file"], model_key(r["condition"])[0])].append(r["condition"])
    kept: dict[tuple[str, str], str] = {}
    for (f, _), conds in models.items():
        best = min(conds, key=lambda c: (model_key(c)[1], first_line[(f, c)]))
        for c in conds:
            kept[(f, c)] = best
    by_cell = {
        (r["file"], r["condition"], r["eval_key"] or r["topics"], r["measure"]): r for r in recs
    }
    rows, folded = [], {}
    for r in recs:
        f, cond = r["file"], r["condition"]
        if kept[(f, cond)] != cond:
            folded[f"{stem[f]}/{cond}"] = kept[(f, cond)]
            continue
        key = r["eval_key"] or r["topics"]
        cid, topic_set, n = PYSERINI_TOPICS[key]
        measure = pyserini_measure(key, r["measure"])
        kept_line = dated[(f, r["line"], r["topics"], r["measure"])]
        if Decimal(kept_line["value"]) != Decimal(r["value"]) or kept_line["commit"] != r["commit"]:
            raise SystemExit(f"{PYSERINI_LINES}: {f} line {kept_line['line']} is out of date")
        notes = [
            f"Pyserini 2CR condition {cond}"
            + (f" ({r['display']})" if r["display"] else "")
            + f", topics {r['topics']}, qrels {key}, Pyserini's label {r['measure']}"
        ]
        for other in models[(f, model_key(cond)[0])]:
            if other == cond:
                continue
            o = by_cell.get((f, other, key, r["measure"]))
            if o is not None:
                notes.append(
                    f"the same model as {other} (line {o['line']} of {stem[f]}.yaml): "
                    f"{o['value']}, not a separate result"
                )
        rows.append(
            {
                "source": "official",
                "track": f"pyserini/2cr/{stem[f]}",
                "collection": cid,
                "topic_set": topic_set,
                "n_topics": n,
                "measure": measure,
                "value": r["value"],
                "system": pyserini_system(r["display"], cond),
                "participant": "",
                "role": "reproduction",
                "year": kept_line["date"][:4],
                "standard": "true",
                "location": f"{PYSERINI_FILE}: line {r['_line']} ({f}, line {r['line']}; "
                f"value on line {kept_line['line']})",
                "notes": "; ".join(notes),
                "date": kept_line["date"],
                "reporter": "pyserini",
                "url": f"{PYSERINI_REPO}/{r['commit']}/{f}#L{kept_line['line']}",
            }
        )
    return rows, folded


# The averages papers report over named subsets of BEIR: collection -> (topic set, member
# collections, how the subset is defined). CQADupStack counts as one dataset (the mean
# of its 12 forums). An average is computed only for a model with every member.
BEIR_PUBLIC = [
    "beir/arguana",
    "beir/climate-fever",
    "beir/cqadupstack",
    "beir/dbpedia-entity/test",
    "beir/fever/test",
    "beir/fiqa/test",
    "beir/hotpotqa/test",
    "beir/nfcorpus/test",
    "beir/nq",
    "beir/quora/test",
    "beir/scidocs",
    "beir/scifact/test",
    "beir/webis-touche2020/v2",
    "beir/trec-covid",
]
BEIR_NOT_PUBLIC = ["beir/bioasq", "beir/signal1m", "beir/trec-news", "beir/robust04"]
BEIR_SUBSETS = {
    "beir/mean": (
        "15-datasets",
        sorted([*BEIR_PUBLIC, "beir/msmarco/dev"]),
        "the 15 BEIR datasets (CQADupStack as the mean of its 12 forums)",
    ),
    "beir/18": (
        "18-datasets",
        sorted(BEIR_PUBLIC + BEIR_NOT_PUBLIC),
        "BEIR's 18 datasets (Thakur et al., NeurIPS 2021 Datasets and Benchmarks, Table 1; "
        "CQADupStack as the mean of its 12 forums)",
    ),
    "beir/14": (
        "14-public",
        sorted(BEIR_PUBLIC),
        "the 14 BEIR datasets BEIR distributes (all 18 but BioASQ, Signal-1M, TREC-NEWS, "
        "Robust04; beir-cellar/beir README; CQADupStack as the mean of its 12 forums)",
    ),
    "beir/13": (
        "13-datasets",
        sorted(set(BEIR_PUBLIC) - {"beir/cqadupstack"}),
        "BEIR-13, the 14 distributed BEIR datasets without CQADupStack (the average of "
        "SPLADE-v3, Lassance et al., arXiv:2403.06789, 2024)",
    ),
}
CQA_FORUM_IDS = [f"beir/cqadupstack/{f}" for f in CQA_FORUMS]
# every BEIR collection's queries (the parts of the averages), from collections.json
BEIR_QUERIES = {
    **{cid: n for cid, _, n in MTEB_TASKS.values()},
    **{cid: n for cid, _, n in PYSERINI_TOPICS.values() if cid.startswith("beir/")},
    CQA[0]: CQA[2],
}


def effective_queries(counts: list[float]) -> float:
    """Queries of an equal-weight mean of K parts: K^2 / sum(1 / n_i)."""
    return len(counts) ** 2 / sum(1 / n for n in counts)


def subset_queries(cid: str) -> tuple[int, float]:
    """(the members' queries summed: the stored topic count, as for beir/mean; the
    effective number of queries of the equal-weight mean, CQADupStack counted by its
    own effective number of its 12 forums)."""
    members = BEIR_SUBSETS[cid][1]
    n_cqa = effective_queries([BEIR_QUERIES[f] for f in CQA_FORUM_IDS])
    counts = [n_cqa if m == CQA[0] else BEIR_QUERIES[m] for m in members]
    return sum(BEIR_QUERIES[m] for m in members), effective_queries(counts)


def _averages(cells: dict[str, tuple[Decimal, list]], subsets: list[str]) -> list:
    """[(collection, topic set, n, value, the parts' source records, how)] from one model's
    values on one measure, ``cells`` = {collection: (value, [source records])}: the
    CQADupStack mean when every forum is there, then each subset with every member."""
    out = []
    if all(f in cells for f in CQA_FORUM_IDS):
        parts = [cells[f] for f in CQA_FORUM_IDS]
        value = _mean([v for v, _ in parts])
        cells = {**cells, CQA[0]: (value, [r for _, recs in parts for r in recs])}
        out.append((*CQA, value, cells[CQA[0]][1], "mean of the 12 CQADupStack forums"))
    for cid in subsets:
        topic_set, members, how = BEIR_SUBSETS[cid]
        if all(m in cells for m in members):
            value = _mean([cells[m][0] for m in members])
            recs = [r for m in members for r in cells[m][1]]
            out.append((cid, topic_set, subset_queries(cid)[0], value, recs, "mean of " + how))
    return out


MTEB_SUBSETS = ["beir/mean", "beir/14", "beir/13"]


def derived_rows(data: Path) -> list[dict]:
    """CQADupStack's mean over its 12 forums and BEIR's means over the subsets of
    MTEB_SUBSETS, per model and measure, for the models that have every part (exact
    decimal arithmetic on the printed values, rounded half-even to 5 decimals at the end)."""
    recs = [r for r in _read_lines(data / "published" / MTEB_FILE) if r["release_date"]]
    by_model: dict[str, dict[str, dict]] = defaultdict(dict)
    for r in recs:
        by_model[r["model"]][r["task"]] = r
    rows = []
    for model in sorted(by_model):
        tasks = by_model[model]
        for col, measure in MTEB_MEASURES.items():
            cells = {
                MTEB_TASKS[t][0]: (Decimal(r[col]), [r]) for t, r in tasks.items() if r[col].strip()
            }
            for cid, topic_set, n, value, parts, how in _averages(cells, MTEB_SUBSETS):
                rows.append(_derived(model, measure, col, (cid, topic_set, n), value, parts, how))
    return rows


def pyserini_derived_rows(rows: list[dict]) -> list[dict]:
    """The same averages of Pyserini's BEIR reproductions (its 29 datasets hold all 18),
    per model and measure, from the transcribed rows (runtimes folded)."""
    beir = [r for r in rows if r["track"] == "pyserini/2cr/beir"]
    cells: dict[tuple[str, str], dict] = defaultdict(dict)
    for r in beir:
        cells[(r["system"], r["measure"])][r["collection"]] = (Decimal(r["value"]), [r])
    out = []
    for _key, c in sorted(cells.items()):
        for cid, topic_set, n, value, parts, how in _averages(c, ["beir/18", "beir/14", "beir/13"]):
            lines = ",".join(
                str(x)
                for x in sorted(int(re.match(r".*?line (\d+)", p["location"])[1]) for p in parts)
            )
            out.append(
                parts[0]
                | {
                    "track": "pyserini/2cr/beir/derived",
                    "collection": cid,
                    "topic_set": topic_set,
                    "n_topics": n,
                    "value": str(value.quantize(DERIVED_DIGITS, rounding=ROUND_HALF_EVEN)),
                    "location": f"{PYSERINI_FILE}: lines {lines}",
                    "notes": f"derived: {how}, for models with every part; exact decimal "
                    "arithmetic on the printed values, rounded half-even to 5 decimals; "
                    + parts[0]["notes"].split(", topics ")[0],
                    "url": parts[0]["url"],
                    # the average exists from the day its last part entered the file
                    "date": max(p["date"] for p in parts),
                    "year": max(p["date"] for p in parts)[:4],
                }
            )
    return out


def _derived(model, measure, col, target, value: Decimal, parts: list[dict], how: str) -> dict:
    cid, topic_set, n_topics = target
    reporters = sorted({p["reported_by"] for p in parts})
    dates = sorted({p["release_date"] for p in parts})
    lines = ",".join(str(p["_line"]) for p in sorted(parts, key=lambda p: p["_line"]))
    notes = [
        f"derived: {how}, for models with every part; exact decimal arithmetic on "
        "the printed values, rounded half-even to 5 decimals"
    ]
    if len(reporters) > 1:
        notes.append(f"parts reported by {', '.join(reporters)}")
    return {
        "source": "official",
        "track": DERIVED_TRACK,
        "collection": cid,
        "topic_set": topic_set,
        "n_topics": n_topics,
        "measure": measure,
        "value": str(value.quantize(DERIVED_DIGITS, rounding=ROUND_HALF_EVEN)),
        "system": model,
        "participant": model.split("/")[0] if "/" in model else "",
        "role": "leaderboard",
        "year": dates[-1][:4],
        "standard": "true",
        "location": f"{MTEB_FILE}: lines {lines}, column {col}",
        "notes": "; ".join(notes),
        "date": dates[-1],
        "reporter": reporters[0] if len(reporters) == 1 else "unknown",
        "url": _http(parts[0]["reference"]),
    }


# ---------------------------------------------------------------- MTEB zero-shot flags
TRAINING_FILE = "mteb_training.json.gz"  # written by seeds/mteb_models.py from mteb's source
ZERO_SHOT_COLUMNS = ["system", "collection", "zero_shot", "trained_on", "source"]
# Names under which models declare CQADupStack as a whole (no model names a forum task):
# training on CQADupStack is training on each of its 12 forums.
CQA_AGGREGATES = {"CQADupstackRetrieval", "CQADupstack", "CQADupStack"}


def _task_names(cid: str) -> set[str]:
    """The MTEB task names whose data a collection holds (an average: its members')."""
    by_cid = {c: t for t, (c, _, _) in MTEB_TASKS.items()}
    if cid == CQA[0]:
        return {by_cid[f] for f in CQA_FORUM_IDS}
    if cid in BEIR_SUBSETS:
        return set().union(*(_task_names(m) for m in BEIR_SUBSETS[cid][1]))
    return {by_cid[cid]}


def zero_shot_rows(seeds: Path, results: list[dict]) -> tuple[list[dict], Counter]:
    """One row per MTEB model and collection it has results on, for the models whose MTEB
    metadata declares training data: zero-shot unless that data holds the collection's
    task (an average: any member's). Models that declare none have no row (unknown).
    Also the count of (model, collection) pairs: zero-shot, trained, unknown."""
    doc = json.loads(gzip.decompress((seeds / TRAINING_FILE).read_bytes()))
    models = doc["models"]
    pairs = sorted(
        {(r["system"], r["collection"]) for r in results if r["track"].startswith("mteb/")}
    )
    rows, counts = [], Counter()
    for system, cid in pairs:
        declared = models.get(system)
        if declared is None:
            counts["unknown"] += 1
            continue
        tasks = set(declared)
        if tasks & CQA_AGGREGATES:
            tasks |= _task_names(CQA[0])
        trained = sorted(_task_names(cid) & tasks)
        counts["trained" if trained else "zero-shot"] += 1
        rows.append(
            {
                "system": system,
                "collection": cid,
                "zero_shot": "false" if trained else "true",
                "trained_on": " ".join(trained),
                "source": doc["source"],
            }
        )
    return rows, counts


def zero_shot_csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=ZERO_SHOT_COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


# ---------------------------------------------------------------- output
def to_csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(
            {c: r.get(c, "") for c in COLUMNS}
            | {"transcribed_by": TRANSCRIBED_BY, "transcribed_at": TRANSCRIBED_AT, "status": STATUS}
        )
    return buf.getvalue()


def build(data: Path) -> tuple[dict[str, str], dict]:
    """{file name: CSV text}, and the runs left out per (edition, track, task)."""
    official, left_out = official_rows(data)
    mteb, undated = mteb_rows(data)
    if undated:
        left_out[("mteb", "no release date")] = sorted(undated)
    pyserini, _ = pyserini_rows(data)
    mteb_all = mteb + derived_rows(data)
    zero_shot, _ = zero_shot_rows(SEEDS, mteb_all)
    return {
        "results/robust04_literature.csv": to_csv(robust04_rows(data)),
        "results/trec_official.csv": to_csv(official),
        "results/msmarco_leaderboards.csv": to_csv(msmarco_rows(data)),
        "results/mteb_beir.csv.gz": to_csv(mteb),
        "results/beir_averages.csv.gz": to_csv(
            mteb_all[len(mteb) :] + pyserini_derived_rows(pyserini)
        ),
        "results/pyserini_2cr.csv.gz": to_csv(pyserini),
        "zero_shot.csv.gz": zero_shot_csv(zero_shot),
        "papers/robust04_papers.csv": papers_csv(robust04_papers(data)),
    }, left_out


def read_text(path: Path) -> str:
    """A seed file's text (.csv.gz files decompressed)."""
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    ap.add_argument("--out", type=Path, default=SEEDS, help="the seeds folder to write")
    ap.add_argument(
        "--check", action="store_true", help="compare with the files on disk instead of writing"
    )
    args = ap.parse_args(argv)
    if not args.data.is_dir():
        print(f"error: shared data folder not found: {args.data}", file=sys.stderr)
        return 2
    files, left_out = build(args.data)
    for key, runs in sorted(left_out.items()):
        what = (
            "models without a release date" if key[0] == "mteb" else "runs with several evaluations"
        )
        print(f"left out {'/'.join(key)}: {len(runs)} {what}", file=sys.stderr)
    stale = []
    for name, text in files.items():
        path = args.out / name
        if args.check:
            if not path.is_file() or read_text(path) != text:
                stale.append(name)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        if name.endswith(".gz"):  # deterministic: no name, mtime 0
            data = gzip.compress(data, compresslevel=9, mtime=0)
        path.write_bytes(data)
        print(f"wrote {path} ({text.count(chr(10)) - 1} rows, {len(data)} bytes)")
    if stale:
        print(f"out of date: {', '.join(stale)} (run python seeds/transcribe.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
