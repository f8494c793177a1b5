"""The results file's columns in words (for `results import --help`, `results template`
and the suggestions for a column name curators use). Pure data: imported at start-up by
the CLI's help, so nothing heavy here.
"""

from __future__ import annotations

# (column, required, what it holds): in the order of litaudit.curation.rows.COLUMNS
COLUMN_DOCS: tuple[tuple[str, str, str], ...] = (
    ("source", "yes", "paper (a paper's number) or official (TREC/leaderboard run)"),
    ("paper", "paper", "the paper's bibkey (add it first, or describe it in paper_*)"),
    ("paper_citation", "", "a new paper's short citation, e.g. Liu et al. (CIKM 2005)"),
    ("paper_title", "", "a new paper's title"),
    ("paper_authors", "", "a new paper's authors"),
    ("paper_venue", "", "a new paper's venue"),
    ("paper_year", "", "a new paper's year"),
    ("paper_doi", "", "a new paper's DOI"),
    ("paper_url", "", "a new paper's URL (http(s))"),
    ("paper_tags", "", "a new paper's tags, comma-separated"),
    ("track", "official", "the TREC edition/track/task, e.g. trec7/adhoc"),
    ("collection", "yes", "collection id or alias (robust04, trec7, msmarco-passage/dev)"),
    ("topic_set", "", "topic set name (default: the collection's)"),
    ("n_topics", "", "number of topics (default: the topic set's)"),
    ("measure", "yes", "ir_measures name or trec_eval alias: AP, MAP, P@10, P_10, nDCG@10"),
    ("value", "yes", "the value exactly as printed (0.30 stays 0.30), a fraction"),
    ("system", "yes", "system label or run id"),
    ("participant", "", "TREC group or site"),
    ("role", "yes", "proposed | baseline | official | reproduction"),
    ("run_type", "", "automatic | manual"),
    ("year", "", "year (default: the date's, the paper's or the TREC edition's)"),
    ("standard", "", "true | false: the standard experimental setting (default true)"),
    ("location", "", "where in the source: table, figure, page"),
    ("transcribed_by", "", "who transcribed it (default: --who, $LITAUDIT_USER or login)"),
    ("transcribed_at", "", "YYYY-MM-DD (default: today, UTC)"),
    ("status", "", "draft | verified | retracted (default draft)"),
    ("notes", "", "free text"),
    ("date", "", "publication or submission date YYYY-MM-DD"),
    ("reporter", "", "who produced the number: authors | nist | leaderboard | mteb | unknown"),
    ("url", "", "the result's own source (http(s))"),
    ("code_url", "", "its code (http(s))"),
)

# column names curators use for ours (lower case)
SYNONYMS: dict[str, str] = {
    "dataset": "collection",
    "corpus": "collection",
    "benchmark": "collection",
    "test_collection": "collection",
    "collection_id": "collection",
    "metric": "measure",
    "metric_name": "measure",
    "score": "value",
    "result": "value",
    "value_text": "value",
    "model": "system",
    "method": "system",
    "run": "system",
    "run_id": "system",
    "runid": "system",
    "system_name": "system",
    "bibkey": "paper",
    "bibtex": "paper",
    "citation_key": "paper",
    "group": "participant",
    "team": "participant",
    "site": "participant",
    "topics": "n_topics",
    "queries": "n_topics",
    "num_topics": "n_topics",
    "num_queries": "n_topics",
    "table": "location",
    "page": "location",
    "figure": "location",
    "curator": "transcribed_by",
    "comment": "notes",
    "comments": "notes",
    "note": "notes",
    "title": "paper_title",
    "authors": "paper_authors",
    "venue": "paper_venue",
    "doi": "paper_doi",
}


def column_help() -> str:
    """The columns as lines for --help (required: yes, or for which source)."""
    width = max(len(c) for c, _, _ in COLUMN_DOCS)
    lines = []
    for c, req, what in COLUMN_DOCS:
        mark = "" if not req else " (required)" if req == "yes" else f" (required for {req})"
        lines.append(f"{c:<{width}}  {what}{mark}")
    return "\n".join(lines)


def import_help() -> str:
    """`results import --help`: what an import does, then the columns."""
    return (
        "Import results: every file is validated whole, and all files are written in one "
        "transaction: any problem in any file writes nothing.\n\n"
        "A CSV (or .tsv), JSON list or Parquet file of rows with these columns (a JSON "
        "curation export also brings papers and history); `litaudit results template "
        "FILE` writes an example. A row already stored exactly so is left unchanged. In a "
        "CSV, a text cell written with an apostrophe before =, +, -, @, tab or CR (as "
        "`results export` writes them) is read without it.\n\n\b\n" + column_help()
    )
