"""Papers read from a file, for :mod:`litaudit.curation.papers` (``papers import``): a
BibTeX file (bibtexparser v2; an entry it cannot read named by its line) or a papers CSV
file (:data:`PAPER_CSV_COLUMNS`), each entry as the fields of a paper with its short
citation and venue (:func:`short_citation`, :func:`short_venue`). Nothing is written.
"""

from __future__ import annotations

import csv
import io
import logging
import re
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litaudit.curation import fields as field_parsers
from litaudit.curation.rows import decode_utf8
from litaudit.errors import InputError, Problem
from litaudit.measures import did_you_mean

if TYPE_CHECKING:
    pass


VENUES = (
    "SIGIR",
    "CIKM",
    "ECIR",
    "WSDM",
    "WWW",
    "KDD",
    "ICTIR",
    "TOIS",
    "TREC",
    "IRJ",
    "IPM",
    "JASIST",
    "EMNLP",
    "NAACL",
    "ACL",
    "AAAI",
    "IJCAI",
    "ICLR",
    "NeurIPS",
    "TKDE",
    "TOIS",
)


_ACRONYM = re.compile(r"\b(" + "|".join(VENUES) + r")\b")


def short_venue(text: str | None) -> str | None:
    if not text:
        return None
    m = _ACRONYM.search(text)
    return m.group(1) if m else text.strip()


def short_citation(authors: str | None, venue: str | None, year: int | None) -> str:
    """'Yang et al. (SIGIR 2019)' from a BibTeX author list."""
    names = [a.strip() for a in re.split(r"\s+and\s+", authors or "") if a.strip()]
    surnames = [(n.split(",")[0] if "," in n else n.split()[-1]).strip("{} ") for n in names]
    who = (
        surnames[0]
        if len(surnames) == 1
        else f"{surnames[0]} and {surnames[1]}"
        if len(surnames) == 2
        else f"{surnames[0]} et al."
        if surnames
        else "Anonymous"
    )
    where = " ".join(str(x) for x in (venue, year) if x)
    return f"{who} ({where})" if where else who


def _line_of(block) -> int | None:
    """The 1-based line a bibtexparser block starts on (None when it does not say)."""
    return None if block.start_line is None else block.start_line + 1


def _bibtex_reason(block) -> str:
    """Why bibtexparser could not use a block, in words (its exceptions carry the reason
    that it otherwise only logs)."""
    # start-up: bibtexparser
    from bibtexparser import model

    if isinstance(block, model.DuplicateBlockKeyBlock):
        return f"entry key {block.key!r} appears twice"
    if isinstance(block, model.DuplicateFieldKeyBlock):
        dup = ", ".join(sorted(getattr(block, "duplicate_keys", ()) or ())) or "a field"
        return f"field {dup} appears twice in the entry"
    err = getattr(block, "error", None)
    reason = (getattr(err, "abort_reason", None) or (str(err) if err else "")).strip()
    if "entry key" in reason:
        return f"entry without a key ({reason})"
    if "end of file" in reason.lower():
        return 'unterminated entry: a { or " is never closed before the end of the file'
    return reason or type(err).__name__ if err else "cannot parse this block"


@contextmanager
def _quiet_bibtexparser():
    """Every bibtexparser logger off for the block (its splitter logs each failed block
    on a logger of its own, which a disabled parent does not silence)."""

    loggers = [logging.getLogger("bibtexparser")] + [
        logging.getLogger(n)
        for n in list(logging.root.manager.loggerDict)
        if n.startswith("bibtexparser.")
    ]
    was = [lg.disabled for lg in loggers]
    for lg in loggers:
        lg.disabled = True
    try:
        yield
    finally:
        for lg, w in zip(loggers, was, strict=True):
            lg.disabled = w


def read_bibtex(path: Path) -> tuple[list[dict], list[Problem]]:
    """Paper records from a .bib file, and every problem found (with its line).

    LaTeX in the fields (accents, braces protecting capitals) becomes Unicode through
    bibtexparser's own LatexDecodingMiddleware; its log lines are kept off the terminal
    and its reasons reported as problems instead."""
    # start-up: bibtexparser
    import bibtexparser

    # start-up: bibtexparser
    from bibtexparser.middlewares import LatexDecodingMiddleware

    path = Path(path)
    text = _bib_text(path)
    try:
        with _quiet_bibtexparser():
            lib = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    except RecursionError:
        raise InputError(str(path), None, "cannot parse BibTeX: nested too deeply") from None
    except Exception as exc:  # bibtexparser's own state errors
        raise InputError(str(path), None, f"cannot parse BibTeX: {exc}") from None
    problems = [
        Problem(str(path), _line_of(b), f"cannot parse BibTeX: {_bibtex_reason(b)}")
        for b in lib.failed_blocks
    ]
    records = [r for e in lib.entries if (r := _bib_record(path, e, problems)) is not None]
    return records, problems


def _bib_text(path: Path) -> str:
    """The text of a .bib file (UTF-8, no NUL byte)."""

    if path.is_dir():
        raise InputError(str(path), None, "is a directory, not a BibTeX file")
    try:
        text = decode_utf8(str(path), path.read_bytes())
    except FileNotFoundError:
        raise InputError(str(path), None, "no such file") from None
    except OSError as exc:
        raise InputError(str(path), None, f"cannot read: {exc.strerror or exc}") from None
    if "\x00" in text:
        nul_line = text.count("\n", 0, text.index("\x00")) + 1
        raise InputError(str(path), nul_line, "contains a NUL byte (not a BibTeX text file)")
    return text


def _bib_record(path: Path, e, problems: list[Problem]) -> dict | None:
    """The paper record of the BibTeX entry ``e``, or None with its problems added."""
    f = {fl.key.lower(): " ".join(str(fl.value).split()) for fl in e.fields}
    line = _line_of(e)
    if not e.key or not e.key.strip():
        problems.append(Problem(str(path), line, "entry without a key"))
        return None
    bad = False
    for need in ("title", "author", "year"):
        if not f.get(need):
            problems.append(Problem(str(path), line, f"entry {e.key!r}: missing {need}"))
            bad = True
    for k, v in f.items():
        why = field_parsers.check_text(v)
        if why:
            problems.append(Problem(str(path), line, f"entry {e.key!r}: {k} {why}"))
            bad = True
    try:
        year = field_parsers.parse_year(f["year"]) if f.get("year") else None
    except field_parsers.FieldError as err:
        problems.append(Problem(str(path), line, f"entry {e.key!r}: {err}"))
        bad = True
    if bad:
        return None
    venue = short_venue(f.get("booktitle") or f.get("journal"))
    doi = f.get("doi")
    return {
        "bibkey": e.key,
        "title": f["title"],
        "authors": f["author"],
        "venue": venue,
        "year": year,
        "doi": doi,
        "url": f.get("url") or (f"https://doi.org/{doi}" if doi else None),
        "citation": short_citation(f["author"], venue, year),
        "line": line,
    }


PAPER_CSV_COLUMNS = tuple(k for k in field_parsers.PAPER_KEYS if k != "created_at")


def read_papers_csv(path: Path) -> tuple[list[dict], list[Problem]]:
    """Paper records from a CSV with the columns of PAPER_CSV_COLUMNS (bibkey, citation required)."""

    path = Path(path)
    if path.is_dir():
        raise InputError(str(path), None, "is a directory, not a CSV file")
    try:
        text = decode_utf8(str(path), path.read_bytes())
    except FileNotFoundError:
        raise InputError(str(path), None, "no such file") from None
    records, problems = [], []
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    try:
        names = reader.fieldnames or []
    except csv.Error as exc:
        raise InputError(str(path), 1, f"cannot read CSV: {exc}") from None
    problems += _csv_header_problems(path, list(names))
    if problems:
        return [], problems
    rows = iter(reader)
    while True:
        try:
            rec = next(rows)
        except StopIteration:
            break
        except csv.Error as exc:
            msg = str(exc)
            problems.append(
                Problem(
                    str(path),
                    reader.line_num,
                    "unterminated quote" if "end of data" in msg else f"cannot read CSV: {msg}",
                )
            )
            break
        r = _paper_row(path, reader.line_num, rec, problems)
        if r is not None:
            records.append(r)
    return records, problems


def _csv_header_problems(path: Path, names: list[str]) -> list[Problem]:
    """A papers CSV's columns that appear twice or are not PAPER_CSV_COLUMNS."""

    problems = []
    for i, c in enumerate(names):
        if c in names[:i]:
            problems.append(Problem(str(path), 1, f"column {c!r} appears twice"))
        if c not in PAPER_CSV_COLUMNS:
            problems.append(
                Problem(str(path), 1, f"unknown column {c!r}{did_you_mean(c, PAPER_CSV_COLUMNS)}")
            )
    return problems


def _paper_row(path: Path, line: int, rec: dict, problems: list[Problem]) -> dict | None:
    """The paper record of a CSV row, or None with its problem added."""
    if None in rec or None in rec.values():
        problems.append(
            Problem(str(path), line, "the row's cells do not match the header's columns")
        )
        return None
    r: dict[str, Any] = {c: field_parsers.text_or_none(rec.get(c)) for c in PAPER_CSV_COLUMNS}
    why = next(
        (
            f"{c}: {field_parsers.check_text(v)}"
            for c, v in r.items()
            if field_parsers.check_text(v)
        ),
        None,
    )
    if why:
        problems.append(Problem(str(path), line, why))
        return None
    if not r["bibkey"] or not r["citation"]:
        problems.append(Problem(str(path), line, "a paper needs a bibkey and a citation"))
        return None
    try:
        r["year"] = field_parsers.parse_year(r["year"]) if r["year"] else None
    except field_parsers.FieldError as e:
        problems.append(Problem(str(path), line, str(e), "year"))
        return None
    r["line"] = line
    return r
