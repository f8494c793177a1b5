"""What a record covers (issue 32, item 5): the sources of the published results an
audit read, each with its date range and count, and what is missing (no published result
after the last year). Said in one line beside every record sentence, so that "above the
record" is read with the record's reach: Robust04's papers stop in 2019, DL 2019 holds the
TREC 2019 runs plus Pyserini's reproductions.

Reproductions (role ``reproduction``) are listed apart and never move the last year of the
published results: a re-run of a model says how strong the model is, not that anything new
was published. They carry their own dates: Pyserini's are dated by the commit that put
each value in its YAML file (``seeds/pyserini_dates.py``, git blame); a reproduction
published in a paper, or in the repository of one, is named by that paper and dated by
its own date (the paper's year, or the commit of the repository line).
"""

from __future__ import annotations

import re
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
    paper: bool = False  # a reproduction named by its paper


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


def _source(s: CoverageSource) -> str:
    """'papers 2005-2019 (218)'; a reproduction named by its paper: 'Yu et al. (arXiv
    2021) (1)' when dated in the paper's year, else 'Liu et al. (SIGIR 2021) (4, dated
    2020)' (the commit of the repository line it was read from)."""
    span = _span(s.first, s.last)
    if s.paper:
        cited_year = re.search(r"(\d{4})\)$", s.label)
        if cited_year and s.first == s.last == int(cited_year[1]):
            return f"{s.label} ({s.n})"
        return f"{s.label} ({s.n}, dated {span})"
    return f"{s.label} {span} ({s.n})"


# reproductions named by their paper: at most this many, the rest counted together
MAX_PAPERS_NAMED = 6


def _reproductions(repro: list[CoverageSource]) -> str:
    named = [s for s in repro if not s.paper] + [s for s in repro if s.paper][:MAX_PAPERS_NAMED]
    rest = [s for s in repro if s not in named]
    text = ", ".join(_source(s) for s in named)
    if rest:
        n = sum(s.n for s in rest)
        span = _span(min(s.first for s in rest), max(s.last for s in rest))
        text += f", {len(rest)} other papers ({n}, dated {span})"
    return "reproductions " + text


def record_coverage(rows: list[ResultRow]) -> RecordCoverage:
    """The coverage of ``rows`` (an audit's population)."""
    groups: dict[tuple[str, bool], list[int]] = defaultdict(list)
    paper_labels: set[str] = set()
    for r in rows:
        is_repro = r.role == "reproduction"
        label = "papers" if r.source == "paper" else (track_label(r.track) or r.source)
        if is_repro and r.source == "paper" and (r.citation or r.bibkey):
            label = str(r.citation or r.bibkey)  # a paper's reproduction: by its paper
            paper_labels.add(label)
        groups[(label, is_repro)].append(_year(r))
    sources = tuple(
        sorted(
            (
                CoverageSource(
                    label=k[0],
                    first=min(v),
                    last=max(v),
                    n=len(v),
                    reproductions=k[1],
                    paper=k[1] and k[0] in paper_labels,
                )
                for k, v in groups.items()
            ),
            key=lambda s: (s.reproductions, -s.n, s.label),
        )
    )
    published = [s for s in sources if not s.reproductions]
    last = max((s.last for s in published), default=None)
    parts = [_source(s) for s in published]
    repro = [s for s in sources if s.reproductions]
    if repro:
        parts.append(_reproductions(repro))
    missing = f"no published result after {last}" if last is not None else "no published result"
    sentence = f"{'; '.join(parts)}; {missing}" if parts else missing
    return RecordCoverage(sources=sources, last_published=last, sentence=sentence)
