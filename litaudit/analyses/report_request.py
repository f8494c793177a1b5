"""`litaudit report` asked once (issue 37 item 1): its options as one frozen settings
object, checked before the store opens (the claim as printed, the format, the output file,
the claims file read whole), and the one call that answers it: the audits each report
needs, run or found and stored (:func:`litaudit.analyses.report_audits.prepare_report`;
Carterette, SIGIR 2015; the reusability of Voorhees et al. SIGIR 2014, Sanderson et al.
CIKM 2012, Carterette et al. SIGIR 2010). The report is built from the stored audits,
formatted and written by :func:`litaudit.render.report.output.print_report`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit.analyses.claims_file import ClaimLine, read_claims
from litaudit.analyses.extreme.claim_evidence import Asked
from litaudit.analyses.extreme.printed import printed
from litaudit.analyses.report_audits import ReportAudits, ReuseAsked, prepare_report
from litaudit.curation.filters import Filters
from litaudit.errors import InputError, LitauditError
from litaudit.files import STDOUT, check_target
from litaudit.progress import Progress

if TYPE_CHECKING:
    import duckdb

FORMATS = ("md", "html", "json", "text")
SUFFIX_FORMAT = {
    ".md": "md",
    ".markdown": "md",
    ".html": "html",
    ".htm": "html",
    ".json": "json",
    ".txt": "text",
}


@dataclass(frozen=True, kw_only=True)
class ReportRequest:
    """What `report` is asked: one collection's report (``collection``, with a measure,
    a claim, its run, the runs to compare it with and its baseline), or one document of a
    claims file's claims (``claims``); the published results' filters, the format
    (None: from the output's suffix, else md), the output (None or ``-``: standard
    output), the reusability verdict's sub-collection test and pool depth, timestamps,
    the history through the reproductions, and the open database (never the output).
    :meth:`checked` fills in ``fmt`` and the claims file's ``lines``."""

    collection: str | None = None
    measure: str | None = None
    claim: str | None = None
    filters: Filters = Filters()
    fmt: str | None = None
    output: str | None = None
    run: str | None = None
    against: tuple[str, ...] = ()
    baseline: str | None = None
    baseline_system: str | None = None
    subcollections: bool = False
    depth: int | None = None
    timestamp: bool = False
    with_reproductions: bool = False
    claims: Path | None = None
    database: Path | None = None
    lines: tuple[ClaimLine, ...] = ()

    @property
    def target(self) -> Path | None:
        """The file to write, or None for standard output."""
        return None if self.output is None or self.output == STDOUT else Path(self.output)

    def checked(self) -> ReportRequest:
        """The request refused before any audit when its options contradict each other,
        the claim is not a number, the format is unknown, the output cannot be written
        (the database, a directory, a missing folder) or the claims file is bad (its file
        and line named); else with its format and the claims file's lines filled in."""
        one = [self.collection, self.measure, self.claim, self.run, self.baseline]
        one.append(self.baseline_system)
        if self.claims is not None and (any(x is not None for x in one) or self.against):
            raise LitauditError(
                "--claims takes every claim from its file: leave out -c, -m, --claim, --run, "
                "--against, --baseline and --baseline-system"
            )
        if self.claims is None and self.collection is None:
            raise LitauditError(
                "give the collection (-c COLLECTION) or a claims file (--claims FILE)"
            )
        printed(self.claim, "--claim")  # a bad value refused before any audit
        target = self.target
        fmt = _format(self.fmt, target)
        if target is not None:
            check_target(str(self.output), [self.database])
        lines = read_claims(self.claims) if self.claims is not None else ()
        return dataclasses.replace(self, fmt=fmt, lines=lines)


def _format(fmt: str | None, output: Path | None) -> str:
    if fmt is None:
        return SUFFIX_FORMAT.get(output.suffix.lower(), "md") if output else "md"
    f = fmt.strip().lower().lstrip(".")
    f = {"markdown": "md", "htm": "html", "txt": "text"}.get(f, f)
    if f not in FORMATS:
        raise LitauditError(f"--format: {fmt!r} is not one of md, html, json, text")
    return f


@dataclass(frozen=True, kw_only=True)
class ReportAnswer:
    """The audits a :class:`ReportRequest` is answered with: one :class:`ReportAudits`
    for a collection's report, or one per line of the claims file (in its order)."""

    request: ReportRequest
    audits: tuple[ReportAudits, ...]


def answer_report(
    con: duckdb.DuckDBPyConnection,
    req: ReportRequest,
    *,
    note: Callable[[str], None] | None = None,
    progress: Progress | None = None,
) -> ReportAnswer:
    """Run and store the audits missing for a :meth:`ReportRequest.checked` request (a
    write connection); ``note(message)`` for each audit run, ``progress`` for the
    reusability verdict's steps. A claim of the file that cannot be audited is an
    InputError naming its file and line."""
    asked = dict(
        filters=req.filters,
        with_reproductions=req.with_reproductions,
        note=note,
        progress=progress,
    )
    if req.claims is None:
        assert req.collection is not None  # checked()
        evidence = Asked(req.run, req.against, req.baseline, req.baseline_system)
        reuse = ReuseAsked(subcollections=req.subcollections, depth=req.depth)
        one = prepare_report(
            con,
            req.collection,
            measure=req.measure,
            claim=req.claim,
            subcollections=reuse,
            evidence=evidence,
            **asked,  # type: ignore[arg-type]
        )
        return ReportAnswer(request=req, audits=(one,))
    out = []
    for c in req.lines:
        evidence = Asked(c.run, c.against, c.baseline, c.baseline_system)
        try:
            out.append(
                prepare_report(
                    con,
                    c.collection,
                    measure=c.measure,
                    claim=c.value,
                    subcollections=req.subcollections,
                    evidence=evidence,
                    **asked,  # type: ignore[arg-type]
                )
            )
        except InputError:
            raise
        except LitauditError as exc:
            raise InputError(c.file, c.line, f"{c.label()}: {exc}") from None
    return ReportAnswer(request=req, audits=tuple(out))
