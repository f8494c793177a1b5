"""Rendering stored and fresh audits: one renderer per result type, one "saved" footer, one
``--json`` shape, one emitter (:func:`emit`).

:data:`RENDERERS` maps each result type of :data:`litaudit.analyses.audits.KINDS` to the
function that prints it on the terminal, ``fn(result, audit_id)``, its first parameter
annotated with that type (so mypy checks the renderer; tests/store/test_codec.py checks the
table). ``audit show ID`` and the command that made the audit both go through
:func:`render_result`, so a stored audit reads back as it was first printed. A stored
result of an unlisted kind (plain JSON) is shown field by field (never as raw JSON). See
docs/DEVELOPING.md, "Adding an audit kind".

Imports only types from the analyses (never runs one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from litaudit.analyses.agreement.analysis import ReuseAgreement
from litaudit.analyses.audits import Audited, StoredAudit
from litaudit.analyses.extreme.baselines import BaselineStanding
from litaudit.analyses.extreme.best import BestReport, ClaimReport
from litaudit.analyses.extreme.history import HistoryReport
from litaudit.analyses.extreme.matrix import MatrixAudit
from litaudit.analyses.extreme.ranks import RanksAudit
from litaudit.analyses.extreme.resolution import ResolutionReport
from litaudit.analyses.extreme.summary import Summary
from litaudit.analyses.reuse.lou import LOUReport
from litaudit.analyses.reuse.overlap import RAOReport
from litaudit.analyses.reuse.subcollection_tau import SubcollectionReport
from litaudit.analyses.reuse.verdict import Verdict
from litaudit.codec import to_jsonable
from litaudit.render import audits_evidence as evidence
from litaudit.render import audits_ranks as ranks
from litaudit.render import audits_reuse as reuse
from litaudit.render.audits_evidence import line, wide
from litaudit.render.audits_extreme import render_best, render_claim, render_matrix
from litaudit.render.audits_history import render_history
from litaudit.render.audits_records import render_resolution
from litaudit.render.audits_summary import render_summary
from litaudit.render.audits_verdict import render_verdict
from litaudit.render.console import print_json, table

Renderer = Callable[[Any, int | None], None]


def saved_footer(audit_id: int | None, reused: bool = False) -> str | None:
    """The one footer of every audit command: where its result is stored."""
    if audit_id is None:
        return None
    if reused:
        return (
            f"audit #{audit_id}: stored earlier by an identical call "
            "(same parameters, input and version), not recomputed"
        )
    return f"saved as audit #{audit_id}"


def envelope(audited: Audited) -> dict:
    """The ``--json`` form of an audit command's outcome."""
    return {"audit_id": audited.audit_id, "reused": audited.reused, "result": audited.result}


def render_result(result: Any, audit_id: int | None = None) -> None:
    """Print ``result`` with the renderer of its type (field by field when it has none)."""
    fn = RENDERERS.get(type(result))
    if fn is None:
        _fields(to_jsonable(result), "")
    else:
        fn(result, audit_id)


def emit(audited: Audited, json_out: bool, *, every: bool = False) -> None:
    """Print an audit command's outcome: ``--json`` the envelope ``{"audit_id", "reused",
    "result"}`` (the whole result, as `audit show --json` gives it); else the result's
    renderer, then where it is stored (the reports of :data:`ID_IN_HEAD` say their audit id
    in their header instead), and, for every kind, that an identical call's stored audit was handed
    back (``reused``), as the JSON says. ``every``: the text shows the parts its summary
    leaves out too (:data:`EVERY`): a history's every step, not only the record steps
    (`audit history --all`); an agreement's every tested pair (`reuse agreement --pairs`)."""
    if json_out:
        print_json(envelope(audited))
        return
    long = EVERY.get(type(audited.result)) if every else None
    (long or render_result)(audited.result, audited.audit_id)
    if isinstance(audited.result, ID_IN_HEAD) and not audited.reused:
        return  # its header says where it is stored; a reused one still says so below
    foot = saved_footer(audited.audit_id, audited.reused)
    if foot:
        line(foot)


def show_stored(a: StoredAudit, json_out: bool) -> None:
    """`audit show`: the full record (``--json``) or :func:`render_stored`."""
    if json_out:
        print_json(a)
        return
    render_stored(a)


def print_audit_list(rows: Sequence[StoredAudit], json_out: bool) -> None:
    """`audit list`: the stored audits' records without their results (a table, or JSON)."""
    if json_out:
        print_json([{k: v for k, v in a.__dict__.items() if k != "result"} for a in rows])
        return
    wide(
        table(
            f"{len(rows)} stored audits",
            [
                "id",
                "kind",
                "collection",
                "measure",
                "method",
                "seed",
                "trials",
                "input",
                "version",
                "created",
            ],
            [
                (
                    a.id,
                    a.kind,
                    a.collection_id,
                    a.measure or "-",
                    a.method,
                    a.seed,
                    a.trials,
                    a.input_fingerprint[:12],
                    a.software_version,
                    a.created_at[:19],
                )
                for a in rows
            ],
        )
    )


def render_stored(a: StoredAudit) -> None:
    """`audit show`: the record's provenance line, then its kind's rendering."""
    line(
        f"Audit #{a.id} ({a.kind}), {a.created_at[:19]}, litaudit {a.software_version}, "
        f"method {a.method}"
        + (f", seed {a.seed}, {a.trials} trials" if a.trials else "")
        + f", input {a.input_fingerprint[:12]}"
    )
    render_result(a.result, a.id)


def _fields(d: Any, indent: str) -> None:
    """A result without a renderer: one line per field, nested fields indented."""
    if isinstance(d, dict):
        for k, v in d.items():
            if isinstance(v, (dict, list)) and v:
                line(f"{indent}{k}:")
                _fields(v, indent + "  ")
            else:
                line(f"{indent}{k}: {'-' if v is None or v == [] else v}")
    elif isinstance(d, list):
        for i, v in enumerate(d):
            if isinstance(v, (dict, list)):
                line(f"{indent}[{i}]")
                _fields(v, indent + "  ")
            else:
                line(f"{indent}- {v}")
    else:
        line(f"{indent}{d}")


def emit_summary(rep: Summary, json_out: bool) -> None:
    """`audit summary`: ``--json`` the summary itself (not an audit: each row carries the
    id of its stored 'best' audit), else its table (:func:`render_summary`)."""
    if json_out:
        print_json(rep)
        return
    render_summary(rep)


# the renderer of every result type of litaudit.analyses.audits.KINDS
RENDERERS: dict[type, Renderer] = {
    BestReport: render_best,
    ClaimReport: render_claim,
    HistoryReport: render_history,
    MatrixAudit: render_matrix,
    RAOReport: reuse.render_rao,
    LOUReport: reuse.render_lou,
    SubcollectionReport: reuse.render_subcollections,
    ReuseAgreement: reuse.render_agreement,
    Verdict: render_verdict,
    BaselineStanding: evidence.render_baselines,
    RanksAudit: ranks.render_ranks,
    ResolutionReport: render_resolution,
}


def _every_step(rep: HistoryReport, audit_id: int | None) -> None:
    render_history(rep, audit_id, every=True)


def _every_pair(rep: ReuseAgreement, audit_id: int | None) -> None:
    reuse.render_agreement(rep, audit_id)
    reuse.render_agreement_pairs(rep)


# the renderers of the result types whose text can show more than `audit show` does,
# when asked (emit's ``every``): the parts `--json` always has
EVERY: dict[type, Renderer] = {HistoryReport: _every_step, ReuseAgreement: _every_pair}
# the results whose renderer says the audit id in its first line (no footer after them:
# tests/cli/test_show_equals_command.py checks that one line says it, never two)
ID_IN_HEAD = (BestReport, ClaimReport, HistoryReport, RanksAudit, ResolutionReport)
