"""`litaudit results template`: an example results file made of real seeded rows (a
paper's number and an official run's), with the provenance an import fills in left
blank."""

from __future__ import annotations

import csv
import io

from litaudit.curation.rows import COLUMNS
from litaudit.resources import data_dir

# (seed file, its first row): a paper's result (with the paper described) and a TREC run's
EXAMPLES = ("robust04_literature.csv", "trec_official.csv")
FILLED_ON_IMPORT = ("transcribed_by", "transcribed_at", "status")


def template_rows() -> list[dict]:
    """The first row of each of :data:`EXAMPLES` in the import format, with
    transcribed_by, transcribed_at and status blank (an import fills them: --who, today,
    draft)."""
    rows = []
    for name in EXAMPLES:
        text = (data_dir("seeds") / "results" / name).read_text(encoding="utf-8")
        first = next(csv.DictReader(io.StringIO(text, newline="")))
        rows.append({c: "" if c in FILLED_ON_IMPORT else first.get(c) or "" for c in COLUMNS})
    return rows
