"""What a record covers (issue 32, item 5): the sources of the published results an
audit read, each with its date range and count, and what is missing (no published result
after the last year). Said in one line beside every record sentence, so that "above the
record" is read with the record's reach: Robust04's papers stop in 2018, DL 2019 holds the
TREC 2019 runs plus reproductions dated by the day they were read.

Reproductions (role ``reproduction``) are listed apart: their date is when they were
transcribed or last run, not when a paper published them, so they never move the last
year of the published results.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from litaudit.analyses.extreme.population import ResultRow, track_label


@dataclass(frozen=True, kw_only=True)
class CoverageSource:
    """One source of the population: ``label`` ('papers', 'TREC trec13/robust'), its first
    and last year, its number of results, and whether they are reproductions."""

    label: str
    first: int
    last: int
    n: int
    reproductions: bool = False


@dataclass(frozen=True, kw_only=True)
class RecordCoverage:
    """The sources, the last year of a published (not reproduced) result, and the line."""

    sources: tuple[CoverageSource, ...]
    last_published: int | None
    sentence: str


def _year(r: ResultRow) -> int:
    if r.date and r.date[:4].isdigit():
        return int(r.date[:4])
    return int(r.year)


def _span(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}-{last}"


def record_coverage(rows: list[ResultRow]) -> RecordCoverage:
    """The coverage of ``rows`` (an audit's population)."""
    groups: dict[tuple[str, bool], list[int]] = defaultdict(list)
    for r in rows:
        label = "papers" if r.source == "paper" else (track_label(r.track) or r.source)
        groups[(label, r.role == "reproduction")].append(_year(r))
    sources = tuple(
        sorted(
            (
                CoverageSource(label=k[0], first=min(v), last=max(v), n=len(v), reproductions=k[1])
                for k, v in groups.items()
            ),
            key=lambda s: (s.reproductions, -s.n, s.label),
        )
    )
    published = [s for s in sources if not s.reproductions]
    last = max((s.last for s in published), default=None)
    parts = [f"{s.label} {_span(s.first, s.last)} ({s.n})" for s in published]
    repro = [s for s in sources if s.reproductions]
    if repro:
        parts.append(
            "reproductions "
            + ", ".join(
                f"{s.label} ({s.n}, dated {_span(s.first, s.last)} when read)" for s in repro
            )
        )
    missing = f"no published result after {last}" if last is not None else "no published result"
    sentence = f"{'; '.join(parts)}; {missing}" if parts else missing
    return RecordCoverage(sources=sources, last_published=last, sentence=sentence)
