"""Regenerate the seed CSVs in seeds/results/ and seeds/papers/ from the shared data folder.

A developer script, never run by `litaudit init`: the loader reads only the CSVs this
writes. Keeping the transcription as code makes it reproducible and reviewable.

    python seeds/transcribe.py                 # rewrite seeds/results/*.csv
    python seeds/transcribe.py --check         # exit 1 if the files differ from the data
    python seeds/transcribe.py --data DIR      # shared data elsewhere (default ../shared/data)

Sources (see seeds/README.md for the mapping decisions):
  published/robust04_papers.json  Yang, Lu, Yang, Lin, SIGIR 2019 (lintool/robust04-analysis)
  trec/official_summaries.csv     NIST TREC browser (usnistgov/trec-browser)

Values are copied as text, exactly as the source prints them (JSON numbers are read with
``parse_float=str``), so 0.327 stays 0.327 and 0.4730 stays 0.4730. Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

SEEDS = Path(__file__).resolve().parent
RESULTS = SEEDS / "results"
DEFAULT_DATA = SEEDS.parent.parent / "shared" / "data"

# The results import format (docs/DEVELOPING.md, "Results import format"), in its order.
COLUMNS = [
    "source", "paper", "paper_citation", "paper_title", "paper_authors", "paper_venue",
    "paper_year", "paper_doi", "paper_url", "paper_tags", "track", "collection", "topic_set",
    "n_topics", "measure", "value", "system", "participant", "role", "run_type", "year",
    "standard", "location", "transcribed_by", "transcribed_at", "status", "notes",
]
TRANSCRIBED_BY = "litaudit seeds (transcribe.py)"
TRANSCRIBED_AT = "2026-11-22"
STATUS = "draft"

# ---------------------------------------------------------------- Robust04 literature
ROBUST04 = "disks45/nocr/trec-robust-2004"
ROBUST04_TOPIC_SET, ROBUST04_TOPICS = "judged", 249
# Measure keys of robust04_papers.json -> ir_measures names.
PAPER_MEASURES = {
    "AP": "AP", "P@5": "P@5", "P@10": "P@10", "P@20": "P@20", "nDCG@10": "nDCG@10",
    "nDCG@20": "nDCG@20", "R-precision": "Rprec",
}
# Carried by the data but not seeded: the measure registry has no geometric-mean family.
SKIPPED_PAPER_MEASURES = {"gMAP": "geometric mean of AP: no such measure in litaudit.measures"}
PAPER_PARTS = (("best", "proposed", "best (proposed)"), ("baseline", "baseline", "best baseline"))
PAPER_NOTE = ("from the Robust04 meta-analysis of Yang, Lu, Yang, Lin (SIGIR 2019), "
              "lintool/robust04-analysis; value as recorded there")
CITE = re.compile(r"^(?P<authors>.+?) \((?P<venue>[A-Za-z]+) (?P<year>\d{4})\)$")
DOI_IN_URL = re.compile(
    r"^https://(?:link\.springer\.com/(?:chapter|article)|onlinelibrary\.wiley\.com/doi/"
    r"(?:full|abs))/(?P<doi>10\.\d{4,9}/\S+)$")


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
        note = PAPER_NOTE if standard else (
            PAPER_NOTE + "; non-standard setting per the meta-analysis, topic count not "
            "recorded there, 249 assumed")
        for part, role, system in PAPER_PARTS:
            for mkey, value in (p.get(part) or {}).items():
                if mkey in SKIPPED_PAPER_MEASURES:
                    continue
                rows.append({
                    "source": "paper", "paper": key, "paper_citation": p["short_cite"],
                    "paper_authors": "" if "et al." in authors else authors,
                    "paper_venue": venue, "paper_year": year,
                    "paper_doi": doi["doi"] if doi else "", "paper_url": p["link"],
                    "paper_tags": "neural" if p["is_neural"] == "yes" else "",
                    "collection": ROBUST04, "topic_set": ROBUST04_TOPIC_SET,
                    "n_topics": ROBUST04_TOPICS, "measure": PAPER_MEASURES[mkey],
                    "value": value, "system": system, "role": role, "year": year,
                    "standard": "true" if standard else "false",
                    "location": f"robust04_papers.json: {part}.{mkey}", "notes": note,
                })
    return rows


PAPER_COLUMNS = ["bibkey", "citation", "title", "authors", "venue", "year", "doi", "url",
                 "tags", "notes"]


def robust04_papers(data: Path) -> list[dict]:
    """Every paper of the meta-analysis, including the 18 that carry no values (the 11
    non-standard ones among them), so that none is lost; tags: neural, nonstandard."""
    path = data / "published" / "robust04_papers.json"
    papers = json.loads(path.read_text(encoding="utf-8"), parse_float=str, parse_int=str)
    out = []
    for key, p in zip(bibkeys([p["short_cite"] for p in papers]), papers, strict=True):
        authors, venue, year = parse_citation(p["short_cite"])
        doi = DOI_IN_URL.match(p["link"])
        tags = [t for t, on in (("neural", p["is_neural"] == "yes"),
                                ("nonstandard", p["standard_setting"] != "yes")) if on]
        has_values = any(p.get(part) for part, _, _ in PAPER_PARTS)
        out.append({
            "bibkey": key, "citation": p["short_cite"], "title": "",
            "authors": "" if "et al." in authors else authors, "venue": venue, "year": year,
            "doi": doi["doi"] if doi else "", "url": p["link"], "tags": ",".join(tags),
            "notes": PAPER_NOTE.replace("; value as recorded there", "") + (
                "" if has_values else "; the meta-analysis records no values for this paper"),
        })
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
    **{("trec13", "terabyte", t): ("trec13/terabyte", "gov2/trec-tb-2004", "701-750", 49)
       for t in [f"{a}LinksUsed-{b}AnchorTextUsed-{c}DocStructUsed"
                 for a in ("", "No") for b in ("", "No") for c in ("", "No")]},
    ("trec14", "terabyte", "adhoc"): ("trec14/terabyte/adhoc", "gov2/trec-tb-2005", "751-800",
                                      50),
    ("trec14", "terabyte", "efficiency"): ("trec14/terabyte/efficiency",
                                           "gov2/trec-tb-2005/efficiency", "751-800", 50),
    ("trec15", "terabyte", "adhoc"): ("trec15/terabyte/adhoc", "gov2/trec-tb-2006", "801-850",
                                      50),
    ("trec15", "terabyte", "efficiency"): ("trec15/terabyte/efficiency",
                                           "gov2/trec-tb-2006/efficiency", "801-850", 50),
    ("trec26", "core", "main"): ("trec26/core/main", "nyt/trec-core-2017", "core17", 50),
    ("trec27", "core", "main"): ("trec27/core/main", "wapo/v2/trec-core-2018", "core18", 50),
    ("trec28", "deep", "docs"): ("trec28/deep/docs", "msmarco-document/trec-dl-2019",
                                 "judged", 43),
    ("trec28", "deep", "passages"): ("trec28/deep/passages", "msmarco-passage/trec-dl-2019",
                                     "judged", 43),
    ("trec29", "deep", "docs"): ("trec29/deep/docs", "msmarco-document/trec-dl-2020",
                                 "judged", 45),
    ("trec29", "deep", "passages"): ("trec29/deep/passages", "msmarco-passage/trec-dl-2020",
                                     "judged", 54),
}
# trec_eval names -> ir_measures names (the ones seeded; others in the file are left out).
OFFICIAL_MEASURES = {"map": "AP", "P_10": "P@10", "Rprec": "Rprec", "ndcg_cut_10": "nDCG@10"}
# NIST run-type spellings -> run_type; None = left blank (unknown or neither).
RUN_TYPES = {"automatic": "automatic", "auto": "automatic", "manual": "manual",
             "human-assisted": "manual", "relauto": None, "": None}
RUN_TYPE_NOTES = {
    "human-assisted": "NIST run type: human-assisted",
    "relauto": "NIST run type: relauto (automatic, using earlier relevance judgments); "
               "run_type left blank",
}
MULTI_EVAL_NOTE = "partial: see seeds/README.md (Terabyte 2006)"


def trec_year(edition: str) -> int:
    """TREC edition N was held in 1991 + N (trec7 -> 1998, trec28 -> 2019)."""
    return 1991 + int(edition.removeprefix("trec"))


def official_rows(data: Path) -> tuple[list[dict], dict]:
    """Rows for OFFICIAL_TRACKS, and what was left out (runs with several evaluations)."""
    path = data / "trec" / "official_summaries.csv"
    with path.open(newline="", encoding="utf-8") as f:
        src = [r for r in csv.DictReader(f)
               if (r["edition"], r["track"], r["task"]) in OFFICIAL_TRACKS]
    # A run printed with several trec_eval blocks for one measure (Terabyte 2006: NIST's
    # summary files hold two unlabeled evaluations) cannot be attributed: leave it out.
    n_evals = Counter((r["edition"], r["track"], r["task"], r["run_id"], r["measure"])
                      for r in src)
    ambiguous = {k[:4] for k, n in n_evals.items() if n > 1}
    left_out = defaultdict(set)
    partial = {k[:3] for k in ambiguous}
    rows = []
    for r in src:
        key = (r["edition"], r["track"], r["task"])
        if key + (r["run_id"],) in ambiguous:
            left_out[key].add(r["run_id"])
            continue
        if r["measure"] not in OFFICIAL_MEASURES:
            continue
        label, collection, topic_set, n_topics = OFFICIAL_TRACKS[key]
        notes = [RUN_TYPE_NOTES[r["run_type"]]] if r["run_type"] in RUN_TYPE_NOTES else []
        if key in partial:
            notes.append(MULTI_EVAL_NOTE)
        rows.append({
            "source": "official", "track": label, "collection": collection,
            "topic_set": topic_set, "n_topics": n_topics,
            "measure": OFFICIAL_MEASURES[r["measure"]], "value": r["value"],
            "system": r["run_id"], "participant": r["participant"], "role": "official",
            "run_type": RUN_TYPES[r["run_type"]] or "", "year": trec_year(r["edition"]),
            "standard": "true",
            "location": f"official_summaries.csv: {'/'.join(key)} {r['measure']}",
            "notes": "; ".join(notes),
        })
    order = {label: i for i, (label, *_) in enumerate(OFFICIAL_TRACKS.values())}
    rows.sort(key=lambda r: order[r["track"]])  # stable: source order within a track
    return rows, {k: sorted(v) for k, v in left_out.items()}


# ---------------------------------------------------------------- output
def to_csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({c: r.get(c, "") for c in COLUMNS} | {
            "transcribed_by": TRANSCRIBED_BY, "transcribed_at": TRANSCRIBED_AT,
            "status": STATUS})
    return buf.getvalue()


def build(data: Path) -> tuple[dict[str, str], dict]:
    """{file name: CSV text}, and the runs left out per (edition, track, task)."""
    official, left_out = official_rows(data)
    return {
        "results/robust04_literature.csv": to_csv(robust04_rows(data)),
        "results/trec_official.csv": to_csv(official),
        "papers/robust04_papers.csv": papers_csv(robust04_papers(data)),
    }, left_out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    ap.add_argument("--out", type=Path, default=SEEDS, help="the seeds folder to write")
    ap.add_argument("--check", action="store_true",
                    help="compare with the files on disk instead of writing")
    args = ap.parse_args(argv)
    if not args.data.is_dir():
        print(f"error: shared data folder not found: {args.data}", file=sys.stderr)
        return 2
    files, left_out = build(args.data)
    for key, runs in sorted(left_out.items()):
        print(f"left out {'/'.join(key)}: {len(runs)} runs with several evaluations",
              file=sys.stderr)
    stale = []
    for name, text in files.items():
        path = args.out / name
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path} ({text.count(chr(10)) - 1} rows, {len(text.encode())} bytes)")
    if stale:
        print(f"out of date: {', '.join(stale)} (run python seeds/transcribe.py)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
